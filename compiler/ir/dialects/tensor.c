/* tensor dialect: empty, extract, insert, extract_slice, insert_slice,
 * expand_shape, collapse_shape, concat, pad (+ yield), dim, cast,
 * from_elements, splat — syntax and verifiers. Mixed static/dynamic lists
 * are kept as MLIR keeps them: static_* dense arrays with KILN_DYNAMIC
 * holes plus index operands, and operandSegmentSizes. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

static bool is_ranked_tensor(const kiln_type *t) { return t->kind == KILN_TYPE_TENSOR; }

/* Any shaped type (tensor.extract/insert; the verifier wants a tensor). */
static bool parse_shaped_type(kiln_parser *p, const kiln_type **t) {
  kiln_loc loc = kiln_p_loc(p);
  if (!kiln_p_type(p, t)) return false;
  if (!kiln_type_is_shaped(*t)) return kiln_p_error_at(p, loc, "expected a tensor type");
  return true;
}

static const char *const seg_elide[] = {"operandSegmentSizes", "static_offsets",
                                        "static_sizes", "static_strides",
                                        "static_low", "static_high", "nofold",
                                        "static_output_shape", "reassociation",
                                        "dim", NULL};

/* ---- empty ---- */
bool tensor_parse_empty(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses dyn = {0};
  const kiln_type *t;
  if (!kiln_p_paren_operand_list(p, &dyn) || !kiln_p_attrs_colon(p, st) ||
      !kiln_p_type(p, &t) || !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

void tensor_print_empty(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, "(");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ")");
  kiln_pr_attrs_types(pr, op, NULL, op->results[0].type, NULL, NULL);
}

bool tensor_verify_empty(kiln_op *op) {
  const kiln_type *t = op->results[0].type;
  if (!is_ranked_tensor(t)) return ir_type_error(op, "result must be a ranked tensor", t);
  if (ir_count_dynamic_dims(t) != op->num_operands)
    return kiln_op_emit_error(op, "incorrect number of dynamic sizes, has %u, expected %u",
                              op->num_operands, ir_count_dynamic_dims(t));
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "dynamic sizes must be of index type");
  return true;
}

/* ---- extract / insert ---- */
bool tensor_parse_extract(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_element_read_op(p, st, parse_shaped_type);
}

static bool check_indices(kiln_op *op, const kiln_type *t, uint32_t first) {
  if (!kiln_type_is_ranked(t)) return true;
  if (op->num_operands - first != t->rank)
    return kiln_op_emit_error(op, "incorrect number of indices for extract_element");
  for (uint32_t i = first; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "indices must be of index type");
  return true;
}

bool tensor_verify_extract(kiln_op *op) {
  const kiln_type *t = kiln_op_operand(op, 0)->type;
  if (t->kind != KILN_TYPE_TENSOR && t->kind != KILN_TYPE_UNRANKED_TENSOR)
    return ir_type_error(op, "operand #0 must be a tensor", t);
  if (op->results[0].type != t->elem)
    return kiln_op_emit_error(op, "result type must match the element type of the tensor");
  return check_indices(op, t, 1);
}

bool tensor_parse_insert(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v, t;
  kiln_p_ssa_uses ix = {0};
  const kiln_type *tt;
  if (!kiln_p_operand(p, &v) || !kiln_p_expect_keyword(p, "into") ||
      !kiln_p_operand(p, &t) || !kiln_p_square_operand_list(p, &ix) ||
      !kiln_p_attrs_colon(p, st) || !parse_shaped_type(p, &tt) ||
      !kiln_p_resolve_add(p, st, &v, tt->elem) || !kiln_p_resolve_add(p, st, &t, tt) ||
      !kiln_p_resolve_indices(p, st, &ix))
    return false;
  kiln_st_add_type(st, tt);
  return true;
}

void tensor_print_insert(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, " into ");
  kiln_pr_operands(pr, op, 1, 1);
  kiln_pr_square_operands(pr, op, 2, op->num_operands - 2);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 1)->type, NULL, NULL);
}

