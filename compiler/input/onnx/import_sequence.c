/* Sequences and optionals: SequenceEmpty, SequenceConstruct, SequenceAt,
 * SequenceInsert, SequenceErase, SequenceLength, SplitToSequence,
 * ConcatFromSequence; Optional, OptionalHasElement, OptionalGetElement.
 *
 * Takes: nodes of those ops on values whose structure is known at import
 * time: a sequence is its list of tensors (oi_val kind OI_VAL_SEQ), an
 * optional its value or none, or its value with a run-time presence flag
 * (an optional graph input, an If between some and none). Guarantees: the
 * structure ops produce no IR; a position that is a run-time value works
 * when every element has one shape (SequenceAt selects among them;
 * SequenceInsert/Erase build each element with selects); among elements
 * of one rank but different shapes, in the top-level graph, the host reads
 * the position and each result element is the candidate it picks (run-time
 * dims where the candidates differ, copied from the chosen one only);
 * a run-time position in the top-level graph is checked at run time to
 * lie in range. Else (ranks that differ, a position computed inside a
 * Loop/If body) the error kind is "dynamic" (the result's structure would
 * depend on data); the length and presence are constants where the
 * structure is static.
 * Elements with run-time dims (a sequence graph input's) go through the
 * structure ops; one shape is never assumed of them, and
 * SplitToSequence and ConcatFromSequence, which size pieces, refuse
 * them ("dynamic").
 * A sequence a Loop with a run-time trip count carries is a list
 * (OI_VAL_LIST, a !kiln.seq value the host builds): SequenceInsert,
 * SequenceErase, SequenceAt and SequenceLength on it are flow.list ops
 * (positions read by the host; the run time checks their range), its
 * element type the join of its elements' (see oi_join_elem). */
#include <string.h>

#include "import_internal.h"

static const int32_t I64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64;

static oi_val *new_seq(oi_ctx *c, int32_t dtype, uint32_t len) {
  oi_val *s = oi_val_new(c, NULL, NULL, dtype);
  s->kind = OI_VAL_SEQ;
  s->len = len;
  s->elems = kiln_alloc(c->ctx, (len + 1) * sizeof *s->elems);
  return s;
}

/* Whether the elements (and EXTRA) have one static shape: run-time dims
 * of one type may differ from element to element. */
static bool same_shapes(const oi_val *s, const oi_val *extra) {
  const kiln_type *t = extra ? extra->type : s->len ? s->elems[0]->type : NULL;
  if (t && oi_has_dyn(t)) return false;
  for (uint32_t k = 0; k < s->len; k++)
    if (s->elems[k]->type != t) return false;
  return true;
}

/* Refuses a sequence element with run-time dims, for the ops that size
 * pieces at import time. */
static bool static_elems(oi_ctx *c, const oi_val *s, const char *op) {
  for (uint32_t k = 0; k < s->len; k++)
    if (oi_has_dyn(s->elems[k]->type))
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "element %u has a run-time dim; %s takes static shapes only", k, op);
  return true;
}

static bool take_seq(oi_ctx *c, oi_node *n, size_t i, oi_val **s) {
  if (!(*s = oi_in(c, n, i))) return false;
  if ((*s)->kind != OI_VAL_SEQ) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu must be a sequence", i);
  return true;
}

static bool take_tensor(oi_ctx *c, oi_node *n, size_t i, oi_val **t) {
  if (!(*t = oi_in(c, n, i))) return false;
  if ((*t)->kind != OI_VAL_TENSOR) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu must be a tensor", i);
  return true;
}

/* ---- lists: sequences at run time ---- */

const kiln_type *oi_join_elem(oi_ctx *c, const kiln_type *a, const kiln_type *b) {
  if (!a || a == b) return b;
  if (!b) return a;
  if (a->kind != KILN_TYPE_TENSOR || b->kind != KILN_TYPE_TENSOR || a->rank != b->rank)
    return kiln_type_unranked_tensor(c->ctx, a->elem);
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0; d < a->rank && d < OI_MAX_RANK; d++) s[d] = a->shape[d] == b->shape[d] ? a->shape[d] : KILN_DYNAMIC;
  return kiln_type_with_shape(c->ctx, a, a->rank, s);
}

