/* Affine expressions and maps: interned construction with MLIR's basic
 * simplifications (constant folding, constants and symbols on the right,
 * neutral elements), queries, and printing in mlir-opt's spelling
 * ("d0 - d1", "d1 * 2 + d4", "(d0 + 1) floordiv 2"). */
#include "ir_internal.h"

static uint64_t expr_hash(const kiln_affine_expr *e) {
  uint64_t h = ir_hash_u64(IR_HASH_SEED, (uint64_t)e->kind);
  h = ir_hash_u64(h, (uint64_t)e->value);
  h = ir_hash_u64(h, (uint64_t)(uintptr_t)e->lhs);
  return ir_hash_u64(h, (uint64_t)(uintptr_t)e->rhs);
}

static bool expr_eq(const void *a_, const void *b_) {
  const kiln_affine_expr *a = a_, *b = b_;
  return a->kind == b->kind && a->value == b->value && a->lhs == b->lhs &&
         a->rhs == b->rhs;
}

static const kiln_affine_expr *get(kiln_context *ctx, kiln_affine_kind k,
                                   int64_t v, const kiln_affine_expr *l,
                                   const kiln_affine_expr *r) {
  kiln_affine_expr key = {k, v, l, r};
  uint64_t h = expr_hash(&key);
  const kiln_affine_expr *f = ir_set_find(&ctx->exprs, h, expr_eq, &key);
  if (f) return f;
  kiln_affine_expr *e = kiln_alloc(ctx, sizeof *e);
  *e = key;
  ir_set_insert(&ctx->exprs, h, e);
  return e;
}

const kiln_affine_expr *kiln_affine_dim(kiln_context *ctx, unsigned pos) {
  return get(ctx, KILN_AFFINE_DIM, pos, NULL, NULL);
}
const kiln_affine_expr *kiln_affine_symbol(kiln_context *ctx, unsigned pos) {
  return get(ctx, KILN_AFFINE_SYMBOL, pos, NULL, NULL);
}
const kiln_affine_expr *kiln_affine_const(kiln_context *ctx, int64_t v) {
  return get(ctx, KILN_AFFINE_CONST, v, NULL, NULL);
}

static bool is_symbolic(const kiln_affine_expr *e) {
  switch (e->kind) {
  case KILN_AFFINE_CONST: case KILN_AFFINE_SYMBOL: return true;
  case KILN_AFFINE_DIM: return false;
  default: return is_symbolic(e->lhs) && is_symbolic(e->rhs);
  }
}

static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

const kiln_affine_expr *kiln_affine_binary(kiln_context *ctx,
                                           kiln_affine_kind k,
                                           const kiln_affine_expr *l,
                                           const kiln_affine_expr *r) {
  bool lc = l->kind == KILN_AFFINE_CONST, rc = r->kind == KILN_AFFINE_CONST;
  switch (k) {
  case KILN_AFFINE_ADD:
    if (lc && rc) return kiln_affine_const(ctx, l->value + r->value);
    if (lc || (is_symbolic(l) && !is_symbolic(r)))
      return kiln_affine_binary(ctx, k, r, l);
    if (rc && r->value == 0) return l;
    /* (x + c1) + c2 -> x + (c1 + c2) */
    if (rc && l->kind == KILN_AFFINE_ADD && l->rhs->kind == KILN_AFFINE_CONST)
      return kiln_affine_binary(
          ctx, k, l->lhs, kiln_affine_const(ctx, l->rhs->value + r->value));
    break;
  case KILN_AFFINE_MUL:
    if (lc && rc) return kiln_affine_const(ctx, l->value * r->value);
    if (!is_symbolic(r) || lc) {
      if (!is_symbolic(l)) return NULL; /* non-affine: caller reports */
      return kiln_affine_binary(ctx, k, r, l);
    }
    if (rc && r->value == 1) return l;
    if (rc && r->value == 0) return r;
    /* (x * c1) * c2 -> x * (c1 * c2) */
    if (rc && l->kind == KILN_AFFINE_MUL && l->rhs->kind == KILN_AFFINE_CONST)
      return kiln_affine_binary(
          ctx, k, l->lhs, kiln_affine_const(ctx, l->rhs->value * r->value));
    break;
  case KILN_AFFINE_FLOORDIV:
  case KILN_AFFINE_CEILDIV:
  case KILN_AFFINE_MOD:
    if (!is_symbolic(r)) return NULL;
    if (rc && r->value <= 0 && !lc) return NULL;
    if (lc && rc && r->value != 0) {
      int64_t a = l->value, b = r->value;
      if (k == KILN_AFFINE_FLOORDIV) return kiln_affine_const(ctx, floordiv(a, b));
      if (k == KILN_AFFINE_CEILDIV) return kiln_affine_const(ctx, -floordiv(-a, b));
      return kiln_affine_const(ctx, a - floordiv(a, b) * b);
    }
    if (rc && r->value == 1)
      return k == KILN_AFFINE_MOD ? kiln_affine_const(ctx, 0) : l;
    break;
  default:
    return NULL;
  }
  return get(ctx, k, 0, l, r);
}

static uint64_t map_hash(const kiln_affine_map *m) {
  uint64_t h = ir_hash_u64(IR_HASH_SEED, m->num_dims);
  h = ir_hash_u64(h, m->num_symbols);
  h = ir_hash_u64(h, m->num_results);
  return ir_hash_bytes(h, m->results, m->num_results * sizeof(void *));
}

