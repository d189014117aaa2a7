/* Data-movement family: Identity, Dropout (inference; training mode is a
 * random generator, import_random.c), Reshape, Flatten,
 * Squeeze, Unsqueeze, Transpose, Concat, Slice, Split, Gather,
 * GatherElements, Expand, Tile, Pad, Trilu.
 *
 * Takes: nodes of those ops; shape-like inputs (shape, axes, starts, pads,
 * repeats, split sizes) must be constants here (import_dynamic.c reads
 * them from graph-input data instead; Pad's such pads: pad_from_data). Guarantees: on small constant
 * data (at most OI_FOLD_MAX elements) the result is computed at import
 * time as a new constant (this folds Shape -> Gather/Slice/Concat/
 * Unsqueeze -> Reshape chains); otherwise reshapes become collapse/expand
 * shape, slices extract_slice (a generic for negative steps), concats
 * tensor.concat, gathers, and Pad in reflect/edge mode, a linalg.generic
 * with tensor.extract; Trilu's k may also be a run-time input. */
#include <string.h>

#include "import_internal.h"

static const char *const no_attrs[] = {NULL};

/* A new constant whose element i is src[index[i]] (any element type). */
static const kiln_attr *host_take(oi_ctx *c, const kiln_attr *src, const kiln_type *t,
                                  const int64_t *index) {
  int64_t n = oi_numel(t);
  size_t es = kiln_dense_elem_size(t->elem);
  char *buf = kiln_alloc(c->ctx, (size_t)n * es + 1);
  for (int64_t i = 0; i < n; i++)
    memcpy(buf + (size_t)i * es, (const char *)src->data + (src->splat ? 0 : (size_t)index[i] * es), es);
  return kiln_attr_dense(c->ctx, t, false, buf, (size_t)n * es);
}

static bool foldable(oi_ctx *c, oi_val *v) {
  return oi_numel(v->type) <= OI_FOLD_MAX && oi_const(c, v) != NULL;
}

/* Unravels linear index i of shape into coord. */
static void unravel(int64_t i, uint32_t rank, const int64_t *shape, int64_t *coord) {
  for (int d = (int)rank - 1; d >= 0; d--) {
    coord[d] = shape[d] ? i % shape[d] : 0;
    if (shape[d]) i /= shape[d];
  }
}

static int64_t ravel(uint32_t rank, const int64_t *shape, const int64_t *coord) {
  int64_t l = 0;
  for (uint32_t d = 0; d < rank; d++) l = l * shape[d] + coord[d];
  return l;
}

