/* GPU kernels (options.gpu_kernels): the NVPTX flavour of kernel.c.
 *
 * Takes: a kernel module whose kernels use hal.interface.* ops, including
 * the GPU-only thread.id, barrier and shuffle. Guarantees: every kernel is a
 * `void NAME(ptr addrspace(1) %binding0, ..., i32 %constant0, ...)` with
 * the ptx_kernel calling convention (compiler/codegen/cuda/abi.c builds
 * it), binding N the N-th parameter (cast to a generic pointer: NVPTX's
 * address-space inference recovers the global space at O3), push
 * constant N the parameter after the bindings; workgroup.id/count/size
 * and thread.id read %ctaid/%nctaid/%ntid/%tid; barrier is
 * __syncthreads(); shuffle is shfl.sync.bfly.b32 over the full warp
 * (llvm.nvvm.shfl.sync.bfly.f32/i32); memref.alloca in memory space 3 (workgroup memory,
 * static shape) is a shared-memory array of the kernel. The binding count is the export's when given, else
 * the highest binding the kernel uses + 1 (likewise for constants); no
 * export table is emitted (the module's metadata is PTX's). On CPU
 * kernels thread.id, barrier and shuffle are errors naming simt-to-loops, which
 * turns them into loops first. */
#include "tl_internal.h"

#include <string.h>

#include "cuda_ptx.h"
#include "dialects/hal_interface.h"

static kiln_walk_result note_interface(kiln_op *op, void *user) {
  int64_t *max = user;
  int64_t sel = kiln_hal_interface_selector(op);
  if (op->kind == KILN_OP_HAL_INTERFACE_BINDING && sel > max[0]) max[0] = sel;
  if (op->kind == KILN_OP_HAL_INTERFACE_CONSTANT && sel > max[1]) max[1] = sel;
  return KILN_WALK_ADVANCE;
}

/* Binding and push-constant counts of kernel f: the export's, else the
 * highest used + 1. */
static void counts_of(tl *t, kiln_op *f, uint32_t *nb, uint32_t *nc) {
  int64_t max[2] = {-1, -1};
  kiln_walk_pre(f, note_interface, max);
  *nb = (uint32_t)(max[0] + 1);
  *nc = (uint32_t)(max[1] + 1);
  const char *name = kiln_symbol_name(f);
  for (uint32_t i = 0; i < t->opts->export_count; i++) {
    const kiln_to_llvm_export *e = &t->opts->exports[i];
    if (!e->name || strcmp(e->name, name) != 0) continue;
    if (e->binding_count >= 0 && (uint32_t)e->binding_count >= *nb) *nb = (uint32_t)e->binding_count;
    if (e->push_constant_count >= 0 && (uint32_t)e->push_constant_count >= *nc)
      *nc = (uint32_t)e->push_constant_count;
  }
}

bool tl_ptx_kernel_begin(tl *t, kiln_op *f, LLVMValueRef *fn) {
  const char *name = kiln_symbol_name(f);
  if (LLVMGetNamedFunction(t->m, name)) {
    tl_fail(t, f, "function name '%s' is already taken", name);
    return false;
  }
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, t->c);
  uint32_t nb, nc;
  counts_of(t, f, &nb, &nc);
  kiln_ptx_kernel_desc_t d;
  memset(&d, 0, sizeof d);
  d.name = name;
  d.binding_count = nb;
  d.push_constant_count = nc;
  /* Bindings of one dispatch may share a buffer (in-place updates): none
   * is noalias until the HAL says which do not. */
  d.aliased_binding_mask = nb >= 32 ? 0xffffffffu : (1u << nb) - 1;
  d.binding_align = t->opts->binding_alignment ? t->opts->binding_alignment : 64;
  kiln_error *s = kiln_ptx_abi_add_kernel(&abi, t->m, &d, fn);
  if (s) {
    tl_fail(t, f, "%s", kiln_error_message(s));
    kiln_error_free(s);
    return false;
  }
  return true;
}

