/* Kernels: a public func.func without arguments or results in a kernel
 * module becomes an entry point i32 (ptr dispatch, ptr workgroup) (made by
 * the llvm_cpu ABI helpers) returning 0; its hal.interface.* ops read the
 * dispatch and workgroup states:
 *   binding {binding = N} : memref<...>   a descriptor over binding N's
 *       pointer (loaded with an alignment assumption, llvm.assume "align")
 *   constant {index = N} : i32            push constant N
 *   workgroup.id/count/size {dim = D}     zero-extended to index
 * and every kernel gets a row of the export table: workgroup size from the
 * options, else from `kiln.launch = {workgroup_size = [x, y, z]}`, else 1;
 * binding/push-constant counts and the read-only mask from the options or
 * from what the body uses (a binding some memref.store, vector.store or
 * memref.copy writes through a view of is not read-only). */
#include "tl_internal.h"

#include <string.h>

#include "dialects/hal_interface.h"

bool tl_is_kernel(const kiln_op *f) {
  if (f->kind != KILN_OP_FUNC_FUNC || !f->regions[0].first) return false;
  const kiln_attr *ft = kiln_op_get_attr(f, "function_type");
  const kiln_attr *v = kiln_op_get_attr(f, "sym_visibility");
  bool pub = !v || (v->kind == KILN_ATTR_STRING && v->len == 6 && !memcmp(v->str, "public", 6));
  return pub && ft && ft->kind == KILN_ATTR_TYPE && ft->type->num_inputs == 0 &&
         ft->type->num_results == 0;
}

bool tl_kernel_begin(tl *t, kiln_op *f, LLVMValueRef *fn) {
  if (t->opts->gpu_kernels) return tl_ptx_kernel_begin(t, f, fn);
  const char *name = kiln_symbol_name(f);
  if (LLVMGetNamedFunction(t->m, name)) {
    tl_fail(t, f, "function name '%s' is already taken", name);
    return false;
  }
  *fn = kiln_llvm_cpu_abi_add_entry(&t->abi, t->m, name);
  return true;
}

/* The binding a memref value views, following view ops; -1 if none. */
static int64_t binding_of(kiln_value *v) {
  for (int depth = 0; v && v->def && depth < 64; depth++) {
    kiln_op *d = v->def;
    if (d->kind == KILN_OP_HAL_INTERFACE_BINDING) return kiln_hal_interface_selector(d);
    switch (d->kind) {
    case KILN_OP_MEMREF_SUBVIEW: case KILN_OP_MEMREF_CAST:
    case KILN_OP_MEMREF_REINTERPRET_CAST: case KILN_OP_MEMREF_COLLAPSE_SHAPE:
    case KILN_OP_MEMREF_EXPAND_SHAPE:
      v = kiln_op_operand(d, 0);
      break;
    default: return -1;
    }
  }
  return -1;
}

static kiln_walk_result note_writes(kiln_op *op, void *user) {
  uint32_t *mask = user;
  int64_t b = -1;
  if (op->kind == KILN_OP_MEMREF_STORE || op->kind == KILN_OP_VECTOR_STORE)
    b = binding_of(kiln_op_operand(op, 1));
  else if (op->kind == KILN_OP_MEMREF_COPY)
    b = binding_of(kiln_op_operand(op, 1));
  if (b >= 0 && b < 32) *mask |= 1u << b;
  return KILN_WALK_ADVANCE;
}

bool tl_binding_dims(tl *t, kiln_op *op, LLVMValueRef *dims) {
  if (op->num_operands > TL_MAX_RANK) return tl_fail(t, op, "rank too large"), false;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!(dims[i] = tl_get(t, op, kiln_op_operand(op, i)))) return false;
  return true;
}

