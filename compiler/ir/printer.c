/* Printer: IR to MLIR text the way mlir-opt-19 prints it — affine-map
 * aliases (#map, #map1, ...) first, then the module; SSA names assigned
 * with MLIR's scheme (%0..., %argN, %cst, %c1_i32, %in, %out; per-region
 * counters restarted from the enclosing region's state; "_N" suffixes on
 * name clashes); floats in APFloat's spelling; custom syntax via the op
 * table's print hooks, the generic form otherwise.
 * Guarantees: print(parse(x)) is a fixpoint of kiln-opt. */
#include "dialects/dialects.h"
#include "ir_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

struct kiln_printer {
  kiln_context *ctx;
  ir_buf *out;
  int indent;
  unsigned flags;
  kiln_ptr_map names;      /* kiln_value* -> const char* ("%0", "%x#1") */
  kiln_ptr_map aliases;    /* const kiln_attr* (affine map) -> "#mapN" */
  uint32_t num_aliases;
  const kiln_attr **alias_order;
  uint32_t alias_cap;
  bool collecting;   /* dry run that numbers aliases in print order */
  const char *dialect_stack[256];
  int dialect_depth;
};

kiln_context *kiln_pr_ctx(kiln_printer *pr) { return pr->ctx; }
void kiln_pr_puts(kiln_printer *pr, const char *s) { ir_buf_puts(pr->out, s); }
void kiln_pr_printf(kiln_printer *pr, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ir_buf_vprintf(pr->out, fmt, ap);
  va_end(ap);
}
void kiln_pr_newline(kiln_printer *pr) {
  ir_buf_putc(pr->out, '\n');
  for (int i = 0; i < pr->indent; i++) ir_buf_putc(pr->out, ' ');
}
void kiln_pr_indent(kiln_printer *pr, int delta) { pr->indent += delta; }

/* ---- floats (APFloat::toString semantics) ---- */
/* Exact decimal conversion with a small bignum: |v| = N * 2^e2 becomes the
 * integer D = N * 5^-e2 (or N << e2) times 10^exp. Like APFloat, excess
 * low digits are first truncated by a bit-count estimate, then the digit
 * string is rounded half-up to `prec` significant digits. */
typedef struct {
  uint32_t l[120]; /* little-endian limbs: enough for 5^1126 * 2^53 */
  int n;
} bignum;

static void bn_mul_small(bignum *b, uint32_t m) {
  uint64_t carry = 0;
  for (int i = 0; i < b->n; i++) {
    uint64_t x = (uint64_t)b->l[i] * m + carry;
    b->l[i] = (uint32_t)x;
    carry = x >> 32;
  }
  if (carry && b->n < 120) b->l[b->n++] = (uint32_t)carry;
}

static uint32_t bn_div_small(bignum *b, uint32_t d) {
  uint64_t rem = 0;
  for (int i = b->n - 1; i >= 0; i--) {
    uint64_t x = (rem << 32) | b->l[i];
    b->l[i] = (uint32_t)(x / d);
    rem = x % d;
  }
  while (b->n && !b->l[b->n - 1]) b->n--;
  return (uint32_t)rem;
}

static unsigned bn_bits(const bignum *b) {
  if (!b->n) return 0;
  uint32_t top = b->l[b->n - 1];
  unsigned bits = 0;
  while (top) bits++, top >>= 1;
  return (unsigned)(b->n - 1) * 32 + bits;
}

/* Digits (most significant first, trailing zeros dropped) rounded to prec
 * significant digits; *e10 is the power of ten of the LAST digit. */
static int float_digits(double v, int pbits, int prec, char *out, int *e10) {
  int e;
  double m = frexp(fabs(v), &e);
  uint64_t n = (uint64_t)ldexp(m, pbits);
  int e2 = e - pbits;
  while (n && !(n & 1)) n >>= 1, e2++;
  bignum d = {{0}, 0};
  d.l[0] = (uint32_t)n;
  d.l[1] = (uint32_t)(n >> 32);
  d.n = d.l[1] ? 2 : 1;
  int exp = 0;
  if (e2 > 0) {
    for (int i = 0; i < e2; i++) bn_mul_small(&d, 2);
  } else {
    for (int i = 0; i < -e2; i++) bn_mul_small(&d, 5);
    exp = e2;
  }
  unsigned bits = bn_bits(&d), req = (unsigned)(prec * 196 + 58) / 59;
  if (bits > req) {
    unsigned t = (bits - req) * 59 / 196;
    exp += (int)t;
    for (unsigned i = 0; i < t; i++) bn_div_small(&d, 10);
  }
  char buf[1024]; /* least significant first */
  int nb = 0;
  bool trail = true;
  while (d.n && nb < 1000) {
    uint32_t dig = bn_div_small(&d, 10);
    if (trail && !dig) {
      exp++;
    } else {
      buf[nb++] = (char)('0' + dig);
      trail = false;
    }
  }
  if (!nb) buf[nb++] = '0';
  if (nb > prec) { /* round half-up at prec digits */
    int first = nb - prec;
    if (buf[first - 1] < '5') {
      while (first < nb && buf[first] == '0') first++;
    } else {
      int i = first;
      for (; i < nb; i++) {
        if (buf[i] == '9') first++;
        else {
          buf[i]++;
          break;
        }
      }
      if (first == nb) {
        exp += first;
        buf[0] = '1';
        nb = 1;
        first = 0;
      }
    }
    exp += first;
    memmove(buf, buf + first, (size_t)(nb - first));
    nb -= first;
  }
  for (int i = 0; i < nb; i++) out[i] = buf[nb - 1 - i];
  *e10 = exp;
  return nb;
}