bool tensor_verify_insert(kiln_op *op) {
  const kiln_type *t = kiln_op_operand(op, 1)->type;
  if (t->kind != KILN_TYPE_TENSOR && t->kind != KILN_TYPE_UNRANKED_TENSOR)
    return ir_type_error(op, "operand #1 must be a tensor", t);
  if (kiln_op_operand(op, 0)->type != t->elem)
    return kiln_op_emit_error(op, "scalar type must match the element type of the destination");
  if (op->results[0].type != t)
    return kiln_op_emit_error(op, "result type must match the destination type");
  return check_indices(op, t, 2);
}

/* ---- slices ---- */
bool tensor_parse_extract_slice(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_slice_op(p, st, kiln_p_type);
}

void tensor_print_extract_slice(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_slice_op(pr, op, seg_elide);
}

/* Shared checks: list lengths = source rank; slice shape vs `sliced`
 * (possibly rank-reduced by dropping unit dims). */
static bool verify_slice(kiln_op *op, const kiln_type *full, const kiln_type *sliced,
                         uint32_t first_dyn) {
  if (!is_ranked_tensor(full)) return ir_type_error(op, "expected a ranked tensor", full);
  if (!is_ranked_tensor(sliced)) return ir_type_error(op, "expected a ranked tensor", sliced);
  const kiln_attr *o = kiln_op_get_attr(op, "static_offsets");
  const kiln_attr *s = kiln_op_get_attr(op, "static_sizes");
  const kiln_attr *t = kiln_op_get_attr(op, "static_strides");
  if (!o || !s || !t || o->kind != KILN_ATTR_DENSE_ARRAY ||
      s->kind != KILN_ATTR_DENSE_ARRAY || t->kind != KILN_ATTR_DENSE_ARRAY)
    return kiln_op_emit_error(op, "requires static_offsets, static_sizes and static_strides");
  if (o->count != full->rank || s->count != full->rank || t->count != full->rank)
    return kiln_op_emit_error(op, "expected %u offset/size/stride values (the source rank)",
                              full->rank);
  uint32_t ndyn = ir_count_dynamic(o) + ir_count_dynamic(s) + ir_count_dynamic(t);
  if (op->num_operands - first_dyn != ndyn)
    return kiln_op_emit_error(op, "expected %u dynamic offset/size/stride operands", ndyn);
  for (uint32_t i = first_dyn; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "offsets, sizes and strides must be index values");
  const int64_t *sz = s->data;
  /* Match sliced dims to sizes, skipping unit sizes that were dropped. */
  uint32_t j = 0;
  for (uint32_t i = 0; i < full->rank; i++) {
    uint32_t remaining_sizes = full->rank - i, remaining_dims = sliced->rank - j;
    if (j < sliced->rank && (remaining_sizes == remaining_dims || sz[i] != 1 ||
                             sliced->shape[j] == 1)) {
      if (sz[i] != KILN_DYNAMIC && sliced->shape[j] != KILN_DYNAMIC &&
          sz[i] != sliced->shape[j])
        return kiln_op_emit_error(op, "expected type to be compatible with the sizes: dim %u is %lld, size is %lld",
                                  j, (long long)sliced->shape[j], (long long)sz[i]);
      j++;
    } else if (sz[i] != 1) {
      return kiln_op_emit_error(op, "expected rank-reduced type to drop only unit dimensions");
    }
  }
  if (j != sliced->rank)
    return kiln_op_emit_error(op, "expected result rank to be at most the rank of the source");
  if (sliced->elem != full->elem)
    return kiln_op_emit_error(op, "expected matching element types");
  return true;
}

bool tensor_verify_extract_slice(kiln_op *op) {
  return verify_slice(op, kiln_op_operand(op, 0)->type, op->results[0].type, 1);
}

