/* The PTX assembles: the four test kernels, compiled for every SM of the
 * cuda target, go through CUDA's ptxas (`ptxas -v --gpu-name sm_XX`),
 * whose report must agree with the back end's metadata on each entry's
 * static shared memory and barrier use. ptxas is shown to reject what it
 * should (PTX for another SM, an unresolved expf, LLVM 19's PTX for a
 * run-time-sized alloca), so a pass means something. Without ptxas (KILN_PTXAS unset at configure time or gone)
 * the test says so and exits 77, which ctest counts as skipped. */
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

/* Runs ptxas -v for GPU on TEXT; returns the exit code, *log its output. */
static int ptxas(const char *gpu, const char *text, char **log) {
  char *path = tools_write_temp(text, strlen(text));
  ck_assert_ptr_nonnull(path);
  const char *argv[] = {KILN_TEST_PTXAS, "-v", "--gpu-name", gpu, "-o",
                        "/dev/null", path, NULL};
  int code = tools_run(argv, log);
  unlink(path);
  free(path);
  ck_assert_msg(code >= 0, "could not run %s", KILN_TEST_PTXAS);
  return code;
}

/* ptxas -v's figures for entry NAME: shared bytes and barriers. */
static void ptxas_figures(const char *log, const char *name, const char *sm,
                          unsigned *smem, unsigned *barriers) {
  char head[160];
  snprintf(head, sizeof head, "Compiling entry function '%s' for '%s'", name, sm);
  const char *p = strstr(log, head);
  ck_assert_msg(p, "ptxas log lacks \"%s\":\n%s", head, log);
  const char *used = strstr(p, "Used ");
  ck_assert_msg(used, "%s", p);
  const char *eol = strchr(used, '\n');
  ck_assert_ptr_nonnull(eol);
  const char *b = strstr(used, "used ");
  ck_assert_msg(b && b < eol && sscanf(b, "used %u barriers", barriers) == 1,
                "%.*s", (int)(eol - used), used);
  *smem = 0;
  const char *s = strstr(used, " bytes smem");
  if (s && s < eol) {
    while (s > used && s[-1] >= '0' && s[-1] <= '9') s--;
    ck_assert_int_eq(sscanf(s, "%u", smem), 1);
  }
}

static kiln_ptx_result_t compile_all(const char *target_text) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_module(ctx, KERNELS_ALL);
  ck_assert_ptr_nonnull(m);
  kiln_ptx_target_t t;
  ok(kiln_ptx_target_parse(target_text, &t));
  kiln_ptx_result_t r;
  ok(kiln_ptx_compile(m, &t, &r));
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return r;
}

static void assembles_for(const char *target_text) {
  kiln_ptx_target_t t;
  ok(kiln_ptx_target_parse(target_text, &t));
  kiln_ptx_result_t r = compile_all(target_text);
  char *log = NULL;
  int code = ptxas(t.sm, (const char *)r.ptx.data, &log);
  ck_assert_msg(code == 0, "ptxas --gpu-name %s failed (%d):\n%s\nPTX:\n%.6000s",
                t.sm, code, log, (const char *)r.ptx.data);
  for (uint32_t i = 0; i < r.kernel_count; i++) {
    unsigned smem, barriers;
    ptxas_figures(log, r.kernels[i].name, t.sm, &smem, &barriers);
    ck_assert_msg(smem == r.kernels[i].static_shared_bytes,
                  "%s on %s: ptxas says %u bytes smem, metadata %u", r.kernels[i].name,
                  t.sm, smem, r.kernels[i].static_shared_bytes);
    bool syncs = strcmp(r.kernels[i].name, "elementwise") != 0;
    ck_assert_msg(barriers == (syncs ? 1u : 0u), "%s: %u barriers",
                  r.kernels[i].name, barriers);
  }
  free(log);
  kiln_ptx_result_release(&r);
}

START_TEST(assembles_for_sm_80) { assembles_for("cuda:sm_80"); }
END_TEST

START_TEST(assembles_for_sm_90) { assembles_for("cuda:sm_90"); }
END_TEST

START_TEST(assembles_for_every_other_sm) {
  const char *targets[] = {"cuda:sm_75", "cuda:sm_86", "cuda:sm_87",
                           "cuda:sm_89", "cuda:sm_90a"};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    assembles_for(targets[i]);
}
END_TEST

