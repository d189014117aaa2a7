/* The allocator contract: a libc-backed default and zeroing helpers the
 * rest of the runtime uses, so every allocation goes through the
 * caller-supplied allocator; and the devices' pools of per-call memory
 * over it (see krt_pool_alloc). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "runtime_internal.h"

static void *system_alloc(void *self, size_t size, size_t alignment) {
  (void)self;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  /* aligned_alloc wants a multiple of the alignment. */
  size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  if (rounded < size) return NULL;
  return aligned_alloc(alignment, rounded ? rounded : alignment);
}

static void system_free(void *self, void *ptr) {
  (void)self;
  free(ptr);
}

kiln_allocator_t kiln_allocator_system(void) {
  kiln_allocator_t a = {NULL, system_alloc, system_free};
  return a;
}

void *krt_alloc_aligned(const kiln_allocator_t *a, size_t size,
                        size_t alignment) {
  void *p = a->alloc(a->self, size ? size : 1, alignment);
  if (p) memset(p, 0, size);
  return p;
}

void *krt_alloc(const kiln_allocator_t *a, size_t size) {
  return krt_alloc_aligned(a, size, 16);
}

void krt_free(const kiln_allocator_t *a, void *ptr) {
  if (ptr) a->free(a->self, ptr);
}

/* A pool block: this header, then 2^(cls + 6) bytes for the caller. */
typedef struct pool_block {
  struct pool_block *next;
  uint32_t cls;
  uint8_t pad[64 - sizeof(void *) - sizeof(uint32_t)];
} pool_block_t;

/* KILN_WITH_HUGE_PAGES (the KILN_RUNTIME_HUGE_PAGES option): big blocks'
 * page sizes chosen below; without it they are plain memset (smallest
 * builds, and kernels without transparent huge pages). */
#if defined(KILN_WITH_HUGE_PAGES) && defined(MADV_HUGEPAGE) && defined(MADV_NOHUGEPAGE)
#define KRT_HUGE_PAGES 1
#define KRT_CHUNK ((size_t)2 << 20)

/* Fresh big blocks are faulted in by chunks of 2 MiB, each in one
 * transparent huge page (a trial on the calling thread) or in 4 KiB pages
 * (in pieces over the device's host threads where it has several:
 * local-task's workers, local-sync's helper). Which is cheaper is the
 * machine's, and changes under the same code, so it is measured here, in
 * this process, by the thread CPU time each way costs (the faulting
 * thread pays it, hypervisor stalls included; other processes' load is
 * not in it). On this Firecracker VM (kernel 6.18, virtio-balloon, 2
 * cores), per 2 MiB of thread CPU time: a huge page 0.17-0.4 ms while
 * the kernel has 2 MiB blocks freed moments ago (probe_fresh_memory, even
 * after 3 s idle at load 9), 2.6-4.8 ms once the host took them back (free
 * page reporting; the lead's measurement on 2026-11-28, 1.3-2.4 ms/MB);
 * 4 KiB pages 0.75 ms in session 18 but 5-8 ms on 2026-11-28, most of it
 * at the first user write to each page after MADV_POPULATE_WRITE had
 * mapped it (probe_fresh_memory small-pw, 8 MiB: 3.3-5.2 ms to populate,
 * then 18-26 ms of first writes). The
 * costs, in microseconds of thread CPU time per chunk, 0 until measured;
 * process-wide, as the kernel's state is: */
static _Atomic uint32_t huge_us;  /* the last trial: fault + its chunk */
static _Atomic uint32_t small_us; /* the last spread, CPU summed over threads */
static _Atomic uint32_t spread_x16; /* that spread's CPU / wall, x16 */
/* Until 4 KiB pages are measured, a trial whose fault takes over this is
 * taken as cold (the next chunk goes in 4 KiB pages, which measures
 * them): the warm/cold boundary on this VM (above), a prior that one
 * chunk settles. */
