/* Dynamic dims in the importer: sizes of '?' dims and shape computations
 * on them.
 *
 * A dynamic dim of an ONNX value is '?' in its type; its size is
 * tensor.dim of the IR value (resolve-dims later turns every such dim
 * into the graph input dim it comes from). Two mechanisms keep the import
 * functions written for static shapes:
 *  - oi_empty of a type with '?' dims leaves the sizes pending; after the
 *    node, oi_resolve_dims reads each from the op the empty tensor (or
 *    its linalg.fill) initializes: the output dim's loop is also a dim of
 *    some input (through the indexing maps), whose tensor.dim is the size;
 *  - shape computations (Shape, then Gather, Unsqueeze, Squeeze, Concat,
 *    Slice, Cast, Identity, Add/Sub/Mul/Div on integers) on run-time dims
 *    are symbolic values: per element a host index value (oi_val.sym), so
 *    a Reshape (ONNX's 0 and -1 rules included), Flatten, Squeeze or
 *    Unsqueeze with a run-time shape becomes collapse_shape + expand_shape
 *    whose output_shape takes the values (a view after flow).
 * A symbolic value an op reads as data becomes tensor.from_elements.
 * A small integer tensor that an op reads as a shape (Reshape's,
 * Expand's, ConstantOfShape's shape, Tile's repeats, Range's bounds,
 * ReduceSum's axes, Pad's pads, a window's size, ...), a graph input or
 * a value the graph computes, becomes symbolic too, its elements read
 * from the data at run time (tensor.extract + index_cast: flow keeps
 * them on the host; hal reads them with hal.buffer_view.load, input data
 * before any dispatch, computed data after waiting for the dispatches
 * computing it); a shape so decided
 * gets flow.check.shape (no negative dim, no byte count that wraps) and
 * the relations its op relies on get flow.check.dim_eq.
 * Takes: nodes whose inputs may have '?' dims or symbolic values.
 * Guarantees: shapes the import cannot size are errors of kind "dynamic"
 * naming the node; nothing here changes static imports. */
#include <string.h>

#include "import_internal.h"

bool oi_refuse_dyn_inputs(oi_ctx *c, const oi_node *n, const char *why) {
  for (size_t i = 0; i < n->nin; i++)
    if (n->in[i] && n->in[i]->kind == OI_VAL_TENSOR && oi_has_dyn(n->in[i]->type))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input %zu has a run-time dim; %s", i, why);
  return true;
}

bool oi_has_dyn(const kiln_type *t) {
  /* sequence and optional values carry no tensor type */
  for (uint32_t d = 0; t && kiln_type_is_ranked(t) && d < t->rank; d++)
    if (t->shape[d] == KILN_DYNAMIC) return true;
  return false;
}

static kiln_value *ibin(oi_ctx *c, kiln_op_kind k, kiln_value *x, kiln_value *y);

kiln_value *oi_index(oi_ctx *c, int64_t v) {
  return kiln_build_constant(&c->b, kiln_attr_int(c->ctx, kiln_type_index(c->ctx), v));
}

static bool const_index(const kiln_value *v, int64_t *out) {
  const kiln_attr *a = v ? kiln_value_constant(v) : NULL;
  if (!a || a->kind != KILN_ATTR_INTEGER || a->type->kind != KILN_TYPE_INDEX) return false;
  *out = a->i;
  return true;
}

kiln_value *oi_dim(oi_ctx *c, oi_val *v, uint32_t d) {
  if (!oi_dyn(v->type, d)) return oi_index(c, v->type->shape[d]);
  kiln_value *x = oi_ir(c, v);
  if (!x) return NULL;
  kiln_value *ops[2] = {x, oi_index(c, d)};
  const kiln_type *it = kiln_type_index(c->ctx);
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *oi_ir_dim(kiln_builder *b, kiln_value *x, uint32_t d) {
  const kiln_type *it = kiln_type_index(b->ctx);
  if (x->type->shape[d] != KILN_DYNAMIC)
    return kiln_build_constant(b, kiln_attr_int(b->ctx, it, x->type->shape[d]));
  kiln_value *ops[2] = {x, kiln_build_constant(b, kiln_attr_int(b->ctx, it, d))};
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_DIM, 2, ops, 1, &it, NULL), 0);
}

/* ---- pending sizes of empty tensors -------------------------------------- */

kiln_value *oi_empty(oi_ctx *c, const kiln_type *t) {
  /* a tensor of no elements is a (data-less) constant: no op has to fill
   * it, so none stays behind in the host function */
  if (oi_numel(t) == 0) return kiln_build_constant(&c->b, kiln_attr_dense(c->ctx, t, false, "", 0));
  uint32_t nd = kiln_type_num_dynamic_dims(t);
  kiln_value *dims[OI_MAX_RANK];
  for (uint32_t i = 0; i < nd && i < OI_MAX_RANK; i++) {
    /* a placeholder until oi_resolve_dims knows the size */
    kiln_value *p = oi_index(c, 0);
    if (c->npending == c->cap_pending) {
      uint32_t cap = c->cap_pending ? 2 * c->cap_pending : 16;
      kiln_op **n = kiln_alloc(c->ctx, cap * sizeof *n);
      for (uint32_t k = 0; k < c->npending; k++) n[k] = c->pending[k];
      c->pending = n, c->cap_pending = cap;
    }
    c->pending[c->npending++] = p->def;
    dims[i] = p;
  }
  return oi_empty_dims(c, t, dims);
}

kiln_value *oi_empty_dims(oi_ctx *c, const kiln_type *t, kiln_value *const *dims) {
  uint32_t nd = kiln_type_num_dynamic_dims(t);
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EMPTY, nd, dims, 1, &t, NULL), 0);
}

/* The earliest of the ops of block blk in set (n entries). */
static kiln_op *earliest(kiln_block *blk, kiln_op *const *set, uint32_t n) {
  for (kiln_op *o = blk->first; o; o = o->next)
    for (uint32_t i = 0; i < n; i++)
      if (set[i] == o) return o;
  return NULL;
}

/* The size of dim k of init value `init` of op u (its operand `pos`):
 * an input dim on the same loop, built at b; NULL when there is none. */
static kiln_value *from_linalg(kiln_builder *b, kiln_op *u, uint32_t pos, uint32_t k) {
  kiln_context *ctx = kiln_op_context(u);
  /* linalg.softmax: the input's shape (identity maps) */
  if (u->kind == KILN_OP_LINALG_SOFTMAX) return oi_ir_dim(b, kiln_op_operand(u, 0), k);
  const kiln_affine_map **maps = kiln_alloc(ctx, (u->num_operands + 1) * sizeof *maps);
  if (kiln_linalg_iteration(u, maps, NULL) < 0 || k >= maps[pos]->num_results) return NULL;
  const kiln_affine_expr *e = maps[pos]->results[k];
  if (e->kind != KILN_AFFINE_DIM) return NULL;
  uint32_t nin = kiln_linalg_num_inputs(u);
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *x = kiln_op_operand(u, i);
    if (x->type->kind != KILN_TYPE_TENSOR) continue;
    for (uint32_t j = 0; j < maps[i]->num_results && j < x->type->rank; j++)
      if (maps[i]->results[j]->kind == KILN_AFFINE_DIM && maps[i]->results[j]->value == e->value)
        return oi_ir_dim(b, x, j);
  }
  return NULL;
}

