/* The transient arena packer (kiln_hal_pack_arena): interval placement
 * by liveness. Takes buffers with inclusive lifetimes and sizes;
 * guarantees that buffers alive at the same time never overlap in bytes,
 * aligned offsets, and a deterministic result: each order tried places
 * every buffer at the lowest offset that fits; the first order is largest
 * first (ties by earlier start, then input order), the others perturb it
 * with a fixed-seed generator, and the smallest arena wins (the first on
 * ties), so no result is larger than largest-first alone. */
#include "hal.h"

#include <stdlib.h>

static uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }

static bool live_together(const kiln_hal_interval *a, const kiln_hal_interval *b) {
  return a->first <= b->last && b->first <= a->last;
}

/* Places v in `order`, each at the lowest offset clear of the placed
 * buffers it lives with; returns the arena's end. */
static uint64_t place(kiln_hal_interval *v, size_t n, const size_t *order, size_t *placed, uint64_t alignment) {
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
  return total;
}

/* No arena is smaller than the aligned bytes alive at one time (every
 * placed buffer but the top one takes its aligned size). */
static uint64_t live_peak(const kiln_hal_interval *v, size_t n, uint64_t alignment) {
  uint64_t peak = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t sum = 0;
    for (size_t j = 0; j < n; j++)
      if (v[j].first <= v[i].first && v[i].first <= v[j].last) sum += align_up(v[j].size, alignment);
    if (sum > peak) peak = sum;
  }
  return peak;
}

typedef struct keyed {
  double key;
  size_t index;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key > y->key ? -1 : 1;
  return x->index < y->index ? -1 : x->index > y->index;
}

uint64_t kiln_hal_pack_arena(kiln_hal_interval *v, size_t n, uint64_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1))) alignment = 1;
  size_t *order = calloc(n + 1, sizeof *order);
  size_t *placed = malloc((n + 1) * sizeof *placed);
  uint64_t *best_off = malloc((n + 1) * sizeof *best_off);
  keyed *keys = malloc((n + 1) * sizeof *keys);
  if (!order || !placed || !best_off || !keys) {
    free(order), free(placed), free(best_off), free(keys);
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
  uint64_t best = place(v, n, order, placed, alignment);
  for (size_t i = 0; i < n; i++) best_off[i] = v[i].offset;
  /* Largest first can leave holes no later buffer fits (ResNet-50's 8.0
   * MB arena for 7.2 MB alive at once). Sizes scaled by a random factor in
   * [0.5, 1.5) give orders near it that often close them; a try costs
   * about n^2 steps, so large functions get fewer. */
  const uint64_t bound = align_up(live_peak(v, n, alignment), alignment);
  const size_t tries = n < 2 ? 0 : 20000000 / ((uint64_t)n * n) < 64 ? 20000000 / ((uint64_t)n * n) : 64;
  uint64_t seed = 0x9e3779b97f4a7c15u;
  for (size_t t = 0; t < tries && align_up(best, alignment) > bound; t++) {
    for (size_t i = 0; i < n; i++) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      keys[i].key = (double)v[i].size * (0.5 + (double)(seed >> 11) / 9007199254740992.0);
      keys[i].index = i;
    }
    qsort(keys, n, sizeof *keys, by_key);
    for (size_t i = 0; i < n; i++) order[i] = keys[i].index;
    uint64_t total = place(v, n, order, placed, alignment);
    if (total < best) {
      best = total;
      for (size_t i = 0; i < n; i++) best_off[i] = v[i].offset;
    }
  }
  for (size_t i = 0; i < n; i++) v[i].offset = best_off[i];
  free(order), free(placed), free(best_off), free(keys);
  return align_up(best, alignment);
}
