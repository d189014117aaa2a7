/* Links one relocatable object (or several, kiln_llvm_cpu_link_objects:
 * all of a module's kernels for one target) into a Kiln CPU executable with ld.lld,
 * run as a subprocess (posix_spawn, no shell) over files in a private
 * mkdtemp folder that is removed on every path. Guarantees on success: a
 * position-independent ELF shared object without libc, undefined symbols
 * (lld fails on them, and its message becomes ours), unwind-table headers,
 * build id or local symbols; only kiln_executable_query (several objects:
 * each one's kiln_executable_query.NAME) is exported (the
 * version script also hides anything prepare() missed); RELRO and
 * immediate binding, so a loader applies all relocations up front. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kiln/executable_abi.h"
#include "lcpu_internal.h"

extern char **environ;

#ifndef KILN_LLD_PATH
#error "KILN_LLD_PATH must name ld.lld (set by CMake from KILN_LLD)"
#endif

/* lld output larger than this is refused rather than read whole. */
#define LCPU_MAX_SO_BYTES ((off_t)1 << 31)
#define LCPU_MAX_LOG_BYTES 4000

/* The private folder and the files the link reads and writes in it
 * (objects: kernels0.o, kernels1.o, ...). */
typedef struct lcpu_linkdir {
  char dir[512];
  char script[600], output[600], log[600];
  size_t objects; /* written so far */
} lcpu_linkdir_t;

static void lcpu_object_path(const lcpu_linkdir_t *d, size_t i, char *path, size_t cap) {
  snprintf(path, cap, "%s/kernels%zu.o", d->dir, i);
}

static kiln_error *lcpu_write_file(const char *path,
                                   const void *data, size_t size) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0)
    return kiln_error_new("llvm-cpu link: cannot create %s: %s", path,
                          strerror(errno));
  const uint8_t *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n < 0 ? errno : EIO;
      close(fd);
      return kiln_error_new("llvm-cpu link: cannot write %s: %s", path,
                            strerror(e));
    }
    p += n;
    size -= (size_t)n;
  }
  if (close(fd) != 0)
    return kiln_error_new("llvm-cpu link: cannot write %s: %s", path,
                          strerror(errno));
  return NULL;
}

/* Reads at most `limit` bytes of PATH into a NUL-terminated buffer;
 * *truncated says whether the file was longer. */
static kiln_error *lcpu_read_file(const char *path, off_t limit,
                                  kiln_llvm_cpu_bytes_t *out,
                                  bool *truncated) {
  out->data = NULL;
  out->size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return kiln_error_new("llvm-cpu link: cannot open %s: %s", path,
                          strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size < 0) {
    close(fd);
    return kiln_error_new("llvm-cpu link: cannot stat %s", path);
  }
  *truncated = st.st_size > limit;
  size_t want = (size_t)(*truncated ? limit : st.st_size);
  out->data = malloc(want + 1);
  if (!out->data) {
    close(fd);
    return kiln_error_new("llvm-cpu link: out of memory reading %s", path);
  }
  while (out->size < want) {
    ssize_t n = read(fd, out->data + out->size, want - out->size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; /* shrank underneath us: keep what was read */
    out->size += (size_t)n;
  }
  out->data[out->size] = 0;
  close(fd);
  return NULL;
}

static kiln_error *lcpu_make_dir(lcpu_linkdir_t *d) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp || strlen(tmp) > 400) tmp = "/tmp";
  snprintf(d->dir, sizeof d->dir, "%s/kiln-link-XXXXXX", tmp);
  if (!mkdtemp(d->dir))
    return kiln_error_new("llvm-cpu link: cannot create a temporary folder in "
                          "%s: %s",
                          tmp, strerror(errno));
  d->objects = 0;
  snprintf(d->script, sizeof d->script, "%s/exports.map", d->dir);
  snprintf(d->output, sizeof d->output, "%s/kernels.so", d->dir);
  snprintf(d->log, sizeof d->log, "%s/lld.log", d->dir);
  return NULL;
}

static void lcpu_remove_dir(lcpu_linkdir_t *d) {
  for (size_t i = 0; i < d->objects; i++) {
    char path[600];
    lcpu_object_path(d, i, path, sizeof path);
    unlink(path);
  }
  unlink(d->script);
  unlink(d->output);
  unlink(d->log);
  rmdir(d->dir);
}

/* Runs lld with stdin from /dev/null and stdout+stderr into the log;
 * *exit_code is its exit status (or 128+signal). */
static kiln_error *lcpu_spawn(const char *const argv[],
                              const char *log, int *exit_code) {
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa) != 0)
    return kiln_error_new("llvm-cpu link: out of memory");
  int rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (!rc)
    rc = posix_spawn_file_actions_addopen(&fa, 1, log,
                                          O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  /* posix_spawn's argv is char *const[] for historical reasons; it does
   * not write through it. */
  if (!rc)
    rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)(uintptr_t)argv,
                     environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    return kiln_error_new("llvm-cpu link: cannot run %s: %s", argv[0],
                          strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return kiln_error_new("llvm-cpu link: waiting for %s: %s", argv[0],
                            strerror(errno));
  }
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status)
                                 : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return NULL;
}

