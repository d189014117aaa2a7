/* Hostile input: every truncation of the sample module, tens of thousands
 * of random byte and 32-bit word corruptions, and hand-made damage with
 * the exact message expected. Each candidate lives in a malloc'ed buffer of
 * exactly its size, so under ASan any read past it is a test failure; an
 * accepted candidate is then read completely (module_walk.c), which also
 * re-checks the verifier's promises independently. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include "kiln/fb_builder.h"
#include "kiln/module_zstd.h"
#include "kiln/version.h"
#include "module_walk.h"
#include "sample_module.h"

static uint8_t *sample;
static size_t sample_size;

static void make_sample(bool large) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_sample_options_t o = {large, KILN_MODULE_COMPRESS_AUTO};
  kiln_sample_module_fill(b, &o);
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(b, &sample, &sample_size, &err), "%s", err.message);
  kiln_module_builder_destroy(b);
}

/* Opens a private exact-size copy; on success walks it. Returns 1 when
 * accepted, 0 when rejected (with a message). */
static int try_open(const uint8_t *data, size_t size) {
  uint8_t *copy = malloc(size ? size : 1);
  if (size) memcpy(copy, data, size);
  kiln_module_view_t m;
  kiln_format_error_t err;
  int accepted = kiln_module_view_open(&m, size ? copy : NULL, size, &err);
  if (accepted) {
    uint64_t h = 0;
    char why[256];
    ck_assert_msg(kiln_test_module_walk(&m, &h, why, sizeof why),
                  "accepted a module that breaks an invariant: %s", why);
  } else {
    ck_assert_msg(err.message[0] != 0, "rejected without a message");
  }
  free(copy);
  return accepted;
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) { /* xorshift64*, fixed seed: reproducible */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 0x2545f4914f6cdd1dull) >> 32);
}

START_TEST(test_every_truncation) {
  for (int large = 0; large < 2; large++) {
    make_sample(large);
    ck_assert_int_eq(try_open(sample, sample_size), 1);
    for (size_t n = 0; n < sample_size; n++)
      ck_assert_msg(try_open(sample, n) == 0, "truncation to %zu bytes accepted", n);
    free(sample);
  }
}
END_TEST

START_TEST(test_random_bytes) {
  make_sample(false);
  kiln_module_view_t m;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&m, sample, sample_size, &err));
  size_t fb = (size_t)m.flatbuffer_size;
  uint8_t *buf = malloc(sample_size);
  int accepted = 0, rejected = 0;
  for (int it = 0; it < 20000; it++) {
    memcpy(buf, sample, sample_size);
    int edits = 1 + (int)(rnd() % 4);
    for (int e = 0; e < edits; e++) {
      /* Mostly inside the FlatBuffer, where the structure lives. */
      size_t pos = rnd() % 5 ? rnd() % fb : rnd() % sample_size;
      buf[pos] = (uint8_t)rnd();
    }
    if (try_open(buf, sample_size)) accepted++;
    else rejected++;
  }
  printf("random bytes: %d accepted, %d rejected\n", accepted, rejected);
  ck_assert_int_gt(rejected, 1000);
  ck_assert_int_gt(accepted, 100);
  free(buf);
  free(sample);
}
END_TEST

