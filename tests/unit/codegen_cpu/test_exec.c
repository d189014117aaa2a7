/* Execution tests of compiler/codegen/cpu: hand-written hal-level kernels
 * (memref linalg on hal.interface.binding, as PIPELINE.md shows) go
 * through select-launch-config .. remove-single-iteration-loops, then
 * approximate-math, scf-to-cf, the translation to LLVM, llvm_cpu (O3,
 * lld) and the runtime's ELF loader; every workgroup runs and the result
 * is compared with a straightforward C loop. Each kernel is built for
 * three vector widths (the host's, 8 lanes, 4 lanes), and shapes include
 * ones that are not multiples of the tile sizes. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_EXEC
int main(void) {
  printf("SKIP: the runtime's ELF loader or the LLVM translation was not available at "
         "configure time\n");
  return 77;
}
#else

#include <check.h>
#include <math.h>
#include <string.h>

#include "exec_harness.h"

static const char *const targets[] = {"llvm-cpu", "llvm-cpu:x86_64+avx2", "llvm-cpu:x86_64"};
enum { NTARGETS = 3 };

static float *falloc(size_t n) {
  float *p = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  ck_assert_ptr_nonnull(p);
  return p;
}

/* Deterministic values in [-2, 2) with a few exact zeros. */
static void fill(float *p, size_t n, unsigned seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    p[i] = (float)((s >> 8) % 4096) / 1024.0f - 2.0f;
  }
}

static void near(const float *got, const float *want, size_t n, const char *what,
                 const char *target) {
  for (size_t i = 0; i < n; i++) {
    float tol = 1e-4f * (1.0f + fabsf(want[i]));
    ck_assert_msg(fabsf(got[i] - want[i]) <= tol, "%s (%s): [%zu] = %.7g, want %.7g", what,
                  target, i, (double)got[i], (double)want[i]);
  }
}

/* Builds text for target, runs it over bindings (sizes in floats). */
static char *build_run(const char *text, const char *target, float **b, const size_t *n,
                       uint32_t nb, uint32_t *count) {
  cpu_kernel k;
  char *ir = NULL;
  const char *err = cpu_kernel_build(text, target, &k, &ir);
  ck_assert_msg(!err, "%s: %s", target, err ? err : "");
  void *ptrs[8];
  uint64_t lens[8];
  for (uint32_t i = 0; i < nb; i++) ptrs[i] = b[i], lens[i] = n[i] * sizeof(float);
  ck_assert_int_eq(cpu_kernel_run(&k, ptrs, lens, nb, true), 0);
  if (count) memcpy(count, k.count, sizeof k.count);
  cpu_kernel_release(&k);
  return ir;
}

/* ---- matmul ---- */
static void check_matmul(int M, int N, int K, bool expect_vector) {
  char text[2048];
  snprintf(text, sizeof text,
           "func.func @mm() {\n"
           "  %%cst = arith.constant 0.0 : f32\n"
           "  %%a = hal.interface.binding {binding = 0 : i32} : memref<%dx%dxf32>\n"
           "  %%b = hal.interface.binding {binding = 1 : i32} : memref<%dx%dxf32>\n"
           "  %%c = hal.interface.binding {binding = 2 : i32} : memref<%dx%dxf32>\n"
           "  linalg.fill ins(%%cst : f32) outs(%%c : memref<%dx%dxf32>)\n"
           "  linalg.matmul ins(%%a, %%b : memref<%dx%dxf32>, memref<%dx%dxf32>)"
           " outs(%%c : memref<%dx%dxf32>)\n"
           "  return\n}\n",
           M, K, K, N, M, N, M, N, M, K, K, N, M, N);
  size_t n[3] = {(size_t)M * K, (size_t)K * N, (size_t)M * N};
  float *a = falloc(n[0]), *b = falloc(n[1]), *c = falloc(n[2]), *want = falloc(n[2]);
  fill(a, n[0], 1), fill(b, n[1], 2);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = 0;
      for (int k = 0; k < K; k++) s += a[i * K + k] * b[k * N + j];
      want[i * N + j] = s;
    }
  for (int t = 0; t < NTARGETS; t++) {
    for (size_t i = 0; i < n[2]; i++) c[i] = 1234.0f;
    float *bs[3] = {a, b, c};
    char *ir = build_run(text, targets[t], bs, n, 3, NULL);
    if (expect_vector)
      ck_assert_msg(strstr(ir, "vector.fma"), "%s: no register-tiled matmul:\n%s", targets[t], ir);
    free(ir);
    char what[64];
    snprintf(what, sizeof what, "matmul %dx%dx%d", M, N, K);
    near(c, want, n[2], what, targets[t]);
  }
  free(a), free(b), free(c), free(want);
}

