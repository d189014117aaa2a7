/* What a vectorized reduction of lower-to-loops (the convolution
 * microkernel of lower_conv.c, the generic vector path of
 * lower_to_loops.c) takes into its loops from around it, so its output
 * is written once: the linalg.fill of its output just before it (the
 * accumulators start at the fill value instead of loading it) and the
 * elementwise linalg.generic just after it that reads its output in place
 * (bias, activation, residual add: what form-dispatch-regions fuses
 * behind a convolution or a pool), whose body then runs on the
 * accumulators before the store. cpu_fused_epilogue_to also takes a
 * generic that writes another view when the op's output is dispatch-local
 * scratch (an int8 matmul's i32 sums, a quantized depthwise convolution's
 * f32 sums, that the generic requantizes to i8; of the same run-time
 * size too, a partial tile of a run-time batch): the scratch is then
 * never written.
 *
 * Takes ops on memrefs inside one block. Guarantees: a fill or generic is
 * matched only when it touches exactly the op's output view, the generic
 * iterates the output's dims (identity output map) with every other
 * input either independent of the last (vector) dim or contiguous along
 * it in its last index, and no other view of the output's memory; the
 * ops defining the generic's operands are moved before the op. The caller
 * erases what it fused. */
#include "cpu_internal.h"

#include <string.h>

/* Do a and b view the same memory the same way (the same value, or
 * equal subviews of the same source)? */
static bool same_view(kiln_value *a, kiln_value *b) {
  if (a == b) return true;
  kiln_op *x = a->def, *y = b->def;
  if (!x || !y || x->kind != KILN_OP_MEMREF_SUBVIEW || y->kind != KILN_OP_MEMREF_SUBVIEW ||
      x->num_operands != y->num_operands || x->attrs != y->attrs || a->type != b->type)
    return false;
  if (!same_view(kiln_op_operand(x, 0), kiln_op_operand(y, 0))) return false;
  for (uint32_t i = 1; i < x->num_operands; i++)
    if (kiln_op_operand(x, i) != kiln_op_operand(y, i)) return false;
  return true;
}

kiln_value *cpu_base_memref(kiln_value *v) {
  while (v->def && v->def->kind == KILN_OP_MEMREF_SUBVIEW) v = kiln_op_operand(v->def, 0);
  return v;
}

/* The structured op next to op in its block (after: the next one;
 * before: the previous one), skipping side-effect-free non-linalg ops
 * (views, constants, index arithmetic). */
static kiln_op *neighbour(kiln_op *op, bool after) {
  for (kiln_op *o = after ? op->next : op->prev; o; o = after ? o->next : o->prev) {
    if (kiln_op_has_flag(o, KILN_OPF_LINALG)) return o;
    if (!kiln_op_has_flag(o, KILN_OPF_PURE) || o->num_regions) return NULL;
  }
  return NULL;
}

kiln_op *cpu_fused_fill(kiln_op *op, kiln_value *out) {
  kiln_op *f = neighbour(op, false);
  if (!f || f->kind != KILN_OP_LINALG_FILL || f->num_operands != 2) return NULL;
  kiln_value *v = kiln_op_operand(f, 0);
  if (kiln_type_is_shaped(v->type) || v->type != out->type->elem) return NULL;
  return same_view(kiln_op_operand(f, 1), out) ? f : NULL;
}

/* Moves the ops defining v that sit between op and e (the views and
 * constants the fused generic reads, all side-effect free) before op,
 * where the fused stores will read them. */
static void hoist(kiln_value *v, kiln_op *op, kiln_op *e) {
  kiln_op *d = v->def;
  if (!d || d->parent != op->parent) return;
  bool after = false;
  for (kiln_op *o = op->next; o && o != e; o = o->next)
    if (o == d) after = true;
  if (!after) return;
  for (uint32_t i = 0; i < d->num_operands; i++) hoist(kiln_op_operand(d, i), op, e);
  kiln_op_move_before(d, op);
}

/* The region of scf.if `branch` that op lies in, or NULL. */
static kiln_region *branch_of(kiln_op *op, kiln_op *branch) {
  for (kiln_block *b = op->parent; b && b->parent; b = b->parent->parent ? b->parent->parent->parent : NULL)
    if (b->parent->parent == branch) return b->parent;
  return NULL;
}

/* Do a and b lie in different branches of one scf.if (never both run:
 * specialize-full-tiles' full and partial tile versions)? */
