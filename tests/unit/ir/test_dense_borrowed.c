/* Unit tests of borrowed dense attributes (kiln_attr_dense_borrowed): the
 * attribute points at the caller's bytes instead of a copy, interning is
 * still by content (whichever of a copied or borrowed equal attribute came
 * first is returned), all-equal data still becomes a small copied splat,
 * and element access and printing read the borrowed bytes. */
#include "ir.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static kiln_context *ctx;

static void setup(void) { ctx = kiln_context_create(); }
static void teardown(void) { kiln_context_destroy(ctx); }

static const kiln_type *f32_tensor(int64_t n) {
  return kiln_type_tensor(ctx, 1, &n, kiln_type_f32(ctx), NULL);
}

START_TEST(borrowed_points_at_caller_bytes) {
  enum { N = 1 << 18 }; /* 1 MiB of f32 */
  float *w = malloc(N * sizeof *w);
  ck_assert_ptr_nonnull(w);
  for (int i = 0; i < N; i++) w[i] = (float)i * 0.5f;
  const kiln_attr *a = kiln_attr_dense_borrowed(ctx, f32_tensor(N), w, N * sizeof *w);
  ck_assert_int_eq(a->kind, KILN_ATTR_DENSE);
  ck_assert(!a->splat);
  ck_assert_ptr_eq(a->data, w);
  ck_assert_uint_eq(a->nbytes, N * sizeof *w);
  ck_assert_int_eq(kiln_dense_count(a), N);
  ck_assert(kiln_dense_get_float(a, 12345) == 12345 * 0.5);
  /* Equal content: the same attribute, whichever constructor asks. */
  ck_assert_ptr_eq(kiln_attr_dense_borrowed(ctx, f32_tensor(N), w, N * sizeof *w), a);
  float *copy = malloc(N * sizeof *copy);
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, w, N * sizeof *w);
  ck_assert_ptr_eq(kiln_attr_dense(ctx, f32_tensor(N), false, copy, N * sizeof *w), a);
  ck_assert_ptr_eq(kiln_attr_dense_borrowed(ctx, f32_tensor(N), copy, N * sizeof *w), a);
  /* Different content or type: a different attribute. */
  copy[N - 1] += 1.0f;
  const kiln_attr *b = kiln_attr_dense_borrowed(ctx, f32_tensor(N), copy, N * sizeof *w);
  ck_assert_ptr_ne(b, a);
  ck_assert_ptr_eq(b->data, copy);
  int64_t shape[2] = {N / 2, 2};
  const kiln_type *t2 = kiln_type_tensor(ctx, 2, shape, kiln_type_f32(ctx), NULL);
  ck_assert_ptr_ne(kiln_attr_dense_borrowed(ctx, t2, w, N * sizeof *w), a);
  kiln_context_destroy(ctx); /* before the borrowed bytes go */
  ctx = kiln_context_create();
  free(copy);
  free(w);
}
END_TEST

START_TEST(copied_first_stays_copied) {
  float v[4] = {1, 2, 3, 4};
  const kiln_attr *a = kiln_attr_dense(ctx, f32_tensor(4), false, v, sizeof v);
  ck_assert_ptr_ne(a->data, v);
  float again[4] = {1, 2, 3, 4};
  const kiln_attr *b = kiln_attr_dense_borrowed(ctx, f32_tensor(4), again, sizeof again);
  ck_assert_ptr_eq(b, a);
  ck_assert_ptr_ne(b->data, again); /* the context's copy, still valid */
}
END_TEST

START_TEST(all_equal_becomes_copied_splat) {
  float *v = malloc(64 * sizeof *v);
  ck_assert_ptr_nonnull(v);
  for (int i = 0; i < 64; i++) v[i] = 2.5f;
  const kiln_attr *a = kiln_attr_dense_borrowed(ctx, f32_tensor(64), v, 64 * sizeof *v);
  ck_assert(a->splat);
  ck_assert_uint_eq(a->nbytes, sizeof(float));
  ck_assert_ptr_ne(a->data, v);
  free(v); /* a splat does not borrow */
  ck_assert(kiln_dense_get_float(a, 63) == 2.5);
  ck_assert_ptr_eq(kiln_attr_dense_splat_float(ctx, f32_tensor(64), 2.5), a);
}
END_TEST

START_TEST(borrowed_prints_like_copied) {
  const int32_t v[3] = {7, -1, 40000};
  int64_t n = 3;
  const kiln_type *t = kiln_type_tensor(ctx, 1, &n, kiln_type_int(ctx, 32), NULL);
  const kiln_attr *a = kiln_attr_dense_borrowed(ctx, t, v, sizeof v);
  ck_assert_ptr_eq(a->data, v);
  char *s = kiln_attr_to_string(a);
  ck_assert_str_eq(s, "dense<[7, -1, 40000]> : tensor<3xi32>");
  free(s);
  ck_assert_int_eq(kiln_dense_get_int(a, 1), -1);
}
END_TEST

static Suite *dense_suite(void) {
  Suite *s = suite_create("dense_borrowed");
  TCase *tc = tcase_create("core");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, borrowed_points_at_caller_bytes);
  tcase_add_test(tc, copied_first_stays_copied);
  tcase_add_test(tc, all_equal_becomes_copied_splat);
  tcase_add_test(tc, borrowed_prints_like_copied);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(dense_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
