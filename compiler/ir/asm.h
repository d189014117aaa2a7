/* Shared parse/print combinators for ops' custom syntax (dialects/<dialect>.c).
 *
 * Parse hooks fill a kiln_op_state (operands, result types, attributes,
 * regions) from the tokens after the op name; the core parser then creates
 * the op and binds result names. Every kiln_p_* returns false after emitting
 * one located error; hooks just propagate false. Print hooks write what
 * follows "%res = name". */
#ifndef KILN_IR_ASM_H
#define KILN_IR_ASM_H

#include "ir.h"

typedef struct kiln_parser kiln_parser;
typedef struct kiln_printer kiln_printer;

typedef enum kiln_tok_kind {
  KILN_TOK_EOF, KILN_TOK_ERROR,
  KILN_TOK_BARE_ID,    /* foo, arith.addf, x8xf32 */
  KILN_TOK_PERCENT_ID, /* %0, %arg1, %x#2 (the #2 is lexed separately) */
  KILN_TOK_CARET_ID,   /* ^bb0 */
  KILN_TOK_HASH_ID,    /* #map, #linalg.iterator_type */
  KILN_TOK_BANG_ID,    /* !hal.buffer */
  KILN_TOK_AT_ID,      /* @name, @"quoted" */
  KILN_TOK_INTEGER, KILN_TOK_FLOAT, KILN_TOK_STRING,
  KILN_TOK_LPAREN, KILN_TOK_RPAREN, KILN_TOK_LBRACE, KILN_TOK_RBRACE,
  KILN_TOK_LSQUARE, KILN_TOK_RSQUARE, KILN_TOK_LESS, KILN_TOK_GREATER,
  KILN_TOK_COMMA, KILN_TOK_COLON, KILN_TOK_EQUAL, KILN_TOK_ARROW,
  KILN_TOK_QUESTION, KILN_TOK_STAR, KILN_TOK_PLUS, KILN_TOK_MINUS,
  KILN_TOK_DCOLON, KILN_TOK_HASH /* lone '#' after %x */,
  KILN_TOK_FILE_META_BEGIN, KILN_TOK_FILE_META_END, /* {-# #-} */
} kiln_tok_kind;

/* An SSA use before its type is known: %name or %name#idx. */
typedef struct kiln_p_ssa_use {
  const char *name; /* interned, without '%' */
  uint32_t idx;     /* #idx, 0 by default */
  kiln_loc loc;
} kiln_p_ssa_use;

/* Small arena-backed vectors for hooks. */
typedef struct kiln_p_ssa_uses {
  kiln_p_ssa_use *v;
  uint32_t n, cap;
} kiln_p_ssa_uses;
typedef struct kiln_p_types {
  const kiln_type **v;
  uint32_t n, cap;
} kiln_p_types;

/* An entry-block argument a custom parser declares (e.g. func args). */
typedef struct kiln_p_arg {
  kiln_p_ssa_use name; /* name.name NULL: unnamed */
  const kiln_type *type;
  const kiln_attr *attrs; /* func arg attributes, or NULL */
} kiln_p_arg;

typedef struct kiln_op_state {
  kiln_context *ctx;
  kiln_loc loc;
  const kiln_op_info *info;
  const char *name;
  kiln_value **operands;
  uint32_t num_operands, cap_operands;
  const kiln_type **types; /* result types */
  uint32_t num_types, cap_types;
  kiln_named_attr *attrs;
  uint32_t num_attrs, cap_attrs;
  kiln_region **regions;
  uint32_t num_regions, cap_regions;
  kiln_block **succs;
  uint32_t num_succs, cap_succs;
} kiln_op_state;

void kiln_st_add_operand(kiln_op_state *st, kiln_value *v);
void kiln_st_add_type(kiln_op_state *st, const kiln_type *t);
void kiln_st_set_attr(kiln_op_state *st, const char *name, const kiln_attr *a);
const kiln_attr *kiln_st_get_attr(const kiln_op_state *st, const char *name);

