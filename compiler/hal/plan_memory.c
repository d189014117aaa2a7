/* plan-memory: host functions from tensors to buffers.
 *
 * Takes: host functions in flow's form (flow.dispatch, flow.tensor.reshape,
 * arith.constant, func.return on static tensors; results not aliasing
 * inputs, constants or each other). Guarantees: the function takes and
 * returns !hal.buffer_view (kiln.signature keeps the tensor signature);
 *  - each input is checked with hal.buffer_view.assert {input, element_type,
 *    shape} and used through hal.buffer_view.buffer;
 *  - each dense constant becomes a module-level hal.rodata @__rodata_N
 *    {index, value} (identical constants share one) read through
 *    hal.buffer.rodata {index};
 *  - each returned dispatch result gets its own hal.buffer.allocate;
 *  - every other dispatch result is a slice of one transient arena
 *    (hal.buffer.allocate {size, transient}), offsets packed by liveness
 *    with kiln_hal_pack_arena: a value lives from its dispatch to the last
 *    dispatch reading it (directly or through a reshape view), and values
 *    alive at once never share bytes; slices are 64-byte aligned;
 *  - reshapes are views: same buffer, offset and length;
 *  - dispatches are recorded in order into one hal.command_buffer
 *    (create, dispatch..., execute, hal.device.wait) with {executable,
 *    ordinal, offsets, lengths, readonly_mask, constants, workload}; the
 *    bindings are the kernel's (inputs, then results);
 *  - results are returned as hal.buffer_view.create {offset, element_type,
 *    shape}.
 * No barriers are inserted here: schedule-commands places them. */
#include "hl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct slot {
  kiln_value *buffer; /* !hal.buffer, NULL until materialized */
  int64_t offset, length;
  int arena;          /* index into the interval list, or -1 */
} slot;

typedef struct pm {
  kiln_context *ctx;
  kiln_op *module, *func;
  kiln_value_map map;  /* tensor value -> slot number, see set_slot */
  slot *slots;
  uint32_t nslots, cap;
} pm;

static uint32_t new_slot(pm *p, kiln_value *buffer, int64_t off, int64_t len) {
  if (p->nslots == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 16;
    slot *n = kiln_alloc(p->ctx, p->cap * sizeof *n);
    if (p->nslots) memcpy(n, p->slots, p->nslots * sizeof *n);
    p->slots = n;
  }
  slot s = {buffer, off, len, -1};
  p->slots[p->nslots] = s;
  return p->nslots++;
}

/* Slot numbers are stored in the value map as (index + 1) disguised as a
 * pointer; the map only compares them. */
static void set_slot(pm *p, kiln_value *v, uint32_t s) {
  kiln_value_map_add(p->ctx, &p->map, v, (kiln_value *)(uintptr_t)(s + 1));
}
static int get_slot(pm *p, kiln_value *v) {
  kiln_value *s = kiln_value_map_lookup(&p->map, v);
  return s ? (int)((uintptr_t)s - 1) : -1;
}

static kiln_value *view_root(kiln_value *v) {
  while (v->def && v->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE) v = kiln_op_operand(v->def, 0);
  return v;
}

static const kiln_attr *shape_attr(kiln_context *ctx, const kiln_type *t) {
  return kiln_attr_dense_i64_array(ctx, t->rank, t->shape);
}

static kiln_error *fail(pm *p, const kiln_op *op, const char *what) {
  if (op) kiln_op_emit_error(op, "plan-memory: %s", what);
  return kiln_error_new("plan-memory: function @%s: %s", kiln_symbol_name(p->func), what);
}

