/* Shared helpers of the transforms: replacing ops, the effect-free test DCE
 * and CSE rely on, and element-wise access to scalar and dense constants.
 * Takes: IR that satisfies ir.h's invariants. Guarantees: dense attributes
 * it builds use the storage form ir.h documents and are splats exactly
 * when all elements are equal. */
#include "tx_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tx_replace_op(kiln_op *op, kiln_value *const *vals) {
  for (uint32_t i = 0; i < op->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(op, i), vals[i]);
  kiln_op_erase(op);
}

void tx_replace_with_constant(kiln_op *op, const kiln_attr *value) {
  kiln_builder b = kiln_builder_before(op);
  b.loc = op->loc;
  kiln_value *c = kiln_build_constant(&b, value);
  tx_replace_op(op, &c);
}

bool tx_op_well_formed(const kiln_op *op) {
  const kiln_op_info *in = op->info;
  if (!in || op->kind == KILN_OP_UNREGISTERED) return false;
  if ((int64_t)op->num_operands < in->min_operands ||
      (in->max_operands >= 0 && (int64_t)op->num_operands > in->max_operands) ||
      (int64_t)op->num_results < in->min_results ||
      (in->max_results >= 0 && (int64_t)op->num_results > in->max_results) ||
      (int64_t)op->num_regions < in->min_regions ||
      (in->max_regions >= 0 && (int64_t)op->num_regions > in->max_regions))
    return false;
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!op->operands[i].value || !op->operands[i].value->type) return false;
  return true;
}

static bool is_memref(const kiln_type *t) {
  return t->kind == KILN_TYPE_MEMREF || t->kind == KILN_TYPE_UNRANKED_MEMREF;
}

static bool regions_effect_free(const kiln_op *op) {
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kiln_block *b = op->regions[r].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next)
        if (!tx_op_is_effect_free(o)) return false;
  return true;
}

bool tx_op_is_effect_free(const kiln_op *op) {
  if (op->kind == KILN_OP_UNREGISTERED) return false;
  if (kiln_op_has_flag(op, KILN_OPF_PURE)) return regions_effect_free(op);
  /* Structured ops and loops act on values unless they touch buffers. */
  if (kiln_op_has_flag(op, KILN_OPF_LINALG) || op->kind == KILN_OP_SCF_FOR ||
      op->kind == KILN_OP_SCF_IF) {
    for (uint32_t i = 0; i < op->num_operands; i++)
      if (is_memref(kiln_op_operand(op, i)->type)) return false;
    return regions_effect_free(op);
  }
  return false;
}

/* ---- Refining result types ---- */

bool tx_linalg_mixes_static(const kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_LINALG_GENERIC:
  case KILN_OP_LINALG_FILL:
  case KILN_OP_LINALG_MATMUL:
  case KILN_OP_LINALG_BATCH_MATMUL:
  case KILN_OP_LINALG_MATVEC:
  case KILN_OP_LINALG_CONV_2D_NHWC_HWCF:
  case KILN_OP_LINALG_CONV_2D_NCHW_FCHW:
  case KILN_OP_LINALG_DEPTHWISE_CONV_2D_NHWC_HWC:
  case KILN_OP_LINALG_POOLING_NHWC_MAX:
  case KILN_OP_LINALG_POOLING_NHWC_SUM:
  case KILN_OP_LINALG_POOLING_NCHW_MAX:
  case KILN_OP_LINALG_POOLING_NCHW_SUM: return true;
  default: return false;
  }
}

/* Do two tensor types agree on every dimension both know? */
static bool compatible(const kiln_type *a, const kiln_type *b) {
  if (a->kind != KILN_TYPE_TENSOR || b->kind != KILN_TYPE_TENSOR)
    return a->kind == b->kind;
  if (a->rank != b->rank) return false;
  for (uint32_t d = 0; d < a->rank; d++)
    if (a->shape[d] != KILN_DYNAMIC && b->shape[d] != KILN_DYNAMIC &&
        a->shape[d] != b->shape[d])
      return false;
  return true;
}

