/* libFuzzer target over the ONNX importer: bytes -> load -> import ->
 * verify -> print. Any input must end in a loaded-and-imported module that
 * verifies, or in a status whose message starts with "onnx: "; a crash,
 * sanitizer report, leak, unverifiable module or malformed status is a
 * finding. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "kiln_onnx.h"
#include "onnx_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  kiln_onnx_status st;
  kiln_onnx_model *m;
  if (!kiln_onnx_model_load(data, size, &m, &st)) return 0;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, quiet, NULL);
  kiln_op *module;
  if (kiln_onnx_import(ctx, m, &module, &st)) {
    if (!module || !kiln_verify(module)) abort();
    free(kiln_print_op_to_string(module, 0));
  } else if (st.code == KILN_ONNX_OK || strncmp(st.message, "onnx: ", 6) != 0 || module) {
    abort();
  }
  kiln_context_destroy(ctx);
  kiln_onnx_model_free(m);
  return 0;
}
