/* kiln-run --trace-dispatches=DIR: a dispatch observer (runtime.h) that
 * writes, for every dispatch in execution order, the bytes of each
 * read-only binding as DIR/NNNNNN.EXPORT.inK.npy (EXPORT: the entry
 * point; one executable may hold several) and of each written one, after
 * the dispatch, as .outK.npy (1-D uint8: the module records no element
 * types, so a reader reinterprets them), and an index
 * DIR/index.json (sequence number, executable, export, node names, source
 * location, files). --trace-dispatches-filter=REGEX (POSIX extended)
 * keeps the dispatches whose executable, export or a node name matches;
 * sequence numbers still count every dispatch. */
#ifndef KILN_DISPATCH_TRACE_H
#define KILN_DISPATCH_TRACE_H

#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "kiln/runtime.h"

typedef struct kiln_dispatch_trace {
  const char *dir;
  regex_t filter;
  bool has_filter;
  FILE *index;
  uint64_t seq;     /* dispatches seen */
  uint64_t written; /* dispatches traced */
  bool failed;      /* the first failure's message is in err */
  char err[512];
} kiln_dispatch_trace_t;

/* Creates DIR (if missing) and its index; false with a message in err. */
bool kiln_dispatch_trace_open(kiln_dispatch_trace_t *t, const char *dir,
                              const char *filter, char *err, size_t err_cap);
/* The observer; t is its user pointer. After a failure it writes nothing
 * more (the failure is reported by close). */
void kiln_dispatch_trace_observe(void *t, const kiln_dispatch_event_t *e);
/* Finishes the index; false with a message if anything failed. */
bool kiln_dispatch_trace_close(kiln_dispatch_trace_t *t, char *err,
                               size_t err_cap);

#endif /* KILN_DISPATCH_TRACE_H */