/* Output = input with a new shape (same elements in order). */
static bool set_reshaped(oi_ctx *c, oi_node *n, oi_val *x, uint32_t rank, const int64_t *shape) {
  const kiln_type *t = oi_tensor_type(c, rank, shape, x->dtype);
  if (foldable(c, x)) {
    const kiln_attr *a = oi_const(c, x);
    /* same bytes, new shape: a non-splat borrows the source's data (it lives as long) */
    oi_set_out_const(c, n, 0,
                     a->splat ? kiln_attr_dense(c->ctx, t, true, a->data, a->nbytes)
                              : kiln_attr_dense_borrowed(c->ctx, t, a->data, a->nbytes),
                     x->dtype);
    return true;
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  oi_set_out(c, n, 0, oi_reshape(c, v, rank, shape), x->dtype);
  return true;
}

bool oi_import_identity(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  oi_set_out_alias(c, n, 0, x);
  return true;
}

bool oi_import_dropout(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"seed", NULL};
  if (!oi_arity(c, n, 1, 3, 1, 2) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *tm = oi_opt_in(n, 2);
  if (!x) return false;
  if (tm) { /* training mode (or a run-time choice): random, import_random.c */
    if (tm->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL || oi_numel(tm->type) != 1)
      return oi_invalid(c, "training_mode must be one bool");
    int64_t *v, cnt;
    if (!oi_const(c, tm) || (oi_const_ints(c, tm, "input 2 (training_mode)", &v, &cnt) && v[0]))
      return oi_dropout_training(c, n, x, oi_opt_in(n, 1), tm);
  }
  oi_set_out_alias(c, n, 0, x);
  if (oi_has_out(n, 1)) {
    const kiln_type *mt = oi_tensor_type(c, x->type->rank, x->type->shape, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
    oi_set_out_const(c, n, 1, oi_splat_int(c, mt, 1), ONNX__TENSOR_PROTO__DATA_TYPE__BOOL);
  }
  return true;
}

bool oi_import_reshape(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"allowzero", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *s = x ? oi_in(c, n, 1) : NULL;
  if (!s) return false;
  int64_t allowzero;
  if (!oi_attr_int(c, n, "allowzero", 0, &allowzero)) return false;
  if (s->type->rank != 1) return oi_invalid(c, "shape input must be 1-D");
  int64_t *dims, rank;
  if (!oi_const_ints(c, s, "input 1 (shape)", &dims, &rank)) return false;
  if (rank > OI_MAX_RANK) return oi_unsupported(c, "rank %lld exceeds %d", (long long)rank, OI_MAX_RANK);
  int64_t known_prod = 1, neg = -1;
  for (int64_t i = 0; i < rank; i++) {
    if (dims[i] == 0 && !allowzero) {
      if (i >= (int64_t)x->type->rank)
        return oi_invalid(c, "shape[%lld] = 0 copies a dimension the input (rank %u) lacks", (long long)i, x->type->rank);
      dims[i] = x->type->shape[i];
    }
    if (dims[i] == -1) {
      if (neg >= 0) return oi_invalid(c, "shape has more than one -1 (entries %lld and %lld)", (long long)neg, (long long)i);
      neg = i;
      continue;
    }
    if (dims[i] < 0) return oi_invalid(c, "shape[%lld] = %lld", (long long)i, (long long)dims[i]);
    if (__builtin_mul_overflow(known_prod, dims[i], &known_prod) || known_prod > OI_NUMEL_MAX)
      return oi_invalid(c, "shape holds more elements than the input");
  }
  int64_t total = oi_numel(x->type);
  if (neg >= 0) {
    if (known_prod == 0 || total % known_prod)
      return oi_invalid(c, "cannot infer the -1 dimension: %lld elements into blocks of %lld", (long long)total, (long long)known_prod);
    dims[neg] = total / known_prod;
  } else if (known_prod != total) {
    return oi_invalid(c, "shape holds %lld elements, the input %lld", (long long)known_prod, (long long)total);
  }
  return set_reshaped(c, n, x, (uint32_t)rank, dims);
}

bool oi_import_flatten(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t axis;
  if (!oi_attr_int(c, n, "axis", 1, &axis)) return false;
  int64_t r = x->type->rank;
  if (axis < 0) axis += r;
  if (axis < 0 || axis > r) return oi_invalid(c, "axis out of range for rank %lld", (long long)r);
  int64_t s[2] = {1, 1};
  for (int64_t i = 0; i < r; i++) s[i < axis ? 0 : 1] *= x->type->shape[i];
  return set_reshaped(c, n, x, 2, s);
}

static bool read_axes(oi_ctx *c, oi_val *a, uint32_t rank, bool *mark, const char *what) {
  int64_t *v, cnt;
  if (!oi_const_ints(c, a, what, &v, &cnt)) return false;
  for (int64_t i = 0; i < cnt; i++) {
    uint32_t ax;
    if (!oi_axis(c, v[i], rank, "axis", &ax)) return false;
    if (mark[ax]) return oi_invalid(c, "axis %lld is repeated", (long long)v[i]);
    mark[ax] = true;
  }
  return true;
}

bool oi_import_squeeze(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 1, 2, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0), *a = oi_opt_in(n, 1);
  if (!x) return false;
  bool mark[OI_MAX_RANK] = {0};
  const kiln_type *t = x->type;
  if (a) {
    if (!read_axes(c, a, t->rank, mark, "input 1 (axes)")) return false;
    for (uint32_t d = 0; d < t->rank; d++)
      if (mark[d] && t->shape[d] != 1)
        return oi_invalid(c, "cannot squeeze axis %u of size %lld", d, (long long)t->shape[d]);
  } else {
    for (uint32_t d = 0; d < t->rank; d++) mark[d] = t->shape[d] == 1;
  }
  int64_t s[OI_MAX_RANK];
  uint32_t r = 0;
  for (uint32_t d = 0; d < t->rank; d++)
    if (!mark[d]) s[r++] = t->shape[d];
  return set_reshaped(c, n, x, r, s);
}

bool oi_import_unsqueeze(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0), *a = x ? oi_in(c, n, 1) : NULL;
  if (!a) return false;
  int64_t *v, cnt;
  if (!oi_const_ints(c, a, "input 1 (axes)", &v, &cnt)) return false;
  uint32_t r = x->type->rank + (uint32_t)cnt;
  if (cnt < 0 || r > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", r, OI_MAX_RANK);
  bool mark[OI_MAX_RANK] = {0};
  for (int64_t i = 0; i < cnt; i++) {
    uint32_t ax;
    if (!oi_axis(c, v[i], r, "axis", &ax)) return false;
    if (mark[ax]) return oi_invalid(c, "axis %lld is repeated", (long long)v[i]);
    mark[ax] = true;
  }
  int64_t s[OI_MAX_RANK];
  for (uint32_t d = 0, k = 0; d < r; d++) s[d] = mark[d] ? 1 : x->type->shape[k++];
  return set_reshaped(c, n, x, r, s);
}

bool oi_import_transpose(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"perm", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  uint32_t r = x->type->rank;
  const int64_t *pa;
  size_t np;
  if (!oi_attr_ints(c, n, "perm", &pa, &np)) return false;
  int64_t perm[OI_MAX_RANK];
  if (pa && np != r) return oi_invalid(c, "perm has %zu entries for rank %u", np, r);
  bool seen[OI_MAX_RANK] = {0};
  for (uint32_t d = 0; d < r; d++) {
    perm[d] = pa ? pa[d] : (int64_t)(r - 1 - d);
    if (perm[d] < 0 || perm[d] >= (int64_t)r || seen[perm[d]]) return oi_invalid(c, "perm is not a permutation");
    seen[perm[d]] = true;
  }
  kiln_value *v = oi_transpose_val(c, x, perm);
  if (!v) return false;
  oi_set_out(c, n, 0, v, x->dtype);
  return true;
}

bool oi_import_concat(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 1, 4096, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  int64_t axis;
  if (!oi_attr(n, "axis")) return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'axis' is required");
  if (!oi_attr_int(c, n, "axis", 0, &axis)) return false;
  oi_val *x0 = oi_in(c, n, 0);
  if (!x0) return false;
  uint32_t r = x0->type->rank, ax;
  if (!oi_axis(c, axis, r, "axis", &ax)) return false;
  int64_t shape[OI_MAX_RANK];
  memcpy(shape, x0->type->shape, r * sizeof *shape);
  shape[ax] = 0;
  bool all_const = true;
  for (size_t i = 0; i < n->nin; i++) {
    oi_val *x = oi_in(c, n, i);
    if (!x) return false;
    if (x->dtype != x0->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "input %zu has another element type", i);
    if (x->type->rank != r) return oi_invalid(c, "input %zu has rank %u, input 0 rank %u", i, x->type->rank, r);
    for (uint32_t d = 0; d < r; d++)
      if (d != ax && x->type->shape[d] != x0->type->shape[d]) {
        char a[24] = "?", b[24] = "?"; /* '?': a dim decided at run time */
        if (x->type->shape[d] != KILN_DYNAMIC) snprintf(a, sizeof a, "%lld", (long long)x->type->shape[d]);
        if (x0->type->shape[d] != KILN_DYNAMIC) snprintf(b, sizeof b, "%lld", (long long)x0->type->shape[d]);
        return oi_invalid(c, "input %zu: dimension %u is %s, input 0 has %s", i, d, a, b);
      }
    /* a run-time length along the axis makes the total one */
    if (shape[ax] != KILN_DYNAMIC) shape[ax] = oi_dyn(x->type, ax) ? KILN_DYNAMIC : shape[ax] + x->type->shape[ax];
    all_const = all_const && foldable(c, x);
  }
  const kiln_type *t = oi_tensor_type(c, r, shape, x0->dtype);
  if (all_const && oi_numel(t) <= OI_FOLD_MAX) {
    int64_t total = oi_numel(t);
    size_t es = kiln_dense_elem_size(t->elem);
    char *buf = kiln_alloc(c->ctx, (size_t)total * es + 1);
    int64_t coord[OI_MAX_RANK];
    for (int64_t i = 0; i < total; i++) {
      unravel(i, r, shape, coord);
      int64_t k = 0, pos = coord[ax];
      while (pos >= n->in[k]->type->shape[ax]) pos -= n->in[k++]->type->shape[ax];
      coord[ax] = pos;
      const kiln_attr *a = oi_const(c, n->in[k]);
      int64_t li = a->splat ? 0 : ravel(r, n->in[k]->type->shape, coord);
      memcpy(buf + (size_t)i * es, (const char *)a->data + (size_t)li * es, es);
    }
    oi_set_out_const(c, n, 0, kiln_attr_dense(c->ctx, t, false, buf, (size_t)total * es), x0->dtype);
    return true;
  }
  kiln_value **vs = kiln_alloc(c->ctx, (n->nin + 1) * sizeof *vs);
  uint32_t k = 0;
  for (size_t i = 0; i < n->nin; i++) {
    if (n->in[i]->type->shape[ax] == 0) continue; /* empty pieces add nothing */
    if (!(vs[k++] = oi_ir(c, n->in[i]))) return false;
  }
  if (k == 0) {
    oi_set_out(c, n, 0, oi_empty(c, t), x0->dtype);
    return true;
  }
  if (k == 1) {
    oi_set_out(c, n, 0, vs[0], x0->dtype);
    return true;
  }
  kiln_named_attr e = {kiln_intern_cstr(c->ctx, "dim"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 64), ax)};
  kiln_op *op = kiln_build(&c->b, KILN_OP_TENSOR_CONCAT, k, vs, 1, &t, kiln_attr_dict(c->ctx, 1, &e));
  oi_set_out(c, n, 0, kiln_op_result(op, 0), x0->dtype);
  return true;
}

/* Static slice along each dim: out[i] = in[off + i*step]. */
typedef struct { uint32_t rank; int64_t off[OI_MAX_RANK], step[OI_MAX_RANK]; } slice_user;

static bool slice_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = a[0];
  return true;
}

static kiln_value *strided(oi_ctx *c, kiln_value *v, const int64_t *off, const int64_t *size,
                           const int64_t *step) {
  const kiln_type *t = v->type;
  bool pos = true;
  for (uint32_t d = 0; d < t->rank; d++) pos = pos && step[d] > 0;
  if (pos) return oi_slice(c, v, off, size, step);
  /* negative steps: a copy whose input map is off + step*d */
  const kiln_type *rt = kiln_type_with_shape(c->ctx, t, t->rank, size);
  kiln_value *out = oi_empty(c, rt);
  const kiln_affine_expr *r[OI_MAX_RANK];
  for (uint32_t d = 0; d < t->rank; d++)
    r[d] = kiln_affine_binary(c->ctx, KILN_AFFINE_ADD,
                              kiln_affine_binary(c->ctx, KILN_AFFINE_MUL, kiln_affine_dim(c->ctx, d),
                                                 kiln_affine_const(c->ctx, step[d])),
                              kiln_affine_const(c->ctx, off[d]));
  const kiln_affine_map *maps[2] = {kiln_affine_map_get(c->ctx, t->rank, 0, t->rank, r),
                                    kiln_affine_map_identity(c->ctx, t->rank)};
  kiln_op *g = oi_generic(c, 1, &v, 1, &out, maps, t->rank, NULL, slice_body, NULL);
  return g ? kiln_op_result(g, 0) : NULL;
}

