/* kiln-opt: reads MLIR text, verifies it, runs a pass pipeline (any pass
 * of any stage, or a stage's pipeline: compiler/driver registers them all)
 * and prints the result the way mlir-opt-19 does. Exit status 0 on success, 1 when the
 * input is malformed or a pass fails (with located diagnostics on stderr),
 * 2 on bad command-line usage. Like mlir-opt, --split-input-file handles
 * each "// -----" chunk on its own, and --verify-diagnostics checks the
 * diagnostics against "expected-error" comments instead of printing them.
 * Passes that store executables in the compile session get one; after
 * the module, a "// payload ..." comment line names each it holds. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "mlir_input.h"
#include "tool_version.h"

typedef struct options {
  const char *input, *output;
  unsigned flags;
  bool print_all, timing, verify, unregistered, split, verify_diags;
  const char *print_after;
  const char **pieces;
  int npieces;
} options;

static void list_pass(const kiln_pass_info *p, void *user) {
  if (p->run) fprintf((FILE *)user, "  --%-28s %s\n", p->name, p->description ? p->description : "");
}

static void list_pipeline(const kiln_pass_info *p, void *user) {
  if (!p->run) fprintf((FILE *)user, "  %-30s %s\n", p->name, p->description ? p->description : "");
}

static void usage(FILE *o) {
  fputs("usage: kiln-opt [options] FILE|-\n"
        "  --pass-pipeline=P        run passes, e.g. 'canonicalize,cse',\n"
        "                           'builtin.module(func.func(canonicalize))', a\n"
        "                           stage ('flow'), or codegen passes on one\n"
        "                           target's variants ('cuda(distribute-to-threads)')\n"
        "  --PASS                   run one registered pass (repeatable, in order)\n"
        "  --print-ir-after-all     dump the IR after every pass (stderr)\n"
        "  --print-ir-after=PASS    dump the IR after the named pass(es) (stderr)\n"
        "  --timing                 per-pass time table (stderr)\n"
        "  --mlir-print-op-generic  print every op in generic form\n"
        "  --allow-unregistered-dialect  accept ops not in the op table\n"
        "  --split-input-file       process each '// -----' chunk separately\n"
        "  --verify-diagnostics     check diagnostics against expected-error\n"
        "                           comments (exit 0 when they all match)\n"
        "  --no-verify              skip verification of the input\n"
        "  -o FILE                  write the output to FILE\n"
        "passes:\n", o);
  kiln_pass_foreach(list_pass, o);
  fputs("pipelines (--pass-pipeline=NAME):\n", o);
  kiln_pass_foreach(list_pipeline, o);
}

/* ---- --verify-diagnostics ---- */
typedef struct expectation {
  char kind[16];   /* error, note, warning, remark */
  uint32_t line;   /* line the diagnostic must be reported on */
  uint32_t at;     /* line of the comment */
  char text[512];  /* substring the message must contain */
  bool matched;
} expectation;

typedef struct diag_check {
  expectation *exp;
  size_t n, cap;
  bool failed;
  const char *file;
} diag_check;

static const char *find(const char *s, size_t n, const char *pat, size_t pn) {
  for (size_t i = 0; i + pn <= n; i++)
    if (memcmp(s + i, pat, pn) == 0) return s + i;
  return NULL;
}

/* Collects "expected-KIND [@+N|@-N|@above|@below] {{text}}" in [b, e). */
static void collect_expectations(diag_check *dc, const char *text, size_t b, size_t e) {
  uint32_t line = 1;
  for (size_t i = 0; i < b; i++) line += text[i] == '\n';
  for (size_t i = b; i < e;) {
    size_t eol = i;
    while (eol < e && text[eol] != '\n') eol++;
    const char *s = text + i, *end = text + eol;
    const char *hit;
    while ((hit = find(s, (size_t)(end - s), "expected-", 9)) != NULL) {
      const char *k = hit + 9;
      size_t kl = 0;
      while (k + kl < end && isalpha((unsigned char)k[kl])) kl++;
      s = k + kl;
      if (kl == 0 || kl >= 16) continue;
      const char *c = k + kl;
      while (c < end && *c == ' ') c++;
      uint32_t target = line;
      if (c < end && *c == '@') {
        c++;
        if (end - c >= 5 && strncmp(c, "above", 5) == 0) target = line - 1, c += 5;
        else if (end - c >= 5 && strncmp(c, "below", 5) == 0) target = line + 1, c += 5;
        else {
          int sign = *c == '-' ? -1 : 1;
          if (*c == '+' || *c == '-') c++;
          char *stop;
          long off = strtol(c, &stop, 10);
          c = stop;
          target = (uint32_t)((long)line + sign * off);
        }
        while (c < end && *c == ' ') c++;
      }
      if (end - c < 4 || c[0] != '{' || c[1] != '{') continue;
      const char *msg = c + 2;
      const char *close = find(msg, (size_t)(end - msg), "}}", 2);
      if (!close) continue;
      if (dc->n == dc->cap) {
        dc->cap = dc->cap ? dc->cap * 2 : 16;
        expectation *ne = realloc(dc->exp, dc->cap * sizeof *ne);
        if (!ne) return;
        dc->exp = ne;
      }
      expectation *x = &dc->exp[dc->n++];
      memset(x, 0, sizeof *x);
      memcpy(x->kind, k, kl);
      x->line = target;
      x->at = line;
      size_t ml = (size_t)(close - msg);
      if (ml >= sizeof x->text) ml = sizeof x->text - 1;
      memcpy(x->text, msg, ml);
      s = close + 2;
    }
    line++;
    i = eol + 1;
  }
}

