/* Scoped sets of value names for the SSA checks: open addressing over
 * string pointers (the decoded names, which outlive the set), one table per
 * graph scope with a link to the enclosing one. Takes names from the
 * decoded model; guarantees lookups see this scope and every enclosing
 * scope; memory comes from the document's arena. */
#include <string.h>

#include "onnx_internal.h"

struct ox_names {
  ox_arena *arena;
  ox_names *parent;
  const char **slots;
  size_t cap, count; /* cap is a power of two, count < cap * 3/4 */
};

static uint64_t ox_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

ox_names *ox_names_new(ox_arena *a, ox_names *parent) {
  ox_names *n = ox_arena_alloc(a, sizeof *n);
  if (!n) return NULL;
  n->arena = a;
  n->parent = parent;
  n->cap = 16;
  n->count = 0;
  n->slots = ox_arena_alloc(a, n->cap * sizeof *n->slots);
  if (!n->slots) return NULL;
  memset(n->slots, 0, n->cap * sizeof *n->slots);
  return n;
}

static const char **ox_find(const ox_names *n, const char *s) {
  size_t mask = n->cap - 1;
  for (size_t i = ox_hash(s) & mask;; i = (i + 1) & mask)
    if (!n->slots[i] || strcmp(n->slots[i], s) == 0) return &n->slots[i];
}

bool ox_names_add(ox_names *n, const char *s) {
  if ((n->count + 1) * 4 > n->cap * 3) {
    /* Grow; the old table stays in the arena until the document dies. */
    ox_names big = *n;
    big.cap = n->cap * 2;
    big.count = 0;
    big.slots = ox_arena_alloc(n->arena, big.cap * sizeof *big.slots);
    if (!big.slots) return false;
    memset(big.slots, 0, big.cap * sizeof *big.slots);
    for (size_t i = 0; i < n->cap; i++)
      if (n->slots[i]) {
        *ox_find(&big, n->slots[i]) = n->slots[i];
        big.count++;
      }
    *n = big;
  }
  const char **slot = ox_find(n, s);
  if (!*slot) {
    *slot = s;
    n->count++;
  }
  return true;
}

bool ox_names_has_local(const ox_names *n, const char *s) {
  return *ox_find(n, s) != NULL;
}

bool ox_names_has(const ox_names *n, const char *s) {
  for (; n; n = n->parent)
    if (ox_names_has_local(n, s)) return true;
  return false;
}
