/* labels.c: the configurations behind each label of a results database (labels.h).
 *
 * One query groups the jobs that pass a report's filter by configuration key, a JSON array of
 * the label and everything that makes the configuration (algorithm, parameters, limits,
 * execution); the rest is done here. A label's configurations are compared field by field:
 * the fixed fields as text, the parameters pair by pair from their canonical JSON (every key
 * and value as mapf_params_json writes them: identifiers, numbers, booleans and quoted choice
 * names, so no value holds a comma or a quote). */
#include "labels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fixed fields of a configuration: their printed names and columns of results. The limits
 * and execution are schema version 4's (work version 5's); an older file read as it is has NULL
 * there. */
enum { F_ALGORITHM, F_STEPS, F_SECONDS, F_EXPANSIONS, F_WORK, F_EXECUTION, F_N };
static const char *const field_name[F_N] = {"algorithm", "steps",  "seconds",
                                            "expansions", "work", "execution"};
static const char *const field_column[F_N] = {"algorithm",        "limit_steps", "limit_seconds",
                                              "limit_expansions", "limit_work",  "execution"};
static const int field_is_text[F_N] = {1, 0, 0, 0, 0, 1};

typedef struct lb_config {
  char *key;             /* the configuration key, as farm_labels_key_sql computes it */
  char *label;
  char *field[F_N];      /* text, or NULL */
  char *params;          /* canonical JSON, less the ignored parameters */
  int32_t np;            /* its pairs: pname[i] = pval[i], split in place in pbuf */
  char **pname, **pval;
  char *pbuf;
  char *name;            /* the printed name */
  int64_t first;         /* smallest plan_index */
} lb_config;

/* A label with several configurations: what sets them apart, for messages. */
typedef struct lb_mixed {
  const char *label;     /* owned by its configurations */
  int32_t n;             /* configurations */
  int64_t first;         /* smallest plan_index: messages name labels in plan order */
  char *fields;          /* "steps" or "window, steps" */
  char *values;          /* the first differing field's values: "1000; 50" */
  char *hint;            /* an SQL condition selecting the first configuration */
} lb_mixed;

struct farm_labels {
  lb_config *c;          /* sorted by key once loaded */
  int32_t n;
  lb_mixed *mixed;       /* in plan order */
  int32_t nmixed;
  char *key_sql;
};

static char *dup_text(sqlite3_stmt *s, int col) {
  const unsigned char *t = sqlite3_column_text(s, col);
  return t ? strdup((const char *)t) : NULL;
}

/* Splits a flat canonical JSON object into pairs, in place in a copy. A text that is not such
 * an object becomes one pair, "params" = the text. Returns 0, or -1 out of memory. */
static int split_params(lb_config *c) {
  const char *p = c->params ? c->params : "{}";
  size_t len = strlen(p);
  c->pbuf = malloc(len + 1);
  c->pname = malloc((len / 2 + 2) * sizeof *c->pname);
  c->pval = malloc((len / 2 + 2) * sizeof *c->pval);
  if (!c->pbuf || !c->pname || !c->pval) return -1;
  memcpy(c->pbuf, p, len + 1);
  char *s = c->pbuf;
  int ok = len >= 2 && s[0] == '{' && s[len - 1] == '}';
  if (ok) {
    s[len - 1] = '\0';
    for (char *q = s + 1; *q && ok;) {
      char *end = strchr(q, ',');
      if (end) *end = '\0';
      char *colon = strchr(q, ':');
      size_t klen = colon ? (size_t)(colon - q) : 0;
      ok = colon && klen >= 3 && q[0] == '"' && q[klen - 1] == '"';
      if (ok) {
        q[klen - 1] = '\0';
        c->pname[c->np] = q + 1;
        c->pval[c->np++] = colon + 1;
      }
      q = end ? end + 1 : q + strlen(q);
    }
  }
  if (!ok) {
    memcpy(c->pbuf, p, len + 1);
    c->np = 1;
    c->pname[0] = "params";
    c->pval[0] = c->pbuf;
  }
  return 0;
}

static const char *param_of(const lb_config *c, const char *name) {
  for (int32_t i = 0; i < c->np; i++)
    if (strcmp(c->pname[i], name) == 0) return c->pval[i];
  return NULL;
}

