/* outline-dispatches: every flow.dispatch.region becomes a kernel in its
 * own flow.executable and a flow.dispatch call on the host.
 *
 * Takes: host functions whose regions came from form-dispatch-regions.
 * Guarantees (PIPELINE.md, flow): flow.executable @F_dispatch_N holds one
 * func.func @F_dispatch_N whose arguments are the captured tensors as
 * !flow.dispatch.tensor<readonly:...>, then one writeonly argument per
 * region result; its body loads each input once, recomputes the region,
 * stores each result once and returns; then one index argument per push
 * constant: the host values of the bound tensors' dynamic dims (loads
 * and stores take theirs), of the workload and of captured host index
 * values (fl_host_index), each once. Cheap producers (fl_clonable:
 * scalar arith.constant, tensor.empty, linalg.fill of such, side-effect-
 * free scalar ops such as tensor.extract whose tensors are then passed,
 * e.g. the rank-0 tensors tensorize-scalars made of scalar arguments) are
 * cloned into the kernel instead of being passed; dense tensor constants
 * (weights) stay on the host and are passed. The flow.dispatch carries entry_point =
 * @exe::@fn, the region's workload (workload_dims: the push constants
 * filling its dynamic entries) and result_dims (the push constant of each
 * dynamic result dim); its operands are the tensors, then the push
 * constants' host values. A captured value that is neither a tensor, a
 * host index value nor clonable, or a func.call inside the region, is an
 * error naming the dispatch; so is any host op left besides flow.dispatch,
 * flow.tensor.reshape, arith.constant, host index arithmetic (tensor.dim
 * of arguments, fl_host_load's reads of argument data), flow.check.dim_eq,
 * flow.check.shape, flow.check.range and func.return. */
#include "fl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v in the kernel: its mapped value (kernel argument, push constant or an
 * earlier clone), else a clone of its producer after its operands'. */
static kiln_value *clone_producer(kiln_context *ctx, kiln_block *into, kiln_value *v,
                                  kiln_value_map *map) {
  kiln_value *m = kiln_value_map_lookup(map, v);
  if (m) return m;
  kiln_op *d = v->def;
  for (uint32_t i = 0; i < d->num_operands; i++)
    if (fl_clonable(kiln_op_operand(d, i))) clone_producer(ctx, into, kiln_op_operand(d, i), map);
  kiln_op *c = kiln_op_clone(d, map);
  kiln_block_append_op(into, c);
  return kiln_value_map_lookup(map, v);
}

typedef struct captures {
  kiln_value **v;
  uint32_t n, cap;
} captures;

static void add_capture(captures *c, kiln_value *v) {
  for (uint32_t i = 0; i < c->n; i++)
    if (c->v[i] == v) return;
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 16;
    c->v = realloc(c->v, c->cap * sizeof *c->v);
  }
  c->v[c->n++] = v;
}

/* The host index values a kernel receives as push constants (index
 * arguments after the tensors), each once. */
typedef struct pushes {
  kiln_value *v[256];
  uint32_t n;
  bool overflow;
} pushes;

static int64_t push(pushes *p, kiln_value *v) {
  for (uint32_t i = 0; i < p->n; i++)
    if (p->v[i] == v || fl_same_dim(p->v[i], v)) return i;
  if (p->n == sizeof p->v / sizeof p->v[0]) {
    p->overflow = true;
    return 0;
  }
  p->v[p->n] = v;
  return p->n++;
}

typedef struct walk_state {
  kiln_op *region;
  captures *caps;
  kiln_op *call; /* a func.call inside the region, if any */
} walk_state;

static kiln_walk_result collect(kiln_op *op, void *user) {
  walk_state *w = user;
  if (op->kind == KILN_OP_FUNC_CALL && !w->call) w->call = op;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    kiln_op *owner = kiln_value_owner_op(v);
    if (owner != w->region && !kiln_op_is_inside(owner, w->region)) add_capture(w->caps, v);
  }
  return KILN_WALK_ADVANCE;
}

static const char *unique_name(kiln_context *ctx, kiln_op *module, const char *fn, uint32_t *counter) {
  char buf[512];
  for (;;) {
    snprintf(buf, sizeof buf, "%s_dispatch_%u", fn, (*counter)++);
    if (!kiln_symbol_lookup(module, buf)) return kiln_intern_cstr(ctx, buf);
  }
}

/* Host values of the dynamic dims of tensor v (built before `at`), each
 * pushed; their push positions go to pos (one per dynamic dim). False
 * when some dim has no host value. */
