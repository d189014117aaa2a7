/* The GPU pipeline of one cuda variant, top to bottom, and the SIMT-on-CPU
 * copy of it (see codegen_gpu.h for what each step guarantees). The
 * tiling and the lowering of linalg to loops are compiler/codegen/cpu's
 * passes run on the variant's inner module (a codegen-level module for
 * them), so the GPU grid equals the CPU workgroup grid. */
#include "gpu_internal.h"

#include <stdio.h>
#include <string.h>

static kiln_op *inner_module(kiln_op *var) {
  for (kiln_op *o = var->regions[0].first ? var->regions[0].first->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_BUILTIN_MODULE) return o;
  return NULL;
}

/* Ops a pass already distributed (GPU_DISTRIBUTED) are hidden from
 * distribute-to-threads, which would otherwise run them on thread 0 (and
 * count their workgroup-memory allocas as private scratch): each is
 * detached and a barrier stands in its place; afterwards it goes back
 * after that barrier, with another barrier after it. */
typedef struct {
  kiln_op *op, *at; /* at: the placeholder barrier, or NULL for an alloca */
  kiln_block *body;
} hidden_op;

/* Hides at most max ops; false when there are more. */
static bool hide_distributed(kiln_op *inner, hidden_op *h, uint32_t max, uint32_t *count) {
  uint32_t n = 0;
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    if (!gpu_is_kernel(f)) continue;
    kiln_block *body = f->regions[0].first;
    for (kiln_op *o = body->first, *next; o; o = next) {
      next = o->next;
      if (!kiln_op_get_attr(o, GPU_DISTRIBUTED)) continue;
      if (n == max) {
        *count = n;
        return false;
      }
      kiln_op *at = NULL;
      if (o->kind != KILN_OP_MEMREF_ALLOCA) {
        kiln_builder b = kiln_builder_before(o);
        b.loc = o->loc;
        at = kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
      }
      kiln_op_remove(o);
      h[n++] = (hidden_op){o, at, body};
    }
  }
  *count = n;
  return true;
}

static void restore_distributed(hidden_op *h, uint32_t n) {
  for (uint32_t i = n; i-- > 0;) {
    if (!h[i].at) {
      kiln_block_insert_before(h[i].body->first, h[i].op);
      continue;
    }
    kiln_block_insert_after(h[i].at, h[i].op);
    kiln_builder b = kiln_builder_after(h[i].op);
    b.loc = h[i].op->loc;
    kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
  }
}

static kiln_error *distribute_rest(kiln_op *inner) {
  hidden_op h[256];
  uint32_t n;
  kiln_error *err = NULL;
  if (hide_distributed(inner, h, 256, &n)) err = kiln_codegen_gpu_distribute_to_threads(inner);
  else err = kiln_error_new("GPU pipeline: more than 256 already distributed ops in one variant");
  restore_distributed(h, n);
  return err;
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
  if (!err) err = kiln_codegen_gpu_tile_matmul_shared(inner);
  if (!err) err = distribute_rest(inner);
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
