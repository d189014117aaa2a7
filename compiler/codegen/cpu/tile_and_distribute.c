/* tile-and-distribute: each workgroup computes one tile of the root op's
 * output, chosen by hal.interface.workgroup.id (x = innermost distributed
 * dim, y = next, z = all outer ones, delinearized). Every structured op of
 * the kernel (the root and the ops fused with it, which iterate the same
 * output space) is restricted to that tile by memref.subview of each
 * operand: an operand dim indexed by sum(c_l * d_l) + k gets offset
 * sum(c_l * off_l) + k and size sum(c_l * (size_l - 1)) + 1, which covers
 * windows of convolutions and pooling. linalg.index of a tiled loop is
 * shifted by the tile offset. The edge tile's size is min(tile, bound -
 * offset); specialize-full-tiles separates it later. A kernel-local
 * buffer of run-time size (memref.alloca with size operands) becomes one
 * of the largest tile's static size, its tile at offset 0 (an error where
 * some access is not the tile's subview).
 *
 * Takes kernels with kiln.launch (select-launch-config). Guarantees: no
 * loops yet; same results as before for every workgroup id within
 * workgroup_count; a kernel with all-zero tile sizes is left unchanged. */
#include "cpu_internal.h"

#include <string.h>

static bool touches(const int64_t *coef, int loops, const bool *tiled) {
  for (int l = 0; l < loops; l++)
    if (coef[l] && tiled[l]) return true;
  return false;
}

typedef struct tile_box {
  kiln_value *off[KILN_MAX_LOOPS], *size[KILN_MAX_LOOPS]; /* per output dim */
} tile_box;

/* out: the root's output before tiling (its dims size dynamic tiles). */
static void build_box(kiln_builder *b, const cg_dist *d, kiln_value *out, tile_box *box) {
  kiln_context *c = b->ctx;
  kiln_value *id[3] = {NULL, NULL, NULL};
  const kiln_type *it = kiln_type_index(c);
  for (int s = 0; s < 3; s++) {
    if (d->wg_count[s] == 1) continue;
    kiln_named_attr na = {"dim", kiln_attr_int(c, kiln_type_int(c, 32), s)};
    id[s] = kiln_op_result(kiln_build(b, KILN_OP_HAL_INTERFACE_WORKGROUP_ID, 0, NULL, 1, &it,
                                      kiln_attr_dict(c, 1, &na)), 0);
  }
  kiln_value *bound[KILN_MAX_LOOPS];
  for (uint32_t k = 0; k < d->rank; k++) bound[k] = cg_dim(b, out, k);
  kiln_value *idx[KILN_MAX_LOOPS] = {0};
  kiln_value *zrest = id[2];
  int last_z = -1;
  for (uint32_t k = 0; k < d->rank; k++)
    if (d->wg[k] == 2 && last_z < 0) last_z = (int)k; /* outermost z dim */
  for (int k = (int)d->rank - 1; k >= 0; k--) {
    if (d->wg[k] < 0) continue;
    if (d->wg[k] < 2) {
      idx[k] = id[d->wg[k]];
    } else if (k == last_z) {
      idx[k] = zrest;
    } else {
      kiln_value *cnt = d->count[k] == KILN_DYNAMIC
                            ? cg_bin(b, KILN_OP_ARITH_CEILDIVSI, bound[k], cg_index(b, d->tile[k]))
                            : cg_index(b, d->count[k]);
      idx[k] = cg_bin(b, KILN_OP_ARITH_REMUI, zrest, cnt);
      zrest = cg_bin(b, KILN_OP_ARITH_DIVUI, zrest, cnt);
    }
  }
  for (uint32_t k = 0; k < d->rank; k++) {
    if (d->wg[k] < 0) {
      box->off[k] = cg_index(b, 0);
      box->size[k] = bound[k];
      continue;
    }
    box->off[k] = cg_muli(b, idx[k], d->tile[k]);
    kiln_value *t = cg_index(b, d->tile[k]);
    if (d->bound[k] != KILN_DYNAMIC && d->bound[k] % d->tile[k] == 0) {
      box->size[k] = t;
    } else {
      kiln_value *rem = cg_bin(b, KILN_OP_ARITH_SUBI, bound[k], box->off[k]);
      box->size[k] = cg_bin(b, KILN_OP_ARITH_MINSI, t, rem);
    }
  }
}

