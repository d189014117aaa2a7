/* sink-reshapes: moves a collapsing flow.tensor.reshape below the
 * elementwise generic that consumes it, so that the generic iterates the
 * producer's own shape and form-dispatch-regions can fuse it into the
 * producer's dispatch. The ONNX importer's grouped convolution writes
 * [N,G,M,H,W] and collapses it to [N,G*M,H,W]; its bias, ReLU and
 * residual add would otherwise be a dispatch (a full memory pass) each.
 *
 * Takes: a host function body after reshapes-to-views. A reshape R qualifies
 * when its source is the single-use result of a structured op with a
 * reduction loop (a root: conv, matmul, pooling) or, for a reshape that
 * only inserts unit dims (ReduceMean's keepdims view of a per-row value,
 * so that sqrt(var + eps) maps rows and joins the row chain), of any
 * structured op, and R only merges
 * contiguous groups of source dims (a dynamic dim stays alone, with unit
 * dims) or only inserts or drops unit dims (the
 * ONNX importer's [S, N] matmul of a Linear over a [S, 1, D] sequence,
 * viewed back as [S, 1, N] for its bias add) or splits dims ([L*B, N]
 * rows of run-time size viewed as [L, B, N], a static [N*H*W, M] as [N,
 * H, W, M]: then C's other inputs must not be read along the split dims,
 * like a bias), and R's one reader C is an
 * all-parallel linalg.generic of one result with identity output map, an
 * unused output argument and no linalg.index, reading R only as inputs
 * through the identity map, or through a permutation that moves only unit
 * dims where R only inserts or drops unit dims (a global pool's [1, C]
 * sums viewed as [1, C, 1, 1] and divided into [1, 1, 1, C]: the divide
 * then joins the pool's dispatch). Guarantees: C is replaced by a generic over
 * the source shape that reads the source directly, reads its other
 * inputs through their maps composed with the collapse (a merged dim is
 * the row-major linear sum of its group's non-unit dims), writes a fresh
 * tensor.empty and computes the same values; a reshape of its result to
 * C's type takes C's place (a view, no data movement).
 *
 * Also: a pad by static amounts with a constant value (a run-time dim
 * only where nothing is padded: a batch), the single reader of a
 * collapse that is the single reader of a structured op's result, moves
 * above the collapse when each dim it pads is one source dim (the rest of
 * its group unit dims): the source is padded along those dims and viewed
 * as the old pad's type, so the pad is the producer's single use and
 * form-dispatch-regions can fuse it (a blocked convolution's
 * [N, H, W, M/NB, NB] viewed as [N, H, W, M] and padded for a 3x3). */
#include "fl_internal.h"

/* groups[j] = first source dim of result dim j (groups[rank] = src rank)
 * when the reshape only merges contiguous source dims; false otherwise.
 * Trailing unit source dims join the last group. */
static bool collapse_groups(const kiln_type *src, const kiln_type *dst, uint32_t *groups) {
  if (dst->rank == 0 || dst->rank > src->rank || src->rank > KILN_MAX_LOOPS) return false;
  uint32_t i = 0;
  for (uint32_t j = 0; j < dst->rank; j++) {
    groups[j] = i;
    if (i >= src->rank) return false;
    if (dst->shape[j] == KILN_DYNAMIC) { /* one dynamic dim, after unit dims */
      while (i < src->rank && src->shape[i] == 1) i++;
      if (i >= src->rank || src->shape[i++] != KILN_DYNAMIC) return false;
      continue;
    }
    int64_t prod = src->shape[i++];
    if (prod == KILN_DYNAMIC) return false;
    while (prod < dst->shape[j] && i < src->rank) {
      if (src->shape[i] == KILN_DYNAMIC) return false;
      prod *= src->shape[i++];
    }
    if (prod != dst->shape[j]) return false;
  }
  for (; i < src->rank; i++)
    if (src->shape[i] != 1) return false;
  groups[dst->rank] = src->rank;
  return true;
}

