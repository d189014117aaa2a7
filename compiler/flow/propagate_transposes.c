/* propagate-transposes: moves linalg.transpose ops down through the ops
 * that read them, so that a transpose meets its inverse and both vanish.
 * convert-convs-to-nhwc leaves every channels-last convolution between
 * T(x, to NHWC) and T(y, to NCHW); between two convolutions the second
 * kind reaches the first through bias adds, activations, residual adds,
 * pads and pools, and then the activations never leave NHWC.
 *
 * A transpose T(a, q) (result dim i is a's dim q[i]) read by
 *   - a transpose T(., p): one transpose of a by q∘p, none when that is
 *     the identity;
 *   - a linalg.generic: the generic reads a instead, through its map with
 *     result i moved to position q[i] (always exact). When every input
 *     of more than one non-unit dim is such a transpose by the same q (or
 *     a constant) and the output has q's rank and a projected-permutation
 *     map, the generic also writes its output permuted by q^-1 and T(., q)
 *     of it takes its place, so the transpose moves below it. Its loops
 *     are then renumbered so that the output map is the identity on the
 *     parallel loops (the innermost output dim is the last parallel loop:
 *     what lower-to-loops vectorizes), and constant inputs drop their unit
 *     dims (a [1, C, 1, 1] bias becomes [C], read contiguously);
 *   - tensor.pad (static pads): pads a with the pads permuted, T below it;
 *   - a reshape (expand/collapse, flow.tensor.reshape) when T only moves
 *     unit dims (the row-major data is the same): the reshape reads a;
 *   - tensor.concat of transposes by the same q: a concat of the sources
 *     along dim q[d], T below it.
 * Anything else keeps reading the transpose, which then costs a copy.
 *
 * Tensors may have run-time dims (a dynamic batch): the new tensors take
 * them from the ones they stand for (fl_build_dim), and a reshape moves
 * only when its result's run-time dims are known from its operands.
 *
 * Takes: host functions on tensors (before generalize-named-ops, which
 * turns transposes into generics). Guarantees: the same values; no
 * transpose of a transpose; transposes nobody reads are erased. */
#include "fl_internal.h"

#include <string.h>

typedef struct perm {
  uint32_t rank;
  int64_t p[KILN_MAX_LOOPS];
} perm;

/* v = T(a, q)? */
static bool transposed(kiln_value *v, kiln_value **a, perm *q) {
  kiln_op *d = v->def;
  if (!d || d->kind != KILN_OP_LINALG_TRANSPOSE || d->num_operands != 2 || d->num_results != 1)
    return false;
  const kiln_attr *pa = kiln_op_get_attr(d, "permutation");
  const kiln_type *t = v->type;
  if (!pa || pa->kind != KILN_ATTR_DENSE_ARRAY || t->kind != KILN_TYPE_TENSOR || !kiln_type_is_ranked(t) ||
      pa->count != t->rank)
    return false;
  q->rank = t->rank;
  memcpy(q->p, pa->data, t->rank * sizeof *q->p);
  *a = kiln_op_operand(d, 0);
  return true;
}

static bool same_perm(const perm *a, const perm *b) {
  return a->rank == b->rank && memcmp(a->p, b->p, a->rank * sizeof *a->p) == 0;
}

/* tensor.empty of type t whose dynamic dim d is dim src_dim[d] of src. */
static kiln_value *empty_from(kiln_builder *b, const kiln_type *t, kiln_value *src, const int64_t *src_dim) {
  kiln_value *dims[KILN_MAX_LOOPS];
  uint32_t n = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->shape[d] == KILN_DYNAMIC) dims[n++] = fl_build_dim(b, src, (uint32_t)src_dim[d]);
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EMPTY, n, dims, 1, &t, NULL), 0);
}

