/* The FlatBuffers builder: a byte buffer filled from its end toward its
 * start. Positions are kept as distances from the end ("refs"), which stay
 * valid when the buffer grows; the final buffer starts at cap - used, and
 * finish pads it so that used is a multiple of the largest alignment seen,
 * which makes every ref-aligned object aligned in the final buffer too. */
#include "kiln/fb_builder.h"

#include <stdlib.h>
#include <string.h>

#include "kiln/fb_reader.h"

void kiln_fbb_init(kiln_fbb_t *b) {
  memset(b, 0, sizeof *b);
  b->minalign = 1;
  b->max_slot = -1;
}

void kiln_fbb_free(kiln_fbb_t *b) {
  free(b->buf);
  free(b->vtables);
  kiln_fbb_init(b);
}

static bool kfbb_fail(kiln_fbb_t *b, const char *why) {
  if (!b->error) b->error = why;
  return false;
}

/* Room for n more bytes below the current front. */
static bool kfbb_reserve(kiln_fbb_t *b, size_t n) {
  if (b->error) return false;
  if (b->buf && b->cap - b->used >= n) return true;
  if (n > KILN_FB_MAX_BUFFER - b->used)
    return kfbb_fail(b, "FlatBuffer would exceed 2 GB");
  size_t cap = b->cap ? b->cap : 1024;
  while (cap - b->used < n) cap *= 2;
  uint8_t *nb = malloc(cap);
  if (!nb) return kfbb_fail(b, "out of memory");
  if (b->used) memcpy(nb + cap - b->used, b->buf + b->cap - b->used, b->used);
  free(b->buf);
  b->buf = nb;
  b->cap = cap;
  return true;
}

/* Claims n bytes at the front; returns their address (NULL on failure). */
static uint8_t *kfbb_push(kiln_fbb_t *b, size_t n) {
  if (!kfbb_reserve(b, n)) return NULL;
  b->used += n;
  return b->buf + b->cap - b->used;
}

static void kfbb_pad(kiln_fbb_t *b, size_t n) {
  uint8_t *p = kfbb_push(b, n);
  if (p) memset(p, 0, n);
}

/* Pads so that after `extra` more bytes the front is `align`-aligned. */
static void kfbb_prep(kiln_fbb_t *b, size_t align, size_t extra) {
  if (align > b->minalign) b->minalign = align;
  kfbb_pad(b, (align - ((b->used + extra) % align)) % align);
}

static void kfbb_push_u32(kiln_fbb_t *b, uint32_t v) {
  kfbb_prep(b, 4, 4);
  uint8_t *p = kfbb_push(b, 4);
  if (p) memcpy(p, &v, 4);
}

/* Pushes a uoffset from the front to the object `ref`. */
static void kfbb_push_offset(kiln_fbb_t *b, kiln_fbb_ref_t ref) {
  kfbb_prep(b, 4, 4);
  kfbb_push_u32(b, (uint32_t)(b->used + 4 - ref));
}

kiln_fbb_ref_t kiln_fbb_string(kiln_fbb_t *b, const char *s, size_t len) {
  if (b->in_table) kfbb_fail(b, "string created inside a table");
  if (len > UINT32_MAX) kfbb_fail(b, "string too long");
  kfbb_prep(b, 4, len + 1);
  uint8_t *p = kfbb_push(b, len + 1);
  if (!p) return 0;
  if (len) memcpy(p, s, len);
  p[len] = 0;
  kfbb_push_u32(b, (uint32_t)len);
  return (kiln_fbb_ref_t)b->used;
}

kiln_fbb_ref_t kiln_fbb_vector(kiln_fbb_t *b, const void *elems, uint32_t count,
                               size_t elem_size, size_t align) {
  if (b->in_table) kfbb_fail(b, "vector created inside a table");
  size_t bytes = (size_t)count * elem_size;
  kfbb_prep(b, 4, bytes);
  kfbb_prep(b, align, bytes);
  uint8_t *p = kfbb_push(b, bytes);
  if (!p) return 0;
  if (bytes) memcpy(p, elems, bytes);
  kfbb_push_u32(b, count);
  return (kiln_fbb_ref_t)b->used;
}

kiln_fbb_ref_t kiln_fbb_vector_refs(kiln_fbb_t *b, const kiln_fbb_ref_t *refs,
                                    uint32_t count) {
  if (b->in_table) kfbb_fail(b, "vector created inside a table");
  kfbb_prep(b, 4, (size_t)count * 4);
  for (uint32_t i = count; i-- > 0;) kfbb_push_offset(b, refs[i]);
  kfbb_push_u32(b, count);
  return (kiln_fbb_ref_t)b->used;
}

