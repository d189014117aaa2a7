/* deduplicate-executables: executables equal up to their names become one.
 *
 * Takes: a module after outline-dispatches (flow.executable ops, host
 * flow.dispatch ops naming them by entry_point = @exe::@fn).
 * Guarantees: no two flow.executable ops are structurally equal, where
 * equal means the same ops in the same order with the same attributes,
 * types, operand wiring, blocks and successors, sym_name aside and source
 * locations ignored. Of each class of equal executables the first in
 * module order stays, with its name; every flow.dispatch of a later one
 * now names the first, and the later ones are erased. Dispatch sites keep
 * everything else (their own location, workload, operands), so repeated
 * layers (ResNet blocks, encoder layers) compile one kernel each.
 * Then a second round: executables equal but for their read offsets (the
 * static offsets of slices that generics read, the constant terms of
 * generics' input maps) in classes of at least four (the steps of an
 * unrolled loop: a recurrent net's cells) become the first of them, whose
 * kernel takes each offset that differs as a push constant (a trailing
 * index argument; an input read through a map with such constants reads
 * a slice at them instead); each dispatch appends its values as host
 * index constants. A class whose differing offsets are not all of that
 * kind, would read out of bounds, or needs more than 16 push constants
 * stays apart. So a sequence of 200 steps compiles one cell kernel, not
 * 200. The result depends only on the IR, never on pointer values. */
#include "fl_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- structural hash: equal executables hash alike ------------------- */

static uint64_t fl_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

/* Loose comparison (the second round) lets the read offsets differ: the
 * static offsets of a tensor.extract_slice and the constant terms of a
 * linalg.generic's indexing maps (fold-views puts a slice's offsets
 * there). */
static bool fl_loose_attr(const kiln_op *op, const char *name) {
  return (op->kind == KILN_OP_TENSOR_EXTRACT_SLICE && strcmp(name, "static_offsets") == 0) ||
         (op->kind == KILN_OP_LINALG_GENERIC && strcmp(name, "indexing_maps") == 0);
}

/* Attributes other than sym_name (interned: the pointer is the content
 * within one context); loose: nor the read offsets. */
static uint64_t fl_hash_attrs(const kiln_op *op, bool loose) {
  const kiln_attr *d = op->attrs;
  uint64_t h = d->count;
  for (uint32_t i = 0; i < d->count; i++) {
    if (strcmp(d->entries[i].name, "sym_name") == 0) continue;
    if (loose && fl_loose_attr(op, d->entries[i].name)) continue;
    h = fl_mix(h, d->entries[i].value->hash);
  }
  return h;
}

static uint64_t fl_hash_op(const kiln_op *op, bool loose) {
  uint64_t h = fl_mix(op->kind, op->num_operands);
  h = fl_mix(h, op->num_results);
  h = fl_mix(h, fl_hash_attrs(op, loose));
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const kiln_block *b = op->regions[r].first; b; b = b->next) {
      h = fl_mix(h, b->num_args);
      for (const kiln_op *o = b->first; o; o = o->next) h = fl_mix(h, fl_hash_op(o, loose));
    }
  return h;
}

/* e as sum(coef[d] * d) + *cst (scaled by `scale`); false when it is not
 * linear in the dims. */
static bool fl_linear(const kiln_affine_expr *e, int64_t scale, int64_t *coef, uint32_t nd, int64_t *cst) {
  switch (e->kind) {
  case KILN_AFFINE_DIM:
    if (e->value < 0 || (uint64_t)e->value >= nd) return false;
    coef[e->value] += scale;
    return true;
  case KILN_AFFINE_CONST: *cst += scale * e->value; return true;
  case KILN_AFFINE_ADD: return fl_linear(e->lhs, scale, coef, nd, cst) && fl_linear(e->rhs, scale, coef, nd, cst);
  case KILN_AFFINE_MUL:
    if (e->rhs->kind == KILN_AFFINE_CONST) return fl_linear(e->lhs, scale * e->rhs->value, coef, nd, cst);
    if (e->lhs->kind == KILN_AFFINE_CONST) return fl_linear(e->rhs, scale * e->lhs->value, coef, nd, cst);
    return false;
  default: return false;
  }
}

