/* CUDA device access for the cuda device of runtime-min, through the
 * driver library opened at run time (dlopen of libcuda.so.1, or the path
 * in the KILN_CUDA_LIBRARY environment variable): no link-time or header
 * dependency on CUDA. Offers what a dispatch needs: open a device, its
 * compute capability, load PTX (the JIT's error log reaches the message),
 * look up kernels, allocate/copy memory, launch, synchronize.
 *
 * Errors: functions return KILN_CUDA_OK (0) or a code below, with a
 * NUL-terminated message in the caller's buffer (msg may be NULL when
 * msg_cap is 0). A device is used by one thread at a time; each call makes
 * the device's context current on the calling thread. */
#ifndef KILN_CUDA_DRIVER_H
#define KILN_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

enum {
  KILN_CUDA_OK = 0,
  KILN_CUDA_ERR_NO_DRIVER = 1, /* driver library missing or incomplete */
  KILN_CUDA_ERR_NO_DEVICE = 2, /* no GPU, or ordinal out of range */
  KILN_CUDA_ERR_DRIVER = 3,    /* a driver call failed (PTX JIT included) */
  KILN_CUDA_ERR_INVALID = 4,   /* bad argument from the caller */
};

/* Most kernel parameters (bindings + push constants) one launch passes. */
#define KILN_CUDA_MAX_PARAMS 256u

typedef struct kiln_cuda_device kiln_cuda_device_t;
typedef struct kiln_cuda_module_opaque *kiln_cuda_module_t;
typedef struct kiln_cuda_function_opaque *kiln_cuda_function_t;

int kiln_cuda_open(int ordinal, kiln_cuda_device_t **out, char *msg,
                   size_t msg_cap);
void kiln_cuda_close(kiln_cuda_device_t *device); /* NULL-safe */

/* Compute capability, e.g. 8 and 6 for sm_86, and the device name. */
void kiln_cuda_compute_capability(const kiln_cuda_device_t *device, int *major,
                                  int *minor);
const char *kiln_cuda_device_name(const kiln_cuda_device_t *device);
/* Shared memory (static + dynamic) one block may use after opting in, in
 * bytes; 0 when the driver does not say. */
uint32_t kiln_cuda_max_shared_memory(const kiln_cuda_device_t *device);

/* PTX is NUL-terminated text. */
int kiln_cuda_module_load(kiln_cuda_device_t *device, const char *ptx,
                          kiln_cuda_module_t *out, char *msg, size_t msg_cap);
void kiln_cuda_module_unload(kiln_cuda_device_t *device,
                             kiln_cuda_module_t module);
int kiln_cuda_function(kiln_cuda_device_t *device, kiln_cuda_module_t module,
                       const char *name, kiln_cuda_function_t *out, char *msg,
                       size_t msg_cap);

int kiln_cuda_alloc(kiln_cuda_device_t *device, size_t bytes, uint64_t *out,
                    char *msg, size_t msg_cap);
void kiln_cuda_free(kiln_cuda_device_t *device, uint64_t ptr);
int kiln_cuda_copy_to_device(kiln_cuda_device_t *device, uint64_t dst,
                             const void *src, size_t bytes, char *msg,
                             size_t msg_cap);
int kiln_cuda_copy_to_host(kiln_cuda_device_t *device, void *dst, uint64_t src,
                           size_t bytes, char *msg, size_t msg_cap);
/* Device to device; the ranges may overlap (memmove semantics). */
int kiln_cuda_copy_on_device(kiln_cuda_device_t *device, uint64_t dst,
                             uint64_t src, size_t bytes, char *msg,
                             size_t msg_cap);
/* Fills [dst, dst + bytes) with the 4-byte little-endian pattern repeated
 * from dst (byte i gets pattern byte i % 4), at any alignment. */
int kiln_cuda_fill(kiln_cuda_device_t *device, uint64_t dst, uint32_t pattern,
                   size_t bytes, char *msg, size_t msg_cap);

/* One kernel launch: grid = workgroup count, block = workgroup size; the
 * kernel's parameters are the binding device pointers, then the 32-bit
 * push constants, in order. */
typedef struct kiln_cuda_launch {
  uint32_t grid[3];
  uint32_t block[3];
  uint32_t shared_bytes; /* dynamic shared memory */
  uint32_t binding_count;
  const uint64_t *bindings;
  uint32_t push_constant_count;
  const uint32_t *push_constants;
} kiln_cuda_launch_t;

/* Enqueues on the device's stream; kiln_cuda_sync waits for it. */
int kiln_cuda_launch(kiln_cuda_device_t *device, kiln_cuda_function_t function,
                     const kiln_cuda_launch_t *launch, char *msg,
                     size_t msg_cap);
int kiln_cuda_sync(kiln_cuda_device_t *device, char *msg, size_t msg_cap);

#endif /* KILN_CUDA_DRIVER_H */
