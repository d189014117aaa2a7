/* libFuzzer target for runtime-min/src/elf: any byte string goes through
 * kiln_elf_verify and, when it verifies as a host-machine object, through
 * kiln_elf_load, symbol lookups and kiln_elf_unload (its code is never
 * called). Must never crash, hang or read outside the input. Seeds are the
 * kernel libraries that tests/unit/runtime_elf links. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "elf_loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char msg[256];
  kiln_elf_info_t info;
  int rc = kiln_elf_verify(data, size, &info, msg, sizeof msg);
  if (rc != KILN_ELF_OK) {
    if (msg[0] == 0 || memchr(msg, 0, sizeof msg) == NULL) __builtin_trap();
    return 0;
  }
  kiln_elf_image_t img;
  if (kiln_elf_load(data, size, &img, msg, sizeof msg) == KILN_ELF_OK) {
    (void)kiln_elf_lookup(&img, "kiln_executable_query");
    (void)kiln_elf_lookup(&img, "kiln_test_counter");
    (void)kiln_elf_lookup(&img, "");
    kiln_elf_unload(&img);
  }
  return 0;
}
