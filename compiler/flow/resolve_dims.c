/* resolve-dims: dynamic dimensions of host tensors become host values,
 * and the dimension relations ops rely on become run-time checks.
 *
 * Takes: host functions on tensors; it runs early (after
 * convert-elementwise-to-linalg, so no tensor.dim of an intermediate
 * keeps fusion from seeing single-use values) and again before
 * form-dispatch-regions (for what fusion and views built since).
 * Guarantees:
 *  - every host tensor.dim is of a function argument (or a host loop's
 *    result, below): a tensor.dim of a
 *    computed tensor is replaced by the value fl_dim_value derives (the
 *    argument dims and size operands it was made from); one it cannot
 *    derive is an error naming the producer, except a host loop's
 *    result (fl_host_loop), whose dims plan-memory reads after it ran;
 *  - where a structured op reads several operand dims as the size of one
 *    loop (elementwise operands, matmul's K, ...) and they are not
 *    certainly equal, a flow.check.dim_eq(other, first) before the op
 *    fails the call at run time unless they are; likewise the source dim
 *    of a dynamic expand_shape group and the product of its output dims,
 *    the non-concatenated dims of a tensor.concat, and what a view
 *    asserts (a cast's static dims, a reshape's element count). The first operand
 *    in operand order is the reference, so messages read "input 1
 *    dimension 0 is 5, must equal input 0 dimension 0 (3)". Each distinct
 *    relation is checked once per function. Checks between constants that
 *    differ are compile-time errors (the verifier already refuses them).
 * Kernels may then size every loop from any operand dim bound to it. */
#include "fl_internal.h"

#include <string.h>

typedef struct rd {
  kiln_context *ctx;
  const char *fname;
  kiln_block *body;
  kiln_error *err; /* why a dimension could not be computed or checked */
} rd;

static bool check(rd *r, kiln_builder *b, kiln_op *at, kiln_value *x, kiln_value *ref) {
  if (fl_same_dim(x, ref)) return true;
  int64_t cx, cr;
  if (fl_const_index(x, &cx) && fl_const_index(ref, &cr))
    return kiln_op_fail(&r->err, at, "dimension %lld must equal %lld", (long long)cx, (long long)cr);
  /* each relation once per function (the pass runs twice) */
  for (kiln_op *o = r->body->first; o; o = o->next) {
    if (o->kind != KILN_OP_FLOW_CHECK_DIM_EQ) continue;
    kiln_value *a = kiln_op_operand(o, 0), *c = kiln_op_operand(o, 1);
    if ((fl_same_dim(a, x) && fl_same_dim(c, ref)) || (fl_same_dim(a, ref) && fl_same_dim(c, x)))
      return true;
  }
  kiln_value *ops[2] = {x, ref};
  kiln_build(b, KILN_OP_FLOW_CHECK_DIM_EQ, 2, ops, 0, NULL, NULL);
  return true;
}

/* Loops of a structured op bound by several operand dims. */
static bool check_linalg(rd *r, kiln_op *op) {
  const kiln_affine_map **maps = kiln_alloc(r->ctx, (op->num_operands + 1) * sizeof *maps);
  int loops = fl_iteration(op, NULL, maps, NULL);
  if (loops <= 0) return true;
  /* per loop: the first operand dim bound to it, and whether any is dynamic */
  kiln_value *ref_v[KILN_MAX_LOOPS] = {0};
  uint32_t ref_d[KILN_MAX_LOOPS] = {0};
  bool dyn[KILN_MAX_LOOPS] = {0};
  for (uint32_t pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < op->num_operands; i++) {
      kiln_value *v = kiln_op_operand(op, i);
      if (v->type->kind != KILN_TYPE_TENSOR) continue;
      for (uint32_t d = 0; d < maps[i]->num_results && d < v->type->rank; d++) {
        const kiln_affine_expr *e = maps[i]->results[d];
        if (e->kind != KILN_AFFINE_DIM || e->value >= loops) continue;
        int l = (int)e->value;
        if (pass == 0) {
          dyn[l] |= v->type->shape[d] == KILN_DYNAMIC;
          if (!ref_v[l]) ref_v[l] = v, ref_d[l] = d;
          continue;
        }
        if (!dyn[l] || (ref_v[l] == v && ref_d[l] == d)) continue;
        if (v->type->shape[d] != KILN_DYNAMIC && ref_v[l]->type->shape[ref_d[l]] != KILN_DYNAMIC)
          continue; /* two static dims: the verifier compared them */
        kiln_builder b = kiln_builder_before(op);
        b.loc = op->loc;
        /* One statement per dim: C leaves argument order unspecified, and
         * gcc and clang emitted the two tensor.dim ops in other orders.
         * An argument's dim goes to the top of the entry block, so the one
         * built last prints first. */
        kiln_value *ref = fl_build_dim(&b, ref_v[l], ref_d[l]);
        kiln_value *x = fl_build_dim(&b, v, d);
        if (!check(r, &b, op, x, ref)) return false;
      }
    }
  return true;
}

