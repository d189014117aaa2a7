/* winograd-convs: a stride-1, dilation-1 3x3 convolution with many input
 * and output channels becomes Winograd F(2x2, 3x3): 16 multiplies per
 * 2x2 output tile and channel pair instead of 36, so 2.25x fewer FLOPs
 * in the part that dominates (the per-position products):
 *   V = B^T d B   each overlapping 4x4 input tile d (adds and subtracts)
 *   M = V x U     16 matrix products [tiles x C] x [C x K], one per tile
 *                 position, U = G g G^T computed HERE from the constant
 *                 filter (no call transforms weights)
 *   Y = A^T M A   each 2x2 output tile
 * Why a flow rewrite into generics and a batch_matmul, not a codegen
 * kernel: the products then run through the existing matmul microkernel
 * and the matmul launch rule's split over the workers, and the transforms
 * are ordinary generics, one pass over their data each; every later stage
 * (fusion: the epilogue joins the last transform's dispatch through
 * sink-reshapes; dispatch formation, memory planning, each CPU
 * architecture) handles them as any other op. The transforms are
 * separable: each of the four stages applies a 4-tap 1-D transform along
 * one axis, an all-parallel generic whose body sums the four taps times
 * a column of the constant [rows x 4] coefficient matrix (B^T has two
 * nonzeros per row, A^T up to three), ~100 multiply-adds per tile and
 * channel against the products' 16 x K.
 *
 * Takes: host functions after propagate-transposes, before
 * generalize-named-ops. A convolution qualifies when it is
 * convert-convs-to-nhwc's blocked one-group generic (loops (n, oh, ow,
 * mb, nb, kh, kw, c)) reading an NHWC input at (n, oh + kh, ow + kw, c),
 * a constant filter [M/NB, 3, 3, C, NB], writing [N, OH, OW, M/NB, NB]
 * from a fill, whose one reader views it as [N, OH, OW, M]; f32, static
 * shapes but for a run-time batch N (the transforms and the products'
 * rows, N * tiles, then have run-time sizes computed from it); and where
 * it pays (wg_pays, measured; a run-time batch counts as 1). Guarantees: the reader
 * gets the same [N, OH, OW, M] values (up to rounding: the transform's
 * sums reorder the products; relative error ~1e-6 of the output's
 * magnitude for unit-scale data); anything else is left as it was.
 * Outputs of odd height or width compute a last partial tile row or
 * column over a zero-padded input and slice it off. */
#include "fl_internal.h"

#include <string.h>

typedef struct wg {
  kiln_op *op;         /* the blocked convolution */
  kiln_op *view;       /* its reader: [N, OH, OW, M] */
  kiln_value *x;       /* NHWC input [N, OH + 2, OW + 2, C] */
  kiln_value *fill;    /* the init's fill value */
  const kiln_attr *w;  /* filter [M/NB, 3, 3, C, NB] */
  int64_t n, oh, ow, c, mb, nb; /* n: -1 for a run-time batch */
} wg;

