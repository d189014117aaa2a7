/* place-concats: the pieces of a concatenation are written by their
 * producers straight into their windows of the concatenation's buffer;
 * the concat's copy dispatch goes, or copies only the pieces that stay.
 *
 * Takes: host functions after outline-dispatches, before
 * deduplicate-executables (each kernel is named by one flow.dispatch).
 * A candidate is a flow.dispatch D whose kernel only loads its inputs,
 * concatenates them (tensor.concat, static shapes, along dim d), maybe
 * pads the concatenation (a static tensor.pad by a constant, not along
 * d: form-dispatch-regions fuses such pads behind concats) and stores
 * the result, of type C (the padded type where D pads: below, a
 * window's offsets in the other dims are the pad's low amounts). A
 * piece x_j is placed when it is
 *  - a result of an earlier flow.dispatch P_j (the placed P_j distinct,
 *    not tied already), or a flow.tensor.reshape of one that splits dim
 *    d into [n, b] (a blocked convolution's channel blocks) when the
 *    piece's offset along d and C's size along d are multiples of b;
 *  - read by D alone, once (an argument, a constant, a value other ops
 *    read or one concatenated twice stays);
 *  - stored by P_j's kernel from a linalg result, the kernel computing
 *    only with linalg ops that write strided windows (generics, NHWC
 *    convolutions, pools, fills: the ops fused pads already compute
 *    into windows).
 * Guarantees, when at least one piece is placed:
 *  - P_j's kernel stores tensor.insert_slice of x_j's value into a
 *    tensor.empty of type C_j at the piece's window, and P_j's result has
 *    type C_j: C, or C with dim d split as x_j's producer splits it;
 *  - the placed P_j are chained in program order: each but the first
 *    takes the previous member's result (a flow.tensor.reshape of it
 *    where the types differ) as a new last tensor operand, bound to a new
 *    readonly kernel argument its kernel never reads, and carries
 *    tied_operands = array<i64> with, per result, the index of the
 *    operand whose buffer it writes into, or -1 (plan-memory gives a
 *    tied result its operand's buffer: the chain writes every window of
 *    one buffer);
 *  - when every piece is placed and D does not pad, D's uses read the
 *    last member's result (viewed as C) and D, the reshapes it read and
 *    its executable are erased; otherwise D is the chain's last member:
 *    its kernel stores tensor.insert_slices of the pieces that stay into
 *    a tensor.empty of the concatenation's type (padded by D's pad: the
 *    border, an inception block's output padded for a pool, is all D
 *    writes when every piece is placed), it loses the placed pieces'
 *    operands and takes the tie like the others. Either way the windows
 *    of the chain cover C.
 * Concats with no placeable piece keep their copy dispatch unchanged. */
#include "fl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PC_MAX_PIECES 64

typedef struct piece {
  kiln_op *producer;     /* P_j */
  uint32_t result;       /* its result index */
  kiln_op *view;         /* the reshape D read, or NULL */
  int64_t offset;        /* along the concat dim, in elements of C */
  int64_t block;         /* the split's inner size, 0 without one */
  uint32_t pos;          /* P_j's position in the host block */
} piece;

static uint32_t tensor_operands(const kiln_op *op) {
  uint32_t n = 0;
  while (n < op->num_operands && kiln_op_operand((kiln_op *)op, n)->type->kind == KILN_TYPE_TENSOR) n++;
  return n;
}

static const char *entry_root(const kiln_op *dispatch) {
  const kiln_attr *e = kiln_op_get_attr(dispatch, "entry_point");
  return e && e->kind == KILN_ATTR_SYMBOL_REF ? e->str : NULL;
}

/* The kernel func.func a dispatch names, when this dispatch alone names
 * its executable (so the kernel may change), else NULL. */