static bool resolve_one(oi_ctx *c, kiln_op *p) {
  kiln_value *pv = kiln_op_result(p, 0);
  kiln_use *pu = pv->uses;
  if (!pu || pu->next || pu->owner->kind != KILN_OP_TENSOR_EMPTY) return false;
  kiln_op *e = pu->owner;
  const kiln_type *t = e->results[0].type;
  uint32_t k = 0, seen = 0; /* the dim whose size operand p is */
  for (; k < t->rank; k++)
    if (t->shape[k] == KILN_DYNAMIC && seen++ == pu->index) break;
  /* e, or the fill of it, initializes the op sizing it */
  kiln_op *fill = NULL;
  kiln_value *init = kiln_op_result(e, 0);
  for (kiln_use *u = init->uses; u; u = u->next)
    if (u->owner->kind == KILN_OP_LINALG_FILL && u->index == 1) fill = u->owner;
  kiln_op *users[64];
  uint32_t nu = 0;
  for (uint32_t w = 0; w < 2; w++) {
    kiln_value *v = w ? (fill ? kiln_op_result(fill, 0) : NULL) : init;
    for (kiln_use *u = v ? v->uses : NULL; u && nu < 64; u = u->next)
      if (u->owner != fill) users[nu++] = u->owner;
  }
  kiln_op *anchor = earliest(e->parent, users, nu);
  if (!anchor) return false;
  kiln_builder b = kiln_builder_before(anchor);
  b.loc = e->loc;
  kiln_value *size = NULL;
  for (uint32_t i = 0; i < nu && !size; i++) {
    kiln_op *u = users[i];
    for (uint32_t o = 0; o < u->num_operands && !size; o++) {
      kiln_value *x = kiln_op_operand(u, o);
      if (x != init && (!fill || x != kiln_op_result(fill, 0))) continue;
      if (kiln_op_has_flag(u, KILN_OPF_LINALG) && o >= kiln_linalg_num_inputs(u))
        size = from_linalg(&b, u, o, k);
      else if (u->kind == KILN_OP_TENSOR_INSERT_SLICE && o == 1) {
        /* a padded copy: a dynamic dim is inserted whole at offset 0 */
        kiln_value *src = kiln_op_operand(u, 0);
        const kiln_attr *so = kiln_op_get_attr(u, "static_offsets");
        if (src->type->rank == t->rank && so && so->kind == KILN_ATTR_DENSE_ARRAY &&
            ((const int64_t *)so->data)[k] == 0 && src->type->shape[k] == KILN_DYNAMIC)
          size = oi_ir_dim(&b, src, k);
      }
    }
  }
  if (!size) return false;
  /* the empty (and its fill) move after the size, right before their
   * first user */
  kiln_op_set_operand(e, pu->index, size);
  kiln_op_remove(e);
  kiln_block_insert_before(anchor, e);
  if (fill) {
    kiln_op_remove(fill);
    kiln_block_insert_before(anchor, fill);
  }
  kiln_op_erase(p);
  return true;
}

bool oi_resolve_dims(oi_ctx *c) {
  for (uint32_t i = 0; i < c->npending; i++)
    if (!resolve_one(c, c->pending[i]))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC,
                     "a dynamic dimension of a result has no input dimension to size it "
                     "(dynamic shapes of this operator are not supported)");
  c->npending = 0;
  return true;
}

/* ---- symbolic shape values ------------------------------------------------ */

oi_val *oi_sym_new(oi_ctx *c, bool scalar, int64_t n, kiln_value **elems, int32_t dtype) {
  int64_t shape[1] = {n};
  oi_val *v = oi_val_new(c, NULL, oi_tensor_type(c, scalar ? 0 : 1, shape, dtype), dtype);
  /* all elements known: a plain constant, which folds as before */
  int64_t *k = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *k);
  bool all = true;
  for (int64_t i = 0; i < n && all; i++) all = const_index(elems[i], &k[i]);
  if (all) v->cst = oi_dense_ints(c, v->type, k);
  else v->sym = elems;
  return v;
}

kiln_value *oi_sym_ir(oi_ctx *c, oi_val *v) {
  int64_t n = oi_numel(v->type);
  const kiln_type *et = v->type->elem;
  kiln_value **xs = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *xs);
  for (int64_t i = 0; i < n; i++) {
    kiln_value *x = v->sym[i];
    xs[i] = kiln_op_result(kiln_build(&c->b, KILN_OP_ARITH_INDEX_CAST, 1, &x, 1, &et, NULL), 0);
  }
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_FROM_ELEMENTS, (uint32_t)n, xs, 1, &v->type, NULL), 0);
}

bool oi_shape_ints(oi_ctx *c, oi_val *v, const char *what, int64_t **stat, kiln_value ***dyn,
                   int64_t *count) {
  if (!v->sym) {
    if (!oi_const_ints(c, v, what, stat, count)) return false;
    *dyn = kiln_alloc(c->ctx, (size_t)(*count + 1) * sizeof **dyn);
    memset(*dyn, 0, (size_t)(*count + 1) * sizeof **dyn);
    return true;
  }
  int64_t n = oi_numel(v->type);
  int64_t *s = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *s);
  kiln_value **d = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *d);
  for (int64_t i = 0; i < n; i++) {
    d[i] = NULL;
    if (!const_index(v->sym[i], &s[i])) s[i] = KILN_DYNAMIC, d[i] = v->sym[i];
  }
  *stat = s, *dyn = d, *count = n;
  return true;
}

/* Elements of an integer value usable symbolically: a symbolic value, or
 * a small integer constant (as index constants). NULL otherwise. */
static kiln_value **elems_of(oi_ctx *c, oi_val *v, int64_t *n) {
  if (v->sym) {
    *n = oi_numel(v->type);
    return v->sym;
  }
  if (!oi_dtype_is_int(v->dtype) || v->type->rank > 1 || oi_numel(v->type) < 0 ||
      oi_numel(v->type) > OI_MAX_RANK * 4 || !oi_const(c, v))
    return NULL;
  const kiln_attr *a = oi_const(c, v);
  *n = oi_numel(v->type);
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(*n + 1) * sizeof *e);
  for (int64_t i = 0; i < *n; i++) e[i] = oi_index(c, kiln_dense_get_int(a, i));
  return e;
}

kiln_value *oi_ibin(oi_ctx *c, kiln_op_kind k, kiln_value *x, kiln_value *y) { return ibin(c, k, x, y); }

static kiln_value *ibin(oi_ctx *c, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  int64_t a = 0, b = 0, r;
  if (const_index(x, &a) && const_index(y, &b)) {
    /* fold only what fits: an overflowing constant stays an op */
    switch (k) {
    case KILN_OP_ARITH_ADDI: if (!__builtin_add_overflow(a, b, &r)) return oi_index(c, r); break;
    case KILN_OP_ARITH_SUBI: if (!__builtin_sub_overflow(a, b, &r)) return oi_index(c, r); break;
    case KILN_OP_ARITH_MULI: if (!__builtin_mul_overflow(a, b, &r)) return oi_index(c, r); break;
    case KILN_OP_ARITH_DIVSI: if (b && !(a == INT64_MIN && b == -1)) return oi_index(c, a / b); break;
    case KILN_OP_ARITH_MINSI: return oi_index(c, a < b ? a : b);
    case KILN_OP_ARITH_MAXSI: return oi_index(c, a > b ? a : b);
    default: break;
    }
  }
  /* identities with one constant operand, so that a run-time value
   * multiplied by a 0/1 indicator of "not this axis" folds away (a
   * Slice's unsliced axes keep their static sizes) */
  bool xc = const_index(x, &a), yc = const_index(y, &b);
  if (k == KILN_OP_ARITH_MULI && ((xc && a == 0) || (yc && b == 0))) return oi_index(c, 0);
  if (k == KILN_OP_ARITH_MULI && xc && a == 1) return y;
  if ((k == KILN_OP_ARITH_MULI || k == KILN_OP_ARITH_DIVSI) && yc && b == 1) return x;
  if (k == KILN_OP_ARITH_ADDI && xc && a == 0) return y;
  if ((k == KILN_OP_ARITH_ADDI || k == KILN_OP_ARITH_SUBI) && yc && b == 0) return x;
  kiln_value *ops[2] = {x, y};
  const kiln_type *it = kiln_type_index(c->ctx);
  return kiln_op_result(kiln_build(&c->b, k, 2, ops, 1, &it, NULL), 0);
}

/* ---- shapes read from tensor data ---------------------------------------- */

/* Is x an element the host reads from tensor data (index_cast of
 * tensor.extract, made by oi_host_read)? Its sign and size are unknown. */
static bool from_data(const kiln_value *x) {
  const kiln_op *d = x ? x->def : NULL;
  return d && d->kind == KILN_OP_ARITH_INDEX_CAST && kiln_op_operand(d, 0)->def &&
         kiln_op_operand(d, 0)->def->kind == KILN_OP_TENSOR_EXTRACT;
}

static bool any_from_data(kiln_value *const *xs, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (from_data(xs[i])) return true;
  return false;
}

/* min(|x|, 1): 0 when x is 0, else 1 (host arithmetic has no compare). */
kiln_value *oi_nonzero(oi_ctx *c, kiln_value *x) {
  kiln_value *ax = ibin(c, KILN_OP_ARITH_MAXSI, x, ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, 0), x));
  return ibin(c, KILN_OP_ARITH_MINSI, ax, oi_index(c, 1));
}

/* Can the host read t's data (tensor.extract at constant indices)? t is
 * a graph input or computed in the top-level function the builder is
 * in: the host then reads input data before any command, and computed
 * data after waiting for the commands computing it (plan-memory splits
 * the function's commands there). Not inside a Loop/If body. */
bool oi_host_block(oi_ctx *c) {
  kiln_block *blk = c->b.block;
  kiln_op *owner = blk ? kiln_block_parent_op(blk) : NULL;
  return owner && owner->kind == KILN_OP_FUNC_FUNC && owner->regions[0].first == blk;
}