/* Source dim of each dynamic expand_shape group = product of its dims. */
static bool check_expand(rd *r, kiln_op *op) {
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  kiln_value *src = kiln_op_operand(op, 0);
  kiln_value *res = kiln_op_result(op, 0);
  if (!re || re->kind != KILN_ATTR_ARRAY || re->count != src->type->rank) return true;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  for (uint32_t g = 0; g < re->count; g++) {
    const kiln_attr *grp = re->elems[g];
    bool dyn = src->type->shape[g] == KILN_DYNAMIC;
    for (uint32_t j = 0; j < grp->count; j++) dyn |= res->type->shape[grp->elems[j]->i] == KILN_DYNAMIC;
    if (!dyn) continue;
    kiln_value *p = NULL;
    for (uint32_t j = 0; j < grp->count; j++) {
      kiln_value *x = fl_build_dim(&b, res, (uint32_t)grp->elems[j]->i);
      if (!p) {
        p = x;
        continue;
      }
      kiln_value *ops[2] = {p, x};
      const kiln_type *it = kiln_type_index(r->ctx);
      p = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_MULI, 2, ops, 1, &it, NULL), 0);
    }
    if (p && !check(r, &b, op, p, fl_build_dim(&b, src, g))) return false;
  }
  return true;
}

static bool check_concat(rd *r, kiln_op *op) {
  const kiln_attr *cd = kiln_op_get_attr(op, "dim");
  kiln_value *first = kiln_op_operand(op, 0);
  if (!cd || cd->kind != KILN_ATTR_INTEGER || !kiln_type_is_ranked(first->type)) return true;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  for (uint32_t i = 1; i < op->num_operands; i++)
    for (uint32_t d = 0; d < first->type->rank; d++) {
      kiln_value *v = kiln_op_operand(op, i);
      if ((int64_t)d == cd->i || (v->type->shape[d] != KILN_DYNAMIC && first->type->shape[d] != KILN_DYNAMIC))
        continue;
      kiln_value *ref = fl_build_dim(&b, first, d); /* in order: see check_linalg */
      kiln_value *x = fl_build_dim(&b, v, d);
      if (!check(r, &b, op, x, ref)) return false;
    }
  return true;
}

/* A view asserts its sizes: each dim of a same-rank view whose source
 * dim is dynamic (a tensor.cast to a more static type), else the element
 * count. */
static bool check_view(rd *r, kiln_op *op) {
  kiln_value *src = kiln_op_operand(op, 0), *res = kiln_op_result(op, 0);
  const kiln_type *st = src->type, *rt = res->type;
  if (!kiln_type_num_dynamic_dims(st) && !kiln_type_num_dynamic_dims(rt)) return true;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  if (st->rank == rt->rank && st->elem == rt->elem) {
    for (uint32_t d = 0; d < rt->rank; d++)
      if (st->shape[d] == KILN_DYNAMIC && rt->shape[d] != KILN_DYNAMIC &&
          !check(r, &b, op, fl_build_dim(&b, src, d), fl_build_dim(&b, res, d)))
        return false;
    return true;
  }
  if (kiln_dense_elem_size(st->elem) != kiln_dense_elem_size(rt->elem)) return true;
  const kiln_type *it = kiln_type_index(r->ctx);
  kiln_value *n[2];
  for (int k = 0; k < 2; k++) {
    kiln_value *v = k ? res : src;
    n[k] = NULL;
    for (uint32_t d = 0; d < v->type->rank; d++) {
      kiln_value *x = fl_build_dim(&b, v, d);
      if (!n[k]) {
        n[k] = x;
        continue;
      }
      kiln_value *ops[2] = {n[k], x};
      n[k] = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_MULI, 2, ops, 1, &it, NULL), 0);
    }
  }
  return !n[0] || !n[1] || check(r, &b, op, n[0], n[1]);
}

