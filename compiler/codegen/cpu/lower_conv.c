/* The convolution path of lower-to-loops: an op that reads as an implicit
 * GEMM (cg_igemm_match: named NHWC/NCHW convolutions, the ONNX importer's
 * grouped generics, matmul-like generics) becomes
 *   for each column segment (output channels: whole pairs of vectors,
 *   then single vectors of VW, VW/2, .. 4 lanes, then 1-lane vectors):
 *     for outer loops that W uses (groups; where W is read in place,
 *     inside the batch and output-row loops instead, groups_inside):
 *       for j0 over the segment step NR*VW (vector lanes):
 *         for kb over the first reduction loop in blocks of CB:  [packing]
 *           P[k, 0..NR*VW) = W[k, j0 ..]   (weights packed, k = flat
 *                                             reduction index in the block)
 *           for the other outer loops (batch, output rows):
 *             for i0 in 0..M step MR (output pixels of one row):
 *               the shared microkernel (microkernel.c): acc[r][q] +=
 *                 broadcast(X[window of pixel i0+r at k]) * P[k, q*VW]
 * The rows of a register tile are output pixels along one output row,
 * or along all of the workgroup's rows when they are one run in X, the
 * output and the epilogue's operands (a 1x1 stride-1 convolution: a GEMM
 * over all pixels; merge_rows), or along several whole output rows when
 * those are short (7x7 maps: span_loop), in tiles of equal size of up to
 * 16 rows (8 when the output is staged).
 * No im2col buffer: X is read in place through its indexing map at the
 * pixel and reduction indices, so strides, dilations and padding views
 * cost nothing. W is packed (an alloca at the kernel's entry of at most
 * CV_PANEL_BYTES, the first reduction loop blocked to fit) unless it is
 * already contiguous along the output channels (HWCF, what
 * convert-convs-to-nhwc stores), which it is not in ONNX's [M, C, kh, kw]:
 * there each packed panel is reused by every pixel of the workgroup's
 * tile. An output not contiguous along the channels (NCHW) is staged
 * through a small buffer (stage()), once per reduction block.
 *
 * W already blocked the way the panel is (convert-convs-to-nhwc's
 * blocked filters) is read in place, in the same reduction blocks; where
 * it takes 2 MiB or more (it then streams from L3 or memory on every
 * call), each filter vector load also prefetches the same row of the
 * panel read next (memref.prefetch, prefetch_distance).
 *
 * When the output is contiguous along the channels, the linalg.fill of
 * the output just before the op and an elementwise linalg.generic just
 * after it that reads the op's output in place (bias, activation,
 * residual add: what form-dispatch-regions fuses behind a convolution)
 * join the microkernel: the accumulators start at the fill value and the
 * generic's body runs on them before the store, so the output is written
 * once (fuse_epilogue.c); with several reduction blocks only the first
 * starts from the fill value and only the last applies the generic.
 * The generic's inputs read per pixel (a residual) are prefetched as
 * each register tile starts (prefetch_epilogue).
 *
 * A 1x1 convolution over all the workgroup's pixels whose whole filter
 * fits L2 beside the streams turns the nest inside out (pixels_outer):
 * for each register tile of pixels, every column block, so the tile's
 * input stays in L1 and its output and residual are whole pixels.
 *
 * Grouped convolutions of 2, 4 or 8 channels a group in and out take
 * vectors across groups instead (lane_groups): each vector holds VW/L
 * groups' L channels, an input vector per pixel and tap multiplies L
 * weight vectors into L accumulators whose lanes pair input channel i
 * with output channel (i + s) % L, summed after the reduction by in-lane
 * rotations (vector.shuffle; microkernel.c rotate), and the tile's
 * weights are packed once per workgroup in that lane order.
 *
 * Grouped convolutions read a few channels of each input pixel, one
 * line a pixel apart, which the hardware prefetchers do not follow and
 * the L1 sets may not hold: each register tile first prefetches the
 * lines it will read at the next output row (prefetch_next_row), and
 * tiles have at most as many rows as the L1 sets their lines fall in
 * hold (l1_rows: pixels a multiple of 4 KiB apart all fall in one set).
 *
 * Not for GPU variants (their threads share the workgroup's tile, and a
 * panel would be per-thread local memory): the generic path serves them. */
#include "cpu_internal.h"

#include <string.h>

/* Upper bound of the packed weight panel: well inside L2, far below a
 * worker thread's stack. */
#define CV_PANEL_BYTES (256 * 1024)
/* Register rows of a tile: 16 fill all accumulators when a column block
 * is one vector (16 output channels per group, blocked filters of 16);
 * an NCHW output's staging buffer has 8. */
#define CV_MAX_MR 16
#define CV_STAGE_ROWS 8
/* Weights from this size on are prefetched a panel ahead (more than a
 * core's L2 share on current x86-64 and aarch64 servers); locality 1: into
 * L2 and beyond, not L1, which the current panel's rows and the
 * input pixels use (measured on Zen 5: 1 beat 3, 2 and 0). */
#define CV_PREFETCH_BYTES (2 * 1024 * 1024)
#define CV_PREFETCH_LOCALITY 1
/* ... and from this size on where each workgroup reads its own part of
 * them, so a call reads every weight once (w_read_once). */
#define CV_PREFETCH_ONCE_BYTES (64 * 1024)
/* Grouped convolutions: at most this many lines prefetched before a
 * register tile (prefetch_next_row; 2 input rows of 29 pixels at stride
 * 2 take 58), into L2 and beyond as above; and register rows per L1 set
 * their input lines fall in (l1_rows): the ways of a set, 8 on Zen 4,
 * 12 on current Intel cores and Zen 5, each way 4 KiB (64 sets of 64
 * bytes) on all three. */
#define CV_NEXT_ROW_LINES 96
#define CV_NEXT_ROW_LOCALITY 1
#define CV_L1_ROWS_PER_SET 8
/* The epilogue's per-pixel inputs (prefetch_epilogue) are read at the
 * end of the tile that prefetched them: into L1 (locality 3; 1, into
 * L2, ran 0.1-0.2 ms slower on a 56x56 residual 1x1 of ~10 ms). */
#define CV_EPILOGUE_LOCALITY 3
/* Register rows of the lane path (lane_segment), L accumulators each:
 * at most 6 rows (groups of 2 at 4x56x56x128, one thread: 6 rows 0.54
 * ms, 8 0.57, 12 0.62, 14 0.87, spilling) and at most 16 accumulators
 * (ResNeXt-50 at batch 4, one worker under SCHED_FIFO, Zen 5: its 3x3s
 * in groups of 4 at 56x56 0.65-0.74 ms in 6 rows, 0.51-0.57 in 4, 0.58-
 * 0.66 in 3; in groups of 8 at 28x28 0.55-0.58 ms in 2 rows, 0.66-0.69
 * in 3, 0.74-0.81 in 4, 0.72 in 1; AVX2's groups of 2 keep their 6 rows
 * of 2, within 2% of 4 rows). */
#define CV_LANE_ROWS 6
#define CV_LANE_ACC 16
/* A 1x1 convolution whose whole filter takes at most this much runs its
 * pixel tiles outside its column blocks (pixels_outer): the filter is
 * then read from L2 for every register tile, so it must stay there
 * beside the streams of the output and the epilogue's inputs (half of
 * Zen 4's and Zen 5's 1 MiB; Intel's is 2 MiB). */
#define CV_PIXELS_OUTER_W_BYTES (512 * 1024)

typedef struct cv {
  cg_igemm g;
  kiln_op *op;
  kiln_value *X, *W, *O, *P;
  kiln_value *T;                    /* NCHW outputs: the tile's staging rows */
  int mr, nr;                       /* of the tile being emitted */
  int64_t vw;                       /* of the tile being emitted */
  int acc;                          /* accumulator registers of the kernel's width */
  const kiln_type *vt, *et;
  int nk, kl[KILN_MAX_LOOPS];       /* reduction loops, outermost first */
  int64_t kstride[KILN_MAX_LOOPS];  /* panel row = sum (k_p - klo_p) * kstride[p] */
  kiln_value *klo[KILN_MAX_LOOPS];
  kiln_value *ivs[KILN_MAX_LOOPS];  /* current value of every loop */
  kiln_value *rowv[CV_MAX_MR], *colv[CPU_UK_MAX_NR];
  int orow;                         /* loop merged into the rows (merge_rows), or -1 */
  int ohl;                          /* output-row loop a tile may span (span_loop), or -1 */
  bool span;                        /* the tile being emitted spans output rows: ohv */
  kiln_value *ohv[CV_MAX_MR];       /* ... the output row of each register row */
  int blk;                          /* filter-block loop paired into the columns (block_loop), or -1 */
  kiln_value *blkv[CPU_UK_MAX_NR];  /* its value for each column vector */
  kiln_value *flat;                 /* panel row of this k iteration */
  kiln_value *init;                 /* the fused fill's value, or NULL */
  kiln_value *kb;                   /* the reduction block's start (several blocks), or NULL */
  int64_t cb, K0;                   /* block and whole extent of the first reduction loop */
  cpu_epilogue epi;                  /* the fused elementwise generic (op NULL: none) */
  int64_t pf;                       /* W elements from a B load to the line prefetched, or 0 */
  /* Lane groups (lane_groups): L channels a group in and out, or 0 */
  int lanes, gl, kc;                /* ... the group loop, the in-group input channel loop */
  int64_t per;                      /* ... panel floats of one group (taps x L x L) */
  int64_t tstride[KILN_MAX_LOOPS];  /* ... flat tap = sum k_p * tstride[p], p < nk - 1 */
  kiln_value *gb;                   /* ... the first group of the vector being emitted */
  int nxl;                          /* output-row loop whose next row's input is prefetched (next_row_loop), or -1 */
  int l1rows;                       /* most register rows whose input lines share L1 sets harmlessly (l1_rows) */
} cv;