static bool host_readable(oi_ctx *c, kiln_value *t) {
  if (!oi_host_block(c)) return false;
  return t->def ? t->def->parent == c->b.block : t->block == c->b.block;
}

kiln_value *oi_host_read(oi_ctx *c, kiln_value *t, int64_t flat) {
  const kiln_type *it = kiln_type_index(c->ctx);
  kiln_value *ops[1 + OI_MAX_RANK];
  ops[0] = t;
  for (uint32_t d = t->type->rank; d-- > 0;) {
    ops[1 + d] = oi_index(c, t->type->shape[d] ? flat % t->type->shape[d] : 0);
    flat = t->type->shape[d] ? flat / t->type->shape[d] : 0;
  }
  kiln_value *x = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXTRACT, 1 + t->type->rank, ops, 1,
                                            &t->type->elem, NULL), 0);
  return kiln_op_result(kiln_build(&c->b, KILN_OP_ARITH_INDEX_CAST, 1, &x, 1, &it, NULL), 0);
}

/* The elements of v, a run-time integer tensor (or, with bits, the bits
 * of a float one) of at most OI_MAX_RANK * 4 elements (rank 0 or 1) that
 * the host can read (host_readable), as host index values read from its
 * data; NULL for other values (their op then refuses them as before). */
static kiln_value **elems_from_data(oi_ctx *c, oi_val *v, bool bits) {
  if (!v || v->kind != OI_VAL_TENSOR || oi_const(c, v) || !v->v || !host_readable(c, v->v)) return NULL;
  bool ok = bits ? v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE
                 : v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || v->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  if (!ok || v->type->rank > 1 || oi_has_dyn(v->type) || oi_numel(v->type) > OI_MAX_RANK * 4) return NULL;
  int64_t n = oi_numel(v->type);
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(n + 1) * sizeof *e), *src = v->v;
  if (bits) { /* the same bytes as integers of the element's width */
    const kiln_type *bt = kiln_type_with_elem(c->ctx, v->type, kiln_type_int(c->ctx, v->type->elem->width));
    src = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_BITCAST, 1, &src, 1, &bt, NULL), 0);
  }
  for (int64_t i = 0; i < n; i++) e[i] = oi_host_read(c, src, i);
  return e;
}

static void sym_from_data(oi_ctx *c, oi_val *v) {
  if (v && !v->sym) v->sym = elems_from_data(c, v, false);
}

kiln_value **oi_float_bits(oi_ctx *c, oi_val *v) { return elems_from_data(c, v, true); }

/* floor(in * v) on the host from an f32 v's bits (host values are
 * integers): v = m 2^(e - 150), m the mantissa with its implicit
 * bit, so the size is (in m) / 2^(150 - e), exact as numpy's f64 product.
 * Checked: a finite scale > 0 below 2^24 (e in 0..150); 2^k is built
 * from k's bits (k clamped to 62: in m / 2^62 is 0 for any in < 2^38). */
kiln_value *oi_f32_scaled(oi_ctx *c, kiln_value *bits, int64_t in) {
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1), *m23 = oi_index(c, 1 << 23);
  kiln_value *e = oi_ibin(c, KILN_OP_ARITH_DIVSI, bits, m23), *m = oi_ibin(c, KILN_OP_ARITH_REMSI, bits, m23);
  kiln_value *bad = oi_ibin(c, KILN_OP_ARITH_SUBI, one, oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_MAXSI, bits, zero)));
  kiln_value *big = oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_ibin(c, KILN_OP_ARITH_SUBI, e, oi_index(c, 150)), zero));
  oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_ADDI, bad, big), zero);
  m = oi_ibin(c, KILN_OP_ARITH_ADDI, m, oi_ibin(c, KILN_OP_ARITH_MULI, oi_nonzero(c, e), m23));
  kiln_value *k = oi_ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, 150), oi_ibin(c, KILN_OP_ARITH_MAXSI, e, one));
  k = oi_ibin(c, KILN_OP_ARITH_MINSI, oi_ibin(c, KILN_OP_ARITH_MAXSI, k, zero), oi_index(c, 62));
  kiln_value *pow2 = one;
  for (int j = 0; j < 6; j++) {
    kiln_value *bit = oi_ibin(c, KILN_OP_ARITH_REMSI, oi_ibin(c, KILN_OP_ARITH_DIVSI, k, oi_index(c, (int64_t)1 << j)),
                              oi_index(c, 2));
    kiln_value *f = oi_ibin(c, KILN_OP_ARITH_MULI, bit, oi_index(c, ((int64_t)1 << (1 << j)) - 1));
    pow2 = oi_ibin(c, KILN_OP_ARITH_MULI, pow2, oi_ibin(c, KILN_OP_ARITH_ADDI, one, f));
  }
  return oi_ibin(c, KILN_OP_ARITH_DIVSI, oi_ibin(c, KILN_OP_ARITH_MULI, oi_index(c, in), m), pow2);
}

/* flow.check.shape of a result shape (static dims as constants). */
void oi_check_shape(oi_ctx *c, uint32_t rank, const int64_t *shape, kiln_value *const *dyn,
                        const kiln_type *elem) {
  kiln_value *ops[OI_MAX_RANK];
  for (uint32_t i = 0; i < rank; i++) ops[i] = shape[i] == KILN_DYNAMIC ? dyn[i] : oi_index(c, shape[i]);
  size_t es = kiln_dense_elem_size(elem);
  kiln_named_attr a = {kiln_intern_cstr(c->ctx, "element_bytes"),
                       kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), es ? (int64_t)es : 1)};
  kiln_build(&c->b, KILN_OP_FLOW_CHECK_SHAPE, rank, ops, 0, NULL, kiln_attr_dict(c->ctx, 1, &a));
}

void oi_check_eq(oi_ctx *c, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  kiln_build(&c->b, KILN_OP_FLOW_CHECK_DIM_EQ, 2, ops, 0, NULL, NULL);
}

void oi_check_range(oi_ctx *c, kiln_value *v, kiln_value *lo, kiln_value *hi, const char *what, uint32_t dim) {
  kiln_named_attr a[2] = {{kiln_intern_cstr(c->ctx, "what"), kiln_attr_string(c->ctx, what, strlen(what))},
                          {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), dim)}};
  kiln_value *ops[3] = {v, lo, hi};
  kiln_build(&c->b, KILN_OP_FLOW_CHECK_RANGE, 3, ops, 0, NULL, kiln_attr_dict(c->ctx, 2, a));
}

/* Static entries of a shape as constants, the rest its symbolic values. */
void oi_shape_elems(oi_ctx *c, int64_t n, const int64_t *st, kiln_value *const *dy, kiln_value **out) {
  for (int64_t i = 0; i < n; i++) out[i] = dy[i] ? dy[i] : oi_index(c, st[i]);
}

/* [x == k] for a host index x and a constant k: 1 or 0. */
static kiln_value *is(oi_ctx *c, kiln_value *x, int64_t k) {
  return ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, 1), oi_nonzero(c, ibin(c, KILN_OP_ARITH_SUBI, x, oi_index(c, k))));
}

/* marked[j] (j < M) = how many of the na axes ax name j, negative ones
 * counting from the end; checked: the axes are distinct (no mark above
 * 1) and in range (the marks sum to their count). */
static void axis_marks(oi_ctx *c, kiln_value *const *ax, int64_t na, uint32_t M, kiln_value **marked) {
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1), *count = zero, *bad = zero;
  for (uint32_t j = 0; j < M; j++) marked[j] = zero;
  for (int64_t k = 0; k < na; k++) {
    kiln_value *ak = ax[k];
    kiln_value *neg = oi_nonzero(c, ibin(c, KILN_OP_ARITH_MINSI, ak, zero));
    ak = ibin(c, KILN_OP_ARITH_ADDI, ak, ibin(c, KILN_OP_ARITH_MULI, neg, oi_index(c, M)));
    for (uint32_t j = 0; j < M; j++) marked[j] = ibin(c, KILN_OP_ARITH_ADDI, marked[j], is(c, ak, j));
  }
  for (uint32_t j = 0; j < M; j++) {
    count = ibin(c, KILN_OP_ARITH_ADDI, count, marked[j]);
    kiln_value *dup = oi_nonzero(c, ibin(c, KILN_OP_ARITH_SUBI, marked[j], one));
    bad = ibin(c, KILN_OP_ARITH_ADDI, bad, ibin(c, KILN_OP_ARITH_MULI, marked[j], dup));
  }
  oi_check_eq(c, count, oi_index(c, na));
  oi_check_eq(c, bad, zero);
}

/* The copy of x with dims moved: result loop p reads x's dim d where
 * pos[d] == p (a select chain over the loops; pos are host values). */
