/* fuse-elementwise: producer-consumer fusion of linalg.generic ops.
 *
 * Takes: host functions on tensors. A producer P is folded into its
 * consumer C (a linalg.generic, parallel or not) when P is a
 * linalg.generic with all loops parallel, one result read only as an
 * input of generics (C among them; with several readers only when its
 * body has at most FUSE_MAX_DUPLICATED_OPS ops), an identity output map, a body that neither reads
 * its output argument nor uses linalg.index (with several readers and
 * reading a convolution, matmul or reduction, no transcendental op
 * either: P then runs once, as that op's fused epilogue, instead of once
 * per reader; EfficientNet's SiLU after a depthwise convolution, read by
 * a squeeze-excite's pool and its scale), and C reads P's result
 * through any affine map. Guarantees: the fused generic reads P's inputs
 * through map_P_in ∘ map_C_x, recomputes P's body inline where C read the
 * value (once per input position of C that read it), and computes what C
 * computed; repeated until no pair is left, so a chain of elementwise ops
 * becomes one generic. A pair is skipped when the fused maps would leave
 * a loop of C without a plain-dim result to size it (P reads through a
 * flip such as `-d0 + 2`), or when the fused generic would read and
 * write more than FUSE_MAX_OPERANDS distinct tensors (a kernel binds at
 * most FL_MAX_BINDINGS): P stays a dispatch of its own. P is erased once nothing reads it.
 *
 * Recomputation: where C's map for P's result leaves out some of C's
 * loops, the fused body would recompute P's value once per iteration of
 * those loops (a matmul reading P as its left operand recomputes it for
 * every output column). Such a pair fuses only when P moves data and
 * computes nothing (a transpose or broadcast: C then reads P's input in
 * place), or when C is all-parallel and P's body is at most
 * FUSE_MAX_REPEATED_OPS cheap arith ops (a per-row scale read by a
 * broadcast). Otherwise P stays a dispatch of its own that runs once per
 * element: an activation (GELU's erf) folded into the next layer's matmul
 * ran K x N times per element and left the matmul's fast path. A
 * producer with several readers is folded only when every reader can
 * take it.
 *
 * Splat constants are the simplest producers: a generic's input that is
 * a splat arith.constant (a Pow's exponent, a Div's divisor, an epsilon
 * as the ONNX importer's broadcasts leave them) becomes a scalar constant
 * in its body, as convert-elementwise-to-linalg does for whole-tensor
 * ops, so no kernel reads a constant tensor per element and the body's
 * math sees the value (approximate-math turns pow(x, 2) into x * x).
 * Only where a non-constant input remains and every loop the dropped
 * maps sized is still sized by another operand.
 *
 * Last, each generic's body loses the clamps that a later clamp makes
 * redundant (fl_drop_subsumed_clamps, fl_clamps.c): fusing a quantized
 * network's requantizations chains two clamps, and the first of them
 * often changes nothing. */
#include "fl_internal.h"

#include <string.h>

/* Largest producer body (ops) recomputed in each of several consumers. */
#define FUSE_MAX_DUPLICATED_OPS 16
/* Largest producer body recomputed along loops its consumer's map skips. */
#define FUSE_MAX_REPEATED_OPS 4
/* Most distinct tensors a fused generic may read and write: below the
 * kernel's FL_MAX_BINDINGS, leaving room for the operands of the root
 * whose dispatch it may join (form-dispatch-regions). A chain of 40 Adds
 * of distinct inputs fuses into generics of at most this many. */
#define FUSE_MAX_OPERANDS (FL_MAX_BINDINGS - 8u)

static bool uses_index(kiln_block *b) {
  for (kiln_op *o = b->first; o; o = o->next)
    if (o->kind == KILN_OP_LINALG_INDEX) return true;
  return false;
}

/* A transcendental op (an exp, erf, tanh ... evaluated as a polynomial of
 * tens of instructions): a body holding one is computed once, not once
 * per reader. */
static bool transcendental(const kiln_op *o) {
  switch (o->kind) {
  case KILN_OP_MATH_EXP: case KILN_OP_MATH_EXP2: case KILN_OP_MATH_LOG: case KILN_OP_MATH_LOG2:
  case KILN_OP_MATH_TANH: case KILN_OP_MATH_ERF: case KILN_OP_MATH_SIN: case KILN_OP_MATH_COS:
  case KILN_OP_MATH_POWF:
    return true;
  default:
    return false;
  }
}

