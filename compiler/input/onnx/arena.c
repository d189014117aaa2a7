/* Bounded arena for decoding: bump allocation from 64 KiB chunks, large
 * blocks in chunks of their own, a byte budget checked on every request.
 * Takes sizes from protobuf-c and the loader; guarantees 16-byte aligned,
 * zeroed-on-demand-free memory (callers initialize), no allocation beyond
 * the budget, and release of everything at once. Freeing single blocks is
 * a no-op: a decoded document lives and dies as a whole. */
#include <stdlib.h>

#include "onnx_internal.h"

enum { OX_ALIGN = 16, OX_CHUNK = 64 * 1024, OX_BIG = 16 * 1024 };

struct ox_chunk {
  ox_chunk *next;
  size_t size, used;
  _Alignas(OX_ALIGN) unsigned char data[];
};

void ox_arena_init(ox_arena *a, size_t budget) {
  a->head = NULL;
  a->used = 0;
  a->budget = budget;
  a->exceeded = false;
}

static ox_chunk *ox_chunk_new(size_t size) {
  if (size > SIZE_MAX - sizeof(ox_chunk)) return NULL;
  ox_chunk *c = malloc(sizeof(ox_chunk) + size);
  if (!c) return NULL;
  c->size = size;
  c->used = 0;
  c->next = NULL;
  return c;
}

void *ox_arena_alloc(ox_arena *a, size_t size) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - OX_ALIGN) return NULL;
  size_t rounded = (size + OX_ALIGN - 1) & ~(size_t)(OX_ALIGN - 1);
  if (a->budget != SIZE_MAX &&
      (rounded > a->budget || a->used > a->budget - rounded)) {
    a->exceeded = true;
    return NULL;
  }
  if (rounded >= OX_BIG) {
    /* Its own chunk, linked behind the head so the head keeps filling. */
    ox_chunk *c = ox_chunk_new(rounded);
    if (!c) return NULL;
    c->used = rounded;
    if (a->head) {
      c->next = a->head->next;
      a->head->next = c;
    } else {
      a->head = c;
    }
    a->used += rounded;
    return c->data;
  }
  if (!a->head || a->head->size - a->head->used < rounded) {
    ox_chunk *c = ox_chunk_new(OX_CHUNK);
    if (!c) return NULL;
    c->next = a->head;
    a->head = c;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += rounded;
  a->used += rounded;
  return p;
}

void ox_arena_release(ox_arena *a) {
  for (ox_chunk *c = a->head, *next; c; c = next) {
    next = c->next;
    free(c);
  }
  a->head = NULL;
  a->used = 0;
}

static void *ox_pb_alloc(void *data, size_t size) {
  return ox_arena_alloc(data, size);
}

static void ox_pb_free(void *data, void *ptr) {
  (void)data;
  (void)ptr;
}

ProtobufCAllocator ox_arena_allocator(ox_arena *a) {
  ProtobufCAllocator al = {ox_pb_alloc, ox_pb_free, a};
  return al;
}