#define KRT_COLD_PRIOR_US 1000u
/* Until then too, a block's tail takes a huge page from 256 KiB on (what
 * 2 MiB of warm huge page cost against 4 KiB pages in session 18); once
 * both are measured, from where its 4 KiB pages would cost more. */
#define KRT_HUGE_TAIL ((size_t)256 << 10)
/* What goes in 4 KiB pages is split in pieces this size: the host
 * threads take them in turn, so 3 chunks' worth keep two threads busy to
 * the end (2 MiB pieces went 2 and 1). */
#define KRT_SMALL_PIECE ((size_t)512 << 10)

static uint64_t clock_ns(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint32_t to_us(uint64_t ns) {
  return ns / 1000 >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)(ns / 1000) + 1;
}

/* What a chunk in 4 KiB pages costs the caller's wait on device d: the
 * measured CPU time over the measured speedup of d's threads (one where
 * it has none); the prior while unmeasured. */
static uint32_t small_wall_us(const kiln_device_t *d) {
  const uint32_t s = atomic_load_explicit(&small_us, memory_order_relaxed);
  if (!s) return KRT_COLD_PRIOR_US;
  const uint32_t x = d->host_parallel ? atomic_load_explicit(&spread_x16, memory_order_relaxed) : 16;
  return (uint32_t)((uint64_t)s * 16 / (x > 16 ? x : 16));
}

void krt_page_costs_set(uint32_t huge, uint32_t small, uint32_t spread) {
  atomic_store(&huge_us, huge);
  atomic_store(&small_us, small);
  atomic_store(&spread_x16, spread);
}

typedef struct touch_job {
  char *b;
  size_t used, from, end; /* 4 KiB pages: [from, end) */
  bool zero;
  _Atomic uint64_t cpu_ns; /* the pieces' thread CPU time */
} touch_job_t;

/* Faults [p, p + n) in writable: one madvise where the kernel has
 * MADV_POPULATE_WRITE (Linux 5.14; maps the 4 KiB pages without a trap
 * each: 8 MiB populated and written 21 ms here, against 34 ms by a write
 * per page alone), then a write per 4 KiB page or the zeroing memset. The
 * writes are not redundant: on this VM the first user write to each
 * populated page still costs ~9 us (hypervisor work the guest cannot
 * see), and paid here it is measured and shared by the host threads
 * instead of landing in the first dispatch (matmul 1024^3's output: its
 * one dispatch 6-13 ms slower than steady on local-sync). */
static void touch(const touch_job_t *j, size_t at, size_t n) {
  char *p = j->b + at;
#ifdef MADV_POPULATE_WRITE
  char *lo = (char *)((uintptr_t)p & ~(uintptr_t)4095);
  (void)madvise(lo, (size_t)(p + n - lo), MADV_POPULATE_WRITE);
#endif
  if (j->zero) memset(p, 0, n);
  else
    for (size_t k = 0; k < n; k += 4096) ((volatile char *)p)[k] = 0;
}

/* One trial: the chunk at `at` in a huge page, its cost recorded; true
 * while huge pages stay the cheaper way on d. Until 4 KiB pages are
 * measured, the fault alone meets the prior (what that boundary was
 * measured on), not the chunk's zeroing after it. */
static bool touch_huge(const kiln_device_t *d, const touch_job_t *j, size_t at) {
  const size_t n = j->used - at < KRT_CHUNK ? j->used - at : KRT_CHUNK;
  const uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  *(volatile char *)(j->b + at) = 0;
  const uint64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  touch(j, at, n);
  const uint32_t c = to_us(clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0);
  atomic_store_explicit(&huge_us, c, memory_order_relaxed);
  return atomic_load_explicit(&small_us, memory_order_relaxed) ? c <= small_wall_us(d)
                                                               : to_us(t1 - t0) <= KRT_COLD_PRIOR_US;
}

