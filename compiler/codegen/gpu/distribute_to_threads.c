/* distribute-to-threads: the threads of a block share each workgroup
 * tile.
 *
 * Takes: a cuda variant's inner module after tile-and-distribute (linalg
 * ops on memrefs at the top level of each kernel) with kiln.launch's
 * workgroup_size. Guarantees: each top-level op with side effects is
 * either
 *   - a linalg op split along one parallel loop L whose every operand
 *     either indexes a dim with exactly d_L or not at all (and every
 *     output does): thread t of n (hal.interface.thread.id /
 *     workgroup.size, read at run time, so any block size is correct)
 *     runs the chunk [t*c, t*c + size) of that dim, c = ceil(B / n),
 *     size clamped to [0, c] (the guard for partial chunks and tiles);
 *     among eligible loops the one with the largest static extent;
 *   - a reduction into a small rank-1 output (at most 64 static
 *     elements) with no parallel loop worth splitting (none, or one at
 *     most block/8 long) and a reduction loop of at least 2 x block
 *     iterations that every operand indexes with exactly d_R or not at
 *     all, whose body folds with addf/mulf/max/min: split along R with a
 *     partial per thread in workgroup memory (memref.alloca in memory
 *     space 3, at the kernel entry) started at the identity, a barrier,
 *     then thread 0 folds the partials of the launched threads into the
 *     output in thread order (a block-wide reduction);
 *   - or anything else (no eligible loop, linalg.index in the body,
 *     non-linalg side effects), run by thread 0 alone (scf.if);
 * and consecutive such ops are separated by hal.interface.barrier.
 * Kernels with memref.alloca scratch that is written (bufferized
 * intermediates; pooling windows are never written) run every op on
 * thread 0: an alloca is private to a GPU thread, so other threads could
 * not read what one wrote; unless every op writes along one output dim
 * of one static extent that it can be split by (a row chain's rows):
 * then every op is split along it, and each thread reads only the
 * scratch rows it wrote. Ops an earlier pass already spread over the
 * threads (kiln.gpu_distributed: gpu-tile-matmul-shared) keep their
 * place, fenced by barriers. */
#include "gpu_internal.h"

#include <string.h>

/* Lanes of a warp: the width of every shuffle this pass emits. */
#define GPU_WARP 32

static bool has_index_op(kiln_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kiln_block *b = op->regions[r].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next)
        if (o->kind == KILN_OP_LINALG_INDEX || has_index_op(o)) return true;
  return false;
}

/* Does expression e use loop l: 0 no, 1 exactly d_l, -1 otherwise. */
static int uses_loop(const kiln_affine_expr *e, int n, int l) {
  if (e->kind == KILN_AFFINE_DIM) return (int)e->value == l ? 1 : 0;
  int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
  if (!cg_linear_expr(e, n, coef, &cst)) return -1;
  return coef[l] == 0 ? 0 : -1;
}

static bool is_output(const kiln_op *op, uint32_t i) {
  const kiln_attr *seg = kiln_op_get_attr(op, "operandSegmentSizes");
  if (op->kind == KILN_OP_LINALG_SOFTMAX) return i == op->num_operands - 1;
  if (seg && seg->kind == KILN_ATTR_DENSE_ARRAY && seg->count == 2)
    return i >= (uint32_t)((const int32_t *)seg->data)[0];
  return i == op->num_operands - 1;
}

/* Can op (loops n, maps) be split along parallel loop l: every memref
 * operand indexes d_l exactly once or not at all, every output does? */
static bool splittable(kiln_op *op, const kiln_affine_map **maps, const bool *red, int n, int l) {
  if (red[l]) return false;
  bool ok = true, in_outputs = true;
  for (uint32_t i = 0; ok && i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (t->kind != KILN_TYPE_MEMREF) continue;
    if (t->rank != maps[i]->num_results) return false;
    bool has = false;
    for (uint32_t d = 0; d < maps[i]->num_results; d++) {
      int u = uses_loop(maps[i]->results[d], n, l);
      if (u < 0) ok = false;
      if (u == 1) {
        if (has) ok = false; /* d_l twice (a diagonal) */
        has = true;
      }
    }
    if (is_output(op, i) && !has) in_outputs = false;
  }
  return ok && in_outputs;
}

/* The loop to split op along, or -1. */
static int pick_loop(kiln_op *op) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  if (op->num_operands > CG_MAX_OPERANDS) return -1;
  int n = cg_static_bounds(op, maps, red, bounds);
  if (n <= 0 || has_index_op(op)) return -1;
  int best = -1;
  for (int l = 0; l < n; l++)
    if (splittable(op, maps, red, n, l) && (best < 0 || bounds[l] > bounds[best])) best = l;
  return best;
}

