/* fold-views: a linalg.generic that reads a tensor through a chain of ops
 * that only move data reads the chain's source in place instead.
 *
 * Takes: host functions on tensors, after generalize-named-ops. For every
 * input of a linalg.generic, the chain of producers above it is walked
 * while each one is
 *   tensor.extract_slice with static offsets, sizes and positive static
 *     strides (index = offset + stride * i; a rank-reducing slice drops
 *     exactly its unit-size dims),
 *   tensor.collapse_shape whose every group holds at most one dim of size
 *     above 1 (that dim takes the group's index, the others 0),
 *   tensor.expand_shape with static sizes (a group's index is the
 *     row-major linear sum of its dims' indices),
 *   a linalg.generic copy: all-parallel, one input, identity output map,
 *     a body that only yields its input (a transpose or broadcast);
 * the generic's indexing map for that input is composed along the way.
 * The walk stops at anything else (and at a collapse of several non-unit
 * dims, whose index would need a division); the chain is folded up to its
 * last slice or copy (reshapes alone are views already; a reshape of a
 * matmul's result is sink-reshapes' to move). Guarantees: the generic
 * reads that value through the composed map (a linear sum of
 * its loops plus a constant in every result) and computes the same
 * values; every loop keeps an operand dim that sizes it and no plain-dim
 * index claims a source dim of another size (such a chain, a slice at
 * offset 0 of a longer dim, stays unfolded); chain ops left
 * without readers are erased. Attention's slices of the fused QKV
 * projection, its head split (reshape) and transposes become one read of
 * the projection, not a copy dispatch each.
 * An all-parallel generic reading an expand of a single-use concat that
 * splits the concat dim into [m pieces, s] (a channel shuffle of the
 * concatenated halves: ShuffleNet) reads the m pieces instead, through
 * the map without the [m] dim, and selects by that loop's index
 * (split_concat): the concat's copy pass goes. */
#include "fl_internal.h"

#include <string.h>

static const int64_t *dense(const kiln_op *op, const char *name, uint32_t n) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != n) return NULL;
  return a->data;
}

static const kiln_affine_expr *lin(kiln_context *ctx, const kiln_affine_expr *e, int64_t mul,
                                   int64_t add) {
  if (mul != 1) e = kiln_affine_binary(ctx, KILN_AFFINE_MUL, e, kiln_affine_const(ctx, mul));
  if (add) e = kiln_affine_binary(ctx, KILN_AFFINE_ADD, e, kiln_affine_const(ctx, add));
  return e;
}

/* Group g's [first, last) dims of the expanded side of a reshape. */
static bool group_range(const kiln_op *op, uint32_t g, uint32_t *first, uint32_t *last) {
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  if (!re || re->kind != KILN_ATTR_ARRAY || g >= re->count) return false;
  const kiln_attr *grp = re->elems[g];
  if (!grp || grp->kind != KILN_ATTR_ARRAY || !grp->count) return false;
  const kiln_attr *a = grp->elems[0], *b = grp->elems[grp->count - 1];
  if (a->kind != KILN_ATTR_INTEGER || b->kind != KILN_ATTR_INTEGER) return false;
  *first = (uint32_t)a->i, *last = (uint32_t)b->i + 1;
  return *last - *first == grp->count;
}

/* The index of source dim g of expand p from the indices res of its
 * result's dims: the row-major linear sum over g's group; NULL when
 * malformed. */
static const kiln_affine_expr *group_index(kiln_context *ctx, const kiln_op *p, uint32_t g,
                                           const kiln_affine_expr *const *res) {
  const kiln_type *rt = p->results[0].type;
  uint32_t a, b;
  if (!group_range(p, g, &a, &b) || b > rt->rank) return NULL;
  const kiln_affine_expr *e = NULL;
  int64_t stride = 1;
  for (uint32_t k = b; k-- > a;) {
    const kiln_affine_expr *t = lin(ctx, res[k], stride, 0);
    e = e ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, t, e) : t;
    stride *= rt->shape[k];
  }
  return e;
}

/* One step up the chain: *src and the results of the map over the
 * consumer's loops indexing it (res, in/out, rank entries), or false. */
