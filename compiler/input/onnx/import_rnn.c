/* Recurrent family: RNN, GRU and LSTM (the -14 form; `layout` from 14),
 * unrolled over the static sequence length.
 *
 * Takes: X, W, R and the optional B, sequence_lens, initial_h,
 * (LSTM) initial_c and P of static shapes, direction forward, reverse or
 * bidirectional (two independent passes side by side), any of ONNX's
 * activations per direction (Tanh, Sigmoid, Relu, Affine, LeakyRelu,
 * ThresholdedRelu, ScaledTanh, HardSigmoid, Elu, Softsign, Softplus,
 * with activation_alpha/beta; defaults Tanh; Sigmoid/Tanh; Sigmoid/Tanh/
 * Tanh), optional clip; LSTM's input_forget couples f = 1 - i.
 * Guarantees: X W^T has no dependence on the state, so it is one
 * linalg.matmul of all steps' rows ([S*B, I] x [I, G*H]) per direction
 * before the recurrence; each time step is then one linalg.matmul H R^T of
 * all gates ([B, H] x [H, G*H]; W and R are transposed at import from
 * their payloads, so the products take the pre-packed weights path), and
 * one elementwise generic per cell update that reads its gate columns as
 * static slices straight off the two products (GRU with
 * linear_before_reset = 0 needs two: r first, then (r * H) R_h^T, so its
 * per-step product covers the z and r gates only).
 * With sequence_lens (a
 * run-time [batch] input too), steps at or past a batch entry's length
 * keep its state and write zeros to Y, as ONNX defines (each step's
 * liveness is a row of one [S*B, 1] mask computed before the steps). Y concatenates
 * the steps; Y_h (and Y_c) is the final state. Run time grows linearly
 * with the sequence length; the steps' cells differ only in the rows
 * they read, so deduplicate-executables compiles one kernel for them
 * (the rows as a push constant), not one per step. */
#include <string.h>

#include "import_internal.h"

#define RN_MAX_ARGS 32

typedef struct {
  kiln_value *v[RN_MAX_ARGS];
  const kiln_affine_map *m[RN_MAX_ARGS];
  uint32_t n;
} rn_args;

/* An activation of the activations attribute, with its alpha and beta. */
enum { ACT_TANH, ACT_SIGMOID, ACT_RELU, ACT_AFFINE, ACT_LEAKY_RELU, ACT_THRESHOLDED_RELU, ACT_SCALED_TANH,
       ACT_HARD_SIGMOID, ACT_ELU, ACT_SOFTSIGN, ACT_SOFTPLUS };
typedef struct { int kind; double alpha, beta; } rn_act;

typedef struct rn {
  oi_ctx *c;
  rn_act act[2][3]; /* per direction: f, g, h */
  int64_t dir;      /* the direction being built */
  int kind;
  const kiln_type *et;
  int64_t S, B, I, H;
  bool layout1, bias, lbr, peep, couple; /* couple: input_forget, f = 1 - i */
  double clip; /* 0: none */
  kiln_value *seq; /* [B] int32, or NULL */
  /* argument positions in the cell body */
  int32_t xw, hr, wb, rb, hprev, cprev, p, sq, z;
  uint32_t gates;
} rn;

static uint32_t rn_arg(rn_args *a, kiln_value *v, const kiln_affine_map *m) {
  a->v[a->n] = v;
  a->m[a->n] = m;
  return a->n++;
}

/* A [R, N] -> columns [off, off+len) as [R, len]; a [N] vector likewise. */
static kiln_value *cols(oi_ctx *c, kiln_value *v, int64_t off, int64_t len) {
  const kiln_type *t = v->type;
  int64_t o[2] = {0, off}, s[2] = {t->shape[0], len}, st[2] = {1, 1};
  if (t->rank == 1) return oi_slice(c, v, &off, &len, st);
  return oi_slice(c, v, o, s, st);
}

static kiln_value *fc(kiln_builder *b, const kiln_type *et, double v) { return oi_scalar(b, et, v, 0); }

static kiln_value *sigmoid(kiln_builder *b, kiln_value *x) {
  const kiln_type *et = x->type;
  kiln_value *e = oi_op1(b, KILN_OP_MATH_EXP, oi_op1(b, KILN_OP_ARITH_NEGF, x));
  return oi_op2(b, KILN_OP_ARITH_DIVF, fc(b, et, 1), oi_op2(b, KILN_OP_ARITH_ADDF, fc(b, et, 1), e));
}

