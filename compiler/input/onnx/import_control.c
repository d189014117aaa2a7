/* Control flow with graph attributes: If, Loop, Scan (and Scan-8's
 * batched form), SequenceMap.
 *
 * Takes: nodes whose subgraphs (then/else branches, loop and scan bodies)
 * import like the main graph, inline, outer names visible
 * (oi_import_subgraph). Guarantees: no control flow reaches the IR but
 * one case (a Loop with a run-time trip count):
 *  - If with a constant condition imports the taken branch only; with a
 *    run-time one both branches run and each output selects between them
 *    (branches are pure), which needs equal output types (tensors of one
 *    shape, sequences of one length, optionals of one content type; an
 *    optional present in one branch gets a run-time presence flag);
 *    otherwise the output's shape would depend on the condition:
 *    "dynamic";
 *  - Loop unrolls when its trip count is a constant (or absent with a
 *    condition that becomes a constant false): a run-time condition keeps
 *    the carried values with selects once it turns false, which works
 *    only without scan outputs (their length would depend on data:
 *    "dynamic"); with a run-time trip count in the top-level graph it is
 *    one scf.for (a sequential kernel; see loop_run_time), or, when a
 *    carried value changes shape, has run-time dims or a scan output's
 *    rows have a run-time size, scf.fors on the host calling the body
 *    made a function of its own (kiln.host_loop_body) and writing the
 *    scan rows it returns into preallocated buffers (see
 *    loop_host_body): the control flow that reaches the IR;
 *  - Scan unrolls over its scan axis (a static length), slicing the scan
 *    inputs per step (either direction) and stacking the scan outputs;
 *    Scan-8 runs that per batch entry (sequence_lens must be absent or
 *    the full length);
 *  - SequenceMap imports its body once per element.
 * Unrolling stops at OI_MAX_UNROLL steps (refused beyond). */
#include <string.h>

#include "import_internal.h"

#define OI_MAX_UNROLL 4096

static const Onnx__GraphProto *graph_attr(oi_ctx *c, oi_node *n, const char *name) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  if (!a || a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH || !a->g) {
    oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be a graph", name);
    return NULL;
  }
  return a->g;
}

/* cond (tensor<i1> scalar) ? a : b */
static bool sel_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_select(b, a[0], a[1], a[2]);
  return true;
}

static bool and_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_ANDI, a[0], a[1]);
  return true;
}

/* A bool value as a tensor<i1> scalar IR value. */
static kiln_value *flag_of(oi_ctx *c, oi_val *v) {
  kiln_value *x = oi_ir(c, v);
  return x ? oi_reshape(c, x, 0, NULL) : NULL;
}

static bool widen_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u);

static kiln_value *select_ir(oi_ctx *c, kiln_value *cond, kiln_value *a, kiln_value *b) {
  kiln_value *ins[3] = {cond, a, b};
  const kiln_type *t = a->type;
  return oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, sel_body, NULL);
}

static oi_val *merge(oi_ctx *c, kiln_value *cond, oi_val *a, oi_val *b, const char *what);

/* An optional's presence as a run-time flag. */
static kiln_value *presence(oi_ctx *c, oi_val *o) {
  if (o->has) return o->has;
  const kiln_type *bt = oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  return kiln_build_constant(&c->b, oi_splat_int(c, bt, o->some != NULL));
}

/* cond ? a : b where one is a list (a sequence whose length the run time
 * decides): the host reads cond and picks one list (flow.list.select),
 * the other a list too, at the join of both element types. */
static oi_val *merge_lists(oi_ctx *c, kiln_value *cond, oi_val *a, oi_val *b, const char *what) {
  const bool seqs = (a->kind == OI_VAL_SEQ || a->kind == OI_VAL_LIST) && (b->kind == OI_VAL_SEQ || b->kind == OI_VAL_LIST);
  if (!seqs || a->dtype != b->dtype) {
    oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s differs in type between the two ways the run-time condition can go "
                                      "(dynamic)", what);
    return NULL;
  }
  if (!oi_host_block(c)) {
    oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s: a run-time condition inside a nested body picks a sequence (dynamic)", what);
    return NULL;
  }
  const kiln_type *t = oi_join_elem(c, oi_seq_elem(c, a), oi_seq_elem(c, b));
  kiln_value *wide = oi_elementwise_ir(c, 1, &cond, 0, NULL, kiln_type_int(c->ctx, 64), widen_body, NULL);
  kiln_value *ops[3] = {wide ? oi_host_read(c, wide, 0) : NULL,
                        a->kind == OI_VAL_LIST ? a->v : oi_list_ir(c, a, t),
                        b->kind == OI_VAL_LIST ? b->v : oi_list_ir(c, b, t)};
  if (!ops[0] || !ops[1] || !ops[2]) return NULL;
  const kiln_type *lt = oi_list_type(c, t, a->dtype);
  kiln_value *l = kiln_op_result(kiln_build(&c->b, KILN_OP_FLOW_LIST_SELECT, 3, ops, 1, &lt, NULL), 0);
  return oi_list_new(c, l, t, a->dtype);
}

/* cond ? a : b for values of one structure; NULL (error set) otherwise. */
static oi_val *merge(oi_ctx *c, kiln_value *cond, oi_val *a, oi_val *b, const char *what) {
  if (a == b) return a;
  if (a->kind == OI_VAL_LIST || b->kind == OI_VAL_LIST) return merge_lists(c, cond, a, b, what);
  if (a->kind != b->kind || (a->kind == OI_VAL_TENSOR && (a->type != b->type || a->dtype != b->dtype)) ||
      (a->kind == OI_VAL_SEQ && (a->len != b->len || a->dtype != b->dtype))) {
    oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s differs in type or shape between the two ways the run-time condition "
                                      "can go, so its shape depends on data (dynamic)", what);
    return NULL;
  }
  oi_val *r = oi_val_copy(c, a);
  if (a->kind == OI_VAL_TENSOR) {
    kiln_value *x = oi_ir(c, a), *y = oi_ir(c, b);
    if (!x || !y) return NULL;
    r->tensor = NULL, r->cst = NULL;
    if (!(r->v = select_ir(c, cond, x, y))) return NULL;
    return r;
  }
  if (a->kind == OI_VAL_SEQ) {
    r->elems = kiln_alloc(c->ctx, (a->len + 1) * sizeof *r->elems);
    for (uint32_t k = 0; k < a->len; k++)
      if (!(r->elems[k] = merge(c, cond, a->elems[k], b->elems[k], what))) return NULL;
    return r;
  }
  /* optionals: the presence selects, and so does the content where both
   * may hold one (one side's content is what an absent side gives) */
  if (!a->some && !b->some) return r;
  oi_val *sa = a->some ? a->some : b->some, *sb = b->some ? b->some : a->some;
  if (!(r->some = merge(c, cond, sa, sb, what))) return NULL;
  kiln_value *ha = presence(c, a), *hb = presence(c, b);
  if (!(r->has = select_ir(c, cond, ha, hb))) return NULL;
  return r;
}

bool oi_import_if(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"else_branch", "then_branch", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 4096) || !oi_attrs_only(c, n, known)) return false;
  oi_val *cv = oi_in(c, n, 0);
  if (!cv || cv->kind != OI_VAL_TENSOR || cv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL || oi_numel(cv->type) != 1)
    return oi_invalid(c, "cond must be one bool");
  const Onnx__GraphProto *gt = graph_attr(c, n, "then_branch"), *ge = gt ? graph_attr(c, n, "else_branch") : NULL;
  if (!ge) return false;
  if (gt->n_input || ge->n_input) return oi_invalid(c, "If's branches take no inputs");
  if (gt->n_output != n->nout || ge->n_output != n->nout)
    return oi_invalid(c, "the branches give %zu and %zu outputs for %zu", gt->n_output, ge->n_output, n->nout);
  oi_val **ot = kiln_alloc(c->ctx, (n->nout + 1) * sizeof *ot), **oe = kiln_alloc(c->ctx, (n->nout + 1) * sizeof *oe);
  if (oi_const(c, cv)) { /* one branch */
    bool taken = kiln_dense_get_int(oi_const(c, cv), 0) != 0;
    if (!oi_import_subgraph(c, taken ? gt : ge, NULL, 0, ot)) return false;
    for (size_t i = 0; i < n->nout; i++) oi_set_out_alias(c, n, i, ot[i]);
    return true;
  }
  if (!oi_import_subgraph(c, gt, NULL, 0, ot) || !oi_import_subgraph(c, ge, NULL, 0, oe)) return false;
  kiln_value *cond = flag_of(c, cv);
  if (!cond) return false;
  for (size_t i = 0; i < n->nout; i++) {
    char what[48];
    snprintf(what, sizeof what, "output %zu", i);
    oi_val *m = merge(c, cond, ot[i], oe[i], what);
    if (!m) return false;
    oi_set_out_alias(c, n, i, m);
  }
  return true;
}

