/* Helpers of the flow passes: linalg.generic construction, iteration
 * spaces with loop bounds, affine map composition. See fl_internal.h. */
#include "fl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session.h"

kiln_error *fl_each_host_func(kiln_op *module, const char *pass, kiln_func_fn fn, void *user) {
  kiln_error *err = fl_require_valid(module, pass);
  return err ? err : kiln_each_func(module, fn, user);
}

typedef struct each_body {
  fl_body_fn fn;
  void *user;
} each_body;

static kiln_error *body_of(kiln_context *ctx, kiln_op *func, kiln_block *body, void *user) {
  (void)func;
  const each_body *e = user;
  e->fn(ctx, body, e->user);
  return NULL;
}

kiln_error *fl_each_host_body(kiln_op *module, const char *pass, fl_body_fn fn, void *user) {
  each_body e = {fn, user};
  return fl_each_host_func(module, pass, body_of, &e);
}

typedef struct each_op {
  fl_op_fn fn;
  void *user;
} each_op;

static void ops_of(kiln_context *ctx, kiln_block *body, void *user) {
  const each_op *e = user;
  for (kiln_op *op = body->first, *next; op; op = next) {
    next = op->next;
    e->fn(ctx, op, &next, e->user);
  }
}

kiln_error *fl_each_host_op(kiln_op *module, const char *pass, fl_op_fn fn, void *user) {
  each_op e = {fn, user};
  return fl_each_host_body(module, pass, ops_of, &e);
}

bool fl_is_static_tensor(const kiln_type *t) {
  return t->kind == KILN_TYPE_TENSOR && kiln_type_has_static_shape(t);
}

bool fl_is_scalar(const kiln_type *t) {
  switch (t->kind) {
  case KILN_TYPE_INTEGER:
  case KILN_TYPE_INDEX:
  case KILN_TYPE_F16:
  case KILN_TYPE_BF16:
  case KILN_TYPE_F32:
  case KILN_TYPE_F64: return true;
  default: return false;
  }
}

const kiln_type *fl_scalar_tensor_type(kiln_context *ctx, const kiln_type *t) {
  if (t->kind == KILN_TYPE_INDEX) t = kiln_type_int(ctx, 64);
  return kiln_type_tensor(ctx, 0, NULL, t, NULL);
}

kiln_value *fl_build_scalar_to_tensor(kiln_builder *b, kiln_value *v) {
  if (v->type->kind == KILN_TYPE_INDEX) {
    const kiln_type *i64 = kiln_type_int(b->ctx, 64);
    v = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &i64, NULL), 0);
  }
  const kiln_type *t = fl_scalar_tensor_type(b->ctx, v->type);
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_FROM_ELEMENTS, 1, &v, 1, &t, NULL), 0);
}

kiln_value *fl_build_tensor_to_scalar(kiln_builder *b, kiln_value *t,
                                      const kiln_type *scalar) {
  const kiln_type *elem = t->type->elem;
  kiln_value *v =
      kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1, &t, 1, &elem, NULL), 0);
  if (scalar->kind == KILN_TYPE_INDEX)
    v = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &scalar, NULL), 0);
  return v;
}

/* Operands are shared (a DAG), so the walk is bounded by a visit budget:
 * a scalar expression too large to recompute is not clonable, and
 * form-dispatch-regions then gives it a dispatch of its own. */
static bool clonable_in(kiln_value *v, int *budget) {
  kiln_op *d = v->def;
  if (!d || --*budget < 0) return false;
  if (d->kind == KILN_OP_ARITH_CONSTANT) return !kiln_type_is_shaped(v->type);
  /* sizes of an empty tensor are cloned or passed as push constants */
  if (d->kind == KILN_OP_TENSOR_EMPTY) {
    for (uint32_t i = 0; i < d->num_operands; i++)
      if (!clonable_in(kiln_op_operand(d, i), budget) && !fl_host_index(kiln_op_operand(d, i)))
        return false;
    return true;
  }
  /* a dim travels as a push constant, not as the tensor it measures */
  if (d->kind == KILN_OP_TENSOR_DIM) return false;
  if (d->kind == KILN_OP_LINALG_FILL && d->num_operands == 2 && d->num_results == 1)
    return clonable_in(kiln_op_operand(d, 0), budget) &&
           clonable_in(kiln_op_operand(d, 1), budget);
  if (!kiln_op_has_flag(d, KILN_OPF_PURE) || d->num_regions) return false;
  for (uint32_t i = 0; i < d->num_results; i++)
    if (kiln_type_is_shaped(d->results[i].type)) return false;
  for (uint32_t i = 0; i < d->num_operands; i++) {
    kiln_value *o = kiln_op_operand(d, i);
    if (o->type->kind != KILN_TYPE_TENSOR && !clonable_in(o, budget)) return false;
  }
  return true;
}