const kiln_type *oi_list_type(oi_ctx *c, const kiln_type *t, int32_t dtype) {
  return kiln_type_seq(c->ctx, t ? t : kiln_type_unranked_tensor(c->ctx, oi_elem_type(c, dtype)));
}

oi_val *oi_list_new(oi_ctx *c, kiln_value *list, const kiln_type *t, int32_t dtype) {
  oi_val *l = oi_val_new(c, NULL, t ? t : oi_list_type(c, NULL, dtype)->elem, dtype);
  l->kind = OI_VAL_LIST;
  l->none_yet = !t;
  l->v = list;
  return l;
}

const kiln_type *oi_seq_elem(oi_ctx *c, const oi_val *s) {
  if (s->kind == OI_VAL_LIST) return s->none_yet ? NULL : s->type;
  const kiln_type *t = NULL;
  for (uint32_t k = 0; k < s->len; k++) t = oi_join_elem(c, t, s->elems[k]->type);
  return t;
}

static kiln_value *list_op(oi_ctx *c, kiln_op_kind k, uint32_t n, kiln_value *const *ops, const kiln_type *t) {
  return kiln_op_result(kiln_build(&c->b, k, n, ops, 1, &t, NULL), 0);
}

kiln_value *oi_list_ir(oi_ctx *c, oi_val *s, const kiln_type *t) {
  const kiln_type *lt = oi_list_type(c, t, s->dtype);
  if (s->kind == OI_VAL_LIST) {
    if (s->v->type != lt) {
      oi_unsupported(c, "a sequence's element type narrows from step to step");
      return NULL;
    }
    return s->v;
  }
  if (s->kind != OI_VAL_SEQ) {
    oi_fail(c, KILN_ONNX_ERR_TYPE, "a sequence was expected");
    return NULL;
  }
  kiln_value *l = list_op(c, KILN_OP_FLOW_LIST_CREATE, 0, NULL, lt);
  for (uint32_t k = 0; k < s->len; k++) {
    kiln_value *ops[3] = {l, oi_ir(c, s->elems[k]), oi_index(c, k)};
    if (!ops[1]) return NULL;
    l = list_op(c, KILN_OP_FLOW_LIST_INSERT, 3, ops, lt);
  }
  return l;
}

/* A position input of a list op as a host index value (ONNX's: negative
 * from the end; the run time checks the range). */
static kiln_value *list_position(oi_ctx *c, oi_val *p, const char *what) {
  if (p->kind != OI_VAL_TENSOR || oi_numel(p->type) != 1 || !oi_dtype_is_int(p->dtype)) {
    oi_invalid(c, "%s must be one integer", what);
    return NULL;
  }
  if (oi_const(c, p)) {
    int64_t *v, cnt;
    return oi_const_ints(c, p, what, &v, &cnt) ? oi_index(c, v[0]) : NULL;
  }
  if (!oi_host_block(c)) {
    oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s of a sequence a Loop carries is computed inside an If body (dynamic)", what);
    return NULL;
  }
  kiln_value *raw = oi_ir(c, p);
  if (!raw) return NULL;
  bool wide = p->dtype == I64 || p->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
  return oi_host_read(c, wide ? raw : oi_cast_tensor(c, oi_reshape(c, raw, 0, NULL), p->dtype, I64), 0);
}

/* SequenceInsert / SequenceErase / SequenceAt / SequenceLength on a list:
 * one flow.list op each; a position left out is the end (insert) or the
 * last element (erase). */
