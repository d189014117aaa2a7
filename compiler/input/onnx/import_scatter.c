/* Scatter family: ScatterElements (and Scatter-9) and ScatterND (reduction
 * none, add, mul: the -16 form).
 *
 * Takes: data, int32/int64 indices and updates of static shapes; indices
 * may be run-time values. Guarantees: one linalg.generic whose init is
 * data and whose loops are the output dims (parallel) followed by the
 * update positions (reduction, in order): the body reads the index and
 * the update at that position with tensor.extract and, where the index
 * names the output position, replaces (none: the last update wins, as in
 * ONNX's reference), adds or multiplies. Negative indices count from the
 * end; an index outside [-dim, dim-1] is refused as ONNX Runtime refuses
 * it, naming the node, the axis and the value: a constant one at import,
 * one from data by the host before the scatter runs (inside a Loop or If
 * body, where the host cannot check, it matches no position and updates
 * nothing: never a write outside the data). Work is output size times
 * update count, which suits the small index sets these ops take;
 * ScatterND of constants (reduction none) is folded at import instead. */
#include <string.h>

#include "import_internal.h"

typedef enum { SC_NONE, SC_ADD, SC_MUL } sc_red;

typedef struct {
  kiln_value *idx, *upd;
  const kiln_type *data;
  sc_red red;
  bool nd;       /* ScatterND, else ScatterElements */
  uint32_t axis; /* ScatterElements */
  uint32_t k;    /* ScatterND: index tuple length */
  uint32_t nin;  /* block args before the accumulator */
} sc_user;

static kiln_value *extract(kiln_builder *b, kiln_value *t, kiln_value *const *pos) {
  kiln_value *ops[2 * OI_MAX_RANK + 1];
  ops[0] = t;
  for (uint32_t d = 0; d < t->type->rank; d++) ops[1 + d] = pos[d];
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + t->type->rank, ops, 1, &t->type->elem, NULL), 0);
}

/* An index element as `index`, negative ones counted from the end of a
 * dim of size n. */
static kiln_value *norm_index(kiln_builder *b, kiln_value *v, int64_t n) {
  const kiln_type *it = kiln_type_index(b->ctx);
  kiln_value *neg = oi_cmpi(b, OI_SLT, v, oi_scalar(b, v->type, 0, 0));
  v = oi_select(b, neg, oi_op2(b, KILN_OP_ARITH_ADDI, v, oi_scalar(b, v->type, 0, n)), v);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &it, NULL), 0);
}

static kiln_value *and1(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return x ? oi_op2(b, KILN_OP_ARITH_ANDI, x, y) : y;
}

static bool sc_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  sc_user *s = u;
  const kiln_type *dt = s->data, *it = kiln_type_index(b->ctx);
  uint32_t r = dt->rank;
  kiln_value *acc = a[s->nin], *o[OI_MAX_RANK] = {0}, *match = NULL, *zero = oi_scalar(b, it, 0, 0);
  for (uint32_t d = 0; d < r; d++) o[d] = oi_loop_index(b, d);
  kiln_value *ipos[OI_MAX_RANK] = {0}, *upos[2 * OI_MAX_RANK] = {0};
  if (!s->nd) {
    /* position j along the axis, the output position elsewhere (where
     * indices is smaller than data, outputs past it get no update) */
    const kiln_type *xt = s->idx->type;
    kiln_value *inb = NULL;
    for (uint32_t d = 0; d < r; d++)
      if (d != s->axis && xt->shape[d] < dt->shape[d])
        inb = and1(b, inb, oi_cmpi(b, OI_SLT, o[d], oi_scalar(b, it, 0, xt->shape[d])));
    for (uint32_t d = 0; d < r; d++)
      ipos[d] = d == s->axis ? oi_loop_index(b, r) : inb ? oi_select(b, inb, o[d], zero) : o[d];
    kiln_value *ix = norm_index(b, extract(b, s->idx, ipos), dt->shape[s->axis]);
    match = and1(b, inb, oi_cmpi(b, OI_EQ, ix, o[s->axis]));
    memcpy(upos, ipos, r * sizeof *upos);
  } else {
    /* update position u (the reduction loops); indices[u, t] == o[t] for
     * every t < k; the update's trailing dims are o[k..] */
    uint32_t q = s->idx->type->rank;
    for (uint32_t d = 0; d + 1 < q; d++) ipos[d] = upos[d] = oi_loop_index(b, r + d);
    for (uint32_t t = 0; t < s->k; t++) {
      ipos[q - 1] = oi_scalar(b, it, 0, t);
      kiln_value *ix = norm_index(b, extract(b, s->idx, ipos), dt->shape[t]);
      match = and1(b, match, oi_cmpi(b, OI_EQ, ix, o[t]));
    }
    for (uint32_t d = s->k; d < r; d++) upos[q - 1 + d - s->k] = o[d];
  }
  kiln_value *v = extract(b, s->upd, upos);
  bool isf = kiln_type_is_float(v->type);
  if (s->red == SC_ADD) v = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, acc, v);
  else if (s->red == SC_MUL) v = oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, acc, v);
  y[0] = match ? oi_select(b, match, v, acc) : v;
  return true;
}

