/* Target strings of the cuda back end: every listed SM parses to the
 * NVPTX triple, the SM as CPU and its +ptxNN feature, and LLVM builds a
 * target machine for it that knows that CPU and feature; unknown, retired
 * and malformed targets are errors that list the valid SM versions. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ptx.h"

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

START_TEST(requested_sms_parse) {
  static const struct {
    const char *text, *sm, *features;
    uint32_t version, ptx;
    bool arch_specific;
  } cases[] = {
      {"cuda:sm_75", "sm_75", "+ptx63", 75, 63, false},
      {"cuda:sm_80", "sm_80", "+ptx70", 80, 70, false},
      {"cuda:sm_86", "sm_86", "+ptx71", 86, 71, false},
      {"cuda:sm_87", "sm_87", "+ptx74", 87, 74, false},
      {"cuda:sm_89", "sm_89", "+ptx78", 89, 78, false},
      {"cuda:sm_90", "sm_90", "+ptx78", 90, 78, false},
      {"cuda:sm_90a", "sm_90a", "+ptx80", 90, 80, true},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kiln_ptx_target_t t;
    ok(kiln_ptx_target_parse(cases[i].text, &t));
    ck_assert_str_eq(t.sm, cases[i].sm);
    ck_assert_str_eq(t.triple, "nvptx64-nvidia-cuda");
    ck_assert_str_eq(t.features, cases[i].features);
    ck_assert_uint_eq(t.sm_version, cases[i].version);
    ck_assert_uint_eq(t.ptx_version, cases[i].ptx);
    ck_assert_int_eq(t.arch_specific, cases[i].arch_specific);
    /* every listed SM is offered in the error text, and the other way */
    ck_assert_ptr_nonnull(strstr(kiln_ptx_valid_sms(), cases[i].sm));
  }
  ck_assert_str_eq(kiln_ptx_valid_sms(),
                   "sm_75, sm_80, sm_86, sm_87, sm_89, sm_90, sm_90a");
}
END_TEST

START_TEST(target_machines_carry_sm_and_ptx) {
  const char *targets[] = {"cuda:sm_75", "cuda:sm_80", "cuda:sm_86",
                           "cuda:sm_87", "cuda:sm_89", "cuda:sm_90",
                           "cuda:sm_90a"};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    kiln_ptx_target_t t;
    ok(kiln_ptx_target_parse(targets[i], &t));
    LLVMTargetMachineRef tm;
    ok(kiln_ptx_target_machine_create(&t, &tm));
    char *triple = LLVMGetTargetMachineTriple(tm);
    char *cpu = LLVMGetTargetMachineCPU(tm);
    char *features = LLVMGetTargetMachineFeatureString(tm);
    ck_assert_str_eq(triple, "nvptx64-nvidia-cuda");
    ck_assert_str_eq(cpu, t.sm);
    ck_assert_str_eq(features, t.features);
    /* 64-bit pointers in every address space but shared/local/const */
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    ck_assert_uint_eq(LLVMPointerSize(dl), 8);
    LLVMDisposeTargetData(dl);
    LLVMDisposeMessage(triple);
    LLVMDisposeMessage(cpu);
    LLVMDisposeMessage(features);
    LLVMDisposeTargetMachine(tm);
  }
}
END_TEST

START_TEST(bad_targets_list_valid_sms) {
  kiln_ptx_target_t t;
  const char *valid = "valid SM versions: sm_75, sm_80, sm_86, sm_87, "
                      "sm_89, sm_90, sm_90a";
  fails_with(kiln_ptx_target_parse("cuda:sm_81", &t),
             "target 'cuda:sm_81': unknown SM version 'sm_81'");
  fails_with(kiln_ptx_target_parse("cuda:sm_81", &t), valid);
  fails_with(kiln_ptx_target_parse("cuda:sm_100", &t), "unknown SM version 'sm_100'");
  fails_with(kiln_ptx_target_parse("cuda:compute_80", &t), "unknown SM version");
  fails_with(kiln_ptx_target_parse("cuda:sm_80+ptx85", &t), "unknown SM version");
  fails_with(kiln_ptx_target_parse("cuda:SM_80", &t), valid);
  fails_with(kiln_ptx_target_parse("cuda:", &t), "name an SM version");
  fails_with(kiln_ptx_target_parse("cuda", &t), valid);
  fails_with(kiln_ptx_target_parse("llvm-cpu:x86_64", &t),
             "'llvm-cpu:x86_64' is not a cuda target (expected cuda:sm_XX)");
  fails_with(kiln_ptx_target_parse("cudax:sm_80", &t), "is not a cuda target");
  fails_with(kiln_ptx_target_parse(NULL, &t), "no target string");
  /* GPUs that exist but CUDA 13 no longer targets get the reason */
  fails_with(kiln_ptx_target_parse("cuda:sm_70", &t),
             "sm_70 is older than sm_75, the oldest SM version CUDA 13");
  fails_with(kiln_ptx_target_parse("cuda:sm_52", &t), valid);
  /* a failed parse leaves no dangling fields */
  ck_assert_ptr_null(t.sm);
  ck_assert_ptr_null(t.features);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_cuda_target");
  TCase *tc = tcase_create("target");
  tcase_add_test(tc, requested_sms_parse);
  tcase_add_test(tc, target_machines_carry_sm_and_ptx);
  tcase_add_test(tc, bad_targets_list_valid_sms);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
