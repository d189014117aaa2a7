/* fold-channel-scale: a per-channel scale of a convolution's input (the
 * squeeze-excitation's x * s[c] before its projection) moves onto the
 * filter: conv(x * s) = conv(x) with W'[.., c, ..] = W[.., c, ..] * s[c].
 * W' is computed per call into a fresh tensor (the weights are constants
 * shared by every call: never scaled in place), which pays when the
 * filter is smaller than the activation: a read-and-write pass over the
 * activation becomes one over the filter.
 *
 * Takes: host functions after generalize-named-ops and fold-views (the
 * scale is a linalg.generic). A convolution C qualifies when its input is
 * the single use of an all-parallel generic G of one result, identity
 * output map, whose body only multiplies its two inputs: X, read through
 * the identity map, a static NHWC [1, H, W, C] tensor, and S, read through
 * a map using only the batch and channel loops; C's filter is a constant
 * with fewer elements than X; and C is linalg.conv_2d_nhwc_hwcf (filter
 * [KH, KW, C, M]), linalg.depthwise_conv_2d_nhwc_hwc ([KH, KW, C]) or a
 * generic with reductions reading X and the filter as its first two
 * inputs, its channel loop being X's map's last result and exactly one
 * plain result of the filter's map (the blocked [M/NB, KH, KW, C, NB]
 * form; a grouped one reads X's channels through an expression and is
 * left alone). Guarantees: C reads X and W' = generic(W, S) over W's shape
 * (S read at W's channel index); G is erased when nothing else reads it.
 * The values differ only by rounding: x * (s * w) for (x * s) * w. */
#include "fl_internal.h"

/* G's inputs when it is the scale: *x (identity map, G's shape) and *s
 * (a map of the batch and channel loops only), s's map in *smap. */
static bool is_scale(kiln_op *g, kiln_value **x, kiln_value **s, const kiln_affine_map **smap) {
  if (g->kind != KILN_OP_LINALG_GENERIC || g->num_results != 1 || kiln_linalg_num_inputs(g) != 2 ||
      g->num_operands != 3 || !fl_all_parallel(g))
    return false;
  const kiln_type *t = g->results[0].type;
  if (!fl_is_static_tensor(t) || t->rank != 4 || t->shape[0] != 1) return false;
  const kiln_affine_map *maps[3];
  if (fl_iteration(g, NULL, maps, NULL) != 4 || !kiln_affine_map_is_identity(maps[2])) return false;
  kiln_block *b = g->regions[0].first;
  if (!b || b->num_args != 3 || kiln_value_has_uses(b->args[2])) return false;
  kiln_op *m = b->first;
  if (!m || m->kind != KILN_OP_ARITH_MULF || !m->next || m->next->kind != KILN_OP_LINALG_YIELD ||
      m->next->num_operands != 1 || kiln_op_operand(m->next, 0) != kiln_op_result(m, 0))
    return false;
  kiln_value *p = kiln_op_operand(m, 0), *q = kiln_op_operand(m, 1);
  if (!((p == b->args[0] && q == b->args[1]) || (p == b->args[1] && q == b->args[0]))) return false;
  for (int i = 0; i < 2; i++) {
    kiln_value *v = kiln_op_operand(g, (uint32_t)i), *o = kiln_op_operand(g, (uint32_t)(1 - i));
    if (v->type != t || !kiln_affine_map_is_identity(maps[i])) continue;
    const kiln_affine_map *om = maps[1 - i];
    bool ok = true;
    /* S may index only d0 and d3: no result mentions d1 or d2 */
    for (uint32_t r = 0; r < om->num_results && ok; r++) {
      const kiln_affine_expr *e = om->results[r];
      const kiln_affine_expr *stack[16];
      int n = 0;
      stack[n++] = e;
      while (n && ok) {
        const kiln_affine_expr *y = stack[--n];
        if (!y) continue;
        if (y->kind == KILN_AFFINE_DIM) ok = y->value == 0 || y->value == 3;
        else if (y->kind == KILN_AFFINE_SYMBOL) ok = false;
        else if (y->kind != KILN_AFFINE_CONST) {
          if (n + 2 > 16) ok = false;
          else stack[n++] = y->lhs, stack[n++] = y->rhs;
        }
      }
    }
    if (!ok) continue;
    *x = v, *s = o, *smap = om;
    return true;
  }
  return false;
}

