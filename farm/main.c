/* main.c: the `mapfarm` command-line tool. The only file that prints to the user or exits.
 *
 * Exit status: 0 success, 1 a run with failed jobs (or a database error), 2 bad input,
 * 130 / 143 a run stopped by SIGINT / SIGTERM (finished jobs are kept; rerun to resume). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "astar.h"
#include "bench.h"
#include "catalog.h"
#include "cli.h"
#include "columns.h"
#include "mapfarm_version.h"
#include "dataset.h"
#include "events.h"
#include "expand.h"
#include "external.h"
#include "html.h"
#include "inst_features.h"
#include "image.h"
#include "mapgen.h"
#include "merge.h"
#include "plan.h"
#include "portfolio.h"
#include "pool.h"
#include "replay.h"
#include "report.h"
#include "robotrunners.h"
#include "scengen.h"
#include "select.h"
#include "sim.h"
#include "status.h"
#include "store.h"
#include "suggest.h"

#define EXIT_FAILED_JOBS 1
#define EXIT_BAD_INPUT 2
#define MAX_MAP_DIRS 16

/* ---- the command line, declared once ---------------------------------------------------
 *
 * One row per command: its synopsis, its line in the overview and its options. Usage, help,
 * the parse and "did you mean" are made from these rows (farm/cli.h). */

enum {
  O_DB = 1, O_THREADS, O_SHARD, O_MAPS, O_RETRY_FAILED, O_LIST, O_MAP, O_SCEN, O_AGENTS,
  O_PROBLEM, O_GENERATOR, O_GENERATOR_PARAM, O_SEED, O_ALGO, O_PARAM, O_STEPS, O_SECONDS,
  O_EXPANSIONS, O_WORK, O_EXECUTION, O_TRACE, O_HTML, O_EXPORT_SCEN, O_FORMAT, O_MAX_AGENTS,
  O_ROWS, O_COLS, O_WHERE, O_COUNTS, O_SIZE, O_BY, O_OUT, O_TRAIN, O_MARKDOWN, O_INSTANCES,
  O_TRACES, O_TRACE_WHERE, O_ALGO_SEED, O_DISCARD, O_COMMIT, O_CONNECTIVITY,
  /* features and select (farm/inst_features.h, farm/select.h) */
  O_MODEL, O_OBJECTIVE, O_PROTOCOL, O_FOLDS, O_REGRET_CSV,
  /* events and lifelong goals (docs/events.md) */
  O_RETASK, O_DOORS, O_EVENTS, O_LIFELONG,
  /* solve --robot-runners (core/robotrunners.h) */
  O_ROBOT_RUNNERS
};

#define OPT_MAPS                                                                             \
  {O_MAPS, "maps", "DIR",                                                                    \
   "look up relative map and scenario paths under DIR too (repeatable; MAPFARM_MAPS adds "   \
   "directories, colon-separated)"}
#define OPT_DB_READ {O_DB, "db", "FILE", "the results database (read only)"}
#define OPT_CONNECTIVITY                                                                     \
  {O_CONNECTIVITY, "connectivity", "4|8",                                                    \
   "the moves: 8 (default: cardinal and diagonal, no corner cutting) or 4 (cardinal only)"}
/* The instance of solve and render: a map, and a scenario file or a generator. */
#define OPTS_INSTANCE                                                                        \
  {O_MAP, "map", "MAP", "the map (.map file)"},                                              \
  {O_SCEN, "scen", "FILE", "a scenario file (.scen) for the map"},                           \
  {O_AGENTS, "agents", "N", "agents: the first N lines of the scenario, or N generated"},    \
  {O_PROBLEM, "problem", "K", "line K of the scenario alone (0-based), a one-agent problem"}, \
  {O_GENERATOR, "generator", "G", "generate the instance (mapfarm generators lists them)"},  \
  {O_GENERATOR_PARAM, "generator-param", "NAME=VALUE",                                     \
   "a parameter of the generator (repeatable)"},                                             \
  {O_SEED, "seed", "S", "the generator's seed (default " STR(CLI_SEED) ")"}, OPT_MAPS
/* The table options that report and portfolio share. */
#define OPTS_TABLE                                                                           \
  {O_FORMAT, "format", "text|md|csv|html", "output format (default text; html: report)"},      \
  {O_MAX_AGENTS, "max-agents", "N", "only instances with at most N agents"},                 \
  {O_WHERE, "where", "SQL", "only jobs that meet an SQL condition on the results columns"}

/* Defaults that option help states: each is written once, here. */
#define STR_(x) #x
#define STR(x) STR_(x)
#define SOLVE_STEPS 10000
#define RR_STEPS 5000 /* the Robot Runners start kit's default simulationTime */
#define BENCH_AGENTS "100,500,1000,2000"
#define BENCH_STEPS 1000
#define DATASET_TRAIN 0.7
#define CLI_SEED 1

static const farm_cli_opt run_opts[] = {
    {O_DB, "db", "FILE", "the results database: created when missing, resumed when not"},
    {O_THREADS, "threads", "N", "worker threads (default: OpenMP's, one per core)"},
    {O_SHARD, "shard", "I/N", "run only the I-th of N equal shares of the jobs"},
    OPT_MAPS,
    {O_RETRY_FAILED, "retry-failed", NULL, "run the jobs stored with status error again"},
    {O_TRACES, "traces", "DIR", "keep DIR/KEY.trace.gz of the plan's jobs (--trace-where picks)"},
    {O_TRACE_WHERE, "trace-where", "SQL",
     "which jobs get a trace: a condition on results (default: every job)"},
    {0}};
static const farm_cli_opt bench_farm_opts[] = {
    {O_DB, "db", "FILE",
     "the database to run the jobs into (as run: jobs already there are not run again)"},
    {O_DISCARD, "discard", NULL,
     "run the jobs and drop their results, with no database: the compute-only rate"},
    {O_THREADS, "threads", "N", "worker threads (default: OpenMP's, one per core)"},
    {O_SHARD, "shard", "I/N", "run only the I-th of N equal shares of the jobs"},
    {O_COMMIT, "commit", "S",
     "commit every S seconds (default 1; 16 on one thread: the commits of 16 threads)"},
    OPT_MAPS, {0}};
static const farm_cli_opt expand_opts[] = {
    {O_LIST, "list", NULL, "list every job: key, map, generator, agents, algorithm, params"},
    OPT_MAPS, {0}};
static const farm_cli_opt solve_opts[] = {
    OPTS_INSTANCE,
    {O_ROBOT_RUNNERS, "robot-runners", "FILE.json",
     "a League of Robot Runners 2023 problem (map, agents, task list), run lifelong on 4 moves "
     "(docs/robot-runners.md)"},
    {O_ALGO, "algo", "NAME", "the algorithm (mapfarm algorithms lists them; auto: --model's choice)"},
    {O_MODEL, "model", "MODEL", "with --algo auto: the selector (mapfarm select train) that chooses"},
    {O_PARAM, "param", "NAME=VALUE", "a parameter of the algorithm (repeatable)"},
    {O_ALGO_SEED, "algo-seed", "HEX",
     "the algorithm's seed as results.seed prints it (default: derived from --seed)"},
    {O_STEPS, "steps", "N",
     "step limit (default " STR(SOLVE_STEPS) ", " STR(RR_STEPS) " with --robot-runners; 0: build "
     "the instance only)"},
    {O_SECONDS, "seconds", "S", "wall-clock limit in seconds (default 0: none)"},
    {O_EXPANSIONS, "expansions", "N", "limit on node expansions of all agents (default 0: none)"},
    {O_WORK, "work", "S", "work budget in modelled seconds (default 0: none; docs/plans.md)"},
    {O_EXECUTION, "execution", "chains|single-pass|joint",
     "how moves are executed (default chains; pibt and lacam always joint)"},
    OPT_CONNECTIVITY,
    {O_TRACE, "trace", "FILE", "write every step's positions (mapf-visualizer's format)"},
    {O_HTML, "html", "FILE", "write the viewer page with the map and the trace in it"},
    {O_EXPORT_SCEN, "export-scen", "FILE", "write the instance as a MovingAI .scen file"},
    {O_RETASK, "retask", "EVERY,FRACTION,ROUNDS",
     "re-task FRACTION of the agents every EVERY steps, ROUNDS times (docs/events.md)"},
    {O_EVENTS, "events", "FILE", "events from a file (docs/events.md)"},
    {O_DOORS, "doors", "EVERY,COUNT,DURATION,ROUNDS[,WIDTH]",
     "map changes: every EVERY steps COUNT doors (passages at most WIDTH cells wide, default 1) "
     "close for DURATION steps, ROUNDS times"},
    {O_LIFELONG, "lifelong", NULL, "lifelong goals: a new task on every goal reached"},
    {0}};
static const farm_cli_opt report_opts[] = {
    OPT_DB_READ, OPTS_TABLE,
    {O_ROWS, "rows", "DIM", "what the rows are: map (default), label, algorithm, generator, "
                            "agents or param:NAME"},
    {O_COLS, "cols", "DIM", "what the columns are (default label); as --rows"},
    {O_COUNTS, "counts", NULL, "show each cell's job count"},
    {0}};
static const farm_cli_opt portfolio_opts[] = {
    OPT_DB_READ,
    {O_SIZE, "size", "N", "the largest portfolio"},
    {O_BY, "by", "distance|suboptimality",
     "the tie-break after completion rate (default distance)"},
    OPTS_TABLE, {0}};
static const farm_cli_opt db_opts[] = {OPT_DB_READ, {0}};
static const farm_cli_opt render_opts[] = {
    OPTS_INSTANCE,
    {O_OUT, "out", "FILE.png", "the image to write"},
    {O_SIZE, "size", "N|native", "side of the square image in pixels (default " STR(FARM_IMAGE_SIDE)
                                 "); native: one pixel per cell"},
    {0}};
static const farm_cli_opt dataset_opts[] = {
    OPT_DB_READ,
    {O_OUT, "out", "DIR", "the directory to write images, labels.csv and the split to"},
    {O_SIZE, "size", "N", "side of the square images in pixels (default " STR(FARM_IMAGE_SIDE) ")"},
    {O_TRAIN, "train", "F",
     "fraction of the instances in the training set (default " STR(DATASET_TRAIN) ")"},
    {O_SEED, "seed", "S", "seed of the train/test split (default " STR(CLI_SEED) ")"},
    OPT_MAPS, {0}};
static const farm_cli_opt algorithms_opts[] = {
    {O_MARKDOWN, "markdown", NULL, "write the Markdown page docs/algorithms.md"}, {0}};
static const farm_cli_opt bench_astar_opts[] = {
    {O_MAP, "map", "MAP", "the map (.map file)"},
    {O_SCEN, "scen", "FILE", "the scenario file whose every query is searched"},
    OPT_MAPS, {0}};
static const farm_cli_opt bench_sim_opts[] = {
    {O_MAP, "map", "MAP", "the map (.map file)"},
    {O_AGENTS, "agents", "N[,N...]", "agent counts, one run each (default " BENCH_AGENTS ")"},
    {O_ALGO, "algo", "NAME", "one algorithm (default: every one)"},
    {O_STEPS, "steps", "N", "steps per run (default " STR(BENCH_STEPS) ")"},
    {O_SEED, "seed", "S", "seed of the random instances (default " STR(CLI_SEED) ")"},
    OPT_CONNECTIVITY, OPT_MAPS, {0}};

#define CALIBRATE_AGENTS "25,100,400"
#define CALIBRATE_INSTANCES 3
#define CALIBRATE_STEPS 200
static const farm_cli_opt calibrate_opts[] = {
    {O_MAP, "map", "MAP", "the map (default: a generated 128 x 128 random map, density 0.2)"},
    {O_AGENTS, "agents", "N[,N...]", "agent counts (default " CALIBRATE_AGENTS ")"},
    {O_INSTANCES, "instances", "K",
     "random instances per agent count (default " STR(CALIBRATE_INSTANCES) ")"},
    {O_ALGO, "algo", "NAME", "one algorithm (default: every one)"},
    {O_STEPS, "steps", "N", "step limit per run (default " STR(CALIBRATE_STEPS) ")"},
    OPT_MAPS, {0}};

static const farm_cli_opt replay_opts[] = {
    OPT_DB_READ,
    {O_TRACE, "trace", "FILE", "write the rerun's trace (as solve --trace)"},
    {O_HTML, "html", "FILE", "write the viewer page with the map and the rerun"},
    OPT_MAPS, {0}};

static const farm_cli_opt features_opts[] = {
    {O_DB, "db", "FILE", "the results database (its features table is written)"},
    {O_THREADS, "threads", "N", "threads (default: OpenMP's, one per core)"},
    OPT_MAPS, {0}};

#define SELECT_OBJECTIVE {O_OBJECTIVE, "objective", "completion|steps|distance", \
   "what the selector optimises (default completion: the thesis's rule)"}
static const farm_cli_opt select_train_opts[] = {
    OPT_DB_READ,
    {O_OUT, "out", "MODEL", "the model file to write (XGBoost's JSON)"},
    SELECT_OBJECTIVE,
    {O_THREADS, "threads", "N", "XGBoost's threads (default 1; the model is the same for any)"},
    {0}};
