/* runtime-min: load a .kiln module on a device and call its functions.
 *
 * Objects: an instance (allocator, options) creates devices and loads
 * modules; a module is verified completely when loaded and is immutable
 * afterwards, so any number of threads may call its functions at once;
 * a call takes buffer views (shape + element type + buffer) and returns new
 * buffer views. Every fallible function returns a kiln_status_t: NULL means
 * success, anything else carries a code and a message and must be freed
 * with kiln_status_free. Nothing aborts on bad input. Objects are
 * reference counted (retain/release), and thread-safe to retain/release. */
#ifndef KILN_RUNTIME_H
#define KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status ------------------------------------------------------------ */

typedef enum kiln_status_code {
  KILN_STATUS_OK = 0,
  KILN_STATUS_INVALID_ARGUMENT,    /* the caller passed something wrong */
  KILN_STATUS_NOT_FOUND,           /* no such function, device, file */
  KILN_STATUS_OUT_OF_RANGE,        /* an index or size beyond its bound */
  KILN_STATUS_DATA_LOSS,           /* corrupt or malformed module */
  KILN_STATUS_INCOMPATIBLE,        /* version / variant / signature skew */
  KILN_STATUS_FAILED_PRECONDITION, /* object in the wrong state */
  KILN_STATUS_RESOURCE_EXHAUSTED,  /* out of memory, stack overflow */
  KILN_STATUS_UNAVAILABLE,         /* no driver, no GPU */
  KILN_STATUS_UNIMPLEMENTED,       /* left out of this build */
  KILN_STATUS_ABORTED,             /* a kernel or a trap failed the call */
  KILN_STATUS_INTERNAL,
} kiln_status_code_t;

typedef struct kiln_status *kiln_status_t; /* NULL = OK */

kiln_status_code_t kiln_status_code(kiln_status_t status);
/* "KILN_STATUS_DATA_LOSS" etc. */
const char *kiln_status_code_name(kiln_status_code_t code);
/* The message, never NULL ("" for OK). Valid until kiln_status_free. */
const char *kiln_status_message(kiln_status_t status);
void kiln_status_free(kiln_status_t status);

/* ---- allocator ---------------------------------------------------------- */

/* All memory the runtime takes goes through this (except what a device
 * driver allocates itself). alloc returns NULL on failure and memory
 * aligned to at least `alignment` (a power of two <= 4096). */
typedef struct kiln_allocator {
  void *self;
  void *(*alloc)(void *self, size_t size, size_t alignment);
  void (*free)(void *self, void *ptr);
} kiln_allocator_t;

/* libc-backed allocator (aligned_alloc/free). */
kiln_allocator_t kiln_allocator_system(void);

/* ---- element types ------------------------------------------------------ */

/* The module format's element types (ElementType of
 * kiln/module_schema.def), by name and number: KILN_ELEMENT_I1 ...
 * KILN_ELEMENT_F64, and KILN_ELEMENT_NONE for its Unknown (0). */
typedef enum kiln_element_type {
#define KFB_ENUM_VALUE(e, name, value) KILN_ELEMENT_OF_##e(name, value)
#define KILN_ELEMENT_OF_ElementType(name, value) KILN_ELEMENT_##name = value,
#define KILN_ELEMENT_OF_PayloadFormat(name, value)
#define KILN_ELEMENT_OF_Compression(name, value)
#define KILN_ELEMENT_OF_SegmentKind(name, value)
#include "kiln/module_schema.def"
#undef KILN_ELEMENT_OF_ElementType
#undef KILN_ELEMENT_OF_PayloadFormat
#undef KILN_ELEMENT_OF_Compression
#undef KILN_ELEMENT_OF_SegmentKind
  KILN_ELEMENT_COUNT, /* the schema lists them in increasing order */
  KILN_ELEMENT_NONE = KILN_ELEMENT_Unknown
} kiln_element_type_t;

