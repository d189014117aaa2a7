/* Compiles many modules at once: each job is kiln_llvm_cpu_compile_timed
 * on a module that lives in its own LLVMContext, so jobs share nothing
 * LLVM-side and run on a small pool of threads (one per core by default).
 * Workers take jobs largest first (LLVM instructions), which keeps the
 * pool busy to the end; each job writes only its own result slot, so
 * what comes out does not depend on the thread count or the order in
 * which jobs finish. With one thread, or when no thread can be started,
 * the jobs run on the calling thread. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "lcpu_internal.h"

typedef struct lcpu_pool {
  kiln_llvm_cpu_job_t *jobs;
  size_t *order; /* job indices, largest first */
  size_t n;
  bool timed;
  atomic_size_t next;
} lcpu_pool_t;

static void lcpu_run_job(kiln_llvm_cpu_job_t *j, bool timed) {
  if (j->object_only && j->query_symbol)
    j->status = kiln_llvm_cpu_compile_member_timed(j->module, j->target, j->query_symbol, &j->so,
                                                   timed ? &j->timing : NULL);
  else
    j->status = (j->object_only ? kiln_llvm_cpu_compile_object_timed : kiln_llvm_cpu_compile_timed)(
        j->module, j->target, &j->so, timed ? &j->timing : NULL);
  if (j->release) {
    LLVMContextRef c = LLVMGetModuleContext(j->module);
    LLVMDisposeModule(j->module);
    LLVMContextDispose(c);
    j->module = NULL;
  }
}

static void *lcpu_worker(void *arg) {
  lcpu_pool_t *p = arg;
  for (;;) {
    const size_t k = atomic_fetch_add(&p->next, 1);
    if (k >= p->n) return NULL;
    kiln_llvm_cpu_job_t *j = &p->jobs[p->order[k]];
    lcpu_run_job(j, p->timed);
  }
}

unsigned kiln_llvm_cpu_default_threads(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1u : n > 256 ? 256u : (unsigned)n;
}

void kiln_llvm_cpu_compile_all(kiln_llvm_cpu_job_t *jobs, size_t n,
                               unsigned threads, bool timed) {
  if (!n) return;
  if (!threads) threads = kiln_llvm_cpu_default_threads();
  if (threads > n) threads = (unsigned)n;
  lcpu_pool_t p = {jobs, NULL, n, timed, 0};
  uint64_t *sizes = malloc(n * sizeof *sizes);
  p.order = malloc(n * sizeof *p.order);
  for (size_t i = 0; sizes && p.order && i < n; i++) {
    sizes[i] = lcpu_count_instructions(jobs[i].module);
    /* insertion sort by size, largest first, ties in job order */
    size_t k = i;
    while (k > 0 && sizes[p.order[k - 1]] < sizes[i]) {
      p.order[k] = p.order[k - 1];
      k--;
    }
    p.order[k] = i;
  }
  free(sizes);
  if (!sizes || !p.order) { /* out of memory: job order, this thread */
    free(p.order);
    for (size_t i = 0; i < n; i++) lcpu_run_job(&jobs[i], timed);
    return;
  }
  pthread_t *tids = threads > 1 ? malloc((threads - 1) * sizeof *tids) : NULL;
  unsigned started = 0;
  for (unsigned t = 0; tids && t + 1 < threads; t++) {
    if (pthread_create(&tids[t], NULL, lcpu_worker, &p) != 0) break;
    started++;
  }
  lcpu_worker(&p); /* the calling thread works too */
  for (unsigned t = 0; t < started; t++) pthread_join(tids[t], NULL);
  free(tids);
  free(p.order);
}
