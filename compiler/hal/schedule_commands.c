/* schedule-commands: barriers only where a dispatch depends on an earlier
 * one.
 *
 * Takes: host functions after plan-memory (hal.command_buffer.dispatch ops
 * whose operands after the command buffer are binding buffers with
 * offsets, lengths and readonly_mask). Guarantees: a
 * hal.command_buffer.barrier precedes a dispatch exactly when, since the
 * previous barrier of the same command buffer, an earlier dispatch wrote
 * a byte range of the same buffer value that this dispatch reads or
 * writes (read after write, write after write), or read a range this
 * dispatch writes (write after read: the arena reuses bytes). Independent
 * dispatches run without barriers between them; so do the members of a
 * tied chain (plan-memory's windows tags: disjoint windows of one
 * buffer, the tie never read). Barriers already present
 * are removed first and placed again by this rule, so redundant ones
 * disappear and the pass is idempotent. */
#include "hl_internal.h"

typedef struct access {
  kiln_value *buffer;
  int64_t offset, length;
  int64_t window; /* a tied chain's tag (the dispatch's windows), or 0 */
} access;

typedef struct accesses {
  access *v;
  uint32_t n, cap;
} accesses;

static void push(kiln_context *ctx, accesses *a, access x) {
  if (a->n == a->cap) {
    uint32_t cap = a->cap ? 2 * a->cap : 16;
    access *n = kiln_alloc(ctx, cap * sizeof *n);
    for (uint32_t i = 0; i < a->n; i++) n[i] = a->v[i];
    a->v = n, a->cap = cap;
  }
  a->v[a->n++] = x;
}

/* Accesses of one tied chain's windows never conflict: its members
 * write disjoint windows and do not read their tie (place-concats). */
static bool overlaps(const accesses *a, access x) {
  for (uint32_t i = 0; i < a->n; i++)
    if (a->v[i].buffer == x.buffer && a->v[i].offset < x.offset + x.length &&
        x.offset < a->v[i].offset + a->v[i].length && !(x.window && a->v[i].window == x.window))
      return true;
  return false;
}

static void schedule_block(kiln_context *ctx, kiln_block *b) {
  for (kiln_op *o = b->first; o;) {
    kiln_op *next = o->next;
    if (o->kind == KILN_OP_HAL_COMMAND_BUFFER_BARRIER) kiln_op_erase(o);
    o = next;
  }
  /* per command buffer: reads and writes since its last barrier */
  kiln_value *cbs[64];
  accesses reads[64] = {{0}}, writes[64] = {{0}};
  uint32_t ncb = 0;
  for (kiln_op *o = b->first; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_COMMAND_BUFFER_DISPATCH) continue;
    const kiln_attr *off = kiln_op_get_attr(o, "offsets"), *len = kiln_op_get_attr(o, "lengths");
    const kiln_attr *ro = kiln_op_get_attr(o, "readonly_mask");
    const kiln_attr *win = kiln_op_get_attr(o, "windows");
    if (win && (win->kind != KILN_ATTR_DENSE_ARRAY || win->count != o->num_operands - 1)) win = NULL;
    uint32_t nb = o->num_operands - 1;
    if (!off || !len || off->count != nb || len->count != nb) continue; /* the verifier reports it */
    kiln_value *cb = kiln_op_operand(o, 0);
    uint32_t c = 0;
    while (c < ncb && cbs[c] != cb) c++;
    if (c == ncb) {
      if (ncb == 64) c = 63; /* share the last slot: conservative, never unsafe */
      else cbs[ncb++] = cb;
    }
    bool need = false;
    for (uint32_t i = 0; i < nb; i++) {
      access x = {kiln_op_operand(o, i + 1), ((const int64_t *)off->data)[i],
                  ((const int64_t *)len->data)[i], win ? ((const int64_t *)win->data)[i] : 0};
      bool readonly = ro && ro->kind == KILN_ATTR_INTEGER && i < 64 && ((uint64_t)ro->i >> i) & 1;
      if (overlaps(&writes[c], x) || (!readonly && overlaps(&reads[c], x))) need = true;
    }
    if (need) {
      kiln_builder bb = kiln_builder_before(o);
      bb.loc = o->loc;
      kiln_build(&bb, KILN_OP_HAL_COMMAND_BUFFER_BARRIER, 1, &cb, 0, NULL, NULL);
      reads[c].n = writes[c].n = 0;
    }
    for (uint32_t i = 0; i < nb; i++) {
      access x = {kiln_op_operand(o, i + 1), ((const int64_t *)off->data)[i],
                  ((const int64_t *)len->data)[i], win ? ((const int64_t *)win->data)[i] : 0};
      bool readonly = ro && ro->kind == KILN_ATTR_INTEGER && i < 64 && ((uint64_t)ro->i >> i) & 1;
      push(ctx, readonly ? &reads[c] : &writes[c], x);
    }
  }
}

static kiln_error *schedule_func(kiln_context *ctx, kiln_op *func, kiln_block *body, void *user) {
  (void)func, (void)user;
  for (kiln_block *b = body; b; b = b->next) schedule_block(ctx, b);
  return NULL;
}

kiln_error *kiln_hal_pass_schedule_commands(kiln_op *module, void *user) {
  (void)user;
  return hl_each_func(module, "schedule-commands", schedule_func, NULL);
}
