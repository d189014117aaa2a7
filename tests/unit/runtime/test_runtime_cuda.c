/* The cuda device against libfakecuda (tests/unit/runtime_cuda), which keeps
 * "device" memory on the host, logs every driver call, and executes an
 * entry named add_f32: data makes the whole round trip (upload, launch
 * with bindings then push constants, download), the PTX variant is picked
 * by SM version, the JIT's error log reaches the message, and a missing
 * driver or GPU is a clear error. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_testkit.h"

static const char good_ptx[] =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry add_f32(.param .u64 a, .param .u64 b, .param .u64 c, "
    ".param .u32 n)\n{\n ret;\n}\n"
    ".visible .entry fail_if_negative(.param .u64 a, .param .u64 b, "
    ".param .u64 c, .param .u32 n)\n{\n ret;\n}\n";
static const char bad_ptx[] =
    ".version 8.0\n.target sm_80\n.visible .entry add_f32()\n{\n"
    " bogus.op;\n}\n";

static char log_path[] = "/tmp/kiln_fake_cuda_log_XXXXXX";

static void setup(void) {
  const int fd = mkstemp(log_path);
  ck_assert_int_ge(fd, 0);
  close(fd);
  setenv("KILN_CUDA_LIBRARY", FAKE_CUDA_PATH, 1);
  setenv("KILN_FAKE_CUDA_LOG", log_path, 1);
  unsetenv("KILN_FAKE_CUDA_DEVICES");
}
static void teardown(void) {
  unlink(log_path);
  memcpy(log_path + strlen(log_path) - 6, "XXXXXX", 6);
}

static char *read_log(void) {
  uint8_t *data;
  size_t size;
  ck_assert(kiln_handmade_read_file(log_path, &data, &size));
  char *text = realloc(data, size + 1);
  text[size] = 0;
  return text;
}

static kiln_status_t transfer_on_cuda(float *c) {
  size_t size;
  uint8_t *data = rt_transfer_module(16, 16, &size);
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_buffer_view_t *in = NULL, *out = NULL;
  kiln_function_t fn;
  const float a[4] = {5, 6, 7, 8};
  int64_t n = 4;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  if (!s) s = kiln_device_create(inst, "cuda", NULL, &dev);
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

static kiln_status_t run(const kiln_handmade_options_t *o, float *c) {
  size_t size;
  uint8_t *data = rt_handmade(o, &size);
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_function_t fn;
  kiln_buffer_view_t *in[2] = {0}, *out = NULL;
  const float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40};
  int64_t n = 4;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  if (!s) s = kiln_device_create(inst, "cuda", NULL, &dev);
  if (!s) s = kiln_module_load_memory(inst, data, size, &m);
  if (!s) s = kiln_module_lookup_function(m, "simple_mul", &fn);
  if (!s) s = kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, a, 16, &in[0]);
  if (!s) s = kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, b, 16, &in[1]);
  if (!s) s = kiln_function_call(fn, dev, in, 2, &out, 1);
  if (!s) s = kiln_buffer_view_read(out, c, 16);
  kiln_buffer_view_release(out);
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
  return s;
}

START_TEST(round_trip_through_the_driver) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.ptx = good_ptx;
  o.ptx_sm = 80;
  float c[4] = {0};
  kiln_status_t s = run(&o, c);
  ck_assert_msg(!s, "%s", kiln_status_message(s));
  ck_assert(c[0] == 11 && c[1] == 22 && c[2] == 33 && c[3] == 44);
  char *log = read_log();
  ck_assert_msg(strstr(log, "cuModuleLoadDataEx options=5,6"), "%s", log);
  ck_assert_msg(strstr(log, "cuModuleGetFunction name=add_f32"), "%s", log);
  /* grid = workgroup count, block = workgroup size, bindings then n. */
  const char *launch = strstr(log, "cuLaunchKernel fn=add_f32 grid=1,1,1 block=64,1,1");
  ck_assert_msg(launch, "%s", log);
  ck_assert_msg(strstr(launch, "params=dev") && strstr(launch, ",u32:4 "), "%s",
                launch);
  free(log);
}
END_TEST

START_TEST(variant_by_sm_version) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.ptx = good_ptx;
  o.ptx_sm = 90; /* the fake GPU is sm_86 */
  float c[4];
  kiln_status_t s = run(&o, c);
  ck_assert_msg(s && strstr(kiln_status_message(s), "PTX up to sm_86") &&
                    strstr(kiln_status_message(s), "'ptx' (cuda PTX sm_90)"),
                "%s", kiln_status_message(s));
  kiln_status_free(s);
}
END_TEST

