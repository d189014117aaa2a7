/* The vector dialect: syntax (as mlir-opt-19 prints it) and verifiers of
 * load, store, broadcast, splat, extract, insert, shuffle, fma and
 * reduction.
 * Positions of extract/insert are kept as MLIR keeps them: a
 * static_position dense array with KILN_DYNAMIC holes plus index operands. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

static bool is_vector(const kiln_type *t) { return t->kind == KILN_TYPE_VECTOR; }

/* ---- load / store: "%m[%i] : memref<...>, vector<...>" ---- */
static bool parse_access(kiln_parser *p, kiln_op_state *st, kiln_p_ssa_use *m,
                         kiln_p_ssa_uses *ix, const kiln_type **mt,
                         const kiln_type **vt) {
  return kiln_p_operand(p, m) && kiln_p_square_operand_list(p, ix) &&
         kiln_p_attrs_colon(p, st) && kiln_p_memref_type(p, mt) &&
         kiln_p_expect(p, KILN_TOK_COMMA) && kiln_p_vector_type(p, vt);
}

bool vector_parse_load(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use m;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *mt, *vt;
  if (!parse_access(p, st, &m, &ix, &mt, &vt) || !kiln_p_resolve_add(p, st, &m, mt) ||
      !kiln_p_resolve_indices(p, st, &ix))
    return false;
  kiln_st_add_type(st, vt);
  return true;
}

static void print_access(kiln_printer *pr, const kiln_op *op, uint32_t mi,
                         const kiln_type *vt) {
  kiln_pr_operands(pr, op, mi, 1);
  kiln_pr_square_operands(pr, op, mi + 1, op->num_operands - mi - 1);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, mi)->type, ", ", vt);
}

void vector_print_load(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  print_access(pr, op, 0, op->results[0].type);
}

/* A vector load/store touches the innermost dims of the memref: the
 * vector's element type matches and its rank is at most the memref's. */
static bool check_access(kiln_op *op, uint32_t mi, const kiln_type *vt) {
  const kiln_type *mt = kiln_op_operand(op, mi)->type;
  if (mt->kind != KILN_TYPE_MEMREF) return kiln_op_emit_error(op, "base must be a ranked memref");
  if (!is_vector(vt)) return kiln_op_emit_error(op, "value must be a vector");
  if (op->num_operands - mi - 1 != mt->rank)
    return kiln_op_emit_error(op, "requires %u indices", mt->rank);
  if (vt->elem != mt->elem)
    return kiln_op_emit_error(op, "base and value element types should match");
  if (vt->rank > mt->rank && mt->rank)
    return kiln_op_emit_error(op, "vector rank exceeds memref rank");
  return ir_operands_are_index(op, mi + 1, op->num_operands);
}

bool vector_verify_load(kiln_op *op) { return check_access(op, 0, op->results[0].type); }

bool vector_parse_store(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v, m;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *mt, *vt;
  return kiln_p_operand(p, &v) && kiln_p_expect(p, KILN_TOK_COMMA) &&
         parse_access(p, st, &m, &ix, &mt, &vt) && kiln_p_resolve_add(p, st, &v, vt) &&
         kiln_p_resolve_add(p, st, &m, mt) && kiln_p_resolve_indices(p, st, &ix);
}

void vector_print_store(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, ", ");
  print_access(pr, op, 1, kiln_op_operand(op, 0)->type);
}

bool vector_verify_store(kiln_op *op) {
  return check_access(op, 1, kiln_op_operand(op, 0)->type);
}

/* ---- broadcast "%s : T to vector<...>" / splat "%s : vector<...>" ---- */
bool vector_parse_broadcast(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use s;
  const kiln_type *a, *b;
  if (!kiln_p_operand(p, &s) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &a) ||
      !kiln_p_expect_keyword(p, "to") || !kiln_p_vector_type(p, &b) ||
      !kiln_p_resolve_add(p, st, &s, a))
    return false;
  kiln_st_add_type(st, b);
  return true;
}

/* Printed like a cast: "%s : T to vector<...>". */
void vector_print_broadcast(kiln_printer *pr, const kiln_op *op) { kiln_pr_cast_op(pr, op); }

