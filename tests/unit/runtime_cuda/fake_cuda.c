/* A stand-in for the CUDA driver library, for testing runtime-min's CUDA
 * wrapper on machines without a GPU. It exports the entry points the
 * wrapper resolves, keeps "device" memory in host malloc blocks, reads
 * kernel signatures from the PTX it is given, and appends one line per
 * call with its parameters to the file named by KILN_FAKE_CUDA_LOG.
 * KILN_FAKE_CUDA_DEVICES (default 1) and KILN_FAKE_CUDA_SM (default 86)
 * shape the fake machine. Like a driver, it refuses launches of more than
 * 1024 threads per block or with more dynamic shared memory than the
 * kernel opted into (48 KiB by default, more through cuFuncSetAttribute;
 * built with FAKE_CUDA_NO_FUNC_SET_ATTRIBUTE it lacks that entry point, as
 * pre-CUDA-9 drivers do). PTX containing "bogus." fails to "JIT" with an
 * error log; overlapping device-to-device copies (undefined for a real
 * driver) and cuMemsetD32 on a target not 4-byte aligned are refused with
 * CUDA_ERROR_INVALID_VALUE, so callers that rely on either fail here; an
 * entry named add_f32 (a, b, out, n) is executed on the host
 * so data can make the round trip. Nothing here touches a GPU. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Handle types spelled as runtime-min/src/cuda/cuda_api.h spells them, so
 * that UBSan's function-type check sees identical signatures. */
typedef int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct cu_context_opaque *CUcontext;
typedef struct cu_module_opaque *CUmodule;
typedef struct cu_function_opaque *CUfunction;
typedef struct cu_stream_opaque *CUstream;

enum {
  OK = 0, INVALID_VALUE = 1, NOT_INITIALIZED = 3, NO_DEVICE = 100,
  INVALID_PTX = 218, NOT_FOUND = 500,
};

#define MAX_PARAMS 64
#define MAX_ALLOCS 256

typedef struct fake_function {
  char name[128];
  int nparams;
  int size[MAX_PARAMS];
  unsigned max_dynamic_shared; /* 48 KiB until cuFuncSetAttribute raises it */
} fake_function_t;

typedef struct fake_module {
  char *ptx;
  fake_function_t fns[16];
  int nfns;
} fake_module_t;

static struct {
  int initialized;
  int context, stream; /* addresses serve as handles */
  struct { char *base; size_t size; } alloc[MAX_ALLOCS];
} fake;

#define EXPORT __attribute__((visibility("default")))

EXPORT CUresult cuGetErrorString(CUresult e, const char **s);
EXPORT CUresult cuGetErrorName(CUresult e, const char **s);
EXPORT CUresult cuInit(unsigned flags);
EXPORT CUresult cuDeviceGetCount(int *count);
EXPORT CUresult cuDeviceGet(int *dev, int ordinal);
EXPORT CUresult cuDeviceGetName(char *name, int len, int dev);
EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, int dev);
EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, int dev);
EXPORT CUresult cuDevicePrimaryCtxRelease_v2(int dev);
EXPORT CUresult cuCtxSetCurrent(CUcontext ctx);
EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned n,
                                   int *options, void **values);
EXPORT CUresult cuModuleUnload(CUmodule module);
EXPORT CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name);
#ifndef FAKE_CUDA_NO_FUNC_SET_ATTRIBUTE
EXPORT CUresult cuFuncSetAttribute(CUfunction fn, int attribute, int value);
#endif
EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes);
EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr);
EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
EXPORT CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count);
EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count);
EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags);
EXPORT CUresult cuStreamSynchronize(CUstream stream);
EXPORT CUresult cuStreamDestroy_v2(CUstream stream);
EXPORT CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                               unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, CUstream stream, void **params,
                               void **extra);

