/* runtime-min through its public API: status values, types, loading the
 * handmade module (memory and file), reflection, calls on local-sync and
 * local-task, kernel failures, the per-device cache, and a counting
 * allocator that proves every byte taken is given back. */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kiln/module_format.h"
#include "kiln/version.h"
#include "rt_testkit.h"

#define OK(expr)                                                        \
  do {                                                                  \
    kiln_status_t s_ = (expr);                                          \
    ck_assert_msg(s_ == NULL, "%s: %s", #expr, kiln_status_message(s_)); \
  } while (0)

/* Expects a failure with `code` whose message contains each of the
 * NULL-terminated substrings. */
static void expect_error(kiln_status_t s, kiln_status_code_t code, ...) {
  ck_assert_msg(s != NULL, "expected an error");
  ck_assert_msg(kiln_status_code(s) == code, "code %s, message: %s",
                kiln_status_code_name(kiln_status_code(s)),
                kiln_status_message(s));
  va_list ap;
  va_start(ap, code);
  for (const char *want; (want = va_arg(ap, const char *));)
    ck_assert_msg(strstr(kiln_status_message(s), want), "'%s' not in '%s'",
                  want, kiln_status_message(s));
  va_end(ap);
  kiln_status_free(s);
}

START_TEST(status_and_types) {
  ck_assert_str_eq(kiln_status_code_name(KILN_STATUS_DATA_LOSS),
                   "KILN_STATUS_DATA_LOSS");
  ck_assert_str_eq(kiln_status_message(NULL), "");
  ck_assert_int_eq(kiln_status_code(NULL), KILN_STATUS_OK);
  kiln_tensor_type_t t = {KILN_ELEMENT_F32, 3, {2, -1, 5}};
  char buf[64];
  kiln_tensor_type_format(&t, buf, sizeof buf);
  ck_assert_str_eq(buf, "tensor<2x?x5xf32>");
  t.rank = 0;
  t.element_type = KILN_ELEMENT_BF16;
  kiln_tensor_type_format(&t, buf, sizeof buf);
  ck_assert_str_eq(buf, "tensor<bf16>");
  ck_assert_int_eq(kiln_element_type_parse("i64", 3), KILN_ELEMENT_I64);
  ck_assert_int_eq(kiln_element_type_parse("f33", 3), KILN_ELEMENT_NONE);
  ck_assert_uint_eq(kiln_element_type_size(KILN_ELEMENT_F16), 2);
}
END_TEST

typedef struct fixture {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *mod;
  kiln_function_t fn;
} fixture_t;

static void open_fixture(fixture_t *f, const char *device, const uint8_t *data,
                         size_t size) {
  memset(f, 0, sizeof *f);
  OK(kiln_instance_create(kiln_allocator_system(), &f->inst));
  OK(kiln_device_create(f->inst, device, NULL, &f->dev));
  OK(kiln_module_load_memory(f->inst, data, size, &f->mod));
  OK(kiln_module_lookup_function(f->mod, "simple_mul", &f->fn));
}

static void close_fixture(fixture_t *f) {
  kiln_module_release(f->mod);
  kiln_device_release(f->dev);
  kiln_instance_release(f->inst);
}

/* c = a * b through kiln_function_call; returns the status. */
static kiln_status_t mul(fixture_t *f, const float *a, const float *b,
                         float *c, int64_t n) {
  kiln_buffer_view_t *in[2] = {NULL, NULL}, *out = NULL;
  const uint64_t bytes = (uint64_t)n * 4;
  kiln_status_t s = kiln_buffer_view_from_host(f->dev, KILN_ELEMENT_F32, 1, &n,
                                               a, bytes, &in[0]);
  if (!s)
    s = kiln_buffer_view_from_host(f->dev, KILN_ELEMENT_F32, 1, &n, b, bytes,
                                   &in[1]);
  if (!s) s = kiln_function_call(f->fn, f->dev, in, 2, &out, 1);
  if (!s) s = kiln_buffer_view_read(out, c, bytes);
  kiln_buffer_view_release(out);
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  return s;
}

START_TEST(call_handmade_on_local_devices) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  size_t size;
  uint8_t *data = rt_handmade(NULL, &size);
  ck_assert_ptr_nonnull(data);
  fixture_t f;
  open_fixture(&f, devices[_i], data, size);
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0};
  OK(mul(&f, a, b, c, 4));
  ck_assert(c[0] == 5 && c[1] == 12 && c[2] == 21 && c[3] == 32);
  /* Reflection. */
  ck_assert_uint_eq(kiln_module_function_count(f.mod), 2);
  ck_assert_str_eq(kiln_module_name(f.mod), "simple_mul");
  ck_assert(kiln_function_is_exported(f.fn));
  char sig[128];
  kiln_function_signature_format(f.fn, sig, sizeof sig);
  ck_assert_str_eq(sig, "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>");
  /* Too small a buffer: a NUL-terminated prefix, and the length needed. */
  char small[8];
  ck_assert_uint_eq(kiln_function_signature_format(f.fn, small, sizeof small),
                    strlen(sig));
  ck_assert_str_eq(small, "(tensor");
  ck_assert_uint_eq(kiln_function_signature_format(f.fn, NULL, 0), strlen(sig));
  kiln_tensor_type_t t = kiln_function_input_type(f.fn, 1);
  ck_assert(t.element_type == KILN_ELEMENT_F32 && t.rank == 1 && t.dims[0] == 4);
  ck_assert_int_eq(kiln_function_input_type(f.fn, 2).element_type,
                   KILN_ELEMENT_NONE);
  /* The internal function is not host-callable. */
  kiln_function_t g;
  OK(kiln_module_lookup_function(f.mod, "workgroups", &g));
  ck_assert(!kiln_function_is_exported(g));
  expect_error(kiln_function_call(g, f.dev, NULL, 0, NULL, 0),
               KILN_STATUS_INVALID_ARGUMENT, "cannot be called from the host",
               (char *)NULL);
  expect_error(kiln_module_lookup_function(f.mod, "nope", &g),
               KILN_STATUS_NOT_FOUND, "no function 'nope'", "simple_mul",
               (char *)NULL);
  /* Wrong inputs name the input, expected and actual type. */
  int64_t five = 5;
  kiln_buffer_view_t *in[2], *out = NULL;
  float x[5] = {0};
  OK(kiln_buffer_view_from_host(f.dev, KILN_ELEMENT_F32, 1, &five, x, 20, &in[0]));
  OK(kiln_buffer_view_from_host(f.dev, KILN_ELEMENT_F32, 1, &five, x, 20, &in[1]));
  expect_error(kiln_function_call(f.fn, f.dev, in, 2, &out, 1),
               KILN_STATUS_INVALID_ARGUMENT,
               "input 0: expected tensor<4xf32>, got tensor<5xf32>",
               (char *)NULL);
  expect_error(kiln_function_call(f.fn, f.dev, in, 1, &out, 1),
               KILN_STATUS_INVALID_ARGUMENT, "takes 2 inputs, got 1",
               (char *)NULL);
  ck_assert_ptr_null(out);
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  close_fixture(&f);
  free(data);
}
END_TEST

