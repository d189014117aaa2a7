/* infer-shapes: result types of linalg ops from their inputs' shapes.
 *
 * Takes: any module. For each structured op on tensors listed in
 * shape_rules.def, derives the result shape from the ins (contraction
 * sizes, convolution/pooling output sizes from strides and dilations,
 * permutations, broadcast and reduced dimensions, linalg.generic's
 * indexing maps) and meets it with the declared result type; an
 * elementwise arith/math op on tensors gets the shape its operands agree
 * on.
 * Guarantees:
 *  - a dimension declared '?' that the inputs determine becomes static:
 *    the op's init (outs) operand is refined with it (a fresh tensor.empty,
 *    a refined linalg.fill, or a tensor.cast), and users that must keep the
 *    old type (returns, elementwise ops, ...) read a tensor.cast back to it,
 *    while linalg ins operands, tensor.dim and tensor.cast read the refined
 *    value directly, so refinement flows on through a chain of ops;
 *  - inputs that contradict each other or the declared result (matmul
 *    K 8 vs 7, output 5 where the operands give 4, a window larger than
 *    its input) are reported as located errors naming the op and both
 *    sizes, and the pass fails without rewriting that op. */
#include "tx_internal.h"

#include <stdio.h>
#include <stdlib.h>

#define IS_MAX_RANK 16
#define DYN KILN_DYNAMIC

typedef struct shape {
  uint32_t rank;
  int64_t d[IS_MAX_RANK];
} shape;

/* What a rule knows about one op: its input shapes and, to fill in, the
 * inferred shape of each result (rank 0 with known=false: nothing). */
typedef struct rule_io {
  kiln_op *op;
  uint32_t nins, nouts;
  shape in[8];
  bool in_ok[8];
  shape out[4];
  bool known[4];
  unsigned errors;
  bool quiet; /* count contradictions without reporting them */
} rule_io;

/* The shape of a ranked tensor value; a tensor.cast's source may know
 * more than the cast's (more dynamic) type. */
static bool shape_of(kiln_value *v, shape *s) {
  const kiln_type *t = v->type;
  if (t->kind != KILN_TYPE_TENSOR || t->rank > IS_MAX_RANK) return false;
  s->rank = t->rank;
  for (uint32_t i = 0; i < t->rank; i++) s->d[i] = t->shape[i];
  /* Every cast of a chain knows something; a bounded walk keeps hostile
   * IR from making this quadratic. */
  kiln_value *c = v;
  for (int hops = 0; hops < 16 && c->def && c->def->kind == KILN_OP_TENSOR_CAST &&
                     c->def->num_operands == 1; hops++) {
    c = kiln_op_operand(c->def, 0);
    const kiln_type *src = c->type;
    if (src->kind != KILN_TYPE_TENSOR || src->rank != t->rank) break;
    for (uint32_t i = 0; i < t->rank; i++)
      if (s->d[i] == DYN) s->d[i] = src->shape[i];
  }
  return true;
}

static uint32_t int_list(const kiln_op *op, const char *name, int64_t *out,
                         uint32_t max);

/* A value of v's type refined to shape s: v itself, a value of exactly that
 * type down v's chain of casts, or a new tensor.cast before `user`. */
static kiln_value *value_with_shape(kiln_context *ctx, kiln_value *v,
                                    const shape *s, kiln_op *user) {
  const kiln_type *to = kiln_type_with_shape(ctx, v->type, s->rank, s->d);
  if (to == v->type) return v;
  kiln_value *c = v;
  for (int hops = 0; hops < 16 && c->def && c->def->kind == KILN_OP_TENSOR_CAST &&
                     c->def->num_operands == 1; hops++) {
    c = kiln_op_operand(c->def, 0);
    if (c->type == to) return c;
  }
  kiln_builder b = kiln_builder_before(user);
  b.loc = user->loc;
  return kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &v, 1, &to, NULL), 0);
}

/* The shape input j of an exact-match op (transpose, broadcast, reduce,
 * map, softmax) must have given the result shape `out`: what the result
 * knows flows back to the input, so both agree on every static dim. */
