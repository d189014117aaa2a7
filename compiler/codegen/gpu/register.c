/* The GPU passes under their command-line names, for kiln-opt-style
 * drivers and FileCheck tests: each runs on a codegen-level module (a
 * builtin.module of kernels, as a cuda variant's inner module holds them).
 * The full per-variant pipeline is kiln_codegen_gpu_lower_variant. */
#include "gpu_internal.h"

#include <stdio.h>

static kiln_error *run_distribute(kiln_op *module, void *user) {
  (void)user;
  return kiln_codegen_gpu_distribute_to_threads(module);
}

/* On a codegen-level module whose kiln.target names the SM
 * ("cuda:sm_90"); no export or host dispatch records the grid. */
static kiln_error *run_launch_config(kiln_op *module, void *user) {
  (void)user;
  const kiln_attr *t = kiln_op_get_attr(module, "kiln.target");
  unsigned sm = 0;
  if (!t || t->kind != KILN_ATTR_STRING || sscanf(t->str, "cuda:sm_%u", &sm) != 1)
    return kiln_error_new("select-gpu-launch-config: the module needs kiln.target = \"cuda:sm_NN\"");
  /* Leaves kiln.target = "llvm-cpu:aarch64", as in the pipeline: the CPU
   * passes the GPU pipeline reuses (tile-and-distribute, lower-to-loops)
   * run under it. */
  return gpu_select_launch_config(NULL, NULL, NULL, module, sm);
}

static kiln_error *run_tile_matmul(kiln_op *module, void *user) {
  (void)user;
  return kiln_codegen_gpu_tile_matmul_shared(module);
}

static kiln_error *run_simt(kiln_op *module, void *user) {
  (void)user;
  return kiln_codegen_gpu_simt_to_loops(module);
}

void kiln_codegen_gpu_register(void) {
  static const kiln_pass_info passes[] = {
      {"select-gpu-launch-config",
       "kiln.launch of each GPU kernel: CPU workgroup tiles, block size and matmul tiles per SM",
       run_launch_config, NULL},
      {"gpu-tile-matmul-shared",
       "f32 matmul / batch_matmul through workgroup-memory tiles per K step and per-thread register tiles",
       run_tile_matmul, NULL},
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
