/* Hooks of the cf dialect's rows in ops.def (prefix cf_). */
#ifndef KILN_IR_DIALECT_CF_H
#define KILN_IR_DIALECT_CF_H

#include "../asm.h"

bool cf_verify_br(kiln_op *op);
bool cf_parse_br(kiln_parser *p, kiln_op_state *st);
void cf_print_br(kiln_printer *pr, const kiln_op *op);
bool cf_verify_cond_br(kiln_op *op);
bool cf_parse_cond_br(kiln_parser *p, kiln_op_state *st);
void cf_print_cond_br(kiln_printer *pr, const kiln_op *op);

/* Operands of a cf.cond_br passed to its true (which 0) or false (1)
 * successor: *first and *count index the op's operand list. */
void kiln_cf_cond_br_args(const kiln_op *op, int which, uint32_t *first,
                          uint32_t *count);

#endif
