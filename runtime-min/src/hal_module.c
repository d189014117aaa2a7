/* The HAL native module: the functions of kiln/hal_imports.def that bytecode
 * reaches through call.import. Arguments arrive as VM values shaped by the
 * verified signature, so counts are right; what each native still checks
 * is what bytecode cannot prove: ref types, null refs, ordinals and byte
 * ranges. Every failure is a status naming the argument. */
#include <stdio.h>
#include <string.h>

#include "hal_internal.h"

#define A (call->allocator)

static kiln_status_t want(krt_call_t *call, krt_ref_t *ref,
                          krt_ref_type_t type, unsigned arg, void **out) {
  if (!ref || ref->type != (uint32_t)type) {
    krt_ref_t probe = {0, (uint32_t)type};
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "%s %u: expected %s, got %s", "argument", arg,
                      krt_ref_type_name(&probe), krt_ref_type_name(ref));
  }
  *out = ref;
  return NULL;
}

#define WANT(T, var, arg, type)                                     \
  T *var = NULL;                                                    \
  do {                                                              \
    kiln_status_t s_ = want(call, args[arg].ref, type, arg, (void **)&var); \
    if (s_) return s_;                                              \
  } while (0)

static kiln_status_t buffer_allocate(krt_call_t *call, const krt_value_t *args,
                                     krt_value_t *results, bool zero) {
  if (args[0].i64 < 0)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "negative allocation size %lld",
                      (long long)args[0].i64);
  kiln_buffer_t *b;
  kiln_status_t s =
      krt_buffer_allocate(call->device, (uint64_t)args[0].i64, zero, &b);
  if (s) return s;
  results[0].ref = &b->ref;
  return NULL;
}

static kiln_status_t hal_buffer_allocate(krt_call_t *call,
                                         const krt_value_t *args, uint32_t n,
                                         krt_value_t *results) {
  return buffer_allocate(call, args, results, true);
}

/* The compiler's proof that every byte is written first (plan-memory's
 * {uninitialized}) spares the clearing: 10 MB a call for MobileNetV2. */
static kiln_status_t hal_buffer_allocate_uninitialized(
    krt_call_t *call, const krt_value_t *args, uint32_t n,
    krt_value_t *results) {
  return buffer_allocate(call, args, results, false);
}

static kiln_status_t hal_buffer_rodata(krt_call_t *call,
                                       const krt_value_t *args, uint32_t n,
                                       krt_value_t *results) {
  kiln_module_t *m = call->module;
  const uint32_t i = (uint32_t)args[0].i32;
  if (i >= m->rodata_count)
    return krt_status(A, KILN_STATUS_OUT_OF_RANGE,
                      "%s %u out of range (module has %u)", "rodata", i,
                      m->rodata_count);
  if (!call->device->host_memory) {
    kiln_buffer_t *b = call->cache->rodata[i];
    kiln_buffer_retain(b);
    results[0].ref = &b->ref;
    return NULL;
  }
  kiln_buffer_t *b;
  /* Kernels only read it: the export's read-only flags are enforced when
   * a dispatch is recorded, so dropping const here is safe. */
  kiln_status_t s = krt_buffer_wrap(call->device, m,
                                    (uint8_t *)(uintptr_t)m->rodata_data[i],
                                    m->rodata_size[i], &b);
  if (s) return s;
  results[0].ref = &b->ref;
  return NULL;
}

static kiln_status_t hal_buffer_view_create(krt_call_t *call,
                                            const krt_value_t *args,
                                            uint32_t n, krt_value_t *results) {
  WANT(kiln_buffer_t, buffer, 0, KRT_REF_BUFFER);
  const int32_t rank = args[3].i32;
  if (rank > KILN_MAX_RANK)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                      "rank %d exceeds %d", rank, KILN_MAX_RANK);
  if (args[1].i64 < 0)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT, "negative offset");
  int64_t dims[KILN_MAX_RANK];
  for (int32_t i = 0; i < rank; ++i) dims[i] = args[4 + i].i64;
  kiln_buffer_view_t *v;
  kiln_status_t s = kiln_buffer_view_create(
      buffer, (uint64_t)args[1].i64, (kiln_element_type_t)args[2].i32,
      (uint32_t)rank, dims, &v);
  if (s) return s;
  results[0].ref = &v->ref;
  return NULL;
}

