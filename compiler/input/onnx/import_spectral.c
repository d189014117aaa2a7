/* Signal processing: DFT, STFT, the window functions (HannWindow,
 * HammingWindow, BlackmanWindow) and MelWeightMatrix.
 *
 * Takes: nodes of those ops; the sizes that decide output shapes must be
 * constants ("dynamic" otherwise) or, except DFT's dft_length, graph
 * inputs read on the host (a window's size, STFT's frame_step and
 * frame_length, MelWeightMatrix's bin count and DFT length).
 * Guarantees: windows and mel matrices are constants computed here in
 * double precision (of run-time size: computed by a kernel, in double
 * precision too); DFT and STFT are direct transforms (O(N^2) per signal,
 * no FFT): one generic whose reduction over the signal's samples
 * multiplies by cos/sin tables computed here (forward e^{-i 2 pi k n / N},
 * inverse e^{+i ...} / N), with a real part and an imaginary part output
 * joined as the trailing dim of 2; STFT reads frame f's sample n at
 * f * frame_step + n (an affine map) times the window. */
#include <math.h>

#include "import_internal.h"

#define PI 3.14159265358979323846

/* The out-parameters below are set on every path: gcc -O3 cannot see that
 * oi_invalid/oi_unsupported return false, and warns at the callers. */
static bool const_scalar(oi_ctx *c, oi_node *n, size_t i, const char *what, double *v) {
  *v = 0;
  oi_val *x = oi_in(c, n, i);
  if (!x) return false;
  if (oi_numel(x->type) != 1) return oi_invalid(c, "%s must hold one element", what);
  double *d;
  int64_t cnt;
  if (!oi_const_floats(c, x, what, &d, &cnt)) return false;
  *v = d[0];
  return true;
}

static bool out_dtype(oi_ctx *c, oi_node *n, int32_t *dt) {
  *dt = 0;
  int64_t v;
  if (!oi_attr_int(c, n, "output_datatype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &v)) return false;
  if (v < INT32_MIN || v > INT32_MAX || !oi_elem_type(c, (int32_t)v))
    return oi_unsupported(c, "output_datatype %s", oi_dtype_name((int32_t)v));
  *dt = (int32_t)v;
  return true;
}

/* A constant of DT from doubles (integer types truncate, as a Cast). */
static const kiln_attr *constant(oi_ctx *c, uint32_t rank, const int64_t *shape, int32_t dt, const double *v) {
  const kiln_type *t = oi_tensor_type(c, rank, shape, dt);
  if (oi_dtype_is_float(dt)) return oi_dense_floats(c, t, v);
  int64_t n = oi_numel(t), *iv = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *iv);
  for (int64_t i = 0; i < n; i++) iv[i] = (int64_t)v[i];
  return oi_dense_ints(c, t, iv);
}

/* A window whose size is read from data: its samples computed in the
 * kernel, in double precision as above, from the sample index and the
 * host's divisor N (size, or size - 1 when symmetric). */
typedef struct { int kind; int32_t dt; kiln_value *n; } win_user;

static kiln_value *cast_to(kiln_builder *b, kiln_op_kind k, kiln_value *x, const kiln_type *t) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

static bool win_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)a;
  win_user *w = u;
  const kiln_type *f64 = kiln_type_f64(b->ctx), *i64 = kiln_type_int(b->ctx, 64);
  kiln_value *i = cast_to(b, KILN_OP_ARITH_SITOFP, oi_loop_index_i64(b, 0), f64);
  kiln_value *nv = cast_to(b, KILN_OP_ARITH_INDEX_CAST, w->n, i64);
  kiln_value *nf = cast_to(b, KILN_OP_ARITH_SITOFP, nv, f64), *zero = oi_scalar(b, f64, 0, 0);
  /* N <= 0 (a window of 0 or 1 samples): t = 0 */
  kiln_value *pos = oi_cmpf(b, OI_F_OGT, nf, zero);
  kiln_value *t = oi_op2(b, KILN_OP_ARITH_DIVF, oi_op2(b, KILN_OP_ARITH_MULF, i, oi_scalar(b, f64, 2 * PI, 0)),
                         oi_select(b, pos, nf, oi_scalar(b, f64, 1, 0)));
  t = oi_select(b, pos, t, zero);
  kiln_value *ct = oi_op1(b, KILN_OP_MATH_COS, t), *v;
  double a0 = 0.42, a1 = 0.5;
  if (w->kind == OI_HANN) a0 = 0.5;
  if (w->kind == OI_HAMMING) a0 = 25.0 / 46.0, a1 = 21.0 / 46.0;
  v = oi_op2(b, KILN_OP_ARITH_SUBF, oi_scalar(b, f64, a0, 0), oi_op2(b, KILN_OP_ARITH_MULF, oi_scalar(b, f64, a1, 0), ct));
  if (w->kind != OI_HANN && w->kind != OI_HAMMING) {
    kiln_value *c2 = oi_op1(b, KILN_OP_MATH_COS, oi_op2(b, KILN_OP_ARITH_MULF, t, oi_scalar(b, f64, 2, 0)));
    v = oi_op2(b, KILN_OP_ARITH_ADDF, v, oi_op2(b, KILN_OP_ARITH_MULF, oi_scalar(b, f64, 0.08, 0), c2));
  }
  y[0] = oi_convert(b, v, ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, w->dt, oi_elem_type(c, w->dt));
  return y[0] != NULL;
}