/* ---- Loop ---- */
/* Stacks scan outputs (each [s...]) along a new axis 0, or along AXIS
 * (Scan), in order (reversed when REV). */
static oi_val *stack(oi_ctx *c, oi_val **vals, size_t k, int64_t axis, bool rev, const char *what) {
  if (k == 0) {
    oi_unsupported(c, "%s: no steps ran, so its element shape is unknown", what);
    return NULL;
  }
  const kiln_type *t = vals[0]->type;
  if (t->rank + 1 > OI_MAX_RANK) {
    oi_unsupported(c, "%s: rank %u too large", what, t->rank + 1);
    return NULL;
  }
  uint32_t ax;
  if (!oi_axis(c, axis, t->rank + 1, "scan_output_axes entry", &ax)) return NULL;
  kiln_value **vs = kiln_alloc(c->ctx, (k + 1) * sizeof *vs);
  int64_t es[OI_MAX_RANK], rs[OI_MAX_RANK];
  for (uint32_t d = 0, j = 0; d <= t->rank; d++) es[d] = d == ax ? 1 : t->shape[j++];
  for (size_t i = 0; i < k; i++) {
    oi_val *v = vals[rev ? k - 1 - i : i];
    if (v->kind != OI_VAL_TENSOR || v->type != t) {
      oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s changes shape from step to step (dynamic)", what);
      return NULL;
    }
    kiln_value *x = oi_ir(c, v);
    if (!x) return NULL;
    vs[i] = oi_reshape(c, x, t->rank + 1, es);
  }
  memcpy(rs, es, (t->rank + 1) * sizeof *rs);
  rs[ax] = (int64_t)k;
  const kiln_type *rt = kiln_type_with_shape(c->ctx, vs[0]->type, t->rank + 1, rs);
  kiln_value *r = vs[0];
  if (k > 1) {
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), ax)};
    r = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, (uint32_t)k, vs, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
  }
  oi_val *o = oi_val_new(c, NULL, rt, vals[0]->dtype);
  o->v = r;
  return o;
}

static oi_val *scalar_const(oi_ctx *c, int32_t dtype, int64_t v) {
  const kiln_type *t = oi_tensor_type(c, 0, NULL, dtype);
  oi_val *o = oi_val_new(c, NULL, t, dtype);
  o->cst = dtype == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL ? oi_splat_int(c, t, v) : oi_dense_ints(c, t, &v);
  return o;
}

/* ---- Loop with a trip count read at run time ---- */

/* op rebuilt with extra operands appended and extra results appended,
 * regions moved over, uses redirected; op erased. */
static kiln_op *regrow(oi_ctx *c, kiln_op *op, uint32_t nx, kiln_value *const *xo, uint32_t nr,
                       const kiln_type *const *xt) {
  uint32_t no = op->num_operands + nx, nres = op->num_results + nr;
  kiln_value **ops = kiln_alloc(c->ctx, (no + 1) * sizeof *ops);
  const kiln_type **rt = kiln_alloc(c->ctx, (nres + 1) * sizeof *rt);
  for (uint32_t i = 0; i < op->num_operands; i++) ops[i] = kiln_op_operand(op, i);
  for (uint32_t i = 0; i < nx; i++) ops[op->num_operands + i] = xo[i];
  for (uint32_t i = 0; i < op->num_results; i++) rt[i] = op->results[i].type;
  for (uint32_t i = 0; i < nr; i++) rt[op->num_results + i] = xt[i];
  kiln_op *r = kiln_op_create(c->ctx, op->kind, op->loc, no, ops, nres, rt, op->attrs, op->num_regions);
  for (uint32_t g = 0; g < op->num_regions; g++)
    while (op->regions[g].first) {
      kiln_block *b = op->regions[g].first;
      kiln_region_remove_block(b);
      kiln_region_append_block(&r->regions[g], b);
    }
  kiln_block_insert_before(op, r);
  for (uint32_t i = 0; i < op->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(op, i), kiln_op_result(r, i));
  kiln_op_erase(op);
  return r;
}

/* The yield of region g of op with extra values appended. */
static void yield_more(oi_ctx *c, kiln_op *op, uint32_t g, uint32_t n, kiln_value *const *v) {
  kiln_op *y = kiln_block_terminator(op->regions[g].first);
  uint32_t k = y->num_operands;
  kiln_value **all = kiln_alloc(c->ctx, (k + n + 1) * sizeof *all);
  for (uint32_t i = 0; i < k; i++) all[i] = kiln_op_operand(y, i);
  for (uint32_t i = 0; i < n; i++) all[k + i] = v[i];
  kiln_op_set_operands(y, k + n, all);
}

/* dst ([?, S...]) with src ([S...]) written at row `row`, element by
 * element (loops over S inside the sequential kernel: no views, which
 * kernels cannot make of run-time-sized buffers). */
static kiln_value *put_row(oi_ctx *c, kiln_builder *b, kiln_value *src, kiln_value *dst, kiln_value *row,
                           uint32_t d, kiln_value **idx) {
  const kiln_type *st = src->type;
  if (d == st->rank) {
    kiln_value *v = oi_extract(b, src, st->rank, idx + 1);
    idx[0] = row;
    return oi_insert(b, v, dst, st->rank + 1, idx);
  }
  kiln_value *lo = kiln_build_constant(b, kiln_attr_int(c->ctx, kiln_type_index(c->ctx), 0));
  kiln_value *hi = kiln_build_constant(b, kiln_attr_int(c->ctx, kiln_type_index(c->ctx), st->shape[d]));
  kiln_builder lb;
  kiln_value *iv, *acc;
  kiln_op *loop = oi_for(b, lo, hi, 1, &dst, &lb, &iv, &acc);
  idx[1 + d] = iv;
  kiln_value *y = put_row(c, &lb, src, acc, row, d + 1, idx);
  oi_set_yield(loop, 0, 1, &y);
  return kiln_op_result(loop, 0);
}

/* out[i, ...] = buf[i, ...] over the rows that ran (buf has max(M, 0)
 * rows, more than the output when the condition stopped the loop; the
 * host knows their number but not as a dim of buf, so no view) */
static bool rows_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  kiln_value *buf = u, *idx[OI_MAX_RANK];
  for (uint32_t d = 0; d < buf->type->rank; d++) idx[d] = oi_loop_index(b, d);
  y[0] = oi_extract(b, buf, buf->type->rank, idx);
  return true;
}

/* ---- Loop whose carried values change shape: a host loop body ---- */

/* Is IR value v defined inside op `scope` (at any depth)? */
static bool defined_inside(const kiln_value *v, const kiln_op *scope) {
  if (v->def) return kiln_op_is_inside(v->def, scope);
  const kiln_op *o = v->block ? kiln_block_parent_op(v->block) : NULL; /* a block argument's op */
  return o && (o == scope || kiln_op_is_inside(o, scope));
}

/* Names bound to IR values made inside `scope`, which is about to be
 * erased or is another function (an outer constant the body
 * materialized), forget them: they are made again where next used. */
static void forget_inside(oi_ctx *c, const kiln_op *scope) {
  for (size_t i = 0; i < c->cap; i++) {
    oi_val *v = c->slots[i];
    if (v && v->v && defined_inside(v->v, scope)) v->v = NULL;
  }
}

/* The ops built in the host block after `prev` (NULL: from its start)
 * up to the builder, erased last first, and what names cached from
 * them forgotten. */
static void erase_after(oi_ctx *c, kiln_op *prev) {
  for (;;) {
    kiln_op *last = c->b.before ? c->b.before->prev : c->b.block->last;
    if (!last || last == prev) break;
    forget_inside(c, last);
    for (size_t i = 0; i < c->cap; i++) {
      oi_val *v = c->slots[i];
      for (uint32_t r = 0; v && v->v && r < last->num_results; r++)
        if (v->v == kiln_op_result(last, r)) v->v = NULL;
    }
    kiln_op_erase(last);
  }
}

/* The operands of ops inside fn that fn does not define become arguments
 * of fn (appended, one per value): *caps gets the values, in order. */
typedef struct captures {
  kiln_context *ctx;
  kiln_op *fn;
  kiln_value_map map;
  kiln_value **v;
  uint32_t n, cap;
} captures;

