/* Accuracy of approximate-math against libm: for each expanded function,
 * f32 and f64, scalar and 8-wide vector code, a kernel applies it to a
 * dense sweep of inputs; it is compiled by the llvm_cpu back end (lld
 * refuses any undefined symbol, so no libm call can hide in the object)
 * and run through the runtime's ELF loader. The maximum error in ulps of
 * the exact result (long double libm as reference) is printed per case
 * and bounded; special values (NaN, infinities, zeros, huge arguments)
 * are checked exactly. */
#include <stdio.h>
#include <stdlib.h>

#ifndef KILN_TEST_HAVE_ELF_LOADER
int main(void) {
  printf("SKIP: the runtime's ELF loader (kiln_elf) was not available at configure time\n");
  return 77;
}
#else

#include <check.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "elf_loader.h"
#include "harness.h"
#include "kiln/executable_abi.h"

enum { N = 1 << 17, NSPECIAL = 16 };

typedef enum { LINEAR, LOGPOS } sweep_kind;

typedef struct fcase {
  const char *op;
  long double (*ref)(long double);
  long double (*ref2)(long double, long double);
  sweep_kind sweep;
  double lo, hi;         /* LINEAR range (x); y range for powf: see below */
  double lo64, hi64;     /* f64 range (0, 0: same as f32) */
  double max_ulp32, max_ulp64;
} fcase;

static long double rsqrtl_(long double x) { return 1.0L / sqrtl(x); }
static long double sigmoidl_(long double x) { return 1.0L / (1.0L + expl(-x)); }
static long double silul_(long double x) { return x / (1.0L + expl(-x)); }

static const fcase cases[] = {
    {"math.exp", expl, NULL, LINEAR, -103, 88.7, -745, 709.7, 2, 2},
    {"math.exp2", exp2l, NULL, LINEAR, -149, 127.9, -1074, 1023.9, 2, 2},
    {"math.log", logl, NULL, LOGPOS, 0, 0, 0, 0, 2, 2},
    {"math.log2", log2l, NULL, LOGPOS, 0, 0, 0, 0, 2, 2.5},
    {"math.tanh", tanhl, NULL, LINEAR, -12, 12, -25, 25, 2, 4},
    {"math.erf", erfl, NULL, LINEAR, -6, 6, -7, 7, 1, 2},
    {"math.sin", sinl, NULL, LINEAR, -1000, 1000, -100000, 100000, 2.5, 2.5},
    {"math.cos", cosl, NULL, LINEAR, -1000, 1000, -100000, 100000, 2.5, 2.5},
    {"math.rsqrt", rsqrtl_, NULL, LOGPOS, 0, 0, 0, 0, 2, 2},
    {"math.floor", floorl, NULL, LINEAR, -1e4, 1e4, 0, 0, 0, 0},
    {"math.ceil", ceill, NULL, LINEAR, -1e4, 1e4, 0, 0, 0, 0},
    {"math.round", roundl, NULL, LINEAR, -1e4, 1e4, 0, 0, 0, 0},
    /* f64 pow: exp(y log x) in plain f64, so the error grows with
     * |y log x| (here up to ~140): about 170 ulp at worst. */
    {"math.powf", NULL, powl, LINEAR, -30, 30, -200, 200, 1, 200},
    /* 1 / (1 + exp(-x)), the ONNX importer's sigmoid: its exp skips the
     * subnormal range (ap.denominator), so results below 2^-126 are not
     * swept (they may flush to 0; the specials check the limits). */
    {"sigmoid", sigmoidl_, NULL, LINEAR, -87, 88.7, -708, 709, 3, 3},
    /* x * sigmoid(x) (PyTorch's SiLU exported): its product with the
     * quotient 1 / (1 + exp(-x)) is expanded as x / (1 + exp(-x)). */
    {"silu", silul_, NULL, LINEAR, -87, 88.7, -708, 709, 3, 3},
};

/* The module's kiln.target (NULL: none, the host): approximate-math picks
 * some expansions by whether the target fuses multiply-adds, and the
 * "llvm-cpu:x86_64" baseline (no FMA) takes the others, whichever CPU
 * runs the test. */
static const char *module_target;

