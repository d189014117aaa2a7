/* The allocator contract: a libc-backed default and zeroing helpers the
 * rest of the runtime uses, so every allocation goes through the
 * caller-supplied allocator. */
#include <stdlib.h>
#include <string.h>

#include "runtime_internal.h"

static void *system_alloc(void *self, size_t size, size_t alignment) {
  (void)self;
  if (alignment < sizeof(void *)) alignment = sizeof(void *);
  /* aligned_alloc wants a multiple of the alignment. */
  size_t rounded = (size + alignment - 1) & ~(alignment - 1);
  if (rounded < size) return NULL;
  return aligned_alloc(alignment, rounded ? rounded : alignment);
}

static void system_free(void *self, void *ptr) {
  (void)self;
  free(ptr);
}

kiln_allocator_t kiln_allocator_system(void) {
  kiln_allocator_t a = {NULL, system_alloc, system_free};
  return a;
}

void *krt_alloc_aligned(const kiln_allocator_t *a, size_t size,
                        size_t alignment) {
  void *p = a->alloc(a->self, size ? size : 1, alignment);
  if (p) memset(p, 0, size);
  return p;
}

void *krt_alloc(const kiln_allocator_t *a, size_t size) {
  return krt_alloc_aligned(a, size, 16);
}

void krt_free(const kiln_allocator_t *a, void *ptr) {
  if (ptr) a->free(a->self, ptr);
}
