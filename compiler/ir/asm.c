/* Combinators several dialects' custom syntax share (declared in asm.h),
 * built only on the parser's and printer's public entry points: index
 * lists "[%i, %j]", typed operand lists, static/dynamic lists kept as
 * static_* dense arrays, the offsets/sizes/strides triple of slices and
 * views, reassociation groups, and the whole-op forms that tensor, memref
 * and arith spell alike (casts, slices, reshapes). Each parser emits one
 * located error and returns false, as every kiln_p_* does; printers write
 * exactly what the matching parser reads back. */
#include "asm.h"
#include "ir_internal.h"

/* ---- parsing ---- */
bool kiln_p_resolve_all(kiln_parser *p, kiln_op_state *st,
                        const kiln_p_ssa_uses *ops, const kiln_type *t) {
  for (uint32_t i = 0; i < ops->n; i++)
    if (!kiln_p_resolve_add(p, st, &ops->v[i], t)) return false;
  return true;
}

bool kiln_p_resolve_indices(kiln_parser *p, kiln_op_state *st,
                            const kiln_p_ssa_uses *ops) {
  return kiln_p_resolve_all(p, st, ops, kiln_type_index(st->ctx));
}

bool kiln_p_square_operand_list(kiln_parser *p, kiln_p_ssa_uses *out) {
  return kiln_p_expect(p, KILN_TOK_LSQUARE) && kiln_p_operand_list(p, out) &&
         kiln_p_expect(p, KILN_TOK_RSQUARE);
}

bool kiln_p_attrs_colon(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_opt_attr_dict(p, st) && kiln_p_expect(p, KILN_TOK_COLON);
}

/* A type of one kind; the error points at the type. */
static bool type_of_kind(kiln_parser *p, const kiln_type **out,
                         kiln_type_kind kind, const char *what) {
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_type(p, out)) return false;
  if ((*out)->kind != kind) return kiln_p_error_at(p, loc, "expected a %s type", what);
  return true;
}

bool kiln_p_ranked_tensor_type(kiln_parser *p, const kiln_type **out) {
  return type_of_kind(p, out, KILN_TYPE_TENSOR, "ranked tensor");
}

bool kiln_p_memref_type(kiln_parser *p, const kiln_type **out) {
  return type_of_kind(p, out, KILN_TYPE_MEMREF, "ranked memref");
}

bool kiln_p_vector_type(kiln_parser *p, const kiln_type **out) {
  return type_of_kind(p, out, KILN_TYPE_VECTOR, "vector");
}

void kiln_st_set_segments(kiln_op_state *st, uint32_t n, const int64_t *sizes) {
  kiln_st_set_attr(st, "operandSegmentSizes",
                   kiln_attr_dense_array(st->ctx, kiln_type_int(st->ctx, 32), n, sizes, NULL));
}

bool kiln_p_static_list(kiln_parser *p, kiln_op_state *st, const char *attr,
                        kiln_p_ssa_uses *dyn) {
  int64_t *v;
  uint32_t n;
  if (!kiln_p_mixed_list(p, dyn, &v, &n)) return false;
  kiln_st_set_attr(st, attr, kiln_attr_dense_i64_array(st->ctx, n, v));
  return true;
}

static const char *const slice_attrs[] = {"static_offsets", "static_sizes", "static_strides"};
static const char *const slice_keywords[] = {"offset", "sizes", "strides"};

bool kiln_p_slice(kiln_parser *p, kiln_op_state *st, bool keywords,
                  kiln_p_ssa_uses *dyn, int64_t counts[3]) {
  for (int k = 0; k < 3; k++) {
    if (keywords && ((k && !kiln_p_expect(p, KILN_TOK_COMMA)) ||
                     !kiln_p_expect_keyword(p, slice_keywords[k]) ||
                     !kiln_p_expect(p, KILN_TOK_COLON)))
      return false;
    uint32_t before = dyn->n;
    if (!kiln_p_static_list(p, st, slice_attrs[k], dyn)) return false;
    counts[k] = dyn->n - before;
  }
  return true;
}

