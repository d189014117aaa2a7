/* steady_state_check: checks runtime.h's promise that steady-state calls
 * of a module allocate nothing and touch no new page, on a compiled model.
 * Loads MODULE through a counting allocator, calls its exported function
 * on zero inputs (declared types) a few times to fill the device's pool,
 * then runs windows of 100 calls (outputs released after each), counting
 * allocator calls and the process's minor page faults (getrusage, every
 * thread, local-task's workers included) per window.
 *
 * Passes when no window allocates and some window of at most 5 faults 0
 * times. Why "some window": the kernel may fault pages that Kiln already
 * touched (NUMA-balancing hinting faults, THP collapse or compaction
 * migrating a page), at any time and into any process; a call that itself
 * touched new memory (a fresh allocation, a buffer first used late, a
 * worker first meeting a deep stack) faults in every window, or in the
 * first ones until it has touched all it will (warm-up is part of the
 * first window's budget then, and later windows still show it as 0).
 * Under AddressSanitizer faults are printed, not judged.
 *
 * usage: steady_state_check MODULE.kiln DEVICE [WORKERS]
 * prints one line per window; exit 0 pass, 1 fail, 2 usage. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "kiln/runtime.h"

#define CALLS 100
#define WINDOWS 5

/* Under AddressSanitizer its allocator, shadow memory and fake stacks
 * fault pages of their own, not Kiln's: faults are reported, not judged. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

typedef struct counting {
  long allocs, frees;
} counting_t;

static void *count_alloc(void *self, size_t size, size_t alignment) {
  counting_t *c = self;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  void *p = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p) c->allocs++;
  return p;
}

static void count_free(void *self, void *ptr) {
  counting_t *c = self;
  if (ptr) c->frees++;
  free(ptr);
}

static long minflt(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

static void check(kiln_status_t s, const char *what) {
  if (!s) return;
  fprintf(stderr, "steady_state_check: %s: %s\n", what, kiln_status_message(s));
  exit(1);
}

static void call(kiln_function_t fn, kiln_device_t *dev,
                 kiln_buffer_view_t *const *in, uint32_t nin,
                 kiln_buffer_view_t **out, uint32_t nout) {
  check(kiln_function_call(fn, dev, in, nin, out, nout), "call");
  for (uint32_t k = 0; k < nout; ++k) kiln_buffer_view_release(out[k]);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: steady_state_check MODULE.kiln DEVICE [WORKERS]\n");
    return 2;
  }
  counting_t c = {0, 0};
  kiln_allocator_t a = {&c, count_alloc, count_free};
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = argc > 3 ? (uint32_t)atol(argv[3]) : 0;
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *mod;
  check(kiln_instance_create(a, &inst), "instance");
  check(kiln_module_load_file(inst, argv[1], &mod), "load");
  check(kiln_device_create(inst, argv[2], &opts, &dev), "device");
  check(kiln_module_prepare(mod, dev), "prepare");
  kiln_function_t fn;
  uint32_t exported = 0;
  for (uint32_t i = 0; i < kiln_module_function_count(mod); ++i) {
    kiln_function_t f;
    check(kiln_module_function_at(mod, i, &f), "function");
    if (kiln_function_is_exported(f) && exported++ == 0) fn = f;
  }
  if (exported == 0) {
    fprintf(stderr, "steady_state_check: %s exports no function\n", argv[1]);
    return 1;
  }
  const uint32_t nin = kiln_function_input_count(fn);
  const uint32_t nout = kiln_function_output_count(fn);
  kiln_buffer_view_t *in[64], *out[64];
  if (nin > 64 || nout > 64) {
    fprintf(stderr, "steady_state_check: more than 64 inputs or outputs\n");
    return 1;
  }
  for (uint32_t i = 0; i < nin; ++i) {
    const kiln_tensor_type_t t = kiln_function_input_type(fn, i);
    uint64_t n = kiln_element_type_size(t.element_type);
    for (uint32_t d = 0; d < t.rank; ++d) {
      if (t.dims[d] < 0) {
        fprintf(stderr, "steady_state_check: input %u has a dynamic dimension\n", i);
        return 1;
      }
      n *= (uint64_t)t.dims[d];
    }
    void *zeros = calloc(1, n ? n : 1);
    check(kiln_buffer_view_from_host(dev, t.element_type, t.rank, t.dims,
                                     zeros, n, &in[i]), "input");
    free(zeros);
  }
  for (int i = 0; i < 3; ++i) call(fn, dev, in, nin, out, nout);

  int ok = 0, bad_alloc = 0;
  for (int w = 0; w < WINDOWS && !ok && !bad_alloc; ++w) {
    const long allocs = c.allocs, flt = minflt();
    for (int i = 0; i < CALLS; ++i) call(fn, dev, in, nin, out, nout);
    const long faults = minflt() - flt, taken = c.allocs - allocs;
    printf("%s on %s: window %d of %d calls: %ld allocations, %ld minor faults\n",
           kiln_function_name(fn), argv[2], w + 1, CALLS, taken, faults);
    bad_alloc = taken != 0;
    ok = !bad_alloc && (faults == 0 || ASAN);
  }
  if (ASAN) printf("note: page faults not judged under AddressSanitizer\n");
  for (uint32_t i = 0; i < nin; ++i) kiln_buffer_view_release(in[i]);
  kiln_module_release(mod);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  if (c.allocs != c.frees) {
    printf("FAIL: %ld allocations, %ld frees\n", c.allocs, c.frees);
    return 1;
  }
  printf("%s\n", ok ? "PASS" : bad_alloc ? "FAIL: a steady-state call allocated"
                                         : "FAIL: every window page-faulted");
  return ok ? 0 : 1;
}
