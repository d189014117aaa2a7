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
 * architecture) handles them as any other op. Each transform is one
 * all-parallel generic over both axes of a tile (stage): the columns where
 * a row of B^T (2) or A^T (3) is nonzero are affine in the row (wg_btap,
 * wg_atap), so an output element sums 2 x 2 or 3 x 3 taps of the tile,
 * each row's column sum times a row coefficient; ~220 multiplies and adds per
 * tile and channel against the products' 16 x K.
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
 * input channels at least WG_MIN_CHANNELS and at least WG_MIN_TILES tiles
 * (a 14x14 output has 49). 64 channels (was 128 before the transforms
 * vectorized): 3x3 64->64 at 28x28 1040 -> 672 us (one worker, load
 * ~15); whole ResNets with 64-channel Winograd against 128
 * (bench_models --cpu, one thread, load 24): ResNet-18 0.94x, ResNet-34
 * 0.97x, ResNet-50 0.98x. The output channels need only WG_MIN_OUT:
 * DenseNet's 3x3s are 128->32 (its growth rate), and a product with 32
 * columns still runs at about the direct convolution's rate per FLOP, so
 * the 2.25x fewer FLOPs pay: 1x1 128->128 + 3x3 128->32, one worker,
 * min of 3 alternating runs (load ~8), direct -> Winograd: 56x56 3.01 ->
 * 2.30 ms, 28x28 733 -> 543 us, 14x14 181 -> 136 us; 64->32 at 56x56 1.37
 * -> 1.03 ms, 256->32 at 28x28 1.93 -> 1.54 ms. DenseNet-121 (bench
 * --cpu, one worker): 57.2 -> 52.9 CPU ms per call. */
#define WG_MIN_CHANNELS 64
#define WG_MIN_OUT 32
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
  return g->c >= WG_MIN_CHANNELS && g->mb * g->nb >= WG_MIN_OUT && tiles(g) >= WG_MIN_TILES;
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

/* The nonzero columns (taps) of each transform row: B^T row r at columns
 * r and 2 - r / 2, A^T row p at p .. p + 2. Each tap's column is affine
 * in the row (r = 2 r1 + r0 split into two loops), so a stage reads tap
 * k of every row through one map, times a per-row coefficient. */
static const int wg_btap[2][4] = {{0, 1, 2, 3}, {2, 2, 1, 1}};
static const int wg_atap[3][2] = {{0, 1}, {1, 2}, {2, 3}};

/* Tap k's coefficient m[r][tap[r]] of each row: a constant [2, 2] indexed
 * by (r1, r0) when `split`, else [rows]. */
static kiln_value *tap_coefs(kiln_builder *b, int64_t rows, const double (*m)[4], const int *tap, bool split) {
  float d[4];
  for (int64_t r = 0; r < rows; r++) d[r] = (float)m[r][tap[r]];
  int64_t shape[2] = {split ? 2 : rows, 2};
  return kiln_build_constant(b, kiln_attr_dense(b->ctx, f32_tensor(b->ctx, split ? 2u : 1u, shape), false, d,
                                                (size_t)rows * 4));
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

/* c + sum of m[i] * dim d[i] (i < n): an affine index, or part of one. */
typedef struct wg_lin {
  int64_t c;
  int n, d[3];
  int64_t m[3];
} wg_lin;

/* One axis of a 2-D transform stage: tap k (k < taps) adds form[k] to
 * result `res` of the input map and multiplies by coef[k], a per-row
 * constant indexed by the row loops l (nl of them). */
typedef struct wg_axis {
  int taps, res;
  wg_lin form[3];
  kiln_value *coef[3];
  int nl, l[2];
} wg_axis;

static const kiln_affine_expr *lin_expr(kiln_context *ctx, const wg_lin *const *parts, int np) {
  const kiln_affine_expr *v = NULL;
  int64_t c = 0;
  for (int p = 0; p < np; p++) {
    for (int i = 0; i < parts[p]->n; i++) {
      const kiln_affine_expr *t = kiln_affine_dim(ctx, (unsigned)parts[p]->d[i]);
      if (parts[p]->m[i] != 1) t = kiln_affine_binary(ctx, KILN_AFFINE_MUL, t, kiln_affine_const(ctx, parts[p]->m[i]));
      v = v ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, v, t) : t;
    }
    c += parts[p]->c;
  }
  if (c || !v) v = v ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, v, kiln_affine_const(ctx, c)) : kiln_affine_const(ctx, c);
  return v;
}

