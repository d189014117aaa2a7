/* A hal.executable.variant as a translation job, for the targets' last
 * passes (compiler/codegen/llvm_cpu, compiler/codegen/cuda): the export
 * metadata of its hal.executable.export ops, and the text that
 * --compile-to=llvm-ir prints for its module. */
#include <stdlib.h>
#include <string.h>

#include "to_llvm.h"

static int64_t int_attr(const kiln_op *op, const char *name, int64_t dflt) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : dflt;
}

kiln_error *kiln_to_llvm_variant_exports(kiln_op *variant, kiln_to_llvm_export **out,
                                         uint32_t *count) {
  kiln_block *b = variant->num_regions ? variant->regions[0].first : NULL;
  uint32_t n = 0;
  for (kiln_op *o = b ? b->first : NULL; o; o = o->next) n += o->kind == KILN_OP_HAL_EXECUTABLE_EXPORT;
  kiln_to_llvm_export *e = calloc(n ? n : 1, sizeof *e);
  if (!e) return kiln_error_new("out of memory");
  n = 0;
  for (kiln_op *o = b ? b->first : NULL; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
    e[n].name = kiln_symbol_name(o);
    e[n].binding_count = (int32_t)int_attr(o, "binding_count", -1);
    e[n].push_constant_count = (int32_t)int_attr(o, "push_constant_count", -1);
    e[n].readonly_mask = int_attr(o, "readonly_mask", -1);
    n++;
  }
  *out = e;
  *count = n;
  return NULL;
}

kiln_error *kiln_to_llvm_print_variant(LLVMModuleRef mod, const char *executable,
                                       const char *variant, const char *target, const char *path) {
  FILE *out = path && strcmp(path, "-") != 0 ? fopen(path, "a") : stdout;
  if (!out) return kiln_error_new("cannot open '%s' for writing", path);
  char *text = LLVMPrintModuleToString(mod);
  fprintf(out, "; executable @%s variant @%s (%s)\n%s\n", executable, variant, target, text);
  LLVMDisposeMessage(text);
  if (out != stdout && fclose(out) != 0) return kiln_error_new("writing '%s' failed", path);
  return NULL;
}
