/* main.c: the `mapfarm` command-line tool. The only file that prints to the user or exits.
 *
 * Exit status: 0 success, 1 a run with failed jobs (or a database error), 2 bad input,
 * 130 / 143 a run stopped by SIGINT / SIGTERM (finished jobs are kept; rerun to resume). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "astar.h"
#include "bench.h"
#include "columns.h"
#include "mapfarm_version.h"
#include "dataset.h"
#include "expand.h"
#include "image.h"
#include "merge.h"
#include "plan.h"
#include "portfolio.h"
#include "pool.h"
#include "report.h"
#include "scengen.h"
#include "sim.h"
#include "status.h"
#include "store.h"
#include "suggest.h"

#define EXIT_FAILED_JOBS 1
#define EXIT_BAD_INPUT 2
#define MAX_MAP_DIRS 16

static const char usage[] =
    "usage:\n"
    "  mapfarm run PLAN.yaml --db FILE [--threads N] [--shard I/N] [--maps DIR] [--retry-failed]\n"
    "  mapfarm expand PLAN.yaml [--list] [--maps DIR]\n"
    "  mapfarm solve --map MAP (--scen FILE [--agents N | --problem K] | --generator G --agents N\n"
    "                [--generator-param NAME=VALUE ...] [--seed S]) --algo NAME\n"
    "                [--param NAME=VALUE ...] [--steps N]\n"
    "                [--seconds S] [--expansions N] [--execution chains|single-pass]\n"
    "                [--trace FILE] [--export-scen FILE] [--maps DIR]\n"
    "  mapfarm report --db FILE NAME [--format text|md|csv] [--max-agents N]\n"
    "                [--rows DIM] [--cols DIM] [--where SQL] [--counts]\n"
    "  mapfarm portfolio --db FILE --size N [--by distance|suboptimality]\n"
    "                [--format text|md|csv] [--max-agents N] [--where SQL]\n"
    "  mapfarm merge OUT.db IN.db...\n"
    "  mapfarm status --db FILE\n"
    "  mapfarm runs --db FILE\n"
    "  mapfarm render --map MAP (--scen FILE [--agents N | --problem K] | --generator G\n"
    "                --agents N [--generator-param NAME=VALUE ...] [--seed S]) --out FILE.png\n"
    "                [--size N|native] [--maps DIR]\n"
    "  mapfarm dataset --db FILE --out DIR [--size N] [--train F] [--seed S] [--maps DIR]\n"
    "  mapfarm algorithms\n"
    "  mapfarm bench astar --map MAP --scen FILE [--maps DIR]\n"
    "  mapfarm bench sim --map MAP [--agents N[,N...]] [--algo NAME] [--steps S] [--seed S]\n"
    "                [--maps DIR]\n"
    "  mapfarm --version\n"
    "Maps named by relative paths are looked up beside the plan, then under every --maps DIR\n"
    "and every directory in MAPFARM_MAPS (colon-separated).\n";

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "mapfarm: error: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%s", usage);
  return EXIT_BAD_INPUT;
}

static void print_diag(const mapf_diag *d) {
  char buf[1200];
  mapf_diag_format(d, buf, sizeof buf);
  fprintf(stderr, "%s\n", buf);
}

/* Every error of a plan, each followed by the offending line with a caret (as Redis config.c
 * quotes the line). */
static void print_diags(const farm_diags *ds, const char *text) {
  for (int32_t i = 0; i < ds->n && i < ds->cap; i++) {
    const mapf_diag *d = &ds->items[i];
    print_diag(d);
    if (!text || d->line < 1) continue;
    const char *p = text;
    for (int l = 1; l < d->line && p; l++) {
      p = strchr(p, '\n');
      if (p) p++;
    }
    if (!p || !*p) continue;
    const char *e = strchr(p, '\n');
    int len = e ? (int)(e - p) : (int)strlen(p);
    if (len > 200) len = 200;
    fprintf(stderr, "  %.*s\n", len, p);
    if (d->col > 0 && d->col <= len + 1) fprintf(stderr, "  %*s^\n", d->col - 1, "");
  }
  if (ds->n > 1) fprintf(stderr, "%d errors\n", (int)ds->n);
}

/* The whole file as a string, or NULL (a FIFO or another file that is not a regular one
 * included: the plan loader has said why). */
static char *read_text(const char *path) {
  char *buf;
  size_t len;
  return mapf_read_file(path, (size_t)16 << 20, &buf, &len, NULL) == MAPF_OK ? buf : NULL;
}

/* --maps DIR options, then MAPFARM_MAPS. */
typedef struct map_dirs {
  const char *dir[MAX_MAP_DIRS];
  int32_t n;
  char *env; /* owned copy of MAPFARM_MAPS, split in place */
} map_dirs;

static void map_dirs_env(map_dirs *md) {
  const char *env = getenv("MAPFARM_MAPS");
  if (!env || !*env) return;
  md->env = strdup(env);
  if (!md->env) return;
  for (char *tok = strtok(md->env, ":"); tok && md->n < MAX_MAP_DIRS; tok = strtok(NULL, ":"))
    md->dir[md->n++] = tok;
}

/* A --maps DIR option; past MAX_MAP_DIRS the rest are ignored. */
static void map_dirs_add(map_dirs *md, const char *dir) {
  if (md->n < MAX_MAP_DIRS) md->dir[md->n++] = dir;
}

static int parse_long(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int parse_double(const char *s, double lo, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end || !(v >= lo && v <= hi)) return -1;
  *out = v + 0.0; /* -0 is 0 */
  return 0;
}

