/* Reads the host side of a module after codegen into an sl_plan: for each
 * public host function, its static signature, where each buffer lives
 * (an argument, a caller-owned result, the scratch arena at a compile-time
 * offset, a weight), and every dispatch in program order with its kernel
 * symbol, grid, bindings and push constants, and the buffers to zero
 * first (allocations not {uninitialized}). That is the schedule the VM
 * bytecode would run; barriers, command buffers and waits need no code
 * here because the host program runs dispatches one after the other.
 *
 * Positions read from argument data (an index or slice offset a kernel
 * reads at) become checks the host program makes before any dispatch:
 * hal.check.range of a hal.buffer_view.load of an argument between
 * constant bounds.
 *
 * Refused with a message naming the function: dynamic shapes (the issue's
 * _dynamic forms are not built yet), any host op other than the static
 * hal ops below (host arithmetic on loaded values included), a result
 * that is not its own allocation at offset 0. */
#include <stdlib.h>
#include <string.h>

#include "sl_internal.h"

#define SL_MAX_DISPATCH_BINDINGS 64

static bool sl_is(const kiln_op *op, const char *name) { return strcmp(op->name, name) == 0; }

static const kiln_attr *sl_attr(const kiln_op *op, const char *name, kiln_attr_kind kind) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == kind ? a : NULL;
}

static int64_t sl_int(const kiln_op *op, const char *name, int64_t dflt) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : dflt;
}

/* A dense i64/i32 array attribute's entries, all static and within
 * [0, max]; false otherwise. */
static bool sl_array(const kiln_op *op, const char *name, uint32_t want, int64_t max,
                     int64_t *out) {
  const kiln_attr *a = sl_attr(op, name, KILN_ATTR_DENSE_ARRAY);
  if (!a || a->count != want) return false;
  for (uint32_t i = 0; i < want; i++) {
    const int64_t v = ((const int64_t *)a->data)[i];
    if (v < 0 || v > max) return false;
    out[i] = v;
  }
  return true;
}

static bool sl_static_tensor(const kiln_type *t) {
  if (!t || t->kind != KILN_TYPE_TENSOR || !kiln_dense_elem_size(t->elem)) return false;
  for (uint32_t i = 0; i < t->rank; i++)
    if (t->shape[i] < 0) return false;
  return true;
}

static uint64_t sl_bytes(const kiln_type *t) {
  return (uint64_t)kiln_type_num_elements(t) * kiln_dense_elem_size(t->elem);
}

static kiln_op *sl_symbol(kiln_op *module, const char *name) {
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    const char *n = kiln_symbol_name(op);
    if (n && strcmp(n, name) == 0) return op;
  }
  return NULL;
}

/* The kernel of (executable, ordinal) in its llvm-cpu variant: its export
 * name and workgroup size. */
static kiln_error *sl_kernel(kiln_op *module, const sl_plan *p, const kiln_op *dispatch,
                             sl_dispatch *d, const char *fn) {
  const kiln_attr *ref = sl_attr(dispatch, "executable", KILN_ATTR_SYMBOL_REF);
  const int64_t ordinal = sl_int(dispatch, "ordinal", -1);
  kiln_op *exe = ref ? sl_symbol(module, ref->str) : NULL;
  if (!exe || !sl_is(exe, "hal.executable") || !exe->num_regions)
    return kiln_error_new("function @%s: a dispatch names no hal.executable", fn);
  kiln_op *variant = NULL;
  for (kiln_op *v = exe->regions[0].first ? exe->regions[0].first->first : NULL; v; v = v->next) {
    const kiln_attr *t = sl_attr(v, "target", KILN_ATTR_STRING);
    if (sl_is(v, "hal.executable.variant") && t && strcmp(t->str, p->target) == 0) variant = v;
  }
  if (!variant || !variant->num_regions || !variant->regions[0].first)
    return kiln_error_new("function @%s: executable @%s has no variant for %s", fn, ref->str,
                          p->target);
  for (kiln_op *e = variant->regions[0].first->first; e; e = e->next) {
    if (!sl_is(e, "hal.executable.export") || sl_int(e, "ordinal", -2) != ordinal) continue;
    const char *ename = kiln_symbol_name(e);
    d->entry = kiln_session_static_entry_symbol(p->name, ename);
    if (!d->entry) return kiln_error_new("out of memory");
    for (int i = 0; i < 3; i++) d->workgroup_size[i] = 1;
    /* The kernel's kiln.launch records its workgroup size, as the
     * runtime's export table would. */
    for (kiln_op *m = variant->regions[0].first->first; m; m = m->next) {
      if (m->kind != KILN_OP_BUILTIN_MODULE) continue;
      for (kiln_op *f = kiln_module_body(m)->first; f; f = f->next) {
        const char *n = kiln_symbol_name(f);
        const kiln_attr *launch = n && strcmp(n, ename) == 0 ? kiln_op_get_attr(f, "kiln.launch") : NULL;
        const kiln_attr *wg = launch && launch->kind == KILN_ATTR_DICT ? kiln_dict_get(launch, "workgroup_size") : NULL;
        if (wg && wg->kind == KILN_ATTR_DENSE_ARRAY)
          for (uint32_t i = 0; i < wg->count && i < 3; i++) {
            const int64_t x = ((const int64_t *)wg->data)[i];
            if (x > 0 && x <= UINT32_MAX) d->workgroup_size[i] = (uint32_t)x;
          }
      }
    }
    return NULL;
  }
  return kiln_error_new("function @%s: executable @%s has no export with ordinal %lld", fn,
                        ref->str, (long long)ordinal);
}