typedef struct { kiln_value *x; kiln_value *pos[OI_MAX_RANK]; } perm_user;

static bool perm_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  perm_user *p = u;
  uint32_t r = p->x->type->rank;
  const kiln_type *it = kiln_type_index(b->ctx);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = p->x;
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *idx = oi_loop_index(b, r - 1);
    for (uint32_t q = r - 1; q-- > 0;)
      idx = oi_select(b, oi_cmpi(b, OI_EQ, p->pos[d], oi_scalar(b, it, 0, q)), oi_loop_index(b, q), idx);
    ops[1 + d] = idx;
  }
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, r + 1, ops, 1, &p->x->type->elem, NULL), 0);
  return true;
}

kiln_value *oi_axes_last(oi_ctx *c, oi_val *x, oi_val *axes, int64_t *kst, kiln_value **kdy) {
  uint32_t r = x->type->rank;
  int64_t na = oi_numel(axes->type);
  if (axes->type->rank > 1 || na > r) {
    oi_invalid(c, "axes of %lld entries for rank %u", (long long)na, r);
    return NULL;
  }
  perm_user pu = {.x = oi_ir(c, x)};
  if (!pu.x) return NULL;
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1), *marked[OI_MAX_RANK], *xd[OI_MAX_RANK];
  kiln_value *kept = zero, *gone = zero, *pd[OI_MAX_RANK];
  axis_marks(c, axes->sym, na, r, marked);
  for (uint32_t d = 0; d < r; d++) {
    if (!(xd[d] = oi_dim(c, x, d))) return NULL;
    kiln_value *keep = ibin(c, KILN_OP_ARITH_SUBI, one, marked[d]);
    kiln_value *last = ibin(c, KILN_OP_ARITH_ADDI, oi_index(c, (int64_t)r - na), gone);
    pu.pos[d] = ibin(c, KILN_OP_ARITH_ADDI, ibin(c, KILN_OP_ARITH_MULI, keep, kept),
                     ibin(c, KILN_OP_ARITH_MULI, marked[d], last));
    kept = ibin(c, KILN_OP_ARITH_ADDI, kept, keep);
    gone = ibin(c, KILN_OP_ARITH_ADDI, gone, marked[d]);
    /* keepdims: 1 where reduced */
    kdy[d] = ibin(c, KILN_OP_ARITH_ADDI, marked[d], ibin(c, KILN_OP_ARITH_MULI, keep, xd[d]));
    kst[d] = KILN_DYNAMIC;
    if (const_index(kdy[d], &kst[d])) kdy[d] = NULL;
  }
  int64_t ps[OI_MAX_RANK];
  for (uint32_t q = 0; q < r; q++) {
    pd[q] = zero;
    for (uint32_t d = 0; d < r; d++)
      pd[q] = ibin(c, KILN_OP_ARITH_ADDI, pd[q], ibin(c, KILN_OP_ARITH_MULI, is(c, pu.pos[d], q), xd[d]));
    ps[q] = KILN_DYNAMIC;
    if (const_index(pd[q], &ps[q])) pd[q] = NULL;
  }
  kiln_value *dims[OI_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t q = 0; q < r; q++)
    if (pd[q]) dims[nd++] = pd[q];
  const kiln_type *pt = kiln_type_with_shape(c->ctx, pu.x->type, r, ps);
  kiln_value *init = oi_empty_dims(c, pt, dims);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, r, NULL, perm_body, &pu);
  return g ? kiln_op_result(g, 0) : NULL;
}

/* Squeeze / Unsqueeze with axes read from data: the result's rank is
 * static (the input's minus / plus the axes' count), its dims computed on
 * the host from 0/1 indicators, a view of the input (a reshape):
 *   axis a normalized: a + R [a < 0]; marked[j] = sum_k [a_k == j]
 *   Unsqueeze: out[j] = marked[j] + (1 - marked[j]) x[j - sum_{i<=j} marked[i]]
 *   Squeeze:   out[j] = sum_d (1 - marked[d]) [kept before d == j] x[d]
 * checked: the axes mark distinct positions (no mark above 1) in range
 * (the marks sum to their count) and squeezed dims are 1. */
static bool squeeze_from_data(oi_ctx *c, oi_node *n, bool squeeze) {
  oi_val *x = n->in[0], *a = n->in[1];
  uint32_t r = x->type->rank;
  int64_t na = oi_numel(a->type);
  if (a->type->rank != 1 || (squeeze && na > r) || r + (squeeze ? 0 : na) > OI_MAX_RANK)
    return oi_invalid(c, "axes of %lld entries for rank %u", (long long)na, r);
  uint32_t R = squeeze ? r - (uint32_t)na : r + (uint32_t)na, M = squeeze ? r : R;
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1), *marked[OI_MAX_RANK], *xd[OI_MAX_RANK];
  kiln_value *bad = zero;
  for (uint32_t d = 0; d < r; d++)
    if (!(xd[d] = oi_dim(c, x, d))) return false;
  axis_marks(c, a->sym, na, M, marked);
  int64_t st[OI_MAX_RANK];
  kiln_value *dy[OI_MAX_RANK];
  kiln_value *before = zero; /* marks (Unsqueeze) or kept dims (Squeeze) so far */
  for (uint32_t j = 0; j < R; j++) dy[j] = zero;
  for (uint32_t j = 0; j < M; j++) {
    if (!squeeze) {
      before = ibin(c, KILN_OP_ARITH_ADDI, before, marked[j]);
      kiln_value *src = ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, j), before), *v = zero;
      for (uint32_t d = 0; d < r; d++) v = ibin(c, KILN_OP_ARITH_ADDI, v, ibin(c, KILN_OP_ARITH_MULI, is(c, src, d), xd[d]));
      kiln_value *keep = ibin(c, KILN_OP_ARITH_SUBI, one, marked[j]);
      dy[j] = ibin(c, KILN_OP_ARITH_ADDI, marked[j], ibin(c, KILN_OP_ARITH_MULI, keep, v));
      continue;
    }
    kiln_value *keep = ibin(c, KILN_OP_ARITH_SUBI, one, marked[j]);
    bad = ibin(c, KILN_OP_ARITH_ADDI, bad, ibin(c, KILN_OP_ARITH_MULI, marked[j],
                                                   oi_nonzero(c, ibin(c, KILN_OP_ARITH_SUBI, xd[j], one))));
    for (uint32_t o = 0; o < R; o++)
      dy[o] = ibin(c, KILN_OP_ARITH_ADDI, dy[o], ibin(c, KILN_OP_ARITH_MULI, ibin(c, KILN_OP_ARITH_MULI, keep, is(c, before, o)), xd[j]));
    before = ibin(c, KILN_OP_ARITH_ADDI, before, keep);
  }
  if (squeeze) oi_check_eq(c, bad, zero);
  for (uint32_t j = 0; j < R; j++) {
    st[j] = KILN_DYNAMIC;
    if (const_index(dy[j], &st[j])) dy[j] = NULL;
  }
  return oi_reshape_dynamic(c, n, x, R, st, dy, true);
}

/* One element of a Slice output: x[start_d + i_d * step_d] per dim,
 * clamped into [0, last_d] (the host's counts keep it there already; the
 * clamp keeps every read inside x). Kernels take host values as unsigned
 * push constants, so a step goes as its magnitude and a 0/1 "backwards"
 * flag: start + i * mag - 2 * back * i * mag. */
typedef struct {
  kiln_value *x;
  kiln_value *start[OI_MAX_RANK], *mag[OI_MAX_RANK], *back[OI_MAX_RANK], *last[OI_MAX_RANK];
} slice_user;

static bool slice_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  slice_user *s = u;
  uint32_t r = s->x->type->rank;
  const kiln_type *it = kiln_type_index(b->ctx);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = s->x;
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *m[2] = {oi_loop_index(b, d), s->mag[d]};
    kiln_value *im = kiln_op_result(kiln_build(b, KILN_OP_ARITH_MULI, 2, m, 1, &it, NULL), 0);
    kiln_value *bk[2] = {s->back[d], kiln_build_constant(b, kiln_attr_int(b->ctx, it, 2))};
    kiln_value *b2 = kiln_op_result(kiln_build(b, KILN_OP_ARITH_MULI, 2, bk, 1, &it, NULL), 0);
    kiln_value *r2[2] = {b2, im};
    kiln_value *p[2] = {s->start[d], im};
    kiln_value *fw = kiln_op_result(kiln_build(b, KILN_OP_ARITH_ADDI, 2, p, 1, &it, NULL), 0);
    kiln_value *sb[2] = {fw, kiln_op_result(kiln_build(b, KILN_OP_ARITH_MULI, 2, r2, 1, &it, NULL), 0)};
    kiln_value *lo[2] = {kiln_op_result(kiln_build(b, KILN_OP_ARITH_SUBI, 2, sb, 1, &it, NULL), 0),
                         kiln_build_constant(b, kiln_attr_int(b->ctx, it, 0))};
    kiln_value *hi[2] = {kiln_op_result(kiln_build(b, KILN_OP_ARITH_MAXSI, 2, lo, 1, &it, NULL), 0), s->last[d]};
    ops[1 + d] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_MINSI, 2, hi, 1, &it, NULL), 0);
  }
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + r, ops, 1, &s->x->type->elem, NULL), 0);
  return true;
}