static const char *need_value(int argc, char **argv, int *i) {
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

/* An argument that no option of command cmd took: its one positional argument, into *slot
 * while that is unset (slot NULL: the command takes none). Returns 0, or EXIT_BAD_INPUT after
 * printing why. */
static int positional_arg(const char *cmd, const char *a, const char **slot) {
  if (a[0] == '-') {
    fprintf(stderr, "mapfarm: error: unknown option %s for %s\n%s", a, cmd, usage);
    return EXIT_BAD_INPUT;
  }
  if (!slot || *slot) return bad_usage("unexpected argument %s", a);
  *slot = a;
  return 0;
}

/* Opens db read-only for a command that only reads it, with err the command's own buffer.
 * Returns 0 and *st, or EXIT_BAD_INPUT after printing why. */
static int open_readonly(const char *db, farm_store **st, char *err, size_t errlen) {
  if (farm_store_open(db, FARM_STORE_READONLY, st, err, errlen) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* ---- progress ------------------------------------------------------------------------ */

typedef struct progress {
  int tty;
  double last_print;
} progress;

static void on_progress(void *ud, int64_t done, int64_t pending, int64_t failed, double elapsed,
                        int final) {
  progress *pr = ud;
  if (!final && !pr->tty && elapsed - pr->last_print < 5.0) return;
  if (!final && pr->tty && elapsed - pr->last_print < 0.2) return;
  pr->last_print = elapsed;
  double rate = elapsed > 0 ? (double)done / elapsed : 0;
  double eta = rate > 0 ? (double)(pending - done) / rate : 0;
  if (pr->tty) {
    fprintf(stderr, "\r%lld/%lld jobs  %.1f jobs/s  %lld failed  ETA %.0f s   ",
            (long long)done, (long long)pending, rate, (long long)failed, eta);
    if (final) fprintf(stderr, "\n");
  } else if (!final) {
    fprintf(stderr, "progress: %lld/%lld jobs, %.1f jobs/s, %lld failed, ETA %.0f s\n",
            (long long)done, (long long)pending, rate, (long long)failed, eta);
  }
  fflush(stderr);
}

/* ---- signals ------------------------------------------------------------------------- */

static volatile sig_atomic_t stop_signal = 0;

static void on_signal(int sig) { stop_signal = sig; }

/* ---- plan loading shared by run and expand ------------------------------------------- */

static int load_plan(const char *path, map_dirs *md, farm_plan **plan, farm_space *sp) {
  farm_plan_opts po = {md->dir, md->n};
  farm_diags errs = {0};
  int rc = farm_plan_load(path, &po, plan, &errs);
  if (rc != MAPF_OK) {
    /* The plan is gone on error: read the text again to quote the offending lines. */
    char *text = read_text(path);
    print_diags(&errs, text);
    free(text);
    if (errs.n == 0) fprintf(stderr, "%s: error: %s\n", path, mapf_strerror(rc));
    farm_diags_free(&errs);
    return -1;
  }
  rc = farm_space_init(sp, *plan, &errs);
  if (rc != MAPF_OK || errs.n > 0) {
    print_diags(&errs, (*plan)->text);
    if (errs.n == 0) fprintf(stderr, "%s: error: %s\n", path, mapf_strerror(rc));
    farm_diags_free(&errs);
    farm_space_free(sp);
    farm_plan_free(*plan);
    *plan = NULL;
    return -1;
  }
  farm_diags_free(&errs);
  return 0;
}

/* ---- mapfarm expand ------------------------------------------------------------------ */

/* A map as results name it: as the plan writes it, or its generated name (as farm/pool.c). */
static const char *map_name(const farm_space *sp, int32_t m) {
  const char *src = sp->plan->maps[m].source;
  return src ? src : sp->grids[m]->name;
}

static int cmd_expand(int argc, char **argv) {
  const char *plan_path = NULL;
  int list = 0;
  map_dirs md = {0};
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--list") == 0) {
      list = 1;
    } else if (strcmp(argv[i], "--maps") == 0) {
      const char *v = need_value(argc, argv, &i);
      if (!v) return bad_usage("%s needs a directory", "--maps");
      map_dirs_add(&md, v);
    } else {
      int e = positional_arg("expand", argv[i], &plan_path);
      if (e) return e;
    }
  }
  if (!plan_path) return bad_usage("%s needs a plan file", "expand");
  map_dirs_env(&md);
  farm_plan *plan = NULL;
  farm_space sp = {0};
  if (load_plan(plan_path, &md, &plan, &sp) < 0) {
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  printf("%lld jobs\n", (long long)sp.njobs);
  /* Counts by map, generator and algorithm (every instance runs every algorithm
   * configuration, so the algorithm counts are exact shares). */
  for (int32_t m = 0; m < plan->nmaps; m++)
    printf("map %s: %lld\n", map_name(&sp, m), (long long)farm_space_map_jobs(&sp, m));
  for (int32_t s = 0; s < plan->nscens; s++)
    printf("generator %s (scenario %d): %lld\n", plan->scens[s].generator, (int)s + 1,
           (long long)farm_space_scen_jobs(&sp, s));
  for (int32_t a = 0; a < plan->nalgos; a++) {
    int64_t per_combo = sp.algo_combos ? sp.njobs / sp.algo_combos : 0;
    printf("algorithm %s (%s): %lld\n", plan->algos[a].def->name, plan->algos[a].label,
           (long long)(per_combo * plan->algos[a].ncombos));
  }
  if (list) {
    printf("key\tmap\tgenerator\tagents\tinstance\talgorithm\tlabel\tparams\n");
    char params[512], label[256];
    for (int64_t i = 0; i < sp.njobs; i++) {
      farm_job j;
      farm_space_job(&sp, i, &j);
      farm_job_params_json(&sp, &j, params, sizeof params);
      farm_job_label(&sp, &j, label, sizeof label);
      printf("%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n", j.key_hex, map_name(&sp, j.map),
             plan->scens[j.scen].generator, (int)j.agents, (int)j.instance,
             plan->algos[j.algo].def->name, label, params);
    }
  }
  farm_space_free(&sp);
  farm_plan_free(plan);
  free(md.env);
  return 0;
}

/* ---- mapfarm run --------------------------------------------------------------------- */

static int cmd_run(int argc, char **argv) {
  const char *plan_path = NULL, *db = NULL;
  long long threads = 0, si = 1, sn = 1;
  int retry_failed = 0;
  map_dirs md = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "--db") == 0) {
      if (!(db = need_value(argc, argv, &i))) return bad_usage("%s needs a file", a);
    } else if (strcmp(a, "--threads") == 0) {
      v = need_value(argc, argv, &i);
      if (!v || parse_long(v, 1, 4096, &threads) < 0)
        return bad_usage("--threads: expected an integer in [1, 4096], found \"%s\"",
                         v ? v : "");
    } else if (strcmp(a, "--shard") == 0) {
      v = need_value(argc, argv, &i);
      int ok = 0;
      if (v) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", v);
        char *slash = strchr(buf, '/');
        if (slash) {
          *slash = '\0';
          ok = parse_long(buf, 1, 1000000, &si) == 0 &&
               parse_long(slash + 1, 1, 1000000, &sn) == 0 && si <= sn;
        }
      }
      if (!ok)
        return bad_usage("--shard: expected I/N with 1 <= I <= N, found \"%s\"", v ? v : "");
    } else if (strcmp(a, "--maps") == 0) {
      if (!(v = need_value(argc, argv, &i))) return bad_usage("%s needs a directory", a);
      map_dirs_add(&md, v);
    } else if (strcmp(a, "--retry-failed") == 0) {
      retry_failed = 1;
    } else {
      int e = positional_arg("run", a, &plan_path);
      if (e) return e;
    }
  }
  if (!plan_path) return bad_usage("%s needs a plan file", "run");
  if (!db) return bad_usage("%s needs --db FILE", "run");
  map_dirs_env(&md);

  /* The plan and every map are checked before the database is opened, so bad input never
   * touches it. */
  farm_plan *plan = NULL;
  farm_space sp = {0};
  if (load_plan(plan_path, &md, &plan, &sp) < 0) {
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  char err[1024];
  farm_store *st = NULL;
  if (farm_store_open(db, FARM_STORE_CREATE, &st, err, sizeof err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    farm_space_free(&sp);
    farm_plan_free(plan);
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  if (*farm_store_note(st)) fprintf(stderr, "mapfarm: note: %s\n", farm_store_note(st));

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);

  progress pr = {isatty(STDERR_FILENO), 0};
  farm_run_opts ro = {0};
  ro.threads = (int32_t)threads;
  ro.shard_index = (int32_t)si;
  ro.shard_count = (int32_t)sn;
  ro.progress = on_progress;
  ro.progress_ud = &pr;
  ro.stop = &stop_signal;
  ro.retry_failed = retry_failed;
  farm_run_summary sum;
  int rc = farm_run(&sp, st, &ro, &sum, err, sizeof err);
  int status = 0;
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    status = EXIT_FAILED_JOBS;
  } else if (sum.pending == 0) {
    fprintf(stderr, "%s: all %lld jobs are already in %s; nothing to run\n", plan_path,
            (long long)sum.total, db);
  } else {
    fprintf(stderr,
            "%s: %lld jobs run in %.1f s (%.1f jobs/s): %lld ok, %lld limit, %lld error; "
            "%lld were already in %s\n",
            plan_path, (long long)sum.done, sum.seconds,
            sum.seconds > 0 ? (double)sum.done / sum.seconds : 0.0, (long long)sum.ok,
            (long long)sum.limit, (long long)sum.error, (long long)sum.present, db);
    if (sum.error > 0) status = EXIT_FAILED_JOBS;
  }
  if (sum.skipped > 0)
    fprintf(stderr,
            "mapfarm: note: %lld jobs run were not stored: another writer stored them in %s "
            "meanwhile, and their rows were left as they were\n",
            (long long)sum.skipped, db);
  if (sum.interrupted) {
    fprintf(stderr,
            "mapfarm: interrupted by signal %d; %lld of %lld pending jobs are stored. Run the "
            "same command again to finish the rest.\n",
            (int)stop_signal, (long long)sum.done, (long long)sum.pending);
    status = 128 + (int)stop_signal;
  }
  farm_store_close(st);
  farm_space_free(&sp);
  farm_plan_free(plan);
  free(md.env);
  return status;
}

