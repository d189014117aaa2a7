/* The cuda device: buffers are device memory, executables are PTX loaded
 * once per module with the JIT's error log in any failure, dispatches are
 * cuLaunchKernel with the binding pointers then the push constants
 * (grid = workgroup count; block and dynamic shared memory from the
 * variant's launch metadata, or the export's workgroup size and none for
 * modules without it), all
 * through the driver wrapper in src/cuda (dlopen; no CUDA at build time).
 * The wrapper serves one thread at a time, so every use takes the device
 * lock. The variant chosen is the PTX with the highest SM version not
 * above the GPU's. */
#include <string.h>

#include "cuda_driver.h"
#include "runtime_internal.h"

typedef struct cuda_device {
  kiln_device_t base;
  kiln_cuda_device_t *cu;
  pthread_mutex_t lock;
  uint32_t sm; /* e.g. 86 */
} cuda_device_t;

/* How one export launches in the loaded variant. */
typedef struct cuda_launch {
  kiln_cuda_function_t function;
  uint32_t block[3];
  uint32_t dynamic_shared_bytes;
} cuda_launch_t;

typedef struct cuda_executable {
  kiln_cuda_module_t module;
  const krt_executable_t *exe;
  cuda_launch_t exports[];
} cuda_executable_t;

#define A (device->allocator)
#define CU(device) (((cuda_device_t *)(device))->cu)

static kiln_status_t driver_error(kiln_device_t *device, int rc,
                                  const char *msg) {
  return krt_status(A,
                    rc == KILN_CUDA_ERR_NO_DRIVER || rc == KILN_CUDA_ERR_NO_DEVICE
                        ? KILN_STATUS_UNAVAILABLE
                        : KILN_STATUS_INTERNAL,
                    "cuda: %s", msg);
}

static void cuda_destroy(kiln_device_t *device) {
  cuda_device_t *d = (cuda_device_t *)device;
  kiln_cuda_close(d->cu);
  pthread_mutex_destroy(&d->lock);
  krt_free(A, d);
}

static kiln_status_t cuda_buffer_alloc(kiln_device_t *device,
                                       kiln_buffer_t *buffer, bool zero) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  if (buffer->length > SIZE_MAX)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED, "buffer too large");
  pthread_mutex_lock(&d->lock);
  int rc = kiln_cuda_alloc(d->cu, buffer->length ? (size_t)buffer->length : 1,
                           &buffer->device_ptr, msg, sizeof msg);
  /* Local devices hand out zeroed memory; so does this one. */
  if (rc == KILN_CUDA_OK && buffer->length && zero) {
    rc = kiln_cuda_fill(d->cu, buffer->device_ptr, 0, (size_t)buffer->length,
                        msg, sizeof msg);
    if (rc != KILN_CUDA_OK) kiln_cuda_free(d->cu, buffer->device_ptr);
  }
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

static void cuda_buffer_free(kiln_device_t *device, kiln_buffer_t *buffer) {
  cuda_device_t *d = (cuda_device_t *)device;
  pthread_mutex_lock(&d->lock);
  kiln_cuda_free(d->cu, buffer->device_ptr);
  pthread_mutex_unlock(&d->lock);
}

