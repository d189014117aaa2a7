/* Which result bindings a kernel writes in full (hl_written_mask), the
 * fact behind uninitialized allocations (plan-memory).
 *
 * Takes a kernel in flow's tensor form (before bufferize-kernels).
 * Guarantees: bit i is set only when binding i is stored whole, at the
 * kernel's top level, from a value that depends on no undefined contents:
 * neither tensor.empty's elements (an init an op reads, an input, a
 * destination an insert only partly covers) nor a load of a binding the
 * kernel may write. Whatever buffers bufferize-kernels then picks, every
 * byte of such a binding is written from defined values, so what its
 * buffer held before the dispatch cannot reach any result. Ops this file
 * does not know are taken to read every tensor they use. */
#include "hl_internal.h"

#include <string.h>

typedef struct wr {
  kiln_context *ctx;
  kiln_value_map undef; /* tensors that may hold undefined elements (grows only) */
} wr;

static bool undef(const wr *w, kiln_value *v) {
  return v->type->kind == KILN_TYPE_TENSOR && kiln_value_map_lookup(&w->undef, v);
}

static void mark(wr *w, kiln_value *v) {
  if (v->type->kind == KILN_TYPE_TENSOR && !kiln_value_map_lookup(&w->undef, v))
    kiln_value_map_add(w->ctx, &w->undef, v, v);
}

typedef struct capture {
  const wr *w;
  kiln_op *root;
  bool bad;
} capture;

static kiln_walk_result captured_one(kiln_op *o, void *user) {
  capture *c = user;
  for (uint32_t i = 0; i < o->num_operands && !c->bad; i++) {
    kiln_value *v = kiln_op_operand(o, i);
    kiln_op *owner = kiln_value_owner_op(v);
    if (owner != c->root && !kiln_op_is_inside(owner, c->root)) c->bad = undef(c->w, v);
  }
  return c->bad ? KILN_WALK_INTERRUPT : KILN_WALK_ADVANCE;
}

/* Does a region of op read an undefined tensor from outside (a linalg
 * body's tensor.extract)? */
static bool captures_undef(const wr *w, kiln_op *op) {
  capture c = {w, op, false};
  for (uint32_t r = 0; r < op->num_regions && !c.bad; r++)
    for (kiln_block *b = op->regions[r].first; b && !c.bad; b = b->next)
      for (kiln_op *o = b->first; o && !c.bad; o = o->next) kiln_walk_pre(o, captured_one, &c);
  return c.bad;
}

/* A !flow.dispatch.tensor<readonly:...> argument: an input the kernel
 * cannot write, so loading it gives defined data. */
static bool readonly_binding(kiln_value *arg) {
  const kiln_type *t = arg->type;
  return t->kind == KILN_TYPE_OPAQUE && !strcmp(t->dialect, "flow") &&
         !strncmp(t->body, "dispatch.tensor<readonly:", 25);
}

static void visit_block(wr *w, kiln_block *b);

/* A structured op: an input counts when the body reads it (named ops read
 * all); output k's init counts when the op reads it or may leave elements
 * unwritten (a reduction, an output map missing a loop: zero trips). */
static void visit_linalg(wr *w, kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op);
  const kiln_affine_map **maps = kiln_alloc(w->ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS] = {false};
  int loops = kiln_linalg_iteration(op, maps, red);
  bool bad = captures_undef(w, op);
  kiln_block *body = op->kind == KILN_OP_LINALG_GENERIC ? op->regions[0].first : NULL;
  for (uint32_t i = 0; i < nin && i < op->num_operands; i++)
    if (undef(w, kiln_op_operand(op, i)) && (!body || i >= body->num_args || kiln_value_has_uses(body->args[i])))
      bad = true;
  bool any_red = false;
  for (int l = 0; l < loops && l < KILN_MAX_LOOPS; l++) any_red |= red[l];
  for (uint32_t i = nin, k = 0; i < op->num_operands && k < op->num_results; i++) {
    kiln_value *init = kiln_op_operand(op, i);
    if (init->type->kind != KILN_TYPE_TENSOR) continue;
    bool covers = loops >= 0 ? !any_red && maps[i] && maps[i]->num_results == (uint32_t)loops
                             : op->kind != KILN_OP_LINALG_GENERIC && !hl_init_read(op, i - nin);
    if (bad || (undef(w, init) && (hl_init_read(op, i - nin) || !covers))) mark(w, kiln_op_result(op, k));
    k++;
  }
}

/* scf.for: an iter_arg is undefined when its init or its yielded value
 * is; the body is visited again until that stops growing. */
static void visit_for(wr *w, kiln_op *op) {
  kiln_block *body = op->regions[0].first;
  kiln_op *y = body ? kiln_block_terminator(body) : NULL;
  if (!y || y->kind != KILN_OP_SCF_YIELD || y->num_operands != op->num_results ||
      body->num_args != 1 + op->num_results || op->num_operands != 3 + op->num_results) {
    for (uint32_t i = 0; i < op->num_results; i++) mark(w, kiln_op_result(op, i));
    return;
  }
  for (uint32_t i = 0; i < op->num_results; i++)
    if (undef(w, kiln_op_operand(op, 3 + i))) mark(w, body->args[1 + i]);
  uint32_t before;
  do {
    before = w->undef.count;
    visit_block(w, body);
    for (uint32_t i = 0; i < op->num_results; i++)
      if (undef(w, kiln_op_operand(y, i))) mark(w, body->args[1 + i]);
  } while (w->undef.count != before);
  for (uint32_t i = 0; i < op->num_results; i++)
    if (undef(w, body->args[1 + i])) mark(w, kiln_op_result(op, i));
}

