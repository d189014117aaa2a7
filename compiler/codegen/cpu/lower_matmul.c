/* The matmul path of lower-to-loops: a linalg.matmul on f32 memrefs of
 * static N (K may be known at run time only: attention's
 * probabilities x V over a dynamic sequence; M too: the partial row tile
 * of a dynamic batch or sequence, emit_rows) whose B and C rows are
 * contiguous becomes a register-blocked loop nest:
 *   for i0 in 0..M step MR, j0 in 0..N step NR*VW:
 *     acc[r][c] = vector.load C[i0+r, j0+c*VW]          (MR x NR vectors)
 *     for k in 0..K (acc carried in iter_args, i.e. registers):
 *       b[c] = vector.load B[k, j0+c*VW]
 *       acc[r][c] = vector.fma(broadcast(A[i0+r, k]), b[c], acc[r][c])
 *     vector.store acc -> C
 * emit_register_tile drives the shared microkernel (microkernel.c). When
 * K has a divisor KC in 64..256, B is packed per (j0, K block) into a
 * contiguous KC x NR*VW panel (one memref.alloca at the kernel's entry)
 * that the microkernel streams for every row block of the tile: B's rows
 * lie a power-of-two stride apart and would alias in the caches; a
 * run-time K is not packed (no divisor to block by). A constant B (the
 * weights of a Linear/Gemm) is packed once, at compile time, instead:
 * stored in column blocks of the workgroup tile's width (prepack.c), its
 * tile is contiguous and is read in place, K-blocked the same way, with
 * no copy per call. Packing A, larger
 * register tiles and cache-level blocking fit the same shape. MR, NR
 * divide the tile (chosen so); the accumulators take half the target's
 * vector registers (cpu_accumulators: 16 of 32 zmm or NEON v, 8 of 16
 * ymm/xmm or RVV LMUL-2 groups). A batch_matmul tile of one batch
 * is the matmul of its 2-D views. Anything else (other types, strided
 * rows, a run-time N) takes the generic path. A streamed matmul (at most
 * 4 rows, B past the pre-packing cap: cg_streamed_matmul) is no register
 * tile but B read row by row into C (lower_streamed). */
#include "cpu_internal.h"

#include <string.h>

/* acc[r][q] += A[i0+r, ak+k] * Bm[bk+k, bc+q*VW] for k < K, with C's
 * MR x NR vectors at (i0, j0) loaded before and stored after: the shared
 * microkernel (microkernel.c) over plain 2-D memrefs. */
typedef struct mm_tile {
  kiln_value *A, *ak, *Bm, *bk, *C;
  kiln_value *init;       /* the fused fill's value, or NULL: C is loaded */
  kiln_value *first;      /* i1: this K block is the first (init, not C), or NULL: always */
  const cpu_epilogue *epi; /* applied before the store (the last K block), or NULL */
  kiln_value *rows[9], *cols[CPU_UK_MAX_NR], *bcols[CPU_UK_MAX_NR];
  kiln_value *ka, *kb; /* this iteration's A column and B row */
  const kiln_type *vt;
  const kiln_type *va, *vb; /* int8: vector<4xi8> of A, vector<4*VW x i8> of B; else NULL */
  /* int8 with unsigned A (vpdpbusd): A's rows are read xor 0x80
   * (sext(a) + 128, unsigned, as dot4 takes them), so each sum exceeds
   * linalg.matmul's signed product by 128 times B's column sum; those
   * corrections were computed at compile time, stored as i32 in the
   * packed B's row srow (pack_groups), and are subtracted from the
   * accumulators' start (sums_at_init) or else before the store. NULL
   * (signed_a): no correction. */
  kiln_value *x80, *srow;
  /* int8 with a fused fill and no K blocks: the accumulators start at the
   * fill's value plus the epilogue's per-column i32 addend (fold, its
   * input fold_in, the epilogue reading zeros there instead) and less the
   * column sums (sums_at_init), so neither costs an op per output
   * vector. */
  kiln_value *fold;
  uint32_t fold_in;
  bool sums_at_init;
} mm_tile;

static void mm_k_begin(kiln_builder *b, void *u, kiln_value *const *k) {
  mm_tile *t = u;
  t->kb = cg_add(b, t->bk, k[0]);
  /* int8: k counts groups of 4 K (B's rows), A's column is 4 k */
  t->ka = cg_add(b, t->ak, t->va ? cg_bin(b, KILN_OP_ARITH_MULI, k[0], cg_index(b, 4)) : k[0]);
}

static kiln_value *mm_load_a(kiln_builder *b, void *u, int r, kiln_value *const *k) {
  mm_tile *t = u;
  (void)k;
  kiln_value *ix[2] = {t->rows[r], t->ka};
  if (!t->va) return cg_load(b, t->A, 2, ix);
  if (!t->x80) return cg_vload(b, t->va, t->A, 2, ix);
  return cg_bin(b, KILN_OP_ARITH_XORI, cg_vload(b, t->va, t->A, 2, ix), t->x80);
}

static kiln_value *mm_load_b(kiln_builder *b, void *u, int q, kiln_value *const *k) {
  mm_tile *t = u;
  (void)k;
  kiln_value *ix[2] = {t->kb, t->bcols[q]};
  return cg_vload(b, t->vb ? t->vb : t->vt, t->Bm, 2, ix);
}

/* The column sums' VW i32 lanes of column vector q, packed as 4 VW bytes. */
static kiln_value *column_sums(kiln_builder *b, mm_tile *t, int q) {
  kiln_value *sx[2] = {t->srow, t->bcols[q]};
  kiln_value *cs = cg_vload(b, t->vb, t->Bm, 2, sx);
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_BITCAST, 1, &cs, 1, &t->vt, NULL), 0);
}

static kiln_value *mm_load_c(kiln_builder *b, void *u, int r, int q) {
  mm_tile *t = u;
  kiln_value *ix[2] = {t->rows[r], t->cols[q]};
  if (!t->init) return cg_vload(b, t->vt, t->C, 2, ix);
  kiln_value *v = cg_broadcast(b, t->init, t->vt);
  if (t->fold) {
    const cpu_epilogue *e = t->epi;
    kiln_value *fx[KILN_MAX_LOOPS];
    uint32_t n = e->maps[t->fold_in]->num_results;
    for (uint32_t i = 0; i < n; i++) fx[i] = cg_affine_value(b, e->maps[t->fold_in]->results[i], ix);
    kiln_value *add = cg_vload(b, t->vt, t->fold, n, fx);
    v = cg_bin(b, KILN_OP_ARITH_ADDI, v, add);
  }
  if (t->sums_at_init) {
    kiln_value *cs = column_sums(b, t, q);
    v = cg_bin(b, KILN_OP_ARITH_SUBI, v, cs);
  }
  if (!t->first) return v;
  /* later K blocks continue from the partial sums */
  kiln_value *ops[3] = {t->first, v, cg_vload(b, t->vt, t->C, 2, ix)};
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, ops, 1, &t->vt, NULL), 0);
}