static void input_from_result(const kiln_op *op, uint32_t j, const shape *out,
                              shape *in) {
  int64_t v[IS_MAX_RANK];
  uint32_t n;
  switch (op->kind) {
  case KILN_OP_LINALG_TRANSPOSE:
    n = int_list(op, "permutation", v, IS_MAX_RANK);
    if (n != out->rank || n != in->rank) return;
    for (uint32_t d = 0; d < n; d++)
      if (v[d] >= 0 && v[d] < (int64_t)n && in->d[v[d]] == DYN)
        in->d[v[d]] = out->d[d];
    return;
  case KILN_OP_LINALG_BROADCAST:
  case KILN_OP_LINALG_REDUCE: {
    bool skip[IS_MAX_RANK] = {false};
    bool bc = op->kind == KILN_OP_LINALG_BROADCAST;
    uint32_t big = bc ? out->rank : in->rank, small = bc ? in->rank : out->rank;
    n = int_list(op, "dimensions", v, IS_MAX_RANK);
    if (big != small + n) return;
    for (uint32_t k = 0; k < n; k++) {
      if (v[k] < 0 || v[k] >= (int64_t)big) return;
      skip[v[k]] = true;
    }
    for (uint32_t d = 0, k = 0; d < big; d++) {
      if (skip[d]) continue;
      int64_t *dst = bc ? &in->d[k] : &in->d[d];
      int64_t src = bc ? out->d[d] : out->d[k];
      if (*dst == DYN) *dst = src;
      k++;
    }
    return;
  }
  case KILN_OP_LINALG_MAP:
  case KILN_OP_LINALG_SOFTMAX:
    if (in->rank != out->rank) return;
    for (uint32_t d = 0; d < in->rank; d++)
      if (in->d[d] == DYN) in->d[d] = out->d[d];
    return;
  default: return;
  }
  (void)j;
}

static const char *dim_str(int64_t d, char *buf) {
  if (d == DYN) return "?";
  snprintf(buf, 24, "%lld", (long long)d);
  return buf;
}

/* Meets *have with want; a conflict of two static sizes is an error that
 * names `what`. */
static void unify(rule_io *io, int64_t *have, int64_t want, const char *what) {
  if (want == DYN) return;
  if (*have == DYN) {
    *have = want;
    return;
  }
  if (*have != want) {
    char a[24], b[24];
    if (!io->quiet)
      kiln_op_emit_error(io->op, "%s: %s vs %s", what, dim_str(*have, a),
                         dim_str(want, b));
    io->errors++;
  }
}

/* Integers of an attribute spelled as dense<...>, array<i64: ...> or
 * [1, 2]; returns the count (0 when absent or not integral). */
static uint32_t int_list(const kiln_op *op, const char *name, int64_t *out,
                         uint32_t max) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a) return 0;
  uint32_t n = 0;
  switch (a->kind) {
  case KILN_ATTR_DENSE: {
    int64_t c = a->type ? kiln_type_num_elements(a->type) : -1;
    if (c < 0 || c > (int64_t)max || !kiln_type_is_int_or_index(a->type->elem))
      return 0;
    for (n = 0; n < (uint32_t)c; n++)
      out[n] = kiln_dense_get_int(a, a->splat ? 0 : n);
    return n;
  }
  case KILN_ATTR_DENSE_ARRAY:
    if (a->count > max || !a->type || !kiln_type_is_int_or_index(a->type))
      return 0;
    for (n = 0; n < a->count; n++) out[n] = ((const int64_t *)a->data)[n];
    return n;
  case KILN_ATTR_ARRAY:
    if (a->count > max) return 0;
    for (n = 0; n < a->count; n++) {
      if (a->elems[n]->kind != KILN_ATTR_INTEGER) return 0;
      out[n] = a->elems[n]->i;
    }
    return n;
  case KILN_ATTR_INTEGER:
    if (max < 1) return 0;
    out[0] = a->i;
    return 1;
  default: return 0;
  }
}

static bool want_ranks(rule_io *io, uint32_t n, const uint32_t *ranks) {
  if (io->nins < n) return false;
  for (uint32_t i = 0; i < n; i++)
    if (!io->in_ok[i] || io->in[i].rank != ranks[i]) return false;
  return true;
}

static void set_out(rule_io *io, uint32_t i, uint32_t rank, const int64_t *d) {
  io->out[i].rank = rank;
  for (uint32_t k = 0; k < rank; k++) io->out[i].d[k] = d[k];
  io->known[i] = true;
}

