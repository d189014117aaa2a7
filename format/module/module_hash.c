/* The segments' content hashes. Format version 3 on: "kiln-hash-64", four
 * lanes over 64-bit little-endian words, each lane a chain of bijections
 * (xor the word, multiply by an odd constant, rotate), so any change
 * confined to one word always changes the hash, and the lanes run in
 * parallel: about memory speed where FNV-1a's byte-serial multiply chain
 * ran at roughly one byte per 4 cycles. Versions 1-2 recorded FNV-1a 64,
 * still computed for them. Both fully specified here:
 *
 *   the data zero-padded to a multiple of 32 bytes, as 8-byte LE words w_j;
 *   lane[i] = K1 * (i + 1)                          (i = 0..3)
 *   for j = 0, 1, ...: lane[j % 4] = rotl64((lane[j % 4] ^ w_j) * K2, 27)
 *   h = size * K1; for i = 0..3: h = rotl64((h ^ lane[i]) * K2, 31);
 *   h ^= h >> 32; h *= K1; h ^= h >> 29.                                 */
#include <string.h>

#include "kiln/module_format.h"

#define K1 0x9e3779b97f4a7c15ull
#define K2 0xd6e8feb86659fd93ull

static uint64_t rotl(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

static uint64_t le64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  w = __builtin_bswap64(w);
#endif
  return w;
}

uint64_t kiln_module_hash(const void *data, uint64_t size) {
  const uint8_t *p = data;
  uint64_t lane[4] = {K1, 2 * K1, 3 * K1, 4 * K1};
  for (uint64_t i = 0; i < size; i += 32) {
    uint8_t tail[32] = {0};
    const uint8_t *block = p + i;
    if (size - i < 32) block = memcpy(tail, block, (size_t)(size - i));
    for (unsigned k = 0; k < 4; ++k)
      lane[k] = rotl((lane[k] ^ le64(block + 8 * k)) * K2, 27);
  }
  uint64_t h = size * K1;
  for (unsigned k = 0; k < 4; ++k) h = rotl((h ^ lane[k]) * K2, 31);
  h ^= h >> 32;
  h *= K1;
  return h ^ (h >> 29);
}

uint64_t kiln_module_hash_fnv1a(const void *data, uint64_t size) {
  const uint8_t *p = data;
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint64_t i = 0; i < size; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

uint64_t kiln_module_segment_hash(const kiln_module_view_t *view,
                                  const void *data, uint64_t size) {
  return kiln_fb_Module_format_version(view->root) < 3
             ? kiln_module_hash_fnv1a(data, size)
             : kiln_module_hash(data, size);
}
