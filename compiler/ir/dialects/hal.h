/* Hooks of the hal dialect's rows in ops.def (prefix hal_). */
#ifndef KILN_IR_DIALECT_HAL_H
#define KILN_IR_DIALECT_HAL_H

#endif
