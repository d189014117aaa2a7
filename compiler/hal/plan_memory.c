/* plan-memory: host functions from tensors to buffers.
 *
 * Takes: host functions in flow's form (flow.dispatch, flow.tensor.reshape,
 * arith.constant, host loops, host index arithmetic on tensor.dim of
 * arguments (and of host loops' results) and
 * on host loads of argument data or of dispatch results,
 * flow.check.dim_eq, flow.check.shape, flow.check.range, flow.list.*,
 * func.return; results not aliasing inputs, constants
 * or each other). Guarantees: the function takes and returns
 * !hal.buffer_view (kiln.signature keeps the tensor signature);
 *  - each input is checked with hal.buffer_view.assert {input,
 *    element_type, shape ('?' entries accept any size)} and used through
 *    hal.buffer_view.buffer; then come the host's dimension arithmetic
 *    (tensor.dim of an argument becomes hal.buffer_view.dim, a host load
 *    of its data hal.buffer_view.load) and the checks (hal.check.dim_eq,
 *    hal.check.shape, hal.check.range), in program order, before any
 *    command of their phase; a buffer
 *    sized by loaded data gets hal.check.shape of its size factors;
 *  - each dense constant becomes a module-level hal.rodata @__rodata_N
 *    {index, value} (identical constants share one) read through
 *    hal.buffer.rodata {index};
 *  - each returned dispatch result gets its own hal.buffer.allocate (its
 *    size an index operand when it has dynamic dims);
 *  - an allocation is {uninitialized} (the runtime need not clear it)
 *    when every value in it is a dispatch result its export's
 *    written_mask marks as written in full; values that may be left
 *    partly unwritten get arenas of their own whose bytes they share
 *    with nothing, cleared each call;
 *  - every other dispatch result is a slice of a transient arena
 *    (hal.buffer.allocate {transient}), offsets packed by liveness with
 *    kiln_hal_pack_arena: a value lives from its dispatch to the last
 *    dispatch reading it (directly or through a reshape view), and values
 *    alive at once never share bytes; slices are 64-byte aligned. Sizes
 *    are c * M for a constant c and a product M of run-time dims (a
 *    monomial, M = 1 for static shapes); the values of one monomial share
 *    one arena, packed over their c and scaled by M at run time (scaling
 *    keeps disjoint intervals disjoint and offsets 64-byte aligned), so
 *    a dynamic batch still packs as tightly as a static one;
 *  - a result whose kernel reads one of its inputs only to overwrite it
 *    (hl_inplace_input: an elementwise op reading each element at the
 *    position it writes, in every variant) takes that input's slot when
 *    the input is an arena value of the same size that no later command
 *    or host op reads: in place, the two share one lifetime, so a
 *    residual add does not need a third buffer beside its two operands;
 *    the dispatch then binds the same bytes as input and result;
 *  - reshapes are views: same buffer, offset and length;
 *  - a dispatch result with a tied operand (tied_operands, place-concats:
 *    the kernel writes only its window) shares that operand's slot, so
 *    a chain of them writes one buffer, allocated for its head (a
 *    function result's when the chain's last value is returned); the
 *    slot needs no clearing when every member writes its window from
 *    defined values (the export's written_mask or window_mask);
 *  - phases: a host load of a dispatch result needs the commands
 *    computing it to have run. Arguments, their dims and data are phase
 *    0; a load of data computed in phase k is phase k + 1; every other
 *    value, check, allocation and dispatch takes the largest phase of
 *    what it uses. Each phase in turn: its host ops (loads through a
 *    hal.buffer_view.create over the computed tensor's static slot), its
 *    allocations, its command buffer, execute, hal.device.wait. A value
 *    the host reads lives to the end of its phase. Without such loads
 *    everything is phase 0: one command buffer, as before;
 *  - the bindings of a tied chain's slot that its members write (their
 *    windows) or take as their tie are tagged in the dispatch's windows
 *    list (the slot's number + 1, else 0);
 *  - dispatches are recorded in order into their phase's hal.command_buffer
 *    (create, dispatch..., execute, hal.device.wait) with {executable,
 *    ordinal, offsets, lengths, readonly_mask, constants (the kernel's
 *    push constants: the flow.dispatch's index operands), workload}; the
 *    bindings are the kernel's (inputs, then results); run-time entries
 *    are '?' holes filled by the dispatch's index operands;
 *  - results are returned as hal.buffer_view.create {offset, element_type,
 *    shape} (dynamic dims as operands).
 *  - host text ops (flow.text) become hal.text.convert on views: those
 *    reading only arguments, constants and earlier such ops run before
 *    the command buffer (a numeric result a dispatch reads is a slot over
 *    the view's buffer), the others after hal.device.wait (reading
 *    dispatch results through views over their slots; their results may
 *    only be returned or read by text ops); a text op's result is its
 *    own view, returned as it is (its size is decided at run time);
 *  - a host loop (an scf.for calling host-loop bodies, fl_host_loop)
 *    becomes an scf.for over views and index values whose steps call the
 *    body (planned as a function of its own: index arguments stay
 *    scalars) and write scan rows into buffers (loop_row_op: an
 *    allocation of its own, a row copied in by hal.command_buffer.copy
 *    after its dims are checked); it takes arguments, constants, earlier host loops' results
 *    and dispatch results (each an allocation of its own, viewed with its
 *    dims; the loop runs in the phase after their commands, like a host
 *    load); its results are returned, carried on, or read by kernels
 *    through a slot over the view's buffer (tensor.dim of a result
 *    becomes hal.buffer_view.dim, after the loop); a function whose only
 *    work is its host loops records no command buffer.
 *  - lists (!kiln.seq, flow.list.*: ONNX sequences at run time): a list
 *    argument or result is a !hal.list; each list op is the hal.list op
 *    of the same name, in the phase after the commands computing an
 *    element it inserts, which has an allocation of its own (the list
 *    outlives the call's arena); a select is an scf.if yielding one list
 *    or the other; host loops carry lists; an element read back is a
 *    view, which kernels read through a slot over its buffer (its dims,
 *    tensor.dim right after the get, are hal.buffer_view.dim).
 * No barriers are inserted here: schedule-commands places them. */
#include "hl_internal.h"
#include "dialects/flow.h"
#include "dialects/hal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A byte count c * f[0] * ... * f[nf-1] over host index values (sorted). */
#define PM_MAX_FACTORS 8
typedef struct sym {
  int64_t coef;
  uint32_t nf;
  kiln_value *f[PM_MAX_FACTORS];
} sym;

typedef struct slot {
  kiln_value *buffer;      /* !hal.buffer, NULL until materialized */
  sym len;                 /* bytes */
  kiln_value *off_v, *len_v; /* run-time offset / length, or NULL */
  int64_t off;             /* static offset (when off_v is NULL) */
  int arena;               /* index into the interval list, or -1 */
  bool zero;               /* its producer may leave bytes unwritten */
  bool chain;              /* tied results share it (see tied_operand) */
} slot;

/* !kiln.str, the element type of text tensors (flow.text). */
static bool is_text(const kiln_type *t) {
  return t->kind == KILN_TYPE_OPAQUE && !strcmp(t->dialect, "kiln") && !strcmp(t->body, "str");
}

typedef struct pm {
  kiln_context *ctx;
  kiln_op *module, *func;
  kiln_builder b;       /* the host code being built */
  kiln_value_map map;   /* tensor value -> slot number, see set_slot */
  kiln_value **views;   /* view argument per input */
  kiln_value **arg_dims; /* hal.buffer_view.dim per input and dim */
  slot *slots;
  uint32_t nslots, cap;
  kiln_value_map text; /* tensor value -> its !hal.buffer_view for text ops */
  kiln_value_map phase; /* host value -> (its phase + 1), see value_phase */
  kiln_value_map repl;  /* a host load of a later phase -> the value replacing it */
  bool failed;
} pm;

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (kiln_value *const *)a, y = (uintptr_t) * (kiln_value *const *)b;
  return x < y ? -1 : x > y;
}

static bool const_index(const kiln_value *v, int64_t *out) {
  const kiln_attr *c = kiln_value_constant(v);
  if (!c || c->kind != KILN_ATTR_INTEGER) return false;
  *out = c->i;
  return true;
}

/* s *= v (constants fold, products split into factors). */
static bool sym_mul(sym *s, kiln_value *v) {
  int64_t c;
  if (const_index(v, &c)) {
    s->coef *= c;
    return true;
  }
  if (v->def && v->def->kind == KILN_OP_ARITH_MULI)
    return sym_mul(s, kiln_op_operand(v->def, 0)) && sym_mul(s, kiln_op_operand(v->def, 1));
  if (s->nf == PM_MAX_FACTORS) return false;
  s->f[s->nf++] = v;
  qsort(s->f, s->nf, sizeof *s->f, cmp_ptr);
  return true;
}

static bool same_monomial(const sym *a, const sym *b) {
  return a->nf == b->nf && memcmp(a->f, b->f, a->nf * sizeof *a->f) == 0;
}

static uint32_t new_slot(pm *p, kiln_value *buffer, sym len) {
  if (p->nslots == p->cap) {
    p->cap = p->cap ? 2 * p->cap : 16;
    slot *n = kiln_alloc(p->ctx, p->cap * sizeof *n);
    if (p->nslots) memcpy(n, p->slots, p->nslots * sizeof *n);
    p->slots = n;
  }
  slot s = {buffer, len, NULL, NULL, 0, -1, false, false};
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
  return kiln_op_error(op, "plan-memory: function @%s: %s", kiln_symbol_name(p->func), what);
}

static kiln_value *index_const(pm *p, int64_t v) {
  return kiln_build_constant(&p->b, kiln_attr_int(p->ctx, kiln_type_index(p->ctx), v));
}

static kiln_value *mul(pm *p, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *it = kiln_type_index(p->ctx);
  return kiln_op_result(kiln_build(&p->b, KILN_OP_ARITH_MULI, 2, ops, 1, &it, NULL), 0);
}

/* Factor v as the host computes it: counts are taken before the loads of
 * later phases replace their index_casts. */
static kiln_value *cur(pm *p, kiln_value *v) {
  kiln_value *r = kiln_value_map_lookup(&p->repl, v);
  return r ? r : v;
}

/* The run-time value of a symbolic count (NULL when it is a constant). */
static kiln_value *materialize(pm *p, const sym *s) {
  if (!s->nf) return NULL;
  kiln_value *v = cur(p, s->f[0]);
  for (uint32_t i = 1; i < s->nf; i++) v = mul(p, v, cur(p, s->f[i]));
  return s->coef == 1 ? v : mul(p, v, index_const(p, s->coef));
}

/* Does index value v depend on input data (hal.buffer_view.load)? A
 * budget bounds the walk over the shared expression DAG; past it, yes. */
