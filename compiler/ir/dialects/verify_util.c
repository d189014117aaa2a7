/* Small checks the dialects' verifiers share (declared in dialects.h):
 * counting '?' entries of static lists and dynamic dims of shaped types,
 * index-typed operand ranges, and the "..., but got 'T'" type error. They
 * only read the op, so they are safe on unverified IR. */
#include "dialects.h"

#include <stdlib.h>

bool ir_type_error(const kiln_op *op, const char *what, const kiln_type *t) {
  char *s = kiln_type_to_string(t);
  kiln_op_emit_error(op, "%s, but got '%s'", what, s);
  free(s);
  return false;
}

uint32_t kiln_attr_num_dynamic(const kiln_attr *a) {
  uint32_t n = 0;
  if (!a || a->kind != KILN_ATTR_DENSE_ARRAY || !a->type || a->type->kind != KILN_TYPE_INTEGER ||
      a->type->width != 64)
    return 0;
  for (uint32_t i = 0; i < a->count; i++) n += ((const int64_t *)a->data)[i] == KILN_DYNAMIC;
  return n;
}


bool ir_operands_are_index(kiln_op *op, uint32_t from, uint32_t to) {
  for (uint32_t i = from; i < to; i++)
    if (kiln_op_operand(op, i)->type->kind != KILN_TYPE_INDEX)
      return kiln_op_emit_error(op, "operand #%u must be of index type", i);
  return true;
}

bool ir_verify_check_range(kiln_op *op) {
  const kiln_attr *w = kiln_op_get_attr(op, "what"), *d = kiln_op_get_attr(op, "dim");
  if (!w || w->kind != KILN_ATTR_STRING)
    return kiln_op_emit_error(op, "requires a string 'what' attribute (offset, size, stride or index)");
  if (!d || d->kind != KILN_ATTR_INTEGER || d->i < 0)
    return kiln_op_emit_error(op, "requires a non-negative integer 'dim' attribute");
  return ir_operands_are_index(op, 0, op->num_operands);
}
