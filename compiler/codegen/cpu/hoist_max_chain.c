/* A max pool that form-dispatch-regions fused behind a convolution reads
 * the convolution's raw sums through their epilogue, recomputed at every
 * tap of every window: max over the window of relu(x + bias[c]), nine
 * adds, compares and selects per output for a 3x3 pool. When that chain
 * g is monotone non-decreasing in x (adds and subtractions of values the
 * window does not move, max/min with them, ReLU's select), the max of g
 * over the window is g of the max, so the chain runs once per output:
 *   fill(-inf); generic { out = max(out, g(x)) }
 * becomes
 *   fill(-inf); generic { out = max(out, x) }; generic { out = g(out) }
 * and the second generic, an elementwise op reading the output in place,
 * joins the pool's register block as its epilogue (fuse_epilogue.c).
 * The fill must be -inf: then g(fill) is g's least value and the two
 * forms agree on every window without NaN (a window holding one gives
 * g(NaN) where ReLU's select would have dropped it before the max).
 *
 * cpu_hoist_max_chain takes a linalg.generic on memrefs with one output
 * and reduction loops; it rewrites it as above, or leaves it untouched
 * and returns false. Not for kernels run as thread blocks (the GPU path
 * has distributed the ops to threads before lower-to-loops). */
#include "cpu_internal.h"

#include <math.h>
#include <string.h>

/* cmpf predicates in MLIR's numbering */
enum { CMPF_OGT = 2, CMPF_OGE = 3, CMPF_OLT = 4, CMPF_OLE = 5 };

static int cmpf_predicate(const kiln_op *op) {
  static const char *const names[] = {"false", "oeq", "ogt", "oge", "olt", "ole"};
  const kiln_attr *a = kiln_op_get_attr(op, "predicate");
  if (!a) return -1;
  if (a->kind == KILN_ATTR_INTEGER) return (int)a->i;
  if (a->kind != KILN_ATTR_STRING && a->kind != KILN_ATTR_OPAQUE) return -1;
  for (int i = 0; i < 6; i++)
    if (strlen(names[i]) == a->len && memcmp(names[i], a->str, a->len) == 0) return i;
  return -1;
}

typedef struct chain {
  kiln_op *op;
  kiln_block *body;
  uint32_t nin;
  int loops;
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  bool inv_in[CG_MAX_OPERANDS];     /* inputs the chain reads besides x */
  kiln_op *ops[32];                 /* the chain, last op first */
  int n;
} chain;

static bool map_uses_reduction(const chain *c, const kiln_affine_map *m) {
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], c->loops, coef, &cst)) return true;
    for (int l = 0; l < c->loops; l++)
      if (coef[l] && c->red[l]) return true;
  }
  return false;
}

/* Is v the same at every tap of a window: defined outside the body, a
 * constant in it, or an input read without the reduction loops? */
static bool invariant(chain *c, kiln_value *v) {
  kiln_op *d = v->def;
  if (d) return d->parent != c->body || d->kind == KILN_OP_ARITH_CONSTANT;
  for (uint32_t i = 0; i < c->nin; i++)
    if (c->body->args[i] == v) {
      if (map_uses_reduction(c, c->maps[i])) return false;
      c->inv_in[i] = true;
      return true;
    }
  return false;
}

static bool push(chain *c, kiln_op *o) {
  if (c->n == (int)(sizeof c->ops / sizeof c->ops[0])) return false;
  c->ops[c->n++] = o;
  return true;
}

/* Walks the chain up from v (what the max combines) to x, the block
 * argument of an input read through the window; returns x's input
 * number, or -1 where some step is not monotone non-decreasing in x. */
