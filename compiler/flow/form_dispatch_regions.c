/* form-dispatch-regions: groups host ops into flow.dispatch.region ops,
 * one per future kernel.
 *
 * Takes: host functions after fusion and sink-reshapes. Every op producing a tensor other
 * than arith.constant, tensor.empty, flow.tensor.reshape, flow.text (host
 * text ops) and linalg.fill used only as an init is a root, in program order (matmul, conv,
 * pooling, reductions, softmax, or else an elementwise generic; any other
 * tensor op gets a region of its own). Guarantees: a root absorbs its
 * elementwise consumer chain while the value flowing along it has a
 * single use, and the consumer is an all-parallel linalg.generic that
 * reads it through an identity map and iterates exactly the root result's
 * shape (and, when that shape has run-time dims, has the value's type, so
 * it computes in place, or reads a matmul's or a convolution's sums
 * computed in a tensor.empty: a kernel-local buffer confined to the
 * tile), then a
 * static constant tensor.pad of the chain's value when that is its single
 * use (fusable_pad); the region returns the values used outside it and
 * carries
 * `workload` = the sizes of the root's parallel loops (KILN_DYNAMIC
 * entries filled by the region's index operands, host values of operand
 * dims bound to those loops). A root reducing its innermost loops into
 * one value per row also takes the row chain after it:
 * generics over the same rows that reduce the same loops, map the
 * per-row values, or run all-parallel over rows x the reduced loops
 * (the last one taken; it may write them permuted), reading per-row values of the group only at
 * their own row (unit-dim expands of them are folded into the reading
 * map; expands other ops still read move after the region): LayerNorm's
 * mean, variance and normalization in one dispatch whose workgroups
 * take whole rows (cg_dist.rows). The reduced loops must be static; the
 * rows may have run-time sizes (a dynamic batch or sequence), their
 * per-row values then kernel-local buffers of a row tile's size
 * (bufferize-kernels, tile-and-distribute). Inits
 * (tensor.empty, fills) stay outside: outline-dispatches clones them.
 * A static extract_slice (not of a constant) whose single reader is a
 * linalg input, a concat piece or a pad/insert_slice source joins that
 * reader's region, in front: the kernel reads the source's window in
 * place (a subview of its binding, bufferize-kernels), so a channel
 * split (ShuffleNet) or a pad's interior costs no copy dispatch.
 * Host scalar ops that outline-dispatches cannot recompute in a kernel
 * (fl_clonable: scf.if / scf.for yielding scalars, oversized expressions)
 * are roots too (workload 1). A scalar a region yields leaves it as a
 * rank-0 tensor (tensor.from_elements inside, index as i64) and is read
 * back on the host with tensor.extract, which kernels then clone: no
 * scalar ever crosses a dispatch boundary. */
#include "fl_internal.h"

#include <string.h>

/* A fill whose every use writes it as an init: cloned into kernels. */
static bool init_only_fill(kiln_op *op) {
  if (op->kind != KILN_OP_LINALG_FILL || op->num_results != 1) return false;
  for (kiln_use *u = op->results[0].uses; u; u = u->next)
    if (!kiln_op_has_flag(u->owner, KILN_OPF_LINALG) ||
        u->index < kiln_linalg_num_inputs(u->owner))
      return false;
  return true;
}

static bool is_root(kiln_op *op) {
  if (op->num_results == 0 || op->kind == KILN_OP_FUNC_RETURN) return false;
  switch (op->kind) {
  case KILN_OP_ARITH_CONSTANT:
  case KILN_OP_TENSOR_EMPTY:
  case KILN_OP_FLOW_TENSOR_RESHAPE:
  case KILN_OP_FLOW_DISPATCH:
  case KILN_OP_FLOW_DISPATCH_REGION:
  case KILN_OP_FLOW_TEXT: /* text runs on the host (plan-memory) */
  case KILN_OP_FUNC_CALL: return false; /* calls stay on the host (plan-memory rejects them) */
  default: break;
  }
  if (init_only_fill(op) || fl_host_loop(op) || flow_is_list_op(op)) return false; /* host ops */
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind == KILN_TYPE_TENSOR) return true;
  /* Scalar ops: kernels recompute what they can clone; the rest (scf.if,
   * scf.for yielding scalars, expressions over the clone budget) run once
   * in a dispatch of their own. Visited in program order, so the scalars
   * they read are already clonable extracts of earlier dispatches. */
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!fl_clonable(&op->results[i]) && !fl_host_index(&op->results[i])) return true;
  return false;
}

/* Is op a matmul or a channels-last convolution computing in a
 * tensor.empty (through a fill of it: zeroed sums), which kernels clone?
 * Their launch rules tile a run-time batch or rows (by 1, by 64), so
 * tile-and-distribute can confine a buffer of run-time size to the tile;
 * a root that may run as one untiled workgroup (a pooling generic over a
 * run-time batch) could not. */
