/* kiln-translate: reads a module of func.func on scalars, vectors and
 * memrefs, optionally runs approximate-math and scf-to-cf, and prints the
 * LLVM IR the codegen translation builds (before any LLVM optimization).
 * A module holding a hal.executable.variant, or --kernel-module, is
 * translated as a kernel module (entry points + export table).
 * Exit status: 0 success, 1 bad input or failed translation (message on
 * stderr), 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_transforms.h"
#include "mlir_input.h"
#include "to_llvm.h"
#include "tool_version.h"

static void usage(FILE *o) {
  fputs("usage: kiln-translate [options] FILE|-\n"
        "  --to-llvm-ir        print the LLVM IR (the default action)\n"
        "  --scf-to-cf         lower scf.for/scf.if first\n"
        "  --approximate-math  replace math functions by polynomials first\n"
        "  --kernel-module     translate the module as a kernel module\n"
        "  --no-c-wrappers     omit the _mlir_ciface_ wrappers\n"
        "  --print-ir          print the IR after the passes instead\n"
        "  -o FILE             write the output to FILE\n", o);
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-translate", NULL)) return 0;
  const char *input = NULL, *output = NULL;
  bool scf = false, approx = false, kernel = false, wrappers = true, print_ir = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--to-llvm-ir")) continue;
    else if (!strcmp(a, "--scf-to-cf")) scf = true;
    else if (!strcmp(a, "--approximate-math")) approx = true;
    else if (!strcmp(a, "--kernel-module")) kernel = true;
    else if (!strcmp(a, "--no-c-wrappers")) wrappers = false;
    else if (!strcmp(a, "--print-ir")) print_ir = true;
    else if (!strcmp(a, "--help")) {
      usage(stdout);
      return 0;
    } else if (!strcmp(a, "-o") && i + 1 < argc) output = argv[++i];
    else if (a[0] == '-' && a[1]) {
      fprintf(stderr, "kiln-translate: unknown option '%s'\n", a);
      usage(stderr);
      return 2;
    } else if (!input) input = a;
    else {
      fprintf(stderr, "kiln-translate: more than one input file\n");
      return 2;
    }
  }
  if (!input) input = "-";
  int status = 1;
  kiln_context *ctx = kiln_context_create();
  kiln_op *module = NULL;
  kiln_error *err = kiln_mlir_load_file(ctx, input, true, &module);
  LLVMContextRef lctx = LLVMContextCreate();
  LLVMModuleRef lm = NULL;
  if (err) {
    if (!kiln_context_error_count(ctx)) fprintf(stderr, "kiln-translate: %s\n", kiln_error_message(err));
    goto done;
  }
  if (approx && (err = kiln_approximate_math(module))) goto fail;
  if (scf && (err = kiln_scf_to_cf(module))) goto fail;
  if ((approx || scf) && !kiln_verify(module)) {
    fprintf(stderr, "kiln-translate: the passes left invalid IR\n");
    goto done;
  }
  FILE *out = output ? fopen(output, "w") : stdout;
  if (!out) {
    fprintf(stderr, "kiln-translate: cannot write '%s'\n", output);
    goto done;
  }
  if (print_ir) {
    kiln_print_op(out, module, 0);
  } else {
    kiln_op *target = module;
    kiln_op *inner = kiln_to_llvm_find_variant_module(module);
    if (inner) {
      target = inner;
      kernel = true;
    }
    kiln_to_llvm_options opts = {.kernel_module = kernel, .emit_c_wrappers = wrappers};
    err = kiln_to_llvm_translate(target, &opts, lctx, "kiln", &lm);
    if (err) {
      if (output) fclose(out);
      goto fail;
    }
    char *text = LLVMPrintModuleToString(lm);
    fputs(text, out);
    LLVMDisposeMessage(text);
  }
  if (output) fclose(out);
  status = 0;
  goto done;
fail:
  fprintf(stderr, "kiln-translate: %s\n", kiln_error_message(err));
done:
  kiln_error_free(err);
  if (lm) LLVMDisposeModule(lm);
  LLVMContextDispose(lctx);
  kiln_context_destroy(ctx);
  return status;
}
