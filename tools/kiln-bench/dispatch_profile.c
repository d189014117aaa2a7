/* Implements dispatch_profile.h. Sites are found by the names and bytecode
 * offset the runtime reports (its strings live in the module, so pointer
 * equality suffices); a call's dispatches come in the same order every
 * repetition, so the site after the last one matched is tried first. */
#include "dispatch_profile.h"

#include <stdlib.h>
#include <string.h>

typedef struct site {
  const char *executable, *export_name, *function, *source_file;
  uint32_t offset, line, column;
  unsigned long events; /* dispatches seen over the timed repetitions */
  double *ms;           /* per repetition: this site's summed time */
  double total, median;
  size_t order; /* first seen: ties keep the call's order */
} site_t;

struct kiln_bench_profile {
  long reps, rep;
  site_t *sites;
  size_t count, cap, next;
  bool out_of_memory;
};

kiln_bench_profile_t *kiln_bench_profile_create(long repetitions) {
  kiln_bench_profile_t *p = calloc(1, sizeof *p);
  if (p) {
    p->reps = repetitions;
    p->rep = -1;
  }
  return p;
}

void kiln_bench_profile_destroy(kiln_bench_profile_t *p) {
  if (!p) return;
  for (size_t i = 0; i < p->count; ++i) free(p->sites[i].ms);
  free(p->sites);
  free(p);
}

void kiln_bench_profile_begin(kiln_bench_profile_t *p, long rep) {
  p->rep = rep;
  p->next = 0;
}

static bool same_site(const site_t *s, const kiln_dispatch_event_t *e) {
  return s->executable == e->executable && s->export_name == e->export_name &&
         s->function == e->function && s->offset == e->bytecode_offset;
}

