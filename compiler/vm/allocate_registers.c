/* allocate-registers: VM registers for every value of every vm.func.
 *
 * Takes: vm.funcs of one block (straight-line host code) as convert-to-vm
 * leaves them. Guarantees: every ref value is released right after its
 * last use by a vm.clear.ref (or right after its definition when unused;
 * values handed to vm.ret are released by the return itself); every op
 * with results carries `regs` (one register per result: a ref register
 * for refs, the first of one or two 32-bit scalar slots otherwise) and
 * the vm.func carries `arg_regs`, `scalar_count` and `ref_count`.
 * Arguments fill each bank in order, as the VM's calling convention
 * wants. A linear scan over the straight line reuses a register once the
 * value in it is dead; an op's results never share a register with its
 * operands, so the emitted code does not depend on the order in which the
 * interpreter reads and writes them. */
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

/* False when out of memory. */
static bool ra_number(kiln_ptr_map *pos, kiln_block *b) {
  uintptr_t i = 1;
  for (kiln_op *o = b->first; o; o = o->next)
    if (!kiln_ptr_map_put(pos, o, (void *)i++)) return false;
  return true;
}

/* Position of the last op using v (0 when unused); fails on a use outside
 * the block (host code is straight-line). */
static bool ra_last_use(const kiln_ptr_map *pos, kiln_block *b, kiln_value *v, kiln_op **last,
                        uint32_t *at) {
  *last = NULL;
  *at = 0;
  for (kiln_use *u = v->uses; u; u = u->next) {
    if (u->owner->parent != b) return false;
    const uint32_t p = ra_pos(pos, u->owner);
    if (p > *at) {
      *at = p;
      *last = u->owner;
    }
  }
  return true;
}

static kiln_error *ra_release_refs(kiln_context *ctx, kiln_op *fn, kiln_block *b) {
  kiln_ptr_map pos = {0};
  if (!ra_number(&pos, b)) {
    kiln_ptr_map_free(&pos);
    return kiln_op_error(fn, "out of memory in register allocation");
  }
  /* Snapshot the ops: insertions below must not disturb the scan. */
  const uint32_t nops = ra_count_ops(b);
  kiln_op **ops = kiln_alloc(ctx, (nops + 1) * sizeof *ops);
  uint32_t k = 0;
  for (kiln_op *o = b->first; o; o = o->next) ops[k++] = o;
  for (uint32_t i = 0; i < b->num_args + nops; i++) {
    kiln_value *v = i < b->num_args ? b->args[i] : NULL;
    kiln_op *def = i < b->num_args ? NULL : ops[i - b->num_args];
    if (def && def->kind == KILN_OP_VM_CLEAR_REF) continue;
    for (uint32_t r = 0; r < (def ? def->num_results : 1); r++) {
      kiln_value *val = def ? kiln_op_result(def, r) : v;
      if (!vmx_is_ref(val->type)) continue;
      kiln_op *last;
      uint32_t at;
      if (!ra_last_use(&pos, b, val, &last, &at)) {
        kiln_ptr_map_free(&pos);
        return kiln_op_error(fn, "a value is used outside the function's only block");
      }
      if (last && (last->kind == KILN_OP_VM_RET || last->kind == KILN_OP_VM_CLEAR_REF))
        continue;
      kiln_op *clear = kiln_op_create(ctx, KILN_OP_VM_CLEAR_REF, last ? last->loc : fn->loc,
                                      1, &val, 0, NULL, NULL, 0);
      if (last) kiln_block_insert_after(last, clear);
      else if (def) kiln_block_insert_after(def, clear);
      else if (b->first) kiln_block_insert_before(b->first, clear);
      else kiln_block_append_op(b, clear);
    }
  }
  kiln_ptr_map_free(&pos);
  return NULL;
}

static const kiln_attr *ra_i32s(kiln_context *ctx, uint32_t n, const int64_t *v) {
  return kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), n, v, NULL);
}

