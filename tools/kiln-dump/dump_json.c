/* kiln-dump --json: the same facts as the text listing, as one JSON
 * object (no disassembly; bytecode is given as offset and size). */
#include <inttypes.h>

#include "dump.h"

#define KDJ_STR(out, s) kdump_json_string(out, (s).data, (s).size)

static void kdj_key(FILE *out, const char *key) {
  kdump_json_string(out, key, strlen(key));
  fputc(':', out);
}

static void kdj_types(FILE *out, kiln_fb_Function_t f, bool outputs) {
  uint32_t n = outputs ? kiln_fb_Function_outputs_count(f)
                       : kiln_fb_Function_inputs_count(f);
  fputc('[', out);
  for (uint32_t i = 0; i < n; i++) {
    char buf[512];
    kdump_tensor_type(outputs ? kiln_fb_Function_outputs_at(f, i)
                              : kiln_fb_Function_inputs_at(f, i),
                      buf, sizeof buf);
    if (i) fputc(',', out);
    kdump_json_string(out, buf, strlen(buf));
  }
  fputc(']', out);
}

static void kdj_functions(FILE *out, const kiln_module_view_t *m) {
  kiln_fb_Module_t r = m->root;
  kdj_key(out, "functions");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_functions_count(r); i++) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(r, i);
    fputs(i ? ",\n  {" : "\n  {", out);
    kdj_key(out, "name");
    KDJ_STR(out, kiln_fb_Function_name(f));
    fprintf(out, ",\"exported\":%s,", kiln_fb_Function_exported(f) ? "true" : "false");
    kdj_key(out, "inputs");
    kdj_types(out, f, false);
    fputc(',', out);
    kdj_key(out, "outputs");
    kdj_types(out, f, true);
    fputc(',', out);
    kdj_key(out, "vm_signature");
    KDJ_STR(out, kiln_fb_Function_vm_signature(f));
    fprintf(out, ",\"bytecode_offset\":%" PRIu32 ",\"bytecode_size\":%" PRIu32
            ",\"i32_register_count\":%" PRIu32 ",\"ref_register_count\":%" PRIu32
            ",\"locations\":[",
            kiln_fb_Function_bytecode_offset(f), kiln_fb_Function_bytecode_size(f),
            kiln_fb_Function_i32_register_count(f),
            kiln_fb_Function_ref_register_count(f));
    for (uint32_t l = 0; l < kiln_fb_Function_locations_count(f); l++) {
      kiln_fb_SourceLocation_t loc = kiln_fb_Function_locations_at(f, l);
      fprintf(out, "%s{\"pc\":%" PRIu32 ",\"file\":", l ? "," : "", loc.pc);
      KDJ_STR(out, kiln_fb_Module_source_files_at(r, loc.file));
      fprintf(out, ",\"line\":%" PRIu32 ",\"column\":%" PRIu32 "}", loc.line,
              loc.column);
    }
    fputs("],\"source_nodes\":[", out);
    for (uint32_t s = 0; s < kiln_fb_Function_source_nodes_count(f); s++) {
      kiln_fb_SourceNodes_t sn = kiln_fb_Function_source_nodes_at(f, s);
      const uint32_t pc = kiln_fb_SourceNodes_pc(sn);
      fprintf(out, "%s{\"pc\":%" PRIu32 ",\"dispatch\":%s,\"nodes\":[", s ? "," : "", pc,
              kdump_is_dispatch(m, i, pc) ? "true" : "false");
      for (uint32_t k = 0; k < kiln_fb_SourceNodes_nodes_count(sn); k++) {
        kiln_fb_SourceNode_t node = kiln_fb_SourceNodes_nodes_at(sn, k);
        fputs(k ? ",{\"name\":" : "{\"name\":", out);
        KDJ_STR(out, kiln_fb_SourceNode_name(node));
        fputs(",\"kind\":", out);
        KDJ_STR(out, kiln_fb_SourceNode_kind(node));
        fputc('}', out);
      }
      fputs("]}", out);
    }
    fputs("]}", out);
  }
  fputs("],\n", out);
}

static void kdj_segment_facts(FILE *out, kiln_fb_Segment_t s) {
  fprintf(out, "\"compression\":\"%s\",\"stored_size\":%" PRIu64
          ",\"uncompressed_size\":%" PRIu64 ",\"content_hash\":\"%016" PRIx64 "\"",
          kiln_fb_Segment_compression(s) == kiln_fb_Compression_Zstd ? "zstd" : "none",
          kiln_fb_Segment_size(s), kiln_fb_Segment_uncompressed_size(s),
          kiln_fb_Segment_content_hash(s));
}

