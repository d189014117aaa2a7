/* Emits a module as PTX text (LLVM's NVPTX code generator, on a clone so
 * the caller's module stays as it was: codegen preparation rewrites IR)
 * or as LLVM IR text. Guarantees no exit inside LLVM for modules that
 * passed the callee check: it runs again here (O3 may have formed a math
 * intrinsic), and errors the code generator reports through the context
 * (e.g. "no libcall available", which with no handler installed would
 * exit the process) are captured and returned as the status. Output is
 * owned and NUL-terminated. */
#include <stdlib.h>
#include <string.h>

#include "cptx_internal.h"

static kiln_error *cptx_copy_out(const char *data, size_t size,
                                 kiln_ptx_bytes_t *out) {
  out->data = malloc(size + 1);
  if (!out->data) return kiln_error_new("cuda: out of memory (%zu bytes)", size);
  if (size) memcpy(out->data, data, size);
  out->data[size] = 0;
  out->size = size;
  return NULL;
}

/* The first error LLVM reported while the handler was installed. */
typedef struct cptx_diagnostics {
  char *first_error;
} cptx_diagnostics_t;

static void cptx_on_diagnostic(LLVMDiagnosticInfoRef info, void *arg) {
  cptx_diagnostics_t *d = arg;
  if (LLVMGetDiagInfoSeverity(info) != LLVMDSError || d->first_error) return;
  d->first_error = LLVMGetDiagInfoDescription(info);
  /* LLVM ends some descriptions with a newline; statuses do not */
  size_t n = strlen(d->first_error);
  while (n > 0 && (d->first_error[n - 1] == '\n' || d->first_error[n - 1] == ' '))
    d->first_error[--n] = '\0';
}

kiln_error *kiln_ptx_emit(LLVMModuleRef module, LLVMTargetMachineRef tm,
                          kiln_ptx_emit_kind_t kind,
                          kiln_ptx_bytes_t *out) {
  out->data = NULL;
  out->size = 0;
  if (kind == KILN_PTX_EMIT_LLVM_IR) {
    char *text = LLVMPrintModuleToString(module);
    kiln_error *s = cptx_copy_out(text, strlen(text), out);
    LLVMDisposeMessage(text);
    return s;
  }
  kiln_error *s = cptx_check_callees(module);
  if (s) return s;

  LLVMContextRef ctx = LLVMGetModuleContext(module);
  LLVMDiagnosticHandler old_handler = LLVMContextGetDiagnosticHandler(ctx);
  void *old_arg = LLVMContextGetDiagnosticContext(ctx);
  cptx_diagnostics_t diag = {NULL};
  LLVMContextSetDiagnosticHandler(ctx, cptx_on_diagnostic, &diag);

  LLVMModuleRef clone = LLVMCloneModule(module);
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  LLVMBool failed =
      LLVMTargetMachineEmitToMemoryBuffer(tm, clone, LLVMAssemblyFile, &err, &buf);
  LLVMDisposeModule(clone);
  LLVMContextSetDiagnosticHandler(ctx, old_handler, old_arg);

  if (failed) {
    s = kiln_error_take("cuda: PTX code generation failed", err, LLVMDisposeMessage);
  } else if (diag.first_error) {
    if (err) LLVMDisposeMessage(err);
    s = kiln_error_new("cuda: PTX code generation failed: %s", diag.first_error);
  } else {
    if (err) LLVMDisposeMessage(err);
    s = cptx_copy_out(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), out);
  }
  if (diag.first_error) LLVMDisposeMessage(diag.first_error);
  if (buf) LLVMDisposeMemoryBuffer(buf);
  return s;
}