static bool exclusive(kiln_op *a, kiln_op *b) {
  for (kiln_block *blk = a->parent; blk && blk->parent && blk->parent->parent; blk = blk->parent->parent->parent) {
    kiln_op *p = blk->parent->parent;
    if (p->kind != KILN_OP_SCF_IF) continue;
    kiln_region *rb = branch_of(b, p);
    if (rb && rb != blk->parent) return true;
  }
  return false;
}

/* Is out a view of a memref.alloca whose every use (but in a branch
 * exclusive with op's) is a view equal to out read only by op, e or a
 * linalg.fill, or sized by memref.dim (the scratch between op and e)? */
static bool scratch(kiln_value *out, kiln_op *op, kiln_op *e) {
  kiln_value *base = cpu_base_memref(out);
  if (!base->def || base->def->kind != KILN_OP_MEMREF_ALLOCA || base == out) return false;
  for (kiln_use *u = base->uses; u; u = u->next) {
    kiln_op *sv = u->owner;
    if (exclusive(sv, op)) continue;
    if (sv->kind != KILN_OP_MEMREF_SUBVIEW || kiln_op_operand(sv, 0) != base || !same_view(kiln_op_result(sv, 0), out))
      return false;
    for (kiln_use *v = sv->results[0].uses; v; v = v->next)
      if (v->owner != op && v->owner != e && v->owner->kind != KILN_OP_LINALG_FILL &&
          v->owner->kind != KILN_OP_MEMREF_DIM) /* a size (a partial tile's rows) reads no data */
        return false;
  }
  return true;
}

/* The size operand of run-time dim d of v, a memref.subview, or NULL.
 * Two views with the same one cover the same number of elements there:
 * a partial tile of a run-time batch, in the scratch (confined to the
 * tile by tile-and-distribute) and in the output. */
static kiln_value *run_time_size(kiln_value *v, uint32_t d) {
  kiln_op *sv = v->def;
  if (!sv || sv->kind != KILN_OP_MEMREF_SUBVIEW) return NULL;
  const kiln_attr *so = kiln_op_get_attr(sv, "static_offsets"), *ss = kiln_op_get_attr(sv, "static_sizes");
  if (!so || !ss || so->kind != KILN_ATTR_DENSE_ARRAY || ss->kind != KILN_ATTR_DENSE_ARRAY || d >= ss->count ||
      ((const int64_t *)ss->data)[d] != KILN_DYNAMIC)
    return NULL;
  uint32_t k = 1 + kiln_attr_num_dynamic(so);
  for (uint32_t i = 0; i < d; i++) k += ((const int64_t *)ss->data)[i] == KILN_DYNAMIC;
  return k < sv->num_operands ? kiln_op_operand(sv, k) : NULL;
}

static bool match(kiln_op *op, kiln_value *out, cpu_epilogue *ep, bool to) {
  kiln_op *e = neighbour(op, true);
  if (!e || e->kind != KILN_OP_LINALG_GENERIC || e->num_results) return false;
  uint32_t nin = kiln_linalg_num_inputs(e);
  if (e->num_operands != nin + 1) return false;
  kiln_value *dst = kiln_op_operand(e, nin);
  if (!same_view(dst, out)) {
    const kiln_type *td = dst->type;
    if (!to || td->kind != KILN_TYPE_MEMREF || td->rank != out->type->rank || !scratch(out, op, e) ||
        cpu_base_memref(dst) == cpu_base_memref(out))
      return false;
    for (uint32_t d = 0; d < td->rank; d++)
      if (td->shape[d] != out->type->shape[d] ||
          (td->shape[d] == KILN_DYNAMIC && (!run_time_size(dst, d) || run_time_size(dst, d) != run_time_size(out, d))))
        return false;
    int64_t st[KILN_MAX_LOOPS], off;
    if (!kiln_memref_strides(td, st, &off) || st[td->rank - 1] != 1) return false;
    ep->dst = dst;
  }
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  int loops = cg_static_bounds(e, ep->maps, red, bounds);
  if (loops < 1 || loops != (int)out->type->rank || !kiln_affine_map_is_identity(ep->maps[nin]))
    return false;
  for (int l = 0; l < loops; l++)
    if (red[l]) return false;
  kiln_block *body = e->regions[0].first;
  if (!body || body->num_args != e->num_operands || kiln_value_has_uses(body->args[nin])) return false;
  int found = -1;
  for (uint32_t i = 0; i < nin; i++) {
    kiln_value *x = kiln_op_operand(e, i);
    ep->along[i] = false;
    if (x->type->kind != KILN_TYPE_MEMREF) {
      if (kiln_type_is_shaped(x->type)) return false;
      continue;
    }
    if (same_view(x, out)) {
      if (found >= 0 || !kiln_affine_map_is_identity(ep->maps[i])) return false;
      found = (int)i;
      continue;
    }
    /* Another view of the output's memory (or dst's) would be read after
     * the fused stores wrote part of it. */
    if (cpu_base_memref(x) == cpu_base_memref(out) || (ep->dst && cpu_base_memref(x) == cpu_base_memref(ep->dst)))
      return false;
    const kiln_affine_map *m = ep->maps[i];
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      if (!cg_linear_expr(m->results[r], loops, coef, &cst)) return false;
      if (!coef[loops - 1]) continue;
      /* along the vector: only in the last index, with coefficient 1
       * (a bias [M] read at block * NB + lane), unit stride */
      int64_t st[KILN_MAX_LOOPS], off;
      if (r != m->num_results - 1 || coef[loops - 1] != 1 || !kiln_memref_strides(x->type, st, &off) ||
          st[x->type->rank - 1] != 1)
        return false;
      ep->along[i] = true;
    }
  }
  if (found < 0) return false;
  for (kiln_op *o = body->first; o; o = o->next) {
    if (o->kind == KILN_OP_LINALG_YIELD) continue;
    if (o->kind == KILN_OP_LINALG_INDEX) {
      const kiln_attr *d = kiln_op_get_attr(o, "dim");
      if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= loops - 1) return false;
      continue;
    }
    if (!cpu_vector_body_op(o)) return false;
  }
  kiln_op *y = kiln_block_terminator(body);
  if (!y || y->num_operands != 1 || kiln_op_operand(y, 0)->type != (ep->dst ? ep->dst : out)->type->elem)
    return false;
  ep->op = e;
  ep->in = (uint32_t)found;
  return true;
}

