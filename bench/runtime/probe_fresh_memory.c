/* probe_fresh_memory: what faulting in fresh anonymous memory costs this
 * process, per 2 MiB, by the way it is asked for. Takes a mode and a size;
 * maps that many MiB (2 MiB-aligned) and faults them in one 2 MiB chunk
 * at a time, timing each chunk by wall and thread CPU time, then prints
 * one line per chunk and a summary. The runtime's first calls fault their
 * arena and outputs like this (krt_pool_alloc); this separates the
 * kernel's share (clearing, page tables) from the host's (a VM that took
 * a free block back faults it in again) and shows which request pays.
 * Not a test; run it in many fresh processes (probe_fresh_memory.py).
 *
 * usage: probe_fresh_memory MODE MIB [REUSE]
 *   MODE: huge-touch   MADV_HUGEPAGE, one write per chunk (a THP fault)
 *         small-touch  MADV_NOHUGEPAGE, one write per 4 KiB page
 *         huge-pw      MADV_HUGEPAGE, MADV_POPULATE_WRITE per chunk
 *         small-pw     MADV_NOHUGEPAGE, MADV_POPULATE_WRITE per chunk
 *         populate     mmap(MAP_POPULATE) of the whole size (one figure)
 *   REUSE: 1 first maps, faults in and unmaps the same size, then
 *         measures a second mapping: memory the process just freed.
 * prints: "chunk I wall_us=.. cpu_us=.. huge=0|1 write_us=.." lines, then
 *         "total MODE wall_us=.. cpu_us=.. minflt=.. thp_chunks=.. write_us=..".
 *   write_us: thread CPU time of a write per 4 KiB page of the chunk just
 *         after it was faulted in (a few us where the request mapped the
 *         pages fully; on a VM whose hypervisor maps them at their first
 *         write, that work; not in cpu_us). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static double clock_us(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static long minflt(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

/* A 2 MiB-aligned mapping of n bytes (n a multiple of 2 MiB). */
static char *map_aligned(size_t n, int extra_flags) {
  const size_t huge = (size_t)2 << 20;
  char *p = mmap(NULL, n + huge, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | extra_flags, -1, 0);
  if (p == MAP_FAILED) return NULL;
  char *a = (char *)(((uintptr_t)p + huge - 1) & ~(uintptr_t)(huge - 1));
  if (a > p) munmap(p, (size_t)(a - p));
  munmap(a + n, (size_t)(p + huge - a));
  return a;
}

/* The process's anonymous huge pages in kB: read around a chunk, it says
 * whether that chunk got one (mincore cannot tell). */
static long anon_huge_kb(void) {
  FILE *f = fopen("/proc/self/smaps_rollup", "r");
  if (!f) return -1;
  char line[256];
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) break;
  fclose(f);
  return kb;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: probe_fresh_memory MODE MIB [REUSE]\n");
    return 2;
  }
  const char *mode = argv[1];
  const size_t huge = (size_t)2 << 20;
  const size_t mib = strtoul(argv[2], NULL, 10);
  const size_t n = (mib * ((size_t)1 << 20) + huge - 1) & ~(huge - 1);
  const int reuse = argc > 3 && atoi(argv[3]);
  const int want_huge = !strncmp(mode, "huge", 4);
  if (n == 0) {
    fprintf(stderr, "probe_fresh_memory: size must be at least 1 MiB\n");
    return 2;
  }
  if (reuse) { /* the same size faulted in and freed, as a pool trim would */
    char *q = map_aligned(n, 0);
    if (!q) return perror("mmap"), 1;
    madvise(q, n, want_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    memset(q, 1, n);
    munmap(q, n);
  }
  const long flt0 = minflt(), thp0 = anon_huge_kb();
  double writes = 0; /* write_us summed */
  const double w0 = clock_us(CLOCK_MONOTONIC), c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
  if (!strcmp(mode, "populate")) {
    char *p = map_aligned(n, MAP_POPULATE);
    if (!p) return perror("mmap"), 1;
  } else {
    char *p = map_aligned(n, 0);
    if (!p) return perror("mmap"), 1;
    const int pw = strstr(mode, "-pw") != NULL;
    if (strcmp(mode, "huge-touch") && strcmp(mode, "small-touch") && !pw) {
      fprintf(stderr, "probe_fresh_memory: unknown mode '%s'\n", mode);
      return 2;
    }
    madvise(p, n, want_huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (size_t at = 0; at < n; at += huge) {
      const long t0 = anon_huge_kb();
      const double cw = clock_us(CLOCK_MONOTONIC), cc = clock_us(CLOCK_THREAD_CPUTIME_ID);
      if (pw) {
#ifdef MADV_POPULATE_WRITE
        if (madvise(p + at, huge, MADV_POPULATE_WRITE)) return perror("madvise"), 1;
#else
        return fprintf(stderr, "no MADV_POPULATE_WRITE\n"), 2;
#endif
      } else if (want_huge) {
        p[at] = 1;
      } else {
        for (size_t k = 0; k < huge; k += 4096) p[at + k] = 1;
      }
      const double ew = clock_us(CLOCK_MONOTONIC), ec = clock_us(CLOCK_THREAD_CPUTIME_ID);
      for (size_t k = 0; k < huge; k += 4096) ((volatile char *)p)[at + k] = 2;
      const double wc = clock_us(CLOCK_THREAD_CPUTIME_ID) - ec;
      writes += wc;
      printf("chunk %zu wall_us=%.1f cpu_us=%.1f huge=%d write_us=%.1f\n", at / huge, ew - cw,
             ec - cc, anon_huge_kb() > t0, wc);
    }
  }
  const double w1 = clock_us(CLOCK_MONOTONIC), c1 = clock_us(CLOCK_THREAD_CPUTIME_ID);
  printf("total %s reuse=%d wall_us=%.1f cpu_us=%.1f minflt=%ld thp_chunks=%ld write_us=%.1f\n",
         mode, reuse, w1 - w0 - writes, c1 - c0 - writes, minflt() - flt0,
         (anon_huge_kb() - thp0) / 2048, writes);
  return 0;
}