static void format_float(char *out, size_t cap, double v, int pbits, int prec,
                         int maxpad, bool tz) {
  char dg[1024];
  int exp;
  int nd = float_digits(v, pbits, prec, dg, &exp); /* value = digits * 10^exp */
  ir_buf b = {0};
  if (signbit(v)) ir_buf_putc(&b, '-');
  int E = exp + nd - 1;
  bool sci;
  if (!maxpad) sci = true;
  else if (exp >= 0) sci = exp > maxpad || nd + exp > prec;
  else {
    int msd = exp + nd - 1;
    sci = msd >= 0 ? false : -msd > maxpad;
  }
  if (sci) {
    ir_buf_putc(&b, dg[0]);
    ir_buf_putc(&b, '.');
    if (nd == 1 && tz) ir_buf_putc(&b, '0');
    else ir_buf_put(&b, dg + 1, (size_t)nd - 1);
    if (!tz && prec > nd - 1)
      for (int i = 0; i < prec - nd + 1; i++) ir_buf_putc(&b, '0');
    ir_buf_putc(&b, tz ? 'E' : 'e');
    ir_buf_putc(&b, E >= 0 ? '+' : '-');
    ir_buf_printf(&b, tz ? "%d" : "%02d", E < 0 ? -E : E);
  } else if (exp >= 0) {
    ir_buf_put(&b, dg, (size_t)nd);
    for (int i = 0; i < exp; i++) ir_buf_putc(&b, '0');
  } else {
    int whole = exp + nd;
    if (whole > 0) {
      ir_buf_put(&b, dg, (size_t)whole);
      ir_buf_putc(&b, '.');
      ir_buf_put(&b, dg + whole, (size_t)(nd - whole));
    } else {
      ir_buf_puts(&b, "0.");
      for (int i = 0; i < -whole; i++) ir_buf_putc(&b, '0');
      ir_buf_put(&b, dg, (size_t)nd);
    }
  }
  snprintf(out, cap, "%s", b.data ? b.data : "0");
  ir_buf_free(&b);
}

static bool same_in_type(const kiln_type *t, double a, const char *s) {
  double back;
  if (t->kind == KILN_TYPE_F32) back = strtof(s, NULL);
  else back = kiln_float_round(t, strtod(s, NULL));
  return ir_float_bits(t, a) == ir_float_bits(t, back);
}

void ir_print_float(ir_buf *b, const kiln_type *t, double v) {
  if (isfinite(v)) {
    char s[128];
    if (v == 0) {
      ir_buf_puts(b, signbit(v) ? "-0.000000e+00" : "0.000000e+00");
      return;
    }
    int pb = ir_float_precision_bits(t);
    format_float(s, sizeof s, v, pb, 6, 0, false);
    if (same_in_type(t, v, s)) {
      ir_buf_puts(b, s);
      return;
    }
    format_float(s, sizeof s, v, pb, 2 + pb * 59 / 196, 3, true);
    if (strchr(s, '.')) {
      ir_buf_puts(b, s);
      return;
    }
  }
  ir_buf_printf(b, "0x%llX", (unsigned long long)ir_float_bits(t, v));
}

/* ---- types ---- */
static void print_attr(kiln_printer *pr, const kiln_attr *a, bool with_type);
static void print_attr_may(kiln_printer *pr, const kiln_attr *a);

static void print_dims(ir_buf *b, const kiln_type *t) {
  for (uint32_t i = 0; i < t->rank; i++) {
    if (t->shape[i] == KILN_DYNAMIC) ir_buf_puts(b, "?x");
    else ir_buf_printf(b, "%lldx", (long long)t->shape[i]);
  }
}

void ir_print_type(kiln_printer *pr, const kiln_type *t) {
  ir_buf *b = pr->out;
  switch (t->kind) {
  case KILN_TYPE_INTEGER:
    ir_buf_printf(b, "%si%u",
                  t->sign == KILN_SIGNED ? "s" : t->sign == KILN_UNSIGNED ? "u" : "",
                  t->width);
    return;
  case KILN_TYPE_INDEX: ir_buf_puts(b, "index"); return;
  case KILN_TYPE_F16: ir_buf_puts(b, "f16"); return;
  case KILN_TYPE_BF16: ir_buf_puts(b, "bf16"); return;
  case KILN_TYPE_F32: ir_buf_puts(b, "f32"); return;
  case KILN_TYPE_F64: ir_buf_puts(b, "f64"); return;
  case KILN_TYPE_NONE: ir_buf_puts(b, "none"); return;
  case KILN_TYPE_TENSOR:
  case KILN_TYPE_VECTOR:
  case KILN_TYPE_MEMREF:
    ir_buf_puts(b, t->kind == KILN_TYPE_TENSOR   ? "tensor<"
                   : t->kind == KILN_TYPE_VECTOR ? "vector<"
                                                 : "memref<");
    print_dims(b, t);
    ir_print_type(pr, t->elem);
    if (t->layout) {
      ir_buf_puts(b, ", ");
      print_attr(pr, t->layout, true);
    }
    if (t->memspace) {
      ir_buf_puts(b, ", ");
      print_attr_may(pr, t->memspace);
    }
    ir_buf_putc(b, '>');
    return;
  case KILN_TYPE_UNRANKED_TENSOR:
  case KILN_TYPE_UNRANKED_MEMREF:
    ir_buf_puts(b, t->kind == KILN_TYPE_UNRANKED_TENSOR ? "tensor<*x" : "memref<*x");
    ir_print_type(pr, t->elem);
    if (t->memspace) {
      ir_buf_puts(b, ", ");
      print_attr_may(pr, t->memspace);
    }
    ir_buf_putc(b, '>');
    return;
  case KILN_TYPE_FUNCTION: {
    ir_buf_putc(b, '(');
    for (uint32_t i = 0; i < t->num_inputs; i++) {
      if (i) ir_buf_puts(b, ", ");
      ir_print_type(pr, t->types[i]);
    }
    ir_buf_puts(b, ") -> ");
    bool paren = t->num_results != 1 ||
                 t->types[t->num_inputs]->kind == KILN_TYPE_FUNCTION;
    if (paren) ir_buf_putc(b, '(');
    for (uint32_t i = 0; i < t->num_results; i++) {
      if (i) ir_buf_puts(b, ", ");
      ir_print_type(pr, t->types[t->num_inputs + i]);
    }
    if (paren) ir_buf_putc(b, ')');
    return;
  }
  case KILN_TYPE_TUPLE:
    ir_buf_puts(b, "tuple<");
    for (uint32_t i = 0; i < t->num_inputs; i++) {
      if (i) ir_buf_puts(b, ", ");
      ir_print_type(pr, t->types[i]);
    }
    ir_buf_putc(b, '>');
    return;
  case KILN_TYPE_OPAQUE:
    ir_buf_printf(b, "!%s.%s", t->dialect, t->body);
    return;
  }
}

