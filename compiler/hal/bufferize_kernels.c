/* bufferize-kernels: kernels from tensor form to memrefs on bindings.
 *
 * Takes: variants after materialize-interfaces; kernels in flow's form
 * (argument i = binding i, loaded/stored whole; linalg ops on tensors,
 * tensor.empty, scalar constants). Guarantees: the kernel takes no
 * arguments; hal.interface.binding {binding = i} : memref<...> (static
 * shape, identity layout) stands for each used argument; every linalg op
 * works on memrefs (destination style, no results); no tensor is left.
 * Buffers are chosen backwards from the stores, in place where safe:
 *  - a stored value is computed directly into its output binding;
 *  - an op's init that the op reads (matmul's fill, a reduction's
 *    accumulator, the destination of a generic writing only part of its
 *    output) shares the result's buffer when nothing else uses it,
 *    otherwise it is copied there first;
 *  - an all-parallel generic whose init is not read computes in place over
 *    one same-shaped, single-use input read through identity maps (an
 *    elementwise consumer);
 *  - any other intermediate gets a memref.alloca at the kernel's start;
 *  - a value stored twice, or an input stored as is, is copied;
 *  - a slice of a loaded binding that is only read is a memref.subview
 *    of the binding (no copy);
 *  - static tensor.extract_slice / insert_slice / pad / concat / splat
 *    become copies between memref.subview windows (strided layouts) and
 *    linalg.fill (pad value, splat); an insert's destination is its init;
 *    a pad's source computed here for it alone is computed into its
 *    window in place (only the border is filled; a pad of a
 *    tensor.empty fills only the border), and so is a static
 *    unit-stride insert's source (place-concats' pieces);
 *  - tensor.extract (also inside linalg bodies) becomes memref.load,
 *    tensor.insert and tensor.from_elements memref.store;
 *  - scf.for / scf.if keep only their scalar iter_args and results: a
 *    tensor iter_arg lives in the loop result's buffer (the init copied
 *    in, the yielded value computed in place when its producer overwrites
 *    the iter_arg and nothing reads it afterwards, else copied back; an
 *    scf.if or inner scf.for yielded counts as such a producer when each
 *    branch yields the iter_arg or writes it last), both branches of an if
 *    write the result's buffer; slices at loop indices become subviews
 *    with dynamic offsets. Results of run-time size only go to buffers
 *    chosen already (an output binding, an enclosing loop's buffer).
 * Ops it cannot bufferize (dynamic sizes, a pad value depending on the
 * index, loads of bindings inside loops, ...) fail the pass with an error
 * naming the op and the kernel. */
#include "hl_internal.h"
#include "dialects/memref.h"

#include <string.h>

typedef struct bz {
  kiln_context *ctx;
  kiln_op *kernel;
  kiln_block *body;
  kiln_op *prologue; /* allocas and bindings go before this op */
  kiln_block *cur;   /* block assign() is in (the body or an scf region) */
  kiln_value_map buf; /* tensor value -> memref value */
  /* pending copies: before[i]: copy src[i] (tensor) into dst[i] (memref) */
  kiln_op **before;
  kiln_value **src, **dst;
  uint32_t ncopies, cap;
} bz;

static kiln_value *lookup(bz *z, kiln_value *v) { return kiln_value_map_lookup(&z->buf, v); }

/* The tensor.empty at the kernel's top level that v's init chain starts
 * at (a linalg result is computed in its init: a fill, an earlier op's
 * result), or NULL: its size operands are v's run-time dims. */
static kiln_op *top_empty(bz *z, kiln_value *v) {
  kiln_value *x = v;
  while (x->def && kiln_op_has_flag(x->def, KILN_OPF_LINALG) && x->def->num_results == 1 &&
         x->def->num_operands && kiln_op_operand(x->def, x->def->num_operands - 1)->type == v->type)
    x = kiln_op_operand(x->def, x->def->num_operands - 1);
  kiln_op *e = x->def;
  return e && e->kind == KILN_OP_TENSOR_EMPTY && e->results[0].type == v->type && e->parent == z->body &&
                 e->num_operands == kiln_type_num_dynamic_dims(v->type)
             ? e
             : NULL;
}

/* Puts op (an alloca sized by e's operands) right after the last op that
 * defines one of them, not after e itself: values computed in the buffer
 * in place (in_place_input, tie_init) may come from ops before e, as in
 * an RMSNorm's chain reduction -> mean -> rsqrt, whose first init (the
 * reduction's fill) precedes the last op's tensor.empty. */
static void insert_sized(bz *z, kiln_op *e, kiln_op *op) {
  for (kiln_op *o = e->prev; o; o = o->prev)
    for (uint32_t r = 0; r < o->num_results; r++)
      for (uint32_t i = 0; i < e->num_operands; i++)
        if (kiln_op_operand(e, i) == kiln_op_result(o, r)) {
          kiln_block_insert_after(o, op);
          return;
        }
  kiln_block_insert_before(z->prologue, op);
}

/* A kernel-local buffer for v: static shapes at the kernel's entry; run-
 * time dims (a row chain's per-row values, form-dispatch-regions) sized
 * by the tensor.empty they come from, as early as its size operands
 * allow (insert_sized), and confined to a workgroup's tile of static size
 * by tile-and-distribute. assign_block refuses values with run-time dims
 * and no such source (no_size). */
static kiln_value *alloca_for(bz *z, kiln_value *v, kiln_loc loc) {
  const kiln_type *mt = hl_memref_for(z->ctx, v->type);
  kiln_op *e = kiln_type_num_dynamic_dims(v->type) ? top_empty(z, v) : NULL;
  uint32_t nd = e ? e->num_operands : 0;
  kiln_value **dims = kiln_alloc(z->ctx, (nd + 1) * sizeof *dims);
  for (uint32_t i = 0; i < nd; i++) dims[i] = kiln_op_operand(e, i);
  int64_t seg[2] = {(int64_t)nd, 0};
  kiln_named_attr a = hl_named(z->ctx, "operandSegmentSizes",
                               kiln_attr_dense_array(z->ctx, kiln_type_int(z->ctx, 32), 2, seg, NULL));
  kiln_op *op = kiln_op_create(z->ctx, KILN_OP_MEMREF_ALLOCA, loc, nd, dims, 1, &mt,
                               kiln_attr_dict(z->ctx, 1, &a), 0);
  if (e) insert_sized(z, e, op);
  else kiln_block_insert_before(z->prologue, op);
  return kiln_op_result(op, 0);
}