static void at(cv *c, kiln_builder *b, uint32_t operand, kiln_value **ix) {
  const kiln_affine_map *m = c->g.maps[operand];
  for (uint32_t r = 0; r < m->num_results; r++) ix[r] = cg_affine_value(b, m->results[r], c->ivs);
}

/* Column vector q's loop values: its channel, and its filter block
 * where blocks are paired (block_loop). */
static void set_col(cv *c, int q) {
  c->ivs[c->g.col] = c->colv[q];
  if (c->blk >= 0) c->ivs[c->blk] = c->blkv[q];
}

/* Register row r's loop values: its pixel, and its output row where
 * the tile spans several (span_loop). */
static void set_row(cv *c, int r) {
  c->ivs[c->g.row] = c->rowv[r];
  if (c->span) c->ivs[c->ohl] = c->ohv[r];
}

static void set_row_col(cv *c, int r, int q) {
  set_row(c, r);
  set_col(c, q);
}

static void cv_k_begin(kiln_builder *b, void *u, kiln_value *const *k) {
  cv *c = u;
  for (int p = 0; p < c->nk; p++) c->ivs[c->kl[p]] = k[p];
  if (!c->P) return;
  kiln_value *flat = cg_index(b, 0);
  for (int p = 0; p < c->nk; p++) {
    kiln_value *d = k[p];
    if (c->klo[p]) d = cg_bin(b, KILN_OP_ARITH_SUBI, d, c->klo[p]);
    flat = cg_add(b, flat, cg_muli(b, d, c->kstride[p]));
  }
  c->flat = flat;
}

static kiln_value *cv_load_a(kiln_builder *b, void *u, int r, kiln_value *const *k) {
  cv *c = u;
  (void)k;
  kiln_value *ix[KILN_MAX_LOOPS];
  set_row(c, r);
  at(c, b, c->g.x, ix);
  return cg_load(b, c->X, c->g.maps[c->g.x]->num_results, ix);
}

/* A read prefetch of m at ix (n indices) with the given locality hint. */
static void prefetch_read(kiln_builder *b, kiln_value *m, uint32_t n, kiln_value *const *ix, int64_t locality) {
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  ops[0] = m;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = ix[i];
  kiln_named_attr na[3] = {{"isWrite", kiln_attr_bool(b->ctx, false)},
                           {"localityHint", kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 32), locality)},
                           {"isDataCache", kiln_attr_bool(b->ctx, true)}};
  kiln_build(b, KILN_OP_MEMREF_PREFETCH, 1 + n, ops, 0, NULL, kiln_attr_dict(b->ctx, 3, na));
}

/* A prefetch of W's element c->pf past ix (W's last dim has unit
 * stride, so that is pf elements further in memory): the same row of
 * the panel read next. */
static void prefetch_ahead(cv *c, kiln_builder *b, kiln_value *const *ix, uint32_t n) {
  kiln_value *ahead[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < n; i++) ahead[i] = ix[i];
  ahead[n - 1] = cg_add(b, ix[n - 1], cg_index(b, c->pf));
  prefetch_read(b, c->W, n, ahead, CV_PREFETCH_LOCALITY);
}

static kiln_value *cv_load_b(kiln_builder *b, void *u, int q, kiln_value *const *k) {
  cv *c = u;
  (void)k;
  kiln_value *ix[KILN_MAX_LOOPS];
  if (c->P) {
    ix[0] = c->flat, ix[1] = cg_index(b, q * c->vw);
    return cg_vload(b, c->vt, c->P, 2, ix);
  }
  set_col(c, q);
  at(c, b, c->g.w, ix);
  uint32_t n = c->g.maps[c->g.w]->num_results;
  if (c->pf) prefetch_ahead(c, b, ix, n);
  return cg_vload(b, c->vt, c->W, n, ix);
}

/* An output not contiguous along the channels (NCHW: channels a plane
 * apart) is staged through T [CV_STAGE_ROWS][NR*VW] at the kernel's entry: scalar
 * loops copy the tile in before the reduction and out after it, and the
 * accumulators load and store whole rows of T. Loops rather than
 * lane-by-lane inserts keep the generated code small (LLVM's scheduler
 * is quadratic in block size). */
static void stage(cv *c, kiln_builder *b, bool in) {
  kiln_builder br, bl;
  kiln_op *lr = cg_for(b, cg_index(b, 0), cg_index(b, c->mr), cg_index(b, 1), 0, NULL, &br);
  kiln_op *ll = cg_for(&br, cg_index(&br, 0), cg_index(&br, c->nr * c->vw), cg_index(&br, 1), 0, NULL, &bl);
  kiln_value *r = cg_for_iv(lr), *l = cg_for_iv(ll), *ix[KILN_MAX_LOOPS];
  c->ivs[c->g.row] = cg_add(&bl, c->rowv[0], r);
  c->ivs[c->g.col] = cg_add(&bl, c->colv[0], l);
  at(c, &bl, c->g.out, ix);
  uint32_t n = c->g.maps[c->g.out]->num_results;
  kiln_value *tix[2] = {r, l};
  if (in) cg_store(&bl, cg_load(&bl, c->O, n, ix), c->T, 2, tix);
  else cg_store(&bl, cg_load(&bl, c->T, 2, tix), c->O, n, ix);
}

/* The fused epilogue's inputs read per output pixel (a residual: a
 * tensor of the output's size, last touched a block earlier, beyond L2
 * at 56x56) are prefetched, for the tile's rows and column vectors, when
 * its reduction starts. Its store reads one line a register row and
 * vector, a whole pixel (C floats) apart, which the hardware prefetchers
 * do not anticipate, so each load missed to L3 or memory with the fmas
 * done; the MR x K fmas of the reduction (thousands of cycles) now hide
 * that. ResNeXt-50 at batch 4 (kiln-bench --profile-dispatches, one
 * worker under SCHED_FIFO, Zen 4, load ~12): the 56x56 residual 1x1
 * convolutions 10.6-10.9 -> 9.6-10.0 ms, the 28x28 ones 8.7 -> 8.4-8.5,
 * the 14x14 and 7x7 ones unchanged. Inputs read the same for every
 * pixel (a bias) stay cached and are not prefetched. */
static void prefetch_epilogue(cv *c, kiln_builder *b) {
  kiln_op *e = c->epi.op;
  if (!e || c->T) return;
  uint32_t nin = kiln_linalg_num_inputs(e);
  int d = c->g.out_row_dim;
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *x = kiln_op_operand(e, i);
    if (i == c->epi.in || c->epi.zeroed[i] || !c->epi.along[i] || x->type->kind != KILN_TYPE_MEMREF) continue;
    const kiln_affine_map *m = c->epi.maps[i];
    bool per_pixel = false;
    for (uint32_t r = 0; r < m->num_results && !per_pixel; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      per_pixel = !cg_linear_expr(m->results[r], (int)m->num_dims, coef, &cst) || (d >= 0 && coef[d]);
    }
    if (!per_pixel) continue;
    for (int r = 0; r < c->mr; r++)
      for (int q = 0; q < c->nr; q++) {
        kiln_value *ix[KILN_MAX_LOOPS], *eix[KILN_MAX_LOOPS];
        set_row_col(c, r, q);
        at(c, b, c->g.out, ix);
        for (uint32_t k = 0; k < m->num_results; k++) eix[k] = cg_affine_value(b, m->results[k], ix);
        prefetch_read(b, x, m->num_results, eix, CV_EPILOGUE_LOCALITY);
      }
  }
}

static void cv_c_begin(kiln_builder *b, void *u) {
  cv *c = u;
  if (c->T) stage(c, b, true);
  prefetch_epilogue(c, b);
}

static void cv_c_end(kiln_builder *b, void *u) {
  cv *c = u;
  if (c->T) stage(c, b, false);
}

static kiln_value *cv_load_c(kiln_builder *b, void *u, int r, int q) {
  cv *c = u;
  kiln_value *ix[KILN_MAX_LOOPS];
  if (c->init) {
    kiln_value *v = cg_broadcast(b, c->init, c->vt);
    if (!c->kb) return v;
    /* Later reduction blocks continue from the partial sums. */
    kiln_value *first = cg_cmpi(b, CG_EQ, c->kb, cg_index(b, 0));
    set_row_col(c, r, q);
    at(c, b, c->g.out, ix);
    kiln_value *ops[3] = {first, v, cg_vload(b, c->vt, c->O, c->g.maps[c->g.out]->num_results, ix)};
    return kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, ops, 1, &c->vt, NULL), 0);
  }
  if (c->T) {
    ix[0] = cg_index(b, r), ix[1] = cg_index(b, q * c->vw);
    return cg_vload(b, c->vt, c->T, 2, ix);
  }
  set_row_col(c, r, q);
  at(c, b, c->g.out, ix);
  return cg_vload(b, c->vt, c->O, c->g.maps[c->g.out]->num_results, ix);
}

