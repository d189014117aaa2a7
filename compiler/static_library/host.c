/* The host program of a static library as one LLVM module (LLVM-C,
 * in-process), compiled to a relocatable object for the plan's target.
 *
 * Takes an sl_plan. Guarantees, per exported function F:
 *   i32 NAME_F(ptr args, ptr results, ptr scratch): checks the pointers,
 *     zeroes the result and scratch bytes whose kernels may leave part
 *     unwritten, then runs the plan's dispatches in order, calling each kernel entry
 *     point once per workgroup (x fastest, then y, then z, as local-sync
 *     does) with a kiln_dispatch_state_t / kiln_workgroup_state_t built on
 *     the stack; the first nonzero kernel return stops it (SL_KERNEL_FAILED);
 *   i64 NAME_F_scratch_size(): the arena size computed at compile time;
 *   i32 _mlir_ciface_NAME_F(ptr desc..., ptr desc..., ptr scratch): reads
 *     MLIR ranked memref descriptors {allocated, aligned, offset, sizes[R],
 *     strides[R]}, checks sizes against the signature and strides for
 *     contiguous row-major order (a stride of a size-1 dim is free), and
 *     calls NAME_F on aligned + offset * element size.
 * and ptr NAME_error_message(i32), never null; void NAME_set_parallel(ptr
 * parallel_for, ptr ctx): while parallel_for is set, a dispatch of more
 * than one workgroup calls parallel_for(ctx, count, workgroup, closure),
 * which must call workgroup(closure, i) once for each i < count, on any
 * threads, and return when all have. Weights are private
 * constants (64-byte aligned, read-only section). Nothing here calls a
 * library function but memset (the clears), so the object's undefined
 * symbols are the kernels' entry points and at most memset. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/Transforms/PassBuilder.h>

#include "llvm_cpu.h"
#include "sl_internal.h"

typedef struct sl_host {
  LLVMContextRef ctx;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  kiln_llvm_cpu_abi_t abi;
  LLVMTypeRef i8, i32, i64, ptr;
  LLVMValueRef *weights;
  /* NAME_set_parallel's state (private globals) and the workgroup
   * function handed to the app's parallel_for. */
  LLVMValueRef parallel_for, parallel_ctx, workgroup_fn;
  LLVMValueRef external_weights; /* --weights=external: the app's buffer */
  LLVMTypeRef closure; /* {entry, dispatch state, failed flag} */
  LLVMTypeRef parallel_fn;
} sl_host;

static LLVMValueRef sl_i32(sl_host *h, uint64_t v) { return LLVMConstInt(h->i32, v, 0); }
static LLVMValueRef sl_i64(sl_host *h, uint64_t v) { return LLVMConstInt(h->i64, v, 0); }

/* &base[i] for an array of `elem`. */
static LLVMValueRef sl_at(sl_host *h, LLVMTypeRef elem, LLVMValueRef base, uint64_t i) {
  LLVMValueRef idx = sl_i64(h, i);
  return LLVMBuildInBoundsGEP2(h->b, elem, base, &idx, 1, "");
}

static LLVMValueRef sl_field(sl_host *h, LLVMTypeRef st, LLVMValueRef p, unsigned field) {
  return LLVMBuildStructGEP2(h->b, st, p, field, "");
}

/* if (cond) return code; */
static void sl_fail_if(sl_host *h, LLVMValueRef fn, LLVMValueRef cond, int code) {
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(h->ctx, fn, "fail");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(h->ctx, fn, "ok");
  LLVMBuildCondBr(h->b, cond, fail, ok);
  LLVMPositionBuilderAtEnd(h->b, fail);
  LLVMBuildRet(h->b, sl_i32(h, (uint64_t)code));
  LLVMPositionBuilderAtEnd(h->b, ok);
}

static LLVMValueRef sl_is_null(sl_host *h, LLVMValueRef p) {
  return LLVMBuildICmp(h->b, LLVMIntEQ, p, LLVMConstPointerNull(h->ptr), "");
}

static LLVMValueRef sl_add_function(sl_host *h, const char *name, LLVMTypeRef ret, LLVMTypeRef *params,
                                unsigned n) {
  LLVMValueRef fn = LLVMAddFunction(h->m, name, LLVMFunctionType(ret, params, n, 0));
  unsigned kind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(h->ctx, kind, 0));
  return fn;
}

/* The entry point, declared once. */
static LLVMValueRef sl_entry(sl_host *h, const char *symbol) {
  LLVMValueRef fn = LLVMGetNamedFunction(h->m, symbol);
  if (fn) return fn;
  fn = LLVMAddFunction(h->m, symbol, h->abi.entry_fn);
  LLVMSetVisibility(fn, LLVMHiddenVisibility);
  return fn;
}

