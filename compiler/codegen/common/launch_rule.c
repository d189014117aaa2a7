/* The launch rule (codegen_common.h, cg_launch_rule), moved here from
 * llvm-cpu's select-launch-config so that the GPU path shares it without
 * including the CPU back end: per kernel of a kernel module (an llvm-cpu
 * variant's inner module, a cuda variant's, or a codegen-level module),
 * picks the root op and records
 *   kiln.launch = {pipeline, tile_sizes (one per root loop, 0 = not tiled),
 *                  vector_width, workgroup_size = [1,1,1],
 *                  workgroup_count = [x,y,z]}
 * on the kernel, and workgroup_count on its hal.executable.export and on
 * every host hal.command_buffer.dispatch of that export. A dynamic
 * distributed dim (its tile count known at run time) makes its entry '?'
 * and the host computes it before each dispatch: ceildiv of the push
 * constant holding that dim by the tile, times the slot's other counts.
 *
 * Tile sizes depend only on the shapes, never on the variant, so every
 * variant of an executable agrees on the workgroup count the host
 * dispatches (a disagreement is reported as an error). Reduction loops
 * are not tiled (a workgroup owns whole reductions). A kernel whose ops
 * cannot all be restricted to the root's tiles (a fused op that reads,
 * in another position, what the kernel wrote; side-effecting non-linalg
 * ops) runs as one workgroup: correct, just not parallel. */
#include "codegen_common.h"

#include <string.h>

#include "dialects/hal.h"
#include "dialects/hal_interface.h"

/* The smallest divisor p of n with count * p >= want, an even one when
 * there is such (two workers then split the tiles evenly); n when none. */
static int64_t split_parts(int64_t n, int64_t count, int64_t want) {
  int64_t any = 0;
  for (int64_t p = 2; p <= n; p++) {
    if (n % p || count * p < want) continue;
    if (!any) any = p;
    if ((count * p) % 2 == 0) return p;
  }
  return any ? any : n;
}

/* Convolutions (and other implicit GEMMs): a workgroup owns whole
 * output rows (the microkernel's row loop is not tiled) of a block of
 * output channels. Channels are split first, in halves while they stay a
 * multiple of 32 lanes (every vector width's NR*VW), since every pixel
 * tile packs its own copy of the weights; then the other loops W uses
 * (groups, blocks of output channels), then the other parallel loops
 * (batch one at a time, output rows by a divisor, so no tile is partial)
 * until there are about CG_CONV_WORKGROUPS workgroups or each would do
 * less than CG_CONV_MIN_MACS multiply-adds. A convolution whose input
 * passes L2 may take a split of its pixels instead (pixel_tiles). */

/* Does operand i's map use loop l? */
static bool op_uses(const cg_igemm *g, uint32_t i, int l) {
  const kiln_affine_map *m = g->maps[i];
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    cg_linear_expr(m->results[r], g->loops, coef, &cst);
    if (coef[l]) return true;
  }
  return false;
}

static bool w_uses(const cg_igemm *g, int l) { return op_uses(g, g->w, l); }

#define CG_CONV_WORKGROUPS 8
#define CG_CONV_MIN_MACS (256 * 1024)
/* Channel tiles cut past the halving are whole blocks of this many lanes
 * (every vector width's NR*VW), and only for weights of at least
 * CG_CONV_BIG_W bytes (the packed panel's budget: past it every pixel
 * tile streams them from beyond L2). */
#define CG_CONV_LANES 32
#define CG_CONV_BIG_W (256 * 1024)
/* f32 lanes of the widest vector (AVX-512). */
#define CG_CONV_LANE_GROUPS 16

/* The channel tile, a multiple of CG_CONV_LANES below nc (the last tile
 * partial where it does not divide nc), whose tile count is the smallest
 * even one reaching `want` tiles, else the largest even one; 0 when no
 * such tile gives an even count. */
static int64_t lane_tile(int64_t nc, int64_t want) {
  int64_t best = 0, best_n = 0;
  for (int64_t t = CG_CONV_LANES; t < nc; t += CG_CONV_LANES) {
    int64_t n = (nc + t - 1) / t;
    if (n % 2) continue;
    if (!best || (n >= want ? best_n < want || n < best_n : best_n < want && n > best_n))
      best = t, best_n = n;
  }
  return best;
}

/* The tile of a loop of filter blocks narrower than CG_CONV_LANES (a
 * loop W and the output use and X does not: blocked filters of 16
 * channels, 400 = 25 x 16): whole groups of blocks reaching those lanes,
 * so the microkernel pairs two blocks of 16 into a tile of 32 columns
 * (lower_conv.c), the last tile partial where they do not divide the
 * blocks; a larger divisor of the blocks, a multiple of that group,
 * where fewer tiles still reach `want` (an even count where one does).
 * 0: not such a loop. */
static int64_t block_tile(const cg_igemm *g, int l, int64_t count, int64_t want) {
  int64_t nc = g->bounds[g->col], nb = g->bounds[l];
  if (nc < 1 || nc >= CG_CONV_LANES || CG_CONV_LANES % nc || op_uses(g, g->x, l) ||
      !op_uses(g, g->out, l))
    return 0;
  int64_t m = CG_CONV_LANES / nc, any = 0;
  for (int64_t t = nb / m * m; t > m; t -= m) {
    if (nb % t || count * (nb / t) < want) continue;
    if (!any) any = t;
    if (count * (nb / t) % 2 == 0) return t;
  }
  return any ? any : m < nb ? m : nb;
}

/* Groups a 512-bit vector holds where a grouped convolution has 2, 4 or
 * 8 channels a group in and out (lower_conv.c's lane path: one vector
 * across 16 / L groups, at full FMA rate), else 0; l is the group loop. A tile of its groups
 * is a multiple of that, the last one partial where it does not divide
 * the groups: a tile of one group of 8 runs on 8 lanes (ymm), half the
 * rate (RegNetY-400MF's 13 groups of 8 at 28x28 took 26 tiles of one
 * group each). Every narrower vector divides 16 lanes. */