/* A map over the source dims giving each result dim's index. */
static const kiln_affine_map *collapse_map(kiln_context *ctx, const kiln_type *src,
                                           const kiln_type *dst, const uint32_t *groups) {
  const kiln_affine_expr **res = kiln_alloc(ctx, (dst->rank + 1) * sizeof *res);
  for (uint32_t j = 0; j < dst->rank; j++) {
    const kiln_affine_expr *e = NULL;
    int64_t stride = 1;
    for (uint32_t k = groups[j + 1]; k-- > groups[j];) {
      if (src->shape[k] == 1) continue; /* always index 0 */
      const kiln_affine_expr *t = kiln_affine_dim(ctx, k);
      if (stride != 1)
        t = kiln_affine_binary(ctx, KILN_AFFINE_MUL, t, kiln_affine_const(ctx, stride));
      e = e ? kiln_affine_binary(ctx, KILN_AFFINE_ADD, t, e) : t;
      stride *= src->shape[k];
    }
    /* an all-unit group: its last dim, a plain dim that sizes the loop */
    res[j] = e ? e : kiln_affine_dim(ctx, groups[j + 1] - 1);
  }
  return kiln_affine_map_get(ctx, src->rank, 0, dst->rank, res);
}

/* The map over src's dims giving dst's indices when the reshape only
 * inserts or drops unit dims (the non-unit dims of both, in order, are
 * the same): a unit dim of dst is index 0. NULL otherwise. */
static const kiln_affine_map *unit_dims_map(kiln_context *ctx, const kiln_type *src,
                                            const kiln_type *dst) {
  if (dst->rank > KILN_MAX_LOOPS || src->rank > KILN_MAX_LOOPS) return NULL;
  const kiln_affine_expr **res = kiln_alloc(ctx, (dst->rank + 1) * sizeof *res);
  uint32_t i = 0;
  for (uint32_t j = 0; j < dst->rank; j++) {
    if (dst->shape[j] == 1) {
      res[j] = kiln_affine_const(ctx, 0);
      continue;
    }
    while (i < src->rank && src->shape[i] == 1) i++;
    if (i >= src->rank || src->shape[i] != dst->shape[j]) return NULL;
    res[j] = kiln_affine_dim(ctx, i++);
  }
  while (i < src->rank && src->shape[i] == 1) i++;
  if (i != src->rank) return NULL;
  return kiln_affine_map_get(ctx, src->rank, 0, dst->rank, res);
}

static bool uses_dims(const kiln_affine_expr *e, uint64_t mask) {
  if (!e) return false;
  if (e->kind == KILN_AFFINE_DIM) return e->value < 64 && (mask >> e->value & 1);
  return uses_dims(e->lhs, mask) || uses_dims(e->rhs, mask);
}

/* Where the dst dims that src's dims from j on (all static) expand to
 * begin, past dst dim k: the dst dims from there on are static, of that
 * product, and the one before is not a unit dim (unit dims at the border
 * go with the later dims); k when there is no such place. */
static uint32_t static_suffix(const kiln_type *src, uint32_t j, const kiln_type *dst, uint32_t k) {
  int64_t want = 1, have = 1;
  for (uint32_t i = j; i < src->rank; i++) {
    if (src->shape[i] == KILN_DYNAMIC) return k;
    want *= src->shape[i];
  }
  for (uint32_t d = dst->rank; d > k; d--) {
    if (have == want && dst->shape[d - 1] != 1) return d;
    if (dst->shape[d - 1] == KILN_DYNAMIC) return k;
    have *= dst->shape[d - 1];
    if (have > want) return k;
  }
  return k;
}