bool kiln_p_reassociation(kiln_parser *p, kiln_op_state *st) {
  kiln_context *ctx = st->ctx;
  if (!kiln_p_expect(p, KILN_TOK_LSQUARE)) return false;
  const kiln_attr **groups = NULL;
  uint32_t ng = 0, cap = 0;
  if (!kiln_p_accept(p, KILN_TOK_RSQUARE)) {
    do {
      int64_t *v;
      uint32_t n;
      if (!kiln_p_int_array(p, &v, &n)) return false;
      const kiln_attr **e = kiln_alloc(ctx, (n + 1) * sizeof *e);
      for (uint32_t i = 0; i < n; i++) e[i] = kiln_attr_int(ctx, kiln_type_int(ctx, 64), v[i]);
      groups = ir_grow(ctx, groups, sizeof *groups, &cap, ng + 1);
      groups[ng++] = kiln_attr_array(ctx, n, e);
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RSQUARE)) return false;
  }
  kiln_st_set_attr(st, "reassociation", kiln_attr_array(ctx, ng, groups));
  return true;
}

bool kiln_p_successor_and_args(kiln_parser *p, kiln_op_state *st, uint32_t *num_args) {
  kiln_block *b;
  if (!kiln_p_successor(p, &b)) return false;
  kiln_st_add_successor(st, b);
  *num_args = 0;
  if (!kiln_p_accept(p, KILN_TOK_LPAREN)) return true;
  kiln_p_ssa_uses ops = {0};
  kiln_p_types types = {0};
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_expect(p, KILN_TOK_COLON) ||
      !kiln_p_type_list(p, &types) || !kiln_p_expect(p, KILN_TOK_RPAREN) ||
      !kiln_p_resolve_list(p, st, &ops, &types, loc))
    return false;
  *num_args = ops.n;
  return true;
}

/* ---- whole-op forms ---- */
bool kiln_p_cast_op(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use a;
  const kiln_type *from, *to;
  if (!kiln_p_operand(p, &a) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &from) ||
      !kiln_p_expect_keyword(p, "to") || !kiln_p_type(p, &to) ||
      !kiln_p_resolve_add(p, st, &a, from))
    return false;
  kiln_st_add_type(st, to);
  return true;
}

bool kiln_p_return_op(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  kiln_p_types types = {0};
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_operand_list(p, &ops) ||
      (ops.n && (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_type_list(p, &types))))
    return false;
  return kiln_p_resolve_list(p, st, &ops, &types, loc);
}

bool kiln_p_typed_operands_op(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  kiln_p_types types = {0};
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_opt_attr_dict(p, st) ||
      (ops.n && (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_type_list(p, &types))))
    return false;
  return kiln_p_resolve_list(p, st, &ops, &types, loc);
}

bool kiln_p_element_read_op(kiln_parser *p, kiln_op_state *st, kiln_p_type_fn type) {
  kiln_p_ssa_use base;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *t;
  if (!kiln_p_operand(p, &base) || !kiln_p_square_operand_list(p, &ix) ||
      !kiln_p_attrs_colon(p, st) || !type(p, &t) || !kiln_p_resolve_add(p, st, &base, t) ||
      !kiln_p_resolve_indices(p, st, &ix))
    return false;
  kiln_st_add_type(st, t->elem);
  return true;
}

