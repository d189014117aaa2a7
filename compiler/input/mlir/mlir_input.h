/* MLIR text front end: reads a file (or stdin for "-") into a module.
 * Takes: a path. Guarantees: on success *out is a verified builtin.module
 * owned by ctx; on failure located diagnostics were emitted on ctx and the
 * error says which step failed (read, parse, verify). */
#ifndef KILN_MLIR_INPUT_H
#define KILN_MLIR_INPUT_H

#include "ir.h"

kiln_error *kiln_mlir_load_file(kiln_context *ctx, const char *path,
                                bool verify, kiln_op **out);
/* Reads a whole file ("-": stdin) into ctx's arena (NUL-terminated). */
kiln_error *kiln_mlir_read_file(kiln_context *ctx, const char *path,
                                const char **text, size_t *len);
kiln_error *kiln_mlir_load_buffer(kiln_context *ctx, const char *name,
                                  const char *text, size_t len, bool verify,
                                  kiln_op **out);

#endif
