/* Operations, blocks, regions and values: creation, use lists, mutation
 * (set operands, replace-all-uses, erase, move), clone, walks, builder and
 * symbol lookup. Guarantees: every use is linked in its value's use list;
 * erase drops the uses of the erased op and of everything nested in it. */
#include "ir_internal.h"

#include <stdlib.h>

typedef struct ir_op_ext {
  kiln_context *ctx;
  kiln_op op;
} ir_op_ext;

kiln_context *kiln_op_context(const kiln_op *op) {
  const ir_op_ext *x =
      (const ir_op_ext *)((const char *)op - offsetof(ir_op_ext, op));
  return x->ctx;
}

static void use_link(kiln_use *u, kiln_value *v) {
  u->value = v;
  if (!v) return;
  u->next = v->uses;
  if (v->uses) v->uses->prevp = &u->next;
  u->prevp = &v->uses;
  v->uses = u;
}

static void use_unlink(kiln_use *u) {
  if (!u->value) return;
  *u->prevp = u->next;
  if (u->next) u->next->prevp = u->prevp;
  u->value = NULL;
  u->next = NULL;
  u->prevp = NULL;
}

kiln_op *kiln_op_create_named(kiln_context *ctx, const char *name,
                              kiln_loc loc, uint32_t num_operands,
                              kiln_value *const *operands,
                              uint32_t num_results,
                              const kiln_type *const *result_types,
                              const kiln_attr *attrs, uint32_t num_regions) {
  const kiln_op_info *info = kiln_op_info_lookup(name, strlen(name));
  kiln_op *op = kiln_op_create(ctx, info ? info->kind : KILN_OP_UNREGISTERED,
                               loc, num_operands, operands, num_results,
                               result_types, attrs, num_regions);
  op->name = kiln_intern_cstr(ctx, name);
  return op;
}

kiln_op *kiln_op_create(kiln_context *ctx, kiln_op_kind kind, kiln_loc loc,
                        uint32_t num_operands, kiln_value *const *operands,
                        uint32_t num_results,
                        const kiln_type *const *result_types,
                        const kiln_attr *attrs, uint32_t num_regions) {
  ir_op_ext *x = kiln_alloc(ctx, sizeof *x);
  x->ctx = ctx;
  kiln_op *op = &x->op;
  op->kind = kind;
  op->info = kiln_op_info_get(kind);
  op->name = op->info->name;
  op->loc = loc;
  op->attrs = attrs ? attrs : ctx->a_empty_dict;
  op->num_operands = num_operands;
  if (num_operands) {
    op->operands = kiln_alloc(ctx, num_operands * sizeof(kiln_use));
    for (uint32_t i = 0; i < num_operands; i++) {
      op->operands[i].owner = op;
      op->operands[i].index = i;
      use_link(&op->operands[i], operands ? operands[i] : NULL);
    }
  }
  op->num_results = num_results;
  if (num_results) {
    op->results = kiln_alloc(ctx, num_results * sizeof(kiln_value));
    for (uint32_t i = 0; i < num_results; i++) {
      op->results[i].type = result_types[i];
      op->results[i].def = op;
      op->results[i].index = i;
    }
  }
  op->num_regions = num_regions;
  if (num_regions) {
    op->regions = kiln_alloc(ctx, num_regions * sizeof(kiln_region));
    for (uint32_t i = 0; i < num_regions; i++) op->regions[i].parent = op;
  }
  return op;
}

void kiln_op_set_operand(kiln_op *op, uint32_t i, kiln_value *v) {
  use_unlink(&op->operands[i]);
  use_link(&op->operands[i], v);
}