static bool computes_in_empty(kiln_op *op) {
  if (op->kind != KILN_OP_LINALG_MATMUL && op->kind != KILN_OP_LINALG_CONV_2D_NHWC_HWCF &&
      op->kind != KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC)
    return false;
  if (op->num_results != 1 || op->num_operands != 3) return false;
  kiln_value *init = kiln_op_operand(op, op->num_operands - 1);
  if (init->type != op->results[0].type || !init->def) return false;
  kiln_op *d = init->def;
  if (d->kind == KILN_OP_LINALG_FILL && d->num_operands == 2) d = kiln_op_operand(d, 1)->def;
  return d && d->kind == KILN_OP_TENSOR_EMPTY;
}

/* The single consumer of op's result that may join op's region, or NULL. */
static kiln_op *fusable_consumer(kiln_op *op, const kiln_type *shape) {
  if (op->num_results != 1 || !kiln_value_has_one_use(&op->results[0])) return NULL;
  kiln_use *u = op->results[0].uses;
  kiln_op *c = u->owner;
  if (c->kind != KILN_OP_LINALG_GENERIC || c->parent != op->parent || !fl_all_parallel(c))
    return NULL;
  uint32_t cin = kiln_linalg_num_inputs(c);
  if (u->index >= cin || c->num_results != 1) return NULL;
  /* a value of run-time size that the consumer cannot overwrite in place
   * (another type: bufferize-kernels' rule) needs a kernel-local buffer,
   * which bufferize-kernels sizes by the tensor.empty the root computes
   * in and tile-and-distribute confines to a workgroup's tile (an int8
   * matmul's i32 sums over a run-time batch, requantized to bytes:
   * computes_in_empty); else the consumer gets a dispatch of its own */
  if (kiln_type_num_dynamic_dims(op->results[0].type) && c->results[0].type != op->results[0].type &&
      !computes_in_empty(op))
    return NULL;
  kiln_context *ctx = kiln_op_context(c);
  const kiln_affine_map **maps = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *maps);
  int64_t bounds[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, bounds, maps, NULL);
  if (loops != (int)shape->rank || !kiln_affine_map_is_identity(maps[u->index])) return NULL;
  for (uint32_t i = cin; i < c->num_operands; i++)
    if (!kiln_affine_map_is_identity(maps[i])) return NULL;
  for (int i = 0; i < loops; i++)
    if (bounds[i] != (shape->shape[i] == KILN_DYNAMIC ? -1 : shape->shape[i])) return NULL;
  return c;
}

/* The root's parallel loop sizes; a dynamic one is KILN_DYNAMIC and its
 * host value (an operand dim bound to the loop, outputs first) goes to
 * dyn, built before the root. */
static const kiln_attr *workload_of(kiln_context *ctx, kiln_op *root, kiln_value **dyn, uint32_t *ndyn) {
  int64_t bounds[KILN_MAX_LOOPS], w[KILN_MAX_LOOPS];
  bool red[KILN_MAX_LOOPS];
  uint32_t n = 0;
  *ndyn = 0;
  kiln_builder b = kiln_builder_before(root);
  b.loc = root->loc;
  const kiln_affine_map **maps = kiln_alloc(ctx, (root->num_operands + 1) * sizeof *maps);
  int loops = kiln_op_has_flag(root, KILN_OPF_LINALG) ? fl_iteration(root, bounds, maps, red) : -1;
  if (loops >= 0) {
    for (int l = 0; l < loops; l++) {
      if (red[l]) continue;
      kiln_value *v = NULL;
      for (uint32_t k = 0; bounds[l] < 0 && !v && k < root->num_operands; k++) {
        uint32_t i = (k + kiln_linalg_num_inputs(root)) % root->num_operands; /* outputs first */
        kiln_value *x = kiln_op_operand(root, i);
        if (x->type->kind != KILN_TYPE_TENSOR) continue;
        for (uint32_t d = 0; d < maps[i]->num_results && d < x->type->rank; d++)
          if (maps[i]->results[d]->kind == KILN_AFFINE_DIM && maps[i]->results[d]->value == (int64_t)l) {
            v = fl_build_dim(&b, x, d);
            break;
          }
      }
      if (v) dyn[(*ndyn)++] = v, w[n++] = KILN_DYNAMIC;
      else w[n++] = bounds[l] < 0 ? 1 : bounds[l];
    }
  } else {
    const kiln_type *t = root->results[0].type;
    for (uint32_t i = 0; kiln_type_is_ranked(t) && i < t->rank && i < KILN_MAX_LOOPS; i++) {
      if (t->kind != KILN_TYPE_TENSOR) { /* not a dispatch: outline-dispatches reports it */
        w[n++] = t->shape[i] == KILN_DYNAMIC ? 1 : t->shape[i];
        continue;
      }
      if (t->shape[i] != KILN_DYNAMIC) {
        w[n++] = t->shape[i];
        continue;
      }
      dyn[(*ndyn)++] = fl_build_dim(&b, kiln_op_result(root, 0), i);
      w[n++] = KILN_DYNAMIC;
    }
  }
  if (n == 0) w[n++] = 1;
  return kiln_attr_dense_i64_array(ctx, n, w);
}

