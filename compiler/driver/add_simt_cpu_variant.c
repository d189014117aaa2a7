/* add-simt-cpu-variant: the SIMT-on-CPU check of the GPU path's numerics.
 *
 * Takes: the inner module of a cuda variant after the GPU passes and
 * lower-to-loops (kernels with thread ids and barriers, before
 * approximate-math and scf-to-cf), and the compile session.
 * Guarantees: without KILN_GPU_SIMT_CPU=1 in the environment, nothing
 * changes. With it (the GPU tests set it), a copy of the variant named
 * "simt_cpu_" + its name, target "llvm-cpu", follows it; the copy's
 * threads run as loops (simt-to-loops), its math is approximated, its scf
 * lowered, and it is compiled for the host by translate-llvm-cpu, so the
 * module carries a CPU executable computing what the GPU kernels compute.
 * The cuda variant itself is left as it was.
 * It lives in the driver, above the back ends, because it joins two of
 * them (gpu's simt variant, llvm_cpu's translation): no back end includes
 * another's header (tests/layout/check_codegen_headers.py). */
#include "driver_passes.h"

#include <stdlib.h>
#include <string.h>

#include "codegen_gpu.h"
#include "codegen_transforms.h"
#include "llvm_cpu_passes.h"

kiln_error *kiln_driver_add_simt_cpu_variant(kiln_op *inner, void *user) {
  (void)user;
  const char *simt = getenv("KILN_GPU_SIMT_CPU");
  if (!simt || strcmp(simt, "1") != 0) return NULL;
  kiln_op *var = kiln_op_parent_op(inner);
  if (!var || var->kind != KILN_OP_HAL_EXECUTABLE_VARIANT)
    return kiln_error_new("add-simt-cpu-variant runs on the inner module of a hal.executable.variant");
  kiln_op *copy = NULL;
  kiln_error *err = kiln_codegen_gpu_add_simt_variant(var, &copy);
  kiln_block *vb = copy && copy->regions[0].first ? copy->regions[0].first : NULL;
  for (kiln_op *ci = vb ? vb->first : NULL; ci && !err; ci = ci->next) {
    if (ci->kind != KILN_OP_BUILTIN_MODULE) continue;
    err = kiln_approximate_math(ci);
    if (!err) err = kiln_scf_to_cf(ci);
    if (!err) err = kiln_llvm_cpu_translate_variant(ci, NULL);
  }
  if (err && copy) {
    kiln_error *e = kiln_error_new("variant @%s: %s", kiln_symbol_name(copy), kiln_error_message(err));
    kiln_error_free(err);
    err = e;
  }
  return err;
}
