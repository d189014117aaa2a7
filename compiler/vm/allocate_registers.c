/* allocate-registers: VM registers for every value of every vm.func.
 *
 * Takes: vm.funcs of one block as convert-to-vm leaves them: straight-line
 * host code, vm.for loops and vm.if branches (nested blocks). Guarantees: every ref value
 * is released right after its last use by a vm.clear.ref (or right after
 * its definition when unused; values handed to vm.ret are released by the
 * return itself, values a block yields by the emitted moves); a use
 * inside a loop or branch counts as a use at the vm.for / vm.if, so
 * values from outside a loop stay live through all of its steps; every op with results carries
 * `regs` (one register per result: a ref register for refs, the first of
 * one or two 32-bit scalar slots otherwise), each vm.for `body_regs` (the
 * step number, then the carried values in the registers of its results)
 * and `cmp_reg`, and the vm.func carries `arg_regs`, `scalar_count` and
 * `ref_count`; a vm.for whose yield exchanges carried values also
 * `swap_regs` (see ra_loop). Arguments fill each bank in order, as the VM's calling
 * convention wants. A linear scan reuses a register once the value in it
 * is dead; an op's results never share a register with its operands, so
 * the emitted code does not depend on the order in which the interpreter
 * reads and writes them. A loop's carried values are owned by their
 * registers: the body never releases its block arguments. */
#include <stdlib.h>
#include <string.h>

#include "kiln/vm_bytecode.h"
#include "vm_internal.h"

/* Op positions in their block, 1 for the first op (0: not numbered). */
static uint32_t ra_pos(const kiln_ptr_map *pos, const kiln_op *op) {
  return (uint32_t)(uintptr_t)kiln_ptr_map_get(pos, op);
}

/* A bank: one byte per register, 1 = in use. */
typedef struct ra_bank {
  uint8_t used[KILN_VM_MAX_REGISTERS + 1];
  uint32_t high; /* registers ever used */
} ra_bank;

static int ra_take(ra_bank *b, uint32_t width) {
  for (uint32_t r = 0; r + width <= KILN_VM_MAX_REGISTERS; r++) {
    bool free_run = true;
    for (uint32_t k = 0; k < width; k++) free_run = free_run && !b->used[r + k];
    if (!free_run) continue;
    for (uint32_t k = 0; k < width; k++) b->used[r + k] = 1;
    if (r + width > b->high) b->high = r + width;
    return (int)r;
  }
  return -1;
}
static void ra_give(ra_bank *b, uint32_t r, uint32_t width) {
  for (uint32_t k = 0; k < width; k++) b->used[r + k] = 0;
}

static uint32_t ra_count_ops(kiln_block *b) {
  uint32_t n = 0;
  for (kiln_op *o = b->first; o; o = o->next) n++;
  return n;
}

/* Numbers the ops of b and of every loop body inside; false when out of
 * memory. */
static bool ra_number(kiln_ptr_map *pos, kiln_block *b) {
  uintptr_t i = 1;
  for (kiln_op *o = b->first; o; o = o->next) {
    if (!kiln_ptr_map_put(pos, o, (void *)i++)) return false;
    for (uint32_t g = 0; g < o->num_regions; g++)
      if (o->regions[g].first && !ra_number(pos, o->regions[g].first)) return false;
  }
  return true;
}

/* The op of block b that is op or holds it (NULL when op is not in b). */
static kiln_op *ra_in_block(kiln_op *op, const kiln_block *b) {
  while (op && op->parent != b) op = op->parent ? kiln_block_parent_op(op->parent) : NULL;
  return op;
}

/* The block v is defined in. */
static kiln_block *ra_home(const kiln_value *v) { return v->def ? v->def->parent : v->block; }

/* The op of v's block holding v's last use (NULL and 0 when unused);
 * false on a use outside that block. */
static bool ra_last_use(const kiln_ptr_map *pos, kiln_value *v, kiln_op **last, uint32_t *at) {
  kiln_block *b = ra_home(v);
  *last = NULL;
  *at = 0;
  for (kiln_use *u = v->uses; u; u = u->next) {
    kiln_op *o = ra_in_block(u->owner, b);
    if (!o) return false;
    const uint32_t p = ra_pos(pos, o);
    if (p > *at) {
      *at = p;
      *last = o;
    }
  }
  return true;
}

