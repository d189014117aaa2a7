/* The workgroup pool (see task_pool.h). One dispatch at a time per pool:
 * the submitter publishes it under `lock`, bumps `generation` and wakes the
 * workers; everybody, the submitter included, then claims flattened
 * workgroup indices from the atomic `next` until the grid is exhausted or a
 * workgroup failed. The submitter waits until every worker has reported
 * back for this generation, so no worker can still touch the dispatch (or
 * the caller's ctx) once kiln_task_pool_dispatch returns, and no worker can
 * miss a generation. */
#include "task_pool.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct worker {
  struct kiln_task_pool *pool;
  uint32_t id;
  pthread_t thread;
} worker_t;

struct kiln_task_pool {
  pthread_mutex_t submit; /* serializes dispatches from several threads */
  pthread_mutex_t lock;   /* guards everything below but the atomics */
  pthread_cond_t wake;    /* workers: a new generation or shutdown */
  pthread_cond_t done;    /* submitter: `active` reached zero */
  uint64_t generation;
  int shutdown;
  uint32_t active; /* workers not yet finished with this generation */
  /* The dispatch in flight. */
  kiln_task_workgroup_fn fn;
  void *ctx;
  uint32_t count_x, count_y;
  uint64_t total;
  atomic_uint_fast64_t next;
  atomic_int status;
  uint32_t worker_count;
  worker_t *workers;
};

static int fail(char *msg, size_t msg_cap, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail(char *msg, size_t msg_cap, int code, const char *fmt, ...) {
  if (msg && msg_cap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, msg_cap, fmt, ap);
    va_end(ap);
  }
  return code;
}

/* Claims and runs workgroups until none are left or one failed. */
static void run_workgroups(struct kiln_task_pool *p, uint32_t worker_id) {
  uint64_t per_slice = (uint64_t)p->count_x * p->count_y;
  for (;;) {
    if (atomic_load_explicit(&p->status, memory_order_relaxed) != 0) return;
    uint64_t i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
    if (i >= p->total) return;
    uint32_t z = (uint32_t)(i / per_slice);
    uint64_t r = i % per_slice;
    uint32_t y = (uint32_t)(r / p->count_x), x = (uint32_t)(r % p->count_x);
    int rc = p->fn(p->ctx, x, y, z, worker_id);
    if (rc != 0) {
      int expected = 0;
      atomic_compare_exchange_strong(&p->status, &expected, rc);
    }
  }
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  struct kiln_task_pool *p = w->pool;
  uint64_t seen = 0;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (!p->shutdown && p->generation == seen)
      pthread_cond_wait(&p->wake, &p->lock);
    if (p->shutdown) break;
    seen = p->generation;
    pthread_mutex_unlock(&p->lock);
    run_workgroups(p, w->id);
    pthread_mutex_lock(&p->lock);
    if (--p->active == 0) pthread_cond_signal(&p->done);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

static void stop_workers(struct kiln_task_pool *p, uint32_t started) {
  pthread_mutex_lock(&p->lock);
  p->shutdown = 1;
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (uint32_t i = 0; i < started; i++) pthread_join(p->workers[i].thread, NULL);
}

int kiln_task_pool_create(uint32_t workers, kiln_task_pool_t **out, char *msg,
                          size_t msg_cap) {
  *out = NULL;
  if (workers == KILN_TASK_DEFAULT_WORKERS) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    workers = n < 1 ? 1u : n > (long)KILN_TASK_MAX_WORKERS ? KILN_TASK_MAX_WORKERS
                                                           : (uint32_t)n;
  }
  if (workers > KILN_TASK_MAX_WORKERS)
    return fail(msg, msg_cap, KILN_TASK_ERR_INVALID,
                "task pool: %u workers requested, at most %u supported",
                workers, KILN_TASK_MAX_WORKERS);
  struct kiln_task_pool *p = calloc(1, sizeof *p);
  worker_t *ws = workers ? calloc(workers, sizeof *ws) : NULL;
  if (!p || (workers && !ws)) {
    free(p);
    free(ws);
    return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                "task pool: out of memory for %u workers", workers);
  }
  p->workers = ws;
  atomic_init(&p->next, 0);
  atomic_init(&p->status, 0);
  int rc = pthread_mutex_init(&p->submit, NULL);
  if (!rc) rc = pthread_mutex_init(&p->lock, NULL);
  if (!rc) rc = pthread_cond_init(&p->wake, NULL);
  if (!rc) rc = pthread_cond_init(&p->done, NULL);
  if (rc) {
    free(ws);
    free(p);
    return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                "task pool: cannot create synchronization objects: %s",
                strerror(rc));
  }
  for (uint32_t i = 0; i < workers; i++) {
    ws[i].pool = p;
    ws[i].id = i + 1; /* 0 is the submitting thread */
    rc = pthread_create(&ws[i].thread, NULL, worker_main, &ws[i]);
    if (rc) {
      stop_workers(p, i);
      p->worker_count = 0;
      kiln_task_pool_destroy(p);
      return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                  "task pool: cannot start worker %u of %u: %s", i + 1, workers,
                  strerror(rc));
    }
  }
  p->worker_count = workers;
  *out = p;
  return KILN_TASK_OK;
}

void kiln_task_pool_destroy(kiln_task_pool_t *p) {
  if (!p) return;
  if (p->worker_count) stop_workers(p, p->worker_count);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->submit);
  free(p->workers);
  free(p);
}

uint32_t kiln_task_pool_concurrency(const kiln_task_pool_t *p) {
  return p->worker_count + 1;
}

int kiln_task_pool_dispatch(kiln_task_pool_t *p, const uint32_t count[3],
                            kiln_task_workgroup_fn fn, void *ctx) {
  uint64_t xy = (uint64_t)count[0] * count[1], total;
  if (__builtin_mul_overflow(xy, (uint64_t)count[2], &total))
    return KILN_TASK_ERR_GRID_TOO_LARGE;
  if (total == 0) return 0;

  pthread_mutex_lock(&p->submit);
  p->fn = fn;
  p->ctx = ctx;
  p->count_x = count[0];
  p->count_y = count[1];
  p->total = total;
  atomic_store_explicit(&p->next, 0, memory_order_relaxed);
  atomic_store_explicit(&p->status, 0, memory_order_relaxed);
  /* One workgroup, or no workers: waking anybody would only cost. */
  int wake = total > 1 && p->worker_count > 0;
  if (wake) {
    pthread_mutex_lock(&p->lock);
    p->active = p->worker_count;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
  }
  run_workgroups(p, 0);
  if (wake) {
    pthread_mutex_lock(&p->lock);
    while (p->active) pthread_cond_wait(&p->done, &p->lock);
    pthread_mutex_unlock(&p->lock);
  }
  int status = atomic_load(&p->status);
  pthread_mutex_unlock(&p->submit);
  return status;
}