static bool from_load(kiln_value *v, int *budget) {
  kiln_op *d = v->def;
  if (!d || d->kind == KILN_OP_HAL_BUFFER_VIEW_DIM || d->kind == KILN_OP_ARITH_CONSTANT) return false;
  if (d->kind == KILN_OP_HAL_BUFFER_VIEW_LOAD || --*budget < 0) return true;
  for (uint32_t i = 0; i < d->num_operands; i++)
    if (from_load(kiln_op_operand(d, i), budget)) return true;
  return false;
}

/* A buffer sized by input data gets hal.check.shape of its factors (no
 * negative one, no byte count that wraps) before the size is computed:
 * the MLIR front end's programs have no other check (the ONNX importer's
 * flow.check.shape names the node first). */
static void check_size(pm *p, const sym *s, int64_t unit_bytes) {
  bool data = false;
  for (uint32_t i = 0; i < s->nf && !data; i++) {
    int budget = 64;
    data = from_load(cur(p, s->f[i]), &budget);
  }
  if (!data) return;
  kiln_value *f[PM_MAX_FACTORS];
  for (uint32_t i = 0; i < s->nf; i++) f[i] = cur(p, s->f[i]);
  kiln_named_attr a = hl_named(p->ctx, "element_bytes", hl_i64(p->ctx, unit_bytes > 0 ? unit_bytes : 1));
  kiln_build(&p->b, KILN_OP_HAL_CHECK_SHAPE, s->nf, f, 0, NULL, kiln_attr_dict(p->ctx, 1, &a));
}

/* hal.buffer_view.dim: dim d of a buffer view, read at run time. */
static kiln_value *view_dim(pm *p, kiln_value *view, uint32_t d) {
  const kiln_type *it = kiln_type_index(p->ctx);
  kiln_named_attr a = hl_named(p->ctx, "index", hl_i32(p->ctx, (int32_t)d));
  return kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_DIM, 1, &view, 1, &it, kiln_attr_dict(p->ctx, 1, &a)),
                        0);
}

/* A slot over the buffer of the run-time view `view`, for the tensor r that
 * kernels read in place (offset 0); its byte count comes from r's static
 * dims and the view's run-time ones. what: the error when r's element has
 * no fixed size. */
static kiln_error *slot_over_view(pm *p, const kiln_op *o, kiln_value *r, kiln_value *view, const char *what) {
  sym s = {(int64_t)kiln_dense_elem_size(r->type->elem), 0, {0}};
  if (!s.coef) return fail(p, o, what);
  kiln_value *len = NULL;
  for (uint32_t d = 0; d < r->type->rank; d++) {
    if (r->type->shape[d] != KILN_DYNAMIC) {
      s.coef *= r->type->shape[d];
      continue;
    }
    kiln_value *dv = view_dim(p, view, d);
    len = len ? mul(p, len, dv) : dv;
  }
  const kiln_type *bt = hl_type(p->ctx, "buffer");
  kiln_value *buf = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &view, 1, &bt, NULL), 0);
  uint32_t k = new_slot(p, buf, s);
  if (len) p->slots[k].len_v = s.coef == 1 ? len : mul(p, len, index_const(p, s.coef));
  set_slot(p, r, k);
  return NULL;
}

/* hal.buffer_view.create: a view of type t over the buffer ops[0] at byte
 * offset off, ops[1..no) the sizes of t's '?' dims. */
static kiln_value *view_create(pm *p, kiln_value *const *ops, uint32_t no, int64_t off, const kiln_type *t) {
  const kiln_type *bvt = hl_type(p->ctx, "buffer_view");
  kiln_named_attr a[3] = {hl_named(p->ctx, "offset", hl_i64(p->ctx, off)),
                          hl_named(p->ctx, "element_type", kiln_attr_type(p->ctx, t->elem)),
                          hl_named(p->ctx, "shape", shape_attr(p->ctx, t))};
  return kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_CREATE, no, ops, 1, &bvt,
                                   kiln_attr_dict(p->ctx, 3, a)), 0);
}

/* hal.buffer_view.dim d of input i, one per (input, dim). */
static kiln_value *arg_dim(pm *p, uint32_t i, uint32_t d) {
  if (d >= KILN_MAX_LOOPS) return NULL;
  kiln_value **cell = &p->arg_dims[i * KILN_MAX_LOOPS + d];
  if (!*cell) *cell = view_dim(p, p->views[i], d);
  return *cell;
}

/* The index value of dynamic dim d of host tensor v (NULL on failure). */
static kiln_value *dim_value(pm *p, kiln_value *v, uint32_t d) {
  kiln_op *op = v->def;
  if (!op) return v->block == p->func->regions[0].first && p->views ? arg_dim(p, v->index, d) : NULL;
  uint32_t k = 0, first = 1;
  if (op->kind == KILN_OP_FLOW_DISPATCH) {
    uint32_t r = 0;
    while (r < op->num_results && &op->results[r] != v) k += kiln_type_num_dynamic_dims(op->results[r++].type);
    const kiln_attr *rd = kiln_op_get_attr(op, "result_dims");
    for (uint32_t i = 0; i < d; i++) k += v->type->shape[i] == KILN_DYNAMIC;
    if (!rd || rd->kind != KILN_ATTR_DENSE_ARRAY || k >= rd->count) return NULL;
    first = 0;
    while (first < op->num_operands && kiln_op_operand(op, first)->type->kind == KILN_TYPE_TENSOR) first++;
    k = (uint32_t)((const int64_t *)rd->data)[k];
  } else if (op->kind == KILN_OP_FLOW_TENSOR_RESHAPE) {
    for (uint32_t i = 0; i < d; i++) k += v->type->shape[i] == KILN_DYNAMIC;
  } else {
    return NULL;
  }
  return first + k < op->num_operands ? kiln_op_operand(op, first + k) : NULL;
}

/* Byte count of host tensor v. */
static bool byte_sym(pm *p, kiln_value *v, sym *s) {
  const kiln_type *t = v->type;
  size_t es = kiln_dense_elem_size(t->elem);
  s->coef = (int64_t)es, s->nf = 0;
  if (!es) return false;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->shape[d] != KILN_DYNAMIC) {
      if (t->shape[d] && s->coef > INT64_MAX / t->shape[d]) return false;
      s->coef *= t->shape[d];
      continue;
    }
    kiln_value *x = dim_value(p, v, d);
    if (!x || !sym_mul(s, x)) return false;
  }
  return true;
}

static kiln_value *rodata(pm *p, const kiln_attr *value) {
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
  return kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_RODATA, 0, NULL, 1, &bt, kiln_attr_dict(p->ctx, 1, &a)), 0);
}

/* A buffer of s bytes (s->coef when static, else the run-time count);
 * uninitialized when every value in it is written in full by its
 * dispatch before anything reads it. */
static kiln_value *allocate(pm *p, const sym *s, kiln_value *size, bool transient, bool uninit) {
  kiln_named_attr a[3];
  uint32_t na = 0;
  if (!size) a[na++] = hl_named(p->ctx, "size", hl_i64(p->ctx, s->coef));
  if (transient) a[na++] = hl_named(p->ctx, "transient", kiln_attr_unit(p->ctx));
  if (uninit) a[na++] = hl_named(p->ctx, "uninitialized", kiln_attr_unit(p->ctx));
  const kiln_type *bt = hl_type(p->ctx, "buffer");
  return kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_ALLOCATE, size ? 1 : 0, &size, 1, &bt,
                                   kiln_attr_dict(p->ctx, na, a)),
                        0);
}

/* Is bit r of dispatch op's results set in the export attribute mask
 * (written_mask: written in full, see materialize-interfaces;
 * window_mask: stored as windows of defined values, see written.c) of
 * its export in every variant? */
