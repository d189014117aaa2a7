/* Internals shared by the hal passes (prefix hl_). Not public (hal.h). */
#ifndef KILN_HL_INTERNAL_H
#define KILN_HL_INTERNAL_H

#include "hal.h"

/* Alignment of every arena slice and allocation (bytes). */
#define HL_ALIGNMENT 64

/* The targets for this module: its session's --target values, else the
 * module's kiln.targets, else {"llvm-cpu"}. Strings are interned in ctx.
 * Errors name a malformed kiln.targets attribute. */
kiln_error *hl_targets(kiln_op *module, const char ***out, uint32_t *n);

/* Verifies module before a pass rewrites it (see fl_require_valid). */
kiln_error *hl_require_valid(kiln_op *module, const char *pass);

/* The walks the hal passes make, after hl_require_valid(module, pass)
 * (whose error they return): fn on each host function that has a body
 * (kiln_each_func), or on each hal.executable.variant of each top-level
 * hal.executable, in order, with its executable. The first error fn
 * returns ends the walk and is returned. */
kiln_error *hl_each_func(kiln_op *module, const char *pass, kiln_func_fn fn, void *user);
typedef kiln_error *(*hl_variant_fn)(kiln_context *ctx, kiln_op *executable, kiln_op *variant,
                                     void *user);
kiln_error *hl_each_variant(kiln_op *module, const char *pass, hl_variant_fn fn, void *user);

/* Top-level ops of the module of the given kind, in order (arena). */
kiln_op **hl_module_ops(kiln_op *module, kiln_op_kind kind, uint32_t *n);
/* The kernel func.func of a variant (inside its builtin.module). */
kiln_op *hl_variant_kernel(kiln_op *variant);

/* Byte size of a static tensor/memref (elements * storage size), or -1. */
int64_t hl_byte_size(const kiln_type *t);
/* The tensor type a !flow.dispatch.tensor<ACCESS:T> kernel argument
 * carries, read off its load/store users; NULL when unused. dims
 * (optional, KILN_MAX_LOOPS entries) receives that load/store's index
 * operands for the dynamic dims, *ndims their count. */
const kiln_type *hl_arg_tensor_type(kiln_value *arg, kiln_value **dims, uint32_t *ndims);
/* memref<shape x elem> with identity layout for a ranked tensor type. */
const kiln_type *hl_memref_for(kiln_context *ctx, const kiln_type *tensor);
/* Identity linalg.generic copying memref src into memref dst, at b. */
void hl_build_copy(kiln_builder *b, kiln_value *src, kiln_value *dst);

/* Does structured op `op` read the init of its output j (a reduction's
 * accumulator, a body using the output's block argument, an output map
 * that leaves elements unwritten)? */
bool hl_init_read(kiln_op *op, uint32_t j);
/* The kernel's fully written bindings (written.c): bit i set when the
 * kernel (flow's tensor form) stores binding i from a value that depends
 * on no undefined contents. */
int64_t hl_written_mask(kiln_op *kernel);
/* Result bindings stored as windows of defined values in a tensor.empty
 * (written.c): the rest of the binding is left as it was. */
int64_t hl_window_mask(kiln_op *kernel);

/* The input binding (below num_inputs) that result binding out_binding of
 * a kernel in memref form may share bytes with (inplace.c): one
 * elementwise op reads each of its elements at the position it then
 * writes, and nothing else reads it; -1 when none. */
int hl_inplace_input(kiln_op *kernel, uint32_t out_binding, uint32_t num_inputs);

const kiln_type *hl_type(kiln_context *ctx, const char *name); /* !hal.NAME */
kiln_named_attr hl_named(kiln_context *ctx, const char *name, const kiln_attr *v);
const kiln_attr *hl_i32(kiln_context *ctx, int64_t v);
const kiln_attr *hl_i64(kiln_context *ctx, int64_t v);

#endif
