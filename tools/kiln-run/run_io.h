/* Host-side tensors for kiln-run and kiln-bench: parsing IREE-style
 * --input values ("2x2xf32=1,2,3,4", "2x2xf32=[[1 2][3 4]]", "f32=3.5",
 * "@x.npy", "4xf32=@raw.bin"), reading and writing .npy files, and
 * printing results ("4xf32=5 12 21 32", long tensors elided). Errors are
 * messages in a caller buffer; nothing here aborts. Library kiln_run_io. */
#ifndef KILN_RUN_IO_H
#define KILN_RUN_IO_H

#include <stdbool.h>
#include <stdio.h>

#include "kiln/runtime.h"

typedef struct kiln_host_tensor {
  kiln_tensor_type_t type;
  void *data; /* malloc'ed, dense row-major */
  size_t size;
} kiln_host_tensor_t;

void kiln_host_tensor_free(kiln_host_tensor_t *t);

/* Parses one --input value. `declared` (may be NULL) supplies the type of
 * a bare scalar such as "3.5". */
bool kiln_parse_input(const char *text, const kiln_tensor_type_t *declared,
                      kiln_host_tensor_t *out, char *err, size_t err_cap);

/* Parses "2x?x3xf32"-style specs without values ("2x3xf32"). */
bool kiln_parse_type(const char *text, size_t len, kiln_tensor_type_t *out,
                     char *err, size_t err_cap);

bool kiln_npy_read(const char *path, kiln_host_tensor_t *out, char *err,
                   size_t err_cap);
bool kiln_npy_write(const char *path, const kiln_host_tensor_t *t, char *err,
                    size_t err_cap);

/* Prints "4xf32=5 12 21 32" (no newline). */
void kiln_print_tensor(FILE *out, const kiln_host_tensor_t *t);

/* Copies a result view to host memory. */
bool kiln_host_tensor_from_view(const kiln_buffer_view_t *view,
                                kiln_host_tensor_t *out, char *err,
                                size_t err_cap);

#endif /* KILN_RUN_IO_H */