static bool list_node(oi_ctx *c, oi_node *n, oi_val *s) {
  kiln_value *ops[3] = {s->v, NULL, NULL};
  if (n->kind == OI_SEQ_LENGTH) {
    if (!oi_arity(c, n, 1, 1, 1, 1)) return false;
    kiln_value **len = kiln_alloc(c->ctx, 2 * sizeof *len); /* the value keeps it */
    len[0] = list_op(c, KILN_OP_FLOW_LIST_SIZE, 1, ops, kiln_type_index(c->ctx));
    oi_set_out_alias(c, n, 0, oi_sym_new(c, true, 1, len, I64));
    return true;
  }
  const bool insert = n->kind == OI_SEQ_INSERT, at = n->kind == OI_SEQ_AT;
  oi_val *t = NULL, *p;
  if (!oi_arity(c, n, insert || at ? 2 : 1, insert ? 3 : 2, 1, 1) || (insert && !take_tensor(c, n, 1, &t))) return false;
  if (t && t->dtype != s->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "tensor and sequence differ in element type");
  p = oi_opt_in(n, insert ? 2 : 1);
  kiln_value *pos = NULL;
  if (p && !(pos = list_position(c, p, insert ? "input 2 (position)" : "input 1 (position)"))) return false;
  if (!pos) pos = insert ? list_op(c, KILN_OP_FLOW_LIST_SIZE, 1, ops, kiln_type_index(c->ctx)) : oi_index(c, -1);
  if (at) {
    if (s->none_yet || s->type->kind != KILN_TYPE_TENSOR)
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "SequenceAt of a sequence whose elements differ in rank (dynamic)");
    ops[1] = pos;
    oi_val *e = oi_val_new(c, NULL, s->type, s->dtype);
    e->v = list_op(c, KILN_OP_FLOW_LIST_GET, 2, ops, s->type);
    oi_set_out_alias(c, n, 0, e);
    return true;
  }
  const kiln_type *et = s->none_yet ? NULL : s->type;
  if (insert) {
    if (!(ops[1] = oi_ir(c, t))) return false;
    ops[2] = pos;
    et = oi_join_elem(c, et, t->type);
  } else {
    ops[1] = pos;
  }
  kiln_value *l = list_op(c, insert ? KILN_OP_FLOW_LIST_INSERT : KILN_OP_FLOW_LIST_ERASE, insert ? 3 : 2, ops,
                          oi_list_type(c, et, s->dtype));
  oi_set_out_alias(c, n, 0, oi_list_new(c, l, et, s->dtype));
  return true;
}

/* pos < 0 ? pos + base : pos, on a tensor<i64> scalar */
static bool wrap_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  int64_t base = *(int64_t *)u;
  kiln_value *zero = oi_scalar(b, a[0]->type, 0, 0);
  y[0] = oi_select(b, oi_cmpi(b, OI_SLT, a[0], zero), oi_op2(b, KILN_OP_ARITH_ADDI, a[0], oi_scalar(b, a[0]->type, 0, base)),
                   a[0]);
  return true;
}

/* The run-time position V (an i32/i64 tensor of one element) read by the host,
 * checked to lie in [-base, last] ("index[0] is 4, must be <= 3"), and
 * negative ones counted from the end: a host index value. */
static kiln_value *host_position(oi_ctx *c, kiln_value *v, int64_t base, int64_t last) {
  kiln_value *zero = oi_index(c, 0);
  if (!(v = oi_host_read(c, v, 0))) return NULL;
  oi_check_range(c, v, oi_index(c, -base), oi_index(c, last), "index", 0);
  kiln_value *neg = oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_MINSI, v, zero));
  return oi_ibin(c, KILN_OP_ARITH_ADDI, v, oi_ibin(c, KILN_OP_ARITH_MULI, neg, oi_index(c, base)));
}

/* A position input: constant (*pos set, *dyn NULL) or a run-time scalar
 * (*dyn its IR value; *host its host index value, checked at run time,
 * in the top-level graph, NULL inside a Loop/If body where the host
 * cannot read data). Negative positions count from the end (+ BASE); a
 * constant outside [-BASE, LAST] is an error. */
static bool position(oi_ctx *c, oi_val *p, int64_t base, int64_t last, const char *what, int64_t *pos,
                     kiln_value **dyn, kiln_value **host) {
  *dyn = *host = NULL;
  if (p->kind != OI_VAL_TENSOR || oi_numel(p->type) != 1 || !oi_dtype_is_int(p->dtype))
    return oi_invalid(c, "%s must be one integer", what);
  if (!oi_const(c, p)) {
    kiln_value *raw = oi_ir(c, p), *v;
    if (!raw) return false;
    v = oi_cast_tensor(c, oi_reshape(c, raw, 0, NULL), p->dtype, I64);
    /* the host reads arguments and dispatch results, not views of them:
     * the input itself where it is i32/i64 */
    bool wide = p->dtype == I64 || p->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
    if (oi_host_block(c) && !(*host = host_position(c, wide ? raw : v, base, last))) return false;
    *dyn = oi_elementwise_ir(c, 1, &v, 0, NULL, v->type->elem, wrap_body, &base);
    return *dyn != NULL;
  }
  int64_t *v, cnt;
  if (!oi_const_ints(c, p, what, &v, &cnt)) return false;
  *pos = v[0] < 0 ? v[0] + base : v[0];
  if (*pos < 0 || *pos > last)
    return oi_invalid(c, "%s %lld is out of range for %lld elements", what, (long long)v[0], (long long)base);
  return true;
}