/* The size of loop l of x: an operand dim it indexes alone. */
static kiln_value *loop_bound(kiln_builder *b, kiln_op *x, const kiln_affine_map **maps, int l,
                              const int64_t *bounds) {
  if (bounds[l] >= 0) return cg_index(b, bounds[l]);
  for (uint32_t i = 0; i < x->num_operands; i++) {
    kiln_value *v = kiln_op_operand(x, i);
    if (v->type->kind != KILN_TYPE_MEMREF) continue;
    for (uint32_t r = 0; r < maps[i]->num_results && r < v->type->rank; r++)
      if (maps[i]->results[r]->kind == KILN_AFFINE_DIM && maps[i]->results[r]->value == l)
        return cg_dim(b, v, r);
  }
  return NULL;
}

/* x, a border fill of the root's window (cg_border_fill), restricted to
 * the part of its range this workgroup's tile covers along each split
 * dim: in the buffer's coordinates the tile [lo + off, lo + off + size)
 * stretched to 0 for the first tile and to the buffer's end for the
 * last, intersected with the fill's [at, at + len) (possibly empty). */
static void clip_border_fill(kiln_op *x, const cg_dist *d, const kiln_type *rt, const tile_box *box,
                             const cg_border *bf) {
  kiln_builder b = kiln_builder_before(x);
  b.loc = x->loc;
  kiln_value *dst = kiln_op_operand(x, 1);
  kiln_value *offs[KILN_MAX_LOOPS], *sizes[KILN_MAX_LOOPS];
  kiln_value *zero = cg_index(&b, 0);
  kiln_value *one = cg_index(&b, 1);
  for (uint32_t k = 0; k < d->rank; k++) {
    if (!cg_dist_split(d, k)) {
      offs[k] = zero;
      sizes[k] = bf->len[k] == KILN_DYNAMIC ? cg_dim(&b, dst, k) : cg_index(&b, bf->len[k]);
      continue;
    }
    kiln_value *off = box->off[k], *size = box->size[k];
    if (bf->at[k] == bf->lo[k] && bf->len[k] == rt->shape[k]) { /* along the window: its tile */
      offs[k] = off;
      sizes[k] = size;
      continue;
    }
    /* first = 0 for the first tile, else 1; more = 0 for the last */
    kiln_value *first = cg_bin(&b, KILN_OP_ARITH_MINSI, off, one);
    kiln_value *end = cg_add(&b, off, size);
    kiln_value *n = cg_index(&b, rt->shape[k]);
    kiln_value *left = cg_bin(&b, KILN_OP_ARITH_SUBI, n, end);
    kiln_value *more = cg_bin(&b, KILN_OP_ARITH_MINSI, left, one);
    kiln_value *lo_part = cg_muli(&b, first, bf->lo[k]);
    kiln_value *ext_lo = cg_add(&b, off, lo_part);
    /* ext_hi = full - n + end - (full - lo - n) * more */
    kiln_value *after = cg_index(&b, bf->full[k] - rt->shape[k]);
    kiln_value *hi_base = cg_add(&b, end, after);
    kiln_value *hi_cut = cg_muli(&b, more, bf->full[k] - bf->lo[k] - rt->shape[k]);
    kiln_value *ext_hi = cg_bin(&b, KILN_OP_ARITH_SUBI, hi_base, hi_cut);
    kiln_value *at = cg_index(&b, bf->at[k]);
    kiln_value *stop = cg_index(&b, bf->at[k] + bf->len[k]);
    kiln_value *start = cg_bin(&b, KILN_OP_ARITH_MAXSI, at, ext_lo);
    start = cg_bin(&b, KILN_OP_ARITH_MINSI, start, stop);
    /* the constant second: specialize-full-tiles takes min(constant, x) for a tile size */
    kiln_value *last = cg_bin(&b, KILN_OP_ARITH_MINSI, ext_hi, stop);
    kiln_value *len = cg_bin(&b, KILN_OP_ARITH_SUBI, last, start);
    sizes[k] = cg_bin(&b, KILN_OP_ARITH_MAXSI, len, zero);
    offs[k] = cg_bin(&b, KILN_OP_ARITH_SUBI, start, at);
  }
  kiln_value *view = cg_subview(&b, dst, offs, sizes);
  kiln_op_set_operand(x, 1, view);
}