typedef struct sl_slot {
  const kiln_value *value;
  sl_buf buf;
} sl_slot;

typedef struct sl_builder {
  sl_slot *slots;
  uint32_t n, cap;
} sl_builder;

static bool sl_bind(sl_builder *b, const kiln_value *v, sl_buf buf) {
  if (b->n == b->cap) {
    const uint32_t cap = b->cap ? b->cap * 2 : 32;
    sl_slot *s = realloc(b->slots, cap * sizeof *s);
    if (!s) return false;
    b->slots = s;
    b->cap = cap;
  }
  b->slots[b->n++] = (sl_slot){v, buf};
  return true;
}

static const sl_buf *sl_lookup(const sl_builder *b, const kiln_value *v) {
  for (uint32_t i = 0; i < b->n; i++)
    if (b->slots[i].value == v) return &b->slots[i].buf;
  return NULL;
}

/* Index of the function result that ALLOC (a hal.buffer.allocate) backs,
 * through the buffer_view.create the return reads; -1 when none. */
static int64_t sl_result_of(const kiln_op *alloc, const kiln_op *ret, kiln_error **err,
                            const char *fn) {
  for (const kiln_use *u = alloc->results[0].uses; u; u = u->next) {
    const kiln_op *c = u->owner;
    if (!sl_is(c, "hal.buffer_view.create")) continue;
    for (uint32_t r = 0; r < ret->num_operands; r++) {
      if (kiln_op_operand(ret, r) != &c->results[0]) continue;
      if (sl_int(c, "offset", -1) != 0)
        *err = kiln_error_new("function @%s: result %u is a view at an offset into its buffer", fn, r);
      return r;
    }
  }
  return -1;
}

static kiln_error *sl_dispatch_of(kiln_op *module, const sl_plan *p, const sl_builder *b,
                                  const kiln_op *op, const char *fn, sl_dispatch *d) {
  kiln_error *err = sl_kernel(module, p, op, d, fn);
  if (err) return err;
  const uint32_t nb = op->num_operands - 1;
  const kiln_attr *consts = sl_attr(op, "constants", KILN_ATTR_DENSE_ARRAY);
  const uint32_t nc = consts ? consts->count : 0;
  int64_t count[3], offsets[SL_MAX_DISPATCH_BINDINGS], lengths[SL_MAX_DISPATCH_BINDINGS];
  if (nb > SL_MAX_DISPATCH_BINDINGS || !sl_array(op, "offsets", nb, INT64_MAX, offsets) ||
      !sl_array(op, "lengths", nb, INT64_MAX, lengths) ||
      !sl_array(op, "workgroup_count", 3, UINT32_MAX, count))
    return kiln_error_new("function @%s: a dispatch of @%s has dynamic or malformed offsets, "
                          "lengths or workgroup count (dynamic shapes are not supported by "
                          "static-library output yet)",
                          fn, d->entry);
  d->binding_count = nb;
  d->constant_count = nc;
  d->bindings = calloc(nb + 1, sizeof *d->bindings);
  d->constants = calloc(nc + 1, sizeof *d->constants);
  if (!d->bindings || !d->constants) return kiln_error_new("out of memory");
  for (int i = 0; i < 3; i++) d->workgroup_count[i] = (uint32_t)count[i];
  for (uint32_t i = 0; i < nc; i++) {
    const int64_t v = ((const int64_t *)consts->data)[i];
    if (v < INT32_MIN || v > UINT32_MAX)
      return kiln_error_new("function @%s: push constant %u of a dispatch is dynamic", fn, i);
    d->constants[i] = (uint32_t)v;
  }
  for (uint32_t i = 0; i < nb; i++) {
    const sl_buf *buf = sl_lookup(b, kiln_op_operand(op, i + 1));
    if (!buf) return kiln_error_new("function @%s: binding %u of a dispatch is not a known buffer", fn, i);
    d->bindings[i] = (sl_binding){*buf, (uint64_t)offsets[i], (uint64_t)lengths[i]};
    if (buf->kind == SL_BUF_SCRATCH) d->bindings[i].offset += buf->index, d->bindings[i].buf.index = 0;
  }
  return NULL;
}