/* One object: exports kiln_executable_query. Several (members): each
 * one's kiln_executable_query.NAME. */
static kiln_error *lcpu_link_in(lcpu_linkdir_t *d,
                                const kiln_llvm_cpu_target_t *t,
                                const char *lld,
                                const kiln_llvm_cpu_bytes_t *objects,
                                size_t count,
                                kiln_llvm_cpu_bytes_t *out) {
  static const char one[] =
      "{\n  global: " KILN_EXECUTABLE_QUERY_SYMBOL ";\n  local: *;\n};\n";
  static const char many[] =
      "{\n  global: " KILN_EXECUTABLE_QUERY_SYMBOL ".*;\n  local: *;\n};\n";
  enum { FIXED = 20 };
  const char **argv = calloc(FIXED + count + 2, sizeof *argv); /* -o OUTPUT, NULL */
  char *paths = calloc(count ? count : 1, 600);
  kiln_error *s = argv && paths ? NULL : kiln_error_new("llvm-cpu link: out of memory");
  for (size_t i = 0; i < count && !s; i++) {
    lcpu_object_path(d, i, paths + i * 600, 600);
    s = lcpu_write_file(paths + i * 600, objects[i].data, objects[i].size);
    if (!s) d->objects = i + 1;
  }
  if (!s)
    s = count == 1 ? lcpu_write_file(d->script, one, sizeof one - 1)
                   : lcpu_write_file(d->script, many, sizeof many - 1);
  int code = 0;
  if (!s) {
    const char *const fixed[FIXED] = {
        lld, "-m", t->emulation, "-shared", "-nostdlib", "--no-undefined",
        "--gc-sections", "-z", "now", "-z", "relro", "-z", "noexecstack",
        "--hash-style=sysv", "--build-id=none", "--discard-all", "--icf=all",
        "--version-script", d->script, "-o"};
    memcpy(argv, fixed, sizeof fixed);
    size_t n = FIXED;
    argv[n++] = d->output;
    for (size_t i = 0; i < count; i++) argv[n++] = paths + i * 600;
    argv[n] = NULL;
    s = lcpu_spawn(argv, d->log, &code);
  }
  free(argv);
  free(paths);
  if (s) return s;
  if (code != 0) {
    kiln_llvm_cpu_bytes_t log = {0};
    bool truncated = false;
    kiln_error *rs =
        lcpu_read_file(d->log, LCPU_MAX_LOG_BYTES, &log, &truncated);
    const char *text = rs ? kiln_error_message(rs) : (char *)log.data;
    /* The usual cause deserves a hint: LLVM lowered an operation (frem,
     * a math intrinsic, a large memset) to a libc call. */
    const char *hint = strstr(text, "undefined symbol")
                           ? " (a Kiln executable links no libc: generated "
                             "code must not need library functions)"
                           : "";
    s = kiln_error_new("llvm-cpu link: %s failed (exit %d): %s%s%s", lld, code,
                       text, truncated ? "..." : "", hint);
    kiln_error_free(rs);
    kiln_llvm_cpu_bytes_free(&log);
    return s;
  }
  bool truncated = false;
  s = lcpu_read_file(d->output, LCPU_MAX_SO_BYTES, out, &truncated);
  if (!s && truncated) {
    kiln_llvm_cpu_bytes_free(out);
    s = kiln_error_new("llvm-cpu link: the linked object exceeds %lld bytes",
                       (long long)LCPU_MAX_SO_BYTES);
  }
  return s;
}

kiln_error *kiln_llvm_cpu_link(const kiln_llvm_cpu_target_t *target,
                               const char *lld_path,
                               const void *object, size_t size,
                               kiln_llvm_cpu_bytes_t *out) {
  out->data = NULL;
  out->size = 0;
  lcpu_linkdir_t dir;
  kiln_error *s = lcpu_make_dir(&dir);
  if (s) return s;
  const kiln_llvm_cpu_bytes_t one = {(uint8_t *)(uintptr_t)object, size};
  s = lcpu_link_in(&dir, target, lld_path ? lld_path : KILN_LLD_PATH, &one, 1, out);
  lcpu_remove_dir(&dir);
  return s;
}

kiln_error *kiln_llvm_cpu_link_objects(const kiln_llvm_cpu_target_t *target,
                                       const char *lld_path,
                                       const kiln_llvm_cpu_bytes_t *objects,
                                       size_t count, kiln_llvm_cpu_bytes_t *out) {
  out->data = NULL;
  out->size = 0;
  lcpu_linkdir_t dir;
  kiln_error *s = lcpu_make_dir(&dir);
  if (s) return s;
  s = lcpu_link_in(&dir, target, lld_path ? lld_path : KILN_LLD_PATH, objects, count, out);
  lcpu_remove_dir(&dir);
  return s;
}
