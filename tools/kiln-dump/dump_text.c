/* kiln-dump's human-readable listing: header, producer, functions with
 * signatures, imports, rodata, executables (exports and variants),
 * segments, bundled check data (when there is some), the size breakdown
 * and the bytecode disassembly. */
#include <inttypes.h>

#include "dump.h"
#include "kiln/vm_bytecode.h"

static const char *kdt_compression(kiln_fb_Compression_t c) {
  return c == kiln_fb_Compression_Zstd ? "zstd" : "none";
}

static void kdt_signature(FILE *out, kiln_fb_Function_t f) {
  char buf[512];
  fputc('(', out);
  for (uint32_t i = 0; i < kiln_fb_Function_inputs_count(f); i++) {
    kdump_tensor_type(kiln_fb_Function_inputs_at(f, i), buf, sizeof buf);
    fprintf(out, "%s%s", i ? ", " : "", buf);
  }
  fputs(") -> (", out);
  for (uint32_t i = 0; i < kiln_fb_Function_outputs_count(f); i++) {
    kdump_tensor_type(kiln_fb_Function_outputs_at(f, i), buf, sizeof buf);
    fprintf(out, "%s%s", i ? ", " : "", buf);
  }
  fputc(')', out);
}

static const char *kdt_function_name(void *user, uint32_t i) {
  const kiln_module_view_t *m = user;
  if (i >= kiln_fb_Module_functions_count(m->root)) return NULL;
  return kiln_fb_Function_name(kiln_fb_Module_functions_at(m->root, i)).data;
}

static const char *kdt_import_name(void *user, uint32_t i) {
  const kiln_module_view_t *m = user;
  if (i >= kiln_fb_Module_imports_count(m->root)) return NULL;
  return kiln_fb_Import_name(kiln_fb_Module_imports_at(m->root, i)).data;
}

static const char *kdt_function_signature(void *user, uint32_t i) {
  const kiln_module_view_t *m = user;
  if (i >= kiln_fb_Module_functions_count(m->root)) return NULL;
  return kiln_fb_Function_vm_signature(kiln_fb_Module_functions_at(m->root, i)).data;
}

static const char *kdt_import_signature(void *user, uint32_t i) {
  const kiln_module_view_t *m = user;
  if (i >= kiln_fb_Module_imports_count(m->root)) return NULL;
  return kiln_fb_Import_signature(kiln_fb_Module_imports_at(m->root, i)).data;
}

static void kdt_functions(FILE *out, const kiln_module_view_t *m) {
  kiln_fb_Module_t r = m->root;
  uint32_t n = kiln_fb_Module_functions_count(r);
  fprintf(out, "\nfunctions (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(r, i);
    fprintf(out, "  [%" PRIu32 "] %s%s: ", i, kiln_fb_Function_name(f).data,
            kiln_fb_Function_exported(f) ? " (exported)" : "");
    kdt_signature(out, f);
    fprintf(out, "\n      vm signature \"%s\", bytecode %" PRIu32 "+%" PRIu32
            ", registers: %" PRIu32 " i32, %" PRIu32 " ref\n",
            kiln_fb_Function_vm_signature(f).data,
            kiln_fb_Function_bytecode_offset(f), kiln_fb_Function_bytecode_size(f),
            kiln_fb_Function_i32_register_count(f),
            kiln_fb_Function_ref_register_count(f));
    for (uint32_t l = 0; l < kiln_fb_Function_locations_count(f); l++) {
      kiln_fb_SourceLocation_t loc = kiln_fb_Function_locations_at(f, l);
      fprintf(out, "      pc %04" PRIx32 " -> %s:%" PRIu32 ":%" PRIu32 "\n",
              loc.pc, kiln_fb_Module_source_files_at(r, loc.file).data,
              loc.line, loc.column);
    }
    /* What each dispatch (or other instruction) computes in the input's
     * terms: the ONNX nodes or MLIR ops fused into it. */
    for (uint32_t s = 0; s < kiln_fb_Function_source_nodes_count(f); s++) {
      kiln_fb_SourceNodes_t sn = kiln_fb_Function_source_nodes_at(f, s);
      const uint32_t pc = kiln_fb_SourceNodes_pc(sn);
      fprintf(out, "      %s %04" PRIx32 " -> nodes: ",
              kdump_is_dispatch(m, i, pc) ? "dispatch at pc" : "pc", pc);
      for (uint32_t k = 0; k < kiln_fb_SourceNodes_nodes_count(sn); k++) {
        kiln_fb_SourceNode_t node = kiln_fb_SourceNodes_nodes_at(sn, k);
        fprintf(out, "%s%s (%s)", k ? ", " : "", kiln_fb_SourceNode_name(node).data,
                kiln_fb_SourceNode_kind(node).data);
      }
      fputc('\n', out);
    }
  }
}