static int64_t lane_groups_tile(const cg_igemm *g, int l) {
  int64_t L = g->bounds[g->col];
  int last = -1;
  for (int k = 0; k < g->loops; k++)
    if (g->red[k]) last = k;
  if (!w_uses(g, l) || !op_uses(g, g->x, l) || !op_uses(g, g->out, l) || (L != 2 && L != 4 && L != 8) ||
      last < 0 || g->bounds[last] != L)
    return 0;
  return CG_CONV_LANE_GROUPS / L;
}

/* Dense convolutions over large maps (ResNeXt's 256->256 1x1 at 4x56x56:
 * 12.8 MB of input, 256 KB of weights): the channel-first split above
 * gives every workgroup one block of output channels and all the pixels,
 * so each of its 8 workgroups streams the whole input from L3 or memory,
 * 8 times the input where the weights are a fraction of it. Cutting the
 * pixels instead (images, then output rows) into blocks whose input fits
 * a core's L2 share, each workgroup taking all the output channels, reads
 * the input once: every channel block of the tile (the kernel's outer
 * loop) finds the tile's input in L2; only the weights are read once per
 * tile. pixel_tiles takes that split where its traffic (tiles x weights
 * + input) is at most 3/4 of the channel split's (its tiles along the
 * channels x input + its pixel tiles x weights); it leaves 7x7 and
 * 14x14 maps of megabytes of weights (the weights dominate) to the
 * channel split.
 * Grouped convolutions (the groups select the input's channels too):
 * their channel split reads no input byte twice, but each workgroup reads
 * its groups' few channels of every pixel, a line or two a pixel apart
 * across the whole input, which the hardware prefetchers serve poorly
 * (ResNeXt's 4x56x56x256 input, groups of 8 in 8 tiles of 32 channels:
 * 128 of every 1024 bytes). They take the pixel split, whose tiles read
 * their input in runs, where the weights stay in a core's L2 beside the
 * tile's input (512 KB: reading them once per tile then moves little
 * from beyond L2) and, for 4 channels a group or fewer, fit the panel
 * that lower_conv.c's lane path packs a tile's groups into (256 KB). */
#define CG_CONV_X_TILE (512 * 1024)

/* Bytes (f32) of X that the pixels of tiles t read: for each X dim the
 * extent its map spans, the reductions whole (a stride-2 map spans
 * twice the rows: over-counted, never under). -1: not affine. */
static int64_t x_bytes(const cg_igemm *g, const int64_t *t) {
  const kiln_affine_map *m = g->maps[g->x];
  int64_t bytes = 4;
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], g->loops, coef, &cst)) return -1;
    int64_t ext = 1;
    for (int l = 0; l < g->loops; l++) {
      int64_t b = g->red[l] ? g->bounds[l] : t[l];
      ext += (coef[l] < 0 ? -coef[l] : coef[l]) * ((b < 1 ? 1 : b) - 1);
    }
    bytes *= ext;
  }
  return bytes;
}

/* The pixel split (above) into tiles, or false where the channel split
 * `old` moves less (or not much more) data, where a tile cannot reach
 * CG_CONV_X_TILE, or where its tiles would do less than CG_CONV_MIN_MACS
 * each. Images one a tile first, then the output rows by the smallest
 * divisor that brings the tile's input within CG_CONV_X_TILE and the
 * count to `want`, an even count where there is one. */
static bool pixel_tiles(const cg_igemm *g, const int64_t *old, int64_t want, int64_t macs,
                        int64_t wsize, int64_t *tiles) {
  int64_t t[KILN_MAX_LOOPS] = {0}, full[KILN_MAX_LOOPS] = {0};
  int big = -1;
  bool grouped = false;
  for (int l = 0; l < g->loops; l++) {
    full[l] = t[l] = g->red[l] ? 0 : g->bounds[l] < 0 ? 1 : g->bounds[l];
    if (g->red[l] || l == g->row || l == g->col) continue;
    /* a loop W and X both use: groups */
    if (w_uses(g, l) && op_uses(g, g->x, l)) grouped = true;
    if (!w_uses(g, l) && g->bounds[l] > 1 && (big < 0 || g->bounds[l] > g->bounds[big])) big = l;
  }
  int64_t xall = x_bytes(g, full);
  if (big < 0 || xall <= CG_CONV_X_TILE) return false;
  int64_t count = 1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || l == g->row || l == g->col || l == big || w_uses(g, l) || g->bounds[l] <= 1) continue;
    t[l] = 1;
    count *= g->bounds[l];
  }
  int64_t rows = g->bounds[big], pick = 0;
  for (int64_t p = 1; p <= rows; p++) {
    if (rows % p) continue;
    t[big] = rows / p;
    if (count * p < want || x_bytes(g, t) > CG_CONV_X_TILE) continue;
    if (!pick) pick = p;
    if (count * p % 2 == 0) {
      pick = p;
      break;
    }
    if (p > 2 * pick) break; /* an even count only much further: keep the odd one */
  }
  if (!pick) return false;
  t[big] = rows / pick;
  count *= pick;
  if (count > macs / CG_CONV_MIN_MACS) return false;
  if (grouped && (wsize > CG_CONV_X_TILE || (g->bounds[g->col] <= 4 && wsize > CG_CONV_BIG_W)))
    return false;
  /* The channel split's traffic: each of its tiles along W's loops (and
   * the columns) reads its pixels' input; each along the pixels its
   * share of W. */
  int64_t tw = 1, tp = 1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || old[l] < 1) continue;
    int64_t b = g->bounds[l] < 0 ? 1 : g->bounds[l], n = (b + old[l] - 1) / old[l];
    if (l == g->col || w_uses(g, l)) tw *= n;
    else tp *= n;
  }
  if (!grouped && 4 * (count * wsize + xall) > 3 * (tw * xall + tp * wsize)) return false;
  for (int l = 0; l < g->loops; l++) tiles[l] = t[l];
  return true;
}