static kiln_walk_result capture_op(kiln_op *op, void *u) {
  captures *k = u;
  if (op == k->fn) return KILN_WALK_ADVANCE;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (defined_inside(v, k->fn)) continue;
    kiln_value *a = kiln_value_map_lookup(&k->map, v);
    if (!a) {
      kiln_context *ctx = k->ctx;
      a = kiln_block_add_arg(ctx, k->fn->regions[0].first, v->type, op->loc);
      kiln_value_map_add(ctx, &k->map, v, a);
      if (k->n == k->cap) {
        uint32_t nc = k->cap ? 2 * k->cap : 8;
        kiln_value **nv = kiln_alloc(ctx, nc * sizeof *nv);
        if (k->n) memcpy(nv, k->v, k->n * sizeof *nv);
        k->v = nv, k->cap = nc;
      }
      k->v[k->n++] = v;
    }
    kiln_op_set_operand(op, i, a);
  }
  return KILN_WALK_ADVANCE;
}

/* One host loop over steps [lo, hi) calling the host loop body FN
 * (carried..., step, captured...) -> (carried..., rows...) and writing
 * each scan row into its buffer at row `step` (tensor.insert_slice on the
 * host: plan-memory copies the row's bytes, O(row) per step). With ALLOC
 * the step makes the buffers first, [trip, E...] at the row's dims (the
 * first step: only then are the rows' dims known); otherwise it writes
 * into the carried buffers, whose dims the row must have (plan-memory
 * checks it). */
typedef struct loop_steps {
  const char *name;
  size_t N, K;
  const kiln_type **fout; /* the body's results */
  const kiln_type **it;   /* the loop's carried types: carried..., buffers... */
  kiln_value **caps;
  uint32_t ncaps;
  kiln_value *trip;
} loop_steps;

static kiln_op *host_steps(oi_ctx *c, const loop_steps *h, kiln_value *lo, kiln_value *hi, kiln_value *const *init,
                           bool alloc) {
  kiln_context *ctx = c->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  size_t N = h->N, K = h->K, ns = N + K;
  kiln_value **ops = kiln_alloc(ctx, (ns + 4) * sizeof *ops);
  ops[0] = lo, ops[1] = hi, ops[2] = oi_index(c, 1);
  for (size_t j = 0; j < ns; j++) ops[3 + j] = init[j];
  kiln_op *loop = kiln_build(&c->b, KILN_OP_SCF_FOR, (uint32_t)(3 + ns), ops, (uint32_t)ns, h->it, NULL);
  kiln_block *lb = kiln_op_entry_block(ctx, loop, 0);
  kiln_value *liv = kiln_block_add_arg(ctx, lb, it, c->b.loc);
  kiln_value **iter = kiln_alloc(ctx, (ns + 1) * sizeof *iter);
  for (size_t j = 0; j < ns; j++) iter[j] = kiln_block_add_arg(ctx, lb, h->it[j], c->b.loc);
  kiln_value **cargs = kiln_alloc(ctx, (N + 1 + h->ncaps + 1) * sizeof *cargs);
  uint32_t na = 0;
  for (size_t j = 0; j < N; j++) cargs[na++] = iter[j];
  cargs[na++] = liv;
  for (uint32_t i = 0; i < h->ncaps; i++) cargs[na++] = h->caps[i];
  kiln_builder lbb = kiln_builder_at_end(ctx, lb);
  lbb.loc = c->b.loc;
  kiln_named_attr callee = {kiln_intern_cstr(ctx, "callee"), kiln_attr_symbol_ref(ctx, h->name, 0, NULL)};
  kiln_op *call = kiln_build(&lbb, KILN_OP_FUNC_CALL, na, cargs, (uint32_t)ns, h->fout, kiln_attr_dict(ctx, 1, &callee));
  kiln_value **y = kiln_alloc(ctx, (ns + 1) * sizeof *y);
  for (size_t j = 0; j < N; j++) y[j] = kiln_op_result(call, (uint32_t)j);
  kiln_builder host = c->b;
  c->b = lbb;
  for (size_t k = 0; k < K; k++) {
    kiln_value *row = kiln_op_result(call, (uint32_t)(N + k)), *buf = iter[N + k];
    const kiln_type *bt = h->it[N + k];
    uint32_t r = row->type->rank;
    kiln_value *dims[OI_MAX_RANK + 1], *dyn[OI_MAX_RANK + 1];
    uint32_t nd = 0, ndyn = 0;
    dims[nd++] = h->trip;
    for (uint32_t d = 0; d < r; d++)
      if (bt->shape[1 + d] == KILN_DYNAMIC)
        dims[nd++] = dyn[ndyn++] = oi_ir_dim(&c->b, alloc ? row : buf, alloc ? d : d + 1);
    if (alloc) buf = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_EMPTY, nd, dims, 1, &bt, NULL), 0);
    /* buf[step, 0...][1, E...] = row (rank-reduced: the row has no
     * leading 1) */
    kiln_value *io[3 + OI_MAX_RANK];
    uint32_t no = 0;
    io[no++] = row, io[no++] = buf, io[no++] = liv;
    for (uint32_t i = 0; i < ndyn; i++) io[no++] = dyn[i];
    int64_t off[OI_MAX_RANK + 1] = {KILN_DYNAMIC}, size[OI_MAX_RANK + 1] = {1}, str[OI_MAX_RANK + 1];
    for (uint32_t d = 0; d <= r; d++) str[d] = 1;
    for (uint32_t d = 0; d < r; d++) size[1 + d] = bt->shape[1 + d];
    int64_t seg[5] = {1, 1, 1, ndyn, 0};
    kiln_named_attr e[4] = {
        {kiln_intern_cstr(ctx, "operandSegmentSizes"), kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 5, seg, NULL)},
        {kiln_intern_cstr(ctx, "static_offsets"), kiln_attr_dense_i64_array(ctx, r + 1, off)},
        {kiln_intern_cstr(ctx, "static_sizes"), kiln_attr_dense_i64_array(ctx, r + 1, size)},
        {kiln_intern_cstr(ctx, "static_strides"), kiln_attr_dense_i64_array(ctx, r + 1, str)},
    };
    y[N + k] = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_INSERT_SLICE, no, io, 1, &bt, kiln_attr_dict(ctx, 4, e)), 0);
  }
  kiln_build(&c->b, KILN_OP_SCF_YIELD, (uint32_t)ns, y, 0, NULL, NULL);
  c->b = host;
  return loop;
}

/* The type both a and b fit: dims that differ become '?'; NULL when the
 * rank or element type differ. */
static const kiln_type *join_type(oi_ctx *c, const kiln_type *a, const kiln_type *b) {
  if (a->rank != b->rank || a->elem != b->elem) return NULL;
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0; d < a->rank; d++) s[d] = a->shape[d] == b->shape[d] ? a->shape[d] : KILN_DYNAMIC;
  return kiln_type_with_shape(c->ctx, a, a->rank, s);
}

static kiln_value *cast_to(oi_ctx *c, kiln_value *v, const kiln_type *t) {
  if (v->type == t) return v;
  return kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CAST, 1, &v, 1, &t, NULL), 0);
}

static bool widen_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)u;
  y[0] = oi_convert(b, a[0], ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
                    kiln_type_int(c->ctx, 64));
  return true;
}

/* Loop with a run-time trip count whose carried values change shape (or
 * whose scan outputs have run-time dims): the body becomes a private
 * function marked kiln.host_loop_body, (carried..., step, outer
 * values...) -> (carried..., scan rows...), called by an scf.for on the
 * host (flow's host loop: each step one command buffer, its buffers at
 * that step's sizes). A carried value's type is the join of its types
 * over the steps (dims that change are '?'; the body is imported again
 * until it fits); a rank or element type that changes is refused. A
 * carried sequence is a list (!kiln.seq, OI_VAL_LIST) whose element
 * type is the join over the steps of every element's (unranked where
 * ranks differ), the initial sequence made a list before the loop. Each
 * scan output is a buffer [trip, E...] the host loop carries and writes
 * each step's row into (host_steps): the first step, peeled into a loop
 * of at most one step, allocates it at that row's dims; the rows of the
 * others must have them. After no step it is an empty [0, E...]. The
 * condition must stay what it was (the body passes it on, or yields a
 * constant): the host computes the trip count as max(M, 0) times the
 * initial condition, at most 1 when the body yields false; a condition
 * the body computes otherwise is refused. */
