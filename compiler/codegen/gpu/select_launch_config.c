/* select-gpu-launch-config: per kernel of a cuda variant, the launch
 * configuration.
 *
 * Takes: a cuda variant's inner module (bufferized linalg kernels), or a
 * codegen-level module whose kiln.target names the SM ("cuda:sm_90"; no
 * export or host dispatch records the grid then).
 * Guarantees: kiln.launch = {block_size = [T, 1, 1], pipeline =
 * "gpu-<root>", tile_sizes, vector_width = 4, workgroup_count,
 * workgroup_size = [1, 1, 1]}: tiles and workgroup count are chosen by
 * the llvm-cpu rule with 4-lane vectors (cg_launch_rule_all, codegen_common.h;
 * 128-bit global loads where tiles are full and aligned), since the host
 * dispatches one grid for every variant; T (threads per block) depends on
 * the SM (and for a matmul on its tile configuration). workgroup_size stays the CPU variants' [1, 1, 1]: the module
 * format keeps one workgroup size per export for all variants (the CPU
 * loader checks it), so the block size lives in block_size and in the
 * PTX's .maxntid, and kernels read the launched block size at run time
 * (correct for any block size). workgroup_count is also set on the variant's export and on the
 * host's dispatch sites of it; a disagreement with what another variant
 * recorded is an error.
 * Kernels whose root is an f32 matmul, batch_matmul, conv_2d_nhwc_hwcf
 * (an implicit GEMM: output pixels x channels x filter taps) or
 * conv_2d_nchw_fchw or the ONNX importer's generic (grouped) NCHW
 * convolution (per batch and group: output channels x output pixels x
 * filter taps; gpu_match_conv), and that hold no private memref.alloca
 * scratch, also get the
 * shared-memory tiling of gpu-tile-matmul-shared, per SM:
 * block_tile = [BM, BN] (the block's output tile; the workgroup tile is
 * walked in such tiles), k_step = BK (the K slice staged in workgroup
 * memory per step), thread_tile = [TM, TN] (outputs per thread, held in
 * registers during a step); each clamped to the matmul's sizes, the
 * K step deepened for block tiles smaller than the configured one, the
 * thread tile shrunk while the block tile still has at most one thread
 * tile per thread (matmuls, channels-last convolutions; NCHW ones until
 * every thread has one); pipeline "gpu-matmul-shared" (or
 * "gpu-conv-shared"). In an executable with only GPU variants, a
 * channels-last convolution's tiles are then chosen for the GPU's many
 * SMs instead of the CPU rule's few workers (gpu_conv_tiles), and a
 * streamed matmul's columns (few rows, a large B) the 64-wide tiles of
 * other matmuls instead of the CPU's wide ones (unstream_for_gpu), and
 * any other kernel's parallel tiles halve until there are 128 workgroups
 * or a workgroup would do too little work (spread_for_gpu). */
#include "gpu_internal.h"

#include <stdio.h>
#include <string.h>

/* Per SM and workgroup tile, first match wins: the first row whose
 * min_sm <= the SM, min_rows <= the rows and min_cols <= the columns of
 * the kernel's workgroup tile applies (its threads are the kernel's block
 * size). The block tile is the CPU workgroup tile (64 x 64), so
 * one block covers its workgroup in one pass; each thread owns TM x TN of
 * it. Hopper: 4 warps, 4 x 8 outputs per thread (8 float4 accumulators)
 * and a 32-deep K step (2 x 8 KiB of shared memory: its larger shared
 * memory and L1 keep more blocks resident); plain matmuls whose workgroup
 * tile the CPU rule made 128 rows tall (M a multiple of 128, enough
 * tiles) take one 128 x 64 block with 8 x 8 outputs per thread (more FMAs
 * per shared-memory read; measured on an H200 at 4096^3, bench/gpu, 9
 * configurations: 6.02 ms against 6.71 ms for the 64 x 64 row, the
 * 32-deep K step slower there at 6.25 ms); those GPU-only executables
 * widen to 128 x 128 (widen_for_gpu) take 8 warps, 8 x 8 outputs per
 * thread: half the shared-memory and global traffic per FMA of a 128 x 64
 * block (ptxas: 128 registers, 2 blocks per SM). Ampere and older: 2 warps,
 * 8 x 8 outputs per thread (more reuse per shared load, 64 accumulator
 * registers) and a 16-deep K step (2 x 4 KiB). */
