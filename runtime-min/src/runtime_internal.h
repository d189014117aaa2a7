/* runtime-min internals shared by its files (prefix krt_): status and
 * allocation helpers, reference-counted objects (buffers, views, command
 * buffers), the device interface every device implements, the module as
 * the loader leaves it (verified, immutable), and the VM call context. */
#ifndef KRT_RUNTIME_INTERNAL_H
#define KRT_RUNTIME_INTERNAL_H

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "kiln/executable_abi.h"
#include "kiln/message.h"
#include "kiln/module_format.h"
#include "kiln/runtime.h"
#include "kiln/vm_bytecode.h"

#define KRT_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* ---- status, allocation ------------------------------------------------- */

kiln_status_t krt_status(const kiln_allocator_t *allocator,
                         kiln_status_code_t code, const char *fmt, ...)
    KRT_PRINTF(3, 4);
/* The same from a va_list, for helpers that add a fixed code. */
kiln_status_t krt_vstatus(const kiln_allocator_t *allocator,
                          kiln_status_code_t code, const char *fmt,
                          va_list ap) KRT_PRINTF(3, 0);
/* Prefixes status's message with "<context>: " and returns it (NULL stays
 * NULL: this costs nothing on success). */
kiln_status_t krt_status_prefix(kiln_status_t status, const char *fmt, ...)
    KRT_PRINTF(2, 3);
/* krt_status(allocator, KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory"),
 * one call instead of three arguments at each of its many sites. */
kiln_status_t krt_oom(const kiln_allocator_t *allocator);
#ifdef KILN_NO_MESSAGES
/* Codes only: every status is the static one of its code (status.c), so a
 * failure site takes an address instead of calling anything; a prefix adds
 * nothing. Out-of-range codes map to KILN_STATUS_INTERNAL's. */
struct kiln_status {
  kiln_status_code_t code;
};
extern struct kiln_status krt_code_status[KILN_STATUS_INTERNAL + 1];
#define krt_status(a, code, ...)                           \
  (KILN_MESSAGE_DROP(__VA_ARGS__), (void)(a),              \
   &krt_code_status[(unsigned)(code) <= KILN_STATUS_INTERNAL \
                        ? (unsigned)(code)                 \
                        : KILN_STATUS_INTERNAL])
#define krt_status_prefix(status, ...) \
  (KILN_MESSAGE_DROP(__VA_ARGS__), (status))
#endif

/* Appends s at buf[*n] (cut to fit, NUL-terminated as snprintf does) and
 * adds its length to *n, also when it did not fit (*n ends as the length
 * the text needs). Not variadic: its prologue would save registers. */
void krt_append(char *buf, size_t size, size_t *n, const char *s);

/* Largest executable payload the runtime decompresses. */
#define KRT_MAX_PAYLOAD_BYTES (256u << 20)

/* Zeroed memory aligned to 16 (alloc) or `alignment` (alloc_aligned). */
void *krt_alloc(const kiln_allocator_t *a, size_t size);
void *krt_alloc_aligned(const kiln_allocator_t *a, size_t size,
                        size_t alignment);
void krt_free(const kiln_allocator_t *a, void *ptr);

/* The device's pool of per-call memory: buffers (objects and host bytes),
 * views, command buffers and VM stacks. Freed blocks stay with the device
 * (by power-of-two size class) and are handed out again, so a steady
 * state of calls takes nothing from the allocator and touches no new
 * page; the device returns them to the allocator when it is destroyed.
 * Blocks are 64-byte aligned. Thread-safe. `how`: KRT_POOL_RAW as it
 * comes (a VM stack, a queue filled as it grows), KRT_POOL_ZERO zeroed,
 * KRT_POOL_WRITTEN for bytes the program writes before it reads them:
 * not cleared, but a fresh large block is faulted in up front as a
 * zeroed one is (huge pages where they come cheap). */
#define KRT_POOL_CLASSES 42 /* 64 bytes .. 2^47 */
enum { KRT_POOL_RAW, KRT_POOL_ZERO, KRT_POOL_WRITTEN };
void *krt_pool_alloc(kiln_device_t *device, size_t size, int how);
void krt_pool_free(kiln_device_t *device, void *ptr); /* NULL-safe */
void krt_pool_trim(kiln_device_t *device);
/* Where the runtime has huge pages (KILN_WITH_HUGE_PAGES): sets the page
 * costs fresh big blocks are measured to have (allocator.c: us of thread
 * CPU per 2 MiB, 0 = unmeasured), so tests can steer each way the
 * allocator may take. Process-wide. */
