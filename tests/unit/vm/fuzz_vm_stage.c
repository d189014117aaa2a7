/* libFuzzer target: arbitrary MLIR text through the parser, convert-to-vm,
 * allocate-registers and bytecode emission (vm.funcs as given, too). The
 * property: no crash on any input, the IR stays valid after each pass, and
 * every function that emits passes format/vm's bytecode verifier with the
 * import signatures it was emitted against. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/vm_bytecode.h"
#include "mlir_input.h"
#include "vm_stage.h"

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, quiet, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "fuzz.mlir", (const char *)data, size, true, &m);
  if (!e) e = kiln_pass_convert_to_vm(m, NULL);
  if (!e && !kiln_verify(m)) abort(); /* convert-to-vm left invalid IR */
  if (!e) e = kiln_pass_allocate_registers(m, NULL);
  if (!e && !kiln_verify(m)) abort();
  if (!e) {
    kiln_vm_imports_t im;
    memset(&im, 0, sizeof im);
    kiln_vm_function_code_t code[64];
    kiln_vm_function_info_t fi[64];
    uint32_t n = 0;
    for (kiln_op *op = kiln_module_body(m)->first; op && n < 64; op = op->next) {
      if (op->kind != KILN_OP_VM_FUNC) continue;
      kiln_error *ee = kiln_vm_emit_function(op, &im, &code[n]);
      if (ee) {
        kiln_error_free(ee);
        continue;
      }
      fi[n] = (kiln_vm_function_info_t){code[n].code, code[n].size, code[n].scalar_count,
                                        code[n].ref_count, code[n].signature};
      n++;
    }
    for (uint32_t i = 0; i < im.count; i++)
      if (!kiln_vm_signature_valid(im.signatures[i])) abort();
    kiln_vm_module_info_t mi = {fi, n, im.signatures, im.count};
    for (uint32_t i = 0; i < n; i++) {
      if (!kiln_vm_signature_valid(fi[i].signature)) continue; /* e.g. > 64 chars */
      uint8_t *scratch = calloc(1, kiln_vm_verify_scratch_size(fi[i].code_size) + 1);
      kiln_vm_diag_t diag;
      if (!scratch || kiln_vm_verify_function(&mi, i, scratch, &diag)) abort();
      free(scratch);
    }
    for (uint32_t i = 0; i < n; i++) kiln_vm_function_code_free(&code[i]);
    kiln_vm_imports_free(&im);
  }
  kiln_error_free(e);
  kiln_context_destroy(ctx);
  return 0;
}
