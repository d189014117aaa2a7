/* Malformed modules never crash the runtime: every truncation of a real
 * module, thousands of random corruptions (each loaded from an exact-size
 * copy, so a sanitizer sees any overread, and called when it still
 * loads), and hand-made hostile values the format accepts but the loader
 * must refuse, each with a message naming the problem. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/module_builder.h"
#include "rt_testkit.h"

/* Loads (and, if that works, calls) data[0..size) from an exact copy.
 * Returns 1 when the load failed, 0 when it loaded; a failed load's
 * message must be non-empty. */
static int try_module(const uint8_t *data, size_t size, kiln_device_t *dev,
                      kiln_instance_t *inst) {
  uint8_t *copy = malloc(size ? size : 1);
  memcpy(copy, data, size);
  kiln_module_t *m = NULL;
  kiln_status_t s = kiln_module_load_memory(inst, copy, size, &m);
  int rejected = 0;
  if (s) {
    ck_assert_msg(kiln_status_message(s)[0] != 0, "empty message");
    kiln_status_free(s);
    rejected = 1;
  } else {
    for (uint32_t i = 0; i < kiln_module_function_count(m); ++i) {
      kiln_function_t fn;
      kiln_status_t st = kiln_module_function_at(m, i, &fn);
      ck_assert_ptr_null(st);
      char sig[256];
      kiln_function_signature_format(fn, sig, sizeof sig);
      if (!kiln_function_is_exported(fn) || kiln_function_input_count(fn) > 4)
        continue;
      kiln_buffer_view_t *in[4] = {0}, *out[4] = {0};
      const uint32_t n_in = kiln_function_input_count(fn);
      const uint32_t n_out = kiln_function_output_count(fn);
      bool ok = n_out <= 4;
      for (uint32_t k = 0; ok && k < n_in; ++k) {
        kiln_tensor_type_t t = kiln_function_input_type(fn, k);
        for (uint32_t d = 0; d < t.rank; ++d)
          if (t.dims[d] < 0 || t.dims[d] > 64) t.dims[d] = 4;
        uint8_t zeros[8 * 64 * 4] = {0};
        uint64_t bytes = kiln_element_type_size(t.element_type);
        for (uint32_t d = 0; d < t.rank; ++d) bytes *= (uint64_t)t.dims[d];
        if (bytes > sizeof zeros) { ok = false; break; }
        st = kiln_buffer_view_from_host(dev, t.element_type, t.rank, t.dims,
                                        zeros, bytes, &in[k]);
        if (st) { kiln_status_free(st); ok = false; }
      }
      if (ok) {
        st = kiln_function_call(fn, dev, in, n_in, out, n_out);
        kiln_status_free(st);
      }
      for (uint32_t k = 0; k < 4; ++k) {
        kiln_buffer_view_release(in[k]);
        kiln_buffer_view_release(out[k]);
      }
    }
    kiln_module_release(m);
  }
  free(copy);
  return rejected;
}

static kiln_instance_t *inst;
static kiln_device_t *dev;

static void setup(void) {
  ck_assert_ptr_null(kiln_instance_create(kiln_allocator_system(), &inst));
  const kiln_device_options_t opts = {.max_buffer_bytes = 1u << 26,
                                      .max_steps = 100000};
  ck_assert_ptr_null(kiln_device_create(inst, "local-sync", &opts, &dev));
}
static void teardown(void) {
  kiln_device_release(dev);
  kiln_instance_release(inst);
}

START_TEST(every_truncation_is_rejected) {
  size_t size;
  uint8_t *data = rt_handmade(NULL, &size);
  ck_assert_int_eq(try_module(data, size, dev, inst), 0);
  for (size_t n = 0; n < size; ++n)
    ck_assert_msg(try_module(data, n, dev, inst) == 1,
                  "truncation to %zu bytes loaded", n);
  free(data);
}
END_TEST

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

START_TEST(random_corruptions_never_crash) {
  size_t size;
  uint8_t *data = rt_handmade(NULL, &size);
  uint8_t *mutated = malloc(size);
  int rejected = 0;
  const int rounds = 4000;
  for (int r = 0; r < rounds; ++r) {
    memcpy(mutated, data, size);
    const int edits = 1 + (int)(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = (size_t)(rng() % size);
      switch (rng() % 4) {
        case 0: mutated[at] ^= (uint8_t)(1u << (rng() % 8)); break;
        case 1: mutated[at] = (uint8_t)rng(); break;
        case 2: mutated[at] = 0xff; break;
        default: /* a hostile 32-bit value */
          if (at + 4 <= size) {
            const uint32_t v = (uint32_t)((rng() & 1) ? 0xffffffffu : rng());
            memcpy(mutated + at, &v, 4);
          }
      }
    }
    rejected += try_module(mutated, size, dev, inst);
  }
  /* Most edits land in checked places; some (padding, names) are benign. */
  fprintf(stderr, "random corruptions: %d of %d rejected\n", rejected, rounds);
  ck_assert_int_gt(rejected, rounds / 4);
  free(mutated);
  free(data);
}
END_TEST