/* The transforms (Lavin & Gray, F(2x2, 3x3)). */
static const double wg_bt[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
static const double wg_g[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
static const double wg_at[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};

/* Where Winograd is a measured win (kiln-bench --profile-dispatches, one
 * worker under SCHED_FIFO, Zen 4; direct -> the five Winograd dispatches):
 * 3x3 256->256 at 14x14 2.12 -> 1.56 ms, 512->512 at 14x14 8.29 -> 6.13,
 * 128->128 at 28x28 2.16 -> 1.79, at 14x14 513 -> 382 us (load ~17-27);
 * since the transforms vectorize along the channels (stage), 64->64 at
 * 56x56 too: 2.00 -> 1.30 ms (session 14, load ~9). Where it is not: few
 * tiles per product: 256->256 at 7x7, batch 2
 * (32 tiles) 1.05 -> 1.07 ms for the product alone, whose rows then fill
 * few of the matmul microkernel's row blocks; 512->512 at 7x7 loses
 * outright (U, 16 MiB, streams from memory for 16 tiles). So: both
 * channel counts at least WG_MIN_CHANNELS and at least WG_MIN_TILES tiles
 * (a 14x14 output has 49). 64 channels (was 128 before the transforms
 * vectorized): 3x3 64->64 at 28x28 1040 -> 672 us (one worker, load
 * ~15); whole ResNets with 64-channel Winograd against 128
 * (bench_models --cpu, one thread, load 24): ResNet-18 0.94x, ResNet-34
 * 0.97x, ResNet-50 0.98x. */
#define WG_MIN_CHANNELS 64
#define WG_MIN_TILES 48

/* A run-time batch counts as one image: the tiles it has at the least,
 * so the products pay at every batch. */
static int64_t tiles(const wg *g) { return (g->n < 0 ? 1 : g->n) * ((g->oh + 1) / 2) * ((g->ow + 1) / 2); }

/* A tensor static but for a run-time batch (dim 0) when `batch`. */
static bool batch_static(const kiln_type *t, bool batch) {
  if (!batch) return fl_is_static_tensor(t);
  return t->kind == KILN_TYPE_TENSOR && t->rank >= 1 && t->shape[0] == KILN_DYNAMIC &&
         kiln_type_num_dynamic_dims(t) == 1;
}

static bool wg_pays(const wg *g) {
  return g->c >= WG_MIN_CHANNELS && g->mb * g->nb >= WG_MIN_CHANNELS && tiles(g) >= WG_MIN_TILES;
}

/* v's elements when v is a constant. */
static const kiln_attr *constant_of(kiln_value *v) {
  const kiln_attr *a = kiln_value_constant(v);
  return a && a->kind == KILN_ATTR_DENSE ? a : NULL;
}

static bool is_dim(const kiln_affine_expr *e, int l) {
  return e->kind == KILN_AFFINE_DIM && e->value == l;
}

/* e == dim a + dim b (either order). */
static bool is_sum(const kiln_affine_expr *e, int a, int b) {
  return e->kind == KILN_AFFINE_ADD &&
         ((is_dim(e->lhs, a) && is_dim(e->rhs, b)) || (is_dim(e->lhs, b) && is_dim(e->rhs, a)));
}


static bool match(kiln_op *op, wg *g) {
  memset(g, 0, sizeof *g);
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_operands != 3 || op->num_results != 1 ||
      kiln_linalg_num_inputs(op) != 2 || !fl_conv_mac_body(op, false))
    return false;
  const kiln_affine_map *maps[3];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  if (fl_iteration(op, bounds, maps, red) != 8) return false;
  const kiln_affine_map *xm = maps[0], *wm = maps[1], *om = maps[2];
  if (xm->num_results != 4 || wm->num_results != 5 || om->num_results != 5) return false;
  for (int l = 0; l < 8; l++)
    if (red[l] != (l >= 5) || (bounds[l] < 1 && !(l == 0 && bounds[l] == -1))) return false;
  bool dyn = bounds[0] == -1;
  for (int l = 0; l < 5; l++)
    if (!is_dim(om->results[l], l)) return false;
  static const int wl[5] = {3, 5, 6, 7, 4};
  for (int l = 0; l < 5; l++)
    if (!is_dim(wm->results[l], wl[l])) return false;
  if (!is_dim(xm->results[0], 0) || !is_sum(xm->results[1], 1, 5) || !is_sum(xm->results[2], 2, 6) ||
      !is_dim(xm->results[3], 7) || bounds[5] != 3 || bounds[6] != 3)
    return false;
  g->op = op;
  g->x = kiln_op_operand(op, 0);
  const kiln_type *xt = g->x->type, *ot = op->results[0].type;
  if (!batch_static(xt, dyn) || !batch_static(ot, dyn) || xt->elem != ot->elem ||
      !kiln_type_is_float(ot->elem) || kiln_dense_elem_size(ot->elem) != 4)
    return false;
  g->n = bounds[0], g->oh = bounds[1], g->ow = bounds[2], g->mb = bounds[3], g->nb = bounds[4], g->c = bounds[7];
  if (xt->shape[1] != g->oh + 2 || xt->shape[2] != g->ow + 2) return false;
  g->w = constant_of(kiln_op_operand(op, 1));
  if (!g->w || kiln_dense_count(g->w) != g->mb * 9 * g->c * g->nb) return false;
  kiln_op *f = kiln_op_operand(op, 2)->def;
  if (!f || f->kind != KILN_OP_LINALG_FILL || f->num_operands != 2) return false;
  g->fill = kiln_op_operand(f, 0);
  if (g->fill->type->kind == KILN_TYPE_TENSOR) return false;
  kiln_value *r = kiln_op_result(op, 0);
  if (!kiln_value_has_one_use(r)) return false;
  kiln_op *u = r->uses->owner;
  const kiln_type *vt = u->num_results == 1 ? u->results[0].type : NULL;
  if (u->kind != KILN_OP_FLOW_TENSOR_RESHAPE || u->num_operands != 1u + dyn || !vt || !batch_static(vt, dyn) ||
      vt->rank != 4 || vt->shape[0] != (dyn ? KILN_DYNAMIC : g->n) || vt->shape[1] != g->oh || vt->shape[2] != g->ow ||
      vt->shape[3] != g->mb * g->nb)
    return false;
  g->view = u;
  return wg_pays(g);
}

static const kiln_type *f32_tensor(kiln_context *ctx, uint32_t rank, const int64_t *shape) {
  return kiln_type_tensor(ctx, rank, shape, kiln_type_f32(ctx), NULL);
}

/* Every tensor built here has at most one run-time dim (the batch, or
 * the products' rows): `dyn`, its size, is the one size operand of the
 * op that makes such a tensor (NULL: static shapes), so
 * kiln_type_num_dynamic_dims is that op's count of size operands. */

static kiln_value *empty(kiln_builder *b, const kiln_type *t, kiln_value *dyn) {
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EMPTY, kiln_type_num_dynamic_dims(t), &dyn, 1, &t, NULL), 0);
}

