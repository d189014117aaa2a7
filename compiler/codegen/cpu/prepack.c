/* Compile-time layouts of constant kernel operands (pre-packing).
 *
 * Takes every hal.interface.binding op of one binding in a kernel (static
 * shape, identity layout; one per version of a kernel split by tile
 * shape) and a layout: the type the kernel wants to read instead (it may
 * be larger: padding; the sites' binding lengths grow to it) and a function
 * rewriting a constant's dense value into it. When every host dispatch
 * site of the kernel's export passes, in that binding, the whole of one
 * hal.rodata constant (offset 0, the binding's byte size, its element
 * type), the executable has this one variant and no substituted payload,
 * each such constant is rewritten at compile time: in place when nothing
 * else reads it, otherwise as a new hal.rodata that only these sites read.
 * Guarantees: either every site of the export reads the rewritten data
 * through the returned bindings of the new type (each built next to its
 * old one, which the caller must stop using), or nothing changed
 * (false). Any
 * weight layout a microkernel reads (f32 column panels of matmul B; int8
 * VNNI blocks) goes through here, keyed by its own rewrite. */
#include "cpu_internal.h"

#include <stdio.h>
#include <string.h>

#include "dialects/hal.h"
#include "session.h"

/* The rewritten value is a second copy of the constant held until the
 * module is written, while the compiler promises to hold about one copy of
 * the weights (onnx_memory_bounded: peak within 1.1x of them). Constants
 * above this size keep their layout: their kernels copy panels per call,
 * or, a matmul of few rows, stream B as it is stored
 * (cg_streamed_matmul). */
#define PP_MAX_BYTES CG_PREPACK_MAX_BYTES

typedef struct pp_site {
  kiln_op *dispatch;
  kiln_op *rodata; /* the hal.rodata op the site's buffer names */
} pp_site;

typedef struct pp_walk {
  const char *exe;
  int64_t ordinal;
  uint32_t binding;
  int64_t bytes;
  const kiln_type *elem;
  kiln_op *top;
  pp_site *sites;
  uint32_t n, cap;
  bool ok;
} pp_walk;

static kiln_op *rodata_op(kiln_op *top, int64_t index) {
  kiln_block *body = kiln_module_body(top);
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_RODATA) continue;
    const kiln_attr *ix = kiln_op_get_attr(o, "index");
    if (ix && ix->kind == KILN_ATTR_INTEGER && ix->i == index) return o;
  }
  return NULL;
}

static bool int_attr(const kiln_op *op, const char *name, int64_t *v) {
  const kiln_attr *a = kiln_op_get_attr((kiln_op *)op, name);
  if (!a || a->kind != KILN_ATTR_INTEGER) return false;
  *v = a->i;
  return true;
}

/* Is d a dispatch of the export? */
static bool of_export(kiln_op *d, const char *exe, int64_t ordinal) {
  const kiln_attr *e = kiln_op_get_attr(d, "executable");
  int64_t o;
  return e && e->kind == KILN_ATTR_SYMBOL_REF && strcmp(e->str, exe) == 0 &&
         int_attr(d, "ordinal", &o) && o == ordinal;
}

/* Each dispatch of the export, wherever it sits (nested regions too):
 * its binding must carry a whole rodata constant. */
static kiln_walk_result collect(kiln_op *op, void *user) {
  pp_walk *w = user;
  if (op->kind == KILN_OP_HAL_EXECUTABLE) return KILN_WALK_SKIP;
  if (op->kind != KILN_OP_HAL_COMMAND_BUFFER_DISPATCH || !of_export(op, w->exe, w->ordinal))
    return KILN_WALK_ADVANCE;
  int64_t off = -1, len = -1, index;
  kiln_value *buf = w->binding < kiln_hal_dispatch_bindings(op) ? kiln_op_operand(op, 1 + w->binding) : NULL;
  kiln_op *ro = buf && buf->def && buf->def->kind == KILN_OP_HAL_BUFFER_RODATA &&
                        int_attr(buf->def, "index", &index)
                    ? rodata_op(w->top, index)
                    : NULL;
  const kiln_attr *v = ro ? kiln_op_get_attr(ro, "value") : NULL;
  if (!v || v->kind != KILN_ATTR_DENSE || !v->type || v->type->elem != w->elem ||
      kiln_hal_dispatch_value(op, "offsets", w->binding, &off) || off != 0 ||
      kiln_hal_dispatch_value(op, "lengths", w->binding, &len) || len != w->bytes ||
      kiln_dense_count(v) * (int64_t)kiln_dense_elem_size(w->elem) != w->bytes) {
    w->ok = false;
    return KILN_WALK_INTERRUPT;
  }
  if (w->n == w->cap) {
    uint32_t cap = w->cap ? 2 * w->cap : 8;
    pp_site *s = kiln_alloc(kiln_op_context(op), cap * sizeof *s);
    if (w->n) memcpy(s, w->sites, w->n * sizeof *s);
    w->sites = s, w->cap = cap;
  }
  w->sites[w->n++] = (pp_site){op, ro};
  return KILN_WALK_ADVANCE;
}

