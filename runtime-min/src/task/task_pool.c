/* The workgroup pool (see task_pool.h). One dispatch at a time per pool:
 * the submitter publishes it, then hands out tickets, at most one per
 * worker that can have a workgroup besides the submitter's own; a worker
 * that takes a ticket joins the dispatch, and everybody, the submitter
 * included, claims flattened workgroup indices until the grid is
 * exhausted or a workgroup failed. The grid is cut into one contiguous
 * chunk per participant (the submitter's first, then one per ticket in
 * the order they are taken), each with its own atomic counter: a
 * participant claims from its chunk first, then from the others, so
 * consecutive dispatches split the same way (rows, say) hand each thread
 * the part of the data it wrote itself, in its own cache, and a worker
 * that joins late or not at all still leaves no workgroup unclaimed. When the submitter
 * runs out of workgroups it withdraws the tickets nobody took and waits
 * only for the workers that joined, so no worker can still touch the
 * dispatch (or the caller's ctx) once kiln_task_pool_dispatch returns,
 * and a small dispatch that the submitter finishes before any worker is
 * awake never waits for a wake-up.
 *
 * Wake-up: a worker that finished a dispatch spins (pause, then yield)
 * for up to KILN_TASK_SPIN_NS watching for tickets before it sleeps on a
 * condition variable, so back-to-back dispatches (a model's kernels) reach
 * awake workers with no system call; the submitter signals only when
 * workers sleep, and only as many as it has tickets. Waiting for joined
 * workers spins the same way before it sleeps. */
#include "task_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long an idle worker (or a waiting submitter) spins before it
 * sleeps: longer than a model's gap between two dispatches (a few
 * microseconds of VM work), short enough that an idle pool costs nothing
 * measurable. */
#define KILN_TASK_SPIN_NS 50000

/* Stack a worker faults in once at start: kernels keep packed panels and
 * staging buffers on the stack (the convolution path's weight panel is up
 * to 256 KiB), and a worker first running such a kernel on some later
 * call would otherwise fault there, whichever worker draws it first. */
#define KILN_TASK_STACK_PREFAULT (512u << 10)

/* The tickets word: tickets left to take (high half) and workers that took
 * one and have not left (low half), changed together so that withdrawing
 * the tickets and counting the joined workers cannot race. */
#define TICKET ((uint64_t)1 << 32)
#define JOINED_MASK (TICKET - 1)

/* One participant's share of the grid: [next, end) left to claim. */
typedef struct chunk {
  _Alignas(64) atomic_uint_fast64_t next;
  uint64_t end;
} chunk_t;

typedef struct worker {
  struct kiln_task_pool *pool;
  uint32_t id;
  pthread_t thread;
} worker_t;

