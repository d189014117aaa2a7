/* Clamps that a later clamp makes redundant, inside one block of scalar
 * float ops (a fused generic's body; fuse-elementwise calls this on each).
 *
 * A quantized network's fused epilogues clamp twice: requantizing a
 * product clamps to the first tensor's range (max(x, L1), min(., U1)),
 * rounds, multiplies by the ratio of the scales of a Clip or Relu's
 * requantization and clamps again to the second range (L2, U2). When the
 * first range maps beyond the second, the first clamp changes no result:
 * every op between is monotone non-decreasing (adding or subtracting a
 * finite constant, multiplying or dividing by a positive finite one, other
 * clamps: all so in IEEE arithmetic, whose rounding is monotone), so for
 * x < L1 the chain without the clamp gives phi(x) <= phi(L1) < L2 and the
 * later max(., L2) gives L2, as it did with the clamp; x > U1 likewise;
 * NaN passes maximumf/minimumf either way. Two vector ops less per output
 * vector of every such epilogue (about one in six of a requantizing
 * epilogue's ops).
 *
 * Takes: a block. Guarantees: a maximumf (minimumf) of a value and a
 * finite constant bound k whose result reaches, through single-use values
 * and only the ops above with constant operands, a maximumf (minimumf)
 * with a constant k2 where phi(k) < k2 (phi(k) > k2), or phi(k) == k2 != 0
 * (the sign of a zero bound could differ), is replaced by its operand.
 * phi is evaluated in the value's own precision (f32 or f64; other types
 * are left alone). Returns whether it changed anything. */
#include "fl_internal.h"

#include <math.h>

/* Longest chain followed from a clamp to the one that subsumes it. */
#define FL_CLAMP_MAX_CHAIN 16

/* op's constant float operand other than `v` (v being operand *vi), as a
 * double; false when there is none or both operands are v. */
static bool other_constant(kiln_op *op, kiln_value *v, double *k, uint32_t *vi) {
  if (op->num_operands != 2 || op->num_results != 1) return false;
  kiln_value *a = kiln_op_operand(op, 0), *b = kiln_op_operand(op, 1);
  if (a == b || (a != v && b != v)) return false;
  *vi = a == v ? 0 : 1;
  const kiln_attr *c = kiln_value_constant(a == v ? b : a);
  if (!c || c->kind != KILN_ATTR_FLOAT || !isfinite(c->f)) return false;
  *k = c->f;
  return true;
}

/* x op k in the precision of type t (f32: each step rounded to float) */
static double step(bool f32, kiln_op_kind kind, double x, double k) {
  double r;
  switch (kind) {
  case KILN_OP_ARITH_ADDF: r = f32 ? (double)((float)x + (float)k) : x + k; break;
  case KILN_OP_ARITH_SUBF: r = f32 ? (double)((float)x - (float)k) : x - k; break;
  case KILN_OP_ARITH_MULF: r = f32 ? (double)((float)x * (float)k) : x * k; break;
  case KILN_OP_ARITH_DIVF: r = f32 ? (double)((float)x / (float)k) : x / k; break;
  case KILN_OP_ARITH_MAXIMUMF: r = x < k ? k : x; break;
  default: r = x > k ? k : x; break; /* minimumf */
  }
  return r;
}

/* Whether clamp c (maximumf or minimumf of x and bound k) is subsumed by
 * a later clamp of the same direction along its single-use chain. */
static bool subsumed(kiln_op *c, double k, bool f32) {
  const bool lower = c->kind == KILN_OP_ARITH_MAXIMUMF;
  kiln_value *cur = kiln_op_result(c, 0);
  double v = f32 ? (double)(float)k : k;
  for (int n = 0; n < FL_CLAMP_MAX_CHAIN; n++) {
    if (!kiln_value_has_one_use(cur)) return false;
    kiln_op *u = cur->uses->owner;
    double ku;
    uint32_t at;
    if (!other_constant(u, cur, &ku, &at) || kiln_op_result(u, 0)->type != cur->type) return false;
    switch (u->kind) {
    case KILN_OP_ARITH_ADDF: break;
    case KILN_OP_ARITH_SUBF:
    case KILN_OP_ARITH_DIVF:
      if (at != 0 || (u->kind == KILN_OP_ARITH_DIVF && !(ku > 0))) return false;
      break;
    case KILN_OP_ARITH_MULF:
      if (!(ku > 0)) return false;
      break;
    case KILN_OP_ARITH_MAXIMUMF:
    case KILN_OP_ARITH_MINIMUMF:
      if (u->kind == c->kind) {
        double k2 = f32 ? (double)(float)ku : ku;
        if (lower ? v < k2 : v > k2) return true;
        if (v == k2 && k2 != 0) return true;
      }
      break;
    default: return false;
    }
    v = step(f32, u->kind, v, ku);
    cur = kiln_op_result(u, 0);
  }
  return false;
}

bool fl_drop_subsumed_clamps(kiln_block *block) {
  bool changed = false;
  for (kiln_op *op = block->first, *next; op; op = next) {
    next = op->next;
    if (op->kind != KILN_OP_ARITH_MAXIMUMF && op->kind != KILN_OP_ARITH_MINIMUMF) continue;
    const kiln_type *t = kiln_op_result(op, 0)->type;
    if (t->kind != KILN_TYPE_F32 && t->kind != KILN_TYPE_F64) continue;
    kiln_value *a = kiln_op_operand(op, 0), *b = kiln_op_operand(op, 1);
    const kiln_attr *ca = kiln_value_constant(a), *cb = kiln_value_constant(b);
    if ((ca != NULL) == (cb != NULL)) continue; /* one constant bound */
    const kiln_attr *k = ca ? ca : cb;
    kiln_value *x = ca ? b : a;
    if (k->kind != KILN_ATTR_FLOAT || !isfinite(k->f) || x->type != t) continue;
    if (!subsumed(op, k->f, t->kind == KILN_TYPE_F32)) continue;
    kiln_op *kd = (ca ? a : b)->def;
    kiln_value_replace_all_uses(kiln_op_result(op, 0), x);
    kiln_op_erase(op);
    /* the bound's constant, when nothing else reads it (it precedes its
     * reader: never the walk's next op) */
    if (kd && kd->parent == block && kd != next && kd->num_results == 1 && !kiln_value_has_uses(kiln_op_result(kd, 0))) kiln_op_erase(kd);
    changed = true;
  }
  return changed;
}
