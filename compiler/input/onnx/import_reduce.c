/* Reduction family: ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare/LogSum/
 * LogSumExp, ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax.
 *
 * Takes: nodes of those ops (ReduceSum-13 takes axes as an input, a
 * constant or read from graph-input data; the others as an attribute, as
 * in opsets 13..17). Guarantees: a reduction is
 * one linalg.generic with reduction loops over a linalg.fill'ed init (the
 * per-element transform, e.g. x*x for L2, fused in its body), followed by
 * an expand_shape when keepdims holds; Softmax is linalg.softmax. */
#include <math.h>
#include <string.h>

#include "import_internal.h"

typedef struct { int kind; int32_t dtype; } red_user;

static bool red_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  red_user *r = u;
  kiln_value *x = a[0], *acc = a[1];
  bool isf = kiln_type_is_float(x->type), isu = oi_dtype_is_unsigned(r->dtype);
  switch (r->kind) {
  case OI_RL1: x = isf ? oi_op1(b, KILN_OP_MATH_ABSF, x)
                       : (isu ? x : oi_select(b, oi_cmpi(b, OI_SLT, x, oi_scalar(b, x->type, 0, 0)),
                                              oi_op2(b, KILN_OP_ARITH_SUBI, oi_scalar(b, x->type, 0, 0), x), x));
    break;
  case OI_RL2: case OI_RSUMSQ: x = oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, x, x); break;
  case OI_RLOGSUMEXP: x = oi_op1(b, KILN_OP_MATH_EXP, x); break;
  default: break;
  }
  switch (r->kind) {
  case OI_RMAX:
    y[0] = isf ? oi_op2(b, KILN_OP_ARITH_MAXIMUMF, acc, x) : oi_op2(b, isu ? KILN_OP_ARITH_MAXUI : KILN_OP_ARITH_MAXSI, acc, x);
    break;
  case OI_RMIN:
    y[0] = isf ? oi_op2(b, KILN_OP_ARITH_MINIMUMF, acc, x) : oi_op2(b, isu ? KILN_OP_ARITH_MINUI : KILN_OP_ARITH_MINSI, acc, x);
    break;
  case OI_RPROD: y[0] = oi_op2(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, acc, x); break;
  default: y[0] = oi_op2(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, acc, x); break;
  }
  return true;
}

/* Reduced tensor (without the kept dims) of kind `kind`. */
static kiln_value *reduce_kind(oi_ctx *c, kiln_value *v, int32_t dtype, const bool *axes, int kind) {
  const kiln_type *t = v->type;
  int64_t shape[OI_MAX_RANK], dims[OI_MAX_RANK];
  bool red[OI_MAX_RANK];
  uint32_t r = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    red[d] = axes[d];
    if (!axes[d]) dims[r] = d, shape[r++] = t->shape[d];
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, r, shape);
  double f;
  int64_t i;
  if (kind == OI_RMAX) oi_elem_lowest(t->elem, dtype, &f, &i);
  else if (kind == OI_RMIN) oi_elem_highest(t->elem, dtype, &f, &i);
  else if (kind == OI_RPROD) f = 1, i = 1;
  else f = 0, i = 0;
  kiln_value *init = oi_filled(c, rt, f, i);
  const kiln_affine_map *maps[2] = {kiln_affine_map_identity(c->ctx, t->rank),
                                    oi_map_dims(c, t->rank, r, dims)};
  red_user u = {kind, dtype};
  kiln_op *g = oi_generic(c, 1, &v, 1, &init, maps, t->rank, red, red_body, &u);
  return g ? kiln_op_result(g, 0) : NULL;
}

typedef struct { int kind; double count; } post_user;

static bool post_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  post_user *p = u;
  kiln_value *x = a[0];
  switch (p->kind) {
  case OI_RMEAN:
    y[0] = kiln_type_is_float(x->type) ? oi_op2(b, KILN_OP_ARITH_DIVF, x, oi_scalar(b, x->type, p->count, 0))
                                       : oi_op2(b, KILN_OP_ARITH_DIVSI, x, oi_scalar(b, x->type, 0, (int64_t)p->count));
    break;
  case OI_RL2: y[0] = oi_op1(b, KILN_OP_MATH_SQRT, x); break;
  default: y[0] = oi_op1(b, KILN_OP_MATH_LOG, x); break;
  }
  return true;
}

static kiln_value *keep(oi_ctx *c, kiln_value *v, const kiln_type *in, const bool *axes, bool keepdims) {
  if (!keepdims) return v;
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0; d < in->rank; d++) s[d] = axes[d] ? 1 : in->shape[d];
  return oi_reshape(c, v, in->rank, s);
}

