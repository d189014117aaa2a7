/* One CUDA device as runtime-min uses it: the driver table, the device's
 * primary context and one stream that launches are queued on. Copies and
 * fills use the legacy default stream, which the (blocking) launch stream
 * synchronizes with, so copy -> launch -> copy needs no extra events.
 * Every call first makes the context current, because the runtime may use
 * a device from more than one thread over its life. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "cuda_driver.h"

#define JIT_LOG_BYTES 4096

struct kiln_cuda_device {
  kiln_cuda_api_t api;
  cu_device device;
  cu_context context;
  cu_stream stream;
  int ordinal, cc_major, cc_minor;
  int shared_optin; /* shared memory a block may opt into; 0 if unknown */
  char name[256];
};

#define CHECK(call, expr)                                                       \
  do {                                                                          \
    cu_result r_ = (expr);                                                      \
    if (r_ != CU_SUCCESS)                                                       \
      return kiln_cuda_fail_result(&d->api, r_, call, NULL, msg, msg_cap);      \
  } while (0)

static int make_current(kiln_cuda_device_t *d, char *msg, size_t msg_cap) {
  CHECK("cuCtxSetCurrent", d->api.CtxSetCurrent(d->context));
  return KILN_CUDA_OK;
}

static int open_device(kiln_cuda_device_t *d, int ordinal, char *msg,
                       size_t msg_cap) {
  cu_result r = d->api.Init(0);
  if (r == CU_ERROR_NO_DEVICE)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_NO_DEVICE,
                          "no CUDA device: the driver found no GPU (cuInit "
                          "returned CUDA_ERROR_NO_DEVICE)");
  if (r != CU_SUCCESS)
    return kiln_cuda_fail_result(&d->api, r, "cuInit", NULL, msg, msg_cap);
  int count = 0;
  CHECK("cuDeviceGetCount", d->api.DeviceGetCount(&count));
  if (count <= 0)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_NO_DEVICE,
                          "no CUDA device: the driver reports 0 GPUs");
  if (ordinal < 0 || ordinal >= count)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_NO_DEVICE,
                          "no CUDA device %d: the driver reports %d GPU%s "
                          "(ordinals 0 to %d)", ordinal, count,
                          count == 1 ? "" : "s", count - 1);
  CHECK("cuDeviceGet", d->api.DeviceGet(&d->device, ordinal));
  CHECK("cuDeviceGetName",
        d->api.DeviceGetName(d->name, (int)sizeof d->name - 1, d->device));
  d->name[sizeof d->name - 1] = 0;
  CHECK("cuDeviceGetAttribute",
        d->api.DeviceGetAttribute(&d->cc_major, CU_ATTR_COMPUTE_CAPABILITY_MAJOR,
                                  d->device));
  CHECK("cuDeviceGetAttribute",
        d->api.DeviceGetAttribute(&d->cc_minor, CU_ATTR_COMPUTE_CAPABILITY_MINOR,
                                  d->device));
  /* Unknown to drivers before CUDA 9: then no limit is checked here and
   * the launch reports what it refuses. */
  if (d->api.DeviceGetAttribute(&d->shared_optin,
                                CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                d->device) != CU_SUCCESS)
    d->shared_optin = 0;
  CHECK("cuDevicePrimaryCtxRetain",
        d->api.DevicePrimaryCtxRetain(&d->context, d->device));
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  CHECK("cuStreamCreate", d->api.StreamCreate(&d->stream, CU_STREAM_DEFAULT));
  d->ordinal = ordinal;
  return KILN_CUDA_OK;
}

int kiln_cuda_open(int ordinal, kiln_cuda_device_t **out, char *msg,
                   size_t msg_cap) {
  *out = NULL;
  kiln_cuda_device_t *d = calloc(1, sizeof *d);
  if (!d)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_DRIVER,
                          "out of memory opening a CUDA device");
  int rc = kiln_cuda_api_open(&d->api, msg, msg_cap);
  if (rc) {
    free(d);
    return rc;
  }
  rc = open_device(d, ordinal, msg, msg_cap);
  if (rc) {
    kiln_cuda_close(d);
    return rc;
  }
  if (msg && msg_cap) msg[0] = 0;
  *out = d;
  return KILN_CUDA_OK;
}

void kiln_cuda_close(kiln_cuda_device_t *d) {
  if (!d) return;
  if (d->context) {
    d->api.CtxSetCurrent(d->context);
    if (d->stream) d->api.StreamDestroy(d->stream);
    d->api.DevicePrimaryCtxRelease(d->device);
  }
  kiln_cuda_api_close(&d->api);
  free(d);
}