static kiln_error *ra_release_block(kiln_context *ctx, kiln_op *fn, kiln_block *b, const kiln_ptr_map *pos) {
  /* Snapshot the ops: insertions below must not disturb the scan. */
  const uint32_t nops = ra_count_ops(b);
  kiln_op **ops = kiln_alloc(ctx, (nops + 1) * sizeof *ops);
  uint32_t k = 0;
  for (kiln_op *o = b->first; o; o = o->next) ops[k++] = o;
  /* a loop body's arguments belong to the loop (see the file comment) */
  const uint32_t nargs = kiln_block_parent_op(b) == fn ? b->num_args : 0;
  for (uint32_t i = 0; i < nargs + nops; i++) {
    kiln_value *v = i < nargs ? b->args[i] : NULL;
    kiln_op *def = i < nargs ? NULL : ops[i - nargs];
    if (def && def->kind == KILN_OP_VM_CLEAR_REF) continue;
    for (uint32_t g = 0; def && g < def->num_regions; g++) {
      kiln_error *err = def->regions[g].first ? ra_release_block(ctx, fn, def->regions[g].first, pos) : NULL;
      if (err) return err;
    }
    for (uint32_t r = 0; r < (def ? def->num_results : 1); r++) {
      kiln_value *val = def ? kiln_op_result(def, r) : v;
      if (!vmx_is_ref(val->type)) continue;
      kiln_op *last;
      uint32_t at;
      if (!ra_last_use(pos, val, &last, &at))
        return kiln_op_error(def ? def : fn, "a value is used outside the block that defines it");
      if (last && (last->kind == KILN_OP_VM_RET || last->kind == KILN_OP_VM_CLEAR_REF ||
                   last->kind == KILN_OP_VM_YIELD))
        continue;
      kiln_op *clear = kiln_op_create(ctx, KILN_OP_VM_CLEAR_REF, last ? last->loc : fn->loc,
                                      1, &val, 0, NULL, NULL, 0);
      if (last) kiln_block_insert_after(last, clear);
      else if (def) kiln_block_insert_after(def, clear);
      else if (b->first) kiln_block_insert_before(b->first, clear);
      else kiln_block_append_op(b, clear);
    }
  }
  return NULL;
}

static kiln_error *ra_release_refs(kiln_context *ctx, kiln_op *fn, kiln_block *b) {
  kiln_ptr_map pos = {0};
  kiln_error *err = ra_number(&pos, b) ? ra_release_block(ctx, fn, b, &pos)
                                       : kiln_op_error(fn, "out of memory in register allocation");
  kiln_ptr_map_free(&pos);
  return err;
}

static const kiln_attr *ra_i32s(kiln_context *ctx, uint32_t n, const int64_t *v) {
  return kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), n, v, NULL);
}

/* The register of v: its def's `regs`, a loop body's `body_regs` or the
 * function's `arg_regs`. */
static uint32_t ra_reg_of(kiln_op *fn, const kiln_value *v) {
  const kiln_op *owner = v->def ? NULL : kiln_block_parent_op(v->block);
  const kiln_attr *a = v->def ? kiln_op_get_attr(v->def, "regs")
                       : owner && owner->kind == KILN_OP_VM_FOR ? kiln_op_get_attr(owner, "body_regs")
                                                                : kiln_op_get_attr(fn, "arg_regs");
  return (uint32_t)((const int64_t *)a->data)[v->index];
}

typedef struct ra {
  kiln_context *ctx;
  kiln_op *fn;
  kiln_ptr_map pos;
  ra_bank *scalars, *refs;
  kiln_error *err;
} ra;

static int ra_take_for(ra *s, const kiln_type *t) {
  return vmx_is_ref(t) ? ra_take(s->refs, 1) : ra_take(s->scalars, vmx_slots(t));
}

static void ra_give_value(ra *s, const kiln_value *v) {
  const uint32_t reg = ra_reg_of(s->fn, v);
  if (vmx_is_ref(v->type)) ra_give(s->refs, reg, 1);
  else ra_give(s->scalars, reg, vmx_slots(v->type));
}