static const struct {
  uint32_t min_sm;
  int64_t min_rows, min_cols;
  gpu_matmul_config cf;
} matmul_configs[] = {
    {90, 128, 128, {256, 128, 128, 16, 8, 8}},
    {90, 128, 0, {128, 128, 64, 16, 8, 8}},
    {90, 0, 0, {128, 64, 64, 32, 4, 8}},
    {0, 0, 0, {64, 64, 64, 16, 8, 8}},
};

gpu_matmul_config gpu_matmul_config_for(uint32_t sm_version, int64_t rows, int64_t cols) {
  const unsigned n = sizeof matmul_configs / sizeof matmul_configs[0];
  for (unsigned i = 0; i < n; i++)
    if (sm_version >= matmul_configs[i].min_sm && rows >= matmul_configs[i].min_rows &&
        cols >= matmul_configs[i].min_cols)
      return matmul_configs[i].cf;
  return matmul_configs[n - 1].cf;
}

int64_t kiln_codegen_gpu_block_size(uint32_t sm_version) {
  /* Hopper has twice the registers per SM per scheduler slot of work we
   * give it here; 4 warps there, 2 warps on Ampere and older (kernels
   * other than the widest matmuls). */
  return gpu_matmul_config_for(sm_version, 0, 0).threads;
}

bool gpu_is_kernel(const kiln_op *f) {
  if (f->kind != KILN_OP_FUNC_FUNC || !f->num_regions || !f->regions[0].first) return false;
  const kiln_attr *ft = kiln_op_get_attr(f, "function_type");
  return ft && ft->kind == KILN_ATTR_TYPE && ft->type->num_inputs == 0 && ft->type->num_results == 0;
}

int64_t gpu_block_threads(kiln_op *func) {
  int64_t ws[3];
  if (cg_launch_array(func, "block_size", ws, 3) >= 1 && ws[0] > 0) return ws[0];
  return 1;
}

kiln_value *gpu_interface(kiln_builder *b, kiln_op_kind kind, int64_t dim) {
  const kiln_type *t = kiln_type_index(b->ctx);
  kiln_named_attr na = {"dim", kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 32), dim)};
  return kiln_op_result(kiln_build(b, kind, 0, NULL, 1, &t, kiln_attr_dict(b->ctx, 1, &na)), 0);
}

bool gpu_has_private_scratch(kiln_op *func) {
  for (kiln_op *o = func->regions[0].first->first; o; o = o->next) {
    if (o->kind != KILN_OP_MEMREF_ALLOCA) continue;
    const kiln_attr *ms = kiln_op_result(o, 0)->type->memspace;
    if (!ms || ms->kind != KILN_ATTR_INTEGER || ms->i != 3) return true;
  }
  return false;
}

#define GPU_K_STEPS 64
#define GPU_MAX_K_STEP 128

static int64_t clamp(int64_t want, int64_t size) { return size > 0 && size < want ? size : want; }

/* block_tile, k_step, thread_tile entries (3) for an f32 matmul root, or 0;
 * *threads: the block size of its configuration. */
