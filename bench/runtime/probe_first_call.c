/* probe_first_call: where a fresh process's first call spends its time.
 * Takes a module and a device; in one process it loads, creates the
 * device, prepares, makes the inputs, then makes CALLS calls, and prints
 * per phase: wall and process CPU time (system time is tick-grained), minor/major faults, voluntary and
 * involuntary context switches, and the scheduler's run-delay (time
 * runnable but not running, /proc/self/task/N/schedstat summed over the
 * process's threads), the transparent huge pages it gained and the
 * bytes the runtime took from the allocator. A dispatch observer takes the calling thread's CPU time
 * at each dispatch of every call, so the first call's dispatches can be compared with the same
 * dispatches of the steady calls (the ones that account for the extra).
 * Not a test; run it in many fresh processes (probe_first_call.py).
 *
 * usage: probe_first_call MODULE.kiln DEVICE [CALLS] [WORKERS] [TOP]
 * prints: "phase NAME wall_us=.. cpu_us=.. minflt=.. majflt=.. nvcsw=..
 *          nivcsw=.. delay_us=.. thp_kb=.. alloc_kb=.." lines, then the TOP dispatches whose first
 *          execution took longest over their steady median (calling thread's CPU time), then
 *          "wall prologue_first_us=.." (a call's start to its first dispatch, the dispatches,
 *          the gaps between them: first call and steady median) and the TOP dispatches by
 *          first-call wall time over their steady median. */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_module.h"
#include "kiln/runtime.h"

typedef struct {
  double wall, cpu, wall_end, cpu_end, delay, sys, alloc_kb;
  long minflt, majflt, nvcsw, nivcsw, huge_kb;
} sample_t;

static double g_alloc_kb; /* bytes the runtime took from the allocator */

static double clock_us(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* Run-delay of all the process's threads (schedstat's second field, ns). */
static double run_delay_us(void) {
  double total = 0;
  DIR *d = opendir("/proc/self/task");
  if (!d) return 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.') continue;
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", e->d_name);
    FILE *f = fopen(path, "r");
    unsigned long long run = 0, wait = 0;
    if (f) {
      if (fscanf(f, "%llu %llu", &run, &wait) == 2) total += (double)wait / 1e3;
      fclose(f);
    }
  }
  closedir(d);
  return total;
}

/* Transparent huge pages the process has (smaps_rollup's AnonHugePages). */
static long huge_kb(void) {
  long kb = 0;
  char line[256];
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld", &kb) == 1) break;
  fclose(f);
  return kb;
}

/* A phase boundary: the figures that close the phase before it, then the
 * slow /proc reads, then the clocks that open the next one, so neither
 * phase pays for the reading. */