static int same_text(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

/* What sets the configurations [b, e) of one label apart: differs[f] for each fixed field. */
static void find_differences(const lb_config *c, int32_t b, int32_t e, int differs[F_N]) {
  for (int f = 0; f < F_N; f++) {
    differs[f] = 0;
    for (int32_t i = b + 1; i < e && !differs[f]; i++)
      differs[f] = !same_text(c[i].field[f], c[b].field[f]);
  }
}

/* Whether parameter name sets configurations [b, e) apart: two of one algorithm disagree on
 * it, a missing value counting as one. Between algorithms the algorithm field tells them
 * apart, and their parameters are not comparable. O(n^2) for n configurations of a label. */
static int param_differs(const lb_config *c, int32_t b, int32_t e, const char *name) {
  for (int32_t i = b; i < e; i++)
    for (int32_t j = i + 1; j < e; j++)
      if (same_text(c[i].field[F_ALGORITHM], c[j].field[F_ALGORITHM]) &&
          !same_text(param_of(&c[i], name), param_of(&c[j], name)))
        return 1;
  return 0;
}

/* Appends text to a growing string; returns -1 out of memory. */
typedef struct sbuf {
  char *s;
  size_t len, cap;
} sbuf;

static int sb_add(sbuf *b, const char *fmt, const char *x, const char *y) {
  int w = snprintf(NULL, 0, fmt, x, y);
  if (w < 0) return -1;
  if (b->len + (size_t)w + 1 > b->cap) {
    size_t cap = (b->len + (size_t)w + 1) * 2;
    char *s = realloc(b->s, cap);
    if (!s) return -1;
    b->s = s;
    b->cap = cap;
  }
  snprintf(b->s + b->len, b->cap - b->len, fmt, x, y);
  b->len += (size_t)w;
  return 0;
}

/* One field's value as a --where condition: "limit_steps = 1000", "algorithm = 'far'",
 * "json_extract(params, '$.window') = 4" (a choice name quoted for SQL, a boolean as 1 or 0,
 * as json_extract gives them). */
static int where_hint(sbuf *b, int f, const char *pname, const char *v) {
  if (pname) {
    size_t vl = strlen(v);
    if (vl >= 2 && v[0] == '"') {
      char val[128];
      snprintf(val, sizeof val, "%.*s", (int)(vl - 2), v + 1);
      return sb_add(b, "json_extract(params, '$.%s') = '%s'", pname, val);
    }
    return sb_add(b, "json_extract(params, '$.%s') = %s", pname,
                  strcmp(v, "true") == 0 ? "1" : strcmp(v, "false") == 0 ? "0" : v);
  }
  if (!v) return sb_add(b, "%s IS NULL", field_column[f], NULL);
  return sb_add(b, field_is_text[f] ? "%s = '%s'" : "%s = %s", field_column[f], v);
}

/* Names the configurations [b, e) of one label: the label alone when it has one, else the
 * label and " [" each differing field "=" its value "]": the algorithm first, then the
 * parameters in their JSON (name) order, then the limits and execution. NULL prints as "?"
 * (unknown: recorded before schema version 4). A label with several configurations gets a
 * record in l->mixed. */
static int name_group(farm_labels *l, int32_t b, int32_t e) {
  lb_config *c = l->c;
  if (e - b == 1) {
    c[b].name = strdup(c[b].label ? c[b].label : "-");
    return c[b].name ? 0 : -1;
  }
  int differs[F_N];
  find_differences(c, b, e, differs);
  /* The differing parameters, each once, in the order the configurations list them. */
  int32_t cap = 0, np = 0;
  for (int32_t i = b; i < e; i++) cap += c[i].np;
  const char **pd = malloc((size_t)(cap ? cap : 1) * sizeof *pd);
  if (!pd) return -1;
  for (int32_t i = b; i < e; i++)
    for (int32_t k = 0; k < c[i].np; k++) {
      int seen = 0;
      for (int32_t j = 0; j < np && !seen; j++) seen = strcmp(pd[j], c[i].pname[k]) == 0;
      if (!seen && param_differs(c, b, e, c[i].pname[k])) pd[np++] = c[i].pname[k];
    }
  int bad = 0;
  for (int32_t i = b; i < e; i++) {
    sbuf sb = {NULL, 0, 0};
    bad |= sb_add(&sb, "%s [", c[i].label ? c[i].label : "-", NULL);
    const char *sep = "";
    if (differs[F_ALGORITHM]) {
      bad |= sb_add(&sb, "algorithm=%s", c[i].field[F_ALGORITHM] ? c[i].field[F_ALGORITHM] : "?",
                    NULL);
      sep = " ";
    }
    for (int32_t k = 0; k < np; k++) {
      /* Choice names without their JSON quotes; "-" where another algorithm has no such
       * parameter. */
      const char *v = param_of(&c[i], pd[k]);
      if (!v && differs[F_ALGORITHM]) continue;
      if (!v) v = "-";
      size_t vl = strlen(v);
      int q = vl >= 2 && v[0] == '"';
      char val[128];
      snprintf(val, sizeof val, "%.*s", (int)(q ? vl - 2 : vl), v + q);
      bad |= sb_add(&sb, "%s%s=", sep, pd[k]);
      bad |= sb_add(&sb, "%s", val, NULL);
      sep = " ";
    }
    for (int f = F_STEPS; f < F_N; f++) {
      if (!differs[f]) continue;
      bad |= sb_add(&sb, "%s%s=", sep, field_name[f]);
      bad |= sb_add(&sb, "%s", c[i].field[f] ? c[i].field[f] : "?", NULL);
      sep = " ";
    }
    bad |= sb_add(&sb, "]", NULL, NULL);
    c[i].name = sb.s;
  }
  /* The record for messages: the differing fields, and the values of the first of them. */
  lb_mixed *m = &l->mixed[l->nmixed++];
  memset(m, 0, sizeof *m);
  m->label = c[b].label ? c[b].label : "-";
  m->n = e - b;
  m->first = c[b].first;
  sbuf fields = {NULL, 0, 0}, values = {NULL, 0, 0}, hint = {NULL, 0, 0};
  const char *sep = "";
  int first_f = -1;
  const char *first_p = NULL;
  for (int f = 0; f < F_N; f++) {
    if (f == F_STEPS)
      for (int32_t k = 0; k < np; k++) {
        bad |= sb_add(&fields, "%s%s", sep, pd[k]);
        sep = ", ";
        if (first_f < 0 && !first_p) first_p = pd[k];
      }
    if (!differs[f]) continue;
    bad |= sb_add(&fields, "%s%s", sep, field_name[f]);
    sep = ", ";
    if (first_f < 0 && !first_p) first_f = f;
  }
  sep = "";
  for (int32_t i = b; i < e; i++) {
    const char *v = first_p ? param_of(&c[i], first_p) : c[i].field[first_f];
    int dup = 0;
    for (int32_t j = b; j < i && !dup; j++)
      dup = same_text(first_p ? param_of(&c[j], first_p) : c[j].field[first_f], v);
    if (dup) continue;
    bad |= sb_add(&values, "%s%s", sep, v ? v : first_p ? "-" : "NULL");
    sep = "; ";
    if (!hint.s && (v || !first_p)) bad |= where_hint(&hint, first_f, first_p, v);
  }
  free(pd);
  m->fields = fields.s;
  m->values = values.s;
  m->hint = hint.s;
  return bad ? -1 : 0;
}

static int by_label_first(const void *a, const void *b) {
  const lb_config *x = a, *y = b;
  int r = strcmp(x->label ? x->label : "", y->label ? y->label : "");
  if (r) return r;
  return (x->first > y->first) - (x->first < y->first);
}

static int by_first_mixed(const void *a, const void *b) {
  const lb_mixed *x = a, *y = b;
  return (x->first > y->first) - (x->first < y->first);
}

static int by_key(const void *a, const void *b) {
  const lb_config *x = a, *y = b;
  return strcmp(x->key, y->key);
}

/* A parameter name as the registry spells them: the JSON path below needs no quoting. */
static int ident_ok(const char *p) {
  if (!*p || strlen(p) > 40) return 0;
  for (; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
  return 1;
}

static int has_column(sqlite3 *db, const char *column) {
  sqlite3_stmt *s = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('results') WHERE name = ?1", -1,
                         &s, NULL) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, column, -1, SQLITE_STATIC);
    found = sqlite3_step(s) == SQLITE_ROW;
  }
  sqlite3_finalize(s);
  return found;
}

