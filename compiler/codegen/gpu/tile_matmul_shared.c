/* gpu-tile-matmul-shared: matmul, batch_matmul, conv_2d_nhwc_hwcf and
 * conv_2d_nchw_fchw of a GPU kernel through shared-memory tiles and
 * per-thread register tiles.
 *
 * Takes: a cuda variant's inner module after tile-and-distribute, whose
 * kernels carry kiln.launch {block_tile = [BM, BN], k_step = BK,
 * thread_tile = [TM, TN]} (select-gpu-launch-config sets them on kernels
 * whose root is one of those ops in f32). Kernels without those entries,
 * with private memref.alloca scratch (bufferized intermediates live per
 * GPU thread), or without such a top-level op are left alone.
 * Guarantees: every top-level f32 linalg.matmul / batch_matmul of such a
 * kernel (C += A * B on its workgroup tile), and every conv_2d_nhwc_hwcf
 * with a static filter as an implicit GEMM (m = output pixel (n, oh, ow)
 * of the workgroup's output tile, n = output channel, k = filter tap (kh,
 * kw, c); A[m][k] = input[n][oh*sh + kh*dh][ow*sw + kw*dw][c], B = the
 * filter as a (KH*KW*C) x F matrix, C = the output tile as pixels x
 * channels; 4 consecutive k are contiguous in A only when C % 4 == 0, else
 * A is loaded element by element), and every conv_2d_nchw_fchw with a
 * static filter (C, KH, KW) as an implicit GEMM per batch image chosen so
 * that global loads stay coalesced in NCHW (m = output channel f, n =
 * output pixel (oh, ow) of the tile, contiguous in the output, k = filter
 * tap (c, kh, kw), contiguous in the filter; A = the filter as F x
 * (C*KH*KW), B[k][n] = input[b][c][oh*sh + kh*dh][ow*sw + kw*dw], C =
 * output[b][f][oh][ow]; groups of 4 only where they stay in one memory
 * row: A when KW % 4 == 0, C when the tile's OW % 4 == 0, B for a 1x1
 * filter at stride 1 with such C), becomes uniform loops over batch,
 * BM x BN block tiles of the workgroup tile and BK-wide K steps; per K
 * step
 *   1. the block loads A's BM x BK and B's BK x BN tiles into workgroup
 *      memory (two memref.alloca in memory space 3 at the kernel entry:
 *      As[BK][BM'] holds A transposed so a thread reads its TM rows of a
 *      k as one row; Bs[BK][BN']; BM', BN' rounded up to 4): thread t of
 *      n takes groups t, t+n, ... of 4 consecutive elements along the
 *      contiguous dim, as one vector<4xf32> load where the group lies in
 *      the tile, scalar loads guarded by the tile's sizes elsewhere; an
 *      operand without such groups goes element by element, thread t of
 *      n taking elements t, t+n, ... along the contiguous dim (coalesced);
 *   2. hal.interface.barrier;
 *   3. thread t of n takes thread tiles t, t+n, ... (TM x TN outputs at
 *      rows TM*ty, columns TN*tx of the block tile): a full thread tile
 *      reads its outputs (vector<4xf32> rows when TN % 4 == 0; lane by
 *      lane into them when 4 consecutive n are not contiguous), runs the
 *      K step's BK products on TM x TN/4 vector accumulators held in
 *      registers (iter_args of the k loop, shared operands read as
 *      vectors), and stores them back; a partial one (edges of M and N)
 *      runs guarded scalar loops over its valid outputs only;
 *   4. hal.interface.barrier (the tiles are overwritten next step).
 * The loops over groups and thread tiles stride by the launched block
 * size, so any block size computes the right result. Launched with the
 * configured block size (which select-gpu-launch-config gives at most
 * one thread tile per thread), a kernel whose operands move in groups of
 * 4 (K a multiple of 4, and a block's valid columns too, checked at run
 * time; or an NHWC convolution whose channels are not, whose A groups
 * then load as 4 scalar taps) takes the register path instead, edge blocks included: each
 * thread's accumulators stay in registers across the K steps (scalar
 * iter_args of the K loop, which SIMT-on-CPU keeps in per-thread slots),
 * starting at zero, and C += them once after the loop; each thread's
 * share of the tiles loads as straight-line vector loads of the next K
 * step, issued before this step's FMAs (emit_register_tile; measured on
 * an H200, 4096^3 matmul 6.2 -> 4.1 ms) and stored after them into the
 * second of two workgroup tiles (the allocas then hold 2 x BK rows), so
 * each step waits at one barrier instead of two (two_buffer_loop), and a
 * thread tile's 4-wide
 * column chunks interleave with its row neighbours' (chunk q of thread
 * column x at 4 x + 4 q (BN / TN), so a warp's shared reads of B and its
 * C updates are consecutive 16-byte chunks). Otherwise a full block tile
 * launched with one thread per thread tile keeps its accumulators in
 * registers (C read once before the K loop and written once after it),
 * and other blocks (edges of M and N, other block sizes) use C itself as
 * the accumulator between K steps (read and written once per step by
 * the thread owning that tile).
 * Thread ids and the block size are read afresh in each barrier-free
 * segment.
 * Global vector accesses carry alignment = 16 when the memref is a
 * binding (or a subview of one) whose row strides and column offsets are
 * provably multiples of 4 elements and the block and K steps keep them so
 * (NVPTX then emits ld.global.v4.f32 / st.global.v4.f32); otherwise the
 * element alignment (NVPTX splits them).
 * The outermost new loop carries kiln.gpu_distributed (as do the two
 * allocas): distribute-to-threads must leave it alone (pipeline.c hides
 * such ops from it). */
#include "gpu_internal.h"

#include <string.h>

typedef struct {
  int64_t bm, bn, bk, tm, tn; /* block tile, K step, thread tile */
  int64_t cq;                 /* columns from one 4-wide chunk of a thread tile to its next */
} mm_config;

static bool read_config(kiln_op *func, mm_config *cf) {
  int64_t bt[2], tt[2];
  if (cg_launch_array(func, "block_tile", bt, 2) != 2 || cg_launch_array(func, "thread_tile", tt, 2) != 2)
    return false;
  cf->bm = bt[0], cf->bn = bt[1], cf->tm = tt[0], cf->tn = tt[1];
  cf->bk = cg_launch_int(func, "k_step", 0);
  cf->cq = 4;
  return cf->bm > 0 && cf->bn > 0 && cf->bk > 0 && cf->tm > 0 && cf->tn > 0 && cf->tm <= cf->bm &&
         cf->tn <= cf->bn && cf->bm <= 1024 && cf->bn <= 1024 && cf->bk <= 1024;
}

static int64_t round4(int64_t v) { return (v + 3) / 4 * 4; }

/* ---- alignment: is index v a multiple of 4 (structurally)? ---- */
static bool mult4(kiln_value *v, int depth) {
  int64_t c;
  if (cg_const_int(v, &c)) return c % 4 == 0;
  kiln_op *d = v->def;
  if (!d || depth > 8) return false;
  if (d->kind == KILN_OP_ARITH_MULI)
    return mult4(kiln_op_operand(d, 0), depth + 1) || mult4(kiln_op_operand(d, 1), depth + 1);
  if (d->kind == KILN_OP_ARITH_ADDI || d->kind == KILN_OP_ARITH_SUBI)
    return mult4(kiln_op_operand(d, 0), depth + 1) && mult4(kiln_op_operand(d, 1), depth + 1);
  return false;
}

/* Is every element address of memref m at a column index that is a
 * multiple of 4 16-byte aligned? True for a binding (64-byte aligned)
 * with an identity layout whose row strides are multiples of 4, and
 * subviews of such memrefs whose innermost offset is a multiple of 4. */
static bool aligned4(kiln_value *m, int depth) {
  const kiln_type *t = m->type;
  int64_t st[KILN_MAX_LOOPS], off;
  if (t->kind != KILN_TYPE_MEMREF || !t->rank || t->rank > KILN_MAX_LOOPS || !kiln_memref_strides(t, st, &off) ||
      st[t->rank - 1] != 1 || depth > 8)
    return false;
  for (uint32_t d = 0; d + 1 < t->rank; d++)
    if (st[d] == KILN_DYNAMIC || st[d] % 4 != 0) return false;
  kiln_op *def = m->def;
  if (!def) return false;
  if (def->kind == KILN_OP_HAL_INTERFACE_BINDING) return off == 0;
  if (def->kind != KILN_OP_MEMREF_SUBVIEW || !aligned4(kiln_op_operand(def, 0), depth + 1)) return false;
  const kiln_attr *so = kiln_op_get_attr(def, "static_offsets");
  const kiln_type *src = kiln_op_operand(def, 0)->type;
  if (!so || so->kind != KILN_ATTR_DENSE_ARRAY || so->count != src->rank) return false;
  const int64_t *o = so->data;
  uint32_t dyn = 0;
  for (uint32_t d = 0; d + 1 < so->count; d++) dyn += o[d] == KILN_DYNAMIC;
  int64_t last = o[so->count - 1];
  if (last != KILN_DYNAMIC) return last % 4 == 0;
  return 1 + dyn < def->num_operands && mult4(kiln_op_operand(def, 1 + dyn), 0);
}

