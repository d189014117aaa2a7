/* Pass manager: global registries of named passes and pipelines, pipeline
 * parsing ("a,b" or MLIR's "builtin.module(func.func(a),b)"; a target
 * anchor "cuda(a,b)" restricts kernel passes to that target's variants),
 * running with verification after each pass, --print-ir-after-all /
 * --print-ir-after=PASS dumps and a --timing table. Kernel passes run on
 * each hal.executable.variant's inner module (ir.h says which).
 * Guarantees: an unknown pass name is an error listing what exists; a pass
 * that breaks the IR fails the run with the pass named, and a kernel pass
 * failing on a variant names the executable and the variant. */
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
    kiln_pass_info pi = {g_pipelines[i].name, g_pipelines[i].description, NULL, NULL,
                         KILN_PASS_MODULE};
    fn(&pi, user);
  }
}

/* One step of a pipeline: a pass, and for kernel passes the target kind
 * whose variants it runs on ("" = every variant). */
typedef struct pm_entry {
  const kiln_pass_info *pass;
  char target[32];
} pm_entry;

struct kiln_pass_manager {
  kiln_context *ctx;
  pm_entry *passes;
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

static kiln_error *add_list(kiln_pass_manager *pm, const char **s, int depth,
                            const char *target);

static kiln_error *add_entry(kiln_pass_manager *pm, const kiln_pass_info *p, const char *target) {
  if (*target && p->anchor != KILN_PASS_KERNELS)
    return kiln_error_new("pass '%s' runs on the whole module, not inside target '%s'", p->name,
                          target);
  if (strlen(target) >= sizeof pm->passes[0].target)
    return kiln_error_new("target name '%s' is too long", target);
  if (pm->num == pm->cap) {
    size_t cap = pm->cap ? pm->cap * 2 : 16;
    pm_entry *n = realloc(pm->passes, cap * sizeof *n);
    if (!n) return kiln_error_new("out of memory");
    pm->passes = n;
    pm->cap = cap;
  }
  pm_entry *e = &pm->passes[pm->num++];
  e->pass = p;
  snprintf(e->target, sizeof e->target, "%s", target);
  return NULL;
}

static kiln_error *add_name(kiln_pass_manager *pm, const char *name, int depth,
                            const char *target) {
  const kiln_pass_info *p = kiln_pass_lookup(name);
  if (p) return add_entry(pm, p, target);
  for (size_t i = 0; i < g_num_pipelines; i++)
    if (strcmp(g_pipelines[i].name, name) == 0) {
      if (depth > 16) return kiln_error_new("pipeline '%s' expands recursively", name);
      const char *t = g_pipelines[i].pipeline;
      kiln_error *e = add_list(pm, &t, depth + 1, target);
      if (!e && *t) e = kiln_error_new("unexpected '%c' in pipeline '%s'", *t, name);
      return e;
    }
  return unknown(name);
}

/* Anchors that name IR, not a target: their contents run as if unnested. */
static bool transparent_anchor(const char *name) {
  return strcmp(name, "builtin.module") == 0 || strcmp(name, "func.func") == 0 ||
         strcmp(name, "hal.executable") == 0 || strcmp(name, "hal.executable.variant") == 0;
}

/* list := item (',' item)* ; item := name | name '(' list ')' */
static kiln_error *add_list(kiln_pass_manager *pm, const char **s, int depth,
                            const char *target) {
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
    if (**s == '(') {
      const char *inner = target;
      if (!transparent_anchor(name)) {
        if (*target)
          return kiln_error_new("target '%s' nested inside target '%s' in pass pipeline", name,
                                target);
        inner = name;
      }
      (*s)++;
      while (**s == ' ') (*s)++;
      if (**s != ')') {
        kiln_error *e = add_list(pm, s, depth + 1, inner);
        if (e) return e;
      }
      if (**s != ')') return kiln_error_new("expected ')' in pass pipeline after '%s('", name);
      (*s)++;
    } else {
      kiln_error *e = add_name(pm, name, depth, target);
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
  kiln_error *e = add_list(pm, &s, 0, "");
  if (!e && *s) e = kiln_error_new("unexpected '%c' in pass pipeline", *s);
  return e;
}

kiln_error *kiln_pm_add_pass(kiln_pass_manager *pm, const char *name) {
  return add_name(pm, name, 0, "");
}

kiln_error *kiln_pm_add_target_pass(kiln_pass_manager *pm, const char *target,
                                    const char *name) {
  const kiln_pass_info *p = kiln_pass_lookup(name);
  if (!p) return unknown(name);
  return add_entry(pm, p, target);
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

/* Is a target string ("cuda:sm_80", "llvm-cpu") of kind KIND ("" = any)? */
static bool target_is(const kiln_attr *t, const char *kind) {
  if (!*kind) return true;
  if (!t || t->kind != KILN_ATTR_STRING) return false;
  const size_t n = strlen(kind);
  return strncmp(t->str, kind, n) == 0 && (t->str[n] == 0 || t->str[n] == ':');
}

/* The kernel modules entry e runs on, in IR order (collected before the
 * pass runs, so variants a pass adds are not visited). */
static kiln_error *kernel_modules(const pm_entry *e, kiln_op *module, kiln_op ***out,
                                  size_t *count) {
  kiln_op_list l = {0};
  bool any_executable = false;
  kiln_block *top = kiln_module_body(module);
  for (kiln_op *x = top ? top->first : NULL; x; x = x->next) {
    if (x->kind != KILN_OP_HAL_EXECUTABLE) continue;
    any_executable = true;
    kiln_block *xb = x->num_regions ? x->regions[0].first : NULL;
    for (kiln_op *var = xb ? xb->first : NULL; var; var = var->next) {
      if (var->kind != KILN_OP_HAL_EXECUTABLE_VARIANT ||
          !target_is(kiln_op_get_attr(var, "target"), e->target))
        continue;
      kiln_block *vb = var->num_regions ? var->regions[0].first : NULL;
      for (kiln_op *m = vb ? vb->first : NULL; m; m = m->next) {
        if (m->kind == KILN_OP_BUILTIN_MODULE && !kiln_op_list_push(&l, m)) {
          free(l.ops);
          return kiln_error_new("out of memory");
        }
      }
    }
  }
  if (!any_executable && (!*e->target || target_is(kiln_op_get_attr(module, "kiln.target"), e->target)) &&
      !kiln_op_list_push(&l, module))
    return kiln_error_new("out of memory");
  *out = l.ops;
  *count = l.n;
  return NULL;
}

/* Runs entry e; *ran is false when a kernel pass found nothing to run on. */
static kiln_error *run_entry(const pm_entry *e, kiln_op *module, bool *ran) {
  const kiln_pass_info *p = e->pass;
  *ran = true;
  if (p->anchor != KILN_PASS_KERNELS) return p->run(module, p->user);
  kiln_op **mods = NULL;
  size_t n = 0;
  kiln_error *err = kernel_modules(e, module, &mods, &n);
  *ran = n > 0;
  for (size_t i = 0; i < n && !err; i++) {
    err = p->run(mods[i], p->user);
    kiln_op *var = kiln_op_parent_op(mods[i]);
    if (err && var && var->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) {
      const char *vname = kiln_symbol_name(var);
      const char *xname = kiln_symbol_name(kiln_op_parent_op(var));
      kiln_error *wrapped = kiln_error_new("executable @%s variant @%s: %s", xname ? xname : "?",
                                           vname ? vname : "?", kiln_error_message(err));
      kiln_error_free(err);
      err = wrapped;
    }
  }
  free(mods);
  return err;
}

/* "name" or "name (target)", for dumps and the timing table. */
static void entry_label(const pm_entry *e, char *buf, size_t size) {
  if (*e->target) snprintf(buf, size, "%s (%s)", e->pass->name, e->target);
  else snprintf(buf, size, "%s", e->pass->name);
}

kiln_error *kiln_pm_run(kiln_pass_manager *pm, kiln_op *module) {
  double *times = calloc(pm->num + 1, sizeof *times);
  bool *ran = calloc(pm->num + 1, sizeof *ran);
  if ((!times || !ran) && pm->num) {
    free(times);
    free(ran);
    return kiln_error_new("out of memory");
  }
  double start = now();
  kiln_error *err = NULL;
  for (size_t i = 0; i < pm->num && !err; i++) {
    const kiln_pass_info *p = pm->passes[i].pass;
    double t0 = now();
    err = run_entry(&pm->passes[i], module, &ran[i]);
    times[i] = now() - t0;
    if (err) {
      kiln_error *wrapped = kiln_error_new("pass '%s' failed: %s", p->name, kiln_error_message(err));
      kiln_error_free(err);
      err = wrapped;
      break;
    }
    if (!ran[i]) continue;
    if (pm->verify_each && !kiln_verify(module)) {
      err = kiln_error_new("pass '%s' produced invalid IR", p->name);
      break;
    }
    FILE *dump = pm->print_all ? pm->print_all
                               : (wants_dump(pm, p->name) ? pm->print_after_out : NULL);
    if (dump) {
      char label[192];
      entry_label(&pm->passes[i], label, sizeof label);
      fprintf(dump, "// -----// IR Dump After %s //----- //\n", label);
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
    for (size_t i = 0; i < pm->num; i++) {
      if (!ran[i]) continue;
      char label[192];
      entry_label(&pm->passes[i], label, sizeof label);
      fprintf(o, "  %8.4f (%5.1f%%)  %s\n", times[i],
              total > 0 ? 100.0 * times[i] / total : 0.0, label);
    }
    fprintf(o, "  %8.4f (100.0%%)  Total\n", total);
  }
  free(times);
  free(ran);
  return err;
}
