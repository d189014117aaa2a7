/* libFuzzer target: verify + read any bytes as a .kiln module. The input
 * is copied into an exact-size buffer so ASan sees every over-read; an
 * accepted input is read completely (tests/unit/format/module_walk.c),
 * and a broken invariant or a rejection without a message aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (!copy) return 0;
  if (size) memcpy(copy, data, size);
  kiln_module_view_t m;
  kiln_format_error_t err;
  if (kiln_module_view_open(&m, size ? copy : NULL, size, &err)) {
    uint64_t h = 0;
    char why[256];
    if (!kiln_test_module_walk(&m, &h, why, sizeof why)) {
      fprintf(stderr, "verifier accepted a broken module: %s\n", why);
      abort();
    }
  } else if (!err.message[0]) {
    fprintf(stderr, "module rejected without a message\n");
    abort();
  }
  free(copy);
  return 0;
}
