/* libFuzzer target: MLIR text in, every transform run on it (harness.h). */
#include "harness.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 1 << 16) return 0;
  if (!tx_check_passes_on_text((const char *)data, size)) abort();
  return 0;
}