static bool window_from_data(oi_ctx *c, oi_node *n, int32_t dt, bool periodic) {
  oi_val *x = n->in[0];
  if (oi_numel(x->type) != 1) return oi_invalid(c, "input 0 (size) must hold one element");
  kiln_value *size = x->sym[0];
  int64_t st = KILN_DYNAMIC;
  const kiln_type *et = oi_elem_type(c, dt);
  oi_check_shape(c, 1, &st, &size, et);
  win_user w = {n->kind, dt, periodic ? size : oi_ibin(c, KILN_OP_ARITH_SUBI, size, oi_index(c, 1))};
  const kiln_type *rt = oi_tensor_type(c, 1, &st, dt);
  kiln_value *init = oi_empty_dims(c, rt, &size);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, 1);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, 1, NULL, win_body, &w);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), dt);
  return true;
}

bool oi_import_window(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"output_datatype", "periodic", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  int64_t periodic;
  int32_t dt;
  double sz;
  if (!oi_attr_int(c, n, "periodic", 1, &periodic) || !out_dtype(c, n, &dt)) return false;
  if (n->in[0] && n->in[0]->sym) return window_from_data(c, n, dt, periodic != 0);
  if (!const_scalar(c, n, 0, "input 0 (size)", &sz)) return false;
  int64_t size = (int64_t)sz;
  if (!oi_size_ok(c, size, 0, "size") || size > 64 * OI_FOLD_MAX)
    return oi_unsupported(c, "a window of %lld samples", (long long)size);
  double N = periodic ? (double)size : (double)size - 1, *w = kiln_alloc(c->ctx, (size_t)(size + 1) * sizeof *w);
  for (int64_t i = 0; i < size; i++) {
    double t = N > 0 ? 2 * PI * (double)i / N : 0;
    switch (n->kind) {
    case OI_HANN: w[i] = 0.5 - 0.5 * cos(t); break;
    case OI_HAMMING: w[i] = 25.0 / 46.0 - (21.0 / 46.0) * cos(t); break;
    default: w[i] = 0.42 - 0.5 * cos(t) + 0.08 * cos(2 * t); break;
    }
  }
  oi_set_out_const(c, n, 0, constant(c, 1, &size, dt, w), dt);
  return true;
}

/* MelWeightMatrix with num_mel_bins and dft_length read from data: the
 * [dft_length / 2 + 1, bins] matrix computed by a kernel, each element
 * (j, i) from the three mel points of bin i (as above, in f64; the rate
 * and the edges read by the kernel from their tensors): (j - l) / (m - l)
 * on [l, m], (r - j) / (r - m) on [m, r), 1 at m when l == m. */
typedef struct { kiln_value *bins, *dft, *rate, *lo, *hi; int32_t dt; } mel_user;

static kiln_value *scalar_f64(kiln_builder *b, kiln_value *t, bool isf) {
  kiln_value *ops[2] = {t, oi_scalar(b, kiln_type_index(b->ctx), 0, 0)};
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + t->type->rank, ops, 1, &t->type->elem, NULL), 0);
  const kiln_type *f64 = kiln_type_f64(b->ctx);
  if (v->type == f64) return v;
  return cast_to(b, isf ? (v->type->width < 64 ? KILN_OP_ARITH_EXTF : KILN_OP_ARITH_TRUNCF) : KILN_OP_ARITH_SITOFP, v, f64);
}

static kiln_value *host_f64(kiln_builder *b, kiln_value *h) {
  return cast_to(b, KILN_OP_ARITH_SITOFP, cast_to(b, KILN_OP_ARITH_INDEX_CAST, h, kiln_type_int(b->ctx, 64)),
                 kiln_type_f64(b->ctx));
}

static kiln_value *fc(kiln_builder *b, double v) { return oi_scalar(b, kiln_type_f64(b->ctx), v, 0); }
static kiln_value *fop(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) { return oi_op2(b, k, x, y); }

/* 2595 log10(1 + hz / 700) */
static kiln_value *to_mel(kiln_builder *b, kiln_value *hz) {
  kiln_value *l = oi_op1(b, KILN_OP_MATH_LOG, fop(b, KILN_OP_ARITH_ADDF, fc(b, 1), fop(b, KILN_OP_ARITH_DIVF, hz, fc(b, 700))));
  return fop(b, KILN_OP_ARITH_MULF, l, fc(b, 2595 / log(10.0)));
}

