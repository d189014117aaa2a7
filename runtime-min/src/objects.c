/* Reference counting and the host-facing objects built on it: instance,
 * buffers and buffer views, plus device creation by name. A view always
 * fits inside its buffer (checked at creation with overflow-safe math),
 * which is what lets kernels trust binding lengths. */
#include <string.h>

#include "runtime_internal.h"

void krt_ref_retain(krt_ref_t *ref) {
  if (ref) atomic_fetch_add_explicit(&ref->count, 1, memory_order_relaxed);
}

void krt_ref_release(krt_ref_t *ref) {
  if (!ref) return;
  if (atomic_fetch_sub_explicit(&ref->count, 1, memory_order_acq_rel) != 1)
    return;
  switch ((krt_ref_type_t)ref->type) {
    case KRT_REF_BUFFER: krt_buffer_destroy((kiln_buffer_t *)ref); break;
    case KRT_REF_BUFFER_VIEW:
      krt_buffer_view_destroy((kiln_buffer_view_t *)ref);
      break;
    case KRT_REF_COMMAND_BUFFER:
      krt_command_buffer_destroy((krt_command_buffer_t *)ref);
      break;
#ifdef KILN_WITH_SEQUENCES /* no list exists without it */
    case KRT_REF_LIST: krt_list_destroy((krt_list_t *)ref); break;
#endif
  }
}

const char *krt_ref_type_name(const krt_ref_t *ref) {
  if (!ref) return "null";
  switch ((krt_ref_type_t)ref->type) {
    case KRT_REF_BUFFER: return "buffer";
    case KRT_REF_BUFFER_VIEW: return "buffer_view";
    case KRT_REF_COMMAND_BUFFER: return "command_buffer";
#ifdef KILN_WITH_SEQUENCES
    case KRT_REF_LIST: return "list";
#endif
  }
  return "?";
}

/* ---- instance ------------------------------------------------------------ */

kiln_status_t kiln_instance_create(kiln_allocator_t allocator,
                                   kiln_instance_t **out_instance) {
  *out_instance = NULL;
  if (!allocator.alloc || !allocator.free)
    return krt_status(NULL, KILN_STATUS_INVALID_ARGUMENT, "no allocator");
  kiln_instance_t *inst =
      allocator.alloc(allocator.self, sizeof *inst, _Alignof(kiln_instance_t));
  if (!inst)
    return krt_oom(NULL);
  memset(inst, 0, sizeof *inst);
  atomic_init(&inst->refs, 1);
  inst->allocator = allocator;
  *out_instance = inst;
  return NULL;
}

void kiln_instance_retain(kiln_instance_t *instance) {
  if (instance) atomic_fetch_add(&instance->refs, 1);
}

void kiln_instance_release(kiln_instance_t *instance) {
  if (!instance || atomic_fetch_sub(&instance->refs, 1) != 1) return;
  kiln_allocator_t a = instance->allocator;
  a.free(a.self, instance);
}

/* ---- devices ------------------------------------------------------------- */

const char *kiln_device_available(void) {
  return "local-sync"
#ifdef KILN_WITH_LOCAL_TASK
         ", local-task"
#endif
#ifdef KILN_WITH_CUDA
         ", cuda"
#endif
      ;
}

kiln_status_t kiln_device_create(kiln_instance_t *instance, const char *name,
                                 const kiln_device_options_t *options,
                                 kiln_device_t **out_device) {
  *out_device = NULL;
  kiln_device_options_t defaults;
  memset(&defaults, 0, sizeof defaults);
  if (!options) options = &defaults;
#ifndef KILN_WITH_PROFILE
  if (options->dispatch_observer) /* refused rather than ignored */
    return krt_status(&instance->allocator, KILN_STATUS_UNIMPLEMENTED,
                      "dispatch observers: KILN_RUNTIME_PROFILE=OFF");
#endif
  kiln_status_t s = NULL;
  if (name && strcmp(name, "local-sync") == 0)
    s = krt_local_device_create(instance, false, options->worker_count,
                                out_device);
#ifdef KILN_WITH_LOCAL_TASK
  else if (name && strcmp(name, "local-task") == 0)
    s = krt_local_device_create(instance, true, options->worker_count,
                                out_device);
#endif
#ifdef KILN_WITH_CUDA
  else if (name && strcmp(name, "cuda") == 0)
    s = krt_cuda_device_create(instance, options->cuda_ordinal, out_device);
#endif
  else
    s = krt_status(&instance->allocator, KILN_STATUS_NOT_FOUND,
                    "unknown device '%s' (this build has: %s)",
                    name ? name : "(null)", kiln_device_available());

  if (!s) {
    pthread_mutex_init(&(*out_device)->pool_lock, NULL);
    (*out_device)->max_buffer_bytes = options->max_buffer_bytes;
    (*out_device)->max_steps = options->max_steps;
#ifdef KILN_WITH_PROFILE
    (*out_device)->observer = options->dispatch_observer;
    (*out_device)->observer_user = options->dispatch_observer_user;
#endif
  }
  return s;
}

