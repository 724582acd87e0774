/*
 * The sandbox's first program when it is built (native/build-prelude.mjs): the same job as the
 * shell preludes in src/runtime/sandbox-prelude.ts, whose header says why each step is there, in
 * one statically linked process. A shell prelude costs a second dynamic program load (the loader,
 * libc, the shell's own start-up) and a fork on every run; this one has no loader and no library
 * to map, and built against musl it starts as fast as an empty program.
 *
 *   sandbox-prelude CGROUP_FDS MAX_PROCESSES MAX_MEMORY_BYTES MAX_FILE_SIZE_BYTES PWD_STATE PWD PROGRAM [ARG...]
 *
 * CGROUP_FDS is "-" or a comma-separated list of inherited descriptors open for writing on the
 * run's `tasks` (cgroup v1) or `cgroup.procs` (v2) files, one per hierarchy; the prelude has one
 * thread, so moving it through `tasks` moves the process (src/runtime/run-cgroup.ts says why
 * `tasks`): the prelude joins the run's cgroup through them
 * before anything else, then closes them with every other inherited descriptor. The kernel checks
 * such a write against whoever opened the file (the host runtime), not against the writer. This
 * replaces bubblewrap's --info-fd/--block-fd hand-shake, in which the host had to read the sandbox's
 * pid and write each move while the sandbox waited. A limit of "-" is not set. PWD_STATE is "set" (PWD becomes the next argument) or "unset".
 * `sandbox-prelude --protocol` prints the line the runtime checks once before it trusts the file.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROTOCOL_LINE "skillbox-sandbox-prelude 2\n"

static void fail(const char *what, const char *detail) {
  dprintf(2, "skillbox-prelude: %s: %s\n", what, detail);
  _exit(126);
}

/*
 * Moves this process into the run's cgroup in every hierarchy; a run must not start outside it.
 * On cgroup v1 the descriptors are `tasks` files, which move the writing thread only: this program
 * must stay single-threaded (no thread, nothing that starts one) until it has joined, or a second
 * thread would stay outside, and on v1 the memory charge follows the thread-group leader.
 */
static void join_cgroup(const char *descriptors) {
  if (strcmp(descriptors, "-") == 0) return;
  const char *cursor = descriptors;
  while (*cursor != '\0') {
    char *end;
    errno = 0;
    long fd = strtol(cursor, &end, 10);
    if (errno != 0 || end == cursor || fd < 3 || fd > INT_MAX || (*end != ',' && *end != '\0'))
      fail("cgroup descriptors", "not a list of descriptor numbers");
    /* "0" is the writer itself. */
    if (write((int)fd, "0", 1) != 1) fail("cannot join the run's cgroup", strerror(errno));
    cursor = *end == ',' ? end + 1 : end;
  }
}

/* Every descriptor above stderr, whatever its number: one call on kernels with close_range (5.9+). */
static void close_inherited(void) {
#ifdef SYS_close_range
  if (syscall(SYS_close_range, 3u, ~0u, 0u) == 0) return;
#endif
  DIR *folder = opendir("/proc/self/fd");
  if (folder == NULL) fail("cannot list /proc/self/fd to close inherited descriptors", strerror(errno));
  int own = dirfd(folder);
  struct dirent *entry;
  /* Closing while listing is safe here: the listing's own descriptor is skipped and closed last. */
  while ((entry = readdir(folder)) != NULL) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    int fd = atoi(entry->d_name);
    if (fd > 2 && fd != own) close(fd);
  }
  closedir(folder);
}

/* Soft and hard limit both, so the command cannot raise it again; never above the inherited hard limit. */
static void set_limit(int resource, const char *value, const char *name) {
  if (strcmp(value, "-") == 0) return;
  char *end;
  errno = 0;
  unsigned long long wanted = strtoull(value, &end, 10);
  if (errno != 0 || *end != '\0' || end == value) fail(name, "not a number");
  struct rlimit limit;
  if (getrlimit(resource, &limit) != 0) fail(name, strerror(errno));
  rlim_t capped = (rlim_t)wanted;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < capped) capped = limit.rlim_max;
  limit.rlim_cur = capped;
  limit.rlim_max = capped;
  /* One that cannot be set is lower already in the inherited hard limit, which binds as well. */
  setrlimit(resource, &limit);
}

extern char **environ;

