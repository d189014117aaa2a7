/* Root op, iteration space and distribution to workgroups, shared by the
 * CPU and GPU code generators (compiler/codegen/common), so both pick the
 * same root and the same grid. Takes: kernels of linalg ops on memrefs.
 * Guarantees: cg_distribution maps the root's output dims onto at most
 * three workgroup slots; cg_record_grid records that grid on the export
 * and on every host dispatch site, with host ops for run-time counts, or
 * returns an error on the op that prevents it. */
#include "codegen_common.h"

#include <string.h>

#include "dialects/hal.h"
#include "dialects/hal_interface.h"

cg_root_kind cg_root_kind_of(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_LINALG_MATMUL: case KILN_OP_LINALG_BATCH_MATMUL: case KILN_OP_LINALG_MATVEC:
    return CG_ROOT_MATMUL;
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: case KILN_OP_LINALG_CONV_2D_NCHW_FCHW:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
    return CG_ROOT_CONV;
  case KILN_OP_LINALG_POOLING_NHWC_MAX: case KILN_OP_LINALG_POOLING_NHWC_SUM:
  case KILN_OP_LINALG_POOLING_NCHW_MAX: case KILN_OP_LINALG_POOLING_NCHW_SUM:
    return CG_ROOT_POOLING;
  default: break;
  }
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  if (op->num_operands > CG_MAX_OPERANDS) return CG_ROOT_ELEMENTWISE;
  int n = cg_iteration(op, maps, red);
  for (int i = 0; i < n; i++)
    if (red[i]) return CG_ROOT_REDUCTION;
  return CG_ROOT_ELEMENTWISE;
}

kiln_op *cg_find_root(kiln_op *func) {
  kiln_block *b = cg_func_body(func);
  kiln_op *best = NULL;
  int best_rank = 99;
  for (kiln_op *op = b ? b->first : NULL; op; op = op->next) {
    if (!kiln_op_has_flag(op, KILN_OPF_LINALG)) continue;
    int r = (int)cg_root_kind_of(op);
    if (op->kind == KILN_OP_LINALG_FILL) r = 10; /* never root unless alone */
    if (r <= best_rank) {
      /* the first matmul/conv/...; the last elementwise op */
      if (r < best_rank || r == CG_ROOT_ELEMENTWISE || r == 10) best = op;
      best_rank = r;
    }
  }
  return best;
}

int cg_static_bounds(const kiln_op *op, const kiln_affine_map **maps, bool *red,
                     int64_t *bounds) {
  if (op->num_operands > CG_MAX_OPERANDS) return -1;
  int n = cg_iteration(op, maps, red);
  if (n < 0) return -1;
  for (int l = 0; l < n; l++) bounds[l] = -1;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(op, i)->type;
    /* Index arrays are sized for KILN_MAX_LOOPS dims, and addressing
     * needs a strided layout. */
    if (maps[i]->num_results > KILN_MAX_LOOPS) return -1;
    if (t->kind == KILN_TYPE_MEMREF) {
      int64_t st[KILN_MAX_LOOPS], off;
      if (t->rank > KILN_MAX_LOOPS || !kiln_memref_strides(t, st, &off)) return -1;
    }
    if (!kiln_type_is_shaped(t) || t->rank != maps[i]->num_results) continue;
    for (uint32_t d = 0; d < t->rank; d++) {
      const kiln_affine_expr *e = maps[i]->results[d];
      if (e->kind == KILN_AFFINE_DIM && t->shape[d] != KILN_DYNAMIC && bounds[e->value] < 0)
        bounds[e->value] = t->shape[d];
    }
  }
  return n;
}

int cg_iteration(const kiln_op *op, const kiln_affine_map **maps, bool *red) {
  if (op->kind != KILN_OP_LINALG_SOFTMAX) return kiln_linalg_iteration(op, maps, red);
  const kiln_attr *d = kiln_op_get_attr(op, "dimension");
  const kiln_type *t = op->num_operands == 2 ? kiln_op_operand(op, 0)->type : NULL;
  if (!t || !kiln_type_is_ranked(t) || t->rank > KILN_MAX_LOOPS || !d ||
      d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= (int64_t)t->rank)
    return -1;
  maps[0] = maps[1] = kiln_affine_map_identity(kiln_op_context(op), t->rank);
  for (uint32_t i = 0; red && i < t->rank; i++) red[i] = (int64_t)i == d->i;
  return (int)t->rank;
}

/* ---- distribution ---- */
/* Decomposes e into sum coef[l] * d_l + *cst; any_sign: constants and
 * multipliers may be negative. */
