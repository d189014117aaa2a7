/* lower-to-loops: every structured op on memrefs becomes loops.
 *
 * One generic path, driven by kiln_linalg_iteration's loops and indexing
 * maps, serves named and generic ops alike: an scf.for per loop (parallel
 * loops outside, reduction loops inside), memref.load of each operand at
 * its map's indices, the body (a generic's region inlined with block
 * arguments replaced and linalg.index replaced by loop ivs; named ops'
 * implied bodies), memref.store of the results. When no output index
 * depends on a reduction loop, outputs are loaded once before the
 * reduction loops, carried in registers (iter_args) and stored once after.
 * When the op has static bounds and every operand is either contiguous
 * along the innermost parallel loop (its last index moves by one with it,
 * other indices do not move) or independent of it, that loop steps
 * by the vector width with vector.load/store and the body on vectors
 * (uniform values broadcast), reduction loops inside it carrying vector
 * accumulators (convolutions over output channels, pooling over
 * channels, matmul tails over columns); the remainder takes one vector of
 * each halved width down to 4 lanes, then a scalar nest. Otherwise, a contiguous innermost reduction with an
 * associative combiner runs on vector partial results folded by
 * vector.reduction (row sums, matvec). Full-tile matmuls take the register-blocked path of
 * lower_matmul.c instead, convolutions (anything that reads as an
 * implicit GEMM) that of lower_conv.c, linalg.softmax the three-pass rows
 * of lower_softmax.c.
 *
 * Takes kernels (kiln.launch gives the vector width; default 4) or any
 * func with linalg ops on memrefs. Guarantees: no structured op left; an
 * op that cannot be lowered (tensor operands, unsupported named op) is an
 * error naming it. */
#include "cpu_internal.h"

#include <math.h>
#include <string.h>

/* Accumulators of one register block (rows x outputs). */
#define CPU_VEC_MAX_ACC CG_MAX_OPERANDS
/* Rows of a register block of the vector path with reductions: the
 * loads that do not depend on the blocked loop (a depthwise filter tap)
 * serve this many rows, and as many independent accumulator chains hide
 * the fma latency (4 chains left a depthwise 3x3 waiting on it). */
#define CPU_VEC_ROWS 8

typedef struct lw {
  kiln_op *op;
  kiln_context *c;
  int loops, nred, first_red;
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t sb[KILN_MAX_LOOPS];       /* static bounds, -1 unknown */
  kiln_value *bound[KILN_MAX_LOOPS];
  int order[KILN_MAX_LOOPS];        /* parallel loops, then reductions */
  uint32_t nin, nops;
  bool accumulate;
  bool need_out[CG_MAX_OPERANDS];
  kiln_value *lb[KILN_MAX_LOOPS];   /* lower bounds, NULL = 0 */
  int64_t vw;                       /* vector lanes when vectorizing */
  /* Vector reduction along the innermost (reduction) loop: the combining
   * op of each output (0 = off). */
  kiln_op_kind combiner[CG_MAX_OPERANDS];
  bool red_vec;
  int vloop;                        /* the loop on vector lanes */
  /* Register blocking of the vector path with reductions: rloop (the
   * parallel loop just outside vloop, -1 none) runs in blocks of rb
   * whose rcount iterations from rbase share one reduction nest. */
  int rloop;
  int64_t rb, rcount;
  kiln_value *rbase;
  kiln_value *init;                 /* a fused fill's value, or NULL */
  cpu_epilogue epi;                  /* a fused elementwise generic */
} lw;

static void indices(kiln_builder *b, const kiln_affine_map *m, kiln_value *const *ivs, kiln_value **out) {
  for (uint32_t r = 0; r < m->num_results; r++) out[r] = cg_affine_value(b, m->results[r], ivs);
}

static bool is_memref(const kiln_value *v) { return v->type->kind == KILN_TYPE_MEMREF; }

static bool map_uses_loop(const kiln_affine_map *m, int l, int loops) {
  for (uint32_t r = 0; r < m->num_results; r++) {
    int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
    if (!cg_linear_expr(m->results[r], loops, coef, &cst)) return true; /* be conservative */
    if (coef[l]) return true;
  }
  return false;
}

static kiln_error *analyze(lw *w, kiln_op *op) {
  memset(w, 0, sizeof *w);
  w->op = op;
  w->c = kiln_op_context(op);
  w->nops = op->num_operands;
  w->nin = kiln_linalg_num_inputs(op);
  if (w->nops > CG_MAX_OPERANDS) return kiln_op_error(op, "has too many operands");
  w->loops = cg_static_bounds(op, w->maps, w->red, w->sb);
  if (w->loops < 0) return kiln_op_error(op, "has no iteration space lower-to-loops understands (malformed maps, "
                                         "ranks above %d or memrefs without a strided layout)", KILN_MAX_LOOPS);
  for (uint32_t i = 0; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    if (kiln_type_is_shaped(v->type) && !is_memref(v))
      return kiln_op_error(op, "operand #%u is not a memref (bufferize first)", i);
    if (!is_memref(v) && (i >= w->nin || w->maps[i]->num_results))
      return kiln_op_error(op, "operand #%u: a scalar where the map needs a memref", i);
  }
  int p = 0;
  for (int l = 0; l < w->loops; l++)
    if (!w->red[l]) w->order[p++] = l;
  w->first_red = p;
  for (int l = 0; l < w->loops; l++)
    if (w->red[l]) w->order[p++] = l, w->nred++;
  /* Registers may carry outputs through the reductions when no output
   * index moves with a reduction loop. */
  w->accumulate = w->nred > 0;
  for (uint32_t i = w->nin; i < w->nops; i++)
    for (int l = 0; l < w->loops; l++)
      if (w->red[l] && map_uses_loop(w->maps[i], l, w->loops)) w->accumulate = false;
  for (uint32_t i = w->nin; i < w->nops; i++) {
    switch (op->kind) {
    case KILN_OP_LINALG_FILL: case KILN_OP_LINALG_TRANSPOSE: case KILN_OP_LINALG_BROADCAST:
    case KILN_OP_LINALG_MAP:
      w->need_out[i] = false;
      break;
    case KILN_OP_LINALG_GENERIC: case KILN_OP_LINALG_REDUCE: {
      kiln_block *body = op->regions[0].first;
      w->need_out[i] = body && i < body->num_args && kiln_value_has_uses(body->args[i]);
      break;
    }
    default:
      w->need_out[i] = true;
    }
    if (w->accumulate) w->need_out[i] = true;
  }
  return NULL;
}