/* ---- mapfarm report ------------------------------------------------------------------ */

/* Consumes argv[*i] (and its value) when it is an option of both report and portfolio. Returns
 * as instance_arg does. */
static int report_arg(int argc, char **argv, int *i, farm_report_opts *ro) {
  const char *a = argv[*i], *v;
  if (strcmp(a, "--format") == 0) {
    v = need_value(argc, argv, i);
    if (v && strcmp(v, "text") == 0) ro->format = FARM_FORMAT_TEXT;
    else if (v && strcmp(v, "md") == 0) ro->format = FARM_FORMAT_MD;
    else if (v && strcmp(v, "csv") == 0) ro->format = FARM_FORMAT_CSV;
    else return 1000 + bad_usage("--format: expected text, md or csv, found \"%s\"", v ? v : "");
  } else if (strcmp(a, "--max-agents") == 0) {
    long long n;
    v = need_value(argc, argv, i);
    if (!v || parse_long(v, 1, 100000000, &n) < 0)
      return 1000 + bad_usage("--max-agents: expected an integer >= 1, found \"%s\"", v ? v : "");
    ro->max_agents = (int32_t)n;
  } else if (strcmp(a, "--where") == 0) {
    if (!(ro->where = need_value(argc, argv, i)))
      return 1000 + bad_usage("%s needs an SQL condition", a);
  } else {
    return 0;
  }
  return 1;
}

static int cmd_report(int argc, char **argv) {
  const char *db = NULL, *name = NULL;
  farm_report_opts ro = {.format = FARM_FORMAT_TEXT};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v;
    int took = report_arg(argc, argv, &i, &ro);
    if (took >= 1000) return took - 1000;
    if (took) continue;
    if (strcmp(a, "--db") == 0) {
      if (!(db = need_value(argc, argv, &i))) return bad_usage("%s needs a file", a);
    } else if (strcmp(a, "--counts") == 0) {
      ro.counts = 1;
    } else if (strcmp(a, "--rows") == 0 || strcmp(a, "--cols") == 0) {
      char derr[512];
      if (!(v = need_value(argc, argv, &i))) return bad_usage("%s needs a dimension", a);
      if (farm_report_check_dim(v, derr, sizeof derr) < 0) return bad_usage("%s", derr);
      if (a[2] == 'r') ro.rows = v;
      else ro.cols = v;
    } else {
      int e = positional_arg("report", a, &name);
      if (e) return e;
    }
  }
  if (!db) return bad_usage("%s needs --db FILE", "report");
  if (!name) return bad_usage("%s needs a report name (completion-rate, completion-time, "
                              "travel-distance, completion-seconds, failed-moves, coherence, "
                              "suboptimality, portfolio, problem-types)",
                              "report");
  char err[1024];
  farm_store *st = NULL;
  if (open_readonly(db, &st, err, sizeof err)) return EXIT_BAD_INPUT;
  int rc = farm_report(st, name, &ro, stdout, err, sizeof err);
  farm_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* ---- mapfarm portfolio --------------------------------------------------------------- */

/* Greedy portfolio formation (thesis Algorithm 2; farm/portfolio.c), printed by report.c. */
static int cmd_portfolio(int argc, char **argv) {
  const char *db = NULL, *v;
  long long size = 0;
  int by = FARM_PF_BY_DISTANCE;
  farm_report_opts ro = {.format = FARM_FORMAT_TEXT};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    int took = report_arg(argc, argv, &i, &ro);
    if (took >= 1000) return took - 1000;
    if (took) continue;
    if (strcmp(a, "--db") == 0) {
      if (!(db = need_value(argc, argv, &i))) return bad_usage("%s needs a file", a);
    } else if (strcmp(a, "--size") == 0) {
      v = need_value(argc, argv, &i);
      if (!v || parse_long(v, 1, INT32_MAX, &size) < 0)
        return bad_usage("--size: expected an integer >= 1, found \"%s\"", v ? v : "");
    } else if (strcmp(a, "--by") == 0) {
      v = need_value(argc, argv, &i);
      if (v && strcmp(v, "distance") == 0) by = FARM_PF_BY_DISTANCE;
      else if (v && strcmp(v, "suboptimality") == 0) by = FARM_PF_BY_SUBOPTIMALITY;
      else return bad_usage("--by: expected distance or suboptimality, found \"%s\"", v ? v : "");
    } else {
      return positional_arg("portfolio", a, NULL);
    }
  }
  if (!db) return bad_usage("%s needs --db FILE", "portfolio");
  if (size == 0) return bad_usage("%s needs --size N (the largest portfolio)", "portfolio");
  char err[1024];
  farm_store *st = NULL;
  if (open_readonly(db, &st, err, sizeof err)) return EXIT_BAD_INPUT;
  int rc = farm_report_greedy_by(st, (int32_t)size, &ro, by, stdout, err, sizeof err);
  farm_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* ---- mapfarm solve ------------------------------------------------------------------- */

typedef struct trace {
  FILE *f;
  const mapf_grid *g;
} trace;

static void write_positions(FILE *f, const mapf_grid *g, const int32_t *pos, int32_t n) {
  for (int32_t a = 0; a < n; a++)
    fprintf(f, "%s(%d,%d)", a ? "," : "", (int)mapf_grid_x(g, pos[a]),
            (int)mapf_grid_y(g, pos[a]));
  fputc('\n', f);
}

static void on_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  trace *tr = ud;
  fprintf(tr->f, "%lld:", (long long)t);
  write_positions(tr->f, tr->g, pos, n);
}

/* A path given on the command line, else the same path under the map directories. */
static const char *find_file(const char *path, const map_dirs *md, char *buf, size_t n) {
  struct stat sb;
  if (stat(path, &sb) == 0 || path[0] == '/') return path;
  for (int32_t i = 0; i < md->n; i++) {
    snprintf(buf, n, "%s/%s", md->dir[i], path);
    if (stat(buf, &sb) == 0) return buf;
  }
  return path;
}

/* Fills pv with def's defaults and then the NAME=VALUE options opts[0..n) (given as `option`,
 * e.g. "--param"). Returns 0, or EXIT_BAD_INPUT after printing why. */
