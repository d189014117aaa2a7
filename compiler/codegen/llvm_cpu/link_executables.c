/* link-executables: small llvm-cpu executables share one shared object.
 *
 * Takes: a module whose llvm-cpu kernels are lowered (after scf-to-cf),
 * with workgroup counts on the exports and the host dispatches, and the
 * compile session. Guarantees: the small executables (kernel code of at
 * most LE_SMALL_OPS ops) are merged, in module order, into groups of at
 * most LE_MAX_OPS ops and LE_MAX_EXPORTS exports, each group into its
 * first executable: its variants take the later ones' exports (ordinals
 * continue in order) and kernels, and every hal.command_buffer.dispatch
 * of a merged executable names the first one and the export's new
 * ordinal, keeping all else. Bigger executables stay as they are. Only
 * executables whose variants are all llvm-cpu, with the same variant
 * names, targets and attributes, and none with a payload in the session
 * (--substitute-executable) are linked. A group then compiles as one
 * LLVM module, one object and one lld run: for a kernel of a few dozen
 * instructions (a pad, a copy, a bias add) the fixed costs of its own
 * object, and of a fresh lld process above all on a busy machine, are
 * most of its compile. Big kernels stay apart so that the --jobs threads
 * still share the work. The grouping depends on the IR alone. */
#include "llvm_cpu_passes.h"

#include <stdlib.h>
#include <string.h>

#include "session.h"

/* Pads, copies, pooling and elementwise kernels lower to a few dozen to
 * a few hundred ops; convolutions and matmuls to 400 and more. */
#define LE_SMALL_OPS 300
#define LE_MAX_OPS 2000
#define LE_MAX_EXPORTS 64

typedef struct le_exe {
  kiln_op *op;
  bool linkable;
  int64_t ops, exports;
  kiln_op *into; /* the run's first executable (NULL: itself) */
  int64_t ordinal_base;
} le_exe;

static kiln_walk_result le_count(kiln_op *op, void *user) {
  (void)op;
  (*(int64_t *)user)++;
  return KILN_WALK_ADVANCE;
}

static kiln_block *le_body(kiln_op *op) {
  return op->num_regions && op->regions[0].first ? op->regions[0].first : NULL;
}

/* Its variants are all llvm-cpu, none substituted; *ops: ops in their
 * kernels' modules (the first variant's), *exports: its export count. */
static bool le_inspect(const kiln_session *s, kiln_op *exe, int64_t *ops, int64_t *exports) {
  *ops = 0;
  *exports = 0;
  bool first = true, any = false;
  for (kiln_op *v = le_body(exe) ? le_body(exe)->first : NULL; v; v = v->next) {
    if (v->kind != KILN_OP_HAL_EXECUTABLE_VARIANT) return false;
    const kiln_attr *t = kiln_op_get_attr(v, "target");
    if (!t || t->kind != KILN_ATTR_STRING || strncmp(t->str, "llvm-cpu", 8) != 0) return false;
    if (s && kiln_session_payload(s, kiln_symbol_name(exe), kiln_symbol_name(v))) return false;
    int64_t modules = 0, n = 0;
    for (kiln_op *o = le_body(v) ? le_body(v)->first : NULL; o; o = o->next) {
      if (o->kind == KILN_OP_HAL_EXECUTABLE_EXPORT) n++;
      else if (o->kind == KILN_OP_BUILTIN_MODULE) modules++;
      else return false;
      if (o->kind == KILN_OP_BUILTIN_MODULE && first) kiln_walk_pre(o, le_count, ops);
    }
    if (modules != 1 || (!first && n != *exports)) return false;
    *exports = n;
    first = false;
    any = true;
  }
  return any;
}

/* Same variants (names, targets, attributes) in the same order. */
static bool le_same_variants(kiln_op *a, kiln_op *b) {
  kiln_op *x = le_body(a)->first, *y = le_body(b)->first;
  for (; x && y; x = x->next, y = y->next)
    if (x->attrs != y->attrs) return false;
  return !x && !y;
}

static kiln_op *le_inner_module(kiln_op *variant) {
  for (kiln_op *o = le_body(variant)->first; o; o = o->next)
    if (o->kind == KILN_OP_BUILTIN_MODULE) return o;
  return NULL;
}