static bool push_dims(kiln_op *at, kiln_value *v, pushes *p, int64_t *pos) {
  kiln_builder b = kiln_builder_before(at);
  b.loc = at->loc;
  uint32_t k = 0;
  for (uint32_t d = 0; d < v->type->rank; d++) {
    if (v->type->shape[d] != KILN_DYNAMIC) continue;
    kiln_value *x = fl_dim_value(&b, v, d);
    if (!x) return false;
    pos[k++] = push(p, x);
  }
  return true;
}


/* The dispatch site's location: the region's, naming every source node
 * computed in it (kiln_loc.nodes), so tools can say which ONNX nodes or
 * MLIR ops a dispatch runs. Placeholders (tensor.empty, constants) and
 * the terminator name nothing of their own. */
static kiln_loc dispatch_loc(kiln_context *ctx, kiln_op *region) {
  kiln_loc loc = region->loc;
  loc.nodes = NULL;
  for (kiln_op *o = region->regions[0].first->first; o; o = o->next)
    if (o->kind != KILN_OP_FLOW_RETURN && o->kind != KILN_OP_TENSOR_EMPTY &&
        o->kind != KILN_OP_ARITH_CONSTANT)
      loc.nodes = kiln_loc_nodes_add(ctx, loc.nodes, o);
  return loc;
}
static kiln_error *outline(kiln_context *ctx, kiln_op *module, kiln_op *func, kiln_op *region,
                           const char *name) {
  captures caps = {0};
  walk_state w = {region, &caps, NULL};
  kiln_walk_pre(region, collect, &w);
  if (w.call) {
    /* the callee is a host symbol the kernel's executable cannot see */
    const kiln_attr *callee = kiln_op_get_attr(w.call, "callee");
    const char *cn = callee && callee->kind == KILN_ATTR_SYMBOL_REF ? callee->str : "?";
    free(caps.v);
    return kiln_op_error(w.call, "dispatch '%s' would call @%s from a kernel (calls inside kernels are "
                         "not supported); inline it first", name, cn);
  }
  /* what cloned producers read is passed as well */
  for (uint32_t i = 0; i < caps.n; i++) {
    kiln_op *d = caps.v[i]->def;
    if (!d || !fl_clonable(caps.v[i])) continue;
    for (uint32_t k = 0; k < d->num_operands; k++) add_capture(&caps, kiln_op_operand(d, k));
  }
  /* region operands are the workload's host values, not captures */
  uint32_t nwl = region->num_operands;
  kiln_value **args = kiln_alloc(ctx, (caps.n + 1) * sizeof *args);
  uint32_t nargs = 0;
  pushes *p = calloc(1, sizeof *p);
  for (uint32_t i = 0; i < caps.n; i++) {
    kiln_value *v = caps.v[i];
    bool workload = false;
    for (uint32_t k = 0; k < nwl; k++) workload |= kiln_op_operand(region, k) == v;
    if (workload) continue;
    if (fl_clonable(v)) continue;
    if (v->type->kind == KILN_TYPE_TENSOR) {
      args[nargs++] = v;
      continue;
    }
    if (fl_host_index(v)) {
      push(p, v);
      continue;
    }
    char *ts = kiln_type_to_string(v->type);
    kiln_error *e = kiln_op_error(region, "dispatch '%s' captures a value of type %s; only tensors, scalars "
                                  "(as rank-0 tensors) and host index values can be passed to a kernel", name, ts);
    free(ts);
    free(caps.v);
    free(p);
    return e;
  }
  kiln_block *rbody = region->regions[0].first;
  kiln_op *rret = kiln_block_terminator(rbody);
  uint32_t nres = region->num_results;
  /* dims of the bound tensors, then the workload */
  int64_t **arg_dims = kiln_alloc(ctx, (nargs + nres + 1) * sizeof *arg_dims);
  uint32_t nrd = 0;
  for (uint32_t i = 0; i < nargs + nres; i++) {
    kiln_value *v = i < nargs ? args[i] : kiln_op_result(region, i - nargs);
    arg_dims[i] = kiln_alloc(ctx, (v->type->rank + 1) * sizeof **arg_dims);
    if (i >= nargs) nrd += kiln_type_num_dynamic_dims(v->type);
    if (!push_dims(region, v, p, arg_dims[i])) {
      char *ts = kiln_type_to_string(v->type);
      kiln_error *e = kiln_op_error(region, "dispatch '%s': the host cannot compute the dynamic dims of %s %u (%s)",
                                    name, i < nargs ? "operand" : "result", i < nargs ? i : i - nargs, ts);
      free(ts);
      free(caps.v);
      free(p);
      return e;
    }
  }
  int64_t *wl_dims = kiln_alloc(ctx, (nwl + 1) * sizeof *wl_dims);
  for (uint32_t k = 0; k < nwl; k++) wl_dims[k] = push(p, kiln_op_operand(region, k));
  int64_t *res_dims = kiln_alloc(ctx, (nrd + 1) * sizeof *res_dims);
  for (uint32_t i = 0, k = 0; i < nres; i++)
    for (uint32_t j = 0; j < kiln_type_num_dynamic_dims(region->results[i].type); j++) res_dims[k++] = arg_dims[nargs + i][j];
  if (p->overflow) {
    free(caps.v);
    free(p);
    return kiln_error_new("outline-dispatches: dispatch '%s' needs more than 256 dimension values", name);
  }
  /* kernel signature: tensors, results, push constants */
  const uint32_t nin = nargs + nres + p->n;
  const kiln_type **in = kiln_alloc(ctx, (nin + 1) * sizeof *in);
  for (uint32_t i = 0; i < nargs; i++) in[i] = fl_dispatch_tensor_type(ctx, "readonly", args[i]->type);
  for (uint32_t i = 0; i < nres; i++) in[nargs + i] = fl_dispatch_tensor_type(ctx, "writeonly", region->results[i].type);
  for (uint32_t i = 0; i < p->n; i++) in[nargs + nres + i] = kiln_type_index(ctx);
  const kiln_type *fty = kiln_type_function(ctx, nin, in, 0, NULL);
  kiln_named_attr fa[2] = {
      {kiln_intern_cstr(ctx, "function_type"), kiln_attr_type(ctx, fty)},
      {kiln_intern_cstr(ctx, "sym_name"), kiln_attr_string(ctx, name, strlen(name))},
  };
  kiln_op *kfn = kiln_op_create(ctx, KILN_OP_FUNC_FUNC, region->loc, 0, NULL, 0, NULL,
                                kiln_attr_dict(ctx, 2, fa), 1);
  kiln_block *kb = kiln_op_entry_block(ctx, kfn, 0);
  for (uint32_t i = 0; i < nin; i++) kiln_block_add_arg(ctx, kb, in[i], region->loc);
  kiln_value_map map = {0};
  kiln_value **pc = kb->args + nargs + nres;
  for (uint32_t i = 0; i < p->n; i++) kiln_value_map_add(ctx, &map, p->v[i], pc[i]);
  /* a captured host index equal to a pushed one (same dim, other SSA) */
  for (uint32_t i = 0; i < caps.n; i++)
    if (!kiln_value_map_lookup(&map, caps.v[i]) && fl_host_index(caps.v[i]) && !fl_clonable(caps.v[i]))
      kiln_value_map_add(ctx, &map, caps.v[i], pc[push(p, caps.v[i])]);
  kiln_builder b = kiln_builder_at_end(ctx, kb);
  b.loc = region->loc;
  for (uint32_t i = 0; i < nargs; i++) {
    const kiln_type *t = args[i]->type;
    uint32_t nd = kiln_type_num_dynamic_dims(t);
    kiln_value *ops[1 + KILN_MAX_LOOPS];
    ops[0] = kb->args[i];
    for (uint32_t j = 0; j < nd && j < KILN_MAX_LOOPS; j++) ops[1 + j] = pc[arg_dims[i][j]];
    kiln_op *ld = kiln_build(&b, KILN_OP_FLOW_DISPATCH_TENSOR_LOAD, 1 + nd, ops, 1, &t, NULL);
    kiln_value_map_add(ctx, &map, args[i], kiln_op_result(ld, 0));
  }
  for (uint32_t i = 0; i < caps.n; i++)
    if (fl_clonable(caps.v[i])) clone_producer(ctx, kb, caps.v[i], &map);
  for (kiln_op *o = rbody->first; o && o != rret; o = o->next)
    kiln_block_append_op(kb, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < nres; i++) {
    kiln_value *v = kiln_op_operand(rret, i);
    kiln_value *m = kiln_value_map_lookup(&map, v);
    uint32_t nd = kiln_type_num_dynamic_dims(v->type);
    kiln_value *ops[2 + KILN_MAX_LOOPS] = {m ? m : v, kb->args[nargs + i]};
    for (uint32_t j = 0; j < nd && j < KILN_MAX_LOOPS; j++) ops[2 + j] = pc[arg_dims[nargs + i][j]];
    kiln_build(&b, KILN_OP_FLOW_DISPATCH_TENSOR_STORE, 2 + nd, ops, 0, NULL, NULL);
  }
  kiln_build(&b, KILN_OP_FUNC_RETURN, 0, NULL, 0, NULL, NULL);
  /* executable */
  kiln_named_attr ea[2] = {
      {kiln_intern_cstr(ctx, "sym_name"), kiln_attr_string(ctx, name, strlen(name))},
      {kiln_intern_cstr(ctx, "sym_visibility"), kiln_attr_string(ctx, "private", 7)},
  };
  kiln_op *exe = kiln_op_create(ctx, KILN_OP_FLOW_EXECUTABLE, region->loc, 0, NULL, 0, NULL,
                                kiln_attr_dict(ctx, 2, ea), 1);
  kiln_block_append_op(kiln_op_entry_block(ctx, exe, 0), kfn);
  kiln_block_insert_before(func, exe);
  /* host call: the tensors, then the push constants */
  const kiln_type **rt = kiln_alloc(ctx, (nres + 1) * sizeof *rt);
  for (uint32_t i = 0; i < nres; i++) rt[i] = region->results[i].type;
  kiln_value **ops = kiln_alloc(ctx, (nargs + p->n + 1) * sizeof *ops);
  for (uint32_t i = 0; i < nargs; i++) ops[i] = args[i];
  for (uint32_t i = 0; i < p->n; i++) ops[nargs + i] = p->v[i];
  const char *nested[1] = {name};
  kiln_named_attr da[4];
  uint32_t nda = 0;
  da[nda++] = (kiln_named_attr){kiln_intern_cstr(ctx, "entry_point"), kiln_attr_symbol_ref(ctx, name, 1, nested)};
  const kiln_attr *wl = kiln_op_get_attr(region, "workload");
  if (wl) da[nda++] = (kiln_named_attr){kiln_intern_cstr(ctx, "workload"), wl};
  if (nwl) da[nda++] = (kiln_named_attr){kiln_intern_cstr(ctx, "workload_dims"), kiln_attr_dense_i64_array(ctx, nwl, wl_dims)};
  if (nrd) da[nda++] = (kiln_named_attr){kiln_intern_cstr(ctx, "result_dims"), kiln_attr_dense_i64_array(ctx, nrd, res_dims)};
  kiln_op *call = kiln_op_create(ctx, KILN_OP_FLOW_DISPATCH, dispatch_loc(ctx, region), nargs + p->n,
                                 ops, nres, rt, kiln_attr_dict(ctx, nda, da), 0);
  kiln_block_insert_before(region, call);
  for (uint32_t i = 0; i < nres; i++)
    kiln_value_replace_all_uses(kiln_op_result(region, i), kiln_op_result(call, i));
  kiln_op_erase(region);
  free(caps.v);
  free(p);
  return NULL;
}

