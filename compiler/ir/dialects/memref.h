/* Hooks of the memref dialect's rows in ops.def (prefix memref_). */
#ifndef KILN_IR_DIALECT_MEMREF_H
#define KILN_IR_DIALECT_MEMREF_H

#endif
