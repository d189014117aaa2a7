/* Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceAt,
 * SequenceInsert, SequenceErase, SequenceLength, SplitToSequence,
 * ConcatFromSequence; Optional, OptionalHasElement, OptionalGetElement.
 *
 * Takes: nodes of those ops on values whose structure is known at import
 * time: a sequence is its list of tensors (oi_val kind OI_VAL_SEQ), an
 * optional its value or none, or its value with a run-time presence flag
 * (an optional graph input, an If between some and none). Guarantees: the
 * structure ops produce no IR; a position that is a run-time value works
 * when every element has one shape (SequenceAt selects among them;
 * SequenceInsert/Erase build each element with selects), else the error
 * kind is "dynamic" (the result's structure would depend on data); the
 * length and presence are constants where the structure is static.
 * Elements with run-time dims (a sequence graph input's) go through the
 * structure ops; one shape is never assumed of them, and
 * SplitToSequence and ConcatFromSequence, which size pieces, refuse
 * them ("dynamic"). */
#include <string.h>

#include "import_internal.h"

static const int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;

static oi_val *new_seq(oi_ctx *c, int32_t dtype, uint32_t len) {
  oi_val *s = oi_val_new(c, NULL, NULL, dtype);
  s->kind = OI_VAL_SEQ;
  s->len = len;
  s->elems = kiln_alloc(c->ctx, (len + 1) * sizeof *s->elems);
  return s;
}

/* Whether the elements (and EXTRA) have one static shape: run-time dims
 * of one type may differ from element to element. */
static bool same_shapes(const oi_val *s, const oi_val *extra) {
  const kiln_type *t = extra ? extra->type : s->len ? s->elems[0]->type : NULL;
  if (t && oi_has_dyn(t)) return false;
  for (uint32_t k = 0; k < s->len; k++)
    if (s->elems[k]->type != t) return false;
  return true;
}

/* Refuses a sequence element with run-time dims, for the ops that size
 * pieces at import time. */
static bool static_elems(oi_ctx *c, const oi_val *s, const char *op) {
  for (uint32_t k = 0; k < s->len; k++)
    if (oi_has_dyn(s->elems[k]->type))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "element %u has a run-time dim; %s takes static shapes only", k, op);
  return true;
}

static bool take_seq(oi_ctx *c, oi_node *n, size_t i, oi_val **s) {
  if (!(*s = oi_in(c, n, i))) return false;
  if ((*s)->kind != OI_VAL_SEQ) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu must be a sequence", i);
  return true;
}

static bool take_tensor(oi_ctx *c, oi_node *n, size_t i, oi_val **t) {
  if (!(*t = oi_in(c, n, i))) return false;
  if ((*t)->kind != OI_VAL_TENSOR) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu must be a tensor", i);
  return true;
}

/* pos < 0 ? pos + base : pos, on a tensor<i64> scalar */
static bool wrap_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  int64_t base = *(int64_t *)u;
  kiln_value *zero = oi_scalar(b, a[0]->type, 0, 0);
  y[0] = oi_select(b, oi_cmpi(b, OI_SLT, a[0], zero), oi_op2(b, KILN_OP_ARITH_ADDI, a[0], oi_scalar(b, a[0]->type, 0, base)),
                   a[0]);
  return true;
}

/* A position input: constant (*pos set, *dyn NULL) or a run-time scalar
 * (*dyn its IR value). Negative positions count from the end (+ BASE);
 * a constant outside [0, LAST] is an error. */
static bool position(oi_ctx *c, oi_val *p, int64_t base, int64_t last, const char *what, int64_t *pos,
                     kiln_value **dyn) {
  *dyn = NULL;
  if (p->kind != OI_VAL_TENSOR || oi_numel(p->type) != 1 || !oi_dtype_is_int(p->dtype))
    return oi_invalid(c, "%s must be one integer", what);
  if (!oi_const(c, p)) {
    kiln_value *v = oi_ir(c, p);
    if (!v) return false;
    v = oi_cast_tensor(c, oi_reshape(c, v, 0, NULL), p->dtype, I64);
    *dyn = oi_elementwise_ir(c, 1, &v, 0, NULL, v->type->elem, wrap_body, &base);
    return *dyn != NULL;
  }
  int64_t *v, cnt;
  if (!oi_const_ints(c, p, what, &v, &cnt)) return false;
  *pos = v[0] < 0 ? v[0] + base : v[0];
  if (*pos < 0 || *pos > last)
    return oi_invalid(c, "%s %lld is out of range for %lld elements", what, (long long)v[0], (long long)base);
  return true;
}