START_TEST(matmul_17x33x9) { check_matmul(17, 33, 9, true); }
END_TEST
START_TEST(matmul_64x64x64) { check_matmul(64, 64, 64, true); }
END_TEST
START_TEST(matmul_1x1x1) { check_matmul(1, 1, 1, false); }
END_TEST
/* 2x2 tiles of 64: three partial edge tiles next to one full tile. */
START_TEST(matmul_partial_tiles) { check_matmul(100, 70, 9, true); }
END_TEST
START_TEST(matmul_multi_tile) { check_matmul(128, 192, 33, true); }
END_TEST
/* K = 320: B packed in blocks of 160 rows; N = 48 (one vector column
 * block of 16 lanes, or 2 of 8...); M = 72 (a full and a partial tile). */
START_TEST(matmul_packed_b) { check_matmul(72, 48, 320, true); }
END_TEST

/* ---- elementwise chain: o = max(a * b + bias[j], 0) in two fused ops ---- */
START_TEST(elementwise_chain) {
  enum { R = 37, C = 130 };
  const char *text =
      "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
      "#row = affine_map<(d0, d1) -> (d1)>\n"
      "func.func @ew() {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<37x130xf32>\n"
      "  %b = hal.interface.binding {binding = 1 : i32} : memref<37x130xf32>\n"
      "  %bias = hal.interface.binding {binding = 2 : i32} : memref<130xf32>\n"
      "  %o = hal.interface.binding {binding = 3 : i32} : memref<37x130xf32>\n"
      "  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%a, %b : memref<37x130xf32>, memref<37x130xf32>) outs(%o : memref<37x130xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %out: f32):\n"
      "    %m = arith.mulf %x, %y : f32\n"
      "    linalg.yield %m : f32\n"
      "  }\n"
      "  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%o, %bias : memref<37x130xf32>, memref<130xf32>) outs(%o : memref<37x130xf32>) {\n"
      "  ^bb0(%x: f32, %y: f32, %out: f32):\n"
      "    %s = arith.addf %x, %y : f32\n"
      "    %r = arith.maximumf %s, %zero : f32\n"
      "    linalg.yield %r : f32\n"
      "  }\n"
      "  return\n}\n";
  size_t n[4] = {R * C, R * C, C, R * C};
  float *a = falloc(n[0]), *b = falloc(n[1]), *bias = falloc(n[2]), *o = falloc(n[3]),
        *want = falloc(n[3]);
  fill(a, n[0], 3), fill(b, n[1], 4), fill(bias, n[2], 5);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[i * C + j] = fmaxf(a[i * C + j] * b[i * C + j] + bias[j], 0);
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[4] = {a, b, bias, o};
    char *ir = build_run(text, targets[t], bs, n, 4, NULL);
    ck_assert_msg(strstr(ir, "vector.store"), "%s: not vectorized:\n%s", targets[t], ir);
    free(ir);
    near(o, want, n[3], "elementwise chain", targets[t]);
  }
  free(a), free(b), free(bias), free(o), free(want);
}
END_TEST

