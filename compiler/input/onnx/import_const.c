/* Constants and shape queries: Constant, ConstantOfShape, Shape, Size,
 * Range.
 *
 * Takes: nodes of those ops. Guarantees: their results are known at import
 * time (static shapes), so they produce no IR until an op consumes them as
 * tensors; ConstantOfShape's shape and Range's bounds are constants, or
 * run-time values the host reads (import_dynamic.c; a float Range's count
 * is computed by a kernel first). */
#include <math.h>
#include <string.h>

#include "import_internal.h"

bool oi_import_constant(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 0, 0, 1, 1)) return false;
  if (n->proto->n_attribute != 1)
    return oi_invalid(c, "expects exactly one value attribute, has %zu", n->proto->n_attribute);
  const Onnx__AttributeProto *a = n->proto->attribute[0];
  const char *nm = a->name;
  if (strcmp(nm, "value") == 0) {
    const Onnx__TensorProto *t = a->t;
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !t)
      return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'value' must be a tensor");
    if (!oi_elem_type(c, t->data_type))
      return oi_unsupported(c, "constant of element type %s", oi_dtype_name(t->data_type));
    if (t->n_dims > OI_MAX_RANK) return oi_unsupported(c, "rank %zu exceeds %d", t->n_dims, OI_MAX_RANK);
    if (!oi_dims_ok(c, (uint32_t)t->n_dims, t->dims, "value")) return false;
    oi_val *v = oi_val_new(c, NULL, oi_tensor_type(c, (uint32_t)t->n_dims, t->dims, t->data_type),
                           t->data_type);
    v->tensor = t;
    if (!oi_const(c, v)) return false;
    n->out[0] = v;
    return true;
  }
  int32_t f32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, i64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  if (strcmp(nm, "value_float") == 0 || strcmp(nm, "value_floats") == 0) {
    bool one = nm[11] == 0;
    double *d;
    int64_t cnt;
    if (one) {
      double f;
      if (!oi_attr_float(c, n, nm, 0, &f)) return false;
      d = kiln_alloc(c->ctx, sizeof *d);
      d[0] = f;
      cnt = 1;
    } else {
      const float *fs;
      size_t k;
      if (!oi_attr_floats(c, n, nm, &fs, &k)) return false;
      d = kiln_alloc(c->ctx, (k + 1) * sizeof *d);
      for (size_t i = 0; i < k; i++) d[i] = fs[i];
      cnt = (int64_t)k;
    }
    oi_set_out_const(c, n, 0, oi_dense_floats(c, oi_tensor_type(c, one ? 0 : 1, &cnt, f32), d), f32);
    return true;
  }
  if (strcmp(nm, "value_int") == 0 || strcmp(nm, "value_ints") == 0) {
    bool one = nm[9] == 0;
    const int64_t *v;
    int64_t one_v, cnt;
    if (one) {
      if (!oi_attr_int(c, n, nm, 0, &one_v)) return false;
      v = &one_v;
      cnt = 1;
    } else {
      size_t k;
      if (!oi_attr_ints(c, n, nm, &v, &k)) return false;
      cnt = (int64_t)k;
    }
    oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, one ? 0 : 1, &cnt, i64), v), i64);
    return true;
  }
  return oi_unsupported(c, "constant attribute '%s' (value, value_float(s), value_int(s) only)", nm);
}

