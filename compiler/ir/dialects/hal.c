/* The hal dialect: verifiers for the rows of hal.def (generic syntax).
 * They check what later stages rely on: attribute kinds, operand types
 * (!hal.buffer, !hal.buffer_view, !hal.command_buffer), and that a
 * dispatch's offsets and lengths match its binding count. */
#include "dialects.h"

#include <string.h>

bool hal_is_type(const kiln_type *t, const char *name) {
  return t->kind == KILN_TYPE_OPAQUE && t->dialect && t->body &&
         strcmp(t->dialect, "hal") == 0 && strcmp(t->body, name) == 0;
}

static bool int_attr(const kiln_op *op, const char *name) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_INTEGER;
}

static bool i64_array(const kiln_attr *a) {
  return a && a->kind == KILN_ATTR_DENSE_ARRAY && a->type &&
         a->type->kind == KILN_TYPE_INTEGER && a->type->width == 64;
}

static bool single_block(kiln_op *op) {
  kiln_region *r = &op->regions[0];
  if (r->first && r->first != r->last)
    return kiln_op_emit_error(op, "expects a single-block region");
  return true;
}

bool hal_verify_executable(kiln_op *op) {
  if (!kiln_symbol_name(op)) return kiln_op_emit_error(op, "requires a 'sym_name' string attribute");
  return single_block(op);
}

bool hal_verify_variant(kiln_op *op) {
  const kiln_attr *t = kiln_op_get_attr(op, "target");
  if (!kiln_symbol_name(op)) return kiln_op_emit_error(op, "requires a 'sym_name' string attribute");
  if (!t || t->kind != KILN_ATTR_STRING)
    return kiln_op_emit_error(op, "requires a 'target' string attribute");
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || parent->kind != KILN_OP_HAL_EXECUTABLE)
    return kiln_op_emit_error(op, "expects parent op 'hal.executable'");
  return single_block(op);
}

bool hal_verify_export(kiln_op *op) {
  static const char *const req[] = {"ordinal", "binding_count", "readonly_mask",
                                    "push_constant_count"};
  if (!kiln_symbol_name(op)) return kiln_op_emit_error(op, "requires a 'sym_name' string attribute");
  for (size_t i = 0; i < sizeof req / sizeof *req; i++)
    if (!int_attr(op, req[i]))
      return kiln_op_emit_error(op, "requires an integer '%s' attribute", req[i]);
  const kiln_attr *w = kiln_op_get_attr(op, "workload");
  if (w && !i64_array(w)) return kiln_op_emit_error(op, "expects 'workload' to be an array<i64: ...>");
  kiln_op *parent = kiln_op_parent_op(op);
  if (!parent || parent->kind != KILN_OP_HAL_EXECUTABLE_VARIANT)
    return kiln_op_emit_error(op, "expects parent op 'hal.executable.variant'");
  return true;
}

bool hal_verify_rodata(kiln_op *op) {
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  if (!kiln_symbol_name(op)) return kiln_op_emit_error(op, "requires a 'sym_name' string attribute");
  if (!int_attr(op, "index")) return kiln_op_emit_error(op, "requires an integer 'index' attribute");
  if (!v || v->kind != KILN_ATTR_DENSE)
    return kiln_op_emit_error(op, "requires a dense 'value' attribute");
  return true;
}

uint32_t kiln_hal_holes(const kiln_op *op, const char *name) {
  return kiln_attr_num_dynamic(kiln_op_get_attr(op, name));
}

/* Operands [from, end) are index values, and as many as `holes`. */
static bool index_tail(kiln_op *op, uint32_t from, uint32_t holes, const char *what) {
  if (op->num_operands < from || op->num_operands - from != holes)
    return kiln_op_emit_error(op, "expects one index operand per '?' entry of %s (%u), has %d", what, holes,
                              (int)op->num_operands - (int)from);
  for (uint32_t i = from; i < op->num_operands; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "operand #%u must be index", i);
  return true;
}

bool hal_verify_view_attrs(kiln_op *op) {
  const kiln_attr *et = kiln_op_get_attr(op, "element_type");
  if (!et || et->kind != KILN_ATTR_TYPE)
    return kiln_op_emit_error(op, "requires an 'element_type' type attribute");
  if (!i64_array(kiln_op_get_attr(op, "shape")))
    return kiln_op_emit_error(op, "requires a 'shape' array<i64: ...> attribute");
  if (op->kind == KILN_OP_HAL_BUFFER_VIEW_CREATE) {
    if (!hal_is_type(kiln_op_operand(op, 0)->type, "buffer") ||
        !hal_is_type(op->results[0].type, "buffer_view"))
      return kiln_op_emit_error(op, "expects a !hal.buffer operand and a !hal.buffer_view result");
    if (!int_attr(op, "offset")) return kiln_op_emit_error(op, "requires an integer 'offset' attribute");
    return index_tail(op, 1, kiln_hal_holes(op, "shape"), "'shape'");
  } else if (!hal_is_type(kiln_op_operand(op, 0)->type, "buffer_view")) {
    return kiln_op_emit_error(op, "expects a !hal.buffer_view operand");
  }
  return true;
}

