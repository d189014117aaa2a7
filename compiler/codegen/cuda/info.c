/* Per-kernel metadata read off a prepared module: name, launch bound,
 * binding and push-constant counts (from the parameter list that prepare
 * checked), the static shared memory a kernel reaches (the arrays used by
 * the kernel or by any function it calls, directly or transitively, each
 * padded to its alignment) and whether it reaches the dynamic shared
 * array. Guarantees the counts match the PTX the module will become, and
 * refuses a kernel above PTX's 48 KiB of static shared memory here,
 * rather than leaving that to ptxas on the device. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "cptx_internal.h"

typedef struct cptx_graph {
  LLVMValueRef *fns; /* every function of the module */
  size_t count;
  bool *reached;
  LLVMValueRef *stack;
} cptx_graph_t;

static size_t cptx_index(const cptx_graph_t *g, LLVMValueRef fn) {
  for (size_t i = 0; i < g->count; i++)
    if (g->fns[i] == fn) return i;
  return g->count;
}

/* Marks the functions KERNEL calls, itself included. */
static void cptx_reach(cptx_graph_t *g, LLVMValueRef kernel) {
  memset(g->reached, 0, g->count * sizeof *g->reached);
  size_t top = 0;
  size_t k = cptx_index(g, kernel);
  g->reached[k] = true;
  g->stack[top++] = kernel;
  while (top > 0) {
    LLVMValueRef fn = g->stack[--top];
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in;
           in = LLVMGetNextInstruction(in)) {
        if (!LLVMIsACallInst(in) && !LLVMIsAInvokeInst(in)) continue;
        LLVMValueRef callee = LLVMGetCalledValue(in);
        if (!callee || !LLVMIsAFunction(callee) || LLVMIsDeclaration(callee))
          continue;
        size_t i = cptx_index(g, callee);
        if (i < g->count && !g->reached[i]) {
          g->reached[i] = true;
          g->stack[top++] = callee;
        }
      }
  }
}

/* Whether a reached function uses V, through constant expressions. */
static bool cptx_used_by_reached(const cptx_graph_t *g, LLVMValueRef v,
                                 int depth) {
  if (depth > 16) return false;
  for (LLVMUseRef u = LLVMGetFirstUse(v); u; u = LLVMGetNextUse(u)) {
    LLVMValueRef user = LLVMGetUser(u);
    if (LLVMIsAInstruction(user)) {
      LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(user));
      size_t i = cptx_index(g, fn);
      if (i < g->count && g->reached[i]) return true;
    } else if (LLVMIsAConstantExpr(user)) {
      if (cptx_used_by_reached(g, user, depth + 1)) return true;
    }
  }
  return false;
}

static kiln_error *cptx_kernel_info(LLVMModuleRef module,
                                    LLVMTargetDataRef dl,
                                    cptx_graph_t *g, LLVMValueRef fn,
                                    kiln_ptx_kernel_info_t *info) {
  size_t len;
  const char *name = LLVMGetValueName2(fn, &len);
  info->name = malloc(len + 1);
  if (!info->name) return kiln_error_new("cuda: out of memory");
  memcpy(info->name, name, len);
  info->name[len] = '\0';

  kiln_ptx_block_bound_t bound = KILN_PTX_BLOCK_MAX;
  if (kiln_ptx_abi_get_block_size(module, fn, &bound, info->block_size))
    info->block_size_required = bound == KILN_PTX_BLOCK_REQUIRED;

  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n; i++) {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetParam(fn, i));
    if (LLVMGetTypeKind(t) == LLVMPointerTypeKind)
      info->binding_count++;
    else
      info->push_constant_count++;
  }

  cptx_reach(g, fn);
  uint64_t bytes = 0;
  for (LLVMValueRef v = LLVMGetFirstGlobal(module); v; v = LLVMGetNextGlobal(v)) {
    if (LLVMGetPointerAddressSpace(LLVMTypeOf(v)) != KILN_PTX_ADDRSPACE_SHARED ||
        !cptx_used_by_reached(g, v, 0))
      continue;
    if (LLVMIsDeclaration(v)) {
      info->uses_dynamic_shared = true;
      continue;
    }
    uint64_t align = LLVMGetAlignment(v);
    if (align == 0) align = LLVMABIAlignmentOfType(dl, LLVMGlobalGetValueType(v));
    if (align == 0) align = 1;
    bytes = (bytes + align - 1) / align * align;
    bytes += LLVMABISizeOfType(dl, LLVMGlobalGetValueType(v));
    if (bytes > CPTX_MAX_STATIC_SHARED) break;
  }
  if (bytes > CPTX_MAX_STATIC_SHARED)
    return kiln_error_new("cuda kernel '%s' reaches more than %u bytes of "
                          "static shared memory (%llu so far); use the dynamic "
                          "shared array beyond that",
                          info->name, CPTX_MAX_STATIC_SHARED,
                          (unsigned long long)bytes);
  info->static_shared_bytes = (uint32_t)bytes;
  return NULL;
}

kiln_error *kiln_ptx_kernel_infos(LLVMModuleRef module,
                                  LLVMTargetMachineRef tm,
                                  kiln_ptx_result_t *out) {
  out->kernels = NULL;
  out->kernel_count = 0;
  cptx_graph_t g = {0};
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn))
    g.count++;
  size_t cap = g.count ? g.count : 1;
  g.fns = malloc(cap * sizeof *g.fns);
  g.stack = malloc(cap * sizeof *g.stack);
  g.reached = malloc(cap * sizeof *g.reached);
  out->kernels = calloc(cap, sizeof *out->kernels);
  kiln_error *s = NULL;
  if (!g.fns || !g.stack || !g.reached || !out->kernels)
    s = kiln_error_new("cuda: out of memory");
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  size_t i = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn && !s;
       fn = LLVMGetNextFunction(fn))
    g.fns[i++] = fn;
  for (size_t k = 0; k < g.count && !s; k++) {
    if (!kiln_ptx_is_kernel(module, g.fns[k])) continue;
    s = cptx_kernel_info(module, dl, &g, g.fns[k],
                         &out->kernels[out->kernel_count++]);
  }
  LLVMDisposeTargetData(dl);
  free(g.fns);
  free(g.stack);
  free(g.reached);
  if (s) {
    for (uint32_t k = 0; k < out->kernel_count; k++) free(out->kernels[k].name);
    free(out->kernels);
    out->kernels = NULL;
    out->kernel_count = 0;
  }
  return s;
}

void kiln_ptx_result_release(kiln_ptx_result_t *result) {
  if (!result) return;
  for (uint32_t i = 0; i < result->kernel_count; i++)
    free(result->kernels[i].name);
  free(result->kernels);
  kiln_ptx_bytes_free(&result->ptx);
  result->kernels = NULL;
  result->kernel_count = 0;
}
