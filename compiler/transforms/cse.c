/* cse: common subexpression elimination.
 *
 * Takes: any module. Two ops are the same expression when they have the
 * same kind, attributes, result types and operands (either order for
 * commutative binary ops), have no regions, and are free of side effects.
 * Guarantees: an op is replaced only by an identical op that dominates it:
 * one earlier in the same block or in an enclosing block (never across
 * sibling blocks, never into an op isolated from above, such as another
 * function). Constants are merged like any other op. */
#include "tx_internal.h"

#include <stdlib.h>

#define CSE_BUCKETS 4096u

typedef struct cse_entry {
  kiln_op *op;
  uint64_t hash;
  int32_t next; /* previous head of the bucket, -1 at the end */
} cse_entry;

/* A scoped table: entries form a stack; each bucket chains from the newest
 * entry, so popping the stack restores the buckets exactly. */
typedef struct cse_table {
  int32_t buckets[CSE_BUCKETS];
  cse_entry *e;
  int32_t n, cap;
  bool changed, oom;
} cse_table;

static uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static bool is_candidate(const kiln_op *op) {
  return tx_op_well_formed(op) && op->num_results > 0 && op->num_regions == 0 &&
         op->num_successors == 0 && !kiln_op_has_flag(op, KILN_OPF_TERMINATOR) &&
         tx_op_is_effect_free(op);
}

static bool commutes(const kiln_op *op) {
  return op->num_operands == 2 && kiln_op_has_flag(op, KILN_OPF_COMMUTATIVE);
}

static uint64_t op_hash(const kiln_op *op) {
  uint64_t h = mix((uint64_t)op->kind, (uint64_t)(uintptr_t)op->name);
  h = mix(h, (uint64_t)(uintptr_t)op->attrs);
  for (uint32_t i = 0; i < op->num_results; i++)
    h = mix(h, (uint64_t)(uintptr_t)op->results[i].type);
  if (commutes(op)) {
    uintptr_t a = (uintptr_t)kiln_op_operand(op, 0);
    uintptr_t b = (uintptr_t)kiln_op_operand(op, 1);
    return mix(h, (uint64_t)(a < b ? a : b) * 31 + (uint64_t)(a < b ? b : a));
  }
  for (uint32_t i = 0; i < op->num_operands; i++)
    h = mix(h, (uint64_t)(uintptr_t)kiln_op_operand(op, i));
  return h;
}

static bool op_equal(const kiln_op *a, const kiln_op *b) {
  if (a->kind != b->kind || a->name != b->name || a->attrs != b->attrs ||
      a->num_operands != b->num_operands || a->num_results != b->num_results)
    return false;
  for (uint32_t i = 0; i < a->num_results; i++)
    if (a->results[i].type != b->results[i].type) return false;
  bool same = true;
  for (uint32_t i = 0; i < a->num_operands && same; i++)
    same = kiln_op_operand(a, i) == kiln_op_operand(b, i);
  if (same) return true;
  return commutes(a) && kiln_op_operand(a, 0) == kiln_op_operand(b, 1) &&
         kiln_op_operand(a, 1) == kiln_op_operand(b, 0);
}

/* The visible equal op, searching entries at index >= floor. */
static kiln_op *lookup(cse_table *t, const kiln_op *op, uint64_t h,
                       int32_t floor) {
  for (int32_t i = t->buckets[h % CSE_BUCKETS]; i >= floor; i = t->e[i].next)
    if (t->e[i].hash == h && op_equal(t->e[i].op, op)) return t->e[i].op;
  return NULL;
}

static void push(cse_table *t, kiln_op *op, uint64_t h) {
  if (t->n == t->cap) {
    int32_t cap = t->cap ? 2 * t->cap : 256;
    cse_entry *ne = realloc(t->e, sizeof *ne * (size_t)cap);
    if (!ne) { t->oom = true; return; }
    t->e = ne;
    t->cap = cap;
  }
  uint32_t b = (uint32_t)(h % CSE_BUCKETS);
  t->e[t->n] = (cse_entry){op, h, t->buckets[b]};
  t->buckets[b] = t->n++;
}

static void pop_to(cse_table *t, int32_t mark) {
  while (t->n > mark) {
    cse_entry *x = &t->e[--t->n];
    t->buckets[x->hash % CSE_BUCKETS] = x->next;
  }
}

static void cse_region(cse_table *t, kiln_region *r, int32_t floor);

static void cse_block(cse_table *t, kiln_block *b, int32_t floor) {
  int32_t mark = t->n;
  for (kiln_op *op = b->first; op;) {
    kiln_op *next = op->next;
    if (op->num_regions) {
      /* Isolated ops (functions) see nothing from outside. */
      int32_t inner = kiln_op_has_flag(op, KILN_OPF_ISOLATED) ? t->n : floor;
      for (uint32_t i = 0; i < op->num_regions; i++)
        cse_region(t, kiln_op_region(op, i), inner);
    } else if (is_candidate(op)) {
      uint64_t h = op_hash(op);
      kiln_op *same = lookup(t, op, h, floor);
      if (same) {
        for (uint32_t i = 0; i < op->num_results; i++)
          kiln_value_replace_all_uses(kiln_op_result(op, i),
                                      kiln_op_result(same, i));
        kiln_op_erase(op);
        t->changed = true;
      } else {
        push(t, op, h);
      }
    }
    op = next;
  }
  pop_to(t, mark);
}

static void cse_region(cse_table *t, kiln_region *r, int32_t floor) {
  for (kiln_block *b = r->first; b; b = b->next) cse_block(t, b, floor);
}

kiln_error *tx_cse(kiln_op *root, bool *changed) {
  cse_table *t = calloc(1, sizeof *t);
  if (!t) return kiln_error_new("cse: out of memory");
  for (uint32_t i = 0; i < CSE_BUCKETS; i++) t->buckets[i] = -1;
  for (uint32_t i = 0; i < root->num_regions; i++)
    cse_region(t, kiln_op_region(root, i), 0);
  bool oom = t->oom;
  if (t->changed) *changed = true;
  free(t->e);
  free(t);
  return oom ? kiln_error_new("cse: out of memory") : NULL;
}

kiln_error *kiln_pass_cse(kiln_op *module, void *user) {
  (void)user;
  bool changed = false;
  return tx_cse(module, &changed);
}
