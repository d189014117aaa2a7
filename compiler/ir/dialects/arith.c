/* arith dialect (and math, which shares the elementwise shapes): constant,
 * binary/unary ops with fastmath/overflow flags, cmpi/cmpf predicates,
 * select, casts — syntax and verifiers. Elementwise ops accept scalars or
 * whole tensors/vectors of the element kind. */
#include "dialects.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const cmpi_names[] = {"eq", "ne", "slt", "sle", "sgt",
                                         "sge", "ult", "ule", "ugt", "uge"};
static const char *const cmpf_names[] = {
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq",   "ugt", "uge", "ult", "ule", "une", "uno", "true"};

/* ---- constant ---- */
bool arith_parse_constant(kiln_parser *p, kiln_op_state *st) {
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  kiln_loc loc = kiln_p_loc(p);
  const kiln_attr *v;
  if (!kiln_p_attr(p, NULL, &v)) return false;
  if (!v->type || v->kind == KILN_ATTR_TYPE || v->kind == KILN_ATTR_DENSE_ARRAY)
    return kiln_p_error_at(p, loc, "expected a typed constant value");
  kiln_st_set_attr(st, "value", v);
  kiln_st_add_type(st, v->type);
  return true;
}

void arith_print_constant(kiln_printer *pr, const kiln_op *op) {
  static const char *const elide[] = {"value", NULL};
  kiln_pr_attr_dict(pr, op, elide, false);
  kiln_pr_puts(pr, " ");
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  if (v) kiln_pr_attr(pr, v);
}

bool arith_verify_constant(kiln_op *op) {
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  if (!v) return kiln_op_emit_error(op, "requires attribute 'value'");
  const kiln_type *t = op->results[0].type;
  if (v->type != t)
    return kiln_op_emit_error(op, "value type does not match result type");
  if (v->kind == KILN_ATTR_INTEGER || v->kind == KILN_ATTR_BOOL) {
    if (!kiln_type_is_int_or_index(t))
      return kiln_op_emit_error(op, "integer value requires an integer or index result");
    if (t->kind == KILN_TYPE_INTEGER && t->sign != KILN_SIGNLESS)
      return kiln_op_emit_error(op, "integer return type must be signless");
  } else if (v->kind == KILN_ATTR_FLOAT) {
    if (!kiln_type_is_float(t)) return kiln_op_emit_error(op, "float value requires a float result");
  } else if (v->kind != KILN_ATTR_DENSE) {
    return kiln_op_emit_error(op, "value must be an integer, float or elements attribute");
  }
  return true;
}

/* ---- shared pieces ---- */
static bool parse_flags(kiln_parser *p, kiln_op_state *st) {
  if (!kiln_p_opt_fastmath(p, st)) return false;
  if (kiln_p_is_keyword(p, "overflow")) { /* overflow<nsw, nuw> */
    kiln_p_accept_keyword(p, "overflow");
    if (!kiln_p_expect(p, KILN_TOK_LESS)) return false;
    unsigned set = 0;
    do {
      const char *kw;
      if (!kiln_p_keyword(p, &kw)) return false;
      if (strcmp(kw, "nsw") == 0) set |= 1;
      else if (strcmp(kw, "nuw") == 0) set |= 2;
      else if (strcmp(kw, "none") != 0)
        return kiln_p_error(p, "expected 'nsw', 'nuw' or 'none'");
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_GREATER)) return false;
    static const char *const spell[] = {"overflow<none>", "overflow<nsw>",
                                        "overflow<nuw>", "overflow<nsw, nuw>"};
    kiln_st_set_attr(st, "overflowFlags", kiln_attr_opaque(st->ctx, "arith", spell[set]));
  }
  return true;
}

static void print_flags(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_fastmath(pr, op);
  const kiln_attr *of = kiln_op_get_attr(op, "overflowFlags");
  if (of && of->kind == KILN_ATTR_OPAQUE && strcmp(of->str, "overflow<none>") != 0)
    kiln_pr_printf(pr, " %s", of->str);
}

static const char *const flag_attrs[] = {"fastmath", "overflowFlags", NULL};

/* %r = op %a, %b [flags] {attrs} : T  (n operands, all of type T) */
static bool parse_same_typed(kiln_parser *p, kiln_op_state *st, uint32_t n) {
  kiln_p_ssa_uses ops = {0};
  for (uint32_t i = 0; i < n; i++) {
    if (i && !kiln_p_expect(p, KILN_TOK_COMMA)) return false;
    kiln_p_ssa_use o;
    if (!kiln_p_operand(p, &o)) return false;
    kiln_p_operands_push(p, &ops, o);
  }
  const kiln_type *t;
  if (!parse_flags(p, st) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &t) ||
      !kiln_p_resolve_all(p, st, &ops, t))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