/* sel = pos == k ? a : b, elementwise over tensors of one shape */
typedef struct { int64_t k; int cmp; } pick_user;
enum { PICK_EQ, PICK_LT, PICK_GT };

static bool pick_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  pick_user *p = u;
  kiln_value *k = oi_scalar(b, a[0]->type, 0, p->k);
  kiln_value *hit = oi_cmpi(b, p->cmp == PICK_EQ ? OI_EQ : p->cmp == PICK_LT ? OI_SLT : OI_SGT, a[0], k);
  y[0] = oi_select(b, hit, a[1], a[2]);
  return true;
}

/* (pos CMP k) ? x : y for one-shaped tensors x, y; pos a tensor<i64> scalar */
static oi_val *pick(oi_ctx *c, kiln_value *pos, int cmp, int64_t k, oi_val *x, oi_val *y) {
  kiln_value *ins[3] = {pos, oi_ir(c, x), oi_ir(c, y)};
  if (!ins[1] || !ins[2]) return NULL;
  pick_user p = {k, cmp};
  const kiln_type *t = x->type;
  kiln_value *r = oi_elementwise_ir(c, 3, ins, t->rank, t->shape, t->elem, pick_body, &p);
  if (!r) return NULL;
  oi_val *o = oi_val_new(c, NULL, t, x->dtype);
  o->v = r;
  return o;
}

/* ---- a run-time position among elements of different shapes ---- */
/* Host 0/1 indicators of pos against a constant k. */
static kiln_value *is_eq(oi_ctx *c, kiln_value *pos, int64_t k) {
  return oi_ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, 1), oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_SUBI, pos, oi_index(c, k))));
}
static kiln_value *is_gt(oi_ctx *c, kiln_value *pos, int64_t k) { /* pos > k */
  return oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_ibin(c, KILN_OP_ARITH_SUBI, pos, oi_index(c, k)), oi_index(c, 0)));
}
static kiln_value *is_lt(oi_ctx *c, kiln_value *pos, int64_t k) { /* pos < k */
  return oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, k), pos), oi_index(c, 0)));
}

/* Candidates of one element: up to 3 for SequenceInsert/Erase, the
 * sequence's length for SequenceAt (a chain of that depth per element
 * read: bounded). */
#define SEQ_MAX_CHOICE 64
typedef struct {
  uint32_t n;
  kiln_value **x, **ind;
} choose_user;

/* Candidate j's element at the loop indices when ind[j] is set, else the
 * next one's: an scf.if chain, so that only the chosen candidate is read
 * (another may be smaller, or empty). */
static kiln_value *choose_read(kiln_builder *b, const choose_user *u, uint32_t j, kiln_value **ix) {
  kiln_value *x = u->x[j];
  if (j + 1 == u->n) return oi_extract(b, x, x->type->rank, ix);
  const kiln_type *it = kiln_type_index(b->ctx), *et = x->type->elem;
  kiln_value *hit = oi_cmpi(b, OI_NE, u->ind[j], kiln_build_constant(b, kiln_attr_int(b->ctx, it, 0)));
  kiln_op *br = kiln_build(b, KILN_OP_SCF_IF, 1, &hit, 1, &et, NULL);
  kiln_builder tb = kiln_builder_at_end(b->ctx, kiln_op_entry_block(b->ctx, br, 0));
  kiln_builder eb = kiln_builder_at_end(b->ctx, kiln_op_entry_block(b->ctx, br, 1));
  tb.loc = eb.loc = b->loc;
  kiln_value *a = oi_extract(&tb, x, x->type->rank, ix), *r = choose_read(&eb, u, j + 1, ix);
  kiln_build(&tb, KILN_OP_SCF_YIELD, 1, &a, 0, NULL, NULL);
  kiln_build(&eb, KILN_OP_SCF_YIELD, 1, &r, 0, NULL, NULL);
  return kiln_op_result(br, 0);
}

static bool choose_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  const choose_user *cu = u;
  kiln_value *ix[OI_MAX_RANK];
  for (uint32_t d = 0; d < cu->x[0]->type->rank; d++) ix[d] = oi_loop_index(b, d);
  y[0] = choose_read(b, cu, 0, ix);
  return true;
}