/* How each export of a variant launches: its block and shared memory, or,
 * for a PTX variant without that metadata, the fallback the runtime uses. */
static void kdt_variant_exports(FILE *out, kiln_fb_Executable_t e,
                                kiln_fb_ExecutableVariant_t var) {
  uint32_t n = kiln_fb_ExecutableVariant_exports_count(var);
  if (!n) {
    if (kiln_fb_ExecutableVariant_format(var) == kiln_fb_PayloadFormat_PTX)
      fputs("            no launch metadata: blocks are the exports' "
            "workgroup sizes, no dynamic shared memory\n", out);
    return;
  }
  for (uint32_t x = 0; x < n; x++) {
    kiln_fb_VariantExport_t ve = kiln_fb_ExecutableVariant_exports_at(var, x);
    kiln_fb_Dim3_t bs = kiln_fb_VariantExport_block_size(ve);
    fprintf(out, "            %s: block %" PRIu32 "x%" PRIu32 "x%" PRIu32
            ", shared memory %" PRIu32 " static + %" PRIu32 " dynamic bytes\n",
            kiln_fb_ExecutableExport_name(kiln_fb_Executable_exports_at(e, x)).data,
            bs.x, bs.y, bs.z, kiln_fb_VariantExport_static_shared_memory_bytes(ve),
            kiln_fb_VariantExport_dynamic_shared_memory_bytes(ve));
  }
}

static void kdt_executables(FILE *out, const kiln_module_view_t *m) {
  kiln_fb_Module_t r = m->root;
  uint32_t n = kiln_fb_Module_executables_count(r);
  fprintf(out, "\nexecutables (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, i);
    fprintf(out, "  [%" PRIu32 "] %s\n", i, kiln_fb_Executable_name(e).data);
    uint32_t ne = kiln_fb_Executable_exports_count(e);
    fprintf(out, "      exports (%" PRIu32 "):\n", ne);
    for (uint32_t x = 0; x < ne; x++) {
      kiln_fb_ExecutableExport_t ex = kiln_fb_Executable_exports_at(e, x);
      kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(ex);
      uint32_t nb = kiln_fb_ExecutableExport_bindings_count(ex);
      fprintf(out, "        [%" PRIu32 "] %s: workgroup %" PRIu32 "x%" PRIu32
              "x%" PRIu32 ", push constants %" PRIu32 ", bindings %" PRIu32 " (",
              x, kiln_fb_ExecutableExport_name(ex).data, wg.x, wg.y, wg.z,
              kiln_fb_ExecutableExport_push_constant_count(ex), nb);
      for (uint32_t b = 0; b < nb; b++)
        fprintf(out, "%s%s", b ? " " : "",
                kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(ex, b))
                    ? "ro" : "rw");
      fputs(")\n", out);
    }
    uint32_t nv = kiln_fb_Executable_variants_count(e);
    fprintf(out, "      variants (%" PRIu32 "):\n", nv);
    for (uint32_t v = 0; v < nv; v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      uint32_t si = kiln_fb_ExecutableVariant_segment(var);
      kiln_fb_Segment_t s = kiln_fb_Module_segments_at(r, si);
      char target[64];
      kdump_variant_target(var, target, sizeof target);
      fprintf(out, "        [%" PRIu32 "] %s: %s, %s", v,
              kiln_fb_ExecutableVariant_name(var).data, target,
              kiln_fb_ExecutableVariant_format(var) == kiln_fb_PayloadFormat_PTX
                  ? "PTX" : "ELF");
      if (kiln_fb_ExecutableVariant_cpu_features(var).size)
        fprintf(out, ", features %s", kiln_fb_ExecutableVariant_cpu_features(var).data);
      if (kiln_fb_ExecutableVariant_llvm_version(var).size)
        fprintf(out, ", LLVM %s", kiln_fb_ExecutableVariant_llvm_version(var).data);
      fprintf(out, ", %" PRIu64 " bytes, stored %s %" PRIu64 ", hash %016" PRIx64
              ", segment %" PRIu32 "\n",
              kiln_fb_Segment_uncompressed_size(s),
              kdt_compression(kiln_fb_Segment_compression(s)),
              kiln_fb_Segment_size(s), kiln_fb_Segment_content_hash(s), si);
      kdt_variant_exports(out, e, var);
    }
  }
}