static const farm_cli_opt select_eval_opts[] = {
    OPT_DB_READ,
    {O_PROTOCOL, "protocol", "within-maps|leave-map-out|leave-type-out",
     "how test instances are held out (default within-maps)"},
    {O_FOLDS, "folds", "K",
     "folds (default: 10 within maps, one per map leaving maps out; not for leave-type-out)"},
    SELECT_OBJECTIVE,
    {O_SEED, "seed", "S", "seed of the within-maps split (default " STR(CLI_SEED) ")"},
    {O_FORMAT, "format", "text|md", "output format (default text)"},
    {O_REGRET_CSV, "regret-csv", "FILE", "write each test instance's regret (for tools/plot-regret.sh)"},
    {O_THREADS, "threads", "N", "XGBoost's threads (default 1; the numbers are the same for any)"},
    {O_MODEL, "model", "MODEL", "evaluate this trained model on the database instead (no folds)"},
    {0}};
static const farm_cli_opt select_predict_opts[] = {
    {O_MODEL, "model", "MODEL", "the model (mapfarm select train)"},
    OPTS_INSTANCE, OPT_CONNECTIVITY, {0}};

static int select_failed(const mapf_diag *err);
static int cmd_run(const farm_cli_cmd *, int, char **);
static int cmd_select(const farm_cli_cmd *, int, char **);
static int cmd_features(const farm_cli_cmd *, int, char **);
static int cmd_expand(const farm_cli_cmd *, int, char **);
static int cmd_solve(const farm_cli_cmd *, int, char **);
static int cmd_report(const farm_cli_cmd *, int, char **);
static int cmd_portfolio(const farm_cli_cmd *, int, char **);
static int cmd_merge(const farm_cli_cmd *, int, char **);
static int cmd_status(const farm_cli_cmd *, int, char **);
static int cmd_runs(const farm_cli_cmd *, int, char **);
static int cmd_render(const farm_cli_cmd *, int, char **);
static int cmd_dataset(const farm_cli_cmd *, int, char **);
static int cmd_algorithms(const farm_cli_cmd *, int, char **);
static int cmd_generators(const farm_cli_cmd *, int, char **);
static int cmd_reports(const farm_cli_cmd *, int, char **);
static int cmd_bench(const farm_cli_cmd *, int, char **);
static int cmd_bench_farm(const farm_cli_cmd *, int, char **);
static int cmd_calibrate(const farm_cli_cmd *, int, char **);
static int cmd_replay(const farm_cli_cmd *, int, char **);
static int cmd_version(const farm_cli_cmd *, int, char **);
static int cmd_help(const farm_cli_cmd *, int, char **);

static const farm_cli_cmd commands[] = {
    {"run",
     "PLAN.yaml --db FILE [--threads N] [--shard I/N] [--maps DIR] [--retry-failed]\n"
     "[--traces DIR [--trace-where SQL]]",
     "run a plan's jobs into a database (resumes: jobs already there are not run again)",
     run_opts, cmd_run},
    {"expand", "PLAN.yaml [--list] [--maps DIR]",
     "check a plan and count its jobs by map, generator and algorithm", expand_opts, cmd_expand},
    {"solve",
     "(--map MAP (--scen FILE [--agents N | --problem K] | --generator G --agents N\n"
     "[--generator-param NAME=VALUE ...] [--seed S]) | --robot-runners FILE.json)\n"
     "(--algo NAME | --algo auto --model MODEL) [--param NAME=VALUE ...]\n"
     "[--algo-seed HEX]\n"
     "[--steps N] [--seconds S] [--expansions N] [--work S]\n"
     "[--execution chains|single-pass|joint] [--connectivity 4|8] [--trace FILE] [--html FILE]\n"
     "[--export-scen FILE] [--retask EVERY,FRACTION,ROUNDS | --events FILE | --lifelong]\n"
     "[--doors EVERY,COUNT,DURATION,ROUNDS[,WIDTH]] [--maps DIR]",
     "run one instance with one algorithm and print its results", solve_opts, cmd_solve},
    {"report",
     "NAME --db FILE [--format text|md|csv|html] [--max-agents N] [--rows DIM] [--cols DIM]\n"
     "[--where SQL] [--counts]",
     "print a table of results (mapfarm reports lists them)", report_opts, cmd_report},
    {"portfolio",
     "--db FILE --size N [--by distance|suboptimality] [--format text|md|csv]\n"
     "[--max-agents N] [--where SQL]",
     "greedy portfolio formation over the labels of a database", portfolio_opts, cmd_portfolio},
    {"merge", "OUT.db IN.db...",
     "merge databases (shards) into one; a job stored with other results is a conflict", NULL,
     cmd_merge},
    {"status", "--db FILE", "progress of the plans in a database: jobs done, runs, rate, ETA",
     db_opts, cmd_status},
    {"runs", "--db FILE", "every run recorded in a database, one line each", db_opts, cmd_runs},
    {"render",
     "--map MAP (--scen FILE [--agents N | --problem K] | --generator G --agents N\n"
     "[--generator-param NAME=VALUE ...] [--seed S]) --out FILE.png [--size N|native]\n"
     "[--maps DIR]",
     "draw an instance as a PNG image (the algorithm selector's input)", render_opts,
     cmd_render},
    {"dataset", "--db FILE --out DIR [--size N] [--train F] [--seed S] [--maps DIR]",
     "images, labels and a train/test split for algorithm selection", dataset_opts,
     cmd_dataset},
    {"features", "--db FILE [--threads N] [--maps DIR]",
     "compute every instance's features (map and instance only) into the features table",
     features_opts, cmd_features},
    {"select train",
     "--db FILE --out MODEL [--objective completion|steps|distance] [--threads N]",
     "train the algorithm selector (XGBoost) on a database's features and labels",
     select_train_opts, cmd_select},
    {"select eval",
     "--db FILE [--protocol within-maps|leave-map-out|leave-type-out] [--folds K]\n"
     "[--objective completion|steps|distance] [--seed S] [--format text|md]\n"
     "[--regret-csv FILE] [--threads N] | --db FILE --model MODEL",
     "evaluate the selector: SBS, pi*, gap closed, accuracy and regret per fold", select_eval_opts,
     cmd_select},
    {"select predict",
     "--model MODEL --map MAP (--scen FILE [--agents N | --problem K] | --generator G --agents N\n"
     "[--generator-param NAME=VALUE ...] [--seed S]) [--connectivity 4|8] [--maps DIR]",
     "the algorithm a trained selector chooses for one instance", select_predict_opts,
     cmd_select},
    {"algorithms", "[--markdown]",
     "the algorithms and their parameters: type, range, default", algorithms_opts,
     cmd_algorithms},
    {"generators", "", "the scenario and map generators and their parameters", NULL,
     cmd_generators},
    {"reports", "", "the report names, one line each", NULL, cmd_reports},
    {"bench astar", "--map MAP --scen FILE [--maps DIR]",
     "time single-agent A* on every query of a scenario file", bench_astar_opts, cmd_bench},
    {"bench sim",
     "--map MAP [--agents N[,N...]] [--algo NAME] [--steps N] [--seed S] [--connectivity 4|8]\n"
     "[--maps DIR]",
     "agent-steps per second of every multi-agent algorithm", bench_sim_opts, cmd_bench},
    {"bench farm",
     "PLAN.yaml (--db FILE | --discard) [--threads N] [--shard I/N] [--commit S]\n[--maps DIR]",
     "jobs per second of a plan run as `run` runs it, and its writer's CPU time per job",
     bench_farm_opts, cmd_bench_farm},
    {"replay", "JOB_KEY --db FILE [--trace FILE] [--html FILE] [--maps DIR]",
     "run a stored job again from its run's plan and compare every deterministic column",
     replay_opts, cmd_replay},
    {"calibrate",
     "[--map MAP] [--agents N[,N...]] [--instances K] [--algo NAME] [--steps N] [--maps DIR]",
     "measure each algorithm's work weights on this machine beside the built-in ones",
     calibrate_opts, cmd_calibrate},
    {"version", "", "the version (also mapfarm --version)", NULL, cmd_version},
    {"help", "[COMMAND]", "the commands, or one command's usage and options", NULL, cmd_help},
};
#define NCOMMANDS ((int32_t)(sizeof commands / sizeof commands[0]))

/* A usage error of command cmd: "mapfarm CMD: error: ...", then cmd's usage. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int usage_error(const farm_cli_cmd *cmd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "mapfarm %s: error: %s\n", cmd->name, msg);
  farm_cli_usage(stderr, cmd);
  fprintf(stderr, "`mapfarm %s --help` describes every option.\n", cmd->name);
  return EXIT_BAD_INPUT;
}

/* An error of command cmd that its usage would not explain (an unknown name, with its
 * suggestion). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int input_error(const farm_cli_cmd *cmd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "mapfarm %s: error: %s\n", cmd->name, msg);
  return EXIT_BAD_INPUT;
}

static void print_diag(const mapf_diag *d) {
  char buf[1200];
  mapf_diag_format(d, buf, sizeof buf);
  fprintf(stderr, "%s\n", buf);
}

/* Every error of a plan, each in the plan (at file `path`, whose text is `text`) followed by
 * the offending line with a caret (as Redis config.c quotes the line). */
