/* uninitialized_check: buffers the compiler may leave unwritten are still
 * zeroed when the runtime skips clearing the others
 * (hal.buffer.allocate_uninitialized). Takes the module compiled from
 * partial_writes.mlir and a device name. Every block the runtime takes
 * from the allocator comes filled with a nonzero pattern, and @dirty /
 * @dirty_t leave nonzero values in pool blocks of the sizes @partial /
 * @partial_t use next; the check fails when a result or an arena value
 * whose kernel writes only part of it is not cleared first, and when the
 * results of fully written ones are wrong.
 *
 * usage: uninitialized_check MODULE.kiln DEVICE; exit 0 pass, 1 fail. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/runtime.h"

/* 0x5a5a5a5a as f32 is about 1.5e16: nothing the kernels compute. */
static void *poison_alloc(void *self, size_t size, size_t alignment) {
  (void)self;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  void *p = aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  if (p) memset(p, 0x5a, size);
  return p;
}

static void poison_free(void *self, void *ptr) {
  (void)self;
  free(ptr);
}

static void check(kiln_status_t s, const char *what) {
  if (!s) return;
  fprintf(stderr, "uninitialized_check: %s: %s\n", what, kiln_status_message(s));
  exit(1);
}

static kiln_device_t *dev;
static kiln_module_t *mod;
static int failures;

/* A host view of `n` f32 (dims d0 x d1, d1 = 0 for rank 1), all `value`. */
static kiln_buffer_view_t *input(int64_t d0, int64_t d1, float value) {
  const size_t n = (size_t)(d0 * (d1 ? d1 : 1));
  float *v = malloc(n * sizeof *v);
  if (!v) exit(1);
  for (size_t i = 0; i < n; ++i) v[i] = value;
  const int64_t dims[2] = {d0, d1};
  kiln_buffer_view_t *view;
  check(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, d1 ? 2 : 1, dims, v,
                                   n * sizeof *v, &view),
        "input");
  free(v);
  return view;
}

/* Calls `name` and compares its f32 result element i with want(i). */
static void run(const char *name, kiln_buffer_view_t *a, kiln_buffer_view_t *b, size_t n,
                float (*want)(size_t)) {
  kiln_function_t fn;
  check(kiln_module_lookup_function(mod, name, &fn), name);
  kiln_buffer_view_t *in[2] = {a, b}, *out = NULL;
  check(kiln_function_call(fn, dev, in, b ? 2 : 1, &out, 1), name);
  float *got = malloc(n * sizeof *got);
  if (!got) exit(1);
  check(kiln_buffer_view_read(out, got, n * sizeof *got), "read");
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; ++i)
    if (got[i] != want(i) && bad++ == 0) first = i;
  if (bad) {
    printf("FAIL: @%s: %zu of %zu elements wrong, first [%zu] = %g, want %g\n", name, bad, n,
           first, (double)got[first], (double)want(first));
    failures++;
  }
  free(got);
  kiln_buffer_view_release(out);
}

static float want_dirty(size_t i) { return (void)i, 7.0f; }
static float want_partial(size_t i) { return i < 32768 ? 3.0f : 1.0f; }
/* (0 + 7) summed over k < 512 of 1 */
static float want_dirty_t(size_t i) { return (void)i, 3584.0f; }
/* rows < 128: a (1s) over columns < 256, zeros after */
static float want_partial_t(size_t i) { return i / 64 < 128 ? 256.0f : 0.0f; }

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: uninitialized_check MODULE.kiln DEVICE\n");
    return 2;
  }
  kiln_allocator_t a = {NULL, poison_alloc, poison_free};
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = 2;
  kiln_instance_t *inst;
  check(kiln_instance_create(a, &inst), "instance");
  check(kiln_module_load_file(inst, argv[1], &mod), "load");
  check(kiln_device_create(inst, argv[2], &opts, &dev), "device");
  kiln_buffer_view_t *zeros = input(65536, 0, 0.0f), *twos = input(32768, 0, 2.0f);
  kiln_buffer_view_t *z2 = input(256, 512, 0.0f), *ones_a = input(128, 256, 1.0f);
  kiln_buffer_view_t *ones_b = input(512, 64, 1.0f);
  /* rounds: the first meets fresh (poisoned) blocks, later ones blocks
   * the previous functions left nonzero */
  for (int round = 0; round < 3; ++round) {
    run("dirty", zeros, NULL, 65536, want_dirty);
    run("partial", twos, NULL, 65536, want_partial);
    run("dirty_t", z2, ones_b, 256 * 64, want_dirty_t);
    run("partial_t", ones_a, ones_b, 256 * 64, want_partial_t);
  }
  kiln_buffer_view_release(zeros);
  kiln_buffer_view_release(twos);
  kiln_buffer_view_release(z2);
  kiln_buffer_view_release(ones_a);
  kiln_buffer_view_release(ones_b);
  kiln_module_release(mod);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  printf("%s on %s\n", failures ? "FAIL" : "PASS", argv[2]);
  return failures ? 1 : 0;
}