static kiln_value *filled(kiln_builder *b, kiln_value *s, const kiln_type *t, kiln_value *dyn) {
  kiln_value *ops[2] = {s, empty(b, t, dyn)};
  int64_t seg[2] = {1, 1};
  kiln_named_attr e = {"operandSegmentSizes",
                       kiln_attr_dense_array(b->ctx, kiln_type_int(b->ctx, 32), 2, seg, NULL)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, kiln_attr_dict(b->ctx, 1, &e)), 0);
}

static kiln_value *reshape(kiln_builder *b, kiln_value *v, uint32_t rank, const int64_t *shape,
                           kiln_value *dyn) {
  const kiln_type *rt = kiln_type_with_shape(b->ctx, v->type, rank, shape);
  kiln_value *ops[2] = {v, dyn};
  return kiln_op_result(kiln_build(b, KILN_OP_FLOW_TENSOR_RESHAPE, 1 + kiln_type_num_dynamic_dims(rt), ops, 1, &rt, NULL), 0);
}

/* Column k of a [rows x 4] coefficient matrix as a constant [rows]. */
static kiln_value *coef_column(kiln_builder *b, int64_t rows, const double (*m)[4], int k) {
  float d[4];
  for (int64_t i = 0; i < rows; i++) d[i] = (float)m[i][k];
  return kiln_build_constant(b, kiln_attr_dense(b->ctx, f32_tensor(b->ctx, 1, &rows), false, d, (size_t)rows * 4));
}

/* U [16, C, M] = G g G^T for each (c, m), from the blocked filter, in
 * double, into the context's arena (the attribute borrows it: no second
 * copy at compile time). */
static kiln_value *transformed_filter(kiln_builder *b, const wg *g) {
  int64_t C = g->c, M = g->mb * g->nb, NB = g->nb;
  float *u = kiln_alloc(b->ctx, (size_t)(16 * C * M) * sizeof *u);
  for (int64_t mb = 0; mb < g->mb; mb++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t nb = 0; nb < NB; nb++) {
        double f[3][3], t[4][3];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) f[i][j] = kiln_dense_get_float(g->w, (((mb * 3 + i) * 3 + j) * C + c) * NB + nb);
        for (int a = 0; a < 4; a++)
          for (int j = 0; j < 3; j++) t[a][j] = wg_g[a][0] * f[0][j] + wg_g[a][1] * f[1][j] + wg_g[a][2] * f[2][j];
        for (int a = 0; a < 4; a++)
          for (int bb = 0; bb < 4; bb++)
            u[((a * 4 + bb) * C + c) * M + mb * NB + nb] =
                (float)(t[a][0] * wg_g[bb][0] + t[a][1] * wg_g[bb][1] + t[a][2] * wg_g[bb][2]);
      }
  int64_t s[3] = {16, C, M};
  return kiln_build_constant(b, kiln_attr_dense_borrowed(b->ctx, f32_tensor(b->ctx, 3, s), u,
                                                         (size_t)(16 * C * M) * sizeof *u));
}

