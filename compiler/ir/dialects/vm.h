/* Hooks of the vm dialect's rows in ops.def (prefix vm_). */
#ifndef KILN_IR_DIALECT_VM_H
#define KILN_IR_DIALECT_VM_H

#endif
