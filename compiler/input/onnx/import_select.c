/* Selection family, whose output sizes depend on data: Compress, NonZero,
 * Unique, NonMaxSuppression.
 *
 * Takes: nodes of those ops. Guarantees: when the data that decides the
 * size is an import-time constant (Compress's condition, NonZero's
 * input), the result is computed here (Compress: a gather of the kept
 * positions; NonZero: a constant). When it is a run-time tensor of static
 * shape in the top-level graph, kernels compute the kept positions (the
 * flat index of each set element: an exclusive prefix count per element,
 * O(n^2), then position k takes the element whose count is k) and their
 * number, which the host reads once those ran (oi_host_read) to size the
 * output. Otherwise (Unique, NonMaxSuppression, run-time dims, inside a
 * subgraph) the error kind is "dynamic", naming what decides the size. */
#include "import_internal.h"

typedef struct { kiln_value *x; uint32_t axis; } take_user;

/* out[.., k, ..] = x[.., idx[k], ..]; idx (index table) is input 0 */
static bool take_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  take_user *t = u;
  const kiln_type *xt = t->x->type, *it = kiln_type_index(b->ctx);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = t->x;
  for (uint32_t d = 0; d < xt->rank; d++)
    ops[1 + d] = d == t->axis ? kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &a[0], 1, &it, NULL), 0)
                              : oi_loop_index(b, d);
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, xt->rank + 1, ops, 1, &xt->elem, NULL), 0);
  return true;
}

/* ---- kept positions of a run-time tensor --------------------------------- */

typedef struct { bool isf; } nz_user;

/* x != 0 as i64 0/1 (NaN counts as set, as numpy's nonzero has it) */
static kiln_value *is_set(kiln_builder *b, const nz_user *u, kiln_value *x) {
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *z = oi_scalar(b, x->type, 0, 0);
  kiln_value *f = u->isf ? oi_cmpf(b, OI_F_UNE, x, z) : oi_cmpi(b, OI_NE, x, z);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_EXTUI, 1, &f, 1, &i64, NULL), 0);
}

/* before[i] += set(x[j]) for j < i; loops (i, j) */
static bool before_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  kiln_value *i = oi_loop_index(b, 0), *j = oi_loop_index(b, 1);
  kiln_value *add = oi_op2(b, KILN_OP_ARITH_ADDI, a[1], is_set(b, u, a[0]));
  y[0] = oi_select(b, oi_cmpi(b, OI_ULT, j, i), add, a[1]);
  return true;
}

/* count += set(x[i]) */
static bool count_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, a[1], is_set(b, u, a[0]));
  return true;
}

/* pos[k] += i when x[i] is set and before[i] == k; loops (k, i) */
static bool pick_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  kiln_value *k = oi_loop_index_i64(b, 0), *i = oi_loop_index_i64(b, 1);
  kiln_value *hit = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpi(b, OI_EQ, a[1], k),
                           oi_cmpi(b, OI_NE, is_set(b, u, a[0]), oi_scalar(b, a[2]->type, 0, 0)));
  y[0] = oi_select(b, hit, oi_op2(b, KILN_OP_ARITH_ADDI, a[2], i), a[2]);
  return true;
}

/* An i64 tensor of the given shape ('?' dims from dims) filled with 0. */
static kiln_value *zeros_i64(oi_ctx *c, uint32_t rank, const int64_t *shape, kiln_value *const *dims) {
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  const kiln_type *t = kiln_type_tensor(c->ctx, rank, shape, i64, NULL);
  kiln_value *e = oi_empty_dims(c, t, dims);
  kiln_value *ops[2] = {oi_scalar(&c->b, i64, 0, 0), e};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, NULL), 0);
}

/* The flat indices of the set elements of x (1-D, static length n), in
 * order: a tensor<?xi64> whose length *k the host reads at run time. */
