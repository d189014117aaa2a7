/* kiln-bench: like kiln-run, but calls the function --warmup times
 * untimed, then --repetitions times timed (CLOCK_MONOTONIC around each
 * call, results released in between), and prints min / median / p90 /
 * mean / max latency. The inputs stay on the device for every call, so
 * the figures are the call itself: VM, dispatches and result allocation.
 * --profile-dispatches then breaks the timed calls down by dispatch
 * (dispatch_profile.h); the runtime times dispatches only when asked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch_profile.h"
#include "run_session.h"
#include "tool_version.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The value below which `q` of the sorted samples fall (nearest rank). */
static double quantile(const double *sorted, long n, double q) {
  long rank = (long)(q * (double)n + 0.999999);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

static void print_ms(const char *label, double ms) {
  if (ms < 1.0)
    printf("%-7s %10.3f us\n", label, ms * 1e3);
  else
    printf("%-7s %10.3f ms\n", label, ms);
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-bench", NULL)) return 0;
  kiln_run_options_t o;
  memset(&o, 0, sizeof o);
  o.tool = "kiln-bench";
  bool done;
  int rc = kiln_run_parse_flags(argc, argv, true, &o, &done);
  if (rc || done) return rc;
  kiln_bench_profile_t *profile = NULL;
  if (o.profile_dispatches) {
    profile = kiln_bench_profile_create(o.repetitions);
    if (!profile) {
      fprintf(stderr, "kiln-bench: out of memory\n");
      return 1;
    }
    o.dispatch_observer = kiln_bench_profile_observe;
    o.dispatch_observer_user = profile;
  }
  kiln_run_session_t s;
  if (kiln_run_open(&o, &s)) {
    kiln_run_close(&s);
    kiln_bench_profile_destroy(profile);
    return 1;
  }
  const uint32_t n_out = kiln_function_output_count(s.function);
  if (n_out > KILN_RUN_MAX_ARGS) {
    fprintf(stderr, "kiln-bench: too many results (%u)\n", n_out);
    kiln_run_close(&s);
    kiln_bench_profile_destroy(profile);
    return 1;
  }
  double *samples = malloc((size_t)o.repetitions * sizeof *samples);
  double *calls = malloc((size_t)o.repetitions * sizeof *calls);
  if (!samples || !calls) {
    free(samples);
    free(calls);
    fprintf(stderr, "kiln-bench: out of memory\n");
    kiln_run_close(&s);
    kiln_bench_profile_destroy(profile);
    return 1;
  }
  kiln_buffer_view_t *outputs[KILN_RUN_MAX_ARGS];
#ifdef KILN_RUNTIME_SEQUENCES
  /* Functions with sequences take kiln_function_call_values; the others
   * keep kiln_function_call, so their timings are the same calls. */
  kiln_call_value_t in[KILN_RUN_MAX_ARGS], out[KILN_RUN_MAX_ARGS];
  bool values = false;
  for (uint32_t k = 0; k < s.input_count; ++k) {
    in[k].view = s.inputs[k], in[k].sequence = s.sequences[k];
    values |= s.sequences[k] != NULL;
  }
  for (uint32_t k = 0; k < n_out; ++k)
    values |= kiln_function_output_is_sequence(s.function, k) != 0;
#endif
  for (long i = 0; i < o.warmup + o.repetitions; ++i) {
    if (profile) kiln_bench_profile_begin(profile, i - o.warmup);
    const double t0 = now_ms();
    kiln_status_t st;
#ifdef KILN_RUNTIME_SEQUENCES
    if (values)
      st = kiln_function_call_values(s.function, s.device, in, s.input_count,
                                     out, n_out);
    else
#endif
      st = kiln_function_call(s.function, s.device, s.inputs, s.input_count,
                              outputs, n_out);
    const double t1 = now_ms();
    if (st) {
      rc = kiln_run_report(&o, st);
      break;
    }
#ifdef KILN_RUNTIME_SEQUENCES
    for (uint32_t k = 0; values && k < n_out; ++k) {
      kiln_sequence_release(out[k].sequence);
      outputs[k] = out[k].view;
    }
#endif
    for (uint32_t k = 0; k < n_out; ++k) kiln_buffer_view_release(outputs[k]);
    if (i >= o.warmup) samples[i - o.warmup] = calls[i - o.warmup] = t1 - t0;
  }
  if (rc == 0) {
    const long n = o.repetitions;
    double sum = 0;
    for (long i = 0; i < n; ++i) sum += samples[i];
    qsort(samples, (size_t)n, sizeof *samples, cmp_double);
    printf("kiln-bench: %s on %s (%s), %ld repetitions after %ld warmup\n",
           kiln_function_name(s.function), kiln_device_name(s.device),
           kiln_device_target(s.device), n, o.warmup);
    print_ms("min", samples[0]);
    print_ms("median", quantile(samples, n, 0.5));
    print_ms("p90", quantile(samples, n, 0.9));
    print_ms("mean", sum / (double)n);
    print_ms("max", samples[n - 1]);
  }
  if (rc == 0 && profile && !kiln_bench_profile_print(profile, calls, stdout))
    rc = 1;
  kiln_bench_profile_destroy(profile);
  free(calls);
  free(samples);
  kiln_run_close(&s);
  return rc;
}
