/* Shared helpers of codegen/cpu: which funcs are llvm-cpu kernels, the
 * target's vector width, the root op, static iteration bounds, the launch
 * attribute, small builders that fold index constants, and the scalar
 * body of every structured op (named ops get their implied body). */
#include "cg_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

kiln_block *cg_func_body(kiln_op *func) {
  return func->num_regions ? func->regions[0].first : NULL;
}

static bool is_kernel_func(kiln_op *f) {
  if (f->kind != KILN_OP_FUNC_FUNC || !cg_func_body(f)) return false;
  const kiln_attr *ft = kiln_op_get_attr(f, "function_type");
  return ft && ft->kind == KILN_ATTR_TYPE && ft->type->num_inputs == 0 &&
         ft->type->num_results == 0;
}

static kiln_error *each_in_module(kiln_op *mod, cg_kernel *k, cg_kernel_fn fn, void *user) {
  kiln_block *b = kiln_module_body(mod);
  for (kiln_op *f = b ? b->first : NULL; f; f = f->next) {
    if (!is_kernel_func(f)) continue;
    k->func = f;
    k->export = NULL;
    if (k->variant) {
      const char *name = kiln_symbol_name(f);
      kiln_block *vb = k->variant->regions[0].first;
      for (kiln_op *e = vb ? vb->first : NULL; e; e = e->next)
        if (e->kind == KILN_OP_HAL_EXECUTABLE_EXPORT && name && kiln_symbol_name(e) &&
            strcmp(kiln_symbol_name(e), name) == 0)
          k->export = e;
    }
    kiln_error *err = fn(k, user);
    if (err) return err;
  }
  return NULL;
}

kiln_error *cg_for_each_kernel(kiln_op *module, cg_kernel_fn fn, void *user) {
  kiln_op *var = kiln_op_parent_op(module);
  if (var && var->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) {
    /* A variant's inner module: the variant names the target, its exports
     * and the host dispatch sites of the executable record the grid. */
    const kiln_attr *t = kiln_op_get_attr(var, "target");
    kiln_op *exe = kiln_op_parent_op(var);
    cg_kernel k = {.executable = exe, .variant = var,
                   .target = t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu",
                   .top = exe ? kiln_op_parent_op(exe) : NULL};
    return each_in_module(module, &k, fn, user);
  }
  /* A codegen-level module: its kernels directly. */
  const kiln_attr *t = kiln_op_get_attr(module, "kiln.target");
  cg_kernel k = {.target = t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu",
                 .top = module};
  return each_in_module(module, &k, fn, user);
}

static bool has_feature(const char *s, const char *f) {
  size_t n = strlen(f);
  for (const char *p = strstr(s, f); p; p = strstr(p + 1, f))
    if ((p[-1] == '+' || p[-1] == ',') && (p[n] == 0 || p[n] == '+' || p[n] == ','))
      return true;
  return false;
}

int64_t cg_vector_width(const char *target) {
  const char *colon = strchr(target, ':');
  const char *spec = colon ? colon + 1 : "host";
  if (strncmp(spec, "host", 4) == 0) {
    /* The host: what this machine runs. */
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return 8;
#endif
    return 4;
  }
  if (has_feature(spec, "avx512f")) return 16;
  if (has_feature(spec, "avx2") || has_feature(spec, "avx")) return 8;
  return 4;
}

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

const char *cg_pipeline_name(cg_root_kind k) {
  static const char *const names[] = {"cpu-matmul", "cpu-conv", "cpu-pooling",
                                      "cpu-reduction", "cpu-elementwise"};
  return names[k];
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
      if (t->rank > KILN_MAX_LOOPS || !cg_strides(t, st, &off)) return -1;
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

const kiln_attr *cg_launch(const kiln_op *func) {
  const kiln_attr *a = kiln_op_get_attr(func, "kiln.launch");
  return a && a->kind == KILN_ATTR_DICT ? a : NULL;
}

int cg_launch_array(const kiln_op *func, const char *name, int64_t *out, int max) {
  const kiln_attr *l = cg_launch(func);
  const kiln_attr *a = l ? kiln_dict_get(l, name) : NULL;
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || (int)a->count > max) return -1;
  for (uint32_t i = 0; i < a->count; i++) out[i] = ((const int64_t *)a->data)[i];
  return (int)a->count;
}

