/* libFuzzer target: arbitrary bytes through the MLIR parser, the verifier
 * and the printer (also of IR that failed verification, as kiln-opt
 * --no-verify prints it). Beyond "no crash, no leak, no UB" it checks the
 * printer's contract: whatever parses and verifies prints to text that
 * parses, verifies and prints to the same text again (a fixpoint). */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

static char *print_once(const char *text, size_t len, bool *ok) {
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, quiet, NULL);
  kiln_context_allow_unregistered(ctx, true);
  kiln_op *m = kiln_parse_source(ctx, "fuzz.mlir", text, len);
  char *out = NULL;
  *ok = m && kiln_verify(m);
  if (*ok) {
    out = kiln_print_op_to_string(m, 0);
  } else if (m) {
    /* kiln-opt --no-verify prints unverified IR: that must not crash
     * either (custom printers fall back to the generic form). */
    free(kiln_print_op_to_string(m, 0));
    free(kiln_print_op_to_string(m, KILN_PRINT_GENERIC));
  }
  kiln_context_destroy(ctx);
  return out;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
  if (size > 1 << 16) return 0;
  bool ok;
  char *first = print_once((const char *)data, size, &ok);
  if (!first) return 0;
  char *second = print_once(first, strlen(first), &ok);
  if (!ok || !second) abort(); /* printed IR must read back */
  char *third = print_once(second, strlen(second), &ok);
  if (!third || strcmp(second, third) != 0) abort(); /* and be a fixpoint */
  free(first);
  free(second);
  free(third);
  return 0;
}