bool oi_import_slice(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 3, 5, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0), *sv = x ? oi_in(c, n, 1) : NULL, *ev = sv ? oi_in(c, n, 2) : NULL;
  if (!ev) return false;
  oi_val *av = oi_opt_in(n, 3), *stv = oi_opt_in(n, 4);
  int64_t *st, *en, *ax = NULL, *sp = NULL, ns, ne, na = 0, nsp = 0;
  if (!oi_const_ints(c, sv, "input 1 (starts)", &st, &ns) ||
      !oi_const_ints(c, ev, "input 2 (ends)", &en, &ne) ||
      (av && !oi_const_ints(c, av, "input 3 (axes)", &ax, &na)) ||
      (stv && !oi_const_ints(c, stv, "input 4 (steps)", &sp, &nsp)))
    return false;
  if (ns != ne || (av && na != ns) || (stv && nsp != ns))
    return oi_invalid(c, "starts, ends, axes and steps differ in length");
  const kiln_type *t = x->type;
  uint32_t r = t->rank;
  int64_t off[OI_MAX_RANK], size[OI_MAX_RANK], step[OI_MAX_RANK];
  bool seen[OI_MAX_RANK] = {0};
  for (uint32_t d = 0; d < r; d++) off[d] = 0, size[d] = t->shape[d], step[d] = 1;
  for (int64_t i = 0; i < ns; i++) {
    uint32_t a;
    if (!oi_axis(c, ax ? ax[i] : i, r, "axis", &a)) return false;
    if (seen[a]) return oi_invalid(c, "axis %u is repeated", a);
    seen[a] = true;
    int64_t dim = t->shape[a], s = st[i], e = en[i], k = sp ? sp[i] : 1;
    if (k == 0) return oi_invalid(c, "step is 0 on axis %u", a);
    if (dim == KILN_DYNAMIC) {
      /* a dynamic axis only taken whole */
      if (k == 1 && s == 0 && e >= OI_DIM_MAX) continue;
      return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "slicing dynamic axis %u (sizes decided at run time) is not supported", a);
    }
    /* steps beyond the dim select at most one element: clamp them so the
     * size arithmetic below stays in range */
    if (k > dim) k = dim + 1;
    if (k < -dim) k = -(dim + 1);
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (k > 0) {
      s = s < 0 ? 0 : s > dim ? dim : s;
      e = e < 0 ? 0 : e > dim ? dim : e;
      size[a] = e > s ? (e - s + k - 1) / k : 0;
    } else {
      s = s < 0 ? -1 : s > dim - 1 ? dim - 1 : s;
      e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
      size[a] = s > e ? (s - e + (-k) - 1) / (-k) : 0;
    }
    off[a] = size[a] ? s : 0;
    step[a] = k;
  }
  const kiln_type *rt = oi_tensor_type(c, r, size, x->dtype);
  if (foldable(c, x)) {
    int64_t total = oi_numel(rt), coord[OI_MAX_RANK];
    int64_t *idx = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *idx);
    for (int64_t i = 0; i < total; i++) {
      unravel(i, r, size, coord);
      for (uint32_t d = 0; d < r; d++) coord[d] = off[d] + coord[d] * step[d];
      idx[i] = ravel(r, t->shape, coord);
    }
    oi_set_out_const(c, n, 0, host_take(c, oi_const(c, x), rt, idx), x->dtype);
    return true;
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  kiln_value *res = oi_numel(rt) == 0 ? oi_empty(c, rt) : strided(c, v, off, size, step);
  if (!res) return false;
  oi_set_out(c, n, 0, res, x->dtype);
  return true;
}

bool oi_import_split(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 1, 2, 1, 4096) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *sv = oi_opt_in(n, 1);
  if (!x) return false;
  int64_t axis;
  uint32_t ax;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_axis(c, axis, x->type->rank, "axis", &ax)) return false;
  int64_t dim = x->type->shape[ax], k = (int64_t)n->nout;
  int64_t *sizes;
  if (sv && sv->sym) { /* sizes read from data: windows at run-time offsets */
    int64_t cnt;
    kiln_value **dy;
    if (!oi_shape_ints(c, sv, "input 1 (split)", &sizes, &dy, &cnt)) return false;
    if (cnt != k) return oi_invalid(c, "split has %lld sizes for %lld outputs", (long long)cnt, (long long)k);
    if (oi_has_dyn(x->type)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "run-time split sizes of an input with run-time dims");
    kiln_value *v = oi_ir(c, x), *start[OI_MAX_RANK], *off = oi_index(c, 0);
    if (!v) return false;
    uint32_t r = x->type->rank;
    int64_t out[OI_MAX_RANK];
    for (uint32_t d = 0; d < r; d++) start[d] = oi_index(c, 0), out[d] = x->type->shape[d];
    for (int64_t i = 0; i < k; i++) {
      kiln_value *si = dy[i] ? dy[i] : oi_index(c, sizes[i]), *no[OI_MAX_RANK] = {0};
      out[ax] = dy[i] ? KILN_DYNAMIC : sizes[i];
      no[ax] = dy[i];
      oi_check_shape(c, r, out, no, v->type->elem);
      start[ax] = off;
      oi_set_out(c, n, (size_t)i, oi_read_window(c, v, out, &dy[i], start), x->dtype);
      off = oi_ibin(c, KILN_OP_ARITH_ADDI, off, si);
    }
    oi_check_eq(c, off, oi_index(c, dim)); /* the sizes cover the axis */
    return true;
  }
  if (sv) {
    int64_t cnt;
    if (!oi_const_ints(c, sv, "input 1 (split)", &sizes, &cnt)) return false;
    if (cnt != k) return oi_invalid(c, "split has %lld sizes for %lld outputs", (long long)cnt, (long long)k);
    int64_t sum = 0;
    for (int64_t i = 0; i < cnt; i++) {
      if (sizes[i] < 0 || sizes[i] > dim)
        return oi_invalid(c, "split size %lld is outside 0..%lld", (long long)sizes[i], (long long)dim);
      sum += sizes[i];
    }
    if (sum != dim) return oi_invalid(c, "split sizes sum to %lld, the axis has %lld", (long long)sum, (long long)dim);
  } else {
    if (dim % k) return oi_invalid(c, "axis of %lld does not split into %lld equal parts", (long long)dim, (long long)k);
    sizes = kiln_alloc(c->ctx, (size_t)k * sizeof *sizes);
    for (int64_t i = 0; i < k; i++) sizes[i] = dim / k;
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  uint32_t r = x->type->rank;
  int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], step[OI_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) size[d] = x->type->shape[d], step[d] = 1;
  for (int64_t i = 0; i < k; i++) {
    size[ax] = sizes[i];
    const kiln_type *rt = kiln_type_with_shape(c->ctx, v->type, r, size);
    oi_set_out(c, n, (size_t)i, sizes[i] ? oi_slice(c, v, off, size, step) : oi_empty(c, rt), x->dtype);
    off[ax] += sizes[i];
  }
  return true;
}

/* Gather body: data[i0.., idx, ..] read with tensor.extract. */
typedef struct {
  kiln_value *data;
  uint32_t axis, q, rank_out;
  int64_t dim;
  kiln_value *dimv; /* the axis's size as a host value when it is a run-time dim, else NULL */
  bool elements; /* GatherElements: index replaces coordinate `axis` */
} gather_user;

