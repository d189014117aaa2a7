/* Parser for MLIR text (what mlir-opt-19 prints, plus the generic op form
 * for any op): types, attributes, affine maps, operations, regions, blocks,
 * SSA scoping and the shared combinators of asm.h.
 * Takes: a byte buffer (need not be NUL-terminated). Guarantees: bad input
 * yields exactly one located error and NULL, never a crash; nesting deeper
 * than IR_MAX_DEPTH is an error, not a stack overflow. */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* ---- errors and tokens ---- */
kiln_context *kiln_p_ctx(kiln_parser *p) { return p->ctx; }
kiln_loc kiln_p_loc(kiln_parser *p) { return ir_loc_of(p, p->tok.start); }

__attribute__((format(printf, 3, 0))) static bool verr_at(kiln_parser *p, kiln_loc loc,
                                                       const char *fmt, va_list ap) {
  if (p->failed) return false;
  p->failed = true;
  kiln_emit_verror(p->ctx, loc, "error", fmt, ap);
  return false;
}

bool kiln_p_error_at(kiln_parser *p, kiln_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verr_at(p, loc, fmt, ap);
  va_end(ap);
  return false;
}

bool kiln_p_error(kiln_parser *p, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (p->tok.kind == KILN_TOK_ERROR) { /* the lexer's complaint wins */
    va_end(ap);
    kiln_loc loc = ir_loc_of(p, p->tok.start);
    bool unterminated = p->tok.len == 0;
    unsigned char c = (unsigned char)p->tok.start[0];
    p->tok.kind = KILN_TOK_EOF; /* report once */
    if (unterminated) return kiln_p_error_at(p, loc, "unterminated string literal");
    if (c >= 32 && c < 127) return kiln_p_error_at(p, loc, "unexpected character '%c'", c);
    return kiln_p_error_at(p, loc, "unexpected byte 0x%02x", c);
  }
  verr_at(p, kiln_p_loc(p), fmt, ap);
  va_end(ap);
  return false;
}

static const char *tok_spelling(kiln_tok_kind k) {
  switch (k) {
  case KILN_TOK_LPAREN: return "'('";
  case KILN_TOK_RPAREN: return "')'";
  case KILN_TOK_LBRACE: return "'{'";
  case KILN_TOK_RBRACE: return "'}'";
  case KILN_TOK_LSQUARE: return "'['";
  case KILN_TOK_RSQUARE: return "']'";
  case KILN_TOK_LESS: return "'<'";
  case KILN_TOK_GREATER: return "'>'";
  case KILN_TOK_COMMA: return "','";
  case KILN_TOK_COLON: return "':'";
  case KILN_TOK_EQUAL: return "'='";
  case KILN_TOK_ARROW: return "'->'";
  case KILN_TOK_QUESTION: return "'?'";
  case KILN_TOK_STRING: return "string";
  case KILN_TOK_INTEGER: return "integer";
  case KILN_TOK_PERCENT_ID: return "SSA value";
  case KILN_TOK_CARET_ID: return "block name";
  case KILN_TOK_AT_ID: return "symbol name";
  case KILN_TOK_BARE_ID: return "identifier";
  case KILN_TOK_EOF: return "end of file";
  default: return "token";
  }
}

static void next(kiln_parser *p) { ir_lex(p); }

bool kiln_p_is(kiln_parser *p, kiln_tok_kind k) { return p->tok.kind == k; }
bool kiln_p_accept(kiln_parser *p, kiln_tok_kind k) {
  if (p->tok.kind != k) return false;
  next(p);
  return true;
}
bool kiln_p_expect(kiln_parser *p, kiln_tok_kind k) {
  if (kiln_p_accept(p, k)) return true;
  return kiln_p_error(p, "expected %s", tok_spelling(k));
}

static bool tok_is_word(kiln_parser *p, const char *kw) {
  size_t n = strlen(kw);
  return p->tok.kind == KILN_TOK_BARE_ID && p->tok.len == n &&
         memcmp(p->tok.start, kw, n) == 0;
}
bool kiln_p_is_keyword(kiln_parser *p, const char *kw) { return tok_is_word(p, kw); }
bool kiln_p_accept_keyword(kiln_parser *p, const char *kw) {
  if (!tok_is_word(p, kw)) return false;
  next(p);
  return true;
}
bool kiln_p_expect_keyword(kiln_parser *p, const char *kw) {
  if (kiln_p_accept_keyword(p, kw)) return true;
  return kiln_p_error(p, "expected '%s'", kw);
}
bool kiln_p_keyword(kiln_parser *p, const char **out) {
  if (p->tok.kind != KILN_TOK_BARE_ID) return kiln_p_error(p, "expected keyword");
  *out = kiln_intern(p->ctx, p->tok.start, p->tok.len);
  next(p);
  return true;
}

static bool enter(kiln_parser *p) {
  if (++p->depth > IR_MAX_DEPTH) {
    p->depth--;
    return kiln_p_error(p, "nesting too deep (more than %d levels)",
                        IR_MAX_DEPTH);
  }
  return true;
}
static void leave(kiln_parser *p) { p->depth--; }

/* ---- numbers ---- */
/* Parses the current INTEGER token as uint64 (decimal or 0x hex). */
static bool tok_u64(kiln_parser *p, uint64_t *out) {
  const char *s = p->tok.start, *e = s + p->tok.len;
  uint64_t v = 0;
  if (p->tok.len > 2 && s[1] == 'x') {
    for (s += 2; s < e; s++) {
      int d = isdigit((unsigned char)*s) ? *s - '0'
                                         : (tolower((unsigned char)*s) - 'a' + 10);
      if (v >> 60) return kiln_p_error(p, "integer constant out of range");
      v = v * 16 + (uint64_t)d;
    }
  } else {
    for (; s < e; s++) {
      uint64_t d = (uint64_t)(*s - '0');
      if (v > (UINT64_MAX - d) / 10)
        return kiln_p_error(p, "integer constant out of range");
      v = v * 10 + d;
    }
  }
  *out = v;
  return true;
}

bool kiln_p_int(kiln_parser *p, int64_t *out) {
  bool neg = kiln_p_accept(p, KILN_TOK_MINUS);
  if (p->tok.kind != KILN_TOK_INTEGER) return kiln_p_error(p, "expected integer");
  uint64_t u;
  if (!tok_u64(p, &u)) return false;
  if (u > (uint64_t)INT64_MAX + (neg ? 1 : 0))
    return kiln_p_error(p, "integer constant out of range");
  *out = neg ? (int64_t)(0 - u) : (int64_t)u;
  next(p);
  return true;
}

static double tok_double(kiln_parser *p) {
  char tmp[128];
  size_t n = p->tok.len < sizeof tmp - 1 ? p->tok.len : sizeof tmp - 1;
  memcpy(tmp, p->tok.start, n);
  tmp[n] = 0;
  return strtod(tmp, NULL);
}

/* Decodes the current STRING token (escapes \\ \" \n \t \XX) into the arena. */
static const char *tok_string(kiln_parser *p, size_t *len) {
  const char *s = p->tok.start + 1, *e = p->tok.start + p->tok.len - 1;
  char *out = kiln_alloc(p->ctx, (size_t)(e - s) + 1);
  size_t n = 0;
  while (s < e) {
    if (*s == '\\' && s + 1 < e) {
      s++;
      if (*s == 'n') out[n++] = '\n', s++;
      else if (*s == 't') out[n++] = '\t', s++;
      else if (*s == '\\' || *s == '"') out[n++] = *s++;
      else if (s + 1 < e && isxdigit((unsigned char)s[0]) &&
               isxdigit((unsigned char)s[1])) {
        char h[3] = {s[0], s[1], 0};
        out[n++] = (char)strtol(h, NULL, 16);
        s += 2;
      } else {
        out[n++] = *s++;
      }
    } else {
      out[n++] = *s++;
    }
  }
  out[n] = 0;
  *len = n;
  return out;
}

bool kiln_p_symbol_name(kiln_parser *p, const char **out) {
  if (p->tok.kind != KILN_TOK_AT_ID) return kiln_p_error(p, "expected symbol name");
  const char *s = p->tok.start + 1;
  size_t n = p->tok.len - 1;
  if (n >= 2 && s[0] == '"') s++, n -= 2;
  *out = kiln_intern(p->ctx, s, n);
  next(p);
  return true;
}

/* ---- vectors ---- */
void kiln_p_operands_push(kiln_parser *p, kiln_p_ssa_uses *v, kiln_p_ssa_use o) {
  v->v = ir_grow(p->ctx, v->v, sizeof o, &v->cap, v->n + 1);
  v->v[v->n++] = o;
}
void kiln_p_types_push(kiln_parser *p, kiln_p_types *v, const kiln_type *t) {
  v->v = ir_grow(p->ctx, v->v, sizeof t, &v->cap, v->n + 1);
  v->v[v->n++] = t;
}
void kiln_st_add_operand(kiln_op_state *st, kiln_value *v) {
  st->operands = ir_grow(st->ctx, st->operands, sizeof v, &st->cap_operands,
                         st->num_operands + 1);
  st->operands[st->num_operands++] = v;
}
void kiln_st_add_type(kiln_op_state *st, const kiln_type *t) {
  st->types = ir_grow(st->ctx, st->types, sizeof t, &st->cap_types,
                      st->num_types + 1);
  st->types[st->num_types++] = t;
}
void kiln_st_set_attr(kiln_op_state *st, const char *name, const kiln_attr *a) {
  name = kiln_intern_cstr(st->ctx, name);
  for (uint32_t i = 0; i < st->num_attrs; i++)
    if (st->attrs[i].name == name) {
      st->attrs[i].value = a;
      return;
    }
  st->attrs = ir_grow(st->ctx, st->attrs, sizeof *st->attrs, &st->cap_attrs,
                      st->num_attrs + 1);
  st->attrs[st->num_attrs].name = name;
  st->attrs[st->num_attrs].value = a;
  st->num_attrs++;
}
const kiln_attr *kiln_st_get_attr(const kiln_op_state *st, const char *name) {
  for (uint32_t i = 0; i < st->num_attrs; i++)
    if (strcmp(st->attrs[i].name, name) == 0) return st->attrs[i].value;
  return NULL;
}
kiln_region *kiln_st_add_region(kiln_op_state *st) {
  kiln_region *r = kiln_alloc(st->ctx, sizeof *r);
  st->regions = ir_grow(st->ctx, st->regions, sizeof r, &st->cap_regions,
                        st->num_regions + 1);
  st->regions[st->num_regions++] = r;
  return r;
}

/* ---- types ---- */
static bool parse_type(kiln_parser *p, const kiln_type **out);
static bool parse_attr(kiln_parser *p, const kiln_type *hint,
                       const kiln_attr **out);

