/* fold-constants: evaluates ops whose operands are all constants.
 *
 * Takes: any module. Folds arith and math ops (fold_ops.def, plus cmpi,
 * cmpf, select and bitcast) on scalars and on dense tensor/vector
 * constants element by element, and the tensor ops that only move
 * constant data: extract, from_elements, splat, cast, expand_shape,
 * collapse_shape, and linalg.transpose of a constant. Guarantees: each
 * folded op is replaced by an arith.constant holding exactly the value
 * the op computes at run time (integers wrap at their width, floats are
 * rounded to their type); undefined cases (division by zero, oversized
 * shifts, out-of-range float->int) and results above TX_FOLD_MAX_ELEMENTS
 * elements are left alone. The now-unused operand constants stay for dce. */
#include "tx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Folding a huge tensor multiplies compile time and module size; beyond
 * this many elements the op is left for run time. */
#define TX_FOLD_MAX_ELEMENTS (1 << 22)

/* ---- Scalar evaluation, generated from fold_ops.def ---- */

static bool eval_ibin(kiln_op_kind k, int64_t a, int64_t b, unsigned w,
                      int64_t *out) {
  uint64_t ua = tx_zext(a, w), ub = tx_zext(b, w);
  int64_t smin = tx_sext(1ull << (w - 1), w), r = 0;
  (void)smin;
  switch (k) {
#define TX_IBIN(ID, BODY) \
  case KILN_OP_##ID: { BODY; break; }
#include "fold_ops.def"
  default: return false;
  }
  *out = r;
  return true;
}

static bool eval_fbin(kiln_op_kind k, double a, double b, double *out) {
  double r = 0;
  switch (k) {
#define TX_FBIN(ID, BODY) \
  case KILN_OP_##ID: { BODY; break; }
#include "fold_ops.def"
  default: return false;
  }
  /* A NaN made from non-NaN operands is the default quiet NaN (positive),
   * as in LLVM's APFloat; x86 arithmetic would give it the sign bit. */
  *out = isnan(r) && !isnan(a) && !isnan(b) ? NAN : r;
  return true;
}

static bool eval_fun(kiln_op_kind k, double a, double *out) {
  double r = 0;
  switch (k) {
#define TX_FUN(ID, BODY) \
  case KILN_OP_##ID: { BODY; break; }
#include "fold_ops.def"
  default: return false;
  }
  *out = isnan(r) && !isnan(a) ? NAN : r;
  return true;
}

static bool is_ibin(kiln_op_kind k) {
  switch (k) {
#define TX_IBIN(ID, BODY) case KILN_OP_##ID:
#include "fold_ops.def"
    return true;
  default: return false;
  }
}
static bool is_fbin(kiln_op_kind k) {
  switch (k) {
#define TX_FBIN(ID, BODY) case KILN_OP_##ID:
#include "fold_ops.def"
    return true;
  default: return false;
  }
}
static bool is_fun(kiln_op_kind k) {
  switch (k) {
#define TX_FUN(ID, BODY) case KILN_OP_##ID:
#include "fold_ops.def"
    return true;
  default: return false;
  }
}

/* A conversion of one element. in/out are element types. Results go to
 * *ri (integer results) or *rf (float results). */
static bool eval_cast(kiln_op_kind k, const kiln_type *in,
                      const kiln_type *out, int64_t ia, double fa,
                      int64_t *ri, double *rf) {
  unsigned wi = kiln_type_bitwidth(in), wo = kiln_type_bitwidth(out);
  (void)wi;
  (void)wo;
  switch (k) {
#define TX_CAST_II(ID, BODY) \
  case KILN_OP_##ID: { \
    int64_t a = ia, r; uint64_t ua = tx_zext(ia, wi); (void)a; (void)ua; \
    BODY; *ri = r; return true; }
#define TX_CAST_IF(ID, BODY) \
  case KILN_OP_##ID: { \
    int64_t a = ia; uint64_t ua = tx_zext(ia, wi); double r; (void)a; \
    (void)ua; BODY; *rf = r; return true; }
