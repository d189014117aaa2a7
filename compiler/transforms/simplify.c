/* simplify: local algebraic rewrites that need no evaluation of constants
 * (fold-constants does that) but use their values.
 *
 * Takes: any module. Rewrites, on scalars and on tensors/vectors whose
 * constant operand is a splat:
 *   constants move to the right operand of commutative ops;
 *   x+0, 0+x, x-0, x*1, x/1, x|0, x^0, x&-1, x<<0, x>>0  -> x
 *   x*0, x&0, x-x, x^x, x%1 (integers)                   -> 0;  x|-1 -> -1
 *   x&x, x|x, max/min(x, x)                               -> x
 *   x + -0.0, x - 0.0, x * 1.0, x / 1.0 (floats)          -> x
 *   -(-x), trunc(ext x), index_cast(widening index_cast x),
 *   bitcast(bitcast x), tensor.cast to the same type or back, collapse of
 *   an expand (and back) with the same reassociation      -> x
 *   cmpi x, x                                             -> constant
 *   select on a constant condition, select c, x, x        -> that operand
 *   tensor.dim of a static dimension -> constant; of tensor.empty -> size
 *   tensor.extract of from_elements/splat                 -> the element
 *   extract_slice / insert_slice covering the whole tensor -> the source
 *   tensor.empty with constant sizes -> a static tensor.empty + tensor.cast
 *   a tensor.cast from a more static type feeding a linalg op whose ins and
 *   outs may mix static and dynamic dims -> the op reads the cast's source
 *   (an outs cast makes the result more static; users needing the old type
 *   read a cast back)
 *   scf.if on a constant condition  -> the taken branch, inlined
 *   scf.for that runs zero times    -> its initial values
 * Guarantees: every rewrite is exact (no fast-math assumptions: x+0.0 and
 * x*0.0 are kept for floats because of -0.0 and NaN). */
#include "tx_internal.h"

#include <stdlib.h>

typedef struct simp_state {
  kiln_context *ctx;
  bool changed;
  kiln_op_list scf; /* scf.if/scf.for seen, handled after the walk */
} simp_state;

static void replace(simp_state *st, kiln_op *op, kiln_value *v) {
  tx_replace_op(op, &v);
  st->changed = true;
}

/* Replaces op's result by a constant whose every element is v (int) --
 * only when the result type can hold a dense constant (static shape). */
static bool replace_int(simp_state *st, kiln_op *op, int64_t v) {
  const kiln_type *t = kiln_op_result(op, 0)->type;
  if (kiln_type_is_shaped(t) && !kiln_type_has_static_shape(t)) return false;
  tx_replace_with_constant(op, tx_attr_int(st->ctx, t, v));
  st->changed = true;
  return true;
}

static kiln_op *def_of(kiln_value *v, kiln_op_kind kind) {
  return v->def && v->def->kind == kind ? v->def : NULL;
}