/* Result r of m as coef (KILN_MAX_LOOPS entries) and a constant. */
static bool fl_map_linear(const kiln_affine_map *m, uint32_t r, int64_t *coef, int64_t *cst) {
  memset(coef, 0, KILN_MAX_LOOPS * sizeof *coef);
  *cst = 0;
  return m->num_dims <= KILN_MAX_LOOPS && !m->num_symbols && fl_linear(m->results[r], 1, coef, m->num_dims, cst);
}

/* Maps equal up to the constant term of each result. */
static bool fl_maps_alike(const kiln_affine_map *a, const kiln_affine_map *b) {
  if (a == b) return true;
  if (a->num_dims != b->num_dims || a->num_results != b->num_results) return false;
  for (uint32_t r = 0; r < a->num_results; r++) {
    int64_t ca[KILN_MAX_LOOPS], cb[KILN_MAX_LOOPS], ka, kb;
    if (!fl_map_linear(a, r, ca, &ka) || !fl_map_linear(b, r, cb, &kb) || memcmp(ca, cb, sizeof ca)) return false;
  }
  return true;
}

static bool fl_loose_alike(const kiln_op *op, const kiln_attr *x, const kiln_attr *y) {
  if (op->kind == KILN_OP_TENSOR_EXTRACT_SLICE) {
    if (x->kind != KILN_ATTR_DENSE_ARRAY || y->kind != KILN_ATTR_DENSE_ARRAY || x->count != y->count) return false;
    const int64_t *p = x->data, *q = y->data;
    for (uint32_t i = 0; i < x->count; i++)
      if ((p[i] == KILN_DYNAMIC) != (q[i] == KILN_DYNAMIC)) return false;
    return true;
  }
  if (x->kind != KILN_ATTR_ARRAY || y->kind != KILN_ATTR_ARRAY || x->count != y->count) return false;
  for (uint32_t i = 0; i < x->count; i++) {
    const kiln_attr *p = x->elems[i], *q = y->elems[i];
    if (p->kind != KILN_ATTR_AFFINE_MAP || q->kind != KILN_ATTR_AFFINE_MAP || !fl_maps_alike(p->map, q->map))
      return false;
  }
  return true;
}

/* ---- structural equality --------------------------------------------- */

static bool fl_same_attrs(const kiln_op *a, const kiln_op *b, bool loose) {
  if (a->attrs == b->attrs) return true;
  const kiln_attr *x = a->attrs, *y = b->attrs;
  if (x->count != y->count) return false;
  for (uint32_t i = 0; i < x->count; i++) {
    /* dicts are sorted by name and names are interned */
    if (x->entries[i].name != y->entries[i].name) return false;
    if (strcmp(x->entries[i].name, "sym_name") == 0) continue;
    if (x->entries[i].value == y->entries[i].value) continue;
    if (!loose || !fl_loose_attr(a, x->entries[i].name) ||
        !fl_loose_alike(a, x->entries[i].value, y->entries[i].value))
      return false;
  }
  return true;
}

static int fl_block_index(const kiln_block *b) {
  int i = 0;
  for (const kiln_block *x = b->parent->first; x && x != b; x = x->next) i++;
  return i;
}