/* sel = pos == k ? a : b, elementwise over tensors of one shape */
typedef struct { int64_t k; int cmp; } pick_user;
enum { PICK_EQ, PICK_LT, PICK_GT };

static bool pick_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  pick_user *p = u;
  kiln_value *k = oi_scalar(b, a[0]->type, 0, p->k);
  kiln_value *hit = oi_cmpi(b, p->cmp == PICK_EQ ? OI_EQ : p->cmp == PICK_LT ? OI_SLT : OI_SGT, a[0], k);
  y[0] = oi_select(b, hit, a[1], a[2]);
  return true;
}

/* (pos CMP k) ? x : y for one-shaped tensors x, y; pos a tensor<i64> scalar */
static oi_val *pick(oi_ctx *c, kiln_value *pos, int cmp, int64_t k, oi_val *x, oi_val *y) {
  kiln_value *ins[3] = {pos, oi_ir(c, x), oi_ir(c, y)};
  if (!ins[1] || !ins[2]) return NULL;
  pick_user p = {k, cmp};
  const kiln_type *t = x->type;
  kiln_value *r = oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, pick_body, &p);
  if (!r) return NULL;
  oi_val *o = oi_val_new(c, NULL, t, x->dtype);
  o->v = r;
  return o;
}

static bool seq_at(oi_ctx *c, oi_node *n) {
  oi_val *s, *p;
  if (!oi_arity(c, n, 2, 2, 1, 1) || !take_seq(c, n, 0, &s) || !(p = oi_in(c, n, 1))) return false;
  if (s->len == 0) return oi_invalid(c, "SequenceAt on an empty sequence");
  int64_t pos;
  kiln_value *dyn;
  if (!position(c, p, s->len, s->len - 1, "input 1 (position)", &pos, &dyn)) return false;
  if (!dyn) {
    oi_set_out_alias(c, n, 0, s->elems[pos]);
    return true;
  }
  if (!same_shapes(s, NULL))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time position among elements of different shapes decides the "
                                             "output's shape (dynamic)");
  oi_val *r = s->elems[s->len - 1];
  for (int64_t k = (int64_t)s->len - 2; k >= 0; k--)
    if (!(r = pick(c, dyn, PICK_EQ, k, s->elems[k], r))) return false;
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool seq_insert_erase(oi_ctx *c, oi_node *n, bool insert) {
  oi_val *s, *t = NULL, *p;
  if (!oi_arity(c, n, insert ? 2 : 1, insert ? 3 : 2, 1, 1) || !take_seq(c, n, 0, &s) ||
      (insert && !take_tensor(c, n, 1, &t)))
    return false;
  if (t && t->dtype != s->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "tensor and sequence differ in element type");
  if (!insert && s->len == 0) return oi_invalid(c, "SequenceErase on an empty sequence");
  p = oi_opt_in(n, insert ? 2 : 1);
  int64_t len = s->len, pos = insert ? len : len - 1;
  kiln_value *dyn = NULL;
  if (p && !position(c, p, len, insert ? len : len - 1, insert ? "input 2 (position)" : "input 1 (position)", &pos,
                     &dyn))
    return false;
  oi_val *r = new_seq(c, s->dtype, (uint32_t)(insert ? len + 1 : len - 1));
  if (!dyn) {
    for (int64_t k = 0, j = 0; k < (int64_t)r->len; k++) {
      if (insert && k == pos) r->elems[k] = t;
      else {
        if (!insert && j == pos) j++;
        r->elems[k] = s->elems[j++];
      }
    }
  } else {
    if (!same_shapes(s, t))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time position among elements of different shapes decides the "
                                               "result's structure (dynamic)");
    for (int64_t k = 0; k < (int64_t)r->len; k++) {
      oi_val *e;
      if (insert) { /* k < pos: s[k]; k == pos: t; k > pos: s[k-1] */
        oi_val *before = k < len ? s->elems[k] : t, *after = k > 0 ? s->elems[k - 1] : t;
        e = pick(c, dyn, PICK_GT, k, before, pick(c, dyn, PICK_EQ, k, t, after));
      } else { /* k < pos: s[k]; else s[k+1] */
        e = pick(c, dyn, PICK_GT, k, s->elems[k], s->elems[k + 1]);
      }
      if (!e) return false;
      r->elems[k] = e;
    }
  }
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool split_to_sequence(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "keepdims", NULL};
  oi_val *x, *sp;
  if (!oi_arity(c, n, 1, 2, 1, 1) || !oi_attrs_only(c, n, known) || !take_tensor(c, n, 0, &x) ||
      !oi_refuse_dyn_inputs(c, n, "SplitToSequence takes static shapes only"))
    return false;
  sp = oi_opt_in(n, 1);
  int64_t axis, keep;
  uint32_t ax;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_attr_int(c, n, "keepdims", 1, &keep) ||
      !oi_axis(c, axis, x->type->rank, "axis", &ax))
    return false;
  int64_t dim = x->type->shape[ax], *sizes, cnt;
  bool scalar = false;
  if (sp) {
    if (!oi_const_ints(c, sp, "input 1 (split)", &sizes, &cnt)) return false;
    scalar = sp->type->rank == 0;
    if (scalar) { /* one size: chunks of it, the last one shorter */
      int64_t chunk = sizes[0];
      if (chunk < 1) return oi_invalid(c, "split %lld", (long long)chunk);
      cnt = (dim + chunk - 1) / chunk;
      sizes = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *sizes);
      for (int64_t i = 0; i < cnt; i++) sizes[i] = i + 1 < cnt ? chunk : dim - chunk * (cnt - 1);
    }
  } else { /* no split: pieces of 1, the axis dropped unless keepdims */
    cnt = dim;
    sizes = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *sizes);
    for (int64_t i = 0; i < cnt; i++) sizes[i] = 1;
  }
  if (cnt > OI_MAX_FLAT) return oi_unsupported(c, "a sequence of %lld tensors", (long long)cnt);
  int64_t total = 0;
  for (int64_t i = 0; i < cnt; i++) total += sizes[i];
  if (total != dim) return oi_invalid(c, "split sizes sum to %lld, the axis has %lld", (long long)total, (long long)dim);
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  oi_val *r = new_seq(c, x->dtype, (uint32_t)cnt);
  const kiln_type *t = x->type;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK], sq[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) size[d] = t->shape[d], one[d] = 1;
  for (int64_t i = 0; i < cnt; i++) {
    size[ax] = sizes[i];
    kiln_value *piece = oi_slice(c, xv, off, size, one);
    off[ax] += sizes[i];
    if (!sp && !keep) { /* drop the axis */
      uint32_t k = 0;
      for (uint32_t d = 0; d < t->rank; d++)
        if (d != ax) sq[k++] = t->shape[d];
      piece = oi_reshape(c, piece, k, sq);
    }
    oi_val *e = oi_val_new(c, NULL, piece->type, x->dtype);
    e->v = piece;
    r->elems[i] = e;
  }
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool concat_from_sequence(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "new_axis", NULL};
  oi_val *s;
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known) || !take_seq(c, n, 0, &s) ||
      !static_elems(c, s, "ConcatFromSequence"))
    return false;
  if (!oi_attr(n, "axis")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'axis' is required");
  int64_t axis, newax;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_attr_int(c, n, "new_axis", 0, &newax)) return false;
  if (s->len == 0) return oi_invalid(c, "ConcatFromSequence of an empty sequence");
  const kiln_type *t0 = s->elems[0]->type;
  uint32_t r = t0->rank + (newax ? 1 : 0), ax;
  if (r > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", r, OI_MAX_RANK);
  if (!oi_axis(c, axis, r, "axis", &ax)) return false;
  kiln_value **vs = kiln_alloc(c->ctx, (s->len + 1) * sizeof *vs);
  int64_t shape[OI_MAX_RANK];
  for (uint32_t k = 0; k < s->len; k++) {
    const kiln_type *t = s->elems[k]->type;
    if (t->rank != t0->rank) return oi_invalid(c, "elements differ in rank");
    if (!(vs[k] = oi_ir(c, s->elems[k]))) return false;
    if (newax) { /* stack: each element gains a unit dim at ax */
      int64_t es[OI_MAX_RANK];
      for (uint32_t d = 0, j = 0; d < r; d++) es[d] = d == ax ? 1 : t->shape[j++];
      vs[k] = oi_reshape(c, vs[k], r, es);
    }
  }
  memcpy(shape, vs[0]->type->shape, r * sizeof *shape);
  shape[ax] = 0;
  for (uint32_t k = 0; k < s->len; k++) {
    for (uint32_t d = 0; d < r; d++)
      if (d != ax && vs[k]->type->shape[d] != shape[d]) return oi_invalid(c, "elements differ off the axis");
    shape[ax] += vs[k]->type->shape[ax];
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, vs[0]->type, r, shape);
  kiln_value *res = vs[0];
  if (s->len > 1) {
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), ax)};
    res = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, s->len, vs, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
  }
  oi_set_out(c, n, 0, res, s->dtype);
  return true;
}

