/* Benchmark (not a test): Kiln's generated llvm-cpu kernels against the
 * anchors, in one run, on one thread, printed as ratios.
 *   1. 1024x1024x1024 f32 matmul (fill + linalg.matmul kernel through
 *      codegen/cpu, to_llvm, llvm_cpu, the runtime's ELF loader; every
 *      workgroup run on this thread) vs OpenBLAS cblas_sgemm, 1 thread.
 *   2. An elementwise chain over 16M floats (y = max(x * 1.5 + 0.25, 0) *
 *      0.5) vs memcpy of the same bytes (read 64 MiB, write 64 MiB).
 * Best of several alternating repetitions each; results checked against the anchor so
 * a fast wrong kernel cannot score. Run it with `cmake --build B --target
 * bench`, which unsets OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for this
 * command only (so OpenBLAS picks its best kernel for this CPU). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "exec_harness.h"


static cpu_kernel build(const char *text) {
  cpu_kernel k;
  const char *err = cpu_kernel_build(text, "llvm-cpu", &k, NULL);
  if (err) {
    fprintf(stderr, "bench: kernel build failed: %s\n", err);
    exit(1);
  }
  return k;
}

/* Best times of fa and fb over reps rounds, alternating, so that load
 * from other processes on a shared machine hits both alike. */
static void best_of_pair(int reps, void (*fa)(void *), void (*fb)(void *), double *ta,
                         double *tb) {
  *ta = *tb = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    fa(NULL);
    double t1 = bench_now();
    fb(NULL);
    double t2 = bench_now();
    if (t1 - t0 < *ta) *ta = t1 - t0;
    if (t2 - t1 < *tb) *tb = t2 - t1;
  }
}

enum { MN = 1024 };
static float *A, *B, *C, *Cref;
static cpu_kernel mm;

static void run_kiln_mm(void *arg) {
  (void)arg;
  void *b[3] = {A, B, C};
  uint64_t len[3] = {(uint64_t)MN * MN * 4, (uint64_t)MN * MN * 4, (uint64_t)MN * MN * 4};
  if (cpu_kernel_run(&mm, b, len, 3, false)) {
    fprintf(stderr, "bench: kernel returned an error\n");
    exit(1);
  }
}

static void run_blas_mm(void *arg) {
  (void)arg;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, MN, MN, MN, 1.0f, A, MN, B, MN, 0.0f,
              Cref, MN);
}

#define EW_N (16u << 20)
static float *X, *Y, *Yref;
static cpu_kernel ew;

static void run_kiln_ew(void *arg) {
  (void)arg;
  void *b[2] = {X, Y};
  uint64_t len[2] = {(uint64_t)EW_N * 4, (uint64_t)EW_N * 4};
  if (cpu_kernel_run(&ew, b, len, 2, false)) {
    fprintf(stderr, "bench: kernel returned an error\n");
    exit(1);
  }
}

static void run_memcpy(void *arg) {
  (void)arg;
  memcpy(Yref, X, (size_t)EW_N * 4);
  __asm__ volatile("" ::"r"(Yref) : "memory");
}