typedef struct pp_uses {
  int64_t index;
  const pp_walk *w;
  bool exclusive;
} pp_uses;

/* Is every reader of rodata `index` one of the export's sites, through
 * the packed binding? */
static kiln_walk_result only_sites(kiln_op *op, void *user) {
  pp_uses *u = user;
  int64_t index;
  if (op->kind == KILN_OP_HAL_EXECUTABLE) return KILN_WALK_SKIP;
  if (op->kind != KILN_OP_HAL_BUFFER_RODATA || !int_attr(op, "index", &index) || index != u->index)
    return KILN_WALK_ADVANCE;
  for (kiln_use *use = op->results[0].uses; use; use = use->next) {
    kiln_op *d = use->owner;
    if (d->kind != KILN_OP_HAL_COMMAND_BUFFER_DISPATCH || !of_export(d, u->w->exe, u->w->ordinal) ||
        use->index != 1 + u->w->binding) {
      u->exclusive = false;
      return KILN_WALK_INTERRUPT;
    }
  }
  return KILN_WALK_ADVANCE;
}

typedef struct pp_bindings {
  int64_t binding;
  uint32_t n;
} pp_bindings;

static kiln_walk_result count_bindings(kiln_op *op, void *user) {
  pp_bindings *c = user;
  int64_t bi;
  if (op->kind == KILN_OP_HAL_INTERFACE_BINDING && int_attr(op, "binding", &bi) && bi == c->binding) c->n++;
  return KILN_WALK_ADVANCE;
}

static uint32_t rodata_count(kiln_op *top) {
  uint32_t n = 0;
  kiln_block *body = kiln_module_body(top);
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next) n += o->kind == KILN_OP_HAL_RODATA;
  return n;
}

/* A new hal.rodata (next free index) holding value, after `after`. */
static kiln_op *new_rodata(kiln_op *top, kiln_op *after, const kiln_attr *value) {
  kiln_context *ctx = kiln_op_context(top);
  uint32_t index = rodata_count(top);
  char name[64];
  snprintf(name, sizeof name, "__rodata_%u", index);
  kiln_named_attr a[4] = {
      {"index", kiln_attr_int(ctx, kiln_type_int(ctx, 32), index)},
      {"sym_name", kiln_attr_string(ctx, name, strlen(name))},
      {"sym_visibility", kiln_attr_string(ctx, "private", 7)},
      {"value", value}};
  kiln_op *r = kiln_op_create(ctx, KILN_OP_HAL_RODATA, after->loc, 0, NULL, 0, NULL,
                              kiln_attr_dict(ctx, 4, a), 0);
  kiln_block_insert_after(after, r);
  return r;
}

/* The dispatch's static byte length of binding k becomes len. */
static void set_length(kiln_op *d, uint32_t k, int64_t len) {
  kiln_context *ctx = kiln_op_context(d);
  const kiln_attr *a = kiln_op_get_attr(d, "lengths");
  int64_t *v = kiln_alloc(ctx, (a->count + 1) * sizeof *v);
  memcpy(v, a->data, a->count * sizeof *v);
  v[k] = len;
  kiln_op_set_attr(d, "lengths", kiln_attr_dense_array(ctx, kiln_type_int(ctx, 64), a->count, v, NULL));
}

