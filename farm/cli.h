/* cli.h: the command line, declared once per command and parsed with getopt_long.
 *
 * Each command is one row (name, synopsis, one-line description, its options); the overview,
 * a command's usage and help, the parse and the "did you mean" for a mistyped option are all
 * made from that row. `--opt value` and `--opt=value` both work; an option must be spelt in
 * full (getopt_long's unambiguous prefixes are refused, so that `--thread` is an error with a
 * suggestion rather than a silent `--threads`). Writes only to the FILE it is handed.
 *
 * Not reentrant: getopt_long keeps its state in globals, and one command parses its line
 * once, on the main thread. */
#ifndef FARM_CLI_H
#define FARM_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#define FARM_CLI_MAX_OPTS 32

/* One option of a command: --name, or --name ARG when arg is not NULL. */
typedef struct farm_cli_opt {
  int id;           /* what farm_cli_next returns for it; > 0, 0 ends a command's list */
  const char *name; /* without the leading "--" */
  const char *arg;  /* the value's name in usage and help ("FILE"); NULL: a flag */
  const char *doc;  /* one line for help */
} farm_cli_opt;

struct farm_cli_cmd;
typedef int (*farm_cli_run)(const struct farm_cli_cmd *cmd, int argc, char **argv);

/* One command. Its synopsis is what follows "usage: mapfarm NAME " and names every option of
 * opts (tests/test_cli.c holds the two against each other); lines after the first are aligned
 * under the first when printed. */
typedef struct farm_cli_cmd {
  const char *name;     /* "run"; two words for a command with subcommands: "bench sim" */
  const char *synopsis; /* "PLAN.yaml --db FILE [--threads N]", '\n' between lines */
  const char *doc;      /* one line for the overview and help */
  const farm_cli_opt *opts; /* ends with a row whose id is 0; NULL: no options */
  farm_cli_run run;     /* argv[0] is the command's last word, argv[1..argc) its arguments */
} farm_cli_cmd;

/* What farm_cli_next returns besides an option's id. */
enum {
  FARM_CLI_END = 0,    /* no more arguments */
  FARM_CLI_ARG = -1,   /* a positional argument, in *value */
  FARM_CLI_ERROR = -2, /* an unknown option or a missing value: the reason is in p->msg */
};

/* A parse in progress: set up by farm_cli_begin, read by farm_cli_next. */
typedef struct farm_cli {
  const farm_cli_cmd *cmd;
  int argc;
  char **argv;
  int rest; /* after getopt_long ended (at "--"): the next positional argument */
  struct option longopts[FARM_CLI_MAX_OPTS + 1];
  char optstring[8];
  char msg[256];
} farm_cli;

/* Starts parsing argv[1..argc) for cmd. */
void farm_cli_begin(farm_cli *p, const farm_cli_cmd *cmd, int argc, char **argv);

/* The next argument, in the order given: an option's id with its value in *value (NULL for a
 * flag), FARM_CLI_ARG with a positional argument in *value, FARM_CLI_END, or FARM_CLI_ERROR
 * with the reason in p->msg, e.g. `unknown option "--thread" (did you mean "--threads"?)`,
 * `--db needs a value (FILE)`, `--list takes no value`. Everything after "--" is
 * positional. */
int farm_cli_next(farm_cli *p, const char **value);

/* Whether argv[1..argc) asks for help: -h or --help before any "--". */
int farm_cli_wants_help(int argc, char **argv);

/* "usage: mapfarm NAME SYNOPSIS", its lines aligned. */
void farm_cli_usage(FILE *out, const farm_cli_cmd *cmd);

/* The usage, the description and every option with its line; then -h, --help. */
void farm_cli_help(FILE *out, const farm_cli_cmd *cmd);

/* One line per command of cmds[0..n): name and description. */
void farm_cli_overview(FILE *out, const farm_cli_cmd *cmds, int32_t n);

#endif