static kiln_op *own_kernel(kiln_op *module, kiln_block *host, kiln_op *dispatch, kiln_op **exe_out) {
  const char *root = entry_root(dispatch);
  if (!root) return NULL;
  for (kiln_op *o = host->first; o; o = o->next)
    if (o != dispatch && o->kind == KILN_OP_FLOW_DISPATCH && entry_root(o) && !strcmp(entry_root(o), root))
      return NULL;
  kiln_op *exe = kiln_symbol_lookup(module, root);
  if (!exe || exe->kind != KILN_OP_FLOW_EXECUTABLE) return NULL;
  kiln_block *b = exe->regions[0].first;
  kiln_op *k = b ? b->first : NULL;
  if (!k || k->kind != KILN_OP_FUNC_FUNC || !k->regions[0].first) return NULL;
  if (exe_out) *exe_out = exe;
  return k;
}

/* The static amounts (low, or high when `high`) of a pad, or NULL. */
static const int64_t *pad_amounts(const kiln_op *pad, bool high) {
  const kiln_attr *a = kiln_op_get_attr(pad, high ? "static_high" : "static_low");
  uint32_t rank = pad->results[0].type->rank;
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != rank) return NULL;
  for (uint32_t i = 0; i < rank; i++)
    if (((const int64_t *)a->data)[i] < 0) return NULL;
  return a->data;
}

/* A static tensor.pad of the concatenation's value alone, by a constant,
 * not along the concat dim (form-dispatch-regions fuses such pads). */
static bool concat_pad(const kiln_op *pad, const kiln_op *cat, int64_t dim) {
  kiln_block *b = pad->regions[0].first;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  kiln_value *v = y && y->num_operands == 1 ? kiln_op_operand(y, 0) : NULL;
  const int64_t *lo = pad_amounts(pad, false), *hi = pad_amounts(pad, true);
  return pad->num_operands == 1 && kiln_op_operand((kiln_op *)pad, 0) == kiln_op_result((kiln_op *)cat, 0) &&
         kiln_value_has_one_use(kiln_op_result((kiln_op *)cat, 0)) && v && v->def &&
         v->def->kind == KILN_OP_ARITH_CONSTANT && fl_is_static_tensor(pad->results[0].type) && lo && hi &&
         !lo[dim] && !hi[dim];
}

/* The tensor.concat of a kernel that only loads, concatenates (then
 * pads: *pad_out, else NULL) and stores the result whole (static shapes,
 * no push constants). */
static kiln_op *pure_concat(kiln_op *kernel, kiln_op **pad_out) {
  kiln_block *b = kernel->regions[0].first;
  kiln_op *cat = NULL, *pad = NULL, *store = NULL;
  *pad_out = NULL;
  for (uint32_t i = 0; i < b->num_args; i++)
    if (b->args[i]->type->kind == KILN_TYPE_INDEX) return NULL;
  for (kiln_op *o = b->first; o; o = o->next) {
    switch (o->kind) {
    case KILN_OP_FLOW_DISPATCH_TENSOR_LOAD: break;
    case KILN_OP_ARITH_CONSTANT: break; /* a pad's value */
    case KILN_OP_TENSOR_CONCAT:
      if (cat) return NULL;
      cat = o;
      break;
    case KILN_OP_TENSOR_PAD:
      if (pad || !cat) return NULL;
      pad = o;
      break;
    case KILN_OP_FLOW_DISPATCH_TENSOR_STORE:
      if (store || !cat || kiln_op_operand(o, 0) != kiln_op_result(pad ? pad : cat, 0)) return NULL;
      store = o;
      break;
    case KILN_OP_FUNC_RETURN: break;
    default: return NULL;
    }
  }
  if (!cat || !store || !fl_is_static_tensor(cat->results[0].type)) return NULL;
  const kiln_attr *d = kiln_op_get_attr(cat, "dim");
  if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= (int64_t)cat->results[0].type->rank) return NULL;
  if (pad && !concat_pad(pad, cat, d->i)) return NULL;
  *pad_out = pad;
  for (uint32_t i = 0; i < cat->num_operands; i++) {
    kiln_value *x = kiln_op_operand(cat, i);
    if (!x->def || x->def->kind != KILN_OP_FLOW_DISPATCH_TENSOR_LOAD) return NULL;
  }
  return cat;
}