bool cpu_prepack_bindings(kiln_op *const *bindings, uint32_t nbind, const kiln_type *packed,
                          cpu_layout_fn fn, void *user, kiln_value **out) {
  if (nbind == 0) return false;
  kiln_op *binding = bindings[0];
  kiln_context *ctx = kiln_op_context(binding);
  const kiln_type *t = binding->num_results == 1 ? binding->results[0].type : NULL;
  int64_t bi, bj;
  if (binding->kind != KILN_OP_HAL_INTERFACE_BINDING || binding->num_operands || !t ||
      t->kind != KILN_TYPE_MEMREF || t->layout || !kiln_type_has_static_shape(t) ||
      !int_attr(binding, "binding", &bi) || bi < 0)
    return false;
  for (uint32_t i = 1; i < nbind; i++)
    if (bindings[i]->kind != KILN_OP_HAL_INTERFACE_BINDING || bindings[i]->num_operands ||
        bindings[i]->results[0].type != t || !int_attr(bindings[i], "binding", &bj) || bj != bi ||
        kiln_op_ancestor(bindings[i], KILN_OP_FUNC_FUNC) != kiln_op_ancestor(binding, KILN_OP_FUNC_FUNC))
      return false;
  kiln_op *func = kiln_op_ancestor(binding, KILN_OP_FUNC_FUNC);
  kiln_op *variant = kiln_op_ancestor(binding, KILN_OP_HAL_EXECUTABLE_VARIANT);
  kiln_op *exe = kiln_op_ancestor(binding, KILN_OP_HAL_EXECUTABLE);
  kiln_op *top = exe && exe->parent && exe->parent->parent ? exe->parent->parent->parent : NULL;
  if (!func || !variant || !exe || !top || !kiln_symbol_name(exe) || !kiln_symbol_name(func))
    return false;
  /* One llvm-cpu variant (another would read the constant in its own
   * layout; the GPU path tiles its own way), no payload given from
   * outside (it reads the original layout). */
  const kiln_attr *target = kiln_op_get_attr(variant, "target");
  if (!target || target->kind != KILN_ATTR_STRING || strncmp(target->str, "llvm-cpu", 8) != 0)
    return false;
  uint32_t variants = 0;
  for (kiln_op *o = exe->regions[0].first ? exe->regions[0].first->first : NULL; o; o = o->next)
    variants += o->kind == KILN_OP_HAL_EXECUTABLE_VARIANT;
  const kiln_session *s = kiln_session_of(ctx);
  if (variants != 1 || (s && kiln_session_payload(s, kiln_symbol_name(exe), kiln_symbol_name(variant))))
    return false;
  /* Every op of the kernel reading the binding is listed (a kernel split
   * into versions per tile shape has one per version): all of them read
   * the new layout. */
  pp_bindings nb = {bi, 0};
  kiln_walk_pre(func, count_bindings, &nb);
  if (nb.n != nbind) return false;
  kiln_op *export = NULL;
  for (kiln_op *o = variant->regions[0].first ? variant->regions[0].first->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_HAL_EXECUTABLE_EXPORT && kiln_symbol_name(o) &&
        strcmp(kiln_symbol_name(o), kiln_symbol_name(func)) == 0)
      export = o;
  int64_t ordinal, count = 1;
  if (!export || !int_attr(export, "ordinal", &ordinal)) return false;
  for (uint32_t d = 0; d < t->rank; d++) count *= t->shape[d];
  pp_walk w = {.exe = kiln_symbol_name(exe), .ordinal = ordinal, .binding = (uint32_t)bi,
               .bytes = count * (int64_t)kiln_dense_elem_size(t->elem), .elem = t->elem,
               .top = top, .ok = true};
  if (w.bytes > PP_MAX_BYTES) return false;
  kiln_walk_pre(top, collect, &w);
  if (!w.ok || w.n == 0) return false;
  /* Every distinct constant's new value first (a layout may refuse one:
   * then nothing has changed), then each rewritten once: in place when
   * only these sites read it, else into a new rodata they read instead. */
  const kiln_type *logical = kiln_type_tensor(ctx, t->rank, t->shape, t->elem, NULL);
  const kiln_attr **nv = kiln_alloc(ctx, w.n * sizeof *nv);
  for (uint32_t i = 0; i < w.n; i++) {
    nv[i] = NULL;
    bool first = true;
    for (uint32_t j = 0; j < i && first; j++) first = w.sites[j].rodata != w.sites[i].rodata;
    if (!first) continue;
    const kiln_attr *value = kiln_attr_dense_reshape(ctx, kiln_op_get_attr(w.sites[i].rodata, "value"), logical);
    if (!value || !(nv[i] = fn(ctx, value, user))) return false;
  }
  for (uint32_t i = 0; i < w.n; i++) {
    if (!nv[i]) continue; /* a later site of a constant already rewritten */
    kiln_op *ro = w.sites[i].rodata;
    int64_t index = -1;
    int_attr(ro, "index", &index);
    pp_uses u = {index, &w, true};
    kiln_walk_pre(top, only_sites, &u);
    if (u.exclusive) {
      kiln_op_set_attr(ro, "value", nv[i]);
      continue;
    }
    kiln_op *copy = new_rodata(top, ro, nv[i]);
    int64_t nindex = -1;
    int_attr(copy, "index", &nindex);
    const kiln_type *bt = kiln_op_operand(w.sites[i].dispatch, 1 + w.binding)->type;
    for (uint32_t j = i; j < w.n; j++) {
      if (w.sites[j].rodata != ro) continue;
      kiln_builder b = kiln_builder_before(w.sites[j].dispatch);
      b.loc = w.sites[j].dispatch->loc;
      kiln_named_attr a = {"index", kiln_attr_int(ctx, kiln_type_int(ctx, 32), nindex)};
      kiln_value *buf = kiln_op_result(
          kiln_build(&b, KILN_OP_HAL_BUFFER_RODATA, 0, NULL, 1, &bt, kiln_attr_dict(ctx, 1, &a)), 0);
      kiln_op_set_operand(w.sites[j].dispatch, 1 + w.binding, buf);
    }
  }
  /* a layout padded past the constant's size (the last column block of
   * an uneven width) binds all of it */
  int64_t pbytes = (int64_t)kiln_dense_elem_size(packed->elem);
  for (uint32_t d = 0; d < packed->rank; d++) pbytes *= packed->shape[d];
  if (pbytes != w.bytes)
    for (uint32_t i = 0; i < w.n; i++) set_length(w.sites[i].dispatch, w.binding, pbytes);
  for (uint32_t i = 0; i < nbind; i++) {
    kiln_op *nbop = kiln_op_create(ctx, KILN_OP_HAL_INTERFACE_BINDING, bindings[i]->loc, 0, NULL, 1,
                                   &packed, bindings[i]->attrs, 0);
    kiln_block_insert_after(bindings[i], nbop);
    out[i] = kiln_op_result(nbop, 0);
  }
  return true;
}
