/* Functions (seed: "Function Types", "Calling Convention", "C-compatible
 * wrapper emission"): one LLVM function per func.func whose parameters
 * are the arguments with every ranked memref expanded into its fields
 * (allocated, aligned, offset, sizes..., strides...) and every unranked
 * memref into (rank, descriptor ptr); no result -> void, one -> its type,
 * several -> a struct of them. func.return packs, func.call unpacks.
 * Public definitions get `_mlir_ciface_NAME`, whose memref arguments (and
 * a struct or memref result, passed first) are pointers to descriptors. */
#include "tl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const kiln_type *fn_type(const kiln_op *f) {
  const kiln_attr *a = kiln_op_get_attr(f, "function_type");
  return a && a->kind == KILN_ATTR_TYPE && a->type->kind == KILN_TYPE_FUNCTION ? a->type : NULL;
}

static bool is_public(const kiln_op *f) {
  const kiln_attr *v = kiln_op_get_attr(f, "sym_visibility");
  return !v || (v->kind == KILN_ATTR_STRING && v->len == 6 && memcmp(v->str, "public", 6) == 0);
}

/* Appends the expanded parameter types of one argument type. */
static bool expand_type(tl *t, const kiln_type *ty, LLVMTypeRef *out, unsigned *n) {
  if (ty->kind == KILN_TYPE_MEMREF) {
    if (!tl_type(t, ty)) return false;
    out[(*n)++] = t->ptr;
    out[(*n)++] = t->ptr;
    out[(*n)++] = t->i64;
    for (uint32_t i = 0; i < 2 * ty->rank; i++) out[(*n)++] = t->i64;
    return true;
  }
  if (ty->kind == KILN_TYPE_UNRANKED_MEMREF) {
    out[(*n)++] = t->i64;
    out[(*n)++] = t->ptr;
    return true;
  }
  LLVMTypeRef lt = tl_type(t, ty);
  if (!lt) return false;
  out[(*n)++] = lt;
  return true;
}

static unsigned expanded_count(const kiln_type *ft) {
  unsigned n = 0;
  for (uint32_t i = 0; i < ft->num_inputs; i++) {
    const kiln_type *ty = kiln_type_fn_input(ft, i);
    n += ty->kind == KILN_TYPE_MEMREF ? 3 + 2 * ty->rank
         : ty->kind == KILN_TYPE_UNRANKED_MEMREF ? 2 : 1;
  }
  return n;
}

static LLVMTypeRef result_type(tl *t, const kiln_type *ft) {
  if (!ft->num_results) return t->vd;
  if (ft->num_results == 1) return tl_type(t, kiln_type_fn_result(ft, 0));
  LLVMTypeRef *f = calloc(ft->num_results, sizeof *f);
  if (!f) return NULL;
  for (uint32_t i = 0; i < ft->num_results; i++) {
    f[i] = tl_type(t, kiln_type_fn_result(ft, i));
    if (!f[i]) {
      free(f);
      return NULL;
    }
  }
  LLVMTypeRef s = LLVMStructTypeInContext(t->c, f, ft->num_results, 0);
  free(f);
  return s;
}

static LLVMTypeRef llvm_fn_type(tl *t, const kiln_op *f, const kiln_type *ft) {
  unsigned n = 0;
  LLVMTypeRef *params = calloc(expanded_count(ft) + 1, sizeof *params);
  if (!params) return NULL;
  for (uint32_t i = 0; i < ft->num_inputs; i++)
    if (!expand_type(t, kiln_type_fn_input(ft, i), params, &n)) {
      free(params);
      char *s = kiln_type_to_string(kiln_type_fn_input(ft, i));
      tl_fail(t, f, "argument #%u has a type that cannot be translated: %s", i, s);
      free(s);
      return NULL;
    }
  LLVMTypeRef r = result_type(t, ft);
  LLVMTypeRef fty = r ? LLVMFunctionType(r, params, n, 0) : NULL;
  free(params);
  if (!r) tl_fail(t, f, "a result has a type that cannot be translated");
  return fty;
}