START_TEST(test_random_words) {
  static const uint32_t interesting[] = {0, 1, 2, 3, 4, 7, 8, 0x3f, 0x40, 0x7f, 0x80,
                                         0xff, 0x100, 0xfff, 0x1000, 0xffff, 0x10000,
                                         0x7fffffff, 0x80000000, 0xfffffffc,
                                         0xfffffffe, 0xffffffff};
  make_sample(true);
  kiln_module_view_t m;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&m, sample, sample_size, &err));
  size_t words = (size_t)m.flatbuffer_size / 4;
  uint8_t *buf = malloc(sample_size);
  int accepted = 0, rejected = 0;
  for (int it = 0; it < 20000; it++) {
    memcpy(buf, sample, sample_size);
    size_t at = (rnd() % words) * 4;
    uint32_t v, old;
    memcpy(&old, buf + at, 4);
    switch (rnd() % 4) {
      case 0: v = interesting[rnd() % (sizeof interesting / sizeof *interesting)]; break;
      case 1: v = old + (rnd() % 17) - 8; break;          /* nearby offsets */
      case 2: v = (uint32_t)sample_size - (rnd() % 64); break; /* near the end */
      default: v = rnd(); break;
    }
    memcpy(buf + at, &v, 4);
    if (try_open(buf, sample_size)) accepted++;
    else rejected++;
  }
  printf("random words: %d accepted, %d rejected\n", accepted, rejected);
  ck_assert_int_gt(rejected, 1000);
  free(buf);
  free(sample);
}
END_TEST

/* Expects the damaged copy to be rejected with `want` in the message. */
static void expect_error(const uint8_t *data, size_t size, const char *want) {
  uint8_t *copy = malloc(size);
  memcpy(copy, data, size);
  kiln_module_view_t m;
  kiln_format_error_t err;
  bool ok = kiln_module_view_open(&m, copy, size, &err);
  free(copy);
  ck_assert_msg(!ok, "accepted; wanted error \"%s\"", want);
  ck_assert_msg(strstr(err.message, want), "message \"%s\" lacks \"%s\"", err.message, want);
}

static size_t field_pos(const kiln_module_view_t *m, const uint8_t *table, unsigned slot) {
  const uint8_t *p = kiln_fb_field(table, slot);
  ck_assert_ptr_nonnull(p);
  return (size_t)(p - m->file);
}

static void put32(uint8_t *buf, size_t at, uint32_t v) { memcpy(buf + at, &v, 4); }

START_TEST(test_named_errors) {
  make_sample(false);
  kiln_module_view_t m;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&m, sample, sample_size, &err));
  uint8_t *b = malloc(sample_size);
  kiln_fb_Module_t r = m.root;
