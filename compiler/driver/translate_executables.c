/* translate-executables: the last codegen step, per executable variant.
 *
 * Takes: a module whose hal.executable.variant inner modules are at the
 * LLVM-translatable level (compiler/codegen/llvm/to_llvm.h: no linalg, no
 * scf, no math ops without instructions) and the compile session.
 * Guarantees: each llvm-cpu variant without a payload in the session is
 * translated to LLVM IR (seed conventions, kernel ABI with the export
 * metadata of its hal.executable.export ops) and compiled by the llvm_cpu
 * back end (verify, O3, object, lld) into a shared object stored in the
 * session under (executable, variant) with the variant's arch and the
 * CPU features it requires. With --compile-to=llvm-ir it prints each
 * variant's LLVM module before optimization instead of compiling. A
 * variant of another target without a payload is an error naming it. The
 * IR is left unchanged. Built only when the codegen libraries are. */
#include "driver_internal.h"

#if defined(KILN_HAVE_TO_LLVM) && defined(KILN_HAVE_LLVM_CPU)
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"
#include "to_llvm.h"

static int64_t te_int(const kiln_op *op, const char *name, int64_t dflt) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : dflt;
}

/* "x86_64+avx2+fma" (runtime requirement syntax) -> "+avx2,+fma". */
static char *te_features(const char *req) {
  const char *p = strchr(req, '+');
  char *out = calloc(1, (p ? strlen(p) * 2 : 0) + 1);
  if (!out || !p) return out;
  size_t n = 0;
  while (p && *p) {
    const char *next = strchr(p + 1, '+');
    const size_t len = next ? (size_t)(next - p) : strlen(p);
    if (n) out[n++] = ',';
    memcpy(out + n, p, len);
    n += len;
    p = next;
  }
  out[n] = 0;
  return out;
}

static kiln_error *te_variant(kiln_session *s, kiln_op *exe, kiln_op *var) {
  const char *ename = kiln_symbol_name(exe), *vname = kiln_symbol_name(var);
  const kiln_attr *target = kiln_op_get_attr(var, "target");
  if (!target || target->kind != KILN_ATTR_STRING)
    return kiln_error_new("executable @%s variant @%s has no target", ename, vname);
  if (kiln_session_payload(s, ename, vname)) return NULL; /* substituted */
#ifdef KILN_HAVE_CODEGEN_GPU
  if (strncmp(target->str, "cuda:", 5) == 0) return kiln_driver_translate_cuda(s, kiln_op_parent_op(exe), exe, var);
#endif
  if (strncmp(target->str, "llvm-cpu", 8) != 0)
    return kiln_error_new("executable @%s variant @%s: code generation for target '%s' is not built yet",
                          ename, vname, target->str);
  kiln_op *inner = NULL;
  kiln_to_llvm_export exports[256];
  uint32_t nexp = 0;
  for (kiln_op *o = var->regions[0].first ? var->regions[0].first->first : NULL; o; o = o->next) {
    if (o->kind == KILN_OP_BUILTIN_MODULE) inner = o;
    if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT || nexp == 256) continue;
    kiln_to_llvm_export *e = &exports[nexp++];
    memset(e, 0, sizeof *e);
    e->name = kiln_symbol_name(o);
    e->binding_count = (int32_t)te_int(o, "binding_count", -1);
    e->push_constant_count = (int32_t)te_int(o, "push_constant_count", -1);
    e->readonly_mask = te_int(o, "readonly_mask", -1);
  }
  if (!inner)
    return kiln_error_new("executable @%s variant @%s has no inner builtin.module", ename, vname);
  kiln_to_llvm_options opts;
  memset(&opts, 0, sizeof opts);
  opts.kernel_module = true;
  opts.exports = exports;
  opts.export_count = nexp;
  LLVMContextRef lctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  kiln_error *err = kiln_to_llvm_translate(inner, &opts, lctx, ename, &mod);
  if (!err && s->options.compile_to == KILN_STAGE_LLVM_IR) {
    char *text = LLVMPrintModuleToString(mod);
    FILE *out = s->options.output_path && strcmp(s->options.output_path, "-") != 0
                    ? fopen(s->options.output_path, "a") : stdout;
    if (!out) {
      err = kiln_error_new("cannot open '%s' for writing", s->options.output_path);
    } else {
      fprintf(out, "; executable @%s variant @%s (%s)\n%s\n", ename, vname, target->str, text);
      if (out != stdout) fclose(out);
    }
    LLVMDisposeMessage(text);
  } else if (!err) {
    kiln_llvm_cpu_target_t t;
    kiln_llvm_cpu_status_t st = kiln_llvm_cpu_target_parse(target->str, &t);
    kiln_llvm_cpu_bytes_t so = {0};
    if (!st) {
      st = kiln_llvm_cpu_compile(mod, &t, &so);
      if (!st) {
        char *features = te_features(t.requirements ? t.requirements : "");
        err = features ? kiln_session_set_payload(s, ename, vname, KILN_PAYLOAD_ELF, t.arch_name,
                                                  features, so.data, so.size)
                       : kiln_error_new("out of memory");
        free(features);
      }
      kiln_llvm_cpu_bytes_free(&so);
      kiln_llvm_cpu_target_release(&t);
    }
    if (st) {
      err = kiln_error_new("executable @%s variant @%s: %s", ename, vname,
                           kiln_llvm_cpu_status_message(st));
      kiln_llvm_cpu_status_free(st);
    }
  }
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(lctx);
  return err;
}

static kiln_error *te_run(kiln_op *module, void *user) {
  (void)user;
  kiln_session *s = kiln_session_of(kiln_op_context(module));
  if (!s) return kiln_error_new("translate-executables needs a compile session");
  for (kiln_op *exe = kiln_module_body(module)->first; exe; exe = exe->next) {
    if (exe->kind != KILN_OP_HAL_EXECUTABLE || !exe->regions[0].first) continue;
    for (kiln_op *v = exe->regions[0].first->first; v; v = v->next) {
      if (v->kind != KILN_OP_HAL_EXECUTABLE_VARIANT) continue;
      kiln_error *err = te_variant(s, exe, v);
      if (err) return err;
    }
  }
  return NULL;
}

void kiln_driver_register_translate_executables(void) {
  static const kiln_pass_info info = {
      "translate-executables",
      "each llvm-cpu variant -> LLVM IR -> O3 -> object -> lld shared object, "
      "stored in the compile session (or printed with --compile-to=llvm-ir)",
      te_run, NULL};
  kiln_pass_register(&info);
}
#else
void kiln_driver_register_translate_executables(void) {}
#endif
