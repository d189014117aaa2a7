/* NonMaxSuppression: greedy box selection, one sequential kernel.
 *
 * Takes: a NonMaxSuppression node (opsets 10-17) with f32 boxes [B, N, 4]
 * and scores [B, C, N] of static shape in the top-level graph; the three
 * optional scalar inputs (max_output_boxes_per_class, iou_threshold,
 * score_threshold) may be constants or run-time tensors of one element.
 * Guarantees: selected_indices [K, 3] (batch, class, box) with ONNX
 * Runtime's rules: per (batch, class), repeatedly the live box of highest
 * score (the lowest index among equal scores) with a score above
 * score_threshold (when given) is selected, and every live box whose IoU
 * with it exceeds iou_threshold is removed; at most
 * clamp(max_output_boxes_per_class, 0, N) boxes per class (absent: 0);
 * corners are min/max of the two given (center_point_box = 0) or
 * center +- half the size (1); a box of zero area overlaps nothing.
 * Selection is inherently sequential, so it is one scf.for nest over
 * tensors (batch, class, pick; inner scans over the N boxes: argmax, then
 * removal), which becomes one dispatch: O(B * C * min(K, N) * N) work.
 * It writes the picks densely into a [B*C*N, 3] table and their count
 * into a 1-element tensor; the host reads the count (oi_host_read: the
 * plan-memory phase mechanism) and the output is the table's first K
 * rows. Run-time dims of boxes/scores, other element types and use
 * inside a subgraph are refused (kind "dynamic" or "type"). */
#include "import_internal.h"

typedef struct nms {
  oi_ctx *c;
  kiln_builder *b;
  kiln_value *boxes, *scores, *maxout, *iou, *sthr; /* sthr NULL: no threshold */
  bool center;
  int64_t nb, nc, nn;
  const kiln_type *f32, *i64, *idx;
} nms;

static kiln_value *cst_i(kiln_builder *b, const kiln_type *t, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(b->ctx, t, v));
}

static kiln_value *cst_f(kiln_builder *b, double v) {
  return kiln_build_constant(b, kiln_attr_float(b->ctx, kiln_type_f32(b->ctx), v));
}

/* The single element of a rank-0 or 1-element tensor. */
static kiln_value *only(nms *s, kiln_value *t) {
  kiln_value *z[OI_MAX_RANK];
  kiln_value *zero = cst_i(s->b, s->idx, 0);
  for (uint32_t d = 0; d < t->type->rank; d++) z[d] = zero;
  return oi_extract(s->b, t, t->type->rank, z);
}

static kiln_value *cast(kiln_builder *b, kiln_op_kind k, kiln_value *x, const kiln_type *t) {
  return kiln_op_result(kiln_build(b, k, 1, &x, 1, &t, NULL), 0);
}

static kiln_value *op2(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) { return oi_op2(b, k, x, y); }

/* Corners (ymin, xmin, ymax, xmax) of box i of batch bi. */
static void corners(nms *s, kiln_builder *b, kiln_value *bi, kiln_value *i, kiln_value *out[4]) {
  kiln_value *v[4];
  for (int k = 0; k < 4; k++) {
    kiln_value *ix[3] = {bi, i, cst_i(b, s->idx, k)};
    v[k] = oi_extract(b, s->boxes, 3, ix);
  }
  if (s->center) { /* [x_center, y_center, width, height] */
    kiln_value *half = cst_f(b, 0.5);
    kiln_value *hw = op2(b, KILN_OP_ARITH_MULF, v[2], half);
    kiln_value *hh = op2(b, KILN_OP_ARITH_MULF, v[3], half);
    out[0] = op2(b, KILN_OP_ARITH_SUBF, v[1], hh);
    out[1] = op2(b, KILN_OP_ARITH_SUBF, v[0], hw);
    out[2] = op2(b, KILN_OP_ARITH_ADDF, v[1], hh);
    out[3] = op2(b, KILN_OP_ARITH_ADDF, v[0], hw);
  } else { /* [y1, x1, y2, x2], either diagonal */
    out[0] = op2(b, KILN_OP_ARITH_MINIMUMF, v[0], v[2]);
    out[1] = op2(b, KILN_OP_ARITH_MINIMUMF, v[1], v[3]);
    out[2] = op2(b, KILN_OP_ARITH_MAXIMUMF, v[0], v[2]);
    out[3] = op2(b, KILN_OP_ARITH_MAXIMUMF, v[1], v[3]);
  }
}

