/* Opening the CUDA driver library and resolving its entry points by name
 * (cuda_symbols.def), plus turning a CUresult into a message with the
 * driver's own error name and description. A missing library or symbol is
 * reported by name, so "no driver here" and "driver too old" read
 * differently. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_api.h"
#include "cuda_driver.h"

#define DEFAULT_LIBRARY "libcuda.so.1"

int kiln_cuda_api_open(kiln_cuda_api_t *api, char *msg, size_t msg_cap) {
  memset(api, 0, sizeof *api);
  const char *path = getenv("KILN_CUDA_LIBRARY");
  if (!path || !*path) path = DEFAULT_LIBRARY;
  api->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!api->library) {
    const char *why = dlerror();
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_NO_DRIVER,
                          "CUDA driver library %.200s not found: %.300s", path,
                          why ? why : "dlopen failed");
  }
  void *p;
#define KILN_CUDA_FN(member, sym, fallback, params)                          \
  p = dlsym(api->library, sym);                                              \
  if (!p && (fallback)[0]) p = dlsym(api->library, fallback);                \
  if (!p) {                                                                  \
    kiln_cuda_api_close(api);                                                \
    return kiln_cuda_fail(msg, msg_cap, KILN_CUDA_ERR_NO_DRIVER,             \
                          "CUDA driver library %.200s lacks %s", path, sym); \
  }                                                                          \
  memcpy(&api->member, &p, sizeof p);
#define KILN_CUDA_OPTIONAL_FN(member, sym, params) \
  p = dlsym(api->library, sym);                    \
  memcpy(&api->member, &p, sizeof p);
#include "cuda_symbols.def"
#undef KILN_CUDA_FN
  return KILN_CUDA_OK;
}

void kiln_cuda_api_close(kiln_cuda_api_t *api) {
  if (api->library) dlclose(api->library);
  memset(api, 0, sizeof *api);
}

int kiln_cuda_fail_result(const kiln_cuda_api_t *api, cu_result r,
                          const char *call, const char *suffix, char *msg,
                          size_t msg_cap) {
  const char *name = NULL, *text = NULL;
  if (api->GetErrorName(r, &name) != CU_SUCCESS || !name) name = "CUDA_ERROR_UNKNOWN_CODE";
  if (api->GetErrorString(r, &text) != CU_SUCCESS || !text) text = "unknown error";
  return kiln_cuda_fail(msg, msg_cap,
                        r == CU_ERROR_NO_DEVICE ? KILN_CUDA_ERR_NO_DEVICE
                                                : KILN_CUDA_ERR_DRIVER,
                        "%s failed: %s (%d: %s)%s%s", call, name, r, text,
                        suffix && *suffix ? ": " : "", suffix ? suffix : "");
}
