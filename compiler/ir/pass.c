/* Pass manager: global registries of named passes and pipelines, pipeline
 * parsing ("a,b" or MLIR's "builtin.module(func.func(a),b)", flattened to
 * module-level passes), running with verification after each pass,
 * --print-ir-after-all / --print-ir-after=PASS dumps and a --timing table.
 * Guarantees: an unknown pass name is an error listing what exists; a pass
 * that breaks the IR fails the run with the pass named. */
#define _POSIX_C_SOURCE 200809L
#include "ir_internal.h"

#include <stdlib.h>
#include <time.h>

#define MAX_PASSES 256

static kiln_pass_info g_passes[MAX_PASSES];
static size_t g_num_passes;
typedef struct {
  const char *name, *description, *pipeline;
} pipeline_info;
static pipeline_info g_pipelines[MAX_PASSES];
static size_t g_num_pipelines;

void kiln_pass_register(const kiln_pass_info *info) {
  for (size_t i = 0; i < g_num_passes; i++)
    if (strcmp(g_passes[i].name, info->name) == 0) {
      g_passes[i] = *info;
      return;
    }
  if (g_num_passes < MAX_PASSES) g_passes[g_num_passes++] = *info;
}

void kiln_pipeline_register(const char *name, const char *description,
                            const char *pipeline) {
  for (size_t i = 0; i < g_num_pipelines; i++)
    if (strcmp(g_pipelines[i].name, name) == 0) {
      g_pipelines[i].description = description;
      g_pipelines[i].pipeline = pipeline;
      return;
    }
  if (g_num_pipelines < MAX_PASSES)
    g_pipelines[g_num_pipelines++] = (pipeline_info){name, description, pipeline};
}

const kiln_pass_info *kiln_pass_lookup(const char *name) {
  for (size_t i = 0; i < g_num_passes; i++)
    if (strcmp(g_passes[i].name, name) == 0) return &g_passes[i];
  return NULL;
}

void kiln_pass_foreach(void (*fn)(const kiln_pass_info *, void *), void *user) {
  for (size_t i = 0; i < g_num_passes; i++) fn(&g_passes[i], user);
  for (size_t i = 0; i < g_num_pipelines; i++) {
    kiln_pass_info pi = {g_pipelines[i].name, g_pipelines[i].description, NULL, NULL};
    fn(&pi, user);
  }
}

struct kiln_pass_manager {
  kiln_context *ctx;
  const kiln_pass_info **passes;
  size_t num, cap;
  FILE *print_all;
  char *print_after;
  FILE *print_after_out;
  FILE *timing;
  bool verify_each;
};

kiln_pass_manager *kiln_pm_create(kiln_context *ctx) {
  kiln_pass_manager *pm = calloc(1, sizeof *pm);
  if (!pm) return NULL;
  pm->ctx = ctx;
  pm->verify_each = true;
  return pm;
}

void kiln_pm_destroy(kiln_pass_manager *pm) {
  if (!pm) return;
  free(pm->passes);
  free(pm->print_after);
  free(pm);
}

static kiln_error *unknown(const char *name) {
  ir_buf b = {0};
  ir_buf_printf(&b, "unknown pass or pipeline '%s'; known:", name);
  for (size_t i = 0; i < g_num_passes; i++) ir_buf_printf(&b, " %s", g_passes[i].name);
  for (size_t i = 0; i < g_num_pipelines; i++) ir_buf_printf(&b, " %s", g_pipelines[i].name);
  if (!g_num_passes && !g_num_pipelines) ir_buf_puts(&b, " (none registered)");
  kiln_error *e = kiln_error_new("%s", b.data);
  ir_buf_free(&b);
  return e;
}

static kiln_error *add_list(kiln_pass_manager *pm, const char **s, int depth);

static kiln_error *add_name(kiln_pass_manager *pm, const char *name, int depth) {
  const kiln_pass_info *p = kiln_pass_lookup(name);
  if (p) {
    if (pm->num == pm->cap) {
      pm->cap = pm->cap ? pm->cap * 2 : 16;
      const kiln_pass_info **n = realloc(pm->passes, pm->cap * sizeof *n);
      if (!n) return kiln_error_new("out of memory");
      pm->passes = n;
    }
    pm->passes[pm->num++] = p;
    return NULL;
  }
  for (size_t i = 0; i < g_num_pipelines; i++)
    if (strcmp(g_pipelines[i].name, name) == 0) {
      if (depth > 16) return kiln_error_new("pipeline '%s' expands recursively", name);
      const char *t = g_pipelines[i].pipeline;
      kiln_error *e = add_list(pm, &t, depth + 1);
      if (!e && *t) e = kiln_error_new("unexpected '%c' in pipeline '%s'", *t, name);
      return e;
    }
  return unknown(name);
}