#define TX_CAST_FI(ID, BODY) \
  case KILN_OP_##ID: { \
    double a = fa, lo = -ldexp(1.0, (int)wo - 1), hi = ldexp(1.0, (int)wo - 1) - 1, \
           uhi = ldexp(1.0, (int)wo) - 1; int64_t r; (void)lo; (void)hi; \
    (void)uhi; BODY; *ri = r; return true; }
#define TX_CAST_FF(ID, BODY) \
  case KILN_OP_##ID: { double a = fa, r; BODY; *rf = r; return true; }
#include "fold_ops.def"
  default: return false;
  }
}

static bool is_cast(kiln_op_kind k) {
  switch (k) {
#define TX_CAST_II(ID, BODY) case KILN_OP_##ID:
#define TX_CAST_IF(ID, BODY) case KILN_OP_##ID:
#define TX_CAST_FI(ID, BODY) case KILN_OP_##ID:
#define TX_CAST_FF(ID, BODY) case KILN_OP_##ID:
#include "fold_ops.def"
    return true;
  default: return false;
  }
}

/* Float bits of a float element type, for bitcast. */
static uint64_t float_bits(const kiln_type *t, double v) {
  switch (t->kind) {
  case KILN_TYPE_F16: return kiln_f32_to_f16((float)v);
  case KILN_TYPE_BF16: return kiln_f32_to_bf16((float)v);
  case KILN_TYPE_F32: {
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
  }
  default: {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
  }
  }
}

static double float_of_bits(const kiln_type *t, uint64_t bits) {
  switch (t->kind) {
  case KILN_TYPE_F16: return kiln_f16_to_f32((uint16_t)bits);
  case KILN_TYPE_BF16: return kiln_bf16_to_f32((uint16_t)bits);
  case KILN_TYPE_F32: {
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, 4);
    return f;
  }
  default: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  }
}

/* ---- Comparison predicates (MLIR's numbering, the generic form's) ---- */

static const char *const cmpi_names[] = {"eq",  "ne",  "slt", "sle", "sgt",
                                         "sge", "ult", "ule", "ugt", "uge"};