static kiln_value *area(kiln_builder *b, kiln_value *const q[4]) {
  kiln_value *h = op2(b, KILN_OP_ARITH_SUBF, q[2], q[0]);
  kiln_value *w = op2(b, KILN_OP_ARITH_SUBF, q[3], q[1]);
  return op2(b, KILN_OP_ARITH_MULF, h, w);
}

/* IoU(p, q) > thr, false for disjoint boxes and empty areas/unions. */
static kiln_value *overlaps(nms *s, kiln_builder *b, kiln_value *const p[4], kiln_value *pa, kiln_value *const q[4],
                            kiln_value *thr) {
  (void)s;
  kiln_value *y0 = op2(b, KILN_OP_ARITH_MAXIMUMF, p[0], q[0]);
  kiln_value *x0 = op2(b, KILN_OP_ARITH_MAXIMUMF, p[1], q[1]);
  kiln_value *y1 = op2(b, KILN_OP_ARITH_MINIMUMF, p[2], q[2]);
  kiln_value *x1 = op2(b, KILN_OP_ARITH_MINIMUMF, p[3], q[3]);
  kiln_value *zero = cst_f(b, 0);
  kiln_value *ok = oi_cmpf(b, OI_F_OGT, y1, y0);
  kiln_value *okx = oi_cmpf(b, OI_F_OGT, x1, x0);
  ok = op2(b, KILN_OP_ARITH_ANDI, ok, okx);
  kiln_value *ih = op2(b, KILN_OP_ARITH_SUBF, y1, y0);
  kiln_value *iw = op2(b, KILN_OP_ARITH_SUBF, x1, x0);
  kiln_value *inter = op2(b, KILN_OP_ARITH_MULF, ih, iw);
  kiln_value *qa = area(b, q);
  kiln_value *pos_p = oi_cmpf(b, OI_F_OGT, pa, zero);
  kiln_value *pos_q = oi_cmpf(b, OI_F_OGT, qa, zero);
  ok = op2(b, KILN_OP_ARITH_ANDI, ok, pos_p);
  ok = op2(b, KILN_OP_ARITH_ANDI, ok, pos_q);
  kiln_value *sum = op2(b, KILN_OP_ARITH_ADDF, pa, qa);
  kiln_value *uni = op2(b, KILN_OP_ARITH_SUBF, sum, inter);
  kiln_value *pos_u = oi_cmpf(b, OI_F_OGT, uni, zero);
  ok = op2(b, KILN_OP_ARITH_ANDI, ok, pos_u);
  kiln_value *iou = op2(b, KILN_OP_ARITH_DIVF, inter, uni);
  kiln_value *big = oi_cmpf(b, OI_F_OGT, iou, thr);
  return op2(b, KILN_OP_ARITH_ANDI, ok, big);
}

/* One pick of class (bi, ci): the live box of highest score, then (when
 * there is one) its row in the table and the removal of its overlaps.
 * st[0..2] = table, removed flags, count; returns them updated. */
