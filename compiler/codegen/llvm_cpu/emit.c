/* Emits a module as a relocatable object or assembly (LLVM's code
 * generator, on a clone so the caller's module stays as it was: codegen
 * preparation rewrites IR) or as LLVM IR text. Output is owned bytes;
 * text is NUL-terminated. */
#include <stdlib.h>
#include <string.h>

#include "lcpu_internal.h"

static kiln_error *lcpu_copy_out(const char *data, size_t size,
                                 kiln_llvm_cpu_bytes_t *out) {
  out->data = malloc(size + 1);
  if (!out->data) return kiln_error_new("llvm-cpu: out of memory (%zu bytes)", size);
  if (size) memcpy(out->data, data, size);
  out->data[size] = 0;
  out->size = size;
  return NULL;
}

kiln_error *kiln_llvm_cpu_emit(LLVMModuleRef module,
                               LLVMTargetMachineRef tm,
                               kiln_llvm_cpu_emit_kind_t kind,
                               kiln_llvm_cpu_bytes_t *out) {
  out->data = NULL;
  out->size = 0;
  if (kind == KILN_LLVM_CPU_EMIT_LLVM_IR) {
    char *text = LLVMPrintModuleToString(module);
    kiln_error *s = lcpu_copy_out(text, strlen(text), out);
    LLVMDisposeMessage(text);
    return s;
  }
  LLVMCodeGenFileType type =
      kind == KILN_LLVM_CPU_EMIT_OBJECT ? LLVMObjectFile : LLVMAssemblyFile;
  LLVMModuleRef clone = LLVMCloneModule(module);
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  LLVMBool failed =
      LLVMTargetMachineEmitToMemoryBuffer(tm, clone, type, &err, &buf);
  LLVMDisposeModule(clone);
  if (failed) return kiln_error_take("llvm-cpu: code generation failed", err, LLVMDisposeMessage);
  if (err) LLVMDisposeMessage(err);
  kiln_error *s =
      lcpu_copy_out(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), out);
  LLVMDisposeMemoryBuffer(buf);
  return s;
}