/* hal.check.range(hal.buffer_view.load of argument A, lo, hi) with
 * constant bounds as a check on A's data; NULL when it is another form. */
static kiln_error *sl_check_of(const kiln_op *op, sl_function *out, const char *fn) {
  const kiln_op *ld = kiln_op_operand(op, 0)->def;
  int64_t b[2] = {0, 0};
  for (int k = 0; k < 2; k++) {
    const kiln_attr *c = kiln_value_constant(kiln_op_operand(op, 1 + k));
    if (!c || c->kind != KILN_ATTR_INTEGER) ld = NULL;
    else b[k] = c->i;
  }
  const kiln_value *view = ld && sl_is(ld, "hal.buffer_view.load") ? kiln_op_operand(ld, 0) : NULL;
  const int64_t index = ld ? sl_int(ld, "index", -1) : -1;
  if (!view || view->def || view->index >= out->arg_count || index < 0)
    return kiln_error_new("function @%s: static-library output checks only positions read from argument "
                          "data between constant bounds (host arithmetic on them is not supported yet)", fn);
  const sl_tensor *t = &out->args[view->index];
  const uint64_t bytes = (uint64_t)kiln_dense_elem_size(t->type->elem);
  if ((bytes != 4 && bytes != 8) || (uint64_t)index >= t->bytes / bytes)
    return kiln_error_new("function @%s: a checked position is not an i32/i64 element of argument %u", fn,
                          view->index);
  sl_check *c = realloc(out->checks, (out->check_count + 1) * sizeof *c);
  if (!c) return kiln_error_new("out of memory");
  out->checks = c;
  c[out->check_count++] = (sl_check){view->index, (uint32_t)bytes, (uint64_t)index * bytes, b[0], b[1]};
  return NULL;
}