static void mm_store_c(kiln_builder *b, void *u, int r, int q, kiln_value *v) {
  mm_tile *t = u;
  kiln_value *ix[2] = {t->rows[r], t->cols[q]};
  if (t->x80 && !t->sums_at_init) {
    kiln_value *cs = column_sums(b, t, q);
    v = cg_bin(b, KILN_OP_ARITH_SUBI, v, cs);
  }
  if (t->epi) v = cpu_apply_epilogue(b, t->epi, ix, v, t->vt);
  cg_vstore(b, v, t->epi && t->epi->dst ? t->epi->dst : t->C, 2, ix);
}

/* What joins the register tiles besides the product: the fill's value
 * (init, from the K block where first holds) and the elementwise
 * consumer (epi, in the last K block only). */
typedef struct mm_fuse {
  kiln_value *init, *first;
  const cpu_epilogue *epi;
  bool dot4;       /* int8: A u8, B i8 in groups of 4 K (pack_groups), C i32 */
  const char *isa; /* vector.dot4's instruction, NULL: generic */
  bool signed_a;   /* dot4 takes A as it is (not vpdpbusd): no column sums */
  bool pairs;      /* and B pair-major (pmaddwd) */
  kiln_value *fold; /* int8: mm_tile's fold, fold_in */
  uint32_t fold_in;
} mm_fuse;

static void emit_register_tile(kiln_builder *b, kiln_value *A, kiln_value *ak, kiln_value *Bm,
                               kiln_value *bk, kiln_value *bc, kiln_value *C, kiln_value *i0,
                               kiln_value *j0, kiln_value *K, int mr, int nr, int64_t vw,
                               const mm_fuse *f) {
  mm_tile t = {.A = A, .ak = ak, .Bm = Bm, .bk = bk, .C = C, .init = f->init, .first = f->first,
               .epi = f->epi, .fold = f->fold, .fold_in = f->fold_in};
  t.vt = kiln_type_vector(b->ctx, 1, &vw, C->type->elem);
  int64_t four = 4, w4 = 4 * vw;
  if (f->dot4) {
    t.va = kiln_type_vector(b->ctx, 1, &four, A->type->elem);
    t.vb = kiln_type_vector(b->ctx, 1, &w4, A->type->elem);
    if (!f->signed_a) {
      t.x80 = kiln_build_constant(b, kiln_attr_dense_splat_int(b->ctx, t.va, -128));
      t.srow = cg_add(b, bk, K); /* the sums' row follows B's K / 4 */
      t.sums_at_init = f->init && !f->first;
    }
  }
  for (int r = 0; r < mr; r++) t.rows[r] = cg_add(b, i0, cg_index(b, r));
  /* int8: B's row of a group holds 4 bytes per column */
  kiln_value *bc4 = f->dot4 ? cg_bin(b, KILN_OP_ARITH_MULI, bc, cg_index(b, 4)) : bc;
  for (int q = 0; q < nr; q++) {
    t.cols[q] = cg_add(b, j0, cg_index(b, q * vw));
    t.bcols[q] = cg_add(b, bc4, cg_index(b, f->dot4 ? q * w4 : q * vw));
  }
  cpu_ukernel uk = {.mr = mr, .nr = nr, .nk = 1, .vt = t.vt, .dot4 = f->dot4, .isa = f->isa,
                   .signed_a = f->signed_a, .pairs = f->pairs,
                   .k_begin = mm_k_begin,
                   .load_a = mm_load_a, .load_b = mm_load_b, .load_c = mm_load_c,
                   .store_c = mm_store_c, .user = &t};
  uk.klo[0] = cg_index(b, 0), uk.khi[0] = K;
  cpu_emit_ukernel(b, &uk);
}

/* Copies Bm[kb .. kb+KC, j0 .. j0+W] into the contiguous panel P (KC x W):
 * the microkernel then streams P from L1 instead of B rows a power-of-two
 * stride apart (which alias in the caches). */
static void emit_pack_b(kiln_builder *b, kiln_value *Bm, kiln_value *kb, kiln_value *j0,
                        kiln_value *P, int64_t KC, int64_t W, int64_t vw) {
  const kiln_type *vt = kiln_type_vector(b->ctx, 1, &vw, Bm->type->elem);
  kiln_builder body;
  kiln_op *loop = cg_for(b, cg_index(b, 0), cg_index(b, KC), cg_index(b, 1), 0, NULL, &body);
  kiln_value *k = cg_for_iv(loop), *ix[2];
  kiln_value *row = cg_add(&body, kb, k);
  for (int64_t q = 0; q < W; q += vw) {
    ix[0] = row, ix[1] = cg_add(&body, j0, cg_index(&body, q));
    kiln_value *v = cg_vload(&body, vt, Bm, 2, ix);
    ix[0] = k, ix[1] = cg_index(&body, q);
    cg_vstore(&body, v, P, 2, ix);
  }
}

static bool unit_inner_stride(const kiln_type *t) {
  int64_t st[KILN_MAX_LOOPS], off;
  return t->rank == 2 && kiln_memref_strides(t, st, &off) && st[1] == 1;
}

/* Row blocks of the tile: full blocks of mr rows, then one block of the
 * leftover rows (fewer accumulators, same shape). A run-time M (Md, M
 * KILN_DYNAMIC: the partial row tile of a dynamic dim) takes the full
 * blocks the same way, then the leftover rows (fewer than mr) in blocks
 * of the powers of two below mr, largest first, each a loop that runs
 * once or not at all: 13 rows with mr 8 are 8 + 4 + 1, every row in a
 * register tile. */
static void emit_rows(kiln_builder *b, int64_t M, kiln_value *Md, int mr, kiln_value *A, kiln_value *ak,
                      kiln_value *Bm, kiln_value *bk, kiln_value *bc, kiln_value *C,
                      kiln_value *j0, kiln_value *K, int nr, int64_t vw, const mm_fuse *f) {
  if (M == KILN_DYNAMIC) {
    int sizes[8], ns = 0, pw = 1;
    sizes[ns++] = mr;
    while (pw * 2 < mr) pw *= 2;
    for (; pw >= 1 && mr > 1; pw /= 2) sizes[ns++] = pw;
    kiln_value *lo = cg_index(b, 0);
    for (int i = 0; i < ns; i++) {
      /* hi = lo + (M - lo) / p * p: whole blocks of p rows from lo */
      kiln_value *pv = cg_index(b, sizes[i]);
      kiln_value *n = cg_bin(b, KILN_OP_ARITH_DIVUI, cg_bin(b, KILN_OP_ARITH_SUBI, Md, lo), pv);
      kiln_value *hi = cg_add(b, lo, cg_mul(b, n, pv));
      kiln_builder bi;
      kiln_op *li = cg_for(b, lo, hi, pv, 0, NULL, &bi);
      emit_register_tile(&bi, A, ak, Bm, bk, bc, C, cg_for_iv(li), j0, K, sizes[i], nr, vw, f);
      lo = hi;
    }
    return;
  }
  int64_t main = M / mr * mr;
  if (main) {
    kiln_builder bi;
    kiln_op *li = cg_for(b, cg_index(b, 0), cg_index(b, main), cg_index(b, mr), 0, NULL, &bi);
    emit_register_tile(&bi, A, ak, Bm, bk, bc, C, cg_for_iv(li), j0, K, mr, nr, vw, f);
  }
  if (main < M)
    emit_register_tile(b, A, ak, Bm, bk, bc, C, cg_index(b, main), j0, K, (int)(M - main), nr, vw, f);
}