static void touch_piece(void *ctx, uint32_t k) {
  touch_job_t *j = ctx;
  const size_t at = j->from + (size_t)k * KRT_SMALL_PIECE;
  const uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  touch(j, at, j->end - at < KRT_SMALL_PIECE ? j->end - at : KRT_SMALL_PIECE);
  atomic_fetch_add_explicit(&j->cpu_ns, clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0,
                            memory_order_relaxed);
}

/* [at, end) in 4 KiB pages, in pieces over d's host threads where it has
 * several; a piece's worth and more also measures what a chunk cost and
 * how far the threads divided it (under other processes' load, less). */
static void spread(kiln_device_t *d, touch_job_t *j, size_t at, size_t end) {
  j->from = at, j->end = end;
  atomic_store_explicit(&j->cpu_ns, 0, memory_order_relaxed);
  const uint32_t pieces = (uint32_t)((end - at + KRT_SMALL_PIECE - 1) / KRT_SMALL_PIECE);
  const uint64_t w0 = clock_ns(CLOCK_MONOTONIC);
  if (d->host_parallel && pieces > 1) d->host_parallel(d, pieces, touch_piece, j);
  else
    for (uint32_t k = 0; k < pieces; ++k) touch_piece(j, k);
  if (end - at < KRT_SMALL_PIECE) return;
  const uint64_t cpu = atomic_load_explicit(&j->cpu_ns, memory_order_relaxed);
  const uint64_t wall = clock_ns(CLOCK_MONOTONIC) - w0, x = wall ? cpu * 16 / wall : 16;
  atomic_store_explicit(&small_us, to_us(cpu * KRT_CHUNK / (end - at)), memory_order_relaxed);
  if (d->host_parallel && pieces > 1)
    atomic_store_explicit(&spread_x16, (uint32_t)(x > 16 * 64 ? 16 * 64 : x), memory_order_relaxed);
}

/* Touches a fresh block of `bytes` (2 MiB-aligned, over 2 MiB), its first
 * `used` bytes zeroed when `zero` (else only faulted in: not a second
 * pass over megabytes the kernel just cleared and the program
 * overwrites). Huge-page trials run on the calling thread alone, in
 * order, while each costs no more than a chunk of 4 KiB pages would over
 * the host threads: a cold huge page costs its milliseconds on whichever
 * thread faults it, and trials on two threads at once meet one more
 * often (a huge page freed moments ago waits on the freeing core's own
 * list; ResNet-18's first call met one in 9 of 14 processes with a trial
 * per thread, 3 of 14 on the caller alone, session 18). After a dearer
 * trial, chunks go in 4 KiB pages (offered to khugepaged for the steady
 * state's TLB) while the last trial stays dearer than they measure; a VM's
 * host keeps the blocks it took back, so blocks skip trials then too.
 * Hints only: where the kernel or the allocator's memory cannot, nothing
 * changes but the measured costs.
 * probe_first_call (bench/runtime) counts a first call's faults and huge
 * pages. */