static void cv_store_c(kiln_builder *b, void *u, int r, int q, kiln_value *v) {
  cv *c = u;
  kiln_value *ix[KILN_MAX_LOOPS];
  if (c->T) {
    ix[0] = cg_index(b, r), ix[1] = cg_index(b, q * c->vw);
    cg_vstore(b, v, c->T, 2, ix);
    return;
  }
  set_row_col(c, r, q);
  at(c, b, c->g.out, ix);
  if (c->epi.op) {
    kiln_value *e = cpu_apply_epilogue(b, &c->epi, ix, v, c->vt);
    if (c->kb) { /* only after the last reduction block */
      kiln_value *last = cg_cmpi(b, CG_EQ, cg_add(b, c->kb, cg_index(b, c->cb)), cg_index(b, c->K0));
      kiln_value *ops[3] = {last, e, v};
      e = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, ops, 1, &c->vt, NULL), 0);
    }
    v = e;
  }
  cg_vstore(b, v, c->O, c->g.maps[c->g.out]->num_results, ix);
}

/* The microkernel over register rows c->rowv (and c->ohv) [0, mr). */
static void emit_tile(cv *c, kiln_builder *b, int mr, int nr, kiln_value *kb, int64_t cb) {
  c->mr = mr, c->nr = nr;
  cpu_ukernel uk = {.mr = mr, .nr = nr, .nk = c->nk, .vt = c->vt, .k_begin = cv_k_begin,
                   .c_begin = cv_c_begin, .c_end = cv_c_end, .load_a = cv_load_a,
                   .load_b = cv_load_b, .load_c = cv_load_c, .store_c = cv_store_c, .user = c};
  for (int p = 0; p < c->nk; p++) {
    int l = c->kl[p];
    uk.klo[p] = p == 0 && kb ? kb : cg_index(b, 0);
    uk.khi[p] = p == 0 && kb ? cg_add(b, kb, cg_index(b, cb)) : cg_index(b, c->g.bounds[l]);
  }
  cpu_emit_ukernel(b, &uk);
}

/* How far operand t (through map m) moves with one step of loop l; false
 * where that is not one static number. */
static bool loop_stride(const kiln_affine_map *m, const kiln_type *t, int loops, int l, int64_t *out) {
  int64_t st[KILN_MAX_LOOPS], off, s = 0;
  if (t->kind != KILN_TYPE_MEMREF || !kiln_memref_strides(t, st, &off)) return false;
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], loops, coef, &cst)) return false;
    if (coef[l] && st[r] == KILN_DYNAMIC) return false;
    s += coef[l] * st[r];
  }
  *out = s;
  return true;
}

/* Input lines a register tile reads at the next output row that it does
 * not read at this one, prefetched before its microkernel (next_row_loop):
 * every combination of register row and the reduction loops that step
 * at least a line (taps; a group's channels share lines), as line
 * numbers from X's start; the next row's not among the current row's,
 * each once, at most CV_NEXT_ROW_LINES. Where groups are inside the row
 * loops the tile of the same groups at the next row comes a row of all
 * groups later, its lines then in L2; a row of a group's lines a pixel
 * apart (1 or 2 KiB at 256 or 512 channels) defeats the hardware
 * prefetchers, which left each first read of a line waiting on L3:
 * 4x56x56x256 groups of 8 at stride 2, one thread, 2.6-3.2 ms, 1.8 ms
 * prefetched. The last row's prefetches go past the tile or X, which a
 * prefetch may (it never faults). */
static void prefetch_next_row(cv *c, kiln_builder *b, int mr) {
  const cg_igemm *g = &c->g;
  int64_t s_row, s_next, s_k[KILN_MAX_LOOPS], ext[KILN_MAX_LOOPS];
  int64_t bytes = (kiln_type_bitwidth(c->X->type->elem) + 7) / 8;
  if (c->nxl < 0 || !loop_stride(g->maps[g->x], c->X->type, g->loops, g->row, &s_row) ||
      !loop_stride(g->maps[g->x], c->X->type, g->loops, c->nxl, &s_next))
    return;
  int64_t combos = mr;
  for (int p = 0; p < c->nk; p++) {
    if (!loop_stride(g->maps[g->x], c->X->type, g->loops, c->kl[p], &s_k[p])) return;
    ext[p] = (s_k[p] < 0 ? -s_k[p] : s_k[p]) * bytes < 64 ? 1 : g->bounds[c->kl[p]];
    combos *= ext[p];
  }
  if (combos > 4 * CV_NEXT_ROW_LINES) return;
  int64_t cur[4 * CV_NEXT_ROW_LINES], ncur = 0, done[CV_NEXT_ROW_LINES], ndone = 0;
  kiln_value *save[KILN_MAX_LOOPS];
  memcpy(save, c->ivs, sizeof save);
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t i = 0; i < combos; i++) {
      int64_t rest = i, off = (int64_t)(i % mr) * s_row, kv[KILN_MAX_LOOPS];
      rest /= mr;
      for (int p = 0; p < c->nk; p++) kv[p] = rest % ext[p], rest /= ext[p], off += kv[p] * s_k[p];
      if (pass == 0) {
        cur[ncur++] = off * bytes / 64;
        continue;
      }
      int64_t line = (off + s_next) * bytes / 64;
      bool seen = false;
      for (int64_t j = 0; j < ncur && !seen; j++) seen = cur[j] == line;
      for (int64_t j = 0; j < ndone && !seen; j++) seen = done[j] == line;
      if (seen) continue;
      if (ndone == CV_NEXT_ROW_LINES) break;
      done[ndone++] = line;
      c->ivs[g->row] = c->rowv[i % mr];
      c->ivs[c->nxl] = cg_add(b, save[c->nxl], cg_index(b, 1));
      for (int p = 0; p < c->nk; p++) c->ivs[c->kl[p]] = cg_index(b, kv[p]);
      kiln_value *ix[KILN_MAX_LOOPS];
      at(c, b, g->x, ix);
      prefetch_read(b, c->X, g->maps[g->x]->num_results, ix, CV_NEXT_ROW_LOCALITY);
    }
  }
  memcpy(c->ivs, save, sizeof save);
}

/* One register tile: rows i0 .. i0+mr of the row loop. */
static void tile(cv *c, kiln_builder *b, kiln_value *i0, int mr, int nr, kiln_value *kb, int64_t cb) {
  for (int r = 0; r < mr; r++) c->rowv[r] = cg_add(b, i0, cg_index(b, r));
  /* Not per reduction block: the next row's lines would wait a block. */
  if (!kb) prefetch_next_row(c, b, mr);
  emit_tile(c, b, mr, nr, kb, cb);
}

/* One register tile over whole output rows: rows oh0 .. oh0+n of the
 * span loop, all ow pixels of each (register row r: pixel r % ow of
 * output row oh0 + r / ow; constant offsets from one X address, as
 * along one row). */
static void span_tile(cv *c, kiln_builder *b, kiln_value *oh0, int n, int64_t ow, int nr,
                      kiln_value *kb, int64_t cb) {
  for (int r = 0; r < n * ow; r++) {
    c->rowv[r] = cg_index(b, r % ow);
    c->ohv[r] = cg_add(b, oh0, cg_index(b, r / ow));
  }
  c->span = true;
  emit_tile(c, b, (int)(n * ow), nr, kb, cb);
  c->span = false;
}

/* The reduction loops of a panel copy at *cur (the first over [lo0, hi0),
 * the others whole; *cur moves into the innermost) and the panel row the
 * reduction index is: its offset from the block start kb, flattened. */
static kiln_value *panel_row(cv *c, kiln_builder *cur, kiln_value *lo0, kiln_value *hi0, kiln_value *kb) {
  kiln_builder body;
  for (int p = 0; p < c->nk; p++) {
    kiln_value *lo = p == 0 ? lo0 : cg_index(cur, 0);
    kiln_value *hi = p == 0 ? hi0 : cg_index(cur, c->g.bounds[c->kl[p]]);
    kiln_op *loop = cg_for(cur, lo, hi, cg_index(cur, 1), 0, NULL, &body);
    c->ivs[c->kl[p]] = cg_for_iv(loop);
    *cur = body;
  }
  kiln_value *flat = cg_index(cur, 0);
  for (int p = 0; p < c->nk; p++) {
    kiln_value *d = c->ivs[c->kl[p]];
    if (p == 0) d = cg_bin(cur, KILN_OP_ARITH_SUBI, d, kb);
    flat = cg_add(cur, flat, cg_muli(cur, d, c->kstride[p]));
  }
  return flat;
}

/* P[flat(k), jj] = W[.. j0 + jj ..] for the reduction block starting at
 * kb (cb iterations of the first reduction loop): for each input channel
 * c0, for each output channel jj, the window of filter jj at c0 (the
 * other reduction loops) goes to column jj of its panel rows. The window
 * copy sits in a loop of one iteration (c0 .. c0+1) between jj and the
 * window: without it LLVM unrolls the window and vectorizes jj into
 * gathers across filters 18 KiB apart. Measured on ResNet's 512-channel
 * 3x3 layer (one thread): 2.5 ms for the convolution this way, 10-20 ms
 * with jj innermost (scalar or gathered), with jj vectorized, or with jj
 * outermost over chunks of channels. */
static void pack(cv *c, kiln_builder *b, kiln_value *j0, kiln_value *kb, int64_t cb, int64_t width) {
  const int64_t cc = 1;
  kiln_builder cur = *b, body;
  kiln_op *l0 = cg_for(&cur, kb, cg_add(&cur, kb, cg_index(&cur, cb)), cg_index(&cur, cc), 0, NULL, &body);
  kiln_value *c0 = cg_for_iv(l0);
  cur = body;
  kiln_op *lj = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, width), cg_index(&cur, 1), 0, NULL, &body);
  kiln_value *jj = cg_for_iv(lj);
  cur = body;
  c->ivs[c->g.col] = cg_add(&cur, j0, jj);
  kiln_value *flat = panel_row(c, &cur, c0, cg_add(&cur, c0, cg_index(&cur, cc)), kb);
  kiln_value *ix[KILN_MAX_LOOPS];
  at(c, &cur, c->g.w, ix);
  kiln_value *s = cg_load(&cur, c->W, c->g.maps[c->g.w]->num_results, ix);
  kiln_value *pix[2] = {flat, jj};
  cg_store(&cur, s, c->P, 2, pix);
}