/* 4 distributed dims: x = d3 (2 tiles of 8192), y = d2, z = d1 * d0. */
START_TEST(elementwise_4d_collapsed_z) {
  enum { A = 2, B = 3, C = 5, D = 9000 };
  const char *text =
      "#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>\n"
      "func.func @ew4() {\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<2x3x5x9000xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<2x3x5x9000xf32>\n"
      "  linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}\n"
      "      ins(%a : memref<2x3x5x9000xf32>) outs(%o : memref<2x3x5x9000xf32>) {\n"
      "  ^bb0(%x: f32, %out: f32):\n"
      "    %m = arith.mulf %x, %x : f32\n"
      "    %i0 = linalg.index 0 : index\n"
      "    %i1 = linalg.index 1 : index\n"
      "    %i2 = linalg.index 2 : index\n"
      "    %c10 = arith.constant 10 : index\n"
      "    %c100 = arith.constant 100 : index\n"
      "    %t0 = arith.muli %i0, %c100 : index\n"
      "    %t1 = arith.muli %i1, %c10 : index\n"
      "    %t2 = arith.addi %t0, %t1 : index\n"
      "    %t3 = arith.addi %t2, %i2 : index\n"
      "    %ti = arith.index_cast %t3 : index to i32\n"
      "    %tf = arith.sitofp %ti : i32 to f32\n"
      "    %r = arith.addf %m, %tf : f32\n"
      "    linalg.yield %r : f32\n"
      "  }\n"
      "  return\n}\n";
  size_t total = (size_t)A * B * C * D, n[2] = {total, total};
  float *a = falloc(total), *o = falloc(total), *want = falloc(total);
  fill(a, total, 6);
  for (int i = 0; i < A; i++)
    for (int j = 0; j < B; j++)
      for (int k = 0; k < C; k++)
        for (int l = 0; l < D; l++) {
          size_t x = (((size_t)i * B + j) * C + k) * D + l;
          want[x] = a[x] * a[x] + (float)(i * 100 + j * 10 + k);
        }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    uint32_t count[3];
    free(build_run(text, targets[t], bs, n, 2, count));
    ck_assert_uint_eq(count[0], 2);
    ck_assert_uint_eq(count[1], 5);
    ck_assert_uint_eq(count[2], 6);
    near(o, want, total, "4-d elementwise", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

/* ---- reduction: row sums ---- */
START_TEST(reduction_rows) {
  enum { R = 300, C = 77 };
  const char *text =
      "func.func @red() {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<300x77xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<300xf32>\n"
      "  linalg.fill ins(%zero : f32) outs(%o : memref<300xf32>)\n"
      "  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],"
      " iterator_types = [\"parallel\", \"reduction\"]}\n"
      "      ins(%a : memref<300x77xf32>) outs(%o : memref<300xf32>) {\n"
      "  ^bb0(%x: f32, %acc: f32):\n"
      "    %s = arith.addf %x, %acc : f32\n"
      "    linalg.yield %s : f32\n"
      "  }\n"
      "  return\n}\n";
  size_t n[2] = {R * C, R};
  float *a = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(a, n[0], 7);
  for (int i = 0; i < R; i++) {
    float s = 0;
    for (int j = 0; j < C; j++) s += a[i * C + j];
    want[i] = s;
  }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    uint32_t count[3];
    char *ir = build_run(text, targets[t], bs, n, 2, count);
    ck_assert_msg(strstr(ir, "iter_args"), "%s: reduction not in registers:\n%s", targets[t], ir);
    free(ir);
    /* whole rows, about 8192 elements read per workgroup
     * (select-launch-config): 8192 / 77 = 106 rows a tile, 3 tiles */
    ck_assert_uint_eq(count[0], 3);
    near(o, want, n[1], "row sums", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

/* ---- matvec: a vector reduction along the rows ---- */
START_TEST(matvec_rows) {
  enum { M = 45, N = 77 };
  const char *text =
      "func.func @mv() {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<45x77xf32>\n"
      "  %x = hal.interface.binding {binding = 1 : i32} : memref<77xf32>\n"
      "  %o = hal.interface.binding {binding = 2 : i32} : memref<45xf32>\n"
      "  linalg.fill ins(%zero : f32) outs(%o : memref<45xf32>)\n"
      "  linalg.matvec ins(%a, %x : memref<45x77xf32>, memref<77xf32>) outs(%o : memref<45xf32>)\n"
      "  return\n}\n";
  size_t n[3] = {M * N, N, M};
  float *a = falloc(n[0]), *x = falloc(n[1]), *o = falloc(n[2]), *want = falloc(n[2]);
  fill(a, n[0], 18), fill(x, n[1], 19);
  for (int i = 0; i < M; i++) {
    float s = 0;
    for (int j = 0; j < N; j++) s += a[i * N + j] * x[j];
    want[i] = s;
  }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[3] = {a, x, o};
    char *ir = build_run(text, targets[t], bs, n, 3, NULL);
    ck_assert_msg(strstr(ir, "vector.reduction <add>"), "%s: no vector reduction:\n%s", targets[t], ir);
    free(ir);
    near(o, want, n[2], "matvec", targets[t]);
  }
  free(a), free(x), free(o), free(want);
}
END_TEST

/* ---- conv_2d_nhwc_hwcf ---- */
static void check_conv(int H, int W, int Cin, int KH, int KW, int F, int stride) {
  int OH = (H - KH) / stride + 1, OW = (W - KW) / stride + 1;
  char text[2048];
  snprintf(text, sizeof text,
           "func.func @conv() {\n"
           "  %%zero = arith.constant 0.0 : f32\n"
           "  %%in = hal.interface.binding {binding = 0 : i32} : memref<1x%dx%dx%dxf32>\n"
           "  %%f = hal.interface.binding {binding = 1 : i32} : memref<%dx%dx%dx%dxf32>\n"
           "  %%o = hal.interface.binding {binding = 2 : i32} : memref<1x%dx%dx%dxf32>\n"
           "  linalg.fill ins(%%zero : f32) outs(%%o : memref<1x%dx%dx%dxf32>)\n"
           "  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}"
           " ins(%%in, %%f : memref<1x%dx%dx%dxf32>, memref<%dx%dx%dx%dxf32>) outs(%%o : memref<1x%dx%dx%dxf32>)\n"
           "  return\n}\n",
           H, W, Cin, KH, KW, Cin, F, OH, OW, F, OH, OW, F, stride, H, W, Cin, KH, KW, Cin, F, OH,
           OW, F);
  size_t n[3] = {(size_t)H * W * Cin, (size_t)KH * KW * Cin * F, (size_t)OH * OW * F};
  float *in = falloc(n[0]), *f = falloc(n[1]), *o = falloc(n[2]), *want = falloc(n[2]);
  fill(in, n[0], 8), fill(f, n[1], 9);
  for (int oh = 0; oh < OH; oh++)
    for (int ow = 0; ow < OW; ow++)
      for (int ff = 0; ff < F; ff++) {
        float s = 0;
        for (int kh = 0; kh < KH; kh++)
          for (int kw = 0; kw < KW; kw++)
            for (int c = 0; c < Cin; c++)
              s += in[((oh * stride + kh) * W + (ow * stride + kw)) * Cin + c] *
                   f[((kh * KW + kw) * Cin + c) * F + ff];
        want[(oh * OW + ow) * F + ff] = s;
      }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[3] = {in, f, o};
    free(build_run(text, targets[t], bs, n, 3, NULL));
    near(o, want, n[2], "conv_2d_nhwc_hwcf", targets[t]);
  }
  free(in), free(f), free(o), free(want);
}

START_TEST(conv_stride1) { check_conv(9, 9, 3, 3, 3, 8, 1); }
END_TEST
START_TEST(conv_stride2_tiled) { check_conv(41, 23, 5, 3, 2, 70, 2); }
END_TEST

/* ---- the ONNX importer's convolution: a linalg.generic over
 * (n, g, m, oh, ow, c, kh, kw) on X [N,G,C,H,W], W [G,M,C,KH,KW] ->
 * out [N,G,M,OH,OW] (lower_conv.c: packed weights, gathered NCHW
 * output, leftover channels on the generic path) ---- */
static void check_conv_onnx(int N, int G, int C, int H, int W, int M, int KH, int KW, int stride,
                            int dil, uint32_t *count) {
  int OH = (H - (KH - 1) * dil - 1) / stride + 1, OW = (W - (KW - 1) * dil - 1) / stride + 1;
  char text[4096];
  snprintf(text, sizeof text,
           "#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * %d + d6 * %d, d4 * %d + d7 * %d)>\n"
           "#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>\n"
           "#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>\n"
           "func.func @conv() {\n"
           "  %%zero = arith.constant 0.0 : f32\n"
           "  %%x = hal.interface.binding {binding = 0 : i32} : memref<%dx%dx%dx%dx%dxf32>\n"
           "  %%w = hal.interface.binding {binding = 1 : i32} : memref<%dx%dx%dx%dx%dxf32>\n"
           "  %%o = hal.interface.binding {binding = 2 : i32} : memref<%dx%dx%dx%dx%dxf32>\n"
           "  linalg.fill ins(%%zero : f32) outs(%%o : memref<%dx%dx%dx%dx%dxf32>)\n"
           "  linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = [\"parallel\", \"parallel\","
           " \"parallel\", \"parallel\", \"parallel\", \"reduction\", \"reduction\", \"reduction\"]}"
           " ins(%%x, %%w : memref<%dx%dx%dx%dx%dxf32>, memref<%dx%dx%dx%dx%dxf32>)"
           " outs(%%o : memref<%dx%dx%dx%dx%dxf32>) {\n"
           "  ^bb0(%%a: f32, %%b: f32, %%acc: f32):\n"
           "    %%m = arith.mulf %%b, %%a : f32\n"
           "    %%s = arith.addf %%m, %%acc : f32\n"
           "    linalg.yield %%s : f32\n"
           "  }\n"
           "  return\n}\n",
           stride, dil, stride, dil, N, G, C, H, W, G, M, C, KH, KW, N, G, M, OH, OW, N, G, M, OH, OW,
           N, G, C, H, W, G, M, C, KH, KW, N, G, M, OH, OW);
  size_t n[3] = {(size_t)N * G * C * H * W, (size_t)G * M * C * KH * KW, (size_t)N * G * M * OH * OW};
  float *x = falloc(n[0]), *w = falloc(n[1]), *o = falloc(n[2]), *want = falloc(n[2]);
  fill(x, n[0], 11), fill(w, n[1], 12);
  for (int b = 0; b < N; b++)
    for (int g = 0; g < G; g++)
      for (int m = 0; m < M; m++)
        for (int oh = 0; oh < OH; oh++)
          for (int ow = 0; ow < OW; ow++) {
            float s = 0;
            for (int c = 0; c < C; c++)
              for (int kh = 0; kh < KH; kh++)
                for (int kw = 0; kw < KW; kw++)
                  s += x[((((size_t)b * G + g) * C + c) * H + oh * stride + kh * dil) * W + ow * stride + kw * dil] *
                       w[((((size_t)g * M + m) * C + c) * KH + kh) * KW + kw];
            want[((((size_t)b * G + g) * M + m) * OH + oh) * OW + ow] = s;
          }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[3] = {x, w, o};
    char *ir = build_run(text, targets[t], bs, n, 3, count);
    /* The microkernel ran: fmas on vectors of the target's width. */
    ck_assert_msg(ir && strstr(ir, "vector.fma"), "%s: no register-blocked microkernel", targets[t]);
    free(ir);
    near(o, want, n[2], "onnx conv", targets[t]);
  }
  free(x), free(w), free(o), free(want);
}

/* 40 channels: 2 vectors of 16 and 8 left for the generic path with
 * avx512; 3x3 window, stride 1; 9 columns = a row block of 8 and 1. */
START_TEST(conv_onnx_tail_channels) { check_conv_onnx(1, 1, 5, 12, 11, 40, 3, 3, 1, 1, NULL); }
END_TEST
/* Groups, batch, stride 2, dilation 2, a 3x2 window. */
START_TEST(conv_onnx_groups_strided) { check_conv_onnx(2, 2, 3, 15, 14, 20, 3, 2, 2, 2, NULL); }
END_TEST
/* 600 input channels x 3x3: the packed panel no longer fits and the
 * channel loop runs in blocks (accumulators gathered per block). */
START_TEST(conv_onnx_blocked_panel) { check_conv_onnx(1, 1, 600, 5, 5, 32, 3, 3, 1, 1, NULL); }
END_TEST
/* A ResNet-like 1x1 shape big enough to be split over workgroups: by
 * output channels first (64 -> 2 x 32), then output rows. */
START_TEST(conv_onnx_1x1_distributed) {
  uint32_t count[3];
  check_conv_onnx(1, 1, 64, 28, 28, 64, 1, 1, 1, 1, count);
  ck_assert_uint_gt(count[0] * count[1] * count[2], 1);
}
END_TEST

/* ---- pooling_nhwc_max, 2x2 windows, stride 2 ---- */
START_TEST(pooling_max) {
  enum { H = 18, W = 14, C = 20, OH = 9, OW = 7 };
  const char *text =
      "func.func @pool() {\n"
      "  %ninf = arith.constant -3.0e+38 : f32\n"
      "  %in = hal.interface.binding {binding = 0 : i32} : memref<1x18x14x20xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<1x9x7x20xf32>\n"
      "  %win = memref.alloca() : memref<2x2xf32>\n"
      "  linalg.fill ins(%ninf : f32) outs(%o : memref<1x9x7x20xf32>)\n"
      "  linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}"
      " ins(%in, %win : memref<1x18x14x20xf32>, memref<2x2xf32>) outs(%o : memref<1x9x7x20xf32>)\n"
      "  return\n}\n";
  size_t n[2] = {H * W * C, OH * OW * C};
  float *in = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(in, n[0], 10);
  for (int oh = 0; oh < OH; oh++)
    for (int ow = 0; ow < OW; ow++)
      for (int c = 0; c < C; c++) {
        float m = -3.0e38f;
        for (int kh = 0; kh < 2; kh++)
          for (int kw = 0; kw < 2; kw++) m = fmaxf(m, in[((oh * 2 + kh) * W + ow * 2 + kw) * C + c]);
        want[(oh * OW + ow) * C + c] = m;
      }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {in, o};
    free(build_run(text, targets[t], bs, n, 2, NULL));
    near(o, want, n[1], "pooling_nhwc_max", targets[t]);
  }
  free(in), free(o), free(want);
}
END_TEST

