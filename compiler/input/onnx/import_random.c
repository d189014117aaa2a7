/* Random generators: RandomUniform, RandomNormal (and their -Like forms),
 * Bernoulli, Multinomial, and Dropout in training mode.
 *
 * Takes: nodes of those ops (shapes static: RandomUniform/Normal's `shape`
 * attribute, the -Like forms' input). Guarantees: every element draws
 * from a counter-based generator: the splitmix64 finalizer of (element's
 * linear index, stream key), the key from the `seed` attribute or, without
 * one, from the node's position in the graph, so results are reproducible
 * per model and different between nodes. Uniforms take the top 24 (f32,
 * f16) or 53 (f64) bits; normals use Box-Muller on two draws; Bernoulli
 * is u < p; Multinomial inverts the cumulative distribution of
 * softmax(input) per row; training Dropout keeps an element when u >=
 * ratio and scales it by 1/(1 - ratio) (ratio and training_mode may be
 * run-time scalars). The outputs are as random as the definitions ask,
 * so tests check their shapes and statistics, not their values. */
#include <math.h>
#include <string.h>

#include "import_internal.h"

#define TWO_PI 6.28318530717958647692

/* splitmix64's finalizer: a bijective mix of a 64-bit counter. */
static kiln_value *mix64(kiln_builder *b, kiln_value *z) {
  const kiln_type *i64 = z->type;
  z = oi_op2(b, KILN_OP_ARITH_ADDI, z, oi_scalar(b, i64, 0, (int64_t)UINT64_C(0x9E3779B97F4A7C15)));
  z = oi_op2(b, KILN_OP_ARITH_MULI, oi_op2(b, KILN_OP_ARITH_XORI, z, oi_op2(b, KILN_OP_ARITH_SHRUI, z, oi_scalar(b, i64, 0, 30))),
             oi_scalar(b, i64, 0, (int64_t)UINT64_C(0xBF58476D1CE4E5B9)));
  z = oi_op2(b, KILN_OP_ARITH_MULI, oi_op2(b, KILN_OP_ARITH_XORI, z, oi_op2(b, KILN_OP_ARITH_SHRUI, z, oi_scalar(b, i64, 0, 27))),
             oi_scalar(b, i64, 0, (int64_t)UINT64_C(0x94D049BB133111EB)));
  return oi_op2(b, KILN_OP_ARITH_XORI, z, oi_op2(b, KILN_OP_ARITH_SHRUI, z, oi_scalar(b, i64, 0, 31)));
}

/* The generic's linear element index over loops 0..rank-1 of SHAPE. */
static kiln_value *linear_index(kiln_builder *b, uint32_t rank, const int64_t *shape) {
  const kiln_type *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *lin = oi_scalar(b, i64, 0, 0);
  for (uint32_t d = 0; d < rank; d++)
    lin = oi_op2(b, KILN_OP_ARITH_ADDI, oi_op2(b, KILN_OP_ARITH_MULI, lin, oi_scalar(b, i64, 0, shape[d])),
                 oi_loop_index_i64(b, d));
  return lin;
}

/* A uniform draw in [0, 1) of float type FT for counter (lin, draw). */
static kiln_value *uniform01(kiln_builder *b, kiln_value *lin, int64_t key, int64_t draw, const kiln_type *ft) {
  const kiln_type *i64 = lin->type;
  kiln_value *ctr = oi_op2(b, KILN_OP_ARITH_ADDI, oi_op2(b, KILN_OP_ARITH_MULI, lin, oi_scalar(b, i64, 0, 4)),
                           oi_scalar(b, i64, 0, draw));
  kiln_value *h = mix64(b, oi_op2(b, KILN_OP_ARITH_XORI, ctr, oi_scalar(b, i64, 0, key)));
  bool wide = ft->width == 64;
  kiln_value *bits = oi_op2(b, KILN_OP_ARITH_SHRUI, h, oi_scalar(b, i64, 0, wide ? 11 : 40));
  const kiln_type *f = wide ? ft : kiln_type_f32(b->ctx);
  kiln_value *u = oi_op2(b, KILN_OP_ARITH_MULF, oi_convert(b, bits, ONNX__TENSOR_PROTO__DATA_TYPE__UINT64,
                                                             wide ? ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
                                                                  : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, f),
                         oi_scalar(b, f, wide ? 0x1p-53 : 0x1p-24, 0));
  if (f != ft) u = oi_convert(b, u, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, ft);
  return u;
}

