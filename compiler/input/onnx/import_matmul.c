/* Matrix family: MatMul (numpy semantics: 1-D promotion, batch
 * broadcasting), Gemm (alpha, beta, transA, transB, optional C) and Det.
 *
 * Takes: float or integer operands (MatMul: run-time dims too). Guarantees: a 2-D
 * product is linalg.matmul and equal-batch 3-D products linalg.batch_matmul
 * on a zero-filled init; a batched left operand times a 2-D right one is
 * one linalg.matmul over the batch's rows (reshapes around it); equal
 * batch dims of run-time size one linalg.batch_matmul over the merged
 * batch; other batch shapes are one linalg.generic with
 * broadcasting maps and reduction loop k; Gemm's scaling and bias are one
 * elementwise generic after the product. */
#include "import_internal.h"

static bool mac_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  bool isf = kiln_type_is_float(a[2]->type);
  y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, a[2],
                oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, a[0], a[1]));
  return true;
}

static kiln_value *named(oi_ctx *c, kiln_op_kind k, kiln_value *a, kiln_value *b, kiln_value *init) {
  kiln_value *ops[3] = {a, b, init};
  int64_t seg[2] = {2, 1};
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "operandSegmentSizes"),
                       kiln_attr_dense_array(c->ctx, kiln_type_int(c->ctx, 32), 2, seg, NULL)};
  return kiln_op_result(kiln_build(&c->b, k, 3, ops, 1, &init->type, kiln_attr_dict(c->ctx, 1, &e)), 0);
}

/* a: [..., M, K], b: [..., K, N] (ranks >= 2 after promotion). */
static kiln_value *batched(oi_ctx *c, kiln_value *a, kiln_value *b, const char *what) {
  const kiln_type *ta = a->type, *tb = b->type;
  int64_t M = ta->shape[ta->rank - 2], K = ta->shape[ta->rank - 1];
  int64_t K2 = tb->shape[tb->rank - 2], N = tb->shape[tb->rank - 1];
  if (K != K2) {
    oi_invalid(c, "%s: inner dimensions differ (%lld and %lld)", what, (long long)K, (long long)K2);
    return NULL;
  }
  uint32_t ba = ta->rank - 2, bb = tb->rank - 2, br = ba > bb ? ba : bb;
  int64_t bs[OI_MAX_RANK];
  for (uint32_t d = 0; d < br; d++) {
    int64_t x = d + ba >= br ? ta->shape[d + ba - br] : 1, y = d + bb >= br ? tb->shape[d + bb - br] : 1;
    if (x != y && x != 1 && y != 1) {
      oi_invalid(c, "%s: batch dimensions %lld and %lld do not broadcast", what, (long long)x, (long long)y);
      return NULL;
    }
    bs[d] = x == 1 ? y : x;
  }
  int64_t os[OI_MAX_RANK];
  for (uint32_t d = 0; d < br; d++) os[d] = bs[d];
  os[br] = M, os[br + 1] = N;
  const kiln_type *ot = kiln_type_with_shape(c->ctx, ta, br + 2, os);
  if (br > 0 && bb == 0) {
    /* [..., M, K] x [K, N] (a Linear layer on a batch of sequences): one
     * [prod(...) * M, K] x [K, N] matmul, whose rows the batch dims just
     * extend; the reshapes are views. */
    if (oi_has_dyn(ta)) { /* rows of run-time count: the same through index dims */
      kiln_value *a2 = oi_merge_leading(c, a, br + 1);
      int64_t s2[2] = {a2->type->shape[0], N};
      kiln_value *init2 = oi_filled(c, kiln_type_with_shape(c->ctx, ta, 2, s2), 0, 0);
      kiln_value *r = named(c, KILN_OP_LINALG_MATMUL, a2, b, init2);
      return r ? oi_split_leading(c, r, a, br + 1) : NULL;
    }
    int64_t rows = M, s2[2];
    for (uint32_t d = 0; d < br; d++) rows *= bs[d];
    s2[0] = rows, s2[1] = K;
    kiln_value *a2 = oi_reshape(c, a, 2, s2);
    s2[1] = N;
    kiln_value *init2 = oi_filled(c, kiln_type_with_shape(c->ctx, ta, 2, s2), 0, 0);
    kiln_value *r = named(c, KILN_OP_LINALG_MATMUL, a2, b, init2);
    return r ? oi_reshape(c, r, br + 2, os) : NULL;
  }
  /* Equal batch dims with run-time sizes (attention's [b, h, s, dh]
   * products over a run-time batch and sequence): one batch_matmul over
   * the merged batch, whose run-time rows and columns the matmul
   * microkernel takes; a generic with several batch dims and run-time rows
   * or columns is no implicit GEMM and would be tiled as a matvec. */
  bool same_batch = br > 1 && ba == br && bb == br && (oi_has_dyn(ta) || oi_has_dyn(tb));
  for (uint32_t d = 0; same_batch && d < br; d++) same_batch = ta->shape[d] == tb->shape[d];
  if (same_batch) {
    kiln_value *a3 = oi_merge_leading(c, a, br);
    kiln_value *b3 = a3 ? oi_merge_leading(c, b, br) : NULL;
    if (!b3) return NULL;
    int64_t s3[3] = {a3->type->shape[0], M, N};
    kiln_value *init3 = oi_filled(c, kiln_type_with_shape(c->ctx, ta, 3, s3), 0, 0);
    kiln_value *r = init3 ? named(c, KILN_OP_LINALG_BATCH_MATMUL, a3, b3, init3) : NULL;
    return r ? oi_split_leading(c, r, a, br) : NULL;
  }
  kiln_value *init = oi_filled(c, ot, 0, 0);
  if (br == 0) return named(c, KILN_OP_LINALG_MATMUL, a, b, init);
  if (br == 1 && ba == 1 && bb == 1 && ta->shape[0] == tb->shape[0])
    return named(c, KILN_OP_LINALG_BATCH_MATMUL, a, b, init);
  /* loops: batch..., m, n, k */
  uint32_t loops = br + 3;
  int64_t da[OI_MAX_RANK], db[OI_MAX_RANK], dout[OI_MAX_RANK];
  for (uint32_t d = 0; d < ba; d++) {
    uint32_t l = d + br - ba;
    da[d] = ta->shape[d] == 1 && bs[l] != 1 ? -1 : (int64_t)l;
  }
  for (uint32_t d = 0; d < bb; d++) {
    uint32_t l = d + br - bb;
    db[d] = tb->shape[d] == 1 && bs[l] != 1 ? -1 : (int64_t)l;
  }
  da[ba] = br, da[ba + 1] = br + 2;
  db[bb] = br + 2, db[bb + 1] = br + 1;
  for (uint32_t d = 0; d < br + 2; d++) dout[d] = d;
  bool red[OI_MAX_RANK + 3] = {0};
  red[br + 2] = true;
  const kiln_affine_map *maps[3] = {oi_map_dims(c, loops, ta->rank, da), oi_map_dims(c, loops, tb->rank, db),
                                    oi_map_dims(c, loops, br + 2, dout)};
  kiln_value *ins[2] = {a, b};
  kiln_op *g = oi_generic(c, 2, ins, 1, &init, maps, loops, red, mac_body, NULL);
  return g ? kiln_op_result(g, 0) : NULL;
}

