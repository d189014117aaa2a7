/* Hooks of the flow dialect's rows in ops.def (prefix flow_). */
#ifndef KILN_IR_DIALECT_FLOW_H
#define KILN_IR_DIALECT_FLOW_H

#endif