static int walk(chain *c, kiln_value *v) {
  uint32_t uses = 1; /* of v, all in the chain */
  for (;;) {
    if (!v->def) {
      for (uint32_t i = 0; i < c->nin; i++)
        if (c->body->args[i] == v) return map_uses_reduction(c, c->maps[i]) ? (int)i : -1;
      return -1;
    }
    kiln_op *d = v->def;
    if (d->parent != c->body || d->num_results != 1 || kiln_value_use_count(v) != uses || !push(c, d)) return -1;
    uses = 1;
    kiln_value *a = d->num_operands > 0 ? kiln_op_operand(d, 0) : NULL;
    kiln_value *b = d->num_operands > 1 ? kiln_op_operand(d, 1) : NULL;
    switch (d->kind) {
    case KILN_OP_ARITH_ADDF:
    case KILN_OP_ARITH_MAXIMUMF:
    case KILN_OP_ARITH_MINIMUMF:
    case KILN_OP_ARITH_MAXNUMF:
    case KILN_OP_ARITH_MINNUMF:
      if (invariant(c, b)) v = a;
      else if (invariant(c, a)) v = b;
      else return -1;
      break;
    case KILN_OP_ARITH_SUBF:
      if (!invariant(c, b)) return -1;
      v = a;
      break;
    case KILN_OP_ARITH_SELECT: {
      /* ReLU, ReLU6 and their kin: select(cmp(t, k), t, k) with an
       * ordered <, <=, > or >= and the same two values in either order
       * in the compare and the select is max(t, k) or min(t, k); t feeds
       * the compare and the select. */
      kiln_value *cond = a, *t;
      kiln_op *cmp = cond->def;
      if (!cmp || cmp->kind != KILN_OP_ARITH_CMPF || cmp->parent != c->body || !kiln_value_has_one_use(cond))
        return -1;
      int p = cmpf_predicate(cmp);
      kiln_value *l = kiln_op_operand(cmp, 0), *r = kiln_op_operand(cmp, 1);
      kiln_value *tv = kiln_op_operand(d, 1), *fv = kiln_op_operand(d, 2);
      if (p < CMPF_OGT || p > CMPF_OLE || l == r || !((tv == l && fv == r) || (tv == r && fv == l)))
        return -1;
      if (invariant(c, r)) t = l;
      else if (invariant(c, l)) t = r;
      else return -1;
      if (!push(c, cmp)) return -1;
      v = t, uses = 2; /* the compare's and the select's */
      break;
    }
    default: return -1;
    }
  }
}

/* m (over the op's loops, none a reduction) over the output's dims, the
 * output map om a permutation of the op's parallel loops. */
static const kiln_affine_expr *over_out(kiln_context *ctx, const kiln_affine_expr *e, const int *pos) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: return pos[e->value] < 0 ? NULL : kiln_affine_dim(ctx, (unsigned)pos[e->value]);
  case KILN_AFFINE_CONST: return e;
  case KILN_AFFINE_SYMBOL: return NULL;
  default: {
    const kiln_affine_expr *l = over_out(ctx, e->lhs, pos), *r = over_out(ctx, e->rhs, pos);
    return l && r ? kiln_affine_binary(ctx, e->kind, l, r) : NULL;
  }
  }
}

static bool runs_as_thread_block(kiln_op *op) {
  kiln_op *f = kiln_op_ancestor(op, KILN_OP_FUNC_FUNC);
  int64_t bs[3];
  return f && cg_launch_array(f, "block_size", bs, 3) > 0;
}

