/* Hooks of the vm dialect's rows in ops.def (prefix vm_), and helpers the
 * vm stage shares with them. */
#ifndef KILN_IR_DIALECT_VM_H
#define KILN_IR_DIALECT_VM_H

bool vm_verify_func(kiln_op *op);
bool vm_verify_ret(kiln_op *op);
bool vm_verify_call_import(kiln_op *op);
bool vm_verify_clear_ref(kiln_op *op);
bool vm_verify_for(kiln_op *op);
bool vm_verify_yield(kiln_op *op);
bool vm_verify_if(kiln_op *op);
bool vm_verify_const(kiln_op *op);
bool vm_verify_arith(kiln_op *op);

bool vm_parse_const(kiln_parser *p, kiln_op_state *st);
bool vm_parse_arith(kiln_parser *p, kiln_op_state *st);
bool vm_parse_call_import(kiln_parser *p, kiln_op_state *st);
void vm_print_const(kiln_printer *pr, const kiln_op *op);
void vm_print_arith(kiln_printer *pr, const kiln_op *op);
void vm_print_call_import(kiln_printer *pr, const kiln_op *op);

#endif