/* ---- attributes ---- */
static bool is_bare_id(const char *s, size_t n) {
  if (!n || !(isalpha((unsigned char)s[0]) || s[0] == '_')) return false;
  for (size_t i = 1; i < n; i++)
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$' || s[i] == '.'))
      return false;
  return true;
}

static void print_escaped(ir_buf *b, const char *s, size_t n) {
  ir_buf_putc(b, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '\\') ir_buf_puts(b, "\\\\");
    else if (c >= 32 && c < 127 && c != '"') ir_buf_putc(b, (char)c);
    else ir_buf_printf(b, "\\%02X", c);
  }
  ir_buf_putc(b, '"');
}

static void print_symbol(ir_buf *b, const char *s, size_t n) {
  ir_buf_putc(b, '@');
  if (is_bare_id(s, n) || (n && isdigit((unsigned char)s[0]) && 0)) ir_buf_put(b, s, n);
  else print_escaped(b, s, n);
}

static void print_dense_elem(kiln_printer *pr, const kiln_attr *a, int64_t i) {
  const kiln_type *e = a->type->elem;
  if (kiln_type_is_float(e)) {
    ir_print_float(pr->out, e, kiln_dense_get_float(a, i));
  } else if (e->kind == KILN_TYPE_INTEGER && e->width == 1) {
    ir_buf_puts(pr->out, kiln_dense_get_int(a, i) ? "true" : "false");
  } else if (e->kind == KILN_TYPE_INTEGER && e->sign == KILN_UNSIGNED) {
    ir_buf_printf(pr->out, "%llu", (unsigned long long)kiln_dense_get_int(a, i));
  } else {
    ir_buf_printf(pr->out, "%lld", (long long)kiln_dense_get_int(a, i));
  }
}

static void print_dense_dim(kiln_printer *pr, const kiln_attr *a, uint32_t dim,
                            int64_t *idx) {
  const kiln_type *t = a->type;
  ir_buf_putc(pr->out, '[');
  for (int64_t i = 0; i < t->shape[dim]; i++) {
    if (i) ir_buf_puts(pr->out, ", ");
    if (dim + 1 == t->rank) print_dense_elem(pr, a, (*idx)++);
    else print_dense_dim(pr, a, dim + 1, idx);
  }
  ir_buf_putc(pr->out, ']');
}

/* MLIR's AttrTypeElision::May: i64 integers and f64 floats drop ": type"
 * (array elements, memory spaces). */
static void print_attr_may(kiln_printer *pr, const kiln_attr *a) {
  bool elide = (a->kind == KILN_ATTR_INTEGER && a->type->kind == KILN_TYPE_INTEGER &&
                a->type->width == 64 && a->type->sign == KILN_SIGNLESS) ||
               (a->kind == KILN_ATTR_FLOAT && a->type->kind == KILN_TYPE_F64);
  print_attr(pr, a, !elide);
}

static void note_alias(kiln_printer *pr, const kiln_attr *a) {
  if (kiln_ptr_map_get(&pr->aliases, a)) return;
  char name[32];
  if (pr->num_aliases) snprintf(name, sizeof name, "#map%u", pr->num_aliases);
  else snprintf(name, sizeof name, "#map");
  ir_map_put(&pr->aliases, a, (void *)kiln_intern_cstr(pr->ctx, name));
  pr->alias_order = ir_grow(pr->ctx, pr->alias_order, sizeof(void *),
                            &pr->alias_cap, pr->num_aliases + 1);
  pr->alias_order[pr->num_aliases++] = a;
}