bool cpu_hoist_max_chain(kiln_op *op) {
  chain c;
  memset(&c, 0, sizeof c);
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_results || op->num_operands > CG_MAX_OPERANDS ||
      runs_as_thread_block(op))
    return false;
  c.op = op;
  c.nin = kiln_linalg_num_inputs(op);
  int64_t bounds[KILN_MAX_LOOPS];
  c.loops = cg_static_bounds(op, c.maps, c.red, bounds);
  if (c.loops < 1 || op->num_operands != c.nin + 1) return false;
  kiln_value *out = kiln_op_operand(op, c.nin);
  const kiln_affine_map *om = c.maps[c.nin];
  uint32_t rank = out->type->rank;
  if (out->type->kind != KILN_TYPE_MEMREF || !kiln_type_is_float(out->type->elem) || om->num_results != rank ||
      !kiln_affine_map_is_projected_permutation(om))
    return false;
  int pos[KILN_MAX_LOOPS], parallel = 0;
  for (int l = 0; l < c.loops; l++) pos[l] = -1, parallel += !c.red[l];
  for (uint32_t r = 0; r < rank; r++) pos[om->results[r]->value] = (int)r;
  if (parallel != (int)rank || parallel == c.loops) return false;
  /* The output starts at -inf. */
  kiln_op *fill = cpu_fused_fill(op, out);
  const kiln_attr *fv = fill ? kiln_value_constant(kiln_op_operand(fill, 0)) : NULL;
  if (!fv || fv->kind != KILN_ATTR_FLOAT || !isinf(fv->f) || fv->f > 0) return false;
  c.body = op->regions[0].first;
  kiln_op *y = c.body ? kiln_block_terminator(c.body) : NULL;
  if (!y || y->num_operands != 1 || c.body->num_args != op->num_operands) return false;
  kiln_op *mx = kiln_op_operand(y, 0)->def;
  kiln_value *acc = c.body->args[c.nin];
  if (!mx || mx->parent != c.body ||
      (mx->kind != KILN_OP_ARITH_MAXIMUMF && mx->kind != KILN_OP_ARITH_MAXNUMF) ||
      kiln_value_use_count(acc) != 1)
    return false;
  uint32_t gi = kiln_op_operand(mx, 0) == acc ? 1 : 0;
  if (kiln_op_operand(mx, 1 - gi) != acc) return false;
  kiln_value *g = kiln_op_operand(mx, gi);
  int xi = walk(&c, g);
  if (xi < 0 || c.n == 0) return false;
  /* Nothing else in the body but constants: the chain is all it
   * computes. */
  for (kiln_op *o = c.body->first; o; o = o->next) {
    bool in = o == y || o == mx || o->kind == KILN_OP_ARITH_CONSTANT;
    for (int i = 0; i < c.n && !in; i++) in = c.ops[i] == o;
    if (!in) return false;
  }
  /* The epilogue: ins (the output, the invariant inputs), outs (the
   * output), every map over the output's dims. */
  kiln_context *ctx = kiln_op_context(op);
  kiln_value *ins[CG_MAX_OPERANDS + 1];
  const kiln_attr *mattrs[CG_MAX_OPERANDS + 2];
  uint32_t slot[CG_MAX_OPERANDS], ne = 0;
  const kiln_affine_map *id = kiln_affine_map_identity(ctx, rank);
  ins[ne] = out, mattrs[ne++] = kiln_attr_affine_map(ctx, id);
  for (uint32_t i = 0; i < c.nin; i++) {
    if (!c.inv_in[i]) continue;
    const kiln_affine_map *m = c.maps[i];
    const kiln_affine_expr *res[KILN_MAX_LOOPS];
    if (m->num_results > KILN_MAX_LOOPS || m->num_symbols) return false;
    for (uint32_t r = 0; r < m->num_results; r++)
      if (!(res[r] = over_out(ctx, m->results[r], pos))) return false;
    slot[i] = ne;
    ins[ne] = kiln_op_operand(op, i);
    mattrs[ne++] = kiln_attr_affine_map(ctx, kiln_affine_map_get(ctx, rank, 0, m->num_results, res));
  }
  ins[ne] = out, mattrs[ne] = kiln_attr_affine_map(ctx, id);
  const kiln_attr *its[KILN_MAX_LOOPS];
  for (uint32_t r = 0; r < rank; r++) its[r] = kiln_attr_opaque(ctx, "linalg", "iterator_type<parallel>");
  int64_t seg[2] = {ne, 1};
  kiln_named_attr e[3] = {
      {kiln_intern_cstr(ctx, "indexing_maps"), kiln_attr_array(ctx, ne + 1, mattrs)},
      {kiln_intern_cstr(ctx, "iterator_types"), kiln_attr_array(ctx, rank, its)},
      {kiln_intern_cstr(ctx, "operandSegmentSizes"), kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 2, seg, NULL)}};
  kiln_op *ep = kiln_op_create(ctx, KILN_OP_LINALG_GENERIC, op->loc, ne + 1, ins, 0, NULL, kiln_attr_dict(ctx, 3, e), 1);
  kiln_block_insert_after(op, ep);
  kiln_block *eb = kiln_op_entry_block(ctx, ep, 0);
  for (uint32_t i = 0; i <= ne; i++) kiln_block_add_arg(ctx, eb, kiln_type_elem_or_self(ins[i]->type), op->loc);
  /* The chain, first op first, cloned onto the epilogue's arguments
   * (the constants of the pool's body cloned with it). */
  kiln_value_map vm = {0};
  kiln_value_map_add(ctx, &vm, c.body->args[xi], eb->args[0]);
  for (uint32_t i = 0; i < c.nin; i++)
    if (c.inv_in[i]) kiln_value_map_add(ctx, &vm, c.body->args[i], eb->args[slot[i]]);
  for (kiln_op *o = c.body->first; o; o = o->next) {
    bool in = o->kind == KILN_OP_ARITH_CONSTANT;
    for (int i = 0; i < c.n && !in; i++) in = c.ops[i] == o;
    if (in) kiln_block_append_op(eb, kiln_op_clone(o, &vm));
  }
  kiln_value *gy = kiln_value_map_lookup(&vm, g);
  kiln_block_append_op(eb, kiln_op_create(ctx, KILN_OP_LINALG_YIELD, op->loc, 1, &gy, 0, NULL, NULL, 0));
  /* The pool's body: max of x alone. */
  kiln_op_set_operand(mx, gi, c.body->args[xi]);
  for (int i = 0; i < c.n; i++) kiln_op_erase(c.ops[i]);
  return true;
}
