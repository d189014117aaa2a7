/* Opening a .kiln module: the checks above the FlatBuffer structure.
 *
 * Order matters for the messages users see: first "is this a Kiln file at
 * all" (identifier), then "is it a version this reader speaks" (read with
 * its own bounds checks, before structure verification, since a future
 * layout may not verify), then the generic structural verifier, then the
 * module's invariants: every index in range, every range inside what it
 * points into, segments aligned, ordered and inside the file. Nothing is
 * allocated; all file-offset arithmetic is 64-bit and overflow-checked. */
#include <inttypes.h>
#include <stdio.h>

#include "kiln/module_format.h"
#include "kiln/message.h"
#include "kiln/version.h"

/* Formats the message into err and returns false. */
#define kmv_fail(err, ...) \
  (KILN_MESSAGE((err)->message, sizeof (err)->message, 0, __VA_ARGS__), false)

/* Reads Module.format_version with bounds checks of its own; returns false
 * when the bytes are too damaged to find it (the verifier will say why). */
static bool kmv_peek_version(const uint8_t *buf, uint64_t size,
                             uint32_t *version) {
  *version = 0;
  if (size < 8) return false;
  uint64_t root = kiln_fb_read_u32(buf);
  if (root % 4 || root + 4 > size) return false;
  int32_t soffset;
  memcpy(&soffset, buf + root, 4);
  int64_t vt = (int64_t)root - soffset;
  if (vt < 0 || vt % 2 || (uint64_t)vt + 4 > size) return false;
  unsigned vt_size = kiln_fb_read_u16(buf + vt);
  unsigned t_size = kiln_fb_read_u16(buf + vt + 2);
  if ((uint64_t)vt + vt_size > size || root + t_size > size) return false;
  if (vt_size < 6) return true; /* absent: 0 */
  unsigned off = kiln_fb_read_u16(buf + vt + 4);
  if (off == 0) return true;
  if (off + 4 > t_size || (root + off) % 4 || root + off + 4 > size)
    return false;
  *version = kiln_fb_read_u32(buf + root + off);
  return true;
}

#ifndef KILN_NO_MESSAGES /* only the message names the producer */
/* The compiler named in a module this reader does not speak, when its
 * FlatBuffer still verifies against this schema (fields are only ever
 * appended, so it usually does): "kiln-compile 0.2.0", or "". */
static void kmv_peek_producer(const uint8_t *buf, uint64_t size, char *out,
                              size_t cap) {
  kiln_format_error_t ignored;
  uint64_t extent;
  out[0] = 0;
  if (!kiln_fb_verify(&kiln_module_schema, buf, size, &extent, &ignored))
    return;
  kiln_fb_Module_t root = {kiln_fb_deref(buf)};
  kiln_fb_string_t v =
      kiln_fb_Producer_compiler_version(kiln_fb_Module_producer(root));
  for (uint32_t i = 0; i < v.size; i++)
    if (v.data[i] < 0x20 || v.data[i] > 0x7e) return; /* not for a message */
  snprintf(out, cap, "%.*s", (int)(v.size < 64 ? v.size : 64), v.data);
}
#endif

/* One template for both pc checks: the text is stored once. */
#define KMV_PC_BAD                                                         \
  "functions[%" PRIu32 "].%s[%" PRIu32 "].pc: %" PRIu32 " is outside the %" \
  PRIu64 "-byte bytecode or out of order"

