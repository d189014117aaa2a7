/* Unit tests of runtime-min/src/cpu: detection agrees with the kernel's
 * own view (/proc/cpuinfo flags, which Linux derives from cpuid and clears
 * for register state the OS does not save), requirement strings parse or
 * fail with a message, and refusals describe the host. Matching is tested
 * against made-up hosts so it does not depend on this machine. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"

#define BIT(f) (1ull << KILN_CPU_##f)

#if defined(__x86_64__)
/* Whether /proc/cpuinfo's first "flags" line lists FLAG. */
static int cpuinfo_has(const char *flag) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  ck_assert(f != NULL);
  static char line[8192];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "flags", 5) != 0) continue;
    for (char *tok = strtok(strchr(line, ':') + 1, " \n"); tok; tok = strtok(NULL, " \n"))
      if (strcmp(tok, flag) == 0) found = 1;
    break;
  }
  fclose(f);
  return found;
}

START_TEST(host_matches_proc_cpuinfo) {
  static const struct { kiln_cpu_feature_t f; const char *flag; } map[] = {
      {KILN_CPU_SSE2, "sse2"},         {KILN_CPU_SSE3, "pni"},
      {KILN_CPU_SSSE3, "ssse3"},       {KILN_CPU_SSE41, "sse4_1"},
      {KILN_CPU_SSE42, "sse4_2"},      {KILN_CPU_POPCNT, "popcnt"},
      {KILN_CPU_AVX, "avx"},           {KILN_CPU_FMA, "fma"},
      {KILN_CPU_F16C, "f16c"},         {KILN_CPU_BMI, "bmi1"},
      {KILN_CPU_BMI2, "bmi2"},         {KILN_CPU_AVX2, "avx2"},
      {KILN_CPU_AVXVNNI, "avx_vnni"},  {KILN_CPU_AVX512F, "avx512f"},
      {KILN_CPU_AVX512DQ, "avx512dq"}, {KILN_CPU_AVX512CD, "avx512cd"},
      {KILN_CPU_AVX512BW, "avx512bw"}, {KILN_CPU_AVX512VL, "avx512vl"},
      {KILN_CPU_AVX512VNNI, "avx512_vnni"}, {KILN_CPU_AVX512BF16, "avx512_bf16"},
      {KILN_CPU_AVX512FP16, "avx512_fp16"},
  };
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  ck_assert_int_eq(host.arch, KILN_CPU_ARCH_X86_64);
  ck_assert(host.features & BIT(SSE2)); /* x86-64 baseline */
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    ck_assert_msg(!!(host.features & (1ull << map[i].f)) == cpuinfo_has(map[i].flag),
                  "%s: detected %d, /proc/cpuinfo %d", kiln_cpu_feature_name(map[i].f),
                  !!(host.features & (1ull << map[i].f)), cpuinfo_has(map[i].flag));
  char msg[512];
  ck_assert_int_eq(kiln_cpu_can_run(&host, "x86_64", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&host, "aarch64", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(msg, "is for aarch64; this host is x86_64+sse2"), "%s", msg);
}
END_TEST
#elif defined(__aarch64__)
START_TEST(host_matches_proc_cpuinfo) {
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  ck_assert_int_eq(host.arch, KILN_CPU_ARCH_AARCH64);
  ck_assert(host.features & BIT(ASIMD));
}
END_TEST
#elif defined(__riscv)
START_TEST(host_matches_proc_cpuinfo) {
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  ck_assert_int_eq(host.arch, KILN_CPU_ARCH_RISCV64);
  ck_assert(host.features & BIT(RV_D));
}
END_TEST
#endif

START_TEST(parse_specs) {
  kiln_cpu_info_t t;
  char msg[256];
  ck_assert_int_eq(kiln_cpu_parse("x86_64+avx2+fma", &t, msg, sizeof msg), 0);
  ck_assert_int_eq(t.arch, KILN_CPU_ARCH_X86_64);
  ck_assert_uint_eq(t.features, BIT(AVX2) | BIT(FMA));
  ck_assert_int_eq(kiln_cpu_parse("x86-64", &t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.features, 0);
  ck_assert_int_eq(kiln_cpu_parse("x86_64+sse4.2+avx512f+avx512bw+avx512dq+avx512vl+avx512vnni+f16c",
                                  &t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.features, BIT(SSE42) | BIT(AVX512F) | BIT(AVX512BW) |
                                    BIT(AVX512DQ) | BIT(AVX512VL) |
                                    BIT(AVX512VNNI) | BIT(F16C));
  ck_assert_int_eq(kiln_cpu_parse("aarch64+dotprod", &t, msg, sizeof msg), 0);
  ck_assert_int_eq(t.arch, KILN_CPU_ARCH_AARCH64);
  ck_assert_uint_eq(t.features, BIT(DOTPROD));
  /* Kernel (/proc/cpuinfo) spellings are accepted as aliases. */
  ck_assert_int_eq(kiln_cpu_parse("arm64+asimd+fp16+sve+i8mm", &t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.features, BIT(ASIMD) | BIT(FP16) | BIT(SVE) | BIT(I8MM));
  ck_assert_int_eq(kiln_cpu_parse("aarch64+neon+fullfp16", &t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.features, BIT(ASIMD) | BIT(FP16));
  ck_assert_int_eq(kiln_cpu_parse("riscv64+v", &t, msg, sizeof msg), 0);
  ck_assert_int_eq(t.arch, KILN_CPU_ARCH_RISCV64);
  ck_assert_uint_eq(t.features, BIT(RV_V));
  ck_assert_int_eq(kiln_cpu_parse("riscv64+m+a+f+d+c", &t, msg, sizeof msg), 0);
  ck_assert_uint_eq(t.features, BIT(RV_M) | BIT(RV_A) | BIT(RV_F) | BIT(RV_D) | BIT(RV_C));
}
END_TEST

static const struct { const char *spec, *expect; } bad_specs[] = {
    {"", "unknown architecture ''"},
    {"mips64+msa", "unknown architecture 'mips64'"},
    {"riscv64+avx2", "unknown riscv64 feature 'avx2'"},
    {"aarch64+v", "unknown aarch64 feature 'v'"},
    {"x86_64+avx9", "unknown x86_64 feature 'avx9'"},
    {"x86_64++avx", "unknown x86_64 feature ''"},
    {"x86_64+", "unknown x86_64 feature ''"},
    {"aarch64+avx2", "unknown aarch64 feature 'avx2'"},
    {"x86_64+dotprod", "unknown x86_64 feature 'dotprod'"},
    {"X86_64", "unknown architecture 'X86_64'"},
    {"x86_64avx2", "unknown architecture 'x86_64avx2'"},
};

START_TEST(parse_errors) {
  kiln_cpu_info_t t, host = {KILN_CPU_ARCH_X86_64, ~0ull};
  char msg[256];
  ck_assert_int_eq(kiln_cpu_parse(bad_specs[_i].spec, &t, msg, sizeof msg),
                   KILN_CPU_ERR_INVALID);
  ck_assert_msg(strstr(msg, bad_specs[_i].expect), "'%s': %s", bad_specs[_i].spec, msg);
  ck_assert_int_eq(kiln_cpu_can_run(&host, bad_specs[_i].spec, msg, sizeof msg),
                   KILN_CPU_ERR_INVALID);
}
END_TEST

START_TEST(can_run_against_made_up_hosts) {
  kiln_cpu_info_t avx2_host = {KILN_CPU_ARCH_X86_64,
                               BIT(SSE2) | BIT(AVX) | BIT(FMA) | BIT(AVX2)};
  char msg[512];
  ck_assert_int_eq(kiln_cpu_can_run(&avx2_host, "x86_64+avx2+fma", msg, sizeof msg), 0);
  ck_assert_str_eq(msg, "");
  ck_assert_int_eq(kiln_cpu_can_run(&avx2_host, "x86_64", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&avx2_host, "x86_64+avx512f+avx2+avx512vnni",
                                    msg, sizeof msg), KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'x86_64+avx512f+avx2+avx512vnni' needs avx512f, "
                        "avx512vnni, which this host lacks; this host is "
                        "x86_64+sse2+avx+fma+avx2");
  ck_assert_int_eq(kiln_cpu_can_run(&avx2_host, "aarch64+dotprod", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'aarch64+dotprod' is for aarch64; this "
                        "host is x86_64+sse2+avx+fma+avx2");

  kiln_cpu_info_t arm = {KILN_CPU_ARCH_AARCH64, BIT(FP) | BIT(ASIMD) | BIT(DOTPROD)};
  ck_assert_int_eq(kiln_cpu_can_run(&arm, "aarch64+dotprod+asimd", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&arm, "aarch64+sve", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'aarch64+sve' needs sve, which this host lacks; "
                        "this host is aarch64+fp-armv8+neon+dotprod");
  kiln_cpu_info_t rv = {KILN_CPU_ARCH_RISCV64,
                        BIT(RV_M) | BIT(RV_A) | BIT(RV_F) | BIT(RV_D) | BIT(RV_C)};
  ck_assert_int_eq(kiln_cpu_can_run(&rv, "riscv64", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&rv, "riscv64+v", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'riscv64+v' needs v, which this host lacks; "
                        "this host is riscv64+m+a+f+d+c");
  rv.features |= BIT(RV_V);
  ck_assert_int_eq(kiln_cpu_can_run(&rv, "riscv64+v", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&rv, "aarch64", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'aarch64' is for aarch64; this host is "
                        "riscv64+m+a+f+d+c+v");
  kiln_cpu_info_t unknown = {KILN_CPU_ARCH_UNKNOWN, 0};
  ck_assert_int_eq(kiln_cpu_can_run(&unknown, "x86_64", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU target 'x86_64' is for x86_64; this host is unknown");
}
END_TEST

/* KILN_CPU_FEATURES's mask keeps at most the named features and never
 * adds one; a mask for another architecture or a bad name is an error. */
START_TEST(mask_narrows_made_up_hosts) {
  char msg[512];
  kiln_cpu_info_t h = {KILN_CPU_ARCH_X86_64, BIT(SSE2) | BIT(AVX) | BIT(FMA) | BIT(AVX2)};
  ck_assert_int_eq(kiln_cpu_mask(&h, "x86_64+avx2+avx512f", msg, sizeof msg), 0);
  ck_assert_uint_eq(h.features, BIT(AVX2));
  ck_assert_int_eq(kiln_cpu_can_run(&h, "x86_64+avx2+fma", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(kiln_cpu_mask(&h, "x86-64", msg, sizeof msg), 0);
  ck_assert_uint_eq(h.features, 0);
  ck_assert_int_eq(kiln_cpu_can_run(&h, "x86_64", msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cpu_can_run(&h, "x86_64+avx2", msg, sizeof msg),
                   KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_int_eq(kiln_cpu_mask(&h, "aarch64", msg, sizeof msg), KILN_CPU_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, "CPU mask 'aarch64' names aarch64; this host is x86_64");
  ck_assert_int_eq(kiln_cpu_mask(&h, "x86_64+avx3", msg, sizeof msg), KILN_CPU_ERR_INVALID);
  ck_assert_str_eq(msg, "CPU target 'x86_64+avx3': unknown x86_64 feature 'avx3'");
  kiln_cpu_info_t arm = {KILN_CPU_ARCH_AARCH64, BIT(FP) | BIT(ASIMD) | BIT(DOTPROD)};
  ck_assert_int_eq(kiln_cpu_mask(&arm, "arm64+neon", msg, sizeof msg), 0);
  ck_assert_uint_eq(arm.features, BIT(ASIMD));
}
END_TEST

START_TEST(describe_truncates) {
  kiln_cpu_info_t h = {KILN_CPU_ARCH_X86_64, BIT(SSE2) | BIT(AVX2)};
  char buf[64];
  ck_assert_uint_eq(kiln_cpu_describe(&h, buf, sizeof buf), strlen("x86_64+sse2+avx2"));
  ck_assert_str_eq(buf, "x86_64+sse2+avx2");
  char small[9];
  ck_assert_uint_eq(kiln_cpu_describe(&h, small, sizeof small), 16);
  ck_assert_str_eq(small, "x86_64+s");
  ck_assert_uint_eq(kiln_cpu_describe(&h, NULL, 0), 16);
  ck_assert_ptr_null(kiln_cpu_feature_name(KILN_CPU_FEATURE_COUNT));
  ck_assert_str_eq(kiln_cpu_feature_name(KILN_CPU_AVX512VNNI), "avx512vnni");
}
END_TEST

static Suite *cpu_suite(void) {
  Suite *s = suite_create("cpu");
  TCase *tc = tcase_create("cpu");
  tcase_add_test(tc, host_matches_proc_cpuinfo);
  tcase_add_test(tc, parse_specs);
  tcase_add_loop_test(tc, parse_errors, 0, (int)(sizeof bad_specs / sizeof bad_specs[0]));
  tcase_add_test(tc, can_run_against_made_up_hosts);
  tcase_add_test(tc, mask_narrows_made_up_hosts);
  tcase_add_test(tc, describe_truncates);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(cpu_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