void kiln_device_retain(kiln_device_t *device) {
  if (device) atomic_fetch_add(&device->refs, 1);
}

void kiln_device_release(kiln_device_t *device) {
  if (!device || atomic_fetch_sub(&device->refs, 1) != 1) return;
  kiln_instance_t *inst = device->instance;
  krt_pool_trim(device);
  pthread_mutex_destroy(&device->pool_lock);
  device->vt->destroy(device);
  kiln_instance_release(inst);
}

const char *kiln_device_name(const kiln_device_t *device) {
  return device->name;
}

const char *kiln_device_target(const kiln_device_t *device) {
  return device->target;
}

/* ---- buffers ------------------------------------------------------------- */

static kiln_buffer_t *buffer_new(kiln_device_t *device, uint64_t length) {
  kiln_buffer_t *b = krt_pool_alloc(device, sizeof *b, KRT_POOL_ZERO);
  if (!b) return NULL;
  atomic_init(&b->ref.count, 1);
  b->ref.type = KRT_REF_BUFFER;
  b->device = device;
  kiln_device_retain(device);
  b->length = length;
  return b;
}

kiln_status_t krt_buffer_allocate(kiln_device_t *device, uint64_t byte_length,
                                  bool zero, kiln_buffer_t **out_buffer) {
  *out_buffer = NULL;
  if (device->max_buffer_bytes && byte_length > device->max_buffer_bytes)
    return krt_status(device->allocator, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "a %llu-byte buffer exceeds the device's limit of %llu",
                      (unsigned long long)byte_length,
                      (unsigned long long)device->max_buffer_bytes);
  kiln_buffer_t *b = buffer_new(device, byte_length);
  if (!b)
    return krt_status(device->allocator, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory allocating a buffer object");
  kiln_status_t s = device->vt->buffer_alloc(device, b, zero);
  if (s) {
    krt_pool_free(device, b);
    kiln_device_release(device);
    return s;
  }
  b->owned = true;
  *out_buffer = b;
  return NULL;
}

kiln_status_t kiln_buffer_allocate(kiln_device_t *device, uint64_t byte_length,
                                   kiln_buffer_t **out_buffer) {
  return krt_buffer_allocate(device, byte_length, true, out_buffer);
}

kiln_status_t krt_buffer_wrap(kiln_device_t *device, kiln_module_t *owner,
                              uint8_t *host, uint64_t length,
                              kiln_buffer_t **out) {
  *out = NULL;
  kiln_buffer_t *b = buffer_new(device, length);
  if (!b)
    return krt_status(device->allocator, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory wrapping a buffer");
  b->host = host;
  b->owner = owner;
  if (owner) kiln_module_retain(owner);
  *out = b;
  return NULL;
}

void krt_buffer_destroy(kiln_buffer_t *b) {
  kiln_device_t *device = b->device;
  if (b->owned) device->vt->buffer_free(device, b);
  if (b->owner) kiln_module_release(b->owner);
  krt_pool_free(device, b);
  kiln_device_release(device);
}

void kiln_buffer_retain(kiln_buffer_t *buffer) {
  krt_ref_retain(buffer ? &buffer->ref : NULL);
}
void kiln_buffer_release(kiln_buffer_t *buffer) {
  krt_ref_release(buffer ? &buffer->ref : NULL);
}
uint64_t kiln_buffer_byte_length(const kiln_buffer_t *buffer) {
  return buffer->length;
}

static kiln_status_t check_range(const kiln_buffer_t *b, uint64_t offset,
                                 uint64_t length) {
  if (offset > b->length || length > b->length - offset)
    return krt_status(b->device->allocator, KILN_STATUS_OUT_OF_RANGE,
                      "range %llu+%llu exceeds the %llu-byte buffer",
                      (unsigned long long)offset, (unsigned long long)length,
                      (unsigned long long)b->length);
  return NULL;
}

kiln_status_t kiln_buffer_write(kiln_buffer_t *buffer, uint64_t offset,
                                const void *src, uint64_t length) {
  kiln_status_t s = check_range(buffer, offset, length);
  if (s || length == 0) return s;
  return buffer->device->vt->buffer_write(buffer->device, buffer, offset, src,
                                          length);
}

kiln_status_t kiln_buffer_read(kiln_buffer_t *buffer, uint64_t offset,
                               void *dst, uint64_t length) {
  kiln_status_t s = check_range(buffer, offset, length);
  if (s || length == 0) return s;
  return buffer->device->vt->buffer_read(buffer->device, buffer, offset, dst,
                                         length);
}

/* ---- buffer views -------------------------------------------------------- */

#ifdef KILN_WITH_TEXT
/* The element count of dims; false on a negative dim or overflow. */
static bool shape_count(uint32_t rank, const int64_t *dims, uint64_t *n) {
  *n = 1;
  for (uint32_t i = 0; i < rank; ++i)
    if (dims[i] < 0 || __builtin_mul_overflow(*n, (uint64_t)dims[i], n))
      return false;
  return true;
}

/* A str view's byte length: its layout checked where the host sees the
 * buffer (text is read and written by host code, never by kernels). */
static kiln_status_t strings_check(const kiln_allocator_t *a, const uint8_t *p,
                                   uint64_t avail, uint32_t rank,
                                   const int64_t *dims, uint64_t *bytes) {
  uint64_t n, at;
  if (!shape_count(rank, dims, &n))
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "shape has a negative dimension or overflows");
  const char *why = krt_strings_check(p, avail, n, bytes, &at);
  if (why)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "str tensor of %llu elements %s (element %llu)",
                      (unsigned long long)n, why, (unsigned long long)at);
  return NULL;
}

