/* Builder -> reader round trip: everything a module holds (functions with
 * signatures and locations, imports, rodata, executables with exports and
 * variants, segments) comes back through the typed accessors exactly as
 * given, segments are aligned as promised, and payloads decompress to the
 * original bytes whether stored plain or zstd-compressed. */
#include <check.h>
#include <stdlib.h>

#include "kiln/module_builder.h"
#include "kiln/module_zstd.h"

static uint8_t *make_payload(size_t n, uint32_t seed) {
  uint8_t *p = malloc(n);
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)((i % 7 == 0) ? seed + i : i / 100);
  return p;
}

static bool str_eq(kiln_fb_string_t s, const char *want) {
  return s.size == strlen(want) && memcmp(s.data, want, s.size) == 0;
}

typedef struct built {
  uint8_t *data;
  size_t size;
  kiln_module_view_t view;
  uint8_t *elf, *ptx;
  uint8_t big[70000];
} built;

static void build_with(built *m, kiln_module_compression_t mode,
                       size_t ptx_size) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  ck_assert_ptr_nonnull(b);
  const char *flags[] = {"-O3", "--target=llvm-cpu"};
  kiln_module_builder_set_name(b, "rt");
  kiln_module_builder_set_producer(b, "kiln 9.9", 2, flags);
  kiln_module_builder_set_provenance(b, "abcdef012345-dirty", "a.onnx",
                                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  kiln_module_builder_set_bytecode_version(b, 7);
  kiln_module_builder_set_compression(b, mode);
  ck_assert_uint_eq(kiln_module_builder_add_source_file(b, "a.mlir"), 0);
  ck_assert_uint_eq(kiln_module_builder_add_source_file(b, "b.mlir"), 1);
  ck_assert_uint_eq(kiln_module_builder_add_import(b, "hal.x", "ri_r"), 0);
  ck_assert_uint_eq(kiln_module_builder_add_import(b, "hal.y", "_"), 1);

  int64_t d0[] = {1, 3, -1}, d1[] = {5};
  kiln_module_tensor_type_t in[] = {{kiln_fb_ElementType_F32, 3, d0, false, false},
                                    {kiln_fb_ElementType_I1, 0, NULL, false, false}};
  kiln_module_tensor_type_t out[] = {{kiln_fb_ElementType_BF16, 1, d1, true, false}};
  /* a sequence whose elements may have any rank: only the element type */
  kiln_module_tensor_type_t any[] = {{kiln_fb_ElementType_F32, 0, NULL, true, true}};
  uint8_t code0[] = {1, 2, 3}, code1[] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 42};
  kiln_fb_SourceLocation_t locs[] = {{0, 1, 10, 2}, {2, 0, 11, 4}};
  static const char *const names[] = {"/a/Conv", "Relu#4"}, *const kinds[] = {"Conv", "Relu"};
  const kiln_module_source_nodes_desc_t sites[] = {{0, 1, names, kinds}, {2, 2, names, kinds}};
  kiln_module_function_desc_t f0 = {"f0", true, 2, in, 1, out, code0, 3, 5, 6,
                                    2, locs, "ri_r", 2, sites};
  kiln_module_function_desc_t f1 = {.name = "f1", .bytecode = code1,
                                    .bytecode_size = sizeof code1, .output_count = 1, .outputs = any};
  ck_assert_uint_eq(kiln_module_builder_add_function(b, &f0), 0);
  ck_assert_uint_eq(kiln_module_builder_add_function(b, &f1), 1);

  for (size_t i = 0; i < sizeof m->big; i++) m->big[i] = (uint8_t)(i * 31);
  ck_assert_uint_eq(kiln_module_builder_add_rodata(b, "tiny", "abc", 3, 1), 0);
  ck_assert_uint_eq(kiln_module_builder_add_rodata_borrowed(b, "big", m->big, sizeof m->big, 64), 1);
  ck_assert_uint_eq(kiln_module_builder_add_rodata(b, "empty", NULL, 0, 4), 2);

  m->elf = make_payload(20000, 3);
  m->ptx = make_payload(ptx_size, 4);
  bool ro[] = {true, false};
  kiln_module_export_desc_t ex[] = {{"e0", {4, 2, 1}, 2, ro, 3},
                                    {"e1", {1, 1, 1}, 0, NULL, 0}};
  static const kiln_module_variant_export_desc_t launch[] = {
      {{32, 4, 2}, 4096, 100000}, {{1024, 1, 1}, 0, 0}};
  kiln_module_variant_desc_t var[] = {
      {"x86_64", "llvm-cpu", "x86_64", "+avx2", 0, kiln_fb_PayloadFormat_ELF,
       m->elf, 20000, 0, NULL, "19.1.7"},
      {"sm_80", "cuda", "nvptx64", NULL, 80, kiln_fb_PayloadFormat_PTX, m->ptx,
       ptx_size, 2, launch, NULL}};
  kiln_module_executable_desc_t exe = {"exe", 2, ex, 2, var};
  ck_assert_uint_eq(kiln_module_builder_add_executable(b, &exe), 0);

  kiln_format_error_t err;
  bool ok = kiln_module_builder_finish(b, &m->data, &m->size, &err);
  ck_assert_msg(ok, "finish: %s", err.message);
  kiln_module_builder_destroy(b);
  ok = kiln_module_view_open(&m->view, m->data, m->size, &err);
  ck_assert_msg(ok, "open: %s", err.message);
}

