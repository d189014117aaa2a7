/* Kiln input-stage transforms: constant folding, algebraic simplification,
 * CSE, DCE, shape inference of linalg named ops, and canonicalize (the
 * first four to a fixed point).
 *
 * Takes: a verified builtin.module. Guarantees: every pass leaves valid IR
 * that computes the same values; a pass that meets inconsistent IR (e.g.
 * operand shapes that contradict a result type) fails with an error naming
 * the op and its location instead of rewriting. */
#ifndef KILN_TRANSFORMS_H
#define KILN_TRANSFORMS_H

#include "ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass of passes.def and the "canonicalize" pass with the
 * IR's pass registry (kiln_pass_register). Idempotent. */
void kiln_transforms_register(void);

/* The passes, callable directly (user is ignored). */
#define KILN_TRANSFORM_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_pass_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_TRANSFORM_PASS

#ifdef __cplusplus
}
#endif
#endif /* KILN_TRANSFORMS_H */
