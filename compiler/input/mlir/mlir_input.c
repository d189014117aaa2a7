/* MLIR text front end: file reading (into the context's arena, so
 * diagnostics issued later still show source lines), parsing, verifying. */
#include "mlir_input.h"

#include <errno.h>
#include <string.h>

static kiln_error *first_error(const kiln_context *ctx, unsigned since, const char *name,
                               const char *what) {
  const char *text = kiln_context_error_text(ctx, since);
  return text ? kiln_error_new("%s", text) : kiln_error_new("%s: %s", name, what);
}

kiln_error *kiln_mlir_load_buffer(kiln_context *ctx, const char *name,
                                  const char *text, size_t len, bool verify,
                                  kiln_op **out) {
  *out = NULL;
  /* The parser and the verifier report through diagnostics (source line
   * and caret); the first one they emit is also the error returned. */
  const unsigned before = kiln_context_error_count(ctx);
  kiln_op *m = kiln_parse_source(ctx, name, text, len);
  if (!m) return first_error(ctx, before, name, "failed to parse");
  if (verify && !kiln_verify(m)) return first_error(ctx, before, name, "verification failed");
  *out = m;
  return NULL;
}

kiln_error *kiln_mlir_read_file(kiln_context *ctx, const char *path,
                                const char **text, size_t *len_out) {
  bool use_stdin = strcmp(path, "-") == 0;
  FILE *f = use_stdin ? stdin : fopen(path, "rb");
  if (!f) return kiln_error_new("cannot open '%s': %s", path, strerror(errno));
  size_t cap = 1 << 16, len = 0;
  char *buf = kiln_alloc(ctx, cap + 1);
  for (;;) {
    size_t n = fread(buf + len, 1, cap - len, f);
    len += n;
    if (len < cap) break;
    char *bigger = kiln_alloc(ctx, cap * 2 + 1);
    memcpy(bigger, buf, len);
    buf = bigger;
    cap *= 2;
  }
  bool err = ferror(f);
  if (!use_stdin) fclose(f);
  if (err) return kiln_error_new("cannot read '%s'", path);
  buf[len] = 0;
  *text = buf;
  *len_out = len;
  return NULL;
}

kiln_error *kiln_mlir_load_file(kiln_context *ctx, const char *path,
                                bool verify, kiln_op **out) {
  *out = NULL;
  const char *text;
  size_t len;
  kiln_error *e = kiln_mlir_read_file(ctx, path, &text, &len);
  if (e) return e;
  return kiln_mlir_load_buffer(ctx, strcmp(path, "-") == 0 ? "<stdin>" : path, text, len,
                               verify, out);
}