static void build(built *m, kiln_module_compression_t mode) {
  build_with(m, mode, 100);
}

static void unbuild(built *m) {
  free(m->data);
  free(m->elf);
  free(m->ptx);
}

START_TEST(test_fields_round_trip) {
  static built m;
  build(&m, KILN_MODULE_COMPRESS_AUTO);
  kiln_fb_Module_t r = m.view.root;
  ck_assert_uint_eq(kiln_fb_Module_format_version(r), KILN_MODULE_FORMAT_VERSION);
  ck_assert(str_eq(kiln_fb_Module_name(r), "rt"));
  ck_assert_uint_eq(kiln_fb_Module_bytecode_version(r), 7);
  kiln_fb_Producer_t p = kiln_fb_Module_producer(r);
  ck_assert(str_eq(kiln_fb_Producer_compiler_version(p), "kiln 9.9"));
  ck_assert_uint_eq(kiln_fb_Producer_flags_count(p), 2);
  ck_assert(str_eq(kiln_fb_Producer_flags_at(p, 1), "--target=llvm-cpu"));
  ck_assert(str_eq(kiln_fb_Producer_source_revision(p), "abcdef012345-dirty"));
  ck_assert(str_eq(kiln_fb_Producer_input_name(p), "a.onnx"));
  ck_assert(str_eq(kiln_fb_Producer_input_sha256(p), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
  ck_assert_uint_eq(kiln_fb_Module_source_files_count(r), 2);
  ck_assert(str_eq(kiln_fb_Module_source_files_at(r, 1), "b.mlir"));

  ck_assert_uint_eq(kiln_fb_Module_imports_count(r), 2);
  ck_assert(str_eq(kiln_fb_Import_name(kiln_fb_Module_imports_at(r, 0)), "hal.x"));
  ck_assert(str_eq(kiln_fb_Import_signature(kiln_fb_Module_imports_at(r, 0)), "ri_r"));
  ck_assert(str_eq(kiln_fb_Import_signature(kiln_fb_Module_imports_at(r, 1)), "_"));

  ck_assert_uint_eq(kiln_fb_Module_functions_count(r), 2);
  kiln_fb_Function_t f0 = kiln_fb_Module_functions_at(r, 0);
  ck_assert(str_eq(kiln_fb_Function_name(f0), "f0"));
  ck_assert(kiln_fb_Function_exported(f0));
  ck_assert(str_eq(kiln_fb_Function_vm_signature(f0), "ri_r"));
  ck_assert_uint_eq(kiln_fb_Function_i32_register_count(f0), 5);
  ck_assert_uint_eq(kiln_fb_Function_ref_register_count(f0), 6);
  ck_assert_uint_eq(kiln_fb_Function_inputs_count(f0), 2);
  kiln_fb_TensorType_t t0 = kiln_fb_Function_inputs_at(f0, 0);
  ck_assert_int_eq(kiln_fb_TensorType_element_type(t0), kiln_fb_ElementType_F32);
  ck_assert_uint_eq(kiln_fb_TensorType_dims_count(t0), 3);
  ck_assert(!kiln_fb_TensorType_sequence(t0));
  ck_assert_int_eq(kiln_fb_TensorType_dims_at(t0, 1), 3);
  ck_assert_int_eq(kiln_fb_TensorType_dims_at(t0, 2), -1);
  kiln_fb_TensorType_t t1 = kiln_fb_Function_inputs_at(f0, 1);
  ck_assert_int_eq(kiln_fb_TensorType_element_type(t1), kiln_fb_ElementType_I1);
  ck_assert_uint_eq(kiln_fb_TensorType_dims_count(t1), 0);
  kiln_fb_TensorType_t o0 = kiln_fb_Function_outputs_at(f0, 0);
  ck_assert_int_eq(kiln_fb_TensorType_element_type(o0), kiln_fb_ElementType_BF16);
  ck_assert(kiln_fb_TensorType_sequence(o0)); /* a sequence output */
  ck_assert(!kiln_fb_TensorType_unranked(o0));
  ck_assert_int_eq(kiln_fb_TensorType_dims_at(o0, 0), 5);
  kiln_fb_TensorType_t a0 = kiln_fb_Function_outputs_at(kiln_fb_Module_functions_at(r, 1), 0);
  ck_assert(kiln_fb_TensorType_sequence(a0) && kiln_fb_TensorType_unranked(a0));
  ck_assert_uint_eq(kiln_fb_TensorType_dims_count(a0), 0);
  ck_assert_uint_eq(kiln_fb_Function_locations_count(f0), 2);
  kiln_fb_SourceLocation_t l1 = kiln_fb_Function_locations_at(f0, 1);
  ck_assert_uint_eq(l1.pc, 2);
  ck_assert_uint_eq(l1.file, 0);
  ck_assert_uint_eq(l1.line, 11);
  ck_assert_uint_eq(l1.column, 4);
  ck_assert_uint_eq(kiln_fb_Function_source_nodes_count(f0), 2);
  kiln_fb_SourceNodes_t sn1 = kiln_fb_Function_source_nodes_at(f0, 1);
  ck_assert_uint_eq(kiln_fb_SourceNodes_pc(sn1), 2);
  ck_assert_uint_eq(kiln_fb_SourceNodes_nodes_count(sn1), 2);
  ck_assert(str_eq(kiln_fb_SourceNode_name(kiln_fb_SourceNodes_nodes_at(sn1, 1)), "Relu#4"));
  ck_assert(str_eq(kiln_fb_SourceNode_kind(kiln_fb_SourceNodes_nodes_at(sn1, 1)), "Relu"));

  uint32_t n;
  const uint8_t *c = kiln_module_function_bytecode(&m.view, 0, &n);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(memcmp(c, "\1\2\3", 3), 0);
  c = kiln_module_function_bytecode(&m.view, 1, &n);
  ck_assert_uint_eq(n, 11);
  ck_assert_uint_eq(c[10], 42);
  ck_assert_uint_eq((uintptr_t)c % 8, 0); /* malloc'ed file: 16-aligned base */
  ck_assert_int_eq(kiln_module_find_function(&m.view, "f1", 2), 1);
  ck_assert_int_eq(kiln_module_find_function(&m.view, "f", 1), -1);
  kiln_fb_Function_t f1 = kiln_fb_Module_functions_at(r, 1);
  ck_assert(!kiln_fb_Function_exported(f1));
  ck_assert(!kiln_fb_Function_vm_signature_present(f1));
  ck_assert(str_eq(kiln_fb_Function_vm_signature(f1), ""));

  ck_assert_uint_eq(kiln_fb_Module_rodata_count(r), 3);
  kiln_fb_Rodata_t big = kiln_fb_Module_rodata_at(r, 1);
  ck_assert(str_eq(kiln_fb_Rodata_name(big), "big"));
  ck_assert_uint_eq(kiln_fb_Rodata_alignment(big), 64);
  uint64_t size;
  const uint8_t *d = kiln_module_segment_data(&m.view, kiln_fb_Rodata_segment(big), &size);
  ck_assert_uint_eq(size, sizeof m.big);
  ck_assert_int_eq(memcmp(d, m.big, size), 0);
  ck_assert_uint_eq((uint64_t)(d - m.data) % 4096, 0); /* large: page-aligned */
  d = kiln_module_segment_data(&m.view, kiln_fb_Rodata_segment(kiln_fb_Module_rodata_at(r, 0)), &size);
  ck_assert_uint_eq(size, 3);
  ck_assert_uint_eq((uint64_t)(d - m.data) % 64, 0);
  ck_assert_int_eq(memcmp(d, "abc", 3), 0);

  ck_assert_uint_eq(kiln_fb_Module_executables_count(r), 1);
  kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, 0);
  ck_assert(str_eq(kiln_fb_Executable_name(e), "exe"));
  ck_assert_uint_eq(kiln_fb_Executable_exports_count(e), 2);
  kiln_fb_ExecutableExport_t x0 = kiln_fb_Executable_exports_at(e, 0);
  kiln_fb_Dim3_t wg = kiln_fb_ExecutableExport_workgroup_size(x0);
  ck_assert_uint_eq(wg.x, 4);
  ck_assert_uint_eq(wg.y, 2);
  ck_assert_uint_eq(wg.z, 1);
  ck_assert_uint_eq(kiln_fb_ExecutableExport_push_constant_count(x0), 3);
  ck_assert_uint_eq(kiln_fb_ExecutableExport_bindings_count(x0), 2);
  ck_assert(kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(x0, 0)));
  ck_assert(!kiln_fb_Binding_read_only(kiln_fb_ExecutableExport_bindings_at(x0, 1)));
  ck_assert_uint_eq(kiln_fb_Executable_variants_count(e), 2);
  kiln_fb_ExecutableVariant_t v0 = kiln_fb_Executable_variants_at(e, 0);
  kiln_fb_ExecutableVariant_t v1 = kiln_fb_Executable_variants_at(e, 1);
  ck_assert(str_eq(kiln_fb_ExecutableVariant_target(v0), "llvm-cpu"));
  ck_assert(str_eq(kiln_fb_ExecutableVariant_cpu_features(v0), "+avx2"));
  ck_assert(str_eq(kiln_fb_ExecutableVariant_llvm_version(v0), "19.1.7"));
  ck_assert(!kiln_fb_ExecutableVariant_llvm_version_present(v1));
  ck_assert_int_eq(kiln_fb_ExecutableVariant_format(v0), kiln_fb_PayloadFormat_ELF);
  ck_assert_uint_eq(kiln_fb_ExecutableVariant_sm_version(v1), 80);
  ck_assert_int_eq(kiln_fb_ExecutableVariant_format(v1), kiln_fb_PayloadFormat_PTX);
  /* Launch metadata: none on the CPU variant (not even an empty vector),
   * one entry per export on the PTX one. */
  ck_assert(!kiln_fb_ExecutableVariant_exports_present(v0));
  ck_assert_uint_eq(kiln_fb_ExecutableVariant_exports_count(v1), 2);
  kiln_fb_VariantExport_t lx0 = kiln_fb_ExecutableVariant_exports_at(v1, 0);
  kiln_fb_VariantExport_t lx1 = kiln_fb_ExecutableVariant_exports_at(v1, 1);
  kiln_fb_Dim3_t bs = kiln_fb_VariantExport_block_size(lx0);
  ck_assert(bs.x == 32 && bs.y == 4 && bs.z == 2);
  ck_assert_uint_eq(kiln_fb_VariantExport_static_shared_memory_bytes(lx0), 4096);
  ck_assert_uint_eq(kiln_fb_VariantExport_dynamic_shared_memory_bytes(lx0), 100000);
  bs = kiln_fb_VariantExport_block_size(lx1);
  ck_assert(bs.x == 1024 && bs.y == 1 && bs.z == 1);
  ck_assert_uint_eq(kiln_fb_VariantExport_static_shared_memory_bytes(lx1), 0);
  ck_assert_uint_eq(kiln_fb_VariantExport_dynamic_shared_memory_bytes(lx1), 0);

  /* The compressible ELF is stored with zstd, the 100-byte PTX is not. */
  kiln_fb_Segment_t s0 = kiln_fb_Module_segments_at(r, kiln_fb_ExecutableVariant_segment(v0));
  kiln_fb_Segment_t s1 = kiln_fb_Module_segments_at(r, kiln_fb_ExecutableVariant_segment(v1));
  ck_assert_int_eq(kiln_fb_Segment_compression(s0), kiln_fb_Compression_Zstd);
  ck_assert_uint_lt(kiln_fb_Segment_size(s0), 20000);
  ck_assert_uint_eq(kiln_fb_Segment_uncompressed_size(s0), 20000);
  ck_assert_int_eq(kiln_fb_Segment_compression(s1), kiln_fb_Compression_None);
  uint8_t *buf = malloc(20000);
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_segment_read(&m.view, kiln_fb_ExecutableVariant_segment(v0), buf, 20000, &err), "%s", err.message);
  ck_assert_int_eq(memcmp(buf, m.elf, 20000), 0);
  ck_assert(kiln_module_segment_read(&m.view, kiln_fb_ExecutableVariant_segment(v1), buf, 100, &err));
  ck_assert_int_eq(memcmp(buf, m.ptx, 100), 0);
  ck_assert(!kiln_module_segment_read(&m.view, kiln_fb_ExecutableVariant_segment(v1), buf, 99, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "destination holds 99 bytes"));
  free(buf);
  for (uint32_t i = 0; i < kiln_fb_Module_segments_count(r); i++) {
    kiln_fb_Segment_t s = kiln_fb_Module_segments_at(r, i);
    ck_assert_uint_eq(kiln_fb_Segment_offset(s) % 64, 0);
    ck_assert_uint_ge(kiln_fb_Segment_offset(s), m.view.flatbuffer_size);
    if (kiln_fb_Segment_compression(s) == kiln_fb_Compression_None)
      ck_assert_msg(kiln_module_segment_check_hash(&m.view, i, &err), "%s", err.message);
  }
  unbuild(&m);
}
END_TEST