/* scf.if: a result is undefined when either branch yields an undefined
 * value. */
static void visit_if(wr *w, kiln_op *op) {
  for (uint32_t r = 0; r < 2; r++) {
    kiln_block *b = r < op->num_regions ? op->regions[r].first : NULL;
    kiln_op *y = b ? kiln_block_terminator(b) : NULL;
    if (b) visit_block(w, b);
    for (uint32_t i = 0; i < op->num_results; i++)
      if (!y || i >= y->num_operands || undef(w, kiln_op_operand(y, i))) mark(w, kiln_op_result(op, i));
  }
}

static void visit(wr *w, kiln_op *op) {
  bool bad = false;
  switch (op->kind) {
  case KILN_OP_TENSOR_EMPTY: bad = true; break;
  case KILN_OP_FLOW_DISPATCH_TENSOR_LOAD: bad = !readonly_binding(kiln_op_operand(op, 0)); break;
  case KILN_OP_SCF_FOR: visit_for(w, op); return;
  case KILN_OP_SCF_IF: visit_if(w, op); return;
  default:
    if (kiln_op_has_flag(op, KILN_OPF_LINALG)) {
      visit_linalg(w, op);
      return;
    }
    /* everything else (slices, inserts, pads, concats) reads all its
     * tensors: an insert's destination, a pad's source */
    bad = captures_undef(w, op);
    for (uint32_t i = 0; i < op->num_operands && !bad; i++) bad = undef(w, kiln_op_operand(op, i));
  }
  if (bad)
    for (uint32_t i = 0; i < op->num_results; i++) mark(w, kiln_op_result(op, i));
}

static void visit_block(wr *w, kiln_block *b) {
  for (kiln_op *op = b->first; op; op = op->next) visit(w, op);
}

typedef struct stores {
  kiln_block *body;
  uint64_t nested; /* bindings stored inside a loop or branch */
} stores;

static kiln_walk_result nested_store(kiln_op *o, void *user) {
  stores *s = user;
  if (o->kind != KILN_OP_FLOW_DISPATCH_TENSOR_STORE || o->parent == s->body) return KILN_WALK_ADVANCE;
  kiln_value *arg = kiln_op_operand(o, 1);
  if (!arg->def && arg->index < 64) s->nested |= (uint64_t)1 << arg->index;
  return KILN_WALK_ADVANCE;
}

/* Is v static tensor.insert_slices of defined values into a tensor.empty
 * (place-concats' pieces), maybe padded by a constant (its border
 * defined too): defined in the windows, undefined elsewhere? */
static bool defined_windows(const wr *w, kiln_value *v) {
  bool any = false;
  if (v->def && v->def->kind == KILN_OP_TENSOR_PAD && v->def->num_operands == 1 && !captures_undef(w, v->def)) {
    v = kiln_op_operand(v->def, 0);
    any = true;
  }
  while (v->def && v->def->kind == KILN_OP_TENSOR_INSERT_SLICE && v->def->num_operands == 2 &&
         !undef(w, kiln_op_operand(v->def, 0))) {
    v = kiln_op_operand(v->def, 1);
    any = true;
  }
  return any && v->def && v->def->kind == KILN_OP_TENSOR_EMPTY;
}

/* Bindings stored at the top level: in full from defined values (*full),
 * or as windows of defined values in undefined surroundings (*windows). */
static void masks(kiln_op *kernel, int64_t *full, int64_t *windows) {
  *full = *windows = 0;
  kiln_block *body = kernel->regions[0].first;
  if (!body) return;
  wr w = {kiln_op_context(kernel), {0}};
  visit_block(&w, body);
  uint64_t stored = 0, bad = 0, win = 0;
  for (kiln_op *op = body->first; op; op = op->next) {
    if (op->kind != KILN_OP_FLOW_DISPATCH_TENSOR_STORE) continue;
    kiln_value *arg = kiln_op_operand(op, 1);
    if (arg->def || arg->block != body || arg->index >= 32) continue;
    stored |= (uint64_t)1 << arg->index;
    if (undef(&w, kiln_op_operand(op, 0))) bad |= (uint64_t)1 << arg->index;
    if (defined_windows(&w, kiln_op_operand(op, 0))) win |= (uint64_t)1 << arg->index;
  }
  stores s = {body, 0};
  kiln_walk_pre(kernel, nested_store, &s);
  *full = (int64_t)(stored & ~bad & ~s.nested);
  *windows = (int64_t)(stored & bad & win & ~s.nested);
}

int64_t hl_written_mask(kiln_op *kernel) {
  int64_t full, windows;
  masks(kernel, &full, &windows);
  return full;
}

int64_t hl_window_mask(kiln_op *kernel) {
  int64_t full, windows;
  masks(kernel, &full, &windows);
  return windows;
}
