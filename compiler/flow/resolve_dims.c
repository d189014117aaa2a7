/* resolve-dims: dynamic dimensions of host tensors become host values,
 * and the dimension relations ops rely on become run-time checks.
 *
 * Takes: host functions on tensors; it runs early (after
 * convert-elementwise-to-linalg, so no tensor.dim of an intermediate
 * keeps fusion from seeing single-use values) and again before
 * form-dispatch-regions (for what fusion and views built since).
 * Guarantees:
 *  - every host tensor.dim is of a function argument: a tensor.dim of a
 *    computed tensor is replaced by the value fl_dim_value derives (the
 *    argument dims and size operands it was made from); one it cannot
 *    derive is an error naming the producer;
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