bool tl_declare_funcs(tl *t, kiln_op *module) {
  for (kiln_op *f = kiln_module_body(module)->first; f && !t->err; f = f->next) {
    if (f->kind != KILN_OP_FUNC_FUNC) continue;
    const char *name = kiln_symbol_name(f);
    const kiln_type *ft = fn_type(f);
    if (!name || !ft) return tl_fail(t, f, "malformed function"), false;
    LLVMValueRef fn;
    if (t->opts->kernel_module && tl_is_kernel(f)) {
      if (!tl_kernel_begin(t, f, &fn)) return false;
    } else {
      LLVMTypeRef fty = llvm_fn_type(t, f, ft);
      if (!fty) return false;
      if (LLVMGetNamedFunction(t->m, name))
        return tl_fail(t, f, "function name '%s' is already taken", name), false;
      fn = LLVMAddFunction(t->m, name, fty);
      bool has_body = f->regions[0].first != NULL;
      if (has_body && (!is_public(f) || t->opts->kernel_module))
        LLVMSetLinkage(fn, LLVMInternalLinkage);
    }
    tl_map_put(&t->funcs, f, fn);
  }
  return !t->err;
}

/* Maps the entry block's arguments to the function's parameters,
 * rebuilding descriptors from their expanded fields. */
static void map_params(tl *t, kiln_op *f, LLVMValueRef fn) {
  kiln_block *entry = f->regions[0].first;
  unsigned p = 0;
  for (uint32_t i = 0; i < entry->num_args; i++) {
    const kiln_type *ty = entry->args[i]->type;
    LLVMValueRef v;
    if (ty->kind == KILN_TYPE_MEMREF) {
      LLVMValueRef a = LLVMGetParam(fn, p), al = LLVMGetParam(fn, p + 1),
                   off = LLVMGetParam(fn, p + 2);
      LLVMValueRef sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
      for (uint32_t k = 0; k < ty->rank; k++) {
        sizes[k] = LLVMGetParam(fn, p + 3 + k);
        strides[k] = LLVMGetParam(fn, p + 3 + ty->rank + k);
      }
      v = tl_desc_make(t, ty->rank, a, al, off, sizes, strides);
      p += 3 + 2 * ty->rank;
    } else if (ty->kind == KILN_TYPE_UNRANKED_MEMREF) {
      v = LLVMGetUndef(tl_unranked_type(t));
      v = LLVMBuildInsertValue(t->b, v, LLVMGetParam(fn, p), 0, "");
      v = LLVMBuildInsertValue(t->b, v, LLVMGetParam(fn, p + 1), 1, "");
      p += 2;
    } else {
      v = LLVMGetParam(fn, p++);
    }
    tl_set(t, entry->args[i], v);
  }
}

bool tl_translate_body(tl *t, kiln_region *body) {
  for (kiln_block *b = body->first; b && !t->err; b = b->next) {
    LLVMPositionBuilderAtEnd(t->b, kiln_ptr_map_get(&t->blocks, b));
    for (kiln_op *op = b->first; op && !t->err; op = op->next) tl_op(t, op);
    if (!t->err && !LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(t->b)))
      tl_fail(t, b->last, "block does not end with a terminator");
  }
  return !t->err;
}

bool tl_translate_funcs(tl *t, kiln_op *module) {
  for (kiln_op *f = kiln_module_body(module)->first; f && !t->err; f = f->next) {
    if (f->kind != KILN_OP_FUNC_FUNC || !f->regions[0].first) continue;
    LLVMValueRef fn = kiln_ptr_map_get(&t->funcs, f);
    t->fn = fn;
    t->in_kernel = t->opts->kernel_module && tl_is_kernel(f);
    kiln_ptr_map_free(&t->values);
    kiln_ptr_map_free(&t->blocks);
    memset(&t->kinfo, 0, sizeof t->kinfo);
    t->kinfo.max_binding = t->kinfo.max_constant = -1;
    tl_cf_create_blocks(t, &f->regions[0]);
    LLVMPositionBuilderAtEnd(t->b, t->entry);
    if (t->in_kernel && t->opts->gpu_kernels) {
      t->dispatch = t->workgroup = NULL;
    } else if (t->in_kernel) {
      t->dispatch = LLVMGetParam(fn, 0);
      t->workgroup = LLVMGetParam(fn, 1);
    } else {
      map_params(t, f, fn);
    }
    if (!tl_translate_body(t, &f->regions[0])) return false;
    if (t->in_kernel) {
      /* Remembered for the export table (kernel.c reads them back). */
      tl_kernel_info *ki = kiln_alloc(t->kctx, sizeof *ki);
      *ki = t->kinfo;
      tl_map_put(&t->kinfos, f, ki);
    }
  }
  return !t->err;
}