void kiln_cuda_compute_capability(const kiln_cuda_device_t *d, int *major,
                                  int *minor) {
  *major = d->cc_major;
  *minor = d->cc_minor;
}

const char *kiln_cuda_device_name(const kiln_cuda_device_t *d) { return d->name; }

uint32_t kiln_cuda_max_shared_memory(const kiln_cuda_device_t *d) {
  return d->shared_optin > 0 ? (uint32_t)d->shared_optin : 0;
}

int kiln_cuda_module_load(kiln_cuda_device_t *d, const char *ptx,
                          kiln_cuda_module_t *out, char *msg, size_t msg_cap) {
  *out = NULL;
  if (!ptx)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_INVALID, "no PTX to load");
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  /* The JIT writes its complaint into this buffer, so a PTX error names
   * the line instead of just "invalid PTX". */
  char log[JIT_LOG_BYTES];
  log[0] = 0;
  int options[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[2] = {log, (void *)(uintptr_t)sizeof log};
  cu_module module = NULL;
  cu_result r = d->api.ModuleLoadDataEx(&module, ptx, 2, options, values);
  if (r != CU_SUCCESS) {
    log[sizeof log - 1] = 0;
    size_t n = strlen(log);
    while (n && (log[n - 1] == '\n' || log[n - 1] == ' ')) log[--n] = 0;
    return kiln_cuda_fail_result(&d->api, r, "cuModuleLoadDataEx (PTX JIT)",
                                 n ? log : "the JIT left no log", msg, msg_cap);
  }
  *out = (kiln_cuda_module_t)module;
  return KILN_CUDA_OK;
}

void kiln_cuda_module_unload(kiln_cuda_device_t *d, kiln_cuda_module_t module) {
  if (!module) return;
  d->api.CtxSetCurrent(d->context);
  d->api.ModuleUnload((cu_module)module);
}

int kiln_cuda_function(kiln_cuda_device_t *d, kiln_cuda_module_t module,
                       const char *name, kiln_cuda_function_t *out, char *msg,
                       size_t msg_cap) {
  *out = NULL;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  cu_function fn = NULL;
  cu_result r = d->api.ModuleGetFunction(&fn, (cu_module)module, name);
  if (r != CU_SUCCESS)
    return kiln_cuda_fail_result(&d->api, r, "cuModuleGetFunction", name, msg,
                                 msg_cap);
  *out = (kiln_cuda_function_t)fn;
  return KILN_CUDA_OK;
}

int kiln_cuda_alloc(kiln_cuda_device_t *d, size_t bytes, uint64_t *out,
                    char *msg, size_t msg_cap) {
  *out = 0;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  cu_deviceptr p = 0;
  cu_result r = d->api.MemAlloc(&p, bytes ? bytes : 1);
  if (r != CU_SUCCESS) {
    char what[64];
    snprintf(what, sizeof what, "%zu bytes", bytes);
    return kiln_cuda_fail_result(&d->api, r, "cuMemAlloc", what, msg, msg_cap);
  }
  *out = p;
  return KILN_CUDA_OK;
}

void kiln_cuda_free(kiln_cuda_device_t *d, uint64_t ptr) {
  if (!ptr) return;
  d->api.CtxSetCurrent(d->context);
  d->api.MemFree(ptr);
}

int kiln_cuda_copy_to_device(kiln_cuda_device_t *d, uint64_t dst,
                             const void *src, size_t bytes, char *msg,
                             size_t msg_cap) {
  if (!bytes) return KILN_CUDA_OK;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  CHECK("cuMemcpyHtoD", d->api.MemcpyHtoD(dst, src, bytes));
  return KILN_CUDA_OK;
}

int kiln_cuda_copy_to_host(kiln_cuda_device_t *d, void *dst, uint64_t src,
                           size_t bytes, char *msg, size_t msg_cap) {
  if (!bytes) return KILN_CUDA_OK;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  CHECK("cuMemcpyDtoH", d->api.MemcpyDtoH(dst, src, bytes));
  return KILN_CUDA_OK;
}

int kiln_cuda_copy_on_device(kiln_cuda_device_t *d, uint64_t dst,
                             uint64_t src, size_t bytes, char *msg,
                             size_t msg_cap) {
  if (!bytes || dst == src) return KILN_CUDA_OK;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  /* The driver leaves overlapping copies undefined: copy in pieces no
   * longer than the distance, from the end when the target is above, so
   * no piece reads what an earlier one wrote. */
  const uint64_t distance = dst > src ? dst - src : src - dst;
  const uint64_t piece = distance < bytes ? distance : bytes;
  const bool backwards = dst > src && distance < bytes;
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = bytes - done < piece ? bytes - done : piece;
    const uint64_t at = backwards ? bytes - done - n : done;
    CHECK("cuMemcpyDtoD", d->api.MemcpyDtoD(dst + at, src + at, (size_t)n));
    done += n;
  }
  return KILN_CUDA_OK;
}

