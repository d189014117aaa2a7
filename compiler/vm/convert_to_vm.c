/* convert-to-vm: host functions after the hal stage -> vm.func.
 *
 * Takes: top-level func.funcs whose values are !hal.* refs and scalars
 * (index, i32, i64, f32, f64) holding the host ops PIPELINE.md lists for
 * the hal stage (hal.buffer_view.assert/buffer/create, hal.buffer.allocate/
 * rodata, hal.command_buffer.create/dispatch/copy/barrier/execute,
 * hal.device.wait), scalar arith, and func.return; hal.executable ops are
 * left as they are. Guarantees: each such func becomes a vm.func of the
 * same name and visibility whose body holds only vm.const.*, vm ops of the
 * opcode table, vm.call.import (callee = full HAL import name, signature =
 * the string runtime-min checks, spans = tuple count per variadic span)
 * and vm.ret, and host scf.for loops (index bounds, scalars and refs
 * carried) and scf.if branches become vm.for / vm.if with the same
 * bodies lowered, a func.call of another host function of the module
 * vm.call {callee, signature} (the VM's CALL opcode); index becomes i64 (i1 i32); attributes are turned into constants
 * (shared between nearby uses only, so live ranges stay short); `kiln.signature` (the tensor
 * signature, the module's reflection data) is kept or derived from the
 * input asserts and the views returned; hal.buffer.allocate
 * {uninitialized} calls hal.buffer.allocate_uninitialized, others the
 * zeroing hal.buffer.allocate. Ops it cannot lower are errors at
 * their location naming the op. */
#include <stdlib.h>
#include <string.h>

#include "kiln/vm_bytecode.h"
#include "vm_internal.h"
#include "dialects/hal.h"

typedef struct cv_const {
  const kiln_type *type;
  int64_t value;
  kiln_value *val;
  uint32_t born; /* host op index it was made at */
} cv_const;

/* A constant is shared only within this many host ops: sharing keeps code
 * small, the window keeps every constant's live range (and so the scalar
 * bank of a large model's host function) bounded. */
#define CV_CONST_WINDOW 64u

typedef struct cv {
  kiln_context *ctx;
  kiln_op *module;
  kiln_builder b;
  kiln_value_map map;
  const kiln_type *i32, *i64;
  cv_const *consts;
  uint32_t nconsts, capconsts;
  uint32_t op_index; /* host ops lowered so far in this function */
  /* run-time values already checked to lie in [0, hi] in this function
   * (push constants, workgroup counts; a check dominates every later use
   * of its block: the ones inside a loop body are dropped after it) */
  struct cv_checked {
    kiln_value *v;
    int64_t hi;
  } *checked;
  uint32_t nchecked, capchecked;
  kiln_error *err; /* the first failure, located at its op */
} cv;

/* ---- attribute readers ------------------------------------------------- */

static bool cv_int_attr(cv *c, const kiln_op *op, const char *name,
                        int64_t *out, bool required) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  if (!a) {
    if (required)
      return kiln_op_fail(&c->err, op, "needs an integer attribute '%s'", name);
    return true;
  }
  if (a->kind != KILN_ATTR_INTEGER)
    return kiln_op_fail(&c->err, op, "attribute '%s' must be an integer", name);
  *out = a->i;
  return true;
}

/* Integer list attribute (array<i64: ...>, array<i32: ...> or [1, 2]);
 * *n = 0 and *out = NULL when absent and not required. */
static bool cv_ints_attr(cv *c, const kiln_op *op, const char *name,
                         const int64_t **out, uint32_t *n, bool required) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  *out = NULL;
  *n = 0;
  if (!a) {
    if (required)
      return kiln_op_fail(&c->err, op, "needs an integer array attribute '%s'", name);
    return true;
  }
  if (a->kind == KILN_ATTR_DENSE_ARRAY && kiln_type_is_int_or_index(a->type)) {
    *out = a->data;
    *n = a->count;
    return true;
  }
  if (a->kind == KILN_ATTR_ARRAY) {
    int64_t *v = kiln_alloc(c->ctx, (a->count + 1) * sizeof *v);
    for (uint32_t i = 0; i < a->count; i++) {
      if (a->elems[i]->kind != KILN_ATTR_INTEGER)
        return kiln_op_fail(&c->err, op, "attribute '%s' must hold integers", name);
      v[i] = a->elems[i]->i;
    }
    *out = v;
    *n = a->count;
    return true;
  }
  return kiln_op_fail(&c->err, op, "attribute '%s' must be an integer array", name);
}

static bool cv_elem_attr(cv *c, const kiln_op *op, int64_t *code) {
  const kiln_attr *a = kiln_op_get_attr(op, "element_type");
  if (!a || a->kind != KILN_ATTR_TYPE)
    return kiln_op_fail(&c->err, op, "needs a type attribute 'element_type'");
  const kiln_fb_ElementType_t et = kiln_vm_element_type(a->type);
  if (et == kiln_fb_ElementType_Unknown) {
    char *s = kiln_type_to_string(a->type);
    kiln_op_fail(&c->err, op, "element type '%s' has no module ElementType",
                 s ? s : "?");
    free(s);
    return false;
  }
  *code = (int64_t)et;
  return true;
}

/* ---- builders ------------------------------------------------------------ */

static const kiln_type *cv_type(cv *c, const kiln_type *t) {
  if (t->kind == KILN_TYPE_INDEX) return c->i64;
  if (t->kind == KILN_TYPE_INTEGER && t->width == 1) return c->i32;
  return vmx_type_letter(t) ? t : NULL;
}

/* One vm.const per distinct (type, value) per window of host ops. */
static kiln_value *cv_const_int(cv *c, const kiln_type *t, int64_t v) {
  for (uint32_t i = 0; i < c->nconsts; i++)
    if (c->consts[i].type == t && c->consts[i].value == v &&
        c->op_index - c->consts[i].born < CV_CONST_WINDOW)
      return c->consts[i].val;
  const kiln_named_attr na = {kiln_intern_cstr(c->ctx, "value"),
                              kiln_attr_int(c->ctx, t, v)};
  const kiln_op_kind k = t->width == 64 ? KILN_OP_VM_CONST_I64 : KILN_OP_VM_CONST_I32;
  kiln_op *op = kiln_build(&c->b, k, 0, NULL, 1, &t, kiln_attr_dict(c->ctx, 1, &na));
  /* Entries that fell out of the window are dropped (oldest first). */
  uint32_t keep = 0;
  for (uint32_t i = 0; i < c->nconsts; i++)
    if (c->op_index - c->consts[i].born < CV_CONST_WINDOW) c->consts[keep++] = c->consts[i];
  c->nconsts = keep;
  if (c->nconsts == c->capconsts) {
    const uint32_t cap = c->capconsts ? c->capconsts * 2 : 32;
    cv_const *n = kiln_alloc(c->ctx, cap * sizeof *n);
    if (c->nconsts) memcpy(n, c->consts, c->nconsts * sizeof *n);
    c->consts = n;
    c->capconsts = cap;
  }
  c->consts[c->nconsts++] = (cv_const){t, v, kiln_op_result(op, 0), c->op_index};
  return kiln_op_result(op, 0);
}

