/* Benchmark (not a test): Kiln's llvm-cpu convolution kernels against
 * OpenBLAS sgemm on the same FLOPs, in one run, on one thread, printed as
 * ratios. Each case is a fill + convolution kernel compiled through
 * codegen/cpu, to_llvm, llvm_cpu and the runtime's ELF loader, every
 * workgroup run on this thread, against cblas_sgemm of the equivalent
 * implicit GEMM (pixels x output channels x C*KH*KW) on an im2col matrix
 * built once before timing: the anchor's im2col is EXCLUDED, so the
 * ratio is Kiln's whole convolution against a bare GEMM.
 *   - "onnx" cases are the linalg.generic the ONNX importer emits for
 *     Conv (NCHW, groups as a dim: X [N,G,C,H,W] padded, W [G,M,C,kh,kw],
 *     out [N,G,M,OH,OW]), which is what ResNet-18 runs;
 *   - "nchw, W [C,kh,kw,M]" the same generic with the weights stored
 *     output-channels-last (what an importer transposing constant weights
 *     would emit: no packing at run time);
 *   - "nhwc" cases are linalg.conv_2d_nhwc_hwcf on the same shapes.
 * Results are checked against a direct convolution in C first, so a fast
 * wrong kernel cannot score. Best of alternating repetitions. Run with
 * `cmake --build B --target bench` (OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE
 * unset for that command only). */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "exec_harness.h"


typedef struct conv_case {
  const char *label;
  bool nhwc;
  bool wlast; /* NCHW with the weights as [G, C, kh, kw, M] (output channels last) */
  int C, H, W, M, K, stride; /* input channels, padded input size, output channels, kernel */
} conv_case;

static const conv_case cases[] = {
    {"3x3 64->64, 56x56 (ResNet layer1)", false, false, 64, 58, 58, 64, 3, 1},
    {"3x3 64->64, 56x56 (ResNet layer1)", false, true, 64, 58, 58, 64, 3, 1},
    {"3x3 64->64, 56x56 (ResNet layer1)", true, false, 64, 58, 58, 64, 3, 1},
    {"3x3 256->256, 14x14 (ResNet layer3)", false, false, 256, 16, 16, 256, 3, 1},
    {"3x3 256->256, 14x14 (ResNet layer3)", false, true, 256, 16, 16, 256, 3, 1},
    {"3x3 512->512, 7x7 (ResNet layer4)", false, false, 512, 9, 9, 512, 3, 1},
    {"3x3 512->512, 7x7 (ResNet layer4)", false, true, 512, 9, 9, 512, 3, 1},
    {"3x3 512->512, 7x7 (ResNet layer4)", true, false, 512, 9, 9, 512, 3, 1},
    {"3x3/2 64->128, 56x56 -> 28x28", false, false, 64, 57, 57, 128, 3, 2},
    {"7x7/2 3->64, 224x224 (ResNet conv1)", false, false, 3, 229, 229, 64, 7, 2},
    {"1x1 64->256, 56x56", false, false, 64, 56, 56, 256, 1, 1},
    {"1x1 64->256, 56x56", true, false, 64, 56, 56, 256, 1, 1},
};

