/* Loss family: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
 * (reduction none / sum / mean, optional class weights, ignore_index).
 *
 * Takes: scores [N, C, d...] (float), labels [N, d...] (int32/int64),
 * optional weights [C]. Guarantees: one linalg.generic over the label
 * shape reads -scores[n, label, d...] * w[label] with tensor.extract (a
 * second one yields the weights, 0 for ignored labels, for the mean); sum
 * and mean reduce them (mean = sum(loss) / sum(weight), as ONNX defines
 * it). Cross entropy
 * first takes LogSoftmax along C and may return it as its second output. */
#include <string.h>

#include "import_internal.h"

typedef struct {
  kiln_value *scores, *weight;
  bool has_ii;
  int64_t ii;
  uint32_t rank; /* label rank */
  bool weight_only; /* yield the applied weight instead of the loss */
} nll_user;

static bool nll_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  nll_user *nu = u;
  kiln_context *ctx = b->ctx;
  kiln_value *t = a[0];
  const kiln_type *et = nu->scores->type->elem, *it = kiln_type_index(ctx);
  kiln_value *zero_i = oi_scalar(b, t->type, 0, 0);
  kiln_value *ignored = nu->has_ii ? oi_cmpi(b, OI_EQ, t, oi_scalar(b, t->type, 0, nu->ii)) : NULL;
  kiln_value *tt = ignored ? oi_select(b, ignored, zero_i, t) : t;
  kiln_value *ti = kiln_op_result(kiln_build(b, KILN_OP_ARITH_INDEX_CAST, 1, &tt, 1, &it, NULL), 0);
  kiln_value *idx[OI_MAX_RANK + 2];
  idx[0] = nu->scores;
  idx[1] = oi_loop_index(b, 0);
  idx[2] = ti;
  for (uint32_t d = 1; d < nu->rank; d++) idx[2 + d] = oi_loop_index(b, d);
  kiln_value *v = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, nu->rank + 2, idx, 1, &et, NULL), 0);
  kiln_value *w = oi_scalar(b, et, 1, 0);
  if (nu->weight) {
    kiln_value *wi[2] = {nu->weight, ti};
    w = kiln_op_result(kiln_build(b, KILN_OP_TENSOR_EXTRACT, 2, wi, 1, &et, NULL), 0);
  }
  if (ignored) w = oi_select(b, ignored, oi_scalar(b, et, 0, 0), w);
  y[0] = nu->weight_only ? w : oi_op1(b, KILN_OP_ARITH_NEGF, oi_op2(b, KILN_OP_ARITH_MULF, v, w));
  return true;
}

static bool div_body(oi_ctx *c, kiln_builder *b, kiln_value *const *a, kiln_value **y, void *u) {
  y[0] = oi_op2(b, KILN_OP_ARITH_DIVF, a[0], a[1]);
  return true;
}

bool oi_import_loss(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"ignore_index", "reduction", NULL};
  bool sce = n->kind == OI_SCE;
  if (!oi_arity(c, n, 2, 3, 1, sce ? 2 : 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0), *t = x ? oi_in(c, n, 1) : NULL, *w = oi_opt_in(n, 2);
  if (!t || !oi_check_type(c, x, OI_T_FLOAT, "input 0")) return false;
  if (t->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT64 && t->dtype != ONNX__TENSOR_PROTO__DATA_TYPE__INT32)
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "labels must be int32 or int64, not %s", oi_dtype_name(t->dtype));
  const char *red;
  nll_user nu = {0};
  if (!oi_attr_string(c, n, "reduction", "mean", &red)) return false;
  nu.has_ii = oi_attr(n, "ignore_index") != NULL;
  if (!oi_attr_int(c, n, "ignore_index", 0, &nu.ii)) return false;
  bool none = strcmp(red, "none") == 0, sum = strcmp(red, "sum") == 0, mean = strcmp(red, "mean") == 0;
  if (!none && !sum && !mean) return oi_invalid(c, "reduction '%s' (none, sum or mean)", red);
  const kiln_type *xt = x->type, *tt = t->type;
  if (xt->rank < 2 || tt->rank != xt->rank - 1)
    return oi_invalid(c, "scores of rank %u need labels of rank %u (have %u)", xt->rank, xt->rank - 1, tt->rank);
  if (tt->shape[0] != xt->shape[0])
    return oi_invalid(c, "labels dimension 0 (%lld) differs from N (%lld)", (long long)tt->shape[0], (long long)xt->shape[0]);
  for (uint32_t d = 1; d < tt->rank; d++)
    if (tt->shape[d] != xt->shape[d + 1])
      return oi_invalid(c, "labels dimension %u (%lld) differs from scores dimension %u", d,
                        (long long)tt->shape[d], d + 1);
  if (w && (w->type->rank != 1 || w->type->shape[0] != xt->shape[1] || w->dtype != x->dtype))
    return oi_invalid(c, "weights must be 1-D of C = %lld elements of the scores' type", (long long)xt->shape[1]);
  kiln_value *xv = oi_ir(c, x), *tv = oi_ir(c, t);
  if (!xv || !tv) return false;
  if (sce) {
    xv = oi_log_softmax(c, xv, x->dtype, 1);
    if (!xv) return false;
    oi_set_out(c, n, 1, xv, x->dtype);
  }
  nu.scores = xv;
  nu.rank = tt->rank;
  if (w && !(nu.weight = oi_ir(c, w))) return false;
  const kiln_type *lt = kiln_type_with_elem(c->ctx, tt, xt->elem);
  /* one single-result generic for the loss, one for the weights (mean) */
  kiln_value *out = oi_empty(c, lt);
  const kiln_affine_map *id = kiln_affine_map_identity(c->ctx, tt->rank);
  const kiln_affine_map *maps[2] = {id, id};
  kiln_op *g = oi_generic(c, 1, &tv, 1, &out, maps, tt->rank, NULL, nll_body, &nu);
  if (!g) return false;
  kiln_value *loss = kiln_op_result(g, 0);
  if (!none) {
    bool axes[OI_MAX_RANK];
    for (uint32_t d = 0; d < tt->rank; d++) axes[d] = true;
    loss = oi_reduce(c, loss, x->dtype, axes, false, OI_RED_SUM);
    if (!loss) return false;
    if (mean) {
      nu.weight_only = true;
      kiln_value *wout = oi_empty(c, lt);
      kiln_op *gw = oi_generic(c, 1, &tv, 1, &wout, maps, tt->rank, NULL, nll_body, &nu);
      kiln_value *ws = gw ? oi_reduce(c, kiln_op_result(gw, 0), x->dtype, axes, false, OI_RED_SUM) : NULL;
      kiln_value *ins[2] = {loss, ws};
      loss = ws ? oi_elementwise_ir(c, 2, ins, 0, NULL, xt->elem, div_body, NULL) : NULL;
      if (!loss) return false;
    }
  }
  oi_set_out(c, n, 0, loss, x->dtype);
  return true;
}