/* The candidate cand[j] whose host indicator ind[j] is 1 (exactly one
 * is): dims that differ among the candidates become run-time dims
 * (sum of ind[j] * dim), the content a copy of the chosen one. The
 * candidates must share a rank ("dynamic" otherwise: a rank decided by
 * data). */
static oi_val *choose(oi_ctx *c, uint32_t n, oi_val *const *cand, kiln_value *const *ind) {
  choose_user u = {.n = n, .x = kiln_alloc(c->ctx, (n + 1) * sizeof *u.x), .ind = kiln_alloc(c->ctx, (n + 1) * sizeof *u.ind)};
  const kiln_type *t0 = cand[0]->type;
  for (uint32_t j = 0; j < n; j++) {
    if (cand[j]->type->rank != t0->rank) {
      oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time position among elements of ranks %u and %u decides the "
                                        "result's rank (dynamic)", t0->rank, cand[j]->type->rank);
      return NULL;
    }
    if (!(u.x[j] = oi_ir(c, cand[j]))) return NULL;
    u.ind[j] = ind[j];
  }
  int64_t shape[OI_MAX_RANK];
  kiln_value *sizes[OI_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < t0->rank; d++) {
    bool same = !oi_dyn(t0, d);
    for (uint32_t j = 1; j < n; j++) same = same && cand[j]->type->shape[d] == t0->shape[d];
    shape[d] = same ? t0->shape[d] : KILN_DYNAMIC;
    if (same) continue;
    kiln_value *s = oi_index(c, 0);
    for (uint32_t j = 0; j < n; j++) s = oi_ibin(c, KILN_OP_ARITH_ADDI, s, oi_ibin(c, KILN_OP_ARITH_MULI, ind[j], oi_dim(c, cand[j], d)));
    sizes[nd++] = s;
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, u.x[0]->type, t0->rank, shape);
  kiln_value *init = oi_empty_dims(c, rt, sizes);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, t0->rank);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, t0->rank, NULL, choose_body, &u);
  if (!g) return NULL;
  oi_val *o = oi_val_new(c, NULL, rt, cand[0]->dtype);
  o->v = kiln_op_result(g, 0);
  return o;
}

/* Refuses a run-time position among elements of different shapes where
 * the host cannot read it (HP NULL: inside a Loop or If body). */
static bool host_positions(oi_ctx *c, kiln_value *hp) {
  if (hp) return true;
  return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time position computed inside a Loop or If body among elements of "
                                           "different shapes decides the result's shapes (dynamic)");
}