void kiln_bench_profile_observe(void *opaque, const kiln_dispatch_event_t *e) {
  kiln_bench_profile_t *p = opaque;
  if (p->rep < 0 || p->rep >= p->reps) return;
  size_t i = p->next;
  if (i >= p->count || !same_site(&p->sites[i], e))
    for (i = 0; i < p->count && !same_site(&p->sites[i], e); ++i) {
    }
  if (i == p->count) {
    if (p->count == p->cap) {
      const size_t cap = p->cap ? 2 * p->cap : 64;
      site_t *n = realloc(p->sites, cap * sizeof *n);
      if (!n) {
        p->out_of_memory = true;
        return;
      }
      p->sites = n;
      p->cap = cap;
    }
    site_t *s = &p->sites[p->count];
    memset(s, 0, sizeof *s);
    s->ms = calloc((size_t)p->reps, sizeof *s->ms);
    if (!s->ms) {
      p->out_of_memory = true;
      return;
    }
    s->executable = e->executable;
    s->export_name = e->export_name;
    s->function = e->function;
    s->source_file = e->source_file;
    s->offset = e->bytecode_offset;
    s->line = e->line;
    s->column = e->column;
    s->order = p->count++;
  }
  site_t *s = &p->sites[i];
  s->ms[p->rep] += (double)(e->end_ns - e->start_ns) / 1e6;
  ++s->events;
  p->next = i + 1;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of n values (the upper one for even n, as kiln-bench's quantile). */
static double median(const double *v, long n, double *scratch) {
  memcpy(scratch, v, (size_t)n * sizeof *v);
  qsort(scratch, (size_t)n, sizeof *scratch, cmp_double);
  return scratch[n / 2];
}

static int by_total(const void *a, const void *b) {
  const site_t *x = a, *y = b;
  if (x->total != y->total) return x->total < y->total ? 1 : -1;
  return (x->order > y->order) - (x->order < y->order);
}

static void fmt_time(double ms, char *buf, size_t size) {
  if (ms < 1.0)
    snprintf(buf, size, "%9.3f us", ms * 1e3);
  else
    snprintf(buf, size, "%9.3f ms", ms);
}

static void print_row(FILE *out, double share, double med, double per_call,
                      const char *what, const char *where) {
  char t[32], n[32] = "";
  fmt_time(med, t, sizeof t);
  if (per_call > 0) snprintf(n, sizeof n, "%.4g", per_call);
  fprintf(out, "  %6.2f%% %s %7s  %s%s%s\n", share, t, n, what,
          where[0] ? "  " : "", where);
}

bool kiln_bench_profile_print(kiln_bench_profile_t *p, const double *call_ms,
                              FILE *out) {
  const long n = p->reps;
  double calls = 0, in_dispatches = 0;
  unsigned long events = 0;
  for (long r = 0; r < n; ++r) calls += call_ms[r];
  double *scratch = malloc((size_t)n * sizeof *scratch);
  double *sum = calloc((size_t)n, sizeof *sum);
  if (!scratch || !sum) p->out_of_memory = true;
  if (p->out_of_memory) {
    fprintf(out, "dispatch profile: out of memory\n");
    free(scratch);
    free(sum);
    return false;
  }
  for (size_t i = 0; i < p->count; ++i) {
    site_t *s = &p->sites[i];
    for (long r = 0; r < n; ++r) s->total += s->ms[r];
    s->median = median(s->ms, n, scratch);
    in_dispatches += s->total;
    events += s->events;
  }
  qsort(p->sites, p->count, sizeof *p->sites, by_total);
  fprintf(out,
          "dispatch profile: %zu dispatch sites, %.4g dispatches per call, "
          "%ld repetitions\n"
          "    share  median/call  n/call  dispatch  location\n",
          p->count, (double)events / (double)n, n);
  const double scale = calls > 0 ? 100.0 / calls : 0;
  for (size_t i = 0; i < p->count; ++i) {
    const site_t *s = &p->sites[i];
    char what[512], where[512];
    if (strcmp(s->executable, s->export_name) == 0)
      snprintf(what, sizeof what, "%s", s->export_name);
    else
      snprintf(what, sizeof what, "%s/%s", s->executable, s->export_name);
    if (s->source_file)
      snprintf(where, sizeof where, "%s:%u:%u", s->source_file, s->line,
               s->column);
    else if (s->function)
      snprintf(where, sizeof where, "%s@0x%04x", s->function, s->offset);
    else
      where[0] = 0;
    print_row(out, s->total * scale, s->median, (double)s->events / (double)n,
              what, where);
  }
  for (size_t i = 0; i < p->count; ++i)
    for (long r = 0; r < n; ++r) sum[r] += p->sites[i].ms[r];
  print_row(out, in_dispatches * scale, median(sum, n, scratch),
            (double)events / (double)n, "all dispatches", "");
  for (long r = 0; r < n; ++r) sum[r] = call_ms[r] - sum[r];
  print_row(out, (calls - in_dispatches) * scale, median(sum, n, scratch), 0,
            "outside dispatches (VM, allocation, recording)", "");
  /* Per executable (its sites share its name pointer), largest first. */
  fprintf(out, "per executable:\n"
               "    share  median/call  n/call  executable\n");
  bool *done = calloc(p->count, sizeof *done);
  site_t *exes = calloc(p->count, sizeof *exes);
  size_t exe_count = 0;
  if (!done || !exes) {
    free(done);
    free(exes);
    free(scratch);
    free(sum);
    return false;
  }
  for (size_t i = 0; i < p->count; ++i) {
    if (done[i]) continue;
    site_t *x = &exes[exe_count++];
    x->executable = p->sites[i].executable;
    x->order = i;
    memset(sum, 0, (size_t)n * sizeof *sum);
    for (size_t j = i; j < p->count; ++j) {
      const site_t *s = &p->sites[j];
      if (s->executable != x->executable) continue;
      done[j] = true;
      x->total += s->total;
      x->events += s->events;
      for (long r = 0; r < n; ++r) sum[r] += s->ms[r];
    }
    x->median = median(sum, n, scratch);
  }
  qsort(exes, exe_count, sizeof *exes, by_total);
  for (size_t i = 0; i < exe_count; ++i)
    print_row(out, exes[i].total * scale, exes[i].median,
              (double)exes[i].events / (double)n, exes[i].executable, "");
  free(exes);
  free(done);
  free(scratch);
  free(sum);
  return true;
}
