/* The executable ABI in LLVM: struct layouts equal the C structs of
 * executable_abi.h field by field on both architectures; the export table
 * and kiln_executable_query, JIT-compiled in this process, read back as
 * the C structs say; the state-load helpers index the C structs right (a
 * JIT-run kernel computes the expected values); bad export lists are
 * refused with messages naming the export. */
#include <check.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/ExecutionEngine.h>
#include <llvm-c/Target.h>

#include "kernels.h"
#include "kiln/executable_abi.h"
#include "llvm_cpu.h"

static LLVMTargetMachineRef machine_for(const char *text) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse(text, &t);
  ck_assert_msg(!s, "%s", kiln_error_message(s));
  LLVMTargetMachineRef tm = NULL;
  s = kiln_llvm_cpu_target_machine_create(&t, &tm);
  ck_assert_msg(!s, "%s", kiln_error_message(s));
  kiln_llvm_cpu_target_release(&t);
  return tm;
}

static void check_layouts(const char *target) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMTargetMachineRef tm = machine_for(target);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  int fields = 0;
#define CHECK_FIELD(STRUCT, FIELD, KIND)                                      \
  do {                                                                        \
    unsigned idx = KILN_LLVM_CPU_##STRUCT##_##FIELD;                          \
    LLVMTypeRef st = abi.STRUCT;                                              \
    ck_assert_msg(LLVMOffsetOfElement(td, st, idx) ==                         \
                      offsetof(kiln_##STRUCT##_t, FIELD),                     \
                  "%s: offset of %s.%s: LLVM %llu, C %zu", target, #STRUCT,   \
                  #FIELD, LLVMOffsetOfElement(td, st, idx),                   \
                  offsetof(kiln_##STRUCT##_t, FIELD));                        \
    ck_assert_msg(LLVMABISizeOfType(td, LLVMStructGetTypeAtIndex(st, idx)) == \
                      sizeof(((kiln_##STRUCT##_t *)0)->FIELD),                \
                  "%s: size of %s.%s", target, #STRUCT, #FIELD);              \
    fields++;                                                                 \
  } while (0);
  LCPU_DISPATCH_STATE_FIELDS(CHECK_FIELD)
  LCPU_WORKGROUP_STATE_FIELDS(CHECK_FIELD)
  LCPU_EXPORT_INFO_FIELDS(CHECK_FIELD)
  LCPU_EXECUTABLE_TABLE_FIELDS(CHECK_FIELD)
#undef CHECK_FIELD
  ck_assert_int_eq(fields, 22);
  /* Whole-struct size and alignment also catch a C field the lists miss. */
#define CHECK_STRUCT(STRUCT)                                                  \
  ck_assert_uint_eq(LLVMABISizeOfType(td, abi.STRUCT), sizeof(kiln_##STRUCT##_t)); \
  ck_assert_uint_eq(LLVMABIAlignmentOfType(td, abi.STRUCT),                   \
                    _Alignof(kiln_##STRUCT##_t));                             \
  ck_assert_uint_eq(LLVMCountStructElementTypes(abi.STRUCT),                  \
                    KILN_LLVM_CPU_##STRUCT##_field_count);
  CHECK_STRUCT(dispatch_state)
  CHECK_STRUCT(workgroup_state)
  CHECK_STRUCT(export_info)
  CHECK_STRUCT(executable_table)
#undef CHECK_STRUCT
  LLVMDisposeTargetData(td);
  LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
}

START_TEST(layouts_match_c_structs) {
  check_layouts("llvm-cpu:x86_64");
  check_layouts("llvm-cpu:aarch64");
  check_layouts("llvm-cpu");
}
END_TEST

START_TEST(init_twice_shares_types) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t a, b;
  kiln_llvm_cpu_abi_init(&a, ctx);
  kiln_llvm_cpu_abi_init(&b, ctx);
  ck_assert_ptr_eq(a.dispatch_state, b.dispatch_state);
  ck_assert_ptr_eq(a.entry_fn, b.entry_fn);
  LLVMContextDispose(ctx);
}
END_TEST

/* JIT-compiles MODULE (consumed) in this process. */
static LLVMExecutionEngineRef jit(LLVMModuleRef module) {
  LLVMLinkInMCJIT();
  ck_assert(!LLVMInitializeNativeTarget());
  ck_assert(!LLVMInitializeNativeAsmPrinter());
  struct LLVMMCJITCompilerOptions opts;
  LLVMInitializeMCJITCompilerOptions(&opts, sizeof opts);
  LLVMExecutionEngineRef ee = NULL;
  char *err = NULL;
  ck_assert_msg(!LLVMCreateMCJITCompilerForModule(&ee, module, &opts,
                                                  sizeof opts, &err),
                "MCJIT: %s", err ? err : "");
  return ee;
}

START_TEST(table_and_loads_run_in_jit) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_mul_module(ctx);
  ck_assert_ptr_nonnull(m);
  kiln_error *s = kiln_llvm_cpu_verify(m);
  ck_assert_msg(!s, "%s", kiln_error_message(s));
  LLVMExecutionEngineRef ee = jit(m);
  kiln_executable_query_fn query =
      (kiln_executable_query_fn)(uintptr_t)LLVMGetFunctionAddress(
          ee, KILN_EXECUTABLE_QUERY_SYMBOL);
  ck_assert_ptr_nonnull((void *)(uintptr_t)query);
  ck_assert_ptr_null(query(KILN_EXECUTABLE_ABI_VERSION + 1));
  ck_assert_ptr_null(query(0));
  const kiln_executable_table_t *t = query(KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->abi_version, KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_uint_eq(t->export_count, 1);
  const kiln_export_info_t *e = &t->exports[0];
  ck_assert_str_eq(e->name, "mul");
  ck_assert_uint_eq(e->workgroup_size[0], KERNELS_MUL_TILE);
  ck_assert_uint_eq(e->workgroup_size[1], 1);
  ck_assert_uint_eq(e->workgroup_size[2], 1);
  ck_assert_uint_eq(e->binding_count, 3);
  ck_assert_uint_eq(e->push_constant_count, 1);
  ck_assert_uint_eq(e->readonly_binding_mask, 0x3);
  ck_assert_ptr_nonnull((void *)(uintptr_t)e->entry);

  /* Run every workgroup of a dispatch whose last tile is partial; the
   * sentinel after n must survive. */
  enum { N = 2 * KERNELS_MUL_TILE + 77, CAP = N + 16 };
  /* 64-byte aligned, as the kernel assumes of its bindings */
  _Alignas(64) static float a[CAP], b[CAP], out[CAP];
  for (int i = 0; i < CAP; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(i % 7) - 3.0f;
    out[i] = -12345.0f;
  }
  void *ptrs[3] = {a, b, out};
  uint64_t lengths[3] = {sizeof a, sizeof b, sizeof out};
  uint32_t pcs[1] = {N};
  uint32_t groups = (N + KERNELS_MUL_TILE - 1) / KERNELS_MUL_TILE;
  kiln_dispatch_state_t ds = {
      .workgroup_size = {KERNELS_MUL_TILE, 1, 1},
      .workgroup_count = {groups, 1, 1},
      .max_concurrency = 1,
      .push_constant_count = 1,
      .push_constants = pcs,
      .binding_count = 3,
      .binding_ptrs = ptrs,
      .binding_lengths = lengths,
  };
  for (uint32_t g = 0; g < groups; g++) {
    kiln_workgroup_state_t ws = {.workgroup_id = {g, 0, 0}};
    ck_assert_int_eq(e->entry(&ds, &ws), 0);
  }
  for (int i = 0; i < N; i++)
    ck_assert_msg(out[i] == a[i] * b[i], "out[%d] = %g, expected %g", i,
                  (double)out[i], (double)(a[i] * b[i]));
  for (int i = N; i < CAP; i++) ck_assert(out[i] == -12345.0f);
  LLVMDisposeExecutionEngine(ee);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(loads_are_invariant_and_aligned) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_mul_module(ctx);
  ck_assert_ptr_nonnull(m);
  char *ir = LLVMPrintModuleToString(m);
  ck_assert_msg(strstr(ir, "!invariant.load"), "%.2000s", ir);
  ck_assert_msg(strstr(ir, "call void @llvm.assume(i1 true) [ \"align\"(ptr"),
                "%.2000s", ir);
  ck_assert_msg(strstr(ir, "define internal i32 @mul_entry(ptr noalias nocapture "
                           "noundef nonnull readonly align 8 dereferenceable(64)"),
                "%.2000s", ir);
  ck_assert_msg(strstr(ir, "define ptr @kiln_executable_query(i32"), "%.2000s", ir);
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* emit_table on a module with entries e0 (right type) and a wrongly typed
 * function; EXPORTS edited by the caller; the message must hold NEEDLE. */
static void table_fails(void (*edit)(kiln_llvm_cpu_export_t *, LLVMValueRef,
                                     LLVMValueRef),
                        uint32_t count, const char *needle) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t", ctx);
  LLVMValueRef good = kiln_llvm_cpu_abi_add_entry(&abi, m, "good");
  LLVMValueRef bad = LLVMAddFunction(m, "bad", LLVMFunctionType(abi.i32, NULL, 0, 0));
  kiln_llvm_cpu_export_t e[2] = {{"a", good, {4, 1, 1}, 2, 0, 0x1},
                                 {"b", good, {4, 1, 1}, 2, 0, 0x3}};
  edit(e, good, bad);
  kiln_error *s = kiln_llvm_cpu_abi_emit_table(&abi, m, e, count);
  ck_assert_msg(s != NULL, "expected failure with '%s'", needle);
  ck_assert_msg(strstr(kiln_error_message(s), needle),
                "message '%s' lacks '%s'", kiln_error_message(s),
                needle);
  kiln_error_free(s);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

static void edit_dup(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[1].name = "a";
}
static void edit_empty(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[1].name = "";
}
static void edit_type(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[1].entry = b;
}
static void edit_null(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[0].entry = NULL;
}
static void edit_wg(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[1].workgroup_size[2] = 0;
}
static void edit_mask(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[1].readonly_binding_mask = 0x4;
}
static void edit_many(kiln_llvm_cpu_export_t *e, LLVMValueRef g, LLVMValueRef b) {
  e[0].binding_count = 33;
}

START_TEST(bad_export_lists) {
  table_fails(edit_dup, 2, "export 1: name 'a' already used by export 0");
  table_fails(edit_empty, 2, "export 1: empty name");
  table_fails(edit_type, 2, "export 1 ('b'): entry has type i32 ()");
  table_fails(edit_null, 2, "export 0 ('a'): entry is not a function");
  table_fails(edit_wg, 2, "export 1 ('b'): workgroup size z is 0");
  table_fails(edit_mask, 2, "read-only mask 0x4 names bindings beyond its 2");
  table_fails(edit_many, 2, "33 bindings");
}
END_TEST

START_TEST(foreign_entry_and_second_table) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m1 = LLVMModuleCreateWithNameInContext("m1", ctx);
  LLVMModuleRef m2 = LLVMModuleCreateWithNameInContext("m2", ctx);
  LLVMValueRef f2 = kiln_llvm_cpu_abi_add_entry(&abi, m2, "k");
  kiln_llvm_cpu_export_t e = {"k", f2, {1, 1, 1}, 0, 0, 0};
  kiln_error *s = kiln_llvm_cpu_abi_emit_table(&abi, m1, &e, 1);
  ck_assert_ptr_nonnull(strstr(kiln_error_message(s), "another module"));
  kiln_error_free(s);
  s = kiln_llvm_cpu_abi_emit_table(&abi, m1, NULL, 0); /* empty table is fine */
  ck_assert_msg(!s, "%s", kiln_error_message(s));
  s = kiln_llvm_cpu_abi_emit_table(&abi, m1, NULL, 0);
  ck_assert_ptr_nonnull(strstr(kiln_error_message(s), "already has"));
  kiln_error_free(s);
  LLVMDisposeModule(m1);
  LLVMDisposeModule(m2);
  LLVMContextDispose(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_llvm_abi");
  TCase *tc = tcase_create("abi");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, layouts_match_c_structs);
  tcase_add_test(tc, init_twice_shares_types);
  tcase_add_test(tc, table_and_loads_run_in_jit);
  tcase_add_test(tc, loads_are_invariant_and_aligned);
  tcase_add_test(tc, bad_export_lists);
  tcase_add_test(tc, foreign_entry_and_second_table);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