#define RESET() memcpy(b, sample, sample_size)

  RESET();
  b[4] = 'X';
  expect_error(b, sample_size, "not a Kiln module: file identifier is 58 49 4c 4e, expected \"KILN\"");
  expect_error(b, 5, "not a Kiln module: 5 bytes is too short");

  RESET();
  put32(b, field_pos(&m, r.p, 0), 4);
  /* A newer module: both versions, who made it and what to do. */
  expect_error(b, sample_size, "module format version 4 is newer than this reader (Kiln " KILN_VERSION
               ", format versions 1 to 3); the module was made by kiln-mkmodule 0.1.0: run it with a "
               "Kiln runtime at least as new as that compiler, or recompile the model with "
               "kiln-compile " KILN_VERSION);
  put32(b, field_pos(&m, r.p, 0), 0);
  expect_error(b, sample_size, "module format version 0 (field missing) is not supported: this reader "
               "(Kiln " KILN_VERSION ") reads versions 1 to 3; recompile the model with kiln-compile");
  /* Version 1 (before launch metadata) is still read. */
  put32(b, field_pos(&m, r.p, 0), 1);
  ck_assert_int_eq(try_open(b, sample_size), 1);

  RESET();
  put32(b, 0, 0xfffffff0u);
  expect_error(b, sample_size, "Module: offset at 0 points to");

  RESET();
  put32(b, (size_t)(r.p - m.file), 0x7ffffff0);
  expect_error(b, sample_size, "has its vtable before the start of the buffer");
  put32(b, (size_t)(r.p - m.file), (uint32_t)-0x10000);
  expect_error(b, sample_size, "Module: vtable at offset");

  RESET();
  kiln_fb_string_t name = kiln_fb_Module_name(r);
  b[(const uint8_t *)name.data - m.file + name.size] = 'x';
  expect_error(b, sample_size, "Module.name: string at offset");
  expect_error(b, sample_size, "is not NUL-terminated");

  RESET();
  kiln_fb_TensorType_t t = kiln_fb_Function_inputs_at(kiln_fb_Module_functions_at(r, 0), 0);
  b[field_pos(&m, t.p, 0)] = 200;
  expect_error(b, sample_size,
               "Module.functions[0].inputs[0].element_type: value 200 is not a valid ElementType");

  /* ElementType's Unknown (KFB_ENUM_UNSET) is never valid, stored or as
   * the default of an absent field; dims are sizes or -1 (KFB_DIMS). */
  RESET();
  b[field_pos(&m, t.p, 0)] = 0;
  expect_error(b, sample_size,
               "Module.functions[0].inputs[0].element_type: value 0 is not a valid ElementType");
  RESET();
  int32_t tso;
  memcpy(&tso, t.p, 4);
  b[(size_t)(t.p - tso - m.file) + 4] = b[(size_t)(t.p - tso - m.file) + 5] = 0;
  expect_error(b, sample_size, "Module.functions[0].inputs[0].element_type: missing: its default 0 "
               "is not a valid ElementType");
  RESET();
  ck_assert_uint_gt(kiln_fb_TensorType_dims_count(t), 1);
  const size_t dim1 = (size_t)(kiln_fb_TensorType_dims_data(t) - m.file) + 8;
  int64_t dim = -1;
  memcpy(b + dim1, &dim, 8);
  ck_assert_int_eq(try_open(b, sample_size), 1);
  dim = -5;
  memcpy(b + dim1, &dim, 8);
  expect_error(b, sample_size,
               "Module.functions[0].inputs[0].dims[1]: -5 is neither a size nor -1 (dynamic)");

  RESET();
  kiln_fb_Segment_t s2 = kiln_fb_Module_segments_at(r, 2);
  b[field_pos(&m, s2.p, 3)] = 9;
  expect_error(b, sample_size, "Module.segments[2].compression: value 9 is not a valid Compression");

  RESET();
  size_t vec = (size_t)(kiln_fb_ref(r.p, 3) - m.file); /* functions vector */
  put32(b, vec, 0x40000000u);
  expect_error(b, sample_size, "Module.functions: vector elements at offset");

  RESET();
  size_t seg0 = field_pos(&m, kiln_fb_Module_segments_at(r, 0).p, 1);
  uint64_t off;
  memcpy(&off, b + seg0, 8);
  off += 8;
  memcpy(b + seg0, &off, 8);
  expect_error(b, sample_size, "segments[0]: offset");
  expect_error(b, sample_size, "is not 64-byte aligned");

  /* Through the (shared) Segment vtable: a misaligned u64 field, and a
   * field placed outside its table. */
  RESET();
  const uint8_t *st = kiln_fb_Module_segments_at(r, 0).p;
  int32_t so;
  memcpy(&so, st, 4);
  size_t vt_slot1 = (size_t)(st - so - m.file) + 4 + 2 * 1;
  uint16_t fo;
  memcpy(&fo, b + vt_slot1, 2);
  fo = (uint16_t)(fo - 4);
  memcpy(b + vt_slot1, &fo, 2);
  expect_error(b, sample_size, "Module.segments[0].offset: field at offset");
  expect_error(b, sample_size, "is not 8-byte aligned");
  fo = 0xfff0;
  memcpy(b + vt_slot1, &fo, 2);
  expect_error(b, sample_size, "Module.segments[0].offset: field (offset 65520, 8 bytes) lies outside its");

  RESET();
  off = 64;
  memcpy(b + seg0, &off, 8);
  expect_error(b, sample_size, "segments[0]: offset 64 overlaps the FlatBuffer ending at");

  RESET();
  put32(b, field_pos(&m, kiln_fb_Module_functions_at(r, 0).p, 5), 10000);
  expect_error(b, sample_size, "functions[0] (main): bytecode range 0+10000 exceeds the 10-byte bytecode");

  /* Names and import signatures (KFB_NAME): present, non-empty, without a
   * NUL byte. */
  RESET();
  kiln_fb_string_t iname = kiln_fb_Import_name(kiln_fb_Module_imports_at(r, 0));
  ck_assert_uint_gt(iname.size, 1);
  b[(const uint8_t *)iname.data - m.file + 1] = 0;
  expect_error(b, sample_size, "Module.imports[0].name: missing, empty or holding a NUL byte");
  RESET();
  const uint8_t *imp0 = kiln_fb_Module_imports_at(r, 0).p;
  memcpy(&so, imp0, 4);
  b[(size_t)(imp0 - so - m.file) + 6] = b[(size_t)(imp0 - so - m.file) + 7] = 0;
  expect_error(b, sample_size, "Module.imports[0].signature: missing, empty or holding a NUL byte");
  RESET();
  kiln_fb_string_t target = kiln_fb_ExecutableVariant_target(
      kiln_fb_Executable_variants_at(kiln_fb_Module_executables_at(r, 0), 1));
  put32(b, (size_t)((const uint8_t *)target.data - m.file) - 4, 0);
  b[(const uint8_t *)target.data - m.file] = 0;
  expect_error(b, sample_size,
               "Module.executables[0].variants[1].target: missing, empty or holding a NUL byte");
  RESET();
  const uint8_t *f0 = kiln_fb_Module_functions_at(r, 0).p;
  memcpy(&so, f0, 4);
  b[(size_t)(f0 - so - m.file) + 4] = b[(size_t)(f0 - so - m.file) + 5] = 0;
  expect_error(b, sample_size, "Module.functions[0].name: missing, empty or holding a NUL byte");

  /* A dispatch site's source nodes at a pc outside the function. */
  RESET();
  kiln_fb_SourceNodes_t sn = kiln_fb_Function_source_nodes_at(kiln_fb_Module_functions_at(r, 0), 0);
  put32(b, field_pos(&m, sn.p, 0), 5);
  expect_error(b, sample_size, "functions[0].source_nodes[0].pc: 5 is outside the 5-byte bytecode");

  RESET();
  put32(b, field_pos(&m, kiln_fb_Module_rodata_at(r, 1).p, 2), 3);
  expect_error(b, sample_size, "rodata[1].segment: segment 3 holds executable data");

  RESET();
  kiln_fb_ExecutableExport_t ex = kiln_fb_Executable_exports_at(kiln_fb_Module_executables_at(r, 0), 0);
  put32(b, field_pos(&m, ex.p, 1) + 4, 0);
  expect_error(b, sample_size, "executables[0].exports[0] (matmul_dispatch_0): workgroup size 8x0x1");

  /* Launch metadata of the sm_80 variant (sample: 16x16x1 with 2 KiB
   * static, 128x1x1 with 64 KiB dynamic shared memory). */
  kiln_fb_ExecutableVariant_t sm80 =
      kiln_fb_Executable_variants_at(kiln_fb_Module_executables_at(r, 0), 2);
  ck_assert_uint_eq(kiln_fb_ExecutableVariant_exports_count(sm80), 2);
  kiln_fb_VariantExport_t l0 = kiln_fb_ExecutableVariant_exports_at(sm80, 0);
  kiln_fb_VariantExport_t l1 = kiln_fb_ExecutableVariant_exports_at(sm80, 1);
  RESET();
  put32(b, (size_t)(kiln_fb_ref(sm80.p, 7) - m.file), 1);
  expect_error(b, sample_size, "executables[0].variants[2] (sm_80).exports: 1 entries for 2 executable exports");
  RESET();
  put32(b, field_pos(&m, l0.p, 0) + 4, 0);
  expect_error(b, sample_size,
               "executables[0].variants[2] (sm_80).exports[0] (matmul_dispatch_0): block size 16x0x1 has a zero dimension");
  RESET();
  put32(b, field_pos(&m, l1.p, 0), 2048);
  expect_error(b, sample_size,
               "executables[0].variants[2] (sm_80).exports[1] (add_dispatch_1): block size 2048x1x1 exceeds CUDA's limits");
  put32(b, field_pos(&m, l1.p, 0), 1024);
  ck_assert_int_eq(try_open(b, sample_size), 1);
  put32(b, field_pos(&m, l1.p, 0) + 8, 2);
  expect_error(b, sample_size, "(add_dispatch_1): block size 1024x1x2 exceeds CUDA's limits");
  RESET();
  put32(b, field_pos(&m, l0.p, 0) + 8, 65);
  expect_error(b, sample_size, "(matmul_dispatch_0): block size 16x16x65 exceeds");
  RESET();
  put32(b, field_pos(&m, l0.p, 1), 233473);
  expect_error(b, sample_size,
               "(matmul_dispatch_0): shared memory 233473 bytes (static 233473 + dynamic 0) exceeds the 233472-byte limit");
  put32(b, field_pos(&m, l0.p, 1), 233472);
  ck_assert_int_eq(try_open(b, sample_size), 1);
  RESET();
  put32(b, field_pos(&m, l1.p, 2), 0xffffffffu);
  expect_error(b, sample_size, "(add_dispatch_1): shared memory 4294967295 bytes (static 0 + dynamic 4294967295)");
  /* A VariantExport whose block_size is absent (vtable slot 0 cleared;
   * the two entries may share that vtable). */
  RESET();
  memcpy(&so, l0.p, 4);
  size_t vt_block = (size_t)(l0.p - so - m.file) + 4;
  b[vt_block] = b[vt_block + 1] = 0;
  expect_error(b, sample_size, "(matmul_dispatch_0): block size 0x0x0 has a zero dimension (field missing)");

  /* Payload damage is found when the payload is read, not at open. */
  RESET();
  kiln_fb_Segment_t s3 = kiln_fb_Module_segments_at(r, 3);
  ck_assert_int_eq(kiln_fb_Segment_compression(s3), kiln_fb_Compression_Zstd);
  b[kiln_fb_Segment_offset(s3) + kiln_fb_Segment_size(s3) / 2] ^= 0x55;
  kiln_module_view_t bad;
  ck_assert(kiln_module_view_open(&bad, b, sample_size, &err));
  uint8_t *out = malloc(kiln_fb_Segment_uncompressed_size(s3));
  ck_assert(!kiln_module_segment_read(&bad, 3, out, kiln_fb_Segment_uncompressed_size(s3), &err));
  ck_assert_msg(strncmp(err.message, "segments[3]: ", 13) == 0, "%s", err.message);
  free(out);

  RESET();
  b[kiln_fb_Segment_offset(kiln_fb_Module_segments_at(r, 0)) + 5] ^= 1;
  ck_assert(kiln_module_view_open(&bad, b, sample_size, &err));
  ck_assert(kiln_module_segment_check_hash(&m, 0, &err));
  ck_assert(!kiln_module_segment_check_hash(&bad, 0, &err));
  ck_assert_msg(strstr(err.message, "segments[0]: content hash"), "%s", err.message);
  free(b);
  free(sample);
}
END_TEST