/* May this use read the refined value (already in place) directly? Only
 * where that keeps the user valid: a refined shape can contradict what a
 * user knows (a run-time error the old type hid), and such a user keeps
 * reading the old type. */
static bool use_accepts_refined(const kiln_use *u, bool any_linalg_ins) {
  kiln_op *o = u->owner;
  if (o->kind == KILN_OP_TENSOR_DIM) return u->index == 0;
  if (o->kind == KILN_OP_TENSOR_CAST)
    return u->index == 0 && o->num_results == 1 &&
           compatible(u->value->type, o->results[0].type);
  /* A structured op's ins (not its outs, whose type is its result's). */
  if (kiln_op_has_flag(o, KILN_OPF_LINALG) && o->num_results > 0 &&
      o->num_operands >= o->num_results &&
      u->index < o->num_operands - o->num_results &&
      (any_linalg_ins || tx_linalg_mixes_static(o))) {
    kiln_value **ops = malloc(sizeof *ops * o->num_operands);
    if (!ops) return false;
    for (uint32_t j = 0; j < o->num_operands; j++) ops[j] = kiln_op_operand(o, j);
    bool ok = tx_shapes_consistent(o, ops);
    free(ops);
    return ok;
  }
  return false;
}

void tx_retarget_uses(kiln_op *op, uint32_t i, const kiln_type *from,
                      bool any_linalg_ins) {
  kiln_value *res = kiln_op_result(op, i);
  kiln_value *back = NULL;
  for (kiln_use *u = res->uses, *next; u; u = next) {
    next = u->next;
    if (back && u->owner == back->def) continue;
    if (use_accepts_refined(u, any_linalg_ins)) continue;
    if (!back) {
      kiln_builder b = kiln_builder_after(op);
      b.loc = op->loc;
      back = kiln_op_result(
          kiln_build(&b, KILN_OP_TENSOR_CAST, 1, &res, 1, &from, NULL), 0);
    }
    kiln_op_set_operand(u->owner, u->index, back);
  }
}

/* ---- Constants, element-wise ---- */

bool tx_elems_of(kiln_value *v, tx_elems *e) {
  const kiln_attr *a = kiln_value_constant(v);
  if (!a) return false;
  memset(e, 0, sizeof *e);
  e->attr = a;
  switch (a->kind) {
  case KILN_ATTR_BOOL:
  case KILN_ATTR_INTEGER:
  case KILN_ATTR_FLOAT:
    e->elem = v->type;
    e->count = 1;
    return !kiln_type_is_shaped(v->type);
  case KILN_ATTR_DENSE:
    if (!a->type || !kiln_type_has_static_shape(a->type)) return false;
    e->elem = a->type->elem;
    e->count = kiln_type_num_elements(a->type);
    e->dense = true;
    e->splat = a->splat;
    return e->count >= 0;
  default:
    return false;
  }
}

int64_t tx_elem_int(const tx_elems *e, int64_t i) {
  unsigned w = kiln_type_bitwidth(e->elem);
  int64_t v = e->dense ? kiln_dense_get_int(e->attr, e->splat ? 0 : i)
                       : e->attr->i;
  /* i1 true may be stored as 1; as a signless value its bits are all set. */
  return tx_sext((uint64_t)v, w);
}

double tx_elem_float(const tx_elems *e, int64_t i) {
  return e->dense ? kiln_dense_get_float(e->attr, e->splat ? 0 : i)
                  : e->attr->f;
}

const kiln_attr *tx_attr_int(kiln_context *ctx, const kiln_type *type,
                             int64_t v) {
  return tx_attr_ints(ctx, type, &v, 1);
}

const kiln_attr *tx_attr_float(kiln_context *ctx, const kiln_type *type,
                               double v) {
  return tx_attr_floats(ctx, type, &v, 1);
}

/* Little-endian storage of one integer element of `size` bytes. */
static void store_int(unsigned char *p, size_t size, uint64_t v) {
  for (size_t k = 0; k < size; k++) p[k] = (unsigned char)(v >> (8 * k));
}

