/* Errors from LLVM's own messages, and the owned bytes the back end
 * returns. */
#include <stdlib.h>

#include "lcpu_internal.h"

kiln_error *kiln_llvm_cpu_error_llvm(const char *what, char *msg) {
  kiln_error *e = kiln_error_new("%s: %s", what, msg && *msg ? msg : "(no message from LLVM)");
  if (msg) LLVMDisposeMessage(msg);
  return e;
}

void kiln_llvm_cpu_bytes_free(kiln_llvm_cpu_bytes_t *bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}
