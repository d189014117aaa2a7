/* The back end end to end, checked on the PTX text: the four test kernels
 * compile for every SM into one .entry each with their launch bounds,
 * shared arrays, barriers and shuffles, at the PTX version of the target;
 * the per-kernel metadata matches; output is deterministic and emission
 * leaves the module alone. Errors come back as messages before any PTX
 * exists: broken modules, undefined callees (expf), math intrinsics that
 * would need libm (with llc-19 showing that LLVM alone would exit or
 * abort on them), bad kernel shapes, too much shared memory, and errors
 * LLVM's code generator reports through the context. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"
#include "tools.h"

static void ok(kiln_error *s) {
  ck_assert_msg(s == NULL, "%s", kiln_error_message(s));
}

static void fails_with(kiln_error *s, const char *needle) {
  ck_assert_msg(s != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg(strstr(kiln_error_message(s), needle),
                "message '%s' lacks '%s'", kiln_error_message(s),
                needle);
  kiln_error_free(s);
}

static kiln_ptx_target_t target(const char *text) {
  kiln_ptx_target_t t;
  ok(kiln_ptx_target_parse(text, &t));
  return t;
}

static kiln_ptx_result_t compile_mask(const char *target_text, unsigned mask) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_module(ctx, mask);
  ck_assert_ptr_nonnull(m);
  kiln_ptx_target_t t = target(target_text);
  kiln_ptx_result_t r;
  ok(kiln_ptx_compile(m, &t, &r));
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  ck_assert_ptr_nonnull(r.ptx.data);
  ck_assert_uint_eq(strlen((char *)r.ptx.data), r.ptx.size);
  return r;
}

/* The text of kernel NAME's .entry up to the next .entry (or the end);
 * malloc'ed. */
static char *entry_section(const char *ptx, const char *name) {
  char head[128];
  snprintf(head, sizeof head, ".visible .entry %s(", name);
  const char *start = strstr(ptx, head);
  ck_assert_msg(start, "no '%s' in:\n%.3000s", head, ptx);
  const char *end = strstr(start + strlen(head), ".entry ");
  size_t len = end ? (size_t)(end - start) : strlen(start);
  char *s = malloc(len + 1);
  memcpy(s, start, len);
  s[len] = 0;
  return s;
}

static void section_has(const char *ptx, const char *name, const char *needle) {
  char *s = entry_section(ptx, name);
  ck_assert_msg(strstr(s, needle), "kernel %s lacks '%s':\n%.4000s", name,
                needle, s);
  free(s);
}

static void section_lacks(const char *ptx, const char *name, const char *needle) {
  char *s = entry_section(ptx, name);
  ck_assert_msg(!strstr(s, needle), "kernel %s has '%s':\n%.4000s", name,
                needle, s);
  free(s);
}

static const char *const all_sms[] = {"cuda:sm_75", "cuda:sm_80", "cuda:sm_86",
                                      "cuda:sm_87", "cuda:sm_89", "cuda:sm_90",
                                      "cuda:sm_90a"};