/* ---- transpose ---- */
START_TEST(transpose_2d) {
  enum { R = 333, C = 17 };
  const char *text =
      "func.func @tr() {\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<333x17xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<17x333xf32>\n"
      "  linalg.transpose ins(%a : memref<333x17xf32>) outs(%o : memref<17x333xf32>) permutation = [1, 0]\n"
      "  return\n}\n";
  size_t n[2] = {R * C, R * C};
  float *a = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(a, n[0], 11);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[j * R + i] = a[i * C + j];
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    free(build_run(text, targets[t], bs, n, 2, NULL));
    near(o, want, n[1], "transpose", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

/* ---- broadcast ---- */
START_TEST(broadcast_rows) {
  enum { R = 30, C = 40 };
  const char *text =
      "func.func @bc() {\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<40xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<30x40xf32>\n"
      "  linalg.broadcast ins(%a : memref<40xf32>) outs(%o : memref<30x40xf32>) dimensions = [0]\n"
      "  return\n}\n";
  size_t n[2] = {C, R * C};
  float *a = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(a, n[0], 12);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[i * C + j] = a[j];
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    free(build_run(text, targets[t], bs, n, 2, NULL));
    near(o, want, n[1], "broadcast", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

/* ---- generic with linalg.index on every loop, 2 x 1 tiles of 8192 ---- */
START_TEST(generic_index) {
  enum { R = 70, C = 450 };
  const char *text =
      "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
      "func.func @idx() {\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<70x450xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<70x450xf32>\n"
      "  linalg.generic {indexing_maps = [#id, #id], iterator_types = [\"parallel\", \"parallel\"]}\n"
      "      ins(%a : memref<70x450xf32>) outs(%o : memref<70x450xf32>) {\n"
      "  ^bb0(%x: f32, %out: f32):\n"
      "    %i = linalg.index 0 : index\n"
      "    %j = linalg.index 1 : index\n"
      "    %c1000 = arith.constant 1000 : index\n"
      "    %s = arith.muli %i, %c1000 : index\n"
      "    %t = arith.addi %s, %j : index\n"
      "    %ti = arith.index_cast %t : index to i32\n"
      "    %tf = arith.sitofp %ti : i32 to f32\n"
      "    %r = arith.addf %x, %tf : f32\n"
      "    linalg.yield %r : f32\n"
      "  }\n"
      "  return\n}\n";
  size_t n[2] = {R * C, R * C};
  float *a = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(a, n[0], 13);
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want[i * C + j] = a[i * C + j] + (float)(i * 1000 + j);
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    uint32_t count[3];
    free(build_run(text, targets[t], bs, n, 2, count));
    ck_assert_uint_eq(count[0] * count[1] * count[2], 4); /* 18 rows per tile */
    near(o, want, n[1], "generic with linalg.index", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

/* ---- batch_matmul (generic path) ---- */
START_TEST(batch_matmul) {
  enum { B = 3, M = 70, N = 5, K = 6 };
  const char *text =
      "func.func @bmm() {\n"
      "  %zero = arith.constant 0.0 : f32\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<3x70x6xf32>\n"
      "  %b = hal.interface.binding {binding = 1 : i32} : memref<3x6x5xf32>\n"
      "  %c = hal.interface.binding {binding = 2 : i32} : memref<3x70x5xf32>\n"
      "  linalg.fill ins(%zero : f32) outs(%c : memref<3x70x5xf32>)\n"
      "  linalg.batch_matmul ins(%a, %b : memref<3x70x6xf32>, memref<3x6x5xf32>) outs(%c : memref<3x70x5xf32>)\n"
      "  return\n}\n";
  size_t n[3] = {B * M * K, B * K * N, B * M * N};
  float *a = falloc(n[0]), *b = falloc(n[1]), *c = falloc(n[2]), *want = falloc(n[2]);
  fill(a, n[0], 14), fill(b, n[1], 15);
  for (int p = 0; p < B; p++)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        float s = 0;
        for (int k = 0; k < K; k++) s += a[(p * M + i) * K + k] * b[(p * K + k) * N + j];
        want[(p * M + i) * N + j] = s;
      }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[3] = {a, b, c};
    free(build_run(text, targets[t], bs, n, 3, NULL));
    near(c, want, n[2], "batch_matmul", targets[t]);
  }
  free(a), free(b), free(c), free(want);
}
END_TEST

/* ---- vectorized compare/select and integer ops ---- */
START_TEST(select_and_integers) {
  enum { N = 1000 };
  const char *text =
      "#id = affine_map<(d0) -> (d0)>\n"
      "func.func @sel() {\n"
      "  %x = hal.interface.binding {binding = 0 : i32} : memref<1000xf32>\n"
      "  %k = hal.interface.binding {binding = 1 : i32} : memref<1000xi32>\n"
      "  %o = hal.interface.binding {binding = 2 : i32} : memref<1000xf32>\n"
      "  %p = hal.interface.binding {binding = 3 : i32} : memref<1000xi32>\n"
      "  linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = [\"parallel\"]}\n"
      "      ins(%x, %k : memref<1000xf32>, memref<1000xi32>) outs(%o, %p : memref<1000xf32>, memref<1000xi32>) {\n"
      "  ^bb0(%v: f32, %n: i32, %out: f32, %outp: i32):\n"
      "    %zero = arith.constant 0.0 : f32\n"
      "    %slope = arith.constant 0.125 : f32\n"
      "    %three = arith.constant 3 : i32\n"
      "    %pos = arith.cmpf ogt, %v, %zero : f32\n"
      "    %neg = arith.mulf %v, %slope : f32\n"
      "    %r = arith.select %pos, %v, %neg : f32\n"
      "    %m = arith.muli %n, %three : i32\n"
      "    %q = arith.subi %m, %n : i32\n"
      "    linalg.yield %r, %q : f32, i32\n"
      "  }\n"
      "  return\n}\n";
  size_t n[4] = {N, N, N, N};
  float *x = falloc(N), *o = falloc(N), *want = falloc(N);
  int32_t *k = (int32_t *)(void *)falloc(N), *p = (int32_t *)(void *)falloc(N);
  fill(x, N, 17);
  for (int i = 0; i < N; i++) {
    k[i] = i * 7919 - 3000000;
    want[i] = x[i] > 0 ? x[i] : x[i] * 0.125f;
  }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[4] = {x, (float *)(void *)k, o, (float *)(void *)p};
    char *ir = build_run(text, targets[t], bs, n, 4, NULL);
    ck_assert_msg(strstr(ir, "arith.select") && strstr(ir, "xi1>"), "%s: select not vectorized:\n%s",
                  targets[t], ir);
    free(ir);
    near(o, want, N, "leaky relu", targets[t]);
    for (int i = 0; i < N; i++) ck_assert_int_eq(p[i], k[i] * 2);
  }
  free(x), free(o), free(want), free(k), free(p);
}
END_TEST

/* ---- softmax along a middle dim (needs approximate-math for exp) ---- */
START_TEST(softmax_middle_dim) {
  enum { A = 4, B = 30, C = 7 };
  if (!cpu_kernel_have_math()) {
    printf("softmax_middle_dim: not run, approximate-math is not in this build\n");
    return;
  }
  const char *text =
      "func.func @sm() {\n"
      "  %a = hal.interface.binding {binding = 0 : i32} : memref<4x30x7xf32>\n"
      "  %o = hal.interface.binding {binding = 1 : i32} : memref<4x30x7xf32>\n"
      "  linalg.softmax dimension(1) ins(%a : memref<4x30x7xf32>) outs(%o : memref<4x30x7xf32>)\n"
      "  return\n}\n";
  size_t n[2] = {A * B * C, A * B * C};
  float *a = falloc(n[0]), *o = falloc(n[1]), *want = falloc(n[1]);
  fill(a, n[0], 16);
  for (int i = 0; i < A; i++)
    for (int k = 0; k < C; k++) {
      double m = -1e30, s = 0;
      for (int j = 0; j < B; j++) m = fmax(m, a[(i * B + j) * C + k]);
      for (int j = 0; j < B; j++) s += exp(a[(i * B + j) * C + k] - m);
      for (int j = 0; j < B; j++) want[(i * B + j) * C + k] = (float)(exp(a[(i * B + j) * C + k] - m) / s);
    }
  for (int t = 0; t < NTARGETS; t++) {
    float *bs[2] = {a, o};
    free(build_run(text, targets[t], bs, n, 2, NULL));
    near(o, want, n[1], "softmax", targets[t]);
  }
  free(a), free(o), free(want);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_cpu_exec");
  TCase *tc = tcase_create("exec");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, matmul_17x33x9);
  tcase_add_test(tc, matmul_64x64x64);
  tcase_add_test(tc, matmul_1x1x1);
  tcase_add_test(tc, matmul_partial_tiles);
  tcase_add_test(tc, matmul_multi_tile);
  tcase_add_test(tc, matmul_packed_b);
  tcase_add_test(tc, elementwise_chain);
  tcase_add_test(tc, elementwise_4d_collapsed_z);
  tcase_add_test(tc, reduction_rows);
  tcase_add_test(tc, matvec_rows);
  tcase_add_test(tc, conv_stride1);
  tcase_add_test(tc, conv_stride2_tiled);
  tcase_add_test(tc, conv_onnx_tail_channels);
  tcase_add_test(tc, conv_onnx_groups_strided);
  tcase_add_test(tc, conv_onnx_blocked_panel);
  tcase_add_test(tc, conv_onnx_1x1_distributed);
  tcase_add_test(tc, pooling_max);
  tcase_add_test(tc, transpose_2d);
  tcase_add_test(tc, broadcast_rows);
  tcase_add_test(tc, generic_index);
  tcase_add_test(tc, batch_matmul);
  tcase_add_test(tc, softmax_middle_dim);
  tcase_add_test(tc, select_and_integers);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
#endif