/* A tensor.pad that may join root's region after op (the last of its
 * consumer chain), or NULL: op's value has it as its single use, and it
 * pads by static amounts with a constant (a run-time dim only where
 * nothing is padded: a batch). The kernel
 * then computes op's value straight into the padded result's interior
 * and fills only the border (bufferize-kernels), so the pad costs no
 * dispatch and no copy of its interior. Roots: convolutions, pools and
 * generics (the ops whose CPU paths write a strided window), and
 * concatenations (copies into windows; place-concats then has the
 * pieces' producers write the interior, the pad's dispatch only the
 * border). */
static kiln_op *fusable_pad(kiln_op *root, kiln_op *op) {
  switch (root->kind) {
  case KILN_OP_TENSOR_CONCAT:
  case KILN_OP_LINALG_GENERIC:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_MAX:
  case KILN_OP_LINALG_POOLING_NHWC_SUM: break;
  default: return NULL;
  }
  if (op->num_results != 1 || !kiln_value_has_one_use(&op->results[0])) return NULL;
  kiln_use *u = op->results[0].uses;
  kiln_op *p = u->owner;
  if (p->kind != KILN_OP_TENSOR_PAD || p->parent != op->parent || u->index != 0 || p->num_operands != 1)
    return NULL;
  /* The innermost dim (NHWC's channels) stays unpadded: the kernel
   * computes whole rows of channels into the window. Any channel count
   * joins: the launch rule splits a static pad's window by rows, each
   * tile filling the border its rows cover. */
  const kiln_type *rt = p->results[0].type;
  const kiln_attr *lo = kiln_op_get_attr(p, "static_low"), *hi = kiln_op_get_attr(p, "static_high");
  uint32_t last = rt->rank - 1;
  if (rt->rank == 0 || !lo || !hi || lo->kind != KILN_ATTR_DENSE_ARRAY || hi->kind != KILN_ATTR_DENSE_ARRAY ||
      lo->count != rt->rank || hi->count != rt->rank || ((const int64_t *)lo->data)[last] != 0 ||
      ((const int64_t *)hi->data)[last] != 0)
    return NULL;
  /* a run-time dim only where nothing is padded (a batch) */
  const kiln_type *st = op->results[0].type;
  for (uint32_t d = 0; d < rt->rank; d++)
    if ((rt->shape[d] == KILN_DYNAMIC || st->shape[d] == KILN_DYNAMIC) &&
        (((const int64_t *)lo->data)[d] != 0 || ((const int64_t *)hi->data)[d] != 0))
      return NULL;
  kiln_block *b = p->regions[0].first;
  kiln_op *y = b ? kiln_block_terminator(b) : NULL;
  kiln_value *v = y && y->num_operands == 1 ? kiln_op_operand(y, 0) : NULL;
  return v && v->def && v->def->kind == KILN_OP_ARITH_CONSTANT ? p : NULL;
}

/* A static tensor.extract_slice that joins the region of its single
 * reader instead of copying in a dispatch of its own: the kernel reads
 * the window of the source's binding in place (bufferize-kernels makes a
 * slice of a loaded binding a subview). Readers: linalg inputs, concat
 * pieces, pad and insert_slice sources, all of which are in some group.
 * Not slices of constants (folded at compile time where they matter). */
static bool absorbable_slice(const kiln_op *s) {
  if (s->kind != KILN_OP_TENSOR_EXTRACT_SLICE || s->num_operands < 1 || s->num_results != 1 ||
      !kiln_value_has_one_use(&s->results[0]))
    return false;
  const kiln_value *src = kiln_op_operand(s, 0);
  const kiln_type *st = src->type, *rt = s->results[0].type;
  if (st->kind != KILN_TYPE_TENSOR || rt->kind != KILN_TYPE_TENSOR || !kiln_type_is_ranked(st) ||
      !kiln_type_is_ranked(rt) || (src->def && src->def->kind == KILN_OP_ARITH_CONSTANT))
    return false;
  /* static offsets and strides; a run-time size only where the source
   * dim is run-time too (share-pads' interior of a pad over a run-time
   * batch): its size operand joins the dispatch's operands */
  const kiln_attr *off = kiln_op_get_attr(s, "static_offsets"), *sz = kiln_op_get_attr(s, "static_sizes"),
                  *str = kiln_op_get_attr(s, "static_strides");
  if (fl_is_static_tensor(st) && fl_is_static_tensor(rt)) {
    if (s->num_operands != 1) return false;
  } else {
    /* same rank: a rank-reducing slice stays static-only */
    if (st->rank != rt->rank || !off || !sz || !str || off->kind != KILN_ATTR_DENSE_ARRAY ||
        sz->kind != KILN_ATTR_DENSE_ARRAY || str->kind != KILN_ATTR_DENSE_ARRAY || off->count != rt->rank ||
        sz->count != rt->rank || str->count != rt->rank)
      return false;
    uint32_t nsize = 0;
    for (uint32_t d = 0; d < rt->rank; d++) {
      if (((const int64_t *)off->data)[d] == KILN_DYNAMIC || ((const int64_t *)str->data)[d] == KILN_DYNAMIC ||
          (rt->shape[d] == KILN_DYNAMIC) != (st->shape[d] == KILN_DYNAMIC))
        return false;
      nsize += ((const int64_t *)sz->data)[d] == KILN_DYNAMIC;
    }
    if (s->num_operands != 1 + nsize) return false;
  }
  const kiln_use *u = s->results[0].uses;
  const kiln_op *c = u->owner;
  if (c->parent != s->parent) return false;
  if (kiln_op_has_flag(c, KILN_OPF_LINALG)) return u->index < kiln_linalg_num_inputs(c) && c->num_results > 0;
  return c->kind == KILN_OP_TENSOR_CONCAT ||
         ((c->kind == KILN_OP_TENSOR_PAD || c->kind == KILN_OP_TENSOR_INSERT_SLICE) && u->index == 0);
}