/* The same when W is contiguous along the output channels (HWCF): for
 * each reduction index of the block, a row of nr vectors is copied
 * (vector loads and stores; the rows of W are an output-channel row
 * apart, the panel's are adjacent). */
static void pack_rows(cv *c, kiln_builder *b, kiln_value *j0, kiln_value *kb, int64_t cb, int nr) {
  kiln_builder cur = *b;
  kiln_value *flat = panel_row(c, &cur, kb, cg_add(&cur, kb, cg_index(&cur, cb)), kb);
  for (int q = 0; q < nr; q++) {
    kiln_value *ix[KILN_MAX_LOOPS];
    c->ivs[c->g.col] = cg_add(&cur, j0, cg_index(&cur, q * c->vw));
    at(c, &cur, c->g.w, ix);
    kiln_value *v = cg_vload(&cur, c->vt, c->W, c->g.maps[c->g.w]->num_results, ix);
    kiln_value *pix[2] = {flat, cg_index(&cur, q * c->vw)};
    cg_vstore(&cur, v, c->P, 2, pix);
  }
}

/* Some loops of the op, outermost first. */
typedef struct nest {
  int n, l[KILN_MAX_LOOPS];
} nest;

/* An scf.for over each loop of ns, nested; returns a builder inside the
 * innermost. */
static kiln_builder loops(cv *c, kiln_builder *b, const nest *ns) {
  kiln_builder cur = *b, body;
  for (int i = 0; i < ns->n; i++) {
    kiln_op *loop = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, c->g.bounds[ns->l[i]]),
                           cg_index(&cur, 1), 0, NULL, &body);
    c->ivs[ns->l[i]] = cg_for_iv(loop);
    cur = body;
  }
  return cur;
}

/* A rows x cols scratch buffer at the kernel's entry (an alloca in a
 * loop would grow the stack per iteration). */
static kiln_value *entry_alloca(kiln_op *op, int64_t rows, int64_t cols, const kiln_type *et) {
  kiln_context *ctx = kiln_op_context(op);
  kiln_op *func = kiln_op_ancestor(op, KILN_OP_FUNC_FUNC);
  kiln_builder fb = func ? kiln_builder_before(func->regions[0].first->first) : kiln_builder_before(op);
  fb.loc = op->loc;
  int64_t shape[2] = {rows, cols};
  const kiln_type *t = kiln_type_memref(ctx, 2, shape, et, NULL, NULL);
  kiln_named_attr pa[2] = {
      {"alignment", kiln_attr_int(ctx, kiln_type_int(ctx, 64), 64)},
      {"operandSegmentSizes",
       kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 2, (int64_t[]){0, 0}, NULL)}};
  return kiln_op_result(kiln_build(&fb, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &t, kiln_attr_dict(ctx, 2, pa)), 0);
}

/* A kernel launched as a block of threads (kiln.launch block_size: the
 * GPU path) cannot use the packed panels: an alloca there would be private
 * to each thread. */
static bool runs_as_thread_block(kiln_op *op) {
  kiln_op *f = kiln_op_ancestor(op, KILN_OP_FUNC_FUNC);
  int64_t bs[3];
  return f && cg_launch_array(f, "block_size", bs, 3) > 0;
}

static bool uses_loop(const cg_igemm *g, uint32_t i, int l) {
  for (uint32_t r = 0; r < g->maps[i]->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    cg_linear_expr(g->maps[i]->results[r], g->loops, coef, &cst);
    if (coef[l]) return true;
  }
  return false;
}

/* Output channels [j_lo, j_hi) with vectors of vw lanes, nr per column
 * block: the loop nest of the header. */
/* Rows of the register tile for nr vectors: equal tiles (49 = 13 + 12 x
 * 3, not 16 x 3 + 1): a tile of few rows costs nearly as much as a full
 * one (its fmas wait on each other's latency). */
static int tile_rows(const cv *c, int64_t M, int nr) {
  int mr = c->acc / nr;
  if (mr > (c->T ? CV_STAGE_ROWS : CV_MAX_MR)) mr = c->T ? CV_STAGE_ROWS : CV_MAX_MR;
  if (mr > c->l1rows) mr = c->l1rows;
  if (mr > M) mr = (int)M;
  int64_t ntiles = (M + mr - 1) / mr;
  return (int)((M + ntiles - 1) / ntiles);
}

/* The nest inside the W loops: output channels [j_lo, j_hi) step `step`,
 * the reduction blocks and their packing, the other outer loops, the
 * register tiles of nr vectors (channels j0 + q * vw; all at j0 where
 * the vectors are paired filter blocks, c->blkv). */
static void column_nest(cv *c, kiln_builder cur, int64_t j_lo, int64_t j_hi, int64_t step, int nr,
                        bool paired, int64_t cb, int64_t K0, const nest *rest) {
  cg_igemm *g = &c->g;
  int64_t M = g->bounds[g->row], vw = c->vw;
  if (c->orow >= 0) M *= g->bounds[c->orow];
  int mr = tile_rows(c, M, nr);
  kiln_builder body;
  kiln_op *lj = cg_for(&cur, cg_index(&cur, j_lo), cg_index(&cur, j_hi), cg_index(&cur, step), 0, NULL, &body);
  kiln_value *j0 = cg_for_iv(lj);
  cur = body;
  kiln_value *kb = NULL;
  c->kb = NULL;
  if (cb) {
    kiln_op *lk = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, K0), cg_index(&cur, cb), 0, NULL, &body);
    kb = cg_for_iv(lk);
    c->klo[0] = kb;
    if (cb < K0) c->kb = kb;
    cur = body;
    if (c->P && c->g.w_contig) pack_rows(c, &cur, j0, kb, cb, nr);
    else if (c->P) pack(c, &cur, j0, kb, cb, nr * vw);
  }
  /* Output rows shorter than half the register rows a tile of nr
   * vectors may have (7x7 maps: 7 of 16) take tiles of several whole
   * rows (span_loop): equal spans, the last one shorter. */
  int span = 1;
  if (c->ohl >= 0) {
    int cap = c->acc / nr < CV_MAX_MR ? c->acc / nr : CV_MAX_MR;
    int64_t oh = g->bounds[c->ohl];
    span = (int)(cap / M < oh ? cap / M : oh);
    if (span >= 2) span = (int)((oh + (oh + span - 1) / span - 1) / ((oh + span - 1) / span));
  }
  nest inner = *rest;
  if (span >= 2) {
    inner.n = 0;
    for (int i = 0; i < rest->n; i++)
      if (rest->l[i] != c->ohl) inner.l[inner.n++] = rest->l[i];
  }
  cur = loops(c, &cur, &inner);
  if (c->orow >= 0) c->ivs[c->orow] = cg_index(&cur, 0);
  for (int q = 0; q < nr; q++) c->colv[q] = paired ? j0 : cg_add(&cur, j0, cg_index(&cur, q * vw));
  if (span >= 2) {
    int64_t oh = g->bounds[c->ohl], full = oh / span * span;
    kiln_op *lh = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, full), cg_index(&cur, span), 0, NULL, &body);
    span_tile(c, &body, cg_for_iv(lh), span, M, nr, kb, cb ? cb : K0);
    if (full < oh) span_tile(c, &cur, cg_index(&cur, full), (int)(oh - full), M, nr, kb, cb ? cb : K0);
    return;
  }
  int64_t main = M / mr * mr;
  if (main) {
    kiln_op *li = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, main), cg_index(&cur, mr), 0, NULL, &body);
    tile(c, &body, cg_for_iv(li), mr, nr, kb, cb ? cb : K0);
  }
  if (main < M) tile(c, &cur, cg_index(&cur, main), (int)(M - main), nr, kb, cb ? cb : K0);
}

/* Bytes of the whole filter (not the workgroup's subview of it), or -1
 * where a dim is dynamic. */
static int64_t filter_bytes(const cv *c) {
  kiln_value *w = c->W;
  while (w->def && w->def->kind == KILN_OP_MEMREF_SUBVIEW) w = kiln_op_operand(w->def, 0);
  int64_t bytes = (kiln_type_bitwidth(w->type->elem) + 7) / 8;
  for (uint32_t r = 0; r < w->type->rank; r++) {
    if (w->type->shape[r] == KILN_DYNAMIC) return -1;
    bytes *= w->type->shape[r];
  }
  return bytes;
}

/* Do the group loops (outer loops W uses) go inside the other outer
 * loops? Where W is read in place in one reduction block, a group's
 * weights are a few KiB that stay cached whatever the order, while the
 * groups-outermost order reads the whole input tile once per group: a
 * group's channels are a fraction of each input pixel's cache lines, so
 * every pass brings in the lines of all the tile's groups, and a tile
 * past L2 (ResNeXt's 4 groups of 4 channels over 4x58x58 pixels: 861
 * KiB) comes from L3 for each group. Inside, the input rows of one
 * output row serve all the groups from L1. */
static bool groups_inside(const cv *c, const nest *wout, int64_t cb) {
  if (!wout->n || c->P || cb) return false;
  /* Groups select X's channels too; a dense convolution's filter-block
   * loop (blocked filters, which X does not use) keeps its place. */
  for (int i = 0; i < wout->n; i++)
    if (!uses_loop(&c->g, c->g.x, wout->l[i])) return false;
  /* All the tile's groups' weights, then re-read for every output row,
   * stay within the panel budget (inside L2). */
  const kiln_type *wt = c->W->type;
  int64_t bytes = (kiln_type_bitwidth(wt->elem) + 7) / 8;
  for (uint32_t r = 0; r < wt->rank; r++) {
    if (wt->shape[r] == KILN_DYNAMIC) return false;
    bytes *= wt->shape[r];
  }
  return bytes <= CV_PANEL_BYTES;
}

