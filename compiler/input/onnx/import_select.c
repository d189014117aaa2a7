/* Selection family, whose output sizes depend on data: Compress, NonZero,
 * Unique (NonMaxSuppression: import_nms.c).
 *
 * Takes: nodes of those ops. Guarantees: when the data that decides the
 * size is an import-time constant (Compress's condition, NonZero's
 * input), the result is computed here (Compress: a gather of the kept
 * positions; NonZero: a constant). When it is a run-time tensor of static
 * shape in the top-level graph, a sequential kernel computes the kept
 * positions (the flat index of each set element, in one O(n) pass) and
 * their number, which the host reads once those ran (oi_host_read) to
 * size the output; Unique's pairwise O(n^2) kernels likewise (see its
 * section). NonZero and Compress take run-time dims too (the pass runs
 * to the length the host computes; a condition longer than Compress's
 * axis fails at run time). Otherwise (Unique with run-time dims, inside
 * a subgraph) the error kind is "dynamic", naming what decides the
 * size. */
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

/* The node's `axis` (normalized into *ax), or without one the input
 * flattened (*xv reshaped to 1-D, axis 0; merged when a dim is run-time). */
static bool axis_or_flat(oi_ctx *c, oi_node *n, oi_val *x, kiln_value **xv, uint32_t *ax) {
  *ax = 0;
  if (oi_attr(n, "axis")) {
    int64_t axis;
    return oi_attr_int(c, n, "axis", 0, &axis) && oi_axis(c, axis, x->type->rank, "axis", ax);
  }
  if (x->type->rank && oi_has_dyn(x->type)) {
    *xv = oi_merge_leading(c, *xv, x->type->rank);
    return *xv != NULL;
  }
  int64_t total = oi_numel(x->type);
  *xv = oi_reshape(c, *xv, 1, &total);
  return *xv != NULL;
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

/* An i64 tensor of the given shape ('?' dims from dims) filled with 0. */
static kiln_value *zeros_i64(oi_ctx *c, uint32_t rank, const int64_t *shape, kiln_value *const *dims) {
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  const kiln_type *t = kiln_type_tensor(c->ctx, rank, shape, i64, NULL);
  kiln_value *e = oi_empty_dims(c, t, dims);
  kiln_value *ops[2] = {oi_scalar(&c->b, i64, 0, 0), e};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, NULL), 0);
}

/* The flat indices of the set elements of x (1-D, length n static or
 * run-time), in order: a tensor<?xi64> whose length *k the host reads at
 * run time. One sequential pass (a host-level scf.for over tensors is a
 * dispatch of its own): pos[w] = i, w += set(x[i]), so O(n); a write at
 * an unset element is overwritten by the next set one or lies past w. */
static kiln_value *kept_positions(oi_ctx *c, kiln_value *x, bool isf, kiln_value **k) {
  nz_user u = {isf};
  int64_t n = x->type->shape[0], one = 1;
  const kiln_type *i64 = kiln_type_int(c->ctx, 64), *it = kiln_type_index(c->ctx);
  kiln_value *hi = oi_ir_dim(&c->b, x, 0);
  kiln_value *init[2];
  init[0] = zeros_i64(c, 1, &n, &hi);
  init[1] = zeros_i64(c, 1, &one, NULL);
  kiln_value *lo = oi_index(c, 0);
  kiln_builder b;
  kiln_value *i, *acc[2];
  kiln_op *loop = oi_for(&c->b, lo, hi, 2, init, &b, &i, acc);
  kiln_value *c0 = kiln_build_constant(&b, kiln_attr_int(c->ctx, it, 0));
  kiln_value *v = oi_extract(&b, x, 1, &i);
  kiln_value *set = is_set(&b, &u, v);
  kiln_value *w = oi_extract(&b, acc[1], 1, &c0);
  kiln_value *wi = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_INDEX_CAST, 1, &w, 1, &it, NULL), 0);
  kiln_value *i64v = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_INDEX_CAST, 1, &i, 1, &i64, NULL), 0);
  kiln_value *y[2];
  y[0] = oi_insert(&b, i64v, acc[0], 1, &wi);
  kiln_value *w1 = oi_op2(&b, KILN_OP_ARITH_ADDI, w, set);
  y[1] = oi_insert(&b, w1, acc[1], 1, &c0);
  oi_set_yield(loop, 0, 2, y);
  *k = oi_host_read(c, kiln_op_result(loop, 1), 0);
  if (!*k) return NULL;
  int64_t dyn = KILN_DYNAMIC;
  kiln_value *start = lo;
  return oi_read_window(c, kiln_op_result(loop, 0), &dyn, k, &start);
}