/* ---- Rules ---- */

static void rule_matmul(rule_io *io) {
  static const uint32_t r[] = {2, 2};
  if (!want_ranks(io, 2, r)) return;
  const shape *a = &io->in[0], *b = &io->in[1];
  int64_t k = a->d[1];
  unify(io, &k, b->d[0], "contraction dimension (lhs dim 1, rhs dim 0)");
  set_out(io, 0, 2, (int64_t[]){a->d[0], b->d[1]});
}

static void rule_batch_matmul(rule_io *io) {
  static const uint32_t r[] = {3, 3};
  if (!want_ranks(io, 2, r)) return;
  const shape *a = &io->in[0], *b = &io->in[1];
  int64_t batch = a->d[0], k = a->d[2];
  unify(io, &batch, b->d[0], "batch dimension (lhs dim 0, rhs dim 0)");
  unify(io, &k, b->d[1], "contraction dimension (lhs dim 2, rhs dim 1)");
  set_out(io, 0, 3, (int64_t[]){batch, a->d[1], b->d[2]});
}

static void rule_matvec(rule_io *io) {
  static const uint32_t r[] = {2, 1};
  if (!want_ranks(io, 2, r)) return;
  int64_t k = io->in[0].d[1];
  unify(io, &k, io->in[1].d[0], "contraction dimension (matrix dim 1, vector dim 0)");
  set_out(io, 0, 1, (int64_t[]){io->in[0].d[0]});
}

/* Output size of a sliding window; reports windows that do not fit. */
static int64_t window_out(rule_io *io, int64_t in, int64_t k, int64_t stride,
                          int64_t dil, const char *axis) {
  if (in == DYN || k == DYN) return DYN;
  if (stride <= 0 || dil <= 0) {
    if (!io->quiet)
      kiln_op_emit_error(io->op, "strides and dilations must be positive");
    io->errors++;
    return DYN;
  }
  int64_t span = (k - 1) * dil + 1;
  if (span > in) {
    if (!io->quiet)
      kiln_op_emit_error(io->op,
                       "window along %s spans %lld (size %lld, dilation %lld) "
                       "but the input has only %lld",
                       axis, (long long)span, (long long)k, (long long)dil,
                       (long long)in);
    io->errors++;
    return DYN;
  }
  return (in - span) / stride + 1;
}

/* strides/dilations, 1 when absent. */
static void window_attrs(const kiln_op *op, int64_t s[2], int64_t d[2]) {
  s[0] = s[1] = d[0] = d[1] = 1;
  int64_t v[2];
  if (int_list(op, "strides", v, 2) == 2) s[0] = v[0], s[1] = v[1];
  if (int_list(op, "dilations", v, 2) == 2) d[0] = v[0], d[1] = v[1];
}

/* Shared by the 2-D convolutions and poolings: input spatial dims at
 * in_h/in_h+1, kernel spatial dims at k_h/k_h+1 of operand 1. */
static void spatial(rule_io *io, uint32_t in_h, uint32_t k_h, int64_t *oh,
                    int64_t *ow) {
  int64_t s[2], d[2];
  window_attrs(io->op, s, d);
  *oh = window_out(io, io->in[0].d[in_h], io->in[1].d[k_h], s[0], d[0], "height");
  *ow = window_out(io, io->in[0].d[in_h + 1], io->in[1].d[k_h + 1], s[1], d[1],
                   "width");
}

static void rule_conv_nhwc_hwcf(rule_io *io) {
  static const uint32_t r[] = {4, 4};
  if (!want_ranks(io, 2, r)) return;
  int64_t c = io->in[0].d[3], oh, ow;
  unify(io, &c, io->in[1].d[2], "input channels (input dim 3, filter dim 2)");
  spatial(io, 1, 0, &oh, &ow);
  set_out(io, 0, 4, (int64_t[]){io->in[0].d[0], oh, ow, io->in[1].d[3]});
}

static void rule_conv_nchw_fchw(rule_io *io) {
  static const uint32_t r[] = {4, 4};
  if (!want_ranks(io, 2, r)) return;
  int64_t c = io->in[0].d[1], oh, ow;
  unify(io, &c, io->in[1].d[1], "input channels (input dim 1, filter dim 1)");
  spatial(io, 2, 2, &oh, &ow);
  set_out(io, 0, 4, (int64_t[]){io->in[0].d[0], io->in[1].d[0], oh, ow});
}

