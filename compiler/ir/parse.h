/* Parser internals shared by lexer.c and parser.c (prefix ir_): the token,
 * the parser state with its SSA name scopes, and the lexer entry points. */
#ifndef KILN_IR_PARSE_H
#define KILN_IR_PARSE_H

#include "asm.h"
#include "ir_internal.h"

typedef struct ir_token {
  kiln_tok_kind kind;
  const char *start;
  size_t len;
} ir_token;

/* An SSA name binding; results of one op share a binding (%0:2). */
typedef struct ir_binding {
  const char *name;
  kiln_value **vals;
  uint32_t count;
  uint32_t iso;               /* isolation level it was defined at */
  bool forward;               /* placeholder awaiting its definition */
  kiln_loc loc;               /* first use (forward) or definition */
  struct ir_binding *shadowed;/* outer binding hidden by this one */
} ir_binding;

typedef struct ir_block_ref {
  const char *name;
  kiln_block *block;
  bool defined;
  kiln_loc loc;
} ir_block_ref;

struct kiln_parser {
  kiln_context *ctx;
  const char *file;           /* interned */
  const char *buf, *end, *cur;
  uint32_t *line_starts;      /* offsets of line starts (malloc'ed) */
  size_t num_lines;
  ir_token tok;
  bool failed;
  int depth;                  /* nesting guard */
  uint32_t iso;               /* current isolation level */
  kiln_ptr_map names;               /* interned name -> ir_binding* (innermost) */
  ir_binding **defined;       /* bindings in definition order (for popping) */
  size_t num_defined, cap_defined;
  ir_binding **forwards;      /* forward placeholders */
  size_t num_forwards, cap_forwards;
  kiln_ptr_map attr_aliases;        /* interned "#name" -> attr */
  kiln_ptr_map type_aliases;        /* interned "!name" -> type */
  const char *dialect_stack[256];
  int dialect_depth;
  ir_block_ref *blocks;       /* block labels of the regions being parsed */
  size_t num_blocks, cap_blocks;
  size_t block_mark;          /* first label of the innermost region */
  bool in_region;
};

#define IR_MAX_DEPTH 200

void ir_lex(kiln_parser *p);          /* advances p->tok */
kiln_loc ir_loc_of(kiln_parser *p, const char *ptr);

#endif