static void print_diags(const farm_diags *ds, const char *text, const char *path) {
  for (int32_t i = 0; i < ds->n && i < ds->cap; i++) {
    const mapf_diag *d = &ds->items[i];
    print_diag(d);
    if (!text || d->line < 1 || strcmp(d->file, path) != 0) continue;
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

/* Opens db read-only for a command that only reads it, with err the command's own buffer.
 * Returns 0 and *st, or EXIT_BAD_INPUT after printing why. */
static int open_readonly(const char *db, farm_store **st, mapf_diag *err) {
  if (farm_store_open(db, FARM_STORE_READONLY, st, err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err->msg);
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
    print_diags(&errs, text, path);
    free(text);
    if (errs.n == 0) fprintf(stderr, "%s: error: %s\n", path, mapf_strerror(rc));
    farm_diags_free(&errs);
    return -1;
  }
  rc = farm_space_init(sp, *plan, &errs);
  if (rc != MAPF_OK || errs.n > 0) {
    print_diags(&errs, (*plan)->text, (*plan)->path);
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

static int cmd_expand(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *plan_path = NULL, *v;
  int list = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    if (id == FARM_CLI_ERROR) return usage_error(cmd, "%s", p.msg);
    if (id == FARM_CLI_ARG && plan_path) return usage_error(cmd, "unexpected argument \"%s\"", v);
    if (id == FARM_CLI_ARG) plan_path = v;
    if (id == O_LIST) list = 1;
    if (id == O_MAPS) map_dirs_add(&md, v);
  }
  if (!plan_path) return usage_error(cmd, "PLAN.yaml is required");
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
  int events = 0; /* a plan with events or lifelong goals lists them (docs/events.md) */
  for (int32_t s = 0; s < plan->nscens; s++) {
    const farm_scen_spec *ss = &plan->scens[s];
    events |= ss->events_key != NULL;
    printf("generator %s%s%s%s (scenario %d): %lld\n", ss->generator, ss->events ? ", events " : "",
           ss->events ? ss->events : "", ss->lifelong ? ", lifelong" : "", (int)s + 1,
           (long long)farm_space_scen_jobs(&sp, s));
  }
  for (int32_t a = 0; a < plan->nalgos; a++) {
    int64_t per_combo = sp.algo_combos ? sp.njobs / sp.algo_combos : 0;
    printf("algorithm %s (%s): %lld\n", plan->algos[a].def->name, plan->algos[a].label,
           (long long)(per_combo * plan->algos[a].ncombos));
  }
  if (list) {
    printf("key\tmap\tgenerator\tagents\tinstance\talgorithm\tlabel\tparams%s\n",
           events ? "\tevents\tlifelong" : "");
    char params[512], label[256];
    for (int64_t i = 0; i < sp.njobs; i++) {
      farm_job j;
      farm_space_job(&sp, i, &j);
      farm_job_params_json(&sp, &j, params, sizeof params);
      farm_job_label(&sp, &j, label, sizeof label);
      const farm_scen_spec *ss = &plan->scens[j.scen];
      printf("%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s", j.key_hex, map_name(&sp, j.map), ss->generator,
             (int)j.agents, (int)j.instance, plan->algos[j.algo].def->name, label, params);
      if (events) printf("\t%s\t%d", ss->events ? ss->events : "", (int)ss->lifelong);
      putchar('\n');
    }
  }
  farm_space_free(&sp);
  farm_plan_free(plan);
  free(md.env);
  return 0;
}

/* ---- mapfarm run --------------------------------------------------------------------- */

/* --shard I/N: 0 and *index, *count, or -1. */
static int parse_shard(const char *v, long long *index, long long *count) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", v);
  char *slash = strchr(buf, '/');
  if (!slash) return -1;
  *slash = '\0';
  return parse_long(buf, 1, 1000000, index) == 0 &&
                 parse_long(slash + 1, 1, 1000000, count) == 0 && *index <= *count
             ? 0
             : -1;
}

static int write_run_traces(farm_space *sp, farm_store *st, const char *dir, const char *where);
struct trace;
static int write_trace_outputs(struct trace *tr, const mapf_instance *inst, const char *map_path,
                               const char *map_file, const mapf_grid *g, const char *solver,
                               const mapf_result *res, const char *trace_path,
                               const char *html_path);

static int cmd_run(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *plan_path = NULL, *db = NULL, *traces = NULL, *trace_where = NULL, *v;
  long long threads = 0, si = 1, sn = 1;
  int retry_failed = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      if (plan_path) return usage_error(cmd, "unexpected argument \"%s\"", v);
      plan_path = v;
      break;
    case O_DB:
      db = v;
      break;
    case O_THREADS:
      if (parse_long(v, 1, 4096, &threads) < 0)
        return usage_error(cmd, "--threads: expected an integer in [1, 4096], found \"%s\"", v);
      break;
    case O_SHARD:
      if (parse_shard(v, &si, &sn) < 0)
        return usage_error(cmd, "--shard: expected I/N with 1 <= I <= N, found \"%s\"", v);
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    case O_RETRY_FAILED:
      retry_failed = 1;
      break;
    case O_TRACES:
      traces = v;
      break;
    case O_TRACE_WHERE:
      trace_where = v;
      break;
    }
  }
  if (trace_where && !traces) return usage_error(cmd, "--trace-where needs --traces DIR");
  if (!plan_path) return usage_error(cmd, "PLAN.yaml is required");
  if (!db) return usage_error(cmd, "--db FILE is required");
  map_dirs_env(&md);

  /* The plan and every map are checked before the database is opened, so bad input never
   * touches it. */
  farm_plan *plan = NULL;
  farm_space sp = {0};
  if (load_plan(plan_path, &md, &plan, &sp) < 0) {
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  mapf_diag err = {0};
  farm_store *st = NULL;
  /* The run builds the deferred indexes a killed run left out, when it does not defer them
   * itself (farm_run). */
  if (farm_store_open(db, FARM_STORE_CREATE | FARM_STORE_DEFER_INDEXES, &st, &err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    farm_space_free(&sp);
    farm_plan_free(plan);
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  if (*farm_store_note(st)) fprintf(stderr, "mapfarm: note: %s\n", farm_store_note(st));
  if (trace_where) {
    /* A bad condition is refused before the run, not after it. */
    char *sql = sqlite3_mprintf("SELECT 1 FROM results WHERE (%s\n) LIMIT 0", trace_where);
    sqlite3_stmt *s = NULL;
    int ok = sql && sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL) == SQLITE_OK;
    if (!ok)
      fprintf(stderr, "mapfarm: error: --trace-where \"%s\": %s\n", trace_where,
              sqlite3_errmsg(farm_store_db(st)));
    sqlite3_finalize(s);
    sqlite3_free(sql);
    if (!ok) {
      farm_store_close(st);
      farm_space_free(&sp);
      farm_plan_free(plan);
      free(md.env);
      return EXIT_BAD_INPUT;
    }
  }

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
  int rc = farm_run(&sp, st, &ro, &sum, &err);
  int status = 0;
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
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
  if (traces && rc == 0 && !sum.interrupted) {
    int e = write_run_traces(&sp, st, traces, trace_where);
    if (e && !status) status = e;
  }
  farm_store_close(st);
  farm_space_free(&sp);
  farm_plan_free(plan);
  free(md.env);
  return status;
}

/* ---- mapfarm report ------------------------------------------------------------------ */

/* Takes option id (with value v) when it is one of OPTS_TABLE. Returns 1 when taken, 0 when
 * not one of them, or EXIT_BAD_INPUT after printing why. */
static int table_opt(const farm_cli_cmd *cmd, int id, const char *v, farm_report_opts *ro) {
  long long n;
  switch (id) {
  case O_FORMAT:
    if (strcmp(v, "text") == 0) ro->format = FARM_FORMAT_TEXT;
    else if (strcmp(v, "md") == 0) ro->format = FARM_FORMAT_MD;
    else if (strcmp(v, "csv") == 0) ro->format = FARM_FORMAT_CSV;
    else if (strcmp(v, "html") == 0) ro->format = FARM_FORMAT_HTML;
    else return usage_error(cmd, "--format: expected text, md, csv or html, found \"%s\"", v);
    return 1;
  case O_MAX_AGENTS:
    if (parse_long(v, 1, 100000000, &n) < 0)
      return usage_error(cmd, "--max-agents: expected an integer >= 1, found \"%s\"", v);
    ro->max_agents = (int32_t)n;
    return 1;
  case O_WHERE:
    ro->where = v;
    return 1;
  default:
    return 0;
  }
}

static int cmd_report(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *name = NULL, *v;
  farm_report_opts ro = {.format = FARM_FORMAT_TEXT};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    int took = table_opt(cmd, id, v, &ro);
    if (took == EXIT_BAD_INPUT) return took;
    if (took) continue;
    mapf_diag derr;
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      if (name) return usage_error(cmd, "unexpected argument \"%s\"", v);
      name = v;
      break;
    case O_DB:
      db = v;
      break;
    case O_COUNTS:
      ro.counts = 1;
      break;
    case O_ROWS:
    case O_COLS:
      if (farm_report_check_dim(v, &derr) < 0)
        return usage_error(cmd, "--%s: %s", id == O_ROWS ? "rows" : "cols", derr.msg);
      if (id == O_ROWS) ro.rows = v;
      else ro.cols = v;
      break;
    }
  }
  if (!db) return usage_error(cmd, "--db FILE is required");
  if (!name) return usage_error(cmd, "a report NAME is required (mapfarm reports lists them)");
  mapf_diag err = {0};
  if (strcmp(name, "selection") == 0) {
    /* The selector's evaluation under the three protocols (docs/selection.md), with the
     * defaults of `select eval`. */
    if (ro.format != FARM_FORMAT_TEXT && ro.format != FARM_FORMAT_MD)
      return usage_error(cmd, "report selection: --format text or md");
    if (ro.where || ro.max_agents || ro.rows || ro.cols || ro.counts)
      return usage_error(cmd, "report selection takes --db and --format only");
    if (!farm_select_available()) {
      farm_err(&err, FARM_SELECT_NO_XGBOOST);
      return select_failed(&err);
    }
    farm_sel_opts so = {FARM_SEL_COMPLETION, 1, 0, CLI_SEED};
    for (int pr = FARM_SEL_WITHIN_MAPS; pr <= FARM_SEL_LEAVE_TYPE_OUT; pr++) {
      if (pr > FARM_SEL_WITHIN_MAPS) printf("\n");
      if (farm_select_eval(db, (farm_sel_protocol)pr, 0, &so, ro.format == FARM_FORMAT_MD, NULL,
                           stdout, &err) < 0)
        return select_failed(&err);
    }
    return 0;
  }
  farm_store *st = NULL;
  if (open_readonly(db, &st, &err)) return EXIT_BAD_INPUT;
  int rc = farm_report(st, name, &ro, stdout, &err);
  farm_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* ---- mapfarm portfolio --------------------------------------------------------------- */

/* Greedy portfolio formation (thesis Algorithm 2; farm/portfolio.c), printed by report.c. */
static int cmd_portfolio(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *v;
  long long size = 0;
  int by = FARM_PF_BY_DISTANCE;
  farm_report_opts ro = {.format = FARM_FORMAT_TEXT};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    int took = table_opt(cmd, id, v, &ro);
    if (took == EXIT_BAD_INPUT) return took;
    if (took) continue;
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_DB:
      db = v;
      break;
    case O_SIZE:
      if (parse_long(v, 1, INT32_MAX, &size) < 0)
        return usage_error(cmd, "--size: expected an integer >= 1, found \"%s\"", v);
      break;
    case O_BY:
      if (strcmp(v, "distance") == 0) by = FARM_PF_BY_DISTANCE;
      else if (strcmp(v, "suboptimality") == 0) by = FARM_PF_BY_SUBOPTIMALITY;
      else return usage_error(cmd, "--by: expected distance or suboptimality, found \"%s\"", v);
      break;
    }
  }
  if (!db) return usage_error(cmd, "--db FILE is required");
  if (size == 0) return usage_error(cmd, "--size N is required (the largest portfolio)");
  mapf_diag err = {0};
  farm_store *st = NULL;
  if (open_readonly(db, &st, &err)) return EXIT_BAD_INPUT;
  int rc = farm_report_greedy_by(st, (int32_t)size, &ro, by, stdout, &err);
  farm_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    return EXIT_BAD_INPUT;
  }
  return 0;
}

/* ---- mapfarm solve ------------------------------------------------------------------- */

/* A trace being recorded (docs/commands.md, "Traces"): the step lines and the events (goal
 * and map changes, in the order they happen) go to memory, because the header, which comes
 * first, holds the result (solved, soc, ...). */
typedef struct trace {
  FILE *steps, *events; /* open_memstream */
  char *steps_text, *events_text;
  size_t steps_len, events_len;
  const mapf_grid *g;
} trace;

/* Every position with a trailing comma, the last one too: mapf-visualizer reads positions with
 * the pattern \((\d+),(\d+),?(...)?\), and drops one without its comma. */
static void write_positions(FILE *f, const mapf_grid *g, const int32_t *pos, int32_t n) {
  for (int32_t a = 0; a < n; a++)
    fprintf(f, "(%d,%d),", (int)mapf_grid_x(g, pos[a]), (int)mapf_grid_y(g, pos[a]));
  fputc('\n', f);
}

static void on_step(void *ud, int64_t t, const int32_t *pos, int32_t n) {
  trace *tr = ud;
  fprintf(tr->steps, "%lld:", (long long)t);
  write_positions(tr->steps, tr->g, pos, n);
}

/* A patrol turn (or, later, a re-tasking): goal_change=STEP:AGENT:(x,y), in the header, where
 * readers that do not know the key skip it (a line of positions after solution= would be read
 * as a step). */
static void on_goal(void *ud, int64_t t, int32_t agent, int32_t cell) {
  trace *tr = ud;
  fprintf(tr->events, "goal_change=%lld:%d:(%d,%d)\n", (long long)t, (int)agent,
          (int)mapf_grid_x(tr->g, cell), (int)mapf_grid_y(tr->g, cell));
}

/* A map change (docs/events.md): cell_change=STEP:(x,y):close or :open, from step STEP on (the
 * positions of STEP are the last before it), in the header beside the goal changes. */
static void on_cell(void *ud, int64_t t, int32_t cell, int open) {
  trace *tr = ud;
  fprintf(tr->events, "cell_change=%lld:(%d,%d):%s\n", (long long)t,
          (int)mapf_grid_x(tr->g, cell), (int)mapf_grid_y(tr->g, cell), open ? "open" : "close");
}

/* The whole trace: the header mapf-visualizer and lacam3 write (agents, map_file, solver,
 * solved, soc and makespan when solved, comp_time in ms), starts, goals, loops, goal and map
 * changes, then solution= and one line per time step. Returns a malloc'd text, or NULL. */
static char *trace_text(trace *tr, const mapf_instance *inst, const char *map_path,
                        const char *solver, const mapf_result *res) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  const char *base = strrchr(map_path, '/');
  fprintf(f, "agents=%d\nmap_file=%s\nsolver=%s\nsolved=%d\n", (int)inst->n,
          base ? base + 1 : map_path, solver, (int)res->solved);
  if (res->solved)
    fprintf(f, "soc=%lld\nmakespan=%lld\n", (long long)res->soc, (long long)res->makespan);
  fprintf(f, "comp_time=%.0f\n", res->wall_seconds * 1000.0);
  fprintf(f, "starts=");
  write_positions(f, tr->g, inst->start, inst->n);
  fprintf(f, "goals=");
  write_positions(f, tr->g, inst->goal, inst->n);
  /* Patrol (sim.h): agents go between start and goal `loops` times, so a trace that does not
   * end on the goals is still complete. */
  if (inst->loops > 0) fprintf(f, "loops=%d\n", (int)inst->loops);
  fwrite(tr->events_text, 1, tr->events_len, f);
  fprintf(f, "solution=\n");
  fwrite(tr->steps_text, 1, tr->steps_len, f);
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
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
 * e.g. "--param"). A list's value is JSON (command='["./solver","{map}"]'); its canonical text
 * goes into lists[i] (MAPF_MAX_PARAMS of them, NULL first; the caller frees them after the
 * run), which pv points to. Returns 0, or EXIT_BAD_INPUT after printing why. */
static int parse_param_opts(const farm_cli_cmd *cmd, const mapf_algo_def *def,
                            const char *const *opts, int n, const char *option,
                            mapf_params *pv, char **lists) {
  mapf_params_default(def, pv);
  for (int k = 0; k < n; k++) {
    char name[64];
    const char *eq = strchr(opts[k], '=');
    if (!eq || eq == opts[k] || (size_t)(eq - opts[k]) >= sizeof name) {
      return usage_error(cmd, "%s: expected NAME=VALUE, found \"%s\"", option, opts[k]);
    }
    memcpy(name, opts[k], (size_t)(eq - opts[k]));
    name[eq - opts[k]] = '\0';
    int32_t idx = mapf_param_index(def, name);
    if (idx < 0) {
      const char *names[MAPF_MAX_PARAMS];
      for (int32_t p = 0; p < def->nparams; p++) names[p] = def->params[p].name;
      const char *s = farm_suggest(name, names, def->nparams);
      return input_error(cmd, "%s: %s has no parameter \"%s\"%s%s%s", option, def->name, name,
                         s ? "; did you mean \"" : "", s ? s : "", s ? "\"?" : "");
    }
    mapf_diag d = {0};
    if (def->params[idx].type == MAPF_PARAM_LIST) {
      free(lists[idx]);
      lists[idx] = NULL;
      if (mapf_list_parse(name, eq + 1, &lists[idx], &d) != MAPF_OK)
        return input_error(cmd, "%s: %s", option, d.msg);
      mapf_params_set_list(def, pv, idx, lists[idx]);
      continue;
    }
    if (mapf_param_parse(def, idx, eq + 1, &pv->v[idx], &d) != MAPF_OK)
      return input_error(cmd, "%s: %s", option, d.msg);
  }
  mapf_diag d = {0};
  if (mapf_params_check(def, pv, &d) != MAPF_OK) return input_error(cmd, "%s: %s", option, d.msg);
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
  long long connectivity; /* --connectivity: 4 or 8; 0 reads as 8 */
} instance_args;