static bool kmv_check_segments(const kiln_module_view_t *m,
                               kiln_format_error_t *err) {
  kiln_fb_Module_t root = m->root;
  uint64_t prev_end = m->flatbuffer_size;
  uint32_t n = kiln_fb_Module_segments_count(root);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(root, i);
    uint64_t off = kiln_fb_Segment_offset(s), size = kiln_fb_Segment_size(s);
    if (off % KILN_MODULE_SEGMENT_ALIGNMENT)
      return kmv_fail(err, "segments[%" PRIu32 "]: offset %" PRIu64
                      " is not %u-byte aligned", i, off,
                      KILN_MODULE_SEGMENT_ALIGNMENT);
    if (size >= KILN_MODULE_LARGE_SEGMENT_SIZE &&
        off % KILN_MODULE_LARGE_SEGMENT_ALIGNMENT)
      return kmv_fail(err, "segments[%" PRIu32 "]: offset %" PRIu64
                      " of a %" PRIu64 "-byte segment is not %u-byte aligned",
                      i, off, size, KILN_MODULE_LARGE_SEGMENT_ALIGNMENT);
    if (off < prev_end)
      return kmv_fail(err, "segments[%" PRIu32 "]: offset %" PRIu64
                      " overlaps the %s ending at %" PRIu64, i, off,
                      i ? "previous segment" : "FlatBuffer", prev_end);
    if (off > m->file_size || size > m->file_size - off)
      return kmv_fail(err, "segments[%" PRIu32 "]: bytes %" PRIu64 "+%" PRIu64
                      " run past the end of the %" PRIu64 "-byte file",
                      i, off, size, m->file_size);
    if (kiln_fb_Segment_compression(s) == kiln_fb_Compression_None &&
        kiln_fb_Segment_uncompressed_size(s) != size)
      return kmv_fail(err, "segments[%" PRIu32 "]: uncompressed segment has "
                      "size %" PRIu64 " but uncompressed_size %" PRIu64, i,
                      size, kiln_fb_Segment_uncompressed_size(s));
    prev_end = off + size;
  }
  return true;
}

/* A segment index and the kind it must have. */
static bool kmv_check_segment_ref(const kiln_module_view_t *m, uint32_t index,
                                  kiln_fb_SegmentKind_t kind, const char *what,
                                  uint32_t i, kiln_format_error_t *err) {
  uint32_t n = kiln_fb_Module_segments_count(m->root);
  if (index >= n)
    return kmv_fail(err, "%s[%" PRIu32 "].segment: index %" PRIu32
                    " out of range (%" PRIu32 " segments)", what, i, index, n);
  kiln_fb_Segment_t s = kiln_fb_Module_segments_at(m->root, index);
  if (kiln_fb_Segment_kind(s) != kind)
    return kmv_fail(err, "%s[%" PRIu32 "].segment: segment %" PRIu32
                    " holds %s data", what, i, index,
                    kind == kiln_fb_SegmentKind_Rodata ? "executable"
                                                       : "rodata");
  return true;
}

static bool kmv_check_functions(const kiln_module_view_t *m,
                                kiln_format_error_t *err) {
  uint64_t code_size = kiln_fb_Module_bytecode_count(m->root);
  uint32_t n = kiln_fb_Module_functions_count(m->root);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(m->root, i);
    uint64_t off = kiln_fb_Function_bytecode_offset(f);
    uint64_t size = kiln_fb_Function_bytecode_size(f);
    if (off + size > code_size)
      return kmv_fail(err, "functions[%" PRIu32 "] (%s): bytecode range %"
                      PRIu64 "+%" PRIu64 " exceeds the %" PRIu64
                      "-byte bytecode", i, kiln_fb_Function_name(f).data, off,
                      size, code_size);
    uint32_t prev_pc = 0;
    (void)prev_pc;
#ifndef KILN_FORMAT_NO_LOCATION_CHECKS /* read by messages, profiles, tools */
    uint32_t files = kiln_fb_Module_source_files_count(m->root);
    uint32_t nloc = kiln_fb_Function_locations_count(f);
    for (uint32_t l = 0; l < nloc; l++) {
      kiln_fb_SourceLocation_t loc = kiln_fb_Function_locations_at(f, l);
      if (loc.file >= files)
        return kmv_fail(err, "functions[%" PRIu32 "].locations[%" PRIu32
                        "].file: index %" PRIu32 " out of range (%" PRIu32
                        " source files)", i, l, loc.file, files);
      if (loc.pc >= size || loc.pc < prev_pc)
        return kmv_fail(err, KMV_PC_BAD, i, "locations", l, loc.pc, size);
      prev_pc = loc.pc;
    }
#endif
#ifndef KILN_FORMAT_NO_SOURCE_NODE_CHECKS /* read by profiles and tools */
    uint32_t nsites = kiln_fb_Function_source_nodes_count(f);
    for (uint32_t s = 0; s < nsites; s++) {
      uint32_t pc = kiln_fb_SourceNodes_pc(kiln_fb_Function_source_nodes_at(f, s));
      if (pc >= size || (s && pc <= prev_pc))
        return kmv_fail(err, KMV_PC_BAD, i, "source_nodes", s, pc, size);
      prev_pc = pc;
    }
#endif
  }
  return true;
}