static bool in_group(kiln_op *const *g, uint32_t n, const kiln_op *op) {
  for (uint32_t i = 0; i < n; i++)
    if (g[i] == op) return true;
  return false;
}


/* ---- Row chains: a reduction over the innermost loops (a row sum) and
 * the ops after it that iterate the same rows and read its per-row
 * results (LayerNorm's mean -> centered variance -> normalize, RMSNorm's
 * mean square -> scale) form one dispatch: a workgroup takes a block of
 * whole rows, so every per-row value it reads was computed by itself. */

/* Is m the projection (d0..dn-1) -> (d0..dp-1)? */
static bool is_row_projection(const kiln_affine_map *m, int n, int p) {
  if ((int)m->num_dims != n || (int)m->num_results != p || m->num_symbols) return false;
  for (int i = 0; i < p; i++)
    if (m->results[i]->kind != KILN_AFFINE_DIM || m->results[i]->value != i) return false;
  return true;
}

/* Is e always 0 when every loop of bound 1 is at index 0? */
static bool zero_index(const kiln_affine_expr *e, const int64_t *bounds) {
  switch (e->kind) {
  case KILN_AFFINE_CONST: return e->value == 0;
  case KILN_AFFINE_DIM: return bounds[e->value] == 1;
  case KILN_AFFINE_ADD: return zero_index(e->lhs, bounds) && zero_index(e->rhs, bounds);
  case KILN_AFFINE_MUL: return zero_index(e->lhs, bounds) || zero_index(e->rhs, bounds);
  default: return false;
  }
}

/* Is e loop r plus terms that are 0 (sink-reshapes' collapse of a
 * [rows, 1] space reads a per-row value at d0 + d1)? */
static bool row_index(const kiln_affine_expr *e, int r, const int64_t *bounds) {
  if (e->kind == KILN_AFFINE_DIM) return e->value == r;
  if (e->kind != KILN_AFFINE_ADD) return false;
  return (row_index(e->lhs, r, bounds) && zero_index(e->rhs, bounds)) ||
         (zero_index(e->lhs, bounds) && row_index(e->rhs, r, bounds));
}

/* Does m read (d0..dp-1), up to terms in loops of one iteration? */
static bool reads_row(const kiln_affine_map *m, int n, int p, const int64_t *bounds) {
  if ((int)m->num_dims != n || (int)m->num_results != p || m->num_symbols) return false;
  for (int i = 0; i < p; i++)
    if (!row_index(m->results[i], i, bounds)) return false;
  return true;
}

/* The projection (d0..dn-1) -> (d0..dp-1). */
static const kiln_affine_map *row_projection(kiln_context *ctx, int n, int p) {
  const kiln_affine_expr *res[KILN_MAX_LOOPS];
  for (int i = 0; i < p; i++) res[i] = kiln_affine_dim(ctx, (unsigned)i);
  return kiln_affine_map_get(ctx, (uint32_t)n, 0, (uint32_t)p, res);
}

typedef struct row_space {
  int n, p;                      /* loops; leading parallel loops (rows) */
  int64_t bounds[KILN_MAX_LOOPS];
  const kiln_type *row_type;     /* the root's result: one value per row */
} row_space;

/* A linalg.generic whose leading p loops are parallel and whose
 * trailing n - p >= 1 loops are static reductions writing one value per
 * row. Rows may have run-time sizes: the kernel's per-row buffers then
 * take a workgroup's tile of rows (tile-and-distribute), a static size. */