/* Does p read the result of a structured op other than an elementwise
 * generic (a convolution, matmul, pool or reduction)? p then joins that
 * op's dispatch as its epilogue when it is not fused forward. */
static bool reads_compute_root(kiln_op *p) {
  for (uint32_t i = 0; i < kiln_linalg_num_inputs(p); i++) {
    kiln_op *d = kiln_op_operand(p, i)->def;
    if (d && kiln_op_has_flag(d, KILN_OPF_LINALG) && d->kind != KILN_OP_LINALG_FILL &&
        (d->kind != KILN_OP_LINALG_GENERIC || !fl_all_parallel(d)))
      return true;
  }
  return false;
}

static bool producer_ok(kiln_op *p) {
  if (p->kind != KILN_OP_LINALG_GENERIC || p->num_results != 1) return false;
  /* every reader is a generic reading it as an input; with several
   * readers p is recomputed in each, so only small bodies qualify */
  kiln_op *first = NULL;
  bool several = false;
  for (kiln_use *u = p->results[0].uses; u; u = u->next) {
    kiln_op *o = u->owner;
    if (o->kind != KILN_OP_LINALG_GENERIC || o->parent != p->parent ||
        u->index >= kiln_linalg_num_inputs(o))
      return false;
    if (first && o != first) several = true;
    first = o;
  }
  if (!first) return false;
  if (several) {
    uint32_t nops = 0;
    bool root = reads_compute_root(p);
    for (kiln_op *o = p->regions[0].first ? p->regions[0].first->first : NULL; o; o = o->next) {
      if (root && transcendental(o)) return false;
      nops++;
    }
    if (nops > FUSE_MAX_DUPLICATED_OPS) return false;
  }
  if (!fl_all_parallel(p)) return false;
  uint32_t nin = kiln_linalg_num_inputs(p);
  if (p->num_operands != nin + 1) return false;
  const kiln_affine_map **maps = kiln_alloc(kiln_op_context(p), (p->num_operands + 1) * sizeof *maps);
  if (fl_iteration(p, NULL, maps, NULL) < 0 || !kiln_affine_map_is_identity(maps[nin])) return false;
  kiln_block *b = p->regions[0].first;
  if (!b || b->num_args != p->num_operands) return false;
  if (kiln_value_has_uses(b->args[nin]) || uses_index(b)) return false;
  return true;
}