static bool linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst, bool any_sign) {
  switch (e->kind) {
  case KILN_AFFINE_DIM:
    if (e->value >= loops) return false;
    coef[e->value] += 1;
    return true;
  case KILN_AFFINE_CONST:
    *cst += e->value;
    return any_sign || e->value >= 0;
  case KILN_AFFINE_ADD:
    return linear_expr(e->lhs, loops, coef, cst, any_sign) && linear_expr(e->rhs, loops, coef, cst, any_sign);
  case KILN_AFFINE_MUL: {
    if (e->rhs->kind != KILN_AFFINE_CONST || (!any_sign && e->rhs->value < 0)) return false;
    int64_t c2[KILN_MAX_LOOPS] = {0}, k2 = 0;
    if (!linear_expr(e->lhs, loops, c2, &k2, any_sign)) return false;
    for (int l = 0; l < loops; l++) coef[l] += c2[l] * e->rhs->value;
    *cst += k2 * e->rhs->value;
    return true;
  }
  default:
    return false;
  }
}

bool cg_linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst) {
  return linear_expr(e, loops, coef, cst, false);
}

bool cg_signed_linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst) {
  return linear_expr(e, loops, coef, cst, true);
}

void cg_loop_spans(const cg_dist *d, int loops, const int *dim_of_loop, const int64_t *bounds,
                   int64_t *span) {
  for (int l = 0; l < loops; l++) {
    int k = dim_of_loop[l];
    if (k >= 0 && cg_dist_split(d, (uint32_t)k))
      span[l] = d->bound[k] > 0 && d->tile[k] > 0 && d->bound[k] % d->tile[k] == 0 ? d->tile[k] : -1;
    else
      span[l] = bounds[l] >= 1 ? bounds[l] : -1;
  }
}

bool cg_tileable_read(const kiln_affine_expr *e, int loops, const int64_t *span, int64_t *coef,
                      int64_t *cst) {
  if (!cg_signed_linear_expr(e, loops, coef, cst)) return false;
  for (int l = 0; l < loops; l++)
    if (coef[l] < 0 && span[l] < 1) return false;
  return true;
}

bool cg_distribution(const kiln_op *root, const int64_t *tiles, int ntiles, cg_dist *d) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int n = cg_static_bounds(root, maps, red, bounds);
  if (n < 0 || n != ntiles) return false;
  uint32_t out = kiln_linalg_num_inputs(root);
  if (out >= root->num_operands) return false;
  const kiln_affine_map *om = maps[out];
  for (uint32_t i = out + 1; i < root->num_operands; i++)
    if (maps[i] != om) return false;
  const kiln_type *ot = kiln_op_operand(root, out)->type;
  if (ot->kind != KILN_TYPE_MEMREF || !kiln_affine_map_is_projected_permutation(om) ||
      om->num_results != ot->rank)
    return false;
  memset(d, 0, sizeof *d);
  d->rank = ot->rank;
  d->rows = root->kind == KILN_OP_LINALG_GENERIC && om->num_results > 0 && (int)om->num_results < n;
  for (int l = 0; d->rows && l < n; l++)
    d->rows = l < (int)om->num_results ? !red[l] && om->results[l]->value == l : red[l];
  int ndist = 0, dist[KILN_MAX_LOOPS];
  for (uint32_t k = 0; k < ot->rank; k++) {
    int l = (int)om->results[k]->value;
    d->loop[k] = l;
    d->bound[k] = ot->shape[k];
    d->wg[k] = -1;
    /* An output dim indexed by a reduction loop (softmax) stays whole. */
    bool whole = red[l] || tiles[l] <= 0;
    if (d->bound[k] == KILN_DYNAMIC) {
      /* the tile count is known at run time only (ceildiv(dim, tile)) */
      d->tile[k] = whole ? KILN_DYNAMIC : tiles[l];
      d->count[k] = whole ? 1 : KILN_DYNAMIC;
      if (!whole) dist[ndist++] = (int)k;
      continue;
    }
    int64_t t = whole || tiles[l] > d->bound[k] ? d->bound[k] : tiles[l];
    if (t <= 0) t = 1;
    d->tile[k] = t;
    d->count[k] = (d->bound[k] + t - 1) / t;
    if (d->count[k] > 1) dist[ndist++] = (int)k;
  }
  d->wg_count[0] = d->wg_count[1] = d->wg_count[2] = 1;
  for (int i = ndist - 1, slot = 0; i >= 0; i--) {
    int k = dist[i];
    d->wg[k] = slot;
    if (d->count[k] == KILN_DYNAMIC || d->wg_count[slot] == KILN_DYNAMIC) d->wg_count[slot] = KILN_DYNAMIC;
    else d->wg_count[slot] *= d->count[k];
    if (slot < 2) slot++;
  }
  return true;
}