kiln_value *oi_matmul_ir(oi_ctx *c, kiln_value *va, kiln_value *vb) {
  uint32_t ra = va->type->rank, rb = vb->type->rank;
  if (ra == 0 || rb == 0) {
    oi_invalid(c, "MatMul needs inputs of rank >= 1 (ranks %u and %u)", ra, rb);
    return NULL;
  }
  if (ra + 1 > OI_MAX_RANK || rb + 1 > OI_MAX_RANK) {
    oi_unsupported(c, "rank too large");
    return NULL;
  }
  /* 1-D operands get a unit dim that is dropped again afterwards */
  int64_t s[OI_MAX_RANK];
  if (ra == 1) {
    s[0] = 1, s[1] = va->type->shape[0];
    va = oi_reshape(c, va, 2, s);
  }
  if (rb == 1) {
    s[0] = vb->type->shape[0], s[1] = 1;
    vb = oi_reshape(c, vb, 2, s);
  }
  kiln_value *r = batched(c, va, vb, "MatMul");
  if (!r) return NULL;
  if (ra == 1 || rb == 1) {
    const kiln_type *t = r->type;
    uint32_t k = 0;
    for (uint32_t d = 0; d < t->rank; d++) {
      if (ra == 1 && d == t->rank - 2) continue;
      if (rb == 1 && d == t->rank - 1) continue;
      s[k++] = t->shape[d];
    }
    r = oi_reshape(c, r, k, s);
  }
  return r;
}

