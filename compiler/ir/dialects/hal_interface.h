/* Hooks of the hal.interface.* rows in ops.def (prefix hal_interface_). */
#ifndef KILN_IR_DIALECT_HAL_INTERFACE_H
#define KILN_IR_DIALECT_HAL_INTERFACE_H

#include "../asm.h"

bool hal_interface_verify(kiln_op *op);
bool hal_interface_parse(kiln_parser *p, kiln_op_state *st);
void hal_interface_print(kiln_printer *pr, const kiln_op *op);
/* hal.interface.shuffle: f32/i32 operand and result of one type, width
 * 32, offset in [1, width). */
bool hal_interface_shuffle_verify(kiln_op *op);

/* The op's selector: binding index, push-constant index or dimension;
 * -1 when absent (the verifier rejects that). */
int64_t kiln_hal_interface_selector(const kiln_op *op);

#endif