static void print_attr(kiln_printer *pr, const kiln_attr *a, bool with_type) {
  ir_buf *b = pr->out;
  switch (a->kind) {
  case KILN_ATTR_UNIT: ir_buf_puts(b, "unit"); return;
  case KILN_ATTR_BOOL: ir_buf_puts(b, a->i ? "true" : "false"); return;
  case KILN_ATTR_INTEGER:
    if (a->type->kind == KILN_TYPE_INTEGER && a->type->sign == KILN_UNSIGNED)
      ir_buf_printf(b, "%llu", (unsigned long long)a->i);
    else
      ir_buf_printf(b, "%lld", (long long)a->i);
    if (with_type) {
      ir_buf_puts(b, " : ");
      ir_print_type(pr, a->type);
    }
    return;
  case KILN_ATTR_FLOAT:
    ir_print_float(b, a->type, a->f);
    if (with_type) {
      ir_buf_puts(b, " : ");
      ir_print_type(pr, a->type);
    }
    return;
  case KILN_ATTR_STRING: print_escaped(b, a->str, a->len); return;
  case KILN_ATTR_TYPE: ir_print_type(pr, a->type); return;
  case KILN_ATTR_ARRAY:
    ir_buf_putc(b, '[');
    for (uint32_t i = 0; i < a->count; i++) {
      if (i) ir_buf_puts(b, ", ");
      print_attr_may(pr, a->elems[i]);
    }
    ir_buf_putc(b, ']');
    return;
  case KILN_ATTR_DICT:
    ir_buf_putc(b, '{');
    kiln_pr_dict_entries(pr, a, NULL);
    ir_buf_putc(b, '}');
    return;
  case KILN_ATTR_DENSE:
    ir_buf_puts(b, "dense<");
    if (!a->splat && kiln_type_num_elements(a->type) > 100) {
      /* mlir-opt prints more than 100 elements as raw hex data */
      static const char hex[] = "0123456789ABCDEF";
      ir_buf_puts(b, "\"0x");
      const unsigned char *d = a->data;
      const kiln_type *e = a->type->elem;
      if (e->kind == KILN_TYPE_INTEGER && e->width == 1) { /* packed bits */
        int64_t n = kiln_type_num_elements(a->type);
        for (int64_t i = 0; i < n; i += 8) {
          unsigned v = 0;
          for (int64_t j = 0; j < 8 && i + j < n; j++) v |= (d[i + j] & 1u) << j;
          ir_buf_putc(b, hex[v >> 4]);
          ir_buf_putc(b, hex[v & 15]);
        }
      } else {
        for (size_t i = 0; i < a->nbytes; i++) {
          ir_buf_putc(b, hex[d[i] >> 4]);
          ir_buf_putc(b, hex[d[i] & 15]);
        }
      }
      ir_buf_putc(b, '"');
    } else if (kiln_type_num_elements(a->type) == 0) {
      /* dense<> */
    } else if (a->splat) print_dense_elem(pr, a, 0);
    else if (a->type->rank == 0) print_dense_elem(pr, a, 0);
    else {
      int64_t idx = 0;
      print_dense_dim(pr, a, 0, &idx);
    }
    ir_buf_putc(b, '>');
    if (with_type) {
      ir_buf_puts(b, " : ");
      ir_print_type(pr, a->type);
    }
    return;
  case KILN_ATTR_DENSE_ARRAY: {
    ir_buf_puts(b, "array<");
    ir_print_type(pr, a->type);
    bool isf = kiln_type_is_float(a->type);
    bool isb = a->type->kind == KILN_TYPE_INTEGER && a->type->width == 1;
    for (uint32_t i = 0; i < a->count; i++) {
      ir_buf_puts(b, i ? ", " : ": ");
      if (isf) ir_print_float(b, a->type, ((const double *)a->data)[i]);
      else if (isb) ir_buf_puts(b, ((const int64_t *)a->data)[i] ? "true" : "false");
      else ir_buf_printf(b, "%lld", (long long)((const int64_t *)a->data)[i]);
    }
    ir_buf_putc(b, '>');
    return;
  }
  case KILN_ATTR_AFFINE_MAP: {
    if (pr->collecting) note_alias(pr, a);
    const char *alias = kiln_ptr_map_get(&pr->aliases, a);
    if (alias && !pr->collecting && !(pr->flags & 0x100)) {
      ir_buf_puts(b, alias);
      return;
    }
    ir_buf_puts(b, "affine_map<");
    ir_print_affine_map(b, a->map);
    ir_buf_putc(b, '>');
    return;
  }
  case KILN_ATTR_SYMBOL_REF:
    print_symbol(b, a->str, a->len);
    for (uint32_t i = 0; i < a->count; i++) {
      ir_buf_puts(b, "::");
      print_symbol(b, a->elems[i]->str, a->elems[i]->len);
    }
    return;
  case KILN_ATTR_STRIDED: {
    ir_buf_puts(b, "strided<[");
    const int64_t *s = a->data;
    for (uint32_t i = 0; i < a->count; i++) {
      if (i) ir_buf_puts(b, ", ");
      if (s[i] == KILN_DYNAMIC) ir_buf_putc(b, '?');
      else ir_buf_printf(b, "%lld", (long long)s[i]);
    }
    ir_buf_putc(b, ']');
    if (a->i == KILN_DYNAMIC) ir_buf_puts(b, ", offset: ?");
    else if (a->i) ir_buf_printf(b, ", offset: %lld", (long long)a->i);
    ir_buf_putc(b, '>');
    return;
  }
  case KILN_ATTR_OPAQUE:
    ir_buf_printf(b, "#%s.%s", a->dialect, a->str);
    return;
  }
}

void ir_print_attr(kiln_printer *pr, const kiln_attr *a, bool with_type) {
  print_attr(pr, a, with_type);
}

void kiln_pr_dict_entries(kiln_printer *pr, const kiln_attr *dict,
                          const char *const *elide) {
  bool first = true;
  for (uint32_t i = 0; i < dict->count; i++) {
    const kiln_named_attr *e = &dict->entries[i];
    bool skip = false;
    for (const char *const *x = elide; x && *x && !skip; x++)
      skip = strcmp(*x, e->name) == 0;
    if (skip) continue;
    if (!first) ir_buf_puts(pr->out, ", ");
    first = false;
    if (is_bare_id(e->name, strlen(e->name))) ir_buf_puts(pr->out, e->name);
    else print_escaped(pr->out, e->name, strlen(e->name));
    if (e->value->kind != KILN_ATTR_UNIT) {
      ir_buf_puts(pr->out, " = ");
      print_attr(pr, e->value, true);
    }
  }
}

