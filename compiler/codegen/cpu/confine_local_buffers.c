/* confine-local-buffers: a kernel-local buffer of static shape (a
 * memref.alloca at the kernel's top level) that every op reaches only
 * through views lying at the workgroup's tile offsets becomes a buffer of
 * the tile's extent.
 *
 * Takes kernels after tile-and-distribute. A kernel that computes a
 * value another op of it reads in windows keeps that value in such a
 * buffer: an expand 1x1 convolution whose output, padded, a depthwise
 * convolution reads (form-dispatch-regions' window pairs); the launch
 * rule then splits only the dims where the windows agree (the channels),
 * so each workgroup touches one channel tile of a buffer as large as the
 * whole padded map. Guarantees: where, along a dim, every access (a
 * view, memref.subview chains of unit strides, used by an op other than
 * a subview) is at offset v + c with one run-time value v (the tile
 * offset) for all of them, constants c and sizes with a static bound (an
 * edge tile's min(tile, rest)), the buffer
 * keeps along that dim only the span of those accesses and each view is
 * rebuilt on the new buffer at c - min(c): same values, since the map x
 * -> x - v - min(c) is one-to-one on what the kernel touches. Other dims
 * and other buffers are left as they are. The stack a workgroup needs
 * shrinks by the number of tiles along the confined dims (a 58x58x96
 * buffer read in tiles of 48 channels keeps 58x58x48). */
#include "cpu_internal.h"

#define CF_MAX_VIEWS 64

/* One access to the buffer: a view whose composed offsets (per dim, a
 * run-time value or NULL plus a constant) and sizes (a value where
 * run-time) are known. */
typedef struct cf_view {
  kiln_value *v;
  kiln_value *dyn[KILN_MAX_LOOPS];
  int64_t c[KILN_MAX_LOOPS];
  int64_t size[KILN_MAX_LOOPS]; /* KILN_DYNAMIC where run-time */
  kiln_value *dsize[KILN_MAX_LOOPS];
} cf_view;

typedef struct cf {
  cf_view views[CF_MAX_VIEWS];
  uint32_t n;
} cf;

/* Static upper bound of a view's run-time size: the edge tile's
 * min(tile, rest) (tile-and-distribute); -1 when none. */
static int64_t size_bound(const kiln_value *v) {
  int64_t c;
  if (!v->def || v->def->kind != KILN_OP_ARITH_MINSI) return -1;
  for (uint32_t i = 0; i < 2; i++)
    if (cg_const_int(kiln_op_operand(v->def, i), &c) && c >= 0) return c;
  return -1;
}

/* Entry k of a subview's static list a, its dynamic operand from *next
 * on where it is run-time. */
static kiln_value *entry(const kiln_op *sv, const kiln_attr *a, uint32_t k, uint32_t *next, int64_t *st) {
  *st = ((const int64_t *)a->data)[k];
  if (*st != KILN_DYNAMIC) return NULL;
  return *next < sv->num_operands ? kiln_op_operand(sv, (*next)++) : NULL;
}

/* Walks the views of v (offsets so far in base): records those used by
 * other ops; false where some use is not understood. */
static bool collect(cf *f, kiln_value *v, const cf_view *base, uint32_t rank) {
  bool leaf = false;
  for (kiln_use *u = v->uses; u; u = u->next) {
    kiln_op *o = u->owner;
    if (o->kind != KILN_OP_MEMREF_SUBVIEW) {
      /* memref.dim would need the old size; anything else reads or
       * writes through this view */
      if (o->kind == KILN_OP_MEMREF_DIM) return false;
      leaf = true;
      continue;
    }
    const kiln_attr *so = kiln_op_get_attr(o, "static_offsets"), *ss = kiln_op_get_attr(o, "static_sizes"),
                    *sr = kiln_op_get_attr(o, "static_strides");
    if (u->index != 0 || !so || !ss || !sr || so->kind != KILN_ATTR_DENSE_ARRAY ||
        ss->kind != KILN_ATTR_DENSE_ARRAY || sr->kind != KILN_ATTR_DENSE_ARRAY || so->count != rank ||
        ss->count != rank || sr->count != rank || o->results[0].type->rank != rank)
      return false;
    cf_view nv = *base;
    nv.v = kiln_op_result(o, 0);
    uint32_t next = 1;
    for (uint32_t k = 0; k < rank; k++) {
      int64_t st;
      kiln_value *d = entry(o, so, k, &next, &st);
      if (((const int64_t *)sr->data)[k] != 1) return false;
      if (st == KILN_DYNAMIC) {
        if (!d || nv.dyn[k]) return false; /* one run-time term a dim */
        nv.dyn[k] = d;
      } else {
        nv.c[k] += st;
      }
    }
    for (uint32_t k = 0; k < rank; k++) {
      int64_t st;
      kiln_value *d = entry(o, ss, k, &next, &st);
      if (st == KILN_DYNAMIC && !d) return false;
      nv.size[k] = st;
      nv.dsize[k] = d;
    }
    if (!collect(f, nv.v, &nv, rank)) return false;
  }
  if (leaf) {
    if (f->n == CF_MAX_VIEWS) return false;
    f->views[f->n] = *base;
    f->views[f->n].v = v;
    f->n++;
  }
  return true;
}

