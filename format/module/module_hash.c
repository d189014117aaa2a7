/* The segments' content hash: FNV-1a 64 over the uncompressed bytes.
 * Chosen for being tiny and fully specified (the runtime's size budget
 * matters more than speed here: hashes are checked on request, not on
 * every load). */
#include "kiln/module_format.h"

uint64_t kiln_module_hash(const void *data, uint64_t size) {
  const uint8_t *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}