/* KILN_ELEMENT_STR holds UTF-8 text. A str tensor of N elements is one
 * byte range: N+1 little-endian u32 offsets (the first 0, ascending), then
 * the text, element i being bytes [off[i], off[i+1]) after the offsets.
 * Views of str check that layout and the UTF-8 (a named error, never a
 * read past the buffer) and need host-addressable buffers; their byte
 * length is the layout's, so kiln_buffer_view_from_host and
 * kiln_buffer_view_read take and give the layout itself. */

/* Bytes per element (i1 is stored as one byte); 0 for NONE and STR. */
size_t kiln_element_type_size(kiln_element_type_t type);
/* "f32", "i8", ...; "?" for out-of-range values. */
const char *kiln_element_type_name(kiln_element_type_t type);
/* Inverse of kiln_element_type_name over len bytes; NONE if unknown. */
kiln_element_type_t kiln_element_type_parse(const char *name, size_t len);

#define KILN_MAX_RANK 8
#define KILN_DIM_DYNAMIC INT64_C(-1)

/* A tensor type as functions declare it; dims may be KILN_DIM_DYNAMIC. */
typedef struct kiln_tensor_type {
  kiln_element_type_t element_type;
  uint32_t rank;
  int64_t dims[KILN_MAX_RANK];
} kiln_tensor_type_t;

/* Writes "tensor<2x?xf32>" (rank 0: "tensor<f32>") into buf, always
 * NUL-terminated; returns the length it needed. */
size_t kiln_tensor_type_format(const kiln_tensor_type_t *type, char *buf,
                               size_t size);

/* ---- instance ----------------------------------------------------------- */

typedef struct kiln_instance kiln_instance_t;

kiln_status_t kiln_instance_create(kiln_allocator_t allocator,
                                   kiln_instance_t **out_instance);
void kiln_instance_retain(kiln_instance_t *instance);
void kiln_instance_release(kiln_instance_t *instance);

/* ---- devices ------------------------------------------------------------ */

typedef struct kiln_device kiln_device_t;

typedef struct kiln_buffer kiln_buffer_t;

/* One binding of a dispatch, as an observer sees it: the byte range the
 * kernel got (read it with kiln_buffer_read during the callback). The
 * module does not record element types: these are bytes. */
typedef struct kiln_dispatch_binding {
  kiln_buffer_t *buffer;
  uint64_t offset, length;
  int read_only; /* declared read-only by the kernel: an input */
} kiln_dispatch_binding_t;

/* One finished dispatch, as a dispatch observer sees it. Strings point
 * into the module and live as long as it does. */
typedef struct kiln_dispatch_event {
  const char *executable;  /* executable and entry point names */
  const char *export_name;
  const char *function;    /* VM function whose bytecode recorded it */
  uint32_t bytecode_offset; /* of that recording call inside `function` */
  const char *source_file; /* its source location, or NULL if none */
  uint32_t line, column;
  uint32_t command_index;  /* position in its command buffer */
  uint32_t workgroup_count[3];
  uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC around the dispatch */
  uint32_t binding_count;
  const kiln_dispatch_binding_t *bindings; /* valid during the callback */
  /* Source nodes (ONNX node names and kinds, "Conv") the recording call
   * came from, the first KILN_DISPATCH_MAX_NODES of them; 0 when the
   * module does not say. The arrays are valid during the callback. */
  uint32_t node_count;
  const char *const *node_names;
  const char *const *node_kinds;
} kiln_dispatch_event_t;
#define KILN_DISPATCH_MAX_NODES 64

/* Called on the calling thread after each dispatch has completed. */
typedef void (*kiln_dispatch_observer_fn)(void *user,
                                          const kiln_dispatch_event_t *event);