/* An expansion: each source dim j becomes the dst dims [first, next)
 * where a dynamic source dim takes the dynamic and unit dst dims from
 * there on (a Linear's [L*B, N] rows, L and B known at run time only,
 * viewed back as [L, B, N] for its bias add) and a static one the dst
 * dim it equals alone (with unit dims) or else the static dst dims whose
 * product it is (an int8 1x1 convolution's [N*H*W, M] matmul viewed as
 * [N, H, W, M] for its requantization). The map gives each dst
 * dim its index when the dim is the one non-unit dim of its group; the
 * others (several non-unit dims from one: r / B, r % B, not affine) are
 * 0 and marked in *split. NULL when the reshape is not such a split. */
static const kiln_affine_map *split_map(kiln_context *ctx, const kiln_type *src,
                                        const kiln_type *dst, uint64_t *split) {
  if (src->rank == 0 || dst->rank <= src->rank || dst->rank > KILN_MAX_LOOPS || dst->rank > 64)
    return NULL;
  const kiln_affine_expr **res = kiln_alloc(ctx, (dst->rank + 1) * sizeof *res);
  uint32_t k = 0;
  *split = 0;
  for (uint32_t j = 0; j < src->rank; j++) {
    uint32_t first = k, nonunit = 0;
    if (src->shape[j] == KILN_DYNAMIC) {
      while (k < dst->rank && (dst->shape[k] == KILN_DYNAMIC || dst->shape[k] == 1)) nonunit += dst->shape[k++] != 1;
      if (nonunit == 0) return NULL;
      /* then the static dst dims before those whose product the static
       * source dims after j are (an int8 convolution's [N*H*W, M] rows
       * of a run-time batch N viewed as [N, H, W, M]) */
      uint32_t end = static_suffix(src, j + 1, dst, k);
      for (; k < end; k++) nonunit += dst->shape[k] != 1;
    } else {
      while (k < dst->rank && dst->shape[k] == 1 && src->shape[j] != 1) k++;
      if (k >= dst->rank) return NULL;
      if (dst->shape[k] == src->shape[j]) {
        nonunit = src->shape[j] != 1;
        k++;
      } else { /* static dst dims whose product it is (a 1x1 convolution's pixels) */
        int64_t prod = 1;
        for (; k < dst->rank && prod < src->shape[j]; k++) {
          if (dst->shape[k] == KILN_DYNAMIC) return NULL;
          prod *= dst->shape[k], nonunit += dst->shape[k] != 1;
        }
        if (prod != src->shape[j]) return NULL;
      }
      if (j + 1 == src->rank) /* trailing unit dims join the last group */
        while (k < dst->rank && dst->shape[k] == 1) k++;
    }
    for (uint32_t d = first; d < k; d++) {
      bool unit = dst->shape[d] == 1;
      res[d] = unit ? kiln_affine_const(ctx, 0) : kiln_affine_dim(ctx, j);
      if (!unit && nonunit > 1) res[d] = kiln_affine_const(ctx, 0), *split |= UINT64_C(1) << d;
    }
  }
  if (k != dst->rank || !*split) return NULL;
  return kiln_affine_map_get(ctx, src->rank, 0, dst->rank, res);
}

/* The map over the reshape's source dims giving its result's indices:
 * collapses of contiguous dims, reshapes that only insert or drop unit
 * dims (a Linear's [S, N] result viewed as [S, 1, N] for its bias add),
 * and splits (split_map; *split marks the dst dims whose index
 * it cannot give). NULL when none. */
static const kiln_affine_map *reshape_map(kiln_context *ctx, const kiln_type *src,
                                          const kiln_type *dst, uint64_t *split) {
  uint32_t groups[KILN_MAX_LOOPS + 1];
  *split = 0;
  if (collapse_groups(src, dst, groups)) return collapse_map(ctx, src, dst, groups);
  const kiln_affine_map *m = unit_dims_map(ctx, src, dst);
  return m ? m : split_map(ctx, src, dst, split);
}

static bool reduces(const kiln_op *op) {
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(op, NULL, NULL, red);
  for (int l = 0; l < loops; l++)
    if (red[l]) return true;
  return false;
}

