/* The cuda ABI helpers, checked on the LLVM IR they build: kernel
 * signatures (bindings then push constants, with their attributes), both
 * kernel markings, launch-bound annotations and their limits, special
 * registers, barrier, shuffles and the warp reduction, static and dynamic
 * shared memory; the test kernels verify. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"

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

typedef struct fixture {
  LLVMContextRef ctx;
  kiln_ptx_abi_t abi;
  LLVMModuleRef m;
} fixture_t;

static fixture_t setup(void) {
  fixture_t f;
  f.ctx = LLVMContextCreate();
  kiln_ptx_abi_init(&f.abi, f.ctx);
  f.m = LLVMModuleCreateWithNameInContext("abi", f.ctx);
  return f;
}

static void teardown(fixture_t *f) {
  LLVMDisposeModule(f->m);
  LLVMContextDispose(f->ctx);
}

static void ir_has(LLVMModuleRef m, const char *needle) {
  char *ir = LLVMPrintModuleToString(m);
  ck_assert_msg(strstr(ir, needle), "IR lacks '%s':\n%.4000s", needle, ir);
  LLVMDisposeMessage(ir);
}

static int ir_count(LLVMModuleRef m, const char *needle) {
  char *ir = LLVMPrintModuleToString(m);
  int n = 0;
  for (const char *p = ir; (p = strstr(p, needle)); p += strlen(needle)) n++;
  LLVMDisposeMessage(ir);
  return n;
}

/* A kernel with an empty body, for the builders to append to. */
static LLVMBuilderRef kernel_body(fixture_t *f, LLVMValueRef *fn) {
  kiln_ptx_kernel_desc_t d = {"k", 1, 1, 0, 4, 0};
  ok(kiln_ptx_abi_add_kernel(&f->abi, f->m, &d, fn));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(f->ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(f->ctx, *fn, "entry"));
  return b;
}

START_TEST(kernel_signature_and_markings) {
  fixture_t f = setup();
  kiln_ptx_kernel_desc_t d = {"scale", 3, 2, 0x5, 64, 0};
  LLVMValueRef fn;
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn));
  ck_assert_int_eq(LLVMGetFunctionCallConv(fn), LLVMPTXKernelCallConv);
  ck_assert(kiln_ptx_is_kernel(f.m, fn));
  ck_assert_uint_eq(LLVMCountParams(fn), 5);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(f.ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(f.ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  ir_has(f.m, "define ptx_kernel void @scale(ptr addrspace(1) noalias nocapture "
              "noundef readonly align 64 %binding0, ptr addrspace(1) noalias "
              "nocapture noundef align 64 %binding1, ptr addrspace(1) noalias "
              "nocapture noundef readonly align 64 %binding2, i32 noundef %pc0, "
              "i32 noundef %pc1)");
  ir_has(f.m, "!nvvm.annotations = !{!0}");
  ir_has(f.m, "!0 = !{ptr @scale, !\"kernel\", i32 1}");

  /* no alignment: no align attribute; no bindings or constants at all */
  kiln_ptx_kernel_desc_t bare = {"bare", 1, 0, 0, 0, 0};
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &bare, &fn));
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(f.ctx, fn, "entry"));
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  ir_has(f.m, "@bare(ptr addrspace(1) noalias nocapture noundef %binding0)");
  kiln_ptx_kernel_desc_t none = {"none", 0, 0, 0, 0, 0};
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &none, &fn));
  ir_has(f.m, "declare ptx_kernel void @none()");
  /* bindings that may overlap lose noalias, keep the rest */
  kiln_ptx_kernel_desc_t inplace = {"inplace", 2, 0, 0x1, 4, 0x3};
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &inplace, &fn));
  ir_has(f.m, "declare ptx_kernel void @inplace(ptr addrspace(1) nocapture "
              "noundef readonly align 4, ptr addrspace(1) nocapture noundef "
              "align 4)");

  /* a function that is neither convention nor annotation is no kernel;
   * an annotation alone makes one (what other producers emit) */
  LLVMValueRef plain = LLVMAddFunction(
      f.m, "helper", LLVMFunctionType(f.abi.void_type, NULL, 0, 0));
  ck_assert(!kiln_ptx_is_kernel(f.m, plain));
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(plain), LLVMMDStringInContext2(f.ctx, "kernel", 6),
      LLVMValueAsMetadata(LLVMConstInt(f.abi.i32, 1, 0))};
  LLVMAddNamedMetadataOperand(
      f.m, "nvvm.annotations",
      LLVMMetadataAsValue(f.ctx, LLVMMDNodeInContext2(f.ctx, ops, 3)));
  ck_assert(kiln_ptx_is_kernel(f.m, plain));
  teardown(&f);
}
END_TEST