/* One dispatch: the state, then a loop over the grid (flat index i;
 * x = i % cx, y = i / cx % cy, z = i / (cx * cy)). */
static void sl_emit_dispatch(sl_host *h, LLVMValueRef fn, const sl_dispatch *d, LLVMValueRef *arg_ptrs,
                             LLVMValueRef *res_ptrs, LLVMValueRef scratch, LLVMValueRef closure,
                             LLVMValueRef state,
                             LLVMValueRef wg, LLVMValueRef ptrs, LLVMValueRef lens, LLVMValueRef pcs) {
  const uint64_t total = (uint64_t)d->workgroup_count[0] * d->workgroup_count[1] * d->workgroup_count[2];
  if (!total) return; /* an empty grid runs nothing, as in the runtime */
  for (uint32_t i = 0; i < d->binding_count; i++) {
    const sl_binding *bd = &d->bindings[i];
    LLVMValueRef base = bd->buf.kind == SL_BUF_ARG      ? arg_ptrs[bd->buf.index]
                        : bd->buf.kind == SL_BUF_RESULT ? res_ptrs[bd->buf.index]
                        : bd->buf.kind == SL_BUF_RODATA ? h->weights[bd->buf.index]
                                                        : scratch;
    LLVMValueRef off = sl_i64(h, bd->offset);
    LLVMBuildStore(h->b, LLVMBuildGEP2(h->b, h->i8, base, &off, 1, ""), sl_at(h, h->ptr, ptrs, i));
    LLVMBuildStore(h->b, sl_i64(h, bd->length), sl_at(h, h->i64, lens, i));
  }
  for (uint32_t i = 0; i < d->constant_count; i++)
    LLVMBuildStore(h->b, sl_i32(h, d->constants[i]), sl_at(h, h->i32, pcs, i));
  LLVMTypeRef ds = h->abi.dispatch_state, a3 = LLVMArrayType2(h->i32, 3);
  for (unsigned k = 0; k < 3; k++) {
    LLVMValueRef idx[2] = {sl_i64(h, 0), sl_i64(h, k)};
    LLVMBuildStore(h->b, sl_i32(h, d->workgroup_size[k]),
                   LLVMBuildInBoundsGEP2(h->b, a3, sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_workgroup_size), idx, 2, ""));
    LLVMBuildStore(h->b, sl_i32(h, d->workgroup_count[k]),
                   LLVMBuildInBoundsGEP2(h->b, a3, sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_workgroup_count), idx, 2, ""));
  }
  LLVMBuildStore(h->b, sl_i32(h, 1), sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_max_concurrency));
  LLVMBuildStore(h->b, sl_i32(h, d->constant_count), sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_push_constant_count));
  LLVMBuildStore(h->b, pcs, sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_push_constants));
  LLVMBuildStore(h->b, sl_i32(h, d->binding_count), sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_binding_count));
  LLVMBuildStore(h->b, sl_i32(h, 0), sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_reserved));
  LLVMBuildStore(h->b, ptrs, sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_binding_ptrs));
  LLVMBuildStore(h->b, lens, sl_field(h, ds, state, KILN_LLVM_CPU_dispatch_state_binding_lengths));

  LLVMValueRef entry = sl_entry(h, d->entry);
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid.done");
  if (total > 1) {
    /* With NAME_set_parallel's parallel_for, the app runs the workgroups;
     * otherwise the loop below does, on this thread. */
    LLVMValueRef pf = LLVMBuildLoad2(h->b, h->ptr, h->parallel_for, "");
    LLVMBasicBlockRef par = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid.parallel");
    LLVMBasicBlockRef ser = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid.serial");
    LLVMBuildCondBr(h->b, LLVMBuildICmp(h->b, LLVMIntNE, pf, LLVMConstPointerNull(h->ptr), ""), par, ser);
    LLVMPositionBuilderAtEnd(h->b, par);
    LLVMBuildStore(h->b, entry, sl_field(h, h->closure, closure, 0));
    LLVMBuildStore(h->b, state, sl_field(h, h->closure, closure, 1));
    LLVMBuildStore(h->b, sl_i32(h, 0), sl_field(h, h->closure, closure, 2));
    LLVMValueRef pargs[4] = {LLVMBuildLoad2(h->b, h->ptr, h->parallel_ctx, ""), sl_i32(h, total),
                             h->workgroup_fn, closure};
    LLVMBuildCall2(h->b, h->parallel_fn, pf, pargs, 4, "");
    LLVMValueRef failed = LLVMBuildLoad2(h->b, h->i32, sl_field(h, h->closure, closure, 2), "");
    LLVMSetOrdering(failed, LLVMAtomicOrderingMonotonic);
    LLVMSetAlignment(failed, 4);
    sl_fail_if(h, fn, LLVMBuildICmp(h->b, LLVMIntNE, failed, sl_i32(h, 0), ""), SL_KERNEL_FAILED);
    LLVMBuildBr(h->b, done);
    LLVMPositionBuilderAtEnd(h->b, ser);
  }
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(h->b);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid.next");
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(h->ctx, fn, "grid.fail");
  LLVMBuildBr(h->b, body);
  LLVMPositionBuilderAtEnd(h->b, body);
  LLVMValueRef i = LLVMBuildPhi(h->b, h->i64, "wg");
  LLVMValueRef cx = sl_i64(h, d->workgroup_count[0]), cy = sl_i64(h, d->workgroup_count[1]);
  LLVMValueRef ids[3] = {LLVMBuildURem(h->b, i, cx, ""),
                         LLVMBuildURem(h->b, LLVMBuildUDiv(h->b, i, cx, ""), cy, ""),
                         LLVMBuildUDiv(h->b, i, LLVMBuildMul(h->b, cx, cy, ""), "")};
  LLVMTypeRef ws = h->abi.workgroup_state;
  for (unsigned k = 0; k < 3; k++) {
    LLVMValueRef idx[2] = {sl_i64(h, 0), sl_i64(h, k)};
    LLVMBuildStore(h->b, LLVMBuildTrunc(h->b, ids[k], h->i32, ""),
                   LLVMBuildInBoundsGEP2(h->b, a3, sl_field(h, ws, wg, KILN_LLVM_CPU_workgroup_state_workgroup_id), idx, 2, ""));
  }
  LLVMValueRef args[2] = {state, wg};
  LLVMValueRef rc = LLVMBuildCall2(h->b, h->abi.entry_fn, entry, args, 2, "");
  LLVMBuildCondBr(h->b, LLVMBuildICmp(h->b, LLVMIntNE, rc, sl_i32(h, 0), ""), fail, next);
  LLVMPositionBuilderAtEnd(h->b, fail);
  LLVMBuildRet(h->b, sl_i32(h, SL_KERNEL_FAILED));
  LLVMPositionBuilderAtEnd(h->b, next);
  LLVMValueRef i1 = LLVMBuildNUWAdd(h->b, i, sl_i64(h, 1), "");
  LLVMBuildCondBr(h->b, LLVMBuildICmp(h->b, LLVMIntULT, i1, sl_i64(h, total), ""), body, done);
  LLVMValueRef in_v[2] = {sl_i64(h, 0), i1};
  LLVMBasicBlockRef in_b[2] = {pre, next};
  LLVMAddIncoming(i, in_v, in_b, 2);
  LLVMPositionBuilderAtEnd(h->b, done);
}