static kiln_value *activate(kiln_builder *b, const rn *r, uint32_t slot, kiln_value *x) {
  const rn_act *a = &r->act[r->dir][slot];
  const kiln_type *et = x->type;
  kiln_value *zero = fc(b, et, 0), *one = fc(b, et, 1);
  switch (a->kind) {
  case ACT_TANH: return oi_op1(b, KILN_OP_MATH_TANH, x);
  case ACT_SIGMOID: return sigmoid(b, x);
  case ACT_RELU: return oi_select(b, oi_cmpf(b, OI_F_OGT, x, zero), x, zero);
  case ACT_AFFINE: return oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, x, fc(b, et, a->alpha)), fc(b, et, a->beta));
  case ACT_LEAKY_RELU:
    return oi_select(b, oi_cmpf(b, OI_F_OLT, x, zero), oi_op2(b, KILN_OP_ARITH_MULF, x, fc(b, et, a->alpha)), x);
  case ACT_THRESHOLDED_RELU: return oi_select(b, oi_cmpf(b, OI_F_OGT, x, fc(b, et, a->alpha)), x, zero);
  case ACT_SCALED_TANH:
    return oi_op2(b, KILN_OP_ARITH_MULF, fc(b, et, a->alpha),
                  oi_op1(b, KILN_OP_MATH_TANH, oi_op2(b, KILN_OP_ARITH_MULF, x, fc(b, et, a->beta))));
  case ACT_HARD_SIGMOID: {
    kiln_value *t = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, x, fc(b, et, a->alpha)), fc(b, et, a->beta));
    t = oi_select(b, oi_cmpf(b, OI_F_OLT, t, zero), zero, t);
    return oi_select(b, oi_cmpf(b, OI_F_OGT, t, one), one, t);
  }
  case ACT_ELU: {
    kiln_value *neg = oi_op2(b, KILN_OP_ARITH_MULF, fc(b, et, a->alpha),
                             oi_op2(b, KILN_OP_ARITH_SUBF, oi_op1(b, KILN_OP_MATH_EXP, x), one));
    return oi_select(b, oi_cmpf(b, OI_F_OGE, x, zero), x, neg);
  }
  case ACT_SOFTSIGN:
    return oi_op2(b, KILN_OP_ARITH_DIVF, x, oi_op2(b, KILN_OP_ARITH_ADDF, one, oi_op1(b, KILN_OP_MATH_ABSF, x)));
  default: return oi_op1(b, KILN_OP_MATH_LOG, oi_op2(b, KILN_OP_ARITH_ADDF, oi_op1(b, KILN_OP_MATH_EXP, x), one));
  }
}

/* The activations attribute: NSLOT per direction (forward, then reverse),
 * names matched without case; alpha and beta are consumed in order by the
 * activations that take them, the operators' defaults otherwise (as ONNX
 * Runtime reads them). */
static bool parse_acts(oi_ctx *c, oi_node *n, rn *r, int64_t D, uint32_t nslot, const int *defaults) {
  static const struct { const char *name; int kind, nparams; double a, b; } table[] = {
    {"tanh", ACT_TANH, 0, 0, 0}, {"sigmoid", ACT_SIGMOID, 0, 0, 0}, {"relu", ACT_RELU, 0, 0, 0},
    {"affine", ACT_AFFINE, 2, 1, 0}, {"leakyrelu", ACT_LEAKY_RELU, 1, 0.01, 0},
    {"thresholdedrelu", ACT_THRESHOLDED_RELU, 1, 1, 0}, {"scaledtanh", ACT_SCALED_TANH, 2, 1, 1},
    {"hardsigmoid", ACT_HARD_SIGMOID, 2, 0.2, 0.5}, {"elu", ACT_ELU, 1, 1, 0}, {"softsign", ACT_SOFTSIGN, 0, 0, 0},
    {"softplus", ACT_SOFTPLUS, 0, 0, 0},
  };
  const Onnx__AttributeProto *at = oi_attr(n, "activations");
  const float *al, *be;
  size_t nal, nbe, ia = 0, ib = 0;
  if (!oi_attr_floats(c, n, "activation_alpha", &al, &nal) || !oi_attr_floats(c, n, "activation_beta", &be, &nbe))
    return false;
  if (at && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS)
    return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'activations' must be a list of strings");
  if (at && at->n_strings != nslot * (size_t)D && !(D == 2 && at->n_strings == nslot))
    return oi_invalid(c, "activations lists %zu functions, expected %u per direction", at->n_strings, nslot);
  for (int64_t d = 0; d < D; d++)
    for (uint32_t k = 0; k < nslot; k++) {
      rn_act *a = &r->act[d][k];
      a->kind = defaults[k];
      if (!at) continue;
      const ProtobufCBinaryData *sd = &at->strings[(at->n_strings == nslot ? 0 : d * nslot) + k];
      char name[32];
      size_t len = sd->len < sizeof name - 1 ? sd->len : sizeof name - 1;
      for (size_t i = 0; i < len; i++) name[i] = (char)(sd->data[i] >= 'A' && sd->data[i] <= 'Z' ? sd->data[i] + 32 : sd->data[i]);
      name[len] = 0;
      size_t t = 0;
      while (t < sizeof table / sizeof table[0] && strcmp(table[t].name, name) != 0) t++;
      if (t == sizeof table / sizeof table[0]) return oi_unsupported(c, "activation '%s'", name);
      a->kind = table[t].kind;
      a->alpha = table[t].a, a->beta = table[t].b;
      if (table[t].nparams >= 1 && ia < nal) a->alpha = al[ia++];
      if (table[t].nparams >= 2 && ib < nbe) a->beta = be[ib++];
    }
  return true;
}

