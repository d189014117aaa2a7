/* Codegen-level IR passes (prefix ct_ inside this folder):
 *   scf-to-cf         scf.for / scf.if -> blocks and cf branches
 *   approximate-math  math.exp/exp2/log/log2/tanh/erf/sin/cos/powf and
 *                     friends -> polynomial arith (no libm calls remain)
 * kiln_codegen_transforms_register adds both to the pass registry. */
#ifndef KILN_CODEGEN_TRANSFORMS_H
#define KILN_CODEGEN_TRANSFORMS_H

#include "ir.h"

kiln_error *kiln_scf_to_cf(kiln_op *module);
kiln_error *kiln_approximate_math(kiln_op *module);
void kiln_codegen_transforms_register(void);

#endif
