/* vector.dot4 (u8 x i8 -> i32, 4 consecutive K per lane) on every path:
 * a small matmul kernel over odd M/N/K, its int8 weights packed as the
 * int8 microkernel will read them ([N/lanes, K/4, lanes, 4], K and N
 * padded with zero weights), is compiled for the generic lowering (host
 * target), for vpdpbusd (avx512vnni, 16 lanes; avxvnni, 8 lanes) and for
 * pmaddwd without VNNI (SSE2 128-bit on 4 and 16 lanes, AVX2 256, AVX-512
 * BW 512; also with signed A, generic and pmaddwd with pair-major B, as
 * the int8 matmul uses them; sdot on aarch64 +dotprod) and run wherever the host can run it; the others are still translated and
 * compiled (cross, for x86-64) and say why they did not run. Activations
 * of either signedness and zero points 0/128/255/-128 go through the
 * +128 shift and the compile-time column-sum correction the quantized
 * import will use; the result is compared with a scalar C reference
 * sum_k (xq - zx) * w. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_ELF_LOADER
int main(void) {
  printf("SKIP: the runtime's ELF loader (kiln_elf) was not available at configure time\n");
  return 77;
}
#else

#include <check.h>
#include <stdint.h>
#include <string.h>

#include "cpu_features.h"
#include "elf_loader.h"
#include "harness.h"
#include "kiln/executable_abi.h"

/* The kernel: one workgroup, C[M x NP] (i32) = A[M x KP] (u8) . Bp. */
static char *kernel_text(int m, int kp, int np, int lanes, const char *isa, bool signed_a, bool pairs) {
  static char buf[8192];
  char attr[96] = "";
  if (isa || signed_a)
    snprintf(attr, sizeof attr, " {%s%s%s%s%s%s}", isa ? "isa = \"" : "", isa ? isa : "", isa ? "\"" : "",
             isa && signed_a ? ", " : "", signed_a ? "signed_a" : "", pairs ? ", pairs" : "");
  int nb = np / lanes, k4 = kp / 4, w = 4 * lanes;
  snprintf(buf, sizeof buf,
           "func.func @dot4() attributes {kiln.launch = {workgroup_size = array<i64: 1, 1, 1>}} {\n"
           "  %%c0 = arith.constant 0 : index\n"
           "  %%c1 = arith.constant 1 : index\n"
           "  %%c4 = arith.constant 4 : index\n"
           "  %%cl = arith.constant %d : index\n"
           "  %%M = arith.constant %d : index\n"
           "  %%NB = arith.constant %d : index\n"
           "  %%K4 = arith.constant %d : index\n"
           "  %%zero = arith.constant dense<0> : vector<%dxi32>\n"
           "  %%A = hal.interface.binding {binding = 0 : i32} : memref<%dx%dxi8>\n"
           "  %%B = hal.interface.binding {binding = 1 : i32} : memref<%dx%dx%dxi8>\n"
           "  %%C = hal.interface.binding {binding = 2 : i32} : memref<%dx%dxi32>\n"
           "  scf.for %%i = %%c0 to %%M step %%c1 {\n"
           "    scf.for %%jb = %%c0 to %%NB step %%c1 {\n"
           "      %%acc = scf.for %%k = %%c0 to %%K4 step %%c1 iter_args(%%s = %%zero) -> (vector<%dxi32>) {\n"
           "        %%ka = arith.muli %%k, %%c4 : index\n"
           "        %%a = vector.load %%A[%%i, %%ka] : memref<%dx%dxi8>, vector<4xi8>\n"
           "        %%b = vector.load %%B[%%jb, %%k, %%c0] : memref<%dx%dx%dxi8>, vector<%dxi8>\n"
           "        %%s2 = vector.dot4 %%s, %%a, %%b%s : vector<4xi8>, vector<%dxi8> into vector<%dxi32>\n"
           "        scf.yield %%s2 : vector<%dxi32>\n"
           "      }\n"
           "      %%j = arith.muli %%jb, %%cl : index\n"
           "      vector.store %%acc, %%C[%%i, %%j] : memref<%dx%dxi32>, vector<%dxi32>\n"
           "    }\n"
           "  }\n"
           "  return\n"
           "}\n",
           lanes, m, nb, k4, lanes, m, kp, nb, k4, w, m, np, lanes, m, kp, nb, k4, w, w, attr, w,
           lanes, lanes, m, np, lanes);
  return buf;
}

typedef struct dot4_path {
  const char *isa;    /* NULL: the generic lowering */
  const char *target; /* llvm-cpu target string */
  const char *spec;   /* what the host must have to run it, NULL: any host */
  int lanes;
  const char *call;   /* the intrinsic its translation calls */
  bool signed_a;      /* A's bytes signed */
  bool pairs;         /* B pair-major (pmaddwd) */
} dot4_path;