void tl_func_return(tl *t, kiln_op *op) {
  if (t->in_kernel) {
    if (op->num_operands) {
      tl_fail(t, op, "a kernel returns no values");
      return;
    }
    if (t->opts->gpu_kernels) {
      LLVMBuildRetVoid(t->b);
      return;
    }
    LLVMBuildRet(t->b, LLVMConstInt(t->i32, 0, 0));
    return;
  }
  if (!op->num_operands) {
    LLVMBuildRetVoid(t->b);
    return;
  }
  if (op->num_operands == 1) {
    LLVMValueRef v = tl_operand(t, op, 0);
    if (v) LLVMBuildRet(t->b, v);
    return;
  }
  LLVMValueRef s = LLVMGetUndef(LLVMGetReturnType(LLVMGlobalGetValueType(t->fn)));
  for (uint32_t i = 0; i < op->num_operands; i++) {
    LLVMValueRef v = tl_operand(t, op, i);
    if (!v) return;
    s = LLVMBuildInsertValue(t->b, s, v, i, "");
  }
  LLVMBuildRet(t->b, s);
}

/* Appends the expanded fields of value v of type ty to args. */
static void expand_value(tl *t, const kiln_type *ty, LLVMValueRef v,
                         LLVMValueRef *args, unsigned *n) {
  if (ty->kind == KILN_TYPE_MEMREF) {
    args[(*n)++] = tl_desc_field(t, v, TL_DESC_ALLOCATED);
    args[(*n)++] = tl_desc_field(t, v, TL_DESC_ALIGNED);
    args[(*n)++] = tl_desc_field(t, v, TL_DESC_OFFSET);
    if (ty->rank) {
      LLVMValueRef sz = tl_desc_field(t, v, TL_DESC_SIZES), st = tl_desc_field(t, v, TL_DESC_STRIDES);
      for (uint32_t k = 0; k < ty->rank; k++) args[(*n)++] = LLVMBuildExtractValue(t->b, sz, k, "");
      for (uint32_t k = 0; k < ty->rank; k++) args[(*n)++] = LLVMBuildExtractValue(t->b, st, k, "");
    }
  } else if (ty->kind == KILN_TYPE_UNRANKED_MEMREF) {
    args[(*n)++] = LLVMBuildExtractValue(t->b, v, 0, "");
    args[(*n)++] = LLVMBuildExtractValue(t->b, v, 1, "");
  } else {
    args[(*n)++] = v;
  }
}

void tl_func_call(tl *t, kiln_op *op) {
  const kiln_attr *c = kiln_op_get_attr(op, "callee");
  kiln_op *module = kiln_op_ancestor(op, KILN_OP_BUILTIN_MODULE);
  kiln_op *callee = c && c->kind == KILN_ATTR_SYMBOL_REF && module
                        ? kiln_symbol_lookup(module, c->str) : NULL;
  LLVMValueRef fn = callee ? kiln_ptr_map_get(&t->funcs, callee) : NULL;
  if (!fn) {
    tl_fail(t, op, "callee '%s' is not a function of this module", c && c->str ? c->str : "?");
    return;
  }
  if (t->opts->kernel_module && tl_is_kernel(callee)) {
    tl_fail(t, op, "cannot call the kernel entry '%s'", c->str);
    return;
  }
  unsigned cap = 1;
  for (uint32_t i = 0; i < op->num_operands; i++) cap += 3 + 2 * TL_MAX_RANK;
  LLVMValueRef *args = calloc(cap, sizeof *args);
  if (!args) return;
  unsigned n = 0;
  for (uint32_t i = 0; i < op->num_operands && !t->err; i++) {
    LLVMValueRef v = tl_operand(t, op, i);
    if (v) expand_value(t, kiln_op_operand(op, i)->type, v, args, &n);
  }
  if (t->err) {
    free(args);
    return;
  }
  LLVMTypeRef fty = LLVMGlobalGetValueType(fn);
  if (LLVMCountParamTypes(fty) != n) {
    free(args);
    tl_fail(t, op, "argument count does not match the callee");
    return;
  }
  LLVMValueRef r = LLVMBuildCall2(t->b, fty, fn, args, n, "");
  free(args);
  if (op->num_results == 1) tl_set(t, &op->results[0], r);
  else
    for (uint32_t i = 0; i < op->num_results; i++)
      tl_set(t, &op->results[i], LLVMBuildExtractValue(t->b, r, i, ""));
}

