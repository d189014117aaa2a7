/* Test helpers: MLIR text -> (scf-to-cf) -> LLVM module -> .so bytes. */
#ifndef KILN_TEST_TO_LLVM_HARNESS_H
#define KILN_TEST_TO_LLVM_HARNESS_H

#include "llvm_cpu.h"
#include "to_llvm.h"

/* Parses and verifies text, runs scf-to-cf, translates. Returns NULL on
 * success (with *out set, owned by the caller) or the error text (static
 * buffer) of whichever step failed, including parse diagnostics. */
const char *harness_translate(const char *text, bool kernel, LLVMContextRef c,
                              LLVMModuleRef *out);
/* harness_translate + kiln_llvm_cpu_compile for the host. */
const char *harness_compile(const char *text, kiln_llvm_cpu_bytes_t *so);
/* Same, running approximate-math first when approx is set. */
const char *harness_compile_opts(const char *text, bool approx, kiln_llvm_cpu_bytes_t *so);
/* Same, for the llvm-cpu target string target_name ("llvm-cpu:x86_64+avx2"). */
const char *harness_compile_target(const char *text, bool approx, const char *target_name,
                                   kiln_llvm_cpu_bytes_t *so);
const char *harness_translate_opts(const char *text, bool kernel, bool approx,
                                   LLVMContextRef c, LLVMModuleRef *out);

#endif