/* Source dims align with the trailing result dims; each is 1 or equal. */
bool vector_verify_broadcast(kiln_op *op) {
  const kiln_type *s = kiln_op_operand(op, 0)->type, *r = op->results[0].type;
  if (!is_vector(r)) return kiln_op_emit_error(op, "result must be a vector");
  if (!is_vector(s)) {
    if (s != r->elem) return kiln_op_emit_error(op, "source type is not broadcastable to the result");
    return true;
  }
  if (s->elem != r->elem || s->rank > r->rank)
    return kiln_op_emit_error(op, "source vector is not broadcastable to the result");
  for (uint32_t i = 0; i < s->rank; i++) {
    int64_t a = s->shape[i], b = r->shape[r->rank - s->rank + i];
    if (a != 1 && a != b)
      return kiln_op_emit_error(op, "dimension mismatch (%lld vs. %lld)", (long long)a, (long long)b);
  }
  return true;
}

bool vector_parse_splat(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use s;
  const kiln_type *t;
  if (!kiln_p_operand(p, &s) || !kiln_p_attrs_colon(p, st) || !kiln_p_vector_type(p, &t) ||
      !kiln_p_resolve_add(p, st, &s, t->elem))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

void vector_print_splat(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_attrs_types(pr, op, NULL, op->results[0].type, NULL, NULL);
}

bool vector_verify_splat(kiln_op *op) {
  const kiln_type *r = op->results[0].type;
  if (!is_vector(r) || kiln_op_operand(op, 0)->type != r->elem)
    return kiln_op_emit_error(op, "operand must be the element type of the vector result");
  return true;
}

/* ---- extract "%v[0, %i] : T from V" / insert "%s, %v [0] : T into V" ---- */
static const char *const pos_elide[] = {"static_position", NULL};

bool vector_parse_extract(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v;
  kiln_p_ssa_uses dyn = {0};
  const kiln_type *r, *vt;
  if (!kiln_p_operand(p, &v) || !kiln_p_static_list(p, st, "static_position", &dyn) ||
      !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &r) ||
      !kiln_p_expect_keyword(p, "from") || !kiln_p_vector_type(p, &vt) ||
      !kiln_p_resolve_add(p, st, &v, vt) || !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_add_type(st, r);
  return true;
}

void vector_print_extract(kiln_printer *pr, const kiln_op *op) {
  uint32_t next = 1;
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_static_list(pr, op, "static_position", &next);
  kiln_pr_attrs_types(pr, op, pos_elide, op->results[0].type, " from ",
                      kiln_op_operand(op, 0)->type);
}

/* Position `pos` (n entries, holes = operands from `first`) into vector vt
 * selects a value of type `part`: the element type when n == rank, else a
 * vector of the trailing dims. */
static bool check_position(kiln_op *op, const kiln_type *vt, const kiln_type *part,
                           uint32_t first) {
  if (!is_vector(vt)) return kiln_op_emit_error(op, "expects a vector operand");
  const kiln_attr *pos = kiln_op_get_attr(op, "static_position");
  if (!pos || pos->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "requires a 'static_position' array");
  if (pos->count > vt->rank)
    return kiln_op_emit_error(op, "expected position attribute of rank no greater than vector rank");
  uint32_t holes = 0;
  for (uint32_t i = 0; i < pos->count; i++) {
    int64_t x = ((const int64_t *)pos->data)[i];
    if (x == KILN_DYNAMIC) holes++;
    else if (x < 0 || x >= vt->shape[i])
      return kiln_op_emit_error(op, "position %lld is out of bounds for dimension %u of size %lld",
                                (long long)x, i, (long long)vt->shape[i]);
  }
  if (holes != op->num_operands - first)
    return kiln_op_emit_error(op, "expected %u dynamic position operands", holes);
  const kiln_type *want = vt->elem;
  if (pos->count < vt->rank)
    want = kiln_type_vector(kiln_op_context(op), vt->rank - pos->count, vt->shape + pos->count, vt->elem);
  if (part != want) {
    char *s = kiln_type_to_string(want);
    kiln_op_emit_error(op, "expected the extracted/inserted value to be '%s'", s);
    free(s);
    return false;
  }
  return ir_operands_are_index(op, first, op->num_operands);
}

bool vector_verify_extract(kiln_op *op) {
  return check_position(op, kiln_op_operand(op, 0)->type, op->results[0].type, 1);
}

bool vector_parse_insert(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use s, v;
  kiln_p_ssa_uses dyn = {0};
  const kiln_type *st_, *vt;
  if (!kiln_p_operand(p, &s) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_operand(p, &v) || !kiln_p_static_list(p, st, "static_position", &dyn) ||
      !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &st_) ||
      !kiln_p_expect_keyword(p, "into") || !kiln_p_vector_type(p, &vt) ||
      !kiln_p_resolve_add(p, st, &s, st_) || !kiln_p_resolve_add(p, st, &v, vt) ||
      !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_add_type(st, vt);
  return true;
}

void vector_print_insert(kiln_printer *pr, const kiln_op *op) {
  uint32_t next = 2;
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 2);
  kiln_pr_puts(pr, " ");
  kiln_pr_static_list(pr, op, "static_position", &next);
  kiln_pr_attrs_types(pr, op, pos_elide, kiln_op_operand(op, 0)->type, " into ",
                      op->results[0].type);
}