START_TEST(kernel_descriptor_errors) {
  fixture_t f = setup();
  LLVMValueRef fn = (LLVMValueRef)&fn;
  kiln_ptx_kernel_desc_t d = {"", 1, 0, 0, 0, 0};
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn), "empty name");
  ck_assert_ptr_null(fn);
  d.name = NULL;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn), "empty name");
  d.name = "k";
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn));
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn),
             "cuda kernel 'k': the module already has a symbol of that name");
  d.name = "k2";
  d.binding_count = 33;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn), "33 bindings, at most 32");
  d.binding_count = 2;
  d.readonly_binding_mask = 0x4;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn),
             "read-only mask 0x4 names bindings beyond its 2 bindings");
  d.readonly_binding_mask = 0;
  d.aliased_binding_mask = 0x8;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn),
             "aliased mask 0x8 names bindings beyond its 2 bindings");
  d.aliased_binding_mask = 0;
  d.binding_align = 12;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn),
             "binding alignment 12 is not a power of two");
  d.binding_align = 0;
  d.push_constant_count = 1021; /* 2 * 8 + 1021 * 4 = 4100 bytes */
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn),
             "2 bindings and 1021 push constants take 4100 bytes of kernel "
             "parameters, at most 4096 fit");
  d.push_constant_count = UINT32_MAX;
  fails_with(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn), "at most 4096 fit");
  d.push_constant_count = 1020;
  d.name = "k_full";
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &fn));
  ck_assert_uint_eq(LLVMCountParams(fn), 1022);
  d.name = "k2";
  d.push_constant_count = 0;
  /* 32 bindings with a full mask are fine */
  kiln_ptx_kernel_desc_t wide = {"wide", 32, 0, 0xffffffffu, 0, 0};
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &wide, &fn));
  ck_assert_uint_eq(LLVMCountParams(fn), 32);
  teardown(&f);
}
END_TEST

START_TEST(launch_bounds) {
  fixture_t f = setup();
  kiln_ptx_kernel_desc_t d = {"a", 0, 0, 0, 0, 0};
  LLVMValueRef a, b;
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &a));
  d.name = "b";
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &b));
  kiln_ptx_block_bound_t bound;
  uint32_t got[3] = {9, 9, 9};
  ck_assert(!kiln_ptx_abi_get_block_size(f.m, a, &bound, got));
  ck_assert_uint_eq(got[0] + got[1] + got[2], 0);

  ok(kiln_ptx_abi_set_block_size(&f.abi, f.m, a, KILN_PTX_BLOCK_MAX,
                                 (uint32_t[3]){128, 2, 1}));
  ok(kiln_ptx_abi_set_block_size(&f.abi, f.m, b, KILN_PTX_BLOCK_REQUIRED,
                                 (uint32_t[3]){16, 16, 4}));
  ir_has(f.m, "!{ptr @a, !\"maxntidx\", i32 128}");
  ir_has(f.m, "!{ptr @a, !\"maxntidy\", i32 2}");
  ir_has(f.m, "!{ptr @a, !\"maxntidz\", i32 1}");
  ir_has(f.m, "!{ptr @b, !\"reqntidx\", i32 16}");
  ir_has(f.m, "!{ptr @b, !\"reqntidz\", i32 4}");
  ck_assert(kiln_ptx_abi_get_block_size(f.m, a, &bound, got));
  ck_assert_int_eq(bound, KILN_PTX_BLOCK_MAX);
  ck_assert_uint_eq(got[0], 128);
  ck_assert_uint_eq(got[1], 2);
  ck_assert_uint_eq(got[2], 1);
  ck_assert(kiln_ptx_abi_get_block_size(f.m, b, &bound, got));
  ck_assert_int_eq(bound, KILN_PTX_BLOCK_REQUIRED);
  ck_assert_uint_eq(got[0] * got[1] * got[2], 1024);

  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, a, KILN_PTX_BLOCK_REQUIRED,
                                         (uint32_t[3]){64, 1, 1}),
             "cuda kernel 'a': launch bounds already set (maxntid 128x2x1)");
  d.name = "c";
  LLVMValueRef c;
  ok(kiln_ptx_abi_add_kernel(&f.abi, f.m, &d, &c));
  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, c, KILN_PTX_BLOCK_MAX,
                                         (uint32_t[3]){0, 1, 1}),
             "block size x = 0 is outside 1..1024");
  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, c, KILN_PTX_BLOCK_MAX,
                                         (uint32_t[3]){1, 2048, 1}),
             "block size y = 2048 is outside 1..1024");
  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, c, KILN_PTX_BLOCK_MAX,
                                         (uint32_t[3]){1, 1, 65}),
             "block size z = 65 is outside 1..64");
  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, c, KILN_PTX_BLOCK_MAX,
                                         (uint32_t[3]){64, 32, 1}),
             "block 64x32x1 has 2048 threads, at most 1024");
  /* failures added nothing */
  ck_assert(!kiln_ptx_abi_get_block_size(f.m, c, &bound, got));
  LLVMValueRef helper = LLVMAddFunction(
      f.m, "helper", LLVMFunctionType(f.abi.void_type, NULL, 0, 0));
  fails_with(kiln_ptx_abi_set_block_size(&f.abi, f.m, helper, KILN_PTX_BLOCK_MAX,
                                         (uint32_t[3]){1, 1, 1}),
             "launch bounds for 'helper', which is not a kernel");
  teardown(&f);
}
END_TEST

