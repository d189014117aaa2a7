/* probe_cores: how long a cache line takes to go between two cores and
 * back, the cost under every handoff of data between local-task's
 * threads (a dispatch reading what the other thread wrote). Takes two CPU
 * numbers (default: the first two this process may run on) and a count;
 * two threads pinned to them bounce one line COUNT times. On this VM
 * the host moves its vCPUs: the same two CPUs measured 60 ns (one core
 * complex) and 330 ns (across chiplets) minutes apart, and ResNet-18's
 * steady call on local-task took 13.3 and 20.7 ms with them (its
 * single-workgroup Winograd input transforms 180 and 780-1000 us, on
 * data the other thread wrote). Run it beside 2-thread figures, under
 * `chrt -f 10` on a loaded machine (else a preempted thread is timed).
 * Not a test.
 *
 * usage: probe_cores [CPU_A CPU_B [COUNT]]
 * prints: "cpus=A,B round_trip_ns=.." */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static _Alignas(64) atomic_long ball;
static atomic_int ready; /* the other thread: 1 pinned, -1 could not pin */
static long count = 200000;

static int pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

/* The other side: returns each odd value as the next even one. */
static void *bounce(void *arg) {
  if (pin(*(int *)arg)) {
    atomic_store(&ready, -1);
    return NULL;
  }
  atomic_store(&ready, 1);
  for (long i = 0; i < count; ++i) {
    while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 1) {
    }
    atomic_store_explicit(&ball, 2 * i + 2, memory_order_release);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int cpu[2] = {-1, -1};
  if (argc > 2) {
    cpu[0] = atoi(argv[1]);
    cpu[1] = atoi(argv[2]);
  } else {
    cpu_set_t s;
    if (sched_getaffinity(0, sizeof s, &s)) return 2;
    for (int c = 0, n = 0; c < CPU_SETSIZE && n < 2; ++c)
      if (CPU_ISSET(c, &s)) cpu[n++] = c;
  }
  if (argc > 3) count = atol(argv[3]);
  if (cpu[0] < 0 || cpu[1] < 0 || cpu[0] >= CPU_SETSIZE || cpu[1] >= CPU_SETSIZE || count < 1) {
    fprintf(stderr, "usage: probe_cores [CPU_A CPU_B [COUNT]] (two CPUs needed)\n");
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, bounce, &cpu[1])) {
    fprintf(stderr, "probe_cores: cannot start a thread\n");
    return 1;
  }
  while (!atomic_load(&ready)) sched_yield();
  if (atomic_load(&ready) < 0 || pin(cpu[0])) {
    fprintf(stderr, "probe_cores: cannot pin to CPU %d\n", atomic_load(&ready) < 0 ? cpu[1] : cpu[0]);
    return 1; /* exiting ends the other thread */
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long i = 0; i < count; ++i) {
    atomic_store_explicit(&ball, 2 * i + 1, memory_order_release);
    while (atomic_load_explicit(&ball, memory_order_acquire) != 2 * i + 2) {
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  pthread_join(t, NULL);
  printf("cpus=%d,%d round_trip_ns=%.0f\n", cpu[0], cpu[1],
         ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)count);
  return 0;
}