/* Do the register tiles go outside the column blocks (pixels_nest)?
 * For a 1x1 convolution over all the workgroup's pixels (merge_rows)
 * whose filter is read in place in one reduction block and fits L2
 * beside the streams (CV_PIXELS_OUTER_W_BYTES). Column blocks outermost
 * write the output (and read a residual) one or two lines a pixel,
 * a whole pixel apart, in as many passes over the tile's pixels as there
 * are blocks: a pattern the hardware prefetchers do not follow, and
 * the tile's input, output and residual (ResNeXt's 128 -> 256 at 14
 * rows of 56: 0.4 + 0.8 + 0.8 MB) do not fit L2 together, so the
 * input came back from L3 for every block. Pixels outermost, each
 * register tile's input pixels stay in L1 for all the column blocks,
 * and its output and residual are one run of whole pixels. */
static bool pixels_outer(const cv *c, int64_t cb) {
  if (c->orow < 0 || c->P || cb || c->T) return false;
  int64_t bytes = filter_bytes(c);
  return bytes >= 0 && bytes <= CV_PIXELS_OUTER_W_BYTES;
}

/* The register tile of mr pixels from p0 for every column block: the W
 * loops, the column segment [j_lo, j_hi) in steps of nr vectors. */
static void pixels_block(cv *c, kiln_builder *b, kiln_value *p0, int mr, int64_t j_lo, int64_t j_hi, int nr,
                         const nest *wout) {
  kiln_builder cur = loops(c, b, wout), body;
  kiln_op *lj = cg_for(&cur, cg_index(&cur, j_lo), cg_index(&cur, j_hi), cg_index(&cur, nr * c->vw), 0, NULL, &body);
  kiln_value *j0 = cg_for_iv(lj);
  for (int q = 0; q < nr; q++) c->colv[q] = cg_add(&body, j0, cg_index(&body, q * c->vw));
  tile(c, &body, p0, mr, nr, NULL, c->K0);
}

/* The nest of pixels_outer: the other outer loops (batch), then for
 * each register tile of the merged pixels, every column block. */
static void pixels_nest(cv *c, kiln_builder *b, int64_t j_lo, int64_t j_hi, int nr, const nest *wout,
                        const nest *rest) {
  cg_igemm *g = &c->g;
  int64_t M = g->bounds[g->row] * g->bounds[c->orow];
  int mr = tile_rows(c, M, nr);
  c->kb = NULL;
  kiln_builder cur = loops(c, b, rest), body;
  c->ivs[c->orow] = cg_index(&cur, 0);
  int64_t main = M / mr * mr;
  if (main) {
    kiln_op *lp = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, main), cg_index(&cur, mr), 0, NULL, &body);
    pixels_block(c, &body, cg_for_iv(lp), mr, j_lo, j_hi, nr, wout);
  }
  if (main < M) pixels_block(c, &cur, cg_index(&cur, main), (int)(M - main), j_lo, j_hi, nr, wout);
}

static void emit_columns(cv *c, kiln_builder *b, int64_t j_lo, int64_t j_hi, int64_t vw, int nr,
                         int64_t cb, int64_t K0) {
  cg_igemm *g = &c->g;
  c->vw = vw;
  c->vt = kiln_type_vector(b->ctx, 1, &vw, c->et);
  /* Outer loops W uses (groups) outside the panel; the others inside. A
   * paired block loop is not among them: it steps by two below. */
  bool paired = c->blk >= 0 && nr == 1 && j_hi - j_lo == vw;
  nest wout = {0}, rest = {0};
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || l == g->row || l == g->col || l == c->orow || (paired && l == c->blk)) continue;
    if (uses_loop(g, g->w, l)) wout.l[wout.n++] = l;
    else rest.l[rest.n++] = l;
  }
  if (!paired && groups_inside(c, &wout, cb)) {
    /* The other outer loops (batch, output rows) outside the groups: a
     * row's input pixels serve every group of the tile while they are
     * in L1. The output-row loop a tile may span stays inside. */
    nest outer = {0}, inner = {0};
    for (int i = 0; i < rest.n; i++) {
      if (rest.l[i] == c->ohl) inner.l[inner.n++] = rest.l[i];
      else outer.l[outer.n++] = rest.l[i];
    }
    kiln_builder cur = loops(c, b, &outer);
    cur = loops(c, &cur, &wout);
    column_nest(c, cur, j_lo, j_hi, nr * vw, nr, false, cb, K0, &inner);
    return;
  }
  if (!paired && pixels_outer(c, cb)) {
    pixels_nest(c, b, j_lo, j_hi, nr, &wout, &rest);
    return;
  }
  kiln_builder cur = loops(c, b, &wout), body;
  if (!paired) {
    column_nest(c, cur, j_lo, j_hi, nr * vw, nr, false, cb, K0, &rest);
    return;
  }
  /* Filter blocks of one vector each (16 output channels on 16 lanes)
   * in pairs: register tiles of two vectors, one per block, share every
   * broadcast of X (an input pixel's channel feeds both blocks), where
   * one-vector tiles load a broadcast per fma. An odd last block alone. */
  int64_t nb = g->bounds[c->blk], pairs = nb / 2 * 2;
  if (pairs) {
    kiln_value *lo = cg_index(&cur, 0);
    kiln_value *hi = cg_index(&cur, pairs);
    kiln_value *two = cg_index(&cur, 2);
    kiln_op *lb = cg_for(&cur, lo, hi, two, 0, NULL, &body);
    kiln_value *b0 = cg_for_iv(lb);
    kiln_value *one = cg_index(&body, 1);
    c->blkv[0] = b0;
    c->blkv[1] = cg_add(&body, b0, one);
    column_nest(c, body, j_lo, j_hi, vw, 2, true, cb, K0, &rest);
  }
  if (pairs < nb) {
    c->blkv[0] = cg_index(&cur, nb - 1);
    column_nest(c, cur, j_lo, j_hi, vw, 1, true, cb, K0, &rest);
  }
}

/* Lane groups: a grouped convolution of L = 2, 4 or 8 input and output
 * channels a group (ResNeXt's 32 groups of 4, then of 8; RegNetY-400MF's
 * groups of 8) on vectors of VW/L groups instead of one group's L lanes
 * (xmm or ymm: half of Zen 5's FMA rate or less; groups of 8 at 4x28x28
 * x256, one thread: 1.10-1.14 ms on ymm, 0.55-0.58 on zmm across
 * groups). Lanes j*L .. j*L+L-1 of a vector are channels of group gb+j;
 * the input vector of a pixel and tap is the same groups' L input
 * channels each (NHWC: one contiguous load), multiplied as it is by the
 * tap's L weight vectors of rotations s into L accumulators: lane ci of
 * accumulator s holds input channel ci's part of output channel
 * (ci + s) % L,
 *   P[gb*per + ((t*L + s)*gpv + j)*L + ci] = W[gb + j, t, ci, (ci + s) % L]
 * packed once at the kernel's entry (the tile's groups' weights, at most
 * CV_PANEL_BYTES); after the reduction each accumulator is rotated by s
 * lanes within each block of L and the L summed (microkernel.c rotate).
 * An in-lane broadcast of each input channel per reduction step instead
 * took an FP pipe the fmas need (Zen 4: 75 cycles for 56 fmas, 56
 * without; one grouped 3x3 at 4x56x56x128 in groups of 4, one thread,
 * 1.35-2.5 -> 1.05-1.2 ms at load 9). L accumulators a row, beside the
 * tap's L weight vectors and the input vector, take tiles of 2 to 6
 * rows (CV_LANE_ROWS, CV_LANE_ACC). Groups past the last whole vector take vectors of
 * VW/2, VW/4, .. lanes. Blocks of 2 and 4 stay inside 128 bits, where
 * an in-lane shuffle is one cheap instruction on x86-64 and aarch64;
 * blocks of L need vectors of at least 2L lanes (blocks of 8: AVX-512),
 * where their rotations cross 128-bit lanes (one permute each, once per
 * register row after the reduction). */

/* L (with c->gl, c->kc set) where the op is such a convolution and the
 * lane path applies, else 0. */