static kiln_value *cv_i32(cv *c, const kiln_op *at, int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) {
    kiln_op_fail(&c->err, at, "value %lld does not fit in i32", (long long)v);
    v = 0;
  }
  return cv_const_int(c, c->i32, v);
}
static kiln_value *cv_i64(cv *c, int64_t v) { return cv_const_int(c, c->i64, v); }

/* Operand list under construction for one call. */
typedef struct cv_args {
  kiln_value *v[512];
  uint32_t n;
  int64_t spans[4];
  uint32_t nspans;
} cv_args;

static void cv_push(cv_args *a, kiln_value *v) {
  if (a->n < sizeof a->v / sizeof a->v[0]) a->v[a->n++] = v;
}

/* vm.call.import of HAL import `imp` (result type `res` or NULL). */
static kiln_op *cv_call(cv *c, const kiln_op *src, const vmx_import *imp,
                        cv_args *a, const kiln_type *res) {
  const char *callee = imp->name, *sig = imp->signature;
  if (a->n >= sizeof a->v / sizeof a->v[0] || a->n > KILN_VM_MAX_LIST - a->nspans) {
    kiln_op_fail(&c->err, src, "too many operands for one VM call");
    return NULL;
  }
  kiln_named_attr na[3];
  uint32_t nn = 0;
  na[nn++] = (kiln_named_attr){kiln_intern_cstr(c->ctx, "callee"),
                               kiln_attr_string(c->ctx, callee, strlen(callee))};
  na[nn++] = (kiln_named_attr){kiln_intern_cstr(c->ctx, "signature"),
                               kiln_attr_string(c->ctx, sig, strlen(sig))};
  if (a->nspans)
    na[nn++] = (kiln_named_attr){
        kiln_intern_cstr(c->ctx, "spans"),
        kiln_attr_dense_array(c->ctx, c->i32, a->nspans, a->spans, NULL)};
  c->b.loc = src->loc;
  return kiln_build(&c->b, KILN_OP_VM_CALL_IMPORT, a->n, a->v, res ? 1 : 0,
                    res ? &res : NULL, kiln_attr_dict(c->ctx, nn, na));
}

static kiln_value *cv_operand(cv *c, const kiln_op *op, uint32_t i) {
  kiln_value *v = kiln_value_map_lookup(&c->map, kiln_op_operand(op, i));
  if (!v) {
    kiln_op_fail(&c->err, op, "operand #%u was not lowered to the VM", i);
    return NULL;
  }
  return v;
}

static void cv_map_result(cv *c, kiln_op *op, kiln_op *call) {
  if (call && op->num_results == 1 && call->num_results == 1)
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, 0), kiln_op_result(call, 0));
}

/* op has `operands` operands of which the first `refs` are !hal values,
 * and `results` results. */
static bool cv_expect_refs(cv *c, const kiln_op *op, uint32_t refs, uint32_t operands, uint32_t results) {
  if (op->num_operands != operands || op->num_results != results)
    return kiln_op_fail(&c->err, op, "expects %u operand(s) and %u result(s)",
                        operands, results);
  for (uint32_t i = 0; i < refs; i++)
    if (!vmx_is_ref(kiln_op_operand(op, i)->type))
      return kiln_op_fail(&c->err, op, "operand #%u must be a !hal value", i);
  return true;
}

static bool cv_expect(cv *c, const kiln_op *op, uint32_t operands, uint32_t results) {
  return cv_expect_refs(c, op, operands, operands, results);
}

/* Index of the hal.executable named `name` among the module's executables,
 * the order serialize writes them in; -1 when absent. */
static int64_t cv_executable_index(cv *c, const char *name) {
  int64_t i = 0;
  for (kiln_op *o = kiln_module_body(c->module)->first; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_EXECUTABLE) continue;
    const char *s = kiln_symbol_name(o);
    if (s && strcmp(s, name) == 0) return i;
    i++;
  }
  return -1;
}

/* ---- hal ops ------------------------------------------------------------- */

/* hal.text.convert: the two views, then code = op | flags << 4 |
 * element type << 8 (kiln/text_ops.h). */
static bool cv_text(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t kind = 0, flags = 0, et = 0;
  if (!cv_expect(c, op, 2, 1) || !cv_int_attr(c, op, "op", &kind, true) ||
      !cv_int_attr(c, op, "flags", &flags, false) || !cv_elem_attr(c, op, &et))
    return false;
  if (kind < 0 || kind > 15 || flags < 0 || flags > 15)
    return kiln_op_fail(&c->err, op, "text op %lld / flags %lld out of range", (long long)kind, (long long)flags);
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_operand(c, op, 1));
  cv_push(&a, cv_i32(c, op, kind | flags << 4 | et << 8));
  kiln_op *call = cv_call(c, op, imp, &a, op->results[0].type);
  cv_map_result(c, op, call);
  return call != NULL;
}

static bool cv_assert(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t input = 0, et = 0;
  const int64_t *dims;
  uint32_t rank;
  if (!cv_expect(c, op, 1, 0) || !cv_int_attr(c, op, "input", &input, true) ||
      !cv_elem_attr(c, op, &et) || !cv_ints_attr(c, op, "shape", &dims, &rank, true))
    return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_i32(c, op, input));
  cv_push(&a, cv_i32(c, op, et));
  for (uint32_t i = 0; i < rank; i++)
    cv_push(&a, cv_i64(c, dims[i] == KILN_DYNAMIC ? -1 : dims[i]));
  a.spans[a.nspans++] = rank;
  return cv_call(c, op, imp, &a, NULL) != NULL;
}