kiln_value *fl_bits_of_arg(kiln_value *t) {
  /* a float argument read as its bits: a bitcast (a view after
   * reshapes-to-views) to integers of the same shape and width */
  kiln_op *d = t->def;
  if (d && (d->kind == KILN_OP_TENSOR_BITCAST || d->kind == KILN_OP_FLOW_TENSOR_RESHAPE) && d->num_operands == 1) {
    kiln_value *a = kiln_op_operand(d, 0);
    const kiln_type *at = a->type, *tt = t->type;
    if (at->kind == KILN_TYPE_TENSOR && tt->kind == KILN_TYPE_TENSOR && at->rank == tt->rank &&
        kiln_type_has_static_shape(at) && kiln_type_is_float(at->elem) && at->elem->width == tt->elem->width &&
        memcmp(at->shape, tt->shape, at->rank * sizeof *at->shape) == 0)
      t = a;
  }
  return t;
}

/* Is b the body of a function at module level (a host function)? */
static bool host_body(const kiln_block *b) {
  const kiln_op *f = b ? kiln_block_parent_op(b) : NULL;
  if (!f || f->kind != KILN_OP_FUNC_FUNC || f->regions[0].first != b) return false;
  const kiln_op *m = kiln_op_parent_op(f);
  return m && m->kind == KILN_OP_BUILTIN_MODULE;
}

bool fl_host_load(const kiln_op *op) {
  if (op->kind != KILN_OP_TENSOR_EXTRACT || op->num_results != 1 ||
      op->results[0].type->kind != KILN_TYPE_INTEGER || op->results[0].type->width < 32)
    return false;
  kiln_value *t = kiln_op_operand(op, 0);
  if (!kiln_type_has_static_shape(t->type) || !host_body(op->parent)) return false;
  /* an argument's data (or a float argument's bits), or a tensor the
   * host function computes (the host waits for the commands computing
   * it, then reads it) */
  if (!fl_is_func_arg(fl_bits_of_arg(t)) && !(t->def && t->def->parent == op->parent)) return false;
  for (uint32_t i = 1; i < op->num_operands; i++) {
    const kiln_attr *a = kiln_value_constant(kiln_op_operand(op, i));
    if (!a || a->kind != KILN_ATTR_INTEGER) return false;
  }
  return true;
}

bool fl_host_loop_body(const kiln_op *fn) {
  return fn && fn->kind == KILN_OP_FUNC_FUNC && fn->num_regions && fn->regions[0].first &&
         kiln_op_get_attr(fn, "kiln.host_loop_body");
}

static const kiln_op *callee_fn(const kiln_op *call) {
  const kiln_attr *c = kiln_op_get_attr(call, "callee");
  const kiln_op *m = call;
  while (m && m->kind != KILN_OP_BUILTIN_MODULE) m = kiln_op_parent_op((kiln_op *)m);
  return c && c->kind == KILN_ATTR_SYMBOL_REF && m ? kiln_symbol_lookup((kiln_op *)m, c->str) : NULL;
}

/* An scf.for at the top of a host function calling a host-loop body:
 * the candidates of fl_host_loop, whose block arguments are host index
 * values (checked without fl_host_index, which asks this). */
static bool calls_loop_body(const kiln_op *op) {
  if (op->kind != KILN_OP_SCF_FOR || !op->parent || !op->regions[0].first) return false;
  const kiln_op *fn = kiln_block_parent_op(op->parent);
  if (!fn || fn->kind != KILN_OP_FUNC_FUNC) return false;
  for (kiln_op *o = op->regions[0].first->first; o; o = o->next)
    if (o->kind == KILN_OP_FUNC_CALL && fl_host_loop_body(callee_fn(o))) return true;
  return false;
}

/* Is v a tensor the host loop `loop` defines in its block: a call's
 * result, a carried value, a buffer it allocates or a row write? */
static bool loop_tensor(const kiln_value *v, const kiln_block *lb) {
  if (v->type->kind != KILN_TYPE_TENSOR) return false;
  if (!v->def) return v->block == lb && v->index > 0; /* argument 0 is the step */
  return v->def->parent == lb && (v->def->kind == KILN_OP_FUNC_CALL || v->def->kind == KILN_OP_TENSOR_EMPTY ||
                                  v->def->kind == KILN_OP_TENSOR_INSERT_SLICE);
}