static kiln_value *build_transpose(kiln_builder *b, kiln_value *v, const int64_t *p) {
  const kiln_type *t = v->type;
  int64_t shape[KILN_MAX_LOOPS];
  bool id = true;
  for (uint32_t d = 0; d < t->rank; d++) shape[d] = t->shape[p[d]], id = id && p[d] == (int64_t)d;
  if (id) return v;
  const kiln_type *rt = kiln_type_with_shape(b->ctx, t, t->rank, shape);
  kiln_value *ops[2] = {v, empty_from(b, rt, v, p)};
  kiln_named_attr e = {"permutation", kiln_attr_dense_i64_array(b->ctx, t->rank, p)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_TRANSPOSE, 2, ops, 1, &rt,
                                   kiln_attr_dict(b->ctx, 1, &e)), 0);
}

/* The shape of a tensor of `shape` transposed back (T^-1 by q). */
static const kiln_type *unpermuted(kiln_context *ctx, const kiln_type *t, const perm *q) {
  int64_t s[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q->rank; i++) s[q->p[i]] = t->shape[i];
  return kiln_type_with_shape(ctx, t, q->rank, s);
}

/* m with result i moved to position q[i]: how the source of T(., q) is
 * indexed where T is indexed by m. */
static const kiln_affine_map *permute_results(kiln_context *ctx, const kiln_affine_map *m,
                                              const perm *q) {
  const kiln_affine_expr *r[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q->rank; i++) r[q->p[i]] = m->results[i];
  return kiln_affine_map_get(ctx, m->num_dims, m->num_symbols, q->rank, r);
}

static bool replace(kiln_op *old, kiln_value *v) {
  kiln_value_replace_all_uses(kiln_op_result(old, 0), v);
  kiln_op_erase(old);
  return true;
}

/* ---- transpose of a transpose ---- */
static bool compose(kiln_op *op) {
  kiln_value *a;
  perm q;
  const kiln_attr *pa = kiln_op_get_attr(op, "permutation");
  if (op->num_results != 1 || !transposed(kiln_op_operand(op, 0), &a, &q) || !pa ||
      pa->kind != KILN_ATTR_DENSE_ARRAY || pa->count != q.rank)
    return false;
  const int64_t *p = pa->data;
  int64_t c[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q.rank; i++) c[i] = q.p[p[i]];
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  return replace(op, build_transpose(&b, a, c));
}

/* ---- pad ---- */
static bool pad(kiln_op *op) {
  kiln_value *a;
  perm q;
  const kiln_attr *lo = kiln_op_get_attr(op, "static_low"), *hi = kiln_op_get_attr(op, "static_high");
  if (op->num_operands != 1 || !transposed(kiln_op_operand(op, 0), &a, &q) || !lo || !hi ||
      lo->kind != KILN_ATTR_DENSE_ARRAY || hi->kind != KILN_ATTR_DENSE_ARRAY ||
      lo->count != q.rank || hi->count != q.rank)
    return false;
  kiln_context *ctx = kiln_op_context(op);
  int64_t l[KILN_MAX_LOOPS], h[KILN_MAX_LOOPS], s[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q.rank; i++) {
    l[q.p[i]] = ((const int64_t *)lo->data)[i];
    h[q.p[i]] = ((const int64_t *)hi->data)[i];
  }
  for (uint32_t d = 0; d < q.rank; d++)
    s[d] = a->type->shape[d] == KILN_DYNAMIC ? KILN_DYNAMIC : a->type->shape[d] + l[d] + h[d];
  const kiln_type *rt = kiln_type_with_shape(ctx, a->type, q.rank, s);
  const kiln_attr *attrs = op->attrs;
  attrs = kiln_dict_set(ctx, attrs, "static_low", kiln_attr_dense_i64_array(ctx, q.rank, l));
  attrs = kiln_dict_set(ctx, attrs, "static_high", kiln_attr_dense_i64_array(ctx, q.rank, h));
  kiln_op *np = kiln_op_create(ctx, KILN_OP_TENSOR_PAD, op->loc, 1, &a, 1, &rt, attrs, 1);
  kiln_block_insert_before(op, np);
  /* The region (yield of the pad value; index args unused or permuted). */
  kiln_block *ob = op->regions[0].first, *nb = kiln_op_entry_block(ctx, np, 0);
  kiln_value_map vm = {0};
  for (uint32_t i = 0; i < ob->num_args; i++)
    kiln_block_add_arg(ctx, nb, ob->args[i]->type, op->loc);
  for (uint32_t i = 0; i < ob->num_args && i < q.rank; i++)
    kiln_value_map_add(ctx, &vm, ob->args[i], nb->args[q.p[i]]);
  for (kiln_op *o = ob->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &vm));
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  return replace(op, build_transpose(&b, kiln_op_result(np, 0), q.p));
}