static bool loop_host_body(oi_ctx *c, oi_node *n, const Onnx__GraphProto *g, size_t N, size_t K, oi_val *mv,
                           oi_val *cv) {
  const int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, BOOL = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  kiln_context *ctx = c->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  kiln_value *mt = oi_ir(c, mv);
  if (!mt) return false;
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1);
  kiln_value *m = oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_host_read(c, mt, 0), zero);
  /* the initial condition as 0/1 on the host (its i1 read as an i64) */
  kiln_value *c0 = one, *cond_ir = NULL;
  oi_val *cond_act = cv;
  if (cv && oi_const(c, cv)) {
    c0 = oi_index(c, kiln_dense_get_int(oi_const(c, cv), 0) != 0);
  } else if (cv) {
    if (!(cond_ir = oi_ir(c, cv))) return false;
    kiln_value *wide = oi_elementwise_ir(c, 1, &cond_ir, 0, NULL, kiln_type_int(ctx, 64), widen_body, NULL);
    if (!wide) return false;
    c0 = oi_host_read(c, wide, 0);
  } else {
    cond_act = scalar_const(c, BOOL, 1);
  }
  /* carried sequences are lists; an optional one a list and its
   * presence flag (tensor<i1>), carried after the N values (fpos) */
  const kiln_type **ct = kiln_alloc(ctx, (N + 1) * sizeof *ct);
  const kiln_type **et = kiln_alloc(ctx, (N + 1) * sizeof *et); /* a list's element type (NULL: none known) */
  const kiln_type *flag_t = oi_tensor_type(c, 0, NULL, BOOL);
  oi_val none_seq = {.kind = OI_VAL_SEQ}; /* an absent optional's list: empty */
  bool *seq = kiln_alloc(ctx, (N + 1) * sizeof *seq), *opt = kiln_alloc(ctx, (N + 1) * sizeof *opt);
  size_t *fpos = kiln_alloc(ctx, (N + 1) * sizeof *fpos), Ni = N;
  int32_t *xdt = kiln_alloc(ctx, (N + 1) * sizeof *xdt);
  oi_val **x = kiln_alloc(ctx, (N + 1) * sizeof *x);
  for (size_t j = 0; j < N; j++) {
    if (!(x[j] = oi_in(c, n, 2 + j))) return false;
    oi_val *sv = x[j]->kind == OI_VAL_OPT ? x[j]->some : x[j];
    opt[j] = x[j]->kind == OI_VAL_OPT && (x[j]->seq_elem || (sv && (sv->kind == OI_VAL_SEQ || sv->kind == OI_VAL_LIST)));
    seq[j] = opt[j] || x[j]->kind == OI_VAL_SEQ || x[j]->kind == OI_VAL_LIST;
    if (!seq[j] && x[j]->kind != OI_VAL_TENSOR)
      return oi_unsupported(c, "loop-carried value %zu is an optional tensor", j);
    xdt[j] = sv ? sv->dtype : x[j]->dtype;
    et[j] = seq[j] && sv ? oi_seq_elem(c, sv) : NULL;
    ct[j] = seq[j] ? oi_list_type(c, et[j], xdt[j]) : x[j]->type;
    if (opt[j]) fpos[j] = Ni++;
  }
  oi_val **acts = kiln_alloc(ctx, (N + 3) * sizeof *acts), **outs = kiln_alloc(ctx, (g->n_output + 1) * sizeof *outs);
  kiln_value **res = kiln_alloc(ctx, (Ni + K + 1) * sizeof *res);
  kiln_builder host = c->b;
  kiln_op *fn = NULL;
  kiln_value *iv = NULL;
  bool fits = false;
  /* each retry makes at least one more dim '?' */
  for (uint32_t attempt = 0; !fits && attempt <= N * OI_MAX_RANK + 1; attempt++) {
    if (fn) {
      forget_inside(c, fn);
      kiln_op_erase(fn);
    }
    fn = kiln_op_create(ctx, KILN_OP_FUNC_FUNC, host.loc, 0, NULL, 0, NULL, NULL, 1);
    kiln_block *fb = kiln_op_entry_block(ctx, fn, 0);
    kiln_block_append_op(kiln_module_body(c->module), fn); /* before the graph's function, added last */
    for (size_t j = 0; j < N; j++) {
      kiln_value *a = kiln_block_add_arg(ctx, fb, ct[j], host.loc);
      if (seq[j]) {
        acts[2 + j] = oi_list_new(c, a, et[j], xdt[j]);
        continue;
      }
      acts[2 + j] = oi_val_new(c, NULL, ct[j], x[j]->dtype);
      acts[2 + j]->v = a;
    }
    for (size_t j = 0; j < N; j++) { /* an optional list: the list and its flag */
      if (!opt[j]) continue;
      oi_val *o = oi_val_new(c, NULL, NULL, xdt[j]);
      o->kind = OI_VAL_OPT;
      o->seq_elem = true;
      o->some = acts[2 + j];
      o->has = kiln_block_add_arg(ctx, fb, flag_t, host.loc);
      acts[2 + j] = o;
    }
    iv = kiln_block_add_arg(ctx, fb, it, host.loc);
    kiln_value **ive = kiln_alloc(ctx, 2 * sizeof *ive);
    ive[0] = iv;
    acts[0] = oi_sym_new(c, true, 1, ive, I64); /* the step: index arithmetic on the host */
    acts[1] = cond_act;
    c->b = kiln_builder_at_end(ctx, fb);
    c->b.loc = host.loc;
    bool ok = oi_import_subgraph(c, g, acts, N + 2, outs);
    fits = true;
    for (size_t j = 0; ok && j < N; j++) {
      oi_val *o = outs[1 + j];
      if (seq[j]) { /* a list: its element type the join over the steps */
        if (opt[j] && o->kind == OI_VAL_OPT) {
          if (!o->some) continue; /* none: no element */
          o = o->some;
        }
        if (o->kind != OI_VAL_SEQ && o->kind != OI_VAL_LIST) {
          ok = oi_fail(c, KILN_ONNX_ERR_TYPE, "loop-carried value %zu is a sequence, the body yields %s", j,
                       o->kind == OI_VAL_OPT ? "an optional" : "a tensor");
          break;
        }
        if (o->dtype != xdt[j]) {
          ok = oi_fail(c, KILN_ONNX_ERR_TYPE, "loop-carried sequence %zu changes element type", j);
          break;
        }
        const kiln_type *jt = oi_join_elem(c, et[j], oi_seq_elem(c, o));
        if (jt != et[j]) fits = false, et[j] = jt, ct[j] = oi_list_type(c, jt, xdt[j]);
        continue;
      }
      if (o->kind != OI_VAL_TENSOR) {
        ok = oi_unsupported(c, "loop-carried value %zu is not a tensor", j);
        break;
      }
      const kiln_type *jt = join_type(c, ct[j], o->type);
      if (!jt || o->dtype != x[j]->dtype) {
        ok = oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "loop-carried value %zu changes rank or element type from step "
                                               "to step (dynamic)", j);
        break;
      }
      if (jt != ct[j]) fits = false, ct[j] = jt;
    }
    if (!ok) {
      c->b = host;
      forget_inside(c, fn);
      kiln_op_erase(fn);
      return false;
    }
  }
  if (!fits) {
    c->b = host;
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "loop-carried values keep changing shape (dynamic)");
  }
  /* the condition the body yields: a constant, or the one it was given */
  oi_val *nc = outs[0];
  bool stays = true;
  if (nc->kind != OI_VAL_TENSOR || nc->dtype != BOOL || oi_numel(nc->type) != 1) {
    c->b = host;
    return oi_invalid(c, "the body's condition must be one bool");
  }
  if (oi_const(c, nc)) stays = kiln_dense_get_int(oi_const(c, nc), 0) != 0;
  else if (!(cond_ir && nc->v == cond_ir) && nc != cond_act) {
    c->b = host;
    forget_inside(c, fn);
    kiln_op_erase(fn);
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the body computes its condition while carried values change shape: "
                                             "how often it runs would be decided by data (dynamic)");
  }
  /* the body's results: carried values at their joined types, then this
   * step's scan rows (the host writes them into their buffers) */
  kiln_block *fb = fn->regions[0].first;
  const kiln_type **bt = kiln_alloc(ctx, (Ni + K + 1) * sizeof *bt); /* the loops' carried types */
  int32_t *sdt = kiln_alloc(ctx, (K + 1) * sizeof *sdt);
  for (size_t j = 0; j < N; j++) {
    oi_val *o = outs[1 + j];
    if (opt[j]) { /* the list (empty when none) and the flag */
      res[fpos[j]] = o->kind == OI_VAL_OPT ? presence(c, o) : kiln_build_constant(&c->b, oi_splat_int(c, flag_t, 1));
      bt[fpos[j]] = flag_t;
      none_seq.dtype = xdt[j];
      if (o->kind == OI_VAL_OPT) o = o->some ? o->some : &none_seq;
    }
    kiln_value *v = seq[j] ? oi_list_ir(c, o, et[j]) : oi_ir(c, o);
    if (!v || (opt[j] && !res[fpos[j]])) {
      c->b = host;
      forget_inside(c, fn);
      kiln_op_erase(fn);
      return false;
    }
    res[j] = seq[j] ? v : cast_to(c, v, ct[j]);
    bt[j] = ct[j];
  }
  for (size_t k = 0; k < K; k++) {
    oi_val *e = outs[1 + N + k];
    kiln_value *ev = e->kind == OI_VAL_TENSOR ? oi_ir(c, e) : NULL;
    if (!ev || ev->type->rank >= OI_MAX_RANK) {
      c->b = host;
      return ev || e->kind == OI_VAL_TENSOR ? (ev ? oi_unsupported(c, "scan output %zu has rank %u", k, ev->type->rank) : false)
                                            : oi_unsupported(c, "scan output %zu is not a tensor", k);
    }
    int64_t shape[OI_MAX_RANK];
    shape[0] = KILN_DYNAMIC;
    for (uint32_t d = 0; d < ev->type->rank; d++) shape[1 + d] = ev->type->shape[d];
    bt[Ni + k] = kiln_type_tensor(ctx, ev->type->rank + 1, shape, ev->type->elem, NULL);
    sdt[k] = e->dtype;
    res[Ni + k] = ev;
  }
  kiln_build(&c->b, KILN_OP_FUNC_RETURN, (uint32_t)(Ni + K), res, 0, NULL, NULL);
  c->b = host;
  forget_inside(c, fn);
  captures caps = {.ctx = ctx, .fn = fn};
  kiln_walk_pre(fn, capture_op, &caps);
  const kiln_type **fin = kiln_alloc(ctx, (fb->num_args + 1) * sizeof *fin);
  const kiln_type **fout = kiln_alloc(ctx, (Ni + K + 1) * sizeof *fout);
  for (uint32_t i = 0; i < fb->num_args; i++) fin[i] = fb->args[i]->type;
  for (size_t j = 0; j < Ni + K; j++) fout[j] = res[j]->type;
  char name[64];
  snprintf(name, sizeof name, "loop_body_%u", c->nbodies++);
  kiln_op_set_attr(fn, "sym_name", kiln_attr_string(ctx, name, strlen(name)));
  kiln_op_set_attr(fn, "sym_visibility", kiln_attr_string(ctx, "private", 7));
  kiln_op_set_attr(fn, "function_type",
                   kiln_attr_type(ctx, kiln_type_function(ctx, fb->num_args, fin, (uint32_t)(Ni + K), fout)));
  kiln_op_set_attr(fn, "kiln.host_loop_body", kiln_attr_unit(ctx));
  /* the host: trip count, initial values, the loops calling the body */
  kiln_value *trip = oi_ibin(c, KILN_OP_ARITH_MULI, stays ? m : oi_ibin(c, KILN_OP_ARITH_MINSI, m, one), c0);
  size_t ns = Ni + K;
  kiln_value **init = kiln_alloc(ctx, (ns + 1) * sizeof *init);
  for (size_t j = 0; j < N; j++) {
    oi_val *xv = x[j];
    if (opt[j]) {
      if (!(init[fpos[j]] = presence(c, xv))) return false;
      none_seq.dtype = xdt[j];
      xv = xv->some ? xv->some : &none_seq;
    }
    kiln_value *v = seq[j] ? oi_list_ir(c, xv, et[j]) : oi_ir(c, xv);
    if (!v) return false;
    init[j] = seq[j] ? v : cast_to(c, v, ct[j]);
  }
  for (size_t k = 0; k < K; k++) { /* empty: [0, E...] with '?' dims 0, the result after no step */
    int64_t shape[OI_MAX_RANK];
    for (uint32_t d = 0; d < bt[Ni + k]->rank; d++)
      shape[d] = d && bt[Ni + k]->shape[d] != KILN_DYNAMIC ? bt[Ni + k]->shape[d] : 0;
    const kiln_type *zt = kiln_type_tensor(ctx, bt[Ni + k]->rank, shape, bt[Ni + k]->elem, NULL);
    init[Ni + k] = cast_to(c, kiln_build_constant(&c->b, kiln_attr_dense(ctx, zt, false, "", 0)), bt[Ni + k]);
  }
  loop_steps h = {.name = name, .N = Ni, .K = K, .fout = fout, .it = bt, .caps = caps.v, .ncaps = caps.n, .trip = trip};
  kiln_op *loop;
  if (!K) {
    loop = host_steps(c, &h, zero, trip, init, false);
  } else { /* the first step allocates the buffers, the others write into them */
    kiln_op *first = host_steps(c, &h, zero, oi_ibin(c, KILN_OP_ARITH_MINSI, trip, one), init, true);
    for (size_t j = 0; j < ns; j++) init[j] = kiln_op_result(first, (uint32_t)j);
    loop = host_steps(c, &h, one, trip, init, false);
  }
  for (size_t j = 0; j < N; j++) {
    if (!seq[j]) {
      oi_set_out(c, n, j, kiln_op_result(loop, (uint32_t)j), x[j]->dtype);
      continue;
    }
    oi_val *l = oi_list_new(c, kiln_op_result(loop, (uint32_t)j), et[j], xdt[j]);
    if (opt[j] && outs[1 + j]->kind == OI_VAL_OPT) { /* an optional list: present as its flag says (a body
                                                       * yielding a sequence makes it one: ONNX types the
                                                       * result as the body's output) */
      oi_val *o = oi_val_new(c, NULL, NULL, xdt[j]);
      o->kind = OI_VAL_OPT;
      o->seq_elem = true;
      o->some = l;
      o->has = kiln_op_result(loop, (uint32_t)fpos[j]);
      l = o;
    }
    oi_set_out_alias(c, n, j, l);
  }
  for (size_t k = 0; k < K; k++) oi_set_out(c, n, N + k, kiln_op_result(loop, (uint32_t)(Ni + k)), sdt[k]);
  return true;
}

