/* SHA-256 as FIPS 180-4 specifies it (sha256.h): 64-byte blocks, eight
 * 32-bit working words, 64 rounds; the message is padded with 0x80, zeros
 * and its length in bits (big-endian). */
#include "sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes. */
static const uint32_t k_round[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void compress(uint32_t h[8], const uint8_t *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) +
                        k_round[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += hh;
}

void kiln_sha256_init(kiln_sha256 *s) {
  /* The first 32 bits of the fractional parts of the square roots of the
   * first 8 primes. */
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(s->h, h0, sizeof h0);
  s->length = 0;
  s->used = 0;
}

void kiln_sha256_update(kiln_sha256 *s, const void *data, size_t size) {
  const uint8_t *p = data;
  s->length += size;
  if (s->used) {
    const size_t n = size < 64 - s->used ? size : 64 - s->used;
    memcpy(s->block + s->used, p, n);
    s->used += (uint32_t)n;
    p += n;
    size -= n;
    if (s->used < 64) return;
    compress(s->h, s->block);
    s->used = 0;
  }
  for (; size >= 64; p += 64, size -= 64) compress(s->h, p);
  memcpy(s->block, p, size);
  s->used = (uint32_t)size;
}

void kiln_sha256_final(kiln_sha256 *s, uint8_t digest[32]) {
  const uint64_t bits = s->length * 8;
  uint8_t pad[72] = {0x80};
  /* 0x80, zeros up to 56 mod 64, then the 8-byte length. */
  const size_t zeros = (s->used < 56 ? 56 : 120) - s->used;
  for (int i = 0; i < 8; i++) pad[zeros + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
  kiln_sha256_update(s, pad, zeros + 8);
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 4; j++) digest[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void kiln_sha256_hex(const uint8_t digest[32], char hex[65]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 15];
  }
  hex[64] = 0;
}

bool kiln_sha256_file(const char *path, char hex[65]) {
  enum { CHUNK = 1 << 16 };
  FILE *f = fopen(path, "rb");
  uint8_t *buf = malloc(CHUNK);
  if (!f || !buf) {
    if (f) fclose(f);
    free(buf);
    return false;
  }
  kiln_sha256 s;
  kiln_sha256_init(&s);
  size_t n;
  while ((n = fread(buf, 1, CHUNK, f)) > 0) kiln_sha256_update(&s, buf, n);
  const bool ok = !ferror(f);
  fclose(f);
  free(buf);
  if (!ok) return false;
  uint8_t digest[32];
  kiln_sha256_final(&s, digest);
  kiln_sha256_hex(digest, hex);
  return true;
}