/* A kernel applying `op` to binding 0 (and 1 for powf) into binding 2. */
static char *kernel_text(const char *op, bool f64, bool vec) {
  const char *t = f64 ? "f64" : "f32";
  char vt[32], ld[256], ld2[256], st[256], mt[64];
  snprintf(mt, sizeof mt, "memref<%dx%s>", N, t);
  snprintf(vt, sizeof vt, vec ? "vector<8x%s>" : "%s", t);
  if (vec) {
    snprintf(ld, sizeof ld, "%%x = vector.load %%in[%%i] : %s, %s", mt, vt);
    snprintf(ld2, sizeof ld2, "%%y = vector.load %%in2[%%i] : %s, %s", mt, vt);
    snprintf(st, sizeof st, "vector.store %%r, %%out[%%i] : %s, %s", mt, vt);
  } else {
    snprintf(ld, sizeof ld, "%%x = memref.load %%in[%%i] : %s", mt);
    snprintf(ld2, sizeof ld2, "%%y = memref.load %%in2[%%i] : %s", mt);
    snprintf(st, sizeof st, "memref.store %%r, %%out[%%i] : %s", mt);
  }
  bool bin = strcmp(op, "math.powf") == 0;
  char body[512];
  bool silu = !strcmp(op, "silu");
  if (silu || !strcmp(op, "sigmoid")) /* the constant first, as the importer writes it */
    snprintf(body, sizeof body,
             "%%one = arith.constant %s1.0%s : %s\n"
             "    %%nx = arith.negf %%x : %s\n    %%e = math.exp %%nx : %s\n"
             "    %%d = arith.addf %%one, %%e : %s\n    %%%s = arith.divf %%one, %%d : %s%s%s",
             vec ? "dense<" : "", vec ? ">" : "", vt, vt, vt, vt, silu ? "q" : "r", vt,
             silu ? "\n    %r = arith.mulf %x, %q : " : "", silu ? vt : "");
  else
    snprintf(body, sizeof body, "%%r = %s %%x%s : %s", op, bin ? ", %y" : "", vt);
  char *text = malloc(4096), head[128] = "";
  ck_assert_ptr_nonnull(text);
  if (module_target)
    snprintf(head, sizeof head, "module attributes {kiln.target = \"%s\"} {\n", module_target);
  snprintf(text, 4096,
           "%sfunc.func @k() {\n"
           "  %%c0 = arith.constant 0 : index\n"
           "  %%s = arith.constant %d : index\n"
           "  %%n = arith.constant %d : index\n"
           "  %%in = hal.interface.binding {binding = 0 : i32} : %s\n"
           "  %%in2 = hal.interface.binding {binding = 1 : i32} : %s\n"
           "  %%out = hal.interface.binding {binding = 2 : i32} : %s\n"
           "  scf.for %%i = %%c0 to %%n step %%s {\n"
           "    %s\n    %s\n"
           "    %s\n"
           "    %s\n"
           "  }\n"
           "  return\n"
           "}\n%s",
           head, vec ? 8 : 1, N, mt, mt, mt, ld, bin ? ld2 : "", body, st, module_target ? "}\n" : "");
  return text;
}

static const char *compile_approx(const char *text, kiln_llvm_cpu_bytes_t *so) {
  return harness_compile_opts(text, true, so);
}

static double ulp_of(long double r, bool f64) {
  int e;
  if (r == 0) return f64 ? ldexp(1, -1074) : ldexp(1, -149);
  frexpl(r, &e); /* r = m * 2^e, m in [0.5, 1) */
  int mant = f64 ? 53 : 24, emin = f64 ? -1021 : -125;
  if (e < emin) e = emin;
  return ldexp(1, e - mant);
}

/* Inputs: NSPECIAL specials, then the sweep. */
static void fill(const fcase *c, bool f64, double *x, double *y) {
  static const double sp[NSPECIAL] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0, 0.5,
                                      -0.5, 2.5, -2.5, 1e30, -1e30, 3.0, 1e-30, -3.0};
  for (int i = 0; i < NSPECIAL; i++) {
    x[i] = f64 ? sp[i] : (float)sp[i];
    y[i] = f64 ? sp[(i * 7 + 3) % NSPECIAL] : (float)sp[(i * 7 + 3) % NSPECIAL];
  }
  double lo = f64 && c->hi64 != 0 ? c->lo64 : c->lo, hi = f64 && c->hi64 != 0 ? c->hi64 : c->hi;
  for (int i = NSPECIAL; i < N; i++) {
    double u = (double)(i - NSPECIAL) / (N - NSPECIAL - 1);
    if (c->sweep == LOGPOS) {
      /* Every binade from the smallest subnormal to the largest float. */
      double l0 = f64 ? -1074 : -149, l1 = f64 ? 1023.99 : 127.99;
      x[i] = exp2(l0 + u * (l1 - l0));
    } else {
      x[i] = lo + u * (hi - lo);
    }
    if (c->ref2) {
      /* pow: x log-uniform over [1e-3, 1e3] (|x| for odd i negative with
       * an integer y), y over the case's range. */
      double ly = -3 + 6 * (double)((i * 2654435761u) % 100003) / 100003;
      x[i] = pow(10, ly);
      y[i] = x[i] > 0 ? lo / 10 + u * (hi - lo) / 10 : 0;
      if (i % 2) {
        x[i] = -x[i];
        y[i] = round(y[i]);
      }
    }
    if (!f64) {
      x[i] = (float)x[i];
      y[i] = (float)y[i];
    }
  }
}

static bool same_special(double got, long double want) {
  if (isnan(want)) return isnan(got);
  return got == (double)want && signbit(got) == signbit((double)want);
}

