/* split-into-bands: a large value that a 1x1 convolution produces and a
 * windowed op (depthwise convolution, pool) reads through a pad is
 * computed one horizontal band at a time.
 *
 * Takes: host functions after share-pads and sink-reshapes. The pattern,
 * NHWC, static shapes, every link the single reader of the one before:
 *   x -> linalg.conv_2d_nhwc_hwcf, 1x1 filter, stride 1 (rows map to rows)
 *     -> all-parallel generics reading it through the identity map, other
 *        inputs not varying along H (per-channel bias, BN, clamps)
 *     -> tensor.pad by static amounts of H and W only, constant value
 *     -> linalg.depthwise_conv_2d_nhwc_hwc or pooling_nhwc_max/sum,
 *        window extent ek = (kh-1)*dh+1 >= stride sh
 *     -> all-parallel generics like the first ones (its epilogue).
 * The padded value must hold at least BANDS_MIN_BYTES; it is split into
 * B bands of consumer output rows [o0, o1), B chosen so a band's padded
 * value holds about BANDS_TARGET_BYTES, at most BANDS_MAX, and the rows
 * recomputed at the boundaries (ek - sh per boundary) stay within 1/8 of
 * H. Each band slices the producer's input rows its window needs (halo
 * included), runs the producer and its chain on them, pads with its
 * share of the original padding (rows outside the padded interior become
 * pad rows only at the top of the first band and the bottom of the last)
 * and runs the consumer and its epilogue; a tensor.concat along H joins
 * the bands. Guarantees: the same values element for element (each
 * output row reads exactly the rows it read before); the bands follow
 * one another in program order, so plan-memory's liveness lets band b+1
 * reuse band b's arena bytes, form-dispatch-regions reads the slices as
 * views of x and puts each band's pad in its producer's dispatch, and
 * place-concats has each band's last dispatch write its rows of the
 * concat in place. Why: the full padded value (MobileNetV2's expanded
 * 112x112x96 f32, 4.8 MB) sets the transient arena's peak, and a fresh
 * arena's first call pays for faulting in every page of it. Each band
 * costs two dispatches and its halo rows: banding MobileNetV2's 1.9 MB
 * values as well (1.5 MiB threshold, 1 MiB bands: arena 3.3 MB) cost its
 * steady call about 5%, these limits (arena 4.0 MB) nothing measurable. */
#include "fl_internal.h"

#define BANDS_MIN_BYTES ((int64_t)2 << 20)
#define BANDS_TARGET_BYTES ((int64_t)3 << 19)
#define BANDS_MAX 8
#define BANDS_CHAIN_MAX 8

typedef struct {
  kiln_op *conv, *pad, *win;
  kiln_op *pre[BANDS_CHAIN_MAX], *post[BANDS_CHAIN_MAX];
  uint32_t npre, npost;
} bd_pattern;

static bool uses_dim(const kiln_affine_expr *e, int64_t d) {
  if (!e) return false;
  if (e->kind == KILN_AFFINE_DIM) return e->value == d;
  return uses_dim(e->lhs, d) || uses_dim(e->rhs, d);
}

static bool static4(const kiln_type *t) {
  return fl_is_static_tensor(t) && t->rank == 4;
}

/* An init the band can rebuild at its own shape: tensor.empty, or a fill
 * of one. */
static bool rebuildable_init(kiln_value *v) {
  kiln_op *d = v->def;
  if (!d) return false;
  if (d->kind == KILN_OP_TENSOR_EMPTY) return d->num_operands == 0;
  if (d->kind != KILN_OP_LINALG_FILL || d->num_operands != 2 || d->num_results != 1) return false;
  kiln_op *e = kiln_op_operand(d, 1)->def;
  return e && e->kind == KILN_OP_TENSOR_EMPTY && e->num_operands == 0;
}

/* Is g an all-parallel generic over 4 loops reading v (its single use)
 * through the identity map into a fresh tensor of v's shape, no other
 * input varying along H (loop 1)? */
static bool chain_link(kiln_op *g, kiln_value *v) {
  if (g->kind != KILN_OP_LINALG_GENERIC || g->num_results != 1 || !fl_all_parallel(g) ||
      !kiln_value_has_one_use(v) || kiln_linalg_num_outputs(g) != 1 ||
      g->results[0].type != v->type)
    return false;
  const kiln_affine_map *maps[KILN_MAX_LOOPS + 8];
  if (g->num_operands > KILN_MAX_LOOPS + 8 || fl_iteration(g, NULL, maps, NULL) != 4) return false;
  uint32_t nin = kiln_linalg_num_inputs(g);
  kiln_value *init = kiln_op_operand(g, nin);
  if (!init->def || init->def->kind != KILN_OP_TENSOR_EMPTY || init->def->num_operands ||
      !kiln_affine_map_is_identity(maps[nin]))
    return false;
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *in = kiln_op_operand(g, i);
    if (in == v) {
      if (!kiln_affine_map_is_identity(maps[i])) return false;
      continue;
    }
    for (uint32_t r = 0; r < maps[i]->num_results; r++)
      if (uses_dim(maps[i]->results[r], 1)) return false;
  }
  return true;
}

