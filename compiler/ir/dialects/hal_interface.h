/* Hooks of the hal.interface.* rows in ops.def (prefix hal_interface_). */
#ifndef KILN_IR_DIALECT_HAL_INTERFACE_H
#define KILN_IR_DIALECT_HAL_INTERFACE_H

#endif