static void add_copy(bz *z, kiln_op *before, kiln_value *src, kiln_value *dst) {
  if (z->ncopies == z->cap) {
    uint32_t cap = z->cap ? 2 * z->cap : 8;
    kiln_op **b = kiln_alloc(z->ctx, cap * sizeof *b);
    kiln_value **s = kiln_alloc(z->ctx, cap * sizeof *s), **d = kiln_alloc(z->ctx, cap * sizeof *d);
    for (uint32_t i = 0; i < z->ncopies; i++) b[i] = z->before[i], s[i] = z->src[i], d[i] = z->dst[i];
    z->before = b, z->src = s, z->dst = d, z->cap = cap;
  }
  z->before[z->ncopies] = before;
  z->src[z->ncopies] = src;
  z->dst[z->ncopies++] = dst;
}

/* tensor ops bufferized as views + copies (see move_op) */
static bool is_move_op(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_TENSOR_EXTRACT_SLICE:
  case KILN_OP_TENSOR_INSERT_SLICE:
  case KILN_OP_TENSOR_PAD:
  case KILN_OP_TENSOR_CONCAT:
  case KILN_OP_TENSOR_SPLAT:
  case KILN_OP_TENSOR_INSERT:
  case KILN_OP_TENSOR_FROM_ELEMENTS: return true;
  default: return false;
  }
}

/* Is v computed, in the block being assigned, into a buffer this pass
 * chose? */
static bool is_linalg_value(bz *z, kiln_value *v) {
  return v->def && v->def->parent == z->cur &&
         (kiln_op_has_flag(v->def, KILN_OPF_LINALG) || is_move_op(v->def) ||
          v->def->kind == KILN_OP_SCF_FOR || v->def->kind == KILN_OP_SCF_IF);
}

/* An integer list with '?' entries: st[i] static or KILN_DYNAMIC, then
 * v[i] its value (NULL for static entries). */
typedef struct mixed {
  int64_t st[KILN_MAX_LOOPS];
  kiln_value *v[KILN_MAX_LOOPS];
} mixed;

/* Reads static list `name` of op (n entries) whose '?' entries are filled
 * by operands from *next on (advanced past them). False when malformed. */
static bool read_mixed(const kiln_op *op, const char *name, uint32_t n, uint32_t *next, mixed *m) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != n || n > KILN_MAX_LOOPS) return false;
  const int64_t *v = a->data;
  for (uint32_t i = 0; i < n; i++) {
    m->st[i] = v[i];
    m->v[i] = NULL;
    if (v[i] != KILN_DYNAMIC) continue;
    if (*next >= op->num_operands) return false;
    m->v[i] = kiln_op_operand(op, (*next)++);
  }
  return true;
}

/* offsets, sizes, strides of a slice op whose dynamic operands start at
 * `first`; false when malformed. */
static bool read_slice(const kiln_op *op, uint32_t rank, uint32_t first, mixed *off, mixed *size,
                       mixed *stride) {
  uint32_t next = first;
  return read_mixed(op, "static_offsets", rank, &next, off) && read_mixed(op, "static_sizes", rank, &next, size) &&
         read_mixed(op, "static_strides", rank, &next, stride) && next == op->num_operands;
}

static kiln_value *index_const(bz *z, kiln_builder *b, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(z->ctx, kiln_type_index(z->ctx), v));
}

/* Entry i of m as a value. */
static kiln_value *mixed_value(bz *z, kiln_builder *b, const mixed *m, uint32_t i) {
  return m->v[i] ? m->v[i] : index_const(z, b, m->st[i]);
}

/* Dim d of memref m (a constant when static). */
static kiln_value *mdim(bz *z, kiln_builder *b, kiln_value *m, uint32_t d) {
  if (m->type->shape[d] != KILN_DYNAMIC) return index_const(z, b, m->type->shape[d]);
  kiln_value *ops[2] = {m, index_const(z, b, d)};
  const kiln_type *it = kiln_type_index(z->ctx);
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_DIM, 2, ops, 1, &it, NULL), 0);
}

/* The pad value of a tensor.pad if it does not depend on the index: a
 * value defined outside the pad, or a constant inside it. */
static kiln_value *pad_value(kiln_op *pad) {
  kiln_block *b = pad->regions[0].first;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  if (!y || y->num_operands != 1) return NULL;
  kiln_value *v = kiln_op_operand(y, 0);
  kiln_op *owner = kiln_value_owner_op(v);
  if (owner != pad && !kiln_op_is_inside(owner, pad)) return v;
  if (v->def && v->def->kind == KILN_OP_ARITH_CONSTANT) return v;
  return NULL;
}

/* Can move_op bufferize op? */
static bool move_supported(kiln_op *op) {
  const kiln_type *rt = op->results[0].type;
  mixed o, sz, st;
  switch (op->kind) {
  case KILN_OP_TENSOR_EXTRACT_SLICE:
    return read_slice(op, kiln_op_operand(op, 0)->type->rank, 1, &o, &sz, &st);
  case KILN_OP_TENSOR_INSERT_SLICE: return read_slice(op, rt->rank, 2, &o, &sz, &st);
  case KILN_OP_TENSOR_PAD: {
    uint32_t next = 1;
    return read_mixed(op, "static_low", rt->rank, &next, &o) && read_mixed(op, "static_high", rt->rank, &next, &sz) &&
           next == op->num_operands && pad_value(op);
  }
  case KILN_OP_TENSOR_CONCAT: {
    const kiln_attr *d = kiln_op_get_attr(op, "dim");
    return d && d->kind == KILN_ATTR_INTEGER && d->i >= 0 && d->i < (int64_t)rt->rank;
  }
  case KILN_OP_TENSOR_SPLAT: return op->num_operands == 1 + kiln_type_num_dynamic_dims(rt);
  case KILN_OP_TENSOR_INSERT: return op->num_operands == 2 + rt->rank;
  case KILN_OP_TENSOR_FROM_ELEMENTS: return (int64_t)op->num_operands == kiln_type_num_elements(rt);
  default: return false;
  }
}

/* memref.subview of `base` (strided layout) for the part of tensor type
 * `part` at offsets/sizes/strides; unit dims not in `part` are dropped as
 * tensor.extract_slice does. */