bool oi_import_sequence(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL}, *const dt[] = {"dtype", NULL};
  switch (n->kind) {
  case OI_SEQ_EMPTY: {
    int64_t d;
    if (!oi_arity(c, n, 0, 0, 1, 1) || !oi_attrs_only(c, n, dt) ||
        !oi_attr_int(c, n, "dtype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &d))
      return false;
    if (d < INT32_MIN || d > INT32_MAX || !oi_elem_type(c, (int32_t)d)) return oi_unsupported(c, "dtype %lld", (long long)d);
    oi_set_out_alias(c, n, 0, new_seq(c, (int32_t)d, 0));
    return true;
  }
  case OI_SEQ_CONSTRUCT: {
    if (!oi_arity(c, n, 1, OI_MAX_FLAT, 1, 1) || !oi_attrs_only(c, n, none)) return false;
    oi_val *r = new_seq(c, 0, (uint32_t)n->nin);
    for (size_t i = 0; i < n->nin; i++) {
      if (!take_tensor(c, n, i, &r->elems[i])) return false;
      if (r->elems[i]->dtype != r->elems[0]->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "inputs differ in element type");
    }
    r->dtype = r->elems[0]->dtype;
    oi_set_out_alias(c, n, 0, r);
    return true;
  }
  case OI_SEQ_AT: return oi_attrs_only(c, n, none) && seq_at(c, n);
  case OI_SEQ_INSERT: return oi_attrs_only(c, n, none) && seq_insert_erase(c, n, true);
  case OI_SEQ_ERASE: return oi_attrs_only(c, n, none) && seq_insert_erase(c, n, false);
  case OI_SEQ_LENGTH: {
    oi_val *s;
    if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none) || !take_seq(c, n, 0, &s)) return false;
    int64_t len = s->len;
    oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 0, NULL, I64), &len), I64);
    return true;
  }
  case OI_SPLIT_TO_SEQ: return split_to_sequence(c, n);
  default: return concat_from_sequence(c, n);
  }
}

