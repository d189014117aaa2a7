/* The register-blocked microkernel shared by the matmul and convolution
 * paths of lower-to-loops:
 *   acc[r][q] = c(r, q)                       (MR rows x NR vectors)
 *   for k0 .. for kn (reduction nest, acc carried in iter_args):
 *     b[q] = B(q, k)                          (vectors)
 *     acc[r][q] = fma(broadcast(A(r, k)), b[q], acc[r][q])
 *   c(r, q) = acc[r][q]
 * or, for int8 (dot4), acc[r][q] = vector.dot4(acc[r][q], A's 4 bytes of
 * row r at group k, b[q]), 4 consecutive K per i32 lane, or, with lane
 * groups of L (uk->lanes), a vector A(r, k) whose blocks of L lanes each
 * hold L reduction elements:
 *     acc[r][q] = fma(inlane(A(r, k), e), b[e * NR + q], acc[r][q]), e < L
 * inlane(v, e): element e of each block broadcast over its block; or,
 * rotated (uk->rotate), acc[r][s] = fma(A(r, k), b[s], acc[r][s]),
 * s < L, where b[s] pairs input lane i with output lane (i + s) % L of
 * its block, and c(r) = sum over s of rot(acc[r][s], s) once at the end
 * (rot moves lane i of each block to lane (i + s) % L): no shuffle in
 * the reduction, whose in-lane shuffles took the FP pipes the fmas need
 * (llvm-mca, Zen 4: 75 cycles for 56 fmas and 56 shuffles, 56 without).
 * Where A, B and C live (a matrix, a packed panel, a convolution window,
 * a gathered NCHW output) is the caller's business, told through the
 * callbacks of cpu_ukernel; the loop nest, the accumulators in registers
 * and the order of loads (B vectors first, then one broadcast of A per
 * row feeding NR fmas) are this file's. */
#include "cpu_internal.h"

#include <string.h>

/* v's lanes picked by mask (one index per lane). */
static kiln_value *shuffle(kiln_builder *b, kiln_value *v, const int64_t *mask) {
  kiln_value *ops[2] = {v, v};
  kiln_named_attr na = {"mask", kiln_attr_dense_i64_array(b->ctx, (uint32_t)v->type->shape[0], mask)};
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_SHUFFLE, 2, ops, 1, &v->type, kiln_attr_dict(b->ctx, 1, &na)), 0);
}

/* Element e of each block of `lanes` lanes of v, broadcast over its block. */
static kiln_value *inlane(kiln_builder *b, kiln_value *v, int lanes, int e) {
  int64_t mask[64];
  for (int64_t i = 0; i < v->type->shape[0]; i++) mask[i] = i / lanes * lanes + e;
  return shuffle(b, v, mask);
}

/* Lane i of each block of `lanes` lanes of v moved to lane (i + s) % lanes. */
static kiln_value *rotate(kiln_builder *b, kiln_value *v, int lanes, int s) {
  int64_t mask[64];
  for (int64_t i = 0; i < v->type->shape[0]; i++) mask[i] = i / lanes * lanes + (i % lanes - s + lanes) % lanes;
  return shuffle(b, v, mask);
}