/* Is C's input v, read through map m, the same elements as the split
 * view in the same order (identity map, the view's static shape)? It is
 * then read as the reshape's source shape too, viewed so: a residual
 * add's other operand behind an int8 1x1 convolution's [N*H*W, M]
 * product, which then takes the add as its epilogue. */
static bool viewable(kiln_value *v, const kiln_affine_map *m, const kiln_type *dt) {
  const kiln_type *t = v->type;
  if (t->kind != KILN_TYPE_TENSOR || t->rank != dt->rank || !kiln_affine_map_is_identity(m)) return false;
  /* one run-time dim too (a batch): read through the identity map over
   * C's loops, it is the view's own size, and resolve-dims' check of the
   * merged rows (N' * H * W = N * H * W) still checks it; of several
   * (L, B) that check would hold for other pairs too */
  uint32_t dyn = 0;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->shape[d] != dt->shape[d]) return false;
    dyn += t->shape[d] == KILN_DYNAMIC;
  }
  return dyn <= 1;
}

/* Does m, over dt's dims, read dt through a permutation that moves only
 * unit dims (its non-unit dims in loop order)? Reading dt so is reading
 * a unit-dim reshape of it through the identity map: the same elements
 * in the same row-major order (the ONNX importer's NCHW [1, C, 1, 1]
 * of a global pool read as NHWC [1, 1, 1, C] by its divide). */
static bool unit_permutation(const kiln_affine_map *m, const kiln_type *dt) {
  if (m->num_dims != dt->rank || m->num_symbols || m->num_results != dt->rank) return false;
  uint64_t seen = 0;
  int64_t last = -1;
  for (uint32_t r = 0; r < m->num_results; r++) {
    const kiln_affine_expr *e = m->results[r];
    if (e->kind != KILN_AFFINE_DIM || e->value >= dt->rank || (seen >> e->value & 1)) return false;
    seen |= (uint64_t)1 << e->value;
    if (dt->shape[r] == 1) continue;
    if ((int64_t)e->value <= last) return false;
    last = (int64_t)e->value;
  }
  return true;
}

/* C when reshape r may sink below its reader C, else NULL; *rmap is the
 * reshape's map (reshape_map), or, where C reads r through a unit-dim
 * permutation, the map from r's source to C's loops (unit_dims_map). */
