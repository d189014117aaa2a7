/* bench_pool: the local-task pool's own costs, without kernels or the VM
 * (runtime-min/src/task). With one worker besides the caller (the 2-thread
 * configuration), it dispatches grids of G workgroups that each busy-wait
 * W ns and prints the median and minimum wall time per dispatch against
 * the ideal (G * W / 2) and the serial time (G * W), and how often the
 * worker took part; then, after idle gaps of S us (the worker spinning,
 * yielding or asleep by then), the wake-up latency: from the dispatch's
 * start to the worker's first workgroup. Numbers mean something only on
 * a quiet machine: on a loaded one the worker waits for a core.
 *
 * usage: bench_pool [DISPATCHES]   (default 400 per configuration) */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "task_pool.h"

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

typedef struct ctx {
  uint64_t work_ns;
  atomic_uint_fast64_t worker_start; /* first workgroup a worker ran */
  atomic_int worker_groups;
} ctx_t;

static int workgroup(void *p, uint32_t x, uint32_t y, uint32_t z,
                     uint32_t worker) {
  ctx_t *c = p;
  (void)x, (void)y, (void)z;
  if (worker) {
    uint_fast64_t none = 0;
    atomic_compare_exchange_strong(&c->worker_start, &none, now_ns());
    atomic_fetch_add(&c->worker_groups, 1);
  }
  for (const uint64_t end = now_ns() + c->work_ns; now_ns() < end;) {
  }
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 400;
  if (n < 10) return 2;
  kiln_task_pool_t *pool;
  char msg[256];
  if (kiln_task_pool_create(1, &pool, msg, sizeof msg)) {
    fprintf(stderr, "bench_pool: %s\n", msg);
    return 1;
  }
  uint64_t *t = malloc((size_t)n * sizeof *t);
  if (!t) return 1;
  static const uint32_t grids[] = {2, 4, 16};
  static const uint64_t works[] = {0, 2000, 10000, 50000};
  printf("back-to-back dispatches, caller + 1 worker:\n");
  for (unsigned g = 0; g < 3; ++g)
    for (unsigned w = 0; w < 4; ++w) {
      ctx_t c = {.work_ns = works[w]};
      const uint32_t count[3] = {grids[g], 1, 1};
      int joined = 0;
      for (int i = 0; i < n; ++i) {
        atomic_store(&c.worker_groups, 0);
        const uint64_t s = now_ns();
        kiln_task_pool_dispatch(pool, count, workgroup, &c);
        t[i] = now_ns() - s;
        joined += atomic_load(&c.worker_groups) > 0;
      }
      qsort(t, (size_t)n, sizeof *t, cmp_u64);
      const double serial = (double)grids[g] * (double)works[w] / 1e3;
      printf("  %2u x %4.0f us: median %8.2f us, min %8.2f us (ideal %7.2f, "
             "serial %7.2f); worker joined %3d%%\n",
             grids[g], (double)works[w] / 1e3, (double)t[n / 2] / 1e3,
             (double)t[0] / 1e3, serial / 2, serial, joined * 100 / n);
    }
  printf("wake-up after an idle gap (2 x 50 us dispatches):\n");
  static const uint64_t gaps_us[] = {5, 30, 200, 2000};
  for (unsigned g = 0; g < 4; ++g) {
    ctx_t c = {.work_ns = 50000};
    const uint32_t count[3] = {2, 1, 1};
    int m = 0;
    for (int i = 0; i < n / 2; ++i) {
      for (const uint64_t end = now_ns() + gaps_us[g] * 1000; now_ns() < end;) {
      }
      atomic_store(&c.worker_start, 0);
      const uint64_t s = now_ns();
      kiln_task_pool_dispatch(pool, count, workgroup, &c);
      const uint64_t f = atomic_load(&c.worker_start);
      if (f) t[m++] = f - s;
    }
    if (m) qsort(t, (size_t)m, sizeof *t, cmp_u64);
    printf("  gap %4llu us: worker joined %3d%%; start latency median %8.2f us, "
           "min %8.2f us\n", (unsigned long long)gaps_us[g], m * 200 / n,
           m ? (double)t[m / 2] / 1e3 : 0.0, m ? (double)t[0] / 1e3 : 0.0);
  }
  free(t);
  kiln_task_pool_destroy(pool);
  return 0;
}