static int lane_groups(cv *c, int64_t vw) {
  const cg_igemm *g = &c->g;
  if (c->T || c->P || c->cb || c->nk < 1) return 0;
  int gl = -1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || l == g->row || l == g->col) continue;
    if (!uses_loop(g, g->w, l)) continue;
    if (gl >= 0 || !uses_loop(g, g->x, l) || !uses_loop(g, g->out, l)) return 0;
    gl = l;
  }
  int kc = c->kl[c->nk - 1];
  int64_t L = g->bounds[g->col];
  if (gl < 0 || g->bounds[gl] < 2 || (L != 2 && L != 4 && L != 8) || g->bounds[kc] != L || vw % (2 * L)) return 0;
  int64_t sxg, sxc, sog, soc;
  if (!loop_stride(g->maps[g->x], c->X->type, g->loops, gl, &sxg) ||
      !loop_stride(g->maps[g->x], c->X->type, g->loops, kc, &sxc) ||
      !loop_stride(g->maps[g->out], c->O->type, g->loops, gl, &sog) ||
      !loop_stride(g->maps[g->out], c->O->type, g->loops, g->col, &soc) || sxc != 1 || sxg != L ||
      soc != 1 || sog != L)
    return 0;
  int64_t taps = 1;
  for (int p = 0; p + 1 < c->nk; p++) taps *= g->bounds[c->kl[p]];
  if (g->bounds[gl] * taps * L * L * 4 > CV_PANEL_BYTES) return 0;
  /* The fused epilogue reads its operands as vectors along the channels:
   * each must be uniform over the tile's groups and channels or
   * contiguous across them as the output is; linalg.index would see
   * group gb in every lane. */
  kiln_op *e = c->epi.op;
  if (e) {
    int oc = -1, og = -1;
    const kiln_affine_map *om = g->maps[g->out];
    for (uint32_t r = 0; r < om->num_results; r++) {
      if (om->results[r]->kind != KILN_AFFINE_DIM) continue;
      if ((int)om->results[r]->value == g->col) oc = (int)r;
      if ((int)om->results[r]->value == gl) og = (int)r;
    }
    if (oc < 0 || og < 0) return 0;
    for (kiln_op *o = e->regions[0].first->first; o; o = o->next)
      if (o->kind == KILN_OP_LINALG_INDEX) return 0;
    int rank = (int)c->O->type->rank;
    for (uint32_t i = 0; i < kiln_linalg_num_inputs(e); i++) {
      kiln_value *x = kiln_op_operand(e, i);
      int64_t s_g, s_c;
      if (i == c->epi.in || x->type->kind != KILN_TYPE_MEMREF) continue;
      if (!loop_stride(c->epi.maps[i], x->type, rank, og, &s_g) ||
          !loop_stride(c->epi.maps[i], x->type, rank, oc, &s_c))
        return 0;
      if (!((s_g == 0 && s_c == 0) || (s_c == 1 && s_g == L))) return 0;
    }
  }
  c->gl = gl, c->kc = kc;
  return (int)L;
}

static void lane_k_begin(kiln_builder *b, void *u, kiln_value *const *k) {
  cv *c = u;
  kiln_value *flat = cg_index(b, 0);
  for (int p = 0; p + 1 < c->nk; p++) {
    c->ivs[c->kl[p]] = k[p];
    flat = cg_add(b, flat, cg_muli(b, k[p], c->tstride[p]));
  }
  c->ivs[c->kc] = cg_index(b, 0);
  c->flat = flat;
}

static kiln_value *lane_load_a(kiln_builder *b, void *u, int r, kiln_value *const *k) {
  cv *c = u;
  (void)k;
  kiln_value *ix[KILN_MAX_LOOPS];
  set_row(c, r);
  at(c, b, c->g.x, ix);
  return cg_vload(b, c->vt, c->X, c->g.maps[c->g.x]->num_results, ix);
}

/* Weight vector of input channel ci (q) at the current tap. */
static kiln_value *lane_load_b(kiln_builder *b, void *u, int q, kiln_value *const *k) {
  cv *c = u;
  (void)k;
  kiln_value *row = cg_add(b, cg_muli(b, c->flat, c->lanes), cg_index(b, q));
  kiln_value *ix[2] = {cg_index(b, 0), cg_add(b, cg_muli(b, c->gb, c->per), cg_muli(b, row, c->vw))};
  return cg_vload(b, c->vt, c->P, 2, ix);
}

/* Groups [g_lo, g_hi) in vectors of w lanes (gpv = w / L groups): the
 * weights packed, then for the other outer loops (batch, output rows),
 * for each vector of groups, register tiles along the output row. */
static void lane_segment(cv *c, kiln_builder *b, int64_t g_lo, int64_t g_hi, int64_t w) {
  cg_igemm *g = &c->g;
  int64_t L = c->lanes, gpv = w / L;
  kiln_builder cur = *b, body;
  /* The pack, once per workgroup: loops over the vectors' groups and the
   * taps, and for each tap's L x L block its L * L scalar copies
   * unrolled, each to a constant offset from the tap's panel rows. A
   * loop over the block's input and output channels spent about 13
   * instructions a weight on index arithmetic (a 7x7 grouped 3x3 of 55
   * groups of 8 in 4 workgroups: 33.9 us, 15.5 us without the pack). */
  kiln_op *lg = cg_for(&cur, cg_index(&cur, g_lo), cg_index(&cur, g_hi), cg_index(&cur, gpv), 0, NULL, &body);
  kiln_value *gb = cg_for_iv(lg);
  cur = body;
  kiln_op *lj = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, gpv), cg_index(&cur, 1), 0, NULL, &body);
  kiln_value *j = cg_for_iv(lj);
  cur = body;
  c->ivs[c->gl] = cg_add(&cur, gb, j);
  kiln_value *flat = cg_index(&cur, 0);
  for (int p = 0; p + 1 < c->nk; p++) {
    kiln_op *lk = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, g->bounds[c->kl[p]]), cg_index(&cur, 1), 0, NULL, &body);
    c->ivs[c->kl[p]] = cg_for_iv(lk);
    cur = body;
    flat = cg_add(&cur, flat, cg_muli(&cur, c->ivs[c->kl[p]], c->tstride[p] * L));
  }
  /* flat = t*L; rotated, weight (ci, co) is lane ci of row t*L + s,
   * s = (co - ci) mod L (cpu_ukernel rotate): at base + (s*gpv*L + ci). */
  kiln_value *base = cg_add(&cur, cg_muli(&cur, gb, c->per),
                            cg_muli(&cur, cg_add(&cur, cg_muli(&cur, flat, gpv), j), L));
  for (int64_t ci = 0; ci < L; ci++)
    for (int64_t co = 0; co < L; co++) {
      kiln_value *ix[KILN_MAX_LOOPS];
      c->ivs[c->kl[c->nk - 1]] = cg_index(&cur, ci);
      c->ivs[g->col] = cg_index(&cur, co);
      at(c, &cur, g->w, ix);
      kiln_value *v = cg_load(&cur, c->W, g->maps[g->w]->num_results, ix);
      int64_t sh = (co - ci + L) % L;
      kiln_value *pix[2] = {cg_index(&cur, 0), cg_add(&cur, base, cg_index(&cur, sh * gpv * L + ci))};
      cg_store(&cur, v, c->P, 2, pix);
    }
  /* The compute nest. */
  c->vw = w;
  c->vt = kiln_type_vector(b->ctx, 1, &w, c->et);
  nest outer = {0};
  for (int l = 0; l < g->loops; l++)
    if (!g->red[l] && l != g->row && l != g->col && l != c->gl) outer.l[outer.n++] = l;
  cur = loops(c, b, &outer);
  kiln_op *lb = cg_for(&cur, cg_index(&cur, g_lo), cg_index(&cur, g_hi), cg_index(&cur, gpv), 0, NULL, &body);
  c->gb = cg_for_iv(lb);
  c->ivs[c->gl] = c->gb;
  cur = body;
  c->colv[0] = cg_index(&cur, 0);
  int64_t M = g->bounds[g->row];
  /* L accumulators a row beside the tap's L weight vectors and an input
   * vector in the registers (twice the accumulators the target gives a
   * tile), at most CV_LANE_ROWS rows and CV_LANE_ACC accumulators. */
  int cap = (2 * c->acc - (int)L - 2) / (int)L;
  if (cap > CV_LANE_ROWS) cap = CV_LANE_ROWS;
  if (cap > CV_LANE_ACC / (int)L) cap = CV_LANE_ACC / (int)L;
  if (cap < 1) cap = 1;
  if (cap > c->l1rows) cap = c->l1rows;
  int mr = (int)(M < cap ? M : cap);
  int64_t ntiles = (M + mr - 1) / mr;
  mr = (int)((M + ntiles - 1) / ntiles);
  cpu_ukernel uk = {.nr = (int)L, .nk = c->nk - 1, .vt = c->vt, .lanes = (int)L, .rotate = true, .k_begin = lane_k_begin,
                    .load_a = lane_load_a, .load_b = lane_load_b, .load_c = cv_load_c,
                    .store_c = cv_store_c, .user = c};
  for (int p = 0; p + 1 < c->nk; p++) {
    uk.klo[p] = cg_index(&cur, 0);
    uk.khi[p] = cg_index(&cur, g->bounds[c->kl[p]]);
  }
  int64_t main = M / mr * mr;
  if (main) {
    kiln_op *li = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, main), cg_index(&cur, mr), 0, NULL, &body);
    for (int r = 0; r < mr; r++) c->rowv[r] = cg_add(&body, cg_for_iv(li), cg_index(&body, r));
    c->mr = uk.mr = mr;
    prefetch_next_row(c, &body, mr);
    cpu_emit_ukernel(&body, &uk);
  }
  if (main < M) {
    for (int r = 0; r < M - main; r++) c->rowv[r] = cg_index(&cur, main + r);
    c->mr = uk.mr = (int)(M - main);
    prefetch_next_row(c, &cur, c->mr);
    cpu_emit_ukernel(&cur, &uk);
  }
}

static void emit_lanes(cv *c, kiln_builder *b, int64_t vw) {
  cg_igemm *g = &c->g;
  int64_t L = c->lanes, G = g->bounds[c->gl], taps = 1;
  for (int p = c->nk - 1; p-- > 0;) c->tstride[p] = taps, taps *= g->bounds[c->kl[p]];
  c->per = taps * L * L;
  c->P = entry_alloca(c->op, 1, G * c->per, c->et);
  c->orow = c->ohl = c->blk = -1;
  c->nr = 1;
  int64_t lo = 0;
  for (int64_t w = vw; w >= L && lo < G; w /= 2) {
    int64_t n = (G - lo) / (w / L) * (w / L);
    if (!n) continue;
    lane_segment(c, b, lo, lo + n, w);
    lo += n;
  }
}

