/* Which input binding a kernel's result may overwrite (hl_inplace_input),
 * the fact behind plan-memory's in-place results.
 *
 * Takes a kernel in memref form (after bufferize-kernels). Guarantees:
 * input binding i is returned for result binding o only when, with both
 * bound to the same bytes, the kernel computes what it computes with them
 * apart: i and o have the same type and run-time dims (same bytes at the
 * same positions); i is read by one elementwise structured op alone (no
 * reduction loop, one output, the output's old value unread), through
 * itself or a unit-stride subview at static offsets, at exactly the
 * position that op writes in o (equal index maps once the subviews'
 * offsets are added, each result one loop plus a constant, every loop
 * once), so every element is read by the iteration that overwrites it
 * and by no other; that op runs once (at the top of a one-block kernel,
 * not in a loop); o is written by that op and otherwise only by
 * linalg.fill of boxes disjoint from the box that op writes (a padded
 * result's border, which i holds but that op does not read), disjoint
 * along a dim where a static size proves it; nothing else uses i or o
 * (memref.dim aside), nested regions included. Anything else gives -1.
 * Order across workgroups does not matter: each element is read and
 * written by one iteration, and the fills touch no element that op
 * reads. */
#include "hl_internal.h"

#include <string.h>

/* A use of a binding: the value the structured op or fill takes, and its
 * static offsets into the binding (all zero for the binding itself). */
typedef struct view {
  kiln_value *v;
  int64_t off[KILN_MAX_LOOPS];
} view;

/* v is the binding b itself or a rank-preserving, unit-stride subview of
 * it at static offsets (its sizes may be run-time values); its offsets go
 * to w. */
static bool static_view(kiln_value *b, kiln_value *v, view *w) {
  const uint32_t rank = b->type->rank;
  w->v = v;
  memset(w->off, 0, sizeof w->off);
  if (v == b) return true;
  kiln_op *s = v->def;
  if (!s || s->kind != KILN_OP_MEMREF_SUBVIEW || kiln_op_operand(s, 0) != b || v->type->rank != rank) return false;
  const kiln_attr *off = kiln_op_get_attr(s, "static_offsets"), *st = kiln_op_get_attr(s, "static_strides");
  const kiln_attr *sz = kiln_op_get_attr(s, "static_sizes");
  if (!off || !st || !sz || off->kind != KILN_ATTR_DENSE_ARRAY || st->kind != KILN_ATTR_DENSE_ARRAY ||
      sz->kind != KILN_ATTR_DENSE_ARRAY || off->count != rank || st->count != rank || sz->count != rank)
    return false;
  uint32_t dyn = 0;
  for (uint32_t d = 0; d < rank; d++) {
    int64_t o = ((const int64_t *)off->data)[d];
    if (o == KILN_DYNAMIC || o < 0 || ((const int64_t *)st->data)[d] != 1) return false;
    w->off[d] = o;
    dyn += ((const int64_t *)sz->data)[d] == KILN_DYNAMIC;
  }
  return s->num_operands == 1 + dyn; /* the other operands are sizes */
}

/* Result d of map m as loop *loop plus *c; false for any other form. */
static bool loop_plus_const(const kiln_affine_map *m, uint32_t d, uint32_t *loop, int64_t *c) {
  const kiln_affine_expr *e = m->results[d];
  *c = 0;
  if (e->kind == KILN_AFFINE_ADD && e->rhs->kind == KILN_AFFINE_CONST) *c = e->rhs->value, e = e->lhs;
  if (e->kind != KILN_AFFINE_DIM) return false;
  *loop = (uint32_t)e->value;
  return true;
}

/* Does fill box [f, f + fsize) miss box [g, g + gsize) in some dim? A
 * run-time size (KILN_DYNAMIC) proves nothing on its side. */
static bool disjoint(uint32_t rank, const int64_t *f, const int64_t *fsize, const int64_t *g, const int64_t *gsize) {
  for (uint32_t d = 0; d < rank; d++)
    if ((fsize[d] != KILN_DYNAMIC && f[d] + fsize[d] <= g[d]) || (gsize[d] != KILN_DYNAMIC && g[d] + gsize[d] <= f[d]))
      return true;
  return false;
}

/* The one hal.interface.binding of number n in kernel (NULL if none or
 * several). */
typedef struct find {
  int64_t n;
  kiln_value *v;
  uint32_t count;
} find;

static kiln_walk_result find_one(kiln_op *o, void *user) {
  find *f = user;
  if (o->kind != KILN_OP_HAL_INTERFACE_BINDING) return KILN_WALK_ADVANCE;
  const kiln_attr *a = kiln_op_get_attr(o, "binding");
  if (a && a->kind == KILN_ATTR_INTEGER && a->i == f->n) f->v = kiln_op_result(o, 0), f->count++;
  return KILN_WALK_ADVANCE;
}

static kiln_value *binding(kiln_op *kernel, int64_t n) {
  find f = {n, NULL, 0};
  kiln_walk_pre(kernel, find_one, &f);
  return f.count == 1 ? f.v : NULL;
}

/* Do bindings a and b have one type and the same run-time dims (the same
 * values: two different values may differ)? */
