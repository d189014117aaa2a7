/* linalg dialect: generic (+ yield, index), the named structured ops
 * (fill, matmul, batch_matmul, matvec, convolutions, pooling), transpose,
 * broadcast, reduce, map and softmax — syntax as mlir-opt-19 prints it,
 * and verifiers that infer loop bounds from operand shapes (so a matmul
 * shape mismatch is reported); the implied indexing maps of named ops are
 * in linalg_iteration.c. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

/* ---- operand groups ---- */
uint32_t kiln_linalg_num_inputs(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_LINALG_TRANSPOSE:
  case KILN_OP_LINALG_BROADCAST:
  case KILN_OP_LINALG_SOFTMAX: return op->num_operands ? 1 : 0;
  case KILN_OP_LINALG_REDUCE: return op->num_operands / 2;
  case KILN_OP_LINALG_MAP: return op->num_operands ? op->num_operands - 1 : 0;
  default: break;
  }
  const kiln_attr *seg = kiln_op_get_attr(op, "operandSegmentSizes");
  if (seg && seg->kind == KILN_ATTR_DENSE_ARRAY && seg->count == 2) {
    int64_t n = ((const int64_t *)seg->data)[0];
    if (n >= 0 && n <= op->num_operands) return (uint32_t)n;
  }
  return op->num_operands ? op->num_operands - 1 : 0;
}

uint32_t kiln_linalg_num_outputs(const kiln_op *op) {
  return op->num_operands - kiln_linalg_num_inputs(op);
}

