/* kiln-run's host-side I/O (tools/kiln-run/run_io.c): the --input
 * grammar with its error messages, every element type, .npy files read
 * and written (and checked against hostile headers), result printing
 * with nesting and elision. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_io.h"

static char err[512];

static kiln_host_tensor_t parse_ok(const char *text) {
  kiln_host_tensor_t t;
  ck_assert_msg(kiln_parse_input(text, NULL, &t, err, sizeof err), "%s: %s",
                text, err);
  return t;
}

static void parse_bad(const char *text, const char *want) {
  kiln_host_tensor_t t;
  ck_assert_msg(!kiln_parse_input(text, NULL, &t, err, sizeof err),
                "%s parsed", text);
  ck_assert_msg(strstr(err, want), "%s: '%s' not in '%s'", text, want, err);
}

static char *printed(const kiln_host_tensor_t *t) {
  static char buf[4096];
  FILE *f = fmemopen(buf, sizeof buf, "w");
  kiln_print_tensor(f, t);
  fclose(f);
  return buf;
}

START_TEST(input_grammar) {
  kiln_host_tensor_t t = parse_ok("2x2xf32=1,2,3,4");
  ck_assert_uint_eq(t.type.rank, 2);
  ck_assert_str_eq(printed(&t), "2x2xf32=[1 2][3 4]");
  kiln_host_tensor_free(&t);
  t = parse_ok("2x2xi32=[[1 2][3 -4]]");
  ck_assert_str_eq(printed(&t), "2x2xi32=[1 2][3 -4]");
  kiln_host_tensor_free(&t);
  t = parse_ok("f32=3.5");
  ck_assert_uint_eq(t.type.rank, 0);
  ck_assert_str_eq(printed(&t), "f32=3.5");
  kiln_host_tensor_free(&t);
  t = parse_ok("3xf16=1.5, -2, 65504");
  ck_assert_str_eq(printed(&t), "3xf16=1.5 -2 65504");
  kiln_host_tensor_free(&t);
  t = parse_ok("2xbf16=1 -0.5");
  ck_assert_str_eq(printed(&t), "2xbf16=1 -0.5");
  kiln_host_tensor_free(&t);
  t = parse_ok("4xi1=true false 1 0");
  ck_assert_str_eq(printed(&t), "4xi1=1 0 1 0");
  kiln_host_tensor_free(&t);
  t = parse_ok("2xu8=0 255");
  ck_assert_str_eq(printed(&t), "2xu8=0 255");
  kiln_host_tensor_free(&t);
  t = parse_ok("0x3xf32=");
  ck_assert_str_eq(printed(&t), "0x3xf32=");
  kiln_host_tensor_free(&t);
  /* A bare scalar takes the declared type. */
  kiln_tensor_type_t i64 = {KILN_ELEMENT_I64, 0, {0}};
  ck_assert(kiln_parse_input("-7", &i64, &t, err, sizeof err));
  ck_assert_str_eq(printed(&t), "i64=-7");
  kiln_host_tensor_free(&t);
  parse_bad("2x2xf32=1,2,3", "3 values given, 2x2xf32 needs 4");
  parse_bad("2xf32=1,2,3", "too many values for 2xf32");
  parse_bad("2xi8=1,200", "bad i8 value '200'");
  parse_bad("2xu8=1,-1", "bad u8 value '-1'");
  parse_bad("2xf32=1,abc", "bad f32 value 'abc'");
  parse_bad("2xf99=1,2", "unknown element type 'f99'");
  parse_bad("2xx3xf32=1", "empty dimension");
  parse_bad("-2xf32=1", "bad dimension '-2'");
  parse_bad("1x1x1x1x1x1x1x1x1xf32=1", "more than 8 dimensions");
  parse_bad("99999999999x99999999999xf32=1", "too large");
  parse_bad("3.5", "has no type");
}
END_TEST