static bool same_extent(kiln_value *a, kiln_value *b) {
  if (a->type != b->type || a->def->num_operands != b->def->num_operands) return false;
  for (uint32_t i = 0; i < a->def->num_operands; i++)
    if (kiln_op_operand(a->def, i) != kiln_op_operand(b->def, i)) return false;
  return true;
}

/* The ops that use binding b, each through b itself or one of its
 * subviews: at most HL_LEAVES, each with the value it takes and its
 * operand number (memref.dim, which reads no element, aside). False when
 * b or a subview of it has another user that is not a structured op (a
 * copy, a cast, a load in a body), or too many. */
#define HL_LEAVES 32
typedef struct leaf {
  kiln_op *op;
  kiln_value *v;
  uint32_t index;
} leaf;

static bool leaves(kiln_value *b, leaf *out, uint32_t *n) {
  *n = 0;
  for (kiln_use *u = b->uses; u; u = u->next) {
    kiln_op *o = u->owner;
    bool sub = o->kind == KILN_OP_MEMREF_SUBVIEW && u->index == 0;
    for (kiln_use *w = sub ? o->results[0].uses : u; w; w = sub ? w->next : NULL) {
      if (w->owner->kind == KILN_OP_MEMREF_DIM && w->index == 0) continue;
      if (!kiln_op_has_flag(w->owner, KILN_OPF_LINALG) || *n == HL_LEAVES) return false;
      out[(*n)++] = (leaf){w->owner, sub ? &o->results[0] : b, w->index};
    }
  }
  return true;
}

int hl_inplace_input(kiln_op *kernel, uint32_t out_binding, uint32_t num_inputs) {
  kiln_value *o = binding(kernel, out_binding);
  leaf lo[HL_LEAVES], li[HL_LEAVES];
  uint32_t no, ni;
  if (!o || o->type->kind != KILN_TYPE_MEMREF || o->type->layout ||
      o->type->rank > KILN_MAX_LOOPS || !leaves(o, lo, &no))
    return -1;
  const uint32_t rank = o->type->rank;
  /* the one structured op writing o other than fills, o its only output */
  kiln_op *g = NULL;
  view gout;
  for (uint32_t k = 0; k < no; k++) {
    kiln_op *x = lo[k].op;
    if (x->kind == KILN_OP_LINALG_FILL) continue;
    if (g || kiln_linalg_num_outputs(x) != 1 || lo[k].index != kiln_linalg_num_inputs(x) ||
        !static_view(o, lo[k].v, &gout))
      return -1;
    g = x;
  }
  /* g runs once: at the top of a one-block kernel, not in a loop that
   * would read what its previous trip wrote */
  kiln_block *top = kernel->num_regions ? kernel->regions[0].first : NULL;
  if (!g || !top || top->next || g->parent != top || hl_init_read(g, 0) || g->num_operands > KILN_MAX_LOOPS + 1)
    return -1;
  const uint32_t nin = kiln_linalg_num_inputs(g);
  const kiln_affine_map *maps[KILN_MAX_LOOPS + 2];
  bool red[KILN_MAX_LOOPS];
  int loops = kiln_linalg_iteration(g, maps, red);
  if (loops < 0 || (uint32_t)loops != rank) return -1;
  for (int l = 0; l < loops; l++)
    if (red[l]) return -1;
  /* the output's positions: every loop once, plus constants */
  const kiln_affine_map *om = maps[nin];
  uint32_t oloop[KILN_MAX_LOOPS];
  int64_t opos[KILN_MAX_LOOPS];
  bool seen[KILN_MAX_LOOPS] = {false};
  if (om->num_results != rank || om->num_symbols) return -1;
  for (uint32_t d = 0; d < rank; d++) {
    int64_t c;
    if (!loop_plus_const(om, d, &oloop[d], &c) || oloop[d] >= rank || seen[oloop[d]]) return -1;
    seen[oloop[d]] = true;
    opos[d] = c + gout.off[d];
  }
  /* fills of o stay clear of the box g writes (within its output view) */
  for (uint32_t k = 0; k < no; k++) {
    view f;
    if (lo[k].op->kind == KILN_OP_LINALG_FILL &&
        (!static_view(o, lo[k].v, &f) || !disjoint(rank, f.off, lo[k].v->type->shape, gout.off, gout.v->type->shape)))
      return -1;
  }
  /* an input binding only g reads, once, at the positions g writes */
  for (uint32_t i = 0; i < num_inputs; i++) {
    kiln_value *b = binding(kernel, i);
    view in;
    if (!b || !same_extent(b, o) || !leaves(b, li, &ni) || ni != 1 || li[0].op != g || li[0].index >= nin ||
        !static_view(b, li[0].v, &in))
      continue;
    const kiln_affine_map *im = maps[li[0].index];
    bool ok = im->num_results == rank && !im->num_symbols;
    for (uint32_t d = 0; d < rank && ok; d++) {
      uint32_t l;
      int64_t c;
      ok = loop_plus_const(im, d, &l, &c) && l == oloop[d] && c + in.off[d] == opos[d];
    }
    if (ok) return (int)i;
  }
  return -1;
}