typedef struct kiln_device_options {
  /* local-task: threads running workgroups (the caller counts as one);
   * 0 = number of online cores. The workers start (each with 512 KiB of
   * stack faulted in) before kiln_device_create returns; idle ones spin
   * 50 us before they sleep, and a dispatch never waits for a worker that
   * had not joined by the time the caller ran out of workgroups.
   * local-sync: workgroups run on the caller alone, and 0 or 1 start no
   * thread (the caller tries huge pages for fresh memory); 2 or more start
   * one helper thread (where more than one core is online) that faults
   * fresh per-call memory in beside the caller, such as a first call's
   * arena, in 4 KiB pages: steadier first calls when the host may have
   * taken huge pages back, slower ones when they come warm. */
  uint32_t worker_count;
  /* cuda: device ordinal. */
  uint32_t cuda_ordinal;
  /* Largest single buffer a call may allocate; 0 = no limit beyond the
   * allocator's. Bounds what a hostile module can ask for. */
  uint64_t max_buffer_bytes;
  /* Backward branches, calls and dispatched workgroups one function call
   * may spend before it fails with RESOURCE_EXHAUSTED; 0 = unlimited.
   * Bounds hostile loops and grids. */
  uint64_t max_steps;
  /* Profiling (kiln-bench --profile-dispatches): when set, the device
   * times every dispatch and reports it; an asynchronous device (cuda)
   * then waits for each dispatch before the next. NULL costs nothing.
   * Builds without KILN_RUNTIME_PROFILE refuse it (UNIMPLEMENTED). */
  kiln_dispatch_observer_fn dispatch_observer;
  void *dispatch_observer_user;
} kiln_device_options_t;

/* name: "local-sync", "local-task" or "cuda". options may be NULL. An
 * unknown or compiled-out name yields an error listing the available ones. */
kiln_status_t kiln_device_create(kiln_instance_t *instance, const char *name,
                                 const kiln_device_options_t *options,
                                 kiln_device_t **out_device);
void kiln_device_retain(kiln_device_t *device);
void kiln_device_release(kiln_device_t *device);
const char *kiln_device_name(const kiln_device_t *device);
/* What the device can run, for messages: "x86_64+avx2+fma", "sm_80". */
const char *kiln_device_target(const kiln_device_t *device);
/* Names of the devices this build contains, comma separated. */
const char *kiln_device_available(void);

/* ---- buffers and buffer views -------------------------------------------- */

typedef struct kiln_buffer kiln_buffer_t;
typedef struct kiln_buffer_view kiln_buffer_view_t;

/* A device buffer of byte_length bytes (zeroed on local devices; host
 * memory from the device's pool, see kiln_function_call). */
kiln_status_t kiln_buffer_allocate(kiln_device_t *device, uint64_t byte_length,
                                   kiln_buffer_t **out_buffer);
void kiln_buffer_retain(kiln_buffer_t *buffer);
void kiln_buffer_release(kiln_buffer_t *buffer);
uint64_t kiln_buffer_byte_length(const kiln_buffer_t *buffer);
/* Host <-> buffer copies (synchronous). */
kiln_status_t kiln_buffer_write(kiln_buffer_t *buffer, uint64_t offset,
                                const void *src, uint64_t length);
kiln_status_t kiln_buffer_read(kiln_buffer_t *buffer, uint64_t offset,
                               void *dst, uint64_t length);

/* A view of `buffer` from byte_offset with the given shape and type; the
 * view retains the buffer. Fails when the shape does not fit the buffer. */
kiln_status_t kiln_buffer_view_create(kiln_buffer_t *buffer,
                                      uint64_t byte_offset,
                                      kiln_element_type_t element_type,
                                      uint32_t rank, const int64_t *dims,
                                      kiln_buffer_view_t **out_view);
/* Allocates a buffer on device and copies data (dense row-major,
 * data_length bytes, which must equal the shape's size) into it. */
kiln_status_t kiln_buffer_view_from_host(kiln_device_t *device,
                                         kiln_element_type_t element_type,
                                         uint32_t rank, const int64_t *dims,
                                         const void *data, uint64_t data_length,
                                         kiln_buffer_view_t **out_view);