static bool map_eq(const void *a_, const void *b_) {
  const kiln_affine_map *a = a_, *b = b_;
  return a->num_dims == b->num_dims && a->num_symbols == b->num_symbols &&
         a->num_results == b->num_results &&
         memcmp(a->results, b->results, a->num_results * sizeof(void *)) == 0;
}

const kiln_affine_map *kiln_affine_map_get(kiln_context *ctx, uint32_t dims,
                                           uint32_t syms, uint32_t n,
                                           const kiln_affine_expr *const *res) {
  static const kiln_affine_expr *none[1];
  kiln_affine_map key = {dims, syms, n, n ? res : none};
  uint64_t h = map_hash(&key);
  const kiln_affine_map *f = ir_set_find(&ctx->maps, h, map_eq, &key);
  if (f) return f;
  kiln_affine_map *m = kiln_alloc(ctx, sizeof *m);
  *m = key;
  const kiln_affine_expr **r = kiln_alloc(ctx, (n ? n : 1) * sizeof(void *));
  if (n) memcpy(r, res, n * sizeof(void *));
  m->results = r;
  ir_set_insert(&ctx->maps, h, m);
  return m;
}

const kiln_affine_map *kiln_affine_map_identity(kiln_context *ctx,
                                                uint32_t dims) {
  const kiln_affine_expr *r[64];
  if (dims > 64) dims = 64;
  for (uint32_t i = 0; i < dims; i++) r[i] = kiln_affine_dim(ctx, i);
  return kiln_affine_map_get(ctx, dims, 0, dims, r);
}

bool kiln_affine_map_is_identity(const kiln_affine_map *m) {
  if (m->num_symbols || m->num_results != m->num_dims) return false;
  for (uint32_t i = 0; i < m->num_results; i++)
    if (m->results[i]->kind != KILN_AFFINE_DIM || m->results[i]->value != i)
      return false;
  return true;
}

bool kiln_affine_map_is_projected_permutation(const kiln_affine_map *m) {
  if (m->num_symbols || m->num_dims > 64) return false;
  uint64_t seen = 0;
  for (uint32_t i = 0; i < m->num_results; i++) {
    const kiln_affine_expr *e = m->results[i];
    if (e->kind != KILN_AFFINE_DIM) return false;
    if (seen & (1ull << e->value)) return false;
    seen |= 1ull << e->value;
  }
  return true;
}

/* ---- printing (binding strength decides parentheses, as in MLIR) ---- */
static void pr(ir_buf *b, const kiln_affine_expr *e, bool strong) {
  switch (e->kind) {
  case KILN_AFFINE_DIM: ir_buf_printf(b, "d%lld", (long long)e->value); return;
  case KILN_AFFINE_SYMBOL: ir_buf_printf(b, "s%lld", (long long)e->value); return;
  case KILN_AFFINE_CONST: ir_buf_printf(b, "%lld", (long long)e->value); return;
  default: break;
  }
  const kiln_affine_expr *l = e->lhs, *r = e->rhs;
  if (strong) ir_buf_putc(b, '(');
  if (e->kind != KILN_AFFINE_ADD) {
    if (e->kind == KILN_AFFINE_MUL && r->kind == KILN_AFFINE_CONST &&
        r->value == -1) {
      ir_buf_putc(b, '-');
      pr(b, l, true);
    } else {
      pr(b, l, true);
      ir_buf_puts(b, e->kind == KILN_AFFINE_MUL        ? " * "
                     : e->kind == KILN_AFFINE_FLOORDIV ? " floordiv "
                     : e->kind == KILN_AFFINE_CEILDIV  ? " ceildiv "
                                                       : " mod ");
      pr(b, r, true);
    }
  } else if (r->kind == KILN_AFFINE_MUL && r->rhs->kind == KILN_AFFINE_CONST &&
             r->rhs->value <= -1) {
    pr(b, l, false);
    ir_buf_puts(b, " - ");
    if (r->rhs->value == -1) {
      pr(b, r->lhs, r->lhs->kind == KILN_AFFINE_ADD);
    } else {
      pr(b, r->lhs, true);
      ir_buf_printf(b, " * %lld", -(long long)r->rhs->value);
    }
  } else if (r->kind == KILN_AFFINE_CONST && r->value < 0) {
    pr(b, l, false);
    ir_buf_printf(b, " - %lld", -(long long)r->value);
  } else {
    pr(b, l, false);
    ir_buf_puts(b, " + ");
    pr(b, r, false);
  }
  if (strong) ir_buf_putc(b, ')');
}

void ir_print_affine_expr(ir_buf *b, const kiln_affine_expr *e) {
  pr(b, e, false);
}

void ir_print_affine_map(ir_buf *b, const kiln_affine_map *m) {
  ir_buf_putc(b, '(');
  for (uint32_t i = 0; i < m->num_dims; i++)
    ir_buf_printf(b, "%sd%u", i ? ", " : "", i);
  ir_buf_putc(b, ')');
  if (m->num_symbols) {
    ir_buf_putc(b, '[');
    for (uint32_t i = 0; i < m->num_symbols; i++)
      ir_buf_printf(b, "%ss%u", i ? ", " : "", i);
    ir_buf_putc(b, ']');
  }
  ir_buf_puts(b, " -> (");
  for (uint32_t i = 0; i < m->num_results; i++) {
    if (i) ir_buf_puts(b, ", ");
    pr(b, m->results[i], false);
  }
  ir_buf_putc(b, ')');
}