static const char *const cmpf_names[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

/* The predicate of a cmpi/cmpf as its enum number, or -1. */
static int predicate_of(const kiln_op *op) {
  const kiln_attr *a = kiln_op_get_attr(op, "predicate");
  bool is_f = op->kind == KILN_OP_ARITH_CMPF;
  int n = is_f ? 16 : 10;
  if (!a) return -1;
  if (a->kind == KILN_ATTR_INTEGER) return a->i >= 0 && a->i < n ? (int)a->i : -1;
  if (a->kind == KILN_ATTR_STRING || a->kind == KILN_ATTR_OPAQUE) {
    for (int i = 0; i < n; i++) {
      const char *s = is_f ? cmpf_names[i] : cmpi_names[i];
      if (strlen(s) == a->len && memcmp(s, a->str, a->len) == 0) return i;
    }
  }
  return -1;
}

static bool eval_cmpi(int pred, int64_t a, int64_t b, unsigned w) {
  uint64_t ua = tx_zext(a, w), ub = tx_zext(b, w);
  switch (pred) {
  case 0: return a == b;
  case 1: return a != b;
  case 2: return a < b;
  case 3: return a <= b;
  case 4: return a > b;
  case 5: return a >= b;
  case 6: return ua < ub;
  case 7: return ua <= ub;
  case 8: return ua > ub;
  default: return ua >= ub;
  }
}

static bool eval_cmpf(int pred, double a, double b) {
  bool uno = isnan(a) || isnan(b);
  switch (pred) {
  case 0: return false;
  case 1: return !uno && a == b;
  case 2: return !uno && a > b;
  case 3: return !uno && a >= b;
  case 4: return !uno && a < b;
  case 5: return !uno && a <= b;
  case 6: return !uno && a != b;
  case 7: return !uno;
  case 8: return uno || a == b;
  case 9: return uno || a > b;
  case 10: return uno || a >= b;
  case 11: return uno || a < b;
  case 12: return uno || a <= b;
  case 13: return uno || a != b;
  case 14: return uno;
  default: return true;
  }
}

/* ---- Element-wise folding of arith/math ops ---- */

typedef struct fold_buf {
  int64_t *ints;
  double *floats;
} fold_buf;

/* Evaluates element i of op's result from constant operands e[]. */
static bool eval_elem(kiln_op *op, const tx_elems *e, int64_t i,
                      const kiln_type *res_elem, int64_t *ri, double *rf) {
  kiln_op_kind k = op->kind;
  const kiln_type *in = e[0].elem;
  if (is_ibin(k))
    return eval_ibin(k, tx_elem_int(&e[0], i), tx_elem_int(&e[1], i),
                     kiln_type_bitwidth(in), ri);
  if (is_fbin(k))
    return eval_fbin(k, tx_elem_float(&e[0], i), tx_elem_float(&e[1], i), rf);
  if (is_fun(k)) return eval_fun(k, tx_elem_float(&e[0], i), rf);
  if (is_cast(k)) {
    bool fin = kiln_type_is_float(in);
    return eval_cast(k, in, res_elem, fin ? 0 : tx_elem_int(&e[0], i),
                     fin ? tx_elem_float(&e[0], i) : 0, ri, rf);
  }
  switch (k) {
  case KILN_OP_ARITH_CMPI: {
    int p = predicate_of(op);
    if (p < 0) return false;
    *ri = eval_cmpi(p, tx_elem_int(&e[0], i), tx_elem_int(&e[1], i),
                    kiln_type_bitwidth(in));
    return true;
  }
  case KILN_OP_ARITH_CMPF: {
    int p = predicate_of(op);
    if (p < 0) return false;
    *ri = eval_cmpf(p, tx_elem_float(&e[0], i), tx_elem_float(&e[1], i));
    return true;
  }
  case KILN_OP_ARITH_SELECT: {
    bool c = (tx_elem_int(&e[0], e[0].count == 1 ? 0 : i) & 1) != 0;
    const tx_elems *pick = c ? &e[1] : &e[2];
    if (kiln_type_is_float(res_elem))
      *rf = tx_elem_float(pick, i);
    else
      *ri = tx_elem_int(pick, i);
    return true;
  }
  case KILN_OP_ARITH_BITCAST: {
    const kiln_type *out = res_elem;
    uint64_t bits = kiln_type_is_float(in)
                        ? float_bits(in, tx_elem_float(&e[0], i))
                        : tx_zext(tx_elem_int(&e[0], i),
                                  kiln_type_bitwidth(in));
    if (kiln_type_is_float(out))
      *rf = float_of_bits(out, bits);
    else
      *ri = (int64_t)bits;
    return true;
  }
  default: return false;
  }
}

static bool foldable_elementwise(kiln_op_kind k) {
  return is_ibin(k) || is_fbin(k) || is_fun(k) || is_cast(k) ||
         k == KILN_OP_ARITH_CMPI || k == KILN_OP_ARITH_CMPF ||
         k == KILN_OP_ARITH_SELECT || k == KILN_OP_ARITH_BITCAST;
}

/* Operand count and element kinds the evaluation relies on; anything else
 * is malformed IR, left to the verifier. */
static bool types_fit(const kiln_op *op, const tx_elems *e,
                      const kiln_type *res_elem) {
  kiln_op_kind k = op->kind;
  bool in_int = kiln_type_is_int_or_index(e[0].elem) &&
                kiln_type_bitwidth(e[0].elem) > 0;
  bool in_float = kiln_type_is_float(e[0].elem);
  bool out_int = kiln_type_is_int_or_index(res_elem) &&
                 kiln_type_bitwidth(res_elem) > 0;
  bool out_float = kiln_type_is_float(res_elem);
  uint32_t n = op->num_operands;
  if (is_ibin(k)) return n == 2 && in_int && out_int;
  if (is_fbin(k)) return n == 2 && in_float && out_float;
  if (is_fun(k)) return n == 1 && in_float && out_float;
  switch (k) {
#define TX_CAST_II(ID, BODY) case KILN_OP_##ID: return n == 1 && in_int && out_int;
#define TX_CAST_IF(ID, BODY) case KILN_OP_##ID: return n == 1 && in_int && out_float;
#define TX_CAST_FI(ID, BODY) case KILN_OP_##ID: return n == 1 && in_float && out_int;
#define TX_CAST_FF(ID, BODY) case KILN_OP_##ID: return n == 1 && in_float && out_float;
#include "fold_ops.def"
  case KILN_OP_ARITH_CMPI: return n == 2 && in_int && out_int;
  case KILN_OP_ARITH_CMPF: return n == 2 && in_float && out_int;
  case KILN_OP_ARITH_SELECT:
    return n == 3 && in_int && (out_int || out_float) &&
           kiln_type_is_float(e[1].elem) == out_float &&
           kiln_type_is_float(e[2].elem) == out_float;
  case KILN_OP_ARITH_BITCAST:
    return n == 1 && (in_int || in_float) && (out_int || out_float) &&
           kiln_type_bitwidth(e[0].elem) == kiln_type_bitwidth(res_elem);
  default: return false;
  }
}

static const kiln_attr *fold_elementwise(kiln_context *ctx, kiln_op *op) {
  if (op->num_results != 1 || op->num_operands == 0 || op->num_operands > 3)
    return NULL;
  tx_elems e[3];
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!tx_elems_of(kiln_op_operand(op, i), &e[i])) return NULL;
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  const kiln_type *res_elem = kiln_type_elem_or_self(rt);
  if (!types_fit(op, e, res_elem)) return NULL;
  bool shaped = kiln_type_is_shaped(rt);
  int64_t n = 1;
  bool all_splat = true;
  if (shaped) {
    n = kiln_type_num_elements(rt);
    if (n < 0 || n > TX_FOLD_MAX_ELEMENTS) return NULL;
    for (uint32_t i = 0; i < op->num_operands; i++) {
      if (!e[i].dense) {
        /* Only select's condition may be a scalar beside shaped operands. */
        if (!(op->kind == KILN_OP_ARITH_SELECT && i == 0)) return NULL;
        continue;
      }
      if (e[i].count != n) return NULL;
      all_splat &= e[i].splat;
    }
  }
  int64_t m = all_splat ? 1 : n;
  bool fres = kiln_type_is_float(res_elem);
  int64_t *ints = fres ? NULL : malloc(sizeof(int64_t) * (size_t)m);
  double *floats = fres ? malloc(sizeof(double) * (size_t)m) : NULL;
  if (!ints && !floats) return NULL;
  const kiln_attr *res = NULL;
  bool ok = true;
  for (int64_t i = 0; i < m && ok; i++) {
    int64_t ri = 0;
    double rf = 0;
    ok = eval_elem(op, e, i, res_elem, &ri, &rf);
    if (fres)
      floats[i] = rf;
    else
      ints[i] = ri;
  }
  if (ok) {
    /* A splat result of a shaped op is one value repeated. */
    if (fres)
      res = m == 1 && shaped ? tx_attr_floats(ctx, rt, floats, 1)
                             : tx_attr_floats(ctx, rt, floats, m);
    else
      res = tx_attr_ints(ctx, rt, ints, m);
  }
  free(ints);
  free(floats);
  return res;
}

