/* outline-dispatches: every flow.dispatch.region becomes a kernel in its
 * own flow.executable and a flow.dispatch call on the host.
 *
 * Takes: host functions whose regions came from form-dispatch-regions.
 * Guarantees (PIPELINE.md, flow): flow.executable @F_dispatch_N holds one
 * func.func @F_dispatch_N whose arguments are the captured tensors as
 * !flow.dispatch.tensor<readonly:...>, then one writeonly argument per
 * region result; its body loads each input once, recomputes the region,
 * stores each result once and returns. Cheap producers (fl_clonable:
 * scalar arith.constant, tensor.empty, linalg.fill of such, side-effect-
 * free scalar ops such as tensor.extract whose tensors are then passed,
 * e.g. the rank-0 tensors tensorize-scalars made of scalar arguments) are
 * cloned into the kernel instead of being passed; dense tensor constants
 * (weights) stay on the host and are passed. The flow.dispatch carries entry_point =
 * @exe::@fn and the region's workload. A captured value that is neither a
 * static tensor nor clonable, or a func.call inside the region, is an
 * error naming the dispatch; so is any host op left besides flow.dispatch,
 * flow.tensor.reshape, arith.constant and func.return. */
#include "fl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const kiln_type *dispatch_tensor(kiln_context *ctx, const char *access,
                                        const kiln_type *t) {
  char *ts = kiln_type_to_string(t);
  size_t n = strlen(ts) + strlen(access) + 32;
  char *body = malloc(n);
  snprintf(body, n, "dispatch.tensor<%s:%s>", access, ts);
  const kiln_type *r = kiln_type_opaque(ctx, "flow", kiln_intern_cstr(ctx, body));
  free(ts);
  free(body);
  return r;
}