kiln_value *oi_matmul_i32(oi_ctx *c, kiln_value *a, kiln_value *b) {
  const kiln_type *ta = a->type, *tb = b->type;
  if (ta->rank < 2 || tb->rank != 2 || oi_dyn(ta, ta->rank - 1) || ta->shape[ta->rank - 1] != tb->shape[0]) return NULL;
  if (oi_has_dyn(ta)) { /* rows of run-time count (a dynamic batch): as in batched() */
    kiln_value *a2 = oi_merge_leading(c, a, ta->rank - 1);
    int64_t s2[2] = {a2->type->shape[0], tb->shape[1]};
    kiln_value *init = oi_filled(c, kiln_type_tensor(c->ctx, 2, s2, kiln_type_int(c->ctx, 32), NULL), 0, 0);
    kiln_value *r = init ? named(c, KILN_OP_LINALG_MATMUL, a2, b, init) : NULL;
    return r ? oi_split_leading(c, r, a, ta->rank - 1) : NULL;
  }
  int64_t rows = 1, s2[2], os[OI_MAX_RANK];
  for (uint32_t d = 0; d + 1 < ta->rank; d++) rows *= ta->shape[d], os[d] = ta->shape[d];
  os[ta->rank - 1] = tb->shape[1];
  s2[0] = rows, s2[1] = tb->shape[0];
  kiln_value *a2 = oi_reshape(c, a, 2, s2);
  s2[1] = tb->shape[1];
  kiln_value *init = oi_filled(c, kiln_type_tensor(c->ctx, 2, s2, kiln_type_int(c->ctx, 32), NULL), 0, 0);
  kiln_value *r = a2 && init ? named(c, KILN_OP_LINALG_MATMUL, a2, b, init) : NULL;
  return r ? oi_reshape(c, r, ta->rank, os) : NULL;
}

bool oi_import_matmul(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *a = oi_in(c, n, 0), *b = a ? oi_in(c, n, 1) : NULL;
  if (!b || !oi_check_type(c, a, OI_T_NUM, "input 0")) return false;
  if (a->dtype != b->dtype)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "input types differ (%s and %s)", oi_dtype_name(a->dtype),
                   oi_dtype_name(b->dtype));
  int q = oi_qdq_matmul(c, n, a, b); /* a quantized model's MatMul */
  if (q) return q > 0;
  kiln_value *va = oi_ir(c, a), *vb = oi_ir(c, b);
  if (!va || !vb) return false;
  kiln_value *r = oi_matmul_ir(c, va, vb);
  if (!r) return false;
  oi_set_out(c, n, 0, r, a->dtype);
  return true;
}

typedef struct { double alpha, beta; bool has_c; } gemm_user;

static bool gemm_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  gemm_user *g = u;
  kiln_value *x = a[0];
  bool isf = kiln_type_is_float(x->type);
  kiln_op_kind mul = isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, add = isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI;
  if (g->alpha != 1) x = oi_op2(b, mul, x, oi_scalar(b, x->type, g->alpha, (int64_t)g->alpha));
  if (g->has_c) {
    kiln_value *cc = a[1];
    if (g->beta != 1) cc = oi_op2(b, mul, cc, oi_scalar(b, x->type, g->beta, (int64_t)g->beta));
    x = oi_op2(b, add, x, cc);
  }
  y[0] = x;
  return true;
}

bool oi_import_gemm(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"alpha", "beta", "transA", "transB", NULL};
  if (!oi_arity(c, n, 2, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *a = oi_in(c, n, 0), *b = a ? oi_in(c, n, 1) : NULL, *cv = oi_opt_in(n, 2);
  if (!b || !oi_check_type(c, a, OI_T_NUM, "input 0")) return false;
  if (a->dtype != b->dtype || (cv && cv->dtype != a->dtype))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "input element types differ");
  if (a->type->rank != 2 || b->type->rank != 2)
    return oi_invalid(c, "A and B must be 2-D (ranks %u and %u)", a->type->rank, b->type->rank);
  gemm_user g = {1, 1, cv != NULL};
  int64_t ta, tb;
  if (!oi_attr_float(c, n, "alpha", 1, &g.alpha) || !oi_attr_float(c, n, "beta", 1, &g.beta) ||
      !oi_attr_int(c, n, "transA", 0, &ta) || !oi_attr_int(c, n, "transB", 0, &tb))
    return false;
  if (!ta && g.alpha == 1 && (!cv || g.beta == 1)) { /* a quantized model's Gemm */
    int q = oi_qdq_gemm(c, n, a, b, cv, tb != 0);
    if (q) return q > 0;
  }
  static const int64_t swap[2] = {1, 0};
  kiln_value *va = ta ? oi_transpose_val(c, a, swap) : oi_ir(c, a);
  kiln_value *vb = tb ? oi_transpose_val(c, b, swap) : oi_ir(c, b);
  if (!va || !vb) return false;
  kiln_value *r = batched(c, va, vb, "Gemm");
  if (!r) return false;
  if (g.alpha != 1 || cv) {
    kiln_value *ins[2] = {r, NULL};
    uint32_t k = 1;
    if (cv) {
      oi_val tmp = {.type = r->type};
      oi_val *vs[2] = {&tmp, cv};
      uint32_t rr;
      int64_t sh[OI_MAX_RANK];
      if (!oi_broadcast_shape(c, 2, vs, &rr, sh) || rr != 2 || sh[0] != r->type->shape[0] ||
          sh[1] != r->type->shape[1])
        return oi_invalid(c, "C does not broadcast to the %lldx%lld result", (long long)r->type->shape[0],
                          (long long)r->type->shape[1]);
      if (!(ins[k++] = oi_ir(c, cv))) return false;
    }
    r = oi_elementwise_ir(c, k, ins, 2, r->type->shape, r->type->elem, gemm_body, &g);
    if (!r) return false;
  }
  oi_set_out(c, n, 0, r, a->dtype);
  return true;
}