static bool kmv_check_rodata(const kiln_module_view_t *m,
                             kiln_format_error_t *err) {
  uint32_t n = kiln_fb_Module_rodata_count(m->root);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Rodata_t r = kiln_fb_Module_rodata_at(m->root, i);
    uint32_t align = kiln_fb_Rodata_alignment(r);
    if (align == 0 || (align & (align - 1)) ||
        align > KILN_MODULE_SEGMENT_ALIGNMENT)
      return kmv_fail(err, "rodata[%" PRIu32 "].alignment: %" PRIu32
                      " is not a power of two up to %u", i, align,
                      KILN_MODULE_SEGMENT_ALIGNMENT);
    if (!kmv_check_segment_ref(m, kiln_fb_Rodata_segment(r),
                               kiln_fb_SegmentKind_Rodata, "rodata", i, err))
      return false;
  }
  return true;
}

#ifndef KILN_FORMAT_NO_CUDA_CHECKS
/* A variant's launch metadata: absent, or one entry per executable export
 * with a block CUDA can launch and shared memory it can give. Only the
 * CUDA device reads it, so a runtime-only build without CUDA leaves this
 * check out (format/module/CMakeLists.txt); tools and CUDA runtimes keep
 * it. */
static bool kmv_check_variant_exports(kiln_fb_Executable_t e,
                                      kiln_fb_ExecutableVariant_t var,
                                      uint32_t i, uint32_t v,
                                      kiln_format_error_t *err) {
  uint32_t n = kiln_fb_ExecutableVariant_exports_count(var);
  uint32_t ne = kiln_fb_Executable_exports_count(e);
  const char *vname = kiln_fb_ExecutableVariant_name(var).data;
  if (n == 0) return true;
  if (n != ne)
    return kmv_fail(err, "executables[%" PRIu32 "].variants[%" PRIu32
                    "] (%s).exports: %" PRIu32 " entries for %" PRIu32
                    " executable exports", i, v, vname, n, ne);
  for (uint32_t x = 0; x < n; x++) {
    kiln_fb_VariantExport_t ve = kiln_fb_ExecutableVariant_exports_at(var, x);
    kiln_fb_Dim3_t bs = kiln_fb_VariantExport_block_size(ve);
    const char *xname =
        kiln_fb_ExecutableExport_name(kiln_fb_Executable_exports_at(e, x)).data;
    /* One message for both block checks keeps the runtime small; its
     * limits are spelled out (checked below). */
    const bool zero = bs.x == 0 || bs.y == 0 || bs.z == 0;
    if (zero || bs.x > KILN_MODULE_MAX_BLOCK_X || bs.y > KILN_MODULE_MAX_BLOCK_Y ||
        bs.z > KILN_MODULE_MAX_BLOCK_Z ||
        (uint64_t)bs.x * bs.y * bs.z > KILN_MODULE_MAX_BLOCK_THREADS)
      return kmv_fail(err, "executables[%" PRIu32 "].variants[%" PRIu32
                      "] (%s).exports[%" PRIu32 "] (%s): block size %" PRIu32
                      "x%" PRIu32 "x%" PRIu32 "%s", i, v, vname, x, xname,
                      bs.x, bs.y, bs.z,
                      !zero ? " exceeds CUDA's limits (1024 threads; x, y <= "
                              "1024, z <= 64)"
                      : kiln_fb_VariantExport_block_size_present(ve)
                          ? " has a zero dimension"
                          : " has a zero dimension (field missing)");
    uint64_t st = kiln_fb_VariantExport_static_shared_memory_bytes(ve);
    uint64_t dyn = kiln_fb_VariantExport_dynamic_shared_memory_bytes(ve);
    if (st + dyn > KILN_MODULE_MAX_SHARED_MEMORY_BYTES)
      return kmv_fail(err, "executables[%" PRIu32 "].variants[%" PRIu32
                      "] (%s).exports[%" PRIu32 "] (%s): shared memory %"
                      PRIu64 " bytes (static %" PRIu64 " + dynamic %" PRIu64
                      ") exceeds the %u-byte limit", i, v, vname, x, xname,
                      st + dyn, st, dyn, KILN_MODULE_MAX_SHARED_MEMORY_BYTES);
  }
  return true;
}

