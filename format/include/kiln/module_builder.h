/* Building a .kiln module (compiler side; library kiln_format_builder).
 *
 * Add entries in any order, then finish: the builder lays out the
 * FlatBuffer, zero padding, and the segments (one per rodata entry and per
 * executable variant, variants with byte-identical payloads sharing one,
 * in the order they were added; 64-byte aligned, 4096
 * for >= 64 KiB), compressing executable payloads with zstd when that
 * saves at least an eighth. Every add_* copies what it is given (except
 * add_rodata_borrowed, whose bytes go from the caller's memory straight
 * to the output). Output is deterministic: the same calls with the
 * same content give the same bytes. Invalid
 * arguments (missing names, bad alignment, out-of-range indices) are
 * recorded and reported by finish, which names the offending entry. */
#ifndef KILN_MODULE_BUILDER_H
#define KILN_MODULE_BUILDER_H

#include "kiln/module_format.h"

typedef struct kiln_module_builder kiln_module_builder_t;

typedef struct kiln_module_tensor_type {
  kiln_fb_ElementType_t element_type;
  uint32_t rank;
  const int64_t *dims; /* rank sizes, -1 for a dynamic dim */
  bool sequence; /* a sequence of such tensors (an ONNX sequence value) */
  bool unranked; /* a sequence whose elements may have any rank (rank 0) */
} kiln_module_tensor_type_t;

/* The source nodes of the instruction at pc (SourceNodes in the schema):
 * count (name, kind) pairs. */
typedef struct kiln_module_source_nodes_desc {
  uint32_t pc;
  uint32_t count;
  const char *const *names;
  const char *const *kinds;
} kiln_module_source_nodes_desc_t;

typedef struct kiln_module_function_desc {
  const char *name;
  bool exported;
  uint32_t input_count;
  const kiln_module_tensor_type_t *inputs;
  uint32_t output_count;
  const kiln_module_tensor_type_t *outputs;
  const void *bytecode; /* appended to the module's bytecode blob */
  uint32_t bytecode_size;
  uint32_t i32_register_count;
  uint32_t ref_register_count;
  uint32_t location_count;
  const kiln_fb_SourceLocation_t *locations; /* pc relative to this function */
  const char *vm_signature; /* e.g. "rr_r" (kiln/vm_bytecode.h); may be NULL */
  uint32_t source_nodes_count; /* sorted by pc, each pc inside the bytecode */
  const kiln_module_source_nodes_desc_t *source_nodes;
} kiln_module_function_desc_t;

typedef struct kiln_module_export_desc {
  const char *name;
  uint32_t workgroup_size[3];
  uint32_t binding_count;
  const bool *binding_read_only; /* binding_count flags, or NULL: all false */
  uint32_t push_constant_count;
} kiln_module_export_desc_t;

/* How one export runs in one variant (CUDA: its kernel's thread block and
 * shared memory; VariantExport in kiln_module.fbs). */
typedef struct kiln_module_variant_export_desc {
  uint32_t block_size[3]; /* each >= 1, within CUDA's block limits */
  uint32_t static_shared_memory_bytes;
  uint32_t dynamic_shared_memory_bytes; /* passed at launch; usually 0 */
} kiln_module_variant_export_desc_t;

typedef struct kiln_module_variant_desc {
  const char *name;         /* unique in the executable, e.g. "x86_64" */
  const char *target;       /* "llvm-cpu" or "cuda" */
  const char *arch;         /* may be NULL */
  const char *cpu_features; /* may be NULL */
  uint32_t sm_version;
  kiln_fb_PayloadFormat_t format;
  const void *payload;
  uint64_t payload_size;
  /* Launch metadata: 0 (none; the export's workgroup size is the block),
   * or the executable's export_count entries in export order. */
  uint32_t export_count;
  const kiln_module_variant_export_desc_t *exports;
  const char *llvm_version; /* "19.1.7" when LLVM made the payload, or NULL */
} kiln_module_variant_desc_t;

typedef struct kiln_module_executable_desc {
  const char *name;
  uint32_t export_count;
  const kiln_module_export_desc_t *exports;
  uint32_t variant_count;
  const kiln_module_variant_desc_t *variants;
} kiln_module_executable_desc_t;

typedef enum kiln_module_compression {
  KILN_MODULE_COMPRESS_AUTO,   /* zstd for executable payloads when it pays */
  KILN_MODULE_COMPRESS_NEVER,
  KILN_MODULE_COMPRESS_ALWAYS, /* every executable payload (for tests) */
  /* AUTO for PTX payloads only: CPU ELF payloads stay uncompressed, so a
   * runtime maps kernels straight from the file (kiln-compile's choice:
   * decompressing was a quarter of preparing a model's kernels, for 3%
   * of the module's size). */
  KILN_MODULE_COMPRESS_PTX,
} kiln_module_compression_t;