struct kiln_task_pool {
  pthread_mutex_t submit; /* serializes dispatches from several threads */
  pthread_mutex_t lock;   /* sleeping and waking */
  pthread_cond_t wake;    /* workers: tickets or shutdown */
  pthread_cond_t done;    /* submitter: the last joined worker left */
  atomic_uint_fast64_t tickets;
  atomic_uint sleepers;        /* workers in (or entering) wait on `wake` */
  atomic_int submitter_sleeps; /* the submitter waits (or will) on `done` */
  atomic_int shutdown;
  bool kernel_stacks; /* workers fault KILN_TASK_STACK_PREFAULT in at start */
  uint32_t ready;     /* workers past their stack prefault, under lock */
  /* The dispatch in flight, published before its tickets. */
  kiln_task_workgroup_fn fn;
  void *ctx;
  uint32_t count_x, count_y;
  uint64_t total;
  uint32_t chunk_count;
  chunk_t *chunks; /* worker_count + 1 */
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

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* Spins until ready(p) or KILN_TASK_SPIN_NS passed; returns ready(p). The
 * first microseconds only pause; then each round also yields, so a spinner
 * on a busy machine gives its core to whoever has work. */
static int spin_until(struct kiln_task_pool *p,
                      int (*ready)(struct kiln_task_pool *)) {
  const uint64_t start = now_ns();
  for (uint32_t i = 1;; ++i) {
    if (ready(p)) return 1;
    cpu_relax();
    if (i % 64 == 0) {
      const uint64_t spent = now_ns() - start;
      if (spent > KILN_TASK_SPIN_NS) return ready(p);
      if (spent > KILN_TASK_SPIN_NS / 10) sched_yield();
    }
  }
}

static int tickets_or_shutdown(struct kiln_task_pool *p) {
  return (atomic_load(&p->tickets) >> 32) != 0 || atomic_load(&p->shutdown);
}

static int nobody_joined(struct kiln_task_pool *p) {
  return (atomic_load(&p->tickets) & JOINED_MASK) == 0;
}

/* Claims and runs workgroups, from chunk `own` first, then from the
 * others in turn, until none are left or one failed. */
static void run_workgroups(struct kiln_task_pool *p, uint32_t worker_id, uint32_t own) {
  uint64_t per_slice = (uint64_t)p->count_x * p->count_y;
  for (uint32_t c = own, left = p->chunk_count;;) {
    if (atomic_load_explicit(&p->status, memory_order_relaxed) != 0) return;
    chunk_t *ch = &p->chunks[c];
    uint64_t i = atomic_fetch_add_explicit(&ch->next, 1, memory_order_relaxed);
    if (i >= ch->end) {
      if (--left == 0) return;
      c = c + 1 == p->chunk_count ? 0 : c + 1;
      continue;
    }
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

/* Takes a ticket if one is left (joining the dispatch in flight): its
 * chunk (1 for the first ticket taken, ...), 0 when none was left. */
static uint32_t take_ticket(struct kiln_task_pool *p) {
  uint64_t t = atomic_load(&p->tickets);
  while (t >> 32)
    if (atomic_compare_exchange_weak(&p->tickets, &t, t - TICKET + 1))
      return p->chunk_count - (uint32_t)(t >> 32);
  return 0;
}

__attribute__((noinline)) static void prefault_stack(void) {
  volatile uint8_t *s = __builtin_alloca(KILN_TASK_STACK_PREFAULT);
  for (size_t i = 0; i < KILN_TASK_STACK_PREFAULT; i += 4096) s[i] = 0;
}

static void *worker_main(void *arg) {
  worker_t *w = arg;
  struct kiln_task_pool *p = w->pool;
  if (p->kernel_stacks) prefault_stack();
  pthread_mutex_lock(&p->lock);
  p->ready++;
  pthread_cond_signal(&p->done);
  pthread_mutex_unlock(&p->lock);
  while (!atomic_load(&p->shutdown)) {
    uint32_t own = take_ticket(p);
    if (own) {
      run_workgroups(p, w->id, own);
      /* Leave; the last one out wakes a sleeping submitter. */
      if ((atomic_fetch_sub(&p->tickets, 1) & JOINED_MASK) == 1 &&
          atomic_load(&p->submitter_sleeps)) {
        pthread_mutex_lock(&p->lock);
        pthread_cond_signal(&p->done);
        pthread_mutex_unlock(&p->lock);
      }
      continue;
    }
    if (spin_until(p, tickets_or_shutdown)) continue;
    pthread_mutex_lock(&p->lock);
    atomic_fetch_add(&p->sleepers, 1);
    /* Rechecked after announcing the sleep: a submitter that hands out
     * tickets after this sees sleepers and signals under the lock. */
    while (!tickets_or_shutdown(p)) pthread_cond_wait(&p->wake, &p->lock);
    atomic_fetch_sub(&p->sleepers, 1);
    pthread_mutex_unlock(&p->lock);
  }
  return NULL;
}

static void stop_workers(struct kiln_task_pool *p, uint32_t started) {
  pthread_mutex_lock(&p->lock);
  atomic_store(&p->shutdown, 1);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (uint32_t i = 0; i < started; i++) pthread_join(p->workers[i].thread, NULL);
}

static int create_pool(uint32_t workers, bool kernel_stacks, kiln_task_pool_t **out,
                       char *msg, size_t msg_cap) {
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
  chunk_t *chunks = aligned_alloc(_Alignof(chunk_t), (workers + 1u) * sizeof *chunks);
  if (!p || (workers && !ws) || !chunks) {
    free(p);
    free(ws);
    free(chunks);
    return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                "task pool: out of memory for %u workers", workers);
  }
  p->workers = ws;
  p->chunks = chunks;
  p->kernel_stacks = kernel_stacks;
  for (uint32_t i = 0; i <= workers; i++) {
    atomic_init(&chunks[i].next, 0);
    chunks[i].end = 0;
  }
  atomic_init(&p->tickets, 0);
  atomic_init(&p->sleepers, 0);
  atomic_init(&p->submitter_sleeps, 0);
  atomic_init(&p->shutdown, 0);
  atomic_init(&p->status, 0);
  int rc = pthread_mutex_init(&p->submit, NULL);
  if (!rc) rc = pthread_mutex_init(&p->lock, NULL);
  if (!rc) rc = pthread_cond_init(&p->wake, NULL);
  if (!rc) rc = pthread_cond_init(&p->done, NULL);
  if (rc) {
    free(ws);
    free(chunks);
    free(p);
    return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                "task pool: cannot create synchronization objects: %s",
                strerror(rc));
  }
  /* Stacks of at least 2 MiB whatever RLIMIT_STACK says: kernels' stack
   * buffers need room, and prefault_stack touches a quarter of it. */
  pthread_attr_t attr;
  size_t stack = 0;
  rc = pthread_attr_init(&attr);
  if (!rc && !pthread_attr_getstacksize(&attr, &stack) && stack < (2u << 20))
    rc = pthread_attr_setstacksize(&attr, 2u << 20);
  if (rc) {
    kiln_task_pool_destroy(p);
    return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                "task pool: cannot set worker stacks: %s", strerror(rc));
  }
  for (uint32_t i = 0; i < workers; i++) {
    ws[i].pool = p;
    ws[i].id = i + 1; /* 0 is the submitting thread */
    rc = pthread_create(&ws[i].thread, &attr, worker_main, &ws[i]);
    if (rc) {
      pthread_attr_destroy(&attr);
      stop_workers(p, i);
      p->worker_count = 0;
      kiln_task_pool_destroy(p);
      return fail(msg, msg_cap, KILN_TASK_ERR_SYSTEM,
                  "task pool: cannot start worker %u of %u: %s", i + 1, workers,
                  strerror(rc));
    }
  }
  pthread_attr_destroy(&attr);
  /* Ready when every worker is: no page fault of theirs lands in a call. */
  pthread_mutex_lock(&p->lock);
  while (p->ready < workers) pthread_cond_wait(&p->done, &p->lock);
  pthread_mutex_unlock(&p->lock);
  p->worker_count = workers;
  *out = p;
  return KILN_TASK_OK;
}