/* Can kept_positions run on x (top-level graph; run-time dims only where
 * ALLOW_DYN)? Else the "dynamic" refusal naming what decides the size. */
static bool positions_possible(oi_ctx *c, oi_val *x, const char *what, bool allow_dyn) {
  if ((!allow_dyn && oi_has_dyn(x->type)) || !oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s is computed at run time and decides the output's shape "
                                             "(%s)", what, oi_host_block(c) ? "with run-time dims" : "inside a subgraph");
  return true;
}

/* x with axis ax replaced by the k run-time positions idx (tensor<?xi64>,
 * k its host length): out[.., j, ..] = x[.., idx[j], ..]; x's other dims
 * static or run-time. */
static kiln_value *gather_positions(oi_ctx *c, kiln_value *x, uint32_t ax, kiln_value *idx, kiln_value *k) {
  const kiln_type *t = x->type;
  int64_t shape[OI_MAX_RANK];
  kiln_value *dv[OI_MAX_RANK] = {0}, *dims[OI_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    shape[d] = d == ax ? KILN_DYNAMIC : t->shape[d];
    if (d == ax) dv[d] = k;
    else if (shape[d] == KILN_DYNAMIC) dv[d] = oi_ir_dim(&c->b, x, d);
    if (dv[d]) dims[nd++] = dv[d];
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  oi_check_shape(c, t->rank, shape, dv, rt->elem);
  kiln_value *out = oi_empty_dims(c, rt, dims);
  int64_t ad = ax;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, t->rank, 1, &ad), kiln_affine_map_identity(c->ctx, t->rank)};
  take_user tu = {x, ax};
  kiln_op *g = oi_generic(c, 1, &idx, 1, &out, maps, t->rank, NULL, take_body, &tu);
  return g ? kiln_op_result(g, 0) : NULL;
}

/* Compress with a run-time condition: the kept positions of the
 * condition's first min(len, axis size) entries, then a gather. */
static bool compress_run_time(oi_ctx *c, oi_node *n, oi_val *x, kiln_value *xv, oi_val *cv, uint32_t ax) {
  if (!positions_possible(c, cv, "input 1 (condition)", true)) return false;
  const kiln_type *t = xv->type;
  kiln_value *cond = oi_ir(c, cv);
  if (!cond) return false;
  if (!oi_dyn(cv->type, 0) && !oi_dyn(t, ax)) {
    if (cv->type->shape[0] > t->shape[ax])
      return oi_invalid(c, "condition has %lld entries for an axis of %lld", (long long)cv->type->shape[0],
                        (long long)t->shape[ax]);
  } else {
    /* the gather reads x at every kept position: no condition entry may
     * lie past the axis */
    kiln_value *len = oi_ir_dim(&c->b, cond, 0);
    kiln_value *zero = oi_index(c, 0);
    kiln_value *axis = oi_ir_dim(&c->b, xv, ax);
    oi_check_range(c, len, zero, axis, "size", 0);
  }
  kiln_value *k;
  kiln_value *idx = kept_positions(c, cond, false, &k);
  kiln_value *out = idx ? gather_positions(c, xv, ax, idx, k) : NULL;
  if (!out) return false;
  oi_set_out(c, n, 0, out, x->dtype);
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
  if (!axis_or_flat(c, n, x, &xv, &ax)) return false;
  if (!oi_const(c, cv) || oi_has_dyn(xv->type)) return compress_run_time(c, n, x, xv, cv, ax);
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

/* Static strides and dims, or (stride_v, dim_v: host index values, the
 * kernel's push constants) when the input has run-time dims. */
typedef struct {
  uint32_t rank;
  int64_t stride[OI_MAX_RANK], dim[OI_MAX_RANK];
  kiln_value *stride_v[OI_MAX_RANK], *dim_v[OI_MAX_RANK];
} coord_user;

/* s as an i64 in the body: the constant, or host value v cast there */
static kiln_value *body_i64(kiln_builder *b, const kiln_type *i64, int64_t s, kiln_value *v) {
  if (!v) return oi_scalar(b, i64, 0, s);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &i64, NULL), 0);
}

