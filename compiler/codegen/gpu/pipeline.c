/* The GPU pipeline of one cuda variant, top to bottom, and the SIMT-on-CPU
 * copy of it (see codegen_gpu.h for what each step guarantees). The
 * tiling and the lowering of linalg to loops are compiler/codegen/cpu's
 * passes run on the variant's inner module (a codegen-level module for
 * them), so the GPU grid equals the CPU workgroup grid. */
#include "gpu_internal.h"

#include <stdio.h>
#include <string.h>

kiln_error *gpu_select_launch_config(kiln_op *top, kiln_op *exe, kiln_op *var, kiln_op *inner,
                                     uint32_t sm);

static kiln_op *inner_module(kiln_op *var) {
  for (kiln_op *o = var->regions[0].first ? var->regions[0].first->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_BUILTIN_MODULE) return o;
  return NULL;
}

kiln_error *kiln_codegen_gpu_lower_variant(kiln_op *top, kiln_op *exe, kiln_op *var) {
  const kiln_attr *t = kiln_op_get_attr(var, "target");
  unsigned sm = 0;
  if (!t || t->kind != KILN_ATTR_STRING || sscanf(t->str, "cuda:sm_%u", &sm) != 1)
    return kiln_error_new("variant @%s is not a cuda:sm_NN variant", kiln_symbol_name(var));
  kiln_op *inner = inner_module(var);
  if (!inner) return kiln_error_new("variant @%s has no inner builtin.module", kiln_symbol_name(var));
  kiln_error *err = gpu_select_launch_config(top, exe, var, inner, sm);
  if (!err) err = kiln_codegen_cpu_tile_and_distribute(inner, NULL);
  if (!err) err = kiln_codegen_gpu_distribute_to_threads(inner);
  if (!err) err = kiln_codegen_cpu_lower_to_loops(inner, NULL);
  if (!err) err = kiln_codegen_cpu_remove_single_iteration_loops(inner, NULL);
  return err;
}

kiln_error *kiln_codegen_gpu_add_simt_variant(kiln_op *var, kiln_op **out) {
  kiln_context *c = kiln_op_context(var);
  kiln_value_map map;
  memset(&map, 0, sizeof map);
  kiln_op *copy = kiln_op_clone(var, &map);
  kiln_block_insert_after(var, copy);
  char name[256];
  snprintf(name, sizeof name, "simt_cpu_%s", kiln_symbol_name(var));
  kiln_op_set_attr(copy, "sym_name", kiln_attr_string(c, name, strlen(name)));
  kiln_op_set_attr(copy, "target", kiln_attr_string(c, "llvm-cpu", 8));
  kiln_op *inner = inner_module(copy);
  if (inner) kiln_op_remove_attr(inner, "kiln.target");
  *out = copy;
  return inner ? kiln_codegen_gpu_simt_to_loops(inner) : NULL;
}
