/* kiln-run: loads a module, calls one function with the --input values on
 * a device, and prints each result as "result[N]: 4xf32=5 12 21 32" or
 * writes it to the .npy file its --output names. Flags follow IREE's
 * iree-run-module; --trace-dispatches=DIR writes every dispatch's inputs
 * and outputs (dispatch_trace.h); --check-bundled runs the check data
 * stored with the module instead (check_bundled.h). Exit status 0 on success, 1 on any
 * error (message on stderr), 2 on bad usage. */
#include <stdio.h>
#include <string.h>

#include "check_bundled.h"
#include "dispatch_trace.h"
#include "run_session.h"
#include "tool_version.h"

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
  kiln_status_t st = kiln_function_call(s.function, s.device, s.inputs,
                                        s.input_count, outputs, n_out);
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
    kiln_host_tensor_t t;
    if (!kiln_host_tensor_from_view(outputs[i], &t, err, sizeof err)) {
      fprintf(stderr, "kiln-run: result %u: %s\n", i, err);
      rc = 1;
      continue;
    }
    const char *dest = i < (uint32_t)o.output_count ? o.outputs[i] : "-";
    if (dest[0] == '@') {
      if (!kiln_npy_write(dest + 1, &t, err, sizeof err)) {
        fprintf(stderr, "kiln-run: result %u: %s\n", i, err);
        rc = 1;
      }
    } else {
      printf("result[%u]: ", i);
      kiln_print_tensor(stdout, &t);
      printf("\n");
    }
    kiln_host_tensor_free(&t);
  }
  for (uint32_t i = 0; i < n_out; ++i) kiln_buffer_view_release(outputs[i]);
  kiln_run_close(&s);
  return rc;
}
