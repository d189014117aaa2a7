/* form-dispatch-regions: groups host ops into flow.dispatch.region ops,
 * one per future kernel.
 *
 * Takes: host functions after fusion and sink-reshapes. Every op producing a tensor other
 * than arith.constant, tensor.empty, flow.tensor.reshape, flow.text (host
 * text ops) and linalg.fill used only as an init is a root, in program order (matmul, conv,
 * pooling, reductions, softmax, or else an elementwise generic; any other
 * tensor op gets a region of its own). Guarantees: a root absorbs its
 * elementwise consumer chain while the value flowing along it has a
 * single use, and the consumer is an all-parallel linalg.generic that
 * reads it through an identity map and iterates exactly the root result's
 * shape (and, when that shape has run-time dims, has the value's type, so
 * it computes in place: no kernel-local buffer of run-time size); the
 * region returns the values used outside it and carries
 * `workload` = the sizes of the root's parallel loops (KILN_DYNAMIC
 * entries filled by the region's index operands, host values of operand
 * dims bound to those loops). Inits
 * (tensor.empty, fills) stay outside: outline-dispatches clones them.
 * Host scalar ops that outline-dispatches cannot recompute in a kernel
 * (fl_clonable: scf.if / scf.for yielding scalars, oversized expressions)
 * are roots too (workload 1). A scalar a region yields leaves it as a
 * rank-0 tensor (tensor.from_elements inside, index as i64) and is read
 * back on the host with tensor.extract, which kernels then clone: no
 * scalar ever crosses a dispatch boundary. */
#include "fl_internal.h"

#include <string.h>

/* A fill whose every use writes it as an init: cloned into kernels. */
static bool init_only_fill(kiln_op *op) {
  if (op->kind != KILN_OP_LINALG_FILL || op->num_results != 1) return false;
  for (kiln_use *u = op->results[0].uses; u; u = u->next)
    if (!kiln_op_has_flag(u->owner, KILN_OPF_LINALG) ||
        u->index < kiln_linalg_num_inputs(u->owner))
      return false;
  return true;
}

static bool is_root(kiln_op *op) {
  if (op->num_results == 0 || op->kind == KILN_OP_FUNC_RETURN) return false;
  switch (op->kind) {
  case KILN_OP_ARITH_CONSTANT:
  case KILN_OP_TENSOR_EMPTY:
  case KILN_OP_FLOW_TENSOR_RESHAPE:
  case KILN_OP_FLOW_DISPATCH:
  case KILN_OP_FLOW_DISPATCH_REGION:
  case KILN_OP_FLOW_TEXT: /* text runs on the host (plan-memory) */
  case KILN_OP_FUNC_CALL: return false; /* calls stay on the host (plan-memory rejects them) */
  default: break;
  }
  if (init_only_fill(op)) return false;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind == KILN_TYPE_TENSOR) return true;
  /* Scalar ops: kernels recompute what they can clone; the rest (scf.if,
   * scf.for yielding scalars, expressions over the clone budget) run once
   * in a dispatch of their own. Visited in program order, so the scalars
   * they read are already clonable extracts of earlier dispatches. */
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!fl_clonable(&op->results[i]) && !fl_host_index(&op->results[i])) return true;
  return false;
}