static kiln_error *sl_function_of(kiln_op *module, const sl_plan *p, kiln_op *f, sl_function *out) {
  const char *fn = kiln_symbol_name(f);
  out->symbol = fn;
  out->c_name = strdup(fn);
  if (!out->c_name) return kiln_error_new("out of memory");
  for (char *c = out->c_name; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9'))) *c = '_';
  const kiln_attr *sig = sl_attr(f, "kiln.signature", KILN_ATTR_TYPE);
  const kiln_type *st = sig ? sig->type : NULL;
  if (!st || st->kind != KILN_TYPE_FUNCTION)
    return kiln_error_new("function @%s has no kiln.signature", fn);
  out->signature = kiln_type_to_string(st);
  out->arg_count = st->num_inputs;
  out->result_count = st->num_results;
  out->args = calloc(st->num_inputs + 1, sizeof *out->args);
  out->results = calloc(st->num_results + 1, sizeof *out->results);
  if (!out->signature || !out->args || !out->results) return kiln_error_new("out of memory");
  for (uint32_t i = 0; i < st->num_inputs + st->num_results; i++) {
    const kiln_type *t = st->types[i];
    if (!sl_static_tensor(t)) {
      char *ts = kiln_type_to_string(t);
      kiln_error *e = kiln_error_new("function @%s: %s %u has type %s: static-library output "
                                     "supports static shapes only for now (dynamic-shape "
                                     "functions are refused)",
                                     fn, i < st->num_inputs ? "argument" : "result",
                                     i < st->num_inputs ? i : i - st->num_inputs, ts ? ts : "?");
      free(ts);
      return e;
    }
    sl_tensor *x = i < st->num_inputs ? &out->args[i] : &out->results[i - st->num_inputs];
    x->type = t;
    x->bytes = sl_bytes(t);
  }
  kiln_block *body = f->num_regions ? f->regions[0].first : NULL;
  if (!body || body->next) return kiln_error_new("function @%s: expected one block", fn);
  const kiln_op *ret = body->last;
  if (!ret || ret->kind != KILN_OP_FUNC_RETURN || ret->num_operands != out->result_count)
    return kiln_error_new("function @%s: malformed return", fn);
  sl_builder b = {0};
  kiln_error *err = NULL;
  uint32_t ndisp = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (sl_is(op, "hal.command_buffer.dispatch")) ndisp++;
  out->dispatches = calloc(ndisp + 1, sizeof *out->dispatches);
  if (!out->dispatches) err = kiln_error_new("out of memory");
  uint64_t scratch = 0;
  for (kiln_op *op = body->first; op && !err; op = op->next) {
    if (sl_is(op, "hal.buffer_view.buffer")) {
      const kiln_value *v = kiln_op_operand(op, 0);
      if (v->def || v->index >= out->arg_count)
        err = kiln_error_new("function @%s: hal.buffer_view.buffer of a non-argument", fn);
      else if (!sl_bind(&b, &op->results[0], (sl_buf){SL_BUF_ARG, v->index}))
        err = kiln_error_new("out of memory");
    } else if (sl_is(op, "hal.buffer.allocate")) {
      const int64_t size = sl_int(op, "size", -1);
      if (op->num_operands || size < 0) {
        err = kiln_error_new("function @%s: an allocation has a dynamic size (dynamic shapes are "
                             "not supported by static-library output yet)", fn);
        break;
      }
      int64_t r = kiln_op_get_attr(op, "transient") ? -1 : sl_result_of(op, ret, &err, fn);
      sl_buf buf = {SL_BUF_RESULT, (uint64_t)r};
      if (r < 0) {
        /* Transient arenas (and any allocation that is not a result) share
         * the caller's scratch, each at a 64-byte aligned offset. */
        buf = (sl_buf){SL_BUF_SCRATCH, scratch};
        scratch += ((uint64_t)size + 63) & ~(uint64_t)63;
      }
      if (!err && !sl_bind(&b, &op->results[0], buf)) err = kiln_error_new("out of memory");
      if (!err && size > 0 && !kiln_op_get_attr(op, "uninitialized")) {
        sl_clear *c = realloc(out->clears, (out->clear_count + 1) * sizeof *c);
        if (!c) {
          err = kiln_error_new("out of memory");
          break;
        }
        out->clears = c;
        /* Never past the caller's result storage (its tensor's bytes). */
        uint64_t len = (uint64_t)size;
        if (buf.kind == SL_BUF_RESULT && len > out->results[buf.index].bytes)
          len = out->results[buf.index].bytes;
        c[out->clear_count++] = (sl_clear){buf, len};
      }
    } else if (sl_is(op, "hal.buffer.rodata")) {
      const int64_t idx = sl_int(op, "index", -1);
      if (idx < 0 || idx >= p->rodata_count)
        err = kiln_error_new("function @%s: hal.buffer.rodata index %lld is out of range", fn,
                             (long long)idx);
      else if (!sl_bind(&b, &op->results[0], (sl_buf){SL_BUF_RODATA, (uint64_t)idx}))
        err = kiln_error_new("out of memory");
    } else if (sl_is(op, "hal.command_buffer.dispatch")) {
      err = sl_dispatch_of(module, p, &b, op, fn, &out->dispatches[out->dispatch_count++]);
    } else if (sl_is(op, "hal.check.range")) {
      err = sl_check_of(op, out, fn);
    } else if (sl_is(op, "hal.buffer_view.create")) {
      const sl_buf *buf = sl_lookup(&b, kiln_op_operand(op, 0));
      if (op->num_operands != 1 || !buf || buf->kind != SL_BUF_RESULT)
        err = kiln_error_new("function @%s: a result view is not over its own allocation", fn);
    } else if (!sl_is(op, "hal.buffer_view.assert") && !sl_is(op, "hal.command_buffer.create") &&
               !sl_is(op, "hal.buffer_view.load") && !sl_is(op, "arith.constant") &&
               !sl_is(op, "hal.command_buffer.barrier") && !sl_is(op, "hal.command_buffer.execute") &&
               !sl_is(op, "hal.device.wait") && op != ret) {
      err = kiln_error_new("function @%s: static-library output cannot run host op '%s' (dynamic "
                           "shapes are not supported yet)", fn, op->name);
    }
  }
  out->scratch_size = scratch;
  for (uint32_t r = 0; r < out->result_count && !err; r++) {
    const kiln_value *v = kiln_op_operand(ret, r);
    const sl_buf *buf = v->def && v->def->num_operands ? sl_lookup(&b, kiln_op_operand(v->def, 0)) : NULL;
    if (!buf || buf->kind != SL_BUF_RESULT || buf->index != r)
      err = kiln_error_new("function @%s: result %u is not computed into its own buffer", fn, r);
  }
  free(b.slots);
  return err;
}

/* Weights: module-level hal.rodata ops (index order, splats expanded) or
 * the session's blobs, as serialize reads them. */
static kiln_error *sl_rodata_of(kiln_op *module, kiln_session *s, sl_plan *p) {
  uint32_t n = 0;
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next)
    if (sl_is(op, "hal.rodata")) n++;
  if (n && s->rodata_count)
    return kiln_error_new("rodata comes both from hal.rodata ops and from the session");
  const uint32_t total = n ? n : s->rodata_count;
  p->rodata = calloc(total + 1, sizeof *p->rodata);
  if (!p->rodata) return kiln_error_new("out of memory");
  p->rodata_count = total;
  if (!n) {
    for (uint32_t i = 0; i < total; i++)
      p->rodata[i] = (sl_rodata){s->rodata[i].data, s->rodata[i].size, false};
    return NULL;
  }
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    if (!sl_is(op, "hal.rodata")) continue;
    const int64_t idx = sl_int(op, "index", -1);
    const kiln_attr *v = sl_attr(op, "value", KILN_ATTR_DENSE);
    if (idx < 0 || idx >= n || p->rodata[idx].data || !v)
      return kiln_error_new("hal.rodata @%s: bad or repeated index", kiln_symbol_name(op));
    const size_t es = kiln_dense_elem_size(v->type->elem);
    const int64_t count = kiln_type_num_elements(v->type);
    if (count < 0 || !es) return kiln_error_new("hal.rodata @%s: not a static dense value", kiln_symbol_name(op));
    if (!v->splat) {
      p->rodata[idx] = (sl_rodata){v->data, v->nbytes, false};
      continue;
    }
    uint8_t *full = malloc((size_t)count * es + 1);
    if (!full) return kiln_error_new("out of memory");
    for (int64_t i = 0; i < count; i++) memcpy(full + (size_t)i * es, v->data, es);
    p->rodata[idx] = (sl_rodata){full, (uint64_t)count * es, true};
  }
  return NULL;
}