/* The [R, C] view of a [1, R, C] memref (rank-reducing subview). */
static kiln_value *drop_unit_batch(kiln_builder *b, kiln_value *v) {
  const kiln_type *t = v->type;
  int64_t st[KILN_MAX_LOOPS], off;
  kiln_memref_strides(t, st, &off);
  kiln_context *c = b->ctx;
  int64_t z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
  const kiln_type *rt = kiln_type_memref(c, 2, t->shape + 1, t->elem,
                                         kiln_attr_strided(c, off, 2, st + 1), t->memspace);
  /* run-time sizes (a dynamic K) are operands, as the source's dims */
  kiln_value *ops[3] = {v};
  uint32_t n = 1;
  for (uint32_t d = 1; d < 3; d++)
    if (t->shape[d] == KILN_DYNAMIC) ops[n++] = cg_dim(b, v, d);
  int64_t seg[4] = {1, 0, n - 1, 0};
  kiln_named_attr na[4] = {
      {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 4, seg, NULL)},
      {"static_offsets", kiln_attr_dense_i64_array(c, 3, z)},
      {"static_sizes", kiln_attr_dense_i64_array(c, 3, t->shape)},
      {"static_strides", kiln_attr_dense_i64_array(c, 3, one)}};
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_SUBVIEW, n, ops, 1, &rt, kiln_attr_dict(c, 4, na)), 0);
}

/* Column blocks of a constant B, pre-packed at compile time: [K, N] is
 * stored as [ceil(N/tn), K, tn] (block j = columns j*tn .. j*tn+tn; the
 * last block's columns past N are zeros that no tile reads), so a
 * workgroup's [K, tn] tile of B is contiguous, its rows tn elements apart
 * instead of N (a power of two in most models, whose rows alias in the
 * caches), and no panel is copied per call. */
static const kiln_attr *pack_columns(kiln_context *ctx, const kiln_attr *v, void *user) {
  const int64_t *kn = user; /* K, N, tn */
  int64_t K = kn[0], N = kn[1], tn = kn[2], nb = (N + tn - 1) / tn;
  if (N % tn == 0) {
    int64_t s3[3] = {K, nb, tn}, perm[3] = {1, 0, 2};
    const kiln_attr *r = kiln_attr_dense_reshape(ctx, v, kiln_type_tensor(ctx, 3, s3, v->type->elem, NULL));
    return r ? kiln_attr_dense_transpose(ctx, r, perm) : NULL;
  }
  int64_t s3[3] = {nb, K, tn};
  const kiln_type *rt = kiln_type_tensor(ctx, 3, s3, v->type->elem, NULL);
  if (v->kind != KILN_ATTR_DENSE) return NULL;
  if (v->splat) return kiln_attr_dense(ctx, rt, true, v->data, v->nbytes);
  size_t es = kiln_dense_elem_size(v->type->elem), bytes = (size_t)(nb * K * tn) * es;
  if (!es || v->nbytes != (size_t)(K * N) * es) return NULL;
  char *out = kiln_alloc(ctx, bytes + 1);
  const char *in = v->data;
  memset(out, 0, bytes);
  for (int64_t j = 0; j < nb; j++) {
    int64_t w = N - j * tn < tn ? N - j * tn : tn;
    for (int64_t k = 0; k < K; k++)
      memcpy(out + (size_t)((j * K + k) * tn) * es, in + (size_t)(k * N + j * tn) * es, (size_t)w * es);
  }
  return kiln_attr_dense_borrowed(ctx, rt, out, bytes);
}

/* int8 weights in groups of 4 K per column, vector.dot4's operand: [K, N]
 * is stored as [N/tn, K/4, tn*4], element (j, g, 4 l + i) = W[4 g + i,
 * j tn + l], so that one load of 4*VW bytes gives VW columns' 4 K. In
 * dot4's pairs form (kn[4] set), each vector's 4*VW bytes are pair-major
 * instead: (j, g, 4 VW q + 2 VW p + 2 l + i) = W[4 g + 2 p + i,
 * j tn + VW q + l]. With sums (kn[5] set: vpdpbusd's unsigned A), each
 * block has one more row, [N/tn, K/4 + 1, tn*4]: column j tn + l's
 * 128 * sum_k W[k, j tn + l] as a little-endian i32 at bytes 4 l, the
 * correction the kernel subtracts (emit_register_tile). */
static const kiln_attr *pack_sums(kiln_context *ctx, const kiln_attr *v, const int64_t *kn) {
  int64_t K = kn[0], N = kn[1], tn = kn[2], nb = N / tn, g4 = K / 4, row = 4 * tn;
  int64_t s3[3] = {nb, g4 + 1, row};
  if (v->kind != KILN_ATTR_DENSE || v->nbytes != (size_t)(v->splat ? 1 : K * N)) return NULL;
  size_t bytes = (size_t)(nb * (g4 + 1) * row);
  uint8_t *out = kiln_alloc(ctx, bytes + 1);
  const int8_t *in = v->data;
  for (int64_t j = 0; j < nb; j++) {
    uint8_t *blk = out + (size_t)(j * (g4 + 1) * row);
    for (int64_t l = 0; l < tn; l++) {
      int64_t n = j * tn + l, sum = 0;
      for (int64_t k = 0; k < K; k++) {
        int8_t w = in[v->splat ? 0 : k * N + n];
        blk[(k / 4) * row + 4 * l + k % 4] = (uint8_t)w;
        sum += w;
      }
      uint32_t cs = (uint32_t)(int32_t)(128 * sum); /* |128 sum| < 2^31: K < 2^17 checked */
      for (int i = 0; i < 4; i++) blk[g4 * row + 4 * l + i] = (uint8_t)(cs >> (8 * i));
    }
  }
  return kiln_attr_dense_borrowed(ctx, kiln_type_tensor(ctx, 3, s3, v->type->elem, NULL), out, bytes);
}

