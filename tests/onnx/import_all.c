/* Imports every generated ONNX backend node test with the Kiln importer.
 *
 * Usage: onnx_import_all NODE_DIR EXPECTED_LIST [MLIR_OPT]
 * For each NODE_DIR/test_NAME/model.onnx: load; import; kiln_verify; and,
 * when MLIR_OPT is given, feed the printed IR to it (mlir-opt-19 must
 * accept it). mlir-opt takes the modules in batches, one process a batch
 * with --split-input-file (each module parsed and verified in a context of
 * its own, as a process of its own would: a process start costs about
 * 0.15 s, over 900 tests most of this program's time); when a batch is
 * rejected, each of its modules goes through mlir-opt alone to name the
 * ones rejected. Each test is
 *   passed   imported, verified (and accepted by mlir-opt),
 *   skipped  refused by the loader (opset outside the supported range)
 *            or by the importer as unsupported (op, attribute, type) or
 *            dynamic (a run-time value decides a shape): counted by
 *            reason and op type,
 *   failed   any other import error (a valid ONNX test the importer calls
 *            invalid), a verifier failure, or mlir-opt rejecting the IR.
 * Prints the skip histogram, every failure, and `N passed, N failed, N
 * skipped`. Exits 1 when anything failed or when a test named in
 * EXPECTED_LIST (one name a line, '#' comments) did not pass: that list
 * may only grow. A crash is a crash of this program, so it fails too. */
#define _DEFAULT_SOURCE /* d_type, strdup, popen */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "kiln_onnx.h"
#include "onnx_import.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static char **list_dir(const char *dir, size_t *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d) return NULL;
  size_t cap = 64;
  char **v = malloc(cap * sizeof *v);
  struct dirent *e;
  while (v && (e = readdir(d))) {
    if (strncmp(e->d_name, "test_", 5) != 0) continue;
    if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    if (v) v[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  if (!v) abort();
  qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

typedef struct { char key[64]; int count; } bucket;
static bucket skips[512];
static size_t nskips;

static void count_skip(const char *key) {
  for (size_t i = 0; i < nskips; i++)
    if (strcmp(skips[i].key, key) == 0) {
      skips[i].count++;
      return;
    }
  if (nskips == sizeof skips / sizeof skips[0]) return;
  snprintf(skips[nskips].key, sizeof skips[nskips].key, "%s", key);
  skips[nskips++].count = 1;
}

/* "reason:OpType" from "onnx: REASON: ... (OpType, DOMAIN opset N): ...",
 * or the reason with a generic bucket. */
static void skip_key(const char *msg, char *key, size_t n) {
  const char *reason = strstr(msg, "onnx: dynamic:") ? "dynamic" : strstr(msg, "onnx: opset:") ? "opset"
                                                                                              : "unsupported";
  const char *p = strstr(msg, " opset ");
  const char *s = p;
  while (s && s > msg && s[-1] != '(') s--;
  if (p && s > msg && memchr(s, ',', (size_t)(p - s))) {
    snprintf(key, n, "%s:%.*s", reason, (int)((const char *)memchr(s, ',', (size_t)(p - s)) - s), s);
    return;
  }
  if (strstr(msg, "onnx: opset:")) snprintf(key, n, "opset:(outside the supported range)");
  else if (strstr(msg, "graph input")) snprintf(key, n, "%s:(graph input type)", reason);
  else snprintf(key, n, "%s:(other)", reason);
}

/* mlir-opt's verdict on TEXT (LEN bytes: one module, or several separated
 * by SPLIT's marker lines when SPLIT). The exit status is mlir-opt's, not
 * that of the pipe that trims its diagnostics. */
static int mlir_opt_accepts(const char *tool, const char *text, size_t len, int split) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "out=$(%s --allow-unregistered-dialect%s - -o /dev/null 2>&1); rc=$?; [ -z \"$out\" ] || printf '%%s\\n' \"$out\" | head -3; exit $rc",
           tool, split ? " --split-input-file" : "");
  FILE *p = popen(cmd, "w");
  if (!p) return 0;
  fwrite(text, 1, len, p);
  return pclose(p) == 0;
}

/* The modules waiting for mlir-opt: their printed text, back to back,
 * each followed by the split marker line, and which test each is. */
#define BATCH_MAX 128
static const char split_marker[] = "\n// -----\n"; /* own line even when the IR lacks a final newline */
typedef struct {
  char *text;
  size_t len;
  FILE *out;                  /* open_memstream over text/len */
  size_t n;
  size_t test[BATCH_MAX];     /* index into the test list */
  size_t start[BATCH_MAX + 1]; /* module k is text[start[k], start[k+1]) less the marker */
} batch;

static void batch_open(batch *b) {
  b->n = 0;
  b->out = open_memstream(&b->text, &b->len);
  if (!b->out) abort();
  b->start[0] = 0;
}

