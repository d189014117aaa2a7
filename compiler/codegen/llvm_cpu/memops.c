/* Lowers calls of llvm.memset / llvm.memcpy / llvm.memmove (any overload,
 * including the .inline forms) to calls of internal helpers holding byte
 * loops. LLVM's code generator turns these intrinsics into calls of libc's
 * memset/memcpy/memmove whenever the length is unknown or large, and a
 * Kiln executable has no libc; with every function "no-builtins" (see
 * prepare.c) the optimizer then neither re-forms the intrinsics from the
 * loops nor calls libc, and still inlines and vectorizes the loops.
 * Guarantees: afterwards the module calls none of these intrinsics; a
 * pointer outside address space 0 is an error naming the function. */
#include <string.h>

#include "lcpu_internal.h"

typedef enum { LCPU_MEMSET, LCPU_MEMCPY, LCPU_MEMMOVE, LCPU_MEMOP_COUNT } lcpu_memop_t;

static const char *const lcpu_memop_intrinsic[LCPU_MEMOP_COUNT] = {
    "llvm.memset.", "llvm.memcpy.", "llvm.memmove."};
static const char *const lcpu_memop_helper[LCPU_MEMOP_COUNT][2] = {
    {"kiln.memset", "kiln.memset.volatile"},
    {"kiln.memcpy", "kiln.memcpy.volatile"},
    {"kiln.memmove", "kiln.memmove.volatile"}};

typedef struct lcpu_memctx {
  LLVMContextRef ctx;
  LLVMModuleRef module;
  LLVMTypeRef i1, i8, i64, ptr, void_t;
} lcpu_memctx_t;

/* One byte step at index I: d[i] = v (memset) or d[i] = s[i]. */
static void lcpu_byte_step(const lcpu_memctx_t *c, LLVMBuilderRef b,
                           lcpu_memop_t op, bool is_volatile, LLVMValueRef d,
                           LLVMValueRef s_or_v, LLVMValueRef i) {
  LLVMValueRef v = s_or_v;
  if (op != LCPU_MEMSET) {
    v = LLVMBuildLoad2(b, c->i8, LLVMBuildInBoundsGEP2(b, c->i8, s_or_v, &i, 1, ""), "");
    LLVMSetVolatile(v, is_volatile);
  }
  LLVMValueRef st =
      LLVMBuildStore(b, v, LLVMBuildInBoundsGEP2(b, c->i8, d, &i, 1, ""));
  LLVMSetVolatile(st, is_volatile);
}

/* Emits `for (i = 0; i < n; i++)` (or downwards from n-1 when BACKWARD)
 * from block FROM, ending in a branch to EXIT. */
static void lcpu_byte_loop(const lcpu_memctx_t *c, LLVMValueRef fn,
                           LLVMBuilderRef b, LLVMBasicBlockRef from,
                           LLVMBasicBlockRef exit, lcpu_memop_t op,
                           bool is_volatile, bool backward) {
  LLVMValueRef d = LLVMGetParam(fn, 0), sv = LLVMGetParam(fn, 1),
               n = LLVMGetParam(fn, 2);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c->ctx, fn, "loop");
  LLVMPositionBuilderAtEnd(b, from);
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef one = LLVMConstInt(c->i64, 1, 0);
  LLVMValueRef i = LLVMBuildPhi(b, c->i64, "i");
  LLVMValueRef start = backward ? n : LLVMConstInt(c->i64, 0, 0);
  LLVMValueRef next, more, at;
  if (backward) { /* i counts n..1, the byte is i-1 */
    at = LLVMBuildSub(b, i, one, "at");
    next = at;
    more = LLVMBuildICmp(b, LLVMIntNE, next, LLVMConstInt(c->i64, 0, 0), "");
  } else {
    at = i;
    next = LLVMBuildAdd(b, i, one, "");
    more = LLVMBuildICmp(b, LLVMIntULT, next, n, "");
  }
  lcpu_byte_step(c, b, op, is_volatile, d, sv, at);
  LLVMBuildCondBr(b, more, loop, exit);
  LLVMValueRef vals[2] = {start, next};
  LLVMBasicBlockRef blocks[2] = {from, loop};
  LLVMAddIncoming(i, vals, blocks, 2);
}