/* ---- shared syntax: ins(...) outs(...) -> types ---- */
static bool parse_ins_outs(kiln_parser *p, kiln_op_state *st, uint32_t *nin,
                           uint32_t *nout) {
  kiln_p_ssa_uses ins = {0}, outs = {0};
  kiln_p_types it = {0}, ot = {0};
  kiln_loc il = kiln_p_loc(p), ol;
  if (kiln_p_accept_keyword(p, "ins")) {
    if (!kiln_p_expect(p, KILN_TOK_LPAREN) || !kiln_p_operand_list(p, &ins)) return false;
    if (ins.n && (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_type_list(p, &it)))
      return false;
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  ol = kiln_p_loc(p);
  if (kiln_p_accept_keyword(p, "outs")) {
    if (!kiln_p_expect(p, KILN_TOK_LPAREN) || !kiln_p_operand_list(p, &outs)) return false;
    if (outs.n && (!kiln_p_expect(p, KILN_TOK_COLON) || !kiln_p_type_list(p, &ot)))
      return false;
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  if (!kiln_p_resolve_list(p, st, &ins, &it, il) ||
      !kiln_p_resolve_list(p, st, &outs, &ot, ol))
    return false;
  *nin = ins.n;
  *nout = outs.n;
  return true;
}

static void set_segments(kiln_op_state *st, uint32_t nin, uint32_t nout) {
  int64_t v[2] = {nin, nout};
  kiln_st_set_attr(st, "operandSegmentSizes",
                   kiln_attr_dense_array(st->ctx, kiln_type_int(st->ctx, 32), 2, v, NULL));
}

static bool parse_arrow_results(kiln_parser *p, kiln_op_state *st) {
  if (!kiln_p_accept(p, KILN_TOK_ARROW)) return true;
  kiln_p_types rt = {0};
  if (!kiln_p_result_types(p, &rt)) return false;
  for (uint32_t i = 0; i < rt.n; i++) kiln_st_add_type(st, rt.v[i]);
  return true;
}

static void print_ins_outs(kiln_printer *pr, const kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op), nout = op->num_operands - nin;
  if (nin) {
    kiln_pr_puts(pr, " ins(");
    kiln_pr_operands(pr, op, 0, nin);
    kiln_pr_puts(pr, " : ");
    kiln_pr_operand_types(pr, op, 0, nin);
    kiln_pr_puts(pr, ")");
  }
  if (nout) {
    kiln_pr_puts(pr, " outs(");
    kiln_pr_operands(pr, op, nin, nout);
    kiln_pr_puts(pr, " : ");
    kiln_pr_operand_types(pr, op, nin, nout);
    kiln_pr_puts(pr, ")");
  }
}

static void print_arrow_results(kiln_printer *pr, const kiln_op *op) {
  if (!op->num_results) return;
  kiln_pr_puts(pr, " -> ");
  kiln_pr_result_types(pr, op);
}

/* Element type of a shaped operand, or the scalar itself. */
static const kiln_type *elem(const kiln_type *t) { return kiln_type_elem_or_self(t); }

const char *ir_block_arg_name(const kiln_op *op, uint32_t region, uint32_t i) {
  if (!(op->info->flags & KILN_OPF_LINALG) || region != 0) return NULL;
  uint32_t nin = kiln_linalg_num_inputs(op);
  if (op->kind == KILN_OP_LINALG_MAP) return "in";
  if (i < nin) return "in";
  return op->kind == KILN_OP_LINALG_REDUCE ? "init" : "out";
}

/* ---- generic ---- */
static const char *const trait_attrs[] = {"doc", "indexing_maps",
                                          "iterator_types", "library_call", NULL};

bool linalg_parse_generic(kiln_parser *p, kiln_op_state *st) {
  kiln_context *ctx = st->ctx;
  kiln_loc dl = kiln_p_loc(p);
  const kiln_attr *dict;
  if (!kiln_p_attr_dict_into(p, &dict)) return false;
  for (uint32_t i = 0; i < dict->count; i++) {
    const kiln_named_attr *e = &dict->entries[i];
    const kiln_attr *v = e->value;
    if (strcmp(e->name, "iterator_types") == 0 && v->kind == KILN_ATTR_ARRAY) {
      /* "parallel" strings become #linalg.iterator_type<parallel>. */
      const kiln_attr **it = kiln_alloc(ctx, (v->count + 1) * sizeof *it);
      for (uint32_t k = 0; k < v->count; k++) {
        const kiln_attr *s = v->elems[k];
        if (s->kind == KILN_ATTR_STRING) {
          if (strcmp(s->str, "parallel") && strcmp(s->str, "reduction"))
            return kiln_p_error_at(p, dl, "unexpected iterator_type (%s)", s->str);
          char buf[64];
          snprintf(buf, sizeof buf, "iterator_type<%s>", s->str);
          it[k] = kiln_attr_opaque(ctx, "linalg", buf);
        } else {
          it[k] = s;
        }
      }
      v = kiln_attr_array(ctx, v->count, it);
    }
    kiln_st_set_attr(st, e->name, v);
  }
  uint32_t nin, nout;
  if (!parse_ins_outs(p, st, &nin, &nout)) return false;
  set_segments(st, nin, nout);
  if (kiln_p_accept_keyword(p, "attrs")) {
    if (!kiln_p_expect(p, KILN_TOK_EQUAL) || !kiln_p_opt_attr_dict(p, st)) return false;
  }
  if (!kiln_p_region(p, st, NULL, 0)) return false;
  return parse_arrow_results(p, st);
}

void linalg_print_generic(kiln_printer *pr, const kiln_op *op) {
  kiln_context *ctx = kiln_op_context(op);
  kiln_named_attr shown[4];
  uint32_t n = 0;
  for (uint32_t i = 0; i < op->attrs->count; i++) {
    const kiln_named_attr *e = &op->attrs->entries[i];
    bool trait = false;
    for (const char *const *t = trait_attrs; *t; t++) trait |= strcmp(*t, e->name) == 0;
    if (!trait || n >= 4) continue;
    shown[n] = *e;
    if (strcmp(e->name, "iterator_types") == 0 && e->value->kind == KILN_ATTR_ARRAY) {
      const kiln_attr *v = e->value;
      const kiln_attr **s = kiln_alloc(ctx, (v->count + 1) * sizeof *s);
      for (uint32_t k = 0; k < v->count; k++) {
        const kiln_attr *x = v->elems[k];
        if (x->kind == KILN_ATTR_OPAQUE && strncmp(x->str, "iterator_type<", 14) == 0) {
          size_t len = strlen(x->str) - 15;
          s[k] = kiln_attr_string(ctx, x->str + 14, len);
        } else {
          s[k] = x;
        }
      }
      shown[n].value = kiln_attr_array(ctx, v->count, s);
    }
    n++;
  }
  kiln_pr_puts(pr, " ");
  if (n) kiln_pr_attr(pr, kiln_attr_dict(ctx, n, shown));
  print_ins_outs(pr, op);
  static const char *const elide[] = {"doc", "indexing_maps", "iterator_types",
                                      "library_call", "operandSegmentSizes", NULL};
  bool extra = false;
  for (uint32_t i = 0; i < op->attrs->count && !extra; i++) {
    bool el = false;
    for (const char *const *t = elide; *t; t++) el |= strcmp(*t, op->attrs->entries[i].name) == 0;
    extra = !el;
  }
  if (extra) {
    kiln_pr_puts(pr, " attrs = ");
    kiln_pr_attr_dict(pr, op, elide, false);
  }
  kiln_pr_puts(pr, " ");
  kiln_pr_region(pr, &op->regions[0], true, true);
  print_arrow_results(pr, op);
}


/* Largest index an expression reaches given loop bounds, or -1 if unknown. */
static int64_t max_index(const kiln_affine_expr *e, const int64_t *bounds) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: return bounds[e->value] > 0 ? bounds[e->value] - 1 : -1;
  case KILN_AFFINE_CONST: return e->value;
  case KILN_AFFINE_ADD: {
    int64_t a = max_index(e->lhs, bounds), b = max_index(e->rhs, bounds);
    return a < 0 || b < 0 ? -1 : a + b;
  }
  case KILN_AFFINE_MUL: {
    int64_t a = max_index(e->lhs, bounds);
    if (a < 0 || e->rhs->kind != KILN_AFFINE_CONST || e->rhs->value < 0) return -1;
    if (e->rhs->value && a > INT64_MAX / 4 / e->rhs->value) return -1;
    return a * e->rhs->value;
  }
  default: return -1;
  }
}

static bool verify_body(kiln_op *op, uint32_t first_arg_operand, uint32_t nargs,
                        uint32_t yield_from, uint32_t nyield);

/* Checks maps against operand ranks, then infers loop bounds from the first
 * operand dim each loop indexes directly, and checks every other dim. */
