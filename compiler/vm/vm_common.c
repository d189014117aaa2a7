/* Small facts of the vm stage: the HAL import and VM opcode tables of
 * format/ (shared with runtime-min, so a signature or an opcode cannot
 * drift) as the compiler lowers to them, VM type letters, signatures,
 * element type codes, and the pass registration. */
#include <stdlib.h>
#include <string.h>

#include "vm_internal.h"

/* Rows of the format tables whose op column is NONE. */
#define KILN_OP_NONE KILN_OP_COUNT
#define KILN_OP_ARITH_NONE KILN_OP_COUNT

static const vmx_import vmx_hal_imports[] = {
#define KILN_HAL_IMPORT(C_NAME, NAME, SIGNATURE, HAL_OP, SEMANTICS) {KILN_OP_##HAL_OP, NAME, SIGNATURE},
#include "kiln/hal_imports.def"
};

const vmx_import *vmx_hal_import_of(kiln_op_kind op) {
  for (size_t i = 0; op != KILN_OP_COUNT && i < sizeof vmx_hal_imports / sizeof vmx_hal_imports[0]; i++)
    if (vmx_hal_imports[i].op == op) return &vmx_hal_imports[i];
  return NULL;
}

const vmx_import *vmx_hal_import_named(const char *name) {
  for (size_t i = 0; i < sizeof vmx_hal_imports / sizeof vmx_hal_imports[0]; i++)
    if (!strcmp(vmx_hal_imports[i].name, name)) return &vmx_hal_imports[i];
  return NULL;
}

static const struct {
  kiln_op_kind arith, vm;
  char type; /* the opcode's result (and operand) type letter */
} vmx_arith[] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_OP_ARITH_##ARITH, KILN_OP_VM_##NAME, VMX_TL_##OUT},
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_OP_ARITH_##ARITH, KILN_OP_VM_##NAME, VMX_TL_##OUT},
#define VMX_TL_i32 'i'
#define VMX_TL_i64 'I'
#define VMX_TL_f32 'f'
#define VMX_TL_f64 'F'
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
};

kiln_op_kind vmx_arith_opcode(kiln_op_kind arith, char type, bool *known) {
  *known = false;
  for (size_t i = 0; arith != KILN_OP_COUNT && i < sizeof vmx_arith / sizeof vmx_arith[0]; i++) {
    if (vmx_arith[i].arith != arith) continue;
    *known = true;
    if (vmx_arith[i].type == type) return vmx_arith[i].vm;
  }
  return KILN_OP_COUNT;
}

char vmx_type_letter(const kiln_type *t) {
  switch (t->kind) {
  case KILN_TYPE_OPAQUE: return 'r';
  case KILN_TYPE_F32: return 'f';
  case KILN_TYPE_F64: return 'F';
  case KILN_TYPE_INTEGER:
    return t->width == 32 ? 'i' : t->width == 64 ? 'I' : 0;
  default: return 0;
  }
}

kiln_error *kiln_vm_signature_of(const kiln_type *fn, char *buf, size_t cap) {
  size_t n = 0;
  const uint32_t total = fn->num_inputs + fn->num_results;
  for (uint32_t i = 0; i <= total; i++) {
    if (n + 2 > cap) return kiln_error_new("function signature too long for the VM");
    if (i == fn->num_inputs) buf[n++] = '_';
    if (i == total) break;
    const char c = vmx_type_letter(fn->types[i]);
    if (!c) {
      char *s = kiln_type_to_string(fn->types[i]);
      kiln_error *e = kiln_error_new("type '%s' has no VM register", s ? s : "?");
      free(s);
      return e;
    }
    buf[n++] = c;
  }
  buf[n] = 0;
  return NULL;
}

kiln_fb_ElementType_t kiln_vm_element_type(const kiln_type *t) {
  switch (t->kind) {
  case KILN_TYPE_F16: return kiln_fb_ElementType_F16;
  case KILN_TYPE_BF16: return kiln_fb_ElementType_BF16;
  case KILN_TYPE_F32: return kiln_fb_ElementType_F32;
  case KILN_TYPE_F64: return kiln_fb_ElementType_F64;
  case KILN_TYPE_INDEX: return kiln_fb_ElementType_I64;
  case KILN_TYPE_INTEGER: {
    const bool u = t->sign == KILN_UNSIGNED;
    switch (t->width) {
    case 1: return kiln_fb_ElementType_I1;
    case 8: return u ? kiln_fb_ElementType_U8 : kiln_fb_ElementType_I8;
    case 16: return u ? kiln_fb_ElementType_U16 : kiln_fb_ElementType_I16;
    case 32: return u ? kiln_fb_ElementType_U32 : kiln_fb_ElementType_I32;
    case 64: return u ? kiln_fb_ElementType_U64 : kiln_fb_ElementType_I64;
    default: return kiln_fb_ElementType_Unknown;
    }
  }
  case KILN_TYPE_OPAQUE: /* !kiln.str: text, host-side only */
    return !strcmp(t->dialect, "kiln") && !strcmp(t->body, "str") ? kiln_fb_ElementType_STR
                                                                   : kiln_fb_ElementType_Unknown;
  default: return kiln_fb_ElementType_Unknown;
  }
}

void kiln_vm_register_passes(void) {
#define KILN_VM_PASS(ID, NAME, DESCRIPTION)                                      \
  {                                                                              \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_pass_##ID, NULL, \
                                        KILN_PASS_MODULE};                       \
    kiln_pass_register(&info);                                                   \
  }
#include "passes.def"
#undef KILN_VM_PASS
}