static kiln_status_t hal_buffer_view_buffer(krt_call_t *call,
                                            const krt_value_t *args,
                                            uint32_t n, krt_value_t *results) {
  WANT(kiln_buffer_view_t, v, 0, KRT_REF_BUFFER_VIEW);
  kiln_buffer_retain(v->buffer);
  results[0].ref = &v->buffer->ref;
  return NULL;
}

static kiln_status_t hal_buffer_view_byte_offset(krt_call_t *call,
                                                 const krt_value_t *args,
                                                 uint32_t n,
                                                 krt_value_t *results) {
  WANT(kiln_buffer_view_t, v, 0, KRT_REF_BUFFER_VIEW);
  results[0].i64 = (int64_t)v->offset;
  return NULL;
}

static kiln_status_t hal_buffer_view_dim(krt_call_t *call,
                                         const krt_value_t *args, uint32_t n,
                                         krt_value_t *results) {
  WANT(kiln_buffer_view_t, v, 0, KRT_REF_BUFFER_VIEW);
  if (args[1].i32 < 0 || (uint32_t)args[1].i32 >= v->rank)
    return krt_status(A, KILN_STATUS_OUT_OF_RANGE,
                      "dim %d of a rank-%u view", args[1].i32, v->rank);
  results[0].i64 = v->dims[args[1].i32];
  return NULL;
}

static kiln_status_t hal_buffer_view_rank(krt_call_t *call,
                                          const krt_value_t *args, uint32_t n,
                                          krt_value_t *results) {
  WANT(kiln_buffer_view_t, v, 0, KRT_REF_BUFFER_VIEW);
  results[0].i32 = (int32_t)v->rank;
  return NULL;
}

static kiln_status_t hal_buffer_view_assert(krt_call_t *call,
                                            const krt_value_t *args,
                                            uint32_t n, krt_value_t *results) {
  kiln_tensor_type_t want_t;
  memset(&want_t, 0, sizeof want_t);
  const int32_t rank = args[3].i32;
  want_t.element_type = (kiln_element_type_t)args[2].i32;
  want_t.rank = rank >= 0 && rank <= KILN_MAX_RANK ? (uint32_t)rank : 0;
  for (uint32_t i = 0; i < want_t.rank; ++i) want_t.dims[i] = args[4 + i].i64;
  const krt_ref_t *r = args[0].ref;
  const bool view = r && r->type == KRT_REF_BUFFER_VIEW;
  const kiln_buffer_view_t *v = (const kiln_buffer_view_t *)r;
  bool ok = view && rank >= 0 && (uint32_t)rank == v->rank &&
            want_t.element_type == v->element_type;
  for (uint32_t i = 0; ok && i < v->rank; ++i)
    ok = want_t.dims[i] < 0 || want_t.dims[i] == v->dims[i];
  if (ok) return NULL; /* every call: nothing formatted */
  char ws[160], gs[160];
#ifndef KILN_NO_MESSAGES
  kiln_tensor_type_format(&want_t, ws, sizeof ws);
  if (view) {
    kiln_tensor_type_t got_t;
    kiln_buffer_view_type(v, &got_t);
    kiln_tensor_type_format(&got_t, gs, sizeof gs);
  }
#endif
  return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                    "input %d: expected %s, got %s", args[1].i32, ws,
                    view ? gs : krt_ref_type_name(r));
}

/* "input 1 dimension 0" / "a dimension computed from the inputs" */
#ifndef KILN_NO_MESSAGES
static void where(char *buf, size_t n, int32_t input, int32_t dim) {
  if (input >= 0) snprintf(buf, n, "input %d dimension %d", input, dim);
  else snprintf(buf, n, "a dimension computed from the inputs");
}
#endif