void krt_page_costs_set(uint32_t huge_us, uint32_t small_us, uint32_t spread_x16);

/* A str tensor's bytes (runtime.h): checks that p[0, avail) starts with
 * count+1 little-endian u32 offsets (0 first, ascending, within avail)
 * and that each string they index is UTF-8. NULL with *out_bytes the
 * layout's length, else what is wrong and *out_at the element. */
const char *krt_strings_check(const uint8_t *p, uint64_t avail, uint64_t count,
                              uint64_t *out_bytes, uint64_t *out_at);
/* Dense byte size of a shape; false on overflow or negative dims (and
 * for str, whose size the data decides: krt_strings_check). */
bool krt_shape_bytes(kiln_element_type_t type, uint32_t rank,
                     const int64_t *dims, uint64_t *out_bytes);

/* ---- reference-counted objects ------------------------------------------ */

typedef enum krt_ref_type {
  KRT_REF_BUFFER = 1,
  KRT_REF_BUFFER_VIEW,
  KRT_REF_COMMAND_BUFFER,
#ifdef KILN_WITH_SEQUENCES
  KRT_REF_LIST, /* list.c */
#endif
} krt_ref_type_t;

typedef struct krt_ref {
  atomic_uint count;
  uint32_t type; /* krt_ref_type_t */
} krt_ref_t;

void krt_ref_retain(krt_ref_t *ref);  /* NULL-safe */
void krt_ref_release(krt_ref_t *ref); /* NULL-safe; destroys at zero */
const char *krt_ref_type_name(const krt_ref_t *ref); /* "null" for NULL */

struct kiln_instance {
  atomic_uint refs;
  kiln_allocator_t allocator;
};

struct kiln_buffer {
  krt_ref_t ref;
  kiln_device_t *device; /* retained */
  kiln_module_t *owner;  /* retained when the buffer aliases module data */
  uint64_t length;
  uint8_t *host;         /* host-addressable bytes (local devices), or NULL */
  uint64_t device_ptr;   /* device address (cuda) */
  bool owned;            /* memory freed with the buffer */
};

struct kiln_buffer_view {
  krt_ref_t ref;
  kiln_buffer_t *buffer; /* retained */
  uint64_t offset;
  uint64_t byte_length;
  kiln_element_type_t element_type;
  uint32_t rank;
  int64_t dims[KILN_MAX_RANK];
};

/* kiln_buffer_allocate, zeroed or not (hal.buffer.allocate_uninitialized). */
kiln_status_t krt_buffer_allocate(kiln_device_t *device, uint64_t byte_length,
                                  bool zero, kiln_buffer_t **out_buffer);
/* Wraps bytes the buffer does not own (module rodata). */
kiln_status_t krt_buffer_wrap(kiln_device_t *device, kiln_module_t *owner,
                              uint8_t *host, uint64_t length,
                              kiln_buffer_t **out);
void krt_buffer_destroy(kiln_buffer_t *buffer);
void krt_buffer_view_destroy(kiln_buffer_view_t *view);

/* An ONNX sequence (list.c; runtime.h's kiln_sequence_t): count retained
 * views, immutable once made. */
typedef struct kiln_sequence {
  krt_ref_t ref;
  kiln_device_t *device; /* retained: the pool the list came from */
  uint32_t count;
  kiln_buffer_view_t *items[];
} krt_list_t;
/* A list of count views, items left for the caller to fill. */
kiln_status_t krt_list_new(kiln_device_t *device, uint32_t count,
                           krt_list_t **out);
void krt_list_destroy(krt_list_t *list);

/* ---- the module as loaded ----------------------------------------------- */

typedef struct krt_export {
  const char *name;
  uint32_t workgroup_size[3];
  uint32_t binding_count;
  uint32_t push_constant_count;
  uint32_t readonly_mask;
} krt_export_t;

#define KRT_MAX_BINDINGS 32u
#define KRT_MAX_PUSH_CONSTANTS 64u

typedef struct krt_variant {
  const char *name, *target, *arch, *cpu_features;
  uint32_t sm_version;
  kiln_fb_PayloadFormat_t format;
  uint32_t segment;
} krt_variant_t;

typedef struct krt_executable {
  const char *name;
  uint32_t export_count, variant_count;
  krt_export_t *exports;
  krt_variant_t *variants;
} krt_executable_t;

