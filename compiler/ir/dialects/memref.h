/* Hooks of the memref dialect's rows in ops.def (prefix memref_). */
#ifndef KILN_IR_DIALECT_MEMREF_H
#define KILN_IR_DIALECT_MEMREF_H

#include "../asm.h"

#define MEMREF_HOOKS(X)                                                      \
  X(store) X(prefetch) X(alloc) X(subview) X(reinterpret_cast) X(reshape) X(copy)
#define MEMREF_DECLARE(N)                                                    \
  bool memref_verify_##N(kiln_op *op);                                       \
  bool memref_parse_##N(kiln_parser *p, kiln_op_state *st);                  \
  void memref_print_##N(kiln_printer *pr, const kiln_op *op);
MEMREF_HOOKS(MEMREF_DECLARE)
#undef MEMREF_DECLARE
/* load, dim and cast share their syntax with tensor ops (see memref.def). */
bool memref_verify_load(kiln_op *op);
bool memref_parse_load(kiln_parser *p, kiln_op_state *st);
bool memref_verify_dim(kiln_op *op);
bool memref_verify_cast(kiln_op *op);

/* Strides and offset of a memref type's layout (identity: row-major
 * strides, offset 0); KILN_DYNAMIC where the layout says '?'. strides
 * needs t->rank entries. False when the layout is an affine map that is
 * not the identity (not a strided layout). */
bool kiln_memref_strides(const kiln_type *t, int64_t *strides,
                         int64_t *offset);

#endif