static kiln_value *kept_positions(oi_ctx *c, kiln_value *x, bool isf, kiln_value **k) {
  nz_user u = {isf};
  int64_t n = x->type->shape[0];
  const bool red2[2] = {false, true}, red1[1] = {true};
  int64_t d0 = 0, d1 = 1;
  /* before[i]: how many set elements precede i */
  kiln_value *zb = zeros_i64(c, 1, &n, NULL);
  const kiln_affine_map *mb[2] = {oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 1, &d0)};
  kiln_op *gb = oi_generic(c, 1, &x, 1, &zb, mb, 2, red2, before_body, &u);
  /* their number */
  kiln_value *zc = zeros_i64(c, 0, NULL, NULL);
  const kiln_affine_map *mc[2] = {oi_map_dims(c, 1, 1, &d0), oi_map_dims(c, 1, 0, NULL)};
  kiln_op *gc = oi_generic(c, 1, &x, 1, &zc, mc, 1, red1, count_body, &u);
  if (!gb || !gc) return NULL;
  *k = oi_host_read(c, kiln_op_result(gc, 0), 0);
  int64_t dyn = KILN_DYNAMIC;
  kiln_value *zp = zeros_i64(c, 1, &dyn, k);
  kiln_value *ins[2] = {x, kiln_op_result(gb, 0)};
  const kiln_affine_map *mp[3] = {oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 1, &d0)};
  kiln_op *gp = oi_generic(c, 2, ins, 1, &zp, mp, 2, red2, pick_body, &u);
  return gp ? kiln_op_result(gp, 0) : NULL;
}

/* Can kept_positions run on x (static shape, top-level graph)? Else the
 * "dynamic" refusal naming what decides the size. */
static bool positions_possible(oi_ctx *c, oi_val *x, const char *what) {
  if (oi_has_dyn(x->type) || !oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s is computed at run time and decides the output's shape "
                                             "(%s)", what, oi_has_dyn(x->type) ? "with run-time dims" : "inside a subgraph");
  return true;
}

/* Compress with a run-time condition: the kept positions of the
 * condition's first min(len, axis size) entries, then a gather. */
static bool compress_run_time(oi_ctx *c, oi_node *n, oi_val *x, kiln_value *xv, oi_val *cv, uint32_t ax) {
  if (!positions_possible(c, cv, "input 1 (condition)") ||
      (oi_has_dyn(x->type) && !oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input 0 has run-time dims")))
    return false;
  const kiln_type *t = xv->type;
  kiln_value *cond = oi_ir(c, cv);
  if (!cond) return false;
  if (cv->type->shape[0] > t->shape[ax])
    return oi_invalid(c, "condition has %lld entries for an axis of %lld", (long long)cv->type->shape[0],
                      (long long)t->shape[ax]);
  kiln_value *k;
  kiln_value *idx = kept_positions(c, cond, false, &k);
  if (!idx) return false;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = d == ax ? KILN_DYNAMIC : t->shape[d];
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  kiln_value *dv[OI_MAX_RANK] = {0};
  dv[ax] = k;
  oi_check_shape(c, t->rank, shape, dv, rt->elem);
  kiln_value *out = oi_empty_dims(c, rt, &k);
  int64_t ad = ax;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, t->rank, 1, &ad), kiln_affine_map_identity(c->ctx, t->rank)};
  take_user tu = {xv, ax};
  kiln_op *g = oi_generic(c, 1, &idx, 1, &out, maps, t->rank, NULL, take_body, &tu);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

bool oi_import_compress(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *cv = x ? oi_in(c, n, 1) : NULL;
  if (!cv || !oi_check_type(c, cv, OI_T_BOOL, "condition")) return false;
  if (cv->type->rank != 1) return oi_invalid(c, "condition must be 1-D");
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  uint32_t ax = 0;
  if (oi_attr(n, "axis")) {
    int64_t axis;
    if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_axis(c, axis, x->type->rank, "axis", &ax)) return false;
  } else { /* no axis: the flattened input */
    int64_t total = oi_numel(x->type);
    xv = oi_reshape(c, xv, 1, &total);
  }
  if (!oi_const(c, cv)) return compress_run_time(c, n, x, xv, cv, ax);
  int64_t *keep, cnt;
  if (!oi_const_ints(c, cv, "input 1 (condition)", &keep, &cnt)) return false;
  const kiln_type *t = xv->type;
  if (cnt > t->shape[ax])
    return oi_invalid(c, "condition has %lld entries for an axis of %lld", (long long)cnt, (long long)t->shape[ax]);
  int64_t *idx = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *idx), k = 0;
  for (int64_t i = 0; i < cnt; i++)
    if (keep[i]) idx[k++] = i;
  int64_t shape[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = d == ax ? k : t->shape[d];
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  kiln_value *out = oi_empty(c, rt);
  if (oi_numel(rt) > 0) {
    kiln_value *tab = kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 1, &k, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), idx));
    int64_t ad = ax;
    const kiln_affine_map *maps[2] = {oi_map_dims(c, t->rank, 1, &ad), kiln_affine_map_identity(c->ctx, t->rank)};
    take_user tu = {xv, ax};
    kiln_op *g = oi_generic(c, 1, &tab, 1, &out, maps, t->rank, NULL, take_body, &tu);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, x->dtype);
  return true;
}

