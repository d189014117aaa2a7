/* Unit tests of runtime-min/src/task: every workgroup of a 3-D grid runs
 * exactly once with valid worker ids, a failing workgroup's status comes
 * back and the pool stays usable, several threads may dispatch at once,
 * and workers really run in parallel with the caller (checked by a
 * rendezvous, not by timing); dispatches of every size, to spinning and
 * to sleeping workers, run each workgroup once; workers' stacks hold
 * large kernel buffers whatever the default thread stack, and faulted in
 * once, fault no page in later dispatches; a host pool's are not faulted
 * in ahead. */
#define _GNU_SOURCE
#include <check.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "task_pool.h"

typedef struct grid_ctx {
  uint32_t nx, ny, nz, concurrency;
  atomic_int *hits;
  atomic_int bad_worker;
} grid_ctx_t;

static int count_hit(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  grid_ctx_t *g = c;
  if (x >= g->nx || y >= g->ny || z >= g->nz || w >= g->concurrency) {
    atomic_fetch_add(&g->bad_worker, 1);
    return 0;
  }
  atomic_fetch_add(&g->hits[(z * g->ny + y) * g->nx + x], 1);
  return 0;
}

static void run_grid(kiln_task_pool_t *pool, uint32_t nx, uint32_t ny, uint32_t nz) {
  grid_ctx_t g = {nx, ny, nz, kiln_task_pool_concurrency(pool), NULL, 0};
  size_t n = (size_t)nx * ny * nz;
  g.hits = calloc(n ? n : 1, sizeof *g.hits);
  uint32_t count[3] = {nx, ny, nz};
  ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, count_hit, &g), 0);
  for (size_t i = 0; i < n; i++)
    ck_assert_msg(atomic_load(&g.hits[i]) == 1, "workgroup %zu ran %d times", i,
                  atomic_load(&g.hits[i]));
  ck_assert_int_eq(atomic_load(&g.bad_worker), 0);
  free(g.hits);
}

START_TEST(default_pool_covers_grid) {
  kiln_task_pool_t *pool;
  char msg[128];
  ck_assert_int_eq(kiln_task_pool_create(KILN_TASK_DEFAULT_WORKERS, &pool, msg,
                                         sizeof msg), 0);
  ck_assert_uint_eq(kiln_task_pool_concurrency(pool),
                    (uint32_t)sysconf(_SC_NPROCESSORS_ONLN) + 1);
  run_grid(pool, 7, 5, 3);
  run_grid(pool, 1, 1, 1);
  run_grid(pool, 1000, 1, 1);
  run_grid(pool, 0, 5, 3); /* empty: nothing runs */
  for (int i = 0; i < 200; i++) run_grid(pool, 3, 2, 1);
  kiln_task_pool_destroy(pool);
}
END_TEST

START_TEST(worker_counts) {
  for (uint32_t workers = 0; workers <= 5; workers++) {
    kiln_task_pool_t *pool;
    ck_assert_int_eq(kiln_task_pool_create(workers, &pool, NULL, 0), 0);
    ck_assert_uint_eq(kiln_task_pool_concurrency(pool), workers + 1);
    run_grid(pool, 4, 4, 4);
    kiln_task_pool_destroy(pool);
  }
  kiln_task_pool_destroy(NULL);
  kiln_task_pool_t *pool = (kiln_task_pool_t *)&pool;
  char msg[128];
  ck_assert_int_eq(kiln_task_pool_create(KILN_TASK_MAX_WORKERS + 1, &pool, msg,
                                         sizeof msg), KILN_TASK_ERR_INVALID);
  ck_assert_ptr_null(pool);
  ck_assert_str_eq(msg, "task pool: 1025 workers requested, at most 1024 supported");
}
END_TEST

static int only_caller(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  return w == 0 ? 0 : 99;
}

START_TEST(zero_workers_runs_on_caller) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(0, &pool, NULL, 0), 0);
  uint32_t count[3] = {9, 9, 9};
  ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, only_caller, NULL), 0);
  kiln_task_pool_destroy(pool);
}
END_TEST

typedef struct fail_ctx {
  atomic_int ran;
} fail_ctx_t;

static int fail_at_321(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  atomic_fetch_add(&((fail_ctx_t *)c)->ran, 1);
  return x == 3 && y == 2 && z == 1 ? 42 : 0;
}

START_TEST(failing_workgroup) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(3, &pool, NULL, 0), 0);
  uint32_t count[3] = {8, 4, 4};
  for (int round = 0; round < 20; round++) {
    fail_ctx_t f = {0};
    ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, fail_at_321, &f), 42);
    ck_assert_int_ge(atomic_load(&f.ran), 1);
    ck_assert_int_le(atomic_load(&f.ran), 8 * 4 * 4);
    run_grid(pool, 8, 4, 4); /* the pool recovers */
  }
  kiln_task_pool_destroy(pool);
}
END_TEST