/* Parses --connectivity's value into *c. Returns 0, or EXIT_BAD_INPUT after printing why. */
static int connectivity_opt(const farm_cli_cmd *cmd, const char *v, long long *c) {
  if (parse_long(v, 4, 8, c) < 0 || !mapf_connectivity_ok(*c))
    return usage_error(cmd, "--connectivity: expected 4 or 8, found \"%s\"", v);
  return 0;
}

/* Takes option id (with value v) when it is one of OPTS_INSTANCE. Returns 1 when taken, 0 when
 * not one of them, or EXIT_BAD_INPUT after printing why. */
static int instance_opt(const farm_cli_cmd *cmd, int id, const char *v, instance_args *ia,
                        map_dirs *md) {
  switch (id) {
  case O_MAP:
    ia->map_path = v;
    return 1;
  case O_SCEN:
    ia->scen_path = v;
    return 1;
  case O_GENERATOR:
    ia->generator = v;
    return 1;
  case O_MAPS:
    map_dirs_add(md, v);
    return 1;
  case O_AGENTS:
    if (parse_long(v, 1, 100000000, &ia->agents) < 0)
      return usage_error(cmd, "--agents: expected an integer >= 1, found \"%s\"", v);
    return 1;
  case O_SEED:
    if (parse_long(v, 0, 0x7fffffffffffffffLL, &ia->seed) < 0)
      return usage_error(cmd, "--seed: expected an integer >= 0, found \"%s\"", v);
    return 1;
  case O_GENERATOR_PARAM:
    if (ia->ngparams == 64) return usage_error(cmd, "too many --generator-param options");
    ia->gparams[ia->ngparams++] = v;
    return 1;
  case O_PROBLEM:
    if (parse_long(v, 0, 100000000, &ia->problem) < 0)
      return usage_error(cmd, "--problem: expected an integer >= 0, found \"%s\"", v);
    return 1;
  case O_CONNECTIVITY:
    return connectivity_opt(cmd, v, &ia->connectivity) ? EXIT_BAD_INPUT : 1;
  default:
    return 0;
  }
}

/* Checks the instance options of command `cmd`, loads the map into *g and builds the instance
 * into *inst. Returns 0, or EXIT_BAD_INPUT after printing why (nothing to free then). */