typedef struct krt_function {
  const char *name;
  bool exported;
  uint32_t input_count, output_count;
  kiln_tensor_type_t *types; /* inputs, then outputs */
#ifdef KILN_WITH_SEQUENCES
  uint64_t sequences; /* bit j: types[j] is a sequence's element type */
  uint64_t unranked;  /* bit j: of any rank (only its element type) */
#endif
  const char *signature; /* VM signature ("rr_r"); exported: all refs */
  char derived[2 * 64 + 2]; /* the signature when the module has none */
} krt_function_t;

typedef struct krt_call krt_call_t;

/* A VM value as natives see it; refs are borrowed in args and owned
 * (transferred) in results. */
typedef union krt_value {
  int32_t i32;
  int64_t i64;
  float f32;
  double f64;
  krt_ref_t *ref;
} krt_value_t;

typedef kiln_status_t (*krt_native_fn)(krt_call_t *call,
                                       const krt_value_t *args,
                                       uint32_t arg_count,
                                       krt_value_t *results);

/* The HAL native module (hal_module.c), as two tables in the same order
 * rather than one of {name, function} rows (a pointer and its relocation
 * less a row): krt_hal_natives holds each function's import name, a NUL,
 * its signature and a NUL, and ends with an empty name; krt_hal_fns the
 * functions. The loader walks the names once per import. */
extern const char krt_hal_natives[];
extern const krt_native_fn krt_hal_fns[];

/* Executables of one module loaded on one device. */
typedef struct krt_device_cache {
  struct krt_device_cache *next;
  kiln_device_t *device;  /* retained */
  void **executables;     /* per module executable, device handle */
  void *loaded;           /* the device's state for all of them */
  kiln_buffer_t **rodata; /* per rodata, device copy (non-host devices) */
} krt_device_cache_t;

struct kiln_module {
  atomic_uint refs;
  kiln_instance_t *instance;
  const kiln_allocator_t *allocator;
  void *mapping; /* mmap of the file, or NULL */
  size_t mapping_size;
  kiln_module_view_t view;
  const char *name;
  uint32_t function_count, import_count, executable_count, rodata_count;
  krt_function_t *functions;
  kiln_vm_function_info_t *vm_functions;
  krt_native_fn *imports;
  const char **import_signatures;
  krt_executable_t *executables;
  const uint8_t **rodata_data;
  uint64_t *rodata_size;
  uint32_t max_frame_bytes; /* largest register file of any function */
  pthread_mutex_t cache_lock;
  krt_device_cache_t *caches;
  void *zstd; /* decompression context while segments are read (zstd
                 builds), under cache_lock */
};

/* The cache entry of device, loading every executable on first use. */
kiln_status_t krt_module_device_cache(kiln_module_t *module,
                                      kiln_device_t *device,
                                      krt_device_cache_t **out);

/* Stored bytes of a segment, decompressed into allocator memory when
 * compressed (*owned set; free with krt_free), their content hash checked
 * (an uncompressed segment's only when `check`: a reader that only parses
 * bounds-checked headers need not). Hold module->cache_lock. */
kiln_status_t krt_segment_bytes(kiln_module_t *module, uint32_t segment,
                                bool check, const uint8_t **out,
                                uint64_t *out_size, void **owned);

/* ---- devices ------------------------------------------------------------ */

typedef struct krt_binding {
  kiln_buffer_t *buffer;
  uint64_t offset, length; /* validated against the buffer */
} krt_binding_t;

typedef struct krt_dispatch {
  uint32_t workgroup_count[3];
  uint32_t push_constant_count;
  const uint32_t *push_constants;
  uint32_t binding_count;
  const krt_binding_t *bindings;
} krt_dispatch_t;