static bool seq_at(oi_ctx *c, oi_node *n) {
  oi_val *s, *p;
  if (!oi_arity(c, n, 2, 2, 1, 1) || !take_seq(c, n, 0, &s) || !(p = oi_in(c, n, 1))) return false;
  if (s->len == 0) return oi_invalid(c, "SequenceAt on an empty sequence");
  int64_t pos;
  kiln_value *dyn, *hp;
  if (!position(c, p, s->len, s->len - 1, "input 1 (position)", &pos, &dyn, &hp)) return false;
  if (!dyn) {
    oi_set_out_alias(c, n, 0, s->elems[pos]);
    return true;
  }
  if (!same_shapes(s, NULL)) { /* one of L, chosen per element read */
    if (!host_positions(c, hp)) return false;
    if (s->len > SEQ_MAX_CHOICE)
      return oi_unsupported(c, "a run-time position among %u elements of different shapes (up to %d)", s->len,
                            SEQ_MAX_CHOICE);
    kiln_value **ind = kiln_alloc(c->ctx, (s->len + 1) * sizeof *ind);
    for (uint32_t k = 0; k < s->len; k++) ind[k] = is_eq(c, hp, k);
    oi_val *r = choose(c, s->len, s->elems, ind);
    if (!r) return false;
    oi_set_out_alias(c, n, 0, r);
    return true;
  }
  oi_val *r = s->elems[s->len - 1];
  for (int64_t k = (int64_t)s->len - 2; k >= 0; k--)
    if (!(r = pick(c, dyn, PICK_EQ, k, s->elems[k], r))) return false;
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool seq_insert_erase(oi_ctx *c, oi_node *n, bool insert) {
  oi_val *s, *t = NULL, *p;
  if (!oi_arity(c, n, insert ? 2 : 1, insert ? 3 : 2, 1, 1) || !take_seq(c, n, 0, &s) ||
      (insert && !take_tensor(c, n, 1, &t)))
    return false;
  if (t && t->dtype != s->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "tensor and sequence differ in element type");
  if (!insert && s->len == 0) return oi_invalid(c, "SequenceErase on an empty sequence");
  p = oi_opt_in(n, insert ? 2 : 1);
  int64_t len = s->len, pos = insert ? len : len - 1;
  kiln_value *dyn = NULL, *hp = NULL;
  if (p && !position(c, p, len, insert ? len : len - 1, insert ? "input 2 (position)" : "input 1 (position)", &pos,
                     &dyn, &hp))
    return false;
  oi_val *r = new_seq(c, s->dtype, (uint32_t)(insert ? len + 1 : len - 1));
  if (!dyn) {
    for (int64_t k = 0, j = 0; k < (int64_t)r->len; k++) {
      if (insert && k == pos) r->elems[k] = t;
      else {
        if (!insert && j == pos) j++;
        r->elems[k] = s->elems[j++];
      }
    }
  } else {
    if (!same_shapes(s, t)) { /* element k is one of two or three: its shape is decided at run time */
      if (!host_positions(c, hp)) return false;
      for (int64_t k = 0; k < (int64_t)r->len; k++) {
        oi_val *cand[3];
        kiln_value *ind[3];
        uint32_t nc = 0;
        if (insert) { /* k < pos: s[k]; k == pos: t; k > pos: s[k-1] */
          if (k < len) cand[nc] = s->elems[k], ind[nc++] = is_gt(c, hp, k);
          cand[nc] = t, ind[nc++] = is_eq(c, hp, k);
          if (k > 0) cand[nc] = s->elems[k - 1], ind[nc++] = is_lt(c, hp, k);
        } else { /* k < pos: s[k]; else s[k+1] */
          cand[nc] = s->elems[k], ind[nc++] = is_gt(c, hp, k);
          cand[nc] = s->elems[k + 1], ind[nc++] = oi_ibin(c, KILN_OP_ARITH_SUBI, oi_index(c, 1), ind[0]);
        }
        if (!(r->elems[k] = choose(c, nc, cand, ind))) return false;
      }
      oi_set_out_alias(c, n, 0, r);
      return true;
    }
    for (int64_t k = 0; k < (int64_t)r->len; k++) {
      oi_val *e;
      if (insert) { /* k < pos: s[k]; k == pos: t; k > pos: s[k-1] */
        oi_val *before = k < len ? s->elems[k] : t, *after = k > 0 ? s->elems[k - 1] : t;
        e = pick(c, dyn, PICK_GT, k, before, pick(c, dyn, PICK_EQ, k, t, after));
      } else { /* k < pos: s[k]; else s[k+1] */
        e = pick(c, dyn, PICK_GT, k, s->elems[k], s->elems[k + 1]);
      }
      if (!e) return false;
      r->elems[k] = e;
    }
  }
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool split_to_sequence(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "keepdims", NULL};
  oi_val *x, *sp;
  if (!oi_arity(c, n, 1, 2, 1, 1) || !oi_attrs_only(c, n, known) || !take_tensor(c, n, 0, &x) ||
      !oi_refuse_dyn_inputs(c, n, "SplitToSequence takes static shapes only"))
    return false;
  sp = oi_opt_in(n, 1);
  int64_t axis, keep;
  uint32_t ax;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_attr_int(c, n, "keepdims", 1, &keep) ||
      !oi_axis(c, axis, x->type->rank, "axis", &ax))
    return false;
  int64_t dim = x->type->shape[ax], *sizes, cnt;
  bool scalar = false;
  if (sp) {
    if (!oi_const_ints(c, sp, "input 1 (split)", &sizes, &cnt)) return false;
    scalar = sp->type->rank == 0;
    if (scalar) { /* one size: chunks of it, the last one shorter */
      int64_t chunk = sizes[0];
      if (chunk < 1) return oi_invalid(c, "split %lld", (long long)chunk);
      cnt = (dim + chunk - 1) / chunk;
      sizes = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *sizes);
      for (int64_t i = 0; i < cnt; i++) sizes[i] = i + 1 < cnt ? chunk : dim - chunk * (cnt - 1);
    }
  } else { /* no split: pieces of 1, the axis dropped unless keepdims */
    cnt = dim;
    sizes = kiln_alloc(c->ctx, (size_t)(cnt + 1) * sizeof *sizes);
    for (int64_t i = 0; i < cnt; i++) sizes[i] = 1;
  }
  if (cnt > OI_MAX_FLAT) return oi_unsupported(c, "a sequence of %lld tensors", (long long)cnt);
  int64_t total = 0;
  for (int64_t i = 0; i < cnt; i++) total += sizes[i];
  if (total != dim) return oi_invalid(c, "split sizes sum to %lld, the axis has %lld", (long long)total, (long long)dim);
  kiln_value *xv = oi_ir(c, x);
  if (!xv) return false;
  oi_val *r = new_seq(c, x->dtype, (uint32_t)cnt);
  const kiln_type *t = x->type;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], one[OI_MAX_RANK], sq[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++) size[d] = t->shape[d], one[d] = 1;
  for (int64_t i = 0; i < cnt; i++) {
    size[ax] = sizes[i];
    kiln_value *piece = oi_slice(c, xv, off, size, one);
    off[ax] += sizes[i];
    if (!sp && !keep) { /* drop the axis */
      uint32_t k = 0;
      for (uint32_t d = 0; d < t->rank; d++)
        if (d != ax) sq[k++] = t->shape[d];
      piece = oi_reshape(c, piece, k, sq);
    }
    oi_val *e = oi_val_new(c, NULL, piece->type, x->dtype);
    e->v = piece;
    r->elems[i] = e;
  }
  oi_set_out_alias(c, n, 0, r);
  return true;
}