/* ---- small builders ---- */
static kiln_value *thread_id(kiln_builder *b) { return gpu_interface(b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0); }
static kiln_value *block_threads(kiln_builder *b) {
  return gpu_interface(b, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
}
static kiln_value *idx(kiln_builder *b, int64_t v) { return cg_index(b, v); }
static kiln_value *add(kiln_builder *b, kiln_value *x, kiln_value *y) { return cg_add(b, x, y); }
static kiln_value *addc(kiln_builder *b, kiln_value *x, int64_t c) { return c ? cg_add(b, x, idx(b, c)) : x; }
static kiln_value *sub(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return cg_bin(b, KILN_OP_ARITH_SUBI, x, y);
}
static kiln_value *minv(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return cg_bin(b, KILN_OP_ARITH_MINSI, x, y);
}
static kiln_value *lt(kiln_builder *b, kiln_value *x, kiln_value *y) { return cg_cmpi(b, CG_SLT, x, y); }
static kiln_value *le(kiln_builder *b, kiln_value *x, kiln_value *y) { return cg_cmpi(b, CG_SLE, x, y); }
static kiln_value *and_(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return cg_bin(b, KILN_OP_ARITH_ANDI, x, y);
}

static void set_align(kiln_builder *b, kiln_op *op, bool aligned) {
  if (aligned) kiln_op_set_attr(op, "alignment", kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 64), 16));
}

static kiln_value *vload(kiln_builder *b, const kiln_type *vt, kiln_value *m, uint32_t n,
                         kiln_value *const *ix, bool aligned) {
  kiln_value *r = cg_vload(b, vt, m, n, ix);
  set_align(b, r->def, aligned);
  return r;
}

static void vstore(kiln_builder *b, kiln_value *v, kiln_value *m, uint32_t n, kiln_value *const *ix,
                   bool aligned) {
  cg_vstore(b, v, m, n, ix);
  kiln_op *st = b->before ? b->before->prev : NULL;
  if (st && st->kind == KILN_OP_VECTOR_STORE) set_align(b, st, aligned);
}

static kiln_value *extract(kiln_builder *b, kiln_value *v, int64_t lane) {
  const kiln_type *et = v->type->elem;
  kiln_named_attr na = {"static_position", kiln_attr_dense_i64_array(b->ctx, 1, &lane)};
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_EXTRACT, 1, &v, 1, &et, kiln_attr_dict(b->ctx, 1, &na)), 0);
}

static kiln_value *insert(kiln_builder *b, kiln_value *x, kiln_value *v, int64_t lane) {
  kiln_value *ops[2] = {x, v};
  kiln_named_attr na = {"static_position", kiln_attr_dense_i64_array(b->ctx, 1, &lane)};
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_INSERT, 2, ops, 1, &v->type, kiln_attr_dict(b->ctx, 1, &na)),
                        0);
}

/* scf.if cond with an empty then (and else when want_else) branch;
 * builders before their yields. */