/* Handler: the first line of a rendered diagnostic is
 * "file:line:col: kind: message". */
static void check_diag(void *user, const char *rendered) {
  diag_check *dc = user;
  const char *p = rendered;
  const char *colon1 = strchr(p, ':');
  if (!colon1) goto unexpected;
  char *after;
  unsigned long line = strtoul(colon1 + 1, &after, 10);
  if (*after != ':') goto unexpected;
  strtoul(after + 1, &after, 10);
  if (strncmp(after, ": ", 2) != 0) goto unexpected;
  const char *kind = after + 2;
  const char *kend = strstr(kind, ": ");
  if (!kend) goto unexpected;
  const char *msg = kend + 2;
  const char *mend = strchr(msg, '\n');
  size_t ml = mend ? (size_t)(mend - msg) : strlen(msg);
  for (size_t i = 0; i < dc->n; i++) {
    expectation *x = &dc->exp[i];
    if (x->matched || x->line != line || strlen(x->kind) != (size_t)(kend - kind) ||
        strncmp(x->kind, kind, (size_t)(kend - kind)) != 0)
      continue;
    char buf[2048];
    size_t n = ml < sizeof buf - 1 ? ml : sizeof buf - 1;
    memcpy(buf, msg, n);
    buf[n] = 0;
    if (strstr(buf, x->text)) {
      x->matched = true;
      return;
    }
  }
  if (strncmp(kind, "note", 4) == 0) return; /* unexpected notes are tolerated */
unexpected:
  dc->failed = true;
  fprintf(stderr, "unexpected diagnostic: %s", rendered);
}

static bool report_unmatched(diag_check *dc) {
  bool ok = !dc->failed;
  for (size_t i = 0; i < dc->n; i++)
    if (!dc->exp[i].matched) {
      fprintf(stderr, "%s:%u: error: expected %s \"%s\" was not produced\n", dc->file,
              dc->exp[i].at, dc->exp[i].kind, dc->exp[i].text);
      ok = false;
    }
  return ok;
}

/* ---- one input (or one chunk of it) ---- */
static int process(const options *o, const char *name, const char *text, size_t len,
                   size_t begin, size_t end, FILE *out) {
  kiln_context *ctx = kiln_context_create();
  kiln_context_allow_unregistered(ctx, o->unregistered);
  /* A compile session, for the passes that store executables in one
   * (translate-llvm-cpu, translate-cuda); what they store is listed after
   * the module. */
  kiln_session *session = kiln_session_create();
  if (session) kiln_session_attach(session, ctx);
  diag_check dc = {NULL, 0, 0, false, name};
  if (o->verify_diags) {
    collect_expectations(&dc, text, begin, end);
    kiln_context_set_diag_handler(ctx, check_diag, &dc);
  }
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  int status = 0;
  kiln_error *err = NULL;
  for (int i = 0; i < o->npieces && !err; i++) err = kiln_pm_add_pipeline(pm, o->pieces[i]);
  if (err) {
    fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    status = 2;
    goto done;
  }
  kiln_op *module = kiln_parse_source_range(ctx, name, text, len, begin, end);
  if (!module || (o->verify && !kiln_verify(module))) {
    status = 1;
    goto done;
  }
  if (o->print_all) kiln_pm_print_after_all(pm, stderr);
  if (o->print_after) kiln_pm_print_after(pm, o->print_after, stderr);
  if (o->timing) kiln_pm_enable_timing(pm, stderr);
  err = kiln_pm_run(pm, module);
  if (err) {
    if (o->verify_diags) { /* failures show up as diagnostics to match */
      char buf[1200];
      snprintf(buf, sizeof buf, "%s", kiln_error_message(err));
      if (!kiln_context_error_count(ctx)) check_diag(&dc, buf);
    } else {
      fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    }
    status = 1;
    goto done;
  }
  kiln_print_op(out, module, o->flags);
  for (uint32_t i = 0; session && i < session->payload_count; i++) {
    const kiln_session_payload_t *p = &session->payloads[i];
    fprintf(out, "// payload @%s variant @%s: %s%s%s, %llu bytes\n", p->executable, p->variant,
            p->format == KILN_PAYLOAD_PTX ? "PTX" : "ELF", p->arch ? " " : "", p->arch ? p->arch : "",
            (unsigned long long)p->size);
  }
done:
  if (o->verify_diags) status = report_unmatched(&dc) ? 0 : 1;
  free(dc.exp);
  kiln_error_free(err);
  kiln_pm_destroy(pm);
  if (session) kiln_session_attach(NULL, ctx);
  kiln_context_destroy(ctx);
  kiln_session_destroy(session);
  return status;
}

