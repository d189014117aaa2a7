/* External tensor data: the "location"/"offset"/"length" entries of a
 * TensorProto and the mmap of the bytes they point at.
 *
 * Takes a tensor's external_data entries and, for mapping, the folder the
 * model was loaded from. Guarantees: a location is relative, has no ".."
 * component (with '/' or '\' as separators) and, once resolved through
 * symlinks, still lies inside the model's folder; offset and length are
 * plain decimal numbers whose sum fits in 63 bits and lies inside the file;
 * the length equals what the tensor needs. Mappings are private read-only
 * and live until the document is freed. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_internal.h"

struct ox_mapping {
  ox_mapping *next;
  void *addr;
  size_t len;
};

static bool ox_parse_u63(const char *s, uint64_t *v) {
  if (!s || !*s) return false;
  uint64_t r = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    unsigned d = (unsigned)(*s - '0');
    if (r > ((uint64_t)INT64_MAX - d) / 10) return false;
    r = r * 10 + d;
  }
  *v = r;
  return true;
}

/* True when some '/'- or '\'-separated component of S is "..". */
static bool ox_has_dotdot(const char *s) {
  const char *c = s;
  for (const char *p = s;; p++) {
    if (*p == '/' || *p == '\\' || *p == '\0') {
      if (p - c == 2 && c[0] == '.' && c[1] == '.') return true;
      if (!*p) return false;
      c = p + 1;
    }
  }
}

bool ox_external_parse(const Onnx__TensorProto *t, const char *where,
                       ox_external_ref *ref, kiln_onnx_status *st) {
  memset(ref, 0, sizeof *ref);
  char q[OX_QUOTE_MAX];
  if (!t->has_data_location ||
      t->data_location != ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external_data without data_location EXTERNAL", where);
  bool seen_offset = false;
  for (size_t i = 0; i < t->n_external_data; i++) {
    const Onnx__StringStringEntryProto *e = t->external_data[i];
    const char *key = e->key ? e->key : "";
    const char *val = e->value ? e->value : "";
    if (strcmp(key, "location") == 0) {
      if (ref->location)
        return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                       "%s: external_data gives 'location' twice", where);
      ref->location = val;
    } else if (strcmp(key, "offset") == 0) {
      if (seen_offset || !ox_parse_u63(val, &ref->offset))
        return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                       "%s: external offset %s is not one decimal number",
                       where, ox_quote(q, val));
      seen_offset = true;
    } else if (strcmp(key, "length") == 0) {
      if (ref->has_length || !ox_parse_u63(val, &ref->length))
        return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                       "%s: external length %s is not one decimal number",
                       where, ox_quote(q, val));
      ref->has_length = true;
    }
    /* "checksum" and unknown keys carry nothing the loader needs. */
  }
  if (!ref->location || !*ref->location)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external data without a location", where);
  if (ref->location[0] == '/' || ref->location[0] == '\\')
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external location %s is absolute; it must be "
                   "relative to the model's folder", where,
                   ox_quote(q, ref->location));
  if (ox_has_dotdot(ref->location))
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external location %s leaves the model's folder "
                   "(\"..\")", where, ox_quote(q, ref->location));
  if (ref->has_length && ref->offset > (uint64_t)INT64_MAX - ref->length)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external offset + length overflows", where);
  return true;
}

bool ox_external_map(ox_doc *doc, const ox_external_ref *ref,
                     const char *where, size_t size, const void **data,
                     kiln_onnx_status *st) {
  char q[OX_QUOTE_MAX];
  if (!doc->base_dir)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external data %s cannot be read: the model was "
                   "loaded from memory, not from a folder", where,
                   ox_quote(q, ref->location));
  char path[PATH_MAX], real[PATH_MAX], base[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%s", doc->base_dir, ref->location);
  if (n < 0 || (size_t)n >= sizeof path)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL, "%s: external path too long",
                   where);
  if (!realpath(doc->base_dir, base) || !realpath(path, real))
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL, "%s: external file %s: %s",
                   where, ox_quote(q, ref->location), strerror(errno));
  size_t bl = strlen(base);
  if (strncmp(real, base, bl) != 0 || (real[bl] != '/' && bl != 1))
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external file %s resolves outside the model's "
                   "folder", where, ox_quote(q, ref->location));
  int fd = open(real, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL, "%s: external file %s: %s",
                   where, ox_quote(q, ref->location), strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external file %s is not a regular file", where,
                   ox_quote(q, ref->location));
  }
  uint64_t fsize = (uint64_t)sb.st_size;
  uint64_t length = ref->has_length ? ref->length
                    : fsize > ref->offset ? fsize - ref->offset : 0;
  if (ref->offset > fsize || length > fsize - ref->offset) {
    close(fd);
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external bytes %llu..%llu lie beyond the end of %s "
                   "(%llu bytes)", where, (unsigned long long)ref->offset,
                   (unsigned long long)(ref->offset + length),
                   ox_quote(q, ref->location), (unsigned long long)fsize);
  }
  if (length != size) {
    close(fd);
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL,
                   "%s: external data %s has %llu bytes, the tensor needs "
                   "%zu", where, ox_quote(q, ref->location),
                   (unsigned long long)length, size);
  }
  if (size == 0) {
    close(fd);
    static const uint64_t empty;
    *data = &empty;
    return true;
  }
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  uint64_t start = ref->offset / page * page;
  size_t span = (size_t)(ref->offset - start) + size;
  void *p = mmap(NULL, span, PROT_READ, MAP_PRIVATE, fd, (off_t)start);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED)
    return ox_fail(st, KILN_ONNX_ERR_EXTERNAL, "%s: mmap of %s: %s", where,
                   ox_quote(q, ref->location), strerror(e));
  ox_mapping *m = ox_arena_alloc(&doc->arena, sizeof *m);
  if (!m) {
    munmap(p, span);
    return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  }
  m->addr = p;
  m->len = span;
  m->next = doc->mappings;
  doc->mappings = m;
  *data = (const uint8_t *)p + (ref->offset - start);
  return true;
}

void ox_external_unmap_all(ox_doc *doc) {
  for (ox_mapping *m = doc->mappings; m; m = m->next) munmap(m->addr, m->len);
  doc->mappings = NULL;
}