static kiln_value *rodata(pm *p, kiln_builder *b, const kiln_attr *value) {
  uint32_t nr;
  kiln_op **ro = hl_module_ops(p->module, KILN_OP_HAL_RODATA, &nr);
  int64_t index = -1;
  for (uint32_t i = 0; i < nr; i++)
    if (kiln_op_get_attr(ro[i], "value") == value) index = kiln_op_get_attr(ro[i], "index")->i;
  if (index < 0) {
    index = nr;
    char name[64];
    snprintf(name, sizeof name, "__rodata_%lld", (long long)index);
    kiln_named_attr a[4] = {
        hl_named(p->ctx, "sym_name", kiln_attr_string(p->ctx, name, strlen(name))),
        hl_named(p->ctx, "sym_visibility", kiln_attr_string(p->ctx, "private", 7)),
        hl_named(p->ctx, "index", hl_i32(p->ctx, index)),
        hl_named(p->ctx, "value", value),
    };
    kiln_op *r = kiln_op_create(p->ctx, KILN_OP_HAL_RODATA, p->func->loc, 0, NULL, 0, NULL,
                                kiln_attr_dict(p->ctx, 4, a), 0);
    kiln_block_insert_before(p->func, r);
  }
  kiln_named_attr a = hl_named(p->ctx, "index", hl_i32(p->ctx, index));
  const kiln_type *bt = hl_type(p->ctx, "buffer");
  return kiln_op_result(kiln_build(b, KILN_OP_HAL_BUFFER_RODATA, 0, NULL, 1, &bt, kiln_attr_dict(p->ctx, 1, &a)), 0);
}

static kiln_value *allocate(pm *p, kiln_builder *b, int64_t size, bool transient) {
  kiln_named_attr a[2] = {hl_named(p->ctx, "size", hl_i64(p->ctx, size)),
                          hl_named(p->ctx, "transient", kiln_attr_unit(p->ctx))};
  const kiln_type *bt = hl_type(p->ctx, "buffer");
  return kiln_op_result(
      kiln_build(b, KILN_OP_HAL_BUFFER_ALLOCATE, 0, NULL, 1, &bt, kiln_attr_dict(p->ctx, transient ? 2 : 1, a)), 0);
}

