/* The GPU passes under their command-line names, for kiln-opt-style
 * drivers and FileCheck tests: each runs on a codegen-level module (a
 * builtin.module of kernels, as a cuda variant's inner module holds them).
 * The full per-variant pipeline is kiln_codegen_gpu_lower_variant. */
#include "gpu_internal.h"

static kiln_error *run_distribute(kiln_op *module, void *user) {
  (void)user;
  return kiln_codegen_gpu_distribute_to_threads(module);
}

static kiln_error *run_simt(kiln_op *module, void *user) {
  (void)user;
  return kiln_codegen_gpu_simt_to_loops(module);
}

void kiln_codegen_gpu_register(void) {
  static const kiln_pass_info passes[] = {
      {"distribute-to-threads",
       "split each top-level linalg op of a GPU kernel into per-thread chunks, barriers between them",
       run_distribute, NULL},
      {"simt-to-loops",
       "GPU kernel -> CPU kernel: thread ids become loops split at barriers (loop fission)",
       run_simt, NULL},
  };
  for (unsigned i = 0; i < sizeof passes / sizeof passes[0]; i++)
    if (!kiln_pass_lookup(passes[i].name)) kiln_pass_register(&passes[i]);
}