static bool cv_view_create(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t offset = 0, et = 0;
  const int64_t *dims;
  uint32_t rank;
  if (!cv_expect_refs(c, op, 1, op->num_operands, 1) || !cv_int_attr(c, op, "offset", &offset, false) ||
      !cv_elem_attr(c, op, &et) || !cv_ints_attr(c, op, "shape", &dims, &rank, true))
    return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_i64(c, offset));
  cv_push(&a, cv_i32(c, op, et));
  for (uint32_t i = 0, k = 1; i < rank; i++) {
    if (dims[i] == KILN_DYNAMIC) {
      if (k >= op->num_operands) return kiln_op_fail(&c->err, op, "no operand for dynamic dim %u", i);
      cv_push(&a, cv_operand(c, op, k++));
    } else if (dims[i] < 0) {
      return kiln_op_fail(&c->err, op, "negative dim %lld", (long long)dims[i]);
    } else {
      cv_push(&a, cv_i64(c, dims[i]));
    }
  }
  a.spans[a.nspans++] = rank;
  kiln_op *call = cv_call(c, op, imp, &a, op->results[0].type);
  cv_map_result(c, op, call);
  return call != NULL;
}

static bool cv_allocate(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t size = 0;
  cv_args a = {.n = 0};
  if (op->num_operands == 1 && op->num_results == 1) {
    cv_push(&a, cv_operand(c, op, 0)); /* dynamic size, already i64 */
  } else {
    if (op->num_operands != 0 || op->num_results != 1)
      return kiln_op_fail(&c->err, op, "expects no operand (or a size) and one result");
    if (!cv_int_attr(c, op, "size", &size, true)) return false;
    if (size < 0) return kiln_op_fail(&c->err, op, "negative size %lld", (long long)size);
    cv_push(&a, cv_i64(c, size));
  }
  /* plan-memory's {uninitialized}: the runtime may skip clearing it */
  if (kiln_op_get_attr(op, "uninitialized")) imp = vmx_hal_import_named("hal.buffer.allocate_uninitialized");
  kiln_op *call = cv_call(c, op, imp, &a, op->results[0].type);
  cv_map_result(c, op, call);
  return call != NULL;
}

static bool cv_rodata(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t index = 0;
  if (!cv_expect(c, op, 0, 1) || !cv_int_attr(c, op, "index", &index, true))
    return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_i32(c, op, index));
  kiln_op *call = cv_call(c, op, imp, &a, op->results[0].type);
  cv_map_result(c, op, call);
  return call != NULL;
}

/* hal.command_buffer.copy: its operands in the import's order (cb, src,
 * src offset, dst, dst offset, length; index values are i64 already). */
static bool cv_copy(cv *c, kiln_op *op, const vmx_import *imp) {
  if (!cv_expect_refs(c, op, 2, 6, 0)) return false;
  if (!vmx_is_ref(kiln_op_operand(op, 3)->type)) return kiln_op_fail(&c->err, op, "operand #3 must be a !hal value");
  cv_args a = {.n = 0};
  for (uint32_t i = 0; i < 6; i++) {
    kiln_value *v = cv_operand(c, op, i);
    if (!v) return false;
    cv_push(&a, v);
  }
  return cv_call(c, op, imp, &a, NULL) != NULL;
}

/* Ops that are one import call on their operands, refs and index values
 * ('I': i64 on the VM) in the signature's order, returning the import's
 * result: counts from the signature ("rI_r": a ref and an index in, one
 * ref out). */
static bool cv_plain(cv *c, kiln_op *op, const vmx_import *imp) {
  const char *sig = imp->signature, *sep = strchr(sig, '_');
  for (const char *t = sig; *t; t++)
    if (*t != 'r' && *t != 'I' && *t != '_')
      return kiln_op_fail(&c->err, op, "import %s (\"%s\") takes more than refs and indices; it needs a lowering "
                          "of its own", imp->name, sig);
  const uint32_t nops = (uint32_t)(sep - sig), nres = (uint32_t)strlen(sep + 1);
  if (!cv_expect_refs(c, op, 0, nops, nres)) return false;
  if (nres > 1) return kiln_op_fail(&c->err, op, "more than one result");
  cv_args a = {.n = 0};
  for (uint32_t i = 0; i < nops; i++) {
    if (vmx_is_ref(kiln_op_operand(op, i)->type) != (sig[i] == 'r'))
      return kiln_op_fail(&c->err, op, "operand #%u must be %s", i, sig[i] == 'r' ? "a !hal value" : "an index");
    kiln_value *v = cv_operand(c, op, i);
    if (!v) return false;
    cv_push(&a, v);
  }
  kiln_op *call = cv_call(c, op, imp, &a, !nres ? NULL : sep[1] == 'I' ? c->i64 : op->results[0].type);
  cv_map_result(c, op, call);
  return call != NULL;
}

/* The VM value (type t: i32 truncates) of a '?' entry of a dispatch's
 * integer list; NULL for a static entry. */
static kiln_value *cv_list_value(cv *c, kiln_op *op, const char *list, uint32_t k, const kiln_type *t) {
  int64_t st;
  kiln_value *v = kiln_hal_dispatch_value(op, list, k, &st);
  if (!v) return NULL;
  kiln_value *m = kiln_value_map_lookup(&c->map, v);
  if (!m) {
    kiln_op_fail(&c->err, op, "the value of '%s' entry %u was not lowered to the VM", list, k);
    return NULL;
  }
  if (t == c->i32 && m->type != c->i32)
    m = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_TRUNC_I64_I32, 1, &m, 1, &t, NULL), 0);
  return m;
}

static bool cv_view_dim(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t index = 0;
  if (!cv_expect_refs(c, op, 1, 1, 1) || !cv_int_attr(c, op, "index", &index, true)) return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_i32(c, op, index));
  kiln_op *call = cv_call(c, op, imp, &a, c->i64);
  cv_map_result(c, op, call);
  return call != NULL;
}

static bool cv_view_load(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t index = 0;
  if (!cv_expect_refs(c, op, 1, 1, 1) || !cv_int_attr(c, op, "index", &index, true)) return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_i64(c, index));
  kiln_op *call = cv_call(c, op, imp, &a, c->i64);
  cv_map_result(c, op, call);
  return call != NULL;
}

static bool cv_check_shape(cv *c, kiln_op *op, const vmx_import *imp) {
  int64_t bytes = 0;
  if (!cv_expect_refs(c, op, 0, op->num_operands, 0) || !cv_int_attr(c, op, "element_bytes", &bytes, true))
    return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_i64(c, bytes));
  for (uint32_t i = 0; i < op->num_operands; i++) cv_push(&a, cv_operand(c, op, i));
  a.spans[a.nspans++] = op->num_operands;
  return cv_call(c, op, imp, &a, NULL) != NULL;
}

/* Where an index value came from, for hal.check.dim_eq's message: input
 * and dimension of a hal.buffer_view.dim of an argument; -2 for a
 * constant; -1 for anything computed. */