/* "x.npy tensor<2x8xf32> (64 bytes)": a bundled tensor's name and type. */
static void kdt_bundled_tensor(FILE *out, const char *what, uint32_t k,
                               kiln_fb_BundledTensor_t t) {
  fprintf(out, "      %s %" PRIu32 ": %s tensor<", what, k, kiln_fb_BundledTensor_name(t).data);
  for (uint32_t d = 0; d < kiln_fb_BundledTensor_dims_count(t); d++)
    fprintf(out, "%" PRId64 "x", kiln_fb_BundledTensor_dims_at(t, d));
  fprintf(out, "%s> (%" PRIu32 " bytes)\n",
          kiln_module_element_type_name(kiln_fb_BundledTensor_element_type(t)),
          kiln_fb_BundledTensor_data_count(t));
}

/* kiln-compile --bundle-io's cases, for kiln-run --check-bundled. */
static void kdt_bundled(FILE *out, kiln_fb_Module_t r) {
  const uint32_t n = kiln_fb_Module_bundled_cases_count(r);
  if (!n) return;
  fprintf(out, "\nbundled checks (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_BundledCase_t c = kiln_fb_Module_bundled_cases_at(r, i);
    fprintf(out, "  [%" PRIu32 "] function %s\n", i, kiln_fb_BundledCase_function(c).data);
    for (uint32_t k = 0; k < kiln_fb_BundledCase_inputs_count(c); k++)
      kdt_bundled_tensor(out, "input", k, kiln_fb_BundledCase_inputs_at(c, k));
    for (uint32_t k = 0; k < kiln_fb_BundledCase_outputs_count(c); k++)
      kdt_bundled_tensor(out, "output", k, kiln_fb_BundledCase_outputs_at(c, k));
  }
}

