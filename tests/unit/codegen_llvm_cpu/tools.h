/* Test helpers that look at linked objects from outside: run LLVM's
 * binary tools on a temporary copy and capture their output, and check ELF
 * headers directly (bounds-checked, since the object is under test). */
#ifndef KILN_TEST_CODEGEN_LLVM_TOOLS_H
#define KILN_TEST_CODEGEN_LLVM_TOOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Writes bytes to a fresh temporary file; returns its malloc'ed path or
 * NULL. The caller unlinks and frees it. */
char *tools_write_temp(const void *data, size_t size);

/* Runs argv (argv[0] an absolute path) with stdout+stderr captured into a
 * malloc'ed NUL-terminated string; returns the exit code (-1 when it
 * could not run). */
int tools_run(const char *const argv[], char **output);

/* Runs TOOL with ARG1 (may be NULL) and FILE; returns its captured output,
 * or NULL (and fails the check) when it exited nonzero. */
char *tools_run_on(const char *tool, const char *arg1, const char *arg2,
                   const char *file);

/* ELF64 little-endian shared-object facts, NULL on success or a static
 * message naming the first problem. */
typedef struct tools_elf_facts {
  uint16_t machine;
  bool has_relro;
  bool has_wx_segment;
  unsigned load_segments;
} tools_elf_facts_t;

const char *tools_elf_inspect(const uint8_t *data, size_t size,
                              tools_elf_facts_t *facts);

#endif