static bool result_in_mask(pm *p, kiln_op *op, uint32_t r, const char *mask) {
  const kiln_attr *ep = kiln_op_get_attr(op, "entry_point");
  kiln_op *exe = ep && ep->kind == KILN_ATTR_SYMBOL_REF ? kiln_symbol_lookup(p->module, ep->str) : NULL;
  kiln_block *eb = exe && exe->kind == KILN_OP_HAL_EXECUTABLE ? exe->regions[0].first : NULL;
  uint32_t nt = 0, nexports = 0;
  while (nt < op->num_operands && kiln_op_operand(op, nt)->type->kind == KILN_TYPE_TENSOR) nt++;
  if (nt + r >= 32) return false;
  for (kiln_op *var = eb ? eb->first : NULL; var; var = var->next) {
    kiln_block *vb = var->kind == KILN_OP_HAL_EXECUTABLE_VARIANT ? var->regions[0].first : NULL;
    for (kiln_op *x = vb ? vb->first : NULL; x; x = x->next) {
      if (x->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
      const kiln_attr *m = kiln_op_get_attr(x, mask);
      if (!m || m->kind != KILN_ATTR_INTEGER || !((m->i >> (nt + r)) & 1)) return false;
      nexports++;
    }
  }
  return nexports > 0;
}

static bool result_written(pm *p, kiln_op *op, uint32_t r) { return result_in_mask(p, op, r, "written_mask"); }
static bool result_window(pm *p, kiln_op *op, uint32_t r) { return result_in_mask(p, op, r, "window_mask"); }

/* The operand whose buffer result v of a dispatch writes into
 * (place-concats' tied_operands), or NULL. */
static kiln_value *tied_operand(kiln_value *v) {
  kiln_op *d = v->def;
  const kiln_attr *t = d && d->kind == KILN_OP_FLOW_DISPATCH ? kiln_op_get_attr(d, "tied_operands") : NULL;
  if (!t || t->kind != KILN_ATTR_DENSE_ARRAY || v->index >= t->count) return NULL;
  int64_t k = ((const int64_t *)t->data)[v->index];
  return k >= 0 && k < (int64_t)d->num_operands ? kiln_op_operand(d, (uint32_t)k) : NULL;
}

/* The head of v's tied chain: the dispatch result whose slot it shares. */
static kiln_value *chain_head(kiln_value *v) {
  kiln_value *t;
  while ((t = tied_operand(v))) v = view_root(t);
  return v;
}

/* The operand of dispatch op (its number, or -1) whose bytes result r may
 * take over: every variant's kernel reads that input binding only at the
 * positions it writes the result (hl_inplace_input). */
static int inplace_operand(pm *p, kiln_op *op, uint32_t r) {
  const kiln_attr *ep = kiln_op_get_attr(op, "entry_point");
  kiln_op *exe = ep && ep->kind == KILN_ATTR_SYMBOL_REF ? kiln_symbol_lookup(p->module, ep->str) : NULL;
  kiln_block *eb = exe && exe->kind == KILN_OP_HAL_EXECUTABLE ? exe->regions[0].first : NULL;
  uint32_t nt = 0;
  while (nt < op->num_operands && kiln_op_operand(op, nt)->type->kind == KILN_TYPE_TENSOR) nt++;
  int found = -1;
  for (kiln_op *var = eb ? eb->first : NULL; var; var = var->next) {
    if (var->kind != KILN_OP_HAL_EXECUTABLE_VARIANT) continue;
    kiln_op *kernel = hl_variant_kernel(var);
    int i = kernel ? hl_inplace_input(kernel, nt + r, nt) : -1;
    if (i < 0 || (found >= 0 && i != found)) return -1;
    found = i;
  }
  return found;
}

/* Is tensor v (a dispatch result) read after position pos? Its readers,
 * through reshape views, must all be dispatches at pos or before (pos_of:
 * a dispatch's first result -> its position + 1), v taken once at pos;
 * any other reader (the host, a text op, a loop, the return) keeps it. */
static bool read_after(kiln_value *v, const kiln_value_map *pos_of, uint32_t pos, uint32_t *at_pos) {
  for (kiln_use *u = v->uses; u; u = u->next) {
    kiln_op *o = u->owner;
    if (o->kind == KILN_OP_FLOW_TENSOR_RESHAPE) {
      if (read_after(&o->results[0], pos_of, pos, at_pos)) return true;
      continue;
    }
    kiln_value *x = o->kind == KILN_OP_FLOW_DISPATCH && o->num_results ? kiln_value_map_lookup(pos_of, &o->results[0]) : NULL;
    if (!x || (uintptr_t)x - 1 > pos) return true;
    *at_pos += (uintptr_t)x - 1 == pos;
  }
  return false;
}

/* Host index ops the planned function keeps (they only read argument
 * dims and constants). */
static bool host_index_op(const kiln_op *o) {
  switch (o->kind) {
  case KILN_OP_ARITH_ADDI:
  case KILN_OP_ARITH_SUBI:
  case KILN_OP_ARITH_MULI:
  case KILN_OP_ARITH_DIVSI:
  case KILN_OP_ARITH_DIVUI:
  case KILN_OP_ARITH_CEILDIVSI:
  case KILN_OP_ARITH_REMSI:
  case KILN_OP_ARITH_MINSI:
  case KILN_OP_ARITH_MAXSI: return o->num_results == 1 && o->results[0].type->kind == KILN_TYPE_INDEX;
  case KILN_OP_ARITH_CONSTANT: return o->num_results == 1 && !kiln_type_is_shaped(o->results[0].type);
  default: return false;
  }
}

/* The argument a host load reads: t, or the float argument t views as
 * integers of its width (the load reads the bits). */
static kiln_value *load_arg(kiln_value *t) {
  kiln_op *d = t->def;
  if (!d || d->kind != KILN_OP_FLOW_TENSOR_RESHAPE || d->num_operands != 1) return t;
  kiln_value *a = kiln_op_operand(d, 0);
  bool same = !a->def && a->type->kind == KILN_TYPE_TENSOR && a->type->rank == t->type->rank &&
              kiln_type_is_float(a->type->elem) && a->type->elem->width == t->type->elem->width;
  for (uint32_t i = 0; same && i < a->type->rank; i++) same = a->type->shape[i] == t->type->shape[i];
  return same ? a : t;
}

/* tensor.extract (static, i32/i64) at constant indices of an argument (or
 * a float one's bits), or of a dispatch result (or a view of one): flow's
 * host load (fl_host_load). Its flat element index goes to *flat. */
static bool host_load(const kiln_op *o, int64_t *flat) {
  if (o->kind != KILN_OP_TENSOR_EXTRACT || o->num_results != 1 ||
      o->results[0].type->kind != KILN_TYPE_INTEGER || o->results[0].type->width < 32)
    return false;
  kiln_value *t = kiln_op_operand(o, 0);
  kiln_value *root = view_root(t);
  if (load_arg(t)->def && (!root->def || root->def->kind != KILN_OP_FLOW_DISPATCH)) return false;
  if (!kiln_type_has_static_shape(t->type) || o->num_operands != 1 + t->type->rank) return false;
  int64_t f = 0;
  for (uint32_t i = 1; i < o->num_operands; i++) {
    int64_t x;
    if (!const_index(kiln_op_operand(o, i), &x) || x < 0 || x >= t->type->shape[i - 1]) return false;
    f = f * t->type->shape[i - 1] + x;
  }
  *flat = f;
  return true;
}

/* index_cast of a host load: the value hal.buffer_view.load reads. */
static bool host_load_cast(const kiln_op *o, int64_t *flat) {
  if (o->kind != KILN_OP_ARITH_INDEX_CAST || o->results[0].type->kind != KILN_TYPE_INDEX) return false;
  kiln_op *e = kiln_op_operand(o, 0)->def;
  return e && host_load(e, flat);
}

/* Integer list with '?' holes whose values go to dyn. */
typedef struct mixed {
  int64_t v[512];
  kiln_value *dyn[512];
  uint32_t n, ndyn;
} mixed;

static void mixed_add(mixed *m, int64_t c, kiln_value *v) {
  if (m->n == 512) return;
  if (v && m->ndyn < 512) {
    m->v[m->n++] = KILN_DYNAMIC;
    m->dyn[m->ndyn++] = v;
  } else {
    m->v[m->n++] = c;
  }
}

/* The view a text op reads for tensor v: an argument's or an earlier
 * text op's, else one made here over a constant's rodata (u8 bytes) or a
 * dispatch result's slot (after the wait; static shapes). */
static kiln_value *text_view(pm *p, kiln_op *op, kiln_value *v, kiln_error **err) {
  kiln_value *view = kiln_value_map_lookup(&p->text, v);
  if (view) return view;
  kiln_value *buf = NULL;
  int64_t off = 0;
  const kiln_attr *cv = v->def && v->def->kind == KILN_OP_ARITH_CONSTANT ? kiln_op_get_attr(v->def, "value") : NULL;
  if (cv && cv->kind == KILN_ATTR_DENSE) {
    buf = rodata(p, cv);
  } else {
    int s = get_slot(p, view_root(v));
    if (s >= 0 && p->slots[s].buffer && !p->slots[s].off_v) {
      buf = p->slots[s].buffer;
      off = p->slots[s].off;
    }
  }
  if (!buf || !kiln_type_has_static_shape(v->type)) {
    *err = fail(p, op, "a text op's operand is neither an argument, a constant, a text op's result nor a "
                       "static dispatch result");
    return NULL;
  }
  view = view_create(p, &buf, 1, off, v->type);
  kiln_value_map_add(p->ctx, &p->text, v, view);
  return view;
}

/* flow.text -> hal.text.convert at the builder; a numeric result gets a
 * slot over its view's buffer, so dispatches can read it. */
static kiln_error *text_op(pm *p, kiln_op *o) {
  kiln_error *err = NULL;
  kiln_value *ops[2];
  for (uint32_t a = 0; a < 2; a++)
    if (!(ops[a] = text_view(p, o, kiln_op_operand(o, a), &err))) return err;
  kiln_value *r = kiln_op_result(o, 0);
  const kiln_type *bvt = hl_type(p->ctx, "buffer_view");
  const kiln_attr *op_a = kiln_op_get_attr(o, "op"), *fl = kiln_op_get_attr(o, "flags");
  if (!op_a || op_a->kind != KILN_ATTR_INTEGER) return fail(p, o, "flow.text needs an integer 'op'");
  kiln_named_attr a[3] = {hl_named(p->ctx, "op", hl_i32(p->ctx, op_a->i)),
                          hl_named(p->ctx, "flags", hl_i32(p->ctx, fl && fl->kind == KILN_ATTR_INTEGER ? fl->i : 0)),
                          hl_named(p->ctx, "element_type", kiln_attr_type(p->ctx, r->type->elem))};
  kiln_op *h = kiln_build(&p->b, KILN_OP_HAL_TEXT_CONVERT, 2, ops, 1, &bvt, kiln_attr_dict(p->ctx, 3, a));
  h->loc = o->loc;
  kiln_value *view = kiln_op_result(h, 0);
  kiln_value_map_add(p->ctx, &p->text, r, view);
  sym s;
  if (!is_text(r->type->elem) && byte_sym(p, r, &s) && !s.nf) {
    const kiln_type *bt = hl_type(p->ctx, "buffer");
    kiln_value *buf = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &view, 1, &bt, NULL), 0);
    set_slot(p, r, new_slot(p, buf, s));
  }
  return NULL;
}

/* The phase of host value v (0 for arguments, their dims and data). */
static uint32_t value_phase(pm *p, kiln_value *v) {
  kiln_value *x = kiln_value_map_lookup(&p->phase, v);
  return x ? (uint32_t)((uintptr_t)x - 1) : 0;
}
static void set_phase(pm *p, kiln_value *v, uint32_t k) {
  kiln_value_map_add(p->ctx, &p->phase, v, (kiln_value *)(uintptr_t)(k + 1));
}
/* The phase whose values a byte count needs. */
static uint32_t sym_phase(pm *p, const sym *s) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < s->nf; i++) {
    uint32_t x = value_phase(p, s->f[i]);
    if (x > k) k = x;
  }
  return k;
}

static kiln_value *loop_view(pm *p, kiln_op *loop, kiln_value *v, kiln_error **err);

/* What host op `user` (a host loop or a list op) passes for v: a view for
 * a tensor (loop_view), the !hal.list made for a list, v itself for an
 * index; NULL with *err set when there is none. */
static kiln_value *host_operand(pm *p, kiln_op *user, kiln_value *v, kiln_error **err) {
  if (v->type->kind == KILN_TYPE_TENSOR) return loop_view(p, user, v, err);
  if (!kiln_type_is_seq(v->type)) return v;
  kiln_value *l = kiln_value_map_lookup(&p->text, v);
  if (!l)
    *err = fail(p, user, user->kind == KILN_OP_SCF_FOR ? "a host loop takes a list that was not made on the host"
                                                       : "a list op's list was not made on the host");
  return l;
}

/* flow.list.* -> the hal.list op of the same name at the builder, in the
 * phase after the commands computing an element it inserts (that
 * element has an allocation of its own: the list outlives the call's
 * arena). Lists and read elements live in p->text (value -> its
 * !hal.list or !hal.buffer_view); a list's length replaces its uses. */