/* ---- parser ---- */
kiln_context *kiln_p_ctx(kiln_parser *p);
kiln_loc kiln_p_loc(kiln_parser *p); /* location of the current token */
bool kiln_p_error(kiln_parser *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool kiln_p_error_at(kiln_parser *p, kiln_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
bool kiln_p_is(kiln_parser *p, kiln_tok_kind k);
bool kiln_p_accept(kiln_parser *p, kiln_tok_kind k);   /* consume if k */
bool kiln_p_expect(kiln_parser *p, kiln_tok_kind k);   /* error if not k */
bool kiln_p_is_keyword(kiln_parser *p, const char *kw);
bool kiln_p_accept_keyword(kiln_parser *p, const char *kw);
bool kiln_p_expect_keyword(kiln_parser *p, const char *kw);
/* Any bare identifier (or string when allow_string); interned. */
bool kiln_p_keyword(kiln_parser *p, const char **out);
bool kiln_p_int(kiln_parser *p, int64_t *out); /* optional leading '-' */
bool kiln_p_symbol_name(kiln_parser *p, const char **out); /* @name */

bool kiln_p_operand(kiln_parser *p, kiln_p_ssa_use *out);
bool kiln_p_is_operand(kiln_parser *p);
/* Comma-separated operands (possibly none when the next token isn't %). */
bool kiln_p_operand_list(kiln_parser *p, kiln_p_ssa_uses *out);
/* '(' operand-list ')' */
bool kiln_p_paren_operand_list(kiln_parser *p, kiln_p_ssa_uses *out);
void kiln_p_operands_push(kiln_parser *p, kiln_p_ssa_uses *v, kiln_p_ssa_use o);
/* Looks the value up (or records a forward reference) and checks its type. */
bool kiln_p_resolve(kiln_parser *p, const kiln_p_ssa_use *o,
                    const kiln_type *t, kiln_value **out);
bool kiln_p_resolve_add(kiln_parser *p, kiln_op_state *st,
                        const kiln_p_ssa_use *o, const kiln_type *t);
/* Resolves ops[i] with types[i] (counts must match; error names both). */
bool kiln_p_resolve_list(kiln_parser *p, kiln_op_state *st,
                         const kiln_p_ssa_uses *ops, const kiln_p_types *types,
                         kiln_loc loc);

bool kiln_p_type(kiln_parser *p, const kiln_type **out);
void kiln_p_types_push(kiln_parser *p, kiln_p_types *v, const kiln_type *t);
bool kiln_p_type_list(kiln_parser *p, kiln_p_types *out); /* t, t, ... (>=1) */
/* "(t, t) " or "t": the result list after "->" */
bool kiln_p_result_types(kiln_parser *p, kiln_p_types *out);
/* A function type "(ins) -> results". */
bool kiln_p_function_type(kiln_parser *p, const kiln_type **out);

/* Attribute; type_hint types bare numbers (`1` with hint i32). */
bool kiln_p_attr(kiln_parser *p, const kiln_type *type_hint,
                 const kiln_attr **out);
/* Optional "{name = attr, ...}" merged into st->attrs. */
bool kiln_p_opt_attr_dict(kiln_parser *p, kiln_op_state *st);
bool kiln_p_attr_dict_into(kiln_parser *p, const kiln_attr **out); /* required */
/* "[a, b, ...]" of integers (or '?' stored as KILN_DYNAMIC when allowed). */
bool kiln_p_int_array(kiln_parser *p, int64_t **out, uint32_t *n);
/* Mixed static/dynamic list "[0, %i, 4]": values into dyn, statics with
 * KILN_DYNAMIC where a value stood. */
bool kiln_p_mixed_list(kiln_parser *p, kiln_p_ssa_uses *dyn, int64_t **stat,
                       uint32_t *n);

/* Parses "{ ... }" as a new region appended to st->regions. Entry args (if
 * any) are defined in the region scope; when nargs == 0 the region may
 * declare its own entry block "^bb0(%a: t):". */
bool kiln_p_region(kiln_parser *p, kiln_op_state *st, const kiln_p_arg *args,
                   uint32_t nargs);
/* A successor "^bb3" of the region being parsed (may be defined later):
 * labels are scoped to the innermost region, as in MLIR. */
bool kiln_p_successor(kiln_parser *p, kiln_block **out);
void kiln_st_add_successor(kiln_op_state *st, kiln_block *b);
/* A branch destination "^bb3" or "^bb3(%a, %b : t, u)" (asm.c): the block
 * becomes st's next successor, its resolved arguments st's next operands;
 * *num_args says how many. */
bool kiln_p_successor_and_args(kiln_parser *p, kiln_op_state *st, uint32_t *num_args);
/* Adds an empty region to st. */
kiln_region *kiln_st_add_region(kiln_op_state *st);
/* Appends a `kind` terminator (no operands) to blocks lacking one. */
void kiln_p_ensure_terminator(kiln_parser *p, kiln_region *r, kiln_op_kind kind,
                              kiln_loc loc);
/* Skips an optional "loc(...)" (source locations are not kept). */
bool kiln_p_opt_loc(kiln_parser *p);
/* "fastmath<...>" if present -> attr "fastmath" (#arith.fastmath<...>). */
bool kiln_p_opt_fastmath(kiln_parser *p, kiln_op_state *st);

/* ---- printer ---- */
kiln_context *kiln_pr_ctx(kiln_printer *pr);
void kiln_pr_puts(kiln_printer *pr, const char *s);
void kiln_pr_printf(kiln_printer *pr, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void kiln_pr_value(kiln_printer *pr, const kiln_value *v);
/* Operands [from, from+count) comma-separated. */
void kiln_pr_operands(kiln_printer *pr, const kiln_op *op, uint32_t from,
                      uint32_t count);
void kiln_pr_type(kiln_printer *pr, const kiln_type *t);
void kiln_pr_operand_types(kiln_printer *pr, const kiln_op *op, uint32_t from,
                           uint32_t count);
void kiln_pr_result_types(kiln_printer *pr, const kiln_op *op); /* t or (t, t) */
void kiln_pr_attr(kiln_printer *pr, const kiln_attr *a);
/* Attribute without its ": type" suffix (integers, floats). */
void kiln_pr_attr_bare(kiln_printer *pr, const kiln_attr *a);
/* " {a = 1, b}" for the op's attributes except `elide` (NULL-terminated);
 * prints nothing when none remain. with_keyword: " attributes {...}". */
void kiln_pr_attr_dict(kiln_printer *pr, const kiln_op *op,
                       const char *const *elide, bool with_keyword);
void kiln_pr_dict_entries(kiln_printer *pr, const kiln_attr *dict,
                          const char *const *elide);
/* Prints "{\n ... }" for region r. print_entry_args: show "^bb0(...):"
 * when the entry block has args. print_empty_term: print terminators that
 * have no operands (scf.yield is elided otherwise). */
void kiln_pr_region(kiln_printer *pr, const kiln_region *r,
                    bool print_entry_args, bool print_empty_term);
void kiln_pr_newline(kiln_printer *pr); /* newline + current indentation */
void kiln_pr_indent(kiln_printer *pr, int delta);
/* "[0, %i, 4]" from static values (KILN_DYNAMIC = next dynamic operand). */
void kiln_pr_mixed_list(kiln_printer *pr, const kiln_op *op,
                        const kiln_attr *stat, uint32_t *next_dyn);
/* " fastmath<fast>" when the op has a non-default fastmath attr. */
void kiln_pr_fastmath(kiln_printer *pr, const kiln_op *op);
/* Block argument declared in the printer: "%in: f32" */
void kiln_pr_block_arg(kiln_printer *pr, const kiln_value *v);
/* "^bbN": a block's label (N = its position in its region). */
void kiln_pr_successor(kiln_printer *pr, const kiln_block *b);
/* What kiln_p_successor_and_args reads: successor #succ of op with the
 * op's operands [first, first+count) as its arguments (asm.c). */
void kiln_pr_successor_and_args(kiln_printer *pr, const kiln_op *op, uint32_t succ,
                                uint32_t first, uint32_t count);
/* Name of an op for printing in the current dialect context ("return" in
 * a func.func body, otherwise the full name). */
const char *kiln_pr_op_name(kiln_printer *pr, const kiln_op *op);

/* ---- shared combinators (asm.c) ---- */
/* A type parser: kiln_p_type or one that also checks the kind. */
typedef bool (*kiln_p_type_fn)(kiln_parser *p, const kiln_type **out);
bool kiln_p_ranked_tensor_type(kiln_parser *p, const kiln_type **out);
bool kiln_p_memref_type(kiln_parser *p, const kiln_type **out); /* ranked */
bool kiln_p_vector_type(kiln_parser *p, const kiln_type **out);
/* Resolves every operand with type t (index for _indices). */
bool kiln_p_resolve_all(kiln_parser *p, kiln_op_state *st,
                        const kiln_p_ssa_uses *ops, const kiln_type *t);
bool kiln_p_resolve_indices(kiln_parser *p, kiln_op_state *st,
                            const kiln_p_ssa_uses *ops);
/* "[%i, %j]" (possibly empty). */
bool kiln_p_square_operand_list(kiln_parser *p, kiln_p_ssa_uses *out);
/* Optional "{attrs}" then ":" — what precedes an op's trailing types. */
bool kiln_p_attrs_colon(kiln_parser *p, kiln_op_state *st);
/* operandSegmentSizes = sizes (n counts), as MLIR keeps it. */
void kiln_st_set_segments(kiln_op_state *st, uint32_t n, const int64_t *sizes);
/* A mixed list "[0, %i, 4]" stored as dense i64 attribute `attr` with
 * KILN_DYNAMIC holes; the values are appended to dyn. */
bool kiln_p_static_list(kiln_parser *p, kiln_op_state *st, const char *attr,
                        kiln_p_ssa_uses *dyn);
/* Offsets, sizes and strides "[..] [..] [..]" (keywords: "offset: [..],
 * sizes: [..], strides: [..]") into static_offsets/sizes/strides;
 * counts[k] = how many values list k appended to dyn. */
bool kiln_p_slice(kiln_parser *p, kiln_op_state *st, bool keywords,
                  kiln_p_ssa_uses *dyn, int64_t counts[3]);
/* "[[0, 1], [2]]" into the "reassociation" attribute. */
bool kiln_p_reassociation(kiln_parser *p, kiln_op_state *st);
/* Whole-op forms after the name, shared by several dialects:
 *   return:  "{attrs} %a, %b : t, u" or "{attrs}" (func.return, scf.yield;
 *            attributes first, as MLIR's attr-dict)
 *   typed operands: "%a, %b {attrs} : t, u" or "{attrs}" (linalg.yield,
 *            vm.ret, vm.clear.ref)
 *   cast:    "%a {attrs} : T to U"
 *   element read: "%base[%i, %j] {attrs} : T", result T's element type
 *   slice:   "%src[offs] [sizes] [strides] {attrs} : T to U" (segments
 *            [1, offsets, sizes, strides])
 *   reshape: "%src [[0, 1], [2]] [output_shape [..]] {attrs} : T into U"
 * `type` parses T and U (and may check their kind). */
bool kiln_p_return_op(kiln_parser *p, kiln_op_state *st);
bool kiln_p_typed_operands_op(kiln_parser *p, kiln_op_state *st);
bool kiln_p_cast_op(kiln_parser *p, kiln_op_state *st);
bool kiln_p_element_read_op(kiln_parser *p, kiln_op_state *st, kiln_p_type_fn type);
bool kiln_p_slice_op(kiln_parser *p, kiln_op_state *st, kiln_p_type_fn type);
bool kiln_p_reshape_op(kiln_parser *p, kiln_op_state *st, bool expand,
                       kiln_p_type_fn type);

/* "[%i, %j]": operands [from, from+count). */
void kiln_pr_square_operands(kiln_printer *pr, const kiln_op *op, uint32_t from,
                             uint32_t count);
/* " {attrs} : A" then, when sep is not NULL, sep and B (" to ", ", "). */
void kiln_pr_attrs_types(kiln_printer *pr, const kiln_op *op,
                         const char *const *elide, const kiln_type *a,
                         const char *sep, const kiln_type *b);
/* The mixed list of static attribute `attr` (see kiln_pr_mixed_list). */
void kiln_pr_static_list(kiln_printer *pr, const kiln_op *op, const char *attr,
                         uint32_t *next_dyn);
/* The triple kiln_p_slice reads; dynamic values from operand first_dyn. */
void kiln_pr_slice(kiln_printer *pr, const kiln_op *op, uint32_t first_dyn,
                   bool keywords);
void kiln_pr_reassociation(kiln_printer *pr, const kiln_op *op);
/* Printers of the whole-op forms above (elide: attributes the syntax
 * already shows). */
void kiln_pr_return_op(kiln_printer *pr, const kiln_op *op);
void kiln_pr_typed_operands_op(kiln_printer *pr, const kiln_op *op);
void kiln_pr_cast_op(kiln_printer *pr, const kiln_op *op);
void kiln_pr_element_read_op(kiln_printer *pr, const kiln_op *op);
void kiln_pr_slice_op(kiln_printer *pr, const kiln_op *op, const char *const *elide);
void kiln_pr_reshape_op(kiln_printer *pr, const kiln_op *op, bool expand,
                        const char *const *elide);

#endif