static void print_same_typed(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  print_flags(pr, op);
  kiln_pr_attrs_types(pr, op, flag_attrs, op->results[0].type, NULL, NULL);
}

bool arith_parse_binary(kiln_parser *p, kiln_op_state *st) {
  return parse_same_typed(p, st, 2);
}
void arith_print_binary(kiln_printer *pr, const kiln_op *op) {
  print_same_typed(pr, op);
}
bool arith_parse_unary(kiln_parser *p, kiln_op_state *st) {
  return parse_same_typed(p, st, 1);
}
void arith_print_unary(kiln_printer *pr, const kiln_op *op) {
  print_same_typed(pr, op);
}
bool arith_parse_ternary(kiln_parser *p, kiln_op_state *st) {
  return parse_same_typed(p, st, 3);
}
void arith_print_ternary(kiln_printer *pr, const kiln_op *op) {
  print_same_typed(pr, op);
}

static bool elem_kind_ok(const kiln_type *t, bool want_float) {
  if (kiln_type_is_shaped(t) && t->kind != KILN_TYPE_TENSOR &&
      t->kind != KILN_TYPE_VECTOR && t->kind != KILN_TYPE_UNRANKED_TENSOR)
    return false;
  const kiln_type *e = kiln_type_elem_or_self(t);
  return want_float ? kiln_type_is_float(e)
                    : (e->kind == KILN_TYPE_INDEX ||
                       (e->kind == KILN_TYPE_INTEGER && e->sign == KILN_SIGNLESS));
}

/* The custom printer relies on these being well-formed. */
static bool valid_fastmath(const kiln_attr *a) {
  static const char *const flags[] = {"reassoc", "nnan", "ninf", "nsz",
                                      "arcp", "contract", "afn", "fast", "none"};
  if (a->kind != KILN_ATTR_OPAQUE || strcmp(a->dialect, "arith") != 0 ||
      strncmp(a->str, "fastmath<", 9) != 0)
    return false;
  const char *p = a->str + 9;
  for (;;) {
    size_t n = strcspn(p, ",>");
    bool known = false;
    for (size_t i = 0; i < 9 && !known; i++)
      known = strlen(flags[i]) == n && strncmp(p, flags[i], n) == 0;
    if (!known) return false;
    p += n;
    if (*p == '>') return p[1] == 0;
    p++;
  }
}

static bool verify_flags(kiln_op *op) {
  const kiln_attr *fm = kiln_op_get_attr(op, "fastmath");
  if (fm && !valid_fastmath(fm))
    return kiln_op_emit_error(op, "attribute 'fastmath' must be #arith.fastmath<...>");
  const kiln_attr *of = kiln_op_get_attr(op, "overflowFlags");
  if (of) {
    static const char *const ok[] = {"overflow<none>", "overflow<nsw>", "overflow<nuw>",
                                     "overflow<nsw, nuw>"};
    bool good = of->kind == KILN_ATTR_OPAQUE && strcmp(of->dialect, "arith") == 0;
    bool known = false;
    for (int i = 0; good && i < 4; i++) known |= strcmp(of->str, ok[i]) == 0;
    if (!known) return kiln_op_emit_error(op, "attribute 'overflowFlags' must be #arith.overflow<...>");
  }
  return true;
}

static bool verify_elem(kiln_op *op, bool want_float) {
  if (!verify_flags(op)) return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (!elem_kind_ok(t, want_float)) {
      char *s = kiln_type_to_string(t);
      kiln_op_emit_error(op, "operand #%u must be %s, but got '%s'", i,
                         want_float ? "floating-point-like" : "signless-integer-like", s);
      free(s);
      return false;
    }
  }
  return true;
}

bool arith_verify_float(kiln_op *op) { return verify_elem(op, true); }
bool arith_verify_int(kiln_op *op) { return verify_elem(op, false); }

/* Same shape as `t` but element type `e` (i1 for comparisons). */
static const kiln_type *like(kiln_context *ctx, const kiln_type *t,
                             const kiln_type *e) {
  return kiln_type_is_shaped(t) ? kiln_type_with_elem(ctx, t, e) : e;
}