static kiln_error *sl_emit_function(sl_host *h, const sl_plan *p, const sl_function *f) {
  char *name = sl_cat(p->name, "_", f->c_name);
  char *size_name = name ? sl_cat(name, "_scratch_size", "") : NULL;
  char *ciface = name ? sl_cat("_mlir_ciface_", name, "") : NULL;
  if (!name || !size_name || !ciface) {
    free(name), free(size_name), free(ciface);
    return kiln_error_new("out of memory");
  }
  /* size_t NAME_F_scratch_size(void) */
  LLVMValueRef sz = sl_add_function(h, size_name, h->i64, NULL, 0);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, sz, "entry"));
  LLVMBuildRet(h->b, sl_i64(h, f->scratch_size));

  /* int NAME_F(void *const *args, void *const *results, void *scratch) */
  LLVMTypeRef params[3] = {h->ptr, h->ptr, h->ptr};
  LLVMValueRef fn = sl_add_function(h, name, h->i32, params, 3);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, fn, "entry"));
  uint32_t maxb = 1, maxc = 1;
  for (uint32_t d = 0; d < f->dispatch_count; d++) {
    if (f->dispatches[d].binding_count > maxb) maxb = f->dispatches[d].binding_count;
    if (f->dispatches[d].constant_count > maxc) maxc = f->dispatches[d].constant_count;
  }
  LLVMValueRef state = LLVMBuildAlloca(h->b, h->abi.dispatch_state, "dispatch");
  LLVMValueRef wg = LLVMBuildAlloca(h->b, h->abi.workgroup_state, "workgroup");
  LLVMValueRef ptrs = LLVMBuildAlloca(h->b, LLVMArrayType2(h->ptr, maxb), "bindings");
  LLVMValueRef lens = LLVMBuildAlloca(h->b, LLVMArrayType2(h->i64, maxb), "lengths");
  LLVMValueRef pcs = LLVMBuildAlloca(h->b, LLVMArrayType2(h->i32, maxc), "constants");
  LLVMValueRef closure = LLVMBuildAlloca(h->b, h->closure, "closure");
  LLVMBuildStore(h->b, LLVMConstNull(h->abi.workgroup_state), wg);
  LLVMValueRef args = LLVMGetParam(fn, 0), results = LLVMGetParam(fn, 1), scratch = LLVMGetParam(fn, 2);
  LLVMValueRef *arg_ptrs = calloc(f->arg_count + 1, sizeof *arg_ptrs);
  LLVMValueRef *res_ptrs = calloc(f->result_count + 1, sizeof *res_ptrs);
  if (!arg_ptrs || !res_ptrs) {
    free(arg_ptrs), free(res_ptrs), free(name), free(size_name), free(ciface);
    return kiln_error_new("out of memory");
  }
  if (f->arg_count) sl_fail_if(h, fn, sl_is_null(h, args), SL_NULL_POINTER);
  if (f->result_count) sl_fail_if(h, fn, sl_is_null(h, results), SL_NULL_POINTER);
  for (uint32_t i = 0; i < f->arg_count; i++) {
    arg_ptrs[i] = LLVMBuildLoad2(h->b, h->ptr, sl_at(h, h->ptr, args, i), "");
    if (f->args[i].bytes) sl_fail_if(h, fn, sl_is_null(h, arg_ptrs[i]), SL_NULL_POINTER);
  }
  for (uint32_t i = 0; i < f->result_count; i++) {
    res_ptrs[i] = LLVMBuildLoad2(h->b, h->ptr, sl_at(h, h->ptr, results, i), "");
    if (f->results[i].bytes) sl_fail_if(h, fn, sl_is_null(h, res_ptrs[i]), SL_NULL_POINTER);
  }
  if (f->scratch_size) {
    sl_fail_if(h, fn, sl_is_null(h, scratch), SL_NULL_POINTER);
    LLVMValueRef low = LLVMBuildAnd(h->b, LLVMBuildPtrToInt(h->b, scratch, h->i64, ""), sl_i64(h, 63), "");
    sl_fail_if(h, fn, LLVMBuildICmp(h->b, LLVMIntNE, low, sl_i64(h, 0), ""), SL_SCRATCH_ALIGNMENT);
  }
  /* positions read from argument data, before any kernel reads at them */
  for (uint32_t c = 0; c < f->check_count; c++) {
    const sl_check *k = &f->checks[c];
    LLVMValueRef off = sl_i64(h, k->offset);
    LLVMValueRef at = LLVMBuildGEP2(h->b, h->i8, arg_ptrs[k->arg], &off, 1, "");
    LLVMValueRef v = LLVMBuildLoad2(h->b, k->bytes == 4 ? h->i32 : h->i64, at, "");
    LLVMSetAlignment(v, 1);
    if (k->bytes == 4) v = LLVMBuildSExt(h->b, v, h->i64, "");
    LLVMValueRef below = LLVMBuildICmp(h->b, LLVMIntSLT, v, sl_i64(h, (uint64_t)k->lo), "");
    LLVMValueRef above = LLVMBuildICmp(h->b, LLVMIntSGT, v, sl_i64(h, (uint64_t)k->hi), "");
    LLVMValueRef bad = LLVMBuildOr(h->b, below, above, "");
    sl_fail_if(h, fn, bad, SL_OUT_OF_RANGE);
  }
  if (p->weight_offsets) {
    /* External weights: each blob at its offset in the app's buffer. */
    LLVMValueRef base = LLVMBuildLoad2(h->b, h->ptr, h->external_weights, "");
    sl_fail_if(h, fn, sl_is_null(h, base), SL_WEIGHTS);
    for (uint32_t i = 0; i < p->rodata_count; i++) {
      LLVMValueRef off = sl_i64(h, p->weight_offsets[i]);
      h->weights[i] = LLVMBuildInBoundsGEP2(h->b, h->i8, base, &off, 1, "");
    }
  }
  /* What the runtime would clear at allocation: each slot has bytes of
   * its own here, so zeroing them all before the first dispatch is the
   * same. Large ones become memset calls. */
  for (uint32_t c = 0; c < f->clear_count; c++) {
    const sl_clear *cl = &f->clears[c];
    LLVMValueRef base = cl->buf.kind == SL_BUF_RESULT ? res_ptrs[cl->buf.index] : scratch;
    LLVMValueRef off = sl_i64(h, cl->buf.kind == SL_BUF_SCRATCH ? cl->buf.index : 0);
    LLVMValueRef at = LLVMBuildGEP2(h->b, h->i8, base, &off, 1, "");
    LLVMBuildMemSet(h->b, at, LLVMConstInt(h->i8, 0, 0), sl_i64(h, cl->length),
                    cl->buf.kind == SL_BUF_SCRATCH ? 64 : 1);
  }
  for (uint32_t d = 0; d < f->dispatch_count; d++)
    sl_emit_dispatch(h, fn, &f->dispatches[d], arg_ptrs, res_ptrs, scratch, closure, state, wg, ptrs,
                     lens, pcs);
  LLVMBuildRet(h->b, sl_i32(h, SL_OK));

  /* int _mlir_ciface_NAME_F(desc *in..., desc *out..., void *scratch) */
  const uint32_t nt = f->arg_count + f->result_count;
  LLVMTypeRef *cp = calloc(nt + 1, sizeof *cp);
  if (!cp) {
    free(arg_ptrs), free(res_ptrs), free(name), free(size_name), free(ciface);
    return kiln_error_new("out of memory");
  }
  for (uint32_t i = 0; i <= nt; i++) cp[i] = h->ptr;
  LLVMValueRef cf = sl_add_function(h, ciface, h->i32, cp, nt + 1);
  free(cp);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, cf, "entry"));
  LLVMValueRef ca = LLVMBuildAlloca(h->b, LLVMArrayType2(h->ptr, f->arg_count ? f->arg_count : 1), "args");
  LLVMValueRef cr = LLVMBuildAlloca(h->b, LLVMArrayType2(h->ptr, f->result_count ? f->result_count : 1), "results");
  for (uint32_t i = 0; i < nt; i++) {
    const sl_tensor *t = i < f->arg_count ? &f->args[i] : &f->results[i - f->arg_count];
    const uint32_t rank = t->type->rank;
    LLVMTypeRef fields[5] = {h->ptr, h->ptr, h->i64, LLVMArrayType2(h->i64, rank), LLVMArrayType2(h->i64, rank)};
    LLVMTypeRef desc = LLVMStructTypeInContext(h->ctx, fields, rank ? 5 : 3, 0);
    LLVMValueRef dp = LLVMGetParam(cf, i);
    sl_fail_if(h, cf, sl_is_null(h, dp), SL_NULL_POINTER);
    int64_t stride = 1;
    for (uint32_t k = rank; k-- > 0;) {
      LLVMValueRef idx[2] = {sl_i64(h, 0), sl_i64(h, k)};
      LLVMValueRef size = LLVMBuildLoad2(h->b, h->i64, LLVMBuildInBoundsGEP2(h->b, fields[3], sl_field(h, desc, dp, 3), idx, 2, ""), "");
      sl_fail_if(h, cf, LLVMBuildICmp(h->b, LLVMIntNE, size, sl_i64(h, (uint64_t)t->type->shape[k]), ""),
                 SL_DESCRIPTOR_SIZES);
      if (t->type->shape[k] != 1) {
        LLVMValueRef st = LLVMBuildLoad2(h->b, h->i64, LLVMBuildInBoundsGEP2(h->b, fields[4], sl_field(h, desc, dp, 4), idx, 2, ""), "");
        sl_fail_if(h, cf, LLVMBuildICmp(h->b, LLVMIntNE, st, sl_i64(h, (uint64_t)stride), ""),
                   SL_DESCRIPTOR_STRIDES);
      }
      stride *= t->type->shape[k];
    }
    LLVMValueRef aligned = LLVMBuildLoad2(h->b, h->ptr, sl_field(h, desc, dp, 1), "");
    LLVMValueRef offset = LLVMBuildLoad2(h->b, h->i64, sl_field(h, desc, dp, 2), "");
    LLVMValueRef bytes = LLVMBuildMul(h->b, offset, sl_i64(h, kiln_dense_elem_size(t->type->elem)), "");
    LLVMValueRef data = LLVMBuildGEP2(h->b, h->i8, aligned, &bytes, 1, "");
    const uint32_t slot = i < f->arg_count ? i : i - f->arg_count;
    LLVMBuildStore(h->b, data, sl_at(h, h->ptr, i < f->arg_count ? ca : cr, slot));
  }
  LLVMValueRef call_args[3] = {ca, cr, LLVMGetParam(cf, nt)};
  LLVMBuildRet(h->b, LLVMBuildCall2(h->b, LLVMGlobalGetValueType(fn), fn, call_args, 3, ""));
  free(arg_ptrs), free(res_ptrs), free(name), free(size_name), free(ciface);
  return NULL;
}