/* ---- the grid on the host ---- */
static bool same_array(const kiln_attr *a, const int64_t *v, uint32_t n) {
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || a->count != n) return false;
  return memcmp(a->data, v, n * sizeof *v) == 0;
}

/* The push constant a kernel's value is (index_castui of
 * hal.interface.constant {index}), or -1. */
static int64_t push_constant_of(kiln_value *v) {
  if (v && v->def && v->def->kind == KILN_OP_ARITH_INDEX_CASTUI) v = kiln_op_operand(v->def, 0);
  if (!v || !v->def || v->def->kind != KILN_OP_HAL_INTERFACE_CONSTANT) return -1;
  return kiln_hal_interface_selector(v->def);
}

/* Push constant holding run-time dim k of memref v: a binding's or a
 * kernel-local buffer's (memref.alloca sized by push constants: a row
 * chain's per-row values), or through a same-rank subview whose size
 * there is memref.dim of its source (a fused pad's window: the batch of
 * the padded binding); -1. */
static int64_t dim_constant(const kiln_value *v, uint32_t k, int depth) {
  kiln_op *b = v->def;
  if (!b || k >= v->type->rank || v->type->shape[k] != KILN_DYNAMIC || depth > 4) return -1;
  if (b->kind == KILN_OP_MEMREF_SUBVIEW) {
    const kiln_value *src = kiln_op_operand(b, 0);
    const kiln_attr *so = kiln_op_get_attr(b, "static_offsets"), *ss = kiln_op_get_attr(b, "static_sizes");
    if (src->type->rank != v->type->rank || !so || !ss || so->kind != KILN_ATTR_DENSE_ARRAY ||
        ss->kind != KILN_ATTR_DENSE_ARRAY || so->count != v->type->rank || ss->count != v->type->rank)
      return -1;
    const int64_t *o = so->data, *sz = ss->data;
    uint32_t at = 1;
    for (uint32_t i = 0; i < so->count; i++) at += o[i] == KILN_DYNAMIC;
    for (uint32_t i = 0; i < k; i++) at += sz[i] == KILN_DYNAMIC;
    if (sz[k] != KILN_DYNAMIC || at >= b->num_operands) return -1;
    kiln_op *d = kiln_op_operand(b, at)->def;
    if (!d || d->kind != KILN_OP_MEMREF_DIM || d->num_operands != 2) return -1;
    const kiln_attr *c = kiln_value_constant(kiln_op_operand(d, 1));
    if (!c || c->kind != KILN_ATTR_INTEGER || c->i < 0) return -1;
    return dim_constant(kiln_op_operand(d, 0), (uint32_t)c->i, depth + 1);
  }
  if (b->kind != KILN_OP_HAL_INTERFACE_BINDING && b->kind != KILN_OP_MEMREF_ALLOCA) return -1;
  uint32_t j = 0;
  for (uint32_t i = 0; i < k; i++) j += v->type->shape[i] == KILN_DYNAMIC;
  return j < b->num_operands ? push_constant_of(kiln_op_operand(b, j)) : -1;
}

/* Push constant holding dim k of the root's output (a binding with a
 * dynamic dim, or a fused pad's window of one), or -1. */
int64_t cg_output_dim_constant(kiln_op *root, uint32_t k) {
  return dim_constant(kiln_op_operand(root, kiln_linalg_num_inputs(root)), k, 0);
}

/* Host ops before dispatch site d computing the dynamic entries of the
 * workgroup count: per slot, the product of its dims' tile counts,
 * ceildiv(push constant, tile) for dynamic ones. False when a push
 * constant has no value on the host. */
static bool host_counts(kiln_op *d, const cg_dist *dist, kiln_op *root, kiln_value **out) {
  kiln_builder b = kiln_builder_before(d);
  b.loc = d->loc;
  for (int s = 0; s < 3; s++) {
    out[s] = NULL;
    if (dist->wg_count[s] != KILN_DYNAMIC) continue;
    kiln_value *prod = NULL;
    for (uint32_t k = 0; k < dist->rank; k++) {
      if (dist->wg[k] != s) continue;
      kiln_value *c;
      if (dist->count[k] != KILN_DYNAMIC) {
        c = cg_index(&b, dist->count[k]);
      } else {
        int64_t pc = cg_output_dim_constant(root, k), st = 0;
        kiln_value *dim = pc >= 0 ? kiln_hal_dispatch_value(d, "constants", (uint32_t)pc, &st) : NULL;
        if (pc < 0) return false;
        if (!dim) dim = cg_index(&b, st);
        c = cg_bin(&b, KILN_OP_ARITH_CEILDIVSI, dim, cg_index(&b, dist->tile[k]));
      }
      prod = prod ? cg_bin(&b, KILN_OP_ARITH_MULI, prod, c) : c;
    }
    out[s] = prod;
  }
  return true;
}