/* Loop whose trip count M is a run-time tensor of the top-level graph:
 * one scf.for over max(M, 0) steps (read by the host, which sizes the
 * scan outputs) carrying the loop-carried values, the condition and the
 * number of steps run; each step runs the body (imported once, inside
 * an scf.if on the condition, so steps after it turned false change
 * nothing) and writes its scan outputs at its row. A host-level scf.for
 * over tensors is one sequential dispatch. The scan outputs are the
 * first `steps run` rows (read by the host after the loop). A carried
 * sequence (its length is data), a carried value that changes shape or
 * has run-time dims, or scan rows of run-time size make it a host loop
 * body instead (loop_host_body); an optional sequence is refused
 * ("dynamic"). */
static bool loop_run_time(oi_ctx *c, oi_node *n, const Onnx__GraphProto *g, size_t N, size_t K, oi_val *mv,
                          oi_val *cv) {
  const int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, BOOL = ONNX__TENSOR_PROTO__DATA_TYPE__BOOL;
  if (!oi_host_block(c))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the trip count M is computed at run time inside a subgraph: how "
                                             "often the body runs would be decided by data (dynamic)");
  for (size_t j = 0; j < N; j++) { /* run-time dims: one sequential kernel cannot hold them */
    oi_val *x = oi_opt_in(n, 2 + j);
    if (x && x->kind == OI_VAL_TENSOR && oi_has_dyn(x->type)) return loop_host_body(c, n, g, N, K, mv, cv);
  }
  kiln_op *before_loop = c->b.before ? c->b.before->prev : c->b.block->last; /* for host_body */
  bool host_body = false;
  if (mv->kind != OI_VAL_TENSOR || mv->dtype != I64 || oi_numel(mv->type) != 1)
    return oi_invalid(c, "M must be one int64");
  kiln_value *mt = oi_ir(c, mv);
  if (!mt) return false;
  kiln_value *m = oi_host_read(c, mt, 0);
  if (!m) return false;
  kiln_value *zero = oi_index(c, 0);
  m = oi_ibin(c, KILN_OP_ARITH_MAXSI, m, zero);
  const kiln_type *bt = oi_tensor_type(c, 0, NULL, BOOL), *it = kiln_type_index(c->ctx);
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  size_t ns = N + 2;
  kiln_value **inits = kiln_alloc(c->ctx, (ns + 1) * sizeof *inits);
  int32_t *dt = kiln_alloc(c->ctx, (N + 1) * sizeof *dt);
  for (size_t j = 0; j < N; j++) {
    oi_val *x = oi_in(c, n, 2 + j);
    if (!x) return false;
    /* before oi_ir, which has no IR value to give for a structure */
    if (x->kind == OI_VAL_SEQ || x->kind == OI_VAL_LIST) /* its length grows at run time: a list */
      return loop_host_body(c, n, g, N, K, mv, cv);
    if (x->kind == OI_VAL_OPT && (x->seq_elem || (x->some && x->some->kind == OI_VAL_SEQ)))
      return loop_host_body(c, n, g, N, K, mv, cv); /* a list and its presence flag */
    if (x->kind != OI_VAL_TENSOR) return oi_unsupported(c, "loop-carried value %zu is not a tensor", j);
    if (!(inits[j] = oi_ir(c, x))) return false;
    dt[j] = x->dtype;
  }
  if (cv) {
    if (cv->kind != OI_VAL_TENSOR || cv->dtype != BOOL || oi_numel(cv->type) != 1)
      return oi_invalid(c, "cond must be one bool");
    if (!(inits[N] = flag_of(c, cv))) return false;
  } else {
    inits[N] = kiln_build_constant(&c->b, oi_splat_int(c, bt, 1));
  }
  int64_t one = 1;
  if (!(inits[N + 1] = oi_filled(c, kiln_type_tensor(c->ctx, 1, &one, i64, NULL), 0, 0))) return false;
  /* the loop and the branch on the condition */
  kiln_value **ops = kiln_alloc(c->ctx, (ns + 4) * sizeof *ops);
  const kiln_type **types = kiln_alloc(c->ctx, (ns + 1) * sizeof *types);
  ops[0] = zero, ops[1] = m;
  ops[2] = oi_index(c, 1);
  for (size_t j = 0; j < ns; j++) ops[3 + j] = inits[j], types[j] = inits[j]->type;
  kiln_op *loop = kiln_build(&c->b, KILN_OP_SCF_FOR, (uint32_t)(3 + ns), ops, (uint32_t)ns, types, NULL);
  kiln_block *lb = kiln_op_entry_block(c->ctx, loop, 0);
  kiln_value *iv = kiln_block_add_arg(c->ctx, lb, it, c->b.loc);
  kiln_value **args = kiln_alloc(c->ctx, (ns + 1) * sizeof *args);
  for (size_t j = 0; j < ns; j++) args[j] = kiln_block_add_arg(c->ctx, lb, types[j], c->b.loc);
  kiln_builder body = kiln_builder_at_end(c->ctx, lb);
  body.loc = c->b.loc;
  kiln_value *flag = oi_extract(&body, args[N], 0, NULL);
  kiln_op *br = kiln_build(&body, KILN_OP_SCF_IF, 1, &flag, (uint32_t)ns, types, NULL);
  kiln_value **brv = kiln_alloc(c->ctx, (ns + 1) * sizeof *brv);
  for (size_t j = 0; j < ns; j++) brv[j] = kiln_op_result(br, (uint32_t)j);
  kiln_build(&body, KILN_OP_SCF_YIELD, (uint32_t)ns, brv, 0, NULL, NULL);
  kiln_block *tb = kiln_op_entry_block(c->ctx, br, 0), *eb = kiln_op_entry_block(c->ctx, br, 1);
  kiln_builder els = kiln_builder_at_end(c->ctx, eb);
  els.loc = c->b.loc;
  kiln_build(&els, KILN_OP_SCF_YIELD, (uint32_t)ns, args, 0, NULL, NULL);
  /* the body, imported once into the taken branch */
  kiln_builder host = c->b;
  c->b = kiln_builder_at_end(c->ctx, tb);
  c->b.loc = host.loc;
  oi_val **acts = kiln_alloc(c->ctx, (ns + 1) * sizeof *acts), **outs = kiln_alloc(c->ctx, (g->n_output + 1) * sizeof *outs);
  /* the step number as a symbolic scalar: shape arithmetic on it (a Slice
   * at the step) stays index arithmetic inside the kernel */
  kiln_value **ive = kiln_alloc(c->ctx, 2 * sizeof *ive);
  ive[0] = iv;
  acts[0] = oi_sym_new(c, true, 1, ive, I64);
  acts[1] = oi_val_new(c, NULL, bt, BOOL);
  acts[1]->v = args[N];
  for (size_t j = 0; j < N; j++) {
    acts[2 + j] = oi_val_new(c, NULL, args[j]->type, dt[j]);
    acts[2 + j]->v = args[j];
  }
  bool ok = oi_import_subgraph(c, g, acts, ns, outs);
  kiln_value **ty = kiln_alloc(c->ctx, (ns + K + 1) * sizeof *ty);
  kiln_value **elems = kiln_alloc(c->ctx, (K + 1) * sizeof *elems);
  if (ok) {
    oi_val *nc = outs[0];
    if (nc->kind != OI_VAL_TENSOR || nc->dtype != BOOL || oi_numel(nc->type) != 1)
      ok = oi_invalid(c, "the body's condition must be one bool");
    else
      ok = (ty[N] = flag_of(c, nc)) != NULL;
  }
  for (size_t j = 0; ok && j < N; j++) {
    ty[j] = outs[1 + j]->kind == OI_VAL_TENSOR ? oi_ir(c, outs[1 + j]) : NULL;
    if (!ty[j]) ok = false;
    else if (ty[j]->type != types[j])
      ok = false, host_body = true; /* it changes shape: see loop_host_body */
  }
  for (size_t k = 0; ok && k < K; k++) {
    oi_val *e = outs[1 + N + k];
    elems[k] = e->kind == OI_VAL_TENSOR ? oi_ir(c, e) : NULL;
    if (!elems[k]) ok = e->kind == OI_VAL_TENSOR ? false : oi_unsupported(c, "scan output %zu is not a tensor", k);
    else if (elems[k]->type->rank >= OI_MAX_RANK)
      ok = oi_unsupported(c, "scan output %zu has rank %u", k, elems[k]->type->rank);
    else if (oi_has_dyn(elems[k]->type))
      ok = false, host_body = true; /* rows of run-time size: see loop_host_body */
  }
  if (ok) {
    kiln_value *c0 = oi_index(c, 0);
    kiln_value *w = oi_extract(&c->b, args[N + 1], 1, &c0);
    kiln_value *w1 = oi_op2(&c->b, KILN_OP_ARITH_ADDI, w, kiln_build_constant(&c->b, kiln_attr_int(c->ctx, i64, 1)));
    ty[N + 1] = oi_insert(&c->b, w1, args[N + 1], 1, &c0);
  }
  kiln_builder tbb = c->b;
  c->b = host;
  if (host_body) { /* this form cannot hold it: undone, made again as a host loop body */
    erase_after(c, before_loop);
    return loop_host_body(c, n, g, N, K, mv, cv);
  }
  if (!ok) return false;
  /* scan buffers [max(M, 0), S...], before the loop */
  kiln_value **bufs = kiln_alloc(c->ctx, (K + 1) * sizeof *bufs);
  const kiln_type **btypes = kiln_alloc(c->ctx, (K + 1) * sizeof *btypes);
  kiln_builder after = c->b;
  c->b = kiln_builder_before(loop);
  c->b.loc = host.loc;
  for (size_t k = 0; k < K; k++) {
    const kiln_type *et = elems[k]->type;
    int64_t shape[OI_MAX_RANK];
    kiln_value *dv[OI_MAX_RANK] = {0};
    shape[0] = KILN_DYNAMIC, dv[0] = m;
    for (uint32_t d = 0; d < et->rank; d++) shape[1 + d] = et->shape[d];
    oi_check_shape(c, et->rank + 1, shape, dv, et->elem);
    btypes[k] = kiln_type_tensor(c->ctx, et->rank + 1, shape, et->elem, NULL);
    if (!(bufs[k] = oi_fill_into(c, oi_empty_dims(c, btypes[k], &m), 0, 0))) return false;
  }
  c->b = after;
  if (K) {
    loop = regrow(c, loop, (uint32_t)K, bufs, (uint32_t)K, btypes);
    lb = loop->regions[0].first;
    kiln_value **bargs = kiln_alloc(c->ctx, (K + 1) * sizeof *bargs);
    for (size_t k = 0; k < K; k++) bargs[k] = kiln_block_add_arg(c->ctx, lb, btypes[k], host.loc);
    kiln_op *nbr = regrow(c, br, 0, NULL, (uint32_t)K, btypes);
    for (size_t k = 0; k < K; k++) {
      kiln_value *idx[OI_MAX_RANK + 1];
      ty[ns + k] = put_row(c, &tbb, elems[k], bargs[k], iv, 0, idx);
    }
    yield_more(c, nbr, 1, (uint32_t)K, bargs);
    kiln_value **more = kiln_alloc(c->ctx, (K + 1) * sizeof *more);
    for (size_t k = 0; k < K; k++) more[k] = kiln_op_result(nbr, (uint32_t)(ns + k));
    yield_more(c, loop, 0, (uint32_t)K, more);
  }
  kiln_build(&tbb, KILN_OP_SCF_YIELD, (uint32_t)(ns + K), ty, 0, NULL, NULL);
  for (size_t j = 0; j < N; j++) oi_set_out(c, n, j, kiln_op_result(loop, (uint32_t)j), dt[j]);
  if (!K) return true;
  kiln_value *steps = oi_host_read(c, kiln_op_result(loop, (uint32_t)(N + 1)), 0);
  if (!steps) return false;
  for (size_t k = 0; k < K; k++) {
    kiln_value *buf = kiln_op_result(loop, (uint32_t)(ns + k));
    uint32_t r = buf->type->rank;
    kiln_value *init = oi_empty_dims(c, buf->type, &steps);
    const kiln_affine_map *map = kiln_affine_map_identity(c->ctx, r);
    kiln_op *cp = oi_generic(c, 0, NULL, 1, &init, &map, r, NULL, rows_body, buf);
    if (!cp) return false;
    oi_set_out(c, n, N + k, kiln_op_result(cp, 0), outs[1 + N + k]->dtype);
  }
  return true;
}