static void conv_tiles(const cg_igemm *g, int64_t *tiles) {
  /* A dynamic outer loop (a batch) is tiled by 1 and counted as 1: the
   * tiles are those of the static shape with that loop 1. */
  int64_t macs = 1;
  for (int l = 0; l < g->loops; l++) macs *= g->bounds[l] < 0 ? 1 : g->bounds[l];
  int64_t want = macs / CG_CONV_MIN_MACS;
  if (want > CG_CONV_WORKGROUPS) want = CG_CONV_WORKGROUPS;
  if (want < 1) want = 1;
  int64_t count = 1;
  for (int l = 0; l < g->loops; l++) tiles[l] = g->red[l] ? 0 : g->bounds[l] < 0 ? 1 : g->bounds[l];
  int64_t tc = g->bounds[g->col];
  while (count * (g->bounds[g->col] / tc) < want && tc % 64 == 0) tc /= 2;
  /* Channels that do not halve (1000 classes of a classifier written as
   * a 1x1 convolution): where there are more of them than output pixels
   * and the weights are big, every pixel tile would stream all the
   * weights (13 row tiles of a 13x13 map reading 2 MB each), so the
   * channels are cut instead, into whole lane blocks. */
  int64_t pixels = 1, wsize = 4;
  for (int l = 0; l < g->loops; l++) {
    int64_t b = g->bounds[l] < 0 ? 1 : g->bounds[l];
    if (w_uses(g, l)) wsize *= b;
    else if (!g->red[l]) pixels *= b;
  }
  int64_t nc = g->bounds[g->col];
  if (nc / tc < want && nc % tc == 0 && nc > pixels && wsize >= CG_CONV_BIG_W) {
    int64_t t = lane_tile(nc, want);
    if (t && t < tc) tc = t;
  }
  tiles[g->col] = tc;
  count *= (nc + tc - 1) / tc;
  /* Then the loops W uses besides the channels (groups, blocks of
   * output channels): splitting them splits the weights too, where
   * splitting pixels would make every workgroup stream all of them. */
  for (int l = 0; l < g->loops && count < want; l++) {
    if (g->red[l] || l == g->row || l == g->col || g->bounds[l] <= 1 || !w_uses(g, l)) continue;
    int64_t bt = block_tile(g, l, count, want), m = lane_groups_tile(g, l);
    if (m) {
      /* the split's tile rounded up to whole vectors of groups */
      int64_t t = g->bounds[l] / split_parts(g->bounds[l], count, want);
      bt = (t + m - 1) / m * m;
      if (bt > g->bounds[l]) bt = g->bounds[l];
    }
    tiles[l] = bt ? bt : g->bounds[l] / split_parts(g->bounds[l], count, want);
    count *= (g->bounds[l] + tiles[l] - 1) / tiles[l];
  }
  /* Then the small outer loops (batch) whole, and the largest one
   * (output rows) last, by the smallest divisor reaching the target. */
  int big = -1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l] || l == g->row || l == g->col || g->bounds[l] < 0 || w_uses(g, l)) continue;
    if (big < 0 || g->bounds[l] > g->bounds[big]) big = l;
  }
  for (int l = 0; l < g->loops && count < want; l++) {
    if (g->red[l] || l == g->row || l == g->col || l == big || g->bounds[l] <= 1 || w_uses(g, l))
      continue;
    tiles[l] = 1;
    count *= g->bounds[l];
  }
  if (big >= 0 && count < want) tiles[big] = g->bounds[big] / split_parts(g->bounds[big], count, want);
  int64_t px[KILN_MAX_LOOPS];
  if (pixel_tiles(g, tiles, want, macs, wsize, px))
    for (int l = 0; l < g->loops; l++) tiles[l] = px[l];
}

/* Does every input of root that uses its last parallel loop L, and its
 * output, have L as their last index (channels-last windows and pools,
 * reductions over the spatial dims: vectorized along L), with some input
 * reading along L? */
static bool along_last_parallel(kiln_op *root, const bool *red, int n) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool r2[KILN_MAX_LOOPS];
  if (root->num_operands > CG_MAX_OPERANDS || cg_iteration(root, maps, r2) != n) return false;
  int L = -1;
  for (int l = 0; l < n; l++)
    if (!red[l]) L = l;
  if (L < 0) return false;
  uint32_t nin = kiln_linalg_num_inputs(root);
  bool any = false;
  for (uint32_t i = 0; i < root->num_operands; i++) {
    const kiln_affine_map *m = maps[i];
    bool uses = false;
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      if (!cg_linear_expr(m->results[r], n, coef, &cst)) return false;
      uses |= coef[L] != 0;
    }
    const kiln_affine_expr *last = m->num_results ? m->results[m->num_results - 1] : NULL;
    bool ok = last && last->kind == KILN_AFFINE_DIM && last->value == L;
    if ((uses || i >= nin) && !ok) return false;
    any |= i < nin && uses;
  }
  return any;
}

/* Window reductions that are not implicit GEMMs (depthwise convolutions,
 * pools, global pools) with static bounds (but for a run-time batch:
 * run_time_outer): the vector path runs along the
 * innermost parallel loop (channels) with the next one register-blocked,
 * so a workgroup owns whole rows of that one. The work (iterations times
 * the body's ops, so a pool that recomputes a fused SiLU counts as the
 * heavier op it is) asks for about CG_CONV_WORKGROUPS tiles of at least
 * CG_CONV_MIN_MACS each (a smaller one of at least CG_SPLIT_MIN_WORK
 * takes two: split_small). The loops outside the rows (a batch) are cut
 * first (outer_first, split_tiles). The tiles split the largest outer parallel
 * loop (output rows) by a divisor and the channels by a divisor of their
 * 16-lane groups (whole 64-byte lines, so two workers never write one
 * line): the fewest tiles reaching the target, an even count where there is one (two
 * workers then get equal halves), rows before channels. Channels matter
 * where rows cannot split: a global pool (one output row) or 7x7 maps,
 * which rows alone would cut into 7 tiles, 4 against 3 on two workers. */
#define CG_LANE_GROUP 16

/* A window op or copy below its work target but of at least this much
 * work (iterations; a copy's elements) asks for two tiles, not one: as one
 * workgroup it runs on the submitting thread alone, which on two workers
 * reads the half of its input the other core wrote (the producer split
 * its rows) from that core's cache, slower than both threads each
 * reading their own half (an idle worker is spinning between a model's
 * dispatches, so the second tile costs no wake-up). */