static bool step(kiln_context *ctx, kiln_value **src, const kiln_affine_expr **res, uint32_t loops) {
  kiln_op *p = (*src)->def;
  if (!p || p->num_results != 1) return false;
  const kiln_type *rt = p->results[0].type;
  const kiln_affine_expr *out[KILN_MAX_LOOPS];
  kiln_value *in = p->num_operands ? kiln_op_operand(p, 0) : NULL;
  if (!in || !fl_is_static_tensor(rt) || !fl_is_static_tensor(in->type) ||
      in->type->rank > KILN_MAX_LOOPS)
    return false;
  const kiln_type *st = in->type;
  switch (p->kind) {
  case KILN_OP_TENSOR_EXTRACT_SLICE: {
    if (p->num_operands != 1) return false; /* dynamic offsets/sizes/strides */
    const int64_t *so = dense(p, "static_offsets", st->rank), *ss = dense(p, "static_sizes", st->rank),
                  *sst = dense(p, "static_strides", st->rank);
    if (!so || !ss || !sst) return false;
    uint32_t units = 0;
    for (uint32_t i = 0; i < st->rank; i++) {
      if (so[i] < 0 || ss[i] < 0 || sst[i] <= 0) return false;
      units += ss[i] == 1;
    }
    bool drop = rt->rank != st->rank;
    if (drop && st->rank - rt->rank != units) return false;
    for (uint32_t i = 0, j = 0; i < st->rank; i++) {
      if (drop && ss[i] == 1) {
        out[i] = kiln_affine_const(ctx, so[i]);
        continue;
      }
      out[i] = lin(ctx, res[j++], sst[i], so[i]);
    }
    break;
  }
  case KILN_OP_TENSOR_COLLAPSE_SHAPE:
    for (uint32_t g = 0; g < rt->rank; g++) {
      uint32_t a, b, big = 0;
      if (!group_range(p, g, &a, &b) || b > st->rank) return false;
      for (uint32_t k = a; k < b; k++) big += st->shape[k] != 1;
      if (big > 1) return false;
      for (uint32_t k = a; k < b; k++) out[k] = st->shape[k] != 1 || (!big && k == b - 1)
                                                    ? res[g] : kiln_affine_const(ctx, 0);
    }
    break;
  case KILN_OP_TENSOR_EXPAND_SHAPE:
    for (uint32_t g = 0; g < st->rank; g++)
      if (!(out[g] = group_index(ctx, p, g, res))) return false;
    break;
  case KILN_OP_LINALG_GENERIC: {
    if (!fl_is_copy(p)) return false;
    const kiln_affine_map *pm[3];
    if (fl_iteration(p, NULL, pm, NULL) != (int)rt->rank || !kiln_affine_map_is_identity(pm[1]))
      return false;
    /* p's loops are its result's dims: substitute the consumer's indices */
    for (uint32_t r = 0; r < pm[0]->num_results; r++)
      out[r] = fl_affine_substitute(ctx, pm[0]->results[r], res);
    break;
  }
  default:
    return false;
  }
  (void)loops;
  memcpy(res, out, st->rank * sizeof *out);
  *src = in;
  return true;
}

/* e as sum coef[l] * d_l + *cst with non-negative coefficients (scaled
 * by mul); false for anything else. */
static bool linear(const kiln_affine_expr *e, int loops, int64_t mul, int64_t *coef, int64_t *cst) {
  switch (e->kind) {
  case KILN_AFFINE_DIM:
    if ((int)e->value >= loops) return false;
    coef[e->value] += mul;
    return true;
  case KILN_AFFINE_CONST:
    *cst += mul * e->value;
    return e->value >= 0;
  case KILN_AFFINE_ADD:
    return linear(e->lhs, loops, mul, coef, cst) && linear(e->rhs, loops, mul, coef, cst);
  case KILN_AFFINE_MUL:
    if (e->rhs->kind == KILN_AFFINE_CONST && e->rhs->value >= 0)
      return linear(e->lhs, loops, mul * e->rhs->value, coef, cst);
    return false;
  default:
    return false;
  }
}

static bool plain_dim(const kiln_affine_map *m, int l) {
  for (uint32_t r = 0; r < m->num_results; r++)
    if (m->results[r]->kind == KILN_AFFINE_DIM && (int)m->results[r]->value == l) return true;
  return false;
}

/* Erases v's producer chain while nothing reads it. */
static void erase_unused(kiln_value *v) {
  while (v && v->def && !kiln_value_has_uses(v) && v->def->num_results == 1 &&
         (v->def->kind == KILN_OP_TENSOR_EXTRACT_SLICE || v->def->kind == KILN_OP_TENSOR_COLLAPSE_SHAPE ||
          v->def->kind == KILN_OP_TENSOR_EXPAND_SHAPE || fl_is_copy(v->def))) {
    kiln_op *p = v->def;
    kiln_value *in = kiln_op_operand(p, 0);
    kiln_op_erase(p);
    v = in;
  }
}