/* Linalg ops whose CPU paths compute into a strided window of their
 * output (what fused pads rely on already). */
static bool window_writer(const kiln_op *o) {
  switch (o->kind) {
  case KILN_OP_LINALG_GENERIC:
  case KILN_OP_LINALG_FILL:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_MAX:
  case KILN_OP_LINALG_POOLING_NHWC_SUM: return true;
  default: return false;
  }
}

/* The top-level store of kernel argument `arg`, when its value is a
 * linalg result and every linalg op of the kernel is a window writer. */
static kiln_op *window_store(kiln_op *kernel, uint32_t arg) {
  kiln_block *b = kernel->regions[0].first;
  kiln_op *store = NULL;
  if (arg >= b->num_args) return NULL;
  for (kiln_op *o = b->first; o; o = o->next) {
    if (kiln_op_has_flag(o, KILN_OPF_LINALG) && !window_writer(o)) return NULL;
    if (o->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE && kiln_op_operand(o, 1) == b->args[arg]) store = o;
  }
  if (!store) return NULL;
  kiln_value *v = kiln_op_operand(store, 0);
  return v->def && v->def->parent == b && kiln_op_has_flag(v->def, KILN_OPF_LINALG) &&
                 fl_is_static_tensor(v->type)
             ? store
             : NULL;
}

/* Does y's type split x's dim d into two (y = [.., n, b, ..])? Its b. */
static int64_t split_block(const kiln_type *x, const kiln_type *y, uint32_t d) {
  if (y->rank != x->rank + 1 || y->elem != x->elem) return 0;
  for (uint32_t i = 0; i < x->rank; i++) {
    if (i < d && y->shape[i] != x->shape[i]) return 0;
    if (i > d && y->shape[i + 1] != x->shape[i]) return 0;
  }
  return y->shape[d] * y->shape[d + 1] == x->shape[d] && y->shape[d + 1] > 0 ? y->shape[d + 1] : 0;
}

static uint32_t position(kiln_block *host, const kiln_op *op) {
  uint32_t i = 0;
  for (kiln_op *o = host->first; o && o != op; o = o->next) i++;
  return i;
}

/* Piece j of D (host operand x) as a placed piece, or false. */
static bool find_piece(kiln_op *module, kiln_block *host, kiln_op *d, kiln_value *x, const kiln_type *ct,
                       uint32_t dim, int64_t offset, piece *out) {
  memset(out, 0, sizeof *out);
  out->offset = offset;
  if (!kiln_value_has_one_use(x) || !fl_is_static_tensor(x->type)) return false;
  kiln_value *v = x;
  if (v->def && v->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE) {
    out->view = v->def;
    v = kiln_op_operand(v->def, 0);
    out->block = split_block(x->type, v->type, dim);
    if (!out->block || offset % out->block || ct->shape[dim] % out->block || !kiln_value_has_one_use(v)) return false;
  }
  kiln_op *p = v->def;
  if (!p || p->kind != KILN_OP_FLOW_DISPATCH || p->parent != host || p == d ||
      kiln_op_get_attr(p, "tied_operands") || !fl_is_static_tensor(v->type))
    return false;
  kiln_op *k = own_kernel(module, host, p, NULL);
  if (!k || !window_store(k, tensor_operands(p) + v->index)) return false;
  out->producer = p;
  out->result = v->index;
  out->pos = position(host, p);
  return true;
}

static kiln_value *reshape(kiln_builder *b, kiln_value *v, const kiln_type *t) {
  if (v->type == t) return v;
  return kiln_op_result(kiln_build(b, KILN_OP_FLOW_TENSOR_RESHAPE, 1, &v, 1, &t, NULL), 0);
}

/* The kernel's function_type from its block's arguments. */
static void retype_kernel(kiln_context *ctx, kiln_op *kernel) {
  kiln_block *b = kernel->regions[0].first;
  const kiln_type **in = kiln_alloc(ctx, (b->num_args + 1) * sizeof *in);
  for (uint32_t i = 0; i < b->num_args; i++) in[i] = b->args[i]->type;
  kiln_op_set_attr(kernel, "function_type", kiln_attr_type(ctx, kiln_type_function(ctx, b->num_args, in, 0, NULL)));
}