_Static_assert(KILN_MODULE_MAX_BLOCK_THREADS == 1024 &&
                   KILN_MODULE_MAX_BLOCK_X == 1024 &&
                   KILN_MODULE_MAX_BLOCK_Y == 1024 && KILN_MODULE_MAX_BLOCK_Z == 64,
               "update the block-limit message in kmv_check_variant_exports");
#endif

static bool kmv_check_executables(const kiln_module_view_t *m,
                                  kiln_format_error_t *err) {
  uint32_t n = kiln_fb_Module_executables_count(m->root);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(m->root, i);
    uint32_t ne = kiln_fb_Executable_exports_count(e);
    for (uint32_t x = 0; x < ne; x++) {
      kiln_fb_ExecutableExport_t ex = kiln_fb_Executable_exports_at(e, x);
      kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(ex);
      if (wg.x == 0 || wg.y == 0 || wg.z == 0)
        return kmv_fail(err, "executables[%" PRIu32 "].exports[%" PRIu32
                        "] (%s): workgroup size %" PRIu32 "x%" PRIu32 "x%"
                        PRIu32 " has a zero dimension", i, x,
                        kiln_fb_ExecutableExport_name(ex).data, wg.x, wg.y,
                        wg.z);
    }
    uint32_t nv = kiln_fb_Executable_variants_count(e);
    for (uint32_t v = 0; v < nv; v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      uint32_t seg = kiln_fb_ExecutableVariant_segment(var);
#ifdef KILN_NO_MESSAGES /* only messages name it */
      const char *what = "";
#else
      char what[48];
      snprintf(what, sizeof what, "executables[%" PRIu32 "].variants", i);
#endif
      if (!kmv_check_segment_ref(m, seg, kiln_fb_SegmentKind_Executable, what,
                                 v, err))
        return false;
#ifndef KILN_FORMAT_NO_CUDA_CHECKS
      if (!kmv_check_variant_exports(e, var, i, v, err)) return false;
#endif
    }
  }
  return true;
}

