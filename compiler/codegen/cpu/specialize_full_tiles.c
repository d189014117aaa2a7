/* specialize-full-tiles: a kernel whose tile sizes do not divide the
 * bounds computes its edge tile with size min(tile, bound - offset).
 * With static bounds that size is one of two constants, the full tile
 * or the edge (bound % tile), so this pass splits the work after those
 * sizes, one size at a time (up to SPEC_MAX_STATIC_EDGES of them), into
 *   scf.if (size is its full tile) { copy with size = tile }
 *   else { copy with size = edge }
 * and any further sizes into one
 *   scf.if (every size is its full tile) { static-shape copy }
 *   else { the original, dynamic-shape ops }
 * In every static copy the sizes are constants, index arithmetic on them
 * is folded, and subviews get static shapes, so lower-to-loops gives it
 * static trip counts, vectors and the matmul microkernel (a sequence of
 * 129 rows: 2 tiles of 64 and one of 1, all on the fast path). The
 * dynamic copy is folded the same way, so the sizes an enclosing split
 * fixed stay static there (a run-time M's partial row tile of 64 or of
 * the static edge's columns).
 *
 * Takes kernels after tile-and-distribute (the sizes are the arith.minsi
 * of the entry block with a constant operand). Guarantees the same
 * results; kernels without such sizes are left unchanged. */
#include "cpu_internal.h"

/* Folds index arithmetic whose operands are constants and rebuilds
 * subviews with constant sizes/offsets as static ones, in block order. */
static void fold_block(kiln_block *blk) {
  for (kiln_op *o = blk->first, *next; o; o = next) {
    next = o->next;
    kiln_builder b = kiln_builder_before(o);
    b.loc = o->loc;
    kiln_value *r = NULL;
    int64_t p, q;
    if ((o->kind == KILN_OP_ARITH_ADDI || o->kind == KILN_OP_ARITH_SUBI ||
         o->kind == KILN_OP_ARITH_MULI || o->kind == KILN_OP_ARITH_MINSI) &&
        o->results[0].type->kind == KILN_TYPE_INDEX &&
        cg_const_int(kiln_op_operand(o, 0), &p) && cg_const_int(kiln_op_operand(o, 1), &q)) {
      int64_t v = o->kind == KILN_OP_ARITH_ADDI ? p + q
                  : o->kind == KILN_OP_ARITH_SUBI ? p - q
                  : o->kind == KILN_OP_ARITH_MULI ? p * q
                  : (p < q ? p : q);
      r = cg_index(&b, v);
    } else if (o->kind == KILN_OP_MEMREF_SUBVIEW) {
      kiln_value *src = kiln_op_operand(o, 0);
      const kiln_attr *so = kiln_op_get_attr(o, "static_offsets");
      const kiln_attr *ss = kiln_op_get_attr(o, "static_sizes");
      const kiln_attr *st = kiln_op_get_attr(o, "static_strides");
      uint32_t rk = src->type->rank, next_op = 1;
      bool any_const = false, unit = true;
      kiln_value *offs[KILN_MAX_LOOPS], *sizes[KILN_MAX_LOOPS];
      if (!so || !ss || !st || so->count != rk || ss->count != rk || rk > KILN_MAX_LOOPS ||
          o->results[0].type->rank != rk)
        continue;
      for (uint32_t i = 0; i < rk; i++) unit &= ((const int64_t *)st->data)[i] == 1;
      if (!unit) continue;
      for (int list = 0; list < 2; list++) {
        const int64_t *sv = (list ? ss : so)->data;
        kiln_value **dst = list ? sizes : offs;
        for (uint32_t i = 0; i < rk; i++) {
          if (sv[i] != KILN_DYNAMIC) {
            dst[i] = cg_index(&b, sv[i]);
          } else {
            dst[i] = kiln_op_operand(o, next_op++);
            any_const |= cg_const_int(dst[i], &p);
          }
        }
      }
      if (any_const) r = cg_subview(&b, src, offs, sizes);
    }
    if (!r) continue;
    kiln_value_replace_all_uses(kiln_op_result(o, 0), r);
    kiln_op_erase(o);
  }
}

/* The tile sizes a kernel's ops depend on: min(tile, bound - offset). */
typedef struct spec_size {
  kiln_op *min;
  int64_t full, edge; /* edge: bound % tile, or -1 when not specialized */
} spec_size;

/* At most this many sizes get static edge copies (2^n copies of the
 * kernel's body); the others share one guard and stay dynamic on edges. */
#define SPEC_MAX_STATIC_EDGES 3

/* Moves the ops strictly between `after` (NULL: the block's start) and
 * `end` into an scf.if. With sz->edge known: if (rem >= full) {copy with
 * size = full} else {copy with size = edge}, each branch then split on
 * the remaining sizes. Otherwise (all remaining sizes at once): if (every
 * rem >= full) {copy with full sizes} else {the ops, dynamic}. */