/* out[d, k] = coordinate d of flat index pos[k]; loops (d, k) */
static bool coord_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const coord_user *cu = u;
  const kiln_type *i64 = a[0]->type;
  kiln_value *d = oi_loop_index_i64(b, 0), *r = oi_scalar(b, i64, 0, 0);
  for (uint32_t k = 0; k < cu->rank; k++) {
    kiln_value *stride = body_i64(b, i64, cu->stride[k], cu->stride_v[k]);
    kiln_value *q = oi_op2(b, KILN_OP_ARITH_DIVSI, a[0], stride);
    kiln_value *dim = body_i64(b, i64, cu->dim[k], cu->dim_v[k]);
    q = oi_op2(b, KILN_OP_ARITH_REMSI, q, dim);
    r = oi_select(b, oi_cmpi(b, OI_EQ, d, oi_scalar(b, i64, 0, k)), q, r);
  }
  y[0] = r;
  return true;
}

/* NonZero of a run-time tensor: the kept positions of the flattened
 * input, then each one's coordinates. */
static bool nonzero_run_time(oi_ctx *c, oi_node *n, oi_val *x) {
  if (!positions_possible(c, x, "input 0", true)) return false;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  const bool dyn = oi_has_dyn(x->type);
  int64_t total = oi_numel(x->type);
  kiln_value *orig = xv;
  if (dyn) xv = oi_merge_leading(c, xv, x->type->rank);
  else if (x->type->rank != 1) xv = oi_reshape(c, xv, 1, &total);
  kiln_value *k;
  kiln_value *pos = kept_positions(c, xv, oi_dtype_is_float(x->dtype), &k);
  if (!pos) return false;
  coord_user cu = {x->type->rank, {0}, {0}, {0}, {0}};
  int64_t st = 1;
  kiln_value *stv = NULL; /* the stride so far, once a dim is run-time */
  for (uint32_t d = cu.rank; d-- > 0;) {
    cu.dim[d] = x->type->shape[d] ? x->type->shape[d] : 1;
    cu.stride[d] = st;
    if (dyn) {
      /* host values (push constants in the kernel); max(dim, 1) as above */
      kiln_value *dim = oi_ir_dim(&c->b, orig, d);
      kiln_value *one = oi_index(c, 1);
      kiln_value *d1 = oi_ibin(c, KILN_OP_ARITH_MAXSI, dim, one);
      cu.stride_v[d] = stv ? stv : oi_index(c, st);
      cu.dim_v[d] = d1;
      stv = oi_ibin(c, KILN_OP_ARITH_MULI, cu.stride_v[d], d1);
    }
    st *= cu.dim[d] == KILN_DYNAMIC ? 1 : cu.dim[d];
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

/* ---- Unique ---------------------------------------------------------------
 * x viewed as [A, N, B] (N the axis; no axis: the flattened input, A = B =
 * 1): slice i is x[:, i, :]. Kernels compute, over pairs of slices:
 *   eq[i, j]   every element equal;
 *   dup[i]     some j < i with eq[i, j] (not the first occurrence);
 *   sorted:    lt[i, j] slice j precedes slice i (at the first element
 *              where they differ, row-major), rank[i] = #{first j: lt};
 *   unsorted:  f[i] = the first j with eq[i, j],
 *              rank[i] = #{first j: j < f[i]};
 *   their number K = #first, read by the host;
 *   pos[k]     the first i with rank k (indices), Y the slices at pos,
 *   inverse = rank, counts[k] = #{i: rank[i] = k}.
 * O(N^2 A B) work, fine for the axes Unique meets. */

typedef struct { uint32_t a_loop, b_loop; int64_t B; bool isf; } uq_user;

static kiln_value *ext_i64(kiln_builder *b, kiln_value *flag) {
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_EXTUI, 1, &flag, 1, &i64, NULL), 0);
}