static const kiln_attr *pack_groups(kiln_context *ctx, const kiln_attr *v, void *user) {
  const int64_t *kn = user; /* K, N, tn, VW, pairs, sums */
  if (kn[5]) return pack_sums(ctx, v, kn);
  int64_t s6[6] = {kn[0] / 4, 2, 2, kn[1] / kn[2], kn[2] / kn[3], kn[3]};
  int64_t perm_pairs[6] = {3, 0, 4, 1, 5, 2}, perm[6] = {3, 0, 4, 5, 1, 2};
  int64_t s3[3] = {kn[1] / kn[2], kn[0] / 4, 4 * kn[2]};
  const kiln_attr *r = kiln_attr_dense_reshape(ctx, v, kiln_type_tensor(ctx, 6, s6, v->type->elem, NULL));
  if (r) r = kiln_attr_dense_transpose(ctx, r, kn[4] ? perm_pairs : perm);
  return r ? kiln_attr_dense_reshape(ctx, r, kiln_type_tensor(ctx, 3, s3, v->type->elem, NULL)) : NULL;
}

static bool static_array(const kiln_op *op, const char *name, uint32_t n, int64_t *out) {
  const kiln_attr *a = kiln_op_get_attr((kiln_op *)op, name);
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != n) return false;
  memcpy(out, a->data, n * sizeof *out);
  return true;
}

/* A column tile of a whole binding: subview (0, n0) [K, tn] of a static
 * [K, N] binding, tn < N (or tn = N, one tile, where `whole` allows), n0 a static offset (in off) or the run-time
 * product of tile-and-distribute's workgroup id and a constant (in step;
 * n0 the value); block_tile says whether it is a block of a layout of
 * blocks of some width. */
typedef struct col_tile {
  kiln_op *sv, *binding;
  kiln_value *n0;
  int64_t off, K, N, tn, step;
} col_tile;

static bool column_tile(kiln_op *sv, col_tile *ct, bool whole) {
  int64_t off[2], sz[2], st[2];
  if (!sv || sv->kind != KILN_OP_MEMREF_SUBVIEW ||
      !static_array(sv, "static_offsets", 2, off) || !static_array(sv, "static_sizes", 2, sz) ||
      !static_array(sv, "static_strides", 2, st) || st[0] != 1 || st[1] != 1 || off[0] != 0)
    return false;
  kiln_value *src = kiln_op_operand(sv, 0);
  kiln_op *binding = src->def;
  if (!binding || binding->kind != KILN_OP_HAL_INTERFACE_BINDING) return false;
  const kiln_type *t = src->type;
  if (t->rank != 2 || t->layout || !kiln_type_has_static_shape(t)) return false;
  *ct = (col_tile){sv, binding, NULL, off[1], t->shape[0], t->shape[1], sz[1], 0};
  if (sz[0] != ct->K || ct->tn <= 0 || ct->tn > ct->N || (ct->tn == ct->N && !whole)) return false;
  if (off[1] != KILN_DYNAMIC) return sv->num_operands == 1;
  /* the only dynamic operand: the column offset */
  if (sv->num_operands != 2) return false;
  ct->n0 = kiln_op_operand(sv, 1);
  kiln_op *mul = ct->n0->def;
  return mul && mul->kind == KILN_OP_ARITH_MULI &&
         (cg_const_int(kiln_op_operand(mul, 1), &ct->step) || cg_const_int(kiln_op_operand(mul, 0), &ct->step));
}

/* Is ct block n0 / bw of [K, N] cut in blocks of bw columns: bw wide, or
 * the last block's N % bw when bw does not divide N (the partial-tile
 * version of a kernel, taken by the last workgroup alone)? */
static bool block_tile(const col_tile *ct, int64_t bw) {
  int64_t rem = ct->N % bw;
  if (ct->tn != bw && (rem == 0 || ct->tn != rem)) return false;
  if (ct->n0) return ct->step > 0 && ct->step % bw == 0;
  return ct->off % bw == 0 && (ct->tn == bw || ct->off == ct->N - rem);
}

typedef struct same_binding {
  int64_t index;
  kiln_op *ops[8];
  uint32_t n;
} same_binding;

static kiln_walk_result find_binding(kiln_op *op, void *user) {
  same_binding *s = user;
  const kiln_attr *a = kiln_op_get_attr(op, "binding");
  if (op->kind == KILN_OP_HAL_INTERFACE_BINDING && a && a->kind == KILN_ATTR_INTEGER && a->i == s->index) {
    if (s->n == 8) return KILN_WALK_INTERRUPT;
    s->ops[s->n++] = op;
  }
  return KILN_WALK_ADVANCE;
}

/* B as the [K, tn] view of its block in the pre-packed constant, when B
 * is a column tile (above) of its binding, and so is every other read of
 * that binding in the kernel (a kernel split into full- and partial-tile
 * versions has one per version, all of the same tile width: each version
 * its own binding op, or one binding op above the split that every
 * version's subview reads, as where the binding's shape takes a run-time
 * dim and so sits before the split), and prepack.c can rewrite every
 * constant the binding receives; else NULL. Each view replaces its
 * subview for all readers (the same values: a partial tile's generic
 * matmul reads it too). */
/* groups4: int8's groups of 4 K (pack_groups) of VW-lane vectors, pair-
 * major where pairs is set; else pack_columns. */
#define PB_MAX_TILES 16
static kiln_value *prepacked_b(kiln_value *B, bool groups4, int64_t vw, bool pairs, bool sums) {
  col_tile first;
  if (!column_tile(B->def, &first, groups4)) return NULL;
  kiln_op *func = kiln_op_ancestor(B->def, KILN_OP_FUNC_FUNC);
  const kiln_attr *bi = kiln_op_get_attr(first.binding, "binding");
  same_binding sb = {bi ? bi->i : -1, {NULL}, 0};
  if (!func || !bi || !kiln_walk_pre(func, find_binding, &sb)) return NULL;
  /* every use of every binding op: a column tile; the blocks are as wide
   * as the widest tile, a narrower one must be the last block's
   * remainder */
  col_tile tiles[PB_MAX_TILES];
  uint32_t owner[PB_MAX_TILES], nt = 0;
  int64_t tn = 0;
  for (uint32_t i = 0; i < sb.n; i++) {
    kiln_value *r = kiln_op_result(sb.ops[i], 0);
    if (!kiln_value_has_uses(r) || r->type != first.binding->results[0].type) return NULL;
    for (kiln_use *u = r->uses; u; u = u->next) {
      if (nt == PB_MAX_TILES || !column_tile(u->owner, &tiles[nt], groups4)) return NULL;
      if (tiles[nt].tn > tn) tn = tiles[nt].tn;
      owner[nt++] = i;
    }
  }
  for (uint32_t i = 0; i < nt; i++)
    if (!block_tile(&tiles[i], tn)) return NULL;
  int64_t K = first.K, N = first.N, nb = (N + tn - 1) / tn;
  /* int8 groups: whole blocks only (pack_groups does not pad) */
  if (groups4 && (K % 4 != 0 || tn % vw != 0 || N % tn != 0 || (sums && K >= (1 << 17)))) return NULL;
  int64_t kn[6] = {K, N, tn, vw, pairs, sums},
          pshape[3] = {nb, groups4 ? K / 4 + sums : K, groups4 ? 4 * tn : tn};
  const kiln_type *pt = kiln_type_memref(kiln_op_context(B->def), 3, pshape,
                                         B->type->elem, NULL, B->type->memspace);
  kiln_value *P[8];
  if (!cpu_prepack_bindings(sb.ops, sb.n, pt, groups4 ? pack_groups : pack_columns, kn, P)) return NULL;
  kiln_value *mine = NULL;
  for (uint32_t i = 0; i < nt; i++) {
    col_tile *ct = &tiles[i];
    kiln_builder at = kiln_builder_after(ct->sv), *b = &at;
    at.loc = ct->sv->loc;
    kiln_value *jb = ct->n0 ? cg_bin(b, KILN_OP_ARITH_DIVUI, ct->n0, cg_index(b, tn)) : cg_index(b, ct->off / tn);
    kiln_value *offs[3] = {jb, cg_index(b, 0), cg_index(b, 0)};
    kiln_value *sizes[3] = {cg_index(b, 1), cg_index(b, pshape[1]),
                            cg_index(b, groups4 ? pshape[2] : ct->tn)};
    kiln_value *view = drop_unit_batch(b, cg_subview(b, P[owner[i]], offs, sizes));
    if (ct->sv == B->def) mine = view;
    kiln_value_replace_all_uses(kiln_op_result(ct->sv, 0), view);
    kiln_op_erase(ct->sv);
  }
  for (uint32_t i = 0; i < sb.n; i++) kiln_op_erase(sb.ops[i]);
  return mine;
}