static void cv_origin(kiln_value *v, int64_t *input, int64_t *dim) {
  *input = -1, *dim = 0;
  const kiln_attr *cst = kiln_value_constant(v);
  if (cst && cst->kind == KILN_ATTR_INTEGER) {
    *input = -2;
    return;
  }
  kiln_op *d = v->def;
  if (!d || d->kind != KILN_OP_HAL_BUFFER_VIEW_DIM) return;
  kiln_value *view = kiln_op_operand(d, 0);
  const kiln_attr *i = kiln_op_get_attr(d, "index");
  /* an argument of the function, not a loop's step or carried value */
  const kiln_op *owner = view->def ? NULL : kiln_block_parent_op(view->block);
  if (!owner || owner->kind != KILN_OP_FUNC_FUNC || !i || i->kind != KILN_ATTR_INTEGER) return;
  *input = view->index, *dim = i->i;
}

static bool cv_check(cv *c, kiln_op *op, const vmx_import *imp) {
  if (!cv_expect_refs(c, op, 0, 2, 0)) return false;
  cv_args a = {.n = 0};
  for (uint32_t i = 0; i < 2; i++) {
    int64_t input, dim;
    cv_origin(kiln_op_operand(op, i), &input, &dim);
    cv_push(&a, cv_operand(c, op, i));
    cv_push(&a, cv_i32(c, op, input));
    cv_push(&a, cv_i32(c, op, dim));
  }
  return cv_call(c, op, imp, &a, NULL) != NULL;
}

/* hal.check.dim_eq's range form (kiln/vm_bytecode.h): v against v
 * clamped into [lo, hi] (so the message can name the bound it broke);
 * `what` is KILN_CHECK_RANGE_NOUNS' index. lo <= hi unless an earlier
 * check failed. One builder call per statement (argument order). */
static bool cv_range_call(cv *c, kiln_op *at, kiln_value *v, kiln_value *lo, kiln_value *hi, int64_t what,
                          int64_t dim) {
  kiln_value *ops[2] = {v, hi};
  kiln_value *m = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_MINS_I64, 2, ops, 1, &c->i64, NULL), 0);
  ops[0] = m, ops[1] = lo;
  kiln_value *clamped = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_MAXS_I64, 2, ops, 1, &c->i64, NULL), 0);
  cv_args a = {.n = 0};
  cv_push(&a, v);
  cv_push(&a, cv_i32(c, at, KILN_CHECK_RANGE));
  cv_push(&a, cv_i32(c, at, dim));
  cv_push(&a, clamped);
  cv_push(&a, cv_i32(c, at, what));
  cv_push(&a, cv_i32(c, at, 0));
  return cv_call(c, at, vmx_hal_import_of(KILN_OP_HAL_CHECK_DIM_EQ), &a, NULL) != NULL;
}

static bool cv_check_range(cv *c, kiln_op *op) {
  static const char nouns[] = KILN_CHECK_RANGE_NOUNS;
  const kiln_attr *w = kiln_op_get_attr(op, "what");
  int64_t dim = 0, what = -1;
  if (!cv_expect_refs(c, op, 0, 3, 0) || !cv_int_attr(c, op, "dim", &dim, true)) return false;
  const char *noun = nouns;
  for (int64_t k = 0; w && w->kind == KILN_ATTR_STRING && k < KILN_CHECK_RANGE_WORKGROUP_COUNT; k++) {
    if (strlen(noun) == w->len && memcmp(noun, w->str, w->len) == 0) what = k;
    noun += strlen(noun) + 1;
  }
  if (what < 0) return kiln_op_fail(&c->err, op, "'what' must be offset, size, stride or index");
  kiln_value *v = cv_operand(c, op, 0);
  kiln_value *lo = cv_operand(c, op, 1);
  kiln_value *hi = cv_operand(c, op, 2);
  if (!v || !lo || !hi) return false;
  c->b.loc = op->loc;
  return cv_range_call(c, op, v, lo, hi, what, dim);
}

/* Whether run-time value V was checked before in this function to lie
 * in [0, hi] (or a narrower range); records it as checked. */
static bool cv_range_checked(cv *c, kiln_value *v, int64_t hi) {
  for (uint32_t i = 0; i < c->nchecked; i++)
    if (c->checked[i].v == v && c->checked[i].hi <= hi) return true;
  if (c->nchecked == c->capchecked) {
    const uint32_t cap = c->capchecked ? c->capchecked * 2 : 16;
    struct cv_checked *n = kiln_alloc(c->ctx, cap * sizeof *n);
    if (c->nchecked) memcpy(n, c->checked, c->nchecked * sizeof *n);
    c->checked = n;
    c->capchecked = cap;
  }
  c->checked[c->nchecked++] = (struct cv_checked){v, hi};
  return false;
}

