/* Compile sessions share no state (compiler/driver): in one process,
 * sessions with different targets, one after another and back, write the
 * same modules as separate kiln-compile processes; a session that accepts
 * unregistered ops does not make the next one accept them. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver.h"

static char work[256];

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)len + 1);
  if (b && fread(b, 1, (size_t)len, f) != (size_t)len) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *n = (size_t)len;
  return b;
}

/* In this process: a fresh session compiling `input` for `targets`
 * (recorded as kiln-compile records its --target flags). */
static kiln_error *compile_here(const char *input, const char *out, const char *const *targets,
                                int ntargets, kiln_stage_t to, bool unregistered) {
  kiln_session *s = kiln_session_create();
  ck_assert_ptr_nonnull(s);
  kiln_error *err = NULL;
  for (int i = 0; i < ntargets && !err; i++) {
    char flag[128];
    snprintf(flag, sizeof flag, "--target=%s", targets[i]);
    err = kiln_session_add_flag(s, flag);
    if (!err) err = kiln_session_add_target(s, targets[i]);
  }
  s->options.input_path = input;
  s->options.output_path = out;
  s->options.compile_to = to;
  s->options.allow_unregistered = unregistered;
  if (!err) err = kiln_compile(s);
  kiln_session_destroy(s);
  return err;
}

/* In a kiln-compile process of its own. */
static void compile_there(const char *input, const char *out, const char *const *targets,
                          int ntargets) {
  char cmd[2048];
  int n = snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s'", KILN_COMPILE, input, out);
  for (int i = 0; i < ntargets; i++)
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " --target=%s", targets[i]);
  ck_assert_int_eq(system(cmd), 0);
}

START_TEST(sessions_with_different_targets) {
  static const char *const gpu[] = {"cuda:sm_80", "llvm-cpu:aarch64"};
  static const char *const cpu[] = {"llvm-cpu:x86_64+avx2"};
  const struct {
    const char *const *targets;
    int n;
  } runs[] = {{gpu, 2}, {cpu, 1}, {gpu, 2}, {NULL, 0}};
  const char *input = KILN_SOURCE_DIR "/samples/mlp.mlir";
  for (unsigned r = 0; r < sizeof runs / sizeof runs[0]; r++) {
    char here[320], there[320];
    snprintf(here, sizeof here, "%s/here%u.kiln", work, r);
    snprintf(there, sizeof there, "%s/there%u.kiln", work, r);
    kiln_error *e = compile_here(input, here, runs[r].targets, runs[r].n, KILN_STAGE_SERIALIZE, false);
    ck_assert_msg(!e, "run %u: %s", r, e ? kiln_error_message(e) : "");
    compile_there(input, there, runs[r].targets, runs[r].n);
    size_t na, nb;
    char *a = slurp(here, &na), *b = slurp(there, &nb);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_msg(na == nb && memcmp(a, b, na) == 0,
                  "run %u: the in-process module (%zu bytes) differs from kiln-compile's (%zu bytes)",
                  r, na, nb);
    free(a);
    free(b);
  }
}
END_TEST

START_TEST(unregistered_ops_stay_with_their_session) {
  char input[320], out[320];
  snprintf(input, sizeof input, "%s/unregistered.mlir", work);
  snprintf(out, sizeof out, "%s/unregistered.out", work);
  FILE *f = fopen(input, "w");
  ck_assert_ptr_nonnull(f);
  fputs("func.func @f() {\n  \"test.unknown\"() : () -> ()\n  return\n}\n", f);
  fclose(f);
  kiln_error *e = compile_here(input, out, NULL, 0, KILN_STAGE_INPUT, true);
  ck_assert_msg(!e, "%s", e ? kiln_error_message(e) : "");
  e = compile_here(input, out, NULL, 0, KILN_STAGE_INPUT, false);
  ck_assert_msg(e != NULL, "a session without allow_unregistered accepted test.unknown");
  kiln_error_free(e);
}
END_TEST

int main(void) {
  snprintf(work, sizeof work, "%s/test_sessions.XXXXXX", KILN_TEST_WORK);
  if (!mkdtemp(work)) return 1;
  Suite *s = suite_create("driver");
  TCase *tc = tcase_create("sessions");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, sessions_with_different_targets);
  tcase_add_test(tc, unregistered_ops_stay_with_their_session);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", work);
  return failed ? 1 : 0;
}
