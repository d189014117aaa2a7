/* hal.list.*: ONNX sequences at run time (KILN_RUNTIME_SEQUENCES). Takes
 * the list and view refs the bytecode passes and ONNX positions (negative
 * ones count from the end). Guarantees: a list is immutable once made, so
 * insert and erase build a new one and a list the program still holds (a
 * loop's previous value, a caller's input) never changes under it; every
 * element is a retained buffer view; a position out of range is a status
 * naming it and the valid range, never a read outside the array. Lists
 * take their memory from the device's pool: a steady state of calls
 * allocates nothing. Also runtime.h's kiln_sequence_* (the host's
 * handle on the same lists). */
#include "hal_internal.h"

#define A (call->allocator)

/* Longest list: keeps count * sizeof(pointer) far from overflow. */
#define KRT_LIST_MAX (1u << 28)

static kiln_status_t want_list(krt_call_t *call, const krt_ref_t *ref,
                               unsigned arg, krt_list_t **out) {
  if (!ref || ref->type != KRT_REF_LIST)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "argument %u: expected a sequence (list), got %s", arg,
                      krt_ref_type_name(ref));
  *out = (krt_list_t *)(uintptr_t)ref;
  return NULL;
}

kiln_status_t krt_list_new(kiln_device_t *device, uint32_t count,
                           krt_list_t **out) {
  krt_list_t *l = krt_pool_alloc(
      device, sizeof *l + (size_t)count * sizeof l->items[0], KRT_POOL_RAW);
  if (!l) return krt_oom(device->allocator);
  atomic_init(&l->ref.count, 1);
  l->ref.type = KRT_REF_LIST;
  kiln_device_retain(device);
  l->device = device;
  l->count = count;
  *out = l;
  return NULL;
}

void krt_list_destroy(krt_list_t *l) {
  for (uint32_t i = 0; i < l->count; ++i) kiln_buffer_view_release(l->items[i]);
  kiln_device_t *d = l->device;
  krt_pool_free(d, l);
  kiln_device_release(d);
}

/* ONNX position p of a list of n (n + 1 slots when inserting) as an
 * index, or a status naming it and the range. */
static kiln_status_t position(krt_call_t *call, int64_t p, uint32_t n,
                              bool insert, uint32_t *out) {
  const int64_t hi = insert ? (int64_t)n : (int64_t)n - 1;
  if (p < -(int64_t)n || p > hi)
    return krt_status(A, KILN_STATUS_OUT_OF_RANGE,
                      "position %lld is out of range for a sequence of %u "
                      "(%lld to %lld)",
                      (long long)p, n, -(long long)n, (long long)hi);
  *out = (uint32_t)(p < 0 ? p + n : p);
  return NULL;
}

kiln_status_t krt_list_create(krt_call_t *call, const krt_value_t *args,
                              uint32_t n, krt_value_t *results) {
  krt_list_t *l = NULL;
  kiln_status_t s = krt_list_new(call->device, 0, &l);
  if (!s) results[0].ref = &l->ref;
  return s;
}

kiln_status_t krt_list_size(krt_call_t *call, const krt_value_t *args,
                            uint32_t n, krt_value_t *results) {
  krt_list_t *l = NULL;
  kiln_status_t s = want_list(call, args[0].ref, 0, &l);
  if (!s) results[0].i64 = l->count;
  return s;
}

kiln_status_t krt_list_get(krt_call_t *call, const krt_value_t *args,
                           uint32_t n, krt_value_t *results) {
  krt_list_t *l = NULL;
  uint32_t i = 0;
  kiln_status_t s = want_list(call, args[0].ref, 0, &l);
  if (!s) s = position(call, args[1].i64, l->count, false, &i);
  if (s) return s;
  kiln_buffer_view_retain(l->items[i]);
  results[0].ref = &l->items[i]->ref;
  return NULL;
}

/* A new list of l's views with `add` inserted before index at (add NULL:
 * the view at `at` left out). */
static kiln_status_t rebuild(krt_call_t *call, const krt_list_t *l,
                             kiln_buffer_view_t *add, uint32_t at,
                             krt_value_t *result) {
  const uint32_t count = add ? l->count + 1 : l->count - 1;
  krt_list_t *r;
  kiln_status_t s = krt_list_new(call->device, count, &r);
  if (s) return s;
  for (uint32_t i = 0, o = 0; i <= l->count; ++i) {
    if (i == at && add) r->items[o++] = add;
    if (i == l->count) break;
    if (i == at && !add) continue;
    r->items[o++] = l->items[i];
  }
  for (uint32_t i = 0; i < count; ++i) kiln_buffer_view_retain(r->items[i]);
  result->ref = &r->ref;
  return NULL;
}

kiln_status_t krt_list_insert(krt_call_t *call, const krt_value_t *args,
                              uint32_t n, krt_value_t *results) {
  krt_list_t *l = NULL;
  uint32_t at = 0;
  kiln_status_t s = want_list(call, args[0].ref, 0, &l);
  if (s) return s;
  const krt_ref_t *v = args[1].ref;
  if (!v || v->type != KRT_REF_BUFFER_VIEW)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "argument 1: expected a tensor (buffer_view), got %s",
                      krt_ref_type_name(v));
  if (l->count >= KRT_LIST_MAX)
    return krt_status(A, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "a sequence holds at most %u tensors", KRT_LIST_MAX);
  s = position(call, args[2].i64, l->count, true, &at);
  if (s) return s;
  return rebuild(call, l, (kiln_buffer_view_t *)(uintptr_t)v, at, results);
}

kiln_status_t krt_list_erase(krt_call_t *call, const krt_value_t *args,
                             uint32_t n, krt_value_t *results) {
  krt_list_t *l = NULL;
  uint32_t at = 0;
  kiln_status_t s = want_list(call, args[0].ref, 0, &l);
  if (!s) s = position(call, args[1].i64, l->count, false, &at);
  if (s) return s;
  return rebuild(call, l, NULL, at, results);
}

/* ---- the public side (runtime.h) ------------------------------------------ */

kiln_status_t kiln_sequence_create(kiln_device_t *device,
                                   kiln_buffer_view_t *const *views,
                                   uint32_t count, kiln_sequence_t **out) {
  *out = NULL;
  if (count > KRT_LIST_MAX)
    return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                      "a sequence holds at most %u tensors", KRT_LIST_MAX);
  for (uint32_t i = 0; i < count; ++i) {
    if (!views[i])
      return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                        "sequence element %u is missing", i);
    if (views[i]->buffer->device != device)
      return krt_status(device->allocator, KILN_STATUS_INVALID_ARGUMENT,
                        "sequence element %u lives on device %s, the "
                        "sequence on %s", i, views[i]->buffer->device->name,
                        device->name);
  }
  kiln_status_t s = krt_list_new(device, count, out);
  if (s) return s;
  for (uint32_t i = 0; i < count; ++i) {
    kiln_buffer_view_retain(views[i]);
    (*out)->items[i] = views[i];
  }
  return NULL;
}

void kiln_sequence_retain(kiln_sequence_t *sequence) {
  krt_ref_retain(sequence ? &sequence->ref : NULL);
}

void kiln_sequence_release(kiln_sequence_t *sequence) {
  krt_ref_release(sequence ? &sequence->ref : NULL);
}

uint32_t kiln_sequence_size(const kiln_sequence_t *sequence) {
  return sequence->count;
}

kiln_buffer_view_t *kiln_sequence_at(const kiln_sequence_t *sequence,
                                     uint32_t i) {
  return i < sequence->count ? sequence->items[i] : NULL;
}