/* Loop bound values: from an operand dim indexed by exactly that loop. */
static kiln_error *bound_values(lw *w, kiln_builder *b) {
  for (int l = 0; l < w->loops; l++) {
    w->bound[l] = NULL;
    if (w->sb[l] >= 0) {
      w->bound[l] = cg_index(b, w->sb[l]);
      continue;
    }
    for (uint32_t i = 0; i < w->nops && !w->bound[l]; i++) {
      kiln_value *v = kiln_op_operand(w->op, i);
      if (!is_memref(v)) continue;
      for (uint32_t r = 0; r < w->maps[i]->num_results; r++) {
        const kiln_affine_expr *e = w->maps[i]->results[r];
        if (e->kind == KILN_AFFINE_DIM && e->value == l) {
          w->bound[l] = cg_dim(b, v, r);
          break;
        }
      }
    }
    if (!w->bound[l]) return kiln_op_error(w->op, "loop %d has no operand dimension giving its size", l);
  }
  return NULL;
}

/* ---- scalar nest ---- */
static bool emit_scalar(lw *w, kiln_builder *b, int p, kiln_value **ivs, kiln_value **acc,
                        kiln_value **yielded);
static bool emit_red_vector(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **acc,
                            kiln_value **yielded);

static void load_outputs(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **vals) {
  kiln_value *ix[KILN_MAX_LOOPS];
  for (uint32_t i = w->nin; i < w->nops; i++) {
    indices(b, w->maps[i], ivs, ix);
    vals[i - w->nin] = cg_load(b, kiln_op_operand(w->op, i), w->maps[i]->num_results, ix);
  }
}

static void store_outputs(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **vals) {
  kiln_value *ix[KILN_MAX_LOOPS];
  for (uint32_t i = w->nin; i < w->nops; i++) {
    indices(b, w->maps[i], ivs, ix);
    cg_store(b, vals[i - w->nin], kiln_op_operand(w->op, i), w->maps[i]->num_results, ix);
  }
}

static bool emit_body_scalar(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **acc,
                             kiln_value **out) {
  kiln_value *in[CG_MAX_OPERANDS];
  kiln_value *ix[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    in[i] = NULL;
    if (i >= w->nin && acc) {
      in[i] = acc[i - w->nin];
    } else if (i >= w->nin && !w->need_out[i]) {
      continue;
    } else if (is_memref(v)) {
      indices(b, w->maps[i], ivs, ix);
      in[i] = cg_load(b, v, w->maps[i]->num_results, ix);
    } else {
      in[i] = v;
    }
  }
  return cg_emit_body(b, w->op, in, ivs, out);
}

static bool emit_scalar(lw *w, kiln_builder *b, int p, kiln_value **ivs, kiln_value **acc,
                        kiln_value **yielded) {
  uint32_t nout = w->nops - w->nin;
  if (p == w->loops) {
    kiln_value *out[CG_MAX_OPERANDS];
    if (!emit_body_scalar(w, b, ivs, acc, out)) return false;
    if (acc) memcpy(yielded, out, nout * sizeof *out);
    else store_outputs(w, b, ivs, out);
    return true;
  }
  if (w->accumulate && p == w->first_red && !acc) {
    kiln_value *init[CG_MAX_OPERANDS], *fin[CG_MAX_OPERANDS];
    load_outputs(w, b, ivs, init);
    if (!emit_scalar(w, b, p, ivs, init, fin)) return false;
    store_outputs(w, b, ivs, fin);
    return true;
  }
  int l = w->order[p];
  if (w->red_vec && acc && p == w->loops - 1 && !w->lb[l]) return emit_red_vector(w, b, ivs, acc, yielded);
  kiln_builder body;
  kiln_op *loop = cg_for(b, w->lb[l] ? w->lb[l] : cg_index(b, 0), w->bound[l], cg_index(b, 1),
                         acc ? nout : 0, acc, &body);
  ivs[l] = cg_for_iv(loop);
  kiln_value *inner[CG_MAX_OPERANDS], *inner_y[CG_MAX_OPERANDS];
  for (uint32_t j = 0; acc && j < nout; j++) inner[j] = loop->regions[0].first->args[1 + j];
  if (!emit_scalar(w, &body, p + 1, ivs, acc ? inner : NULL, inner_y)) return false;
  if (acc) {
    cg_for_set_yield(loop, nout, inner_y);
    for (uint32_t j = 0; j < nout; j++) yielded[j] = kiln_op_result(loop, j);
  }
  return true;
}

/* ---- vectors along the innermost parallel loop ----
 * Loop order stays: parallel loops, then reductions. The last parallel
 * loop (l_in) steps by the vector width when every operand is either
 * contiguous along it (its last index moves by one with l_in, unit stride) or
 * independent of it; outputs must move with it. Reduction loops inside
 * carry the output vectors in iter_args. The leftover iterations of l_in
 * run the scalar nest. */
static bool elem_ok(const kiln_type *t) {
  return kiln_type_is_float(t) || (kiln_type_is_integer(t) && t->width >= 8 && t->width <= 64);
}