static bool cv_dispatch(cv *c, kiln_op *op, const vmx_import *imp) {
  const kiln_attr *exe = kiln_op_get_attr(op, "executable");
  if (!exe || exe->kind != KILN_ATTR_SYMBOL_REF)
    return kiln_op_fail(&c->err, op, "needs a symbol attribute 'executable'");
  const int64_t exe_index = cv_executable_index(c, exe->str);
  if (exe_index < 0)
    return kiln_op_fail(&c->err, op, "no hal.executable named @%s in the module", exe->str);
  int64_t ordinal = 0;
  const int64_t *wg, *offsets, *lengths, *consts;
  uint32_t nwg, noff, nlen, nconst;
  if (!cv_int_attr(c, op, "ordinal", &ordinal, true) ||
      !cv_ints_attr(c, op, "workgroup_count", &wg, &nwg, false) ||
      !cv_ints_attr(c, op, "offsets", &offsets, &noff, true) ||
      !cv_ints_attr(c, op, "lengths", &lengths, &nlen, true) ||
      !cv_ints_attr(c, op, "constants", &consts, &nconst, false))
    return false;
  if (!wg)
    return kiln_op_fail(&c->err, op, "has no 'workgroup_count' (codegen fills it in; did the codegen stage run?)");
  if (nwg < 1 || nwg > 3)
    return kiln_op_fail(&c->err, op, "'workgroup_count' needs 1 to 3 entries, has %u", nwg);
  if (op->num_operands < 1 || op->num_results != 0)
    return kiln_op_fail(&c->err, op, "expects a command buffer then the bound buffers");
  const uint32_t nbind = kiln_hal_dispatch_bindings(op);
  if (noff != nbind || nlen != nbind)
    return kiln_op_fail(&c->err, op, "binds %u buffers but has %u offsets and %u lengths", nbind, noff, nlen);
  if (!cv_expect_refs(c, op, 1 + nbind, op->num_operands, 0)) return false;
  cv_args a = {.n = 0};
  cv_push(&a, cv_operand(c, op, 0));
  cv_push(&a, cv_i32(c, op, exe_index));
  cv_push(&a, cv_i32(c, op, ordinal));
  for (uint32_t i = 0; i < 3; i++) {
    kiln_value *v = i < nwg ? cv_list_value(c, op, "workgroup_count", i, c->i64) : NULL;
    if (v && v->type != c->i32) {
      /* the HAL takes counts as int32 >= 0: a run-time count outside
       * that range would arrive truncated (fewer or more workgroups) */
      if (!cv_range_checked(c, v, INT32_MAX)) {
        kiln_value *zero = cv_i64(c, 0); /* one builder call per statement */
        kiln_value *most = cv_i64(c, INT32_MAX);
        if (!cv_range_call(c, op, v, zero, most, KILN_CHECK_RANGE_WORKGROUP_COUNT, i)) return false;
      }
      v = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_TRUNC_I64_I32, 1, &v, 1, &c->i32, NULL), 0);
    }
    if (v) {
      cv_push(&a, v);
      continue;
    }
    if (c->err) return false;
    const int64_t n = i < nwg ? wg[i] : 1;
    if (n < 0) return kiln_op_fail(&c->err, op, "workgroup count %lld in dimension %u", (long long)n, i);
    cv_push(&a, cv_i32(c, op, n));
  }
  for (uint32_t i = 0; i < nconst; i++) {
    kiln_value *v = cv_list_value(c, op, "constants", i, c->i64);
    if (c->err) return false;
    /* kernels widen a push constant from unsigned 32 bits
     * (bufferize-kernels): other values would arrive wrong */
    if (!v && (consts[i] < 0 || consts[i] > (int64_t)UINT32_MAX))
      return kiln_op_fail(&c->err, op, "push constant %u is %lld, must be in [0, 2^32)", i, (long long)consts[i]);
    if (!v) {
      cv_push(&a, cv_const_int(c, c->i32, (int32_t)(uint32_t)consts[i]));
      continue;
    }
    if (v->type == c->i32) {
      cv_push(&a, v);
      continue;
    }
    if (!cv_range_checked(c, v, UINT32_MAX)) {
      kiln_value *zero = cv_i64(c, 0); /* one builder call per statement */
      kiln_value *most = cv_i64(c, UINT32_MAX);
      if (!cv_range_call(c, op, v, zero, most, KILN_CHECK_RANGE_PUSH_CONSTANT, i)) return false;
    }
    kiln_value *lo = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_TRUNC_I64_I32, 1, &v, 1, &c->i32, NULL), 0);
    cv_push(&a, lo);
  }
  a.spans[a.nspans++] = nconst;
  for (uint32_t i = 0; i < nbind; i++) {
    cv_push(&a, cv_operand(c, op, 1 + i));
    for (uint32_t l = 0; l < 2; l++) {
      const char *list = l ? "lengths" : "offsets";
      kiln_value *v = cv_list_value(c, op, list, i, c->i64);
      if (c->err) return false;
      const int64_t x = l ? lengths[i] : offsets[i];
      if (!v && x < 0) return kiln_op_fail(&c->err, op, "binding %u has a negative offset or length", i);
      cv_push(&a, v ? v : cv_i64(c, x));
    }
  }
  a.spans[a.nspans++] = nbind;
  return cv_call(c, op, imp, &a, NULL) != NULL;
}

/* ---- scalar arith ------------------------------------------------------ */

/* The opcode table's ARITH column (vmx_arith_opcode) names the opcode per
 * result type. *handled is false for ops that no opcode computes. */
static bool cv_arith_op(cv *c, kiln_op *op, bool *handled) {
  const kiln_type *t = op->num_results == 1 ? cv_type(c, op->results[0].type) : NULL;
  const kiln_op_kind k = vmx_arith_opcode(op->kind, t ? vmx_type_letter(t) : 0, handled);
  if (!*handled) return true;
  if (k == KILN_OP_COUNT)
    return kiln_op_fail(&c->err, op, "on this type has no VM opcode (host code computes on i32, i64/index, f32, f64 scalars)");
  kiln_value *ops[2];
  for (uint32_t j = 0; j < op->num_operands && j < 2; j++)
    if (!(ops[j] = cv_operand(c, op, j))) return false;
  c->b.loc = op->loc;
  kiln_op *n = kiln_build(&c->b, k, op->num_operands, ops, 1, &t, NULL);
  cv_map_result(c, op, n);
  return true;
}

static bool cv_constant(cv *c, kiln_op *op) {
  const kiln_attr *v = kiln_op_get_attr(op, "value");
  const kiln_type *t = cv_type(c, op->results[0].type);
  if (!v || !t || (v->kind != KILN_ATTR_INTEGER && v->kind != KILN_ATTR_FLOAT &&
                   v->kind != KILN_ATTR_BOOL))
    return kiln_op_fail(&c->err, op, "only scalar constants reach host code (tensor constants belong in rodata)");
  if (v->kind != KILN_ATTR_FLOAT) {
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, 0), cv_const_int(c, t, v->i));
    return true;
  }
  const kiln_named_attr na = {kiln_intern_cstr(c->ctx, "value"), kiln_attr_float(c->ctx, t, v->f)};
  c->b.loc = op->loc;
  kiln_op *n = kiln_build(&c->b, t->kind == KILN_TYPE_F64 ? KILN_OP_VM_CONST_F64 : KILN_OP_VM_CONST_F32,
                          0, NULL, 1, &t, kiln_attr_dict(c->ctx, 1, &na));
  cv_map_result(c, op, n);
  return true;
}

/* index_cast and integer width changes between i32 and i64/index. */
static bool cv_cast(cv *c, kiln_op *op) {
  const kiln_type *from = cv_type(c, kiln_op_operand(op, 0)->type);
  const kiln_type *to = cv_type(c, op->results[0].type);
  kiln_value *v = cv_operand(c, op, 0);
  if (!from || !to || !v) return kiln_op_fail(&c->err, op, "no VM form for this cast");
  if (from == to) {
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, 0), v);
    return true;
  }
  kiln_op_kind k;
  if (from == c->i32 && to == c->i64)
    k = op->kind == KILN_OP_ARITH_EXTUI || op->kind == KILN_OP_ARITH_INDEX_CASTUI
            ? KILN_OP_VM_EXTU_I32_I64 : KILN_OP_VM_EXTS_I32_I64;
  else if (from == c->i64 && to == c->i32)
    k = KILN_OP_VM_TRUNC_I64_I32;
  else
    return kiln_op_fail(&c->err, op, "no VM form for this cast");
  c->b.loc = op->loc;
  cv_map_result(c, op, kiln_build(&c->b, k, 1, &v, 1, &to, NULL));
  return true;
}

