/* deduplicate-executables: executables equal up to their names become one.
 *
 * Takes: a module after outline-dispatches (flow.executable ops, host
 * flow.dispatch ops naming them by entry_point = @exe::@fn).
 * Guarantees: no two flow.executable ops are structurally equal, where
 * equal means the same ops in the same order with the same attributes,
 * types, operand wiring, blocks and successors, sym_name aside and source
 * locations ignored. Of each class of equal executables the first in
 * module order stays, with its name; every flow.dispatch of a later one
 * now names the first, and the later ones are erased. Dispatch sites keep
 * everything else (their own location, workload, operands), so repeated
 * layers (ResNet blocks, encoder layers) compile one kernel each. The
 * result depends only on the IR, never on pointer values. */
#include "fl_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- structural hash: equal executables hash alike ------------------- */

static uint64_t fl_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

/* Attributes other than sym_name (interned: the pointer is the content
 * within one context). */
static uint64_t fl_hash_attrs(const kiln_op *op) {
  const kiln_attr *d = op->attrs;
  uint64_t h = d->count;
  for (uint32_t i = 0; i < d->count; i++) {
    if (strcmp(d->entries[i].name, "sym_name") == 0) continue;
    h = fl_mix(h, d->entries[i].value->hash);
  }
  return h;
}

static uint64_t fl_hash_op(const kiln_op *op) {
  uint64_t h = fl_mix(op->kind, op->num_operands);
  h = fl_mix(h, op->num_results);
  h = fl_mix(h, fl_hash_attrs(op));
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (const kiln_block *b = op->regions[r].first; b; b = b->next) {
      h = fl_mix(h, b->num_args);
      for (const kiln_op *o = b->first; o; o = o->next) h = fl_mix(h, fl_hash_op(o));
    }
  return h;
}

/* ---- structural equality --------------------------------------------- */

static bool fl_same_attrs(const kiln_op *a, const kiln_op *b) {
  if (a->attrs == b->attrs) return true;
  const kiln_attr *x = a->attrs, *y = b->attrs;
  if (x->count != y->count) return false;
  for (uint32_t i = 0; i < x->count; i++) {
    /* dicts are sorted by name and names are interned */
    if (x->entries[i].name != y->entries[i].name) return false;
    if (strcmp(x->entries[i].name, "sym_name") == 0) continue;
    if (x->entries[i].value != y->entries[i].value) return false;
  }
  return true;
}

static int fl_block_index(const kiln_block *b) {
  int i = 0;
  for (const kiln_block *x = b->parent->first; x && x != b; x = x->next) i++;
  return i;
}

/* a and b equal, with map taking a's values defined so far to b's. */
static bool fl_same_op(kiln_context *ctx, const kiln_op *a, const kiln_op *b,
                       kiln_value_map *map) {
  if (a->kind != b->kind || a->name != b->name || a->num_operands != b->num_operands ||
      a->num_results != b->num_results || a->num_regions != b->num_regions ||
      a->num_successors != b->num_successors || !fl_same_attrs(a, b))
    return false;
  for (uint32_t i = 0; i < a->num_operands; i++) {
    kiln_value *va = kiln_op_operand(a, i), *vb = kiln_op_operand(b, i);
    kiln_value *m = va ? kiln_value_map_lookup(map, va) : NULL;
    /* An operand defined outside the executable would be the same value
     * in both; executables are isolated, so none is. */
    if (m ? m != vb : va != vb) return false;
  }
  for (uint32_t i = 0; i < a->num_successors; i++)
    if (fl_block_index(a->successors[i]) != fl_block_index(b->successors[i])) return false;
  for (uint32_t i = 0; i < a->num_results; i++) {
    if (a->results[i].type != b->results[i].type) return false;
    kiln_value_map_add(ctx, map, (kiln_value *)&a->results[i], (kiln_value *)&b->results[i]);
  }
  for (uint32_t r = 0; r < a->num_regions; r++) {
    /* Block arguments first: a successor or a later block may use them. */
    const kiln_block *x = a->regions[r].first, *y = b->regions[r].first;
    for (; x && y; x = x->next, y = y->next) {
      if (x->num_args != y->num_args) return false;
      for (uint32_t i = 0; i < x->num_args; i++) {
        if (x->args[i]->type != y->args[i]->type) return false;
        kiln_value_map_add(ctx, map, x->args[i], y->args[i]);
      }
    }
    if (x || y) return false;
    for (x = a->regions[r].first, y = b->regions[r].first; x; x = x->next, y = y->next) {
      const kiln_op *p = x->first, *q = y->first;
      for (; p && q; p = p->next, q = q->next)
        if (!fl_same_op(ctx, p, q, map)) return false;
      if (p || q) return false;
    }
  }
  return true;
}