START_TEST(grid_too_large) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(1, &pool, NULL, 0), 0);
  uint32_t count[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
  ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, only_caller, NULL),
                   KILN_TASK_ERR_GRID_TOO_LARGE);
  kiln_task_pool_destroy(pool);
}
END_TEST

/* Each submitter thread sums its own grid many times on one shared pool. */
typedef struct sum_ctx {
  atomic_long sum;
} sum_ctx_t;

static int add_index(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  atomic_fetch_add(&((sum_ctx_t *)c)->sum, (long)(x + 10 * y + 100 * z));
  return 0;
}

typedef struct submitter {
  kiln_task_pool_t *pool;
  uint32_t nx;
  int failures;
  pthread_t thread;
} submitter_t;

static void *submit_many(void *arg) {
  submitter_t *s = arg;
  uint32_t count[3] = {s->nx, 3, 2};
  long expect = 0;
  for (uint32_t z = 0; z < 2; z++)
    for (uint32_t y = 0; y < 3; y++)
      for (uint32_t x = 0; x < s->nx; x++) expect += x + 10 * y + 100 * z;
  for (int i = 0; i < 300; i++) {
    sum_ctx_t c = {0};
    if (kiln_task_pool_dispatch(s->pool, count, add_index, &c) != 0 ||
        atomic_load(&c.sum) != expect)
      s->failures++;
  }
  return NULL;
}

START_TEST(concurrent_submitters) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(2, &pool, NULL, 0), 0);
  submitter_t s[4];
  for (int i = 0; i < 4; i++) {
    s[i] = (submitter_t){pool, (uint32_t)(5 + i), 0, 0};
    ck_assert_int_eq(pthread_create(&s[i].thread, NULL, submit_many, &s[i]), 0);
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(s[i].thread, NULL);
    ck_assert_int_eq(s[i].failures, 0);
  }
  kiln_task_pool_destroy(pool);
}
END_TEST

/* Workgroup 0 cannot finish before another thread has entered workgroup 1,
 * so the dispatch completes only if a worker runs alongside the caller. */
typedef struct rendezvous {
  atomic_int arrived;
  atomic_int distinct_workers_mask;
} rendezvous_t;

static int meet(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  rendezvous_t *r = c;
  atomic_fetch_or(&r->distinct_workers_mask, 1 << w);
  atomic_fetch_add(&r->arrived, 1);
  while (atomic_load(&r->arrived) < 2) sched_yield();
  return 0;
}

START_TEST(workers_run_in_parallel) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(1, &pool, NULL, 0), 0);
  for (int i = 0; i < 50; i++) {
    rendezvous_t r = {0, 0};
    uint32_t count[3] = {2, 1, 1};
    ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, meet, &r), 0);
    ck_assert_int_eq(atomic_load(&r.distinct_workers_mask), 3);
  }
  kiln_task_pool_destroy(pool);
}
END_TEST

/* Sizes 1..17 back to back (workers spinning) and after pauses longer than
 * their spin (workers asleep), so tickets are taken, withdrawn untaken and
 * signalled in every order. */
START_TEST(spinning_and_sleeping_workers) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(3, &pool, NULL, 0), 0);
  for (uint32_t i = 0; i < 600; i++) {
    if (i % 10 == 0) usleep(200);
    run_grid(pool, 1 + i % 17, 1, 1);
  }
  kiln_task_pool_destroy(pool);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#endif
#ifndef TEST_ASAN
#define TEST_ASAN 0
#endif

/* A workgroup with a kernel-sized stack buffer (a packed panel). */
enum { STACK_BUFFER = 384 << 10, HUGE_STACK_BUFFER = 1 << 20 };

static int use_stack(void *c, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
  volatile uint8_t *buf = __builtin_alloca(STACK_BUFFER);
  memset((void *)buf, (int)x, STACK_BUFFER);
  atomic_fetch_or((atomic_int *)c, 1 << w);
  return buf[STACK_BUFFER - 1] == (uint8_t)x ? 0 : 1;
}

START_TEST(stack_buffers_fault_nothing_later) {
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(3, &pool, NULL, 0), 0);
  atomic_int who = 0;
  uint32_t one[3] = {1, 1, 1}, many[3] = {64, 1, 1};
  /* The caller's own stack is the test's: fault it in once. */
  ck_assert_int_eq(kiln_task_pool_dispatch(pool, one, use_stack, &who), 0);
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  for (int i = 0; i < 50; i++)
    ck_assert_int_eq(kiln_task_pool_dispatch(pool, many, use_stack, &who), 0);
  getrusage(RUSAGE_SELF, &after);
  /* The kernel's count: NUMA balancing's hinting faults may land on any
   * page, and AddressSanitizer's shadow of each new stack depth faults
   * too. So fewer than one per dispatch (workers meeting the buffer
   * fresh fault 96 pages each: 288 on the pool before the prefault), and
   * not under ASan. */
