/* A tiny protobuf writer for tests: builds wire-format bytes field by
 * field so tests can write valid models and then break them on purpose
 * (wrong wire types, bad lengths, truncation) without going through the
 * encoder under test. Out-of-memory aborts: it is test-only code. */
#ifndef KILN_TEST_PBWRITE_H
#define KILN_TEST_PBWRITE_H

#include <stddef.h>
#include <stdint.h>

typedef struct pbw {
  uint8_t *buf;
  size_t len, cap;
} pbw;

void pbw_raw(pbw *w, const void *p, size_t n);
void pbw_varint(pbw *w, uint64_t v);
void pbw_tag(pbw *w, uint32_t field, unsigned wire);
void pbw_int(pbw *w, uint32_t field, int64_t v);          /* varint */
void pbw_bytes(pbw *w, uint32_t field, const void *p, size_t n);
void pbw_str(pbw *w, uint32_t field, const char *s);
void pbw_msg(pbw *w, uint32_t field, const pbw *sub);     /* appends sub */
void pbw_fixed32(pbw *w, uint32_t field, uint32_t v);
void pbw_free(pbw *w);

#endif