/* const char *NAME_error_message(int code): a table of the code texts,
 * "unknown error code" outside it. */
static void sl_emit_messages(sl_host *h, const sl_plan *p) {
  static const char *const texts[SL_CODE_COUNT] = {
#define SL_TEXT(ID, TEXT) TEXT,
      SL_ERROR_CODES(SL_TEXT)
#undef SL_TEXT
  };
  LLVMValueRef items[SL_CODE_COUNT];
  for (int i = 0; i < SL_CODE_COUNT; i++) {
    LLVMValueRef s = LLVMConstStringInContext2(h->ctx, texts[i], strlen(texts[i]), 0);
    LLVMValueRef g = LLVMAddGlobal(h->m, LLVMTypeOf(s), "");
    LLVMSetInitializer(g, s);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    items[i] = g;
  }
  const char *unknown_text = "unknown error code";
  LLVMValueRef us = LLVMConstStringInContext2(h->ctx, unknown_text, strlen(unknown_text), 0);
  LLVMValueRef unknown = LLVMAddGlobal(h->m, LLVMTypeOf(us), "");
  LLVMSetInitializer(unknown, us);
  LLVMSetGlobalConstant(unknown, 1);
  LLVMSetLinkage(unknown, LLVMPrivateLinkage);
  LLVMValueRef arr = LLVMConstArray2(h->ptr, items, SL_CODE_COUNT);
  LLVMValueRef table = LLVMAddGlobal(h->m, LLVMTypeOf(arr), "");
  LLVMSetInitializer(table, arr);
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMPrivateLinkage);
  char *name = sl_cat(p->name, "_error_message", "");
  LLVMTypeRef param = h->i32;
  LLVMValueRef fn = sl_add_function(h, name ? name : "", h->ptr, &param, 1);
  free(name);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, fn, "entry"));
  LLVMValueRef code = LLVMGetParam(fn, 0);
  LLVMValueRef in = LLVMBuildICmp(h->b, LLVMIntULT, code, sl_i32(h, SL_CODE_COUNT), "");
  LLVMValueRef safe = LLVMBuildSelect(h->b, in, code, sl_i32(h, 0), "");
  LLVMValueRef idx[2] = {sl_i64(h, 0), LLVMBuildZExt(h->b, safe, h->i64, "")};
  LLVMValueRef known = LLVMBuildLoad2(h->b, h->ptr, LLVMBuildInBoundsGEP2(h->b, LLVMTypeOf(arr), table, idx, 2, ""), "");
  LLVMBuildRet(h->b, LLVMBuildSelect(h->b, in, known, unknown, ""));
}