/* A scan row write of a host loop (the ONNX importer's host_steps):
 * tensor.empty sized by host index values, or tensor.insert_slice of a
 * call's result into such a buffer or a carried one. */
static bool row_write(const kiln_op *o, const kiln_block *lb) {
  if (o->kind == KILN_OP_TENSOR_EMPTY) {
    for (uint32_t i = 0; i < o->num_operands; i++)
      if (!fl_host_index(kiln_op_operand((kiln_op *)o, i))) return false;
    return true;
  }
  if (o->kind != KILN_OP_TENSOR_INSERT_SLICE || o->num_operands < 2) return false;
  kiln_value *src = kiln_op_operand((kiln_op *)o, 0), *dst = kiln_op_operand((kiln_op *)o, 1);
  if (!src->def || src->def->kind != KILN_OP_FUNC_CALL || !loop_tensor(src, lb) || !loop_tensor(dst, lb)) return false;
  for (uint32_t i = 2; i < o->num_operands; i++)
    if (!fl_host_index(kiln_op_operand((kiln_op *)o, i))) return false;
  return true;
}

bool fl_host_loop(const kiln_op *op) {
  if (!calls_loop_body(op)) return false;
  for (kiln_op *o = op->regions[0].first->first; o; o = o->next) {
    if (o->kind == KILN_OP_SCF_YIELD || (o->kind == KILN_OP_FUNC_CALL && fl_host_loop_body(callee_fn(o))) ||
        row_write(o, op->regions[0].first))
      continue;
    for (uint32_t r = 0; r < o->num_results; r++)
      if (!fl_host_index(&o->results[r])) return false;
    if (!o->num_results) return false;
  }
  return true;
}

bool fl_host_index(kiln_value *v) {
  if (v->type->kind != KILN_TYPE_INDEX) return false;
  kiln_op *d = v->def;
  if (!d) { /* a host loop body's index argument; a host loop's step number or carried index */
    const kiln_op *owner = kiln_block_parent_op(v->block);
    if (owner && owner->kind == KILN_OP_FUNC_FUNC) return fl_host_loop_body(owner);
    return owner && calls_loop_body(owner);
  }
  switch (d->kind) {
  case KILN_OP_ARITH_CONSTANT:
  case KILN_OP_FLOW_LIST_SIZE: return true; /* a list's length, read by the host */
  case KILN_OP_ARITH_INDEX_CAST: {
    kiln_op *e = kiln_op_operand(d, 0)->def;
    return e && fl_host_load(e);
  }
  case KILN_OP_TENSOR_DIM: { /* of an argument, or of a host loop's result (read after the loop ran) */
    kiln_value *t = kiln_op_operand(d, 0);
    if (d->parent && kiln_block_parent_op(d->parent) && calls_loop_body(kiln_block_parent_op(d->parent)))
      return loop_tensor(t, d->parent); /* inside a host loop: of its tensors, after they are made */
    return fl_is_func_arg(t) || (t->def && t->def->parent == d->parent &&
                                  (fl_host_loop(t->def) || t->def->kind == KILN_OP_FLOW_LIST_GET));
  }
  case KILN_OP_ARITH_ADDI:
  case KILN_OP_ARITH_SUBI:
  case KILN_OP_ARITH_MULI:
  case KILN_OP_ARITH_DIVSI:
  case KILN_OP_ARITH_DIVUI:
  case KILN_OP_ARITH_CEILDIVSI:
  case KILN_OP_ARITH_REMSI:
  case KILN_OP_ARITH_MINSI:
  case KILN_OP_ARITH_MAXSI:
    return fl_host_index(kiln_op_operand(d, 0)) && fl_host_index(kiln_op_operand(d, 1));
  default: return false;
  }
}

bool fl_clonable(kiln_value *v) {
  int budget = FL_CLONE_BUDGET;
  return clonable_in(v, &budget);
}

const kiln_attr *fl_iterator_attr(kiln_context *ctx, bool reduction) {
  return kiln_attr_opaque(ctx, "linalg",
                          reduction ? "iterator_type<reduction>" : "iterator_type<parallel>");
}