static bool mel_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)a;
  mel_user *m = u;
  kiln_value *j = cast_to(b, KILN_OP_ARITH_SITOFP, oi_loop_index_i64(b, 0), kiln_type_f64(b->ctx));
  kiln_value *i = cast_to(b, KILN_OP_ARITH_SITOFP, oi_loop_index_i64(b, 1), kiln_type_f64(b->ctx));
  kiln_value *lm = to_mel(b, scalar_f64(b, m->lo, true)), *hm = to_mel(b, scalar_f64(b, m->hi, true));
  kiln_value *step = fop(b, KILN_OP_ARITH_DIVF, fop(b, KILN_OP_ARITH_SUBF, hm, lm),
                         fop(b, KILN_OP_ARITH_ADDF, host_f64(b, m->bins), fc(b, 2)));
  kiln_value *scale = fop(b, KILN_OP_ARITH_DIVF, fop(b, KILN_OP_ARITH_ADDF, host_f64(b, m->dft), fc(b, 1)), scalar_f64(b, m->rate, false));
  kiln_value *pt[3];
  for (int k = 0; k < 3; k++) { /* floor((dft + 1) hz / rate), hz = 700 (10^(mel / 2595) - 1) */
    kiln_value *mel = fop(b, KILN_OP_ARITH_ADDF, fop(b, KILN_OP_ARITH_MULF, fop(b, KILN_OP_ARITH_ADDF, i, fc(b, k)), step), lm);
    kiln_value *p10 = oi_op1(b, KILN_OP_MATH_EXP, fop(b, KILN_OP_ARITH_MULF, mel, fc(b, log(10.0) / 2595)));
    kiln_value *hz = fop(b, KILN_OP_ARITH_MULF, fc(b, 700), fop(b, KILN_OP_ARITH_SUBF, p10, fc(b, 1)));
    pt[k] = oi_op1(b, KILN_OP_MATH_FLOOR, fop(b, KILN_OP_ARITH_MULF, scale, hz));
  }
  kiln_value *l = pt[0], *md = pt[1], *r = pt[2], *zero = fc(b, 0);
  kiln_value *up = fop(b, KILN_OP_ARITH_DIVF, fop(b, KILN_OP_ARITH_SUBF, j, l), fop(b, KILN_OP_ARITH_SUBF, md, l));
  kiln_value *down = fop(b, KILN_OP_ARITH_DIVF, fop(b, KILN_OP_ARITH_SUBF, r, j), fop(b, KILN_OP_ARITH_SUBF, r, md));
  kiln_value *on_up = fop(b, KILN_OP_ARITH_ANDI, fop(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OLT, l, md), oi_cmpf(b, OI_F_OGE, j, l)),
                          oi_cmpf(b, OI_F_OLE, j, md));
  kiln_value *on_down = fop(b, KILN_OP_ARITH_ANDI, fop(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OLT, md, r), oi_cmpf(b, OI_F_OGE, j, md)),
                            oi_cmpf(b, OI_F_OLT, j, r));
  kiln_value *peak = fop(b, KILN_OP_ARITH_ANDI, oi_cmpf(b, OI_F_OEQ, l, md), oi_cmpf(b, OI_F_OEQ, j, md));
  kiln_value *w = oi_select(b, peak, fc(b, 1), zero);
  w = oi_select(b, on_up, up, w);
  w = oi_select(b, on_down, down, w);
  y[0] = oi_convert(b, w, ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, m->dt, oi_elem_type(c, m->dt));
  return y[0] != NULL;
}

static bool mel_from_data(oi_ctx *c, oi_node *n, int32_t dt) {
  for (size_t k = 0; k < 5; k++)
    if (oi_numel(n->in[k]->type) != 1) return oi_invalid(c, "input %zu must hold one element", k);
  if (!oi_check_type(c, n->in[2], OI_T_INT, "input 2 (sample_rate)") || !oi_check_type(c, n->in[3], OI_T_FLOAT, "input 3") ||
      !oi_check_type(c, n->in[4], OI_T_FLOAT, "input 4"))
    return false;
  mel_user m = {.dt = dt, .rate = oi_ir(c, n->in[2]), .lo = oi_ir(c, n->in[3]), .hi = oi_ir(c, n->in[4])};
  if (!m.rate || !m.lo || !m.hi) return false;
  kiln_value *hv[2];
  for (size_t k = 0; k < 2; k++) { /* read from data, or a constant */
    double v;
    if (!n->in[k]->sym && !const_scalar(c, n, k, k ? "input 1 (dft_length)" : "input 0 (num_mel_bins)", &v)) return false;
    if (!n->in[k]->sym && !(v >= 1 && v <= (double)OI_DIM_MAX)) return oi_invalid(c, "input %zu is %g", k, v);
    hv[k] = n->in[k]->sym ? n->in[k]->sym[0] : oi_index(c, (int64_t)v);
  }
  m.bins = hv[0], m.dft = hv[1];
  kiln_value *dims[2] = {oi_ibin(c, KILN_OP_ARITH_ADDI, oi_ibin(c, KILN_OP_ARITH_DIVSI, m.dft, oi_index(c, 2)), oi_index(c, 1)),
                         m.bins};
  int64_t shape[2] = {KILN_DYNAMIC, KILN_DYNAMIC};
  oi_check_shape(c, 2, shape, dims, oi_elem_type(c, dt));
  oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MINSI, m.dft, oi_index(c, 1)), oi_index(c, 1)); /* dft_length >= 1 */
  const kiln_type *rt = oi_tensor_type(c, 2, shape, dt);
  kiln_value *init = oi_empty_dims(c, rt, dims);
  const kiln_affine_map *map = kiln_affine_map_identity(c->ctx, 2);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &map, 2, NULL, mel_body, &m);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), dt);
  return true;
}