START_TEST(kernels_become_entries_for_each_sm) {
  for (size_t i = 0; i < sizeof all_sms / sizeof all_sms[0]; i++) {
    kiln_ptx_target_t t = target(all_sms[i]);
    kiln_ptx_result_t r = compile_mask(all_sms[i], KERNELS_ALL);
    const char *ptx = (const char *)r.ptx.data;
    char want[64];
    snprintf(want, sizeof want, "\n.version %u.%u\n", t.ptx_version / 10,
             t.ptx_version % 10);
    ck_assert_msg(strstr(ptx, want), "%s: no '%s':\n%.500s", t.sm, want, ptx);
    snprintf(want, sizeof want, "\n.target %s\n", t.sm);
    ck_assert_msg(strstr(ptx, want), "%s: no '%s':\n%.500s", t.sm, want, ptx);
    ck_assert_ptr_nonnull(strstr(ptx, "\n.address_size 64\n"));

    section_has(ptx, "elementwise", ".maxntid 256, 1, 1");
    section_has(ptx, "matmul_tiled", ".reqntid 16, 16, 1");
    section_has(ptx, "reduce_sum", ".reqntid 256, 1, 1");
    section_has(ptx, "reverse_block", ".maxntid 1024, 1, 1");
    section_lacks(ptx, "elementwise", ".reqntid");

    /* read-only noalias bindings take the non-coherent path */
    section_has(ptx, "elementwise", "ld.global.nc.f32");
    section_has(ptx, "elementwise", "st.global.f32");
    /* the tiles: static shared arrays, barriers around the dot product */
    section_has(ptx, "matmul_tiled", ".shared .align 16 .b8 a_tile[1024];");
    section_has(ptx, "matmul_tiled", ".shared .align 16 .b8 b_tile[1024];");
    section_has(ptx, "matmul_tiled", "st.shared.f32");
    section_has(ptx, "matmul_tiled", "bar.sync \t0;");
    section_has(ptx, "matmul_tiled", "fma.rn.f32");
    /* the reduction: butterfly shuffles, warp sums in shared memory */
    section_has(ptx, "reduce_sum", ".shared .align 4 .b8 warp_sums[128];");
    section_has(ptx, "reduce_sum", "shfl.sync.bfly.b32");
    section_has(ptx, "reduce_sum", "bar.sync \t0;");
    /* dynamic shared memory is one module-level extern array */
    ck_assert_ptr_nonnull(
        strstr(ptx, ".extern .shared .align 16 .b8 kiln_dynamic_shared[];"));
    section_has(ptx, "reverse_block", "kiln_dynamic_shared");
    section_lacks(ptx, "elementwise", ".shared");

    /* nothing but the kernels is visible, nothing external is called */
    ck_assert_msg(!strstr(ptx, ".extern .func"), "%.3000s", ptx);
    ck_assert_msg(!strstr(ptx, ".visible .func"), "%.3000s", ptx);
    int entries = 0;
    for (const char *p = ptx; (p = strstr(p, ".entry ")); p++) entries++;
    ck_assert_int_eq(entries, KERNELS_COUNT);
    kiln_ptx_result_release(&r);
    ck_assert_ptr_null(r.ptx.data);
    ck_assert_ptr_null(r.kernels);
  }
}
END_TEST

START_TEST(kernel_metadata) {
  kiln_ptx_result_t r = compile_mask("cuda:sm_80", KERNELS_ALL);
  ck_assert_uint_eq(r.kernel_count, KERNELS_COUNT);
  static const struct {
    uint32_t block[3];
    bool required;
    uint32_t shared;
    bool dynamic;
    uint32_t bindings, constants;
  } want[KERNELS_COUNT] = {
      {{256, 1, 1}, false, 0, false, 3, 1},
      {{16, 16, 1}, true, 2048, false, 3, 3},
      {{256, 1, 1}, true, 128, false, 2, 1},
      {{1024, 1, 1}, false, 0, true, 2, 1},
  };
  for (unsigned i = 0; i < KERNELS_COUNT; i++) {
    const kiln_ptx_kernel_info_t *k = &r.kernels[i];
    ck_assert_str_eq(k->name, kernels_names[i]);
    for (int d = 0; d < 3; d++) ck_assert_uint_eq(k->block_size[d], want[i].block[d]);
    ck_assert_int_eq(k->block_size_required, want[i].required);
    ck_assert_uint_eq(k->static_shared_bytes, want[i].shared);
    ck_assert_int_eq(k->uses_dynamic_shared, want[i].dynamic);
    ck_assert_uint_eq(k->binding_count, want[i].bindings);
    ck_assert_uint_eq(k->push_constant_count, want[i].constants);
  }
  kiln_ptx_result_release(&r);
}
END_TEST

/* A kernel using shared arrays through a helper function it calls, and
 * one array nobody uses: only the reached ones count, padded to their
 * alignment; a kernel without launch bounds reports 0,0,0. */