kiln_value *oi_read_window(oi_ctx *c, kiln_value *x, const int64_t *out, kiln_value *const *sizes,
                      kiln_value *const *start) {
  uint32_t r = x->type->rank;
  slice_user su = {.x = x};
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1);
  for (uint32_t d = 0; d < r; d++) {
    su.start[d] = start[d], su.mag[d] = one, su.back[d] = zero;
    /* max(n - 1, 0): an empty dim reads nothing, and a push constant
     * of -1 would be refused */
    kiln_value *n1 = ibin(c, KILN_OP_ARITH_SUBI, oi_ir_dim(&c->b, x, d), one);
    su.last[d] = ibin(c, KILN_OP_ARITH_MAXSI, n1, zero);
  }
  const kiln_type *ot = kiln_type_with_shape(c->ctx, x->type, r, out);
  kiln_value *init = oi_empty_dims(c, ot, sizes);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, r, NULL, slice_body, &su);
  return g ? kiln_op_result(g, 0) : NULL;
}

/* Slice with starts / ends / axes / steps read from data: per dim d of
 * the input, from 0/1 indicators [axis_k == d] (an axis not listed keeps
 * 0, n, 1), ONNX's rules in host arithmetic (negative indices count from
 * the end; clamped to [0, n] for a positive step, [0, n-1] / [-1, n-1]
 * for a negative one; count max(ceil((end - start) / step), 0) as Range's;
 * a step of 0 traps), and a gather over the output. */
static bool slice_from_data(oi_ctx *c, oi_node *n) {
  oi_val *x = n->in[0];
  uint32_t r = x->type->rank;
  if (r > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", r, OI_MAX_RANK);
  int64_t ns, ne, na = 0, nt = 0;
  kiln_value **sv = elems_of(c, n->in[1], &ns), **ev = elems_of(c, n->in[2], &ne), **av = NULL, **tv = NULL;
  oi_val *ai = oi_opt_in(n, 3), *ti = oi_opt_in(n, 4);
  if (ai && !(av = elems_of(c, ai, &na))) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input 3 (axes) is computed at run time");
  if (ti && !(tv = elems_of(c, ti, &nt))) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input 4 (steps) is computed at run time");
  if (!sv || !ev) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "starts or ends computed at run time");
  if (ne != ns || (ai && na != ns) || (ti && nt != ns) || ns > (int64_t)r)
    return oi_invalid(c, "starts, ends, axes and steps differ in length");
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1);
  slice_user su = {.x = oi_ir(c, x)};
  if (!su.x) return false;
  int64_t out[OI_MAX_RANK];
  kiln_value *cnt[OI_MAX_RANK], *sizes[OI_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *dim = oi_dim(c, x, d);
    if (!dim) return false;
    kiln_value *s = zero, *e = zero, *t = zero, *has = zero;
    for (int64_t k = 0; k < ns; k++) {
      kiln_value *a = av ? av[k] : oi_index(c, k);
      a = ibin(c, KILN_OP_ARITH_ADDI, a, ibin(c, KILN_OP_ARITH_MULI, oi_nonzero(c, ibin(c, KILN_OP_ARITH_MINSI, a, zero)),
                                                 oi_index(c, r)));
      kiln_value *on = is(c, a, d);
      has = ibin(c, KILN_OP_ARITH_ADDI, has, on);
      s = ibin(c, KILN_OP_ARITH_ADDI, s, ibin(c, KILN_OP_ARITH_MULI, on, sv[k]));
      e = ibin(c, KILN_OP_ARITH_ADDI, e, ibin(c, KILN_OP_ARITH_MULI, on, ev[k]));
      t = ibin(c, KILN_OP_ARITH_ADDI, t, ibin(c, KILN_OP_ARITH_MULI, on, tv ? tv[k] : one));
    }
    kiln_value *none = ibin(c, KILN_OP_ARITH_SUBI, one, has);
    e = ibin(c, KILN_OP_ARITH_ADDI, e, ibin(c, KILN_OP_ARITH_MULI, none, dim));
    t = ibin(c, KILN_OP_ARITH_ADDI, t, none);
    /* negative indices count from the end */
    s = ibin(c, KILN_OP_ARITH_ADDI, s, ibin(c, KILN_OP_ARITH_MULI, oi_nonzero(c, ibin(c, KILN_OP_ARITH_MINSI, s, zero)), dim));
    e = ibin(c, KILN_OP_ARITH_ADDI, e, ibin(c, KILN_OP_ARITH_MULI, oi_nonzero(c, ibin(c, KILN_OP_ARITH_MINSI, e, zero)), dim));
    kiln_value *back = ibin(c, KILN_OP_ARITH_SUBI, one, oi_nonzero(c, ibin(c, KILN_OP_ARITH_MAXSI, t, zero)));
    kiln_value *hi = ibin(c, KILN_OP_ARITH_SUBI, dim, back);
    s = ibin(c, KILN_OP_ARITH_MINSI, ibin(c, KILN_OP_ARITH_MAXSI, s, zero), hi);
    e = ibin(c, KILN_OP_ARITH_MINSI, ibin(c, KILN_OP_ARITH_MAXSI, e, ibin(c, KILN_OP_ARITH_SUBI, zero, back)), hi);
    kiln_value *sgn = ibin(c, KILN_OP_ARITH_MINSI, ibin(c, KILN_OP_ARITH_MAXSI, t, oi_index(c, -1)), one);
    kiln_value *q = ibin(c, KILN_OP_ARITH_SUBI, ibin(c, KILN_OP_ARITH_ADDI, ibin(c, KILN_OP_ARITH_SUBI, e, s), t), sgn);
    cnt[d] = ibin(c, KILN_OP_ARITH_MAXSI, ibin(c, KILN_OP_ARITH_DIVSI, q, t), zero);
    su.start[d] = s, su.back[d] = back; /* last: max(n - 1, 0) as in oi_read_window */
    kiln_value *n1 = ibin(c, KILN_OP_ARITH_SUBI, dim, one);
    su.last[d] = ibin(c, KILN_OP_ARITH_MAXSI, n1, zero);
    su.mag[d] = ibin(c, KILN_OP_ARITH_MAXSI, t, ibin(c, KILN_OP_ARITH_SUBI, zero, t));
    out[d] = KILN_DYNAMIC;
    if (const_index(cnt[d], &out[d])) cnt[d] = NULL;
    else sizes[nd++] = cnt[d];
  }
  oi_check_shape(c, r, out, cnt, su.x->type->elem);
  const kiln_type *ot = kiln_type_with_shape(c->ctx, su.x->type, r, out);
  kiln_value *init = oi_empty_dims(c, ot, sizes);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, r, NULL, slice_body, &su);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

/* Does node n have a symbolic input (or is it Shape of a dynamic tensor)? */
static bool symbolic_node(const oi_node *n) {
  for (size_t i = 0; i < n->nin; i++)
    if (n->in[i] && n->in[i]->sym) return true;
  return false;
}

static bool sym_shape(oi_ctx *c, oi_node *n) {
  oi_val *x = oi_in(c, n, 0);
  int64_t start = 0, end = x ? x->type->rank : 0;
  if (!x || !oi_attr_int(c, n, "start", 0, &start) || !oi_attr_int(c, n, "end", end, &end)) return false;
  int64_t r = x->type->rank;
  if (start < 0) start += r;
  if (end < 0) end += r;
  start = start < 0 ? 0 : start > r ? r : start;
  end = end < start ? start : end > r ? r : end;
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(end - start + 1) * sizeof *e);
  for (int64_t d = start; d < end; d++)
    if (!(e[d - start] = oi_dim(c, x, (uint32_t)d))) return false;
  n->out[0] = oi_sym_new(c, false, end - start, e, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}

/* The sym_* forms return 1 when they produced the output, 0 when they do
 * not apply (the op imports as usual, reading symbolic inputs as data),
 * -1 on an error. */