bool oi_import_loop(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"body", NULL};
  if (!oi_arity(c, n, 2, 4096, 1, 4096) || !oi_attrs_only(c, n, known)) return false;
  const Onnx__GraphProto *g = graph_attr(c, n, "body");
  if (!g) return false;
  size_t N = n->nin - 2, K;
  if (g->n_input != N + 2 || g->n_output < N + 1)
    return oi_invalid(c, "the body takes %zu inputs and gives %zu outputs for %zu loop-carried values", g->n_input,
                      g->n_output, N);
  K = g->n_output - 1 - N;
  if (n->nout != N + K) return oi_invalid(c, "expects %zu outputs, has %zu", N + K, n->nout);
  oi_val *mv = oi_opt_in(n, 0), *cv = oi_opt_in(n, 1);
  int64_t trip = -1; /* -1: until the condition turns false */
  if (mv) {
    int64_t *m, cnt;
    if (!oi_const(c, mv)) return loop_run_time(c, n, g, N, K, mv, cv);
    if (!oi_const_ints(c, mv, "input 0 (M)", &m, &cnt) || cnt != 1) return oi_invalid(c, "M must be one integer");
    trip = m[0] < 0 ? 0 : m[0];
  }
  if (trip > OI_MAX_UNROLL) return oi_unsupported(c, "%lld iterations (unrolled up to %d)", (long long)trip, OI_MAX_UNROLL);
  /* the condition: static (stat = 0/1) or a run-time flag */
  int stat = 1;
  kiln_value *live = NULL;
  if (cv) {
    if (cv->kind != OI_VAL_TENSOR || cv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL || oi_numel(cv->type) != 1)
      return oi_invalid(c, "cond must be one bool");
    if (oi_const(c, cv)) stat = kiln_dense_get_int(oi_const(c, cv), 0) != 0;
    else if (!(live = flag_of(c, cv))) return false;
  }
  if (trip < 0 && live)
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "no trip count and a run-time condition: how often the body runs "
                                             "would be decided by data (dynamic)");
  oi_val **v = kiln_alloc(c->ctx, (N + 1) * sizeof *v), **outs = kiln_alloc(c->ctx, (g->n_output + 1) * sizeof *outs);
  oi_val **acts = kiln_alloc(c->ctx, (N + 3) * sizeof *acts);
  for (size_t i = 0; i < N; i++)
    if (!(v[i] = oi_in(c, n, 2 + i))) return false;
  oi_val ***scans = kiln_alloc(c->ctx, (K + 1) * sizeof *scans);
  for (size_t k = 0; k < K; k++) scans[k] = kiln_alloc(c->ctx, (OI_MAX_UNROLL + 1) * sizeof **scans);
  int64_t steps = 0;
  for (int64_t i = 0; trip < 0 || i < trip; i++) {
    if (!live && !stat) break;
    if (live && K) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time condition decides how many scan outputs "
                                                            "the loop makes (dynamic)");
    if (i >= OI_MAX_UNROLL) return oi_unsupported(c, "more than %d iterations (unrolled)", OI_MAX_UNROLL);
    acts[0] = scalar_const(c, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, i);
    if (live) {
      acts[1] = oi_val_new(c, NULL, oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL),
                           ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
      acts[1]->v = live;
    } else {
      acts[1] = scalar_const(c, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, stat);
    }
    for (size_t j = 0; j < N; j++) acts[2 + j] = v[j];
    if (!oi_import_subgraph(c, g, acts, N + 2, outs)) return false;
    oi_val *nc = outs[0];
    if (nc->kind != OI_VAL_TENSOR || nc->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL || oi_numel(nc->type) != 1)
      return oi_invalid(c, "the body's condition must be one bool");
    if (live) { /* steps after the condition turned false keep the values */
      for (size_t j = 0; j < N; j++) {
        char what[48];
        snprintf(what, sizeof what, "loop-carried value %zu", j);
        if (!(v[j] = merge(c, live, outs[1 + j], v[j], what))) return false;
      }
      kiln_value *ncv = flag_of(c, nc), *pair[2] = {live, ncv};
      if (!ncv || !(live = oi_elementwise_ir(c, 2, pair, 0, NULL, live->type->elem, and_body, NULL))) return false;
      continue;
    }
    for (size_t j = 0; j < N; j++) v[j] = outs[1 + j];
    for (size_t k = 0; k < K; k++) scans[k][steps] = outs[1 + N + k];
    steps++;
    if (oi_const(c, nc)) stat = kiln_dense_get_int(oi_const(c, nc), 0) != 0;
    else if (K == 0 && trip >= 0) { /* from here on, a run-time condition masks the rest */
      if (!(live = flag_of(c, nc))) return false;
    } else {
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "the body's condition is computed at run time: how often it runs "
                                               "would be decided by data (dynamic)");
    }
  }
  for (size_t j = 0; j < N; j++) oi_set_out_alias(c, n, j, v[j]);
  for (size_t k = 0; k < K; k++) {
    char what[48];
    snprintf(what, sizeof what, "scan output %zu", k);
    oi_val *s = stack(c, scans[k], (size_t)steps, 0, false, what);
    if (!s) return false;
    oi_set_out(c, n, N + k, oi_ir(c, s), s->dtype);
  }
  return true;
}