/* The single consumer of op's result that may join op's region, or NULL. */
static kiln_op *fusable_consumer(kiln_op *op, const kiln_type *shape) {
  if (op->num_results != 1 || !kiln_value_has_one_use(&op->results[0])) return NULL;
  kiln_use *u = op->results[0].uses;
  kiln_op *c = u->owner;
  if (c->kind != KILN_OP_LINALG_GENERIC || c->parent != op->parent || !fl_all_parallel(c))
    return NULL;
  uint32_t cin = kiln_linalg_num_inputs(c);
  if (u->index >= cin || c->num_results != 1) return NULL;
  /* a value of run-time size that the consumer cannot overwrite in place
   * (another type: bufferize-kernels' rule) would need a kernel-local
   * buffer of run-time size, which kernels cannot allocate: the consumer
   * gets a dispatch of its own */
  if (kiln_type_num_dynamic_dims(op->results[0].type) && c->results[0].type != op->results[0].type) return NULL;
  kiln_context *ctx = kiln_op_context(c);
  const kiln_affine_map **maps = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *maps);
  int64_t bounds[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, bounds, maps, NULL);
  if (loops != (int)shape->rank || !kiln_affine_map_is_identity(maps[u->index])) return NULL;
  for (uint32_t i = cin; i < c->num_operands; i++)
    if (!kiln_affine_map_is_identity(maps[i])) return NULL;
  for (int i = 0; i < loops; i++)
    if (bounds[i] != (shape->shape[i] == KILN_DYNAMIC ? -1 : shape->shape[i])) return NULL;
  return c;
}

/* The root's parallel loop sizes; a dynamic one is KILN_DYNAMIC and its
 * host value (an operand dim bound to the loop, outputs first) goes to
 * dyn, built before the root. */
static const kiln_attr *workload_of(kiln_context *ctx, kiln_op *root, kiln_value **dyn, uint32_t *ndyn) {
  int64_t bounds[KILN_MAX_LOOPS], w[KILN_MAX_LOOPS];
  bool red[KILN_MAX_LOOPS];
  uint32_t n = 0;
  *ndyn = 0;
  kiln_builder b = kiln_builder_before(root);
  b.loc = root->loc;
  const kiln_affine_map **maps = kiln_alloc(ctx, (root->num_operands + 1) * sizeof *maps);
  int loops = kiln_op_has_flag(root, KILN_OPF_LINALG) ? fl_iteration(root, bounds, maps, red) : -1;
  if (loops >= 0) {
    for (int l = 0; l < loops; l++) {
      if (red[l]) continue;
      kiln_value *v = NULL;
      for (uint32_t k = 0; bounds[l] < 0 && !v && k < root->num_operands; k++) {
        uint32_t i = (k + kiln_linalg_num_inputs(root)) % root->num_operands; /* outputs first */
        kiln_value *x = kiln_op_operand(root, i);
        if (x->type->kind != KILN_TYPE_TENSOR) continue;
        for (uint32_t d = 0; d < maps[i]->num_results && d < x->type->rank; d++)
          if (maps[i]->results[d]->kind == KILN_AFFINE_DIM && maps[i]->results[d]->value == (int64_t)l) {
            v = fl_build_dim(&b, x, d);
            break;
          }
      }
      if (v) dyn[(*ndyn)++] = v, w[n++] = KILN_DYNAMIC;
      else w[n++] = bounds[l] < 0 ? 1 : bounds[l];
    }
  } else {
    const kiln_type *t = root->results[0].type;
    for (uint32_t i = 0; kiln_type_is_ranked(t) && i < t->rank && i < KILN_MAX_LOOPS; i++) {
      if (t->kind != KILN_TYPE_TENSOR) { /* not a dispatch: outline-dispatches reports it */
        w[n++] = t->shape[i] == KILN_DYNAMIC ? 1 : t->shape[i];
        continue;
      }
      if (t->shape[i] != KILN_DYNAMIC) {
        w[n++] = t->shape[i];
        continue;
      }
      dyn[(*ndyn)++] = fl_build_dim(&b, kiln_op_result(root, 0), i);
      w[n++] = KILN_DYNAMIC;
    }
  }
  if (n == 0) w[n++] = 1;
  return kiln_attr_dense_i64_array(ctx, n, w);
}

static bool in_group(kiln_op *const *g, uint32_t n, const kiln_op *op) {
  for (uint32_t i = 0; i < n; i++)
    if (g[i] == op) return true;
  return false;
}