/* One 1-D transform stage as an all-parallel generic over `loops` loops:
 * out[..] = init[..] + sum_k cols[k][row] * in[.. 2 * t + k ..] (init not
 * read where it is a tensor.empty), the four
 * taps unrolled into the body (four reads of `in`, the matrix's four
 * columns `cols` indexed by the row loop `row`). Maps are result dim lists (-1
 * ends a list; an entry >= 100 is 2 * dim(e - 100) + k, tap k's window;
 * WG_TAP is k itself).
 * Why unrolled, not a reduction of 4 against the [rows x 4] matrix: that
 * form matched the implicit-GEMM lowering, which vectorized along the
 * 4 (or 2) coefficient rows and gathered the channels as scalars (the B
 * stages ran at a tenth of a memory pass); all-parallel, the body
 * vectorizes along the channels, the innermost dim of every operand. */
#define WG_TAP 99
static kiln_value *stage(kiln_builder *b, kiln_value *in, kiln_value *const *cols, kiln_value *init,
                         uint32_t loops, const int *im, int row, const int *om) {
  kiln_context *ctx = b->ctx;
  const kiln_affine_map *maps[9];
  kiln_value *ins[8];
  for (int k = 0; k < 4; k++) {
    const kiln_affine_expr *e[KILN_MAX_LOOPS];
    uint32_t n = 0;
    for (; im[n] >= 0; n++) {
      int d = im[n];
      e[n] = d == WG_TAP ? kiln_affine_const(ctx, k)
             : d < 100   ? kiln_affine_dim(ctx, (unsigned)d)
                         : kiln_affine_binary(ctx, KILN_AFFINE_ADD,
                                          kiln_affine_binary(ctx, KILN_AFFINE_MUL, kiln_affine_dim(ctx, (unsigned)(d - 100)),
                                                             kiln_affine_const(ctx, 2)),
                                          kiln_affine_const(ctx, k));
    }
    maps[k] = kiln_affine_map_get(ctx, loops, 0, n, e);
    ins[k] = in;
  }
  const kiln_affine_expr *re = kiln_affine_dim(ctx, (unsigned)row);
  for (int k = 0; k < 4; k++) {
    maps[4 + k] = kiln_affine_map_get(ctx, loops, 0, 1, &re);
    ins[4 + k] = cols[k];
  }
  const kiln_affine_expr *oe[KILN_MAX_LOOPS];
  uint32_t no = 0;
  for (; om[no] >= 0; no++) oe[no] = kiln_affine_dim(ctx, (unsigned)om[no]);
  maps[8] = kiln_affine_map_get(ctx, loops, 0, no, oe);
  kiln_op *gen = fl_build_generic(b, 8, ins, 1, &init, maps, loops, NULL);
  kiln_block *body = gen->regions[0].first;
  kiln_builder bb = kiln_builder_at_end(ctx, body);
  bb.loc = b->loc;
  const kiln_type *f32 = kiln_type_f32(ctx);
  /* an empty init (tensor.empty) is not read: the sum starts at tap 0 */
  kiln_value *acc = init->def && init->def->kind == KILN_OP_TENSOR_EMPTY ? NULL : body->args[8];
  for (uint32_t k = 0; k < 4; k++) {
    kiln_value *mo[2] = {body->args[k], body->args[4 + k]};
    kiln_value *p = kiln_op_result(kiln_build(&bb, KILN_OP_ARITH_MULF, 2, mo, 1, &f32, NULL), 0);
    kiln_value *ao[2] = {acc, p};
    acc = !acc ? p : kiln_op_result(kiln_build(&bb, KILN_OP_ARITH_ADDF, 2, ao, 1, &f32, NULL), 0);
  }
  fl_build_yield(ctx, body, 1, &acc, b->loc);
  return kiln_op_result(gen, 0);
}

static kiln_value *batch_matmul(kiln_builder *b, kiln_value *a, kiln_value *w, kiln_value *init) {
  kiln_value *ops[3] = {a, w, init};
  int64_t seg[2] = {2, 1};
  kiln_named_attr e = {"operandSegmentSizes",
                       kiln_attr_dense_array(b->ctx, kiln_type_int(b->ctx, 32), 2, seg, NULL)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_BATCH_MATMUL, 3, ops, 1, &init->type,
                                   kiln_attr_dict(b->ctx, 1, &e)), 0);
}