static uint32_t matmul_entries(kiln_context *c, kiln_op *f, uint32_t sm, kiln_named_attr *e, int64_t *threads) {
  kiln_op *root = cg_find_root(f);
  int64_t sh, sw, dh, dw;
  const gpu_conv_layout lay = root ? gpu_match_conv(root, &sh, &sw, &dh, &dw) : GPU_CONV_NONE;
  const bool conv = lay != GPU_CONV_NONE;
  if (!root || (root->kind != KILN_OP_LINALG_MATMUL && root->kind != KILN_OP_LINALG_BATCH_MATMUL && !conv) ||
      root->num_operands != 3 || gpu_has_private_scratch(f))
    return 0;
  for (uint32_t i = 0; i < 3; i++) {
    const kiln_type *t = kiln_op_operand(root, i)->type;
    if (t->kind != KILN_TYPE_MEMREF || t->elem->kind != KILN_TYPE_F32) return 0;
  }
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n < 3 || bounds[n - 1] < 1) return 0;
  for (int l = 0; l < n; l++)
    if (bounds[l] < 0) return 0; /* dynamic sizes take the plain path */
  /* GEMM sizes M, N, K of the root (a convolution's implicit GEMM over
   * its workgroup tile: M output pixels n x oh x ow, N channels f, K =
   * kh x kw x c; conv_2d_nchw_fchw's per batch, and the ONNX importer's
   * per batch and group: M channels f, N output pixels oh x ow,
   * contiguous in the NCHW output and, at stride 1, in the input, K = c x
   * kh x kw, contiguous in the filter). */
  int64_t gm = bounds[n - 3], gn = bounds[n - 2], gk = bounds[n - 1];
  if (conv) {
    int64_t tiles[KILN_MAX_LOOPS];
    const int g = lay == GPU_CONV_GROUPED; /* the group loop after n */
    if (n != 7 + g || cg_launch_array(f, "tile_sizes", tiles, KILN_MAX_LOOPS) != n) return 0;
    for (int l = 0; l < 4 + g; l++)
      if (tiles[l] > 0) bounds[l] = tiles[l];
    gk = bounds[4 + g] * bounds[5 + g] * bounds[6 + g];
    if (lay == GPU_CONV_NHWC) gm = bounds[0] * bounds[1] * bounds[2], gn = bounds[3];
    else gm = bounds[1 + g], gn = bounds[2 + g] * bounds[3 + g];
    if (gk < 1) return 0;
  }
  /* plain matmuls: the rows of their workgroup tile (full columns) pick the row */
  int64_t wt[KILN_MAX_LOOPS], rows = 0, cols = 0;
  if (root->kind == KILN_OP_LINALG_MATMUL && n == 3 && cg_launch_array(f, "tile_sizes", wt, KILN_MAX_LOOPS) == 3 &&
      wt[1] >= 64)
    rows = wt[0], cols = wt[1];
  gpu_matmul_config cf = gpu_matmul_config_for(sm, rows, cols);
  *threads = cf.threads;
  int64_t bt[2] = {clamp(cf.bm, gm), clamp(cf.bn, gn)};
  int64_t tt[2] = {clamp(cf.tm, bt[0]), clamp(cf.tn, bt[1])};
  /* Small block tiles: smaller thread tiles (rows first while columns
   * keep 4-wide vectors). Matmuls and channels-last convolutions shrink
   * them while they still number at most one per thread, so that each
   * thread keeps one tile's accumulators in registers (gpu-tile-matmul-
   * shared's register path) and few threads idle; NCHW convolutions,
   * which accumulate in C per K step, until every thread has one. */
  const bool one_per_thread = lay == GPU_CONV_NONE || lay == GPU_CONV_NHWC;
  for (;;) {
    int64_t nt[2] = {tt[0], tt[1]};
    const int64_t count = ((bt[0] + tt[0] - 1) / tt[0]) * ((bt[1] + tt[1] - 1) / tt[1]);
    if (!one_per_thread && count >= cf.threads) break;
    if (tt[0] > 1 && (tt[0] >= tt[1] || tt[1] <= 4)) nt[0] = (tt[0] + 1) / 2;
    else if (tt[1] > 1) nt[1] = (tt[1] + 1) / 2;
    else break;
    if (one_per_thread && ((bt[0] + nt[0] - 1) / nt[0]) * ((bt[1] + nt[1] - 1) / nt[1]) > cf.threads) break;
    tt[0] = nt[0], tt[1] = nt[1];
  }
  /* A block tile smaller than the configured one takes a deeper K step
   * in the same workgroup memory (doubling while A's and B's slices of
   * the step still fit in the configured tiles' bytes, up to
   * GPU_MAX_K_STEP, while the kernel would take more than GPU_K_STEPS
   * steps): each step waits once for its loads, so a small tile
   * over a long K (a late-stage convolution at batch 1: a 14 x 16 tile,
   * K = 4608) was bound by the count of steps, not by its work. */
  int64_t bk = cf.bk;
  while (bk * 2 <= GPU_MAX_K_STEP && bk * 2 * (bt[0] + bt[1]) <= cf.bk * (cf.bm + cf.bn) &&
         (gk + bk - 1) / bk > GPU_K_STEPS)
    bk *= 2;
  e[0].name = "block_tile";
  e[0].value = kiln_attr_dense_i64_array(c, 2, bt);
  e[1].name = "k_step";
  e[1].value = kiln_attr_int(c, kiln_type_int(c, 64), clamp(bk, gk));
  e[2].name = "thread_tile";
  e[2].value = kiln_attr_dense_i64_array(c, 2, tt);
  return 3;
}