static bool small_const(oi_ctx *c, oi_val *v) {
  return v && !v->sym && oi_dtype_is_int(v->dtype) && oi_numel(v->type) >= 0 &&
         oi_numel(v->type) <= OI_MAX_RANK * 4 && oi_const(c, v);
}

static int sym_gather(oi_ctx *c, oi_node *n) {
  oi_val *d = oi_opt_in(n, 0), *ix = oi_opt_in(n, 1);
  int64_t nd, ni, *iv, axis;
  kiln_value **de = d && small_const(c, ix) && d->type->rank == 1 && ix->type->rank <= 1 ? elems_of(c, d, &nd) : NULL;
  if (!de || !oi_attr_int(c, n, "axis", 0, &axis) || (axis != 0 && axis != -1)) return 0;
  if (!oi_const_ints(c, ix, "input 1 (indices)", &iv, &ni)) return -1;
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(ni + 1) * sizeof *e);
  for (int64_t i = 0; i < ni; i++) {
    int64_t k = iv[i] < 0 ? iv[i] + nd : iv[i];
    if (k < 0 || k >= nd)
      return oi_invalid(c, "index %lld out of range for %lld elements", (long long)iv[i], (long long)nd), -1;
    e[i] = de[k];
  }
  n->out[0] = oi_sym_new(c, ix->type->rank == 0, ni, e, d->dtype);
  return 1;
}

static int sym_concat(oi_ctx *c, oi_node *n) {
  int64_t total = 0;
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(n->nin * (OI_MAX_RANK * 4) + 1) * sizeof *e);
  for (size_t i = 0; i < n->nin; i++) {
    int64_t k;
    kiln_value **x = n->in[i] && n->in[i]->type->rank == 1 && (n->in[i]->sym || small_const(c, n->in[i]))
                         ? elems_of(c, n->in[i], &k) : NULL;
    if (!x) return 0;
    for (int64_t j = 0; j < k; j++) e[total++] = x[j];
  }
  n->out[0] = oi_sym_new(c, false, total, e, n->in[0]->dtype);
  return 1;
}

static int sym_unsqueeze(oi_ctx *c, oi_node *n, bool squeeze) {
  oi_val *x = oi_opt_in(n, 0);
  int64_t k;
  kiln_value **e = x && x->sym ? elems_of(c, x, &k) : NULL;
  /* only 0-D <-> 1-D of one element on axis 0 */
  if (!e || (squeeze ? (x->type->rank != 1 || k != 1) : x->type->rank != 0)) return 0;
  n->out[0] = oi_sym_new(c, squeeze, 1, e, x->dtype);
  return 1;
}

static int sym_slice(oi_ctx *c, oi_node *n) {
  oi_val *x = oi_opt_in(n, 0);
  int64_t k = 0, *st, *en, *ax = NULL, *sp = NULL, ns, ne, na = 0, nsp = 0;
  kiln_value **e = x && x->sym && x->type->rank == 1 ? elems_of(c, x, &k) : NULL;
  for (size_t i = 1; i < n->nin; i++)
    if (n->in[i] && !small_const(c, n->in[i])) return 0;
  if (!e || n->nin < 3 || !n->in[1] || !n->in[2]) return 0;
  if (!oi_const_ints(c, n->in[1], "input 1 (starts)", &st, &ns) ||
      !oi_const_ints(c, n->in[2], "input 2 (ends)", &en, &ne))
    return -1;
  if (ns != 1 || ne != 1) return 0;
  if (oi_opt_in(n, 3) && (!oi_const_ints(c, n->in[3], "input 3 (axes)", &ax, &na) || na != 1 || (ax[0] != 0 && ax[0] != -1)))
    return 0;
  if (oi_opt_in(n, 4) && (!oi_const_ints(c, n->in[4], "input 4 (steps)", &sp, &nsp) || nsp != 1 || sp[0] != 1))
    return 0;
  int64_t s = st[0] < 0 ? st[0] + k : st[0], t = en[0] < 0 ? en[0] + k : en[0];
  s = s < 0 ? 0 : s > k ? k : s;
  t = t < s ? s : t > k ? k : t;
  n->out[0] = oi_sym_new(c, false, t - s, e + s, x->dtype);
  return 1;
}

static int sym_binary(oi_ctx *c, oi_node *n, kiln_op_kind k) {
  oi_val *a = oi_opt_in(n, 0), *b = oi_opt_in(n, 1);
  int64_t na, nb;
  if (!a || !b || !(a->sym || small_const(c, a)) || !(b->sym || small_const(c, b)) ||
      a->type->rank > 1 || b->type->rank > 1 || !oi_dtype_is_int(a->dtype) || a->dtype != b->dtype)
    return 0;
  kiln_value **ea = elems_of(c, a, &na), **eb = elems_of(c, b, &nb);
  if (!ea || !eb || (na != nb && na != 1 && nb != 1)) return 0;
  int64_t m = na > nb ? na : nb;
  kiln_value **e = kiln_alloc(c->ctx, (size_t)(m + 1) * sizeof *e);
  for (int64_t i = 0; i < m; i++) e[i] = ibin(c, k, ea[na == 1 ? 0 : i], eb[nb == 1 ? 0 : i]);
  bool scalar = a->type->rank == 0 && b->type->rank == 0;
  n->out[0] = oi_sym_new(c, scalar, m, e, a->dtype);
  return 1;
}