/* B read whole (N is one column tile: 16 output channels), by this
 * matmul and by every other version of the kernel (full and partial row
 * tiles, each its own binding op, or one binding op above the split that
 * every version reads, as in a kernel over a run-time batch): each
 * binding is viewed through a full subview that its matmuls read, so
 * that prepacked_b packs it as one block and the versions lowered later
 * find it packed. Else B as it is, nothing changed. */
static kiln_value *whole_b(kiln_value *B, int64_t K, int64_t N) {
  kiln_op *func = kiln_op_ancestor(B->def, KILN_OP_FUNC_FUNC);
  const kiln_attr *bi = kiln_op_get_attr(B->def, "binding");
  same_binding sb = {bi ? bi->i : -1, {NULL}, 0};
  if (!func || !bi || !kiln_walk_pre(func, find_binding, &sb)) return B;
  for (uint32_t i = 0; i < sb.n; i++) {
    kiln_value *r = kiln_op_result(sb.ops[i], 0);
    const kiln_type *t = r->type;
    if (!r->uses || t->rank != 2 || t->layout || t->shape[0] != K || t->shape[1] != N) return B;
    for (kiln_use *u = r->uses; u; u = u->next)
      if (u->owner->kind != KILN_OP_LINALG_MATMUL || u->owner->num_operands != 3 || u->index != 1) return B;
  }
  kiln_value *mine = B;
  for (uint32_t i = 0; i < sb.n; i++) {
    kiln_value *r = kiln_op_result(sb.ops[i], 0);
    kiln_builder at = kiln_builder_after(sb.ops[i]);
    at.loc = r->uses->owner->loc;
    /* one builder call per statement: the IR's order is the same under
     * every C compiler */
    kiln_value *zero = cg_index(&at, 0);
    kiln_value *kv = cg_index(&at, K);
    kiln_value *nv = cg_index(&at, N);
    kiln_value *offs[2] = {zero, zero}, *sizes[2] = {kv, nv};
    kiln_value *v = cg_subview(&at, r, offs, sizes);
    for (kiln_use *u = r->uses, *nu; u; u = nu) {
      nu = u->next;
      if (u->owner != v->def) kiln_op_set_operand(u->owner, 1, v);
    }
    if (r == B) mine = v;
  }
  return mine;
}

/* A tile of B whose rows are contiguous (row stride = its width: a block
 * of a pre-packed constant, as another version of the kernel left it) is
 * read in place: nothing to gain from copying it into a panel. */
static bool contiguous_tile(const kiln_type *t) {
  int64_t st[KILN_MAX_LOOPS], off;
  return t->rank == 2 && kiln_memref_strides(t, st, &off) && st[1] == 1 && st[0] == t->shape[1];
}

/* A tile of a block of a pre-packed constant as prepacked_b left it for
 * another version of the kernel (the last block's first N % tn columns:
 * rows tn apart, not N): read in place too. */
static bool packed_block(kiln_value *B) {
  kiln_op *v = B->def, *blk = v && v->kind == KILN_OP_MEMREF_SUBVIEW ? kiln_op_operand(v, 0)->def : NULL;
  kiln_op *bind = blk && blk->kind == KILN_OP_MEMREF_SUBVIEW ? kiln_op_operand(blk, 0)->def : NULL;
  int64_t st[KILN_MAX_LOOPS], off;
  return bind && bind->kind == KILN_OP_HAL_INTERFACE_BINDING && bind->results[0].type->rank == 3 &&
         B->type->rank == 2 && kiln_memref_strides(B->type, st, &off) && st[1] == 1;
}

/* A batch_matmul whose batch is 1 (a workgroup's tile of attention's
 * heads x seq x seq products) is the matmul of its [M,K], [K,N], [M,N]
 * views: the same microkernel. */
static bool lower_unit_batch(kiln_op *op, int64_t vw, kiln_op **tail) {
  for (uint32_t i = 0; i < 3; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    int64_t st[KILN_MAX_LOOPS], off;
    if (t->kind != KILN_TYPE_MEMREF || t->rank != 3 || t->shape[0] != 1 || !kiln_memref_strides(t, st, &off))
      return false;
  }
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *ops[3];
  for (uint32_t i = 0; i < 3; i++) ops[i] = drop_unit_batch(&b, kiln_op_operand(op, i));
  kiln_op *mm = kiln_op_create(b.ctx, KILN_OP_LINALG_MATMUL, op->loc, 3, ops, 0, NULL, op->attrs, 0);
  kiln_builder_insert(&b, mm);
  if (cpu_lower_matmul(mm, vw, tail)) {
    kiln_op_erase(mm);
    return true;
  }
  kiln_op_erase(mm);
  /* each subview, then the memref.dim ops (and their index constants)
   * that only it used */
  for (uint32_t i = 3; i-- > 0;) {
    kiln_op *sv = ops[i]->def, *dims[2] = {NULL, NULL};
    for (uint32_t k = 1; k < sv->num_operands && k < 3; k++) dims[k - 1] = kiln_op_operand(sv, k)->def;
    kiln_op_erase(sv);
    for (uint32_t k = 2; k-- > 0;) {
      if (!dims[k] || kiln_value_has_uses(kiln_op_result(dims[k], 0))) continue;
      kiln_op *idx = kiln_op_operand(dims[k], 1)->def;
      kiln_op_erase(dims[k]);
      if (idx && !kiln_value_has_uses(kiln_op_result(idx, 0))) kiln_op_erase(idx);
    }
  }
  return false;
}