static kiln_error *tile_op(kiln_op *x, const cg_dist *d, const kiln_type *rt, const kiln_value *window,
                           const tile_box *box) {
  kiln_context *c = kiln_op_context(x);
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int loops = cg_static_bounds(x, maps, red, bounds);
  int dim_of_loop[KILN_MAX_LOOPS];
  if (loops < 0 || !cg_output_dims(x, maps, loops, d, rt, window, dim_of_loop))
    return kiln_op_error(x, "cannot be restricted to the root op's tiles");
  cg_border bf;
  if (cg_border_fill(x, window, &bf)) {
    clip_border_fill(x, d, rt, box, &bf);
    return NULL;
  }
  kiln_builder b = kiln_builder_before(x);
  b.loc = x->loc;
  kiln_value *off[KILN_MAX_LOOPS], *size[KILN_MAX_LOOPS];
  bool tiled[KILN_MAX_LOOPS];
  for (int l = 0; l < loops; l++) {
    int k = dim_of_loop[l];
    tiled[l] = k >= 0 && cg_dist_split(d, (uint32_t)k);
    off[l] = tiled[l] ? box->off[k] : NULL;
    size[l] = tiled[l] ? box->size[k] : NULL;
  }
  int64_t span[KILN_MAX_LOOPS];
  cg_loop_spans(d, loops, dim_of_loop, bounds, span);
  bool maps_changed = false;
  const kiln_affine_map *new_maps[CG_MAX_OPERANDS + 1];
  for (uint32_t i = 0; i < x->num_operands; i++) {
    new_maps[i] = maps[i];
    kiln_value *v = kiln_op_operand(x, i);
    const kiln_type *t = v->type;
    if (t->kind != KILN_TYPE_MEMREF || t->rank != maps[i]->num_results) continue;
    kiln_value *offs[KILN_MAX_LOOPS], *sizes[KILN_MAX_LOOPS];
    const kiln_affine_expr *ex[KILN_MAX_LOOPS];
    bool changed = false;
    for (uint32_t r = 0; r < t->rank; r++) {
      const kiln_affine_expr *e = maps[i]->results[r];
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      ex[r] = e;
      if (!cg_tileable_read(e, loops, span, coef, &cst) || !touches(coef, loops, tiled)) {
        offs[r] = cg_index(&b, 0);
        sizes[r] = cg_dim(&b, v, r);
        continue;
      }
      changed = true;
      if (e->kind == KILN_AFFINE_DIM) { /* the common case: the tile itself */
        offs[r] = off[e->value], sizes[r] = size[e->value];
        continue;
      }
      /* A loop read backwards (a negative coefficient, a static span:
       * cg_tileable_read) starts the window at its last value in the
       * tile, and the map counts from there: back. */
      int64_t back = 0;
      for (int l = 0; l < loops; l++)
        if (coef[l] < 0) back -= coef[l] * (span[l] - 1);
      kiln_value *o = cg_index(&b, cst - back), *s = cg_index(&b, 1);
      const kiln_affine_expr *ne = kiln_affine_const(c, back);
      for (int l = 0; l < loops; l++) {
        if (!coef[l]) continue;
        kiln_value *ol = tiled[l] ? off[l] : cg_index(&b, 0);
        kiln_value *sl = tiled[l] ? size[l] : loop_bound(&b, x, maps, l, bounds);
        if (!sl) return kiln_op_error(x, "loop %d has no size to tile a window by", l);
        o = cg_add(&b, o, cg_muli(&b, ol, coef[l]));
        s = cg_add(&b, s, cg_muli(&b, cg_add(&b, sl, cg_index(&b, -1)), coef[l] < 0 ? -coef[l] : coef[l]));
        ne = kiln_affine_binary(c, KILN_AFFINE_ADD, ne,
                                kiln_affine_binary(c, KILN_AFFINE_MUL, kiln_affine_dim(c, (unsigned)l),
                                                   kiln_affine_const(c, coef[l])));
      }
      offs[r] = o, sizes[r] = s;
      if (cst || back) {
        ex[r] = ne;
        maps_changed = true;
      }
    }
    if (!changed) continue;
    kiln_op_set_operand(x, i, cg_subview(&b, v, offs, sizes));
    new_maps[i] = kiln_affine_map_get(c, maps[i]->num_dims, 0, t->rank, ex);
  }
  if (maps_changed) {
    if (x->kind != KILN_OP_LINALG_GENERIC)
      return kiln_op_error(x, "has an indexing map with a constant offset that only linalg.generic can carry");
    const kiln_attr *am[CG_MAX_OPERANDS + 1];
    for (uint32_t i = 0; i < x->num_operands; i++) am[i] = kiln_attr_affine_map(c, new_maps[i]);
    kiln_op_set_attr(x, "indexing_maps", kiln_attr_array(c, x->num_operands, am));
  }
  /* linalg.index of a tiled loop counts from the tile's origin now. */
  kiln_block *body = x->num_regions ? x->regions[0].first : NULL;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next) {
    if (o->kind != KILN_OP_LINALG_INDEX) continue;
    const kiln_attr *dim = kiln_op_get_attr(o, "dim");
    if (!dim || dim->i < 0 || dim->i >= loops || !tiled[dim->i]) continue;
    kiln_value *iv = kiln_op_result(o, 0);
    kiln_builder ib = kiln_builder_after(o);
    kiln_value *sum = cg_bin(&ib, KILN_OP_ARITH_ADDI, iv, off[dim->i]);
    kiln_value_replace_all_uses(iv, sum);
    kiln_op_set_operand(sum->def, 0, iv);
    o = sum->def;
  }
  return NULL;
}