void kiln_op_set_operands(kiln_op *op, uint32_t n, kiln_value *const *vals) {
  for (uint32_t i = 0; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  if (n > op->num_operands) {
    op->operands = kiln_alloc(kiln_op_context(op), n * sizeof(kiln_use));
  }
  op->num_operands = n;
  for (uint32_t i = 0; i < n; i++) {
    op->operands[i].owner = op;
    op->operands[i].index = i;
    op->operands[i].value = NULL;
    use_link(&op->operands[i], vals[i]);
  }
}

void kiln_op_set_successors(kiln_op *op, uint32_t n, kiln_block *const *b) {
  op->successors = kiln_alloc(kiln_op_context(op), (n ? n : 1) * sizeof(void *));
  for (uint32_t i = 0; i < n; i++) op->successors[i] = b[i];
  op->num_successors = n;
}

const kiln_attr *kiln_op_get_attr(const kiln_op *op, const char *name) {
  return kiln_dict_get(op->attrs, name);
}
void kiln_op_set_attr(kiln_op *op, const char *name, const kiln_attr *value) {
  kiln_context *ctx = kiln_op_context(op);
  op->attrs = kiln_dict_set(ctx, op->attrs, kiln_intern_cstr(ctx, name), value);
}
void kiln_op_remove_attr(kiln_op *op, const char *name) {
  kiln_op_set_attr(op, name, NULL);
}

kiln_op *kiln_op_parent_op(const kiln_op *op) {
  return op->parent ? kiln_block_parent_op(op->parent) : NULL;
}

kiln_op *kiln_op_ancestor(kiln_op *op, kiln_op_kind kind) {
  for (; op; op = kiln_op_parent_op(op))
    if (op->kind == kind) return op;
  return NULL;
}

bool kiln_op_is_inside(const kiln_op *op, const kiln_op *ancestor) {
  for (const kiln_op *p = kiln_op_parent_op(op); p; p = kiln_op_parent_op(p))
    if (p == ancestor) return true;
  return false;
}

/* ---- values ---- */
bool kiln_value_has_one_use(const kiln_value *v) {
  return v->uses && !v->uses->next;
}
uint32_t kiln_value_use_count(const kiln_value *v) {
  uint32_t n = 0;
  for (kiln_use *u = v->uses; u; u = u->next) n++;
  return n;
}
void kiln_value_replace_all_uses(kiln_value *from, kiln_value *to) {
  if (from == to) return;
  while (from->uses) {
    kiln_use *u = from->uses;
    use_unlink(u);
    use_link(u, to);
  }
}
void kiln_value_set_type(kiln_value *v, const kiln_type *t) { v->type = t; }
kiln_op *kiln_value_owner_op(const kiln_value *v) {
  if (v->def) return v->def;
  return v->block ? kiln_block_parent_op(v->block) : NULL;
}
const kiln_attr *kiln_value_constant(const kiln_value *v) {
  if (!v->def || !(v->def->info->flags & KILN_OPF_CONSTANT)) return NULL;
  return kiln_op_get_attr(v->def, "value");
}

/* ---- blocks and regions ---- */
kiln_block *kiln_block_create(kiln_context *ctx) {
  return kiln_alloc(ctx, sizeof(kiln_block));
}

kiln_value *kiln_block_add_arg(kiln_context *ctx, kiln_block *b,
                               const kiln_type *type, kiln_loc loc) {
  b->args = ir_grow(ctx, b->args, sizeof(void *), &b->cap_args, b->num_args + 1);
  kiln_value *v = kiln_alloc(ctx, sizeof *v);
  v->type = type;
  v->block = b;
  v->index = b->num_args;
  v->loc = loc;
  b->args[b->num_args++] = v;
  return v;
}

kiln_value *kiln_block_insert_arg(kiln_context *ctx, kiln_block *b, uint32_t i,
                                  const kiln_type *type, kiln_loc loc) {
  kiln_value *v = kiln_block_add_arg(ctx, b, type, loc);
  if (i >= b->num_args) return v;
  for (uint32_t j = b->num_args - 1; j > i; j--) {
    b->args[j] = b->args[j - 1];
    b->args[j]->index = j;
  }
  b->args[i] = v;
  v->index = i;
  return v;
}

void kiln_block_erase_arg(kiln_block *b, uint32_t i) {
  for (uint32_t j = i + 1; j < b->num_args; j++) {
    b->args[j - 1] = b->args[j];
    b->args[j - 1]->index = j - 1;
  }
  b->num_args--;
}

void kiln_region_append_block(kiln_region *r, kiln_block *b) {
  b->parent = r;
  b->prev = r->last;
  b->next = NULL;
  if (r->last) r->last->next = b;
  else r->first = b;
  r->last = b;
}

void kiln_region_remove_block(kiln_block *b) {
  kiln_region *r = b->parent;
  if (!r) return;
  if (b->prev) b->prev->next = b->next;
  else r->first = b->next;
  if (b->next) b->next->prev = b->prev;
  else r->last = b->prev;
  b->parent = NULL;
  b->prev = b->next = NULL;
}

kiln_op *kiln_block_parent_op(const kiln_block *b) {
  return b->parent ? b->parent->parent : NULL;
}

kiln_op *kiln_block_terminator(const kiln_block *b) {
  if (b->last && (b->last->info->flags & KILN_OPF_TERMINATOR)) return b->last;
  return NULL;
}

void kiln_block_append_op(kiln_block *b, kiln_op *op) {
  op->parent = b;
  op->prev = b->last;
  op->next = NULL;
  if (b->last) b->last->next = op;
  else b->first = op;
  b->last = op;
}

void kiln_block_insert_before(kiln_op *before, kiln_op *op) {
  kiln_block *b = before->parent;
  op->parent = b;
  op->next = before;
  op->prev = before->prev;
  if (before->prev) before->prev->next = op;
  else b->first = op;
  before->prev = op;
}

void kiln_block_insert_after(kiln_op *after, kiln_op *op) {
  if (after->next) kiln_block_insert_before(after->next, op);
  else kiln_block_append_op(after->parent, op);
}

kiln_block *kiln_op_entry_block(kiln_context *ctx, kiln_op *op, uint32_t i) {
  kiln_region *r = &op->regions[i];
  if (!r->first) kiln_region_append_block(r, kiln_block_create(ctx));
  return r->first;
}

void kiln_op_remove(kiln_op *op) {
  kiln_block *b = op->parent;
  if (!b) return;
  if (op->prev) op->prev->next = op->next;
  else b->first = op->next;
  if (op->next) op->next->prev = op->prev;
  else b->last = op->prev;
  op->parent = NULL;
  op->prev = op->next = NULL;
}

static void drop_uses(kiln_op *op) {
  for (uint32_t i = 0; i < op->num_operands; i++) use_unlink(&op->operands[i]);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kiln_block *b = op->regions[r].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next) drop_uses(o);
}