static kiln_error *list_host_op(pm *p, kiln_op *o) {
  kiln_context *ctx = p->ctx;
  static const kiln_op_kind hal_kind[] = {
      [KILN_OP_FLOW_LIST_CREATE] = KILN_OP_HAL_LIST_CREATE, [KILN_OP_FLOW_LIST_SIZE] = KILN_OP_HAL_LIST_SIZE,
      [KILN_OP_FLOW_LIST_GET] = KILN_OP_HAL_LIST_GET, [KILN_OP_FLOW_LIST_INSERT] = KILN_OP_HAL_LIST_INSERT,
      [KILN_OP_FLOW_LIST_ERASE] = KILN_OP_HAL_LIST_ERASE};
  kiln_value *ops[3];
  kiln_error *err = NULL;
  for (uint32_t a = 0; a < o->num_operands; a++)
    if (!(ops[a] = host_operand(p, o, kiln_op_operand(o, a), &err))) return err;
  kiln_value *r = kiln_op_result(o, 0);
  if (o->kind == KILN_OP_FLOW_LIST_SELECT) { /* scf.if (c != 0) yielding one list or the other */
    const kiln_type *lt = hl_type(ctx, "list"), *i1 = kiln_type_int(ctx, 1);
    kiln_value *cmp[2] = {ops[0], index_const(p, 0)};
    kiln_named_attr pred = hl_named(ctx, "predicate", kiln_attr_int(ctx, kiln_type_int(ctx, 64), 1)); /* ne */
    kiln_value *cond = kiln_op_result(kiln_build(&p->b, KILN_OP_ARITH_CMPI, 2, cmp, 1, &i1, kiln_attr_dict(ctx, 1, &pred)), 0);
    kiln_op *br = kiln_build(&p->b, KILN_OP_SCF_IF, 1, &cond, 1, &lt, NULL);
    br->loc = o->loc;
    for (uint32_t g = 0; g < 2; g++) {
      kiln_builder bb = kiln_builder_at_end(ctx, kiln_op_entry_block(ctx, br, g));
      bb.loc = o->loc;
      kiln_build(&bb, KILN_OP_SCF_YIELD, 1, &ops[1 + g], 0, NULL, NULL);
    }
    kiln_value_map_add(ctx, &p->text, r, kiln_op_result(br, 0));
    return NULL;
  }
  const kiln_type *rt = r->type->kind == KILN_TYPE_INDEX ? r->type
                        : r->type->kind == KILN_TYPE_TENSOR ? hl_type(ctx, "buffer_view") : hl_type(ctx, "list");
  kiln_op *h = kiln_build(&p->b, hal_kind[o->kind], o->num_operands, ops, 1, &rt, NULL);
  h->loc = o->loc;
  if (r->type->kind == KILN_TYPE_INDEX) {
    set_phase(p, kiln_op_result(h, 0), value_phase(p, r));
    kiln_value_replace_all_uses(r, kiln_op_result(h, 0));
  } else {
    kiln_value_map_add(ctx, &p->text, r, kiln_op_result(h, 0));
  }
  if (o->kind == KILN_OP_FLOW_LIST_GET) /* kernels may read it */
    return slot_over_view(p, o, r, kiln_op_result(h, 0), "a list's element has no fixed element size");
  return NULL;
}

/* A host op of flow's form at the builder: tensor.dim of an argument, a
 * host load (of argument data, or after the wait of data a dispatch
 * computed, through a view over its slot), a check, index arithmetic (a
 * moved op at the insertion point just stays). Other ops: nothing. */
static kiln_error *host_loop(pm *p, kiln_op *o);
static kiln_error *host_op(pm *p, kiln_op *o, bool *keep) {
  kiln_context *ctx = p->ctx;
  if (o->kind == KILN_OP_TENSOR_DIM) {
    kiln_value *src = kiln_op_operand(o, 0);
    int64_t d = -1;
    const_index(kiln_op_operand(o, 1), &d);
    kiln_value *v = NULL, *view = src->def ? kiln_value_map_lookup(&p->text, src) : NULL;
    if (view && d >= 0 && d < (int64_t)src->type->rank) { /* a host loop's result (it ran before) */
      v = view_dim(p, view, (uint32_t)d);
      /* sizes planned before the loop's phase ran name the tensor.dim */
      set_phase(p, v, value_phase(p, kiln_op_result(o, 0)));
      kiln_value_map_add(ctx, &p->repl, kiln_op_result(o, 0), v);
    } else if (!src->def && d >= 0) {
      v = arg_dim(p, src->index, (uint32_t)d);
    }
    if (!v) return fail(p, o, "dimension index out of range");
    kiln_value_replace_all_uses(kiln_op_result(o, 0), v);
  } else if (o->kind == KILN_OP_ARITH_INDEX_CAST) {
    int64_t flat = 0;
    host_load_cast(o, &flat);
    kiln_value *t = kiln_op_operand(kiln_op_operand(o, 0)->def, 0), *view;
    if (!load_arg(t)->def) {
      view = p->views[load_arg(t)->index];
    } else {
      /* a view over the slot of the computed tensor */
      view = kiln_value_map_lookup(&p->text, t);
      int s = get_slot(p, view_root(t));
      if (!view && (s < 0 || !p->slots[s].buffer || p->slots[s].off_v))
        return fail(p, o, "reads computed data that has no static slot");
      if (!view) {
        view = view_create(p, &p->slots[s].buffer, 1, p->slots[s].off, t->type);
        kiln_value_map_add(ctx, &p->text, t, view);
      }
    }
    const kiln_type *it = kiln_type_index(ctx);
    kiln_named_attr a = hl_named(ctx, "index", hl_i64(ctx, flat));
    kiln_op *ld = kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_LOAD, 1, &view, 1, &it, kiln_attr_dict(ctx, 1, &a));
    ld->loc = o->loc;
    kiln_value_replace_all_uses(kiln_op_result(o, 0), kiln_op_result(ld, 0));
    set_phase(p, kiln_op_result(ld, 0), value_phase(p, kiln_op_result(o, 0)));
    kiln_value_map_add(ctx, &p->repl, kiln_op_result(o, 0), kiln_op_result(ld, 0));
  } else if (o->kind == KILN_OP_FLOW_CHECK_SHAPE) {
    kiln_value *ops[KILN_MAX_LOOPS];
    if (o->num_operands > KILN_MAX_LOOPS) return fail(p, o, "shape of too high a rank");
    for (uint32_t k = 0; k < o->num_operands; k++) ops[k] = kiln_op_operand(o, k);
    kiln_named_attr a = hl_named(ctx, "element_bytes", kiln_op_get_attr(o, "element_bytes"));
    kiln_build(&p->b, KILN_OP_HAL_CHECK_SHAPE, o->num_operands, ops, 0, NULL, kiln_attr_dict(ctx, 1, &a))->loc = o->loc;
  } else if (o->kind == KILN_OP_FLOW_CHECK_DIM_EQ) {
    kiln_value *ops[2] = {kiln_op_operand(o, 0), kiln_op_operand(o, 1)};
    kiln_build(&p->b, KILN_OP_HAL_CHECK_DIM_EQ, 2, ops, 0, NULL, NULL)->loc = o->loc;
  } else if (o->kind == KILN_OP_FLOW_CHECK_RANGE) {
    kiln_value *ops[3] = {kiln_op_operand(o, 0), kiln_op_operand(o, 1), kiln_op_operand(o, 2)};
    kiln_named_attr a[2] = {hl_named(ctx, "what", kiln_op_get_attr(o, "what")),
                            hl_named(ctx, "dim", kiln_op_get_attr(o, "dim"))};
    kiln_build(&p->b, KILN_OP_HAL_CHECK_RANGE, 3, ops, 0, NULL, kiln_attr_dict(ctx, 2, a))->loc = o->loc;
  } else if (o->kind == KILN_OP_SCF_FOR) {
    return host_loop(p, o);
  } else if (flow_is_list_op(o)) {
    return list_host_op(p, o);
  } else if (host_index_op(o)) {
    *keep = true;
    if (o == p->b.before) {
      p->b.before = o->next;
    } else {
      kiln_op_remove(o);
      kiln_builder_insert(&p->b, o);
    }
  }
  return NULL;
}

/* One flow.dispatch recorded into command buffer cb. */
static kiln_error *dispatch(pm *p, kiln_op *o, kiln_value *cb, mixed *lists) {
  kiln_context *ctx = p->ctx;
  uint32_t nt = 0;
  while (nt < o->num_operands && kiln_op_operand(o, nt)->type->kind == KILN_TYPE_TENSOR) nt++;
  uint32_t n = nt + o->num_results;
  memset(lists, 0, 4 * sizeof *lists);
  kiln_value *bufs[512];
  if (n >= 512) return fail(p, o, "too many bindings");
  for (uint32_t k = 0; k < n; k++) {
    kiln_value *v = k < nt ? kiln_op_operand(o, k) : kiln_op_result(o, k - nt);
    int s = get_slot(p, view_root(v));
    if (s < 0 || !p->slots[s].buffer) return fail(p, o, "a dispatch operand has no buffer (is it a tensor computed on the host?)");
    bufs[k] = p->slots[s].buffer;
    mixed_add(&lists[0], p->slots[s].off, p->slots[s].off_v);
    mixed_add(&lists[1], p->slots[s].len.coef, p->slots[s].len_v);
  }
  for (uint32_t k = nt; k < o->num_operands; k++) mixed_add(&lists[2], 0, kiln_op_operand(o, k));
  const kiln_attr *ep = kiln_op_get_attr(o, "entry_point");
  const kiln_attr *wl = kiln_op_get_attr(o, "workload");
  const kiln_attr *wd = kiln_op_get_attr(o, "workload_dims");
  for (uint32_t k = 0, h = 0; wl && k < wl->count; k++) {
    int64_t w = ((const int64_t *)wl->data)[k];
    kiln_value *x = NULL;
    if (w == KILN_DYNAMIC && wd && h < wd->count) x = kiln_op_operand(o, nt + (uint32_t)((const int64_t *)wd->data)[h++]);
    mixed_add(&lists[3], w, x);
  }
  uint32_t nops_d = n + 1;
  kiln_value **ops = kiln_alloc(ctx, (n + 2 + lists[0].ndyn + lists[1].ndyn + lists[2].ndyn + lists[3].ndyn) *
                                         sizeof *ops);
  ops[0] = cb;
  memcpy(ops + 1, bufs, n * sizeof *bufs);
  for (uint32_t l = 0; l < 4; l++)
    for (uint32_t k = 0; k < lists[l].ndyn; k++) ops[nops_d++] = lists[l].dyn[k];
  int64_t mask = nt >= 32 ? 0xffffffffll : (((int64_t)1 << nt) - 1);
  /* a tied chain's members write disjoint windows of its slot and never
   * read their tie: tagged, so schedule-commands orders them only
   * against the slot's other users */
  int64_t *windows = kiln_alloc(ctx, (n + 1) * sizeof *windows);
  bool any_window = false;
  const kiln_attr *tied = kiln_op_get_attr(o, "tied_operands");
  for (uint32_t k = 0; k < n; k++) {
    kiln_value *v = k < nt ? kiln_op_operand(o, k) : kiln_op_result(o, k - nt);
    int s = get_slot(p, view_root(v));
    bool member = false;
    if (k >= nt) {
      member = s >= 0 && p->slots[s].chain;
    } else if (tied && tied->kind == KILN_ATTR_DENSE_ARRAY) {
      for (uint32_t r = 0; r < tied->count; r++) member |= ((const int64_t *)tied->data)[r] == (int64_t)k;
    }
    windows[k] = member ? s + 1 : 0;
    any_window |= member;
  }
  kiln_named_attr a[8] = {
      hl_named(ctx, "executable", kiln_attr_symbol_ref(ctx, ep->str, 0, NULL)),
      hl_named(ctx, "ordinal", hl_i32(ctx, 0)),
      hl_named(ctx, "offsets", kiln_attr_dense_i64_array(ctx, n, lists[0].v)),
      hl_named(ctx, "lengths", kiln_attr_dense_i64_array(ctx, n, lists[1].v)),
      hl_named(ctx, "readonly_mask", hl_i32(ctx, mask)),
      hl_named(ctx, "constants",
               lists[2].n ? kiln_attr_dense_i64_array(ctx, lists[2].n, lists[2].v)
                          : kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 0, NULL, NULL)),
      hl_named(ctx, "workload", wl ? kiln_attr_dense_i64_array(ctx, lists[3].n, lists[3].v) : NULL),
  };
  uint32_t na = wl ? 7 : 6;
  if (any_window) a[na++] = hl_named(ctx, "windows", kiln_attr_dense_i64_array(ctx, n, windows));
  kiln_op *d = kiln_build(&p->b, KILN_OP_HAL_COMMAND_BUFFER_DISPATCH, nops_d, ops, 0, NULL,
                          kiln_attr_dict(ctx, na, a));
  d->loc = o->loc;
  return NULL;
}