/* ---- Kernel-local buffers of run-time size (bufferize-kernels' allocas
 * sized by push constants: a row chain's per-row values) are confined to
 * the workgroup's tile: every access is a subview at the same tile
 * offsets (tile_op), so a buffer of the largest tile's static size holds
 * them at offset 0. No kernel allocates a run-time size on its stack. */

/* Static upper bound of a tile size: a constant, or min(c, x) with a
 * constant c (build_box's edge tile); -1 when none. */
static int64_t size_bound(const kiln_value *v) {
  int64_t c;
  if (cg_const_int(v, &c)) return c;
  if (!v->def || v->def->kind != KILN_OP_ARITH_MINSI) return -1;
  for (uint32_t i = 0; i < 2; i++)
    if (cg_const_int(kiln_op_operand(v->def, i), &c)) return c;
  return -1;
}

/* Entry k of a subview's static list `name` (offsets, sizes) with its
 * dynamic operands from *next on: the operand or NULL, the constant in
 * *st. */
static kiln_value *subview_entry(kiln_op *sv, const kiln_attr *a, uint32_t k, uint32_t *next,
                                 int64_t *st) {
  *st = ((const int64_t *)a->data)[k];
  if (*st != KILN_DYNAMIC) return NULL;
  return *next < sv->num_operands ? kiln_op_operand(sv, (*next)++) : NULL;
}