int kdump_text(FILE *out, const kiln_module_view_t *m, const char *path) {
  kiln_fb_Module_t r = m->root;
  fprintf(out, "module \"%s\" (%s, %" PRIu64 " bytes)\n",
          kiln_fb_Module_name(r).data, path, m->file_size);
  fprintf(out, "  format: identifier \"" KILN_MODULE_FILE_IDENTIFIER
          "\", version %" PRIu32 ", bytecode version %" PRIu32 "\n",
          kiln_fb_Module_format_version(r), kiln_fb_Module_bytecode_version(r));
  kiln_fb_Producer_t p = kiln_fb_Module_producer(r);
  fprintf(out, "  producer: %s\n", kiln_fb_Producer_compiler_version(p).size
          ? kiln_fb_Producer_compiler_version(p).data : "(unknown)");
  static const struct {
    const char *label;
    kiln_fb_string_t (*get)(kiln_fb_Producer_t);
  } facts[] = {{"source-revision", kiln_fb_Producer_source_revision},
               {"input", kiln_fb_Producer_input_name},
               {"input-sha256", kiln_fb_Producer_input_sha256}};
  for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
    if (facts[i].get(p).size) fprintf(out, "    %s: %s\n", facts[i].label, facts[i].get(p).data);
  for (uint32_t i = 0; i < kiln_fb_Producer_flags_count(p); i++)
    fprintf(out, "    flag: %s\n", kiln_fb_Producer_flags_at(p, i).data);
  for (uint32_t i = 0; i < kiln_fb_Module_source_files_count(r); i++)
    fprintf(out, "  source file [%" PRIu32 "]: %s\n", i,
            kiln_fb_Module_source_files_at(r, i).data);

  kdt_functions(out, m);

  uint32_t n = kiln_fb_Module_imports_count(r);
  fprintf(out, "\nimports (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Import_t imp = kiln_fb_Module_imports_at(r, i);
    fprintf(out, "  [%" PRIu32 "] %s \"%s\"\n", i, kiln_fb_Import_name(imp).data,
            kiln_fb_Import_signature(imp).data);
  }

  n = kiln_fb_Module_rodata_count(r);
  fprintf(out, "\nrodata (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Rodata_t ro = kiln_fb_Module_rodata_at(r, i);
    uint64_t size;
    kiln_module_segment_data(m, kiln_fb_Rodata_segment(ro), &size);
    fprintf(out, "  [%" PRIu32 "] %s: %" PRIu64 " bytes, align %" PRIu32
            ", segment %" PRIu32 "\n", i, kiln_fb_Rodata_name(ro).data, size,
            kiln_fb_Rodata_alignment(ro), kiln_fb_Rodata_segment(ro));
  }

  kdt_executables(out, m);

  n = kiln_fb_Module_segments_count(r);
  fprintf(out, "\nsegments (%" PRIu32 "):\n", n);
  for (uint32_t i = 0; i < n; i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(r, i);
    fprintf(out, "  [%" PRIu32 "] %-10s offset 0x%08" PRIx64 ", %" PRIu64
            " bytes, %s, uncompressed %" PRIu64 ", hash %016" PRIx64 "\n", i,
            kiln_fb_Segment_kind(s) == kiln_fb_SegmentKind_Rodata ? "rodata"
                                                                 : "executable",
            kiln_fb_Segment_offset(s), kiln_fb_Segment_size(s),
            kdt_compression(kiln_fb_Segment_compression(s)),
            kiln_fb_Segment_uncompressed_size(s),
            kiln_fb_Segment_content_hash(s));
  }

  kdt_bundled(out, r);

  kdump_size_row rows[KDUMP_MAX_ROWS];
  unsigned nrows = kdump_size_breakdown(m, rows);
  fputs("\nsize breakdown:\n", out);
  for (unsigned i = 0; i < nrows; i++)
    fprintf(out, "  %-36s %12" PRIu64 "  %5.1f%%\n", rows[i].label, rows[i].bytes,
            m->file_size ? 100.0 * (double)rows[i].bytes / (double)m->file_size : 0.0);
  fprintf(out, "  %-36s %12" PRIu64 "\n", "total", m->file_size);

  fputs("\ndisassembly:\n", out);
  kiln_vm_disasm_names_t names = {(void *)m, kdt_function_name, kdt_import_name};
  kiln_vm_disasm_signatures_t sigs = {(void *)m, kdt_function_signature,
                                      kdt_import_signature, NULL};
  for (uint32_t i = 0; i < kiln_fb_Module_functions_count(r); i++) {
    uint32_t size;
    const uint8_t *code = kiln_module_function_bytecode(m, i, &size);
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(r, i);
    fprintf(out, "%s:\n", kiln_fb_Function_name(f).data);
    sigs.own_signature = kiln_fb_Function_vm_signature(f).data;
    if (size) kiln_vm_disassemble_ex(out, code, size, &names, &sigs);
  }
  return 0;
}