/* A host loop's scan row ops (see loop_row_op). */
static bool loop_row_kind(const kiln_op *x) {
  return x->kind == KILN_OP_TENSOR_DIM || x->kind == KILN_OP_TENSOR_EMPTY || x->kind == KILN_OP_TENSOR_INSERT_SLICE;
}

/* A host loop left by flow (fl_host_loop): an scf.for whose body holds
 * func.calls, index arithmetic, scan row ops (loop_row_op) and the
 * yield. */
static bool host_loop_op(const kiln_op *o) {
  if (o->kind != KILN_OP_SCF_FOR || !o->num_regions || !o->regions[0].first) return false;
  bool calls = false;
  for (kiln_op *x = o->regions[0].first->first; x; x = x->next) {
    if (x->kind == KILN_OP_FUNC_CALL) calls = true;
    else if (x->kind != KILN_OP_SCF_YIELD && !host_index_op(x) && !loop_row_kind(x)) return false;
  }
  return calls;
}

/* Is v defined inside host loop `loop` (its step number, carried values
 * and its calls' results) rather than taken from the function? */
static bool in_loop(const kiln_value *v, const kiln_op *loop) {
  return (v->def ? v->def->parent : v->block) == loop->regions[0].first;
}

/* The i-th value host loop `loop` takes from its function (its operands,
 * then what its calls and index arithmetic read from outside), or a list
 * op its i-th operand; NULL past the last. */
static kiln_value *loop_input(const kiln_op *loop, uint32_t i) {
  if (i < loop->num_operands) return kiln_op_operand(loop, i);
  if (!loop->num_regions) return NULL; /* a list op */
  i -= loop->num_operands;
  for (kiln_op *x = loop->regions[0].first->first; x; x = x->next)
    for (uint32_t k = 0; k < x->num_operands; k++) {
      kiln_value *v = kiln_op_operand(x, k);
      if (!in_loop(v, loop) && !i--) return v;
    }
  return NULL;
}

/* The dispatch result whose buffer holds tensor v (through reshapes and
 * tied chains), or NULL. */
static kiln_value *dispatch_root(kiln_value *v) {
  kiln_value *r = chain_head(view_root(v));
  return r->def && r->def->kind == KILN_OP_FLOW_DISPATCH ? r : NULL;
}

/* The view a host loop (or a list op, `loop`) passes for tensor v: an
 * argument's view, an earlier host loop's result or list element, else
 * one made here with v's shape over a constant's rodata, an argument's buffer, a dispatch result's own
 * allocation (see own_slot) or an earlier loop result's buffer (views
 * of those have offset 0); NULL (error set) otherwise. */
static kiln_value *loop_view(pm *p, kiln_op *loop, kiln_value *v, kiln_error **err) {
  kiln_context *ctx = p->ctx;
  kiln_value *view = kiln_value_map_lookup(&p->text, v);
  if (view) return view;
  kiln_block *body = p->func->regions[0].first;
  if (!v->def && v->block == body && p->views[v->index]) return p->views[v->index];
  kiln_value *root = view_root(v), *buf = NULL, *rv = kiln_value_map_lookup(&p->text, root);
  const kiln_type *bt = hl_type(ctx, "buffer");
  const kiln_attr *cv = root->def && root->def->kind == KILN_OP_ARITH_CONSTANT ? kiln_op_get_attr(root->def, "value") : NULL;
  int64_t off = 0;
  if (!rv && !root->def && root->block == body) rv = p->views[root->index];
  if (cv && cv->kind == KILN_ATTR_DENSE) {
    buf = rodata(p, cv);
  } else if (rv) {
    buf = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &rv, 1, &bt, NULL), 0);
  } else if (dispatch_root(v)) {
    int s = get_slot(p, dispatch_root(v));
    if (s >= 0 && p->slots[s].buffer && !p->slots[s].off_v) buf = p->slots[s].buffer, off = p->slots[s].off;
  }
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  uint32_t no = 0;
  ops[no++] = buf;
  for (uint32_t d = 0; buf && d < v->type->rank && no <= KILN_MAX_LOOPS; d++)
    if (v->type->shape[d] == KILN_DYNAMIC && !(ops[no++] = dim_value(p, v, d))) buf = NULL;
  if (!buf) {
    *err = fail(p, loop, loop->kind == KILN_OP_SCF_FOR
                             ? "a host loop takes a value that is neither an argument, a constant, a dispatch "
                               "result nor an earlier host loop's result"
                             : "a list takes a value that is neither an argument, a constant, a dispatch result, "
                               "a list's element nor a host loop's result");
    return NULL;
  }
  view = view_create(p, ops, no, off, v->type);
  kiln_value_map_add(ctx, &p->text, v, view);
  return view;
}

/* A host loop's scan row ops (flow's fl_host_loop: the ONNX importer's
 * host_steps) over views, at p->b; operands xo already views or index
 * values. tensor.dim: hal.buffer_view.dim. tensor.empty: an allocation
 * of its own, uninitialized (the loop writes every row: its trip count
 * is the buffer's row count), viewed at its dims. tensor.insert_slice of
 * a row (rank r, the body's result: its own allocation, offset 0) into
 * row i of a buffer [n, E...] (allocated here, offset 0): checks the
 * row's dims against E, then copies its bytes at i * row bytes in a
 * command buffer of its own (O(row) per step, not the whole buffer). */
static kiln_error *loop_row_op(pm *p, kiln_op *x, kiln_value **xo, kiln_value **y) {
  kiln_context *ctx = p->ctx;
  const kiln_type *bt = hl_type(ctx, "buffer");
  if (x->kind == KILN_OP_TENSOR_DIM) {
    const kiln_type *t = kiln_op_operand(x, 0)->type;
    int64_t d;
    if (!const_index(kiln_op_operand(x, 1), &d) || d < 0 || d >= (int64_t)t->rank)
      return fail(p, x, "a host loop takes a dim that is not a constant in range");
    *y = t->shape[d] != KILN_DYNAMIC ? index_const(p, t->shape[d]) : view_dim(p, xo[0], (uint32_t)d);
    return NULL;
  }
  const kiln_type *t = x->results[0].type;
  int64_t es = (int64_t)kiln_dense_elem_size(t->elem);
  if (!es) return fail(p, x, "a host loop's scan buffer has no fixed element size");
  if (x->kind == KILN_OP_TENSOR_EMPTY) {
    sym s = {es, 0, {0}};
    kiln_value *len = index_const(p, es), *ops[1 + KILN_MAX_LOOPS];
    uint32_t no = 0, k = 0;
    for (uint32_t d = 0; d < t->rank; d++) {
      if (t->shape[d] != KILN_DYNAMIC) {
        len = mul(p, len, index_const(p, t->shape[d]));
        continue;
      }
      if (k >= x->num_operands || no >= KILN_MAX_LOOPS) return fail(p, x, "tensor.empty lacks a size");
      ops[1 + no++] = xo[k++];
    }
    /* a size read from data must not wrap the byte count */
    kiln_named_attr eb = hl_named(ctx, "element_bytes", hl_i64(ctx, es));
    kiln_build(&p->b, KILN_OP_HAL_CHECK_SHAPE, no, ops + 1, 0, NULL, kiln_attr_dict(ctx, 1, &eb))->loc = x->loc;
    for (uint32_t i = 0; i < no; i++) len = mul(p, len, ops[1 + i]);
    ops[0] = allocate(p, &s, len, false, true);
    *y = view_create(p, ops, 1 + no, 0, t);
    return NULL;
  }
  /* tensor.insert_slice %row into %buf[%i, 0...][1, E...][1...] */
  const kiln_type *rt = kiln_op_operand(x, 0)->type;
  const kiln_attr *so = kiln_op_get_attr(x, "static_offsets"), *ss = kiln_op_get_attr(x, "static_sizes"),
                  *st = kiln_op_get_attr(x, "static_strides");
  uint32_t r = t->rank;
  if (!so || !ss || !st || so->kind != KILN_ATTR_DENSE_ARRAY || ss->kind != KILN_ATTR_DENSE_ARRAY ||
      st->kind != KILN_ATTR_DENSE_ARRAY || so->count != r || ss->count != r || st->count != r || rt->rank + 1 != r)
    return fail(p, x, "a host loop writes something other than a row into its scan buffer");
  const int64_t *off = so->data, *size = ss->data, *str = st->data;
  uint32_t k = 2; /* the dynamic entries: offsets, sizes, strides */
  kiln_value *row = NULL;
  if (off[0] == KILN_DYNAMIC) row = xo[k++];
  else row = index_const(p, off[0]);
  bool ok = size[0] == 1;
  for (uint32_t d = 1; d < r; d++) ok = ok && off[d] == 0;
  for (uint32_t d = 0; d < r; d++) ok = ok && str[d] == 1;
  if (!ok) return fail(p, x, "a host loop writes something other than a row into its scan buffer");
  /* the row's dims, the slice's sizes and the buffer's dims past the
   * first must agree: checked where one is a run-time value (every row
   * must have the first one's dims, the buffer's), refused where static
   * ones differ (a part of a row would be copied at a whole row's
   * stride) */
  kiln_value *len = index_const(p, es);
  for (uint32_t d = 1; d < r; d++) {
    kiln_value *want = size[d] == KILN_DYNAMIC ? (k < x->num_operands ? xo[k++] : NULL) : index_const(p, size[d]);
    if (!want) return fail(p, x, "tensor.insert_slice lacks a size");
    int64_t sd[3] = {rt->shape[d - 1], size[d], t->shape[d]};
    kiln_value *v[3] = {sd[0] == KILN_DYNAMIC ? view_dim(p, xo[0], d - 1) : index_const(p, sd[0]), want,
                        sd[2] == KILN_DYNAMIC ? view_dim(p, xo[1], d) : index_const(p, sd[2])};
    for (uint32_t j = 0; j < 2; j++) {
      if (sd[j] != KILN_DYNAMIC && sd[2] != KILN_DYNAMIC) {
        if (sd[j] != sd[2]) return fail(p, x, "a host loop's scan row does not fit its buffer");
        continue;
      }
      kiln_value *ops[2] = {v[j], v[2]};
      kiln_build(&p->b, KILN_OP_HAL_CHECK_DIM_EQ, 2, ops, 0, NULL, NULL)->loc = x->loc;
    }
    len = mul(p, len, v[2]);
  }
  kiln_value *src = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &xo[0], 1, &bt, NULL), 0);
  kiln_value *dst = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &xo[1], 1, &bt, NULL), 0);
  const kiln_type *cbt = hl_type(ctx, "command_buffer");
  kiln_value *cb = kiln_op_result(kiln_build(&p->b, KILN_OP_HAL_COMMAND_BUFFER_CREATE, 0, NULL, 1, &cbt, NULL), 0);
  kiln_value *cops[6] = {cb, src, index_const(p, 0), dst, mul(p, row, len), len};
  kiln_build(&p->b, KILN_OP_HAL_COMMAND_BUFFER_COPY, 6, cops, 0, NULL, NULL)->loc = x->loc;
  kiln_build(&p->b, KILN_OP_HAL_COMMAND_BUFFER_EXECUTE, 1, &cb, 0, NULL, NULL);
  kiln_build(&p->b, KILN_OP_HAL_DEVICE_WAIT, 0, NULL, 0, NULL, NULL);
  *y = xo[1];
  return NULL;
}