static kiln_value *clipped(kiln_builder *b, const rn *r, kiln_value *x) {
  if (r->clip <= 0) return x;
  const kiln_type *et = x->type;
  x = oi_select(b, oi_cmpf(b, OI_F_OLT, x, fc(b, et, -r->clip)), fc(b, et, -r->clip), x);
  return oi_select(b, oi_cmpf(b, OI_F_OGT, x, fc(b, et, r->clip)), fc(b, et, r->clip), x);
}

/* The pre-activation of gate g: X_t W_g^T + H R_g^T + Wb_g + Rb_g. */
static kiln_value *pre(kiln_builder *b, const rn *r, kiln_value *const *a, uint32_t g, bool with_hr) {
  kiln_value *v = a[r->xw + (int32_t)g];
  if (with_hr) v = oi_op2(b, KILN_OP_ARITH_ADDF, v, a[r->hr + (int32_t)g]);
  if (r->bias) {
    v = oi_op2(b, KILN_OP_ARITH_ADDF, v, a[r->wb + (int32_t)g]);
    v = oi_op2(b, KILN_OP_ARITH_ADDF, v, a[r->rb + (int32_t)g]);
  }
  return v;
}

/* Yields: the new states (kept where the step is past sequence_lens),
 * then Y_t (zero there). */
static void finish(kiln_builder *b, const rn *r, kiln_value *const *a, kiln_value *h, kiln_value *cst,
                   kiln_value **y) {
  uint32_t k = 0;
  if (r->seq) {
    kiln_value *live = a[r->sq];
    y[k++] = oi_select(b, live, h, a[r->hprev]);
    if (cst) y[k++] = oi_select(b, live, cst, a[r->cprev]);
    y[k++] = oi_select(b, live, h, fc(b, h->type, 0));
    return;
  }
  y[k++] = h;
  if (cst) y[k++] = cst;
}

static bool rnn_cell(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  rn *r = u;
  finish(b, r, a, activate(b, r, 0, clipped(b, r, pre(b, r, a, 0, true))), NULL, y);
  return true;
}

/* LSTM gates in ONNX order i, o, f, c; peepholes P in order i, o, f. */
static bool lstm_cell(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  rn *r = u;
  kiln_value *cp = a[r->cprev];
  kiln_value *gi = pre(b, r, a, 0, true), *go = pre(b, r, a, 1, true), *gf = pre(b, r, a, 2, true);
  kiln_value *gc = pre(b, r, a, 3, true);
  if (r->peep) {
    gi = oi_op2(b, KILN_OP_ARITH_ADDF, gi, oi_op2(b, KILN_OP_ARITH_MULF, a[r->p + 0], cp));
    gf = oi_op2(b, KILN_OP_ARITH_ADDF, gf, oi_op2(b, KILN_OP_ARITH_MULF, a[r->p + 2], cp));
  }
  kiln_value *i = activate(b, r, 0, clipped(b, r, gi)), *f = activate(b, r, 0, clipped(b, r, gf));
  if (r->couple) f = oi_op2(b, KILN_OP_ARITH_SUBF, fc(b, i->type, 1), i);
  kiln_value *ct = activate(b, r, 1, clipped(b, r, gc));
  kiln_value *cn = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, f, cp), oi_op2(b, KILN_OP_ARITH_MULF, i, ct));
  if (r->peep) go = oi_op2(b, KILN_OP_ARITH_ADDF, go, oi_op2(b, KILN_OP_ARITH_MULF, a[r->p + 1], cn));
  kiln_value *o = activate(b, r, 0, clipped(b, r, go));
  finish(b, r, a, oi_op2(b, KILN_OP_ARITH_MULF, o, activate(b, r, 2, cn)), cn, y);
  return true;
}

/* GRU (gates z, r, h) with linear_before_reset 0 takes two cells around
 * the (r * H) R_h^T product. Phase 1 yields z and r * H. */
static bool gru_zr(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  rn *r = u;
  y[0] = activate(b, r, 0, clipped(b, r, pre(b, r, a, 0, true)));
  y[1] = oi_op2(b, KILN_OP_ARITH_MULF, activate(b, r, 0, clipped(b, r, pre(b, r, a, 1, true))), a[r->hprev]);
  return true;
}

