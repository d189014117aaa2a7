/* SHA-256 (FIPS 180-4), for the module's provenance: the hash of the
 * compiled input, equal to what `sha256sum` prints for the same file.
 * Incremental (init, update any number of times, final) so a large model
 * is hashed in pieces; kiln_sha256_file hashes a whole file. */
#ifndef KILN_SHA256_H
#define KILN_SHA256_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kiln_sha256 {
  uint32_t h[8];
  uint64_t length;   /* bytes hashed so far */
  uint8_t block[64]; /* pending bytes of the current block */
  uint32_t used;
} kiln_sha256;

void kiln_sha256_init(kiln_sha256 *s);
void kiln_sha256_update(kiln_sha256 *s, const void *data, size_t size);
void kiln_sha256_final(kiln_sha256 *s, uint8_t digest[32]);
/* The digest as 64 lowercase hex digits and a NUL. */
void kiln_sha256_hex(const uint8_t digest[32], char hex[65]);
/* Hashes the file at path into hex; false (errno set) when it cannot be
 * read. */
bool kiln_sha256_file(const char *path, char hex[65]);

#endif /* KILN_SHA256_H */