void tl_kernel_op(tl *t, kiln_op *op) {
  if (!t->in_kernel) {
    tl_fail(t, op, "is only valid in a kernel (a public function without arguments in a kernel module)");
    return;
  }
  if (t->opts->gpu_kernels) {
    tl_ptx_kernel_op(t, op);
    return;
  }
  int64_t sel = kiln_hal_interface_selector(op);
  LLVMValueRef v;
  switch (op->kind) {
  case KILN_OP_HAL_INTERFACE_BINDING: {
    const kiln_type *mt = op->results[0].type;
    if (sel < 0 || sel >= 32 || mt->kind != KILN_TYPE_MEMREF) {
      tl_fail(t, op, "malformed binding");
      return;
    }
    LLVMValueRef dims[TL_MAX_RANK];
    if (!tl_binding_dims(t, op, dims)) return;
    uint32_t align = t->opts->binding_alignment ? t->opts->binding_alignment : 64;
    LLVMValueRef p = kiln_llvm_cpu_abi_load_binding(&t->abi, t->b, t->dispatch, (uint32_t)sel, align);
    v = tl_desc_over(t, op, mt, p, dims);
    if (!v) return;
    if (sel > t->kinfo.max_binding) t->kinfo.max_binding = (int32_t)sel;
    break;
  }
  case KILN_OP_HAL_INTERFACE_CONSTANT:
    if (sel < 0 || sel >= 1 << 16) {
      tl_fail(t, op, "malformed push constant index");
      return;
    }
    v = kiln_llvm_cpu_abi_load_push_constant(&t->abi, t->b, t->dispatch, (uint32_t)sel);
    if (sel > t->kinfo.max_constant) t->kinfo.max_constant = (int32_t)sel;
    break;
  default: {
    if (sel < 0 || sel > 2) {
      tl_fail(t, op, "dim must be 0, 1 or 2");
      return;
    }
    uint32_t d = (uint32_t)sel;
    v = op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_ID
            ? kiln_llvm_cpu_abi_load_workgroup_id(&t->abi, t->b, t->workgroup, d)
        : op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_COUNT
            ? kiln_llvm_cpu_abi_load_workgroup_count(&t->abi, t->b, t->dispatch, d)
            : kiln_llvm_cpu_abi_load_workgroup_size(&t->abi, t->b, t->dispatch, d);
    v = LLVMBuildZExt(t->b, v, t->i64, "");
  }
  }
  tl_set(t, &op->results[0], v);
}

static const kiln_to_llvm_export *override_of(tl *t, const char *name) {
  for (uint32_t i = 0; i < t->opts->export_count; i++)
    if (t->opts->exports[i].name && strcmp(t->opts->exports[i].name, name) == 0)
      return &t->opts->exports[i];
  return NULL;
}

void tl_kernel_export_of(tl *t, kiln_op *f, LLVMValueRef fn, kiln_llvm_cpu_export_t *out) {
  memset(out, 0, sizeof *out);
  out->name = kiln_symbol_name(f);
  out->entry = fn;
  const tl_kernel_info *ki = kiln_ptr_map_get(&t->kinfos, f);
  tl_kernel_info none = {-1, -1, 0};
  if (!ki) ki = &none;
  uint32_t written = 0;
  kiln_walk_pre(f, note_writes, &written);
  out->binding_count = (uint32_t)(ki->max_binding + 1);
  out->push_constant_count = (uint32_t)(ki->max_constant + 1);
  out->readonly_binding_mask =
      (out->binding_count >= 32 ? 0xffffffffu : ((1u << out->binding_count) - 1)) & ~written;
  for (int i = 0; i < 3; i++) out->workgroup_size[i] = 1;
  const kiln_attr *launch = kiln_op_get_attr(f, "kiln.launch");
  const kiln_attr *wg = launch && launch->kind == KILN_ATTR_DICT ? kiln_dict_get(launch, "workgroup_size") : NULL;
  if (wg && wg->kind == KILN_ATTR_DENSE_ARRAY)
    for (uint32_t i = 0; i < wg->count && i < 3; i++) {
      int64_t x = ((const int64_t *)wg->data)[i];
      if (x > 0 && x <= UINT32_MAX) out->workgroup_size[i] = (uint32_t)x;
    }
  else if (wg && wg->kind == KILN_ATTR_ARRAY)
    for (uint32_t i = 0; i < wg->count && i < 3; i++)
      if (wg->elems[i]->kind == KILN_ATTR_INTEGER && wg->elems[i]->i > 0)
        out->workgroup_size[i] = (uint32_t)wg->elems[i]->i;
  const kiln_to_llvm_export *o = override_of(t, out->name);
  if (!o) return;
  for (int i = 0; i < 3; i++)
    if (o->workgroup_size[i]) out->workgroup_size[i] = o->workgroup_size[i];
  if (o->binding_count >= 0) out->binding_count = (uint32_t)o->binding_count;
  if (o->push_constant_count >= 0) out->push_constant_count = (uint32_t)o->push_constant_count;
  if (o->readonly_mask >= 0) out->readonly_binding_mask = (uint32_t)o->readonly_mask;
}

kiln_error *tl_kernel_emit_table(tl *t, kiln_op *module, kiln_llvm_cpu_export_t *exports,
                                 uint32_t count) {
  (void)module;
  kiln_error *s = kiln_llvm_cpu_abi_emit_table(&t->abi, t->m, exports, count);
  if (!s) return NULL;
  kiln_error *e = kiln_error_new("export table: %s", kiln_error_message(s));
  kiln_error_free(s);
  return e;
}
