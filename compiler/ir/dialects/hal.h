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
bool hal_verify_view_dim(kiln_op *op);
bool hal_verify_check(kiln_op *op);
bool hal_verify_check_shape(kiln_op *op);
bool hal_verify_check_range(kiln_op *op);
/* Holes (KILN_DYNAMIC entries) of integer array attribute `name` of op,
 * 0 when absent. */
uint32_t kiln_hal_holes(const kiln_op *op, const char *name);
/* The !hal.buffer bindings of a hal.command_buffer.dispatch (operands
 * after the command buffer, before the index values). */
uint32_t kiln_hal_dispatch_bindings(const kiln_op *op);
/* Entry k of list `list` ("offsets", "lengths", "constants", "workload",
 * "workgroup_count") of a hal.command_buffer.dispatch: the index operand
 * filling a '?' entry, or NULL with the static value in *value (*value
 * untouched and NULL returned when there is no such entry). */
kiln_value *kiln_hal_dispatch_value(kiln_op *d, const char *list, uint32_t k, int64_t *value);

/* Is t the opaque type !hal.NAME (e.g. "buffer")? */
bool hal_is_type(const kiln_type *t, const char *name);

#endif