kiln_op *fl_build_generic(kiln_builder *b, uint32_t nin, kiln_value *const *ins,
                          uint32_t nout, kiln_value *const *outs,
                          const kiln_affine_map *const *maps, uint32_t loops,
                          const bool *reduction) {
  kiln_context *ctx = b->ctx;
  uint32_t n = nin + nout;
  kiln_value **ops = kiln_alloc(ctx, (n + 1) * sizeof *ops);
  const kiln_attr **mattrs = kiln_alloc(ctx, (n + 1) * sizeof *mattrs);
  const kiln_attr **its = kiln_alloc(ctx, (loops + 1) * sizeof *its);
  const kiln_type **rtypes = kiln_alloc(ctx, (nout + 1) * sizeof *rtypes);
  uint32_t nres = 0;
  for (uint32_t i = 0; i < nin; i++) ops[i] = ins[i];
  for (uint32_t i = 0; i < nout; i++) {
    ops[nin + i] = outs[i];
    if (outs[i]->type->kind == KILN_TYPE_TENSOR) rtypes[nres++] = outs[i]->type;
  }
  for (uint32_t i = 0; i < n; i++) mattrs[i] = kiln_attr_affine_map(ctx, maps[i]);
  for (uint32_t i = 0; i < loops; i++) its[i] = fl_iterator_attr(ctx, reduction && reduction[i]);
  int64_t seg[2] = {nin, nout};
  kiln_named_attr e[3] = {
      {kiln_intern_cstr(ctx, "indexing_maps"), kiln_attr_array(ctx, n, mattrs)},
      {kiln_intern_cstr(ctx, "iterator_types"), kiln_attr_array(ctx, loops, its)},
      {kiln_intern_cstr(ctx, "operandSegmentSizes"),
       kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 2, seg, NULL)},
  };
  kiln_op *g = kiln_op_create(ctx, KILN_OP_LINALG_GENERIC, b->loc, n, ops, nres, rtypes,
                              kiln_attr_dict(ctx, 3, e), 1);
  kiln_builder_insert(b, g);
  kiln_block *body = kiln_op_entry_block(ctx, g, 0);
  for (uint32_t i = 0; i < n; i++)
    kiln_block_add_arg(ctx, body, kiln_type_elem_or_self(ops[i]->type), b->loc);
  return g;
}

void fl_build_yield(kiln_context *ctx, kiln_block *block, uint32_t n,
                    kiln_value *const *vals, kiln_loc loc) {
  kiln_op *y = kiln_op_create(ctx, KILN_OP_LINALG_YIELD, loc, n, vals, 0, NULL, NULL, 0);
  kiln_block_append_op(block, y);
}

kiln_value *fl_build_empty(kiln_builder *b, const kiln_type *type) {
  kiln_op *e = kiln_build(b, KILN_OP_TENSOR_EMPTY, 0, NULL, 1, &type, NULL);
  return kiln_op_result(e, 0);
}

kiln_value *fl_build_copy(kiln_builder *b, kiln_value *v) {
  kiln_value *dims[KILN_MAX_LOOPS];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < v->type->rank && nd < KILN_MAX_LOOPS; d++)
    if (v->type->shape[d] == KILN_DYNAMIC) dims[nd++] = fl_build_dim(b, v, d);
  kiln_value *out = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EMPTY, nd, dims, 1, &v->type, NULL), 0);
  const kiln_affine_map *id = kiln_affine_map_identity(b->ctx, v->type->rank);
  const kiln_affine_map *maps[2] = {id, id};
  kiln_op *g = fl_build_generic(b, 1, &v, 1, &out, maps, v->type->rank, NULL);
  kiln_block *body = g->regions[0].first;
  fl_build_yield(b->ctx, body, 1, &body->args[0], b->loc);
  return kiln_op_result(g, 0);
}

int fl_iteration(const kiln_op *op, int64_t *bounds, const kiln_affine_map **maps,
                 bool *reduction) {
  kiln_context *ctx = kiln_op_context(op);
  bool red[KILN_MAX_LOOPS] = {0};
  if (op->kind == KILN_OP_LINALG_SOFTMAX) {
    const kiln_type *t = op->num_results ? op->results[0].type
                                         : (op->num_operands ? kiln_op_operand(op, 0)->type : NULL);
    if (!t || !kiln_type_is_ranked(t) || t->rank > KILN_MAX_LOOPS) return -1;
    const kiln_attr *d = kiln_op_get_attr(op, "dimension");
    for (uint32_t i = 0; i < t->rank; i++) {
      if (bounds) bounds[i] = t->shape[i] == KILN_DYNAMIC ? -1 : t->shape[i];
      red[i] = d && d->kind == KILN_ATTR_INTEGER && d->i == (int64_t)i;
    }
    if (reduction) memcpy(reduction, red, t->rank * sizeof *red);
    if (maps)
      for (uint32_t i = 0; i < op->num_operands; i++)
        maps[i] = kiln_affine_map_identity(ctx, t->rank);
    return (int)t->rank;
  }
  const kiln_affine_map **m = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *m);
  int loops = kiln_linalg_iteration(op, m, red);
  if (loops < 0) return -1;
  if (bounds) {
    for (int i = 0; i < loops; i++) bounds[i] = -1;
    for (uint32_t i = 0; i < op->num_operands; i++) {
      const kiln_type *t = kiln_op_operand(op, i)->type;
      if (!kiln_type_is_shaped(t) || !kiln_type_is_ranked(t)) continue;
      for (uint32_t d = 0; d < m[i]->num_results && d < t->rank; d++) {
        const kiln_affine_expr *e = m[i]->results[d];
        if (e->kind == KILN_AFFINE_DIM && bounds[e->value] < 0 && t->shape[d] != KILN_DYNAMIC)
          bounds[e->value] = t->shape[d];
      }
    }
  }
  if (maps)
    for (uint32_t i = 0; i < op->num_operands; i++) maps[i] = m[i];
  if (reduction) memcpy(reduction, red, (size_t)loops * sizeof *red);
  return loops;
}