static const dot4_path paths[] = {
    {NULL, "llvm-cpu", NULL, 16, NULL, false, false},
    {NULL, "llvm-cpu", NULL, 8, NULL, false, false},
    {NULL, "llvm-cpu", NULL, 8, NULL, true, false},
    {"avx512vnni", "llvm-cpu:x86_64+avx512f+avx512vnni", "x86_64+avx512f+avx512vnni", 16,
     "llvm.x86.avx512.vpdpbusd.512", false, false},
    {"avxvnni", "llvm-cpu:x86_64+avx2+avxvnni", "x86_64+avx2+avxvnni", 8, "llvm.x86.avx512.vpdpbusd.256",
     false, false},
    /* without VNNI: i16 pairs, one to eight instructions per dot4 */
    {"pmaddwd128", "llvm-cpu:x86_64", "x86_64", 4, "llvm.x86.sse2.pmadd.wd", false, false},
    {"pmaddwd128", "llvm-cpu:x86_64", "x86_64", 16, "llvm.x86.sse2.pmadd.wd", false, false},
    {"pmaddwd256", "llvm-cpu:x86_64+avx2", "x86_64+avx2", 8, "llvm.x86.avx2.pmadd.wd", false, false},
    {"pmaddwd512", "llvm-cpu:x86_64+avx512f+avx512bw", "x86_64+avx512f+avx512bw", 16,
     "llvm.x86.avx512.pmaddw.d.512", false, false},
    /* the form the int8 matmul uses with pmaddwd: signed A, B pair-major */
    {"pmaddwd128", "llvm-cpu:x86_64", "x86_64", 4, "llvm.x86.sse2.pmadd.wd", true, true},
    {"pmaddwd128", "llvm-cpu:x86_64", "x86_64", 16, "llvm.x86.sse2.pmadd.wd", true, true},
    {"pmaddwd256", "llvm-cpu:x86_64+avx2", "x86_64+avx2", 8, "llvm.x86.avx2.pmadd.wd", true, true},
    {"pmaddwd256", "llvm-cpu:x86_64+avx512f+avx512bw", "x86_64+avx512f+avx512bw", 16,
     "llvm.x86.avx2.pmadd.wd", true, true},
    {"pmaddwd512", "llvm-cpu:x86_64+avx512f+avx512bw", "x86_64+avx512f+avx512bw", 16,
     "llvm.x86.avx512.pmaddw.d.512", true, true},
    /* aarch64 +dotprod: sdot, signed A (run under QEMU by cross.aarch64.int8) */
    {"sdot", "llvm-cpu:aarch64+dotprod", "aarch64+dotprod", 4, "llvm.aarch64.neon.sdot", true, false},
};

/* Shapes (odd on purpose) and activation encodings: signed activations
 * are i8 shifted by +128 into u8, their zero point with them. */
typedef struct dot4_case {
  int m, n, k;
  bool x_signed;
  int zx;
} dot4_case;

static const dot4_case cases[] = {
    {7, 37, 29, false, 0},  {5, 16, 4, false, 128}, {3, 19, 61, false, 255},
    {9, 33, 15, true, -128}, {1, 1, 1, true, 0},     {6, 47, 130, true, 127},
};

static uint32_t rng = 12345;
static int rnd(int lo, int hi) {
  rng = rng * 1664525u + 1013904223u;
  return lo + (int)((rng >> 8) % (uint32_t)(hi - lo + 1));
}