/* Fuses producer p into consumer c, which reads p's result as input x. */
static void fuse(kiln_context *ctx, kiln_op *c, uint32_t x, kiln_op *p) {
  uint32_t cin = kiln_linalg_num_inputs(c), cout = c->num_operands - cin;
  uint32_t pin = kiln_linalg_num_inputs(p);
  const kiln_affine_map **cm = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *cm);
  const kiln_affine_map **pm = kiln_alloc(ctx, (p->num_operands + 1) * sizeof *pm);
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, NULL, cm, red);
  fl_iteration(p, NULL, pm, NULL);
  /* every input position reading p's result through the same map as x
   * takes the one recomputed value */
  kiln_value *pv = kiln_op_result(p, 0);
  bool *same = kiln_alloc(ctx, (cin + 1) * sizeof *same);
  for (uint32_t i = 0; i < cin; i++) same[i] = kiln_op_operand(c, i) == pv && cm[i] == cm[x];
  /* inputs of the fused op, (value, map) pairs without repeats */
  uint32_t cap = cin + pin + cout + 1, nin = 0;
  kiln_value **ops = kiln_alloc(ctx, cap * sizeof *ops);
  const kiln_affine_map **maps = kiln_alloc(ctx, cap * sizeof *maps);
  uint32_t *cslot = kiln_alloc(ctx, (cin + 1) * sizeof *cslot);
  uint32_t *pslot = kiln_alloc(ctx, (pin + 1) * sizeof *pslot);
  for (uint32_t i = 0; i < cin + pin; i++) {
    bool from_c = i < cin;
    if (from_c && same[i]) continue;
    kiln_value *v = from_c ? kiln_op_operand(c, i) : kiln_op_operand(p, i - cin);
    const kiln_affine_map *m = from_c ? cm[i] : fl_affine_compose(ctx, pm[i - cin], cm[x]);
    uint32_t k = 0;
    while (k < nin && !(ops[k] == v && maps[k] == m)) k++;
    if (k == nin) ops[nin] = v, maps[nin++] = m;
    if (from_c) cslot[i] = k;
    else pslot[i - cin] = k;
  }
  for (uint32_t i = 0; i < cout; i++)
    ops[nin + i] = kiln_op_operand(c, cin + i), maps[nin + i] = cm[cin + i];
  kiln_builder b = kiln_builder_before(c);
  /* c's place, naming the nodes of both, p's first (dataflow order) */
  b.loc = c->loc;
  b.loc.nodes = kiln_loc_fuse(ctx, p->loc, c->loc).nodes;
  kiln_op *g = fl_build_generic(&b, nin, ops, cout, ops + nin, maps, (uint32_t)loops, red);
  kiln_block *nb = g->regions[0].first, *cb = c->regions[0].first, *pb = p->regions[0].first;
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < cin; i++)
    if (!same[i]) kiln_value_map_add(ctx, &map, cb->args[i], nb->args[cslot[i]]);
  for (uint32_t i = 0; i < pin; i++) kiln_value_map_add(ctx, &map, pb->args[i], nb->args[pslot[i]]);
  for (uint32_t i = 0; i < cout; i++) kiln_value_map_add(ctx, &map, cb->args[cin + i], nb->args[nin + i]);
  for (kiln_op *o = pb->first; o; o = o->next) {
    if (o->kind == KILN_OP_LINALG_YIELD) {
      kiln_value *v = kiln_op_operand(o, 0);
      kiln_value *m = kiln_value_map_lookup(&map, v);
      for (uint32_t i = 0; i < cin; i++)
        if (same[i]) kiln_value_map_add(ctx, &map, cb->args[i], m ? m : v);
      break;
    }
    kiln_block_append_op(nb, kiln_op_clone(o, &map));
  }
  for (kiln_op *o = cb->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < c->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(c, i), kiln_op_result(g, i));
  kiln_op_erase(c);
  if (!kiln_value_has_uses(&p->results[0])) kiln_op_erase(p);
}

static bool plain_dim_in(const kiln_affine_map *m, int l) {
  for (uint32_t r = 0; r < m->num_results; r++)
    if (m->results[r]->kind == KILN_AFFINE_DIM && (int)m->results[r]->value == l) return true;
  return false;
}

/* Every loop of c sized by a plain-dim result of some operand map keeps
 * one after p's maps are composed in: a producer reading through, say,
 * `-d0 + 2` (a flip) would otherwise leave c's loop with no size. */
static bool keeps_loop_sizes(kiln_context *ctx, kiln_op *c, uint32_t x, kiln_op *p) {
  const kiln_affine_map **cm = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *cm);
  const kiln_affine_map **pm = kiln_alloc(ctx, (p->num_operands + 1) * sizeof *pm);
  int loops = fl_iteration(c, NULL, cm, NULL);
  if (loops < 0 || fl_iteration(p, NULL, pm, NULL) < 0) return false;
  kiln_value *pv = kiln_op_result(p, 0);
  uint32_t cin = kiln_linalg_num_inputs(c), pin = kiln_linalg_num_inputs(p);
  const kiln_affine_map **pc = kiln_alloc(ctx, (pin + 1) * sizeof *pc);
  for (uint32_t j = 0; j < pin; j++) pc[j] = fl_affine_compose(ctx, pm[j], cm[x]);
  for (int l = 0; l < loops; l++) {
    bool before = false, after = false;
    for (uint32_t i = 0; i < c->num_operands; i++) {
      if (!plain_dim_in(cm[i], l)) continue;
      before = true;
      /* inputs reading p through cm[x] are replaced by p's inputs */
      if (!(i < cin && kiln_op_operand(c, i) == pv && cm[i] == cm[x])) after = true;
    }
    for (uint32_t j = 0; j < pin && !after; j++) after = plain_dim_in(pc[j], l);
    if (before && !after) return false;
  }
  return true;
}

static void mark_dims(const kiln_affine_expr *e, bool *used, int loops) {
  if (!e) return;
  if (e->kind == KILN_AFFINE_DIM) {
    if ((int)e->value < loops) used[e->value] = true;
    return;
  }
  mark_dims(e->lhs, used, loops);
  mark_dims(e->rhs, used, loops);
}