static bool row_root(kiln_context *ctx, kiln_op *op, row_space *rs) {
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_results != 1 ||
      kiln_linalg_num_inputs(op) + 1 != op->num_operands ||
      op->results[0].type->kind != KILN_TYPE_TENSOR)
    return false;
  const kiln_affine_map **maps = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int n = fl_iteration(op, rs->bounds, maps, red);
  if (n < 2) return false;
  int p = 0;
  while (p < n && !red[p]) p++;
  if (p == 0 || p == n) return false;
  for (int i = p; i < n; i++)
    if (!red[i]) return false;
  for (int i = p; i < n; i++)
    if (rs->bounds[i] < 0) return false;
  if (!is_row_projection(maps[op->num_operands - 1], n, p)) return false;
  rs->n = n, rs->p = p, rs->row_type = op->results[0].type;
  return true;
}

/* v's definition, when it is an op of the group. */
static bool from_group(kiln_op *const *g, uint32_t n, const kiln_value *v) {
  return v->def && in_group(g, n, v->def);
}

/* The host value of run-time dim d of v, a linalg result or a
 * tensor.empty, from the tensor.empty its init chain starts at; NULL
 * when there is none (builds nothing, unlike fl_dim_value). */
static kiln_value *empty_dim(kiln_value *v, uint32_t d) {
  kiln_op *op = v->def;
  while (op && kiln_op_has_flag(op, KILN_OPF_LINALG) && op->num_results == 1 && op->num_operands &&
         kiln_op_operand(op, op->num_operands - 1)->type == v->type)
    op = kiln_op_operand(op, op->num_operands - 1)->def;
  if (!op || op->kind != KILN_OP_TENSOR_EMPTY || op->results[0].type != v->type) return NULL;
  uint32_t k = 0;
  for (uint32_t i = 0; i < d; i++) k += v->type->shape[i] == KILN_DYNAMIC;
  return k < op->num_operands ? kiln_op_operand(op, k) : NULL;
}

/* A flow.tensor.reshape of a per-row group value that only appends unit
 * dims (ReduceMean's keepdims): its source, else NULL. A run-time dim
 * must be the source's own (the same host value). */
static kiln_value *unit_expand_source(kiln_op *const *g, uint32_t ng, const kiln_value *v,
                                      const row_space *rs) {
  kiln_op *r = v->def;
  if (!r || r->kind != KILN_OP_FLOW_TENSOR_RESHAPE) return NULL;
  kiln_value *src = kiln_op_operand(r, 0);
  if (!from_group(g, ng, src) || src->type != rs->row_type || v->type->rank < src->type->rank ||
      r->num_operands != 1 + kiln_type_num_dynamic_dims(v->type))
    return NULL;
  uint32_t k = 1;
  for (uint32_t i = 0; i < v->type->rank; i++) {
    if (i >= src->type->rank) {
      if (v->type->shape[i] != 1) return NULL;
    } else if (v->type->shape[i] != src->type->shape[i]) {
      return NULL;
    } else if (v->type->shape[i] == KILN_DYNAMIC) {
      kiln_value *a = kiln_op_operand(r, k++), *b = empty_dim(src, i);
      if (!b || !fl_same_dim(a, b)) return NULL;
    }
  }
  return src;
}

/* The loop order in which op, all parallel over rows x columns, reads
 * the group's per-row values at (d0..dp-1): perm[new loop] = old loop,
 * the rows first (as its first read of a group value, directly or
 * through a unit-dim expand, indexes them), the other loops after them in
 * their order. False when that read is not by distinct loops. */
static bool row_order(kiln_op *const *g, uint32_t ng, kiln_op *op, const kiln_affine_map **maps,
                      const row_space *rs, int n, int *perm) {
  for (uint32_t i = 0; i + 1 < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (!from_group(g, ng, v) && !unit_expand_source(g, ng, v, rs)) continue;
    const kiln_affine_map *m = maps[i];
    if ((int)m->num_results < rs->p || (int)m->num_dims != n) return false;
    bool used[KILN_MAX_LOOPS] = {0};
    for (int r = 0; r < rs->p; r++) {
      const kiln_affine_expr *e = m->results[r];
      if (e->kind != KILN_AFFINE_DIM || used[e->value]) return false;
      used[e->value] = true;
      perm[r] = (int)e->value;
    }
    int k = rs->p;
    for (int l = 0; l < n; l++)
      if (!used[l]) perm[k++] = l;
    return true;
  }
  return false;
}

static bool has_index(const kiln_op *op) {
  const kiln_block *b = op->num_regions ? op->regions[0].first : NULL;
  for (const kiln_op *o = b ? b->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_LINALG_INDEX) return true;
  return false;
}

/* Can op join the row chain g? It iterates the root's rows (same leading
 * parallel bounds) and either reduces the same trailing loops into one
 * value per row, maps the per-row values, or is all parallel over the
 * whole space; group values
 * it reads are per-row values read through the row projection (directly
 * or through a unit-dim expand, which *rewrite says to fold). */