static void store_float(unsigned char *p, const kiln_type *elem, double v) {
  switch (elem->kind) {
  case KILN_TYPE_F16: store_int(p, 2, kiln_f32_to_f16((float)v)); break;
  case KILN_TYPE_BF16: store_int(p, 2, kiln_f32_to_bf16((float)v)); break;
  case KILN_TYPE_F32: {
    float f = (float)v;
    uint32_t bits;
    memcpy(&bits, &f, 4);
    store_int(p, 4, bits);
    break;
  }
  default: {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    store_int(p, 8, bits);
    break;
  }
  }
}

/* The folded elements were written into the context's arena, which
 * lives as long as the attribute would: borrowing them saves the interning
 * copy (a folded weight tensor was held twice for the whole compile). */
static const kiln_attr *attr_of(kiln_context *ctx, const kiln_type *type,
                                bool splat, const void *data, size_t nbytes) {
  return splat ? kiln_attr_dense(ctx, type, true, data, nbytes)
               : kiln_attr_dense_borrowed(ctx, type, data, nbytes);
}

const kiln_attr *tx_attr_ints(kiln_context *ctx, const kiln_type *type,
                              const int64_t *vals, int64_t n) {
  const kiln_type *elem = kiln_type_elem_or_self(type);
  unsigned w = kiln_type_bitwidth(elem);
  if (!kiln_type_is_shaped(type)) {
    if (elem->kind == KILN_TYPE_INTEGER && w == 1)
      return kiln_attr_bool(ctx, (vals[0] & 1) != 0);
    return kiln_attr_int(ctx, type, tx_sext((uint64_t)vals[0], w));
  }
  bool splat = true;
  for (int64_t i = 1; i < n && splat; i++)
    splat = tx_zext(vals[i], w) == tx_zext(vals[0], w);
  size_t size = kiln_dense_elem_size(elem);
  int64_t count = splat ? 1 : n;
  unsigned char *data = kiln_alloc(ctx, size * (size_t)count);
  for (int64_t i = 0; i < count; i++)
    store_int(data + size * (size_t)i, size,
              w == 1 ? (uint64_t)(vals[i] & 1) : tx_zext(vals[i], w));
  return attr_of(ctx, type, splat, data, size * (size_t)count);
}

const kiln_attr *tx_attr_floats(kiln_context *ctx, const kiln_type *type,
                                const double *vals, int64_t n) {
  const kiln_type *elem = kiln_type_elem_or_self(type);
  if (!kiln_type_is_shaped(type))
    return kiln_attr_float(ctx, type, kiln_float_round(type, vals[0]));
  size_t size = kiln_dense_elem_size(elem);
  /* Compare stored bits, so -0.0 vs 0.0 and NaNs decide splat-ness exactly. */
  unsigned char first[8], cur[8];
  store_float(first, elem, vals[0]);
  bool splat = true;
  for (int64_t i = 1; i < n && splat; i++) {
    store_float(cur, elem, vals[i]);
    splat = memcmp(first, cur, size) == 0;
  }
  int64_t count = splat ? 1 : n;
  unsigned char *data = kiln_alloc(ctx, size * (size_t)count);
  for (int64_t i = 0; i < count; i++)
    store_float(data + size * (size_t)i, elem, vals[i]);
  return attr_of(ctx, type, splat, data, size * (size_t)count);
}

bool tx_is_const_int(kiln_value *v, int64_t k) {
  tx_elems e;
  if (!tx_elems_of(v, &e) || !kiln_type_is_int_or_index(e.elem)) return false;
  unsigned w = kiln_type_bitwidth(e.elem);
  int64_t n = e.splat ? 1 : e.count;
  for (int64_t i = 0; i < n; i++)
    if (tx_zext(tx_elem_int(&e, i), w) != tx_zext(k, w)) return false;
  return true;
}

bool tx_is_const_float(kiln_value *v, double k) {
  tx_elems e;
  if (!tx_elems_of(v, &e) || !kiln_type_is_float(e.elem)) return false;
  int64_t n = e.splat ? 1 : e.count;
  for (int64_t i = 0; i < n; i++) {
    double x = tx_elem_float(&e, i);
    if (x != k || signbit(x) != signbit(k)) return false;
  }
  return true;
}
