/* Unit tests of the hal stage: kiln_hal_pack_arena (disjoint lifetimes
 * share bytes, overlapping ones never do, on fixed cases and random
 * ones; holes largest-first leaves get filled), plan-memory + schedule-commands on host code (barriers only on
 * real dependencies, including write-after-read when the arena reuses
 * bytes), and the target list API. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "session.h"
#include "mlir_input.h"

static bool bytes_overlap(const kiln_hal_interval *a, const kiln_hal_interval *b) {
  return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}
static bool time_overlap(const kiln_hal_interval *a, const kiln_hal_interval *b) {
  return a->first <= b->last && b->first <= a->last;
}

START_TEST(disjoint_lifetimes_share) {
  kiln_hal_interval v[2] = {{0, 1, 100, 0}, {2, 3, 100, 0}};
  uint64_t size = kiln_hal_pack_arena(v, 2, 64);
  ck_assert_uint_eq(v[0].offset, 0);
  ck_assert_uint_eq(v[1].offset, 0);
  ck_assert_uint_eq(size, 128);
}
END_TEST

START_TEST(overlapping_lifetimes_do_not) {
  kiln_hal_interval v[2] = {{0, 2, 100, 0}, {2, 3, 100, 0}};
  uint64_t size = kiln_hal_pack_arena(v, 2, 64);
  ck_assert(!bytes_overlap(&v[0], &v[1]));
  ck_assert_uint_eq(v[0].offset % 64, 0);
  ck_assert_uint_eq(v[1].offset % 64, 0);
  ck_assert_uint_eq(size, 256);
}
END_TEST

START_TEST(chain_reuses_every_other) {
  /* t0 [0,1], t1 [1,2], t2 [2,3], t3 [3,4]: two slots suffice */
  kiln_hal_interval v[4] = {{0, 1, 64, 0}, {1, 2, 64, 0}, {2, 3, 64, 0}, {3, 4, 64, 0}};
  uint64_t size = kiln_hal_pack_arena(v, 4, 64);
  ck_assert_uint_eq(size, 128);
  ck_assert_uint_eq(v[0].offset, v[2].offset);
  ck_assert_uint_eq(v[1].offset, v[3].offset);
  ck_assert_uint_ne(v[0].offset, v[1].offset);
}
END_TEST

START_TEST(perturbed_orders_fill_holes) {
  /* Largest first puts t0 [0,0] and t3 [0,3] (384 B each) at 0 and 384,
   * t1 [4,5] at 0, then t2 [3,4] finds no hole below 768: 1024 bytes.
   * At most 768 bytes are alive at once, and another order reaches it. */
  kiln_hal_interval v[4] = {{0, 0, 384, 0}, {4, 5, 320, 0}, {3, 4, 256, 0}, {0, 3, 384, 0}};
  uint64_t size = kiln_hal_pack_arena(v, 4, 64);
  ck_assert_uint_eq(size, 768);
  for (int i = 0; i < 4; i++) {
    ck_assert_uint_le(v[i].offset + v[i].size, size);
    for (int j = 0; j < i; j++) ck_assert(!time_overlap(&v[i], &v[j]) || !bytes_overlap(&v[i], &v[j]));
  }
}
END_TEST

START_TEST(random_packings_are_valid) {
  srand(1234);
  for (int round = 0; round < 500; round++) {
    size_t n = (size_t)(rand() % 24);
    kiln_hal_interval v[24];
    uint64_t need = 0;
    for (size_t i = 0; i < n; i++) {
      v[i].first = rand() % 20;
      v[i].last = v[i].first + rand() % 6;
      v[i].size = (uint64_t)(rand() % 1000);
      v[i].offset = 0;
      need = v[i].size > need ? v[i].size : need;
    }
    uint64_t size = kiln_hal_pack_arena(v, n, 64);
    ck_assert(size >= need);
    for (size_t i = 0; i < n; i++) {
      ck_assert_uint_eq(v[i].offset % 64, 0);
      ck_assert(v[i].offset + v[i].size <= size);
      for (size_t j = i + 1; j < n; j++)
        if (time_overlap(&v[i], &v[j]) && v[i].size && v[j].size)
          ck_assert_msg(!bytes_overlap(&v[i], &v[j]), "round %d: %zu and %zu overlap", round, i, j);
    }
  }
}
END_TEST

/* Runs passes over host text in a context whose compile session has the
 * given --target values (ntargets = 0: none); returns the printed module
 * (malloc'ed). */