static bool row_member(kiln_context *ctx, kiln_op *const *g, uint32_t ng, kiln_op *op,
                       const row_space *rs, bool *full, bool *rewrite) {
  if (op->kind != KILN_OP_LINALG_GENERIC || op->num_results != 1 ||
      kiln_linalg_num_inputs(op) + 1 != op->num_operands ||
      op->results[0].type->kind != KILN_TYPE_TENSOR)
    return false;
  const kiln_affine_map **maps = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int n = fl_iteration(op, bounds, maps, red);
  /* n == p: an elementwise op on the per-row values */
  if (n != rs->n && n != rs->p) return false;
  /* An all-parallel op iterating rows x columns in another loop order (a
   * transpose propagate-transposes moved into LayerNorm's normalization:
   * it iterates its output's order) is interchanged, legal for parallel
   * loops: its rows become its leading loops. */
  int perm[KILN_MAX_LOOPS];
  bool permuted = false;
  if (n == rs->n && fl_all_parallel(op) && row_order(g, ng, op, maps, rs, n, perm))
    for (int i = 0; i < n; i++) permuted |= perm[i] != i;
  if (permuted) {
    if (has_index(op)) return false;
    const kiln_affine_expr *sub[KILN_MAX_LOOPS];
    int64_t nb[KILN_MAX_LOOPS];
    for (int i = 0; i < n; i++) sub[perm[i]] = kiln_affine_dim(ctx, (unsigned)i), nb[i] = bounds[perm[i]];
    const kiln_affine_map *inner = kiln_affine_map_get(ctx, (uint32_t)n, 0, (uint32_t)n, sub);
    for (uint32_t i = 0; i < op->num_operands; i++) maps[i] = fl_affine_compose(ctx, maps[i], inner);
    memcpy(bounds, nb, (size_t)n * sizeof *bounds);
  }
  for (int i = 0; i < n; i++)
    if (bounds[i] != rs->bounds[i] || red[i] != (i >= rs->p && red[rs->p])) return false;
  uint32_t out = op->num_operands - 1;
  *full = n == rs->n && !red[rs->p];
  /* the last member may write its rows x columns permuted (a transpose
   * propagate-transposes moved into it): workgroups still own whole rows */
  if (*full ? !kiln_affine_map_is_projected_permutation(maps[out]) || (int)maps[out]->num_results != n
            : !is_row_projection(maps[out], n, rs->p) || op->results[0].type != rs->row_type)
    return false;
  if (from_group(g, ng, kiln_op_operand(op, out))) return false;
  bool reads = false;
  for (uint32_t i = 0; i < out; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    const kiln_affine_map *m = maps[i];
    rewrite[i] = false;
    if (from_group(g, ng, v)) {
      if (v->type != rs->row_type || !reads_row(m, n, rs->p, bounds)) return false;
      reads = true;
      continue;
    }
    if (!unit_expand_source(g, ng, v, rs)) continue;
    /* the expand's appended unit dims must be read at index 0 */
    if ((int)m->num_results != (int)v->type->rank || m->num_symbols) return false;
    /* ... or through a loop of one iteration */
    for (uint32_t r = 0; r < m->num_results; r++) {
      const kiln_affine_expr *e = m->results[r];
      bool ok = (int)r < rs->p ? e->kind == KILN_AFFINE_DIM && e->value == r
                               : (e->kind == KILN_AFFINE_CONST && e->value == 0) ||
                                     (e->kind == KILN_AFFINE_DIM && bounds[e->value] == 1);
      if (!ok) return false;
    }
    rewrite[i] = reads = true;
  }
  if (reads && permuted) {
    const kiln_attr **am = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *am);
    for (uint32_t i = 0; i < op->num_operands; i++) am[i] = kiln_attr_affine_map(ctx, maps[i]);
    kiln_op_set_attr(op, "indexing_maps", kiln_attr_array(ctx, op->num_operands, am));
  }
  return reads;
}

/* Reads of unit-dim expands of group values read the value itself;
 * reads of group values use the plain row projection. */
static void fold_unit_expands(kiln_context *ctx, kiln_op *const *g, uint32_t ng, kiln_op *op,
                              const row_space *rs, const bool *rewrite) {
  const kiln_affine_map **maps = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *maps);
  bool red[KILN_MAX_LOOPS];
  fl_iteration(op, NULL, maps, red);
  const kiln_attr **am = kiln_alloc(ctx, (op->num_operands + 1) * sizeof *am);
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (i < op->num_operands - 1 && rewrite[i]) {
      kiln_op_set_operand(op, i, unit_expand_source(g, ng, kiln_op_operand(op, i), rs));
      maps[i] = kiln_affine_map_get(ctx, maps[i]->num_dims, 0, (uint32_t)rs->p, maps[i]->results);
    } else if (i < op->num_operands - 1 && from_group(g, ng, kiln_op_operand(op, i))) {
      maps[i] = row_projection(ctx, (int)maps[i]->num_dims, rs->p);
    }
    am[i] = kiln_attr_affine_map(ctx, maps[i]);
  }
  kiln_op_set_attr(op, "indexing_maps", kiln_attr_array(ctx, op->num_operands, am));
}

