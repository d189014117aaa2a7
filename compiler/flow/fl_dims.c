/* Host values of tensor dimensions (shape reification), shared by
 * resolve-dims, form-dispatch-regions and outline-dispatches.
 *
 * A dynamic dimension of a host tensor is an index value the host can
 * compute before the op producing the tensor runs: a dimension of a
 * function argument (one tensor.dim per argument and dimension, at the
 * function's entry, shared by every user), or arithmetic on such values
 * and on the size operands of the ops that made the tensor (tensor.empty,
 * slices, expand_shape, pads, ...). Static dimensions are constants. */
#include "fl_internal.h"

#include <stdlib.h>
#include <string.h>

bool fl_const_index(const kiln_value *v, int64_t *out);

static kiln_value *index_const(kiln_builder *b, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(b->ctx, kiln_type_index(b->ctx), v));
}

/* x + y or x * y, folding constants and identities so that equal dims
 * stay one value. */
static kiln_value *bin(kiln_builder *b, kiln_op_kind k, kiln_value *x, kiln_value *y) {
  int64_t a, c;
  bool ca = fl_const_index(x, &a), cc = fl_const_index(y, &c);
  if (ca && cc) return index_const(b, k == KILN_OP_ARITH_ADDI ? a + c : a * c);
  if (ca) {
    kiln_value *t = x;
    x = y, y = t, c = a, cc = true;
  }
  if (cc && k == KILN_OP_ARITH_ADDI && c == 0) return x;
  if (cc && k == KILN_OP_ARITH_MULI && c == 1) return x;
  kiln_value *ops[2] = {x, y};
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, k, 2, ops, 1, &it, NULL), 0);
}

bool fl_const_index(const kiln_value *v, int64_t *out) {
  const kiln_attr *c = v ? kiln_value_constant(v) : NULL;
  if (!c || c->kind != KILN_ATTR_INTEGER) return false;
  *out = c->i;
  return true;
}

/* The function entry block that v (a block argument) belongs to, or NULL
 * when v is not an argument of a top-level function. */
static kiln_block *func_entry(kiln_value *v) {
  if (v->def || !v->block) return NULL;
  kiln_op *owner = kiln_block_parent_op(v->block);
  if (!owner || owner->kind != KILN_OP_FUNC_FUNC || owner->regions[0].first != v->block) return NULL;
  return v->block;
}

bool fl_is_func_arg(const kiln_value *v) { return func_entry((kiln_value *)v) != NULL; }