/* strides / dilations of a named op (absent: 1); false when malformed. */
bool fl_pair_attr(const kiln_op *op, const char *name, int64_t out[2]) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  out[0] = out[1] = 1;
  if (!a) return true;
  if (a->kind == KILN_ATTR_DENSE && kiln_dense_count(a) == 2)
    out[0] = kiln_dense_get_int(a, 0), out[1] = kiln_dense_get_int(a, 1);
  else if (a->kind == KILN_ATTR_DENSE_ARRAY && a->count == 2)
    out[0] = ((const int64_t *)a->data)[0], out[1] = ((const int64_t *)a->data)[1];
  else
    return false;
  return out[0] >= 1 && out[1] >= 1;
}

bool fl_all_parallel(const kiln_op *op) {
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(op, NULL, NULL, red);
  if (loops < 0) return false;
  for (int i = 0; i < loops; i++)
    if (red[i]) return false;
  return true;
}

bool fl_is_copy(const kiln_op *op) {
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_operands != 2 || op->num_results != 1 ||
      kiln_linalg_num_inputs(op) != 1 || !fl_all_parallel(op))
    return false;
  kiln_block *b = op->regions[0].first;
  kiln_op *y = b ? b->first : NULL;
  return y && y->kind == KILN_OP_LINALG_YIELD && y->num_operands == 1 && b->num_args == 2 &&
         kiln_op_operand(y, 0) == b->args[0];
}

const kiln_affine_expr *fl_affine_substitute(kiln_context *ctx,
                                             const kiln_affine_expr *e,
                                             const kiln_affine_expr *const *subs) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: return subs[e->value];
  case KILN_AFFINE_SYMBOL:
  case KILN_AFFINE_CONST: return e;
  default:
    return kiln_affine_binary(ctx, e->kind, fl_affine_substitute(ctx, e->lhs, subs),
                              fl_affine_substitute(ctx, e->rhs, subs));
  }
}

const kiln_affine_map *fl_affine_compose(kiln_context *ctx,
                                         const kiln_affine_map *outer,
                                         const kiln_affine_map *inner) {
  const kiln_affine_expr **r = kiln_alloc(ctx, (outer->num_results + 1) * sizeof *r);
  for (uint32_t i = 0; i < outer->num_results; i++)
    r[i] = fl_affine_substitute(ctx, outer->results[i], inner->results);
  return kiln_affine_map_get(ctx, inner->num_dims, inner->num_symbols, outer->num_results, r);
}

kiln_error *fl_require_valid(kiln_op *module, const char *pass) { return kiln_verify_input(module, pass); }

bool fl_targets_cpu(const kiln_op *module) {
  const kiln_session *s = kiln_session_of(kiln_op_context(module));
  const char *const *targets;
  const uint32_t n = s ? kiln_session_targets(s, &targets) : 0;
  if (!n) return true;
  for (uint32_t i = 0; i < n; i++)
    if (strncmp(targets[i], "llvm-cpu", 8) == 0) return true;
  return false;
}

const kiln_type *fl_dispatch_tensor_type(kiln_context *ctx, const char *access, const kiln_type *t) {
  char *ts = kiln_type_to_string(t);
  size_t n = strlen(ts) + strlen(access) + 32;
  char *body = malloc(n);
  snprintf(body, n, "dispatch.tensor<%s:%s>", access, ts);
  const kiln_type *r = kiln_type_opaque(ctx, "flow", kiln_intern_cstr(ctx, body));
  free(ts);
  free(body);
  return r;
}