static bool cv_op(cv *c, kiln_op *op);

static bool cv_is_host_func(kiln_op *op) {
  return op->kind == KILN_OP_FUNC_FUNC && op->regions[0].first;
}

/* arith.cmpi on i32 / i64 / index -> the VM's comparisons (0 or 1 in an
 * i32): gt/ge swap the operands, ule/uge negate ugt/ult. */
static bool cv_cmpi(cv *c, kiln_op *op) {
  int64_t pred = -1;
  if (!cv_int_attr(c, op, "predicate", &pred, true)) return false;
  const kiln_type *t = cv_type(c, kiln_op_operand(op, 0)->type);
  if (!t || (t != c->i32 && t != c->i64))
    return kiln_op_fail(&c->err, op, "compares a type the VM does not (host code compares i32 and i64/index)");
  const bool w = t == c->i64;
  static const struct { kiln_op_kind k32, k64; bool swap, negate; } m[] = {
      {KILN_OP_VM_EQ_I32, KILN_OP_VM_EQ_I64, false, false},   {KILN_OP_VM_NE_I32, KILN_OP_VM_NE_I64, false, false},
      {KILN_OP_VM_LTS_I32, KILN_OP_VM_LTS_I64, false, false}, {KILN_OP_VM_LES_I32, KILN_OP_VM_LES_I64, false, false},
      {KILN_OP_VM_LTS_I32, KILN_OP_VM_LTS_I64, true, false},  {KILN_OP_VM_LES_I32, KILN_OP_VM_LES_I64, true, false},
      {KILN_OP_VM_LTU_I32, KILN_OP_VM_LTU_I64, false, false}, {KILN_OP_VM_LTU_I32, KILN_OP_VM_LTU_I64, true, true},
      {KILN_OP_VM_LTU_I32, KILN_OP_VM_LTU_I64, true, false},  {KILN_OP_VM_LTU_I32, KILN_OP_VM_LTU_I64, false, true}};
  if (pred < 0 || pred >= (int64_t)(sizeof m / sizeof m[0]))
    return kiln_op_fail(&c->err, op, "has an unknown predicate %lld", (long long)pred);
  kiln_value *ab[2] = {cv_operand(c, op, 0), cv_operand(c, op, 1)};
  if (!ab[0] || !ab[1]) return false;
  if (m[pred].swap) {
    kiln_value *x = ab[0];
    ab[0] = ab[1], ab[1] = x;
  }
  c->b.loc = op->loc;
  kiln_value *r = kiln_op_result(kiln_build(&c->b, w ? m[pred].k64 : m[pred].k32, 2, ab, 1, &c->i32, NULL), 0);
  if (m[pred].negate) {
    kiln_value *x[2] = {r, cv_i32(c, op, 1)};
    r = kiln_op_result(kiln_build(&c->b, KILN_OP_VM_XOR_I32, 2, x, 1, &c->i32, NULL), 0);
  }
  kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, 0), r);
  return true;
}

/* The ops of a host scf.for / scf.if block lowered into vb (scf.yield ->
 * vm.yield). Constants made and values range-checked in it are forgotten
 * after it: they do not dominate the code after a loop that may run no
 * step, or the other branch. */
static bool cv_body(cv *c, kiln_block *body, kiln_block *vb) {
  const kiln_builder outer = c->b;
  const uint32_t start = c->op_index, nchecked = c->nchecked;
  c->b = kiln_builder_at_end(c->ctx, vb);
  bool ok = true;
  for (kiln_op *o = body->first; ok && o; o = o->next) {
    c->op_index++;
    c->b.loc = o->loc;
    if (o->kind != KILN_OP_SCF_YIELD) {
      ok = cv_op(c, o);
      continue;
    }
    kiln_value **ys = kiln_alloc(c->ctx, (o->num_operands + 1) * sizeof *ys);
    for (uint32_t i = 0; ok && i < o->num_operands; i++) ok = (ys[i] = cv_operand(c, o, i)) != NULL;
    if (ok) kiln_build(&c->b, KILN_OP_VM_YIELD, o->num_operands, ys, 0, NULL, NULL);
  }
  if (ok && (!vb->last || vb->last->kind != KILN_OP_VM_YIELD))
    kiln_build(&c->b, KILN_OP_VM_YIELD, 0, NULL, 0, NULL, NULL);
  c->b = outer;
  uint32_t keep = 0;
  for (uint32_t i = 0; i < c->nconsts; i++)
    if (c->consts[i].born <= start) c->consts[keep++] = c->consts[i];
  c->nconsts = keep;
  c->nchecked = nchecked;
  return ok;
}

/* The VM types of op's results; NULL (error set) when one has none. */
static const kiln_type **cv_result_types(cv *c, kiln_op *op) {
  const kiln_type **types = kiln_alloc(c->ctx, (op->num_results + 1) * sizeof *types);
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!(types[i] = cv_type(c, op->results[i].type))) {
      kiln_op_fail(&c->err, op, "result %u has a type no VM register holds", i);
      return NULL;
    }
  return types;
}

/* A host scf.for (index bounds; carried scalars and refs) -> vm.for with
 * its body lowered in place. */
static bool cv_for(cv *c, kiln_op *op) {
  const uint32_t n = op->num_results;
  kiln_value **ops = kiln_alloc(c->ctx, (n + 4) * sizeof *ops);
  const kiln_type **types = cv_result_types(c, op);
  if (!types) return false;
  for (uint32_t i = 0; i < 3 + n; i++)
    if (!(ops[i] = cv_operand(c, op, i))) return false;
  kiln_op *vf = kiln_build(&c->b, KILN_OP_VM_FOR, 3 + n, ops, n, types, NULL);
  kiln_block *body = op->regions[0].first, *vb = kiln_op_entry_block(c->ctx, vf, 0);
  kiln_value_map_add(c->ctx, &c->map, body->args[0], kiln_block_add_arg(c->ctx, vb, c->i64, op->loc));
  for (uint32_t i = 0; i < n; i++)
    kiln_value_map_add(c->ctx, &c->map, body->args[1 + i], kiln_block_add_arg(c->ctx, vb, types[i], op->loc));
  if (!cv_body(c, body, vb)) return false;
  for (uint32_t i = 0; i < n; i++)
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, i), kiln_op_result(vf, i));
  return true;
}

