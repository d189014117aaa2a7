/* Internal to runtime-min/src/cuda: the few CUDA driver types and
 * constants Kiln uses, declared here (values as in the driver's cuda.h) so
 * that nothing includes or links the CUDA toolkit, and the table of entry
 * points resolved at run time from the driver library. */
#ifndef KILN_CUDA_API_H
#define KILN_CUDA_API_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/message.h"

typedef int cu_result;
typedef int cu_device;
typedef unsigned long long cu_deviceptr;
typedef struct cu_context_opaque *cu_context;
typedef struct cu_module_opaque *cu_module;
typedef struct cu_function_opaque *cu_function;
typedef struct cu_stream_opaque *cu_stream;

#define CU_SUCCESS 0
#define CU_ERROR_NO_DEVICE 100
#define CU_ATTR_COMPUTE_CAPABILITY_MAJOR 75
#define CU_ATTR_COMPUTE_CAPABILITY_MINOR 76
#define CU_ATTR_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define CU_FUNC_ATTR_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_STREAM_DEFAULT 0u
/* Dynamic shared memory a kernel may use without opting in. */
#define CU_DEFAULT_DYNAMIC_SHARED_LIMIT (48u * 1024u)

typedef struct kiln_cuda_api {
  void *library; /* dlopen handle */
#define KILN_CUDA_FN(member, sym, fallback, params) cu_result(*member) params;
#define KILN_CUDA_OPTIONAL_FN(member, sym, params) cu_result(*member) params;
#include "cuda_symbols.def"
#undef KILN_CUDA_FN
} kiln_cuda_api_t;

/* Opens the driver library (KILN_CUDA_LIBRARY or "libcuda.so.1") and
 * resolves every entry point (optional ones may stay NULL); on failure
 * closes it again. */
int kiln_cuda_api_open(kiln_cuda_api_t *api, char *msg, size_t msg_cap);
void kiln_cuda_api_close(kiln_cuda_api_t *api);

/* Formats "CALL failed: NAME (description)" plus an optional suffix into
 * msg and returns KILN_CUDA_ERR_DRIVER (or KILN_CUDA_ERR_NO_DEVICE for
 * CUDA_ERROR_NO_DEVICE). */
int kiln_cuda_fail_result(const kiln_cuda_api_t *api, cu_result r,
                          const char *call, const char *suffix, char *msg,
                          size_t msg_cap);

/* Formats a message into msg (if any) and returns CODE. */
#define kiln_cuda_fail KILN_MESSAGE_AT_SITE

#endif /* KILN_CUDA_API_H */
