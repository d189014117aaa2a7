/* See module_walk.h. Every string is read up to and including its NUL and
 * every segment's first and last byte is touched, so on an exact-size
 * buffer AddressSanitizer catches any range the verifier let through. */
#include "module_walk.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "kiln/module_zstd.h"

#define FAIL(...)                      \
  do {                                 \
    snprintf(why, cap, __VA_ARGS__);   \
    return false;                      \
  } while (0)

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static uint64_t str(uint64_t h, kiln_fb_string_t s) {
  for (uint32_t i = 0; i <= s.size; i++) h = mix(h, (uint8_t)s.data[i]);
  return h;
}

bool kiln_test_module_walk(const kiln_module_view_t *m, uint64_t *checksum,
                           char *why, size_t cap) {
  kiln_fb_Module_t r = m->root;
  uint64_t h = *checksum;
  uint32_t nseg = kiln_fb_Module_segments_count(r);
  uint32_t nfiles = kiln_fb_Module_source_files_count(r);
  uint64_t code = kiln_fb_Module_bytecode_count(r);
  if (kiln_fb_Module_format_version(r) < KILN_MODULE_FORMAT_VERSION_MIN ||
      kiln_fb_Module_format_version(r) > KILN_MODULE_FORMAT_VERSION)
    FAIL("format version %u accepted", kiln_fb_Module_format_version(r));
  h = str(h, kiln_fb_Module_name(r));
  kiln_fb_Producer_t p = kiln_fb_Module_producer(r);
  h = str(h, kiln_fb_Producer_compiler_version(p));
  for (uint32_t i = 0; i < kiln_fb_Producer_flags_count(p); i++)
    h = str(h, kiln_fb_Producer_flags_at(p, i));
  for (uint32_t i = 0; i < nfiles; i++) h = str(h, kiln_fb_Module_source_files_at(r, i));
  const uint8_t *bytes = kiln_fb_Module_bytecode_data(r);
  for (uint64_t i = 0; i < code; i++) h = mix(h, bytes[i]);

  uint64_t prev_end = m->flatbuffer_size;
  for (uint32_t i = 0; i < nseg; i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(r, i);
    uint64_t off = kiln_fb_Segment_offset(s), size = kiln_fb_Segment_size(s);
    if (off % 64 || off < prev_end || off > m->file_size || size > m->file_size - off)
      FAIL("segment %u at %" PRIu64 "+%" PRIu64 " accepted", i, off, size);
    if (kiln_fb_Segment_kind(s) > kiln_fb_SegmentKind_Executable ||
        kiln_fb_Segment_compression(s) > kiln_fb_Compression_Zstd)
      FAIL("segment %u: invalid enum accepted", i);
    prev_end = off + size;
    if (size) {
      h = mix(h, m->file[off]);
      h = mix(h, m->file[off + size - 1]);
    }
    uint64_t n = kiln_fb_Segment_uncompressed_size(s);
    if (n <= (16u << 20)) {
      uint8_t *buf = malloc(n ? n : 1);
      kiln_format_error_t err;
      if (!buf) FAIL("out of memory");
      if (kiln_module_segment_read(m, i, buf, n, &err)) {
        h = mix(h, kiln_module_hash(buf, n));
      } else if (!err.message[0]) {
        free(buf);
        FAIL("segment %u: read failed without a message", i);
      }
      free(buf);
    }
  }

  for (uint32_t i = 0; i < kiln_fb_Module_functions_count(r); i++) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(r, i);
    h = str(h, kiln_fb_Function_name(f));
    h = str(h, kiln_fb_Function_vm_signature(f));
    uint64_t off = kiln_fb_Function_bytecode_offset(f);
    uint64_t size = kiln_fb_Function_bytecode_size(f);
    if (off + size > code) FAIL("function %u: bytecode range accepted", i);
    uint32_t n;
    const uint8_t *c = kiln_module_function_bytecode(m, i, &n);
    for (uint32_t k = 0; k < n; k++) h = mix(h, c[k]);
    for (int out = 0; out < 2; out++) {
      uint32_t nt = out ? kiln_fb_Function_outputs_count(f) : kiln_fb_Function_inputs_count(f);
      for (uint32_t t = 0; t < nt; t++) {
        kiln_fb_TensorType_t tt = out ? kiln_fb_Function_outputs_at(f, t)
                                      : kiln_fb_Function_inputs_at(f, t);
        if (kiln_module_element_type_name(kiln_fb_TensorType_element_type(tt))[0] == '?')
          FAIL("function %u: invalid element type accepted", i);
        for (uint32_t d = 0; d < kiln_fb_TensorType_dims_count(tt); d++) {
          int64_t dim = kiln_fb_TensorType_dims_at(tt, d);
          if (dim < -1) FAIL("function %u: dim %" PRId64 " accepted", i, dim);
          h = mix(h, (uint64_t)dim);
        }
      }
    }
    for (uint32_t l = 0; l < kiln_fb_Function_locations_count(f); l++) {
      kiln_fb_SourceLocation_t loc = kiln_fb_Function_locations_at(f, l);
      if (loc.file >= nfiles || loc.pc >= size) FAIL("function %u: location accepted", i);
      h = str(h, kiln_fb_Module_source_files_at(r, loc.file));
      h = mix(h, loc.line);
    }
  }
  for (uint32_t i = 0; i < kiln_fb_Module_imports_count(r); i++) {
    kiln_fb_Import_t imp = kiln_fb_Module_imports_at(r, i);
    h = str(str(h, kiln_fb_Import_name(imp)), kiln_fb_Import_signature(imp));
  }
  for (uint32_t i = 0; i < kiln_fb_Module_rodata_count(r); i++) {
    kiln_fb_Rodata_t ro = kiln_fb_Module_rodata_at(r, i);
    h = str(h, kiln_fb_Rodata_name(ro));
    if (kiln_fb_Rodata_segment(ro) >= nseg) FAIL("rodata %u: segment index accepted", i);
    uint32_t a = kiln_fb_Rodata_alignment(ro);
    if (a == 0 || (a & (a - 1)) || a > 64) FAIL("rodata %u: alignment accepted", i);
  }
  for (uint32_t i = 0; i < kiln_fb_Module_executables_count(r); i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, i);
    h = str(h, kiln_fb_Executable_name(e));
    for (uint32_t x = 0; x < kiln_fb_Executable_exports_count(e); x++) {
      kiln_fb_ExecutableExport_t ex = kiln_fb_Executable_exports_at(e, x);
      kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(ex);
      if (!wg.x || !wg.y || !wg.z) FAIL("export %u.%u: zero workgroup accepted", i, x);
      h = str(h, kiln_fb_ExecutableExport_name(ex));
      for (uint32_t b = 0; b < kiln_fb_ExecutableExport_bindings_count(ex); b++)
        h = mix(h, kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(ex, b)));
    }
    for (uint32_t v = 0; v < kiln_fb_Executable_variants_count(e); v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      h = str(str(h, kiln_fb_ExecutableVariant_name(var)), kiln_fb_ExecutableVariant_target(var));
      h = str(str(h, kiln_fb_ExecutableVariant_arch(var)), kiln_fb_ExecutableVariant_cpu_features(var));
      if (kiln_fb_ExecutableVariant_segment(var) >= nseg)
        FAIL("variant %u.%u: segment index accepted", i, v);
      if (kiln_fb_ExecutableVariant_format(var) > kiln_fb_PayloadFormat_PTX)
        FAIL("variant %u.%u: format accepted", i, v);
      uint32_t nl = kiln_fb_ExecutableVariant_exports_count(var);
      if (nl && nl != kiln_fb_Executable_exports_count(e))
        FAIL("variant %u.%u: %u launch entries accepted", i, v, nl);
      for (uint32_t x = 0; x < nl; x++) {
        kiln_fb_VariantExport_t ve = kiln_fb_ExecutableVariant_exports_at(var, x);
        kiln_fb_Dim3_t bs = kiln_fb_VariantExport_block_size(ve);
        uint64_t threads = (uint64_t)bs.x * bs.y * bs.z;
        uint64_t shared = (uint64_t)kiln_fb_VariantExport_static_shared_memory_bytes(ve) +
                          kiln_fb_VariantExport_dynamic_shared_memory_bytes(ve);
        if (!threads || threads > 1024 || bs.z > 64 || shared > 228u * 1024u)
          FAIL("variant %u.%u export %u: block %ux%ux%u, %" PRIu64
               " shared bytes accepted", i, v, x, bs.x, bs.y, bs.z, shared);
        h = mix(mix(h, threads), shared);
      }
    }
  }
  *checksum = h;
  return true;
}
