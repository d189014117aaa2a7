/* Target strings of the hal stage: which ones are valid (exactly what the
 * back ends' parsers accept: compiler/codegen/llvm_cpu for llvm-cpu[...],
 * compiler/codegen/cuda for cuda:sm_XX) and where assign-targets takes
 * them from (the C API, else the module's kiln.targets, else the host). */
#include "hl_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_ptx.h"
#include "llvm_cpu.h"

static char **g_targets;
static size_t g_num_targets;

static bool has_prefix(const char *s, const char *p) {
  size_t n = strlen(p);
  return strncmp(s, p, n) == 0 && (s[n] == '\0' || s[n] == ':');
}

kiln_error *kiln_hal_check_target(const char *t) {
  if (!t) return kiln_error_new("no target given");
  if (has_prefix(t, "llvm-cpu")) {
    kiln_llvm_cpu_target_t tgt;
    kiln_llvm_cpu_status_t s = kiln_llvm_cpu_target_parse(t, &tgt);
    if (s) {
      kiln_error *e = kiln_error_new("%s", kiln_llvm_cpu_status_message(s));
      kiln_llvm_cpu_status_free(s);
      return e;
    }
    kiln_llvm_cpu_target_release(&tgt);
    return NULL;
  }
  if (has_prefix(t, "cuda")) {
    kiln_ptx_target_t tgt;
    kiln_ptx_status_t s = kiln_ptx_target_parse(t, &tgt);
    if (s) {
      kiln_error *e = kiln_error_new("%s", kiln_llvm_cpu_status_message(s));
      kiln_llvm_cpu_status_free(s);
      return e;
    }
    return NULL;
  }
  static const char arches[] = "host"
#define LCPU_ARCH(ID, NAME, ...) ", " NAME
#include "llvm_cpu_arches.def"
#undef LCPU_ARCH
      ;
  return kiln_error_new("unknown target '%s'; valid targets: llvm-cpu[:ARCH[+FEATURE...]] "
                        "with ARCH one of %s; cuda:SM with SM one of %s",
                        t, arches, kiln_ptx_valid_sms());
}

kiln_error *kiln_hal_set_targets(size_t n, const char *const *targets) {
  for (size_t i = 0; i < n; i++) {
    kiln_error *e = kiln_hal_check_target(targets[i]);
    if (e) return e;
  }
  for (size_t i = 0; i < g_num_targets; i++) free(g_targets[i]);
  free(g_targets);
  g_targets = NULL;
  g_num_targets = 0;
  if (!n) return NULL;
  g_targets = calloc(n, sizeof *g_targets);
  if (!g_targets) return kiln_error_new("out of memory");
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(targets[i]);
    g_targets[i] = malloc(len + 1);
    if (!g_targets[i]) return kiln_error_new("out of memory");
    memcpy(g_targets[i], targets[i], len + 1);
    g_num_targets++;
  }
  return NULL;
}

kiln_error *hl_targets(kiln_op *module, const char ***out, uint32_t *n) {
  kiln_context *ctx = kiln_op_context(module);
  if (g_num_targets) {
    const char **v = kiln_alloc(ctx, g_num_targets * sizeof *v);
    for (size_t i = 0; i < g_num_targets; i++) v[i] = kiln_intern_cstr(ctx, g_targets[i]);
    *out = v;
    *n = (uint32_t)g_num_targets;
    return NULL;
  }
  const kiln_attr *a = kiln_op_get_attr(module, "kiln.targets");
  if (a) {
    if (a->kind != KILN_ATTR_ARRAY || a->count == 0)
      return kiln_error_new("assign-targets: module attribute 'kiln.targets' must be a non-empty array of target strings");
    const char **v = kiln_alloc(ctx, a->count * sizeof *v);
    for (uint32_t i = 0; i < a->count; i++) {
      const kiln_attr *s = a->elems[i];
      if (s->kind != KILN_ATTR_STRING || strlen(s->str) != s->len)
        return kiln_error_new("assign-targets: 'kiln.targets' entry #%u is not a target string", i);
      v[i] = s->str;
    }
    *out = v;
    *n = a->count;
    return NULL;
  }
  const char **v = kiln_alloc(ctx, sizeof *v);
  v[0] = kiln_intern_cstr(ctx, "llvm-cpu");
  *out = v;
  *n = 1;
  return NULL;
}