/* Consumes an 'x' that starts the current bare identifier ("x8xf32"). */
static bool eat_dim_x(kiln_parser *p) {
  if (p->tok.kind == KILN_TOK_BARE_ID && p->tok.start[0] == 'x') {
    p->cur = p->tok.start + 1;
    next(p);
    return true;
  }
  return kiln_p_error(p, "expected 'x' in dimension list");
}

/* dims: (('?' | int) 'x')*  — stops at the element type. */
static bool parse_dims(kiln_parser *p, int64_t **shape, uint32_t *rank,
                       bool allow_dynamic) {
  int64_t *dims = NULL;
  uint32_t n = 0, cap = 0;
  for (;;) {
    int64_t d;
    if (p->tok.kind == KILN_TOK_QUESTION) {
      if (!allow_dynamic)
        return kiln_p_error(p, "dynamic dimensions are not allowed here");
      d = KILN_DYNAMIC;
      next(p);
    } else if (p->tok.kind == KILN_TOK_INTEGER) {
      if (p->tok.len > 1 && p->tok.start[1] == 'x') { /* "0x4xf32" */
        d = 0;
        p->cur = p->tok.start + 2; /* just after the 'x' */
        next(p);
        goto have_dim_with_x;
      }
      uint64_t u;
      if (!tok_u64(p, &u)) return false;
      if (u > (uint64_t)INT64_MAX / 2)
        return kiln_p_error(p, "dimension %llu is too large",
                            (unsigned long long)u);
      d = (int64_t)u;
      next(p);
    } else {
      break;
    }
    if (!eat_dim_x(p)) return false;
  have_dim_with_x:
    dims = ir_grow(p->ctx, dims, sizeof *dims, &cap, n + 1);
    dims[n++] = d;
    if (n > 64) return kiln_p_error(p, "rank exceeds the limit of 64");
  }
  *shape = dims;
  *rank = n;
  return true;
}

/* Captures raw text of a balanced <...> body (dialect types/attrs). */
static bool raw_angle_body(kiln_parser *p, const char **body, size_t *len) {
  const char *s = p->tok.start; /* at '<' */
  int depth = 0;
  const char *c = s;
  for (; c < p->end; c++) {
    if ((unsigned char)*c < 0x20 && *c != ' ' && *c != '\t' && *c != '\n' && *c != '\r')
      return kiln_p_error_at(p, ir_loc_of(p, c), "unexpected byte 0x%02x in dialect body",
                             (unsigned char)*c);
    if (*c == '<') depth++;
    else if (*c == '>' && !(c > s && c[-1] == '-')) {
      if (--depth == 0) break;
    } else if (*c == '"') {
      for (c++; c < p->end && *c != '"'; c++)
        if (*c == '\\') c++;
    }
  }
  if (c >= p->end) return kiln_p_error(p, "unbalanced '<' in dialect body");
  *body = s;
  *len = (size_t)(c + 1 - s);
  p->cur = c + 1;
  next(p);
  return true;
}

/* The current token is "!dialect.body" or "#dialect.body" (a dot after
 * the dialect name), possibly followed by a balanced "<...>": the dialect
 * (interned) and the body text after the dot, '<...>' included, in *body
 * (the caller frees it). */
static bool parse_dialect_body(kiln_parser *p, const char **dialect, ir_buf *body) {
  const char *s = p->tok.start + 1;
  size_t n = p->tok.len - 1;
  const char *dot = memchr(s, '.', n);
  *dialect = kiln_intern(p->ctx, s, (size_t)(dot - s));
  ir_buf_put(body, dot + 1, (size_t)(s + n - dot - 1));
  bool angle = p->cur < p->end && *p->cur == '<';
  next(p);
  if (angle) {
    const char *raw = NULL;
    size_t rl = 0;
    if (!raw_angle_body(p, &raw, &rl)) {
      ir_buf_free(body);
      return false;
    }
    ir_buf_put(body, raw, rl);
  }
  return true;
}

static bool parse_int_type_word(const char *s, size_t n, uint32_t *width,
                                kiln_signedness *sign) {
  size_t off;
  if (n > 1 && s[0] == 'i') off = 1, *sign = KILN_SIGNLESS;
  else if (n > 2 && s[0] == 's' && s[1] == 'i') off = 2, *sign = KILN_SIGNED;
  else if (n > 2 && s[0] == 'u' && s[1] == 'i') off = 2, *sign = KILN_UNSIGNED;
  else return false;
  uint64_t w = 0;
  for (size_t i = off; i < n; i++) {
    if (!isdigit((unsigned char)s[i])) return false;
    w = w * 10 + (uint64_t)(s[i] - '0');
    if (w > 16777215) {
      *width = 0xffffffffu;
      return true;
    }
  }
  *width = (uint32_t)w;
  return true;
}

static bool parse_shaped(kiln_parser *p, const char *kw, const kiln_type **out) {
  if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
  bool is_tensor = kw[0] == 't', is_memref = kw[0] == 'm';
  if ((is_tensor || is_memref) && p->tok.kind == KILN_TOK_STAR) {
    next(p);
    if (!eat_dim_x(p)) return false;
    const kiln_type *elem;
    if (!parse_type(p, &elem)) return false;
    const kiln_attr *ms = NULL;
    if (is_memref && kiln_p_accept(p, KILN_TOK_COMMA) && !parse_attr(p, NULL, &ms))
      return false;
    if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
    *out = is_tensor ? kiln_type_unranked_tensor(p->ctx, elem)
                     : kiln_type_unranked_memref(p->ctx, elem, ms);
    return true;
  }
  int64_t *shape = NULL;
  uint32_t rank = 0;
  if (!parse_dims(p, &shape, &rank, !(kw[0] == 'v'))) return false;
  kiln_loc eloc = kiln_p_loc(p);
  const kiln_type *elem;
  if (!parse_type(p, &elem)) return false;
  if (!(kiln_type_is_float(elem) || kiln_type_is_int_or_index(elem) ||
        elem->kind == KILN_TYPE_OPAQUE || elem->kind == KILN_TYPE_VECTOR ||
        (kw[0] != 'v' && elem->kind == KILN_TYPE_TENSOR && 0)))
    return kiln_p_error_at(p, eloc, "invalid %s element type", kw);
  if (kw[0] == 'v') {
    if (rank == 0) return kiln_p_error_at(p, eloc, "vector types must have at least one dimension");
    if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
    *out = kiln_type_vector(p->ctx, rank, shape, elem);
    return true;
  }
  const kiln_attr *a1 = NULL, *a2 = NULL;
  if (kiln_p_accept(p, KILN_TOK_COMMA)) {
    if (!parse_attr(p, NULL, &a1)) return false;
    if (is_memref && kiln_p_accept(p, KILN_TOK_COMMA) && !parse_attr(p, NULL, &a2))
      return false;
  }
  if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  if (is_tensor) {
    *out = kiln_type_tensor(p->ctx, rank, shape, elem, a1);
    return true;
  }
  /* memref<..., layout, memspace> or memref<..., memspace> */
  const kiln_attr *layout = NULL, *ms = NULL;
  if (a1 && (a1->kind == KILN_ATTR_AFFINE_MAP || a1->kind == KILN_ATTR_STRIDED)) {
    layout = a1;
    ms = a2;
  } else {
    if (a2) return kiln_p_error(p, "expected memref layout before memory space");
    ms = a1;
  }
  if (layout && layout->kind == KILN_ATTR_AFFINE_MAP && layout->map->num_dims != rank)
    return kiln_p_error_at(p, eloc, "memref layout mismatch between rank and affine map: %u != %u",
                           rank, layout->map->num_dims);
  if (layout && layout->kind == KILN_ATTR_STRIDED && layout->count != rank)
    return kiln_p_error_at(p, eloc, "expected the number of strides to match the rank");
  *out = kiln_type_memref(p->ctx, rank, shape, elem, layout, ms);
  return true;
}

bool kiln_p_type_list(kiln_parser *p, kiln_p_types *out) {
  do {
    const kiln_type *t;
    if (!parse_type(p, &t)) return false;
    kiln_p_types_push(p, out, t);
  } while (kiln_p_accept(p, KILN_TOK_COMMA));
  return true;
}

bool kiln_p_result_types(kiln_parser *p, kiln_p_types *out) {
  if (kiln_p_accept(p, KILN_TOK_LPAREN)) {
    if (kiln_p_accept(p, KILN_TOK_RPAREN)) return true;
    if (!kiln_p_type_list(p, out)) return false;
    return kiln_p_expect(p, KILN_TOK_RPAREN);
  }
  const kiln_type *t;
  if (!parse_type(p, &t)) return false;
  kiln_p_types_push(p, out, t);
  return true;
}

static bool parse_function_type_rest(kiln_parser *p, const kiln_type **out) {
  /* '(' already consumed */
  kiln_p_types ins = {0}, res = {0};
  if (!kiln_p_accept(p, KILN_TOK_RPAREN)) {
    if (!kiln_p_type_list(p, &ins) || !kiln_p_expect(p, KILN_TOK_RPAREN))
      return false;
  }
  if (!kiln_p_expect(p, KILN_TOK_ARROW)) return false;
  if (!kiln_p_result_types(p, &res)) return false;
  *out = kiln_type_function(p->ctx, ins.n, ins.v, res.n, res.v);
  return true;
}

bool kiln_p_function_type(kiln_parser *p, const kiln_type **out) {
  if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
  if (!enter(p)) return false;
  bool ok = parse_function_type_rest(p, out);
  leave(p);
  return ok;
}