static kiln_status_t cuda_buffer_write(kiln_device_t *device,
                                       kiln_buffer_t *buffer, uint64_t offset,
                                       const void *src, uint64_t length) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  const int rc = kiln_cuda_copy_to_device(d->cu, buffer->device_ptr + offset,
                                          src, (size_t)length, msg, sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

static kiln_status_t cuda_buffer_read(kiln_device_t *device,
                                      kiln_buffer_t *buffer, uint64_t offset,
                                      void *dst, uint64_t length) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  int rc = kiln_cuda_sync(d->cu, msg, sizeof msg);
  if (rc == KILN_CUDA_OK)
    rc = kiln_cuda_copy_to_host(d->cu, dst, buffer->device_ptr + offset,
                                (size_t)length, msg, sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

/* Block and dynamic shared memory per export: the variant's launch
 * metadata (verified at module open: one entry per export, CUDA-sized),
 * else, for modules without it, the export's workgroup size and none. An
 * export needing more shared memory than this GPU gives a block is
 * refused by name. */
static kiln_status_t cuda_launch_config(cuda_device_t *d,
                                        const kiln_module_t *module,
                                        uint32_t index, uint32_t variant,
                                        cuda_executable_t *ce) {
  kiln_device_t *device = &d->base;
  const uint32_t limit = kiln_cuda_max_shared_memory(d->cu);
  const krt_executable_t *exe = ce->exe;
  kiln_fb_ExecutableVariant_t v = kiln_fb_Executable_variants_at(
      kiln_fb_Module_executables_at(module->view.root, index), variant);
  const bool meta =
      kiln_fb_ExecutableVariant_exports_count(v) == exe->export_count;
  for (uint32_t i = 0; i < exe->export_count; ++i) {
    cuda_launch_t *l = &ce->exports[i];
    l->function = NULL;
    memcpy(l->block, exe->exports[i].workgroup_size, sizeof l->block);
    l->dynamic_shared_bytes = 0;
    if (!meta) continue;
    kiln_fb_VariantExport_t ve = kiln_fb_ExecutableVariant_exports_at(v, i);
    kiln_fb_Dim3_t b = kiln_fb_VariantExport_block_size(ve);
    l->block[0] = b.x;
    l->block[1] = b.y;
    l->block[2] = b.z;
    l->dynamic_shared_bytes =
        kiln_fb_VariantExport_dynamic_shared_memory_bytes(ve);
    /* Refused here with the numbers rather than by the launch. */
    const uint64_t shared =
        (uint64_t)kiln_fb_VariantExport_static_shared_memory_bytes(ve) +
        l->dynamic_shared_bytes;
    if (limit && shared > limit)
      return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                        "executable '%s' variant '%s' export '%s': %llu "
                        "bytes of shared memory per block (%u static + %u "
                        "dynamic), the GPU allows %u", exe->name,
                        exe->variants[variant].name, exe->exports[i].name,
                        (unsigned long long)shared,
                        kiln_fb_VariantExport_static_shared_memory_bytes(ve),
                        l->dynamic_shared_bytes, limit);
  }
  return NULL;
}

static kiln_status_t cuda_executable_load(kiln_device_t *device,
                                          kiln_module_t *module,
                                          uint32_t index, void **out) {
  cuda_device_t *d = (cuda_device_t *)device;
  *out = NULL;
  const krt_executable_t *exe = &module->executables[index];
  int best = -1;
  for (uint32_t i = 0; i < exe->variant_count; ++i) {
    const krt_variant_t *v = &exe->variants[i];
    if (v->format != kiln_fb_PayloadFormat_PTX || v->sm_version > d->sm)
      continue;
    if (best < 0 || v->sm_version > exe->variants[best].sm_version)
      best = (int)i;
  }
  if (best < 0) {
    char held[512];
    krt_describe_variants(exe, held, sizeof held);
    return krt_status(A, KILN_STATUS_INCOMPATIBLE,
                      "executable '%s' has no variant device cuda can run: the "
                      "device offers %s (PTX up to sm_%u); the module holds %s",
                      exe->name, device->target, d->sm, held);
  }
  const krt_variant_t *v = &exe->variants[best];
  const uint8_t *bytes;
  uint64_t size;
  void *owned;
  kiln_status_t s =
      krt_segment_bytes(module, v->segment, true, &bytes, &size, &owned);
  if (s) return krt_status_prefix(s, "executable '%s'", exe->name);
  /* The JIT takes NUL-terminated text. */
  char *ptx = size < SIZE_MAX ? krt_alloc(A, (size_t)size + 1) : NULL;
  cuda_executable_t *ce =
      krt_alloc(A, sizeof *ce + exe->export_count * sizeof(cuda_launch_t));
  if (!ptx || !ce) {
    krt_free(A, owned);
    krt_free(A, ptx);
    krt_free(A, ce);
    return krt_oom(A);
  }
  memcpy(ptx, bytes, (size_t)size);
  krt_free(A, owned);
  ce->exe = exe;
  s = cuda_launch_config(d, module, index, (uint32_t)best, ce);
  if (s) {
    krt_free(A, ptx);
    krt_free(A, ce);
    return s;
  }
  char msg[1024];
  pthread_mutex_lock(&d->lock);
  int rc = kiln_cuda_module_load(d->cu, ptx, &ce->module, msg, sizeof msg);
  for (uint32_t i = 0; rc == KILN_CUDA_OK && i < exe->export_count; ++i)
    rc = kiln_cuda_function(d->cu, ce->module, exe->exports[i].name,
                            &ce->exports[i].function, msg, sizeof msg);
  if (rc != KILN_CUDA_OK && ce->module)
    kiln_cuda_module_unload(d->cu, ce->module);
  pthread_mutex_unlock(&d->lock);
  krt_free(A, ptx);
  if (rc != KILN_CUDA_OK) {
    krt_free(A, ce);
    return krt_status(A,
                      rc == KILN_CUDA_ERR_DRIVER ? KILN_STATUS_DATA_LOSS
                                                 : KILN_STATUS_UNAVAILABLE,
                      "executable '%s' variant '%s': %s", exe->name, v->name,
                      msg);
  }
  *out = ce;
  return NULL;
}

static void cuda_executable_unload(kiln_device_t *device, void *handle) {
  cuda_device_t *d = (cuda_device_t *)device;
  cuda_executable_t *ce = handle;
  pthread_mutex_lock(&d->lock);
  kiln_cuda_module_unload(d->cu, ce->module);
  pthread_mutex_unlock(&d->lock);
  krt_free(A, ce);
}

static kiln_status_t cuda_dispatch(kiln_device_t *device, void *handle,
                                   uint32_t export_ordinal,
                                   const krt_dispatch_t *dispatch) {
  cuda_device_t *d = (cuda_device_t *)device;
  cuda_executable_t *ce = handle;
  const krt_export_t *ex = &ce->exe->exports[export_ordinal];
  const cuda_launch_t *cl = &ce->exports[export_ordinal];
  uint64_t ptrs[KRT_MAX_BINDINGS];
  for (uint32_t i = 0; i < dispatch->binding_count; ++i)
    ptrs[i] = dispatch->bindings[i].buffer->device_ptr +
              dispatch->bindings[i].offset;
  kiln_cuda_launch_t launch;
  memset(&launch, 0, sizeof launch);
  memcpy(launch.grid, dispatch->workgroup_count, sizeof launch.grid);
  memcpy(launch.block, cl->block, sizeof launch.block);
  for (int i = 0; i < 3; ++i)
    if (!launch.block[i]) launch.block[i] = 1;
  launch.shared_bytes = cl->dynamic_shared_bytes;
  launch.binding_count = dispatch->binding_count;
  launch.bindings = ptrs;
  launch.push_constant_count = dispatch->push_constant_count;
  launch.push_constants = dispatch->push_constants;
  if (!launch.grid[0] || !launch.grid[1] || !launch.grid[2]) return NULL;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  const int rc = kiln_cuda_launch(d->cu, cl->function, &launch, msg,
                                  sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK
             ? NULL
             : krt_status_prefix(driver_error(device, rc, msg), "kernel '%s'",
                                 ex->name);
}

static kiln_status_t cuda_wait(kiln_device_t *device) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  const int rc = kiln_cuda_sync(d->cu, msg, sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

/* Copies and fills stay on the device (the driver orders them with the
 * launches; see cuda_device.c). */
static kiln_status_t cuda_copy(kiln_device_t *device, kiln_buffer_t *src,
                               uint64_t src_offset, kiln_buffer_t *dst,
                               uint64_t dst_offset, uint64_t length) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  const int rc = kiln_cuda_copy_on_device(
      d->cu, dst->device_ptr + dst_offset, src->device_ptr + src_offset,
      (size_t)length, msg, sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

static kiln_status_t cuda_fill(kiln_device_t *device, kiln_buffer_t *dst,
                               uint64_t offset, uint64_t length,
                               uint32_t pattern) {
  cuda_device_t *d = (cuda_device_t *)device;
  char msg[512];
  pthread_mutex_lock(&d->lock);
  const int rc = kiln_cuda_fill(d->cu, dst->device_ptr + offset, pattern,
                                (size_t)length, msg, sizeof msg);
  pthread_mutex_unlock(&d->lock);
  return rc == KILN_CUDA_OK ? NULL : driver_error(device, rc, msg);
}

static kiln_status_t cuda_executables_load(kiln_device_t *device,
                                           kiln_module_t *module,
                                           void **handles, void **loaded) {
  *loaded = NULL;
  kiln_status_t s = NULL;
  for (uint32_t i = 0; i < module->executable_count && !s; ++i)
    s = cuda_executable_load(device, module, i, &handles[i]);
  return s;
}

static void cuda_executables_unload(kiln_device_t *device,
                                    kiln_module_t *module, void **handles,
                                    void *loaded) {
  (void)loaded;
  for (uint32_t i = 0; i < module->executable_count; ++i)
    if (handles[i]) cuda_executable_unload(device, handles[i]);
}

static const krt_device_vtable_t cuda_vtable = {
    cuda_destroy,         cuda_buffer_alloc, cuda_buffer_free,
    cuda_buffer_write,    cuda_buffer_read,  cuda_executables_load,
    cuda_executables_unload, cuda_dispatch,  cuda_wait,
    cuda_copy,            cuda_fill,
};

kiln_status_t krt_cuda_device_create(kiln_instance_t *instance,
                                     uint32_t ordinal, kiln_device_t **out) {
  *out = NULL;
  const kiln_allocator_t *a = &instance->allocator;
  char msg[512];
  kiln_cuda_device_t *cu = NULL;
  const int rc = kiln_cuda_open((int)ordinal, &cu, msg, sizeof msg);
  if (rc != KILN_CUDA_OK)
    return krt_status(a, KILN_STATUS_UNAVAILABLE,
                      "cuda device unavailable: %s", msg);
  cuda_device_t *d = krt_alloc(a, sizeof *d);
  if (!d) {
    kiln_cuda_close(cu);
    return krt_oom(a);
  }
  atomic_init(&d->base.refs, 1);
  d->base.vt = &cuda_vtable;
  d->base.instance = instance;
  d->base.allocator = a;
  d->base.name = "cuda";
  d->base.host_memory = false;
  d->cu = cu;
  pthread_mutex_init(&d->lock, NULL);
  int major = 0, minor = 0;
  kiln_cuda_compute_capability(cu, &major, &minor);
  d->sm = (uint32_t)(major * 10 + minor);
  snprintf(d->base.target, sizeof d->base.target, "sm_%u (%s)", d->sm,
           kiln_cuda_device_name(cu));
  kiln_instance_retain(instance);
  *out = &d->base;
  return NULL;
}