static bool simplify_int_binary(simp_state *st, kiln_op *op, kiln_value *x,
                                kiln_value *y) {
  switch (op->kind) {
  case KILN_OP_ARITH_ADDI:
  case KILN_OP_ARITH_ORI:
  case KILN_OP_ARITH_XORI:
    if (tx_is_const_int(y, 0)) return replace(st, op, x), true;
    if (op->kind == KILN_OP_ARITH_ORI && tx_is_const_int(y, -1))
      return replace(st, op, y), true;
    if (x == y && op->kind == KILN_OP_ARITH_ORI) return replace(st, op, x), true;
    if (x == y && op->kind == KILN_OP_ARITH_XORI) return replace_int(st, op, 0);
    return false;
  case KILN_OP_ARITH_SUBI:
    if (tx_is_const_int(y, 0)) return replace(st, op, x), true;
    if (x == y) return replace_int(st, op, 0);
    return false;
  case KILN_OP_ARITH_MULI:
    if (tx_is_const_int(y, 1)) return replace(st, op, x), true;
    if (tx_is_const_int(y, 0)) return replace(st, op, y), true;
    return false;
  case KILN_OP_ARITH_DIVSI:
  case KILN_OP_ARITH_DIVUI:
  case KILN_OP_ARITH_CEILDIVSI:
  case KILN_OP_ARITH_CEILDIVUI:
  case KILN_OP_ARITH_FLOORDIVSI:
    if (tx_is_const_int(y, 1)) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_REMSI:
  case KILN_OP_ARITH_REMUI:
    if (tx_is_const_int(y, 1)) return replace_int(st, op, 0);
    return false;
  case KILN_OP_ARITH_ANDI:
    if (tx_is_const_int(y, -1)) return replace(st, op, x), true;
    if (tx_is_const_int(y, 0)) return replace(st, op, y), true;
    if (x == y) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_SHLI:
  case KILN_OP_ARITH_SHRSI:
  case KILN_OP_ARITH_SHRUI:
    if (tx_is_const_int(y, 0)) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_MAXSI:
  case KILN_OP_ARITH_MINSI:
  case KILN_OP_ARITH_MAXUI:
  case KILN_OP_ARITH_MINUI:
    if (x == y) return replace(st, op, x), true;
    return false;
  default: return false;
  }
}

static bool simplify_float_binary(simp_state *st, kiln_op *op, kiln_value *x,
                                  kiln_value *y) {
  switch (op->kind) {
  case KILN_OP_ARITH_ADDF: /* x + -0.0 == x for every x, +0.0 is not */
    if (tx_is_const_float(y, -0.0)) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_SUBF:
    if (tx_is_const_float(y, 0.0)) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_MULF:
  case KILN_OP_ARITH_DIVF:
    if (tx_is_const_float(y, 1.0)) return replace(st, op, x), true;
    return false;
  case KILN_OP_ARITH_MAXIMUMF:
  case KILN_OP_ARITH_MINIMUMF:
  case KILN_OP_ARITH_MAXNUMF:
  case KILN_OP_ARITH_MINNUMF:
    if (x == y) return replace(st, op, x), true;
    return false;
  default: return false;
  }
}

/* A cast that undoes a preceding exact cast: op(inner(x)) == x. */
static bool simplify_cast_pair(simp_state *st, kiln_op *op) {
  kiln_value *in = kiln_op_operand(op, 0);
  kiln_op *inner = in->def;
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  if (!inner || inner->num_operands < 1) return false;
  kiln_value *x = kiln_op_operand(inner, 0);
  if (x->type != rt) return false;
  unsigned wx = kiln_type_bitwidth(kiln_type_elem_or_self(x->type));
  unsigned wi = kiln_type_bitwidth(kiln_type_elem_or_self(in->type));
  bool undo = false;
  switch (op->kind) {
  case KILN_OP_ARITH_TRUNCI:
    undo = inner->kind == KILN_OP_ARITH_EXTSI || inner->kind == KILN_OP_ARITH_EXTUI;
    break;
  case KILN_OP_ARITH_TRUNCF: undo = inner->kind == KILN_OP_ARITH_EXTF; break;
  case KILN_OP_ARITH_INDEX_CAST:
    undo = inner->kind == KILN_OP_ARITH_INDEX_CAST && wx <= wi;
    break;
  case KILN_OP_ARITH_INDEX_CASTUI:
    undo = inner->kind == KILN_OP_ARITH_INDEX_CASTUI && wx <= wi;
    break;
  case KILN_OP_ARITH_BITCAST: undo = inner->kind == KILN_OP_ARITH_BITCAST; break;
  case KILN_OP_ARITH_NEGF: undo = inner->kind == KILN_OP_ARITH_NEGF; break;
  case KILN_OP_TENSOR_CAST: undo = inner->kind == KILN_OP_TENSOR_CAST; break;
  case KILN_OP_TENSOR_COLLAPSE_SHAPE:
  case KILN_OP_TENSOR_EXPAND_SHAPE:
    undo = inner->kind == (op->kind == KILN_OP_TENSOR_COLLAPSE_SHAPE
                               ? KILN_OP_TENSOR_EXPAND_SHAPE
                               : KILN_OP_TENSOR_COLLAPSE_SHAPE) &&
           kiln_op_get_attr(op, "reassociation") ==
               kiln_op_get_attr(inner, "reassociation");
    break;
  default: break;
  }
  if (!undo) return false;
  replace(st, op, x);
  return true;
}

