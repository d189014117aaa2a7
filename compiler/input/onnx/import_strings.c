/* String tensors: Cast / CastLike to and from string, StringNormalizer.
 *
 * Takes: tensors of ONNX STRING elements (graph inputs and these ops'
 * results; the IR spells the element type !kiln.str). Guarantees: each op
 * becomes one flow.text (kiln/text_ops.h): text runs on the host, which
 * decides the size of each result from the data (StringNormalizer's
 * length as '?'); stopwords travel as an i8 constant holding a u32 count
 * then the runtime's str layout (kiln/runtime.h). Other ops refuse string
 * inputs (import_graph.c), as do unsigned and half-precision casts. */
#include <string.h>

#include "import_internal.h"
#include "kiln/text_ops.h"

bool oi_dtype_is_string(int32_t dtype) { return dtype == ONNX__TENSOR_PROTO__DATA_TYPE__STRING; }

const kiln_type *oi_text_type(oi_ctx *c) { return kiln_type_opaque(c->ctx, "kiln", "str"); }

/* flow.text {op, flags} on x (aux: x when the op has none) -> type t. */
static kiln_value *text_op(oi_ctx *c, int op, int flags, kiln_value *x, kiln_value *aux,
                           const kiln_type *t) {
  kiln_value *ops[2] = {x, aux ? aux : x};
  kiln_named_attr a[2] = {
      {kiln_intern_cstr(c->ctx, "op"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 32), op)},
      {kiln_intern_cstr(c->ctx, "flags"), kiln_attr_int(c->ctx, kiln_type_int(c->ctx, 32), flags)}};
  return kiln_op_result(kiln_build(&c->b, KILN_OP_FLOW_TEXT, 2, ops, 1, &t, kiln_attr_dict(c->ctx, 2, a)), 0);
}

bool oi_import_text_cast(oi_ctx *c, oi_node *n, oi_val *x, int32_t to) {
  const bool from = oi_dtype_is_string(x->dtype);
  if (from && oi_dtype_is_string(to)) {
    oi_set_out_alias(c, n, 0, x);
    return true;
  }
  const int32_t num = from ? to : x->dtype;
  if (oi_dtype_is_unsigned(num) && num != ONNX__TENSOR_PROTO__DATA_TYPE__BOOL)
    return oi_unsupported(c, "cast between string and %s (unsigned) is not supported", oi_dtype_name(num));
  if (num == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16 || num == ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16 ||
      (from && num == ONNX__TENSOR_PROTO__DATA_TYPE__BOOL) || !oi_elem_type(c, num))
    return oi_unsupported(c, "cast %s string and %s is not supported", from ? "from" : "to", oi_dtype_name(num));
  const kiln_type *t = oi_tensor_type(c, x->type->rank, x->type->shape, to);
  oi_set_out(c, n, 0, text_op(c, from ? KILN_TEXT_FROM_STR : KILN_TEXT_TO_STR, 0, oi_ir(c, x), NULL, t), to);
  return true;
}

bool oi_import_string_normalizer(oi_ctx *c, oi_node *n) {
  static const char *const known[] = {"case_change_action", "is_case_sensitive", "locale", "stopwords", NULL};
  if (!oi_arity(c, n, 1, 1, 1, 1) || !oi_attrs_only(c, n, known)) return false;
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  if (!oi_dtype_is_string(x->dtype))
    return oi_fail(c, KILN_ONNX_ERR_TYPE, "input 0 is %s, StringNormalizer takes strings", oi_dtype_name(x->dtype));
  if (!(x->type->rank == 1 || (x->type->rank == 2 && x->type->shape[0] == 1)))
    return oi_invalid(c, "input 0 must be [C] or [1, C]");
  const char *action, *locale;
  int64_t sensitive;
  if (!oi_attr_string(c, n, "case_change_action", "NONE", &action) ||
      !oi_attr_int(c, n, "is_case_sensitive", 0, &sensitive) || !oi_attr_string(c, n, "locale", NULL, &locale))
    return false;
  int flags = sensitive ? KILN_TEXT_CASE_SENSITIVE : 0;
  if (!strcmp(action, "LOWER")) flags |= KILN_TEXT_LOWER;
  else if (!strcmp(action, "UPPER")) flags |= KILN_TEXT_UPPER;
  else if (strcmp(action, "NONE"))
    return oi_invalid(c, "case_change_action '%s' is none of LOWER, UPPER, NONE", action);
  /* stopwords: count, offsets, bytes (the runtime checks the UTF-8) */
  const Onnx__AttributeProto *sw = oi_attr(n, "stopwords");
  if (sw && sw->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS)
    return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute 'stopwords' must be strings");
  const size_t nw = sw ? sw->n_strings : 0;
  uint64_t bytes = 4 + 4 * ((uint64_t)nw + 1);
  for (size_t i = 0; i < nw; i++) bytes += sw->strings[i].len;
  if (bytes > ((uint64_t)1 << 30)) return oi_unsupported(c, "stopwords of %llu bytes", (unsigned long long)bytes);
  int64_t *v = kiln_alloc(c->ctx, (size_t)bytes * sizeof *v);
  uint64_t at = 4 + 4 * ((uint64_t)nw + 1), off = 0;
  for (int k = 0; k < 4; k++) v[k] = (int64_t)((nw >> (8 * k)) & 0xff);
  for (size_t i = 0; i <= nw; i++) {
    for (int k = 0; k < 4; k++) v[4 + 4 * i + (size_t)k] = (int64_t)((off >> (8 * k)) & 0xff);
    if (i == nw) break;
    for (size_t j = 0; j < sw->strings[i].len; j++) v[at++] = sw->strings[i].data[j];
    off += sw->strings[i].len;
  }
  for (uint64_t i = 0; i < bytes; i++) v[i] = (int8_t)(uint8_t)v[i]; /* i8 holds the bytes */
  const int64_t shape[1] = {(int64_t)bytes};
  const kiln_type *bt = kiln_type_tensor(c->ctx, 1, shape, kiln_type_int(c->ctx, 8), NULL);
  kiln_value *words = kiln_build_constant(&c->b, oi_dense_ints(c, bt, v));
  int64_t out_shape[2] = {1, KILN_DYNAMIC};
  const kiln_type *t = oi_tensor_type(c, x->type->rank, x->type->rank == 2 ? out_shape : out_shape + 1,
                                      ONNX__TENSOR_PROTO__DATA_TYPE__STRING);
  oi_set_out(c, n, 0, text_op(c, KILN_TEXT_NORMALIZE, flags, oi_ir(c, x), words, t),
             ONNX__TENSOR_PROTO__DATA_TYPE__STRING);
  return true;
}
