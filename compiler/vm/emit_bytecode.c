/* Bytecode emission: one register-allocated vm.func -> VM bytecode,
 * through format/vm's assembler (the only encoder of the opcode table).
 *
 * Takes: a vm.func after allocate-registers. Guarantees: one instruction
 * per op in op order (vm ops map to the opcode of the same mnemonic);
 * import ordinals follow first use across the module (the caller shares
 * one kiln_vm_imports_t); a vm.call names its callee by its place among
 * the module's vm.funcs, its signature checked against the callee's; a call site whose op has a location gets a
 * source location at its pc; an inconsistency (missing registers, an
 * import called with two signatures) is an error naming the op. */
#include <stdlib.h>
#include <string.h>

#include "kiln/vm_bytecode.h"
#include "vm_internal.h"

void kiln_vm_imports_free(kiln_vm_imports_t *im) {
  free(im->names);
  free(im->signatures);
  memset(im, 0, sizeof *im);
}

void kiln_vm_function_code_free(kiln_vm_function_code_t *c) {
  free(c->code);
  free(c->locations);
  memset(c, 0, sizeof *c);
}

static int em_import(kiln_vm_imports_t *im, const char *name, const char *sig) {
  for (uint32_t i = 0; i < im->count; i++)
    if (strcmp(im->names[i], name) == 0)
      return strcmp(im->signatures[i], sig) == 0 ? (int)i : -2;
  if (im->count == im->cap) {
    const uint32_t cap = im->cap ? im->cap * 2 : 16;
    const char **n = realloc(im->names, cap * sizeof *n);
    if (!n) return -1;
    im->names = n;
    const char **s = realloc(im->signatures, cap * sizeof *s);
    if (!s) return -1;
    im->signatures = s;
    im->cap = cap;
  }
  im->names[im->count] = name;
  im->signatures[im->count] = sig;
  return (int)im->count++;
}

/* Bytecode opcode of an opcode-mirroring op, or -1. */
static int em_opcode(kiln_op_kind k) {
  switch (k) {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  case KILN_OP_VM_##NAME: return KILN_VM_OP_##NAME;
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  case KILN_OP_VM_##NAME: return KILN_VM_OP_##NAME;
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
  default: return -1;
  }
}

typedef struct em {
  kiln_op *fn;
  kiln_vm_function_code_t *out; /* its scalar_count/ref_count bound registers */
  uint32_t loc_cap;
  kiln_error *err; /* the first failure, located at its op */
} em;

static int em_reg(em *e, const kiln_op *at, kiln_value *v) {
  const kiln_op *owner = v->def ? NULL : kiln_block_parent_op(v->block);
  const kiln_attr *a = v->def ? kiln_op_get_attr(v->def, "regs")
                       : owner && owner->kind == KILN_OP_VM_FOR ? kiln_op_get_attr(owner, "body_regs")
                                                                : kiln_op_get_attr(e->fn, "arg_regs");
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || !kiln_type_is_integer(a->type) ||
      v->index >= a->count) {
    kiln_op_fail(&e->err, at, "operand has no register (run allocate-registers first)");
    return 0;
  }
  /* Registers come from the IR (possibly hand-written): keep them inside
   * the function's banks so the emitted code verifies. */
  const int64_t r = ((const int64_t *)a->data)[v->index];
  const bool ref = vmx_is_ref(v->type);
  const int64_t limit = (int64_t)(ref ? e->out->ref_count : e->out->scalar_count) -
                        (ref ? 0 : (int64_t)vmx_slots(v->type) - 1);
  if (r < 0 || r >= limit) {
    kiln_op_fail(&e->err, at, "register %lld is outside the function's %s bank (%u)", (long long)r,
                 ref ? "ref" : "scalar", ref ? e->out->ref_count : e->out->scalar_count);
    return 0;
  }
  return (int)r;
}

static int em_result(em *e, kiln_op *op, uint32_t i) {
  return em_reg(e, op, kiln_op_result(op, i));
}