static kiln_status_t hal_check_dim_eq(krt_call_t *call, const krt_value_t *args,
                                      uint32_t n, krt_value_t *results) {
  if (args[0].i64 == args[3].i64) return NULL;
  if (args[1].i32 == KILN_CHECK_RANGE) { /* $3: $0 clamped into its range */
    const char *noun = NULL;
#ifndef KILN_NO_MESSAGES
    /* noun $4 of the NUL-separated list (no pointer table: size) */
    static const char nouns[] = KILN_CHECK_RANGE_NOUNS;
    noun = nouns;
    for (uint32_t w = (uint32_t)args[4].i32; w && w <= KILN_CHECK_RANGE_LAST; w--)
      while (*noun++) {
      }
#endif
    return krt_status(A, KILN_STATUS_OUT_OF_RANGE, "%s[%d] is %lld, must be %c= %lld", noun,
                      args[2].i32, (long long)args[0].i64, args[0].i64 < args[3].i64 ? '>' : '<',
                      (long long)args[3].i64);
  }
  char a[64], b[96];
#ifndef KILN_NO_MESSAGES
  where(a, sizeof a, args[1].i32, args[2].i32);
  if (args[4].i32 == -2) snprintf(b, sizeof b, "%lld", (long long)args[3].i64);
  else where(b, sizeof b, args[4].i32, args[5].i32);
#endif
  if (args[4].i32 == -2)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT, "%s is %lld, must equal %s", a,
                      (long long)args[0].i64, b);
  return krt_status(A, KILN_STATUS_INVALID_ARGUMENT, "%s is %lld, must equal %s (%lld)", a,
                    (long long)args[0].i64, b, (long long)args[3].i64);
}

#ifdef KILN_WITH_SHAPE_DATA
/* A shape value from tensor data: an input's, read before any command
 * is recorded, or a dispatch result's, read after the hal.device.wait
 * that ends the commands computing it (the compiler orders both). The
 * buffer's own range check keeps the read inside it; the compiler reads
 * only elements of the view's static shape. */
static kiln_status_t hal_buffer_view_load(krt_call_t *call,
                                          const krt_value_t *args, uint32_t n,
                                          krt_value_t *results) {
  WANT(kiln_buffer_view_t, v, 0, KRT_REF_BUFFER_VIEW);
  const uint32_t bits = 8 * (uint32_t)kiln_element_type_size(v->element_type);
  if (!bits || bits > 64)
    return krt_status(A, KILN_STATUS_INVALID_ARGUMENT, "not an integer view");
  uint64_t x = 0; /* little-endian, sign-extended from its width */
  kiln_status_t s = kiln_buffer_read(v->buffer, v->offset + (uint64_t)args[1].i64 * (bits / 8), &x, bits / 8);
  results[0].i64 = (int64_t)(x << (64 - bits)) >> (64 - bits);
  return s;
}

/* Shapes that tensor data decides are checked once, whole: a negative or
 * huge value must fail here, before a byte count computed from it wraps.
 * The product saturates past the limit (a later 0 still empties it). */
static kiln_status_t hal_check_shape(krt_call_t *call, const krt_value_t *args,
                                     uint32_t n, krt_value_t *results) {
  const uint64_t limit = (uint64_t)1 << 62;
  uint64_t bytes = (uint64_t)args[0].i64;
  int32_t i = 0, over = 0;
  for (; i < args[1].i32 && args[2 + i].i64 >= 0; ++i) {
    const uint64_t d = (uint64_t)args[2 + i].i64;
    if (d && bytes > limit / d) over = bytes <= limit ? i : over, bytes = limit + 1;
    else bytes *= d;
  }
  if (i == args[1].i32) {
    if (bytes <= limit) return NULL;
    i = over;
  }
  return krt_status(A, KILN_STATUS_INVALID_ARGUMENT,
                    "dimension %d is %lld, %s", i, (long long)args[2 + i].i64,
                    args[2 + i].i64 < 0 ? "must be >= 0" : "past 2^62 bytes in all");
}
#endif