/* Does op read a value defined by the group or by one of the ops in
 * moved[0..nm)? */
static bool depends(kiln_op *const *g, uint32_t ng, kiln_op *const *moved, uint32_t nm,
                    const kiln_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_value *v = kiln_op_operand(op, i);
    if (!v->def) continue;
    if (in_group(g, ng, v->def) || in_group(moved, nm, v->def)) return true;
  }
  return false;
}

/* Extends the group of a row root with the row chain after it, up to
 * and including the first all-parallel member. Ops in between that read
 * group values without joining it must be unit-dim expands (moved after
 * the region into *moved); any other reader ends the chain. */
static void absorb_row_chain(kiln_context *ctx, kiln_op **group, uint32_t *n, uint32_t cap,
                             kiln_op **moved, uint32_t *nmoved) {
  row_space rs;
  if (!row_root(ctx, group[0], &rs)) return;
  kiln_op *after = group[*n - 1];
  uint32_t ng = *n, nm = 0, last_ng = *n, last_nm = 0;
  bool *rewrite = kiln_alloc(ctx, 64 * sizeof *rewrite);
  for (kiln_op *op = after->next; op && ng < cap && nm < cap; op = op->next) {
    if (!depends(group, ng, moved, nm, op)) continue;
    bool full;
    if (op->num_operands <= 64 && row_member(ctx, group, ng, op, &rs, &full, rewrite)) {
      fold_unit_expands(ctx, group, ng, op, &rs, rewrite);
      group[ng++] = op;
      last_ng = ng, last_nm = nm;
      if (full) break;
      continue;
    }
    if (op->kind == KILN_OP_FLOW_TENSOR_RESHAPE && unit_expand_source(group, ng, op->results, &rs)) {
      moved[nm++] = op;
      continue;
    }
    break;
  }
  *n = last_ng;
  /* expands after the last member stay where they are */
  *nmoved = last_nm;
}

/* The buffers a kernel of group + c would bind, at most: the distinct
 * tensors its ops read from outside (inits excepted: outline-dispatches
 * clones them) and the results read outside, counting c's as the one
 * that leaves. */
static uint32_t bindings_with(kiln_op *const *group, uint32_t n, kiln_op *c) {
  kiln_value *read[FL_MAX_BINDINGS];
  uint32_t nread = 0, count = 1;
  for (uint32_t i = 0; i <= n; i++) {
    kiln_op *o = i < n ? group[i] : c;
    for (uint32_t k = 0; k < o->num_operands; k++) {
      kiln_value *v = kiln_op_operand(o, k);
      kiln_op *d = v->def;
      if (v->type->kind != KILN_TYPE_TENSOR ||
          (d && (in_group(group, n, d) || d->kind == KILN_OP_TENSOR_EMPTY || init_only_fill(d))))
        continue;
      uint32_t j = 0;
      while (j < nread && read[j] != v) j++;
      if (j < nread) continue;
      if (nread == FL_MAX_BINDINGS) return FL_MAX_BINDINGS + 1; /* over budget already */
      read[nread++] = v;
      count++;
    }
    if (i < n)
      for (uint32_t r = 0; r < o->num_results; r++)
        for (kiln_use *u = o->results[r].uses; u; u = u->next)
          if (u->owner != c && !in_group(group, n, u->owner)) {
            count++;
            break;
          }
  }
  return count;
}