/* ---- Scan ---- */
/* Step T of scan input X along AXIS (the axis dropped). */
static oi_val *scan_slice(oi_ctx *c, oi_val *x, uint32_t axis, int64_t t) {
  const kiln_type *xt = x->type;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK], rs[OI_MAX_RANK];
  for (uint32_t d = 0, k = 0; d < xt->rank; d++) {
    size[d] = d == axis ? 1 : xt->shape[d], one[d] = 1;
    if (d != axis) rs[k++] = xt->shape[d];
  }
  off[axis] = t;
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return NULL;
  kiln_value *s = oi_reshape(c, oi_slice(c, xv, off, size, one), xt->rank - 1, rs);
  oi_val *o = oi_val_new(c, NULL, s->type, x->dtype);
  o->v = s;
  return o;
}

static bool int_list(oi_ctx *c, oi_node *n, const char *name, size_t count, int64_t *out) {
  const int64_t *v;
  size_t k;
  if (!oi_attr_ints(c, n, name, &v, &k)) return false;
  if (v && k != count) return oi_invalid(c, "attribute '%s' has %zu entries, expected %zu", name, k, count);
  for (size_t i = 0; i < count; i++) out[i] = v ? v[i] : 0;
  return true;
}

/* One Scan-9 run: states S (N), scan inputs X (M) -> final states and
 * stacked scan outputs, into OUT (N + K). */