/* Phase 2: h~ = g(X W_h^T + Wb_h + ((r*H) R_h^T + Rb_h));
 * H' = (1 - z) h~ + z H. Argument hr holds the R_h product. */
static bool gru_h(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  rn *r = u;
  kiln_value *rh = a[r->hr];
  if (r->bias) rh = oi_op2(b, KILN_OP_ARITH_ADDF, rh, a[r->rb]);
  kiln_value *x = a[r->xw];
  if (r->bias) x = oi_op2(b, KILN_OP_ARITH_ADDF, x, a[r->wb]);
  kiln_value *h = activate(b, r, 1, clipped(b, r, oi_op2(b, KILN_OP_ARITH_ADDF, x, rh)));
  kiln_value *z = a[r->z], *one = fc(b, z->type, 1);
  kiln_value *hn = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_SUBF, one, z), h),
                          oi_op2(b, KILN_OP_ARITH_MULF, z, a[r->hprev]));
  finish(b, r, a, hn, NULL, y);
  return true;
}

/* GRU with linear_before_reset: H R^T of all three gates is known before
 * the cell, so z, r, h~ and H' are one update:
 * h~ = g(X W_h^T + Wb_h + r * (H R_h^T + Rb_h)), H' = (1 - z) h~ + z H. */
static bool gru_lbr(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  rn *r = u;
  kiln_value *z = activate(b, r, 0, clipped(b, r, pre(b, r, a, 0, true)));
  kiln_value *rr = activate(b, r, 0, clipped(b, r, pre(b, r, a, 1, true)));
  kiln_value *rh = a[r->hr + 2], *x = a[r->xw + 2];
  if (r->bias) rh = oi_op2(b, KILN_OP_ARITH_ADDF, rh, a[r->rb + 2]), x = oi_op2(b, KILN_OP_ARITH_ADDF, x, a[r->wb + 2]);
  kiln_value *h = activate(b, r, 1, clipped(b, r, oi_op2(b, KILN_OP_ARITH_ADDF, x, oi_op2(b, KILN_OP_ARITH_MULF, rr, rh))));
  kiln_value *one = fc(b, z->type, 1);
  kiln_value *hn = oi_op2(b, KILN_OP_ARITH_ADDF, oi_op2(b, KILN_OP_ARITH_MULF, oi_op2(b, KILN_OP_ARITH_SUBF, one, z), h),
                          oi_op2(b, KILN_OP_ARITH_MULF, z, a[r->hprev]));
  finish(b, r, a, hn, NULL, y);
  return true;
}

/* live[t, b] (batch-major [b, t]) = t < sequence_lens[b], i1. */
static bool live_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  const rn *r = u;
  kiln_value *t = oi_loop_index_i64(b, r->layout1 ? 1 : 0);
  t = oi_convert(b, t, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, ONNX__TENSOR_PROTO__DATA_TYPE__INT32, a[0]->type);
  y[0] = oi_cmpi(b, OI_SLT, t, a[0]);
  return true;
}

/* The steps' liveness under sequence_lens, computed once, as [S*B, 1]
 * ([B*S, 1]) in the rows' order of the hoisted X W^T: each cell reads
 * its step's rows like its gate columns, so the cells of all steps
 * differ only in the rows they read (one kernel for all of them after
 * deduplicate-executables) rather than in a step constant. */
static kiln_value *live_rows(rn *r) {
  oi_ctx *c = r->c;
  int64_t shape[2] = {r->layout1 ? r->B : r->S, r->layout1 ? r->S : r->B}, rows[2] = {r->S * r->B, 1};
  int64_t bdim = r->layout1 ? 0 : 1;
  const kiln_type *t = kiln_type_tensor(c->ctx, 2, shape, kiln_type_int(c->ctx, 1), NULL);
  kiln_value *out = oi_empty(c, t), *in = r->seq;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, 2, 1, &bdim), kiln_affine_map_identity(c->ctx, 2)};
  kiln_op *g = oi_generic(c, 1, &in, 1, &out, maps, 2, NULL, live_body, r);
  return g ? oi_reshape(c, kiln_op_result(g, 0), 2, rows) : NULL;
}

/* Runs one elementwise generic over [B, H]: args, `nout` outputs. */
static kiln_op *cell(rn *r, rn_args *a, uint32_t nout, oi_body_fn body) {
  oi_ctx *c = r->c;
  int64_t bh[2] = {r->B, r->H};
  const kiln_type *t = kiln_type_tensor(c->ctx, 2, bh, r->et, NULL);
  kiln_value *outs[3];
  const kiln_affine_map *id = kiln_affine_map_identity(c->ctx, 2);
  for (uint32_t k = 0; k < nout; k++) {
    outs[k] = oi_empty(c, t);
    a->m[a->n + k] = id;
  }
  return oi_generic(c, a->n, a->v, nout, outs, a->m, 2, NULL, body, r);
}