static bool verify_structured(kiln_op *op) {
  const kiln_affine_map **maps = kiln_alloc(kiln_op_context(op), (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int loops = kiln_linalg_iteration(op, maps, red);
  if (loops < 0) {
    if (op->kind == KILN_OP_LINALG_GENERIC) {
      const kiln_attr *im = kiln_op_get_attr(op, "indexing_maps");
      if (!im || im->kind != KILN_ATTR_ARRAY)
        return kiln_op_emit_error(op, "requires an 'indexing_maps' array attribute");
      if (im->count != op->num_operands)
        return kiln_op_emit_error(op, "expected the number of indexing_map (%u) to be equal to the number of input/output operands (%u)",
                                  im->count, op->num_operands);
      return kiln_op_emit_error(op, "expected indexing_maps of affine maps over the iterator_types loops (parallel or reduction, at most %d)",
                                KILN_MAX_LOOPS);
    }
    return kiln_op_emit_error(op, "has operands or attributes that do not form a valid iteration space");
  }
  int64_t bounds[KILN_MAX_LOOPS];
  int owner[KILN_MAX_LOOPS][2];
  for (int i = 0; i < loops; i++) bounds[i] = -1, owner[i][0] = owner[i][1] = -1;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    int rk = ir_linalg_rank_of(op, i);
    if (rk < 0) return kiln_op_emit_error(op, "operand #%u must be ranked", i);
    if ((int)maps[i]->num_results != rk)
      return kiln_op_emit_error(op, "expected operand rank (%d) to match the result rank of indexing_map #%u (%u)",
                                rk, i, maps[i]->num_results);
    for (int d = 0; d < rk; d++) {
      const kiln_affine_expr *e = maps[i]->results[d];
      if (e->kind != KILN_AFFINE_DIM || t->shape[d] == KILN_DYNAMIC) continue;
      int64_t l = e->value;
      if (bounds[l] < 0) {
        bounds[l] = t->shape[d];
        owner[l][0] = (int)i, owner[l][1] = d;
      } else if (bounds[l] != t->shape[d]) {
        return kiln_op_emit_error(op, "inferred input/output operand #%u has shape's dimension #%d to be %lld, but found %lld",
                                  i, d, (long long)bounds[l], (long long)t->shape[d]);
      }
    }
  }
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    for (uint32_t d = 0; d < maps[i]->num_results; d++) {
      const kiln_affine_expr *e = maps[i]->results[d];
      if (e->kind == KILN_AFFINE_DIM || t->shape[d] == KILN_DYNAMIC) continue;
      int64_t m = max_index(e, bounds);
      if (m >= 0 && m + 1 > t->shape[d])
        return kiln_op_emit_error(op, "inferred input/output operand #%u has shape's dimension #%u to be greater than or equal to %lld, but found %lld",
                                  i, d, (long long)(m + 1), (long long)t->shape[d]);
    }
  }
  /* Tensor outputs become results, in order. */
  uint32_t nin = kiln_linalg_num_inputs(op), nres = 0;
  for (uint32_t i = nin; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (t->kind != KILN_TYPE_TENSOR) continue;
    if (nres >= op->num_results || op->results[nres].type != t)
      return kiln_op_emit_error(op, "expected result #%u to have the type of output operand #%u", nres, i - nin);
    nres++;
  }
  if (nres != op->num_results)
    return kiln_op_emit_error(op, "expected %u results (one per tensor output), found %u", nres, op->num_results);
  /* Named ops' implied bodies (present when parsed or built with one). */
  if (op->kind != KILN_OP_LINALG_GENERIC && op->kind != KILN_OP_LINALG_REDUCE &&
      op->kind != KILN_OP_LINALG_MAP && op->num_regions && op->regions[0].first)
    return verify_body(op, 0, op->num_operands, nin, op->num_operands - nin);
  return true;
}

/* The body's block arguments and yield must match operand element types. */
static bool verify_body(kiln_op *op, uint32_t first_arg_operand, uint32_t nargs,
                        uint32_t yield_from, uint32_t nyield) {
  if (!op->num_regions || !op->regions[0].first) return true;
  kiln_block *b = op->regions[0].first;
  if (b != op->regions[0].last) return kiln_op_emit_error(op, "expects a single-block region");
  if (b->num_args != nargs)
    return kiln_op_emit_error(op, "expected as many non-induction variable region arguments as the number of input/output operands");
  for (uint32_t i = 0; i < nargs; i++)
    if (b->args[i]->type != elem(kiln_op_operand(op, first_arg_operand + i)->type)) {
      char *a = kiln_type_to_string(b->args[i]->type);
      char *x = kiln_type_to_string(elem(kiln_op_operand(op, first_arg_operand + i)->type));
      kiln_op_emit_error(op, "expected type of bb argument #%u (%s) to match element or self type of the corresponding operand (%s)",
                         i, a, x);
      free(a);
      free(x);
      return false;
    }
  kiln_op *y = kiln_block_terminator(b);
  if (!y || y->kind != KILN_OP_LINALG_YIELD)
    return kiln_op_emit_error(op, "expected the body to end with 'linalg.yield'");
  if (y->num_operands != nyield)
    return kiln_op_emit_error(y, "expected number of yield values (%u) to match the number of inits / outs operands of the enclosing LinalgOp (%u)",
                              y->num_operands, nyield);
  for (uint32_t i = 0; i < nyield; i++)
    if (kiln_op_operand(y, i)->type != elem(kiln_op_operand(op, yield_from + i)->type))
      return kiln_op_emit_error(y, "type of yield operand %u does not match the element type of the enclosing op's output", i + 1);
  return true;
}

