/* Kiln IR: the one SSA IR every compiler stage works on.
 *
 * Takes: nothing but a context. Guarantees: every type, attribute and affine
 * expression is interned in its context, so equality is pointer equality;
 * all IR memory belongs to the context's arena and is freed at once by
 * kiln_context_destroy (erasing an op unlinks it, it does not free it).
 *
 * Structs below are exposed for reading; mutate only through functions so
 * that use lists and parent links stay consistent. */
#ifndef KILN_IR_H
#define KILN_IR_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "kiln_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kiln_context kiln_context;
typedef struct kiln_type kiln_type;
typedef struct kiln_attr kiln_attr;
typedef struct kiln_affine_expr kiln_affine_expr;
typedef struct kiln_affine_map kiln_affine_map;
typedef struct kiln_value kiln_value;
typedef struct kiln_use kiln_use;
typedef struct kiln_op kiln_op;
typedef struct kiln_block kiln_block;
typedef struct kiln_region kiln_region;
typedef struct kiln_op_info kiln_op_info;

/* ---- Errors: kiln_error (kiln_error.h), NULL meaning success. ---- */

/* ---- Context, arena, diagnostics ---- */
typedef struct kiln_loc {
  const char *file; /* interned; NULL = unknown */
  uint32_t line, col;
  /* What the op computes in the input's terms where file:line:col does
   * not say it, one "NAME (KIND)" line each, interned, NULL if none: the
   * ONNX node it comes from ("/layer1/layer1.0/conv1/Conv (Conv)", an
   * unnamed one "Conv#12 (Conv)"); after fusion, every op fused into it;
   * a dispatch lists everything in its kernel. Passes that create an op
   * from others give it their loc (kiln_loc_fuse when several merge). */
  const char *nodes;
} kiln_loc;

kiln_context *kiln_context_create(void);
void kiln_context_destroy(kiln_context *ctx);
/* Zeroed memory living as long as the context. */
void *kiln_alloc(kiln_context *ctx, size_t size);
const char *kiln_intern(kiln_context *ctx, const char *s, size_t len);
const char *kiln_intern_cstr(kiln_context *ctx, const char *s);
/* A's place with the source nodes of A and B (each line once, A's first):
 * the location of an op that merges the ops at A and B. */
kiln_loc kiln_loc_fuse(kiln_context *ctx, kiln_loc a, kiln_loc b);
/* NODES (lines as in kiln_loc.nodes, or NULL) with OP's source nodes
 * added: its loc.nodes, else "file:line:col (op.name)" when its file is
 * known; interned. */
const char *kiln_loc_nodes_add(kiln_context *ctx, const char *nodes, const kiln_op *op);
/* Accept ops whose name is not in the op table (like mlir-opt's
 * --allow-unregistered-dialect). Off by default: unknown ops are errors. */
void kiln_context_allow_unregistered(kiln_context *ctx, bool allow);
bool kiln_context_allows_unregistered(const kiln_context *ctx);
/* One pointer the context's owner associates with it (the compile
 * session: kiln_session_of); NULL until set. */
void kiln_context_set_user(kiln_context *ctx, void *user);
void *kiln_context_user(const kiln_context *ctx);

/* Diagnostics are rendered as "file:line:col: error: message", then the
 * source line and a caret when the file's text was registered. By default
 * they go to stderr; a handler can capture them. */
typedef void (*kiln_diag_handler)(void *user, const char *text);
void kiln_context_set_diag_handler(kiln_context *ctx, kiln_diag_handler fn,
                                   void *user);
void kiln_context_add_source(kiln_context *ctx, const char *name,
                             const char *text, size_t len);
