/* What bench_runtime and probe_first_call both do to a prepared module:
 * find its one exported function, make zero inputs of the declared types
 * on a device, and call it. Header-only
 * (static functions): each program is one file plus this. */
#ifndef KILN_BENCH_MODULE_H
#define KILN_BENCH_MODULE_H

#include <stdlib.h>

#include "kiln/runtime.h"

typedef struct bench_call {
  kiln_function_t fn;
  uint32_t nin, nout;
  kiln_buffer_view_t *in[64], *out[64];
} bench_call_t;

/* NULL when c is ready to call, else what is wrong. A module must export
 * exactly one function: a benchmark of "the" call must not pick one. */
static const char *bench_call_init(kiln_module_t *mod, kiln_device_t *dev,
                                   bench_call_t *c) {
  uint32_t exported = 0;
  for (uint32_t i = 0; i < kiln_module_function_count(mod); ++i) {
    kiln_function_t f;
    if (kiln_module_function_at(mod, i, &f)) return "bad function index";
    if (kiln_function_is_exported(f) && exported++ == 0) c->fn = f;
  }
  if (exported != 1) return "the module must export one function";
  c->nin = kiln_function_input_count(c->fn);
  c->nout = kiln_function_output_count(c->fn);
  if (c->nin > 64 || c->nout > 64) return "more than 64 inputs or outputs";
  for (uint32_t i = 0; i < c->nin; ++i) {
    const kiln_tensor_type_t t = kiln_function_input_type(c->fn, i);
    uint64_t n = kiln_element_type_size(t.element_type);
    for (uint32_t d = 0; d < t.rank; ++d) n *= (uint64_t)t.dims[d];
    void *zeros = calloc(1, n ? n : 1);
    kiln_status_t s = kiln_buffer_view_from_host(dev, t.element_type, t.rank,
                                                 t.dims, zeros, n, &c->in[i]);
    free(zeros);
    if (s) return kiln_status_message(s);
  }
  return NULL;
}

static kiln_status_t bench_call_run(bench_call_t *c, kiln_device_t *dev) {
  return kiln_function_call(c->fn, dev, c->in, c->nin, c->out, c->nout);
}

/* After each successful bench_call_run, outside the timed part. */
static void bench_call_drop_outputs(bench_call_t *c) {
  for (uint32_t k = 0; k < c->nout; ++k) kiln_buffer_view_release(c->out[k]);
}

static void bench_call_release(bench_call_t *c) {
  for (uint32_t i = 0; i < c->nin; ++i) kiln_buffer_view_release(c->in[i]);
}

#endif