static void run_case(const fcase *c, bool f64, bool vec) {
  char *text = kernel_text(c->op, f64, vec);
  kiln_llvm_cpu_bytes_t so = {0};
  const char *err = compile_approx(text, &so);
  ck_assert_msg(!err, "%s (%s): %s", c->op, f64 ? "f64" : "f32", err ? err : "");
  free(text);
  kiln_elf_image_t img;
  char msg[256];
  ck_assert_msg(kiln_elf_load(so.data, so.size, &img, msg, sizeof msg) == KILN_ELF_OK, "%s", msg);
  kiln_llvm_cpu_bytes_free(&so);
  kiln_executable_query_fn q = (kiln_executable_query_fn)(uintptr_t)
      kiln_elf_lookup(&img, KILN_EXECUTABLE_QUERY_SYMBOL);
  const kiln_executable_table_t *t = q(KILN_EXECUTABLE_ABI_VERSION);
  size_t es = f64 ? 8 : 4;
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  void *bx = aligned_alloc(64, N * es), *by = aligned_alloc(64, N * es), *bo = aligned_alloc(64, N * es);
  ck_assert(x && y && bx && by && bo);
  fill(c, f64, x, y);
  for (int i = 0; i < N; i++) {
    if (f64) {
      ((double *)bx)[i] = x[i];
      ((double *)by)[i] = y[i];
    } else {
      ((float *)bx)[i] = (float)x[i];
      ((float *)by)[i] = (float)y[i];
    }
  }
  void *ptrs[3] = {bx, by, bo};
  uint64_t lens[3] = {N * es, N * es, N * es};
  kiln_dispatch_state_t ds = {.workgroup_size = {1, 1, 1}, .workgroup_count = {1, 1, 1},
                              .max_concurrency = 1, .binding_count = 3,
                              .binding_ptrs = ptrs, .binding_lengths = lens};
  kiln_workgroup_state_t ws = {{0, 0, 0}, 0, NULL, 0};
  ck_assert_int_eq(t->exports[0].entry(&ds, &ws), 0);
  double max_ulp = 0, max_rel = 0, at = 0;
  for (int i = 0; i < N; i++) {
    double got = f64 ? ((double *)bo)[i] : ((float *)bo)[i];
    long double want = c->ref ? c->ref(x[i]) : c->ref2(x[i], y[i]);
    if (!f64 && !isnan(want) && fabsl(want) > FLT_MAX) want = copysignl(INFINITY, want);
    bool special = !isfinite(x[i]) || (c->ref2 && !isfinite(y[i])) || isinf(want) || isnan(want) ||
                   want == 0 || !isfinite(got);
    if (special) {
      /* sin/cos of huge specials: only finiteness and range matter. */
      if ((!strcmp(c->op, "math.sin") || !strcmp(c->op, "math.cos")) && isfinite(x[i]) &&
          fabs(x[i]) > 1e6) {
        ck_assert_msg(isfinite(got) && fabs(got) <= 1.0, "%s(%g) = %g", c->op, x[i], got);
        continue;
      }
      ck_assert_msg(same_special(got, want), "%s %s(%a%s%a) = %a, expected %La", f64 ? "f64" : "f32",
                    c->op, x[i], c->ref2 ? ", " : "", c->ref2 ? y[i] : 0.0, got, want);
      continue;
    }
    if ((!strcmp(c->op, "math.sin") || !strcmp(c->op, "math.cos")) && fabs(x[i]) > 1e6) {
      /* Beyond the reduction's range: bounded, not accurate. */
      ck_assert_msg(fabs(got) <= 1.0, "%s(%g) = %g", c->op, x[i], got);
      continue;
    }
    double u = (double)(fabsl((long double)got - want) / ulp_of(want, f64));
    double rel = (double)(fabsl(((long double)got - want) / want));
    if (u > max_ulp) {
      max_ulp = u;
      at = x[i];
    }
    if (rel > max_rel) max_rel = rel;
  }
  printf("%-11s %s %-6s max %.3g ulp (at x = %.9g), max rel %.3g over %d points\n", c->op,
         f64 ? "f64" : "f32", vec ? "vec8" : "scalar", max_ulp, at, max_rel, N);
  double bound = f64 ? c->max_ulp64 : c->max_ulp32;
  ck_assert_msg(max_ulp <= bound, "%s %s: %g ulp exceeds %g", c->op, f64 ? "f64" : "f32", max_ulp,
                bound);
  free(x);
  free(y);
  free(bx);
  free(by);
  free(bo);
  kiln_elf_unload(&img);
}

START_TEST(accuracy) {
  const fcase *c = &cases[_i / 4];
  run_case(c, (_i / 2) % 2, _i % 2);
}
END_TEST

/* f32 erf for a target without fused multiply-adds (the f64 expansion),
 * and exp and sigmoid there (exp's rounding add is a multiply and an add:
 * k must still be the nearest integer's neighbour at worst). */
START_TEST(unfused) {
  module_target = "llvm-cpu:x86_64";
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (!strcmp(cases[i].op, "math.erf") || !strcmp(cases[i].op, "math.exp") ||
        !strcmp(cases[i].op, "sigmoid") || !strcmp(cases[i].op, "silu"))
      run_case(&cases[i], false, _i);
  module_target = NULL;
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_approx");
  TCase *tc = tcase_create("approx");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, accuracy, 0, (int)(sizeof cases / sizeof cases[0]) * 4);
  tcase_add_loop_test(tc, unfused, 0, 2);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
#endif
