/* One decoded file, model or value: scan, budget, protobuf-c unpack into
 * the arena; file mapping for the *_load_file entry points.
 *
 * Takes bytes (any), a root descriptor and an optional folder for external
 * data. Bytes in memory are not kept (protobuf-c copies what it keeps); a
 * file mapping is kept by the document, and large raw_data payloads point
 * into it instead of being copied (borrow.c), so a model's weights are not
 * copied at all while decoding. Guarantees: protobuf-c only runs on bytes
 * the wire scan accepted,
 * with an allocator whose budget is twice the scan's estimate plus 1 MiB
 * (so decoding memory grows linearly with the input and a hostile length
 * cannot make it balloon); on failure nothing is left allocated. After
 * decoding the budget is lifted: later conversions are bounded by the
 * decoded tensors themselves. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx_internal.h"

bool ox_doc_decode(ox_doc *doc, const void *bytes, size_t len,
                   const char *base_dir,
                   const ProtobufCMessageDescriptor *desc, bool borrow,
                   kiln_onnx_status *st) {
  memset(doc, 0, sizeof *doc);
  ox_arena_init(&doc->arena, 0);
  if (!bytes && len)
    return ox_fail(st, KILN_ONNX_ERR_IO, "no bytes given for %zu-byte input",
                   len);
  ox_scan_result scan;
  if (!ox_wire_scan(bytes, len, desc, &scan, st)) return false;

  size_t budget = scan.memory > (SIZE_MAX - (1u << 20)) / 2
                      ? SIZE_MAX - 1
                      : scan.memory * 2 + (1u << 20);
  ox_arena_init(&doc->arena, budget);
  if (base_dir) {
    doc->base_dir = strdup(base_dir);
    if (!doc->base_dir)
      return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  }
  ProtobufCAllocator al = ox_arena_allocator(&doc->arena);
  static const uint8_t empty[1];
  if (borrow && len) {
    if (!ox_unpack_borrowing(desc, &al, bytes, len, scan.messages,
                             &doc->root, &doc->borrowed, st)) {
      ox_doc_release(doc);
      return false;
    }
  } else {
    doc->root = protobuf_c_message_unpack(desc, &al, len,
                                          len ? bytes : (const void *)empty);
  }
  if (!doc->root) {
    bool over = doc->arena.exceeded;
    ox_doc_release(doc);
    if (over)
      return ox_fail(st, KILN_ONNX_ERR_MEMORY,
                     "decoding %s needs more than its budget of %zu bytes",
                     desc->name, budget);
    return ox_fail(st, KILN_ONNX_ERR_DECODE,
                   "protobuf-c could not decode %s (%zu bytes, %zu "
                   "messages)", desc->name, len, scan.messages);
  }
  doc->arena.budget = SIZE_MAX;
  return true;
}

bool ox_doc_decode_mapped(ox_doc *doc, const uint8_t *map, size_t len,
                          const char *base_dir,
                          const ProtobufCMessageDescriptor *desc,
                          kiln_onnx_status *st) {
  if (!ox_doc_decode(doc, map, len, base_dir, desc, true, st)) return false;
  if (doc->borrowed) {
    doc->file_map = map;
    doc->file_len = len;
  } else {
    ox_unmap_file(map, len); /* nothing borrowed: protobuf-c copied it all */
  }
  return true;
}

void ox_doc_release(ox_doc *doc) {
  ox_external_unmap_all(doc);
  ox_unmap_file(doc->file_map, doc->file_len);
  doc->file_map = NULL;
  doc->file_len = 0;
  doc->borrowed = 0;
  ox_arena_release(&doc->arena);
  free(doc->base_dir);
  doc->base_dir = NULL;
  doc->root = NULL;
  doc->cache = NULL;
}

bool ox_map_file(const char *path, const uint8_t **map, size_t *len,
                 kiln_onnx_status *st) {
  *map = NULL;
  *len = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return ox_fail(st, KILN_ONNX_ERR_IO, "%s: %s", path, strerror(errno));
  struct stat sb;
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return ox_fail(st, KILN_ONNX_ERR_IO, "%s: not a regular file", path);
  }
  if (sb.st_size > 0) {
    if ((uint64_t)sb.st_size > SIZE_MAX) {
      close(fd);
      return ox_fail(st, KILN_ONNX_ERR_IO, "%s: too large to map", path);
    }
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      close(fd);
      return ox_fail(st, KILN_ONNX_ERR_IO, "%s: mmap: %s", path, strerror(e));
    }
    *map = p;
    *len = (size_t)sb.st_size;
  }
  close(fd);
  return true;
}

void ox_unmap_file(const uint8_t *map, size_t len) {
  if (map && len) munmap((void *)map, len);
}

char *ox_dirname(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return strdup(".");
  if (slash == path) return strdup("/");
  size_t n = (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, path, n);
  d[n] = '\0';
  return d;
}