static void em_location(em *e, const kiln_op *op, uint32_t pc) {
  if (!op->loc.file) return;
  kiln_vm_function_code_t *o = e->out;
  if (o->location_count == e->loc_cap) {
    const uint32_t cap = e->loc_cap ? e->loc_cap * 2 : 16;
    kiln_vm_location_t *n = realloc(o->locations, cap * sizeof *n);
    if (!n) {
      kiln_op_fail(&e->err, op, "out of memory recording source locations");
      return;
    }
    o->locations = n;
    e->loc_cap = cap;
  }
  /* Source nodes go with every instruction whose op names them: a
   * dispatch site every node fused into its kernel, a host instruction
   * (allocation, copy, shape check) the node it was lowered from. */
  o->locations[o->location_count++] =
      (kiln_vm_location_t){pc, op->loc.file, op->loc.line, op->loc.col, op->loc.nodes};
}

static void em_call_import(em *e, kiln_vm_asm_t *a, kiln_op *op,
                           kiln_vm_imports_t *im) {
  const kiln_attr *callee = kiln_op_get_attr(op, "callee");
  const kiln_attr *sig = kiln_op_get_attr(op, "signature");
  const kiln_attr *spans = kiln_op_get_attr(op, "spans");
  const int ord = em_import(im, callee->str, sig->str);
  if (ord < 0) {
    kiln_op_fail(&e->err, op, ord == -2 ? "import '%s' is called with two different signatures"
                 : "out of memory adding import '%s'",
                 callee->str);
    return;
  }
  int args[KILN_VM_MAX_LIST + 1], res[KILN_VM_MAX_LIST + 1];
  uint32_t na = 0, k = 0, span = 0;
  const char *t = sig->str;
  for (; *t && *t != '_'; t++) {
    if (*t == 'C') {
      const char *end = strchr(t, 'D');
      const int64_t tuples = ((const int64_t *)spans->data)[span++];
      args[na++] = (int)tuples;
      for (int64_t c = 0; c < tuples * (end - t - 1); c++)
        args[na++] = em_reg(e, op, kiln_op_operand(op, k++));
      t = end;
      continue;
    }
    args[na++] = em_reg(e, op, kiln_op_operand(op, k++));
  }
  for (uint32_t r = 0; r < op->num_results; r++) res[r] = em_result(e, op, r);
  if (na > KILN_VM_MAX_LIST) {
    kiln_op_fail(&e->err, op, "call has %u register-list entries, the VM allows %u", na, KILN_VM_MAX_LIST);
    return;
  }
  em_location(e, op, (uint32_t)a->size);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, ord, (int)na, args,
                   (int)op->num_results, res);
}

/* vm.call: the callee's ordinal is its place among the module's vm.funcs
 * (serialize writes them in that order); its signature must be the one
 * the call was lowered with (the loader checks the registers against it). */
static void em_call(em *e, kiln_vm_asm_t *a, kiln_op *op) {
  const kiln_attr *callee = kiln_op_get_attr(op, "callee");
  const kiln_attr *sig = kiln_op_get_attr(op, "signature");
  int ord = -1, k = 0;
  kiln_op *fn = NULL;
  for (kiln_op *f = e->fn->parent ? e->fn->parent->first : NULL; f; f = f->next) {
    if (f->kind != KILN_OP_VM_FUNC) continue;
    if (strcmp(kiln_symbol_name(f), callee->str) == 0) {
      ord = k, fn = f;
      break;
    }
    k++;
  }
  if (!fn) {
    kiln_op_fail(&e->err, op, "calls '%s', which is no vm.func of the module", callee->str);
    return;
  }
  char want[KILN_VM_MAX_LIST * 2 + 8];
  kiln_error *err = kiln_vm_signature_of(kiln_op_get_attr(fn, "function_type")->type, want, sizeof want);
  if (err || strcmp(want, sig->str) != 0) {
    kiln_op_fail(&e->err, op, "calls '%s' with signature '%s', the function's is '%s'", callee->str, sig->str,
                 err ? kiln_error_message(err) : want);
    kiln_error_free(err);
    return;
  }
  int args[KILN_VM_MAX_LIST + 1], res[KILN_VM_MAX_LIST + 1];
  if (op->num_operands > KILN_VM_MAX_LIST || op->num_results > KILN_VM_MAX_LIST) {
    kiln_op_fail(&e->err, op, "call has more than %u operands or results", KILN_VM_MAX_LIST);
    return;
  }
  for (uint32_t i = 0; i < op->num_operands; i++) args[i] = em_reg(e, op, kiln_op_operand(op, i));
  for (uint32_t r = 0; r < op->num_results; r++) res[r] = em_result(e, op, r);
  em_location(e, op, (uint32_t)a->size);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL, ord, (int)op->num_operands, args, (int)op->num_results, res);
}