int64_t cg_launch_int(const kiln_op *func, const char *name, int64_t dflt) {
  const kiln_attr *l = cg_launch(func);
  const kiln_attr *a = l ? kiln_dict_get(l, name) : NULL;
  return a && a->kind == KILN_ATTR_INTEGER ? a->i : dflt;
}

bool cg_strides(const kiln_type *t, int64_t *strides, int64_t *offset) {
  const kiln_attr *l = t->layout;
  if (l && l->kind == KILN_ATTR_STRIDED) {
    if (l->count != t->rank) return false;
    for (uint32_t i = 0; i < t->rank; i++) strides[i] = ((const int64_t *)l->data)[i];
    *offset = l->i;
    return true;
  }
  if (l && !(l->kind == KILN_ATTR_AFFINE_MAP && kiln_affine_map_is_identity(l->map)))
    return false;
  int64_t s = 1;
  for (uint32_t i = t->rank; i-- > 0;) {
    strides[i] = s;
    if (s != KILN_DYNAMIC) s = t->shape[i] == KILN_DYNAMIC ? KILN_DYNAMIC : s * t->shape[i];
  }
  *offset = 0;
  return true;
}

/* ---- builders ---- */
kiln_value *cg_affine_value(kiln_builder *b, const kiln_affine_expr *e, kiln_value *const *ivs) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: return ivs[e->value];
  case KILN_AFFINE_CONST: return cg_index(b, e->value);
  case KILN_AFFINE_ADD: return cg_add(b, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_MUL: return cg_mul(b, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_MOD:
    return cg_bin(b, KILN_OP_ARITH_REMSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_FLOORDIV:
    return cg_bin(b, KILN_OP_ARITH_FLOORDIVSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  case KILN_AFFINE_CEILDIV:
    return cg_bin(b, KILN_OP_ARITH_CEILDIVSI, cg_affine_value(b, e->lhs, ivs), cg_affine_value(b, e->rhs, ivs));
  default: return NULL;
  }
}

kiln_value *cg_index(kiln_builder *b, int64_t v) {
  return kiln_build_constant(b, kiln_attr_int(b->ctx, kiln_type_index(b->ctx), v));
}

kiln_value *cg_const_like(kiln_builder *b, const kiln_type *t, double f, int64_t i) {
  if (kiln_type_is_float(t)) return kiln_build_constant(b, kiln_attr_float(b->ctx, t, f));
  return kiln_build_constant(b, kiln_attr_int(b->ctx, t, i));
}

kiln_value *cg_bin(kiln_builder *b, kiln_op_kind kind, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *t = x->type;
  return kiln_op_result(kiln_build(b, kind, 2, ops, 1, &t, NULL), 0);
}

kiln_value *cg_cmpi(kiln_builder *b, int64_t pred, kiln_value *x, kiln_value *y) {
  kiln_value *ops[2] = {x, y};
  const kiln_type *t = kiln_type_int(b->ctx, 1);
  kiln_named_attr na = {"predicate", kiln_attr_int(b->ctx, kiln_type_int(b->ctx, 64), pred)};
  return kiln_op_result(kiln_build(b, KILN_OP_ARITH_CMPI, 2, ops, 1, &t,
                                   kiln_attr_dict(b->ctx, 1, &na)), 0);
}

bool cg_const_int(const kiln_value *v, int64_t *out) {
  const kiln_attr *a = kiln_value_constant(v);
  if (!a || a->kind != KILN_ATTR_INTEGER) return false;
  *out = a->i;
  return true;
}

kiln_value *cg_add(kiln_builder *b, kiln_value *x, kiln_value *y) {
  int64_t p, q;
  bool cx = cg_const_int(x, &p), cy = cg_const_int(y, &q);
  if (cx && cy) return cg_index(b, p + q);
  if (cx && p == 0) return y;
  if (cy && q == 0) return x;
  return cg_bin(b, KILN_OP_ARITH_ADDI, x, y);
}

kiln_value *cg_mul(kiln_builder *b, kiln_value *x, kiln_value *y) {
  int64_t p, q;
  bool cx = cg_const_int(x, &p), cy = cg_const_int(y, &q);
  if (cx && cy) return cg_index(b, p * q);
  if ((cx && p == 0) || (cy && q == 0)) return cg_index(b, 0);
  if (cx && p == 1) return y;
  if (cy && q == 1) return x;
  return cg_bin(b, KILN_OP_ARITH_MULI, x, y);
}

kiln_value *cg_muli(kiln_builder *b, kiln_value *x, int64_t c) {
  return cg_mul(b, x, cg_index(b, c));
}

kiln_op *cg_for(kiln_builder *b, kiln_value *lb, kiln_value *ub, kiln_value *step,
                uint32_t ninit, kiln_value *const *inits, kiln_builder *body) {
  kiln_value **ops = kiln_alloc(b->ctx, (3 + ninit) * sizeof *ops);
  const kiln_type **types = kiln_alloc(b->ctx, (ninit + 1) * sizeof *types);
  ops[0] = lb, ops[1] = ub, ops[2] = step;
  for (uint32_t i = 0; i < ninit; i++) ops[3 + i] = inits[i], types[i] = inits[i]->type;
  kiln_op *loop = kiln_build(b, KILN_OP_SCF_FOR, 3 + ninit, ops, ninit, types, NULL);
  kiln_block *blk = kiln_op_entry_block(b->ctx, loop, 0);
  kiln_block_add_arg(b->ctx, blk, lb->type, b->loc);
  kiln_value **args = kiln_alloc(b->ctx, (ninit + 1) * sizeof *args);
  for (uint32_t i = 0; i < ninit; i++) args[i] = kiln_block_add_arg(b->ctx, blk, inits[i]->type, b->loc);
  kiln_builder yb = kiln_builder_at_end(b->ctx, blk);
  yb.loc = b->loc;
  kiln_op *y = kiln_build(&yb, KILN_OP_SCF_YIELD, ninit, args, 0, NULL, NULL);
  *body = kiln_builder_before(y);
  body->loc = b->loc;
  return loop;
}

kiln_value *cg_for_iv(kiln_op *loop) { return loop->regions[0].first->args[0]; }

void cg_for_set_yield(kiln_op *loop, uint32_t n, kiln_value *const *vals) {
  kiln_op *y = kiln_block_terminator(loop->regions[0].first);
  kiln_op_set_operands(y, n, vals);
}

kiln_value *cg_load(kiln_builder *b, kiln_value *memref, uint32_t n, kiln_value *const *idx) {
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  ops[0] = memref;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  const kiln_type *t = memref->type->elem;
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_LOAD, 1 + n, ops, 1, &t, NULL), 0);
}