/* a and b equal, with map taking a's values defined so far to b's. */
static bool fl_same_op(kiln_context *ctx, const kiln_op *a, const kiln_op *b,
                       kiln_value_map *map, bool loose) {
  if (a->kind != b->kind || a->name != b->name || a->num_operands != b->num_operands ||
      a->num_results != b->num_results || a->num_regions != b->num_regions ||
      a->num_successors != b->num_successors || !fl_same_attrs(a, b, loose))
    return false;
  for (uint32_t i = 0; i < a->num_operands; i++) {
    kiln_value *va = kiln_op_operand(a, i), *vb = kiln_op_operand(b, i);
    kiln_value *m = va ? kiln_value_map_lookup(map, va) : NULL;
    /* An operand defined outside the executable would be the same value
     * in both; executables are isolated, so none is. */
    if (m ? m != vb : va != vb) return false;
  }
  for (uint32_t i = 0; i < a->num_successors; i++)
    if (fl_block_index(a->successors[i]) != fl_block_index(b->successors[i])) return false;
  for (uint32_t i = 0; i < a->num_results; i++) {
    if (a->results[i].type != b->results[i].type) return false;
    kiln_value_map_add(ctx, map, (kiln_value *)&a->results[i], (kiln_value *)&b->results[i]);
  }
  for (uint32_t r = 0; r < a->num_regions; r++) {
    /* Block arguments first: a successor or a later block may use them. */
    const kiln_block *x = a->regions[r].first, *y = b->regions[r].first;
    for (; x && y; x = x->next, y = y->next) {
      if (x->num_args != y->num_args) return false;
      for (uint32_t i = 0; i < x->num_args; i++) {
        if (x->args[i]->type != y->args[i]->type) return false;
        kiln_value_map_add(ctx, map, x->args[i], y->args[i]);
      }
    }
    if (x || y) return false;
    for (x = a->regions[r].first, y = b->regions[r].first; x; x = x->next, y = y->next) {
      const kiln_op *p = x->first, *q = y->first;
      for (; p && q; p = p->next, q = q->next)
        if (!fl_same_op(ctx, p, q, map, loose)) return false;
      if (p || q) return false;
    }
  }
  return true;
}

/* ---- the pass ---------------------------------------------------------- */

typedef struct fl_exe {
  kiln_op *op;
  uint64_t hash;
  kiln_op *keep;   /* the executable it merges into, or NULL */
  uint32_t lead;   /* round 2: index of its class's first member */
  uint32_t member; /* round 2: its position in that class */
  uint32_t nparam; /* round 2: push constants its dispatches append */
  int64_t *param;  /* their values (arena) */
} fl_exe;

static const char *fl_entry_root(const kiln_op *dispatch) {
  const kiln_attr *e = kiln_op_get_attr(dispatch, "entry_point");
  return e && e->kind == KILN_ATTR_SYMBOL_REF ? e->str : NULL;
}

typedef struct fl_redirect {
  fl_exe *exes;
  uint32_t n;
} fl_redirect;

/* A dispatch of a merged executable names the kept one and appends the
 * push constants that stand for its read offsets (after the host values
 * it passes already, so result_dims and workload_dims keep their
 * positions). */
static kiln_walk_result fl_redirect_dispatch(kiln_op *op, void *user) {
  if (op->kind != KILN_OP_FLOW_DISPATCH) return KILN_WALK_ADVANCE;
  const fl_redirect *r = user;
  const char *root = fl_entry_root(op);
  kiln_context *ctx = kiln_op_context(op);
  for (uint32_t i = 0; root && i < r->n; i++) {
    const fl_exe *x = &r->exes[i];
    if ((!x->keep && !x->nparam) || strcmp(kiln_symbol_name(x->op), root) != 0) continue;
    if (x->nparam) {
      kiln_value **ops = kiln_alloc(ctx, (op->num_operands + x->nparam) * sizeof *ops);
      for (uint32_t k = 0; k < op->num_operands; k++) ops[k] = kiln_op_operand(op, k);
      kiln_builder b = kiln_builder_before(op);
      for (uint32_t k = 0; k < x->nparam; k++)
        ops[op->num_operands + k] = kiln_build_constant(&b, kiln_attr_int(ctx, kiln_type_index(ctx), x->param[k]));
      kiln_op_set_operands(op, op->num_operands + x->nparam, ops);
    }
    if (!x->keep) break;
    const kiln_attr *e = kiln_op_get_attr(op, "entry_point");
    const char *keep = kiln_symbol_name(x->keep);
    /* @exe::@fn: the kernel is named after its executable, so the kept
     * executable's kernel has the kept name (nested refs follow it). */
    const char **nested = kiln_alloc(ctx, (e->count + 1) * sizeof *nested);
    for (uint32_t k = 0; k < e->count; k++) {
      const char *s = e->elems[k]->str;
      nested[k] = strcmp(s, root) == 0 ? keep : s;
    }
    kiln_op_set_attr(op, "entry_point", kiln_attr_symbol_ref(ctx, keep, e->count, nested));
    break;
  }
  return KILN_WALK_ADVANCE;
}