static kiln_error *ra_function(kiln_context *ctx, kiln_op *fn) {
  kiln_block *b = fn->regions[0].first;
  if (!b) return NULL;
  if (b->next)
    return kiln_op_error(fn, "has more than one block: register allocation handles straight-line code only");
  kiln_error *err = ra_release_refs(ctx, fn, b);
  if (err) return err;
  kiln_ptr_map pos = {0};
  ra_bank *scalars = calloc(1, sizeof *scalars), *refs = calloc(1, sizeof *refs);
  int64_t *regs = calloc(KILN_VM_MAX_LIST + 1 + b->num_args, sizeof *regs);
  bool ok = scalars && refs && regs && ra_number(&pos, b);
  if (!ok) err = kiln_op_error(fn, "out of memory in register allocation");
  /* Arguments: each bank in order (the calling convention). */
  for (uint32_t i = 0; ok && i < b->num_args; i++) {
    const kiln_type *t = b->args[i]->type;
    const int r = vmx_is_ref(t) ? ra_take(refs, 1) : ra_take(scalars, vmx_slots(t));
    regs[i] = r;
    ok = r >= 0;
    if (!ok) err = kiln_op_error(fn, "its arguments need more than %u registers in one bank",
                                 KILN_VM_MAX_REGISTERS);
  }
  if (ok) kiln_op_set_attr(fn, "arg_regs", ra_i32s(ctx, b->num_args, regs));
  /* Unused arguments are dead from the start. */
  for (uint32_t i = 0; ok && i < b->num_args; i++)
    if (!b->args[i]->uses && !vmx_is_ref(b->args[i]->type))
      ra_give(scalars, (uint32_t)regs[i], vmx_slots(b->args[i]->type));
  /* Register of each live value, found through its defining op's regs. */
  for (kiln_op *op = b->first; ok && op; op = op->next) {
    const uint32_t here = ra_pos(&pos, op);
    if (op->num_results > KILN_VM_MAX_LIST) {
      ok = false;
      err = kiln_op_error(op, "too many results for one VM instruction");
      break;
    }
    for (uint32_t r = 0; ok && r < op->num_results; r++) {
      const kiln_type *t = op->results[r].type;
      const int reg = vmx_is_ref(t) ? ra_take(refs, 1) : ra_take(scalars, vmx_slots(t));
      regs[r] = reg;
      ok = reg >= 0;
    }
    if (!ok) {
      err = kiln_op_error(op, "more than %u live registers in one bank", KILN_VM_MAX_REGISTERS);
      break;
    }
    if (op->num_results) kiln_op_set_attr(op, "regs", ra_i32s(ctx, op->num_results, regs));
    /* Operands whose last use is this op: their registers become free. */
    for (uint32_t k = 0; k < op->num_operands; k++) {
      kiln_value *v = kiln_op_operand(op, k);
      bool seen = false;
      for (uint32_t j = 0; j < k; j++) seen = seen || kiln_op_operand(op, j) == v;
      kiln_op *last;
      uint32_t at;
      if (seen || !ra_last_use(&pos, b, v, &last, &at) || at != here) continue;
      const kiln_attr *vr = v->def ? kiln_op_get_attr(v->def, "regs")
                                   : kiln_op_get_attr(fn, "arg_regs");
      const uint32_t reg = (uint32_t)((const int64_t *)vr->data)[v->index];
      if (vmx_is_ref(v->type)) ra_give(refs, reg, 1);
      else ra_give(scalars, reg, vmx_slots(v->type));
    }
    /* Unused scalar results die at once (refs have their vm.clear.ref). */
    for (uint32_t r = 0; r < op->num_results; r++)
      if (!op->results[r].uses && !vmx_is_ref(op->results[r].type))
        ra_give(scalars, (uint32_t)regs[r], vmx_slots(op->results[r].type));
  }
  if (ok) {
    kiln_op_set_attr(fn, "scalar_count", kiln_attr_int(ctx, kiln_type_int(ctx, 32), scalars->high));
    kiln_op_set_attr(fn, "ref_count", kiln_attr_int(ctx, kiln_type_int(ctx, 32), refs->high));
  }
  free(scalars);
  free(refs);
  free(regs);
  kiln_ptr_map_free(&pos);
  return err;
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