kiln_value *oi_reduce(oi_ctx *c, kiln_value *v, int32_t dtype, const bool *axes, bool keepdims,
                      oi_red_op op) {
  static const int kinds[] = {OI_RSUM, OI_RMAX, OI_RMIN, OI_RPROD};
  kiln_value *r = reduce_kind(c, v, dtype, axes, kinds[op]);
  return r ? keep(c, r, v->type, axes, keepdims) : NULL;
}

/* Integer reductions of small constants (shape arithmetic such as the
 * product of some dims) are computed here; true when done. */
static bool fold_int_reduce(oi_ctx *c, oi_node *n, oi_val *x, const bool *axes, bool keepdims) {
  int k = n->kind;
  if (!oi_dtype_is_int(x->dtype) || oi_dtype_is_unsigned(x->dtype) || oi_numel(x->type) > 4096 ||
      !oi_const(c, x) || (k != OI_RSUM && k != OI_RPROD && k != OI_RMAX && k != OI_RMIN))
    return false;
  const kiln_type *t = x->type;
  const kiln_attr *a = oi_const(c, x);
  int64_t os[OI_MAX_RANK], total = 1;
  for (uint32_t d = 0; d < t->rank; d++) {
    os[d] = axes[d] ? 1 : t->shape[d];
    total *= os[d];
  }
  int64_t *acc = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *acc);
  bool *seen = kiln_alloc(c->ctx, (size_t)(total + 1));
  for (int64_t i = 0; i < total; i++) acc[i] = k == OI_RPROD ? 1 : 0;
  int64_t n_in = oi_numel(t);
  for (int64_t i = 0; i < n_in; i++) {
    int64_t rem = i, o = 0, stride = 1;
    for (int d = (int)t->rank - 1; d >= 0; d--) {
      int64_t co = rem % t->shape[d];
      rem /= t->shape[d];
      if (!axes[d]) o += co * stride;
      stride *= os[d];
    }
    int64_t v = kiln_dense_get_int(a, i);
    if (k == OI_RSUM) acc[o] = (int64_t)((uint64_t)acc[o] + (uint64_t)v);
    else if (k == OI_RPROD) acc[o] = (int64_t)((uint64_t)acc[o] * (uint64_t)v);
    else if (!seen[o] || (k == OI_RMAX ? v > acc[o] : v < acc[o])) acc[o] = v;
    seen[o] = true;
  }
  int64_t rs[OI_MAX_RANK];
  uint32_t r = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (keepdims || !axes[d]) rs[r++] = os[d];
  if ((k == OI_RMAX || k == OI_RMIN) && n_in == 0) return false;
  oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, r, rs, x->dtype), acc), x->dtype);
  return true;
}

/* ReduceSum over axes read from data (k of them: the result's rank is
 * static): the reduced dims moved last (oi_axes_last), reduced there,
 * and for keepdims reshaped to the input's rank with 1 where reduced. */
static bool reduce_from_data(oi_ctx *c, oi_node *n, oi_val *x, oi_val *a, bool keepdims) {
  uint32_t r = x->type->rank;
  int64_t k = oi_numel(a->type), kst[OI_MAX_RANK];
  kiln_value *kdy[OI_MAX_RANK];
  kiln_value *p = oi_axes_last(c, x, a, kst, kdy);
  if (!p) return false;
  bool red[OI_MAX_RANK] = {0};
  for (uint32_t d = 0; d < r; d++) red[d] = d >= r - (uint32_t)k;
  kiln_value *v = reduce_kind(c, p, x->dtype, red, n->kind);
  if (!v) return false;
  if (!keepdims) {
    oi_set_out(c, n, 0, v, x->dtype);
    return true;
  }
  oi_val *rv = oi_val_new(c, NULL, v->type, x->dtype);
  rv->v = v;
  return oi_reshape_dynamic(c, n, rv, r, kst, kdy, true);
}