/* Host producers left without users once their consumers were outlined. */
static void drop_dead(kiln_block *body) {
  for (kiln_op *op = body->last; op;) {
    kiln_op *prev = op->prev;
    bool dead = op->num_results > 0;
    for (uint32_t i = 0; i < op->num_results; i++)
      if (kiln_value_has_uses(&op->results[i])) dead = false;
    if (dead && (op->kind == KILN_OP_LINALG_FILL ||
                 (kiln_op_has_flag(op, KILN_OPF_PURE) && !op->num_regions)))
      kiln_op_erase(op);
    op = prev;
  }
}

static kiln_error *outline_in(kiln_context *ctx, kiln_op *func, kiln_block *body, void *user) {
  kiln_op *module = user;
  const char *fname = kiln_symbol_name(func);
  uint32_t counter = 0;
  for (kiln_op *op = body->first; op;) {
    kiln_op *next = op->next;
    if (op->kind == KILN_OP_FLOW_DISPATCH_REGION) {
      kiln_error *e = outline(ctx, module, func, op, unique_name(ctx, module, fname ? fname : "fn", &counter));
      if (e) return e;
    }
    op = next;
  }
  drop_dead(body);
  /* what is left must be host form (PIPELINE.md); anything else (calls,
   * scalar arithmetic, control flow) is reported here, where its
   * location still means something */
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind != KILN_OP_FLOW_DISPATCH && op->kind != KILN_OP_FLOW_TENSOR_RESHAPE &&
        op->kind != KILN_OP_ARITH_CONSTANT && op->kind != KILN_OP_FUNC_RETURN &&
        op->kind != KILN_OP_FLOW_CHECK_DIM_EQ && op->kind != KILN_OP_FLOW_TEXT &&
        op->kind != KILN_OP_FLOW_CHECK_SHAPE && op->kind != KILN_OP_FLOW_CHECK_RANGE && !fl_host_load(op) &&
        !fl_host_loop(op) && !flow_is_list_op(op) &&
        !(op->num_results == 1 && fl_host_index(&op->results[0]))) {
      return kiln_op_error(op, "cannot stay in host function @%s after the flow stage (host code may only "
                           "dispatch kernels, reshape, hold constants, compute dims and check them, run "
                           "text and list ops; inline calls first)", fname ? fname : "?");
    }
  return NULL;
}

kiln_error *kiln_flow_pass_outline_dispatches(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_func(module, "outline-dispatches", outline_in, module);
}
