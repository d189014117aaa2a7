/* zstd compression of segments for the builder and checked decompression
 * for readers. Decompression writes only into the caller's dst of exactly
 * the recorded size; a frame that claims or produces another size, or whose
 * bytes hash differently, is an error naming the segment. */
#include "kiln/module_zstd.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

bool kiln_module_zstd_compress(const void *src, size_t size, int level,
                               uint8_t **out, size_t *out_size,
                               kiln_format_error_t *err) {
  size_t cap = ZSTD_compressBound(size);
  uint8_t *buf = malloc(cap ? cap : 1);
  *out = NULL;
  *out_size = 0;
  if (!buf) {
    snprintf(err->message, sizeof err->message, "out of memory compressing "
             "%zu bytes", size);
    return false;
  }
  size_t n = ZSTD_compress(buf, cap, src, size, level);
  if (ZSTD_isError(n)) {
    snprintf(err->message, sizeof err->message, "zstd compression failed: %s",
             ZSTD_getErrorName(n));
    free(buf);
    return false;
  }
  *out = buf;
  *out_size = n;
  return true;
}

kiln_module_zstd_ctx_t *kiln_module_zstd_ctx_create(void) {
  return (kiln_module_zstd_ctx_t *)ZSTD_createDCtx();
}

void kiln_module_zstd_ctx_free(kiln_module_zstd_ctx_t *ctx) {
  ZSTD_freeDCtx((ZSTD_DCtx *)ctx);
}

bool kiln_module_segment_read(const kiln_module_view_t *view, uint32_t index,
                              void *dst, uint64_t dst_size,
                              kiln_format_error_t *err) {
  return kiln_module_segment_read_with(view, index, dst, dst_size, NULL, err);
}

bool kiln_module_segment_read_with(const kiln_module_view_t *view,
                                   uint32_t index, void *dst,
                                   uint64_t dst_size,
                                   kiln_module_zstd_ctx_t *ctx,
                                   kiln_format_error_t *err) {
  uint64_t size;
  const uint8_t *src = kiln_module_segment_data(view, index, &size);
  if (!src) {
    snprintf(err->message, sizeof err->message, "segment %" PRIu32
             " does not exist", index);
    return false;
  }
  kiln_fb_Segment_t s = kiln_fb_Module_segments_at(view->root, index);
  uint64_t want = kiln_fb_Segment_uncompressed_size(s);
  if (dst_size != want) {
    snprintf(err->message, sizeof err->message, "segments[%" PRIu32 "]: "
             "destination holds %" PRIu64 " bytes, segment expands to %" PRIu64,
             index, dst_size, want);
    return false;
  }
  if (kiln_fb_Segment_compression(s) == kiln_fb_Compression_None) {
    if (size) memcpy(dst, src, size);
  } else {
    unsigned long long claimed = ZSTD_getFrameContentSize(src, size);
    if (claimed != want) {
      snprintf(err->message, sizeof err->message, "segments[%" PRIu32 "]: "
               "zstd frame %s (expected %" PRIu64 " bytes)", index,
               claimed == ZSTD_CONTENTSIZE_ERROR     ? "is corrupt"
               : claimed == ZSTD_CONTENTSIZE_UNKNOWN ? "does not record its size"
                                                     : "records another size",
               want);
      return false;
    }
    size_t n = ctx ? ZSTD_decompressDCtx((ZSTD_DCtx *)ctx, dst, dst_size, src,
                                         size)
                   : ZSTD_decompress(dst, dst_size, src, size);
    if (ZSTD_isError(n) || n != want) {
      snprintf(err->message, sizeof err->message, "segments[%" PRIu32 "]: "
               "zstd decompression failed: %s", index,
               ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output");
      return false;
    }
  }
  uint64_t h = kiln_module_segment_hash(view, dst, dst_size);
  if (h != kiln_fb_Segment_content_hash(s)) {
    snprintf(err->message, sizeof err->message, "segments[%" PRIu32 "]: "
             "content hash %016" PRIx64 " does not match the recorded %016"
             PRIx64, index, h, kiln_fb_Segment_content_hash(s));
    return false;
  }
  return true;
}