static bool gather_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  gather_user *g = u;
  kiln_context *ctx = b->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  kiln_value *idx = a[0];
  kiln_value *zero = oi_scalar(b, idx->type, 0, 0);
  kiln_value *neg = oi_cmpi(b, OI_SLT, idx, zero);
  kiln_value *dim = g->dimv ? kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &g->dimv, 1, &idx->type, NULL), 0)
                            : oi_scalar(b, idx->type, 0, g->dim);
  kiln_value *wrapped = oi_op2(b, KILN_OP_ARITH_ADDI, idx, dim);
  idx = oi_select(b, neg, wrapped, idx);
  /* clamped into [0, dim - 1]: the host refuses indices outside before the
   * gather runs (gather()); where it cannot check (in a Loop or If body),
   * a bad index still never reads outside the data */
  kiln_value *below = oi_cmpi(b, OI_SLT, idx, zero);
  idx = oi_select(b, below, zero, idx);
  kiln_value *one = oi_scalar(b, idx->type, 0, 1);
  kiln_value *last = oi_op2(b, KILN_OP_ARITH_SUBI, dim, one);
  kiln_value *above = oi_cmpi(b, OI_SGT, idx, last);
  idx = oi_select(b, above, last, idx);
  kiln_value *ii = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &idx, 1, &it, NULL), 0);
  uint32_t dr = g->data->type->rank;
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = g->data;
  for (uint32_t d = 0; d < dr; d++) {
    int64_t loop;
    if (d == g->axis) {
      ops[1 + d] = ii;
      continue;
    }
    loop = g->elements ? d : (d < g->axis ? d : d + g->q - 1);
    ops[1 + d] = oi_loop_index(b, (uint32_t)loop);
  }
  const kiln_type *et = g->data->type->elem;
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, dr + 1, ops, 1, &et, NULL), 0);
  return true;
}

/* Indices read from data must lie in [-n, n - 1] (ONNX's rule; ONNX
 * Runtime refuses the rest): the host checks the minimum and maximum of
 * ii (any rank) against the axis size n before the op runs, the error
 * naming the axis and the value. An empty ii's minimum and maximum are
 * the reduction identities, which pass: each bound is checked on its own
 * side only. Shared with the Scatter family (import_scatter.c). */
bool oi_check_indices(oi_ctx *c, kiln_value *ii, int32_t dtype, kiln_value *n, uint32_t axis) {
  kiln_value *mn = ii, *mx = ii;
  uint32_t q = ii->type->rank;
  if (q > 0) {
    bool all[OI_MAX_RANK];
    for (uint32_t d = 0; d < q; d++) all[d] = true;
    mn = oi_reduce(c, ii, dtype, all, false, OI_RED_MIN);
    mx = mn ? oi_reduce(c, ii, dtype, all, false, OI_RED_MAX) : NULL;
    if (!mx) return false;
  }
  kiln_value *zero = oi_index(c, 0), *one = oi_index(c, 1);
  kiln_value *lo = oi_ibin(c, KILN_OP_ARITH_SUBI, zero, n);
  kiln_value *hi = oi_ibin(c, KILN_OP_ARITH_SUBI, n, one);
  kiln_value *any_above = oi_index(c, INT64_MAX), *any_below = oi_index(c, INT64_MIN);
  kiln_value *least = oi_host_read(c, mn, 0);
  oi_check_range(c, least, lo, any_above, "index", axis);
  kiln_value *most = oi_host_read(c, mx, 0);
  oi_check_range(c, most, any_below, hi, "index", axis);
  return true;
}

static bool gather(oi_ctx *c, oi_node *n, bool elements) {
  static const char *const known[] = {"axis", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *iv = x ? oi_in(c, n, 1) : NULL;
  if (!iv) return false;
  if (iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 && iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "indices must be int32 or int64, not %s", oi_dtype_name(iv->dtype));
  int64_t axis;
  uint32_t ax, r = x->type->rank, q = iv->type->rank;
  if (!oi_attr_int(c, n, "axis", 0, &axis) || !oi_axis(c, axis, r, "axis", &ax)) return false;
  int64_t shape[OI_MAX_RANK];
  uint32_t ro;
  if (elements) {
    if (q != r) return oi_invalid(c, "indices rank %u differs from data rank %u", q, r);
    ro = r;
    memcpy(shape, iv->type->shape, r * sizeof *shape);
  } else {
    ro = r - 1 + q;
    if (ro > OI_MAX_RANK) return oi_unsupported(c, "result rank %u exceeds %d", ro, OI_MAX_RANK);
    for (uint32_t d = 0, k = 0; d < r; d++) {
      if (d == ax) {
        for (uint32_t j = 0; j < q; j++) shape[k++] = iv->type->shape[j];
      } else {
        shape[k++] = x->type->shape[d];
      }
    }
  }
  int64_t dim = x->type->shape[ax];
  const kiln_type *rt = oi_tensor_type(c, ro, shape, x->dtype);
  /* constant indices on a run-time axis (x[:, 0] of a dynamic sequence):
   * checked at run time against the axis's size, a negative one counted
   * from it in the body */
  kiln_value *dimv = NULL;
  if (dim == KILN_DYNAMIC) {
    if (!(dimv = oi_dim(c, x, ax))) return false;
    if (foldable(c, iv)) {
      int64_t *ids, cnt, hi = 0;
      if (!oi_const_ints(c, iv, "indices", &ids, &cnt)) return false;
      for (int64_t i = 0; i < cnt; i++) {
        int64_t need = ids[i] < 0 ? -ids[i] : ids[i] + 1; /* the axis needs at least this many */
        if (need > hi) hi = need;
      }
      if (hi > OI_DIM_MAX) return oi_invalid(c, "index beyond any axis (%lld)", (long long)hi);
      kiln_value *h = oi_index(c, hi);
      kiln_value *m = oi_ibin(c, KILN_OP_ARITH_MINSI, dimv, h);
      oi_check_eq(c, m, h);
    }
  }
  /* constant indices are checked (and folded with constant data) */
  if (dim != KILN_DYNAMIC && foldable(c, iv)) {
    int64_t *ids, cnt;
    if (!oi_const_ints(c, iv, "indices", &ids, &cnt)) return false;
    for (int64_t i = 0; i < cnt; i++) {
      if (ids[i] < -dim || ids[i] >= dim)
        return oi_invalid(c, "index %lld is out of range for axis of %lld", (long long)ids[i], (long long)dim);
      if (ids[i] < 0) ids[i] += dim;
    }
    if (foldable(c, x) && oi_numel(rt) <= OI_FOLD_MAX) {
      int64_t total = oi_numel(rt), co[OI_MAX_RANK], ci[OI_MAX_RANK];
      int64_t *idx = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *idx);
      for (int64_t i = 0; i < total; i++) {
        unravel(i, ro, shape, co);
        if (elements) {
          memcpy(ci, co, r * sizeof *ci);
          ci[ax] = ids[i];
        } else {
          for (uint32_t d = 0; d < r; d++)
            ci[d] = d < ax ? co[d] : d > ax ? co[d + q - 1] : ids[ravel(q, iv->type->shape, co + ax)];
        }
        idx[i] = ravel(r, x->type->shape, ci);
      }
      oi_set_out_const(c, n, 0, host_take(c, oi_const(c, x), rt, idx), x->dtype);
      return true;
    }
  }
  if (oi_numel(rt) == 0) {
    oi_set_out(c, n, 0, oi_empty(c, rt), x->dtype);
    return true;
  }
  gather_user g = {.data = oi_ir(c, x), .axis = ax, .q = q, .rank_out = ro, .dim = dim, .dimv = dimv,
                   .elements = elements};
  kiln_value *ii = oi_ir(c, iv);
  if (!g.data || !ii) return false;
  /* indices from data: checked on the host before the gather runs */
  if (!foldable(c, iv) && oi_host_block(c)) {
    kiln_value *size = dimv ? dimv : oi_index(c, dim);
    if (!oi_check_indices(c, ii, iv->dtype, size, ax)) return false;
  }
  int64_t imap[OI_MAX_RANK];
  for (uint32_t j = 0; j < q; j++) imap[j] = elements ? j : ax + j;
  const kiln_affine_map *maps[2] = {oi_map_dims(c, ro, q, imap), kiln_affine_map_identity(c->ctx, ro)};
  /* a run-time dim of the result that comes from the data (read in the
   * body, not an operand) is sized here: the generic's maps cannot */
  kiln_value *sizes[OI_MAX_RANK];
  uint32_t nsz = 0;
  bool from_data = false;
  for (uint32_t d = 0; d < ro; d++) {
    if (shape[d] != KILN_DYNAMIC) continue;
    bool idx_dim = elements || (d >= ax && d < ax + q);
    from_data |= !idx_dim;
    oi_val *src = idx_dim ? iv : x;
    uint32_t sd = elements ? d : idx_dim ? d - ax : d < ax ? d : d - q + 1;
    if (!(sizes[nsz++] = oi_dim(c, src, sd))) return false;
  }
  kiln_value *out = from_data ? oi_empty_dims(c, rt, sizes) : oi_empty(c, rt);
  kiln_op *op = oi_generic(c, 1, &ii, 1, &out, maps, ro, NULL, gather_body, &g);
  if (!op) return false;
  oi_set_out(c, n, 0, kiln_op_result(op, 0), x->dtype);
  return true;
}

