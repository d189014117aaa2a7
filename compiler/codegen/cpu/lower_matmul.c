/* The matmul path of lower-to-loops: a static-shape linalg.matmul on f32
 * memrefs whose B and C rows are contiguous becomes a register-blocked
 * loop nest:
 *   for i0 in 0..M step MR, j0 in 0..N step NR*VW:
 *     acc[r][c] = vector.load C[i0+r, j0+c*VW]          (MR x NR vectors)
 *     for k in 0..K (acc carried in iter_args, i.e. registers):
 *       b[c] = vector.load B[k, j0+c*VW]
 *       acc[r][c] = vector.fma(broadcast(A[i0+r, k]), b[c], acc[r][c])
 *     vector.store acc -> C
 * emit_register_tile is the microkernel: the packing of A and B panels
 * that a later issue adds only changes which memrefs and indices it
 * reads. MR, NR divide the tile (chosen so); the accumulators fit the
 * vector register file (16 of 32 zmm, 8 of 16 ymm/xmm). Anything else
 * (partial tiles, other types, strided rows) takes the generic path. */
#include "cg_internal.h"

static void emit_register_tile(kiln_builder *b, kiln_value *A, kiln_value *B, kiln_value *C,
                               kiln_value *i0, kiln_value *j0, int64_t K, int mr, int nr,
                               int64_t vw) {
  kiln_context *c = b->ctx;
  const kiln_type *vt = kiln_type_vector(c, 1, &vw, C->type->elem);
  kiln_value *acc[16], *rows[8], *cols[4], *ix[2];
  for (int r = 0; r < mr; r++) rows[r] = cg_add(b, i0, cg_index(b, r));
  for (int q = 0; q < nr; q++) cols[q] = cg_add(b, j0, cg_index(b, q * vw));
  for (int r = 0; r < mr; r++)
    for (int q = 0; q < nr; q++) {
      ix[0] = rows[r], ix[1] = cols[q];
      acc[r * nr + q] = cg_vload(b, vt, C, 2, ix);
    }
  kiln_builder body;
  kiln_op *loop = cg_for(b, cg_index(b, 0), cg_index(b, K), cg_index(b, 1), (uint32_t)(mr * nr),
                         acc, &body);
  kiln_value *k = cg_for_iv(loop);
  kiln_value *bv[4], *next[16];
  for (int q = 0; q < nr; q++) {
    ix[0] = k, ix[1] = cols[q];
    bv[q] = cg_vload(&body, vt, B, 2, ix);
  }
  for (int r = 0; r < mr; r++) {
    ix[0] = rows[r], ix[1] = k;
    kiln_value *a = cg_broadcast(&body, cg_load(&body, A, 2, ix), vt);
    for (int q = 0; q < nr; q++) {
      kiln_value *ops[3] = {a, bv[q], loop->regions[0].first->args[1 + r * nr + q]};
      next[r * nr + q] = kiln_op_result(kiln_build(&body, KILN_OP_VECTOR_FMA, 3, ops, 1, &vt, NULL), 0);
    }
  }
  cg_for_set_yield(loop, (uint32_t)(mr * nr), next);
  for (int r = 0; r < mr; r++)
    for (int q = 0; q < nr; q++) {
      ix[0] = rows[r], ix[1] = cols[q];
      cg_vstore(b, kiln_op_result(loop, (uint32_t)(r * nr + q)), C, 2, ix);
    }
}

static bool unit_inner_stride(const kiln_type *t) {
  int64_t st[KILN_MAX_LOOPS], off;
  return t->rank == 2 && cg_strides(t, st, &off) && st[1] == 1;
}

bool cg_lower_matmul(kiln_op *op, int64_t vw) {
  if (op->num_operands != 3 || vw < 4) return false;
  kiln_value *A = kiln_op_operand(op, 0), *B = kiln_op_operand(op, 1), *C = kiln_op_operand(op, 2);
  const kiln_type *ta = A->type, *tb = B->type, *tc = C->type;
  if (ta->kind != KILN_TYPE_MEMREF || tb->kind != KILN_TYPE_MEMREF || tc->kind != KILN_TYPE_MEMREF)
    return false;
  if (!kiln_type_has_static_shape(ta) || !kiln_type_has_static_shape(tb) ||
      !kiln_type_has_static_shape(tc) || ta->rank != 2 || tb->rank != 2 || tc->rank != 2)
    return false;
  if (ta->elem->kind != KILN_TYPE_F32 || tb->elem != ta->elem || tc->elem != ta->elem) return false;
  if (!unit_inner_stride(tb) || !unit_inner_stride(tc)) return false;
  int64_t M = tc->shape[0], N = tc->shape[1], K = ta->shape[1];
  if (N % vw || M < 1 || K < 1) return false;
  int nr = N % (2 * vw) == 0 ? 2 : 1;
  int max_acc = vw >= 16 ? 16 : 8;
  int mr = 1;
  for (int cand = 8; cand >= 1; cand--)
    if (cand * nr <= max_acc && M % cand == 0) {
      mr = cand;
      break;
    }
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_builder bi, bj;
  kiln_op *li = cg_for(&b, cg_index(&b, 0), cg_index(&b, M), cg_index(&b, mr), 0, NULL, &bi);
  kiln_op *lj = cg_for(&bi, cg_index(&bi, 0), cg_index(&bi, N), cg_index(&bi, nr * vw), 0, NULL, &bj);
  emit_register_tile(&bj, A, B, C, cg_for_iv(li), cg_for_iv(lj), K, mr, nr, vw);
  return true;
}