/* ScatterND (reduction none) of constant data, indices and updates,
 * folded at import: exporters write `mask[a:b, c:d] = v` on a constant
 * (Swin's shifted-window mask) as ScatterND whose generic would cost
 * output size times update count on every call. Same rules as the
 * generic: negative indices count from the end (out-of-range ones were
 * refused before), the last update of a position wins. */
static bool fold_scatter_nd(oi_ctx *c, oi_node *n, oi_val *x, oi_val *iv, oi_val *uv, uint32_t k, bool *done) {
  *done = false;
  if (oi_numel(x->type) > OI_FOLD_MAX || oi_numel(iv->type) > OI_FOLD_MAX || oi_numel(uv->type) > OI_FOLD_MAX)
    return true;
  const kiln_attr *da = oi_const(c, x), *ua = oi_const(c, uv);
  if (!da || !ua || !oi_const(c, iv)) return true;
  int64_t *ids, cnt;
  if (!oi_const_ints(c, iv, "indices", &ids, &cnt)) return false;
  const kiln_type *dt = x->type;
  size_t es = kiln_dense_elem_size(dt->elem);
  int64_t total = oi_numel(dt), slice = 1;
  for (uint32_t d = k; d < dt->rank; d++) slice *= dt->shape[d];
  const char *dsrc = da->data, *usrc = ua->data;
  char *buf = kiln_alloc(c->ctx, (size_t)total * es + 1);
  for (int64_t i = 0; i < total; i++) memcpy(buf + (size_t)i * es, dsrc + (da->splat ? 0 : (size_t)i * es), es);
  for (int64_t u = 0; u < cnt / k; u++) {
    int64_t off = 0;
    bool in = true;
    for (uint32_t j = 0; j < k; j++) {
      int64_t v = ids[u * k + j], dim = dt->shape[j];
      if (v < 0) v += dim;
      in = in && v >= 0 && v < dim;
      off = off * dim + v;
    }
    for (int64_t e = 0; in && e < slice; e++)
      memcpy(buf + (size_t)(off * slice + e) * es, usrc + (ua->splat ? 0 : (size_t)(u * slice + e) * es), es);
  }
  oi_set_out_const(c, n, 0, kiln_attr_dense(c->ctx, dt, false, buf, (size_t)total * es), x->dtype);
  *done = true;
  return true;
}

/* Constant indices: each in [-dim, dim - 1] of the axis it indexes (the
 * scatter axis; column j % k of ScatterND's tuples indexes dim j). */
static bool const_indices_ok(oi_ctx *c, oi_val *iv, const sc_user *s) {
  int64_t *ids, cnt;
  if (!oi_const_ints(c, iv, "indices", &ids, &cnt)) return false;
  for (int64_t i = 0; i < cnt; i++) {
    uint32_t ax = s->nd ? (uint32_t)(i % s->k) : s->axis;
    int64_t dim = s->data->shape[ax];
    if (ids[i] < -dim || ids[i] >= dim)
      return oi_invalid(c, "indices: index[%u] is %lld, must be in [%lld, %lld]", ax, (long long)ids[i],
                        (long long)-dim, (long long)(dim - 1));
  }
  return true;
}

/* Indices from data, checked by the host before the scatter: the whole
 * tensor against the axis (ScatterElements), each tuple column j against
 * dim j (ScatterND). */
static bool check_run_time(oi_ctx *c, oi_val *iv, const sc_user *s) {
  if (!s->nd) return oi_check_indices(c, s->idx, iv->dtype, oi_index(c, s->data->shape[s->axis]), s->axis);
  const kiln_type *xt = s->idx->type;
  uint32_t q = xt->rank;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], step[OI_MAX_RANK];
  for (uint32_t d = 0; d < q; d++) size[d] = xt->shape[d], step[d] = 1;
  size[q - 1] = 1;
  for (uint32_t j = 0; j < s->k; j++) {
    off[q - 1] = j;
    kiln_value *col = oi_slice(c, s->idx, off, size, step);
    if (!col || !oi_check_indices(c, col, iv->dtype, oi_index(c, s->data->shape[j]), j)) return false;
  }
  return true;
}