/* _mlir_ciface_NAME: memref arguments by pointer to their descriptor; a
 * struct-typed result (several results, or a memref) through a pointer
 * passed first; scalars as they are. */
static void emit_wrapper(tl *t, kiln_op *f, LLVMValueRef fn) {
  const kiln_type *ft = fn_type(f);
  LLVMTypeRef rt = LLVMGetReturnType(LLVMGlobalGetValueType(fn));
  bool via_ptr = LLVMGetTypeKind(rt) == LLVMStructTypeKind;
  unsigned np = ft->num_inputs + (via_ptr ? 1 : 0), k = 0;
  LLVMTypeRef *params = calloc(np + 1, sizeof *params);
  if (!params) return;
  if (via_ptr) params[k++] = t->ptr;
  for (uint32_t i = 0; i < ft->num_inputs; i++) {
    const kiln_type *ty = kiln_type_fn_input(ft, i);
    params[k++] = kiln_type_is_shaped(ty) && ty->kind != KILN_TYPE_VECTOR ? t->ptr : tl_type(t, ty);
  }
  char *name = malloc(strlen(kiln_symbol_name(f)) + 16);
  if (!name) {
    free(params);
    return;
  }
  sprintf(name, "_mlir_ciface_%s", kiln_symbol_name(f));
  LLVMValueRef w = LLVMAddFunction(t->m, name, LLVMFunctionType(via_ptr ? t->vd : rt, params, np, 0));
  free(name);
  free(params);
  LLVMPositionBuilderAtEnd(t->b, LLVMAppendBasicBlockInContext(t->c, w, "entry"));
  LLVMValueRef *args = calloc(expanded_count(ft) + 1, sizeof *args);
  if (!args) return;
  unsigned n = 0;
  for (uint32_t i = 0; i < ft->num_inputs; i++) {
    const kiln_type *ty = kiln_type_fn_input(ft, i);
    LLVMValueRef p = LLVMGetParam(w, i + (via_ptr ? 1 : 0));
    if (ty->kind == KILN_TYPE_MEMREF || ty->kind == KILN_TYPE_UNRANKED_MEMREF)
      p = LLVMBuildLoad2(t->b, tl_type(t, ty), p, "");
    expand_value(t, ty, p, args, &n);
  }
  LLVMValueRef r = LLVMBuildCall2(t->b, LLVMGlobalGetValueType(fn), fn, args, n, "");
  free(args);
  if (via_ptr) {
    LLVMBuildStore(t->b, r, LLVMGetParam(w, 0));
    LLVMBuildRetVoid(t->b);
  } else if (LLVMGetTypeKind(rt) == LLVMVoidTypeKind) {
    LLVMBuildRetVoid(t->b);
  } else {
    LLVMBuildRet(t->b, r);
  }
}

bool tl_emit_c_wrappers(tl *t, kiln_op *module) {
  for (kiln_op *f = kiln_module_body(module)->first; f; f = f->next)
    if (f->kind == KILN_OP_FUNC_FUNC && f->regions[0].first && is_public(f))
      emit_wrapper(t, f, kiln_ptr_map_get(&t->funcs, f));
  return !t->err;
}