/* An epilogue that first adds a per-column i32 vector to the sums (the
 * zero-point correction of int8_matmul in import_qdq.c): acc's one use
 * is arith.addi with an input read along the columns only. That input
 * then starts the accumulators (f->fold) and the epilogue reads zeros
 * there (LLVM drops the add of zero): the same i32 sum, one op less per
 * output vector. */
static void fold_addend(cpu_epilogue *e, mm_fuse *f) {
  kiln_op *g = e->op;
  kiln_block *body = g->regions[0].first;
  uint32_t nin = kiln_linalg_num_inputs(g);
  kiln_value *acc = body->args[e->in];
  if (!kiln_value_has_one_use(acc)) return;
  kiln_op *add = acc->uses->owner;
  if (add->kind != KILN_OP_ARITH_ADDI) return;
  kiln_value *o = kiln_op_operand(add, kiln_op_operand(add, 0) == acc ? 1 : 0);
  uint32_t j = 0;
  while (j < nin && body->args[j] != o) j++;
  if (j == nin || j == e->in || !e->along[j]) return;
  kiln_value *x = kiln_op_operand(g, j);
  if (x->type->kind != KILN_TYPE_MEMREF || x->type->elem != acc->type) return;
  /* along the columns only: no index moves with the rows */
  const kiln_affine_map *m = e->maps[j];
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], 2, coef, &cst) || coef[0]) return;
  }
  e->zeroed[j] = true;
  f->fold = x, f->fold_in = j;
}

/* The int8 matmul: C (i32) += A (i8) . B (i8), B a constant pre-packed in
 * groups of 4 K (pack_groups) that vector.dot4 reads, K a multiple of 4,
 * N of the vector width (no column tail: the generic path does not take
 * mixed types). vector.dot4 takes unsigned A: each register tile reads
 * A xor 0x80 and subtracts 128 * B's column sums, computed at compile
 * time into the packed B (pack_groups, emit_register_tile); that is vpdpbusd's form: elsewhere dot4
 * takes signed A as it is (signed_a), and pmaddwd (x86-64 without VNNI)
 * B packed pair-major (pairs). Zero points and scales are the producer's
 * and the epilogue's business: the elementwise consumer joins the tiles
 * also when it writes another buffer than the i32 scratch it reads
 * (cpu_fused_epilogue_to). No K blocking yet. false: not this form,
 * nothing built. */
static bool lower_int8(kiln_op *op, int64_t vw, kiln_value *A, kiln_value *B, kiln_value *C, int64_t M,
                       int64_t N, int64_t K) {
  const kiln_type *tb = B->type;
  const bool dyn_m = M == KILN_DYNAMIC; /* the partial row tile of a dynamic batch: emit_rows */
  if (K == KILN_DYNAMIC || K < 4 || K % 4 != 0 || N % vw != 0 || (!dyn_m && M < 1) || vw > 16) return false;
  const char *isa = cpu_dot4_isa(op, vw);
  /* only vpdpbusd needs unsigned A and the column sums; pmaddwd reads
   * B pair-major */
  const bool signed_a = !isa || strncmp(isa, "avx", 3) != 0;
  const bool pairs = isa && strncmp(isa, "pmaddwd", 7) == 0;
  /* B is [K/4 (+ the sums' row), 4 N] when another version of the kernel
   * already packed it */
  int64_t rows = K / 4 + (signed_a ? 0 : 1);
  kiln_value *Bp = tb->shape[0] == rows && tb->shape[1] == 4 * N && contiguous_tile(tb) ? B : NULL;
  if (!Bp && B->def && B->def->kind == KILN_OP_HAL_INTERFACE_BINDING) B = whole_b(B, K, N);
  if (!Bp && (tb->shape[0] != K || !(Bp = prepacked_b(B, true, vw, pairs, !signed_a)))) return false;
  /* Fours of column vectors where the accumulators allow 4 x 4 (a
   * 64-column tile of 16 lanes), else pairs, else threes (48 columns):
   * each row's A bytes (a broadcast, and vpdpbusd's xor) feed nr
   * products; single vectors made as many A ops as products. */
  int64_t nv = N / vw;
  int nr = nv % 4 == 0 && cpu_accumulators(op, vw) >= 16 ? 4 : nv % 2 == 0 ? 2 : nv % 3 == 0 ? 3 : 1;
  int mr = cpu_accumulators(op, vw) / nr;
  if (mr > 8) mr = 8;
  if (mr < 1) mr = 1;
  if (!dyn_m && mr > M) mr = (int)M;
  kiln_builder b = kiln_builder_before(op), bj;
  b.loc = op->loc;
  kiln_value *Md = dyn_m ? cg_dim(&b, C, 0) : NULL;
  kiln_op *fill = cpu_fused_fill(op, C);
  cpu_epilogue epi = {0};
  mm_fuse f = {.init = fill ? kiln_op_operand(fill, 0) : NULL, .dot4 = true, .isa = isa,
              .signed_a = signed_a, .pairs = pairs};
  /* the i32 sums' consumer (to f32, scales, requantization to i8) joins
   * the register tiles even though it writes another buffer: the sums
   * are then never stored */
  if (cpu_fused_epilogue_to(op, C, &epi)) f.epi = &epi;
  if (f.init && f.epi) fold_addend(&epi, &f);
  kiln_value *zero = cg_index(&b, 0);
  kiln_op *lj = cg_for(&b, zero, cg_index(&b, N), cg_index(&b, nr * vw), 0, NULL, &bj);
  kiln_value *z = cg_index(&bj, 0);
  emit_rows(&bj, M, Md, mr, A, z, Bp, z, cg_for_iv(lj), C, cg_for_iv(lj), cg_index(&bj, K / 4), nr, vw, &f);
  if (fill) kiln_op_erase(fill);
  if (epi.op) kiln_op_erase(epi.op);
  return true;
}

/* Rows of B per step of a streamed matmul: 8 kept two workers' B
 * streams at the memory's pace where 1 or 2 were 2-7x slower (C's loads
 * and stores per B vector), 4 within a few percent of 8 (measured alone,
 * 4096 x 4096). */
#define MM_STREAM_MAX_U 8

/* One step of a streamed matmul (lower_streamed) per u rows of B from
 * lo to hi: A's u columns of each row broadcast once, then along the
 * row's columns C[r, q] += A[r, k + i] * B[k + i, q] for i < u, whole
 * vectors first, the last N % VW columns as scalars. */