START_TEST(shared_bytes_follow_calls) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("calls", ctx);
  LLVMValueRef small, big, unused;
  ok(kiln_ptx_add_shared_array(&abi, m, "small", abi.i32, 3, 4, &small));
  ok(kiln_ptx_add_shared_array(&abi, m, "big", abi.f32, 64, 64, &big));
  ok(kiln_ptx_add_shared_array(&abi, m, "unused", abi.f32, 1000, 4, &unused));
  LLVMTypeRef helper_ty = LLVMFunctionType(abi.void_type, &abi.i32, 1, 0);
  LLVMValueRef helper = LLVMAddFunction(m, "store_big", helper_ty);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, helper, "entry"));
  LLVMValueRef i = LLVMBuildZExt(b, LLVMGetParam(helper, 0), abi.i64, "");
  LLVMBuildStore(b, LLVMConstReal(abi.f32, 1.0),
                 LLVMBuildInBoundsGEP2(b, abi.f32, big, &i, 1, ""));
  LLVMBuildRetVoid(b);
  /* noinline: the call must survive O3 for this test to mean anything */
  unsigned noinline = LLVMGetEnumAttributeKindForName("noinline", 8);
  LLVMAddAttributeAtIndex(helper, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, noinline, 0));

  kiln_ptx_kernel_desc_t d = {"k", 1, 1, 0, 4, 0};
  LLVMValueRef k;
  ok(kiln_ptx_abi_add_kernel(&abi, m, &d, &k));
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, k, "entry"));
  LLVMValueRef tid = kiln_ptx_read_sreg(&abi, b, KILN_PTX_SREG_THREAD_ID, 0);
  LLVMValueRef t64 = LLVMBuildZExt(b, tid, abi.i64, "");
  LLVMBuildStore(b, tid, LLVMBuildInBoundsGEP2(b, abi.i32, small, &t64, 1, ""));
  LLVMValueRef pc = LLVMGetParam(k, 1);
  LLVMBuildCall2(b, helper_ty, helper, &pc, 1, "");
  kiln_ptx_barrier(&abi, b);
  /* both arrays are read back: GlobalOpt drops arrays only stored to */
  LLVMValueRef v = LLVMBuildLoad2(
      b, abi.i32, LLVMBuildInBoundsGEP2(b, abi.i32, small, &t64, 1, ""), "v");
  LLVMValueRef w = LLVMBuildLoad2(
      b, abi.f32, LLVMBuildInBoundsGEP2(b, abi.f32, big, &t64, 1, ""), "w");
  v = LLVMBuildAdd(b, v, LLVMBuildFPToSI(b, w, abi.i32, ""), "");
  LLVMBuildStore(b, v, LLVMGetParam(k, 0));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);

  kiln_ptx_target_t t = target("cuda:sm_90");
  kiln_ptx_result_t r;
  ok(kiln_ptx_compile(m, &t, &r));
  ck_assert_uint_eq(r.kernel_count, 1);
  /* small: 12 bytes at 0; big: 256 bytes at 64 (its alignment) */
  ck_assert_uint_eq(r.kernels[0].static_shared_bytes, 64 + 256);
  ck_assert_uint_eq(r.kernels[0].block_size[0], 0);
  ck_assert_uint_eq(r.kernels[0].block_size[2], 0);
  ck_assert(!r.kernels[0].block_size_required);
  const char *ptx = (const char *)r.ptx.data;
  ck_assert_msg(strstr(ptx, ".func store_big("), "%.3000s", ptx);
  ck_assert_msg(!strstr(ptx, ".visible .func"), "%.3000s", ptx);
  ck_assert_msg(!strstr(ptx, "unused"), "%.3000s", ptx);
  kiln_ptx_result_release(&r);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* Modules from other producers mark kernels one way only: either marking
 * gives an .entry, and prepare completes the other. */