void kiln_op_erase(kiln_op *op) {
  kiln_op_remove(op);
  drop_uses(op);
}

void kiln_op_move_before(kiln_op *op, kiln_op *before) {
  kiln_op_remove(op);
  kiln_block_insert_before(before, op);
}

/* ---- clone ---- */
static uint32_t vm_slot(const kiln_value *v, uint32_t cap) {
  uint64_t h = (uint64_t)(uintptr_t)v;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return (uint32_t)h & (cap - 1);
}

kiln_value *kiln_value_map_lookup(const kiln_value_map *m, kiln_value *v) {
  if (!m->index_cap) return NULL;
  for (uint32_t i = vm_slot(v, m->index_cap);; i = (i + 1) & (m->index_cap - 1)) {
    uint32_t p = m->index[i];
    if (!p) return NULL;
    if (p <= m->count && m->from[p - 1] == v) return m->to[p - 1];
  }
}

/* Later additions for the same key win (the index points at the newest). */
static void vm_index_put(kiln_value_map *m, uint32_t pos) {
  kiln_value *v = m->from[pos];
  for (uint32_t i = vm_slot(v, m->index_cap);; i = (i + 1) & (m->index_cap - 1)) {
    uint32_t p = m->index[i];
    if (!p || (p <= m->count && m->from[p - 1] == v)) {
      if (!p) m->index_used++;
      m->index[i] = pos + 1;
      return;
    }
  }
}

void kiln_value_map_add(kiln_context *ctx, kiln_value_map *m, kiln_value *from,
                        kiln_value *to) {
  uint32_t cap = m->cap;
  m->from = ir_grow(ctx, m->from, sizeof(void *), &cap, m->count + 1);
  cap = m->cap;
  m->to = ir_grow(ctx, m->to, sizeof(void *), &cap, m->count + 1);
  m->cap = cap;
  m->from[m->count] = from;
  m->to[m->count] = to;
  m->count++;
  if ((m->index_used + 1) * 2 > m->index_cap) { /* rebuild without stale entries */
    if (!m->index_cap) m->index_cap = 64;
    while (m->count * 2 > m->index_cap) m->index_cap *= 2;
    m->index = kiln_alloc(ctx, m->index_cap * sizeof *m->index);
    m->index_used = 0;
    for (uint32_t i = 0; i < m->count; i++) vm_index_put(m, i);
  } else {
    vm_index_put(m, m->count - 1);
  }
}