static void stream_rows(kiln_builder *b, kiln_value *A, kiln_value *B, kiln_value *C, int64_t M, int64_t N,
                        int64_t lo, int64_t hi, int u, int64_t vw) {
  const kiln_type *et = C->type->elem, *vt = kiln_type_vector(b->ctx, 1, &vw, et);
  kiln_builder bk, bq, bs;
  kiln_op *lk = cg_for(b, cg_index(b, lo), cg_index(b, hi), cg_index(b, u), 0, NULL, &bk);
  kiln_value *kr[MM_STREAM_MAX_U], *as[CG_STREAM_MAX_ROWS][MM_STREAM_MAX_U];
  kiln_value *av[CG_STREAM_MAX_ROWS][MM_STREAM_MAX_U], *rows[CG_STREAM_MAX_ROWS];
  for (int i = 0; i < u; i++) kr[i] = cg_add(&bk, cg_for_iv(lk), cg_index(&bk, i));
  for (int64_t r = 0; r < M; r++) {
    rows[r] = cg_index(&bk, r);
    for (int i = 0; i < u; i++) {
      kiln_value *ix[2] = {rows[r], kr[i]};
      as[r][i] = cg_load(&bk, A, 2, ix);
    }
  }
  const int64_t nmain = N / vw * vw;
  if (nmain) {
    for (int64_t r = 0; r < M; r++)
      for (int i = 0; i < u; i++) av[r][i] = cg_broadcast(&bk, as[r][i], vt);
    kiln_op *lq = cg_for(&bk, cg_index(&bk, 0), cg_index(&bk, nmain), cg_index(&bk, vw), 0, NULL, &bq);
    kiln_value *q = cg_for_iv(lq), *bv[MM_STREAM_MAX_U];
    for (int i = 0; i < u; i++) {
      kiln_value *ix[2] = {kr[i], q};
      bv[i] = cg_vload(&bq, vt, B, 2, ix);
    }
    for (int64_t r = 0; r < M; r++) {
      kiln_value *ix[2] = {rows[r], q};
      kiln_value *c = cg_vload(&bq, vt, C, 2, ix);
      for (int i = 0; i < u; i++) {
        kiln_value *fma[3] = {av[r][i], bv[i], c};
        c = kiln_op_result(kiln_build(&bq, KILN_OP_VECTOR_FMA, 3, fma, 1, &vt, NULL), 0);
      }
      cg_vstore(&bq, c, C, 2, ix);
    }
  }
  if (nmain == N) return;
  kiln_op *ls = cg_for(&bk, cg_index(&bk, nmain), cg_index(&bk, N), cg_index(&bk, 1), 0, NULL, &bs);
  kiln_value *j = cg_for_iv(ls), *bsc[MM_STREAM_MAX_U];
  for (int i = 0; i < u; i++) {
    kiln_value *ix[2] = {kr[i], j};
    bsc[i] = cg_load(&bs, B, 2, ix);
  }
  for (int64_t r = 0; r < M; r++) {
    kiln_value *ix[2] = {rows[r], j};
    kiln_value *c = cg_load(&bs, C, 2, ix);
    for (int i = 0; i < u; i++) {
      kiln_value *fma[3] = {as[r][i], bsc[i], c};
      c = kiln_op_result(kiln_build(&bs, KILN_OP_MATH_FMA, 3, fma, 1, &et, NULL), 0);
    }
    cg_store(&bs, c, C, 2, ix);
  }
}

/* A streamed matmul's tile (cg_streamed_matmul: at most 4 rows, a B past
 * the pre-packing cap read as it is stored, once per call, so the B
 * stream from memory is the whole cost): B is read row by row, each row
 * of the tile one contiguous run (the launch rule's wide column tiles: a
 * 4 KiB page per run at 1024 columns), accumulated into C in place, u
 * rows of B per step (MM_STREAM_MAX_U) so each of C's vectors (in L1) is
 * loaded and stored once per u rows. The register tiles' order (a B row of a few vectors,
 * then the next row a row stride, usually a page, away) has the memory
 * system open a new page for every 128 to 256 bytes: 5x slower on
 * AlexNet's 4096 x 4096 layer (measured alone). The fill before and the
 * elementwise consumer after stay separate ops: they touch M x tn
 * elements, against B's K x tn. */
static bool lower_streamed(kiln_op *op, int64_t vw, kiln_value *A, kiln_value *B, kiln_value *C, int64_t M,
                           int64_t N, int64_t K) {
  /* u broadcasts of A per row, u B vectors and a C vector live at once */
  int u = cpu_accumulators(op, vw) / (int)M;
  if (u > MM_STREAM_MAX_U) u = MM_STREAM_MAX_U;
  if (u < 1) u = 1;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  const int64_t kmain = K / u * u;
  if (kmain) stream_rows(&b, A, B, C, M, N, 0, kmain, u, vw);
  if (kmain < K) stream_rows(&b, A, B, C, M, N, kmain, K, 1, vw);
  return true;
}

