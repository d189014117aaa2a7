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
/* Set once a fresh transparent huge page has cost more than 1 ms to fault
 * in: this machine's free 2 MiB blocks are the host's (see below), so
 * fresh blocks skip the trial. Process-wide: it is the kernel's state. */
static atomic_bool huge_pages_cold;

static double thread_cpu_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* A block's tail takes a huge page from 256 KiB on: a warm huge page
 * (46 us/MB, 2 MiB cleared) costs what 256 KiB of 4 KiB pages do at
 * their warm 370 us/MB, and the 4 KiB pages a process faults after the
 * blocks it recycled come cold here (~8 us each: ResNet-18's arena with a
 * 0.95 MiB tail paid 1.7 ms more in 242 faults than with 4 huge pages);
 * at most 1.75 MiB of the huge page stays unused. */
#define KRT_HUGE_TAIL ((size_t)256 << 10)

/* Touches a fresh block of `bytes` (2 MiB-aligned, over 2 MiB), its first
 * `used` bytes zeroed when `zero` (else only faulted in: a byte per 4 KiB
 * page, not a second pass over megabytes the kernel just cleared and the
 * program overwrites), choosing page sizes. Transparent huge pages fault
 * in at 46 us/MB while the kernel has 2 MiB blocks freed moments ago; in
 * a VM with free page reporting (virtio-balloon: Firecracker, QEMU) a
 * block free for ~2 s has been handed back to the host, and touching it
 * again costs 512 host faults: 2200 us/MB measured, first calls 5-27 ms
 * slower after an idle spell. 4 KiB pages cost 370 us/MB either way. So
 * each huge page is a trial: while they come warm, the next one follows;
 * from the first cold one on, the rest is touched in 4 KiB pages and
 * offered to khugepaged, which collapses it in the background (seconds
 * later here) for the steady state's TLB. Hints only: where the kernel or
 * the allocator's memory cannot, nothing changes. The trials run on the
 * calling thread alone, in order: a cold huge page costs its 4-5 ms on
 * whichever thread faults it while the others wait, and trials on two
 * threads at once meet one more often (a huge page freed moments ago
 * waits on the freeing core's own list; the other core's come from the
 * reported ones: ResNet-18's first call on local-task met one in 9 of 14
 * processes with a trial per thread, 3 of 14 with the caller's alone),
 * while a warm one costs the caller 90 us/MB more than sharing it. What
 * goes in 4 KiB pages (after a cold trial, a tail under KRT_HUGE_TAIL, or
 * all of it once huge pages are known cold) goes in pieces to the
 * device's host threads where it has several (local-task's workers,
 * local-sync's helper): the kernel's clearing is the cost, and it runs on
 * each faulting core. So there, no trials at all: 4 KiB pages cost 0.4
 * ms/MB of CPU here warm or after an idle spell (the kernel's small free
 * lists), divided among the threads, while a cold trial's 4-5 ms stays
 * on one; a trial pays off only when fewer than about 1 in 8 first
 * trials come cold (1 in 3 on one thread), and after 3 s idle about half
 * do. ResNet-18 on local-task, 16
 * processes each, first calls over the goal (load + prepare + first call
 * within 1 ms + 1.2x the steady call) after 3 s idle 7 -> 0, back to back
 * 2 -> 1; MobileNetV2 (a 6 MB arena, a 5.5 ms call) 3 -> 5 and 1 -> 2,
 * its worst 1.50 -> 1.08 of the goal (README, issue 15).
 * probe_first_call (bench/runtime) counts a first call's faults and huge
 * pages. */
/* What goes in 4 KiB pages is split in pieces this size: the host
 * threads take them in turn, so 3 chunks left after a cold trial keep
 * two threads busy to the end (2 MiB chunks went 2 and 1). */
#define KRT_SMALL_PIECE ((size_t)512 << 10)