static kiln_op *build_if(kiln_builder *b, kiln_value *cond, bool want_else, kiln_builder *then_b,
                         kiln_builder *else_b) {
  kiln_op *iff = kiln_build(b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  for (uint32_t r = 0; r < (want_else ? 2u : 1u); r++) {
    kiln_builder yb = kiln_builder_at_end(b->ctx, kiln_op_entry_block(b->ctx, iff, r));
    yb.loc = b->loc;
    kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
    kiln_builder *out = r ? else_b : then_b;
    *out = kiln_builder_before(y);
    out->loc = b->loc;
  }
  return iff;
}

static kiln_op *loop(kiln_builder *b, kiln_value *lb, kiln_value *ub, kiln_value *step, kiln_builder *body) {
  kiln_op *l = cg_for(b, lb, ub, step, 0, NULL, body);
  body->loc = b->loc;
  return l;
}

/* Builders whose operands are built in a fixed order (C leaves the order
 * of evaluating call arguments unspecified; the IR must not depend on the
 * compiler that built Kiln). */
static kiln_op *loopc(kiln_builder *b, int64_t lb, kiln_value *ub, int64_t step, kiln_builder *body) {
  kiln_value *l = idx(b, lb), *s = idx(b, step);
  return loop(b, l, ub, s, body);
}

static kiln_value *minc(kiln_builder *b, int64_t c, kiln_value *x) {
  kiln_value *k = idx(b, c);
  return minv(b, k, x);
}

/* The GEMM being tiled: C[m][n] += A[m][k] * B[k][n], with the operands'
 * element positions given by a_at / b_at / c_at (matmul: the optional
 * batch index then (row, column); convolution: implicit GEMM, below). */
typedef struct {
  kiln_value *A, *B, *C;     /* the op's operands */
  kiln_value *As, *Bs;       /* workgroup-memory tiles */
  kiln_value *bi;            /* batch index or NULL */
  kiln_value *gi;            /* grouped convolution: group index, else NULL */
  bool conv;                 /* conv_2d_nhwc_hwcf as implicit GEMM */
  bool nchw;                 /* conv_2d_nchw_fchw (or grouped) as implicit GEMM */
  bool vecA, vecB, vecC;     /* 4 consecutive k (A), n (B, C) are contiguous */
  bool alA, alB, alC;        /* 16-byte aligned vector accesses */
  /* conv: m = (n, oh, ow) over the output tile's OH' x OW', k = (kh, kw,
   * c) over KW x C; input position (n, oh*sh + kh*dh, ow*sw + kw*dw, c).
   * nchw: m = f, n = (oh, ow) over OH' x OW', k = (c, kh, kw) over KH x
   * KW; input position (batch, c, oh*sh + kh*dh, ow*sw + kw*dw). tap()
   * splits k by kwc (KW*C; nchw KH*KW) then cin (C; nchw KW). */
  kiln_value *ohw, *ow;      /* OH' * OW' and OW' */
  kiln_value *koff;          /* register path, two buffers: first K row of the one in use, else NULL */
  int64_t sh, sw, dh, dw, kwc, cin;
  const kiln_type *f32, *v4;
} mm_emit;

static kiln_value *divv(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return cg_bin(b, KILN_OP_ARITH_DIVSI, x, y);
}
static kiln_value *remv(kiln_builder *b, kiln_value *x, kiln_value *y) {
  return cg_bin(b, KILN_OP_ARITH_REMSI, x, y);
}

/* conv: output pixel m -> (n, oh, ow). */
static void pixel(kiln_builder *b, const mm_emit *e, kiln_value *m, kiln_value **p) {
  p[0] = divv(b, m, e->ohw);
  kiln_value *r = remv(b, m, e->ohw);
  p[1] = divv(b, r, e->ow), p[2] = remv(b, r, e->ow);
}

/* conv: reduction index k -> (kh, kw, c); nchw: (c, kh, kw). */
static void tap(kiln_builder *b, const mm_emit *e, kiln_value *k, kiln_value **t) {
  t[0] = divv(b, k, idx(b, e->kwc));
  kiln_value *r = remv(b, k, idx(b, e->kwc));
  t[1] = divv(b, r, idx(b, e->cin)), t[2] = remv(b, r, idx(b, e->cin));
}

static uint32_t a_at(kiln_builder *b, const mm_emit *e, kiln_value **ix, kiln_value *m, kiln_value *k) {
  uint32_t n = 0;
  if (e->nchw) { /* the filter [g][f][c][kh][kw] (g: grouped only) */
    uint32_t o = 0;
    if (e->gi) ix[o++] = e->gi;
    ix[o] = m;
    tap(b, e, k, ix + o + 1);
    return 4 + o;
  }
  if (!e->conv) {
    if (e->bi) ix[n++] = e->bi;
    ix[n++] = m, ix[n++] = k;
    return n;
  }
  kiln_value *p[3], *t[3];
  pixel(b, e, m, p);
  tap(b, e, k, t);
  ix[0] = p[0];
  kiln_value *h = cg_muli(b, p[1], e->sh), *kh = cg_muli(b, t[0], e->dh);
  ix[1] = add(b, h, kh);
  kiln_value *w = cg_muli(b, p[2], e->sw), *kw = cg_muli(b, t[1], e->dw);
  ix[2] = add(b, w, kw);
  ix[3] = t[2];
  return 4;
}

static uint32_t b_at(kiln_builder *b, const mm_emit *e, kiln_value **ix, kiln_value *k, kiln_value *nn) {
  uint32_t n = 0;
  if (e->nchw) { /* the input at (batch, c, oh*sh + kh*dh, ow*sw + kw*dw) */
    kiln_value *t[3];
    tap(b, e, k, t);
    kiln_value *oh = divv(b, nn, e->ow), *ow = remv(b, nn, e->ow);
    uint32_t o = 0;
    ix[o++] = e->bi;
    if (e->gi) ix[o++] = e->gi;
    ix[o] = t[0];
    kiln_value *h = cg_muli(b, oh, e->sh), *kh = cg_muli(b, t[1], e->dh);
    ix[o + 1] = add(b, h, kh);
    kiln_value *w = cg_muli(b, ow, e->sw), *kw = cg_muli(b, t[2], e->dw);
    ix[o + 2] = add(b, w, kw);
    return o + 3;
  }
  if (!e->conv) {
    if (e->bi) ix[n++] = e->bi;
    ix[n++] = k, ix[n++] = nn;
    return n;
  }
  tap(b, e, k, ix);
  ix[3] = nn;
  return 4;
}

static uint32_t c_at(kiln_builder *b, const mm_emit *e, kiln_value **ix, kiln_value *m, kiln_value *nn) {
  uint32_t n = 0;
  if (e->nchw) { /* the output [batch][g][f][oh][ow] (g: grouped only) */
    uint32_t o = 0;
    ix[o++] = e->bi;
    if (e->gi) ix[o++] = e->gi;
    ix[o++] = m;
    ix[o] = divv(b, nn, e->ow), ix[o + 1] = remv(b, nn, e->ow);
    return o + 2;
  }
  if (!e->conv) {
    if (e->bi) ix[n++] = e->bi;
    ix[n++] = m, ix[n++] = nn;
    return n;
  }
  pixel(b, e, m, ix);
  ix[3] = nn;
  return 4;
}

/* Step 1: A[bm0 + r][k0 + kq ..] -> As[kq ..][r], B[k0 + kr][bn0 + nq ..]
 * -> Bs[kr][nq ..]. A side whose 4 consecutive elements along the
 * contiguous dim are contiguous in memory (vecA / vecB) moves in groups
 * of 4; the other one element by element, consecutive threads taking
 * consecutive elements along that dim (coalesced where it is contiguous
 * in memory, e.g. the filter's k and, at stride 1, the NCHW input's
 * pixels). */
static void emit_elements(kiln_builder *b, const mm_emit *e, int which, int64_t rows, int64_t cols,
                          kiln_value *tid, kiln_value *nthr, kiln_value *r0, kiln_value *c0,
                          kiln_value *rlim, kiln_value *clim) {
  kiln_value *ix[5], *sx[2];
  kiln_builder lb, ib;
  kiln_op *l = loop(b, tid, idx(b, rows * cols), nthr, &lb);
  kiln_value *g = cg_for_iv(l);
  kiln_value *r = cg_bin(&lb, KILN_OP_ARITH_DIVSI, g, idx(&lb, cols));
  kiln_value *c = cg_bin(&lb, KILN_OP_ARITH_REMSI, g, idx(&lb, cols));
  kiln_value *rin = lt(&lb, r, rlim), *cin = lt(&lb, c, clim);
  build_if(&lb, and_(&lb, rin, cin), false, &ib, NULL);
  kiln_value *gr = add(&ib, r0, r), *gc = add(&ib, c0, c);
  uint32_t n = which ? b_at(&ib, e, ix, gr, gc) : a_at(&ib, e, ix, gr, gc);
  kiln_value *x = cg_load(&ib, which ? e->B : e->A, n, ix);
  if (which) sx[0] = r, sx[1] = c;
  else sx[0] = c, sx[1] = r;
  cg_store(&ib, x, which ? e->Bs : e->As, 2, sx);
}

static void emit_loads(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0,
                       kiln_value *bn0, kiln_value *k0, kiln_value *mb, kiln_value *nb, kiln_value *kb) {
  kiln_value *tid = thread_id(b), *nthr = block_threads(b), *ix[5], *sx[2];
  for (int which = 0; which < 2; which++) {
    /* A: rows BM, groups along k; B: rows BK, groups along n. */
    const int64_t rows = which ? cf->bk : cf->bm, cols = which ? cf->bn : cf->bk;
    kiln_value *rlim = which ? kb : mb, *clim = which ? nb : kb;
    if (!(which ? e->vecB : e->vecA)) {
      emit_elements(b, e, which, rows, cols, tid, nthr, which ? k0 : bm0, which ? bn0 : k0, rlim, clim);
      continue;
    }
    const int64_t q = (cols + 3) / 4;
    kiln_builder lb;
    kiln_op *l = loop(b, tid, idx(b, rows * q), nthr, &lb);
    kiln_value *g = cg_for_iv(l);
    kiln_value *r = cg_bin(&lb, KILN_OP_ARITH_DIVSI, g, idx(&lb, q));
    kiln_value *c = cg_muli(&lb, cg_bin(&lb, KILN_OP_ARITH_REMSI, g, idx(&lb, q)), 4);
    kiln_value *rin = lt(&lb, r, rlim);
    kiln_builder vb, sb;
    kiln_value *full = and_(&lb, rin, le(&lb, addc(&lb, c, 4), clim));
    build_if(&lb, full, true, &vb, &sb);
    {
      /* global position of the group */
      kiln_value *gr = add(&vb, which ? k0 : bm0, r), *gc = add(&vb, which ? bn0 : k0, c);
      uint32_t n = which ? b_at(&vb, e, ix, gr, gc) : a_at(&vb, e, ix, gr, gc);
      kiln_value *v = vload(&vb, e->v4, which ? e->B : e->A, n, ix, which ? e->alB : e->alA);
      if (which) {
        sx[0] = r, sx[1] = c;
        vstore(&vb, v, e->Bs, 2, sx, true);
      } else {
        for (int64_t k = 0; k < 4; k++) {
          sx[0] = addc(&vb, c, k), sx[1] = r;
          cg_store(&vb, extract(&vb, v, k), e->As, 2, sx);
        }
      }
    }
    /* partial group: the elements inside the tile, one by one */
    kiln_builder ib, eb;
    build_if(&sb, rin, false, &ib, NULL);
    kiln_value *cnt = minc(&ib, 4, sub(&ib, clim, c));
    kiln_op *el = loopc(&ib, 0, cnt, 1, &eb);
    kiln_value *cc = add(&eb, c, cg_for_iv(el));
    kiln_value *gr = add(&eb, which ? k0 : bm0, r), *gc = add(&eb, which ? bn0 : k0, cc);
    uint32_t n = which ? b_at(&eb, e, ix, gr, gc) : a_at(&eb, e, ix, gr, gc);
    kiln_value *x = cg_load(&eb, which ? e->B : e->A, n, ix);
    if (which) sx[0] = r, sx[1] = cc;
    else sx[0] = cc, sx[1] = r;
    cg_store(&eb, x, which ? e->Bs : e->As, 2, sx);
  }
}

/* Operand staging of the register path: with the launched block size T
 * known (the configured one), each thread moves a fixed number of
 * 4-element groups per K step (A: BM x BK/4 groups along k, B: BK x BN/4
 * along n; thread t takes groups t + j*T, the last round clamped to the
 * last group and its store skipped where groups % T != 0), so the loads
 * are straight-line code issued together rather than a loop that waits
 * on each global load before its stores. Partial block tiles clamp the
 * row or column they read to the last valid one (the tile's rows and
 * columns past mb, nb or kb then hold copies that only discarded outputs
 * read), so every load is in bounds and unconditional; this needs the
 * contiguous limits (K, and the block's columns nb for B) to be multiples
 * of 4, so a group never straddles one (K statically here, nb by the
 * caller's run-time test); A's groups of a convolution whose channels are
 * not a multiple of 4 load tap by tap, each tap clamped instead. */
typedef struct {
  int64_t threads, groups[2], count[2], q[2]; /* q: groups per tile row */
  bool clamp_k;                               /* K % BK != 0: partial last step */
  bool two;                                   /* the workgroup tiles hold two K steps */
  kiln_value *v[2][16];                       /* the staged groups */
} mm_stage;

static bool stage_fits(const mm_emit *e, const mm_config *cf, int64_t K, int64_t threads, mm_stage *s) {
  /* An NHWC convolution whose channels are not a multiple of 4 (an RGB
   * image's first convolution: K = 7 x 7 x 3) loads A's groups tap by tap
   * (stage_load), so K needs no multiple of 4 then. */
  const bool scalar_a = !e->vecA && e->conv;
  if ((!e->vecA && !scalar_a) || !e->vecB || e->nchw || (!scalar_a && (K < 4 || K % 4)) || cf->bk % 4 ||
      cf->bn % 4 || threads < 1)
    return false;
  const int64_t tx = (cf->bn + cf->tn - 1) / cf->tn, ty = (cf->bm + cf->tm - 1) / cf->tm;
  if (tx * ty > threads) return false;
  s->threads = threads;
  s->q[0] = cf->bk / 4, s->q[1] = cf->bn / 4;
  s->groups[0] = cf->bm * s->q[0], s->groups[1] = cf->bk * s->q[1];
  s->clamp_k = K % cf->bk != 0;
  for (int w = 0; w < 2; w++) {
    s->count[w] = (s->groups[w] + threads - 1) / threads;
    if (s->count[w] > 16) return false;
  }
  return true;
}

/* Is round j of side w the partial last one (groups % T != 0)? */
static bool stage_partial(const mm_stage *s, int w, int64_t j) {
  return j == s->count[w] - 1 && s->groups[w] % s->threads;
}

/* Group j of side w of this thread: tile row *r, column *c (clamped to
 * the last group in a partial round). */
static void stage_position(kiln_builder *b, const mm_stage *s, int w, kiln_value *tid, int64_t j,
                           kiln_value **r, kiln_value **c) {
  const int64_t q = s->q[w], T = s->threads;
  if (T % q == 0 && !stage_partial(s, w, j)) {
    *r = addc(b, cg_bin(b, KILN_OP_ARITH_DIVSI, tid, idx(b, q)), j * (T / q));
    *c = cg_muli(b, cg_bin(b, KILN_OP_ARITH_REMSI, tid, idx(b, q)), 4);
    return;
  }
  kiln_value *g = addc(b, tid, j * T);
  if (stage_partial(s, w, j)) g = minc(b, s->groups[w] - 1, g);
  *r = cg_bin(b, KILN_OP_ARITH_DIVSI, g, idx(b, q));
  *c = cg_muli(b, cg_bin(b, KILN_OP_ARITH_REMSI, g, idx(b, q)), 4);
}

/* Loads the K step at k0 (kb deep) into s: all global loads, no stores.
 * mb, nb: the block tile's valid rows and columns. */
static void stage_load(kiln_builder *b, const mm_emit *e, const mm_stage *st, kiln_value *bm0, kiln_value *bn0,
                       kiln_value *mb, kiln_value *nb, kiln_value *k0, kiln_value *kb, mm_stage *s) {
  kiln_value *tid = thread_id(b), *ix[5], *r, *c;
  for (int w = 0; w < 2; w++) {
    for (int64_t j = 0; j < st->count[w]; j++) {
      stage_position(b, st, w, tid, j, &r, &c);
      if (w == 0) { /* A: rows m (mb valid), columns k */
        r = minv(b, r, addc(b, mb, -1));
        if (st->clamp_k && e->vecA) c = minv(b, c, addc(b, kb, -4));
      } else { /* B: rows k, columns n (nb valid, a multiple of 4) */
        if (st->clamp_k) r = minv(b, r, addc(b, kb, -1));
        c = minv(b, c, addc(b, nb, -4));
      }
      if (w == 0 && !e->vecA) {
        /* 4 taps that are not contiguous: one scalar load each, a tap
         * past the step clamped to its last (its row is never read) */
        kiln_value *v = NULL;
        kiln_value *gr = add(b, bm0, r), *last = addc(b, kb, -1);
        for (int64_t l = 0; l < 4; l++) {
          kiln_value *kl = minv(b, addc(b, c, l), last);
          uint32_t n = a_at(b, e, ix, gr, add(b, k0, kl));
          kiln_value *x = cg_load(b, e->A, n, ix);
          v = l ? insert(b, x, v, l) : cg_broadcast(b, x, e->v4);
        }
        s->v[w][j] = v;
        continue;
      }
      kiln_value *gr = add(b, w ? k0 : bm0, r), *gc = add(b, w ? bn0 : k0, c);
      uint32_t n = w ? b_at(b, e, ix, gr, gc) : a_at(b, e, ix, gr, gc);
      s->v[w][j] = vload(b, e->v4, w ? e->B : e->A, n, ix, w ? e->alB : e->alA);
    }
  }
}

/* Stores s into the workgroup tiles (A transposed, B as it is). */
static void stage_store(kiln_builder *b, const mm_emit *e, const mm_stage *s) {
  kiln_value *tid = thread_id(b), *sx[2], *r, *c;
  for (int w = 0; w < 2; w++) {
    for (int64_t j = 0; j < s->count[w]; j++) {
      kiln_builder ib = *b;
      if (stage_partial(s, w, j)) {
        kiln_value *g = addc(b, tid, j * s->threads);
        build_if(b, lt(b, g, idx(b, s->groups[w])), false, &ib, NULL);
      }
      stage_position(&ib, s, w, tid, j, &r, &c);
      if (w) {
        sx[0] = e->koff ? add(&ib, r, e->koff) : r, sx[1] = c;
        vstore(&ib, s->v[w][j], e->Bs, 2, sx, true);
        continue;
      }
      for (int64_t k = 0; k < 4; k++) {
        sx[0] = addc(&ib, c, k), sx[1] = r;
        if (e->koff) sx[0] = add(&ib, sx[0], e->koff);
        cg_store(&ib, extract(&ib, s->v[w][j], k), e->As, 2, sx);
      }
    }
  }
}

/* A full thread tile's accumulators: TM x TN/4 vectors when TN % 4 == 0
 * (read and written as vectors when 4 consecutive n are contiguous in C,
 * vecC; lane by lane else), TM x TN scalars otherwise. */
static int64_t acc_count(const mm_config *cf) { return cf->tm * (cf->tn % 4 == 0 ? cf->tn / 4 : cf->tn); }

/* Accumulator j's first element in the thread tile at (row0, col0) of C
 * (block-tile offsets added): row *m, column *nn. */
static void acc_position(kiln_builder *b, const mm_config *cf, kiln_value *row0, kiln_value *col0, int64_t j,
                         kiln_value **m, kiln_value **nn) {
  const bool vec = cf->tn % 4 == 0;
  const int64_t nv = vec ? cf->tn / 4 : cf->tn, i = j / nv, q = j % nv;
  *m = addc(b, row0, i);
  *nn = addc(b, col0, vec ? cf->cq * q : q);
}

/* Reads the thread tile at block-tile position (r0, c0) from C. */
static void acc_load(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0, kiln_value *bn0,
                     kiln_value *r0, kiln_value *c0, kiln_value **acc) {
  const bool vec = cf->tn % 4 == 0, cvec = vec && e->vecC;
  kiln_value *ix[5], *m, *nn;
  kiln_value *row0 = add(b, bm0, r0), *col0 = add(b, bn0, c0);
  for (int64_t j = 0; j < acc_count(cf); j++) {
    acc_position(b, cf, row0, col0, j, &m, &nn);
    uint32_t n = c_at(b, e, ix, m, nn);
    if (cvec || !vec) {
      acc[j] = cvec ? vload(b, e->v4, e->C, n, ix, e->alC) : cg_load(b, e->C, n, ix);
      continue;
    }
    kiln_value *v = cg_broadcast(b, cg_load(b, e->C, n, ix), e->v4);
    for (int64_t l = 1; l < 4; l++) {
      n = c_at(b, e, ix, m, addc(b, nn, l));
      v = insert(b, cg_load(b, e->C, n, ix), v, l);
    }
    acc[j] = v;
  }
}

/* The K step's kb products on the accumulators acc (shared operands read
 * as vectors); out receives the updated ones. */
static void acc_step(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *kb, kiln_value *r0,
                     kiln_value *c0, kiln_value **acc, kiln_value **out) {
  const bool vec = cf->tn % 4 == 0, avec = cf->tm % 4 == 0;
  const int64_t nv = vec ? cf->tn / 4 : cf->tn, tm = cf->tm, nacc = acc_count(cf);
  kiln_value *sx[2];
  kiln_builder kb_;
  kiln_value *zero = idx(b, 0), *one = idx(b, 1);
  kiln_op *kl = cg_for(b, zero, kb, one, (uint32_t)nacc, acc, &kb_);
  kb_.loc = b->loc;
  kiln_value *kk = cg_for_iv(kl), *a[64], *bv[64], *next[256];
  if (e->koff) kk = add(&kb_, kk, e->koff);
  for (int64_t i = 0; i < tm; i += avec ? 4 : 1) {
    sx[0] = kk, sx[1] = addc(&kb_, r0, i);
    if (avec) {
      kiln_value *v = vload(&kb_, e->v4, e->As, 2, sx, true);
      for (int64_t k = 0; k < 4; k++) a[i + k] = extract(&kb_, v, k);
    } else {
      a[i] = cg_load(&kb_, e->As, 2, sx);
    }
  }
  for (int64_t q = 0; q < nv; q++) {
    sx[0] = kk, sx[1] = addc(&kb_, c0, vec ? cf->cq * q : q);
    bv[q] = vec ? vload(&kb_, e->v4, e->Bs, 2, sx, true) : cg_load(&kb_, e->Bs, 2, sx);
  }
  kiln_block *body = kl->regions[0].first;
  for (int64_t i = 0; i < tm; i++) {
    kiln_value *ai = vec ? cg_broadcast(&kb_, a[i], e->v4) : a[i];
    for (int64_t q = 0; q < nv; q++) {
      kiln_value *cur = body->args[1 + i * nv + q];
      if (vec) {
        kiln_value *ops[3] = {ai, bv[q], cur};
        next[i * nv + q] = kiln_op_result(kiln_build(&kb_, KILN_OP_VECTOR_FMA, 3, ops, 1, &e->v4, NULL), 0);
      } else {
        kiln_value *p = cg_bin(&kb_, KILN_OP_ARITH_MULF, ai, bv[q]);
        next[i * nv + q] = cg_bin(&kb_, KILN_OP_ARITH_ADDF, cur, p);
      }
    }
  }
  cg_for_set_yield(kl, (uint32_t)nacc, next);
  for (int64_t j = 0; j < nacc; j++) out[j] = kiln_op_result(kl, (uint32_t)j);
}

/* Writes the accumulators back to the thread tile at (r0, c0) of C. */
static void acc_store(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0, kiln_value *bn0,
                      kiln_value *r0, kiln_value *c0, kiln_value **acc) {
  const bool vec = cf->tn % 4 == 0, cvec = vec && e->vecC;
  kiln_value *ix[5], *m, *nn;
  kiln_value *row0 = add(b, bm0, r0), *col0 = add(b, bn0, c0);
  for (int64_t j = 0; j < acc_count(cf); j++) {
    acc_position(b, cf, row0, col0, j, &m, &nn);
    for (int64_t l = 0; l < (cvec || !vec ? 1 : 4); l++) {
      uint32_t n = c_at(b, e, ix, m, addc(b, nn, l));
      if (cvec) vstore(b, acc[j], e->C, n, ix, e->alC);
      else if (!vec) cg_store(b, acc[j], e->C, n, ix);
      else cg_store(b, extract(b, acc[j], l), e->C, n, ix);
    }
  }
}

/* Vector accumulators as their lanes (lanes 4), or scalars as they are. */
static void flatten(kiln_builder *b, kiln_value **acc, int64_t n, int64_t lanes, kiln_value **out) {
  for (int64_t j = 0; j < n; j++)
    for (int64_t l = 0; l < lanes; l++) out[j * lanes + l] = lanes == 1 ? acc[j] : extract(b, acc[j], l);
}

static void unflatten(kiln_builder *b, const kiln_type *v4, kiln_value *const *flat, int64_t n, int64_t lanes,
                      kiln_value **acc) {
  for (int64_t j = 0; j < n; j++) {
    if (lanes == 1) {
      acc[j] = flat[j];
      continue;
    }
    kiln_value *v = cg_broadcast(b, flat[j * 4], v4);
    for (int64_t l = 1; l < 4; l++) v = insert(b, flat[j * 4 + l], v, l);
    acc[j] = v;
  }
}

/* Step 3, full thread tile at block-tile position (r0, c0): C is the
 * accumulator between K steps. */
static void emit_full_tile(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0,
                           kiln_value *bn0, kiln_value *kb, kiln_value *r0, kiln_value *c0) {
  kiln_value *acc[256], *next[256];
  acc_load(b, e, cf, bm0, bn0, r0, c0, acc);
  acc_step(b, e, cf, kb, r0, c0, acc, next);
  acc_store(b, e, cf, bm0, bn0, r0, c0, next);
}

/* Step 3, partial thread tile: scalar loops over its valid outputs. */
static void emit_partial_tile(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0,
                              kiln_value *bn0, kiln_value *mb, kiln_value *nb, kiln_value *kb,
                              kiln_value *r0, kiln_value *c0) {
  kiln_value *ix[5], *sx[2];
  kiln_builder ib, jb, kb_;
  kiln_op *il = loopc(b, 0, minc(b, cf->tm, sub(b, mb, r0)), 1, &ib);
  kiln_op *jl = loopc(&ib, 0, minc(&ib, cf->tn, sub(&ib, nb, c0)), 1, &jb);
  kiln_value *r = add(&jb, r0, cg_for_iv(il)), *c = add(&jb, c0, cg_for_iv(jl));
  kiln_value *gm = add(&jb, bm0, r), *gn = add(&jb, bn0, c);
  uint32_t n = c_at(&jb, e, ix, gm, gn);
  kiln_value *init = cg_load(&jb, e->C, n, ix);
  kiln_value *zero = idx(&jb, 0), *one = idx(&jb, 1);
  kiln_op *kl = cg_for(&jb, zero, kb, one, 1, &init, &kb_);
  kb_.loc = b->loc;
  kiln_value *kk = cg_for_iv(kl);
  sx[0] = kk, sx[1] = r;
  kiln_value *x = cg_load(&kb_, e->As, 2, sx);
  sx[0] = kk, sx[1] = c;
  kiln_value *y = cg_load(&kb_, e->Bs, 2, sx);
  kiln_value *s = cg_bin(&kb_, KILN_OP_ARITH_ADDF, kl->regions[0].first->args[1],
                         cg_bin(&kb_, KILN_OP_ARITH_MULF, x, y));
  cg_for_set_yield(kl, 1, &s);
  cg_store(&jb, kiln_op_result(kl, 0), e->C, n, ix);
}

static void emit_compute(kiln_builder *b, const mm_emit *e, const mm_config *cf, kiln_value *bm0,
                         kiln_value *bn0, kiln_value *mb, kiln_value *nb, kiln_value *kb) {
  const int64_t tx = (cf->bn + cf->tn - 1) / cf->tn, ty = (cf->bm + cf->tm - 1) / cf->tm;
  kiln_value *tid = thread_id(b), *nthr = block_threads(b);
  kiln_builder lb;
  kiln_op *l = loop(b, tid, idx(b, tx * ty), nthr, &lb);
  kiln_value *t = cg_for_iv(l);
  kiln_value *r0 = cg_muli(&lb, cg_bin(&lb, KILN_OP_ARITH_DIVSI, t, idx(&lb, tx)), cf->tm);
  kiln_value *c0 = cg_muli(&lb, cg_bin(&lb, KILN_OP_ARITH_REMSI, t, idx(&lb, tx)), cf->tn);
  kiln_value *rows_in = le(&lb, addc(&lb, r0, cf->tm), mb);
  kiln_value *full = and_(&lb, rows_in, le(&lb, addc(&lb, c0, cf->tn), nb));
  kiln_builder fb, pb;
  build_if(&lb, full, true, &fb, &pb);
  emit_full_tile(&fb, e, cf, bm0, bn0, kb, r0, c0);
  emit_partial_tile(&pb, e, cf, bm0, bn0, mb, nb, kb, r0, c0);
}

static bool is_f32_memref(const kiln_value *v, uint32_t rank) {
  return v->type->kind == KILN_TYPE_MEMREF && v->type->rank == rank && v->type->elem->kind == KILN_TYPE_F32;
}

/* Is e exactly d_l (coefficient 1, nothing else)? */
static bool is_dim(const kiln_affine_expr *e, int loops, int l) {
  int64_t co[KILN_MAX_LOOPS] = {0}, cst = 0;
  if (!cg_linear_expr(e, loops, co, &cst) || cst) return false;
  for (int i = 0; i < loops; i++)
    if (co[i] != (i == l)) return false;
  return true;
}

/* Is e exactly d_o * s + d_k * d with s, d > 0 (and nothing else)? */
static bool window_expr(const kiln_affine_expr *e, int loops, int o, int k, int64_t *s, int64_t *d) {
  int64_t co[KILN_MAX_LOOPS] = {0}, cst = 0;
  if (!cg_linear_expr(e, loops, co, &cst) || cst) return false;
  for (int i = 0; i < loops; i++)
    if (i != o && i != k && co[i]) return false;
  *s = co[o], *d = co[k];
  return *s > 0 && *d > 0;
}

gpu_conv_layout gpu_match_conv(const kiln_op *op, int64_t *sh, int64_t *sw, int64_t *dh, int64_t *dw) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  if (op->num_operands != 3) return GPU_CONV_NONE;
  int n = cg_iteration(op, maps, red);
  if (op->kind == KILN_OP_LINALG_CONV_2D_NHWC_HWCF || op->kind == KILN_OP_LINALG_CONV_2D_NCHW_FCHW) {
    /* n h w c / n c h w: the window at results 1, 2 / 2, 3 over loops
     * (1, 4), (2, 5) / (2, 5), (3, 6) */
    const int o = op->kind == KILN_OP_LINALG_CONV_2D_NCHW_FCHW;
    if (n != 7 || maps[0]->num_results != 4 ||
        !window_expr(maps[0]->results[1 + o], 7, 1 + o, 4 + o, sh, dh) ||
        !window_expr(maps[0]->results[2 + o], 7, 2 + o, 5 + o, sw, dw))
      return GPU_CONV_NONE;
    return o ? GPU_CONV_NCHW : GPU_CONV_NHWC;
  }
  /* The ONNX importer's Conv: a multiply-accumulate linalg.generic over
   * (n, g, m, oh, ow | c, kh, kw) with X[n][g][c][oh*sh + kh*dh][ow*sw +
   * kw*dw], W[g][m][c][kh][kw], out[n][g][m][oh][ow]. */
  cg_igemm g;
  if (op->kind != KILN_OP_LINALG_GENERIC || n != 8 || !cg_igemm_match(op, &g) || g.x != 0 || g.w != 1 ||
      g.out != 2)
    return GPU_CONV_NONE;
  for (int l = 0; l < 8; l++)
    if (red[l] != (l >= 5)) return GPU_CONV_NONE;
  static const int wloops[5] = {1, 2, 5, 6, 7};
  for (uint32_t i = 0; i < 3; i++)
    if (maps[i]->num_results != 5) return GPU_CONV_NONE;
  for (int r = 0; r < 5; r++)
    if (!is_dim(maps[1]->results[r], 8, wloops[r]) || !is_dim(maps[2]->results[r], 8, r))
      return GPU_CONV_NONE;
  if (!is_dim(maps[0]->results[0], 8, 0) || !is_dim(maps[0]->results[1], 8, 1) ||
      !is_dim(maps[0]->results[2], 8, 5) || !window_expr(maps[0]->results[3], 8, 3, 6, sh, dh) ||
      !window_expr(maps[0]->results[4], 8, 4, 7, sw, dw))
    return GPU_CONV_NONE;
  return GPU_CONV_GROUPED;
}

