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

/* Are operands [first, num_operands) all index values? */
static bool index_operands(kiln_op *op, uint32_t first) {
  for (uint32_t i = first; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX) return false;
  return true;
}

/* An i64 array attribute (or absent: NULL, count 0). */
static bool opt_i64s(kiln_op *op, const char *name, const int64_t **v, uint32_t *n) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  *v = NULL, *n = 0;
  if (!a) return true;
  if (a->kind != KILN_ATTR_DENSE_ARRAY || !a->type || a->type->kind != KILN_TYPE_INTEGER ||
      a->type->width != 64)
    return kiln_op_emit_error(op, "expects '%s' to be an array<i64: ...>", name);
  *v = a->data, *n = a->count;
  return true;
}

static uint32_t holes(const int64_t *v, uint32_t n) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n; i++) k += v[i] == KILN_DYNAMIC;
  return k;
}

bool flow_verify_dispatch_region(kiln_op *op) {
  const int64_t *w;
  uint32_t nw;
  if (!opt_i64s(op, "workload", &w, &nw)) return false;
  if (!index_operands(op, 0) || holes(w, nw) != op->num_operands)
    return kiln_op_emit_error(op, "expects one index operand per dynamic workload entry (%u), has %u",
                              holes(w, nw), op->num_operands);
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
  const int64_t *w, *wd, *rd;
  uint32_t nw, nwd, nrd;
  if (!opt_i64s(op, "workload", &w, &nw) || !opt_i64s(op, "workload_dims", &wd, &nwd) ||
      !opt_i64s(op, "result_dims", &rd, &nrd))
    return false;
  uint32_t ntensors = 0;
  while (ntensors < op->num_operands && kiln_op_operand(op, ntensors)->type->kind == KILN_TYPE_TENSOR)
    ntensors++;
  if (!index_operands(op, ntensors))
    return kiln_op_emit_error(op, "expects tensor operands, then index operands");
  const uint32_t nidx = op->num_operands - ntensors;
  if (holes(w, nw) != nwd)
    return kiln_op_emit_error(op, "expects one 'workload_dims' entry per dynamic workload entry (%u), has %u",
                              holes(w, nw), nwd);
  uint32_t ndyn = 0;
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (op->results[i].type->kind != KILN_TYPE_TENSOR)
      return kiln_op_emit_error(op, "result #%u must be a ranked tensor", i);
    ndyn += ir_count_dynamic_dims(op->results[i].type);
  }
  if (ndyn != nrd)
    return kiln_op_emit_error(op, "expects one 'result_dims' entry per dynamic result dimension (%u), has %u",
                              ndyn, nrd);
  for (uint32_t i = 0; i < nwd + nrd; i++) {
    int64_t k = i < nwd ? wd[i] : rd[i - nwd];
    if (k < 0 || k >= (int64_t)nidx)
      return kiln_op_emit_error(op, "index operand %lld is out of range (%u index operands)", (long long)k,
                                nidx);
  }
  return true;
}

bool flow_verify_check(kiln_op *op) {
  if (!index_operands(op, 0)) return kiln_op_emit_error(op, "expects index operands");
  return true;
}

bool flow_verify_check_shape(kiln_op *op) {
  const kiln_attr *b = kiln_op_get_attr(op, "element_bytes");
  if (!b || b->kind != KILN_ATTR_INTEGER || b->i < 1)
    return kiln_op_emit_error(op, "requires a positive 'element_bytes' attribute");
  return flow_verify_check(op);
}

bool flow_verify_check_range(kiln_op *op) { return ir_verify_check_range(op); }

bool flow_is_list_op(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_FLOW_LIST_CREATE:
  case KILN_OP_FLOW_LIST_SIZE:
  case KILN_OP_FLOW_LIST_GET:
  case KILN_OP_FLOW_LIST_INSERT:
  case KILN_OP_FLOW_LIST_ERASE:
  case KILN_OP_FLOW_LIST_SELECT: return true;
  default: return false;
  }
}

/* flow.list.*: the list operand and result are !kiln.seq lists of one
 * element type (the result's T may be wider: dims that differ, ranks),
 * an inserted or read element a ranked tensor of that element type,
 * positions index values. */