void cg_store(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
              kiln_value *const *idx) {
  kiln_value *ops[2 + KILN_MAX_LOOPS];
  ops[0] = val, ops[1] = memref;
  for (uint32_t i = 0; i < n; i++) ops[2 + i] = idx[i];
  kiln_build(b, KILN_OP_MEMREF_STORE, 2 + n, ops, 0, NULL, NULL);
}

kiln_value *cg_vload(kiln_builder *b, const kiln_type *vt, kiln_value *memref, uint32_t n,
                     kiln_value *const *idx) {
  kiln_value *ops[1 + KILN_MAX_LOOPS];
  ops[0] = memref;
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_LOAD, 1 + n, ops, 1, &vt, NULL), 0);
}

void cg_vstore(kiln_builder *b, kiln_value *val, kiln_value *memref, uint32_t n,
               kiln_value *const *idx) {
  kiln_value *ops[2 + KILN_MAX_LOOPS];
  ops[0] = val, ops[1] = memref;
  for (uint32_t i = 0; i < n; i++) ops[2 + i] = idx[i];
  kiln_build(b, KILN_OP_VECTOR_STORE, 2 + n, ops, 0, NULL, NULL);
}

kiln_value *cg_broadcast(kiln_builder *b, kiln_value *s, const kiln_type *vt) {
  return kiln_op_result(kiln_build(b, KILN_OP_VECTOR_BROADCAST, 1, &s, 1, &vt, NULL), 0);
}

kiln_value *cg_dim(kiln_builder *b, kiln_value *memref, uint32_t d) {
  const kiln_type *t = memref->type;
  if (t->shape[d] != KILN_DYNAMIC) return cg_index(b, t->shape[d]);
  kiln_value *ops[2] = {memref, cg_index(b, d)};
  const kiln_type *it = kiln_type_index(b->ctx);
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_DIM, 2, ops, 1, &it, NULL), 0);
}