kiln_error *cg_record_grid(kiln_op *top, kiln_op *executable, kiln_op *export, kiln_op *func,
                           bool first) {
  if (!export || !executable) return NULL;
  int64_t wc[3] = {1, 1, 1};
  if (cg_launch_array(func, "workgroup_count", wc, 3) != 3)
    return kiln_op_error(func, "has no kiln.launch workgroup_count");
  const kiln_attr *old_exp = kiln_op_get_attr(export, "workgroup_count");
  if (old_exp && !first && !same_array(old_exp, wc, 3))
    return kiln_op_error(export, "variants of @%s disagree on the workgroup count", kiln_symbol_name(executable));
  kiln_op_set_attr(export, "workgroup_count", kiln_attr_dense_i64_array(kiln_op_context(export), 3, wc));
  bool dynamic = wc[0] == KILN_DYNAMIC || wc[1] == KILN_DYNAMIC || wc[2] == KILN_DYNAMIC;
  cg_dist dist;
  kiln_op *root = dynamic ? cg_find_root(func) : NULL;
  if (dynamic) {
    int64_t tiles[KILN_MAX_LOOPS];
    int n = cg_launch_array(func, "tile_sizes", tiles, KILN_MAX_LOOPS);
    if (!root || !cg_distribution(root, tiles, n, &dist))
      return kiln_op_error(func, "kiln.launch tile_sizes do not fit the root op");
  }
  const kiln_attr *ord = kiln_op_get_attr(export, "ordinal");
  const char *exe = kiln_symbol_name(executable);
  kiln_block *tb = kiln_module_body(top);
  for (kiln_op *f = tb ? tb->first : NULL; f; f = f->next) {
    if (f->kind != KILN_OP_FUNC_FUNC) continue;
    for (kiln_block *b = f->num_regions ? f->regions[0].first : NULL; b; b = b->next)
      for (kiln_op *d = b->first; d; d = d->next) {
        if (d->kind != KILN_OP_HAL_COMMAND_BUFFER_DISPATCH) continue;
        const kiln_attr *e = kiln_op_get_attr(d, "executable");
        const kiln_attr *o = kiln_op_get_attr(d, "ordinal");
        if (!e || e->kind != KILN_ATTR_SYMBOL_REF || !exe || strcmp(e->str, exe) != 0) continue;
        if (!o || !ord || o->kind != KILN_ATTR_INTEGER || ord->kind != KILN_ATTR_INTEGER ||
            o->i != ord->i)
          continue;
        /* Another variant already set it: it must agree (and its
         * run-time entries are the same computation). */
        const kiln_attr *old = kiln_op_get_attr(d, "workgroup_count");
        if (old) {
          if (!first && !same_array(old, wc, 3))
            return kiln_op_error(d, "variants of @%s disagree on the workgroup count", exe);
          if (!first || dynamic) continue;
        }
        kiln_value *counts[3];
        if (dynamic && !host_counts(d, &dist, root, counts))
          return kiln_op_error(d, "the workgroup count of @%s depends on a size the host does not know", exe);
        kiln_op_set_attr(d, "workgroup_count", kiln_attr_dense_i64_array(kiln_op_context(d), 3, wc));
        kiln_value *ops[512];
        uint32_t n = 0;
        for (uint32_t i = 0; i < d->num_operands && n < 509; i++) ops[n++] = kiln_op_operand(d, i);
        for (int s = 0; s < 3; s++)
          if (wc[s] == KILN_DYNAMIC) ops[n++] = counts[s];
        kiln_op_set_operands(d, n, ops);
      }
  }
  return NULL;
}

/* Is output dim k split into several tiles (or possibly, at run time)? */
bool cg_dist_split(const cg_dist *d, uint32_t k) { return d->count[k] > 1 || d->count[k] == KILN_DYNAMIC; }

/* The output map of X in root-output dims: dim_of_loop[l] = output dim
 * of loop l, or -1. False when X does not iterate the root's output
 * space: its outputs must match the root's on every split dim; a dim
 * that stays whole may differ (a pad's fill of the whole buffer around
 * the root's copy into its interior, split along the unpadded channels,
 * restricted to the same channels). rt is the root's output type before
 * tiling: tile-and-distribute asks after it has already replaced the root's
 * output by a subview. */
