/* The vm stage: host functions -> VM dialect -> registers -> bytecode.
 *
 * Takes: a module after the hal stage (PIPELINE.md): host func.funcs on
 * !hal.buffer_view / !hal.buffer / !hal.command_buffer values, scalars of
 * index and iN/fN types, hal.* host ops, and hal.executable ops that the
 * stage leaves untouched. Guarantees: after convert-to-vm every host
 * function is a vm.func whose ops mirror the VM opcode table or call a HAL
 * import by its full name and the signature string runtime-min declares
 * for it; after allocate-registers every value carries a register and
 * refs are released right after their last use; kiln_vm_emit_function then
 * turns one vm.func into verified-ready bytecode. */
#ifndef KILN_VM_STAGE_H
#define KILN_VM_STAGE_H

#include <stdint.h>

#include "ir.h"
#include "kiln/module_format.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the passes of passes.def with the IR's pass registry. */
void kiln_vm_register_passes(void);

#define KILN_VM_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_pass_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_VM_PASS

/* ElementType of the module format for a scalar IR type
 * (kiln_fb_ElementType_Unknown when it has none). */
kiln_fb_ElementType_t kiln_vm_element_type(const kiln_type *t);

/* Import table shared by the functions of one module: ordinals in order
 * of first use. */
typedef struct kiln_vm_imports {
  uint32_t count, cap;
  const char **names;      /* interned in the IR context */
  const char **signatures;
} kiln_vm_imports_t;
void kiln_vm_imports_free(kiln_vm_imports_t *im);

/* One source location per call site, pc relative to the function. */
typedef struct kiln_vm_location {
  uint32_t pc;
  const char *file; /* interned, never NULL */
  uint32_t line, col;
  const char *nodes; /* a dispatch's kiln_loc.nodes (interned), else NULL */
} kiln_vm_location_t;

typedef struct kiln_vm_function_code {
  uint8_t *code; /* malloc'ed */
  uint32_t size;
  uint32_t scalar_count, ref_count;
  char signature[72]; /* VM signature string, e.g. "rr_r" */
  kiln_vm_location_t *locations; /* malloc'ed */
  uint32_t location_count;
} kiln_vm_function_code_t;
void kiln_vm_function_code_free(kiln_vm_function_code_t *c);

/* Emits the bytecode of one register-allocated vm.func. Imports it calls
 * are added to *imports. */
kiln_error *kiln_vm_emit_function(kiln_op *vm_func, kiln_vm_imports_t *imports,
                                  kiln_vm_function_code_t *out);

/* The VM signature string of a function type ('r' for refs), or NULL
 * error when a type has no VM register. */
kiln_error *kiln_vm_signature_of(const kiln_type *fn, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* KILN_VM_STAGE_H */