static int vec_loop(const lw *w) { return w->first_red > 0 ? w->order[w->first_red - 1] : -1; }

static bool can_vectorize(lw *w, int64_t vw) {
  int lin = vec_loop(w);
  if (vw < 2 || lin < 0 || (w->nred && !w->accumulate)) return false;
  /* other loops may have run-time sizes; so may the vector loop (its
   * remainder then runs scalar whatever it is). A static vector loop
   * shorter than a vector takes narrower vectors, down to 4 lanes. */
  if (w->sb[lin] >= 0 && w->sb[lin] < (vw < 4 ? vw : 4)) return false;
  for (uint32_t i = 0; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    if (!elem_ok(kiln_type_elem_or_self(v->type))) return false;
    if (!is_memref(v)) continue;
    const kiln_affine_map *m = w->maps[i];
    bool uses = false;
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      if (!cg_linear_expr(m->results[r], w->loops, coef, &cst)) return false;
      if (!coef[lin]) continue;
      /* only the last index moves with the lane loop, one element a step
       * (a plain dim, or a view's offset sum such as h * 64 + d + 512) */
      if (r != m->num_results - 1 || coef[lin] != 1) return false;
      uses = true;
    }
    if (i >= w->nin && !uses) return false;
    if (uses) {
      int64_t st[KILN_MAX_LOOPS], off;
      if (!kiln_memref_strides(v->type, st, &off) || st[v->type->rank - 1] != 1) return false;
    }
  }
  switch (w->op->kind) {
  case KILN_OP_LINALG_FILL: case KILN_OP_LINALG_TRANSPOSE: case KILN_OP_LINALG_BROADCAST:
  case KILN_OP_LINALG_MATMUL: case KILN_OP_LINALG_BATCH_MATMUL: case KILN_OP_LINALG_MATVEC:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: case KILN_OP_LINALG_CONV_2D_NCHW_FCHW:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_MAX: case KILN_OP_LINALG_POOLING_NHWC_SUM:
  case KILN_OP_LINALG_POOLING_NCHW_MAX: case KILN_OP_LINALG_POOLING_NCHW_SUM:
    return true; /* implied bodies are elementwise arith */
  case KILN_OP_LINALG_GENERIC: case KILN_OP_LINALG_MAP: case KILN_OP_LINALG_REDUCE: break;
  default: return false;
  }
  kiln_block *body = w->op->regions[0].first;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next) {
    if (o->kind == KILN_OP_LINALG_YIELD) continue;
    if (o->kind == KILN_OP_LINALG_INDEX) {
      const kiln_attr *d = kiln_op_get_attr(o, "dim");
      if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= w->loops || d->i == lin)
        return false;
      continue;
    }
    if (o->num_regions || o->num_results != 1 || o->num_operands > 8) return false;
    if (o->kind == KILN_OP_ARITH_CONSTANT) {
      if (kiln_type_is_shaped(o->results[0].type)) return false;
      continue;
    }
    if (!kiln_op_has_flag(o, KILN_OPF_ELEMENTWISE)) return false;
    if (o->results[0].type->kind == KILN_TYPE_INDEX) return false;
  }
  return true;
}

static const kiln_type *vec_of(kiln_context *c, const kiln_type *t, int64_t vw) {
  return kiln_type_vector(c, 1, &vw, t);
}

static kiln_value *as_vector(kiln_builder *b, kiln_value *v, int64_t vw) {
  if (v->type->kind == KILN_TYPE_VECTOR) return v;
  return cg_broadcast(b, v, vec_of(b->ctx, v->type, vw));
}

/* addf(x, mulf(a, b)) on float vectors, the product read only there, as
 * vector.fma(a, b, x) (one rounding, what the convolution microkernel
 * computes too), for the ops between `first` and the builder's insertion
 * point; out[] values replaced are updated. */
static void contract_fma(kiln_builder *b, kiln_op *first, kiln_value **out, uint32_t nout) {
  for (kiln_op *o = first; o && o != b->before;) {
    kiln_op *next = o->next;
    if (o->kind == KILN_OP_ARITH_ADDF && o->results[0].type->kind == KILN_TYPE_VECTOR) {
      for (uint32_t k = 0; k < 2; k++) {
        kiln_value *p = kiln_op_operand(o, k);
        kiln_op *m = p->def;
        if (!m || m->kind != KILN_OP_ARITH_MULF || m->parent != o->parent || !kiln_value_has_one_use(p) ||
            p->type != o->results[0].type)
          continue;
        kiln_builder fb = kiln_builder_before(o);
        fb.loc = o->loc;
        kiln_value *ops[3] = {kiln_op_operand(m, 0), kiln_op_operand(m, 1), kiln_op_operand(o, 1 - k)};
        const kiln_type *t = p->type;
        kiln_value *f = kiln_op_result(kiln_build(&fb, KILN_OP_VECTOR_FMA, 3, ops, 1, &t, NULL), 0);
        kiln_value *r = kiln_op_result(o, 0);
        for (uint32_t i = 0; i < nout; i++)
          if (out[i] == r) out[i] = f;
        kiln_value_replace_all_uses(r, f);
        if (next == m) next = m->next;
        kiln_op_erase(o);
        kiln_op_erase(m);
        break;
      }
    }
    o = next;
  }
}

static bool body_vector_ops(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                            kiln_value *const *ivs, int64_t vw, kiln_value **out);

bool cpu_emit_body_vector(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                         kiln_value *const *ivs, int64_t vw, kiln_value **out) {
  kiln_op *mark = b->before ? b->before->prev : b->block->last;
  if (!body_vector_ops(b, op, in, ivs, vw, out)) return false;
  kiln_op *first = mark ? mark->next : b->block->first;
  contract_fma(b, first, out, op->num_operands - kiln_linalg_num_inputs(op));
  return true;
}