void kiln_buffer_view_retain(kiln_buffer_view_t *view);
void kiln_buffer_view_release(kiln_buffer_view_t *view);
kiln_element_type_t kiln_buffer_view_element_type(const kiln_buffer_view_t *v);
uint32_t kiln_buffer_view_rank(const kiln_buffer_view_t *view);
int64_t kiln_buffer_view_dim(const kiln_buffer_view_t *view, uint32_t i);
const int64_t *kiln_buffer_view_dims(const kiln_buffer_view_t *view);
uint64_t kiln_buffer_view_element_count(const kiln_buffer_view_t *view);
uint64_t kiln_buffer_view_byte_length(const kiln_buffer_view_t *view);
kiln_buffer_t *kiln_buffer_view_buffer(const kiln_buffer_view_t *view);
/* The view's type as a kiln_tensor_type_t (all dims static). */
void kiln_buffer_view_type(const kiln_buffer_view_t *view,
                           kiln_tensor_type_t *out_type);
/* Copies the view's bytes (dense) to host memory of `length` bytes. */
kiln_status_t kiln_buffer_view_read(const kiln_buffer_view_t *view, void *dst,
                                    uint64_t length);

/* ---- modules and functions ---------------------------------------------- */

typedef struct kiln_module kiln_module_t;

/* Maps the file read-only and verifies its structure completely (format,
 * offsets and lengths, semantics, bytecode, imports, ELF headers). Weights
 * and kernels are used from the mapping; loading reads no weight page, so
 * it costs microseconds whatever the model's size. Content hashes are not
 * checked here: see kiln_module_check_hashes. */
kiln_status_t kiln_module_load_file(kiln_instance_t *instance,
                                    const char *path,
                                    kiln_module_t **out_module);
/* Same from memory. The bytes are borrowed: they must stay valid and
 * unchanged until the module is released. */
kiln_status_t kiln_module_load_memory(kiln_instance_t *instance,
                                      const void *data, size_t size,
                                      kiln_module_t **out_module);
/* Reads every segment (weights and kernels, decompressed) and checks its
 * content hash: DATA_LOSS naming the first segment that differs. A
 * corrupted weight changes results but never safety, so this is for
 * callers who want to know (kiln-run --check-hashes, kiln-dump). */
kiln_status_t kiln_module_check_hashes(kiln_module_t *module);
void kiln_module_retain(kiln_module_t *module);
void kiln_module_release(kiln_module_t *module);
const char *kiln_module_name(const kiln_module_t *module);

/* A function handle: valid while its module lives. */
typedef struct kiln_function {
  kiln_module_t *module;
  uint32_t ordinal;
} kiln_function_t;

uint32_t kiln_module_function_count(const kiln_module_t *module);
kiln_status_t kiln_module_function_at(kiln_module_t *module, uint32_t ordinal,
                                      kiln_function_t *out_function);
kiln_status_t kiln_module_lookup_function(kiln_module_t *module,
                                          const char *name,
                                          kiln_function_t *out_function);

/* Reflection: no code runs. */
const char *kiln_function_name(kiln_function_t function);
/* Exported functions are the module's entry points for hosts. */
int kiln_function_is_exported(kiln_function_t function);
uint32_t kiln_function_input_count(kiln_function_t function);
uint32_t kiln_function_output_count(kiln_function_t function);
/* Input/output i's declared type (NONE element type when i is out of
 * range). Scalars are rank-0 types. */
kiln_tensor_type_t kiln_function_input_type(kiln_function_t function,
                                            uint32_t i);
kiln_tensor_type_t kiln_function_output_type(kiln_function_t function,
                                             uint32_t i);
/* "(tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>"; same conventions as
 * kiln_tensor_type_format. */
size_t kiln_function_signature_format(kiln_function_t function, char *buf,
                                      size_t size);

/* Loads the module's executables on device (variant selection, each
 * kernel's content hash, mapping: CPU kernels all in one mapping; cached).
 * Optional: kiln_function_call does it on first use. Fails naming what the
 * device offers and what the module holds when no variant fits. */