static void kdj_executables(FILE *out, kiln_fb_Module_t r) {
  kdj_key(out, "executables");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_executables_count(r); i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, i);
    fputs(i ? ",\n  {" : "\n  {", out);
    kdj_key(out, "name");
    KDJ_STR(out, kiln_fb_Executable_name(e));
    fputs(",\"exports\":[", out);
    for (uint32_t x = 0; x < kiln_fb_Executable_exports_count(e); x++) {
      kiln_fb_ExecutableExport_t ex = kiln_fb_Executable_exports_at(e, x);
      kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(ex);
      fputs(x ? ",{" : "{", out);
      kdj_key(out, "name");
      KDJ_STR(out, kiln_fb_ExecutableExport_name(ex));
      fprintf(out, ",\"workgroup_size\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32
              "],\"push_constant_count\":%" PRIu32 ",\"bindings_read_only\":[",
              wg.x, wg.y, wg.z, kiln_fb_ExecutableExport_push_constant_count(ex));
      for (uint32_t b = 0; b < kiln_fb_ExecutableExport_bindings_count(ex); b++)
        fprintf(out, "%s%s", b ? "," : "",
                kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(ex, b))
                    ? "true" : "false");
      fputs("]}", out);
    }
    fputs("],\"variants\":[", out);
    for (uint32_t v = 0; v < kiln_fb_Executable_variants_count(e); v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      uint32_t si = kiln_fb_ExecutableVariant_segment(var);
      fputs(v ? ",{" : "{", out);
      kdj_key(out, "name");
      KDJ_STR(out, kiln_fb_ExecutableVariant_name(var));
      fputc(',', out);
      kdj_key(out, "target");
      KDJ_STR(out, kiln_fb_ExecutableVariant_target(var));
      fputc(',', out);
      kdj_key(out, "arch");
      KDJ_STR(out, kiln_fb_ExecutableVariant_arch(var));
      fputc(',', out);
      kdj_key(out, "cpu_features");
      KDJ_STR(out, kiln_fb_ExecutableVariant_cpu_features(var));
      fputc(',', out);
      kdj_key(out, "llvm_version");
      KDJ_STR(out, kiln_fb_ExecutableVariant_llvm_version(var));
      fprintf(out, ",\"sm_version\":%" PRIu32 ",\"format\":\"%s\",\"segment\":%"
              PRIu32 ",", kiln_fb_ExecutableVariant_sm_version(var),
              kiln_fb_ExecutableVariant_format(var) == kiln_fb_PayloadFormat_PTX
                  ? "PTX" : "ELF", si);
      kdj_segment_facts(out, kiln_fb_Module_segments_at(r, si));
      /* Launch metadata per export, [] when the variant has none. */
      fputs(",\"exports\":[", out);
      for (uint32_t x = 0; x < kiln_fb_ExecutableVariant_exports_count(var); x++) {
        kiln_fb_VariantExport_t ve = kiln_fb_ExecutableVariant_exports_at(var, x);
        kiln_fb_Dim3_t bs = kiln_fb_VariantExport_block_size(ve);
        fprintf(out, "%s{\"block_size\":[%" PRIu32 ",%" PRIu32 ",%" PRIu32
                "],\"static_shared_memory_bytes\":%" PRIu32
                ",\"dynamic_shared_memory_bytes\":%" PRIu32 "}", x ? "," : "",
                bs.x, bs.y, bs.z, kiln_fb_VariantExport_static_shared_memory_bytes(ve),
                kiln_fb_VariantExport_dynamic_shared_memory_bytes(ve));
      }
      fputs("]}", out);
    }
    fputs("]}", out);
  }
  fputs("],\n", out);
}

/* {"name":"x.npy","element_type":"f32","dims":[2,8],"bytes":64} */
static void kdj_bundled_tensors(FILE *out, kiln_fb_BundledCase_t c, bool outputs) {
  const uint32_t n = outputs ? kiln_fb_BundledCase_outputs_count(c) : kiln_fb_BundledCase_inputs_count(c);
  fputc('[', out);
  for (uint32_t k = 0; k < n; k++) {
    kiln_fb_BundledTensor_t t = outputs ? kiln_fb_BundledCase_outputs_at(c, k) : kiln_fb_BundledCase_inputs_at(c, k);
    fputs(k ? ",{" : "{", out);
    kdj_key(out, "name");
    KDJ_STR(out, kiln_fb_BundledTensor_name(t));
    const char *et = kiln_module_element_type_name(kiln_fb_BundledTensor_element_type(t));
    fputc(',', out);
    kdj_key(out, "element_type");
    kdump_json_string(out, et, strlen(et));
    fputs(",\"dims\":[", out);
    for (uint32_t d = 0; d < kiln_fb_BundledTensor_dims_count(t); d++)
      fprintf(out, "%s%" PRId64, d ? "," : "", kiln_fb_BundledTensor_dims_at(t, d));
    fprintf(out, "],\"bytes\":%" PRIu32 "}", kiln_fb_BundledTensor_data_count(t));
  }
  fputc(']', out);
}

/* kiln-compile --bundle-io's cases (an empty list when there are none),
 * as the text listing's "bundled checks". */
