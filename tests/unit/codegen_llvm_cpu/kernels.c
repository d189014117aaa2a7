/* Builds the test kernels described in kernels.h with the LLVM-C builder
 * and the llvm-cpu ABI helpers (no hand-written state GEPs). */
#include "kernels.h"

#include <stddef.h>
#include <string.h>

/* for (i = lo; i < hi; i++) body(i): emits the loop at the builder's
 * position and leaves the builder in the exit block. Rotated (a guard,
 * then the body with the test at its end), or top-tested as Kiln's
 * scf-to-cf emits it (a header testing i < hi, the body, which may hold
 * loops, and a latch back to the header). */
typedef void (*kernels_body_fn)(LLVMBuilderRef b, LLVMValueRef i, void *arg);

static void kernels_loop_form(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef fn,
                              LLVMValueRef lo, LLVMValueRef hi, kernels_body_fn body,
                              void *arg, bool top_tested) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(ctx);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef head = top_tested ? LLVMAppendBasicBlockInContext(ctx, fn, "head") : NULL;
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(ctx, fn, "loop");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(ctx, fn, "exit");
  LLVMValueRef i;
  if (top_tested) {
    LLVMBuildBr(b, head);
    LLVMPositionBuilderAtEnd(b, head);
    i = LLVMBuildPhi(b, i64, "i");
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, i, hi, ""), loop, exit);
    LLVMPositionBuilderAtEnd(b, loop);
  } else {
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, lo, hi, ""), loop, exit);
    LLVMPositionBuilderAtEnd(b, loop);
    i = LLVMBuildPhi(b, i64, "i");
  }
  body(b, i, arg);
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMValueRef next = LLVMBuildAdd(b, i, LLVMConstInt(i64, 1, 0), "i.next");
  if (top_tested)
    LLVMBuildBr(b, head);
  else
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, hi, ""), loop, exit);
  LLVMValueRef in_vals[2] = {lo, next};
  LLVMBasicBlockRef in_blocks[2] = {pre, latch};
  LLVMAddIncoming(i, in_vals, in_blocks, 2);
  LLVMPositionBuilderAtEnd(b, exit);
}

static void kernels_loop(LLVMContextRef ctx, LLVMBuilderRef b, LLVMValueRef fn,
                         LLVMValueRef lo, LLVMValueRef hi,
                         kernels_body_fn body, void *arg) {
  kernels_loop_form(ctx, b, fn, lo, hi, body, arg, false);
}

typedef struct kernels_mul_args {
  LLVMTypeRef f32;
  LLVMValueRef a, bb, out;
} kernels_mul_args_t;

static void kernels_mul_body(LLVMBuilderRef b, LLVMValueRef i, void *arg) {
  kernels_mul_args_t *m = arg;
  LLVMValueRef pa = LLVMBuildInBoundsGEP2(b, m->f32, m->a, &i, 1, "");
  LLVMValueRef pb = LLVMBuildInBoundsGEP2(b, m->f32, m->bb, &i, 1, "");
  LLVMValueRef po = LLVMBuildInBoundsGEP2(b, m->f32, m->out, &i, 1, "");
  LLVMValueRef prod = LLVMBuildFMul(b, LLVMBuildLoad2(b, m->f32, pa, "a"),
                                    LLVMBuildLoad2(b, m->f32, pb, "b"), "prod");
  LLVMBuildStore(b, prod, po);
}

static LLVMValueRef kernels_entry(const kiln_llvm_cpu_abi_t *abi,
                                  LLVMModuleRef m, LLVMBuilderRef b,
                                  const char *name) {
  LLVMValueRef fn = kiln_llvm_cpu_abi_add_entry(abi, m, name);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(abi->context, fn,
                                                            "entry"));
  return fn;
}

static LLVMModuleRef kernels_finish(const kiln_llvm_cpu_abi_t *abi,
                                    LLVMModuleRef m, LLVMBuilderRef b,
                                    const kiln_llvm_cpu_export_t *e) {
  LLVMBuildRet(b, LLVMConstInt(abi->i32, 0, 0));
  LLVMDisposeBuilder(b);
  kiln_error *s = kiln_llvm_cpu_abi_emit_table(abi, m, e, 1);
  if (s) { /* a bug in the test itself: make it visible */
    kiln_error_free(s);
    LLVMDisposeModule(m);
    return NULL;
  }
  return m;
}