/* Moves exe's exports and kernels into `into`, ordinals from base on. */
static void le_move(kiln_context *ctx, kiln_op *exe, kiln_op *into, int64_t base) {
  kiln_op *tv = le_body(into)->first;
  for (kiln_op *v = le_body(exe)->first; v; v = v->next, tv = tv->next) {
    kiln_op *tmod = le_inner_module(tv), *mod = le_inner_module(v);
    for (kiln_op *o = le_body(v)->first, *next; o; o = next) {
      next = o->next;
      if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
      const kiln_attr *ord = kiln_op_get_attr(o, "ordinal");
      const int64_t old = ord && ord->kind == KILN_ATTR_INTEGER ? ord->i : 0;
      kiln_op_remove(o);
      kiln_op_set_attr(o, "ordinal", kiln_attr_int(ctx, kiln_type_int(ctx, 32), base + old));
      kiln_block_insert_before(tmod, o); /* exports stay ahead of the module */
    }
    kiln_block *from = kiln_module_body(mod), *to = kiln_module_body(tmod);
    while (from && from->first) {
      kiln_op *f = from->first;
      kiln_op_remove(f);
      kiln_block_append_op(to, f);
    }
  }
}

typedef struct le_redirect {
  kiln_context *ctx;
  le_exe *exes;
  size_t n;
} le_redirect;

static kiln_walk_result le_redirect_dispatch(kiln_op *op, void *user) {
  if (op->kind != KILN_OP_HAL_COMMAND_BUFFER_DISPATCH) return KILN_WALK_ADVANCE;
  const le_redirect *r = user;
  const kiln_attr *e = kiln_op_get_attr(op, "executable");
  const kiln_attr *ord = kiln_op_get_attr(op, "ordinal");
  if (!e || e->kind != KILN_ATTR_SYMBOL_REF || !ord || ord->kind != KILN_ATTR_INTEGER)
    return KILN_WALK_ADVANCE;
  for (size_t i = 0; i < r->n; i++) {
    const le_exe *x = &r->exes[i];
    if (!x->into || strcmp(kiln_symbol_name(x->op), e->str) != 0) continue;
    const char *name = kiln_symbol_name(x->into);
    kiln_op_set_attr(op, "executable", kiln_attr_symbol_ref(r->ctx, name, 0, NULL));
    kiln_op_set_attr(op, "ordinal",
                     kiln_attr_int(r->ctx, ord->type, x->ordinal_base + ord->i));
    break;
  }
  return KILN_WALK_ADVANCE;
}

kiln_error *kiln_llvm_cpu_link_executables(kiln_op *module, void *user) {
  (void)user;
  kiln_context *ctx = kiln_op_context(module);
  const kiln_session *s = kiln_session_of(ctx);
  kiln_block *body = kiln_module_body(module);
  size_t n = 0;
  for (kiln_op *op = body ? body->first : NULL; op; op = op->next)
    if (op->kind == KILN_OP_HAL_EXECUTABLE) n++;
  if (n < 2) return NULL;
  le_exe *exes = calloc(n, sizeof *exes);
  if (!exes) return kiln_error_new("link-executables: out of memory");
  n = 0;
  for (kiln_op *op = body->first; op; op = op->next) {
    if (op->kind != KILN_OP_HAL_EXECUTABLE) continue;
    le_exe *x = &exes[n++];
    x->op = op;
    x->linkable = le_inspect(s, op, &x->ops, &x->exports);
  }
  /* Groups: each small executable joins the open group of its variants
   * if that one still has room, else opens a new one (module order). */
  size_t *open = calloc(n, sizeof *open), nopen = 0;
  int64_t *ops = calloc(n, sizeof *ops), *exports = calloc(n, sizeof *exports);
  bool merged = false;
  for (size_t i = 0; open && ops && exports && i < n; i++) {
    le_exe *x = &exes[i];
    if (!x->linkable || x->ops > LE_SMALL_OPS) continue;
    size_t g = 0;
    while (g < nopen && !le_same_variants(exes[open[g]].op, x->op)) g++;
    if (g < nopen && ops[g] + x->ops <= LE_MAX_OPS && exports[g] + x->exports <= LE_MAX_EXPORTS) {
      x->into = exes[open[g]].op;
      x->ordinal_base = exports[g];
      ops[g] += x->ops;
      exports[g] += x->exports;
      merged = true;
      continue;
    }
    if (g == nopen) nopen++;
    open[g] = i; /* a new group, in place of a full one */
    ops[g] = x->ops;
    exports[g] = x->exports;
  }
  const bool oom = !open || !ops || !exports;
  free(open);
  free(ops);
  free(exports);
  if (oom) {
    free(exes);
    return kiln_error_new("link-executables: out of memory");
  }
  if (merged) {
    for (size_t i = 0; i < n; i++)
      if (exes[i].into) le_move(ctx, exes[i].op, exes[i].into, exes[i].ordinal_base);
    le_redirect r = {ctx, exes, n};
    kiln_walk_pre(module, le_redirect_dispatch, &r);
    for (size_t i = 0; i < n; i++)
      if (exes[i].into) kiln_op_erase(exes[i].op);
  }
  free(exes);
  return NULL;
}