/* cmpi x, x: true for the reflexive predicates eq, sle, sge, ule, uge. */
static bool simplify_cmpi_self(simp_state *st, kiln_op *op) {
  if (kiln_op_operand(op, 0) != kiln_op_operand(op, 1)) return false;
  const kiln_attr *p = kiln_op_get_attr(op, "predicate");
  if (!p || p->kind != KILN_ATTR_INTEGER || p->i < 0 || p->i > 9) return false;
  static const bool reflexive[10] = {1, 0, 0, 1, 0, 1, 0, 1, 0, 1};
  return replace_int(st, op, reflexive[p->i]);
}

static bool simplify_select(simp_state *st, kiln_op *op) {
  kiln_value *c = kiln_op_operand(op, 0), *a = kiln_op_operand(op, 1),
             *b = kiln_op_operand(op, 2);
  if (a == b) return replace(st, op, a), true;
  if (tx_is_const_int(c, 1)) return replace(st, op, a), true;
  if (tx_is_const_int(c, 0)) return replace(st, op, b), true;
  /* select c, true, false on i1 is c itself. */
  if (c->type == kiln_op_result(op, 0)->type && tx_is_const_int(a, 1) &&
      tx_is_const_int(b, 0))
    return replace(st, op, c), true;
  return false;
}

static bool simplify_dim(simp_state *st, kiln_op *op) {
  kiln_value *t = kiln_op_operand(op, 0);
  const kiln_attr *ix = kiln_value_constant(kiln_op_operand(op, 1));
  if (!ix || ix->kind != KILN_ATTR_INTEGER || !kiln_type_is_ranked(t->type))
    return false;
  if (ix->i < 0 || ix->i >= (int64_t)t->type->rank) return false;
  /* A tensor.cast keeps the sizes; its source may know them statically. */
  while (t->def && t->def->kind == KILN_OP_TENSOR_CAST &&
         t->def->num_operands == 1 && t->type->shape[ix->i] == KILN_DYNAMIC) {
    kiln_value *src = kiln_op_operand(t->def, 0);
    if (!kiln_type_is_ranked(src->type) || src->type->rank != t->type->rank)
      break;
    t = src;
  }
  int64_t d = t->type->shape[ix->i];
  if (d != KILN_DYNAMIC) return replace_int(st, op, d);
  /* The size operand of tensor.empty that stands for this dimension. */
  kiln_op *empty = def_of(t, KILN_OP_TENSOR_EMPTY);
  if (!empty) return false;
  uint32_t k = 0;
  for (int64_t i = 0; i < ix->i; i++)
    k += t->type->shape[i] == KILN_DYNAMIC;
  if (k >= empty->num_operands) return false;
  replace(st, op, kiln_op_operand(empty, k));
  return true;
}

static bool simplify_extract(simp_state *st, kiln_op *op) {
  kiln_value *t = kiln_op_operand(op, 0);
  kiln_op *splat = def_of(t, KILN_OP_TENSOR_SPLAT);
  if (splat) return replace(st, op, kiln_op_operand(splat, 0)), true;
  kiln_op *fe = def_of(t, KILN_OP_TENSOR_FROM_ELEMENTS);
  if (!fe || !kiln_type_has_static_shape(t->type) ||
      op->num_operands != t->type->rank + 1)
    return false;
  int64_t lin = 0;
  for (uint32_t d = 0; d < t->type->rank; d++) {
    const kiln_attr *ix = kiln_value_constant(kiln_op_operand(op, d + 1));
    if (!ix || ix->kind != KILN_ATTR_INTEGER || ix->i < 0 ||
        ix->i >= t->type->shape[d])
      return false;
    lin = lin * t->type->shape[d] + ix->i;
  }
  if (lin >= (int64_t)fe->num_operands) return false;
  replace(st, op, kiln_op_operand(fe, (uint32_t)lin));
  return true;
}