bool kiln_module_view_open(kiln_module_view_t *view, const void *file,
                           uint64_t file_size, kiln_format_error_t *err) {
  const uint8_t *buf = file;
  memset(view, 0, sizeof *view);
#ifdef KILN_NO_MESSAGES
  KILN_MESSAGE_ENTRY(err->message, sizeof err->message);
#else
  err->message[0] = 0;
#endif
  err->incompatible = false;
  if (!buf || file_size < 8)
    return kmv_fail(err, "not a Kiln module: %" PRIu64 " bytes is too short "
                    "for a FlatBuffer header", file_size);
  if (memcmp(buf + 4, KILN_MODULE_FILE_IDENTIFIER, 4) != 0)
    return kmv_fail(err, "not a Kiln module: file identifier is %02x %02x "
                    "%02x %02x, expected \"" KILN_MODULE_FILE_IDENTIFIER "\"",
                    buf[4], buf[5], buf[6], buf[7]);
  uint32_t version;
  /* Read once; when the header is too damaged to find it, the structural
   * verifier below says what is damaged. */
  const bool found = kmv_peek_version(buf, file_size, &version);
  if (found && version > KILN_MODULE_FORMAT_VERSION) {
    err->incompatible = true;
#ifdef KILN_NO_MESSAGES /* the producer only feeds the message */
    const char *producer = "";
#else
    char producer[80];
    kmv_peek_producer(buf, file_size, producer, sizeof producer);
#endif
    return kmv_fail(err, "module format version %" PRIu32 " is newer than "
                    "this reader (Kiln " KILN_VERSION ", format versions %u to "
                    "%u); the module was made by %s: run it with a Kiln "
                    "runtime at least as new as that compiler, or recompile "
                    "the model with kiln-compile " KILN_VERSION, version,
                    KILN_MODULE_FORMAT_VERSION_MIN, KILN_MODULE_FORMAT_VERSION,
                    producer[0] ? producer : "a newer kiln-compile");
  }
  if (found && version < KILN_MODULE_FORMAT_VERSION_MIN) {
    err->incompatible = true;
    return kmv_fail(err, "module format version %" PRIu32 "%s is not "
                    "supported: this reader (Kiln " KILN_VERSION ") reads "
                    "versions %u to %u; recompile the model with kiln-compile "
                    KILN_VERSION, version, version ? "" : " (field missing)",
                    KILN_MODULE_FORMAT_VERSION_MIN, KILN_MODULE_FORMAT_VERSION);
  }
  uint64_t extent;
  if (!kiln_fb_verify(&kiln_module_schema, buf, file_size, &extent, err))
    return false;
  view->file = buf;
  view->file_size = file_size;
  view->flatbuffer_size = extent < 8 ? 8 : extent;
  view->root.p = kiln_fb_deref(buf);
  if (!kmv_check_segments(view, err) || !kmv_check_functions(view, err) ||
      !kmv_check_rodata(view, err) ||
      !kmv_check_executables(view, err)) {
    memset(view, 0, sizeof *view);
    return false;
  }
  return true;
}

const uint8_t *kiln_module_segment_data(const kiln_module_view_t *view,
                                        uint32_t index, uint64_t *size) {
  *size = 0;
  if (index >= kiln_fb_Module_segments_count(view->root)) return NULL;
  kiln_fb_Segment_t s = kiln_fb_Module_segments_at(view->root, index);
  *size = kiln_fb_Segment_size(s);
  return view->file + kiln_fb_Segment_offset(s);
}

const uint8_t *kiln_module_function_bytecode(const kiln_module_view_t *view,
                                             uint32_t index, uint32_t *size) {
  *size = 0;
  if (index >= kiln_fb_Module_functions_count(view->root)) return NULL;
  kiln_fb_Function_t f = kiln_fb_Module_functions_at(view->root, index);
  const uint8_t *code = kiln_fb_Module_bytecode_data(view->root);
  if (!code) return NULL;
  *size = kiln_fb_Function_bytecode_size(f);
  return code + kiln_fb_Function_bytecode_offset(f);
}

int64_t kiln_module_find_function(const kiln_module_view_t *view,
                                  const char *name, size_t len) {
  uint32_t n = kiln_fb_Module_functions_count(view->root);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_string_t s =
        kiln_fb_Function_name(kiln_fb_Module_functions_at(view->root, i));
    if (s.size == len && memcmp(s.data, name, len) == 0) return i;
  }
  return -1;
}

bool kiln_module_segment_check_hash(const kiln_module_view_t *view,
                                    uint32_t index, kiln_format_error_t *err) {
  KILN_MESSAGE_ENTRY(err->message, sizeof err->message);
  uint64_t size;
  const uint8_t *data = kiln_module_segment_data(view, index, &size);
  if (!data)
    return kmv_fail(err, "segment %" PRIu32 " does not exist", index);
  kiln_fb_Segment_t s = kiln_fb_Module_segments_at(view->root, index);
  if (kiln_fb_Segment_compression(s) != kiln_fb_Compression_None)
    return kmv_fail(err, "segments[%" PRIu32 "]: compressed; its hash can "
                    "only be checked after decompression", index);
  uint64_t h = kiln_module_segment_hash(view, data, size);
  if (h != kiln_fb_Segment_content_hash(s))
    return kmv_fail(err, "segments[%" PRIu32 "]: content hash %016" PRIx64
                    " does not match the recorded %016" PRIx64, index, h,
                    kiln_fb_Segment_content_hash(s));
  return true;
}