kiln_status_t kiln_module_prepare(kiln_module_t *module, kiln_device_t *device);

/* Calls function on device. inputs are checked against the declared input
 * types first (count, element type, static dims); a scalar input is a
 * rank-0 view. On success outputs[0..output_count) receive new views the
 * caller releases. Thread-safe: concurrent calls share nothing mutable.
 * Memory: everything a call uses (its VM stack, command buffer, transient
 * and output buffers, views) comes from the device's pool, which keeps
 * freed blocks for reuse until the device is released; outputs return to
 * it when the caller releases them. So in steady state (outputs released
 * before the next call) a call allocates nothing and touches no new page.
 * Blocks of 2 MiB and more ask for transparent huge pages, so the first
 * call's fresh buffers fault 2 MiB at a time.
 * Stack: local-sync runs the kernels on the calling thread, and a kernel
 * may keep a packed weight panel of up to 256 KiB in its frame: give that
 * thread at least 512 KiB. x86-64 and AArch64 kernels probe frames over a
 * page, so a smaller stack faults on its guard page rather than running
 * past it (README, "Embed the runtime"). */
kiln_status_t kiln_function_call(kiln_function_t function,
                                 kiln_device_t *device,
                                 kiln_buffer_view_t *const *inputs,
                                 uint32_t input_count,
                                 kiln_buffer_view_t **outputs,
                                 uint32_t output_count);

/* ---- sequences ------------------------------------------------------------
 * An ONNX sequence value: an immutable list of buffer views, which may
 * differ in shape. A function declares a sequence input or output by its
 * element type (reflection: kiln_function_input_is_sequence; the
 * signature prints "seq<tensor<?xf32>>"; a sequence whose elements may
 * differ in rank declares only their element type: "seq<tensor<*xf32>>",
 * its reflected type of rank 0) and is called with
 * kiln_function_call_values (kiln_function_call refuses it, naming that).
 * Declared in every build; defined only in a runtime built with
 * KILN_RUNTIME_SEQUENCES (the default), whose kiln_runtime target then
 * defines KILN_RUNTIME_SEQUENCES for the code that links it. A runtime
 * without them refuses modules that build or read sequences at load
 * (their hal.list.* imports). */

typedef struct kiln_sequence kiln_sequence_t;

/* A sequence of count views on device (each retained; count may be 0). */
kiln_status_t kiln_sequence_create(kiln_device_t *device,
                                   kiln_buffer_view_t *const *views,
                                   uint32_t count, kiln_sequence_t **out);
void kiln_sequence_retain(kiln_sequence_t *sequence);
void kiln_sequence_release(kiln_sequence_t *sequence);
uint32_t kiln_sequence_size(const kiln_sequence_t *sequence);
/* Element i, borrowed from the sequence; NULL past the end. */
kiln_buffer_view_t *kiln_sequence_at(const kiln_sequence_t *sequence,
                                     uint32_t i);

int kiln_function_input_is_sequence(kiln_function_t function, uint32_t i);
int kiln_function_output_is_sequence(kiln_function_t function, uint32_t i);

/* One input or output: exactly one of the two is set. */
typedef struct kiln_call_value {
  kiln_buffer_view_t *view;
  kiln_sequence_t *sequence;
} kiln_call_value_t;

/* kiln_function_call for functions that take or return sequences (and
 * any other): each sequence input's elements are checked against its
 * element type and device; outputs receive new views or sequences the
 * caller releases. At most 64 inputs and 64 outputs. */
kiln_status_t kiln_function_call_values(kiln_function_t function,
                                        kiln_device_t *device,
                                        const kiln_call_value_t *inputs,
                                        uint32_t input_count,
                                        kiln_call_value_t *outputs,
                                        uint32_t output_count);

#ifdef __cplusplus
}
#endif

#endif /* KILN_RUNTIME_H */