bool oi_import_constant_of_shape(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"value", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *s = oi_in(c, n, 0);
  if (!s) return false;
  if (s->type->rank != 1) return oi_invalid(c, "shape input must be 1-D");
  int64_t *dims, rank;
  kiln_value **dyn; /* entries known at run time only (symbolic or read from data) */
  if (!oi_shape_ints(c, s, "input 0 (shape)", &dims, &dyn, &rank)) return false;
  if (rank > OI_MAX_RANK) return oi_unsupported(c, "rank %lld exceeds %d", (long long)rank, OI_MAX_RANK);
  bool run_time = false;
  for (int64_t i = 0; i < rank; i++) {
    run_time |= dyn[i] != NULL;
    if (!dyn[i] && dims[i] < 0)
      return oi_invalid(c, "shape dimension %lld is %lld", (long long)i, (long long)dims[i]);
  }
  if (!run_time && !oi_dims_ok(c, (uint32_t)rank, dims, "shape")) return false;
  int32_t dt = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  double f = 0;
  int64_t iv = 0;
  const Onnx__AttributeProto *a = oi_attr(n, "value");
  if (a) {
    if (a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR || !a->t)
      return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'value' must be a tensor");
    uint64_t cnt;
    if (!kiln_onnx_tensor_count(a->t, &cnt) || cnt != 1)
      return oi_invalid(c, "attribute 'value' must hold one element");
    dt = a->t->data_type;
    if (!oi_elem_type(c, dt)) return oi_unsupported(c, "value of element type %s", oi_dtype_name(dt));
    oi_val tmp = {.type = oi_tensor_type(c, (uint32_t)a->t->n_dims, a->t->dims, dt), .dtype = dt,
                  .tensor = a->t};
    const kiln_attr *d = oi_const(c, &tmp);
    if (!d) return false;
    f = kiln_dense_get_float(d, 0);
    iv = kiln_dense_get_int(d, 0);
  }
  const kiln_type *t = oi_tensor_type(c, (uint32_t)rank, dims, dt);
  if (run_time) { /* a fill of a tensor sized on the host */
    oi_check_shape(c, (uint32_t)rank, dims, dyn, t->elem);
    kiln_value *sizes[OI_MAX_RANK];
    uint32_t nd = 0;
    for (int64_t i = 0; i < rank; i++)
      if (dyn[i]) sizes[nd++] = dyn[i];
    oi_set_out(c, n, 0, oi_fill_into(c, oi_empty_dims(c, t, sizes), f, iv), dt);
    return true;
  }
  const kiln_attr *r = oi_dtype_is_float(dt) ? kiln_attr_dense_splat_float(c->ctx, t, f)
                                             : oi_splat_int(c, t, iv);
  oi_set_out_const(c, n, 0, r, dt);
  return true;
}

bool oi_import_shape_of(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"start", "end", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t r = x->type->rank, start, end;
  if (!oi_attr_int(c, n, "start", 0, &start) || !oi_attr_int(c, n, "end", r, &end)) return false;
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < 0 ? 0 : end > r ? r : end;
  int64_t cnt = end > start ? end - start : 0;
  int32_t i64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 1, &cnt, i64), x->type->shape + start), i64);
  return true;
}

bool oi_import_size(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t v = oi_numel(x->type);
  int32_t i64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 0, NULL, i64), &v), i64);
  return true;
}

/* out[i] = start + i * delta, in the element type (wrapping as ONNX's
 * integer arithmetic). */
static bool range_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  kiln_value *i = oi_loop_index(b, 0);
  const kiln_type *et = a[0]->type;
  i = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &i, 1, &et, NULL), 0);
  kiln_value *m[2] = {i, a[1]};
  kiln_value *p = kiln_op_result(kiln_build(b, KILN_OP_ARITH_MULI, 2, m, 1, &et, NULL), 0);
  kiln_value *s[2] = {a[0], p};
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_ADDI, 2, s, 1, &et, NULL), 0);
  return true;
}

/* An integer Range whose bounds are known at run time only: its length
 * max(ceil((limit - start) / delta), 0) computed on the host with
 * truncating division, (a + delta - sign(delta)) / delta, which is the
 * ceiling when a and delta have one sign and <= 0 otherwise; a delta of
 * 0 traps there. */