/* Does operand t, read through m (over `loops` loops), move as far with
 * one step of loop `outer` as with n steps of loop `inner`? Then the
 * pixels of (outer, inner) are one run: index (0, o * n + i) addresses
 * the element of (o, i). */
static bool one_run(const kiln_affine_map *m, const kiln_type *t, int loops, int outer, int inner,
                    int64_t n) {
  int64_t st[KILN_MAX_LOOPS], off, so = 0, si = 0;
  if (t->kind != KILN_TYPE_MEMREF || !kiln_memref_strides(t, st, &off)) return false;
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], loops, coef, &cst)) return false;
    so += coef[outer] * st[r], si += coef[inner] * st[r];
  }
  return so == n * si;
}

/* The loop of the output dim just outside the rows' (output rows of a
 * convolution whose rows are output columns) when X, the output and the
 * fused epilogue's operands all read the tile's (outer, row) pixels as
 * one run: a 1x1 stride-1 convolution over whole output rows (a GEMM
 * over all pixels). The register tiles then run over the tile's pixels,
 * outer fixed at 0 and the row index past the row's end (the linear
 * address is the same), so a 7x7 output is 49 rows (tiles of 13 and 12
 * instead of 7 rows each of 7 output rows) and a 14x14 one 196. -1: no
 * such loop. */
static int merge_rows(const cv *c) {
  const cg_igemm *g = &c->g;
  if (c->T || g->out_row_dim < 1) return -1;
  int l = (int)g->maps[g->out]->results[g->out_row_dim - 1]->value;
  int64_t n = g->bounds[g->row];
  if (g->red[l] || l == g->col || l == g->row || uses_loop(g, g->w, l) ||
      !one_run(g->maps[g->x], c->X->type, g->loops, l, g->row, n) ||
      !one_run(g->maps[g->out], c->O->type, g->loops, l, g->row, n))
    return -1;
  kiln_op *e = c->epi.op;
  if (!e) return l;
  /* The epilogue's loops are the output's dims (identity output map);
   * linalg.index would see the out-of-row index. */
  for (kiln_op *o = e->regions[0].first->first; o; o = o->next)
    if (o->kind == KILN_OP_LINALG_INDEX) return -1;
  int rank = (int)c->O->type->rank;
  for (uint32_t i = 0; i < kiln_linalg_num_inputs(e); i++) {
    kiln_value *x = kiln_op_operand(e, i);
    if (i == c->epi.in || x->type->kind != KILN_TYPE_MEMREF) continue;
    if (!one_run(c->epi.maps[i], x->type, rank, g->out_row_dim - 1, g->out_row_dim, n)) return -1;
  }
  return l;
}

/* The loop of the output dim just outside the rows' (output rows of a
 * convolution whose rows are output columns) that register tiles may
 * span when merge_rows cannot merge it (a 3x3 or strided convolution:
 * its rows are not one run in X): an outer parallel loop W does not
 * use, of at least two iterations in the tile, over output rows shorter
 * than half the register rows of a one-vector tile (7x7 maps: tiles of
 * 14 pixels over two output rows instead of 7 over one, which leave 9
 * of 16 accumulators unused and load each filter vector for 7 fmas
 * only). X's address moves by a constant with each row as with each
 * pixel, so the register rows of a spanning tile are constant offsets
 * too. Not with a staged (NCHW) output, whose buffer holds one row's
 * tile. -1: none. */
static int span_loop(const cv *c) {
  const cg_igemm *g = &c->g;
  if (c->T || c->orow >= 0 || g->out_row_dim < 1) return -1;
  const kiln_affine_expr *e = g->maps[g->out]->results[g->out_row_dim - 1];
  if (e->kind != KILN_AFFINE_DIM) return -1;
  int l = (int)e->value;
  int64_t ow = g->bounds[g->row];
  if (g->red[l] || l == g->col || l == g->row || uses_loop(g, g->w, l) || g->bounds[l] < 2 ||
      ow < 1 || 2 * ow > (c->acc < CV_MAX_MR ? c->acc : CV_MAX_MR))
    return -1;
  return l;
}

/* The loop of W's filter blocks (convert-convs-to-nhwc's blocked
 * filters [M/NB, .., NB] and outputs [.., M/NB, NB]) when a block is one
 * vector of vw lanes and W is read in place: a loop the output and W use
 * and X does not (a group's loop selects X's channels too), of at least
 * two iterations in the tile. emit_columns pairs its blocks. -1: none. */
static int block_loop(const cv *c, int64_t vw) {
  const cg_igemm *g = &c->g;
  if (c->P || c->T || g->bounds[g->col] != vw) return -1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || l == g->row || l == g->col || l == c->orow || g->bounds[l] < 2) continue;
    if (uses_loop(g, g->w, l) && uses_loop(g, g->out, l) && !uses_loop(g, g->x, l)) return l;
  }
  return -1;
}

/* Is W already laid out like the packed panel (blocked filters of
 * convert-convs-to-nhwc): the reduction rows of a column block adjacent,
 * one block of at least width channels each? */
static bool panel_layout(const cv *c, int64_t width) {
  const kiln_type *wt = c->W->type;
  int64_t st[KILN_MAX_LOOPS], off;
  if (!c->g.w_contig || !kiln_memref_strides(wt, st, &off)) return false;
  for (int p = 0; p < c->nk; p++) {
    int64_t stride = 0;
    const kiln_affine_map *m = c->g.maps[c->g.w];
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      cg_linear_expr(m->results[r], c->g.loops, coef, &cst);
      stride += coef[c->kl[p]] * st[r];
    }
    if (stride != c->kstride[p] * wt->shape[c->g.w_col_dim]) return false;
  }
  return width <= wt->shape[c->g.w_col_dim];
}

/* Does each workgroup read its own part of W (the launch splits the
 * filter's blocks, not the pixels: the workgroup count times the tile's
 * filter is less than twice the whole filter)? Then no workgroup finds
 * the weights another one brought in: a call reads each from L3 or
 * memory once. False without a static launch (kiln.launch). */
static bool w_read_once(const cv *c) {
  kiln_op *f = kiln_op_ancestor(c->op, KILN_OP_FUNC_FUNC);
  int64_t wc[3], n = 1, tile = (kiln_type_bitwidth(c->W->type->elem) + 7) / 8, all = filter_bytes(c);
  if (!f || cg_launch_array(f, "workgroup_count", wc, 3) != 3 || all <= 0) return false;
  for (int i = 0; i < 3; i++) {
    if (wc[i] < 1) return false;
    n *= wc[i];
  }
  for (uint32_t r = 0; r < c->W->type->rank; r++) {
    if (c->W->type->shape[r] == KILN_DYNAMIC) return false;
    tile *= c->W->type->shape[r];
  }
  return n * tile < 2 * all;
}

/* Weights read in place of CV_PREFETCH_BYTES or more do not stay in a
 * core's L2 from one call to the next: each call streams them from L3 or
 * memory, and the first row tile of every panel waited on that stream
 * (ResNet's 512-channel 3x3 layer at 7x7: 1020 us per call, 880 us with
 * its 9.4 MB of weights warm in L3). Each B load then also prefetches the
 * same row of the panel read next, so that stream overlaps the row
 * tiles' arithmetic. The next panel is the next reduction block of the
 * same filter block or else the next filter block (a pair further where
 * blocks are paired), which convert-convs-to-nhwc's blocked layout stores
 * right after: cb rows of the first reduction loop further in W (K0 rows
 * per block). A prefetch never faults, so the last panel's, past the
 * end of W, is harmless.
 * Smaller blocked filters (a loop of blocks or groups W uses) of at
 * least CV_PREFETCH_ONCE_BYTES do the same where each workgroup reads
 * its own blocks (w_read_once): in a model whose weights pass L2 they
 * too come from L3 on every call. RegNetX-400MF's 400 -> 400 1x1s at
 * 7x7 (640 KB, 13 workgroups of 2 blocks of 16) ran at 190 GF/s in the
 * model, 270 alone with their weights in L2. Not where the pixels are
 * split (the workgroups after the first find the weights in cache:
 * Inception-v3's 1x7s, a workgroup per output row, 0.60 -> 0.64 ms
 * with prefetches), nor for HWCF filters (all the output channels along
 * the last dim), whose next column block lies in the same rows:
 * RegNetY-400MF's 440 -> 440 1x1s at 7x7, 1.19-1.23 ms in all, took
 * 1.32-1.34 prefetching it. 0: no prefetch. */
static int64_t prefetch_distance(const cv *c, int64_t cb, int64_t K0) {
  const cg_igemm *g = &c->g;
  const kiln_type *wt = c->W->type;
  int64_t st[KILN_MAX_LOOPS], off;
  if (c->P || !g->w_contig || !kiln_memref_strides(wt, st, &off)) return 0;
  for (uint32_t r = 0; r < wt->rank; r++)
    if (st[r] == KILN_DYNAMIC) return 0;
  /* The whole filter, not the workgroup's subview of it: a call streams
   * all of it. */
  int64_t bytes = filter_bytes(c);
  bool blocks = false;
  for (int l = 0; l < g->loops; l++) blocks |= !g->red[l] && l != g->col && uses_loop(g, g->w, l);
  if (bytes < CV_PREFETCH_BYTES && (bytes < CV_PREFETCH_ONCE_BYTES || !blocks || !w_read_once(c))) return 0;
  const kiln_affine_map *m = g->maps[g->w];
  int64_t s0 = 0;
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], g->loops, coef, &cst)) return 0;
    s0 += coef[c->kl[0]] * st[r];
  }
  int64_t rows = cb ? cb : K0;
  return rows * s0 * (c->blk >= 0 && rows == K0 ? 2 : 1);
}