static void record(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void record(const char *fmt, ...) {
  const char *path = getenv("KILN_FAKE_CUDA_LOG");
  if (!path) return;
  FILE *f = fopen(path, "a");
  if (!f) return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

static int env_int(const char *name, int dflt) {
  const char *v = getenv(name);
  return v && *v ? atoi(v) : dflt;
}

static const struct { CUresult code; const char *name, *text; } errors[] = {
    {OK, "CUDA_SUCCESS", "no error"},
    {INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {INVALID_PTX, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

CUresult cuGetErrorString(CUresult e, const char **s) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == e) return *s = errors[i].text, OK;
  *s = NULL;
  return INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult e, const char **s) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    if (errors[i].code == e) return *s = errors[i].name, OK;
  *s = NULL;
  return INVALID_VALUE;
}

CUresult cuInit(unsigned flags) {
  record("cuInit flags=%u", flags);
  if (env_int("KILN_FAKE_CUDA_DEVICES", 1) <= 0) return NO_DEVICE;
  fake.initialized = 1;
  return OK;
}

CUresult cuDeviceGetCount(int *count) {
  if (!fake.initialized) return NOT_INITIALIZED;
  *count = env_int("KILN_FAKE_CUDA_DEVICES", 1);
  record("cuDeviceGetCount -> %d", *count);
  return OK;
}

CUresult cuDeviceGet(int *dev, int ordinal) {
  record("cuDeviceGet ordinal=%d", ordinal);
  if (!fake.initialized) return NOT_INITIALIZED;
  if (ordinal < 0 || ordinal >= env_int("KILN_FAKE_CUDA_DEVICES", 1)) return INVALID_VALUE;
  *dev = ordinal;
  return OK;
}

CUresult cuDeviceGetName(char *name, int len, int dev) {
  record("cuDeviceGetName len=%d dev=%d", len, dev);
  if (!name || len <= 0) return INVALID_VALUE;
  snprintf(name, (size_t)len, "Kiln Fake GPU %d", dev);
  return OK;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, int dev) {
  record("cuDeviceGetAttribute attr=%d dev=%d", attribute, dev);
  int sm = env_int("KILN_FAKE_CUDA_SM", 86);
  if (attribute == 75) *value = sm / 10;
  else if (attribute == 76) *value = sm % 10;
#ifndef FAKE_CUDA_NO_FUNC_SET_ATTRIBUTE /* old drivers know neither */
  else if (attribute == 97) *value = env_int("KILN_FAKE_CUDA_SHARED_OPTIN", 101376); /* sm_86 */
#endif
  else return INVALID_VALUE;
  return OK;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, int dev) {
  record("cuDevicePrimaryCtxRetain dev=%d", dev);
  *ctx = (CUcontext)&fake.context;
  return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(int dev) {
  record("cuDevicePrimaryCtxRelease_v2 dev=%d", dev);
  return OK;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  return (void *)ctx == &fake.context || ctx == NULL ? OK : INVALID_VALUE;
}

/* Reads the .entry declarations: name and the byte size of each param. */
static void parse_entries(fake_module_t *m) {
  for (const char *p = strstr(m->ptx, ".entry"); p && m->nfns < 16;
       p = strstr(p + 1, ".entry")) {
    fake_function_t *f = &m->fns[m->nfns++];
    f->max_dynamic_shared = 48 * 1024;
    p += 6;
    while (*p == ' ') p++;
    size_t n = strcspn(p, " (\n");
    snprintf(f->name, sizeof f->name, "%.*s", (int)n, p);
    const char *end = strchr(p, ')');
    for (const char *q = strstr(p, ".param"); q && (!end || q < end) && f->nparams < MAX_PARAMS;
         q = strstr(q + 1, ".param")) {
      const char *t = q + 6;
      while (*t == ' ') t++;
      f->size[f->nparams++] = strncmp(t + 2, "64", 2) == 0 ? 8 : 4; /* .u64 / .u32 */
    }
  }
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned n,
                            int *options, void **values) {
  char opts[128] = "";
  size_t used = 0;
  char *err_log = NULL;
  size_t err_size = 0;
  for (unsigned i = 0; i < n; i++) {
    used += (size_t)snprintf(opts + used, sizeof opts - used, "%s%d", i ? "," : "", options[i]);
    if (options[i] == 5) err_log = values[i];
    if (options[i] == 6) err_size = (size_t)(uintptr_t)values[i];
  }
  const char *ptx = image;
  record("cuModuleLoadDataEx options=%s error_log_bytes=%zu ptx_bytes=%zu", opts,
         err_size, strlen(ptx));
  const char *bad = strstr(ptx, "bogus.");
  if (bad || !strstr(ptx, ".version")) {
    if (err_log && err_size) {
      int line = 1;
      for (const char *c = ptx; bad && c < bad; c++) line += *c == '\n';
      if (bad)
        snprintf(err_log, err_size,
                 "ptxas application ptx input, line %d; error   : Unknown "
                 "instruction '%.*s'\nptxas fatal   : Ptx assembly aborted due "
                 "to errors\n", line, (int)strcspn(bad, " ;\n"), bad);
      else
        snprintf(err_log, err_size, "ptxas fatal   : missing .version directive\n");
    }
    return INVALID_PTX;
  }
  fake_module_t *m = calloc(1, sizeof *m);
  m->ptx = strdup(ptx);
  parse_entries(m);
  *module = (CUmodule)m;
  return OK;
}

CUresult cuModuleUnload(CUmodule module) {
  fake_module_t *m = (fake_module_t *)module;
  record("cuModuleUnload functions=%d", m ? m->nfns : -1);
  if (!m) return INVALID_VALUE;
  free(m->ptx);
  free(m);
  return OK;
}

CUresult cuModuleGetFunction(CUfunction *fn, CUmodule module, const char *name) {
  record("cuModuleGetFunction name=%s", name);
  fake_module_t *m = (fake_module_t *)module;
  for (int i = 0; m && i < m->nfns; i++)
    if (strcmp(m->fns[i].name, name) == 0) return *fn = (CUfunction)&m->fns[i], OK;
  return NOT_FOUND;
}

#ifndef FAKE_CUDA_NO_FUNC_SET_ATTRIBUTE
CUresult cuFuncSetAttribute(CUfunction fn, int attribute, int value) {
  fake_function_t *f = (fake_function_t *)(void *)fn;
  record("cuFuncSetAttribute fn=%s attr=%d value=%d", f->name, attribute, value);
  if (attribute == 8) { /* MAX_DYNAMIC_SHARED_SIZE_BYTES, up to 227 KiB */
    if (value < 0 || value > 227 * 1024) return INVALID_VALUE;
    f->max_dynamic_shared = (unsigned)value;
  }
  return OK;
}
#endif

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  for (int i = 0; i < MAX_ALLOCS; i++) {
    if (fake.alloc[i].base) continue;
    fake.alloc[i].base = calloc(1, bytes);
    fake.alloc[i].size = bytes;
    *ptr = (CUdeviceptr)(uintptr_t)fake.alloc[i].base;
    record("cuMemAlloc_v2 bytes=%zu -> dev%d", bytes, i);
    return OK;
  }
  return INVALID_VALUE;
}

/* Index of the allocation holding [p, p + n), or -1. */
static int find_alloc(CUdeviceptr p, size_t n, size_t *offset) {
  *offset = 0;
  for (int i = 0; i < MAX_ALLOCS; i++) {
    uintptr_t b = (uintptr_t)fake.alloc[i].base;
    if (b && p >= b && p - b <= fake.alloc[i].size && n <= fake.alloc[i].size - (p - b)) {
      *offset = (size_t)(p - b);
      return i;
    }
  }
  return -1;
}

CUresult cuMemFree_v2(CUdeviceptr ptr) {
  size_t off;
  int i = find_alloc(ptr, 0, &off);
  record("cuMemFree_v2 dev%d", i);
  if (i < 0 || off) return INVALID_VALUE;
  free(fake.alloc[i].base);
  fake.alloc[i].base = NULL;
  return OK;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  size_t off;
  int i = find_alloc(dst, bytes, &off);
  record("cuMemcpyHtoD_v2 dst=dev%d+%zu bytes=%zu", i, off, bytes);
  if (i < 0) return INVALID_VALUE;
  memcpy(fake.alloc[i].base + off, src, bytes);
  return OK;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  size_t off;
  int i = find_alloc(src, bytes, &off);
  record("cuMemcpyDtoH_v2 src=dev%d+%zu bytes=%zu", i, off, bytes);
  if (i < 0) return INVALID_VALUE;
  memcpy(dst, fake.alloc[i].base + off, bytes);
  return OK;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
  size_t doff, soff;
  int di = find_alloc(dst, bytes, &doff), si = find_alloc(src, bytes, &soff);
  record("cuMemcpyDtoD_v2 dst=dev%d+%zu src=dev%d+%zu bytes=%zu", di, doff, si,
         soff, bytes);
  if (di < 0 || si < 0) return INVALID_VALUE;
  if (dst < src + bytes && src < dst + bytes) return INVALID_VALUE;
  memcpy(fake.alloc[di].base + doff, fake.alloc[si].base + soff, bytes);
  return OK;
}

CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t count) {
  size_t off;
  int i = find_alloc(dst, count, &off);
  record("cuMemsetD8_v2 dst=dev%d+%zu value=0x%02x count=%zu", i, off, value, count);
  if (i < 0) return INVALID_VALUE;
  memset(fake.alloc[i].base + off, value, count);
  return OK;
}

CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned value, size_t count) {
  size_t off = 0;
  int i = count > SIZE_MAX / 4 ? -1 : find_alloc(dst, 4 * count, &off);
  record("cuMemsetD32_v2 dst=dev%d+%zu value=0x%08x count=%zu", i, off, value, count);
  if (i < 0 || dst % 4) return INVALID_VALUE;
  for (size_t k = 0; k < count; k++)
    memcpy(fake.alloc[i].base + off + 4 * k, &value, 4);
  return OK;
}