/* tensor.pad of v with zeros, high amounts hi (static). */
static kiln_value *pad_high(kiln_builder *b, kiln_value *v, const int64_t *hi) {
  kiln_context *ctx = b->ctx;
  const kiln_type *t = v->type;
  int64_t lo[4] = {0, 0, 0, 0}, s[4];
  for (int d = 0; d < 4; d++) s[d] = t->shape[d] + hi[d];
  const kiln_type *pt = kiln_type_with_shape(ctx, t, 4, s);
  int64_t seg[3] = {1, 0, 0};
  const kiln_attr *attrs = kiln_attr_dict(ctx, 0, NULL);
  attrs = kiln_dict_set(ctx, attrs, "operandSegmentSizes",
                        kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 3, seg, NULL));
  attrs = kiln_dict_set(ctx, attrs, "static_low", kiln_attr_dense_i64_array(ctx, 4, lo));
  attrs = kiln_dict_set(ctx, attrs, "static_high", kiln_attr_dense_i64_array(ctx, 4, hi));
  kiln_op *p = kiln_op_create(ctx, KILN_OP_TENSOR_PAD, b->loc, 1, &v, 1, &pt, attrs, 1);
  kiln_block *body = kiln_op_entry_block(ctx, p, 0);
  for (int d = 0; d < 4; d++) kiln_block_add_arg(ctx, body, kiln_type_index(ctx), b->loc);
  kiln_builder bb = kiln_builder_at_end(ctx, body);
  bb.loc = b->loc;
  kiln_value *z = kiln_build_constant(&bb, kiln_attr_float(ctx, kiln_type_f32(ctx), 0.0));
  kiln_build(&bb, KILN_OP_TENSOR_YIELD, 1, &z, 0, NULL, NULL);
  kiln_builder_insert(b, p);
  return kiln_op_result(p, 0);
}

static kiln_value *slice(kiln_builder *b, kiln_value *v, const kiln_type *rt, kiln_value *dyn) {
  kiln_context *ctx = b->ctx;
  int64_t zero[4] = {0, 0, 0, 0}, ones[4] = {1, 1, 1, 1}, seg[4] = {1, 0, kiln_type_num_dynamic_dims(rt), 0};
  kiln_value *ops[2] = {v, dyn};
  const kiln_attr *attrs = kiln_attr_dict(ctx, 0, NULL);
  attrs = kiln_dict_set(ctx, attrs, "operandSegmentSizes",
                        kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 4, seg, NULL));
  attrs = kiln_dict_set(ctx, attrs, "static_offsets", kiln_attr_dense_i64_array(ctx, 4, zero));
  attrs = kiln_dict_set(ctx, attrs, "static_sizes", kiln_attr_dense_i64_array(ctx, 4, rt->shape));
  attrs = kiln_dict_set(ctx, attrs, "static_strides", kiln_attr_dense_i64_array(ctx, 4, ones));
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT_SLICE, 1 + (uint32_t)seg[2], ops, 1, &rt, attrs), 0);
}