static void kernel_text(const conv_case *c, int OH, int OW, char *buf, size_t n) {
  if (c->nhwc) {
    snprintf(buf, n,
             "func.func @conv() {\n"
             "  %%cst = arith.constant 0.0 : f32\n"
             "  %%x = hal.interface.binding {binding = 0 : i32} : memref<1x%dx%dx%dxf32>\n"
             "  %%w = hal.interface.binding {binding = 1 : i32} : memref<%dx%dx%dx%dxf32>\n"
             "  %%o = hal.interface.binding {binding = 2 : i32} : memref<1x%dx%dx%dxf32>\n"
             "  linalg.fill ins(%%cst : f32) outs(%%o : memref<1x%dx%dx%dxf32>)\n"
             "  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}"
             " ins(%%x, %%w : memref<1x%dx%dx%dxf32>, memref<%dx%dx%dx%dxf32>) outs(%%o : memref<1x%dx%dx%dxf32>)\n"
             "  return\n}\n",
             c->H, c->W, c->C, c->K, c->K, c->C, c->M, OH, OW, c->M, OH, OW, c->M, c->stride, c->H, c->W,
             c->C, c->K, c->K, c->C, c->M, OH, OW, c->M);
    return;
  }
  char wshape[64];
  const char *wmap = c->wlast ? "(d1, d5, d6, d7, d2)" : "(d1, d2, d5, d6, d7)";
  if (c->wlast) snprintf(wshape, sizeof wshape, "%dx%dx%dx%dxf32", c->C, c->K, c->K, c->M);
  else snprintf(wshape, sizeof wshape, "%dx%dx%dx%dxf32", c->M, c->C, c->K, c->K);
  snprintf(buf, n,
           "#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * %d + d6, d4 * %d + d7)>\n"
           "#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> %s>\n"
           "#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>\n"
           "func.func @conv() {\n"
           "  %%cst = arith.constant 0.0 : f32\n"
           "  %%x = hal.interface.binding {binding = 0 : i32} : memref<1x1x%dx%dx%dxf32>\n"
           "  %%w = hal.interface.binding {binding = 1 : i32} : memref<1x%s>\n"
           "  %%o = hal.interface.binding {binding = 2 : i32} : memref<1x1x%dx%dx%dxf32>\n"
           "  linalg.fill ins(%%cst : f32) outs(%%o : memref<1x1x%dx%dx%dxf32>)\n"
           "  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = [\"parallel\", \"parallel\","
           " \"parallel\", \"parallel\", \"parallel\", \"reduction\", \"reduction\", \"reduction\"]}"
           " ins(%%x, %%w : memref<1x1x%dx%dx%dxf32>, memref<1x%s>)"
           " outs(%%o : memref<1x1x%dx%dx%dxf32>) {\n"
           "  ^bb0(%%a: f32, %%b: f32, %%acc: f32):\n"
           "    %%m = arith.mulf %%a, %%b : f32\n"
           "    %%s = arith.addf %%acc, %%m : f32\n"
           "    linalg.yield %%s : f32\n"
           "  }\n"
           "  return\n}\n",
           c->stride, c->stride, wmap, c->C, c->H, c->W, wshape, c->M, OH, OW, c->M, OH, OW, c->C, c->H,
           c->W, wshape, c->M, OH, OW);
}

/* Element offsets in either layout. */
static size_t xoff(const conv_case *c, int ch, int y, int x) {
  return c->nhwc ? ((size_t)y * c->W + x) * c->C + ch : ((size_t)ch * c->H + y) * c->W + x;
}
static size_t woff(const conv_case *c, int m, int ch, int ky, int kx) {
  if (c->wlast) return (((size_t)ch * c->K + ky) * c->K + kx) * c->M + m;
  return c->nhwc ? (((size_t)ky * c->K + kx) * c->C + ch) * c->M + m
                 : (((size_t)m * c->C + ch) * c->K + ky) * c->K + kx;
}
static size_t ooff(const conv_case *c, int OH, int OW, int m, int y, int x) {
  return c->nhwc ? ((size_t)y * OW + x) * c->M + m : ((size_t)m * OH + y) * OW + x;
}

static const conv_case *cur;
static cpu_kernel kern;
static float *X, *Wt, *O, *Col, *Wm, *G;
static int OH, OW;

static void run_kiln(void) {
  void *b[3] = {X, Wt, O};
  uint64_t len[3] = {(uint64_t)cur->C * cur->H * cur->W * 4,
                     (uint64_t)cur->M * cur->C * cur->K * cur->K * 4, (uint64_t)cur->M * OH * OW * 4};
  if (cpu_kernel_run(&kern, b, len, 3, false)) {
    fprintf(stderr, "bench: kernel returned an error\n");
    exit(1);
  }
}

static void run_blas(void) {
  int P = OH * OW, KK = cur->C * cur->K * cur->K;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, P, cur->M, KK, 1.0f, Col, KK, Wm, cur->M,
              0.0f, G, cur->M);
}

