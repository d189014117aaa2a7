/* Verifier: checks an op tree against the op table (operand, result and
 * region counts; same-type ops), terminators, isolation from above,
 * dominance of every use, symbol uniqueness, then each op's own verifier.
 * Guarantees: stops at the first broken op and reports it with its
 * location; never dereferences IR it has not checked (null operands are
 * reported, not followed). */
#include "ir_internal.h"

#include <stdlib.h>

kiln_error *kiln_op_verror(const kiln_op *op, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  /* The diagnostic too, so the caret and the source line reach whoever
   * reads the context's diagnostics (stderr, a handler,
   * --verify-diagnostics), not only the caller that gets the error. */
  kiln_emit_error(kiln_op_context(op), op->loc, "'%s' op %s", op->name, msg);
  if (op->loc.file)
    return kiln_error_new("%s:%u:%u: '%s' op %s", op->loc.file, op->loc.line, op->loc.col,
                          op->name, msg);
  return kiln_error_new("'%s' op %s", op->name, msg);
}

kiln_error *kiln_op_error(const kiln_op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_error *e = kiln_op_verror(op, fmt, ap);
  va_end(ap);
  return e;
}

kiln_error *kiln_verify_input(kiln_op *op, const char *pass) {
  kiln_context *ctx = kiln_op_context(op);
  const unsigned before = kiln_context_error_count(ctx);
  if (kiln_verify(op)) return NULL;
  const char *first = kiln_context_error_text(ctx, before);
  return first ? kiln_error_new("%s: the input module does not verify: %s", pass, first)
               : kiln_error_new("%s: the input module does not verify", pass);
}

bool kiln_op_fail(kiln_error **first, const kiln_op *op, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!*first) *first = kiln_op_verror(op, fmt, ap);
  va_end(ap);
  return false;
}

bool kiln_op_emit_error(const kiln_op *op, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  kiln_emit_error(kiln_op_context(op), op->loc, "'%s' op %s", op->name, msg);
  return false;
}

typedef struct {
  kiln_ptr_map order; /* op -> position in its block (1-based) */
} vstate;

static uint32_t order_of(vstate *vs, const kiln_op *op) {
  void *v = kiln_ptr_map_get(&vs->order, op);
  if (!v) { /* number the whole block once */
    uintptr_t i = 1;
    for (const kiln_op *o = op->parent->first; o; o = o->next)
      ir_map_put(&vs->order, o, (void *)i++);
    v = kiln_ptr_map_get(&vs->order, op);
  }
  return (uint32_t)(uintptr_t)v;
}

static const char *count_word(int32_t n) { return n == 1 ? "" : "s"; }

static bool check_count(const kiln_op *op, const char *what, uint32_t have,
                        int32_t min, int32_t max) {
  if ((int64_t)have >= min && (max < 0 || (int64_t)have <= max)) return true;
  if (min == max)
    return kiln_op_emit_error(op, "requires %d %s%s, but found %u", min, what,
                              count_word(min), have);
  if (max < 0)
    return kiln_op_emit_error(op, "requires at least %d %s%s, but found %u", min,
                              what, count_word(min), have);
  return kiln_op_emit_error(op, "requires between %d and %d %ss, but found %u",
                            min, max, what, have);
}

/* Does the definition of v dominate its use by `user`? */
static bool dominates(vstate *vs, const kiln_value *v, const kiln_op *user) {
  if (v->def) {
    const kiln_block *db = v->def->parent;
    if (!db) return false;
    for (const kiln_op *a = user; a; a = kiln_op_parent_op(a)) {
      if (a->parent == db) {
        if (a == v->def) return false; /* used inside its own regions */
        return order_of(vs, v->def) < order_of(vs, a);
      }
      /* Another block of the same region: CFG dominance is not modelled
       * for the structured dialects Kiln uses; accept. */
      if (a->parent && db->parent && a->parent->parent == db->parent) return true;
    }
    return false;
  }
  if (!v->block) return false;
  for (const kiln_op *a = user; a; a = kiln_op_parent_op(a)) {
    if (a->parent == v->block) return true;
    if (a->parent && a->parent->parent == v->block->parent) return true;
  }
  return false;
}

static bool verify_op(vstate *vs, kiln_op *op, int depth);

static bool verify_regions(vstate *vs, kiln_op *op, int depth) {
  bool no_term = kiln_op_has_flag(op, KILN_OPF_NO_TERMINATOR) ||
                 op->kind == KILN_OP_UNREGISTERED;
  for (uint32_t r = 0; r < op->num_regions; r++) {
    kiln_region *reg = &op->regions[r];
    for (kiln_block *b = reg->first; b; b = b->next) {
      if (b->parent != reg)
        return kiln_op_emit_error(op, "has a block whose parent link is broken");
      for (uint32_t a = 0; a < b->num_args; a++)
        if (!b->args[a] || !b->args[a]->type || b->args[a]->block != b)
          return kiln_op_emit_error(op, "has a block argument #%u without a type or owner", a);
      for (kiln_op *o = b->first; o; o = o->next) {
        if (o->parent != b)
          return kiln_op_emit_error(o, "has a broken parent link");
        if ((o->info->flags & KILN_OPF_TERMINATOR) && o != b->last)
          return kiln_op_emit_error(o, "must be the last operation in the parent block");
        if (!verify_op(vs, o, depth + 1)) return false;
      }
      if (!no_term) {
        if (!b->last) {
          kiln_emit_error(kiln_op_context(op), b->loc.file ? b->loc : op->loc,
                          "empty block: expect at least a terminator");
          return false;
        }
        if (!(b->last->info->flags & KILN_OPF_TERMINATOR) &&
            b->last->kind != KILN_OP_UNREGISTERED) {
          kiln_op_emit_error(b->last, "block with no terminator; '%s' is not a terminator",
                             b->last->name);
          kiln_emit_note(kiln_op_context(op), op->loc, "in the body of '%s' here",
                         op->name);
          return false;
        }
      }
    }
  }
  return true;
}

