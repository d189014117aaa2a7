/* Writes DIR/NAME.h, the C interface of a static library: per exported
 * function F, NAME_F, NAME_F_scratch_size, _mlir_ciface_NAME_F and the
 * signature (as a comment and as the string NAME_F_SIGNATURE), each
 * argument and result with its element type and shape; then
 * NAME_error_message and the NAME_ERROR_* codes. Takes the plan; the text
 * depends on nothing else (no paths, no dates), so it is deterministic. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sl_internal.h"

#define SL_MAX_RANK 16

static void sl_upper(FILE *f, const char *s) {
  for (; *s; s++) fputc(toupper((unsigned char)*s), f);
}

static void sl_tensor_line(FILE *f, const char *what, uint32_t i, const sl_tensor *t) {
  char *s = kiln_type_to_string(t->type);
  fprintf(f, " *   %s %u: %s, %llu bytes\n", what, i, s ? s : "?", (unsigned long long)t->bytes);
  free(s);
}

/* The C struct of an MLIR ranked memref descriptor of rank R (MLIR's
 * layout: allocated and aligned pointers, offset, sizes, strides). */
static void sl_descriptor(FILE *f, const char *name, uint32_t rank) {
  if (rank)
    fprintf(f,
            "typedef struct { void *allocated; void *aligned; int64_t offset; int64_t sizes[%u]; "
            "int64_t strides[%u]; } %s_memref_%ud;\n",
            rank, rank, name, rank);
  else
    fprintf(f, "typedef struct { void *allocated; void *aligned; int64_t offset; } %s_memref_0d;\n",
            name);
}

kiln_error *sl_header_write(const sl_plan *p, FILE *f) {
  const char *n = p->name;
  fprintf(f,
          "/* %s.h: the model %s as a C library (kiln-compile --output-format=static-library,\n"
          " * target %s). Link %s.a; it needs no runtime, no loader and no allocator, only\n"
          " * memcpy/memset at most. Calls run on the calling thread unless %s_set_parallel is given.\n"
          " *\n"
          " * NAME_F(args, results, scratch): args[i] points to input i's dense row-major data,\n"
          " * results[i] to caller-owned storage for result i (both aligned at least to their\n"
          " * element type), scratch to NAME_F_scratch_size() bytes, 64-byte aligned (NULL when\n"
          " * that size is 0). Returns 0, or a code that %s_error_message explains. The same\n"
          " * scratch may serve every call, one call at a time. */\n",
          n, n, p->target, n, n, n);
  fputs("#ifndef ", f);
  sl_upper(f, n);
  fputs("_H\n#define ", f);
  sl_upper(f, n);
  fputs("_H\n\n#include <stddef.h>\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n", f);
#define SL_DEFINE(ID, TEXT)                                                                   \
  fputs("#define ", f);                                                                       \
  sl_upper(f, n);                                                                             \
  fprintf(f, "_ERROR_%s %d /* %s */\n", #ID, SL_##ID, TEXT);
  fputs("/* Return codes. */\n", f);
  SL_ERROR_CODES(SL_DEFINE)
#undef SL_DEFINE
  fprintf(f, "\n/* What CODE means (never NULL). */\nconst char *%s_error_message(int code);\n", n);
  fprintf(f,
          "\n/* Spreads workgroups over the app's threads: while parallel_for is not NULL,\n"
          " * each dispatch of several workgroups calls parallel_for(ctx, count, fn, fn_ctx),\n"
          " * which must call fn(fn_ctx, i) once for every i < count (on any threads, in any\n"
          " * order) and return when all calls have returned. NULL (the default): every\n"
          " * workgroup runs on the calling thread. Set it before calling, not during a call. */\n"
          "void %s_set_parallel(void (*parallel_for)(void *ctx, uint32_t count,\n"
          "                                          void (*fn)(void *, uint32_t), void *fn_ctx),\n"
          "                     void *ctx);\n",
          n);
  if (p->weight_offsets) {
    fprintf(f,
            "\n/* --weights=external: DATA is the contents of %s.weights (mapped or read),\n"
            " * 64-byte aligned, SIZE its size; it must stay valid while the model is used.\n"
            " * Returns 0 or the WEIGHTS error code, which every call returns until this has\n"
            " * succeeded. */\n#define ",
            n);
    sl_upper(f, n);
    fprintf(f, "_WEIGHTS_SIZE %lluu\nint %s_set_weights(const void *data, size_t size);\n",
            (unsigned long long)p->weights_size, n);
  }
  /* One descriptor type per rank in use. */
  bool seen[SL_MAX_RANK + 1] = {false};
  fputc('\n', f);
  for (uint32_t i = 0; i < p->function_count; i++) {
    const sl_function *fn = &p->functions[i];
    for (uint32_t k = 0; k < fn->arg_count + fn->result_count; k++) {
      const sl_tensor *t = k < fn->arg_count ? &fn->args[k] : &fn->results[k - fn->arg_count];
      if (t->type->rank > SL_MAX_RANK)
        return kiln_error_new("function @%s: rank %u is over %d", fn->symbol, t->type->rank, SL_MAX_RANK);
      if (!seen[t->type->rank]) sl_descriptor(f, n, t->type->rank);
      seen[t->type->rank] = true;
    }
  }
  for (uint32_t i = 0; i < p->function_count; i++) {
    const sl_function *fn = &p->functions[i];
    fprintf(f, "\n/* @%s %s\n", fn->symbol, fn->signature);
    for (uint32_t k = 0; k < fn->arg_count; k++) sl_tensor_line(f, "argument", k, &fn->args[k]);
    for (uint32_t k = 0; k < fn->result_count; k++) sl_tensor_line(f, "result", k, &fn->results[k]);
    fprintf(f, " * scratch: %llu bytes */\n", (unsigned long long)fn->scratch_size);
    fputs("#define ", f);
    sl_upper(f, n);
    fputc('_', f);
    sl_upper(f, fn->c_name);
    fputs("_SIGNATURE \"", f);
    for (const char *c = fn->signature; *c; c++) {
      if (*c == '"' || *c == '\\') fputc('\\', f);
      fputc(*c, f);
    }
    fputs("\"\n#define ", f);
    sl_upper(f, n);
    fputc('_', f);
    sl_upper(f, fn->c_name);
    fprintf(f, "_SCRATCH_SIZE %lluu\n", (unsigned long long)fn->scratch_size);
    fprintf(f, "int %s_%s(void *const *args, void *const *results, void *scratch);\n", n, fn->c_name);
    fprintf(f, "size_t %s_%s_scratch_size(void);\n", n, fn->c_name);
    fprintf(f, "/* MLIR's C interface: one descriptor per argument, then one per\n"
               " * (caller-allocated) result; offsets are honoured, strides must be\n"
               " * contiguous row-major. */\n");
    fprintf(f, "int _mlir_ciface_%s_%s(", n, fn->c_name);
    for (uint32_t k = 0; k < fn->arg_count + fn->result_count; k++) {
      const sl_tensor *t = k < fn->arg_count ? &fn->args[k] : &fn->results[k - fn->arg_count];
      fprintf(f, "%s%s_memref_%ud *%s%u", k < fn->arg_count ? "const " : "", n, t->type->rank,
              k < fn->arg_count ? "arg" : "result", k < fn->arg_count ? k : k - fn->arg_count);
      fputs(", ", f);
    }
    fputs("void *scratch);\n", f);
  }
  fputs("\n#ifdef __cplusplus\n}\n#endif\n#endif\n", f);
  return NULL;
}
