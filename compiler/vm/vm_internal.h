/* Helpers shared by the vm stage's files (prefix vmx_). */
#ifndef KILN_VM_INTERNAL_H
#define KILN_VM_INTERNAL_H

#include "vm_stage.h"

/* A HAL import (format/include/kiln/hal_imports.def) as the compiler
 * lowers to it. */
typedef struct vmx_import {
  kiln_op_kind op;       /* the hal op lowered to it; KILN_OP_COUNT: none */
  const char *name;      /* "hal.buffer.allocate" */
  const char *signature; /* what runtime-min checks, "I_r" */
} vmx_import;
/* The import hal op kind `op` lowers to, or NULL. */
const vmx_import *vmx_hal_import_of(kiln_op_kind op);
/* The HAL import called `name` ("hal.buffer.allocate_uninitialized"), for
 * rows no op kind maps to alone, or NULL. */
const vmx_import *vmx_hal_import_named(const char *name);

/* The VM opcode op (vm dialect) computing arith op `arith` on operands of
 * VM type letter `type` ('i' 'I' 'f' 'F'): the ARITH column of
 * format/include/kiln/vm_opcodes.def. KILN_OP_COUNT when there is none;
 * *known is false when no opcode lists `arith` at all. */
kiln_op_kind vmx_arith_opcode(kiln_op_kind arith, char type, bool *known);

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