#define CG_SPLIT_MIN_WORK (32 * 1024)
#define CG_SPLIT_MIN_ELEMS (8 * 1024)
static int64_t split_small(int64_t want, int64_t work, int64_t min) {
  return want < 2 && work >= min ? 2 : want;
}

/* Parts *pr of `rows` and *pc of `groups` (each a divisor), with `outer`
 * tiles already cut by the loops outside them: the fewest
 * tiles reaching `want` (the most when none does), an even count where
 * there is one (two workers then get equal halves), then fewer channel
 * cuts. */
static void pick_split(int64_t rows, int64_t groups, int64_t outer, int64_t want, int64_t *pr,
                       int64_t *pc) {
  *pr = *pc = 1;
  bool have = false, reach = false, even = false;
  for (int64_t r = 1; r <= rows; r++) {
    if (rows % r) continue;
    for (int64_t c = 1; c <= groups; c++) {
      if (groups % c) continue;
      int64_t count = outer * r * c, best = outer * *pr * *pc;
      bool rch = count >= want, ev = count % 2 == 0;
      bool better;
      if (!have) better = true;
      else if (rch != reach) better = rch;
      else if (ev != even) better = ev;
      else if (count != best) better = rch ? count < best : count > best;
      else better = c < *pc;
      if (better) *pr = r, *pc = c, have = true, reach = rch, even = ev;
    }
  }
}

/* The loops outside `big` (the rows): a batch, cut first, one image a
 * tile, as conv_tiles cuts a convolution's: consecutive ops of a batched
 * network then split alike, each worker reading the images its own core
 * wrote (a depthwise convolution split by rows between two 1x1
 * convolutions split by images handed half of every map to the other
 * core). Only until `want` tiles; returns their count, which pick_split
 * then rounds to an even total with the rows and channels. */
static int64_t outer_first(const bool *red, const bool *fixed, const int64_t *bounds, int big,
                           int last, int64_t want, int64_t *tiles) {
  int64_t count = 1;
  for (int l = 0; l < big && count < want; l++) {
    if (red[l] || l == last || (fixed && fixed[l]) || bounds[l] <= 1) continue;
    tiles[l] = 1;
    count *= bounds[l];
  }
  return count;
}

/* The rows' and channels' parts, cutting the images first (outer_first)
 * unless that leaves an odd count whose busier half is larger than the
 * one the rows alone give (3 images of 23 rows: 3 tiles, 2 against 1,
 * against 23 of one row, 12 against 11): then the outer loops stay whole. */
static void split_tiles(const bool *red, const bool *fixed, const int64_t *bounds, int big,
                        int last, int64_t rows, int64_t groups, int64_t want, int64_t *tiles,
                        int64_t *pr, int64_t *pc) {
  int64_t outer = outer_first(red, fixed, bounds, big, last, want, tiles);
  pick_split(rows, groups, outer, want, pr, pc);
  int64_t n = outer * *pr * *pc;
  if (outer == 1 || n % 2 == 0) return;
  int64_t r, c;
  pick_split(rows, groups, 1, want, &r, &c);
  int64_t m = r * c;
  /* busier shares (n + 1) / 2n against (m + 1) / 2m */
  if (m % 2 == 0 || (m + 1) * n < (n + 1) * m) {
    for (int l = 0; l < big; l++)
      if (!red[l] && l != last) tiles[l] = bounds[l];
    *pr = r, *pc = c;
  }
}

/* The bounds a window op or copy is tiled for (into b): a run-time
 * parallel loop outside the innermost parallel one and not fixed (a
 * batch) counts as 1 and takes tiles of 1, its tile count the host's (one
 * image a tile, as conv_tiles cuts a convolution's), the static loops
 * split as for one image: the work of a pad or pool over a run-time batch
 * still spreads over the workers at batch 1. False (one workgroup) where
 * another loop is of run-time size. */
static bool run_time_outer(const bool *red, const bool *fixed, const int64_t *bounds, int n,
                           int64_t *b) {
  int last = -1;
  for (int l = 0; l < n; l++)
    if (!red[l]) last = l;
  for (int l = 0; l < n; l++) {
    b[l] = bounds[l];
    if (bounds[l] >= 1) continue;
    if (red[l] || l == last || (fixed && fixed[l])) return false;
    b[l] = 1;
  }
  return true;
}

static int64_t body_ops(kiln_op *root) {
  int64_t n = 0;
  kiln_block *body = root->num_regions ? root->regions[0].first : NULL;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next)
    n += o->kind != KILN_OP_LINALG_YIELD;
  return n;
}

static int64_t even_tile(int64_t b, int64_t t0);

/* A window op's odd tile count that no divisor avoids (EfficientNet's 144
 * channels, 9 lane groups, at 65x65 rows; a global pool of 144 channels in
 * 3 tiles of 48) leaves one of two workers a tile more: the rows, else
 * the channels in whole lane groups, take even_tile's even count (the last
 * tile partial) where that shortens the busier worker's share (65 rows as
 * 33 + 32; 144 channels as 80 + 64). */
static void window_even(const bool *red, const int64_t *bounds, int n, int big, int last,
                        int64_t *tiles) {
  int64_t count = 1;
  for (int l = 0; l < n; l++)
    if (!red[l]) count *= (bounds[l] + tiles[l] - 1) / tiles[l];
  if (count < 2 || count % 2 == 0) return;
  if (big >= 0) {
    int64_t t = even_tile(bounds[big], tiles[big]);
    if (t != tiles[big]) {
      tiles[big] = t;
      return;
    }
  }
  if (bounds[last] % CG_LANE_GROUP == 0 && tiles[last] % CG_LANE_GROUP == 0) {
    int64_t g = tiles[last] / CG_LANE_GROUP;
    tiles[last] = even_tile(bounds[last] / CG_LANE_GROUP, g) * CG_LANE_GROUP;
  }
}