bool tensor_parse_insert_slice(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use src, dst;
  kiln_p_ssa_uses dyn = {0};
  int64_t seg[5] = {1, 1};
  const kiln_type *s, *d;
  if (!kiln_p_operand(p, &src) || !kiln_p_expect_keyword(p, "into") ||
      !kiln_p_operand(p, &dst) || !kiln_p_slice(p, st, false, &dyn, seg + 2) ||
      !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &s) ||
      !kiln_p_expect_keyword(p, "into") || !kiln_p_type(p, &d) ||
      !kiln_p_resolve_add(p, st, &src, s) || !kiln_p_resolve_add(p, st, &dst, d) ||
      !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_set_segments(st, 5, seg);
  kiln_st_add_type(st, d);
  return true;
}

void tensor_print_insert_slice(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_puts(pr, " into ");
  kiln_pr_operands(pr, op, 1, 1);
  kiln_pr_slice(pr, op, 2, false);
  kiln_pr_attrs_types(pr, op, seg_elide, kiln_op_operand(op, 0)->type, " into ",
                      kiln_op_operand(op, 1)->type);
}

bool tensor_verify_insert_slice(kiln_op *op) {
  if (op->results[0].type != kiln_op_operand(op, 1)->type)
    return kiln_op_emit_error(op, "result type must match the destination type");
  return verify_slice(op, kiln_op_operand(op, 1)->type, kiln_op_operand(op, 0)->type, 2);
}

/* ---- expand_shape / collapse_shape ---- */
bool tensor_parse_reshape(kiln_parser *p, kiln_op_state *st) {
  return kiln_p_reshape_op(p, st, st->info->kind == KILN_OP_TENSOR_EXPAND_SHAPE, kiln_p_type);
}

void tensor_print_reshape(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_reshape_op(pr, op, op->kind == KILN_OP_TENSOR_EXPAND_SHAPE, seg_elide);
}

bool tensor_verify_reshape(kiln_op *op) {
  bool expand = op->kind == KILN_OP_TENSOR_EXPAND_SHAPE;
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  if (!is_ranked_tensor(src) || !is_ranked_tensor(res))
    return kiln_op_emit_error(op, "expects ranked tensor types");
  if (src->elem != res->elem) return kiln_op_emit_error(op, "expects matching element types");
  const kiln_type *big = expand ? res : src, *small = expand ? src : res;
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  if (!re || re->kind != KILN_ATTR_ARRAY)
    return kiln_op_emit_error(op, "requires a 'reassociation' attribute");
  if (re->count == 0 && small->rank == 0) { /* rank 0 <-> all unit dims */
    for (uint32_t i = 0; i < big->rank; i++)
      if (big->shape[i] != 1 && big->shape[i] != KILN_DYNAMIC)
        return kiln_op_emit_error(op, "expected dimensions of a reshape from rank 0 to be 1");
    goto check_output_shape;
  }
  if (re->count != small->rank)
    return kiln_op_emit_error(op, "expected rank of the collapsed type(%u) to be the number of reassociation maps(%u)",
                              small->rank, re->count);
  uint32_t next = 0;
  for (uint32_t g = 0; g < re->count; g++) {
    const kiln_attr *grp = re->elems[g];
    if (grp->kind != KILN_ATTR_ARRAY || (grp->count == 0 && big->rank != 0))
      return kiln_op_emit_error(op, "expected reassociation groups to be non-empty lists");
    int64_t prod = 1;
    bool dyn = false;
    for (uint32_t j = 0; j < grp->count; j++) {
      const kiln_attr *e = grp->elems[j];
      if (e->kind != KILN_ATTR_INTEGER || e->i != (int64_t)next)
        return kiln_op_emit_error(op, "expected reassociation map #%u to be valid and contiguous", g);
      if (next >= big->rank)
        return kiln_op_emit_error(op, "reassociation indices exceed the expanded rank %u", big->rank);
      int64_t d = big->shape[next++];
      if (d == KILN_DYNAMIC) dyn = true;
      else if (!dyn && d && prod > INT64_MAX / d) dyn = true;
      else prod *= d;
    }
    int64_t sd = small->shape[g];
    if (!dyn && sd != KILN_DYNAMIC && sd != prod)
      return kiln_op_emit_error(op, "expected dimension %u of collapsed type to be static value of %lld",
                                g, (long long)prod);
    if (!dyn && sd == KILN_DYNAMIC && grp->count) { /* allowed: static group, dynamic collapsed */
    }
  }
  if (next != big->rank)
    return kiln_op_emit_error(op, "expected rank of the expanded type(%u) to be covered by the reassociation",
                              big->rank);
check_output_shape:
  if (expand) {
    const kiln_attr *os = kiln_op_get_attr(op, "static_output_shape");
    if (!os || os->kind != KILN_ATTR_DENSE_ARRAY || os->count != res->rank)
      return kiln_op_emit_error(op, "expected number of static shape dims to be equal to the output rank (%u)",
                                res->rank);
    if (ir_count_dynamic(os) != op->num_operands - 1)
      return kiln_op_emit_error(op, "mismatch in dynamic dims in output_shape and static_output_shape");
    const int64_t *v = os->data;
    for (uint32_t i = 0; i < res->rank; i++)
      if (v[i] != KILN_DYNAMIC && res->shape[i] != KILN_DYNAMIC && v[i] != res->shape[i])
        return kiln_op_emit_error(op, "invalid output_shape: dim %u is %lld but the result type has %lld",
                                  i, (long long)v[i], (long long)res->shape[i]);
  }
  return true;
}