/* ---- comparisons ---- */
bool arith_parse_cmp(kiln_parser *p, kiln_op_state *st) {
  bool isf = st->info->kind == KILN_OP_ARITH_CMPF;
  const char *kw;
  kiln_loc loc = kiln_p_loc(p);
  if (kiln_p_is(p, KILN_TOK_STRING)) {
    const kiln_attr *a;
    if (!kiln_p_attr(p, NULL, &a)) return false;
    kw = a->str;
  } else if (!kiln_p_keyword(p, &kw)) {
    return false;
  }
  const char *const *names = isf ? cmpf_names : cmpi_names;
  int n = isf ? 16 : 10, pred = -1;
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], kw) == 0) pred = i;
  if (pred < 0)
    return kiln_p_error_at(p, loc, "invalid %s predicate '%s'", isf ? "cmpf" : "cmpi", kw);
  kiln_st_set_attr(st, "predicate", kiln_attr_int(st->ctx, kiln_type_int(st->ctx, 64), pred));
  if (!kiln_p_expect(p, KILN_TOK_COMMA)) return false;
  kiln_p_ssa_use a, b;
  if (!kiln_p_operand(p, &a) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_operand(p, &b))
    return false;
  const kiln_type *t;
  if (!parse_flags(p, st) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &t) ||
      !kiln_p_resolve_add(p, st, &a, t) || !kiln_p_resolve_add(p, st, &b, t))
    return false;
  kiln_st_add_type(st, like(st->ctx, t, kiln_type_int(st->ctx, 1)));
  return true;
}

void arith_print_cmp(kiln_printer *pr, const kiln_op *op) {
  bool isf = op->kind == KILN_OP_ARITH_CMPF;
  const kiln_attr *pa = kiln_op_get_attr(op, "predicate");
  int64_t pred = pa && pa->kind == KILN_ATTR_INTEGER ? pa->i : -1;
  int n = isf ? 16 : 10;
  kiln_pr_printf(pr, " %s, ", pred >= 0 && pred < n ? (isf ? cmpf_names : cmpi_names)[pred] : "<<invalid>>");
  kiln_pr_operands(pr, op, 0, 2);
  print_flags(pr, op);
  static const char *const elide[] = {"predicate", "fastmath", NULL};
  kiln_pr_attrs_types(pr, op, elide, kiln_op_operand(op, 0)->type, NULL, NULL);
}

bool arith_verify_cmp(kiln_op *op) {
  bool isf = op->kind == KILN_OP_ARITH_CMPF;
  const kiln_attr *pa = kiln_op_get_attr(op, "predicate");
  if (!pa || pa->kind != KILN_ATTR_INTEGER || pa->i < 0 || pa->i >= (isf ? 16 : 10))
    return kiln_op_emit_error(op, "requires a valid 'predicate' attribute");
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = kiln_op_operand(op, 1)->type;
  if (a != b) return kiln_op_emit_error(op, "requires all operands to have the same type");
  if (!verify_elem(op, isf)) return false;
  kiln_context *ctx = kiln_op_context(op);
  if (op->results[0].type != like(ctx, a, kiln_type_int(ctx, 1)))
    return kiln_op_emit_error(op, "result must be i1 shaped like the operands");
  return true;
}

/* ---- select ---- */
bool arith_parse_select(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use c, a, b;
  if (!kiln_p_operand(p, &c) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_operand(p, &a) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_operand(p, &b))
    return false;
  if (!kiln_p_attrs_colon(p, st)) return false;
  const kiln_type *t1, *t2 = NULL;
  if (!kiln_p_type(p, &t1)) return false;
  if (kiln_p_accept(p, KILN_TOK_COMMA) && !kiln_p_type(p, &t2)) return false;
  const kiln_type *ct = t2 ? t1 : kiln_type_int(st->ctx, 1);
  const kiln_type *vt = t2 ? t2 : t1;
  if (!kiln_p_resolve_add(p, st, &c, ct) || !kiln_p_resolve_add(p, st, &a, vt) ||
      !kiln_p_resolve_add(p, st, &b, vt))
    return false;
  kiln_st_add_type(st, vt);
  return true;
}

void arith_print_select(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 3);
  kiln_pr_attr_dict(pr, op, NULL, false);
  kiln_pr_puts(pr, " : ");
  const kiln_type *ct = kiln_op_operand(op, 0)->type;
  if (kiln_type_is_shaped(ct)) {
    kiln_pr_type(pr, ct);
    kiln_pr_puts(pr, ", ");
  }
  kiln_pr_type(pr, op->results[0].type);
}

bool arith_verify_select(kiln_op *op) {
  const kiln_type *c = kiln_op_operand(op, 0)->type;
  const kiln_type *a = kiln_op_operand(op, 1)->type, *b = kiln_op_operand(op, 2)->type;
  const kiln_type *r = op->results[0].type;
  if (a != b || a != r)
    return kiln_op_emit_error(op, "requires the true value, false value and result to have the same type");
  const kiln_type *ce = kiln_type_elem_or_self(c);
  if (ce->kind != KILN_TYPE_INTEGER || ce->width != 1)
    return kiln_op_emit_error(op, "condition must be i1 or a shaped type of i1");
  if (kiln_type_is_shaped(c)) {
    kiln_context *ctx = kiln_op_context(op);
    if (!kiln_type_is_shaped(a) || like(ctx, a, ce) != c)
      return kiln_op_emit_error(op, "expected condition type to have the same shape as the result type");
  }
  return true;
}