static int make_instance(const farm_cli_cmd *cmd, instance_args *ia, map_dirs *md, mapf_grid **g,
                         mapf_instance **inst) {
  *g = NULL;
  *inst = NULL;
  if (!ia->map_path) return usage_error(cmd, "--map MAP is required");
  if (!ia->scen_path && !ia->generator)
    return usage_error(cmd, "--scen FILE or --generator G is required");
  if (ia->scen_path && ia->generator)
    return usage_error(cmd, "--scen and --generator exclude each other: give one");
  const mapf_scengen_def *gdef = ia->generator ? mapf_scengen_find(ia->generator) : NULL;
  if (ia->generator && !gdef) {
    const char *gens[64];
    int32_t k = 0;
    for (; k < mapf_scengen_count() && k < 64; k++) gens[k] = mapf_scengen_at(k)->name;
    const char *s = farm_suggest(ia->generator, gens, k);
    return input_error(cmd, "--generator: unknown generator \"%s\"%s%s%s (mapfarm generators "
                       "lists them)", ia->generator, s ? "; did you mean \"" : "", s ? s : "",
                       s ? "\"?" : "");
  }
  if (ia->generator && ia->agents < 1) return usage_error(cmd, "--generator needs --agents N");
  if (ia->ngparams > 0 && !gdef) return usage_error(cmd, "--generator-param needs --generator G");
  if (ia->problem >= 0 && !ia->scen_path) return usage_error(cmd, "--problem needs --scen FILE");
  mapf_params gpv;
  if (gdef) {
    char *glists[MAPF_MAX_PARAMS] = {0}; /* generators have no lists */
    int e = parse_param_opts(cmd, gdef->view, ia->gparams, ia->ngparams, "--generator-param", &gpv,
                             glists);
    for (int32_t i = 0; i < MAPF_MAX_PARAMS; i++) free(glists[i]);
    if (e) return e;
  }
  char pathbuf[4096];
  mapf_diag d = {0};
  int rc = mapf_grid_load(find_file(ia->map_path, md, pathbuf, sizeof pathbuf), g, &d);
  if (rc != MAPF_OK) {
    print_diag(&d);
    return EXIT_BAD_INPUT;
  }
  if (ia->connectivity && mapf_grid_set_connectivity(*g, (int)ia->connectivity) != MAPF_OK) {
    mapf_grid_free(*g);
    *g = NULL;
    return input_error(cmd, "out of memory");
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

/* solve --algo auto --model MODEL: the selector's choice for the instance, as an algorithm name
 * and NAME=VALUE parameters (the label's, before the user's --param options) in pbuf. Returns
 * the algorithm's name (owned by *m), or NULL after printing why. */
static const char *auto_algo(const char *model, const mapf_grid *g, const mapf_instance *inst,
                             const char *generator, farm_sel_model **m, char pbuf[][400],
                             int *np) {
  mapf_diag err = {0};
  if (!farm_select_available()) {
    farm_err(&err, FARM_SELECT_NO_XGBOOST);
    select_failed(&err);
    return NULL;
  }
  if (farm_sel_model_load(model, m, &err) < 0) {
    select_failed(&err);
    return NULL;
  }
  int32_t c = farm_sel_model_predict(*m, g, inst, generator, NULL, &err);
  if (c < 0) {
    select_failed(&err);
    return NULL;
  }
  const char *algo = farm_sel_model_algorithm(*m, c), *json = farm_sel_model_params(*m, c);
  if (!mapf_algo_find(algo)) {
    fprintf(stderr, "mapfarm: error: %s: a model for other algorithms: it chose %s, which this "
                    "mapfarm does not have (mapfarm algorithms lists them)\n", model, algo);
    return NULL;
  }
  /* The label's canonical JSON, flat: "name":value pairs, no value holding a comma. */
  *np = 0;
  for (const char *q = json[0] == '{' ? json + 1 : json; *q && *q != '}' && *np < 64;) {
    const char *end = strpbrk(q, ",}");
    size_t len = end ? (size_t)(end - q) : strlen(q);
    char pair[200];
    snprintf(pair, sizeof pair, "%.*s", (int)(len < 199 ? len : 199), q);
    char *colon = strchr(pair, ':');
    if (colon && pair[0] == '"' && colon > pair + 1 && colon[-1] == '"') {
      colon[-1] = '\0';
      const char *val = colon + 1;
      size_t vl = strlen(val);
      if (vl >= 2 && val[0] == '"' && val[vl - 1] == '"')
        snprintf(pbuf[*np], 400, "%s=%.*s", pair + 1, (int)(vl - 2), val + 1);
      else
        snprintf(pbuf[*np], 400, "%s=%s", pair + 1, val);
      (*np)++;
    }
    q = end && *end == ',' ? end + 1 : q + len;
  }
  fprintf(stderr, "mapfarm: %s chooses %s (%s %s)\n", model, farm_sel_model_label(*m, c), algo,
          json);
  return algo;
}

/* solve's --retask, --events and --lifelong (in ev; events_path: --events FILE or NULL) added
 * to inst on g, as a plan's scenario adds them, seeded from seed (--seed). Returns 0, or
 * EXIT_BAD_INPUT after printing why. */
static int add_events(farm_scen_spec *ev, const char *events_path, const mapf_grid *g,
                      mapf_instance *inst, uint64_t seed) {
  mapf_diag d = {0};
  int rc = MAPF_OK;
  if (events_path) rc = mapf_events_load(events_path, &ev->events_file, &d);
  if (rc == MAPF_OK) rc = farm_events_texts(ev, events_path);
  if (rc == MAPF_OK) rc = farm_events_add(ev, g, seed, inst, &d);
  /* Now, so that a bad event is exit 2 before the run (which checks the instance too). */
  if (rc == MAPF_OK && ev->events_key) rc = mapf_instance_check(inst, g, &d);
  mapf_events_free(ev->events_file);
  free(ev->events);
  free(ev->events_key);
  ev->events_file = NULL;
  ev->events = ev->events_key = NULL;
  if (rc == MAPF_OK) return 0;
  if (rc == MAPF_ENOMEM) {
    fprintf(stderr, "mapfarm: error: out of memory\n");
  } else {
    if (!d.file[0] && events_path) snprintf(d.file, sizeof d.file, "%s", events_path);
    print_diag(&d);
  }
  return EXIT_BAD_INPUT;
}

/* solve --robot-runners FILE: the problem's 4-connected map into *g, its lifelong instance with
 * the task list into *inst and its map file's path into map_path. Returns 0, or EXIT_BAD_INPUT
 * after printing why (nothing to free then). */
static int robot_runners_instance(const char *path, const map_dirs *md, mapf_grid **g,
                                  mapf_instance **inst, char *map_path, size_t cap) {
  char pathbuf[4096];
  mapf_rr_problem rr;
  mapf_diag d = {0};
  if (mapf_rr_load(find_file(path, md, pathbuf, sizeof pathbuf), &rr, &d) != MAPF_OK) {
    print_diag(&d);
    return EXIT_BAD_INPUT;
  }
  snprintf(map_path, cap, "%s", rr.map_path);
  *g = rr.grid;
  *inst = rr.inst;
  rr.grid = NULL;
  rr.inst = NULL;
  mapf_rr_free(&rr);
  return 0;
}

/* solve, with lists[] keeping the texts of list parameters (freed by cmd_solve). */
static int solve_with(const farm_cli_cmd *cmd, int argc, char **argv, char **lists) {
  const char *model_path = NULL, *events_path = NULL;
  farm_scen_spec events = {0}; /* --retask, --events, --lifelong, as a plan's scenario has them */
  const char *algo_name = NULL, *trace_path = NULL, *html_path = NULL, *export_path = NULL, *v;
  const char *rr_path = NULL;
  instance_args ia = {.seed = CLI_SEED, .problem = -1};
  mapf_limits limits = {.steps = SOLVE_STEPS};
  int have_steps = 0;
  mapf_execution execution = MAPF_EXEC_CHAINS;
  uint64_t algo_seed = 0;
  int have_algo_seed = 0;
  const char *params[64];
  int nparams = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    int took = instance_opt(cmd, id, v, &ia, &md);
    if (took == EXIT_BAD_INPUT) return took;
    if (took) continue;
    long long n;
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_ALGO:
      algo_name = v;
      break;
    case O_MODEL:
      model_path = v;
      break;
    case O_TRACE:
      trace_path = v;
      break;
    case O_HTML:
      html_path = v;
      break;
    case O_ALGO_SEED: {
      /* 16 hex digits, as results.seed stores it (an optional 0x is taken too). */
      const char *h = strncmp(v, "0x", 2) == 0 ? v + 2 : v;
      char *end = NULL;
      errno = 0;
      algo_seed = strtoull(h, &end, 16);
      size_t hl = strlen(h);
      if (!*h || *end || errno || hl > 16 || strspn(h, "0123456789abcdefABCDEF") != hl)
        return usage_error(cmd, "--algo-seed: expected up to 16 hex digits (results.seed), "
                                "found \"%s\"", v);
      have_algo_seed = 1;
      break;
    }
    case O_EXPORT_SCEN:
      export_path = v;
      break;
    case O_RETASK: {
      long long every, rounds;
      char *c1 = strchr(v, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
      char a[64], b[64];
      if (!c1 || !c2 || c1 - v >= 64 || c2 - c1 > 64)
        return usage_error(cmd, "--retask: expected EVERY,FRACTION,ROUNDS, found \"%s\"", v);
      snprintf(a, sizeof a, "%.*s", (int)(c1 - v), v);
      snprintf(b, sizeof b, "%.*s", (int)(c2 - c1 - 1), c1 + 1);
      if (parse_long(a, 1, 0x1fffffffffffffffLL, &every) < 0 ||
          parse_double(b, 0, 1, &events.retask_fraction) < 0 ||
          !(events.retask_fraction > 0) || parse_long(c2 + 1, 1, 1000000, &rounds) < 0)
        return usage_error(cmd, "--retask: expected EVERY >= 1, 0 < FRACTION <= 1 and ROUNDS "
                                ">= 1, found \"%s\"", v);
      events.retask_every = every;
      events.retask_rounds = (int32_t)rounds;
      break;
    }
    case O_DOORS: {
      /* EVERY,COUNT,DURATION,ROUNDS[,WIDTH] */
      long long x[5] = {0, 0, 0, 0, 1};
      static const long long hi[5] = {0x1fffffffffffLL, 100000, 0x1fffffffffffLL, 1000000,
                                      MAPF_DOOR_MAX_WIDTH};
      const char *q = v;
      int k = 0, ok = 1;
      for (; k < 5 && ok && *q; k++) {
        const char *c = strchr(q, ',');
        size_t len = c ? (size_t)(c - q) : strlen(q);
        char a[64];
        if (len >= sizeof a) ok = 0;
        snprintf(a, sizeof a, "%.*s", (int)len, q);
        if (ok && parse_long(a, 1, hi[k], &x[k]) < 0) ok = 0;
        q = c ? c + 1 : q + len;
        if (c && !*q) ok = 0;
      }
      if (!ok || k < 4 || *q)
        return usage_error(cmd, "--doors: expected EVERY,COUNT,DURATION,ROUNDS[,WIDTH], each an "
                                "integer >= 1 (WIDTH at most %d), found \"%s\"",
                           MAPF_DOOR_MAX_WIDTH, v);
      events.doors_every = x[0];
      events.doors_count = (int32_t)x[1];
      events.doors_duration = x[2];
      events.doors_rounds = (int32_t)x[3];
      events.doors_width = (int32_t)x[4];
      break;
    }
    case O_EVENTS:
      events_path = v;
      break;
    case O_LIFELONG:
      events.lifelong = 1;
      break;
    case O_ROBOT_RUNNERS:
      rr_path = v;
      break;
    case O_STEPS:
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &n) < 0)
        return usage_error(cmd, "--steps: expected an integer >= 0, found \"%s\"", v);
      limits.steps = n;
      have_steps = 1;
      break;
    case O_SECONDS:
      if (parse_double(v, 0, 1e9, &limits.seconds) < 0)
        return usage_error(cmd, "--seconds: expected a number >= 0, found \"%s\"", v);
      break;
    case O_EXPANSIONS:
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &n) < 0)
        return usage_error(cmd, "--expansions: expected an integer >= 0, found \"%s\"", v);
      limits.expansions = n;
      break;
    case O_WORK:
      if (parse_double(v, 0, 1e9, &limits.work) < 0)
        return usage_error(cmd, "--work: expected a number >= 0, found \"%s\"", v);
      break;
    case O_EXECUTION: {
      int e = mapf_execution_parse(v);
      if (e < 0)
        return usage_error(cmd, "--execution: expected chains, single-pass or joint, found \"%s\"",
                           v);
      execution = (mapf_execution)e;
      break;
    }
    case O_PARAM:
      if (nparams == 64) return usage_error(cmd, "too many --param options");
      params[nparams++] = v;
      break;
    }
  }
  if (rr_path) {
    /* The problem file gives the map, the agents and their tasks; it has no step limit (the
     * start kit takes one on its command line). */
    if (ia.map_path || ia.scen_path || ia.generator || ia.agents || ia.problem >= 0 ||
        ia.ngparams || ia.connectivity)
      return usage_error(cmd, "--robot-runners FILE gives the map and the agents (on 4 moves): "
                              "leave out --map, --scen, --generator, --generator-param, --agents, "
                              "--problem and --connectivity");
    if (export_path)
      return usage_error(cmd, "--export-scen: a .scen file cannot hold a Robot Runners "
                              "problem's task list");
    if (!have_steps) limits.steps = RR_STEPS;
  }
  if (!algo_name && limits.steps > 0)
    return usage_error(cmd, "--algo NAME is required (or --steps 0: no run)");
  int auto_pick = algo_name && strcmp(algo_name, "auto") == 0;
  if (auto_pick && !model_path) return usage_error(cmd, "--algo auto needs --model MODEL");
  if (model_path && !auto_pick) return usage_error(cmd, "--model is for --algo auto");
  map_dirs_env(&md);

  const mapf_algo_def *def = NULL;
  mapf_params pv;
  farm_sel_model *model = NULL;
  char auto_params[64][400];
  if (algo_name && !auto_pick) {
    def = mapf_algo_find(algo_name);
    if (!def) {
      const char *names[32];
      int32_t k = 0;
      for (; k < mapf_algo_count() && k < 32; k++) names[k] = mapf_algo_at(k)->name;
      const char *s = farm_suggest(algo_name, names, k);
      free(md.env);
      return input_error(cmd, "--algo: unknown algorithm \"%s\"%s%s%s (mapfarm algorithms lists "
                         "them)", algo_name, s ? "; did you mean \"" : "", s ? s : "",
                         s ? "\"?" : "");
    }
    int e = parse_param_opts(cmd, def, params, nparams, "--param", &pv, lists);
    if (e) {
      free(md.env);
      return e;
    }
    if (def->program && rr_path) {
      free(md.env);
      return input_error(cmd, "--robot-runners: algorithm %s runs a program that plans a "
                         "one-shot problem once and cannot take lifelong tasks; every built-in "
                         "algorithm can (mapfarm algorithms)", def->name);
    }
    if (def->program && limits.steps > 0) {
      /* As a plan checks it (farm/plan_algos.c): a limit to kill the program at, and a program
       * that is there to run. */
      mapf_diag d = {0};
      char hash[33];
      if (!(limits.seconds > 0)) {
        free(md.env);
        return usage_error(cmd, "--seconds S is required: algorithm %s runs a program, which is "
                           "killed at the wall-clock limit", def->name);
      }
      if (mapf_external_hash(pv.text[mapf_param_index(def, def->program)], hash, &d) != MAPF_OK) {
        free(md.env);
        return input_error(cmd, "--param %s: %s", def->program, d.msg);
      }
    }
    if (execution == MAPF_EXEC_JOINT && !def->joint) {
      free(md.env);
      return usage_error(cmd, "--execution joint: %s plans each agent on its own and runs under "
                         "chains or single-pass (joint is for planners that move all agents "
                         "together: mapfarm algorithms)", def->name);
    }
  }

  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  if ((events.retask_every || events.doors_every) && events_path)
    return usage_error(cmd, "--events excludes --retask and --doors: the file holds the events");
  if (events.lifelong && events.retask_every)
    return usage_error(cmd, "--lifelong: goals come from the task sequence; not with --retask");
  if (rr_path && (events.retask_every || events.doors_every || events_path || events.lifelong))
    return usage_error(cmd, "--robot-runners: the problem's task list gives the goals; not with "
                            "--retask, --doors, --events or --lifelong");
  char rr_map[4096];
  int e = rr_path ? robot_runners_instance(rr_path, &md, &g, &inst, rr_map, sizeof rr_map)
                  : make_instance(cmd, &ia, &md, &g, &inst);
  if (e) {
    free(md.env);
    return e;
  }
  e = add_events(&events, events_path, g, inst, (uint64_t)ia.seed);
  if (e) {
    mapf_instance_free(inst);
    mapf_grid_free(g);
    free(md.env);
    return e;
  }
  if (auto_pick) {
    /* The selector chooses from the instance itself; the user's --param options follow the
     * label's, so they override them. */
    int na = 0;
    algo_name = auto_algo(model_path, g, inst, ia.generator ? ia.generator : "scen", &model,
                          auto_params, &na);
    const char *all[128];
    for (int i = 0; i < na; i++) all[i] = auto_params[i];
    for (int i = 0; i < nparams && na + i < 128; i++) all[na + i] = params[i];
    e = algo_name ? 0 : EXIT_BAD_INPUT;
    if (!e) {
      def = mapf_algo_find(algo_name);
      e = parse_param_opts(cmd, def, all, na + nparams, "--param", &pv, lists);
    }
    if (!e && execution == MAPF_EXEC_JOINT && !def->joint)
      e = usage_error(cmd, "--execution joint: the selector chose %s, which plans each agent on "
                      "its own", def->name);
    if (!e && def->program && rr_path)
      e = input_error(cmd, "--robot-runners: the selector chose %s, which cannot take lifelong "
                      "tasks", def->name);
    if (e) {
      farm_sel_model_free(model);
      mapf_instance_free(inst);
      mapf_grid_free(g);
      free(md.env);
      return e;
    }
  }
  farm_sel_model_free(model);
  model = NULL;
  const char *map_path = rr_path ? rr_map : ia.map_path;
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
    trace tr = {.g = g};
    FILE *trace_file = NULL;
    /* Opened before the run, so that a path that cannot be written fails at once. */
    if (trace_path && !(trace_file = fopen(trace_path, "w"))) {
      fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", trace_path, strerror(errno));
      mapf_instance_free(inst);
      mapf_grid_free(g);
      free(md.env);
      return EXIT_BAD_INPUT;
    }
    int tracing = trace_path || html_path;
    if (tracing && (!(tr.steps = open_memstream(&tr.steps_text, &tr.steps_len)) ||
                    !(tr.events = open_memstream(&tr.events_text, &tr.events_len)))) {
      fprintf(stderr, "mapfarm: error: out of memory\n");
      if (tr.steps) fclose(tr.steps);
      free(tr.steps_text);
      if (trace_file) fclose(trace_file);
      mapf_instance_free(inst);
      mapf_grid_free(g);
      free(md.env);
      return EXIT_FAILED_JOBS;
    }
    mapf_run_config cfg = {0};
    cfg.grid = g;
    cfg.inst = inst;
    cfg.algo = def;
    cfg.params = pv;
    cfg.limits = limits;
    cfg.execution = execution;
    cfg.seed = have_algo_seed ? algo_seed : mapf_mix64((uint64_t)ia.seed);
    cfg.on_step = tracing ? on_step : NULL;
    cfg.on_goal = tracing ? on_goal : NULL;
    cfg.on_cell = tracing ? on_cell : NULL;
    cfg.ud = &tr;
    mapf_workspace *ws = mapf_workspace_new();
    mapf_result res;
    mapf_diag d = {0};
    int rc = ws ? mapf_run(ws, &cfg, &res, &d) : MAPF_ENOMEM;
    mapf_workspace_free(ws);
    /* The trace file was opened before the run only so that a bad path fails at once. */
    if (trace_file) fclose(trace_file);
    if (tracing && rc == MAPF_OK) {
      char mapbuf[4096];
      int te = write_trace_outputs(&tr, inst, map_path,
                                   find_file(map_path, &md, mapbuf, sizeof mapbuf), g, def->name,
                                   &res, trace_path, html_path);
      if (te && !status) status = te;
    } else if (tracing) {
      fclose(tr.steps);
      fclose(tr.events);
      free(tr.steps_text);
      free(tr.events_text);
    }
    if (rc != MAPF_OK) {
      fprintf(stderr, "mapfarm: error: %s\n", ws ? res.message : "out of memory");
      status = EXIT_FAILED_JOBS;
    } else {
      char pj[512];
      mapf_params_json(def, &pv, pj, sizeof pj);
      /* events: only whether there were any, for the columns that print then. */
      farm_record rec = {.map = g->name, .agents = inst->n, .algorithm = def->name,
                         .params = pj, .seed = cfg.seed, .res = &res,
                         .execution = mapf_algo_execution(def, execution),
                         .events = inst->nretask > 0 || inst->nchange > 0 ? "" : NULL,
                         .lifelong = inst->lifelong};
      farm_columns_print(stdout, &rec);
      if (rr_path)
        printf("task_assignment: %s\ntasks_listed: %lld\n", mapf_task_rule_name(inst->task_rule),
               (long long)inst->ntask);
    }
    mapf_result_clear(&res);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
  free(md.env);
  return status;
}

static int cmd_solve(const farm_cli_cmd *cmd, int argc, char **argv) {
  char *lists[MAPF_MAX_PARAMS] = {0};
  int rc = solve_with(cmd, argc, argv, lists);
  for (int32_t i = 0; i < MAPF_MAX_PARAMS; i++) free(lists[i]);
  return rc;
}

/* `render`: an instance as the selector's input image (farm/image.h). */
static int cmd_render(const farm_cli_cmd *cmd, int argc, char **argv) {
  instance_args ia = {.seed = CLI_SEED, .problem = -1};
  const char *out_path = NULL, *v;
  long long size = FARM_IMAGE_SIDE;
  int native = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    int took = instance_opt(cmd, id, v, &ia, &md);
    if (took == EXIT_BAD_INPUT) return took;
    if (took) continue;
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_OUT:
      out_path = v;
      break;
    case O_SIZE:
      if (strcmp(v, "native") == 0) native = 1;
      else if (parse_long(v, 1, FARM_IMAGE_MAX_SIDE, &size) < 0)
        return usage_error(
            cmd, "--size: expected native or an integer in [1, %d], found \"%s\"",
            FARM_IMAGE_MAX_SIDE, v);
      break;
    }
  }
  if (!out_path) return usage_error(cmd, "--out FILE.png is required");
  map_dirs_env(&md);
  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  int e = make_instance(cmd, &ia, &md, &g, &inst);
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
static int cmd_dataset(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *out = NULL, *v;
  long long size = FARM_IMAGE_SIDE, seed = CLI_SEED;
  double train = DATASET_TRAIN;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_DB:
      db = v;
      break;
    case O_OUT:
      out = v;
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    case O_SIZE:
      if (parse_long(v, 1, FARM_IMAGE_MAX_SIDE, &size) < 0)
        return usage_error(cmd, "--size: expected an integer in [1, %d], found \"%s\"",
                           FARM_IMAGE_MAX_SIDE, v);
      break;
    case O_SEED:
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &seed) < 0)
        return usage_error(cmd, "--seed: expected an integer >= 0, found \"%s\"", v);
      break;
    case O_TRAIN:
      if (parse_double(v, 0, 1, &train) < 0)
        return usage_error(cmd, "--train: expected a fraction in [0, 1], found \"%s\"", v);
      break;
    }
  }
  if (!db) return usage_error(cmd, "--db FILE is required");
  if (!out) return usage_error(cmd, "--out DIR is required");
  farm_store *st = NULL;
  mapf_diag err = {0};
  if (open_readonly(db, &st, &err)) return EXIT_BAD_INPUT;
  map_dirs_env(&md);
  farm_dataset_opts o = {out, (int32_t)size, train, (uint64_t)seed, {md.dir, md.n}};
  farm_dataset_result res;
  int rc = farm_dataset_write(st, &o, &res, &err);
  farm_store_close(st);
  free(md.env);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    return EXIT_FAILED_JOBS;
  }
  printf("%s: %lld instances (%lld train, %lld test), %d labels\n", out,
         (long long)res.instances, (long long)res.train, (long long)res.test, (int)res.labels);
  for (int32_t l = 0; l < res.labels; l++)
    printf("  %s: %lld train, %lld test\n", res.per_label[l].label,
           (long long)res.per_label[l].train, (long long)res.per_label[l].test);
  farm_dataset_result_free(&res);
  return 0;
}