START_TEST(printing_elides_long_tensors) {
  kiln_host_tensor_t t;
  memset(&t, 0, sizeof t);
  t.type.element_type = KILN_ELEMENT_I32;
  t.type.rank = 2;
  t.type.dims[0] = 20;
  t.type.dims[1] = 30;
  t.size = 600 * 4;
  int32_t *v = malloc(t.size);
  for (int i = 0; i < 600; ++i) v[i] = i;
  t.data = v;
  const char *s = printed(&t);
  ck_assert_msg(strncmp(s, "20x30xi32=[0 1 2 3 4 5 6 7 ...][30 31", 37) == 0, "%s", s);
  ck_assert_msg(strstr(s, "]...") && strlen(s) < 400, "%s", s);
  free(v);
}
END_TEST

static void write_bytes(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(p, 1, n, f), n);
  fclose(f);
}

START_TEST(npy_round_trip_and_hostile_files) {
  char path[] = "/tmp/kiln_npy_XXXXXX";
  const int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  kiln_host_tensor_t t = parse_ok("2x3xi64=1 2 3 4 5 -6"), u;
  ck_assert(kiln_npy_write(path, &t, err, sizeof err));
  ck_assert_msg(kiln_npy_read(path, &u, err, sizeof err), "%s", err);
  ck_assert_str_eq(printed(&u), "2x3xi64=[1 2 3][4 5 -6]");
  ck_assert(u.size == t.size && memcmp(u.data, t.data, t.size) == 0);
  kiln_host_tensor_free(&u);
  /* Header length is padded so data starts 64-byte aligned. */
  uint8_t *raw;
  size_t n;
  FILE *f = fopen(path, "rb");
  raw = malloc(4096);
  n = fread(raw, 1, 4096, f);
  fclose(f);
  ck_assert_uint_eq((n - t.size) % 64, 0);
  /* Truncations of a valid file are all refused. */
  for (size_t cut = 0; cut < n; ++cut) {
    write_bytes(path, raw, cut);
    ck_assert_msg(!kiln_npy_read(path, &u, err, sizeof err), "cut %zu read", cut);
  }
  static const struct {
    const char *header;
    const char *want;
  } bad[] = {
      {"{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", "unsupported dtype '>f4'"},
      {"{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", "Fortran-order"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -1), }", "malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1), }", "malformed"},
      {"{'descr': '<f4', 'fortran_order': False, }", "malformed"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", "is not the 12 bytes"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    uint8_t file[256] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
    const size_t hl = strlen(bad[i].header);
    file[8] = (uint8_t)hl;
    memcpy(file + 10, bad[i].header, hl);
    memset(file + 10 + hl, 0, 8); /* 8 data bytes = two f32 */
    write_bytes(path, file, 10 + hl + 8);
    ck_assert_msg(!kiln_npy_read(path, &u, err, sizeof err), "%s read",
                  bad[i].header);
    ck_assert_msg(strstr(err, bad[i].want), "'%s' not in '%s'", bad[i].want,
                  err);
  }
  write_bytes(path, "not numpy at all", 16);
  ck_assert(!kiln_npy_read(path, &u, err, sizeof err));
  ck_assert_msg(strstr(err, "is not a .npy file"), "%s", err);
  /* Raw bytes as values. */
  const float four[4] = {1, 2, 3, 4};
  write_bytes(path, four, sizeof four);
  char spec[64];
  snprintf(spec, sizeof spec, "2x2xf32=@%s", path);
  u = parse_ok(spec);
  ck_assert_str_eq(printed(&u), "2x2xf32=[1 2][3 4]");
  kiln_host_tensor_free(&u);
  snprintf(spec, sizeof spec, "3xf32=@%s", path);
  parse_bad(spec, "does not hold exactly 12 bytes");
  free(raw);
  kiln_host_tensor_free(&t);
  unlink(path);
}
END_TEST

int main(void) {
  Suite *s = suite_create("run_io");
  TCase *tc = tcase_create("io");
  tcase_add_test(tc, input_grammar);
  tcase_add_test(tc, printing_elides_long_tensors);
  tcase_add_test(tc, npy_round_trip_and_hostile_files);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