START_TEST(either_marking_makes_an_entry) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("marks", ctx);
  LLVMTypeRef ty = LLVMFunctionType(abi.void_type, &abi.global_ptr, 1, 0);
  LLVMValueRef by_cc = LLVMAddFunction(m, "by_cc", ty);
  LLVMSetFunctionCallConv(by_cc, LLVMPTXKernelCallConv);
  LLVMValueRef by_md = LLVMAddFunction(m, "by_annotation", ty);
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(by_md), LLVMMDStringInContext2(ctx, "kernel", 6),
      LLVMValueAsMetadata(LLVMConstInt(abi.i32, 1, 0))};
  LLVMAddNamedMetadataOperand(
      m, "nvvm.annotations", LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, 3)));
  LLVMValueRef plain = LLVMAddFunction(m, "plain", ty);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMValueRef fns[3] = {by_cc, by_md, plain};
  for (int i = 0; i < 3; i++) {
    LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fns[i], "entry"));
    LLVMBuildStore(b, LLVMConstReal(abi.f32, i), LLVMGetParam(fns[i], 0));
    LLVMBuildRetVoid(b);
  }
  LLVMDisposeBuilder(b);
  kiln_ptx_target_t t = target("cuda:sm_89");
  kiln_ptx_result_t r;
  ok(kiln_ptx_compile(m, &t, &r));
  ck_assert_int_eq(LLVMGetFunctionCallConv(by_md), LLVMPTXKernelCallConv);
  ck_assert_int_eq(LLVMGetFunctionCallConv(by_cc), LLVMPTXKernelCallConv);
  char *ir = LLVMPrintModuleToString(m);
  ck_assert_msg(strstr(ir, "!{ptr @by_cc, !\"kernel\", i32 1}"), "%s", ir);
  LLVMDisposeMessage(ir);
  const char *ptx = (const char *)r.ptx.data;
  ck_assert_msg(strstr(ptx, ".visible .entry by_cc(") &&
                    strstr(ptx, ".visible .entry by_annotation("),
                "%.3000s", ptx);
  /* the plain function is an internal helper nobody calls: gone */
  ck_assert_msg(!strstr(ptx, "plain"), "%.3000s", ptx);
  ck_assert_uint_eq(r.kernel_count, 2);
  ck_assert_str_eq(r.kernels[0].name, "by_cc");
  ck_assert_str_eq(r.kernels[1].name, "by_annotation");
  ck_assert_uint_eq(r.kernels[1].binding_count, 1);
  kiln_ptx_result_release(&r);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(output_is_deterministic_and_module_kept) {
  kiln_ptx_result_t a = compile_mask("cuda:sm_86", KERNELS_ALL);
  kiln_ptx_result_t b = compile_mask("cuda:sm_86", KERNELS_ALL);
  ck_assert_uint_eq(a.ptx.size, b.ptx.size);
  ck_assert(memcmp(a.ptx.data, b.ptx.data, a.ptx.size) == 0);
  kiln_ptx_result_release(&a);
  kiln_ptx_result_release(&b);

  /* emission works on a clone; the IR form is the module's text */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_module(ctx, 1u << KERNELS_MATMUL);
  kiln_ptx_target_t t = target("cuda:sm_80");
  LLVMTargetMachineRef tm;
  ok(kiln_ptx_target_machine_create(&t, &tm));
  ok(kiln_ptx_verify(m));
  ok(kiln_ptx_prepare(m, tm));
  ok(kiln_ptx_optimize(m, tm));
  char *before = LLVMPrintModuleToString(m);
  kiln_ptx_bytes_t ptx, ir;
  ok(kiln_ptx_emit(m, tm, KILN_PTX_EMIT_PTX, &ptx));
  ok(kiln_ptx_emit(m, tm, KILN_PTX_EMIT_LLVM_IR, &ir));
  ck_assert_str_eq((char *)ir.data, before);
  char *after = LLVMPrintModuleToString(m);
  ck_assert_str_eq(before, after);
  ck_assert_ptr_nonnull(strstr((char *)ir.data, "target triple = \"nvptx64-nvidia-cuda\""));
  ck_assert_ptr_nonnull(strstr((char *)ptx.data, ".entry matmul_tiled("));
  LLVMDisposeMessage(before);
  LLVMDisposeMessage(after);
  kiln_ptx_bytes_free(&ptx);
  kiln_ptx_bytes_free(&ir);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/*------------------------------------------------------------ errors */

/* A one-binding kernel "k" whose body BUILD fills in; returns the module. */
typedef void (*body_fn)(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                        LLVMBuilderRef b, LLVMValueRef fn);

static LLVMModuleRef one_kernel(LLVMContextRef ctx, body_fn build) {
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("one", ctx);
  kiln_ptx_kernel_desc_t d = {"k", 1, 1, 0, 4, 0};
  LLVMValueRef fn;
  ok(kiln_ptx_abi_add_kernel(&abi, m, &d, &fn));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  build(&abi, m, b, fn);
  LLVMDisposeBuilder(b);
  return m;
}

static kiln_error *compile_for(LLVMModuleRef m, const char *target_text) {
  kiln_ptx_target_t t = target(target_text);
  kiln_ptx_result_t r = {{(uint8_t *)&r, 1}, NULL, 7};
  kiln_error *s = kiln_ptx_compile(m, &t, &r);
  if (s) {
    ck_assert_ptr_null(r.ptx.data);
    ck_assert_ptr_null(r.kernels);
    ck_assert_uint_eq(r.kernel_count, 0);
  } else {
    kiln_ptx_result_release(&r);
  }
  return s;
}

static void body_broken(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                        LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMBuildRet(b, LLVMConstInt(abi->i32, 0, 0)); /* from a void function */
}

START_TEST(broken_module_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = one_kernel(ctx, body_broken);
  fails_with(compile_for(m, "cuda:sm_80"),
             "cuda: the LLVM module failed verification: Found return instr "
             "that returns non-void in Function of void return type");
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* out[0] = expf((float)pc0) with expf declared, never defined. */
static void body_expf(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                      LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMTypeRef ty = LLVMFunctionType(abi->f32, (LLVMTypeRef[]){abi->f32}, 1, 0);
  LLVMValueRef expf = LLVMAddFunction(m, "expf", ty);
  LLVMValueRef x = LLVMBuildSIToFP(b, LLVMGetParam(fn, 1), abi->f32, "x");
  LLVMBuildStore(b, LLVMBuildCall2(b, ty, expf, &x, 1, "e"), LLVMGetParam(fn, 0));
  LLVMBuildRetVoid(b);
}

START_TEST(undefined_callee_is_named) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = one_kernel(ctx, body_expf);
  fails_with(compile_for(m, "cuda:sm_90"),
             "cuda: function 'expf' is called but not defined in the module; "
             "Kiln's PTX links no library");
  LLVMDisposeModule(m);
  /* the message also says where math functions come from instead */
  m = one_kernel(ctx, body_expf);
  fails_with(compile_for(m, "cuda:sm_80"), "polynomial approximations");
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* The math intrinsics NVPTX cannot select, with how to call each. */
typedef enum { F_F, F_FF, F_FI, I32_F, I64_F } call_sig_t;
static const struct {
  const char *family;
  call_sig_t sig;
} libm_cases[] = {
    {"exp", F_F},   {"exp2", F_F},   {"exp10", F_F},   {"log", F_F},
    {"log2", F_F},  {"log10", F_F},  {"pow", F_FF},    {"powi", F_FI},
    {"sin", F_F},   {"cos", F_F},    {"tan", F_F},     {"asin", F_F},
    {"acos", F_F},  {"atan", F_F},   {"sinh", F_F},    {"cosh", F_F},
    {"tanh", F_F},  {"lround", I32_F}, {"llround", I64_F}, {"lrint", I32_F},
    {"llrint", I64_F},
};

static const char *current_family;
static call_sig_t current_sig;

/* out[0] = llvm.FAMILY(x[, y]) converted back to f32 as needed. */
static void body_intrinsic(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                           LLVMBuilderRef b, LLVMValueRef fn) {
  char name[64];
  snprintf(name, sizeof name, "llvm.%s", current_family);
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  ck_assert_msg(id != 0, "LLVM 19 has no %s", name);
  LLVMValueRef x = LLVMBuildSIToFP(b, LLVMGetParam(fn, 1), abi->f32, "x");
  LLVMTypeRef over[2];
  unsigned nover = 0;
  LLVMValueRef args[2] = {x, x};
  unsigned nargs = 1;
  switch (current_sig) {
  case F_F: over[nover++] = abi->f32; break;
  case F_FF: over[nover++] = abi->f32; nargs = 2; break;
  case F_FI:
    over[nover++] = abi->f32;
    over[nover++] = abi->i32;
    args[1] = LLVMGetParam(fn, 1);
    nargs = 2;
    break;
  case I32_F: over[nover++] = abi->i32; over[nover++] = abi->f32; break;
  case I64_F: over[nover++] = abi->i64; over[nover++] = abi->f32; break;
  }
  LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, id, over, nover);
  LLVMTypeRef ty = LLVMIntrinsicGetType(abi->context, id, over, nover);
  LLVMValueRef r = LLVMBuildCall2(b, ty, decl, args, nargs, "r");
  if (current_sig == I32_F || current_sig == I64_F)
    r = LLVMBuildSIToFP(b, r, abi->f32, "rf");
  LLVMBuildStore(b, r, LLVMGetParam(fn, 0));
  LLVMBuildRetVoid(b);
}

/* Runs llc-19 for sm_80 on M's text: its exit code. */
static int run_llc(LLVMModuleRef m, char **output) {
  char *ir = LLVMPrintModuleToString(m);
  char *path = tools_write_temp(ir, strlen(ir));
  LLVMDisposeMessage(ir);
  ck_assert_ptr_nonnull(path);
  const char *argv[] = {KILN_TEST_LLC, "-mtriple=nvptx64-nvidia-cuda",
                        "-mcpu=sm_80", "-o", "/dev/null", path, NULL};
  int code = tools_run(argv, output);
  unlink(path);
  free(path);
  return code;
}

START_TEST(math_intrinsics_need_polynomials) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (size_t i = 0; i < sizeof libm_cases / sizeof libm_cases[0]; i++) {
    current_family = libm_cases[i].family;
    current_sig = libm_cases[i].sig;
    LLVMModuleRef m = one_kernel(ctx, body_intrinsic);
    ok(kiln_ptx_verify(m));
    /* premise: LLVM alone cannot compile it (it exits or aborts) */
    char *out = NULL;
    int code = run_llc(m, &out);
    ck_assert_msg(code != 0, "llc compiled llvm.%s; drop it from "
                  "cuda_libm_intrinsics.def:\n%s", current_family, out);
    ck_assert_msg(strstr(out, "no libcall available") || strstr(out, "Cannot select"),
                  "llvm.%s: %s", current_family, out);
    free(out);
    char want[160];
    snprintf(want, sizeof want, "cuda: intrinsic 'llvm.%s.", current_family);
    kiln_error *s = compile_for(m, "cuda:sm_80");
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strstr(kiln_error_message(s), "polynomial approximation"),
                  "%s", kiln_error_message(s));
    fails_with(s, want);
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
}
END_TEST