bool vector_verify_insert(kiln_op *op) {
  const kiln_type *vt = kiln_op_operand(op, 1)->type;
  if (op->results[0].type != vt)
    return kiln_op_emit_error(op, "result type must match the destination vector type");
  return check_position(op, vt, kiln_op_operand(op, 0)->type, 2);
}

/* ---- fma "%a, %b, %c : vector<...>" ---- */
bool vector_parse_fma(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  const kiln_type *t;
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_attrs_colon(p, st) ||
      !kiln_p_vector_type(p, &t))
    return false;
  if (ops.n != 3) return kiln_p_error(p, "expected 3 operands");
  if (!kiln_p_resolve_all(p, st, &ops, t)) return false;
  kiln_st_add_type(st, t);
  return true;
}

void vector_print_fma(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 3);
  kiln_pr_attrs_types(pr, op, NULL, op->results[0].type, NULL, NULL);
}

bool vector_verify_fma(kiln_op *op) {
  const kiln_type *t = op->results[0].type;
  if (!is_vector(t) || !kiln_type_is_float(t->elem))
    return kiln_op_emit_error(op, "expects vectors of floats");
  return true;
}

/* ---- dot4 "%acc, %a, %b {isa = .., signed_a, pairs} : vector<4xi8>,
 * vector<4NxI8> into vector<Nxi32>" ---- */
bool vector_parse_dot4(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  const kiln_type *ta, *tb, *r;
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_attrs_colon(p, st) || !kiln_p_vector_type(p, &ta) ||
      !kiln_p_expect(p, KILN_TOK_COMMA) || !kiln_p_vector_type(p, &tb) ||
      !kiln_p_expect_keyword(p, "into") || !kiln_p_vector_type(p, &r))
    return false;
  if (ops.n != 3) return kiln_p_error(p, "expected 3 operands");
  if (!kiln_p_resolve_add(p, st, &ops.v[0], r) || !kiln_p_resolve_add(p, st, &ops.v[1], ta) ||
      !kiln_p_resolve_add(p, st, &ops.v[2], tb))
    return false;
  kiln_st_add_type(st, r);
  return true;
}

void vector_print_dot4(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 3);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 1)->type, ", ", kiln_op_operand(op, 2)->type);
  kiln_pr_puts(pr, " into ");
  kiln_pr_type(pr, op->results[0].type);
}

static bool is_int_vector(const kiln_type *t, unsigned bits, int64_t lanes) {
  return is_vector(t) && t->rank == 1 && t->shape[0] == lanes && kiln_type_is_integer(t->elem) &&
         kiln_type_bitwidth(t->elem) == bits;
}

/* The ISAs an `isa` attribute may name, with the lanes each takes. */
bool kiln_vector_dot4_isa_ok(const char *isa, int64_t lanes) {
  if (strcmp(isa, "avx512vnni") == 0) return lanes == 16;
  if (strcmp(isa, "avxvnni") == 0) return lanes == 4 || lanes == 8;
  if (strcmp(isa, "sdot") == 0) return lanes == 4;
  /* pmaddwdW: W-bit pmaddwd over each half (2N i16) of b, a power of 2 of
   * them */
  int64_t w = strcmp(isa, "pmaddwd128") == 0   ? 128
              : strcmp(isa, "pmaddwd256") == 0 ? 256
              : strcmp(isa, "pmaddwd512") == 0 ? 512
                                               : 0;
  if (!w || 32 * lanes < w || 32 * lanes % w) return false;
  int64_t chunks = 32 * lanes / w;
  return (chunks & (chunks - 1)) == 0;
}