bool linalg_verify_generic(kiln_op *op) {
  const kiln_attr *it = kiln_op_get_attr(op, "iterator_types");
  if (!it || it->kind != KILN_ATTR_ARRAY)
    return kiln_op_emit_error(op, "requires an 'iterator_types' array attribute");
  if (!verify_structured(op)) return false;
  uint32_t nin = kiln_linalg_num_inputs(op);
  return verify_body(op, 0, op->num_operands, nin, op->num_operands - nin);
}

/* ---- yield, index ---- */
bool linalg_verify_yield(kiln_op *op) {
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || !kiln_op_has_flag(parent, KILN_OPF_LINALG))
    return kiln_op_emit_error(op, "expected parent op with LinalgOp interface");
  return true;
}

bool linalg_parse_index(kiln_parser *p, kiln_op_state *st) {
  int64_t d;
  if (!kiln_p_int(p, &d) || !kiln_p_opt_attr_dict(p, st) ||
      !kiln_p_expect(p, KILN_TOK_COLON))
    return false;
  const kiln_type *t;
  if (!kiln_p_type(p, &t)) return false;
  kiln_st_set_attr(st, "dim", kiln_attr_int(st->ctx, kiln_type_int(st->ctx, 64), d));
  kiln_st_add_type(st, t);
  return true;
}

void linalg_print_index(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *d = kiln_op_get_attr(op, "dim");
  kiln_pr_printf(pr, " %lld", d ? (long long)d->i : 0LL);
  static const char *const elide[] = {"dim", NULL};
  kiln_pr_attr_dict(pr, op, elide, false);
  kiln_pr_puts(pr, " : ");
  kiln_pr_type(pr, op->results[0].type);
}

bool linalg_verify_index(kiln_op *op) {
  const kiln_attr *d = kiln_op_get_attr(op, "dim");
  if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0)
    return kiln_op_emit_error(op, "requires a non-negative 'dim' attribute");
  if (op->results[0].type->kind != KILN_TYPE_INDEX)
    return kiln_op_emit_error(op, "result #0 must be index");
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || !kiln_op_has_flag(parent, KILN_OPF_LINALG))
    return kiln_op_emit_error(op, "expected parent op with LinalgOp interface");
  const kiln_affine_map **maps = kiln_alloc(kiln_op_context(op), (parent->num_operands + 1) * sizeof *maps);
  int loops = kiln_linalg_iteration(parent, maps, NULL);
  if (loops >= 0 && d->i >= loops)
    return kiln_op_emit_error(op, "expected dim (%lld) to be lower than the number of loops (%d) of the enclosing LinalgOp",
                              (long long)d->i, loops);
  return true;
}

/* ---- implied bodies of named ops (as mlir-opt builds them) ---- */
kiln_linalg_body kiln_linalg_body_of(kiln_op_kind kind) {
  switch (kind) {
#define KILN_LINALG_BODY(OP, BODY) \
  case KILN_OP_##OP: return KILN_LINALG_BODY_##BODY;
#include "linalg_bodies.def"
#undef KILN_LINALG_BODY
  default: return KILN_LINALG_BODY_NONE;
  }
}

static kiln_value *emit(kiln_builder *b, kiln_op_kind kind, kiln_value *x, kiln_value *y, const kiln_type *t) {
  kiln_value *ops[2] = {x, y};
  return kiln_op_result(kiln_build(b, kind, y ? 2 : 1, ops, 1, &t, NULL), 0);
}

/* Converts v to type t the way linalg's type_fn<cast_signed> does. */
static kiln_value *cast_to(kiln_builder *b, kiln_value *v, const kiln_type *t) {
  const kiln_type *f = v->type;
  if (f == t) return v;
  bool fi = kiln_type_is_int_or_index(f), ti = kiln_type_is_int_or_index(t);
  kiln_op_kind k;
  if (fi && ti) {
    if (f->kind == KILN_TYPE_INDEX || t->kind == KILN_TYPE_INDEX) k = KILN_OP_ARITH_INDEX_CAST;
    else k = f->width < t->width ? KILN_OP_ARITH_EXTSI : KILN_OP_ARITH_TRUNCI;
  } else if (!fi && !ti) {
    k = f->width < t->width ? KILN_OP_ARITH_EXTF : KILN_OP_ARITH_TRUNCF;
  } else {
    k = fi ? KILN_OP_ARITH_SITOFP : KILN_OP_ARITH_FPTOSI;
  }
  return emit(b, k, v, NULL, t);
}

kiln_value *kiln_linalg_named_body(kiln_builder *b, kiln_op_kind kind, const kiln_type *t, kiln_value *const *in,
                                   uint32_t nin) {
  kiln_linalg_body body = kiln_linalg_body_of(kind);
  if (body == KILN_LINALG_BODY_NONE || !nin || (body == KILN_LINALG_BODY_MULADD && nin != 2)) return NULL;
  if (body == KILN_LINALG_BODY_COPY) return cast_to(b, in[0], t);
  kiln_value *out = in[nin];
  if (!out) return NULL;
  bool isf = kiln_type_is_float(elem(t));
  switch (body) {
  case KILN_LINALG_BODY_MAX:
    return emit(b, isf ? KILN_OP_ARITH_MAXIMUMF : KILN_OP_ARITH_MAXSI, out, cast_to(b, in[0], t), t);
  case KILN_LINALG_BODY_SUM:
    return emit(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, out, cast_to(b, in[0], t), t);
  default: { /* MULADD: out + in0 * in1 */
    kiln_value *x = cast_to(b, in[0], t), *y = cast_to(b, in[1], t);
    kiln_value *p = emit(b, isf ? KILN_OP_ARITH_MULF : KILN_OP_ARITH_MULI, x, y, t);
    return emit(b, isf ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI, out, p, t);
  }
  }
}

