/* Kernel enumeration and the kiln.launch attribute (compiler/codegen/common).
 * Takes: a kernel module (a variant's inner module, or a codegen-level
 * module). Guarantees: every kernel func.func (no arguments, no results,
 * a body) is visited once, with its variant, export and executable when it
 * has them; the launch accessors read kiln.launch without changing it. */
#include "codegen_common.h"

#include <string.h>

kiln_block *cg_func_body(kiln_op *func) {
  return func->num_regions ? func->regions[0].first : NULL;
}

static bool is_kernel_func(kiln_op *f) {
  if (f->kind != KILN_OP_FUNC_FUNC || !cg_func_body(f)) return false;
  const kiln_attr *ft = kiln_op_get_attr(f, "function_type");
  return ft && ft->kind == KILN_ATTR_TYPE && ft->type->num_inputs == 0 &&
         ft->type->num_results == 0;
}

static kiln_error *each_in_module(kiln_op *mod, cg_kernel *k, cg_kernel_fn fn, void *user) {
  kiln_block *b = kiln_module_body(mod);
  for (kiln_op *f = b ? b->first : NULL; f; f = f->next) {
    if (!is_kernel_func(f)) continue;
    k->func = f;
    k->export = NULL;
    if (k->variant) {
      const char *name = kiln_symbol_name(f);
      kiln_block *vb = k->variant->regions[0].first;
      for (kiln_op *e = vb ? vb->first : NULL; e; e = e->next)
        if (e->kind == KILN_OP_HAL_EXECUTABLE_EXPORT && name && kiln_symbol_name(e) &&
            strcmp(kiln_symbol_name(e), name) == 0)
          k->export = e;
    }
    kiln_error *err = fn(k, user);
    if (err) return err;
  }
  return NULL;
}

kiln_error *cg_for_each_kernel(kiln_op *module, cg_kernel_fn fn, void *user) {
  kiln_op *var = kiln_op_parent_op(module);
  if (var && var->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) {
    /* A variant's inner module: the variant names the target, its exports
     * and the host dispatch sites of the executable record the grid. */
    const kiln_attr *t = kiln_op_get_attr(var, "target");
    kiln_op *exe = kiln_op_parent_op(var);
    cg_kernel k = {.executable = exe, .variant = var,
                   .target = t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu",
                   .top = exe ? kiln_op_parent_op(exe) : NULL};
    return each_in_module(module, &k, fn, user);
  }
  /* A codegen-level module: its kernels directly. */
  const kiln_attr *t = kiln_op_get_attr(module, "kiln.target");
  cg_kernel k = {.target = t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu",
                 .top = module};
  return each_in_module(module, &k, fn, user);
}

const kiln_attr *cg_launch(const kiln_op *func) {
  const kiln_attr *a = kiln_op_get_attr(func, "kiln.launch");
  return a && a->kind == KILN_ATTR_DICT ? a : NULL;
}

int cg_launch_array(const kiln_op *func, const char *name, int64_t *out, int max) {
  const kiln_attr *l = cg_launch(func);
  const kiln_attr *a = l ? kiln_dict_get(l, name) : NULL;
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || (int)a->count > max) return -1;
  for (uint32_t i = 0; i < a->count; i++) out[i] = ((const int64_t *)a->data)[i];
  return (int)a->count;
}

int64_t cg_launch_int(const kiln_op *func, const char *name, int64_t dflt) {
  const kiln_attr *l = cg_launch(func);
  const kiln_attr *a = l ? kiln_dict_get(l, name) : NULL;
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : dflt;
}