bool oi_import_reduce(oi_ctx *c, oi_node *n) {
  static const char *const k13[] = {"keepdims", "noop_with_empty_axes", NULL};
  static const char *const kattr[] = {"keepdims", "axes", NULL};
  bool axes_input = n->kind == OI_RSUM;
  if (!oi_arity(c, n, 1, axes_input ? 2 : 1, 1, 1) || !oi_attrs_only(c, n, axes_input ? k13 : kattr))
    return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  unsigned mask = OI_T_NUM;
  if (n->kind == OI_RL2 || n->kind == OI_RLOGSUM || n->kind == OI_RLOGSUMEXP) mask = OI_T_FLOAT;
  if (!oi_check_type(c, x, mask, "input 0")) return false;
  int64_t keepdims, noop = 0;
  if (!oi_attr_int(c, n, "keepdims", 1, &keepdims)) return false;
  if (axes_input && !oi_attr_int(c, n, "noop_with_empty_axes", 0, &noop)) return false;
  const kiln_type *t = x->type;
  bool axes[OI_MAX_RANK] = {0};
  int64_t *av = NULL, na = 0;
  if (axes_input) {
    oi_val *a = oi_opt_in(n, 1);
    if (a && a->sym && oi_numel(a->type) > 0) return reduce_from_data(c, n, x, a, keepdims != 0);
    /* an empty axes input holds nothing to read: as if absent */
    if (a && oi_numel(a->type) != 0 && !oi_const_ints(c, a, "input 1 (axes)", &av, &na)) return false;
  } else {
    const int64_t *ca;
    size_t cn;
    if (!oi_attr_ints(c, n, "axes", &ca, &cn)) return false;
    av = (int64_t *)ca, na = (int64_t)cn;
  }
  if (na == 0) {
    if (noop) {
      oi_set_out_alias(c, n, 0, x);
      return true;
    }
    for (uint32_t d = 0; d < t->rank; d++) axes[d] = true;
  }
  double count = 1;
  for (int64_t i = 0; i < na; i++) {
    uint32_t ax;
    if (!oi_axis(c, av[i], t->rank, "axis", &ax)) return false;
    axes[ax] = true;
  }
  for (uint32_t d = 0; d < t->rank; d++)
    if (axes[d]) count *= (double)t->shape[d];
  if (fold_int_reduce(c, n, x, axes, keepdims != 0)) return true;
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  int kind = n->kind;
  kiln_value *r = reduce_kind(c, v, x->dtype, axes, kind);
  if (!r) return false;
  if (kind == OI_RMEAN || kind == OI_RL2 || kind == OI_RLOGSUM || kind == OI_RLOGSUMEXP) {
    post_user p = {kind, count};
    r = oi_elementwise_ir(c, 1, &r, r->type->rank, r->type->shape, r->type->elem, post_body, &p);
    if (!r) return false;
  }
  oi_set_out(c, n, 0, keep(c, r, t, axes, keepdims != 0), x->dtype);
  return true;
}

/* ---- ArgMax / ArgMin: a generic with two reduced outputs (value, index) */
typedef struct { bool max, last, isu, isf; uint32_t axis; } arg_user;

static bool arg_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  arg_user *g = u;
  kiln_value *x = a[0], *best = a[1], *bi = a[2];
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *xi = oi_loop_index_i64(b, g->axis);
  kiln_value *better;
  if (g->isf)
    better = oi_cmpf(b, g->max ? (g->last ? OI_F_OGE : OI_F_OGT) : (g->last ? OI_F_OLE : OI_F_OLT), x, best);
  else
    better = oi_cmpi(b, g->max ? (g->last ? (g->isu ? OI_UGE : OI_SGE) : (g->isu ? OI_UGT : OI_SGT))
                               : (g->last ? (g->isu ? OI_ULE : OI_SLE) : (g->isu ? OI_ULT : OI_SLT)),
                     x, best);
  /* the first element always wins, so an all-NaN/-inf row still gets index 0 */
  kiln_value *first = oi_cmpi(b, OI_EQ, xi, oi_scalar(b, i64, 0, 0));
  better = oi_op2(b, KILN_OP_ARITH_ORI, better, first);
  y[0] = oi_select(b, better, x, best);
  y[1] = oi_select(b, better, xi, bi);
  return true;
}

bool oi_import_argminmax(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "keepdims", "select_last_index", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_NUM, "input 0")) return false;
  int64_t axis, keepdims, last;
  uint32_t ax;
  const kiln_type *t = x->type;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_attr_int(c, n, "keepdims", 1, &keepdims) ||
      !oi_attr_int(c, n, "select_last_index", 0, &last) || !oi_axis(c, axis, t->rank, "axis", &ax))
    return false;
  if (t->shape[ax] == 0) return oi_invalid(c, "axis %u has size 0", ax);
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  bool axes[OI_MAX_RANK] = {0};
  axes[ax] = true;
  int64_t shape[OI_MAX_RANK], dims[OI_MAX_RANK];
  uint32_t r = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (d != ax) dims[r] = d, shape[r++] = t->shape[d];
  const kiln_type *vt = kiln_type_with_shape(c->ctx, t, r, shape);
  const kiln_type *it = oi_tensor_type(c, r, shape, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  double f;
  int64_t iv;
  if (n->kind == OI_ARGMAX) oi_elem_lowest(t->elem, x->dtype, &f, &iv);
  else oi_elem_highest(t->elem, x->dtype, &f, &iv);
  kiln_value *outs[2] = {oi_filled(c, vt, f, iv), oi_filled(c, it, 0, 0)};
  const kiln_affine_map *om = oi_map_dims(c, t->rank, r, dims);
  const kiln_affine_map *maps[3] = {kiln_affine_map_identity(c->ctx, t->rank), om, om};
  arg_user u = {n->kind == OI_ARGMAX, last != 0, oi_dtype_is_unsigned(x->dtype), oi_dtype_is_float(x->dtype), ax};
  kiln_op *g = oi_generic(c, 1, &v, 2, outs, maps, t->rank, axes, arg_body, &u);
  if (!g) return false;
  oi_set_out(c, n, 0, keep(c, kiln_op_result(g, 1), t, axes, keepdims != 0), ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}

/* ---- Softmax family ---- */
static bool sub_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, a[0], a[1]);
  return true;
}