static kiln_status_t strings_bytes(kiln_buffer_t *buffer, uint64_t offset,
                                   uint32_t rank, const int64_t *dims,
                                   uint64_t *bytes) {
  const kiln_allocator_t *a = buffer->device->allocator;
  if (!buffer->host)
    return krt_status(a, KILN_STATUS_UNIMPLEMENTED,
                      "str tensors live in host memory; this device's "
                      "buffers are not host-addressable");
  if (offset > buffer->length)
    return krt_status(a, KILN_STATUS_OUT_OF_RANGE,
                      "buffer view: offset %llu past the buffer's %llu bytes",
                      (unsigned long long)offset,
                      (unsigned long long)buffer->length);
  return strings_check(a, buffer->host + offset, buffer->length - offset, rank,
                       dims, bytes);
}
#endif /* KILN_WITH_TEXT */

kiln_status_t kiln_buffer_view_create(kiln_buffer_t *buffer,
                                      uint64_t byte_offset,
                                      kiln_element_type_t element_type,
                                      uint32_t rank, const int64_t *dims,
                                      kiln_buffer_view_t **out_view) {
  *out_view = NULL;
  const kiln_allocator_t *a = buffer->device->allocator;
  if ((unsigned)element_type >= KILN_ELEMENT_COUNT ||
      element_type == KILN_ELEMENT_NONE)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "invalid element type %d", (int)element_type);
  if (rank > KILN_MAX_RANK)
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "rank %u exceeds the maximum %d", rank, KILN_MAX_RANK);
  uint64_t bytes;
  kiln_status_t s;
#ifdef KILN_WITH_TEXT
  if (element_type == KILN_ELEMENT_STR) {
    s = strings_bytes(buffer, byte_offset, rank, dims, &bytes);
    if (s) return s;
  } else