/* NAME_set_parallel(parallel_for, ctx) and the workgroup function it
 * calls: workgroup(closure, i) runs workgroup i of the closure's dispatch
 * (x = i % cx, y = i / cx % cy, z = i / (cx * cy)) and records a failure
 * in the closure's flag (an atomic store: workgroups may run on several
 * threads). Kernels use no per-worker scratch, so every workgroup runs as
 * worker 0 of max_concurrency 1. */
static void sl_emit_parallel(sl_host *h, const sl_plan *p) {
  LLVMTypeRef cfields[3] = {h->ptr, h->ptr, h->i32};
  h->closure = LLVMStructTypeInContext(h->ctx, cfields, 3, 0);
  LLVMTypeRef pparams[4] = {h->ptr, h->i32, h->ptr, h->ptr};
  h->parallel_fn = LLVMFunctionType(LLVMVoidTypeInContext(h->ctx), pparams, 4, 0);
  const char *names[2] = {"kiln.parallel_for", "kiln.parallel_ctx"};
  LLVMValueRef *gs[2] = {&h->parallel_for, &h->parallel_ctx};
  for (int i = 0; i < 2; i++) {
    *gs[i] = LLVMAddGlobal(h->m, h->ptr, names[i]);
    LLVMSetInitializer(*gs[i], LLVMConstPointerNull(h->ptr));
    LLVMSetLinkage(*gs[i], LLVMInternalLinkage);
  }
  char *name = sl_cat(p->name, "_set_parallel", "");
  LLVMTypeRef sparams[2] = {h->ptr, h->ptr};
  LLVMValueRef set = sl_add_function(h, name ? name : "", LLVMVoidTypeInContext(h->ctx), sparams, 2);
  free(name);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, set, "entry"));
  LLVMBuildStore(h->b, LLVMGetParam(set, 0), h->parallel_for);
  LLVMBuildStore(h->b, LLVMGetParam(set, 1), h->parallel_ctx);
  LLVMBuildRetVoid(h->b);

  LLVMTypeRef wparams[2] = {h->ptr, h->i32};
  h->workgroup_fn = sl_add_function(h, "kiln.workgroup", LLVMVoidTypeInContext(h->ctx), wparams, 2);
  LLVMSetLinkage(h->workgroup_fn, LLVMInternalLinkage);
  LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, h->workgroup_fn, "entry"));
  LLVMValueRef c = LLVMGetParam(h->workgroup_fn, 0);
  LLVMValueRef i = LLVMBuildZExt(h->b, LLVMGetParam(h->workgroup_fn, 1), h->i64, "");
  LLVMValueRef entry = LLVMBuildLoad2(h->b, h->ptr, sl_field(h, h->closure, c, 0), "");
  LLVMValueRef state = LLVMBuildLoad2(h->b, h->ptr, sl_field(h, h->closure, c, 1), "");
  LLVMTypeRef a3 = LLVMArrayType2(h->i32, 3);
  LLVMValueRef counts = sl_field(h, h->abi.dispatch_state, state, KILN_LLVM_CPU_dispatch_state_workgroup_count);
  LLVMValueRef cnt[2];
  for (unsigned k = 0; k < 2; k++) {
    LLVMValueRef idx[2] = {sl_i64(h, 0), sl_i64(h, k)};
    cnt[k] = LLVMBuildZExt(h->b, LLVMBuildLoad2(h->b, h->i32, LLVMBuildInBoundsGEP2(h->b, a3, counts, idx, 2, ""), ""),
                           h->i64, "");
  }
  LLVMValueRef wg = LLVMBuildAlloca(h->b, h->abi.workgroup_state, "workgroup");
  LLVMBuildStore(h->b, LLVMConstNull(h->abi.workgroup_state), wg);
  LLVMValueRef ids[3] = {LLVMBuildURem(h->b, i, cnt[0], ""),
                         LLVMBuildURem(h->b, LLVMBuildUDiv(h->b, i, cnt[0], ""), cnt[1], ""),
                         LLVMBuildUDiv(h->b, i, LLVMBuildMul(h->b, cnt[0], cnt[1], ""), "")};
  for (unsigned k = 0; k < 3; k++) {
    LLVMValueRef idx[2] = {sl_i64(h, 0), sl_i64(h, k)};
    LLVMBuildStore(h->b, LLVMBuildTrunc(h->b, ids[k], h->i32, ""),
                   LLVMBuildInBoundsGEP2(h->b, a3, sl_field(h, h->abi.workgroup_state, wg, KILN_LLVM_CPU_workgroup_state_workgroup_id), idx, 2, ""));
  }
  LLVMValueRef args[2] = {state, wg};
  LLVMValueRef rc = LLVMBuildCall2(h->b, h->abi.entry_fn, entry, args, 2, "");
  LLVMBasicBlockRef bad = LLVMAppendBasicBlockInContext(h->ctx, h->workgroup_fn, "failed");
  LLVMBasicBlockRef out = LLVMAppendBasicBlockInContext(h->ctx, h->workgroup_fn, "out");
  LLVMBuildCondBr(h->b, LLVMBuildICmp(h->b, LLVMIntNE, rc, sl_i32(h, 0), ""), bad, out);
  LLVMPositionBuilderAtEnd(h->b, bad);
  LLVMValueRef st = LLVMBuildStore(h->b, sl_i32(h, 1), sl_field(h, h->closure, c, 2));
  LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(st, 4);
  LLVMBuildBr(h->b, out);
  LLVMPositionBuilderAtEnd(h->b, out);
  LLVMBuildRetVoid(h->b);
}

