/* A small FlatBuffers builder (used by the compiler and tests, not by the
 * runtime). The buffer grows downward, as FlatBuffers requires children to
 * sit after their parents: create strings, vectors and sub-tables first,
 * then the table that refers to them, and the root last.
 *
 * Guarantees: output depends only on the sequence of calls (all padding is
 * zero, vtables are shared by byte-equal content), so the same calls give
 * the same bytes. Allocation failure or exceeding 2 GB sets a sticky error
 * that kiln_fbb_finish reports; later calls are then no-ops. */
#ifndef KILN_FB_BUILDER_H
#define KILN_FB_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An object already in the buffer: its distance from the buffer's end.
 * 0 means "no object" and is skipped by kiln_fbb_add_ref. */
typedef uint32_t kiln_fbb_ref_t;

#define KILN_FBB_MAX_SLOTS 64

typedef struct kiln_fbb {
  uint8_t *buf;
  size_t cap, used, minalign;
  const char *error; /* first failure, sticky */
  /* The table being built. */
  bool in_table;
  size_t table_start;
  int max_slot;
  uint32_t field_refs[KILN_FBB_MAX_SLOTS];
  /* Vtables written so far, for sharing. */
  uint32_t *vtables;
  size_t vtable_count, vtable_cap;
} kiln_fbb_t;

void kiln_fbb_init(kiln_fbb_t *b);
void kiln_fbb_free(kiln_fbb_t *b);

kiln_fbb_ref_t kiln_fbb_string(kiln_fbb_t *b, const char *s, size_t len);
/* A vector of count scalars or structs, given as little-endian bytes of
 * elem_size each; align is the element alignment (>= 1). */
kiln_fbb_ref_t kiln_fbb_vector(kiln_fbb_t *b, const void *elems, uint32_t count,
                               size_t elem_size, size_t align);
/* A vector of offsets to tables or strings. */
kiln_fbb_ref_t kiln_fbb_vector_refs(kiln_fbb_t *b, const kiln_fbb_ref_t *refs,
                                    uint32_t count);

void kiln_fbb_table_start(kiln_fbb_t *b);
/* Scalars equal to their default are omitted, as flatc does. */
void kiln_fbb_add_scalar(kiln_fbb_t *b, unsigned slot, const void *value,
                         size_t size, bool is_default);
void kiln_fbb_add_struct(kiln_fbb_t *b, unsigned slot, const void *data,
                         size_t size, size_t align);
void kiln_fbb_add_ref(kiln_fbb_t *b, unsigned slot, kiln_fbb_ref_t ref);
kiln_fbb_ref_t kiln_fbb_table_end(kiln_fbb_t *b);

/* Writes the root offset and the 4-byte file identifier; *data points
 * into the builder (valid until kiln_fbb_free). Returns false with
 * *error set on a sticky failure. */
bool kiln_fbb_finish(kiln_fbb_t *b, kiln_fbb_ref_t root, const char ident[4],
                     const uint8_t **data, size_t *size, const char **error);

#endif /* KILN_FB_BUILDER_H */