/* ---- casts: "%a : T to U" (kiln_p_cast_op) ---- */
static bool signless_int(const kiln_type *t) {
  return t->kind == KILN_TYPE_INTEGER && t->sign == KILN_SIGNLESS;
}

bool arith_verify_cast(kiln_op *op) {
  const kiln_type *ft = kiln_op_operand(op, 0)->type, *tt = op->results[0].type;
  bool fs = kiln_type_is_shaped(ft), ts = kiln_type_is_shaped(tt);
  /* a bitcast of a 1-D vector may regroup its bits into other lanes
   * (vector<64xi8> as vector<16xi32>: the int8 microkernel's packed column
   * sums), as LLVM's bitcast does */
  bool regroup = op->kind == KILN_OP_ARITH_BITCAST && fs && ts && ft->kind == KILN_TYPE_VECTOR &&
                 tt->kind == KILN_TYPE_VECTOR && ft->rank == 1 && tt->rank == 1 && ft->shape[0] > 0 &&
                 tt->shape[0] > 0 && ft->shape[0] != tt->shape[0] &&
                 ft->shape[0] * kiln_type_bitwidth(ft->elem) == tt->shape[0] * kiln_type_bitwidth(tt->elem);
  if (regroup) {
    if (!signless_int(ft->elem) || !signless_int(tt->elem))
      return kiln_op_emit_error(op, "regroups lanes of integer vectors only");
    return true;
  }
  if (fs != ts || (fs && (ft->kind != tt->kind || ft->rank != tt->rank ||
                          (ft->rank && memcmp(ft->shape, tt->shape, ft->rank * sizeof(int64_t))))))
    return kiln_op_emit_error(op, "requires the same shape for all operands and results");
  const kiln_type *f = kiln_type_elem_or_self(ft), *t = kiln_type_elem_or_self(tt);
  bool ok;
  switch (op->kind) {
  case KILN_OP_ARITH_EXTF: ok = kiln_type_is_float(f) && kiln_type_is_float(t) && f->width < t->width; break;
  case KILN_OP_ARITH_TRUNCF: ok = kiln_type_is_float(f) && kiln_type_is_float(t) && f->width > t->width; break;
  case KILN_OP_ARITH_EXTSI:
  case KILN_OP_ARITH_EXTUI: ok = signless_int(f) && signless_int(t) && f->width < t->width; break;
  case KILN_OP_ARITH_TRUNCI: ok = signless_int(f) && signless_int(t) && f->width > t->width; break;
  case KILN_OP_ARITH_SITOFP:
  case KILN_OP_ARITH_UITOFP: ok = signless_int(f) && kiln_type_is_float(t); break;
  case KILN_OP_ARITH_FPTOSI:
  case KILN_OP_ARITH_FPTOUI: ok = kiln_type_is_float(f) && signless_int(t); break;
  case KILN_OP_ARITH_INDEX_CAST:
  case KILN_OP_ARITH_INDEX_CASTUI:
    ok = (f->kind == KILN_TYPE_INDEX && signless_int(t)) ||
         (signless_int(f) && t->kind == KILN_TYPE_INDEX);
    break;
  case KILN_OP_ARITH_BITCAST:
    ok = (kiln_type_is_float(f) || signless_int(f)) &&
         (kiln_type_is_float(t) || signless_int(t)) && f->width == t->width;
    break;
  default: ok = true;
  }
  if (!ok) {
    char *a = kiln_type_to_string(ft), *b = kiln_type_to_string(tt);
    kiln_op_emit_error(op, "operand type '%s' and result type '%s' are cast incompatible", a, b);
    free(a);
    free(b);
    return false;
  }
  return true;
}

static const kiln_combiner arith_combiners[] = {
#define KILN_OP(...)
#define KILN_ARITH_COMBINER(ID, KIND, F, I) {KILN_OP_##ID, KIND, F, I},
#include "arith.def"
#undef KILN_ARITH_COMBINER
#undef KILN_OP
};

const kiln_combiner *kiln_combiner_of(kiln_op_kind op) {
  for (size_t i = 0; i < sizeof arith_combiners / sizeof arith_combiners[0]; i++)
    if (arith_combiners[i].op == op) return &arith_combiners[i];
  return NULL;
}