/* Columns [off, off+len) of step t's rows of the hoisted product xw
 * ([S*B, N], rows t*B..; batch-major [B*S, N], rows b*S+t) as [B, len]:
 * one slice straight off xw, which fuses into the cell that reads it (a
 * step slice reshaped first would be a copy dispatch of its own). */
static kiln_value *step_cols(rn *r, kiln_value *xw, int64_t t, int64_t off, int64_t len) {
  int64_t o[2] = {r->layout1 ? t : t * r->B, off}, size[2] = {r->B, len}, st[2] = {r->layout1 ? r->S : 1, 1};
  return oi_slice(r->c, xw, o, size, st);
}

/* Entry d of v along `axis` (a direction), reshaped to rank/shape. */
static kiln_value *dir_slice(oi_ctx *c, kiln_value *v, uint32_t axis, int64_t d, uint32_t rank, const int64_t *shape) {
  const kiln_type *t = v->type;
  int64_t off[3] = {0, 0, 0}, size[3], st[3] = {1, 1, 1};
  for (uint32_t k = 0; k < t->rank; k++) size[k] = t->shape[k];
  off[axis] = d;
  size[axis] = 1;
  return oi_reshape(c, oi_slice(c, v, off, size, st), rank, shape);
}

/* Entry d of a constant [D, R, C] (or [D, N]) as [R, C] ([C, R] when
 * `transpose`; [N]), cut from its payload at import: a slice of the whole
 * constant would be a copy dispatch of the weights every call. NULL (and
 * no error) when v's data is not known here. */
static kiln_value *dir_const(oi_ctx *c, oi_val *v, int64_t d, bool transpose) {
  const kiln_type *t = v->type;
  if (v->v || t->rank < 2 || t->rank > 3) return NULL;
  const kiln_attr *a = oi_const(c, v); /* the payload, borrowed */
  if (!a) return NULL;
  const void *data = a->data;
  size_t nbytes = a->nbytes;
  bool splat = a->splat;
  size_t es = kiln_dense_elem_size(t->elem);
  int64_t rows = t->shape[1], cols = t->rank == 3 ? t->shape[2] : 1, n = rows * cols;
  if (!data || !es || (!splat && nbytes != (size_t)(t->shape[0] * n) * es)) return NULL;
  int64_t shape[2] = {transpose ? cols : rows, transpose ? rows : cols};
  const kiln_type *rt = kiln_type_tensor(c->ctx, t->rank - 1, shape, t->elem, NULL);
  if (splat) return kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, rt, true, data, nbytes));
  const char *src = (const char *)data + (size_t)(d * n) * es;
  if (!transpose) return kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, rt, false, src, (size_t)n * es));
  char *out = kiln_alloc(c->ctx, (size_t)n * es + 1);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) memcpy(out + (size_t)(j * rows + i) * es, src + (size_t)(i * cols + j) * es, es);
  /* out lives in the context's arena: borrowed, not copied again */
  return kiln_build_constant(&c->b, kiln_attr_dense_borrowed(c->ctx, rt, out, (size_t)n * es));
}

/* tensor.concat of n values along axis (the value itself when n is 1). */
static kiln_value *concat(oi_ctx *c, kiln_value *const *v, uint32_t n, uint32_t axis) {
  if (n == 1) return v[0];
  const kiln_type *t = v[0]->type;
  int64_t shape[OI_MAX_RANK];
  memcpy(shape, t->shape, t->rank * sizeof *shape);
  shape[axis] *= n;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, shape);
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), axis)};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, n, v, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
}