static void rule_depthwise_nhwc_hwc(rule_io *io) {
  static const uint32_t r[] = {4, 3};
  if (!want_ranks(io, 2, r)) return;
  int64_t c = io->in[0].d[3], oh, ow;
  unify(io, &c, io->in[1].d[2], "channels (input dim 3, filter dim 2)");
  spatial(io, 1, 0, &oh, &ow);
  set_out(io, 0, 4, (int64_t[]){io->in[0].d[0], oh, ow, c});
}

static void rule_pool_nhwc(rule_io *io) {
  static const uint32_t r[] = {4, 2};
  if (!want_ranks(io, 2, r)) return;
  int64_t oh, ow;
  spatial(io, 1, 0, &oh, &ow);
  set_out(io, 0, 4, (int64_t[]){io->in[0].d[0], oh, ow, io->in[0].d[3]});
}

static void rule_pool_nchw(rule_io *io) {
  static const uint32_t r[] = {4, 2};
  if (!want_ranks(io, 2, r)) return;
  int64_t oh, ow;
  spatial(io, 2, 0, &oh, &ow);
  set_out(io, 0, 4, (int64_t[]){io->in[0].d[0], io->in[0].d[1], oh, ow});
}

static void rule_transpose(rule_io *io) {
  if (io->nins != 1 || !io->in_ok[0]) return;
  int64_t perm[IS_MAX_RANK], d[IS_MAX_RANK];
  uint32_t rank = io->in[0].rank;
  if (int_list(io->op, "permutation", perm, IS_MAX_RANK) != rank) return;
  for (uint32_t i = 0; i < rank; i++) {
    if (perm[i] < 0 || perm[i] >= (int64_t)rank) return;
    d[i] = io->in[0].d[perm[i]];
  }
  set_out(io, 0, rank, d);
}

static void rule_broadcast(rule_io *io) {
  if (io->nins != 1 || !io->in_ok[0]) return;
  int64_t added[IS_MAX_RANK], d[IS_MAX_RANK];
  uint32_t n = int_list(io->op, "dimensions", added, IS_MAX_RANK);
  uint32_t rank = io->in[0].rank + n;
  if (rank > IS_MAX_RANK) return;
  bool is_added[IS_MAX_RANK] = {false};
  for (uint32_t i = 0; i < n; i++) {
    if (added[i] < 0 || added[i] >= (int64_t)rank) return;
    is_added[added[i]] = true;
  }
  for (uint32_t i = 0, k = 0; i < rank; i++)
    d[i] = is_added[i] ? DYN : io->in[0].d[k++];
  set_out(io, 0, rank, d);
}

static void rule_reduce(rule_io *io) {
  if (io->nins == 0 || !io->in_ok[0]) return;
  shape s = io->in[0];
  for (uint32_t i = 1; i < io->nins; i++) {
    if (!io->in_ok[i] || io->in[i].rank != s.rank) return;
    for (uint32_t k = 0; k < s.rank; k++)
      unify(io, &s.d[k], io->in[i].d[k], "reduced inputs disagree on a dimension");
  }
  int64_t red[IS_MAX_RANK], d[IS_MAX_RANK];
  uint32_t n = int_list(io->op, "dimensions", red, IS_MAX_RANK);
  bool gone[IS_MAX_RANK] = {false};
  for (uint32_t i = 0; i < n; i++) {
    if (red[i] < 0 || red[i] >= (int64_t)s.rank) return;
    gone[red[i]] = true;
  }
  uint32_t rank = 0;
  for (uint32_t k = 0; k < s.rank; k++)
    if (!gone[k]) d[rank++] = s.d[k];
  for (uint32_t i = 0; i < io->nouts && i < 4; i++) set_out(io, i, rank, d);
}

/* linalg.map / softmax: every input and the result share one shape. */
static void rule_elementwise(rule_io *io) {
  if (io->nins == 0 || !io->in_ok[0]) return;
  shape s = io->in[0];
  for (uint32_t i = 1; i < io->nins; i++) {
    if (!io->in_ok[i] || io->in[i].rank != s.rank) return;
    for (uint32_t k = 0; k < s.rank; k++)
      unify(io, &s.d[k], io->in[i].d[k], "inputs disagree on a dimension");
  }
  set_out(io, 0, s.rank, s.d);
}