static kiln_status_t hal_command_buffer_create(krt_call_t *call,
                                               const krt_value_t *args,
                                               uint32_t n,
                                               krt_value_t *results) {
  krt_command_buffer_t *cb;
  kiln_status_t s = krt_command_buffer_create(call, &cb);
  if (s) return s;
  results[0].ref = (krt_ref_t *)cb;
  return NULL;
}

static kiln_status_t hal_command_buffer_dispatch(krt_call_t *call,
                                                 const krt_value_t *args,
                                                 uint32_t n,
                                                 krt_value_t *results) {
  WANT(krt_command_buffer_t, cb, 0, KRT_REF_COMMAND_BUFFER);
  const int32_t count[3] = {args[3].i32, args[4].i32, args[5].i32};
  const uint32_t pc_count = (uint32_t)args[6].i32;
  const krt_value_t *pcs = args + 7;
  const uint32_t bind_count = (uint32_t)pcs[pc_count].i32;
  return krt_command_buffer_dispatch(call, cb, (uint32_t)args[1].i32,
                                     (uint32_t)args[2].i32, count, pc_count,
                                     pcs, bind_count, pcs + pc_count + 1);
}

static kiln_status_t hal_command_buffer_barrier(krt_call_t *call,
                                                const krt_value_t *args,
                                                uint32_t n,
                                                krt_value_t *results) {
  WANT(krt_command_buffer_t, cb, 0, KRT_REF_COMMAND_BUFFER);
  return krt_command_buffer_barrier(call, cb);
}

#ifdef KILN_WITH_TRANSFERS
static kiln_status_t hal_command_buffer_copy(krt_call_t *call,
                                             const krt_value_t *args,
                                             uint32_t n,
                                             krt_value_t *results) {
  WANT(krt_command_buffer_t, cb, 0, KRT_REF_COMMAND_BUFFER);
  return krt_command_buffer_copy(call, cb, args);
}

static kiln_status_t hal_command_buffer_fill(krt_call_t *call,
                                             const krt_value_t *args,
                                             uint32_t n,
                                             krt_value_t *results) {
  WANT(krt_command_buffer_t, cb, 0, KRT_REF_COMMAND_BUFFER);
  return krt_command_buffer_fill(call, cb, args);
}
#endif

static kiln_status_t hal_command_buffer_execute(krt_call_t *call,
                                                const krt_value_t *args,
                                                uint32_t n,
                                                krt_value_t *results) {
  WANT(krt_command_buffer_t, cb, 0, KRT_REF_COMMAND_BUFFER);
  return krt_command_buffer_execute(call, cb);
}

static kiln_status_t hal_device_wait(krt_call_t *call, const krt_value_t *args,
                                     uint32_t n, krt_value_t *results) {
  return call->device->vt->wait(call->device);
}

#define hal_text_convert krt_text_convert /* text.c */
#define hal_list_create krt_list_create   /* list.c */
#define hal_list_size krt_list_size
#define hal_list_get krt_list_get
#define hal_list_insert krt_list_insert
#define hal_list_erase krt_list_erase

/* Two tables from the rows hal_natives.inc keeps (runtime_internal.h). */
const char krt_hal_natives[] =
#define KILN_HAL_IMPORT(C_NAME, NAME, SIGNATURE, HAL_OP, SEMANTICS) \
  NAME "\0" SIGNATURE "\0"
#include "hal_natives.inc"
    ; /* and the literal's NUL: an empty name */

const krt_native_fn krt_hal_fns[] = {
#define KILN_HAL_IMPORT(C_NAME, NAME, SIGNATURE, HAL_OP, SEMANTICS) hal_##C_NAME,
#include "hal_natives.inc"
};