static kiln_value *subview(bz *z, kiln_builder *b, kiln_value *base, const kiln_type *part, const mixed *off,
                           const mixed *size, const mixed *stride) {
  const kiln_type *bt = base->type;
  int64_t bs[KILN_MAX_LOOPS], boff, kept_strides[KILN_MAX_LOOPS], kept_shape[KILN_MAX_LOOPS];
  kiln_memref_strides(bt, bs, &boff);
  int64_t lin = boff;
  uint32_t j = 0;
  for (uint32_t i = 0; i < bt->rank; i++) {
    if (off->st[i] == KILN_DYNAMIC || bs[i] == KILN_DYNAMIC || lin == KILN_DYNAMIC) lin = KILN_DYNAMIC;
    else lin += off->st[i] * bs[i];
    uint32_t remaining_sizes = bt->rank - i, remaining_dims = part->rank - j;
    if (j < part->rank && (remaining_sizes == remaining_dims || size->st[i] != 1 || part->shape[j] == 1)) {
      kept_strides[j] = stride->st[i] == KILN_DYNAMIC || bs[i] == KILN_DYNAMIC ? KILN_DYNAMIC : stride->st[i] * bs[i];
      kept_shape[j++] = size->st[i];
    }
  }
  const kiln_type *vt = kiln_type_memref(z->ctx, part->rank, kept_shape, part->elem,
                                         kiln_attr_strided(z->ctx, lin, part->rank, kept_strides), NULL);
  kiln_value *ops[1 + 3 * KILN_MAX_LOOPS];
  int64_t seg[4] = {1, 0, 0, 0};
  uint32_t n = 0;
  ops[n++] = base;
  const mixed *lists[3] = {off, size, stride};
  for (uint32_t l = 0; l < 3; l++)
    for (uint32_t i = 0; i < bt->rank; i++)
      if (lists[l]->v[i]) ops[n++] = lists[l]->v[i], seg[1 + l]++;
  kiln_named_attr a[4] = {
      hl_named(z->ctx, "operandSegmentSizes", kiln_attr_dense_array(z->ctx, kiln_type_int(z->ctx, 32), 4, seg, NULL)),
      hl_named(z->ctx, "static_offsets", kiln_attr_dense_i64_array(z->ctx, bt->rank, off->st)),
      hl_named(z->ctx, "static_sizes", kiln_attr_dense_i64_array(z->ctx, bt->rank, size->st)),
      hl_named(z->ctx, "static_strides", kiln_attr_dense_i64_array(z->ctx, bt->rank, stride->st)),
  };
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_SUBVIEW, n, ops, 1, &vt, kiln_attr_dict(z->ctx, 4, a)), 0);
}

/* Subview of base holding memref src's shape at `off` with unit strides. */
static kiln_value *window(bz *z, kiln_builder *b, kiln_value *base, kiln_value *src, const mixed *off) {
  mixed size, ones;
  const kiln_type *st = src->type;
  for (uint32_t i = 0; i < st->rank; i++) {
    ones.st[i] = 1, ones.v[i] = NULL;
    size.st[i] = st->shape[i];
    size.v[i] = st->shape[i] == KILN_DYNAMIC ? mdim(z, b, src, i) : NULL;
  }
  const kiln_type *part = kiln_type_tensor(z->ctx, st->rank, st->shape, st->elem, NULL);
  return subview(z, b, base, part, off, &size, &ones);
}

static void fill(bz *z, kiln_builder *b, kiln_value *scalar, kiln_value *dst) {
  int64_t seg[2] = {1, 1};
  kiln_named_attr a = hl_named(z->ctx, "operandSegmentSizes",
                               kiln_attr_dense_array(z->ctx, kiln_type_int(z->ctx, 32), 2, seg, NULL));
  kiln_value *ops[2] = {scalar, dst};
  kiln_build(b, KILN_OP_LINALG_FILL, 2, ops, 0, NULL, kiln_attr_dict(z->ctx, 1, &a));
}

/* A static pad's value goes only around the window at `lo` that the
 * copy writes: per dim d the slabs below and above the window, within it
 * along the dims before d and whole along those after (disjoint, covering
 * the border once), so the window is written once, not filled first
 * (half the pad's stores for a CNN's 1-pixel pads). A run-time dim that
 * nothing pads (a batch) is whole in every slab; false when another size
 * or offset is known only at run time: the caller fills the whole buffer. */
static bool fill_border(bz *z, kiln_builder *b, kiln_value *v, kiln_value *dst, kiln_value *src,
                        const mixed *lo, const mixed *hi) {
  const kiln_type *dt = dst->type, *st = src->type;
  if (dt->rank != st->rank) return false;
  for (uint32_t i = 0; i < dt->rank; i++) {
    if (lo->st[i] == KILN_DYNAMIC || lo->v[i]) return false;
    /* a run-time dim only where nothing is padded (a batch): whole in
     * every slab */
    if ((dt->shape[i] == KILN_DYNAMIC || st->shape[i] == KILN_DYNAMIC) &&
        (dt->shape[i] != st->shape[i] || lo->st[i] != 0 || hi->st[i] != 0 || hi->v[i]))
      return false;
  }
  for (uint32_t d = 0; d < dt->rank; d++) {
    if (dt->shape[d] == KILN_DYNAMIC) continue; /* unpadded: no slab */
    for (int side = 0; side < 2; side++) {
      int64_t at = side ? lo->st[d] + st->shape[d] : 0;
      int64_t len = side ? dt->shape[d] - at : lo->st[d];
      if (len <= 0) continue;
      mixed off, size, ones;
      int64_t shape[KILN_MAX_LOOPS];
      for (uint32_t i = 0; i < dt->rank; i++) {
        off.v[i] = size.v[i] = ones.v[i] = NULL;
        ones.st[i] = 1;
        off.st[i] = i < d ? lo->st[i] : i == d ? at : 0;
        size.st[i] = shape[i] = i < d ? st->shape[i] : i == d ? len : dt->shape[i];
        if (shape[i] == KILN_DYNAMIC) size.v[i] = mdim(z, b, dst, i);
      }
      const kiln_type *part = kiln_type_tensor(z->ctx, dt->rank, shape, dt->elem, NULL);
      fill(z, b, v, subview(z, b, dst, part, &off, &size, &ones));
    }
  }
  return true;
}

/* A static pad of a value this block computes and nothing else reads
 * (form-dispatch-regions fuses pads behind convolutions and their
 * epilogues): the value is computed straight into the window of the
 * pad's buffer b that move_op would copy it to (a subview made in the
 * prologue), so only the border is written besides. A pad of a
 * tensor.empty (place-concats' border, the interior written by other
 * dispatches) takes the window the same way: nothing is copied. */