/* Folds the chain above input x of generic c; true when it changed. */
static bool fold_input(kiln_context *ctx, kiln_op *c, uint32_t x) {
  uint32_t n = c->num_operands;
  const kiln_affine_map **maps = kiln_alloc(ctx, (n + 1) * sizeof *maps);
  int64_t bounds[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, bounds, maps, NULL);
  if (loops < 0) return false;
  kiln_value *v = kiln_op_operand(c, x), *src = v;
  if (!fl_is_static_tensor(v->type) || maps[x]->num_results != v->type->rank ||
      v->type->rank > KILN_MAX_LOOPS)
    return false;
  /* Walk up; keep the position after the last slice or copy: reshapes
   * alone are views already, and one that follows a root's result is
   * left for sink-reshapes (a bias add then joins the matmul). */
  const kiln_affine_expr *res[KILN_MAX_LOOPS], *best[KILN_MAX_LOOPS];
  memcpy(res, maps[x]->results, v->type->rank * sizeof *res);
  kiln_value *best_src = NULL;
  for (;;) {
    kiln_op *d = src->def;
    bool moves = d && (d->kind == KILN_OP_TENSOR_EXTRACT_SLICE || d->kind == KILN_OP_LINALG_GENERIC);
    if (!step(ctx, &src, res, (uint32_t)loops)) break;
    if (moves) {
      best_src = src;
      memcpy(best, res, src->type->rank * sizeof *res);
    }
  }
  if (!best_src) return false;
  src = best_src;
  memcpy(res, best, src->type->rank * sizeof *res);
  const kiln_affine_map *nm = kiln_affine_map_get(ctx, (uint32_t)loops, 0, src->type->rank, res);
  /* every result a non-negative linear sum (codegen addresses it) */
  for (uint32_t r = 0; r < nm->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!linear(nm->results[r], loops, 1, coef, &cst)) return false;
  }
  /* a plain-dim result sizes its loop: it must not claim the size of a
   * larger source dim (a slice at offset 0 reads d, not d + offset) */
  for (uint32_t r = 0; r < nm->num_results; r++) {
    const kiln_affine_expr *e = nm->results[r];
    if (e->kind == KILN_AFFINE_DIM && (int)e->value < loops && src->type->shape[r] != bounds[e->value])
      return false;
  }
  /* every loop sized by a plain dim before stays sized */
  for (int l = 0; l < loops; l++) {
    bool before = false, after = plain_dim(nm, l);
    for (uint32_t i = 0; i < n; i++) {
      if (!plain_dim(maps[i], l)) continue;
      before = true;
      if (i != x) after = true;
    }
    if (before && !after) return false;
  }
  maps[x] = nm;
  const kiln_attr **mattrs = kiln_alloc(ctx, (n + 1) * sizeof *mattrs);
  for (uint32_t i = 0; i < n; i++) mattrs[i] = kiln_attr_affine_map(ctx, maps[i]);
  kiln_op_set_attr(c, "indexing_maps", kiln_attr_array(ctx, n, mattrs));
  kiln_op_set_operand(c, x, src);
  erase_unused(v);
  return true;
}

/* Piece index (loop l) selects which of the m inputs from x on the body
 * reads: args[x + i] where l == i. */
static kiln_value *select_piece(kiln_builder *b, kiln_block *nb, uint32_t x, uint32_t m, int l) {
  kiln_context *ctx = b->ctx;
  const kiln_type *it = kiln_type_index(ctx), *i1 = kiln_type_int(ctx, 1);
  kiln_named_attr da = {kiln_intern_cstr(ctx, "dim"), kiln_attr_int(ctx, kiln_type_int(ctx, 64), l)};
  kiln_value *idx = kiln_op_result(kiln_build(b, KILN_OP_LINALG_INDEX, 0, NULL, 1, &it, kiln_attr_dict(ctx, 1, &da)), 0);
  kiln_value *v = nb->args[x + m - 1];
  for (uint32_t i = m - 1; i-- > 0;) {
    kiln_value *ci = kiln_build_constant(b, kiln_attr_int(ctx, it, i));
    kiln_value *cops[2] = {idx, ci};
    kiln_named_attr pa = {kiln_intern_cstr(ctx, "predicate"), kiln_attr_int(ctx, kiln_type_int(ctx, 64), 0 /* eq */)};
    kiln_value *cnd = kiln_op_result(kiln_build(b, KILN_OP_ARITH_CMPI, 2, cops, 1, &i1, kiln_attr_dict(ctx, 1, &pa)), 0);
    kiln_value *sops[3] = {cnd, nb->args[x + i], v};
    v = kiln_op_result(kiln_build(b, KILN_OP_ARITH_SELECT, 3, sops, 1, &v->type, NULL), 0);
  }
  return v;
}

/* An all-parallel generic c reading, as input x, an expand of a concat
 * along dim d into [m, s], every piece s long along d (a channel
 * shuffle: ShuffleNet's concat, NCHW view, transpose), where c's map
 * reads the [m] dim as a plain loop l that another operand also sizes:
 * c reads the m pieces instead, each through the map without that dim,
 * and selects by l. The concat (and the expand), single-use, go: one
 * copy pass fewer. Returns the new generic, or NULL. */