/* ---- Tensor ops that move constant data ---- */

/* Rebuilds constant `e` (all its elements, in row-major order) with type
 * `to`, optionally permuting: element j of the result reads element
 * src[j] of the input (src NULL = identity). */
static const kiln_attr *rebuild(kiln_context *ctx, const tx_elems *e,
                                const kiln_type *to, const int64_t *src) {
  int64_t n = kiln_type_num_elements(to);
  if (n < 0 || n > TX_FOLD_MAX_ELEMENTS || n != e->count) return NULL;
  if (e->splat) src = NULL;
  int64_t m = e->splat ? 1 : n;
  const kiln_attr *res = NULL;
  if (kiln_type_is_float(e->elem)) {
    double *v = malloc(sizeof(double) * (size_t)(m ? m : 1));
    if (!v) return NULL;
    for (int64_t j = 0; j < m; j++) v[j] = tx_elem_float(e, src ? src[j] : j);
    res = tx_attr_floats(ctx, to, v, m);
    free(v);
  } else {
    int64_t *v = malloc(sizeof(int64_t) * (size_t)(m ? m : 1));
    if (!v) return NULL;
    for (int64_t j = 0; j < m; j++) v[j] = tx_elem_int(e, src ? src[j] : j);
    res = tx_attr_ints(ctx, to, v, m);
    free(v);
  }
  return res;
}

