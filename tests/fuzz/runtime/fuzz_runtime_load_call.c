/* libFuzzer target: arbitrary bytes through the whole runtime path a user
 * hits: load (format verification, semantic checks, bytecode
 * verification, import resolution, ELF checks), prepare on local-sync
 * (variant selection, ELF load, export cross-check) and a call of every
 * exported function with zero-filled inputs of its declared shape. Any
 * crash or sanitizer report is a bug; errors are expected. Seeded with the
 * handmade module (see CMakeLists.txt). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kiln_instance_t *inst;
static kiln_device_t *dev;

static void call_exported(kiln_module_t *m) {
  for (uint32_t i = 0; i < kiln_module_function_count(m); ++i) {
    kiln_function_t fn;
    kiln_status_t s = kiln_module_function_at(m, i, &fn);
    if (s) {
      kiln_status_free(s);
      continue;
    }
    char sig[256];
    kiln_function_signature_format(fn, sig, sizeof sig);
    const uint32_t n_in = kiln_function_input_count(fn);
    const uint32_t n_out = kiln_function_output_count(fn);
    if (!kiln_function_is_exported(fn) || n_in > 4 || n_out > 4) continue;
    kiln_buffer_view_t *in[4] = {0}, *out[4] = {0};
    int ok = 1;
    for (uint32_t k = 0; ok && k < n_in; ++k) {
      kiln_tensor_type_t t = kiln_function_input_type(fn, k);
      uint64_t bytes = kiln_element_type_size(t.element_type);
      for (uint32_t d = 0; d < t.rank; ++d) {
        if (t.dims[d] < 0 || t.dims[d] > 256) t.dims[d] = 4;
        bytes *= (uint64_t)t.dims[d];
      }
      if (bytes > (1u << 20)) {
        ok = 0;
        break;
      }
      void *zeros = calloc(1, bytes ? bytes : 1);
      s = kiln_buffer_view_from_host(dev, t.element_type, t.rank, t.dims,
                                     zeros, bytes, &in[k]);
      free(zeros);
      if (s) {
        kiln_status_free(s);
        ok = 0;
      }
    }
    if (ok) kiln_status_free(kiln_function_call(fn, dev, in, n_in, out, n_out));
    for (uint32_t k = 0; k < 4; ++k) {
      kiln_buffer_view_release(in[k]);
      kiln_buffer_view_release(out[k]);
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!inst) {
    if (kiln_instance_create(kiln_allocator_system(), &inst)) abort();
    /* Hostile modules may ask for huge buffers or loop forever: the
     * device's limits turn both into errors. */
    const kiln_device_options_t opts = {.max_buffer_bytes = 1u << 26,
                                        .max_steps = 100000};
    if (kiln_device_create(inst, "local-sync", &opts, &dev)) abort();
  }
  /* An exact-size, 64-byte-aligned copy: overreads hit the redzone. */
  uint8_t *copy = aligned_alloc(64, (size + 63) & ~(size_t)63);
  if (!copy) return 0;
  memcpy(copy, data, size);
  kiln_module_t *m = NULL;
  kiln_status_t s = kiln_module_load_memory(inst, copy, size, &m);
  if (s) {
    if (!kiln_status_message(s)[0]) abort(); /* errors always say why */
    kiln_status_free(s);
  } else {
    s = kiln_module_prepare(m, dev);
    if (s)
      kiln_status_free(s);
    else
      call_exported(m);
    kiln_module_release(m);
  }
  free(copy);
  return 0;
}