/* Intrinsics outside the list compile, with llc and with us. */
START_TEST(selectable_intrinsics_pass) {
  static const char *const families[] = {"sqrt", "fabs", "floor", "ceil",
                                         "trunc", "rint", "round",
                                         "nearbyint", "copysign", "minnum",
                                         "maxnum"};
  LLVMContextRef ctx = LLVMContextCreate();
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
    current_family = families[i];
    current_sig = F_F;
    if (!strcmp(families[i], "copysign") || !strcmp(families[i], "minnum") ||
        !strcmp(families[i], "maxnum"))
      current_sig = F_FF;
    LLVMModuleRef m = one_kernel(ctx, body_intrinsic);
    char *out = NULL;
    ck_assert_msg(run_llc(m, &out) == 0, "llvm.%s: %s", families[i], out);
    free(out);
    ok(compile_for(m, "cuda:sm_80"));
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
}
END_TEST

static void body_internal(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                          LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  LLVMBuildRetVoid(b);
}

static void body_extern_global(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                               LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMValueRef g = LLVMAddGlobalInAddressSpace(m, abi->f32, "table", 1);
  LLVMBuildStore(b, LLVMBuildLoad2(b, abi->f32, g, "v"), LLVMGetParam(fn, 0));
  LLVMBuildRetVoid(b);
}