static bool parse_type_inner(kiln_parser *p, const kiln_type **out) {
  kiln_context *ctx = p->ctx;
  if (p->tok.kind == KILN_TOK_LPAREN) {
    next(p);
    return parse_function_type_rest(p, out);
  }
  if (p->tok.kind == KILN_TOK_BANG_ID) {
    const char *s = p->tok.start + 1;
    size_t n = p->tok.len - 1;
    const char *dot = memchr(s, '.', n);
    if (!dot) { /* type alias */
      const char *key = kiln_intern(ctx, p->tok.start, p->tok.len);
      const kiln_type *t = kiln_ptr_map_get(&p->type_aliases, key);
      if (!t) return kiln_p_error(p, "undefined symbol alias id '%s'", key + 1);
      next(p);
      *out = t;
      return true;
    }
    /* !kiln.seq<T>: T parsed as a type, kept as the element type */
    static const char seq[] = "kiln.seq";
    if (n == sizeof seq - 1 && !memcmp(s, seq, n) && p->cur < p->end && *p->cur == '<') {
      const kiln_type *elem;
      next(p);
      if (!kiln_p_expect(p, KILN_TOK_LESS) || !parse_type(p, &elem) || !kiln_p_expect(p, KILN_TOK_GREATER))
        return false;
      if (!(*out = kiln_type_seq(ctx, elem))) return kiln_p_error(p, "out of memory");
      return true;
    }
    const char *dialect;
    ir_buf body = {0};
    if (!parse_dialect_body(p, &dialect, &body)) return false;
    *out = kiln_type_opaque(ctx, dialect, body.data);
    ir_buf_free(&body);
    return true;
  }
  if (p->tok.kind != KILN_TOK_BARE_ID) return kiln_p_error(p, "expected type");
  const char *s = p->tok.start;
  size_t n = p->tok.len;
#define IS(w) (n == sizeof(w) - 1 && memcmp(s, w, n) == 0)
  if (IS("index")) *out = ctx->t_index;
  else if (IS("f16")) *out = ctx->t_f16;
  else if (IS("bf16")) *out = ctx->t_bf16;
  else if (IS("f32")) *out = ctx->t_f32;
  else if (IS("f64")) *out = ctx->t_f64;
  else if (IS("none")) *out = ctx->t_none;
  else if (IS("tensor") || IS("memref") || IS("vector")) {
    const char *kw = IS("tensor") ? "tensor" : IS("memref") ? "memref" : "vector";
    next(p);
    return parse_shaped(p, kw, out);
  } else if (IS("tuple")) {
    next(p);
    kiln_p_types ts = {0};
    if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
    if (!kiln_p_accept(p, KILN_TOK_GREATER)) {
      if (!kiln_p_type_list(p, &ts) || !kiln_p_expect(p, KILN_TOK_GREATER))
        return false;
    }
    *out = kiln_type_tuple(ctx, ts.n, ts.v);
    return true;
  } else {
    uint32_t w;
    kiln_signedness sg;
    if (!parse_int_type_word(s, n, &w, &sg))
      return kiln_p_error(p, "unknown type '%.*s'", (int)(n > 64 ? 64 : n), s);
    if (w == 0 || w > 16777215)
      return kiln_p_error(p, "invalid integer width");
    *out = kiln_type_int_sign(ctx, w, sg);
  }
#undef IS
  next(p);
  return true;
}

static bool parse_type(kiln_parser *p, const kiln_type **out) {
  if (!enter(p)) return false;
  bool ok = parse_type_inner(p, out);
  leave(p);
  return ok;
}

bool kiln_p_type(kiln_parser *p, const kiln_type **out) {
  return parse_type(p, out);
}

static bool starts_type(kiln_parser *p) {
  if (p->tok.kind == KILN_TOK_BANG_ID || p->tok.kind == KILN_TOK_LPAREN)
    return true;
  if (p->tok.kind != KILN_TOK_BARE_ID) return false;
  static const char *const kws[] = {"index", "f16", "bf16", "f32", "f64", "none",
                                    "tensor", "memref", "vector", "tuple"};
  for (size_t i = 0; i < sizeof kws / sizeof *kws; i++)
    if (tok_is_word(p, kws[i])) return true;
  uint32_t w;
  kiln_signedness sg;
  return parse_int_type_word(p->tok.start, p->tok.len, &w, &sg);
}

/* ---- affine maps ---- */
typedef struct {
  const char *names[64];
  uint32_t ndims, nsyms;
  const char *snames[64];
} affine_scope;

static bool affine_expr(kiln_parser *p, affine_scope *sc,
                        const kiln_affine_expr **out);

static bool affine_operand(kiln_parser *p, affine_scope *sc,
                           const kiln_affine_expr **out) {
  kiln_context *ctx = p->ctx;
  *out = NULL; /* defined on the error paths too */
  if (p->tok.kind == KILN_TOK_LPAREN) {
    next(p);
    if (!enter(p)) return false;
    bool ok = affine_expr(p, sc, out) && kiln_p_expect(p, KILN_TOK_RPAREN);
    leave(p);
    return ok;
  }
  if (p->tok.kind == KILN_TOK_MINUS) {
    next(p);
    const kiln_affine_expr *e;
    if (!enter(p)) return false;
    bool ok = affine_operand(p, sc, &e);
    leave(p);
    if (!ok) return false;
    *out = kiln_affine_binary(ctx, KILN_AFFINE_MUL, e, kiln_affine_const(ctx, -1));
    return true;
  }
  if (p->tok.kind == KILN_TOK_INTEGER) {
    uint64_t u;
    if (!tok_u64(p, &u)) return false;
    if (u > INT64_MAX) return kiln_p_error(p, "constant too large for index");
    *out = kiln_affine_const(ctx, (int64_t)u);
    next(p);
    return true;
  }
  if (p->tok.kind == KILN_TOK_BARE_ID) {
    const char *name = kiln_intern(ctx, p->tok.start, p->tok.len);
    for (uint32_t i = 0; i < sc->ndims; i++)
      if (sc->names[i] == name) {
        *out = kiln_affine_dim(ctx, i);
        next(p);
        return true;
      }
    for (uint32_t i = 0; i < sc->nsyms; i++)
      if (sc->snames[i] == name) {
        *out = kiln_affine_symbol(ctx, i);
        next(p);
        return true;
      }
    return kiln_p_error(p, "use of undeclared identifier '%s' in affine map", name);
  }
  return kiln_p_error(p, "expected affine expression");
}

static bool affine_term(kiln_parser *p, affine_scope *sc,
                        const kiln_affine_expr **out) {
  const kiln_affine_expr *l;
  if (!affine_operand(p, sc, &l)) return false;
  for (;;) {
    kiln_affine_kind k;
    if (p->tok.kind == KILN_TOK_STAR) k = KILN_AFFINE_MUL;
    else if (tok_is_word(p, "floordiv")) k = KILN_AFFINE_FLOORDIV;
    else if (tok_is_word(p, "ceildiv")) k = KILN_AFFINE_CEILDIV;
    else if (tok_is_word(p, "mod")) k = KILN_AFFINE_MOD;
    else break;
    kiln_loc loc = kiln_p_loc(p);
    next(p);
    const kiln_affine_expr *r;
    if (!affine_operand(p, sc, &r)) return false;
    const kiln_affine_expr *e = kiln_affine_binary(p->ctx, k, l, r);
    if (!e)
      return kiln_p_error_at(p, loc, k == KILN_AFFINE_MUL
                                          ? "non-affine expression: at least one of the multiply operands has to be either a constant or symbolic"
                                          : "non-affine expression: right operand of floordiv/ceildiv/mod has to be a positive constant or symbolic");
    l = e;
  }
  *out = l;
  return true;
}

static bool affine_expr(kiln_parser *p, affine_scope *sc,
                        const kiln_affine_expr **out) {
  const kiln_affine_expr *l;
  if (!affine_term(p, sc, &l)) return false;
  while (p->tok.kind == KILN_TOK_PLUS || p->tok.kind == KILN_TOK_MINUS) {
    bool sub = p->tok.kind == KILN_TOK_MINUS;
    next(p);
    const kiln_affine_expr *r;
    if (!affine_term(p, sc, &r)) return false;
    if (sub)
      r = kiln_affine_binary(p->ctx, KILN_AFFINE_MUL, r,
                             kiln_affine_const(p->ctx, -1));
    l = kiln_affine_binary(p->ctx, KILN_AFFINE_ADD, l, r);
  }
  *out = l;
  return true;
}

static bool parse_id_list(kiln_parser *p, const char **names, uint32_t *n,
                          kiln_tok_kind close) {
  *n = 0;
  if (kiln_p_accept(p, close)) return true;
  do {
    if (p->tok.kind != KILN_TOK_BARE_ID)
      return kiln_p_error(p, "expected identifier in affine map dimension list");
    if (*n >= 64) return kiln_p_error(p, "too many dimensions in affine map");
    const char *nm = kiln_intern(p->ctx, p->tok.start, p->tok.len);
    for (uint32_t i = 0; i < *n; i++)
      if (names[i] == nm)
        return kiln_p_error(p, "redefinition of identifier '%s'", nm);
    names[(*n)++] = nm;
    next(p);
  } while (kiln_p_accept(p, KILN_TOK_COMMA));
  return kiln_p_expect(p, close);
}

