/* Translation of memref-level Kiln IR to LLVM IR through the LLVM-C API,
 * following the seed's conventions (ConversionToLLVMDialect, adapted to
 * opaque pointers): scalars map to LLVM scalars, index to i64, n-D
 * vectors to arrays of 1-D vectors; a ranked memref is the descriptor
 * {ptr allocated, ptr aligned, i64 offset, [N x i64] sizes, [N x i64]
 * strides} (rank 0: the first three), an unranked one {i64 rank, ptr};
 * element addresses linearize indices with the strides plus the offset;
 * memref arguments expand into their fields; several results return a
 * struct; public functions get a `_mlir_ciface_NAME` wrapper taking
 * descriptors by pointer.
 *
 * Takes: a builtin.module of func.func on scalars, vectors and memrefs
 * using arith, math (only ops that lower to instructions; run
 * approximate-math first), cf, memref, vector, func.call/return and, in a
 * kernel module, hal.interface.* (scf must have been lowered by
 * scf-to-cf). Guarantees: a module that passes LLVM's verifier, or an
 * error naming the op (with its location) that could not be translated.
 *
 * Kernel modules (the inner module of a hal.executable.variant): every
 * public func.func without arguments and results is an entry point
 * `i32 (ptr dispatch_state, ptr workgroup_state)` returning 0 (see
 * compiler/codegen/llvm_cpu/llvm_cpu.h), and the module gets the export
 * table and kiln_executable_query. Other functions become internal
 * helpers. Internal prefix of this folder: tl_. */
#ifndef KILN_CODEGEN_TO_LLVM_H
#define KILN_CODEGEN_TO_LLVM_H

#include <llvm-c/Core.h>

#include "ir.h"

typedef struct kiln_to_llvm_export {
  const char *name;            /* kernel func.func name */
  uint32_t workgroup_size[3];  /* 0: from kiln.launch or 1 */
  int32_t binding_count;       /* -1: highest binding used + 1 */
  int32_t push_constant_count; /* -1: highest constant used + 1 */
  int64_t readonly_mask;       /* -1: bindings the kernel never writes */
} kiln_to_llvm_export;

typedef struct kiln_to_llvm_options {
  bool kernel_module;       /* translate as a variant's inner module */
  bool emit_c_wrappers;     /* _mlir_ciface_ wrappers (non-kernel only) */
  bool gpu_kernels;         /* kernels for NVPTX (kernel_ptx.c), no export table */
  uint32_t binding_alignment; /* assumed alignment of bindings; 0 = 64 */
  /* Optional export metadata overriding what is derived from the IR. */
  const kiln_to_llvm_export *exports;
  uint32_t export_count;
} kiln_to_llvm_options;

/* Builds a new LLVM module named `name` in `context`. On success *out is
 * owned by the caller (LLVMDisposeModule); on failure *out is NULL and the
 * error says what failed and where. The module is not verified or
 * optimized here (kiln_llvm_cpu_compile does both). */
kiln_error *kiln_to_llvm_translate(kiln_op *module,
                                   const kiln_to_llvm_options *options,
                                   LLVMContextRef context, const char *name,
                                   LLVMModuleRef *out);

/* The export metadata of VARIANT's hal.executable.export ops, in order
 * (binding and push-constant counts and the read-only mask from their
 * attributes, -1 where absent): *out is malloc'ed (the caller frees it). */
kiln_error *kiln_to_llvm_variant_exports(kiln_op *variant, kiln_to_llvm_export **out,
                                         uint32_t *count);
/* What --compile-to=llvm-ir prints for a variant: "; executable @E variant
 * @V (TARGET)" and the module's text, appended to path (NULL or "-":
 * stdout). */
kiln_error *kiln_to_llvm_print_variant(LLVMModuleRef mod, const char *executable,
                                       const char *variant, const char *target, const char *path);

/* The inner builtin.module of the first hal.executable.variant nested in
 * root (by op name), or NULL. */
kiln_op *kiln_to_llvm_find_variant_module(kiln_op *root);

#endif
