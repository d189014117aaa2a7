/* Reads a structured op as an implicit GEMM (cg_igemm, codegen_common.h):
 * out[...] += X[...] * W[...] on f32 memrefs with static shapes, where
 * the loops split into output channels (W and out, not X: vector lanes),
 * output pixels (X and out, not W: register rows), reductions (inside
 * the microkernel) and the rest (outer loops). Takes named convolutions
 * (nhwc_hwcf, nchw_fchw) and linalg.generic multiply-accumulates such as
 * the ONNX importer's grouped NCHW convolution; guarantees, when it
 * returns true, that every index is a non-negative linear sum of loops,
 * that out indexes the column loop with exactly d_col in one dim and W in
 * one dim that moves by one with it (exactly d_col, or a sum such as
 * b * 64 + d_col + 512 where W is a view of a fused projection), and
 * that no output index uses a reduction loop. Depthwise convolutions have
 * no such column loop (the channel is in X too) and do not match. */
#include "codegen_common.h"

#include <string.h>

/* Body: yield addf(out, mulf(x, w)) in either operand order. */
static bool is_mac_body(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: case KILN_OP_LINALG_CONV_2D_NCHW_FCHW: return true;
  case KILN_OP_LINALG_GENERIC: break;
  default: return false;
  }
  kiln_block *b = op->regions[0].first;
  if (!b || b->num_args != 3) return false;
  kiln_op *mul = b->first, *add = mul ? mul->next : NULL, *y = add ? add->next : NULL;
  if (!y || y->next || mul->kind != KILN_OP_ARITH_MULF || add->kind != KILN_OP_ARITH_ADDF ||
      y->kind != KILN_OP_LINALG_YIELD || y->num_operands != 1)
    return false;
  kiln_value *m0 = kiln_op_operand(mul, 0), *m1 = kiln_op_operand(mul, 1);
  if (!((m0 == b->args[0] && m1 == b->args[1]) || (m0 == b->args[1] && m1 == b->args[0])))
    return false;
  kiln_value *a0 = kiln_op_operand(add, 0), *a1 = kiln_op_operand(add, 1), *mv = kiln_op_result(mul, 0);
  if (!((a0 == b->args[2] && a1 == mv) || (a1 == b->args[2] && a0 == mv))) return false;
  return kiln_op_operand(y, 0) == kiln_op_result(add, 0) && kiln_value_has_one_use(mv);
}

/* uses[i][l]: operand i's map uses loop l; false when a map is not a
 * non-negative linear sum. */
static bool usage(cg_igemm *g, bool uses[3][KILN_MAX_LOOPS]) {
  for (uint32_t i = 0; i < 3; i++) {
    for (int l = 0; l < g->loops; l++) uses[i][l] = false;
    for (uint32_t r = 0; r < g->maps[i]->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      if (!cg_linear_expr(g->maps[i]->results[r], g->loops, coef, &cst)) return false;
      for (int l = 0; l < g->loops; l++) uses[i][l] |= coef[l] != 0;
    }
  }
  return true;
}

/* The dim of operand i whose index moves by one with d_l (exactly d_l,
 * or with `plain` false a sum such as b * 64 + d_l + 512: a view of a
 * fused projection), no other dim using l; or -1. */
static int sole_dim(const cg_igemm *g, uint32_t i, int l, bool *plain) {
  int dim = -1;
  for (uint32_t r = 0; r < g->maps[i]->num_results; r++) {
    const kiln_affine_expr *e = g->maps[i]->results[r];
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    cg_linear_expr(e, g->loops, coef, &cst);
    if (!coef[l]) continue;
    if (dim >= 0 || coef[l] != 1) return -1;
    if (plain) *plain = e->kind == KILN_AFFINE_DIM;
    else if (e->kind != KILN_AFFINE_DIM) return -1;
    dim = (int)r;
  }
  return dim;
}

static bool unit_last(const kiln_type *t, int dim) {
  int64_t st[KILN_MAX_LOOPS], off;
  return dim == (int)t->rank - 1 && kiln_memref_strides(t, st, &off) && st[t->rank - 1] == 1;
}

static bool pick(cg_igemm *g, uint32_t x, uint32_t w, bool uses[3][KILN_MAX_LOOPS]) {
  const kiln_affine_map *om = g->maps[2];
  g->x = x, g->w = w, g->out = 2, g->row = g->col = -1;
  /* Innermost output dims first: they are the contiguous ones. */
  for (int d = (int)om->num_results - 1; d >= 0; d--) {
    int l = (int)om->results[d]->value;
    bool plain;
    if (g->col < 0 && uses[w][l] && !uses[x][l] && sole_dim(g, w, l, &plain) >= 0)
      g->col = l, g->out_col_dim = d;
    if (g->row < 0 && uses[x][l] && !uses[w][l]) g->row = l, g->out_row_dim = d;
  }
  if (g->col < 0 || g->row < 0) return false;
  g->w_col_dim = sole_dim(g, w, g->col, &g->w_col_plain);
  return true;
}

static bool match(const kiln_op *op, cg_igemm *g, bool dynamic_outer);

bool cg_igemm_match(const kiln_op *op, cg_igemm *g) { return match(op, g, false); }

bool cg_igemm_match_outer_dynamic(const kiln_op *op, cg_igemm *g) {
  if (!match(op, g, true)) return false;
  /* the microkernel's rows, columns and reductions stay static */
  for (int l = 0; l < g->loops; l++)
    if (g->bounds[l] < 1 && (g->red[l] || l == g->row || l == g->col)) return false;
  return true;
}

static bool match(const kiln_op *op, cg_igemm *g, bool dynamic_outer) {
  memset(g, 0, sizeof *g);
  if (op->num_operands != 3 || kiln_linalg_num_inputs(op) != 2 || !is_mac_body(op)) return false;
  /* An input that is the output itself would be read after the tile
   * overwrote it (the generic path keeps element order). */
  if (kiln_op_operand(op, 0) == kiln_op_operand(op, 2) || kiln_op_operand(op, 1) == kiln_op_operand(op, 2))
    return false;
  for (uint32_t i = 0; i < 3; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (t->kind != KILN_TYPE_MEMREF || (!dynamic_outer && !kiln_type_has_static_shape(t)) ||
        t->elem->kind != KILN_TYPE_F32)
      return false;
  }
  g->loops = cg_static_bounds(op, g->maps, g->red, g->bounds);
  if (g->loops < 1) return false;
  for (int l = 0; l < g->loops; l++)
    if (g->bounds[l] < 1 && !(dynamic_outer && g->bounds[l] == -1)) return false;
  const kiln_affine_map *om = g->maps[2];
  if (!kiln_affine_map_is_projected_permutation(om)) return false;
  for (uint32_t r = 0; r < om->num_results; r++)
    if (g->red[om->results[r]->value]) return false;
  bool uses[3][KILN_MAX_LOOPS];
  if (!usage(g, uses)) return false;
  /* Every parallel loop is an output dim (else it would be a reduction
   * in disguise). */
  for (int l = 0; l < g->loops; l++)
    if (!g->red[l] && !uses[2][l]) return false;
  if (!pick(g, 0, 1, uses) && !pick(g, 1, 0, uses)) return false;
  const kiln_type *wt = kiln_op_operand(op, g->w)->type, *ot = kiln_op_operand(op, 2)->type;
  g->w_contig = unit_last(wt, g->w_col_dim);
  g->out_contig = unit_last(ot, g->out_col_dim);
  return true;
}