/* Ops of p's body before its yield; *cheap: all of them arith ops
 * without division (no math functions, no divides). */
static uint32_t body_ops(kiln_op *p, bool *cheap) {
  uint32_t n = 0;
  *cheap = true;
  for (kiln_op *o = p->regions[0].first->first; o; o = o->next) {
    if (o->kind == KILN_OP_LINALG_YIELD) continue;
    if (o->kind == KILN_OP_ARITH_CONSTANT) continue;
    n++;
    const char *name = o->name;
    if (strncmp(name, "arith.", 6) != 0 || strstr(name, "div") || strstr(name, "rem")) *cheap = false;
  }
  return n;
}

/* Does fusing p into c (read as input x) recompute p's body no more than
 * the rules above allow? */
static bool recompute_ok(kiln_context *ctx, kiln_op *c, uint32_t x, kiln_op *p) {
  const kiln_affine_map **cm = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *cm);
  bool red[KILN_MAX_LOOPS], used[KILN_MAX_LOOPS] = {0};
  int loops = fl_iteration(c, NULL, cm, red);
  if (loops < 0) return false;
  for (uint32_t r = 0; r < cm[x]->num_results; r++) mark_dims(cm[x]->results[r], used, loops);
  bool all = true, parallel = true;
  for (int l = 0; l < loops; l++) all &= used[l], parallel &= !red[l];
  if (all) return true;
  bool cheap;
  uint32_t n = body_ops(p, &cheap);
  if (n == 0) return true;
  return parallel && cheap && n <= FUSE_MAX_REPEATED_OPS;
}

/* With several readers, p is folded into one of them only when it can be
 * folded into every one (then it goes away); a producer that stays for
 * some reader (a matmul) is not recomputed in the others, so it stays one
 * dispatch (or joins its own producer's, see sink-reshapes). */
static bool all_readers_take(kiln_context *ctx, kiln_op *p) {
  for (kiln_use *u = p->results[0].uses; u; u = u->next)
    if (!keeps_loop_sizes(ctx, u->owner, u->index, p) || !recompute_ok(ctx, u->owner, u->index, p))
      return false;
  return true;
}

/* The distinct tensors the generic fusing p into c would read and write. */
static uint32_t fused_operands(kiln_op *c, kiln_op *p) {
  uint32_t cin = kiln_linalg_num_inputs(c), pin = kiln_linalg_num_inputs(p), n = 0;
  kiln_value *pv = kiln_op_result(p, 0);
  for (uint32_t i = 0; i < cin + pin; i++) {
    kiln_value *v = i < cin ? kiln_op_operand(c, i) : kiln_op_operand(p, i - cin);
    if (v == pv) continue;
    uint32_t k = 0;
    while (k < i && (k < cin ? kiln_op_operand(c, k) : kiln_op_operand(p, k - cin)) != v) k++;
    n += k == i;
  }
  return n + (c->num_operands - cin);
}

static bool fuse_one(kiln_context *ctx, kiln_block *body) {
  for (kiln_op *c = body->first; c; c = c->next) {
    if (c->kind != KILN_OP_LINALG_GENERIC || !c->regions[0].first)
      continue;
    uint32_t cin = kiln_linalg_num_inputs(c);
    if (fl_iteration(c, NULL, NULL, NULL) < 0) continue;
    for (uint32_t x = 0; x < cin; x++) {
      kiln_op *p = kiln_op_operand(c, x)->def;
      if (p && p->parent == body && producer_ok(p) && fused_operands(c, p) <= FUSE_MAX_OPERANDS &&
          keeps_loop_sizes(ctx, c, x, p) &&
          recompute_ok(ctx, c, x, p) && all_readers_take(ctx, p)) {
        fuse(ctx, c, x, p);
        return true;
      }
    }
  }
  return false;
}

/* The scalar constant standing for the splat tensor constant v, or NULL
 * (not a splat of a float or integer type). */