static bool scan_run(oi_ctx *c, oi_node *n, const Onnx__GraphProto *g, oi_val **s, size_t N, oi_val **x, size_t M,
                     const int64_t *in_ax, const int64_t *in_dir, const int64_t *out_ax, const int64_t *out_dir,
                     oi_val **out) {
  size_t K = g->n_output - N;
  uint32_t *ax = kiln_alloc(c->ctx, (M + 1) * sizeof *ax);
  int64_t len = -1;
  for (size_t j = 0; j < M; j++) {
    if (x[j]->kind != OI_VAL_TENSOR || x[j]->type->rank == 0) return oi_invalid(c, "scan input %zu must be a tensor of rank >= 1", j);
    if (!oi_axis(c, in_ax[j], x[j]->type->rank, "scan_input_axes entry", &ax[j])) return false;
    int64_t l = x[j]->type->shape[ax[j]];
    if (len >= 0 && l != len) return oi_invalid(c, "scan inputs differ in length (%lld and %lld)", (long long)len, (long long)l);
    len = l;
  }
  if (len > OI_MAX_UNROLL) return oi_unsupported(c, "%lld steps (unrolled up to %d)", (long long)len, OI_MAX_UNROLL);
  oi_val **acts = kiln_alloc(c->ctx, (N + M + 1) * sizeof *acts), **outs = kiln_alloc(c->ctx, (g->n_output + 1) * sizeof *outs);
  oi_val ***scans = kiln_alloc(c->ctx, (K + 1) * sizeof *scans);
  for (size_t k = 0; k < K; k++) scans[k] = kiln_alloc(c->ctx, (size_t)(len + 1) * sizeof **scans);
  for (size_t i = 0; i < N; i++) acts[i] = s[i];
  for (int64_t t = 0; t < len; t++) {
    for (size_t j = 0; j < M; j++)
      if (!(acts[N + j] = scan_slice(c, x[j], ax[j], in_dir[j] ? len - 1 - t : t))) return false;
    if (!oi_import_subgraph(c, g, acts, N + M, outs)) return false;
    for (size_t i = 0; i < N; i++) acts[i] = outs[i];
    for (size_t k = 0; k < K; k++) scans[k][t] = outs[N + k];
  }
  for (size_t i = 0; i < N; i++) out[i] = acts[i];
  for (size_t k = 0; k < K; k++) {
    char what[48];
    snprintf(what, sizeof what, "scan output %zu", k);
    if (!(out[N + k] = stack(c, scans[k], (size_t)len, out_ax[k], out_dir[k] != 0, what))) return false;
  }
  return true;
}

bool oi_import_scan(oi_ctx *c, oi_node *n) {
  static const char *const known9[] = {"body", "num_scan_inputs", "scan_input_axes", "scan_input_directions",
                                       "scan_output_axes", "scan_output_directions", NULL};
  static const char *const known8[] = {"body", "directions", "num_scan_inputs", NULL};
  bool v8 = n->kind == OI_SCAN8;
  if (!oi_arity(c, n, 1, OI_MAX_FLAT, 1, OI_MAX_FLAT) || !oi_attrs_only(c, n, v8 ? known8 : known9)) return false;
  const Onnx__GraphProto *g = graph_attr(c, n, "body");
  int64_t M;
  if (!g || !oi_attr_int(c, n, "num_scan_inputs", 0, &M)) return false;
  size_t first = v8 ? 1 : 0, total = n->nin - first;
  if (M < 1 || (size_t)M > total) return oi_invalid(c, "num_scan_inputs %lld", (long long)M);
  size_t N = total - (size_t)M;
  if (g->n_input != total || g->n_output < N) return oi_invalid(c, "the body's inputs or outputs do not match");
  size_t K = g->n_output - N;
  if (n->nout != N + K) return oi_invalid(c, "expects %zu outputs, has %zu", N + K, n->nout);
  int64_t *in_ax = kiln_alloc(c->ctx, (size_t)(M + 1) * sizeof *in_ax), *in_dir = kiln_alloc(c->ctx, (size_t)(M + 1) * sizeof *in_dir);
  int64_t *out_ax = kiln_alloc(c->ctx, (K + 1) * sizeof *out_ax), *out_dir = kiln_alloc(c->ctx, (K + 1) * sizeof *out_dir);
  if (v8) {
    for (size_t j = 0; j < (size_t)M; j++) in_ax[j] = 0;
    for (size_t k = 0; k < K; k++) out_ax[k] = 0, out_dir[k] = 0;
    if (!int_list(c, n, "directions", (size_t)M, in_dir)) return false;
  } else if (!int_list(c, n, "scan_input_axes", (size_t)M, in_ax) ||
             !int_list(c, n, "scan_input_directions", (size_t)M, in_dir) ||
             !int_list(c, n, "scan_output_axes", K, out_ax) || !int_list(c, n, "scan_output_directions", K, out_dir)) {
    return false;
  }
  oi_val **in = kiln_alloc(c->ctx, (total + 1) * sizeof *in), **out = kiln_alloc(c->ctx, (N + K + 1) * sizeof *out);
  for (size_t i = 0; i < total; i++)
    if (!(in[i] = oi_in(c, n, first + i))) return false;
  if (!v8) {
    if (!scan_run(c, n, g, in, N, in + N, (size_t)M, in_ax, in_dir, out_ax, out_dir, out)) return false;
    for (size_t i = 0; i < N + K; i++) oi_set_out_alias(c, n, i, out[i]);
    return true;
  }
  /* Scan-8: every input has a batch dim first; each batch entry scans
   * along its dim 1 (0 once the batch is sliced off) */
  int64_t B = in[0]->type->rank ? in[0]->type->shape[0] : 0;
  oi_val *lens = oi_opt_in(n, 0);
  for (size_t i = 0; i < total; i++)
    if (in[i]->type->rank < 1 || in[i]->type->shape[0] != B) return oi_invalid(c, "inputs differ in batch size");
  if (lens) { /* only the full length: shorter sequences would stop early per entry */
    int64_t *l, cnt, full = in[N]->type->rank > 1 ? in[N]->type->shape[1] : 0;
    if (!oi_const(c, lens))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "sequence_lens is computed at run time: each entry's step count "
                                               "would be decided by data (dynamic)");
    if (!oi_const_ints(c, lens, "input 0 (sequence_lens)", &l, &cnt)) return false;
    for (int64_t b = 0; b < cnt; b++)
      if (l[b] != full) return oi_unsupported(c, "sequence_lens shorter than the scan inputs (entry %lld)", (long long)b);
  }
  oi_val ***per = kiln_alloc(c->ctx, (N + K + 1) * sizeof *per);
  for (size_t i = 0; i < N + K; i++) per[i] = kiln_alloc(c->ctx, (size_t)(B + 1) * sizeof **per);
  oi_val **one = kiln_alloc(c->ctx, (total + 1) * sizeof *one);
  for (int64_t b = 0; b < B; b++) {
    for (size_t i = 0; i < total; i++)
      if (!(one[i] = scan_slice(c, in[i], 0, b))) return false;
    if (!scan_run(c, n, g, one, N, one + N, (size_t)M, in_ax, in_dir, out_ax, out_dir, out)) return false;
    for (size_t i = 0; i < N + K; i++) per[i][b] = out[i];
  }
  for (size_t i = 0; i < N + K; i++) {
    oi_val *s = stack(c, per[i], (size_t)B, 0, false, "Scan output");
    if (!s) return false;
    oi_set_out(c, n, i, oi_ir(c, s), s->dtype);
  }
  return true;
}

/* ---- SequenceMap ---- */
bool oi_import_sequence_map(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"body", NULL};
  if (!oi_arity(c, n, 1, OI_MAX_FLAT, 1, OI_MAX_FLAT) || !oi_attrs_only(c, n, known)) return false;
  const Onnx__GraphProto *g = graph_attr(c, n, "body");
  if (!g) return false;
  if (g->n_input != n->nin || g->n_output != n->nout) return oi_invalid(c, "the body's inputs or outputs do not match");
  oi_val *s0 = oi_in(c, n, 0);
  if (!s0 || s0->kind != OI_VAL_SEQ) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input 0 must be a sequence");
  uint32_t L = s0->len;
  oi_val **acts = kiln_alloc(c->ctx, (n->nin + 1) * sizeof *acts), **outs = kiln_alloc(c->ctx, (n->nout + 1) * sizeof *outs);
  oi_val **res = kiln_alloc(c->ctx, (n->nout + 1) * sizeof *res);
  for (size_t o = 0; o < n->nout; o++) {
    res[o] = oi_val_new(c, NULL, NULL, 0);
    res[o]->kind = OI_VAL_SEQ;
    res[o]->len = L;
    res[o]->elems = kiln_alloc(c->ctx, (L + 1) * sizeof *res[o]->elems);
  }
  for (uint32_t k = 0; k < L; k++) {
    for (size_t i = 0; i < n->nin; i++) {
      oi_val *a = oi_in(c, n, i);
      if (!a) return false;
      if (a->kind == OI_VAL_SEQ && a->len != L) return oi_invalid(c, "input %zu has %u elements, input 0 %u", i, a->len, L);
      acts[i] = a->kind == OI_VAL_SEQ ? a->elems[k] : a;
    }
    if (!oi_import_subgraph(c, g, acts, n->nin, outs)) return false;
    for (size_t o = 0; o < n->nout; o++) {
      if (outs[o]->kind != OI_VAL_TENSOR) return oi_unsupported(c, "a body output other than a tensor");
      res[o]->elems[k] = outs[o];
      res[o]->dtype = outs[o]->dtype;
    }
  }
  for (size_t o = 0; o < n->nout; o++) oi_set_out_alias(c, n, o, res[o]);
  return true;
}