kiln_op *kiln_op_clone(kiln_op *op, kiln_value_map *map) {
  kiln_context *ctx = kiln_op_context(op);
  kiln_value **ops = kiln_alloc(ctx, (op->num_operands + 1) * sizeof(void *));
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    kiln_value *m = v ? kiln_value_map_lookup(map, v) : NULL;
    ops[i] = m ? m : v;
  }
  const kiln_type **rt = kiln_alloc(ctx, (op->num_results + 1) * sizeof(void *));
  for (uint32_t i = 0; i < op->num_results; i++) rt[i] = op->results[i].type;
  kiln_op *c = kiln_op_create(ctx, op->kind, op->loc, op->num_operands, ops,
                              op->num_results, rt, op->attrs, op->num_regions);
  c->name = op->name;
  for (uint32_t i = 0; i < op->num_results; i++)
    kiln_value_map_add(ctx, map, &op->results[i], &c->results[i]);
  /* Blocks first (successors may point forward), then their ops. */
  kiln_ptr_map bmap = {0};
  for (uint32_t r = 0; r < op->num_regions; r++) {
    for (kiln_block *b = op->regions[r].first; b; b = b->next) {
      kiln_block *nb = kiln_block_create(ctx);
      nb->loc = b->loc;
      for (uint32_t a = 0; a < b->num_args; a++) {
        kiln_value *na = kiln_block_add_arg(ctx, nb, b->args[a]->type,
                                            b->args[a]->loc);
        kiln_value_map_add(ctx, map, b->args[a], na);
      }
      kiln_region_append_block(&c->regions[r], nb);
      ir_map_put(&bmap, b, nb);
    }
  }
  for (uint32_t r = 0; r < op->num_regions; r++) {
    kiln_block *nb = c->regions[r].first;
    for (kiln_block *b = op->regions[r].first; b; b = b->next, nb = nb->next)
      for (kiln_op *o = b->first; o; o = o->next) {
        kiln_op *co = kiln_op_clone(o, map);
        for (uint32_t i = 0; i < co->num_successors; i++) {
          kiln_block *m = kiln_ptr_map_get(&bmap, co->successors[i]);
          if (m) co->successors[i] = m;
        }
        kiln_block_append_op(nb, co);
      }
  }
  if (op->num_successors) {
    kiln_block **s = kiln_alloc(ctx, op->num_successors * sizeof(void *));
    for (uint32_t i = 0; i < op->num_successors; i++) {
      kiln_block *m = kiln_ptr_map_get(&bmap, op->successors[i]);
      s[i] = m ? m : op->successors[i];
    }
    kiln_op_set_successors(c, op->num_successors, s);
  }
  kiln_ptr_map_free(&bmap);
  return c;
}

/* ---- walks ---- */
static kiln_walk_result walk_pre(kiln_op *op, kiln_walk_fn fn, void *user) {
  kiln_walk_result r = fn(op, user);
  if (r == KILN_WALK_INTERRUPT) return r;
  if (r == KILN_WALK_SKIP) return KILN_WALK_ADVANCE;
  for (uint32_t i = 0; i < op->num_regions; i++)
    for (kiln_block *b = op->regions[i].first; b; b = b->next)
      for (kiln_op *o = b->first, *n; o; o = n) {
        n = o->next;
        if (walk_pre(o, fn, user) == KILN_WALK_INTERRUPT)
          return KILN_WALK_INTERRUPT;
      }
  return KILN_WALK_ADVANCE;
}

static kiln_walk_result walk_post(kiln_op *op, kiln_walk_fn fn, void *user) {
  for (uint32_t i = 0; i < op->num_regions; i++)
    for (kiln_block *b = op->regions[i].first; b; b = b->next)
      for (kiln_op *o = b->first, *n; o; o = n) {
        n = o->next;
        if (walk_post(o, fn, user) == KILN_WALK_INTERRUPT)
          return KILN_WALK_INTERRUPT;
      }
  return fn(op, user) == KILN_WALK_INTERRUPT ? KILN_WALK_INTERRUPT
                                             : KILN_WALK_ADVANCE;
}

bool kiln_walk_pre(kiln_op *root, kiln_walk_fn fn, void *user) {
  return walk_pre(root, fn, user) != KILN_WALK_INTERRUPT;
}
bool kiln_walk_post(kiln_op *root, kiln_walk_fn fn, void *user) {
  return walk_post(root, fn, user) != KILN_WALK_INTERRUPT;
}

bool kiln_op_list_push(kiln_op_list *l, kiln_op *op) {
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 32;
    kiln_op **v = realloc(l->ops, cap * sizeof *v);
    if (!v) return false;
    l->ops = v;
    l->cap = cap;
  }
  l->ops[l->n++] = op;
  return true;
}

typedef struct collected {
  kiln_op_pred keep;
  kiln_op_list list;
} collected;