static kiln_op *split_concat(kiln_context *ctx, kiln_op *c, uint32_t x) {
  kiln_value *v = kiln_op_operand(c, x);
  kiln_op *e = v->def, *cat = e && e->num_operands == 1 ? kiln_op_operand(e, 0)->def : NULL;
  if (!fl_all_parallel(c) || !e || e->kind != KILN_OP_TENSOR_EXPAND_SHAPE || !kiln_value_has_one_use(v) || !cat ||
      cat->kind != KILN_OP_TENSOR_CONCAT || !kiln_value_has_one_use(&cat->results[0]) ||
      !fl_is_static_tensor(v->type) || !fl_is_static_tensor(cat->results[0].type))
    return NULL;
  const kiln_attr *da = kiln_op_get_attr(cat, "dim");
  const kiln_type *ct = cat->results[0].type, *et = v->type;
  uint32_t m = cat->num_operands, a, b;
  if (!da || da->kind != KILN_ATTR_INTEGER || da->i < 0 || da->i >= (int64_t)ct->rank || m < 2 || m > 16 ||
      !group_range(e, (uint32_t)da->i, &a, &b) || b - a != 2 || et->shape[a] != (int64_t)m)
    return NULL;
  uint32_t d = (uint32_t)da->i;
  for (uint32_t i = 0; i < m; i++)
    if (kiln_op_operand(cat, i)->type->shape[d] != et->shape[a + 1]) return NULL;
  uint32_t n = c->num_operands, nin = kiln_linalg_num_inputs(c);
  const kiln_affine_map **maps = kiln_alloc(ctx, (n + m) * sizeof *maps);
  int loops = fl_iteration(c, NULL, maps, NULL);
  if (loops < 0 || maps[x]->num_results != et->rank) return NULL;
  const kiln_affine_expr *const *res = maps[x]->results;
  if (res[a]->kind != KILN_AFFINE_DIM) return NULL;
  int l = (int)res[a]->value;
  bool sized = false;
  for (uint32_t i = 0; i < n; i++) sized |= i != x && plain_dim(maps[i], l);
  if (!sized) return NULL;
  /* the pieces' map: each dim of the concat its group's linear index,
   * the concat dim the index within the piece */
  const kiln_affine_expr *pr[KILN_MAX_LOOPS];
  for (uint32_t g = 0; g < ct->rank; g++)
    if (!(pr[g] = g == d ? res[a + 1] : group_index(ctx, e, g, res))) return NULL;
  const kiln_affine_map *pm = kiln_affine_map_get(ctx, (uint32_t)loops, 0, ct->rank, pr);
  kiln_value **ops = kiln_alloc(ctx, (n + m) * sizeof *ops);
  const kiln_affine_map **nm = kiln_alloc(ctx, (n + m) * sizeof *nm);
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (i != x) {
      ops[k] = kiln_op_operand(c, i), nm[k++] = maps[i];
      continue;
    }
    for (uint32_t p = 0; p < m; p++) ops[k] = kiln_op_operand(cat, p), nm[k++] = pm;
  }
  kiln_builder bb = kiln_builder_before(c);
  bb.loc = c->loc;
  kiln_op *g = fl_build_generic(&bb, nin + m - 1, ops, n - nin, ops + nin + m - 1, nm, (uint32_t)loops, NULL);
  kiln_block *nb = g->regions[0].first, *cb = c->regions[0].first;
  kiln_builder in = kiln_builder_at_end(ctx, nb);
  in.loc = c->loc;
  kiln_value *sel = select_piece(&in, nb, x, m, l);
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < n; i++)
    kiln_value_map_add(ctx, &map, cb->args[i], i < x ? nb->args[i] : i == x ? sel : nb->args[i + m - 1]);
  for (kiln_op *o = cb->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < c->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(c, i), kiln_op_result(g, i));
  kiln_op_erase(c);
  kiln_op_erase(e);
  kiln_op_erase(cat);
  return g;
}

static void fold_generic(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)user;
  if (op->kind == KILN_OP_LINALG_GENERIC && op->regions[0].first) {
    for (uint32_t x = 0; x < kiln_linalg_num_inputs(op); x++) {
      kiln_op *g = split_concat(ctx, op, x);
      if (g) {
        *next = g; /* visited again: its pieces may fold further */
        return;
      }
    }
    uint32_t nin = kiln_linalg_num_inputs(op);
    for (uint32_t x = 0; x < nin; x++) fold_input(ctx, op, x);
  }
  *next = op->next; /* as the folds leave it */
}

kiln_error *kiln_flow_pass_fold_views(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "fold-views", fold_generic, NULL);
}