/* dash's search path when PATH is unset, so a command finds what it found under the dash prelude. */
static const char DEFAULT_PATH[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
static char candidate[PATH_MAX];

/*
 * execve of one file; a file the kernel does not recognise (a script without `#!`) is run by
 * /bin/sh, as a shell and glibc's execvp do (musl's execvp does not). Returns only on failure.
 */
static int try_exec(const char *path, char **command, char **shell_command) {
  execve(path, command, environ);
  if (errno != ENOEXEC) return errno;
  shell_command[1] = (char *)path;
  execve("/bin/sh", shell_command, environ);
  return errno;
}

/* The PATH search of a shell's `exec`: returns the error to report when nothing could be run. */
static int run_command(char **command, char **shell_command) {
  const char *name = command[0];
  if (strchr(name, '/') != NULL) return try_exec(name, command, shell_command);
  const char *path = getenv("PATH");
  if (path == NULL) path = DEFAULT_PATH;
  size_t name_length = strlen(name);
  int error = ENOENT;
  for (const char *start = path;; start += 1) {
    const char *end = strchrnul(start, ':');
    size_t folder_length = (size_t)(end - start);
    /* An empty entry is the current folder, as in every shell. */
    if (folder_length == 0 && name_length + 3 <= sizeof candidate) {
      memcpy(candidate, "./", 2);
      memcpy(candidate + 2, name, name_length + 1);
    } else if (folder_length + name_length + 2 <= sizeof candidate) {
      memcpy(candidate, start, folder_length);
      candidate[folder_length] = '/';
      memcpy(candidate + folder_length + 1, name, name_length + 1);
    } else {
      error = ENAMETOOLONG;
      if (*end == '\0') break;
      start = end;
      continue;
    }
    int attempt = try_exec(candidate, command, shell_command);
    /* A later folder may still hold it; a file found but not runnable is what is reported then. */
    if (attempt == EACCES) error = EACCES;
    else if (attempt != ENOENT && attempt != ENOTDIR) return attempt;
    if (*end == '\0') break;
    start = end;
  }
  return error;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--protocol") == 0) {
    return write(1, PROTOCOL_LINE, sizeof PROTOCOL_LINE - 1) == (ssize_t)(sizeof PROTOCOL_LINE - 1) ? 0 : 1;
  }
  if (argc < 8)
    fail("usage", "CGROUP_FDS MAX_PROCESSES MAX_MEMORY_BYTES MAX_FILE_SIZE_BYTES PWD_STATE PWD PROGRAM [ARG...]");
  join_cgroup(argv[1]);
  close_inherited();
  set_limit(RLIMIT_NPROC, argv[2], "process limit");
  set_limit(RLIMIT_AS, argv[3], "memory limit");
  set_limit(RLIMIT_FSIZE, argv[4], "file size limit");
  if (strcmp(argv[5], "set") == 0) {
    if (setenv("PWD", argv[6], 1) != 0) fail("PWD", strerror(errno));
  } else {
    unsetenv("PWD");
  }
  char **command = argv + 7;
  int command_count = argc - 7;
  /* Made before vfork: the child should do no more than exec. */
  char **shell_command = calloc((size_t)command_count + 2, sizeof *shell_command);
  if (shell_command == NULL) fail("memory", strerror(errno));
  shell_command[0] = "sh";
  for (int index = 1; index < command_count; index += 1) shell_command[index + 1] = command[index];
  /*
   * The command runs as a child: as pid 1 it would ignore every signal it has no handler for.
   * vfork, not fork: the child only execs or reports and exits, and copying this process's page
   * tables for that cost as much as the exec itself on the virtual machines measured
   * (docs/runtimes.md, "Where a sandboxed run's time goes").
   */
  pid_t child = vfork();
  if (child < 0) fail("fork", strerror(errno));
  if (child == 0) {
    int error = run_command(command, shell_command);
    /* A shell's words and codes: 127 for a program that is not there, 126 for one that cannot run. */
    const char *reason = error == ENOENT ? "not found" : strerror(error);
    struct iovec message[] = {
        {"skillbox-prelude: ", 18}, {command[0], strlen(command[0])}, {": ", 2}, {(char *)reason, strlen(reason)}, {"\n", 1}};
    /* writev, not stdio: after vfork the child shares this process's memory, stdio buffers included. */
    (void)!writev(2, message, 5);
    _exit(error == ENOENT ? 127 : 126);
  }
  /* As pid 1 it also reaps orphans; it leaves as soon as the command itself has ended. */
  for (;;) {
    int status;
    pid_t ended = waitpid(-1, &status, 0);
    if (ended < 0) {
      if (errno == EINTR) continue;
      fail("wait", strerror(errno));
    }
    if (ended != child) continue;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  }
}