/* ---- mapfarm features ---------------------------------------------------------------- */

static int cmd_features(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *v;
  long long threads = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_DB:
      db = v;
      break;
    case O_THREADS:
      if (parse_long(v, 1, 4096, &threads) < 0)
        return usage_error(cmd, "--threads: expected an integer in [1, 4096], found \"%s\"", v);
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    }
  }
  if (!db) return usage_error(cmd, "--db FILE is required");
  map_dirs_env(&md);
  farm_features_opts o = {(int32_t)threads, {md.dir, md.n}};
  farm_features_summary sum;
  mapf_diag err = {0};
  int rc = farm_features_build(db, &o, &sum, &err);
  free(md.env);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s: %s\n", db, err.msg);
    return EXIT_BAD_INPUT;
  }
  printf("%s: features of %lld instances on %lld maps (maps %.2f s, instances %.2f s, %.3f ms "
         "per instance; written in %.2f s; CPU: %.3f s per map, %.3f ms per instance)\n",
         db, (long long)sum.instances, (long long)sum.maps, sum.map_seconds, sum.instance_seconds,
         sum.instances ? 1000.0 * sum.instance_seconds / (double)sum.instances : 0.0,
         sum.write_seconds, sum.maps ? sum.map_cpu_seconds / (double)sum.maps : 0.0,
         sum.instances ? 1000.0 * sum.instance_cpu_seconds / (double)sum.instances : 0.0);
  return 0;
}

/* ---- mapfarm select ------------------------------------------------------------------ */

/* Exit status of a selector command that failed: 2 (bad input: no features, no labels, a model
 * for other algorithms, a corrupt model, a build without XGBoost), as the other commands that
 * read a database. */
static int select_failed(const mapf_diag *err) {
  fprintf(stderr, "mapfarm: error: %s\n", err->msg);
  return EXIT_BAD_INPUT;
}

static int cmd_select(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *out = NULL, *model = NULL, *regret = NULL, *v;
  farm_sel_opts so = {FARM_SEL_COMPLETION, 1, 0, CLI_SEED};
  int protocol = FARM_SEL_WITHIN_MAPS, md_format = 0, have_folds = 0;
  long long folds = 0, n;
  instance_args ia = {.seed = CLI_SEED, .problem = -1};
  map_dirs md = {0};
  int predict = strcmp(cmd->name, "select predict") == 0;
  int eval = strcmp(cmd->name, "select eval") == 0;
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    if (predict) {
      int took = instance_opt(cmd, id, v, &ia, &md);
      if (took == EXIT_BAD_INPUT) return took;
      if (took) continue;
    }
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_DB:
      db = v;
      break;
    case O_OUT:
      out = v;
      break;
    case O_MODEL:
      model = v;
      break;
    case O_REGRET_CSV:
      regret = v;
      break;
    case O_OBJECTIVE: {
      int o = farm_sel_objective_parse(v);
      if (o < 0)
        return usage_error(cmd, "--objective: expected completion, steps or distance, found \"%s\"",
                           v);
      so.objective = (farm_sel_objective)o;
      break;
    }
    case O_PROTOCOL:
      protocol = farm_sel_protocol_parse(v);
      if (protocol < 0)
        return usage_error(cmd, "--protocol: expected within-maps, leave-map-out or "
                                "leave-type-out, found \"%s\"", v);
      break;
    case O_FOLDS:
      if (parse_long(v, 2, 100000, &folds) < 0)
        return usage_error(cmd, "--folds: expected an integer >= 2, found \"%s\"", v);
      have_folds = 1;
      break;
    case O_SEED:
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &n) < 0)
        return usage_error(cmd, "--seed: expected an integer >= 0, found \"%s\"", v);
      so.seed = (uint64_t)n;
      break;
    case O_THREADS:
      if (parse_long(v, 1, 4096, &n) < 0)
        return usage_error(cmd, "--threads: expected an integer in [1, 4096], found \"%s\"", v);
      so.threads = (int32_t)n;
      break;
    case O_FORMAT:
      if (strcmp(v, "text") == 0) md_format = 0;
      else if (strcmp(v, "md") == 0) md_format = 1;
      else return usage_error(cmd, "--format: expected text or md, found \"%s\"", v);
      break;
    }
  }
  if (!predict && !db) return usage_error(cmd, "--db FILE is required");
  if (!eval && !predict && !out) return usage_error(cmd, "--out MODEL is required");
  if (predict && !model) return usage_error(cmd, "--model MODEL is required");
  if (have_folds && protocol == FARM_SEL_LEAVE_TYPE_OUT)
    return usage_error(cmd, "--folds: leave-type-out holds out one problem type per fold");
  /* Checked after the options, so that a usage error reads the same in every build. */
  mapf_diag err = {0};
  if (!farm_select_available()) {
    farm_err(&err, FARM_SELECT_NO_XGBOOST);
    return select_failed(&err);
  }
  if (eval) {
    int rc = model ? farm_select_test(db, model, stdout, &err)
                   : farm_select_eval(db, (farm_sel_protocol)protocol, (int32_t)folds, &so,
                                      md_format, regret, stdout, &err);
    return rc < 0 ? select_failed(&err) : 0;
  }
  if (!predict) {
    int rc = farm_select_train(db, out, &so, stdout, &err);
    return rc < 0 ? select_failed(&err) : 0;
  }
  map_dirs_env(&md);
  farm_sel_model *m = NULL;
  if (farm_sel_model_load(model, &m, &err) < 0) {
    free(md.env);
    return select_failed(&err);
  }
  mapf_grid *g = NULL;
  mapf_instance *inst = NULL;
  int e = make_instance(cmd, &ia, &md, &g, &inst);
  free(md.env);
  if (e) {
    farm_sel_model_free(m);
    return e;
  }
  double probs[256];
  int32_t L = farm_sel_model_nlabels(m);
  int32_t c = L <= 256 ? farm_sel_model_predict(m, g, inst, ia.generator ? ia.generator : "scen",
                                                probs, &err)
                       : farm_err(&err, "the model has more than 256 labels");
  int rc = 0;
  if (c < 0) {
    rc = select_failed(&err);
  } else {
    printf("%s (algorithm %s, params %s)\n", farm_sel_model_label(m, c),
           farm_sel_model_algorithm(m, c), farm_sel_model_params(m, c));
    for (int32_t l = 0; l < L; l++)
      printf("  %-24s p = %.4f\n", farm_sel_model_label(m, l), probs[l]);
  }
  mapf_instance_free(inst);
  mapf_grid_free(g);
  farm_sel_model_free(m);
  return rc;
}

/* ---- mapfarm algorithms, generators and reports: the registries (farm/catalog.h) ---- */

/* Parses a command whose only options are flags (argv holds no positional argument); *flag
 * is set for option flag_id. Returns 0, or EXIT_BAD_INPUT after printing why. */
static int parse_flags(const farm_cli_cmd *cmd, int argc, char **argv, int flag_id, int *flag) {
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  const char *v;
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    if (id == FARM_CLI_ERROR) return usage_error(cmd, "%s", p.msg);
    if (id == FARM_CLI_ARG) return usage_error(cmd, "unexpected argument \"%s\"", v);
    if (id == flag_id) *flag = 1;
  }
  return 0;
}

static int cmd_algorithms(const farm_cli_cmd *cmd, int argc, char **argv) {
  int markdown = 0;
  int e = parse_flags(cmd, argc, argv, O_MARKDOWN, &markdown);
  if (e) return e;
  if (markdown)
    farm_catalog_algorithms_markdown(stdout);
  else
    farm_catalog_algorithms(stdout);
  return 0;
}

/* A listing that takes no options. */
static int print_listing(const farm_cli_cmd *cmd, int argc, char **argv, void (*print)(FILE *)) {
  int unused = 0;
  int e = parse_flags(cmd, argc, argv, 0, &unused);
  if (e) return e;
  print(stdout);
  return 0;
}

static int cmd_generators(const farm_cli_cmd *cmd, int argc, char **argv) {
  return print_listing(cmd, argc, argv, farm_catalog_generators);
}

static int cmd_reports(const farm_cli_cmd *cmd, int argc, char **argv) {
  return print_listing(cmd, argc, argv, farm_catalog_reports);
}

/* ---- mapfarm merge ------------------------------------------------------------------- */

static int cmd_merge(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *out = NULL, *v;
  const char **ins = calloc((size_t)argc, sizeof *ins);
  int32_t nin = 0;
  if (!ins) {
    fprintf(stderr, "mapfarm: error: out of memory\n");
    return EXIT_FAILED_JOBS;
  }
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    if (id == FARM_CLI_ERROR) {
      free(ins);
      return usage_error(cmd, "%s", p.msg);
    }
    if (!out) out = v;
    else ins[nin++] = v;
  }
  if (!out || nin == 0) {
    free(ins);
    return usage_error(cmd, "expected an output database and at least one input");
  }
  farm_merge_result res;
  mapf_diag err = {0};
  int rc = farm_merge(out, ins, nin, &res, &err);
  free(ins);
  if (res.note[0]) fprintf(stderr, "mapfarm: note: %s\n", res.note);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
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
static int open_db_arg(const farm_cli_cmd *cmd, int argc, char **argv, farm_store **st) {
  const char *db = NULL, *v;
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    if (id == FARM_CLI_ERROR) return usage_error(cmd, "%s", p.msg);
    if (id == FARM_CLI_ARG) return usage_error(cmd, "unexpected argument \"%s\"", v);
    if (id == O_DB) db = v;
  }
  if (!db) return usage_error(cmd, "--db FILE is required");
  mapf_diag err = {0};
  return open_readonly(db, st, &err);
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

