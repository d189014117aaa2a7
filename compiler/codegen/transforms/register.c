/* Registers the codegen-level passes with the pass manager, as kernel
 * passes (ir.h: KILN_PASS_KERNELS): each runs on a variant's inner module
 * or on a codegen-level module. */
#include "codegen_transforms.h"

static kiln_error *run_scf_to_cf(kiln_op *module, void *user) {
  (void)user;
  return kiln_scf_to_cf(module);
}

static kiln_error *run_approximate_math(kiln_op *module, void *user) {
  (void)user;
  return kiln_approximate_math(module);
}

void kiln_codegen_transforms_register(void) {
  static const kiln_pass_info approx = {"approximate-math",
                                        "replace math functions by polynomials (no libm)",
                                        run_approximate_math, NULL, KILN_PASS_KERNELS};
  kiln_pass_register(&approx);
  static const kiln_pass_info scf = {"scf-to-cf",
                                     "lower scf.for/scf.if to blocks and cf branches",
                                     run_scf_to_cf, NULL, KILN_PASS_KERNELS};
  kiln_pass_register(&scf);
}
