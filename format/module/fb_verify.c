/* The generic FlatBuffers verifier, driven by schema descriptors.
 *
 * Takes any bytes and a schema; guarantees that on success every object
 * reachable through the schema's fields lies inside the buffer, is aligned,
 * has a sane vtable, that strings are NUL-terminated (names, also present,
 * non-empty and without a NUL byte), enum fields hold declared values
 * (absent ones too: their default) and tensor dims are sizes or -1, so the
 * inline accessors of fb_reader.h may read without checks. All arithmetic
 * is done in 64 bits on values that fit in 32, so nothing overflows. Work
 * is bounded: tables nest at most KILN_FB_MAX_DEPTH deep and the number of
 * objects visited is capped by what the buffer could hold without sharing,
 * so a hostile DAG of shared subobjects cannot make verification slow.
 * Nothing is allocated; errors carry the field path. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "kiln/fb_reader.h"
#include "kiln/message.h"

typedef struct kfb_path_elem {
  const char *name;
  int64_t index; /* vector element, or -1 */
} kfb_path_elem;

typedef struct kfb_verifier {
  const kiln_fb_schema_t *schema;
  const uint8_t *buf;
  uint64_t limit;  /* bytes the FlatBuffer may span */
  uint64_t extent; /* furthest byte used so far */
  uint64_t budget; /* objects that may still be visited */
  uint64_t budget_total;
  unsigned depth;
  unsigned path_len;
  kfb_path_elem path[KILN_FB_MAX_DEPTH * 2 + 4];
  kiln_format_error_t *err;
} kfb_verifier;

unsigned kiln_fb_scalar_size(kiln_fb_scalar_t s) {
  switch (s) {
    case KILN_FB_BOOL:
    case KILN_FB_U8: return 1;
    case KILN_FB_U16: return 2;
    case KILN_FB_U32:
    case KILN_FB_I32: return 4;
    case KILN_FB_U64:
    case KILN_FB_I64: return 8;
  }
  return 0;
}

static int64_t kfb_read_scalar(const uint8_t *p, kiln_fb_scalar_t s) {
  switch (s) {
    case KILN_FB_BOOL:
    case KILN_FB_U8: return p[0];
    case KILN_FB_U16: return kiln_fb_read_u16(p);
    case KILN_FB_U32: return kiln_fb_read_u32(p);
    case KILN_FB_I32: {
      int32_t v;
      memcpy(&v, p, 4);
      return v;
    }
    case KILN_FB_U64:
    case KILN_FB_I64: {
      int64_t v;
      memcpy(&v, p, 8);
      return v;
    }
  }
  return 0;
}

#ifndef KILN_NO_MESSAGES
__attribute__((format(printf, 2, 3))) KILN_MESSAGE_VARIADIC static bool
kfb_fail(kfb_verifier *v, const char *fmt, ...) {
  char *out = v->err->message;
  size_t cap = sizeof v->err->message, n = 0;
  for (unsigned i = 0; i < v->path_len && n < cap; i++) {
    const kfb_path_elem *e = &v->path[i];
    /* One call for both shapes: a format may leave arguments unused
     * (C17 7.21.6.1p2), so the index is passed either way. */
    int w = snprintf(out + n, cap - n,
                     e->index >= 0 ? "%s%s[%" PRId64 "]" : "%s%s",
                     i ? "." : "", e->name, e->index);
    if (w < 0) break;
    n += (size_t)w;
  }
  /* ": " as far as it fits, the NUL left to the message below. */
  for (const char *s = ": "; *s && n + 1 < cap; s++) out[n++] = *s;
  if (n < cap) {
    va_list ap;
    va_start(ap, fmt);
    kiln_message_vformat(out + n, cap - n, 0, fmt, ap);
    va_end(ap);
  }
  return false;
}
#else
/* No field path either, and no text: kiln_fb_verify wrote the fixed one
 * on entry (kiln/message.h). */
#define kfb_fail(v, ...) (KILN_MESSAGE_DROP(__VA_ARGS__), (void)(v), false)
#endif

