/* share-pads: a value that is padded and also read elsewhere keeps one
 * buffer, the padded one.
 *
 * Takes: host functions after reshapes-to-views. A static tensor.pad P of
 * x with a constant value, x static and computed by a linalg op, a
 * tensor.concat or a view of one (flow.tensor.reshape), whose other
 * readers all are
 * linalg.generics reading x as an input (see shiftable): each such reader
 * reads P instead, through its map with the pad's low amounts added to
 * the results (x[f(i)] is P[f(i) + low]). Readers: all-parallel
 * generics, and other generics (a blocked convolution, a global pool
 * with the residual add fused in) whose loops the other operands size
 * alone, as x did; any other linalg reader (a named convolution, a pool)
 * reads a static tensor.extract_slice of P's interior, which
 * form-dispatch-regions puts in its dispatch as a view of P's buffer.
 * Guarantees: the same values;
 * P is then x's single reader, so sink-reshapes can move it above the
 * collapse of a blocked convolution's result and form-dispatch-regions
 * can fuse it into x's producer: ResNet's block output, padded for the
 * next block's 3x3 and read by its residual add, is written once, into
 * the pad's window, instead of being copied by a pad dispatch; an
 * inception block's output, padded for the next block's pool branch and
 * read by its 1x1 convolutions, is concatenated into the pad's window
 * (place-concats: its pieces' producers write there). The
 * readers' loops keep their sizes; no other reader kind (a concat, a
 * host op) is rewritten. */
#include "fl_internal.h"

static bool computed(kiln_value *x) {
  kiln_op *d = x->def;
  if (d && d->kind == KILN_OP_FLOW_TENSOR_RESHAPE) d = kiln_op_operand(d, 0)->def;
  return d && (kiln_op_has_flag(d, KILN_OPF_LINALG) || d->kind == KILN_OP_TENSOR_CONCAT);
}

static const int64_t *amounts(const kiln_op *p, const char *name, uint32_t rank) {
  const kiln_attr *a = kiln_op_get_attr(p, name);
  return a && a->kind == KILN_ATTR_DENSE_ARRAY && a->count == rank ? a->data : NULL;
}

static bool constant_pad(kiln_op *p) {
  kiln_block *b = p->regions[0].first;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  return y && y->num_operands == 1 && kiln_value_constant(kiln_op_operand(y, 0));
}

/* Can reader u of x read the padded tensor instead? A generic input,
 * where every loop keeps its size from the other operands (an
 * all-parallel reader's output gives them all; a convolution's come from
 * its output and filter). */
static bool shiftable(kiln_use *u) {
  kiln_op *c = u->owner;
  if (c->kind != KILN_OP_LINALG_GENERIC || u->index >= kiln_linalg_num_inputs(c)) return false;
  if (fl_all_parallel(c)) return true;
  int64_t with[KILN_MAX_LOOPS], without[KILN_MAX_LOOPS];
  int n = fl_iteration(c, with, NULL, NULL);
  if (n < 0) return false;
  /* the bounds the other operands give alone must be the same: -1 none,
   * -2 a run-time size (a batch: loops no operand sizes statically have
   * bound -1 in with) */
  for (int d = 0; d < n; d++) without[d] = -1;
  const kiln_affine_map **maps = kiln_alloc(kiln_op_context(c), (c->num_operands + 1) * sizeof *maps);
  fl_iteration(c, NULL, maps, NULL);
  for (uint32_t i = 0; i < c->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(c, i)->type;
    if (i == u->index || !kiln_type_is_shaped(t) || !kiln_type_is_ranked(t)) continue;
    for (uint32_t r = 0; r < maps[i]->num_results && r < t->rank; r++) {
      const kiln_affine_expr *e = maps[i]->results[r];
      if (e->kind == KILN_AFFINE_DIM && without[e->value] < 0)
        without[e->value] = t->shape[r] == KILN_DYNAMIC ? -2 : t->shape[r];
    }
  }
  for (int d = 0; d < n; d++)
    if (without[d] != with[d] && !(with[d] == -1 && without[d] == -2)) return false;
  return true;
}

/* Any other linalg op reading x as an input (a named convolution, a
 * pool) reads the pad's interior through a static slice, which joins
 * its dispatch as a view of the padded buffer (form-dispatch-regions,
 * bufferize-kernels). */
static bool sliceable(kiln_use *u) {
  kiln_op *c = u->owner;
  return kiln_op_has_flag(c, KILN_OPF_LINALG) && u->index < kiln_linalg_num_inputs(c) && c->num_results > 0;
}

