/* The driver of the translation to LLVM IR: state, errors, the
 * op dispatch (tl_ops.def), and the module walk: declare every function,
 * translate bodies, then C wrappers or the kernel export table. */
#include "tl_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors and values ---- */
LLVMValueRef tl_fail(tl *t, const kiln_op *op, const char *fmt, ...) {
  if (t->err) return NULL;
  va_list ap;
  va_start(ap, fmt);
  if (op) {
    t->err = kiln_op_verror(op, fmt, ap);
  } else {
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    t->err = kiln_error_new("%s", msg);
  }
  va_end(ap);
  return NULL;
}

LLVMValueRef tl_get(tl *t, const kiln_op *op, kiln_value *v) {
  LLVMValueRef x = kiln_ptr_map_get(&t->values, v);
  if (!x) return tl_fail(t, op, "operand was not translated (used before its definition, or defined by an untranslatable op)");
  return x;
}

void tl_set(tl *t, kiln_value *v, LLVMValueRef x) { tl_map_put(&t->values, v, x); }

LLVMValueRef tl_operand(tl *t, const kiln_op *op, uint32_t i) {
  return tl_get(t, op, kiln_op_operand(op, i));
}

LLVMValueRef tl_i64(tl *t, int64_t v) { return LLVMConstInt(t->i64, (unsigned long long)v, 1); }

LLVMValueRef tl_intrinsic(tl *t, const char *name, LLVMTypeRef *overloads,
                          unsigned n, LLVMTypeRef *fn_type) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef f = LLVMGetIntrinsicDeclaration(t->m, id, overloads, n);
  *fn_type = LLVMIntrinsicGetType(t->c, id, overloads, n);
  return f;
}

LLVMValueRef tl_call_intrinsic(tl *t, const char *name, LLVMTypeRef overload,
                               LLVMValueRef *args, unsigned n) {
  LLVMTypeRef ft;
  LLVMValueRef f = tl_intrinsic(t, name, &overload, overload ? 1 : 0, &ft);
  return LLVMBuildCall2(t->b, ft, f, args, n, "");
}

/* ---- dispatch ---- */
void tl_op(tl *t, kiln_op *op) {
  switch (op->kind) {
#define TL_OP(KIND, HANDLER) case KILN_OP_##KIND: HANDLER(t, op); return;
#include "tl_ops.def"
#undef TL_OP
  default:
    tl_fail(t, op, "cannot be translated to LLVM IR (lower it first: linalg to loops, scf-to-cf, approximate-math)");
  }
}

kiln_op *kiln_to_llvm_find_variant_module(kiln_op *root) {
  for (uint32_t r = 0; r < root->num_regions; r++)
    for (kiln_block *b = root->regions[r].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next) {
        if (strcmp(o->name, "hal.executable.variant") == 0) {
          for (uint32_t i = 0; i < o->num_regions; i++)
            for (kiln_block *vb = o->regions[i].first; vb; vb = vb->next)
              for (kiln_op *x = vb->first; x; x = x->next)
                if (x->kind == KILN_OP_BUILTIN_MODULE) return x;
        }
        kiln_op *f = kiln_to_llvm_find_variant_module(o);
        if (f) return f;
      }
  return NULL;
}

kiln_error *kiln_to_llvm_translate(kiln_op *module,
                                   const kiln_to_llvm_options *options,
                                   LLVMContextRef context, const char *name,
                                   LLVMModuleRef *out) {
  *out = NULL;
  static const kiln_to_llvm_options defaults = {0};
  if (!module || module->kind != KILN_OP_BUILTIN_MODULE)
    return kiln_error_new("LLVM translation: expected a builtin.module");
  tl t;
  memset(&t, 0, sizeof t);
  t.kctx = kiln_op_context(module);
  t.opts = options ? options : &defaults;
  t.c = context;
  t.m = LLVMModuleCreateWithNameInContext(name ? name : "kiln", context);
  t.b = LLVMCreateBuilderInContext(context);
  t.i1 = LLVMInt1TypeInContext(context);
  t.i8 = LLVMInt8TypeInContext(context);
  t.i32 = LLVMInt32TypeInContext(context);
  t.i64 = LLVMInt64TypeInContext(context);
  t.ptr = LLVMPointerTypeInContext(context, 0);
  t.vd = LLVMVoidTypeInContext(context);
  kiln_llvm_cpu_abi_init(&t.abi, context);
  bool ok = tl_declare_funcs(&t, module) && tl_translate_funcs(&t, module);
  if (ok && !t.err && !t.opts->kernel_module && t.opts->emit_c_wrappers)
    tl_emit_c_wrappers(&t, module);
  if (ok && !t.err && t.opts->kernel_module && !t.opts->gpu_kernels) {
    uint32_t n = 0;
    kiln_block *body = kiln_module_body(module);
    for (kiln_op *f = body->first; f; f = f->next)
      if (tl_is_kernel(f)) n++;
    kiln_llvm_cpu_export_t *ex = calloc(n ? n : 1, sizeof *ex);
    uint32_t i = 0;
    for (kiln_op *f = body->first; ex && f; f = f->next)
      if (tl_is_kernel(f)) tl_kernel_export_of(&t, f, kiln_ptr_map_get(&t.funcs, f), &ex[i++]);
    if (!t.err) t.err = tl_kernel_emit_table(&t, module, ex, n);
    free(ex);
  }
  if (!t.err && !ok) t.err = kiln_error_new("LLVM translation failed");
  LLVMDisposeBuilder(t.b);
  kiln_ptr_map_free(&t.funcs);
  kiln_ptr_map_free(&t.values);
  kiln_ptr_map_free(&t.blocks);
  kiln_ptr_map_free(&t.kinfos);
  if (t.err) {
    LLVMDisposeModule(t.m);
    return t.err;
  }
  *out = t.m;
  return NULL;
}