static kiln_value *elem_eq(kiln_builder *b, bool isf, kiln_value *x, kiln_value *y) {
  return isf ? oi_cmpf(b, OI_F_OEQ, x, y) : oi_cmpi(b, OI_EQ, x, y);
}

/* eq[i, j] &= x_i == x_j; first differing flat position: min; loops
 * (i, j, a, b), outputs eq (init 1) and diff (init A * B) */
static bool uq_cmp_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const uq_user *q = u;
  kiln_value *same = elem_eq(b, q->isf, a[0], a[1]);
  y[0] = oi_op2(b, KILN_OP_ARITH_ANDI, a[2], ext_i64(b, same));
  kiln_value *p = oi_op2(b, KILN_OP_ARITH_ADDI,
                         oi_op2(b, KILN_OP_ARITH_MULI, oi_loop_index_i64(b, q->a_loop), oi_scalar(b, a[3]->type, 0, q->B)),
                         oi_loop_index_i64(b, q->b_loop));
  y[1] = oi_select(b, same, a[3], oi_op2(b, KILN_OP_ARITH_MINSI, a[3], p));
  return true;
}

/* dup[i] |= j < i && eq[i, j]; f[i] = min j with eq[i, j]; loops (i, j) */
static bool uq_dup_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  kiln_value *i = oi_loop_index_i64(b, 0), *j = oi_loop_index_i64(b, 1);
  kiln_value *e = oi_cmpi(b, OI_NE, a[0], oi_scalar(b, a[0]->type, 0, 0));
  y[0] = oi_op2(b, KILN_OP_ARITH_ORI, a[1], ext_i64(b, oi_op2(b, KILN_OP_ARITH_ANDI, e, oi_cmpi(b, OI_SLT, j, i))));
  y[1] = oi_select(b, e, oi_op2(b, KILN_OP_ARITH_MINSI, a[2], j), a[2]);
  return true;
}

typedef struct { kiln_value *x; int64_t A, B; bool isf, isu, sorted; } uq_rank_user;

/* rank[i] += first[j] && (sorted ? slice j < slice i : j < f[i]);
 * loops (i, j); inputs dup[j], diff[i, j], f[i] */
static bool uq_rank_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const uq_rank_user *q = u;
  const kiln_type *i64 = a[3]->type, *it = kiln_type_index(b->ctx);
  kiln_value *first = oi_cmpi(b, OI_EQ, a[0], oi_scalar(b, i64, 0, 0));
  kiln_value *before;
  if (q->sorted) {
    /* at the first differing position p = (pa, pb): x[pa, j, pb] < x[pa, i, pb] */
    kiln_value *M = oi_scalar(b, i64, 0, q->A * q->B);
    kiln_value *differ = oi_cmpi(b, OI_SLT, a[1], M);
    kiln_value *p = oi_select(b, differ, a[1], oi_scalar(b, i64, 0, 0));
    kiln_value *pa = oi_op2(b, KILN_OP_ARITH_DIVSI, p, oi_scalar(b, i64, 0, q->B));
    kiln_value *pb = oi_op2(b, KILN_OP_ARITH_REMSI, p, oi_scalar(b, i64, 0, q->B));
    kiln_value *ix[3], *vals[2];
    ix[0] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &pa, 1, &it, NULL), 0);
    ix[2] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &pb, 1, &it, NULL), 0);
    for (int w = 0; w < 2; w++) {
      ix[1] = oi_loop_index(b, w ? 0 : 1); /* j, then i */
      kiln_value *ops[4] = {q->x, ix[0], ix[1], ix[2]};
      vals[w] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 4, ops, 1, &q->x->type->elem, NULL), 0);
    }
    kiln_value *less = q->isf ? oi_cmpf(b, OI_F_OLT, vals[0], vals[1])
                              : oi_cmpi(b, q->isu ? OI_ULT : OI_SLT, vals[0], vals[1]);
    before = oi_op2(b, KILN_OP_ARITH_ANDI, differ, less);
  } else {
    before = oi_cmpi(b, OI_SLT, oi_loop_index_i64(b, 1), a[2]);
  }
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, a[3], ext_i64(b, oi_op2(b, KILN_OP_ARITH_ANDI, first, before)));
  return true;
}

