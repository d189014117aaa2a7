/* The transient arena packer (kiln_hal_pack_arena): interval placement
 * by liveness. Takes buffers with inclusive lifetimes and sizes;
 * guarantees that buffers alive at the same time never overlap in bytes,
 * aligned offsets, and a deterministic result (largest first, ties by
 * earlier start then input order; each at the lowest fitting offset). */
#include "hal.h"

#include <stdlib.h>

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

static bool live_together(const kiln_hal_interval *a, const kiln_hal_interval *b) {
  return a->first <= b->last && b->first <= a->last;
}

uint64_t kiln_hal_pack_arena(kiln_hal_interval *v, size_t n, uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1))) alignment = 1;
  size_t *order = malloc((n + 1) * sizeof *order);
  size_t *placed = malloc((n + 1) * sizeof *placed);
  if (!order || !placed) {
    free(order);
    free(placed);
    return UINT64_MAX;
  }
  for (size_t i = 0; i < n; i++) order[i] = i;
  /* insertion sort: n is the number of intermediates of one function */
  for (size_t i = 1; i < n; i++) {
    size_t k = order[i], j = i;
    while (j > 0) {
      const kiln_hal_interval *a = &v[k], *b = &v[order[j - 1]];
      bool before = a->size > b->size || (a->size == b->size && a->first < b->first);
      if (!before) break;
      order[j] = order[j - 1];
      j--;
    }
    order[j] = k;
  }
  uint64_t total = 0;
  size_t np = 0;
  for (size_t i = 0; i < n; i++) {
    kiln_hal_interval *cur = &v[order[i]];
    uint64_t off = 0;
    /* Move past every conflicting placed buffer until none overlaps; each
     * move goes strictly up, so this ends after at most np moves. */
    for (bool moved = true; moved;) {
      moved = false;
      for (size_t j = 0; j < np; j++) {
        const kiln_hal_interval *o = &v[placed[j]];
        if (!live_together(cur, o)) continue;
        if (off < o->offset + o->size && o->offset < off + cur->size) {
          off = align_up(o->offset + o->size, alignment);
          moved = true;
        }
      }
    }
    cur->offset = off;
    placed[np++] = order[i];
    if (off + cur->size > total) total = off + cur->size;
  }
  free(order);
  free(placed);
  return align_up(total, alignment);
}