bool oi_sym_node(oi_ctx *c, oi_node *n, bool *handled) {
  *handled = false;
  const char *op = n->op_type;
  /* the inputs these ops read as a shape (or its bounds), when graph
   * inputs: read from the data at run time */
  if ((strcmp(op, "Reshape") == 0 || strcmp(op, "Expand") == 0 || strcmp(op, "Tile") == 0 ||
       strcmp(op, "TopK") == 0 || strcmp(op, "Split") == 0) && n->nin == 2)
    sym_from_data(c, n->in[1]);
  if (strcmp(op, "ConstantOfShape") == 0 && n->nin == 1) sym_from_data(c, n->in[0]);
  if (strcmp(op, "MaxUnpool") == 0 && n->nin == 3) sym_from_data(c, n->in[2]);
  if ((strcmp(op, "HannWindow") == 0 || strcmp(op, "HammingWindow") == 0 || strcmp(op, "BlackmanWindow") == 0) &&
      n->nin == 1)
    sym_from_data(c, n->in[0]);
  if (strcmp(op, "Pad") == 0 && n->nin >= 2) sym_from_data(c, n->in[1]);
  if (strcmp(op, "Resize") == 0 && n->nin == 4) sym_from_data(c, n->in[3]);
  if (strcmp(op, "OneHot") == 0 && n->nin == 3) sym_from_data(c, n->in[1]);
  if (strcmp(op, "MelWeightMatrix") == 0 && n->nin == 5) sym_from_data(c, n->in[0]), sym_from_data(c, n->in[1]);
  if (strcmp(op, "STFT") == 0 && n->nin >= 2) {
    sym_from_data(c, n->in[1]);
    if (n->nin >= 4) sym_from_data(c, n->in[3]);
  }
  /* ReduceSum's axes (none given: all or none, known here) */
  if (strcmp(op, "ReduceSum") == 0 && n->nin == 2 && n->in[1] && oi_numel(n->in[1]->type) > 0)
    sym_from_data(c, n->in[1]);
  if (strcmp(op, "Slice") == 0 && n->nin >= 3 && n->in[0] && !n->in[0]->sym && n->in[1] && n->in[2]) {
    bool data = false;
    /* bounds read from data, or symbolic already (x[:, :seq] of a
     * constant, seq a run-time dim: a causal mask buffer cut to the
     * sequence) */
    for (size_t i = 1; i < n->nin && i < 5; i++)
      if (n->in[i]) sym_from_data(c, n->in[i]), data |= n->in[i]->sym != NULL;
    if (data) {
      *handled = true;
      return slice_from_data(c, n);
    }
  }
  const bool squeeze = strcmp(op, "Squeeze") == 0;
  if ((squeeze || strcmp(op, "Unsqueeze") == 0) && n->nin == 2 && n->in[0] && n->in[1] && !n->in[1]->sym) {
    sym_from_data(c, n->in[1]);
    if (n->in[1]->sym) {
      *handled = true;
      return squeeze_from_data(c, n, squeeze);
    }
  }
  if (strcmp(op, "Range") == 0 && n->nin == 3 && n->in[0] && oi_dtype_is_int(n->in[0]->dtype))
    for (int i = 0; i < 3; i++) sym_from_data(c, n->in[i]);
  const bool dyn_in = n->nin && n->in[0] && oi_has_dyn(n->in[0]->type);
  if (strcmp(op, "Shape") == 0 && dyn_in) {
    *handled = true;
    return sym_shape(c, n);
  }
  /* tensors with dynamic dims reshaped by shape values */
  if (strcmp(op, "Reshape") == 0 && n->nin == 2 && n->in[0] && n->in[1] && (dyn_in || n->in[1]->sym)) {
    int64_t *st, cnt, allowzero;
    kiln_value **dy;
    *handled = true;
    return oi_attr_int(c, n, "allowzero", 0, &allowzero) &&
           oi_shape_ints(c, n->in[1], "input 1 (shape)", &st, &dy, &cnt) &&
           oi_reshape_dynamic(c, n, n->in[0], cnt, st, dy, allowzero != 0);
  }
  if (dyn_in && (strcmp(op, "Flatten") == 0 || strcmp(op, "Squeeze") == 0 || strcmp(op, "Unsqueeze") == 0)) {
    *handled = true;
    oi_val *x = n->in[0];
    uint32_t r = x->type->rank;
    int64_t st[OI_MAX_RANK];
    kiln_value *dy[OI_MAX_RANK];
    int64_t out_rank = 0;
    if (strcmp(op, "Flatten") == 0) {
      int64_t axis;
      if (!oi_attr_int(c, n, "axis", 1, &axis)) return false;
      if (axis < 0) axis += r;
      if (axis < 0 || axis > (int64_t)r) return oi_invalid(c, "axis out of range for rank %u", r);
      kiln_value *p[2] = {oi_index(c, 1), oi_index(c, 1)};
      for (uint32_t d = 0; d < r; d++) p[d < axis ? 0 : 1] = ibin(c, KILN_OP_ARITH_MULI, p[d < axis ? 0 : 1], oi_dim(c, x, d));
      for (int i = 0; i < 2; i++) {
        dy[i] = p[i], st[i] = KILN_DYNAMIC;
        if (const_index(p[i], &st[i])) dy[i] = NULL;
      }
      out_rank = 2;
    } else {
      int64_t *ax = NULL, na = 0;
      oi_val *a = oi_opt_in(n, 1);
      if (a && !oi_const_ints(c, a, "input 1 (axes)", &ax, &na)) return false;
      bool sq = strcmp(op, "Squeeze") == 0, mark[OI_MAX_RANK] = {0};
      uint32_t rr = sq ? r : r + (uint32_t)na;
      if (rr > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", rr, OI_MAX_RANK);
      for (int64_t i = 0; i < na; i++) {
        uint32_t axn;
        if (!oi_axis(c, ax[i], rr, "axis", &axn)) return false;
        mark[axn] = true;
      }
      if (sq && !a)
        for (uint32_t d = 0; d < r; d++) mark[d] = x->type->shape[d] == 1;
      for (uint32_t d = 0, k = 0; d < rr; d++) {
        if (sq) {
          if (mark[d]) {
            if (x->type->shape[d] != 1) return oi_invalid(c, "cannot squeeze axis %u (size %s)", d,
                                                          oi_dyn(x->type, d) ? "?" : "not 1");
            continue;
          }
          st[out_rank] = x->type->shape[d];
          dy[out_rank++] = oi_dyn(x->type, d) ? oi_dim(c, x, d) : NULL;
        } else {
          st[out_rank] = mark[d] ? 1 : x->type->shape[k];
          dy[out_rank++] = !mark[d] && oi_dyn(x->type, k) ? oi_dim(c, x, k) : NULL;
          if (!mark[d]) k++;
        }
      }
    }
    return oi_reshape_dynamic(c, n, x, out_rank, st, dy, true);
  }
  if (!symbolic_node(n)) return true;
  /* shape arithmetic on symbolic values; anything else reads them as data */
  int r = 0;
  if (strcmp(op, "Gather") == 0) r = sym_gather(c, n);
  else if (strcmp(op, "Concat") == 0) r = sym_concat(c, n);
  else if (strcmp(op, "Unsqueeze") == 0) r = sym_unsqueeze(c, n, false);
  else if (strcmp(op, "Squeeze") == 0) r = sym_unsqueeze(c, n, true);
  else if (strcmp(op, "Slice") == 0) r = sym_slice(c, n);
  else if (strcmp(op, "Add") == 0) r = sym_binary(c, n, KILN_OP_ARITH_ADDI);
  else if (strcmp(op, "Sub") == 0) r = sym_binary(c, n, KILN_OP_ARITH_SUBI);
  else if (strcmp(op, "Mul") == 0) r = sym_binary(c, n, KILN_OP_ARITH_MULI);
  else if (strcmp(op, "Div") == 0) r = sym_binary(c, n, KILN_OP_ARITH_DIVSI);
  else if ((strcmp(op, "Cast") == 0 || strcmp(op, "Identity") == 0) && n->in[0] && n->in[0]->sym) {
    int64_t to = n->in[0]->dtype;
    if (strcmp(op, "Cast") == 0 && !oi_attr_int(c, n, "to", 0, &to)) return false;
    if (oi_dtype_is_int((int32_t)to)) { /* a float or bool copy reads it as data */
      oi_val *x = n->in[0];
      n->out[0] = oi_sym_new(c, x->type->rank == 0, oi_numel(x->type), x->sym, (int32_t)to);
      r = 1;
    }
  }
  if (r < 0) return false;
  *handled = r > 0;
  return true;
}

/* ---- dynamic reshape -------------------------------------------------------- */

/* Reassociation grouping dims [0, n) of a rank-r shape, the rest alone. */
static const kiln_attr *leading_groups(oi_ctx *c, uint32_t n, uint32_t r) {
  const kiln_attr *groups[OI_MAX_RANK], *idx[OI_MAX_RANK];
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  for (uint32_t d = 0; d < n; d++) idx[d] = kiln_attr_int(c->ctx, i64, d);
  groups[0] = kiln_attr_array(c->ctx, n, idx);
  for (uint32_t d = n; d < r; d++) {
    const kiln_attr *one = kiln_attr_int(c->ctx, i64, d);
    groups[d - n + 1] = kiln_attr_array(c->ctx, 1, &one);
  }
  return kiln_attr_array(c->ctx, r - n + 1, groups);
}

kiln_value *oi_merge_leading(oi_ctx *c, kiln_value *v, uint32_t n) {
  const kiln_type *t = v->type;
  if (n <= 1) return v;
  int64_t shape[OI_MAX_RANK], lead = 1;
  for (uint32_t d = 0; d < n; d++)
    lead = lead == KILN_DYNAMIC || t->shape[d] == KILN_DYNAMIC ? KILN_DYNAMIC : lead * t->shape[d];
  shape[0] = lead;
  for (uint32_t d = n; d < t->rank; d++) shape[d - n + 1] = t->shape[d];
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank - n + 1, shape);
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "reassociation"), leading_groups(c, n, t->rank)};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_COLLAPSE_SHAPE, 1, &v, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
}

kiln_value *oi_split_leading(oi_ctx *c, kiln_value *v, kiln_value *like, uint32_t n) {
  const kiln_type *t = v->type;
  if (n <= 1) return v;
  int64_t shape[OI_MAX_RANK];
  kiln_value *ops[1 + OI_MAX_RANK];
  uint32_t no = 0, r = t->rank + n - 1;
  ops[no++] = v;
  for (uint32_t d = 0; d < n; d++) {
    shape[d] = like->type->shape[d];
    if (shape[d] == KILN_DYNAMIC) ops[no++] = oi_ir_dim(&c->b, like, d);
  }
  for (uint32_t d = 1; d < t->rank; d++) {
    shape[d + n - 1] = t->shape[d];
    if (t->shape[d] == KILN_DYNAMIC) ops[no++] = oi_ir_dim(&c->b, v, d);
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, r, shape);
  kiln_named_attr e[2] = {{kiln_intern_cstr(c->ctx, "reassociation"), leading_groups(c, n, r)},
                          {kiln_intern_cstr(c->ctx, "static_output_shape"), kiln_attr_dense_i64_array(c->ctx, r, shape)}};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXPAND_SHAPE, no, ops, 1, &rt, kiln_attr_dict(c->ctx, 2, e)), 0);
}

static const kiln_attr *all_in_one(oi_ctx *c, uint32_t rank) {
  const kiln_attr *idx[OI_MAX_RANK];
  for (uint32_t d = 0; d < rank; d++) idx[d] = kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), d);
  const kiln_attr *g = kiln_attr_array(c->ctx, rank, idx);
  return kiln_attr_array(c->ctx, rank ? 1 : 0, &g);
}