void kiln_pr_attr_dict(kiln_printer *pr, const kiln_op *op,
                       const char *const *elide, bool with_keyword) {
  uint32_t shown = 0;
  for (uint32_t i = 0; i < op->attrs->count; i++) {
    bool skip = false;
    for (const char *const *x = elide; x && *x && !skip; x++)
      skip = strcmp(*x, op->attrs->entries[i].name) == 0;
    shown += !skip;
  }
  if (!shown) return;
  ir_buf_puts(pr->out, with_keyword ? " attributes {" : " {");
  kiln_pr_dict_entries(pr, op->attrs, elide);
  ir_buf_putc(pr->out, '}');
}

void kiln_pr_type(kiln_printer *pr, const kiln_type *t) { ir_print_type(pr, t); }
void kiln_pr_attr(kiln_printer *pr, const kiln_attr *a) { print_attr(pr, a, true); }
void kiln_pr_attr_bare(kiln_printer *pr, const kiln_attr *a) {
  print_attr(pr, a, false);
}

/* ---- SSA names ---- */
typedef struct name_state {
  uint32_t next_value, next_arg, next_conflict;
  kiln_ptr_map *used; /* interned name -> (void*)1, chained via parent */
  struct name_state *parent;
} name_state;

static bool name_used(name_state *s, const char *name) {
  for (; s; s = s->parent)
    if (s->used && kiln_ptr_map_get(s->used, name)) return true;
  return false;
}

static const char *unique_name(kiln_printer *pr, name_state *s, const char *base) {
  char buf[256];
  size_t n = 0;
  /* sanitize: keep [a-zA-Z0-9_$.-], prefix '_' before a digit */
  if (isdigit((unsigned char)base[0])) buf[n++] = '_';
  for (const char *c = base; *c && n < 200; c++)
    buf[n++] = (isalnum((unsigned char)*c) || strchr("_$.-", *c)) ? *c : '_';
  buf[n] = 0;
  const char *name = kiln_intern_cstr(pr->ctx, buf);
  if (name_used(s, name)) {
    for (;;) {
      snprintf(buf + n, sizeof buf - n, "_%u", s->next_conflict++);
      name = kiln_intern_cstr(pr->ctx, buf);
      if (!name_used(s, name)) break;
    }
  }
  ir_map_put(s->used, name, (void *)1);
  return name;
}

static void set_name(kiln_printer *pr, name_state *s, const kiln_value *v,
                     const char *base) {
  char buf[300];
  if (base) snprintf(buf, sizeof buf, "%%%s", unique_name(pr, s, base));
  else snprintf(buf, sizeof buf, "%%%u", s->next_value++);
  ir_map_put(&pr->names, v, (void *)kiln_intern_cstr(pr->ctx, buf));
}

/* Name suggested by the op for result 0 (arith.constant spells values). */
static const char *result_name(kiln_printer *pr, const kiln_op *op, char *buf,
                               size_t cap) {
  if (op->kind == KILN_OP_ARITH_CONSTANT) {
    const kiln_attr *v = kiln_op_get_attr(op, "value");
    if (v && v->kind == KILN_ATTR_BOOL) return v->i ? "true" : "false";
    if (v && v->kind == KILN_ATTR_INTEGER) {
      if (v->type->kind == KILN_TYPE_INDEX) {
        snprintf(buf, cap, "c%lld", (long long)v->i);
      } else {
        char *ts = kiln_type_to_string(v->type);
        snprintf(buf, cap, "c%lld_%s", (long long)v->i, ts);
        free(ts);
      }
      return buf;
    }
    return "cst";
  }
  (void)pr;
  return op->info->result_name;
}

static void number_region(kiln_printer *pr, const kiln_region *r,
                          name_state *parent);

static void number_block_list(kiln_printer *pr, const kiln_region *r,
                              name_state *s) {
  const kiln_op *owner = r->parent;
  for (const kiln_block *b = r->first; b; b = b->next) {
    bool entry = b == r->first;
    for (uint32_t i = 0; i < b->num_args; i++) {
      const char *hint = NULL;
      if (entry && owner && !(pr->flags & KILN_PRINT_GENERIC))
        hint = ir_block_arg_name(owner, (uint32_t)(r - owner->regions), i);
      if (hint) {
        set_name(pr, s, b->args[i], hint);
      } else if (entry) {
        char buf[32];
        snprintf(buf, sizeof buf, "%%arg%u", s->next_arg++);
        ir_map_put(&pr->names, b->args[i], (void *)kiln_intern_cstr(pr->ctx, buf));
      } else {
        set_name(pr, s, b->args[i], NULL);
      }
    }
    for (const kiln_op *op = b->first; op; op = op->next) {
      if (!op->num_results) continue;
      char buf[128];
      const char *hint = (pr->flags & KILN_PRINT_GENERIC)
                             ? NULL
                             : result_name(pr, op, buf, sizeof buf);
      char base[300];
      if (hint) snprintf(base, sizeof base, "%%%s", unique_name(pr, s, hint));
      else snprintf(base, sizeof base, "%%%u", s->next_value++);
      if (op->num_results == 1) {
        ir_map_put(&pr->names, &op->results[0], (void *)kiln_intern_cstr(pr->ctx, base));
      } else {
        for (uint32_t i = 0; i < op->num_results; i++) {
          char full[320];
          snprintf(full, sizeof full, "%s#%u", base, i);
          ir_map_put(&pr->names, &op->results[i], (void *)kiln_intern_cstr(pr->ctx, full));
        }
      }
    }
  }
  /* Nested regions start from this region's final counters. */
  for (const kiln_block *b = r->first; b; b = b->next)
    for (const kiln_op *op = b->first; op; op = op->next)
      for (uint32_t i = 0; i < op->num_regions; i++)
        number_region(pr, &op->regions[i], s);
}