/* PTX from LLVM alone for M (no checks of this back end). */
static char *llvm_only_ptx(LLVMModuleRef m, const char *target_text) {
  kiln_ptx_target_t t;
  ok(kiln_ptx_target_parse(target_text, &t));
  LLVMTargetMachineRef tm;
  ok(kiln_ptx_target_machine_create(&t, &tm));
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  ck_assert_int_eq(LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile,
                                                       &err, &buf), 0);
  if (err) LLVMDisposeMessage(err);
  size_t size = LLVMGetBufferSize(buf);
  char *text = malloc(size + 1);
  memcpy(text, LLVMGetBufferStart(buf), size);
  text[size] = 0;
  LLVMDisposeMemoryBuffer(buf);
  LLVMDisposeTargetMachine(tm);
  return text;
}

/* A kernel k(ptr addrspace(1) out, i32 n) whose body calls expf on out[0]
 * (CALL_EXPF) or stages it through an alloca of n floats. */
static LLVMModuleRef premise_module(LLVMContextRef ctx, bool call_expf) {
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("premise", ctx);
  kiln_ptx_kernel_desc_t d = {"k", 1, 1, 0, 4, 0};
  LLVMValueRef fn;
  ok(kiln_ptx_abi_add_kernel(&abi, m, &d, &fn));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMValueRef out = LLVMGetParam(fn, 0);
  LLVMValueRef x = LLVMBuildLoad2(b, abi.f32, out, "x");
  if (call_expf) {
    LLVMTypeRef ty = LLVMFunctionType(abi.f32, &abi.f32, 1, 0);
    LLVMValueRef expf = LLVMAddFunction(m, "expf", ty);
    x = LLVMBuildCall2(b, ty, expf, &x, 1, "");
  } else {
    LLVMValueRef p = LLVMBuildArrayAlloca(b, abi.f32, LLVMGetParam(fn, 1), "buf");
    LLVMBuildStore(b, x, p);
    x = LLVMBuildLoad2(b, abi.f32, p, "");
    LLVMSetVolatile(x, 1);
  }
  LLVMBuildStore(b, x, out);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return m;
}

/* ptxas checks what matters: PTX for sm_90 is no sm_80 code; an undefined
 * expf and LLVM 19's PTX for a run-time-sized alloca do not assemble
 * (emitted here by LLVM alone), which is why the back end refuses both. */
START_TEST(ptxas_rejects_what_it_should) {
  kiln_ptx_result_t r = compile_all("cuda:sm_90");
  char *log = NULL;
  ck_assert_int_ne(ptxas("sm_80", (const char *)r.ptx.data, &log), 0);
  free(log);
  kiln_ptx_result_release(&r);

  static const struct {
    bool expf;
    const char *target, *sm, *ptxas_says, *we_say;
  } cases[] = {
      {true, "cuda:sm_80", "sm_80", "expf", "function 'expf' is called"},
      {false, "cuda:sm_90", "sm_90", "Alignment must be a power of two",
       "alloca whose size is known only at run time"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = premise_module(ctx, cases[i].expf);
    char *text = llvm_only_ptx(m, cases[i].target);
    ck_assert_int_ne(ptxas(cases[i].sm, text, &log), 0);
    ck_assert_msg(strstr(log, cases[i].ptxas_says), "%s", log);
    free(log);
    free(text);
    kiln_ptx_target_t t;
    ok(kiln_ptx_target_parse(cases[i].target, &t));
    kiln_ptx_result_t refused;
    kiln_error *s = kiln_ptx_compile(m, &t, &refused);
    ck_assert_ptr_nonnull(s);
    ck_assert_msg(strstr(kiln_error_message(s), cases[i].we_say), "%s",
                  kiln_error_message(s));
    kiln_error_free(s);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}
END_TEST

int main(void) {
  const char *path = KILN_TEST_PTXAS;
  if (!*path) {
    printf("SKIP: ptxas was not found at configure time (KILN_PTXAS; CUDA's "
           "/usr/local/cuda/bin/ptxas)\n");
    return 77;
  }
  if (access(path, X_OK) != 0) {
    printf("SKIP: ptxas %s is not executable here\n", path);
    return 77;
  }
  Suite *s = suite_create("codegen_cuda_ptxas");
  TCase *tc = tcase_create("ptxas");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, assembles_for_sm_80);
  tcase_add_test(tc, assembles_for_sm_90);
  tcase_add_test(tc, assembles_for_every_other_sm);
  tcase_add_test(tc, ptxas_rejects_what_it_should);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