/* ---- round 2: one kernel for the steps of an unrolled loop ------------- */

/* A class needs this many members: an unrolled loop's steps (a recurrent
 * net's cells) read the same windows of their inputs at other offsets;
 * for two or three copies (a channel split's halves) static offsets are
 * worth more than the code they would save. */
#define FL_MIN_COPIES 4
#define FL_MAX_PARAMS 16

typedef struct fl_class {
  kiln_context *ctx;
  uint32_t m;           /* members */
  kiln_op ***ops;       /* ops[k]: member k's ops in pre-order */
  size_t nops;
  uint32_t np;
  int64_t *v;           /* v[p * m + k]: push constant p's value in member k */
  int64_t *vals;        /* scratch: one offset's value in each member */
  kiln_value *arg[FL_MAX_PARAMS]; /* apply: the kernel's argument of each */
  kiln_block *kb;       /* apply: the kept kernel's entry block */
} fl_class;

/* The push constant whose values across the members are vals (new when
 * none is), or -1 past FL_MAX_PARAMS. */
static int fl_param(fl_class *c, const int64_t *vals, bool apply) {
  for (uint32_t p = 0; p < c->np; p++)
    if (!memcmp(c->v + (size_t)p * c->m, vals, c->m * sizeof *vals)) return (int)p;
  if (c->np == FL_MAX_PARAMS) return -1;
  memcpy(c->v + (size_t)c->np * c->m, vals, c->m * sizeof *vals);
  if (apply) c->arg[c->np] = kiln_block_add_arg(c->ctx, c->kb, kiln_type_index(c->ctx), c->kb->args[0]->loc);
  return (int)c->np++;
}

static bool fl_differ(const int64_t *vals, uint32_t m) {
  for (uint32_t k = 1; k < m; k++)
    if (vals[k] != vals[0]) return true;
  return false;
}

/* Slice i: its offsets that differ become push constants. Only a slice
 * that generics alone read (named ops' fast paths may want static
 * windows). */
static bool fl_param_slice(fl_class *c, size_t i, bool apply) {
  kiln_op *op = c->ops[0][i];
  for (const kiln_use *u = op->results[0].uses; u; u = u->next)
    if (u->owner->kind != KILN_OP_LINALG_GENERIC || u->index >= kiln_linalg_num_inputs(u->owner)) return false;
  const kiln_attr *so = kiln_op_get_attr(op, "static_offsets");
  const kiln_attr *seg = kiln_op_get_attr(op, "operandSegmentSizes");
  if (!so || so->kind != KILN_ATTR_DENSE_ARRAY || !seg || seg->kind != KILN_ATTR_DENSE_ARRAY || seg->count != 4)
    return false;
  uint32_t n = so->count;
  int64_t off[KILN_MAX_LOOPS], *vals = c->vals;
  if (n > KILN_MAX_LOOPS) return false;
  int pidx[KILN_MAX_LOOPS];
  bool any = false;
  for (uint32_t e = 0; e < n; e++) {
    off[e] = ((const int64_t *)so->data)[e];
    pidx[e] = -1;
    if (off[e] == KILN_DYNAMIC) continue;
    for (uint32_t k = 0; k < c->m; k++) vals[k] = ((const int64_t *)kiln_op_get_attr(c->ops[k][i], "static_offsets")->data)[e];
    if (!fl_differ(vals, c->m)) continue;
    if ((pidx[e] = fl_param(c, vals, apply)) < 0) return false;
    any = true;
  }
  if (!apply || !any) return true;
  int64_t sg[4];
  memcpy(sg, seg->data, sizeof sg);
  kiln_value **ops = kiln_alloc(c->ctx, (op->num_operands + n) * sizeof *ops);
  uint32_t k = 0, src = 0;
  ops[k++] = kiln_op_operand(op, src++);
  for (uint32_t e = 0; e < n; e++) {
    if (off[e] == KILN_DYNAMIC) ops[k++] = kiln_op_operand(op, src++);
    else if (pidx[e] >= 0) ops[k++] = c->arg[pidx[e]], off[e] = KILN_DYNAMIC, sg[1]++;
  }
  while (src < op->num_operands) ops[k++] = kiln_op_operand(op, src++);
  kiln_op_set_operands(op, k, ops);
  kiln_op_set_attr(op, "static_offsets", kiln_attr_dense_i64_array(c->ctx, n, off));
  kiln_op_set_attr(op, "operandSegmentSizes", kiln_attr_dense_array(c->ctx, kiln_type_int(c->ctx, 32), 4, sg, NULL));
  return true;
}