/* Gives a named op parsed from custom syntax the region mlir-opt attaches
 * to it (visible in the generic form), linalg_bodies.def's. */
static void build_named_body(kiln_op_state *st) {
  kiln_context *ctx = st->ctx;
  kiln_op_kind kind = st->info->kind;
  const uint32_t n = st->num_operands;
  kiln_linalg_body body = kiln_linalg_body_of(kind);
  if (body == KILN_LINALG_BODY_NONE || !n || (body == KILN_LINALG_BODY_MULADD && n != 3)) return;
  for (uint32_t i = 0; i < n; i++) {
    const kiln_type *e = elem(st->operands[i]->type);
    if (!kiln_type_is_float(e) && !kiln_type_is_int_or_index(e)) return;
  }
  kiln_region *r = kiln_st_add_region(st);
  kiln_block *blk = kiln_block_create(ctx);
  kiln_region_append_block(r, blk);
  for (uint32_t i = 0; i < n; i++) kiln_block_add_arg(ctx, blk, elem(st->operands[i]->type), st->loc);
  kiln_builder b = kiln_builder_at_end(ctx, blk);
  b.loc = st->loc;
  kiln_value *res = kiln_linalg_named_body(&b, kind, blk->args[n - 1]->type, blk->args, n - 1);
  kiln_build(&b, KILN_OP_LINALG_YIELD, 1, &res, 0, NULL, NULL);
}

/* ---- named ops ---- */
static const char *const named_elide[] = {"operandSegmentSizes",
                                          "linalg.memoized_indexing_maps", NULL};

bool linalg_parse_named(kiln_parser *p, kiln_op_state *st) {
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  bool softmax = st->info->kind == KILN_OP_LINALG_SOFTMAX;
  if (softmax) {
    int64_t d;
    if (!kiln_p_expect_keyword(p, "dimension") || !kiln_p_expect(p, KILN_TOK_LPAREN) ||
        !kiln_p_int(p, &d) || !kiln_p_expect(p, KILN_TOK_RPAREN))
      return false;
    kiln_st_set_attr(st, "dimension", kiln_attr_int(st->ctx, kiln_type_int(st->ctx, 64), d));
  }
  uint32_t nin, nout;
  if (!parse_ins_outs(p, st, &nin, &nout)) return false;
  if (!softmax) set_segments(st, nin, nout);
  if (!parse_arrow_results(p, st)) return false;
  build_named_body(st);
  return true;
}

void linalg_print_named(kiln_printer *pr, const kiln_op *op) {
  if (op->kind == KILN_OP_LINALG_SOFTMAX) {
    static const char *const el[] = {"dimension", NULL};
    kiln_pr_attr_dict(pr, op, el, false);
    const kiln_attr *d = kiln_op_get_attr(op, "dimension");
    kiln_pr_printf(pr, " dimension(%lld)", d ? (long long)d->i : 0LL);
  } else {
    kiln_pr_attr_dict(pr, op, named_elide, false);
  }
  print_ins_outs(pr, op);
  print_arrow_results(pr, op);
}

bool linalg_verify_named(kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op);
  if (op->kind == KILN_OP_LINALG_SOFTMAX) {
    if (op->num_operands != 2) return kiln_op_emit_error(op, "expects one input and one output");
    const kiln_type *a = kiln_op_operand(op, 0)->type, *b = kiln_op_operand(op, 1)->type;
    const kiln_attr *d = kiln_op_get_attr(op, "dimension");
    if (!kiln_type_is_ranked(a) || a->rank != b->rank || a->elem != b->elem)
      return kiln_op_emit_error(op, "incompatible output shape");
    for (uint32_t i = 0; i < a->rank; i++)
      if (a->shape[i] != KILN_DYNAMIC && b->shape[i] != KILN_DYNAMIC && a->shape[i] != b->shape[i])
        return kiln_op_emit_error(op, "incompatible output shape");
    if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= (int64_t)a->rank)
      return kiln_op_emit_error(op, "incorrect dimension specified");
    if (b->kind == KILN_TYPE_TENSOR && (op->num_results != 1 || op->results[0].type != b))
      return kiln_op_emit_error(op, "expected one result of the output type");
    return true;
  }
  if (op->kind == KILN_OP_LINALG_FILL) {
    if (nin != 1 || op->num_operands != 2)
      return kiln_op_emit_error(op, "expects one scalar input and one output");
    const kiln_type *v = kiln_op_operand(op, 0)->type, *o = kiln_op_operand(op, 1)->type;
    if (kiln_type_is_shaped(v) || !kiln_type_is_shaped(o) ||
        kiln_type_is_float(v) != kiln_type_is_float(o->elem))
      return kiln_op_emit_error(op, "expects the input to be a scalar convertible to the output's element type");
    return verify_structured(op);
  }
  if (nin != 2 || op->num_operands != 3)
    return kiln_op_emit_error(op, "expects two inputs and one output, found %u inputs and %u outputs",
                              nin, op->num_operands - nin);
  const kiln_attr *s = kiln_op_get_attr(op, "strides");
  const kiln_attr *d = kiln_op_get_attr(op, "dilations");
  bool windowed = op->kind >= KILN_OP_LINALG_CONV_2D_NHWC_HWCF &&
                  op->kind <= KILN_OP_LINALG_POOLING_NCHW_SUM;
  if (windowed)
    for (int i = 0; i < 2; i++)
      if (ir_linalg_hw_attr(op, "strides", i) <= 0 || ir_linalg_hw_attr(op, "dilations", i) <= 0)
        return kiln_op_emit_error(op, "expects 'strides' and 'dilations' of two positive integers (%s)",
                                  s || d ? "malformed" : "missing");
  return verify_structured(op);
}

