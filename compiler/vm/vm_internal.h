/* Helpers shared by the vm stage's files (prefix vmx_). */
#ifndef KILN_VM_INTERNAL_H
#define KILN_VM_INTERNAL_H

#include "vm_stage.h"

/* Signature string of HAL import `name` as runtime-min declares it
 * (runtime-min/src/hal_imports.def), or NULL when there is no such import. */
const char *vmx_hal_import_signature(const char *name);

/* Register-bank facts of a VM value type. */
static inline bool vmx_is_ref(const kiln_type *t) {
  return t->kind == KILN_TYPE_OPAQUE;
}
static inline uint32_t vmx_slots(const kiln_type *t) {
  return kiln_type_bitwidth(t) > 32 ? 2u : 1u;
}
/* 'i' 'I' 'f' 'F' 'r', or 0 when no register holds t. */
char vmx_type_letter(const kiln_type *t);

#endif