CUresult cuStreamCreate(CUstream *stream, unsigned flags) {
  record("cuStreamCreate flags=%u", flags);
  *stream = (CUstream)&fake.stream;
  return OK;
}

CUresult cuStreamSynchronize(CUstream stream) {
  record("cuStreamSynchronize stream=%s", (void *)stream == &fake.stream ? "created" : "other");
  return OK;
}

CUresult cuStreamDestroy_v2(CUstream stream) {
  record("cuStreamDestroy_v2 stream=%s", (void *)stream == &fake.stream ? "created" : "other");
  return OK;
}

/* out[i] = a[i] + b[i] for the global thread index i < n. */
static CUresult run_add_f32(void **params, unsigned threads) {
  CUdeviceptr a, b, out;
  uint32_t n;
  memcpy(&a, params[0], 8);
  memcpy(&b, params[1], 8);
  memcpy(&out, params[2], 8);
  memcpy(&n, params[3], 4);
  size_t off;
  if (find_alloc(a, 4ull * n, &off) < 0 || find_alloc(b, 4ull * n, &off) < 0 ||
      find_alloc(out, 4ull * n, &off) < 0)
    return INVALID_VALUE; /* a real GPU would fault */
  for (uint32_t i = 0; i < n && i < threads; i++)
    ((float *)(uintptr_t)out)[i] = ((float *)(uintptr_t)a)[i] + ((float *)(uintptr_t)b)[i];
  return OK;
}