static void em_for(em *e, kiln_vm_asm_t *a, kiln_op *op, kiln_vm_imports_t *imports);
static void em_if(em *e, kiln_vm_asm_t *a, kiln_op *op, kiln_vm_imports_t *imports);

/* The ops of one block, in order. */
static void em_ops(em *e, kiln_vm_asm_t *a, kiln_block *b, kiln_vm_imports_t *imports) {
  for (kiln_op *op = b->first; op && !e->err; op = op->next) {
    const kiln_attr *v = kiln_op_get_attr(op, "value");
    switch (op->kind) {
    case KILN_OP_VM_CONST_I32:
      kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, em_result(e, op, 0), (int32_t)v->i);
      break;
    case KILN_OP_VM_CONST_I64:
      kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, em_result(e, op, 0), (int64_t)v->i);
      break;
    case KILN_OP_VM_CONST_F32:
      kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, em_result(e, op, 0), v->f);
      break;
    case KILN_OP_VM_CONST_F64:
      kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F64, em_result(e, op, 0), v->f);
      break;
    case KILN_OP_VM_CLEAR_REF:
      kiln_vm_asm_emit(a, KILN_VM_OP_CLEAR_REF, em_reg(e, op, kiln_op_operand(op, 0)));
      break;
    case KILN_OP_VM_FOR:
      em_for(e, a, op, imports);
      break;
    case KILN_OP_VM_IF:
      em_if(e, a, op, imports);
      break;
    case KILN_OP_VM_YIELD: /* em_for / em_if emit it */
      break;
    case KILN_OP_VM_CALL_IMPORT:
      em_call_import(e, a, op, imports);
      break;
    case KILN_OP_VM_CALL:
      em_call(e, a, op);
      break;
    case KILN_OP_VM_RET: {
      int regs[KILN_VM_MAX_LIST + 1];
      if (op->num_operands > KILN_VM_MAX_LIST) {
        kiln_op_fail(&e->err, op, "too many results");
        break;
      }
      for (uint32_t i = 0; i < op->num_operands; i++)
        regs[i] = em_reg(e, op, kiln_op_operand(op, i));
      kiln_vm_asm_emit(a, KILN_VM_OP_RET, (int)op->num_operands, regs);
      break;
    }
    default: {
      const int opc = em_opcode(op->kind);
      if (opc < 0) {
        kiln_op_fail(&e->err, op, "has no VM instruction");
        break;
      }
      em_location(e, op, (uint32_t)a->size);
      if (op->num_operands == 2)
        kiln_vm_asm_emit(a, (kiln_vm_opcode_t)opc, em_result(e, op, 0),
                         em_reg(e, op, kiln_op_operand(op, 0)),
                         em_reg(e, op, kiln_op_operand(op, 1)));
      else
        kiln_vm_asm_emit(a, (kiln_vm_opcode_t)opc, em_result(e, op, 0),
                         em_reg(e, op, kiln_op_operand(op, 0)));
    }
    }
  }
}

/* The move opcode for a register of type t. */
static kiln_vm_opcode_t em_mov(const kiln_type *t) {
  if (vmx_is_ref(t)) return KILN_VM_OP_MOV_REF;
  return vmx_slots(t) == 2 ? KILN_VM_OP_MOV_I64 : KILN_VM_OP_MOV_I32;
}

/* One move of a yield: dst = src in one bank. */
typedef struct em_move {
  int dst, src;
  bool ref, done;
  kiln_vm_opcode_t opc;
} em_move;

/* The moves of block-ending vm.yield y of op (vm.for: into the carried
 * registers; vm.if: into the results' registers) as one parallel
 * assignment, then the release of each ref made in that block (mov.ref
 * retained it). A move waits while a pending move still reads its
 * destination, so moves without conflicts go out in operand order; when
 * only cycles are left (a loop exchanging carried values), one
 * destination is saved in the loop's scratch register of its bank
 * (`swap_regs`) and its readers read the scratch instead, which turns
 * that cycle into a chain; a ref scratch is cleared at the end, so the
 * exchange leaves every count as it was. */