/* The i64 entries of a static_offsets/sizes/strides attribute. */
static const int64_t *static_list(const kiln_op *op, const char *name,
                                  uint32_t rank) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != rank) return NULL;
  return a->data;
}

/* A slice op with no dynamic operand whose offsets are 0, strides 1 and
 * sizes the full static shape `full`. */
static bool whole_slice(const kiln_op *op, const kiln_type *full,
                        uint32_t fixed_operands) {
  if (full->kind != KILN_TYPE_TENSOR || !kiln_type_has_static_shape(full) ||
      op->num_operands != fixed_operands)
    return false;
  const int64_t *off = static_list(op, "static_offsets", full->rank);
  const int64_t *size = static_list(op, "static_sizes", full->rank);
  const int64_t *stride = static_list(op, "static_strides", full->rank);
  if (!off || !size || !stride) return false;
  for (uint32_t d = 0; d < full->rank; d++)
    if (off[d] != 0 || stride[d] != 1 || size[d] != full->shape[d]) return false;
  return true;
}

static bool simplify_slices(simp_state *st, kiln_op *op) {
  kiln_value *src = kiln_op_operand(op, 0);
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  if (op->kind == KILN_OP_TENSOR_EXTRACT_SLICE) {
    if (src->type != rt || !whole_slice(op, src->type, 1)) return false;
    return replace(st, op, src), true;
  }
  kiln_value *dst = kiln_op_operand(op, 1);
  if (src->type != dst->type || !whole_slice(op, dst->type, 2)) return false;
  return replace(st, op, src), true;
}

/* tensor.empty(%c4, %n) : tensor<?x?xf32> -> tensor.empty(%n) :
 * tensor<4x?xf32> and a tensor.cast back (MLIR's canonical form). */
static bool simplify_empty(simp_state *st, kiln_op *op) {
  const kiln_type *t = kiln_op_result(op, 0)->type;
  if (t->kind != KILN_TYPE_TENSOR || t->rank > 16) return false;
  int64_t shape[16];
  kiln_value *keep[16];
  uint32_t k = 0, nkeep = 0;
  bool any = false;
  for (uint32_t d = 0; d < t->rank; d++) {
    shape[d] = t->shape[d];
    if (t->shape[d] != KILN_DYNAMIC) continue;
    if (k >= op->num_operands) return false;
    kiln_value *size = kiln_op_operand(op, k++);
    const kiln_attr *c = kiln_value_constant(size);
    if (c && c->kind == KILN_ATTR_INTEGER && c->i >= 0) {
      shape[d] = c->i;
      any = true;
    } else {
      keep[nkeep++] = size;
    }
  }
  if (!any || k != op->num_operands) return false;
  const kiln_type *to = kiln_type_with_shape(st->ctx, t, t->rank, shape);
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_op *e = kiln_build(&b, KILN_OP_TENSOR_EMPTY, nkeep, keep, 1, &to, NULL);
  kiln_value *ev = kiln_op_result(e, 0);
  kiln_op *c = kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &ev, 1, &t, NULL);
  replace(st, op, kiln_op_result(c, 0));
  return true;
}

/* Is `from` (a tensor.cast's source) more static than `to` (its result)? */
static bool more_static(const kiln_type *from, const kiln_type *to) {
  if (from->kind != KILN_TYPE_TENSOR || to->kind != KILN_TYPE_TENSOR ||
      from->rank != to->rank)
    return false;
  bool gain = false;
  for (uint32_t d = 0; d < to->rank; d++) {
    if (to->shape[d] != KILN_DYNAMIC && from->shape[d] != to->shape[d])
      return false;
    gain |= to->shape[d] == KILN_DYNAMIC && from->shape[d] != KILN_DYNAMIC;
  }
  return gain;
}