/* Reshape's 0 (copy the input's dim unless allowzero) and -1 (whatever
 * is left) for a shape with entries known only at run time, in host
 * arithmetic without branches, per entry s:
 *   zero = 1 - min(|s|, 1), neg = 1 - min(|s + 1|, 1)
 *   d0 = s + zero * in_dim (allowzero: d0 = s); known = prod(d0 + 2 neg)
 *   d = d0 + neg * (total / max(known, 1) + 1)
 * The result shape is then checked (no negative dim, no byte count that
 * wraps: a value below -1 stays negative) and its product against the
 * element count (two -1s, or sizes that do not fit, fail there). */
static bool data_reshape_dims(oi_ctx *c, oi_val *x, int64_t rank, const int64_t *stat, kiln_value *const *dyn,
                              bool allowzero, int64_t *st, kiln_value **dy) {
  uint32_t r = x->type->rank;
  kiln_value *s[OI_MAX_RANK], *d0[OI_MAX_RANK], *neg[OI_MAX_RANK];
  kiln_value *one = oi_index(c, 1), *total = one, *known = one;
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *xd = oi_dim(c, x, d);
    if (!xd) return false;
    total = ibin(c, KILN_OP_ARITH_MULI, total, xd);
  }
  oi_shape_elems(c, rank, stat, dyn, s);
  for (int64_t i = 0; i < rank; i++) {
    neg[i] = ibin(c, KILN_OP_ARITH_SUBI, one, oi_nonzero(c, ibin(c, KILN_OP_ARITH_ADDI, s[i], one)));
    d0[i] = s[i];
    if (!allowzero) {
      kiln_value *zero = ibin(c, KILN_OP_ARITH_SUBI, one, oi_nonzero(c, s[i]));
      kiln_value *in = i < (int64_t)r ? oi_dim(c, x, (uint32_t)i) : oi_index(c, 0);
      if (!in) return false;
      d0[i] = ibin(c, KILN_OP_ARITH_ADDI, s[i], ibin(c, KILN_OP_ARITH_MULI, zero, in));
    }
    kiln_value *k = ibin(c, KILN_OP_ARITH_ADDI, d0[i], ibin(c, KILN_OP_ARITH_MULI, neg[i], oi_index(c, 2)));
    known = ibin(c, KILN_OP_ARITH_MULI, known, k);
  }
  kiln_value *q = ibin(c, KILN_OP_ARITH_DIVSI, total, ibin(c, KILN_OP_ARITH_MAXSI, known, one));
  kiln_value *prod = one;
  for (int64_t i = 0; i < rank; i++) {
    kiln_value *d = ibin(c, KILN_OP_ARITH_ADDI, d0[i],
                         ibin(c, KILN_OP_ARITH_MULI, neg[i], ibin(c, KILN_OP_ARITH_ADDI, q, one)));
    dy[i] = d, st[i] = KILN_DYNAMIC;
    if (const_index(d, &st[i])) dy[i] = NULL;
    prod = ibin(c, KILN_OP_ARITH_MULI, prod, d);
  }
  oi_check_shape(c, (uint32_t)rank, st, dy, x->type->elem);
  oi_check_eq(c, prod, total);
  return true;
}

bool oi_reshape_dynamic(oi_ctx *c, oi_node *n, oi_val *x, int64_t rank, const int64_t *stat,
                        kiln_value *const *dyn, bool allowzero) {
  if (rank > OI_MAX_RANK) return oi_unsupported(c, "rank %lld exceeds %d", (long long)rank, OI_MAX_RANK);
  int64_t fst[OI_MAX_RANK];
  kiln_value *fdy[OI_MAX_RANK];
  if (any_from_data(dyn, rank)) { /* entries final from here: no 0 / -1 rules left */
    if (!data_reshape_dims(c, x, rank, stat, dyn, allowzero, fst, fdy)) return false;
    stat = fst, dyn = fdy, allowzero = true;
  }
  uint32_t r = x->type->rank;
  int64_t shape[OI_MAX_RANK];
  kiln_value *dims[OI_MAX_RANK];
  int64_t neg = -1;
  /* the element count and the product of the known target dims */
  kiln_value *total = oi_index(c, 1), *known = oi_index(c, 1);
  for (uint32_t d = 0; d < r; d++) total = ibin(c, KILN_OP_ARITH_MULI, total, oi_dim(c, x, d));
  for (int64_t i = 0; i < rank; i++) {
    shape[i] = stat[i];
    dims[i] = dyn[i];
    if (stat[i] == 0 && !allowzero) {
      if (i >= (int64_t)r)
        return oi_invalid(c, "shape[%lld] = 0 copies a dimension the input (rank %u) lacks", (long long)i, r);
      shape[i] = x->type->shape[i];
      dims[i] = oi_dyn(x->type, (uint32_t)i) ? oi_dim(c, x, (uint32_t)i) : NULL;
    }
    if (stat[i] == -1) {
      if (neg >= 0) return oi_invalid(c, "shape has more than one -1");
      neg = i;
      continue;
    }
    if (shape[i] < 0 && shape[i] != KILN_DYNAMIC) return oi_invalid(c, "shape[%lld] = %lld", (long long)i, (long long)shape[i]);
    known = ibin(c, KILN_OP_ARITH_MULI, known, dims[i] ? dims[i] : oi_index(c, shape[i]));
  }
  if (neg >= 0) {
    kiln_value *q = ibin(c, KILN_OP_ARITH_DIVSI, total, known);
    int64_t v;
    if (const_index(q, &v)) shape[neg] = v, dims[neg] = NULL;
    else shape[neg] = KILN_DYNAMIC, dims[neg] = q;
  }
  /* a run-time -1 (an unknown entry) is not supported: it would change the rank's meaning */
  for (int64_t i = 0; i < rank; i++)
    if (shape[i] == KILN_DYNAMIC && !dims[i]) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "shape[%lld] is unknown", (long long)i);
  const kiln_type *rt = oi_tensor_type(c, (uint32_t)rank, shape, x->dtype);
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  if (!oi_has_dyn(x->type) && !oi_has_dyn(rt)) {
    /* all sizes known here (e.g. an empty shape from data: a scalar) */
    if (oi_numel(rt) != oi_numel(x->type))
      return oi_invalid(c, "shape holds %lld elements, the input %lld", (long long)oi_numel(rt),
                        (long long)oi_numel(x->type));
    oi_set_out(c, n, 0, oi_reshape(c, v, (uint32_t)rank, shape), x->dtype);
    return true;
  }
  /* through one dimension: collapse everything, expand to the target */
  int64_t flat = oi_has_dyn(x->type) ? KILN_DYNAMIC : oi_numel(x->type);
  const kiln_type *ft = oi_tensor_type(c, 1, &flat, x->dtype);
  if (r != 1 || x->type != ft) {
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "reassociation"), all_in_one(c, r)};
    if (r == 0) {
      const kiln_attr *none = kiln_attr_array(c->ctx, 0, NULL);
      kiln_named_attr ee[2] = {{kiln_intern_cstr(c->ctx, "reassociation"), none},
                               {kiln_intern_cstr(c->ctx, "static_output_shape"), kiln_attr_dense_i64_array(c->ctx, 1, &flat)}};
      v = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXPAND_SHAPE, 1, &v, 1, &ft, kiln_attr_dict(c->ctx, 2, ee)), 0);
    } else {
      v = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_COLLAPSE_SHAPE, 1, &v, 1, &ft, kiln_attr_dict(c->ctx, 1, &e)), 0);
    }
  }
  int64_t from = oi_has_dyn(rt) ? KILN_DYNAMIC : oi_numel(rt);
  if (rank > 0 && rt != v->type && from != flat) {
    /* MLIR's verifier: expand_shape's source dim is '?' exactly when a target dim is */
    const kiln_type *dt = oi_tensor_type(c, 1, &from, x->dtype);
    v = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CAST, 1, &v, 1, &dt, NULL), 0);
  }
  if (rank == 0) {
    const kiln_attr *none = kiln_attr_array(c->ctx, 0, NULL);
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "reassociation"), none};
    v = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_COLLAPSE_SHAPE, 1, &v, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
  } else if (rt != v->type) {
    kiln_value *ops[1 + OI_MAX_RANK];
    uint32_t no = 0;
    ops[no++] = v;
    for (int64_t i = 0; i < rank; i++)
      if (shape[i] == KILN_DYNAMIC) ops[no++] = dims[i];
    kiln_named_attr e[2] = {{kiln_intern_cstr(c->ctx, "reassociation"), all_in_one(c, (uint32_t)rank)},
                            {kiln_intern_cstr(c->ctx, "static_output_shape"),
                             kiln_attr_dense_i64_array(c->ctx, (uint32_t)rank, shape)}};
    v = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EXPAND_SHAPE, no, ops, 1, &rt, kiln_attr_dict(c->ctx, 2, e)), 0);
  }
  oi_set_out(c, n, 0, v, x->dtype);
  return true;
}