/* ---- reshapes ---- */
/* Does T(., q) of a tensor of type t only move unit dims? */
static bool moves_unit_dims(const kiln_type *src, const perm *q) {
  int64_t last = -1;
  for (uint32_t i = 0; i < q->rank; i++) {
    if (src->shape[q->p[i]] == 1) continue;
    if (q->p[i] < last) return false;
    last = q->p[i];
  }
  return true;
}

static bool reshape(kiln_op *op) {
  kiln_value *a;
  perm q;
  if (op->num_operands < 1 || op->num_results != 1 || !transposed(kiln_op_operand(op, 0), &a, &q) ||
      !moves_unit_dims(a->type, &q))
    return false;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  const kiln_type *rt = op->results[0].type;
  /* the result's run-time dims, from the op's operands (never a
   * tensor.dim of the result, which the new reshape replaces) */
  kiln_value *ops[1 + KILN_MAX_LOOPS] = {a};
  uint32_t n = 1;
  for (uint32_t d = 0; d < rt->rank && d < KILN_MAX_LOOPS; d++)
    if (rt->shape[d] == KILN_DYNAMIC && !(ops[n++] = fl_dim_value(&b, kiln_op_result(op, 0), d)))
      return false;
  kiln_value *v = rt == a->type ? a
                  : kiln_op_result(kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, n, ops, 1, &rt, NULL), 0);
  return replace(op, v);
}

/* ---- concat ---- */
static bool concat(kiln_op *op) {
  const kiln_attr *dim = kiln_op_get_attr(op, "dim");
  if (!dim || dim->kind != KILN_ATTR_INTEGER || op->num_results != 1 || !op->num_operands) return false;
  kiln_context *ctx = kiln_op_context(op);
  kiln_value **src = kiln_alloc(ctx, op->num_operands * sizeof *src);
  perm q, qi;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!transposed(kiln_op_operand(op, i), &src[i], i ? &qi : &q) || (i && !same_perm(&q, &qi)))
      return false;
  const kiln_type *rt = unpermuted(ctx, op->results[0].type, &q);
  int64_t d = q.p[dim->i];
  const kiln_attr *attrs = kiln_dict_set(ctx, op->attrs, "dim", kiln_attr_int(ctx, dim->type, d));
  kiln_op *nc = kiln_op_create(ctx, KILN_OP_TENSOR_CONCAT, op->loc, op->num_operands, src, 1, &rt, attrs, 0);
  kiln_block_insert_before(op, nc);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  return replace(op, build_transpose(&b, kiln_op_result(nc, 0), q.p));
}

/* ---- generics ---- */
static bool is_constant(kiln_value *v) {
  const kiln_attr *a = kiln_value_constant(v);
  return a && a->kind == KILN_ATTR_DENSE;
}

/* More than one dim larger than 1: not a broadcast scalar or vector. */
static bool big(const kiln_type *t) {
  if (!kiln_type_is_ranked(t)) return false;
  int n = 0;
  for (uint32_t d = 0; d < t->rank; d++) n += t->shape[d] != 1;
  return n > 1;
}

/* A constant input without its unit dims (the same elements; the map
 * loses the results of those dims, whose index is always 0). */
static void squeeze_constant(kiln_builder *b, kiln_value **v, const kiln_affine_map **m) {
  const kiln_attr *a = kiln_value_constant(*v);
  const kiln_type *t = (*v)->type;
  if (!a || a->kind != KILN_ATTR_DENSE || !fl_is_static_tensor(t)) return;
  int64_t s[KILN_MAX_LOOPS];
  const kiln_affine_expr *r[KILN_MAX_LOOPS];
  uint32_t k = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (t->shape[d] != 1) s[k] = t->shape[d], r[k++] = (*m)->results[d];
  if (k == t->rank) return;
  *v = kiln_build_constant(b, kiln_attr_dense_reshape(b->ctx, a, kiln_type_with_shape(b->ctx, t, k, s)));
  *m = kiln_affine_map_get(b->ctx, (*m)->num_dims, (*m)->num_symbols, k, r);
}