bool vector_verify_dot4(kiln_op *op) {
  const kiln_type *r = op->results[0].type;
  int64_t n = is_vector(r) && r->rank == 1 ? r->shape[0] : 0;
  if (n <= 0 || n > 16 || !is_int_vector(r, 32, n) || kiln_op_operand(op, 0)->type != r)
    return kiln_op_emit_error(op, "expects an accumulator and result of the same vector<Nxi32>, N <= 16");
  if (!is_int_vector(kiln_op_operand(op, 1)->type, 8, 4) || !is_int_vector(kiln_op_operand(op, 2)->type, 8, 4 * n))
    return kiln_op_emit_error(op, "expects a vector<4xi8> and a vector<%lldxi8> (4 per i32 lane)", (long long)(4 * n));
  const kiln_attr *isa = kiln_op_get_attr(op, "isa");
  if (isa && (isa->kind != KILN_ATTR_STRING || !kiln_vector_dot4_isa_ok(isa->str, n)))
    return kiln_op_emit_error(op, "isa must be \"avx512vnni\" (16 lanes), \"avxvnni\" (4 or 8 lanes), "
                                  "\"pmaddwd128/256/512\" (a power of 2 of instructions over 2N bytes) or "
                                  "\"sdot\" (4 lanes)");
  /* signed_a: vpdpbusd takes unsigned a only; pairs (b pair-major):
   * only pmaddwd's lowering reads it */
  const kiln_attr *sa = kiln_op_get_attr(op, "signed_a"), *pairs = kiln_op_get_attr(op, "pairs");
  if (sa && (sa->kind != KILN_ATTR_UNIT || (isa && strncmp(isa->str, "avx", 3) == 0)))
    return kiln_op_emit_error(op, "signed_a is a unit attribute that vpdpbusd (avx512vnni, avxvnni) cannot take");
  if (isa && strcmp(isa->str, "sdot") == 0 && !sa)
    return kiln_op_emit_error(op, "isa \"sdot\" needs signed_a");
  if (pairs && (pairs->kind != KILN_ATTR_UNIT || !isa || strncmp(isa->str, "pmaddwd", 7) != 0))
    return kiln_op_emit_error(op, "pairs is a unit attribute that needs isa \"pmaddwdW\"");
  return true;
}

/* ---- shuffle "%a, %b [0, 0, 4, 4] {attrs} : V, V" ---- */
static const char *const mask_elide[] = {"mask", NULL};

bool vector_parse_shuffle(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use a, b;
  int64_t *m;
  uint32_t n;
  const kiln_type *ta, *tb;
  if (!kiln_p_operand(p, &a) || !kiln_p_expect(p, KILN_TOK_COMMA) || !kiln_p_operand(p, &b) ||
      !kiln_p_int_array(p, &m, &n))
    return false;
  kiln_st_set_attr(st, "mask", kiln_attr_dense_i64_array(st->ctx, n, m));
  if (!kiln_p_attrs_colon(p, st) || !kiln_p_vector_type(p, &ta) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_vector_type(p, &tb) || !kiln_p_resolve_add(p, st, &a, ta) || !kiln_p_resolve_add(p, st, &b, tb))
    return false;
  int64_t lanes = n;
  kiln_st_add_type(st, kiln_type_vector(st->ctx, 1, &lanes, ta->elem));
  return true;
}

void vector_print_shuffle(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 2);
  const kiln_attr *m = kiln_op_get_attr(op, "mask");
  kiln_pr_puts(pr, " [");
  for (uint32_t i = 0; m && m->kind == KILN_ATTR_DENSE_ARRAY && i < m->count; i++)
    kiln_pr_printf(pr, "%s%lld", i ? ", " : "", (long long)((const int64_t *)m->data)[i]);
  kiln_pr_puts(pr, "]");
  kiln_pr_attrs_types(pr, op, mask_elide, kiln_op_operand(op, 0)->type, ", ", kiln_op_operand(op, 1)->type);
}

/* 1-D operands of one type; the result has the mask's length in lanes of
 * their element type; every mask entry picks a lane of a ++ b. */