static bool scatter(oi_ctx *c, oi_node *n, bool nd) {
  static const char *const el16[] = {"axis", "reduction", NULL}, *const nd16[] = {"reduction", NULL};
  const char *const *known = nd ? nd16 : el16;
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *iv = x ? oi_in(c, n, 1) : NULL, *uv = iv ? oi_in(c, n, 2) : NULL;
  if (!uv || !oi_check_type(c, x, OI_T_ANY, "data")) return false;
  if (iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 && (nd || iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "indices must be %s, not %s", nd ? "int64" : "int32 or int64",
                   oi_dtype_name(iv->dtype));
  if (uv->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "updates and data differ in element type");
  const char *rs;
  if (!oi_attr_string(c, n, "reduction", "none", &rs)) return false;
  sc_user s = {.data = x->type, .nd = nd};
  if (strcmp(rs, "none") == 0) s.red = SC_NONE;
  else if (strcmp(rs, "add") == 0) s.red = SC_ADD;
  else if (strcmp(rs, "mul") == 0) s.red = SC_MUL;
  else return oi_unsupported(c, "reduction '%s' (none, add and mul)", rs);
  if (s.red != SC_NONE && x->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
    return oi_unsupported(c, "reduction '%s' on bool", rs);
  const kiln_type *dt = x->type, *xt = iv->type, *ut = uv->type;
  uint32_t r = dt->rank, q = xt->rank;
  if (r == 0) return oi_invalid(c, "data must have rank >= 1");
  /* the reduction loops: one per update position dim */
  int64_t red_shape[OI_MAX_RANK];
  uint32_t nred;
  if (!nd) {
    int64_t axis;
    if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_axis(c, axis, r, "axis", &s.axis)) return false;
    if (q != r) return oi_invalid(c, "indices have rank %u, data rank %u", q, r);
    for (uint32_t d = 0; d < r; d++) {
      if (ut->rank != q || ut->shape[d] != xt->shape[d]) return oi_invalid(c, "updates and indices differ in shape");
      if (d != s.axis && xt->shape[d] > dt->shape[d])
        return oi_invalid(c, "indices dim %u (%lld) exceeds data's (%lld)", d, (long long)xt->shape[d],
                          (long long)dt->shape[d]);
    }
    nred = 1;
    red_shape[0] = xt->shape[s.axis];
  } else {
    if (q < 1) return oi_invalid(c, "indices must have rank >= 1");
    int64_t k = xt->shape[q - 1];
    if (k < 1 || k > (int64_t)r) return oi_invalid(c, "index tuples of length %lld for data of rank %u", (long long)k, r);
    s.k = (uint32_t)k;
    bool ok = ut->rank == q - 1 + r - s.k;
    for (uint32_t d = 0; ok && d + 1 < q; d++) ok = ut->shape[d] == xt->shape[d];
    for (uint32_t d = s.k; ok && d < r; d++) ok = ut->shape[q - 1 + d - s.k] == dt->shape[d];
    if (!ok) return oi_invalid(c, "updates must have shape indices.shape[:-1] + data.shape[k:]");
    nred = q - 1;
    memcpy(red_shape, xt->shape, nred * sizeof *red_shape);
  }
  if (r + nred > KILN_MAX_LOOPS) return oi_unsupported(c, "%u loops exceed %d", r + nred, KILN_MAX_LOOPS);
  if (oi_const(c, iv) && !const_indices_ok(c, iv, &s)) return false;
  bool done = false;
  if (nd && s.red == SC_NONE && !fold_scatter_nd(c, n, x, iv, uv, s.k, &done)) return false;
  if (done) return true;
  kiln_value *data = oi_ir(c, x);
  s.idx = oi_ir(c, iv);
  s.upd = oi_ir(c, uv);
  if (!data || !s.idx || !s.upd) return false;
  if (oi_numel(ut) == 0 || oi_numel(dt) == 0) { /* nothing to scatter */
    oi_set_out_alias(c, n, 0, x);
    return true;
  }
  if (!oi_const(c, iv) && oi_host_block(c) && !check_run_time(c, iv, &s)) return false;
  /* a splat i8 input over the reduction loops gives them their sizes (its
   * value is never used) */
  const int8_t zero = 0;
  kiln_value *ins[1] = {NULL};
  uint32_t nin = 0;
  int64_t rd[OI_MAX_RANK], od[OI_MAX_RANK];
  for (uint32_t d = 0; d < nred; d++) rd[d] = r + d;
  for (uint32_t d = 0; d < r; d++) od[d] = d;
  const kiln_affine_map *maps[2];
  if (nred) {
    const kiln_type *st = oi_tensor_type(c, nred, red_shape, ONNX__TENSOR_PROTO__DATA_TYPE__INT8);
    ins[nin] = kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, st, true, &zero, 1));
    maps[nin++] = oi_map_dims(c, r + nred, nred, rd);
  }
  maps[nin] = oi_map_dims(c, r + nred, r, od);
  s.nin = nin;
  bool red[KILN_MAX_LOOPS] = {0};
  for (uint32_t d = 0; d < nred; d++) red[r + d] = true;
  kiln_op *g = oi_generic(c, nin, ins, 1, &data, maps, r + nred, red, sc_body, &s);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

bool oi_import_scatter_elements(oi_ctx *c, oi_node *n) { return scatter(c, n, false); }
bool oi_import_scatter_nd(oi_ctx *c, oi_node *n) { return scatter(c, n, true); }