static void number_region(kiln_printer *pr, const kiln_region *r,
                          name_state *parent) {
  kiln_ptr_map used = {0};
  name_state s = {parent->next_value, parent->next_arg, parent->next_conflict,
                  &used, parent};
  number_block_list(pr, r, &s);
  kiln_ptr_map_free(&used);
}

void kiln_pr_value(kiln_printer *pr, const kiln_value *v) {
  const char *n = kiln_ptr_map_get(&pr->names, v);
  ir_buf_puts(pr->out, n ? n : "%<<UNKNOWN SSA VALUE>>");
}

void kiln_pr_operands(kiln_printer *pr, const kiln_op *op, uint32_t from,
                      uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    if (i) ir_buf_puts(pr->out, ", ");
    kiln_pr_value(pr, op->operands[from + i].value);
  }
}

void kiln_pr_operand_types(kiln_printer *pr, const kiln_op *op, uint32_t from,
                           uint32_t count) {
  for (uint32_t i = 0; i < count; i++) {
    if (i) ir_buf_puts(pr->out, ", ");
    const kiln_value *v = op->operands[from + i].value;
    ir_print_type(pr, v ? v->type : pr->ctx->t_none);
  }
}

void kiln_pr_result_types(kiln_printer *pr, const kiln_op *op) {
  bool paren = op->num_results != 1 ||
               op->results[0].type->kind == KILN_TYPE_FUNCTION;
  if (paren) ir_buf_putc(pr->out, '(');
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (i) ir_buf_puts(pr->out, ", ");
    ir_print_type(pr, op->results[i].type);
  }
  if (paren) ir_buf_putc(pr->out, ')');
}

void kiln_pr_block_arg(kiln_printer *pr, const kiln_value *v) {
  kiln_pr_value(pr, v);
  ir_buf_puts(pr->out, ": ");
  ir_print_type(pr, v->type);
}

void kiln_pr_successor(kiln_printer *pr, const kiln_block *b) {
  uint32_t idx = 0;
  if (b->parent)
    for (const kiln_block *x = b->parent->first; x && x != b; x = x->next) idx++;
  ir_buf_printf(pr->out, "^bb%u", idx);
}

void kiln_pr_mixed_list(kiln_printer *pr, const kiln_op *op,
                        const kiln_attr *stat, uint32_t *next_dyn) {
  ir_buf_putc(pr->out, '[');
  if (stat && stat->kind != KILN_ATTR_DENSE_ARRAY) stat = NULL;
  uint32_t n = stat ? stat->count : 0;
  const int64_t *v = stat ? stat->data : NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (i) ir_buf_puts(pr->out, ", ");
    if (v[i] == KILN_DYNAMIC) {
      if (*next_dyn < op->num_operands) kiln_pr_value(pr, op->operands[(*next_dyn)++].value);
      else ir_buf_puts(pr->out, "<<missing>>");
    } else {
      ir_buf_printf(pr->out, "%lld", (long long)v[i]);
    }
  }
  ir_buf_putc(pr->out, ']');
}

void kiln_pr_fastmath(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *fm = kiln_op_get_attr(op, "fastmath");
  if (!fm || fm->kind != KILN_ATTR_OPAQUE) return;
  const char *body = fm->str;
  if (strncmp(body, "fastmath", 8) == 0) body += 8;
  if (strcmp(body, "<none>") == 0) return;
  ir_buf_printf(pr->out, " fastmath%s", body);
}

const char *kiln_pr_op_name(kiln_printer *pr, const kiln_op *op) {
  const char *dd = pr->dialect_stack[pr->dialect_depth];
  size_t n = dd ? strlen(dd) : 0;
  if (n && strncmp(op->name, dd, n) == 0 && op->name[n] == '.')
    return op->name + n + 1;
  return op->name;
}

/* ---- operations ---- */
static void print_op(kiln_printer *pr, const kiln_op *op);

static void print_block(kiln_printer *pr, const kiln_block *b, bool label,
                        bool print_empty_term) {
  if (label) {
    const kiln_region *r = b->parent;
    uint32_t idx = 0;
    for (const kiln_block *x = r->first; x && x != b; x = x->next) idx++;
    kiln_pr_indent(pr, -2);
    kiln_pr_newline(pr);
    kiln_pr_indent(pr, 2);
    ir_buf_printf(pr->out, "^bb%u", idx);
    if (b->num_args) {
      ir_buf_putc(pr->out, '(');
      for (uint32_t i = 0; i < b->num_args; i++) {
        if (i) ir_buf_puts(pr->out, ", ");
        kiln_pr_block_arg(pr, b->args[i]);
      }
      ir_buf_putc(pr->out, ')');
    }
    ir_buf_putc(pr->out, ':');
    /* mlir-opt's predecessor comment: every successor edge in the region
     * that targets b, ordered by block position. */
    /* One entry per edge: a block reached twice from ^bb0 has
     * "2 preds: ^bb0, ^bb0", as in mlir-opt. */
    uint32_t npred = 0, pred[64];
    uint32_t bi = 0;
    for (const kiln_block *x = r->first; x; x = x->next, bi++)
      for (const kiln_op *o = x->first; o; o = o->next)
        for (uint32_t s = 0; s < o->num_successors; s++)
          if (o->successors[s] == b) {
            if (npred < 64) pred[npred] = bi;
            npred++;
          }
    if (!npred) {
      if (b != r->first) ir_buf_puts(pr->out, "  // no predecessors");
    } else if (npred == 1) {
      ir_buf_printf(pr->out, "  // pred: ^bb%u", pred[0]);
    } else {
      ir_buf_printf(pr->out, "  // %u preds: ", npred);
      for (uint32_t i = 0; i < npred && i < 64; i++)
        ir_buf_printf(pr->out, "%s^bb%u", i ? ", " : "", pred[i]);
    }
  }
  for (const kiln_op *op = b->first; op; op = op->next) {
    if (!print_empty_term && op == b->last &&
        (op->info->flags & KILN_OPF_TERMINATOR) && !op->num_operands &&
        !op->attrs->count && !op->num_results)
      continue;
    kiln_pr_newline(pr);
    print_op(pr, op);
  }
}

