/* kiln-run: loads a module, calls one function with the --input values on
 * a device, and prints each result as "result[N]: 4xf32=5 12 21 32" or
 * writes it to the .npy file its --output names. Flags follow IREE's
 * iree-run-module; --trace-dispatches=DIR writes every dispatch's inputs
 * and outputs (dispatch_trace.h); --check-bundled runs the check data
 * stored with the module instead (check_bundled.h). A sequence result
 * prints as "result[N]: seq of K" and then its elements "result[N][k]:
 * ...", or goes to one .npy file per element (--output=@y.npy: y.0.npy,
 * y.1.npy, ...). Exit status 0 on success, 1 on any error (message on
 * stderr), 2 on bad usage. */
#include <stdio.h>
#include <string.h>

#include "check_bundled.h"
#include "dispatch_trace.h"
#include "run_session.h"
#include "tool_version.h"

/* Prints or writes result i (element k of a sequence result, or k < 0);
 * 0 or (after printing why) 1. */
static int emit(uint32_t i, long k, const kiln_buffer_view_t *view,
                const char *dest) {
  kiln_host_tensor_t t;
  char err[512], path[4096];
  if (!kiln_host_tensor_from_view(view, &t, err, sizeof err)) {
    fprintf(stderr, "kiln-run: result %u: %s\n", i, err);
    return 1;
  }
  int rc = 0;
  if (dest[0] == '@') {
    const char *file = dest + 1;
    if (k >= 0) { /* y.npy -> y.K.npy */
      const size_t n = strlen(file);
      const size_t stem = n > 4 && !strcmp(file + n - 4, ".npy") ? n - 4 : n;
      snprintf(path, sizeof path, "%.*s.%ld.npy", (int)stem, file, k);
      file = path;
    }
    if (!kiln_npy_write(file, &t, err, sizeof err)) {
      fprintf(stderr, "kiln-run: result %u: %s\n", i, err);
      rc = 1;
    }
  } else {
    if (k >= 0) printf("result[%u][%ld]: ", i, k);
    else printf("result[%u]: ", i);
    kiln_print_tensor(stdout, &t);
    printf("\n");
  }
  kiln_host_tensor_free(&t);
  return rc;
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-run", NULL)) return 0;
  kiln_run_options_t o;
  memset(&o, 0, sizeof o);
  o.tool = "kiln-run";
  bool done;
  int rc = kiln_run_parse_flags(argc, argv, false, &o, &done);
  if (rc || done) return rc;
  /* Tracing observes every dispatch; the device then runs each to
   * completion before the next (runtime.h's dispatch observers). */
  kiln_dispatch_trace_t trace;
  char err[512];
  if (o.trace_dir) {
    if (!kiln_dispatch_trace_open(&trace, o.trace_dir, o.trace_filter, err,
                                  sizeof err)) {
      fprintf(stderr, "kiln-run: %s\n", err);
      return 1;
    }
    o.dispatch_observer = kiln_dispatch_trace_observe;
    o.dispatch_observer_user = &trace;
  }
  kiln_run_session_t s;
  if (o.check_bundled) {
    rc = kiln_run_open(&o, &s);
    if (!rc) rc = kiln_run_check_bundled(&o, &s);
    kiln_run_close(&s);
    return rc;
  }
  if (kiln_run_open(&o, &s)) {
    kiln_run_close(&s);
    if (o.trace_dir) kiln_dispatch_trace_close(&trace, NULL, 0);
    return 1;
  }
  const uint32_t n_out = kiln_function_output_count(s.function);
  kiln_buffer_view_t *outputs[KILN_RUN_MAX_ARGS] = {0};
  if (n_out > KILN_RUN_MAX_ARGS || (uint32_t)o.output_count > n_out) {
    fprintf(stderr, "kiln-run: function '%s' has %u results, got %d --output\n",
            kiln_function_name(s.function), n_out, o.output_count);
    kiln_run_close(&s);
    if (o.trace_dir) kiln_dispatch_trace_close(&trace, NULL, 0);
    return 1;
  }
#ifdef KILN_RUNTIME_SEQUENCES
  kiln_call_value_t in[KILN_RUN_MAX_ARGS], out[KILN_RUN_MAX_ARGS];
  for (uint32_t i = 0; i < s.input_count; ++i)
    in[i].view = s.inputs[i], in[i].sequence = s.sequences[i];
  kiln_status_t st = kiln_function_call_values(s.function, s.device, in,
                                               s.input_count, out, n_out);
  for (uint32_t i = 0; !st && i < n_out; ++i) outputs[i] = out[i].view;
#else
  kiln_status_t st = kiln_function_call(s.function, s.device, s.inputs,
                                        s.input_count, outputs, n_out);
#endif
  if (o.trace_dir && !kiln_dispatch_trace_close(&trace, err, sizeof err)) {
    fprintf(stderr, "kiln-run: --trace-dispatches: %s\n", err);
    rc = 1;
  }
  if (st) {
    rc = kiln_run_report(&o, st);
    kiln_run_close(&s);
    return rc;
  }
  for (uint32_t i = 0; i < n_out; ++i) {
    const char *dest = i < (uint32_t)o.output_count ? o.outputs[i] : "-";
#ifdef KILN_RUNTIME_SEQUENCES
    if (out[i].sequence) {
      const uint32_t n = kiln_sequence_size(out[i].sequence);
      if (dest[0] != '@') printf("result[%u]: seq of %u\n", i, n);
      for (uint32_t k = 0; k < n; ++k)
        rc |= emit(i, k, kiln_sequence_at(out[i].sequence, k), dest);
      kiln_sequence_release(out[i].sequence);
      continue;
    }
#endif
    rc |= emit(i, -1, outputs[i], dest);
  }
  for (uint32_t i = 0; i < n_out; ++i) kiln_buffer_view_release(outputs[i]);
  kiln_run_close(&s);
  return rc;
}