#ifdef KILN_NO_MESSAGES /* the path only feeds messages */
static void kfb_push(kfb_verifier *v, const char *name) { (void)v, (void)name; }
static void kfb_pop(kfb_verifier *v) { (void)v; }
static void kfb_set_index(kfb_verifier *v, int64_t index) { (void)v, (void)index; }
#else
static void kfb_push(kfb_verifier *v, const char *name) {
  /* Depth is checked before every table, and each table adds at most two
   * elements (field, element index), so the array cannot overflow; the
   * guard only keeps the reasoning local. */
  if (v->path_len < sizeof v->path / sizeof v->path[0]) {
    v->path[v->path_len].name = name;
    v->path[v->path_len].index = -1;
  }
  v->path_len++;
}

static void kfb_pop(kfb_verifier *v) { v->path_len--; }

static void kfb_set_index(kfb_verifier *v, int64_t index) {
  if (v->path_len && v->path_len <= sizeof v->path / sizeof v->path[0])
    v->path[v->path_len - 1].index = index;
}
#endif

/* Bytes [pos, pos+len) inside the buffer and pos aligned. */
static bool kfb_check_span(kfb_verifier *v, uint64_t pos, uint64_t len,
                           unsigned align, const char *what) {
  if (pos > v->limit || len > v->limit - pos)
    return kfb_fail(v, "%s at offset %" PRIu64 " (%" PRIu64
                    " bytes) runs past the end of the %" PRIu64 "-byte buffer",
                    what, pos, len, v->limit);
  if (align > 1 && pos % align != 0)
    return kfb_fail(v, "%s at offset %" PRIu64 " is not %u-byte aligned", what,
                    pos, align);
  if (pos + len > v->extent) v->extent = pos + len;
  return true;
}

static bool kfb_spend(kfb_verifier *v) {
  if (v->budget == 0)
    return kfb_fail(v, "more objects than the buffer can hold (limit %"
                    PRIu64 "; shared subobjects are not allowed)",
                    v->budget_total);
  v->budget--;
  return true;
}

/* value, stored or (absent) the field's default 0, is one of the enum's
 * valid values (a KFB_ENUM_UNSET value never is). */
static bool kfb_check_enum(kfb_verifier *v, unsigned enum_ref, int64_t value,
                           bool absent) {
  if (enum_ref == 0) return true;
  const kiln_fb_enum_desc_t *e = &v->schema->enums[enum_ref - 1];
  if (value >= 0 && value < 32 && (e->valid >> value & 1u)) return true;
  return kfb_fail(v, "%s%" PRId64 " is not a valid %s",
                  absent ? "missing: its default " : "value ", value,
                  kiln_fb_name(v->schema, e->name));
}

/* Follows the uoffset stored at pos (already checked in bounds). */
static bool kfb_follow(kfb_verifier *v, uint64_t pos, uint64_t *target) {
  *target = pos + kiln_fb_read_u32(v->buf + pos);
  if (*target >= v->limit)
    return kfb_fail(v, "offset at %" PRIu64 " points to %" PRIu64
                    ", past the end of the %" PRIu64 "-byte buffer",
                    pos, *target, v->limit);
  return true;
}

static bool kfb_verify_string(kfb_verifier *v, uint64_t pos) {
  if (!kfb_spend(v) || !kfb_check_span(v, pos, 4, 4, "string length"))
    return false;
  uint64_t len = kiln_fb_read_u32(v->buf + pos);
  if (!kfb_check_span(v, pos + 4, len + 1, 1, "string")) return false;
  if (v->buf[pos + 4 + len] != 0)
    return kfb_fail(v, "string at offset %" PRIu64 " is not NUL-terminated",
                    pos);
  return true;
}

/* A vector header and its elements' storage; returns the count in *n. */
static bool kfb_verify_vector(kfb_verifier *v, uint64_t pos, unsigned elem_size,
                              unsigned elem_align, uint32_t *n) {
  if (!kfb_spend(v) || !kfb_check_span(v, pos, 4, 4, "vector length"))
    return false;
  *n = kiln_fb_read_u32(v->buf + pos);
  return kfb_check_span(v, pos + 4, (uint64_t)*n * elem_size,
                        elem_align > 4 ? elem_align : 1, "vector elements");
}

static bool kfb_verify_table(kfb_verifier *v, uint64_t pos, unsigned table);

/* A name field (KILN_FB_FIELD_NAME) absent, empty or with a NUL byte: one
 * text for the three, stored once. */