bool oi_import_gather(oi_ctx *c, oi_node *n) { return gather(c, n, false); }

/* GatherND body: out[o] = data[o[:b], idx[o[:q-1]][0..k), o[q-1:]] */
typedef struct {
  kiln_value *data, *idx;
  uint32_t b, q, k;
} gnd_user;

static bool gnd_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  gnd_user *g = u;
  kiln_context *ctx = b->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  const kiln_type *dt = g->data->type, *xt = g->idx->type;
  kiln_value *lo[OI_MAX_RANK * 2];
  uint32_t nl = g->q - 1 + dt->rank - g->b - g->k;
  for (uint32_t l = 0; l < nl; l++) lo[l] = oi_loop_index(b, l);
  kiln_value *iops[OI_MAX_RANK + 1], *dops[OI_MAX_RANK + 1];
  iops[0] = g->idx;
  for (uint32_t d = 0; d + 1 < g->q; d++) iops[1 + d] = lo[d];
  dops[0] = g->data;
  for (uint32_t d = 0; d < g->b; d++) dops[1 + d] = lo[d];
  for (uint32_t j = 0; j < g->k; j++) {
    iops[g->q] = oi_scalar(b, it, 0, j);
    kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, g->q + 1, iops, 1, &xt->elem, NULL), 0);
    kiln_value *dim = oi_scalar(b, v->type, 0, dt->shape[g->b + j]);
    kiln_value *zero = oi_scalar(b, v->type, 0, 0);
    kiln_value *neg = oi_cmpi(b, OI_SLT, v, zero);
    kiln_value *wrapped = oi_op2(b, KILN_OP_ARITH_ADDI, v, dim);
    v = oi_select(b, neg, wrapped, v);
    /* clamped into the data as gather_body does (the host checks first) */
    kiln_value *below = oi_cmpi(b, OI_SLT, v, zero);
    v = oi_select(b, below, zero, v);
    kiln_value *last = oi_scalar(b, v->type, 0, dt->shape[g->b + j] - 1);
    kiln_value *above = oi_cmpi(b, OI_SGT, v, last);
    v = oi_select(b, above, last, v);
    dops[1 + g->b + j] = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &v, 1, &it, NULL), 0);
  }
  for (uint32_t d = g->b + g->k; d < dt->rank; d++) dops[1 + d] = lo[g->q - 1 + d - g->b - g->k];
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, dt->rank + 1, dops, 1, &dt->elem, NULL), 0);
  return true;
}

bool oi_import_gather_nd(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"batch_dims", NULL};
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *iv = x ? oi_in(c, n, 1) : NULL;
  if (!iv) return false;
  if (iv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "indices must be int64, not %s", oi_dtype_name(iv->dtype));
  int64_t bd;
  if (!oi_attr_int(c, n, "batch_dims", 0, &bd)) return false;
  const kiln_type *dt = x->type, *xt = iv->type;
  uint32_t r = dt->rank, q = xt->rank;
  if (q < 1 || r < 1) return oi_invalid(c, "data and indices need rank >= 1");
  if (bd < 0 || bd >= (int64_t)q || bd >= (int64_t)r) return oi_invalid(c, "batch_dims %lld out of range", (long long)bd);
  int64_t k = xt->shape[q - 1];
  if (k < 1 || k > (int64_t)r - bd) return oi_invalid(c, "indices' last dimension %lld exceeds data rank - batch_dims", (long long)k);
  for (uint32_t d = 0; d < bd; d++)
    if (dt->shape[d] != xt->shape[d]) return oi_invalid(c, "batch dimension %u differs", d);
  int64_t shape[OI_MAX_RANK * 2];
  uint32_t ro = 0;
  for (uint32_t d = 0; d + 1 < q; d++) shape[ro++] = xt->shape[d];
  for (uint32_t d = (uint32_t)(bd + k); d < r; d++) shape[ro++] = dt->shape[d];
  if (ro > OI_MAX_RANK) return oi_unsupported(c, "result rank %u exceeds %d", ro, OI_MAX_RANK);
  const kiln_type *rt = oi_tensor_type(c, ro, shape, x->dtype);
  gnd_user g = {oi_ir(c, x), oi_ir(c, iv), (uint32_t)bd, q, (uint32_t)k};
  if (!g.data || !g.idx) return false;
  if (oi_numel(rt) == 0) {
    oi_set_out(c, n, 0, oi_empty(c, rt), x->dtype);
    return true;
  }
  /* indices from data: each column j checked against its data dim */
  if (!foldable(c, iv) && oi_host_block(c)) {
    int64_t off[OI_MAX_RANK] = {0}, size[OI_MAX_RANK], step[OI_MAX_RANK];
    for (uint32_t d = 0; d < q; d++) size[d] = xt->shape[d], step[d] = 1;
    size[q - 1] = 1;
    for (uint32_t j = 0; j < (uint32_t)k; j++) {
      off[q - 1] = j;
      kiln_value *col = oi_slice(c, g.idx, off, size, step);
      kiln_value *n_j = oi_index(c, dt->shape[bd + j]);
      if (!col || !oi_check_indices(c, col, iv->dtype, n_j, (uint32_t)bd + j)) return false;
    }
  }
  kiln_value *out = oi_empty(c, rt);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, ro);
  kiln_op *op = oi_generic(c, 0, NULL, 1, &out, &m, ro, NULL, gnd_body, &g);
  if (!op) return false;
  oi_set_out(c, n, 0, kiln_op_result(op, 0), x->dtype);
  return true;
}
bool oi_import_gather_elements(oi_ctx *c, oi_node *n) { return gather(c, n, true); }

static bool copy_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = a[0];
  return true;
}

/* Expand to a shape known at run time only (symbolic or read from data):
 * an output dim is the shape's entry where the input's is 1 (or absent),
 * else the input's, the entry then checked to be 1 or equal to it. */