/* Generic i: an input whose map's constant terms differ reads a slice of
 * it instead, at those constants (push constants where they differ),
 * through the map without them. */
static bool fl_param_generic(fl_class *c, size_t i, bool apply) {
  kiln_op *op = c->ops[0][i];
  const kiln_attr *im = kiln_op_get_attr(op, "indexing_maps");
  uint32_t nin = kiln_linalg_num_inputs(op);
  if (!im || im->kind != KILN_ATTR_ARRAY || im->count != op->num_operands) return false;
  int64_t bounds[KILN_MAX_LOOPS];
  const kiln_affine_map *maps[64];
  if (op->num_operands > 64) return false;
  int nl = fl_iteration(op, bounds, maps, NULL);
  if (nl < 0) return false;
  const kiln_attr **nm = NULL;
  for (uint32_t o = 0; o < op->num_operands; o++) {
    bool differ = false;
    for (uint32_t k = 1; k < c->m; k++)
      differ |= kiln_op_get_attr(c->ops[k][i], "indexing_maps")->elems[o] != im->elems[o];
    if (!differ) continue;
    if (o >= nin) return false; /* a write at other offsets: not a read window */
    kiln_value *src = kiln_op_operand(op, o);
    const kiln_type *st = src->type;
    const kiln_affine_map *m = im->elems[o]->map;
    if (!fl_is_static_tensor(st) || st->rank != m->num_results || st->rank > KILN_MAX_LOOPS) return false;
    int64_t off[KILN_MAX_LOOPS], size[KILN_MAX_LOOPS], one[KILN_MAX_LOOPS], *vals = c->vals;
    int pidx[KILN_MAX_LOOPS];
    const kiln_affine_expr *res[KILN_MAX_LOOPS];
    uint32_t ndyn = 0;
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS], cst;
      if (!fl_map_linear(m, r, coef, &cst)) return false;
      size[r] = 1, one[r] = 1;
      const kiln_affine_expr *e = NULL;
      for (int d = 0; d < nl; d++) {
        if (!coef[d]) continue;
        if (coef[d] < 0 || bounds[d] < 1) return false;
        size[r] += coef[d] * (bounds[d] - 1);
        const kiln_affine_expr *t = kiln_affine_dim(c->ctx, (unsigned)d);
        if (coef[d] != 1) t = kiln_affine_binary(c->ctx, KILN_AFFINE_MUL, t, kiln_affine_const(c->ctx, coef[d]));
        e = e ? kiln_affine_binary(c->ctx, KILN_AFFINE_ADD, e, t) : t;
      }
      res[r] = e ? e : kiln_affine_const(c->ctx, 0);
      for (uint32_t k = 0; k < c->m; k++) {
        int64_t ck[KILN_MAX_LOOPS];
        if (!fl_map_linear(kiln_op_get_attr(c->ops[k][i], "indexing_maps")->elems[o]->map, r, ck, &vals[k]))
          return false;
        if (vals[k] < 0 || vals[k] + size[r] > st->shape[r]) return false;
      }
      off[r] = vals[0], pidx[r] = -1;
      if (fl_differ(vals, c->m)) {
        if ((pidx[r] = fl_param(c, vals, apply)) < 0) return false;
        off[r] = KILN_DYNAMIC, ndyn++;
      }
    }
    if (!apply) continue;
    /* the slice, right before the generic */
    kiln_value *sops[1 + KILN_MAX_LOOPS];
    uint32_t ns = 0;
    sops[ns++] = src;
    for (uint32_t r = 0; r < m->num_results; r++)
      if (pidx[r] >= 0) sops[ns++] = c->arg[pidx[r]];
    int64_t seg[4] = {1, ndyn, 0, 0};
    const kiln_attr *attrs = kiln_attr_dict(c->ctx, 0, NULL);
    attrs = kiln_dict_set(c->ctx, attrs, "operandSegmentSizes",
                          kiln_attr_dense_array(c->ctx, kiln_type_int(c->ctx, 32), 4, seg, NULL));
    attrs = kiln_dict_set(c->ctx, attrs, "static_offsets", kiln_attr_dense_i64_array(c->ctx, st->rank, off));
    attrs = kiln_dict_set(c->ctx, attrs, "static_sizes", kiln_attr_dense_i64_array(c->ctx, st->rank, size));
    attrs = kiln_dict_set(c->ctx, attrs, "static_strides", kiln_attr_dense_i64_array(c->ctx, st->rank, one));
    const kiln_type *wt = kiln_type_with_shape(c->ctx, st, st->rank, size);
    kiln_op *s = kiln_op_create(c->ctx, KILN_OP_TENSOR_EXTRACT_SLICE, op->loc, ns, sops, 1, &wt, attrs, 0);
    kiln_block_insert_before(op, s);
    kiln_op_set_operand(op, o, kiln_op_result(s, 0));
    if (!nm) {
      nm = kiln_alloc(c->ctx, im->count * sizeof *nm);
      for (uint32_t q = 0; q < im->count; q++) nm[q] = im->elems[q];
    }
    nm[o] = kiln_attr_affine_map(c->ctx, kiln_affine_map_get(c->ctx, m->num_dims, 0, m->num_results, res));
  }
  if (nm) kiln_op_set_attr(op, "indexing_maps", kiln_attr_array(c->ctx, im->count, nm));
  return true;
}

