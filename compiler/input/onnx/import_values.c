/* ONNX values during import: creation, lazy materialization of constants
 * as arith.constant, host views of constants for folding, node outputs.
 *
 * Takes: values of the table in import_graph.c. Guarantees: a constant's
 * payload becomes a dense attribute once and an arith.constant once, only
 * when some op consumes it as a tensor; the attribute borrows the loader's
 * bytes (kiln_attr_dense_borrowed: raw_data in the mapped model file, a
 * typed field, a converted copy or an external-data mapping, all valid
 * until the model is freed), so the model must outlive the context and
 * the module writer; folding reads at most OI_FOLD_MAX elements. */
#include <string.h>

#include "import_internal.h"

oi_val *oi_val_new(oi_ctx *c, const char *name, const kiln_type *t, int32_t dtype) {
  oi_val *v = kiln_alloc(c->ctx, sizeof *v);
  v->name = name;
  v->type = t;
  v->dtype = dtype;
  return v;
}

oi_val *oi_val_copy(oi_ctx *c, const oi_val *v) {
  oi_val *o = kiln_alloc(c->ctx, sizeof *o);
  *o = *v;
  o->name = NULL;
  return o;
}

const kiln_attr *oi_dense_zero(oi_ctx *c, const kiln_type *t) {
  return kiln_type_is_float(t->elem) ? kiln_attr_dense_splat_float(c->ctx, t, 0) : oi_splat_int(c, t, 0);
}

const kiln_attr *oi_const(oi_ctx *c, oi_val *v) {
  if (v->cst || !v->tensor) return v->cst;
  kiln_onnx_bytes bytes;
  if (!kiln_onnx_model_tensor_bytes(c->model, v->tensor, &bytes, c->st)) return NULL;
  size_t want = (size_t)oi_numel(v->type) * kiln_dense_elem_size(v->type->elem);
  if (bytes.size != want) return NULL; /* the loader guarantees sizes */
  v->cst = kiln_attr_dense_borrowed(c->ctx, v->type, bytes.data, bytes.size);
  return v->cst;
}

kiln_value *oi_ir(oi_ctx *c, oi_val *v) {
  if (v->v) return v->v;
  if (v->sym) return v->v = oi_sym_ir(c, v);
  const kiln_attr *a = oi_const(c, v);
  if (!a) return NULL;
  v->v = kiln_build_constant(&c->b, a);
  return v->v;
}

static bool const_view(oi_ctx *c, oi_val *v, const char *what, const kiln_attr **a) {
  *a = oi_const(c, v);
  if (!*a) /* a run-time value where the importer needs the value itself:
             * shapes, axes, sizes that decide the result's shape */
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC,
                   "%s is computed at run time and decides the output's shape (dynamic shapes; "
                   "an initializer or a value computed from constants is needed)", what);
  if (oi_numel(v->type) > OI_FOLD_MAX)
    return oi_unsupported(c, "%s has %lld elements; import-time folding stops at %d", what,
                          (long long)oi_numel(v->type), OI_FOLD_MAX);
  return true;
}

bool oi_const_ints(oi_ctx *c, oi_val *v, const char *what, int64_t **out, int64_t *count) {
  const kiln_attr *a;
  if (!const_view(c, v, what, &a)) return false;
  if (oi_dtype_is_float(v->dtype))
    return oi_invalid(c, "%s must hold integers, not %s", what, oi_dtype_name(v->dtype));
  int64_t n = oi_numel(v->type);
  int64_t *r = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *r);
  for (int64_t i = 0; i < n; i++) r[i] = kiln_dense_get_int(a, i);
  *out = r;
  *count = n;
  return true;
}

bool oi_const_floats(oi_ctx *c, oi_val *v, const char *what, double **out, int64_t *count) {
  const kiln_attr *a;
  if (!const_view(c, v, what, &a)) return false;
  int64_t n = oi_numel(v->type);
  double *r = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *r);
  bool isf = oi_dtype_is_float(v->dtype), isu = oi_dtype_is_unsigned(v->dtype);
  for (int64_t i = 0; i < n; i++) {
    if (isf) r[i] = kiln_dense_get_float(a, i);
    else if (isu) r[i] = (double)(uint64_t)kiln_dense_get_int(a, i);
    else r[i] = (double)kiln_dense_get_int(a, i);
  }
  *out = r;
  *count = n;
  return true;
}