/* A dispatch observer that keeps the last event, counts them and reads
 * the bytes of each binding (up to 16) while they are valid. */
typedef struct observed {
  int events;
  kiln_dispatch_event_t last;
  int read_only[4];
  float bytes[4][4];
} observed_t;

static void observe(void *user, const kiln_dispatch_event_t *e) {
  observed_t *o = user;
  ++o->events;
  o->last = *e;
  for (uint32_t i = 0; i < e->binding_count && i < 4; ++i) {
    const kiln_dispatch_binding_t *b = &e->bindings[i];
    o->read_only[i] = b->read_only;
    const uint64_t n = b->length < 16 ? b->length : 16;
    kiln_status_t s = kiln_buffer_read(b->buffer, b->offset, o->bytes[i], n);
    if (s) o->read_only[i] = -1;
    kiln_status_free(s);
  }
}

START_TEST(dispatch_observer_sees_each_dispatch) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  size_t size;
  uint8_t *data = rt_handmade(NULL, &size);
  ck_assert_ptr_nonnull(data);
  observed_t seen;
  memset(&seen, 0, sizeof seen);
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.dispatch_observer = observe;
  opts.dispatch_observer_user = &seen;
  fixture_t f;
  memset(&f, 0, sizeof f);
  OK(kiln_instance_create(kiln_allocator_system(), &f.inst));
#ifdef KILN_TEST_NO_PROFILE
  /* Builds without observers refuse one rather than ignore it. */
  expect_error(kiln_device_create(f.inst, devices[_i], &opts, &f.dev),
               KILN_STATUS_UNIMPLEMENTED, "KILN_RUNTIME_PROFILE=OFF",
               (char *)NULL);
  kiln_instance_release(f.inst);
  free(data);
  return;
#endif
  OK(kiln_device_create(f.inst, devices[_i], &opts, &f.dev));
  OK(kiln_module_load_memory(f.inst, data, size, &f.mod));
  OK(kiln_module_lookup_function(f.mod, "simple_mul", &f.fn));
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  float c[4] = {0};
  OK(mul(&f, a, b, c, 4));
  OK(mul(&f, a, b, c, 4));
  ck_assert(c[0] == 5 && c[3] == 32);
  /* One dispatch per call, named after the module's executable and export
   * and the function whose bytecode recorded it. */
  ck_assert_int_eq(seen.events, 2);
  ck_assert_str_eq(seen.last.executable, "simple_mul_dispatch_0");
  ck_assert_str_eq(seen.last.export_name, "simple_mul");
  ck_assert_ptr_nonnull(seen.last.function);
  ck_assert_ptr_null(seen.last.source_file); /* the module has none */
  ck_assert_uint_eq(seen.last.command_index, 0);
  /* Its bindings: a and b declared read-only, c written, each readable
   * during the callback; no source nodes in the handmade module. */
  ck_assert_uint_eq(seen.last.binding_count, 3);
  ck_assert_int_eq(seen.read_only[0], 1);
  ck_assert_int_eq(seen.read_only[1], 1);
  ck_assert_int_eq(seen.read_only[2], 0);
  ck_assert(memcmp(seen.bytes[0], a, 16) == 0 && memcmp(seen.bytes[1], b, 16) == 0);
  ck_assert(memcmp(seen.bytes[2], c, 16) == 0);
  ck_assert_uint_eq(seen.last.node_count, 0);
  ck_assert_uint_eq(seen.last.workgroup_count[0] * seen.last.workgroup_count[1] *
                        seen.last.workgroup_count[2], 1);
  ck_assert(seen.last.start_ns > 0 && seen.last.end_ns >= seen.last.start_ns);
  close_fixture(&f);
  free(data);
}
END_TEST

START_TEST(load_from_file_and_prepare) {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", NULL, &dev));
  OK(kiln_module_load_file(inst, KILN_HANDMADE_MODULE, &m));
  OK(kiln_module_prepare(m, dev));
  OK(kiln_module_prepare(m, dev)); /* cached */
  kiln_module_release(m);
  expect_error(kiln_module_load_file(inst, "/nonexistent.kiln", &m),
               KILN_STATUS_NOT_FOUND, "cannot open '/nonexistent.kiln'",
               (char *)NULL);
  expect_error(kiln_module_load_file(inst, "/", &m),
               KILN_STATUS_INVALID_ARGUMENT, "not a regular file", (char *)NULL);
  kiln_device_t *none;
  expect_error(kiln_device_create(inst, "tpu", NULL, &none),
               KILN_STATUS_NOT_FOUND, "unknown device 'tpu'", "local-sync",
               (char *)NULL);
  kiln_device_release(dev);
  kiln_instance_release(inst);
}
END_TEST

START_TEST(zstd_compressed_kernel_runs) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.compress = true;
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  ck_assert_ptr_nonnull(data);
#ifdef KILN_TEST_NO_ZSTD
  /* Built without zstd: the module loads, its kernel cannot. */
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", NULL, &dev));
  OK(kiln_module_load_memory(inst, data, size, &m));
  expect_error(kiln_module_prepare(m, dev), KILN_STATUS_UNIMPLEMENTED,
               "built without zstd", (char *)NULL);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
  return;
#endif
  fixture_t f;
  open_fixture(&f, "local-sync", data, size);
  const float a[4] = {1, -2, 3, 4}, b[4] = {2, 2, 2, 0.5f};
  float c[4];
  OK(mul(&f, a, b, c, 4));
  ck_assert(c[0] == 2 && c[1] == -4 && c[2] == 6 && c[3] == 2);
  close_fixture(&f);
  free(data);
}
END_TEST