static kiln_op *sinkable(kiln_op *r, const kiln_affine_map **rmap) {
  if (r->num_operands < 1 || r->num_results != 1) return NULL; /* + dynamic dims */
  kiln_value *src = kiln_op_operand(r, 0);
  kiln_op *p = src->def;
  const kiln_type *st = src->type, *dt = r->results[0].type;
  if (!p || p->parent != r->parent || !kiln_op_has_flag(p, KILN_OPF_LINALG) ||
      !kiln_value_has_one_use(src))
    return NULL;
  uint64_t split;
  if (st->kind != KILN_TYPE_TENSOR || dt->kind != KILN_TYPE_TENSOR ||
      !(*rmap = reshape_map(kiln_op_context(r), st, dt, &split)))
    return NULL;
  /* A view that only inserts unit dims (keepdims) sinks below whatever
   * produced it: C then maps per-row values and joins a row chain
   * (ReduceMean -> Add eps -> Sqrt on the [rows, 1] view). Other reshapes
   * only below a root, whose dispatch C then joins. */
  if (!reduces(p) && !(dt->rank > st->rank && !split && unit_dims_map(kiln_op_context(r), st, dt)))
    return NULL;
  kiln_use *u = r->results[0].uses;
  if (!u) return NULL;
  kiln_op *c = u->owner;
  if (c->kind != KILN_OP_LINALG_GENERIC || c->parent != r->parent || c->num_results != 1 ||
      !fl_all_parallel(c))
    return NULL;
  uint32_t cin = kiln_linalg_num_inputs(c);
  if (c->num_operands != cin + 1) return NULL;
  kiln_context *ctx = kiln_op_context(c);
  const kiln_affine_map **maps = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *maps);
  if (fl_iteration(c, NULL, maps, NULL) != (int)dt->rank) return NULL;
  bool permuted = false;
  for (kiln_use *v = r->results[0].uses; v; v = v->next) {
    if (v->owner != c || v->index >= cin) return NULL;
    if (kiln_affine_map_is_identity(maps[v->index])) continue;
    if (!unit_permutation(maps[v->index], dt)) return NULL;
    permuted = true;
  }
  if (!kiln_affine_map_is_identity(maps[cin])) return NULL;
  if (permuted && (split || !(*rmap = unit_dims_map(ctx, st, c->results[0].type)))) return NULL;
  /* C's other inputs must not be read along dims the map cannot give,
   * unless they are viewable as the source's shape */
  for (uint32_t i = 0; split && i < cin; i++)
    if (kiln_op_operand(c, i) != kiln_op_result(r, 0) && !viewable(kiln_op_operand(c, i), maps[i], dt))
      for (uint32_t k = 0; k < maps[i]->num_results; k++)
        if (uses_dims(maps[i]->results[k], split)) return NULL;
  kiln_block *b = c->regions[0].first;
  if (!b || b->num_args != c->num_operands || kiln_value_has_uses(b->args[cin])) return NULL;
  for (kiln_op *o = b->first; o; o = o->next)
    if (o->kind == KILN_OP_LINALG_INDEX) return NULL;
  return c;
}

static kiln_op *sink(kiln_context *ctx, kiln_op *r, kiln_op *c, const kiln_affine_map *cm) {
  kiln_value *src = kiln_op_operand(r, 0), *rv = kiln_op_result(r, 0);
  const kiln_type *st = src->type, *ct = c->results[0].type;
  uint32_t cin = kiln_linalg_num_inputs(c);
  const kiln_affine_map **maps = kiln_alloc(ctx, (cin + 2) * sizeof *maps);
  fl_iteration(c, NULL, maps, NULL);
  const kiln_affine_map *id = kiln_affine_map_identity(ctx, st->rank);
  kiln_value **ins = kiln_alloc(ctx, (cin + 1) * sizeof *ins);
  kiln_builder b = kiln_builder_before(c);
  b.loc = c->loc;
  bool split = st->rank < ct->rank && !unit_dims_map(ctx, st, ct);
  /* dynamic sizes: the new init's (and other inputs' views') from the
   * source, the view's from c */
  kiln_value *dims[KILN_MAX_LOOPS + 1], *vdims[KILN_MAX_LOOPS + 1];
  uint32_t nd = 0, nvd = 1;
  for (uint32_t d = 0; d < st->rank; d++)
    if (st->shape[d] == KILN_DYNAMIC) dims[nd++] = fl_build_dim(&b, src, d);
  for (uint32_t i = 0; i < cin; i++) {
    kiln_value *v = kiln_op_operand(c, i);
    ins[i] = v == rv ? src : v;
    if (v != rv && split && viewable(v, maps[i], ct)) { /* same elements, in the source's shape */
      const kiln_type *vt = kiln_type_tensor(ctx, st->rank, st->shape, v->type->elem, NULL);
      kiln_value *ops[KILN_MAX_LOOPS + 2];
      ops[0] = v;
      for (uint32_t k = 0; k < nd; k++) ops[k + 1] = dims[k];
      ins[i] = kiln_op_result(kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, nd + 1, ops, 1, &vt, NULL), 0);
      maps[i] = id;
      continue;
    }
    maps[i] = v == rv ? id : fl_affine_compose(ctx, maps[i], cm);
  }
  maps[cin] = id;
  for (uint32_t d = 0; d < ct->rank; d++)
    if (ct->shape[d] == KILN_DYNAMIC) vdims[nvd++] = fl_build_dim(&b, kiln_op_result(c, 0), d);
  const kiln_type *ot = kiln_type_tensor(ctx, st->rank, st->shape, ct->elem, NULL);
  kiln_value *out = kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_EMPTY, nd, dims, 1, &ot, NULL), 0);
  kiln_op *g = fl_build_generic(&b, cin, ins, 1, &out, maps, st->rank, NULL);
  kiln_block *nb = g->regions[0].first, *cb = c->regions[0].first;
  kiln_value_map vm = {0};
  for (uint32_t i = 0; i <= cin; i++) kiln_value_map_add(ctx, &vm, cb->args[i], nb->args[i]);
  for (kiln_op *o = cb->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &vm));
  kiln_value *gv = kiln_op_result(g, 0);
  vdims[0] = gv;
  kiln_op *view = kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, nvd, vdims, 1, &ct, NULL);
  kiln_value_replace_all_uses(kiln_op_result(c, 0), kiln_op_result(view, 0));
  kiln_op_erase(c);
  kiln_op_erase(r);
  return view;
}

