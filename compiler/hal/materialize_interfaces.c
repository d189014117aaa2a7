/* materialize-interfaces: the interface of each kernel, as an export.
 *
 * Takes: hal.executable variants from assign-targets, whose kernel takes
 * !flow.dispatch.tensor arguments (flow's contract: readonly inputs, then
 * writeonly results). Guarantees: each variant starts with
 * hal.executable.export @<kernel> {ordinal = 0 (one kernel per
 * executable, so the same in every variant), binding_count = the count of
 * !flow.dispatch.tensor arguments, readonly_mask = bit i set for each
 * readonly argument i, push_constant_count = the count of index
 * arguments after them (dynamic dims), written_mask = bit i set for
 * each result binding the kernel writes in full from defined values
 * (hl_written_mask: what its buffer held cannot reach a result),
 * workload = the one its flow.dispatch sites carry; window_mask, when
 * not 0: result bindings stored as windows of defined values, the rest
 * left as it was (hl_window_mask: place-concats' pieces)}. Binding i is kernel argument i, push
 * constant j the index argument after the bindings; at most 32 bindings.
 * bufferize-kernels then replaces the arguments by hal.interface.binding
 * and hal.interface.constant ops. */
#include "hl_internal.h"

#include <string.h>

static const kiln_attr *find_workload(kiln_op *module, const char *exe) {
  uint32_t nf;
  kiln_op **funcs = hl_module_ops(module, KILN_OP_FUNC_FUNC, &nf);
  for (uint32_t f = 0; f < nf; f++) {
    kiln_block *b = funcs[f]->regions[0].first;
    for (kiln_op *o = b ? b->first : NULL; o; o = o->next) {
      if (o->kind != KILN_OP_FLOW_DISPATCH) continue;
      const kiln_attr *ep = kiln_op_get_attr(o, "entry_point");
      if (ep && ep->kind == KILN_ATTR_SYMBOL_REF && strcmp(ep->str, exe) == 0)
        return kiln_op_get_attr(o, "workload");
    }
  }
  return NULL;
}

/* One variant: its export op, unless it has one. */
static kiln_error *materialize(kiln_context *ctx, kiln_op *executable, kiln_op *var, void *module) {
  const char *ename = kiln_symbol_name(executable);
  kiln_block *vb = kiln_op_entry_block(ctx, var, 0);
  bool has_export = false;
  for (kiln_op *o = vb->first; o; o = o->next) has_export |= o->kind == KILN_OP_HAL_EXECUTABLE_EXPORT;
  if (has_export) return NULL;
  kiln_op *kernel = hl_variant_kernel(var);
  if (!kernel) return kiln_error_new("materialize-interfaces: variant of @%s has no kernel", ename);
  const kiln_type *fty = kiln_op_get_attr(kernel, "function_type")->type;
  uint32_t nbind = 0;
  while (nbind < fty->num_inputs && fty->types[nbind]->kind != KILN_TYPE_INDEX) nbind++;
  const uint32_t npush = fty->num_inputs - nbind;
  if (nbind > 32)
    return kiln_error_new("materialize-interfaces: kernel @%s has %u bindings; at most 32 are supported",
                          kiln_symbol_name(kernel), nbind);
  for (uint32_t i = nbind; i < fty->num_inputs; i++)
    if (fty->types[i]->kind != KILN_TYPE_INDEX)
      return kiln_error_new("materialize-interfaces: kernel @%s argument #%u follows the push constants "
                            "but is not an index", kiln_symbol_name(kernel), i);
  int64_t mask = 0;
  for (uint32_t i = 0; i < nbind; i++) {
    const kiln_type *t = fty->types[i];
    if (t->kind != KILN_TYPE_OPAQUE || strcmp(t->dialect, "flow") != 0 ||
        strncmp(t->body, "dispatch.tensor<", 16) != 0)
      return kiln_error_new("materialize-interfaces: kernel @%s argument #%u is not a !flow.dispatch.tensor",
                            kiln_symbol_name(kernel), i);
    if (strncmp(t->body + 16, "readonly:", 9) == 0) mask |= (int64_t)1 << i;
  }
  const kiln_attr *workload = find_workload(module, ename);
  const char *kname = kiln_symbol_name(kernel);
  kiln_named_attr a[8] = {
      hl_named(ctx, "sym_name", kiln_attr_string(ctx, kname, strlen(kname))),
      hl_named(ctx, "ordinal", hl_i32(ctx, 0)),
      hl_named(ctx, "binding_count", hl_i32(ctx, nbind)),
      hl_named(ctx, "readonly_mask", hl_i32(ctx, mask)),
      hl_named(ctx, "push_constant_count", hl_i32(ctx, npush)),
      hl_named(ctx, "written_mask", hl_i32(ctx, hl_written_mask(kernel) & ~mask)),
      hl_named(ctx, "workload", workload),
  };
  uint32_t na = workload ? 7 : 6;
  int64_t windows = hl_window_mask(kernel) & ~mask;
  if (windows) a[na++] = hl_named(ctx, "window_mask", hl_i32(ctx, windows));
  kiln_op *exp = kiln_op_create(ctx, KILN_OP_HAL_EXECUTABLE_EXPORT, kernel->loc, 0, NULL, 0,
                                NULL, kiln_attr_dict(ctx, na, a), 0);
  if (vb->first) kiln_block_insert_before(vb->first, exp);
  else kiln_block_append_op(vb, exp);
  return NULL;
}

kiln_error *kiln_hal_pass_materialize_interfaces(kiln_op *module, void *user) {
  (void)user;
  return hl_each_variant(module, "materialize-interfaces", materialize, module);
}