/* The stream key of node N: from `seed` (a float attribute) or its index. */
static bool stream_key(oi_ctx *c, oi_node *n, int64_t *key) {
  const Onnx__AttributeProto *a = oi_attr(n, "seed");
  uint64_t k = 0x5DEECE66Dull * (uint64_t)(n->index + 1);
  if (a) {
    double f;
    int64_t i;
    if (a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) { /* Dropout's seed is an int */
      if (!oi_attr_int(c, n, "seed", 0, &i)) return false;
      k = (uint64_t)i * 0x2545F4914F6CDD1Dull + 1;
    } else {
      if (!oi_attr_float(c, n, "seed", 0, &f)) return false;
      float g = (float)f;
      uint32_t bits;
      memcpy(&bits, &g, sizeof bits);
      k = (uint64_t)bits * 0x2545F4914F6CDD1Dull + 1;
    }
  }
  *key = (int64_t)k;
  return true;
}

typedef struct {
  int kind;          /* RK_* */
  int64_t key;
  uint32_t rank;
  const int64_t *shape;
  double a, b;       /* low/high or mean/scale */
  int32_t dtype;     /* output dtype */
} rand_user;

enum { RK_UNIFORM, RK_NORMAL, RK_BERNOULLI };

static bool rand_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  rand_user *r = u;
  const kiln_type *et = oi_elem_type(c, r->dtype);
  kiln_value *lin = linear_index(b, r->rank, r->shape);
  if (r->kind == RK_BERNOULLI) { /* a[0] = p (its own float type) */
    kiln_value *p = a[0];
    kiln_value *hit = oi_cmpf(b, OI_F_OLT, uniform01(b, lin, r->key, 0, p->type), p);
    y[0] = oi_convert(b, hit, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, r->dtype, et);
    return true;
  }
  const kiln_type *ft = kiln_type_is_float(et) ? et : kiln_type_f32(b->ctx);
  kiln_value *v;
  if (r->kind == RK_UNIFORM) {
    v = oi_op2(b, KILN_OP_ARITH_ADDF, oi_scalar(b, ft, r->a, 0),
               oi_op2(b, KILN_OP_ARITH_MULF, uniform01(b, lin, r->key, 0, ft), oi_scalar(b, ft, r->b - r->a, 0)));
  } else { /* Box-Muller: sqrt(-2 ln(1 - u1)) cos(2 pi u2) */
    kiln_value *one = oi_scalar(b, ft, 1, 0);
    kiln_value *u1 = oi_op2(b, KILN_OP_ARITH_SUBF, one, uniform01(b, lin, r->key, 0, ft));
    kiln_value *u2 = uniform01(b, lin, r->key, 1, ft);
    kiln_value *rad = oi_op1(b, KILN_OP_MATH_SQRT, oi_op2(b, KILN_OP_ARITH_MULF, oi_scalar(b, ft, -2, 0),
                                                           oi_op1(b, KILN_OP_MATH_LOG, u1)));
    kiln_value *z = oi_op2(b, KILN_OP_ARITH_MULF, rad,
                           oi_op1(b, KILN_OP_MATH_COS, oi_op2(b, KILN_OP_ARITH_MULF, u2, oi_scalar(b, ft, TWO_PI, 0))));
    v = oi_op2(b, KILN_OP_ARITH_ADDF, oi_scalar(b, ft, r->a, 0), oi_op2(b, KILN_OP_ARITH_MULF, z, oi_scalar(b, ft, r->b, 0)));
  }
  y[0] = ft == et ? v : oi_convert(b, v, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, r->dtype, et);
  return true;
}