static bool absorb_casts(simp_state *st, kiln_op *op) {
  if (!tx_linalg_mixes_static(op) || op->num_results == 0 ||
      op->num_operands < op->num_results || !tx_op_is_effect_free(op))
    return false;
  uint32_t nins = op->num_operands - op->num_results, n = op->num_operands;
  kiln_value **next = malloc(sizeof *next * n);
  if (!next) return false;
  bool any = false;
  for (uint32_t j = 0; j < n; j++) {
    kiln_value *v = kiln_op_operand(op, j);
    kiln_op *cast = v->def;
    next[j] = v;
    if (cast && cast->kind == KILN_OP_TENSOR_CAST && cast->num_operands == 1 &&
        more_static(kiln_op_operand(cast, 0)->type, v->type)) {
      next[j] = kiln_op_operand(cast, 0);
      any = true;
    }
  }
  /* A cast may have hidden shapes that contradict each other (a run-time
   * error); exposing them would make the IR fail verification. */
  if (!any || !tx_shapes_consistent(op, next)) {
    free(next);
    return false;
  }
  bool done = false;
  for (uint32_t j = 0; j < n; j++) {
    kiln_value *v = kiln_op_operand(op, j), *src = next[j];
    if (src == v) continue;
    kiln_op_set_operand(op, j, src);
    if (j >= nins) { /* an init: the result follows its type */
      const kiln_type *old = kiln_op_result(op, j - nins)->type;
      kiln_value_set_type(&op->results[j - nins], src->type);
      tx_retarget_uses(op, j - nins, old, false);
    }
    done = true;
  }
  free(next);
  if (done) st->changed = true;
  return done;
}

static bool simplify_op(simp_state *st, kiln_op *op) {
  if (!tx_op_well_formed(op)) return false;
  if (kiln_op_has_flag(op, KILN_OPF_LINALG)) return absorb_casts(st, op);
  if (op->num_results != 1 && op->kind != KILN_OP_SCF_IF &&
      op->kind != KILN_OP_SCF_FOR)
    return false;
  bool elementwise = kiln_op_has_flag(op, KILN_OPF_ELEMENTWISE);
  if (elementwise && op->num_operands == 2 &&
      kiln_op_has_flag(op, KILN_OPF_COMMUTATIVE) &&
      kiln_value_constant(kiln_op_operand(op, 0)) &&
      !kiln_value_constant(kiln_op_operand(op, 1))) {
    kiln_value *l = kiln_op_operand(op, 0), *r = kiln_op_operand(op, 1);
    kiln_op_set_operand(op, 0, r);
    kiln_op_set_operand(op, 1, l);
    st->changed = true;
  }
  if (elementwise && op->num_operands == 2 &&
      kiln_op_has_flag(op, KILN_OPF_SAME_TYPES)) {
    kiln_value *x = kiln_op_operand(op, 0), *y = kiln_op_operand(op, 1);
    if (kiln_type_is_int_or_index(kiln_type_elem_or_self(x->type)))
      return simplify_int_binary(st, op, x, y);
    return simplify_float_binary(st, op, x, y);
  }
  switch (op->kind) {
  case KILN_OP_ARITH_CMPI: return simplify_cmpi_self(st, op);
  case KILN_OP_ARITH_SELECT: return simplify_select(st, op);
  case KILN_OP_TENSOR_DIM: return simplify_dim(st, op);
  case KILN_OP_TENSOR_EXTRACT: return simplify_extract(st, op);
  case KILN_OP_TENSOR_EXTRACT_SLICE:
  case KILN_OP_TENSOR_INSERT_SLICE: return simplify_slices(st, op);
  case KILN_OP_TENSOR_EMPTY: return simplify_empty(st, op);
  case KILN_OP_TENSOR_CAST:
    if (kiln_op_operand(op, 0)->type == kiln_op_result(op, 0)->type)
      return replace(st, op, kiln_op_operand(op, 0)), true;
    return simplify_cast_pair(st, op);
  case KILN_OP_SCF_IF:
  case KILN_OP_SCF_FOR:
    kiln_op_list_push(&st->scf, op); /* out of memory: left as it is */
    return false;
  default:
    if (op->num_operands == 1) return simplify_cast_pair(st, op);
    return false;
  }
}