/* ---- concat ---- */
bool tensor_parse_concat(kiln_parser *p, kiln_op_state *st) {
  int64_t dim;
  if (!kiln_p_expect_keyword(p, "dim") || !kiln_p_expect(p, KILN_TOK_LPAREN) ||
      !kiln_p_int(p, &dim) || !kiln_p_expect(p, KILN_TOK_RPAREN))
    return false;
  kiln_st_set_attr(st, "dim", kiln_attr_int(st->ctx, kiln_type_int(st->ctx, 64), dim));
  kiln_p_ssa_uses ops = {0};
  kiln_loc loc = kiln_p_loc(p);
  const kiln_type *fn;
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_attrs_colon(p, st) ||
      !kiln_p_function_type(p, &fn))
    return false;
  if (fn->num_results != 1) return kiln_p_error_at(p, loc, "expected one result type");
  kiln_p_types in = {(const kiln_type **)fn->types, fn->num_inputs, 0};
  if (!kiln_p_resolve_list(p, st, &ops, &in, loc)) return false;
  kiln_st_add_type(st, fn->types[fn->num_inputs]);
  return true;
}

void tensor_print_concat(kiln_printer *pr, const kiln_op *op) {
  const kiln_attr *d = kiln_op_get_attr(op, "dim");
  kiln_pr_printf(pr, " dim(%lld) ", d ? (long long)d->i : 0LL);
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_attr_dict(pr, op, seg_elide, false);
  kiln_pr_puts(pr, " : (");
  kiln_pr_operand_types(pr, op, 0, op->num_operands);
  kiln_pr_puts(pr, ") -> ");
  kiln_pr_type(pr, op->results[0].type);
}

bool tensor_verify_concat(kiln_op *op) {
  const kiln_attr *da = kiln_op_get_attr(op, "dim");
  const kiln_type *r = op->results[0].type;
  if (!is_ranked_tensor(r)) return ir_type_error(op, "result must be a ranked tensor", r);
  if (!da || da->kind != KILN_ATTR_INTEGER || da->i < 0 || da->i >= (int64_t)r->rank)
    return kiln_op_emit_error(op, "concatenation dim must be less than the tensor rank");
  uint32_t dim = (uint32_t)da->i;
  int64_t sum = 0;
  bool dyn = false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    if (!is_ranked_tensor(t) || t->rank != r->rank)
      return kiln_op_emit_error(op, "rank of concatenated inputs must match result rank");
    if (t->elem != r->elem)
      return kiln_op_emit_error(op, "inputs and result element type must match");
    for (uint32_t k = 0; k < r->rank; k++) {
      if (k == dim) continue;
      if (t->shape[k] != KILN_DYNAMIC && r->shape[k] != KILN_DYNAMIC &&
          t->shape[k] != r->shape[k])
        return kiln_op_emit_error(op, "static concatenation size mismatch along non-concatenated dimension %u", k);
    }
    if (t->shape[dim] == KILN_DYNAMIC) dyn = true;
    else sum += t->shape[dim];
  }
  if (!dyn && r->shape[dim] != KILN_DYNAMIC && r->shape[dim] != sum)
    return kiln_op_emit_error(op, "result type has %lld elements along the concatenated dimension, inputs sum to %lld",
                              (long long)r->shape[dim], (long long)sum);
  return true;
}