static bool expand_run_time(oi_ctx *c, oi_node *n, oi_val *x, int64_t ns, const int64_t *st, kiln_value *const *dy) {
  if (oi_has_dyn(x->type)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "a run-time shape for an input with run-time dims");
  uint32_t r = x->type->rank, R = ns > (int64_t)r ? (uint32_t)ns : r;
  if (R > OI_MAX_RANK) return oi_unsupported(c, "rank %u exceeds %d", R, OI_MAX_RANK);
  kiln_value *se[OI_MAX_RANK], *sizes[OI_MAX_RANK], *dims[OI_MAX_RANK];
  oi_shape_elems(c, ns, st, dy, se);
  int64_t out[OI_MAX_RANK];
  uint32_t nd = 0;
  kiln_value *one = oi_index(c, 1);
  for (uint32_t j = 0; j < R; j++) {
    int64_t js = (int64_t)j - (R - ns), jx = (int64_t)j - (R - r);
    int64_t xd = jx >= 0 ? x->type->shape[jx] : 1;
    dims[j] = NULL;
    out[j] = xd;
    if (js < 0) continue;
    if (xd == 1) { /* the shape's entry, static when it is a constant */
      if (dy[js]) out[j] = KILN_DYNAMIC, dims[j] = sizes[nd++] = dy[js];
      else out[j] = st[js];
      continue;
    }
    if (!dy[js]) {
      if (st[js] != 1 && st[js] != xd)
        return oi_invalid(c, "shape[%lld] = %lld does not broadcast with %lld", (long long)js, (long long)st[js], (long long)xd);
      continue;
    }
    /* (entry is 1) or (entry is the input's dim): a product of two 0/1 flags */
    kiln_value *a = oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_SUBI, se[js], one));
    kiln_value *b = oi_nonzero(c, oi_ibin(c, KILN_OP_ARITH_SUBI, se[js], oi_index(c, xd)));
    oi_check_eq(c, oi_ibin(c, KILN_OP_ARITH_MULI, a, b), oi_index(c, 0));
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  oi_check_shape(c, R, out, dims, v->type->elem);
  const kiln_type *ot = kiln_type_tensor(c->ctx, R, out, v->type->elem, NULL);
  kiln_value *e = oi_empty_dims(c, ot, sizes);
  const kiln_affine_map *maps[2] = {oi_broadcast_map(c, v->type, R, out), kiln_affine_map_identity(c->ctx, R)};
  kiln_op *g = oi_generic(c, 1, &v, 1, &e, maps, R, NULL, copy_body, NULL);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

bool oi_import_expand(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0), *s = x ? oi_in(c, n, 1) : NULL;
  if (!s) return false;
  if (s->sym) {
    int64_t *st, ns;
    kiln_value **dy;
    return oi_shape_ints(c, s, "input 1 (shape)", &st, &dy, &ns) && expand_run_time(c, n, x, ns, st, dy);
  }
  int64_t *dims, rank;
  if (!oi_const_ints(c, s, "input 1 (shape)", &dims, &rank)) return false;
  if (rank > OI_MAX_RANK) return oi_unsupported(c, "rank %lld exceeds %d", (long long)rank, OI_MAX_RANK);
  if (!oi_dims_ok(c, (uint32_t)rank, dims, "shape")) return false;
  oi_val shp = {.type = oi_tensor_type(c, (uint32_t)rank, dims, x->dtype), .dtype = x->dtype};
  oi_val *vs[2] = {x, &shp};
  uint32_t r;
  int64_t out[OI_MAX_RANK];
  if (!oi_broadcast_shape(c, 2, vs, &r, out)) return false;
  /* a small constant broadcast at import (Swin's window-mask indices and
   * values, written by ScatterND, are Expands of Ranges and scalars);
   * floats only up to OI_FOLD_FLOAT_MAX, so that a broadcast bias never
   * becomes a large constant of the module */
  const kiln_type *rt = oi_tensor_type(c, r, out, x->dtype);
  if (foldable(c, x) && oi_numel(rt) <= (oi_dtype_is_float(x->dtype) ? OI_FOLD_FLOAT_MAX : OI_FOLD_MAX)) {
    int64_t total = oi_numel(rt), co[OI_MAX_RANK], ci[OI_MAX_RANK];
    uint32_t xr = x->type->rank;
    int64_t *idx = kiln_alloc(c->ctx, (size_t)(total + 1) * sizeof *idx);
    for (int64_t i = 0; i < total; i++) {
      unravel(i, r, out, co);
      for (uint32_t d = 0; d < xr; d++) ci[d] = x->type->shape[d] == 1 ? 0 : co[r - xr + d];
      idx[i] = ravel(xr, x->type->shape, ci);
    }
    oi_set_out_const(c, n, 0, host_take(c, oi_const(c, x), rt, idx), x->dtype);
    return true;
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  kiln_value *res = oi_elementwise_ir(c, 1, &v, r, out, v->type->elem, copy_body, NULL);
  if (!res) return false;
  oi_set_out(c, n, 0, res, x->dtype);
  return true;
}

bool oi_import_tile(oi_ctx *c, oi_node *n) {
  if (!oi_arity(c, n, 2, 2, 1, 1) || !oi_attrs_only(c, n, no_attrs)) return false;
  oi_val *x = oi_in(c, n, 0), *rv = x ? oi_in(c, n, 1) : NULL;
  if (!rv) return false;
  int64_t *rep, cnt;
  kiln_value **rdy; /* repeats known at run time only */
  if (!oi_shape_ints(c, rv, "input 1 (repeats)", &rep, &rdy, &cnt)) return false;
  uint32_t r = x->type->rank;
  if (cnt != r) return oi_invalid(c, "repeats has %lld entries for rank %u", (long long)cnt, r);
  if (2 * r > OI_MAX_RANK) return oi_unsupported(c, "rank %u too large for Tile", r);
  bool run_time = false;
  for (uint32_t d = 0; d < r; d++) run_time |= rdy[d] != NULL;
  if (run_time && oi_has_dyn(x->type))
    return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "run-time repeats for an input with run-time dims");
  /* broadcast to [r0, d0, r1, d1, ...], then collapse pairs */
  int64_t big[OI_MAX_RANK], dims[OI_MAX_RANK], out[OI_MAX_RANK];
  kiln_value *sizes[OI_MAX_RANK], *bdyn[OI_MAX_RANK] = {0};
  uint32_t nd = 0;
  for (uint32_t d = 0; d < r; d++) {
    if (rdy[d]) { /* a run-time repeat: sized on the host */
      big[2 * d] = out[d] = KILN_DYNAMIC;
      sizes[nd++] = bdyn[2 * d] = rdy[d];
    } else {
      if (!oi_size_ok(c, rep[d], 0, "repeat")) return false;
      big[2 * d] = rep[d];
      out[d] = rep[d] * x->type->shape[d];
    }
    big[2 * d + 1] = x->type->shape[d];
    dims[d] = 2 * d + 1;
  }
  if (!run_time && !oi_dims_ok(c, 2 * r, big, "tiled result")) return false;
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  if (run_time) oi_check_shape(c, 2 * r, big, bdyn, v->type->elem);
  const kiln_type *bt = kiln_type_with_shape(c->ctx, v->type, 2 * r, big);
  kiln_value *e = run_time ? oi_empty_dims(c, bt, sizes) : oi_empty(c, bt);
  const kiln_affine_map *maps[2] = {oi_map_dims(c, 2 * r, r, dims), kiln_affine_map_identity(c->ctx, 2 * r)};
  kiln_op *g = oi_generic(c, 1, &v, 1, &e, maps, 2 * r, NULL, copy_body, NULL);
  if (!g) return false;
  if (!run_time) {
    oi_set_out(c, n, 0, oi_reshape(c, kiln_op_result(g, 0), r, out), x->dtype);
    return true;
  }
  /* collapse the pairs: each run-time output dim is its pair's product */
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  const kiln_attr *groups[OI_MAX_RANK];
  for (uint32_t d = 0; d < r; d++) {
    const kiln_attr *pair[2] = {kiln_attr_int(c->ctx, i64, 2 * d), kiln_attr_int(c->ctx, i64, 2 * d + 1)};
    groups[d] = kiln_attr_array(c->ctx, 2, pair);
  }
  kiln_named_attr re = {kiln_intern_cstr(c->ctx, "reassociation"), kiln_attr_array(c->ctx, r, groups)};
  const kiln_type *ot = kiln_type_with_shape(c->ctx, v->type, r, out);
  kiln_value *y = kiln_op_result(g, 0);
  oi_set_out(c, n, 0, kiln_op_result(kiln_build(&c->b, KILN_OP_TENSOR_COLLAPSE_SHAPE, 1, &y, 1, &ot,
                                                kiln_attr_dict(c->ctx, 1, &re)), 0), x->dtype);
  return true;
}