static const kiln_attr *splat_scalar(kiln_context *ctx, kiln_value *v) {
  const kiln_attr *c = kiln_value_constant(v);
  if (!c || c->kind != KILN_ATTR_DENSE || !c->splat || !c->type || c->type->kind != KILN_TYPE_TENSOR)
    return NULL;
  const kiln_type *et = c->type->elem;
  if (et->kind == KILN_TYPE_F32 || et->kind == KILN_TYPE_F64)
    return kiln_attr_float(ctx, et, kiln_dense_get_float(c, 0));
  if (et->kind == KILN_TYPE_INTEGER) return kiln_attr_int(ctx, et, kiln_dense_get_int(c, 0));
  return NULL;
}

/* Splat-constant inputs of generic c become scalar constants in its body
 * (see the head comment); true when c was replaced. */
static bool inline_splats(kiln_context *ctx, kiln_op *c) {
  if (c->kind != KILN_OP_LINALG_GENERIC || !c->regions[0].first) return false;
  uint32_t cin = kiln_linalg_num_inputs(c), cout = c->num_operands - cin, nin = 0;
  const kiln_affine_map **cm = kiln_alloc(ctx, (c->num_operands + 1) * sizeof *cm);
  const kiln_attr **sc = kiln_alloc(ctx, (cin + 1) * sizeof *sc);
  bool red[KILN_MAX_LOOPS];
  int loops = fl_iteration(c, NULL, cm, red);
  kiln_block *cb = c->regions[0].first;
  if (loops < 0 || cb->num_args != c->num_operands) return false;
  for (uint32_t i = 0; i < cin; i++) {
    sc[i] = splat_scalar(ctx, kiln_op_operand(c, i));
    if (!sc[i]) nin++;
  }
  if (nin == cin || nin == 0) return false;
  for (int l = 0; l < loops; l++) {
    bool before = false, after = false;
    for (uint32_t i = 0; i < c->num_operands; i++)
      if (plain_dim_in(cm[i], l)) before = true, after |= i >= cin || !sc[i];
    if (before && !after) return false;
  }
  kiln_value **ops = kiln_alloc(ctx, (nin + cout) * sizeof *ops);
  const kiln_affine_map **maps = kiln_alloc(ctx, (nin + cout) * sizeof *maps);
  uint32_t k = 0;
  for (uint32_t i = 0; i < c->num_operands; i++)
    if (i >= cin || !sc[i]) ops[k] = kiln_op_operand(c, i), maps[k++] = cm[i];
  kiln_builder b = kiln_builder_before(c);
  b.loc = c->loc;
  kiln_op *g = fl_build_generic(&b, nin, ops, cout, ops + nin, maps, (uint32_t)loops, red);
  kiln_block *nb = g->regions[0].first;
  kiln_builder bb = kiln_builder_at_end(ctx, nb);
  bb.loc = c->loc;
  kiln_value_map map = {0};
  k = 0;
  for (uint32_t i = 0; i < c->num_operands; i++)
    kiln_value_map_add(ctx, &map, cb->args[i],
                       i < cin && sc[i] ? kiln_build_constant(&bb, sc[i]) : nb->args[k++]);
  for (kiln_op *o = cb->first; o; o = o->next) kiln_block_append_op(nb, kiln_op_clone(o, &map));
  for (uint32_t i = 0; i < c->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(c, i), kiln_op_result(g, i));
  kiln_value **old = kiln_alloc(ctx, (cin + 1) * sizeof *old);
  for (uint32_t i = 0; i < cin; i++) old[i] = kiln_op_operand(c, i);
  kiln_op_erase(c);
  for (uint32_t i = 0; i < cin; i++) {
    bool seen = false; /* one constant read twice is erased once */
    for (uint32_t j = 0; j < i; j++) seen |= sc[j] && old[j] == old[i];
    if (sc[i] && !seen && old[i]->def && !kiln_value_has_uses(old[i])) kiln_op_erase(old[i]->def);
  }
  return true;
}

static void fuse_all(kiln_context *ctx, kiln_block *body, void *user) {
  (void)user;
  for (kiln_op *op = body->first, *next; op; op = next) {
    next = op->next;
    inline_splats(ctx, op);
  }
  while (fuse_one(ctx, body)) {
  }
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind == KILN_OP_LINALG_GENERIC && op->num_regions == 1 && op->regions[0].first)
      fl_drop_subsumed_clamps(op->regions[0].first);
}

kiln_error *kiln_flow_pass_fuse_elementwise(kiln_op *module, void *user) {
  (void)user;
  return fl_each_host_body(module, "fuse-elementwise", fuse_all, NULL);
}