/* ---- pad ---- */
bool tensor_parse_pad(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use src;
  kiln_p_ssa_uses low = {0}, high = {0};
  if (!kiln_p_operand(p, &src)) return false;
  if (kiln_p_accept_keyword(p, "nofold")) kiln_st_set_attr(st, "nofold", kiln_attr_unit(st->ctx));
  const kiln_type *s, *r;
  if (!kiln_p_expect_keyword(p, "low") || !kiln_p_static_list(p, st, "static_low", &low) ||
      !kiln_p_expect_keyword(p, "high") || !kiln_p_static_list(p, st, "static_high", &high) ||
      !kiln_p_region(p, st, NULL, 0) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &s) ||
      !kiln_p_expect_keyword(p, "to") || !kiln_p_type(p, &r) ||
      !kiln_p_resolve_add(p, st, &src, s) || !kiln_p_resolve_indices(p, st, &low) ||
      !kiln_p_resolve_indices(p, st, &high))
    return false;
  int64_t seg[3] = {1, low.n, high.n};
  kiln_st_set_segments(st, 3, seg);
  kiln_st_add_type(st, r);
  return true;
}

void tensor_print_pad(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  if (kiln_op_get_attr(op, "nofold")) kiln_pr_puts(pr, " nofold");
  uint32_t next = 1;
  kiln_pr_puts(pr, " low");
  kiln_pr_static_list(pr, op, "static_low", &next);
  kiln_pr_puts(pr, " high");
  kiln_pr_static_list(pr, op, "static_high", &next);
  kiln_pr_puts(pr, " ");
  kiln_pr_region(pr, &op->regions[0], true, true);
  kiln_pr_attrs_types(pr, op, seg_elide, kiln_op_operand(op, 0)->type, " to ",
                      op->results[0].type);
}

bool tensor_verify_pad(kiln_op *op) {
  const kiln_type *s = kiln_op_operand(op, 0)->type, *r = op->results[0].type;
  if (!is_ranked_tensor(s) || !is_ranked_tensor(r))
    return kiln_op_emit_error(op, "expects ranked tensor types");
  const kiln_attr *lo = kiln_op_get_attr(op, "static_low");
  const kiln_attr *hi = kiln_op_get_attr(op, "static_high");
  if (!lo || !hi || lo->kind != KILN_ATTR_DENSE_ARRAY || hi->kind != KILN_ATTR_DENSE_ARRAY ||
      lo->count != s->rank || hi->count != s->rank)
    return kiln_op_emit_error(op, "expected %u low and high padding values", s->rank);
  if (r->rank != s->rank || r->elem != s->elem)
    return kiln_op_emit_error(op, "result must have the rank and element type of the source");
  if (ir_count_dynamic(lo) + ir_count_dynamic(hi) != op->num_operands - 1)
    return kiln_op_emit_error(op, "expected one index operand per dynamic padding value");
  const int64_t *l = lo->data, *h = hi->data;
  for (uint32_t i = 0; i < s->rank; i++) {
    if (s->shape[i] == KILN_DYNAMIC || l[i] == KILN_DYNAMIC || h[i] == KILN_DYNAMIC ||
        r->shape[i] == KILN_DYNAMIC)
      continue;
    if (s->shape[i] + l[i] + h[i] != r->shape[i])
      return kiln_op_emit_error(op, "specified type '%lld' does not match the inferred type %lld at dim %u",
                                (long long)r->shape[i], (long long)(s->shape[i] + l[i] + h[i]), i);
  }
  kiln_block *b = op->regions[0].first;
  if (!b || b != op->regions[0].last || b->num_args != s->rank)
    return kiln_op_emit_error(op, "expected the block to have %u index arguments", s->rank);
  for (uint32_t i = 0; i < b->num_args; i++)
    if (b->args[i]->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "expected block argument %u to be an index", i);
  kiln_op *y = kiln_block_terminator(b);
  if (!y || y->kind != KILN_OP_TENSOR_YIELD)
    return kiln_op_emit_error(op, "expected the region to end with 'tensor.yield'");
  if (kiln_op_operand(y, 0)->type != s->elem)
    return kiln_op_emit_error(op, "expected yield type to match the element type of the source");
  return true;
}