static int parse_param_opts(const mapf_algo_def *def, const char *const *opts, int n,
                            const char *option, mapf_params *pv) {
  mapf_params_default(def, pv);
  for (int k = 0; k < n; k++) {
    char name[64];
    const char *eq = strchr(opts[k], '=');
    if (!eq || eq == opts[k] || (size_t)(eq - opts[k]) >= sizeof name) {
      fprintf(stderr, "mapfarm: error: %s: expected NAME=VALUE, found \"%s\"\n%s", option,
              opts[k], usage);
      return EXIT_BAD_INPUT;
    }
    memcpy(name, opts[k], (size_t)(eq - opts[k]));
    name[eq - opts[k]] = '\0';
    int32_t idx = mapf_param_index(def, name);
    if (idx < 0) {
      const char *names[MAPF_MAX_PARAMS];
      for (int32_t p = 0; p < def->nparams; p++) names[p] = def->params[p].name;
      const char *s = farm_suggest(name, names, def->nparams);
      fprintf(stderr, "mapfarm: error: %s: %s has no parameter \"%s\"%s%s%s\n", option,
              def->name, name, s ? "; did you mean \"" : "", s ? s : "", s ? "\"?" : "");
      return EXIT_BAD_INPUT;
    }
    mapf_diag d = {0};
    if (mapf_param_parse(def, idx, eq + 1, &pv->v[idx], &d) != MAPF_OK) {
      fprintf(stderr, "mapfarm: error: %s: %s\n", option, d.msg);
      return EXIT_BAD_INPUT;
    }
  }
  mapf_diag d = {0};
  if (mapf_params_check(def, pv, &d) != MAPF_OK) {
    fprintf(stderr, "mapfarm: error: %s: %s\n", option, d.msg);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* The instance options that solve and render share: a map, and a scenario file or a
 * generator with its parameters. */
typedef struct instance_args {
  const char *map_path, *scen_path, *generator;
  const char *gparams[64];
  int ngparams;
  long long agents, seed;
  long long problem; /* --problem K: line K of the scenario file alone, or -1 */
} instance_args;

/* Consumes argv[*i] (and its value) when it is an instance option. Returns 1 when consumed, 0
 * when not one, or EXIT_BAD_INPUT + 1000 after printing why. Every option of solve and render
 * takes a value, so an option without one is refused here, whichever it is. */
static int instance_arg(int argc, char **argv, int *i, instance_args *ia, map_dirs *md) {
  const char *a = argv[*i];
  if (*i + 1 >= argc) return a[0] == '-' ? 1000 + bad_usage("%s needs a value", a) : 0;
  const char *v = argv[*i + 1];
  if (strcmp(a, "--map") == 0) ia->map_path = v;
  else if (strcmp(a, "--scen") == 0) ia->scen_path = v;
  else if (strcmp(a, "--generator") == 0) ia->generator = v;
  else if (strcmp(a, "--maps") == 0) map_dirs_add(md, v);
  else if (strcmp(a, "--agents") == 0) {
    if (parse_long(v, 1, 100000000, &ia->agents) < 0)
      return 1000 + bad_usage("--agents: expected an integer >= 1, found \"%s\"", v);
  } else if (strcmp(a, "--seed") == 0) {
    if (parse_long(v, 0, 0x7fffffffffffffffLL, &ia->seed) < 0)
      return 1000 + bad_usage("--seed: expected an integer >= 0, found \"%s\"", v);
  } else if (strcmp(a, "--generator-param") == 0) {
    if (ia->ngparams == 64) return 1000 + bad_usage("%s", "too many --generator-param options");
    ia->gparams[ia->ngparams++] = v;
  } else if (strcmp(a, "--problem") == 0) {
    if (parse_long(v, 0, 100000000, &ia->problem) < 0)
      return 1000 + bad_usage("--problem: expected an integer >= 0, found \"%s\"", v);
  } else {
    return 0;
  }
  (*i)++;
  return 1;
}

/* Checks the instance options of command `cmd`, loads the map into *g and builds the instance
 * into *inst. Returns 0, or EXIT_BAD_INPUT after printing why (nothing to free then). */
static int make_instance(const char *cmd, instance_args *ia, map_dirs *md, mapf_grid **g,
                         mapf_instance **inst) {
  *g = NULL;
  *inst = NULL;
  if (!ia->map_path) return bad_usage("%s needs --map MAP", cmd);
  if (!ia->scen_path && !ia->generator)
    return bad_usage("%s needs --scen FILE or --generator G", cmd);
  if (ia->scen_path && ia->generator)
    return bad_usage("%s takes --scen or --generator, not both", cmd);
  const mapf_scengen_def *gdef = ia->generator ? mapf_scengen_find(ia->generator) : NULL;
  if (ia->generator && !gdef) {
    const char *gens[64];
    int32_t k = 0;
    for (; k < mapf_scengen_count() && k < 64; k++) gens[k] = mapf_scengen_at(k)->name;
    const char *s = farm_suggest(ia->generator, gens, k);
    fprintf(stderr, "mapfarm: error: --generator: unknown generator \"%s\"%s%s%s\n",
            ia->generator, s ? "; did you mean \"" : "", s ? s : "", s ? "\"?" : "");
    return EXIT_BAD_INPUT;
  }
  if (ia->generator && ia->agents < 1) return bad_usage("%s needs --agents N", "--generator");
  if (ia->ngparams > 0 && !gdef) return bad_usage("%s needs --generator G", "--generator-param");
  if (ia->problem >= 0 && !ia->scen_path) return bad_usage("%s needs --scen FILE", "--problem");
  mapf_params gpv;
  if (gdef) {
    int e = parse_param_opts(gdef->view, ia->gparams, ia->ngparams, "--generator-param", &gpv);
    if (e) return e;
  }
  char pathbuf[4096];
  mapf_diag d = {0};
  int rc = mapf_grid_load(find_file(ia->map_path, md, pathbuf, sizeof pathbuf), g, &d);
  if (rc != MAPF_OK) {
    print_diag(&d);
    return EXIT_BAD_INPUT;
  }
  if (ia->scen_path) {
    mapf_scen *sc = NULL;
    const char *spath = find_file(ia->scen_path, md, pathbuf, sizeof pathbuf);
    /* The file alone first, to refuse one for another map as a plan does (by the map name and
     * size its first line gives) before any of its cells is found not to fit this one; then
     * every line against the map. */
    rc = mapf_scen_load(spath, NULL, 0, &sc, &d);
    if (rc == MAPF_OK) rc = mapf_scen_check_map(sc, spath, *g, &d);
    if (rc == MAPF_OK) {
      mapf_scen_free(sc);
      sc = NULL;
      rc = mapf_scen_load(spath, *g, 0, &sc, &d);
    }
    if (rc == MAPF_OK) {
      /* --problem K: line K alone, a single-agent problem (thesis Ch. 4); else the first
       * --agents lines, the MAPF benchmark convention. */
      long long first = ia->problem >= 0 ? ia->problem : 0;
      long long n = ia->problem >= 0 ? 1 : ia->agents ? ia->agents : sc->n;
      if (first + n > sc->n) {
        rc = mapf_diag_set(&d, MAPF_EINVAL, ia->scen_path, 0, 0,
                           "%s %lld: the scenario has only %d lines",
                           ia->problem >= 0 ? "--problem" : "--agents",
                           ia->problem >= 0 ? ia->problem : n, (int)sc->n);
      } else {
        rc = mapf_instance_from_scen(sc, *g, (int32_t)first, (int32_t)n, inst, &d);
        if (rc != MAPF_OK && !d.file[0]) snprintf(d.file, sizeof d.file, "%s", ia->scen_path);
      }
    }
    mapf_scen_free(sc);
  } else {
    rc = gdef->generate(*g, (int32_t)ia->agents, &gpv, (uint64_t)ia->seed, inst, &d);
  }
  if (rc != MAPF_OK) {
    print_diag(&d);
    mapf_grid_free(*g);
    *g = NULL;
    return EXIT_BAD_INPUT;
  }
  return 0;
}

static int cmd_solve(int argc, char **argv) {
  const char *algo_name = NULL, *trace_path = NULL, *export_path = NULL;
  instance_args ia = {.seed = 1, .problem = -1};
  mapf_limits limits = {10000, 0, 0};
  mapf_execution execution = MAPF_EXEC_CHAINS;
  const char *params[64];
  int nparams = 0;
  map_dirs md = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int took = instance_arg(argc, argv, &i, &ia, &md);
    if (took >= 1000) return took - 1000;
    if (took) continue;
    if (strcmp(a, "--algo") == 0) algo_name = argv[++i];
    else if (strcmp(a, "--trace") == 0) trace_path = argv[++i];
    else if (strcmp(a, "--export-scen") == 0) export_path = argv[++i];
    else if (strcmp(a, "--steps") == 0) {
      long long s;
      v = argv[++i];
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &s) < 0)
        return bad_usage("--steps: expected an integer >= 0, found \"%s\"", v);
      limits.steps = s;
    } else if (strcmp(a, "--seconds") == 0) {
      v = argv[++i];
      if (parse_double(v, 0, 1e9, &limits.seconds) < 0)
        return bad_usage("--seconds: expected a number >= 0, found \"%s\"", v);
    } else if (strcmp(a, "--expansions") == 0) {
      long long e;
      v = argv[++i];
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &e) < 0)
        return bad_usage("--expansions: expected an integer >= 0, found \"%s\"", v);
      limits.expansions = e;
    } else if (strcmp(a, "--execution") == 0) {
      v = argv[++i];
      int e = mapf_execution_parse(v);
      if (e < 0) return bad_usage("--execution: expected chains or single-pass, found \"%s\"", v);
      execution = (mapf_execution)e;
    } else if (strcmp(a, "--param") == 0) {
      if (nparams == 64) return bad_usage("%s", "too many --param options");
      params[nparams++] = argv[++i];
    } else {
      return bad_usage("unknown option %s for solve", a);
    }
  }
  if (!algo_name && limits.steps > 0) return bad_usage("%s needs --algo NAME", "solve");
  map_dirs_env(&md);

  const mapf_algo_def *def = NULL;
  mapf_params pv;
  if (algo_name) {
    def = mapf_algo_find(algo_name);
    if (!def) {
      const char *names[32];
      int32_t k = 0;
      for (; k < mapf_algo_count() && k < 32; k++) names[k] = mapf_algo_at(k)->name;
      const char *s = farm_suggest(algo_name, names, k);
      fprintf(stderr, "mapfarm: error: --algo: unknown algorithm \"%s\"%s%s%s\n", algo_name,
              s ? "; did you mean \"" : "", s ? s : "", s ? "\"?" : "");
      free(md.env);
      return EXIT_BAD_INPUT;
    }
    int e = parse_param_opts(def, params, nparams, "--param", &pv);
    if (e) {
      free(md.env);
      return e;
    }
  }

  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  int e = make_instance("solve", &ia, &md, &g, &inst);
  if (e) {
    free(md.env);
    return e;
  }
  const char *map_path = ia.map_path;
  /* As `run` does: a single agent's optimal distance, for its suboptimality. */
  if (inst->n == 1 && mapf_astar_fill_optimal(g, inst) != MAPF_OK) {
    fprintf(stderr, "mapfarm: error: out of memory\n");
    mapf_instance_free(inst);
    mapf_grid_free(g);
    free(md.env);
    return EXIT_FAILED_JOBS;
  }

  int status = 0;
  if (export_path) {
    /* Optimal single-agent lengths, as MovingAI .scen files carry them. */
    double *opt = calloc((size_t)inst->n, sizeof *opt);
    mapf_astar *as = mapf_astar_new();
    FILE *f = fopen(export_path, "w");
    if (!opt || !as || !f) {
      fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", export_path, strerror(errno));
      status = EXIT_BAD_INPUT;
    } else {
      for (int32_t a = 0; a < inst->n; a++) {
        mapf_astar_result r;
        mapf_astar_run(as, g, inst->start[a], inst->goal[a], &r, NULL, NULL);
        opt[a] = r.cost;
      }
      const char *base = strrchr(map_path, '/');
      if (mapf_instance_write_scen(inst, g, base ? base + 1 : map_path, opt, f) != MAPF_OK) {
        fprintf(stderr, "mapfarm: error: %s: cannot write\n", export_path);
        status = EXIT_BAD_INPUT;
      } else if (inst->loops > 0) {
        /* The format has no field for it: say so rather than lose it silently. */
        fprintf(stderr,
                "mapfarm: note: %s: a .scen file holds start and goal only; this patrol "
                "instance's loops=%d is not in it (the same instance again: --generator patrol "
                "with the same parameters and --seed)\n",
                export_path, (int)inst->loops);
      }
    }
    if (f && fclose(f) != 0 && status == 0) {
      fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", export_path, strerror(errno));
      status = EXIT_BAD_INPUT;
    }
    mapf_astar_free(as);
    free(opt);
  }

  if (status == 0 && limits.steps > 0) {
    trace tr = {NULL, g};
    if (trace_path) {
      tr.f = fopen(trace_path, "w");
      if (!tr.f) {
        fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", trace_path, strerror(errno));
        mapf_instance_free(inst);
        mapf_grid_free(g);
        free(md.env);
        return EXIT_BAD_INPUT;
      }
      /* The header mapf-visualizer reads, then one line per time step. */
      const char *base = strrchr(map_path, '/');
      fprintf(tr.f, "agents=%d\nmap_file=%s\nsolver=%s\n", (int)inst->n,
              base ? base + 1 : map_path, def->name);
      fprintf(tr.f, "starts=");
      write_positions(tr.f, g, inst->start, inst->n);
      fprintf(tr.f, "goals=");
      write_positions(tr.f, g, inst->goal, inst->n);
      /* Patrol (sim.h): agents go between start and goal `loops` times, so a trace that does
       * not end on the goals is still complete. Readers that do not know the key skip it. */
      if (inst->loops > 0) fprintf(tr.f, "loops=%d\n", (int)inst->loops);
      fprintf(tr.f, "solution=\n");
    }
    mapf_run_config cfg = {0};
    cfg.grid = g;
    cfg.inst = inst;
    cfg.algo = def;
    cfg.params = pv;
    cfg.limits = limits;
    cfg.execution = execution;
    cfg.seed = mapf_mix64((uint64_t)ia.seed);
    cfg.on_step = tr.f ? on_step : NULL;
    cfg.ud = &tr;
    mapf_workspace *ws = mapf_workspace_new();
    mapf_result res;
    mapf_diag d = {0};
    int rc = ws ? mapf_run(ws, &cfg, &res, &d) : MAPF_ENOMEM;
    mapf_workspace_free(ws);
    if (tr.f && fclose(tr.f) != 0) {
      fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", trace_path, strerror(errno));
      status = EXIT_BAD_INPUT;
    }
    if (rc != MAPF_OK) {
      fprintf(stderr, "mapfarm: error: %s\n", ws ? res.message : "out of memory");
      status = EXIT_FAILED_JOBS;
    } else {
      char pj[512];
      mapf_params_json(def, &pv, pj, sizeof pj);
      farm_record rec = {.map = g->name, .agents = inst->n, .algorithm = def->name,
                         .params = pj, .res = &res};
      farm_columns_print(stdout, &rec);
    }
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
  free(md.env);
  return status;
}