/* void kiln.OP[.volatile](ptr d, i8 v | ptr s, i64 n) */
static LLVMValueRef lcpu_helper(const lcpu_memctx_t *c, lcpu_memop_t op,
                                bool is_volatile) {
  const char *name = lcpu_memop_helper[op][is_volatile];
  LLVMTypeRef params[3] = {c->ptr, op == LCPU_MEMSET ? c->i8 : c->ptr, c->i64};
  LLVMTypeRef type = LLVMFunctionType(c->void_t, params, 3, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(c->module, name);
  if (fn) /* ours from an earlier call, or a clash the caller reports */
    return LLVMGlobalGetValueType(fn) == type && !LLVMIsDeclaration(fn) ? fn : NULL;
  fn = LLVMAddFunction(c->module, name, type);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c->ctx);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(c->ctx, fn, "entry");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(c->ctx, fn, "nonempty");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(c->ctx, fn, "exit");
  LLVMPositionBuilderAtEnd(b, entry);
  LLVMValueRef empty = LLVMBuildICmp(b, LLVMIntEQ, LLVMGetParam(fn, 2),
                                     LLVMConstInt(c->i64, 0, 0), "");
  LLVMBuildCondBr(b, empty, exit, body);
  if (op == LCPU_MEMMOVE) {
    /* Overlap-safe: copy upwards when the destination starts below the
     * source, downwards otherwise. */
    LLVMBasicBlockRef up = LLVMAppendBasicBlockInContext(c->ctx, fn, "up");
    LLVMBasicBlockRef down = LLVMAppendBasicBlockInContext(c->ctx, fn, "down");
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef below = LLVMBuildICmp(b, LLVMIntULT, LLVMGetParam(fn, 0),
                                       LLVMGetParam(fn, 1), "");
    LLVMBuildCondBr(b, below, up, down);
    lcpu_byte_loop(c, fn, b, up, exit, op, is_volatile, false);
    lcpu_byte_loop(c, fn, b, down, exit, op, is_volatile, true);
  } else {
    lcpu_byte_loop(c, fn, b, body, exit, op, is_volatile, false);
  }
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return fn;
}

static kiln_error *lcpu_lower_call(const lcpu_memctx_t *c,
                                   LLVMValueRef call,
                                   lcpu_memop_t op) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(call));
  size_t len;
  const char *fname = LLVMGetValueName2(fn, &len);
  LLVMValueRef d = LLVMGetOperand(call, 0), sv = LLVMGetOperand(call, 1),
               n = LLVMGetOperand(call, 2), vol = LLVMGetOperand(call, 3);
  if (LLVMGetPointerAddressSpace(LLVMTypeOf(d)) != 0 ||
      (op != LCPU_MEMSET && LLVMGetPointerAddressSpace(LLVMTypeOf(sv)) != 0))
    return kiln_error_new("llvm-cpu: function '%s' uses %s on a pointer outside "
                          "address space 0",
                          fname, lcpu_memop_intrinsic[op]);
  bool is_volatile = !LLVMIsAConstantInt(vol) || LLVMConstIntGetZExtValue(vol);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(c->ctx);
  LLVMPositionBuilderBefore(b, call);
  if (LLVMGetIntTypeWidth(LLVMTypeOf(n)) < 64) n = LLVMBuildZExt(b, n, c->i64, "");
  LLVMValueRef helper = lcpu_helper(c, op, is_volatile);
  if (!helper) {
    LLVMDisposeBuilder(b);
    return kiln_error_new("llvm-cpu: the module already has a different '%s'; "
                          "the kiln. prefix is reserved for the back end",
                          lcpu_memop_helper[op][is_volatile]);
  }
  LLVMValueRef args[3] = {d, sv, n};
  LLVMBuildCall2(b, LLVMGlobalGetValueType(helper), helper, args, 3, "");
  LLVMDisposeBuilder(b);
  LLVMInstructionEraseFromParent(call);
  return NULL;
}

kiln_error *lcpu_lower_mem_intrinsics(LLVMModuleRef module) {
  lcpu_memctx_t c;
  c.module = module;
  c.ctx = LLVMGetModuleContext(module);
  c.i1 = LLVMInt1TypeInContext(c.ctx);
  c.i8 = LLVMInt8TypeInContext(c.ctx);
  c.i64 = LLVMInt64TypeInContext(c.ctx);
  c.ptr = LLVMPointerTypeInContext(c.ctx, 0);
  c.void_t = LLVMVoidTypeInContext(c.ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(module), next; fn; fn = next) {
    next = LLVMGetNextFunction(fn);
    if (!LLVMIsDeclaration(fn) || LLVMGetIntrinsicID(fn) == 0) continue;
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    int op = -1;
    for (int k = 0; k < LCPU_MEMOP_COUNT; k++)
      if (strncmp(name, lcpu_memop_intrinsic[k], strlen(lcpu_memop_intrinsic[k])) == 0)
        op = k;
    if (op < 0) continue;
    /* Each lowering erases the use it visits, so restart from the first. */
    for (LLVMUseRef use; (use = LLVMGetFirstUse(fn));) {
      LLVMValueRef user = LLVMGetUser(use);
      if (!LLVMIsACallInst(user) || LLVMGetCalledValue(user) != fn)
        return kiln_error_new("llvm-cpu: %s is used other than by a call", name);
      kiln_error *s = lcpu_lower_call(&c, user, (lcpu_memop_t)op);
      if (s) return s;
    }
    LLVMDeleteFunction(fn);
  }
  return NULL;
}