static void run_case(const dot4_path *p, const dot4_case *tc, const kiln_elf_image_t *img,
                     const kiln_export_info_t *ex, int kp, int np) {
  int m = tc->m, n = tc->n, k = tc->k, lanes = p->lanes;
  int xq[256 * 9], wq[256 * 64];
  ck_assert(m * k <= 256 * 9 && k * n <= 256 * 64);
  for (int i = 0; i < m * k; i++) xq[i] = tc->x_signed ? rnd(-128, 127) : rnd(0, 255);
  for (int i = 0; i < k * n; i++) wq[i] = rnd(-128, 127);
  /* The shift: u8 activations as they are, i8 ones + 128 (zero point too).
   * signed_a takes signed bytes: those u8 - 128 (zero point too). */
  int shift = tc->x_signed ? 128 : 0, zu = tc->zx + shift - (p->signed_a ? 128 : 0);
  uint8_t flip = p->signed_a ? 0x80 : 0;
  uint8_t *A = aligned_alloc(64, (size_t)(m * kp + 63) / 64 * 64);
  int8_t *B = aligned_alloc(64, (size_t)(np * kp + 63) / 64 * 64);
  int32_t *C = aligned_alloc(64, (size_t)(m * np * 4 + 63) / 64 * 64);
  ck_assert(A && B && C);
  /* A's K padding is arbitrary bytes: the zero weights there cancel it. */
  for (int i = 0; i < m; i++)
    for (int c = 0; c < kp; c++) A[i * kp + c] = c < k ? (uint8_t)(xq[i * k + c] + shift) ^ flip : 0xAB;
  /* Packed weights: block jb, group k4, lane l, byte j = w[4*k4 + j][jb*lanes + l];
   * pairs: byte 2*lanes*(j/2) + 2*l + j%2 of the group. */
  memset(B, 0, (size_t)np * kp);
  for (int c = 0; c < k; c++)
    for (int j = 0; j < n; j++) {
      int jb = j / lanes, l = j % lanes, i = c % 4;
      int at = p->pairs ? 2 * lanes * (i / 2) + 2 * l + i % 2 : 4 * l + i;
      B[(size_t)(jb * (kp / 4) + c / 4) * 4 * lanes + at] = (int8_t)wq[c * n + j];
    }
  for (int i = 0; i < m * np; i++) C[i] = 0x5A5A5A5A;
  void *ptrs[3] = {A, B, C};
  uint64_t lens[3] = {(uint64_t)m * kp, (uint64_t)np * kp, (uint64_t)m * np * 4};
  kiln_dispatch_state_t ds = {
      .workgroup_size = {1, 1, 1},
      .workgroup_count = {1, 1, 1},
      .max_concurrency = 1,
      .binding_count = 3,
      .binding_ptrs = ptrs,
      .binding_lengths = lens,
  };
  kiln_workgroup_state_t ws = {.workgroup_id = {0, 0, 0}};
  ck_assert_int_eq(ex->entry(&ds, &ws), 0);
  (void)img;
  for (int j = 0; j < n; j++) {
    int64_t colsum = 0; /* a compile-time constant of the weights */
    for (int c = 0; c < k; c++) colsum += wq[c * n + j];
    for (int i = 0; i < m; i++) {
      int64_t ref = 0;
      for (int c = 0; c < k; c++) ref += (int64_t)(xq[i * k + c] - tc->zx) * wq[c * n + j];
      int64_t got = (int64_t)C[i * np + j] - (int64_t)zu * colsum;
      ck_assert_msg(got == ref, "%s/%d lanes, %dx%dx%d zx %d: C[%d][%d] = %lld, expected %lld",
                    p->isa ? p->isa : "generic", lanes, m, n, k, tc->zx, i, j, (long long)got,
                    (long long)ref);
    }
  }
  free(A);
  free(B);
  free(C);
}

START_TEST(dot4_paths) {
  const dot4_path *p = &paths[_i];
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  const char *mask = getenv("KILN_CPU_FEATURES");
  char msg[256] = "";
  if (mask) ck_assert_int_eq(kiln_cpu_mask(&host, mask, msg, sizeof msg), KILN_CPU_OK);
  bool can_run = !p->spec || kiln_cpu_can_run(&host, p->spec, msg, sizeof msg) == KILN_CPU_OK;
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const dot4_case *tc = &cases[c];
    int kp = (tc->k + 3) / 4 * 4, np = (tc->n + p->lanes - 1) / p->lanes * p->lanes;
    const char *text = kernel_text(tc->m, kp, np, p->lanes, p->isa, p->signed_a, p->pairs);
    /* Translation names the instruction on every host. */
    if (p->isa) {
      LLVMContextRef ctx = LLVMContextCreate();
      LLVMModuleRef mod;
      const char *err = harness_translate(text, true, ctx, &mod);
      ck_assert_msg(!err, "%s", err ? err : "");
      char *ir = LLVMPrintModuleToString(mod);
      ck_assert_msg(strstr(ir, p->call), "%s lowering does not call %s", p->isa, p->call);
      LLVMDisposeMessage(ir);
      LLVMDisposeModule(mod);
      LLVMContextDispose(ctx);
    }
    kiln_llvm_cpu_bytes_t so = {0};
    const char *err = harness_compile_target(text, false, p->target, &so);
    ck_assert_msg(!err, "%s: %s", p->target, err ? err : "");
    if (!can_run) {
      kiln_llvm_cpu_bytes_free(&so);
      continue;
    }
    kiln_elf_image_t img;
    char lmsg[256];
    ck_assert_int_eq(kiln_elf_load(so.data, so.size, &img, lmsg, sizeof lmsg), KILN_ELF_OK);
    kiln_llvm_cpu_bytes_free(&so);
    kiln_executable_query_fn q = (kiln_executable_query_fn)(uintptr_t)
        kiln_elf_lookup(&img, KILN_EXECUTABLE_QUERY_SYMBOL);
    ck_assert_ptr_nonnull((void *)(uintptr_t)q);
    const kiln_executable_table_t *t = q(KILN_EXECUTABLE_ABI_VERSION);
    ck_assert_ptr_nonnull(t);
    run_case(p, tc, &img, &t->exports[0], kp, np);
    kiln_elf_unload(&img);
  }
  if (can_run)
    printf("dot4 %s%s%s, %d lanes: ran %zu cases\n", p->isa ? p->isa : "generic",
           p->signed_a ? " signed_a" : "", p->pairs ? " pairs" : "",
           p->lanes, sizeof cases / sizeof cases[0]);
  else
    printf("dot4 %s%s%s, %d lanes: compiled, not run: %s\n", p->isa, p->signed_a ? " signed_a" : "",
           p->pairs ? " pairs" : "", p->lanes, msg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("int8_dot4");
  TCase *tc = tcase_create("paths");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, dot4_paths, 0, (int)(sizeof paths / sizeof paths[0]));
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