/* P's kernel stores its piece into a window of C_j; P takes `tie` (or
 * nothing for the chain's head) as its last tensor operand. Returns P's
 * result, now of type C_j. */
static kiln_value *place(kiln_context *ctx, kiln_op *module, kiln_block *host, const piece *pc, const kiln_type *ct,
                         uint32_t dim, const int64_t *lo, kiln_value *tie) {
  kiln_op *p = pc->producer;
  kiln_op *kernel = own_kernel(module, host, p, NULL);
  uint32_t nt = tensor_operands(p);
  kiln_op *store = window_store(kernel, nt + pc->result);
  kiln_value *v = kiln_op_operand(store, 0);
  /* C_j: C, or C with dim split like the piece */
  int64_t shape[KILN_MAX_LOOPS + 1], off[KILN_MAX_LOOPS + 1], ones[KILN_MAX_LOOPS + 1];
  uint32_t rank = 0;
  for (uint32_t i = 0; i < ct->rank; i++) {
    if (i == dim && pc->block) {
      shape[rank] = ct->shape[i] / pc->block, off[rank++] = pc->offset / pc->block;
      shape[rank] = pc->block, off[rank++] = 0;
    } else {
      shape[rank] = ct->shape[i], off[rank++] = i == dim ? pc->offset : lo ? lo[i] : 0;
    }
  }
  for (uint32_t i = 0; i < rank; i++) ones[i] = 1;
  const kiln_type *cj = kiln_type_tensor(ctx, rank, shape, ct->elem, NULL);
  /* the kernel: insert the piece into its window, store the whole */
  kiln_builder kb = kiln_builder_before(store);
  kb.loc = store->loc;
  kiln_value *ops[2] = {v, fl_build_empty(&kb, cj)};
  int64_t seg[5] = {1, 1, 0, 0, 0};
  kiln_named_attr a[4] = {
      {kiln_intern_cstr(ctx, "operandSegmentSizes"), kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 5, seg, NULL)},
      {kiln_intern_cstr(ctx, "static_offsets"), kiln_attr_dense_i64_array(ctx, rank, off)},
      {kiln_intern_cstr(ctx, "static_sizes"), kiln_attr_dense_i64_array(ctx, rank, v->type->shape)},
      {kiln_intern_cstr(ctx, "static_strides"), kiln_attr_dense_i64_array(ctx, rank, ones)},
  };
  kiln_value *w = kiln_op_result(kiln_build(&kb, KILN_OP_TENSOR_INSERT_SLICE, 2, ops, 1, &cj, kiln_attr_dict(ctx, 4, a)), 0);
  kiln_op_set_operand(store, 0, w);
  kiln_block *body = kernel->regions[0].first;
  kiln_value_set_type(body->args[nt + pc->result], fl_dispatch_tensor_type(ctx, "writeonly", cj));
  kiln_value *r = kiln_op_result(p, pc->result);
  kiln_value_set_type(r, cj);
  if (tie) {
    kiln_builder hb = kiln_builder_before(p);
    hb.loc = p->loc;
    tie = reshape(&hb, tie, cj);
    kiln_value **nops = kiln_alloc(ctx, (p->num_operands + 2) * sizeof *nops);
    for (uint32_t i = 0, k = 0; i <= p->num_operands; i++)
      nops[i] = i == nt ? tie : kiln_op_operand(p, k++);
    kiln_op_set_operands(p, p->num_operands + 1, nops);
    kiln_block_insert_arg(ctx, body, nt, fl_dispatch_tensor_type(ctx, "readonly", cj), p->loc);
    int64_t *tied = kiln_alloc(ctx, (p->num_results + 1) * sizeof *tied);
    for (uint32_t i = 0; i < p->num_results; i++) tied[i] = i == pc->result ? (int64_t)nt : -1;
    kiln_op_set_attr(p, "tied_operands", kiln_attr_dense_i64_array(ctx, p->num_results, tied));
  }
  retype_kernel(ctx, kernel);
  return r;
}