/* kiln-hash-64 against answers from an independent implementation of the
 * specification in module_hash.c (Python, big integers), covering the
 * empty input, partial blocks, whole blocks and a tail; and the
 * content hash follows the format version: versions 1-2 recorded FNV-1a. */
START_TEST(test_content_hash_versions) {
  static const struct { size_t n; uint64_t h; } known[] = {
      {0, 0x19f9f3f34fd9549eull}, {1, 0xf00fb32f44933951ull},
      {8, 0x897429e978bef663ull}, {33, 0xe46ad8a2bf146843ull}};
  uint8_t bytes[1027];
  for (size_t i = 0; i < 1024; ++i) bytes[i] = (uint8_t)i;
  memcpy(bytes + 1024, "xyz", 3);
  const uint8_t a[1] = {'a'}, a8[8] = {'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'};
  for (size_t k = 0; k < sizeof known / sizeof known[0]; ++k) {
    const uint8_t *d = known[k].n == 1 ? a : known[k].n == 8 ? a8 : bytes;
    ck_assert_uint_eq(kiln_module_hash(d, known[k].n), known[k].h);
  }
  ck_assert_uint_eq(kiln_module_hash(bytes, 1027), 0xac99dd9be77dc4f6ull);
  ck_assert_uint_eq(kiln_module_hash_fnv1a("a", 1), 0xaf63dc4c8601ec8cull);

  make_sample(false);
  uint8_t *b = malloc(sample_size);
  memcpy(b, sample, sample_size);
  kiln_module_view_t m;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&m, b, sample_size, &err));
  ck_assert_uint_eq(kiln_fb_Module_format_version(m.root), 3);
  kiln_fb_Segment_t s0 = kiln_fb_Module_segments_at(m.root, 0);
  uint64_t size;
  const uint8_t *data = kiln_module_segment_data(&m, 0, &size);
  ck_assert(kiln_module_segment_check_hash(&m, 0, &err));
  /* As version 2 the recorded kiln-hash-64 no longer matches... */
  put32(b, field_pos(&m, m.root.p, 0), 2);
  ck_assert(!kiln_module_segment_check_hash(&m, 0, &err));
  /* ...and FNV-1a does. */
  const uint64_t fnv = kiln_module_hash_fnv1a(data, size);
  memcpy(b + field_pos(&m, s0.p, 5), &fnv, 8);
  ck_assert_msg(kiln_module_segment_check_hash(&m, 0, &err), "%s", err.message);
  put32(b, field_pos(&m, m.root.p, 0), 3);
  ck_assert(!kiln_module_segment_check_hash(&m, 0, &err));
  free(b);
  free(sample);
}
END_TEST