static const kiln_attr *fold_extract(kiln_op *op) {
  tx_elems e;
  if (!tx_elems_of(kiln_op_operand(op, 0), &e) || !e.dense) return NULL;
  const kiln_type *t = e.attr->type;
  if (op->num_operands != t->rank + 1) return NULL;
  int64_t lin = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    const kiln_attr *ix = kiln_value_constant(kiln_op_operand(op, d + 1));
    if (!ix || ix->kind != KILN_ATTR_INTEGER) return NULL;
    if (ix->i < 0 || ix->i >= t->shape[d]) return NULL; /* run time's error */
    lin = lin * t->shape[d] + ix->i;
  }
  kiln_context *ctx = kiln_op_context(op);
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  if (kiln_type_is_float(rt)) return tx_attr_float(ctx, rt, tx_elem_float(&e, lin));
  return tx_attr_int(ctx, rt, tx_elem_int(&e, lin));
}

static const kiln_attr *fold_from_elements(kiln_op *op) {
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  int64_t n = kiln_type_num_elements(rt);
  if (n != (int64_t)op->num_operands || n <= 0 || n > TX_FOLD_MAX_ELEMENTS)
    return NULL;
  kiln_context *ctx = kiln_op_context(op);
  bool f = kiln_type_is_float(rt->elem);
  int64_t *ints = malloc(sizeof(int64_t) * (size_t)n);
  double *floats = malloc(sizeof(double) * (size_t)n);
  const kiln_attr *res = NULL;
  bool ok = ints && floats;
  for (int64_t i = 0; ok && i < n; i++) {
    tx_elems e;
    ok = tx_elems_of(kiln_op_operand(op, (uint32_t)i), &e) && !e.dense;
    if (ok && f) floats[i] = tx_elem_float(&e, 0);
    if (ok && !f) ints[i] = tx_elem_int(&e, 0);
  }
  if (ok) res = f ? tx_attr_floats(ctx, rt, floats, n) : tx_attr_ints(ctx, rt, ints, n);
  free(ints);
  free(floats);
  return res;
}

static const kiln_attr *fold_splat(kiln_op *op) {
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  tx_elems e;
  if (op->num_operands != 1 || !kiln_type_has_static_shape(rt) ||
      !tx_elems_of(kiln_op_operand(op, 0), &e) || e.dense)
    return NULL;
  kiln_context *ctx = kiln_op_context(op);
  if (kiln_type_is_float(rt->elem)) {
    double v = tx_elem_float(&e, 0);
    return tx_attr_floats(ctx, rt, &v, 1);
  }
  int64_t v = tx_elem_int(&e, 0);
  return tx_attr_ints(ctx, rt, &v, 1);
}

/* tensor.cast / expand_shape / collapse_shape: same elements, new type. */
static const kiln_attr *fold_retype(kiln_op *op) {
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  tx_elems e;
  if (op->num_operands < 1 || !kiln_type_has_static_shape(rt) ||
      !tx_elems_of(kiln_op_operand(op, 0), &e) || !e.dense ||
      kiln_type_is_float(e.elem) != kiln_type_is_float(rt->elem))
    return NULL;
  return rebuild(kiln_op_context(op), &e, rt, NULL);
}