START_TEST(kernel_failure_is_reported) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.export_ordinal = 1; /* fail_if_negative */
  o.n = 200;
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  fixture_t f;
  open_fixture(&f, _i ? KILN_TEST_LOCAL_TASK : "local-sync", data, size);
  float a[200], b[200], c[200];
  for (int i = 0; i < 200; ++i) a[i] = b[i] = 1;
  OK(mul(&f, a, b, c, 200));
  a[150] = -1; /* workgroup 2 */
  expect_error(mul(&f, a, b, c, 200), KILN_STATUS_ABORTED,
               "kernel 'fail_if_negative' returned 7 at workgroup (2, 0, 0)",
               "in function 'simple_mul'", (char *)NULL);
  close_fixture(&f);
  free(data);
}
END_TEST

START_TEST(variant_selection_errors) {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", NULL, &dev));
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.variant_arch = "aarch64"; /* a foreign-architecture variant only */
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  /* The payload is an x86-64 ELF: the loader catches the lie. */
  expect_error(kiln_module_load_memory(inst, data, size, &m),
               KILN_STATUS_DATA_LOSS, "declared arch 'aarch64'",
               "holds an x86_64 ELF", (char *)NULL);
  free(data);
  /* A feature this host lacks (or an unknown one) is no fit either. */
  kiln_handmade_default_options(&o);
  o.variant_features = "+kiln-imaginary-feature";
  data = rt_handmade(&o, &size);
  OK(kiln_module_load_memory(inst, data, size, &m));
  expect_error(kiln_module_prepare(m, dev), KILN_STATUS_INCOMPATIBLE,
               "has no variant device local-sync can run",
               "the device offers x86_64", "the module holds 'x86_64'",
               "+kiln-imaginary-feature", (char *)NULL);
  kiln_module_release(m);
  free(data);
  kiln_device_release(dev);
  kiln_instance_release(inst);
}
END_TEST

START_TEST(version_and_import_mismatches) {
  kiln_instance_t *inst;
  kiln_module_t *m;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.bytecode_version = KILN_VM_BYTECODE_VERSION + 1;
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  expect_error(kiln_module_load_memory(inst, data, size, &m),
               KILN_STATUS_INCOMPATIBLE, "bytecode version 2",
               "runs version 1", (char *)NULL);
  free(data);
  kiln_handmade_default_options(&o);
  o.allocate_signature = "i_r";
  data = rt_handmade(&o, &size);
  expect_error(kiln_module_load_memory(inst, data, size, &m),
               KILN_STATUS_INCOMPATIBLE, "import 'hal.buffer.allocate'",
               "module expects signature \"i_r\"",
               "runtime provides \"I_r\"", (char *)NULL);
  free(data);
  /* Format version: patch Module.format_version in place. */
  data = rt_handmade(NULL, &size);
  kiln_module_view_t view;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&view, data, size, &err));
  const uint8_t *field = kiln_fb_field(view.root.p, 0);
  ck_assert_ptr_nonnull(field);
  const uint32_t bad = 99;
  memcpy(data + (field - data), &bad, 4);
  expect_error(kiln_module_load_memory(inst, data, size, &m), KILN_STATUS_INCOMPATIBLE,
               "module format version 99 is newer than this reader (Kiln " KILN_VERSION
               ", format versions 1 to 3)",
               "run it with a Kiln runtime at least as new as that compiler",
               "or recompile the model with kiln-compile " KILN_VERSION, (char *)NULL);
  free(data);
  kiln_instance_release(inst);
}
END_TEST

static kiln_status_t scale(kiln_device_t *dev, kiln_function_t fn,
                           const float *a, float *c) {
  int64_t n = 4;
  kiln_buffer_view_t *in = NULL, *out = NULL;
  kiln_status_t s =
      kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, a, 16, &in);
  if (!s) s = kiln_function_call(fn, dev, &in, 1, &out, 1);
  if (!s) s = kiln_buffer_view_read(out, c, 16);
  kiln_buffer_view_release(in);
  kiln_buffer_view_release(out);
  return s;
}

START_TEST(weights_from_rodata_in_place) {
  static const float w[4] = {0.5f, 2, 3, -1};
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.rodata_b = w;
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  ck_assert_ptr_nonnull(data);
  /* From a file: the weights are read from the mapping. */
  char path[] = "/tmp/kiln_rodata_XXXXXX";
  const int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
  close(fd);
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  kiln_function_t fn;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, _i ? KILN_TEST_LOCAL_TASK : "local-sync", NULL, &dev));
  OK(kiln_module_load_file(inst, path, &m));
  unlink(path);
  OK(kiln_module_lookup_function(m, "simple_mul", &fn));
  ck_assert_uint_eq(kiln_function_input_count(fn), 1);
  const float a[4] = {1, 2, 3, 4};
  float c[4];
  OK(scale(dev, fn, a, c));
  ck_assert(c[0] == 0.5f && c[1] == 4 && c[2] == 9 && c[3] == -4);
  OK(kiln_module_check_hashes(m));
  kiln_module_release(m);
  /* A corrupted weight byte: loading checks structure only and accepts it
   * (the call computes with the wrong weight); kiln_module_check_hashes
   * finds it. */
  kiln_module_view_t view;
  kiln_format_error_t err;
  ck_assert(kiln_module_view_open(&view, data, size, &err));
  kiln_fb_Rodata_t r0 = kiln_fb_Module_rodata_at(view.root, 0);
  uint64_t wsize;
  const uint8_t *wbytes = kiln_module_segment_data(
      &view, kiln_fb_Rodata_segment(r0), &wsize);
  ck_assert(wsize == sizeof w && memcmp(wbytes, w, sizeof w) == 0);
  data[(size_t)(wbytes - data) + 3] ^= 0x7f; /* 0.5f -> 2.0f */
  OK(kiln_module_load_memory(inst, data, size, &m));
  OK(kiln_module_lookup_function(m, "simple_mul", &fn));
  OK(scale(dev, fn, a, c));
  ck_assert(c[0] == 2.0f && c[1] == 4);
  expect_error(kiln_module_check_hashes(m), KILN_STATUS_DATA_LOSS,
               "content hash", (char *)NULL);
  kiln_module_release(m);
  free(data);
  /* A kernel may not write module data. */
  o.write_rodata = true;
  data = rt_handmade(&o, &size);
  OK(kiln_module_load_memory(inst, data, size, &m));
  OK(kiln_module_lookup_function(m, "simple_mul", &fn));
  expect_error(scale(dev, fn, a, c), KILN_STATUS_INVALID_ARGUMENT,
               "'simple_mul' binding 2 writes to read-only module data",
               (char *)NULL);
  kiln_module_release(m);
  free(data);
  kiln_device_release(dev);
  kiln_instance_release(inst);
}
END_TEST