/* Static extent of loop l of op (1 when unknown). */
static int64_t parallel_extent(kiln_op *op, int l) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int n = cg_static_bounds(op, maps, red, bounds);
  return l < n && bounds[l] > 0 ? bounds[l] : 1;
}

static kiln_value *bin(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  return cg_bin(b, k, x, y);
}

/* The first n memref operands of op that index loop `loop` with exactly
 * d_loop become subviews [start, start + size) along that dim (the chunk
 * of the loop one thread runs); other dims stay whole. */
static void slice_along_loop(kiln_builder *b, kiln_op *op, const kiln_affine_map *const *maps,
                             uint32_t n, int loop, kiln_value *start, kiln_value *size) {
  for (uint32_t i = 0; i < n; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (v->type->kind != KILN_TYPE_MEMREF) continue;
    int at = -1;
    for (uint32_t d = 0; d < maps[i]->num_results; d++)
      if (maps[i]->results[d]->kind == KILN_AFFINE_DIM && (int)maps[i]->results[d]->value == loop)
        at = (int)d;
    if (at < 0) continue;
    kiln_value *offs[KILN_MAX_LOOPS], *sizes[KILN_MAX_LOOPS];
    for (uint32_t d = 0; d < v->type->rank; d++) {
      offs[d] = (int)d == at ? start : cg_index(b, 0);
      sizes[d] = (int)d == at ? size
                 : v->type->shape[d] != KILN_DYNAMIC ? cg_index(b, v->type->shape[d])
                                                     : cg_dim(b, v, d);
    }
    kiln_op_set_operand(op, i, cg_subview(b, v, offs, sizes));
  }
}