static char *run_with_targets(const char *text, const char *pipeline, uint32_t ntargets,
                              const char *const *targets) {
  kiln_context *ctx = kiln_context_create();
  kiln_session *session = kiln_session_create();
  kiln_session_attach(session, ctx);
  for (uint32_t i = 0; i < ntargets; i++) ck_assert(!kiln_session_add_target(session, targets[i]));
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "test.mlir", text, strlen(text), true, &m);
  ck_assert_msg(!e, "parse: %s", e ? kiln_error_message(e) : "");
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  e = kiln_pm_add_pipeline(pm, pipeline);
  if (!e) e = kiln_pm_run(pm, m);
  char *out = e ? NULL : kiln_print_op_to_string(m, 0);
  if (e) {
    size_t n = strlen(kiln_error_message(e)) + 8;
    out = malloc(n);
    snprintf(out, n, "ERROR %s", kiln_error_message(e));
    kiln_error_free(e);
  }
  kiln_pm_destroy(pm);
  kiln_session_attach(NULL, ctx);
  kiln_context_destroy(ctx);
  kiln_session_destroy(session);
  return out;
}

static char *run(const char *text, const char *pipeline) {
  return run_with_targets(text, pipeline, 0, NULL);
}

/* The sequence of dispatch executables and barriers in s, e.g. "e0 | e1 e2". */
static void commands(const char *s, char *out, size_t cap) {
  out[0] = 0;
  for (const char *p = s; (p = strstr(p, "\"hal.command_buffer.")); p++) {
    if (strncmp(p, "\"hal.command_buffer.barrier", 27) == 0) {
      strncat(out, "| ", cap - strlen(out) - 1);
    } else if (strncmp(p, "\"hal.command_buffer.dispatch", 28) == 0) {
      const char *e = strstr(p, "executable = @");
      ck_assert(e);
      e += 14;
      size_t n = strcspn(e, ",}");
      strncat(out, e, n < cap - strlen(out) - 2 ? n : 0);
      strncat(out, " ", cap - strlen(out) - 1);
    }
  }
}

#define D(ID, IN, OUT, ARGS, TYPES, RT) \
  "  " OUT " = \"flow.dispatch\"(" ARGS ") {entry_point = @" ID "::@" ID "} : (" TYPES ") -> " RT "\n"
/* An executable whose kernel writes its results (bindings 1 and 2) in
 * full, as materialize-interfaces' written_mask says: plan-memory packs
 * such results in one uninitialized arena (without one, each result of
 * @ID would get bytes of its own, cleared). */
#define X(ID)                                                                                           \
  "\"hal.executable\"() ({\n  \"hal.executable.variant\"() ({\n    \"hal.executable.export\"() "          \
  "{binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, " \
  "sym_name = \"" ID "\", written_mask = 6 : i32} : () -> ()\n  }) {sym_name = \"v\", target = "         \
  "\"llvm-cpu\"} : () -> ()\n}) {sym_name = \"" ID "\", sym_visibility = \"private\"} : () -> ()\n"

START_TEST(independent_dispatches_get_no_barrier) {
  const char *text =
      "func.func @f(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {\n"
      D("e0", "", "%0", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e1", "", "%1", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e2", "", "%2", "%a", "tensor<8xf32>", "tensor<8xf32>")
      "  return %0, %1, %2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>\n}\n";
  char *s = run(text, "plan-memory,schedule-commands");
  char seq[256];
  commands(s, seq, sizeof seq);
  ck_assert_str_eq(seq, "e0 e1 e2 ");
  free(s);
}
END_TEST

START_TEST(dependent_dispatches_get_barriers) {
  const char *text =
      "func.func @f(%a: tensor<8xf32>) -> tensor<8xf32> {\n"
      D("e0", "", "%0", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e1", "", "%1", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e2", "", "%2", "%0, %1", "tensor<8xf32>, tensor<8xf32>", "tensor<8xf32>")
      "  return %2 : tensor<8xf32>\n}\n";
  char *s = run(text, "plan-memory,schedule-commands");
  char seq[256];
  commands(s, seq, sizeof seq);
  ck_assert_str_eq(seq, "e0 e1 | e2 ");
  /* re-running keeps one barrier (idempotent) */
  free(s);
}
END_TEST