/* K += first[i]; loops (i) */
static bool uq_count_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, a[1], oi_op2(b, KILN_OP_ARITH_SUBI, oi_scalar(b, a[0]->type, 0, 1), a[0]));
  return true;
}

/* pos[k] = the first i with rank k; counts[k] += rank[i] == k;
 * loops (k, i); inputs dup[i], rank[i] */
static bool uq_pick_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  const kiln_type *i64 = a[2]->type;
  kiln_value *k = oi_loop_index_i64(b, 0), *i = oi_loop_index_i64(b, 1);
  kiln_value *hit = oi_cmpi(b, OI_EQ, a[1], k);
  kiln_value *first = oi_cmpi(b, OI_EQ, a[0], oi_scalar(b, i64, 0, 0));
  y[0] = oi_select(b, oi_op2(b, KILN_OP_ARITH_ANDI, hit, first), i, a[2]);
  y[1] = oi_op2(b, KILN_OP_ARITH_ADDI, a[3], ext_i64(b, hit));
  return true;
}

/* An i64 tensor filled with v. */
static kiln_value *filled_i64(oi_ctx *c, uint32_t rank, const int64_t *shape, kiln_value *const *dims, int64_t v) {
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  const kiln_type *t = kiln_type_tensor(c->ctx, rank, shape, i64, NULL);
  kiln_value *ops[2] = {oi_scalar(&c->b, i64, 0, v), oi_empty_dims(c, t, dims)};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, NULL), 0);
}