START_TEST(special_registers_and_barrier) {
  fixture_t f = setup();
  LLVMValueRef fn;
  LLVMBuilderRef b = kernel_body(&f, &fn);
  static const char *const names[] = {"tid", "ctaid", "ntid", "nctaid"};
  for (unsigned r = 0; r < KILN_PTX_SREG_COUNT; r++)
    for (unsigned d = 0; d < 3; d++) {
      LLVMValueRef v = kiln_ptx_read_sreg(&f.abi, b, (kiln_ptx_sreg_t)r, d);
      ck_assert_ptr_eq(LLVMTypeOf(v), f.abi.i32);
      char want[96];
      snprintf(want, sizeof want, "call i32 @llvm.nvvm.read.ptx.sreg.%s.%c()",
               names[r], "xyz"[d]);
      ir_has(f.m, want);
    }
  kiln_ptx_barrier(&f.abi, b);
  kiln_ptx_barrier(&f.abi, b);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  ck_assert_int_eq(ir_count(f.m, "call void @llvm.nvvm.barrier0()"), 2);
  ok(kiln_ptx_verify(f.m));
  teardown(&f);
}
END_TEST

START_TEST(shuffles_and_warp_reduction) {
  fixture_t f = setup();
  LLVMValueRef fn;
  LLVMBuilderRef b = kernel_body(&f, &fn);
  LLVMValueRef pc = LLVMGetParam(fn, 1);
  LLVMValueRef x = LLVMBuildSIToFP(b, pc, f.abi.f32, "x");
  LLVMValueRef three = LLVMConstInt(f.abi.i32, 3, 0);
  kiln_ptx_shuffle(&f.abi, b, KILN_PTX_SHUFFLE_IDX, x, three);
  kiln_ptx_shuffle(&f.abi, b, KILN_PTX_SHUFFLE_UP, pc, three);
  kiln_ptx_shuffle(&f.abi, b, KILN_PTX_SHUFFLE_DOWN, x, three);
  kiln_ptx_shuffle(&f.abi, b, KILN_PTX_SHUFFLE_XOR, pc, three);
  ir_has(f.m, "call float @llvm.nvvm.shfl.sync.idx.f32(i32 -1, float %x, i32 3, i32 31)");
  ir_has(f.m, "call i32 @llvm.nvvm.shfl.sync.up.i32(i32 -1, i32 %pc0, i32 3, i32 0)");
  ir_has(f.m, "call float @llvm.nvvm.shfl.sync.down.f32(i32 -1, float %x, i32 3, i32 31)");
  ir_has(f.m, "call i32 @llvm.nvvm.shfl.sync.bfly.i32(i32 -1, i32 %pc0, i32 3, i32 31)");

  LLVMValueRef sum = kiln_ptx_warp_reduce(&f.abi, b, LLVMFAdd, x);
  ck_assert_ptr_eq(LLVMTypeOf(sum), f.abi.f32);
  ir_has(f.m, "@llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %x, i32 16, i32 31)");
  ir_has(f.m, "@llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float %wred, i32 8, i32 31)");
  ir_has(f.m, "i32 4, i32 31)");
  ir_has(f.m, "i32 2, i32 31)");
  ir_has(f.m, "i32 1, i32 31)");
  ck_assert_int_eq(ir_count(f.m, "call float @llvm.nvvm.shfl.sync.bfly.f32("), 5);
  ck_assert_int_eq(ir_count(f.m, "fadd float"), 5);
  LLVMValueRef bits = kiln_ptx_warp_reduce(&f.abi, b, LLVMOr, pc);
  ck_assert_ptr_eq(LLVMTypeOf(bits), f.abi.i32);
  ck_assert_int_eq(ir_count(f.m, "call i32 @llvm.nvvm.shfl.sync.bfly.i32("), 6);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  ok(kiln_ptx_verify(f.m));
  teardown(&f);
}
END_TEST