static bool ra_block(ra *s, kiln_block *b);

/* Frees the registers of values defined outside `loop` (a vm.for or
 * vm.if) whose last use is inside it (in b or deeper). Each such value is seen once per use; a
 * second give of the same register at this point is harmless (nothing
 * was taken in between). */
static void ra_free_outer(ra *s, kiln_op *loop, kiln_block *b) {
  for (kiln_op *o = b->first; o; o = o->next) {
    for (uint32_t k = 0; k < o->num_operands; k++) {
      kiln_value *v = kiln_op_operand(o, k);
      kiln_op *last;
      uint32_t at;
      if (!ra_last_use(&s->pos, v, &last, &at) || last != loop) continue;
      if (!v->def && kiln_block_parent_op(v->block) != s->fn) continue;
      ra_give_value(s, v);
    }
    for (uint32_t g = 0; g < o->num_regions; g++)
      if (o->regions[g].first) ra_free_outer(s, loop, o->regions[g].first);
  }
}

/* A vm.for: its carried registers (the results' too), step number and
 * compare scratch stay taken through the body; operands and values from
 * outside used in the body die after the loop at the earliest. A yield
 * that moves one carried value into another's register (an exchange:
 * ping-pong buffers, rotated counters) may form a cycle of moves, which
 * the emitter breaks through a scratch register of that bank: `swap_regs`
 * = [scalar (two slots: any width), ref], -1 where no exchange needs one,
 * taken through the body (only loops that exchange have the attribute). */
static bool ra_loop(ra *s, kiln_op *op, int64_t *regs) {
  kiln_block *body = op->regions[0].first;
  kiln_op *y = body->last;
  int64_t *br = kiln_alloc(s->ctx, (body->num_args + 1) * sizeof *br);
  int64_t swap[2] = {-1, -1};
  bool need[2] = {false, false};
  int cmp = -1;
  for (uint32_t k = 0; y && y->kind == KILN_OP_VM_YIELD && k < y->num_operands; k++) {
    const kiln_value *v = kiln_op_operand(y, k);
    if (!v->def && v->block == body && v->index >= 1 && v->index != k + 1) need[vmx_is_ref(v->type)] = true;
  }
  br[0] = ra_take_for(s, body->args[0]->type);
  for (uint32_t i = 1; i < body->num_args; i++) br[i] = regs[i - 1];
  if (need[0]) swap[0] = ra_take(s->scalars, 2);
  if (need[1]) swap[1] = ra_take(s->refs, 1);
  if (br[0] < 0 || (cmp = ra_take(s->scalars, 1)) < 0 || (need[0] && swap[0] < 0) || (need[1] && swap[1] < 0)) {
    s->err = kiln_op_error(op, "more than %u live registers in one bank", KILN_VM_MAX_REGISTERS);
    return false;
  }
  kiln_op_set_attr(op, "body_regs", ra_i32s(s->ctx, body->num_args, br));
  kiln_op_set_attr(op, "cmp_reg", kiln_attr_int(s->ctx, kiln_type_int(s->ctx, 32), cmp));
  if (need[0] || need[1]) kiln_op_set_attr(op, "swap_regs", ra_i32s(s->ctx, 2, swap));
  if (!ra_block(s, body)) return false;
  ra_give(s->scalars, (uint32_t)br[0], vmx_slots(body->args[0]->type));
  ra_give(s->scalars, (uint32_t)cmp, 1);
  if (need[0]) ra_give(s->scalars, (uint32_t)swap[0], 2);
  if (need[1]) ra_give(s->refs, (uint32_t)swap[1], 1);
  return true;
}

