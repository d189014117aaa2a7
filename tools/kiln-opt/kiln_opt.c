/* kiln-opt: reads MLIR text, verifies it, runs a pass pipeline and prints
 * the result the way mlir-opt-19 does. Exit status 0 on success, 1 when the
 * input is malformed or a pass fails (with located diagnostics on stderr),
 * 2 on bad command-line usage. */
#include "mlir_input.h"

#include <stdlib.h>
#include <string.h>

#ifdef KILN_HAVE_TRANSFORMS
#include "transforms.h"
#endif

static void list_pass(const kiln_pass_info *p, void *user) {
  fprintf((FILE *)user, "  --%-28s %s\n", p->name, p->description ? p->description : "");
}

static void usage(FILE *o) {
  fputs("usage: kiln-opt [options] FILE|-\n"
        "  --pass-pipeline=P        run passes, e.g. 'canonicalize,cse' or\n"
        "                           'builtin.module(func.func(canonicalize))'\n"
        "  --PASS                   run one registered pass (repeatable, in order)\n"
        "  --print-ir-after-all     dump the IR after every pass (stderr)\n"
        "  --print-ir-after=PASS    dump the IR after the named pass(es) (stderr)\n"
        "  --timing                 per-pass time table (stderr)\n"
        "  --mlir-print-op-generic  print every op in generic form\n"
        "  --allow-unregistered-dialect  accept ops not in the op table\n"
        "  --no-verify              skip verification of the input\n"
        "  -o FILE                  write the output to FILE\n"
        "passes:\n", o);
  kiln_pass_foreach(list_pass, o);
}

int main(int argc, char **argv) {
#ifdef KILN_HAVE_TRANSFORMS
  kiln_transforms_register();
#endif
  const char *input = NULL, *output = NULL;
  unsigned flags = 0;
  bool print_all = false, timing = false, verify = true, unregistered = false;
  const char *print_after = NULL;
  /* Pipeline pieces in command-line order. */
  const char **pieces = calloc((size_t)argc + 1, sizeof *pieces);
  int npieces = 0;
  if (!pieces) return 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) == 0 && a[2]) {
      const char *o = a + 2;
      if (strncmp(o, "pass-pipeline=", 14) == 0) pieces[npieces++] = o + 14;
      else if (strcmp(o, "print-ir-after-all") == 0) print_all = true;
      else if (strncmp(o, "print-ir-after=", 15) == 0) print_after = o + 15;
      else if (strcmp(o, "timing") == 0) timing = true;
      else if (strcmp(o, "mlir-print-op-generic") == 0) flags |= KILN_PRINT_GENERIC;
      else if (strcmp(o, "allow-unregistered-dialect") == 0) unregistered = true;
      else if (strcmp(o, "no-verify") == 0) verify = false;
      else if (strcmp(o, "help") == 0) {
        usage(stdout);
        free(pieces);
        return 0;
      } else if (kiln_pass_lookup(o)) pieces[npieces++] = o;
      else {
        fprintf(stderr, "kiln-opt: unknown option '%s'\n", a);
        usage(stderr);
        free(pieces);
        return 2;
      }
    } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
      output = argv[++i];
    } else if (a[0] == '-' && a[1] && strcmp(a, "-") != 0) {
      /* single-dash spellings as mlir-opt accepts them */
      char *dd = malloc(strlen(a) + 2);
      if (!dd) return 2;
      snprintf(dd, strlen(a) + 2, "-%s", a);
      argv[i] = dd;
      i--;
      continue;
    } else if (!input) {
      input = a;
    } else {
      fprintf(stderr, "kiln-opt: more than one input file ('%s', '%s')\n", input, a);
      free(pieces);
      return 2;
    }
  }
  if (!input) input = "-";

  kiln_context *ctx = kiln_context_create();
  kiln_context_allow_unregistered(ctx, unregistered);
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  int status = 0;
  kiln_error *err = NULL;
  for (int i = 0; i < npieces && !err; i++) err = kiln_pm_add_pipeline(pm, pieces[i]);
  if (err) {
    fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    status = 2;
    goto done;
  }
  kiln_op *module;
  err = kiln_mlir_load_file(ctx, input, verify, &module);
  if (err) {
    /* Parse/verify problems were already reported with their location. */
    if (!kiln_context_error_count(ctx)) fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    status = 1;
    goto done;
  }
  if (print_all) kiln_pm_print_after_all(pm, stderr);
  if (print_after) kiln_pm_print_after(pm, print_after, stderr);
  if (timing) kiln_pm_enable_timing(pm, stderr);
  err = kiln_pm_run(pm, module);
  if (err) {
    fprintf(stderr, "kiln-opt: %s\n", kiln_error_message(err));
    status = 1;
    goto done;
  }
  FILE *out = output ? fopen(output, "w") : stdout;
  if (!out) {
    fprintf(stderr, "kiln-opt: cannot write '%s'\n", output);
    status = 1;
    goto done;
  }
  kiln_print_op(out, module, flags);
  if (output) fclose(out);
done:
  kiln_error_free(err);
  kiln_pm_destroy(pm);
  kiln_context_destroy(ctx);
  free(pieces);
  return status;
}