bool tensor_parse_yield(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v;
  const kiln_type *t;
  return kiln_p_operand(p, &v) && kiln_p_attrs_colon(p, st) && kiln_p_type(p, &t) &&
         kiln_p_resolve_add(p, st, &v, t);
}

void tensor_print_yield(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  kiln_pr_attr_dict(pr, op, NULL, false);
  kiln_pr_puts(pr, " : ");
  kiln_pr_operand_types(pr, op, 0, 1);
}

/* ---- dim, cast, from_elements, splat ---- */
bool tensor_parse_dim(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use t, i;
  const kiln_type *tt, *index = kiln_type_index(st->ctx);
  if (!kiln_p_operand(p, &t) || !kiln_p_expect(p, KILN_TOK_COMMA) ||
      !kiln_p_operand(p, &i) || !kiln_p_attrs_colon(p, st) || !kiln_p_type(p, &tt) ||
      !kiln_p_resolve_add(p, st, &t, tt) || !kiln_p_resolve_add(p, st, &i, index))
    return false;
  kiln_st_add_type(st, index);
  return true;
}

void tensor_print_dim(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 2);
  kiln_pr_attrs_types(pr, op, NULL, kiln_op_operand(op, 0)->type, NULL, NULL);
}

bool tensor_verify_dim(kiln_op *op) {
  const kiln_type *t = kiln_op_operand(op, 0)->type;
  if (t->kind != KILN_TYPE_TENSOR && t->kind != KILN_TYPE_UNRANKED_TENSOR)
    return ir_type_error(op, "operand #0 must be a tensor", t);
  if (kiln_op_operand(op, 1)->type->kind != KILN_TYPE_INDEX)
    return kiln_op_emit_error(op, "operand #1 must be index");
  if (op->results[0].type->kind != KILN_TYPE_INDEX)
    return kiln_op_emit_error(op, "result #0 must be index");
  const kiln_attr *c = kiln_value_constant(kiln_op_operand(op, 1));
  if (c && c->kind == KILN_ATTR_INTEGER && t->kind == KILN_TYPE_TENSOR &&
      (c->i < 0 || c->i >= (int64_t)t->rank))
    return kiln_op_emit_error(op, "index is out of range");
  return true;
}

bool tensor_verify_cast(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  bool at = a->kind == KILN_TYPE_TENSOR || a->kind == KILN_TYPE_UNRANKED_TENSOR;
  bool bt = b->kind == KILN_TYPE_TENSOR || b->kind == KILN_TYPE_UNRANKED_TENSOR;
  if (!at || !bt || a->elem != b->elem) goto bad;
  if (a->kind == KILN_TYPE_TENSOR && b->kind == KILN_TYPE_TENSOR) {
    if (a->rank != b->rank) goto bad;
    for (uint32_t i = 0; i < a->rank; i++)
      if (a->shape[i] != KILN_DYNAMIC && b->shape[i] != KILN_DYNAMIC &&
          a->shape[i] != b->shape[i])
        goto bad;
  }
  return true;
bad : {
  char *x = kiln_type_to_string(a), *y = kiln_type_to_string(b);
  kiln_op_emit_error(op, "operand type '%s' and result type '%s' are cast incompatible", x, y);
  free(x);
  free(y);
  return false;
}
}

