/* cli.c: getopt_long driven by a command's option table (cli.h). */
#include "cli.h"

#include <string.h>

#include "suggest.h"

#define FARM_CLI_VAL 256

void farm_cli_begin(farm_cli *p, const farm_cli_cmd *cmd, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->cmd = cmd;
  p->argc = argc;
  p->argv = argv;
  int n = 0;
  for (const farm_cli_opt *o = cmd->opts; o && o->id && n < FARM_CLI_MAX_OPTS; o++, n++) {
    p->longopts[n].name = o->name;
    p->longopts[n].has_arg = o->arg ? required_argument : no_argument;
    p->longopts[n].val = FARM_CLI_VAL + n; /* clear of 1, '?' and ':', which getopt returns */
  }
  /* '-': every argument in the order given (a positional one as 1), whatever POSIXLY_CORRECT
   * says; ':': no messages from getopt itself, which this file words instead. */
  strcpy(p->optstring, "-:");
  p->rest = -1;
  optind = 1;
  opterr = 0;
}

/* The option of the table named exactly name[0..len), or NULL. */
static const farm_cli_opt *find_opt(const farm_cli_cmd *cmd, const char *name, size_t len) {
  for (const farm_cli_opt *o = cmd->opts; o && o->id; o++)
    if (strlen(o->name) == len && strncmp(o->name, name, len) == 0) return o;
  return NULL;
}

/* The message for argument arg, which getopt_long refused or took for another option. */
static int refuse(farm_cli *p, const char *arg) {
  const char *name = arg + (arg[1] == '-' ? 2 : 1);
  size_t len = strcspn(name, "=");
  const farm_cli_opt *o = arg[1] == '-' ? find_opt(p->cmd, name, len) : NULL;
  if (o && o->arg)
    snprintf(p->msg, sizeof p->msg, "--%s needs a value (%s)", o->name, o->arg);
  else if (o)
    snprintf(p->msg, sizeof p->msg, "--%s takes no value", o->name);
  else {
    const char *names[FARM_CLI_MAX_OPTS];
    int32_t n = 0;
    for (const farm_cli_opt *k = p->cmd->opts; k && k->id && n < FARM_CLI_MAX_OPTS; k++)
      names[n++] = k->name;
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), name);
    const char *s = farm_suggest(word, names, n);
    snprintf(p->msg, sizeof p->msg, "unknown option \"%.*s\"%s%s%s", (int)(name - arg + len), arg,
             s ? " (did you mean \"--" : "", s ? s : "", s ? "\"?)" : "");
  }
  return FARM_CLI_ERROR;
}

int farm_cli_next(farm_cli *p, const char **value) {
  *value = NULL;
  if (p->rest >= 0) {
    if (p->rest >= p->argc) return FARM_CLI_END;
    *value = p->argv[p->rest++];
    return FARM_CLI_ARG;
  }
  int before = optind, index = -1;
  int c = getopt_long(p->argc, p->argv, p->optstring, p->longopts, &index);
  if (c == -1) {
    /* The end, or "--": what follows it is positional. */
    p->rest = optind;
    return farm_cli_next(p, value);
  }
  if (c == 1) {
    *value = optarg;
    return FARM_CLI_ARG;
  }
  const char *arg = before < p->argc ? p->argv[before] : "";
  if (c < FARM_CLI_VAL || index < 0) return refuse(p, arg);
  /* getopt_long also takes an unambiguous prefix ("--thread" for "--threads"): refuse it. */
  const char *name = arg + 2;
  size_t len = strcspn(name, "=");
  if (strncmp(arg, "--", 2) != 0 || find_opt(p->cmd, name, len) == NULL) return refuse(p, arg);
  *value = p->longopts[index].has_arg ? optarg : NULL;
  return p->cmd->opts[c - FARM_CLI_VAL].id;
}

int farm_cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  return 0;
}

void farm_cli_usage(FILE *out, const farm_cli_cmd *cmd) {
  int indent = (int)strlen("usage: mapfarm ") + (int)strlen(cmd->name) + 1;
  fprintf(out, "usage: mapfarm %s", cmd->name);
  const char *s = cmd->synopsis;
  if (s && *s) fputc(' ', out);
  for (; s && *s;) {
    size_t len = strcspn(s, "\n");
    fprintf(out, "%.*s\n", (int)len, s);
    s += len;
    if (*s == '\n') s++;
    if (*s) fprintf(out, "%*s", indent, "");
  }
  if (!cmd->synopsis || !*cmd->synopsis) fputc('\n', out);
}

void farm_cli_help(FILE *out, const farm_cli_cmd *cmd) {
  farm_cli_usage(out, cmd);
  fprintf(out, "\n%s\n\noptions:\n", cmd->doc);
  int width = (int)strlen("-h, --help");
  char left[128];
  for (const farm_cli_opt *o = cmd->opts; o && o->id; o++) {
    int w = snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "",
                     o->arg ? o->arg : "");
    if (w > width) width = w;
  }
  for (const farm_cli_opt *o = cmd->opts; o && o->id; o++) {
    snprintf(left, sizeof left, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
    fprintf(out, "  %-*s  %s\n", width, left, o->doc);
  }
  fprintf(out, "  %-*s  %s\n", width, "-h, --help", "print this help and exit");
}

void farm_cli_overview(FILE *out, const farm_cli_cmd *cmds, int32_t n) {
  int width = 0;
  for (int32_t i = 0; i < n; i++)
    if ((int)strlen(cmds[i].name) > width) width = (int)strlen(cmds[i].name);
  fprintf(out, "usage: mapfarm COMMAND [ARGUMENTS]\n\ncommands:\n");
  for (int32_t i = 0; i < n; i++) fprintf(out, "  %-*s  %s\n", width, cmds[i].name, cmds[i].doc);
  fprintf(out, "\n`mapfarm COMMAND --help` prints a command's usage and options.\n");
}