/* The operands of a supported op (A, B, C), or false: f32 matmul,
 * batch_matmul, or a convolution (gpu_match_conv) with a static filter
 * (nhwc: KH, KW, C; nchw: C, KH, KW; grouped: C/G, KH, KW; the output
 * channel count may be dynamic). */
static bool candidate(kiln_op *op, kiln_value **abc) {
  uint32_t rank;
  int64_t sh, sw, dh, dw;
  const gpu_conv_layout lay = gpu_match_conv(op, &sh, &sw, &dh, &dw);
  if (op->kind == KILN_OP_LINALG_MATMUL) rank = 2;
  else if (op->kind == KILN_OP_LINALG_BATCH_MATMUL) rank = 3;
  else if (lay == GPU_CONV_NHWC || lay == GPU_CONV_NCHW) rank = 4;
  else if (lay == GPU_CONV_GROUPED) rank = 5;
  else return false;
  if (op->num_operands != 3 || op->num_results || kiln_op_get_attr(op, "cast")) return false;
  for (uint32_t i = 0; i < 3; i++) {
    abc[i] = kiln_op_operand(op, i);
    if (!is_f32_memref(abc[i], rank)) return false;
    int64_t st[KILN_MAX_LOOPS], off;
    if (!kiln_memref_strides(abc[i]->type, st, &off)) return false;
  }
  if (lay != GPU_CONV_NONE) {
    const uint32_t first = lay == GPU_CONV_NHWC ? 0 : lay == GPU_CONV_NCHW ? 1 : 2;
    for (uint32_t d = first; d < first + 3; d++)
      if (abc[1]->type->shape[d] == KILN_DYNAMIC) return false;
    return true;
  }
  /* K must be static (the K loop's bounds are uniform constants). */
  return abc[0]->type->shape[rank - 1] != KILN_DYNAMIC;
}