/* ---- the pass ---------------------------------------------------------- */

typedef struct fl_exe {
  kiln_op *op;
  uint64_t hash;
  kiln_op *keep; /* the executable it merges into, or NULL */
} fl_exe;

static const char *fl_entry_root(const kiln_op *dispatch) {
  const kiln_attr *e = kiln_op_get_attr(dispatch, "entry_point");
  return e && e->kind == KILN_ATTR_SYMBOL_REF ? e->str : NULL;
}

typedef struct fl_redirect {
  fl_exe *exes;
  uint32_t n;
} fl_redirect;

static kiln_walk_result fl_redirect_dispatch(kiln_op *op, void *user) {
  if (op->kind != KILN_OP_FLOW_DISPATCH) return KILN_WALK_ADVANCE;
  const fl_redirect *r = user;
  const char *root = fl_entry_root(op);
  for (uint32_t i = 0; root && i < r->n; i++) {
    if (!r->exes[i].keep || strcmp(kiln_symbol_name(r->exes[i].op), root) != 0) continue;
    const kiln_attr *e = kiln_op_get_attr(op, "entry_point");
    const char *keep = kiln_symbol_name(r->exes[i].keep);
    /* @exe::@fn: the kernel is named after its executable, so the kept
     * executable's kernel has the kept name (nested refs follow it). */
    const char **nested = kiln_alloc(kiln_op_context(op), (e->count + 1) * sizeof *nested);
    for (uint32_t k = 0; k < e->count; k++) {
      const char *s = e->elems[k]->str;
      nested[k] = strcmp(s, root) == 0 ? keep : s;
    }
    kiln_op_set_attr(op, "entry_point",
                     kiln_attr_symbol_ref(kiln_op_context(op), keep, e->count, nested));
    break;
  }
  return KILN_WALK_ADVANCE;
}

kiln_error *kiln_flow_pass_deduplicate_executables(kiln_op *module, void *user) {
  (void)user;
  kiln_error *err = fl_require_valid(module, "deduplicate-executables");
  if (err) return err;
  kiln_context *ctx = kiln_op_context(module);
  kiln_block *body = kiln_module_body(module);
  uint32_t n = 0;
  for (kiln_op *op = body ? body->first : NULL; op; op = op->next)
    if (op->kind == KILN_OP_FLOW_EXECUTABLE) n++;
  if (n < 2) return NULL;
  fl_exe *exes = calloc(n, sizeof *exes);
  if (!exes) return kiln_error_new("deduplicate-executables: out of memory");
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind == KILN_OP_FLOW_EXECUTABLE) exes[n++] = (fl_exe){op, fl_hash_op(op), NULL};
  bool merged = false;
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = 0; j < i; j++) {
      if (exes[j].keep || exes[j].hash != exes[i].hash) continue;
      kiln_value_map map;
      memset(&map, 0, sizeof map);
      if (fl_same_op(ctx, exes[j].op, exes[i].op, &map)) {
        exes[i].keep = exes[j].op;
        merged = true;
        break;
      }
    }
  if (merged) {
    fl_redirect r = {exes, n};
    kiln_walk_pre(module, fl_redirect_dispatch, &r);
    for (uint32_t i = 0; i < n; i++)
      if (exes[i].keep) kiln_op_erase(exes[i].op);
  }
  free(exes);
  return NULL;
}