int kiln_task_pool_create(uint32_t workers, kiln_task_pool_t **out, char *msg,
                          size_t msg_cap) {
  return create_pool(workers, true, out, msg, msg_cap);
}

int kiln_task_pool_create_host(uint32_t workers, kiln_task_pool_t **out,
                               char *msg, size_t msg_cap) {
  return create_pool(workers, false, out, msg, msg_cap);
}

void kiln_task_pool_destroy(kiln_task_pool_t *p) {
  if (!p) return;
  if (p->worker_count) stop_workers(p, p->worker_count);
  pthread_cond_destroy(&p->done);
  pthread_cond_destroy(&p->wake);
  pthread_mutex_destroy(&p->lock);
  pthread_mutex_destroy(&p->submit);
  free(p->workers);
  free(p->chunks);
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
  atomic_store_explicit(&p->status, 0, memory_order_relaxed);
  /* One ticket per workgroup beyond the submitter's first, at most one per
   * worker: a single workgroup wakes nobody. */
  const uint64_t n = total - 1 < p->worker_count ? total - 1 : p->worker_count;
  /* n + 1 chunks of equal size, the larger ones first */
  p->chunk_count = (uint32_t)n + 1;
  for (uint64_t c = 0, at = 0; c <= n; c++) {
    uint64_t size = total / (n + 1) + (c < total % (n + 1));
    atomic_store_explicit(&p->chunks[c].next, at, memory_order_relaxed);
    p->chunks[c].end = at += size;
  }
  if (n) {
    /* Publishes the dispatch above to whoever takes a ticket. */
    atomic_store(&p->tickets, n << 32);
    const uint32_t sleeping = atomic_load(&p->sleepers);
    if (sleeping) {
      pthread_mutex_lock(&p->lock);
      for (uint64_t i = 0; i < n && i < sleeping; ++i)
        pthread_cond_signal(&p->wake);
      pthread_mutex_unlock(&p->lock);
    }
  }
  run_workgroups(p, 0, 0);
  if (n) {
    /* Withdraws the tickets nobody took; waits for those who did. */
    uint64_t t = atomic_load(&p->tickets);
    while (!atomic_compare_exchange_weak(&p->tickets, &t, t & JOINED_MASK)) {
    }
    if (!spin_until(p, nobody_joined)) {
      pthread_mutex_lock(&p->lock);
      atomic_store(&p->submitter_sleeps, 1);
      while (!nobody_joined(p)) pthread_cond_wait(&p->done, &p->lock);
      atomic_store(&p->submitter_sleeps, 0);
      pthread_mutex_unlock(&p->lock);
    }
  }
  int status = atomic_load(&p->status);
  pthread_mutex_unlock(&p->submit);
  return status;
}