static bool body_vector_ops(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                            kiln_value *const *ivs, int64_t vw, kiln_value **out) {
  uint32_t nin = kiln_linalg_num_inputs(op), nops = op->num_operands;
  kiln_context *c = b->ctx;
  if (op->kind != KILN_OP_LINALG_GENERIC && op->kind != KILN_OP_LINALG_MAP &&
      op->kind != KILN_OP_LINALG_REDUCE) {
    kiln_value *vin[CG_MAX_OPERANDS];
    for (uint32_t i = 0; i < nops; i++) vin[i] = in[i] ? as_vector(b, in[i], vw) : NULL;
    return cg_emit_body(b, op, vin, ivs, out);
  }
  kiln_block *body = op->regions[0].first;
  uint32_t nargs = op->kind == KILN_OP_LINALG_MAP ? nin : nops;
  kiln_value_map map = {0};
  for (uint32_t i = 0; i < nargs && i < body->num_args; i++)
    if (in[i]) kiln_value_map_add(c, &map, body->args[i], in[i]);
  for (kiln_op *o = body->first; o; o = o->next) {
    if (o->kind == KILN_OP_LINALG_YIELD) {
      for (uint32_t i = 0; i < o->num_operands; i++) {
        kiln_value *m = kiln_value_map_lookup(&map, kiln_op_operand(o, i));
        out[i] = m ? m : kiln_op_operand(o, i);
      }
      return true;
    }
    if (o->kind == KILN_OP_LINALG_INDEX) {
      kiln_value_map_add(c, &map, kiln_op_result(o, 0), ivs[kiln_op_get_attr(o, "dim")->i]);
      continue;
    }
    kiln_value *ops[8];
    bool vec = false;
    for (uint32_t i = 0; i < o->num_operands; i++) {
      kiln_value *m = kiln_value_map_lookup(&map, kiln_op_operand(o, i));
      ops[i] = m ? m : kiln_op_operand(o, i);
      vec |= ops[i]->type->kind == KILN_TYPE_VECTOR;
    }
    if (!vec) {
      kiln_builder_insert(b, kiln_op_clone(o, &map));
      continue;
    }
    for (uint32_t i = 0; i < o->num_operands; i++) ops[i] = as_vector(b, ops[i], vw);
    const kiln_type *rt = vec_of(c, o->results[0].type, vw);
    kiln_op *n = kiln_op_create(c, o->kind, o->loc, o->num_operands, ops, 1, &rt, o->attrs, 0);
    kiln_builder_insert(b, n);
    kiln_value_map_add(c, &map, kiln_op_result(o, 0), kiln_op_result(n, 0));
  }
  return kiln_op_emit_error(op, "body does not end with linalg.yield");
}

static bool body_vector(lw *w, kiln_builder *b, kiln_value **in, kiln_value **ivs,
                        kiln_value **out) {
  return cpu_emit_body_vector(b, w->op, in, ivs, w->vw, out);
}

static void vload_outputs(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **vals) {
  kiln_value *ix[KILN_MAX_LOOPS];
  for (uint32_t i = w->nin; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    const kiln_type *vt = vec_of(w->c, v->type->elem, w->vw);
    if (w->init) {
      vals[i - w->nin] = cg_broadcast(b, w->init, vt);
      continue;
    }
    indices(b, w->maps[i], ivs, ix);
    vals[i - w->nin] = cg_vload(b, vt, v, w->maps[i]->num_results, ix);
  }
}

static void vstore_outputs(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **vals) {
  kiln_value *ix[KILN_MAX_LOOPS];
  for (uint32_t i = w->nin; i < w->nops; i++) {
    indices(b, w->maps[i], ivs, ix);
    kiln_value *v = as_vector(b, vals[i - w->nin], w->vw);
    if (w->epi.op) v = cpu_apply_epilogue(b, &w->epi, ix, v, v->type);
    kiln_value *dst = w->epi.op && w->epi.dst ? w->epi.dst : kiln_op_operand(w->op, i);
    cg_vstore(b, v, dst, w->maps[i]->num_results, ix);
  }
}

/* Sets the blocked loop's iv to block row r. */
static void set_row(lw *w, kiln_builder *b, kiln_value **ivs, int64_t r) {
  if (w->rloop >= 0) ivs[w->rloop] = cg_add(b, w->rbase, cg_index(b, r));
}

/* A window's running max, acc = maximumf(acc, x) on float vectors, marked
 * fastmath<nsz>: LLVM then keeps the NaN propagation (vmaxps and a
 * blend of a NaN accumulator: three instructions on x86) but drops the
 * ordering of -0 below +0 (three more, on the accumulator's dependency
 * chain). A window of zeros of both signs may so give either sign, as
 * in ONNX Runtime and PyTorch. A 3x3/2 max pool over 112x112x64 NHWC,
 * one worker: 112 -> 75 us. */
static kiln_value *window_max(kiln_builder *b, kiln_value *acc, kiln_value *x) {
  kiln_value *ops[2] = {acc, x};
  kiln_named_attr fm = {kiln_intern_cstr(b->ctx, "fastmath"), kiln_attr_opaque(b->ctx, "arith", "fastmath<nsz>")};
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_MAXIMUMF, 2, ops, 1, &acc->type, kiln_attr_dict(b->ctx, 1, &fm)), 0);
}