bool flow_verify_list(kiln_op *op) {
  const kiln_type *it = kiln_type_index(kiln_op_context(op));
  if (op->kind == KILN_OP_FLOW_LIST_SELECT) {
    const kiln_type *a = kiln_op_operand(op, 1)->type, *b = kiln_op_operand(op, 2)->type, *r = op->results[0].type;
    if (kiln_op_operand(op, 0)->type != it) return kiln_op_emit_error(op, "condition must be an index");
    if (!kiln_type_is_seq(a) || !kiln_type_is_seq(b) || !kiln_type_is_seq(r) || a->elem->elem != r->elem->elem ||
        b->elem->elem != r->elem->elem)
      return kiln_op_emit_error(op, "selects between lists of the result's element type");
    return true;
  }
  const kiln_type *seq = op->num_operands ? kiln_op_operand(op, 0)->type : op->results[0].type;
  if (!kiln_type_is_seq(seq)) return kiln_op_emit_error(op, "expects a !kiln.seq list");
  kiln_value *elem = NULL, *pos = NULL;
  const kiln_type *res = op->results[0].type;
  switch (op->kind) {
  case KILN_OP_FLOW_LIST_CREATE: return true;
  case KILN_OP_FLOW_LIST_SIZE:
    if (res != it) return kiln_op_emit_error(op, "result must be an index");
    return true;
  case KILN_OP_FLOW_LIST_GET: pos = kiln_op_operand(op, 1); break;
  case KILN_OP_FLOW_LIST_INSERT: elem = kiln_op_operand(op, 1), pos = kiln_op_operand(op, 2); break;
  default: pos = kiln_op_operand(op, 1); break;
  }
  if (pos->type != it) return kiln_op_emit_error(op, "position must be an index");
  if (op->kind == KILN_OP_FLOW_LIST_GET) {
    if (res->kind != KILN_TYPE_TENSOR || res->elem != seq->elem->elem)
      return kiln_op_emit_error(op, "result must be a ranked tensor of the list's element type");
    return true;
  }
  /* an insert may widen the element type (dims that differ, ranks) */
  if (!kiln_type_is_seq(res) || res->elem->elem != seq->elem->elem)
    return kiln_op_emit_error(op, "result must be a list of the operand's element type");
  if (elem && (elem->type->kind != KILN_TYPE_TENSOR || elem->type->elem != seq->elem->elem))
    return kiln_op_emit_error(op, "inserts a value that is not a ranked tensor of the list's element type");
  return true;
}

bool flow_verify_load(kiln_op *op) {
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  const char *acc;
  if (!flow_is_dispatch_tensor(src, &acc) || strcmp(acc, "writeonly") == 0)
    return kiln_op_emit_error(op, "expects a readable !flow.dispatch.tensor operand");
  if (res->kind != KILN_TYPE_TENSOR || !wraps(src, res))
    return kiln_op_emit_error(op, "result type must be the tensor type the operand wraps");
  if (!index_operands(op, 1) || op->num_operands - 1 != ir_count_dynamic_dims(res))
    return kiln_op_emit_error(op, "expects one index operand per dynamic dimension");
  return true;
}

bool flow_verify_store(kiln_op *op) {
  const kiln_type *val = kiln_op_operand(op, 0)->type, *dst = kiln_op_operand(op, 1)->type;
  const char *acc;
  if (!flow_is_dispatch_tensor(dst, &acc) || strcmp(acc, "readonly") == 0)
    return kiln_op_emit_error(op, "expects a writable !flow.dispatch.tensor target");
  if (val->kind != KILN_TYPE_TENSOR || !wraps(dst, val))
    return kiln_op_emit_error(op, "stored value type must be the tensor type the target wraps");
  if (!index_operands(op, 2) || op->num_operands - 2 != ir_count_dynamic_dims(val))
    return kiln_op_emit_error(op, "expects one index operand per dynamic dimension");
  return true;
}

bool flow_verify_reshape(kiln_op *op) {
  const kiln_type *s = kiln_op_operand(op, 0)->type, *r = op->results[0].type;
  if (s->kind != KILN_TYPE_TENSOR || r->kind != KILN_TYPE_TENSOR ||
      (s->elem != r->elem && kiln_type_bitwidth(s->elem) != kiln_type_bitwidth(r->elem)))
    /* A view may reinterpret elements of one bit width (tensor.bitcast). */
    return kiln_op_emit_error(op, "expects ranked tensors of one element type or one bit width");
  if (!index_operands(op, 1) || op->num_operands - 1 != ir_count_dynamic_dims(r))
    return kiln_op_emit_error(op, "expects one index operand per dynamic result dimension");
  int64_t a = kiln_type_num_elements(s), b = kiln_type_num_elements(r);
  if (a >= 0 && b >= 0 && a != b)
    return kiln_op_emit_error(op, "expects equal element counts");
  return true;
}