START_TEST(arena_reuse_needs_write_after_read_barrier) {
  /* t0 = e0(a) [0,1]; r1 = e1(t0); t2 = e2(a) [2,3] reuses t0's bytes
   * while e1 may still read them: a barrier must precede e2 even though e2
   * reads nothing e1 wrote. */
  const char *text =
      X("e0") X("e1") X("e2") X("e3")
      "func.func @f(%a: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {\n"
      D("e0", "", "%0", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e1", "", "%1", "%0", "tensor<8xf32>", "tensor<8xf32>")
      D("e2", "", "%2", "%a", "tensor<8xf32>", "tensor<8xf32>")
      D("e3", "", "%3", "%2", "tensor<8xf32>", "tensor<8xf32>")
      "  return %1, %3 : tensor<8xf32>, tensor<8xf32>\n}\n";
  char *s = run(text, "plan-memory,schedule-commands");
  ck_assert_msg(strstr(s, "{size = 64 : i64, transient, uninitialized}") != NULL, "t0 and t2 share one slot:\n%s", s);
  char seq[256];
  commands(s, seq, sizeof seq);
  ck_assert_str_eq(seq, "e0 | e1 | e2 | e3 ");
  free(s);
}
END_TEST

START_TEST(disjoint_ranges_of_one_buffer_are_independent) {
  /* two intermediates alive together live in one arena at different
   * offsets: writing both needs no barrier */
  const char *text =
      X("e0") X("e1") X("e2")
      "func.func @f(%a: tensor<16xf32>) -> tensor<16xf32> {\n"
      D("e0", "", "%0", "%a", "tensor<16xf32>", "tensor<16xf32>")
      D("e1", "", "%1", "%a", "tensor<16xf32>", "tensor<16xf32>")
      D("e2", "", "%2", "%0, %1", "tensor<16xf32>, tensor<16xf32>", "tensor<16xf32>")
      "  return %2 : tensor<16xf32>\n}\n";
  char *s = run(text, "plan-memory,schedule-commands");
  ck_assert_msg(strstr(s, "{size = 128 : i64, transient, uninitialized}") != NULL, "%s", s);
  char seq[256];
  commands(s, seq, sizeof seq);
  ck_assert_str_eq(seq, "e0 e1 | e2 ");
  free(s);
}
END_TEST

START_TEST(target_api) {
  kiln_error *e = kiln_hal_check_target("opencl");
  ck_assert(e);
  ck_assert_msg(strstr(kiln_error_message(e), "unknown target 'opencl'") &&
                    strstr(kiln_error_message(e), "aarch64") && strstr(kiln_error_message(e), "sm_80"),
                "%s", kiln_error_message(e));
  kiln_error_free(e);
  ck_assert(!kiln_hal_check_target("llvm-cpu:aarch64"));
  const char *text =
      "module attributes {kiln.targets = [\"llvm-cpu:x86_64\"]} {\n"
      "  \"flow.executable\"() ({\n"
      "    func.func @k(%arg0: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {\n"
      "      return\n    }\n"
      "  }) {sym_name = \"k\"} : () -> ()\n}\n";
  /* The session's targets take precedence over the module's; sessions do
   * not see each other's (no process-wide state). */
  const char *good[] = {"llvm-cpu:aarch64", "cuda:sm_80"};
  char *s = run_with_targets(text, "assign-targets", 2, good);
  ck_assert_msg(strstr(s, "target = \"llvm-cpu:aarch64\"") && strstr(s, "target = \"cuda:sm_80\"") &&
                    !strstr(s, "target = \"llvm-cpu:x86_64\""),
                "%s", s);
  free(s);
  s = run(text, "assign-targets");
  ck_assert_msg(strstr(s, "target = \"llvm-cpu:x86_64\"") && !strstr(s, "aarch64"), "%s", s);
  free(s);
  const char *bad[] = {"llvm-cpu:x86_64", "opencl"};
  s = run_with_targets(text, "assign-targets", 2, bad);
  ck_assert_msg(strstr(s, "ERROR") && strstr(s, "unknown target 'opencl'"), "%s", s);
  free(s);
}
END_TEST

int main(void) {
  kiln_hal_register();
  Suite *s = suite_create("hal");
  TCase *tc = tcase_create("arena");
  tcase_add_test(tc, disjoint_lifetimes_share);
  tcase_add_test(tc, overlapping_lifetimes_do_not);
  tcase_add_test(tc, chain_reuses_every_other);
  tcase_add_test(tc, perturbed_orders_fill_holes);
  tcase_add_test(tc, random_packings_are_valid);
  suite_add_tcase(s, tc);
  tc = tcase_create("schedule");
  tcase_add_test(tc, independent_dispatches_get_no_barrier);
  tcase_add_test(tc, dependent_dispatches_get_barriers);
  tcase_add_test(tc, arena_reuse_needs_write_after_read_barrier);
  tcase_add_test(tc, disjoint_ranges_of_one_buffer_are_independent);
  tcase_add_test(tc, target_api);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