static bool kfb_bad_name(kfb_verifier *v) {
  return kfb_fail(v, "missing, empty or holding a NUL byte");
}

static bool kfb_verify_field(kfb_verifier *v, const kiln_fb_field_desc_t *f,
                             uint64_t at) {
  const kiln_fb_schema_t *s = v->schema;
  uint64_t target;
  uint32_t n;
  switch ((kiln_fb_kind_t)f->kind) {
    case KILN_FB_FIELD_SCALAR:
      return kfb_check_enum(v, f->ref,
                            kfb_read_scalar(v->buf + at, f->scalar), false);
    case KILN_FB_FIELD_STRUCT:
      return true;
    case KILN_FB_FIELD_STRING:
      return kfb_follow(v, at, &target) && kfb_verify_string(v, target);
    case KILN_FB_FIELD_NAME: {
      if (!kfb_follow(v, at, &target) || !kfb_verify_string(v, target))
        return false;
      const uint32_t len = kiln_fb_read_u32(v->buf + target);
      if (len == 0 || memchr(v->buf + target + 4, 0, len)) return kfb_bad_name(v);
      return true;
    }
    case KILN_FB_FIELD_TABLE:
      return kfb_follow(v, at, &target) && kfb_verify_table(v, target, f->ref);
    case KILN_FB_FIELD_VEC_SCALAR:
    case KILN_FB_FIELD_VEC_DIMS: {
      unsigned size = kiln_fb_scalar_size(f->scalar);
      const bool dims = f->kind == KILN_FB_FIELD_VEC_DIMS;
      if (!kfb_follow(v, at, &target) ||
          !kfb_verify_vector(v, target, size, size, &n))
        return false;
      for (uint32_t i = 0; (f->ref || dims) && i < n; i++) {
        kfb_set_index(v, i);
        int64_t x = kfb_read_scalar(v->buf + target + 4 + (uint64_t)i * size,
                                    f->scalar);
        if (dims && x < -1)
          return kfb_fail(v, "%" PRId64 " is neither a size nor -1 (dynamic)",
                          x);
        if (!kfb_check_enum(v, f->ref, x, false)) return false;
      }
      return true;
    }
    case KILN_FB_FIELD_VEC_STRUCT: {
      const kiln_fb_struct_desc_t *sd = &s->structs[f->ref];
      return kfb_follow(v, at, &target) &&
             kfb_verify_vector(v, target, sd->size, sd->align, &n);
    }
    case KILN_FB_FIELD_VEC_STRING:
    case KILN_FB_FIELD_VEC_TABLE: {
      if (!kfb_follow(v, at, &target) || !kfb_verify_vector(v, target, 4, 4, &n))
        return false;
      for (uint32_t i = 0; i < n; i++) {
        uint64_t elem;
        kfb_set_index(v, i);
        if (!kfb_follow(v, target + 4 + 4 * (uint64_t)i, &elem)) return false;
        bool ok = f->kind == KILN_FB_FIELD_VEC_STRING
                      ? kfb_verify_string(v, elem)
                      : kfb_verify_table(v, elem, f->ref);
        if (!ok) return false;
      }
      return true;
    }
  }
  return kfb_fail(v, "unknown field kind %u in the schema", f->kind);
}

/* Size and alignment of a field's inline part inside its table. */
static unsigned kfb_inline_size(const kiln_fb_schema_t *s,
                                const kiln_fb_field_desc_t *f,
                                unsigned *align) {
  switch ((kiln_fb_kind_t)f->kind) {
    case KILN_FB_FIELD_SCALAR:
      return *align = kiln_fb_scalar_size(f->scalar);
    case KILN_FB_FIELD_STRUCT:
      *align = s->structs[f->ref].align;
      return s->structs[f->ref].size;
    default:
      return *align = 4;
  }
}