/* Does x, in a kernel whose root reduces rows (d->rows), write rows x
 * columns: an output of higher rank than the root's through a
 * permutation of x's loops, the root's rows being x's leading loops (a
 * LayerNorm writing its result transposed: form-dispatch-regions) with
 * the root's sizes? */
static bool row_op(const kiln_op *x, const kiln_affine_map **maps, const cg_dist *d,
                   const kiln_type *rt) {
  uint32_t out = kiln_linalg_num_inputs(x);
  if (!d->rows || out + 1 != x->num_operands) return false;
  const kiln_type *t = kiln_op_operand(x, out)->type;
  const kiln_affine_map *om = maps[out];
  if (t->kind != KILN_TYPE_MEMREF || t->rank <= d->rank || !kiln_affine_map_is_projected_permutation(om) ||
      om->num_results != t->rank || om->num_dims != t->rank)
    return false;
  for (uint32_t j = 0; j < t->rank; j++) {
    int64_t l = om->results[j]->value;
    if (l < (int64_t)d->rank && t->shape[j] != rt->shape[l]) return false;
  }
  return true;
}

/* Is v memref.dim(base, k)? */
static bool is_dim_of(const kiln_value *v, const kiln_value *base, uint32_t k) {
  kiln_op *d = v->def;
  if (!d || d->kind != KILN_OP_MEMREF_DIM || d->num_operands != 2 || kiln_op_operand(d, 0) != base) return false;
  const kiln_attr *c = kiln_value_constant(kiln_op_operand(d, 1));
  return c && c->kind == KILN_ATTR_INTEGER && c->i == (int64_t)k;
}

/* v's offsets and sizes in the buffer it views: v itself (offsets 0), or
 * a unit-stride memref.subview of it at static offsets and sizes, a
 * run-time dim (a batch) only whole (size memref.dim of the buffer, -1 in
 * size[k]); *base: that buffer. */

static bool static_view(const kiln_value *v, const kiln_value **base, int64_t *off, int64_t *size) {
  const kiln_type *t = v->type;
  if (t->kind != KILN_TYPE_MEMREF) return false;
  kiln_op *sv = v->def;
  if (!sv || sv->kind != KILN_OP_MEMREF_SUBVIEW) {
    *base = v;
    for (uint32_t k = 0; k < t->rank; k++) off[k] = 0, size[k] = t->shape[k];
    return true;
  }
  const kiln_attr *so = kiln_op_get_attr(sv, "static_offsets");
  const kiln_attr *ss = kiln_op_get_attr(sv, "static_sizes");
  const kiln_attr *st = kiln_op_get_attr(sv, "static_strides");
  const kiln_value *src = kiln_op_operand(sv, 0);
  if (!so || !ss || !st || so->kind != KILN_ATTR_DENSE_ARRAY ||
      ss->kind != KILN_ATTR_DENSE_ARRAY || st->kind != KILN_ATTR_DENSE_ARRAY ||
      so->count != t->rank || ss->count != t->rank || st->count != t->rank ||
      src->type->kind != KILN_TYPE_MEMREF || src->type->rank != t->rank)
    return false;
  const int64_t *o = so->data, *s = ss->data, *r = st->data;
  uint32_t next = 1; /* the dynamic sizes' operands (no dynamic offsets or strides) */
  for (uint32_t k = 0; k < t->rank; k++) {
    if (r[k] != 1 || o[k] == KILN_DYNAMIC || s[k] != t->shape[k]) return false;
    /* a run-time dim only whole (a batch): B's own size */
    if (s[k] == KILN_DYNAMIC &&
        (o[k] != 0 || src->type->shape[k] != KILN_DYNAMIC || next >= sv->num_operands ||
         !is_dim_of(kiln_op_operand(sv, next++), src, k)))
      return false;
    off[k] = o[k], size[k] = s[k];
  }
  if (next != sv->num_operands) return false;
  *base = src;
  return true;
}

bool cg_border_fill(const kiln_op *x, const kiln_value *window, cg_border *bf) {
  if (!window || x->kind != KILN_OP_LINALG_FILL || x->num_operands != 2) return false;
  const kiln_value *fb, *wb;
  cg_border tmp;
  if (!bf) bf = &tmp;
  int64_t wsize[KILN_MAX_LOOPS];
  const kiln_value *dst = kiln_op_operand((kiln_op *)x, 1);
  if (dst->type->kind != KILN_TYPE_MEMREF || window->type->kind != KILN_TYPE_MEMREF ||
      dst->type->rank != window->type->rank || dst->type->rank > KILN_MAX_LOOPS ||
      !static_view(dst, &fb, bf->at, bf->len) || !static_view(window, &wb, bf->lo, wsize) || fb != wb)
    return false;
  /* a fill of the window itself (an accumulator's zero) is no border */
  bool other = false;
  for (uint32_t k = 0; k < fb->type->rank; k++) {
    bf->full[k] = fb->type->shape[k];
    other |= bf->at[k] != bf->lo[k] || bf->len[k] != wsize[k];
  }
  return other;
}

