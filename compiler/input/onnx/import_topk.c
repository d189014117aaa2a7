/* TopK (the -11 form; TopK-1's `k` attribute and TopK-10 convert by the
 * table): the K largest (or smallest) elements along an axis, with their
 * indices, sorted.
 *
 * Takes: numeric X, a one-element K: a constant, or a graph input read
 * from its data at run time (the output's axis is then '?', K checked to
 * be in [0, N] on the host). Guarantees: two generics and no sort: the
 * rank of each element along the axis (how many elements precede it in
 * the order: larger, or equal at a lower index, so ties keep the lower
 * index first as ONNX asks, and NaN counts as larger than any number the
 * way numpy's reference sorts it), then output position k takes the
 * element of rank k. O(n^2) per row along the axis, which the small axes
 * TopK meets in models (classes, anchors) afford. `sorted` = 0 leaves the
 * order unspecified, so the sorted order serves it too. */
#include "import_internal.h"

typedef struct {
  uint32_t rank, axis;
  bool largest, isf, isu;
} topk_user;

/* rank[.., i, ..] += (x[.., j, ..] precedes x[.., i, ..]), j the last loop */
static bool rank_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  topk_user *t = u;
  kiln_value *xi = a[0], *xj = a[1], *acc = a[2];
  kiln_value *i = oi_loop_index(b, t->axis), *j = oi_loop_index(b, t->rank);
  kiln_value *before;
  kiln_value *tie = oi_cmpi(b, OI_ULT, j, i);
  if (t->isf) { /* NaN sorts as the largest: first for largest, last for smallest */
    kiln_value *jn = oi_cmpf(b, OI_F_UNO, xj, xj), *in = oi_cmpf(b, OI_F_UNO, xi, xi);
    kiln_value *num = oi_op2(b, KILN_OP_ARITH_ORI, oi_cmpf(b, t->largest ? OI_F_OGT : OI_F_OLT, xj, xi),
                             oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OEQ, xj, xi), tie));
    kiln_value *both = oi_op2(b, KILN_OP_ARITH_ANDI, jn, in), *any = oi_op2(b, KILN_OP_ARITH_ORI, jn, in);
    before = oi_select(b, both, tie, oi_select(b, any, t->largest ? jn : in, num));
  } else {
    int p = t->largest ? (t->isu ? OI_UGT : OI_SGT) : (t->isu ? OI_ULT : OI_SLT);
    before = oi_op2(b, KILN_OP_ARITH_ORI, oi_cmpi(b, p, xj, xi),
                    oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpi(b, OI_EQ, xj, xi), tie));
  }
  const kiln_type *i64 = acc->type;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, acc,
                oi_select(b, before, oi_scalar(b, i64, 0, 1), oi_scalar(b, i64, 0, 0)));
  return true;
}

/* out[.., k, ..] = x[.., i, ..] where rank[.., i, ..] == k, i the last loop */
static bool pick_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  topk_user *t = u;
  kiln_value *x = a[0], *rk = a[1], *v = a[2], *ix = a[3];
  kiln_value *hit = oi_cmpi(b, OI_EQ, rk, oi_loop_index_i64(b, t->axis));
  y[0] = oi_select(b, hit, x, v);
  y[1] = oi_select(b, hit, oi_loop_index_i64(b, t->rank), ix);
  return true;
}

bool oi_import_topk(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "largest", "sorted", NULL};
  if (!oi_arity(c, n, 2, 2, 2, 2) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *kv = x ? oi_in(c, n, 1) : NULL;
  if (!kv || !oi_check_type(c, x, OI_T_NUM, "input 0 (X)")) return false;
  int64_t axis, largest, sorted_;
  uint32_t ax;
  const kiln_type *t = x->type;
  if (!oi_attr_int(c, n, "axis", -1, &axis) || !oi_attr_int(c, n, "largest", 1, &largest) ||
      !oi_attr_int(c, n, "sorted", 1, &sorted_) || !oi_axis(c, axis, t->rank, "axis", &ax))
    return false;
  int64_t *kk, cnt;
  kiln_value **kd; /* K known at run time only */
  if (!oi_shape_ints(c, kv, "input 1 (K)", &kk, &kd, &cnt)) return false;
  if (cnt != 1) return oi_invalid(c, "K must hold one element, has %lld", (long long)cnt);
  int64_t K = kk[0], N = t->shape[ax];
  if (kd[0] && oi_has_dyn(t)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time K for an input with run-time dims");
  if (kd[0]) { /* 0 <= K <= N, checked on the host */
    oi_check_shape(c, 1, &K, kd, t->elem);
    oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MINSI, kd[0], oi_index(c, N)), kd[0]);
  } else if (K < 0 || K > N) {
    return oi_invalid(c, "K = %lld for an axis of %lld elements", (long long)K, (long long)N);
  }
  if (t->rank + 1 > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", t->rank, OI_MAX_RANK - 1);
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = d == ax ? K : t->shape[d];
  const kiln_type *vt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  const kiln_type *it = oi_tensor_type(c, t->rank, shape, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  if (!kd[0] && (K == 0 || oi_numel(vt) == 0)) {
    oi_set_out(c, n, 0, oi_empty(c, vt), x->dtype);
    oi_set_out(c, n, 1, oi_empty(c, it), ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
    return true;
  }
  topk_user u = {t->rank, ax, largest != 0, oi_dtype_is_float(x->dtype), oi_dtype_is_unsigned(x->dtype)};
  uint32_t loops = t->rank + 1;
  int64_t own[OI_MAX_RANK], other[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) own[d] = d, other[d] = d == ax ? t->rank : d;
  bool red[OI_MAX_RANK] = {0};
  red[t->rank] = true;
  /* ranks: loops (x dims, j) */
  const kiln_type *rt = oi_tensor_type(c, t->rank, t->shape, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  kiln_value *rk0 = oi_filled(c, rt, 0, 0), *ins[2] = {xv, xv};
  const kiln_affine_map *m_own = oi_map_dims(c, loops, t->rank, own);
  const kiln_affine_map *m_other = oi_map_dims(c, loops, t->rank, other);
  const kiln_affine_map *maps1[3] = {m_own, m_other, m_own};
  kiln_op *g = oi_generic(c, 2, ins, 1, &rk0, maps1, loops, red, rank_body, &u);
  if (!g) return false;
  /* picks: loops (output dims with k at the axis, i) */
  double f;
  int64_t iv;
  oi_elem_lowest(t->elem, x->dtype, &f, &iv);
  kiln_value *outs[2] = {kd[0] ? oi_fill_into(c, oi_empty_dims(c, vt, kd), f, iv) : oi_filled(c, vt, f, iv),
                         kd[0] ? oi_fill_into(c, oi_empty_dims(c, it, kd), 0, 0) : oi_filled(c, it, 0, 0)};
  kiln_value *ins2[2] = {xv, kiln_op_result(g, 0)};
  const kiln_affine_map *maps2[4] = {m_other, m_other, m_own, m_own};
  kiln_op *p = oi_generic(c, 2, ins2, 2, outs, maps2, loops, red, pick_body, &u);
  if (!p) return false;
  oi_set_out(c, n, 0, kiln_op_result(p, 0), x->dtype);
  oi_set_out(c, n, 1, kiln_op_result(p, 1), ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}