/* "(d0, d1)[s0] -> (exprs)" */
static bool parse_affine_map(kiln_parser *p, const kiln_affine_map **out) {
  affine_scope sc;
  memset(&sc, 0, sizeof sc);
  if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
  if (!parse_id_list(p, sc.names, &sc.ndims, KILN_TOK_RPAREN)) return false;
  if (kiln_p_accept(p, KILN_TOK_LSQUARE) &&
      !parse_id_list(p, sc.snames, &sc.nsyms, KILN_TOK_RSQUARE))
    return false;
  for (uint32_t i = 0; i < sc.nsyms; i++)
    for (uint32_t j = 0; j < sc.ndims; j++)
      if (sc.snames[i] == sc.names[j])
        return kiln_p_error(p, "redefinition of identifier '%s'", sc.snames[i]);
  if (!kiln_p_expect(p, KILN_TOK_ARROW) || !kiln_p_expect(p, KILN_TOK_LPAREN))
    return false;
  const kiln_affine_expr *res[256];
  uint32_t n = 0;
  if (!kiln_p_accept(p, KILN_TOK_RPAREN)) {
    do {
      if (n >= 256) return kiln_p_error(p, "too many affine map results");
      if (!affine_expr(p, &sc, &res[n++])) return false;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  *out = kiln_affine_map_get(p->ctx, sc.ndims, sc.nsyms, n, res);
  return true;
}

/* ---- dense elements ---- */
typedef struct {
  int64_t *ints;
  double *floats;
  uint8_t *isfloat;
  uint32_t n, cap;
  int64_t shape[64];
  int rank;       /* -1 until the first leaf fixes the nesting depth */
  bool bad_shape;
} dense_lit;

static bool dense_push(kiln_parser *p, dense_lit *d, int64_t iv, double fv,
                       bool isf) {
  if (d->n == d->cap) {
    uint32_t ncap = d->cap ? d->cap * 2 : 64;
    int64_t *ni = kiln_alloc(p->ctx, ncap * sizeof *ni);
    double *nf = kiln_alloc(p->ctx, ncap * sizeof *nf);
    uint8_t *nb = kiln_alloc(p->ctx, ncap);
    if (d->n) {
      memcpy(ni, d->ints, d->n * sizeof *ni);
      memcpy(nf, d->floats, d->n * sizeof *nf);
      memcpy(nb, d->isfloat, d->n);
    }
    d->ints = ni, d->floats = nf, d->isfloat = nb, d->cap = ncap;
  }
  d->ints[d->n] = iv;
  d->floats[d->n] = fv;
  d->isfloat[d->n] = isf;
  d->n++;
  return true;
}

static bool dense_scalar(kiln_parser *p, dense_lit *d) {
  if (tok_is_word(p, "true") || tok_is_word(p, "false")) {
    dense_push(p, d, tok_is_word(p, "true"), 0, false);
    next(p);
    return true;
  }
  bool neg = kiln_p_accept(p, KILN_TOK_MINUS);
  if (p->tok.kind == KILN_TOK_FLOAT) {
    double v = tok_double(p);
    dense_push(p, d, 0, neg ? -v : v, true);
  } else if (p->tok.kind == KILN_TOK_INTEGER) {
    uint64_t u;
    if (!tok_u64(p, &u)) return false;
    bool hex = p->tok.len > 2 && p->tok.start[1] == 'x';
    dense_push(p, d, neg ? (int64_t)(0 - u) : (int64_t)u, (double)u * (neg ? -1 : 1),
               false);
    if (hex) d->isfloat[d->n - 1] = 2; /* raw bits for float elements */
  } else {
    return kiln_p_error(p, "expected element literal of primitive type");
  }
  next(p);
  return true;
}

static bool dense_list(kiln_parser *p, dense_lit *d, int dim) {
  if (!enter(p)) return false;
  if (dim >= 64) return kiln_p_error(p, "dense literal nested too deeply");
  if (!kiln_p_expect(p, KILN_TOK_LSQUARE)) return false;
  int64_t count = 0;
  if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
    do {
      if (p->tok.kind == KILN_TOK_LSQUARE) {
        if (!dense_list(p, d, dim + 1)) return false;
      } else {
        if (d->rank == -1) d->rank = dim + 1;
        else if (d->rank != dim + 1) d->bad_shape = true;
        if (!dense_scalar(p, d)) return false;
      }
      count++;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  } else if (d->rank == -1) {
    d->rank = dim + 1;
  }
  if (d->shape[dim] == -1) d->shape[dim] = count;
  else if (d->shape[dim] != count) d->bad_shape = true;
  leave(p);
  return true;
}

static void shape_str(char *buf, size_t cap, const int64_t *s, int rank) {
  size_t o = 0;
  buf[0] = 0;
  for (int i = 0; i < rank && o < cap; i++)
    o += (size_t)snprintf(buf + o, cap - o, "%s%lld", i ? ", " : "", (long long)s[i]);
}

static int hexval(char c) {
  if (isdigit((unsigned char)c)) return c - '0';
  c = (char)tolower((unsigned char)c);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool parse_dense(kiln_parser *p, const kiln_attr **out) {
  /* "dense" consumed */
  if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
  dense_lit d;
  memset(&d, 0, sizeof d);
  d.rank = -1;
  for (int i = 0; i < 64; i++) d.shape[i] = -1;
  const char *hex = NULL;
  size_t hexlen = 0;
  kiln_loc litloc = kiln_p_loc(p);
  bool splat = false;
  if (p->tok.kind == KILN_TOK_STRING) {
    hex = p->tok.start + 1;
    hexlen = p->tok.len - 2;
    if (hexlen < 2 || hex[0] != '0' || hex[1] != 'x' || (hexlen & 1))
      return kiln_p_error(p, "expected a hex string \"0x...\" in dense literal");
    next(p);
  } else if (p->tok.kind == KILN_TOK_LSQUARE) {
    if (!dense_list(p, &d, 0)) return false;
  } else if (p->tok.kind != KILN_TOK_GREATER) {
    if (!dense_scalar(p, &d)) return false;
    splat = true;
    d.rank = 0;
  } else {
    d.rank = 0; /* dense<> : tensor<0xf32> */
  }
  if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  if (!kiln_p_expect(p, KILN_TOK_COLON)) return false;
  kiln_loc tloc = kiln_p_loc(p);
  const kiln_type *t;
  if (!parse_type(p, &t)) return false;
  if (!(t->kind == KILN_TYPE_TENSOR || t->kind == KILN_TYPE_VECTOR) ||
      !kiln_type_has_static_shape(t))
    return kiln_p_error_at(p, tloc, "elements literal type must be a statically shaped tensor or vector");
  const kiln_type *e = t->elem;
  size_t es = kiln_dense_elem_size(e);
  if (!es) return kiln_p_error_at(p, tloc, "unsupported dense element type");
  int64_t count = kiln_type_num_elements(t);
  if (count < 0 || (uint64_t)count > (1ull << 40) / es)
    return kiln_p_error_at(p, tloc, "dense literal type is too large");
  if (hex) {
    size_t nbytes = (hexlen - 2) / 2;
    bool bits = e->kind == KILN_TYPE_INTEGER && e->width == 1; /* packed i1 */
    size_t want = bits ? (size_t)(count + 7) / 8 : (size_t)count * es;
    bool is_splat = nbytes == (bits ? 1 : es) && count != 1 && nbytes != want;
    if (nbytes != want && !is_splat)
      return kiln_p_error_at(p, litloc, "elements hex data size is invalid for provided type");
    unsigned char *raw = kiln_alloc(p->ctx, nbytes ? nbytes : 1);
    for (size_t i = 0; i < nbytes; i++) {
      int hi = hexval(hex[2 + 2 * i]), lo = hexval(hex[3 + 2 * i]);
      if (hi < 0 || lo < 0)
        return kiln_p_error_at(p, litloc, "expected hex digits in dense literal");
      raw[i] = (unsigned char)(hi * 16 + lo);
    }
    if (bits) { /* unpack to one byte per element */
      size_t n = is_splat ? 1 : (size_t)count;
      unsigned char *un = kiln_alloc(p->ctx, n + 1);
      for (size_t i = 0; i < n; i++)
        un[i] = is_splat ? (raw[0] != 0) : ((raw[i / 8] >> (i % 8)) & 1);
      *out = kiln_attr_dense(p->ctx, t, is_splat, un, n);
      return true;
    }
    *out = kiln_attr_dense(p->ctx, t, is_splat, raw, nbytes);
    return true;
  }
  if (!splat && d.rank > 0) {
    bool match = !d.bad_shape && (uint32_t)d.rank == t->rank;
    for (int i = 0; match && i < d.rank; i++) match = d.shape[i] == t->shape[i];
    if (!match) {
      char a[256], b[256];
      shape_str(a, sizeof a, d.shape, d.rank < 0 ? 0 : d.rank);
      shape_str(b, sizeof b, t->shape, (int)t->rank);
      return kiln_p_error_at(p, litloc, "inferred shape of elements literal ([%s]) does not match type ([%s])",
                             d.bad_shape ? "non-rectangular" : a, b);
    }
  } else if (!splat && count != 0) {
    return kiln_p_error_at(p, litloc, "dense literal has no elements for a non-empty type");
  }
  uint32_t n = splat ? 1 : d.n;
  unsigned char *buf = kiln_alloc(p->ctx, (size_t)n * es + 1);
  bool isf = kiln_type_is_float(e);
  for (uint32_t i = 0; i < n; i++) {
    unsigned char *dst = buf + (size_t)i * es;
    if (isf) {
      uint64_t bits;
      if (d.isfloat[i] == 2) bits = (uint64_t)d.ints[i];
      else bits = ir_float_bits(e, d.isfloat[i] ? d.floats[i] : (double)d.ints[i]);
      memcpy(dst, &bits, es);
    } else {
      if (d.isfloat[i] == 1)
        return kiln_p_error_at(p, litloc, "expected integer elements, but parsed floating-point");
      int64_t v = d.ints[i];
      if (e->kind == KILN_TYPE_INTEGER && e->width < 64) {
        int64_t lo = e->sign == KILN_UNSIGNED ? 0 : -(1ll << (e->width - 1));
        int64_t hi = e->sign == KILN_SIGNED ? (1ll << (e->width - 1)) - 1
                                            : (int64_t)((1ull << e->width) - 1);
        if (e->width == 1) lo = -1, hi = 1;
        if (v < lo || v > hi)
          return kiln_p_error_at(p, litloc, "integer constant out of range for type");
        if (e->width == 1) v &= 1;
      }
      memcpy(dst, &v, es);
    }
  }
  *out = kiln_attr_dense(p->ctx, t, splat, buf, (size_t)n * es);
  return true;
}

/* array<i64: 1, 2> */
static bool parse_dense_array(kiln_parser *p, const kiln_attr **out) {
  if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
  const kiln_type *t;
  if (!parse_type(p, &t)) return false;
  if (!(kiln_type_is_integer(t) || kiln_type_is_float(t)))
    return kiln_p_error(p, "expected integer or float type in array<...>");
  int64_t *iv = NULL;
  double *fv = NULL;
  uint32_t n = 0, cap = 0, fcap = 0;
  if (kiln_p_accept(p, KILN_TOK_COLON)) {
    do {
      bool neg = kiln_p_accept(p, KILN_TOK_MINUS);
      iv = ir_grow(p->ctx, iv, sizeof *iv, &cap, n + 1);
      fv = ir_grow(p->ctx, fv, sizeof *fv, &fcap, n + 1);
      if (tok_is_word(p, "true") || tok_is_word(p, "false")) {
        iv[n] = tok_is_word(p, "true");
        fv[n] = (double)iv[n];
      } else if (p->tok.kind == KILN_TOK_INTEGER) {
        uint64_t u;
        if (!tok_u64(p, &u)) return false;
        iv[n] = neg ? (int64_t)(0 - u) : (int64_t)u;
        fv[n] = (double)iv[n];
      } else if (p->tok.kind == KILN_TOK_FLOAT && kiln_type_is_float(t)) {
        fv[n] = tok_double(p) * (neg ? -1 : 1);
      } else {
        return kiln_p_error(p, "expected array element");
      }
      n++;
      next(p);
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
  }
  if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  if (kiln_type_is_float(t)) {
    for (uint32_t i = 0; i < n; i++) fv[i] = kiln_float_round(t, fv[i]);
    *out = kiln_attr_dense_array(p->ctx, t, n, NULL, fv);
  } else {
    for (uint32_t i = 0; i < n; i++) {
      const kiln_attr *norm = kiln_attr_int(p->ctx, t, iv[i]);
      iv[i] = norm->i;
    }
    *out = kiln_attr_dense_array(p->ctx, t, n, iv, NULL);
  }
  return true;
}

/* strided<[1, ?], offset: ?> */
static bool parse_strided(kiln_parser *p, const kiln_attr **out) {
  if (!kiln_p_expect(p, KILN_TOK_LESS) || !kiln_p_expect(p, KILN_TOK_LSQUARE))
    return false;
  int64_t s[64];
  uint32_t n = 0;
  if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
    do {
      if (n >= 64) return kiln_p_error(p, "too many strides");
      if (kiln_p_accept(p, KILN_TOK_QUESTION)) s[n++] = KILN_DYNAMIC;
      else if (!kiln_p_int(p, &s[n++])) return false;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  }
  int64_t off = 0;
  if (kiln_p_accept(p, KILN_TOK_COMMA)) {
    if (!kiln_p_expect_keyword(p, "offset") || !kiln_p_expect(p, KILN_TOK_COLON))
      return false;
    if (kiln_p_accept(p, KILN_TOK_QUESTION)) off = KILN_DYNAMIC;
    else if (!kiln_p_int(p, &off)) return false;
  }
  if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  *out = kiln_attr_strided(p->ctx, off, n, s);
  return true;
}

/* Number with optional ": type"; hint types it otherwise. */
static bool parse_number_attr(kiln_parser *p, const kiln_type *hint,
                              const kiln_attr **out) {
  kiln_loc loc = kiln_p_loc(p);
  bool neg = kiln_p_accept(p, KILN_TOK_MINUS);
  bool isf = p->tok.kind == KILN_TOK_FLOAT;
  if (!isf && p->tok.kind != KILN_TOK_INTEGER)
    return kiln_p_error(p, "expected integer or float literal");
  uint64_t u = 0;
  double fv = 0;
  bool hex = !isf && p->tok.len > 2 && p->tok.start[1] == 'x';
  if (isf) fv = tok_double(p);
  else if (!tok_u64(p, &u)) return false;
  next(p);
  const kiln_type *t = hint;
  if (kiln_p_accept(p, KILN_TOK_COLON)) {
    if (!parse_type(p, &t)) return false;
  }
  if (!t) t = isf ? p->ctx->t_f64 : kiln_type_int(p->ctx, 64);
  if (kiln_type_is_float(t)) {
    if (hex) {
      if (neg) return kiln_p_error_at(p, loc, "hexadecimal float literal should not have a leading minus");
      *out = kiln_attr_float(p->ctx, t, ir_float_from_bits(t, u));
      return true;
    }
    double v = isf ? fv : (double)u;
    *out = kiln_attr_float(p->ctx, t, neg ? -v : v);
    return true;
  }
  if (!kiln_type_is_int_or_index(t))
    return kiln_p_error_at(p, loc, "invalid type for numeric literal");
  if (isf) return kiln_p_error_at(p, loc, "floating point value not valid for specified type");
  uint32_t w = t->kind == KILN_TYPE_INDEX ? 64 : t->width;
  bool uns = t->kind == KILN_TYPE_INTEGER && t->sign == KILN_UNSIGNED;
  if (neg && uns) return kiln_p_error_at(p, loc, "negative integer literal not valid for unsigned integer type");
  /* Fits as signed or unsigned w-bit value (MLIR accepts both). */
  bool fits;
  if (w >= 64) fits = !neg || u <= (uint64_t)INT64_MAX + 1;
  else if (neg) fits = u <= (1ull << (w - 1));
  else fits = u <= ((1ull << w) - 1);
  if (w == 1 && neg) fits = u <= 1;
  if (!fits) return kiln_p_error_at(p, loc, "integer constant out of range for attribute");
  int64_t v = neg ? (int64_t)(0 - u) : (int64_t)u;
  *out = kiln_attr_int(p->ctx, t, v);
  return true;
}

static bool parse_dict_body(kiln_parser *p, kiln_named_attr **entries,
                            uint32_t *n);
static bool skip_trailing_loc(kiln_parser *p);

static bool parse_attr_inner(kiln_parser *p, const kiln_type *hint,
                             const kiln_attr **out) {
  kiln_context *ctx = p->ctx;
  switch (p->tok.kind) {
  case KILN_TOK_INTEGER: case KILN_TOK_FLOAT: case KILN_TOK_MINUS:
    return parse_number_attr(p, hint, out);
  case KILN_TOK_STRING: {
    size_t len;
    const char *s = tok_string(p, &len);
    next(p);
    *out = kiln_attr_string(ctx, s, len);
    if (kiln_p_accept(p, KILN_TOK_COLON)) { /* typed string: keep the text */
      const kiln_type *t;
      if (!parse_type(p, &t)) return false;
    }
    return true;
  }
  case KILN_TOK_LSQUARE: {
    next(p);
    const kiln_attr **elems = NULL;
    uint32_t n = 0, cap = 0;
    if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
      do {
        elems = ir_grow(ctx, elems, sizeof *elems, &cap, n + 1);
        if (!parse_attr(p, NULL, &elems[n++])) return false;
      } while (kiln_p_accept(p, KILN_TOK_COMMA));
      if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
    }
    *out = kiln_attr_array(ctx, n, elems);
    return true;
  }
  case KILN_TOK_LBRACE: {
    kiln_named_attr *e;
    uint32_t n;
    if (!parse_dict_body(p, &e, &n)) return false;
    *out = kiln_attr_dict(ctx, n, e);
    return true;
  }
  case KILN_TOK_AT_ID: {
    const char *root;
    if (!kiln_p_symbol_name(p, &root)) return false;
    const char *nested[16];
    uint32_t n = 0;
    while (kiln_p_accept(p, KILN_TOK_DCOLON)) {
      if (n >= 16) return kiln_p_error(p, "symbol reference nested too deeply");
      if (!kiln_p_symbol_name(p, &nested[n++])) return false;
    }
    *out = kiln_attr_symbol_ref(ctx, root, n, nested);
    return true;
  }
  case KILN_TOK_HASH_ID: {
    const char *s = p->tok.start + 1;
    size_t n = p->tok.len - 1;
    const char *dot = memchr(s, '.', n);
    if (!dot) {
      const char *key = kiln_intern(ctx, p->tok.start, p->tok.len);
      const kiln_attr *a = kiln_ptr_map_get(&p->attr_aliases, key);
      if (!a) return kiln_p_error(p, "undefined symbol alias id '%s'", key + 1);
      next(p);
      *out = a;
      return true;
    }
    const char *dialect;
    ir_buf body = {0};
    if (!parse_dialect_body(p, &dialect, &body)) return false;
    *out = kiln_attr_opaque(ctx, dialect, body.data);
    ir_buf_free(&body);
    return true;
  }
  case KILN_TOK_BARE_ID:
    if (tok_is_word(p, "true") || tok_is_word(p, "false")) {
      *out = kiln_attr_bool(ctx, tok_is_word(p, "true"));
      next(p);
      return true;
    }
    if (tok_is_word(p, "unit")) {
      next(p);
      *out = ctx->a_unit;
      return true;
    }
    if (tok_is_word(p, "dense")) {
      next(p);
      return parse_dense(p, out);
    }
    if (tok_is_word(p, "array")) {
      next(p);
      return parse_dense_array(p, out);
    }
    if (tok_is_word(p, "strided")) {
      next(p);
      return parse_strided(p, out);
    }
    if (tok_is_word(p, "affine_map")) {
      next(p);
      const kiln_affine_map *m;
      if (!kiln_p_expect(p, KILN_TOK_LESS) || !parse_affine_map(p, &m) ||
          !kiln_p_expect(p, KILN_TOK_GREATER))
        return false;
      *out = kiln_attr_affine_map(ctx, m);
      return true;
    }
    if (tok_is_word(p, "loc")) { /* locations: accepted and dropped */
      if (!skip_trailing_loc(p)) return false;
      *out = ctx->a_unit;
      return true;
    }
    if (tok_is_word(p, "dense_resource") || tok_is_word(p, "sparse") ||
        tok_is_word(p, "affine_set") || tok_is_word(p, "opaque") ||
        tok_is_word(p, "distinct"))
      return kiln_p_error(p, "'%.*s' attributes are not supported",
                          (int)p->tok.len, p->tok.start);
    break;
  default:
    break;
  }
  if (starts_type(p)) {
    const kiln_type *t;
    if (!parse_type(p, &t)) return false;
    *out = kiln_attr_type(ctx, t);
    return true;
  }
  return kiln_p_error(p, "expected attribute value");
}

static bool parse_attr(kiln_parser *p, const kiln_type *hint,
                       const kiln_attr **out) {
  if (!enter(p)) return false;
  bool ok = parse_attr_inner(p, hint, out);
  leave(p);
  return ok;
}

bool kiln_p_attr(kiln_parser *p, const kiln_type *hint, const kiln_attr **out) {
  return parse_attr(p, hint, out);
}

static bool parse_dict_body(kiln_parser *p, kiln_named_attr **entries,
                            uint32_t *n) {
  if (!kiln_p_expect(p, KILN_TOK_LBRACE)) return false;
  kiln_named_attr *e = NULL;
  uint32_t cnt = 0, cap = 0;
  if (!kiln_p_accept(p, KILN_TOK_RBRACE)) {
    do {
      const char *name;
      kiln_loc nloc = kiln_p_loc(p);
      if (p->tok.kind == KILN_TOK_BARE_ID) {
        name = kiln_intern(p->ctx, p->tok.start, p->tok.len);
      } else if (p->tok.kind == KILN_TOK_STRING) {
        size_t len;
        const char *s = tok_string(p, &len);
        if (!len) return kiln_p_error(p, "expected valid attribute name");
        name = kiln_intern(p->ctx, s, len);
      } else {
        return kiln_p_error(p, "expected attribute name");
      }
      next(p);
      for (uint32_t i = 0; i < cnt; i++)
        if (e[i].name == name)
          return kiln_p_error_at(p, nloc, "duplicate key '%s' in dictionary attribute", name);
      e = ir_grow(p->ctx, e, sizeof *e, &cap, cnt + 1);
      e[cnt].name = name;
      if (kiln_p_accept(p, KILN_TOK_EQUAL)) {
        if (!parse_attr(p, NULL, &e[cnt].value)) return false;
      } else {
        e[cnt].value = p->ctx->a_unit;
      }
      cnt++;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RBRACE)) return false;
  }
  *entries = e;
  *n = cnt;
  return true;
}

bool kiln_p_attr_dict_into(kiln_parser *p, const kiln_attr **out) {
  kiln_named_attr *e;
  uint32_t n;
  if (!enter(p)) return false;
  bool ok = parse_dict_body(p, &e, &n);
  leave(p);
  if (!ok) return false;
  *out = kiln_attr_dict(p->ctx, n, e);
  return true;
}

bool kiln_p_opt_attr_dict(kiln_parser *p, kiln_op_state *st) {
  if (p->tok.kind != KILN_TOK_LBRACE) return true;
  kiln_named_attr *e;
  uint32_t n;
  if (!enter(p)) return false;
  bool ok = parse_dict_body(p, &e, &n);
  leave(p);
  if (!ok) return false;
  for (uint32_t i = 0; i < n; i++) kiln_st_set_attr(st, e[i].name, e[i].value);
  return true;
}

bool kiln_p_int_array(kiln_parser *p, int64_t **out, uint32_t *n) {
  if (!kiln_p_expect(p, KILN_TOK_LSQUARE)) return false;
  int64_t *v = NULL;
  uint32_t cnt = 0, cap = 0;
  if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
    do {
      v = ir_grow(p->ctx, v, sizeof *v, &cap, cnt + 1);
      if (!kiln_p_int(p, &v[cnt++])) return false;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  }
  *out = v;
  *n = cnt;
  return true;
}

/* fastmath<...>: flags are normalized to MLIR's order ("fast" when all). */
bool kiln_p_opt_fastmath(kiln_parser *p, kiln_op_state *st) {
  static const char *const flags[] = {"reassoc", "nnan", "ninf", "nsz",
                                      "arcp", "contract", "afn"};
  if (!tok_is_word(p, "fastmath")) return true;
  next(p);
  if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
  unsigned set = 0;
  do {
    const char *kw = NULL;
    if (!kiln_p_keyword(p, &kw)) return false;
    if (strcmp(kw, "fast") == 0) set |= 0x7f;
    else if (strcmp(kw, "none") != 0) {
      unsigned bit = 0;
      for (unsigned i = 0; i < 7; i++)
        if (strcmp(kw, flags[i]) == 0) bit = 1u << i;
      if (!bit) return kiln_p_error(p, "unknown fastmath flag '%s'", kw);
      set |= bit;
    }
  } while (kiln_p_accept(p, KILN_TOK_COMMA));
  if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  char buf[96] = "fastmath<";
  if (set == 0x7f) strcat(buf, "fast");
  else if (!set) strcat(buf, "none");
  else
    for (unsigned i = 0, first = 1; i < 7; i++)
      if (set & (1u << i)) {
        if (!first) strcat(buf, ",");
        strcat(buf, flags[i]);
        first = 0;
      }
  strcat(buf, ">");
  kiln_st_set_attr(st, "fastmath", kiln_attr_opaque(p->ctx, "arith", buf));
  return true;
}

/* ---- SSA names ---- */
bool kiln_p_is_operand(kiln_parser *p) { return p->tok.kind == KILN_TOK_PERCENT_ID; }

bool kiln_p_operand(kiln_parser *p, kiln_p_ssa_use *out) {
  if (p->tok.kind != KILN_TOK_PERCENT_ID)
    return kiln_p_error(p, "expected SSA operand");
  out->loc = kiln_p_loc(p);
  out->name = kiln_intern(p->ctx, p->tok.start + 1, p->tok.len - 1);
  out->idx = 0;
  bool hash = p->cur + 1 < p->end && p->cur[0] == '#' &&
              isdigit((unsigned char)p->cur[1]);
  next(p);
  /* "%x#3": '#' directly followed by digits */
  if (hash && p->tok.kind == KILN_TOK_HASH_ID) {
    uint64_t v = 0;
    for (size_t i = 1; i < p->tok.len; i++) {
      if (!isdigit((unsigned char)p->tok.start[i]))
        return kiln_p_error(p, "invalid SSA value result number");
      v = v * 10 + (uint64_t)(p->tok.start[i] - '0');
      if (v > 1u << 30) return kiln_p_error(p, "invalid SSA value result number");
    }
    out->idx = (uint32_t)v;
    next(p);
  }
  return true;
}

bool kiln_p_operand_list(kiln_parser *p, kiln_p_ssa_uses *out) {
  if (p->tok.kind != KILN_TOK_PERCENT_ID) return true;
  do {
    kiln_p_ssa_use o;
    if (!kiln_p_operand(p, &o)) return false;
    kiln_p_operands_push(p, out, o);
  } while (kiln_p_accept(p, KILN_TOK_COMMA));
  return true;
}

bool kiln_p_paren_operand_list(kiln_parser *p, kiln_p_ssa_uses *out) {
  if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
  if (!kiln_p_operand_list(p, out)) return false;
  return kiln_p_expect(p, KILN_TOK_RPAREN);
}

static void record_defined(kiln_parser *p, ir_binding *b) {
  if (p->num_defined == p->cap_defined) {
    p->cap_defined = p->cap_defined ? p->cap_defined * 2 : 256;
    ir_binding **n = kiln_alloc(p->ctx, p->cap_defined * sizeof *n);
    if (p->num_defined) memcpy(n, p->defined, p->num_defined * sizeof *n);
    p->defined = n;
  }
  p->defined[p->num_defined++] = b;
}

static ir_binding *visible(kiln_parser *p, const char *name) {
  ir_binding *b = kiln_ptr_map_get(&p->names, name);
  return b && b->iso == p->iso ? b : NULL;
}

bool kiln_p_resolve(kiln_parser *p, const kiln_p_ssa_use *o,
                    const kiln_type *t, kiln_value **out) {
  *out = NULL; /* defined on the error paths too */
  ir_binding *b = visible(p, o->name);
  if (!b) { /* forward reference: placeholder until defined */
    b = kiln_alloc(p->ctx, sizeof *b);
    b->name = o->name;
    b->iso = p->iso;
    b->forward = true;
    b->loc = o->loc;
    b->count = o->idx + 1;
    if (b->count > 4096)
      return kiln_p_error_at(p, o->loc, "result number of forward reference is too large");
    b->vals = kiln_alloc(p->ctx, b->count * sizeof *b->vals);
    b->shadowed = kiln_ptr_map_get(&p->names, o->name);
    ir_map_put(&p->names, o->name, b);
    record_defined(p, b);
    if (p->num_forwards == p->cap_forwards) {
      p->cap_forwards = p->cap_forwards ? p->cap_forwards * 2 : 64;
      ir_binding **n = kiln_alloc(p->ctx, p->cap_forwards * sizeof *n);
      if (p->num_forwards) memcpy(n, p->forwards, p->num_forwards * sizeof *n);
      p->forwards = n;
    }
    p->forwards[p->num_forwards++] = b;
  }
  if (o->idx >= b->count) {
    if (!b->forward)
      return kiln_p_error_at(p, o->loc, "reference to invalid result number");
    kiln_value **nv = kiln_alloc(p->ctx, (o->idx + 1) * sizeof *nv);
    memcpy(nv, b->vals, b->count * sizeof *nv);
    b->vals = nv;
    b->count = o->idx + 1;
  }
  kiln_value *v = b->vals[o->idx];
  if (!v) {
    v = kiln_alloc(p->ctx, sizeof *v);
    v->type = t;
    v->loc = o->loc;
    b->vals[o->idx] = v;
  }
  if (v->type != t) {
    char *want = kiln_type_to_string(t), *have = kiln_type_to_string(v->type);
    kiln_p_error_at(p, o->loc, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'",
                    o->name, want, have);
    free(want);
    free(have);
    return false;
  }
  *out = v;
  return true;
}

bool kiln_p_resolve_add(kiln_parser *p, kiln_op_state *st,
                        const kiln_p_ssa_use *o, const kiln_type *t) {
  kiln_value *v;
  if (!kiln_p_resolve(p, o, t, &v)) return false;
  kiln_st_add_operand(st, v);
  return true;
}

bool kiln_p_resolve_list(kiln_parser *p, kiln_op_state *st,
                         const kiln_p_ssa_uses *ops, const kiln_p_types *types,
                         kiln_loc loc) {
  if (ops->n != types->n)
    return kiln_p_error_at(p, loc, "%u operands present, but expected %u",
                           ops->n, types->n);
  for (uint32_t i = 0; i < ops->n; i++)
    if (!kiln_p_resolve_add(p, st, &ops->v[i], types->v[i])) return false;
  return true;
}

/* Binds `name` to n values (results of an op or one block argument). */
static bool define(kiln_parser *p, const char *name, kiln_loc loc,
                   kiln_value **vals, uint32_t n) {
  ir_binding *old = kiln_ptr_map_get(&p->names, name);
  if (old && old->iso == p->iso) {
    if (!old->forward)
      return kiln_p_error_at(p, loc, "redefinition of SSA value '%%%s'", name);
    /* Resolve the forward placeholders. */
    if (old->count > n)
      return kiln_p_error_at(p, old->loc, "reference to invalid result number");
    for (uint32_t i = 0; i < old->count; i++) {
      kiln_value *ph = old->vals[i];
      if (!ph) continue;
      if (ph->type != vals[i]->type) {
        char *a = kiln_type_to_string(vals[i]->type), *b = kiln_type_to_string(ph->type);
        kiln_p_error_at(p, ph->loc, "use of value '%%%s' expects different type than prior uses: '%s' vs '%s'",
                        name, b, a);
        free(a);
        free(b);
        return false;
      }
      kiln_value_replace_all_uses(ph, vals[i]);
    }
    old->forward = false;
    old->vals = vals;
    old->count = n;
    old->loc = loc;
    return true;
  }
  ir_binding *b = kiln_alloc(p->ctx, sizeof *b);
  b->name = name;
  b->vals = vals;
  b->count = n;
  b->iso = p->iso;
  b->loc = loc;
  b->shadowed = old;
  ir_map_put(&p->names, name, b);
  record_defined(p, b);
  return true;
}

/* Pops bindings made since `mark`, restoring shadowed ones. */
static void pop_names(kiln_parser *p, size_t mark) {
  while (p->num_defined > mark) {
    ir_binding *b = p->defined[--p->num_defined];
    ir_map_put(&p->names, b->name, b->shadowed);
  }
}

/* Reports forward references still unresolved (after mark). */
static bool check_forwards(kiln_parser *p, size_t mark) {
  for (size_t i = mark; i < p->num_forwards; i++) {
    ir_binding *b = p->forwards[i];
    if (b->forward)
      return kiln_p_error_at(p, b->loc, "use of undeclared SSA value name '%%%s'", b->name);
  }
  p->num_forwards = mark;
  return true;
}

/* ---- operations and regions ---- */
static bool parse_op(kiln_parser *p, kiln_block *block);

static ir_block_ref *block_ref(kiln_parser *p, size_t mark, const char *name,
                               kiln_loc loc) {
  for (size_t i = mark; i < p->num_blocks; i++)
    if (p->blocks[i].name == name) return &p->blocks[i];
  if (p->num_blocks == p->cap_blocks) {
    p->cap_blocks = p->cap_blocks ? p->cap_blocks * 2 : 32;
    ir_block_ref *n = kiln_alloc(p->ctx, p->cap_blocks * sizeof *n);
    if (p->num_blocks) memcpy(n, p->blocks, p->num_blocks * sizeof *n);
    p->blocks = n;
  }
  ir_block_ref *r = &p->blocks[p->num_blocks++];
  r->name = name;
  r->block = kiln_block_create(p->ctx);
  r->block->loc = loc;
  r->defined = false;
  r->loc = loc;
  return r;
}

bool kiln_p_successor(kiln_parser *p, kiln_block **out) {
  if (p->tok.kind != KILN_TOK_CARET_ID) return kiln_p_error(p, "expected block name");
  if (!p->in_region) return kiln_p_error(p, "block reference outside of a region");
  const char *name = kiln_intern(p->ctx, p->tok.start, p->tok.len);
  ir_block_ref *ref = block_ref(p, p->block_mark, name, kiln_p_loc(p));
  *out = ref->block;
  next(p);
  return true;
}

void kiln_st_add_successor(kiln_op_state *st, kiln_block *b) {
  st->succs = ir_grow(st->ctx, st->succs, sizeof b, &st->cap_succs, st->num_succs + 1);
  st->succs[st->num_succs++] = b;
}

/* Block arguments "(%a: t, %b: t loc(...))". */
static bool parse_block_args(kiln_parser *p, kiln_block *b) {
  if (!kiln_p_accept(p, KILN_TOK_LPAREN)) return true;
  if (kiln_p_accept(p, KILN_TOK_RPAREN)) return true;
  do {
    kiln_p_ssa_use o;
    if (!kiln_p_operand(p, &o)) return false;
    if (!kiln_p_expect(p, KILN_TOK_COLON)) return false;
    const kiln_type *t;
    if (!parse_type(p, &t)) return false;
    if (tok_is_word(p, "loc")) { /* skip loc(...) */
      next(p);
      int depth = 0;
      do {
        if (p->tok.kind == KILN_TOK_LPAREN) depth++;
        else if (p->tok.kind == KILN_TOK_RPAREN) depth--;
        else if (p->tok.kind == KILN_TOK_EOF || p->tok.kind == KILN_TOK_ERROR)
          return kiln_p_error(p, "unterminated location");
        next(p);
      } while (depth > 0);
    }
    kiln_value *v = kiln_block_add_arg(p->ctx, b, t, o.loc);
    kiln_value **vals = kiln_alloc(p->ctx, sizeof *vals);
    vals[0] = v;
    if (!define(p, o.name, o.loc, vals, 1)) return false;
  } while (kiln_p_accept(p, KILN_TOK_COMMA));
  return kiln_p_expect(p, KILN_TOK_RPAREN);
}

/* Parses ops into b until '}' or the next block label. */
static bool parse_block_body(kiln_parser *p, kiln_block *b) {
  while (p->tok.kind != KILN_TOK_RBRACE && p->tok.kind != KILN_TOK_CARET_ID) {
    if (p->tok.kind == KILN_TOK_EOF)
      return kiln_p_error(p, "expected '}' to close region");
    if (!parse_op(p, b)) return false;
  }
  return true;
}

static bool parse_region_body(kiln_parser *p, kiln_region *r,
                              const kiln_p_arg *args, uint32_t nargs,
                              bool isolated) {
  if (!kiln_p_expect(p, KILN_TOK_LBRACE)) return false;
  kiln_loc rloc = kiln_p_loc(p);
  size_t name_mark = p->num_defined, fwd_mark = p->num_forwards;
  size_t block_mark = p->num_blocks;
  size_t saved_mark = p->block_mark;
  bool saved_in = p->in_region;
  p->block_mark = block_mark;
  p->in_region = true;
  uint32_t saved_iso = p->iso;
  if (isolated) p->iso = saved_iso + 1;
  bool ok = true;
  if (nargs || p->tok.kind != KILN_TOK_RBRACE) {
    kiln_block *entry = NULL;
    if (p->tok.kind != KILN_TOK_CARET_ID || nargs) {
      entry = kiln_block_create(p->ctx);
      entry->loc = rloc;
      kiln_region_append_block(r, entry);
      for (uint32_t i = 0; ok && i < nargs; i++) {
        kiln_value *v = kiln_block_add_arg(p->ctx, entry, args[i].type,
                                           args[i].name.loc);
        if (args[i].name.name) {
          kiln_value **vals = kiln_alloc(p->ctx, sizeof *vals);
          vals[0] = v;
          ok = define(p, args[i].name.name, args[i].name.loc, vals, 1);
        }
      }
      if (ok) ok = parse_block_body(p, entry);
    }
    while (ok && p->tok.kind == KILN_TOK_CARET_ID) {
      kiln_loc bl = kiln_p_loc(p);
      const char *name = kiln_intern(p->ctx, p->tok.start, p->tok.len);
      ir_block_ref *ref = block_ref(p, block_mark, name, bl);
      if (ref->defined) {
        ok = kiln_p_error(p, "redefinition of block '%s'", name);
        break;
      }
      ref->defined = true;
      ref->block->loc = bl;
      kiln_block *blk = ref->block;
      next(p);
      kiln_region_append_block(r, blk);
      ok = parse_block_args(p, blk) && kiln_p_expect(p, KILN_TOK_COLON) &&
           parse_block_body(p, blk);
    }
  }
  if (ok) ok = kiln_p_expect(p, KILN_TOK_RBRACE);
  for (size_t i = block_mark; ok && i < p->num_blocks; i++)
    if (!p->blocks[i].defined)
      ok = kiln_p_error_at(p, p->blocks[i].loc, "reference to an undefined block");
  p->num_blocks = block_mark;
  p->block_mark = saved_mark;
  p->in_region = saved_in;
  if (ok && isolated) ok = check_forwards(p, fwd_mark);
  pop_names(p, name_mark);
  p->iso = saved_iso;
  return ok;
}

bool kiln_p_region(kiln_parser *p, kiln_op_state *st, const kiln_p_arg *args,
                   uint32_t nargs) {
  if (!enter(p)) return false;
  kiln_region *r = kiln_st_add_region(st);
  bool isolated = st->info && (st->info->flags & KILN_OPF_ISOLATED);
  /* Default dialect: func ops print/parse without prefix inside func.func. */
  const char *dd = !st->info                               ? ""
                   : st->info->kind == KILN_OP_FUNC_FUNC      ? "func"
                   : st->info->kind == KILN_OP_BUILTIN_MODULE ? "builtin"
                                                              : "";
  p->dialect_stack[++p->dialect_depth] = dd;
  bool ok = parse_region_body(p, r, args, nargs, isolated);
  p->dialect_depth--;
  leave(p);
  return ok;
}

void kiln_p_ensure_terminator(kiln_parser *p, kiln_region *r, kiln_op_kind kind,
                              kiln_loc loc) {
  if (!r->first) kiln_region_append_block(r, kiln_block_create(p->ctx));
  for (kiln_block *b = r->first; b; b = b->next) {
    if (kiln_block_terminator(b)) continue;
    kiln_op *t = kiln_op_create(p->ctx, kind, loc, 0, NULL, 0, NULL, NULL, 0);
    kiln_block_append_op(b, t);
  }
}

/* Moves a parsed region's blocks into op's region i. */
static void adopt_region(kiln_op *op, uint32_t i, kiln_region *src) {
  kiln_region *dst = &op->regions[i];
  dst->first = src->first;
  dst->last = src->last;
  for (kiln_block *b = dst->first; b; b = b->next) b->parent = dst;
}

/* Generic form after the name: (operands) [succ] <{props}> (regions) {attrs}
 * : (types) -> types */
static bool parse_generic_body(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  if (!kiln_p_paren_operand_list(p, &ops)) return false;
  if (kiln_p_accept(p, KILN_TOK_LSQUARE)) { /* successors [^bb1, ^bb2] */
    do {
      kiln_block *b;
      if (!kiln_p_successor(p, &b)) return false;
      kiln_st_add_successor(st, b);
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  }
  if (p->tok.kind == KILN_TOK_LESS) { /* <{properties}> */
    next(p);
    if (!kiln_p_opt_attr_dict(p, st)) return false;
    if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
  }
  if (kiln_p_accept(p, KILN_TOK_LPAREN)) {
    do {
      if (!kiln_p_region(p, st, NULL, 0)) return false;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  if (!kiln_p_expect(p, KILN_TOK_COLON)) return false;
  kiln_loc tloc = kiln_p_loc(p);
  const kiln_type *fn;
  if (!parse_type(p, &fn)) return false;
  if (fn->kind != KILN_TYPE_FUNCTION)
    return kiln_p_error_at(p, tloc, "expected function type");
  if (fn->num_inputs != ops.n)
    return kiln_p_error_at(p, tloc, "expected %u operand types but had %u",
                           ops.n, fn->num_inputs);
  for (uint32_t i = 0; i < ops.n; i++)
    if (!kiln_p_resolve_add(p, st, &ops.v[i], fn->types[i])) return false;
  for (uint32_t i = 0; i < fn->num_results; i++)
    kiln_st_add_type(st, fn->types[fn->num_inputs + i]);
  return true;
}

/* Resolves "return" to "func.return" inside a func body, etc. */
static const kiln_op_info *lookup_op(kiln_parser *p, const char *s, size_t n) {
  const kiln_op_info *info = kiln_op_info_lookup(s, n);
  if (info || memchr(s, '.', n)) return info;
  char buf[256];
  const char *dd = p->dialect_stack[p->dialect_depth];
  if (dd && *dd && n + strlen(dd) + 2 < sizeof buf) {
    snprintf(buf, sizeof buf, "%s.%.*s", dd, (int)n, s);
    info = kiln_op_info_lookup(buf, strlen(buf));
    if (info) return info;
  }
  snprintf(buf, sizeof buf, "builtin.%.*s", (int)(n > 200 ? 200 : n), s);
  return kiln_op_info_lookup(buf, strlen(buf));
}

static bool skip_trailing_loc(kiln_parser *p) {
  if (!tok_is_word(p, "loc")) return true;
  next(p);
  if (p->tok.kind != KILN_TOK_LPAREN) return kiln_p_error(p, "expected '('");
  int depth = 0;
  do {
    if (p->tok.kind == KILN_TOK_LPAREN) depth++;
    else if (p->tok.kind == KILN_TOK_RPAREN) depth--;
    else if (p->tok.kind == KILN_TOK_EOF || p->tok.kind == KILN_TOK_ERROR)
      return kiln_p_error(p, "unterminated location");
    next(p);
  } while (depth > 0);
  return true;
}

bool kiln_p_opt_loc(kiln_parser *p) { return skip_trailing_loc(p); }

/* An op's trailing location: loc(fused["NAME (KIND)", ...]) or loc("NAME
 * (KIND)"), as the printer writes source nodes (KILN_PRINT_LOCATIONS),
 * sets loc->nodes, one line per string, so ONNX node names survive a
 * round trip through the text. Any other location (file:line:col,
 * unknown, callsite...) is skipped: the op keeps its place in this text. */
static bool parse_trailing_loc(kiln_parser *p, kiln_loc *loc) {
  if (!tok_is_word(p, "loc")) return true;
  kiln_parser save = *p;
  next(p);
  if (!kiln_p_accept(p, KILN_TOK_LPAREN)) return kiln_p_error(p, "expected '('");
  const bool fused = tok_is_word(p, "fused");
  if (fused) {
    next(p);
    if (!kiln_p_accept(p, KILN_TOK_LSQUARE)) goto other;
  }
  char *lines = NULL;
  size_t n = 0;
  for (;;) {
    if (p->tok.kind != KILN_TOK_STRING) goto other_free;
    size_t len;
    const char *str = tok_string(p, &len);
    next(p);
    if (p->tok.kind == KILN_TOK_COLON || memchr(str, '\n', len)) goto other_free;
    char *nl = realloc(lines, n + len + 2);
    if (!nl) goto other_free;
    lines = nl;
    if (n) lines[n++] = '\n';
    memcpy(lines + n, str, len);
    n += len;
    lines[n] = 0;
    if (!fused || !kiln_p_accept(p, KILN_TOK_COMMA)) break;
  }
  if ((fused && !kiln_p_accept(p, KILN_TOK_RSQUARE)) || !kiln_p_accept(p, KILN_TOK_RPAREN))
    goto other_free;
  loc->nodes = kiln_intern(p->ctx, lines, n);
  free(lines);
  return true;
other_free:
  free(lines);
other:
  *p = save;
  return skip_trailing_loc(p);
}

typedef struct {
  const char *name;
  uint32_t count;
  kiln_loc loc;
} result_group;

static bool parse_op_inner(kiln_parser *p, kiln_block *block) {
  result_group groups[64];
  uint32_t ngroups = 0, nres = 0;
  kiln_loc op_loc = kiln_p_loc(p);
  if (p->tok.kind == KILN_TOK_PERCENT_ID) {
    do {
      if (p->tok.kind != KILN_TOK_PERCENT_ID)
        return kiln_p_error(p, "expected SSA result name");
      if (ngroups >= 64) return kiln_p_error(p, "too many result groups");
      result_group *g = &groups[ngroups++];
      g->loc = kiln_p_loc(p);
      g->name = kiln_intern(p->ctx, p->tok.start + 1, p->tok.len - 1);
      g->count = 1;
      next(p);
      if (kiln_p_accept(p, KILN_TOK_COLON)) {
        if (p->tok.kind != KILN_TOK_INTEGER)
          return kiln_p_error(p, "expected integer number of results");
        uint64_t u;
        if (!tok_u64(p, &u)) return false;
        if (u == 0 || u > 4096) return kiln_p_error(p, "invalid number of results");
        g->count = (uint32_t)u;
        next(p);
      }
      nres += g->count;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_EQUAL)) return false;
    op_loc = kiln_p_loc(p);
  }
  kiln_op_state st;
  memset(&st, 0, sizeof st);
  st.ctx = p->ctx;
  st.loc = op_loc;
  bool generic = false;
  if (p->tok.kind == KILN_TOK_STRING) {
    size_t len;
    const char *s = tok_string(p, &len);
    st.info = kiln_op_info_lookup(s, len);
    st.name = kiln_intern(p->ctx, s, len);
    if (!st.info && !p->ctx->allow_unregistered)
      return kiln_p_error(p, "unregistered operation '%s' found in dialect ('%.*s') that does not allow unknown operations",
                          st.name, (int)(strchr(st.name, '.') ? strchr(st.name, '.') - st.name : (long)len), st.name);
    next(p);
    generic = true;
  } else if (p->tok.kind == KILN_TOK_BARE_ID) {
    st.info = lookup_op(p, p->tok.start, p->tok.len);
    if (!st.info)
      return kiln_p_error(p, "custom op '%.*s' is unknown", (int)(p->tok.len > 80 ? 80 : p->tok.len),
                          p->tok.start);
    st.name = st.info->name;
    if (!st.info->parse)
      return kiln_p_error(p, "op '%s' has no custom syntax; use the generic form", st.name);
    next(p);
  } else {
    return kiln_p_error(p, nres ? "expected operation name" : "expected operation name in quotes");
  }
  /* Ops whose regions need the func default dialect / isolation see info. */
  bool ok = generic ? parse_generic_body(p, &st) : st.info->parse(p, &st);
  if (!ok) return kiln_p_error(p, "failed to parse '%s'", st.name);
  if (!parse_trailing_loc(p, &op_loc)) return false;
  if (nres && nres != st.num_types)
    return kiln_p_error_at(p, groups[0].loc, "operation defines %u results but was provided %u to bind",
                           st.num_types, nres);
  kiln_op *op;
  if (st.info) {
    op = kiln_op_create(p->ctx, st.info->kind, op_loc, st.num_operands,
                        st.operands, st.num_types, st.types,
                        kiln_attr_dict(p->ctx, st.num_attrs, st.attrs),
                        st.num_regions);
  } else {
    op = kiln_op_create_named(p->ctx, st.name, op_loc, st.num_operands,
                              st.operands, st.num_types, st.types,
                              kiln_attr_dict(p->ctx, st.num_attrs, st.attrs),
                              st.num_regions);
  }
  for (uint32_t i = 0; i < st.num_regions; i++) adopt_region(op, i, st.regions[i]);
  if (st.num_succs) kiln_op_set_successors(op, st.num_succs, st.succs);
  kiln_block_append_op(block, op);
  uint32_t r = 0;
  for (uint32_t g = 0; g < ngroups; g++) {
    kiln_value **vals = kiln_alloc(p->ctx, groups[g].count * sizeof *vals);
    for (uint32_t i = 0; i < groups[g].count; i++) vals[i] = &op->results[r++];
    if (!define(p, groups[g].name, groups[g].loc, vals, groups[g].count))
      return false;
  }
  return true;
}

static bool parse_op(kiln_parser *p, kiln_block *block) {
  if (!enter(p)) return false;
  bool ok = parse_op_inner(p, block);
  leave(p);
  return ok;
}

/* Top level: aliases "#a = attr" / "!t = type", then ops. */
static bool parse_toplevel(kiln_parser *p, kiln_block *body) {
  while (p->tok.kind != KILN_TOK_EOF) {
    if (p->tok.kind == KILN_TOK_HASH_ID || p->tok.kind == KILN_TOK_BANG_ID) {
      bool is_attr = p->tok.kind == KILN_TOK_HASH_ID;
      const char *key = kiln_intern(p->ctx, p->tok.start, p->tok.len);
      if (memchr(key, '.', p->tok.len))
        return kiln_p_error(p, "expected alias name without '.'");
      bool dup = is_attr ? kiln_ptr_map_get(&p->attr_aliases, key) != NULL
                         : kiln_ptr_map_get(&p->type_aliases, key) != NULL;
      if (dup) return kiln_p_error(p, "redefinition of %s alias id '%s'",
                                   is_attr ? "attribute" : "type", key + 1);
      next(p);
      if (!kiln_p_expect(p, KILN_TOK_EQUAL)) return false;
      if (is_attr) {
        const kiln_attr *a;
        if (!parse_attr(p, NULL, &a)) return false;
        ir_map_put(&p->attr_aliases, key, (void *)a);
      } else {
        const kiln_type *t;
        if (!parse_type(p, &t)) return false;
        ir_map_put(&p->type_aliases, key, (void *)t);
      }
      continue;
    }
    if (p->tok.kind == KILN_TOK_FILE_META_BEGIN) { /* {-# ... #-} */
      while (p->tok.kind != KILN_TOK_FILE_META_END) {
        if (p->tok.kind == KILN_TOK_EOF || p->tok.kind == KILN_TOK_ERROR)
          return kiln_p_error(p, "unterminated file metadata");
        next(p);
      }
      next(p);
      continue;
    }
    if (!parse_op(p, body)) return false;
  }
  return true;
}

kiln_op *kiln_parse_source(kiln_context *ctx, const char *name,
                           const char *text, size_t len) {
  return kiln_parse_source_range(ctx, name, text, len, 0, len);
}

kiln_op *kiln_parse_source_range(kiln_context *ctx, const char *name,
                                 const char *text, size_t len, size_t begin,
                                 size_t end) {
  kiln_parser p;
  memset(&p, 0, sizeof p);
  p.ctx = ctx;
  p.file = kiln_intern_cstr(ctx, name ? name : "<input>");
  if (end > len) end = len;
  if (begin > end) begin = end;
  p.buf = text;
  p.cur = text + begin;
  p.end = text + end;
  kiln_context_add_source(ctx, p.file, text, len);
  size_t nl = 1;
  for (size_t i = 0; i < len; i++) nl += text[i] == '\n';
  p.line_starts = malloc(nl * sizeof *p.line_starts);
  if (!p.line_starts) return NULL;
  p.line_starts[0] = 0;
  p.num_lines = 1;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n') p.line_starts[p.num_lines++] = (uint32_t)(i + 1);
  if (len >= UINT32_MAX) {
    kiln_emit_error(ctx, (kiln_loc){p.file, 1, 1, NULL}, "input file is too large");
    free(p.line_starts);
    return NULL;
  }
  p.dialect_stack[0] = "";
  next(&p);
  kiln_loc start = kiln_p_loc(&p);
  kiln_op *holder = kiln_module_create(ctx, start);
  kiln_block *body = kiln_module_body(holder);
  bool ok = parse_toplevel(&p, body) && check_forwards(&p, 0);
  free(p.line_starts);
  kiln_ptr_map_free(&p.names);
  kiln_ptr_map_free(&p.attr_aliases);
  kiln_ptr_map_free(&p.type_aliases);
  if (!ok) return NULL;
  /* A single top-level module is the module; otherwise wrap everything. */
  kiln_op *first = body->first;
  if (first && first == body->last && first->kind == KILN_OP_BUILTIN_MODULE) {
    kiln_op_remove(first);
    return first;
  }
  return holder;
}

bool kiln_p_mixed_list(kiln_parser *p, kiln_p_ssa_uses *dyn, int64_t **stat,
                       uint32_t *n) {
  if (!kiln_p_expect(p, KILN_TOK_LSQUARE)) return false;
  int64_t *v = NULL;
  uint32_t cnt = 0, cap = 0;
  if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
    do {
      v = ir_grow(p->ctx, v, sizeof *v, &cap, cnt + 1);
      if (p->tok.kind == KILN_TOK_PERCENT_ID) {
        kiln_p_ssa_use o;
        if (!kiln_p_operand(p, &o)) return false;
        kiln_p_operands_push(p, dyn, o);
        v[cnt++] = KILN_DYNAMIC;
      } else if (!kiln_p_int(p, &v[cnt++])) {
        return false;
      }
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  }
  *stat = v;
  *n = cnt;
  return true;
}
