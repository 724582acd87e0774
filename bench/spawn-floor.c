// The physical floor of running one command from a program: posix_spawn (glibc uses a vfork-like
// clone, so nothing of the parent is copied), stdout and stderr read through pipes until they
// close, then waitpid. Node's child_process.spawn forks its whole process instead; the skill-run
// benchmark compares the two (bench/skill-run.bench.ts). Usage: spawn-floor RUNS PROGRAM [ARGS...];
// prints the median milliseconds of RUNS runs after a few warm-up ones.
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double milliseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

static int ascending(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int run_once(char **argv) {
  char *environment[] = {"PATH=/usr/bin:/bin", NULL};
  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) return -1;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  pid_t pid;
  int failed = posix_spawn(&pid, argv[0], &actions, &attributes, argv, environment);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  close(out[1]);
  close(err[1]);
  char buffer[65536];
  struct pollfd streams[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  for (int open_streams = 2; open_streams > 0;) {
    if (poll(streams, 2, -1) < 0) return -1;
    for (int index = 0; index < 2; index += 1) {
      if (streams[index].fd < 0 || streams[index].revents == 0) continue;
      if (read(streams[index].fd, buffer, sizeof buffer) <= 0) {
        close(streams[index].fd);
        streams[index].fd = -1;
        open_streams -= 1;
      }
    }
  }
  if (failed != 0) return -1;
  int status;
  return waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: spawn-floor RUNS PROGRAM [ARGS...]\n");
    return 2;
  }
  int runs = atoi(argv[1]);
  if (runs < 1) runs = 1;
  double *times = calloc(runs, sizeof *times);
  for (int index = -5; index < runs; index += 1) {
    double started = milliseconds();
    if (run_once(argv + 2) != 0) {
      fprintf(stderr, "spawn-floor: %s failed\n", argv[2]);
      return 1;
    }
    if (index >= 0) times[index] = milliseconds() - started;
  }
  qsort(times, runs, sizeof *times, ascending);
  printf("%.3f\n", times[runs / 2]);
  return 0;
}
