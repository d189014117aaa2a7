/* assign-targets: flow.executable -> hal.executable with one variant per
 * target.
 *
 * Takes: a module after the flow stage; the target list from the compile
 * session's --target values, else the module attribute kiln.targets =
 * [...], else "llvm-cpu" (the host). Guarantees: every target string is valid
 * (an unknown one fails the pass with a message listing the valid ones,
 * before anything changes); each flow.executable @X becomes
 * hal.executable @X holding, per target in the given order, a
 * hal.executable.variant @<target with [:+-.] turned into _> {target =
 * "<target>"} around a builtin.module with its own copy of the kernel.
 * A target listed twice yields one variant. */
#include "hl_internal.h"

#include <string.h>

static const char *variant_name(kiln_context *ctx, const char *target) {
  char buf[256];
  size_t n = strlen(target);
  if (n >= sizeof buf) n = sizeof buf - 1;
  for (size_t i = 0; i < n; i++) {
    char c = target[i];
    buf[i] = (c == ':' || c == '+' || c == '-' || c == '.' || c == ',') ? '_' : c;
  }
  buf[n] = 0;
  return kiln_intern_cstr(ctx, buf);
}

kiln_error *kiln_hal_pass_assign_targets(kiln_op *module, void *user) {
  (void)user;
  kiln_error *valid = hl_require_valid(module, "assign-targets");
  if (valid) return valid;
  kiln_context *ctx = kiln_op_context(module);
  const char **targets;
  uint32_t nt;
  kiln_error *err = hl_targets(module, &targets, &nt);
  if (err) return err;
  for (uint32_t i = 0; i < nt; i++) {
    kiln_error *e = kiln_hal_check_target(targets[i]);
    if (e) {
      kiln_error *w = kiln_error_new("assign-targets: %s", kiln_error_message(e));
      kiln_error_free(e);
      return w;
    }
  }
  uint32_t ne;
  kiln_op **exes = hl_module_ops(module, KILN_OP_FLOW_EXECUTABLE, &ne);
  for (uint32_t x = 0; x < ne; x++) {
    kiln_op *fexe = exes[x];
    kiln_block *fb = fexe->regions[0].first;
    kiln_op *kernel = NULL;
    for (kiln_op *o = fb ? fb->first : NULL; o; o = o->next)
      if (o->kind == KILN_OP_FUNC_FUNC) kernel = o;
    if (!kernel)
      return kiln_error_new("assign-targets: flow.executable @%s holds no kernel func.func",
                            kiln_symbol_name(fexe));
    kiln_op *hexe = kiln_op_create(ctx, KILN_OP_HAL_EXECUTABLE, fexe->loc, 0, NULL, 0, NULL,
                                   fexe->attrs, 1);
    kiln_block *hb = kiln_op_entry_block(ctx, hexe, 0);
    for (uint32_t t = 0; t < nt; t++) {
      const char *vname = variant_name(ctx, targets[t]);
      bool seen = false;
      for (uint32_t s = 0; s < t; s++) seen |= strcmp(vname, variant_name(ctx, targets[s])) == 0;
      if (seen) continue;
      kiln_named_attr va[2] = {
          hl_named(ctx, "sym_name", kiln_attr_string(ctx, vname, strlen(vname))),
          hl_named(ctx, "target", kiln_attr_string(ctx, targets[t], strlen(targets[t]))),
      };
      kiln_op *var = kiln_op_create(ctx, KILN_OP_HAL_EXECUTABLE_VARIANT, fexe->loc, 0, NULL, 0,
                                    NULL, kiln_attr_dict(ctx, 2, va), 1);
      kiln_block_append_op(hb, var);
      kiln_op *inner = kiln_module_create(ctx, fexe->loc);
      kiln_block_append_op(kiln_op_entry_block(ctx, var, 0), inner);
      kiln_value_map map = {0};
      kiln_block_append_op(kiln_module_body(inner), kiln_op_clone(kernel, &map));
    }
    kiln_block_insert_before(fexe, hexe);
    kiln_op_erase(fexe);
  }
  return NULL;
}
