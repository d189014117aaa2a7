/* Runs what the back end links, through the runtime's own ELF loader
 * (runtime-min/src/elf, target kiln_elf; no dlopen, no libc in the
 * object): host objects are loaded and their kernels run workgroup by
 * workgroup against values computed here; foreign-architecture objects
 * pass the loader's verification. Without kiln_elf at configure time the
 * test skips (exit 77) and says so. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_ELF_LOADER
int main(void) {
  printf("SKIP: the runtime's ELF loader (CMake target kiln_elf from "
         "runtime-min/src/elf) was not available at configure time\n");
  return 77;
}
#else

#include <check.h>
#include <string.h>

#include "elf_loader.h"
#include "kernels.h"
#include "kiln/executable_abi.h"
#include "llvm_cpu.h"

static kiln_llvm_cpu_bytes_t compile(LLVMModuleRef (*build)(LLVMContextRef),
                                     const char *target) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_bytes_t so = {0};
  kiln_error *s = kernels_compile(build(ctx), target, &so);
  ck_assert_msg(!s, "%s: %s", target, kiln_error_message(s));
  LLVMContextDispose(ctx);
  return so;
}

/* A loaded executable and its one export, checked against the table. */
typedef struct loaded {
  kiln_elf_image_t image;
  const kiln_export_info_t *export;
} loaded_t;