/* Restricts op to this thread's chunk of loop l. */
static void split(kiln_op *op, int l) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  cg_static_bounds(op, maps, red, bounds);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *tid = gpu_interface(&b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *nthr = gpu_interface(&b, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
  kiln_value *extent = NULL;
  for (uint32_t i = 0; !extent && i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (v->type->kind != KILN_TYPE_MEMREF) continue;
    for (uint32_t d = 0; d < maps[i]->num_results; d++)
      if (uses_loop(maps[i]->results[d], (int)KILN_MAX_LOOPS, l) == 1 &&
          maps[i]->results[d]->kind == KILN_AFFINE_DIM) {
        extent = v->type->shape[d] != KILN_DYNAMIC ? cg_index(&b, v->type->shape[d]) : cg_dim(&b, v, d);
        break;
      }
  }
  kiln_value *chunk = bin(&b, KILN_OP_ARITH_CEILDIVSI, extent, nthr);
  kiln_value *start = bin(&b, KILN_OP_ARITH_MULI, tid, chunk);
  kiln_value *left = bin(&b, KILN_OP_ARITH_SUBI, extent, start);
  kiln_value *size = bin(&b, KILN_OP_ARITH_MINSI, left, chunk);
  size = bin(&b, KILN_OP_ARITH_MAXSI, size, cg_index(&b, 0));
  /* Keep the offset inside the memref when this thread has nothing. */
  start = bin(&b, KILN_OP_ARITH_MINSI, start, extent);
  slice_along_loop(&b, op, maps, op->num_operands, l, start, size);
}

/* The combiner of a reduction body on floats: yield(op(x, out)) with op
 * a combiner of dialects/arith.def (kiln_combiner_of), and its identity. */
static bool combiner(kiln_op *op, kiln_op_kind *kind, double *identity) {
  kiln_block *b = op->num_regions ? op->regions[0].first : NULL;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  if (!y || y->num_operands != 1 || !b->num_args) return false;
  kiln_value *out = b->args[b->num_args - 1];
  kiln_op *c = kiln_op_operand(y, 0)->def;
  if (!c || c->num_operands != 2 || !kiln_type_is_float(out->type)) return false;
  if ((kiln_op_operand(c, 0) == out) == (kiln_op_operand(c, 1) == out)) return false;
  const kiln_combiner *cb = kiln_combiner_of(c->kind);
  if (!cb) return false;
  *identity = cb->float_identity;
  *kind = c->kind;
  return true;
}

/* A reduction loop every operand indexes with exactly d_r or not at all
 * (the widest), or -1. */
static int pick_reduction(kiln_op *op, const kiln_affine_map **maps, const bool *red,
                          const int64_t *bounds, int n) {
  int best = -1;
  for (int l = 0; l < n; l++) {
    if (!red[l]) continue;
    bool ok = true;
    for (uint32_t i = 0; ok && i < op->num_operands; i++) {
      const kiln_type *t = kiln_op_operand(op, i)->type;
      if (t->kind != KILN_TYPE_MEMREF) continue;
      int uses = 0;
      for (uint32_t d = 0; d < maps[i]->num_results; d++) {
        int u = uses_loop(maps[i]->results[d], n, l);
        if (u < 0) ok = false;
        if (u == 1 && maps[i]->results[d]->kind != KILN_AFFINE_DIM) ok = false;
        uses += u == 1;
      }
      if (uses > 1) ok = false;
    }
    if (ok && (best < 0 || bounds[l] > bounds[best])) best = l;
  }
  return best;
}

/* After a block reduction's per-thread partials: a barrier, then thread
 * 0 folds the launched threads' partials into the output in thread order
 * (element types without a warp shuffle, block sizes that are not a
 * multiple of the warp). */
static void serial_fold(kiln_op *op, kiln_value *partials, kiln_value *out, int64_t P, kiln_op_kind ck) {
  kiln_context *c = kiln_op_context(op);
  kiln_builder a = kiln_builder_after(op);
  a.loc = op->loc;
  kiln_build(&a, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  kiln_value *nthr = gpu_interface(&a, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
  kiln_value *t0 = gpu_interface(&a, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *cond = cg_cmpi(&a, CG_EQ, t0, cg_index(&a, 0));
  kiln_op *iff = kiln_build(&a, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_builder ib = kiln_builder_at_end(c, kiln_op_entry_block(c, iff, 0));
  ib.loc = op->loc;
  kiln_op *y = kiln_build(&ib, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  ib = kiln_builder_before(y);
  ib.loc = op->loc;
  kiln_builder qb, tb;
  kiln_op *ql = cg_for(&ib, cg_index(&ib, 0), cg_index(&ib, P), cg_index(&ib, 1), 0, NULL, &qb);
  kiln_value *q = cg_for_iv(ql);
  kiln_value *acc = cg_load(&qb, out, 1, &q);
  kiln_op *tl = cg_for(&qb, cg_index(&qb, 0), nthr, cg_index(&qb, 1), 1, &acc, &tb);
  kiln_value *ti = cg_for_iv(tl), *carried = tl->regions[0].first->args[1];
  kiln_value *at = cg_add(&tb, cg_muli(&tb, ti, P), q);
  kiln_value *part = cg_load(&tb, partials, 1, &at);
  kiln_value *next = cg_bin(&tb, ck, carried, part);
  cg_for_set_yield(tl, 1, &next);
  cg_store(&qb, kiln_op_result(tl, 0), out, 1, &q);
}

/* v reduced over its warp with combiner ck: butterfly shuffles (xor 16,
 * 8, 4, 2, 1), so every lane holds the warp's result. */
static kiln_value *warp_reduce(kiln_builder *b, kiln_value *v, kiln_op_kind ck) {
  kiln_context *c = b->ctx;
  const kiln_type *i32 = kiln_type_int(c, 32);
  for (int64_t off = GPU_WARP / 2; off >= 1; off /= 2) {
    kiln_named_attr na[2] = {{"offset", kiln_attr_int(c, i32, off)}, {"width", kiln_attr_int(c, i32, GPU_WARP)}};
    kiln_value *other = kiln_op_result(
        kiln_build(b, KILN_OP_HAL_INTERFACE_SHUFFLE, 1, &v, 1, &v->type, kiln_attr_dict(c, 2, na)), 0);
    v = cg_bin(b, ck, v, other);
  }
  return v;
}

/* scf.if (cond) { ... } with a builder inside, before its yield. */
static kiln_builder build_if(kiln_builder *b, kiln_value *cond) {
  kiln_op *iff = kiln_build(b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_builder ib = kiln_builder_at_end(b->ctx, kiln_op_entry_block(b->ctx, iff, 0));
  ib.loc = b->loc;
  kiln_op *y = kiln_build(&ib, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  ib = kiln_builder_before(y);
  ib.loc = b->loc;
  return ib;
}

/* Block-level state of the warp reductions: workgroup memory with one
 * slot per warp (at the kernel entry), the thread's lane and warp, the
 * launched warps. */
typedef struct {
  kiln_value *wp, *tid, *lane, *warp, *live, *src, *lane0, *thread0;
} block_red;

static void block_red_init(kiln_op *func, kiln_builder *a, block_red *br) {
  kiln_context *c = a->ctx;
  const int64_t threads = gpu_block_threads(func);
  kiln_op_set_attr(func, "kiln.warp_size", kiln_attr_int(c, kiln_type_int(c, 64), GPU_WARP));
  kiln_builder eb = kiln_builder_before(func->regions[0].first->first);
  eb.loc = a->loc;
  int64_t wshape[1] = {threads / GPU_WARP};
  const kiln_type *wt =
      kiln_type_memref(c, 1, wshape, kiln_type_f32(c), NULL, kiln_attr_int(c, kiln_type_int(c, 64), 3));
  int64_t seg[2] = {0, 0};
  kiln_named_attr na = {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 2, seg, NULL)};
  br->wp = kiln_op_result(kiln_build(&eb, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &wt, kiln_attr_dict(c, 1, &na)), 0);
  br->tid = gpu_interface(a, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *nthr = gpu_interface(a, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
  kiln_value *w32 = cg_index(a, GPU_WARP);
  br->lane = bin(a, KILN_OP_ARITH_REMUI, br->tid, w32);
  br->warp = bin(a, KILN_OP_ARITH_DIVUI, br->tid, w32);
  kiln_value *nwarps = bin(a, KILN_OP_ARITH_CEILDIVUI, nthr, w32);
  kiln_value *last = bin(a, KILN_OP_ARITH_SUBI, nwarps, cg_index(a, 1));
  br->lane0 = cg_cmpi(a, CG_EQ, br->lane, cg_index(a, 0));
  br->thread0 = cg_cmpi(a, CG_EQ, br->tid, cg_index(a, 0));
  br->live = cg_cmpi(a, CG_SLT, br->lane, nwarps);
  br->src = bin(a, KILN_OP_ARITH_MINSI, br->lane, last);
}

/* The block-wide reduction of every thread's v (f32) with combiner ck,
 * held by every thread afterwards: v reduced within its warp, lane 0 of
 * each warp writes the warp's slot, barrier, every warp reduces the slots
 * (lanes past the launched warps take the identity) the same way,
 * barrier (the slots are reused). All threads run it (uniform control
 * flow); correct for any launched block size that is a multiple of the
 * warp, up to the recorded block size. */
static kiln_value *block_reduce(kiln_builder *b, const block_red *br, kiln_value *v, kiln_op_kind ck,
                                double identity) {
  const kiln_type *f32 = kiln_type_f32(b->ctx);
  v = warp_reduce(b, v, ck);
  kiln_builder wb = build_if(b, br->lane0);
  cg_store(&wb, v, br->wp, 1, &br->warp);
  kiln_build(b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  kiln_value *x = cg_load(b, br->wp, 1, &br->src);
  kiln_value *sel[3] = {br->live, x, cg_const_like(b, f32, identity, 0)};
  kiln_value *y = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, sel, 1, &f32, NULL), 0);
  y = warp_reduce(b, y, ck);
  kiln_build(b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  return y;
}

/* After a block reduction's per-thread partials, for each output q (a
 * loop with thread-uniform bounds, so its barriers are met by every
 * thread): the block-wide reduction of partial q, which thread 0
 * combines into the output. Records kiln.warp_size on the kernel. */
static void warp_fold(kiln_op *func, kiln_op *op, kiln_value *partials, kiln_value *out, int64_t P,
                      kiln_op_kind ck, double identity) {
  kiln_builder a = kiln_builder_after(op);
  a.loc = op->loc;
  block_red br;
  block_red_init(func, &a, &br);
  kiln_value *mine = cg_muli(&a, br.tid, P);
  kiln_builder qb;
  kiln_op *ql = cg_for(&a, cg_index(&a, 0), cg_index(&a, P), cg_index(&a, 1), 0, NULL, &qb);
  kiln_value *q = cg_for_iv(ql);
  kiln_value *at = cg_add(&qb, mine, q);
  kiln_value *y = block_reduce(&qb, &br, cg_load(&qb, partials, 1, &at), ck, identity);
  kiln_builder tb = build_if(&qb, br.thread0);
  kiln_value *o = cg_load(&tb, out, 1, &q);
  cg_store(&tb, cg_bin(&tb, ck, o, y), out, 1, &q);
}

/* A linalg.softmax (f32, static shape) whose rows are few (at most
 * block/8) and long (at least 2 x block): each row is shared by the whole
 * block. Thread t takes the chunk [t*c, min(t*c + c, N)) of the row (c =
 * ceil(N / threads)); per row (uniform loops over the other dims): the
 * chunk's max, block-wide max; exp(x - max) stored and summed, block-wide
 * sum; the chunk scaled by 1 / sum. Replaces op; true when it applied. */
static bool block_softmax(kiln_op *func, kiln_op *op, int64_t threads) {
  if (op->kind != KILN_OP_LINALG_SOFTMAX || op->num_operands != 2 || threads % GPU_WARP) return false;
  kiln_value *in = kiln_op_operand(op, 0), *out = kiln_op_operand(op, 1);
  const kiln_type *it = in->type, *ot = out->type;
  const kiln_attr *da = kiln_op_get_attr(op, "dimension");
  if (it->kind != KILN_TYPE_MEMREF || ot->kind != KILN_TYPE_MEMREF || it->rank != ot->rank ||
      it->rank > KILN_MAX_LOOPS || it->elem->kind != KILN_TYPE_F32 || !da || da->kind != KILN_ATTR_INTEGER ||
      da->i < 0 || da->i >= (int64_t)it->rank)
    return false;
  const uint32_t dim = (uint32_t)da->i;
  int64_t rows = 1;
  for (uint32_t d = 0; d < it->rank; d++) {
    if (it->shape[d] == KILN_DYNAMIC || it->shape[d] != ot->shape[d]) return false;
    if (d != dim) rows *= it->shape[d];
  }
  const int64_t N = it->shape[dim];
  if (rows * 8 > threads || N < 2 * threads) return false;
  kiln_context *c = kiln_op_context(op);
  const kiln_type *f32 = kiln_type_f32(c);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  block_red br;
  block_red_init(func, &b, &br);
  kiln_value *nthr = gpu_interface(&b, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
  kiln_value *n = cg_index(&b, N);
  kiln_value *chunk = bin(&b, KILN_OP_ARITH_CEILDIVSI, n, nthr);
  kiln_value *start = bin(&b, KILN_OP_ARITH_MINSI, cg_mul(&b, br.tid, chunk), n);
  kiln_value *end = bin(&b, KILN_OP_ARITH_MINSI, cg_add(&b, start, chunk), n);
  kiln_value *ivs[KILN_MAX_LOOPS];
  kiln_builder cur = b;
  for (uint32_t d = 0; d < it->rank; d++) {
    if (d == dim) continue;
    kiln_builder body;
    kiln_op *l = cg_for(&cur, cg_index(&cur, 0), cg_index(&cur, it->shape[d]), cg_index(&cur, 1), 0, NULL, &body);
    ivs[d] = cg_for_iv(l);
    cur = body;
  }
  kiln_value *one = cg_index(&cur, 1);
  /* max */
  kiln_value *init = cg_const_like(&cur, f32, -__builtin_inf(), 0);
  kiln_builder lb;
  kiln_op *l1 = cg_for(&cur, start, end, one, 1, &init, &lb);
  ivs[dim] = cg_for_iv(l1);
  kiln_value *m = bin(&lb, KILN_OP_ARITH_MAXIMUMF, l1->regions[0].first->args[1], cg_load(&lb, in, it->rank, ivs));
  cg_for_set_yield(l1, 1, &m);
  kiln_value *max = block_reduce(&cur, &br, kiln_op_result(l1, 0), KILN_OP_ARITH_MAXIMUMF, -__builtin_inf());
  /* exp and sum */
  kiln_value *zero = cg_const_like(&cur, f32, 0.0, 0);
  kiln_op *l2 = cg_for(&cur, start, end, one, 1, &zero, &lb);
  ivs[dim] = cg_for_iv(l2);
  kiln_value *x = bin(&lb, KILN_OP_ARITH_SUBF, cg_load(&lb, in, it->rank, ivs), max);
  kiln_value *e = kiln_op_result(kiln_build(&lb, KILN_OP_MATH_EXP, 1, &x, 1, &f32, NULL), 0);
  cg_store(&lb, e, out, ot->rank, ivs);
  kiln_value *sum = bin(&lb, KILN_OP_ARITH_ADDF, l2->regions[0].first->args[1], e);
  cg_for_set_yield(l2, 1, &sum);
  sum = block_reduce(&cur, &br, kiln_op_result(l2, 0), KILN_OP_ARITH_ADDF, 0.0);
  kiln_value *inv = bin(&cur, KILN_OP_ARITH_DIVF, cg_const_like(&cur, f32, 1.0, 0), sum);
  /* scale */
  kiln_op *l3 = cg_for(&cur, start, end, one, 0, NULL, &lb);
  ivs[dim] = cg_for_iv(l3);
  kiln_value *y = cg_load(&lb, out, ot->rank, ivs);
  cg_store(&lb, bin(&lb, KILN_OP_ARITH_MULF, y, inv), out, ot->rank, ivs);
  kiln_op_erase(op);
  return true;
}

/* Block-wide reduction of a small rank-1 output (P elements, static):
 * thread t reduces its chunk of reduction loop r into partials[t*P ..)
 * (workgroup memory: memref.alloca in memory space 3, shared memory on
 * the GPU), starting from the combiner's identity; after a barrier thread
 * 0 folds the launched threads' partials into the output in thread
 * order. True when it applied. */
static bool split_reduction(kiln_op *func, kiln_op *op, int64_t threads) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  kiln_op_kind ck;
  double identity;
  if (op->num_operands > CG_MAX_OPERANDS || has_index_op(op) || !combiner(op, &ck, &identity))
    return false;
  int n = cg_static_bounds(op, maps, red, bounds);
  if (n <= 0) return false;
  kiln_value *out = kiln_op_operand(op, op->num_operands - 1);
  if (!is_output(op, op->num_operands - 1) || (op->num_operands >= 2 && is_output(op, op->num_operands - 2)))
    return false;
  const kiln_type *ot = out->type;
  if (ot->kind != KILN_TYPE_MEMREF || ot->rank != 1 || ot->shape[0] == KILN_DYNAMIC || ot->shape[0] > 64)
    return false;
  int r = pick_reduction(op, maps, red, bounds, n);
  if (r < 0 || bounds[r] < 2 * threads) return false;
  const int64_t P = ot->shape[0];
  kiln_context *c = kiln_op_context(op);
  /* partials at the kernel's entry: workgroup memory. */
  kiln_builder eb = kiln_builder_before(func->regions[0].first->first);
  eb.loc = op->loc;
  int64_t pshape[1] = {threads * P};
  const kiln_type *pt = kiln_type_memref(c, 1, pshape, ot->elem, NULL,
                                         kiln_attr_int(c, kiln_type_int(c, 64), 3));
  int64_t seg[2] = {0, 0};
  kiln_named_attr na = {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 2, seg, NULL)};
  kiln_value *partials = kiln_op_result(
      kiln_build(&eb, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &pt, kiln_attr_dict(c, 1, &na)), 0);

  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *tid = gpu_interface(&b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *nthr = gpu_interface(&b, KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE, 0);
  kiln_value *extent = cg_index(&b, bounds[r]);
  kiln_value *chunk = bin(&b, KILN_OP_ARITH_CEILDIVSI, extent, nthr);
  kiln_value *start = bin(&b, KILN_OP_ARITH_MULI, tid, chunk);
  kiln_value *size = bin(&b, KILN_OP_ARITH_MINSI, bin(&b, KILN_OP_ARITH_SUBI, extent, start), chunk);
  size = bin(&b, KILN_OP_ARITH_MAXSI, size, cg_index(&b, 0));
  start = bin(&b, KILN_OP_ARITH_MINSI, start, extent);
  kiln_value *base = cg_muli(&b, tid, P);
  kiln_value *vo = base, *vs = cg_index(&b, P);
  kiln_value *view = cg_subview(&b, partials, &vo, &vs);
  /* The partial starts at the identity. */
  kiln_builder lb;
  kiln_op *init = cg_for(&b, cg_index(&b, 0), cg_index(&b, P), cg_index(&b, 1), 0, NULL, &lb);
  kiln_value *iv = cg_for_iv(init);
  cg_store(&lb, cg_const_like(&lb, ot->elem, identity, 0), view, 1, &iv);
  slice_along_loop(&b, op, maps, op->num_operands - 1, r, start, size);
  kiln_op_set_operand(op, op->num_operands - 1, view);
  if (ot->elem->kind == KILN_TYPE_F32 && threads % GPU_WARP == 0)
    warp_fold(func, op, partials, out, P, ck, identity);
  else
    serial_fold(op, partials, out, P, ck);
  return true;
}

/* Wraps op in scf.if (thread.id == 0). */
static void on_thread_zero(kiln_op *op) {
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *tid = gpu_interface(&b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *cond = cg_cmpi(&b, CG_EQ, tid, cg_index(&b, 0));
  kiln_op *iff = kiln_build(&b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_block *then = kiln_op_entry_block(b.ctx, iff, 0);
  kiln_builder yb = kiln_builder_at_end(b.ctx, then);
  yb.loc = op->loc;
  kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  kiln_op_remove(op);
  kiln_block_insert_before(y, op);
}

/* Is memref v (or a view of it) written by some op? A pooling window is
 * an alloca that is never written: it carries only a shape. */
static bool written(kiln_value *v, int depth) {
  if (depth > 16) return true;
  for (kiln_use *u = v->uses; u; u = u->next) {
    kiln_op *o = u->owner;
    const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
    bool red[KILN_MAX_LOOPS];
    switch (o->kind) {
    case KILN_OP_MEMREF_SUBVIEW: case KILN_OP_MEMREF_CAST: case KILN_OP_MEMREF_REINTERPRET_CAST:
    case KILN_OP_MEMREF_COLLAPSE_SHAPE: case KILN_OP_MEMREF_EXPAND_SHAPE:
      if (written(kiln_op_result(o, 0), depth + 1)) return true;
      break;
    case KILN_OP_MEMREF_LOAD: case KILN_OP_VECTOR_LOAD: case KILN_OP_MEMREF_DIM:
      break;
    default:
      if (o->num_operands <= CG_MAX_OPERANDS && cg_iteration(o, maps, red) >= 0 && !is_output(o, u->index))
        break;
      return true;
    }
  }
  return false;
}

static bool side_effects(const kiln_op *op) {
  if (kiln_op_has_flag(op, KILN_OPF_PURE) || kiln_op_has_flag(op, KILN_OPF_TERMINATOR)) return false;
  switch (op->kind) {
  case KILN_OP_MEMREF_ALLOCA: case KILN_OP_HAL_INTERFACE_BARRIER:
  case KILN_OP_MEMREF_SUBVIEW: case KILN_OP_MEMREF_DIM:
    return false;
  default: return true;
  }
}

/* Does op only read memory (loads, scf and pure ops inside)? Such an op
 * with results (a scalar loaded from a binding, an scf.for summing a
 * tensor's entries) runs on every thread: each needs its results. */
static bool read_only(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_MEMREF_LOAD: case KILN_OP_VECTOR_LOAD: case KILN_OP_VECTOR_TRANSFER_READ:
  case KILN_OP_SCF_FOR: case KILN_OP_SCF_IF:
    break;
  default:
    if (side_effects(op)) return false;
  }
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kiln_block *b = op->regions[r].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next)
        if (!read_only(o)) return false;
  return true;
}

/* The whole body but its allocas on thread 0, in one scf.if: for kernels
 * where an op both writes memory and yields values later ops use. */
static void body_on_thread_zero(kiln_block *body) {
  kiln_op *first = NULL, *term = kiln_block_terminator(body);
  for (kiln_op *o = body->first; o && o != term && !first; o = o->next)
    if (o->kind != KILN_OP_MEMREF_ALLOCA) first = o;
  if (!first) return;
  kiln_builder b = kiln_builder_before(first);
  b.loc = first->loc;
  kiln_value *tid = gpu_interface(&b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
  kiln_value *cond = cg_cmpi(&b, CG_EQ, tid, cg_index(&b, 0));
  kiln_op *iff = kiln_build(&b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_builder yb = kiln_builder_at_end(b.ctx, kiln_op_entry_block(b.ctx, iff, 0));
  yb.loc = first->loc;
  kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  for (kiln_op *o = iff->next, *next; o && o != term; o = next) {
    next = o->next;
    if (o->kind == KILN_OP_MEMREF_ALLOCA) continue;
    kiln_op_remove(o);
    kiln_block_insert_before(y, o);
  }
}

/* The loop of op indexing dim k of its (single) output, when op can be
 * split along it; its static extent goes to *extent. -1 otherwise. */
static int output_dim_loop(kiln_op *op, uint32_t k, int64_t *extent) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  if (!kiln_op_has_flag(op, KILN_OPF_LINALG) || op->num_operands > CG_MAX_OPERANDS ||
      op->kind == KILN_OP_LINALG_SOFTMAX || has_index_op(op))
    return -1;
  int n = cg_static_bounds(op, maps, red, bounds);
  uint32_t out = op->num_operands - 1;
  if (n <= 0 || !is_output(op, out) || (out > 0 && is_output(op, out - 1)) ||
      k >= maps[out]->num_results || maps[out]->results[k]->kind != KILN_AFFINE_DIM)
    return -1;
  int l = (int)maps[out]->results[k]->value;
  if (bounds[l] <= 0 || !splittable(op, maps, red, n, l)) return -1;
  /* scratch is written along dim k (as outputs): read it there too, with
   * d_l, or a thread would read rows another one wrote */
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    while (v->def && v->def->kind == KILN_OP_MEMREF_SUBVIEW) v = kiln_op_operand(v->def, 0);
    if (!v->def || v->def->kind != KILN_OP_MEMREF_ALLOCA || !written(v, 0)) continue;
    if (kiln_op_operand(op, i)->type->rank != v->type->rank || k >= maps[i]->num_results ||
        maps[i]->results[k]->kind != KILN_AFFINE_DIM || (int)maps[i]->results[k]->value != l)
      return -1;
  }
  *extent = bounds[l];
  return l;
}

/* For a kernel with written scratch: an output dim k that every op with
 * side effects writes along a loop it can be split by, all of one
 * static extent (a row chain's rows: the per-row sums and the rows x
 * columns output share their leading dims). Splitting each op along it
 * gives thread t the same rows in every op, so a thread reads only the
 * scratch rows it wrote itself. -1 when there is none. */
static int common_row_dim(kiln_block *body) {
  kiln_op *first = NULL;
  for (kiln_op *o = body->first; o && !first; o = o->next)
    if (side_effects(o) && o->kind != KILN_OP_MEMREF_ALLOCA && kiln_op_has_flag(o, KILN_OPF_LINALG))
      first = o;
  if (!first) return -1;
  const kiln_type *ft = kiln_op_operand(first, first->num_operands - 1)->type;
  int best = -1;
  int64_t best_extent = 0;
  for (uint32_t k = 0; k < ft->rank; k++) {
    int64_t extent = -1;
    bool ok = true;
    for (kiln_op *o = body->first; ok && o; o = o->next) {
      if (!side_effects(o) || o->kind == KILN_OP_MEMREF_ALLOCA) continue;
      if (o->num_results && read_only(o)) continue;
      int64_t e = 0;
      ok = output_dim_loop(o, k, &e) >= 0 && (extent < 0 || e == extent);
      extent = e;
    }
    if (ok && extent > best_extent) best = (int)k, best_extent = extent;
  }
  return best_extent > 1 ? best : -1;
}

static void distribute(kiln_op *func) {
  kiln_block *body = func->regions[0].first;
  bool scratch = false;
  for (kiln_op *o = body->first; o; o = o->next) {
    if (o->kind == KILN_OP_MEMREF_ALLOCA && written(kiln_op_result(o, 0), 0)) scratch = true;
    if (o->num_results && side_effects(o) && o->kind != KILN_OP_MEMREF_ALLOCA && !read_only(o)) {
      body_on_thread_zero(body);
      return;
    }
  }
  const int64_t threads = gpu_block_threads(func);
  int rows = scratch ? common_row_dim(body) : -1;
  bool prev = false;
  for (kiln_op *o = body->first, *next; o; o = next) {
    next = o->next;
    if (!side_effects(o)) continue;
    if (prev) {
      kiln_builder b = kiln_builder_before(o);
      b.loc = o->loc;
      kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
    }
    if (o->num_results && read_only(o)) { /* every thread reads */
      prev = true;
      continue;
    }
    int64_t e;
    if (rows >= 0) { /* every op on this thread's rows */
      split(o, output_dim_loop(o, (uint32_t)rows, &e));
      prev = true;
      continue;
    }
    int l = scratch ? -1 : pick_loop(o);
    if (!scratch && (l < 0 || parallel_extent(o, l) * 8 <= threads) && split_reduction(func, o, threads))
      ;
    else if (!scratch && block_softmax(func, o, threads))
      ; /* o is replaced by loops */
    else if (l >= 0) split(o, l);
    else on_thread_zero(o);
    prev = true;
  }
}

/* Ops a pass already distributed (GPU_DISTRIBUTED) are hidden from
 * distribute-to-threads, which would otherwise run them on thread 0 (and
 * count their workgroup-memory allocas as private scratch): each is
 * detached and a barrier stands in its place; afterwards it goes back
 * after that barrier, with another barrier after it. */
typedef struct {
  kiln_op *op, *at; /* at: the placeholder barrier, or NULL for an alloca */
  kiln_block *body;
} hidden_op;

/* Hides at most max ops; false when there are more. */
static bool hide_distributed(kiln_op *inner, hidden_op *h, uint32_t max, uint32_t *count) {
  uint32_t n = 0;
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    if (!gpu_is_kernel(f)) continue;
    kiln_block *body = f->regions[0].first;
    for (kiln_op *o = body->first, *next; o; o = next) {
      next = o->next;
      if (!kiln_op_get_attr(o, GPU_DISTRIBUTED)) continue;
      if (n == max) {
        *count = n;
        return false;
      }
      kiln_op *at = NULL;
      if (o->kind != KILN_OP_MEMREF_ALLOCA) {
        kiln_builder b = kiln_builder_before(o);
        b.loc = o->loc;
        at = kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
      }
      kiln_op_remove(o);
      h[n++] = (hidden_op){o, at, body};
    }
  }
  *count = n;
  return true;
}

static void restore_distributed(hidden_op *h, uint32_t n) {
  for (uint32_t i = n; i-- > 0;) {
    if (!h[i].at) {
      kiln_block_insert_before(h[i].body->first, h[i].op);
      continue;
    }
    kiln_block_insert_after(h[i].at, h[i].op);
    kiln_builder b = kiln_builder_after(h[i].op);
    b.loc = h[i].op->loc;
    kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  }
}

kiln_error *kiln_codegen_gpu_distribute_to_threads(kiln_op *inner, void *user) {
  (void)user;
  hidden_op h[256];
  uint32_t n;
  kiln_error *err = NULL;
  if (hide_distributed(inner, h, 256, &n)) {
    for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next)
      if (gpu_is_kernel(f)) distribute(f);
  } else {
    err = kiln_error_new("distribute-to-threads: more than 256 already distributed ops in one variant");
  }
  restore_distributed(h, n);
  return err;
}