static void em_yield(em *e, kiln_vm_asm_t *a, kiln_op *op, kiln_op *y, bool loop) {
  kiln_block *body = y->parent;
  em_move m[KILN_VM_MAX_LIST + 1];
  const uint32_t n = y->num_operands;
  if (n > KILN_VM_MAX_LIST) {
    kiln_op_fail(&e->err, y, "yields %u values, the VM allows %u", n, KILN_VM_MAX_LIST);
    return;
  }
  for (uint32_t k = 0; k < n && !e->err; k++) {
    kiln_value *v = kiln_op_operand(y, k);
    m[k].dst = loop ? em_reg(e, y, body->args[1 + k]) : em_result(e, op, k);
    m[k].src = em_reg(e, y, v);
    m[k].ref = vmx_is_ref(v->type);
    m[k].opc = em_mov(op->results[k].type);
    m[k].done = m[k].dst == m[k].src;
  }
  bool ref_scratch = false;
  for (bool left = true; left && !e->err;) {
    bool moved = false;
    left = false;
    for (uint32_t k = 0; k < n; k++) {
      if (m[k].done) continue;
      bool read = false;
      for (uint32_t j = 0; j < n && !read; j++)
        read = j != k && !m[j].done && m[j].ref == m[k].ref && m[j].src == m[k].dst;
      if (read) {
        left = true;
        continue;
      }
      kiln_vm_asm_emit(a, m[k].opc, m[k].dst, m[k].src);
      m[k].done = moved = true;
    }
    if (!left || moved) continue;
    /* only cycles: save the first pending destination */
    uint32_t k = 0;
    while (m[k].done) k++;
    const kiln_attr *sw = kiln_op_get_attr(op, "swap_regs");
    const int64_t r = sw && sw->kind == KILN_ATTR_DENSE_ARRAY && sw->count == 2 ? ((const int64_t *)sw->data)[m[k].ref]
                                                                                 : -1;
    if (r < 0 || r + (m[k].ref ? 1 : 2) > (int64_t)(m[k].ref ? e->out->ref_count : e->out->scalar_count)) {
      kiln_op_fail(&e->err, y, "exchanges carried values between steps but its loop has no valid scratch register "
                               "(run allocate-registers first)");
      return;
    }
    kiln_vm_asm_emit(a, m[k].opc, (int)r, m[k].dst);
    for (uint32_t j = 0; j < n; j++)
      if (!m[j].done && m[j].ref == m[k].ref && m[j].src == m[k].dst) m[j].src = (int)r;
    ref_scratch = ref_scratch || m[k].ref;
  }
  if (ref_scratch && !e->err)
    kiln_vm_asm_emit(a, KILN_VM_OP_CLEAR_REF, (int)((const int64_t *)kiln_op_get_attr(op, "swap_regs")->data)[1]);
  for (uint32_t k = 0; k < n; k++) {
    kiln_value *v = kiln_op_operand(y, k);
    bool seen = false;
    for (uint32_t j = 0; j < k; j++) seen = seen || kiln_op_operand(y, j) == v;
    if (!seen && vmx_is_ref(v->type) && v->def && v->def->parent == body)
      kiln_vm_asm_emit(a, KILN_VM_OP_CLEAR_REF, em_reg(e, y, v));
  }
}

/* vm.if: `br_if cond, then`, the else block, `br end`, the then block
 * (each ending in its yield's moves), end. */
static void em_if(em *e, kiln_vm_asm_t *a, kiln_op *op, kiln_vm_imports_t *imports) {
  const uint32_t then = kiln_vm_asm_label(a), end = kiln_vm_asm_label(a);
  em_location(e, op, (uint32_t)a->size);
  kiln_vm_asm_emit(a, KILN_VM_OP_BR_IF, em_reg(e, op, kiln_op_operand(op, 0)), (int)then);
  for (uint32_t g = 2; g-- > 0 && !e->err;) {
    kiln_block *b = op->regions[g].first;
    if (g == 0) kiln_vm_asm_bind(a, then);
    em_ops(e, a, b, imports);
    if (!e->err) em_yield(e, a, op, b->last, false);
    if (g == 1) kiln_vm_asm_emit(a, KILN_VM_OP_BR, (int)end);
  }
  kiln_vm_asm_bind(a, end);
}