static kiln_error *confine_alloca(kiln_op *func, kiln_op *al) {
  const kiln_type *t = al->results[0].type;
  uint32_t rank = t->rank;
  int64_t bound[KILN_MAX_LOOPS], off_st[KILN_MAX_LOOPS];
  kiln_value *off_v[KILN_MAX_LOOPS];
  bool first = true;
  for (uint32_t k = 0; k < rank; k++) bound[k] = 0;
  for (kiln_use *u = al->results[0].uses; u; u = u->next) {
    kiln_op *o = u->owner;
    if (o->kind == KILN_OP_MEMREF_DIM && u->index == 0) continue;
    const kiln_attr *so = kiln_op_get_attr(o, "static_offsets"), *ss = kiln_op_get_attr(o, "static_sizes"),
                    *sr = kiln_op_get_attr(o, "static_strides");
    if (o->kind != KILN_OP_MEMREF_SUBVIEW || u->index != 0 || !so || !ss || !sr ||
        so->kind != KILN_ATTR_DENSE_ARRAY || ss->kind != KILN_ATTR_DENSE_ARRAY ||
        sr->kind != KILN_ATTR_DENSE_ARRAY || so->count != rank || ss->count != rank || sr->count != rank ||
        o->results[0].type->rank != rank)
      goto refuse;
    uint32_t next = 1;
    for (uint32_t k = 0; k < rank; k++) {
      int64_t c;
      kiln_value *v = subview_entry(o, so, k, &next, &c);
      if (((const int64_t *)sr->data)[k] != 1 || (c == KILN_DYNAMIC && !v)) goto refuse;
      if (first) off_v[k] = v, off_st[k] = c;
      else if (v != off_v[k] || (!v && c != off_st[k])) goto refuse;
    }
    for (uint32_t k = 0; k < rank; k++) {
      int64_t c;
      kiln_value *v = subview_entry(o, ss, k, &next, &c);
      int64_t b = v ? size_bound(v) : c;
      if (b < 0) goto refuse;
      if (b > bound[k]) bound[k] = b;
    }
    first = false;
  }
  if (first) goto refuse;
  kiln_context *c = kiln_op_context(al);
  const kiln_type *nt = kiln_type_memref(c, rank, bound, t->elem, NULL, t->memspace);
  kiln_builder b = kiln_builder_before(al);
  b.loc = al->loc;
  int64_t seg[2] = {0, 0};
  kiln_named_attr a = {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 2, seg, NULL)};
  kiln_value *nal = kiln_op_result(kiln_build(&b, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &nt, kiln_attr_dict(c, 1, &a)), 0);
  for (kiln_use *u = al->results[0].uses, *nu; u; u = nu) {
    nu = u->next;
    kiln_op *o = u->owner;
    if (o->kind == KILN_OP_MEMREF_DIM) {
      /* the full size (the tile box's bound): the alloca's size operand */
      int64_t d;
      if (!cg_const_int(kiln_op_operand(o, 1), &d) || d < 0 || (uint32_t)d >= rank) goto refuse;
      uint32_t j = 0;
      for (uint32_t i = 0; i < (uint32_t)d; i++) j += t->shape[i] == KILN_DYNAMIC;
      kiln_builder db = kiln_builder_before(o);
      kiln_value *full = t->shape[d] == KILN_DYNAMIC ? kiln_op_operand(al, j) : cg_index(&db, t->shape[d]);
      kiln_value_replace_all_uses(kiln_op_result(o, 0), full);
      kiln_op_erase(o);
      continue;
    }
    kiln_builder sb = kiln_builder_before(o);
    sb.loc = o->loc;
    const kiln_attr *so = kiln_op_get_attr(o, "static_offsets"), *ss = kiln_op_get_attr(o, "static_sizes");
    uint32_t next = 1;
    kiln_value *zero[KILN_MAX_LOOPS], *size[KILN_MAX_LOOPS];
    for (uint32_t k = 0; k < rank; k++) {
      int64_t st;
      subview_entry(o, so, k, &next, &st);
      zero[k] = cg_index(&sb, 0);
    }
    for (uint32_t k = 0; k < rank; k++) {
      int64_t st;
      kiln_value *v = subview_entry(o, ss, k, &next, &st);
      size[k] = v ? v : cg_index(&sb, st);
    }
    kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_subview(&sb, nal, zero, size));
    kiln_op_erase(o);
  }
  kiln_op_erase(al);
  return NULL;
refuse:
  return kiln_op_error(al, "is a kernel-local buffer of run-time size that kernel @%s does not "
                           "access only through its workgroup's tile",
                       kiln_symbol_name(func));
}

static kiln_error *confine_allocas(kiln_op *func) {
  kiln_block *body = cg_func_body(func);
  for (kiln_op *x = body ? body->first : NULL, *nx; x; x = nx) {
    nx = x->next;
    if (x->kind != KILN_OP_MEMREF_ALLOCA || kiln_type_has_static_shape(x->results[0].type)) continue;
    kiln_error *e = confine_alloca(func, x);
    if (e) return e;
  }
  return NULL;
}

/* Is a before b in body (b an op of body)? */
static bool precedes(const kiln_block *body, const kiln_op *a, const kiln_op *b) {
  for (const kiln_op *x = body->first; x && x != b; x = x->next)
    if (x == a) return true;
  return false;
}