int kiln_cuda_fill(kiln_cuda_device_t *d, uint64_t dst, uint32_t pattern,
                   size_t bytes, char *msg, size_t msg_cap) {
  if (!bytes) return KILN_CUDA_OK;
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  const uint8_t b0 = (uint8_t)pattern;
  if (pattern == b0 * 0x01010101u) {
    CHECK("cuMemsetD8", d->api.MemsetD8(dst, b0, bytes));
    return KILN_CUDA_OK;
  }
  /* cuMemsetD32 needs a 4-byte aligned target: the (at most 3) bytes
   * before the first aligned word and those after the last take
   * cuMemsetD8, the words between the pattern rotated to start there. */
  const size_t to_word = (size_t)((4 - dst % 4) % 4);
  const size_t head = to_word < bytes ? to_word : bytes;
  const size_t words = (bytes - head) / 4, tail = head + 4 * words;
  for (size_t i = 0; i < head; i++)
    CHECK("cuMemsetD8", d->api.MemsetD8(dst + i, (unsigned char)(pattern >> (8u * i)), 1));
  if (words) {
    const unsigned shift = 8u * (unsigned)head;
    const uint32_t rotated = shift ? (pattern >> shift) | (pattern << (32u - shift)) : pattern;
    CHECK("cuMemsetD32", d->api.MemsetD32(dst + head, rotated, words));
  }
  for (size_t i = tail; i < bytes; i++)
    CHECK("cuMemsetD8",
          d->api.MemsetD8(dst + i, (unsigned char)(pattern >> (8u * (i % 4))), 1));
  return KILN_CUDA_OK;
}

int kiln_cuda_launch(kiln_cuda_device_t *d, kiln_cuda_function_t function,
                     const kiln_cuda_launch_t *l, char *msg, size_t msg_cap) {
  uint64_t nparams = (uint64_t)l->binding_count + l->push_constant_count;
  if (nparams > KILN_CUDA_MAX_PARAMS)
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_INVALID,
                          "kernel launch with %u bindings and %u push constants "
                          "exceeds %u parameters", l->binding_count,
                          l->push_constant_count, KILN_CUDA_MAX_PARAMS);
  for (int i = 0; i < 3; i++)
    if (l->grid[i] == 0 || l->block[i] == 0)
      return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_INVALID,
                            "kernel launch with grid %ux%ux%u and block "
                            "%ux%ux%u: every dimension must be at least 1",
                            l->grid[0], l->grid[1], l->grid[2], l->block[0],
                            l->block[1], l->block[2]);
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  cu_function fn = (cu_function)function;
  /* Past the default 48 KiB a kernel must opt in; a driver without the
   * call cannot give more, and its launch error says so below. */
  const bool opt_in = l->shared_bytes > CU_DEFAULT_DYNAMIC_SHARED_LIMIT;
  if (opt_in && d->api.FuncSetAttribute)
    CHECK("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)",
          d->api.FuncSetAttribute(fn, CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  (int)l->shared_bytes));
  /* The driver takes one pointer per parameter, to its value. */
  void *params[KILN_CUDA_MAX_PARAMS];
  uint32_t n = 0;
  for (uint32_t i = 0; i < l->binding_count; i++)
    params[n++] = (void *)&l->bindings[i];
  for (uint32_t i = 0; i < l->push_constant_count; i++)
    params[n++] = (void *)&l->push_constants[i];
  cu_result r = d->api.LaunchKernel(fn, l->grid[0], l->grid[1], l->grid[2],
                                    l->block[0], l->block[1], l->block[2],
                                    l->shared_bytes, d->stream,
                                    n ? params : NULL, NULL);
  if (r != CU_SUCCESS) {
    char why[96];
    snprintf(why, sizeof why, "%u bytes of dynamic shared memory need "
             "cuFuncSetAttribute, which this driver lacks", l->shared_bytes);
    return kiln_cuda_fail_result(&d->api, r, "cuLaunchKernel",
                                 opt_in && !d->api.FuncSetAttribute ? why : NULL,
                                 msg, msg_cap);
  }
  return KILN_CUDA_OK;
}

int kiln_cuda_sync(kiln_cuda_device_t *d, char *msg, size_t msg_cap) {
  int rc = make_current(d, msg, msg_cap);
  if (rc) return rc;
  CHECK("cuStreamSynchronize", d->api.StreamSynchronize(d->stream));
  return KILN_CUDA_OK;
}