START_TEST(grid_spends_the_step_budget) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.n = 1000; /* 16 workgroups of 64 */
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  fixture_t f;
  memset(&f, 0, sizeof f);
  OK(kiln_instance_create(kiln_allocator_system(), &f.inst));
  const kiln_device_options_t opts = {.max_steps = 10};
  OK(kiln_device_create(f.inst, "local-sync", &opts, &f.dev));
  OK(kiln_module_load_memory(f.inst, data, size, &f.mod));
  OK(kiln_module_lookup_function(f.mod, "simple_mul", &f.fn));
  static float a[1000], b[1000], c[1000];
  expect_error(mul(&f, a, b, c, 1000), KILN_STATUS_RESOURCE_EXHAUSTED,
               "'simple_mul': a 16x1x1 grid exceeds the call's step budget",
               (char *)NULL);
  close_fixture(&f);
  free(data);
}
END_TEST

/* Runs the transfer module on `device`; c receives 8 floats. */
static kiln_status_t transfer(const char *device, int64_t fill, int64_t copy,
                              float *c) {
  size_t size;
  uint8_t *data = rt_transfer_module(fill, copy, &size);
  ck_assert_ptr_nonnull(data);
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_buffer_view_t *in = NULL, *out = NULL;
  kiln_function_t fn;
  const float a[4] = {5, 6, 7, 8};
  int64_t n = 4;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  if (!s) s = kiln_device_create(inst, device, NULL, &dev);
  if (!s) s = kiln_module_load_memory(inst, data, size, &m);
  if (!s) s = kiln_module_lookup_function(m, "f", &fn);
  if (!s) s = kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, a, 16, &in);
  if (!s) s = kiln_function_call(fn, dev, &in, 1, &out, 1);
  if (!s) s = kiln_buffer_view_read(out, c, 32);
  kiln_buffer_view_release(in);
  kiln_buffer_view_release(out);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
  return s;
}

START_TEST(copy_and_fill_commands) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  float c[8];
#ifdef KILN_TEST_NO_TRANSFERS
  /* Built without transfers: a module importing them does not load. */
  expect_error(transfer(devices[_i], 16, 16, c), KILN_STATUS_INCOMPATIBLE,
               "import 'hal.command_buffer.fill' is not provided by this "
               "runtime", (char *)NULL);
  return;
#endif
  OK(transfer(devices[_i], 16, 16, c));
  for (int i = 0; i < 4; ++i) ck_assert(c[i] == 1.0f && c[4 + i] == 5 + i);
  OK(transfer(devices[_i], 8, 8, c));
  ck_assert(c[0] == 1 && c[1] == 1 && c[2] == 0 && c[3] == 0);
  ck_assert(c[4] == 5 && c[5] == 6 && c[6] == 0 && c[7] == 0);
  expect_error(transfer(devices[_i], 6, 16, c), KILN_STATUS_INVALID_ARGUMENT,
               "hal.command_buffer.fill: fill: offset 0 and length 6 must be "
               "multiples of 4", (char *)NULL);
  expect_error(transfer(devices[_i], 16, 20, c), KILN_STATUS_OUT_OF_RANGE,
               "copy source: range 0+20 outside the 16-byte buffer",
               (char *)NULL);
  expect_error(transfer(devices[_i], 40, 16, c), KILN_STATUS_OUT_OF_RANGE,
               "fill target: range 0+40 outside the 32-byte buffer",
               (char *)NULL);
}
END_TEST

/* Runs the list module on `device` with a = {1, 2, 3}, b = {4, 5}; *got
 * receives the length of the element returned and first its values (3
 * floats at most), sizes
 * the sizes of l1, l2, l3. */
static kiln_status_t list_run(const char *device, int64_t ins, int64_t erase,
                              int64_t get, int mode, int64_t *got,
                              float *first, int64_t sizes[3]) {
  size_t size;
  uint8_t *data = rt_list_module(ins, erase, get, mode, &size);
  ck_assert_ptr_nonnull(data);
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_buffer_view_t *in[2] = {NULL, NULL}, *out[2] = {NULL, NULL};
  kiln_function_t fn;
  const float a[3] = {1, 2, 3}, b[2] = {4, 5};
  const int64_t na = 3, nb = 2;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  if (!s) s = kiln_device_create(inst, device, NULL, &dev);
  if (!s) s = kiln_module_load_memory(inst, data, size, &m);
  if (!s) s = kiln_module_lookup_function(m, "f", &fn);
  if (!s) s = kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &na, a, 12, &in[0]);
  if (!s) s = kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &nb, b, 8, &in[1]);
  if (!s) s = kiln_function_call(fn, dev, in, 2, out, 2);
  if (!s) {
    *got = kiln_buffer_view_dim(out[0], 0);
    s = kiln_buffer_view_read(out[0], first, (size_t)*got * 4);
    for (int i = 0; i < 3; ++i) sizes[i] = kiln_buffer_view_dim(out[1], 1 + i);
  }
  for (int i = 0; i < 2; ++i) {
    kiln_buffer_view_release(in[i]);
    kiln_buffer_view_release(out[i]);
  }
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
  return s;
}

START_TEST(list_imports) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  const char *d = devices[_i];
  int64_t n = 0, sizes[3];
  float v[3] = {0}, *x = v;
#ifdef KILN_TEST_NO_SEQUENCES
  /* Built without sequences: a module importing them does not load. */
  expect_error(list_run(d, 0, 0, 0, 0, &n, x, sizes), KILN_STATUS_INCOMPATIBLE,
               "import 'hal.list.create' is not provided by this runtime",
               (char *)NULL);
  return;