static bool window_tiles(kiln_op *root, const bool *red, const int64_t *bounds0, int n,
                         int64_t *tiles) {
  int64_t work = 1, bounds[KILN_MAX_LOOPS];
  int last = -1, big = -1;
  if (!run_time_outer(red, NULL, bounds0, n, bounds)) return false;
  for (int l = 0; l < n; l++) {
    work *= bounds[l];
    tiles[l] = red[l] ? 0 : bounds[l];
    if (!red[l]) last = l;
  }
  for (int l = 0; l < n; l++)
    if (!red[l] && l != last && (big < 0 || bounds[l] > bounds[big])) big = l;
  /* A body of a multiply-add or less (a named op's) counts as the
   * iteration count. */
  int64_t ops = body_ops(root);
  if (ops > 2) work = work / 2 * ops;
  int64_t want = split_small(work / CG_CONV_MIN_MACS, work, CG_SPLIT_MIN_WORK);
  if (want > CG_CONV_WORKGROUPS) want = CG_CONV_WORKGROUPS;
  if (want <= 1 || last < 0) return true;
  int64_t rows = big >= 0 ? bounds[big] : 1;
  int64_t groups = bounds[last] % CG_LANE_GROUP == 0 ? bounds[last] / CG_LANE_GROUP : 1;
  int64_t pr, pc;
  split_tiles(red, NULL, bounds, big, last, rows, groups, want, tiles, &pr, &pc);
  if (big >= 0) tiles[big] = rows / pr;
  tiles[last] = bounds[last] / pc;
  window_even(red, bounds, n, big, last, tiles);
  return true;
}

/* Kernels whose ops write one rank in several shapes (a pad: a fill of
 * the whole padded buffer and the root's copy into its interior) can be
 * split only along the dims where all those outputs agree (tile-and-
 * distribute restricts every op to the same range there): fixed[l] marks
 * the root's loops of the others. False when there are none. Fills of a
 * static pad's border around the root's static window are no such op
 * (tile-and-distribute gives each tile its share of the border:
 * cg_border_fill), but set *border. Elementwise roots of kernels with
 * either take free_tiles, the others keep_fixed_whole where a dim is
 * fixed. */
static bool fixed_loops(kiln_op *func, kiln_op *root, const kiln_affine_map *const *maps, int n,
                        bool *fixed, bool *border) {
  uint32_t out = kiln_linalg_num_inputs(root);
  const kiln_value *window = kiln_op_operand(root, out);
  const kiln_type *rt = window->type;
  const kiln_affine_map *om = maps[out];
  bool any = false;
  *border = false;
  for (int l = 0; l < n; l++) fixed[l] = false;
  if (rt->kind != KILN_TYPE_MEMREF || !kiln_affine_map_is_projected_permutation(om) ||
      om->num_results != rt->rank)
    return false;
  kiln_block *body = cg_func_body(func);
  for (kiln_op *x = body ? body->first : NULL; x; x = x->next) {
    if (x == root || !kiln_op_has_flag(x, KILN_OPF_LINALG)) continue;
    if (cg_border_fill(x, window, NULL)) {
      *border = true;
      continue;
    }
    for (uint32_t i = kiln_linalg_num_inputs(x); i < x->num_operands; i++) {
      const kiln_type *t = kiln_op_operand(x, i)->type;
      if (t->kind != KILN_TYPE_MEMREF || t->rank != rt->rank) continue;
      for (uint32_t k = 0; k < rt->rank; k++)
        if (t->shape[k] != rt->shape[k]) any = fixed[om->results[k]->value] = true;
    }
  }
  /* Dims on which an op reads, through another view, a buffer the kernel
   * writes at other positions (cg_view_clashes: a depthwise convolution's
   * windows over the pad whose interior the root writes) stay whole too:
   * a tile of them would read what other workgroups write. */
  cg_dist whole;
  int64_t none[KILN_MAX_LOOPS] = {0};
  bool clash[KILN_MAX_LOOPS];
  if (cg_distribution(root, none, n, &whole) && cg_view_clashes(func, &whole, rt, window, clash))
    for (uint32_t k = 0; k < rt->rank; k++)
      if (clash[k]) any = fixed[om->results[k]->value] = true;
  return any;
}

/* About CG_COPY_MIN_ELEMS elements a workgroup for such a kernel (a copy:
 * one load and store per element), split along the largest outer loop
 * that is not fixed (a static pad's rows: its border fills are
 * restricted to each tile's rows) and the channels in 16-lane groups. */
#define CG_COPY_MIN_ELEMS (64 * 1024)
static void free_tiles(const bool *red, const bool *fixed, const int64_t *bounds0, int n,
                       int64_t *tiles) {
  int64_t elems = 1, bounds[KILN_MAX_LOOPS];
  int last = -1, big = -1;
  for (int l = 0; l < n; l++) tiles[l] = 0;
  if (!run_time_outer(red, fixed, bounds0, n, bounds)) return; /* one workgroup */
  for (int l = 0; l < n; l++) {
    if (red[l]) continue;
    elems *= bounds[l];
    last = l;
  }
  int64_t want = split_small(elems / CG_COPY_MIN_ELEMS, elems, CG_SPLIT_MIN_ELEMS);
  if (want > CG_CONV_WORKGROUPS) want = CG_CONV_WORKGROUPS;
  if (want <= 1 || last < 0) return;
  for (int l = 0; l < n; l++)
    if (!red[l] && !fixed[l] && l != last && (big < 0 || bounds[l] > bounds[big])) big = l;
  int64_t rows = big >= 0 ? bounds[big] : 1;
  int64_t groups = !fixed[last] && bounds[last] % CG_LANE_GROUP == 0 ? bounds[last] / CG_LANE_GROUP : 1;
  for (int l = 0; l < n; l++)
    if (!red[l]) tiles[l] = bounds[l];
  int64_t pr, pc;
  split_tiles(red, fixed, bounds, big, last, rows, groups, want, tiles, &pr, &pc);
  if (big >= 0) tiles[big] = rows / pr;
  tiles[last] = bounds[last] / pc;
}