START_TEST(shared_memory) {
  fixture_t f = setup();
  LLVMValueRef tile, small, dyn, again;
  ok(kiln_ptx_add_shared_array(&f.abi, f.m, "tile", f.abi.f32, 256, 16, &tile));
  ok(kiln_ptx_add_shared_array(&f.abi, f.m, "flags", f.abi.i32, 3, 0, &small));
  ir_has(f.m, "@tile = internal addrspace(3) global [256 x float] undef, align 16");
  ir_has(f.m, "@flags = internal addrspace(3) global [3 x i32] undef, align 4");
  ck_assert_uint_eq(LLVMGetPointerAddressSpace(LLVMTypeOf(tile)), 3);
  /* the same name again is renamed, not merged */
  ok(kiln_ptx_add_shared_array(&f.abi, f.m, "tile", f.abi.f32, 4, 0, &again));
  ck_assert_ptr_ne(again, tile);

  LLVMValueRef out = (LLVMValueRef)&out;
  fails_with(kiln_ptx_add_shared_array(&f.abi, f.m, "z", f.abi.f32, 0, 0, &out),
             "cuda shared array 'z': zero elements");
  ck_assert_ptr_null(out);
  fails_with(kiln_ptx_add_shared_array(&f.abi, f.m, "big", f.abi.f32, 12289, 0, &out),
             "12289 elements of 4 bytes exceed the 49152 bytes");
  ok(kiln_ptx_add_shared_array(&f.abi, f.m, "max", f.abi.f32, 12288, 0, &out));
  fails_with(kiln_ptx_add_shared_array(&f.abi, f.m, "odd", f.abi.f32, 1, 3, &out),
             "alignment 3 is not a power of two");
  fails_with(kiln_ptx_add_shared_array(&f.abi, f.m, "huge", f.abi.i64,
                                       UINT64_MAX / 4, 0, &out),
             "exceed the 49152 bytes");

  ok(kiln_ptx_dynamic_shared(&f.abi, f.m, &dyn));
  ir_has(f.m, "@kiln_dynamic_shared = external addrspace(3) global [0 x i8], align 16");
  ok(kiln_ptx_dynamic_shared(&f.abi, f.m, &again));
  ck_assert_ptr_eq(dyn, again);
  ck_assert_int_eq(ir_count(f.m, "@kiln_dynamic_shared ="), 1);
  teardown(&f);

  /* a global of that name that is something else */
  f = setup();
  LLVMValueRef clash = LLVMAddGlobal(f.m, f.abi.i32, KILN_PTX_DYNAMIC_SHARED_SYMBOL);
  LLVMSetInitializer(clash, LLVMConstInt(f.abi.i32, 0, 0));
  fails_with(kiln_ptx_dynamic_shared(&f.abi, f.m, &dyn),
             "already has a global 'kiln_dynamic_shared' that is not the "
             "dynamic shared array");
  teardown(&f);
}
END_TEST

START_TEST(test_kernels_verify) {
  LLVMContextRef ctx = LLVMContextCreate();
  for (unsigned id = 0; id < KERNELS_COUNT; id++) {
    LLVMModuleRef m = kernels_module(ctx, 1u << id);
    ck_assert_ptr_nonnull(m);
    ok(kiln_ptx_verify(m));
    LLVMValueRef fn = LLVMGetNamedFunction(m, kernels_names[id]);
    ck_assert_ptr_nonnull(fn);
    ck_assert(kiln_ptx_is_kernel(m, fn));
    LLVMDisposeModule(m);
  }
  LLVMModuleRef all = kernels_module(ctx, KERNELS_ALL);
  ck_assert_ptr_nonnull(all);
  ok(kiln_ptx_verify(all));
  ck_assert_int_eq(ir_count(all, "define ptx_kernel void @"), KERNELS_COUNT);
  LLVMDisposeModule(all);
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_cuda_abi");
  TCase *tc = tcase_create("abi");
  tcase_add_test(tc, kernel_signature_and_markings);
  tcase_add_test(tc, kernel_descriptor_errors);
  tcase_add_test(tc, launch_bounds);
  tcase_add_test(tc, special_registers_and_barrier);
  tcase_add_test(tc, shuffles_and_warp_reduction);
  tcase_add_test(tc, shared_memory);
  tcase_add_test(tc, test_kernels_verify);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