static bool range_run_time(oi_ctx *c, oi_node *n, oi_val *const *v) {
  kiln_value *e[3];
  for (int i = 0; i < 3; i++) {
    int64_t *st, cnt;
    kiln_value **dy;
    if (!oi_shape_ints(c, v[i], i == 0 ? "start" : i == 1 ? "limit" : "delta", &st, &dy, &cnt)) return false;
    if (cnt != 1) return oi_invalid(c, "input %d must be a scalar", i);
    oi_shape_elems(c, 1, st, dy, &e[i]);
  }
  kiln_value *one = oi_index(c, 1);
  kiln_value *sgn = oi_ibin(c, KILN_OP_ARITH_MINSI, oi_ibin(c, KILN_OP_ARITH_MAXSI, e[2], oi_index(c, -1)), one);
  kiln_value *a = oi_ibin(c, KILN_OP_ARITH_SUBI, e[1], e[0]);
  kiln_value *k = oi_ibin(c, KILN_OP_ARITH_DIVSI, oi_ibin(c, KILN_OP_ARITH_SUBI, oi_ibin(c, KILN_OP_ARITH_ADDI, a, e[2]), sgn), e[2]);
  k = oi_ibin(c, KILN_OP_ARITH_MAXSI, k, oi_index(c, 0));
  int64_t dyn = KILN_DYNAMIC;
  int32_t dt = v[0]->dtype;
  const kiln_type *t = oi_tensor_type(c, 1, &dyn, dt);
  oi_check_shape(c, 1, &dyn, &k, t->elem);
  kiln_value *ins[2] = {oi_ir(c, v[0]), oi_ir(c, v[2])};
  if (!ins[0] || !ins[1]) return false;
  kiln_value *out = oi_empty_dims(c, t, &k);
  const kiln_affine_map *maps[3] = {oi_map_dims(c, 1, 0, NULL), oi_map_dims(c, 1, 0, NULL),
                                    kiln_affine_map_identity(c->ctx, 1)};
  kiln_op *g = oi_generic(c, 2, ins, 1, &out, maps, 1, NULL, range_body, NULL);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), dt);
  return true;
}

/* The element count of a float Range, max(ceil((limit - start) / delta),
 * 0) in f64, as an i64: -1 when it is NaN (delta 0 over an empty span,
 * a NaN bound) and 2^62 past that, so the host's shape check refuses
 * both by value. */
static bool range_count_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const int32_t from = *(const int32_t *)u, d64 = ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE;
  const kiln_type *f64 = kiln_type_f64(b->ctx), *i64 = a[3]->type;
  kiln_value *x[3];
  for (int i = 0; i < 3; i++) x[i] = oi_convert(b, a[i], from, d64, f64);
  kiln_value *k = oi_op1(b, KILN_OP_MATH_CEIL, oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_SUBF, x[1], x[0]), x[2]));
  kiln_value *zero = oi_scalar(b, f64, 0, 0), *big = oi_scalar(b, f64, 4611686018427387904.0, 0);
  k = oi_select(b, oi_cmpf(b, OI_F_OGT, k, zero), k, zero);
  k = oi_select(b, oi_cmpf(b, OI_F_OGT, k, big), big, k);
  k = kiln_op_result(kiln_build(b, KILN_OP_ARITH_FPTOSI, 1, &k, 1, &i64, NULL), 0);
  kiln_value *q = oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_SUBF, x[1], x[0]), x[2]);
  y[0] = oi_select(b, oi_cmpf(b, OI_F_UNO, q, q), oi_scalar(b, i64, 0, -1), k);
  return true;
}

/* start + i * delta in the element type. */
static bool range_float_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)u;
  const kiln_type *et = a[0]->type, *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *i = oi_loop_index(b, 0);
  i = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &i, 1, &i64, NULL), 0);
  i = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SITOFP, 1, &i, 1, &et, NULL), 0);
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[0], oi_op2(b, KILN_OP_ARITH_MULF, i, a[1]));
  return true;
}

/* A float Range whose bounds the graph computes: its count is computed by
 * a kernel and read by the host once that ran (oi_host_read), then the
 * values by a second kernel. */