bool oi_import_rnn(oi_ctx *c, oi_node *n) {
  static const char *const k_rnn[] = {"activation_alpha", "activation_beta", "activations", "clip", "direction",
                                      "hidden_size", "layout", NULL};
  static const char *const k_gru[] = {"activation_alpha", "activation_beta", "activations", "clip", "direction",
                                      "hidden_size", "layout", "linear_before_reset", NULL};
  static const char *const k_lstm[] = {"activation_alpha", "activation_beta", "activations", "clip", "direction",
                                       "hidden_size", "layout", "input_forget", NULL};
  rn r = {.c = c, .kind = n->kind};
  bool lstm = n->kind == OI_LSTM, gru = n->kind == OI_GRU;
  r.gates = lstm ? 4 : gru ? 3 : 1;
  if (!oi_arity(c, n, 3, lstm ? 8 : 6, 0, lstm ? 3 : 2) ||
      !oi_attrs_only(c, n, lstm ? k_lstm : gru ? k_gru : k_rnn))
    return false;
  oi_val *xv = oi_in(c, n, 0), *wv = xv ? oi_in(c, n, 1) : NULL, *rv = wv ? oi_in(c, n, 2) : NULL;
  oi_val *bv = oi_opt_in(n, 3), *sv = oi_opt_in(n, 4), *h0 = oi_opt_in(n, 5);
  oi_val *c0 = lstm ? oi_opt_in(n, 6) : NULL, *pv = lstm ? oi_opt_in(n, 7) : NULL;
  if (!rv || !oi_check_type(c, xv, OI_T_FLOAT, "input 0 (X)")) return false;
  oi_val *all[8] = {wv, rv, bv, h0, c0, pv};
  for (int k = 0; k < 6; k++)
    if (all[k] && all[k]->dtype != xv->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "inputs differ in element type");
  const char *dir;
  int64_t hs, layout, lbr = 0, fgt = 0;
  double clip = 0;
  if (!oi_attr_string(c, n, "direction", "forward", &dir) || !oi_attr_int(c, n, "hidden_size", 0, &hs) ||
      !oi_attr_int(c, n, "layout", 0, &layout) || (gru && !oi_attr_int(c, n, "linear_before_reset", 0, &lbr)) ||
      (lstm && !oi_attr_int(c, n, "input_forget", 0, &fgt)) || !oi_attr_float(c, n, "clip", 0, &clip))
    return false;
  bool reverse = strcmp(dir, "reverse") == 0, bidi = strcmp(dir, "bidirectional") == 0;
  if (!reverse && !bidi && strcmp(dir, "forward") != 0) return oi_invalid(c, "direction '%s'", dir);
  int64_t D = bidi ? 2 : 1;
  static const int defaults[3][3] = {{ACT_TANH}, {ACT_SIGMOID, ACT_TANH}, {ACT_SIGMOID, ACT_TANH, ACT_TANH}};
  if (!parse_acts(c, n, &r, D, lstm ? 3 : gru ? 2 : 1, defaults[lstm ? 2 : gru ? 1 : 0])) return false;
  if (layout != 0 && layout != 1) return oi_invalid(c, "layout %lld", (long long)layout);
  r.layout1 = layout == 1;
  r.lbr = lbr != 0;
  r.couple = fgt != 0;
  r.clip = clip;
  r.et = oi_elem_type(c, xv->dtype);
  const kiln_type *xt = xv->type, *wt = wv->type, *rt = rv->type;
  if (xt->rank != 3 || wt->rank != 3 || rt->rank != 3) return oi_invalid(c, "X, W and R must have rank 3");
  r.S = xt->shape[r.layout1 ? 1 : 0];
  r.B = xt->shape[r.layout1 ? 0 : 1];
  r.I = xt->shape[2];
  r.H = hs;
  int64_t G = r.gates;
  if (hs < 1 || !oi_size_ok(c, hs, 1, "hidden_size") || wt->shape[0] != D || wt->shape[1] != G * hs ||
      wt->shape[2] != r.I || rt->shape[0] != D || rt->shape[1] != G * hs || rt->shape[2] != hs)
    return oi_invalid(c, "W must be [%lld, %lld, %lld] and R [%lld, %lld, %lld]", (long long)D, (long long)(G * hs),
                      (long long)r.I, (long long)D, (long long)(G * hs), (long long)hs);
  if (bv && (bv->type->rank != 2 || bv->type->shape[0] != D || bv->type->shape[1] != 2 * G * hs))
    return oi_invalid(c, "B must be [%lld, %lld]", (long long)D, (long long)(2 * G * hs));
  int64_t st_b[3] = {D, r.B, hs}, st_l[3] = {r.B, D, hs};
  const int64_t *sshape = r.layout1 ? st_l : st_b;
  oi_val *states[2] = {h0, c0};
  for (int k = 0; k < 2; k++)
    if (states[k] && (states[k]->type->rank != 3 || memcmp(states[k]->type->shape, sshape, sizeof st_b)))
      return oi_invalid(c, "initial_%c must be [%lld, %lld, %lld]", k ? 'c' : 'h', (long long)sshape[0],
                        (long long)sshape[1], (long long)sshape[2]);
  if (pv && (pv->type->rank != 2 || pv->type->shape[0] != D || pv->type->shape[1] != 3 * hs))
    return oi_invalid(c, "P must be [%lld, %lld]", (long long)D, (long long)(3 * hs));
  if (sv && (sv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 || sv->type->rank != 1 || sv->type->shape[0] != r.B))
    return oi_invalid(c, "sequence_lens must be int32 [%lld]", (long long)r.B);
  if (r.S < 1 || r.B < 1) return oi_unsupported(c, "an empty sequence or batch");
  if (r.S > 4096) return oi_unsupported(c, "sequence length %lld (unrolled; at most 4096)", (long long)r.S);
  if (!oi_dims_ok(c, 2, (int64_t[]){r.B, G * hs}, "gate tensor")) return false;

  /* W and R transposed to [D, I, G*H] and [D, H, G*H]: a constant is
   * permuted from its payload (no second copy, no run-time transpose) */
  static const int64_t tperm[3] = {0, 2, 1};
  kiln_value *x = oi_ir(c, xv), *w0 = NULL, *r0 = NULL;
  kiln_value *b0 = NULL, *p0 = NULL, *hh0 = NULL, *cc0 = NULL;
  /* constant W and R: each direction transposed from the payload */
  kiln_value *wdc[2] = {0}, *rdc[2] = {0};
  for (int64_t d = 0; x && d < D; d++) wdc[d] = dir_const(c, wv, d, true), rdc[d] = dir_const(c, rv, d, true);
  if (x && !wdc[D - 1]) w0 = oi_transpose_val(c, wv, tperm);
  if (x && !rdc[D - 1]) r0 = oi_transpose_val(c, rv, tperm);
  if (!x || (!wdc[D - 1] && !w0) || (!rdc[D - 1] && !r0) || (bv && !(b0 = oi_ir(c, bv))) || (pv && !(p0 = oi_ir(c, pv))) ||
      (h0 && !(hh0 = oi_ir(c, h0))) || (c0 && !(cc0 = oi_ir(c, c0))) || (sv && !(r.seq = oi_ir(c, sv))))
    return false;
  int64_t wk[2] = {r.I, G * hs}, rk[2] = {hs, G * hs}, bb[1] = {2 * G * hs}, bh[2] = {r.B, hs}, pk[1] = {3 * hs};
  r.bias = bv != NULL;
  r.peep = pv != NULL;
  const kiln_type *bht = kiln_type_tensor(c->ctx, 2, bh, r.et, NULL);
  kiln_value *ydir[2] = {0}, *hdir[2] = {0}, *cdir[2] = {0};
  /* all steps' rows of X: [S*B, I] (batch-major: [B*S, I]) */
  int64_t xrows[2] = {r.S * r.B, r.I};
  kiln_value *xflat = oi_reshape(c, x, 2, xrows);
  kiln_value *live = r.seq ? live_rows(&r) : NULL;
  if (r.seq && !live) return false;
  int64_t zero0[2] = {0, -1};
  const kiln_affine_map *rowcol0 = oi_map_dims(c, 2, 2, zero0);
  for (int64_t d = 0; d < D; d++) {
    bool rev = reverse || d == 1;
    r.dir = d;
    kiln_value *wt_d = wdc[d] ? wdc[d] : dir_slice(c, w0, 0, d, 2, wk);
    kiln_value *rt_d = rdc[d] ? rdc[d] : dir_slice(c, r0, 0, d, 2, rk);
    kiln_value *bias = b0 ? dir_const(c, bv, d, false) : NULL, *p = p0 ? dir_const(c, pv, d, false) : NULL;
    if (b0 && !bias) bias = dir_slice(c, b0, 0, d, 1, bb);
    if (p0 && !p) p = dir_slice(c, p0, 0, d, 1, pk);
    kiln_value *h = hh0 && !r.layout1 ? dir_const(c, h0, d, false) : NULL;
    if (!h) h = hh0 ? dir_slice(c, hh0, r.layout1 ? 1 : 0, d, 2, bh) : oi_filled(c, bht, 0, 0);
    kiln_value *cs = NULL;
    if (lstm) {
      cs = cc0 && !r.layout1 ? dir_const(c, c0, d, false) : NULL;
      if (!cs) cs = cc0 ? dir_slice(c, cc0, r.layout1 ? 1 : 0, d, 2, bh) : oi_filled(c, bht, 0, 0);
    }
    const kiln_affine_map *id = kiln_affine_map_identity(c->ctx, 2);
    int64_t d1 = 1;
    const kiln_affine_map *col = oi_map_dims(c, 2, 1, &d1);
    /* X W^T of every step at once: [S*B, G*H] ([B*S, G*H]) */
    kiln_value *xw_all = oi_matmul_ir(c, xflat, wt_d);
    if (!xw_all) return false;
    /* the per-step H R^T covers the gates whose product takes H itself:
       all but GRU's h gate when linear_before_reset is 0 (it takes r * H) */
    bool hgate_apart = gru && !r.lbr;
    kiln_value *rt_step = hgate_apart ? cols(c, rt_d, 0, 2 * hs) : rt_d;
    kiln_value *rt_h = hgate_apart ? cols(c, rt_d, 2 * hs, hs) : NULL;
    kiln_value *wbg[4] = {0}, *rbg[4] = {0}, *pg[3] = {0};
    for (int64_t g = 0; g < G; g++)
      if (bias) wbg[g] = cols(c, bias, g * hs, hs), rbg[g] = cols(c, bias, (G + g) * hs, hs);
    for (int k = 0; p && k < 3; k++) pg[k] = cols(c, p, k * hs, hs);
    kiln_value **ys = kiln_alloc(c->ctx, (size_t)r.S * sizeof *ys);
    for (int64_t s = 0; s < r.S; s++) {
      int64_t t = rev ? r.S - 1 - s : s;
      kiln_value *hr_all = oi_matmul_ir(c, h, rt_step);
      if (!hr_all) return false;
      kiln_value *xw[4], *hr[4] = {0};
      for (int64_t g = 0; g < G; g++) {
        xw[g] = step_cols(&r, xw_all, t, g * hs, hs);
        if (!(hgate_apart && g == 2)) hr[g] = G == 1 ? hr_all : cols(c, hr_all, g * hs, hs);
      }
      rn_args a = {.n = 0};
      kiln_op *op;
      uint32_t ng = hgate_apart ? 2 : (uint32_t)G;
      r.xw = (int32_t)a.n;
      for (uint32_t g = 0; g < ng; g++) rn_arg(&a, xw[g], id);
      r.hr = (int32_t)a.n;
      for (uint32_t g = 0; g < ng; g++) rn_arg(&a, hr[g], id);
      r.wb = (int32_t)a.n;
      for (uint32_t g = 0; bias && g < ng; g++) rn_arg(&a, wbg[g], col);
      r.rb = (int32_t)a.n;
      for (uint32_t g = 0; bias && g < ng; g++) rn_arg(&a, rbg[g], col);
      r.hprev = (int32_t)rn_arg(&a, h, id);
      if (lstm) {
        r.cprev = (int32_t)rn_arg(&a, cs, id);
        r.p = (int32_t)a.n;
        for (int k = 0; p && k < 3; k++) rn_arg(&a, pg[k], col);
      }
      if (hgate_apart) {
        kiln_op *zr = cell(&r, &a, 2, gru_zr);
        if (!zr) return false;
        kiln_value *z = kiln_op_result(zr, 0), *rh = kiln_op_result(zr, 1);
        kiln_value *prod = oi_matmul_ir(c, rh, rt_h);
        if (!prod) return false;
        rn_args a2 = {.n = 0};
        r.xw = (int32_t)rn_arg(&a2, xw[2], id);
        r.hr = (int32_t)rn_arg(&a2, prod, id);
        if (bias) r.wb = (int32_t)rn_arg(&a2, wbg[2], col), r.rb = (int32_t)rn_arg(&a2, rbg[2], col);
        r.z = (int32_t)rn_arg(&a2, z, id);
        r.hprev = (int32_t)rn_arg(&a2, h, id);
        if (r.seq) r.sq = (int32_t)rn_arg(&a2, step_cols(&r, live, t, 0, 1), rowcol0);
        op = cell(&r, &a2, r.seq ? 2 : 1, gru_h);
      } else {
        if (r.seq) r.sq = (int32_t)rn_arg(&a, step_cols(&r, live, t, 0, 1), rowcol0);
        op = cell(&r, &a, (lstm ? 2 : 1) + (r.seq ? 1 : 0), lstm ? lstm_cell : gru ? gru_lbr : rnn_cell);
      }
      if (!op) return false;
      h = kiln_op_result(op, 0);
      if (lstm) cs = kiln_op_result(op, 1);
      ys[t] = r.seq ? kiln_op_result(op, lstm ? 2 : 1) : h;
    }
    /* this direction's Y: [S, 1, B, H] or batch-major [B, S, 1, H] */
    int64_t one[4] = {1, 1, r.B, hs}, onel[4] = {r.B, 1, 1, hs};
    for (int64_t t = 0; t < r.S; t++) ys[t] = oi_reshape(c, ys[t], 4, r.layout1 ? onel : one);
    ydir[d] = concat(c, ys, (uint32_t)r.S, r.layout1 ? 1 : 0);
    int64_t one3[3] = {1, r.B, hs}, one3l[3] = {r.B, 1, hs};
    hdir[d] = oi_reshape(c, h, 3, r.layout1 ? one3l : one3);
    if (lstm) cdir[d] = oi_reshape(c, cs, 3, r.layout1 ? one3l : one3);
  }
  /* directions side by side: Y [S, D, B, H] ([B, S, D, H]), Y_h and
   * Y_c [D, B, H] ([B, D, H]) */
  if (oi_has_out(n, 0)) oi_set_out(c, n, 0, concat(c, ydir, (uint32_t)D, r.layout1 ? 2 : 1), xv->dtype);
  kiln_value **fin[2] = {hdir, cdir};
  for (int k = 0; k < (lstm ? 2 : 1); k++)
    if (oi_has_out(n, 1 + (size_t)k))
      oi_set_out(c, n, 1 + (size_t)k, concat(c, fin[k], (uint32_t)D, r.layout1 ? 1 : 0), xv->dtype);
  return true;
}