bool oi_import_mel_weight_matrix(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"output_datatype", NULL};
  if (!oi_arity(c, n, 5, 5, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  double bins_d, dft_d, rate_d, lo, hi;
  int32_t dt;
  if (!out_dtype(c, n, &dt)) return false;
  if (n->in[0] && n->in[1] && n->in[2] && n->in[3] && n->in[4] && (n->in[0]->sym || n->in[1]->sym))
    return mel_from_data(c, n, dt);
  if (!const_scalar(c, n, 0, "input 0 (num_mel_bins)", &bins_d) ||
      !const_scalar(c, n, 1, "input 1 (dft_length)", &dft_d) || !const_scalar(c, n, 2, "input 2 (sample_rate)", &rate_d) ||
      !const_scalar(c, n, 3, "input 3 (lower_edge_hertz)", &lo) ||
      !const_scalar(c, n, 4, "input 4 (upper_edge_hertz)", &hi))
    return false;
  int64_t bins = (int64_t)bins_d, dft = (int64_t)dft_d, rate = (int64_t)rate_d;
  if (!oi_size_ok(c, bins, 1, "num_mel_bins") || !oi_size_ok(c, dft, 1, "dft_length") ||
      !oi_size_ok(c, rate, 1, "sample_rate"))
    return false;
  int64_t spec = dft / 2 + 1, shape[2] = {spec, bins};
  if (spec * bins > 64 * OI_FOLD_MAX) return oi_unsupported(c, "a %lldx%lld mel matrix", (long long)spec, (long long)bins);
  /* triangles between mel-spaced points, each point a spectrogram bin */
  int64_t *pt = kiln_alloc(c->ctx, (size_t)(bins + 3) * sizeof *pt);
  double lm = 2595 * log10(1 + lo / 700), hm = 2595 * log10(1 + hi / 700), step = (hm - lm) / (double)(bins + 2);
  for (int64_t i = 0; i < bins + 2; i++) {
    double hz = 700 * (pow(10, ((double)i * step + lm) / 2595) - 1);
    pt[i] = (int64_t)floor((double)(dft + 1) * hz / (double)rate);
    if (pt[i] < 0 || pt[i] >= spec) return oi_invalid(c, "mel point %lld falls outside the %lld bins", (long long)i, (long long)spec);
  }
  double *w = kiln_alloc(c->ctx, (size_t)(spec * bins + 1) * sizeof *w);
  for (int64_t i = 0; i < bins; i++) {
    int64_t l = pt[i], m = pt[i + 1], r = pt[i + 2];
    if (m == l) w[m * bins + i] = 1;
    for (int64_t j = l; m > l && j <= m; j++) w[j * bins + i] = (double)(j - l) / (double)(m - l);
    for (int64_t j = m; r > m && j < r; j++) w[j * bins + i] = (double)(r - j) / (double)(r - m);
  }
  oi_set_out_const(c, n, 0, constant(c, 2, shape, dt, w), dt);
  return true;
}

/* ---- transforms ---- */
typedef struct { bool complex_in, windowed; } dft_user;

/* a: xr, [xi], cos, sin, [window]; outputs re, im (accumulated) */
static bool dft_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  dft_user *d = u;
  uint32_t k = 0;
  kiln_value *xr = a[k++], *xi = d->complex_in ? a[k++] : NULL;
  kiln_value *cs = a[k++], *sn = a[k++];
  if (d->windowed) {
    kiln_value *w = a[k++];
    xr = oi_op2(b, KILN_OP_ARITH_MULF, xr, w);
    if (xi) xi = oi_op2(b, KILN_OP_ARITH_MULF, xi, w);
  }
  kiln_value *re = a[k], *im = a[k + 1];
  /* (xr + i xi)(cos - i sin): sin already carries the direction's sign */
  re = oi_op2(b, KILN_OP_ARITH_ADDF, re, oi_op2(b, KILN_OP_ARITH_MULF, xr, cs));
  im = oi_op2(b, KILN_OP_ARITH_SUBF, im, oi_op2(b, KILN_OP_ARITH_MULF, xr, sn));
  if (xi) {
    re = oi_op2(b, KILN_OP_ARITH_ADDF, re, oi_op2(b, KILN_OP_ARITH_MULF, xi, sn));
    im = oi_op2(b, KILN_OP_ARITH_ADDF, im, oi_op2(b, KILN_OP_ARITH_MULF, xi, cs));
  }
  y[0] = re;
  y[1] = im;
  return true;
}