const kiln_value *cg_view_base(const kiln_value *v) {
  for (kiln_op *d = v->def; d; d = v->def) {
    if (d->kind != KILN_OP_MEMREF_SUBVIEW && d->kind != KILN_OP_MEMREF_CAST &&
        d->kind != KILN_OP_MEMREF_EXPAND_SHAPE && d->kind != KILN_OP_MEMREF_COLLAPSE_SHAPE &&
        d->kind != KILN_OP_MEMREF_REINTERPRET_CAST)
      break;
    v = kiln_op_operand(d, 0);
  }
  return v;
}

/* Where operand i of x sits in its base buffer: per buffer dim b,
 * sum coef[b][k] * (root output dim k) + cst[b] over the part of x's
 * index that follows root dims, free[b] when a loop of x that is no root
 * dim (a window's tap, a reduction) moves it too. False when that cannot
 * be said: a view other than static unit-stride subviews and casts of
 * one rank, or an index that is not a sum of loops. */
typedef struct cg_place {
  int64_t coef[KILN_MAX_LOOPS][KILN_MAX_LOOPS], cst[KILN_MAX_LOOPS];
  bool free[KILN_MAX_LOOPS];
  /* the operand's extent in the buffer: lo[b], len[b] (KILN_DYNAMIC: whole) */
  int64_t lo[KILN_MAX_LOOPS], len[KILN_MAX_LOOPS];
} cg_place;

static bool place_of(kiln_op *x, uint32_t i, const kiln_affine_map **maps, int loops,
                     const int *dim_of_loop, uint32_t rank, cg_place *p) {
  const kiln_value *v = kiln_op_operand(x, i);
  uint32_t r = v->type->rank;
  if (r > KILN_MAX_LOOPS || maps[i]->num_results != r) return false;
  memset(p, 0, sizeof *p);
  for (uint32_t b = 0; b < r; b++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_signed_linear_expr(maps[i]->results[b], loops, coef, &cst)) return false;
    p->cst[b] = cst;
    for (int l = 0; l < loops; l++) {
      if (!coef[l]) continue;
      if (dim_of_loop[l] >= 0 && (uint32_t)dim_of_loop[l] < rank) p->coef[b][dim_of_loop[l]] += coef[l];
      else p->free[b] = true;
    }
  }
  for (uint32_t b = 0; b < r; b++) p->lo[b] = 0, p->len[b] = v->type->shape[b];
  /* up the views to the base, adding each subview's offsets */
  while (v->def) {
    kiln_op *d = v->def;
    if (d->kind == KILN_OP_MEMREF_CAST) {
      v = kiln_op_operand(d, 0);
      if (v->type->kind != KILN_TYPE_MEMREF || v->type->rank != r) return false;
      continue;
    }
    if (d->kind != KILN_OP_MEMREF_SUBVIEW) break;
    const kiln_value *src;
    int64_t off[KILN_MAX_LOOPS], size[KILN_MAX_LOOPS];
    if (!static_view(v, &src, off, size)) return false;
    for (uint32_t b = 0; b < r; b++) p->cst[b] += off[b], p->lo[b] += off[b];
    v = src;
  }
  return v == cg_view_base(v);
}

/* Do a and b differ in buffer dim b0? */
static bool place_differs(const cg_place *a, const cg_place *b, uint32_t b0, uint32_t rank) {
  if (a->free[b0] || b->free[b0] || a->cst[b0] != b->cst[b0]) return true;
  for (uint32_t k = 0; k < rank; k++)
    if (a->coef[b0][k] != b->coef[b0][k]) return true;
  return false;
}

/* Are the extents of a and b apart in some buffer dim (a pad's border
 * fills beside the interior a fused op reads)? */
static bool places_apart(const cg_place *a, const cg_place *b, uint32_t r) {
  for (uint32_t b0 = 0; b0 < r; b0++)
    if (a->len[b0] >= 0 && b->len[b0] >= 0 &&
        (a->lo[b0] + a->len[b0] <= b->lo[b0] || b->lo[b0] + b->len[b0] <= a->lo[b0]))
      return true;
  return false;
}