static kiln_value *alloca3(kiln_builder *b, int64_t rows, int64_t cols, const kiln_type *f32) {
  kiln_context *c = b->ctx;
  int64_t shape[2] = {rows, cols}, seg[2] = {0, 0};
  const kiln_type *t = kiln_type_memref(c, 2, shape, f32, NULL, kiln_attr_int(c, kiln_type_int(c, 64), 3));
  kiln_named_attr na[3] = {
      {"alignment", kiln_attr_int(c, kiln_type_int(c, 64), 16)},
      {GPU_DISTRIBUTED, kiln_attr_unit(c)},
      {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 2, seg, NULL)}};
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &t, kiln_attr_dict(c, 3, na)), 0);
}

/* The register path of a block tile (bm0, bn0; mb x nb valid) when the
 * launched block size is the configured T: thread t < TX*TY owns thread
 * tile t (rows TM*(t/TX), columns TN*(t%TX)); other threads stage
 * operands and compute a copy of tile t % (TX*TY) that they do not
 * store. The accumulators start at zero and live in registers across
 * the K steps (scalar iter_args: SIMT-on-CPU keeps per-thread slots of
 * scalars only); C += them once at the end, with vector accesses for a
 * whole thread tile inside the block's valid part and element by element
 * guarded otherwise. Each step's staged loads for the next step (the
 * last step reloads its own tile, so every address stays in bounds) are
 * issued before this step's FMAs, so their latency hides behind the FMAs
 * (on an H200, 4096^3: 4.05 ms, against 4.69 ms loading each step's
 * tiles at its start and 6.16 ms for the looped loads before; bench/gpu),
 * and stored into the other workgroup tile after them (two_buffer_loop);
 * where the kernel's tiles hold one step (an earlier op of the kernel
 * took another path), they are carried to the next iteration as scalars
 * and stored there between two barriers. */
