/* Internals of the translation to LLVM IR (prefix tl_): the translation
 * state, the value map, and the entry points of each concern's file. */
#ifndef KILN_CODEGEN_TL_INTERNAL_H
#define KILN_CODEGEN_TL_INTERNAL_H

#include "llvm_cpu.h"
#include "to_llvm.h"

#include <stdint.h>
#include <stdlib.h>

#define TL_MAX_RANK 16

/* kiln_ptr_map_put for the translation's maps; out of memory aborts
 * (nothing sane to do halfway through building an LLVM module). */
static inline void tl_map_put(kiln_ptr_map *m, const void *key, void *val) {
  if (!kiln_ptr_map_put(m, key, val)) abort();
}

/* Per-kernel facts gathered while translating its body. */
typedef struct tl_kernel_info {
  int32_t max_binding, max_constant;
  uint32_t written_mask;
} tl_kernel_info;

typedef struct tl {
  kiln_context *kctx;
  const kiln_to_llvm_options *opts;
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTypeRef i1, i8, i32, i64, ptr, vd;
  kiln_error *err;
  kiln_ptr_map funcs;             /* func.func op -> LLVM function */
  /* The function being translated. */
  LLVMValueRef fn;
  LLVMBasicBlockRef entry;  /* allocas go here */
  kiln_ptr_map values;            /* kiln_value -> LLVMValueRef */
  kiln_ptr_map blocks;            /* kiln_block -> LLVMBasicBlockRef */
  bool in_kernel;
  LLVMValueRef dispatch, workgroup;
  kiln_llvm_cpu_abi_t abi;
  tl_kernel_info kinfo;
  kiln_ptr_map kinfos;             /* kernel func.func -> tl_kernel_info */
  uint32_t unique;          /* for helper names */
} tl;

/* Records the first error (with op's location and name); returns NULL so
 * handlers can `return tl_fail(...)`. */
