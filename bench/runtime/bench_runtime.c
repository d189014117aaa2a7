/* bench_runtime: the fixed costs of running a module, measured through the
 * public API the way an embedder meets them, in a fresh process:
 * kiln_module_load_file (time, and resident memory it added), device
 * creation, kiln_module_prepare, the first call, then steady-state calls
 * (median, minimum, minor page faults per call; the first call's own
 * faults: the fresh memory it touched; what load + prepare and the first
 * call read from storage: module pages, after bench_runtime.py --evict). Inputs are zeros of the declared types;
 * outputs are released after each call. Besides wall time, the process's
 * CPU time of load + prepare, of the first call and of the median steady
 * call: on a shared machine it is what the runtime
 * spent, whoever else ran (local-task's adds its workers', spinning
 * included).
 *
 * usage: bench_runtime MODULE.kiln DEVICE [CALLS] [WORKERS]
 * prints: one line of "key=value" figures (times in microseconds). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench_module.h"
#include "kiln/runtime.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static double cpu_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long rss_kb(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    fclose(f);
  }
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static long minflt(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* Bytes this process caused to be read from storage (task I/O
 * accounting; 0 where the kernel lacks it). Major-fault counts miss reads
 * that readahead started before the fault. */
static long read_kb(void) {
  long kb = 0;
  char line[64];
  FILE *f = fopen("/proc/self/io", "r");
  if (!f) return 0;
  while (fgets(line, sizeof line, f))
    if (!strncmp(line, "read_bytes: ", 12)) kb = atol(line + 12) / 1024;
  fclose(f);
  return kb;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void check(kiln_status_t s, const char *what) {
  if (!s) return;
  fprintf(stderr, "bench_runtime: %s: %s\n", what, kiln_status_message(s));
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: bench_runtime MODULE.kiln DEVICE [CALLS] [WORKERS]\n");
    return 2;
  }
  const long calls = argc > 3 ? atol(argv[3]) : 20;
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = argc > 4 ? (uint32_t)atol(argv[4]) : 0;
  if (calls < 1) return 2;
  kiln_instance_t *inst;
  check(kiln_instance_create(kiln_allocator_system(), &inst), "instance");

  const long rss0 = rss_kb(), setup_rd0 = read_kb();
  double c1 = cpu_us();
  double t0 = now_us();
  kiln_module_t *mod;
  check(kiln_module_load_file(inst, argv[1], &mod), "load");
  const double load_us = now_us() - t0;
  double setup_cpu_us = cpu_us() - c1;
  const long load_rss = rss_kb() - rss0;

  t0 = now_us();
  kiln_device_t *dev;
  check(kiln_device_create(inst, argv[2], &opts, &dev), "device");
  const double device_us = now_us() - t0;
  /* Device creation (starting workers) is not part of a module's cost. */
  c1 = cpu_us();
  t0 = now_us();
  check(kiln_module_prepare(mod, dev), "prepare");
  const double prepare_us = now_us() - t0;
  setup_cpu_us += cpu_us() - c1;
  const long setup_rd = read_kb() - setup_rd0;

  bench_call_t bc;
  const char *why = bench_call_init(mod, dev, &bc);
  if (why) {
    fprintf(stderr, "bench_runtime: %s\n", why);
    return 1;
  }

  const long first_flt0 = minflt(), first_rd0 = read_kb();
  c1 = cpu_us();
  t0 = now_us();
  check(bench_call_run(&bc, dev), "first call");
  const double first_us = now_us() - t0;
  const double first_cpu_us = cpu_us() - c1;
  const long first_flt = minflt() - first_flt0;
  const long first_rd = read_kb() - first_rd0;
  bench_call_drop_outputs(&bc);

  double *us = malloc(2 * (size_t)calls * sizeof *us), *cpu = us + calls;
  const long flt0 = minflt();
  for (long c = 0; c < calls; ++c) {
    c1 = cpu_us();
    t0 = now_us();
    check(bench_call_run(&bc, dev), "call");
    us[c] = now_us() - t0;
    cpu[c] = cpu_us() - c1;
    bench_call_drop_outputs(&bc);
  }
  const long faults = minflt() - flt0;
  qsort(us, (size_t)calls, sizeof *us, cmp_double);
  qsort(cpu, (size_t)calls, sizeof *cpu, cmp_double);
  const double median = us[calls / 2];
  printf("load_us=%.1f load_rss_kb=%ld device_us=%.1f prepare_us=%.1f "
         "first_us=%.1f steady_median_us=%.3f steady_min_us=%.3f "
         "minflt_per_call=%.2f setup_cpu_us=%.1f first_cpu_us=%.1f "
         "steady_cpu_us=%.3f steady_cpu_min_us=%.3f first_minflt=%ld "
         "first_read_kb=%ld setup_read_kb=%ld\n",
         load_us, load_rss, device_us, prepare_us, first_us, median, us[0],
         (double)faults / (double)calls, setup_cpu_us, first_cpu_us,
         cpu[calls / 2], cpu[0], first_flt, first_rd, setup_rd);
  free(us);
  bench_call_release(&bc);
  kiln_module_release(mod);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  return 0;
}