static int by_pos(const void *a, const void *b) {
  const piece *x = a, *y = b;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* A static insert_slice of v into w at `offset` along dim, at b. */
static kiln_value *insert_at(kiln_builder *b, kiln_value *v, kiln_value *w, uint32_t dim, int64_t offset) {
  kiln_context *ctx = b->ctx;
  const kiln_type *t = v->type;
  int64_t off[KILN_MAX_LOOPS], ones[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < t->rank; i++) off[i] = i == dim ? offset : 0, ones[i] = 1;
  kiln_value *ops[2] = {v, w};
  int64_t seg[5] = {1, 1, 0, 0, 0};
  kiln_named_attr a[4] = {
      {kiln_intern_cstr(ctx, "operandSegmentSizes"), kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 5, seg, NULL)},
      {kiln_intern_cstr(ctx, "static_offsets"), kiln_attr_dense_i64_array(ctx, t->rank, off)},
      {kiln_intern_cstr(ctx, "static_sizes"), kiln_attr_dense_i64_array(ctx, t->rank, t->shape)},
      {kiln_intern_cstr(ctx, "static_strides"), kiln_attr_dense_i64_array(ctx, t->rank, ones)},
  };
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_INSERT_SLICE, 2, ops, 1, &w->type, kiln_attr_dict(ctx, 4, a)), 0);
}

/* D keeps the pieces that stay (kept[j]) as copies into their windows
 * and becomes the chain's last member, tied to `tie`: its kernel inserts
 * them into a tensor.empty of C (which its pad, if any, pads: the
 * border), the placed pieces' operands go. */
static void keep_rest(kiln_context *ctx, kiln_op *d, kiln_op *kernel, kiln_op *cat, const bool *kept,
                      const int64_t *offsets, uint32_t dim, kiln_value *tie) {
  kiln_block *kb = kernel->regions[0].first;
  kiln_op *store = kiln_op_result(cat, 0)->uses->owner; /* the store, or the pad */
  kiln_builder b = kiln_builder_before(store);
  b.loc = cat->loc;
  kiln_value *w = fl_build_empty(&b, cat->results[0].type);
  bool *drop = kiln_alloc(ctx, (kb->num_args + 1) * sizeof *drop);
  for (uint32_t j = 0; j < cat->num_operands; j++) {
    kiln_value *lx = kiln_op_operand(cat, j);
    if (kept[j]) w = insert_at(&b, lx, w, dim, offsets[j]);
    else drop[kiln_op_operand(lx->def, 0)->index] = true;
  }
  kiln_op_set_operand(store, 0, w);
  kiln_op_erase(cat);
  /* the placed pieces' loads, kernel arguments and operands */
  for (kiln_op *o = kb->first, *next; o; o = next) {
    next = o->next;
    if (o->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD && drop[kiln_op_operand(o, 0)->index]) kiln_op_erase(o);
  }
  uint32_t nt = tensor_operands(d), n = 0;
  kiln_value **ops = kiln_alloc(ctx, (d->num_operands + 2) * sizeof *ops);
  for (uint32_t i = 0; i < d->num_operands; i++) {
    if (i == nt) ops[n++] = tie;
    if (i >= nt || !drop[i]) ops[n++] = kiln_op_operand(d, i);
  }
  if (nt == d->num_operands) ops[n++] = tie;
  for (uint32_t i = nt; i-- > 0;)
    if (drop[i]) kiln_block_erase_arg(kb, i);
  uint32_t at = 0;
  while (at < n && ops[at] != tie) at++;
  kiln_op_set_operands(d, n, ops);
  kiln_block_insert_arg(ctx, kb, at, fl_dispatch_tensor_type(ctx, "readonly", tie->type), d->loc);
  int64_t tied = at;
  kiln_op_set_attr(d, "tied_operands", kiln_attr_dense_i64_array(ctx, 1, &tied));
  retype_kernel(ctx, kernel);
}

