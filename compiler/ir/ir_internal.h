/* Internals shared by the IR library's files (prefix ir_): the context
 * layout, the arena, growable byte buffers and the interning hash set.
 * Nothing here is part of the public API (ir.h, asm.h). */
#ifndef KILN_IR_INTERNAL_H
#define KILN_IR_INTERNAL_H

#include "ir.h"

#include <string.h>

/* Growable malloc'ed byte buffer (printer output, scratch). */
typedef struct ir_buf {
  char *data;
  size_t len, cap;
} ir_buf;
void ir_buf_put(ir_buf *b, const char *s, size_t n);
void ir_buf_puts(ir_buf *b, const char *s);
void ir_buf_putc(ir_buf *b, char c);
void ir_buf_printf(ir_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ir_buf_vprintf(ir_buf *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void ir_buf_free(ir_buf *b);
char *ir_buf_take(ir_buf *b); /* NUL-terminated, caller frees */

/* Open-addressing set of interned objects, keyed by a precomputed hash. */
typedef struct ir_set {
  void **slots;
  uint64_t *hashes;
  size_t cap, count;
} ir_set;
/* Finds an entry equal to key (eq(entry, key)) or returns NULL. */
void *ir_set_find(ir_set *s, uint64_t hash, bool (*eq)(const void *, const void *),
                  const void *key);
void ir_set_insert(ir_set *s, uint64_t hash, void *entry);
void ir_set_free(ir_set *s);

/* kiln_ptr_map_put for the IR's own maps (printer names, clone maps,
 * parser scopes): out of memory aborts, as the arena does. */
void ir_map_put(kiln_ptr_map *m, const void *key, void *val);

uint64_t ir_hash_bytes(uint64_t h, const void *p, size_t n);
static inline uint64_t ir_hash_u64(uint64_t h, uint64_t v) {
  return ir_hash_bytes(h, &v, sizeof v);
}
#define IR_HASH_SEED 1469598103934665603ull

typedef struct ir_arena_chunk ir_arena_chunk;

typedef struct ir_source {
  const char *name;
  const char *text;
  size_t len;
} ir_source;

struct kiln_context {
  ir_arena_chunk *chunks;   /* arena: bump allocation in the head chunk */
  char *cur, *end;
  ir_set strings, types, attrs, exprs, maps;
  bool allow_unregistered;
  void *user; /* kiln_context_set_user */
  kiln_diag_handler diag;
  void *diag_user;
  unsigned errors;
  const char **error_texts; /* per error: "file:line:col: message" */
  uint32_t cap_error_texts;
  ir_source *sources;
  size_t num_sources, cap_sources;
  const kiln_type *t_index, *t_f16, *t_bf16, *t_f32, *t_f64, *t_none, *t_i1;
  const kiln_attr *a_unit, *a_true, *a_false, *a_empty_dict;
};

/* Grows an arena array to hold at least `need` elements. */
void *ir_grow(kiln_context *ctx, void *old, size_t elem, uint32_t *cap,
              uint32_t need);

/* Printer entry used by kiln_type_to_string etc. (printer.c). */
struct kiln_printer;
void ir_print_type(struct kiln_printer *p, const kiln_type *t);
void ir_print_attr(struct kiln_printer *p, const kiln_attr *a, bool with_type);
void ir_print_affine_map(ir_buf *b, const kiln_affine_map *m);
void ir_print_affine_expr(ir_buf *b, const kiln_affine_expr *e);
void ir_print_float(ir_buf *b, const kiln_type *t, double v);

/* Float semantics of a float type (f16/bf16/f32/f64). */
int ir_float_precision_bits(const kiln_type *t);
uint64_t ir_float_bits(const kiln_type *t, double v);
double ir_float_from_bits(const kiln_type *t, uint64_t bits);

/* Raw op table lookup used by the parser. */
extern const kiln_op_info ir_op_table[KILN_OP_COUNT];

#endif
