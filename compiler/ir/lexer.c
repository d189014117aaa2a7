/* Lexer for MLIR text: turns bytes into tokens on demand. Guarantees: never
 * reads past the buffer end (the buffer need not be NUL-terminated); bad
 * bytes become an ERROR token whose text is the offending character. */
#include "parse.h"

#include <ctype.h>
#include <stdlib.h>

kiln_loc ir_loc_of(kiln_parser *p, const char *ptr) {
  size_t off = (size_t)(ptr - p->buf);
  size_t lo = 0, hi = p->num_lines;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (p->line_starts[mid] <= off) lo = mid;
    else hi = mid;
  }
  kiln_loc l = {p->file, (uint32_t)lo + 1,
                (uint32_t)(off - p->line_starts[lo]) + 1, NULL};
  return l;
}

static bool id_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}

static bool suffix_char(char c) { /* after %, ^, #, !, @ */
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.' ||
         c == '-';
}

static void tok(kiln_parser *p, kiln_tok_kind k, const char *s, const char *e) {
  p->tok.kind = k;
  p->tok.start = s;
  p->tok.len = (size_t)(e - s);
  p->cur = e;
}

void ir_lex(kiln_parser *p) {
  const char *c = p->cur, *end = p->end;
  for (;;) { /* whitespace and // comments */
    while (c < end && (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r'))
      c++;
    if (c + 1 < end && c[0] == '/' && c[1] == '/') {
      while (c < end && *c != '\n') c++;
      continue;
    }
    break;
  }
  if (c >= end) {
    tok(p, KILN_TOK_EOF, end, end);
    return;
  }
  const char *s = c;
  switch (*c) {
  case '(': tok(p, KILN_TOK_LPAREN, s, c + 1); return;
  case ')': tok(p, KILN_TOK_RPAREN, s, c + 1); return;
  case '{':
    if (c + 1 < end && c[1] == '-' && c + 2 < end && c[2] == '#') {
      tok(p, KILN_TOK_FILE_META_BEGIN, s, c + 3);
      return;
    }
    tok(p, KILN_TOK_LBRACE, s, c + 1);
    return;
  case '}': tok(p, KILN_TOK_RBRACE, s, c + 1); return;
  case '[': tok(p, KILN_TOK_LSQUARE, s, c + 1); return;
  case ']': tok(p, KILN_TOK_RSQUARE, s, c + 1); return;
  case '<': tok(p, KILN_TOK_LESS, s, c + 1); return;
  case '>': tok(p, KILN_TOK_GREATER, s, c + 1); return;
  case ',': tok(p, KILN_TOK_COMMA, s, c + 1); return;
  case '=': tok(p, KILN_TOK_EQUAL, s, c + 1); return;
  case '?': tok(p, KILN_TOK_QUESTION, s, c + 1); return;
  case '*': tok(p, KILN_TOK_STAR, s, c + 1); return;
  case '+': tok(p, KILN_TOK_PLUS, s, c + 1); return;
  case ':':
    if (c + 1 < end && c[1] == ':') {
      tok(p, KILN_TOK_DCOLON, s, c + 2);
      return;
    }
    tok(p, KILN_TOK_COLON, s, c + 1);
    return;
  case '-':
    if (c + 1 < end && c[1] == '>') {
      tok(p, KILN_TOK_ARROW, s, c + 2);
      return;
    }
    tok(p, KILN_TOK_MINUS, s, c + 1);
    return;
  case '"': {
    c++;
    while (c < end && *c != '"') {
      if (*c == '\n') break;
      if (*c == '\\' && c + 1 < end) c++;
      c++;
    }
    if (c >= end || *c != '"') {
      tok(p, KILN_TOK_ERROR, s, s + 1);
      p->cur = s + 1;
      p->tok.len = 0; /* marks "unterminated string" */
      return;
    }
    tok(p, KILN_TOK_STRING, s, c + 1);
    return;
  }
  case '%': case '^': case '#': case '!': case '@': {
    kiln_tok_kind k = *c == '%' ? KILN_TOK_PERCENT_ID
                      : *c == '^' ? KILN_TOK_CARET_ID
                      : *c == '#' ? KILN_TOK_HASH_ID
                      : *c == '!' ? KILN_TOK_BANG_ID
                                  : KILN_TOK_AT_ID;
    c++;
    if (k == KILN_TOK_AT_ID && c < end && *c == '"') { /* @"quoted name" */
      c++;
      while (c < end && *c != '"' && *c != '\n') c++;
      if (c >= end || *c != '"') {
        tok(p, KILN_TOK_ERROR, s, s + 1);
        p->tok.len = 0;
        return;
      }
      tok(p, k, s, c + 1);
      return;
    }
    if (k == KILN_TOK_HASH_ID && c < end && *c == '-' && c + 1 < end &&
        c[1] == '}') {
      tok(p, KILN_TOK_FILE_META_END, s, c + 2);
      return;
    }
    const char *b = c;

    while (c < end && suffix_char(*c))
      c++;
    if (c == b) {
      if (k == KILN_TOK_HASH_ID) {
        tok(p, KILN_TOK_HASH, s, c);
        return;
      }
      tok(p, KILN_TOK_ERROR, s, s + 1);
      return;
    }
    tok(p, k, s, c);
    return;
  }
  default: break;
  }
  if (isdigit((unsigned char)*c)) {
    if (c + 1 < end && c[0] == '0' && c[1] == 'x' && c + 2 < end &&
        isxdigit((unsigned char)c[2])) {
      c += 2;
      while (c < end && isxdigit((unsigned char)*c)) c++;
      tok(p, KILN_TOK_INTEGER, s, c);
      return;
    }
    while (c < end && isdigit((unsigned char)*c)) c++;
    if (c < end && *c == '.') {
      c++;
      while (c < end && isdigit((unsigned char)*c)) c++;
      if (c < end && (*c == 'e' || *c == 'E')) {
        const char *e = c + 1;
        if (e < end && (*e == '+' || *e == '-')) e++;
        if (e < end && isdigit((unsigned char)*e)) {
          c = e;
          while (c < end && isdigit((unsigned char)*c)) c++;
        }
      }
      tok(p, KILN_TOK_FLOAT, s, c);
      return;
    }
    tok(p, KILN_TOK_INTEGER, s, c);
    return;
  }
  if (isalpha((unsigned char)*c) || *c == '_') {
    while (c < end && id_char(*c) && *c != '-') c++;
    tok(p, KILN_TOK_BARE_ID, s, c);
    return;
  }
  tok(p, KILN_TOK_ERROR, s, s + 1);
}