/* ---- bounds of slices and element accesses ----
 * Offsets, sizes, strides and indices the host knows (fl_host_index:
 * argument dims, values read from tensor data, arithmetic on them) reach
 * kernels as push constants or are recomputed there; a kernel trusts
 * them, so a value outside its tensor would read or write outside the
 * buffer. Each is checked on the host before the op (flow.check.range),
 * in the order the later bounds assume: stride >= 1, then
 * 0 <= size <= ceil(D / stride), then 0 <= offset <= D - span (span =
 * (size - 1) * stride + 1, 0 for an empty slice), so no bound wraps. */

/* a and b compute the same host value (the pass runs twice: a check
 * built the first time is not built again) */
static bool same_expr(kiln_value *a, kiln_value *b, int depth) {
  if (a == b || fl_same_dim(a, b)) return true;
  int64_t x, y;
  if (fl_const_index(a, &x) || fl_const_index(b, &y)) return fl_const_index(a, &x) && fl_const_index(b, &y) && x == y;
  kiln_op *p = a->def, *q = b->def;
  if (!p || !q || depth > 8 || p->kind != q->kind || p->num_operands != q->num_operands || p->num_regions ||
      !fl_host_index(a) || !fl_host_index(b))
    return false;
  for (uint32_t i = 0; i < p->num_operands; i++)
    if (!same_expr(kiln_op_operand(p, i), kiln_op_operand(q, i), depth + 1)) return false;
  return true;
}

static kiln_value *idx(kiln_builder *b, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(b->ctx, kiln_type_index(b->ctx), v));
}

/* x OP y on index values, constants folded */
static kiln_value *arith(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  int64_t p, q;
  if (fl_const_index(x, &p) && fl_const_index(y, &q)) {
    switch (k) {
    case KILN_OP_ARITH_SUBI: return idx(b, p - q);
    case KILN_OP_ARITH_MULI: return idx(b, p * q);
    case KILN_OP_ARITH_MAXSI: return idx(b, p > q ? p : q);
    default: if (q > 0 && p >= 0) return idx(b, p / q + (p % q != 0)); /* ceildivsi */
    }
  }
  if (fl_const_index(y, &q) && q == (k == KILN_OP_ARITH_SUBI ? 0 : 1) &&
      (k == KILN_OP_ARITH_SUBI || k == KILN_OP_ARITH_MULI || k == KILN_OP_ARITH_CEILDIVSI))
    return x;
  kiln_value *ops[2] = {x, y};
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, k, 2, ops, 1, &it, NULL), 0);
}

/* flow.check.range(v, lo, hi) {what, dim} before the op, unless v is a
 * constant inside constant bounds or the same check exists already. */
static void check_range(rd *r, kiln_builder *b, kiln_value *v, kiln_value *lo, kiln_value *hi, const char *what,
                        uint32_t dim) {
  int64_t cv, cl, ch;
  if (fl_const_index(v, &cv) && fl_const_index(lo, &cl) && fl_const_index(hi, &ch) && cl <= cv && cv <= ch) return;
  for (kiln_op *o = r->body->first; o; o = o->next) {
    const kiln_attr *w = kiln_op_get_attr(o, "what"), *d = kiln_op_get_attr(o, "dim");
    if (o->kind == KILN_OP_FLOW_CHECK_RANGE && w && w->len == strlen(what) && memcmp(w->str, what, w->len) == 0 &&
        d && d->i == (int64_t)dim && same_expr(kiln_op_operand(o, 0), v, 0) &&
        same_expr(kiln_op_operand(o, 1), lo, 0) && same_expr(kiln_op_operand(o, 2), hi, 0))
      return;
  }
  kiln_named_attr a[2] = {{kiln_intern_cstr(r->ctx, "what"), kiln_attr_string(r->ctx, what, strlen(what))},
                          {kiln_intern_cstr(r->ctx, "dim"), kiln_attr_int(r->ctx, kiln_type_int(r->ctx, 64), dim)}};
  kiln_value *ops[3] = {v, lo, hi};
  kiln_build(b, KILN_OP_FLOW_CHECK_RANGE, 3, ops, 0, NULL, kiln_attr_dict(r->ctx, 2, a));
}