static const kiln_type *loop_type(pm *p, const kiln_type *t) {
  return t->kind == KILN_TYPE_TENSOR ? hl_type(p->ctx, "buffer_view") : kiln_type_is_seq(t) ? hl_type(p->ctx, "list") : t;
}

/* A host loop at the builder over views: tensors cross each call as
 * !hal.buffer_view (the callee, planned as a function of its own, runs
 * a command buffer and a wait per step and allocates what it returns),
 * index values as they are. Its tensor results are views (p->text). */
static kiln_error *host_loop(pm *p, kiln_op *o) {
  kiln_context *ctx = p->ctx;
  kiln_error *err = NULL;
  const uint32_t n = o->num_results;
  kiln_value **ops = kiln_alloc(ctx, (o->num_operands + 1) * sizeof *ops);
  const kiln_type **rt = kiln_alloc(ctx, (n + 1) * sizeof *rt);
  kiln_value *in;
  for (uint32_t a = 0; (in = loop_input(o, a)); a++) /* every view before the loop (cached in p->text) */
    if (in->type->kind == KILN_TYPE_TENSOR && !loop_view(p, o, in, &err)) return err;
  for (uint32_t i = 0; i < o->num_operands; i++) {
    kiln_value *v = kiln_op_operand(o, i);
    if (!(ops[i] = host_operand(p, o, v, &err))) return err;
  }
  for (uint32_t i = 0; i < n; i++) rt[i] = loop_type(p, o->results[i].type);
  kiln_op *nl = kiln_build(&p->b, KILN_OP_SCF_FOR, o->num_operands, ops, n, rt, NULL);
  nl->loc = o->loc;
  kiln_block *ob = o->regions[0].first, *nb = kiln_op_entry_block(ctx, nl, 0);
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < ob->num_args; i++)
    kiln_value_map_add(ctx, &map, ob->args[i],
                       kiln_block_add_arg(ctx, nb, loop_type(p, ob->args[i]->type), ob->args[i]->loc));
  kiln_builder bb = kiln_builder_at_end(ctx, nb);
  for (kiln_op *x = ob->first; x; x = x->next) {
    kiln_value **xo = kiln_alloc(ctx, (x->num_operands + 1) * sizeof *xo);
    for (uint32_t i = 0; i < x->num_operands; i++) {
      kiln_value *v = kiln_op_operand(x, i), *m = kiln_value_map_lookup(&map, v);
      if (!(xo[i] = m ? m : host_operand(p, o, v, &err))) return err;
    }
    bb.loc = x->loc;
    if (loop_row_kind(x)) {
      kiln_builder outer = p->b;
      kiln_value *y = NULL;
      p->b = bb;
      err = loop_row_op(p, x, xo, &y);
      bb = p->b, p->b = outer;
      if (err) return err;
      kiln_value_map_add(ctx, &map, kiln_op_result(x, 0), y);
      continue;
    }
    const kiln_type **xt = kiln_alloc(ctx, (x->num_results + 1) * sizeof *xt);
    for (uint32_t r = 0; r < x->num_results; r++) xt[r] = loop_type(p, x->results[r].type);
    kiln_op *y = kiln_build(&bb, x->kind, x->num_operands, xo, x->num_results, xt, x->attrs);
    for (uint32_t r = 0; r < x->num_results; r++)
      kiln_value_map_add(ctx, &map, kiln_op_result(x, r), kiln_op_result(y, r));
  }
  for (uint32_t i = 0; i < n; i++) {
    kiln_value *r = kiln_op_result(o, i), *view = kiln_op_result(nl, i);
    if (kiln_type_is_seq(r->type)) { /* a list: returned, carried on or read by list ops */
      kiln_value_map_add(ctx, &p->text, r, view);
      continue;
    }
    if (r->type->kind != KILN_TYPE_TENSOR) {
      kiln_value_replace_all_uses(r, view);
      continue;
    }
    kiln_value_map_add(ctx, &p->text, r, view);
    bool read = false;
    for (kiln_use *u = r->uses; u; u = u->next)
      read |= u->owner->kind != KILN_OP_FUNC_RETURN && !host_loop_op(u->owner) &&
              !(u->owner->parent && host_loop_op(kiln_block_parent_op(u->owner->parent)));
    if (!read) continue;
    /* kernels read it: a slot over the view's buffer (offset 0: the body
     * returns its own allocations, or after no step the view it took),
     * its byte count from the view's dims */
    kiln_error *e = slot_over_view(p, o, r, view, "a host loop's result that kernels read has no fixed element size");
    if (e) return e;
  }
  return NULL;
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
  bool loops = false;
  for (kiln_op *o = body->first; o; o = o->next) {
    nops++;
    if (host_index_op(o) || flow_is_list_op(o)) continue;
    switch (o->kind) {
    case KILN_OP_FLOW_DISPATCH:
    case KILN_OP_FLOW_TENSOR_RESHAPE:
    case KILN_OP_ARITH_CONSTANT:
    case KILN_OP_FLOW_CHECK_DIM_EQ:
    case KILN_OP_FLOW_TEXT:
    case KILN_OP_FLOW_CHECK_SHAPE:
    case KILN_OP_FLOW_CHECK_RANGE:
    case KILN_OP_FUNC_RETURN: break;
    case KILN_OP_SCF_FOR:
      if (!host_loop_op(o))
        return fail(&p, o, "a host scf.for may hold only calls, index arithmetic, scan row writes and its yield");
      loops = true;
      break;
    case KILN_OP_TENSOR_EXTRACT:
    case KILN_OP_ARITH_INDEX_CAST: {
      int64_t flat;
      if (!host_load(o, &flat) && !host_load_cast(o, &flat))
        return fail(&p, o, "host code may only read constant elements of i32/i64 arguments");
      break;
    }
    case KILN_OP_TENSOR_DIM: {
      kiln_value *src = kiln_op_operand(o, 0);
      int64_t d;
      if ((src->def ? !(host_loop_op(src->def) || src->def->kind == KILN_OP_FLOW_LIST_GET) || src->def->parent != body
                    : src->block != body) ||
          !const_index(kiln_op_operand(o, 1), &d))
        return fail(&p, o, "host code may only take constant dims of function arguments, host loops' results and "
                           "lists' elements");
      break;
    }
    default:
      return fail(&p, o, "host functions may hold only flow.dispatch, flow.tensor.reshape, arith.constant, "
                         "dimension arithmetic, flow.check.dim_eq and func.return (run the flow stage first)");
    }
  }
  for (uint32_t i = 0; i < fty->num_inputs; i++)
    if (fty->types[i]->kind != KILN_TYPE_INDEX && !kiln_type_is_seq(fty->types[i]) &&
        (fty->types[i]->kind != KILN_TYPE_TENSOR ||
        (!kiln_dense_elem_size(fty->types[i]->elem) && !is_text(fty->types[i]->elem))))
      return fail(&p, func, "arguments must be ranked tensors, lists or index values (a host loop's step)");
  for (uint32_t i = 0; i < fty->num_results; i++) {
    const kiln_type *t = fty->types[fty->num_inputs + i]; /* results follow the inputs */
    if (!kiln_type_is_seq(t) && (t->kind != KILN_TYPE_TENSOR || (!kiln_dense_elem_size(t->elem) && !is_text(t->elem))))
      return fail(&p, func, "results must be ranked tensors or lists");
  }
  kiln_op **orig = kiln_alloc(ctx, (nops + 1) * sizeof *orig);
  nops = 0;
  for (kiln_op *o = body->first; o; o = o->next) orig[nops++] = o;
  bool *keep = kiln_alloc(ctx, (nops + 1) * sizeof *keep);

  p.b = kiln_builder_before(body->first);
  p.b.loc = func->loc;
  const kiln_type *bvt = hl_type(ctx, "buffer_view"), *bt = hl_type(ctx, "buffer");
  /* inputs */
  uint32_t nin = body->num_args;
  p.views = kiln_alloc(ctx, (nin + 1) * sizeof *p.views);
  p.arg_dims = kiln_alloc(ctx, (nin + 1) * KILN_MAX_LOOPS * sizeof *p.arg_dims);
  memset(p.arg_dims, 0, (nin + 1) * KILN_MAX_LOOPS * sizeof *p.arg_dims);
  kiln_value **in_bufs = kiln_alloc(ctx, (nin + 1) * sizeof *in_bufs);
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *arg = body->args[i];
    if (arg->type->kind == KILN_TYPE_INDEX) { /* a scalar, passed as it is */
      kiln_value_replace_all_uses(arg, kiln_block_add_arg(ctx, body, arg->type, arg->loc));
      continue;
    }
    if (kiln_type_is_seq(arg->type)) { /* a list (its elements checked by the runtime at the call) */
      kiln_value_map_add(ctx, &p.text, arg, kiln_block_add_arg(ctx, body, hl_type(ctx, "list"), arg->loc));
      continue;
    }
    kiln_value *view = kiln_block_add_arg(ctx, body, bvt, arg->loc);
    p.views[i] = view;
    kiln_named_attr a[3] = {hl_named(ctx, "input", hl_i32(ctx, i)),
                            hl_named(ctx, "element_type", kiln_attr_type(ctx, arg->type->elem)),
                            hl_named(ctx, "shape", shape_attr(ctx, arg->type))};
    kiln_build(&p.b, KILN_OP_HAL_BUFFER_VIEW_ASSERT, 1, &view, 0, NULL, kiln_attr_dict(ctx, 3, a));
    in_bufs[i] = kiln_op_result(kiln_build(&p.b, KILN_OP_HAL_BUFFER_VIEW_BUFFER, 1, &view, 1, &bt, NULL), 0);
  }
  /* phases: a host load of a dispatch result can only run once the
   * commands computing it ran, so everything that depends on one (index
   * arithmetic, checks, allocations sized by it, dispatches using it) goes
   * to a later command buffer, after a wait. Phase 0 reads only
   * arguments; a load of data computed in phase k is in phase k + 1. */
  uint32_t *op_phase = kiln_alloc(ctx, (nops + 1) * sizeof *op_phase);
  uint32_t nphases = 1;
  for (uint32_t i = 0; i < nops; i++) {
    kiln_op *o = orig[i];
    uint32_t ph = 0;
    int64_t flat;
    if (host_load(o, &flat) && load_arg(kiln_op_operand(o, 0))->def) {
      ph = value_phase(&p, kiln_op_operand(o, 0)) + 1;
    } else if (host_loop_op(o) || flow_is_list_op(o)) { /* after the commands computing what it takes */
      kiln_value *v;
      for (uint32_t a = 0; (v = loop_input(o, a)); a++) {
        uint32_t x = value_phase(&p, v) + (v->type->kind == KILN_TYPE_TENSOR && dispatch_root(v) ? 1 : 0);
        if (x > ph) ph = x;
      }
    } else {
      for (uint32_t a = 0; a < o->num_operands; a++) {
        uint32_t x = value_phase(&p, kiln_op_operand(o, a));
        if (x > ph) ph = x;
      }
    }
    op_phase[i] = ph;
    if (ph + 1 > nphases) nphases = ph + 1;
    for (uint32_t r = 0; r < o->num_results; r++) set_phase(&p, kiln_op_result(o, r), ph);
  }
  /* dimension arithmetic and checks of phase 0, in program order, before
   * anything reads them */
  for (uint32_t i = 0; i < nops; i++)
    if (!op_phase[i]) {
      kiln_error *e = host_op(&p, orig[i], &keep[i]);
      if (e) return e;
    }
  for (uint32_t i = 0; i < nin; i++) {
    sym s;
    if (!p.views[i]) continue; /* an index argument */
    kiln_value_map_add(ctx, &p.text, body->args[i], p.views[i]);
    if (is_text(body->args[i]->type->elem)) continue; /* text ops read its view */
    if (!byte_sym(&p, body->args[i], &s)) return fail(&p, func, "an input's size cannot be computed");
    uint32_t k = new_slot(&p, in_bufs[i], s);
    p.slots[k].len_v = materialize(&p, &s);
    set_slot(&p, body->args[i], k);
  }
  /* results: the dispatch results behind returned values */
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    kiln_value *r = view_root(kiln_op_operand(ret, i));
    if (kiln_type_is_seq(r->type) || (r->def && r->def->kind == KILN_OP_FLOW_LIST_GET)) continue; /* the hal value */
    if (r->def && (r->def->kind == KILN_OP_FLOW_TEXT || r->def->kind == KILN_OP_SCF_FOR)) {
      if (r != kiln_op_operand(ret, i))
        return fail(&p, ret, "a text op's or host loop's result is returned through a reshape");
      continue; /* returned as the view the op makes */
    }
    if (!r->def || r->def->kind != KILN_OP_FLOW_DISPATCH)
      return fail(&p, ret, "a result is not computed by a dispatch (run copy-aliased-results)");
    r = chain_head(r); /* a tied chain's buffer is its head's */
    if (!r->def || r->def->kind != KILN_OP_FLOW_DISPATCH)
      return fail(&p, ret, "a tied result does not write into a dispatch result");
    if (get_slot(&p, r) >= 0) return fail(&p, ret, "two results share one buffer (run copy-aliased-results)");
    sym s;
    if (!byte_sym(&p, r, &s)) return fail(&p, r->def, "a result's size cannot be computed");
    uint32_t k = new_slot(&p, NULL, s);
    p.slots[k].zero = !result_written(&p, r->def, r->index);
    set_slot(&p, r, k);
  }
  /* dispatch results a host loop takes: allocations of their own (not
   * arena slices), since its steps run after their phase's wait, and
   * after no step its result is the view it took */
  uint32_t nres_all = 0, nown = 0; /* each a distinct dispatch result */
  for (uint32_t i = 0; i < nops; i++) nres_all += orig[i]->num_results;
  uint32_t *own = kiln_alloc(ctx, (nres_all + 1) * sizeof *own);
  for (uint32_t i = 0; i < nops; i++) {
    kiln_value *v;
    const bool list = orig[i]->kind == KILN_OP_FLOW_LIST_INSERT; /* a list outlives the arena */
    for (uint32_t a = 0; (list || host_loop_op(orig[i])) &&
                         (v = list ? (a ? NULL : kiln_op_operand(orig[i], 1)) : loop_input(orig[i], a));
         a++) {
      kiln_value *r = v->type->kind == KILN_TYPE_TENSOR ? dispatch_root(v) : NULL;
      if (!r || get_slot(&p, r) >= 0) continue; /* none, a function result's or already taken */
      sym s;
      if (!byte_sym(&p, r, &s)) return fail(&p, r->def, "a dispatch result's size cannot be computed");
      uint32_t k = new_slot(&p, NULL, s);
      p.slots[k].zero = !result_written(&p, r->def, r->index);
      set_slot(&p, r, k);
      own[nown++] = k;
    }
  }
  /* the order commands run in: by phase, program order within one */
  uint32_t *order = kiln_alloc(ctx, (nops + 1) * sizeof *order);
  int64_t *phase_end = kiln_alloc(ctx, (nphases + 1) * sizeof *phase_end); /* its last position */
  uint32_t nord = 0;
  for (uint32_t k = 0; k < nphases; k++) {
    for (uint32_t i = 0; i < nops; i++)
      if (op_phase[i] == k && orig[i]->kind == KILN_OP_FLOW_DISPATCH) order[nord++] = i;
    phase_end[k] = (int64_t)nord - 1;
  }
  /* intermediates: lifetimes over dispatch positions */
  uint32_t nvals = 0;
  for (uint32_t i = 0; i < nops; i++) nvals += orig[i]->num_results;
  kiln_hal_interval *iv = kiln_alloc(ctx, (nvals + 1) * sizeof *iv);
  uint32_t *iv_slot = kiln_alloc(ctx, (nvals + 1) * sizeof *iv_slot);
  uint32_t niv = 0;
  kiln_value_map pos_of = {0}; /* a dispatch's first result -> its position + 1 */
  for (uint32_t pos = 0; pos < nord; pos++)
    if (orig[order[pos]]->num_results)
      kiln_value_map_add(ctx, &pos_of, &orig[order[pos]]->results[0], (kiln_value *)(uintptr_t)(pos + 1));
  for (uint32_t pos = 0; pos < nord; pos++) {
    kiln_op *o = orig[order[pos]];
    for (uint32_t a = 0; a < o->num_operands; a++) {
      int s = get_slot(&p, view_root(kiln_op_operand(o, a)));
      if (s >= 0 && p.slots[s].arena >= 0 && iv[p.slots[s].arena].last < (int64_t)pos) iv[p.slots[s].arena].last = pos;
    }
    for (uint32_t r = 0; r < o->num_results; r++) {
      kiln_value *v = kiln_op_result(o, r);
      if (get_slot(&p, v) >= 0) continue; /* a function result */
      kiln_value *t = tied_operand(v);
      if (t) {
        /* it writes its windows into the operand's buffer: the chain's
         * slot, written in full when every member writes its window
         * (place-concats' windows cover the whole) */
        int k = get_slot(&p, view_root(t));
        kiln_value *head = chain_head(v);
        sym s;
        if (k < 0 || !head->def || !byte_sym(&p, v, &s) || s.nf || s.coef != p.slots[k].len.coef)
          return fail(&p, o, "a tied result does not fit its operand's buffer");
        if (!p.slots[k].chain) {
          p.slots[k].chain = true;
          p.slots[k].zero = !result_written(&p, head->def, head->index) && !result_window(&p, head->def, head->index);
        }
        p.slots[k].zero |= !result_written(&p, o, r) && !result_window(&p, o, r);
        set_slot(&p, v, (uint32_t)k);
        continue;
      }
      sym s;
      if (!byte_sym(&p, v, &s)) return fail(&p, o, "a dispatch result's size cannot be computed");
      /* in place: it takes the bytes of an operand that dies here, when
       * its kernel reads each of them only to overwrite it */
      int a = result_written(&p, o, r) ? inplace_operand(&p, o, r) : -1;
      if (a >= 0) {
        kiln_value *x = view_root(kiln_op_operand(o, (uint32_t)a));
        int k = get_slot(&p, x);
        uint32_t here = 0;
        if (k >= 0 && p.slots[k].arena >= 0 && !p.slots[k].zero && !p.slots[k].chain &&
            p.slots[k].len.coef == s.coef && same_monomial(&p.slots[k].len, &s) &&
            !read_after(x, &pos_of, pos, &here) && here == 1) {
          set_slot(&p, v, (uint32_t)k);
          continue;
        }
      }
      uint32_t k = new_slot(&p, NULL, s);
      set_slot(&p, v, k);
      p.slots[k].zero = !result_written(&p, o, r);
      iv[niv].first = iv[niv].last = pos;
      iv[niv].size = (uint64_t)s.coef;
      iv_slot[niv] = k;
      p.slots[k].arena = (int)niv++;
    }
  }
  /* data the host reads stays until the wait that ends its phase (a later
   * command of that phase must not reuse its bytes) */
  for (uint32_t i = 0; i < nops; i++) {
    int64_t flat;
    if (!host_load(orig[i], &flat) || !load_arg(kiln_op_operand(orig[i], 0))->def) continue;
    kiln_value *t = kiln_op_operand(orig[i], 0);
    int s = get_slot(&p, view_root(t));
    int64_t end = phase_end[value_phase(&p, t)];
    if (s >= 0 && p.slots[s].arena >= 0 && iv[p.slots[s].arena].last < end) iv[p.slots[s].arena].last = end;
  }
  /* arenas: one per monomial, packed over their c */
  bool *done = kiln_alloc(ctx, (niv + 1) * sizeof *done);
  kiln_hal_interval *grp = kiln_alloc(ctx, (niv + 1) * sizeof *grp);
  uint32_t *grp_iv = kiln_alloc(ctx, (niv + 1) * sizeof *grp_iv);
  uint32_t *grp_first = kiln_alloc(ctx, (niv + 2) * sizeof *grp_first); /* group g: grp[grp_first[g]..] */
  uint64_t *grp_size = kiln_alloc(ctx, (niv + 1) * sizeof *grp_size);
  uint32_t ngrp = 0, ngi = 0;
  for (uint32_t i = 0; i < niv; i++) {
    if (done[i]) continue;
    const sym *key = &p.slots[iv_slot[i]].len;
    kiln_hal_interval *g0 = grp + ngi;
    grp_first[ngrp] = ngi;
    const bool zero = p.slots[iv_slot[i]].zero;
    for (uint32_t j = i; j < niv; j++)
      if (!done[j] && same_monomial(&p.slots[iv_slot[j]].len, key) && p.slots[iv_slot[j]].zero == zero) {
        done[j] = true;
        grp[ngi] = iv[j];
        /* a value its dispatch may leave partly unwritten must find
         * zeros there: it shares no bytes, in a zeroed arena */
        if (zero) grp[ngi].first = 0, grp[ngi].last = INT64_MAX;
        grp_iv[ngi++] = j;
      }
    uint64_t arena_size = kiln_hal_pack_arena(g0, ngi - grp_first[ngrp], HL_ALIGNMENT);
    if (arena_size == UINT64_MAX || arena_size > INT64_MAX) return fail(&p, func, "out of memory");
    grp_size[ngrp++] = arena_size;
  }
  grp_first[ngrp] = ngi;
  /* text ops that read no dispatch result run before any command */
  bool *late = kiln_alloc(ctx, (nops + 1) * sizeof *late);
  kiln_value_map late_vals = {0}; /* results of late text ops */
  for (uint32_t i = 0; i < nops; i++) {
    kiln_op *o = orig[i];
    if (o->kind != KILN_OP_FLOW_TEXT) continue;
    for (uint32_t a = 0; a < 2; a++) {
      kiln_value *v = view_root(kiln_op_operand(o, a));
      if ((v->def && v->def->kind == KILN_OP_FLOW_DISPATCH) || kiln_value_map_lookup(&late_vals, v))
        late[i] = true;
    }
    if (late[i]) kiln_value_map_add(ctx, &late_vals, kiln_op_result(o, 0), kiln_op_result(o, 0));
  }
  const kiln_type *cbt = hl_type(ctx, "command_buffer");
  mixed *lists = kiln_alloc(ctx, 4 * sizeof *lists);
  for (uint32_t k = 0; k < nphases; k++) {
    /* after the wait: the loads of data phase k - 1 computed, then what
     * depends on them */
    for (uint32_t i = 0; k && i < nops; i++)
      if (op_phase[i] == k) {
        kiln_error *e = host_op(&p, orig[i], &keep[i]);
        if (e) return e;
      }
    /* allocations of this phase: results, then the arenas */
    for (uint32_t i = 0; i < ret->num_operands; i++) {
      int r = get_slot(&p, view_root(kiln_op_operand(ret, i)));
      if (r < 0 || sym_phase(&p, &p.slots[r].len) != k) continue; /* a text op's, or later */
      slot *s = &p.slots[r];
      check_size(&p, &s->len, s->len.coef);
      s->len_v = materialize(&p, &s->len);
      s->buffer = allocate(&p, &s->len, s->len_v, false, !s->zero);
    }
    for (uint32_t i = 0; i < nown; i++) {
      slot *s = &p.slots[own[i]];
      if (sym_phase(&p, &s->len) != k) continue;
      check_size(&p, &s->len, s->len.coef);
      s->len_v = materialize(&p, &s->len);
      s->buffer = allocate(&p, &s->len, s->len_v, false, !s->zero);
    }
    for (uint32_t gi = 0; gi < ngrp; gi++) {
      const sym *key = &p.slots[iv_slot[grp_iv[grp_first[gi]]]].len;
      const bool zero = p.slots[iv_slot[grp_iv[grp_first[gi]]]].zero;
      if (sym_phase(&p, key) != k) continue;
      uint64_t arena_size = grp_size[gi];
      sym unit = *key;
      unit.coef = 1;
      check_size(&p, &unit, (int64_t)arena_size);
      kiln_value *m = materialize(&p, &unit);
      sym total = unit;
      total.coef = (int64_t)arena_size;
      kiln_value *arena = allocate(&p, &total, m ? mul(&p, m, index_const(&p, (int64_t)arena_size)) : NULL, true, !zero);
      for (uint32_t g = grp_first[gi]; g < grp_first[gi + 1]; g++) {
        slot *s = &p.slots[iv_slot[grp_iv[g]]];
        s->buffer = arena;
        s->off = (int64_t)grp[g].offset;
        if (m) {
          s->off_v = grp[g].offset ? mul(&p, m, index_const(&p, s->off)) : NULL;
          s->len_v = mul(&p, m, index_const(&p, s->len.coef));
        }
      }
    }
    if (!k)
      for (uint32_t i = 0; i < nops; i++)
        if (orig[i]->kind == KILN_OP_FLOW_TEXT && !late[i]) {
          kiln_error *e = text_op(&p, orig[i]);
          if (e) return e;
        }
    if (k && phase_end[k] == phase_end[k - 1]) continue; /* no command in this phase */
    if (!k && phase_end[0] < 0 && loops) continue; /* host loops only: their steps run the commands */
    kiln_value *cb = kiln_op_result(kiln_build(&p.b, KILN_OP_HAL_COMMAND_BUFFER_CREATE, 0, NULL, 1, &cbt, NULL), 0);
    /* commands, in program order */
    for (uint32_t i = 0; i < nops; i++) {
      kiln_op *o = orig[i];
      if (o->kind == KILN_OP_ARITH_CONSTANT && !k) {
        const kiln_attr *v = kiln_op_get_attr(o, "value");
        if (v && v->kind == KILN_ATTR_DENSE && kiln_value_has_uses(&o->results[0])) {
          sym s = {hl_byte_size(v->type), 0, {0}};
          set_slot(&p, kiln_op_result(o, 0), new_slot(&p, rodata(&p, v), s));
        }
        continue;
      }
      if (o->kind != KILN_OP_FLOW_DISPATCH || op_phase[i] != k) continue;
      kiln_error *e = dispatch(&p, o, cb, lists);
      if (e) return e;
    }
    kiln_build(&p.b, KILN_OP_HAL_COMMAND_BUFFER_EXECUTE, 1, &cb, 0, NULL, NULL);
    kiln_build(&p.b, KILN_OP_HAL_DEVICE_WAIT, 0, NULL, 0, NULL, NULL);
  }
  for (uint32_t i = 0; i < nops; i++)
    if (late[i]) {
      kiln_error *e = text_op(&p, orig[i]);
      if (e) return e;
      for (uint32_t r = 0; r < orig[i]->num_results; r++)
        for (kiln_use *u = orig[i]->results[r].uses; u; u = u->next)
          if (u->owner->kind != KILN_OP_FLOW_TEXT && u->owner->kind != KILN_OP_FUNC_RETURN)
            return fail(&p, u->owner, "reads the result of a text op that runs after device work "
                                      "(text between dispatches is not supported)");
    }
  kiln_value **views = kiln_alloc(ctx, (ret->num_operands + 1) * sizeof *views);
  for (uint32_t i = 0; i < ret->num_operands; i++) {
    kiln_value *v = kiln_op_operand(ret, i);
    if (kiln_type_is_seq(v->type) || (v->def && (v->def->kind == KILN_OP_FLOW_TEXT || v->def->kind == KILN_OP_SCF_FOR ||
                                                 v->def->kind == KILN_OP_FLOW_LIST_GET))) {
      views[i] = kiln_value_map_lookup(&p.text, v);
      continue;
    }
    int s = get_slot(&p, view_root(v));
    kiln_value *ops[1 + KILN_MAX_LOOPS];
    uint32_t no = 0;
    ops[no++] = p.slots[s].buffer;
    for (uint32_t d = 0; d < v->type->rank && no <= KILN_MAX_LOOPS; d++)
      if (v->type->shape[d] == KILN_DYNAMIC && !(ops[no++] = dim_value(&p, v, d)))
        return fail(&p, ret, "a result's dims cannot be computed");
    views[i] = view_create(&p, ops, no, p.slots[s].off, v->type);
  }
  kiln_build(&p.b, KILN_OP_FUNC_RETURN, ret->num_operands, views, 0, NULL, NULL);
  /* drop the tensor program */
  for (uint32_t i = nops; i-- > 0;)
    if (!keep[i]) kiln_op_erase(orig[i]);
  for (uint32_t i = 0; i < nin; i++) kiln_block_erase_arg(body, 0);
  const kiln_type **ins = kiln_alloc(ctx, (nin + 1) * sizeof *ins);
  const kiln_type **outs = kiln_alloc(ctx, (fty->num_results + 1) * sizeof *outs);
  const kiln_type *lt = hl_type(ctx, "list");
  for (uint32_t i = 0; i < nin; i++)
    ins[i] = fty->types[i]->kind == KILN_TYPE_INDEX ? fty->types[i] : kiln_type_is_seq(fty->types[i]) ? lt : bvt;
  for (uint32_t i = 0; i < fty->num_results; i++) outs[i] = kiln_type_is_seq(fty->types[fty->num_inputs + i]) ? lt : bvt;
  kiln_op_set_attr(func, "kiln.signature", kiln_attr_type(ctx, fty));
  kiln_op_set_attr(func, "function_type",
                   kiln_attr_type(ctx, kiln_type_function(ctx, nin, ins, fty->num_results, outs)));
  return NULL;
}

static kiln_error *plan_func(kiln_context *ctx, kiln_op *func, kiln_block *body, void *module) {
  (void)body;
  if (kiln_op_get_attr(func, "kiln.signature")) return NULL; /* already planned */
  return plan(ctx, module, func);
}

kiln_error *kiln_hal_pass_plan_memory(kiln_op *module, void *user) {
  (void)user;
  return hl_each_func(module, "plan-memory", plan_func, module);
}
