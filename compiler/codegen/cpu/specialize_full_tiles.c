/* specialize-full-tiles: a kernel whose tile sizes do not divide the
 * bounds computes its edge tile with size min(tile, bound - offset).
 * This pass splits the work after those sizes into
 *   scf.if (every size is its full tile) { static-shape copy }
 *   else { the original, dynamic-shape ops }
 * In the full-tile copy the sizes are constants, index arithmetic on them
 * is folded, and subviews get static shapes, so lower-to-loops can give
 * it static trip counts and vectors; the partial tile keeps the guarded
 * scalar path.
 *
 * Takes kernels after tile-and-distribute (the sizes are the arith.minsi
 * of the entry block with a constant operand). Guarantees the same
 * results; kernels without such sizes are left unchanged. */
#include "cg_internal.h"

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

static kiln_error *specialize(cg_kernel *k, void *user) {
  (void)user;
  kiln_context *c = kiln_op_context(k->func);
  kiln_block *body = cg_func_body(k->func);
  if (!body) return NULL;
  kiln_op *mins[KILN_MAX_LOOPS * 2];
  int64_t full[KILN_MAX_LOOPS * 2];
  uint32_t n = 0;
  kiln_op *last = NULL;
  for (kiln_op *o = body->first; o; o = o->next) {
    int64_t t;
    if (o->kind != KILN_OP_ARITH_MINSI || n == KILN_MAX_LOOPS * 2) continue;
    if (!cg_const_int(kiln_op_operand(o, 0), &t)) continue;
    mins[n] = o, full[n] = t, n++;
    last = o;
  }
  if (!n) return NULL;
  kiln_op *term = kiln_block_terminator(body);
  if (!term || last->next == term) return NULL;
  /* cond = and over (bound - offset >= tile) */
  kiln_builder b = kiln_builder_after(last);
  b.loc = last->loc;
  kiln_value *cond = NULL;
  kiln_value *consts[KILN_MAX_LOOPS * 2];
  for (uint32_t i = 0; i < n; i++) {
    consts[i] = cg_index(&b, full[i]);
    kiln_value *ge = cg_cmpi(&b, CG_SGE, kiln_op_operand(mins[i], 1), consts[i]);
    cond = cond ? cg_bin(&b, KILN_OP_ARITH_ANDI, cond, ge) : ge;
  }
  kiln_op *iff = kiln_build(&b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  kiln_block *thenb = kiln_op_entry_block(c, iff, 0), *elseb = kiln_op_entry_block(c, iff, 1);
  kiln_builder ty = kiln_builder_at_end(c, thenb), ey = kiln_builder_at_end(c, elseb);
  ty.loc = ey.loc = iff->loc;
  kiln_op *then_yield = kiln_build(&ty, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  kiln_op *else_yield = kiln_build(&ey, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
  /* Move the ops after the if (up to the terminator) into the else
   * branch; clone them into the then branch with full sizes. */
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < n; i++)
    kiln_value_map_add(c, &map, kiln_op_result(mins[i], 0), consts[i]);
  for (kiln_op *o = iff->next, *next; o && o != term; o = next) {
    next = o->next;
    kiln_op *copy = kiln_op_clone(o, &map);
    kiln_block_insert_before(then_yield, copy);
    kiln_op_remove(o);
    kiln_block_insert_before(else_yield, o);
  }
  fold_block(thenb);
  cg_dce(k->func);
  return NULL;
}

kiln_error *kiln_codegen_cpu_specialize_full_tiles(kiln_op *module, void *user) {
  (void)user;
  return cg_for_each_kernel(module, specialize, NULL);
}