static void pick(nms *s, kiln_builder *b, kiln_value *bi, kiln_value *ci, kiln_value *const *st, kiln_value **res) {
  kiln_value *zero = cst_i(b, s->idx, 0), *n = cst_i(b, s->idx, s->nn);
  /* argmax over live boxes: (best index as i64, -1 for none; its score) */
  kiln_value *init[2];
  init[0] = cst_i(b, s->i64, -1);
  init[1] = cst_f(b, 0);
  kiln_builder lb;
  kiln_value *i, *acc[2];
  kiln_op *scan = oi_for(b, zero, n, 2, init, &lb, &i, acc);
  {
    kiln_value *ix[3] = {bi, ci, i};
    kiln_value *sc = oi_extract(&lb, s->scores, 3, ix);
    kiln_value *rm = oi_extract(&lb, st[1], 3, ix);
    kiln_value *live = oi_cmpi(&lb, OI_EQ, rm, cst_i(&lb, s->i64, 0));
    if (s->sthr) {
      kiln_value *above = oi_cmpf(&lb, OI_F_OGT, sc, s->sthr);
      live = op2(&lb, KILN_OP_ARITH_ANDI, live, above);
    }
    kiln_value *none = oi_cmpi(&lb, OI_SLT, acc[0], cst_i(&lb, s->i64, 0));
    kiln_value *better = oi_cmpf(&lb, OI_F_OGT, sc, acc[1]);
    kiln_value *take = op2(&lb, KILN_OP_ARITH_ORI, none, better);
    take = op2(&lb, KILN_OP_ARITH_ANDI, live, take);
    kiln_value *i64 = cast(&lb, KILN_OP_ARITH_INDEX_CAST, i, s->i64);
    kiln_value *y[2];
    y[0] = oi_select(&lb, take, i64, acc[0]);
    y[1] = oi_select(&lb, take, sc, acc[1]);
    oi_set_yield(scan, 0, 2, y);
  }
  kiln_value *best = kiln_op_result(scan, 0);
  kiln_value *found = oi_cmpi(b, OI_SGE, best, cst_i(b, s->i64, 0));
  const kiln_type *rt[3] = {st[0]->type, st[1]->type, st[2]->type};
  kiln_op *br = kiln_build(b, KILN_OP_SCF_IF, 1, &found, 3, rt, NULL);
  kiln_block *tb = kiln_op_entry_block(b->ctx, br, 0), *eb = kiln_op_entry_block(b->ctx, br, 1);
  kiln_builder eb_b = kiln_builder_at_end(b->ctx, eb);
  eb_b.loc = b->loc;
  kiln_build(&eb_b, KILN_OP_SCF_YIELD, 3, st, 0, NULL, NULL);
  kiln_builder t = kiln_builder_at_end(b->ctx, tb);
  t.loc = b->loc;
  /* the table's next row: (batch, class, box) */
  kiln_value *c0 = cst_i(&t, s->idx, 0);
  kiln_value *w64 = oi_extract(&t, st[2], 1, &c0);
  kiln_value *w = cast(&t, KILN_OP_ARITH_INDEX_CAST, w64, s->idx);
  kiln_value *row[3];
  row[0] = cast(&t, KILN_OP_ARITH_INDEX_CAST, bi, s->i64);
  row[1] = cast(&t, KILN_OP_ARITH_INDEX_CAST, ci, s->i64);
  row[2] = best;
  kiln_value *table = st[0];
  for (int k = 0; k < 3; k++) {
    kiln_value *ix[2] = {w, cst_i(&t, s->idx, k)};
    table = oi_insert(&t, row[k], table, 2, ix);
  }
  kiln_value *w1 = op2(&t, KILN_OP_ARITH_ADDI, w64, cst_i(&t, s->i64, 1));
  kiln_value *count = oi_insert(&t, w1, st[2], 1, &c0);
  /* removal: the pick itself and every box overlapping it */
  kiln_value *bidx = cast(&t, KILN_OP_ARITH_INDEX_CAST, best, s->idx);
  kiln_value *p[4];
  corners(s, &t, bi, bidx, p);
  kiln_value *pa = area(&t, p);
  kiln_builder rb;
  kiln_value *j, *rm;
  kiln_value *nt = cst_i(&t, s->idx, s->nn), *zt = cst_i(&t, s->idx, 0);
  kiln_op *sweep = oi_for(&t, zt, nt, 1, &st[1], &rb, &j, &rm);
  {
    kiln_value *q[4];
    corners(s, &rb, bi, j, q);
    kiln_value *hit = overlaps(s, &rb, p, pa, q, s->iou);
    kiln_value *self = oi_cmpi(&rb, OI_EQ, j, bidx);
    hit = op2(&rb, KILN_OP_ARITH_ORI, hit, self);
    kiln_value *ix[3] = {bi, ci, j};
    kiln_value *old = oi_extract(&rb, rm, 3, ix);
    kiln_value *v = oi_select(&rb, hit, cst_i(&rb, s->i64, 1), old);
    kiln_value *nr = oi_insert(&rb, v, rm, 3, ix);
    oi_set_yield(sweep, 0, 1, &nr);
  }
  kiln_value *removed = kiln_op_result(sweep, 0);
  kiln_value *ty[3] = {table, removed, count};
  kiln_build(&t, KILN_OP_SCF_YIELD, 3, ty, 0, NULL, NULL);
  for (int k = 0; k < 3; k++) res[k] = kiln_op_result(br, k);
}