/* `render`: an instance as the selector's input image (farm/image.h). */
static int cmd_render(int argc, char **argv) {
  instance_args ia = {.seed = 1, .problem = -1};
  const char *out_path = NULL;
  long long size = FARM_IMAGE_SIDE;
  int native = 0;
  map_dirs md = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    int took = instance_arg(argc, argv, &i, &ia, &md);
    if (took >= 1000) return took - 1000;
    if (took) continue;
    const char *v = argv[++i];
    if (strcmp(a, "--out") == 0) {
      out_path = v;
    } else if (strcmp(a, "--size") == 0) {
      if (strcmp(v, "native") == 0) native = 1;
      else if (parse_long(v, 1, FARM_IMAGE_MAX_SIDE, &size) < 0)
        return bad_usage("--size: expected native or an integer in [1, 65536], found \"%s\"", v);
    } else {
      return bad_usage("unknown option %s for render", a);
    }
  }
  if (!out_path) return bad_usage("%s needs --out FILE", "render");
  map_dirs_env(&md);
  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  int e = make_instance("render", &ia, &md, &g, &inst);
  free(md.env);
  if (e) return e;
  mapf_diag d = {0};
  farm_image *im = NULL;
  int rc;
  if (native) {
    rc = farm_image_render(g, inst, &im, &d);
  } else if (inst->n == 1) {
    /* A single-agent problem: 3x3 marks and the start-goal line (thesis 4.4). */
    rc = farm_image_render_problem(g, inst->start[0], inst->goal[0], (int32_t)size,
                                   (int32_t)size, &im, &d);
  } else {
    farm_image *full = NULL;
    rc = farm_image_render(g, inst, &full, &d);
    if (rc == MAPF_OK) rc = farm_image_resize(full, (int32_t)size, (int32_t)size, &im, &d);
    farm_image_free(full);
  }
  if (rc == MAPF_OK) rc = farm_image_write_png(im, out_path, &d);
  if (rc != MAPF_OK) print_diag(&d);
  farm_image_free(im);
  mapf_instance_free(inst);
  mapf_grid_free(g);
  return rc == MAPF_OK ? 0 : EXIT_BAD_INPUT;
}