static void body_too_much_shared(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                                 LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMValueRef x, y;
  ok(kiln_ptx_add_shared_array(abi, m, "x", abi->f32, 8192, 0, &x));
  ok(kiln_ptx_add_shared_array(abi, m, "y", abi->f32, 8192, 0, &y));
  LLVMValueRef tid = LLVMBuildZExt(
      b, kiln_ptx_read_sreg(abi, b, KILN_PTX_SREG_THREAD_ID, 0), abi->i64, "");
  LLVMValueRef px = LLVMBuildInBoundsGEP2(b, abi->f32, x, &tid, 1, "");
  LLVMValueRef py = LLVMBuildInBoundsGEP2(b, abi->f32, y, &tid, 1, "");
  LLVMBuildStore(b, LLVMConstReal(abi->f32, 1.0), px);
  LLVMBuildStore(b, LLVMConstReal(abi->f32, 2.0), py);
  kiln_ptx_barrier(abi, b);
  LLVMValueRef s = LLVMBuildFAdd(b, LLVMBuildLoad2(b, abi->f32, px, ""),
                                 LLVMBuildLoad2(b, abi->f32, py, ""), "");
  LLVMBuildStore(b, s, LLVMGetParam(fn, 0));
  LLVMBuildRetVoid(b);
}