static void kdj_bundled(FILE *out, kiln_fb_Module_t r) {
  kdj_key(out, "bundled_checks");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_bundled_cases_count(r); i++) {
    kiln_fb_BundledCase_t c = kiln_fb_Module_bundled_cases_at(r, i);
    fputs(i ? ",\n  {" : "\n  {", out);
    kdj_key(out, "function");
    KDJ_STR(out, kiln_fb_BundledCase_function(c));
    fputc(',', out);
    kdj_key(out, "inputs");
    kdj_bundled_tensors(out, c, false);
    fputc(',', out);
    kdj_key(out, "outputs");
    kdj_bundled_tensors(out, c, true);
    fputc('}', out);
  }
  fputs("],\n", out);
}

int kdump_json(FILE *out, const kiln_module_view_t *m, const char *path) {
  kiln_fb_Module_t r = m->root;
  kiln_fb_Producer_t p = kiln_fb_Module_producer(r);
  fputs("{", out);
  kdj_key(out, "file");
  kdump_json_string(out, path, strlen(path));
  fprintf(out, ",\"file_size\":%" PRIu64 ",\"flatbuffer_size\":%" PRIu64
          ",\"identifier\":\"" KILN_MODULE_FILE_IDENTIFIER "\",\"format_version\":%"
          PRIu32 ",\"bytecode_version\":%" PRIu32 ",\n", m->file_size,
          m->flatbuffer_size, kiln_fb_Module_format_version(r),
          kiln_fb_Module_bytecode_version(r));
  kdj_key(out, "name");
  KDJ_STR(out, kiln_fb_Module_name(r));
  fputs(",\"provenance\":{", out);
  kdj_key(out, "compiler_version");
  KDJ_STR(out, kiln_fb_Producer_compiler_version(p));
  fputs(",\"source_revision\":", out);
  KDJ_STR(out, kiln_fb_Producer_source_revision(p));
  fputs(",\"input_name\":", out);
  KDJ_STR(out, kiln_fb_Producer_input_name(p));
  fputs(",\"input_sha256\":", out);
  KDJ_STR(out, kiln_fb_Producer_input_sha256(p));
  fputs(",\"flags\":[", out);
  for (uint32_t i = 0; i < kiln_fb_Producer_flags_count(p); i++) {
    if (i) fputc(',', out);
    KDJ_STR(out, kiln_fb_Producer_flags_at(p, i));
  }
  fputs("]},\n", out);
  kdj_functions(out, m);
  kdj_key(out, "imports");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_imports_count(r); i++) {
    kiln_fb_Import_t imp = kiln_fb_Module_imports_at(r, i);
    fputs(i ? ",{" : "{", out);
    kdj_key(out, "name");
    KDJ_STR(out, kiln_fb_Import_name(imp));
    fputc(',', out);
    kdj_key(out, "signature");
    KDJ_STR(out, kiln_fb_Import_signature(imp));
    fputc('}', out);
  }
  fputs("],\n", out);
  kdj_key(out, "rodata");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_rodata_count(r); i++) {
    kiln_fb_Rodata_t ro = kiln_fb_Module_rodata_at(r, i);
    fputs(i ? ",{" : "{", out);
    kdj_key(out, "name");
    KDJ_STR(out, kiln_fb_Rodata_name(ro));
    fprintf(out, ",\"alignment\":%" PRIu32 ",\"segment\":%" PRIu32 ",",
            kiln_fb_Rodata_alignment(ro), kiln_fb_Rodata_segment(ro));
    kdj_segment_facts(out, kiln_fb_Module_segments_at(r, kiln_fb_Rodata_segment(ro)));
    fputc('}', out);
  }
  fputs("],\n", out);
  kdj_executables(out, r);
  kdj_key(out, "segments");
  fputc('[', out);
  for (uint32_t i = 0; i < kiln_fb_Module_segments_count(r); i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(r, i);
    fprintf(out, "%s{\"kind\":\"%s\",\"offset\":%" PRIu64 ",", i ? "," : "",
            kiln_fb_Segment_kind(s) == kiln_fb_SegmentKind_Rodata ? "rodata"
                                                                 : "executable",
            kiln_fb_Segment_offset(s));
    kdj_segment_facts(out, s);
    fputc('}', out);
  }
  fputs("],\n", out);
  kdj_bundled(out, r);
  fputs("\"size_breakdown\":{", out);
  kdump_size_row rows[KDUMP_MAX_ROWS];
  unsigned n = kdump_size_breakdown(m, rows);
  for (unsigned i = 0; i < n; i++) {
    const char *label = rows[i].label;
    while (*label == ' ') label++;
    if (i) fputc(',', out);
    kdump_json_string(out, label, strlen(label));
    fprintf(out, ":%" PRIu64, rows[i].bytes);
  }
  fputs("}}\n", out);
  return 0;
}
