/* See harness.h. Diagnostics are swallowed: bad input is expected here. */
#include "harness.h"

#include "transforms.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

static const char *const passes[] = {"fold-constants", "simplify", "cse",
                                     "dce", "infer-shapes", "canonicalize"};

bool tx_check_passes_on_text(const char *text, size_t len) {
  kiln_transforms_register();
  bool ok = true;
  for (size_t p = 0; p < sizeof passes / sizeof *passes && ok; p++) {
    kiln_context *ctx = kiln_context_create();
    kiln_context_set_diag_handler(ctx, quiet, NULL);
    kiln_op *m = kiln_parse_source(ctx, "input", text, len);
    if (!m) {
      kiln_context_destroy(ctx);
      return true; /* rejected input: nothing to transform */
    }
    bool valid = kiln_verify(m);
    const kiln_pass_info *info = kiln_pass_lookup(passes[p]);
    kiln_error *err = info->run(m, info->user);
    if (valid && !err && !kiln_verify(m)) {
      fprintf(stderr, "%s turned valid IR into invalid IR\n", passes[p]);
      ok = false;
    }
    if (valid && !err && ok) {
      char *printed = kiln_print_op_to_string(m, 0);
      kiln_context *ctx2 = kiln_context_create();
      kiln_context_set_diag_handler(ctx2, quiet, NULL);
      kiln_op *m2 = kiln_parse_source(ctx2, "printed", printed, strlen(printed));
      if (!m2 || !kiln_verify(m2)) {
        fprintf(stderr, "after %s the printed IR does not parse/verify:\n%s\n",
                passes[p], printed);
        ok = false;
      }
      kiln_context_destroy(ctx2);
      free(printed);
    }
    if (err) kiln_error_free(err);
    kiln_context_destroy(ctx);
  }
  return ok;
}