static kiln_walk_result collect_one(kiln_op *op, void *user) {
  collected *c = user;
  return !c->keep(op) || kiln_op_list_push(&c->list, op) ? KILN_WALK_ADVANCE : KILN_WALK_INTERRUPT;
}

bool kiln_collect_ops(kiln_op *root, bool post, kiln_op_pred keep, kiln_op ***out, size_t *n) {
  collected c = {keep, {0}};
  const bool ok = post ? kiln_walk_post(root, collect_one, &c) : kiln_walk_pre(root, collect_one, &c);
  if (!ok) {
    free(c.list.ops);
    c.list = (kiln_op_list){0};
  }
  *out = c.list.ops;
  *n = c.list.n;
  return ok;
}

/* ---- builder ---- */
kiln_builder kiln_builder_at_end(kiln_context *ctx, kiln_block *b) {
  kiln_builder r = {ctx, b, NULL, {0}};
  return r;
}
kiln_builder kiln_builder_before(kiln_op *op) {
  kiln_builder r = {kiln_op_context(op), op->parent, op, op->loc};
  return r;
}
kiln_builder kiln_builder_after(kiln_op *op) {
  kiln_builder r = {kiln_op_context(op), op->parent, op->next, op->loc};
  return r;
}
kiln_op *kiln_builder_insert(kiln_builder *b, kiln_op *op) {
  if (b->before) kiln_block_insert_before(b->before, op);
  else if (b->block) kiln_block_append_op(b->block, op);
  return op;
}
kiln_op *kiln_build(kiln_builder *b, kiln_op_kind kind, uint32_t num_operands,
                    kiln_value *const *operands, uint32_t num_results,
                    const kiln_type *const *result_types,
                    const kiln_attr *attrs) {
  const kiln_op_info *info = kiln_op_info_get(kind);
  uint32_t nreg = info->min_regions > 0 ? (uint32_t)info->min_regions : 0;
  kiln_op *op = kiln_op_create(b->ctx, kind, b->loc, num_operands, operands,
                               num_results, result_types, attrs, nreg);
  return kiln_builder_insert(b, op);
}
kiln_value *kiln_build_constant(kiln_builder *b, const kiln_attr *value) {
  const kiln_type *t = value->type;
  kiln_named_attr na = {"value", value};
  const kiln_attr *d = kiln_attr_dict(b->ctx, 1, &na);
  kiln_op *op = kiln_build(b, KILN_OP_ARITH_CONSTANT, 0, NULL, 1, &t, d);
  return &op->results[0];
}

/* ---- symbols and modules ---- */
const char *kiln_symbol_name(const kiln_op *op) {
  const kiln_attr *a = kiln_op_get_attr(op, "sym_name");
  return a && a->kind == KILN_ATTR_STRING ? a->str : NULL;
}

kiln_op *kiln_symbol_lookup(kiln_op *table, const char *name) {
  if (!table->num_regions) return NULL;
  for (kiln_block *b = table->regions[0].first; b; b = b->next)
    for (kiln_op *o = b->first; o; o = o->next) {
      const char *n = kiln_symbol_name(o);
      if (n && strcmp(n, name) == 0) return o;
    }
  return NULL;
}

kiln_op *kiln_module_create(kiln_context *ctx, kiln_loc loc) {
  kiln_op *m = kiln_op_create(ctx, KILN_OP_BUILTIN_MODULE, loc, 0, NULL, 0,
                              NULL, NULL, 1);
  kiln_op_entry_block(ctx, m, 0);
  return m;
}

kiln_block *kiln_module_body(kiln_op *module) {
  return kiln_op_entry_block(kiln_op_context(module), module, 0);
}

kiln_error *kiln_each_func(kiln_op *module, kiln_func_fn fn, void *user) {
  kiln_context *ctx = kiln_op_context(module);
  kiln_block *top = kiln_module_body(module);
  uint32_t n = 0;
  for (kiln_op *o = top->first; o; o = o->next) n += o->kind == KILN_OP_FUNC_FUNC;
  kiln_op **funcs = kiln_alloc(ctx, (n + 1) * sizeof *funcs);
  n = 0;
  for (kiln_op *o = top->first; o; o = o->next)
    if (o->kind == KILN_OP_FUNC_FUNC) funcs[n++] = o;
  kiln_error *err = NULL;
  for (uint32_t f = 0; f < n && !err; f++) {
    kiln_block *body = funcs[f]->num_regions ? funcs[f]->regions[0].first : NULL;
    if (body) err = fn(ctx, funcs[f], body, user);
  }
  return err;
}