/* list := item (',' item)* ; item := name | name '(' list ')' */
static kiln_error *add_list(kiln_pass_manager *pm, const char **s, int depth) {
  if (depth > 32) return kiln_error_new("pipeline nested too deeply");
  for (;;) {
    while (**s == ' ') (*s)++;
    const char *b = *s;
    while (**s && **s != ',' && **s != '(' && **s != ')' && **s != ' ' && **s != '{')
      (*s)++;
    size_t n = (size_t)(*s - b);
    char name[128];
    if (n == 0 || n >= sizeof name)
      return kiln_error_new("expected a pass name at '%.20s'", b);
    memcpy(name, b, n);
    name[n] = 0;
    while (**s == ' ') (*s)++;
    if (**s == '{') return kiln_error_new("pass options are not supported ('%s{...}')", name);
    if (**s == '(') { /* op anchor: every pass runs on the module anyway */
      (*s)++;
      while (**s == ' ') (*s)++;
      if (**s != ')') {
        kiln_error *e = add_list(pm, s, depth + 1);
        if (e) return e;
      }
      if (**s != ')') return kiln_error_new("expected ')' in pass pipeline after '%s('", name);
      (*s)++;
    } else {
      kiln_error *e = add_name(pm, name, depth);
      if (e) return e;
    }
    while (**s == ' ') (*s)++;
    if (**s != ',') return NULL;
    (*s)++;
  }
}

kiln_error *kiln_pm_add_pipeline(kiln_pass_manager *pm, const char *text) {
  const char *s = text;
  while (*s == ' ') s++;
  if (!*s) return NULL;
  kiln_error *e = add_list(pm, &s, 0);
  if (!e && *s) e = kiln_error_new("unexpected '%c' in pass pipeline", *s);
  return e;
}

kiln_error *kiln_pm_add_pass(kiln_pass_manager *pm, const char *name) {
  return add_name(pm, name, 0);
}

void kiln_pm_print_after_all(kiln_pass_manager *pm, FILE *out) { pm->print_all = out; }
void kiln_pm_print_after(kiln_pass_manager *pm, const char *pass, FILE *out) {
  free(pm->print_after);
  size_t n = strlen(pass);
  pm->print_after = malloc(n + 3);
  if (!pm->print_after) return;
  /* stored as ",a,b," for whole-name matching of a comma list */
  snprintf(pm->print_after, n + 3, ",%s,", pass);
  pm->print_after_out = out;
}
void kiln_pm_enable_timing(kiln_pass_manager *pm, FILE *out) { pm->timing = out; }
void kiln_pm_set_verify_each(kiln_pass_manager *pm, bool on) { pm->verify_each = on; }

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool wants_dump(kiln_pass_manager *pm, const char *name) {
  if (!pm->print_after) return false;
  char key[160];
  snprintf(key, sizeof key, ",%s,", name);
  return strstr(pm->print_after, key) != NULL;
}

kiln_error *kiln_pm_run(kiln_pass_manager *pm, kiln_op *module) {
  double *times = calloc(pm->num + 1, sizeof *times);
  if (!times && pm->num) return kiln_error_new("out of memory");
  double start = now();
  kiln_error *err = NULL;
  for (size_t i = 0; i < pm->num && !err; i++) {
    const kiln_pass_info *p = pm->passes[i];
    double t0 = now();
    err = p->run(module, p->user);
    times[i] = now() - t0;
    if (err) {
      kiln_error *wrapped = kiln_error_new("pass '%s' failed: %s", p->name, kiln_error_message(err));
      kiln_error_free(err);
      err = wrapped;
      break;
    }
    if (pm->verify_each && !kiln_verify(module)) {
      err = kiln_error_new("pass '%s' produced invalid IR", p->name);
      break;
    }
    FILE *dump = pm->print_all ? pm->print_all
                               : (wants_dump(pm, p->name) ? pm->print_after_out : NULL);
    if (dump) {
      fprintf(dump, "// -----// IR Dump After %s //----- //\n", p->name);
      kiln_print_op(dump, module, 0);
      fputc('\n', dump);
    }
  }
  double total = now() - start;
  if (pm->timing) {
    FILE *o = pm->timing;
    fputs("===-------------------------------------------------------------------------===\n", o);
    fputs("                         ... Execution time report ...\n", o);
    fputs("===-------------------------------------------------------------------------===\n", o);
    fprintf(o, "  Total Execution Time: %.4f seconds\n\n", total);
    fputs("  ----Wall Time----  ----Name----\n", o);
    for (size_t i = 0; i < pm->num; i++)
      fprintf(o, "  %8.4f (%5.1f%%)  %s\n", times[i],
              total > 0 ? 100.0 * times[i] / total : 0.0, pm->passes[i]->name);
    fprintf(o, "  %8.4f (100.0%%)  Total\n", total);
  }
  free(times);
  return err;
}