/* tensor.bitcast: same shape, element types of one bit width (int or
 * float, any signedness): the same bytes read as another type. */
bool tensor_verify_bitcast(kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  bool ok = a->kind == KILN_TYPE_TENSOR && b->kind == KILN_TYPE_TENSOR && a->rank == b->rank;
  for (uint32_t i = 0; ok && i < a->rank; i++)
    ok = a->shape[i] == KILN_DYNAMIC || b->shape[i] == KILN_DYNAMIC || a->shape[i] == b->shape[i];
  const kiln_type *x = a->elem, *y = b->elem;
  ok = ok && x && y && (x->kind == KILN_TYPE_INTEGER || kiln_type_is_float(x)) &&
       (y->kind == KILN_TYPE_INTEGER || kiln_type_is_float(y)) && kiln_type_bitwidth(x) == kiln_type_bitwidth(y);
  if (ok) return true;
  char *s = kiln_type_to_string(a), *t = kiln_type_to_string(b);
  kiln_op_emit_error(op, "operand type '%s' and result type '%s' are cast incompatible", s, t);
  free(s);
  free(t);
  return false;
}

bool tensor_parse_from_elements(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_uses ops = {0};
  const kiln_type *t;
  if (!kiln_p_operand_list(p, &ops) || !kiln_p_attrs_colon(p, st) ||
      !kiln_p_ranked_tensor_type(p, &t) || !kiln_p_resolve_all(p, st, &ops, t->elem))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

void tensor_print_from_elements(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, op->num_operands);
  kiln_pr_attrs_types(pr, op, NULL, op->results[0].type, NULL, NULL);
}

bool tensor_verify_from_elements(kiln_op *op) {
  const kiln_type *t = op->results[0].type;
  if (!is_ranked_tensor(t) || !kiln_type_has_static_shape(t))
    return ir_type_error(op, "result must be a statically shaped tensor", t);
  if (kiln_type_num_elements(t) != (int64_t)op->num_operands)
    return kiln_op_emit_error(op, "number of elements (%u) does not match the result type's %lld",
                              op->num_operands, (long long)kiln_type_num_elements(t));
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type != t->elem)
      return kiln_op_emit_error(op, "operand #%u must have the element type of the result", i);
  return true;
}

bool tensor_parse_splat(kiln_parser *p, kiln_op_state *st) {
  kiln_p_ssa_use v;
  kiln_p_ssa_uses dyn = {0};
  const kiln_type *t;
  if (!kiln_p_operand(p, &v) ||
      (kiln_p_is(p, KILN_TOK_LSQUARE) && !kiln_p_square_operand_list(p, &dyn)) ||
      !kiln_p_attrs_colon(p, st) || !kiln_p_ranked_tensor_type(p, &t) ||
      !kiln_p_resolve_add(p, st, &v, t->elem) || !kiln_p_resolve_indices(p, st, &dyn))
    return false;
  kiln_st_add_type(st, t);
  return true;
}

void tensor_print_splat(kiln_printer *pr, const kiln_op *op) {
  kiln_pr_puts(pr, " ");
  kiln_pr_operands(pr, op, 0, 1);
  if (op->num_operands > 1) kiln_pr_square_operands(pr, op, 1, op->num_operands - 1);
  kiln_pr_attrs_types(pr, op, NULL, op->results[0].type, NULL, NULL);
}

bool tensor_verify_splat(kiln_op *op) {
  const kiln_type *t = op->results[0].type;
  if (!is_ranked_tensor(t)) return ir_type_error(op, "result must be a ranked tensor", t);
  if (kiln_op_operand(op, 0)->type != t->elem)
    return kiln_op_emit_error(op, "operand must have the element type of the result");
  if (ir_count_dynamic_dims(t) != op->num_operands - 1)
    return kiln_op_emit_error(op, "incorrect number of dynamic sizes, has %u, expected %u",
                              op->num_operands - 1, ir_count_dynamic_dims(t));
  return true;
}