static void touch_big_block(kiln_device_t *d, char *b, size_t bytes, size_t used, bool zero) {
  const size_t span = (bytes + 4095) & ~(size_t)4095;
  const uint32_t h = atomic_load_explicit(&huge_us, memory_order_relaxed);
  const uint32_t s = atomic_load_explicit(&small_us, memory_order_relaxed);
  const uint32_t sw = small_wall_us(d);
  /* Huge pages for whole chunks and a tail that would cost more in 4 KiB
   * pages (not past it: a later, larger use of the block must not fault
   * huge pages in), marked in one madvise before any chunk is touched:
   * marking a chunk while another thread faults in the same mapping waits
   * for that fault (the mapping's lock), so chunks marked one by one took
   * turns (a worker's chunk: 173-195 us of wall time for 110-127 of CPU). */
  const size_t whole = used & ~(KRT_CHUNK - 1), tail = used - whole;
  const bool tail_huge = tail && (s && h ? (uint64_t)tail * sw >= (uint64_t)h * KRT_CHUNK
                                         : tail >= KRT_HUGE_TAIL);
  const size_t mark = whole + (tail_huge ? KRT_CHUNK : 0);
  const bool trials = mark && (!h || h <= sw);
  if (trials) madvise(b, mark, MADV_HUGEPAGE);
  if (span > (trials ? mark : 0))
    madvise(b + (trials ? mark : 0), span - (trials ? mark : 0), MADV_NOHUGEPAGE);
  touch_job_t job = {b, used, 0, 0, zero, 0};
  bool trial = trials;
  for (size_t at = 0; at < used;) {
    if (trial && at < mark) {
      trial = touch_huge(d, &job, at);
      at += KRT_CHUNK;
      continue;
    }
    /* 4 KiB pages: while chunks marked for trials remain, one chunk,
     * which measures them, then decide again (a prior decides one chunk,
     * not the block, and a block follows costs that change); else to the
     * end. */
    const bool one = trials && at + KRT_CHUNK < (mark < used ? mark : used);
    const size_t end = one ? at + KRT_CHUNK : used;
    /* Chunks marked that no trial reached: 4 KiB pages (no fault is in
     * flight to wait for). */
    const size_t unmark = end == used ? mark : end;
    if (at < unmark) madvise(b + at, unmark - at, MADV_NOHUGEPAGE);
    spread(d, &job, at, end);
    at = end;
    trial = trials && atomic_load_explicit(&huge_us, memory_order_relaxed) <= small_wall_us(d);
  }
  /* Chunks that went to 4 KiB pages: khugepaged may collapse them (those
   * already in huge pages were marked so; marking them again changes
   * nothing). */
  if (whole) madvise(b, whole, MADV_HUGEPAGE);
}
#endif

void *krt_pool_alloc(kiln_device_t *d, size_t size, int how) {
  uint32_t cls = 0;
  while (cls < KRT_POOL_CLASSES && ((size_t)64 << cls) < size) ++cls;
  if (cls == KRT_POOL_CLASSES) return NULL;
  pthread_mutex_lock(&d->pool_lock);
  pool_block_t *b = d->pool[cls];
  if (b) d->pool[cls] = b->next;
  pthread_mutex_unlock(&d->pool_lock);
  if (!b) {
    /* Blocks of 2 MiB and more start on a 2 MiB boundary, for huge pages. */
    const size_t huge = (size_t)2 << 20, bytes = sizeof *b + ((size_t)64 << cls);
    b = d->allocator->alloc(d->allocator->self, bytes, bytes > huge ? huge : 64);
    if (!b) return NULL;
#ifdef KRT_HUGE_PAGES
    if (bytes > huge && how != KRT_POOL_RAW) {
      touch_big_block(d, (char *)b, bytes, sizeof *b + size, how == KRT_POOL_ZERO);
      b->cls = cls;
      return b + 1;
    }
    /* Unzeroed (a VM stack): faulted later, in 4 KiB pages. */
    if (bytes > huge) madvise(b, (bytes + 4095) & ~(size_t)4095, MADV_NOHUGEPAGE);
#endif
    b->cls = cls;
  }
  if (how == KRT_POOL_ZERO) memset(b + 1, 0, size);
  return b + 1;
}

void krt_pool_free(kiln_device_t *d, void *ptr) {
  if (!ptr) return;
  pool_block_t *b = (pool_block_t *)ptr - 1;
  pthread_mutex_lock(&d->pool_lock);
  b->next = d->pool[b->cls];
  d->pool[b->cls] = b;
  pthread_mutex_unlock(&d->pool_lock);
}

void krt_pool_trim(kiln_device_t *d) {
  pthread_mutex_lock(&d->pool_lock);
  for (uint32_t c = 0; c < KRT_POOL_CLASSES; ++c)
    for (pool_block_t *b = d->pool[c], *next; b; b = next) {
      next = b->next;
      d->allocator->free(d->allocator->self, b);
    }
  memset(d->pool, 0, sizeof d->pool);
  pthread_mutex_unlock(&d->pool_lock);
}