typedef struct { uint32_t rank; int64_t stride[OI_MAX_RANK], dim[OI_MAX_RANK]; } coord_user;

/* out[d, k] = coordinate d of flat index pos[k]; loops (d, k) */
static bool coord_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const coord_user *cu = u;
  const kiln_type *i64 = a[0]->type;
  kiln_value *d = oi_loop_index_i64(b, 0), *r = oi_scalar(b, i64, 0, 0);
  for (uint32_t k = 0; k < cu->rank; k++) {
    kiln_value *q = oi_op2(b, KILN_OP_ARITH_DIVSI, a[0], oi_scalar(b, i64, 0, cu->stride[k]));
    q = oi_op2(b, KILN_OP_ARITH_REMSI, q, oi_scalar(b, i64, 0, cu->dim[k]));
    r = oi_select(b, oi_cmpi(b, OI_EQ, d, oi_scalar(b, i64, 0, k)), q, r);
  }
  y[0] = r;
  return true;
}

/* NonZero of a run-time tensor: the kept positions of the flattened
 * input, then each one's coordinates. */
static bool nonzero_run_time(oi_ctx *c, oi_node *n, oi_val *x) {
  if (!positions_possible(c, x, "input 0")) return false;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  int64_t total = oi_numel(x->type);
  if (x->type->rank != 1) xv = oi_reshape(c, xv, 1, &total);
  kiln_value *k;
  kiln_value *pos = kept_positions(c, xv, oi_dtype_is_float(x->dtype), &k);
  if (!pos) return false;
  coord_user cu = {x->type->rank, {0}, {0}};
  int64_t st = 1;
  for (uint32_t d = cu.rank; d-- > 0;) {
    cu.dim[d] = x->type->shape[d] ? x->type->shape[d] : 1;
    cu.stride[d] = st;
    st *= cu.dim[d];
  }
  int64_t shape[2] = {cu.rank, KILN_DYNAMIC};
  kiln_value *dv[2] = {NULL, k};
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  oi_check_shape(c, 2, shape, dv, i64);
  kiln_value *out = oi_empty_dims(c, kiln_type_tensor(c->ctx, 2, shape, i64, NULL), &k);
  int64_t d1 = 1;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, 2, 1, &d1), kiln_affine_map_identity(c->ctx, 2)};
  kiln_op *g = oi_generic(c, 1, &pos, 1, &out, maps, 2, NULL, coord_body, &cu);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}

bool oi_import_nonzero(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (!oi_const(c, x)) return nonzero_run_time(c, n, x);
  double *v;
  int64_t cnt;
  if (!oi_const_floats(c, x, "input 0", &v, &cnt)) return false;
  uint32_t r = x->type->rank;
  int64_t nz = 0;
  for (int64_t i = 0; i < cnt; i++) nz += v[i] != 0;
  int64_t shape[2] = {r, nz};
  int64_t *out = kiln_alloc(c->ctx, (size_t)(r * nz + 1) * sizeof *out), k = 0;
  for (int64_t i = 0; i < cnt; i++) {
    if (v[i] == 0) continue;
    int64_t rem = i;
    for (int d = (int)r - 1; d >= 0; d--) {
      int64_t sz = x->type->shape[d];
      out[d * nz + k] = rem % sz;
      rem /= sz;
    }
    k++;
  }
  int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 2, shape, I64), out), I64);
  return true;
}

/* Unique and NonMaxSuppression: how many elements / boxes survive is the
 * output's length. */
bool oi_import_data_sized(oi_ctx *c, oi_node *n) {
  return oi_fail(c, KILN_ONNX_ERR_DYNAMIC,
                 "the output's length depends on the input values (%s); dynamic shapes are needed", n->op_type);
}