static sample_t take(void) {
  sample_t s;
  struct rusage ru;
  s.wall_end = clock_us(CLOCK_MONOTONIC);
  s.cpu_end = clock_us(CLOCK_PROCESS_CPUTIME_ID);
  getrusage(RUSAGE_SELF, &ru);
  s.minflt = ru.ru_minflt;
  s.majflt = ru.ru_majflt;
  s.nvcsw = ru.ru_nvcsw;
  s.nivcsw = ru.ru_nivcsw;
  s.sys = (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
  s.delay = run_delay_us();
  s.huge_kb = huge_kb();
  s.alloc_kb = g_alloc_kb;
  s.cpu = clock_us(CLOCK_PROCESS_CPUTIME_ID);
  s.wall = clock_us(CLOCK_MONOTONIC);
  return s;
}

static void phase(const char *name, sample_t a, sample_t b) {
  printf("phase %s wall_us=%.1f cpu_us=%.1f sys_us=%.0f minflt=%ld majflt=%ld nvcsw=%ld "
         "nivcsw=%ld delay_us=%.1f thp_kb=%ld alloc_kb=%.0f\n",
         name, b.wall_end - a.wall, b.cpu_end - a.cpu, b.sys - a.sys, b.minflt - a.minflt,
         b.majflt - a.majflt, b.nvcsw - a.nvcsw, b.nivcsw - a.nivcsw,
         b.delay - a.delay, b.huge_kb - a.huge_kb, b.alloc_kb - a.alloc_kb);
}

/* The system allocator, counting what it hands out (fresh memory). */
static void *count_alloc(void *self, size_t size, size_t alignment) {
  kiln_allocator_t *sys = self;
  g_alloc_kb += (double)size / 1024;
  return sys->alloc(sys->self, size, alignment);
}
static void count_free(void *self, void *ptr) {
  kiln_allocator_t *sys = self;
  sys->free(sys->self, ptr);
}

static void check(kiln_status_t s, const char *what) {
  if (!s) return;
  fprintf(stderr, "probe_first_call: %s: %s\n", what, kiln_status_message(s));
  exit(1);
}

/* Dispatch times per call: [call][index], and the faults each took. */
enum { MAX_DISPATCH = 4096 };
static double *g_us, *g_wall, *g_gap;
static long *g_flt;
static uint64_t g_last_end, g_call_start;
static double g_prologue[256]; /* per call: its start to its first dispatch's, wall us */
static const char **g_name;
static uint32_t g_grid[MAX_DISPATCH][3];
static int g_call, g_count[256];
static double g_last;

static void observe(void *user, const kiln_dispatch_event_t *e) {
  (void)user;
  int i = g_count[g_call]++;
  if (i >= MAX_DISPATCH) return;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  /* Thread CPU time since the previous dispatch ended (or the call
   * began): the dispatch plus the interpreter's work before it, and
   * unlike wall time blind to the other processes of a busy machine.
   * local-task's workers run beside it: this is the caller's share. */
  const double t = clock_us(CLOCK_THREAD_CPUTIME_ID);
  g_us[g_call * MAX_DISPATCH + i] = t - g_last;
  g_last = t;
  g_flt[g_call * MAX_DISPATCH + i] = ru.ru_minflt;
  /* Wall time of the dispatch itself (all participants), and the
   * caller's wall time before it since the previous one ended. */
  g_wall[g_call * MAX_DISPATCH + i] = (double)(e->end_ns - e->start_ns) / 1e3;
  g_gap[g_call * MAX_DISPATCH + i] = i ? (double)(e->start_ns - g_last_end) / 1e3 : 0;
  if (!i) g_prologue[g_call] = (double)(e->start_ns - g_call_start) / 1e3;
  g_last_end = e->end_ns;
  if (g_call == 0) {
    g_name[i] = e->export_name;
    memcpy(g_grid[i], e->workgroup_count, sizeof g_grid[i]);
  }
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: probe_first_call MODULE.kiln DEVICE [CALLS] [WORKERS] [TOP]\n");
    return 2;
  }
  const int calls = argc > 3 ? atoi(argv[3]) : 10;
  const int top = argc > 5 ? atoi(argv[5]) : 5;
  if (calls < 2 || calls > 255) return 2;
  g_us = calloc((size_t)calls * MAX_DISPATCH, sizeof *g_us);
  g_wall = calloc((size_t)calls * MAX_DISPATCH, sizeof *g_wall);
  g_gap = calloc((size_t)calls * MAX_DISPATCH, sizeof *g_gap);
  g_flt = calloc((size_t)calls * MAX_DISPATCH, sizeof *g_flt);
  g_name = calloc(MAX_DISPATCH, sizeof *g_name);
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = argc > 4 ? (uint32_t)atoi(argv[4]) : 0;
  opts.dispatch_observer = observe;
  kiln_instance_t *inst;
  kiln_allocator_t sys = kiln_allocator_system();
  kiln_allocator_t counting = {&sys, count_alloc, count_free};
  check(kiln_instance_create(counting, &inst), "instance");

  sample_t s0 = take();
  kiln_module_t *mod;
  check(kiln_module_load_file(inst, argv[1], &mod), "load");
  sample_t s1 = take();
  phase("load", s0, s1);
  kiln_device_t *dev;
  check(kiln_device_create(inst, argv[2], &opts, &dev), "device");
  sample_t s2 = take();
  phase("device", s1, s2);
  check(kiln_module_prepare(mod, dev), "prepare");
  sample_t s3 = take();
  phase("prepare", s2, s3);

  bench_call_t bc;
  const char *why = bench_call_init(mod, dev, &bc);
  if (why) {
    fprintf(stderr, "probe_first_call: %s\n", why);
    return 1;
  }
  sample_t s4 = take();
  phase("inputs", s3, s4);

  double *dispatch_sum = calloc((size_t)calls, sizeof *dispatch_sum);
  for (g_call = 0; g_call < calls; ++g_call) {
    sample_t a = take();
    g_last = clock_us(CLOCK_THREAD_CPUTIME_ID);
    g_call_start = (uint64_t)(clock_us(CLOCK_MONOTONIC) * 1e3);
    check(bench_call_run(&bc, dev), "call");
    sample_t b = take();
    bench_call_drop_outputs(&bc);
    char name[32];
    snprintf(name, sizeof name, "call%d", g_call);
    if (g_call < 3 || g_call == calls - 1) phase(name, a, b);
    for (int i = 0; i < g_count[g_call] && i < MAX_DISPATCH; ++i)
      dispatch_sum[g_call] += g_us[g_call * MAX_DISPATCH + i];
  }
  printf("dispatches %d thread_cpu_first_us=%.1f second_us=%.1f last_us=%.1f\n",
         g_count[0], dispatch_sum[0], dispatch_sum[1], dispatch_sum[calls - 1]);
  /* The dispatches whose first run exceeded their steady median most. */
  const int n = g_count[0] < MAX_DISPATCH ? g_count[0] : MAX_DISPATCH;
  double *extra = calloc((size_t)n, sizeof *extra), *med = calloc((size_t)n, sizeof *med);
  double *tmp = calloc((size_t)calls, sizeof *tmp);
  for (int i = 0; i < n; ++i) {
    for (int c = 1; c < calls; ++c) tmp[c - 1] = g_us[c * MAX_DISPATCH + i];
    qsort(tmp, (size_t)calls - 1, sizeof *tmp, cmp_double);
    med[i] = tmp[(calls - 1) / 2];
    extra[i] = g_us[i] - med[i];
  }
  for (int t = 0; t < top && t < n; ++t) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (extra[i] > -1e300 && (best < 0 || extra[i] > extra[best])) best = i;
    if (best < 0) break;
    printf("dispatch %d %s first_cpu_us=%.1f steady_cpu_us=%.1f extra_us=%.1f "
           "faults_before=%ld\n",
           best, g_name[best] ? g_name[best] : "?", g_us[best], med[best], extra[best],
           g_flt[best] - (best ? g_flt[best - 1] : s4.minflt));
    extra[best] = -1e301;
  }
  /* Wall time: before the first dispatch (the call's transient memory
   * faulted in), the dispatches' own (every participant's work and
   * waiting) and the caller's between them, first call against the
   * steady median, then the dispatches whose first wall time exceeded it
   * most (a worker waking late or faulting shows here, not in the
   * calling thread's CPU time). */
  double wall_first = 0, wall_steady = 0, gap_first = 0, gap_steady = 0;
  double *wextra = calloc((size_t)n, sizeof *wextra), *wmed = calloc((size_t)n, sizeof *wmed);
  for (int i = 0; i < n; ++i) {
    for (int c = 1; c < calls; ++c) tmp[c - 1] = g_wall[c * MAX_DISPATCH + i];
    qsort(tmp, (size_t)calls - 1, sizeof *tmp, cmp_double);
    wmed[i] = tmp[(calls - 1) / 2];
    wextra[i] = g_wall[i] - wmed[i];
    wall_first += g_wall[i];
    wall_steady += wmed[i];
    for (int c = 1; c < calls; ++c) tmp[c - 1] = g_gap[c * MAX_DISPATCH + i];
    qsort(tmp, (size_t)calls - 1, sizeof *tmp, cmp_double);
    gap_first += g_gap[i];
    gap_steady += tmp[(calls - 1) / 2];
  }
  for (int c = 1; c < calls; ++c) tmp[c - 1] = g_prologue[c];
  qsort(tmp, (size_t)calls - 1, sizeof *tmp, cmp_double);
  printf("wall prologue_first_us=%.1f steady_us=%.1f dispatches_first_us=%.1f steady_us=%.1f "
         "between_first_us=%.1f steady_us=%.1f\n",
         g_prologue[0], tmp[(calls - 1) / 2], wall_first, wall_steady, gap_first, gap_steady);
  for (int t = 0; t < top && t < n; ++t) {
    int best = -1;
    for (int i = 0; i < n; ++i)
      if (wextra[i] > -1e300 && (best < 0 || wextra[i] > wextra[best])) best = i;
    if (best < 0) break;
    printf("wall %d %s first_us=%.1f steady_us=%.1f extra_us=%.1f grid=%ux%ux%u\n", best,
           g_name[best] ? g_name[best] : "?", g_wall[best], wmed[best], wextra[best],
           g_grid[best][0], g_grid[best][1], g_grid[best][2]);
    wextra[best] = -1e301;
  }
  bench_call_release(&bc);
  kiln_module_release(mod);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  return 0;
}