/* extract_slice / insert_slice: per dim of the sliced tensor whose
 * offset, size, stride or extent is a run-time value. Values the host
 * cannot compute (read inside a loop, from a dynamic-shape tensor) are
 * left to the kernel. */
static bool check_slice(rd *r, kiln_op *op) {
  const bool ins = op->kind == KILN_OP_TENSOR_INSERT_SLICE;
  kiln_value *t = kiln_op_operand(op, ins ? 1 : 0);
  const kiln_type *tt = t->type;
  const uint32_t offs = ins ? 2 : 1;
  if (!kiln_type_is_ranked(tt) || (op->num_operands == offs && !kiln_type_num_dynamic_dims(tt))) return true;
  const uint32_t sizes = offs + kiln_attr_num_dynamic(kiln_op_get_attr(op, "static_offsets"));
  const uint32_t strides = sizes + kiln_attr_num_dynamic(kiln_op_get_attr(op, "static_sizes"));
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  for (uint32_t d = 0; d < tt->rank; d++) {
    kiln_value *o = fl_mixed_entry(&b, op, "static_offsets", offs, d);
    kiln_value *sz = fl_mixed_entry(&b, op, "static_sizes", sizes, d);
    kiln_value *st = fl_mixed_entry(&b, op, "static_strides", strides, d);
    kiln_value *dv = fl_dim_value(&b, t, d);
    int64_t k = 0;
    const bool kc = st && fl_const_index(st, &k);
    if (!o || !sz || !st || !dv || (kc && k < 1)) continue;
    if (!fl_host_index(o) || !fl_host_index(sz) || !fl_host_index(st) || !fl_host_index(dv)) continue;
    /* one builder call per statement: C leaves argument order open */
    if (!kc) {
      kiln_value *one = idx(&b, 1);
      kiln_value *any = idx(&b, INT64_MAX);
      check_range(r, &b, st, one, any, "stride", d);
    }
    /* size == D at stride 1 (a whole dim) needs no check */
    if (!(kc && k == 1 && fl_same_dim(sz, dv))) {
      kiln_value *most = arith(&b, KILN_OP_ARITH_CEILDIVSI, dv, st);
      kiln_value *zero = idx(&b, 0);
      check_range(r, &b, sz, zero, most, "size", d);
    }
    int64_t c0;
    if (fl_const_index(o, &c0) && c0 == 0) continue; /* size <= ceil(D / stride): span <= D */
    kiln_value *span = sz;
    if (!(kc && k == 1)) {
      kiln_value *m = arith(&b, KILN_OP_ARITH_MULI, sz, st);
      kiln_value *one = idx(&b, 1);
      kiln_value *km1 = arith(&b, KILN_OP_ARITH_SUBI, st, one);
      kiln_value *e = arith(&b, KILN_OP_ARITH_SUBI, m, km1);
      kiln_value *zero = idx(&b, 0);
      span = arith(&b, KILN_OP_ARITH_MAXSI, e, zero);
    }
    kiln_value *hi = arith(&b, KILN_OP_ARITH_SUBI, dv, span);
    kiln_value *zero = idx(&b, 0);
    check_range(r, &b, o, zero, hi, "offset", d);
  }
  return true;
}

/* tensor.extract / tensor.insert at host level: each run-time index (or
 * index into a run-time dim) in [0, D - 1], after D >= 1. */
