/* Hooks of the op table (ops.def), implemented in dialects/<dialect>.c,
 * and dialect helpers the printer and verifier use (prefix ir_). */
#ifndef KILN_IR_DIALECTS_H
#define KILN_IR_DIALECTS_H

#include "../asm.h"
#include "../ir_internal.h"

bool arith_verify_cast(kiln_op *op);
bool arith_verify_cmp(kiln_op *op);
bool arith_verify_constant(kiln_op *op);
bool arith_verify_float(kiln_op *op);
bool arith_verify_int(kiln_op *op);
bool arith_verify_select(kiln_op *op);
bool builtin_verify_module(kiln_op *op);
bool func_verify_call(kiln_op *op);
bool func_verify_func(kiln_op *op);
bool func_verify_return(kiln_op *op);
/* linalg_iteration.c: attribute and operand readers the verifier shares. */
int64_t ir_linalg_hw_attr(const kiln_op *op, const char *name, int i);
int ir_linalg_rank_of(const kiln_op *op, uint32_t i);
bool linalg_verify_broadcast(kiln_op *op);
bool linalg_verify_generic(kiln_op *op);
bool linalg_verify_index(kiln_op *op);
bool linalg_verify_map(kiln_op *op);
bool linalg_verify_named(kiln_op *op);
bool linalg_verify_reduce(kiln_op *op);
bool linalg_verify_transpose(kiln_op *op);
bool linalg_verify_yield(kiln_op *op);
bool scf_verify_for(kiln_op *op);
bool scf_verify_if(kiln_op *op);
bool scf_verify_yield(kiln_op *op);
bool tensor_verify_cast(kiln_op *op);
bool tensor_verify_bitcast(kiln_op *op);
bool tensor_verify_concat(kiln_op *op);
bool tensor_verify_dim(kiln_op *op);
bool tensor_verify_empty(kiln_op *op);
bool tensor_verify_extract(kiln_op *op);
bool tensor_verify_extract_slice(kiln_op *op);
bool tensor_verify_from_elements(kiln_op *op);
bool tensor_verify_insert(kiln_op *op);
bool tensor_verify_insert_slice(kiln_op *op);
bool tensor_verify_pad(kiln_op *op);
bool tensor_verify_reshape(kiln_op *op);
bool tensor_verify_splat(kiln_op *op);

bool arith_parse_binary(kiln_parser *p, kiln_op_state *st);
bool arith_parse_cmp(kiln_parser *p, kiln_op_state *st);
bool arith_parse_constant(kiln_parser *p, kiln_op_state *st);
bool arith_parse_select(kiln_parser *p, kiln_op_state *st);
bool arith_parse_unary(kiln_parser *p, kiln_op_state *st);
bool arith_parse_ternary(kiln_parser *p, kiln_op_state *st);
bool builtin_parse_cast(kiln_parser *p, kiln_op_state *st);
bool builtin_parse_module(kiln_parser *p, kiln_op_state *st);
bool func_parse_call(kiln_parser *p, kiln_op_state *st);
bool func_parse_func(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_broadcast(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_generic(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_index(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_map(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_named(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_reduce(kiln_parser *p, kiln_op_state *st);
bool linalg_parse_transpose(kiln_parser *p, kiln_op_state *st);
bool scf_parse_for(kiln_parser *p, kiln_op_state *st);
bool scf_parse_if(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_concat(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_dim(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_empty(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_extract(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_extract_slice(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_from_elements(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_insert(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_insert_slice(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_pad(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_reshape(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_splat(kiln_parser *p, kiln_op_state *st);
bool tensor_parse_yield(kiln_parser *p, kiln_op_state *st);

void arith_print_binary(kiln_printer *pr, const kiln_op *op);
void arith_print_cmp(kiln_printer *pr, const kiln_op *op);
void arith_print_constant(kiln_printer *pr, const kiln_op *op);
void arith_print_select(kiln_printer *pr, const kiln_op *op);
void arith_print_unary(kiln_printer *pr, const kiln_op *op);
void arith_print_ternary(kiln_printer *pr, const kiln_op *op);
void builtin_print_cast(kiln_printer *pr, const kiln_op *op);
void builtin_print_module(kiln_printer *pr, const kiln_op *op);
void func_print_call(kiln_printer *pr, const kiln_op *op);
void func_print_func(kiln_printer *pr, const kiln_op *op);
void linalg_print_broadcast(kiln_printer *pr, const kiln_op *op);
void linalg_print_generic(kiln_printer *pr, const kiln_op *op);
void linalg_print_index(kiln_printer *pr, const kiln_op *op);
void linalg_print_map(kiln_printer *pr, const kiln_op *op);
void linalg_print_named(kiln_printer *pr, const kiln_op *op);
void linalg_print_reduce(kiln_printer *pr, const kiln_op *op);
void linalg_print_transpose(kiln_printer *pr, const kiln_op *op);
void scf_print_for(kiln_printer *pr, const kiln_op *op);
void scf_print_if(kiln_printer *pr, const kiln_op *op);
void tensor_print_concat(kiln_printer *pr, const kiln_op *op);
void tensor_print_dim(kiln_printer *pr, const kiln_op *op);
void tensor_print_empty(kiln_printer *pr, const kiln_op *op);
void tensor_print_extract_slice(kiln_printer *pr, const kiln_op *op);
void tensor_print_from_elements(kiln_printer *pr, const kiln_op *op);
void tensor_print_insert(kiln_printer *pr, const kiln_op *op);
void tensor_print_insert_slice(kiln_printer *pr, const kiln_op *op);
void tensor_print_pad(kiln_printer *pr, const kiln_op *op);
void tensor_print_reshape(kiln_printer *pr, const kiln_op *op);
void tensor_print_splat(kiln_printer *pr, const kiln_op *op);
void tensor_print_yield(kiln_printer *pr, const kiln_op *op);

/* Verifier helpers (verify_util.c). ir_type_error emits "WHAT, but got
 * 'T'" and returns false; ir_count_dynamic counts the KILN_DYNAMIC entries
 * of a dense array (0 for anything else); ir_operands_are_index checks
 * operands [from, to) ("operand #i must be of index type"). */
bool ir_type_error(const kiln_op *op, const char *what, const kiln_type *t);
#define ir_count_dynamic kiln_attr_num_dynamic
#define ir_count_dynamic_dims kiln_type_num_dynamic_dims
bool ir_operands_are_index(kiln_op *op, uint32_t from, uint32_t to);
/* flow.check.range / hal.check.range: index operands v, lo, hi; a string
 * 'what' and a non-negative 'dim'. */
bool ir_verify_check_range(kiln_op *op);

/* Name the printer gives entry-block argument i of region `region` of op
 * ("in", "out", "init" for linalg ops), or NULL for the default %argN. */
const char *ir_block_arg_name(const kiln_op *op, uint32_t region, uint32_t i);

#include "cf.h"
#include "memref.h"
#include "vector.h"
#include "flow.h"
#include "hal.h"
#include "hal_interface.h"
#include "vm.h"

#endif