/* The output-row loop of a grouped convolution (a loop X, W and the
 * output use besides the rows and columns), when it is a loop of its
 * own outside the register tiles: each tile then prefetches the input
 * lines it reads at the next output row (prefetch_next_row). -1: none. */
static int next_row_loop(const cv *c) {
  const cg_igemm *g = &c->g;
  if (c->orow >= 0 || c->ohl >= 0 || g->out_row_dim < 1) return -1;
  const kiln_affine_expr *e = g->maps[g->out]->results[g->out_row_dim - 1];
  if (e->kind != KILN_AFFINE_DIM) return -1;
  int l = (int)e->value;
  if (g->red[l] || l == g->col || l == g->row || uses_loop(g, g->w, l) || g->bounds[l] < 2) return -1;
  for (int k = 0; k < g->loops; k++)
    if (!g->red[k] && k != g->row && k != g->col && uses_loop(g, g->w, k) && uses_loop(g, g->x, k) &&
        uses_loop(g, g->out, k))
      return l;
  return -1;
}

/* Do a grouped convolution's groups share input lines, a group's input
 * channels (contiguous in X) taking less than a line, off the lane
 * path (whose vectors hold several groups' channels: whole lines)? Then
 * a tile row's line per pixel is read by the next group's tile again. */
static bool shares_lines(const cv *c) {
  const cg_igemm *g = &c->g;
  int64_t sc;
  if (c->lanes || c->nk < 1) return false;
  int kc = c->kl[c->nk - 1];
  if (!loop_stride(g->maps[g->x], c->X->type, g->loops, kc, &sc) || sc != 1) return false;
  return g->bounds[kc] * ((kiln_type_bitwidth(c->X->type->elem) + 7) / 8) < 64;
}

/* Register rows of a grouped convolution whose input lines at one tap
 * fit the L1 sets they fall in. A group's few channels of a pixel are
 * one line, read by every reduction step of the tap, and pixels a
 * multiple of 4 KiB apart all fall in one set: ResNeXt's 512 channels at
 * stride 2 with 14 rows missed L1 on every load (4x28x28x512 groups of
 * 16, stride 2, one thread: 2.0 ms, 1.0 ms in tiles of 7 rows; 6 rows a
 * set were no faster than 8, and 1024 channels' tiles of 7 rows keep
 * their speed). Rows lie S bytes apart and spread over 64 / gcd(S / 64
 * mod 64, 64) sets (line-aligned S), CV_L1_ROWS_PER_SET rows each, half
 * as many where groups share lines (shares_lines: 4x56x56x256 in
 * groups of 8 at stride 2, rows of 28, one thread under SCHED_FIFO:
 * tiles of 14 rows 2.8-3.0 ms, 10 2.7, 7 2.0, 6 2.03, 5 2.16; at stride
 * 1, 4 sets, tiles of 14 1.32 ms and of 7 1.40 keep 16 a row); the
 * tiles are then equal (19 rows: 7 + 7 + 5). Dense convolutions read
 * whole pixels, every line of them, and keep their tiles. */
static int l1_rows(const cv *c) {
  const cg_igemm *g = &c->g;
  int64_t s;
  if (!loop_stride(g->maps[g->x], c->X->type, g->loops, g->row, &s)) return CV_MAX_MR;
  s *= (kiln_type_bitwidth(c->X->type->elem) + 7) / 8;
  if (s < 0) s = -s;
  if (s % 64) return CV_MAX_MR;
  bool grouped = false;
  for (int k = 0; k < g->loops; k++)
    grouped |= !g->red[k] && k != g->row && k != g->col && uses_loop(g, g->w, k) && uses_loop(g, g->x, k) &&
                uses_loop(g, g->out, k);
  if (!grouped) return CV_MAX_MR;
  int64_t a = (s / 64) % 64, b = 64;
  while (a) {
    int64_t t = b % a;
    b = a, a = t;
  }
  int64_t rows = 64 / b * (shares_lines(c) ? CV_L1_ROWS_PER_SET / 2 : CV_L1_ROWS_PER_SET);
  return rows < CV_MAX_MR ? (int)rows : CV_MAX_MR;
}

/* Before anything changes, whether a convolution of 2 output channels
 * (a column) may be one of 2 channels a group in and out (lane_groups
 * decides): a loop X, W and the output use, the innermost reduction loop
 * of 2. */
static bool narrow_groups(const cg_igemm *g) {
  int last = -1;
  bool grp = false;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l]) last = l;
    else if (l != g->row && l != g->col && uses_loop(g, g->w, l) && uses_loop(g, g->x, l) && uses_loop(g, g->out, l))
      grp = true;
  }
  return grp && last >= 0 && g->bounds[last] == 2;
}

bool cpu_lower_conv(kiln_op *op, int64_t vw) {
  cv c;
  memset(&c, 0, sizeof c);
  if (vw < 4 || !cg_igemm_match(op, &c.g) || runs_as_thread_block(op)) return false;
  cg_igemm *g = &c.g;
  int64_t NC = g->bounds[g->col];
  /* At least one whole vector of 4 lanes: narrower columns (depthwise's
   * one channel per group) are better served by the generic path, but
   * for groups of 2 on vectors across groups (lane_groups). */
  bool narrow = NC < 4;
  if (narrow && (NC != 2 || !g->out_contig || !g->w_contig || !narrow_groups(g))) return false;
  c.op = op;
  /* Narrower column segments (8 of 24 channels on 16 lanes) have the
   * same registers as the kernel's full vectors (ymm/xmm are zmm's low
   * halves, NEON and RVV narrower groups at least as many). */
  c.acc = cpu_accumulators(op, vw);
  c.X = kiln_op_operand(op, g->x), c.W = kiln_op_operand(op, g->w), c.O = kiln_op_operand(op, g->out);
  c.et = c.O->type->elem;
  int64_t width = (NC >= 2 * vw ? 2 : 1) * vw;
  /* Reduction loops in op order; panel strides row-major over them. */
  for (int l = 0; l < g->loops; l++)
    if (g->red[l]) c.kl[c.nk++] = l;
  if (!c.nk) return false;
  int64_t inner = 1;
  for (int p = c.nk; p-- > 1;) c.kstride[p] = inner, inner *= g->bounds[c.kl[p]];
  c.kstride[0] = inner;
  int64_t cb = 0, K0 = g->bounds[c.kl[0]];
  /* Pack W when it is not contiguous along the output channels, and
   * also when it is but a column block's weights exceed the panel
   * budget: then its rows, a whole output-channel row apart, would
   * thrash the caches (few sets at that power-of-two stride) at every
   * row tile, where a packed block streams contiguously from L2. */
  bool big = K0 * inner * width * 4 > CV_PANEL_BYTES;
  bool pack = !g->w_contig || (big && !panel_layout(&c, width));
  /* A column block's weights larger than the panel budget are taken in
   * blocks of the first reduction loop that fit (packed or already laid
   * out so), every row tile accumulating each block in turn. */
  if (narrow && (pack || big)) return false;
  if (pack || big) {
    for (int64_t d = K0; d >= 1 && !cb; d--)
      if (K0 % d == 0 && d * inner * width * 4 <= CV_PANEL_BYTES) cb = d;
    if (!cb && !g->w_contig) return false;
    pack = pack && cb != 0;
  }
  if (pack) c.P = entry_alloca(op, cb * inner, width, c.et);
  if (!g->out_contig) c.T = entry_alloca(op, CV_STAGE_ROWS, width, c.et);
  c.cb = cb, c.K0 = K0;
  /* Straight into the output: the fill before and the elementwise
   * consumer after join the microkernel (with several reduction blocks,
   * the first block starts from the fill value and the last one applies
   * the consumer). */
  kiln_op *fill = NULL;
  if (!c.T) {
    fill = cpu_fused_fill(op, c.O);
    if (fill) c.init = kiln_op_operand(fill, 0);
    cpu_fused_epilogue(op, c.O, &c.epi);
  }
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  c.orow = c.ohl = -1;
  c.nxl = next_row_loop(&c);
  c.lanes = lane_groups(&c, vw);
  c.l1rows = l1_rows(&c);
  if (c.lanes) {
    emit_lanes(&c, &b, vw);
    if (fill) kiln_op_erase(fill);
    if (c.epi.op) kiln_op_erase(c.epi.op);
    return true;
  }
  if (narrow) return false;
  c.orow = merge_rows(&c);
  c.ohl = span_loop(&c);
  c.nxl = next_row_loop(&c);
  c.blk = block_loop(&c, vw);
  c.pf = prefetch_distance(&c, cb, K0);
  /* Column segments: pairs of vectors, then one vector of each halved
   * width down to 4 lanes, then 1-lane vectors (24 channels on 16 lanes:
   * 16 + 8; 27: 16 + 8 + 3 x 1). */
  int64_t j = 0;
  if (NC >= 2 * vw) {
    int64_t n2 = NC / (2 * vw) * (2 * vw);
    emit_columns(&c, &b, 0, n2, vw, 2, cb, K0);
    j = n2;
  }
  for (int64_t w = vw; w >= 4 && j < NC; w /= 2) {
    int64_t n = (NC - j) / w * w;
    if (!n) continue;
    emit_columns(&c, &b, j, j + n, w, 1, cb, K0);
    j += n;
  }
  if (j < NC) emit_columns(&c, &b, j, NC, 1, 1, cb, K0);
  if (fill) kiln_op_erase(fill);
  if (c.epi.op) kiln_op_erase(c.epi.op);
  return true;
}