/* The loop nest: batch, class, pick; returns (table, count). */
static void select_all(nms *s, kiln_value *table0, kiln_value *removed0, kiln_value *count0, kiln_value **table,
                       kiln_value **count) {
  kiln_builder *hb = s->b;
  kiln_value *zero = cst_i(hb, s->idx, 0), *nb = cst_i(hb, s->idx, s->nb);
  kiln_value *st0[3] = {table0, removed0, count0};
  kiln_builder bb, cb, kb;
  kiln_value *bi, *ci, *ki, *sb[3], *sc[3], *sk[3];
  kiln_op *lb = oi_for(hb, zero, nb, 3, st0, &bb, &bi, sb);
  /* scalars read inside the kernel (clamp(K, 0, N) picks per class) */
  s->b = &bb;
  kiln_value *kmax = cst_i(&bb, s->i64, 0);
  if (s->maxout) {
    kiln_value *k = only(s, s->maxout);
    kiln_value *lo = op2(&bb, KILN_OP_ARITH_MAXSI, k, kmax);
    kmax = op2(&bb, KILN_OP_ARITH_MINSI, lo, cst_i(&bb, s->i64, s->nn));
  }
  kiln_value *kidx = cast(&bb, KILN_OP_ARITH_INDEX_CAST, kmax, s->idx);
  kiln_value *iou = s->iou ? only(s, s->iou) : cst_f(&bb, 0);
  kiln_value *sthr = s->sthr ? only(s, s->sthr) : NULL;
  s->iou = iou, s->sthr = sthr;
  kiln_value *z1 = cst_i(&bb, s->idx, 0), *nc = cst_i(&bb, s->idx, s->nc);
  kiln_op *lc = oi_for(&bb, z1, nc, 3, sb, &cb, &ci, sc);
  kiln_value *z2 = cst_i(&cb, s->idx, 0);
  kiln_op *lk = oi_for(&cb, z2, kidx, 3, sc, &kb, &ki, sk);
  kiln_value *r[3];
  pick(s, &kb, bi, ci, sk, r);
  oi_set_yield(lk, 0, 3, r);
  kiln_value *rk[3] = {kiln_op_result(lk, 0), kiln_op_result(lk, 1), kiln_op_result(lk, 2)};
  oi_set_yield(lc, 0, 3, rk);
  kiln_value *rc[3] = {kiln_op_result(lc, 0), kiln_op_result(lc, 1), kiln_op_result(lc, 2)};
  oi_set_yield(lb, 0, 3, rc);
  s->b = hb;
  *table = kiln_op_result(lb, 0);
  *count = kiln_op_result(lb, 2);
}

/* A scalar input: present (a 1-element tensor of an allowed type) or
 * absent (NULL in *out). */