bool vector_verify_shuffle(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = kiln_op_operand(op, 1)->type, *r = op->results[0].type;
  if (!is_vector(a) || a->rank != 1 || a != b)
    return kiln_op_emit_error(op, "expects two 1-D vector operands of the same type");
  const kiln_attr *m = kiln_op_get_attr(op, "mask");
  if (!m || m->kind != KILN_ATTR_DENSE_ARRAY || !m->count)
    return kiln_op_emit_error(op, "requires a non-empty 'mask' array");
  if (!is_vector(r) || r->rank != 1 || r->shape[0] != (int64_t)m->count || r->elem != a->elem)
    return kiln_op_emit_error(op, "result must be a vector of the mask's %u lanes of the operands' element type",
                              m->count);
  for (uint32_t i = 0; i < m->count; i++) {
    int64_t x = ((const int64_t *)m->data)[i];
    if (x < 0 || x >= 2 * a->shape[0])
      return kiln_op_emit_error(op, "mask entry %u (%lld) is out of bounds for two vectors of %lld lanes", i,
                                (long long)x, (long long)a->shape[0]);
  }
  return true;
}

/* ---- reduction "<kind>, %v[, %acc] [fastmath<..>] : V into T" ---- */
static const char *const kind_names[] = {
#define VECTOR_KIND_NAME(ID, NAME, F, I) NAME,
    VECTOR_KINDS(VECTOR_KIND_NAME)
#undef VECTOR_KIND_NAME
};
static const bool kind_float[] = {
#define VECTOR_KIND_F(ID, NAME, F, I) F,
    VECTOR_KINDS(VECTOR_KIND_F)
#undef VECTOR_KIND_F
};
static const bool kind_int[] = {
#define VECTOR_KIND_I(ID, NAME, F, I) I,
    VECTOR_KINDS(VECTOR_KIND_I)
#undef VECTOR_KIND_I
};

kiln_vector_kind kiln_vector_reduction_kind(const kiln_op *op) {
  const kiln_attr *k = kiln_op_get_attr(op, "kind");
  if (!k || k->kind != KILN_ATTR_OPAQUE || !k->dialect || strcmp(k->dialect, "vector") != 0 ||
      strncmp(k->str, "kind<", 5) != 0)
    return KILN_VECTOR_KIND_COUNT;
  const char *body = k->str + 5;
  size_t n = strlen(body);
  for (int i = 0; i < KILN_VECTOR_KIND_COUNT; i++) {
    size_t m = strlen(kind_names[i]);
    if (n == m + 1 && strncmp(body, kind_names[i], m) == 0 && body[m] == '>')
      return (kiln_vector_kind)i;
  }
  return KILN_VECTOR_KIND_COUNT;
}

bool vector_parse_reduction(kiln_parser *p, kiln_op_state *st) {
  const char *kw;
  kiln_loc kl = kiln_p_loc(p);
  if (!kiln_p_expect(p, KILN_TOK_LESS) || !kiln_p_keyword(p, &kw) ||
      !kiln_p_expect(p, KILN_TOK_GREATER) || !kiln_p_expect(p, KILN_TOK_COMMA))
    return false;
  int kind = -1;
  for (int i = 0; i < KILN_VECTOR_KIND_COUNT; i++)
    if (strcmp(kw, kind_names[i]) == 0) kind = i;
  if (kind < 0) return kiln_p_error_at(p, kl, "unknown combining kind '%s'", kw);
  char body[32];
  snprintf(body, sizeof body, "kind<%s>", kw);
  kiln_st_set_attr(st, "kind", kiln_attr_opaque(st->ctx, "vector", body));
  kiln_p_ssa_use v, acc;
  bool has_acc = false;
  if (!kiln_p_operand(p, &v)) return false;
  if (kiln_p_accept(p, KILN_TOK_COMMA)) {
    if (!kiln_p_operand(p, &acc)) return false;
    has_acc = true;
  }
  if (kiln_p_is_keyword(p, "fastmath") && !kiln_p_opt_fastmath(p, st)) return false;
  const kiln_type *vt, *r;
  if (!kiln_p_attrs_colon(p, st) || !kiln_p_vector_type(p, &vt) ||
      !kiln_p_expect_keyword(p, "into") ||
      !kiln_p_type(p, &r) || !kiln_p_resolve_add(p, st, &v, vt) ||
      (has_acc && !kiln_p_resolve_add(p, st, &acc, r)))
    return false;
  kiln_st_add_type(st, r);
  return true;
}

static const char *const red_elide[] = {"kind", "fastmath", NULL};

void vector_print_reduction(kiln_printer *pr, const kiln_op *op) {
  kiln_vector_kind k = kiln_vector_reduction_kind(op);
  kiln_pr_printf(pr, " <%s>, ", k < KILN_VECTOR_KIND_COUNT ? kind_names[k] : "?");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_fastmath(pr, op);
  kiln_pr_attrs_types(pr, op, red_elide, kiln_op_operand(op, 0)->type, " into ",
                      op->results[0].type);
}

