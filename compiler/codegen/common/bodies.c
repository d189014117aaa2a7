/* The scalar body of every structured op on memrefs (compiler/codegen/
 * common): named ops get their implied body (linalg_bodies.def, built by
 * compiler/ir as the parser builds their region), generic/reduce/map
 * bodies are cloned with linalg.index replaced by the loop's induction variable.
 * Guarantees: the body's ops are built at the builder; an op whose body
 * cannot be built gets an error diagnostic and false. */
#include "codegen_common.h"

/* Scalar type of a body value (scalar, or vector when vectorizing). */
#define ELEM(v) kiln_type_elem_or_self((v)->type)

/* A named op's implied body (kiln_linalg_named_body, one definition with
 * the parser's): its inputs must have the output's element type, so that
 * nothing is converted here. */
static bool named_body(kiln_builder *b, kiln_op *op, const kiln_type *et, kiln_value *const *in, kiln_value **out) {
  kiln_linalg_body body = kiln_linalg_body_of(op->kind);
  if (body == KILN_LINALG_BODY_NONE) return kiln_op_emit_error(op, "is not supported by lower-to-loops");
  /* narrower integer inputs (an int8 matmul into i32) sign-extended,
   * integer inputs of a float op (a quantized model's depthwise
   * convolution over bytes) converted, as linalg's default cast does */
  kiln_value *wide[3];
  if (body == KILN_LINALG_BODY_MULADD && op->num_operands == 3) {
    wide[2] = in[2]; /* the accumulator */
    for (int i = 0; i < 2; i++) {
      const kiln_type *it = ELEM(in[i]), *t = in[i]->type;
      wide[i] = in[i];
      if (!kiln_type_is_integer(it) || (kiln_type_is_integer(et) && kiln_type_bitwidth(it) >= kiln_type_bitwidth(et)))
        continue;
      kiln_op_kind k = kiln_type_is_float(et) ? KILN_OP_ARITH_SITOFP : KILN_OP_ARITH_EXTSI;
      const kiln_type *wt = t->kind == KILN_TYPE_VECTOR ? kiln_type_vector(b->ctx, t->rank, t->shape, et) : et;
      wide[i] = kiln_op_result(kiln_build(b, k, 1, &in[i], 1, &wt, NULL), 0);
    }
    in = wide;
  }
  if (body == KILN_LINALG_BODY_MULADD && (ELEM(in[0]) != et || ELEM(in[1]) != et))
    return kiln_op_emit_error(op, "mixed element types are not supported by lower-to-loops");
  if (ELEM(in[0]) != et) return kiln_op_emit_error(op, "input and output element types differ");
  out[0] = kiln_linalg_named_body(b, op->kind, in[0]->type, in, kiln_linalg_num_inputs(op));
  return out[0] || kiln_op_emit_error(op, "operands do not fit its implied body");
}

bool cg_emit_body(kiln_builder *b, kiln_op *op, kiln_value *const *in,
                  kiln_value *const *ivs, kiln_value **out) {
  uint32_t nin = kiln_linalg_num_inputs(op), nops = op->num_operands;
  const kiln_type *et = kiln_type_elem_or_self(kiln_op_operand(op, nops - 1)->type);
  bool fl = kiln_type_is_float(et);
  if (!fl && !kiln_type_is_int_or_index(et)) return kiln_op_emit_error(op, "unsupported element type");
  switch (op->kind) {
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
    return named_body(b, op, et, in, out);
  }
}
