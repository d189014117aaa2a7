/* Target strings: valid forms give the expected triple, CPU, features and
 * a working TargetMachine; invalid ones give errors that list the valid
 * choices; KILN_CPU_FEATURES narrows the host form; every feature in
 * llvm_cpu_features.def is one LLVM knows. */
#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"
#include "tools.h"

static kiln_llvm_cpu_target_t parse_ok(const char *text) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse(text, &t);
  ck_assert_msg(s == NULL, "%s: %s", text, kiln_error_message(s));
  return t;
}

/* Parses TEXT expecting failure; every NULL-terminated NEEDLE must occur
 * in the message. */
static void parse_fails(const char *text, const char *const needles[]) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse(text, &t);
  ck_assert_msg(s != NULL, "'%s' parsed but should not", text);
  const char *msg = kiln_error_message(s);
  for (int i = 0; needles[i]; i++)
    ck_assert_msg(strstr(msg, needles[i]), "'%s': message '%s' lacks '%s'",
                  text, msg, needles[i]);
  ck_assert_ptr_null(t.cpu);
  ck_assert_ptr_null(t.features);
  kiln_error_free(s);
}

static void check_machine(const kiln_llvm_cpu_target_t *t) {
  LLVMTargetMachineRef tm = NULL;
  kiln_error *s = kiln_llvm_cpu_target_machine_create(t, &tm);
  ck_assert_msg(s == NULL, "%s", kiln_error_message(s));
  ck_assert_ptr_nonnull(tm);
  char *triple = LLVMGetTargetMachineTriple(tm);
  ck_assert_str_eq(triple, t->triple);
  LLVMDisposeMessage(triple);
  char *cpu = LLVMGetTargetMachineCPU(tm);
  ck_assert_str_eq(cpu, t->cpu);
  LLVMDisposeMessage(cpu);
  LLVMDisposeTargetMachine(tm);
}

START_TEST(host_forms) {
  kiln_llvm_cpu_target_t a = parse_ok("llvm-cpu");
  kiln_llvm_cpu_target_t b = parse_ok("llvm-cpu:host");
  ck_assert(a.is_host && b.is_host);
  ck_assert_str_eq(a.cpu, b.cpu);
  ck_assert_str_eq(a.features, b.features);
  char *host_cpu = LLVMGetHostCPUName();
  ck_assert_str_eq(a.cpu, host_cpu);
  LLVMDisposeMessage(host_cpu);
#if defined(__x86_64__)
  ck_assert_int_eq(a.arch, KILN_LLVM_CPU_ARCH_X86_64);
  ck_assert_int_eq(a.elf_machine, 62);
  ck_assert_ptr_nonnull(strstr(a.features, "+sse2"));
#elif defined(__aarch64__)
  ck_assert_int_eq(a.arch, KILN_LLVM_CPU_ARCH_AARCH64);
  ck_assert_int_eq(a.elf_machine, 183);
#endif
  /* Requirements: the arch, then exactly the listed features that the
   * host's LLVM feature string turns on. */
  ck_assert_str_eq(a.requirements, b.requirements);
  size_t alen = strlen(a.arch_name);
  ck_assert(strncmp(a.requirements, a.arch_name, alen) == 0);
  int listed = 0, on = 0;
#define LCPU_FEATURE(ARCH, NAME)                                              \
  if (KILN_LLVM_CPU_ARCH_##ARCH == a.arch) {                                  \
    char plus[40], comma[40];                                                 \
    snprintf(plus, sizeof plus, "+%s+", NAME);                                \
    snprintf(comma, sizeof comma, "+%s,", NAME);                              \
    char *req = malloc(strlen(a.requirements) + 2);                           \
    char *feat = malloc(strlen(a.features) + 2);                              \
    sprintf(req, "%s+", a.requirements);                                      \
    sprintf(feat, "%s,", a.features);                                         \
    bool in_req = strstr(req + alen, plus) != NULL;                           \
    bool in_feat = strstr(feat, comma) == feat ||                             \
                   (strstr(feat, comma) && strstr(feat, comma)[-1] == ',');   \
    ck_assert_msg(in_req == in_feat, "host feature %s: requirement %d, "      \
                  "LLVM %d", NAME, in_req, in_feat);                          \
    listed++;                                                                 \
    on += in_feat;                                                            \
    free(req);                                                                \
    free(feat);                                                               \
  }
#include "llvm_cpu_features.def"
#undef LCPU_FEATURE
  ck_assert_int_gt(listed, 5);
#if defined(__x86_64__)
  ck_assert_ptr_nonnull(strstr(a.requirements, "+sse2"));
  ck_assert_int_gt(on, 0);
#endif
  check_machine(&a);
  kiln_llvm_cpu_target_release(&a);
  kiln_llvm_cpu_target_release(&b);
}
END_TEST