START_TEST(bad_kernels_are_errors) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = one_kernel(ctx, body_internal);
  fails_with(compile_for(m, "cuda:sm_80"),
             "cuda kernel 'k' has internal linkage; a PTX .entry must be visible");
  LLVMDisposeModule(m);

  m = one_kernel(ctx, body_extern_global);
  fails_with(compile_for(m, "cuda:sm_80"),
             "cuda: global 'table' is declared but not defined in the module");
  LLVMDisposeModule(m);

  m = one_kernel(ctx, body_too_much_shared);
  fails_with(compile_for(m, "cuda:sm_80"),
             "cuda kernel 'k' reaches more than 49152 bytes of static shared "
             "memory (65536 so far)");
  LLVMDisposeModule(m);

  /* a kernel by annotation alone, with a float parameter */
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  m = LLVMModuleCreateWithNameInContext("shape", ctx);
  LLVMTypeRef params[3] = {abi.global_ptr, abi.i32, abi.f32};
  LLVMValueRef fn = LLVMAddFunction(m, "odd",
                                    LLVMFunctionType(abi.void_type, params, 3, 0));
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  fails_with(compile_for(m, "cuda:sm_80"),
             "cuda kernel 'odd': parameter 2 has type float; a Kiln kernel takes "
             "its bindings (ptr addrspace(1)) first, then i32 push constants");
  LLVMDisposeModule(m);

  /* binding after a push constant */
  m = LLVMModuleCreateWithNameInContext("order", ctx);
  LLVMTypeRef swapped[2] = {abi.i32, abi.global_ptr};
  fn = LLVMAddFunction(m, "swapped", LLVMFunctionType(abi.void_type, swapped, 2, 0));
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  fails_with(compile_for(m, "cuda:sm_80"), "parameter 1 has type ptr addrspace(1)");
  LLVMDisposeModule(m);

  /* generic pointers are not bindings */
  m = LLVMModuleCreateWithNameInContext("generic", ctx);
  fn = LLVMAddFunction(m, "generic", LLVMFunctionType(abi.void_type, &abi.ptr, 1, 0));
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  fails_with(compile_for(m, "cuda:sm_80"), "parameter 0 has type ptr;");
  LLVMDisposeModule(m);

  /* a module without kernels */
  m = LLVMModuleCreateWithNameInContext("empty", ctx);
  fn = LLVMAddFunction(m, "f", LLVMFunctionType(abi.void_type, NULL, 0, 0));
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  fails_with(compile_for(m, "cuda:sm_80"), "cuda: the module defines no kernel");
  LLVMDisposeModule(m);
  LLVMDisposeBuilder(b);
  LLVMContextDispose(ctx);
}
END_TEST

/* A dynamically sized alloca: prepare refuses it (LLVM 19's PTX for it
 * does not assemble, see test_ptxas.c). Added after prepare, LLVM's NVPTX
 * code generator reports that PTX before 7.3 lacks it through the context
 * (its default is to exit), so for sm_80 (PTX 7.0) emit must return it as
 * a status and put the caller's diagnostic handler back afterwards. */
static void build_dynamic_alloca(const kiln_ptx_abi_t *abi, LLVMBuilderRef b,
                                 LLVMValueRef fn) {
  LLVMValueRef p = LLVMBuildArrayAlloca(b, abi->f32, LLVMGetParam(fn, 1), "buf");
  LLVMBuildStore(b, LLVMConstReal(abi->f32, 1.0), p);
  LLVMValueRef v = LLVMBuildLoad2(b, abi->f32, p, "v");
  LLVMSetVolatile(v, 1);
  LLVMBuildStore(b, v, LLVMGetParam(fn, 0));
}

static void body_dynamic_alloca(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                                LLVMBuilderRef b, LLVMValueRef fn) {
  build_dynamic_alloca(abi, b, fn);
  LLVMBuildRetVoid(b);
}

static void body_return(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                        LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMBuildRetVoid(b);
}

static void caller_handler(LLVMDiagnosticInfoRef info, void *arg) {
  (void)info;
  ++*(int *)arg;
}