static bool emit_vector_body(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **acc,
                             kiln_value **out) {
  int lin = w->vloop;
  kiln_value *in[CG_MAX_OPERANDS], *ix[KILN_MAX_LOOPS];
  for (uint32_t i = 0; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    in[i] = NULL;
    if (i >= w->nin && acc) {
      in[i] = acc[i - w->nin];
      continue;
    }
    if (i >= w->nin && !w->need_out[i]) continue;
    if (!is_memref(v)) {
      in[i] = v;
      continue;
    }
    indices(b, w->maps[i], ivs, ix);
    uint32_t n = w->maps[i]->num_results;
    if (map_uses_loop(w->maps[i], lin, w->loops))
      in[i] = cg_vload(b, vec_of(w->c, v->type->elem, w->vw), v, n, ix);
    else
      in[i] = cg_load(b, v, n, ix);
  }
  if (!body_vector(w, b, in, ivs, out)) return false;
  for (uint32_t j = 0; acc && j < w->nops - w->nin; j++) {
    kiln_op *d = out[j]->def;
    if (!d || d->kind != KILN_OP_ARITH_MAXIMUMF || out[j]->type->kind != KILN_TYPE_VECTOR ||
        !kiln_type_is_float(out[j]->type->elem) || kiln_value_has_uses(out[j]) || kiln_op_get_attr(d, "fastmath"))
      continue;
    uint32_t k = kiln_op_operand(d, 0) == acc[j] ? 0 : kiln_op_operand(d, 1) == acc[j] ? 1 : 2;
    if (k == 2 || acc[j]->type != out[j]->type) continue;
    kiln_builder mb = kiln_builder_after(d);
    mb.loc = d->loc;
    out[j] = window_max(&mb, acc[j], kiln_op_operand(d, 1 - k));
    kiln_op_erase(d);
  }
  return true;
}

/* Reduction loops (from level p) with vector accumulators: rcount sets
 * of one per output, one set per row of the register block, updated by
 * the body at each row in turn. */
static bool emit_vector_reductions(lw *w, kiln_builder *b, int p, kiln_value **ivs,
                                   kiln_value **acc, kiln_value **yielded) {
  uint32_t nout = w->nops - w->nin, nacc = (uint32_t)w->rcount * nout;
  if (p == w->loops) {
    for (int64_t r = 0; r < w->rcount; r++) {
      kiln_value *out[CG_MAX_OPERANDS];
      set_row(w, b, ivs, r);
      if (!emit_vector_body(w, b, ivs, acc + r * nout, out)) return false;
      for (uint32_t j = 0; j < nout; j++) yielded[r * nout + j] = as_vector(b, out[j], w->vw);
    }
    return true;
  }
  int l = w->order[p];
  kiln_builder body;
  kiln_op *loop = cg_for(b, cg_index(b, 0), w->bound[l], cg_index(b, 1), nacc, acc, &body);
  ivs[l] = cg_for_iv(loop);
  kiln_value *inner[CPU_VEC_MAX_ACC], *inner_y[CPU_VEC_MAX_ACC];
  for (uint32_t j = 0; j < nacc; j++) inner[j] = loop->regions[0].first->args[1 + j];
  if (!emit_vector_reductions(w, &body, p + 1, ivs, inner, inner_y)) return false;
  cg_for_set_yield(loop, nacc, inner_y);
  for (uint32_t j = 0; j < nacc; j++) yielded[j] = kiln_op_result(loop, j);
  return true;
}

/* The iterations of loop l that whole vectors cover: a constant, or
 * n - n % VW at run time. */
static kiln_value *vector_part(lw *w, kiln_builder *b, int l) {
  if (w->sb[l] >= 0) return cg_index(b, w->sb[l] / w->vw * w->vw);
  kiln_value *rem = cg_bin(b, KILN_OP_ARITH_REMUI, w->bound[l], cg_index(b, w->vw));
  return cg_bin(b, KILN_OP_ARITH_SUBI, w->bound[l], rem);
}

/* One vector loop over [lo, hi) of the vector loop at level p, `width`
 * lanes a step, for each row of the register block: the outputs' loads
 * (or the fused fill), the body (and the reductions inside it), the
 * stores (through the fused epilogue). */
static bool emit_vector_step(lw *w, kiln_builder *b, int p, kiln_value **ivs, kiln_value *lo,
                             kiln_value *hi, int64_t width) {
  int l = w->order[p];
  int64_t full = w->vw;
  kiln_builder body;
  w->vw = width;
  kiln_op *loop = cg_for(b, lo, hi, cg_index(b, width), 0, NULL, &body);
  ivs[l] = cg_for_iv(loop);
  kiln_value *vals[CPU_VEC_MAX_ACC];
  uint32_t nout = w->nops - w->nin;
  bool ok;
  if (w->nred) {
    kiln_value *init[CPU_VEC_MAX_ACC];
    for (int64_t r = 0; r < w->rcount; r++) {
      set_row(w, &body, ivs, r);
      vload_outputs(w, &body, ivs, init + r * nout);
    }
    ok = emit_vector_reductions(w, &body, p + 1, ivs, init, vals);
  } else {
    ok = emit_vector_body(w, &body, ivs, NULL, vals);
  }
  for (int64_t r = 0; ok && r < w->rcount; r++) {
    set_row(w, &body, ivs, r);
    vstore_outputs(w, &body, ivs, vals + r * nout);
  }
  w->vw = full;
  return ok;
}

