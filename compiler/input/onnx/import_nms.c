/* NonMaxSuppression: greedy box selection, one sequential kernel.
 *
 * Takes: a NonMaxSuppression node (opsets 10-17) with f32 boxes [B, N, 4]
 * and scores [B, C, N] in the top-level graph, B, C and N static or
 * run-time dims (the loops' bounds then host values; dims the two inputs
 * share checked equal at run time); the three
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
 * It writes the picks densely into a [B*C*N, 4] table (the fourth column
 * holds the removal flags) and their count
 * into a 1-element tensor; the host reads the count (oi_host_read: the
 * plan-memory phase mechanism) and the output is the table's first K
 * rows. Other element types and use inside a subgraph are refused (kind
 * "dynamic" or "type"). */
#include "import_internal.h"

typedef struct nms {
  oi_ctx *c;
  kiln_builder *b;
  kiln_value *boxes, *scores, *maxout, *iou, *sthr; /* sthr NULL: no threshold */
  bool center;
  kiln_value *nb, *nc, *nn; /* B, C, N as host index values */
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

/* Where box i of class (bi, ci) keeps its removal flag: column 3 of
 * table row (bi * C + ci) * N + i. The flags share the table, the
 * kernel's one output, because bufferize-kernels gives a value of
 * run-time size only a buffer chosen already (an output binding): a
 * separate [B, C, N] flag tensor of run-time dims would have none. */
static void flag_at(nms *s, kiln_builder *b, kiln_value *bi, kiln_value *ci, kiln_value *i, kiln_value **ix) {
  kiln_value *r = op2(b, KILN_OP_ARITH_MULI, bi, s->nc);
  r = op2(b, KILN_OP_ARITH_ADDI, r, ci);
  r = op2(b, KILN_OP_ARITH_MULI, r, s->nn);
  ix[0] = op2(b, KILN_OP_ARITH_ADDI, r, i);
  ix[1] = cst_i(b, s->idx, 3);
}

/* One pick of class (bi, ci): the live box of highest score, then (when
 * there is one) its row in the table and the removal of its overlaps.
 * st[0..1] = table (with the removal flags), count; returns them
 * updated. */
static void pick(nms *s, kiln_builder *b, kiln_value *bi, kiln_value *ci, kiln_value *const *st, kiln_value **res) {
  kiln_value *zero = cst_i(b, s->idx, 0), *n = s->nn;
  /* argmax over live boxes: (best index as i64, -1 for none; its score) */
  kiln_value *init[2];
  init[0] = cst_i(b, s->i64, -1);
  init[1] = cst_f(b, 0);
  kiln_builder lb;
  kiln_value *i, *acc[2];
  kiln_op *scan = oi_for(b, zero, n, 2, init, &lb, &i, acc);
  {
    kiln_value *ix[3] = {bi, ci, i}, *fx[2];
    kiln_value *sc = oi_extract(&lb, s->scores, 3, ix);
    flag_at(s, &lb, bi, ci, i, fx);
    kiln_value *rm = oi_extract(&lb, st[0], 2, fx);
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
  /* The table changes by one tensor.insert per step of one loop whose
   * init is the table itself: bufferize-kernels then keeps it in the
   * output's buffer (a chain of writes would need a copy, which a table
   * of run-time size cannot get). Steps j < N: box j's removal flag;
   * j = N + k: column k of the pick's row. No branch on `found`: the row
   * is written at the count either way and kept only when counted (a
   * step that finds nothing has picked fewer than N of its class, so the
   * row is inside the table); nothing is removed. */
  kiln_value *c0 = cst_i(b, s->idx, 0);
  kiln_value *w64 = oi_extract(b, st[1], 1, &c0);
  kiln_value *w = cast(b, KILN_OP_ARITH_INDEX_CAST, w64, s->idx);
  kiln_value *w1 = oi_select(b, found, op2(b, KILN_OP_ARITH_ADDI, w64, cst_i(b, s->i64, 1)), w64);
  kiln_value *count = oi_insert(b, w1, st[1], 1, &c0);
  kiln_value *bidx = cast(b, KILN_OP_ARITH_INDEX_CAST, oi_select(b, found, best, cst_i(b, s->i64, 0)), s->idx);
  kiln_value *p[4];
  corners(s, b, bi, bidx, p);
  kiln_value *pa = area(b, p);
  kiln_value *row[3];
  row[0] = cast(b, KILN_OP_ARITH_INDEX_CAST, bi, s->i64);
  row[1] = cast(b, KILN_OP_ARITH_INDEX_CAST, ci, s->i64);
  row[2] = best;
  kiln_value *n3 = op2(b, KILN_OP_ARITH_ADDI, n, cst_i(b, s->idx, 3));
  kiln_builder rb;
  kiln_value *j, *rm;
  kiln_op *sweep = oi_for(b, zero, n3, 1, &st[0], &rb, &j, &rm);
  {
    kiln_value *one = cst_i(&rb, s->idx, 1);
    kiln_value *jj = op2(&rb, KILN_OP_ARITH_MINSI, j, op2(&rb, KILN_OP_ARITH_SUBI, n, one));
    kiln_value *q[4];
    corners(s, &rb, bi, jj, q);
    kiln_value *hit = overlaps(s, &rb, p, pa, q, s->iou);
    kiln_value *self = oi_cmpi(&rb, OI_EQ, jj, bidx);
    hit = op2(&rb, KILN_OP_ARITH_ORI, hit, self);
    hit = op2(&rb, KILN_OP_ARITH_ANDI, hit, found);
    kiln_value *fx[2];
    flag_at(s, &rb, bi, ci, jj, fx);
    kiln_value *old = oi_extract(&rb, rm, 2, fx);
    kiln_value *flag = oi_select(&rb, hit, cst_i(&rb, s->i64, 1), old);
    kiln_value *isrow = oi_cmpi(&rb, OI_SGE, j, n);
    kiln_value *col = op2(&rb, KILN_OP_ARITH_MAXSI, op2(&rb, KILN_OP_ARITH_SUBI, j, n), cst_i(&rb, s->idx, 0));
    kiln_value *rv = oi_select(&rb, oi_cmpi(&rb, OI_EQ, col, cst_i(&rb, s->idx, 0)), row[0],
                               oi_select(&rb, oi_cmpi(&rb, OI_EQ, col, one), row[1], row[2]));
    kiln_value *ix[2] = {oi_select(&rb, isrow, w, fx[0]), oi_select(&rb, isrow, col, fx[1])};
    kiln_value *nr = oi_insert(&rb, oi_select(&rb, isrow, rv, flag), rm, 2, ix);
    oi_set_yield(sweep, 0, 1, &nr);
  }
  res[0] = kiln_op_result(sweep, 0);
  res[1] = count;
}

/* The loop nest: batch, class, pick; returns (table, count). */
static void select_all(nms *s, kiln_value *table0, kiln_value *count0, kiln_value **table, kiln_value **count) {
  kiln_builder *hb = s->b;
  kiln_value *zero = cst_i(hb, s->idx, 0), *nb = s->nb;
  kiln_value *st0[2] = {table0, count0};
  kiln_builder bb, cb, kb;
  kiln_value *bi, *ci, *ki, *sb[2], *sc[2], *sk[2];
  kiln_op *lb = oi_for(hb, zero, nb, 2, st0, &bb, &bi, sb);
  /* scalars read inside the kernel (clamp(K, 0, N) picks per class) */
  s->b = &bb;
  kiln_value *kmax = cst_i(&bb, s->i64, 0);
  if (s->maxout) {
    kiln_value *k = only(s, s->maxout);
    kiln_value *lo = op2(&bb, KILN_OP_ARITH_MAXSI, k, kmax);
    kmax = op2(&bb, KILN_OP_ARITH_MINSI, lo, cast(&bb, KILN_OP_ARITH_INDEX_CAST, s->nn, s->i64));
  }
  kiln_value *kidx = cast(&bb, KILN_OP_ARITH_INDEX_CAST, kmax, s->idx);
  kiln_value *iou = s->iou ? only(s, s->iou) : cst_f(&bb, 0);
  kiln_value *sthr = s->sthr ? only(s, s->sthr) : NULL;
  s->iou = iou, s->sthr = sthr;
  kiln_value *z1 = cst_i(&bb, s->idx, 0), *nc = s->nc;
  kiln_op *lc = oi_for(&bb, z1, nc, 2, sb, &cb, &ci, sc);
  kiln_value *z2 = cst_i(&cb, s->idx, 0);
  kiln_op *lk = oi_for(&cb, z2, kidx, 2, sc, &kb, &ki, sk);
  kiln_value *r[2];
  pick(s, &kb, bi, ci, sk, r);
  oi_set_yield(lk, 0, 2, r);
  kiln_value *rk[2] = {kiln_op_result(lk, 0), kiln_op_result(lk, 1)};
  oi_set_yield(lc, 0, 2, rk);
  kiln_value *rc[2] = {kiln_op_result(lc, 0), kiln_op_result(lc, 1)};
  oi_set_yield(lb, 0, 2, rc);
  s->b = hb;
  *table = kiln_op_result(lb, 0);
  *count = kiln_op_result(lb, 1);
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
  if (!oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the output's length is read by the host, which a subgraph cannot do");
  const kiln_type *bt = bx->type, *st = sc->type;
  if (bt->rank != 3) return oi_invalid(c, "boxes must be [batch, boxes, 4]");
  if (st->rank != 3) return oi_invalid(c, "scores must be [batch, classes, boxes]");
  /* dims the inputs share: equal where both are static, else checked at
   * run time ("input 1 dimension 2 is 5, must equal input 0 dimension 1") */
  static const uint32_t same[3][2] = {{0, 0}, {2, 1}, {3, 2}}; /* scores dim, boxes dim; 3: the constant 4 */
  for (int k = 0; k < 3; k++) {
    uint32_t ds = same[k][0], db = same[k][1];
    int64_t a = ds < 3 ? st->shape[ds] : 4;
    const kiln_type *at = ds < 3 ? st : NULL;
    if ((!at || !oi_dyn(at, ds)) && !oi_dyn(bt, db)) {
      if (a != bt->shape[db] && !at) return oi_invalid(c, "boxes dimension 2 is %lld, must be 4", (long long)bt->shape[db]);
      if (a != bt->shape[db])
        return oi_invalid(c, "boxes dimension %u is %lld, scores dimension %u is %lld (scores must be [batch, "
                          "classes, boxes] matching boxes [batch, boxes, 4])", db, (long long)bt->shape[db], ds,
                          (long long)a);
      continue;
    }
    oi_check_eq(c, oi_dim(c, bx, db), at ? oi_dim(c, sc, ds) : oi_index(c, 4));
  }
  int64_t center;
  if (!oi_attr_int(c, n, "center_point_box", 0, &center)) return false;
  if (center != 0 && center != 1) return oi_invalid(c, "center_point_box is %lld, must be 0 or 1", (long long)center);
  /* B, C, N: static where either input has the dim static */
  int64_t dims[3];
  kiln_value *dv[3];
  static const uint32_t from[3][2] = {{0, 0}, {1, 1}, {1, 2}}; /* (boxes dim, scores dim); C is the scores' only */
  for (int k = 0; k < 3; k++) {
    uint32_t db = from[k][0], ds = from[k][1];
    bool bs = k != 1 && !oi_dyn(bt, db);
    dims[k] = bs ? bt->shape[db] : st->shape[ds];
    dv[k] = dims[k] == KILN_DYNAMIC ? oi_dim(c, sc, ds) : oi_index(c, dims[k]);
  }
  nms s = {.c = c, .b = &c->b, .center = center == 1, .nb = dv[0], .nc = dv[1], .nn = dv[2]};
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
  /* at most N picks per class: the table has max(B*C*N, 1) rows, each
   * (batch, class, box) of a pick and a removal flag (flag_at) */
  int64_t tshape[2] = {KILN_DYNAMIC, 4}, one = 1;
  kiln_value *rows = NULL;
  if (dims[0] != KILN_DYNAMIC && dims[1] != KILN_DYNAMIC && dims[2] != KILN_DYNAMIC) {
    tshape[0] = dims[0] * dims[1] * dims[2] > 1 ? dims[0] * dims[1] * dims[2] : 1;
  } else {
    rows = oi_ibin(c, KILN_OP_ARITH_MULI, oi_ibin(c, KILN_OP_ARITH_MULI, s.nb, s.nc), s.nn);
    rows = oi_ibin(c, KILN_OP_ARITH_MAXSI, rows, oi_index(c, 1));
    kiln_value *tdyn[2] = {rows, NULL};
    oi_check_shape(c, 2, tshape, tdyn, s.i64);
  }
  kiln_value *table0 = oi_fill_into(c, oi_empty_dims(c, kiln_type_tensor(c->ctx, 2, tshape, s.i64, NULL), &rows), 0, 0);
  kiln_value *count0 = oi_filled(c, kiln_type_tensor(c->ctx, 1, &one, s.i64, NULL), 0, 0);
  if (!table0 || !count0) return false;
  kiln_value *table, *count;
  select_all(&s, table0, count0, &table, &count);
  kiln_value *k = oi_host_read(c, count, 0);
  if (!k) return false;
  int64_t oshape[2] = {KILN_DYNAMIC, 3};
  kiln_value *odv[2] = {k, NULL};
  oi_check_shape(c, 2, oshape, odv, s.i64);
  kiln_value *zero = oi_index(c, 0);
  kiln_value *start[2] = {zero, zero};
  kiln_value *out = oi_read_window(c, table, oshape, &k, start);
  if (!out) return false;
  oi_set_out(c, n, 0, out, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  return true;
}