/* Pad in reflect / edge mode: a gather over the output,
 * out[o] = x[src(o)], where per padded dim i = o - lo and
 *   edge:    src = clamp(i, 0, n-1)
 *   reflect: src = p - j when j > n-1 else j, with j = i mod p, p = 2(n-1)
 *            (numpy's reflection, also for pads wider than the dim; a
 *            dim of one element repeats it). */
typedef struct {
  kiln_value *x;
  bool reflect;
  const int64_t *lo, *hi;
} pad_user;

static bool pad_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c;
  (void)a;
  pad_user *p = u;
  const kiln_type *xt = p->x->type, *it = kiln_type_index(b->ctx);
  kiln_value *ops[OI_MAX_RANK + 1];
  ops[0] = p->x;
  for (uint32_t d = 0; d < xt->rank; d++) {
    kiln_value *i = oi_loop_index(b, d);
    int64_t sz = xt->shape[d];
    ops[1 + d] = i;
    if (!p->lo[d] && !p->hi[d]) continue;
    if (p->lo[d]) i = oi_op2(b, KILN_OP_ARITH_SUBI, i, oi_scalar(b, it, 0, p->lo[d]));
    kiln_value *zero = oi_scalar(b, it, 0, 0), *last = oi_scalar(b, it, 0, sz - 1);
    if (p->reflect && sz > 1) {
      kiln_value *per = oi_scalar(b, it, 0, 2 * (sz - 1));
      kiln_value *j = oi_op2(b, KILN_OP_ARITH_REMSI, i, per);
      j = oi_select(b, oi_cmpi(b, OI_SLT, j, zero), oi_op2(b, KILN_OP_ARITH_ADDI, j, per), j);
      i = oi_select(b, oi_cmpi(b, OI_SGT, j, last), oi_op2(b, KILN_OP_ARITH_SUBI, per, j), j);
    } else {
      i = oi_select(b, oi_cmpi(b, OI_SLT, i, zero), zero, i);
      i = oi_select(b, oi_cmpi(b, OI_SGT, i, last), last, i);
    }
    ops[1 + d] = i;
  }
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, xt->rank + 1, ops, 1, &xt->elem, NULL), 0);
  return true;
}

/* Pad with pads read from data (host values lo_d, hi_d, either sign:
 * negative ones crop). Output dim d is n_d + lo_d + hi_d, checked >= 0;
 * out[o] reads x at src = o - lo per dim, passed to the kernel as the
 * magnitudes of lo's two signs (host values go as unsigned push
 * constants): src = o + neg - pos. Edge clamps src into [0, n-1],
 * reflect folds it as pad_body does (a period of at least 1: a dim of one
 * element repeats it), constant mode takes the value where src is
 * outside; every read is clamped into x. The constant may be a run-time
 * scalar. x's dims are static here: an edge or reflect pad of an empty
 * dim must leave it empty (checked), a constant pad of an empty x reads
 * nothing. */
typedef struct {
  kiln_value *x, *cval;  /* cval: a run-time constant_value tensor, or NULL */
  int mode;              /* 0 constant, 1 edge, 2 reflect */
  bool empty;            /* x holds no element */
  double f;
  int64_t iv;
  kiln_value *pos[OI_MAX_RANK], *neg[OI_MAX_RANK];
} dpad_user;

static bool dpad_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  (void)c, (void)a;
  dpad_user *p = u;
  const kiln_type *xt = p->x->type, *it = kiln_type_index(b->ctx);
  kiln_value *fill = oi_scalar(b, xt->elem, p->f, p->iv);
  if (p->cval) {
    kiln_value *ops[2] = {p->cval, oi_scalar(b, it, 0, 0)};
    fill = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + p->cval->type->rank, ops, 1, &xt->elem, NULL), 0);
  }
  if (p->empty) {
    y[0] = fill;
    return true;
  }
  kiln_value *ops[OI_MAX_RANK + 1], *inside = NULL, *zero = oi_scalar(b, it, 0, 0);
  ops[0] = p->x;
  for (uint32_t d = 0; d < xt->rank; d++) {
    kiln_value *last = oi_scalar(b, it, 0, xt->shape[d] - 1);
    kiln_value *i = oi_op2(b, KILN_OP_ARITH_SUBI, oi_op2(b, KILN_OP_ARITH_ADDI, oi_loop_index(b, d), p->neg[d]), p->pos[d]);
    if (p->mode == 2) {
      kiln_value *per = oi_scalar(b, it, 0, xt->shape[d] > 1 ? 2 * (xt->shape[d] - 1) : 1);
      kiln_value *j = oi_op2(b, KILN_OP_ARITH_REMSI, i, per);
      j = oi_select(b, oi_cmpi(b, OI_SLT, j, zero), oi_op2(b, KILN_OP_ARITH_ADDI, j, per), j);
      i = oi_select(b, oi_cmpi(b, OI_SGT, j, last), oi_op2(b, KILN_OP_ARITH_SUBI, per, j), j);
    } else if (p->mode == 0) {
      kiln_value *in = oi_op2(b, KILN_OP_ARITH_ANDI, oi_cmpi(b, OI_SGE, i, zero), oi_cmpi(b, OI_SLE, i, last));
      inside = inside ? oi_op2(b, KILN_OP_ARITH_ANDI, inside, in) : in;
    }
    i = oi_select(b, oi_cmpi(b, OI_SLT, i, zero), zero, i);
    ops[1 + d] = oi_select(b, oi_cmpi(b, OI_SGT, i, last), last, i);
  }
  y[0] = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, xt->rank + 1, ops, 1, &xt->elem, NULL), 0);
  if (inside) y[0] = oi_select(b, inside, y[0], fill);
  return true;
}

static bool pad_from_data(oi_ctx *c, oi_node *n, oi_val *x, oi_val *pv, int mode, oi_val *cv, oi_val *av) {
  uint32_t r = x->type->rank;
  if (av) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "axes given with pads read from data");
  if (oi_has_dyn(x->type)) return oi_fail(c, KILN_ONNX_ERR_DYNAMIC, "input 0 has run-time dims and pads are read from data");
  if (oi_numel(pv->type) != 2 * (int64_t)r)
    return oi_invalid(c, "pads has %lld entries, expected %u", (long long)oi_numel(pv->type), 2 * r);
  dpad_user p = {.x = oi_ir(c, x), .mode = mode, .empty = oi_numel(x->type) == 0};
  if (!p.x) return false;
  if (cv) {
    if (cv->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "constant_value has another type than X");
    if (oi_numel(cv->type) != 1 || cv->type->rank > 1) return oi_invalid(c, "constant_value must hold one element");
    if (mode) return oi_invalid(c, "constant_value is given with mode '%s'", mode == 1 ? "edge" : "reflect");
    if (oi_const(c, cv)) {
      double *d;
      int64_t cnt;
      if (!oi_const_floats(c, cv, "input 2 (constant_value)", &d, &cnt)) return false;
      p.f = d[0], p.iv = (int64_t)d[0];
    } else if (!(p.cval = oi_ir(c, cv))) {
      return false;
    }
  }
  kiln_value *zero = oi_index(c, 0), *dims[OI_MAX_RANK];
  int64_t shape[OI_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t d = 0; d < r; d++) {
    kiln_value *lo = pv->sym[d], *hi = pv->sym[r + d];
    p.pos[d] = oi_ibin(c, KILN_OP_ARITH_MAXSI, lo, zero);
    p.neg[d] = oi_ibin(c, KILN_OP_ARITH_MAXSI, oi_ibin(c, KILN_OP_ARITH_SUBI, zero, lo), zero);
    kiln_value *o = oi_ibin(c, KILN_OP_ARITH_ADDI, oi_index(c, x->type->shape[d]), oi_ibin(c, KILN_OP_ARITH_ADDI, lo, hi));
    if (mode && x->type->shape[d] == 0) oi_check_eq(c, o, zero); /* nothing to repeat */
    shape[d] = KILN_DYNAMIC;
    dims[nd++] = o;
  }
  oi_check_shape(c, r, shape, dims, p.x->type->elem);
  const kiln_type *rt = oi_tensor_type(c, r, shape, x->dtype);
  kiln_value *init = oi_empty_dims(c, rt, dims);
  const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
  kiln_op *g = oi_generic(c, 0, NULL, 1, &init, &m, r, NULL, dpad_body, &p);
  if (!g) return false;
  oi_set_out(c, n, 0, kiln_op_result(g, 0), x->dtype);
  return true;
}