/* Checks (apply false) or rewrites the kept member's kernel. */
static bool fl_param_class(fl_class *c, bool apply) {
  c->np = 0;
  for (size_t i = 0; i < c->nops; i++) {
    kiln_op *op = c->ops[0][i];
    bool differ = false;
    for (uint32_t k = 1; k < c->m; k++) differ |= !fl_same_attrs(c->ops[k][i], op, false);
    if (!differ) continue;
    if (op->kind == KILN_OP_TENSOR_EXTRACT_SLICE ? !fl_param_slice(c, i, apply)
                                                 : op->kind != KILN_OP_LINALG_GENERIC || !fl_param_generic(c, i, apply))
      return false;
  }
  return true;
}

static bool fl_any(const kiln_op *op) {
  (void)op;
  return true;
}

/* Merges class `lead` (members exes[idx[0..m)]) into its first member,
 * whose kernel takes the differing offsets as push constants. */
static bool fl_merge_class(kiln_context *ctx, fl_exe *exes, const uint32_t *idx, uint32_t m) {
  fl_class c = {.ctx = ctx, .m = m};
  c.ops = calloc(m, sizeof *c.ops);
  c.v = calloc((size_t)FL_MAX_PARAMS * m, sizeof *c.v);
  c.vals = calloc(m, sizeof *c.vals);
  bool ok = c.ops && c.v && c.vals;
  for (uint32_t k = 0; ok && k < m; k++) {
    size_t nk;
    ok = kiln_collect_ops(exes[idx[k]].op, false, fl_any, &c.ops[k], &nk) && (k == 0 ? (c.nops = nk, true) : nk == c.nops);
  }
  kiln_op *kfn = ok ? exes[idx[0]].op->regions[0].first->first : NULL;
  ok = ok && kfn && kfn->kind == KILN_OP_FUNC_FUNC && kfn->regions[0].first && kfn->regions[0].first->num_args &&
       fl_param_class(&c, false) && c.np;
  if (ok) {
    c.kb = kfn->regions[0].first;
    fl_param_class(&c, true);
    const kiln_type *ft = kiln_op_get_attr(kfn, "function_type")->type;
    const kiln_type **in = kiln_alloc(ctx, (ft->num_inputs + c.np) * sizeof *in);
    for (uint32_t a = 0; a < ft->num_inputs; a++) in[a] = ft->types[a];
    for (uint32_t p = 0; p < c.np; p++) in[ft->num_inputs + p] = kiln_type_index(ctx);
    kiln_op_set_attr(kfn, "function_type",
                     kiln_attr_type(ctx, kiln_type_function(ctx, ft->num_inputs + c.np, in, 0, NULL)));
    for (uint32_t k = 0; k < m; k++) {
      fl_exe *x = &exes[idx[k]];
      x->keep = k ? exes[idx[0]].op : NULL;
      x->nparam = c.np;
      x->param = kiln_alloc(ctx, c.np * sizeof *x->param);
      for (uint32_t p = 0; p < c.np; p++) x->param[p] = c.v[(size_t)p * m + k];
    }
  }
  for (uint32_t k = 0; c.ops && k < m; k++) free(c.ops[k]);
  free(c.ops);
  free(c.v);
  free(c.vals);
  return ok;
}