static bool exp_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op1(b, KILN_OP_MATH_EXP, a[0]);
  return true;
}

static bool sublog_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_SUBF, a[0], oi_op1(b, KILN_OP_MATH_LOG, a[1]));
  return true;
}

typedef struct { uint32_t axis; } hard_user;

static bool hard_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  hard_user *h = u;
  kiln_value *xi = oi_loop_index_i64(b, h->axis);
  const kiln_type *et = a[1]->type;
  y[0] = oi_select(b, oi_cmpi(b, OI_EQ, xi, a[0]), oi_scalar(b, et, 1, 1), oi_scalar(b, et, 0, 0));
  return true;
}

/* s = x - max; s - log(sum(exp(s))) */
kiln_value *oi_log_softmax(oi_ctx *c, kiln_value *v, int32_t dtype, uint32_t axis) {
  const kiln_type *t = v->type;
  bool axes[OI_MAX_RANK] = {0};
  axes[axis] = true;
  kiln_value *m = oi_reduce(c, v, dtype, axes, true, OI_RED_MAX);
  kiln_value *ins[2] = {v, m};
  kiln_value *s = m ? oi_elementwise_ir(c, 2, ins, t->rank, t->shape, t->elem, sub_body, NULL) : NULL;
  kiln_value *e = s ? oi_elementwise_ir(c, 1, &s, t->rank, t->shape, t->elem, exp_body, NULL) : NULL;
  kiln_value *sum = e ? oi_reduce(c, e, dtype, axes, true, OI_RED_SUM) : NULL;
  if (!sum) return NULL;
  kiln_value *ins2[2] = {s, sum};
  return oi_elementwise_ir(c, 2, ins2, t->rank, t->shape, t->elem, sublog_body, NULL);
}

bool oi_import_softmax(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  int64_t axis;
  uint32_t ax;
  const kiln_type *t = x->type;
  if (!oi_attr_int(c, n, "axis", -1, &axis) || !oi_axis(c, axis, t->rank, "axis", &ax)) return false;
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  if (n->kind == OI_SOFTMAX) {
    kiln_value *ops[2] = {v, oi_empty(c, t)};
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dimension"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), ax)};
    kiln_op *op = kiln_build(&c->b, KILN_OP_LINALG_SOFTMAX, 2, ops, 1, &t, kiln_attr_dict(c->ctx, 1, &e));
    oi_set_out(c, n, 0, kiln_op_result(op, 0), x->dtype);
    return true;
  }
  bool axes[OI_MAX_RANK] = {0};
  axes[ax] = true;
  if (n->kind == OI_HARDMAX) {
    arg_user u = {true, false, false, true, ax};
    int64_t shape[OI_MAX_RANK], dims[OI_MAX_RANK];
    uint32_t r = 0;
    for (uint32_t d = 0; d < t->rank; d++)
      if (d != ax) dims[r] = d, shape[r++] = t->shape[d];
    const kiln_type *vt = kiln_type_with_shape(c->ctx, t, r, shape);
    const kiln_type *it = kiln_type_with_elem(c->ctx, vt, kiln_type_int(c->ctx, 64));
    double f;
    int64_t iv;
    oi_elem_lowest(t->elem, x->dtype, &f, &iv);
    kiln_value *outs[2] = {oi_filled(c, vt, f, iv), oi_filled(c, it, 0, 0)};
    const kiln_affine_map *om = oi_map_dims(c, t->rank, r, dims);
    const kiln_affine_map *maps[3] = {kiln_affine_map_identity(c->ctx, t->rank), om, om};
    kiln_op *g = oi_generic(c, 1, &v, 2, outs, maps, t->rank, axes, arg_body, &u);
    if (!g) return false;
    kiln_value *idx = keep(c, kiln_op_result(g, 1), t, axes, true);
    kiln_value *ins[2] = {idx, v};
    hard_user h = {ax};
    kiln_value *res = oi_elementwise_ir(c, 2, ins, t->rank, t->shape, t->elem, hard_body, &h);
    if (!res) return false;
    oi_set_out(c, n, 0, res, x->dtype);
    return true;
  }
  kiln_value *res = oi_log_softmax(c, v, x->dtype, ax);
  if (!res) return false;
  oi_set_out(c, n, 0, res, x->dtype);
  return true;
}