typedef struct {
  kiln_op *iso;
  kiln_op *bad_user;
  uint32_t bad_index;
} iso_check;

static kiln_walk_result check_isolated(kiln_op *o, void *user) {
  iso_check *ic = user;
  if (o == ic->iso) return KILN_WALK_ADVANCE;
  for (uint32_t i = 0; i < o->num_operands; i++) {
    kiln_value *v = o->operands[i].value;
    kiln_op *owner = v ? kiln_value_owner_op(v) : NULL;
    if (!owner) continue;
    if (owner != ic->iso && !kiln_op_is_inside(owner, ic->iso)) {
      if (v->def || owner != ic->iso) {
        ic->bad_user = o;
        ic->bad_index = i;
        return KILN_WALK_INTERRUPT;
      }
    }
  }
  /* Nested isolated ops check their own bodies. */
  return kiln_op_has_flag(o, KILN_OPF_ISOLATED) ? KILN_WALK_SKIP : KILN_WALK_ADVANCE;
}

static bool verify_op(vstate *vs, kiln_op *op, int depth) {
  if (depth > 10000) return kiln_op_emit_error(op, "is nested too deeply");
  const kiln_op_info *info = op->info;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = op->operands[i].value;
    if (!v) return kiln_op_emit_error(op, "operand #%u is null", i);
    if (!v->def && !v->block)
      return kiln_op_emit_error(op, "operand #%u uses a value that was never defined", i);
    if (!dominates(vs, v, op))
      return kiln_op_emit_error(op, "operand #%u does not dominate this use", i);
  }
  for (uint32_t i = 0; i < op->num_results; i++)
    if (!op->results[i].type) return kiln_op_emit_error(op, "result #%u has no type", i);
  if (!op->attrs || op->attrs->kind != KILN_ATTR_DICT)
    return kiln_op_emit_error(op, "has no attribute dictionary");
  if (op->kind != KILN_OP_UNREGISTERED) {
    if (!check_count(op, "operand", op->num_operands, info->min_operands, info->max_operands) ||
        !check_count(op, "result", op->num_results, info->min_results, info->max_results) ||
        !check_count(op, "region", op->num_regions, info->min_regions, info->max_regions))
      return false;
    if (info->flags & KILN_OPF_SAME_TYPES) {
      const kiln_type *t = op->num_results ? op->results[0].type
                                           : kiln_op_operand(op, 0)->type;
      for (uint32_t i = 0; i < op->num_operands; i++)
        if (kiln_op_operand(op, i)->type != t)
          return kiln_op_emit_error(op, "requires the same type for all operands and results");
      for (uint32_t i = 0; i < op->num_results; i++)
        if (op->results[i].type != t)
          return kiln_op_emit_error(op, "requires the same type for all operands and results");
    }
    if ((info->flags & KILN_OPF_RETURN_LIKE) && !op->parent)
      return kiln_op_emit_error(op, "must be inside a region");
  }
  for (uint32_t i = 0; i < op->num_successors; i++) {
    const kiln_block *s = op->successors[i];
    if (!s || !op->parent || s->parent != op->parent->parent)
      return kiln_op_emit_error(op, "reference to block defined in another region");
    if (op != op->parent->last)
      return kiln_op_emit_error(op, "with successors must be the last operation of its block");
  }
  if (!verify_regions(vs, op, depth)) return false;
  if (info->flags & KILN_OPF_ISOLATED) {
    iso_check ic = {op, NULL, 0};
    kiln_walk_pre(op, check_isolated, &ic);
    if (ic.bad_user) {
      kiln_op_emit_error(ic.bad_user, "using value defined outside the region");
      kiln_emit_note(kiln_op_context(op), op->loc, "required by region isolation constraints");
      return false;
    }
  }
  if (info->flags & KILN_OPF_SYMBOL_TABLE) {
    kiln_ptr_map seen = {0};
    bool ok = true;
    for (kiln_op *o = op->regions[0].first ? op->regions[0].first->first : NULL; o && ok;
         o = o->next) {
      const char *n = kiln_symbol_name(o);
      if (!n) continue;
      const char *key = kiln_intern_cstr(kiln_op_context(op), n);
      kiln_op *prev = kiln_ptr_map_get(&seen, key);
      if (prev) {
        kiln_emit_error(kiln_op_context(op), o->loc, "redefinition of symbol named '%s'", n);
        kiln_emit_note(kiln_op_context(op), prev->loc, "see existing symbol definition here");
        ok = false;
      }
      ir_map_put(&seen, key, o);
    }
    kiln_ptr_map_free(&seen);
    if (!ok) return false;
  }
  if (info->verify && op->kind != KILN_OP_UNREGISTERED && !info->verify(op))
    return false;
  return true;
}

bool kiln_verify(kiln_op *op) {
  vstate vs;
  memset(&vs, 0, sizeof vs);
  bool ok = verify_op(&vs, op, 0);
  kiln_ptr_map_free(&vs.order);
  return ok;
}