static void pad_in_place(bz *z, kiln_op *pad, kiln_value *b) {
  kiln_value *src = kiln_op_operand(pad, 0);
  const kiln_type *st = src->type;
  bool empty = src->def && src->def->kind == KILN_OP_TENSOR_EMPTY && src->def->parent == z->cur;
  if (z->cur != z->body || lookup(z, src) || !(empty || is_linalg_value(z, src)) || !kiln_value_has_one_use(src) ||
      b->type->rank != st->rank)
    return;
  mixed lo, hi, size, ones;
  uint32_t next = 1;
  if (!read_mixed(pad, "static_low", st->rank, &next, &lo) || !read_mixed(pad, "static_high", st->rank, &next, &hi))
    return;
  for (uint32_t i = 0; i < st->rank; i++) {
    if (lo.v[i]) return;
    /* a run-time dim only where nothing is padded: the buffer's */
    if ((st->shape[i] == KILN_DYNAMIC || b->type->shape[i] == KILN_DYNAMIC) &&
        (st->shape[i] != b->type->shape[i] || lo.st[i] != 0 || hi.st[i] != 0 || hi.v[i]))
      return;
  }
  kiln_builder pb = kiln_builder_before(z->prologue);
  pb.loc = pad->loc;
  for (uint32_t i = 0; i < st->rank; i++) {
    size.st[i] = st->shape[i];
    size.v[i] = st->shape[i] == KILN_DYNAMIC ? mdim(z, &pb, b, i) : NULL;
    ones.st[i] = 1, ones.v[i] = NULL;
  }
  kiln_value_map_add(z->ctx, &z->buf, src, subview(z, &pb, b, st, &lo, &size, &ones));
}

/* A static, unit-stride insert_slice into a tensor.empty of a value this
 * block computes and nothing else reads (place-concats' pieces): the
 * value is computed straight into its window of the insert's buffer b,
 * as pad_in_place does for a pad's interior, so the insert copies
 * nothing. (A destination with contents would be written into b after
 * the value, over it.) */
static void insert_in_place(bz *z, kiln_op *ins, kiln_value *b) {
  kiln_value *src = kiln_op_operand(ins, 0), *dest = kiln_op_operand(ins, 1);
  const kiln_type *st = src->type;
  if (z->cur != z->body || ins->num_operands != 2 || !dest->def || dest->def->kind != KILN_OP_TENSOR_EMPTY ||
      lookup(z, src) || !is_linalg_value(z, src) ||
      !kiln_value_has_one_use(src) || b->type->rank != st->rank || !kiln_type_has_static_shape(st))
    return;
  mixed off, size, stride;
  if (!read_slice(ins, st->rank, 2, &off, &size, &stride)) return;
  for (uint32_t i = 0; i < st->rank; i++)
    if (stride.st[i] != 1 || size.st[i] != st->shape[i] || off.st[i] == KILN_DYNAMIC) return;
  kiln_builder pb = kiln_builder_before(z->prologue);
  pb.loc = ins->loc;
  kiln_value_map_add(z->ctx, &z->buf, src, subview(z, &pb, b, st, &off, &size, &stride));
}

/* For an all-parallel single-output generic that does not read its init:
 * the input that may share the output buffer, or NULL. */
/* Is v a slice of a loaded binding (a view unless a buffer is chosen for
 * it: slice_view)? */
static bool loaded_slice(const kiln_value *v) {
  const kiln_op *d = v->def;
  if (!d || d->kind != KILN_OP_TENSOR_EXTRACT_SLICE) return false;
  d = kiln_op_operand(d, 0)->def;
  return d && d->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD;
}

/* (A slice of a loaded binding is no candidate: it is read in place as
 * a view, where computing over it would copy it first.) */
static kiln_value *in_place_input(bz *z, kiln_op *op) {
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_results != 1) return NULL;
  uint32_t nin = kiln_linalg_num_inputs(op);
  if (op->num_operands != nin + 1) return NULL;
  const kiln_affine_map **maps = kiln_alloc(z->ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int loops = kiln_linalg_iteration(op, maps, red);
  if (loops < 0 || !kiln_affine_map_is_identity(maps[nin])) return NULL;
  for (int i = 0; i < loops; i++)
    if (red[i]) return NULL;
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *x = kiln_op_operand(op, i);
    if (x->type == op->results[0].type && is_linalg_value(z, x) && !lookup(z, x) &&
        kiln_value_has_one_use(x) && kiln_affine_map_is_identity(maps[i]) && !loaded_slice(x))
      return x;
  }
  return NULL;
}

static kiln_error *unsupported(bz *z, kiln_op *op) {
  return kiln_op_error(op, "cannot be bufferized in kernel @%s (not supported yet)",
                       kiln_symbol_name(z->kernel));
}

static bool has_tensor(const kiln_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind == KILN_TYPE_TENSOR) return true;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind == KILN_TYPE_TENSOR) return true;
  return false;
}

/* The buffer of result r (an alloca when nothing chose one yet). */
static kiln_value *result_buffer(bz *z, kiln_value *r, kiln_loc loc) {
  kiln_value *b = lookup(z, r);
  if (!b) {
    b = alloca_for(z, r, loc);
    kiln_value_map_add(z->ctx, &z->buf, r, b);
  }
  return b;
}

/* Would r need a kernel-local buffer of run-time size that nothing
 * sizes (alloca_for)? */
static bool no_size(bz *z, kiln_value *r) {
  return !lookup(z, r) && kiln_type_num_dynamic_dims(r->type) && !top_empty(z, r);
}

/* init o of an op (read by it) must hold its value in b when op runs:
 * share b when nothing else reads o, else copy o into b before op. */
static void tie_init(bz *z, kiln_op *op, kiln_value *o, kiln_value *b) {
  if (o->def && o->def->kind == KILN_OP_TENSOR_EMPTY) return;
  kiln_value *ob = lookup(z, o);
  if (ob == b) return;
  if (!ob && is_linalg_value(z, o) && kiln_value_has_one_use(o)) kiln_value_map_add(z->ctx, &z->buf, o, b);
  else add_copy(z, op, o, b);
}

/* The op of block blk that holds (at any depth) op, or NULL. */
static kiln_op *in_block(kiln_op *op, kiln_block *blk) {
  while (op && op->parent != blk) op = kiln_op_parent_op(op);
  return op;
}

static bool before(kiln_op *a, kiln_op *b) {
  for (kiln_op *o = a->next; o; o = o->next)
    if (o == b) return true;
  return false;
}

/* May the value y yielded for iter_arg `arg` of a loop body be computed
 * straight into the loop's buffer? Only when its producer D writes it
 * over `arg` itself (D's init / destination is arg) and nothing reads arg
 * after D: then the old value is dead when D overwrites it. */
/* The init that op d writes its result y into (tensor.insert /
 * insert_slice, destination-style linalg, an scf.for's iter_arg), or
 * NULL. */
static kiln_value *written_init(kiln_op *d, kiln_value *y) {
  if (d->kind == KILN_OP_TENSOR_INSERT_SLICE || d->kind == KILN_OP_TENSOR_INSERT) return kiln_op_operand(d, 1);
  if (d->kind == KILN_OP_SCF_FOR) /* its iter_arg lives in its result's buffer (assign_for) */
    for (uint32_t r = 0; r < d->num_results; r++)
      if (&d->results[r] == y) return 3 + r < d->num_operands ? kiln_op_operand(d, 3 + r) : NULL;
  kiln_value *init = NULL;
  if (kiln_op_has_flag(d, KILN_OPF_LINALG)) {
    uint32_t nin = kiln_linalg_num_inputs(d), k = 0;
    for (uint32_t i = nin; i < d->num_operands; i++) {
      if (kiln_op_operand(d, i)->type->kind != KILN_TYPE_TENSOR) continue;
      if (k < d->num_results && &d->results[k] == y) init = kiln_op_operand(d, i);
      k++;
    }
  }
  return init;
}