kiln_value *cg_subview(kiln_builder *b, kiln_value *src, kiln_value *const *offs,
                       kiln_value *const *sizes) {
  const kiln_type *t = src->type;
  uint32_t r = t->rank;
  int64_t so[KILN_MAX_LOOPS], ss[KILN_MAX_LOOPS], st[KILN_MAX_LOOPS], shape[KILN_MAX_LOOPS];
  int64_t strides[KILN_MAX_LOOPS], off;
  kiln_value *ops[1 + 2 * KILN_MAX_LOOPS];
  uint32_t n = 0, noff = 0, nsz = 0;
  ops[n++] = src;
  cg_strides(t, strides, &off);
  int64_t res_off = off;
  for (uint32_t i = 0; i < r; i++) {
    int64_t c;
    if (cg_const_int(offs[i], &c)) {
      so[i] = c;
      if (res_off != KILN_DYNAMIC && strides[i] != KILN_DYNAMIC) res_off += c * strides[i];
      else res_off = KILN_DYNAMIC;
    } else {
      so[i] = KILN_DYNAMIC, ops[n++] = offs[i], noff++;
      res_off = KILN_DYNAMIC;
    }
  }
  for (uint32_t i = 0; i < r; i++) {
    int64_t c;
    if (cg_const_int(sizes[i], &c)) ss[i] = c, shape[i] = c;
    else ss[i] = KILN_DYNAMIC, shape[i] = KILN_DYNAMIC, ops[n++] = sizes[i], nsz++;
    st[i] = 1;
  }
  kiln_context *c = b->ctx;
  const kiln_attr *layout = kiln_attr_strided(c, res_off, r, strides);
  const kiln_type *rt = kiln_type_memref(c, r, shape, t->elem, layout, t->memspace);
  int64_t seg[4] = {1, noff, nsz, 0};
  kiln_named_attr na[4] = {
      {"operandSegmentSizes", kiln_attr_dense_array(c, kiln_type_int(c, 32), 4, seg, NULL)},
      {"static_offsets", kiln_attr_dense_i64_array(c, r, so)},
      {"static_sizes", kiln_attr_dense_i64_array(c, r, ss)},
      {"static_strides", kiln_attr_dense_i64_array(c, r, st)}};
  return kiln_op_result(kiln_build(b, KILN_OP_MEMREF_SUBVIEW, n, ops, 1, &rt,
                                   kiln_attr_dict(c, 4, na)), 0);
}

/* ---- bodies ---- */
/* Scalar type of a body value (scalar, or vector when vectorizing). */
#define ELEM(v) kiln_type_elem_or_self((v)->type)

static kiln_value *combine(kiln_builder *b, bool fl, kiln_op_kind f, kiln_op_kind i,
                           kiln_value *x, kiln_value *y) {
  return cg_bin(b, fl ? f : i, x, y);
}