/* Shared subobjects: 2000 functions all pointing at one table whose
 * inputs vector lists one TensorType 2000 times would cost 4 million
 * visits from a few kilobytes; the verifier's object budget refuses it. */
START_TEST(test_shared_subobjects_refused) {
  enum { N = 2000 };
  kiln_fbb_t f;
  kiln_fbb_init(&f);
  kiln_fbb_table_start(&f);
  uint8_t et = kiln_fb_ElementType_F32;
  kiln_fbb_add_scalar(&f, 0, &et, 1, false);
  kiln_fbb_ref_t tensor = kiln_fbb_table_end(&f);
  static kiln_fbb_ref_t refs[N];
  for (int i = 0; i < N; i++) refs[i] = tensor;
  kiln_fbb_ref_t inputs = kiln_fbb_vector_refs(&f, refs, N);
  kiln_fbb_ref_t fname = kiln_fbb_string(&f, "f", 1);
  kiln_fbb_table_start(&f);
  kiln_fbb_add_ref(&f, 0, fname);
  kiln_fbb_add_ref(&f, 2, inputs);
  kiln_fbb_ref_t fn = kiln_fbb_table_end(&f);
  for (int i = 0; i < N; i++) refs[i] = fn;
  kiln_fbb_ref_t fns = kiln_fbb_vector_refs(&f, refs, N);
  kiln_fbb_table_start(&f);
  uint32_t version = KILN_MODULE_FORMAT_VERSION;
  kiln_fbb_add_scalar(&f, 0, &version, 4, false);
  kiln_fbb_add_ref(&f, 3, fns);
  kiln_fbb_ref_t root = kiln_fbb_table_end(&f);
  const uint8_t *data;
  size_t size;
  const char *why;
  ck_assert(kiln_fbb_finish(&f, root, KILN_MODULE_FILE_IDENTIFIER, &data, &size, &why));
  ck_assert_uint_lt(size, 20000);
  expect_error(data, size, "more objects than the buffer can hold");
  kiln_fbb_free(&f);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_corrupt");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_named_errors);
  tcase_add_test(tc, test_shared_subobjects_refused);
  tcase_add_test(tc, test_content_hash_versions);
  tcase_add_test(tc, test_every_truncation);
  tcase_add_test(tc, test_random_bytes);
  tcase_add_test(tc, test_random_words);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