/* linalg.generic: loop sizes from every operand dimension indexed by a
 * plain loop variable, then each result dimension likewise. */
static void rule_generic(rule_io *io) {
  const kiln_attr *maps = kiln_op_get_attr(io->op, "indexing_maps");
  uint32_t nops = io->nins + io->nouts;
  if (!maps || maps->kind != KILN_ATTR_ARRAY || maps->count != nops || nops > 12)
    return;
  int64_t loops[IS_MAX_RANK];
  uint32_t nloops = 0;
  for (uint32_t j = 0; j < nops; j++) {
    const kiln_attr *m = maps->elems[j];
    if (m->kind != KILN_ATTR_AFFINE_MAP) return;
    if (j == 0) nloops = m->map->num_dims;
    if (m->map->num_dims != nloops || nloops > IS_MAX_RANK) return;
  }
  for (uint32_t l = 0; l < nloops; l++) loops[l] = DYN;
  for (uint32_t j = 0; j < io->nins; j++) {
    const kiln_affine_map *m = maps->elems[j]->map;
    if (!io->in_ok[j]) continue;
    if (io->in[j].rank != m->num_results) return;
    for (uint32_t r = 0; r < m->num_results; r++) {
      const kiln_affine_expr *e = m->results[r];
      if (e->kind != KILN_AFFINE_DIM) continue;
      char what[96];
      snprintf(what, sizeof what, "loop d%lld gets different sizes from input %u",
               (long long)e->value, j);
      unify(io, &loops[e->value], io->in[j].d[r], what);
    }
  }
  for (uint32_t i = 0; i < io->nouts && i < 4; i++) {
    const kiln_affine_map *m = maps->elems[io->nins + i]->map;
    int64_t d[IS_MAX_RANK];
    if (m->num_results > IS_MAX_RANK) return;
    for (uint32_t r = 0; r < m->num_results; r++) {
      const kiln_affine_expr *e = m->results[r];
      d[r] = e->kind == KILN_AFFINE_DIM ? loops[e->value] : DYN;
    }
    set_out(io, i, m->num_results, d);
  }
}

/* Nothing to derive from the inputs; the init's own shape (seen through a
 * tensor.cast) may still refine the result. */
static void rule_init_only(rule_io *io) { (void)io; }

typedef void (*rule_fn)(rule_io *io);

static rule_fn rule_for(kiln_op_kind k) {
  switch (k) {
#define KILN_SHAPE_RULE(OP, RULE) \
  case KILN_OP_##OP: return RULE;
#include "shape_rules.def"
#undef KILN_SHAPE_RULE
  default: return NULL;
  }
}

/* ---- Rewriting ---- */

/* A value of type `to` standing for init value v (of a compatible, more
 * dynamic type), built before `user`, which is v's only user when v is
 * rebuilt. */
static kiln_value *refine_init(kiln_context *ctx, kiln_value *v,
                               const kiln_type *to, kiln_op *user) {
  if (v->type == to) return v;
  kiln_op *def = v->def;
  if (def && def->kind == KILN_OP_TENSOR_CAST &&
      kiln_op_operand(def, 0)->type == to)
    return kiln_op_operand(def, 0);
  bool single = kiln_value_has_one_use(v);
  if (def && single && def->kind == KILN_OP_TENSOR_EMPTY) {
    /* Keep the size operands of the dims that stay dynamic. */
    kiln_value *sizes[IS_MAX_RANK];
    uint32_t n = 0, k = 0;
    for (uint32_t d = 0; d < v->type->rank; d++) {
      if (v->type->shape[d] != DYN) continue;
      if (k >= def->num_operands) return v;
      if (to->shape[d] == DYN) sizes[n++] = kiln_op_operand(def, k);
      k++;
    }
    kiln_builder b = kiln_builder_before(def);
    b.loc = def->loc;
    kiln_op *e = kiln_build(&b, KILN_OP_TENSOR_EMPTY, n, sizes, 1, &to, NULL);
    kiln_value_replace_all_uses(v, kiln_op_result(e, 0));
    kiln_op_erase(def);
    return kiln_op_result(e, 0);
  }
  if (def && single && def->kind == KILN_OP_LINALG_FILL &&
      def->num_results == 1 && def->num_operands == 2) {
    kiln_value *init = refine_init(ctx, kiln_op_operand(def, 1), to, def);
    if (init->type == to) {
      kiln_op_set_operand(def, 1, init);
      kiln_value_set_type(&def->results[0], to);
      return kiln_op_result(def, 0);
    }
  }
  kiln_builder b = kiln_builder_before(user);
  b.loc = user->loc;
  kiln_op *c = kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &v, 1, &to, NULL);
  return kiln_op_result(c, 0);
}