typedef struct krt_device_vtable {
  void (*destroy)(kiln_device_t *device);
  /* zero: the buffer must read as zeros (else its contents are free). */
  kiln_status_t (*buffer_alloc)(kiln_device_t *device, kiln_buffer_t *buffer,
                                bool zero);
  void (*buffer_free)(kiln_device_t *device, kiln_buffer_t *buffer);
  kiln_status_t (*buffer_write)(kiln_device_t *device, kiln_buffer_t *buffer,
                                uint64_t offset, const void *src,
                                uint64_t length);
  kiln_status_t (*buffer_read)(kiln_device_t *device, kiln_buffer_t *buffer,
                               uint64_t offset, void *dst, uint64_t length);
  /* Picks a variant of each executable of module and loads it into
   * handles[i] (all at once: a device may map them together), with
   * *loaded any state they share. On failure too, what was loaded is left
   * in handles and *loaded for executables_unload, which takes every
   * handle (NULL ones skipped) and loaded. */
  kiln_status_t (*executables_load)(kiln_device_t *device,
                                    kiln_module_t *module, void **handles,
                                    void **loaded);
  void (*executables_unload)(kiln_device_t *device, kiln_module_t *module,
                             void **handles, void *loaded);
  kiln_status_t (*dispatch)(kiln_device_t *device, void *executable,
                            uint32_t export_ordinal,
                            const krt_dispatch_t *dispatch);
  kiln_status_t (*wait)(kiln_device_t *device);
  /* Ranges validated by the recorder; they may overlap for copy. NULL in
   * a runtime without transfers (KILN_RUNTIME_TRANSFERS=OFF). */
  kiln_status_t (*copy)(kiln_device_t *device, kiln_buffer_t *src,
                        uint64_t src_offset, kiln_buffer_t *dst,
                        uint64_t dst_offset, uint64_t length);
  kiln_status_t (*fill)(kiln_device_t *device, kiln_buffer_t *dst,
                        uint64_t offset, uint64_t length, uint32_t pattern);
} krt_device_vtable_t;

struct kiln_device {
  atomic_uint refs;
  const krt_device_vtable_t *vt;
  kiln_instance_t *instance; /* retained */
  const kiln_allocator_t *allocator;
  const char *name;
  char target[160];
  bool host_memory; /* buffers have host addresses usable by kernels */
  uint64_t max_buffer_bytes; /* 0 = unlimited */
  uint64_t max_steps;        /* 0 = unlimited */
  pthread_mutex_t pool_lock;
  void *pool[KRT_POOL_CLASSES]; /* free blocks per class (krt_pool_*) */
  /* Runs fn(ctx, i) for each i < count on the device's host threads, at
   * once and in any order, returning when all have; NULL: one thread.
   * krt_pool_alloc faults fresh blocks in with it. */
  void (*host_parallel)(kiln_device_t *device, uint32_t count,
                        void (*fn)(void *ctx, uint32_t i), void *ctx);
#ifdef KILN_WITH_PROFILE
  kiln_dispatch_observer_fn observer; /* NULL = off */
  void *observer_user;
#endif
};

/* Device constructors, each in its own file. */
kiln_status_t krt_local_device_create(kiln_instance_t *instance,
                                      bool use_pool, uint32_t workers,
                                      kiln_device_t **out);
kiln_status_t krt_cuda_device_create(kiln_instance_t *instance,
                                     uint32_t ordinal, kiln_device_t **out);

/* Human-readable list of an executable's variants, for errors:
 * "x86_64 (llvm-cpu x86_64 +avx2), sm_80 (cuda sm_80)". */
void krt_describe_variants(const krt_executable_t *exe, char *buf,
                           size_t size);

/* ---- VM ----------------------------------------------------------------- */

struct krt_call {
  kiln_module_t *module;
  kiln_device_t *device;
  krt_device_cache_t *cache;
  const kiln_allocator_t *allocator;
  const krt_function_t *function; /* the function the caller called */
  uint8_t *stack;
  size_t stack_size;
  uint64_t steps_left; /* backward branches + calls before the call fails */
#ifdef KILN_WITH_PROFILE
  const uint8_t *site; /* bytecode of the import call in progress */
#endif
};

/* Runs function `ordinal` (signature all refs) with args[input_count],
 * storing owned refs into results[output_count]. */
kiln_status_t krt_vm_invoke(krt_call_t *call, uint32_t ordinal,
                            krt_ref_t *const *args, krt_ref_t **results);

/* The function, source location and source nodes (into names/kinds, each
 * of KILN_DISPATCH_MAX_NODES entries) of bytecode at `site` (cold:
 * dispatch observers). */
void krt_vm_site(const kiln_module_t *module, const uint8_t *site,
                 kiln_dispatch_event_t *out, const char **names,
                 const char **kinds);

/* Bytes of VM stack a call needs for the module at minimum. */
size_t krt_vm_stack_size(const kiln_module_t *module);

/* ---- command buffers (HAL) ----------------------------------------------- */

typedef struct krt_command_buffer krt_command_buffer_t;
void krt_command_buffer_destroy(krt_command_buffer_t *cb);

#endif /* KRT_RUNTIME_INTERNAL_H */