/* ---- Pads of collapsed values: a blocked convolution writes
 * [N, H, W, M/NB, NB] and collapses it to [N, H, W, M]; a pad of that view
 * for the next (depthwise, 3x3) convolution could not join the producer's
 * dispatch (form-dispatch-regions fuses a pad only as the single use of
 * the producer's own value), so it cost a dispatch and a copy. When every
 * padded dim of the view is one source dim (with unit dims), the pad
 * moves above the reshape: pad the source along those dims, view the
 * padded source as the old pad's type. Same values, same bytes. */

/* The pad below reshape r that may move above it, or NULL; lo/hi get its
 * amounts over r's source dims. */
static kiln_op *pad_below(kiln_op *r, int64_t *lo, int64_t *hi) {
  if (r->num_results != 1) return NULL;
  kiln_value *src = kiln_op_operand(r, 0);
  const kiln_type *st = src->type, *dt = r->results[0].type;
  /* run-time dims (a batch) only unpadded: r's dim operands then size
   * the new view too */
  if (!src->def || src->def->parent != r->parent || !kiln_op_has_flag(src->def, KILN_OPF_LINALG) ||
      !kiln_value_has_one_use(src) || !kiln_value_has_one_use(kiln_op_result(r, 0)) ||
      st->kind != KILN_TYPE_TENSOR || dt->kind != KILN_TYPE_TENSOR ||
      r->num_operands != 1 + kiln_type_num_dynamic_dims(dt))
    return NULL;
  kiln_use *u = r->results[0].uses;
  kiln_op *p = u->owner;
  if (p->kind != KILN_OP_TENSOR_PAD || p->parent != r->parent || u->index != 0 || p->num_operands != 1 ||
      p->num_results != 1)
    return NULL;
  const kiln_attr *pl = kiln_op_get_attr(p, "static_low"), *ph = kiln_op_get_attr(p, "static_high");
  if (!pl || !ph || pl->kind != KILN_ATTR_DENSE_ARRAY || ph->kind != KILN_ATTR_DENSE_ARRAY ||
      pl->count != dt->rank || ph->count != dt->rank)
    return NULL;
  /* the pad value may not depend on the index (the region's args) */
  kiln_block *pb = p->regions[0].first;
  if (!pb) return NULL;
  for (uint32_t i = 0; i < pb->num_args; i++)
    if (kiln_value_has_uses(pb->args[i])) return NULL;
  uint32_t groups[KILN_MAX_LOOPS + 1];
  if (!collapse_groups(st, dt, groups)) return NULL;
  for (uint32_t k = 0; k < st->rank; k++) lo[k] = hi[k] = 0;
  for (uint32_t j = 0; j < dt->rank; j++) {
    int64_t l = ((const int64_t *)pl->data)[j], h = ((const int64_t *)ph->data)[j];
    if (l == 0 && h == 0) continue;
    if (l < 0 || h < 0 || dt->shape[j] == KILN_DYNAMIC) return NULL;
    /* the group's one dim of the view's size; the rest are unit dims */
    int64_t k = -1;
    for (uint32_t i = groups[j]; i < groups[j + 1]; i++)
      if (st->shape[i] == dt->shape[j]) k = i;
      else if (st->shape[i] != 1) return NULL;
    if (k < 0) return NULL;
    lo[k] = l, hi[k] = h;
  }
  return p;
}