static void split(kiln_context *c, kiln_block *blk, kiln_op *after, kiln_op *end,
                  const spec_size *sz, uint32_t n) {
  kiln_op *first = after ? after->next : blk->first;
  if (!n || first == end) {
    fold_block(blk);
    return;
  }
  bool one = sz->edge > 0;
  uint32_t ng = one ? 1 : n;
  kiln_builder b = kiln_builder_before(first);
  b.loc = first->loc;
  kiln_value *cond = NULL, *full[KILN_MAX_LOOPS * 2];
  for (uint32_t i = 0; i < ng; i++) {
    full[i] = cg_index(&b, sz[i].full);
    kiln_value *ge = cg_cmpi(&b, CG_SGE, kiln_op_operand(sz[i].min, 1), full[i]);
    cond = cond ? cg_bin(&b, KILN_OP_ARITH_ANDI, cond, ge) : ge;
  }
  kiln_op *iff = kiln_build(&b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_block *thenb = kiln_op_entry_block(c, iff, 0), *elseb = kiln_op_entry_block(c, iff, 1);
  kiln_builder ty = kiln_builder_at_end(c, thenb), ey = kiln_builder_at_end(c, elseb);
  ty.loc = ey.loc = iff->loc;
  kiln_op *then_yield = kiln_build(&ty, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  kiln_op *else_yield = kiln_build(&ey, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  kiln_value_map tmap = {0}, emap = {0};
  for (uint32_t i = 0; i < ng; i++) kiln_value_map_add(c, &tmap, kiln_op_result(sz[i].min, 0), full[i]);
  kiln_value *edge = NULL;
  if (one) {
    kiln_builder eb = kiln_builder_before(else_yield);
    eb.loc = iff->loc;
    edge = cg_index(&eb, sz->edge);
    kiln_value_map_add(c, &emap, kiln_op_result(sz->min, 0), edge);
  }
  for (kiln_op *o = iff->next; o && o != end; o = o->next) {
    kiln_block_insert_before(then_yield, kiln_op_clone(o, &tmap));
    if (edge) kiln_block_insert_before(else_yield, kiln_op_clone(o, &emap));
  }
  /* The originals, last first (no op goes while a later one reads it):
   * erased once copied, or moved in order into the dynamic else branch. */
  for (kiln_op *o = end ? end->prev : blk->last, *prev; o != iff; o = prev) {
    prev = o->prev;
    if (edge) {
      kiln_op_erase(o);
    } else {
      kiln_op_remove(o);
      kiln_block_insert_before(elseb->first, o);
    }
  }
  split(c, thenb, NULL, then_yield, sz + ng, n - ng);
  if (edge) split(c, elseb, edge->def, else_yield, sz + 1, n - 1);
  /* the dynamic version: sizes an enclosing split made constant (the
   * full or edge width of a static dim beside a run-time one) fold too,
   * so that its subviews keep those dims static */
  else fold_block(elseb);
}

static kiln_error *specialize(cg_kernel *k, void *user) {
  (void)user;
  kiln_context *c = kiln_op_context(k->func);
  kiln_block *body = cg_func_body(k->func);
  if (!body) return NULL;
  spec_size sz[KILN_MAX_LOOPS * 2];
  uint32_t n = 0;
  kiln_op *last = NULL;
  for (kiln_op *o = body->first; o; o = o->next) {
    int64_t t, bound;
    if (o->kind != KILN_OP_ARITH_MINSI || n == KILN_MAX_LOOPS * 2) continue;
    if (!cg_const_int(kiln_op_operand(o, 0), &t) || t <= 0) continue;
    kiln_op *rem = kiln_op_operand(o, 1)->def;
    sz[n].min = o, sz[n].full = t, sz[n].edge = -1;
    if (rem && rem->kind == KILN_OP_ARITH_SUBI && cg_const_int(kiln_op_operand(rem, 0), &bound) &&
        bound > 0 && n < SPEC_MAX_STATIC_EDGES)
      sz[n].edge = bound % t;
    n++;
    last = o;
  }
  if (!n) return NULL;
  /* The statically specialized sizes first, the shared guard last. */
  spec_size ord[KILN_MAX_LOOPS * 2];
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++)
    if (sz[i].edge > 0) ord[m++] = sz[i];
  for (uint32_t i = 0; i < n; i++)
    if (sz[i].edge <= 0) ord[m++] = sz[i];
  kiln_op *term = kiln_block_terminator(body);
  if (!term || last->next == term) return NULL;
  split(c, body, last, term, ord, n);
  kiln_pass_dce(k->func, NULL);
  return NULL;
}

kiln_error *kiln_codegen_cpu_specialize_full_tiles(kiln_op *module, void *user) {
  (void)user;
  return cg_for_each_kernel(module, specialize, NULL);
}