static void try_concat(kiln_context *ctx, kiln_op *module, kiln_block *host, kiln_op *d) {
  kiln_op *exe = NULL;
  kiln_op *kernel = own_kernel(module, host, d, &exe);
  kiln_op *pad = NULL;
  kiln_op *cat = kernel && d->num_results == 1 ? pure_concat(kernel, &pad) : NULL;
  if (!cat || cat->num_operands > PC_MAX_PIECES || cat->num_operands < 1) return;
  /* C: the padded type where D pads (the pieces' windows sit at the
   * pad's low amounts in the others dims) */
  const kiln_type *ct = (pad ? pad : cat)->results[0].type;
  const int64_t *lo = pad ? pad_amounts(pad, false) : NULL;
  if (ct != d->results[0].type || ct->rank > KILN_MAX_LOOPS - 1) return;
  uint32_t dim = (uint32_t)kiln_op_get_attr(cat, "dim")->i;
  piece pcs[PC_MAX_PIECES];
  bool kept[PC_MAX_PIECES];
  int64_t offsets[PC_MAX_PIECES], offset = 0;
  uint32_t n = 0;
  kiln_block *kb = kernel->regions[0].first;
  for (uint32_t j = 0; j < cat->num_operands; j++) {
    kiln_value *lx = kiln_op_operand(cat, j);
    kiln_value *arg = kiln_op_operand(lx->def, 0);
    if (arg->def || arg->block != kb || arg->index >= d->num_operands || lx->type->shape[dim] == KILN_DYNAMIC) return;
    kiln_value *x = kiln_op_operand(d, arg->index);
    offsets[j] = offset;
    /* a value concatenated twice is loaded once and read twice */
    kept[j] = x->type != lx->type || !kiln_value_has_one_use(lx) ||
              !find_piece(module, host, d, x, ct, dim, offset, &pcs[n]);
    for (uint32_t i = 0; !kept[j] && i < n; i++) kept[j] = pcs[i].producer == pcs[n].producer;
    if (!kept[j]) n++;
    offset += lx->type->shape[dim];
  }
  if (offset != ct->shape[dim] || !n) return;
  qsort(pcs, n, sizeof *pcs, by_pos);
  kiln_value *prev = NULL;
  for (uint32_t j = 0; j < n; j++) prev = place(ctx, module, host, &pcs[j], ct, dim, lo, prev);
  if (n < cat->num_operands || pad) {
    /* the pieces that stay are copied by D, the chain's last member,
     * which also fills the pad's border */
    kiln_builder before = kiln_builder_before(d);
    before.loc = d->loc;
    keep_rest(ctx, d, kernel, cat, kept, offsets, dim, reshape(&before, prev, ct));
  } else {
    kiln_builder after = kiln_builder_after(pcs[n - 1].producer);
    after.loc = d->loc;
    kiln_value *whole = reshape(&after, prev, ct);
    kiln_value_replace_all_uses(kiln_op_result(d, 0), whole);
    kiln_op_erase(d);
    kiln_op_erase(exe);
  }
  for (uint32_t j = 0; j < n; j++)
    if (pcs[j].view) kiln_op_erase(pcs[j].view);
}

static void place_in(kiln_context *ctx, kiln_block *host, void *module) {
  uint32_t n = 0;
  for (kiln_op *o = host->first; o; o = o->next) n += o->kind == KILN_OP_FLOW_DISPATCH;
  kiln_op **ds = kiln_alloc(ctx, (n + 1) * sizeof *ds);
  n = 0;
  for (kiln_op *o = host->first; o; o = o->next)
    if (o->kind == KILN_OP_FLOW_DISPATCH) ds[n++] = o;
  /* in program order: a concat read by a later concat (nested) is placed
   * first and its tail then is no window writer's store: refused */
  for (uint32_t i = 0; i < n; i++) try_concat(ctx, module, host, ds[i]);
}

kiln_error *kiln_flow_pass_place_concats(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "place-concats", place_in, module);
}