/* A host scf.if (scalars and refs as results) -> vm.if; an absent else
 * region becomes a block that only yields. */
static bool cv_if(cv *c, kiln_op *op) {
  const uint32_t n = op->num_results;
  const kiln_type **types = cv_result_types(c, op);
  kiln_value *cond = cv_operand(c, op, 0);
  if (!types || !cond) return false;
  kiln_op *vi = kiln_build(&c->b, KILN_OP_VM_IF, 1, &cond, n, types, NULL);
  for (uint32_t g = 0; g < 2; g++) {
    kiln_block *vb = kiln_op_entry_block(c->ctx, vi, g), *body = op->regions[g].first;
    if (!body) {
      kiln_builder bb = kiln_builder_at_end(c->ctx, vb);
      bb.loc = op->loc;
      kiln_build(&bb, KILN_OP_VM_YIELD, 0, NULL, 0, NULL, NULL);
    } else if (!cv_body(c, body, vb)) {
      return false;
    }
  }
  for (uint32_t i = 0; i < n; i++)
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, i), kiln_op_result(vi, i));
  return true;
}

/* func.call of a host function of the module -> vm.call (the callee is
 * converted too; emission finds its ordinal by name). */
static bool cv_func_call(cv *c, kiln_op *op) {
  const kiln_attr *callee = kiln_op_get_attr(op, "callee");
  kiln_op *fn = callee && callee->kind == KILN_ATTR_SYMBOL_REF ? kiln_symbol_lookup(c->module, callee->str) : NULL;
  if (!fn || !(cv_is_host_func(fn) || fn->kind == KILN_OP_VM_FUNC))
    return kiln_op_fail(&c->err, op, "calls '%s', which is not a host function of the module",
                        callee && callee->kind == KILN_ATTR_SYMBOL_REF ? callee->str : "?");
  if (op->num_operands > KILN_VM_MAX_LIST || op->num_results > KILN_VM_MAX_LIST)
    return kiln_op_fail(&c->err, op, "too many operands for one VM call");
  kiln_value **ops = kiln_alloc(c->ctx, (op->num_operands + 1) * sizeof *ops);
  const kiln_type **in = kiln_alloc(c->ctx, (op->num_operands + 1) * sizeof *in);
  const kiln_type **types = cv_result_types(c, op);
  if (!types) return false;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    if (!(ops[i] = cv_operand(c, op, i))) return false;
    in[i] = ops[i]->type;
  }
  char sig[KILN_VM_MAX_LIST * 2 + 8];
  kiln_error *e = kiln_vm_signature_of(kiln_type_function(c->ctx, op->num_operands, in, op->num_results, types),
                                       sig, sizeof sig);
  if (e) {
    kiln_op_fail(&c->err, op, "%s", kiln_error_message(e));
    kiln_error_free(e);
    return false;
  }
  kiln_named_attr na[2] = {
      {kiln_intern_cstr(c->ctx, "callee"), kiln_attr_string(c->ctx, callee->str, strlen(callee->str))},
      {kiln_intern_cstr(c->ctx, "signature"), kiln_attr_string(c->ctx, sig, strlen(sig))}};
  c->b.loc = op->loc;
  kiln_op *call = kiln_build(&c->b, KILN_OP_VM_CALL, op->num_operands, ops, op->num_results, types,
                             kiln_attr_dict(c->ctx, 2, na));
  for (uint32_t i = 0; i < op->num_results; i++)
    kiln_value_map_add(c->ctx, &c->map, kiln_op_result(op, i), kiln_op_result(call, i));
  return true;
}

static bool cv_op(cv *c, kiln_op *op) {
  const vmx_import *imp = vmx_hal_import_of(op->kind);
  if (imp) {
    switch (op->kind) {
    case KILN_OP_HAL_BUFFER_VIEW_ASSERT: return cv_assert(c, op, imp);
    case KILN_OP_HAL_BUFFER_VIEW_CREATE: return cv_view_create(c, op, imp);
    case KILN_OP_HAL_BUFFER_VIEW_DIM: return cv_view_dim(c, op, imp);
    case KILN_OP_HAL_CHECK_DIM_EQ: return cv_check(c, op, imp);
    case KILN_OP_HAL_BUFFER_VIEW_LOAD: return cv_view_load(c, op, imp);
    case KILN_OP_HAL_CHECK_SHAPE: return cv_check_shape(c, op, imp);
    case KILN_OP_HAL_BUFFER_ALLOCATE: return cv_allocate(c, op, imp);
    case KILN_OP_HAL_BUFFER_RODATA: return cv_rodata(c, op, imp);
    case KILN_OP_HAL_COMMAND_BUFFER_DISPATCH: return cv_dispatch(c, op, imp);
    case KILN_OP_HAL_TEXT_CONVERT: return cv_text(c, op, imp);
    case KILN_OP_HAL_COMMAND_BUFFER_COPY: return cv_copy(c, op, imp);
    default: return cv_plain(c, op, imp);
    }
  }
  switch (op->kind) {
  case KILN_OP_HAL_CHECK_RANGE: return cv_check_range(c, op);
  case KILN_OP_SCF_FOR: return cv_for(c, op);
  case KILN_OP_SCF_IF: return cv_if(c, op);
  case KILN_OP_FUNC_CALL: return cv_func_call(c, op);
  case KILN_OP_ARITH_CMPI: return cv_cmpi(c, op);
  case KILN_OP_ARITH_CONSTANT: return cv_constant(c, op);
  case KILN_OP_ARITH_INDEX_CAST: case KILN_OP_ARITH_INDEX_CASTUI: case KILN_OP_ARITH_EXTSI:
  case KILN_OP_ARITH_EXTUI: case KILN_OP_ARITH_TRUNCI:
    return cv_cast(c, op);
  case KILN_OP_FUNC_RETURN: {
    kiln_value *vals[256];
    if (op->num_operands > 256) return kiln_op_fail(&c->err, op, "too many results");
    for (uint32_t i = 0; i < op->num_operands; i++)
      if (!(vals[i] = cv_operand(c, op, i))) return false;
    c->b.loc = op->loc;
    kiln_build(&c->b, KILN_OP_VM_RET, op->num_operands, vals, 0, NULL, NULL);
    return true;
  }
  default: break;
  }
  bool handled;
  if (!cv_arith_op(c, op, &handled)) return false;
  if (handled) return true;
  return kiln_op_fail(&c->err, op, "has no VM lowering (host functions hold hal.* host ops, scalar arith and func.return)");
}

