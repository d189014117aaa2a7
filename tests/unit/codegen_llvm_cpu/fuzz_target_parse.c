/* libFuzzer target for llvm-cpu target strings: any byte string either
 * parses into a consistent target (requirements start with the arch name,
 * every "+feature" of it is in the LLVM feature string) or yields an error
 * message; never a crash or an out-of-bounds access. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse(text, &t);
  if (s) {
    if (!kiln_error_message(s)[0]) abort();
    kiln_error_free(s);
  } else {
    size_t n = strlen(t.arch_name);
    if (strncmp(t.requirements, t.arch_name, n) != 0) abort();
    for (const char *p = t.requirements + n; *p == '+';) {
      size_t len = strcspn(p + 1, "+");
      char want[80];
      if (len + 3 > sizeof want) abort();
      want[0] = '+';
      memcpy(want + 1, p + 1, len);
      want[len + 1] = '\0';
      const char *hit = t.features;
      while ((hit = strstr(hit, want)) && hit[len + 1] != ',' && hit[len + 1] != '\0')
        hit++; /* "+avx512f" inside "+avx512fp16": keep looking */
      if (!hit) abort();
      p += len + 1;
    }
    kiln_llvm_cpu_target_release(&t);
  }
  free(text);
  return 0;
}