void oi_set_out(oi_ctx *c, oi_node *n, size_t i, kiln_value *v, int32_t dtype) {
  if (i >= n->nout || !v) return; /* no value: the builder reported why */
  oi_val *o = oi_val_new(c, NULL, v->type, dtype);
  o->v = v;
  o->cst = kiln_value_constant(v);
  n->out[i] = o;
}

void oi_set_out_const(oi_ctx *c, oi_node *n, size_t i, const kiln_attr *a, int32_t dtype) {
  if (i >= n->nout) return;
  oi_val *o = oi_val_new(c, NULL, a->type, dtype);
  o->cst = a;
  n->out[i] = o;
}

void oi_set_out_alias(oi_ctx *c, oi_node *n, size_t i, oi_val *v) {
  if (i >= n->nout) return;
  n->out[i] = oi_val_copy(c, v); /* sequences and optionals keep their structure */
}

const kiln_attr *oi_dense_ints(oi_ctx *c, const kiln_type *t, const int64_t *v) {
  int64_t n = oi_numel(t);
  size_t es = kiln_dense_elem_size(t->elem);
  char *buf = kiln_alloc(c->ctx, (size_t)n * es + 1);
  for (int64_t i = 0; i < n; i++) memcpy(buf + (size_t)i * es, &v[i], es);
  return kiln_attr_dense(c->ctx, t, false, buf, (size_t)n * es);
}

const kiln_attr *oi_splat_int(oi_ctx *c, const kiln_type *t, int64_t v) {
  /* bools as the byte 0 or 1 that buffers hold (the IR's i1 splat would
   * store true as all ones, which kernels reading the byte misread) */
  if (t->elem->kind == KILN_TYPE_INTEGER && t->elem->width == 1) {
    char byte = v != 0;
    return kiln_attr_dense(c->ctx, t, true, &byte, 1);
  }
  return kiln_attr_dense_splat_int(c->ctx, t, v);
}

const kiln_attr *oi_dense_floats(oi_ctx *c, const kiln_type *t, const double *v) {
  int64_t n = oi_numel(t);
  size_t es = kiln_dense_elem_size(t->elem);
  char *buf = kiln_alloc(c->ctx, (size_t)n * es + 1);
  for (int64_t i = 0; i < n; i++) {
    char *p = buf + (size_t)i * es;
    if (t->elem->kind == KILN_TYPE_F64) memcpy(p, &v[i], 8);
    else if (t->elem->kind == KILN_TYPE_F32) {
      float f = (float)v[i];
      memcpy(p, &f, 4);
    } else {
      uint16_t h = kiln_f32_to_f16((float)v[i]);
      memcpy(p, &h, 2);
    }
  }
  return kiln_attr_dense(c->ctx, t, false, buf, (size_t)n * es);
}

bool oi_arity(oi_ctx *c, oi_node *n, size_t min_in, size_t max_in, size_t min_out,
              size_t max_out) {
  if (n->nin < min_in || n->nin > max_in) {
    if (min_in == max_in) return oi_invalid(c, "expects %zu inputs, has %zu", min_in, n->nin);
    return oi_invalid(c, "expects %zu to %zu inputs, has %zu", min_in, max_in, n->nin);
  }
  if (n->nout < min_out || n->nout > max_out) {
    if (min_out == max_out)
      return oi_invalid(c, "expects %zu outputs, has %zu", min_out, n->nout);
    return oi_invalid(c, "expects %zu to %zu outputs, has %zu", min_out, max_out, n->nout);
  }
  return true;
}

oi_val *oi_in(oi_ctx *c, oi_node *n, size_t i) {
  if (i < n->nin && n->in[i]) return n->in[i];
  oi_invalid(c, "input %zu is required", i);
  return NULL;
}