/* The filter dim holding C's input channel, or -1. */
static int channel_dim(kiln_op *c) {
  switch (c->kind) {
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC: return 2;
  case KILN_OP_LINALG_GENERIC: break;
  default: return -1;
  }
  if (kiln_linalg_num_inputs(c) < 2) return -1;
  const kiln_affine_map **maps = kiln_alloc(kiln_op_context(c), (c->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, NULL, maps, red);
  if (loops < 0 || maps[0]->num_results != 4) return -1;
  const kiln_affine_expr *last = maps[0]->results[3];
  if (last->kind != KILN_AFFINE_DIM || !red[last->value]) return -1;
  int k = -1;
  for (uint32_t r = 0; r < maps[1]->num_results; r++) {
    const kiln_affine_expr *e = maps[1]->results[r];
    if (e->kind == KILN_AFFINE_DIM && e->value == last->value) {
      if (k >= 0) return -1;
      k = (int)r;
    } else if (e->kind != KILN_AFFINE_DIM && e->kind != KILN_AFFINE_CONST) {
      return -1; /* the filter's other indices must be plain loops */
    }
  }
  return k;
}

static int64_t elements(const kiln_type *t) {
  int64_t n = 1;
  for (uint32_t d = 0; d < t->rank; d++) n *= t->shape[d];
  return n;
}

static void visit(kiln_context *ctx, kiln_op *c, kiln_op **next, void *user) {
  (void)next, (void)user;
  if (c->num_operands < 3) return;
  int k = channel_dim(c);
  kiln_value *in = kiln_op_operand(c, 0), *w = kiln_op_operand(c, 1), *x, *s;
  const kiln_affine_map *smap;
  kiln_op *g = in->def;
  const kiln_attr *wc = kiln_value_constant(w);
  if (k < 0 || !g || g->parent != c->parent || !kiln_value_has_one_use(in) || !wc ||
      wc->kind != KILN_ATTR_DENSE || !fl_is_static_tensor(w->type) || (uint32_t)k >= w->type->rank ||
      !is_scale(g, &x, &s, &smap) || elements(w->type) >= elements(x->type))
    return;
  /* S at W's channel index: d0 -> 0 (batch 1), d3 -> W's dim k */
  const kiln_affine_expr *subs[4] = {kiln_affine_const(ctx, 0), kiln_affine_const(ctx, 0),
                                     kiln_affine_const(ctx, 0), kiln_affine_dim(ctx, (uint32_t)k)};
  const kiln_affine_expr *res[KILN_MAX_LOOPS];
  if (smap->num_results > KILN_MAX_LOOPS) return;
  for (uint32_t r = 0; r < smap->num_results; r++) res[r] = fl_affine_substitute(ctx, smap->results[r], subs);
  uint32_t wr = w->type->rank;
  const kiln_affine_map *id = kiln_affine_map_identity(ctx, wr);
  const kiln_affine_map *maps[3] = {id, kiln_affine_map_get(ctx, wr, 0, smap->num_results, res), id};
  kiln_builder b = kiln_builder_before(c);
  b.loc = g->loc;
  kiln_value *init = fl_build_empty(&b, w->type);
  kiln_value *ins[2] = {w, s};
  kiln_op *ng = fl_build_generic(&b, 2, ins, 1, &init, maps, wr, NULL);
  /* the body: G's product of (x, s), now of (w, s) */
  kiln_block *gb = g->regions[0].first, *nb = ng->regions[0].first;
  uint32_t xi = kiln_op_operand(g, 0) == x ? 0 : 1;
  kiln_value_map vm = {0};
  kiln_value_map_add(ctx, &vm, gb->args[xi], nb->args[0]);
  kiln_value_map_add(ctx, &vm, gb->args[1 - xi], nb->args[1]);
  kiln_value_map_add(ctx, &vm, gb->args[2], nb->args[2]);
  for (kiln_op *o = gb->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &vm));
  kiln_op_set_operand(c, 0, x);
  kiln_op_set_operand(c, 1, kiln_op_result(ng, 0));
  if (!kiln_value_has_uses(in)) kiln_op_erase(g);
}

kiln_error *kiln_flow_pass_fold_channel_scale(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "fold-channel-scale", visit, NULL);
}