/* Reader u of x reads tensor.extract_slice P[lo][shape of x][1] instead. */
static void interior(kiln_context *ctx, kiln_op *p, const int64_t *lo, kiln_use *u) {
  kiln_value *pv = kiln_op_result(p, 0), *x = kiln_op_operand(p, 0);
  const kiln_type *xt = x->type;
  int64_t ones[KILN_MAX_LOOPS];
  for (uint32_t d = 0; d < xt->rank; d++) ones[d] = 1;
  /* a run-time dim (unpadded: a batch) is P's, computed before u */
  kiln_value *ops[1 + KILN_MAX_LOOPS] = {pv};
  uint32_t n = 1;
  kiln_builder b = kiln_builder_before(u->owner);
  b.loc = p->loc;
  for (uint32_t d = 0; d < xt->rank; d++)
    if (xt->shape[d] == KILN_DYNAMIC) ops[n++] = fl_build_dim(&b, pv, d);
  int64_t seg[4] = {1, 0, n - 1, 0};
  const kiln_attr *attrs = kiln_attr_dict(ctx, 0, NULL);
  attrs = kiln_dict_set(ctx, attrs, "operandSegmentSizes",
                        kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 4, seg, NULL));
  attrs = kiln_dict_set(ctx, attrs, "static_offsets", kiln_attr_dense_i64_array(ctx, xt->rank, lo));
  attrs = kiln_dict_set(ctx, attrs, "static_sizes", kiln_attr_dense_i64_array(ctx, xt->rank, xt->shape));
  attrs = kiln_dict_set(ctx, attrs, "static_strides", kiln_attr_dense_i64_array(ctx, xt->rank, ones));
  kiln_op *s = kiln_op_create(ctx, KILN_OP_TENSOR_EXTRACT_SLICE, p->loc, n, ops, 1, &xt, attrs, 0);
  kiln_block_insert_before(u->owner, s);
  kiln_op_set_operand(u->owner, u->index, kiln_op_result(s, 0));
}

static bool after(const kiln_op *p, const kiln_op *c) {
  for (const kiln_op *o = p->next; o; o = o->next)
    if (o == c) return true;
  return false;
}

static void share(kiln_context *ctx, kiln_op *p) {
  kiln_value *x = kiln_op_operand(p, 0), *pv = kiln_op_result(p, 0);
  uint32_t r = x->type->rank;
  const int64_t *lo = amounts(p, "static_low", r), *hi = amounts(p, "static_high", r);
  /* a pad of the innermost dim never joins its producer: nothing to gain */
  if (!r || !lo || !hi || lo[r - 1] || hi[r - 1]) return;
  /* a run-time dim only where nothing is padded (a batch): the padded
   * reads' maps shift by static amounts */
  for (uint32_t d = 0; d < r; d++)
    if ((x->type->shape[d] == KILN_DYNAMIC || pv->type->shape[d] == KILN_DYNAMIC) && (lo[d] || hi[d])) return;
  /* readers before P (a named 1x1 convolution beside the padded 3x3)
   * have P moved up to the first of them, where x and the pad value are
   * defined already */
  kiln_op *first = p;
  for (kiln_use *u = x->uses; u; u = u->next) {
    if (u->owner == p) continue;
    if (u->owner->parent != p->parent || !(shiftable(u) || sliceable(u))) return;
    if (!after(p, u->owner) && after(u->owner, first)) first = u->owner;
  }
  if (first != p) {
    kiln_value *pad_value = kiln_op_operand(kiln_block_terminator(p->regions[0].first), 0);
    if (pad_value->def && pad_value->def->parent == p->parent && !after(pad_value->def, first)) return;
    kiln_op_remove(p);
    kiln_block_insert_before(first, p);
  }
  for (kiln_use *u = x->uses, *next; u; u = next) {
    next = u->next;
    kiln_op *c = u->owner;
    if (c == p) continue;
    if (!shiftable(u)) {
      interior(ctx, p, lo, u);
      continue;
    }
    const kiln_affine_map **maps = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *maps);
    fl_iteration(c, NULL, maps, NULL);
    const kiln_affine_map *m = maps[u->index];
    const kiln_affine_expr **res = kiln_alloc(ctx, (r + 1) * sizeof *res);
    for (uint32_t d = 0; d < r; d++)
      res[d] = lo[d] ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, m->results[d], kiln_affine_const(ctx, lo[d]))
                     : m->results[d];
    maps[u->index] = kiln_affine_map_get(ctx, m->num_dims, m->num_symbols, r, res);
    const kiln_attr **am = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *am);
    for (uint32_t i = 0; i < c->num_operands; i++) am[i] = kiln_attr_affine_map(ctx, maps[i]);
    kiln_op_set_attr(c, "indexing_maps", kiln_attr_array(ctx, c->num_operands, am));
    kiln_op_set_operand(c, u->index, pv);
  }
}

static void share_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  for (kiln_op *op = body->first; op; op = op->next) {
    if (op->kind != KILN_OP_TENSOR_PAD || op->num_operands != 1 || !constant_pad(op)) continue;
    kiln_value *x = kiln_op_operand(op, 0);
    if (!kiln_value_has_one_use(x) && kiln_type_is_ranked(x->type) && computed(x))
      share(ctx, op);
  }
}

kiln_error *kiln_flow_pass_share_pads(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "share-pads", share_in, NULL);
}