static int cmd_status(const farm_cli_cmd *cmd, int argc, char **argv) {
  farm_store *st = NULL;
  int rc = open_db_arg(cmd, argc, argv, &st);
  if (rc != 0) return rc;
  farm_status s;
  mapf_diag err = {0};
  if (farm_status_read(st, &s, &err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
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

static int cmd_runs(const farm_cli_cmd *cmd, int argc, char **argv) {
  farm_store *st = NULL;
  int rc = open_db_arg(cmd, argc, argv, &st);
  if (rc != 0) return rc;
  farm_run_row *rows = NULL;
  int32_t n = 0;
  mapf_diag err = {0};
  if (farm_runs_list(st, &rows, &n, &err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
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

/* g as the text of a MovingAI .map file ('.' passable, '@' blocked); malloc'd, or NULL. */
static char *grid_text(const mapf_grid *g) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return NULL;
  fprintf(f, "type octile\nheight %d\nwidth %d\nmap\n", (int)g->height, (int)g->width);
  for (int32_t y = 0; y < g->height; y++) {
    for (int32_t x = 0; x < g->width; x++) fputc(g->passable[mapf_grid_id(g, x, y)] ? '.' : '@', f);
    fputc('\n', f);
  }
  if (fclose(f) != 0) {
    free(text);
    return NULL;
  }
  return text;
}

/* Writes the trace of a run recorded in tr (trace_text) to trace_path and/or the viewer page to
 * html_path, as `solve` does. Returns 0, or EXIT_BAD_INPUT after printing why. */
static int write_trace_outputs(trace *tr, const mapf_instance *inst, const char *map_path,
                               const char *map_file, const mapf_grid *g, const char *solver,
                               const mapf_result *res, const char *trace_path,
                               const char *html_path) {
  int ok = fclose(tr->steps) == 0;
  ok &= fclose(tr->events) == 0;
  char *text = ok ? trace_text(tr, inst, map_path, solver, res) : NULL;
  free(tr->steps_text);
  free(tr->events_text);
  if (!text) {
    fprintf(stderr, "mapfarm: error: out of memory writing the trace\n");
    return EXIT_FAILED_JOBS;
  }
  int status = 0;
  if (trace_path) {
    FILE *f = fopen(trace_path, "w");
    int bad = !f || fputs(text, f) < 0;
    if (f && fclose(f) != 0) bad = 1;
    if (bad) {
      fprintf(stderr, "mapfarm: error: %s: cannot write: %s\n", trace_path, strerror(errno));
      status = EXIT_BAD_INPUT;
    }
  }
  if (html_path) {
    char title[600];
    const char *base = strrchr(map_path, '/');
    snprintf(title, sizeof title, "%s: %s, %d agents", base ? base + 1 : map_path, solver,
             (int)inst->n);
    const char *trace_name = trace_path ? strrchr(trace_path, '/') : NULL;
    trace_name = trace_name ? trace_name + 1 : trace_path;
    mapf_diag herr = {0};
    int bad;
    if (map_file) {
      bad = farm_html_save(html_path, title, map_file, trace_name, text, &herr) < 0;
    } else {
      /* A generated map has no file: the page gets its text. */
      char *mt = grid_text(g);
      FILE *f = mt ? fopen(html_path, "w") : NULL;
      bad = !f || farm_html_write(f, title, mt, text, &herr) < 0;
      if (f && fclose(f) != 0) bad = 1;
      if (bad && !herr.msg[0]) farm_err(&herr, "%s: cannot write: %s", html_path, strerror(errno));
      free(mt);
    }
    if (bad) {
      fprintf(stderr, "mapfarm: error: %s\n", herr.msg);
      status = EXIT_BAD_INPUT;
    }
  }
  free(text);
  return status;
}


/* `run --traces DIR`: the trace of each job of this plan (and shard) stored in the database that
 * matches `where`, as DIR/KEY.trace.gz (gzip; the format of `solve --trace`). A trace is made
 * by running the job again after the run, which gives the stored result exactly for every
 * limit but `seconds` (farm/replay.h); a trace already in DIR is kept, so a rerun of the command
 * adds only the missing ones. Returns 0, or an exit status after printing why. */
static int write_run_traces(farm_space *sp, farm_store *st, const char *dir, const char *where) {
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    fprintf(stderr, "mapfarm: error: %s: cannot create: %s\n", dir, strerror(errno));
    return EXIT_BAD_INPUT;
  }
  char *sql = NULL;
  size_t len = 0;
  FILE *q = open_memstream(&sql, &len);
  if (!q) return EXIT_FAILED_JOBS;
  fprintf(q, "SELECT job_key, plan_index FROM results WHERE (%s\n) ORDER BY plan_index",
          where ? where : "1");
  fclose(q);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(farm_store_db(st), sql, -1, &s, NULL) != SQLITE_OK) {
    fprintf(stderr, "mapfarm: error: --trace-where \"%s\": %s\n", where ? where : "",
            sqlite3_errmsg(farm_store_db(st)));
    free(sql);
    return EXIT_BAD_INPUT;
  }
  free(sql);
  int status = 0;
  int64_t written = 0, kept = 0;
  mapf_workspace *ws = mapf_workspace_new();
  while (ws && status == 0 && sqlite3_step(s) == SQLITE_ROW) {
    const char *key = (const char *)sqlite3_column_text(s, 0);
    int64_t index = sqlite3_column_int64(s, 1);
    /* Rows of other plans in the same database are not this plan's jobs. */
    if (!key || index < 0 || index >= sp->njobs) continue;
    farm_job j;
    farm_space_job(sp, index, &j);
    if (strcmp(j.key_hex, key) != 0) continue;
    char path[4200];
    snprintf(path, sizeof path, "%s/%s.trace.gz", dir, key);
    if (access(path, F_OK) == 0) {
      kept++;
      continue;
    }
    trace tr = {.g = sp->grids[j.map]};
    mapf_result res;
    mapf_instance *inst = NULL;
    mapf_diag d = {0};
    if (!(tr.steps = open_memstream(&tr.steps_text, &tr.steps_len)) ||
        !(tr.events = open_memstream(&tr.events_text, &tr.events_len))) {
      status = EXIT_FAILED_JOBS;
      break;
    }
    farm_run_job(sp, ws, &j, &res, on_step, on_goal, on_cell, &tr);
    fclose(tr.steps);
    fclose(tr.events);
    char *text = NULL;
    const farm_map_spec *ms = &sp->plan->maps[j.map];
    if (farm_job_instance(sp, &j, &inst, &d) == MAPF_OK)
      text = trace_text(&tr, inst, ms->source ? ms->source : tr.g->name,
                        sp->plan->algos[j.algo].def->name, &res);
    free(tr.steps_text);
    free(tr.events_text);
    mapf_instance_free(inst);
    mapf_result_clear(&res);
    if (!text) {
      fprintf(stderr, "mapfarm: error: job %s: cannot make its trace: %s\n", key,
              d.msg[0] ? d.msg : "out of memory");
      status = EXIT_FAILED_JOBS;
      break;
    }
    /* Written to PATH.tmp and renamed: a trace in DIR is always whole. */
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    gzFile gz = gzopen(tmp, "wb");
    int ok = gz && gzputs(gz, text) >= 0;
    if (gz && gzclose(gz) != Z_OK) ok = 0;
    free(text);
    if (!ok || rename(tmp, path) != 0) {
      fprintf(stderr, "mapfarm: error: %s: cannot write\n", path);
      remove(tmp);
      status = EXIT_BAD_INPUT;
      break;
    }
    written++;
  }
  sqlite3_finalize(s);
  mapf_workspace_free(ws);
  if (status == 0)
    fprintf(stderr, "traces: %lld written to %s, %lld already there\n", (long long)written, dir,
            (long long)kept);
  return status;
}

/* `replay`: a stored job run again from the plan text of its run (farm/replay.h): prints the
 * rerun's results as `solve` does, then whether every deterministic column is identical to the
 * stored row, or which differ (exit 1). */
static int cmd_replay(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *db = NULL, *key = NULL, *trace_path = NULL, *html_path = NULL, *v;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      if (key) return usage_error(cmd, "unexpected argument \"%s\"", v);
      key = v;
      break;
    case O_DB:
      db = v;
      break;
    case O_TRACE:
      trace_path = v;
      break;
    case O_HTML:
      html_path = v;
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    }
  }
  if (!key) return usage_error(cmd, "JOB_KEY is required (results.job_key)");
  if (!db) return usage_error(cmd, "--db FILE is required");
  size_t klen = strlen(key);
  if (klen != 32 || strspn(key, "0123456789abcdef") != 32)
    return usage_error(cmd, "JOB_KEY: expected 32 lowercase hex digits, found \"%s\"", key);
  map_dirs_env(&md);
  mapf_diag err = {0};
  farm_store *st = NULL;
  if (open_readonly(db, &st, &err)) {
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  farm_plan_opts po = {(const char *const *)md.dir, md.n};
  trace tr = {0};
  int tracing = trace_path || html_path;
  if (tracing && (!(tr.steps = open_memstream(&tr.steps_text, &tr.steps_len)) ||
                  !(tr.events = open_memstream(&tr.events_text, &tr.events_len)))) {
    fprintf(stderr, "mapfarm: error: out of memory\n");
    farm_store_close(st);
    free(md.env);
    return EXIT_FAILED_JOBS;
  }
  farm_replay rp;
  int rc = farm_replay_open(farm_store_db(st), key, &po, &rp, &err);
  if (rc == 0) {
    tr.g = rp.sp.grids[rp.job.map];
    rc = farm_replay_run(farm_store_db(st), &rp, tracing ? on_step : NULL,
                         tracing ? on_goal : NULL, tracing ? on_cell : NULL, &tr, &err);
    if (rc < 0) farm_replay_free(&rp);
  }
  farm_store_close(st);
  if (rc < 0) {
    fprintf(stderr, "mapfarm: error: %s: %s\n", db, err.msg);
    if (tracing) {
      fclose(tr.steps);
      fclose(tr.events);
      free(tr.steps_text);
      free(tr.events_text);
    }
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  farm_record rec;
  farm_job_record(&rp.sp, &rp.job, rp.label, rp.params, &rp.res, &rec);
  farm_columns_print(stdout, &rec);
  int status = 0;
  if (rp.ndiffs == 0) {
    printf("identical to the stored result (every deterministic column)\n");
  } else {
    printf("%d column%s differ%s from the stored result:\n", (int)rp.ndiffs,
           rp.ndiffs == 1 ? "" : "s", rp.ndiffs == 1 ? "s" : "");
    for (int32_t i = 0; i < rp.ndiffs && i < FARM_REPLAY_MAX_DIFFS; i++)
      printf("  %s\n", rp.diff[i]);
    if (rp.limit_seconds > 0)
      printf("(this job ran under a wall-clock limit of %g s, which no rerun reproduces "
             "exactly)\n",
             rp.limit_seconds);
    status = EXIT_FAILED_JOBS;
  }
  if (tracing) {
    mapf_instance *inst = NULL;
    mapf_diag d = {0};
    const farm_map_spec *ms = &rp.plan->maps[rp.job.map];
    if (farm_job_instance(&rp.sp, &rp.job, &inst, &d) != MAPF_OK) {
      fprintf(stderr, "mapfarm: error: %s\n", d.msg);
      status = EXIT_FAILED_JOBS;
    } else {
      int e = write_trace_outputs(&tr, inst, rec.map, ms->path, rp.sp.grids[rp.job.map],
                                  rp.plan->algos[rp.job.algo].def->name, &rp.res, trace_path,
                                  html_path);
      if (e && !status) status = e;
      mapf_instance_free(inst);
    }
  }
  farm_replay_free(&rp);
  free(md.env);
  return status;
}

/* "N[,N...]" (at most 64 integers in [1, max]) into counts. Returns how many, or -1. */
static int parse_counts(const char *arg, long long max, long long counts[64]) {
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) return -1;
  int n = 0;
  for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
    if (n == 64 || parse_long(tok, 1, max, &counts[n]) < 0) return -1;
    n++;
  }
  return n > 0 ? n : -1;
}

/* `calibrate`: each algorithm's work model (core/algo.h) measured on this machine. The runs are
 * paired: every instance runs every algorithm before the next instance, so a machine that
 * changes speed during the measurement changes every algorithm's figures alike. Prints, per
 * algorithm, the built-in and the fitted weights with their ratio, and how well each tracks
 * the runs' CPU seconds (correlation, median charged / measured). */
static int cmd_calibrate(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *map_path = NULL, *algo_name = NULL, *agents_arg = CALIBRATE_AGENTS, *v;
  long long steps = CALIBRATE_STEPS, instances = CALIBRATE_INSTANCES;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_MAP:
      map_path = v;
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    case O_AGENTS:
      agents_arg = v;
      break;
    case O_ALGO:
      algo_name = v;
      break;
    case O_STEPS:
      if (parse_long(v, 1, 100000000, &steps) < 0)
        return usage_error(cmd, "--steps: expected an integer >= 1, found \"%s\"", v);
      break;
    case O_INSTANCES:
      if (parse_long(v, 1, 1000, &instances) < 0)
        return usage_error(cmd, "--instances: expected an integer in [1, 1000], found \"%s\"", v);
      break;
    }
  }
  long long counts[64];
  int ncounts = parse_counts(agents_arg, 100000, counts);
  if (ncounts < 0)
    return usage_error(cmd, "--agents: expected integers >= 1 separated by commas, found \"%s\"",
                       agents_arg);
  const mapf_algo_def *algos[32];
  int32_t nalgos = 0;
  for (int32_t i = 0; i < mapf_algo_count() && nalgos < 32; i++) {
    const mapf_algo_def *a = mapf_algo_at(i);
    if (algo_name ? strcmp(a->name, algo_name) == 0 : mapf_work_model_set(&a->work))
      algos[nalgos++] = a;
  }
  if (nalgos == 0)
    return input_error(cmd, "--algo: unknown algorithm \"%s\" (mapfarm algorithms lists them)",
                       algo_name);
  map_dirs_env(&md);
  mapf_grid *g = NULL;
  mapf_diag d = {0};
  int rc;
  if (map_path) {
    char pathbuf[4096];
    rc = mapf_grid_load(find_file(map_path, &md, pathbuf, sizeof pathbuf), &g, &d);
  } else {
    mapf_mapgen_params mp;
    mapf_mapgen_defaults(&mp, MAPF_MAPGEN_RANDOM);
    mp.width = mp.height = 128;
    mp.density = 0.2;
    mp.seed = 1;
    rc = mapf_mapgen(&mp, &g, &d);
  }
  free(md.env);
  if (rc != MAPF_OK) {
    print_diag(&d);
    return EXIT_BAD_INPUT;
  }
  int32_t per = ncounts * (int32_t)instances;
  farm_bench_sim *runs = calloc((size_t)nalgos * (size_t)per, sizeof *runs);
  if (!runs) {
    mapf_grid_free(g);
    fprintf(stderr, "mapfarm: error: out of memory\n");
    return EXIT_FAILED_JOBS;
  }
  printf("map %s, agents %s, %lld instances each, at most %lld steps; CPU seconds per run after "
         "its set-up\n",
         g->name, agents_arg, instances, steps);
  int status = 0;
  for (int32_t c = 0; c < ncounts && status == 0; c++)
    for (int32_t k = 0; k < instances && status == 0; k++)
      for (int32_t a = 0; a < nalgos && status == 0; a++) {
        /* Without the lower bounds: metrics after the last step, not charged by the model. */
        farm_bench_sim_opts o = {algos[a], (int32_t)counts[c], steps, (uint64_t)k + 1, 1};
        if (farm_bench_sim_run(g, &o, &runs[a * per + c * instances + k], &d) != MAPF_OK) {
          fprintf(stderr, "mapfarm: error: %s, %lld agents: %s\n", algos[a]->name, counts[c],
                  d.msg);
          status = EXIT_FAILED_JOBS;
        }
      }
  if (status == 0) {
    printf("%-13s %9s %9s %6s %9s %9s %6s %5s %7s %7s %7s %7s\n", "algorithm", "exp_ns",
           "measured", "ratio", "step_ns", "measured", "ratio", "runs", "r_built", "r_fit",
           "x_built", "x_fit");
    for (int32_t a = 0; a < nalgos; a++) {
      const mapf_work_model *w = &algos[a]->work;
      farm_calibration cal;
      farm_calibrate_fit(&runs[a * per], per, w, &cal);
      printf("%-13s %9.1f %9.1f %6.2f %9.1f %9.1f %6.2f %5d %7.3f %7.3f %7.2f %7.2f\n",
             algos[a]->name, w->expansion_ns, cal.fitted.expansion_ns,
             w->expansion_ns > 0 ? cal.fitted.expansion_ns / w->expansion_ns : NAN,
             w->agent_step_ns, cal.fitted.agent_step_ns,
             w->agent_step_ns > 0 ? cal.fitted.agent_step_ns / w->agent_step_ns : NAN,
             (int)cal.runs, cal.r_builtin, cal.r_fitted, cal.ratio_builtin, cal.ratio_fitted);
    }
    printf("ratio: measured / built-in weight; r: correlation of charged and measured seconds "
           "over the runs;\nx: median of charged / measured seconds (1: the model charges what "
           "the runs took here)\n");
  }
  free(runs);
  mapf_grid_free(g);
  return status;
}