/* A GPU has a hundred or more SMs where the CPU rule plans for a few
 * workers: its conv tiles (8 or so workgroups) would leave all but a few
 * SMs idle. In an executable with no CPU variant (whose grid it would
 * have to share), a channels-last convolution's workgroup tile becomes
 * about one block tile instead: P output pixels (whole rows of OW while
 * they fit, else a divisor of OW) by FC channels, from 64 x 64 halved
 * (the larger first) until there are GPU_MIN_WORKGROUPS workgroups,
 * about one per SM of an A100 (108) or H100 (132), or the tile would be
 * too small: below GPU_MIN_TILE outputs (8 per thread of a 128-thread
 * block) only while each thread still has GPU_MIN_WORK / 128
 * multiply-adds to do (a filter
 * of K = kh x kw x c taps: deep late-stage convolutions, whose 7 x 7 or
 * 14 x 14 outputs at batch 1 otherwise made 32 to 56 workgroups that
 * each ran thousands of K steps serially: ResNet-18's 512-channel 3x3s
 * took 170 us each on an H200), and never below one output per thread.
 * Shapes alone decide, so every SM's variant agrees on the grid. The
 * block tile then clamps to it (matmul_entries). */
#define GPU_MIN_WORKGROUPS 128
#define GPU_MIN_TILE 1024
#define GPU_MIN_WORK (256 * 1024)
#define GPU_BLOCK_THREADS 128
static void gpu_conv_tiles(const int64_t *b, int64_t k, int64_t *tiles) {
  int64_t p = 64, fc = b[3] < 64 ? b[3] : 64;
  for (;;) {
    int64_t ow = b[2], oh = 1;
    if (p >= b[2]) {
      oh = p / b[2] < b[1] ? p / b[2] : b[1];
    } else {
      for (ow = p; b[2] % ow; ow--) {}
    }
    tiles[0] = 1, tiles[1] = oh, tiles[2] = ow, tiles[3] = fc;
    int64_t count = b[0] * ((b[1] + oh - 1) / oh) * ((b[2] + ow - 1) / ow) * ((b[3] + fc - 1) / fc);
    if (count >= GPU_MIN_WORKGROUPS) return;
    int64_t np = p, nfc = fc;
    if (p > 1 && p >= fc) np = p / 2;
    else if (fc > 1) nfc = fc / 2;
    const int64_t outputs = np * nfc;
    const bool enough = outputs >= GPU_MIN_TILE || (outputs >= GPU_BLOCK_THREADS && outputs * k >= GPU_MIN_WORK);
    if (!enough || (np == p && nfc == fc)) return;
    p = np, fc = nfc;
  }
}

/* Is every variant of the executable a GPU one (no CPU grid to share)? */
static bool gpu_only(const kiln_op *exe) {
  if (!exe || !exe->num_regions || !exe->regions[0].first) return false;
  for (kiln_op *v = exe->regions[0].first->first; v; v = v->next) {
    if (v->kind != KILN_OP_HAL_EXECUTABLE_VARIANT) continue;
    const kiln_attr *t = kiln_op_get_attr(v, "target");
    if (!t || t->kind != KILN_ATTR_STRING || strncmp(t->str, "cuda:", 5) != 0) return false;
  }
  return true;
}

/* A streamed matmul's wide column tiles (cg_streamed_matmul: few rows,
 * B past the CPU's pre-packing cap) are for two CPU workers streaming B;
 * the GPU's many SMs take the 64-column tiles of every other matmul. */
static void unstream_for_gpu(kiln_op *f, kiln_op *root) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS], tiles[KILN_MAX_LOOPS];
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n != 3 || cg_launch_array(f, "tile_sizes", tiles, KILN_MAX_LOOPS) != n || bounds[1] <= 64 ||
      tiles[1] <= 64 || !cg_streamed_matmul(bounds[0], bounds[2], bounds[1], 4))
    return;
  tiles[1] = 64;
  cg_launch_retile(f, tiles, n);
}

