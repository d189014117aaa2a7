/* kiln-bench --profile-dispatches: a dispatch observer (runtime.h) that
 * collects every dispatch's time per repetition, grouped by dispatch site
 * (executable, export and the bytecode that recorded it), and a report of
 * each site's median time and share of the calls, sorted by share, with
 * per-executable totals. */
#ifndef KILN_BENCH_DISPATCH_PROFILE_H
#define KILN_BENCH_DISPATCH_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "kiln/runtime.h"

typedef struct kiln_bench_profile kiln_bench_profile_t;

/* A profile for `repetitions` timed calls; NULL when out of memory. */
kiln_bench_profile_t *kiln_bench_profile_create(long repetitions);
void kiln_bench_profile_destroy(kiln_bench_profile_t *p);

/* The observer to install on the device, with p as its user pointer. */
void kiln_bench_profile_observe(void *p, const kiln_dispatch_event_t *e);

/* Dispatches seen after this count towards repetition `rep`; rep < 0
 * (warmup) ignores them. */
void kiln_bench_profile_begin(kiln_bench_profile_t *p, long rep);

/* Prints the report; call_ms[rep] is each timed call's latency. False if
 * memory ran out while observing (the report then says so). */
bool kiln_bench_profile_print(kiln_bench_profile_t *p, const double *call_ms,
                              FILE *out);

#endif /* KILN_BENCH_DISPATCH_PROFILE_H */