/* Offset of the next "// -----" separator line at or after `from`, or len. */
static size_t next_split(const char *text, size_t len, size_t from, size_t *after) {
  for (size_t i = from; i < len;) {
    size_t eol = i;
    while (eol < len && text[eol] != '\n') eol++;
    if (eol - i >= 8 && strncmp(text + i, "// -----", 8) == 0) {
      *after = eol < len ? eol + 1 : len;
      return i;
    }
    i = eol + 1;
  }
  *after = len;
  return len;
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-opt", NULL)) return 0;
  kiln_driver_register_passes();
  options o;
  memset(&o, 0, sizeof o);
  o.verify = true;
  o.pieces = calloc((size_t)argc + 1, sizeof *o.pieces);
  if (!o.pieces) return 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] == '-' && a[1] == '-' && a[2]) a++; /* accept -x and --x alike */
    if (a[0] == '-' && a[1] && strcmp(a, "-o") != 0) {
      const char *f = a + 1;
      /* mlir-opt's spellings of the debugging flags work too */
      if (strcmp(f, "mlir-print-ir-after-all") == 0 || strncmp(f, "mlir-print-ir-after=", 20) == 0 ||
          strcmp(f, "mlir-timing") == 0)
        f += 5;
      if (strncmp(f, "pass-pipeline=", 14) == 0) o.pieces[o.npieces++] = f + 14;
      else if (strcmp(f, "print-ir-after-all") == 0) o.print_all = true;
      else if (strncmp(f, "print-ir-after=", 15) == 0) o.print_after = f + 15;
      else if (strcmp(f, "timing") == 0) o.timing = true;
      else if (strcmp(f, "mlir-print-op-generic") == 0) o.flags |= KILN_PRINT_GENERIC;
      else if (strcmp(f, "allow-unregistered-dialect") == 0) o.unregistered = true;
      else if (strcmp(f, "split-input-file") == 0) o.split = true;
      else if (strcmp(f, "verify-diagnostics") == 0) o.verify_diags = true;
      else if (strcmp(f, "no-verify") == 0) o.verify = false;
      else if (strcmp(f, "help") == 0) {
        usage(stdout);
        free(o.pieces);
        return 0;
      } else if (kiln_pass_lookup(f)) o.pieces[o.npieces++] = f;
      else {
        fprintf(stderr, "kiln-opt: unknown option '%s'\n", argv[i]);
        usage(stderr);
        free(o.pieces);
        return 2;
      }
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      o.output = argv[++i];
    } else if (!o.input) {
      o.input = argv[i];
    } else {
      fprintf(stderr, "kiln-opt: more than one input file ('%s', '%s')\n", o.input, argv[i]);
      free(o.pieces);
      return 2;
    }
  }
  if (!o.input) o.input = "-";

  /* The text lives in its own context so every chunk can point into it. */
  kiln_context *text_ctx = kiln_context_create();
  const char *text;
  size_t len;
  kiln_error *err = kiln_mlir_read_file(text_ctx, o.input, &text, &len);
  if (err) {
    fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    kiln_error_free(err);
    kiln_context_destroy(text_ctx);
    free(o.pieces);
    return 1;
  }
  const char *name = strcmp(o.input, "-") == 0 ? "<stdin>" : o.input;
  FILE *out = o.output ? fopen(o.output, "w") : stdout;
  if (!out) {
    fprintf(stderr, "kiln-opt: cannot write '%s'\n", o.output);
    kiln_context_destroy(text_ctx);
    free(o.pieces);
    return 1;
  }
  int status = 0;
  if (!o.split) {
    status = process(&o, name, text, len, 0, len, out);
  } else {
    size_t begin = 0;
    bool first = true;
    while (begin <= len) {
      size_t after, end = next_split(text, len, begin, &after);
      if (!first) fputs("// -----\n", out);
      first = false;
      int s = process(&o, name, text, len, begin, end, out);
      if (s > status) status = s;
      if (end == len) break;
      begin = after;
    }
  }
  if (o.output) fclose(out);
  kiln_context_destroy(text_ctx);
  free(o.pieces);
  return status;
}
