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
 *     along dim q[d], T below it;
 *   - a static expand_shape: a's dims split instead, T below;
 *   - a static collapse_shape whose merged groups are each consecutive
 *     dims of a: T1 orders each group's dims in place (the identity
 *     unless the view reorders data: a channel shuffle), a's groups
 *     merge, and the transpose of the merged dims goes below;
 *   - a static extract_slice of the same rank: a is sliced, T below.
 * Anything else keeps reading the transpose, which then costs a copy.
 *
 * After that sweep, two rewrites face the other way: a pad of a static
 * single-use pad with the same constant becomes one pad, and a transpose
 * of a single-use pad (a run-time dim only where nothing is padded)
 * becomes the pad of the transpose (the graph input's NCHW pads then
 * join the stem transpose's dispatch).
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

/* ---- a pad of a pad (after the sweep) ----
 * pad(pad(x, c), c), the inner read only by the outer, both static with
 * the same constant value: one pad by the summed amounts (an explicit
 * ZeroPad2d before a padded convolution is one copy, not two). */
static const kiln_attr *pad_constant(kiln_op *p) {
  kiln_block *b = p->regions[0].first;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  return y && y->num_operands == 1 ? kiln_value_constant(kiln_op_operand(y, 0)) : NULL;
}

static bool same_constant(const kiln_attr *a, const kiln_attr *b) {
  if (a == b) return a != NULL;
  return a && b && a->kind == KILN_ATTR_FLOAT && b->kind == KILN_ATTR_FLOAT && a->type == b->type &&
         memcmp(&a->f, &b->f, sizeof a->f) == 0;
}

static bool merge_pads(kiln_op *op) {
  kiln_value *iv = op->num_operands == 1 ? kiln_op_operand(op, 0) : NULL;
  kiln_op *in = iv ? iv->def : NULL;
  if (!in || in->kind != KILN_OP_TENSOR_PAD || in->num_operands != 1 || in->parent != op->parent ||
      !kiln_value_has_one_use(iv) || !kiln_type_has_static_shape(iv->type) ||
      !same_constant(pad_constant(op), pad_constant(in)))
    return false;
  const kiln_attr *a[4] = {kiln_op_get_attr(op, "static_low"), kiln_op_get_attr(op, "static_high"),
                           kiln_op_get_attr(in, "static_low"), kiln_op_get_attr(in, "static_high")};
  uint32_t r = iv->type->rank;
  for (int i = 0; i < 4; i++)
    if (!a[i] || a[i]->kind != KILN_ATTR_DENSE_ARRAY || a[i]->count != r) return false;
  int64_t l[KILN_MAX_LOOPS], h[KILN_MAX_LOOPS];
  for (uint32_t d = 0; d < r; d++) {
    l[d] = ((const int64_t *)a[0]->data)[d] + ((const int64_t *)a[2]->data)[d];
    h[d] = ((const int64_t *)a[1]->data)[d] + ((const int64_t *)a[3]->data)[d];
  }
  kiln_context *ctx = kiln_op_context(op);
  kiln_op_set_attr(op, "static_low", kiln_attr_dense_i64_array(ctx, r, l));
  kiln_op_set_attr(op, "static_high", kiln_attr_dense_i64_array(ctx, r, h));
  kiln_op_set_operand(op, 0, kiln_op_operand(in, 0));
  kiln_op_erase(in);
  return true;
}

/* ---- a transpose of a pad (after the sweep) ----
 * T(pad(x)) with the pad read only by T becomes pad'(T(x)): the pad is
 * then the single use of the transpose, so form-dispatch-regions puts it
 * into the transpose's dispatch (the graph input's NCHW pad before the
 * stem convolution's NHWC transpose: one copy instead of two). A
 * run-time dim only where nothing is padded (a batch); run after the
 * sweep, which moves the other way. Returns
 * the new transpose (whose source may be a pad again), or NULL. */
static kiln_op *hoist_pad(kiln_op *op) {
  perm q;
  kiln_value *pv;
  if (op->num_results != 1 || !transposed(kiln_op_result(op, 0), &pv, &q)) return NULL; /* not on memrefs */
  kiln_op *p = pv->def;
  if (!p || p->kind != KILN_OP_TENSOR_PAD || p->num_operands != 1 || p->parent != op->parent ||
      !kiln_value_has_one_use(pv) || !kiln_type_is_ranked(pv->type))
    return NULL;
  const kiln_attr *lo = kiln_op_get_attr(p, "static_low"), *hi = kiln_op_get_attr(p, "static_high");
  kiln_block *ob = p->regions[0].first;
  if (!lo || !hi || lo->kind != KILN_ATTR_DENSE_ARRAY || hi->kind != KILN_ATTR_DENSE_ARRAY ||
      lo->count != q.rank || hi->count != q.rank || !ob || ob->num_args != q.rank)
    return NULL;
  /* a run-time dim only where nothing is padded (a batch): the new
   * transpose's empty takes it from the pad's source */
  for (uint32_t d = 0; d < q.rank; d++)
    if (pv->type->shape[d] == KILN_DYNAMIC &&
        (((const int64_t *)lo->data)[d] != 0 || ((const int64_t *)hi->data)[d] != 0))
      return NULL;
  kiln_context *ctx = kiln_op_context(op);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *t = build_transpose(&b, kiln_op_operand(p, 0), q.p);
  int64_t l[KILN_MAX_LOOPS], h[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q.rank; i++) {
    l[i] = ((const int64_t *)lo->data)[q.p[i]];
    h[i] = ((const int64_t *)hi->data)[q.p[i]];
  }
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  const kiln_attr *attrs = p->attrs;
  attrs = kiln_dict_set(ctx, attrs, "static_low", kiln_attr_dense_i64_array(ctx, q.rank, l));
  attrs = kiln_dict_set(ctx, attrs, "static_high", kiln_attr_dense_i64_array(ctx, q.rank, h));
  kiln_op *np = kiln_op_create(ctx, KILN_OP_TENSOR_PAD, p->loc, 1, &t, 1, &rt, attrs, 1);
  kiln_block_insert_before(op, np);
  /* New index arg i is the old pad's arg q[i]. */
  kiln_block *nb = kiln_op_entry_block(ctx, np, 0);
  kiln_value_map vm = {0};
  for (uint32_t i = 0; i < q.rank; i++) kiln_block_add_arg(ctx, nb, ob->args[q.p[i]]->type, p->loc);
  for (uint32_t i = 0; i < q.rank; i++) kiln_value_map_add(ctx, &vm, ob->args[q.p[i]], nb->args[i]);
  for (kiln_op *o = ob->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &vm));
  replace(op, kiln_op_result(np, 0));
  kiln_op_erase(p);
  return t->def;
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

/* ---- reshapes that split or merge permuted dims (static shapes) ----
 * The NCHW channel shuffle (ShuffleNet: [N, C, H, W] viewed as
 * [N, G, C/G, H, W], groups swapped, viewed back) between channels-last
 * convolutions: the split moves above the layout transpose, which then
 * composes with the shuffle; the merge takes from the composed transpose
 * only the part that reorders the merged dims (the shuffle itself, done
 * channels-last), and the layout transpose goes on below it. */

/* groups[j] = the first of `many`'s dims that merge into `few`'s dim j
 * (groups[few rank] = many's rank; unit dims join the group after them,
 * trailing ones the last); false unless both are static and line up. */
static bool merge_groups(const kiln_type *many, const kiln_type *few, uint32_t *groups) {
  if (!fl_is_static_tensor(many) || !fl_is_static_tensor(few) || few->rank == 0 ||
      few->rank > many->rank || many->rank > KILN_MAX_LOOPS)
    return false;
  uint32_t i = 0;
  for (uint32_t j = 0; j < few->rank; j++) {
    groups[j] = i;
    if (i >= many->rank || few->shape[j] <= 0) return false;
    int64_t prod = many->shape[i++];
    while (prod < few->shape[j] && i < many->rank) prod *= many->shape[i++];
    if (prod != few->shape[j]) return false;
  }
  for (; i < many->rank; i++)
    if (many->shape[i] != 1) return false;
  groups[few->rank] = many->rank;
  return true;
}

/* The reassociation attribute of groups (as merge_groups gives them). */
static const kiln_attr *reassociation(kiln_context *ctx, const uint32_t *groups, uint32_t n) {
  const kiln_type *i64 = kiln_type_int(ctx, 64);
  const kiln_attr *gs[KILN_MAX_LOOPS], *idx[KILN_MAX_LOOPS];
  for (uint32_t j = 0; j < n; j++) {
    uint32_t k = 0;
    for (uint32_t d = groups[j]; d < groups[j + 1]; d++) idx[k++] = kiln_attr_int(ctx, i64, d);
    gs[j] = kiln_attr_array(ctx, k, idx);
  }
  return kiln_attr_array(ctx, n, gs);
}

static kiln_value *build_reshape(kiln_builder *b, kiln_value *v, const uint32_t *groups,
                                 const kiln_type *rt) {
  bool expand = rt->rank > v->type->rank;
  uint32_t n = expand ? v->type->rank : rt->rank;
  kiln_named_attr e[2] = {{kiln_intern_cstr(b->ctx, "reassociation"), reassociation(b->ctx, groups, n)},
                          {kiln_intern_cstr(b->ctx, "static_output_shape"),
                           kiln_attr_dense_i64_array(b->ctx, rt->rank, rt->shape)}};
  return kiln_op_result(kiln_build(b, expand ? KILN_OP_TENSOR_EXPAND_SHAPE : KILN_OP_TENSOR_COLLAPSE_SHAPE,
                                   1, &v, 1, &rt, kiln_attr_dict(b->ctx, expand ? 2 : 1, e)), 0);
}

/* Is op a static expand (collapse) of T(a, q)? g: the groups of the
 * expanded side's dims (merge_groups). */
static bool static_view_of_transpose(kiln_op *op, bool expand, kiln_value **a, perm *q, uint32_t *g) {
  if (op->num_operands != 1 || op->num_results != 1 || !transposed(kiln_op_operand(op, 0), a, q))
    return false;
  const kiln_type *t = kiln_op_operand(op, 0)->type, *rt = op->results[0].type;
  return expand ? rt->rank > t->rank && merge_groups(rt, t, g)
                : rt->rank < t->rank && merge_groups(t, rt, g);
}

/* expand(T(a, q)) = T(expand'(a), q'): each dim of a splits as the dim of
 * T(a, q) it becomes; q' keeps each group's dims in order. */
static bool expand_through(kiln_op *op) {
  kiln_value *a;
  perm q;
  uint32_t g[KILN_MAX_LOOPS + 1];
  if (!static_view_of_transpose(op, true, &a, &q, g)) return false;
  const kiln_type *rt = op->results[0].type;
  kiln_context *ctx = kiln_op_context(op);
  uint32_t qi[KILN_MAX_LOOPS], off[KILN_MAX_LOOPS], ag[KILN_MAX_LOOPS + 1], n = 0;
  int64_t shape[KILN_MAX_LOOPS], np[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < q.rank; i++) qi[q.p[i]] = i;
  for (uint32_t k = 0; k < q.rank; k++) {
    uint32_t i = qi[k];
    off[k] = ag[k] = n;
    for (uint32_t r = g[i]; r < g[i + 1]; r++) shape[n++] = rt->shape[r];
  }
  ag[q.rank] = n;
  for (uint32_t i = 0; i < q.rank; i++)
    for (uint32_t r = g[i]; r < g[i + 1]; r++) np[r] = off[q.p[i]] + (r - g[i]);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *e = build_reshape(&b, a, ag, kiln_type_with_shape(ctx, rt, n, shape));
  return replace(op, build_transpose(&b, e, np));
}

/* collapse(T(a, q)) where each merged group's dims are consecutive dims of
 * a (in any order): T1 puts each group's dims in the group's order in
 * place, the collapse merges them, and T2 orders the merged dims:
 * T2(collapse'(T1(a))). T1 is the identity unless the view reorders
 * data (the shuffle); T2 goes on down. */
static bool collapse_through(kiln_op *op) {
  kiln_value *a;
  perm q;
  uint32_t g[KILN_MAX_LOOPS + 1];
  if (!static_view_of_transpose(op, false, &a, &q, g)) return false;
  const kiln_type *rt = op->results[0].type;
  uint32_t m = rt->rank;
  int64_t lo[KILN_MAX_LOOPS], p1[KILN_MAX_LOOPS], q2[KILN_MAX_LOOPS], shape[KILN_MAX_LOOPS];
  for (uint32_t j = 0; j < m; j++) {
    int64_t mn = q.p[g[j]], mx = q.p[g[j]];
    for (uint32_t i = g[j]; i < g[j + 1]; i++) mn = q.p[i] < mn ? q.p[i] : mn, mx = q.p[i] > mx ? q.p[i] : mx;
    if (mx - mn + 1 != (int64_t)(g[j + 1] - g[j])) return false;
    lo[j] = mn;
    for (uint32_t i = g[j]; i < g[j + 1]; i++) p1[mn + (i - g[j])] = q.p[i];
  }
  /* the merged groups in a's order: group j becomes dim q2[j] */
  uint32_t cg[KILN_MAX_LOOPS + 1];
  bool id = true;
  for (uint32_t j = 0; j < m; j++) {
    uint32_t r = 0;
    for (uint32_t k = 0; k < m; k++) r += lo[k] < lo[j];
    q2[j] = r, shape[r] = rt->shape[j], cg[r] = (uint32_t)lo[j];
    id = id && r == j;
  }
  if (id) return false; /* nothing moves below: T(a, q) stays where it is */
  cg[m] = q.rank;
  kiln_context *ctx = kiln_op_context(op);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *t1 = build_transpose(&b, a, p1);
  kiln_value *c = build_reshape(&b, t1, cg, kiln_type_with_shape(ctx, rt, m, shape));
  return replace(op, build_transpose(&b, c, q2));
}

/* ---- extract_slice (static, same rank): slice a, T below it ---- */
static bool slice_through(kiln_op *op) {
  kiln_value *a;
  perm q;
  if (op->num_operands != 1 || op->num_results != 1 || !transposed(kiln_op_operand(op, 0), &a, &q) ||
      op->results[0].type->rank != q.rank)
    return false;
  const char *names[3] = {"static_offsets", "static_sizes", "static_strides"};
  kiln_context *ctx = kiln_op_context(op);
  const kiln_attr *attrs = op->attrs;
  int64_t v[KILN_MAX_LOOPS], s[KILN_MAX_LOOPS];
  for (int k = 0; k < 3; k++) {
    const kiln_attr *x = kiln_op_get_attr(op, names[k]);
    if (!x || x->kind != KILN_ATTR_DENSE_ARRAY || x->count != q.rank) return false;
    for (uint32_t i = 0; i < q.rank; i++) {
      int64_t e = ((const int64_t *)x->data)[i];
      if (e < 0) return false; /* a run-time entry */
      v[q.p[i]] = e;
      if (k == 1) s[q.p[i]] = e;
    }
    attrs = kiln_dict_set(ctx, attrs, names[k], kiln_attr_dense_i64_array(ctx, q.rank, v));
  }
  const kiln_type *rt = kiln_type_with_shape(ctx, a->type, q.rank, s);
  kiln_op *ns = kiln_op_create(ctx, KILN_OP_TENSOR_EXTRACT_SLICE, op->loc, 1, &a, 1, &rt, attrs, 0);
  kiln_block_insert_before(op, ns);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  return replace(op, build_transpose(&b, kiln_op_result(ns, 0), q.p));
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
  case KILN_OP_TENSOR_EXPAND_SHAPE: return reshape(op) || expand_through(op);
  case KILN_OP_TENSOR_COLLAPSE_SHAPE: return reshape(op) || collapse_through(op);
  case KILN_OP_FLOW_TENSOR_RESHAPE: return reshape(op);
  case KILN_OP_TENSOR_EXTRACT_SLICE: return slice_through(op);
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
  for (kiln_op *op = body->first; op;) {
    kiln_op *next = op->next;
    if (op->kind == KILN_OP_TENSOR_PAD)
      while (merge_pads(op)) {
      }
    for (kiln_op *t = op; t && t->kind == KILN_OP_LINALG_TRANSPOSE;) t = hoist_pad(t);
    op = next;
  }
  erase_dead(body);
}

kiln_error *kiln_flow_pass_propagate_transposes(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "propagate-transposes", propagate_in, NULL);
}