#endif
  /* l2 = [b, a], l3 = [a]: inserting and erasing left l1 and l2 alone. */
  OK(list_run(d, 0, 0, 0, 0, &n, x, sizes));
  ck_assert(n == 3 && v[0] == 1 && v[2] == 3);
  ck_assert(sizes[0] == 1 && sizes[1] == 2 && sizes[2] == 1);
  /* l2 = [a, b] (1 appends), l3 = [b]; get -1 is the last. */
  OK(list_run(d, 1, 0, -1, 0, &n, x, sizes));
  ck_assert(n == 2 && v[0] == 4 && v[1] == 5);
  /* Negative positions count from the end: -1 inserts before the last
   * (l2 = [b, a]), erase -1 drops it (l3 = [b]). */
  OK(list_run(d, -1, -1, 0, 0, &n, x, sizes));
  ck_assert(n == 2 && v[0] == 4 && v[1] == 5);
  ck_assert(sizes[0] == 1 && sizes[1] == 2 && sizes[2] == 1);
  expect_error(list_run(d, 2, 0, 0, 0, &n, x, sizes), KILN_STATUS_OUT_OF_RANGE,
               "hal.list.insert: position 2 is out of range for a sequence "
               "of 1 (-1 to 1)", (char *)NULL);
  expect_error(list_run(d, 0, 2, 0, 0, &n, x, sizes), KILN_STATUS_OUT_OF_RANGE,
               "hal.list.erase: position 2 is out of range for a sequence "
               "of 2 (-2 to 1)", (char *)NULL);
  expect_error(list_run(d, 0, -3, 0, 0, &n, x, sizes), KILN_STATUS_OUT_OF_RANGE,
               "hal.list.erase: position -3 is out of range", (char *)NULL);
  expect_error(list_run(d, 0, 0, 1, 0, &n, x, sizes), KILN_STATUS_OUT_OF_RANGE,
               "hal.list.get: position 1 is out of range for a sequence of 1 "
               "(-1 to 0)", (char *)NULL);
  expect_error(list_run(d, 0, 0, -2, 0, &n, x, sizes), KILN_STATUS_OUT_OF_RANGE,
               "hal.list.get: position -2 is out of range", (char *)NULL);
  expect_error(list_run(d, 0, 0, 0, 1, &n, x, sizes), KILN_STATUS_INVALID_ARGUMENT,
               "hal.list.get: argument 0: expected a sequence (list), got "
               "buffer_view", (char *)NULL);
  expect_error(list_run(d, 0, 0, 0, 2, &n, x, sizes), KILN_STATUS_INVALID_ARGUMENT,
               "function 'f' returned a wrong type: output 0: expected "
               "tensor<?xf32>, got a sequence", (char *)NULL);
}
END_TEST

#ifndef KILN_TEST_NO_SEQUENCES
/* A f32 view of n values from v on dev. */
static kiln_buffer_view_t *f32_view(kiln_device_t *dev, const float *v,
                                    int64_t n) {
  kiln_buffer_view_t *out = NULL;
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, v,
                                (uint64_t)n * 4, &out));
  return out;
}

START_TEST(sequence_values_at_the_boundary) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  size_t size;
  uint8_t *data = rt_sequence_module(&size);
  ck_assert_ptr_nonnull(data);
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_function_t fn;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, devices[_i], NULL, &dev));
  OK(kiln_module_load_memory(inst, data, size, &m));
  OK(kiln_module_lookup_function(m, "f", &fn));
  char sig[128];
  kiln_function_signature_format(fn, sig, sizeof sig);
  ck_assert_str_eq(sig, "(seq<tensor<?xf32>>, tensor<?xf32>) -> "
                        "(seq<tensor<?xf32>>, tensor<?xf32>)");
  ck_assert(kiln_function_input_is_sequence(fn, 0) &&
            !kiln_function_input_is_sequence(fn, 1) &&
            kiln_function_output_is_sequence(fn, 0) &&
            !kiln_function_output_is_sequence(fn, 1) &&
            !kiln_function_input_is_sequence(fn, 2));

  const float av[3] = {1, 2, 3}, bv[2] = {4, 5};
  const int32_t iv[2] = {7, 8};
  const int64_t two = 2;
  kiln_buffer_view_t *a = f32_view(dev, av, 3), *b = f32_view(dev, bv, 2), *iw;
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_I32, 1, &two, iv, 8, &iw));
  kiln_sequence_t *s, *empty;
  OK(kiln_sequence_create(dev, &a, 1, &s));
  OK(kiln_sequence_create(dev, NULL, 0, &empty));
  kiln_call_value_t in[2] = {{NULL, s}, {b, NULL}}, out[2];
  OK(kiln_function_call_values(fn, dev, in, 2, out, 2));
  /* [a] + b: a new sequence of 2, different shapes; s is unchanged. */
  ck_assert(out[0].sequence && !out[0].view && out[1].view && !out[1].sequence);
  ck_assert_uint_eq(kiln_sequence_size(out[0].sequence), 2);
  ck_assert_uint_eq(kiln_sequence_size(s), 1);
  ck_assert_ptr_null(kiln_sequence_at(out[0].sequence, 2));
  float got[3];
  OK(kiln_buffer_view_read(kiln_sequence_at(out[0].sequence, 1), got, 8));
  ck_assert(got[0] == 4 && got[1] == 5);
  OK(kiln_buffer_view_read(out[1].view, got, 12));
  ck_assert(got[0] == 1 && got[2] == 3);
  kiln_sequence_release(out[0].sequence);
  kiln_buffer_view_release(out[1].view);
  /* From an empty sequence: [b], whose element 0 is b. */
  in[0].sequence = empty;
  OK(kiln_function_call_values(fn, dev, in, 2, out, 2));
  ck_assert_uint_eq(kiln_sequence_size(out[0].sequence), 1);
  ck_assert_int_eq(kiln_buffer_view_dim(out[1].view, 0), 2);
  kiln_sequence_release(out[0].sequence);
  kiln_buffer_view_release(out[1].view);

  /* Wrong kinds and element types are named. */
  kiln_buffer_view_t *views[2] = {a, b}, *outs[2];
  expect_error(kiln_function_call(fn, dev, views, 2, outs, 2),
               KILN_STATUS_INVALID_ARGUMENT,
               "function 'f' takes or returns sequences: call it with "
               "kiln_function_call_values", (char *)NULL);
  kiln_call_value_t bad[2] = {{a, NULL}, {b, NULL}};
  expect_error(kiln_function_call_values(fn, dev, bad, 2, out, 2),
               KILN_STATUS_INVALID_ARGUMENT,
               "function 'f': input 0: expected seq<tensor<?xf32>>, got a "
               "tensor", (char *)NULL);
  bad[0].view = NULL, bad[0].sequence = s, bad[1].view = NULL, bad[1].sequence = s;
  expect_error(kiln_function_call_values(fn, dev, bad, 2, out, 2),
               KILN_STATUS_INVALID_ARGUMENT,
               "function 'f': input 1: expected tensor<?xf32>, got a "
               "sequence", (char *)NULL);
  bad[1].view = b;
  expect_error(kiln_function_call_values(fn, dev, bad, 2, out, 2),
               KILN_STATUS_INVALID_ARGUMENT, "input 1: set one of view and "
               "sequence", (char *)NULL);
  kiln_sequence_t *wrong;
  kiln_buffer_view_t *mixed[2] = {a, iw};
  OK(kiln_sequence_create(dev, mixed, 2, &wrong));
  kiln_call_value_t w[2] = {{NULL, wrong}, {b, NULL}};
  expect_error(kiln_function_call_values(fn, dev, w, 2, out, 2),
               KILN_STATUS_INVALID_ARGUMENT,
               "function 'f': input 0 element 1: expected tensor<?xf32>, got "
               "tensor<2xi32>", (char *)NULL);
  ck_assert(!out[0].view && !out[0].sequence);
  kiln_buffer_view_t *holes[2] = {a, NULL};
  expect_error(kiln_sequence_create(dev, holes, 2, &wrong),
               KILN_STATUS_INVALID_ARGUMENT, "sequence element 1 is missing",
               (char *)NULL);

  kiln_sequence_release(w[0].sequence);
  kiln_sequence_release(s);
  kiln_sequence_release(empty);
  kiln_buffer_view_release(a);
  kiln_buffer_view_release(b);
  kiln_buffer_view_release(iw);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
}
END_TEST
#endif