static bool dtype_attr(oi_ctx *c, oi_node *n, int64_t def, int32_t *out) {
  *out = 0; /* set on every path: gcc -O3 warns at the callers otherwise */
  int64_t dt;
  if (!oi_attr_int(c, n, "dtype", def, &dt)) return false;
  if (dt < INT32_MIN || dt > INT32_MAX || !oi_elem_type(c, (int32_t)dt))
    return oi_unsupported(c, "dtype %s", oi_dtype_name((int32_t)dt));
  *out = (int32_t)dt;
  return true;
}

bool oi_import_random(oi_ctx *c, oi_node *n) {
  static const char *const un[] = {"dtype", "high", "low", "seed", "shape", NULL};
  static const char *const no[] = {"dtype", "mean", "scale", "seed", "shape", NULL};
  static const char *const ber[] = {"dtype", "seed", NULL};
  bool like = n->kind == OI_RANDOM_UNIFORM_LIKE || n->kind == OI_RANDOM_NORMAL_LIKE || n->kind == OI_BERNOULLI;
  bool normal = n->kind == OI_RANDOM_NORMAL || n->kind == OI_RANDOM_NORMAL_LIKE;
  if (!oi_arity(c, n, like ? 1 : 0, like ? 1 : 0, 1, 1) ||
      !oi_attrs_only(c, n, n->kind == OI_BERNOULLI ? ber : normal ? no : un))
    return false;
  if (like && oi_attr(n, "shape")) return oi_invalid(c, "attribute 'shape' is for %s only", normal ? "RandomNormal" : "RandomUniform");
  rand_user r = {.kind = n->kind == OI_BERNOULLI ? RK_BERNOULLI : normal ? RK_NORMAL : RK_UNIFORM};
  if (!stream_key(c, n, &r.key)) return false;
  oi_val *x = like ? oi_in(c, n, 0) : NULL;
  if (like && !x) return false;
  if (!dtype_attr(c, n, like ? x->dtype : ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &r.dtype)) return false;
  if (r.kind == RK_BERNOULLI) {
    if (!oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  } else {
    if (!oi_dtype_is_float(r.dtype)) return oi_unsupported(c, "dtype %s (floating point)", oi_dtype_name(r.dtype));
    if (!oi_attr_float(c, n, normal ? "mean" : "low", 0, &r.a) ||
        !oi_attr_float(c, n, normal ? "scale" : "high", 1, &r.b))
      return false;
  }
  const kiln_type *t;
  if (like) {
    t = oi_tensor_type(c, x->type->rank, x->type->shape, r.dtype);
  } else {
    const int64_t *shape;
    size_t rank;
    if (!oi_attr(n, "shape")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'shape' is required");
    if (!oi_attr_ints(c, n, "shape", &shape, &rank)) return false;
    if (rank > OI_MAX_RANK) return oi_unsupported(c, "rank %zu exceeds %d", rank, OI_MAX_RANK);
    if (!oi_dims_ok(c, (uint32_t)rank, shape, "shape")) return false;
    t = oi_tensor_type(c, (uint32_t)rank, shape, r.dtype);
  }
  r.rank = t->rank, r.shape = t->shape;
  kiln_value *out = oi_empty(c, t);
  if (oi_numel(t) > 0) {
    kiln_value *p = r.kind == RK_BERNOULLI ? oi_ir(c, x) : NULL;
    if (r.kind == RK_BERNOULLI && !p) return false;
    const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, t->rank), *maps[2] = {m, m};
    kiln_op *g = oi_generic(c, p ? 1 : 0, p ? &p : NULL, 1, &out, p ? maps : &m, t->rank, NULL, rand_body, &r);
    if (!g) return false;
    out = kiln_op_result(g, 0);
  }
  oi_set_out(c, n, 0, out, r.dtype);
  return true;
}

/* ---- Multinomial: sample_size class indices per row of log-probabilities */
typedef struct { int64_t key; int64_t cls; const int64_t *shape; } multi_user;

/* loops (b, s, c): count the classes whose cumulative mass is <= u * total */
static bool multi_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  multi_user *m = u;
  kiln_value *cdf = a[0], *total = a[1], *acc = a[2];
  kiln_value *lin = linear_index(b, 2, m->shape);
  kiln_value *x = oi_op2(b, KILN_OP_ARITH_MULF, uniform01(b, lin, m->key, 0, cdf->type), total);
  /* the last class takes what rounding leaves above its cdf */
  kiln_value *last = oi_cmpi(b, OI_EQ, oi_loop_index_i64(b, 2), oi_scalar(b, acc->type, 0, m->cls - 1));
  kiln_value *below = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OLE, cdf, x),
                             oi_op2(b, KILN_OP_ARITH_XORI, last, oi_scalar(b, last->type, 0, 1)));
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, acc, oi_convert(b, below, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL,
                                                       ONNX__TENSOR_PROTO__DATA_TYPE__INT64, acc->type));
  return true;
}