/* Reduction loops from level p inward; innermost: the fma block. */
static void emit_k(kiln_builder *b, const cpu_ukernel *uk, int p, kiln_value **k,
                   kiln_value *const *acc, kiln_value **out) {
  uint32_t n = (uint32_t)(uk->mr * uk->nr);
  kiln_builder body;
  kiln_op *loop = cg_for(b, uk->klo[p], uk->khi[p], cg_index(b, 1), n, acc, &body);
  k[p] = cg_for_iv(loop);
  kiln_value *inner[CPU_UK_MAX_ACC], *next[CPU_UK_MAX_ACC];
  for (uint32_t i = 0; i < n; i++) inner[i] = loop->regions[0].first->args[1 + i];
  if (p + 1 < uk->nk) {
    emit_k(&body, uk, p + 1, k, inner, next);
  } else {
    if (uk->k_begin) uk->k_begin(&body, uk->user, k);
    kiln_value *bv[CPU_UK_MAX_NR * CPU_UK_MAX_LANES];
    /* Lane groups broadcast in-lane; rotated ones take A as loaded (the
     * plain loop below, without its broadcast). */
    const bool inlanes = uk->lanes && !uk->rotate;
    if (inlanes) {
      for (uint32_t i = 0; i < n; i++) next[i] = inner[i];
      for (int q = 0; q < uk->nr * uk->lanes; q++) bv[q] = uk->load_b(&body, uk->user, q, k);
      for (int r = 0; r < uk->mr; r++) {
        kiln_value *v = uk->load_a(&body, uk->user, r, k);
        for (int e = 0; e < uk->lanes; e++) {
          kiln_value *a = inlane(&body, v, uk->lanes, e);
          for (int q = 0; q < uk->nr; q++) {
            kiln_value *fma[3] = {a, bv[e * uk->nr + q], next[r * uk->nr + q]};
            next[r * uk->nr + q] = kiln_op_result(kiln_build(&body, KILN_OP_VECTOR_FMA, 3, fma, 1, &uk->vt, NULL), 0);
          }
        }
      }
    }
    for (int q = 0; !inlanes && q < uk->nr; q++) bv[q] = uk->load_b(&body, uk->user, q, k);
    for (int r = 0; !inlanes && r < uk->mr; r++) {
      kiln_value *a = uk->load_a(&body, uk->user, r, k);
      if (!uk->dot4 && !uk->rotate) a = cg_broadcast(&body, a, uk->vt);
      for (int q = 0; q < uk->nr; q++) {
        kiln_value *fma[3] = {a, bv[q], inner[r * uk->nr + q]};
        kiln_value *dot[3] = {inner[r * uk->nr + q], a, bv[q]};
        const kiln_attr *attrs = NULL;
        if (uk->dot4) {
          kiln_named_attr na[3];
          uint32_t nna = 0;
          if (uk->isa) na[nna++] = (kiln_named_attr){"isa", kiln_attr_string(b->ctx, uk->isa, strlen(uk->isa))};
          if (uk->signed_a) na[nna++] = (kiln_named_attr){"signed_a", kiln_attr_unit(b->ctx)};
          if (uk->pairs) na[nna++] = (kiln_named_attr){"pairs", kiln_attr_unit(b->ctx)};
          if (nna) attrs = kiln_attr_dict(b->ctx, nna, na);
        }
        next[r * uk->nr + q] = kiln_op_result(
            kiln_build(&body, uk->dot4 ? KILN_OP_VECTOR_DOT4 : KILN_OP_VECTOR_FMA, 3, uk->dot4 ? dot : fma, 1,
                       &uk->vt, attrs),
            0);
      }
    }
  }
  cg_for_set_yield(loop, n, next);
  for (uint32_t i = 0; i < n; i++) out[i] = kiln_op_result(loop, i);
}

void cpu_emit_ukernel(kiln_builder *b, const cpu_ukernel *uk) {
  kiln_value *acc[CPU_UK_MAX_ACC], *fin[CPU_UK_MAX_ACC], *k[KILN_MAX_LOOPS];
  if (uk->c_begin) uk->c_begin(b, uk->user);
  for (int r = 0; r < uk->mr; r++)
    for (int q = 0; q < uk->nr; q++)
      acc[r * uk->nr + q] = uk->rotate && q ? cg_broadcast(b, cg_const_like(b, uk->vt->elem, 0.0, 0), uk->vt) : uk->load_c(b, uk->user, r, q);
  emit_k(b, uk, 0, k, acc, fin);
  for (int r = 0; r < uk->mr; r++) {
    if (uk->rotate) {
      kiln_value *v = fin[r * uk->nr];
      for (int q = 1; q < uk->nr; q++)
        v = cg_bin(b, KILN_OP_ARITH_ADDF, v, rotate(b, fin[r * uk->nr + q], uk->lanes, q));
      uk->store_c(b, uk->user, r, 0, v);
      continue;
    }
    for (int q = 0; q < uk->nr; q++) uk->store_c(b, uk->user, r, q, fin[r * uk->nr + q]);
  }
  if (uk->c_end) uk->c_end(b, uk->user);
}