/* Moves op, an op of body, and the pure ops of body it depends on that
 * are not before `first`, to before `first`: false (nothing moved) where
 * one is not pure. */
static bool hoistable(const kiln_block *body, kiln_op *op, kiln_op *first, int depth) {
  if (op->parent != body || precedes(body, op, first)) return true;
  if (depth > 16 || op->num_regions || !kiln_op_has_flag(op, KILN_OPF_PURE)) return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_op *d = kiln_op_operand(op, i)->def;
    if (d && !hoistable(body, d, first, depth + 1)) return false;
  }
  return true;
}

static void hoist(const kiln_block *body, kiln_op *op, kiln_op *first) {
  if (op->parent != body || precedes(body, op, first)) return;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_op *d = kiln_op_operand(op, i)->def;
    if (d) hoist(body, d, first);
  }
  kiln_op_move_before(op, first);
}

static kiln_error *distribute(cg_kernel *k, void *user) {
  (void)user;
  kiln_op *root = cg_find_root(k->func);
  if (!cg_launch(k->func))
    return kiln_op_error(k->func, "has no kiln.launch attribute (run select-launch-config first)");
  if (!root) return NULL;
  int64_t tiles[KILN_MAX_LOOPS];
  int n = cg_launch_array(k->func, "tile_sizes", tiles, KILN_MAX_LOOPS);
  bool any = false;
  for (int l = 0; l < n; l++) any |= tiles[l] != 0;
  if (!any) return confine_allocas(k->func);
  cg_dist d;
  const char *why = "";
  if (!cg_distribution(root, tiles, n, &d))
    return kiln_op_error(root, "kiln.launch tile_sizes do not fit this root op");
  if (!cg_can_distribute(k->func, root, &d, &why))
    return kiln_op_error(k->func, "cannot be distributed: %s", why);
  /* A single tile is the whole iteration space: nothing to restrict. */
  if (!cg_dist_splits(&d)) return confine_allocas(k->func);
  int64_t wc[3];
  if (cg_launch_array(k->func, "workgroup_count", wc, 3) != 3 || wc[0] != d.wg_count[0] ||
      wc[1] != d.wg_count[1] || wc[2] != d.wg_count[2])
    return kiln_op_error(k->func, "kiln.launch workgroup_count does not match its tile_sizes");
  kiln_block *body = cg_func_body(k->func);
  kiln_value *out = kiln_op_operand(root, kiln_linalg_num_inputs(root));
  /* the tile box reads dynamic dims of the root's output: after it, which
   * (a view of a pad's interior, and the dims it reads) moves before the
   * first linalg op (the pad's border fills, restricted to the tiles too) */
  bool dynamic = false;
  for (uint32_t i = 0; i < d.rank; i++) dynamic |= d.bound[i] == KILN_DYNAMIC;
  kiln_op *first = body->first;
  while (first && !kiln_op_has_flag(first, KILN_OPF_LINALG)) first = first->next;
  if (dynamic && out->def && out->def->parent == body && first && first != root &&
      !precedes(body, out->def, first)) {
    if (!hoistable(body, out->def, first, 0))
      return kiln_op_error(k->func, "cannot be distributed: the root's output is computed after "
                                    "ops restricted to its tiles");
    hoist(body, out->def, first);
  }
  kiln_builder b = dynamic && out->def && out->def->parent == body ? kiln_builder_after(out->def)
                                                                    : kiln_builder_before(body->first);
  b.loc = root->loc;
  tile_box box;
  build_box(&b, &d, out, &box);
  const kiln_type *rt = out->type;
  for (kiln_op *x = body->first; x; x = x->next) {
    if (!kiln_op_has_flag(x, KILN_OPF_LINALG)) continue;
    kiln_error *err = tile_op(x, &d, rt, out, &box);
    if (err) return err;
  }
  kiln_error *err = confine_allocas(k->func);
  if (err) return err;
  kiln_pass_dce(k->func, NULL);
  return NULL;
}

kiln_error *kiln_codegen_cpu_tile_and_distribute(kiln_op *module, void *user) {
  (void)user;
  return cg_for_each_kernel(module, distribute, NULL);
}