/* `dataset`: images, labels.csv and a train/test split for algorithm selection (dataset.h). */
static int cmd_dataset(int argc, char **argv) {
  const char *db = NULL, *out = NULL;
  long long size = FARM_IMAGE_SIDE, seed = 1;
  double train = 0.7;
  map_dirs md = {0};
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (i + 1 >= argc) return bad_usage("%s needs a value", a);
    const char *v = argv[++i];
    if (strcmp(a, "--db") == 0) db = v;
    else if (strcmp(a, "--out") == 0) out = v;
    else if (strcmp(a, "--maps") == 0) map_dirs_add(&md, v);
    else if (strcmp(a, "--size") == 0) {
      if (parse_long(v, 1, FARM_IMAGE_MAX_SIDE, &size) < 0)
        return bad_usage("--size: expected an integer in [1, 65536], found \"%s\"", v);
    } else if (strcmp(a, "--seed") == 0) {
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &seed) < 0)
        return bad_usage("--seed: expected an integer >= 0, found \"%s\"", v);
    } else if (strcmp(a, "--train") == 0) {
      if (parse_double(v, 0, 1, &train) < 0)
        return bad_usage("--train: expected a fraction in [0, 1], found \"%s\"", v);
    } else {
      return bad_usage("unknown option %s for dataset", a);
    }
  }
  if (!db) return bad_usage("%s needs --db FILE", "dataset");
  if (!out) return bad_usage("%s needs --out DIR", "dataset");
  farm_store *st = NULL;
  char err[1600];
  if (open_readonly(db, &st, err, sizeof err)) return EXIT_BAD_INPUT;
  map_dirs_env(&md);
  farm_dataset_opts o = {out, (int32_t)size, train, (uint64_t)seed, {md.dir, md.n}};
  farm_dataset_result res;
  int rc = farm_dataset_write(st, &o, &res, err, sizeof err);
  farm_store_close(st);
  free(md.env);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    return EXIT_FAILED_JOBS;
  }
  printf("%s: %lld instances (%lld train, %lld test), %d labels\n", out,
         (long long)res.instances, (long long)res.train, (long long)res.test, (int)res.labels);
  return 0;
}

static int cmd_algorithms(void) {
  for (int32_t i = 0; i < mapf_algo_count(); i++) {
    const mapf_algo_def *def = mapf_algo_at(i);
    printf("%s (%s): %s\n", def->name, def->label, def->doc);
    for (int32_t p = 0; p < def->nparams; p++) {
      char dv[64];
      mapf_param_format(def, p, def->params[p].def, dv, sizeof dv);
      printf("  %-12s default %-8s %s\n", def->params[p].name, dv, def->params[p].doc);
    }
  }
  return 0;
}

/* ---- mapfarm merge ------------------------------------------------------------------- */

static int cmd_merge(int argc, char **argv) {
  const char *out = NULL;
  const char **ins = calloc((size_t)argc, sizeof *ins);
  int32_t nin = 0;
  int options = 1;
  if (!ins) {
    fprintf(stderr, "mapfarm: error: out of memory\n");
    return EXIT_FAILED_JOBS;
  }
  for (int i = 2; i < argc; i++) {
    if (options && strcmp(argv[i], "--") == 0) {
      options = 0;
    } else if (options && argv[i][0] == '-' && argv[i][1] != '\0') {
      free(ins);
      return bad_usage("unknown option %s for merge", argv[i]);
    } else if (!out) {
      out = argv[i];
    } else {
      ins[nin++] = argv[i];
    }
  }
  if (!out || nin == 0) {
    free(ins);
    return bad_usage("%s needs an output database and at least one input: mapfarm merge "
                     "OUT.db IN.db...", "merge");
  }
  farm_merge_result res;
  char err[1024];
  int rc = farm_merge(out, ins, nin, &res, err, sizeof err);
  free(ins);
  if (res.note[0]) fprintf(stderr, "mapfarm: note: %s\n", res.note);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    fprintf(stderr, "mapfarm: nothing was merged; %s %s\n", out,
            res.created ? "was not created" : "was not changed");
    farm_merge_result_free(&res);
    return rc == FARM_MERGE_BAD_INPUT ? EXIT_BAD_INPUT : EXIT_FAILED_JOBS;
  }
  int64_t added = 0, agent_rows = 0, present = 0, runs_added = 0, runs_updated = 0;
  for (int32_t i = 0; i < res.ninputs; i++) {
    const farm_merge_input *fi = &res.inputs[i];
    printf("%s: %lld results added (%lld agent rows), %lld already present, %lld conflicts; "
           "%lld run%s added",
           fi->path, (long long)fi->added, (long long)fi->agent_rows, (long long)fi->present,
           (long long)fi->conflicts, (long long)fi->runs_added, fi->runs_added == 1 ? "" : "s");
    if (fi->runs_updated > 0)
      printf(", %lld ended since the last merge", (long long)fi->runs_updated);
    printf("\n");
    added += fi->added;
    agent_rows += fi->agent_rows;
    present += fi->present;
    runs_added += fi->runs_added;
    runs_updated += fi->runs_updated;
  }
  printf("%s%s: %lld results added (%lld agent rows), %lld already present, %lld conflicts; "
         "%lld run%s added",
         out, res.created ? " (created)" : "", (long long)added, (long long)agent_rows,
         (long long)present, (long long)res.conflicts, (long long)runs_added,
         runs_added == 1 ? "" : "s");
  if (runs_updated > 0) printf(", %lld ended since the last merge", (long long)runs_updated);
  printf(" from %d database%s\n", (int)res.ninputs, res.ninputs == 1 ? "" : "s");
  fflush(stdout);
  for (int32_t i = 0; i < res.ninputs; i++)
    if (res.inputs[i].runs_running > 0)
      fprintf(stderr,
              "mapfarm: note: %s: %lld run%s recorded no end (still running, or stopped "
              "without a clean exit); merge again when %s finished, to copy the rest\n",
              res.inputs[i].path, (long long)res.inputs[i].runs_running,
              res.inputs[i].runs_running == 1 ? "" : "s",
              res.inputs[i].runs_running == 1 ? "it has" : "they have");
  if (res.conflicts > 0) {
    fprintf(stderr,
            "mapfarm: error: %lld conflict%s: job keys that %s and an input hold with different "
            "results; %s kept its rows\n",
            (long long)res.conflicts, res.conflicts == 1 ? "" : "s", out, out);
    for (int32_t k = 0; k < res.nshown; k++) {
      const farm_merge_conflict *c = &res.shown[k];
      fprintf(stderr, "  job %s: %s: %s has %s, %s has %s\n", c->job_key, c->column, out,
              c->out_value, res.inputs[c->input].path, c->in_value);
    }
    if (res.conflicts > res.nshown)
      fprintf(stderr, "  ... and %lld more\n", (long long)(res.conflicts - res.nshown));
  }
  farm_merge_result_free(&res);
  return rc == FARM_MERGE_CONFLICTS ? EXIT_FAILED_JOBS : 0;
}

/* ---- mapfarm status and runs --------------------------------------------------------- */

/* Parses `--db FILE` (the only option of status and runs) and opens FILE read-only. Returns 0
 * and *st, or an exit status. */
static int open_db_arg(int argc, char **argv, const char *cmd, farm_store **st) {
  const char *db = NULL;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--db") == 0) {
      if (!(db = need_value(argc, argv, &i))) return bad_usage("%s needs a file", "--db");
    } else {
      return positional_arg(cmd, argv[i], NULL);
    }
  }
  if (!db) return bad_usage("%s needs --db FILE", cmd);
  char err[1024];
  return open_readonly(db, st, err, sizeof err);
}

/* A duration for people: "42 s", "3m05s", "2h07m", "3d04h"; "-" when unknown. */
static void format_duration(double s, char *buf, size_t n) {
  if (!(s >= 0) || s > 1e12) {
    snprintf(buf, n, "-");
    return;
  }
  long long t = llround(s);
  if (t < 60)
    snprintf(buf, n, "%lld s", t);
  else if (t < 3600)
    snprintf(buf, n, "%lldm%02llds", t / 60, t % 60);
  else if (t < 86400)
    snprintf(buf, n, "%lldh%02lldm", t / 3600, t % 3600 / 60);
  else
    snprintf(buf, n, "%lldd%02lldh", t / 86400, t % 86400 / 3600);
}