/* ---- transpose / broadcast ---- */
static bool parse_i64_array_attr(kiln_parser *p, kiln_op_state *st, const char *name) {
  int64_t *v;
  uint32_t n;
  if (!kiln_p_expect_keyword(p, name) || !kiln_p_expect(p, KILN_TOK_EQUAL) ||
      !kiln_p_int_array(p, &v, &n))
    return false;
  kiln_st_set_attr(st, name, kiln_attr_dense_i64_array(st->ctx, n, v));
  return true;
}

static void print_i64_array_attr(kiln_printer *pr, const kiln_op *op, const char *name) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  kiln_pr_printf(pr, " %s = [", name);
  for (uint32_t i = 0; a && a->kind == KILN_ATTR_DENSE_ARRAY && i < a->count; i++)
    kiln_pr_printf(pr, "%s%lld", i ? ", " : "", (long long)((const int64_t *)a->data)[i]);
  kiln_pr_puts(pr, "] ");
}

/* Results of ops with implicit result types: the tensor inits. */
static void add_init_results(kiln_op_state *st, uint32_t first) {
  for (uint32_t i = first; i < st->num_operands; i++)
    if (st->operands[i]->type->kind == KILN_TYPE_TENSOR)
      kiln_st_add_type(st, st->operands[i]->type);
}

static bool parse_one_attr_op(kiln_parser *p, kiln_op_state *st, const char *attr) {
  uint32_t nin, nout;
  kiln_loc loc = kiln_p_loc(p);
  if (!parse_ins_outs(p, st, &nin, &nout)) return false;
  if (nin != 1 || nout != 1) return kiln_p_error_at(p, loc, "expected one input and one init");
  if (!parse_i64_array_attr(p, st, attr) || !kiln_p_opt_attr_dict(p, st)) return false;
  add_init_results(st, 1);
  build_named_body(st);
  return true;
}

bool linalg_parse_transpose(kiln_parser *p, kiln_op_state *st) {
  return parse_one_attr_op(p, st, "permutation");
}
bool linalg_parse_broadcast(kiln_parser *p, kiln_op_state *st) {
  return parse_one_attr_op(p, st, "dimensions");
}

void linalg_print_transpose(kiln_printer *pr, const kiln_op *op) {
  print_ins_outs(pr, op);
  print_i64_array_attr(pr, op, "permutation");
  static const char *const el[] = {"permutation", NULL};
  kiln_pr_attr_dict(pr, op, el, false);
}

void linalg_print_broadcast(kiln_printer *pr, const kiln_op *op) {
  print_ins_outs(pr, op);
  print_i64_array_attr(pr, op, "dimensions");
  static const char *const el[] = {"dimensions", NULL};
  kiln_pr_attr_dict(pr, op, el, false);
}

static bool check_init_results(kiln_op *op, uint32_t first) {
  uint32_t r = 0;
  for (uint32_t i = first; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (t->kind != KILN_TYPE_TENSOR) continue;
    if (r >= op->num_results || op->results[r].type != t)
      return kiln_op_emit_error(op, "expected result #%u to have the type of init #%u", r, i - first);
    r++;
  }
  if (r != op->num_results) return kiln_op_emit_error(op, "expected one result per tensor init");
  return true;
}

bool linalg_verify_transpose(kiln_op *op) {
  const kiln_attr *perm = kiln_op_get_attr(op, "permutation");
  const kiln_type *in = kiln_op_operand(op, 0)->type, *out = kiln_op_operand(op, 1)->type;
  if (!perm || perm->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "requires a 'permutation' attribute");
  if (!kiln_type_is_ranked(in) || !kiln_type_is_ranked(out) || in->rank != out->rank)
    return kiln_op_emit_error(op, "input rank %d does not match init rank %d",
                              kiln_type_is_ranked(in) ? (int)in->rank : -1,
                              kiln_type_is_ranked(out) ? (int)out->rank : -1);
  if (perm->count != in->rank)
    return kiln_op_emit_error(op, "size of permutation %u does not match the argument rank %u",
                              perm->count, in->rank);
  const int64_t *pv = perm->data;
  uint64_t seen = 0;
  for (uint32_t i = 0; i < perm->count; i++) {
    if (pv[i] < 0 || pv[i] >= (int64_t)in->rank || (seen >> pv[i]) & 1)
      return kiln_op_emit_error(op, "permutation is not valid");
    seen |= 1ull << pv[i];
  }
  for (uint32_t i = 0; i < in->rank; i++) {
    int64_t a = in->shape[pv[i]], b = out->shape[i];
    if (a != KILN_DYNAMIC && b != KILN_DYNAMIC && a != b)
      return kiln_op_emit_error(op, "dim(result, %u) = %lld doesn't match dim(input, permutation[%u]) = %lld",
                                i, (long long)b, i, (long long)a);
  }
  if (in->elem != out->elem) return kiln_op_emit_error(op, "input and init element types differ");
  return check_init_results(op, 1);
}