/* `bench astar`: every query of a scenario file, search time only. `bench sim`: agent-steps per
 * second of every multi-agent algorithm of the registry (or --algo) on random instances, one
 * run per agent count, in the order given (peak RSS is the process's, so list counts
 * ascending). Figures come from farm/bench.c; exit status 1 when a cost is wrong. */
static int cmd_bench(const farm_cli_cmd *cmd, int argc, char **argv) {
  int astar = strcmp(cmd->name, "bench astar") == 0, sim = !astar;
  const char *map_path = NULL, *scen_path = NULL, *algo_name = NULL, *v;
  const char *agents_arg = BENCH_AGENTS;
  long long steps = BENCH_STEPS, seed = CLI_SEED, connectivity = 8;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      return usage_error(cmd, "unexpected argument \"%s\"", v);
    case O_MAP:
      map_path = v;
      break;
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    case O_SCEN:
      scen_path = v;
      break;
    case O_AGENTS:
      agents_arg = v;
      break;
    case O_ALGO:
      algo_name = v;
      break;
    case O_STEPS:
      if (parse_long(v, 1, 0x7fffffffffffffffLL, &steps) < 0)
        return usage_error(cmd, "--steps: expected an integer >= 1, found \"%s\"", v);
      break;
    case O_SEED:
      if (parse_long(v, 0, 0x7fffffffffffffffLL, &seed) < 0)
        return usage_error(cmd, "--seed: expected an integer >= 0, found \"%s\"", v);
      break;
    case O_CONNECTIVITY:
      if (connectivity_opt(cmd, v, &connectivity)) return EXIT_BAD_INPUT;
      break;
    }
  }
  if (!map_path) return usage_error(cmd, "--map MAP is required");
  if (astar && !scen_path) return usage_error(cmd, "--scen FILE is required");
  long long counts[64];
  int ncounts = sim ? parse_counts(agents_arg, 100000000, counts) : 0;
  if (ncounts < 0)
    return usage_error(cmd, "--agents: expected integers >= 1 separated by commas, found \"%s\"",
                       agents_arg);
  const mapf_algo_def *only = NULL;
  if (algo_name && !(only = mapf_algo_find(algo_name))) {
    return input_error(cmd, "--algo: unknown algorithm \"%s\" (mapfarm algorithms lists them)",
                       algo_name);
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
  if (mapf_grid_set_connectivity(g, (int)connectivity) != MAPF_OK) {
    mapf_grid_free(g);
    free(md.env);
    return input_error(cmd, "out of memory");
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
      /* A program's command has no default to bench (external): solve or a plan runs it. */
      if (!only && def->program) continue;
      for (int c = 0; c < ncounts && status == 0; c++) {
        farm_bench_sim_opts o = {def, (int32_t)counts[c], steps, (uint64_t)seed, 0};
        farm_bench_sim r;
        if (farm_bench_sim_run(g, &o, &r, &d) != MAPF_OK) {
          print_diag(&d);
          status = EXIT_FAILED_JOBS;
          break;
        }
        double ns = r.agent_steps ? r.seconds * 1e9 / (double)r.agent_steps : 0.0;
        double ns_steps =
            r.agent_steps ? (r.seconds - r.setup_seconds) * 1e9 / (double)r.agent_steps : 0.0;
        printf("algo=%s map=%s agents=%d steps=%lld agent_steps=%lld ms=%.1f "
               "ns_per_agent_step=%.1f agent_steps_per_s=%.0f expansions=%lld completed=%d "
               "peak_rss_mib=%.1f setup_ms=%.1f ns_per_agent_step_after_setup=%.1f "
               "kernel_ms=%.1f\n",
               def->name, g->name, (int)counts[c], (long long)r.steps, (long long)r.agent_steps,
               r.seconds * 1e3, ns, ns > 0 ? 1e9 / ns : 0.0, (long long)r.expansions,
               (int)r.completed, (double)r.peak_rss_kib / 1024.0, r.setup_seconds * 1e3,
               ns_steps, r.kernel_seconds * 1e3);
        fflush(stdout);
      }
    }
  }
  mapf_grid_free(g);
  free(md.env);
  return status;
}

/* `bench farm`: a plan's pending jobs through the pool, as `run` runs them, or with --discard
 * run and dropped (the compute-only rate, docs/performance.md). Prints one line of figures;
 * writer_cpu_s is the CPU time of the writes, so 1e6 / writer_us_per_job is the rate that the
 * one writer sustains alone, on any number of cores. A database that holds rows already gives
 * the writer's cost at that size. */
static int cmd_bench_farm(const farm_cli_cmd *cmd, int argc, char **argv) {
  const char *plan_path = NULL, *db = NULL, *v;
  long long threads = 0, si = 1, sn = 1;
  int discard = 0;
  double commit = 0;
  map_dirs md = {0};
  farm_cli p;
  farm_cli_begin(&p, cmd, argc, argv);
  for (int id; (id = farm_cli_next(&p, &v)) != FARM_CLI_END;) {
    switch (id) {
    case FARM_CLI_ERROR:
      return usage_error(cmd, "%s", p.msg);
    case FARM_CLI_ARG:
      if (plan_path) return usage_error(cmd, "unexpected argument \"%s\"", v);
      plan_path = v;
      break;
    case O_DB:
      db = v;
      break;
    case O_DISCARD:
      discard = 1;
      break;
    case O_THREADS:
      if (parse_long(v, 1, 4096, &threads) < 0)
        return usage_error(cmd, "--threads: expected an integer in [1, 4096], found \"%s\"", v);
      break;
    case O_SHARD:
      if (parse_shard(v, &si, &sn) < 0)
        return usage_error(cmd, "--shard: expected I/N with 1 <= I <= N, found \"%s\"", v);
      break;
    case O_COMMIT: {
      char *end;
      commit = strtod(v, &end);
      if (end == v || *end || !(commit > 0 && commit <= 3600))
        return usage_error(cmd, "--commit: expected seconds in (0, 3600], found \"%s\"", v);
      break;
    }
    case O_MAPS:
      map_dirs_add(&md, v);
      break;
    }
  }
  if (!plan_path) return usage_error(cmd, "PLAN.yaml is required");
  if (!db == !discard) return usage_error(cmd, "give one of --db FILE and --discard");
  map_dirs_env(&md);
  farm_plan *plan = NULL;
  farm_space sp = {0};
  if (load_plan(plan_path, &md, &plan, &sp) < 0) {
    free(md.env);
    return EXIT_BAD_INPUT;
  }
  mapf_diag err = {0};
  farm_store *st = NULL;
  int status = 0;
  if (db && farm_store_open(db, FARM_STORE_CREATE | FARM_STORE_DEFER_INDEXES, &st, &err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    status = EXIT_BAD_INPUT;
  }
  farm_run_opts ro = {0};
  ro.threads = (int32_t)threads;
  ro.shard_index = (int32_t)si;
  ro.shard_count = (int32_t)sn;
  ro.discard = discard;
  ro.flush_seconds = commit;
  farm_run_summary sum;
  if (!status && farm_run(&sp, st, &ro, &sum, &err) < 0) {
    fprintf(stderr, "mapfarm: error: %s\n", err.msg);
    status = EXIT_FAILED_JOBS;
  }
  if (!status) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("mode=%s threads=%d jobs=%lld seconds=%.3f jobs_per_s=%.0f",
           discard ? "discard" : "store",
           threads > 0 ? (int)threads : omp_get_max_threads(), (long long)sum.done, sum.seconds,
           sum.seconds > 0 ? (double)sum.done / sum.seconds : 0.0);
    double us = sum.done > 0 ? sum.writer_seconds * 1e6 / (double)sum.done : 0.0;
    if (!discard)
      printf(" writer_cpu_s=%.3f writer_us_per_job=%.2f writer_alone_jobs_per_s=%.0f "
             "index_build_s=%.3f",
             sum.writer_seconds, us, us > 0 ? 1e6 / us : 0.0, sum.index_seconds);
    printf(" peak_rss_mib=%.1f\n", (double)ru.ru_maxrss / 1024.0);
  }
  farm_store_close(st);
  farm_space_free(&sp);
  farm_plan_free(plan);
  free(md.env);
  return status;
}

/* ---- dispatch ------------------------------------------------------------------------ */

static int cmd_version(const farm_cli_cmd *cmd, int argc, char **argv) {
  int unused = 0;
  int e = parse_flags(cmd, argc, argv, 0, &unused);
  if (e) return e;
  printf("mapfarm %s (%s)\n", MAPFARM_VERSION, MAPFARM_GIT);
  return 0;
}

/* The commands whose name is word, or starts with word and a space ("bench" for "bench
 * astar" and "bench sim"): prints the help of each to out. Returns how many. */
static int help_for(FILE *out, const char *word) {
  int n = 0;
  size_t len = strlen(word);
  for (int32_t i = 0; i < NCOMMANDS; i++) {
    const char *name = commands[i].name;
    if (strncmp(name, word, len) != 0 || (name[len] != '\0' && name[len] != ' ')) continue;
    if (n++) fputc('\n', out);
    farm_cli_help(out, &commands[i]);
  }
  return n;
}

static int cmd_help(const farm_cli_cmd *cmd, int argc, char **argv) {
  if (argc > 3) return usage_error(cmd, "expected at most one COMMAND");
  if (argc < 2) {
    farm_cli_overview(stdout, commands, NCOMMANDS);
    return 0;
  }
  char word[128];
  snprintf(word, sizeof word, "%s%s%s", argv[1], argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
  if (help_for(stdout, word) > 0) return 0;
  return usage_error(cmd, "unknown command \"%s\"", word);
}

/* The command whose first word is nearest to word ("did you mean"), or NULL. */
static const farm_cli_cmd *suggest_command(const char *word) {
  const char *names[NCOMMANDS];
  char firsts[NCOMMANDS][32];
  for (int32_t i = 0; i < NCOMMANDS; i++) {
    snprintf(firsts[i], sizeof firsts[i], "%.*s", (int)strcspn(commands[i].name, " "),
             commands[i].name);
    names[i] = firsts[i];
  }
  const char *s = farm_suggest(word, names, NCOMMANDS);
  for (int32_t i = 0; s && i < NCOMMANDS; i++)
    if (names[i] == s) return &commands[i];
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    farm_cli_overview(stderr, commands, NCOMMANDS);
    return EXIT_BAD_INPUT;
  }
  const char *word = argv[1];
  if (strcmp(word, "--version") == 0) word = "version";
  if (strcmp(word, "--help") == 0 || strcmp(word, "-h") == 0) word = "help";
  /* A command of two words ("bench sim") takes the second from argv[2]. */
  int words = 0, prefix = 0;
  const farm_cli_cmd *cmd = NULL;
  size_t len = strlen(word);
  for (int32_t i = 0; i < NCOMMANDS && !cmd; i++) {
    const char *name = commands[i].name;
    if (strcmp(name, word) == 0) {
      cmd = &commands[i];
      words = 1;
    } else if (strncmp(name, word, len) == 0 && name[len] == ' ') {
      prefix = 1;
      if (argc > 2 && strcmp(name + len + 1, argv[2]) == 0) {
        cmd = &commands[i];
        words = 2;
      }
    }
  }
  if (!cmd && prefix) {
    /* "bench" alone, or with an unknown subcommand: its commands' usage (help when asked). */
    if (farm_cli_wants_help(argc - 1, argv + 1)) {
      help_for(stdout, word);
      return 0;
    }
    if (argc > 2)
      fprintf(stderr, "mapfarm %s: error: unknown subcommand \"%s\"\n", word, argv[2]);
    else
      fprintf(stderr, "mapfarm %s: error: a subcommand is required\n", word);
    for (int32_t i = 0; i < NCOMMANDS; i++)
      if (strncmp(commands[i].name, word, len) == 0 && commands[i].name[len] == ' ')
        farm_cli_usage(stderr, &commands[i]);
    return EXIT_BAD_INPUT;
  }
  if (!cmd) {
    const farm_cli_cmd *near = suggest_command(word);
    const char *s = near ? near->name : "";
    fprintf(stderr, "mapfarm: error: unknown command \"%s\"%s%.*s%s; `mapfarm help` lists the "
            "commands\n", word, near ? " (did you mean \"" : "", (int)strcspn(s, " "), s,
            near ? "\"?)" : "");
    return EXIT_BAD_INPUT;
  }
  /* `mapfarm CMD --help` (anywhere before "--"): that command's help alone. */
  if (farm_cli_wants_help(argc - words, argv + words)) {
    farm_cli_help(stdout, cmd);
    return 0;
  }
  return cmd->run(cmd, argc - words, argv + words);
}