static void push_dialect(kiln_printer *pr, const kiln_op *owner) {
  /* Region-holding ops reset the default dialect, except func.func, whose
   * body prints func ops without prefix ("return", "call"), and
   * builtin.module, whose body prints "module" for nested modules. */
  const char *dd = owner->kind == KILN_OP_FUNC_FUNC        ? "func"
                   : owner->kind == KILN_OP_BUILTIN_MODULE ? "builtin"
                                                           : "";
  if (pr->dialect_depth < 255) pr->dialect_stack[++pr->dialect_depth] = dd;
}

void kiln_pr_region(kiln_printer *pr, const kiln_region *r,
                    bool print_entry_args, bool print_empty_term) {
  ir_buf_putc(pr->out, '{');
  push_dialect(pr, r->parent);
  kiln_pr_indent(pr, 2);
  for (const kiln_block *b = r->first; b; b = b->next) {
    bool label = b != r->first || (print_entry_args && b->num_args);
    print_block(pr, b, label, print_empty_term || (r->first != r->last));
  }
  kiln_pr_indent(pr, -2);
  pr->dialect_depth--;
  kiln_pr_newline(pr);
  ir_buf_putc(pr->out, '}');
}

static void print_generic(kiln_printer *pr, const kiln_op *op) {
  ir_buf *b = pr->out;
  print_escaped(b, op->name, strlen(op->name));
  ir_buf_putc(b, '(');
  kiln_pr_operands(pr, op, 0, op->num_operands);
  ir_buf_putc(b, ')');
  if (op->num_successors) {
    ir_buf_puts(b, "[");
    for (uint32_t i = 0; i < op->num_successors; i++) {
      if (i) ir_buf_puts(b, ", ");
      kiln_pr_successor(pr, op->successors[i]);
    }
    ir_buf_puts(b, "]");
  }
  if (op->num_regions) {
    ir_buf_puts(b, " (");
    for (uint32_t i = 0; i < op->num_regions; i++) {
      if (i) ir_buf_puts(b, ", ");
      kiln_pr_region(pr, &op->regions[i], true, true);
    }
    ir_buf_putc(b, ')');
  }
  kiln_pr_attr_dict(pr, op, NULL, false);
  ir_buf_puts(b, " : (");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
  ir_buf_puts(b, ") -> ");
  kiln_pr_result_types(pr, op);
}

/* Custom printers index operands, results and regions by the op table's
 * arity; unverified IR (kiln-opt --no-verify) that breaks it prints in the
 * generic form instead. */
static bool fits_table(const kiln_op *op) {
  const kiln_op_info *i = op->info;
  if ((int64_t)op->num_operands < i->min_operands ||
      (i->max_operands >= 0 && (int64_t)op->num_operands > i->max_operands) ||
      (int64_t)op->num_results < i->min_results ||
      (i->max_results >= 0 && (int64_t)op->num_results > i->max_results) ||
      (int64_t)op->num_regions < i->min_regions ||
      (i->max_regions >= 0 && (int64_t)op->num_regions > i->max_regions))
    return false;
  for (uint32_t k = 0; k < op->num_operands; k++)
    if (!op->operands[k].value) return false;
  return true;
}

/* KILN_PRINT_LOCATIONS: an op's source nodes as a trailing
 * loc(fused["NAME (KIND)", ...]) (loc("...") for one), which the parser
 * reads back into loc.nodes, so node names survive --compile-to=STAGE
 * text compiled again. Ops without nodes print no location. */
static void print_nodes_loc(kiln_printer *pr, const kiln_op *op) {
  const char *n = op->loc.nodes;
  if (!(pr->flags & KILN_PRINT_LOCATIONS) || !n || !*n) return;
  const bool many = strchr(n, '\n') != NULL;
  ir_buf_puts(pr->out, many ? " loc(fused[" : " loc(");
  for (bool first = true; *n; first = false) {
    const char *e = strchr(n, '\n');
    const size_t len = e ? (size_t)(e - n) : strlen(n);
    if (!first) ir_buf_puts(pr->out, ", ");
    print_escaped(pr->out, n, len);
    n += len + (e != NULL);
  }
  ir_buf_puts(pr->out, many ? "])" : ")");
}