void kiln_fbb_table_start(kiln_fbb_t *b) {
  if (b->in_table) kfbb_fail(b, "nested table start");
  b->in_table = true;
  b->table_start = b->used;
  b->max_slot = -1;
  memset(b->field_refs, 0, sizeof b->field_refs);
}

static bool kfbb_slot(kiln_fbb_t *b, unsigned slot) {
  if (!b->in_table) return kfbb_fail(b, "field added outside a table");
  if (slot >= KILN_FBB_MAX_SLOTS) return kfbb_fail(b, "field slot too large");
  return true;
}

static void kfbb_record(kiln_fbb_t *b, unsigned slot) {
  b->field_refs[slot] = (uint32_t)b->used;
  if ((int)slot > b->max_slot) b->max_slot = (int)slot;
}

void kiln_fbb_add_scalar(kiln_fbb_t *b, unsigned slot, const void *value,
                         size_t size, bool is_default) {
  if (is_default || !kfbb_slot(b, slot)) return;
  kfbb_prep(b, size, size);
  uint8_t *p = kfbb_push(b, size);
  if (!p) return;
  memcpy(p, value, size);
  kfbb_record(b, slot);
}

void kiln_fbb_add_struct(kiln_fbb_t *b, unsigned slot, const void *data,
                         size_t size, size_t align) {
  if (!kfbb_slot(b, slot)) return;
  kfbb_prep(b, align, size);
  uint8_t *p = kfbb_push(b, size);
  if (!p) return;
  memcpy(p, data, size);
  kfbb_record(b, slot);
}

void kiln_fbb_add_ref(kiln_fbb_t *b, unsigned slot, kiln_fbb_ref_t ref) {
  if (ref == 0 || !kfbb_slot(b, slot)) return;
  kfbb_push_offset(b, ref);
  if (!b->error) kfbb_record(b, slot);
}

kiln_fbb_ref_t kiln_fbb_table_end(kiln_fbb_t *b) {
  if (!b->in_table) kfbb_fail(b, "table end without start");
  b->in_table = false;
  kfbb_push_u32(b, 0); /* soffset to the vtable, patched below */
  if (b->error) return 0;
  size_t table = b->used;
  size_t table_size = table - b->table_start;
  unsigned nslots = (unsigned)(b->max_slot + 1);
  uint16_t vt[2 + KILN_FBB_MAX_SLOTS];
  vt[0] = (uint16_t)(4 + 2 * nslots);
  vt[1] = (uint16_t)table_size;
  if (table_size > 0xffff) {
    kfbb_fail(b, "table larger than 64 KiB");
    return 0;
  }
  for (unsigned s = 0; s < nslots; s++)
    vt[2 + s] = b->field_refs[s] ? (uint16_t)(table - b->field_refs[s]) : 0;
  size_t vt_bytes = vt[0];
  /* Share an identical vtable written earlier. */
  size_t vt_ref = 0;
  for (size_t i = 0; i < b->vtable_count && !vt_ref; i++) {
    const uint8_t *old = b->buf + b->cap - b->vtables[i];
    if (kiln_fb_read_u16(old) == vt_bytes && memcmp(old, vt, vt_bytes) == 0)
      vt_ref = b->vtables[i];
  }
  if (!vt_ref) {
    uint8_t *p = kfbb_push(b, vt_bytes);
    if (!p) return 0;
    memcpy(p, vt, vt_bytes);
    vt_ref = b->used;
    if (b->vtable_count == b->vtable_cap) {
      size_t ncap = b->vtable_cap ? b->vtable_cap * 2 : 16;
      uint32_t *nv = realloc(b->vtables, ncap * sizeof *nv);
      if (!nv) {
        kfbb_fail(b, "out of memory");
        return 0;
      }
      b->vtables = nv;
      b->vtable_cap = ncap;
    }
    b->vtables[b->vtable_count++] = (uint32_t)vt_ref;
  }
  /* vtable = table - soffset, in final-buffer positions (cap - ref). */
  int32_t soffset = (int32_t)((int64_t)vt_ref - (int64_t)table);
  memcpy(b->buf + b->cap - table, &soffset, 4);
  return (kiln_fbb_ref_t)table;
}

bool kiln_fbb_finish(kiln_fbb_t *b, kiln_fbb_ref_t root, const char ident[4],
                     const uint8_t **data, size_t *size, const char **error) {
  *data = NULL;
  *size = 0;
  if (b->in_table) kfbb_fail(b, "finish inside a table");
  if (!root) kfbb_fail(b, "finish without a root table");
  kfbb_prep(b, b->minalign > 4 ? b->minalign : 4, 8);
  uint8_t *p = kfbb_push(b, 4);
  if (p) memcpy(p, ident, 4);
  kfbb_push_offset(b, root);
  if (b->error) {
    *error = b->error;
    return false;
  }
  *data = b->buf + b->cap - b->used;
  *size = b->used;
  return true;
}