/* Runs the batch through mlir-opt and sets passed[] for the modules it
 * accepts; a rejected batch is tried one module at a time. Returns the
 * number of failures. */
static size_t batch_flush(batch *b, const char *tool, char **tests, char *passed, size_t *npass) {
  fclose(b->out);
  size_t nfail = 0;
  if (b->n && mlir_opt_accepts(tool, b->text, b->len, 1)) {
    for (size_t k = 0; k < b->n; k++) passed[b->test[k]] = 1;
    *npass += b->n;
  } else {
    for (size_t k = 0; k < b->n; k++) {
      size_t len = b->start[k + 1] - b->start[k] - (sizeof split_marker - 1);
      if (mlir_opt_accepts(tool, b->text + b->start[k], len, 0)) {
        passed[b->test[k]] = 1;
        (*npass)++;
      } else {
        printf("FAIL: %s: %s rejects the printed IR\n", tests[b->test[k]], tool);
        nfail++;
      }
    }
  }
  free(b->text);
  batch_open(b);
  return nfail;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: onnx_import_all NODE_DIR EXPECTED_LIST [MLIR_OPT]\n");
    return 2;
  }
  const char *mlir_opt = argc > 3 && argv[3][0] ? argv[3] : NULL;
  size_t n;
  char **tests = list_dir(argv[1], &n);
  if (!tests || n == 0) {
    printf("FAIL: no node tests under %s\n", argv[1]);
    return 1;
  }
  char *passed = calloc(n, 1);
  size_t npass = 0, nfail = 0, nskip = 0;
  batch b;
  if (mlir_opt) batch_open(&b);
  for (size_t i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/model.onnx", argv[1], tests[i]);
    kiln_onnx_status st;
    kiln_onnx_model *m;
    char key[64];
    if (!kiln_onnx_model_load_file(path, &m, &st)) {
      skip_key(st.message, key, sizeof key);
      count_skip(key);
      nskip++;
      continue;
    }
    kiln_context *ctx = kiln_context_create();
    kiln_op *module;
    if (!kiln_onnx_import(ctx, m, &module, &st)) {
      if (st.code == KILN_ONNX_ERR_UNSUPPORTED || st.code == KILN_ONNX_ERR_OPSET ||
          st.code == KILN_ONNX_ERR_DYNAMIC) {
        skip_key(st.message, key, sizeof key);
        count_skip(key);
        nskip++;
      } else {
        printf("FAIL: %s: %s\n", tests[i], st.message);
        nfail++;
      }
    } else if (!kiln_verify(module)) {
      printf("FAIL: %s: the imported module does not verify\n", tests[i]);
      nfail++;
    } else if (mlir_opt) {
      kiln_print_op(b.out, module, 0);
      fputs(split_marker, b.out);
      fflush(b.out);
      b.test[b.n++] = i;
      b.start[b.n] = b.len;
      if (b.n == BATCH_MAX) nfail += batch_flush(&b, mlir_opt, tests, passed, &npass);
    } else {
      passed[i] = 1;
      npass++;
    }
    kiln_context_destroy(ctx);
    kiln_onnx_model_free(m);
  }
  if (mlir_opt) {
    nfail += batch_flush(&b, mlir_opt, tests, passed, &npass);
    fclose(b.out);
    free(b.text);
  }
  /* skipped, by op type, most frequent first */
  for (size_t i = 0; i < nskips; i++)
    for (size_t j = i + 1; j < nskips; j++)
      if (skips[j].count > skips[i].count ||
          (skips[j].count == skips[i].count && strcmp(skips[j].key, skips[i].key) < 0)) {
        bucket t = skips[i];
        skips[i] = skips[j];
        skips[j] = t;
      }
  printf("skipped by reason:op type:");
  for (size_t i = 0; i < nskips; i++) printf(" %s=%d", skips[i].key, skips[i].count);
  printf("\n");
  int rc = nfail ? 1 : 0;
  FILE *f = fopen(argv[2], "r");
  if (!f) {
    printf("FAIL: cannot read %s\n", argv[2]);
    rc = 1;
  } else {
    char line[512];
    size_t listed = 0;
    while (fgets(line, sizeof line, f)) {
      line[strcspn(line, "\r\n \t#")] = 0;
      if (!line[0]) continue;
      listed++;
      char *k = line;
      char **hit = bsearch(&k, tests, n, sizeof *tests, cmp_str);
      if (!hit || !passed[hit - tests]) {
        printf("FAIL: %s is in the expected list but did not pass\n", line);
        rc = 1;
      }
    }
    fclose(f);
    printf("%zu expected imports listed\n", listed);
  }
  printf("%zu passed, %zu failed, %zu skipped\n", npass, nfail, nskip);
  for (size_t i = 0; i < n; i++) free(tests[i]);
  free(tests);
  free(passed);
  return rc;
}