START_TEST(explicit_forms) {
  kiln_llvm_cpu_target_t t = parse_ok("llvm-cpu:x86_64");
  ck_assert(!t.is_host);
  ck_assert_str_eq(t.triple, "x86_64-unknown-linux-gnu");
  ck_assert_str_eq(t.cpu, "x86-64");
  ck_assert_str_eq(t.features, "");
  ck_assert_str_eq(t.emulation, "elf_x86_64");
  check_machine(&t);

  ck_assert_str_eq(t.requirements, "x86_64");
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:x86_64+avx512f+avx512bw");
  ck_assert_str_eq(t.features, "+avx512f,+avx512bw");
  ck_assert_str_eq(t.requirements, "x86_64+avx512f+avx512bw");
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:x86_64+avx2+fma+avx2");
  ck_assert_str_eq(t.features, "+avx2,+fma");
  ck_assert_str_eq(t.requirements, "x86_64+avx2+fma");
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:aarch64");
  ck_assert_str_eq(t.triple, "aarch64-unknown-linux-gnu");
  ck_assert_str_eq(t.cpu, "generic");
  ck_assert_str_eq(t.features, "+neon");
  ck_assert_int_eq(t.elf_machine, 183);
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:aarch64+dotprod+sve2+neon");
  ck_assert_str_eq(t.features, "+neon,+dotprod,+sve2");
  ck_assert_str_eq(t.requirements, "aarch64+dotprod+sve2");
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:riscv64");
  ck_assert_str_eq(t.triple, "riscv64-unknown-linux-gnu");
  ck_assert_str_eq(t.cpu, "generic-rv64");
  ck_assert_str_eq(t.features, "+64bit,+m,+a,+f,+d,+c");
  ck_assert_str_eq(t.abi, "lp64d");
  ck_assert_str_eq(t.requirements, "riscv64");
  ck_assert_int_eq(t.elf_machine, 243);
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);

  t = parse_ok("llvm-cpu:riscv64+v");
  ck_assert_str_eq(t.features, "+64bit,+m,+a,+f,+d,+c,+v");
  ck_assert_str_eq(t.requirements, "riscv64+v");
  check_machine(&t);
  kiln_llvm_cpu_target_release(&t);
}
END_TEST

START_TEST(bad_strings) {
  parse_fails("llvm-cpu:mips64",
              (const char *[]){"unknown architecture 'mips64'", "host",
                               "x86_64", "aarch64", "riscv64", NULL});
  parse_fails("llvm-cpu:riscv64+neon",
              (const char *[]){"unknown riscv64 feature 'neon'", "v", NULL});
  parse_fails("llvm-cpu:x86_64+avx9",
              (const char *[]){"unknown x86_64 feature 'avx9'", "avx512f",
                               "avx2", NULL});
  parse_fails("llvm-cpu:aarch64+avx512f",
              (const char *[]){"unknown aarch64 feature 'avx512f'", "dotprod",
                               NULL});
  parse_fails("llvm-cpu:x86_64++avx2", (const char *[]){"empty feature", NULL});
  parse_fails("llvm-cpu:x86_64+", (const char *[]){"empty feature", NULL});
  parse_fails("llvm-cpu:", (const char *[]){"unknown architecture ''", NULL});
  parse_fails("llvm-cpu:host+avx2",
              (const char *[]){"host target takes its features", NULL});
  parse_fails("cuda:sm_80", (const char *[]){"not an llvm-cpu target", NULL});
  parse_fails("llvm-cpux86_64", (const char *[]){"not an llvm-cpu target", NULL});
  parse_fails(NULL, (const char *[]){"no target string", NULL});
}
END_TEST

/* Every feature we accept must be one LLVM's backend recognizes, or LLVM
 * would only warn and silently ignore it. */