bool kiln_p_slice_op(kiln_parser *p, kiln_op_state *st, kiln_p_type_fn type) {
  kiln_p_ssa_use src;
  kiln_p_ssa_uses dyn = {0};
  int64_t seg[4] = {1};
  const kiln_type *s, *r;
  if (!kiln_p_operand(p, &src) || !kiln_p_slice(p, st, false, &dyn, seg + 1) ||
      !kiln_p_attrs_colon(p, st) || !type(p, &s) || !kiln_p_expect_keyword(p, "to") ||
      !type(p, &r) || !kiln_p_resolve_add(p, st, &src, s) ||
      !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_set_segments(st, 4, seg);
  kiln_st_add_type(st, r);
  return true;
}

bool kiln_p_reshape_op(kiln_parser *p, kiln_op_state *st, bool expand,
                       kiln_p_type_fn type) {
  kiln_p_ssa_use src;
  kiln_p_ssa_uses dyn = {0};
  const kiln_type *s, *r;
  if (!kiln_p_operand(p, &src) || !kiln_p_reassociation(p, st)) return false;
  if (expand && (!kiln_p_expect_keyword(p, "output_shape") ||
                 !kiln_p_static_list(p, st, "static_output_shape", &dyn)))
    return false;
  if (!kiln_p_attrs_colon(p, st) || !type(p, &s) || !kiln_p_expect_keyword(p, "into") ||
      !type(p, &r) || !kiln_p_resolve_add(p, st, &src, s) ||
      !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_add_type(st, r);
  return true;
}

/* ---- printing ---- */
void kiln_pr_square_operands(kiln_printer *pr, const kiln_op *op, uint32_t from,
                             uint32_t count) {
  kiln_pr_puts(pr, "[");
  kiln_pr_operands(pr, op, from, count);
  kiln_pr_puts(pr, "]");
}

void kiln_pr_attrs_types(kiln_printer *pr, const kiln_op *op,
                         const char *const *elide, const kiln_type *a,
                         const char *sep, const kiln_type *b) {
  kiln_pr_attr_dict(pr, op, elide, false);
  kiln_pr_puts(pr, " : ");
  kiln_pr_type(pr, a);
  if (!sep) return;
  kiln_pr_puts(pr, sep);
  kiln_pr_type(pr, b);
}

void kiln_pr_static_list(kiln_printer *pr, const kiln_op *op, const char *attr,
                         uint32_t *next_dyn) {
  kiln_pr_mixed_list(pr, op, kiln_op_get_attr(op, attr), next_dyn);
}

void kiln_pr_slice(kiln_printer *pr, const kiln_op *op, uint32_t first_dyn,
                   bool keywords) {
  static const char *const plain[] = {"", " ", " "};
  static const char *const named[] = {"offset: ", ", sizes: ", ", strides: "};
  uint32_t next = first_dyn;
  for (int k = 0; k < 3; k++) {
    kiln_pr_puts(pr, (keywords ? named : plain)[k]);
    kiln_pr_static_list(pr, op, slice_attrs[k], &next);
  }
}

/* Unverified IR may lack the attribute or hold other kinds in it: that
 * prints as an empty list or skipped entries, never a crash. */
void kiln_pr_reassociation(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  kiln_pr_puts(pr, "[");
  for (uint32_t i = 0; re && re->kind == KILN_ATTR_ARRAY && i < re->count; i++) {
    const kiln_attr *g = re->elems[i];
    kiln_pr_puts(pr, i ? ", [" : "[");
    for (uint32_t j = 0; g->kind == KILN_ATTR_ARRAY && j < g->count; j++)
      kiln_pr_printf(pr, "%s%lld", j ? ", " : "", (long long)g->elems[j]->i);
    kiln_pr_puts(pr, "]");
  }
  kiln_pr_puts(pr, "]");
}

void kiln_pr_successor_and_args(kiln_printer *pr, const kiln_op *op, uint32_t succ,
                                uint32_t first, uint32_t count) {
  kiln_pr_successor(pr, op->successors[succ]);
  if (!count) return;
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, first, count);
  kiln_pr_puts(pr, " : ");
  kiln_pr_operand_types(pr, op, first, count);
  kiln_pr_puts(pr, ")");
}

void kiln_pr_cast_op(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 0)->type, " to ",
                      op->results[0].type);
}

void kiln_pr_return_op(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_attr_dict(pr, op, NULL, false);
  if (!op->num_operands) return;
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, " : ");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
}

void kiln_pr_typed_operands_op(kiln_printer *pr, const kiln_op *op) {
  if (op->num_operands) {
    kiln_pr_puts(pr, " ");
    kiln_pr_operands(pr, op, 0, op->num_operands);
  }
  kiln_pr_attr_dict(pr, op, NULL, false);
  if (!op->num_operands) return;
  kiln_pr_puts(pr, " : ");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
}

void kiln_pr_element_read_op(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_square_operands(pr, op, 1, op->num_operands - 1);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 0)->type, NULL, NULL);
}

void kiln_pr_slice_op(kiln_printer *pr, const kiln_op *op, const char *const *elide) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_slice(pr, op, 1, false);
  kiln_pr_attrs_types(pr, op, elide, kiln_op_operand(op, 0)->type, " to ",
                      op->results[0].type);
}

void kiln_pr_reshape_op(kiln_printer *pr, const kiln_op *op, bool expand,
                        const char *const *elide) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, " ");
  kiln_pr_reassociation(pr, op);
  if (expand) {
    uint32_t next = 1;
    kiln_pr_puts(pr, " output_shape ");
    kiln_pr_static_list(pr, op, "static_output_shape", &next);
  }
  kiln_pr_attrs_types(pr, op, elide, kiln_op_operand(op, 0)->type, " into ",
                      op->results[0].type);
}