/* An scf.if d in the loop body yielding, as its result y, in each branch
 * either arg itself or one in-place write of arg made in that branch
 * after every other read of arg there: the if can work in arg's buffer. */
static bool if_in_place(kiln_op *d, kiln_value *y, kiln_value *arg) {
  uint32_t r = 0;
  while (r < d->num_results && &d->results[r] != y) r++;
  kiln_op *w[2] = {NULL, NULL};
  for (uint32_t g = 0; g < 2; g++) {
    kiln_block *blk = d->regions[g].first;
    kiln_op *t = blk ? kiln_block_terminator(blk) : NULL;
    if (!t || r >= t->num_operands) return false;
    kiln_value *v = kiln_op_operand(t, r);
    if (v == arg) continue;
    if (!v->def || v->def->parent != blk || !kiln_value_has_one_use(v) || written_init(v->def, v) != arg) return false;
    w[g] = v->def;
  }
  for (kiln_use *u = arg->uses; u; u = u->next) {
    if (in_block(u->owner, d->parent) != d) continue; /* outside: the caller's rule */
    uint32_t g = 0;
    while (g < 2 && !(d->regions[g].first && in_block(u->owner, d->regions[g].first))) g++;
    if (g == 2) return false;
    kiln_op *top = in_block(u->owner, d->regions[g].first);
    if (top->kind == KILN_OP_SCF_YIELD && u->index == r) continue;
    if (top == w[g] && top == u->owner &&
        (top->kind == KILN_OP_SCF_FOR ? u->index >= 3
         : kiln_op_has_flag(top, KILN_OPF_LINALG) ? u->index >= kiln_linalg_num_inputs(top)
                                                  : u->index == 1))
      continue; /* the write itself, as its destination */
    if (!w[g] || top == w[g] || !before(top, w[g])) return false;
  }
  return true;
}

static bool yield_in_place(bz *z, kiln_value *y, kiln_value *arg, kiln_block *body) {
  kiln_op *d = y->def;
  if (!d || d->parent != body || lookup(z, y) || !kiln_value_has_one_use(y)) return false;
  kiln_value *init = written_init(d, y);
  if (d->kind == KILN_OP_SCF_IF) {
    if (!if_in_place(d, y, arg)) return false;
    for (kiln_use *u = arg->uses; u; u = u->next) {
      kiln_op *top = in_block(u->owner, body);
      if (!top || (top != d && !before(top, d))) return false;
    }
    return true;
  }
  if (init != arg) return false;
  for (kiln_use *u = arg->uses; u; u = u->next) {
    /* the write itself, arg as its destination (an inner scf.for's
     * iter_arg inits are its operands from 3 on, whatever their count) */
    if (u->owner == d && (d->kind == KILN_OP_SCF_FOR ? u->index >= 3
                          : u->index == 1 || u->index >= kiln_linalg_num_inputs(d)))
      continue;
    kiln_op *top = in_block(u->owner, body);
    if (!top || top == d || !before(top, d)) return false;
  }
  return true;
}

static kiln_error *assign_block(bz *z, kiln_block *blk, kiln_value **bindings);

/* scf.for: each tensor iter_arg lives in its result's buffer for the
 * whole loop; the init is tied or copied in, the body's yield computed in
 * place (yield_in_place) or copied back before the yield. */
static kiln_error *assign_for(bz *z, kiln_op *op, kiln_value **bindings) {
  kiln_block *body = op->regions[0].first;
  kiln_op *y = body ? kiln_block_terminator(body) : NULL;
  if (!y || y->kind != KILN_OP_SCF_YIELD || y->num_operands != op->num_results) return unsupported(z, op);
  kiln_block *outer = z->cur;
  for (uint32_t i = 0; i < op->num_results; i++) {
    kiln_value *r = kiln_op_result(op, i);
    if (r->type->kind != KILN_TYPE_TENSOR) continue;
    /* run-time dims: only into a buffer chosen already (an output, an
     * enclosing loop's): kernels allocate no run-time sizes */
    if (!kiln_type_has_static_shape(r->type) && !lookup(z, r)) return unsupported(z, op);
    kiln_value *b = result_buffer(z, r, op->loc);
    tie_init(z, op, kiln_op_operand(op, 3 + i), b);
    kiln_value *arg = body->args[1 + i], *v = kiln_op_operand(y, i);
    kiln_value_map_add(z->ctx, &z->buf, arg, b);
    z->cur = body;
    if (lookup(z, v) != b) {
      if (yield_in_place(z, v, arg, body)) kiln_value_map_add(z->ctx, &z->buf, v, b);
      else add_copy(z, y, v, b);
    }
    z->cur = outer;
  }
  kiln_error *e = assign_block(z, body, bindings);
  z->cur = outer;
  return e;
}

/* scf.if: each tensor result's buffer is written by both branches. */
static kiln_error *assign_if(bz *z, kiln_op *op, kiln_value **bindings) {
  kiln_block *outer = z->cur;
  for (uint32_t i = 0; i < op->num_results; i++) {
    kiln_value *r = kiln_op_result(op, i);
    if (r->type->kind != KILN_TYPE_TENSOR) continue;
    if (!kiln_type_has_static_shape(r->type) && !lookup(z, r)) return unsupported(z, op);
    kiln_value *b = result_buffer(z, r, op->loc);
    for (uint32_t k = 0; k < 2; k++) {
      kiln_block *blk = op->regions[k].first;
      kiln_op *y = blk ? kiln_block_terminator(blk) : NULL;
      if (!y || y->kind != KILN_OP_SCF_YIELD || y->num_operands != op->num_results) return unsupported(z, op);
      kiln_value *v = kiln_op_operand(y, i);
      z->cur = blk;
      if (lookup(z, v) != b) {
        if (!lookup(z, v) && is_linalg_value(z, v) && kiln_value_has_one_use(v))
          kiln_value_map_add(z->ctx, &z->buf, v, b);
        else
          add_copy(z, y, v, b);
      }
    }
    z->cur = outer;
  }
  for (uint32_t k = 0; k < 2; k++) {
    kiln_error *e = op->regions[k].first ? assign_block(z, op->regions[k].first, bindings) : NULL;
    z->cur = outer;
    if (e) return e;
  }
  return NULL;
}

