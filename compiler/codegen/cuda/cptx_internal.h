/* Helpers shared by the files of the cuda back end (prefix cptx_). Errors
 * are the compiler's kiln_error, like the llvm-cpu back end's. */
#ifndef KILN_CODEGEN_CUDA_INTERNAL_H
#define KILN_CODEGEN_CUDA_INTERNAL_H

#include "cuda_ptx.h"

#define CPTX_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Largest static shared memory one block may declare (PTX, every SM). */
#define CPTX_MAX_STATIC_SHARED 49152u

/* Registers LLVM's NVPTX back end, once per process, thread-safely. */
void cptx_initialize_llvm(void);

/* Rejects calls of functions the module does not define, other than
 * intrinsics NVPTX selects (cuda_libm_intrinsics.def lists the ones it
 * cannot), naming the first offender. */
kiln_error *cptx_check_callees(LLVMModuleRef module);

/* Rejects instructions NVPTX cannot lower (instructions.c): soft-float
 * types, float <-> wider-than-64-bit integer conversions, dynamically
 * sized allocas; names the function. */
kiln_error *cptx_check_instructions(LLVMModuleRef module);

/* Gives FN the ptx_kernel calling convention and, unless present, the
 * !nvvm.annotations "kernel" entry. */
void cptx_mark_kernel(LLVMModuleRef module, LLVMValueRef fn);

/* The annotation node !{ptr fn, !"key", i32 value} operands of
 * !nvvm.annotations, visited in order; visit returns false to stop. */
typedef bool (*cptx_annotation_fn)(LLVMValueRef fn, const char *key,
                                   size_t key_len, LLVMValueRef value,
                                   void *arg);
void cptx_each_annotation(LLVMModuleRef module, cptx_annotation_fn visit,
                          void *arg);

#endif /* KILN_CODEGEN_CUDA_INTERNAL_H */