/* cos/sin tables [K, M]: angle 2 pi k m / N, sin negated for the inverse,
 * both divided by N for the inverse. */
static void tables(oi_ctx *c, int64_t K, int64_t M, int64_t N, bool inverse, const kiln_type *et, kiln_value **cs,
                   kiln_value **sn) {
  int64_t shape[2] = {K, M};
  double *cv = kiln_alloc(c->ctx, (size_t)(K * M + 1) * sizeof *cv), *sv = kiln_alloc(c->ctx, (size_t)(K * M + 1) * sizeof *sv);
  double scale = inverse ? 1.0 / (double)N : 1.0;
  for (int64_t k = 0; k < K; k++)
    for (int64_t m = 0; m < M; m++) {
      double t = 2 * PI * (double)((k * m) % N) / (double)N;
      cv[k * M + m] = cos(t) * scale;
      sv[k * M + m] = (inverse ? -sin(t) : sin(t)) * scale;
    }
  const kiln_type *tt = kiln_type_tensor(c->ctx, 2, shape, et, NULL);
  *cs = kiln_build_constant(&c->b, oi_dense_floats(c, tt, cv));
  *sn = kiln_build_constant(&c->b, oi_dense_floats(c, tt, sv));
}

/* [.., 1 or 2] -> real and imaginary parts [..] (imag NULL when real) */
static void split_complex(oi_ctx *c, kiln_value *x, kiln_value **re, kiln_value **im) {
  const kiln_type *t = x->type;
  uint32_t r = t->rank;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) size[d] = t->shape[d], one[d] = 1;
  size[r - 1] = 1;
  *re = oi_reshape(c, oi_slice(c, x, off, size, one), r - 1, t->shape);
  *im = NULL;
  if (t->shape[r - 1] == 2) {
    off[r - 1] = 1;
    *im = oi_reshape(c, oi_slice(c, x, off, size, one), r - 1, t->shape);
  }
}

/* re, im [..] -> [.., 2] */
static kiln_value *join_complex(oi_ctx *c, kiln_value *re, kiln_value *im) {
  const kiln_type *t = re->type;
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) s[d] = t->shape[d];
  s[t->rank] = 1;
  kiln_value *vs[2] = {oi_reshape(c, re, t->rank + 1, s), oi_reshape(c, im, t->rank + 1, s)};
  s[t->rank] = 2;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank + 1, s);
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), t->rank)};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, 2, vs, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
}

bool oi_import_dft(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "inverse", "onesided", NULL};
  if (!oi_arity(c, n, 1, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *lv = oi_opt_in(n, 1);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  const kiln_type *t = x->type;
  uint32_t r = t->rank;
  if (r < 3 || (t->shape[r - 1] != 1 && t->shape[r - 1] != 2))
    return oi_invalid(c, "input must be [batch, ..., 1 or 2]");
  int64_t axis, inverse, onesided;
  if (!oi_attr_int(c, n, "axis", 1, &axis) || !oi_attr_int(c, n, "inverse", 0, &inverse) ||
      !oi_attr_int(c, n, "onesided", 0, &onesided))
    return false;
  uint32_t ax; /* among the signal dims: not the batch, not the complex pair */
  if (!oi_axis(c, axis, r, "axis", &ax)) return false;
  if (ax == 0 || ax == r - 1) return oi_invalid(c, "axis %lld is the batch or the complex dimension", (long long)axis);
  if (onesided && inverse) return oi_invalid(c, "onesided with inverse");
  if (onesided && t->shape[r - 1] == 2) return oi_invalid(c, "onesided needs a real input");
  int64_t have = t->shape[ax], N = have;
  if (lv) {
    double d;
    if (!const_scalar(c, n, 1, "input 1 (dft_length)", &d)) return false;
    N = (int64_t)d;
    if (!oi_size_ok(c, N, 1, "dft_length")) return false;
  }
  int64_t M = have < N ? have : N, K = onesided ? N / 2 + 1 : N; /* samples read, bins written */
  if (K * M > 64 * OI_FOLD_MAX) return oi_unsupported(c, "a %lld-point transform", (long long)N);
  kiln_value *xv = oi_ir(c, x), *xr, *xi, *cs, *sn;
  if (!xv) return false;
  split_complex(c, xv, &xr, &xi);
  tables(c, K, M, N, inverse != 0, t->elem, &cs, &sn);
  /* loops: the output's signal dims (k at ax), then m */
  uint32_t sr = r - 1, loops = sr + 1;
  int64_t os[OI_MAX_RANK], xd[OI_MAX_RANK], od[OI_MAX_RANK], td[2] = {ax, sr};
  for (uint32_t d = 0; d < sr; d++) os[d] = d == ax ? K : t->shape[d], xd[d] = d == ax ? sr : d, od[d] = d;
  const kiln_type *ot = kiln_type_with_shape(c->ctx, t, sr, os);
  /* fewer samples than the axis holds: read the first M */
  if (M < have) {
    int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK];
    for (uint32_t d = 0; d < sr; d++) size[d] = d == ax ? M : t->shape[d], one[d] = 1;
    xr = oi_slice(c, xr, off, size, one);
    if (xi) xi = oi_slice(c, xi, off, size, one);
  }
  kiln_value *ins[4], *outs[2] = {oi_filled(c, ot, 0, 0), oi_filled(c, ot, 0, 0)};
  const kiln_affine_map *mx = oi_map_dims(c, loops, sr, xd), *mt = oi_map_dims(c, loops, 2, td),
                        *mo = oi_map_dims(c, loops, sr, od);
  const kiln_affine_map *maps[6];
  uint32_t k = 0;
  ins[k] = xr, maps[k++] = mx;
  if (xi) ins[k] = xi, maps[k++] = mx;
  ins[k] = cs, maps[k++] = mt;
  ins[k] = sn, maps[k++] = mt;
  maps[k] = mo, maps[k + 1] = mo;
  bool red[KILN_MAX_LOOPS] = {0};
  red[sr] = true;
  dft_user du = {xi != NULL, false};
  kiln_op *g = oi_generic(c, k, ins, 2, outs, maps, loops, red, dft_body, &du);
  if (!g) return false;
  oi_set_out(c, n, 0, join_complex(c, kiln_op_result(g, 0), kiln_op_result(g, 1)), x->dtype);
  return true;
}

