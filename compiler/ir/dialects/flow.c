/* The flow dialect: verifiers for the rows of flow.def (generic syntax).
 *
 * The dispatch tensor type is opaque to the IR core
 * (!flow.dispatch.tensor<ACCESS:tensor<...>>); its agreement with the
 * loaded/stored tensor type is checked here by comparing the spelling. */
#include "dialects.h"

#include <stdlib.h>
#include <string.h>

static bool body_starts(const kiln_type *t, const char *prefix) {
  return t->kind == KILN_TYPE_OPAQUE && t->dialect && t->body &&
         strcmp(t->dialect, "flow") == 0 &&
         strncmp(t->body, prefix, strlen(prefix)) == 0;
}

bool flow_is_dispatch_tensor(const kiln_type *t, const char **access) {
  static const char *const words[] = {"readonly", "writeonly", "readwrite"};
  if (!body_starts(t, "dispatch.tensor<")) return false;
  const char *rest = t->body + strlen("dispatch.tensor<");
  for (int i = 0; i < 3; i++) {
    size_t n = strlen(words[i]);
    if (strncmp(rest, words[i], n) == 0 && rest[n] == ':') {
      if (access) *access = words[i];
      return true;
    }
  }
  return false;
}

/* Does dispatch tensor type d wrap tensor type t? */
static bool wraps(const kiln_type *d, const kiln_type *t) {
  const char *acc;
  if (!flow_is_dispatch_tensor(d, &acc)) return false;
  char *ts = kiln_type_to_string(t);
  if (!ts) return false;
  const char *inner = d->body + strlen("dispatch.tensor<") + strlen(acc) + 1;
  size_t n = strlen(ts);
  bool ok = strncmp(inner, ts, n) == 0 && strcmp(inner + n, ">") == 0;
  free(ts);
  return ok;
}

bool flow_verify_executable(kiln_op *op) {
  const char *name = kiln_symbol_name(op);
  if (!name) return kiln_op_emit_error(op, "requires a 'sym_name' string attribute");
  kiln_region *r = &op->regions[0];
  if (r->first && r->first != r->last)
    return kiln_op_emit_error(op, "expects a single-block region");
  return true;
}

bool flow_verify_dispatch_region(kiln_op *op) {
  kiln_block *b = op->regions[0].first;
  if (!b || b != op->regions[0].last)
    return kiln_op_emit_error(op, "expects a single-block region");
  kiln_op *t = kiln_block_terminator(b);
  if (!t || t->kind != KILN_OP_FLOW_RETURN)
    return kiln_op_emit_error(op, "expects its body to end in 'flow.return'");
  if (t->num_operands != op->num_results)
    return kiln_op_emit_error(op, "returns %u values but has %u results", t->num_operands,
                              op->num_results);
  for (uint32_t i = 0; i < op->num_results; i++)
    if (kiln_op_operand(t, i)->type != op->results[i].type)
      return kiln_op_emit_error(op, "result #%u type differs from the returned value's", i);
  return true;
}

bool flow_verify_return(kiln_op *op) {
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || parent->kind != KILN_OP_FLOW_DISPATCH_REGION)
    return kiln_op_emit_error(op, "expects parent op 'flow.dispatch.region'");
  return true;
}

bool flow_verify_dispatch(kiln_op *op) {
  const kiln_attr *ep = kiln_op_get_attr(op, "entry_point");
  if (!ep || ep->kind != KILN_ATTR_SYMBOL_REF || ep->count != 1)
    return kiln_op_emit_error(op, "requires an 'entry_point' attribute @executable::@function");
  const kiln_attr *w = kiln_op_get_attr(op, "workload");
  if (w && (w->kind != KILN_ATTR_DENSE_ARRAY || !w->type || w->type->kind != KILN_TYPE_INTEGER))
    return kiln_op_emit_error(op, "expects 'workload' to be an array<i64: ...>");
  for (uint32_t i = 0; i < op->num_results; i++)
    if (op->results[i].type->kind != KILN_TYPE_TENSOR)
      return kiln_op_emit_error(op, "result #%u must be a ranked tensor", i);
  return true;
}

bool flow_verify_load(kiln_op *op) {
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  const char *acc;
  if (!flow_is_dispatch_tensor(src, &acc) || strcmp(acc, "writeonly") == 0)
    return kiln_op_emit_error(op, "expects a readable !flow.dispatch.tensor operand");
  if (res->kind != KILN_TYPE_TENSOR || !wraps(src, res))
    return kiln_op_emit_error(op, "result type must be the tensor type the operand wraps");
  return true;
}

bool flow_verify_store(kiln_op *op) {
  const kiln_type *val = kiln_op_operand(op, 0)->type, *dst = kiln_op_operand(op, 1)->type;
  const char *acc;
  if (!flow_is_dispatch_tensor(dst, &acc) || strcmp(acc, "readonly") == 0)
    return kiln_op_emit_error(op, "expects a writable !flow.dispatch.tensor target");
  if (val->kind != KILN_TYPE_TENSOR || !wraps(dst, val))
    return kiln_op_emit_error(op, "stored value type must be the tensor type the target wraps");
  return true;
}

bool flow_verify_reshape(kiln_op *op) {
  const kiln_type *s = kiln_op_operand(op, 0)->type, *r = op->results[0].type;
  if (s->kind != KILN_TYPE_TENSOR || r->kind != KILN_TYPE_TENSOR ||
      (s->elem != r->elem && kiln_type_bitwidth(s->elem) != kiln_type_bitwidth(r->elem)))
    /* A view may reinterpret elements of one bit width (tensor.bitcast). */
    return kiln_op_emit_error(op, "expects ranked tensors of one element type or one bit width");
  int64_t a = kiln_type_num_elements(s), b = kiln_type_num_elements(r);
  if (a < 0 || b < 0 || a != b)
    return kiln_op_emit_error(op, "expects static shapes with equal element counts");
  return true;
}