LLVMValueRef tl_fail(tl *t, const kiln_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The LLVM value of v (an error naming op when it is missing). */
LLVMValueRef tl_get(tl *t, const kiln_op *op, kiln_value *v);
void tl_set(tl *t, kiln_value *v, LLVMValueRef x);
LLVMValueRef tl_operand(tl *t, const kiln_op *op, uint32_t i);
LLVMValueRef tl_i64(tl *t, int64_t v);
LLVMValueRef tl_intrinsic(tl *t, const char *name, LLVMTypeRef *overloads,
                          unsigned n, LLVMTypeRef *fn_type);
LLVMValueRef tl_call_intrinsic(tl *t, const char *name, LLVMTypeRef overload,
                               LLVMValueRef *args, unsigned n);

/* types.c */
LLVMTypeRef tl_type(tl *t, const kiln_type *ty); /* NULL if unsupported */
LLVMTypeRef tl_desc_type(tl *t, uint32_t rank);
LLVMTypeRef tl_unranked_type(tl *t);
/* Bytes of a scalar element type in memory. */
uint64_t tl_elem_size(tl *t, const kiln_type *ty);

/* descriptors.c: fields of a descriptor value (static values folded to
 * constants when the memref type knows them). */
LLVMValueRef tl_desc_field(tl *t, LLVMValueRef d, unsigned field);
LLVMValueRef tl_desc_size(tl *t, LLVMValueRef d, const kiln_type *mt, uint32_t i);
LLVMValueRef tl_desc_stride(tl *t, LLVMValueRef d, const kiln_type *mt, uint32_t i);
LLVMValueRef tl_desc_offset(tl *t, LLVMValueRef d, const kiln_type *mt);
/* A descriptor from its parts (sizes/strides: rank values each). */
LLVMValueRef tl_desc_make(tl *t, uint32_t rank, LLVMValueRef allocated,
                          LLVMValueRef aligned, LLVMValueRef offset,
                          LLVMValueRef *sizes, LLVMValueRef *strides);
/* A descriptor over a plain pointer for type mt (static shape/layout, or
 * dynamic sizes given in dyn_sizes for the '?' dims in order). */
LLVMValueRef tl_desc_over(tl *t, const kiln_op *op, const kiln_type *mt,
                          LLVMValueRef base, LLVMValueRef *dyn_sizes);
/* Address of element [idx...] of memref value d of type mt. */
LLVMValueRef tl_elem_ptr(tl *t, const kiln_op *op, LLVMValueRef d,
                         const kiln_type *mt, LLVMValueRef *idx);
/* Linearized element offset (offset + sum idx_i * stride_i). */
LLVMValueRef tl_linear_index(tl *t, LLVMValueRef d, const kiln_type *mt,
                             LLVMValueRef *idx);
enum { TL_DESC_ALLOCATED, TL_DESC_ALIGNED, TL_DESC_OFFSET, TL_DESC_SIZES,
       TL_DESC_STRIDES };

/* kernel.c: the LLVM values of a hal.interface.binding's dynamic dims
 * (its index operands) into dims (TL_MAX_RANK entries). */
bool tl_binding_dims(tl *t, kiln_op *op, LLVMValueRef *dims);

/* func.c */
bool tl_declare_funcs(tl *t, kiln_op *module);
bool tl_translate_funcs(tl *t, kiln_op *module);
bool tl_emit_c_wrappers(tl *t, kiln_op *module);
void tl_func_return(tl *t, kiln_op *op);
void tl_func_call(tl *t, kiln_op *op);
/* Translates the blocks of a function body whose LLVM blocks exist and
 * whose entry block args are mapped. */
bool tl_translate_body(tl *t, kiln_region *body);

/* cf.c */
void tl_cf_br(tl *t, kiln_op *op);
void tl_cf_cond_br(tl *t, kiln_op *op);
/* Creates the LLVM blocks of a region in t->fn, with a phi per argument
 * of every block but the entry (whose args the caller maps); sets
 * t->entry. Branches add their incoming values as they are translated. */
void tl_cf_create_blocks(tl *t, kiln_region *r);
/* An alloca in the function's entry block (so loops do not grow the
 * stack). */
LLVMValueRef tl_entry_alloca(tl *t, LLVMTypeRef ty, LLVMValueRef count,
                             unsigned align);

/* arith.c, math.c, memref.c, vector.c, kernel.c: one handler per op. */
void tl_arith(tl *t, kiln_op *op);
void tl_math(tl *t, kiln_op *op);
void tl_memref(tl *t, kiln_op *op);
void tl_vector(tl *t, kiln_op *op);
void tl_kernel_op(tl *t, kiln_op *op);
/* Applies fn to each 1-D part of n-D vector operands (arrays of vectors):
 * fn gets the parts of every operand and returns the result part. */
typedef LLVMValueRef (*tl_part_fn)(tl *t, kiln_op *op, LLVMValueRef *parts,
                                   LLVMTypeRef part_type);
LLVMValueRef tl_map_parts(tl *t, kiln_op *op, LLVMValueRef *operands,
                          unsigned n, const kiln_type *result_type,
                          tl_part_fn fn);
/* Splat of scalar s to LLVM vector type vt (1-D). */
LLVMValueRef tl_splat(tl *t, LLVMValueRef s, LLVMTypeRef vt);

/* kernel.c */
bool tl_is_kernel(const kiln_op *func);
bool tl_kernel_begin(tl *t, kiln_op *func, LLVMValueRef *fn);
kiln_error *tl_kernel_emit_table(tl *t, kiln_op *module,
                                 kiln_llvm_cpu_export_t *exports,
                                 uint32_t count);
void tl_kernel_export_of(tl *t, kiln_op *func, LLVMValueRef fn,
                         kiln_llvm_cpu_export_t *out);

/* kernel_ptx.c: the NVPTX kernel ABI (options.gpu_kernels). tl_gpu_op
 * handles thread.id/barrier (errors on CPU kernels). */
bool tl_ptx_kernel_begin(tl *t, kiln_op *func, LLVMValueRef *fn);
void tl_ptx_kernel_op(tl *t, kiln_op *op);
void tl_gpu_op(tl *t, kiln_op *op);
/* memref.alloca in memory space 3: a static shared-memory array. */
void tl_ptx_shared_alloca(tl *t, kiln_op *op);

/* translate.c: one op. */
void tl_op(tl *t, kiln_op *op);

#endif
