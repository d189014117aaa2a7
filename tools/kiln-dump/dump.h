/* kiln-dump internals: the printers share the verified view and a few
 * helpers (JSON strings, the size breakdown, variant naming). */
#ifndef KILN_DUMP_H
#define KILN_DUMP_H

#include <stdio.h>

#include "kiln/module_format.h"

/* One row of the size breakdown. */
typedef struct kdump_size_row {
  char label[96];
  uint64_t bytes;
} kdump_size_row;

#define KDUMP_MAX_ROWS 40

/* Fills rows: flatbuffer (and the bytecode inside it), rodata, executables
 * per target, padding; returns the row count. Rows sum to the file size
 * except "bytecode", which is part of "flatbuffer". */
unsigned kdump_size_breakdown(const kiln_module_view_t *m, kdump_size_row *rows);

/* "llvm-cpu:x86_64" or "cuda:sm_80": the target a variant runs on. */
void kdump_variant_target(kiln_fb_ExecutableVariant_t v, char *out, size_t cap);

/* "tensor<1x3x?xf32>" */
void kdump_tensor_type(kiln_fb_TensorType_t t, char *out, size_t cap);

/* Writes s[0..n) as a JSON string literal. */
void kdump_json_string(FILE *out, const char *s, size_t n);

/* Whether the instruction at pc of function fn calls the dispatch import
 * (hal.command_buffer.dispatch): a dispatch site. */
bool kdump_is_dispatch(const kiln_module_view_t *m, uint32_t fn, uint32_t pc);

/* The three printers; each returns 0 on success. */
int kdump_text(FILE *out, const kiln_module_view_t *m, const char *path);
int kdump_json(FILE *out, const kiln_module_view_t *m, const char *path);
int kdump_raw_json(FILE *out, const kiln_module_view_t *m);

/* Writes each variant's payload (decompressed) to dir as
 * <executable>_<variant>.so|.ptx; returns 0 on success. */
int kdump_extract(const kiln_module_view_t *m, const char *dir);

#endif /* KILN_DUMP_H */