CUresult cuLaunchKernel(CUfunction fn, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        CUstream stream, void **params, void **extra) {
  fake_function_t *f = (fake_function_t *)(void *)fn;
  char desc[1024] = "";
  size_t used = 0;
  for (int i = 0; params && i < f->nparams && used < sizeof desc; i++) {
    const char *sep = i ? "," : "";
    if (f->size[i] == 8) {
      CUdeviceptr v;
      memcpy(&v, params[i], 8);
      size_t off;
      int a = find_alloc(v, 0, &off);
      used += (size_t)(a >= 0 ? snprintf(desc + used, sizeof desc - used, "%sdev%d+%zu", sep, a, off)
                              : snprintf(desc + used, sizeof desc - used, "%s0x%llx", sep, v));
    } else {
      uint32_t v;
      memcpy(&v, params[i], 4);
      used += (size_t)snprintf(desc + used, sizeof desc - used, "%su32:%u", sep, v);
    }
  }
  record("cuLaunchKernel fn=%s grid=%u,%u,%u block=%u,%u,%u shared=%u stream=%s "
         "params=%s extra=%s", f->name, gx, gy, gz, bx, by, bz, shared,
         (void *)stream == &fake.stream ? "created" : "other", desc, extra ? "set" : "null");
  if (f->nparams && !params) return INVALID_VALUE;
  /* As a real driver: more than 1024 threads, or more dynamic shared
   * memory than the kernel opted into, is refused. */
  if ((unsigned long long)bx * by * bz > 1024 || shared > f->max_dynamic_shared)
    return INVALID_VALUE;
  if (strcmp(f->name, "add_f32") == 0 && f->nparams == 4)
    return run_add_f32(params, gx * gy * gz * bx * by * bz);
  return OK;
}