/* A slice of a loaded binding that nothing chose a buffer for (no reader
 * writes it in place, it is not stored) is only read: it is a view of
 * the binding (a subview, move_op), not a copy. Bindings read are never
 * written by the kernel, so the window holds the slice's values
 * throughout. */
static bool slice_view(bz *z, kiln_op *op) {
  return loaded_slice(kiln_op_result(op, 0)) && !lookup(z, kiln_op_result(op, 0));
}

/* Backward pass over a block: choose a buffer for every tensor value. */
static kiln_error *assign_block(bz *z, kiln_block *blk, kiln_value **bindings) {
  for (kiln_op *op = blk->last; op; op = op->prev) {
    z->cur = blk;
    if (op->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE) {
      kiln_value *v = kiln_op_operand(op, 0), *arg = kiln_op_operand(op, 1);
      kiln_value *b = bindings[arg->index];
      if (!lookup(z, v) && is_linalg_value(z, v)) kiln_value_map_add(z->ctx, &z->buf, v, b);
      else add_copy(z, op, v, b);
    } else if (kiln_op_has_flag(op, KILN_OPF_LINALG)) {
      uint32_t nin = kiln_linalg_num_inputs(op), k = 0;
      for (uint32_t i = nin; i < op->num_operands; i++) {
        kiln_value *o = kiln_op_operand(op, i);
        if (o->type->kind != KILN_TYPE_TENSOR) continue;
        if (k >= op->num_results || no_size(z, kiln_op_result(op, k))) return unsupported(z, op);
        kiln_value *b = result_buffer(z, kiln_op_result(op, k++), op->loc);
        if (hl_init_read(op, i - nin)) {
          tie_init(z, op, o, b);
        } else if (op->num_results == 1) {
          kiln_value *x = in_place_input(z, op);
          if (x) kiln_value_map_add(z->ctx, &z->buf, x, b);
        }
      }
    } else if (is_move_op(op)) {
      if (!move_supported(op)) return unsupported(z, op);
      if (slice_view(z, op)) continue; /* move_op maps it to a subview */
      kiln_value *b = result_buffer(z, kiln_op_result(op, 0), op->loc);
      if (op->kind == KILN_OP_TENSOR_INSERT_SLICE || op->kind == KILN_OP_TENSOR_INSERT)
        tie_init(z, op, kiln_op_operand(op, 1), b); /* the destination is the init */
      if (op->kind == KILN_OP_TENSOR_PAD) pad_in_place(z, op, b);
      if (op->kind == KILN_OP_TENSOR_INSERT_SLICE) insert_in_place(z, op, b);
    } else if (op->kind == KILN_OP_SCF_FOR) {
      kiln_error *e = assign_for(z, op, bindings);
      if (e) return e;
    } else if (op->kind == KILN_OP_SCF_IF) {
      kiln_error *e = assign_if(z, op, bindings);
      if (e) return e;
    } else if (op->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD || op->kind == KILN_OP_TENSOR_EMPTY ||
               op->kind == KILN_OP_TENSOR_EXTRACT || op->kind == KILN_OP_SCF_YIELD) {
      continue;
    } else if (has_tensor(op)) {
      return unsupported(z, op);
    }
  }
  return NULL;
}

/* The memref a tensor operand reads. */
static kiln_value *memref_of(bz *z, kiln_value *v, kiln_loc loc) {
  kiln_value *m = lookup(z, v);
  if (m) return m;
  /* tensor.empty read as an input (undefined content): scratch memory */
  m = alloca_for(z, v, loc);
  kiln_value_map_add(z->ctx, &z->buf, v, m);
  return m;
}

/* n (op rebuilt on buffers) takes op's regions, blocks and all. */
static void take_regions(kiln_op *n, kiln_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    while (op->regions[r].first) {
      kiln_block *b = op->regions[r].first;
      kiln_region_remove_block(b);
      kiln_region_append_block(&n->regions[r], b);
    }
}

static void rewrite_linalg(bz *z, kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op), k = 0;
  kiln_value **ops = kiln_alloc(z->ctx, (op->num_operands + 1) * sizeof *ops);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (v->type->kind != KILN_TYPE_TENSOR) ops[i] = v;
    else if (i >= nin) ops[i] = lookup(z, kiln_op_result(op, k++));
    else ops[i] = memref_of(z, v, op->loc);
  }
  kiln_op *n = kiln_op_create(z->ctx, op->kind, op->loc, op->num_operands, ops, 0, NULL, op->attrs,
                              op->num_regions);
  take_regions(n, op);
  kiln_block_insert_before(op, n);
}

