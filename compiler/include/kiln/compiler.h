/* Kiln's compiler in-process: what `kiln-compile IN -o OUT --target=T...`
 * does, for programs that compile models themselves. Installed with the
 * shared library libkiln_compiler (CMake: find_package(Kiln) and
 * Kiln::compiler; pkg-config: kiln-compiler). The module written is the
 * same as kiln-compile's for the same input and targets (its provenance
 * records the targets as --target= options). */
#ifndef KILN_COMPILER_H
#define KILN_COMPILER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_compiler_options {
  const char *input_path;     /* MLIR text or an ONNX model (told apart by content) */
  const char *output_path;    /* the .kiln module to write */
  const char *const *targets; /* "llvm-cpu", "llvm-cpu:x86_64+avx2", "cuda:sm_80", ... */
  size_t target_count;        /* 0: the host ("llvm-cpu") */
} kiln_compiler_options_t;

/* Compiles options->input_path into options->output_path. NULL on
 * success; otherwise a message naming what failed and where (malloc'ed:
 * release it with kiln_compiler_message_free). */
char *kiln_compiler_compile(const kiln_compiler_options_t *options);
void kiln_compiler_message_free(char *message);

/* "0.1.0 (revision 1a42f65629a3)": KILN_VERSION and the source revision
 * this library was built from. */
const char *kiln_compiler_version(void);

#ifdef __cplusplus
}
#endif

#endif /* KILN_COMPILER_H */