static const int64_t *i64s(const kiln_op *op, const char *name, uint32_t n) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_DENSE_ARRAY && a->count == n ? a->data : NULL;
}

static bool match(kiln_op *win, bd_pattern *p) {
  *p = (bd_pattern){.win = win};
  if (win->num_operands != 3 || win->num_results != 1 || !static4(win->results[0].type) ||
      !rebuildable_init(kiln_op_operand(win, 2)))
    return false;
  kiln_value *pv = kiln_op_operand(win, 0);
  kiln_op *pad = pv->def;
  if (!pad || pad->kind != KILN_OP_TENSOR_PAD || pad->parent != win->parent || pad->num_operands != 1 ||
      !kiln_value_has_one_use(pv) || !static4(pv->type))
    return false;
  const int64_t *lo = i64s(pad, "static_low", 4), *hi = i64s(pad, "static_high", 4);
  kiln_block *pb = pad->regions[0].first;
  if (!lo || !hi || lo[0] || hi[0] || lo[3] || hi[3] || !pb) return false;
  for (uint32_t d = 1; d < 3; d++)
    if (lo[d] < 0 || hi[d] < 0) return false;
  for (uint32_t i = 0; i < pb->num_args; i++)
    if (kiln_value_has_uses(pb->args[i])) return false;
  p->pad = pad;
  /* the chain between producer and pad, walked upwards */
  kiln_value *v = kiln_op_operand(pad, 0);
  kiln_op *rev[BANDS_CHAIN_MAX];
  uint32_t n = 0;
  while (v->def && v->def->kind == KILN_OP_LINALG_GENERIC) {
    kiln_op *g = v->def;
    if (n == BANDS_CHAIN_MAX || !kiln_value_has_one_use(v) || g->parent != win->parent) return false;
    /* which input carries the chain: the one of the result's shape that
     * a producer in the pattern makes */
    kiln_value *up = NULL;
    for (uint32_t i = 0; i < kiln_linalg_num_inputs(g); i++) {
      kiln_value *in = kiln_op_operand(g, i);
      if (in->type == v->type && in->def &&
          (in->def->kind == KILN_OP_LINALG_GENERIC || in->def->kind == KILN_OP_LINALG_CONV_2D_NHWC_HWCF))
        up = up ? NULL : in;
    }
    if (!up || !chain_link(g, up)) return false;
    rev[n++] = g;
    v = up;
  }
  for (uint32_t i = 0; i < n; i++) p->pre[i] = rev[n - 1 - i];
  p->npre = n;
  kiln_op *conv = v->def;
  if (!conv || conv->kind != KILN_OP_LINALG_CONV_2D_NHWC_HWCF || conv->parent != win->parent ||
      conv->num_operands != 3 || !kiln_value_has_one_use(v) || !static4(v->type) ||
      !rebuildable_init(kiln_op_operand(conv, 2)))
    return false;
  const kiln_type *xt = kiln_op_operand(conv, 0)->type, *ft = kiln_op_operand(conv, 1)->type;
  int64_t st[2];
  if (!static4(xt) || !static4(ft) || ft->shape[0] != 1 || ft->shape[1] != 1 || !fl_pair_attr(conv, "strides", st) ||
      st[0] != 1 || st[1] != 1 || xt->shape[1] != v->type->shape[1] || xt->shape[2] != v->type->shape[2])
    return false;
  p->conv = conv;
  /* the consumer's epilogue */
  v = kiln_op_result(win, 0);
  while (p->npost < BANDS_CHAIN_MAX && kiln_value_has_one_use(v)) {
    kiln_op *g = v->uses->owner;
    if (g->parent != win->parent || !chain_link(g, v)) break;
    p->post[p->npost++] = g;
    v = kiln_op_result(g, 0);
  }
  return true;
}

/* A clone of op at b's point, its result retyped to shape. */
static kiln_value *clone_as(kiln_context *ctx, kiln_op *op, kiln_value_map *vm, kiln_op *before,
                            const int64_t *shape) {
  kiln_op *c = kiln_op_clone(op, vm);
  kiln_block_insert_before(before, c);
  kiln_value *r = kiln_op_result(c, 0);
  kiln_value_set_type(r, kiln_type_with_shape(ctx, r->type, 4, shape));
  return r;
}