static bool scalar_in(oi_ctx *c, oi_node *n, size_t i, unsigned mask, const char *what, kiln_value **out) {
  *out = NULL;
  oi_val *v = oi_opt_in(n, i);
  if (!v) return true;
  if (!oi_check_type(c, v, mask, what)) return false;
  if (v->kind != OI_VAL_TENSOR || oi_has_dyn(v->type) || oi_numel(v->type) != 1)
    return oi_invalid(c, "%s must hold one element", what);
  *out = oi_ir(c, v);
  return *out != NULL;
}

bool oi_import_nms(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"center_point_box", NULL};
  if (!oi_arity(c, n, 2, 5, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *bx = oi_in(c, n, 0), *sc = bx ? oi_in(c, n, 1) : NULL;
  if (!sc) return false;
  if (bx->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT || sc->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "boxes and scores must be float (f32)");
  if (!oi_refuse_dyn_inputs(c, n, "the selection loops are sized at compile time")) return false;
  if (!oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the output's length is read by the host, which a subgraph cannot do");
  const kiln_type *bt = bx->type, *st = sc->type;
  if (bt->rank != 3 || bt->shape[2] != 4) return oi_invalid(c, "boxes must be [batch, boxes, 4]");
  if (st->rank != 3 || st->shape[0] != bt->shape[0] || st->shape[2] != bt->shape[1])
    return oi_invalid(c, "scores must be [batch, classes, boxes] matching boxes [%lld, %lld, 4]",
                      (long long)bt->shape[0], (long long)bt->shape[1]);
  int64_t center;
  if (!oi_attr_int(c, n, "center_point_box", 0, &center)) return false;
  if (center != 0 && center != 1) return oi_invalid(c, "center_point_box is %lld, must be 0 or 1", (long long)center);
  nms s = {.c = c, .b = &c->b, .center = center == 1, .nb = bt->shape[0], .nc = st->shape[1], .nn = bt->shape[1]};
  s.f32 = kiln_type_f32(c->ctx), s.i64 = kiln_type_int(c->ctx, 64), s.idx = kiln_type_index(c->ctx);
  if (!scalar_in(c, n, 2, OI_T_INT, "input 2 (max_output_boxes_per_class)", &s.maxout) ||
      !scalar_in(c, n, 3, OI_T_FLOAT, "input 3 (iou_threshold)", &s.iou) ||
      !scalar_in(c, n, 4, OI_T_FLOAT, "input 4 (score_threshold)", &s.sthr))
    return false;
  if ((s.maxout && s.maxout->type->elem != s.i64) || (s.iou && s.iou->type->elem != s.f32) ||
      (s.sthr && s.sthr->type->elem != s.f32))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "max_output_boxes_per_class must be int64 and the thresholds f32");
  s.boxes = oi_ir(c, bx), s.scores = oi_ir(c, sc);
  if (!s.boxes || !s.scores) return false;
  /* at most N picks per class: the table has B*C*N rows (>= 1) */
  int64_t rows = s.nb * s.nc * s.nn;
  if (rows < 1) rows = 1;
  int64_t tshape[2] = {rows, 3}, one = 1;
  kiln_value *table0 = oi_filled(c, kiln_type_tensor(c->ctx, 2, tshape, s.i64, NULL), 0, 0);
  kiln_value *removed0 = oi_filled(c, kiln_type_tensor(c->ctx, 3, st->shape, s.i64, NULL), 0, 0);
  kiln_value *count0 = oi_filled(c, kiln_type_tensor(c->ctx, 1, &one, s.i64, NULL), 0, 0);
  if (!table0 || !removed0 || !count0) return false;
  kiln_value *table, *count;
  select_all(&s, table0, removed0, count0, &table, &count);
  kiln_value *k = oi_host_read(c, count, 0);
  if (!k) return false;
  int64_t oshape[2] = {KILN_DYNAMIC, 3};
  kiln_value *dv[2] = {k, NULL};
  oi_check_shape(c, 2, oshape, dv, s.i64);
  kiln_value *zero = oi_index(c, 0);
  kiln_value *start[2] = {zero, zero};
  kiln_value *out = oi_read_window(c, table, oshape, &k, start);
  if (!out) return false;
  oi_set_out(c, n, 0, out, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}