/* A fresh init of type t standing for `init` (an empty or a fill), or
 * NULL when init is anything else. */
static kiln_value *reinit(kiln_builder *b, kiln_value *init, const kiln_type *t, const int64_t *src_dim) {
  kiln_op *d = init->def;
  if (d && d->kind == KILN_OP_TENSOR_EMPTY) return empty_from(b, t, init, src_dim);
  if (!d || d->kind != KILN_OP_LINALG_FILL || d->num_operands != 2 ||
      kiln_op_operand(d, 1)->type->kind != KILN_TYPE_TENSOR)
    return NULL;
  kiln_value *ops[2] = {kiln_op_operand(d, 0), empty_from(b, t, init, src_dim)};
  return kiln_op_result(kiln_build(b, KILN_OP_LINALG_FILL, 2, ops, 1, &t, d->attrs), 0);
}

static bool rewrite_generic(kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op);
  if (op->num_results != 1 || op->num_operands != nin + 1 || !op->regions[0].first) return false;
  kiln_context *ctx = kiln_op_context(op);
  const kiln_affine_map **maps = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(op, NULL, maps, red);
  if (loops < 0) return false;
  kiln_value **ins = kiln_alloc(ctx, (nin + 1) * sizeof *ins);
  perm *qs = kiln_alloc(ctx, (nin + 1) * sizeof *qs);
  bool any = false;
  for (uint32_t i = 0; i < nin; i++) {
    ins[i] = kiln_op_operand(op, i);
    qs[i].rank = 0;
    kiln_value *a;
    if (transposed(ins[i], &a, &qs[i])) ins[i] = a, any = true;
  }
  if (!any) return false;
  /* Sink when every big input is T(., q) or a constant. */
  kiln_value *init = kiln_op_operand(op, nin);
  const kiln_type *ot = init->type;
  const kiln_affine_map *om = maps[nin];
  const perm *q = NULL;
  for (uint32_t i = 0; i < nin && !q; i++)
    if (qs[i].rank == ot->rank) q = &qs[i];
  bool sink = q && kiln_type_is_ranked(ot) && kiln_affine_map_is_projected_permutation(om) &&
              om->num_results == ot->rank;
  kiln_block *ob = op->regions[0].first;
  for (uint32_t i = 0; i < nin && sink; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    /* An input only there for its shape (a pool's window) reads nothing. */
    bool shape_only = !kiln_value_has_uses(ob->args[i]) ||
                      (v->def && v->def->kind == KILN_OP_TENSOR_EMPTY);
    if (big(v->type) && !shape_only && !is_constant(v) && !(qs[i].rank && same_perm(&qs[i], q)))
      sink = false;
  }
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  bool init_read = kiln_value_has_uses(ob->args[nin]);
  kiln_value *ninit = init;
  if (sink) {
    const kiln_type *nt = unpermuted(ctx, ot, q);
    int64_t from[KILN_MAX_LOOPS]; /* nt's dim q[i] is init's dim i */
    for (uint32_t i = 0; i < q->rank; i++) from[q->p[i]] = (int64_t)i;
    ninit = init_read ? reinit(&b, init, nt, from) : empty_from(&b, nt, init, from);
    if (!ninit) sink = false, ninit = init;
  }
  for (uint32_t i = 0; i < nin; i++)
    if (qs[i].rank) maps[i] = permute_results(ctx, maps[i], &qs[i]);
  if (sink) maps[nin] = permute_results(ctx, om, q);
  /* Loop order: the output's dims (parallel), then the other loops. */
  int order[KILN_MAX_LOOPS], pos[KILN_MAX_LOOPS], n = 0;
  bool placed[KILN_MAX_LOOPS] = {0};
  if (kiln_affine_map_is_projected_permutation(maps[nin]))
    for (uint32_t r = 0; r < maps[nin]->num_results; r++) {
      int l = (int)maps[nin]->results[r]->value;
      if (!red[l] && !placed[l]) order[n++] = l, placed[l] = true;
    }
  for (int l = 0; l < loops; l++)
    if (!placed[l]) order[n++] = l;
  const kiln_affine_expr *subs[KILN_MAX_LOOPS];
  bool nred[KILN_MAX_LOOPS];
  for (int k = 0; k < loops; k++) pos[order[k]] = k, nred[k] = red[order[k]];
  for (int l = 0; l < loops; l++) subs[l] = kiln_affine_dim(ctx, (unsigned)pos[l]);
  for (uint32_t i = 0; i <= nin; i++) {
    const kiln_affine_map *m = maps[i];
    const kiln_affine_expr *r[KILN_MAX_LOOPS];
    for (uint32_t k = 0; k < m->num_results; k++) r[k] = fl_affine_substitute(ctx, m->results[k], subs);
    maps[i] = kiln_affine_map_get(ctx, (uint32_t)loops, 0, m->num_results, r);
  }
  if (sink)
    for (uint32_t i = 0; i < nin; i++) squeeze_constant(&b, &ins[i], &maps[i]);
  kiln_op *g = fl_build_generic(&b, nin, ins, 1, &ninit, maps, (uint32_t)loops, nred);
  kiln_block *nb = g->regions[0].first;
  kiln_value_map vm = {0};
  for (uint32_t i = 0; i <= nin; i++) kiln_value_map_add(ctx, &vm, ob->args[i], nb->args[i]);
  for (kiln_op *o = ob->first; o; o = o->next) {
    kiln_op *c = kiln_op_clone(o, &vm);
    if (c->kind == KILN_OP_LINALG_INDEX) {
      const kiln_attr *d = kiln_op_get_attr(c, "dim");
      kiln_op_set_attr(c, "dim", kiln_attr_int(ctx, d->type, pos[d->i]));
    }
    kiln_block_append_op(nb, c);
  }
  kiln_value *r = kiln_op_result(g, 0);
  return replace(op, sink ? build_transpose(&b, r, q->p) : r);
}