void kiln_emit_error(kiln_context *ctx, kiln_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void kiln_emit_note(kiln_context *ctx, kiln_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void kiln_emit_verror(kiln_context *ctx, kiln_loc loc, const char *kind,
                      const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
unsigned kiln_context_error_count(const kiln_context *ctx);
/* Error diagnostic number i (0 .. error count - 1) as one line,
 * "file:line:col: message" (no source line); NULL when out of range. So
 * a front end that reports through diagnostics can return the first one
 * it emitted as its kiln_error. */
const char *kiln_context_error_text(const kiln_context *ctx, unsigned i);

/* ---- Types ---- */
typedef enum kiln_type_kind {
  KILN_TYPE_INTEGER,  /* iN, siN, uiN */
  KILN_TYPE_INDEX,
  KILN_TYPE_F16,
  KILN_TYPE_BF16,
  KILN_TYPE_F32,
  KILN_TYPE_F64,
  KILN_TYPE_NONE,
  KILN_TYPE_TENSOR,   /* ranked; encoding may be set */
  KILN_TYPE_UNRANKED_TENSOR,
  KILN_TYPE_VECTOR,
  KILN_TYPE_MEMREF,   /* layout: affine map or strided attr; memspace */
  KILN_TYPE_UNRANKED_MEMREF,
  KILN_TYPE_FUNCTION,
  KILN_TYPE_TUPLE,
  KILN_TYPE_OPAQUE,   /* !dialect.body — stage types such as !hal.buffer */
} kiln_type_kind;

typedef enum { KILN_SIGNLESS, KILN_SIGNED, KILN_UNSIGNED } kiln_signedness;

/* A dynamic dimension ('?') in a shape. */
#define KILN_DYNAMIC INT64_MIN

struct kiln_type {
  kiln_type_kind kind;
  uint32_t width;           /* integer / float bit width */
  kiln_signedness sign;     /* integers */
  uint32_t rank;            /* shaped types */
  const int64_t *shape;     /* rank entries, KILN_DYNAMIC for '?' */
  const kiln_type *elem;    /* shaped types */
  const kiln_attr *layout;  /* tensor encoding / memref layout, or NULL */
  const kiln_attr *memspace;/* memref memory space, or NULL */
  uint32_t num_inputs;      /* function types; tuple: num_inputs = count */
  uint32_t num_results;
  const kiln_type *const *types; /* function: inputs then results */
  const char *dialect;      /* opaque: "hal" */
  const char *body;         /* opaque: "buffer" or "buffer<...>" */
  uint64_t hash;
};

const kiln_type *kiln_type_int(kiln_context *ctx, uint32_t width);
const kiln_type *kiln_type_int_sign(kiln_context *ctx, uint32_t width,
                                    kiln_signedness sign);
const kiln_type *kiln_type_index(kiln_context *ctx);
const kiln_type *kiln_type_f16(kiln_context *ctx);
const kiln_type *kiln_type_bf16(kiln_context *ctx);
const kiln_type *kiln_type_f32(kiln_context *ctx);
const kiln_type *kiln_type_f64(kiln_context *ctx);
const kiln_type *kiln_type_none(kiln_context *ctx);
const kiln_type *kiln_type_tensor(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem,
                                  const kiln_attr *encoding);
const kiln_type *kiln_type_unranked_tensor(kiln_context *ctx,
                                           const kiln_type *elem);
const kiln_type *kiln_type_vector(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem);
const kiln_type *kiln_type_memref(kiln_context *ctx, uint32_t rank,
                                  const int64_t *shape, const kiln_type *elem,
                                  const kiln_attr *layout,
                                  const kiln_attr *memspace);
const kiln_type *kiln_type_unranked_memref(kiln_context *ctx,
                                           const kiln_type *elem,
                                           const kiln_attr *memspace);
const kiln_type *kiln_type_function(kiln_context *ctx, uint32_t num_inputs,
                                    const kiln_type *const *inputs,
                                    uint32_t num_results,
                                    const kiln_type *const *results);
const kiln_type *kiln_type_tuple(kiln_context *ctx, uint32_t n,
                                 const kiln_type *const *types);
const kiln_type *kiln_type_opaque(kiln_context *ctx, const char *dialect,
                                  const char *body);
/* !kiln.seq<T>: an ONNX sequence of tensors of type T at run time (a list
 * the host builds; flow.list.*). Opaque, its element type in `elem`;
 * the parser builds it through here, so the spelling and elem agree. */
const kiln_type *kiln_type_seq(kiln_context *ctx, const kiln_type *elem);
bool kiln_type_is_seq(const kiln_type *t);
/* Same shape/kind as `shaped` with another element type or shape. */
const kiln_type *kiln_type_with_elem(kiln_context *ctx, const kiln_type *shaped,
                                     const kiln_type *elem);
const kiln_type *kiln_type_with_shape(kiln_context *ctx,
                                      const kiln_type *shaped, uint32_t rank,
                                      const int64_t *shape);

bool kiln_type_is_float(const kiln_type *t);
bool kiln_type_is_integer(const kiln_type *t);     /* iN only */
bool kiln_type_is_int_or_index(const kiln_type *t);
bool kiln_type_is_shaped(const kiln_type *t);      /* tensor/vector/memref */
bool kiln_type_is_ranked(const kiln_type *t);
bool kiln_type_has_static_shape(const kiln_type *t);
/* Number of '?' dims of a ranked type (0 for others). */
uint32_t kiln_type_num_dynamic_dims(const kiln_type *t);
/* Number of KILN_DYNAMIC entries of an integer dense array attribute
 * (static_sizes, workload, ...; 0 for others). */
uint32_t kiln_attr_num_dynamic(const kiln_attr *a);
/* Element type of a shaped type, or t itself for scalars. */
const kiln_type *kiln_type_elem_or_self(const kiln_type *t);
/* Product of the dims, or -1 when some dim is dynamic / unranked. */
int64_t kiln_type_num_elements(const kiln_type *t);
/* Bit width of scalars (index counts as 64). */
uint32_t kiln_type_bitwidth(const kiln_type *t);
const kiln_type *kiln_type_fn_input(const kiln_type *fn, uint32_t i);
const kiln_type *kiln_type_fn_result(const kiln_type *fn, uint32_t i);

/* ---- Affine maps ---- */
typedef enum kiln_affine_kind {
  KILN_AFFINE_DIM, KILN_AFFINE_SYMBOL, KILN_AFFINE_CONST,
  KILN_AFFINE_ADD, KILN_AFFINE_MUL, KILN_AFFINE_MOD,
  KILN_AFFINE_FLOORDIV, KILN_AFFINE_CEILDIV,
} kiln_affine_kind;

struct kiln_affine_expr {
  kiln_affine_kind kind;
  int64_t value;  /* position (dim/symbol) or constant */
  const kiln_affine_expr *lhs, *rhs;
};

struct kiln_affine_map {
  uint32_t num_dims, num_symbols, num_results;
  const kiln_affine_expr *const *results;
};

const kiln_affine_expr *kiln_affine_dim(kiln_context *ctx, unsigned pos);
const kiln_affine_expr *kiln_affine_symbol(kiln_context *ctx, unsigned pos);
const kiln_affine_expr *kiln_affine_const(kiln_context *ctx, int64_t v);
/* Folds constants and moves constants to the right, like MLIR does. */
const kiln_affine_expr *kiln_affine_binary(kiln_context *ctx,
                                           kiln_affine_kind kind,
                                           const kiln_affine_expr *lhs,
                                           const kiln_affine_expr *rhs);
const kiln_affine_map *kiln_affine_map_get(kiln_context *ctx, uint32_t dims,
                                           uint32_t syms, uint32_t nresults,
                                           const kiln_affine_expr *const *res);
const kiln_affine_map *kiln_affine_map_identity(kiln_context *ctx,
                                                uint32_t dims);
bool kiln_affine_map_is_identity(const kiln_affine_map *m);
/* True when every result is a distinct dim (a projected permutation). */
bool kiln_affine_map_is_projected_permutation(const kiln_affine_map *m);

/* ---- Attributes ---- */
typedef enum kiln_attr_kind {
  KILN_ATTR_UNIT,
  KILN_ATTR_BOOL,        /* i: 0/1 (type i1) */
  KILN_ATTR_INTEGER,     /* i, type */
  KILN_ATTR_FLOAT,       /* f, type */
  KILN_ATTR_STRING,      /* str, len; type optional */
  KILN_ATTR_TYPE,        /* type */
  KILN_ATTR_ARRAY,       /* count, elems */
  KILN_ATTR_DICT,        /* count, entries (sorted by name) */
  KILN_ATTR_DENSE,       /* dense<...> : type; raw little-endian data */
  KILN_ATTR_DENSE_ARRAY, /* array<i64: 1, 2>; type = element type */
  KILN_ATTR_AFFINE_MAP,  /* map */
  KILN_ATTR_SYMBOL_REF,  /* str = root; count/elems = nested flat refs */
  KILN_ATTR_STRIDED,     /* strided<[s...], offset: o>; data = strides */
  KILN_ATTR_OPAQUE,      /* #dialect.name<body>: dialect, str = rest */
} kiln_attr_kind;

typedef struct kiln_named_attr {
  const char *name; /* interned */
  const kiln_attr *value;
} kiln_named_attr;

struct kiln_attr {
  kiln_attr_kind kind;
  const kiln_type *type;
  int64_t i;             /* integer/bool value; strided offset */
  double f;
  const char *str;       /* interned (strings may hold NULs: use len) */
  size_t len;
  const char *dialect;   /* opaque attrs */
  uint32_t count;        /* array/dict/dense-array/strided/dense elements */
  const kiln_attr *const *elems;
  const kiln_named_attr *entries;
  const kiln_affine_map *map;
  bool splat;            /* dense: one element stands for all */
  const void *data;      /* dense: elem storage; dense-array: int64/double */
  size_t nbytes;
  uint64_t hash;
};

const kiln_attr *kiln_attr_unit(kiln_context *ctx);
const kiln_attr *kiln_attr_bool(kiln_context *ctx, bool v);
/* value is truncated to the type's width and sign-extended (signless/si)
 * or zero-extended (ui). */
const kiln_attr *kiln_attr_int(kiln_context *ctx, const kiln_type *type,
                               int64_t value);
const kiln_attr *kiln_attr_float(kiln_context *ctx, const kiln_type *type,
                                 double value);
const kiln_attr *kiln_attr_string(kiln_context *ctx, const char *s, size_t n);
const kiln_attr *kiln_attr_type(kiln_context *ctx, const kiln_type *t);
const kiln_attr *kiln_attr_array(kiln_context *ctx, uint32_t n,
                                 const kiln_attr *const *elems);
/* Sorts entries by name; duplicate names are the caller's bug. */
const kiln_attr *kiln_attr_dict(kiln_context *ctx, uint32_t n,
                                const kiln_named_attr *entries);
/* Dense elements of shaped type `type`. `data` holds num_elements (or one,
 * when splat) values in storage form: iN in 1/2/4/8 bytes (i1 one byte),
 * f16/bf16 2 bytes, f32 4, f64 8, index 8; little-endian. */
const kiln_attr *kiln_attr_dense(kiln_context *ctx, const kiln_type *type,
                                 bool splat, const void *data, size_t nbytes);
/* The same without copying `data` (num_elements values, not a splat):
 * the attribute points at it, so it must stay valid and unchanged until
 * the context is destroyed and nothing reads the IR any more (for weights
 * from a model file: until the module is written). Interning is by
 * content as for kiln_attr_dense: an equal attribute that exists already
 * is returned instead; all-equal data still becomes a (copied) splat. */
const kiln_attr *kiln_attr_dense_borrowed(kiln_context *ctx,
                                          const kiln_type *type,
                                          const void *data, size_t nbytes);
const kiln_attr *kiln_attr_dense_splat_int(kiln_context *ctx,
                                           const kiln_type *type, int64_t v);
const kiln_attr *kiln_attr_dense_splat_float(kiln_context *ctx,
                                             const kiln_type *type, double v);
const kiln_attr *kiln_attr_dense_i64_array(kiln_context *ctx, uint32_t n,
                                           const int64_t *v);
const kiln_attr *kiln_attr_dense_array(kiln_context *ctx,
                                       const kiln_type *elem, uint32_t n,
                                       const int64_t *ints,
                                       const double *floats);
const kiln_attr *kiln_attr_affine_map(kiln_context *ctx,
                                      const kiln_affine_map *m);
const kiln_attr *kiln_attr_symbol_ref(kiln_context *ctx, const char *root,
                                      uint32_t n_nested,
                                      const char *const *nested);
const kiln_attr *kiln_attr_strided(kiln_context *ctx, int64_t offset,
                                   uint32_t n, const int64_t *strides);
const kiln_attr *kiln_attr_opaque(kiln_context *ctx, const char *dialect,
                                  const char *body);

const kiln_attr *kiln_dict_get(const kiln_attr *dict, const char *name);
/* Returns a new dict with name set (value NULL removes it). */
const kiln_attr *kiln_dict_set(kiln_context *ctx, const kiln_attr *dict,
                               const char *name, const kiln_attr *value);
/* a's elements (ranked static shape, not a splat or a splat) as a tensor
 * permuted like linalg.transpose: result dim i is a's dim perm[i]. Splats
 * stay splats; other data is permuted once into the context's arena and
 * borrowed from there. NULL when perm is not a permutation of a's dims. */
const kiln_attr *kiln_attr_dense_transpose(kiln_context *ctx, const kiln_attr *a,
                                           const int64_t *perm);
/* a's elements with another static shape of the same element count (the
 * row-major data is unchanged and shared, never copied). */
const kiln_attr *kiln_attr_dense_reshape(kiln_context *ctx, const kiln_attr *a,
                                         const kiln_type *type);
/* Dense element access (index i is row-major; splats repeat). */
size_t kiln_dense_elem_size(const kiln_type *elem);
int64_t kiln_dense_count(const kiln_attr *a);
int64_t kiln_dense_get_int(const kiln_attr *a, int64_t i);
double kiln_dense_get_float(const kiln_attr *a, int64_t i);
/* Float storage helpers for f16 / bf16. */
uint16_t kiln_f32_to_f16(float f);
float kiln_f16_to_f32(uint16_t h);
uint16_t kiln_f32_to_bf16(float f);
float kiln_bf16_to_f32(uint16_t h);
/* Rounds a double to what the float type can hold. */
double kiln_float_round(const kiln_type *t, double v);

/* ---- Values, operations, blocks, regions ---- */
struct kiln_use {
  kiln_value *value;    /* the used value (NULL while unset) */
  kiln_op *owner;
  uint32_t index;       /* operand number in owner */
  kiln_use *next, **prevp; /* the value's use list */
};

struct kiln_value {
  const kiln_type *type;
  kiln_op *def;         /* defining op for results, NULL for block args */
  kiln_block *block;    /* owning block for block args */
  uint32_t index;       /* result number / argument number */
  kiln_use *uses;       /* first use */
  kiln_loc loc;         /* block arguments: where declared */
};

typedef enum kiln_op_kind {
#define KILN_OP(ID, NAME, ...) KILN_OP_##ID,
#include "ops.def"
#undef KILN_OP
  KILN_OP_UNREGISTERED, /* name not in the table (allowed contexts only) */
  KILN_OP_COUNT
} kiln_op_kind;

struct kiln_op {
  kiln_op_kind kind;
  const kiln_op_info *info;
  const char *name;       /* interned full name, e.g. "arith.addf" */
  kiln_loc loc;
  uint32_t num_operands, num_results, num_regions, num_successors;
  kiln_use *operands;
  kiln_value *results;
  kiln_region *regions;
  kiln_block **successors;
  const kiln_attr *attrs;  /* dictionary (never NULL) */
  kiln_block *parent;
  kiln_op *prev, *next;
};

struct kiln_block {
  kiln_region *parent;
  kiln_block *prev, *next;
  kiln_op *first, *last;
  uint32_t num_args, cap_args;
  kiln_value **args;
  kiln_loc loc;
};

struct kiln_region {
  kiln_op *parent;
  kiln_block *first, *last;
};

/* Op traits (flags in the op table). */
enum {
  KILN_OPF_TERMINATOR = 1u << 0,
  KILN_OPF_PURE = 1u << 1,          /* no side effects: DCE/CSE may act */
  KILN_OPF_COMMUTATIVE = 1u << 2,
  KILN_OPF_ISOLATED = 1u << 3,      /* regions don't see outer values */
  KILN_OPF_SYMBOL = 1u << 4,        /* has sym_name */
  KILN_OPF_SYMBOL_TABLE = 1u << 5,  /* sym_names unique within */
  KILN_OPF_CONSTANT = 1u << 6,      /* value attr holds the result */
  KILN_OPF_ELEMENTWISE = 1u << 7,   /* scalar op, also valid on tensors */
  KILN_OPF_NO_TERMINATOR = 1u << 8, /* single block without terminator */
  KILN_OPF_SAME_TYPES = 1u << 9,    /* operands and results share a type */
  KILN_OPF_LINALG = 1u << 10,       /* structured op: ins(...) outs(...) */
  KILN_OPF_RETURN_LIKE = 1u << 11,
};

struct kiln_parser;
struct kiln_printer;
struct kiln_op_state;
typedef bool (*kiln_op_verify_fn)(kiln_op *op);
typedef bool (*kiln_op_parse_fn)(struct kiln_parser *p, struct kiln_op_state *st);
typedef void (*kiln_op_print_fn)(struct kiln_printer *p, const kiln_op *op);

/* One row of the op table (ops.def). */
struct kiln_op_info {
  kiln_op_kind kind;
  const char *name;        /* "dialect.op" */
  int32_t min_operands, max_operands; /* max -1: variadic */
  int32_t min_results, max_results;
  int32_t min_regions, max_regions;
  uint32_t flags;
  kiln_op_verify_fn verify;   /* NULL: only table checks */
  kiln_op_parse_fn parse;     /* NULL: generic form only */
  kiln_op_print_fn print;     /* NULL: printed in generic form */
  const char *result_name;    /* printer's suggested SSA name, or NULL */
};

const kiln_op_info *kiln_op_info_get(kiln_op_kind kind);
/* Table lookup by full name; NULL when unknown. */
const kiln_op_info *kiln_op_info_lookup(const char *name, size_t len);
static inline bool kiln_op_has_flag(const kiln_op *op, uint32_t f) {
  return (op->info->flags & f) != 0;
}
static inline bool kiln_op_is(const kiln_op *op, kiln_op_kind k) {
  return op->kind == k;
}

/* Creates a detached op. operands may be NULL (set later with
 * kiln_op_set_operand); attrs may be NULL (empty dict). Regions are created
 * empty. For unregistered ops pass KILN_OP_UNREGISTERED and a name. */
kiln_op *kiln_op_create(kiln_context *ctx, kiln_op_kind kind, kiln_loc loc,
                        uint32_t num_operands, kiln_value *const *operands,
                        uint32_t num_results,
                        const kiln_type *const *result_types,
                        const kiln_attr *attrs, uint32_t num_regions);
kiln_op *kiln_op_create_named(kiln_context *ctx, const char *name,
                              kiln_loc loc, uint32_t num_operands,
                              kiln_value *const *operands,
                              uint32_t num_results,
                              const kiln_type *const *result_types,
                              const kiln_attr *attrs, uint32_t num_regions);
kiln_context *kiln_op_context(const kiln_op *op);
static inline kiln_value *kiln_op_operand(const kiln_op *op, uint32_t i) {
  return op->operands[i].value;
}
static inline kiln_value *kiln_op_result(kiln_op *op, uint32_t i) {
  return &op->results[i];
}
static inline kiln_region *kiln_op_region(kiln_op *op, uint32_t i) {
  return &op->regions[i];
}
void kiln_op_set_operand(kiln_op *op, uint32_t i, kiln_value *v);
/* Replaces the whole operand list (count may change). */
void kiln_op_set_operands(kiln_op *op, uint32_t n, kiln_value *const *vals);
void kiln_op_set_successors(kiln_op *op, uint32_t n, kiln_block *const *b);
const kiln_attr *kiln_op_get_attr(const kiln_op *op, const char *name);
void kiln_op_set_attr(kiln_op *op, const char *name, const kiln_attr *value);
void kiln_op_remove_attr(kiln_op *op, const char *name);
/* Parent op of the block holding op, or NULL. */
kiln_op *kiln_op_parent_op(const kiln_op *op);
/* First ancestor (or op itself) of the given kind, or NULL. */
kiln_op *kiln_op_ancestor(kiln_op *op, kiln_op_kind kind);
/* Is `op` nested (at any depth) inside `ancestor`? (false when equal) */
bool kiln_op_is_inside(const kiln_op *op, const kiln_op *ancestor);

/* Deep copy; operands found in `map` (pairs old->new) are remapped, others
 * kept. Results and block args of the clone are entered in the map. */
typedef struct kiln_value_map {
  uint32_t count, cap;
  kiln_value **from, **to;
  /* Hash index of `from` (position + 1). Setting count = 0 empties the map;
   * stale index entries are ignored and purged on the next rebuild. */
  uint32_t *index, index_cap, index_used;
} kiln_value_map;
kiln_value *kiln_value_map_lookup(const kiln_value_map *m, kiln_value *v);
void kiln_value_map_add(kiln_context *ctx, kiln_value_map *m, kiln_value *from,
                        kiln_value *to);
kiln_op *kiln_op_clone(kiln_op *op, kiln_value_map *map);

/* Unlinks op from its block; uses are kept (op may be re-inserted). */
void kiln_op_remove(kiln_op *op);
/* Unlinks op and drops its operand uses and those of everything nested.
 * Its results must have no remaining uses outside itself. */
void kiln_op_erase(kiln_op *op);
void kiln_op_move_before(kiln_op *op, kiln_op *before);

/* Values */
static inline bool kiln_value_has_uses(const kiln_value *v) {
  return v->uses != NULL;
}
bool kiln_value_has_one_use(const kiln_value *v);
uint32_t kiln_value_use_count(const kiln_value *v);
/* Every use of `from` now uses `to`. */
void kiln_value_replace_all_uses(kiln_value *from, kiln_value *to);
/* The one way to change a value's type once it exists (result or block
 * argument: shape refinement, retyping an argument). A pointer store:
 * types are interned and uses point at the value, not its type, so no use
 * needs updating. Checks nothing: the caller keeps users valid, and the
 * verifier says when it did not. */
void kiln_value_set_type(kiln_value *v, const kiln_type *t);
/* Owner op of the value's definition: the defining op, or the op owning
 * the block of a block argument. */
kiln_op *kiln_value_owner_op(const kiln_value *v);
/* Constant op attribute behind v (arith.constant), or NULL. */
const kiln_attr *kiln_value_constant(const kiln_value *v);

/* Blocks and regions */
kiln_block *kiln_block_create(kiln_context *ctx);
kiln_value *kiln_block_add_arg(kiln_context *ctx, kiln_block *b,
                               const kiln_type *type, kiln_loc loc);
/* A new argument at position i (the ones from i on move up by one). */
kiln_value *kiln_block_insert_arg(kiln_context *ctx, kiln_block *b, uint32_t i,
                                  const kiln_type *type, kiln_loc loc);
void kiln_block_erase_arg(kiln_block *b, uint32_t i); /* arg must be unused */
void kiln_region_append_block(kiln_region *r, kiln_block *b);
void kiln_region_remove_block(kiln_block *b);
kiln_op *kiln_block_parent_op(const kiln_block *b);
kiln_op *kiln_block_terminator(const kiln_block *b); /* NULL if none */
void kiln_block_append_op(kiln_block *b, kiln_op *op);
void kiln_block_insert_before(kiln_op *before, kiln_op *op);
void kiln_block_insert_after(kiln_op *after, kiln_op *op);
/* Entry block of region i of op, creating it when absent. */
kiln_block *kiln_op_entry_block(kiln_context *ctx, kiln_op *op, uint32_t i);

/* Builder: an insertion point plus a default location. */
typedef struct kiln_builder {
  kiln_context *ctx;
  kiln_block *block;
  kiln_op *before;   /* insert before this op; NULL = at block end */
  kiln_loc loc;
} kiln_builder;
kiln_builder kiln_builder_at_end(kiln_context *ctx, kiln_block *b);
kiln_builder kiln_builder_before(kiln_op *op);
kiln_builder kiln_builder_after(kiln_op *op);
kiln_op *kiln_builder_insert(kiln_builder *b, kiln_op *op);
/* Creates op `kind` at the insertion point (location b->loc). */
kiln_op *kiln_build(kiln_builder *b, kiln_op_kind kind, uint32_t num_operands,
                    kiln_value *const *operands, uint32_t num_results,
                    const kiln_type *const *result_types,
                    const kiln_attr *attrs);
/* arith.constant of `value` (its type is the result type). */
kiln_value *kiln_build_constant(kiln_builder *b, const kiln_attr *value);

/* Walks: visit ops nested under root (root included). The callback returns
 * KILN_WALK_ADVANCE, SKIP (pre-order: don't enter regions) or INTERRUPT.
 * Post-order walks tolerate erasing the visited op. */
typedef enum { KILN_WALK_ADVANCE, KILN_WALK_SKIP, KILN_WALK_INTERRUPT }
    kiln_walk_result;
typedef kiln_walk_result (*kiln_walk_fn)(kiln_op *op, void *user);
bool kiln_walk_pre(kiln_op *root, kiln_walk_fn fn, void *user);  /* false if interrupted */
bool kiln_walk_post(kiln_op *root, kiln_walk_fn fn, void *user);
/* A growable array of ops, for passes that list ops to rewrite after a
 * walk (which cannot rewrite as it goes). Zero-initialize; free(ops). */
typedef struct kiln_op_list {
  kiln_op **ops;
  size_t n, cap;
} kiln_op_list;
/* Appends op; false when memory runs out (the list is left as it was). */
bool kiln_op_list_push(kiln_op_list *l, kiln_op *op);
/* The ops under root (root included) that keep accepts, in the order a
 * pre-order (post = false) or post-order walk visits them; *out is a
 * malloc'ed array of *n ops the caller frees (NULL when none). False when
 * memory ran out (*out NULL then). */
typedef bool (*kiln_op_pred)(const kiln_op *op);
bool kiln_collect_ops(kiln_op *root, bool post, kiln_op_pred keep, kiln_op ***out, size_t *n);

/* Symbols: the op in symbol table `table` with sym_name `name`. */
kiln_op *kiln_symbol_lookup(kiln_op *table, const char *name);
const char *kiln_symbol_name(const kiln_op *op); /* NULL if none */

/* ---- Structured (linalg) ops ---- */
/* Operands are inputs then outputs (inits). */
uint32_t kiln_linalg_num_inputs(const kiln_op *op);
uint32_t kiln_linalg_num_outputs(const kiln_op *op);
/* The iteration domain of a structured op: one indexing map per operand
 * (inputs then outputs; maps[] needs num_operands entries) and, when
 * `reduction` is not NULL, whether each loop is a reduction (up to
 * KILN_MAX_LOOPS). Named ops (matmul, conv, pooling, transpose, ...) report
 * their implied maps. Returns the loop count, or -1 if op is not a
 * structured op or its attributes are malformed. */
#define KILN_MAX_LOOPS 16
int kiln_linalg_iteration(const kiln_op *op, const kiln_affine_map **maps,
                          bool *reduction);
/* The scalar body a named structured op implies (the region mlir-opt
 * gives it; one row each in dialects/linalg_bodies.def): NONE for an op
 * without one (generic, reduce and map carry their own; softmax). */
typedef enum kiln_linalg_body {
  KILN_LINALG_BODY_NONE,
  KILN_LINALG_BODY_COPY,   /* in0 */
  KILN_LINALG_BODY_MULADD, /* out + in0 * in1 */
  KILN_LINALG_BODY_MAX,    /* max(out, in0) */
  KILN_LINALG_BODY_SUM,    /* out + in0 */
} kiln_linalg_body;
kiln_linalg_body kiln_linalg_body_of(kiln_op_kind kind);
/* Builds at b the body of a named op of kind `kind` on values: in[0 ..
 * nin-1] its inputs' elements, in[nin] the output's current value (read
 * by all but COPY), each converted to t (the output's element type, or a
 * vector of it) where its type differs. Returns the value the body
 * yields; NULL when kind has no body or nin does not fit it. */
kiln_value *kiln_linalg_named_body(kiln_builder *b, kiln_op_kind kind, const kiln_type *t, kiln_value *const *in,
                                   uint32_t nin);

/* ---- Module: a builtin.module op with one block ---- */
kiln_op *kiln_module_create(kiln_context *ctx, kiln_loc loc);
kiln_block *kiln_module_body(kiln_op *module);
/* The walk module passes make over functions: fn on each top-level
 * func.func of module that has a body, in order, with its entry block;
 * the first error fn returns ends the walk and is returned. The functions
 * are listed before the first call, so fn may erase the one it is given
 * or add others (which it does not visit). */
typedef kiln_error *(*kiln_func_fn)(kiln_context *ctx, kiln_op *func, kiln_block *body, void *user);
kiln_error *kiln_each_func(kiln_op *module, kiln_func_fn fn, void *user);

/* ---- Text ---- */
/* Parses MLIR text. On error, diagnostics were emitted and NULL returned.
 * A top level without `module` is wrapped in one. */
kiln_op *kiln_parse_source(kiln_context *ctx, const char *name,
                           const char *text, size_t len);
/* Parses text[begin, end) with line/column numbers counted from the start
 * of text (for mlir-opt style --split-input-file chunks). */
kiln_op *kiln_parse_source_range(kiln_context *ctx, const char *name,
                                 const char *text, size_t len, size_t begin,
                                 size_t end);
typedef enum {
  KILN_PRINT_GENERIC = 1u << 0,  /* every op in "generic" form */
  KILN_PRINT_LOCATIONS = 1u << 1, /* ops' source nodes as loc(fused[...]) */
} kiln_print_flags;
/* Prints op as mlir-opt-19 does (aliases first for a module). */
void kiln_print_op(FILE *out, const kiln_op *op, unsigned flags);
/* Same, into a malloc'ed string the caller frees. */
char *kiln_print_op_to_string(const kiln_op *op, unsigned flags);
char *kiln_type_to_string(const kiln_type *t);  /* malloc'ed */
char *kiln_attr_to_string(const kiln_attr *a);  /* malloc'ed */

/* ---- Verifier ---- */
/* Checks op and everything nested: table arity, per-op verifiers, types,
 * dominance, terminators, symbol uniqueness. Emits located diagnostics and
 * returns false on the first failing op tree. */
bool kiln_verify(kiln_op *op);
/* kiln_verify as a pass's check of its input: NULL when op verifies, else
 * "PASS: the input module does not verify: " and the first diagnostic the
 * verifier emitted (file:line:col: message). */
kiln_error *kiln_verify_input(kiln_op *op, const char *pass);
/* Emits "error: 'name' op message" at op's location; returns false. */
bool kiln_op_emit_error(const kiln_op *op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The error a pass returns about op: "file:line:col: 'name' op message"
 * (the location left out when unknown), the one form every stage uses.
 * Also emits it as an error diagnostic of op's context (with the source
 * line and caret), so the context's diagnostics hold every failure. */
kiln_error *kiln_op_error(const kiln_op *op, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
kiln_error *kiln_op_verror(const kiln_op *op, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* For passes whose helpers return bool: records kiln_op_error(op, ...) in
 * *first unless it already holds one (the first cause is the one to
 * report, and the only one emitted) and returns false, so a helper can `return kiln_op_fail(...)`
 * and the pass return *first. */
bool kiln_op_fail(kiln_error **first, const kiln_op *op, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- Reduction combiners ---- */
/* An arith op that folds a reduction as out = op(out, x) (the combiner
 * column of dialects/arith.def): the #vector.kind its vector.reduction
 * uses and the identity partial results start from. */
typedef struct kiln_combiner {
  kiln_op_kind op;
  const char *vector_kind; /* "add", "maxnumf", ... */
  double float_identity;   /* for float operands */
  int64_t int_identity;    /* for integer operands */
} kiln_combiner;
/* The combiner row of op, or NULL when op does not fold reductions. */
const kiln_combiner *kiln_combiner_of(kiln_op_kind op);

/* ---- Pointer map ---- */
/* Pointer -> pointer map (open addressing, malloc'ed; keys non-NULL;
 * zero-initialize to start). The one map of the compiler's passes: ops,
 * values and blocks to whatever a pass keeps for them. */
typedef struct kiln_ptr_map {
  const void **keys;
  void **vals;
  size_t cap, count;
} kiln_ptr_map;
/* The value stored for key, or NULL when absent. */
void *kiln_ptr_map_get(const kiln_ptr_map *m, const void *key);
/* Whether key has a value (which may be NULL). */
bool kiln_ptr_map_has(const kiln_ptr_map *m, const void *key);
/* Stores val for key, replacing; false when out of memory (m unchanged). */
bool kiln_ptr_map_put(kiln_ptr_map *m, const void *key, void *val);
void kiln_ptr_map_free(kiln_ptr_map *m);

/* ---- Pass manager ---- */
/* A pass runs on a module. It reports failure with an error (NULL =
 * success); diagnostics may also be emitted on the context.
 *
 * Its anchor says which module: KILN_PASS_MODULE passes get the top-level
 * module; KILN_PASS_KERNELS passes get each kernel module, that is the
 * inner builtin.module of every hal.executable.variant (of the target kind
 * the pipeline names: "cuda(a,b)" runs a and b on the variants whose
 * target is "cuda" or "cuda:..."), or, when the top-level module holds no
 * hal.executable, the top-level module itself (a codegen-level module of
 * kernels; with a target kind named, only when its kiln.target attribute
 * is of that kind). A kernel pass finds its variant, when there is one,
 * as kiln_op_parent_op(module). */
typedef kiln_error *(*kiln_pass_fn)(kiln_op *module, void *user);
typedef enum kiln_pass_anchor { KILN_PASS_MODULE = 0, KILN_PASS_KERNELS } kiln_pass_anchor;
typedef struct kiln_pass_info {
  const char *name;        /* command-line name, e.g. "canonicalize" */
  const char *description;
  kiln_pass_fn run;
  void *user;
  kiln_pass_anchor anchor;
} kiln_pass_info;
/* Global registries (tools register at startup). Re-registering a name
 * replaces it. Pipelines are pass lists in kiln_pm_add_pipeline's syntax. */
void kiln_pass_register(const kiln_pass_info *info);
void kiln_pipeline_register(const char *name, const char *description,
                            const char *pipeline);
const kiln_pass_info *kiln_pass_lookup(const char *name);
/* Visits every registered pass, then every pipeline (run == NULL). */
void kiln_pass_foreach(void (*fn)(const kiln_pass_info *, void *), void *user);

typedef struct kiln_pass_manager kiln_pass_manager;
kiln_pass_manager *kiln_pm_create(kiln_context *ctx);
void kiln_pm_destroy(kiln_pass_manager *pm);
/* Parses "a,b,c" or MLIR-style "builtin.module(func.func(a),b)". The
 * anchors builtin.module, func.func, hal.executable and
 * hal.executable.variant are transparent; any other anchor names a target
 * kind for the kernel passes inside it ("llvm-cpu(a,b)"). Unknown names,
 * module passes inside a target and nested targets are errors. */
kiln_error *kiln_pm_add_pipeline(kiln_pass_manager *pm, const char *text);
kiln_error *kiln_pm_add_pass(kiln_pass_manager *pm, const char *name);
/* Adds kernel pass NAME restricted to the variants of target kind TARGET
 * (a module pass is an error). */
kiln_error *kiln_pm_add_target_pass(kiln_pass_manager *pm, const char *target,
                                    const char *name);
void kiln_pm_print_after_all(kiln_pass_manager *pm, FILE *out);
void kiln_pm_print_after(kiln_pass_manager *pm, const char *pass, FILE *out);
void kiln_pm_enable_timing(kiln_pass_manager *pm, FILE *out);
/* Runs every pass in order, each kernel pass over all its kernel modules
 * before the next pass; verifies the whole module after each (a pass that
 * leaves invalid IR fails the run naming the pass). A kernel pass that
 * found no kernel module is neither printed nor timed. */
kiln_error *kiln_pm_run(kiln_pass_manager *pm, kiln_op *module);
void kiln_pm_set_verify_each(kiln_pass_manager *pm, bool on);

#ifdef __cplusplus
}
#endif
#endif /* KILN_IR_H */