kiln_error *sl_plan_build(kiln_op *module, kiln_session *s, const char *name, const char *target,
                          sl_plan *out) {
  memset(out, 0, sizeof *out);
  out->name = name;
  out->target = target;
  kiln_error *err = sl_rodata_of(module, s, out);
  uint32_t n = 0;
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    const kiln_attr *vis = kiln_op_get_attr(op, "sym_visibility");
    if (op->kind == KILN_OP_FUNC_FUNC && (!vis || vis->kind != KILN_ATTR_STRING || strcmp(vis->str, "public") == 0))
      n++;
  }
  out->functions = calloc(n + 1, sizeof *out->functions);
  if (!err && !out->functions) err = kiln_error_new("out of memory");
  for (kiln_op *op = kiln_module_body(module)->first; op && !err; op = op->next) {
    const kiln_attr *vis = kiln_op_get_attr(op, "sym_visibility");
    if (op->kind != KILN_OP_FUNC_FUNC || (vis && vis->kind == KILN_ATTR_STRING && strcmp(vis->str, "public") != 0))
      continue;
    err = sl_function_of(module, out, op, &out->functions[out->function_count++]);
  }
  if (!err && !out->function_count) err = kiln_error_new("the module exports no function");
  if (!err && s->options.static_weights_external) {
    out->weight_offsets = calloc(out->rodata_count + 1, sizeof *out->weight_offsets);
    if (!out->weight_offsets) return kiln_error_new("out of memory");
    for (uint32_t i = 0; i < out->rodata_count; i++) {
      out->weight_offsets[i] = out->weights_size;
      out->weights_size += (out->rodata[i].size + 63) & ~(uint64_t)63;
    }
  }
  return err;
}

void sl_plan_free(sl_plan *p) {
  for (uint32_t i = 0; i < p->function_count; i++) {
    sl_function *f = &p->functions[i];
    free(f->c_name);
    free(f->signature);
    free(f->args);
    free(f->results);
    for (uint32_t d = 0; d < f->dispatch_count; d++) {
      free(f->dispatches[d].entry);
      free(f->dispatches[d].bindings);
      free(f->dispatches[d].constants);
    }
    free(f->dispatches);
    free(f->clears);
    free(f->checks);
  }
  free(p->functions);
  for (uint32_t i = 0; i < p->rodata_count; i++)
    if (p->rodata[i].owned) free((void *)p->rodata[i].data);
  free(p->rodata);
  free(p->weight_offsets);
  memset(p, 0, sizeof *p);
}