/* vm.for: the carried registers take the initial values, then per step
 * `cmp = ub <= iv; br_if cmp, exit; body; carried = yielded; iv += step;
 * br head`. A step count past the call's budget stops the call (the
 * backward br spends it), so a bad step cannot hang. A yielded ref made in
 * the body is released after its move (mov.ref retains). */
static void em_for(em *e, kiln_vm_asm_t *a, kiln_op *op, kiln_vm_imports_t *imports) {
  kiln_block *body = op->regions[0].first;
  kiln_op *y = body->last;
  const kiln_attr *cr = kiln_op_get_attr(op, "cmp_reg");
  if (!cr || cr->kind != KILN_ATTR_INTEGER || cr->i < 0 || cr->i >= (int64_t)e->out->scalar_count) {
    kiln_op_fail(&e->err, op, "has no valid 'cmp_reg' (run allocate-registers first)");
    return;
  }
  const int cmp = (int)cr->i, iv = em_reg(e, op, body->args[0]);
  const uint32_t n = op->num_results;
  for (uint32_t k = 0; k < n; k++) {
    const int dst = em_result(e, op, k), src = em_reg(e, op, kiln_op_operand(op, 3 + k));
    if (dst != src) kiln_vm_asm_emit(a, em_mov(op->results[k].type), dst, src);
  }
  kiln_vm_asm_emit(a, KILN_VM_OP_MOV_I64, iv, em_reg(e, op, kiln_op_operand(op, 0)));
  const uint32_t head = kiln_vm_asm_label(a), exit = kiln_vm_asm_label(a);
  kiln_vm_asm_bind(a, head);
  em_location(e, op, (uint32_t)a->size);
  kiln_vm_asm_emit(a, KILN_VM_OP_LES_I64, cmp, em_reg(e, op, kiln_op_operand(op, 1)), iv);
  kiln_vm_asm_emit(a, KILN_VM_OP_BR_IF, cmp, (int)exit);
  em_ops(e, a, body, imports);
  if (e->err) return;
  em_yield(e, a, op, y, true);
  em_location(e, op, (uint32_t)a->size);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I64, iv, iv, em_reg(e, op, kiln_op_operand(op, 2)));
  kiln_vm_asm_emit(a, KILN_VM_OP_BR, (int)head);
  kiln_vm_asm_bind(a, exit);
}

kiln_error *kiln_vm_emit_function(kiln_op *fn, kiln_vm_imports_t *imports,
                                  kiln_vm_function_code_t *out) {
  memset(out, 0, sizeof *out);
  if (fn->kind != KILN_OP_VM_FUNC || !fn->regions[0].first)
    return kiln_error_new("can only emit a vm.func with a body");
  const kiln_attr *sc = kiln_op_get_attr(fn, "scalar_count");
  const kiln_attr *rc = kiln_op_get_attr(fn, "ref_count");
  if (!sc || !rc || sc->kind != KILN_ATTR_INTEGER || rc->kind != KILN_ATTR_INTEGER)
    return kiln_error_new("@%s has no register counts (run allocate-registers first)",
                          kiln_symbol_name(fn));
  if (sc->i < 0 || sc->i > KILN_VM_MAX_REGISTERS || rc->i < 0 || rc->i > KILN_VM_MAX_REGISTERS)
    return kiln_error_new("@%s: register counts %lld/%lld exceed the VM's %u per bank",
                          kiln_symbol_name(fn), (long long)sc->i, (long long)rc->i,
                          KILN_VM_MAX_REGISTERS);
  kiln_error *err = kiln_vm_signature_of(kiln_op_get_attr(fn, "function_type")->type,
                                         out->signature, sizeof out->signature);
  if (err) return err;
  out->scalar_count = (uint32_t)sc->i;
  out->ref_count = (uint32_t)rc->i;
  em e = {fn, out, 0, NULL};
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  em_ops(&e, &a, fn->regions[0].first, imports);
  if (!e.err && kiln_vm_asm_finish(&a))
    e.err = kiln_error_new("@%s: bytecode assembly failed (operand out of range)", kiln_symbol_name(fn));
  if (e.err) {
    kiln_vm_asm_free(&a);
    kiln_vm_function_code_free(out);
    return e.err;
  }
  out->code = a.code;
  out->size = (uint32_t)a.size;
  a.code = NULL;
  kiln_vm_asm_free(&a);
  return NULL;
}