static const kiln_attr *fold_transpose(kiln_op *op) {
  tx_elems e;
  const kiln_attr *perm = kiln_op_get_attr(op, "permutation");
  if (op->num_results != 1 || !perm || perm->kind != KILN_ATTR_DENSE_ARRAY ||
      !tx_elems_of(kiln_op_operand(op, 0), &e) || !e.dense)
    return NULL;
  const kiln_type *in = e.attr->type, *rt = kiln_op_result(op, 0)->type;
  uint32_t rank = in->rank;
  if (!kiln_type_has_static_shape(rt) || rt->rank != rank ||
      perm->count != rank || rank > 16)
    return NULL;
  const int64_t *p = perm->data;
  if (e.splat) return rebuild(kiln_op_context(op), &e, rt, NULL);
  int64_t n = e.count;
  if (n > TX_FOLD_MAX_ELEMENTS) return NULL;
  /* Result index (i_0..i_r-1) reads input index with in[p[d]] = i_d. */
  int64_t in_stride[16], idx[16] = {0};
  int64_t s = 1;
  for (int d = (int)rank - 1; d >= 0; d--) {
    in_stride[d] = s;
    s *= in->shape[d];
  }
  for (uint32_t d = 0; d < rank; d++)
    if (p[d] < 0 || p[d] >= (int64_t)rank || rt->shape[d] != in->shape[p[d]])
      return NULL;
  int64_t *src = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!src) return NULL;
  for (int64_t j = 0; j < n; j++) {
    int64_t off = 0;
    for (uint32_t d = 0; d < rank; d++) off += idx[d] * in_stride[p[d]];
    src[j] = off;
    for (int d = (int)rank - 1; d >= 0; d--) { /* row-major increment */
      if (++idx[d] < rt->shape[d]) break;
      idx[d] = 0;
    }
  }
  const kiln_attr *res = rebuild(kiln_op_context(op), &e, rt, src);
  free(src);
  return res;
}

static const kiln_attr *try_fold(kiln_op *op) {
  if (op->num_results != 1) return NULL;
  switch (op->kind) {
  case KILN_OP_TENSOR_EXTRACT: return fold_extract(op);
  case KILN_OP_TENSOR_FROM_ELEMENTS: return fold_from_elements(op);
  case KILN_OP_TENSOR_SPLAT: return fold_splat(op);
  case KILN_OP_TENSOR_CAST:
  case KILN_OP_TENSOR_EXPAND_SHAPE:
  case KILN_OP_TENSOR_COLLAPSE_SHAPE: return fold_retype(op);
  case KILN_OP_LINALG_TRANSPOSE: return fold_transpose(op);
  default:
    if (foldable_elementwise(op->kind))
      return fold_elementwise(kiln_op_context(op), op);
    return NULL;
  }
}

typedef struct fold_state {
  bool changed;
} fold_state;

static kiln_walk_result fold_one(kiln_op *op, void *user) {
  fold_state *st = user;
  if (op->kind == KILN_OP_ARITH_CONSTANT || !tx_op_well_formed(op))
    return KILN_WALK_ADVANCE;
  const kiln_attr *v = try_fold(op);
  if (v) {
    tx_replace_with_constant(op, v);
    st->changed = true;
  }
  return KILN_WALK_ADVANCE;
}

kiln_error *tx_fold_constants(kiln_op *root, bool *changed) {
  fold_state st = {false};
  /* Post-order visits operands' producers first and tolerates erasure. */
  kiln_walk_post(root, fold_one, &st);
  if (st.changed) *changed = true;
  return NULL;
}

kiln_error *kiln_pass_fold_constants(kiln_op *module, void *user) {
  (void)user;
  bool changed = false;
  return tx_fold_constants(module, &changed);
}
