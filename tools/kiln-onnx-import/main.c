/* kiln-onnx-import: loads an ONNX model, imports it into Kiln IR,
 * verifies the module and prints it (mlir-opt-19 syntax).
 *
 *   kiln-onnx-import MODEL.onnx [-o OUT.mlir] [--generic]
 *
 * Exit status: 0 imported and verified; 1 load or import error (the
 * message names the node, op type and opset); 2 usage; 3 the imported
 * module failed the verifier (an importer bug). */
#include <stdio.h>
#include <string.h>

#include "ir.h"
#include "kiln_onnx.h"
#include "onnx_import.h"
#include "tool_report.h"
#include "tool_version.h"

static int usage(void) {
  fprintf(stderr, "usage: kiln-onnx-import MODEL.onnx [-o OUT.mlir] [--generic]\n");
  return 2;
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-onnx-import", NULL)) return 0;
  const char *in = NULL, *out = NULL;
  unsigned flags = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) out = argv[++i];
    else if (strcmp(argv[i], "--generic") == 0) flags |= KILN_PRINT_GENERIC;
    else if (argv[i][0] == '-' && argv[i][1]) return usage();
    else if (!in) in = argv[i];
    else return usage();
  }
  if (!in) return usage();
  kiln_onnx_status st;
  kiln_onnx_model *model;
  if (!kiln_onnx_model_load_file(in, &model, &st))
    return kiln_tool_report(kiln_onnx_error(in, &st));
  kiln_context *ctx = kiln_context_create();
  kiln_op *module;
  int rc = 0;
  if (!kiln_onnx_import(ctx, model, &module, &st)) {
    rc = kiln_tool_report(kiln_onnx_error(in, &st));
  } else if (!kiln_verify(module)) {
    fprintf(stderr, "%s: the imported module does not verify\n", in);
    kiln_print_op(stderr, module, KILN_PRINT_GENERIC);
    rc = 3;
  } else {
    FILE *f = out ? fopen(out, "w") : stdout;
    if (!f) {
      fprintf(stderr, "kiln-onnx-import: cannot write %s\n", out);
      rc = 1;
    } else {
      kiln_print_op(f, module, flags);
      if (out) fclose(f);
    }
  }
  kiln_context_destroy(ctx);
  kiln_onnx_model_free(model);
  return rc;
}