/* x's input i and w's output j view one buffer: marks clash[k] for the
 * root dims k that move either where they differ (every dim when either
 * place is unknown), none where their extents are apart. Ops that do not
 * iterate the root's output space mark nothing here: cg_can_distribute
 * refuses them on its own. */
static bool view_clash(kiln_op *x, uint32_t i, kiln_op *w, uint32_t j, const cg_dist *d,
                       const kiln_type *rt, const kiln_value *window, bool *clash) {
  const kiln_affine_map *xm[CG_MAX_OPERANDS + 1], *wm[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int xd[KILN_MAX_LOOPS], wd[KILN_MAX_LOOPS];
  int xl = cg_static_bounds(x, xm, red, bounds);
  int wl = cg_static_bounds(w, wm, red, bounds);
  if (xl < 0 || wl < 0 || !cg_output_dims(x, xm, xl, d, rt, window, xd) ||
      !cg_output_dims(w, wm, wl, d, rt, window, wd))
    return false;
  cg_place a, b;
  bool known = place_of(x, i, xm, xl, xd, d->rank, &a) && place_of(w, j, wm, wl, wd, d->rank, &b);
  uint32_t r = kiln_op_operand(x, i)->type->rank;
  if (known && places_apart(&a, &b, r)) return false; /* w never writes what x reads */
  bool any = false;
  for (uint32_t k = 0; k < d->rank; k++) {
    bool c = !known;
    for (uint32_t b0 = 0; known && b0 < r && !c; b0++)
      c = (a.coef[b0][k] || b.coef[b0][k]) && place_differs(&a, &b, b0, d->rank);
    if (c) clash[k] = any = true;
  }
  return any;
}

bool cg_view_clashes(kiln_op *func, const cg_dist *d, const kiln_type *rt, const kiln_value *window,
                     bool *clash) {
  kiln_block *body = cg_func_body(func);
  bool any = false;
  for (uint32_t k = 0; k < d->rank; k++) clash[k] = false;
  for (kiln_op *x = body ? body->first : NULL; x; x = x->next) {
    if (!kiln_op_has_flag(x, KILN_OPF_LINALG)) continue;
    uint32_t nin = kiln_linalg_num_inputs(x);
    for (uint32_t i = 0; i < nin; i++) {
      const kiln_value *v = kiln_op_operand(x, i);
      if (v->type->kind != KILN_TYPE_MEMREF) continue;
      const kiln_value *base = cg_view_base(v);
      for (kiln_op *w = body->first; w; w = w->next) {
        if (!kiln_op_has_flag(w, KILN_OPF_LINALG)) continue;
        for (uint32_t j = kiln_linalg_num_inputs(w); j < w->num_operands; j++) {
          const kiln_value *u = kiln_op_operand(w, j);
          /* the same value: cg_can_distribute compares the maps */
          if (u == v || u->type->kind != KILN_TYPE_MEMREF || cg_view_base(u) != base) continue;
          any |= view_clash(x, i, w, j, d, rt, window, clash);
        }
      }
    }
  }
  return any;
}

bool cg_output_dims(kiln_op *x, const kiln_affine_map **maps, int loops, const cg_dist *d,
                    const kiln_type *rt, const kiln_value *window, int *dim_of_loop) {
  uint32_t out = kiln_linalg_num_inputs(x);
  if (out >= x->num_operands) return false;
  /* a border fill restricts itself to each tile's share of the border */
  bool border = cg_border_fill(x, window, NULL);
  for (int l = 0; l < loops; l++) dim_of_loop[l] = -1;
  /* Under a row root, an op writing rows x columns (row_op: the root's
   * rows as its leading loops, sizes checked there) takes the root's row
   * tile and its columns whole. */
  bool wide = row_op(x, maps, d, rt);
  for (uint32_t i = out; i < x->num_operands; i++) {
    const kiln_type *t = kiln_op_operand(x, i)->type;
    if (maps[i] != maps[out] || t->kind != KILN_TYPE_MEMREF || (t->rank != d->rank && !wide))
      return false;
    for (uint32_t k = 0; k < d->rank && !wide; k++)
      if (t->shape[k] != rt->shape[k] && cg_dist_split(d, k) && !border) return false;
  }
  const kiln_affine_map *om = maps[out];
  if (!kiln_affine_map_is_projected_permutation(om) || (om->num_results != d->rank && !wide))
    return false;
  /* a row op's loop k is the root's row k, wherever its output puts it */
  for (uint32_t k = 0; k < d->rank; k++) dim_of_loop[wide ? k : (uint32_t)om->results[k]->value] = (int)k;
  return true;
}

/* Does m read (d0..dr-1), a row op's own row (row_op: its leading r
 * loops are the root's rows, whatever order its output takes)? */
static bool reads_own_row(const kiln_affine_map *m, uint32_t r) {
  if (m->num_results != r || m->num_dims < r) return false;
  for (uint32_t k = 0; k < r; k++)
    if (m->results[k]->kind != KILN_AFFINE_DIM || m->results[k]->value != (int64_t)k) return false;
  return true;
}

bool cg_dist_splits(const cg_dist *d) {
  for (uint32_t k = 0; k < d->rank; k++)
    if (cg_dist_split(d, k)) return true;
  return false;
}

bool cg_can_distribute(kiln_op *func, kiln_op *root, const cg_dist *d, const char **why) {
  kiln_block *body = cg_func_body(func);
  if (!body || body->next) return *why = "kernel body has several blocks", false;
  /* One tile covers everything: select-launch-config records zero tile
   * sizes and one workgroup, and distribute() leaves the kernel whole, so
   * ops that write other shapes (pad, insert_slice, concat) need no check. */
  if (!cg_dist_splits(d)) return true;
  const kiln_value *window = kiln_op_operand(root, kiln_linalg_num_inputs(root));
  const kiln_type *rt = window->type;
  for (kiln_op *x = body->first; x; x = x->next) {
    if (!kiln_op_has_flag(x, KILN_OPF_LINALG)) {
      if (x->num_regions) return *why = "a non-linalg op with regions", false;
      if (!kiln_op_has_flag(x, KILN_OPF_PURE) && x->kind != KILN_OP_MEMREF_ALLOCA &&
          x->kind != KILN_OP_FUNC_RETURN)
        return *why = "a side-effecting op outside linalg", false;
      continue;
    }
    const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
    bool red[KILN_MAX_LOOPS];
    int64_t bounds[KILN_MAX_LOOPS];
    int loops = cg_static_bounds(x, maps, red, bounds);
    int dim_of_loop[KILN_MAX_LOOPS];
    if (loops < 0) return *why = "an op without a static iteration space", false;
    if (!cg_output_dims(x, maps, loops, d, rt, window, dim_of_loop))
      return *why = "a fused op that does not iterate the root's output space", false;
    bool tiled[KILN_MAX_LOOPS];
    for (int l = 0; l < loops; l++) tiled[l] = dim_of_loop[l] >= 0 && cg_dist_split(d, (uint32_t)dim_of_loop[l]);
    int64_t span[KILN_MAX_LOOPS];
    cg_loop_spans(d, loops, dim_of_loop, bounds, span);
    uint32_t nin = kiln_linalg_num_inputs(x);
    for (uint32_t i = 0; i < x->num_operands; i++) {
      kiln_value *v = kiln_op_operand(x, i);
      if (v->type->kind != KILN_TYPE_MEMREF) continue;
      for (uint32_t r = 0; r < maps[i]->num_results; r++) {
        int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
        bool lin = cg_tileable_read(maps[i]->results[r], loops, span, coef, &cst);
        if (!lin) {
          for (int l = 0; l < loops; l++) coef[l] = 0;
          /* A non-linear index is fine only if it uses no tiled loop. */
          for (int l = 0; l < loops; l++)
            if (tiled[l]) return *why = "an indexing map that is not a sum of loops", false;
        }
      }
      if (i >= nin) continue;
      /* Read what an op of this kernel writes: only the same position
       * (a row op reads a per-row value at its row: its leading loops). */
      bool wide = row_op(x, maps, d, rt);
      for (kiln_op *w = body->first; w; w = w->next) {
        if (!kiln_op_has_flag(w, KILN_OPF_LINALG)) continue;
        for (uint32_t j = kiln_linalg_num_inputs(w); j < w->num_operands; j++)
          if (kiln_op_operand(w, j) == v && maps[i] != maps[nin] &&
              !(wide && v->type->rank == d->rank && reads_own_row(maps[i], d->rank)))
            return *why = "a fused op reads a value of the kernel at another position", false;
      }
    }
  }
  /* Reads through another view of a buffer the kernel writes (a window
   * over the pad a convolution writes the interior of): a tile of a dim
   * where they differ reads what other workgroups write. */
  bool clash[KILN_MAX_LOOPS];
  if (cg_view_clashes(func, d, rt, window, clash))
    for (uint32_t k = 0; k < d->rank; k++)
      if (clash[k] && cg_dist_split(d, k))
        return *why = "a fused op reads, through another view, a buffer the kernel writes at other "
                      "positions", false;
  return true;
}
