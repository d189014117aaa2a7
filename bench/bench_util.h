/* bench/bench_util.h: what the C benchmarks share: a monotonic clock and
 * 64-byte aligned float buffers (a benchmark without memory just stops). */
#ifndef KILN_BENCH_UTIL_H
#define KILN_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline float *bench_falloc(size_t n) {
  float *p = aligned_alloc(64, (n * sizeof(float) + 63) & ~(size_t)63);
  if (!p) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  return p;
}

#endif
