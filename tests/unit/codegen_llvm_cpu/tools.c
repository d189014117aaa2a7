/* See tools.h. */
#define _POSIX_C_SOURCE 200809L
#include "tools.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

char *tools_write_temp(const void *data, size_t size) {
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp) tmp = "/tmp";
  size_t cap = strlen(tmp) + 32;
  char *path = malloc(cap);
  if (!path) return NULL;
  snprintf(path, cap, "%s/kiln-test-XXXXXX", tmp);
  int fd = mkstemp(path);
  if (fd < 0) {
    free(path);
    return NULL;
  }
  const uint8_t *p = data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    size -= (size_t)n;
  }
  close(fd);
  if (size) {
    unlink(path);
    free(path);
    return NULL;
  }
  return path;
}

int tools_run(const char *const argv[], char **output) {
  *output = NULL;
  int pipefd[2];
  if (pipe(pipefd) != 0) return -1;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawn_file_actions_addclose(&fa, pipefd[1]);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, (char *const *)(uintptr_t)argv,
                       environ);
  posix_spawn_file_actions_destroy(&fa);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    return -1;
  }
  size_t len = 0, cap = 4096;
  char *buf = malloc(cap);
  for (;;) {
    if (len + 1 >= cap) {
      char *bigger = realloc(buf, cap *= 2);
      if (!bigger) break;
      buf = bigger;
    }
    ssize_t n = read(pipefd[0], buf + len, cap - len - 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += (size_t)n;
  }
  buf[len] = 0;
  close(pipefd[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *output = buf;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

char *tools_run_on(const char *tool, const char *arg1, const char *arg2,
                   const char *file) {
  const char *argv[5];
  int n = 0;
  argv[n++] = tool;
  if (arg1) argv[n++] = arg1;
  if (arg2) argv[n++] = arg2;
  argv[n++] = file;
  argv[n] = NULL;
  char *out = NULL;
  int code = tools_run(argv, &out);
  if (code != 0) {
    fprintf(stderr, "%s failed (%d): %s\n", tool, code, out ? out : "");
    free(out);
    return NULL;
  }
  return out;
}

const char *tools_elf_inspect(const uint8_t *data, size_t size,
                              tools_elf_facts_t *facts) {
  memset(facts, 0, sizeof *facts);
  Elf64_Ehdr eh;
  if (size < sizeof eh) return "shorter than an ELF header";
  memcpy(&eh, data, sizeof eh);
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return "no ELF magic";
  if (eh.e_ident[EI_CLASS] != ELFCLASS64) return "not ELF64";
  if (eh.e_ident[EI_DATA] != ELFDATA2LSB) return "not little-endian";
  if (eh.e_type != ET_DYN) return "not a shared object (ET_DYN)";
  if (eh.e_phentsize != sizeof(Elf64_Phdr)) return "odd program header size";
  if (eh.e_phoff > size || (size - eh.e_phoff) / sizeof(Elf64_Phdr) < eh.e_phnum)
    return "program headers out of bounds";
  facts->machine = eh.e_machine;
  for (unsigned i = 0; i < eh.e_phnum; i++) {
    Elf64_Phdr ph;
    memcpy(&ph, data + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_GNU_RELRO) facts->has_relro = true;
    if (ph.p_type == PT_LOAD) facts->load_segments++;
    if ((ph.p_flags & PF_W) && (ph.p_flags & PF_X)) facts->has_wx_segment = true;
  }
  return NULL;
}