void tl_ptx_kernel_op(tl *t, kiln_op *op) {
  if (!t->in_kernel) {
    tl_fail(t, op, "is only valid in a kernel (a public function without arguments in a kernel module)");
    return;
  }
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, t->c);
  int64_t sel = kiln_hal_interface_selector(op);
  unsigned nparams = LLVMCountParams(t->fn);
  LLVMValueRef v;
  switch (op->kind) {
  case KILN_OP_HAL_INTERFACE_BINDING: {
    const kiln_type *mt = op->results[0].type;
    if (sel < 0 || (uint64_t)sel >= nparams || mt->kind != KILN_TYPE_MEMREF) {
      tl_fail(t, op, "malformed binding");
      return;
    }
    LLVMValueRef dims[TL_MAX_RANK];
    if (!tl_binding_dims(t, op, dims)) return;
    LLVMValueRef p = LLVMBuildAddrSpaceCast(t->b, LLVMGetParam(t->fn, (unsigned)sel), t->ptr, "");
    v = tl_desc_over(t, op, mt, p, dims);
    if (!v) return;
    break;
  }
  case KILN_OP_HAL_INTERFACE_CONSTANT: {
    /* Constants follow the bindings: count the pointer parameters. */
    unsigned first = 0;
    while (first < nparams &&
           LLVMGetTypeKind(LLVMTypeOf(LLVMGetParam(t->fn, first))) == LLVMPointerTypeKind)
      first++;
    if (sel < 0 || first + (uint64_t)sel >= nparams) {
      tl_fail(t, op, "malformed push constant index");
      return;
    }
    v = LLVMGetParam(t->fn, first + (unsigned)sel);
    break;
  }
  case KILN_OP_HAL_INTERFACE_BARRIER:
    kiln_ptx_barrier(&abi, t->b);
    return;
  case KILN_OP_HAL_INTERFACE_SHUFFLE: {
    /* Butterfly over the full warp: shfl.sync.bfly.b32 (the verifier
     * fixed width 32 and an f32 / i32 operand). */
    const kiln_attr *off = kiln_op_get_attr(op, "offset");
    LLVMValueRef x = tl_operand(t, op, 0);
    if (!x) return;
    LLVMTypeRef xt = LLVMTypeOf(x);
    if (!off || off->kind != KILN_ATTR_INTEGER || off->i < 1 || off->i > 31 ||
        (xt != LLVMFloatTypeInContext(t->c) && xt != LLVMInt32TypeInContext(t->c))) {
      tl_fail(t, op, "malformed shuffle (f32 or i32, offset in [1, 32))");
      return;
    }
    v = kiln_ptx_shuffle(&abi, t->b, KILN_PTX_SHUFFLE_XOR, x,
                         LLVMConstInt(LLVMInt32TypeInContext(t->c), (unsigned long long)off->i, 0));
    break;
  }
  default: {
    if (sel < 0 || sel > 2) {
      tl_fail(t, op, "dim must be 0, 1 or 2");
      return;
    }
    kiln_ptx_sreg_t r = op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_ID      ? KILN_PTX_SREG_BLOCK_ID
                        : op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_COUNT ? KILN_PTX_SREG_GRID_DIM
                        : op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE  ? KILN_PTX_SREG_BLOCK_DIM
                                                                            : KILN_PTX_SREG_THREAD_ID;
    v = LLVMBuildZExt(t->b, kiln_ptx_read_sreg(&abi, t->b, r, (uint32_t)sel), t->i64, "");
  }
  }
  tl_set(t, &op->results[0], v);
}

void tl_gpu_op(tl *t, kiln_op *op) {
  if (t->opts->gpu_kernels) {
    tl_ptx_kernel_op(t, op);
    return;
  }
  tl_fail(t, op, "is a GPU-only op; a CPU kernel needs simt-to-loops first");
}

void tl_ptx_shared_alloca(tl *t, kiln_op *op) {
  const kiln_type *mt = op->results[0].type;
  LLVMTypeRef et = tl_type(t, mt->elem);
  uint64_t count = 1;
  for (uint32_t i = 0; et && i < mt->rank; i++) {
    if (mt->shape[i] == KILN_DYNAMIC || mt->shape[i] <= 0) et = NULL;
    else count *= (uint64_t)mt->shape[i];
  }
  if (!et || mt->rank > TL_MAX_RANK) {
    tl_fail(t, op, "workgroup memory needs a static shape of supported elements");
    return;
  }
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, t->c);
  LLVMValueRef g;
  kiln_error *s = kiln_ptx_add_shared_array(&abi, t->m, "kiln_workgroup", et, count, 16, &g);
  if (s) {
    tl_fail(t, op, "%s", kiln_error_message(s));
    kiln_error_free(s);
    return;
  }
  LLVMValueRef p = LLVMBuildAddrSpaceCast(t->b, g, t->ptr, "");
  LLVMValueRef d = tl_desc_over(t, op, mt, p, NULL);
  if (d) tl_set(t, &op->results[0], d);
}