static bool emit_vector(lw *w, kiln_builder *b, int p, kiln_value **ivs) {
  int l = w->order[p];
  kiln_builder body;
  if (p < w->first_red - 1 && l == w->rloop) {
    /* Blocks of rb rows, then one block of the rows left. */
    int64_t n = w->sb[l], main = n / w->rb * w->rb;
    if (main) {
      kiln_op *loop = cg_for(b, cg_index(b, 0), cg_index(b, main), cg_index(b, w->rb), 0, NULL, &body);
      w->rbase = cg_for_iv(loop), w->rcount = w->rb;
      if (!emit_vector(w, &body, p + 1, ivs)) return false;
    }
    if (main < n) {
      w->rbase = cg_index(b, main), w->rcount = n - main;
      if (!emit_vector(w, b, p + 1, ivs)) return false;
    }
    return true;
  }
  if (p < w->first_red - 1) {
    kiln_op *loop = cg_for(b, cg_index(b, 0), w->bound[l], cg_index(b, 1), 0, NULL, &body);
    ivs[l] = cg_for_iv(loop);
    return emit_vector(w, &body, p + 1, ivs);
  }
  /* A fused fill or epilogue runs only in the vector loops: the rest
   * then takes 1-lane vectors, not the scalar nest. */
  bool fused = w->init || w->epi.op;
  int64_t n = w->sb[l];
  kiln_value *rest;
  if (n < 0) {
    /* Run-time size: whole vectors over n - n % VW, then the rest. */
    rest = vector_part(w, b, l);
    if (!emit_vector_step(w, b, p, ivs, cg_index(b, 0), rest, w->vw)) return false;
    if (fused) return emit_vector_step(w, b, p, ivs, rest, w->bound[l], 1);
  } else {
    /* Static size: whole vectors, then at most one narrower vector per
     * halving down to 4 lanes (24 = 16 + 8 on 16 lanes), then 1-lane
     * vectors when fused, else scalars. */
    int64_t done = 0;
    for (int64_t width = w->vw; width >= 1 && done < n;
         width = width > 4 ? width / 2 : width > 1 && fused ? 1 : 0) {
      int64_t end = done + (n - done) / width * width;
      if (end == done) continue;
      if (!emit_vector_step(w, b, p, ivs, cg_index(b, done), cg_index(b, end), width)) return false;
      done = end;
    }
    if (done == n) return true;
    rest = cg_index(b, done);
  }
  /* Leftover iterations of l: the scalar nest from this level on, for
   * each row of the block. */
  w->lb[l] = rest;
  for (int64_t r = 0; r < w->rcount; r++) {
    set_row(w, b, ivs, r);
    if (!emit_scalar(w, b, p, ivs, NULL, NULL)) return false;
  }
  return true;
}

bool cpu_vector_body_op(const kiln_op *o) {
  if (o->num_regions || o->num_results != 1 || o->num_operands > 8) return false;
  if (o->kind == KILN_OP_ARITH_CONSTANT) return !kiln_type_is_shaped(o->results[0].type);
  return kiln_op_has_flag(o, KILN_OPF_ELEMENTWISE) && o->results[0].type->kind != KILN_TYPE_INDEX;
}

/* ---- vector reductions along the innermost loop ----
 * When the innermost loop is a reduction that every input reads
 * contiguously (or not at all) and each output is combined as
 * out = op(out, value) with op an associative arith op, the loop runs
 * on VW-lane partial results started at op's identity, folded into the
 * scalar accumulator with vector.reduction (reassociation allowed), and
 * the leftover iterations run scalar. The combining ops, their identities
 * and vector kinds are the combiner column of dialects/arith.def
 * (kiln_combiner_of). */
static bool can_vectorize_reduction(lw *w, int64_t vw) {
  if (vw < 2 || !w->nred || !w->accumulate) return false;
  int lr = w->order[w->loops - 1];
  if (w->sb[lr] >= 0 && w->sb[lr] < vw) return false;
  for (uint32_t i = 0; i < w->nops; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    if (!elem_ok(kiln_type_elem_or_self(v->type))) return false;
    if (!is_memref(v) || i >= w->nin) continue;
    const kiln_affine_map *m = w->maps[i];
    bool uses = false;
    for (uint32_t r = 0; r < m->num_results; r++) {
      int64_t coef[KILN_MAX_LOOPS] = {0}, cst = 0;
      if (!cg_linear_expr(m->results[r], w->loops, coef, &cst)) return false;
      if (!coef[lr]) continue;
      if (r != m->num_results - 1 || coef[lr] != 1) return false;
      uses = true;
    }
    int64_t st[KILN_MAX_LOOPS], off;
    if (uses && (!kiln_memref_strides(v->type, st, &off) || st[v->type->rank - 1] != 1)) return false;
  }
  /* The combiner of each output. */
  switch (w->op->kind) {
  case KILN_OP_LINALG_MATMUL: case KILN_OP_LINALG_BATCH_MATMUL: case KILN_OP_LINALG_MATVEC:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: case KILN_OP_LINALG_CONV_2D_NCHW_FCHW:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_SUM: case KILN_OP_LINALG_POOLING_NCHW_SUM: {
    bool fl = kiln_type_is_float(kiln_type_elem_or_self(kiln_op_operand(w->op, w->nin)->type));
    w->combiner[w->nin] = fl ? KILN_OP_ARITH_ADDF : KILN_OP_ARITH_ADDI;
    return true;
  }
  case KILN_OP_LINALG_POOLING_NHWC_MAX: case KILN_OP_LINALG_POOLING_NCHW_MAX: {
    bool fl = kiln_type_is_float(kiln_type_elem_or_self(kiln_op_operand(w->op, w->nin)->type));
    w->combiner[w->nin] = fl ? KILN_OP_ARITH_MAXIMUMF : KILN_OP_ARITH_MAXSI;
    return true;
  }
  case KILN_OP_LINALG_GENERIC: case KILN_OP_LINALG_REDUCE: break;
  default: return false;
  }
  kiln_block *body = w->op->regions[0].first;
  kiln_op *yield = body ? kiln_block_terminator(body) : NULL;
  if (!yield || yield->kind != KILN_OP_LINALG_YIELD || body->num_args != w->nops ||
      yield->num_operands != w->nops - w->nin)
    return false;
  for (kiln_op *o = body->first; o != yield; o = o->next) {
    if (o->kind == KILN_OP_LINALG_INDEX) {
      const kiln_attr *d = kiln_op_get_attr(o, "dim");
      if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= w->loops || d->i == lr)
        return false;
      continue;
    }
    if (!cpu_vector_body_op(o)) return false;
  }
  for (uint32_t j = 0; j < yield->num_operands; j++) {
    kiln_value *acc = body->args[w->nin + j], *y = kiln_op_operand(yield, j);
    kiln_op *c = y->def;
    const kiln_combiner *ci = c && c->parent == body ? kiln_combiner_of(c->kind) : NULL;
    /* out = op(acc, value): acc used only there, value not from acc. */
    if (!ci || !kiln_value_has_one_use(acc)) return false;
    kiln_value *a = kiln_op_operand(c, 0), *v = kiln_op_operand(c, 1);
    if (v == acc) v = a, a = acc;
    if (a != acc || v == acc) return false;
    if (!kiln_value_has_one_use(y)) return false;
    w->combiner[w->nin + j] = c->kind;
  }
  return true;
}

