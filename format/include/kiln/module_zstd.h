/* zstd for module segments (library kiln_format_zstd, links libzstd).
 * Separate from the reader so that a runtime built without zstd still
 * reads modules whose payloads are stored uncompressed. */
#ifndef KILN_MODULE_ZSTD_H
#define KILN_MODULE_ZSTD_H

#include "kiln/module_format.h"

/* The level the builder uses; fixed so that output is reproducible. */
#define KILN_MODULE_ZSTD_LEVEL 12

/* Compresses src into a malloc'ed *out (free() it). Deterministic for a
 * given zstd version and level. */
bool kiln_module_zstd_compress(const void *src, size_t size, int level,
                               uint8_t **out, size_t *out_size,
                               kiln_format_error_t *err);

/* Copies segment `index` of a verified module into dst, decompressing it
 * if needed; dst_size must equal the segment's uncompressed_size. Checks
 * the zstd frame, the decompressed size and the content hash. */
bool kiln_module_segment_read(const kiln_module_view_t *view, uint32_t index,
                              void *dst, uint64_t dst_size,
                              kiln_format_error_t *err);

/* A decompression context for reading many segments: setting one up costs
 * about as much as decompressing a small kernel, so a reader of many
 * segments makes one (NULL when out of memory) and passes it to
 * kiln_module_segment_read_with; one thread at a time. */
typedef struct kiln_module_zstd_ctx kiln_module_zstd_ctx_t;
kiln_module_zstd_ctx_t *kiln_module_zstd_ctx_create(void);
void kiln_module_zstd_ctx_free(kiln_module_zstd_ctx_t *ctx); /* NULL-safe */
/* kiln_module_segment_read with ctx (NULL: a context for this call). */
bool kiln_module_segment_read_with(const kiln_module_view_t *view,
                                   uint32_t index, void *dst,
                                   uint64_t dst_size,
                                   kiln_module_zstd_ctx_t *ctx,
                                   kiln_format_error_t *err);

#endif /* KILN_MODULE_ZSTD_H */