int main(void) {
  openblas_set_num_threads(1);
  const char *mm_text =
      "func.func @matmul() {\n"
      "  %cst = arith.constant 0.0 : f32\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<1024x1024xf32>\n"
      "  %b = hal.interface.binding {binding = 1 : i32} : memref<1024x1024xf32>\n"
      "  %c = hal.interface.binding {binding = 2 : i32} : memref<1024x1024xf32>\n"
      "  linalg.fill ins(%cst : f32) outs(%c : memref<1024x1024xf32>)\n"
      "  linalg.matmul ins(%a, %b : memref<1024x1024xf32>, memref<1024x1024xf32>)"
      " outs(%c : memref<1024x1024xf32>)\n"
      "  return\n}\n";
  const char *ew_text =
      "#id = affine_map<(d0) -> (d0)>\n"
      "func.func @chain() {\n"
      "  %s = arith.constant 1.5 : f32\n"
      "  %o = arith.constant 0.25 : f32\n"
      "  %z = arith.constant 0.0 : f32\n"
      "  %h = arith.constant 0.5 : f32\n"
      "  %x = hal.interface.binding {binding = 0 : i32} : memref<16777216xf32>\n"
      "  %y = hal.interface.binding {binding = 1 : i32} : memref<16777216xf32>\n"
      "  linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\"]}\n"
      "      ins(%x : memref<16777216xf32>) outs(%y : memref<16777216xf32>) {\n"
      "  ^bb0(%v: f32, %out: f32):\n"
      "    %m = arith.mulf %v, %s : f32\n"
      "    %a = arith.addf %m, %o : f32\n"
      "    %r = arith.maximumf %a, %z : f32\n"
      "    %q = arith.mulf %r, %h : f32\n"
      "    linalg.yield %q : f32\n"
      "  }\n"
      "  return\n}\n";
  mm = build(mm_text);
  ew = build(ew_text);

  A = bench_falloc((size_t)MN * MN), B = bench_falloc((size_t)MN * MN), C = bench_falloc((size_t)MN * MN);
  Cref = bench_falloc((size_t)MN * MN);
  for (size_t i = 0; i < (size_t)MN * MN; i++) {
    A[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
    B[i] = (float)((i * 5) % 11) * 0.125f - 0.6f;
  }
  run_kiln_mm(NULL), run_blas_mm(NULL); /* warm up, and check */
  for (size_t i = 0; i < (size_t)MN * MN; i++)
    if (fabsf(C[i] - Cref[i]) > 1e-3f * (1.0f + fabsf(Cref[i]))) {
      fprintf(stderr, "bench: matmul result differs from OpenBLAS at %zu: %g vs %g\n", i,
              (double)C[i], (double)Cref[i]);
      return 1;
    }
  double t_kiln, t_blas;
  best_of_pair(9, run_kiln_mm, run_blas_mm, &t_kiln, &t_blas);
  double flops = 2.0 * MN * MN * MN;
  printf("matmul 1024x1024x1024 f32, 1 thread (%u workgroups)\n", mm.count[0] * mm.count[1] * mm.count[2]);
  printf("  kiln      %8.3f ms  %7.1f GFLOP/s\n", t_kiln * 1e3, flops / t_kiln * 1e-9);
  printf("  openblas  %8.3f ms  %7.1f GFLOP/s\n", t_blas * 1e3, flops / t_blas * 1e-9);
  printf("  ratio kiln/openblas: %.2fx (floor 0.50x)\n", t_blas / t_kiln);

  X = bench_falloc(EW_N), Y = bench_falloc(EW_N), Yref = bench_falloc(EW_N);
  for (size_t i = 0; i < EW_N; i++) X[i] = (float)(i % 1000) * 0.01f - 3.0f;
  run_kiln_ew(NULL), run_memcpy(NULL);
  for (size_t i = 0; i < EW_N; i++) {
    float want = fmaxf(X[i] * 1.5f + 0.25f, 0.0f) * 0.5f;
    if (fabsf(Y[i] - want) > 1e-6f * (1.0f + fabsf(want))) {
      fprintf(stderr, "bench: elementwise result wrong at %zu: %g vs %g\n", i, (double)Y[i],
              (double)want);
      return 1;
    }
  }
  double t_ew, t_cp;
  best_of_pair(25, run_kiln_ew, run_memcpy, &t_ew, &t_cp);
  double bytes = 2.0 * EW_N * 4;
  printf("elementwise chain over 16M f32, 1 thread (%u workgroups)\n", ew.count[0] * ew.count[1] * ew.count[2]);
  printf("  kiln      %8.3f ms  %7.2f GB/s\n", t_ew * 1e3, bytes / t_ew * 1e-9);
  printf("  memcpy    %8.3f ms  %7.2f GB/s\n", t_cp * 1e3, bytes / t_cp * 1e-9);
  printf("  ratio kiln/memcpy: %.2fx (floor 0.50x)\n", t_cp / t_ew);
  cpu_kernel_release(&mm);
  cpu_kernel_release(&ew);
  free(A), free(B), free(C), free(Cref), free(X), free(Y), free(Yref);
  return 0;
}
