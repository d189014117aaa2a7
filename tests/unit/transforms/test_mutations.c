/* Mutation test of the transforms: every file of the round-trip corpus and
 * of the transforms' FileCheck tests, and deterministic mutations of each
 * (lines dropped, duplicated or swapped, numbers and types changed, bytes
 * deleted), go through harness.h: no pass may crash, and IR that verified
 * before a pass verifies after it. The gcc build's counterpart of the
 * libFuzzer target fuzz_transforms. */
#include "harness.h"

#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static uint32_t rng(void) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33);
}

typedef struct text {
  char *s;
  size_t len, cap;
} text;

static void put(text *t, const char *s, size_t n) {
  if (t->len + n + 1 > t->cap) {
    t->cap = 2 * (t->len + n + 1);
    t->s = realloc(t->s, t->cap);
  }
  memcpy(t->s + t->len, s, n);
  t->len += n;
  t->s[t->len] = 0;
}

/* Line boundaries of s: starts[i] .. starts[i+1]. */
static size_t split_lines(const char *s, size_t len, size_t *starts, size_t max) {
  size_t n = 0;
  starts[n++] = 0;
  for (size_t i = 0; i < len && n < max; i++)
    if (s[i] == '\n') starts[n++] = i + 1;
  if (starts[n - 1] != len && n < max) starts[n++] = len;
  return n - 1; /* number of lines */
}

static const char *const replacements[] = {
    "0", "1", "-1", "2", "?", "f32", "i32", "i1", "index", "f16", "tensor<?xf32>",
    "tensor<4xf32>", "true", "0x7FC00000", "[0]", "[1, 0]", "9223372036854775807",
};

/* One mutation of src into out. */
static void mutate(const char *src, size_t len, text *out) {
  enum { MAXL = 4096 };
  static size_t st[MAXL + 1];
  size_t n = split_lines(src, len, st, MAXL);
  out->len = 0;
  put(out, "", 0);
  uint32_t kind = rng() % 5;
  size_t a = n ? rng() % n : 0, b = n ? rng() % n : 0;
  if (kind <= 2 && n > 1) { /* drop line a / duplicate a / swap a and b */
    for (size_t i = 0; i < n; i++) {
      size_t li = (kind == 2 && i == a) ? b : (kind == 2 && i == b) ? a : i;
      if (kind == 0 && i == a) continue;
      put(out, src + st[li], st[li + 1] - st[li]);
      if (kind == 1 && i == a) put(out, src + st[li], st[li + 1] - st[li]);
    }
    return;
  }
  if (kind == 3) { /* replace a token (number or identifier) with another */
    size_t pos = len ? rng() % len : 0;
    while (pos < len && !(src[pos] >= '0' && src[pos] <= '9') &&
           !(src[pos] >= 'a' && src[pos] <= 'z'))
      pos++;
    size_t end = pos;
    while (end < len && ((src[end] >= '0' && src[end] <= '9') ||
                         (src[end] >= 'a' && src[end] <= 'z')))
      end++;
    const char *r = replacements[rng() % (sizeof replacements / sizeof *replacements)];
    put(out, src, pos);
    put(out, r, strlen(r));
    put(out, src + end, len - end);
    return;
  }
  size_t pos = len ? rng() % len : 0; /* delete a byte */
  put(out, src, pos);
  if (pos < len) put(out, src + pos + 1, len - pos - 1);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  *len = fread(buf, 1, (size_t)n, f);
  buf[*len] = 0;
  fclose(f);
  return buf;
}

static int run_dir(const char *dir_path, int mutations) {
  DIR *dir = opendir(dir_path);
  ck_assert_msg(dir != NULL, "%s", dir_path);
  struct dirent *e;
  int files = 0;
  text t = {0};
  while ((e = readdir(dir)) != NULL) {
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".mlir") != 0) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir_path, e->d_name);
    size_t len;
    char *src = read_file(path, &len);
    ck_assert(src != NULL);
    ck_assert_msg(tx_check_passes_on_text(src, len), "%s", path);
    rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)len;
    for (int m = 0; m < mutations; m++) {
      mutate(src, len, &t);
      if (!tx_check_passes_on_text(t.s, t.len)) {
        FILE *f = fopen("mutation-failure.mlir", "wb");
        if (f) {
          fwrite(t.s, 1, t.len, f);
          fclose(f);
        }
        ck_abort_msg("%s mutation %d fails (written to mutation-failure.mlir)",
                     path, m);
      }
    }
    free(src);
    files++;
  }
  closedir(dir);
  free(t.s);
  return files;
}

START_TEST(roundtrip_corpus_mutations) {
  ck_assert_int_gt(run_dir(KILN_ROUNDTRIP_DIR, 60), 10);
}
END_TEST

START_TEST(transforms_tests_mutations) {
  ck_assert_int_gt(run_dir(KILN_TRANSFORMS_LIT_DIR, 60), 5);
}
END_TEST

int main(void) {
  Suite *s = suite_create("transforms-mutations");
  TCase *t = tcase_create("mutations");
  tcase_set_timeout(t, 900);
  tcase_add_test(t, roundtrip_corpus_mutations);
  tcase_add_test(t, transforms_tests_mutations);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