/* ---- counting allocator: every allocation is freed ------------------------ */

typedef struct counting {
  long allocs, frees;
} counting_t;

static void *count_alloc(void *self, size_t size, size_t align) {
  counting_t *c = self;
  void *p = kiln_allocator_system().alloc(NULL, size, align);
  if (p) __atomic_add_fetch(&c->allocs, 1, __ATOMIC_RELAXED);
  return p;
}
static void count_free(void *self, void *p) {
  counting_t *c = self;
  __atomic_add_fetch(&c->frees, 1, __ATOMIC_RELAXED);
  free(p);
}

START_TEST(caller_allocator_balances) {
  counting_t c = {0, 0};
  kiln_allocator_t a = {&c, count_alloc, count_free};
  size_t size;
  uint8_t *data = rt_handmade(NULL, &size);
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  kiln_function_t fn;
  OK(kiln_instance_create(a, &inst));
  OK(kiln_device_create(inst, KILN_TEST_LOCAL_TASK, NULL, &dev));
  OK(kiln_module_load_memory(inst, data, size, &m));
  OK(kiln_module_lookup_function(m, "simple_mul", &fn));
  int64_t n = 4;
  float x[4] = {1, 2, 3, 4}, y[4];
  kiln_buffer_view_t *in[2], *out;
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, x, 16, &in[0]));
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, x, 16, &in[1]));
  for (int i = 0; i < 3; ++i) {
    OK(kiln_function_call(fn, dev, in, 2, &out, 1));
    OK(kiln_buffer_view_read(out, y, 16));
    ck_assert(y[3] == 16);
    kiln_buffer_view_release(out);
  }
  /* Errors are allocated with it too, and freed by kiln_status_free. */
  expect_error(kiln_function_call(fn, dev, in, 1, &out, 1),
               KILN_STATUS_INVALID_ARGUMENT, "takes 2 inputs", (char *)NULL);
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  ck_assert_int_gt(c.allocs, 10);
  ck_assert_int_eq(c.allocs, c.frees);
  free(data);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_ASAN 1
#endif
#endif
#ifndef KILN_TEST_ASAN
#define KILN_TEST_ASAN 0
#endif

/* In steady state a call takes nothing from the allocator and touches no
 * new page: buffers, views, command buffers and the VM stack come back
 * from the device's pool (outputs once the caller releases them). */
START_TEST(steady_state_calls_allocate_nothing) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  counting_t c = {0, 0};
  kiln_allocator_t a = {&c, count_alloc, count_free};
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.n = 1000; /* 16 workgroups: local-task's workers take part */
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  kiln_function_t fn;
  OK(kiln_instance_create(a, &inst));
  OK(kiln_device_create(inst, devices[_i], NULL, &dev));
  OK(kiln_module_load_memory(inst, data, size, &m));
  OK(kiln_module_lookup_function(m, "simple_mul", &fn));
  int64_t n = 1000;
  static float x[1000], y[1000];
  for (int i = 0; i < 1000; ++i) x[i] = (float)i;
  kiln_buffer_view_t *in[2], *out;
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, x, 4000, &in[0]));
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, x, 4000, &in[1]));
  for (int i = 0; i < 2; ++i) { /* the first calls fill the pool */
    OK(kiln_function_call(fn, dev, in, 2, &out, 1));
    OK(kiln_buffer_view_read(out, y, sizeof y));
    kiln_buffer_view_release(out);
  }
  /* Windows of 100 calls: none may allocate, and one of at most 5 must
   * fault no page. Only one: the kernel may fault pages Kiln touched long
   * ago (NUMA-balancing hinting faults, THP collapse or compaction
   * migrating a page) in any process at any time, while a call that itself
   * touched new memory (a fresh allocation, a buffer first used late, a
   * worker first meeting a deep stack) faults in every window. */
  long faults = -1;
  for (int w = 0; w < 5 && faults != 0; ++w) {
    const long allocs = c.allocs;
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (int i = 0; i < 100; ++i) {
      OK(kiln_function_call(fn, dev, in, 2, &out, 1));
      OK(kiln_buffer_view_read(out, y, sizeof y));
      kiln_buffer_view_release(out);
    }
    getrusage(RUSAGE_SELF, &after);
    ck_assert(y[999] == 999.0f * 999.0f);
    ck_assert_int_eq(c.allocs - allocs, 0);
    faults = after.ru_minflt - before.ru_minflt;
  }
  /* Under AddressSanitizer its allocator, shadow memory and fake stacks
   * fault pages of their own, not Kiln's. */
#if KILN_TEST_ASAN
  if (_i == 0) printf("note: page faults per call not checked under AddressSanitizer\n");
#else
  ck_assert_int_eq(faults, 0);