/* The band's own init for op's output operand i, at the band's shape. */
static void clone_init(kiln_context *ctx, kiln_op *op, uint32_t i, kiln_value_map *vm, kiln_op *before,
                       const int64_t *shape) {
  kiln_op *d = kiln_op_operand(op, i)->def;
  if (d->kind == KILN_OP_LINALG_FILL) clone_as(ctx, kiln_op_operand(d, 1)->def, vm, before, shape);
  clone_as(ctx, d, vm, before, shape);
}

static kiln_value *slice_rows(kiln_context *ctx, kiln_value *x, int64_t r0, int64_t rows, kiln_op *before,
                              kiln_loc loc) {
  const kiln_type *xt = x->type;
  int64_t off[4] = {0, r0, 0, 0}, sz[4] = {xt->shape[0], rows, xt->shape[2], xt->shape[3]}, one[4] = {1, 1, 1, 1};
  /* a slice of a static unit-stride slice reads the source directly, so
   * the view still joins its reader's dispatch */
  kiln_op *s = x->def;
  const int64_t *so, *ss;
  if (s && s->kind == KILN_OP_TENSOR_EXTRACT_SLICE && s->num_operands == 1 &&
      (so = i64s(s, "static_offsets", 4)) && (ss = i64s(s, "static_strides", 4)) &&
      static4(kiln_op_operand(s, 0)->type) && ss[0] == 1 && ss[1] == 1 && ss[2] == 1 && ss[3] == 1) {
    for (uint32_t d = 0; d < 4; d++) off[d] += so[d];
    x = kiln_op_operand(s, 0);
  }
  const kiln_type *rt = kiln_type_with_shape(ctx, xt, 4, sz);
  int64_t seg[4] = {1, 0, 0, 0};
  const kiln_attr *attrs = kiln_attr_dict(ctx, 0, NULL);
  attrs = kiln_dict_set(ctx, attrs, "operandSegmentSizes",
                        kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 4, seg, NULL));
  attrs = kiln_dict_set(ctx, attrs, "static_offsets", kiln_attr_dense_i64_array(ctx, 4, off));
  attrs = kiln_dict_set(ctx, attrs, "static_sizes", kiln_attr_dense_i64_array(ctx, 4, sz));
  attrs = kiln_dict_set(ctx, attrs, "static_strides", kiln_attr_dense_i64_array(ctx, 4, one));
  kiln_op *op = kiln_op_create(ctx, KILN_OP_TENSOR_EXTRACT_SLICE, loc, 1, &x, 1, &rt, attrs, 0);
  kiln_block_insert_before(before, op);
  return kiln_op_result(op, 0);
}

static void erase_dead(kiln_op *op) {
  if (!op || op->num_results != 1 || kiln_value_has_uses(kiln_op_result(op, 0))) return;
  kiln_op *init = op->kind == KILN_OP_LINALG_FILL ? kiln_op_operand(op, 1)->def : NULL;
  kiln_op_erase(op);
  erase_dead(init);
}