bool tx_shapes_consistent(kiln_op *op, kiln_value *const *operands) {
  rule_fn rule = rule_for(op->kind);
  if (!rule) return true;
  rule_io io = {.op = op, .quiet = true};
  io.nouts = op->num_results;
  if (op->num_operands < io.nouts || io.nouts > 4) return true;
  io.nins = op->num_operands - io.nouts;
  if (io.nins > 8) return true;
  for (uint32_t i = 0; i < io.nins; i++)
    io.in_ok[i] = shape_of(operands[i], &io.in[i]);
  rule(&io);
  if (io.errors) return false;
  for (uint32_t i = 0; i < io.nouts; i++) {
    shape s;
    if (!io.known[i] || !shape_of(operands[io.nins + i], &s) ||
        s.rank != io.out[i].rank)
      continue;
    for (uint32_t d = 0; d < s.rank; d++)
      if (s.d[d] != DYN && io.out[i].d[d] != DYN && s.d[d] != io.out[i].d[d])
        return false;
  }
  return true;
}

/* An arith/math op applied to whole tensors. */
static bool is_elementwise_on_tensor(const kiln_op *op) {
  return kiln_op_has_flag(op, KILN_OPF_ELEMENTWISE) && op->num_results == 1 &&
         op->results[0].type->kind == KILN_TYPE_TENSOR;
}

/* An op whose result shapes a rule (or elementwise broadcasting) infers. */
static bool inferable(const kiln_op *op) {
  return (rule_for(op->kind) || is_elementwise_on_tensor(op)) && op->num_results != 0 &&
         tx_op_well_formed(op);
}

/* An elementwise op on tensors: every tensor operand and the result share
 * one shape, so what one operand knows (through a tensor.cast) holds for
 * all. Operands are refined (a cast's source, or a new tensor.cast), the
 * result too, and users that need the old type read a cast back. */
static unsigned infer_elementwise(kiln_context *ctx, kiln_op *op) {
  rule_io io = {.op = op};
  const kiln_type *rt = kiln_op_result(op, 0)->type;
  if (rt->rank > IS_MAX_RANK) return 0;
  shape s = {.rank = rt->rank};
  for (uint32_t d = 0; d < rt->rank; d++) s.d[d] = rt->shape[d];
  for (uint32_t j = 0; j < op->num_operands; j++) {
    shape o;
    if (!shape_of(kiln_op_operand(op, j), &o)) continue;
    if (o.rank != s.rank) return 0;
    for (uint32_t d = 0; d < s.rank; d++) {
      char what[80];
      snprintf(what, sizeof what, "operand %u dimension %u disagrees with the others", j, d);
      unify(&io, &s.d[d], o.d[d], what);
    }
  }
  if (io.errors) return io.errors;
  bool refine = false;
  for (uint32_t d = 0; d < s.rank; d++)
    refine |= rt->shape[d] == DYN && s.d[d] != DYN;
  if (!refine) return 0;
  for (uint32_t j = 0; j < op->num_operands; j++) {
    kiln_value *v = kiln_op_operand(op, j);
    if (v->type->kind != KILN_TYPE_TENSOR) continue;
    const kiln_type *to = kiln_type_with_shape(ctx, v->type, s.rank, s.d);
    kiln_value *nv = v;
    if (v->type != to) {
      kiln_op *def = v->def;
      if (def && def->kind == KILN_OP_TENSOR_CAST &&
          kiln_op_operand(def, 0)->type == to) {
        nv = kiln_op_operand(def, 0);
      } else {
        kiln_builder b = kiln_builder_before(op);
        b.loc = op->loc;
        nv = kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &v, 1, &to, NULL), 0);
      }
    }
    kiln_op_set_operand(op, j, nv);
  }
  kiln_value_set_type(&op->results[0], kiln_type_with_shape(ctx, rt, s.rank, s.d));
  tx_retarget_uses(op, 0, rt, true);
  return 0;
}