int farm_labels_load(sqlite3 *db, const char *where, int32_t max_agents,
                     const char *const *ignore, farm_labels **out, mapf_diag *err) {
  *out = NULL;
  farm_labels *l = calloc(1, sizeof *l);
  sbuf params = {NULL, 0, 0}, sql = {NULL, 0, 0};
  if (!l) goto oom;
  /* The parameters, less the ignored ones. */
  int bad = sb_add(&params, "%s", "params", NULL);
  int32_t nign = 0;
  for (int32_t i = 0; ignore && ignore[i]; i++) {
    if (!ident_ok(ignore[i])) continue;
    if (nign++ == 0) {
      free(params.s);
      params = (sbuf){NULL, 0, 0};
      bad |= sb_add(&params, "%s", "json_remove(params", NULL);
    }
    bad |= sb_add(&params, ", '$.%s'", ignore[i], NULL);
  }
  if (nign) bad |= sb_add(&params, ")", NULL, NULL);
  const char *col[F_N];
  for (int f = 0; f < F_N; f++) col[f] = has_column(db, field_column[f]) ? field_column[f] : "NULL";
  sbuf key = {NULL, 0, 0};
  bad |= sb_add(&key, "json_array(label, %s, %s", col[F_ALGORITHM], params.s);
  for (int f = F_STEPS; f < F_N; f++) bad |= sb_add(&key, ", %s", col[f], NULL);
  bad |= sb_add(&key, ")", NULL, NULL);
  l->key_sql = key.s;
  if (bad) goto oom;
  const char *w = where && *where ? where : "1";
  bad |= sb_add(&sql, "SELECT %s, label, ", l->key_sql, NULL);
  for (int f = 0; f < F_N; f++) bad |= sb_add(&sql, "%s, ", col[f], NULL);
  bad |= sb_add(&sql, "%s, min(plan_index) FROM results WHERE (?1 <= 0 OR agents <= ?1) AND (",
                params.s, NULL);
  bad |= sb_add(&sql, "%s\n) GROUP BY 1", w, NULL);
  if (bad) goto oom;
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql.s, -1, &s, NULL) != SQLITE_OK) {
    if (where && *where)
      farm_err(err, "--where \"%s\": %s", where, sqlite3_errmsg(db));
    else
      farm_err(err, "cannot read results: %s", sqlite3_errmsg(db));
    goto fail;
  }
  sqlite3_bind_int(s, 1, max_agents);
  int rc, cap = 0;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (l->n == cap) {
      cap = cap ? cap * 2 : 16;
      lb_config *c = realloc(l->c, (size_t)cap * sizeof *c);
      if (!c) {
        sqlite3_finalize(s);
        goto oom;
      }
      l->c = c;
    }
    lb_config *c = &l->c[l->n++];
    memset(c, 0, sizeof *c);
    c->key = dup_text(s, 0);
    c->label = dup_text(s, 1);
    for (int f = 0; f < F_N; f++) c->field[f] = dup_text(s, 2 + f);
    c->params = dup_text(s, 2 + F_N);
    c->first = sqlite3_column_int64(s, 3 + F_N);
    if (!c->key || split_params(c) < 0) {
      sqlite3_finalize(s);
      goto oom;
    }
  }
  sqlite3_finalize(s);
  if (rc != SQLITE_DONE) {
    farm_err(err, "cannot read results: %s", sqlite3_errmsg(db));
    goto fail;
  }
  /* Name each label's configurations, then sort by key for farm_labels_name. */
  if (l->n) qsort(l->c, (size_t)l->n, sizeof *l->c, by_label_first);
  l->mixed = calloc((size_t)(l->n ? l->n : 1), sizeof *l->mixed);
  if (!l->mixed) goto oom;
  for (int32_t b = 0, e; b < l->n; b = e) {
    for (e = b + 1; e < l->n && same_text(l->c[e].label, l->c[b].label);) e++;
    if (name_group(l, b, e) < 0) goto oom;
  }
  if (l->nmixed) qsort(l->mixed, (size_t)l->nmixed, sizeof *l->mixed, by_first_mixed);
  if (l->n) qsort(l->c, (size_t)l->n, sizeof *l->c, by_key);
  free(params.s);
  free(sql.s);
  *out = l;
  return 0;