START_TEST(test_compression_modes) {
  static built never, always;
  build(&never, KILN_MODULE_COMPRESS_NEVER);
  build(&always, KILN_MODULE_COMPRESS_ALWAYS);
  for (uint32_t i = 0; i < kiln_fb_Module_segments_count(never.view.root); i++) {
    kiln_fb_Segment_t sn = kiln_fb_Module_segments_at(never.view.root, i);
    kiln_fb_Segment_t sa = kiln_fb_Module_segments_at(always.view.root, i);
    ck_assert_int_eq(kiln_fb_Segment_compression(sn), kiln_fb_Compression_None);
    bool exe = kiln_fb_Segment_kind(sa) == kiln_fb_SegmentKind_Executable;
    ck_assert_int_eq(kiln_fb_Segment_compression(sa),
                     exe ? kiln_fb_Compression_Zstd : kiln_fb_Compression_None);
    uint64_t n = kiln_fb_Segment_uncompressed_size(sa);
    uint8_t *a = malloc(n + 1), *b = malloc(n + 1);
    kiln_format_error_t err;
    ck_assert_msg(kiln_module_segment_read(&never.view, i, a, n, &err), "%s", err.message);
    ck_assert_msg(kiln_module_segment_read(&always.view, i, b, n, &err), "%s", err.message);
    ck_assert_int_eq(memcmp(a, b, n), 0);
    free(a);
    free(b);
  }
  ck_assert_uint_lt(always.size, never.size);
  unbuild(&never);
  unbuild(&always);
  /* kiln-compile's mode: the compressible 20000-byte ELF stays mappable,
   * a compressible 20000-byte PTX is compressed. */
  static built ptx;
  build_with(&ptx, KILN_MODULE_COMPRESS_PTX, 20000);
  kiln_fb_Executable_t x = kiln_fb_Module_executables_at(ptx.view.root, 0);
  kiln_fb_Segment_t elf = kiln_fb_Module_segments_at(
      ptx.view.root,
      kiln_fb_ExecutableVariant_segment(kiln_fb_Executable_variants_at(x, 0)));
  kiln_fb_Segment_t text = kiln_fb_Module_segments_at(
      ptx.view.root,
      kiln_fb_ExecutableVariant_segment(kiln_fb_Executable_variants_at(x, 1)));
  ck_assert_int_eq(kiln_fb_Segment_compression(elf), kiln_fb_Compression_None);
  ck_assert_int_eq(kiln_fb_Segment_compression(text), kiln_fb_Compression_Zstd);
  ck_assert_uint_lt(kiln_fb_Segment_size(text), 20000);
  uint8_t *back = malloc(20000);
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_segment_read(&ptx.view, kiln_fb_ExecutableVariant_segment(kiln_fb_Executable_variants_at(x, 1)), back, 20000, &err), "%s", err.message);
  ck_assert_int_eq(memcmp(back, ptx.ptx, 20000), 0);
  free(back);
  unbuild(&ptx);
}
END_TEST