/* NULL only when out of memory. */
kiln_module_builder_t *kiln_module_builder_create(void);
void kiln_module_builder_destroy(kiln_module_builder_t *b);

void kiln_module_builder_set_name(kiln_module_builder_t *b, const char *name);
void kiln_module_builder_set_producer(kiln_module_builder_t *b,
                                      const char *compiler_version,
                                      uint32_t flag_count,
                                      const char *const *flags);
/* The rest of the provenance (Producer in the schema): the compiler's
 * source revision, the input's base name and its SHA-256 as 64 hex
 * digits. NULL or "" leaves a field out. */
void kiln_module_builder_set_provenance(kiln_module_builder_t *b,
                                        const char *source_revision,
                                        const char *input_name,
                                        const char *input_sha256);
void kiln_module_builder_set_bytecode_version(kiln_module_builder_t *b,
                                              uint32_t version);
void kiln_module_builder_set_compression(kiln_module_builder_t *b,
                                         kiln_module_compression_t mode);

/* Each returns the new entry's index. */
uint32_t kiln_module_builder_add_source_file(kiln_module_builder_t *b,
                                             const char *path);
uint32_t kiln_module_builder_add_import(kiln_module_builder_t *b,
                                        const char *name,
                                        const char *signature);
uint32_t kiln_module_builder_add_function(kiln_module_builder_t *b,
                                          const kiln_module_function_desc_t *f);
/* alignment: a power of two <= 64 that the data needs. */
uint32_t kiln_module_builder_add_rodata(kiln_module_builder_t *b,
                                        const char *name, const void *data,
                                        uint64_t size, uint32_t alignment);
/* The same without a copy, for large weights: data must stay valid and
 * unchanged until the builder is destroyed. */
uint32_t kiln_module_builder_add_rodata_borrowed(kiln_module_builder_t *b,
                                                 const char *name,
                                                 const void *data,
                                                 uint64_t size,
                                                 uint32_t alignment);
uint32_t kiln_module_builder_add_executable(
    kiln_module_builder_t *b, const kiln_module_executable_desc_t *e);

/* Check data (BundledCase in the schema): a function's inputs and the
 * outputs it must give, for kiln-run --check-bundled. Each tensor has
 * static dims and exactly product(dims) elements of its type in data. */
typedef struct kiln_module_bundled_tensor_desc {
  const char *name; /* where it came from, e.g. the .npy file's base name */
  kiln_module_tensor_type_t type; /* no -1 dims */
  const void *data;
  uint64_t size; /* bytes */
} kiln_module_bundled_tensor_desc_t;

typedef struct kiln_module_bundled_case_desc {
  const char *function; /* an exported function added before */
  uint32_t input_count;
  const kiln_module_bundled_tensor_desc_t *inputs;
  uint32_t output_count;
  const kiln_module_bundled_tensor_desc_t *outputs;
} kiln_module_bundled_case_desc_t;

/* Checks the case against the function's signature (counts, element
 * types, dims; a -1 dim of the function takes any size) and copies it. A
 * mismatch is an error of finish naming the case, the tensor and both
 * types. */
uint32_t kiln_module_builder_add_bundled_case(
    kiln_module_builder_t *b, const kiln_module_bundled_case_desc_t *c);

/* The whole module file in one malloc'ed buffer (free() it). */
bool kiln_module_builder_finish(kiln_module_builder_t *b, uint8_t **data,
                                size_t *size, kiln_format_error_t *err);
/* The same bytes, streamed: the FlatBuffer, then zero padding and each
 * segment, in writes that start and end on 2 MiB file offsets (but for
 * the file's ends), so that a page cache with large folios can hold the
 * file in 2 MiB folios that a runtime maps with huge-page entries. Bytes
 * are staged up to the next boundary (one 2 MiB buffer); whole aligned
 * blocks go straight from where they live (a borrowed rodata entry from
 * the caller's memory): weights are not copied but at block edges.
 * write_fd writes at fd's position and leaves fd open; write_file creates
 * or truncates path and removes it again (if a regular file) on failure. */
bool kiln_module_builder_write_fd(kiln_module_builder_t *b, int fd,
                                  kiln_format_error_t *err);
bool kiln_module_builder_write_file(kiln_module_builder_t *b, const char *path,
                                    kiln_format_error_t *err);

#endif /* KILN_MODULE_BUILDER_H */