oom:
  farm_err(err, "out of memory");
fail:
  free(params.s);
  free(sql.s);
  farm_labels_free(l);
  return -1;
}

int32_t farm_labels_mixed(const farm_labels *l) { return l ? l->nmixed : 0; }

const char *farm_labels_key_sql(const farm_labels *l) { return l->key_sql; }

const char *farm_labels_name(const farm_labels *l, const char *key) {
  lb_config probe;
  memset(&probe, 0, sizeof probe);
  probe.key = (char *)key;
  if (!l->n || !key) return NULL;
  const lb_config *c = bsearch(&probe, l->c, (size_t)l->n, sizeof *l->c, by_key);
  return c ? c->name : NULL;
}

int farm_labels_describe(const farm_labels *l, int max_lines, char *buf, size_t n) {
  size_t len = 0;
  if (n) buf[0] = '\0';
  for (int32_t i = 0; i < l->nmixed; i++) {
    const lb_mixed *m = &l->mixed[i];
    int w = i < max_lines ? snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0,
                                     "%s\"%s\" holds %d configurations, shown apart by %s",
                                     i ? "\n" : "", m->label, (int)m->n, m->fields)
                          : snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0,
                                     "\nand %d more such labels", (int)(l->nmixed - i));
    len += w > 0 ? (size_t)w : 0;
    if (i >= max_lines) break;
  }
  return (int)len;
}