static bool kfb_verify_table(kfb_verifier *v, uint64_t pos, unsigned table) {
  const kiln_fb_table_desc_t *td = &v->schema->tables[table];
  const char *tname = kiln_fb_name(v->schema, td->name);
  if (v->depth >= KILN_FB_MAX_DEPTH)
    return kfb_fail(v, "tables nest deeper than %d levels", KILN_FB_MAX_DEPTH);
  if (!kfb_spend(v) || !kfb_check_span(v, pos, 4, 4, tname)) return false;
  int32_t soffset;
  memcpy(&soffset, v->buf + pos, 4);
  int64_t vt = (int64_t)pos - soffset;
  if (vt < 0)
    return kfb_fail(v, "%s at offset %" PRIu64 " has its vtable before the "
                    "start of the buffer (soffset %" PRId32 ")", tname, pos,
                    soffset);
  if (!kfb_check_span(v, (uint64_t)vt, 4, 2, "vtable")) return false;
  unsigned vt_size = kiln_fb_read_u16(v->buf + vt);
  unsigned t_size = kiln_fb_read_u16(v->buf + vt + 2);
  if (vt_size < 4 || vt_size % 2 != 0)
    return kfb_fail(v, "%s vtable at offset %" PRId64 " has invalid size %u",
                    tname, vt, vt_size);
  if (t_size < 4)
    return kfb_fail(v, "%s at offset %" PRIu64 " has invalid size %u",
                    tname, pos, t_size);
  if (!kfb_check_span(v, (uint64_t)vt, vt_size, 2, "vtable") ||
      !kfb_check_span(v, pos, t_size, 4, tname))
    return false;
  v->depth++;
  for (unsigned i = 0; i < td->field_count; i++) {
    const kiln_fb_field_desc_t *f = kiln_fb_table_field(v->schema, td, i);
    const unsigned off = 4u + 2u * f->slot + 2u > vt_size
                             ? 0
                             : kiln_fb_read_u16(v->buf + vt + 4 + 2 * f->slot);
    /* Absent: a name is missing, an enum field's default must be valid. */
    if (off == 0 && f->kind != KILN_FB_FIELD_NAME &&
        (f->kind != KILN_FB_FIELD_SCALAR || !f->ref))
      continue;
    kfb_push(v, kiln_fb_name(v->schema, f->name));
    if (off == 0) {
      if (f->kind == KILN_FB_FIELD_NAME) return kfb_bad_name(v);
      if (!kfb_check_enum(v, f->ref, 0, true)) return false;
      kfb_pop(v);
      continue;
    }
    unsigned align, size = kfb_inline_size(v->schema, f, &align);
    if (off + size > t_size) {
      return kfb_fail(v, "field (offset %u, %u bytes) lies outside its "
                      "%u-byte table", off, size, t_size);
    }
    if ((pos + off) % align != 0) {
      return kfb_fail(v, "%s at offset %" PRIu64 " is not %u-byte aligned",
                      "field", pos + off, align);
    }
    if (!kfb_verify_field(v, f, pos + off)) return false;
    kfb_pop(v);
  }
  v->depth--;
  return true;
}

bool kiln_fb_verify(const kiln_fb_schema_t *schema, const uint8_t *buf,
                    uint64_t size, uint64_t *extent, kiln_format_error_t *err) {
  kfb_verifier v;
  v.schema = schema;
  v.buf = buf;
  v.limit = size < KILN_FB_MAX_BUFFER ? size : KILN_FB_MAX_BUFFER;
  v.extent = 0;
  /* Every object needs at least 4 bytes of its own plus a 4-byte offset
   * pointing at it, so a buffer without sharing never exceeds this. */
  v.budget = v.limit / 4 + 16;
  if (v.budget > KILN_FB_MAX_OBJECTS) v.budget = KILN_FB_MAX_OBJECTS;
  v.budget_total = v.budget;
  v.depth = 0;
  v.path_len = 0;
  v.err = err;
#ifdef KILN_NO_MESSAGES
  KILN_MESSAGE_ENTRY(err->message, sizeof err->message);
#else
  err->message[0] = 0;
#endif
  kfb_push(&v, kiln_fb_name(schema, schema->tables[schema->root_table].name));
  if (v.limit < 4)
    return kfb_fail(&v, "buffer of %" PRIu64 " bytes is too small for a "
                        "FlatBuffer", size);
  uint64_t root;
  if (!kfb_check_span(&v, 0, 4, 4, "root offset") || !kfb_follow(&v, 0, &root) ||
      !kfb_verify_table(&v, root, schema->root_table))
    return false;
  if (extent) *extent = v.extent;
  return true;
}