bool oi_import_unique(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "sorted", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 4) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t sorted;
  if (!oi_attr_int(c, n, "sorted", 1, &sorted)) return false;
  if (!positions_possible(c, x, "input 0", false)) return false;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  uint32_t ax = 0;
  if (!axis_or_flat(c, n, x, &xv, &ax)) return false;
  const kiln_type *t = xv->type;
  int64_t A = 1, N = t->shape[ax], B = 1;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (d < ax) A *= t->shape[d];
    if (d > ax) B *= t->shape[d];
  }
  if (N > OI_FOLD_MAX || A * B > OI_FOLD_MAX) return oi_unsupported(c, "Unique over %lld slices of %lld elements", (long long)N, (long long)(A * B));
  int64_t s3[3] = {A, N, B};
  kiln_value *x3 = oi_reshape(c, xv, 3, s3);
  bool isf = oi_dtype_is_float(x->dtype);
  int64_t d0 = 0, d1 = 1, d2[3] = {2, 0, 3}, d3[3] = {2, 1, 3}, d01[2] = {0, 1};
  /* eq and diff over (i, j, a, b) */
  int64_t nn[2] = {N, N};
  /* diff starts past every position (A * B + 1, also keeping the two
   * inits distinct constants: a shared init would need a copy) */
  kiln_value *outs[2] = {filled_i64(c, 2, nn, NULL, 1), filled_i64(c, 2, nn, NULL, A * B + 1)};
  kiln_value *ins[3] = {x3, x3, NULL};
  const kiln_affine_map *m4[4] = {oi_map_dims(c, 4, 3, d2), oi_map_dims(c, 4, 3, d3), oi_map_dims(c, 4, 2, d01),
                                  oi_map_dims(c, 4, 2, d01)};
  const bool red4[4] = {false, false, true, true};
  uq_user uq = {2, 3, B, isf};
  kiln_op *g1 = oi_generic(c, 2, ins, 2, outs, m4, 4, red4, uq_cmp_body, &uq);
  if (!g1) return false;
  kiln_value *eq = kiln_op_result(g1, 0), *diff = kiln_op_result(g1, 1);
  /* dup and the first occurrence over (i, j) */
  kiln_value *outs2[2] = {filled_i64(c, 1, &N, NULL, 0), filled_i64(c, 1, &N, NULL, N)};
  const kiln_affine_map *m2[3] = {oi_map_dims(c, 2, 2, d01), oi_map_dims(c, 2, 1, &d0), oi_map_dims(c, 2, 1, &d0)};
  const bool red2[2] = {false, true};
  kiln_op *g2 = oi_generic(c, 1, &eq, 2, outs2, m2, 2, red2, uq_dup_body, NULL);
  if (!g2) return false;
  kiln_value *dup = kiln_op_result(g2, 0), *fst = kiln_op_result(g2, 1);
  /* rank over (i, j) */
  kiln_value *rins[3] = {dup, diff, fst}, *rank0 = filled_i64(c, 1, &N, NULL, 0);
  const kiln_affine_map *mr[4] = {oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 2, d01), oi_map_dims(c, 2, 1, &d0),
                                  oi_map_dims(c, 2, 1, &d0)};
  uq_rank_user ru = {x3, A, B, isf, oi_dtype_is_unsigned(x->dtype), sorted != 0};
  kiln_op *g3 = oi_generic(c, 3, rins, 1, &rank0, mr, 2, red2, uq_rank_body, &ru);
  if (!g3) return false;
  kiln_value *rank = kiln_op_result(g3, 0);
  /* their number, read by the host */
  kiln_value *k0 = filled_i64(c, 0, NULL, NULL, 0);
  const kiln_affine_map *mc[2] = {oi_map_dims(c, 1, 1, &d0), oi_map_dims(c, 1, 0, NULL)};
  const bool red1[1] = {true};
  kiln_op *g4 = oi_generic(c, 1, &dup, 1, &k0, mc, 1, red1, uq_count_body, NULL);
  if (!g4) return false;
  kiln_value *k = oi_host_read(c, kiln_op_result(g4, 0), 0);
  int64_t dyn = KILN_DYNAMIC;
  kiln_value *dv[OI_MAX_RANK] = {0};
  dv[0] = k;
  oi_check_shape(c, 1, &dyn, dv, kiln_type_int(c->ctx, 64));
  /* positions and counts over (k, i) */
  /* distinct inits (-1 is overwritten: every rank below K has its first) */
  kiln_value *outs5[2] = {filled_i64(c, 1, &dyn, &k, -1), filled_i64(c, 1, &dyn, &k, 0)};
  kiln_value *pins[2] = {dup, rank};
  const kiln_affine_map *mp[4] = {oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 1, &d1), oi_map_dims(c, 2, 1, &d0),
                                  oi_map_dims(c, 2, 1, &d0)};
  kiln_op *g5 = oi_generic(c, 2, pins, 2, outs5, mp, 2, red2, uq_pick_body, NULL);
  if (!g5) return false;
  kiln_value *pos = kiln_op_result(g5, 0);
  /* Y: the slices at pos */
  kiln_value *y = gather_positions(c, xv, ax, pos, k);
  if (!y) return false;
  const int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  oi_set_out(c, n, 0, y, x->dtype);
  oi_set_out(c, n, 1, pos, I64);
  oi_set_out(c, n, 2, rank, I64);
  oi_set_out(c, n, 3, kiln_op_result(g5, 1), I64);
  return true;
}