static void form(kiln_context *ctx, kiln_op *root) {
  kiln_op *group[64];
  uint32_t n = 0;
  group[n++] = root;
  if (root->num_results == 1 && root->results[0].type->kind == KILN_TYPE_TENSOR) {
    const kiln_type *shape = root->results[0].type;
    kiln_op *c;
    while (n < 64 && (c = fusable_consumer(group[n - 1], shape))) group[n++] = c;
  }
  /* values used outside the group */
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += group[i]->num_results;
  kiln_value **esc = kiln_alloc(ctx, (total + 1) * sizeof *esc);
  const kiln_type **types = kiln_alloc(ctx, (total + 1) * sizeof *types);
  uint32_t ne = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t r = 0; r < group[i]->num_results; r++) {
      kiln_value *v = kiln_op_result(group[i], r);
      for (kiln_use *u = v->uses; u; u = u->next)
        if (!in_group(group, n, u->owner)) {
          /* a scalar leaves as a rank-0 tensor (see below) */
          types[ne] = fl_is_scalar(v->type) ? fl_scalar_tensor_type(ctx, v->type) : v->type;
          esc[ne++] = v;
          break;
        }
    }
  kiln_op *last = group[n - 1];
  kiln_value *wdyn[KILN_MAX_LOOPS];
  uint32_t nwdyn;
  const kiln_attr *attrs = kiln_dict_set(ctx, kiln_attr_dict(ctx, 0, NULL), "workload",
                                         workload_of(ctx, root, wdyn, &nwdyn));
  kiln_op *region = kiln_op_create(ctx, KILN_OP_FLOW_DISPATCH_REGION, root->loc, nwdyn, wdyn, ne,
                                   types, attrs, 1);
  kiln_block_insert_before(last, region);
  kiln_block *body = kiln_op_entry_block(ctx, region, 0);
  for (uint32_t i = 0; i < n; i++) {
    kiln_op_remove(group[i]);
    kiln_block_append_op(body, group[i]);
  }
  /* A scalar leaving the region travels as a rank-0 tensor (a kernel
   * writes only bindings); the host reads it back with tensor.extract,
   * which kernels using it clone. */
  kiln_value **ret_vals = kiln_alloc(ctx, (ne + 1) * sizeof *ret_vals);
  kiln_builder in = kiln_builder_at_end(ctx, body);
  in.loc = root->loc;
  for (uint32_t e = 0; e < ne; e++)
    ret_vals[e] = fl_is_scalar(esc[e]->type) ? fl_build_scalar_to_tensor(&in, esc[e]) : esc[e];
  kiln_op *ret = kiln_op_create(ctx, KILN_OP_FLOW_RETURN, root->loc, ne, ret_vals, 0, NULL, NULL, 0);
  kiln_block_append_op(body, ret);
  kiln_builder out = kiln_builder_after(region);
  out.loc = root->loc;
  for (uint32_t e = 0; e < ne; e++) {
    kiln_value *v = esc[e], *r = kiln_op_result(region, e);
    if (ret_vals[e] != v) r = fl_build_tensor_to_scalar(&out, r, v->type);
    for (kiln_use *u = v->uses, *next; u; u = next) {
      next = u->next;
      if (u->owner != ret && !kiln_op_is_inside(u->owner, region))
        kiln_op_set_operand(u->owner, u->index, r);
    }
  }
}

static void form_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  /* Visit the ops in their original order from a snapshot: a region
   * sits where its group's last op was, so ops between a root and its
   * last consumer (the other reduction a rank-0 division reads) come
   * before it and would be skipped by resuming after the region. */
  uint32_t n = 0;
  for (kiln_op *op = body->first; op; op = op->next) n++;
  kiln_op **ops = kiln_alloc(ctx, (n + 1) * sizeof *ops);
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next) ops[n++] = op;
  for (uint32_t i = 0; i < n; i++)
    if (ops[i]->parent == body && is_root(ops[i])) form(ctx, ops[i]);
}

kiln_error *kiln_flow_pass_form_dispatch_regions(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "form-dispatch-regions", form_in, NULL);
}