/* A root of another kind in such a kernel (a convolution or pool whose
 * output is the interior of a pad form-dispatch-regions fused behind
 * it, where the pad is not one whose border fills can follow the tiles:
 * a dynamic one): the fixed loops stay whole, and the channels (the last parallel
 * loop) split instead, in as few tiles as keep two workers busy (a
 * convolution's register tile is only as wide as its channel tile: 96
 * channels as 6 tiles of 16 made MobileNetV2's first 1x1 27% slower
 * than 2 of 48): two where their 16-lane groups pair up, else the
 * fewest groups reaching the root's own tile count (9 for 144). */
static void keep_fixed_whole(const bool *red, const bool *fixed, const int64_t *bounds, int n,
                             int64_t *tiles) {
  int64_t want = 1, count = 1;
  int last = -1;
  for (int l = 0; l < n; l++) {
    if (red[l]) continue;
    if (bounds[l] < 1 || tiles[l] < 1) return; /* run-time sizes: whatever the root chose */
    want *= bounds[l] / tiles[l];
    last = l;
    if (fixed[l]) tiles[l] = bounds[l];
    count *= bounds[l] / tiles[l];
  }
  if (count >= want || last < 0 || fixed[last]) return;
  int64_t other = count / (bounds[last] / tiles[last]);
  tiles[last] = bounds[last];
  if (other % 2 == 0 || bounds[last] % CG_LANE_GROUP != 0) return;
  int64_t groups = bounds[last] / CG_LANE_GROUP, pr, pc = 2;
  if (groups % 2 != 0) pick_split(1, groups, 1, (want + other - 1) / other, &pr, &pc);
  tiles[last] = bounds[last] / pc;
}

#define CG_ROW_WORK 8192
/* Enough matmul tiles that two or more workers finish together (a tile
 * is a small share of the work, so an uneven split costs little). */
#define CG_MM_MIN_WORKGROUPS 8

/* The size a dynamic dim is tiled for where its tile takes budget from
 * other dims (a sequence length, an image side): a dynamic innermost dim
 * taken as large would use the whole budget and leave the other dims
 * tiles of 1 (thousands of tiny workgroups at a typical size); a dynamic
 * reduction taken as 1 would give a softmax over it few, long workgroups. */
#define CG_DYNAMIC_TYPICAL 128

/* An odd number of tiles (3 of 41 channels for 116) leaves one of two
 * workers idle for a tile at the end: the outermost split dim takes the
 * even tile count, from half to twice the one the budget gave, whose
 * tiles two workers finish soonest (each worker's share: half the tiles
 * of that dim; 14 rows as 2 x 7, not 4 x 4 with a last tile of 2), the
 * nearest the budget's count among equals, the larger of two as near;
 * only where that beats the odd count. Static bounds only (a run-time
 * count is the host's). */
/* The tile of a dim of extent b, now tiled by t into an odd count c of
 * tiles, giving an even count from half to twice c whose tiles two
 * workers finish soonest (each worker's share: half the tiles), the
 * nearest c among equals, the larger of two as near; t where none
 * beats the odd count. */
static int64_t even_tile(int64_t b, int64_t t0) {
  int64_t c = (b + t0 - 1) / t0;
  int64_t best = t0, best_span = (c + 1) / 2 * t0, best_d = 0;
  for (int64_t want = (c + 1) / 2; want <= 2 * c && want <= b; want++) {
    int64_t t = (b + want - 1) / want, got = (b + t - 1) / t;
    if (got % 2 || got < 2) continue;
    int64_t span = got / 2 * t, d = got > c ? got - c : c - got;
    if (span < best_span || (span == best_span && best != t0 &&
                             (d < best_d || (d == best_d && t < best))))
      best = t, best_span = span, best_d = d;
  }
  return best;
}

static void even_count(const bool *red, const int64_t *bounds, int n, int64_t *tiles) {
  int64_t count = 1;
  int s = -1;
  for (int l = 0; l < n; l++) {
    if (red[l]) continue;
    if (bounds[l] < 1 || tiles[l] < 1) return;
    count *= (bounds[l] + tiles[l] - 1) / tiles[l];
    if (s < 0 && tiles[l] < bounds[l]) s = l;
  }
  if (count < 2 || count % 2 == 0 || s < 0) return;
  /* the other dims' count is odd: the split dim's must turn even */
  int64_t t = even_tile(bounds[s], tiles[s]);
  if (t != tiles[s]) {
    tiles[s] = t;
    return;
  }
  /* else (7 rows of 7x7 maps) the innermost dim, in whole lane groups,
   * where it is whole (784 channels as 400 + 384: 14 tiles, not 7) */
  int in = n - 1;
  while (in > 0 && red[in]) in--;
  if (in != s && !red[in] && tiles[in] == bounds[in] && bounds[in] % CG_LANE_GROUP == 0)
    tiles[in] = even_tile(bounds[in] / CG_LANE_GROUP, bounds[in] / CG_LANE_GROUP) * CG_LANE_GROUP;
}

/* Convolutions (conv_tiles) whose workgroup count is odd: the outermost
 * split loop other than the channels (whose tiles are whole lane blocks)
 * takes even_tile's even count where that shortens the busier worker's
 * share (RegNetY's 55 groups of 8 at 7x7: 4 tiles of 14, 14, 14 and 13
 * groups, not 5 of 11); else the largest outer loop still whole that W
 * does not use (output rows) is halved where its extent is even, twice
 * the tiles of equal work (GoogLeNet's 9 blocks of 32 channels at 14x14:
 * 18 tiles of 7 rows; RegNetY's 13 groups of 8 at 28x28, in tiles of 2:
 * 14). Static bounds only; the other dims' tiles stay (7x7 maps of 25
 * groups remain 25). */