bool oi_import_pad(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"mode", NULL};
  if (!oi_arity(c, n, 2, 4, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *pv = x ? oi_in(c, n, 1) : NULL, *cv = oi_opt_in(n, 2), *av = oi_opt_in(n, 3);
  if (!pv) return false;
  const char *mode;
  if (!oi_attr_string(c, n, "mode", "constant", &mode)) return false;
  bool reflect = strcmp(mode, "reflect") == 0, edge = strcmp(mode, "edge") == 0;
  if (!reflect && !edge && strcmp(mode, "constant") != 0)
    return oi_unsupported(c, "mode '%s' (constant, reflect and edge are supported)", mode);
  uint32_t r = x->type->rank;
  if (pv->sym) return pad_from_data(c, n, x, pv, reflect ? 2 : edge ? 1 : 0, cv, av);
  int64_t *pads, np;
  if (!oi_const_ints(c, pv, "input 1 (pads)", &pads, &np)) return false;
  int64_t lo[OI_MAX_RANK] = {0}, hi[OI_MAX_RANK] = {0};
  uint32_t axes[OI_MAX_RANK], na = r;
  for (uint32_t d = 0; d < r; d++) axes[d] = d;
  if (av) {
    int64_t *a, cnt;
    if (!oi_const_ints(c, av, "input 3 (axes)", &a, &cnt)) return false;
    if (cnt > r) return oi_invalid(c, "too many axes");
    na = (uint32_t)cnt;
    for (uint32_t i = 0; i < na; i++)
      if (!oi_axis(c, a[i], r, "axis", &axes[i])) return false;
  }
  if (np != 2 * (int64_t)na) return oi_invalid(c, "pads has %lld entries, expected %u", (long long)np, 2 * na);
  for (uint32_t i = 0; i < na; i++) {
    lo[axes[i]] = pads[i];
    hi[axes[i]] = pads[na + i];
    if (pads[i] < 0 || pads[na + i] < 0) return oi_unsupported(c, "negative pads (cropping)");
    if (!oi_size_ok(c, pads[i], 0, "pad") || !oi_size_ok(c, pads[na + i], 0, "pad")) return false;
  }
  double f = 0;
  int64_t iv = 0;
  if (cv) {
    if (cv->dtype != x->dtype) return oi_fail(c, KILN_ONNX_ERR_TYPE, "constant_value has another type than X");
    double *d;
    int64_t cnt;
    if (!oi_const_floats(c, cv, "input 2 (constant_value)", &d, &cnt)) return false;
    if (cnt != 1) return oi_invalid(c, "constant_value must hold one element");
    f = d[0];
    iv = (int64_t)d[0];
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  if (reflect || edge) {
    if (cv) return oi_invalid(c, "constant_value is given with mode '%s'", mode);
    int64_t shape[OI_MAX_RANK];
    for (uint32_t d = 0; d < r; d++) {
      if (x->type->shape[d] == 0 && (lo[d] || hi[d]))
        return oi_invalid(c, "mode '%s' pads dimension %u, which is empty", mode, d);
      shape[d] = x->type->shape[d] + lo[d] + hi[d];
    }
    if (!oi_dims_ok(c, r, shape, "result")) return false;
    const kiln_type *rt = oi_tensor_type(c, r, shape, x->dtype);
    kiln_value *out = oi_empty(c, rt);
    if (oi_numel(rt) > 0) {
      pad_user p = {v, reflect, lo, hi};
      const kiln_affine_map *m = kiln_affine_map_identity(c->ctx, r);
      kiln_op *op = oi_generic(c, 0, NULL, 1, &out, &m, r, NULL, pad_body, &p);
      if (!op) return false;
      out = kiln_op_result(op, 0);
    }
    oi_set_out(c, n, 0, out, x->dtype);
    return true;
  }
  oi_set_out(c, n, 0, oi_pad(c, v, lo, hi, f, iv), x->dtype);
  return true;
}

/* k is an import-time constant, or (kv) a one-element int64 tensor read
 * in the body at run time. */
typedef struct { int64_t k; bool upper; kiln_value *kv; } trilu_user;

static bool trilu_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  trilu_user *t = u;
  kiln_context *ctx = b->ctx;
  const kiln_type *it = kiln_type_index(ctx);
  const kiln_attr *da = kiln_op_get_attr(kiln_block_parent_op(b->block), "indexing_maps");
  uint32_t loops = da->elems[0]->map->num_dims;
  kiln_value *ij[2];
  for (uint32_t k = 0; k < 2; k++) ij[k] = oi_loop_index(b, loops - 2 + k);
  /* keep when j - i >= k (upper) or j - i <= k (lower) */
  kiln_value *diff = oi_op2(b, KILN_OP_ARITH_SUBI, ij[1], ij[0]);
  kiln_value *kk;
  if (t->kv) {
    kiln_value *ops[2] = {t->kv, oi_scalar(b, it, 0, 0)};
    const kiln_type *i64 = kiln_type_int(ctx, 64);
    kiln_value *k = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 1 + t->kv->type->rank, ops, 1, &i64, NULL), 0);
    kk = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &k, 1, &it, NULL), 0);
  } else {
    kk = oi_scalar(b, it, 0, t->k);
  }
  kiln_value *keep = oi_cmpi(b, t->upper ? OI_SGE : OI_SLE, diff, kk);
  y[0] = oi_select(b, keep, a[0], oi_scalar(b, a[0]->type, 0, 0));
  return true;
}

bool oi_import_trilu(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"upper", NULL};
  if (!oi_arity(c, n, 1, 2, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *kv = oi_opt_in(n, 1);
  if (!x) return false;
  if (x->type->rank < 2) return oi_invalid(c, "input rank %u < 2", x->type->rank);
  int64_t upper;
  trilu_user t = {0, true, NULL};
  if (!oi_attr_int(c, n, "upper", 1, &upper)) return false;
  t.upper = upper != 0;
  if (kv && kv->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "k must be int64, not %s", oi_dtype_name(kv->dtype));
  if (kv && (oi_numel(kv->type) != 1 || kv->type->rank > 1))
    return oi_invalid(c, "k must hold one element");
  if (kv && (kv->cst || kv->tensor)) {
    int64_t *k, cnt;
    if (!oi_const_ints(c, kv, "input 1 (k)", &k, &cnt)) return false;
    t.k = k[0];
  } else if (kv) {
    /* a run-time k: any int64 is valid (diagonals past the matrix keep
     * all or nothing), so no clamping is needed */
    if (!(t.kv = oi_ir(c, kv))) return false;
  }
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  kiln_value *res = oi_elementwise_ir(c, 1, &v, x->type->rank, x->type->shape, v->type->elem, trilu_body, &t);
  if (!res) return false;
  oi_set_out(c, n, 0, res, x->dtype);
  return true;
}