/* Replaces pad p of reshape r's view by a pad of r's source (amounts lo,
 * hi) and a view of that as p's type; returns the view. */
static kiln_op *hoist_pad(kiln_context *ctx, kiln_op *r, kiln_op *p, const int64_t *lo,
                          const int64_t *hi) {
  kiln_value *src = kiln_op_operand(r, 0);
  const kiln_type *st = src->type;
  int64_t s[KILN_MAX_LOOPS];
  for (uint32_t d = 0; d < st->rank; d++) s[d] = st->shape[d] == KILN_DYNAMIC ? KILN_DYNAMIC : st->shape[d] + lo[d] + hi[d];
  const kiln_type *pt = kiln_type_with_shape(ctx, st, st->rank, s);
  const kiln_attr *attrs = p->attrs;
  attrs = kiln_dict_set(ctx, attrs, "static_low", kiln_attr_dense_i64_array(ctx, st->rank, lo));
  attrs = kiln_dict_set(ctx, attrs, "static_high", kiln_attr_dense_i64_array(ctx, st->rank, hi));
  kiln_op *np = kiln_op_create(ctx, KILN_OP_TENSOR_PAD, p->loc, 1, &src, 1, &pt, attrs, 1);
  kiln_block_insert_before(p, np);
  /* the region: one index arg per dim (unused), the pad value's yield */
  kiln_block *ob = p->regions[0].first, *nb = kiln_op_entry_block(ctx, np, 0);
  const kiln_type *index = ob->num_args ? ob->args[0]->type : kiln_type_index(ctx);
  for (uint32_t d = 0; d < st->rank; d++) kiln_block_add_arg(ctx, nb, index, p->loc);
  kiln_value_map vm = {0};
  for (kiln_op *o = ob->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &vm));
  kiln_builder b = kiln_builder_before(p);
  b.loc = p->loc;
  kiln_value *pv = kiln_op_result(np, 0);
  const kiln_type *vt = p->results[0].type;
  /* p's run-time dims are r's (unpadded): r's dim operands */
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  uint32_t n = 0;
  ops[n++] = pv;
  for (uint32_t i = 1; i < r->num_operands && n <= KILN_MAX_LOOPS; i++) ops[n++] = kiln_op_operand(r, i);
  kiln_op *view = kiln_build(&b, KILN_OP_FLOW_TENSOR_RESHAPE, n, ops, 1, &vt, NULL);
  kiln_value_replace_all_uses(kiln_op_result(p, 0), kiln_op_result(view, 0));
  kiln_op_erase(p);
  kiln_op_erase(r);
  return view;
}

static void visit(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)user;
  const kiln_affine_map *rmap;
  kiln_op *c;
  int64_t lo[KILN_MAX_LOOPS], hi[KILN_MAX_LOOPS];
  if (op->kind != KILN_OP_FLOW_TENSOR_RESHAPE) return;
  if ((c = sinkable(op, &rmap))) {
    /* the new generic and its view sit before c; the view is visited
     * next (a pad below it may move up too) */
    *next = sink(ctx, op, c, rmap);
  } else if ((c = pad_below(op, lo, hi))) {
    *next = hoist_pad(ctx, op, c, lo, hi)->next;
  }
}

kiln_error *kiln_flow_pass_sink_reshapes(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "sink-reshapes", visit, NULL);
}