static void rewrite(kiln_context *ctx, const wg *g) {
  kiln_op *op = g->op;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  int64_t N = g->n, TH = (g->oh + 1) / 2, TW = (g->ow + 1) / 2, C = g->c, M = g->mb * g->nb;
  int64_t HP = 2 * TH + 2, WP = 2 * TW + 2, T = N * TH * TW;
  /* A run-time batch: nv images, nv * TH * TW rows of the products. */
  kiln_value *nv = NULL, *tv = NULL;
  if (N < 0) {
    N = T = KILN_DYNAMIC;
    nv = fl_build_dim(&b, g->x, 0);
    kiln_value *ops[2] = {nv, kiln_build_constant(&b, kiln_attr_int(ctx, kiln_type_index(ctx), TH * TW))};
    const kiln_type *it = kiln_type_index(ctx);
    tv = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_MULI, 2, ops, 1, &it, NULL), 0);
  }
  kiln_value *zero = kiln_build_constant(&b, kiln_attr_float(ctx, kiln_type_f32(ctx), 0.0));
  kiln_value *x = g->x;
  if (HP > x->type->shape[1] || WP > x->type->shape[2]) {
    int64_t hi[4] = {0, HP - x->type->shape[1], WP - x->type->shape[2], 0};
    x = pad_high(&b, x, hi);
  }
  /* the coefficient matrices' columns (one statement per built op: as
   * call arguments their order would be the C compiler's) */
  kiln_value *btc[4], *atc[4];
  for (int k = 0; k < 4; k++) btc[k] = coef_column(&b, 4, wg_bt, k);
  for (int k = 0; k < 4; k++) atc[k] = coef_column(&b, 2, wg_at, k);
  /* B^T along the rows: t1[a, n, t, w, c] = sum_i B^T[a, i] x[n, 2t + i, w, c]
   * loops (a, n, t, w, c) */
  int64_t s1[5] = {4, N, TH, WP, C};
  kiln_value *t1 = stage(&b, x, btc, empty(&b, f32_tensor(ctx, 5, s1), nv), 5,
                         (const int[]){1, 102, 3, 4, -1}, 0, (const int[]){0, 1, 2, 3, 4, -1});
  /* B along the columns: v[a, b, n, t, u, c] = sum_j B^T[b, j] t1[a, n, t, 2u + j, c]
   * loops (a, b, n, t, u, c) */
  int64_t s2[6] = {4, 4, N, TH, TW, C};
  kiln_value *v = stage(&b, t1, btc, empty(&b, f32_tensor(ctx, 6, s2), nv), 6,
                        (const int[]){0, 2, 3, 104, 5, -1}, 1, (const int[]){0, 1, 2, 3, 4, 5, -1});
  int64_t s3[3] = {16, T, C}, s4[3] = {16, T, M};
  /* One statement per built op: as call arguments their order would be
   * the C compiler's (gcc and clang evaluate them in opposite orders). */
  kiln_value *acc = filled(&b, zero, f32_tensor(ctx, 3, s4), tv);
  kiln_value *u = transformed_filter(&b, g);
  kiln_value *prod = batch_matmul(&b, reshape(&b, v, 3, s3, tv), u, acc);
  int64_t s5[6] = {4, 4, N, TH, TW, M};
  kiln_value *m = reshape(&b, prod, 6, s5, nv);
  /* A^T along the rows: y1[p, n, t, q, u, k] = sum_a A^T[p, a] m[a, q, n, t, u, k]
   * loops (p, n, t, q, u, k) */
  int64_t s6[6] = {2, N, TH, 4, TW, M};
  kiln_value *y1 = stage(&b, m, atc, empty(&b, f32_tensor(ctx, 6, s6), nv), 6,
                         (const int[]){WG_TAP, 3, 1, 2, 4, 5, -1}, 0, (const int[]){0, 1, 2, 3, 4, 5, -1});
  /* A along the columns, onto the convolution's fill: y[n, t, p, u, q, k] =
   * fill + sum_b A^T[q, b] y1[p, n, t, b, u, k]; loops (n, t, p, u, q, k) */
  int64_t s7[6] = {N, TH, 2, TW, 2, M};
  kiln_value *y = stage(&b, y1, atc, filled(&b, g->fill, f32_tensor(ctx, 6, s7), nv), 6,
                        (const int[]){2, 0, 1, WG_TAP, 3, 5, -1}, 4, (const int[]){0, 1, 2, 3, 4, 5, -1});
  int64_t s8[4] = {N, 2 * TH, 2 * TW, M};
  kiln_value *out = reshape(&b, y, 4, s8, nv);
  const kiln_type *vt = g->view->results[0].type;
  if (2 * TH != g->oh || 2 * TW != g->ow) out = slice(&b, out, vt, nv);
  kiln_value_replace_all_uses(kiln_op_result(g->view, 0), out);
  kiln_op_erase(g->view);
  kiln_value *w = kiln_op_operand(op, 1), *init = kiln_op_operand(op, 2);
  kiln_op_erase(op);
  if (!kiln_value_has_uses(w) && w->def) kiln_op_erase(w->def);
  if (!kiln_value_has_uses(init) && init->def) {
    kiln_value *e = kiln_op_operand(init->def, 1);
    kiln_op_erase(init->def);
    if (!kiln_value_has_uses(e) && e->def) kiln_op_erase(e->def);
  }
}

static void visit(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)user;
  wg g;
  if (match(op, &g)) {
    if (g.view == *next) *next = (*next)->next;
    rewrite(ctx, &g);
  }
}

kiln_error *kiln_flow_pass_winograd_convs(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "winograd-convs", visit, NULL);
}
