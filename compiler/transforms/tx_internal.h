/* Internals shared by the transforms (prefix tx_): the change-reporting
 * form of each rewrite pass (canonicalize iterates them), op replacement,
 * and reading/building scalar and dense constants element by element.
 * Nothing here is part of the public API (transforms.h). */
#ifndef KILN_TX_INTERNAL_H
#define KILN_TX_INTERNAL_H

#include "transforms.h"

/* Each sets *changed when it rewrote something (it never clears it). */
kiln_error *tx_fold_constants(kiln_op *root, bool *changed);
kiln_error *tx_simplify(kiln_op *root, bool *changed);
kiln_error *tx_cse(kiln_op *root, bool *changed);
kiln_error *tx_dce(kiln_op *root, bool *changed);

/* Every result i of op now reads vals[i]; op is erased. */
void tx_replace_op(kiln_op *op, kiln_value *const *vals);
/* op's single result becomes an arith.constant of `value` built right
 * before op; op is erased. */
void tx_replace_with_constant(kiln_op *op, const kiln_attr *value);
/* Does op respect its op-table row (operand, result and region counts, no
 * unset operand)? The passes rewrite only such ops, so IR that skipped
 * verification (kiln-opt --no-verify) cannot make them read out of bounds;
 * the verifier reports the rest. */
bool tx_op_well_formed(const kiln_op *op);
/* An op whose only effect is its results: PURE ops, and structured (linalg)
 * and scf ops working purely on values whose nested ops are all effect
 * free. */
bool tx_op_is_effect_free(const kiln_op *op);

/* Structured ops whose ins and outs may differ in which dimensions are
 * static (those verified through indexing maps), unlike linalg.transpose,
 * broadcast, reduce, map and softmax, whose operands must match exactly. */
bool tx_linalg_mixes_static(const kiln_op *op);
/* Result i of op became more static than `from`: users that cannot take
 * that read a tensor.cast back to `from`. tensor.dim, tensor.cast and the
 * ins of mixing linalg ops take it; with any_linalg_ins, every linalg op's
 * ins do (the caller then refines those ops too). */
void tx_retarget_uses(kiln_op *op, uint32_t i, const kiln_type *from,
                      bool any_linalg_ins);

/* Would op's shapes agree if its operands were `operands` (num_operands
 * values)? Uses infer-shapes' rules, silently; ops without a rule agree. */
bool tx_shapes_consistent(kiln_op *op, kiln_value *const *operands);

/* Two's complement helpers on 64-bit carriers: the low w bits of v
 * sign-extended, or zero-extended. */
static inline int64_t tx_sext(uint64_t v, unsigned w) {
  if (w == 0) return 0;
  if (w >= 64) return (int64_t)v;
  uint64_t m = 1ull << (w - 1);
  v &= (1ull << w) - 1;
  return (int64_t)((v ^ m) - m);
}
static inline uint64_t tx_zext(int64_t v, unsigned w) {
  if (w == 0) return 0;
  return w >= 64 ? (uint64_t)v : (uint64_t)v & ((1ull << w) - 1);
}

/* A constant operand seen element-wise: a scalar attribute (one element) or
 * a dense one (count elements, possibly a splat). */
typedef struct tx_elems {
  const kiln_attr *attr;
  const kiln_type *elem; /* element type */
  int64_t count;         /* 1 for scalars */
  bool dense, splat;
} tx_elems;
/* Fills e from v's defining arith.constant; false when v is not a constant
 * (or a dense constant of dynamic/unknown shape). */
bool tx_elems_of(kiln_value *v, tx_elems *e);
int64_t tx_elem_int(const tx_elems *e, int64_t i);  /* sign-extended */
double tx_elem_float(const tx_elems *e, int64_t i);

/* Attributes for a value of `type` (scalar or shaped, its element type
 * decides int/float); a shaped result whose elements are all equal becomes
 * a splat, as mlir-opt prints it. ints are truncated to the element
 * width, floats rounded to the element type. */
const kiln_attr *tx_attr_ints(kiln_context *ctx, const kiln_type *type,
                              const int64_t *vals, int64_t n);
const kiln_attr *tx_attr_floats(kiln_context *ctx, const kiln_type *type,
                                const double *vals, int64_t n);
const kiln_attr *tx_attr_int(kiln_context *ctx, const kiln_type *type,
                             int64_t v);
const kiln_attr *tx_attr_float(kiln_context *ctx, const kiln_type *type,
                               double v);

/* Is v a constant (scalar or dense) whose every element is k? */
bool tx_is_const_int(kiln_value *v, int64_t k);
/* Same for floats; zero's sign counts (-0.0 and 0.0 differ). */
bool tx_is_const_float(kiln_value *v, double k);

#endif