bool cg_emit_body(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                  kiln_value *const *ivs, kiln_value **out) {
  uint32_t nin = kiln_linalg_num_inputs(op), nops = op->num_operands;
  const kiln_type *et = kiln_type_elem_or_self(kiln_op_operand(op, nops - 1)->type);
  bool fl = kiln_type_is_float(et);
  if (!fl && !kiln_type_is_int_or_index(et)) return kiln_op_emit_error(op, "unsupported element type");
  switch (op->kind) {
  case KILN_OP_LINALG_FILL:
  case KILN_OP_LINALG_TRANSPOSE:
  case KILN_OP_LINALG_BROADCAST:
    if (ELEM(in[0]) != et) return kiln_op_emit_error(op, "input and output element types differ");
    out[0] = in[0];
    return true;
  case KILN_OP_LINALG_MATMUL: case KILN_OP_LINALG_BATCH_MATMUL: case KILN_OP_LINALG_MATVEC:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF: case KILN_OP_LINALG_CONV_2D_NCHW_FCHW:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC: {
    if (ELEM(in[0]) != et || ELEM(in[1]) != et)
      return kiln_op_emit_error(op, "mixed element types are not supported by lower-to-loops");
    kiln_value *m = combine(b, fl, KILN_OP_ARITH_MULF, KILN_OP_ARITH_MULI, in[0], in[1]);
    out[0] = combine(b, fl, KILN_OP_ARITH_ADDF, KILN_OP_ARITH_ADDI, in[2], m);
    return true;
  }
  case KILN_OP_LINALG_POOLING_NHWC_MAX: case KILN_OP_LINALG_POOLING_NCHW_MAX:
    if (ELEM(in[0]) != et) return kiln_op_emit_error(op, "input and output element types differ");
    out[0] = combine(b, fl, KILN_OP_ARITH_MAXIMUMF, KILN_OP_ARITH_MAXSI, in[2], in[0]);
    return true;
  case KILN_OP_LINALG_POOLING_NHWC_SUM: case KILN_OP_LINALG_POOLING_NCHW_SUM:
    if (ELEM(in[0]) != et) return kiln_op_emit_error(op, "input and output element types differ");
    out[0] = combine(b, fl, KILN_OP_ARITH_ADDF, KILN_OP_ARITH_ADDI, in[2], in[0]);
    return true;
  case KILN_OP_LINALG_GENERIC: case KILN_OP_LINALG_REDUCE: case KILN_OP_LINALG_MAP: {
    kiln_block *body = op->regions[0].first;
    if (!body) return kiln_op_emit_error(op, "has no body");
    uint32_t nargs = op->kind == KILN_OP_LINALG_MAP ? nin : nops;
    if (body->num_args != nargs) return kiln_op_emit_error(op, "body arguments do not match operands");
    kiln_value_map map = {0};
    for (uint32_t i = 0; i < nargs; i++)
      if (in[i]) kiln_value_map_add(b->ctx, &map, body->args[i], in[i]);
    for (kiln_op *o = body->first; o; o = o->next) {
      if (o->kind == KILN_OP_LINALG_YIELD) {
        for (uint32_t i = 0; i < o->num_operands; i++) {
          kiln_value *v = kiln_op_operand(o, i);
          kiln_value *m = kiln_value_map_lookup(&map, v);
          out[i] = m ? m : v;
        }
        return true;
      }
      if (o->kind == KILN_OP_LINALG_INDEX) {
        const kiln_attr *d = kiln_op_get_attr(o, "dim");
        const kiln_affine_map *maps[CG_MAX_OPERANDS + 1];
        int loops = op->num_operands <= CG_MAX_OPERANDS ? cg_iteration(op, maps, NULL) : -1;
        if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0 || d->i >= loops || !ivs[d->i])
          return kiln_op_emit_error(o, "dim is not a loop of the enclosing op");
        kiln_value_map_add(b->ctx, &map, kiln_op_result(o, 0), ivs[d->i]);
        continue;
      }
      kiln_op *c = kiln_op_clone(o, &map);
      kiln_builder_insert(b, c);
    }
    return kiln_op_emit_error(op, "body does not end with linalg.yield");
  }
  default:
    return kiln_op_emit_error(op, "is not supported by lower-to-loops");
  }
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
bool cg_linear_expr(const kiln_affine_expr *e, int loops, int64_t *coef, int64_t *cst) {
  switch (e->kind) {
  case KILN_AFFINE_DIM:
    if (e->value >= loops) return false;
    coef[e->value] += 1;
    return true;
  case KILN_AFFINE_CONST:
    *cst += e->value;
    return e->value >= 0;
  case KILN_AFFINE_ADD:
    return cg_linear_expr(e->lhs, loops, coef, cst) && cg_linear_expr(e->rhs, loops, coef, cst);
  case KILN_AFFINE_MUL: {
    if (e->rhs->kind != KILN_AFFINE_CONST || e->rhs->value < 0) return false;
    int64_t c2[KILN_MAX_LOOPS] = {0}, k2 = 0;
    if (!cg_linear_expr(e->lhs, loops, c2, &k2)) return false;
    for (int l = 0; l < loops; l++) coef[l] += c2[l] * e->rhs->value;
    *cst += k2 * e->rhs->value;
    return true;
  }
  default:
    return false;
  }
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

/* ---- dead code ---- */
static kiln_walk_result dce_visit(kiln_op *op, void *user) {
  bool *changed = user;
  if (!kiln_op_has_flag(op, KILN_OPF_PURE) || op->num_regions ||
      kiln_op_has_flag(op, KILN_OPF_TERMINATOR) || !op->parent)
    return KILN_WALK_ADVANCE;
  for (uint32_t i = 0; i < op->num_results; i++)
    if (kiln_value_has_uses(&op->results[i])) return KILN_WALK_ADVANCE;
  kiln_op_erase(op);
  *changed = true;
  return KILN_WALK_ADVANCE;
}

void cg_dce(kiln_op *root) {
  bool changed = true;
  while (changed) {
    changed = false;
    kiln_walk_post(root, dce_visit, &changed);
  }
}
