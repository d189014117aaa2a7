/* The owned bytes the back end returns. */
#include <stdlib.h>

#include "lcpu_internal.h"

void kiln_llvm_cpu_bytes_free(kiln_llvm_cpu_bytes_t *bytes) {
  if (!bytes) return;
  free(bytes->data);
  bytes->data = NULL;
  bytes->size = 0;
}