static bool concat_from_sequence(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", "new_axis", NULL};
  oi_val *s;
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known) || !take_seq(c, n, 0, &s) ||
      !static_elems(c, s, "ConcatFromSequence"))
    return false;
  if (!oi_attr(n, "axis")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'axis' is required");
  int64_t axis, newax;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_attr_int(c, n, "new_axis", 0, &newax)) return false;
  if (s->len == 0) return oi_invalid(c, "ConcatFromSequence of an empty sequence");
  const kiln_type *t0 = s->elems[0]->type;
  uint32_t r = t0->rank + (newax ? 1 : 0), ax;
  if (r > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", r, OI_MAX_RANK);
  if (!oi_axis(c, axis, r, "axis", &ax)) return false;
  kiln_value **vs = kiln_alloc(c->ctx, (s->len + 1) * sizeof *vs);
  int64_t shape[OI_MAX_RANK];
  for (uint32_t k = 0; k < s->len; k++) {
    const kiln_type *t = s->elems[k]->type;
    if (t->rank != t0->rank) return oi_invalid(c, "elements differ in rank");
    if (!(vs[k] = oi_ir(c, s->elems[k]))) return false;
    if (newax) { /* stack: each element gains a unit dim at ax */
      int64_t es[OI_MAX_RANK];
      for (uint32_t d = 0, j = 0; d < r; d++) es[d] = d == ax ? 1 : t->shape[j++];
      vs[k] = oi_reshape(c, vs[k], r, es);
    }
  }
  memcpy(shape, vs[0]->type->shape, r * sizeof *shape);
  shape[ax] = 0;
  for (uint32_t k = 0; k < s->len; k++) {
    for (uint32_t d = 0; d < r; d++)
      if (d != ax && vs[k]->type->shape[d] != shape[d]) return oi_invalid(c, "elements differ off the axis");
    shape[ax] += vs[k]->type->shape[ax];
  }
  const kiln_type *rt = kiln_type_with_shape(c->ctx, vs[0]->type, r, shape);
  kiln_value *res = vs[0];
  if (s->len > 1) {
    kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), ax)};
    res = kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, s->len, vs, 1, &rt, kiln_attr_dict(c->ctx, 1, &e)), 0);
  }
  oi_set_out(c, n, 0, res, s->dtype);
  return true;
}