kiln_error *kiln_flow_pass_deduplicate_executables(kiln_op *module, void *user) {
  (void)user;
  kiln_error *err = fl_require_valid(module, "deduplicate-executables");
  if (err) return err;
  kiln_context *ctx = kiln_op_context(module);
  kiln_block *body = kiln_module_body(module);
  uint32_t n = 0;
  for (kiln_op *op = body ? body->first : NULL; op; op = op->next)
    if (op->kind == KILN_OP_FLOW_EXECUTABLE) n++;
  if (n < 2) return NULL;
  fl_exe *exes = calloc(n, sizeof *exes);
  uint32_t *idx = calloc(n, sizeof *idx);
  if (!exes || !idx) {
    free(exes);
    free(idx);
    return kiln_error_new("deduplicate-executables: out of memory");
  }
  /* round 1: equal executables */
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind == KILN_OP_FLOW_EXECUTABLE) exes[n++] = (fl_exe){.op = op, .hash = fl_hash_op(op, false)};
  bool merged = false;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = 0; j < i; j++) {
      if (exes[j].keep || exes[j].hash != exes[i].hash) continue;
      kiln_value_map map;
      memset(&map, 0, sizeof map);
      if (fl_same_op(ctx, exes[j].op, exes[i].op, &map, false)) {
        exes[i].keep = exes[j].op;
        merged = true;
        break;
      }
    }
  if (merged) {
    fl_redirect r = {exes, n};
    kiln_walk_pre(module, fl_redirect_dispatch, &r);
    for (uint32_t i = 0; i < n; i++)
      if (exes[i].keep) kiln_op_erase(exes[i].op);
  }
  /* round 2: executables equal up to their read offsets (the steps of an
   * unrolled loop) share the first one's kernel, the offsets that differ
   * passed as push constants */
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind == KILN_OP_FLOW_EXECUTABLE)
      exes[n] = (fl_exe){.op = op, .hash = fl_hash_op(op, true), .lead = n}, n++;
  merged = false;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = 0; j < i; j++) {
      if (exes[j].lead != j || exes[j].hash != exes[i].hash) continue;
      kiln_value_map map;
      memset(&map, 0, sizeof map);
      if (fl_same_op(ctx, exes[j].op, exes[i].op, &map, true)) {
        exes[i].lead = j;
        break;
      }
    }
  for (uint32_t j = 0; j < n; j++) {
    if (exes[j].lead != j) continue;
    uint32_t m = 0;
    for (uint32_t i = j; i < n; i++)
      if (exes[i].lead == j) idx[m++] = i;
    if (m >= FL_MIN_COPIES) merged |= fl_merge_class(ctx, exes, idx, m);
  }
  if (merged) {
    fl_redirect r = {exes, n};
    kiln_walk_pre(module, fl_redirect_dispatch, &r);
    for (uint32_t i = 0; i < n; i++)
      if (exes[i].keep) kiln_op_erase(exes[i].op);
  }
  free(exes);
  free(idx);
  return NULL;
}