/* cdf[b, c] += p[b, j] for j <= c (loops b, c, j) */
static bool cdf_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  kiln_value *le = oi_cmpi(b, OI_ULE, oi_loop_index(b, 2), oi_loop_index(b, 1));
  y[0] = oi_select(b, le, oi_op2(b, KILN_OP_ARITH_ADDF, a[1], a[0]), a[1]);
  return true;
}

static bool exp_sub_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op1(b, KILN_OP_MATH_EXP, oi_op2(b, KILN_OP_ARITH_SUBF, a[0], a[1]));
  return true;
}

bool oi_import_multinomial(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"dtype", "sample_size", "seed", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (x->type->rank != 2) return oi_invalid(c, "input must be [batch, classes]");
  int64_t ss;
  int32_t dt;
  multi_user m;
  if (!oi_attr_int(c, n, "sample_size", 1, &ss) || !dtype_attr(c, n, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, &dt) ||
      !stream_key(c, n, &m.key) || !oi_size_ok(c, ss, 1, "sample_size"))
    return false;
  if (dt != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 && dt != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_invalid(c, "dtype %s (int32 or int64)", oi_dtype_name(dt));
  const kiln_type *t = x->type;
  int64_t B = t->shape[0], C = t->shape[1];
  if (C < 1) return oi_invalid(c, "no classes");
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  /* p = exp(x - max), cdf = cumulative p, total = cdf's last column */
  bool ax[2] = {false, true};
  kiln_value *mx = oi_reduce(c, xv, x->dtype, ax, true, OI_RED_MAX);
  if (!mx) return false;
  kiln_value *ins[2] = {xv, mx};
  kiln_value *p = oi_elementwise_ir(c, 2, ins, 2, t->shape, t->elem, exp_sub_body, NULL);
  if (!p) return false;
  int64_t jm[2] = {0, 2}, om[2] = {0, 1};
  bool red3[3] = {false, false, true};
  kiln_value *cdf0 = oi_filled(c, t, 0, 0);
  const kiln_affine_map *cm[2] = {oi_map_dims(c, 3, 2, jm), oi_map_dims(c, 3, 2, om)};
  kiln_op *g = oi_generic(c, 1, &p, 1, &cdf0, cm, 3, red3, cdf_body, NULL);
  if (!g) return false;
  kiln_value *cdf = kiln_op_result(g, 0);
  kiln_value *total = oi_reduce(c, p, x->dtype, ax, false, OI_RED_SUM);
  if (!total) return false;
  int64_t os[2] = {B, ss};
  const kiln_type *i64t = oi_tensor_type(c, 2, os, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  kiln_value *cnt = oi_filled(c, i64t, 0, 0);
  m.cls = C, m.shape = os;
  int64_t cd[2] = {0, 2}, td[1] = {0}, od[2] = {0, 1};
  const kiln_affine_map *mm[3] = {oi_map_dims(c, 3, 2, cd), oi_map_dims(c, 3, 1, td), oi_map_dims(c, 3, 2, od)};
  kiln_value *ins2[2] = {cdf, total};
  kiln_op *g2 = oi_generic(c, 2, ins2, 1, &cnt, mm, 3, red3, multi_body, &m);
  if (!g2) return false;
  oi_set_out(c, n, 0, oi_cast_tensor(c, kiln_op_result(g2, 0), ONNX__TENSOR_PROTO__DATA_TYPE__INT64, dt), dt);
  return true;
}

/* ---- Dropout in training mode: a0 = x, a1 = ratio, a2 = training_mode */
typedef struct { int64_t key; uint32_t rank; const int64_t *shape; bool mask; } drop_user;

static bool drop_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  drop_user *d = u;
  kiln_value *x = a[0], *ratio = a[1], *train = a[2];
  const kiln_type *ft = x->type;
  kiln_value *lin = linear_index(b, d->rank, d->shape);
  kiln_value *keep = oi_cmpf(b, OI_F_OGE, uniform01(b, lin, d->key, 0, ft), ratio);
  kiln_value *scaled = oi_op2(b, KILN_OP_ARITH_DIVF, x, oi_op2(b, KILN_OP_ARITH_SUBF, oi_scalar(b, ft, 1, 0), ratio));
  kiln_value *t = oi_select(b, keep, scaled, oi_scalar(b, ft, 0, 0));
  y[0] = oi_select(b, train, t, x);
  if (d->mask) y[1] = oi_op2(b, KILN_OP_ARITH_ORI, keep, oi_op2(b, KILN_OP_ARITH_XORI, train, oi_scalar(b, train->type, 0, 1)));
  return true;
}

bool oi_dropout_training(oi_ctx *c, oi_node *n, oi_val *x, oi_val *ratio, oi_val *train) {
  drop_user d;
  if (!stream_key(c, n, &d.key)) return false;
  if (!oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  const kiln_type *t = x->type;
  d.rank = t->rank, d.shape = t->shape, d.mask = oi_has_out(n, 1);
  kiln_value *xv = oi_ir(c, x), *rv, *tv;
  if (!xv) return false;
  const kiln_type *st = kiln_type_with_shape(c->ctx, t, 0, NULL);
  if (ratio) {
    if (oi_numel(ratio->type) != 1 || !oi_dtype_is_float(ratio->dtype))
      return oi_invalid(c, "ratio must be one floating-point element");
    if (!(rv = oi_ir(c, ratio))) return false;
    rv = oi_cast_tensor(c, oi_reshape(c, rv, 0, NULL), ratio->dtype, x->dtype);
  } else {
    rv = kiln_build_constant(&c->b, kiln_attr_dense_splat_float(c->ctx, st, 0.5));
  }
  if (!(tv = oi_ir(c, train))) return false;
  tv = oi_reshape(c, tv, 0, NULL);
  const kiln_type *bt = oi_tensor_type(c, t->rank, t->shape, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  kiln_value *outs[2] = {oi_empty(c, t), oi_empty(c, bt)};
  if (oi_numel(t) > 0) {
    const kiln_affine_map *id = kiln_affine_map_identity(c->ctx, t->rank), *sc = oi_map_dims(c, t->rank, 0, NULL);
    const kiln_affine_map *maps[5] = {id, sc, sc, id, id};
    kiln_value *ins[3] = {xv, rv, tv};
    kiln_op *g = oi_generic(c, 3, ins, d.mask ? 2 : 1, outs, maps, t->rank, NULL, drop_body, &d);
    if (!g) return false;
    outs[0] = kiln_op_result(g, 0);
    if (d.mask) outs[1] = kiln_op_result(g, 1);
  }
  oi_set_out(c, n, 0, outs[0], x->dtype);
  if (d.mask) oi_set_out(c, n, 1, outs[1], ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  return true;
}