static bool check_element(rd *r, kiln_op *op) {
  const uint32_t first = op->kind == KILN_OP_TENSOR_INSERT ? 2 : 1;
  kiln_value *t = kiln_op_operand(op, first - 1);
  if (!kiln_type_is_ranked(t->type) || op->num_operands != first + t->type->rank) return true;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  for (uint32_t d = 0; d < t->type->rank; d++) {
    kiln_value *i = kiln_op_operand(op, first + d);
    int64_t ci;
    if (fl_const_index(i, &ci) && t->type->shape[d] != KILN_DYNAMIC) continue; /* the verifier's */
    kiln_value *dv = fl_dim_value(&b, t, d);
    if (!dv || !fl_host_index(i) || !fl_host_index(dv)) continue;
    kiln_value *one = idx(&b, 1);
    kiln_value *any = idx(&b, INT64_MAX);
    check_range(r, &b, dv, one, any, "size", d); /* nothing to index in a 0 dim */
    kiln_value *last = arith(&b, KILN_OP_ARITH_SUBI, dv, one);
    kiln_value *zero = idx(&b, 0);
    check_range(r, &b, i, zero, last, "index", d);
  }
  return true;
}

/* A host tensor.dim of a computed tensor: the value it equals. */
static bool resolve(rd *r, kiln_op *op) {
  kiln_value *src = kiln_op_operand(op, 0);
  int64_t d;
  if (fl_is_func_arg(src)) {
    /* an argument's dim: share the one at the function's entry */
    if (!fl_const_index(kiln_op_operand(op, 1), &d) || d < 0 || d >= (int64_t)src->type->rank) return true;
    kiln_value *v = fl_arg_dim(r->ctx, src, (uint32_t)d);
    if (v != kiln_op_result(op, 0)) {
      kiln_value_replace_all_uses(kiln_op_result(op, 0), v);
      kiln_op_erase(op);
    }
    return true;
  }
  if (!src->def) return true;
  if (!fl_const_index(kiln_op_operand(op, 1), &d) || d < 0 || !kiln_type_is_ranked(src->type) ||
      d >= (int64_t)src->type->rank)
    return kiln_op_fail(&r->err, op, "needs a constant dimension index in host function @%s", r->fname);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *v = fl_dim_value(&b, src, (uint32_t)d);
  if (v == kiln_op_result(op, 0)) return true; /* a host loop's result's, read after it ran (fl_loop_dim) */
  if (!v)
    return kiln_op_fail(&r->err, op, "cannot compute dimension %lld of the result of '%s' before it runs", (long long)d,
                        src->def->name);
  kiln_value_replace_all_uses(kiln_op_result(op, 0), v);
  kiln_op_erase(op);
  return true;
}

static kiln_error *resolve_in(kiln_context *ctx, kiln_op *func, kiln_block *body, void *user) {
  (void)user;
  rd r = {.ctx = ctx, .fname = kiln_symbol_name(func), .body = body};
  if (!r.fname) r.fname = "?";
  bool ok = true;
  for (kiln_op *op = body->first; op && ok;) {
    kiln_op *next = op->next;
    if (op->kind == KILN_OP_TENSOR_DIM) ok = resolve(&r, op);
    else if (kiln_op_has_flag(op, KILN_OPF_LINALG)) ok = check_linalg(&r, op);
    else if (op->kind == KILN_OP_TENSOR_EXPAND_SHAPE) ok = check_expand(&r, op);
    else if (op->kind == KILN_OP_TENSOR_CONCAT) ok = check_concat(&r, op);
    else if (op->kind == KILN_OP_FLOW_TENSOR_RESHAPE) ok = check_view(&r, op);
    else if (op->kind == KILN_OP_TENSOR_EXTRACT_SLICE || op->kind == KILN_OP_TENSOR_INSERT_SLICE)
      ok = check_slice(&r, op);
    else if (op->kind == KILN_OP_TENSOR_EXTRACT || op->kind == KILN_OP_TENSOR_INSERT)
      ok = check_element(&r, op);
    op = next;
  }
  if (!ok) return r.err;
  /* tensor.dim ops the checks and resolution built on computed tensors */
  for (kiln_op *op = body->first; op && ok;) {
    kiln_op *next = op->next;
    if (op->kind == KILN_OP_TENSOR_DIM && kiln_op_operand(op, 0)->def) ok = resolve(&r, op);
    op = next;
  }
  return ok ? NULL : r.err;
}

kiln_error *kiln_flow_pass_resolve_dims(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_func(module, "resolve-dims", resolve_in, NULL);
}