static bool range_float_run_time(oi_ctx *c, oi_node *n, oi_val *const *v) {
  kiln_value *ins[3];
  int32_t dt = v[0]->dtype;
  for (int i = 0; i < 3; i++) {
    if (v[i]->type->rank != 0) return oi_invalid(c, "input %d must be a scalar", i);
    if (v[i]->dtype != dt) return oi_invalid(c, "inputs must share one element type");
    if (!(ins[i] = oi_ir(c, v[i]))) return false;
  }
  if (!oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "bounds computed at run time inside a subgraph decide the output's shape");
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  const kiln_type *ct = kiln_type_tensor(c->ctx, 0, NULL, i64, NULL);
  kiln_value *cnt = oi_empty_dims(c, ct, NULL);
  const kiln_affine_map *m0 = oi_map_dims(c, 0, 0, NULL);
  const kiln_affine_map *cm[4] = {m0, m0, m0, m0};
  kiln_op *g = oi_generic(c, 3, ins, 1, &cnt, cm, 0, NULL, range_count_body, &dt);
  if (!g) return false;
  kiln_value *k = oi_host_read(c, kiln_op_result(g, 0), 0);
  int64_t dyn = KILN_DYNAMIC;
  const kiln_type *t = oi_tensor_type(c, 1, &dyn, dt);
  oi_check_shape(c, 1, &dyn, &k, t->elem);
  kiln_value *out = oi_empty_dims(c, t, &k);
  kiln_value *sd[2] = {ins[0], ins[2]};
  const kiln_affine_map *maps[3] = {oi_map_dims(c, 1, 0, NULL), oi_map_dims(c, 1, 0, NULL),
                                    kiln_affine_map_identity(c->ctx, 1)};
  kiln_op *r = oi_generic(c, 2, sd, 1, &out, maps, 1, NULL, range_float_body, NULL);
  if (!r) return false;
  oi_set_out(c, n, 0, kiln_op_result(r, 0), dt);
  return true;
}

bool oi_import_range(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL};
  if (!oi_arity(c, n, 3, 3, 1, 1) || !oi_attrs_only(c, n, none)) return false;
  oi_val *v[3];
  double s[3];
  for (int i = 0; i < 3; i++)
    if (!(v[i] = oi_in(c, n, (size_t)i))) return false;
  if (oi_dtype_is_int(v[0]->dtype) && (v[0]->sym || v[1]->sym || v[2]->sym)) return range_run_time(c, n, v);
  if (oi_dtype_is_float(v[0]->dtype) && (!oi_const(c, v[0]) || !oi_const(c, v[1]) || !oi_const(c, v[2])))
    return range_float_run_time(c, n, v);
  for (int i = 0; i < 3; i++) {
    if (v[i]->type->rank != 0) return oi_invalid(c, "input %d must be a scalar", i);
    double *d;
    int64_t cnt;
    if (!oi_const_floats(c, v[i], i == 0 ? "start" : i == 1 ? "limit" : "delta", &d, &cnt)) return false;
    s[i] = d[0];
  }
  if (s[2] == 0) return oi_invalid(c, "delta is zero");
  double k = ceil((s[1] - s[0]) / s[2]);
  if (!(k <= OI_FOLD_MAX)) return oi_unsupported(c, "range of %g elements exceeds %d", k, OI_FOLD_MAX);
  int64_t cnt = k > 0 ? (int64_t)k : 0;
  int32_t dt = v[0]->dtype;
  const kiln_type *t = oi_tensor_type(c, 1, &cnt, dt);
  if (oi_dtype_is_float(dt)) {
    double *d = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *d);
    for (int64_t i = 0; i < cnt; i++) d[i] = s[0] + (double)i * s[2];
    oi_set_out_const(c, n, 0, oi_dense_floats(c, t, d), dt);
  } else {
    int64_t *d = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *d);
    for (int64_t i = 0; i < cnt; i++) d[i] = (int64_t)s[0] + i * (int64_t)s[2];
    oi_set_out_const(c, n, 0, oi_dense_ints(c, t, d), dt);
  }
  return true;
}