static int bench_case(const conv_case *c) {
  cur = c;
  OH = (c->H - c->K) / c->stride + 1, OW = (c->W - c->K) / c->stride + 1;
  static char text[4096];
  kernel_text(c, OH, OW, text, sizeof text);
  const char *err = cpu_kernel_build(text, "llvm-cpu", &kern, NULL);
  if (err) {
    fprintf(stderr, "bench: kernel build failed: %s\n", err);
    return 1;
  }
  size_t nx = (size_t)c->C * c->H * c->W, nw = (size_t)c->M * c->C * c->K * c->K;
  size_t no = (size_t)c->M * OH * OW, KK = (size_t)c->C * c->K * c->K, P = (size_t)OH * OW;
  X = bench_falloc(nx), Wt = bench_falloc(nw), O = bench_falloc(no), Col = bench_falloc(P * KK), Wm = bench_falloc(KK * c->M);
  G = bench_falloc(P * c->M);
  for (size_t i = 0; i < nx; i++) X[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
  for (size_t i = 0; i < nw; i++) Wt[i] = (float)((i * 5) % 11) * 0.0625f - 0.3f;
  /* The anchor's operands: im2col rows (pixel, (ch, ky, kx)) and weights
   * (ch, ky, kx) x m, built outside the timing. */
  for (int y = 0; y < OH; y++)
    for (int x = 0; x < OW; x++)
      for (int ch = 0; ch < c->C; ch++)
        for (int ky = 0; ky < c->K; ky++)
          for (int kx = 0; kx < c->K; kx++) {
            size_t k = ((size_t)ch * c->K + ky) * c->K + kx;
            Col[((size_t)y * OW + x) * KK + k] = X[xoff(c, ch, y * c->stride + ky, x * c->stride + kx)];
          }
  for (int m = 0; m < c->M; m++)
    for (int ch = 0; ch < c->C; ch++)
      for (int ky = 0; ky < c->K; ky++)
        for (int kx = 0; kx < c->K; kx++)
          Wm[(((size_t)ch * c->K + ky) * c->K + kx) * c->M + m] = Wt[woff(c, m, ch, ky, kx)];
  run_kiln(), run_blas();
  for (int m = 0; m < c->M; m++)
    for (int y = 0; y < OH; y++)
      for (int x = 0; x < OW; x++) {
        float got = O[ooff(c, OH, OW, m, y, x)], want = G[((size_t)y * OW + x) * c->M + m];
        if (fabsf(got - want) > 1e-3f * (1.0f + fabsf(want))) {
          fprintf(stderr, "bench: %s: output (m %d, y %d, x %d) is %g, sgemm gives %g\n", c->label, m, y,
                  x, (double)got, (double)want);
          return 1;
        }
      }
  double ta = 1e30, tb = 1e30;
  for (int r = 0; r < 7; r++) {
    double t0 = bench_now();
    run_kiln();
    double t1 = bench_now();
    run_blas();
    double t2 = bench_now();
    if (t1 - t0 < ta) ta = t1 - t0;
    if (t2 - t1 < tb) tb = t2 - t1;
  }
  double flops = 2.0 * (double)P * (double)c->M * (double)KK;
  printf("conv %-34s %s (%u workgroups)\n", c->label,
         c->nhwc ? "nhwc named        " : c->wlast ? "nchw, W [C,kh,kw,M]" : "onnx nchw         ",
         kern.count[0] * kern.count[1] * kern.count[2]);
  printf("  kiln %8.3f ms %6.1f GFLOP/s | sgemm %8.3f ms %6.1f GFLOP/s | kiln/openblas %.2fx\n", ta * 1e3,
         flops / ta * 1e-9, tb * 1e3, flops / tb * 1e-9, tb / ta);
  cpu_kernel_release(&kern);
  free(X), free(Wt), free(O), free(Col), free(Wm), free(G);
  return 0;
}

/* An argument keeps only the cases whose label contains it. */
int main(int argc, char **argv) {
  openblas_set_num_threads(1);
  printf("convolutions, 1 thread; anchor: OpenBLAS sgemm of the same implicit GEMM, im2col excluded\n");
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if ((argc < 2 || strstr(cases[i].label, argv[1])) && bench_case(&cases[i])) return 1;
  return 0;
}