/* STFT with frame_step or frame_length read from data: the cos/sin
 * tables [K, L] computed by a kernel (f64, as tables() does), then one
 * generic over (batch, frame, k, re/im, m) reducing over m that reads
 * the signal at f * step + m (host values; clamped into the signal) and
 * writes the [batch, frames, K, 2] result directly. Checked on the host:
 * step >= 1, 1 <= L <= the signal's length, the window's length L. */
typedef struct { kiln_value *L; } tab_user;

static bool tab_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  tab_user *t = u;
  const kiln_type *i64 = kiln_type_int(b->ctx, 64), *f64 = kiln_type_f64(b->ctx), *et = a[0]->type;
  kiln_value *L = cast_to(b, KILN_OP_ARITH_INDEX_CAST, t->L, i64);
  kiln_value *km = oi_op2(b, KILN_OP_ARITH_REMSI, oi_op2(b, KILN_OP_ARITH_MULI, oi_loop_index_i64(b, 0), oi_loop_index_i64(b, 1)), L);
  kiln_value *th = fop(b, KILN_OP_ARITH_DIVF, fop(b, KILN_OP_ARITH_MULF, fc(b, 2 * PI), cast_to(b, KILN_OP_ARITH_SITOFP, km, f64)),
                       cast_to(b, KILN_OP_ARITH_SITOFP, L, f64));
  y[0] = oi_op1(b, KILN_OP_MATH_COS, th), y[1] = oi_op1(b, KILN_OP_MATH_SIN, th);
  for (int i = 0; i < 2 && et != f64; i++) y[i] = cast_to(b, KILN_OP_ARITH_TRUNCF, y[i], et);
  return true;
}

typedef struct { kiln_value *x, *step, *last; bool complex_in, windowed; } stft_user;

/* a: cos, sin, [window], acc; loops (b, f, k, c, m) */
static bool stft_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  stft_user *s = u;
  const kiln_type *it = kiln_type_index(b->ctx), *et = s->x->type->elem;
  kiln_value *pos = oi_op2(b, KILN_OP_ARITH_ADDI, oi_op2(b, KILN_OP_ARITH_MULI, oi_loop_index(b, 1), s->step), oi_loop_index(b, 4));
  pos = oi_select(b, oi_cmpi(b, OI_SGT, pos, s->last), s->last, pos);
  kiln_value *v[2] = {NULL, NULL};
  for (int p = 0; p < (s->complex_in ? 2 : 1); p++) {
    kiln_value *ops[4] = {s->x, oi_loop_index(b, 0), pos, oi_scalar(b, it, 0, p)};
    v[p] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 4, ops, 1, &et, NULL), 0);
    if (s->windowed) v[p] = oi_op2(b, KILN_OP_ARITH_MULF, v[p], a[2]);
  }
  kiln_value *cs = a[0], *sn = a[1];
  /* (xr + i xi)(cos - i sin) */
  kiln_value *re = oi_op2(b, KILN_OP_ARITH_MULF, v[0], cs);
  kiln_value *im = oi_op2(b, KILN_OP_ARITH_SUBF, oi_scalar(b, et, 0, 0), oi_op2(b, KILN_OP_ARITH_MULF, v[0], sn));
  if (v[1]) {
    re = oi_op2(b, KILN_OP_ARITH_ADDF, re, oi_op2(b, KILN_OP_ARITH_MULF, v[1], sn));
    im = oi_op2(b, KILN_OP_ARITH_ADDF, im, oi_op2(b, KILN_OP_ARITH_MULF, v[1], cs));
  }
  kiln_value *part = oi_select(b, oi_cmpi(b, OI_EQ, oi_loop_index(b, 3), oi_scalar(b, it, 0, 0)), re, im);
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDF, a[s->windowed ? 3 : 2], part);
  return true;
}