kiln_value *fl_arg_dim(kiln_context *ctx, kiln_value *arg, uint32_t d) {
  kiln_block *entry = func_entry(arg);
  if (!entry) return NULL;
  for (kiln_op *o = entry->first; o; o = o->next) {
    int64_t k;
    if (o->kind == KILN_OP_TENSOR_DIM && kiln_op_operand(o, 0) == arg &&
        fl_const_index(kiln_op_operand(o, 1), &k) && k == (int64_t)d)
      return kiln_op_result(o, 0);
  }
  kiln_builder b = entry->first ? kiln_builder_before(entry->first) : kiln_builder_at_end(ctx, entry);
  b.loc = arg->loc;
  kiln_value *ops[2] = {arg, index_const(&b, d)};
  const kiln_type *it = kiln_type_index(ctx);
  return kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *fl_loop_dim(kiln_context *ctx, kiln_value *r, uint32_t d) {
  kiln_op *loop = r->def;
  kiln_op *o = loop->next;
  for (; o && (o->kind == KILN_OP_TENSOR_DIM || o->kind == KILN_OP_ARITH_CONSTANT); o = o->next) {
    int64_t k;
    if (o->kind == KILN_OP_TENSOR_DIM && kiln_op_operand(o, 0) == r && fl_const_index(kiln_op_operand(o, 1), &k) &&
        k == (int64_t)d)
      return kiln_op_result(o, 0);
  }
  kiln_builder b = o ? kiln_builder_before(o) : kiln_builder_at_end(ctx, loop->parent);
  b.loc = loop->loc;
  kiln_value *ops[2] = {r, index_const(&b, d)};
  const kiln_type *it = kiln_type_index(ctx);
  return kiln_op_result(kiln_build(&b, KILN_OP_TENSOR_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *fl_mixed_entry(kiln_builder *b, kiln_op *op, const char *name, uint32_t first, uint32_t k) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || k >= a->count) return NULL;
  const int64_t *v = a->data;
  if (v[k] != KILN_DYNAMIC) return index_const(b, v[k]);
  uint32_t n = 0;
  for (uint32_t i = 0; i < k; i++) n += v[i] == KILN_DYNAMIC;
  return first + n < op->num_operands ? kiln_op_operand(op, first + n) : NULL;
}

/* Number of holes in the static lists before `name` (slice operands are
 * offsets, then sizes, then strides). */
static uint32_t holes_in(kiln_op *op, const char *name) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_DENSE_ARRAY ? kiln_attr_num_dynamic(a) : 0;
}

/* Which source dim of an extract_slice becomes result dim d (rank-reducing
 * slices drop unit sizes, leading ones first as MLIR infers them). */
static int slice_source_dim(kiln_op *op, uint32_t d) {
  const kiln_type *st = kiln_op_operand(op, 0)->type, *rt = op->results[0].type;
  const kiln_attr *sz = kiln_op_get_attr(op, "static_sizes");
  if (!sz || sz->kind != KILN_ATTR_DENSE_ARRAY || sz->count != st->rank) return -1;
  if (rt->rank == st->rank) return (int)d;
  const int64_t *s = sz->data;
  uint32_t j = 0;
  for (uint32_t i = 0; i < st->rank; i++) {
    uint32_t left_src = st->rank - i, left_res = rt->rank - j;
    if (j < rt->rank && (left_src == left_res || s[i] != 1 || rt->shape[j] == 1)) {
      if (j == d) return (int)i;
      j++;
    }
  }
  return -1;
}

static kiln_value *dim_of(kiln_builder *b, kiln_value *v, uint32_t d, bool lenient);

/* Dim d of an operand: strict, or with the tensor.dim fallback. */
static kiln_value *sub(kiln_builder *b, kiln_value *v, uint32_t d, bool lenient) {
  kiln_value *x = dim_of(b, v, d, lenient);
  if (x || !lenient || v->type->kind != KILN_TYPE_TENSOR) return x;
  kiln_value *ops[2] = {v, index_const(b, d)};
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *fl_dim_value(kiln_builder *b, kiln_value *v, uint32_t d) { return dim_of(b, v, d, false); }

kiln_value *fl_build_dim(kiln_builder *b, kiln_value *v, uint32_t d) { return sub(b, v, d, true); }

/* Does y (yielded by a loop body) have the dims of the body's argument
 * arg? It is arg written into (tensor.insert / insert_slice, destination
 * style ops, an inner scf.for from it whose body keeps its dims) or an
 * scf.if both of whose branches yield such values: then
 * an scf.for result has its init's dims (a kernel writes it in place). */
static bool keeps_dims(kiln_value *y, kiln_value *arg, int depth) {
  if (y == arg) return true;
  kiln_op *op = y->def;
  if (!op || depth > 64) return false;
  uint32_t r = 0;
  while (r < op->num_results && &op->results[r] != y) r++;
  if (op->kind == KILN_OP_TENSOR_INSERT || op->kind == KILN_OP_TENSOR_INSERT_SLICE)
    return keeps_dims(kiln_op_operand(op, 1), arg, depth + 1);
  if (op->kind == KILN_OP_SCF_FOR) {
    kiln_block *body = op->regions[0].first;
    kiln_op *t = body ? kiln_block_terminator(body) : NULL;
    return t && r < t->num_operands && 1 + r < body->num_args && 3 + r < op->num_operands &&
           keeps_dims(kiln_op_operand(op, 3 + r), arg, depth + 1) &&
           keeps_dims(kiln_op_operand(t, r), body->args[1 + r], depth + 1);
  }
  if (op->kind == KILN_OP_SCF_IF) {
    for (uint32_t g = 0; g < 2; g++) {
      kiln_op *t = op->regions[g].first ? kiln_block_terminator(op->regions[g].first) : NULL;
      if (!t || r >= t->num_operands || !keeps_dims(kiln_op_operand(t, r), arg, depth + 1)) return false;
    }
    return true;
  }
  if (kiln_op_has_flag(op, KILN_OPF_LINALG)) {
    uint32_t k = 0;
    for (uint32_t i = kiln_linalg_num_inputs(op); i < op->num_operands; i++) {
      kiln_value *o = kiln_op_operand(op, i);
      if (o->type->kind == KILN_TYPE_TENSOR && k++ == r) return keeps_dims(o, arg, depth + 1);
    }
  }
  return false;
}

static kiln_value *dim_of(kiln_builder *b, kiln_value *v, uint32_t d, bool lenient) {
  const kiln_type *t = v->type;
  if (!kiln_type_is_shaped(t) || !kiln_type_is_ranked(t) || d >= t->rank) return NULL;
  if (t->shape[d] != KILN_DYNAMIC) return index_const(b, t->shape[d]);
  kiln_op *op = v->def;
  if (!op) return fl_arg_dim(b->ctx, v, d);
  uint32_t r = 0;
  while (r < op->num_results && &op->results[r] != v) r++;
  switch (op->kind) {
  case KILN_OP_TENSOR_EMPTY:
  case KILN_OP_TENSOR_SPLAT: {
    uint32_t first = op->kind == KILN_OP_TENSOR_SPLAT ? 1 : 0, n = 0;
    for (uint32_t i = 0; i < d; i++) n += t->shape[i] == KILN_DYNAMIC;
    return first + n < op->num_operands ? kiln_op_operand(op, first + n) : NULL;
  }
  case KILN_OP_TENSOR_CAST:
  case KILN_OP_TENSOR_BITCAST: return sub(b, kiln_op_operand(op, 0), d, lenient);
  case KILN_OP_TENSOR_INSERT_SLICE:
  case KILN_OP_TENSOR_INSERT: return sub(b, kiln_op_operand(op, 1), d, lenient);
  case KILN_OP_TENSOR_EXTRACT_SLICE: {
    int s = slice_source_dim(op, d);
    return s < 0 ? NULL : fl_mixed_entry(b, op, "static_sizes", 1 + holes_in(op, "static_offsets"), (uint32_t)s);
  }
  case KILN_OP_TENSOR_EXPAND_SHAPE: return fl_mixed_entry(b, op, "static_output_shape", 1, d);
  case KILN_OP_FLOW_TENSOR_RESHAPE: {
    uint32_t n = 0;
    for (uint32_t i = 0; i < d; i++) n += t->shape[i] == KILN_DYNAMIC;
    return 1 + n < op->num_operands ? kiln_op_operand(op, 1 + n) : NULL;
  }
  case KILN_OP_TENSOR_COLLAPSE_SHAPE: {
    const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
    if (!re || re->kind != KILN_ATTR_ARRAY || d >= re->count) return NULL;
    const kiln_attr *g = re->elems[d];
    kiln_value *p = NULL;
    for (uint32_t j = 0; j < g->count; j++) {
      kiln_value *x = sub(b, kiln_op_operand(op, 0), (uint32_t)g->elems[j]->i, lenient);
      if (!x) return NULL;
      p = p ? bin(b, KILN_OP_ARITH_MULI, p, x) : x;
    }
    return p;
  }
  case KILN_OP_TENSOR_PAD: {
    kiln_value *s = sub(b, kiln_op_operand(op, 0), d, lenient);
    kiln_value *lo = fl_mixed_entry(b, op, "static_low", 1, d);
    kiln_value *hi = fl_mixed_entry(b, op, "static_high", 1 + holes_in(op, "static_low"), d);
    if (!s || !lo || !hi) return NULL;
    return bin(b, KILN_OP_ARITH_ADDI, bin(b, KILN_OP_ARITH_ADDI, s, lo), hi);
  }
  case KILN_OP_TENSOR_CONCAT: {
    const kiln_attr *cd = kiln_op_get_attr(op, "dim");
    if (!cd || cd->kind != KILN_ATTR_INTEGER) return NULL;
    if (cd->i != (int64_t)d) return sub(b, kiln_op_operand(op, 0), d, lenient);
    kiln_value *sum = NULL;
    for (uint32_t i = 0; i < op->num_operands; i++) {
      kiln_value *x = sub(b, kiln_op_operand(op, i), d, lenient);
      if (!x) return NULL;
      sum = sum ? bin(b, KILN_OP_ARITH_ADDI, sum, x) : x;
    }
    return sum;
  }
  case KILN_OP_FLOW_LIST_GET: return fl_loop_dim(b->ctx, v, d); /* a list's element: read after the op */
  case KILN_OP_SCF_FOR: { /* result r: iter_arg r's init when the body keeps its dims */
    if (fl_host_loop(op)) return fl_loop_dim(b->ctx, v, d);
    kiln_block *body = op->regions[0].first;
    kiln_op *y = body ? kiln_block_terminator(body) : NULL;
    if (!y || r >= y->num_operands || 1 + r >= body->num_args || 3 + r >= op->num_operands ||
        !keeps_dims(kiln_op_operand(y, r), body->args[1 + r], 0))
      return NULL;
    return sub(b, kiln_op_operand(op, 3 + r), d, lenient);
  }
  case KILN_OP_FLOW_DISPATCH_REGION: {
    kiln_op *ret = kiln_block_terminator(op->regions[0].first);
    return ret && r < ret->num_operands ? dim_of(b, kiln_op_operand(ret, r), d, false) : NULL;
  }
  case KILN_OP_FLOW_DISPATCH: {
    const kiln_attr *rd = kiln_op_get_attr(op, "result_dims");
    uint32_t k = 0;
    for (uint32_t i = 0; i < r; i++) k += kiln_type_num_dynamic_dims(op->results[i].type);
    for (uint32_t i = 0; i < d; i++) k += t->shape[i] == KILN_DYNAMIC;
    if (!rd || rd->kind != KILN_ATTR_DENSE_ARRAY || k >= rd->count) return NULL;
    uint32_t nt = 0;
    while (nt < op->num_operands && kiln_op_operand(op, nt)->type->kind == KILN_TYPE_TENSOR) nt++;
    int64_t at = ((const int64_t *)rd->data)[k];
    return nt + at < op->num_operands ? kiln_op_operand(op, nt + (uint32_t)at) : NULL;
  }
  default: break;
  }
  if (kiln_op_has_flag(op, KILN_OPF_LINALG)) {
    /* destination style: result r has the shape of the r-th tensor init */
    uint32_t k = 0;
    for (uint32_t i = kiln_linalg_num_inputs(op); i < op->num_operands; i++) {
      kiln_value *o = kiln_op_operand(op, i);
      if (o->type->kind != KILN_TYPE_TENSOR) continue;
      if (k++ == r) return sub(b, o, d, lenient);
    }
  }
  return NULL;
}

/* Factors of an index value: a constant coefficient times a product of
 * opaque values (arith.muli chains are split). */
static void factor(kiln_value *v, int64_t *coef, kiln_value **f, uint32_t *n, uint32_t cap) {
  int64_t c;
  if (fl_const_index(v, &c)) {
    *coef *= c;
    return;
  }
  if (v->def && v->def->kind == KILN_OP_ARITH_MULI) {
    factor(kiln_op_operand(v->def, 0), coef, f, n, cap);
    factor(kiln_op_operand(v->def, 1), coef, f, n, cap);
    return;
  }
  if (*n < cap) f[(*n)++] = v;
  else *coef = -1; /* too many factors: never equal */
}

static int cmp_ptr(const void *a, const void *b) {
  uintptr_t x = (uintptr_t) * (kiln_value *const *)a, y = (uintptr_t) * (kiln_value *const *)b;
  return x < y ? -1 : x > y;
}

bool fl_same_dim(kiln_value *a, kiln_value *b) {
  if (a == b) return true;
  kiln_value *fa[16], *fb[16];
  int64_t ca = 1, cb = 1;
  uint32_t na = 0, nb = 0;
  factor(a, &ca, fa, &na, 16);
  factor(b, &cb, fb, &nb, 16);
  if (ca < 0 || cb < 0 || ca != cb || na != nb) return false;
  qsort(fa, na, sizeof *fa, cmp_ptr);
  qsort(fb, nb, sizeof *fb, cmp_ptr);
  return memcmp(fa, fb, na * sizeof *fa) == 0;
}