static bool fused_epilogue(kiln_op *op, kiln_value *out, cpu_epilogue *ep, bool to) {
  memset(ep, 0, sizeof *ep);
  if (!match(op, out, ep, to)) {
    ep->op = NULL;
    ep->dst = NULL;
    return false;
  }
  for (uint32_t i = 0; i < ep->op->num_operands; i++) hoist(kiln_op_operand(ep->op, i), op, ep->op);
  return true;
}

bool cpu_fused_epilogue(kiln_op *op, kiln_value *out, cpu_epilogue *ep) {
  return fused_epilogue(op, out, ep, false);
}

bool cpu_fused_epilogue_to(kiln_op *op, kiln_value *out, cpu_epilogue *ep) {
  return fused_epilogue(op, out, ep, true);
}

kiln_value *cpu_apply_epilogue(kiln_builder *b, const cpu_epilogue *ep, kiln_value *const *ix,
                              kiln_value *v, const kiln_type *vt) {
  kiln_op *e = ep->op;
  uint32_t nin = kiln_linalg_num_inputs(e);
  int64_t vw = vt->shape[0];
  kiln_value *in[CG_MAX_OPERANDS], *eix[KILN_MAX_LOOPS], *out[1];
  for (uint32_t i = 0; i < e->num_operands; i++) {
    kiln_value *x = kiln_op_operand(e, i);
    in[i] = NULL;
    if (i >= nin) continue;
    if (i == ep->in) {
      in[i] = v;
    } else if (ep->zeroed[i]) {
      const kiln_type *zt = kiln_type_vector(b->ctx, 1, &vw, x->type->elem);
      in[i] = kiln_build_constant(b, kiln_attr_dense_splat_int(b->ctx, zt, 0));
    } else if (x->type->kind != KILN_TYPE_MEMREF) {
      in[i] = x;
    } else {
      /* The generic's loop ivs are the output indices (identity map). */
      uint32_t n = ep->maps[i]->num_results;
      for (uint32_t r = 0; r < n; r++) eix[r] = cg_affine_value(b, ep->maps[i]->results[r], ix);
      in[i] = ep->along[i] ? cg_vload(b, kiln_type_vector(b->ctx, 1, &vw, x->type->elem), x, n, eix)
                           : cg_load(b, x, n, eix);
    }
  }
  if (!cpu_emit_body_vector(b, e, in, ix, vw, out)) return v;
  if (out[0]->type->kind == KILN_TYPE_VECTOR) return out[0];
  /* a result that does not depend on v: a vector of its own type */
  return cg_broadcast(b, out[0], out[0]->type == vt->elem ? vt : kiln_type_vector(b->ctx, 1, &vw, out[0]->type));
}