static bool stft_from_data(oi_ctx *c, oi_node *n, oi_val *x, oi_val *wv, oi_val *lv, bool onesided) {
  const kiln_type *t = x->type;
  kiln_value *step = n->in[1]->sym ? n->in[1]->sym[0] : NULL, *L = NULL;
  double v;
  if (!step) {
    if (!const_scalar(c, n, 1, "input 1 (frame_step)", &v)) return false;
    if (!(v >= 1 && v <= (double)OI_DIM_MAX)) return oi_invalid(c, "frame_step %g", v);
    step = oi_index(c, (int64_t)v);
  }
  if (lv && lv->sym) L = lv->sym[0];
  else if (lv) {
    if (!const_scalar(c, n, 3, "input 3 (frame_length)", &v)) return false;
    if (!(v >= 1 && v <= (double)OI_DIM_MAX)) return oi_invalid(c, "frame_length %g", v);
    L = oi_index(c, (int64_t)v);
  }
  if (wv && (wv->type->rank != 1 || wv->dtype != x->dtype || oi_has_dyn(wv->type)))
    return oi_invalid(c, "window must be 1-D of the signal's type");
  if (wv && L) oi_check_eq(c, L, oi_index(c, wv->type->shape[0]));
  if (!L) L = oi_index(c, wv->type->shape[0]);
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1), *S = oi_index(c, t->shape[1]);
  oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MINSI, step, one), one); /* step >= 1 */
  oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MINSI, L, one), one);    /* L >= 1 */
  oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_ibin(c, KILN_OP_ARITH_SUBI, L, S), zero), zero); /* L <= S */
  kiln_value *F = oi_ibin(c, KILN_OP_ARITH_ADDI, oi_ibin(c, KILN_OP_ARITH_DIVSI, oi_ibin(c, KILN_OP_ARITH_SUBI, S, L), step), one);
  kiln_value *K = onesided ? oi_ibin(c, KILN_OP_ARITH_ADDI, oi_ibin(c, KILN_OP_ARITH_DIVSI, L, oi_index(c, 2)), one) : L;
  int64_t ts[2] = {KILN_DYNAMIC, KILN_DYNAMIC};
  kiln_value *td[2] = {K, L};
  oi_check_shape(c, 2, ts, td, t->elem);
  const kiln_type *tt = kiln_type_with_shape(c->ctx, t, 2, ts);
  kiln_value *touts[2] = {oi_empty_dims(c, tt, td), oi_empty_dims(c, tt, td)};
  const kiln_affine_map *tm[2] = {kiln_affine_map_identity(c->ctx, 2), kiln_affine_map_identity(c->ctx, 2)};
  tab_user tu = {L};
  kiln_op *tg = oi_generic(c, 0, NULL, 2, touts, tm, 2, NULL, tab_body, &tu);
  if (!tg) return false;
  int64_t os[4] = {t->shape[0], KILN_DYNAMIC, KILN_DYNAMIC, 2};
  kiln_value *od[2] = {F, K}, *full[4] = {NULL, F, K, NULL};
  oi_check_shape(c, 4, os, full, t->elem);
  const kiln_type *ot = kiln_type_with_shape(c->ctx, t, 4, os);
  kiln_value *out = oi_fill_into(c, oi_empty_dims(c, ot, od), 0, 0);
  stft_user su = {oi_ir(c, x), step, oi_ibin(c, KILN_OP_ARITH_SUBI, S, one), t->shape[2] == 2, wv != NULL};
  if (!su.x) return false;
  kiln_value *ins[3] = {kiln_op_result(tg, 0), kiln_op_result(tg, 1), wv ? oi_ir(c, wv) : NULL};
  if (wv && !ins[2]) return false;
  int64_t tdm[2] = {2, 4}, wdm[1] = {4}, odm[4] = {0, 1, 2, 3};
  const kiln_affine_map *maps[4] = {oi_map_dims(c, 5, 2, tdm), oi_map_dims(c, 5, 2, tdm), NULL, NULL};
  uint32_t k = 2;
  if (wv) maps[k++] = oi_map_dims(c, 5, 1, wdm);
  maps[k] = oi_map_dims(c, 5, 4, odm);
  bool red[5] = {false, false, false, false, true};
  kiln_op *g = oi_generic(c, k, ins, 1, &out, maps, 5, red, stft_body, &su);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

