/* Text features: TfIdfVectorizer on integer tokens (pool_int64s).
 *
 * Takes: X of int32/int64 tokens, [C] or [N, C]; the n-gram pool and its
 * output indexes as attributes (strings are refused: the IR has no
 * string type). Guarantees: one generic over (row, output index, start
 * position, skip) whose two reduction loops count, for the pool n-gram
 * written to that output index, its occurrences with gaps of `skip`
 * tokens between its items (0..max_skip_count; unigrams counted once);
 * n-grams outside [min_gram_length, max_gram_length] count nothing; the
 * count then becomes TF, IDF (weight when present) or TFIDF (count x
 * weight), the pool's weights defaulting to 1. */
#include <string.h>

#include "import_internal.h"

typedef struct {
  kiln_value *x, *len, *tok; /* X; per output index: n-gram length, tokens [O, maxn] */
  uint32_t rows;             /* 1 for [N, C], 0 for [C] */
  int64_t C, maxn;
} tfidf_user;

static kiln_value *extract(kiln_builder *b, kiln_value *t, uint32_t n, kiln_value **idx) {
  kiln_value *ops[4] = {t};
  for (uint32_t i = 0; i < n; i++) ops[1 + i] = idx[i];
  return kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, n + 1, ops, 1, &t->type->elem, NULL), 0);
}

/* loops: [row,] o, i (start), s (skip); a[0] sizes the loops, a[1] the count */
static bool tfidf_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  tfidf_user *t = u;
  const kiln_type *it = kiln_type_index(b->ctx), *i64 = kiln_type_int(b->ctx, 64);
  uint32_t l = t->rows;
  kiln_value *row = l ? oi_loop_index(b, 0) : NULL, *o = oi_loop_index(b, l), *i = oi_loop_index(b, l + 1),
             *s = oi_loop_index(b, l + 2);
  kiln_value *n = extract(b, t->len, 1, &o);
  kiln_value *one = oi_scalar(b, it, 0, 1), *zero = oi_scalar(b, it, 0, 0);
  kiln_value *step = oi_op2(b, KILN_OP_ARITH_ADDI, s, one);
  kiln_value *ok = oi_cmpi(b, OI_SGT, n, oi_scalar(b, i64, 0, 0));
  /* a unigram counts at skip 0 only */
  ok = oi_op2(b, KILN_OP_ARITH_ANDI, ok, oi_op2(b, KILN_OP_ARITH_ORI, oi_cmpi(b, OI_SGT, n, oi_scalar(b, i64, 0, 1)),
                                                 oi_cmpi(b, OI_EQ, s, zero)));
  for (int64_t k = 0; k < t->maxn; k++) {
    kiln_value *kk = oi_scalar(b, it, 0, k);
    kiln_value *p = oi_op2(b, KILN_OP_ARITH_ADDI, i, oi_op2(b, KILN_OP_ARITH_MULI, kk, step));
    kiln_value *used = oi_cmpi(b, OI_SLT, oi_scalar(b, i64, 0, k), n);
    kiln_value *inb = oi_cmpi(b, OI_SLT, p, oi_scalar(b, it, 0, t->C));
    kiln_value *pc = oi_select(b, inb, p, zero); /* in bounds for the read */
    kiln_value *xi[2] = {row, pc}, *ti[2] = {o, kk};
    kiln_value *xv = extract(b, t->x, l + 1, l ? xi : &xi[1]);
    kiln_value *tv = extract(b, t->tok, 2, ti);
    kiln_value *eq = oi_op2(b, KILN_OP_ARITH_ANDI, inb, oi_cmpi(b, OI_EQ, xv, tv));
    /* items past the n-gram's length match trivially */
    ok = oi_op2(b, KILN_OP_ARITH_ANDI, ok, oi_op2(b, KILN_OP_ARITH_ORI, eq, oi_op2(b, KILN_OP_ARITH_XORI, used,
                                                                                   oi_scalar(b, used->type, 0, 1))));
  }
  y[0] = oi_op2(b, KILN_OP_ARITH_ADDI, a[1], oi_select(b, ok, oi_scalar(b, i64, 0, 1), oi_scalar(b, i64, 0, 0)));
  return true;
}