static void check_features_known(const char *triple, int arch, int at_least) {
  const char *argv[] = {KILN_TEST_LLC, "-mtriple", triple, "-mattr=help", NULL};
  char *out = NULL;
  tools_run(argv, &out);
  ck_assert_ptr_nonnull(out);
  char *list = strstr(out, "Available features for this target:");
  ck_assert_msg(list != NULL, "llc -mattr=help printed: %.300s", out);
  int checked = 0;
#define LCPU_FEATURE(ARCH, NAME)                                              \
  if (KILN_LLVM_CPU_ARCH_##ARCH == arch) {                                    \
    char needle[64];                                                          \
    snprintf(needle, sizeof needle, "\n  %s ", NAME);                         \
    ck_assert_msg(strstr(list, needle), "LLVM does not know %s feature '%s'", \
                  triple, NAME);                                              \
    checked++;                                                                \
  }
#include "llvm_cpu_features.def"
#undef LCPU_FEATURE
  ck_assert_int_ge(checked, at_least);
  free(out);
}

/* KILN_CPU_FEATURES narrows the host target to the architecture's
 * baseline CPU plus the named features this machine has (never more), so
 * a machine with AVX-512 builds what an older one would run. */
START_TEST(host_under_cpu_mask) {
  kiln_llvm_cpu_target_t full = parse_ok("llvm-cpu");
  char mask[64];
  snprintf(mask, sizeof mask, "%s", full.arch_name);
  setenv("KILN_CPU_FEATURES", mask, 1);
  kiln_llvm_cpu_target_t base = parse_ok("llvm-cpu");
  ck_assert(base.is_host);
  ck_assert_str_eq(base.requirements, full.arch_name);
  ck_assert_str_ne(base.cpu, "native");
  kiln_llvm_cpu_target_t named = parse_ok(full.arch == KILN_LLVM_CPU_ARCH_X86_64 ? "llvm-cpu:x86_64"
                                                                                 : "llvm-cpu:aarch64");
  ck_assert_str_eq(base.cpu, named.cpu);
  ck_assert_str_eq(base.features, named.features);
  check_machine(&base);
#if defined(__x86_64__)
  /* Of two features, the mask keeps those the host has. */
  setenv("KILN_CPU_FEATURES", "x86_64+avx2+avx512f", 1);
  kiln_llvm_cpu_target_t two = parse_ok("llvm-cpu");
  char expect[64];
  snprintf(expect, sizeof expect, "x86_64%s%s", strstr(full.requirements, "+avx2") ? "+avx2" : "",
           strstr(full.requirements, "+avx512f") ? "+avx512f" : "");
  ck_assert_str_eq(two.requirements, expect);
  ck_assert_ptr_null(strstr(two.features, "+fma"));
  kiln_llvm_cpu_target_release(&two);
  setenv("KILN_CPU_FEATURES", "aarch64", 1);
  parse_fails("llvm-cpu", (const char *const[]){"KILN_CPU_FEATURES='aarch64'", "this host is x86_64", NULL});
  setenv("KILN_CPU_FEATURES", "x86_64+avx3", 1);
  parse_fails("llvm-cpu", (const char *const[]){"unknown x86_64 feature 'avx3'", "avx512f", NULL});
  /* Explicit targets ignore the mask. */
  kiln_llvm_cpu_target_t e = parse_ok("llvm-cpu:x86_64+avx512f");
  ck_assert_str_eq(e.requirements, "x86_64+avx512f");
  kiln_llvm_cpu_target_release(&e);
#endif
  unsetenv("KILN_CPU_FEATURES");
  kiln_llvm_cpu_target_release(&named);
  kiln_llvm_cpu_target_release(&base);
  kiln_llvm_cpu_target_release(&full);
}
END_TEST

START_TEST(features_known_to_llvm) {
  check_features_known("x86_64-unknown-linux-gnu", KILN_LLVM_CPU_ARCH_X86_64, 6);
  check_features_known("aarch64-unknown-linux-gnu", KILN_LLVM_CPU_ARCH_AARCH64, 6);
  check_features_known("riscv64-unknown-linux-gnu", KILN_LLVM_CPU_ARCH_RISCV64, 1);
}
END_TEST

int main(void) {
  unsetenv("KILN_CPU_FEATURES"); /* the host forms read this machine as it is */
  Suite *s = suite_create("codegen_llvm_target");
  TCase *tc = tcase_create("target");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, host_forms);
  tcase_add_test(tc, explicit_forms);
  tcase_add_test(tc, bad_strings);
  tcase_add_test(tc, host_under_cpu_mask);
  tcase_add_test(tc, features_known_to_llvm);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
