/* proc.c: another program run under a wall-clock limit, and scratch directories (proc.h). */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The system's reason for errno e (strerror_r: strerror is not thread-safe). */
static const char *reason(int e, char *buf, size_t n) {
  if (strerror_r(e, buf, n) != 0) snprintf(buf, n, "error %d", e);
  return buf;
}

/* A stream's last MAPF__PROC_TAIL bytes. */
typedef struct tail {
  char *buf; /* MAPF__PROC_TAIL + 1 bytes */
  size_t len;
} tail;

static void tail_add(tail *t, const char *s, size_t k) {
  if (k >= MAPF__PROC_TAIL) {
    memcpy(t->buf, s + k - MAPF__PROC_TAIL, MAPF__PROC_TAIL);
    t->len = MAPF__PROC_TAIL;
  } else {
    if (t->len + k > MAPF__PROC_TAIL) {
      size_t drop = t->len + k - MAPF__PROC_TAIL;
      memmove(t->buf, t->buf + drop, t->len - drop);
      t->len -= drop;
    }
    memcpy(t->buf + t->len, s, k);
    t->len += k;
  }
  t->buf[t->len] = '\0';
}

/* Reads what fd has now (non-blocking) into t. Returns 1 at end of file or on an error, 0 when
 * it would block. */
static int drain(int fd, tail *t) {
  char chunk[4096];
  for (;;) {
    ssize_t k = read(fd, chunk, sizeof chunk);
    if (k > 0) {
      tail_add(t, chunk, (size_t)k);
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
    return 1;
  }
}

/* Close-on-exec, so that no other child of this process keeps a copy (another thread may
 * spawn between pipe() and here: such a copy delays nothing, since the end of the run is
 * the child's exit, not the pipes' end of file). */
static int cloexec(int fd) {
  int f = fcntl(fd, F_GETFD);
  return f < 0 ? -1 : fcntl(fd, F_SETFD, f | FD_CLOEXEC);
}

static int nonblock(int fd) {
  int f = fcntl(fd, F_GETFL);
  return f < 0 ? -1 : fcntl(fd, F_SETFL, f | O_NONBLOCK);
}

int mapf__proc_run(char *const argv[], double limit, mapf__proc_result *r, mapf_diag *d) {
  char why[128];
  memset(r, 0, sizeof *r);
  int po[2] = {-1, -1}, pe[2] = {-1, -1};
  if (pipe(po) < 0 || pipe(pe) < 0 || cloexec(po[0]) < 0 || cloexec(po[1]) < 0 ||
      cloexec(pe[0]) < 0 || cloexec(pe[1]) < 0 || nonblock(po[0]) < 0 || nonblock(pe[0]) < 0) {
    int e = errno;
    for (int k = 0; k < 2; k++) {
      if (po[k] >= 0) close(po[k]);
      if (pe[k] >= 0) close(pe[k]);
    }
    return mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "cannot make a pipe: %s",
                         reason(e, why, sizeof why));
  }
  posix_spawn_file_actions_t fa;
  posix_spawnattr_t at;
  posix_spawn_file_actions_init(&fa);
  posix_spawnattr_init(&at);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, po[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
  /* A group of its own: one kill reaches whatever it starts. Signals as a fresh program
   * expects them, whatever this process blocks or ignores. */
  sigset_t none, dflt;
  sigemptyset(&none);
  sigemptyset(&dflt);
  const int sigs[] = {SIGPIPE, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,
                      SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2};
  for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) sigaddset(&dflt, sigs[k]);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                    POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&at, 0);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &dflt);
  pid_t pid;
  double t0 = now();
  int e = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&at);
  close(po[1]);
  close(pe[1]);
  if (e != 0) {
    close(po[0]);
    close(pe[0]);
    return mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "cannot run \"%s\": %s", argv[0],
                         reason(e, why, sizeof why));
  }
  tail out = {r->out, 0}, err = {r->err, 0};
  struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
  double deadline = t0 + limit;
  int wait_ms = 1; /* grows to 50: a quick child is noticed quickly, a slow one costs little */
  for (;;) {
    /* Exited? WNOWAIT leaves it a zombie, so its process group id cannot be reused before the
     * group is killed below. */
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid)
      break;
    double left = deadline - now();
    if (left <= 0) {
      r->timed_out = 1;
      break;
    }
    int ms = (int)(left * 1000) + 1;
    if (ms > wait_ms) ms = wait_ms;
    if (wait_ms < 50) wait_ms *= 2;
    if (poll(fds, 2, ms) > 0)
      for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0 && fds[k].revents && drain(fds[k].fd, k ? &err : &out)) fds[k].fd = -1;
  }
  /* The whole group: after a timeout the child and its children, after an exit whatever it
   * left behind. */
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  r->seconds = now() - t0;
  drain(po[0], &out);
  drain(pe[0], &err);
  close(po[0]);
  close(pe[0]);
  if (WIFEXITED(status) && !r->timed_out) {
    r->exited = 1;
    r->code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    r->signal = WTERMSIG(status);
  }
  return MAPF_OK;
}

int mapf__proc_tmpdir(const char *prefix, char *dir, size_t n, mapf_diag *d) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  int w = snprintf(dir, n, "%s/%s-XXXXXX", tmp, prefix);
  if (w < 0 || (size_t)w >= n)
    return mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "the temporary directory name is too long");
  if (!mkdtemp(dir)) {
    char why[128];
    return mapf_diag_set(d, MAPF_EIO, NULL, 0, 0, "cannot make a temporary directory in %s: %s",
                         tmp, reason(errno, why, sizeof why));
  }
  return MAPF_OK;
}

static int rmtree(const char *path, int depth) {
  struct stat sb;
  if (lstat(path, &sb) < 0) return errno == ENOENT ? 0 : -1;
  if (!S_ISDIR(sb.st_mode)) return unlink(path) < 0 ? -1 : 0;
  int rc = 0;
  DIR *dp = depth < 64 ? opendir(path) : NULL;
  if (dp) {
    struct dirent *de;
    char sub[4096];
    while ((de = readdir(dp)) != NULL) {
      if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
      int w = snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
      if (w < 0 || (size_t)w >= sizeof sub || rmtree(sub, depth + 1) < 0) rc = -1;
    }
    closedir(dp);
  }
  return rmdir(path) < 0 ? -1 : rc;
}

int mapf__proc_rmtree(const char *dir) { return rmtree(dir, 0); }
