/* Unit tests of runtime-min/src/cuda against libfakecuda.so (fake_cuda.c),
 * selected through KILN_CUDA_LIBRARY: the wrapper's calls and their
 * parameters (JIT log options, grid, block, shared memory, kernel
 * parameter values) are read back from the fake's call log, and data makes
 * a host -> "device" -> host round trip through the fake's add_f32. Also
 * the paths where the driver library or a GPU is missing. No GPU is used. */
#include <check.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_driver.h"

static char log_path[512];

static const char *ptx_text =
    "//\n"
    "// hand-written for the wrapper test\n"
    ".version 8.0\n"
    ".target sm_80\n"
    ".address_size 64\n"
    "\n"
    ".visible .entry add_f32(\n"
    "    .param .u64 a,\n"
    "    .param .u64 b,\n"
    "    .param .u64 out,\n"
    "    .param .u32 n\n"
    ")\n"
    "{\n"
    "    .reg .pred %p<2>;\n"
    "    .reg .b32 %r<6>;\n"
    "    .reg .f32 %f<4>;\n"
    "    .reg .b64 %rd<11>;\n"
    "    ld.param.u64 %rd1, [a];\n"
    "    ld.param.u64 %rd2, [b];\n"
    "    ld.param.u64 %rd3, [out];\n"
    "    ld.param.u32 %r2, [n];\n"
    "    mov.u32 %r3, %ctaid.x;\n"
    "    mov.u32 %r4, %ntid.x;\n"
    "    mov.u32 %r5, %tid.x;\n"
    "    mad.lo.s32 %r1, %r3, %r4, %r5;\n"
    "    setp.ge.u32 %p1, %r1, %r2;\n"
    "    @%p1 bra $L_done;\n"
    "    cvta.to.global.u64 %rd4, %rd1;\n"
    "    cvta.to.global.u64 %rd5, %rd2;\n"
    "    cvta.to.global.u64 %rd6, %rd3;\n"
    "    mul.wide.u32 %rd7, %r1, 4;\n"
    "    add.s64 %rd8, %rd4, %rd7;\n"
    "    add.s64 %rd9, %rd5, %rd7;\n"
    "    add.s64 %rd10, %rd6, %rd7;\n"
    "    ld.global.f32 %f1, [%rd8];\n"
    "    ld.global.f32 %f2, [%rd9];\n"
    "    add.f32 %f3, %f1, %f2;\n"
    "    st.global.f32 [%rd10], %f3;\n"
    "$L_done:\n"
    "    ret;\n"
    "}\n"
    "\n"
    ".visible .entry scale(\n"
    "    .param .u64 x,\n"
    "    .param .u32 k,\n"
    "    .param .u32 n\n"
    ")\n"
    "{\n"
    "    ret;\n"
    "}\n";

static void use_fake(int devices) {
  setenv("KILN_CUDA_LIBRARY", FAKE_CUDA_PATH, 1);
  char n[16];
  snprintf(n, sizeof n, "%d", devices);
  setenv("KILN_FAKE_CUDA_DEVICES", n, 1);
  setenv("KILN_FAKE_CUDA_SM", "86", 1);
  snprintf(log_path, sizeof log_path, "%s/fake_cuda_%d.log", TEST_TMP_DIR, (int)getpid());
  setenv("KILN_FAKE_CUDA_LOG", log_path, 1);
  remove(log_path);
}