static void form(kiln_context *ctx, kiln_op *root) {
  kiln_op *group[64];
  uint32_t n = 0;
  group[n++] = root;
  if (root->num_results == 1 && root->results[0].type->kind == KILN_TYPE_TENSOR) {
    const kiln_type *shape = root->results[0].type;
    kiln_op *c;
    while (n < 64 && (c = fusable_consumer(group[n - 1], shape)) && bindings_with(group, n, c) <= FL_MAX_BINDINGS - 1)
      group[n++] = c;
    if (n < 64 && (c = fusable_pad(root, group[n - 1]))) group[n++] = c;
  }
  kiln_op *moved[64];
  uint32_t nmoved = 0;
  /* a fused pad ends the group: its result is not a row of the root's */
  if (group[n - 1]->kind != KILN_OP_TENSOR_PAD) absorb_row_chain(ctx, group, &n, 64, moved, &nmoved);
  /* expands whose readers all joined the chain read nothing now */
  uint32_t keep = 0;
  for (uint32_t i = 0; i < nmoved; i++)
    if (moved[i]->results[0].uses) moved[keep++] = moved[i];
    else kiln_op_erase(moved[i]);
  nmoved = keep;
  /* slices the group reads join it in front (absorbable_slice) */
  kiln_op *slices[64];
  uint32_t ns = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t k = 0; k < group[i]->num_operands; k++) {
      kiln_op *d = kiln_op_operand(group[i], k)->def;
      if (d && absorbable_slice(d) && ns + n < 64 && !in_group(slices, ns, d)) slices[ns++] = d;
    }
  if (ns) {
    for (uint32_t i = n; i-- > 0;) group[i + ns] = group[i];
    for (uint32_t i = 0; i < ns; i++) group[i] = slices[i];
    n += ns;
  }
  /* values used outside the group */
  uint32_t total = 0;
  for (uint32_t i = 0; i < n; i++) total += group[i]->num_results;
  kiln_value **esc = kiln_alloc(ctx, (total + 1) * sizeof *esc);
  const kiln_type **types = kiln_alloc(ctx, (total + 1) * sizeof *types);
  uint32_t ne = 0;
  for (uint32_t i = 0; i < n; i++)
    for (uint32_t r = 0; r < group[i]->num_results; r++) {
      kiln_value *v = kiln_op_result(group[i], r);
      for (kiln_use *u = v->uses; u; u = u->next)
        if (!in_group(group, n, u->owner)) {
          /* a scalar leaves as a rank-0 tensor (see below) */
          types[ne] = fl_is_scalar(v->type) ? fl_scalar_tensor_type(ctx, v->type) : v->type;
          esc[ne++] = v;
          break;
        }
    }
  kiln_op *last = group[n - 1];
  kiln_value *wdyn[KILN_MAX_LOOPS];
  uint32_t nwdyn;
  const kiln_attr *attrs = kiln_dict_set(ctx, kiln_attr_dict(ctx, 0, NULL), "workload",
                                         workload_of(ctx, root, wdyn, &nwdyn));
  kiln_op *region = kiln_op_create(ctx, KILN_OP_FLOW_DISPATCH_REGION, root->loc, nwdyn, wdyn, ne,
                                   types, attrs, 1);
  kiln_block_insert_before(last, region);
  kiln_block *body = kiln_op_entry_block(ctx, region, 0);
  for (uint32_t i = 0; i < n; i++) {
    kiln_op_remove(group[i]);
    kiln_block_append_op(body, group[i]);
  }
  /* A scalar leaving the region travels as a rank-0 tensor (a kernel
   * writes only bindings); the host reads it back with tensor.extract,
   * which kernels using it clone. */
  kiln_value **ret_vals = kiln_alloc(ctx, (ne + 1) * sizeof *ret_vals);
  kiln_builder in = kiln_builder_at_end(ctx, body);
  in.loc = root->loc;
  for (uint32_t e = 0; e < ne; e++)
    ret_vals[e] = fl_is_scalar(esc[e]->type) ? fl_build_scalar_to_tensor(&in, esc[e]) : esc[e];
  kiln_op *ret = kiln_op_create(ctx, KILN_OP_FLOW_RETURN, root->loc, ne, ret_vals, 0, NULL, NULL, 0);
  kiln_block_append_op(body, ret);
  /* expands of the chain's values that other ops still read follow the
   * region that now defines their sources */
  for (uint32_t i = nmoved; i-- > 0;) {
    kiln_op_remove(moved[i]);
    kiln_block_insert_after(region, moved[i]);
  }
  kiln_builder out = kiln_builder_after(region);
  out.loc = root->loc;
  for (uint32_t e = 0; e < ne; e++) {
    kiln_value *v = esc[e], *r = kiln_op_result(region, e);
    if (ret_vals[e] != v) r = fl_build_tensor_to_scalar(&out, r, v->type);
    for (kiln_use *u = v->uses, *next; u; u = next) {
      next = u->next;
      if (u->owner != ret && !kiln_op_is_inside(u->owner, region))
        kiln_op_set_operand(u->owner, u->index, r);
    }
  }
}

static void form_in(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  /* Visit the ops in their original order from a snapshot: a region
   * sits where its group's last op was, so ops between a root and its
   * last consumer (the other reduction a rank-0 division reads) come
   * before it and would be skipped by resuming after the region. */
  uint32_t n = 0;
  for (kiln_op *op = body->first; op; op = op->next) n++;
  kiln_op **ops = kiln_alloc(ctx, (n + 1) * sizeof *ops);
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next) ops[n++] = op;
  for (uint32_t i = 0; i < n; i++)
    if (ops[i]->parent == body && is_root(ops[i]) && !absorbable_slice(ops[i])) form(ctx, ops[i]);
  /* a slice its reader's group had no room for copies in its own */
  for (uint32_t i = 0; i < n; i++)
    if (ops[i]->parent == body && ops[i]->kind == KILN_OP_TENSOR_EXTRACT_SLICE && is_root(ops[i])) form(ctx, ops[i]);
}

kiln_error *kiln_flow_pass_form_dispatch_regions(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "form-dispatch-regions", form_in, NULL);
}