bool vector_verify_reduction(kiln_op *op) {
  const kiln_type *vt = kiln_op_operand(op, 0)->type, *r = op->results[0].type;
  if (!is_vector(vt) || vt->rank != 1)
    return kiln_op_emit_error(op, "expects a 1-D vector operand");
  if (vt->elem != r) return kiln_op_emit_error(op, "result must be the vector's element type");
  if (op->num_operands == 2 && kiln_op_operand(op, 1)->type != r)
    return kiln_op_emit_error(op, "accumulator must have the result type");
  kiln_vector_kind k = kiln_vector_reduction_kind(op);
  if (k == KILN_VECTOR_KIND_COUNT) return kiln_op_emit_error(op, "requires a '#vector.kind<...>' attribute");
  if (kiln_type_is_float(r) ? !kind_float[k] : !kind_int[k])
    return kiln_op_emit_error(op, "unsupported reduction kind '%s' for element type", kind_names[k]);
  return true;
}

/* ---- transfer_read "%m[%i], %pad {in_bounds = [..]} : M, V" and
 * transfer_write "%v, %m[%i] {..} : V, M" ---- */
static bool is_minor_identity(const kiln_attr *pm, uint32_t mrank, uint32_t vrank) {
  if (!pm) return true;
  if (pm->kind != KILN_ATTR_AFFINE_MAP) return false;
  const kiln_affine_map *m = pm->map;
  if (m->num_dims != mrank || m->num_symbols || m->num_results != vrank) return false;
  for (uint32_t i = 0; i < vrank; i++) {
    const kiln_affine_expr *e = m->results[i];
    if (e->kind != KILN_AFFINE_DIM || e->value != (int64_t)(mrank - vrank + i)) return false;
  }
  return true;
}

static uint32_t transfer_source(const kiln_op *op) {
  return op->kind == KILN_OP_VECTOR_TRANSFER_WRITE ? 1 : 0;
}

static const kiln_type *transfer_vector(const kiln_op *op) {
  return op->kind == KILN_OP_VECTOR_TRANSFER_WRITE ? kiln_op_operand(op, 0)->type
                                                   : op->results[0].type;
}

bool kiln_vector_transfer_minor_identity(const kiln_op *op) {
  const kiln_type *m = kiln_op_operand(op, transfer_source(op))->type;
  return is_minor_identity(kiln_op_get_attr(op, "permutation_map"), m->rank,
                           transfer_vector(op)->rank);
}

bool kiln_vector_transfer_in_bounds(const kiln_op *op, uint32_t i) {
  const kiln_attr *b = kiln_op_get_attr(op, "in_bounds");
  return b && b->kind == KILN_ATTR_ARRAY && i < b->count && b->elems[i]->kind == KILN_ATTR_BOOL &&
         b->elems[i]->i;
}

bool vector_parse_transfer(kiln_parser *p, kiln_op_state *st) {
  bool write = st->info->kind == KILN_OP_VECTOR_TRANSFER_WRITE;
  kiln_p_ssa_use v, m, pad;
  kiln_p_ssa_uses ix = {0};
  if (write && (!kiln_p_operand(p, &v) || !kiln_p_expect(p, KILN_TOK_COMMA))) return false;
  if (!kiln_p_operand(p, &m) || !kiln_p_square_operand_list(p, &ix)) return false;
  if (!write && (!kiln_p_expect(p, KILN_TOK_COMMA) || !kiln_p_operand(p, &pad))) return false;
  const kiln_type *mt, *vt;
  if (!kiln_p_attrs_colon(p, st)) return false;
  if (write ? !kiln_p_vector_type(p, &vt) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
                  !kiln_p_memref_type(p, &mt)
            : !kiln_p_memref_type(p, &mt) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
                  !kiln_p_vector_type(p, &vt))
    return false;
  if (write && !kiln_p_resolve_add(p, st, &v, vt)) return false;
  if (!kiln_p_resolve_add(p, st, &m, mt) || !kiln_p_resolve_indices(p, st, &ix)) return false;
  if (!write && !kiln_p_resolve_add(p, st, &pad, mt->elem)) return false;
  kiln_context *ctx = st->ctx;
  if (!kiln_st_get_attr(st, "in_bounds")) {
    const kiln_attr **f = kiln_alloc(ctx, (vt->rank + 1) * sizeof *f);
    for (uint32_t i = 0; i < vt->rank; i++) f[i] = kiln_attr_bool(ctx, false);
    kiln_st_set_attr(st, "in_bounds", kiln_attr_array(ctx, vt->rank, f));
  }
  if (!kiln_st_get_attr(st, "permutation_map") && vt->rank <= mt->rank) {
    const kiln_affine_expr **r = kiln_alloc(ctx, (vt->rank + 1) * sizeof *r);
    for (uint32_t i = 0; i < vt->rank; i++) r[i] = kiln_affine_dim(ctx, mt->rank - vt->rank + i);
    kiln_st_set_attr(st, "permutation_map",
                     kiln_attr_affine_map(ctx, kiln_affine_map_get(ctx, mt->rank, 0, vt->rank, r)));
  }
  int64_t seg[4] = {1, write ? 1 : (int64_t)ix.n, write ? (int64_t)ix.n : 1, 0};
  kiln_st_set_segments(st, 4, seg);
  if (!write) kiln_st_add_type(st, vt);
  return true;
}