static bool ra_block(ra *s, kiln_block *b) {
  int64_t regs[KILN_VM_MAX_LIST + 1];
  for (kiln_op *op = b->first; op; op = op->next) {
    if (op->num_results > KILN_VM_MAX_LIST) {
      s->err = kiln_op_error(op, "too many results for one VM instruction");
      return false;
    }
    for (uint32_t r = 0; r < op->num_results; r++)
      if ((regs[r] = ra_take_for(s, op->results[r].type)) < 0) {
        s->err = kiln_op_error(op, "more than %u live registers in one bank", KILN_VM_MAX_REGISTERS);
        return false;
      }
    if (op->num_results) kiln_op_set_attr(op, "regs", ra_i32s(s->ctx, op->num_results, regs));
    if (op->kind == KILN_OP_VM_FOR && !ra_loop(s, op, regs)) return false;
    /* a branch's results stay taken through both blocks, which yield
     * into them */
    for (uint32_t g = 0; op->kind == KILN_OP_VM_IF && g < 2; g++)
      if (!ra_block(s, op->regions[g].first)) return false;
    /* Operands whose last use is this op: their registers become free. */
    for (uint32_t k = 0; k < op->num_operands; k++) {
      kiln_value *v = kiln_op_operand(op, k);
      bool seen = false;
      for (uint32_t j = 0; j < k; j++) seen = seen || kiln_op_operand(op, j) == v;
      kiln_op *last;
      uint32_t at;
      if (seen || !ra_last_use(&s->pos, v, &last, &at) || last != op) continue;
      /* a loop's own arguments are owned by the loop */
      if (!v->def && kiln_block_parent_op(v->block) != s->fn) continue;
      ra_give_value(s, v);
    }
    /* Values from outside a loop or branch read last inside it: free
     * after it. */
    for (uint32_t g = 0; g < op->num_regions; g++)
      if (op->regions[g].first) ra_free_outer(s, op, op->regions[g].first);
    /* Unused scalar results die at once (refs have their vm.clear.ref). */
    for (uint32_t r = 0; r < op->num_results; r++)
      if (!op->results[r].uses && !vmx_is_ref(op->results[r].type))
        ra_give(s->scalars, (uint32_t)regs[r], vmx_slots(op->results[r].type));
  }
  return true;
}

static kiln_error *ra_function(kiln_context *ctx, kiln_op *fn) {
  kiln_block *b = fn->regions[0].first;
  if (!b) return NULL;
  if (b->next)
    return kiln_op_error(fn, "has more than one block: host control flow is vm.for, not blocks");
  kiln_error *err = ra_release_refs(ctx, fn, b);
  if (err) return err;
  ra s = {ctx, fn, {0}, calloc(1, sizeof(ra_bank)), calloc(1, sizeof(ra_bank)), NULL};
  int64_t *regs = calloc(1 + b->num_args, sizeof *regs);
  bool ok = s.scalars && s.refs && regs && ra_number(&s.pos, b);
  if (!ok) s.err = kiln_op_error(fn, "out of memory in register allocation");
  /* Arguments: each bank in order (the calling convention). */
  for (uint32_t i = 0; ok && i < b->num_args; i++) {
    regs[i] = ra_take_for(&s, b->args[i]->type);
    ok = regs[i] >= 0;
    if (!ok) s.err = kiln_op_error(fn, "its arguments need more than %u registers in one bank",
                                   KILN_VM_MAX_REGISTERS);
  }
  if (ok) kiln_op_set_attr(fn, "arg_regs", ra_i32s(ctx, b->num_args, regs));
  /* Unused arguments are dead from the start. */
  for (uint32_t i = 0; ok && i < b->num_args; i++)
    if (!b->args[i]->uses && !vmx_is_ref(b->args[i]->type))
      ra_give(s.scalars, (uint32_t)regs[i], vmx_slots(b->args[i]->type));
  ok = ok && ra_block(&s, b);
  if (ok) {
    kiln_op_set_attr(fn, "scalar_count", kiln_attr_int(ctx, kiln_type_int(ctx, 32), s.scalars->high));
    kiln_op_set_attr(fn, "ref_count", kiln_attr_int(ctx, kiln_type_int(ctx, 32), s.refs->high));
  }
  free(s.scalars);
  free(s.refs);
  free(regs);
  kiln_ptr_map_free(&s.pos);
  return s.err;
}

kiln_error *kiln_pass_allocate_registers(kiln_op *module, void *user) {
  (void)user;
  kiln_context *ctx = kiln_op_context(module);
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next)
    if (op->kind == KILN_OP_VM_FUNC) {
      kiln_error *err = ra_function(ctx, op);
      if (err) return err;
    }
  return NULL;
}