typedef struct { int mode; } weigh_user;
enum { TF, IDF, TFIDF };

static bool weigh_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  weigh_user *w = u;
  const kiln_type *f = a[1]->type;
  kiln_value *cnt = oi_convert(b, a[0], ONNX__TENSOR_PROTO__DATA_TYPE__INT64, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, f);
  if (w->mode == TF) y[0] = cnt;
  else if (w->mode == TFIDF) y[0] = oi_op2(b, KILN_OP_ARITH_MULF, cnt, a[1]);
  else y[0] = oi_select(b, oi_cmpf(b, OI_F_OGT, cnt, oi_scalar(b, f, 0, 0)), a[1], oi_scalar(b, f, 0, 0));
  return true;
}

bool oi_import_tfidf(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"max_gram_length", "max_skip_count", "min_gram_length", "mode", "ngram_counts",
                                      "ngram_indexes", "pool_int64s", "pool_strings", "weights", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (oi_attr(n, "pool_strings")) return oi_unsupported(c, "pool_strings (the IR has no string type)");
  if (x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32 && x->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64)
    return oi_unsupported(c, "tokens of type %s (int32 or int64)", oi_dtype_name(x->dtype));
  const kiln_type *xt = x->type;
  if (xt->rank != 1 && xt->rank != 2) return oi_invalid(c, "X must be [C] or [N, C]");
  int64_t minn, maxn, skip;
  const char *mode;
  const int64_t *counts, *idx, *pool;
  const float *wts;
  size_t ncounts, nidx, npool, nw;
  if (!oi_attr_int(c, n, "min_gram_length", 1, &minn) || !oi_attr_int(c, n, "max_gram_length", 1, &maxn) ||
      !oi_attr_int(c, n, "max_skip_count", 0, &skip) || !oi_attr_string(c, n, "mode", "TF", &mode) ||
      !oi_attr_ints(c, n, "ngram_counts", &counts, &ncounts) || !oi_attr_ints(c, n, "ngram_indexes", &idx, &nidx) ||
      !oi_attr_ints(c, n, "pool_int64s", &pool, &npool) || !oi_attr_floats(c, n, "weights", &wts, &nw))
    return false;
  weigh_user w = {strcmp(mode, "TF") == 0 ? TF : strcmp(mode, "IDF") == 0 ? IDF : strcmp(mode, "TFIDF") == 0 ? TFIDF : -1};
  if (w.mode < 0) return oi_invalid(c, "mode '%s' (TF, IDF or TFIDF)", mode);
  if (minn < 1 || maxn < minn || maxn > 16 || skip < 0 || skip > 1024)
    return oi_invalid(c, "gram lengths %lld..%lld, max_skip_count %lld", (long long)minn, (long long)maxn, (long long)skip);
  /* the pool: ngram_counts[k] is where the (k+1)-grams start */
  int64_t ngrams = 0, O = 0;
  for (size_t k = 0; k < ncounts; k++) {
    int64_t end = k + 1 < ncounts ? counts[k + 1] : (int64_t)npool;
    if (counts[k] < 0 || end < counts[k] || end > (int64_t)npool || (end - counts[k]) % (int64_t)(k + 1))
      return oi_invalid(c, "ngram_counts does not divide the pool");
    ngrams += (end - counts[k]) / (int64_t)(k + 1);
  }
  if ((size_t)ngrams != nidx || (nw && nw != nidx)) return oi_invalid(c, "ngram_indexes/weights do not match the pool's %lld n-grams", (long long)ngrams);
  for (size_t j = 0; j < nidx; j++) {
    if (idx[j] < 0 || idx[j] >= OI_FOLD_MAX) return oi_invalid(c, "ngram index %lld", (long long)idx[j]);
    if (idx[j] + 1 > O) O = idx[j] + 1;
  }
  int64_t M = (int64_t)ncounts; /* longest n-gram */
  int64_t *len = kiln_alloc(c->ctx, (size_t)(O + 1) * sizeof *len), *tok = kiln_alloc(c->ctx, (size_t)(O * M + 1) * sizeof *tok);
  double *wt = kiln_alloc(c->ctx, (size_t)(O + 1) * sizeof *wt);
  memset(len, 0, (size_t)O * sizeof *len);
  memset(tok, 0, (size_t)(O * M) * sizeof *tok);
  for (int64_t o = 0; o < O; o++) wt[o] = 0;
  for (size_t k = 0, j = 0; k < ncounts; k++) {
    int64_t end = k + 1 < ncounts ? counts[k + 1] : (int64_t)npool, g = (int64_t)k + 1;
    for (int64_t p = counts[k]; p < end; p += g, j++) {
      int64_t o = idx[j];
      len[o] = g >= minn && g <= maxn ? g : 0;
      for (int64_t q = 0; q < g; q++) tok[o * M + q] = pool[p + q];
      wt[o] = nw ? wts[j] : 1;
    }
  }
  bool rows = xt->rank == 2;
  int64_t N = rows ? xt->shape[0] : 1, C = xt->shape[xt->rank - 1];
  int64_t os[2] = {N, O}, ts[2] = {O, M};
  const kiln_type *ct = oi_tensor_type(c, rows ? 2 : 1, rows ? os : &O, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  const kiln_type *ft = oi_tensor_type(c, rows ? 2 : 1, rows ? os : &O, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  tfidf_user tu = {oi_ir(c, x), NULL, NULL, rows, C, M};
  if (!tu.x) return false;
  tu.x = oi_cast_tensor(c, tu.x, x->dtype, ONNX__TENSOR_PROTO__DATA_TYPE__INT64);
  tu.len = kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 1, &O, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), len));
  tu.tok = kiln_build_constant(&c->b, oi_dense_ints(c, oi_tensor_type(c, 2, ts, ONNX__TENSOR_PROTO__DATA_TYPE__INT64), tok));
  kiln_value *cnt = oi_filled(c, ct, 0, 0);
  if (C > 0 && O > 0) {
    /* loops: [row,] o, i, s; the i8 splat [C, skip+1] sizes the reductions */
    int64_t gs[2] = {C, skip + 1};
    const int8_t zero = 0;
    kiln_value *grid = kiln_build_constant(
        &c->b, kiln_attr_dense(c->ctx, oi_tensor_type(c, 2, gs, ONNX__TENSOR_PROTO__DATA_TYPE__INT8), true, &zero, 1));
    uint32_t loops = rows ? 4 : 3, r0 = rows ? 1 : 0;
    int64_t gd[2] = {r0 + 1, r0 + 2}, od[2] = {0, 1};
    const kiln_affine_map *maps[2] = {oi_map_dims(c, loops, 2, gd), oi_map_dims(c, loops, rows ? 2 : 1, od)};
    bool red[4] = {false, false, false, false};
    red[r0 + 1] = red[r0 + 2] = true;
    kiln_op *g = oi_generic(c, 1, &grid, 1, &cnt, maps, loops, red, tfidf_body, &tu);
    if (!g) return false;
    cnt = kiln_op_result(g, 0);
  }
  kiln_value *wv = kiln_build_constant(&c->b, oi_dense_floats(c, oi_tensor_type(c, 1, &O, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT), wt));
  kiln_value *ins[2] = {cnt, wv};
  kiln_value *r = oi_elementwise_ir(c, 2, ins, ft->rank, ft->shape, ft->elem, weigh_body, &w);
  if (!r) return false;
  oi_set_out(c, n, 0, r, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT);
  return true;
}