/* Embedded: one private constant per blob. External: the global the app
 * sets with int NAME_set_weights(const void *data, size_t size), which
 * refuses (SL_WEIGHTS) a NULL, misaligned or wrongly sized buffer. */
static void sl_emit_weights(sl_host *h, const sl_plan *p) {
  if (p->weight_offsets) {
    h->external_weights = LLVMAddGlobal(h->m, h->ptr, "kiln.weights");
    LLVMSetInitializer(h->external_weights, LLVMConstPointerNull(h->ptr));
    LLVMSetLinkage(h->external_weights, LLVMInternalLinkage);
    char *name = sl_cat(p->name, "_set_weights", "");
    LLVMTypeRef params[2] = {h->ptr, h->i64};
    LLVMValueRef fn = sl_add_function(h, name ? name : "", h->i32, params, 2);
    free(name);
    LLVMPositionBuilderAtEnd(h->b, LLVMAppendBasicBlockInContext(h->ctx, fn, "entry"));
    LLVMValueRef data = LLVMGetParam(fn, 0);
    sl_fail_if(h, fn, sl_is_null(h, data), SL_WEIGHTS);
    LLVMValueRef low = LLVMBuildAnd(h->b, LLVMBuildPtrToInt(h->b, data, h->i64, ""), sl_i64(h, 63), "");
    sl_fail_if(h, fn, LLVMBuildICmp(h->b, LLVMIntNE, low, sl_i64(h, 0), ""), SL_WEIGHTS);
    sl_fail_if(h, fn, LLVMBuildICmp(h->b, LLVMIntNE, LLVMGetParam(fn, 1), sl_i64(h, p->weights_size), ""),
               SL_WEIGHTS);
    LLVMBuildStore(h->b, data, h->external_weights);
    LLVMBuildRet(h->b, sl_i32(h, SL_OK));
    return;
  }
  for (uint32_t i = 0; i < p->rodata_count; i++) {
    LLVMValueRef init = LLVMConstStringInContext2(h->ctx, p->rodata[i].data, p->rodata[i].size, 1);
    char name[48];
    snprintf(name, sizeof name, "kiln.weight.%u", i);
    LLVMValueRef g = LLVMAddGlobal(h->m, LLVMTypeOf(init), name);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetAlignment(g, 64);
    h->weights[i] = g;
  }
}