static void conv_even(const cg_igemm *g, int64_t *tiles) {
  int64_t count = 1;
  int s = -1, big = -1;
  for (int l = 0; l < g->loops; l++) {
    if (g->red[l]) continue;
    if (g->bounds[l] < 1 || tiles[l] < 1) return;
    count *= (g->bounds[l] + tiles[l] - 1) / tiles[l];
    if (l == g->col || l == g->row) continue;
    if (s < 0 && tiles[l] < g->bounds[l]) s = l;
    if (tiles[l] == g->bounds[l] && g->bounds[l] % 2 == 0 && !w_uses(g, l) &&
        (big < 0 || g->bounds[l] > g->bounds[big]))
      big = l;
  }
  if (count < 2 || count % 2 == 0) return;
  /* Paired filter blocks keep their whole pairs (block_tile), lane
   * groups their whole vectors (lane_groups_tile: retiled in vectors). */
  int64_t m = s >= 0 ? lane_groups_tile(g, s) : 0;
  if (s >= 0 && m && tiles[s] % m == 0) {
    int64_t t = even_tile((g->bounds[s] + m - 1) / m, tiles[s] / m) * m;
    if (t != tiles[s]) {
      tiles[s] = t < g->bounds[s] ? t : g->bounds[s];
      return;
    }
  } else if (s >= 0 && !m && !block_tile(g, s, 1, 1)) {
    int64_t t = even_tile(g->bounds[s], tiles[s]);
    if (t != tiles[s]) {
      tiles[s] = t;
      return;
    }
  }
  if (big >= 0) tiles[big] = g->bounds[big] / 2;
}

int64_t cg_stream_tile(int64_t N) {
  for (int64_t t = 1024; t >= CG_LANE_GROUP; t /= 2) {
    int64_t c = (N + t - 1) / t;
    if (c < 4) continue;
    /* two workers taking the tiles in turn: the first takes (c + 1) / 2,
     * the last (partial) one among them when c is odd */
    int64_t heavy = c % 2 ? (c - 1) / 2 * t + (N - (c - 1) * t) : c / 2 * t;
    if (heavy * 16 <= N * 9) return t; /* within 1/8 of an equal half */
  }
  return N < CG_LANE_GROUP ? N : CG_LANE_GROUP;
}

/* Element budget of one workgroup tile and the cap of its innermost dim. */
static void pick_tiles(kiln_op *func, kiln_op *root, const kiln_affine_map *const *maps,
                       const bool *red, const int64_t *bounds, int n, int64_t *tiles) {
  cg_root_kind k = cg_root_kind_of(root);
  for (int l = 0; l < n; l++) tiles[l] = 0;
  bool fixed[KILN_MAX_LOOPS], border;
  bool any_fixed = fixed_loops(func, root, maps, n, fixed, &border);
  if (k == CG_ROOT_ELEMENTWISE && (any_fixed || border)) {
    free_tiles(red, fixed, bounds, n, tiles);
    return;
  }
  if (root->kind == KILN_OP_LINALG_MATMUL || root->kind == KILN_OP_LINALG_BATCH_MATMUL) {
    /* M x N tile of 64 x 64: a multiple of every register tile used by
     * lower-to-loops' microkernel (rows of 8/4, columns of 2 vectors). */
    int m = n - 3, nn = n - 2;
    for (int l = 0; l < m; l++) tiles[l] = 1;
    tiles[m] = bounds[m] >= 0 && bounds[m] < 64 ? bounds[m] : 64;
    tiles[nn] = bounds[nn] >= 0 && bounds[nn] < 64 ? bounds[nn] : 64;
    /* A plain matmul whose M is a multiple of 128 takes 128 rows per
     * tile while that still leaves CG_MM_MIN_WORKGROUPS tiles: each
     * workgroup packs its B columns once per K block, so doubling the rows
     * halves the times B (a weight of megabytes, past the L2) is read and
     * packed. Batched products keep 64 (their tiles are per batch). */
    if (root->kind == KILN_OP_LINALG_MATMUL && bounds[m] > 0 && bounds[m] % 128 == 0 &&
        bounds[nn] > 0 && bounds[m] / 128 * ((bounds[nn] + 63) / 64) >= CG_MM_MIN_WORKGROUPS)
      tiles[m] = 128;
    /* An int8 matmul's weights are pre-packed per column tile and its
     * dot4 microkernel takes whole tiles of at least two per matmul
     * (lower_matmul.c): N's largest divisor among 64, 48, 32, 16 below N
     * (a convolution's 96, 144 or 160 output channels). */
    const kiln_type *ae = kiln_op_operand(root, 0)->type->elem;
    if (root->kind == KILN_OP_LINALG_MATMUL && kiln_type_is_integer(ae) && kiln_type_bitwidth(ae) == 8 &&
        bounds[nn] > 0 && (bounds[nn] % 64 != 0 || bounds[nn] == 64))
      for (int64_t t = 48; t >= 16; t -= 16)
        if (bounds[nn] % t == 0 && bounds[nn] > t) {
          tiles[nn] = t;
          break;
        }
    /* A streamed matmul (few rows, a B past the pre-packing cap) takes
     * whole rows and wide column tiles (cg_streamed_matmul). */
    const int kk = n - 1;
    if (root->kind == KILN_OP_LINALG_MATMUL && ae->kind == KILN_TYPE_F32 && bounds[kk] > 0 &&
        bounds[nn] > 0 && cg_streamed_matmul(bounds[m], bounds[kk], bounds[nn], 4)) {
      tiles[m] = bounds[m];
      tiles[nn] = cg_stream_tile(bounds[nn]);
    }
    return;
  }
  cg_igemm g;
  if (cg_igemm_match_outer_dynamic(root, &g)) {
    conv_tiles(&g, tiles);
    conv_even(&g, tiles);
    if (any_fixed) keep_fixed_whole(red, fixed, bounds, n, tiles);
    return;
  }
  if ((k == CG_ROOT_CONV || k == CG_ROOT_POOLING || k == CG_ROOT_REDUCTION) &&
      along_last_parallel(root, red, n) && window_tiles(root, red, bounds, n, tiles)) {
    if (any_fixed) keep_fixed_whole(red, fixed, bounds, n, tiles);
    return;
  }
  int64_t budget, cap;
  switch (k) {
  case CG_ROOT_MATMUL: budget = 256, cap = 256; break;      /* matvec */
  case CG_ROOT_CONV: budget = 512, cap = 64; break;
  case CG_ROOT_POOLING: budget = 1024, cap = 256; break;
  case CG_ROOT_REDUCTION: {
    /* Whole rows (reductions are not tiled): about CG_ROW_WORK elements
     * read per workgroup, so a softmax or a LayerNorm's row sums over a
     * few hundred rows still spread over several workgroups. */
    int64_t r = 1;
    for (int l = 0; l < n; l++)
      if (red[l]) r *= bounds[l] > 0 ? bounds[l] : bounds[l] < 0 ? CG_DYNAMIC_TYPICAL : 1;
    budget = CG_ROW_WORK / r;
    if (budget > 256) budget = 256;
    if (budget < 1) budget = 1;
    cap = budget;
    break;
  }
  default: budget = 8192, cap = 8192; break;
  }
  bool first = true;
  int outer = 0;
  while (outer < n - 1 && red[outer]) outer++;
  for (int l = n - 1; l >= 0; l--) {
    if (red[l]) continue;
    /* A dynamic size tiles as a typical one where other dims tile after
     * it, and as a large one where none does (the outermost: the rest of
     * the budget); full tiles, a partial one at the end, their count
     * computed by the host. */
    int64_t dyn = l == outer ? INT64_MAX : CG_DYNAMIC_TYPICAL;
    int64_t b = bounds[l] > 0 ? bounds[l] : bounds[l] < 0 ? dyn : 1;
    int64_t t = first ? (b < cap ? b : cap) : (b < budget ? b : budget);
    if (t < 1) t = 1;
    tiles[l] = t;
    budget = budget / t > 1 ? budget / t : 1;
    first = false;
  }
  if (k == CG_ROOT_ELEMENTWISE) even_count(red, bounds, n, tiles);
}

