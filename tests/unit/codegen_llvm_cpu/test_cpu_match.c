/* The compiler's feature table against the runtime's variant matcher
 * (runtime-min/src/cpu, target kiln_cpu): every feature a target string
 * may name must be one the runtime parses, and the requirement string of
 * the host target must be runnable on this host; otherwise variants the
 * compiler emits could never be picked. Skips (exit 77) without kiln_cpu. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_CPU_MATCH
int main(void) {
  printf("SKIP: the runtime's CPU matcher (CMake target kiln_cpu from "
         "runtime-min/src/cpu) was not available at configure time\n");
  return 77;
}
#else

#include <check.h>
#include <string.h>

#include "cpu_features.h"
#include "llvm_cpu.h"

static const char *const arch_names[] = {
#define LCPU_ARCH(ID, NAME, LLVM, TRIPLE, CPU, BASE, EMULATION, MACHINE, ABI) NAME,
#include "llvm_cpu_arches.def"
#undef LCPU_ARCH
};

START_TEST(every_feature_parses_in_the_runtime) {
  int n = 0;
#define LCPU_FEATURE(ARCH, NAME)                                              \
  {                                                                           \
    char spec[64], msg[256];                                                  \
    snprintf(spec, sizeof spec, "%s+%s",                                      \
             arch_names[KILN_LLVM_CPU_ARCH_##ARCH], NAME);                    \
    kiln_cpu_info_t info;                                                     \
    int rc = kiln_cpu_parse(spec, &info, msg, sizeof msg);                    \
    ck_assert_msg(rc == KILN_CPU_OK, "runtime rejects '%s': %s", spec, msg);  \
    n++;                                                                      \
  }
#include "llvm_cpu_features.def"
#undef LCPU_FEATURE
  ck_assert_int_gt(n, 10);
}
END_TEST

START_TEST(host_target_runs_on_host) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse("llvm-cpu", &t);
  ck_assert_msg(!s, "%s", kiln_error_message(s));
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  char msg[512];
  int rc = kiln_cpu_can_run(&host, t.requirements, msg, sizeof msg);
  ck_assert_msg(rc == KILN_CPU_OK, "'%s' refused on its own host: %s",
                t.requirements, msg);
  /* An explicit baseline target runs anywhere of its architecture. */
  char baseline[32];
  snprintf(baseline, sizeof baseline, "llvm-cpu:%s", t.arch_name);
  kiln_llvm_cpu_target_release(&t);
  ck_assert(!kiln_llvm_cpu_target_parse(baseline, &t));
  ck_assert_int_eq(kiln_cpu_can_run(&host, t.requirements, msg, sizeof msg),
                   KILN_CPU_OK);
  kiln_llvm_cpu_target_release(&t);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_llvm_cpu_match");
  TCase *tc = tcase_create("cpu_match");
  tcase_add_test(tc, every_feature_parses_in_the_runtime);
  tcase_add_test(tc, host_target_runs_on_host);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