/* Moves the ops of `block` (but its terminator) before `before`, and
 * replaces op's results by the terminator's operands. */
static void inline_block(simp_state *st, kiln_op *op, kiln_block *block) {
  kiln_op *term = kiln_block_terminator(block);
  if (!term || term->num_operands != op->num_results || block->num_args)
    return;
  for (kiln_op *o = block->first; o && o != term;) {
    kiln_op *next = o->next;
    kiln_op_move_before(o, op);
    o = next;
  }
  kiln_value **vals = malloc(sizeof(kiln_value *) * (op->num_results + 1));
  if (!vals) return;
  for (uint32_t i = 0; i < op->num_results; i++)
    vals[i] = kiln_op_operand(term, i);
  tx_replace_op(op, vals);
  free(vals);
  st->changed = true;
}

static void simplify_if(simp_state *st, kiln_op *op) {
  if (op->num_regions != 2) return;
  kiln_value *c = kiln_op_operand(op, 0);
  bool taken;
  if (tx_is_const_int(c, 1))
    taken = true;
  else if (tx_is_const_int(c, 0))
    taken = false;
  else
    return;
  kiln_block *b = kiln_op_region(op, taken ? 0 : 1)->first;
  if (!b) { /* no else: only possible without results */
    if (op->num_results == 0) {
      kiln_op_erase(op);
      st->changed = true;
    }
    return;
  }
  inline_block(st, op, b);
}

static void simplify_for(simp_state *st, kiln_op *op) {
  const kiln_attr *lb = kiln_value_constant(kiln_op_operand(op, 0));
  const kiln_attr *ub = kiln_value_constant(kiln_op_operand(op, 1));
  if (!lb || !ub || lb->kind != KILN_ATTR_INTEGER ||
      ub->kind != KILN_ATTR_INTEGER || lb->i < ub->i)
    return;
  /* Zero trips: results are the iter_args' initial values (operands 3..). */
  if (op->num_operands != 3 + op->num_results) return;
  kiln_value **vals = malloc(sizeof(kiln_value *) * (op->num_results + 1));
  if (!vals) return;
  for (uint32_t i = 0; i < op->num_results; i++)
    vals[i] = kiln_op_operand(op, 3 + i);
  tx_replace_op(op, vals);
  free(vals);
  st->changed = true;
}

static kiln_walk_result simplify_visit(kiln_op *op, void *user) {
  simplify_op(user, op);
  return KILN_WALK_ADVANCE;
}

kiln_error *tx_simplify(kiln_op *root, bool *changed) {
  simp_state st = {kiln_op_context(root), false, {0}};
  for (int round = 0; round < 8; round++) {
    st.changed = false;
    st.scf.n = 0;
    kiln_walk_post(root, simplify_visit, &st);
    for (size_t i = 0; i < st.scf.n; i++) {
      if (st.scf.ops[i]->kind == KILN_OP_SCF_IF)
        simplify_if(&st, st.scf.ops[i]);
      else
        simplify_for(&st, st.scf.ops[i]);
    }
    if (!st.changed) break;
    *changed = true;
  }
  free(st.scf.ops);
  return NULL;
}

kiln_error *kiln_pass_simplify(kiln_op *module, void *user) {
  (void)user;
  bool changed = false;
  return tx_simplify(module, &changed);
}