#endif
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  ck_assert_int_eq(c.allocs, c.frees);
  free(data);
}
END_TEST

/* Fresh pool blocks of 2 MiB and more are faulted in by chunks (huge-page
 * trials on the caller, the rest in pieces over local-task's threads) and
 * zeroed chunk by chunk: every byte of a new buffer must read 0 although
 * the allocator hands out nonzero memory, at sizes whose last chunk is
 * whole, at least KRT_HUGE_TAIL (256 KiB) or shorter, and again from the
 * pool after a buffer of the same class was dirtied and released. A few
 * MiB each: the chunk and piece boundaries, not the size, are the test.
 * Which way each chunk goes is measured (allocator.c), so where the runtime
 * has huge pages the costs are set before each block to steer it each way:
 * all in huge-page trials, one trial then a chunk of 4 KiB pages (then as
 * measured), all in 4 KiB pages.
 * Weak: the runtime without huge pages has no krt_page_costs_set. */
void krt_page_costs_set(uint32_t huge_us, uint32_t small_us, uint32_t spread_x16)
    __attribute__((weak));
static void *poison_alloc(void *self, size_t size, size_t align) {
  (void)self;
  void *p = kiln_allocator_system().alloc(NULL, size, align);
  if (p) memset(p, 0x5a, size);
  return p;
}
static void poison_free(void *self, void *p) {
  (void)self;
  kiln_allocator_system().free(NULL, p);
}

START_TEST(big_buffers_are_zeroed) {
  /* local-sync with its helper (4 KiB pages over two threads), then alone
   * (huge-page trials on the caller) */
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK, "local-sync"};
  static const uint64_t sizes[] = {(4u << 20) - 64, (4u << 20) + (100u << 10),
                                   (6u << 20) + (300u << 10) + 12, (2u << 20) + 1};
  /* {huge, 4 KiB} us per 2 MiB: any trial is cheaper; the first trial
   * (over 1 us) is dearer; trials are dearer than 4 KiB pages from the
   * start. */
  static const uint32_t costs[][2] = {{1, 4000000000u}, {1, 1}, {4000000000u, 1}};
  kiln_allocator_t a = {NULL, poison_alloc, poison_free};
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = _i == 2 ? 1 : 2;
  uint8_t *host = malloc((7u << 20) + (300u << 10) + 12);
  ck_assert_ptr_nonnull(host);
  for (int way = 0; way < (krt_page_costs_set ? 3 : 1); ++way) {
    kiln_instance_t *inst; /* a device each: fresh blocks, not the last way's */
    kiln_device_t *dev;
    OK(kiln_instance_create(a, &inst));
    OK(kiln_device_create(inst, devices[_i], &opts, &dev));
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k)
      for (int round = 0; round < 2; ++round) { /* fresh, then from the pool */
        kiln_buffer_t *buf;
        if (krt_page_costs_set) krt_page_costs_set(costs[way][0], costs[way][1], 16);
        OK(kiln_buffer_allocate(dev, sizes[k], &buf));
        OK(kiln_buffer_read(buf, 0, host, sizes[k]));
        uint64_t i = 0; /* (one check per buffer: ck_assert marks each call) */
        while (i < sizes[k] && host[i] == 0) ++i;
        ck_assert_msg(i == sizes[k], "%s, %u threads, way %d: byte %llu of %llu (round %d) is %u",
                      devices[_i], opts.worker_count, way, (unsigned long long)i,
                      (unsigned long long)sizes[k], round, i < sizes[k] ? host[i] : 0);
        memset(host, 0xa5, sizes[k]);
        OK(kiln_buffer_write(buf, 0, host, sizes[k]));
        kiln_buffer_release(buf);
      }
    kiln_device_release(dev);
    kiln_instance_release(inst);
  }
  free(host);
}
END_TEST

/* Threads in this process (/proc/self/status), -1 when unreadable. */
static int process_threads(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  int n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Threads: %d", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

/* local-sync runs workgroups on the caller and by default (worker_count 0
 * or 1) starts no thread; with worker_count 2, where more than one core is
 * online, one helper thread faults fresh per-call memory in beside it
 * (runtime.h). The helper lives as long as the device. */
START_TEST(local_sync_helper_thread) {
  const int before = process_threads();
  ck_assert_int_gt(before, 0);
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  opts.worker_count = (uint32_t)_i; /* 0, 1, 2 */
  const bool helper = _i == 2 && sysconf(_SC_NPROCESSORS_ONLN) > 1 &&
                      strcmp(KILN_TEST_LOCAL_TASK, "local-task") == 0;
  kiln_instance_t *inst;
  kiln_device_t *dev;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", &opts, &dev));
  ck_assert_int_eq(process_threads(), before + helper);
  kiln_buffer_t *buf;
  OK(kiln_buffer_allocate(dev, (6u << 20) + 12, &buf));
  kiln_buffer_release(buf);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  ck_assert_int_eq(process_threads(), before);
}
END_TEST

START_TEST(buffer_view_bounds) {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_buffer_t *buf;
  kiln_buffer_view_t *v;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", NULL, &dev));
  OK(kiln_buffer_allocate(dev, 16, &buf));
  int64_t dims[2] = {2, 2};
  OK(kiln_buffer_view_create(buf, 0, KILN_ELEMENT_F32, 2, dims, &v));
  ck_assert_uint_eq(kiln_buffer_view_byte_length(v), 16);
  kiln_buffer_view_release(v);
  expect_error(kiln_buffer_view_create(buf, 4, KILN_ELEMENT_F32, 2, dims, &v),
               KILN_STATUS_OUT_OF_RANGE, "exceeds the 16-byte buffer",
               (char *)NULL);
  int64_t huge[2] = {INT64_MAX, 4};
  expect_error(kiln_buffer_view_create(buf, 0, KILN_ELEMENT_F32, 2, huge, &v),
               KILN_STATUS_INVALID_ARGUMENT, "overflows", (char *)NULL);
  int64_t neg[1] = {-3};
  expect_error(kiln_buffer_view_create(buf, 0, KILN_ELEMENT_F32, 1, neg, &v),
               KILN_STATUS_INVALID_ARGUMENT, "negative", (char *)NULL);
  char tmp[8];
  expect_error(kiln_buffer_read(buf, 12, tmp, 8), KILN_STATUS_OUT_OF_RANGE,
               "12+8", (char *)NULL);
  kiln_buffer_release(buf);
  kiln_device_release(dev);
  kiln_instance_release(inst);
}
END_TEST

/* str views (runtime.h's layout: count+1 u32 offsets, then UTF-8): a
 * good layout is accepted with its exact byte length, and every way a
 * layout can be wrong is a named error, never a read past the bytes. */
START_TEST(str_view_layout_checks) {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_buffer_view_t *v;
  OK(kiln_instance_create(kiln_allocator_system(), &inst));
  OK(kiln_device_create(inst, "local-sync", NULL, &dev));
#ifdef KILN_TEST_NO_TEXT /* KILN_RUNTIME_TEXT=OFF: str views are refused */
  int64_t one = 1;
  uint8_t empty[8] = {0};
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &one, empty, 8, &v),
               KILN_STATUS_INVALID_ARGUMENT, (char *)NULL);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  return;
