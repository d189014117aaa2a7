/* A sample module with every kind of entry, for the format tests and
 * kiln-mkmodule (a compiled module rarely holds them all at once). Content
 * is fixed (pseudo-random bytes from a fixed seed), so its bytes are
 * reproducible. */
#ifndef KILN_SAMPLE_MODULE_H
#define KILN_SAMPLE_MODULE_H

#include "kiln/module_builder.h"

typedef struct kiln_sample_options {
  bool large_rodata; /* add a 96 KiB weight (page-aligned segment) */
  kiln_module_compression_t compression;
} kiln_sample_options_t;

/* Adds the sample's entries to b; errors surface at finish. */
void kiln_sample_module_fill(kiln_module_builder_t *b,
                             const kiln_sample_options_t *options);

#endif /* KILN_SAMPLE_MODULE_H */