void vector_print_transfer(kiln_printer *pr, const kiln_op *op) {
  bool write = op->kind == KILN_OP_VECTOR_TRANSFER_WRITE;
  uint32_t mi = transfer_source(op);
  uint32_t nidx = op->num_operands - 2;
  kiln_pr_puts(pr, " ");
  if (write) {
    kiln_pr_operands(pr, op, 0, 1);
    kiln_pr_puts(pr, ", ");
  }
  kiln_pr_operands(pr, op, mi, 1);
  kiln_pr_square_operands(pr, op, mi + 1, nidx);
  if (!write) {
    kiln_pr_puts(pr, ", ");
    kiln_pr_operands(pr, op, op->num_operands - 1, 1);
  }
  /* in_bounds all false and a minor identity map are the defaults. */
  bool any = false;
  for (uint32_t i = 0; i < transfer_vector(op)->rank; i++) any |= kiln_vector_transfer_in_bounds(op, i);
  const char *elide[4] = {"operandSegmentSizes", NULL, NULL, NULL};
  int n = 1;
  if (!any) elide[n++] = "in_bounds";
  if (kiln_vector_transfer_minor_identity(op)) elide[n++] = "permutation_map";
  kiln_pr_attrs_types(pr, op, elide, kiln_op_operand(op, 0)->type, ", ",
                      write ? kiln_op_operand(op, 1)->type : op->results[0].type);
}

bool vector_verify_transfer(kiln_op *op) {
  bool write = op->kind == KILN_OP_VECTOR_TRANSFER_WRITE;
  uint32_t mi = transfer_source(op);
  const kiln_type *mt = kiln_op_operand(op, mi)->type, *vt = transfer_vector(op);
  if (mt->kind != KILN_TYPE_MEMREF) return kiln_op_emit_error(op, "source must be a ranked memref");
  if (!is_vector(vt) || vt->elem != mt->elem)
    return kiln_op_emit_error(op, "requires a vector of the memref's element type");
  if (op->num_operands != mt->rank + 2)
    return kiln_op_emit_error(op, "requires %u indices", mt->rank);
  if (!write && kiln_op_operand(op, op->num_operands - 1)->type != mt->elem)
    return kiln_op_emit_error(op, "padding must have the memref's element type");
  const kiln_attr *b = kiln_op_get_attr(op, "in_bounds");
  if (!b || b->kind != KILN_ATTR_ARRAY || b->count != vt->rank)
    return kiln_op_emit_error(op, "expects 'in_bounds' with one boolean per vector dim");
  for (uint32_t i = 0; i < b->count; i++)
    if (b->elems[i]->kind != KILN_ATTR_BOOL)
      return kiln_op_emit_error(op, "expects 'in_bounds' with one boolean per vector dim");
  const kiln_attr *pm = kiln_op_get_attr(op, "permutation_map");
  if (pm && (pm->kind != KILN_ATTR_AFFINE_MAP || pm->map->num_dims != mt->rank ||
             pm->map->num_results != vt->rank))
    return kiln_op_emit_error(op, "permutation_map must map the %u memref dims to the %u vector dims",
                              mt->rank, vt->rank);
  return ir_operands_are_index(op, mi + 1, mi + 1 + mt->rank);
}