/* Infers and applies one op; returns its number of errors. */
static unsigned infer_op(kiln_context *ctx, kiln_op *op) {
  if (!rule_for(op->kind)) return infer_elementwise(ctx, op);
  rule_io io = {.op = op};
  io.nouts = op->num_results;
  if (op->num_operands < io.nouts || io.nouts > 4) return 0;
  io.nins = op->num_operands - io.nouts;
  if (io.nins > 8) return 0;
  for (uint32_t i = 0; i < io.nins; i++)
    io.in_ok[i] = shape_of(kiln_op_operand(op, i), &io.in[i]);
  rule_for(op->kind)(&io);
  if (io.errors) return io.errors;

  /* Meet every inferred result shape with the declared one first, so that
   * a contradiction leaves the op untouched. */
  shape next[4];
  bool refine[4] = {false}, next_ok[4] = {false};
  for (uint32_t i = 0; i < io.nouts; i++) {
    kiln_value *init = kiln_op_operand(op, io.nins + i);
    const kiln_type *rt = kiln_op_result(op, i)->type;
    if (rt->kind != KILN_TYPE_TENSOR || !shape_of(init, &next[i])) continue;
    next_ok[i] = true;
    for (uint32_t d = 0; d < rt->rank; d++)
      if (rt->shape[d] != DYN) next[i].d[d] = rt->shape[d];
    if (io.known[i] && io.out[i].rank == rt->rank) {
      for (uint32_t d = 0; d < rt->rank; d++) {
        char what[96];
        snprintf(what, sizeof what,
                 "result %u dimension %u: declared size vs size implied by "
                 "the inputs", i, d);
        unify(&io, &next[i].d[d], io.out[i].d[d], what);
      }
    }
    for (uint32_t d = 0; d < rt->rank; d++)
      refine[i] |= rt->shape[d] == DYN && next[i].d[d] != DYN;
  }
  if (io.errors) return io.errors;

  bool any = false;
  for (uint32_t i = 0; i < io.nouts; i++) any |= refine[i];
  if (!any) return 0;
  /* Inputs take every static size known for them (through casts, and for
   * ops whose ins and outs must match exactly, from the refined result):
   * linalg.transpose and friends require ins and outs to agree on which
   * dimensions are static. */
  for (uint32_t j = 0; j < io.nins; j++) {
    kiln_value *v = kiln_op_operand(op, j);
    shape want;
    if (!shape_of(v, &want)) continue;
    if (!tx_linalg_mixes_static(op) && io.nouts > 0 && next_ok[0])
      input_from_result(op, j, &next[0], &want);
    kiln_op_set_operand(op, j, value_with_shape(ctx, v, &want, op));
  }
  for (uint32_t i = 0; i < io.nouts; i++) {
    if (!refine[i]) continue;
    const kiln_type *old = kiln_op_result(op, i)->type;
    const kiln_type *to = kiln_type_with_shape(ctx, old, old->rank, next[i].d);
    kiln_value *init = refine_init(ctx, kiln_op_operand(op, io.nins + i), to, op);
    kiln_op_set_operand(op, io.nins + i, init);
    kiln_value_set_type(&op->results[i], to);
    tx_retarget_uses(op, i, old, true);
  }
  return 0;
}

kiln_error *kiln_pass_infer_shapes(kiln_op *module, void *user) {
  (void)user;
  kiln_op **ops;
  size_t n;
  if (!kiln_collect_ops(module, false, inferable, &ops, &n)) return kiln_error_new("infer-shapes: out of memory");
  kiln_context *ctx = kiln_op_context(module);
  unsigned errors = 0;
  for (size_t i = 0; i < n; i++) errors += infer_op(ctx, ops[i]);
  free(ops);
  if (errors)
    return kiln_error_new("infer-shapes: %u shape contradiction%s (see the "
                          "errors above)", errors, errors == 1 ? "" : "s");
  return NULL;
}
