/* Target strings of the hal stage: which ones are valid (exactly what the
 * back ends' parsers accept: compiler/codegen/llvm_cpu for llvm-cpu[...],
 * compiler/codegen/cuda for cuda:sm_XX) and where assign-targets takes
 * them from (the compile session, else the module's kiln.targets, else
 * the host). No process-wide state: two sessions in one process may
 * compile for different targets. */
#include "hl_internal.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_ptx.h"
#include "llvm_cpu.h"
#include "session.h"

static bool has_prefix(const char *s, const char *p) {
  size_t n = strlen(p);
  return strncmp(s, p, n) == 0 && (s[n] == '\0' || s[n] == ':');
}

kiln_error *kiln_hal_check_target(const char *t) {
  if (!t) return kiln_error_new("no target given");
  if (has_prefix(t, "llvm-cpu")) {
    kiln_llvm_cpu_target_t tgt;
    kiln_error *s = kiln_llvm_cpu_target_parse(t, &tgt);
    if (s) return s;
    kiln_llvm_cpu_target_release(&tgt);
    return NULL;
  }
  if (has_prefix(t, "cuda")) {
    kiln_ptx_target_t tgt;
    kiln_error *s = kiln_ptx_target_parse(t, &tgt);
    if (s) return s;
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

kiln_error *hl_targets(kiln_op *module, const char ***out, uint32_t *n) {
  kiln_context *ctx = kiln_op_context(module);
  const kiln_session *session = kiln_session_of(ctx);
  if (session && session->target_count) {
    const char **v = kiln_alloc(ctx, session->target_count * sizeof *v);
    for (uint32_t i = 0; i < session->target_count; i++) {
      kiln_error *e = kiln_hal_check_target(session->targets[i]);
      if (e) return e;
      v[i] = kiln_intern_cstr(ctx, session->targets[i]);
    }
    *out = v;
    *n = session->target_count;
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