static const char *unique_name(kiln_context *ctx, kiln_op *module, const char *fn, uint32_t *counter) {
  char buf[512];
  for (;;) {
    snprintf(buf, sizeof buf, "%s_dispatch_%u", fn, (*counter)++);
    if (!kiln_symbol_lookup(module, buf)) return kiln_intern_cstr(ctx, buf);
  }
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
    kiln_op_emit_error(w.call, "dispatch '%s' would call @%s from a kernel; inline it first", name, cn);
    free(caps.v);
    return kiln_error_new("outline-dispatches: dispatch '%s' calls @%s (calls inside kernels are not supported; inline first)",
                          name, cn);
  }
  /* tensors that cloned producers read are passed as well */
  for (uint32_t i = 0; i < caps.n; i++) {
    kiln_op *d = caps.v[i]->def;
    if (!d || !fl_clonable(caps.v[i])) continue;
    for (uint32_t k = 0; k < d->num_operands; k++) add_capture(&caps, kiln_op_operand(d, k));
  }
  kiln_value **args = kiln_alloc(ctx, (caps.n + 1) * sizeof *args);
  uint32_t nargs = 0;
  for (uint32_t i = 0; i < caps.n; i++) {
    kiln_value *v = caps.v[i];
    if (fl_clonable(v)) continue;
    if (!fl_is_static_tensor(v->type)) {
      char *ts = kiln_type_to_string(v->type);
      kiln_emit_error(ctx, region->loc, "dispatch '%s' captures a value of type %s; only static tensors "
                      "(and scalars, as rank-0 tensors) can be passed to a kernel", name, ts);
      kiln_error *e = kiln_error_new("outline-dispatches: dispatch '%s' captures a value of type %s "
                                     "(only static tensors and scalars can be passed)", name, ts);
      free(ts);
      free(caps.v);
      return e;
    }
    args[nargs++] = v;
  }
  kiln_block *rbody = region->regions[0].first;
  kiln_op *rret = kiln_block_terminator(rbody);
  uint32_t nres = region->num_results;
  /* kernel signature */
  const kiln_type **in = kiln_alloc(ctx, (nargs + nres + 1) * sizeof *in);
  for (uint32_t i = 0; i < nargs; i++) in[i] = dispatch_tensor(ctx, "readonly", args[i]->type);
  for (uint32_t i = 0; i < nres; i++) {
    if (!fl_is_static_tensor(region->results[i].type)) {
      free(caps.v);
      return kiln_error_new("outline-dispatches: dispatch '%s' result #%u is not a static tensor", name, i);
    }
    in[nargs + i] = dispatch_tensor(ctx, "writeonly", region->results[i].type);
  }
  const kiln_type *fty = kiln_type_function(ctx, nargs + nres, in, 0, NULL);
  kiln_named_attr fa[2] = {
      {kiln_intern_cstr(ctx, "function_type"), kiln_attr_type(ctx, fty)},
      {kiln_intern_cstr(ctx, "sym_name"), kiln_attr_string(ctx, name, strlen(name))},
  };
  kiln_op *kfn = kiln_op_create(ctx, KILN_OP_FUNC_FUNC, region->loc, 0, NULL, 0, NULL,
                                kiln_attr_dict(ctx, 2, fa), 1);
  kiln_block *kb = kiln_op_entry_block(ctx, kfn, 0);
  for (uint32_t i = 0; i < nargs + nres; i++) kiln_block_add_arg(ctx, kb, in[i], region->loc);
  kiln_value_map map = {0};
  kiln_builder b = kiln_builder_at_end(ctx, kb);
  b.loc = region->loc;
  for (uint32_t i = 0; i < nargs; i++) {
    const kiln_type *t = args[i]->type;
    kiln_op *ld = kiln_build(&b, KILN_OP_FLOW_DISPATCH_TENSOR_LOAD, 1, &kb->args[i], 1, &t, NULL);
    kiln_value_map_add(ctx, &map, args[i], kiln_op_result(ld, 0));
  }
  for (uint32_t i = 0; i < caps.n; i++)
    if (fl_clonable(caps.v[i])) clone_producer(ctx, kb, caps.v[i], &map);
  for (kiln_op *o = rbody->first; o && o != rret; o = o->next)
    kiln_block_append_op(kb, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < nres; i++) {
    kiln_value *v = kiln_op_operand(rret, i);
    kiln_value *m = kiln_value_map_lookup(&map, v);
    kiln_value *ops[2] = {m ? m : v, kb->args[nargs + i]};
    kiln_build(&b, KILN_OP_FLOW_DISPATCH_TENSOR_STORE, 2, ops, 0, NULL, NULL);
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
  /* host call */
  const kiln_type **rt = kiln_alloc(ctx, (nres + 1) * sizeof *rt);
  for (uint32_t i = 0; i < nres; i++) rt[i] = region->results[i].type;
  const char *nested[1] = {name};
  kiln_named_attr da[2] = {
      {kiln_intern_cstr(ctx, "entry_point"), kiln_attr_symbol_ref(ctx, name, 1, nested)},
      {kiln_intern_cstr(ctx, "workload"), kiln_op_get_attr(region, "workload")},
  };
  kiln_op *call = kiln_op_create(ctx, KILN_OP_FLOW_DISPATCH, region->loc, nargs, args, nres, rt,
                                 kiln_attr_dict(ctx, da[1].value ? 2 : 1, da), 0);
  kiln_block_insert_before(region, call);
  for (uint32_t i = 0; i < nres; i++)
    kiln_value_replace_all_uses(kiln_op_result(region, i), kiln_op_result(call, i));
  kiln_op_erase(region);
  free(caps.v);
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

kiln_error *kiln_flow_pass_outline_dispatches(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = fl_require_valid(module, "outline-dispatches");
  if (valid) return valid;
  kiln_context *ctx = kiln_op_context(module);
  uint32_t nf;
  kiln_op **funcs = fl_host_funcs(module, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    kiln_block *body = fl_func_body(funcs[f]);
    if (!body) continue;
    const char *fname = kiln_symbol_name(funcs[f]);
    uint32_t counter = 0;
    for (kiln_op *op = body->first; op;) {
      kiln_op *next = op->next;
      if (op->kind == KILN_OP_FLOW_DISPATCH_REGION) {
        kiln_error *e = outline(ctx, module, funcs[f], op,
                                unique_name(ctx, module, fname ? fname : "fn", &counter));
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
          op->kind != KILN_OP_ARITH_CONSTANT && op->kind != KILN_OP_FUNC_RETURN) {
        kiln_op_emit_error(op, "cannot stay in host function @%s after the flow stage", fname ? fname : "?");
        return kiln_error_new("outline-dispatches: host function @%s keeps '%s' (host code may only "
                              "dispatch kernels, reshape and hold constants; inline calls first)",
                              fname ? fname : "?", op->name);
      }
  }
  return NULL;
}