/* kiln.signature from the asserts (inputs) and the created views that are
 * returned (outputs); scalars stand for themselves. */
static const kiln_type *cv_derive_signature(cv *c, kiln_op *fn) {
  const kiln_type *ft = kiln_op_get_attr(fn, "function_type")->type;
  const uint32_t nin = ft->num_inputs, nres = ft->num_results;
  const kiln_type **ins = kiln_alloc(c->ctx, (nin + 1) * sizeof *ins);
  const kiln_type **outs = kiln_alloc(c->ctx, (nres + 1) * sizeof *outs);
  kiln_block *body = fn->regions[0].first;
  for (uint32_t i = 0; i < nin; i++) ins[i] = ft->types[i];
  for (uint32_t i = 0; i < nres; i++) outs[i] = ft->types[nin + i];
  for (kiln_op *op = body->first; op; op = op->next) {
    const kiln_attr *et = kiln_op_get_attr(op, "element_type");
    const int64_t *dims;
    uint32_t rank;
    if (!et || et->kind != KILN_ATTR_TYPE) continue;
    if (op->kind == KILN_OP_HAL_BUFFER_VIEW_ASSERT && op->num_operands == 1) {
      kiln_value *v = kiln_op_operand(op, 0);
      int64_t input = -1;
      if (!cv_int_attr(c, op, "input", &input, true) ||
          !cv_ints_attr(c, op, "shape", &dims, &rank, true))
        return NULL;
      if (v->block != body || v->def) continue;
      if (input != (int64_t)v->index)
        return kiln_op_fail(&c->err, op, "says input %lld but checks argument %u",
                            (long long)input, v->index), NULL;
      ins[v->index] = kiln_type_tensor(c->ctx, rank, dims, et->type, NULL);
    } else if (op->kind == KILN_OP_HAL_BUFFER_VIEW_CREATE && op->num_results == 1) {
      if (!cv_ints_attr(c, op, "shape", &dims, &rank, true)) return NULL;
      kiln_op *ret = body->last;
      for (uint32_t i = 0; ret && i < ret->num_operands && i < nres; i++)
        if (kiln_op_operand(ret, i) == kiln_op_result(op, 0))
          outs[i] = kiln_type_tensor(c->ctx, rank, dims, et->type, NULL);
    }
  }
  for (uint32_t i = 0; i < nin + nres; i++) {
    const kiln_type *t = i < nin ? ins[i] : outs[i - nin];
    if (vmx_is_ref(t)) {
      kiln_op_fail(&c->err, fn, "cannot tell the tensor type of %s %u of @%s: no hal.buffer_view.%s for it and no kiln.signature",
                   i < nin ? "input" : "result", i < nin ? i : i - nin, kiln_symbol_name(fn),
                   i < nin ? "assert" : "create");
      return NULL;
    }
  }
  return kiln_type_function(c->ctx, nin, ins, nres, outs);
}

static kiln_op *cv_function(cv *c, kiln_op *fn) {
  const kiln_type *ft = kiln_op_get_attr(fn, "function_type")->type;
  kiln_block *body = fn->regions[0].first;
  if (body->next) {
    kiln_op_fail(&c->err, fn, "host function @%s has more than one block: control flow in host code is not supported yet",
                 kiln_symbol_name(fn));
    return NULL;
  }
  const uint32_t n = ft->num_inputs + ft->num_results;
  const kiln_type **types = kiln_alloc(c->ctx, (n + 1) * sizeof *types);
  for (uint32_t i = 0; i < n; i++) {
    types[i] = cv_type(c, ft->types[i]);
    if (!types[i]) {
      char *s = kiln_type_to_string(ft->types[i]);
      kiln_op_fail(&c->err, fn, "host function @%s: type '%s' has no VM register", kiln_symbol_name(fn),
                   s ? s : "?");
      free(s);
      return NULL;
    }
  }
  const kiln_attr *sig = kiln_op_get_attr(fn, "kiln.signature");
  if (!sig) {
    const kiln_type *st = cv_derive_signature(c, fn);
    if (!st) return NULL;
    sig = kiln_attr_type(c->ctx, st);
  } else if (sig->kind != KILN_ATTR_TYPE || sig->type->kind != KILN_TYPE_FUNCTION ||
             sig->type->num_inputs != ft->num_inputs ||
             sig->type->num_results != ft->num_results) {
    kiln_op_fail(&c->err, fn, "'kiln.signature' of @%s must be a function type with the function's arity",
                 kiln_symbol_name(fn));
    return NULL;
  }
  const kiln_type *vft = kiln_type_function(c->ctx, ft->num_inputs, types,
                                            ft->num_results, types + ft->num_inputs);
  const kiln_attr *attrs = kiln_dict_set(c->ctx, fn->attrs, "function_type", kiln_attr_type(c->ctx, vft));
  attrs = kiln_dict_set(c->ctx, attrs, "kiln.signature", sig);
  kiln_op *vf = kiln_op_create(c->ctx, KILN_OP_VM_FUNC, fn->loc, 0, NULL, 0, NULL, attrs, 1);
  kiln_block *vb = kiln_op_entry_block(c->ctx, vf, 0);
  c->map.count = 0;
  c->nconsts = 0;
  c->nchecked = 0;
  for (uint32_t i = 0; i < body->num_args; i++)
    kiln_value_map_add(c->ctx, &c->map, body->args[i],
                       kiln_block_add_arg(c->ctx, vb, types[i], body->args[i]->loc));
  c->b = kiln_builder_at_end(c->ctx, vb);
  c->op_index = 0;
  for (kiln_op *op = body->first; op; op = op->next, c->op_index++) {
    c->b.loc = op->loc;
    if (!cv_op(c, op)) return NULL;
  }
  if (c->err) return NULL;
  return vf;
}

kiln_error *kiln_pass_convert_to_vm(kiln_op *module, void *user) {
  (void)user;
  cv c;
  memset(&c, 0, sizeof c);
  c.ctx = kiln_op_context(module);
  c.module = module;
  c.i32 = kiln_type_int(c.ctx, 32);
  c.i64 = kiln_type_int(c.ctx, 64);
  for (kiln_op *op = kiln_module_body(module)->first, *next; op; op = next) {
    next = op->next;
    if (!cv_is_host_func(op)) continue;
    kiln_op *vf = cv_function(&c, op);
    if (!vf) return c.err ? c.err : kiln_error_new("convert-to-vm failed on @%s", kiln_symbol_name(op));
    kiln_block_insert_before(op, vf);
    kiln_op_erase(op);
  }
  return NULL;
}