LLVMModuleRef kernels_mul_module(LLVMContextRef ctx) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("mul", ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fn = kernels_entry(&abi, m, b, "mul_entry");
  LLVMValueRef dispatch = LLVMGetParam(fn, 0), wg = LLVMGetParam(fn, 1);

  kernels_mul_args_t args = {LLVMFloatTypeInContext(ctx), NULL, NULL, NULL};
  args.a = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 0, 64);
  args.bb = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 1, 64);
  args.out = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 2, 64);
  LLVMValueRef n = LLVMBuildZExt(
      b, kiln_llvm_cpu_abi_load_push_constant(&abi, b, dispatch, 0), abi.i64, "n");
  LLVMValueRef id = LLVMBuildZExt(
      b, kiln_llvm_cpu_abi_load_workgroup_id(&abi, b, wg, 0), abi.i64, "id");
  LLVMValueRef lo = LLVMBuildMul(b, id, LLVMConstInt(abi.i64, KERNELS_MUL_TILE, 0), "lo");
  LLVMValueRef end = LLVMBuildAdd(b, lo, LLVMConstInt(abi.i64, KERNELS_MUL_TILE, 0), "");
  LLVMValueRef hi = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, end, n, ""),
                                    end, n, "hi");
  kernels_loop(ctx, b, fn, lo, hi, kernels_mul_body, &args);

  kiln_llvm_cpu_export_t e = {"mul", fn, {KERNELS_MUL_TILE, 1, 1}, 3, 1, 0x3};
  return kernels_finish(&abi, m, b, &e);
}

typedef struct kernels_store_args {
  LLVMTypeRef type;
  LLVMValueRef dst, src; /* src NULL: store zero */
} kernels_store_args_t;

static void kernels_store_body(LLVMBuilderRef b, LLVMValueRef i, void *arg) {
  kernels_store_args_t *s = arg;
  LLVMValueRef v = LLVMConstNull(s->type);
  if (s->src)
    v = LLVMBuildLoad2(b, s->type,
                       LLVMBuildInBoundsGEP2(b, s->type, s->src, &i, 1, ""), "");
  LLVMBuildStore(b, v, LLVMBuildInBoundsGEP2(b, s->type, s->dst, &i, 1, ""));
}

LLVMModuleRef kernels_fill_module(LLVMContextRef ctx) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("fill", ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fn = kernels_entry(&abi, m, b, "fill_entry");
  LLVMValueRef dispatch = LLVMGetParam(fn, 0);
  kernels_store_args_t s = {abi.i32, NULL, NULL};
  s.dst = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 0, 16);
  LLVMValueRef bytes = kiln_llvm_cpu_abi_load_binding_length(&abi, b, dispatch, 0);
  LLVMValueRef words = LLVMBuildLShr(b, bytes, LLVMConstInt(abi.i64, 2, 0), "words");
  kernels_loop(ctx, b, fn, LLVMConstInt(abi.i64, 0, 0), words,
               kernels_store_body, &s);
  s.dst = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 1, 16);
  kernels_loop(ctx, b, fn, LLVMConstInt(abi.i64, 0, 0),
               LLVMConstInt(abi.i64, KERNELS_FILL_FIXED, 0), kernels_store_body, &s);
  kiln_llvm_cpu_export_t e = {"fill", fn, {1, 1, 1}, 2, 0, 0};
  return kernels_finish(&abi, m, b, &e);
}

LLVMModuleRef kernels_copy_module(LLVMContextRef ctx) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("copy", ctx);
  char bytes[KERNELS_COPY_BYTES];
  for (uint32_t i = 0; i < KERNELS_COPY_BYTES; i++)
    bytes[i] = (char)kernels_copy_byte(i);
  LLVMValueRef init = LLVMConstStringInContext2(ctx, bytes, sizeof bytes, 1);
  LLVMValueRef table = LLVMAddGlobal(m, LLVMTypeOf(init), "table");
  LLVMSetInitializer(table, init);
  LLVMSetGlobalConstant(table, 1);
  LLVMSetLinkage(table, LLVMPrivateLinkage);

  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fn = kernels_entry(&abi, m, b, "copy_entry");
  LLVMValueRef dispatch = LLVMGetParam(fn, 0);
  kernels_store_args_t s = {LLVMInt8TypeInContext(ctx), NULL, table};
  s.dst = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 0, 1);
  kernels_loop(ctx, b, fn, LLVMConstInt(abi.i64, 0, 0),
               LLVMConstInt(abi.i64, KERNELS_COPY_BYTES, 0), kernels_store_body,
               &s);
  kiln_llvm_cpu_export_t e = {"copy", fn, {1, 1, 1}, 1, 0, 0};
  return kernels_finish(&abi, m, b, &e);
}

/* call void @llvm.NAME(args..., i1 false) with overloads TYPES */
static void kernels_intrinsic(LLVMModuleRef m, LLVMBuilderRef b,
                              const char *name, LLVMTypeRef *types,
                              size_t ntypes, LLVMValueRef *args, unsigned nargs) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, types, ntypes);
  LLVMTypeRef type = LLVMIntrinsicGetType(ctx, id, types, ntypes);
  args[nargs] = LLVMConstInt(LLVMInt1TypeInContext(ctx), 0, 0);
  LLVMBuildCall2(b, type, fn, args, nargs + 1, "");
}