/* The register path's K loop with two workgroup tiles (st->two: the
 * allocas hold 2 x BK rows): step 0 is stored into the first before the
 * loop; each step then issues the next step's global loads, runs its
 * FMAs on the tile of its parity and stores the loads into the other
 * tile, with one barrier per step instead of two (the other tile was last
 * read before the previous step's barrier). acc: the accumulators'
 * scalars (init), out: their final values. */
static void two_buffer_loop(kiln_builder *b, mm_emit *e, const mm_config *cf, int64_t K, int64_t klast,
                            kiln_value *bm0, kiln_value *bn0, kiln_value *mb, kiln_value *nb, mm_stage *st,
                            kiln_value *r0, kiln_value *c0, kiln_value **init, kiln_value **out) {
  const int64_t nacc = acc_count(cf), lanes = cf->tn % 4 == 0 ? 4 : 1, nflat = nacc * lanes;
  e->koff = idx(b, 0);
  stage_store(b, e, st);
  kiln_build(b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  kiln_builder lb;
  kiln_value *lo = idx(b, 0), *hi = idx(b, K), *step = idx(b, cf->bk);
  kiln_op *kl = cg_for(b, lo, hi, step, (uint32_t)nflat, init, &lb);
  lb.loc = b->loc;
  kiln_value *k0 = cg_for_iv(kl), **args = kl->regions[0].first->args + 1;
  kiln_value *kb = st->clamp_k ? minc(&lb, cf->bk, sub(&lb, idx(&lb, K), k0)) : idx(&lb, cf->bk);
  /* this step's tile starts at row (k0 / BK) % 2 * BK, the other at BK minus that */
  kiln_value *par = remv(&lb, divv(&lb, k0, idx(&lb, cf->bk)), idx(&lb, 2));
  kiln_value *cur = cg_muli(&lb, par, cf->bk);
  kiln_value *oth = sub(&lb, idx(&lb, cf->bk), cur);
  mm_stage ahead = *st;
  kiln_value *kn = minc(&lb, klast, addc(&lb, k0, cf->bk));
  kiln_value *kbn = st->clamp_k ? minc(&lb, cf->bk, sub(&lb, idx(&lb, K), kn)) : idx(&lb, cf->bk);
  stage_load(&lb, e, st, bm0, bn0, mb, nb, kn, kbn, &ahead);
  kiln_value *acc[256], *next[256], *res[1024];
  unflatten(&lb, e->v4, args, nacc, lanes, acc);
  e->koff = cur;
  acc_step(&lb, e, cf, kb, r0, c0, acc, next);
  e->koff = oth;
  stage_store(&lb, e, &ahead);
  flatten(&lb, next, nacc, lanes, res); /* scalars cross the barrier */
  kiln_build(&lb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  cg_for_set_yield(kl, (uint32_t)nflat, res);
  for (int64_t j = 0; j < nflat; j++) out[j] = kiln_op_result(kl, (uint32_t)j);
  e->koff = NULL;
}

static void emit_register_tile(kiln_builder *b, mm_emit *e, const mm_config *cf_in, int64_t K,
                               kiln_value *bm0, kiln_value *bn0, kiln_value *mb, kiln_value *nb, mm_stage *st) {
  const int64_t tx = (cf_in->bn + cf_in->tn - 1) / cf_in->tn, ty = (cf_in->bm + cf_in->tm - 1) / cf_in->tm;
  const int64_t tiles = tx * ty;
  /* A thread tile's 4-wide column chunks interleave with its row
   * neighbours' (chunk q of thread column x at 4 x + 4 tx q, not TN x +
   * 4 q): the lanes of a warp then read B's row of the shared tile and
   * write C as consecutive 16-byte chunks, where chunks TN floats apart
   * put two lanes on the same shared-memory banks (a 2-way conflict on
   * every B read; ncu: the 4096^3 matmul at 92% of L1/shared throughput). */
  mm_config rc = *cf_in;
  const mm_config *cf = &rc;
  if (rc.tn % 4 == 0 && rc.tn > 4) rc.cq = 4 * tx;
  const int64_t chunk = rc.tn % 4 == 0 ? 4 : rc.tn; /* contiguous columns */
  const int64_t nacc = acc_count(cf), lanes = cf->tn % 4 == 0 ? 4 : 1, nflat = nacc * lanes;
  const int64_t nst = 4 * (st->count[0] + st->count[1]), klast = (K - 1) / cf->bk * cf->bk;
  kiln_value *tid = thread_id(b);
  kiln_value *t = tiles < st->threads ? cg_bin(b, KILN_OP_ARITH_REMSI, tid, idx(b, tiles)) : tid;
  kiln_value *r0 = cg_muli(b, cg_bin(b, KILN_OP_ARITH_DIVSI, t, idx(b, tx)), cf->tm);
  kiln_value *c0 = cg_muli(b, cg_bin(b, KILN_OP_ARITH_REMSI, t, idx(b, tx)), rc.cq == 4 ? cf->tn : chunk);
  kiln_value *init[1024 + 128], *acc[256], *next[256], *out[1024 + 128];
  kiln_value *zero = cg_const_like(b, e->f32, 0.0, 0);
  for (int64_t j = 0; j < nflat; j++) init[j] = zero;
  kiln_value *first = idx(b, 0), *first_kb = idx(b, K < cf->bk ? K : cf->bk);
  stage_load(b, e, st, bm0, bn0, mb, nb, first, first_kb, st);
  kiln_value *flat[1024];
  if (st->two) {
    two_buffer_loop(b, e, cf, K, klast, bm0, bn0, mb, nb, st, r0, c0, init, flat);
  } else {
  flatten(b, st->v[0], st->count[0], 4, init + nflat);
  flatten(b, st->v[1], st->count[1], 4, init + nflat + 4 * st->count[0]);
  const uint32_t carried = (uint32_t)(nflat + nst);
  kiln_builder lb;
  kiln_value *lo = idx(b, 0), *hi = idx(b, K), *step = idx(b, cf->bk);
  kiln_op *kl = cg_for(b, lo, hi, step, carried, init, &lb);
  lb.loc = b->loc;
  kiln_value *k0 = cg_for_iv(kl), **args = kl->regions[0].first->args + 1;
  kiln_value *kb = st->clamp_k ? minc(&lb, cf->bk, sub(&lb, idx(&lb, K), k0)) : idx(&lb, cf->bk);
  unflatten(&lb, e->v4, args + nflat, st->count[0], 4, st->v[0]);
  unflatten(&lb, e->v4, args + nflat + 4 * st->count[0], st->count[1], 4, st->v[1]);
  stage_store(&lb, e, st);
  kiln_build(&lb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  mm_stage ahead = *st;
  kiln_value *kn = minc(&lb, klast, addc(&lb, k0, cf->bk));
  kiln_value *kbn = st->clamp_k ? minc(&lb, cf->bk, sub(&lb, idx(&lb, K), kn)) : idx(&lb, cf->bk);
  stage_load(&lb, e, st, bm0, bn0, mb, nb, kn, kbn, &ahead);
  unflatten(&lb, e->v4, args, nacc, lanes, acc);
  acc_step(&lb, e, cf, kb, r0, c0, acc, next);
  flatten(&lb, next, nacc, lanes, out); /* scalars cross the barrier */
  flatten(&lb, ahead.v[0], ahead.count[0], 4, out + nflat);
  flatten(&lb, ahead.v[1], ahead.count[1], 4, out + nflat + 4 * ahead.count[0]);
  kiln_build(&lb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  cg_for_set_yield(kl, carried, out);
  for (int64_t j = 0; j < nflat; j++) flat[j] = kiln_op_result(kl, (uint32_t)j);
  }
  /* C += the accumulators */
  kiln_value *me = thread_id(b);
  /* the tile's last column + 1: its last chunk's end */
  const int64_t span = rc.cq == 4 ? cf->tn : rc.cq * (cf->tn / 4 - 1) + 4;
  kiln_value *rows_in = le(b, addc(b, r0, cf->tm), mb), *cols_in = le(b, addc(b, c0, span), nb);
  kiln_value *whole = and_(b, rows_in, cols_in);
  if (tiles < st->threads) whole = and_(b, whole, lt(b, me, idx(b, tiles)));
  kiln_builder wb, pb;
  build_if(b, whole, true, &wb, &pb);
  const bool cvec = lanes == 4 && e->vecC;
  kiln_value *ix[5], *m, *nn;
  kiln_value *row0 = add(&wb, bm0, r0), *col0 = add(&wb, bn0, c0);
  unflatten(&wb, e->v4, flat, nacc, lanes, acc);
  for (int64_t j = 0; j < nacc; j++) {
    acc_position(&wb, cf, row0, col0, j, &m, &nn);
    if (cvec) {
      uint32_t n = c_at(&wb, e, ix, m, nn);
      kiln_value *old = vload(&wb, e->v4, e->C, n, ix, e->alC);
      vstore(&wb, cg_bin(&wb, KILN_OP_ARITH_ADDF, old, acc[j]), e->C, n, ix, e->alC);
      continue;
    }
    for (int64_t l = 0; l < lanes; l++) {
      uint32_t n = c_at(&wb, e, ix, m, addc(&wb, nn, l));
      kiln_value *old = cg_load(&wb, e->C, n, ix);
      cg_store(&wb, cg_bin(&wb, KILN_OP_ARITH_ADDF, old, flat[j * lanes + l]), e->C, n, ix);
    }
  }
  /* a thread tile across the block's edge: element by element */
  kiln_value *mine = NULL;
  if (tiles < st->threads) {
    kiln_value *t_now = thread_id(&pb);
    mine = lt(&pb, t_now, idx(&pb, tiles));
  }
  for (int64_t i = 0; i < cf->tm; i++) {
    for (int64_t c = 0; c < cf->tn; c++) {
      const int64_t j = lanes == 4 ? (i * (cf->tn / 4) + c / 4) * 4 + c % 4 : i * cf->tn + c;
      kiln_value *r = addc(&pb, r0, i), *cc = addc(&pb, c0, lanes == 4 ? rc.cq * (c / 4) + c % 4 : c);
      kiln_value *r_in = lt(&pb, r, mb);
      kiln_value *ok = and_(&pb, r_in, lt(&pb, cc, nb));
      if (mine) ok = and_(&pb, ok, mine);
      kiln_builder ib;
      build_if(&pb, ok, false, &ib, NULL);
      kiln_value *gm = add(&ib, bm0, r), *gn = add(&ib, bn0, cc);
      uint32_t n = c_at(&ib, e, ix, gm, gn);
      kiln_value *old = cg_load(&ib, e->C, n, ix);
      cg_store(&ib, cg_bin(&ib, KILN_OP_ARITH_ADDF, old, flat[j]), e->C, n, ix);
    }
  }
}

/* Blocks of this many threads or more (sm_90's 128 x 128 matmul blocks)
 * take the register path's two workgroup tiles: there ptxas fits the
 * 8 x 8 thread tiles in 128 registers (2 blocks per SM; 137 with one
 * tile: 1 block), and the 4096^3 matmul ran 3.28 ms against 3.55 ms for
 * the 128 x 64 blocks. With 128 threads two tiles measured slower on an
 * H200 (the 4096^3 matmul 3.55 -> 3.61 ms at 155 registers, ResNet-18
 * batch 8 2.66 -> 2.78 ms; bench/gpu), so smaller blocks keep one. */
#define GPU_TWO_TILE_THREADS 256

static kiln_error *tile_matmul(kiln_op *func, kiln_op *op, kiln_value **abc, const mm_config *cf,
                               kiln_value **tiles) {
  kiln_context *c = kiln_op_context(op);
  mm_emit e;
  memset(&e, 0, sizeof e);
  e.f32 = kiln_type_f32(c);
  int64_t four = 4;
  e.v4 = kiln_type_vector(c, 1, &four, e.f32);
  int64_t sh, sw, dh, dw;
  const gpu_conv_layout lay = gpu_match_conv(op, &sh, &sw, &dh, &dw);
  const bool grouped = lay == GPU_CONV_GROUPED;
  e.nchw = lay == GPU_CONV_NCHW || grouped;
  e.sh = sh, e.sw = sw, e.dh = dh, e.dw = dw;
  /* nchw: 4 consecutive output pixels are one row's (and 4-aligned) only
   * when the output tile's width is a multiple of 4 and the block and
   * thread tiles keep group starts at multiples of 4. */
  const uint32_t wdim = grouped ? 4 : 3; /* the output's width in NCHW (or grouped) order */
  const int64_t tw = e.nchw && abc[2]->type->rank > wdim ? abc[2]->type->shape[wdim] : KILN_DYNAMIC;
  e.vecC = !e.nchw || (tw != KILN_DYNAMIC && tw % 4 == 0 && cf->bn % 4 == 0);
  e.A = abc[0], e.B = abc[1], e.C = abc[2];
  e.conv = lay == GPU_CONV_NHWC;
  const bool batch = op->kind == KILN_OP_LINALG_BATCH_MATMUL;
  const uint32_t mr = batch ? 1 : 0;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *M, *N;
  int64_t K;
  if (e.nchw) {
    /* implicit GEMM per batch: M = F', N = OH' * OW' output pixels
     * (contiguous in the output), K = C * KH * KW (contiguous in the
     * filter) */
    e.A = abc[1], e.B = abc[0]; /* A = the filter, B = the input */
    const uint32_t g = grouped; /* the group dim before f in W and out */
    const int64_t *fs = e.A->type->shape + g;
    e.cin = fs[3], e.kwc = fs[2] * fs[3], K = fs[1] * fs[2] * fs[3];
    e.ow = cg_dim(&b, e.C, 3 + g);
    M = cg_dim(&b, e.C, 1 + g), N = cg_mul(&b, cg_dim(&b, e.C, 2 + g), e.ow);
  } else if (e.conv) {
    /* implicit GEMM: M = N' * OH' * OW' output pixels, N = F', K = KH * KW * C */
    const int64_t *fs = e.B->type->shape;
    e.cin = fs[2], e.kwc = fs[1] * fs[2], K = fs[0] * fs[1] * fs[2];
    e.ow = cg_dim(&b, e.C, 2);
    e.ohw = cg_mul(&b, cg_dim(&b, e.C, 1), e.ow);
    M = cg_mul(&b, cg_dim(&b, e.C, 0), e.ohw), N = cg_dim(&b, e.C, 3);
  } else {
    K = e.A->type->shape[mr + 1];
    M = cg_dim(&b, e.C, mr), N = cg_dim(&b, e.C, mr + 1);
  }
  /* 4 consecutive k stay in one filter row (nhwc: channels; nchw: kw) */
  e.vecA = !(e.conv || e.nchw) || (e.cin % 4 == 0 && (cf->bk % 4 == 0 || cf->bk >= K));
  /* nchw B: 4 consecutive pixels are 4 consecutive input elements only
   * for a 1x1 filter at stride 1 with whole 4-aligned groups in a row */
  e.vecB = !e.nchw || (e.kwc == 1 && e.sh == 1 && e.sw == 1 && e.vecC);
  e.alA = e.vecA && cf->bk % 4 == 0 && aligned4(e.A, 0);
  e.alB = e.vecB && cf->bn % 4 == 0 && aligned4(e.B, 0);
  e.alC = e.vecC && cf->bn % 4 == 0 && cf->tn % 4 == 0 && aligned4(e.C, 0);
  kiln_builder in = b;
  kiln_op *outer = NULL;
  if (batch || e.nchw) {
    outer = loopc(&in, 0, cg_dim(&in, e.C, 0), 1, &in);
    e.bi = cg_for_iv(outer);
  }
  if (grouped) e.gi = cg_for_iv(loopc(&in, 0, cg_dim(&in, e.C, 1), 1, &in));
  kiln_op *ml = loopc(&in, 0, M, cf->bm, &in);
  if (!outer) outer = ml;
  kiln_value *bm0 = cg_for_iv(ml);
  kiln_op *nl = loopc(&in, 0, N, cf->bn, &in);
  kiln_value *bn0 = cg_for_iv(nl);
  kiln_value *mb = minc(&in, cf->bm, sub(&in, M, bm0));
  kiln_value *nb = minc(&in, cf->bn, sub(&in, N, bn0));
  /* Launched with the configured block size, every block tile takes the
   * register path (emit_register_tile) where its operands stage as
   * groups of 4 (stage_fits); else a full block tile with one thread
   * tile per launched thread keeps its accumulators in registers across
   * the K steps (iter_args of the K loop; SIMT-on-CPU keeps them in
   * per-thread slots), C read once before and written once after. Other
   * blocks (edges, other block sizes) accumulate in C per step. */
  const int64_t tx = (cf->bn + cf->tn - 1) / cf->tn, ty = (cf->bm + cf->tm - 1) / cf->tm;
  kiln_value *nthr = block_threads(&in);
  kiln_builder fb, sb;
  mm_stage stage;
  const bool regs = stage_fits(&e, cf, K, gpu_block_threads(func), &stage);
  if (!tiles[0]) {
    kiln_builder eb = kiln_builder_before(func->regions[0].first->first);
    eb.loc = op->loc;
    /* rows and columns up to the thread-tile grid's (TM * TY >= BM):
     * the register path's thread tiles across the block's edge read
     * them (their outputs are discarded); two K steps' rows for the
     * register path's two tiles in blocks of GPU_TWO_TILE_THREADS */
    const int64_t gm = (cf->bm + cf->tm - 1) / cf->tm * cf->tm, gn = (cf->bn + cf->tn - 1) / cf->tn * cf->tn;
    const int64_t rows = regs && stage.threads >= GPU_TWO_TILE_THREADS ? 2 * cf->bk : cf->bk;
    tiles[0] = alloca3(&eb, rows, round4(gm), e.f32);
    tiles[1] = alloca3(&eb, rows, round4(gn), e.f32);
  }
  e.As = tiles[0], e.Bs = tiles[1];
  if (regs) {
    stage.two = tiles[0]->type->shape[0] == 2 * cf->bk;
    /* (B's groups of 4 columns must not straddle the block's last one) */
    kiln_value *configured = cg_cmpi(&in, CG_EQ, nthr, idx(&in, stage.threads));
    kiln_value *zero = idx(&in, 0);
    kiln_value *rem4 = remv(&in, nb, idx(&in, 4));
    kiln_value *whole_groups = cg_cmpi(&in, CG_EQ, rem4, zero);
    build_if(&in, and_(&in, configured, whole_groups), true, &fb, &sb);
    emit_register_tile(&fb, &e, cf, K, bm0, bn0, mb, nb, &stage);
  } else {
    kiln_value *full_m = cg_cmpi(&in, CG_EQ, mb, idx(&in, cf->bm));
    kiln_value *full_n = cg_cmpi(&in, CG_EQ, nb, idx(&in, cf->bn));
    kiln_value *one_each = cg_cmpi(&in, CG_EQ, nthr, idx(&in, tx * ty));
    kiln_value *fast = and_(&in, and_(&in, full_m, full_n), one_each);
    build_if(&in, fast, true, &fb, &sb);
    kiln_value *t = thread_id(&fb);
    kiln_value *r0 = cg_muli(&fb, cg_bin(&fb, KILN_OP_ARITH_DIVSI, t, idx(&fb, tx)), cf->tm);
    kiln_value *c0 = cg_muli(&fb, cg_bin(&fb, KILN_OP_ARITH_REMSI, t, idx(&fb, tx)), cf->tn);
    /* The loop carries scalars (SIMT-on-CPU keeps per-thread slots of
     * scalars only): each vector accumulator as its 4 lanes. */
    const int64_t nacc = acc_count(cf), lanes = cf->tn % 4 == 0 ? 4 : 1;
    kiln_value *acc[256], *next[256], *flat[1024];
    acc_load(&fb, &e, cf, bm0, bn0, r0, c0, acc);
    flatten(&fb, acc, nacc, lanes, flat);
    kiln_builder lb;
    kiln_value *lo = idx(&fb, 0), *hi = idx(&fb, K), *st = idx(&fb, cf->bk);
    kiln_op *kl = cg_for(&fb, lo, hi, st, (uint32_t)(nacc * lanes), flat, &lb);
    lb.loc = fb.loc;
    kiln_value *k0 = cg_for_iv(kl);
    kiln_value *kb = minc(&lb, cf->bk, sub(&lb, idx(&lb, K), k0));
    emit_loads(&lb, &e, cf, bm0, bn0, k0, mb, nb, kb);
    kiln_build(&lb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
    unflatten(&lb, e.v4, kl->regions[0].first->args + 1, nacc, lanes, acc);
    acc_step(&lb, &e, cf, kb, r0, c0, acc, next);
    flatten(&lb, next, nacc, lanes, flat); /* scalars cross the barrier */
    kiln_build(&lb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
    cg_for_set_yield(kl, (uint32_t)(nacc * lanes), flat);
    for (int64_t j = 0; j < nacc * lanes; j++) flat[j] = kiln_op_result(kl, (uint32_t)j);
    unflatten(&fb, e.v4, flat, nacc, lanes, acc);
    acc_store(&fb, &e, cf, bm0, bn0, r0, c0, acc);
  }
  kiln_op *kl = loopc(&sb, 0, idx(&sb, K), cf->bk, &sb);
  kiln_value *k0 = cg_for_iv(kl);
  kiln_value *kb = minc(&sb, cf->bk, sub(&sb, idx(&sb, K), k0));
  emit_loads(&sb, &e, cf, bm0, bn0, k0, mb, nb, kb);
  kiln_build(&sb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  emit_compute(&sb, &e, cf, bm0, bn0, mb, nb, kb);
  kiln_build(&sb, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  kiln_op_set_attr(outer, GPU_DISTRIBUTED, kiln_attr_unit(c));
  kiln_op_erase(op);
  return NULL;
}

kiln_error *kiln_codegen_gpu_tile_matmul_shared(kiln_op *inner, void *user) {
  (void)user;
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    mm_config cf;
    if (!gpu_is_kernel(f) || !read_config(f, &cf) || gpu_has_private_scratch(f)) continue;
    /* Accumulators: TM x TN/4 vectors (TM x TN scalars when TN % 4 != 0). */
    const int64_t nv = cf.tn % 4 == 0 ? cf.tn / 4 : cf.tn;
    if (cf.tm > 64 || nv > 64 || cf.tm * nv > 256)
      return kiln_op_error(f, "gpu-tile-matmul-shared: thread tile %lldx%lld needs more than 256 accumulators",
                           (long long)cf.tm, (long long)cf.tn);
    kiln_value *tiles[2] = {NULL, NULL};
    for (kiln_op *o = f->regions[0].first->first, *next; o; o = next) {
      next = o->next;
      kiln_value *abc[3];
      kiln_error *err = candidate(o, abc) ? tile_matmul(f, o, abc, &cf, tiles) : NULL;
      if (err) return err;
    }
  }
  return NULL;
}