bool cpu_lower_matmul(kiln_op *op, int64_t vw, kiln_op **tail) {
  *tail = NULL;
  if (op->num_operands != 3 || vw < 4) return false;
  if (op->kind == KILN_OP_LINALG_BATCH_MATMUL) return lower_unit_batch(op, vw, tail);
  if (op->kind != KILN_OP_LINALG_MATMUL) return false;
  kiln_value *A = kiln_op_operand(op, 0), *B = kiln_op_operand(op, 1), *C = kiln_op_operand(op, 2);
  const kiln_type *ta = A->type, *tb = B->type, *tc = C->type;
  if (ta->kind != KILN_TYPE_MEMREF || tb->kind != KILN_TYPE_MEMREF || tc->kind != KILN_TYPE_MEMREF)
    return false;
  /* M may be a run-time size (a partial row tile of a dynamic dim): A's
   * rows and C's rows both */
  if (ta->rank != 2 || tb->rank != 2 || tc->rank != 2 || tc->shape[1] == KILN_DYNAMIC ||
      (ta->shape[0] == KILN_DYNAMIC) != (tc->shape[0] == KILN_DYNAMIC) || tb->shape[1] == KILN_DYNAMIC)
    return false;
  /* int8: u8 (or shifted i8) activations x i8 weights -> i32 */
  const bool i8 = kiln_type_is_integer(ta->elem) && kiln_type_bitwidth(ta->elem) == 8 && tb->elem == ta->elem &&
                  kiln_type_is_integer(tc->elem) && kiln_type_bitwidth(tc->elem) == 32;
  if (!i8 && (ta->elem->kind != KILN_TYPE_F32 || tb->elem != ta->elem || tc->elem != ta->elem)) return false;
  if (!unit_inner_stride(tb) || !unit_inner_stride(tc)) return false;
  int64_t M = tc->shape[0], N = tc->shape[1], K = ta->shape[1];
  const bool dyn_k = K == KILN_DYNAMIC;
  if (i8) return lower_int8(op, vw, A, B, C, M, N, K);
  const bool dyn_m = M == KILN_DYNAMIC;
  if (dyn_k != (tb->shape[0] == KILN_DYNAMIC) || (!dyn_m && M < 1) || (!dyn_k && K < 1)) return false;
  /* (a run-time M is never streamed: cg_streamed_matmul wants M >= 1) */
  int64_t bst[KILN_MAX_LOOPS], boff;
  if (!dyn_k && kiln_memref_strides(tb, bst, &boff) && bst[0] >= N && cg_streamed_matmul(M, K, bst[0], 4))
    return lower_streamed(op, vw, A, B, C, M, N, K);
  if (N < vw) return false;
  /* Columns: whole vectors here; the last N % VW columns go to a matmul
   * on column subviews that the generic path lowers (*tail). */
  int64_t nmain = N / vw * vw;
  int nr = nmain % (2 * vw) == 0 ? 2 : 1;
  /* A few rows (a classifier's matvec at batch 1, a recurrent cell's):
   * reading B, from beyond L2 and once per call, is the whole cost. The
   * widest register tile that still holds every row reads each of B's
   * rows in one pass (a pre-packed tile's 256-byte row at 16 lanes),
   * where 2 vectors a step read half of every row in each of two passes
   * over the tile: ResNeXt-50's 2048 x 1000 classifier 686 -> 257 us and
   * MobileNetV3-Large's two 521 -> 198 us on one worker (SCHED_FIFO). */
  if (!dyn_m && M * CPU_UK_MAX_NR <= cpu_accumulators(op, vw) && nmain % (CPU_UK_MAX_NR * vw) == 0)
    nr = CPU_UK_MAX_NR;
  int mr = cpu_accumulators(op, vw) / nr;
  if (mr > 8) mr = 8;
  if (!dyn_m && mr > M) mr = (int)M;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *zero = cg_index(&b, 0), *kv = cg_dim(&b, A, 1);
  kiln_value *Md = dyn_m ? cg_dim(&b, C, 0) : NULL;
  if (nmain < N) {
    kiln_value *offs[2] = {zero, cg_index(&b, nmain)}, *offs_b[2] = {zero, offs[1]};
    kiln_value *sb[2] = {kv, cg_index(&b, N - nmain)};
    kiln_value *sc[2] = {dyn_m ? Md : cg_index(&b, M), sb[1]};
    kiln_value *ops[3] = {A, cg_subview(&b, B, offs_b, sb), cg_subview(&b, C, offs, sc)};
    *tail = kiln_op_create(b.ctx, KILN_OP_LINALG_MATMUL, op->loc, 3, ops, 0, NULL, op->attrs, 0);
    kiln_builder_insert(&b, *tail);
    b = kiln_builder_before(*tail);
    b.loc = op->loc;
  }
  /* Pack B in K blocks of KC rows (a divisor of K, 64..256) when K is
   * long enough and the panel is reused by more than one row block. */
  int64_t kc = 0;
  for (int64_t cand = 256; cand >= 64 && (dyn_m || M > mr) && !dyn_k; cand--)
    if (K % cand == 0) {
      kc = cand;
      break;
    }
  /* Without leftover columns, the fill of C just before and the
   * elementwise consumer just after (bias, activation) join the register
   * tiles (fuse_epilogue.c): C is written once, in the last K block, and
   * never filled or read back. */
  kiln_op *fill = NULL;
  cpu_epilogue epi = {0};
  mm_fuse whole = {0};
  if (nmain == N) {
    fill = cpu_fused_fill(op, C);
    if (fill) whole.init = kiln_op_operand(fill, 0);
    if (cpu_fused_epilogue(op, C, &epi)) whole.epi = &epi;
  }
  /* A constant B stored in column blocks at compile time is read in
   * place, K-blocked as a packed one (its block stays in L1 across the
   * row blocks), with no copy. */
  kiln_value *Bp = nmain == N && !dyn_k ? prepacked_b(B, false, vw, false, false) : NULL;
  if (!Bp && nmain == N && !dyn_k && (contiguous_tile(B->type) || packed_block(B))) Bp = B;
  kiln_builder bj, bk;
  if (!kc) {
    kiln_op *lj = cg_for(&b, zero, cg_index(&b, nmain), cg_index(&b, nr * vw), 0, NULL, &bj);
    kiln_value *z = cg_index(&bj, 0);
    emit_rows(&bj, M, Md, mr, A, z, Bp ? Bp : B, z, cg_for_iv(lj), C, cg_for_iv(lj), kv, nr, vw, &whole);
    if (fill) kiln_op_erase(fill);
    if (epi.op) kiln_op_erase(epi.op);
    return true;
  }
  /* The panel lives for the whole kernel: allocated at its entry, not in
   * a loop (an alloca in a loop would grow the stack per iteration). */
  kiln_value *P = Bp;
  if (!Bp) {
    kiln_op *func = kiln_op_ancestor(op, KILN_OP_FUNC_FUNC);
    kiln_builder fb = func ? kiln_builder_before(func->regions[0].first->first) : b;
    fb.loc = op->loc;
    int64_t pshape[2] = {kc, nr * vw};
    const kiln_type *pt = kiln_type_memref(b.ctx, 2, pshape, tc->elem, NULL, NULL);
    kiln_named_attr pa[2] = {
        {"alignment", kiln_attr_int(b.ctx, kiln_type_int(b.ctx, 64), 64)},
        {"operandSegmentSizes",
         kiln_attr_dense_array(b.ctx, kiln_type_int(b.ctx, 32), 2, (int64_t[]){0, 0}, NULL)}};
    P = kiln_op_result(
        kiln_build(&fb, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &pt, kiln_attr_dict(b.ctx, 2, pa)), 0);
  }
  /* K blocks but the last, then the last one (which alone applies the
   * consumer, so it is not computed and discarded in every block); with
   * one block the loop never runs (remove-single-iteration-loops drops
   * it). */
  kiln_op *lj = cg_for(&b, zero, cg_index(&b, nmain), cg_index(&b, nr * vw), 0, NULL, &bj);
  kiln_value *last = cg_index(&bj, K - kc);
  kiln_op *lk = cg_for(&bj, cg_index(&bj, 0), last, cg_index(&bj, kc), 0, NULL, &bk);
  /* P's rows and columns of this K block: the packed panel's from 0, or
   * the pre-packed block's at (k0, j0). */
  if (!Bp) emit_pack_b(&bk, B, cg_for_iv(lk), cg_for_iv(lj), P, kc, nr * vw, vw);
  kiln_value *z = cg_index(&bk, 0);
  mm_fuse f = {.init = whole.init, .first = whole.init ? cg_cmpi(&bk, CG_EQ, cg_for_iv(lk), z) : NULL};
  emit_rows(&bk, M, Md, mr, A, cg_for_iv(lk), P, Bp ? cg_for_iv(lk) : z, Bp ? cg_for_iv(lj) : z, C,
            cg_for_iv(lj), cg_index(&bk, kc), nr, vw, &f);
  if (!Bp) emit_pack_b(&bj, B, last, cg_for_iv(lj), P, kc, nr * vw, vw);
  z = cg_index(&bj, 0);
  f = (mm_fuse){.init = K == kc ? whole.init : NULL, .epi = whole.epi};
  emit_rows(&bj, M, Md, mr, A, last, P, Bp ? last : z, Bp ? cg_for_iv(lj) : z, C, cg_for_iv(lj),
            cg_index(&bj, kc), nr, vw, &f);
  if (fill) kiln_op_erase(fill);
  if (epi.op) kiln_op_erase(epi.op);
  return true;
}