/* The memref form of a data-movement tensor op, before op. */
static void move_op(bz *z, kiln_op *op) {
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *dst = lookup(z, kiln_op_result(op, 0));
  const kiln_type *rt = op->results[0].type;
  switch (op->kind) {
  case KILN_OP_TENSOR_EXTRACT_SLICE: {
    kiln_value *src = memref_of(z, kiln_op_operand(op, 0), op->loc);
    mixed off, size, stride;
    read_slice(op, src->type->rank, 1, &off, &size, &stride);
    kiln_value *w = subview(z, &b, src, rt, &off, &size, &stride);
    if (dst) hl_build_copy(&b, w, dst);
    else kiln_value_map_add(z->ctx, &z->buf, kiln_op_result(op, 0), w); /* a view (slice_view) */
    break;
  }
  case KILN_OP_TENSOR_INSERT_SLICE: {
    kiln_value *src = memref_of(z, kiln_op_operand(op, 0), op->loc);
    mixed off, size, stride;
    read_slice(op, rt->rank, 2, &off, &size, &stride);
    /* computed in place (insert_in_place): the window already holds it */
    if (!(src->def && src->def->kind == KILN_OP_MEMREF_SUBVIEW && kiln_op_operand(src->def, 0) == dst))
      hl_build_copy(&b, src, subview(z, &b, dst, kiln_op_operand(op, 0)->type, &off, &size, &stride));
    break;
  }
  case KILN_OP_TENSOR_PAD: {
    kiln_value *v = pad_value(op);
    if (v->def && kiln_op_is_inside(v->def, op))
      v = kiln_build_constant(&b, kiln_op_get_attr(v->def, "value"));
    kiln_value *src = memref_of(z, kiln_op_operand(op, 0), op->loc);
    mixed lo, hi;
    uint32_t next = 1;
    read_mixed(op, "static_low", rt->rank, &next, &lo);
    read_mixed(op, "static_high", rt->rank, &next, &hi);
    if (!fill_border(z, &b, v, dst, src, &lo, &hi)) fill(z, &b, v, dst);
    /* computed in place (pad_in_place): the window already holds it */
    if (!(src->def && src->def->kind == KILN_OP_MEMREF_SUBVIEW && kiln_op_operand(src->def, 0) == dst))
      hl_build_copy(&b, src, window(z, &b, dst, src, &lo));
    break;
  }
  case KILN_OP_TENSOR_CONCAT: {
    int64_t d = kiln_op_get_attr(op, "dim")->i;
    mixed off;
    for (uint32_t i = 0; i < rt->rank; i++) off.st[i] = 0, off.v[i] = NULL;
    for (uint32_t i = 0; i < op->num_operands; i++) {
      kiln_value *x = memref_of(z, kiln_op_operand(op, i), op->loc);
      hl_build_copy(&b, x, window(z, &b, dst, x, &off));
      /* the next piece starts where this one ends */
      if (off.st[d] != KILN_DYNAMIC && x->type->shape[d] != KILN_DYNAMIC) {
        off.st[d] += x->type->shape[d];
        continue;
      }
      kiln_value *ops[2] = {mixed_value(z, &b, &off, (uint32_t)d), mdim(z, &b, x, (uint32_t)d)};
      const kiln_type *it = kiln_type_index(z->ctx);
      off.v[d] = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_ADDI, 2, ops, 1, &it, NULL), 0);
      off.st[d] = KILN_DYNAMIC;
    }
    break;
  }
  case KILN_OP_TENSOR_SPLAT: fill(z, &b, kiln_op_operand(op, 0), dst); break;
  case KILN_OP_TENSOR_INSERT: { /* the destination is already in dst */
    kiln_value *ops[2 + KILN_MAX_LOOPS];
    ops[0] = kiln_op_operand(op, 0), ops[1] = dst;
    for (uint32_t i = 0; i < rt->rank; i++) ops[2 + i] = kiln_op_operand(op, 2 + i);
    kiln_build(&b, KILN_OP_MEMREF_STORE, 2 + rt->rank, ops, 0, NULL, NULL);
    break;
  }
  case KILN_OP_TENSOR_FROM_ELEMENTS: { /* row-major elements */
    for (uint32_t e = 0; e < op->num_operands; e++) {
      kiln_value *ops[2 + KILN_MAX_LOOPS];
      ops[0] = kiln_op_operand(op, e), ops[1] = dst;
      int64_t rest = e;
      for (uint32_t i = rt->rank; i-- > 0;) {
        kiln_value *c = kiln_build_constant(&b, kiln_attr_int(z->ctx, kiln_type_index(z->ctx), rest % rt->shape[i]));
        ops[2 + i] = c;
        rest /= rt->shape[i];
      }
      kiln_build(&b, KILN_OP_MEMREF_STORE, 2 + rt->rank, ops, 0, NULL, NULL);
    }
    break;
  }
  default: break;
  }
}

/* tensor.extract of a kernel tensor (top level or inside a linalg body)
 * becomes memref.load from its buffer. */
static kiln_walk_result load_extract(kiln_op *op, void *user) {
  bz *z = user;
  if (op->kind != KILN_OP_TENSOR_EXTRACT) return KILN_WALK_ADVANCE;
  kiln_value *t = kiln_op_operand(op, 0);
  kiln_value *m = lookup(z, t);
  if (!m) return KILN_WALK_ADVANCE; /* not a kernel tensor: reported later */
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  uint32_t n = op->num_operands > KILN_MAX_LOOPS ? KILN_MAX_LOOPS : op->num_operands;
  ops[0] = m;
  for (uint32_t i = 1; i < n; i++) ops[i] = kiln_op_operand(op, i);
  const kiln_type *et = op->results[0].type;
  kiln_op *ld = kiln_build(&b, KILN_OP_MEMREF_LOAD, n, ops, 1, &et, NULL);
  kiln_value_replace_all_uses(kiln_op_result(op, 0), kiln_op_result(ld, 0));
  kiln_op_erase(op);
  return KILN_WALK_ADVANCE;
}

typedef struct oplist {
  kiln_op **v;
  uint32_t n, cap;
} oplist;

/* Ops of blk in program order, with the bodies of scf ops (not of linalg
 * ops, which move as a whole). */
static void collect(kiln_context *ctx, kiln_block *blk, oplist *l) {
  for (kiln_op *o = blk->first; o; o = o->next) {
    if (l->n == l->cap) {
      uint32_t cap = l->cap ? 2 * l->cap : 64;
      kiln_op **v = kiln_alloc(ctx, cap * sizeof *v);
      for (uint32_t i = 0; i < l->n; i++) v[i] = l->v[i];
      l->v = v, l->cap = cap;
    }
    l->v[l->n++] = o;
    if (o->kind == KILN_OP_SCF_FOR || o->kind == KILN_OP_SCF_IF)
      for (uint32_t r = 0; r < o->num_regions; r++)
        for (kiln_block *b = o->regions[r].first; b; b = b->next) collect(ctx, b, l);
  }
}

static bool tensor_scf(const kiln_op *op) {
  return (op->kind == KILN_OP_SCF_FOR || op->kind == KILN_OP_SCF_IF || op->kind == KILN_OP_SCF_YIELD) &&
         has_tensor(op);
}

/* An scf.for/if without its tensor results (their values live in the
 * buffers assign() chose); the regions move over, scalars stay. */
static void rewrite_scf(bz *z, kiln_op *op) {
  uint32_t first = op->kind == KILN_OP_SCF_FOR ? 3 : 1;
  kiln_value **ops = kiln_alloc(z->ctx, (op->num_operands + 1) * sizeof *ops);
  const kiln_type **rt = kiln_alloc(z->ctx, (op->num_results + 1) * sizeof *rt);
  uint32_t no = 0, nr = 0;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (i < first || v->type->kind != KILN_TYPE_TENSOR) ops[no++] = v;
  }
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind != KILN_TYPE_TENSOR) rt[nr++] = op->results[i].type;
  kiln_op *n = kiln_op_create(z->ctx, op->kind, op->loc, no, ops, nr, rt, op->attrs, op->num_regions);
  take_regions(n, op);
  kiln_block_insert_before(op, n);
  for (uint32_t i = 0, k = 0; i < op->num_results; i++)
    if (op->results[i].type->kind != KILN_TYPE_TENSOR)
      kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_result(n, k++));
}

/* scf.yield without its tensor operands. */
static void rewrite_yield(bz *z, kiln_op *op) {
  kiln_value **ops = kiln_alloc(z->ctx, (op->num_operands + 1) * sizeof *ops);
  uint32_t no = 0;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_TENSOR) ops[no++] = kiln_op_operand(op, i);
  kiln_block_insert_before(op, kiln_op_create(z->ctx, KILN_OP_SCF_YIELD, op->loc, no, ops, 0, NULL, op->attrs, 0));
}