typedef struct touch_job {
  char *b;
  size_t used, from; /* 4 KiB pages: [from, used) */
  bool zero;
} touch_job_t;

/* Faults [p, p + n) in writable without writing it: one madvise where
 * the kernel has MADV_POPULATE_WRITE (Linux 5.14), else a write per 4 KiB
 * page. The madvise maps the 4 KiB pages without a trap each: 2 MiB in
 * 1.06-1.10 ms of CPU against 1.26 ms here (medians of 30), what each
 * chunk costs once huge pages came cold; a zeroed chunk's memset then
 * writes mapped pages. */
static void populate(char *p, size_t n) {
#ifdef MADV_POPULATE_WRITE
  char *lo = (char *)((uintptr_t)p & ~(uintptr_t)4095);
  if (!madvise(lo, (size_t)(p + n - lo), MADV_POPULATE_WRITE)) return;
#endif
  for (size_t k = 0; k < n; k += 4096) ((volatile char *)p)[k] = 0;
}

static void touch(const touch_job_t *j, size_t at, size_t n) {
  populate(j->b + at, n);
  if (j->zero) memset(j->b + at, 0, n);
}

/* One trial: the huge page at `at` faulted in, timed, then its chunk. */
static void touch_huge(const touch_job_t *j, size_t at) {
  const size_t huge = (size_t)2 << 20, n = j->used - at < huge ? j->used - at : huge;
  const double t0 = thread_cpu_ms();
  *(volatile char *)(j->b + at) = 0;
  if (thread_cpu_ms() - t0 >= 1.0) atomic_store_explicit(&huge_pages_cold, true, memory_order_relaxed);
  touch(j, at, n);
}

static void touch_piece(void *ctx, uint32_t k) {
  const touch_job_t *j = ctx;
  const size_t at = j->from + (size_t)k * KRT_SMALL_PIECE;
  touch(j, at, j->used - at < KRT_SMALL_PIECE ? j->used - at : KRT_SMALL_PIECE);
}

static void touch_big_block(kiln_device_t *d, char *b, size_t bytes, size_t used, bool zero) {
  const size_t huge = (size_t)2 << 20, span = (bytes + 4095) & ~(size_t)4095;
  /* Huge pages for the chunks of KRT_HUGE_TAIL and more (not for a
   * shorter tail; nor past it: a later, larger use of the block must not fault
   * huge pages in), marked in one madvise before any chunk is touched:
   * marking a chunk while another thread faults in the same mapping
   * waits for that fault (the mapping's lock), so chunks marked one by
   * one took turns (a worker's chunk: 173-195 us of wall time for
   * 110-127 of CPU). */
  const size_t whole = used & ~(huge - 1);
  const size_t mark = whole + (used - whole >= KRT_HUGE_TAIL ? huge : 0);
  const bool trials = mark && !d->host_parallel && !atomic_load(&huge_pages_cold);
  if (trials) madvise(b, mark, MADV_HUGEPAGE);
  if (span > (trials ? mark : 0))
    madvise(b + (trials ? mark : 0), span - (trials ? mark : 0), MADV_NOHUGEPAGE);
  touch_job_t job = {b, used, 0, zero};
  size_t at = 0;
  if (trials) { /* this thread's, until one comes cold */
    for (; at < mark && !atomic_load(&huge_pages_cold); at += huge) touch_huge(&job, at);
    /* Chunks marked that no trial reached: 4 KiB pages (no fault is
     * in flight to wait for). */
    if (at < mark) madvise(b + at, mark - at, MADV_NOHUGEPAGE);
  }
  if (at < used) {
    job.from = at;
    const uint32_t pieces = (uint32_t)((used - at + KRT_SMALL_PIECE - 1) / KRT_SMALL_PIECE);
    if (d->host_parallel && pieces > 1) d->host_parallel(d, pieces, touch_piece, &job);
    else
      for (uint32_t k = 0; k < pieces; ++k) touch_piece(&job, k);
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
