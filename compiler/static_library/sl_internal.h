/* Internals of the static-library output stage (prefix sl_): the plan of
 * each exported host function (what plan.c reads off the hal-level host
 * code after codegen), the host program's LLVM module (host.c), the C
 * header (header.c) and the System V archive (archive.c). */
#ifndef KILN_SL_INTERNAL_H
#define KILN_SL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ir.h"
#include "kiln_error.h"
#include "session.h"

/* The codes NAME_F returns; NAME_error_message says them in words. */
#define SL_ERROR_CODES(X)                                                                     \
  X(OK, "success")                                                                            \
  X(NULL_POINTER, "an argument, result or descriptor pointer is NULL, or scratch is NULL "    \
                  "while the function needs scratch memory")                                  \
  X(SCRATCH_ALIGNMENT, "scratch is not 64-byte aligned")                                      \
  X(KERNEL_FAILED, "a kernel reported a failure")                                             \
  X(DESCRIPTOR_SIZES, "a memref descriptor's sizes differ from the function's signature")     \
  X(DESCRIPTOR_STRIDES, "a memref descriptor is not contiguous row-major (strides are not "   \
                        "supported)")                                                        \
  X(WEIGHTS, "the weights are not set (NAME_set_weights), or the buffer given is NULL, not "   \
             "64-byte aligned or not the size of NAME.weights")                              \
  X(OUT_OF_RANGE, "an index, offset or size read from an argument's data lies outside the "  \
                  "tensor it addresses")

enum {
#define SL_CODE(ID, TEXT) SL_##ID,
  SL_ERROR_CODES(SL_CODE)
#undef SL_CODE
  SL_CODE_COUNT
};

/* Where a host buffer lives at run time. */
typedef enum { SL_BUF_ARG, SL_BUF_RESULT, SL_BUF_SCRATCH, SL_BUF_RODATA } sl_buf_kind;

typedef struct sl_buf {
  sl_buf_kind kind;
  uint64_t index; /* argument / result / rodata index, or scratch offset */
} sl_buf;

typedef struct sl_binding {
  sl_buf buf;
  uint64_t offset, length;
} sl_binding;

typedef struct sl_dispatch {
  char *entry;               /* the kernel's global symbol */
  uint32_t workgroup_size[3], workgroup_count[3];
  uint32_t binding_count, constant_count;
  sl_binding *bindings;
  uint32_t *constants;
} sl_dispatch;

/* Bytes the function zeroes before its first dispatch: an allocation
 * plan-memory did not mark {uninitialized}, whose kernels may leave part
 * of it unwritten (the runtime clears such buffers; the caller's scratch
 * and result storage come with whatever the last call left). */
typedef struct sl_clear {
  sl_buf buf;
  uint64_t length;
} sl_clear;

/* A position read from argument data that must lie in [lo, hi] before
 * any dispatch (hal.check.range of a hal.buffer_view.load): the element
 * at byte `offset` of argument `arg`, `bytes` wide (sign-extended). */
typedef struct sl_check {
  uint32_t arg, bytes;
  uint64_t offset;
  int64_t lo, hi;
} sl_check;

typedef struct sl_tensor {
  const kiln_type *type; /* a static ranked tensor */
  uint64_t bytes;
} sl_tensor;

typedef struct sl_function {
  const char *symbol; /* the func.func name */
  char *c_name;       /* symbol with [^A-Za-z0-9_] turned into '_' */
  char *signature;    /* "(tensor<2x8xf32>) -> tensor<2x4xf32>" */
  sl_tensor *args, *results;
  uint32_t arg_count, result_count;
  uint64_t scratch_size;
  sl_dispatch *dispatches;
  uint32_t dispatch_count;
  sl_clear *clears;
  uint32_t clear_count;
  sl_check *checks;
  uint32_t check_count;
} sl_function;

/* One rodata blob the host program references by index. */
typedef struct sl_rodata {
  const void *data; /* borrowed, or owned when `owned` */
  uint64_t size;
  bool owned;
} sl_rodata;

typedef struct sl_plan {
  const char *name; /* NAME */
  const char *target;
  sl_function *functions;
  uint32_t function_count;
  sl_rodata *rodata;
  uint32_t rodata_count;
  /* --weights=external: each blob's offset in DIR/NAME.weights (64-byte
   * aligned) and the file's size; NULL / 0 when embedded. */
  uint64_t *weight_offsets;
  uint64_t weights_size;
} sl_plan;

/* a + b + c, malloc'ed (NULL when out of memory). */
char *sl_cat(const char *a, const char *b, const char *c);

/* plan.c: reads every public host function of a module after codegen. A
 * function with dynamic shapes or an op the static host cannot run is an
 * error naming it. */
kiln_error *sl_plan_build(kiln_op *module, kiln_session *s, const char *name, const char *target,
                          sl_plan *out);
void sl_plan_free(sl_plan *p);

/* host.c: the host program (NAME_F, NAME_F_scratch_size, _mlir_ciface_NAME_F,
 * NAME_error_message, the weights) as an object file for the target. */
kiln_error *sl_host_object(const sl_plan *p, uint8_t **data, size_t *size);

/* header.c: DIR/NAME.h. */
kiln_error *sl_header_write(const sl_plan *p, FILE *f);

/* archive.c: a System V / GNU archive of `count` members with a symbol
 * index: symbols[i] lists the global symbols member i defines (NULL
 * terminated). */
typedef struct sl_member {
  char name[16]; /* at most 15 characters: no long-name table needed */
  const uint8_t *data;
  size_t size;
  const char *const *symbols;
} sl_member;
kiln_error *sl_archive_write(const sl_member *members, uint32_t count, FILE *f);

#endif /* KILN_SL_INTERNAL_H */