LLVMModuleRef kernels_memops_module(LLVMContextRef ctx) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("memops", ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fn = kernels_entry(&abi, m, b, "memops_entry");
  LLVMValueRef dispatch = LLVMGetParam(fn, 0);
  LLVMTypeRef i8 = LLVMInt8TypeInContext(ctx);
  LLVMValueRef a = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 0, 1);
  LLVMValueRef bb = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 1, 1);
  LLVMValueRef n32 = kiln_llvm_cpu_abi_load_push_constant(&abi, b, dispatch, 0);
  LLVMValueRef n = LLVMBuildZExt(b, n32, abi.i64, "n");
  LLVMValueRef sixteen = LLVMConstInt(abi.i64, 16, 0);
  LLVMValueRef b16 = LLVMBuildInBoundsGEP2(b, i8, bb, &sixteen, 1, "b16");
  LLVMTypeRef copy_types[3] = {abi.ptr, abi.ptr, abi.i64};
  LLVMTypeRef set_types[2] = {abi.ptr, abi.i32};
  LLVMValueRef args[4];
  args[0] = bb, args[1] = a, args[2] = n;
  kernels_intrinsic(m, b, "llvm.memcpy", copy_types, 3, args, 3);
  args[0] = a, args[1] = LLVMConstInt(i8, 0x7f, 0), args[2] = n32;
  kernels_intrinsic(m, b, "llvm.memset", set_types, 2, args, 3);
  args[0] = b16, args[1] = bb, args[2] = n;
  kernels_intrinsic(m, b, "llvm.memmove", copy_types, 3, args, 3);
  args[0] = bb, args[1] = b16, args[2] = n;
  kernels_intrinsic(m, b, "llvm.memmove", copy_types, 3, args, 3);
  kiln_llvm_cpu_export_t e = {"memops", fn, {1, 1, 1}, 2, 1, 0};
  return kernels_finish(&abi, m, b, &e);
}

kiln_error *kernels_compile(LLVMModuleRef module,
                            const char *target_text,
                            kiln_llvm_cpu_bytes_t *so) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse(target_text, &t);
  if (!s) s = kiln_llvm_cpu_compile(module, &t, so);
  kiln_llvm_cpu_target_release(&t);
  LLVMDisposeModule(module);
  return s;
}

/* transpose: b[i][j][k] = a[k][i][j] for a 64x4x32 -> 4x32x64 f32
 * tensor, three static loops (i outermost, k innermost). */
typedef struct kernels_transpose_args {
  LLVMContextRef ctx;
  LLVMValueRef fn, a, out, i, j;
  LLVMTypeRef f32, i64;
} kernels_transpose_args_t;

static LLVMValueRef kernels_index(kernels_transpose_args_t *t, LLVMBuilderRef b,
                                  LLVMValueRef x, uint64_t sx, LLVMValueRef y, uint64_t sy,
                                  LLVMValueRef z) {
  LLVMValueRef v = LLVMBuildMul(b, x, LLVMConstInt(t->i64, sx, 0), "");
  v = LLVMBuildAdd(b, v, LLVMBuildMul(b, y, LLVMConstInt(t->i64, sy, 0), ""), "");
  return LLVMBuildAdd(b, v, z, "");
}

static void kernels_transpose_k(LLVMBuilderRef b, LLVMValueRef k, void *arg) {
  kernels_transpose_args_t *t = arg;
  LLVMValueRef from = kernels_index(t, b, k, 128, t->i, 32, t->j);
  LLVMValueRef to = kernels_index(t, b, t->i, 2048, t->j, 64, k);
  LLVMValueRef v =
      LLVMBuildLoad2(b, t->f32, LLVMBuildInBoundsGEP2(b, t->f32, t->a, &from, 1, ""), "");
  LLVMBuildStore(b, v, LLVMBuildInBoundsGEP2(b, t->f32, t->out, &to, 1, ""));
}

static void kernels_transpose_j(LLVMBuilderRef b, LLVMValueRef j, void *arg) {
  kernels_transpose_args_t *t = arg;
  t->j = j;
  kernels_loop_form(t->ctx, b, t->fn, LLVMConstInt(t->i64, 0, 0),
                    LLVMConstInt(t->i64, 64, 0), kernels_transpose_k, t, true);
}

static void kernels_transpose_i(LLVMBuilderRef b, LLVMValueRef i, void *arg) {
  kernels_transpose_args_t *t = arg;
  t->i = i;
  kernels_loop_form(t->ctx, b, t->fn, LLVMConstInt(t->i64, 0, 0),
                    LLVMConstInt(t->i64, 32, 0), kernels_transpose_j, t, true);
}

LLVMModuleRef kernels_transpose_module(LLVMContextRef ctx) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("transpose", ctx);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fn = kernels_entry(&abi, m, b, "transpose_entry");
  LLVMValueRef dispatch = LLVMGetParam(fn, 0);
  kernels_transpose_args_t t = {ctx, fn, NULL, NULL, NULL, NULL,
                                LLVMFloatTypeInContext(ctx), abi.i64};
  t.a = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 0, 64);
  t.out = kiln_llvm_cpu_abi_load_binding(&abi, b, dispatch, 1, 64);
  kernels_loop_form(ctx, b, fn, LLVMConstInt(abi.i64, 0, 0), LLVMConstInt(abi.i64, 4, 0),
                    kernels_transpose_i, &t, true);
  kiln_llvm_cpu_export_t e = {"transpose", fn, {1, 1, 1}, 2, 0, 0x1};
  return kernels_finish(&abi, m, b, &e);
}