static bool emit_red_vector(lw *w, kiln_builder *b, kiln_value **ivs, kiln_value **acc,
                            kiln_value **yielded) {
  uint32_t nout = w->nops - w->nin;
  int l = w->order[w->loops - 1];
  int64_t n = w->sb[l], main = n / w->vw * w->vw;
  kiln_value *main_v = vector_part(w, b, l);
  kiln_value *init[CG_MAX_OPERANDS];
  for (uint32_t j = 0; j < nout; j++) {
    const kiln_type *et = acc[j]->type;
    const kiln_combiner *ci = kiln_combiner_of(w->combiner[w->nin + j]);
    int64_t iid = ci->int_identity;
    if (!kiln_type_is_float(et) && et->width < 64 && (iid == INT64_MIN || iid == INT64_MAX))
      iid = iid == INT64_MIN ? -((int64_t)1 << (et->width - 1)) : ((int64_t)1 << (et->width - 1)) - 1;
    kiln_value *id = kiln_type_is_float(et) ? cg_const_like(b, et, ci->float_identity, 0)
                                           : kiln_build_constant(b, kiln_attr_int(b->ctx, et, iid));
    init[j] = cg_broadcast(b, id, vec_of(w->c, et, w->vw));
  }
  kiln_builder body;
  kiln_op *loop = cg_for(b, cg_index(b, 0), main_v, cg_index(b, w->vw), nout, init, &body);
  ivs[l] = cg_for_iv(loop);
  kiln_value *vacc[CG_MAX_OPERANDS], *out[CG_MAX_OPERANDS];
  for (uint32_t j = 0; j < nout; j++) vacc[j] = loop->regions[0].first->args[1 + j];
  if (!emit_vector_body(w, &body, ivs, vacc, out)) return false;
  for (uint32_t j = 0; j < nout; j++) out[j] = as_vector(&body, out[j], w->vw);
  cg_for_set_yield(loop, nout, out);
  /* Fold the lanes into the running scalar accumulator. */
  kiln_value *folded[CG_MAX_OPERANDS];
  for (uint32_t j = 0; j < nout; j++) {
    const kiln_combiner *ci = kiln_combiner_of(w->combiner[w->nin + j]);
    kiln_context *c = b->ctx;
    const kiln_type *et = acc[j]->type;
    kiln_value *ops[2] = {kiln_op_result(loop, j), acc[j]};
    char kind[32];
    snprintf(kind, sizeof kind, "kind<%s>", ci->vector_kind);
    kiln_named_attr na[2] = {{"fastmath", kiln_attr_opaque(c, "arith", "fastmath<reassoc>")},
                             {"kind", kiln_attr_opaque(c, "vector", kind)}};
    bool fl = kiln_type_is_float(et);
    folded[j] = kiln_op_result(
        kiln_build(b, KILN_OP_VECTOR_REDUCTION, 2, ops, 1, &et, kiln_attr_dict(c, fl ? 2 : 1, fl ? na : na + 1)), 0);
  }
  if (n >= 0 && main == n) {
    memcpy(yielded, folded, nout * sizeof *folded);
    return true;
  }
  w->lb[l] = main_v;
  bool ok = emit_scalar(w, b, w->loops - 1, ivs, folded, yielded);
  w->lb[l] = NULL;
  return ok;
}

/* For the vector path of an op with reductions and one output: blocks
 * of rows of the parallel loop just outside the vector loop (when no
 * input may alias the output, whose element order the blocking changes),
 * and the fill before and the elementwise generic after the op when the
 * vector loop runs along the output's last dim (fuse_epilogue.c). */
static void plan_block(lw *w, kiln_op **fill) {
  kiln_value *out = kiln_op_operand(w->op, w->nin);
  if (!is_memref(out)) return;
  kiln_value *base = cpu_base_memref(out);
  bool alias = false;
  for (uint32_t i = 0; i < w->nin; i++) {
    kiln_value *v = kiln_op_operand(w->op, i);
    alias |= is_memref(v) && cpu_base_memref(v) == base;
  }
  if (alias) return;
  if (w->first_red >= 2) {
    int rl = w->order[w->first_red - 2];
    if (w->sb[rl] >= 2) w->rloop = rl, w->rb = w->sb[rl] < CPU_VEC_ROWS ? w->sb[rl] : CPU_VEC_ROWS;
  }
  const kiln_affine_map *om = w->maps[w->nin];
  const kiln_affine_expr *last = om->num_results ? om->results[om->num_results - 1] : NULL;
  int64_t st[KILN_MAX_LOOPS], off;
  if (!last || last->kind != KILN_AFFINE_DIM || last->value != w->vloop ||
      !kiln_memref_strides(out->type, st, &off) || st[out->type->rank - 1] != 1)
    return;
  *fill = cpu_fused_fill(w->op, out);
  if (*fill) w->init = kiln_op_operand(*fill, 0);
  /* also a consumer writing another buffer when the output is the
   * dispatch's scratch (a quantized depthwise convolution's f32 sums
   * requantized to bytes): the sums are then never stored */
  cpu_fused_epilogue_to(w->op, out, &w->epi);
}