START_TEST(test_builder_rejects_bad_input) {
  kiln_format_error_t err;
  uint8_t *data;
  size_t size;
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_module_builder_add_rodata(b, "w", "x", 1, 3);
  ck_assert(!kiln_module_builder_finish(b, &data, &size, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "rodata w: alignment 3"));
  kiln_module_builder_destroy(b);

  b = kiln_module_builder_create();
  uint8_t code[2] = {0, 0};
  kiln_fb_SourceLocation_t loc = {5, 0, 1, 1};
  kiln_module_function_desc_t f = {.name = "g", .bytecode = code,
                                   .bytecode_size = 2, .location_count = 1,
                                   .locations = &loc};
  kiln_module_builder_add_function(b, &f);
  ck_assert(!kiln_module_builder_finish(b, &data, &size, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "function g: location 0 has pc 5"));
  kiln_module_builder_destroy(b);

  /* Launch metadata: one entry per export, CUDA-sized blocks, shared
   * memory within 228 KiB. */
  static const kiln_module_export_desc_t ex[] = {{"k0", {1, 1, 1}, 0, NULL, 0},
                                                 {"k1", {1, 1, 1}, 0, NULL, 0}};
  static const struct {
    uint32_t count;
    kiln_module_variant_export_desc_t launch[2];
    const char *want;
  } bad[] = {
      {1, {{{64, 1, 1}, 0, 0}}, "variant sm_80: 1 export launch entries for 2 exports"},
      {2, {{{64, 1, 1}, 0, 0}, {{64, 0, 1}, 0, 0}}, "export k1: block size 64x0x1 is not a CUDA block"},
      {2, {{{64, 1, 1}, 0, 0}, {{2048, 1, 1}, 0, 0}}, "export k1: block size 2048x1x1"},
      {2, {{{64, 32, 1}, 0, 0}, {{1, 1, 1}, 0, 0}}, "export k0: block size 64x32x1"},
      {2, {{{1, 1, 65}, 0, 0}, {{1, 1, 1}, 0, 0}}, "export k0: block size 1x1x65"},
      {2, {{{64, 1, 1}, 200000, 33473}, {{1, 1, 1}, 0, 0}},
       "export k0: 233473 bytes of shared memory exceed the 233472-byte limit"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    b = kiln_module_builder_create();
    const kiln_module_variant_desc_t v = {"sm_80", "cuda", "nvptx64", NULL, 80,
                                          kiln_fb_PayloadFormat_PTX, "x", 1,
                                          bad[i].count, bad[i].launch, NULL};
    const kiln_module_executable_desc_t e = {"exe", 2, ex, 1, &v};
    kiln_module_builder_add_executable(b, &e);
    ck_assert(!kiln_module_builder_finish(b, &data, &size, &err));
    ck_assert_msg(strstr(err.message, bad[i].want), "%zu: \"%s\" lacks \"%s\"", i,
                  err.message, bad[i].want);
    kiln_module_builder_destroy(b);
  }

  b = kiln_module_builder_create();
  kiln_module_function_desc_t nameless = {.name = ""};
  kiln_module_builder_add_function(b, &nameless);
  ck_assert(!kiln_module_builder_finish(b, &data, &size, &err));
  ck_assert_ptr_nonnull(strstr(err.message, "function 0: missing or empty name"));
  kiln_module_builder_destroy(b);
}
END_TEST

/* Variants given byte-identical payloads (kiln-compile's one shared
 * object per target) share a segment; a payload differing in one byte, or
 * the same bytes in another format, gets its own. */
START_TEST(test_identical_payloads_share_a_segment) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_module_builder_set_compression(b, KILN_MODULE_COMPRESS_NEVER); /* bytes as given */
  uint8_t *p = make_payload(5000, 7), *q = make_payload(5000, 7);
  q[4999] ^= 1;
  kiln_module_export_desc_t ex = {"e", {1, 1, 1}, 0, NULL, 0};
  kiln_module_variant_desc_t v[] = {
      {"x86_64", "llvm-cpu", "x86_64", NULL, 0, kiln_fb_PayloadFormat_ELF, p, 5000, 0, NULL, NULL},
      {"x86_64", "llvm-cpu", "x86_64", NULL, 0, kiln_fb_PayloadFormat_ELF, q, 5000, 0, NULL, NULL},
      {"sm_80", "cuda", "nvptx64", NULL, 80, kiln_fb_PayloadFormat_PTX, p, 5000, 0, NULL, NULL}};
  const char *names[] = {"a", "b", "c", "d"};
  const uint32_t pick[][2] = {{0, 0}, {0, 0}, {1, 0}, {0, 2}}; /* variants of each */
  for (int i = 0; i < 4; i++) {
    kiln_module_variant_desc_t vs[2] = {v[pick[i][0]], v[pick[i][1]]};
    kiln_module_executable_desc_t e = {names[i], 1, &ex, i == 3 ? 2 : 1, vs};
    ck_assert_uint_eq(kiln_module_builder_add_executable(b, &e), (uint32_t)i);
  }
  uint8_t *data;
  size_t size;
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(b, &data, &size, &err), "%s", err.message);
  kiln_module_builder_destroy(b);
  kiln_module_view_t view;
  ck_assert_msg(kiln_module_view_open(&view, data, size, &err), "%s", err.message);
  uint32_t seg[4][2];
  for (uint32_t i = 0; i < 4; i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(view.root, i);
    for (uint32_t k = 0; k < kiln_fb_Executable_variants_count(e); k++)
      seg[i][k] = kiln_fb_ExecutableVariant_segment(kiln_fb_Executable_variants_at(e, k));
  }
  ck_assert_uint_eq(kiln_fb_Module_segments_count(view.root), 3);
  ck_assert_uint_eq(seg[0][0], seg[1][0]);
  ck_assert_uint_eq(seg[0][0], seg[3][0]);
  ck_assert_uint_ne(seg[0][0], seg[2][0]);
  ck_assert_uint_ne(seg[3][1], seg[0][0]);
  ck_assert_uint_ne(seg[3][1], seg[2][0]);
  uint64_t n;
  const uint8_t *got = kiln_module_segment_data(&view, seg[2][0], &n);
  ck_assert(n == 5000 && memcmp(got, q, 5000) == 0);
  free(data);
  free(p);
  free(q);
}
END_TEST

START_TEST(test_empty_module) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  uint8_t *data;
  size_t size;
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(b, &data, &size, &err), "%s", err.message);
  kiln_module_builder_destroy(b);
  kiln_module_view_t v;
  ck_assert_msg(kiln_module_view_open(&v, data, size, &err), "%s", err.message);
  ck_assert_uint_eq(kiln_fb_Module_functions_count(v.root), 0);
  ck_assert_uint_eq(v.flatbuffer_size, size);
  free(data);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_roundtrip");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_fields_round_trip);
  tcase_add_test(tc, test_compression_modes);
  tcase_add_test(tc, test_builder_rejects_bad_input);
  tcase_add_test(tc, test_empty_module);
  tcase_add_test(tc, test_identical_payloads_share_a_segment);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