static bool confine(kiln_op *al) {
  const kiln_type *t = al->results[0].type;
  uint32_t rank = t->rank;
  if (rank == 0 || rank > KILN_MAX_LOOPS || al->num_operands || !kiln_type_has_static_shape(t)) return false;
  static cf f; /* large: kept off the compiler's stack; passes run on one thread */
  f.n = 0;
  cf_view root;
  root.v = kiln_op_result(al, 0);
  for (uint32_t k = 0; k < rank; k++)
    root.dyn[k] = NULL, root.c[k] = 0, root.size[k] = t->shape[k], root.dsize[k] = NULL;
  if (!collect(&f, root.v, &root, rank) || f.n == 0) return false;
  int64_t lo[KILN_MAX_LOOPS], shape[KILN_MAX_LOOPS];
  bool shrink[KILN_MAX_LOOPS], any = false;
  for (uint32_t k = 0; k < rank; k++) {
    kiln_value *v = f.views[0].dyn[k];
    int64_t mn = INT64_MAX, mx = INT64_MIN;
    shrink[k] = v != NULL;
    for (uint32_t i = 0; i < f.n && shrink[k]; i++) {
      const cf_view *w = &f.views[i];
      int64_t sz = w->size[k] == KILN_DYNAMIC ? size_bound(w->dsize[k]) : w->size[k];
      if (w->dyn[k] != v || sz < 0) shrink[k] = false;
      else {
        if (w->c[k] < mn) mn = w->c[k];
        if (w->c[k] + sz > mx) mx = w->c[k] + sz;
      }
    }
    if (shrink[k] && mx - mn < t->shape[k]) {
      lo[k] = mn, shape[k] = mx - mn, any = true;
    } else {
      shrink[k] = false, shape[k] = t->shape[k];
    }
  }
  if (!any) return false;
  kiln_context *c = kiln_op_context(al);
  kiln_builder b = kiln_builder_before(al);
  b.loc = al->loc;
  const kiln_type *nt = kiln_type_memref(c, rank, shape, t->elem, NULL, t->memspace);
  kiln_value *nal = kiln_op_result(kiln_build(&b, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &nt, al->attrs), 0);
  for (uint32_t i = 0; i < f.n; i++) {
    const cf_view *w = &f.views[i];
    kiln_op *def = w->v->def;
    kiln_builder vb = kiln_builder_before(def);
    vb.loc = def->loc;
    kiln_value *off[KILN_MAX_LOOPS], *size[KILN_MAX_LOOPS];
    for (uint32_t k = 0; k < rank; k++) {
      if (shrink[k]) off[k] = cg_index(&vb, w->c[k] - lo[k]);
      else if (!w->dyn[k]) off[k] = cg_index(&vb, w->c[k]);
      else off[k] = w->c[k] ? cg_bin(&vb, KILN_OP_ARITH_ADDI, w->dyn[k], cg_index(&vb, w->c[k])) : w->dyn[k];
      size[k] = w->size[k] == KILN_DYNAMIC ? w->dsize[k] : cg_index(&vb, w->size[k]);
    }
    kiln_value *nv = cg_subview(&vb, nal, off, size);
    /* the ops reading or writing through the view move to the new one;
     * its subviews are views of their own (rebuilt or dead) */
    for (kiln_use *u = w->v->uses, *nu; u; u = nu) {
      nu = u->next;
      if (u->owner->kind != KILN_OP_MEMREF_SUBVIEW) kiln_op_set_operand(u->owner, u->index, nv);
    }
  }
  return true;
}

static kiln_error *run(cg_kernel *k, void *user) {
  (void)user;
  kiln_block *body = cg_func_body(k->func);
  kiln_op *old[CF_MAX_VIEWS];
  uint32_t n = 0;
  for (kiln_op *x = body ? body->first : NULL, *nx; x; x = nx) {
    nx = x->next;
    if (x->kind == KILN_OP_MEMREF_ALLOCA && n < CF_MAX_VIEWS && confine(x)) old[n++] = x;
  }
  if (!n) return NULL;
  /* the old views are dead now; then the old buffers (DCE keeps allocas) */
  kiln_pass_dce(k->func, NULL);
  for (uint32_t i = 0; i < n; i++)
    if (!old[i]->results[0].uses) kiln_op_erase(old[i]);
  return NULL;
}

kiln_error *kiln_codegen_cpu_confine_local_buffers(kiln_op *module, void *user) {
  (void)user;
  return cg_for_each_kernel(module, run, NULL);
}