int farm_labels_describe_limits(const farm_labels *l, int max_lines, char *buf, size_t n) {
  size_t len = 0;
  if (n) buf[0] = '\0';
  /* Fields that differ between two labels' configurations; one label's several
   * configurations are named by what differs already (farm_labels_name). */
  int differs[F_N] = {0}, any = 0;
  for (int f = F_STEPS; f < F_N; f++) {
    for (int32_t i = 0; i < l->n && !differs[f]; i++)
      for (int32_t j = i + 1; j < l->n && !differs[f]; j++)
        differs[f] = !same_text(l->c[i].label, l->c[j].label) &&
                     !same_text(l->c[i].field[f], l->c[j].field[f]);
    any |= differs[f];
  }
  if (!any) return 0;
#define PUT(...)                                                                               \
  do {                                                                                         \
    int w_ = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, __VA_ARGS__);         \
    len += w_ > 0 ? (size_t)w_ : 0;                                                            \
  } while (0)
  PUT("Limits that differ between labels:");
  /* Configurations in plan order (l->c is sorted by key once loaded). */
  int32_t *order = malloc((size_t)l->n * sizeof *order);
  if (!order) return (int)len;
  for (int32_t i = 0; i < l->n; i++) order[i] = i;
  for (int32_t i = 1; i < l->n; i++) /* insertion sort: a report's labels are few */
    for (int32_t j = i; j > 0 && l->c[order[j]].first < l->c[order[j - 1]].first; j--) {
      int32_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  for (int32_t i = 0; i < l->n; i++) {
    if (i == max_lines) {
      PUT("\n  and %d more", (int)(l->n - i));
      break;
    }
    const lb_config *c = &l->c[order[i]];
    PUT("\n  %s:", c->name ? c->name : c->label ? c->label : "");
    for (int f = F_STEPS; f < F_N; f++)
      if (differs[f]) {
        const char *v = c->field[f];
        /* A limit of 0 is no limit. */
        if (v && !field_is_text[f] && strtod(v, NULL) == 0) v = "none";
        PUT(" %s=%s", field_name[f], v ? v : "unknown");
      }
  }
#undef PUT
  free(order);
  return (int)len;
}

int farm_labels_refuse_mixed(const farm_labels *l, mapf_diag *err) {
  if (l->nmixed == 0) return 0;
  const lb_mixed *m = &l->mixed[0];
  farm_err(err,
           "label \"%s\" holds %d configurations among these jobs (they differ in %s: %s), "
           "which this command would take for one. Select one with --where, e.g. --where \"%s\", "
           "or run them under distinct labels%s",
           m->label, (int)m->n, m->fields, m->values, m->hint,
           l->nmixed > 1 ? " (other labels are mixed too)" : "");
  return -1;
}

int farm_labels_check(sqlite3 *db, const char *where, int32_t max_agents, mapf_diag *err) {
  farm_labels *l = NULL;
  if (farm_labels_load(db, where, max_agents, NULL, &l, err) < 0) return -1;
  int r = farm_labels_refuse_mixed(l, err);
  farm_labels_free(l);
  return r;
}

void farm_labels_free(farm_labels *l) {
  if (!l) return;
  for (int32_t i = 0; i < l->n; i++) {
    lb_config *c = &l->c[i];
    free(c->key);
    free(c->label);
    for (int f = 0; f < F_N; f++) free(c->field[f]);
    free(c->params);
    free(c->pname);
    free(c->pval);
    free(c->pbuf);
    free(c->name);
  }
  for (int32_t i = 0; i < l->nmixed; i++) {
    free(l->mixed[i].fields);
    free(l->mixed[i].values);
    free(l->mixed[i].hint);
  }
  free(l->mixed);
  free(l->c);
  free(l->key_sql);
  free(l);
}