bool oi_import_optional(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL}, *const ty[] = {"type", NULL};
  if (n->kind == OI_OPT_MAKE) {
    if (!oi_arity(c, n, 0, 1, 1, 1) || !oi_attrs_only(c, n, ty)) return false;
    oi_val *x = oi_opt_in(n, 0), *o = oi_val_new(c, NULL, NULL, x ? x->dtype : 0);
    o->kind = OI_VAL_OPT;
    o->some = x;
    if (!x) { /* none: its declared type says whether it holds a sequence */
      const Onnx__AttributeProto *a = oi_attr(n, "type");
      if (!a || !a->tp) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "an empty Optional needs attribute 'type'");
      o->seq_elem = a->tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    } else if (x->kind == OI_VAL_OPT) {
      return oi_invalid(c, "an optional of an optional");
    }
    oi_set_out_alias(c, n, 0, o);
    return true;
  }
  oi_val *o;
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none) || !(o = oi_in(c, n, 0))) return false;
  if (o->kind != OI_VAL_OPT) { /* from 18 they take any value; a non-optional has its element */
    if (n->kind == OI_OPT_HAS) {
      int64_t one = 1;
      oi_set_out_const(c, n, 0, oi_splat_int(c, oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL), one),
                       ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    } else {
      oi_set_out_alias(c, n, 0, o);
    }
    return true;
  }
  if (n->kind == OI_OPT_HAS) {
    const kiln_type *bt = oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    if (o->has) oi_set_out(c, n, 0, o->has, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    else oi_set_out_const(c, n, 0, oi_splat_int(c, bt, o->some != NULL), ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    return true;
  }
  if (!o->some) return oi_invalid(c, "OptionalGetElement of an empty optional");
  oi_set_out_alias(c, n, 0, o->some); /* with a run-time flag: the value, whatever it holds */
  return true;
}