static void format_rate(double r, char *buf, size_t n) {
  if (!(r >= 0))
    snprintf(buf, n, "- jobs/s");
  else
    snprintf(buf, n, r < 0.1 ? "%.3f jobs/s" : "%.1f jobs/s", r);
}

#define RUNNING_TEXT "running (or stopped without a clean exit)"

/* One run of `mapfarm status`: "  [last ]run 3: done, shard 1/1 on HOST, ...". */
static void print_status_run(const char *prefix, const farm_status_run *r) {
  char took[32], rate[32], age[32];
  format_duration(r->seconds, took, sizeof took);
  format_rate(r->rate, rate, sizeof rate);
  int running = strcmp(r->status, "running") == 0;
  printf("  %srun %lld: %s, shard %s on %s, started %s", prefix, (long long)r->run_id,
         running ? RUNNING_TEXT : r->status, r->shard[0] ? r->shard : "-",
         r->host[0] ? r->host : "-", r->started_at);
  if (r->ended_at[0]) printf(", ended %s", r->ended_at);
  printf(": %lld jobs in %s (%s)", (long long)r->rows, took, rate);
  if (running) {
    format_duration(r->last_row_age, age, sizeof age);
    if (isnan(r->last_row_age))
      printf(", no row written yet");
    else
      printf(", last row %s ago", age);
  }
  printf("\n");
}