START_TEST(codegen_diagnostics_become_errors) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = one_kernel(ctx, body_dynamic_alloca);
  fails_with(compile_for(m, "cuda:sm_90"),
             "cuda: function 'k' has an alloca whose size is known only at "
             "run time");
  LLVMDisposeModule(m);

  int caller_calls = 0;
  LLVMContextSetDiagnosticHandler(ctx, caller_handler, &caller_calls);
  m = one_kernel(ctx, body_return);
  kiln_ptx_target_t t = target("cuda:sm_80");
  LLVMTargetMachineRef tm;
  ok(kiln_ptx_target_machine_create(&t, &tm));
  ok(kiln_ptx_verify(m));
  ok(kiln_ptx_prepare(m, tm));
  LLVMValueRef fn = LLVMGetNamedFunction(m, "k");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)));
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  build_dynamic_alloca(&abi, b, fn);
  LLVMDisposeBuilder(b);
  ok(kiln_ptx_verify(m));

  kiln_ptx_bytes_t ptx = {(uint8_t *)&ptx, 3};
  kiln_error *s = kiln_ptx_emit(m, tm, KILN_PTX_EMIT_PTX, &ptx);
  ck_assert_ptr_nonnull(s);
  const char *msg = kiln_error_message(s);
  ck_assert_msg(strncmp(msg, "cuda: PTX code generation failed: ", 34) == 0, "%s", msg);
  ck_assert_msg(msg[strlen(msg) - 1] != '\n', "trailing newline: '%s'", msg);
  fails_with(s, "Support for dynamic alloca introduced in PTX ISA version 7.3");
  ck_assert_ptr_null(ptx.data);
  ck_assert_uint_eq(ptx.size, 0);
  ck_assert_int_eq(caller_calls, 0);
  ck_assert_ptr_eq(LLVMContextGetDiagnosticHandler(ctx), caller_handler);
  ck_assert_ptr_eq(LLVMContextGetDiagnosticContext(ctx), &caller_calls);
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* Soft-float types and float <-> i128 conversions: llc-19 aborts on
 * them; the back end names the function instead. */
static const char *soft_case;

static void body_soft(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                      LLVMBuilderRef b, LLVMValueRef fn) {
  LLVMContextRef ctx = abi->context;
  LLVMTypeRef i128 = LLVMIntTypeInContext(ctx, 128);
  LLVMValueRef out = LLVMGetParam(fn, 0);
  LLVMValueRef x = LLVMBuildSIToFP(b, LLVMGetParam(fn, 1), abi->f32, "x");
  if (!strcmp(soft_case, "fp128")) {
    LLVMTypeRef q = LLVMFP128TypeInContext(ctx);
    LLVMValueRef w = LLVMBuildFPExt(b, x, q, "w");
    LLVMValueRef sum = LLVMBuildFAdd(b, w, w, "sum");
    LLVMBuildStore(b, LLVMBuildFPTrunc(b, sum, abi->f32, ""), out);
  } else if (!strcmp(soft_case, "fptosi")) {
    LLVMBuildStore(b, LLVMBuildFPToSI(b, x, i128, "big"), out);
  } else {
    LLVMValueRef big = LLVMBuildSExt(b, LLVMGetParam(fn, 1), i128, "");
    big = LLVMBuildMul(b, big, big, "big");
    LLVMBuildStore(b, LLVMBuildUIToFP(b, big, abi->f32, ""), out);
  }
  LLVMBuildRetVoid(b);
}

START_TEST(unlowerable_instructions_are_errors) {
  static const struct {
    const char *name, *message;
  } cases[] = {
      {"fp128", "cuda: function 'k' uses type fp128, which NVPTX cannot lower"},
      {"fptosi", "cuda: function 'k' converts between floating point and i128"},
      {"uitofp", "cuda: function 'k' converts between floating point and i128"},
  };
  LLVMContextRef ctx = LLVMContextCreate();
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    soft_case = cases[i].name;
    LLVMModuleRef m = one_kernel(ctx, body_soft);
    ok(kiln_ptx_verify(m));
    char *out = NULL;
    ck_assert_msg(run_llc(m, &out) != 0, "premise: llc compiles %s", soft_case);
    free(out);
    fails_with(compile_for(m, "cuda:sm_90"), cases[i].message);
    LLVMDisposeModule(m);
  }
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_cuda_pipeline");
  TCase *tc = tcase_create("pipeline");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, kernels_become_entries_for_each_sm);
  tcase_add_test(tc, kernel_metadata);
  tcase_add_test(tc, shared_bytes_follow_calls);
  tcase_add_test(tc, either_marking_makes_an_entry);
  tcase_add_test(tc, output_is_deterministic_and_module_kept);
  tcase_add_test(tc, broken_module_is_an_error);
  tcase_add_test(tc, undefined_callee_is_named);
  tcase_add_test(tc, math_intrinsics_need_polynomials);
  tcase_add_test(tc, selectable_intrinsics_pass);
  tcase_add_test(tc, bad_kernels_are_errors);
  tcase_add_test(tc, codegen_diagnostics_become_errors);
  tcase_add_test(tc, unlowerable_instructions_are_errors);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
