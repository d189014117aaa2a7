/* kiln-opt-gpu: the FileCheck driver of compiler/codegen/gpu's passes
 * (with compiler/codegen/cpu's, which the GPU pipeline reuses) until
 * tools/kiln-opt registers them. Reads MLIR text (file or '-'), runs the
 * passes named on the command line (--PASS) in order and prints the
 * module. Exit 0 on success, 1 on malformed input or a failing pass
 * (message on stderr), 2 on usage errors. */
#include <stdio.h>
#include <string.h>

#include "codegen_cpu.h"
#include "codegen_gpu.h"
#include "mlir_input.h"

int main(int argc, char **argv) {
  kiln_codegen_cpu_register();
  kiln_codegen_gpu_register();
  kiln_context *ctx = kiln_context_create();
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  const char *input = "-";
  int status = 0;
  kiln_error *err = NULL;
  for (int i = 1; i < argc && !err; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) == 0 && kiln_pass_lookup(a + 2)) {
      err = kiln_pm_add_pass(pm, a + 2);
    } else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "kiln-opt-gpu: unknown option '%s'\n", a);
      status = 2;
      goto done;
    } else {
      input = a;
    }
  }
  if (err) {
    fprintf(stderr, "kiln-opt-gpu: %s\n", kiln_error_message(err));
    status = 2;
    goto done;
  }
  kiln_op *module;
  if ((err = kiln_mlir_load_file(ctx, input, true, &module))) {
    if (!kiln_context_error_count(ctx)) fprintf(stderr, "kiln-opt-gpu: %s\n", kiln_error_message(err));
    status = 1;
    goto done;
  }
  if ((err = kiln_pm_run(pm, module))) {
    fprintf(stderr, "kiln-opt-gpu: %s\n", kiln_error_message(err));
    status = 1;
    goto done;
  }
  kiln_print_op(stdout, module, 0);
done:
  kiln_error_free(err);
  kiln_pm_destroy(pm);
  kiln_context_destroy(ctx);
  return status;
}