static void split(kiln_context *ctx, bd_pattern *p) {
  kiln_op *pad = p->pad, *win = p->win, *conv = p->conv;
  const kiln_type *pt = pad->results[0].type, *ot = win->results[0].type;
  const kiln_type *vt = kiln_op_operand(pad, 0)->type, *ft = kiln_op_operand(win, 1)->type;
  int64_t st[2], dl[2];
  if (!fl_pair_attr(win, "strides", st) || !fl_pair_attr(win, "dilations", dl) || ft->rank < 2 ||
      !fl_is_static_tensor(ft))
    return;
  const int64_t ek = (ft->shape[0] - 1) * dl[0] + 1, sh = st[0], H = vt->shape[1], OH = ot->shape[1];
  if (ek < sh || OH < 2) return;
  int64_t esz = kiln_dense_elem_size(pt->elem);
  int64_t bytes = esz;
  for (uint32_t d = 0; d < 4; d++) bytes *= pt->shape[d];
  if (esz <= 0 || bytes < BANDS_MIN_BYTES) return;
  int64_t B = (bytes + BANDS_TARGET_BYTES - 1) / BANDS_TARGET_BYTES;
  if (B > BANDS_MAX) B = BANDS_MAX;
  if (B > OH) B = OH;
  while (B >= 2 && (B - 1) * (ek - sh) * 8 > H) B--;
  if (B < 2) return;
  const int64_t q = (OH + B - 1) / B;
  B = (OH + q - 1) / q;
  const int64_t *lo = i64s(pad, "static_low", 4), *hi = i64s(pad, "static_high", 4);
  /* every band must read at least one row of the interior */
  for (int64_t b = 0; b < B; b++) {
    int64_t o0 = b * q, o1 = o0 + q < OH ? o0 + q : OH;
    int64_t a = o0 * sh - lo[1], e = (o1 - 1) * sh + ek - lo[1];
    if ((a > 0 ? a : 0) >= (e < H ? e : H)) return;
  }
  kiln_op *last = p->npost ? p->post[p->npost - 1] : win;
  kiln_value *x = kiln_op_operand(conv, 0);
  kiln_value *pieces[BANDS_MAX];
  kiln_value_map vm = {0};
  for (int64_t b = 0; b < B; b++) {
    vm.count = 0;
    int64_t o0 = b * q, o1 = o0 + q < OH ? o0 + q : OH;
    int64_t a = o0 * sh - lo[1], e = (o1 - 1) * sh + ek - lo[1];
    int64_t r0 = a > 0 ? a : 0, r1 = e < H ? e : H;
    int64_t top = r0 - a, bot = e - r1;
    kiln_value_map_add(ctx, &vm, x, slice_rows(ctx, x, r0, r1 - r0, last, conv->loc));
    int64_t vs[4] = {vt->shape[0], r1 - r0, vt->shape[2], vt->shape[3]};
    clone_init(ctx, conv, 2, &vm, last, vs);
    clone_as(ctx, conv, &vm, last, vs);
    for (uint32_t i = 0; i < p->npre; i++) {
      clone_init(ctx, p->pre[i], kiln_linalg_num_inputs(p->pre[i]), &vm, last, vs);
      clone_as(ctx, p->pre[i], &vm, last, vs);
    }
    int64_t ps[4] = {pt->shape[0], top + (r1 - r0) + bot, pt->shape[2], pt->shape[3]};
    kiln_value *np = clone_as(ctx, pad, &vm, last, ps);
    int64_t nlo[4] = {0, top, lo[2], 0}, nhi[4] = {0, bot, hi[2], 0};
    kiln_op_set_attr(np->def, "static_low", kiln_attr_dense_i64_array(ctx, 4, nlo));
    kiln_op_set_attr(np->def, "static_high", kiln_attr_dense_i64_array(ctx, 4, nhi));
    int64_t os[4] = {ot->shape[0], o1 - o0, ot->shape[2], ot->shape[3]};
    clone_init(ctx, win, 2, &vm, last, os);
    kiln_value *piece = clone_as(ctx, win, &vm, last, os);
    for (uint32_t i = 0; i < p->npost; i++) {
      clone_init(ctx, p->post[i], kiln_linalg_num_inputs(p->post[i]), &vm, last, os);
      piece = clone_as(ctx, p->post[i], &vm, last, os);
    }
    pieces[b] = piece;
  }
  kiln_named_attr da = {kiln_intern_cstr(ctx, "dim"), kiln_attr_int(ctx, kiln_type_int(ctx, 64), 1)};
  const kiln_type *rt = last->results[0].type;
  kiln_op *cat = kiln_op_create(ctx, KILN_OP_TENSOR_CONCAT, last->loc, (uint32_t)B, pieces, 1, &rt,
                                kiln_attr_dict(ctx, 1, &da), 0);
  kiln_block_insert_before(last, cat);
  kiln_value_replace_all_uses(kiln_op_result(last, 0), kiln_op_result(cat, 0));
  /* the old ops, last reader first, then their inits */
  for (uint32_t i = p->npost; i-- > 0;) {
    kiln_op *init = kiln_op_operand(p->post[i], kiln_linalg_num_inputs(p->post[i]))->def;
    kiln_op_erase(p->post[i]);
    erase_dead(init);
  }
  kiln_op *init = kiln_op_operand(win, 2)->def;
  kiln_op_erase(win);
  erase_dead(init);
  kiln_op_erase(pad);
  for (uint32_t i = p->npre; i-- > 0;) {
    init = kiln_op_operand(p->pre[i], kiln_linalg_num_inputs(p->pre[i]))->def;
    kiln_op_erase(p->pre[i]);
    erase_dead(init);
  }
  init = kiln_op_operand(conv, 2)->def;
  kiln_op_erase(conv);
  erase_dead(init);
}

static void split_op(kiln_context *ctx, kiln_op *op, kiln_op **next, void *user) {
  (void)user;
  if (op->kind != KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC && op->kind != KILN_OP_LINALG_POOLING_NHWC_MAX &&
      op->kind != KILN_OP_LINALG_POOLING_NHWC_SUM)
    return;
  bd_pattern p;
  if (!match(op, &p)) return;
  /* the walk goes on after the rewritten pattern (its last op's next) */
  kiln_op *last = p.npost ? p.post[p.npost - 1] : op;
  *next = last->next;
  split(ctx, &p);
}

kiln_error *kiln_flow_pass_split_bands(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_op(module, "split-into-bands", split_op, NULL);
}