static kiln_error *plan(kiln_context *ctx, kiln_op *module, kiln_op *func) {
  pm p = {0};
  p.ctx = ctx, p.module = module, p.func = func;
  kiln_block *body = func->regions[0].first;
  if (!body) return NULL;
  const kiln_type *fty = kiln_op_get_attr(func, "function_type")->type;
  kiln_op *ret = kiln_block_terminator(body);
  if (!ret || ret->kind != KILN_OP_FUNC_RETURN) return fail(&p, func, "expects a func.return terminator");
  /* check the body is in flow's host form */
  uint32_t nops = 0;
  for (kiln_op *o = body->first; o; o = o->next) {
    nops++;
    switch (o->kind) {
    case KILN_OP_FLOW_DISPATCH:
    case KILN_OP_FLOW_TENSOR_RESHAPE:
    case KILN_OP_ARITH_CONSTANT:
    case KILN_OP_FUNC_RETURN: break;
    default: return fail(&p, o, "host functions may hold only flow.dispatch, flow.tensor.reshape, "
                                "arith.constant and func.return (run the flow stage first)");
    }
    for (uint32_t r = 0; r < o->num_results; r++)
      if (kiln_type_is_shaped(o->results[r].type) && hl_byte_size(o->results[r].type) < 0)
        return fail(&p, o, "needs static shapes");
  }
  for (uint32_t i = 0; i < fty->num_inputs; i++)
    if (fty->types[i]->kind != KILN_TYPE_TENSOR || hl_byte_size(fty->types[i]) < 0)
      return fail(&p, func, "arguments must be statically shaped tensors");
  for (uint32_t i = 0; i < fty->num_results; i++)
    if (fty->types[i]->kind != KILN_TYPE_TENSOR || hl_byte_size(fty->types[i]) < 0)
      return fail(&p, func, "results must be statically shaped tensors");
  kiln_op **orig = kiln_alloc(ctx, (nops + 1) * sizeof *orig);
  nops = 0;
  for (kiln_op *o = body->first; o; o = o->next) orig[nops++] = o;

  kiln_builder b = kiln_builder_before(body->first);
  b.loc = func->loc;
  const kiln_type *bvt = hl_type(ctx, "buffer_view"), *bt = hl_type(ctx, "buffer");
  /* inputs */
  uint32_t nin = body->num_args;
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *arg = body->args[i];
    kiln_value *view = kiln_block_add_arg(ctx, body, bvt, arg->loc);
    kiln_named_attr a[3] = {hl_named(ctx, "input", hl_i32(ctx, i)),
                            hl_named(ctx, "element_type", kiln_attr_type(ctx, arg->type->elem)),
                            hl_named(ctx, "shape", shape_attr(ctx, arg->type))};
    kiln_build(&b, KILN_OP_HAL_BUFFER_VIEW_ASSERT, 1, &view, 0, NULL, kiln_attr_dict(ctx, 3, a));
    kiln_value *buf = kiln_op_result(kiln_build(&b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &view, 1, &bt, NULL), 0);
    set_slot(&p, arg, new_slot(&p, buf, 0, hl_byte_size(arg->type)));
  }
  /* results: the dispatch results behind returned values */
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    kiln_value *r = view_root(kiln_op_operand(ret, i));
    if (!r->def || r->def->kind != KILN_OP_FLOW_DISPATCH)
      return fail(&p, ret, "a result is not computed by a dispatch (run copy-aliased-results)");
    if (get_slot(&p, r) >= 0) return fail(&p, ret, "two results share one buffer (run copy-aliased-results)");
    set_slot(&p, r, new_slot(&p, NULL, 0, hl_byte_size(r->type)));
  }
  /* intermediates: lifetimes over dispatch positions */
  uint32_t nvals = 0;
  for (uint32_t i = 0; i < nops; i++) nvals += orig[i]->num_results;
  kiln_hal_interval *iv = kiln_alloc(ctx, (nvals + 1) * sizeof *iv);
  uint32_t *iv_slot = kiln_alloc(ctx, (nvals + 1) * sizeof *iv_slot);
  uint32_t niv = 0;
  int64_t pos = 0;
  for (uint32_t i = 0; i < nops; i++) {
    kiln_op *o = orig[i];
    if (o->kind == KILN_OP_FLOW_DISPATCH) {
      for (uint32_t a = 0; a < o->num_operands; a++) {
        int s = get_slot(&p, view_root(kiln_op_operand(o, a)));
        if (s >= 0 && p.slots[s].arena >= 0 && iv[p.slots[s].arena].last < pos)
          iv[p.slots[s].arena].last = pos;
      }
      for (uint32_t r = 0; r < o->num_results; r++) {
        kiln_value *v = kiln_op_result(o, r);
        if (get_slot(&p, v) >= 0) continue; /* a function result */
        uint32_t s = new_slot(&p, NULL, 0, hl_byte_size(v->type));
        set_slot(&p, v, s);
        iv[niv].first = iv[niv].last = pos;
        iv[niv].size = (uint64_t)hl_byte_size(v->type);
        iv_slot[niv] = s;
        p.slots[s].arena = (int)niv++;
      }
      pos++;
    }
  }
  uint64_t arena_size = kiln_hal_pack_arena(iv, niv, HL_ALIGNMENT);
  if (arena_size == UINT64_MAX) return fail(&p, func, "out of memory");
  /* allocations */
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    int s = get_slot(&p, view_root(kiln_op_operand(ret, i)));
    p.slots[s].buffer = allocate(&p, &b, p.slots[s].length, false);
  }
  if (niv) {
    kiln_value *arena = allocate(&p, &b, (int64_t)arena_size, true);
    for (uint32_t i = 0; i < niv; i++) {
      p.slots[iv_slot[i]].buffer = arena;
      p.slots[iv_slot[i]].offset = (int64_t)iv[i].offset;
    }
  }
  const kiln_type *cbt = hl_type(ctx, "command_buffer");
  kiln_value *cb = kiln_op_result(kiln_build(&b, KILN_OP_HAL_COMMAND_BUFFER_CREATE, 0, NULL, 1, &cbt, NULL), 0);
  /* commands, in program order */
  for (uint32_t i = 0; i < nops; i++) {
    kiln_op *o = orig[i];
    if (o->kind == KILN_OP_ARITH_CONSTANT) {
      const kiln_attr *v = kiln_op_get_attr(o, "value");
      if (v && v->kind == KILN_ATTR_DENSE && kiln_value_has_uses(&o->results[0]))
        set_slot(&p, kiln_op_result(o, 0), new_slot(&p, rodata(&p, &b, v), 0, hl_byte_size(v->type)));
      continue;
    }
    if (o->kind != KILN_OP_FLOW_DISPATCH) continue;
    uint32_t n = o->num_operands + o->num_results;
    kiln_value **ops = kiln_alloc(ctx, (n + 2) * sizeof *ops);
    int64_t *off = kiln_alloc(ctx, (n + 1) * sizeof *off), *len = kiln_alloc(ctx, (n + 1) * sizeof *len);
    ops[0] = cb;
    for (uint32_t k = 0; k < n; k++) {
      kiln_value *v = k < o->num_operands ? kiln_op_operand(o, k) : kiln_op_result(o, k - o->num_operands);
      int s = get_slot(&p, view_root(v));
      if (s < 0 || !p.slots[s].buffer) return fail(&p, o, "a dispatch operand has no buffer (is it a tensor computed on the host?)");
      ops[k + 1] = p.slots[s].buffer;
      off[k] = p.slots[s].offset;
      len[k] = p.slots[s].length;
    }
    const kiln_attr *ep = kiln_op_get_attr(o, "entry_point");
    const kiln_attr *wl = kiln_op_get_attr(o, "workload");
    int64_t mask = o->num_operands >= 32 ? 0xffffffffll : (((int64_t)1 << o->num_operands) - 1);
    kiln_named_attr a[7] = {
        hl_named(ctx, "executable", kiln_attr_symbol_ref(ctx, ep->str, 0, NULL)),
        hl_named(ctx, "ordinal", hl_i32(ctx, 0)),
        hl_named(ctx, "offsets", kiln_attr_dense_i64_array(ctx, n, off)),
        hl_named(ctx, "lengths", kiln_attr_dense_i64_array(ctx, n, len)),
        hl_named(ctx, "readonly_mask", hl_i32(ctx, mask)),
        hl_named(ctx, "constants", kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 0, NULL, NULL)),
        hl_named(ctx, "workload", wl),
    };
    kiln_op *d = kiln_build(&b, KILN_OP_HAL_COMMAND_BUFFER_DISPATCH, n + 1, ops, 0, NULL,
                            kiln_attr_dict(ctx, wl ? 7 : 6, a));
    d->loc = o->loc;
  }
  kiln_build(&b, KILN_OP_HAL_COMMAND_BUFFER_EXECUTE, 1, &cb, 0, NULL, NULL);
  kiln_build(&b, KILN_OP_HAL_DEVICE_WAIT, 0, NULL, 0, NULL, NULL);
  kiln_value **views = kiln_alloc(ctx, (ret->num_operands + 1) * sizeof *views);
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    kiln_value *v = kiln_op_operand(ret, i);
    int s = get_slot(&p, view_root(v));
    kiln_named_attr a[3] = {hl_named(ctx, "offset", hl_i64(ctx, p.slots[s].offset)),
                            hl_named(ctx, "element_type", kiln_attr_type(ctx, v->type->elem)),
                            hl_named(ctx, "shape", shape_attr(ctx, v->type))};
    views[i] = kiln_op_result(kiln_build(&b, KILN_OP_HAL_BUFFER_VIEW_CREATE, 1, &p.slots[s].buffer, 1, &bvt,
                                         kiln_attr_dict(ctx, 3, a)),
                              0);
  }
  kiln_build(&b, KILN_OP_FUNC_RETURN, ret->num_operands, views, 0, NULL, NULL);
  /* drop the tensor program */
  for (uint32_t i = nops; i-- > 0;) kiln_op_erase(orig[i]);
  for (uint32_t i = 0; i < nin; i++) kiln_block_erase_arg(body, 0);
  const kiln_type **ins = kiln_alloc(ctx, (nin + 1) * sizeof *ins);
  const kiln_type **outs = kiln_alloc(ctx, (fty->num_results + 1) * sizeof *outs);
  for (uint32_t i = 0; i < nin; i++) ins[i] = bvt;
  for (uint32_t i = 0; i < fty->num_results; i++) outs[i] = bvt;
  kiln_op_set_attr(func, "kiln.signature", kiln_attr_type(ctx, fty));
  kiln_op_set_attr(func, "function_type",
                   kiln_attr_type(ctx, kiln_type_function(ctx, nin, ins, fty->num_results, outs)));
  return NULL;
}

kiln_error *kiln_hal_pass_plan_memory(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = hl_require_valid(module, "plan-memory");
  if (valid) return valid;
  kiln_context *ctx = kiln_op_context(module);
  uint32_t nf;
  kiln_op **funcs = hl_module_ops(module, KILN_OP_FUNC_FUNC, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    if (kiln_op_get_attr(funcs[f], "kiln.signature")) continue; /* already planned */
    kiln_error *e = plan(ctx, module, funcs[f]);
    if (e) return e;
  }
  return NULL;
}