/* A plain matmul's 128 x 64 workgroup tiles (the CPU rule's for M a
 * multiple of 128) become 128 x 128 where N is a multiple of 128 and that
 * still leaves 264 workgroups, two per SM of an H100/H200: the sm_90 table's
 * 256-thread block then covers one (measured on an H200, bench/gpu). */
#define GPU_WIDE_WORKGROUPS 264
static void widen_for_gpu(kiln_op *f, kiln_op *root) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS], tiles[KILN_MAX_LOOPS];
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n != 3 || cg_launch_array(f, "tile_sizes", tiles, KILN_MAX_LOOPS) != n || tiles[0] < 128 || tiles[1] != 64 ||
      bounds[0] < 1 || bounds[1] < 128 || bounds[1] % 128 != 0 ||
      (bounds[0] + tiles[0] - 1) / tiles[0] * (bounds[1] / 128) < GPU_WIDE_WORKGROUPS)
    return;
  tiles[1] = 128;
  cg_launch_retile(f, tiles, n);
}

/* Other kernels (copies, transposes, elementwise chains, pools and other
 * reductions) keep the CPU rule's few workgroups unless retiled: an
 * NCHW-to-NHWC copy of a 224 x 224 image ran as 2 workgroups, 160 us on
 * an H200, and a max pool as 8, 156 us (bench/gpu). Their parallel tiles
 * halve, the largest first (the innermost parallel loop, contiguous and
 * vectorized, counting a quarter of its size), until there are
 * GPU_MIN_WORKGROUPS workgroups or a workgroup would do fewer than
 * GPU_MIN_SPREAD elements of work (its parallel tile times the reduction
 * extent: 4 per thread of a 128-thread block). cg_launch_retile keeps
 * the old tiles if the new ones cannot be distributed. */
#define GPU_MIN_SPREAD 512
static void spread_for_gpu(kiln_op *f, kiln_op *root) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS], old[KILN_MAX_LOOPS], t[KILN_MAX_LOOPS];
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n < 1 || cg_launch_array(f, "tile_sizes", old, KILN_MAX_LOOPS) != n) return;
  int64_t red_extent = 1, inner = -1;
  for (int l = 0; l < n; l++) {
    if (bounds[l] < 1) return;
    if (red[l]) {
      red_extent *= bounds[l];
      t[l] = old[l];
      continue;
    }
    t[l] = old[l] > 0 && old[l] < bounds[l] ? old[l] : bounds[l];
    inner = l;
  }
  if (inner < 0) return;
  bool changed = false;
  for (;;) {
    int64_t count = 1, volume = red_extent, pick = -1, best = 1;
    for (int l = 0; l < n; l++) {
      if (red[l]) continue;
      count *= (bounds[l] + t[l] - 1) / t[l];
      volume *= t[l];
      const int64_t weight = l == inner ? t[l] / 4 : t[l];
      if (t[l] > 1 && weight >= best) best = weight, pick = l;
    }
    if (count >= GPU_MIN_WORKGROUPS || pick < 0) break;
    const int64_t half = (t[pick] + 1) / 2;
    if (volume / t[pick] * half < GPU_MIN_SPREAD) break;
    t[pick] = half;
    changed = true;
  }
  if (!changed) return;
  for (int l = 0; l < n; l++)
    if (!red[l] && old[l] <= 0 && t[l] == bounds[l]) t[l] = old[l]; /* still whole: untiled */
  cg_launch_retile(f, t, n);
}

static void retile_for_gpu(kiln_op *f) {
  kiln_op *root = cg_find_root(f);
  if (root && root->kind == KILN_OP_LINALG_MATMUL) {
    unstream_for_gpu(f, root);
    widen_for_gpu(f, root);
    return;
  }
  int64_t sh, sw, dh, dw;
  if (!root) return;
  const gpu_conv_layout lay = gpu_match_conv(root, &sh, &sw, &dh, &dw);
  if (lay == GPU_CONV_NONE && root->kind != KILN_OP_LINALG_BATCH_MATMUL) {
    spread_for_gpu(f, root);
    return;
  }
  if (lay != GPU_CONV_NHWC || gpu_has_private_scratch(f)) return;
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS], old[KILN_MAX_LOOPS], tiles[KILN_MAX_LOOPS] = {0};
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n != 7 || cg_launch_array(f, "tile_sizes", old, KILN_MAX_LOOPS) != n) return;
  for (int l = 0; l < 4; l++)
    if (bounds[l] < 1) return;
  int64_t before = 1, after = 1;
  gpu_conv_tiles(bounds, bounds[4] * bounds[5] * bounds[6], tiles);
  for (int l = 0; l < 4; l++) {
    before *= old[l] > 0 ? (bounds[l] + old[l] - 1) / old[l] : 1;
    after *= (bounds[l] + tiles[l] - 1) / tiles[l];
  }
  if (after > before) cg_launch_retile(f, tiles, n);
}