/* The whole call log. */
static char *read_log(void) {
  FILE *f = fopen(log_path, "r");
  ck_assert_msg(f != NULL, "no fake CUDA log at %s", log_path);
  static char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

#define ck_assert_logged(line)                                                  \
  do {                                                                          \
    const char *log_ = read_log();                                              \
    ck_assert_msg(strstr(log_, line "\n") != NULL, "log lacks '%s':\n%s", line, \
                  log_);                                                        \
  } while (0)

START_TEST(open_load_copy_launch_sync) {
  use_fake(1);
  kiln_cuda_device_t *dev;
  char msg[1024];
  ck_assert_msg(kiln_cuda_open(0, &dev, msg, sizeof msg) == KILN_CUDA_OK, "%s", msg);
  int major, minor;
  kiln_cuda_compute_capability(dev, &major, &minor);
  ck_assert_int_eq(major, 8);
  ck_assert_int_eq(minor, 6);
  ck_assert_str_eq(kiln_cuda_device_name(dev), "Kiln Fake GPU 0");
  ck_assert_uint_eq(kiln_cuda_max_shared_memory(dev), 101376);
  ck_assert_logged("cuDeviceGetAttribute attr=97 dev=0");
  ck_assert_logged("cuInit flags=0");
  ck_assert_logged("cuDeviceGet ordinal=0");
  ck_assert_logged("cuDeviceGetAttribute attr=75 dev=0");
  ck_assert_logged("cuDeviceGetAttribute attr=76 dev=0");
  ck_assert_logged("cuDevicePrimaryCtxRetain dev=0");
  ck_assert_logged("cuStreamCreate flags=0");

  kiln_cuda_module_t mod;
  ck_assert_msg(kiln_cuda_module_load(dev, ptx_text, &mod, msg, sizeof msg) == 0, "%s", msg);
  char expect[128];
  snprintf(expect, sizeof expect,
           "cuModuleLoadDataEx options=5,6 error_log_bytes=4096 ptx_bytes=%zu",
           strlen(ptx_text));
  ck_assert_msg(strstr(read_log(), expect), "log lacks '%s'", expect);
  kiln_cuda_function_t add, scale, missing;
  ck_assert_int_eq(kiln_cuda_function(dev, mod, "add_f32", &add, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cuda_function(dev, mod, "scale", &scale, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cuda_function(dev, mod, "nope", &missing, msg, sizeof msg),
                   KILN_CUDA_ERR_DRIVER);
  ck_assert_str_eq(msg, "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (500: "
                        "named symbol not found): nope");
  ck_assert_ptr_null(missing);

  enum { N = 100 };
  float a[N], b[N], out[N];
  for (int i = 0; i < N; i++) a[i] = (float)i, b[i] = 0.25f * (float)i, out[i] = -1;
  uint64_t da, db, dout;
  ck_assert_int_eq(kiln_cuda_alloc(dev, sizeof a, &da, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cuda_alloc(dev, sizeof b, &db, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cuda_alloc(dev, sizeof out, &dout, msg, sizeof msg), 0);
  ck_assert_logged("cuMemAlloc_v2 bytes=400 -> dev2");
  ck_assert_int_eq(kiln_cuda_copy_to_device(dev, da, a, sizeof a, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_cuda_copy_to_device(dev, db, b, sizeof b, msg, sizeof msg), 0);
  ck_assert_logged("cuMemcpyHtoD_v2 dst=dev1+0 bytes=400");

  uint64_t bindings[3] = {da, db, dout};
  uint32_t pcs[1] = {N};
  kiln_cuda_launch_t l = {{2, 1, 1}, {64, 1, 1}, 0, 3, bindings, 1, pcs};
  ck_assert_msg(kiln_cuda_launch(dev, add, &l, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_eq(kiln_cuda_sync(dev, msg, sizeof msg), 0);
  ck_assert_logged("cuLaunchKernel fn=add_f32 grid=2,1,1 block=64,1,1 shared=0 "
                   "stream=created params=dev0+0,dev1+0,dev2+0,u32:100 extra=null");
  ck_assert_logged("cuStreamSynchronize stream=created");
  ck_assert_int_eq(kiln_cuda_copy_to_host(dev, out, dout, sizeof out, msg, sizeof msg), 0);
  ck_assert_logged("cuMemcpyDtoH_v2 src=dev2+0 bytes=400");
  for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], 1.25f * (float)i);

  /* A 3-D launch needing more than the default 48 KiB of shared memory
   * opts in first; push constants follow the bindings in order. */
  uint64_t one[1] = {db + 8};
  uint32_t two[2] = {7, 0xffffffffu};
  kiln_cuda_launch_t l2 = {{3, 2, 5}, {8, 4, 2}, 65536, 1, one, 2, two};
  ck_assert_msg(kiln_cuda_launch(dev, scale, &l2, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_logged("cuFuncSetAttribute fn=scale attr=8 value=65536");
  ck_assert_logged("cuLaunchKernel fn=scale grid=3,2,5 block=8,4,2 shared=65536 "
                   "stream=created params=dev1+8,u32:7,u32:4294967295 extra=null");
  ck_assert_ptr_null(strstr(read_log(), "cuFuncSetAttribute fn=add_f32"));

  /* Arguments the wrapper refuses before calling the driver. */
  kiln_cuda_launch_t bad = l;
  bad.grid[1] = 0;
  ck_assert_int_eq(kiln_cuda_launch(dev, add, &bad, msg, sizeof msg), KILN_CUDA_ERR_INVALID);
  ck_assert_msg(strstr(msg, "grid 2x0x1"), "%s", msg);
  bad = l;
  bad.push_constant_count = KILN_CUDA_MAX_PARAMS;
  ck_assert_int_eq(kiln_cuda_launch(dev, add, &bad, msg, sizeof msg), KILN_CUDA_ERR_INVALID);
  ck_assert_msg(strstr(msg, "exceeds 256 parameters"), "%s", msg);

  /* A driver error carries the driver's name and description. */
  ck_assert_int_eq(kiln_cuda_copy_to_device(dev, da + 396, a, 8, msg, sizeof msg),
                   KILN_CUDA_ERR_DRIVER);
  ck_assert_str_eq(msg, "cuMemcpyHtoD failed: CUDA_ERROR_INVALID_VALUE (1: invalid argument)");

  kiln_cuda_free(dev, da);
  kiln_cuda_free(dev, db);
  kiln_cuda_free(dev, dout);
  ck_assert_logged("cuMemFree_v2 dev2");
  kiln_cuda_module_unload(dev, mod);
  ck_assert_logged("cuModuleUnload functions=2");
  kiln_cuda_close(dev);
  ck_assert_logged("cuStreamDestroy_v2 stream=created");
  ck_assert_logged("cuDevicePrimaryCtxRelease_v2 dev=0");
  remove(log_path);
}
END_TEST

START_TEST(jit_error_log_reaches_message) {
  use_fake(1);
  kiln_cuda_device_t *dev;
  char msg[1024];
  ck_assert_int_eq(kiln_cuda_open(0, &dev, msg, sizeof msg), 0);
  const char *bad_ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                        ".visible .entry k()\n{\n    bogus.op %r1;\n    ret;\n}\n";
  kiln_cuda_module_t mod;
  ck_assert_int_eq(kiln_cuda_module_load(dev, bad_ptx, &mod, msg, sizeof msg),
                   KILN_CUDA_ERR_DRIVER);
  ck_assert_ptr_null(mod);
  ck_assert_str_eq(msg, "cuModuleLoadDataEx (PTX JIT) failed: CUDA_ERROR_INVALID_PTX "
                        "(218: a PTX JIT compilation failed): ptxas application ptx "
                        "input, line 6; error   : Unknown instruction 'bogus.op'\n"
                        "ptxas fatal   : Ptx assembly aborted due to errors");
  ck_assert_int_eq(kiln_cuda_module_load(dev, NULL, &mod, msg, sizeof msg),
                   KILN_CUDA_ERR_INVALID);
  kiln_cuda_close(dev);
  remove(log_path);
}
END_TEST

START_TEST(no_gpu) {
  use_fake(0);
  kiln_cuda_device_t *dev = (kiln_cuda_device_t *)&dev;
  char msg[512];
  ck_assert_int_eq(kiln_cuda_open(0, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DEVICE);
  ck_assert_ptr_null(dev);
  ck_assert_str_eq(msg, "no CUDA device: the driver found no GPU (cuInit returned "
                        "CUDA_ERROR_NO_DEVICE)");
  use_fake(1);
  ck_assert_int_eq(kiln_cuda_open(1, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DEVICE);
  ck_assert_str_eq(msg, "no CUDA device 1: the driver reports 1 GPU (ordinals 0 to 0)");
  ck_assert_int_eq(kiln_cuda_open(-1, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DEVICE);
  remove(log_path);
}
END_TEST

/* A driver without cuFuncSetAttribute (pre-CUDA 9) still opens: launches
 * within the default 48 KiB of dynamic shared memory work; a larger one
 * is not opted into, the driver refuses it, and the message says why. */
START_TEST(driver_without_func_set_attribute) {
  use_fake(1);
  setenv("KILN_CUDA_LIBRARY", FAKE_CUDA_OLD_PATH, 1);
  kiln_cuda_device_t *dev;
  char msg[1024];
  ck_assert_msg(kiln_cuda_open(0, &dev, msg, sizeof msg) == KILN_CUDA_OK, "%s", msg);
  ck_assert_uint_eq(kiln_cuda_max_shared_memory(dev), 0); /* not known */
  kiln_cuda_module_t mod;
  kiln_cuda_function_t scale;
  ck_assert_msg(kiln_cuda_module_load(dev, ptx_text, &mod, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_int_eq(kiln_cuda_function(dev, mod, "scale", &scale, msg, sizeof msg), 0);
  uint64_t x;
  ck_assert_int_eq(kiln_cuda_alloc(dev, 64, &x, msg, sizeof msg), 0);
  uint32_t k[2] = {1, 2};
  kiln_cuda_launch_t l = {{1, 1, 1}, {128, 1, 1}, 48 * 1024, 1, &x, 2, k};
  ck_assert_msg(kiln_cuda_launch(dev, scale, &l, msg, sizeof msg) == 0, "%s", msg);
  ck_assert_logged("cuLaunchKernel fn=scale grid=1,1,1 block=128,1,1 shared=49152 "
                   "stream=created params=dev0+0,u32:1,u32:2 extra=null");
  l.shared_bytes = 48 * 1024 + 4;
  ck_assert_int_eq(kiln_cuda_launch(dev, scale, &l, msg, sizeof msg), KILN_CUDA_ERR_DRIVER);
  ck_assert_str_eq(msg, "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1: invalid "
                        "argument): 49156 bytes of dynamic shared memory need "
                        "cuFuncSetAttribute, which this driver lacks");
  ck_assert_ptr_null(strstr(read_log(), "cuFuncSetAttribute"));
  /* The fake, like a driver, refuses more than 1024 threads per block. */
  kiln_cuda_launch_t big = {{1, 1, 1}, {32, 33, 1}, 0, 1, &x, 2, k};
  ck_assert_int_eq(kiln_cuda_launch(dev, scale, &big, msg, sizeof msg), KILN_CUDA_ERR_DRIVER);
  ck_assert_str_eq(msg, "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1: invalid argument)");
  kiln_cuda_free(dev, x);
  kiln_cuda_module_unload(dev, mod);
  kiln_cuda_close(dev);
  remove(log_path);
}
END_TEST

START_TEST(no_driver_library) {
  kiln_cuda_device_t *dev;
  char msg[1024];
  setenv("KILN_CUDA_LIBRARY", "/nonexistent/dir/libcuda.so.1", 1);
  ck_assert_int_eq(kiln_cuda_open(0, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DRIVER);
  ck_assert_ptr_null(dev);
  ck_assert_msg(strncmp(msg, "CUDA driver library /nonexistent/dir/libcuda.so.1 not "
                             "found: ", 60) == 0, "%s", msg);
  ck_assert_msg(strstr(msg, "No such file"), "%s", msg); /* dlerror's reason */

  /* A library that is not a CUDA driver: the first missing entry point. */
  setenv("KILN_CUDA_LIBRARY", "libm.so.6", 1);
  ck_assert_int_eq(kiln_cuda_open(0, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DRIVER);
  ck_assert_str_eq(msg, "CUDA driver library libm.so.6 lacks cuGetErrorString");

  /* The default name, when this machine has no driver installed. */
  unsetenv("KILN_CUDA_LIBRARY");
  void *real = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (real) {
    dlclose(real);
    return; /* a real driver is present; nothing to check here */
  }
  ck_assert_int_eq(kiln_cuda_open(0, &dev, msg, sizeof msg), KILN_CUDA_ERR_NO_DRIVER);
  ck_assert_msg(strncmp(msg, "CUDA driver library libcuda.so.1 not found: ", 44) == 0,
                "%s", msg);
}
END_TEST

/* Fills and device-to-device copies stay on the device: every start
 * alignment and length of a 4-byte pattern fill matches a host reference
 * (cuMemsetD32 needs an aligned target, the rest takes cuMemsetD8), a
 * one-byte pattern is one cuMemsetD8, and overlapping copies either way
 * come out as memmove would (the fake refuses an overlapping piece). */
START_TEST(fill_and_copy_on_device) {
  use_fake(1);
  kiln_cuda_device_t *dev;
  char msg[1024];
  ck_assert_msg(kiln_cuda_open(0, &dev, msg, sizeof msg) == KILN_CUDA_OK, "%s", msg);
  enum { N = 64 };
  uint64_t buf;
  ck_assert_int_eq(kiln_cuda_alloc(dev, N, &buf, msg, sizeof msg), 0);
  uint8_t want[N], got[N];
  const uint32_t pattern = 0x44332211u;
  for (size_t start = 0; start < 8; start++) {
    for (size_t len = 0; start + len <= 24; len++) {
      memset(want, 0xee, N);
      ck_assert_int_eq(kiln_cuda_copy_to_device(dev, buf, want, N, msg, sizeof msg), 0);
      for (size_t i = 0; i < len; i++) want[start + i] = (uint8_t)(pattern >> (8 * (i % 4)));
      ck_assert_msg(kiln_cuda_fill(dev, buf + start, pattern, len, msg, sizeof msg) == 0,
                    "%s", msg);
      ck_assert_int_eq(kiln_cuda_copy_to_host(dev, got, buf, N, msg, sizeof msg), 0);
      ck_assert_msg(memcmp(want, got, N) == 0, "fill at %zu of %zu bytes", start, len);
    }
  }
  ck_assert_logged("cuMemsetD32_v2 dst=dev0+4 value=0x22114433 count=5");
  remove(log_path);
  ck_assert_int_eq(kiln_cuda_fill(dev, buf + 3, 0x07070707u, 50, msg, sizeof msg), 0);
  ck_assert_logged("cuMemsetD8_v2 dst=dev0+3 value=0x07 count=50");

  for (int shift = -9; shift <= 9; shift++) {
    uint8_t ref[N];
    for (int i = 0; i < N; i++) ref[i] = (uint8_t)(i * 7 + 1);
    ck_assert_int_eq(kiln_cuda_copy_to_device(dev, buf, ref, N, msg, sizeof msg), 0);
    const size_t src = 20, dst = (size_t)(20 + shift), len = 30;
    memmove(ref + dst, ref + src, len);
    ck_assert_msg(kiln_cuda_copy_on_device(dev, buf + dst, buf + src, len, msg,
                                           sizeof msg) == 0, "%s", msg);
    ck_assert_int_eq(kiln_cuda_copy_to_host(dev, got, buf, N, msg, sizeof msg), 0);
    ck_assert_msg(memcmp(ref, got, N) == 0, "copy shifted by %d", shift);
  }
  /* Out of bounds: the driver's error, named. */
  ck_assert_int_eq(kiln_cuda_fill(dev, buf + 60, 0, 8, msg, sizeof msg), KILN_CUDA_ERR_DRIVER);
  ck_assert_str_eq(msg, "cuMemsetD8 failed: CUDA_ERROR_INVALID_VALUE (1: invalid argument)");
  kiln_cuda_free(dev, buf);
  kiln_cuda_close(dev);
  remove(log_path);
}
END_TEST

static Suite *cuda_suite(void) {
  Suite *s = suite_create("cuda-wrapper");
  TCase *tc = tcase_create("fake-driver");
  tcase_add_test(tc, open_load_copy_launch_sync);
  tcase_add_test(tc, fill_and_copy_on_device);
  tcase_add_test(tc, jit_error_log_reaches_message);
  tcase_add_test(tc, no_gpu);
  tcase_add_test(tc, driver_without_func_set_attribute);
  tcase_add_test(tc, no_driver_library);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(cuda_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