kiln_error *sl_host_object(const sl_plan *p, uint8_t **data, size_t *size) {
  *data = NULL;
  *size = 0;
  kiln_llvm_cpu_target_t target;
  kiln_error *err = kiln_llvm_cpu_target_parse(p->target, &target);
  if (err) return err;
  LLVMTargetMachineRef tm = NULL;
  err = kiln_llvm_cpu_target_machine_create(&target, &tm);
  if (err) {
    kiln_llvm_cpu_target_release(&target);
    return err;
  }
  sl_host h;
  memset(&h, 0, sizeof h);
  h.ctx = LLVMContextCreate();
  h.m = LLVMModuleCreateWithNameInContext(p->name, h.ctx);
  h.b = LLVMCreateBuilderInContext(h.ctx);
  kiln_llvm_cpu_abi_init(&h.abi, h.ctx);
  h.i8 = LLVMInt8TypeInContext(h.ctx);
  h.i32 = h.abi.i32;
  h.i64 = h.abi.i64;
  h.ptr = h.abi.ptr;
  h.weights = calloc(p->rodata_count + 1, sizeof *h.weights);
  if (!h.weights) err = kiln_error_new("out of memory");
  LLVMSetTarget(h.m, target.triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(h.m, layout);
  LLVMDisposeTargetData(layout);
  if (!err) sl_emit_weights(&h, p);
  if (!err) sl_emit_parallel(&h, p);
  for (uint32_t i = 0; i < p->function_count && !err; i++) err = sl_emit_function(&h, p, &p->functions[i]);
  if (!err) sl_emit_messages(&h, p);
  char *msg = NULL;
  if (!err && LLVMVerifyModule(h.m, LLVMReturnStatusAction, &msg))
    err = kiln_error_new("static library: the host program does not verify: %s", msg ? msg : "");
  if (msg) LLVMDisposeMessage(msg);
  if (!err) {
    LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(h.m, "default<O2>", tm, o);
    LLVMDisposePassBuilderOptions(o);
    if (e) {
      char *em = LLVMGetErrorMessage(e);
      err = kiln_error_new("static library: optimizing the host program failed: %s", em);
      LLVMDisposeErrorMessage(em);
    }
  }
  kiln_llvm_cpu_bytes_t obj = {0};
  if (!err) err = kiln_llvm_cpu_emit(h.m, tm, KILN_LLVM_CPU_EMIT_OBJECT, &obj);
  if (!err) {
    *data = obj.data;
    *size = obj.size;
  }
  free(h.weights);
  LLVMDisposeBuilder(h.b);
  LLVMDisposeModule(h.m);
  LLVMContextDispose(h.ctx);
  LLVMDisposeTargetMachine(tm);
  kiln_llvm_cpu_target_release(&target);
  return err;
}