#endif
  /* ["ab", "", "\xc3\xa9"] */
  uint8_t good[12 + 4 + 4] = {0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 4, 0, 0, 0,
                              'a', 'b', 0xc3, 0xa9};
  int64_t n = 3;
  OK(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, good, sizeof good, &v));
  ck_assert_uint_eq(kiln_buffer_view_byte_length(v), sizeof good);
  ck_assert_int_eq(kiln_buffer_view_element_type(v), KILN_ELEMENT_STR);
  uint8_t back[sizeof good];
  OK(kiln_buffer_view_read(v, back, sizeof back));
  ck_assert(memcmp(back, good, sizeof good) == 0);
  kiln_buffer_view_release(v);
  ck_assert_str_eq(kiln_element_type_name(KILN_ELEMENT_STR), "str");
  ck_assert_int_eq(kiln_element_type_parse("str", 3), KILN_ELEMENT_STR);
  /* too short for 3+1 offsets */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, good, 12, &v),
               KILN_STATUS_INVALID_ARGUMENT, "too short", (char *)NULL);
  /* the last string cut short */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, good, sizeof good - 1, &v),
               KILN_STATUS_INVALID_ARGUMENT, "past its bytes", (char *)NULL);
  uint8_t bad[sizeof good];
  memcpy(bad, good, sizeof bad);
  bad[0] = 1; /* first offset not 0 */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, bad, sizeof bad, &v),
               KILN_STATUS_INVALID_ARGUMENT, "not ascending", "element 0", (char *)NULL);
  memcpy(bad, good, sizeof bad);
  bad[8] = 1; /* offsets 0, 2, 1: descending */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, bad, sizeof bad, &v),
               KILN_STATUS_INVALID_ARGUMENT, "not ascending", "element 1", (char *)NULL);
  memcpy(bad, good, sizeof bad);
  bad[12] = 0xff, bad[13] = 0xff, bad[14] = 0xff, bad[15] = 0xff; /* huge last offset */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, bad, sizeof bad, &v),
               KILN_STATUS_INVALID_ARGUMENT, "past its bytes", (char *)NULL);
  memcpy(bad, good, sizeof bad);
  bad[19] = 0x41; /* a lead byte without its continuation */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, bad, sizeof bad, &v),
               KILN_STATUS_INVALID_ARGUMENT, "not UTF-8", "element 2", (char *)NULL);
  memcpy(bad, good, sizeof bad);
  bad[18] = 0xc0, bad[19] = 0x80; /* overlong NUL */
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &n, bad, sizeof bad, &v),
               KILN_STATUS_INVALID_ARGUMENT, "not UTF-8", (char *)NULL);
  int64_t huge = INT64_MAX;
  expect_error(kiln_buffer_view_from_host(dev, KILN_ELEMENT_STR, 1, &huge, good, sizeof good, &v),
               KILN_STATUS_INVALID_ARGUMENT, "too short", (char *)NULL);
  /* a view over a device buffer checks the same way, from its offset */
  kiln_buffer_t *buf;
  OK(kiln_buffer_allocate(dev, 4 + sizeof good, &buf));
  OK(kiln_buffer_write(buf, 4, good, sizeof good));
  OK(kiln_buffer_view_create(buf, 4, KILN_ELEMENT_STR, 1, &n, &v));
  kiln_buffer_view_release(v);
  expect_error(kiln_buffer_view_create(buf, 1, KILN_ELEMENT_STR, 1, &n, &v),
               KILN_STATUS_INVALID_ARGUMENT, "str tensor of 3 elements", "past its bytes",
               (char *)NULL);
  expect_error(kiln_buffer_view_create(buf, 64, KILN_ELEMENT_STR, 1, &n, &v),
               KILN_STATUS_OUT_OF_RANGE, "offset 64", (char *)NULL);
  kiln_buffer_release(buf);
  kiln_device_release(dev);
  kiln_instance_release(inst);
}
END_TEST

Suite *runtime_api_suite(void);
Suite *runtime_api_suite(void) {
  Suite *s = suite_create("runtime_api");
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, status_and_types);
  tcase_add_loop_test(tc, call_handmade_on_local_devices, 0, 2);
  tcase_add_loop_test(tc, dispatch_observer_sees_each_dispatch, 0, 2);
  tcase_add_test(tc, load_from_file_and_prepare);
  tcase_add_test(tc, zstd_compressed_kernel_runs);
  tcase_add_loop_test(tc, kernel_failure_is_reported, 0, 2);
  tcase_add_test(tc, variant_selection_errors);
  tcase_add_test(tc, version_and_import_mismatches);
  tcase_add_loop_test(tc, weights_from_rodata_in_place, 0, 2);
  tcase_add_test(tc, grid_spends_the_step_budget);
  tcase_add_loop_test(tc, copy_and_fill_commands, 0, 2);
  tcase_add_loop_test(tc, list_imports, 0, 2);
#ifndef KILN_TEST_NO_SEQUENCES
  tcase_add_loop_test(tc, sequence_values_at_the_boundary, 0, 2);
#endif
  tcase_add_test(tc, caller_allocator_balances);
  tcase_add_loop_test(tc, steady_state_calls_allocate_nothing, 0, 2);
  tcase_add_loop_test(tc, big_buffers_are_zeroed, 0, 3);
  tcase_add_loop_test(tc, local_sync_helper_thread, 0, 3);
  tcase_add_test(tc, buffer_view_bounds);
  tcase_add_test(tc, str_view_layout_checks);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(runtime_api_suite());
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
