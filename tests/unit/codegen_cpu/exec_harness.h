/* Execution harness for codegen/cpu tests and the benchmark: a kernel
 * module (memref linalg on hal.interface.binding) goes through the
 * codegen/cpu passes, approximate-math, scf-to-cf, the translation to
 * LLVM, the llvm_cpu back end for the host, and the runtime's ELF loader;
 * then every workgroup of kiln.launch's workgroup_count runs. */
#ifndef KILN_TEST_CODEGEN_CPU_EXEC_HARNESS_H
#define KILN_TEST_CODEGEN_CPU_EXEC_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "elf_loader.h"
#include "kiln/executable_abi.h"

typedef struct cpu_kernel {
  kiln_elf_image_t image;
  const kiln_export_info_t *export;
  uint32_t count[3]; /* workgroup count chosen by select-launch-config */
} cpu_kernel;

/* Compiles the kernel module `text` (one kernel) for codegen target
 * `target` (e.g. "llvm-cpu:x86_64+avx2"; code is built for the host).
 * NULL on success, else an error text (static buffer). When ir is not
 * NULL it receives the IR after the codegen/cpu passes (malloc'ed). */
const char *cpu_kernel_build(const char *text, const char *target, cpu_kernel *k, char **ir);
/* Runs all workgroups on this thread: in reverse order when `reverse`
 * (tests: catches order dependences), else in the runtime's order. */
int cpu_kernel_run(const cpu_kernel *k, void **bindings, const uint64_t *lengths, uint32_t n,
                   bool reverse);
void cpu_kernel_release(cpu_kernel *k);
/* Is approximate-math in this build (kernels with math ops need it)? */
bool cpu_kernel_have_math(void);

#endif
