/* The back end of the cuda code generator: from an LLVM module (built
 * through the LLVM-C API) to PTX text for one SM version, plus the facts
 * the runtime needs about each kernel (name, block size, shared memory,
 * binding and push-constant counts).
 *
 * The steps, in the order kiln_ptx_compile runs them:
 *   target    parse "cuda:sm_XX", create the NVPTX TargetMachine
 *   abi       kernel signatures, launch-bound annotations, thread/block
 *             ids, barriers, shared memory, warp shuffles (caller)
 *   verify    LLVM's verifier, reported as a status, never an abort
 *   prepare   triple, data layout, kernel checks, linkage, and the checks
 *             that keep LLVM from aborting: instructions, callees
 *   optimize  LLVM's default<O3> pipeline (with NVPTX's own passes)
 *   info      per-kernel metadata, read off the optimized module
 *   emit      PTX text to memory
 *
 * Public prefix kiln_ptx_ (the runtime's CUDA device already owns
 * kiln_cuda_); internal prefix of this folder: cptx_.
 *
 * Errors are the compiler's kiln_error (NULL on success, otherwise an
 * owned message freed with kiln_error_free). What prepare accepts reaches LLVM's NVPTX
 * code generator without the aborts and exits it has for IR it cannot
 * lower (libm calls, soft float), as far as those are known (see
 * cuda_libm_intrinsics.def, callees.c, instructions.c). Not covered yet:
 * an llvm.nvvm.* intrinsic that needs a newer SM than the target's, which
 * LLVM refuses in instruction selection by aborting; the code generator
 * must only use those the target SM has. */
#ifndef KILN_CODEGEN_CUDA_PTX_H
#define KILN_CODEGEN_CUDA_PTX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "kiln_error.h"

/*------------------------------------------------------- errors, bytes */

/* Owned bytes (PTX or LLVM IR text). */
typedef struct kiln_ptx_bytes {
  uint8_t *data;
  size_t size;
} kiln_ptx_bytes_t;

void kiln_ptx_bytes_free(kiln_ptx_bytes_t *bytes);

/*---------------------------------------------------------------- target */

typedef struct kiln_ptx_target {
  const char *sm;          /* "sm_80": LLVM's CPU name and PTX's .target */
  uint32_t sm_version;     /* 80; 90 for sm_90a */
  bool arch_specific;      /* sm_90a: runs on exactly that architecture */
  uint32_t ptx_version;    /* PTX ISA version * 10: 70 is ".version 7.0" */
  const char *triple;      /* nvptx64-nvidia-cuda */
  const char *features;    /* LLVM feature string, e.g. "+ptx70" */
} kiln_ptx_target_t;

/* Parses "cuda:sm_XX". Unknown SM versions are errors listing the valid
 * ones. The strings point into static tables: nothing to release. */
kiln_error *kiln_ptx_target_parse(const char *text,
                                  kiln_ptx_target_t *out);

/* "sm_75, sm_80, ..." (static). */
const char *kiln_ptx_valid_sms(void);

/* An NVPTX TargetMachine for the target at optimization level O3. The
 * caller disposes it with LLVMDisposeTargetMachine. */
kiln_error *kiln_ptx_target_machine_create(const kiln_ptx_target_t *target,
                                           LLVMTargetMachineRef *out);

/*---------------------------------------------------------------- ABI */

/* NVPTX address spaces. */
enum {
  KILN_PTX_ADDRSPACE_GENERIC = 0,
  KILN_PTX_ADDRSPACE_GLOBAL = 1,
  KILN_PTX_ADDRSPACE_SHARED = 3,
};

/* Types used by the helpers, in one context. */
typedef struct kiln_ptx_abi {
  LLVMContextRef context;
  LLVMTypeRef void_type, i1, i32, i64, f32;
  LLVMTypeRef ptr;        /* generic */
  LLVMTypeRef global_ptr; /* ptr addrspace(1): bindings */
  LLVMTypeRef shared_ptr; /* ptr addrspace(3): shared memory */
} kiln_ptx_abi_t;

void kiln_ptx_abi_init(kiln_ptx_abi_t *abi, LLVMContextRef context);

/* One kernel's interface; mirrors what DESIGN.md §2 says a dispatch
 * passes: the binding pointers, then the 32-bit push constants. */
typedef struct kiln_ptx_kernel_desc {
  const char *name;
  uint32_t binding_count;
  uint32_t push_constant_count;
  uint32_t readonly_binding_mask; /* bit i: binding i is only read */
  uint32_t binding_align;         /* bytes, a power of two; 0/1: none */
  uint32_t aliased_binding_mask;  /* bit i: binding i may overlap another */
} kiln_ptx_kernel_desc_t;