#endif /* without text, str has no size: refused as a bad shape */
  if (!krt_shape_bytes(element_type, rank, dims, &bytes))
    return krt_status(a, KILN_STATUS_INVALID_ARGUMENT,
                      "shape has a negative dimension or overflows");
  s = check_range(buffer, byte_offset, bytes);
  if (s) return krt_status_prefix(s, "buffer view");
  kiln_buffer_view_t *v = krt_pool_alloc(buffer->device, sizeof *v, KRT_POOL_ZERO);
  if (!v)
    return krt_status(a, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "out of memory creating a buffer view");
  atomic_init(&v->ref.count, 1);
  v->ref.type = KRT_REF_BUFFER_VIEW;
  v->buffer = buffer;
  kiln_buffer_retain(buffer);
  v->offset = byte_offset;
  v->byte_length = bytes;
  v->element_type = element_type;
  v->rank = rank;
  for (uint32_t i = 0; i < rank; ++i) v->dims[i] = dims[i];
  *out_view = v;
  return NULL;
}

kiln_status_t kiln_buffer_view_from_host(kiln_device_t *device,
                                         kiln_element_type_t element_type,
                                         uint32_t rank, const int64_t *dims,
                                         const void *data, uint64_t data_length,
                                         kiln_buffer_view_t **out_view) {
  *out_view = NULL;
  uint64_t bytes;
#ifdef KILN_WITH_TEXT
  if (element_type == KILN_ELEMENT_STR && rank <= KILN_MAX_RANK) {
    kiln_status_t s = strings_check(device->allocator, (const uint8_t *)data,
                                    data_length, rank, dims, &bytes);
    if (s) return s;
  } else
#endif
  if (rank > KILN_MAX_RANK || !krt_shape_bytes(element_type, rank, dims, &bytes))
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "invalid shape or element type");
  if (bytes != data_length)
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "shape needs %llu bytes, got %llu",
                      (unsigned long long)bytes,
                      (unsigned long long)data_length);
  kiln_buffer_t *buffer;
  kiln_status_t s = kiln_buffer_allocate(device, bytes, &buffer);
  if (s) return s;
  s = kiln_buffer_write(buffer, 0, data, bytes);
  if (!s)
    s = kiln_buffer_view_create(buffer, 0, element_type, rank, dims,
                                out_view);
  kiln_buffer_release(buffer);
  return s;
}

void krt_buffer_view_destroy(kiln_buffer_view_t *view) {
  kiln_buffer_t *buffer = view->buffer;
  krt_pool_free(buffer->device, view);
  kiln_buffer_release(buffer);
}

void kiln_buffer_view_retain(kiln_buffer_view_t *view) {
  krt_ref_retain(view ? &view->ref : NULL);
}
void kiln_buffer_view_release(kiln_buffer_view_t *view) {
  krt_ref_release(view ? &view->ref : NULL);
}
kiln_element_type_t kiln_buffer_view_element_type(const kiln_buffer_view_t *v) {
  return v->element_type;
}
uint32_t kiln_buffer_view_rank(const kiln_buffer_view_t *view) {
  return view->rank;
}
int64_t kiln_buffer_view_dim(const kiln_buffer_view_t *view, uint32_t i) {
  return i < view->rank ? view->dims[i] : 0;
}
const int64_t *kiln_buffer_view_dims(const kiln_buffer_view_t *view) {
  return view->dims;
}
uint64_t kiln_buffer_view_element_count(const kiln_buffer_view_t *view) {
  uint64_t n = 1;
  for (uint32_t i = 0; i < view->rank; ++i) n *= (uint64_t)view->dims[i];
  return n;
}
uint64_t kiln_buffer_view_byte_length(const kiln_buffer_view_t *view) {
  return view->byte_length;
}
kiln_buffer_t *kiln_buffer_view_buffer(const kiln_buffer_view_t *view) {
  return view->buffer;
}
void kiln_buffer_view_type(const kiln_buffer_view_t *view,
                           kiln_tensor_type_t *out_type) {
  memset(out_type, 0, sizeof *out_type);
  out_type->element_type = view->element_type;
  out_type->rank = view->rank;
  for (uint32_t i = 0; i < view->rank; ++i) out_type->dims[i] = view->dims[i];
}
kiln_status_t kiln_buffer_view_read(const kiln_buffer_view_t *view, void *dst,
                                    uint64_t length) {
  if (length != view->byte_length)
    return krt_status(view->buffer->device->allocator,
                      KILN_STATUS_INVALID_ARGUMENT,
                      "view holds %llu bytes, destination has %llu",
                      (unsigned long long)view->byte_length,
                      (unsigned long long)length);
  return kiln_buffer_read(view->buffer, view->offset, dst, length);
}