static loaded_t load(const kiln_llvm_cpu_bytes_t *so, const char *name) {
  loaded_t l;
  memset(&l, 0, sizeof l);
  char msg[256];
  int rc = kiln_elf_load(so->data, so->size, &l.image, msg, sizeof msg);
  ck_assert_msg(rc == KILN_ELF_OK, "kiln_elf_load: %s", msg);
  kiln_executable_query_fn query = (kiln_executable_query_fn)(uintptr_t)
      kiln_elf_lookup(&l.image, KILN_EXECUTABLE_QUERY_SYMBOL);
  ck_assert_ptr_nonnull((void *)(uintptr_t)query);
  ck_assert_ptr_null(query(KILN_EXECUTABLE_ABI_VERSION + 1));
  const kiln_executable_table_t *t = query(KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->abi_version, KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_uint_eq(t->export_count, 1);
  ck_assert_str_eq(t->exports[0].name, name);
  l.export = &t->exports[0];
  return l;
}

static const char *host_target_with(const char *feature) {
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse("llvm-cpu", &t);
  ck_assert(!s);
  char needle[64];
  snprintf(needle, sizeof needle, "+%s,", feature);
  char tail[64];
  snprintf(tail, sizeof tail, "+%s", feature);
  size_t n = strlen(t.features), m = strlen(tail);
  bool has = strstr(t.features, needle) ||
             (n >= m && strcmp(t.features + n - m, tail) == 0);
  const char *arch = t.arch == KILN_LLVM_CPU_ARCH_X86_64 ? "x86_64" : "aarch64";
  kiln_llvm_cpu_target_release(&t);
  if (!has) return NULL;
  static char text[64];
  snprintf(text, sizeof text, "llvm-cpu:%s+%s", arch, feature);
  return text;
}

static void run_mul(const char *target) {
  kiln_llvm_cpu_bytes_t so = compile(kernels_mul_module, target);
  loaded_t l = load(&so, "mul");
  kiln_llvm_cpu_bytes_free(&so); /* the image must not refer to the bytes */
  ck_assert_uint_eq(l.export->workgroup_size[0], KERNELS_MUL_TILE);
  ck_assert_uint_eq(l.export->binding_count, 3);
  ck_assert_uint_eq(l.export->push_constant_count, 1);
  ck_assert_uint_eq(l.export->readonly_binding_mask, 0x3);

  enum { N = 5 * KERNELS_MUL_TILE + 333, CAP = N + 64 };
  /* The kernel assumes 64-byte aligned bindings (as the runtime's
   * allocator provides); aligned vector loads fault otherwise. */
  size_t bytes = (CAP * sizeof(float) + 63) & ~(size_t)63;
  float *a = aligned_alloc(64, bytes), *b = aligned_alloc(64, bytes);
  float *out = aligned_alloc(64, bytes);
  ck_assert(a && b && out);
  for (int i = 0; i < CAP; i++) {
    a[i] = (float)(i % 101) * 0.25f - 7.0f;
    b[i] = (float)(i % 13) + 0.5f;
    out[i] = -1.0f;
  }
  void *ptrs[3] = {a, b, out};
  uint64_t lengths[3] = {CAP * sizeof *a, CAP * sizeof *b, CAP * sizeof *out};
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
  /* Workgroups in reverse: tiles are independent. */
  for (uint32_t g = groups; g-- > 0;) {
    kiln_workgroup_state_t ws = {.workgroup_id = {g, 0, 0}};
    ck_assert_int_eq(l.export->entry(&ds, &ws), 0);
  }
  for (int i = 0; i < N; i++)
    ck_assert_msg(out[i] == a[i] * b[i], "%s: out[%d] = %g, expected %g",
                  target, i, (double)out[i], (double)(a[i] * b[i]));
  for (int i = N; i < CAP; i++) ck_assert(out[i] == -1.0f);
  free(a);
  free(b);
  free(out);
  kiln_elf_unload(&l.image);
}

START_TEST(mul_runs_on_host) {
  run_mul("llvm-cpu");
#if defined(__x86_64__)
  run_mul("llvm-cpu:x86_64");
  const char *avx512 = host_target_with("avx512f");
  if (avx512) run_mul(avx512);
  else printf("note: host lacks avx512f; its variant is not run\n");
#elif defined(__aarch64__)
  run_mul("llvm-cpu:aarch64");
#endif
}
END_TEST

START_TEST(fill_and_copy_run_on_host) {
  kiln_llvm_cpu_bytes_t so = compile(kernels_fill_module, "llvm-cpu");
  loaded_t l = load(&so, "fill");
  kiln_llvm_cpu_bytes_free(&so);
  size_t big = (3u << 20) + 12; /* bytes; not a multiple of the vector width */
  uint32_t *buf0 = aligned_alloc(64, big + 52);
  uint32_t *buf1 = aligned_alloc(64, KERNELS_FILL_FIXED * 4 + 64);
  ck_assert(buf0 && buf1);
  memset(buf0, 0xab, big);
  memset(buf1, 0xcd, KERNELS_FILL_FIXED * 4 + 64);
  void *ptrs[2] = {buf0, buf1};
  uint64_t lengths[2] = {big, KERNELS_FILL_FIXED * 4 + 64};
  kiln_dispatch_state_t ds = {.workgroup_size = {1, 1, 1},
                              .workgroup_count = {1, 1, 1},
                              .max_concurrency = 1,
                              .binding_count = 2,
                              .binding_ptrs = ptrs,
                              .binding_lengths = lengths};
  kiln_workgroup_state_t ws = {{0, 0, 0}, 0, NULL, 0};
  ck_assert_int_eq(l.export->entry(&ds, &ws), 0);
  for (size_t i = 0; i < big / 4; i++) ck_assert_uint_eq(buf0[i], 0);
  for (size_t i = 0; i < KERNELS_FILL_FIXED; i++) ck_assert_uint_eq(buf1[i], 0);
  for (size_t i = KERNELS_FILL_FIXED; i < KERNELS_FILL_FIXED + 16; i++)
    ck_assert_uint_eq(buf1[i], 0xcdcdcdcdu);
  kiln_elf_unload(&l.image);
  free(buf0);
  free(buf1);

  so = compile(kernels_copy_module, "llvm-cpu");
  l = load(&so, "copy");
  kiln_llvm_cpu_bytes_free(&so);
  uint8_t *dst = malloc(KERNELS_COPY_BYTES + 32);
  ck_assert_ptr_nonnull(dst);
  memset(dst, 0x5a, KERNELS_COPY_BYTES + 32);
  void *cptrs[1] = {dst};
  uint64_t clen[1] = {KERNELS_COPY_BYTES + 32};
  ds.binding_count = 1;
  ds.binding_ptrs = cptrs;
  ds.binding_lengths = clen;
  ck_assert_int_eq(l.export->entry(&ds, &ws), 0);
  for (uint32_t i = 0; i < KERNELS_COPY_BYTES; i++)
    ck_assert_uint_eq(dst[i], kernels_copy_byte(i));
  for (uint32_t i = KERNELS_COPY_BYTES; i < KERNELS_COPY_BYTES + 32; i++)
    ck_assert_uint_eq(dst[i], 0x5a);
  kiln_elf_unload(&l.image);
  free(dst);
}
END_TEST

/* The lowered memset/memcpy/memmove (both overlap directions) against
 * libc's on the same bytes, for lengths around the vector widths. */
START_TEST(memops_run_on_host) {
  kiln_llvm_cpu_bytes_t so = compile(kernels_memops_module, "llvm-cpu");
  loaded_t l = load(&so, "memops");
  kiln_llvm_cpu_bytes_free(&so);
  static const uint32_t lengths[] = {0, 1, 15, 16, 17, 63, 64, 65, 1000, 100003};
  for (size_t k = 0; k < sizeof lengths / sizeof lengths[0]; k++) {
    uint32_t n = lengths[k];
    uint8_t *a = malloc(n + 1), *b = malloc(n + 32);
    uint8_t *ea = malloc(n + 1), *eb = malloc(n + 32);
    ck_assert(a && b && ea && eb);
    for (uint32_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 7 + 1);
    for (uint32_t i = 0; i < n + 32; i++) b[i] = (uint8_t)(200 - i);
    memcpy(ea, a, n);
    memcpy(eb, b, n + 32);
    memcpy(eb, ea, n);
    memset(ea, 0x7f, n);
    memmove(eb + 16, eb, n);
    memmove(eb, eb + 16, n);

    void *ptrs[2] = {a, b};
    uint64_t lens[2] = {n, n + 32};
    uint32_t pcs[1] = {n};
    kiln_dispatch_state_t ds = {.workgroup_size = {1, 1, 1},
                                .workgroup_count = {1, 1, 1},
                                .max_concurrency = 1,
                                .push_constant_count = 1,
                                .push_constants = pcs,
                                .binding_count = 2,
                                .binding_ptrs = ptrs,
                                .binding_lengths = lens};
    kiln_workgroup_state_t ws = {{0, 0, 0}, 0, NULL, 0};
    ck_assert_int_eq(l.export->entry(&ds, &ws), 0);
    ck_assert_msg(memcmp(a, ea, n) == 0, "memset result differs at n=%u", n);
    ck_assert_msg(memcmp(b, eb, n + 32) == 0, "copies differ at n=%u", n);
    free(a);
    free(b);
    free(ea);
    free(eb);
  }
  kiln_elf_unload(&l.image);
}
END_TEST

/* Every architecture's output passes the loader's verification. */
START_TEST(all_arches_verify) {
  static const struct {
    const char *target;
    uint32_t machine;
  } cases[] = {{"llvm-cpu:x86_64", KILN_ELF_MACHINE_X86_64},
               {"llvm-cpu:x86_64+avx512f", KILN_ELF_MACHINE_X86_64},
               {"llvm-cpu:aarch64", KILN_ELF_MACHINE_AARCH64},
               {"llvm-cpu:aarch64+dotprod", KILN_ELF_MACHINE_AARCH64}};
  LLVMModuleRef (*builds[4])(LLVMContextRef) = {
      kernels_mul_module, kernels_fill_module, kernels_copy_module,
      kernels_memops_module};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    for (int k = 0; k < 4; k++) {
      kiln_llvm_cpu_bytes_t so = compile(builds[k], cases[i].target);
      kiln_elf_info_t info;
      char msg[256];
      int rc = kiln_elf_verify(so.data, so.size, &info, msg, sizeof msg);
      ck_assert_msg(rc == KILN_ELF_OK, "%s: %s", cases[i].target, msg);
      ck_assert_uint_eq(info.machine, cases[i].machine);
      ck_assert_uint_eq(info.has_query, 1);
      ck_assert_uint_eq(info.reloc_symbolic, 0);
      ck_assert_uint_gt(info.reloc_relative, 0);
      ck_assert_uint_eq(info.symbol_count, 2); /* null + the query */
      kiln_llvm_cpu_bytes_free(&so);
    }
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_llvm_exec");
  TCase *tc = tcase_create("exec");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, mul_runs_on_host);
  tcase_add_test(tc, fill_and_copy_run_on_host);
  tcase_add_test(tc, memops_run_on_host);
  tcase_add_test(tc, all_arches_verify);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
#endif