bool linalg_verify_broadcast(kiln_op *op) {
  const kiln_attr *dims = kiln_op_get_attr(op, "dimensions");
  const kiln_type *in = kiln_op_operand(op, 0)->type, *out = kiln_op_operand(op, 1)->type;
  if (!dims || dims->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "requires a 'dimensions' attribute");
  if (!kiln_type_is_ranked(in) || !kiln_type_is_ranked(out))
    return kiln_op_emit_error(op, "expects ranked operands");
  if (in->rank + dims->count != out->rank)
    return kiln_op_emit_error(op, "input rank plus added dimensions does not match init rank. input rank: %u, dimensions size: %u, init rank: %u",
                              in->rank, dims->count, out->rank);
  if (!verify_structured(op)) return false;
  return check_init_results(op, 1);
}

/* ---- reduce / map ---- */
/* " { arith.addf }" short form, if the body is one payload op on the block
 * arguments (for reduce: init first) followed by a yield of its result. */
static const kiln_op *short_form_payload(const kiln_op *op, bool init_first) {
  const kiln_block *b = op->regions[0].first;
  if (!b || !b->first || b->first->next != b->last || !b->last) return NULL;
  const kiln_op *pl = b->first;
  const kiln_op *y = b->last;
  if (y->kind != KILN_OP_LINALG_YIELD || pl->num_regions || pl->num_results != 1 ||
      pl->kind == KILN_OP_UNREGISTERED || pl->num_successors)
    return NULL;
  if (!pl->num_operands || pl->num_operands != b->num_args) return NULL;
  if (y->num_operands != 1 || kiln_op_operand(y, 0) != &pl->results[0]) return NULL;
  for (uint32_t i = 0; i < pl->num_operands; i++) {
    uint32_t want = init_first ? (i == 0 ? b->num_args - 1 : i - 1) : i;
    if (kiln_op_operand(pl, i) != b->args[want]) return NULL;
  }
  return pl;
}

static void print_short_form(kiln_printer *pr, const kiln_op *pl) {
  kiln_pr_printf(pr, " { %s", pl->name);
  const kiln_attr *fm = kiln_op_get_attr(pl, "fastmath");
  static const char *const el[] = {"fastmath", NULL};
  bool elide_fm = fm && fm->kind == KILN_ATTR_OPAQUE && strcmp(fm->str, "fastmath<none>") == 0;
  kiln_pr_attr_dict(pr, pl, elide_fm ? el : NULL, false);
  kiln_pr_puts(pr, " }");
}

/* Parses "{ op.name {attrs} }" and builds the payload body. */
static bool parse_short_form(kiln_parser *p, kiln_op_state *st, const char **name,
                             const kiln_attr **attrs) {
  *name = NULL;
  *attrs = NULL;
  if (!kiln_p_accept(p, KILN_TOK_LBRACE)) return true;
  if (!kiln_p_keyword(p, name)) return false;
  if (!kiln_op_info_lookup(*name, strlen(*name)))
    return kiln_p_error(p, "unknown payload op '%s'", *name);
  if (kiln_p_is(p, KILN_TOK_LBRACE) && !kiln_p_attr_dict_into(p, attrs)) return false;
  (void)st;
  return kiln_p_expect(p, KILN_TOK_RBRACE);
}

static bool build_payload(kiln_parser *p, kiln_op_state *st, const char *name,
                          const kiln_attr *attrs, uint32_t nargs_from,
                          uint32_t nargs, bool init_first) {
  kiln_context *ctx = st->ctx;
  kiln_region *r = kiln_st_add_region(st);
  kiln_block *b = kiln_block_create(ctx);
  kiln_region_append_block(r, b);
  for (uint32_t i = 0; i < nargs; i++)
    kiln_block_add_arg(ctx, b, elem(st->operands[nargs_from + i]->type), st->loc);
  kiln_value **ops = kiln_alloc(ctx, (nargs + 1) * sizeof *ops);
  for (uint32_t i = 0; i < nargs; i++)
    ops[i] = b->args[init_first ? (i == 0 ? nargs - 1 : i - 1) : i];
  if (!st->num_operands) return kiln_p_error(p, "expected operands");
  const kiln_type *rt = elem(st->operands[st->num_operands - 1]->type);
  kiln_op *pl = kiln_op_create_named(ctx, name, st->loc, nargs, ops, 1, &rt, attrs, 0);
  kiln_block_append_op(b, pl);
  kiln_value *res = &pl->results[0];
  kiln_block_append_op(b, kiln_op_create(ctx, KILN_OP_LINALG_YIELD, st->loc, 1, &res, 0,
                                         NULL, NULL, 0));
  return true;
}