static const kiln_attr *i64s(kiln_context *c, int n, const int64_t *v) {
  return kiln_attr_dense_i64_array(c, (uint32_t)n, v);
}

/* Is k's variant the first variant of its executable? Later ones must
 * agree with what the first recorded on the host dispatch sites. */
static bool first_variant(const cg_kernel *k) {
  for (kiln_op *v = k->executable->regions[0].first->first; v; v = v->next)
    if (v->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) return v == k->variant;
  return true;
}

/* kiln.launch's pipeline name for a root kind ("cpu-matmul", ...). */
const char *cg_pipeline_name(cg_root_kind k) {
  static const char *const names[] = {"cpu-matmul", "cpu-conv", "cpu-pooling",
                                      "cpu-reduction", "cpu-elementwise"};
  return names[k];
}

/* Can the host compute every run-time tile count of d (each dynamic
 * distributed dim of the output a push constant)? */
static bool host_computable(kiln_op *root, const cg_dist *d) {
  for (uint32_t k = 0; k < d->rank; k++)
    if (d->count[k] == KILN_DYNAMIC && cg_output_dim_constant(root, k) < 0) return false;
  return true;
}

kiln_error *cg_launch_rule(cg_kernel *k, int64_t vector_width, bool record) {
  kiln_context *c = kiln_op_context(k->func);
  kiln_op *root = cg_find_root(k->func);
  int64_t vw = vector_width;
  int64_t wc[3] = {1, 1, 1}, one[3] = {1, 1, 1};
  int64_t tiles[KILN_MAX_LOOPS];
  int n = 0;
  const char *pipeline = "cpu-default";
  if (root) {
    const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
    bool red[KILN_MAX_LOOPS];
    int64_t bounds[KILN_MAX_LOOPS];
    n = cg_static_bounds(root, maps, red, bounds);
    if (n < 0) return kiln_op_error(root, "has no iteration space the CPU code generator understands (ranks "
                                    "above %d or memrefs without a strided layout)", KILN_MAX_LOOPS);
    pipeline = cg_pipeline_name(cg_root_kind_of(root));
    pick_tiles(k->func, root, maps, red, bounds, n, tiles);
    cg_dist d;
    const char *why = NULL;
    /* Tile only when it yields several workgroups that tile-and-distribute
     * can restrict every op to; otherwise one workgroup runs it whole. */
    if (cg_distribution(root, tiles, n, &d) && cg_dist_splits(&d) &&
        cg_can_distribute(k->func, root, &d, &why) && host_computable(root, &d)) {
      memcpy(wc, d.wg_count, sizeof wc);
    } else {
      for (int l = 0; l < n; l++) tiles[l] = 0;
    }
  }
  kiln_named_attr e[5] = {
      {"pipeline", kiln_attr_string(c, pipeline, strlen(pipeline))},
      {"tile_sizes", i64s(c, n, tiles)},
      {"vector_width", kiln_attr_int(c, kiln_type_int(c, 64), vw)},
      {"workgroup_count", i64s(c, 3, wc)},
      {"workgroup_size", i64s(c, 3, one)}};
  kiln_op_set_attr(k->func, "kiln.launch", kiln_attr_dict(c, 5, e));
  return record
             ? cg_record_grid(k->top, k->executable, k->export, k->func, !k->executable || first_variant(k))
             : NULL;
}

static kiln_error *rule_no_record(cg_kernel *k, void *user) {
  return cg_launch_rule(k, *(const int64_t *)user, false);
}

kiln_error *cg_launch_rule_all(kiln_op *module, int64_t vector_width) {
  return cg_for_each_kernel(module, rule_no_record, &vector_width);
}

bool cg_launch_retile(kiln_op *func, const int64_t *tiles, int n) {
  kiln_op *root = cg_find_root(func);
  const kiln_attr *l = cg_launch(func);
  cg_dist d;
  const char *why = NULL;
  if (!root || !l || !cg_distribution(root, tiles, n, &d) || !cg_dist_splits(&d) ||
      !cg_can_distribute(func, root, &d, &why) || !host_computable(root, &d))
    return false;
  kiln_context *c = kiln_op_context(func);
  kiln_named_attr e[16];
  uint32_t k = 0;
  for (uint32_t i = 0; i < l->count && k < 16; i++) {
    e[k] = l->entries[i];
    if (strcmp(e[k].name, "tile_sizes") == 0) e[k].value = i64s(c, n, tiles);
    else if (strcmp(e[k].name, "workgroup_count") == 0) e[k].value = i64s(c, 3, d.wg_count);
    k++;
  }
  kiln_op_set_attr(func, "kiln.launch", kiln_attr_dict(c, k, e));
  return true;
}
