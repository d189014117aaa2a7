/* Registers the codegen-level passes with the pass manager. */
#include "codegen_transforms.h"

static kiln_error *run_scf_to_cf(kiln_op *module, void *user) {
  (void)user;
  return kiln_scf_to_cf(module);
}

void kiln_codegen_transforms_register(void) {
  static const kiln_pass_info scf = {"scf-to-cf",
                                     "lower scf.for/scf.if to blocks and cf branches",
                                     run_scf_to_cf, 0};
  kiln_pass_register(&scf);
}