/* "(%in: f32, %init: f32) { ... }" long-form body. */
static bool parse_long_body(kiln_parser *p, kiln_op_state *st) {
  if (!kiln_p_expect(p, KILN_TOK_LPAREN)) return false;
  kiln_p_arg *args = kiln_alloc(st->ctx, 64 * sizeof *args);
  uint32_t n = 0;
  if (!kiln_p_accept(p, KILN_TOK_RPAREN)) {
    do {
      if (n >= 64) return kiln_p_error(p, "too many block arguments");
      memset(&args[n], 0, sizeof args[n]);
      if (!kiln_p_operand(p, &args[n].name) || !kiln_p_expect(p, KILN_TOK_COLON) ||
          !kiln_p_type(p, &args[n].type) || !kiln_p_opt_loc(p))
        return false;
      n++;
    } while (kiln_p_accept(p, KILN_TOK_COMMA));
    if (!kiln_p_expect(p, KILN_TOK_RPAREN)) return false;
  }
  return kiln_p_region(p, st, args, n);
}

static void print_long_body(kiln_printer *pr, const kiln_op *op) {
  const kiln_block *b = op->regions[0].first;
  kiln_pr_indent(pr, 2);
  kiln_pr_newline(pr);
  kiln_pr_puts(pr, "(");
  for (uint32_t i = 0; b && i < b->num_args; i++) {
    if (i) kiln_pr_puts(pr, ", ");
    kiln_pr_block_arg(pr, b->args[i]);
  }
  kiln_pr_puts(pr, ") ");
  kiln_pr_region(pr, &op->regions[0], false, true);
  kiln_pr_indent(pr, -2);
}

bool linalg_parse_reduce(kiln_parser *p, kiln_op_state *st) {
  const char *pname;
  const kiln_attr *pattrs;
  if (!parse_short_form(p, st, &pname, &pattrs)) return false;
  uint32_t nin, nout;
  kiln_loc loc = kiln_p_loc(p);
  if (!parse_ins_outs(p, st, &nin, &nout)) return false;
  if (nin != nout || !nin)
    return kiln_p_error_at(p, loc, "expected the same number of inputs and inits");
  if (!parse_i64_array_attr(p, st, "dimensions") || !kiln_p_opt_attr_dict(p, st)) return false;
  if (pname) {
    if (!build_payload(p, st, pname, pattrs, 0, nin + nout, true)) return false;
  } else if (!parse_long_body(p, st)) {
    return false;
  }
  add_init_results(st, nin);
  return true;
}

void linalg_print_reduce(kiln_printer *pr, const kiln_op *op) {
  const kiln_op *pl = short_form_payload(op, true);
  if (pl) print_short_form(pr, pl);
  print_ins_outs(pr, op);
  print_i64_array_attr(pr, op, "dimensions");
  static const char *const el[] = {"dimensions", NULL};
  kiln_pr_attr_dict(pr, op, el, false);
  if (!pl) print_long_body(pr, op);
}

bool linalg_verify_reduce(kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op);
  const kiln_attr *dims = kiln_op_get_attr(op, "dimensions");
  if (!dims || dims->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "requires a 'dimensions' attribute");
  for (uint32_t i = 0; i < nin; i++) {
    const kiln_type *in = kiln_op_operand(op, i)->type, *init = kiln_op_operand(op, nin + i)->type;
    if (!kiln_type_is_ranked(in) || !kiln_type_is_ranked(init))
      return kiln_op_emit_error(op, "expects ranked operands");
    if (in->rank != init->rank + dims->count)
      return kiln_op_emit_error(op, "init dimensions [%u] doesn't match input dimensions after reduction [%u]",
                                init->rank, in->rank - (dims->count < in->rank ? dims->count : in->rank));
  }
  if (!verify_structured(op)) return false;
  /* body: in..., init... ; yields one value per init */
  if (!verify_body(op, 0, op->num_operands, nin, op->num_operands - nin)) return false;
  return check_init_results(op, nin);
}

bool linalg_parse_map(kiln_parser *p, kiln_op_state *st) {
  const char *pname;
  const kiln_attr *pattrs;
  if (!parse_short_form(p, st, &pname, &pattrs)) return false;
  uint32_t nin, nout;
  kiln_loc loc = kiln_p_loc(p);
  if (!parse_ins_outs(p, st, &nin, &nout)) return false;
  if (nout != 1) return kiln_p_error_at(p, loc, "expected one init");
  if (!kiln_p_opt_attr_dict(p, st)) return false;
  if (pname) {
    if (!build_payload(p, st, pname, pattrs, 0, nin, false)) return false;
  } else if (!parse_long_body(p, st)) {
    return false;
  }
  add_init_results(st, nin);
  return true;
}

void linalg_print_map(kiln_printer *pr, const kiln_op *op) {
  const kiln_op *pl = short_form_payload(op, false);
  if (pl) print_short_form(pr, pl);
  print_ins_outs(pr, op);
  kiln_pr_attr_dict(pr, op, NULL, false);
  if (!pl) print_long_body(pr, op);
}

bool linalg_verify_map(kiln_op *op) {
  uint32_t nin = kiln_linalg_num_inputs(op);
  const kiln_type *init = kiln_op_operand(op, nin)->type;
  for (uint32_t i = 0; i < nin; i++)
    if (kiln_op_operand(op, i)->type->rank != init->rank ||
        !kiln_type_is_ranked(kiln_op_operand(op, i)->type))
      return kiln_op_emit_error(op, "expected shape of input (%u) to match shape of output", i);
  if (!verify_structured(op)) return false;
  if (!verify_body(op, 0, nin, nin, 1)) return false;
  return check_init_results(op, nin);
}