/* Tensor iter_args of the loop bodies that were moved (now unused). */
static kiln_walk_result drop_loop_tensor_args(kiln_op *op, void *user) {
  (void)user;
  if (op->kind != KILN_OP_SCF_FOR) return KILN_WALK_ADVANCE;
  kiln_block *blk = op->regions[0].first;
  for (uint32_t i = blk ? blk->num_args : 0; i-- > 0;)
    if (blk->args[i]->type->kind == KILN_TYPE_TENSOR && !kiln_value_has_uses(blk->args[i]))
      kiln_block_erase_arg(blk, i);
  return KILN_WALK_ADVANCE;
}

static kiln_error *bufferize(kiln_context *ctx, kiln_op *kernel) {
  bz z = {0};
  z.ctx = ctx;
  z.kernel = kernel;
  z.body = kernel->regions[0].first;
  if (!z.body || !z.body->first) return NULL;
  z.prologue = z.body->first;
  uint32_t nargs = z.body->num_args, nbind = 0;
  while (nbind < nargs && z.body->args[nbind]->type->kind != KILN_TYPE_INDEX) nbind++;
  /* push constant k (index argument nbind + k): its i32 widened to index */
  for (uint32_t k = 0; nbind + k < nargs; k++) {
    kiln_builder b = kiln_builder_before(z.prologue);
    b.loc = kernel->loc;
    const kiln_type *i32 = kiln_type_int(ctx, 32), *it = kiln_type_index(ctx);
    kiln_named_attr a = hl_named(ctx, "index", hl_i32(ctx, k));
    kiln_value *c = kiln_op_result(kiln_build(&b, KILN_OP_HAL_INTERFACE_CONSTANT, 0, NULL, 1, &i32,
                                              kiln_attr_dict(ctx, 1, &a)), 0);
    kiln_value *x = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_INDEX_CASTUI, 1, &c, 1, &it, NULL), 0);
    kiln_value_replace_all_uses(z.body->args[nbind + k], x);
  }
  kiln_value **bindings = kiln_alloc(ctx, (nargs + 1) * sizeof *bindings);
  for (uint32_t i = 0; i < nbind; i++) {
    kiln_value *dims[KILN_MAX_LOOPS];
    uint32_t nd = 0;
    const kiln_type *tt = hl_arg_tensor_type(z.body->args[i], dims, &nd);
    if (!tt) continue;
    const kiln_type *mt = hl_memref_for(ctx, tt);
    kiln_named_attr a = hl_named(ctx, "binding", hl_i32(ctx, i));
    kiln_op *b = kiln_op_create(ctx, KILN_OP_HAL_INTERFACE_BINDING, kernel->loc, nd, dims, 1, &mt,
                                kiln_attr_dict(ctx, 1, &a), 0);
    kiln_block_insert_before(z.prologue, b);
    bindings[i] = kiln_op_result(b, 0);
  }
  /* the original ops, before anything is inserted among them */
  oplist ol = {0};
  collect(ctx, z.body, &ol);
  kiln_op **orig = ol.v;
  uint32_t nops = ol.n;
  for (uint32_t i = 0; i < nops; i++)
    if ((orig[i]->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD || orig[i]->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE) &&
        orig[i]->parent != z.body)
      return kiln_error_new("bufferize-kernels: kernel @%s loads or stores a binding inside a loop or branch",
                            kiln_symbol_name(kernel));
  for (uint32_t i = 0; i < nops; i++)
    if (orig[i]->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD) {
      kiln_value *arg = kiln_op_operand(orig[i], 0);
      if (arg->def || arg->block != z.body)
        return kiln_error_new("bufferize-kernels: kernel @%s loads from a value that is not a kernel argument",
                              kiln_symbol_name(kernel));
      kiln_value_map_add(ctx, &z.buf, kiln_op_result(orig[i], 0), bindings[arg->index]);
    } else if (orig[i]->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE) {
      kiln_value *arg = kiln_op_operand(orig[i], 1);
      if (arg->def || arg->block != z.body)
        return kiln_error_new("bufferize-kernels: kernel @%s stores to a value that is not a kernel argument",
                              kiln_symbol_name(kernel));
    }
  kiln_error *err = assign_block(&z, z.body, bindings);
  if (err) return err;
  /* forward rewrite */
  for (uint32_t i = 0; i < nops; i++) {
    kiln_op *op = orig[i];
    for (uint32_t c = 0; c < z.ncopies; c++)
      if (z.before[c] == op) {
        kiln_builder b = kiln_builder_before(op);
        b.loc = op->loc;
        hl_build_copy(&b, memref_of(&z, z.src[c], op->loc), z.dst[c]);
      }
    if (kiln_op_has_flag(op, KILN_OPF_LINALG) && has_tensor(op)) rewrite_linalg(&z, op);
    else if (is_move_op(op)) move_op(&z, op);
    else if (op->kind == KILN_OP_SCF_YIELD && tensor_scf(op)) rewrite_yield(&z, op);
    else if (tensor_scf(op)) rewrite_scf(&z, op);
  }
  /* reads of single elements, also inside the (moved) linalg bodies; the
   * post-order walk tolerates erasing the visited op */
  kiln_walk_post(kernel, load_extract, &z);
  for (uint32_t i = nops; i-- > 0;) {
    kiln_op *op = orig[i];
    if (op->kind == KILN_OP_TENSOR_EXTRACT) continue; /* erased by load_extract */
    if (op->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD || op->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE ||
        op->kind == KILN_OP_TENSOR_EMPTY || is_move_op(op) || tensor_scf(op) ||
        (kiln_op_has_flag(op, KILN_OPF_LINALG) && has_tensor(op)))
      kiln_op_erase(op);
  }
  /* loop bodies (now under the new scf ops) lose their tensor iter_args */
  kiln_walk_pre(kernel, drop_loop_tensor_args, NULL);
  while (z.body->num_args) {
    if (kiln_value_has_uses(z.body->args[0]))
      return kiln_error_new("bufferize-kernels: kernel @%s uses argument %u other than by load/store",
                            kiln_symbol_name(kernel), z.body->args[0]->index);
    kiln_block_erase_arg(z.body, 0);
  }
  kiln_op_set_attr(kernel, "function_type", kiln_attr_type(ctx, kiln_type_function(ctx, 0, NULL, 0, NULL)));
  return NULL;
}

static kiln_error *bufferize_variant(kiln_context *ctx, kiln_op *executable, kiln_op *variant,
                                     void *user) {
  (void)executable, (void)user;
  kiln_op *kernel = hl_variant_kernel(variant);
  return kernel ? bufferize(ctx, kernel) : NULL;
}

kiln_error *kiln_hal_pass_bufferize_kernels(kiln_op *module, void *user) {
  (void)user;
  return hl_each_variant(module, "bufferize-kernels", bufferize_variant, NULL);
}