static kiln_error *lower_op(kiln_op *op, int64_t vw) {
  kiln_op *tail = NULL;
  if ((op->kind == KILN_OP_LINALG_MATMUL || op->kind == KILN_OP_LINALG_BATCH_MATMUL) &&
      cpu_lower_matmul(op, vw, &tail)) {
    kiln_op_erase(op);
    return tail ? lower_op(tail, vw) : NULL;
  }
  if (cpu_lower_conv(op, vw)) {
    kiln_op_erase(op);
    return NULL;
  }
  if (op->kind == KILN_OP_LINALG_SOFTMAX) {
    kiln_error *err = cpu_lower_softmax(op, vw);
    if (!err) kiln_op_erase(op);
    return err;
  }
  lw w;
  kiln_error *err = analyze(&w, op);
  if (err) return err;
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  if ((err = bound_values(&w, &b))) return err;
  kiln_value *ivs[KILN_MAX_LOOPS] = {0};
  unsigned errs = kiln_context_error_count(w.c);
  w.vw = vw;
  bool ok;
  w.rloop = -1, w.rb = w.rcount = 1;
  kiln_op *fill = NULL;
  if (can_vectorize(&w, vw)) {
    w.vloop = vec_loop(&w);
    uint32_t nout = w.nops - w.nin;
    if (w.nred && w.accumulate && nout == 1) plan_block(&w, &fill);
    ok = emit_vector(&w, &b, 0, ivs);
  } else {
    w.red_vec = can_vectorize_reduction(&w, vw);
    w.vloop = w.order[w.loops > 0 ? w.loops - 1 : 0];
    ok = emit_scalar(&w, &b, 0, ivs, NULL, NULL);
  }
  if (!ok || kiln_context_error_count(w.c) != errs)
    return kiln_op_error(op, "could not be lowered to loops (see the diagnostics above)");
  if (fill) kiln_op_erase(fill);
  if (w.epi.op) kiln_op_erase(w.epi.op);
  kiln_op_erase(op);
  return NULL;
}

typedef struct collect {
  kiln_op **ops;
  uint32_t n, cap;
  kiln_context *c;
} collect;

static kiln_walk_result gather(kiln_op *op, void *user) {
  collect *cl = user;
  if (!kiln_op_has_flag(op, KILN_OPF_LINALG)) return KILN_WALK_ADVANCE;
  if (cl->n == cl->cap) {
    uint32_t cap = cl->cap ? cl->cap * 2 : 16;
    kiln_op **ops = kiln_alloc(cl->c, cap * sizeof *ops);
    if (cl->n) memcpy(ops, cl->ops, cl->n * sizeof *ops);
    cl->ops = ops, cl->cap = cap;
  }
  cl->ops[cl->n++] = op;
  return KILN_WALK_SKIP;
}

static bool has_reduction(kiln_op *op) {
  const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
  bool red[KILN_MAX_LOOPS];
  int64_t bounds[KILN_MAX_LOOPS];
  if (op->num_operands > CG_MAX_OPERANDS) return false;
  int n = cg_static_bounds(op, maps, red, bounds);
  for (int l = 0; l < n; l++)
    if (red[l]) return true;
  return false;
}

static kiln_error *lower_func(kiln_op *func, int64_t vw) {
  collect cl = {.c = kiln_op_context(func)};
  kiln_walk_pre(func, gather, &cl);
  /* Max pools of a monotone chain (a convolution's bias and ReLU fused
   * in front) take the chain once per output, as an epilogue: gathered
   * again with the new generics. */
  bool hoisted = false;
  for (uint32_t i = 0; i < cl.n; i++)
    if (has_reduction(cl.ops[i])) hoisted |= cpu_hoist_max_chain(cl.ops[i]);
  if (hoisted) {
    cl.n = 0;
    kiln_walk_pre(func, gather, &cl);
  }
  /* Convolutions first: they may take the fill before them and the
   * elementwise op after them into their microkernel (lower_conv.c),
   * erasing those. Each op's loops go where the op was, so the order of
   * lowering does not change the order of the code. */
  for (uint32_t i = 0; i < cl.n; i++)
    if (cl.ops[i]->kind != KILN_OP_LINALG_MATMUL && cpu_lower_conv(cl.ops[i], vw)) kiln_op_erase(cl.ops[i]);
  /* Then the other ops with reduction loops (they may take their fill
   * and elementwise consumer too), then the rest. */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t i = 0; i < cl.n; i++) {
      if (!cl.ops[i]->parent || has_reduction(cl.ops[i]) != (pass == 0)) continue;
      kiln_error *err = lower_op(cl.ops[i], vw);
      if (err) return err;
    }
  if (cl.n) kiln_pass_dce(func, NULL);
  return NULL;
}

static kiln_error *lower_kernel(cg_kernel *k, void *user) {
  (void)user;
  return lower_func(k->func, cg_launch_int(k->func, "vector_width", cpu_vector_width(k->target)));
}

kiln_error *kiln_codegen_cpu_lower_to_loops(kiln_op *module, void *user) {
  (void)user;
  kiln_error *err = cg_for_each_kernel(module, lower_kernel, NULL);
  if (err) return err;
  /* Other functions with linalg on memrefs (codegen-level inputs). */
  kiln_block *top = kiln_module_body(module);
  for (kiln_op *f = top ? top->first : NULL; f; f = f->next)
    if (f->kind == KILN_OP_FUNC_FUNC && (err = lower_func(f, 4))) return err;
  return NULL;
}