/* ---- hostile values the format accepts but the loader refuses ---------- */

typedef struct custom {
  uint32_t scalar_regs;
  const char *vm_signature;
  const char *import_name;
  bool no_refs;      /* ref_register_count 0 */
  uint32_t binding_count;
  const uint8_t *code;
  uint32_t code_size;
} custom_t;

static uint8_t *build_custom(const custom_t *c, size_t *size) {
  static const uint8_t ret0[] = {KILN_VM_OP_RET, 1, 0, 0};
  size_t ksize;
  const uint8_t *kernel = rt_kernel(&ksize);
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_module_builder_set_name(b, "custom");
  kiln_module_builder_set_bytecode_version(b, KILN_VM_BYTECODE_VERSION);
  kiln_module_builder_add_import(b, c->import_name ? c->import_name : "hal.device.wait", "_");
  const int64_t dims[1] = {4};
  const kiln_module_tensor_type_t t = {
kiln_fb_ElementType_F32, 1, dims, false, false};
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = "main";
  f.exported = true;
  f.input_count = 1;
  f.inputs = &t;
  f.output_count = 1;
  f.outputs = &t;
  f.bytecode = c->code ? c->code : ret0;
  f.bytecode_size = c->code ? c->code_size : sizeof ret0;
  f.i32_register_count = c->scalar_regs;
  f.ref_register_count = c->no_refs ? 0 : 2;
  f.vm_signature = c->vm_signature;
  kiln_module_builder_add_function(b, &f);
  bool ro[40] = {0};
  const kiln_module_export_desc_t ex = {
      "simple_mul", {64, 1, 1}, c->binding_count ? c->binding_count : 3, ro, 1};
  const kiln_module_export_desc_t ex2 = {"fail_if_negative", {64, 1, 1}, 3, ro, 1};
  const kiln_module_export_desc_t exports[2] = {ex, ex2};
  kiln_module_variant_desc_t v;
  memset(&v, 0, sizeof v);
  v.name = "x86_64";
  v.target = "llvm-cpu";
  v.arch = "x86_64";
  v.format = kiln_fb_PayloadFormat_ELF;
  v.payload = kernel;
  v.payload_size = ksize;
  const kiln_module_executable_desc_t e = {"exe", 2, exports, 1, &v};
  kiln_module_builder_add_executable(b, &e);
  uint8_t *out = NULL;
  kiln_format_error_t err;
  if (!kiln_module_builder_finish(b, &out, size, &err)) out = NULL;
  kiln_module_builder_destroy(b);
  return out;
}

static const uint8_t bad_branch[] = {KILN_VM_OP_BR, 3, 0, 0, 0};

static const struct {
  const char *name;
  custom_t c;
  const char *want;
} hostile[] = {
    {"huge register count", {.scalar_regs = 1000000000u},
     "exceed the limit 4096"},
    {"too few ref registers", {.no_refs = true},
     "0 ref registers cannot hold 1 inputs / 1 outputs"},
    {"exported signature disagrees", {.vm_signature = "rr_r"},
     "VM signature \"rr_r\" does not match its 1 inputs / 1 outputs"},
    {"malformed signature", {.vm_signature = "r_r_"}, "malformed VM signature"},
    {"unknown import", {.import_name = "hal.teleport"},
     "import 'hal.teleport' is not provided by this runtime"},
    {"too many bindings", {.binding_count = 40},
     "40 bindings / 1 push constants exceed the limits"},
    {"bad branch", {.code = bad_branch, .code_size = sizeof bad_branch},
     "function 'main': invalid bytecode at 0x0000 (br): branch target 0x0003"},
};

START_TEST(hostile_values_are_refused) {
  custom_t c = hostile[_i].c;
  size_t size;
  uint8_t *data = build_custom(&c, &size);
  ck_assert_ptr_nonnull(data);
  kiln_module_t *m = NULL;
  kiln_status_t s = kiln_module_load_memory(inst, data, size, &m);
  if (!s) {
    /* Some checks (bindings) are per export and surface when loading. */
    s = kiln_module_prepare(m, dev);
    kiln_module_release(m);
  }
  ck_assert_msg(s && strstr(kiln_status_message(s), hostile[_i].want),
                "%s: expected '%s', got '%s'", hostile[_i].name,
                hostile[_i].want, s ? kiln_status_message(s) : "success");
  kiln_status_free(s);
  free(data);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_corrupt");
  TCase *tc = tcase_create("corrupt");
  tcase_set_timeout(tc, 600);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, every_truncation_is_rejected);
  tcase_add_test(tc, random_corruptions_never_crash);
  tcase_add_loop_test(tc, hostile_values_are_refused, 0,
                      (int)(sizeof hostile / sizeof hostile[0]));
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
