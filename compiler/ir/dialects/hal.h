/* Hooks of the hal dialect's rows in ops.def (prefix hal_). */
#ifndef KILN_IR_DIALECT_HAL_H
#define KILN_IR_DIALECT_HAL_H

bool hal_verify_executable(kiln_op *op);
bool hal_verify_variant(kiln_op *op);
bool hal_verify_export(kiln_op *op);
bool hal_verify_rodata(kiln_op *op);
bool hal_verify_view_attrs(kiln_op *op);
bool hal_verify_buffer_rodata(kiln_op *op);
bool hal_verify_allocate(kiln_op *op);
bool hal_verify_dispatch(kiln_op *op);

/* Is t the opaque type !hal.NAME (e.g. "buffer")? */
bool hal_is_type(const kiln_type *t, const char *name);

#endif