#if TEST_ASAN
  printf("note: page faults not checked under AddressSanitizer\n");
#else
  ck_assert_int_lt(after.ru_minflt - before.ru_minflt, 50);
#endif
  kiln_task_pool_destroy(pool);
}
END_TEST

static int workers_use_huge_stack(void *c, uint32_t x, uint32_t y, uint32_t z,
                                  uint32_t w) {
  rendezvous_t *r = c;
  if (w == 0) { /* the caller waits until a worker took its share */
    while (atomic_load(&r->arrived) == 0) sched_yield();
    return 0;
  }
  volatile uint8_t *buf = __builtin_alloca(HUGE_STACK_BUFFER);
  memset((void *)buf, 1, HUGE_STACK_BUFFER);
  atomic_fetch_add(&r->arrived, 1);
  return buf[0] == 1 ? 0 : 1;
}

/* Workers get 2 MiB stacks even when the default thread stack is small. */
START_TEST(worker_stacks_are_large) {
  pthread_attr_t small;
  ck_assert_int_eq(pthread_attr_init(&small), 0);
  ck_assert_int_eq(pthread_attr_setstacksize(&small, 64 << 10), 0);
  ck_assert_int_eq(pthread_setattr_default_np(&small), 0);
  kiln_task_pool_t *pool;
  ck_assert_int_eq(kiln_task_pool_create(1, &pool, NULL, 0), 0);
  rendezvous_t r = {0, 0};
  uint32_t count[3] = {2, 1, 1};
  ck_assert_int_eq(kiln_task_pool_dispatch(pool, count, workers_use_huge_stack, &r), 0);
  ck_assert_int_eq(atomic_load(&r.arrived), 1);
  kiln_task_pool_destroy(pool);
  pthread_attr_destroy(&small);
}
END_TEST

/* A kernel pool's workers fault their first 512 KiB of stack in before
 * create returns (128 pages each); a host pool's (no kernels) do not, and
 * still run every part of a grid. */
START_TEST(host_pool_faults_no_stack_ahead) {
  struct rusage before, middle, after;
  kiln_task_pool_t *kernels, *host;
  getrusage(RUSAGE_SELF, &before);
  ck_assert_int_eq(kiln_task_pool_create(2, &kernels, NULL, 0), 0);
  getrusage(RUSAGE_SELF, &middle);
  ck_assert_int_eq(kiln_task_pool_create_host(2, &host, NULL, 0), 0);
  getrusage(RUSAGE_SELF, &after);
#if TEST_ASAN
  printf("note: page faults not checked under AddressSanitizer\n");
#else
  /* (a few of the 128 pages may be in already: the thread's first frames) */
  ck_assert_int_ge(middle.ru_minflt - before.ru_minflt, 2 * 100);
  ck_assert_int_lt(after.ru_minflt - middle.ru_minflt, 100);
#endif
  ck_assert_uint_eq(kiln_task_pool_concurrency(host), 3);
  run_grid(host, 7, 5, 3);
  kiln_task_pool_destroy(host);
  kiln_task_pool_destroy(kernels);
}
END_TEST

START_TEST(create_destroy_cycles) {
  for (int i = 0; i < 100; i++) {
    kiln_task_pool_t *pool;
    ck_assert_int_eq(kiln_task_pool_create(3, &pool, NULL, 0), 0);
    if (i % 2) run_grid(pool, 3, 3, 1);
    kiln_task_pool_destroy(pool);
  }
}
END_TEST

static Suite *task_suite(void) {
  Suite *s = suite_create("task");
  TCase *tc = tcase_create("pool");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, default_pool_covers_grid);
  tcase_add_test(tc, worker_counts);
  tcase_add_test(tc, zero_workers_runs_on_caller);
  tcase_add_test(tc, failing_workgroup);
  tcase_add_test(tc, grid_too_large);
  tcase_add_test(tc, concurrent_submitters);
  tcase_add_test(tc, workers_run_in_parallel);
  tcase_add_test(tc, create_destroy_cycles);
  tcase_add_test(tc, spinning_and_sleeping_workers);
  tcase_add_test(tc, stack_buffers_fault_nothing_later);
  tcase_add_test(tc, worker_stacks_are_large);
  tcase_add_test(tc, host_pool_faults_no_stack_ahead);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(task_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