bool hal_verify_view_dim(kiln_op *op) {
  if (!hal_is_type(kiln_op_operand(op, 0)->type, "buffer_view"))
    return kiln_op_emit_error(op, "expects a !hal.buffer_view operand");
  const kiln_attr *i = kiln_op_get_attr(op, "index");
  if (!i || i->kind != KILN_ATTR_INTEGER || i->i < 0)
    return kiln_op_emit_error(op, "requires a non-negative integer 'index' attribute");
  if (op->results[0].type->kind != KILN_TYPE_INDEX) return kiln_op_emit_error(op, "result must be index");
  return true;
}

bool hal_verify_check(kiln_op *op) { return index_tail(op, 0, 2, "the relation"); }

bool hal_verify_check_shape(kiln_op *op) {
  const kiln_attr *b = kiln_op_get_attr(op, "element_bytes");
  if (!b || b->kind != KILN_ATTR_INTEGER || b->i < 1)
    return kiln_op_emit_error(op, "requires a positive 'element_bytes' attribute");
  return index_tail(op, 0, op->num_operands, "the shape");
}

bool hal_verify_check_range(kiln_op *op) { return ir_verify_check_range(op); }

bool hal_verify_buffer_rodata(kiln_op *op) {
  if (!int_attr(op, "index")) return kiln_op_emit_error(op, "requires an integer 'index' attribute");
  if (!hal_is_type(op->results[0].type, "buffer"))
    return kiln_op_emit_error(op, "result must be !hal.buffer");
  return true;
}

bool hal_verify_allocate(kiln_op *op) {
  const kiln_attr *s = kiln_op_get_attr(op, "size");
  if (op->num_operands == 1) {
    const kiln_type *t = kiln_op_operand(op, 0)->type;
    if (s || (t->kind != KILN_TYPE_INDEX && !(t->kind == KILN_TYPE_INTEGER && t->width == 64)))
      return kiln_op_emit_error(op, "expects either a 'size' attribute or an index (i64) size operand");
  } else if (!s || s->kind != KILN_ATTR_INTEGER || s->i < 0) {
    return kiln_op_emit_error(op, "requires a non-negative integer 'size' attribute");
  }
  if (!hal_is_type(op->results[0].type, "buffer"))
    return kiln_op_emit_error(op, "result must be !hal.buffer");
  return true;
}

uint32_t kiln_hal_dispatch_bindings(const kiln_op *op) {
  uint32_t n = 1;
  while (n < op->num_operands && kiln_op_operand(op, n)->type->kind != KILN_TYPE_INDEX) n++;
  return n - 1;
}

bool hal_verify_dispatch(kiln_op *op) {
  if (!hal_is_type(kiln_op_operand(op, 0)->type, "command_buffer"))
    return kiln_op_emit_error(op, "operand #0 must be !hal.command_buffer");
  const uint32_t nb = kiln_hal_dispatch_bindings(op);
  for (uint32_t i = 1; i <= nb; i++)
    if (!hal_is_type(kiln_op_operand(op, i)->type, "buffer"))
      return kiln_op_emit_error(op, "binding operand #%u must be !hal.buffer", i);
  static const char *const lists[] = {"offsets", "lengths", "constants", "workload", "workgroup_count"};
  uint32_t holes = 0;
  for (uint32_t i = 0; i < 5; i++) holes += kiln_hal_holes(op, lists[i]);
  if (!index_tail(op, 1 + nb, holes, "the dispatch's integer lists")) return false;
  const kiln_attr *e = kiln_op_get_attr(op, "executable");
  if (!e || e->kind != KILN_ATTR_SYMBOL_REF)
    return kiln_op_emit_error(op, "requires an 'executable' symbol attribute");
  if (!int_attr(op, "ordinal")) return kiln_op_emit_error(op, "requires an integer 'ordinal' attribute");
  const kiln_attr *off = kiln_op_get_attr(op, "offsets"), *len = kiln_op_get_attr(op, "lengths");
  if (!i64_array(off) || !i64_array(len) || off->count != nb || len->count != nb)
    return kiln_op_emit_error(op, "expects 'offsets' and 'lengths' array<i64> with one entry per binding (%u)",
                              nb);
  return true;
}

kiln_value *kiln_hal_dispatch_value(kiln_op *d, const char *list, uint32_t k, int64_t *value) {
  static const char *const lists[] = {"offsets", "lengths", "constants", "workload", "workgroup_count"};
  uint32_t at = 1 + kiln_hal_dispatch_bindings(d);
  for (uint32_t i = 0; i < 5; i++) {
    const kiln_attr *a = kiln_op_get_attr(d, lists[i]);
    if (strcmp(lists[i], list) != 0) {
      at += kiln_attr_num_dynamic(a);
      continue;
    }
    if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || k >= a->count) return NULL;
    const int64_t *v = a->data;
    if (v[k] != KILN_DYNAMIC) {
      *value = v[k];
      return NULL;
    }
    for (uint32_t j = 0; j < k; j++) at += v[j] == KILN_DYNAMIC;
    return at < d->num_operands ? kiln_op_operand(d, at) : NULL;
  }
  return NULL;
}