START_TEST(jit_log_in_the_error) {
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.ptx = bad_ptx;
  o.ptx_sm = 80;
  float c[4];
  kiln_status_t s = run(&o, c);
  ck_assert_msg(s && strstr(kiln_status_message(s), "Unknown instruction 'bogus.op'"),
                "%s", kiln_status_message(s));
  kiln_status_free(s);
}
END_TEST

START_TEST(copy_and_fill_on_the_device) {
  float c[8];
  kiln_status_t s = transfer_on_cuda(c);
#ifdef KILN_TEST_NO_TRANSFERS
  /* Built without transfers: a module importing them does not load. */
  ck_assert_msg(s && strstr(kiln_status_message(s), "is not provided by this "
                                                    "runtime"), "%s",
                s ? kiln_status_message(s) : "loaded");
  kiln_status_free(s);
  return;
#endif
  ck_assert_msg(!s, "%s", kiln_status_message(s));
  for (int i = 0; i < 4; ++i) ck_assert(c[i] == 1.0f && c[4 + i] == 5 + i);
  /* Neither bounces through the host. */
  char *log = read_log();
  ck_assert_msg(strstr(log, "cuMemsetD32_v2 ") && strstr(log, "cuMemcpyDtoD_v2 "),
                "%s", log);
  free(log);
}
END_TEST

START_TEST(rodata_is_uploaded_once_per_device) {
  static const float w[4] = {100, 200, 300, 400};
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.ptx = good_ptx;
  o.ptx_sm = 80;
  o.rodata_b = w;
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  kiln_function_t fn;
  ck_assert_ptr_null(kiln_instance_create(kiln_allocator_system(), &inst));
  ck_assert_ptr_null(kiln_device_create(inst, "cuda", NULL, &dev));
  ck_assert_ptr_null(kiln_module_load_memory(inst, data, size, &m));
  ck_assert_ptr_null(kiln_module_lookup_function(m, "simple_mul", &fn));
  for (int round = 0; round < 2; ++round) {
    const float a[4] = {1, 2, 3, 4};
    float c[4];
    int64_t n = 4;
    kiln_buffer_view_t *in = NULL, *out = NULL;
    ck_assert_ptr_null(
        kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, &n, a, 16, &in));
    kiln_status_t s = kiln_function_call(fn, dev, &in, 1, &out, 1);
    ck_assert_msg(!s, "%s", kiln_status_message(s));
    ck_assert_ptr_null(kiln_buffer_view_read(out, c, 16));
    ck_assert(c[0] == 101 && c[1] == 202 && c[2] == 303 && c[3] == 404);
    kiln_buffer_view_release(in);
    kiln_buffer_view_release(out);
  }
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
  /* One PTX load for two calls: the executable is cached per device. */
  char *log = read_log();
  const char *first = strstr(log, "cuModuleLoadDataEx");
  ck_assert_ptr_nonnull(first);
  ck_assert_ptr_null(strstr(first + 1, "cuModuleLoadDataEx"));
  free(log);
}
END_TEST

START_TEST(no_gpu_no_driver) {
  kiln_instance_t *inst;
  kiln_device_t *dev;
  ck_assert_ptr_null(kiln_instance_create(kiln_allocator_system(), &inst));
  setenv("KILN_FAKE_CUDA_DEVICES", "0", 1);
  kiln_status_t s = kiln_device_create(inst, "cuda", NULL, &dev);
  ck_assert_msg(s && kiln_status_code(s) == KILN_STATUS_UNAVAILABLE &&
                    strstr(kiln_status_message(s), "cuda device unavailable"),
                "%s", kiln_status_message(s));
  kiln_status_free(s);
  setenv("KILN_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
  s = kiln_device_create(inst, "cuda", NULL, &dev);
  ck_assert_msg(s && strstr(kiln_status_message(s), "/nonexistent/libcuda.so.1"),
                "%s", kiln_status_message(s));
  kiln_status_free(s);
  kiln_instance_release(inst);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_cuda");
  TCase *tc = tcase_create("cuda");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, round_trip_through_the_driver);
  tcase_add_test(tc, variant_by_sm_version);
  tcase_add_test(tc, jit_log_in_the_error);
  tcase_add_test(tc, copy_and_fill_on_the_device);
  tcase_add_test(tc, rodata_is_uploaded_once_per_device);
  tcase_add_test(tc, no_gpu_no_driver);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