/* Det: one generic over the batch whose body reads the n x n matrix with
 * tensor.extract and runs Gaussian elimination with partial pivoting,
 * unrolled and branch-free (row swaps are selects; each flips the sign),
 * so n is bounded. A zero pivot column gives 0. */
#define OI_DET_MAX 16

typedef struct { kiln_value *x; uint32_t batch; int64_t n; } det_user;

static bool det_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  det_user *d = u;
  const kiln_type *et = d->x->type->elem, *it = kiln_type_index(b->ctx);
  int64_t n = d->n;
  kiln_value **m = kiln_alloc(c->ctx, (size_t)(n * n) * sizeof *m);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = d->x;
  for (uint32_t k = 0; k < d->batch; k++) ops[1 + k] = oi_loop_index(b, k);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) {
      ops[1 + d->batch] = oi_scalar(b, it, 0, i);
      ops[2 + d->batch] = oi_scalar(b, it, 0, j);
      m[i * n + j] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, d->batch + 3, ops, 1, &et, NULL), 0);
    }
  kiln_value *zero = oi_scalar(b, et, 0, 0), *det = oi_scalar(b, et, 1, 0);
  for (int64_t k = 0; k < n; k++) {
    for (int64_t i = k + 1; i < n; i++) { /* bring the largest |m[i][k]| to row k */
      kiln_value *sw = oi_cmpf(b, OI_F_OGT, oi_op1(b, KILN_OP_MATH_ABSF, m[i * n + k]),
                               oi_op1(b, KILN_OP_MATH_ABSF, m[k * n + k]));
      for (int64_t j = k; j < n; j++) {
        kiln_value *t = m[k * n + j];
        m[k * n + j] = oi_select(b, sw, m[i * n + j], t);
        m[i * n + j] = oi_select(b, sw, t, m[i * n + j]);
      }
      det = oi_select(b, sw, oi_op1(b, KILN_OP_ARITH_NEGF, det), det);
    }
    kiln_value *p = m[k * n + k];
    det = oi_op2(b, KILN_OP_ARITH_MULF, det, p);
    kiln_value *nz = oi_cmpf(b, OI_F_UNE, p, zero);
    for (int64_t i = k + 1; i < n; i++) {
      kiln_value *f = oi_select(b, nz, oi_op2(b, KILN_OP_ARITH_DIVF, m[i * n + k], p), zero);
      for (int64_t j = k + 1; j < n; j++)
        m[i * n + j] = oi_op2(b, KILN_OP_ARITH_SUBF, m[i * n + j], oi_op2(b, KILN_OP_ARITH_MULF, f, m[k * n + j]));
    }
  }
  y[0] = det;
  return true;
}

bool oi_import_det(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  const kiln_type *t = x->type;
  if (t->rank < 2 || t->shape[t->rank - 1] != t->shape[t->rank - 2])
    return oi_invalid(c, "input must be [..., M, M]");
  int64_t sz = t->shape[t->rank - 1];
  if (sz > OI_DET_MAX) return oi_unsupported(c, "%lldx%lld matrices (up to %dx%d)", (long long)sz, (long long)sz,
                                             OI_DET_MAX, OI_DET_MAX);
  uint32_t br = t->rank - 2;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, br, t->shape);
  det_user d = {oi_ir(c, x), br, sz};
  if (!d.x) return false;
  kiln_value *out = oi_empty(c, rt);
  if (oi_numel(rt) > 0) {
    const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, br);
    kiln_op *g = oi_generic(c, 0, NULL, 1, &out, &m, br, NULL, det_body, &d);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, x->dtype);
  return true;
}