static bool conv_root(kiln_op *f) {
  kiln_op *root = cg_find_root(f);
  int64_t sh, sw, dh, dw;
  return root && gpu_match_conv(root, &sh, &sw, &dh, &dw) != GPU_CONV_NONE;
}

kiln_error *kiln_codegen_gpu_select_launch_config(kiln_op *inner, void *user) {
  (void)user;
  kiln_context *c = kiln_op_context(inner);
  kiln_op *var = kiln_op_parent_op(inner), *exe = NULL, *top = NULL;
  if (var && var->kind != KILN_OP_HAL_EXECUTABLE_VARIANT) var = NULL;
  if (var) exe = kiln_op_parent_op(var);
  if (exe) top = kiln_op_parent_op(exe);
  const kiln_attr *t = kiln_op_get_attr(var ? var : inner, var ? "target" : "kiln.target");
  unsigned sm = 0;
  if (!t || t->kind != KILN_ATTR_STRING || sscanf(t->str, "cuda:sm_%u", &sm) != 1)
    return var ? kiln_error_new("select-gpu-launch-config: the variant's target is not cuda:sm_NN")
               : kiln_error_new("select-gpu-launch-config: the module needs kiln.target = \"cuda:sm_NN\"");
  kiln_error *err = cg_launch_rule_all(inner, 4);
  if (err) return err;
  if (gpu_only(exe))
    for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next)
      if (gpu_is_kernel(f) && cg_launch(f)) retile_for_gpu(f);
  kiln_op *exp = NULL;
  for (kiln_op *o = var && var->regions[0].first ? var->regions[0].first->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_HAL_EXECUTABLE_EXPORT) exp = o;
  const int64_t threads = kiln_codegen_gpu_block_size(sm);
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    const kiln_attr *l = gpu_is_kernel(f) ? cg_launch(f) : NULL;
    if (!l) continue;
    kiln_named_attr e[16];
    int64_t bs[3] = {threads, 1, 1};
    e[0].name = "block_size";
    e[0].value = kiln_attr_dense_i64_array(c, 3, bs);
    int64_t mt = threads;
    uint32_t n = 1 + matmul_entries(c, f, sm, e + 1, &mt);
    if (n > 1 && mt != threads) { /* this matmul's configuration's own block size */
      bs[0] = mt;
      e[0].value = kiln_attr_dense_i64_array(c, 3, bs);
    }
    const bool shared = n > 1;
    for (uint32_t i = 0; i < l->count && n < 16; i++) {
      e[n] = l->entries[i];
      if (strcmp(e[n].name, "block_size") == 0 || strcmp(e[n].name, "block_tile") == 0 ||
          strcmp(e[n].name, "k_step") == 0 || strcmp(e[n].name, "thread_tile") == 0)
        continue;
      if (strcmp(e[n].name, "pipeline") == 0 && e[n].value->kind == KILN_ATTR_STRING) {
        char buf[64];
        /* (a generic convolution is a reduction root to the CPU rule) */
        const char *p = shared && conv_root(f) ? "conv" : e[n].value->str;
        snprintf(buf, sizeof buf, "gpu-%s%s", strncmp(p, "cpu-", 4) == 0 ? p + 4 : p,
                 shared ? "-shared" : "");
        e[n].value = kiln_attr_string(c, buf, strlen(buf));
      } else if (strcmp(e[n].name, "workgroup_count") == 0 && exp &&
                 strcmp(kiln_symbol_name(f), kiln_symbol_name(exp)) == 0) {
        err = cg_record_grid(top, exe, exp, f, false);
        if (err) return err;
      }
      n++;
    }
    kiln_op_set_attr(f, "kiln.launch", kiln_attr_dict(c, n, e));
  }
  return NULL;
}