/* Adds a kernel definition (no body yet):
 *   void NAME(ptr addrspace(1) noalias nocapture noundef align A %b0, ...,
 *             i32 noundef %pc0, ...)
 * with the ptx_kernel calling convention and the !nvvm.annotations
 * "kernel" entry (LLVM 19's NVPTX back end honours either; both keep the
 * module unambiguous for tools). A binding is noalias unless its bit is
 * in aliased_binding_mask: the HAL stage knows which bindings of a
 * dispatch share memory (e.g. an in-place update) and must say so. A
 * read-only binding is also readonly; with noalias that lets NVPTX use the
 * non-coherent load path (ld.global.nc). Checks: non-empty name not yet
 * in the module, binding_count <= 32, mask bits only below binding_count,
 * binding_align a power of two. */
kiln_error *kiln_ptx_abi_add_kernel(const kiln_ptx_abi_t *abi,
                                    LLVMModuleRef module,
                                    const kiln_ptx_kernel_desc_t *desc,
                                    LLVMValueRef *out);

/* Launch bounds, as !nvvm.annotations: MAX becomes PTX .maxntid (launch
 * with at most that many threads per dimension), REQUIRED becomes
 * .reqntid (launch with exactly that block). A kernel gets at most one of
 * the two, once. Checks CUDA's limits: every dimension >= 1, x and y <=
 * 1024, z <= 64, x*y*z <= 1024. */
typedef enum kiln_ptx_block_bound {
  KILN_PTX_BLOCK_MAX,
  KILN_PTX_BLOCK_REQUIRED,
} kiln_ptx_block_bound_t;

kiln_error *kiln_ptx_abi_set_block_size(const kiln_ptx_abi_t *abi,
                                        LLVMModuleRef module,
                                        LLVMValueRef kernel,
                                        kiln_ptx_block_bound_t bound,
                                        const uint32_t size[3]);

/* The launch bound set on KERNEL, if any: returns false when none. */
bool kiln_ptx_abi_get_block_size(LLVMModuleRef module, LLVMValueRef kernel,
                                 kiln_ptx_block_bound_t *bound,
                                 uint32_t size[3]);

/* Whether FN is a kernel (ptx_kernel calling convention or an
 * nvvm.annotations "kernel" entry). */
bool kiln_ptx_is_kernel(LLVMModuleRef module, LLVMValueRef fn);

/*------------------------------------------------------ in-kernel builders */

/* PTX special registers, read as i32 (llvm.nvvm.read.ptx.sreg.*). */
typedef enum kiln_ptx_sreg {
#define CPTX_SREG(ID, PTX) KILN_PTX_SREG_##ID,
#include "cuda_sregs.def"
#undef CPTX_SREG
  KILN_PTX_SREG_COUNT
} kiln_ptx_sreg_t;

/* threadIdx/blockIdx/blockDim/gridDim.{x,y,z}; dim must be < 3. */
LLVMValueRef kiln_ptx_read_sreg(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                                kiln_ptx_sreg_t reg, uint32_t dim);

/* __syncthreads(): every thread of the block waits here and the shared
 * memory writes before it are visible after it (llvm.nvvm.barrier0). */
void kiln_ptx_barrier(const kiln_ptx_abi_t *abi, LLVMBuilderRef b);

/* Warp shuffles over the full 32-lane warp (all lanes must take part):
 * value is i32 or float; lane is the source lane (IDX), a lane delta (UP,
 * DOWN) or an xor mask (XOR). A lane whose source is outside the warp
 * keeps its own value. */
typedef enum kiln_ptx_shuffle {
  KILN_PTX_SHUFFLE_IDX,
  KILN_PTX_SHUFFLE_UP,
  KILN_PTX_SHUFFLE_DOWN,
  KILN_PTX_SHUFFLE_XOR,
} kiln_ptx_shuffle_t;

LLVMValueRef kiln_ptx_shuffle(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                              kiln_ptx_shuffle_t kind, LLVMValueRef value,
                              LLVMValueRef lane);

/* The reduction of VALUE over the 32 lanes of the warp with the binary
 * opcode OP (LLVMAdd, LLVMFAdd, LLVMMul, LLVMFMul, LLVMAnd, LLVMOr,
 * LLVMXor), by XOR shuffles, so every lane gets the result. */
LLVMValueRef kiln_ptx_warp_reduce(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                                  LLVMOpcode op, LLVMValueRef value);

/* A static shared-memory array [COUNT x ELEM] in addrspace(3), internal,
 * uninitialized (PTX shared memory has no initializers), aligned to ALIGN
 * (0: the element's ABI alignment). Name clashes are renamed by LLVM.
 * Errors: count 0, or more than the 48 KiB a block may declare. */