/* One 2-D transform stage (B^T d B or A^T m A) as an all-parallel
 * generic over `loops` loops: out = init + sum_i rc_i * sum_j cc_j *
 * in[base + row tap i + column tap j] (init not read where it is a
 * tensor.empty; base: nim index forms, the taps' forms added to results
 * ra->res and ca->res), the output indexed by the loops in order.
 * Why one stage over the taps of both axes, not two 1-D stages (rows,
 * then columns): one pass reads the input tile from cache and writes the
 * transform once, where the 1-D stages wrote and re-read an intermediate
 * as large as the input (B) or twice the output (A); only the nonzero
 * taps are read (wg_btap, wg_atap), so the 2-D sums cost what the 1-D
 * stages did. The taps are unrolled into the body, all loops parallel,
 * so it vectorizes along the channels (the innermost dim of every
 * operand); the row coefficient multiplies each row's column sum. */
static kiln_value *stage(kiln_builder *b, kiln_value *in, const wg_axis *ra, const wg_axis *ca,
                         kiln_value *init, uint32_t loops, const wg_lin *base, uint32_t nim) {
  kiln_context *ctx = b->ctx;
  const kiln_affine_map *maps[16];
  kiln_value *ins[15];
  int nt = ra->taps * ca->taps, n = 0;
  for (int k = 0; k < nt; k++, n++) {
    const kiln_affine_expr *e[KILN_MAX_LOOPS];
    for (uint32_t r = 0; r < nim; r++) {
      const wg_lin *parts[3] = {&base[r]};
      int np = 1;
      if ((int)r == ra->res) parts[np++] = &ra->form[k / ca->taps];
      if ((int)r == ca->res) parts[np++] = &ca->form[k % ca->taps];
      e[r] = lin_expr(ctx, parts, np);
    }
    maps[n] = kiln_affine_map_get(ctx, loops, 0, nim, e);
    ins[n] = in;
  }
  const wg_axis *ax[2] = {ra, ca};
  for (int a = 0; a < 2; a++) {
    const kiln_affine_expr *le[2];
    for (int i = 0; i < ax[a]->nl; i++) le[i] = kiln_affine_dim(ctx, (unsigned)ax[a]->l[i]);
    for (int k = 0; k < ax[a]->taps; k++, n++) {
      maps[n] = kiln_affine_map_get(ctx, loops, 0, (uint32_t)ax[a]->nl, le);
      ins[n] = ax[a]->coef[k];
    }
  }
  const kiln_affine_expr *oe[KILN_MAX_LOOPS];
  for (uint32_t r = 0; r < loops; r++) oe[r] = kiln_affine_dim(ctx, r);
  maps[n] = kiln_affine_map_get(ctx, loops, 0, loops, oe);
  kiln_op *gen = fl_build_generic(b, (uint32_t)n, ins, 1, &init, maps, loops, NULL);
  kiln_block *body = gen->regions[0].first;
  kiln_builder bb = kiln_builder_at_end(ctx, body);
  bb.loc = b->loc;
  const kiln_type *f32 = kiln_type_f32(ctx);
  kiln_value *const *rc = &body->args[nt], *const *cc = &body->args[nt + ra->taps];
  /* an empty init (tensor.empty) is not read: the sum starts at tap 0 */
  kiln_value *acc = init->def && init->def->kind == KILN_OP_TENSOR_EMPTY ? NULL : body->args[n];
  for (int i = 0; i < ra->taps; i++) {
    kiln_value *row = NULL;
    for (int j = 0; j < ca->taps; j++) {
      kiln_value *mo[2] = {body->args[i * ca->taps + j], cc[j]};
      kiln_value *p = kiln_op_result(kiln_build(&bb, KILN_OP_ARITH_MULF, 2, mo, 1, &f32, NULL), 0);
      kiln_value *ao[2] = {row, p};
      row = !row ? p : kiln_op_result(kiln_build(&bb, KILN_OP_ARITH_ADDF, 2, ao, 1, &f32, NULL), 0);
    }
    kiln_value *mo[2] = {row, rc[i]};
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
  /* V = B^T d B: v[a1, a0, b1, b0, n, t, u, c] = sum over the taps i of
   * row a = 2 a1 + a0 and j of row b = 2 b1 + b0 of B^T[a, i] B^T[b, j]
   * x[n, 2t + i, 2u + j, c] (row-major: the view [16, tiles, C] has
   * position 4a + b); loops (a1, a0, b1, b0, n, t, u, c). Each axis' taps
   * (wg_btap): column a = 2 a1 + a0, column 2 - a1; the coefficient
   * constants are built one statement each (as call arguments their
   * order would be the C compiler's). */
  wg_axis br = {2, 1, {{0, 2, {0, 1}, {2, 1}}, {2, 1, {0}, {-1}}}, {NULL}, 2, {0, 1}};
  wg_axis bc = {2, 2, {{0, 2, {2, 3}, {2, 1}}, {2, 1, {2}, {-1}}}, {NULL}, 2, {2, 3}};
  for (int k = 0; k < 2; k++) br.coef[k] = bc.coef[k] = tap_coefs(&b, 4, wg_bt, wg_btap[k], true);
  int64_t s2[8] = {2, 2, 2, 2, N, TH, TW, C};
  const wg_lin bx[4] = {{0, 1, {4}, {1}}, {0, 1, {5}, {2}}, {0, 1, {6}, {2}}, {0, 1, {7}, {1}}};
  kiln_value *v = stage(&b, x, &br, &bc, empty(&b, f32_tensor(ctx, 8, s2), nv), 8, bx, 4);
  int64_t s3[3] = {16, T, C}, s4[3] = {16, T, M};
  /* One statement per built op: as call arguments their order would be
   * the C compiler's (gcc and clang evaluate them in opposite orders). */
  kiln_value *acc = filled(&b, zero, f32_tensor(ctx, 3, s4), tv);
  kiln_value *u = transformed_filter(&b, g);
  kiln_value *prod = batch_matmul(&b, reshape(&b, v, 3, s3, tv), u, acc);
  int64_t s5[5] = {16, N, TH, TW, M};
  kiln_value *m = reshape(&b, prod, 5, s5, nv);
  /* Y = A^T m A onto the convolution's fill: y[n, t, p, u, q, k] = fill +
   * sum_ij A^T[p, p + i] A^T[q, q + j] m[4 (p + i) + q + j, n, t, u, k]
   * (wg_atap); loops (n, t, p, u, q, k). (Position 4 (p + i) + q + j of
   * a [16, ...] view, not [p + i, q + j] of [4, 4, ...]: the tap i = 0
   * would read that view's dim 0 of 4 at the plain loop p of 2, which
   * linalg refuses.) */
  wg_axis ar = {3, 0, {{0, 1, {2}, {4}}, {4, 1, {2}, {4}}, {8, 1, {2}, {4}}}, {NULL}, 1, {2}};
  wg_axis ac = {3, 0, {{0, 1, {4}, {1}}, {1, 1, {4}, {1}}, {2, 1, {4}, {1}}}, {NULL}, 1, {4}};
  for (int k = 0; k < 3; k++) ar.coef[k] = ac.coef[k] = tap_coefs(&b, 2, wg_at, wg_atap[k], false);
  int64_t s7[6] = {N, TH, 2, TW, 2, M};
  const wg_lin ax[5] = {{0, 0, {0}, {0}}, {0, 1, {0}, {1}}, {0, 1, {1}, {1}}, {0, 1, {3}, {1}}, {0, 1, {5}, {1}}};
  kiln_value *y = stage(&b, m, &ar, &ac, filled(&b, g->fill, f32_tensor(ctx, 6, s7), nv), 6, ax, 5);
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
