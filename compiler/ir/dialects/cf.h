/* Hooks of the cf dialect's rows in ops.def (prefix cf_). */
#ifndef KILN_IR_DIALECT_CF_H
#define KILN_IR_DIALECT_CF_H

#endif