kiln_error *kiln_ptx_add_shared_array(const kiln_ptx_abi_t *abi,
                                      LLVMModuleRef module,
                                      const char *name, LLVMTypeRef elem,
                                      uint64_t count, uint32_t align,
                                      LLVMValueRef *out);

/* The module's dynamic shared memory: an external addrspace(3) [0 x i8]
 * array named KILN_PTX_DYNAMIC_SHARED_SYMBOL, aligned to 16, sized at
 * launch (cuLaunchKernel's sharedMemBytes); every kernel sees it at the
 * same base. Created once, reused afterwards; an unrelated global of that
 * name is an error. */
#define KILN_PTX_DYNAMIC_SHARED_SYMBOL "kiln_dynamic_shared"

kiln_error *kiln_ptx_dynamic_shared(const kiln_ptx_abi_t *abi,
                                    LLVMModuleRef module,
                                    LLVMValueRef *out);

/*---------------------------------------------------------------- passes */

/* LLVM's verifier; a broken module is an error carrying its report. */
kiln_error *kiln_ptx_verify(LLVMModuleRef module);

/* Makes a verified module fit for PTX: the target machine's triple and
 * data layout; every kernel a definition with external linkage, a void
 * result and parameters of the Kiln shape (ptr addrspace(1) bindings then
 * i32 push constants); every other function and global internal (so O3
 * inlines and drops helpers, and the PTX exports only .entry kernels);
 * the only external declarations allowed are LLVM intrinsics that NVPTX
 * selects and the dynamic shared array; no instruction NVPTX cannot lower
 * (fp128 and other soft-float types, float <-> i128 conversions,
 * run-time-sized allocas). Each violation is an error naming the function
 * or callee: PTX from Kiln links no library (no libdevice, no libm), so
 * expf & co. must come from the code generator's polynomial
 * approximations (DESIGN.md §2, codegen stage). */
kiln_error *kiln_ptx_prepare(LLVMModuleRef module,
                             LLVMTargetMachineRef tm);

/* Runs default<O3>; the module must have been prepared for tm. */
kiln_error *kiln_ptx_optimize(LLVMModuleRef module,
                              LLVMTargetMachineRef tm);

/* What the runtime needs to know about one kernel. */
typedef struct kiln_ptx_kernel_info {
  char *name;                  /* owned; the .entry name */
  uint32_t block_size[3];      /* launch bound; 0,0,0 when none was set */
  bool block_size_required;    /* .reqntid rather than .maxntid */
  uint32_t static_shared_bytes; /* static shared arrays it reaches */
  bool uses_dynamic_shared;    /* reaches KILN_PTX_DYNAMIC_SHARED_SYMBOL */
  uint32_t binding_count;
  uint32_t push_constant_count;
} kiln_ptx_kernel_info_t;

typedef struct kiln_ptx_result {
  kiln_ptx_bytes_t ptx;        /* NUL-terminated text; size excludes it */
  kiln_ptx_kernel_info_t *kernels; /* in module order */
  uint32_t kernel_count;
} kiln_ptx_result_t;

void kiln_ptx_result_release(kiln_ptx_result_t *result);

/* Per-kernel metadata of a prepared module (best after optimize, when
 * inlining has settled which shared arrays each kernel reaches).
 * static_shared_bytes sums the arrays' sizes, each padded to its
 * alignment, over the functions a kernel calls directly or transitively.
 * A kernel above the 48 KiB of static shared memory PTX allows is an
 * error. */
kiln_error *kiln_ptx_kernel_infos(LLVMModuleRef module,
                                  LLVMTargetMachineRef tm,
                                  kiln_ptx_result_t *out);

typedef enum kiln_ptx_emit_kind {
  KILN_PTX_EMIT_PTX,
  KILN_PTX_EMIT_LLVM_IR,
} kiln_ptx_emit_kind_t;

/* Emits PTX (or LLVM IR) text; the module is left unchanged (code
 * generation runs on a clone). Checks the callees again first (O3 may have
 * formed intrinsics), and turns errors LLVM reports through the context's
 * diagnostic handler (which would otherwise exit the process) into a
 * status. */
kiln_error *kiln_ptx_emit(LLVMModuleRef module, LLVMTargetMachineRef tm,
                          kiln_ptx_emit_kind_t kind,
                          kiln_ptx_bytes_t *out);

/* verify, prepare, optimize, kernel infos, emit PTX. The module stays the
 * caller's; it is prepared and optimized in place. On failure *out is
 * empty. */
kiln_error *kiln_ptx_compile(LLVMModuleRef module,
                             const kiln_ptx_target_t *target,
                             kiln_ptx_result_t *out);

#endif /* KILN_CODEGEN_CUDA_PTX_H */
