/* Workgroup pool for the local-task device: N pthread workers that, with
 * the submitting thread, split one dispatch's 3-D grid of workgroups.
 *
 * Guarantees: every workgroup of a grid runs exactly once, unless one
 * fails, after which no further workgroups start; a dispatch returns only
 * when every workgroup it started has finished; a dispatch allocates
 * nothing (workers claim workgroups from per-participant atomic counters,
 * then help the others: task_pool.c). Several
 * threads may dispatch to one pool at once: dispatches are serialized in
 * arrival order of the submit lock. A workgroup function must not dispatch
 * to its own pool (it would wait on itself). Workers have at least 2 MiB
 * of stack, its first 512 KiB touched before kiln_task_pool_create returns
 * (kernels' stack buffers fault no page in a dispatch; a host pool, whose
 * workers run no kernel, skips that). A dispatch wakes
 * at most one worker per workgroup beyond the caller's first and never
 * waits for a worker that had not joined by the time the caller ran out
 * of workgroups; idle workers spin briefly before they sleep. */
#ifndef KILN_TASK_POOL_H
#define KILN_TASK_POOL_H

#include <stddef.h>
#include <stdint.h>

enum {
  KILN_TASK_OK = 0,
  KILN_TASK_ERR_INVALID = 1, /* bad argument (e.g. too many workers) */
  KILN_TASK_ERR_SYSTEM = 2,  /* thread or synchronization creation failed */
};

/* Returned by kiln_task_pool_dispatch for a grid of 2^64 or more
 * workgroups; no workgroup runs. */
#define KILN_TASK_ERR_GRID_TOO_LARGE INT32_MIN

/* Most workers a pool accepts. */
#define KILN_TASK_MAX_WORKERS 1024u

/* Called once per workgroup; worker_id < kiln_task_pool_concurrency()
 * (0 is the submitting thread). Nonzero fails the dispatch. */
typedef int (*kiln_task_workgroup_fn)(void *ctx, uint32_t wg_x, uint32_t wg_y,
                                      uint32_t wg_z, uint32_t worker_id);

typedef struct kiln_task_pool kiln_task_pool_t;

/* Starts WORKERS threads; KILN_TASK_DEFAULT_WORKERS means one per online
 * core. 0 is allowed: dispatches then run on the caller alone. */
#define KILN_TASK_DEFAULT_WORKERS UINT32_MAX
int kiln_task_pool_create(uint32_t workers, kiln_task_pool_t **out, char *msg,
                          size_t msg_cap);

/* The same for work on the host alone (local-sync's helper, which faults
 * fresh memory in): no stack faulted in ahead, so no 512 KiB of resident
 * stack per worker. */
int kiln_task_pool_create_host(uint32_t workers, kiln_task_pool_t **out,
                               char *msg, size_t msg_cap);

/* Stops and joins the workers. No dispatch may be in flight. NULL-safe. */
void kiln_task_pool_destroy(kiln_task_pool_t *pool);

/* Threads that may run workgroups at once: workers + the caller. */
uint32_t kiln_task_pool_concurrency(const kiln_task_pool_t *pool);

/* Runs count[0] x count[1] x count[2] workgroups (x fastest) and returns 0
 * or the first nonzero status a workgroup returned. */
int kiln_task_pool_dispatch(kiln_task_pool_t *pool, const uint32_t count[3],
                            kiln_task_workgroup_fn fn, void *ctx);

#endif /* KILN_TASK_POOL_H */