bool oi_import_sequence(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL}, *const dt[] = {"dtype", NULL};
  oi_val *s0 = n->kind != OI_SEQ_EMPTY && n->kind != OI_SEQ_CONSTRUCT && n->nin ? oi_opt_in(n, 0) : NULL;
  if (s0 && s0->kind == OI_VAL_LIST) {
    if (n->kind == OI_SPLIT_TO_SEQ || n->kind == OI_CONCAT_FROM_SEQ)
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "%s of a sequence whose length only the run time knows (dynamic)",
                     n->op_type);
    return oi_attrs_only(c, n, none) && list_node(c, n, s0);
  }
  switch (n->kind) {
  case OI_SEQ_EMPTY: {
    int64_t d;
    if (!oi_arity(c, n, 0, 0, 1, 1) || !oi_attrs_only(c, n, dt) ||
        !oi_attr_int(c, n, "dtype", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, &d))
      return false;
    if (d < INT32_MIN || d > INT32_MAX || !oi_elem_type(c, (int32_t)d)) return oi_unsupported(c, "dtype %lld", (long long)d);
    oi_set_out_alias(c, n, 0, new_seq(c, (int32_t)d, 0));
    return true;
  }
  case OI_SEQ_CONSTRUCT: {
    if (!oi_arity(c, n, 1, OI_MAX_FLAT, 1, 1) || !oi_attrs_only(c, n, none)) return false;
    oi_val *r = new_seq(c, 0, (uint32_t)n->nin);
    for (size_t i = 0; i < n->nin; i++) {
      if (!take_tensor(c, n, i, &r->elems[i])) return false;
      if (r->elems[i]->dtype != r->elems[0]->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "inputs differ in element type");
    }
    r->dtype = r->elems[0]->dtype;
    oi_set_out_alias(c, n, 0, r);
    return true;
  }
  case OI_SEQ_AT: return oi_attrs_only(c, n, none) && seq_at(c, n);
  case OI_SEQ_INSERT: return oi_attrs_only(c, n, none) && seq_insert_erase(c, n, true);
  case OI_SEQ_ERASE: return oi_attrs_only(c, n, none) && seq_insert_erase(c, n, false);
  case OI_SEQ_LENGTH: {
    oi_val *s;
    if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none) || !take_seq(c, n, 0, &s)) return false;
    int64_t len = s->len;
    oi_set_out_const(c, n, 0, oi_dense_ints(c, oi_tensor_type(c, 0, NULL, I64), &len), I64);
    return true;
  }
  case OI_SPLIT_TO_SEQ: return split_to_sequence(c, n);
  default: return concat_from_sequence(c, n);
  }
}

bool oi_import_optional(oi_ctx *c, oi_node *n) {
  static const char *const none[] = {NULL}, *const ty[] = {"type", NULL};
  if (n->kind == OI_OPT_MAKE) {
    if (!oi_arity(c, n, 0, 1, 1, 1) || !oi_attrs_only(c, n, ty)) return false;
    oi_val *x = oi_opt_in(n, 0), *o = oi_val_new(c, NULL, NULL, x ? x->dtype : 0);
    o->kind = OI_VAL_OPT;
    o->some = x;
    if (!x) { /* none: its declared type says whether it holds a sequence */
      const Onnx__AttributeProto *a = oi_attr(n, "type");
      if (!a || !a->tp) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "an empty Optional needs attribute 'type'");
      o->seq_elem = a->tp->value_case == ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE;
    } else if (x->kind == OI_VAL_OPT) {
      return oi_invalid(c, "an optional of an optional");
    }
    oi_set_out_alias(c, n, 0, o);
    return true;
  }
  oi_val *o;
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, none) || !(o = oi_in(c, n, 0))) return false;
  if (o->kind != OI_VAL_OPT) { /* from 18 they take any value; a non-optional has its element */
    if (n->kind == OI_OPT_HAS) {
      int64_t one = 1;
      oi_set_out_const(c, n, 0, oi_splat_int(c, oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL), one),
                       ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    } else {
      oi_set_out_alias(c, n, 0, o);
    }
    return true;
  }
  if (n->kind == OI_OPT_HAS) {
    const kiln_type *bt = oi_tensor_type(c, 0, NULL, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    if (o->has) oi_set_out(c, n, 0, o->has, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    else oi_set_out_const(c, n, 0, oi_splat_int(c, bt, o->some != NULL), ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    return true;
  }
  if (!o->some) return oi_invalid(c, "OptionalGetElement of an empty optional");
  oi_set_out_alias(c, n, 0, o->some); /* with a run-time flag: the value, whatever it holds */
  return true;
}