bool oi_import_stft(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"onesided", NULL};
  if (!oi_arity(c, n, 2, 4, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *wv = oi_opt_in(n, 2), *lv = oi_opt_in(n, 3);
  if (!x || !oi_check_type(c, x, OI_T_FLOAT, "input 0 (signal)")) return false;
  const kiln_type *t = x->type;
  if (t->rank != 3 || (t->shape[2] != 1 && t->shape[2] != 2)) return oi_invalid(c, "signal must be [batch, length, 1 or 2]");
  int64_t onesided;
  double step_d, len_d = 0;
  if (!oi_attr_int(c, n, "onesided", 1, &onesided)) return false;
  if (n->in[1] && (n->in[1]->sym || (lv && lv->sym))) {
    if (onesided && t->shape[2] == 2) return oi_invalid(c, "onesided needs a real signal");
    if (!wv && !lv) return oi_invalid(c, "needs a window or a frame_length");
    return stft_from_data(c, n, x, wv, lv, onesided != 0);
  }
  if (!const_scalar(c, n, 1, "input 1 (frame_step)", &step_d) ||
      (lv && !const_scalar(c, n, 3, "input 3 (frame_length)", &len_d)))
    return false;
  if (wv && (wv->type->rank != 1 || wv->dtype != x->dtype)) return oi_invalid(c, "window must be 1-D of the signal's type");
  int64_t step = (int64_t)step_d, L = lv ? (int64_t)len_d : wv ? wv->type->shape[0] : 0, S = t->shape[1];
  if (!wv && !lv) return oi_invalid(c, "needs a window or a frame_length");
  if (wv && lv && wv->type->shape[0] != L) return oi_invalid(c, "window and frame_length differ");
  if (!oi_size_ok(c, step, 1, "frame_step") || !oi_size_ok(c, L, 1, "frame_length")) return false;
  if (L > S) return oi_invalid(c, "frame_length %lld exceeds the signal's %lld samples", (long long)L, (long long)S);
  if (onesided && t->shape[2] == 2) return oi_invalid(c, "onesided needs a real signal");
  int64_t F = (S - L) / step + 1, K = onesided ? L / 2 + 1 : L;
  if (K * L > 64 * OI_FOLD_MAX) return oi_unsupported(c, "frames of %lld samples", (long long)L);
  kiln_value *xv = oi_ir(c, x), *xr, *xi, *cs, *sn, *win = wv ? oi_ir(c, wv) : NULL;
  if (!xv || (wv && !win)) return false;
  split_complex(c, xv, &xr, &xi);
  tables(c, K, L, L, false, t->elem, &cs, &sn);
  /* loops (b, f, k, m): x at (b, f * step + m), tables (k, m), window (m) */
  kiln_context *ctx = c->ctx;
  const kiln_affine_expr *ex[2] = {kiln_affine_dim(ctx, 0),
                                   kiln_affine_binary(ctx, KILN_AFFINE_ADD,
                                                      kiln_affine_binary(ctx, KILN_AFFINE_MUL, kiln_affine_dim(ctx, 1),
                                                                         kiln_affine_const(ctx, step)),
                                                      kiln_affine_dim(ctx, 3))};
  int64_t td[2] = {2, 3}, wd[1] = {3}, od[3] = {0, 1, 2}, os[3] = {t->shape[0], F, K};
  const kiln_affine_map *mx = kiln_affine_map_get(ctx, 4, 0, 2, ex), *mt = oi_map_dims(c, 4, 2, td),
                        *mw = oi_map_dims(c, 4, 1, wd), *mo = oi_map_dims(c, 4, 3, od);
  const kiln_type *ot = kiln_type_with_shape(ctx, t, 3, os);
  kiln_value *ins[5], *outs[2] = {oi_filled(c, ot, 0, 0), oi_filled(c, ot, 0, 0)};
  const kiln_affine_map *maps[7];
  uint32_t k = 0;
  ins[k] = xr, maps[k++] = mx;
  if (xi) ins[k] = xi, maps[k++] = mx;
  ins[k] = cs, maps[k++] = mt;
  ins[k] = sn, maps[k++] = mt;
  if (win) ins[k] = win, maps[k++] = mw;
  maps[k] = mo, maps[k + 1] = mo;
  bool red[4] = {false, false, false, true};
  dft_user du = {xi != NULL, win != NULL};
  kiln_op *g = oi_generic(c, k, ins, 2, outs, maps, 4, red, dft_body, &du);
  if (!g) return false;
  oi_set_out(c, n, 0, join_complex(c, kiln_op_result(g, 0), kiln_op_result(g, 1)), x->dtype);
  return true;
}
