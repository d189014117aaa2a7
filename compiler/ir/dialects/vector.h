/* Hooks of the vector dialect's rows in ops.def (prefix vector_). */
#ifndef KILN_IR_DIALECT_VECTOR_H
#define KILN_IR_DIALECT_VECTOR_H

#endif
