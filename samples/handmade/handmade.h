/* The handmade sample module: IREE's classic simple_mul (c = a * b over
 * tensor<Nxf32>) assembled by hand with the module builder, VM bytecode
 * written through the assembler, and a real ELF kernel. Library
 * kiln_handmade; the options let tests build deliberately wrong variants
 * (foreign architecture, mismatched import signature, failing kernel). */
#ifndef KILN_HANDMADE_H
#define KILN_HANDMADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct kiln_handmade_options {
  int64_t n;                  /* elements per tensor; -1: dynamic (tensor<?xf32>) */
  const char *variant_arch;   /* executable variant's arch, "x86_64" */
  const char *variant_features; /* LLVM feature string, "" */
  const char *allocate_signature; /* hal.buffer.allocate's, "I_r" */
  uint32_t export_ordinal;    /* 0: simple_mul, 1: fail_if_negative */
  bool compress;              /* zstd-compress the kernel segment */
  uint32_t bytecode_version;  /* KILN_VM_BYTECODE_VERSION */
  /* When set (n floats, static n): b is not an input but module rodata,
   * bound in place through hal.buffer.rodata. */
  const float *rodata_b;
  bool write_rodata;          /* bind the rodata as the output (must fail) */
  /* When set: the executable's only variant is this PTX text for
   * sm_<ptx_sm>, and export 0 is named "add_f32" (what the test driver
   * libfakecuda executes, as c = a + b). */
  const char *ptx;
  uint32_t ptx_sm;
} kiln_handmade_options_t;

void kiln_handmade_default_options(kiln_handmade_options_t *o);

/* Builds the module into a malloc'ed buffer (free() it). On failure
 * returns false with a message in err. */
bool kiln_handmade_build(const kiln_handmade_options_t *o, const void *kernel,
                         size_t kernel_size, uint8_t **out, size_t *out_size,
                         char *err, size_t err_cap);

/* Reads a whole file into a malloc'ed buffer. */
bool kiln_handmade_read_file(const char *path, uint8_t **data, size_t *size);

#endif /* KILN_HANDMADE_H */
