/* libFuzzer target for cuda target strings: any byte string either parses
 * into a consistent target (the text is "cuda:" plus the SM, the SM is in
 * the list of valid ones, its feature string is "+ptx" and the PTX
 * version) or yields a non-empty error message; never a crash or an
 * out-of-bounds access. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  kiln_ptx_target_t t;
  kiln_error *s = kiln_ptx_target_parse(text, &t);
  if (s) {
    if (!kiln_error_message(s)[0]) abort();
    kiln_error_free(s);
  } else {
    char want[32];
    snprintf(want, sizeof want, "+ptx%u", t.ptx_version);
    if (strncmp(text, "cuda:", 5) != 0 || strcmp(text + 5, t.sm) != 0 ||
        strcmp(t.features, want) != 0 || !strstr(kiln_ptx_valid_sms(), t.sm) ||
        strcmp(t.triple, "nvptx64-nvidia-cuda") != 0)
      abort();
  }
  free(text);
  return 0;
}