static int cmd_status(int argc, char **argv) {
  farm_store *st = NULL;
  int rc = open_db_arg(argc, argv, "status", &st);
  if (rc != 0) return rc;
  farm_status s;
  char err[1024];
  if (farm_status_read(st, &s, err, sizeof err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    farm_store_close(st);
    return EXIT_FAILED_JOBS;
  }
  const char *db = sqlite3_db_filename(farm_store_db(st), "main");
  printf("%s: %lld results, read at %s\n", db && *db ? db : "database", (long long)s.results,
         s.now);
  if (s.nplans == 0) printf("no runs recorded\n");
  for (int32_t i = 0; i < s.nplans; i++) {
    const farm_status_plan *p = &s.plans[i];
    printf("plan %s (plan hash %.16s)\n", p->plan_name[0] ? p->plan_name : "(unnamed)",
           p->plan_hash[0] ? p->plan_hash : "-");
    if (p->total >= 0) {
      printf("  jobs: %lld of %lld done (%.1f%%), %lld failed [%lld ok, %lld limit, %lld error]",
             (long long)p->done, (long long)p->total,
             p->total > 0 ? 100.0 * (double)p->done / (double)p->total : 100.0,
             (long long)p->error, (long long)p->ok, (long long)p->limit, (long long)p->error);
      if (p->shards_seen < p->shard_count)
        printf("; only %d of %d shards have run into this file, and the total counts those",
               (int)p->shards_seen, (int)p->shard_count);
    } else {
      printf("  jobs: %lld done, total unknown, %lld failed [%lld ok, %lld limit, %lld error]",
             (long long)p->done, (long long)p->error, (long long)p->ok, (long long)p->limit,
             (long long)p->error);
    }
    printf("\n  runs:");
    const char *sep = " ";
    struct {
      int64_t n;
      const char *what;
    } by[] = {{p->finished, "done"},
              {p->interrupted, "interrupted"},
              {p->failed, "failed"},
              {p->nactive, RUNNING_TEXT},
              {p->running - p->nactive,
               "stopped without a clean exit (a later run of its shard started)"}};
    for (size_t k = 0; k < sizeof by / sizeof by[0]; k++) {
      if (by[k].n <= 0) continue;
      printf("%s%lld %s", sep, (long long)by[k].n, by[k].what);
      sep = ", ";
    }
    printf("\n");
    if (p->nactive > 0) {
      for (int32_t k = 0; k < p->nactive; k++) print_status_run("", &p->active[k]);
      char rate[32], eta[32];
      format_rate(p->rate, rate, sizeof rate);
      format_duration(p->eta, eta, sizeof eta);
      printf("  rate: %s; ETA %s\n", rate, isnan(p->eta) ? "unknown" : eta);
    } else {
      print_status_run("last ", &p->last);
    }
  }
  if (s.unowned > 0)
    printf("%lld results belong to no run recorded in this file\n", (long long)s.unowned);
  farm_status_free(&s);
  farm_store_close(st);
  return 0;
}

static int cmd_runs(int argc, char **argv) {
  farm_store *st = NULL;
  int rc = open_db_arg(argc, argv, "runs", &st);
  if (rc != 0) return rc;
  farm_run_row *rows = NULL;
  int32_t n = 0;
  char err[1024];
  if (farm_runs_list(st, &rows, &n, err, sizeof err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err);
    farm_store_close(st);
    return EXIT_FAILED_JOBS;
  }
  farm_store_close(st);
  if (n == 0) {
    printf("no runs recorded\n");
    return 0;
  }
  /* A table: one line per run, columns padded to their widest cell. */
  enum { NCOL = 13 };
  static const char *const head[NCOL] = {"run",   "plan",  "hash",    "version", "compiler",
                                         "host",  "threads", "shard", "started", "ended",
                                         "status", "ok/limit/error", "merged from"};
  int merged = 0, counted = 0;
  for (int32_t i = 0; i < n; i++) {
    merged |= rows[i].merged_from[0] != '\0';
    counted |= rows[i].counted;
  }
  int ncol = merged ? NCOL : NCOL - 1;
  char(*cells)[NCOL][96] = calloc((size_t)n, sizeof *cells);
  if (!cells) {
    free(rows);
    fprintf(stderr, "mapfarm: error: out of memory\n");
    return EXIT_FAILED_JOBS;
  }
  size_t width[NCOL];
  for (int c = 0; c < NCOL; c++) width[c] = strlen(head[c]);
  for (int32_t i = 0; i < n; i++) {
    const farm_run_row *r = &rows[i];
    char(*row)[96] = cells[i];
    snprintf(row[0], 96, "%lld", (long long)r->run_id);
    snprintf(row[1], 96, "%.95s", r->plan_name);
    snprintf(row[2], 96, "%.8s", r->plan_hash);
    snprintf(row[3], 96, "%.95s", r->version);
    snprintf(row[4], 96, "%.95s", r->compiler);
    snprintf(row[5], 96, "%.95s", r->host);
    if (r->threads >= 0)
      snprintf(row[6], 96, "%lld", (long long)r->threads);
    else
      snprintf(row[6], 96, "-");
    snprintf(row[7], 96, "%s", r->shard[0] ? r->shard : "-");
    snprintf(row[8], 96, "%s", r->started_at);
    snprintf(row[9], 96, "%s", r->ended_at[0] ? r->ended_at : "-");
    snprintf(row[10], 96, "%s", r->status);
    snprintf(row[11], 96, "%lld/%lld/%lld%s", (long long)r->n_ok, (long long)r->n_limit,
             (long long)r->n_error, r->counted ? "*" : "");
    /* The end of a long path says more than its start. */
    size_t len = strlen(r->merged_from);
    if (len > 95)
      snprintf(row[12], 96, "...%.92s", r->merged_from + len - 92);
    else
      snprintf(row[12], 96, "%.95s", r->merged_from);
    for (int c = 0; c < ncol; c++)
      if (strlen(row[c]) > width[c]) width[c] = strlen(row[c]);
  }
  for (int c = 0; c < ncol; c++)
    printf("%-*s%s", c + 1 < ncol ? (int)width[c] : 0, head[c], c + 1 < ncol ? "  " : "\n");
  for (int32_t i = 0; i < n; i++)
    for (int c = 0; c < ncol; c++)
      printf("%-*s%s", c + 1 < ncol ? (int)width[c] : 0, cells[i][c],
             c + 1 < ncol ? "  " : "\n");
  if (counted)
    printf("* no recorded end: running, or stopped without a clean exit; these are the rows "
           "it has stored so far\n");
  free(cells);
  free(rows);
  return 0;
}

/* ---- mapfarm bench ------------------------------------------------------------------ */

/* `bench astar`: every query of a scenario file, search time only. `bench sim`: agent-steps per
 * second of every multi-agent algorithm of the registry (or --algo) on random instances, one
 * run per agent count, in the order given (peak RSS is the process's, so list counts
 * ascending). Figures come from farm/bench.c; exit status 1 when a cost is wrong. */
static int cmd_bench(int argc, char **argv) {
  const char *what = argc > 2 ? argv[2] : NULL;
  int astar = what && strcmp(what, "astar") == 0, sim = what && strcmp(what, "sim") == 0;
  if (!astar && !sim)
    return bad_usage("bench: expected astar or sim, found \"%s\"", what ? what : "");
  const char *map_path = NULL, *scen_path = NULL, *algo_name = NULL;
  const char *agents_arg = "100,500,1000,2000";
  long long steps = 1000, seed = 1;
  map_dirs md = {0};
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i], *v = need_value(argc, argv, &i);
    if (!v) return bad_usage("%s needs a value", a);
    if (strcmp(a, "--map") == 0) map_path = v;
    else if (strcmp(a, "--maps") == 0) map_dirs_add(&md, v);
    else if (astar && strcmp(a, "--scen") == 0) scen_path = v;
    else if (sim && strcmp(a, "--agents") == 0) agents_arg = v;
    else if (sim && strcmp(a, "--algo") == 0) algo_name = v;
    else if (sim && strcmp(a, "--steps") == 0) {
      if (parse_long(v, 1, 0x7fffffffffffffffLL, &steps) < 0)
        return bad_usage("--steps: expected an integer >= 1, found \"%s\"", v);
    } else if (sim && strcmp(a, "--seed") == 0) {
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &seed) < 0)
        return bad_usage("--seed: expected an integer >= 0, found \"%s\"", v);
    } else {
      return bad_usage("unknown option %s for bench", a);
    }
  }
  if (!map_path) return bad_usage("bench %s needs --map MAP", what);
  if (astar && !scen_path) return bad_usage("%s needs --scen FILE", "bench astar");
  long long counts[64];
  int ncounts = 0;
  if (sim) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", agents_arg);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
      if (ncounts == 64 || parse_long(tok, 1, 100000000, &counts[ncounts]) < 0)
        return bad_usage("--agents: expected integers >= 1 separated by commas, found \"%s\"",
                         agents_arg);
      ncounts++;
    }
    if (ncounts == 0)
      return bad_usage("--agents: expected integers >= 1 separated by commas, found \"%s\"",
                       agents_arg);
  }
  const mapf_algo_def *only = NULL;
  if (algo_name && !(only = mapf_algo_find(algo_name))) {
    fprintf(stderr, "mapfarm: error: --algo: unknown algorithm \"%s\"\n", algo_name);
    return EXIT_BAD_INPUT;
  }
  map_dirs_env(&md);
  char pathbuf[4096];
  mapf_diag d = {0};
  mapf_grid *g = NULL;
  if (mapf_grid_load(find_file(map_path, &md, pathbuf, sizeof pathbuf), &g, &d) != MAPF_OK) {
    print_diag(&d);
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  int status = 0;
  if (astar) {
    mapf_scen *sc = NULL;
    if (mapf_scen_load(find_file(scen_path, &md, pathbuf, sizeof pathbuf), g, 0, &sc, &d) !=
        MAPF_OK) {
      print_diag(&d);
      status = EXIT_BAD_INPUT;
    } else {
      farm_bench_astar r;
      int rc = farm_bench_astar_run(g, sc, &r);
      if (rc != MAPF_OK) {
        fprintf(stderr, "mapfarm: error: bench astar: %s\n", mapf_strerror(rc));
        status = EXIT_FAILED_JOBS;
      } else {
        char tol[32] = "last-digit"; /* the tolerance of the cost check (bench.h) */
        if (r.relative > 0) snprintf(tol, sizeof tol, "relative-%g", r.relative);
        printf("queries=%lld expansions=%lld ms=%.1f ns_per_expansion=%.1f mismatches=%lld "
               "tolerance=%s\n",
               (long long)r.queries, (long long)r.expansions, r.seconds * 1e3,
               r.expansions ? r.seconds * 1e9 / (double)r.expansions : 0.0,
               (long long)r.mismatches, tol);
        if (r.mismatches > 0) status = EXIT_FAILED_JOBS;
      }
    }
    mapf_scen_free(sc);
  } else {
    for (int32_t k = 0; k < mapf_algo_count() && status == 0; k++) {
      const mapf_algo_def *def = mapf_algo_at(k);
      if (only && def != only) continue;
      for (int c = 0; c < ncounts && status == 0; c++) {
        farm_bench_sim_opts o = {def, (int32_t)counts[c], steps, (uint64_t)seed};
        farm_bench_sim r;
        if (farm_bench_sim_run(g, &o, &r, &d) != MAPF_OK) {
          print_diag(&d);
          status = EXIT_FAILED_JOBS;
          break;
        }
        double ns = r.agent_steps ? r.seconds * 1e9 / (double)r.agent_steps : 0.0;
        printf("algo=%s map=%s agents=%d steps=%lld agent_steps=%lld ms=%.1f "
               "ns_per_agent_step=%.1f agent_steps_per_s=%.0f expansions=%lld completed=%d "
               "peak_rss_mib=%.1f\n",
               def->name, g->name, (int)counts[c], (long long)r.steps, (long long)r.agent_steps,
               r.seconds * 1e3, ns, ns > 0 ? 1e9 / ns : 0.0, (long long)r.expansions,
               (int)r.completed, (double)r.peak_rss_kib / 1024.0);
        fflush(stdout);
      }
    }
  }
  mapf_grid_free(g);
  free(md.env);
  return status;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs(usage, stderr);
    return EXIT_BAD_INPUT;
  }
  const char *cmd = argv[1];
  /* `mapfarm CMD --help` anywhere on the line: the usage, exit 0. */
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
  if (strcmp(cmd, "run") == 0) return cmd_run(argc, argv);
  if (strcmp(cmd, "expand") == 0) return cmd_expand(argc, argv);
  if (strcmp(cmd, "solve") == 0) return cmd_solve(argc, argv);
  if (strcmp(cmd, "render") == 0) return cmd_render(argc, argv);
  if (strcmp(cmd, "dataset") == 0) return cmd_dataset(argc, argv);
  if (strcmp(cmd, "report") == 0) return cmd_report(argc, argv);
  if (strcmp(cmd, "portfolio") == 0) return cmd_portfolio(argc, argv);
  if (strcmp(cmd, "algorithms") == 0) return cmd_algorithms();
  if (strcmp(cmd, "merge") == 0) return cmd_merge(argc, argv);
  if (strcmp(cmd, "status") == 0) return cmd_status(argc, argv);
  if (strcmp(cmd, "runs") == 0) return cmd_runs(argc, argv);
  if (strcmp(cmd, "bench") == 0) return cmd_bench(argc, argv);
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("mapfarm %s (%s)\n", MAPFARM_VERSION, MAPFARM_GIT);
    return 0;
  }
  if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
    fputs(usage, stdout);
    return 0;
  }
  static const char *const cmds[] = {"run",    "expand", "solve", "report", "algorithms",
                                     "merge",  "status", "runs",  "bench",  "portfolio",
                                     "render", "dataset", NULL};
  const char *s = farm_suggest(cmd, cmds, -1);
  fprintf(stderr, "mapfarm: error: unknown command \"%s\"%s%s%s\n%s", cmd,
          s ? "; did you mean \"" : "", s ? s : "", s ? "\"?" : "", usage);
  return EXIT_BAD_INPUT;
}