static void print_op(kiln_printer *pr, const kiln_op *op) {
  if (op->num_results) {
    const char *n = kiln_ptr_map_get(&pr->names, &op->results[0]);
    if (!n) n = "%<<UNKNOWN SSA VALUE>>";
    if (op->num_results == 1) {
      ir_buf_puts(pr->out, n);
    } else {
      const char *hash = strrchr(n, '#');
      ir_buf_put(pr->out, n, hash ? (size_t)(hash - n) : strlen(n));
      ir_buf_printf(pr->out, ":%u", op->num_results);
    }
    ir_buf_puts(pr->out, " = ");
  }
  if ((pr->flags & KILN_PRINT_GENERIC) || !op->info->print || !fits_table(op)) {
    print_generic(pr, op);
  } else {
    ir_buf_puts(pr->out, kiln_pr_op_name(pr, op));
    op->info->print(pr, op);
  }
  print_nodes_loc(pr, op);
}

/* Generic form: MLIR prints unique SSA ids there — counters are never
 * restored, and regions are numbered from a LIFO worklist (children pushed
 * in op order, so the last sibling region is numbered first). */
static void number_generic(kiln_printer *pr, const kiln_op *top, name_state *s) {
  size_t cap = 64, n = 0;
  const kiln_region **stack = malloc(cap * sizeof *stack);
  if (!stack) return;
  for (uint32_t i = 0; i < top->num_regions; i++) stack[n++] = &top->regions[i];
  while (n) {
    const kiln_region *r = stack[--n];
    for (const kiln_block *b = r->first; b; b = b->next) {
      for (uint32_t i = 0; i < b->num_args; i++) {
        char buf[32];
        if (b == r->first) {
          snprintf(buf, sizeof buf, "%%arg%u", s->next_arg++);
          ir_map_put(&pr->names, b->args[i], (void *)kiln_intern_cstr(pr->ctx, buf));
        } else {
          set_name(pr, s, b->args[i], NULL);
        }
      }
      for (const kiln_op *op = b->first; op; op = op->next) {
        if (!op->num_results) continue;
        uint32_t id = s->next_value++;
        for (uint32_t i = 0; i < op->num_results; i++) {
          char full[48];
          if (op->num_results == 1) snprintf(full, sizeof full, "%%%u", id);
          else snprintf(full, sizeof full, "%%%u#%u", id, i);
          ir_map_put(&pr->names, &op->results[i], (void *)kiln_intern_cstr(pr->ctx, full));
        }
      }
    }
    for (const kiln_block *b = r->first; b; b = b->next)
      for (const kiln_op *op = b->first; op; op = op->next)
        for (uint32_t i = 0; i < op->num_regions; i++) {
          if (n == cap) {
            cap *= 2;
            const kiln_region **ns = realloc(stack, cap * sizeof *ns);
            if (!ns) {
              free(stack);
              return;
            }
            stack = ns;
          }
          stack[n++] = &op->regions[i];
        }
  }
  free(stack);
}

static void print_top(kiln_printer *pr, const kiln_op *op) {
  name_state root = {0, 0, 0, NULL, NULL};
  kiln_ptr_map used = {0};
  root.used = &used;
  /* The top op's own results, then its regions. */
  if (op->num_results) {
    for (uint32_t i = 0; i < op->num_results; i++) set_name(pr, &root, &op->results[i], NULL);
  }
  if (pr->flags & KILN_PRINT_GENERIC)
    number_generic(pr, op, &root);
  else
    for (uint32_t i = 0; i < op->num_regions; i++) number_region(pr, &op->regions[i], &root);
  kiln_ptr_map_free(&used);
  /* Dry run to number aliases in print order, then the real output. */
  ir_buf scratch = {0};
  pr->out = &scratch;
  pr->collecting = true;
  if (!(pr->flags & KILN_PRINT_GENERIC) || 1) print_op(pr, op);
  pr->collecting = false;
  ir_buf_free(&scratch);
}

static void printer_init(kiln_printer *pr, kiln_context *ctx, unsigned flags) {
  memset(pr, 0, sizeof *pr);
  pr->ctx = ctx;
  pr->flags = flags;
  pr->dialect_stack[0] = "builtin";
}

char *kiln_print_op_to_string(const kiln_op *op, unsigned flags) {
  kiln_printer pr;
  printer_init(&pr, kiln_op_context(op), flags);
  print_top(&pr, op);
  ir_buf out = {0};
  pr.out = &out;
  for (uint32_t i = 0; i < pr.num_aliases; i++) {
    ir_buf_printf(&out, "%s = affine_map<",
                  (const char *)kiln_ptr_map_get(&pr.aliases, pr.alias_order[i]));
    ir_print_affine_map(&out, pr.alias_order[i]->map);
    ir_buf_puts(&out, ">\n");
  }
  print_op(&pr, op);
  /* mlir-opt ends its output with an empty line */
  ir_buf_puts(&out, op->kind == KILN_OP_BUILTIN_MODULE ? "\n\n" : "\n");
  kiln_ptr_map_free(&pr.names);
  kiln_ptr_map_free(&pr.aliases);
  return ir_buf_take(&out);
}

void kiln_print_op(FILE *out, const kiln_op *op, unsigned flags) {
  char *s = kiln_print_op_to_string(op, flags);
  fputs(s, out);
  free(s);
}

char *kiln_type_to_string(const kiln_type *t) {
  kiln_printer pr;
  memset(&pr, 0, sizeof pr);
  pr.flags = 0x100; /* no aliases */
  ir_buf out = {0};
  pr.out = &out;
  ir_print_type(&pr, t);
  return ir_buf_take(&out);
}

char *kiln_attr_to_string(const kiln_attr *a) {
  kiln_printer pr;
  memset(&pr, 0, sizeof pr);
  pr.flags = 0x100;
  ir_buf out = {0};
  pr.out = &out;
  print_attr(&pr, a, true);
  return ir_buf_take(&out);
}