/* linalg.index inside nested regions of a generic body would need the
 * renumbering too: such generics are left alone. */
static bool index_only_on_top(kiln_op *op) {
  for (kiln_op *o = op->regions[0].first ? op->regions[0].first->first : NULL; o; o = o->next)
    if (o->num_regions) return false;
  return true;
}

static bool visit(kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_LINALG_TRANSPOSE: return compose(op);
  case KILN_OP_LINALG_GENERIC: return index_only_on_top(op) && rewrite_generic(op);
  case KILN_OP_TENSOR_PAD: return pad(op);
  case KILN_OP_TENSOR_EXPAND_SHAPE:
  case KILN_OP_TENSOR_COLLAPSE_SHAPE:
  case KILN_OP_FLOW_TENSOR_RESHAPE: return reshape(op);
  case KILN_OP_TENSOR_CONCAT: return concat(op);
  default: return false;
  }
}

/* Erases side-effect-free ops nobody reads (the transposes left behind
 * and what only they read), last first. */
static void erase_dead(kiln_block *body) {
  for (kiln_op *op = body->last; op;) {
    kiln_op *prev = op->prev;
    bool dead = op->num_results > 0 && (kiln_op_has_flag(op, KILN_OPF_PURE) ||
                                        kiln_op_has_flag(op, KILN_OPF_LINALG) ||
                                        op->kind == KILN_OP_FLOW_TENSOR_RESHAPE);
    for (uint32_t i = 0; dead && i < op->num_results; i++)
      dead = op->results[i].type->kind == KILN_TYPE_TENSOR && !kiln_value_has_uses(&op->results[i]);
    if (dead) kiln_op_erase(op);
    op = prev;
  }
}

/* Ops are visited in order, so a transpose created below an op is met
 * again by that op's readers in the same sweep. */
static void propagate_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)ctx, (void)user;
  for (kiln_op *op = body->first; op;) {
    kiln_op *next = op->next;
    visit(op);
    op = next;
  }
  erase_dead(body);
}

kiln_error *kiln_flow_pass_propagate_transposes(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "propagate-transposes", propagate_in, NULL);
}
