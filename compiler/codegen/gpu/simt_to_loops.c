/* simt-to-loops: a GPU kernel as a CPU kernel (SIMT on CPU, loop fission
 * at barriers as POCL and CuPBoP do).
 *
 * Takes: a kernel module after distribute-to-threads and lower-to-loops,
 * whose kernels use hal.interface.thread.id / workgroup.size, barriers
 * and warp shuffles, with barriers (and shuffles) at the top level or
 * nested in scf.for / scf.if regions whose bounds and conditions are the
 * same for every thread. The block size T is kiln.launch block_size[0].
 *
 * Guarantees, in this order:
 *   1. every hal.interface.shuffle becomes: store the own value into a
 *      per-thread slot (memref<T x ty> at the kernel entry), barrier, load
 *      the partner's slot (thread ^ offset); T must be a multiple of the
 *      warp width 32 so partners exist;
 *   2. an scf.for / scf.if holding a barrier (a "barrier op") keeps its
 *      bounds / condition, which must not depend on the thread (else an
 *      error); its iter_args and results move to per-thread slots (each
 *      thread stores its init / yielded value, loads its own slot);
 *   3. each block holding barriers or barrier ops is cut into segments at
 *      them; a value that differs per thread and is used in another
 *      segment (or inside a barrier op) is either recomputed there (pure
 *      index arithmetic of the thread id, views) or kept in a per-thread
 *      slot (stored after its definition, loaded before each use);
 *   4. in each segment the ops that depend on the thread or have side
 *      effects run inside one `scf.for %t = 0 to T`, pure thread-uniform
 *      ops stay before it, as do memref.alloca (workgroup memory on the
 *      CPU); barrier ops stay outside every thread loop (the thread loop
 *      is pushed inside them); thread.id is the enclosing thread loop's
 *      index, workgroup.size is T (1 in y and z).
 * No thread.id, workgroup.size, barrier or shuffle is left; one CPU call
 * runs a whole block. Barriers inside any other op, or under thread-
 * dependent control flow, are errors naming the op. */
#include "gpu_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/hal_interface.h"

/* ---- op -> int (>= 0) on the IR's pointer map; -1 when absent ---- */
typedef struct {
  kiln_ptr_map m;
  bool oom;
} pmap;

static void pmap_free(pmap *m) {
  kiln_ptr_map_free(&m->m);
  m->oom = false;
}

static int pmap_get(const pmap *m, const kiln_op *k) {
  return kiln_ptr_map_has(&m->m, k) ? (int)(intptr_t)kiln_ptr_map_get(&m->m, k) : -1;
}

static void pmap_set(pmap *m, const kiln_op *k, int v) {
  if (!kiln_ptr_map_put(&m->m, k, (void *)(intptr_t)v)) m->oom = true;
}

/* ---- state ---- */
typedef struct {
  kiln_op *func;
  kiln_context *c;
  int64_t threads;
  pmap seg;    /* op directly in a segmented block -> segment (kernel-wide) */
  pmap vary;   /* same ops -> 1 when thread-dependent */
  pmap bc;     /* barrier ops (scf.for / scf.if holding a barrier) -> 1 */
  pmap loops;  /* thread loops made by fission -> 1 */
  int nseg;
  kiln_op_list slots; /* the per-thread slot arrays made here */
  kiln_error *err;
} simt;

static kiln_walk_result find_barrier(kiln_op *op, void *user) {
  return op != user && op->kind == KILN_OP_HAL_INTERFACE_BARRIER ? KILN_WALK_INTERRUPT
                                                                  : KILN_WALK_ADVANCE;
}

/* Does op hold a barrier in its regions (a barrier op)? */
static bool holds_barrier(kiln_op *op) {
  return op->num_regions && op->kind != KILN_OP_HAL_INTERFACE_BARRIER && !kiln_walk_pre(op, find_barrier, op);
}

static kiln_walk_result count_op(kiln_op *op, void *user) {
  (void)op;
  ++*(uint32_t *)user;
  return KILN_WALK_ADVANCE;
}

static bool is_scalar(const kiln_type *t) {
  switch (t->kind) {
  case KILN_TYPE_INTEGER: case KILN_TYPE_INDEX: case KILN_TYPE_F16: case KILN_TYPE_BF16:
  case KILN_TYPE_F32: case KILN_TYPE_F64:
    return true;
  default: return false;
  }
}

static kiln_value *thread_id(kiln_builder *b) {
  return gpu_interface(b, KILN_OP_HAL_INTERFACE_THREAD_ID, 0);
}

/* A per-thread slot array memref<T x elem> at the kernel's entry. */
static kiln_value *slots(simt *s, const kiln_type *elem, kiln_loc loc) {
  kiln_builder b = kiln_builder_before(s->func->regions[0].first->first);
  b.loc = loc;
  int64_t shape[1] = {s->threads};
  const kiln_type *t = kiln_type_memref(s->c, 1, shape, elem, NULL, NULL);
  int64_t seg[2] = {0, 0};
  kiln_named_attr na = {"operandSegmentSizes",
                        kiln_attr_dense_array(s->c, kiln_type_int(s->c, 32), 2, seg, NULL)};
  kiln_op *a = kiln_build(&b, KILN_OP_MEMREF_ALLOCA, 0, NULL, 1, &t, kiln_attr_dict(s->c, 1, &na));
  kiln_op_list_push(&s->slots, a); /* out of memory: is_slot misses it, the slot stays */
  return kiln_op_result(a, 0);
}

static bool is_slot(const simt *s, const kiln_value *v) {
  for (size_t i = 0; v->def && i < s->slots.n; i++)
    if (s->slots.ops[i] == v->def) return true;
  return false;
}

static void store_own(kiln_builder *b, kiln_value *v, kiln_value *slot) {
  kiln_value *t = thread_id(b);
  cg_store(b, v, slot, 1, &t);
}

static kiln_value *load_own(kiln_builder *b, kiln_value *slot) {
  kiln_value *t = thread_id(b);
  return cg_load(b, slot, 1, &t);
}

static bool fail(simt *s, const kiln_op *op, const char *what) {
  if (!s->err) s->err = kiln_op_error(op, "simt-to-loops: %s", what);
  return false;
}

/* ---- 1. shuffles ---- */
static kiln_walk_result note_shuffle(kiln_op *op, void *user) {
  kiln_op ***list = user;
  if (op->kind == KILN_OP_HAL_INTERFACE_SHUFFLE) *(*list)++ = op;
  return KILN_WALK_ADVANCE;
}

static bool lower_shuffles(simt *s, uint32_t nops) {
  kiln_op **all = calloc(nops + 1, sizeof *all), **end = all;
  if (!all) return fail(s, s->func, "out of memory");
  kiln_walk_pre(s->func, note_shuffle, &end);
  for (kiln_op **p = all; p < end && !s->err; p++) {
    kiln_op *sh = *p;
    const kiln_attr *off = kiln_op_get_attr(sh, "offset");
    const kiln_attr *w = kiln_op_get_attr(sh, "width");
    if (!off || off->kind != KILN_ATTR_INTEGER || !w || w->kind != KILN_ATTR_INTEGER || w->i != 32 ||
        off->i < 1 || off->i >= w->i) {
      fail(s, sh, "malformed shuffle (needs width = 32 and an offset in [1, 32))");
      break;
    }
    if (s->threads % w->i != 0) {
      if (!s->err)
        s->err = kiln_op_error(sh, "simt-to-loops: a warp shuffle needs a block size that is a multiple of "
                                 "the warp width %lld, got %lld", (long long)w->i, (long long)s->threads);
      break;
    }
    kiln_value *v = kiln_op_operand(sh, 0);
    kiln_value *slot = slots(s, v->type, sh->loc);
    kiln_builder b = kiln_builder_before(sh);
    b.loc = sh->loc;
    store_own(&b, v, slot);
    kiln_build(&b, KILN_OP_HAL_INTERFACE_BARRIER, 0, NULL, 0, NULL, NULL);
    kiln_value *partner = cg_bin(&b, KILN_OP_ARITH_XORI, thread_id(&b), cg_index(&b, off->i));
    kiln_value_replace_all_uses(kiln_op_result(sh, 0), cg_load(&b, slot, 1, &partner));
    kiln_op_erase(sh);
  }
  free(all);
  return !s->err;
}

/* ---- 2. barrier ops lose their iter_args and results ---- */
static kiln_value **result_slots(simt *s, kiln_op *op) {
  kiln_value **sl = calloc(op->num_results + 1, sizeof *sl);
  if (!sl) {
    fail(s, op, "out of memory");
    return NULL;
  }
  for (uint32_t i = 0; i < op->num_results; i++) {
    if (!is_scalar(op->results[i].type)) {
      fail(s, op, "a non-scalar result of a region holding a barrier cannot be kept per thread");
      free(sl);
      return NULL;
    }
    sl[i] = slots(s, op->results[i].type, op->loc);
  }
  return sl;
}

static void move_body(kiln_block *from, kiln_op *stop, kiln_op *before) {
  for (kiln_op *o = from->first, *nx; o && o != stop; o = nx) {
    nx = o->next;
    kiln_op_remove(o);
    kiln_block_insert_before(before, o);
  }
}

static void load_results(kiln_op *old, kiln_op *after, kiln_value **sl) {
  kiln_builder ab = kiln_builder_after(after);
  ab.loc = old->loc;
  for (uint32_t i = 0; i < old->num_results; i++)
    kiln_value_replace_all_uses(kiln_op_result(old, i), load_own(&ab, sl[i]));
}

static kiln_op *demote_for(simt *s, kiln_op *loop) {
  kiln_value **sl = result_slots(s, loop);
  if (!sl) return NULL;
  uint32_t n = loop->num_results;
  kiln_block *body = loop->regions[0].first;
  kiln_op *y = kiln_block_terminator(body);
  kiln_builder b = kiln_builder_before(loop);
  b.loc = loop->loc;
  for (uint32_t i = 0; i < n; i++) store_own(&b, kiln_op_operand(loop, 3 + i), sl[i]);
  kiln_builder nb;
  kiln_op *nl = cg_for(&b, kiln_op_operand(loop, 0), kiln_op_operand(loop, 1), kiln_op_operand(loop, 2), 0,
                       NULL, &nb);
  kiln_block *nbody = nl->regions[0].first;
  kiln_op *ny = kiln_block_terminator(nbody);
  move_body(body, y, ny);
  kiln_value_replace_all_uses(body->args[0], cg_for_iv(nl));
  kiln_builder hb = kiln_builder_before(nbody->first);
  hb.loc = loop->loc;
  for (uint32_t i = 0; i < n; i++) kiln_value_replace_all_uses(body->args[1 + i], load_own(&hb, sl[i]));
  kiln_builder eb = kiln_builder_before(ny);
  eb.loc = loop->loc;
  for (uint32_t i = 0; i < n && y; i++) store_own(&eb, kiln_op_operand(y, i), sl[i]);
  load_results(loop, nl, sl);
  kiln_op_erase(loop);
  free(sl);
  return nl;
}

static kiln_op *demote_if(simt *s, kiln_op *iff) {
  kiln_value **sl = result_slots(s, iff);
  if (!sl) return NULL;
  kiln_builder b = kiln_builder_before(iff);
  b.loc = iff->loc;
  kiln_value *cond = kiln_op_operand(iff, 0);
  kiln_op *ni = kiln_build(&b, KILN_OP_SCF_IF, 1, &cond, 0, NULL, NULL);
  for (uint32_t r = 0; r < 2; r++) {
    kiln_block *ob = iff->regions[r].first;
    if (!ob) continue;
    kiln_builder yb = kiln_builder_at_end(s->c, kiln_op_entry_block(s->c, ni, r));
    yb.loc = iff->loc;
    kiln_op *ny = kiln_build(&yb, KILN_OP_SCF_YIELD, 0, NULL, 0, NULL, NULL);
    kiln_op *y = kiln_block_terminator(ob);
    move_body(ob, y, ny);
    kiln_builder eb = kiln_builder_before(ny);
    eb.loc = iff->loc;
    for (uint32_t i = 0; y && i < iff->num_results && i < y->num_operands; i++)
      store_own(&eb, kiln_op_operand(y, i), sl[i]);
  }
  load_results(iff, ni, sl);
  kiln_op_erase(iff);
  free(sl);
  return ni;
}

static void demote_block(simt *s, kiln_block *b) {
  for (kiln_op *o = b->first, *next; o && !s->err; o = next) {
    next = o->next;
    if (!holds_barrier(o)) continue;
    if (o->kind != KILN_OP_SCF_FOR && o->kind != KILN_OP_SCF_IF) {
      char msg[256];
      snprintf(msg, sizeof msg, "a barrier (or warp shuffle) inside '%s' is not supported (only scf.for "
               "and scf.if regions with thread-uniform bounds and conditions may hold one)", o->name);
      fail(s, o, msg);
      return;
    }
    for (uint32_t r = 0; r < o->num_regions; r++)
      if (o->regions[r].first && o->regions[r].first->next) {
        fail(s, o, "a region with several blocks cannot hold a barrier");
        return;
      }
    if (o->num_results) o = o->kind == KILN_OP_SCF_FOR ? demote_for(s, o) : demote_if(s, o);
    for (uint32_t r = 0; o && r < o->num_regions; r++)
      if (o->regions[r].first) demote_block(s, o->regions[r].first);
  }
}

/* ---- 3. analysis: segments and thread dependence ---- */
static kiln_walk_result find_varying(kiln_op *op, void *user) {
  simt *s = user;
  if (op->kind == KILN_OP_HAL_INTERFACE_THREAD_ID || op->kind == KILN_OP_HAL_INTERFACE_SHUFFLE)
    return KILN_WALK_INTERRUPT;
  if (!kiln_op_has_flag(op, KILN_OPF_PURE) && !kiln_op_has_flag(op, KILN_OPF_TERMINATOR) &&
      op->kind != KILN_OP_MEMREF_ALLOCA && op->kind != KILN_OP_HAL_INTERFACE_BARRIER)
    return KILN_WALK_INTERRUPT;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_op *d = kiln_op_operand(op, i)->def;
    if (d && pmap_get(&s->vary, d) == 1) return KILN_WALK_INTERRUPT;
  }
  return KILN_WALK_ADVANCE;
}

static bool varying(simt *s, kiln_op *op) {
  return !kiln_walk_pre(op, find_varying, s);
}

static void analyze_block(simt *s, kiln_block *b) {
  int cur = s->nseg++;
  for (kiln_op *o = b->first; o && !s->err; o = o->next) {
    if (o->kind == KILN_OP_HAL_INTERFACE_BARRIER) {
      pmap_set(&s->seg, o, cur);
      pmap_set(&s->vary, o, 0);
      cur = s->nseg++;
      continue;
    }
    if (holds_barrier(o)) {
      pmap_set(&s->seg, o, s->nseg++);
      pmap_set(&s->vary, o, 0);
      pmap_set(&s->bc, o, 1);
      /* Every thread must take the same path through a barrier op. */
      uint32_t nuniform = o->kind == KILN_OP_SCF_FOR ? 3 : o->num_operands;
      for (uint32_t i = 0; i < nuniform && i < o->num_operands; i++) {
        kiln_op *d = kiln_op_operand(o, i)->def;
        if (d && pmap_get(&s->vary, d) == 1) {
          fail(s, o, o->kind == KILN_OP_SCF_FOR
                         ? "a barrier (or warp shuffle) under thread-dependent control flow: the "
                           "scf.for bounds depend on the thread"
                         : "a barrier (or warp shuffle) under thread-dependent control flow: the "
                           "scf.if condition depends on the thread");
          return;
        }
      }
      for (uint32_t r = 0; r < o->num_regions; r++)
        if (o->regions[r].first) analyze_block(s, o->regions[r].first);
      cur = s->nseg++;
      continue;
    }
    pmap_set(&s->seg, o, cur);
    pmap_set(&s->vary, o, varying(s, o) ? 1 : 0);
  }
}

static bool analyze(simt *s) {
  pmap_free(&s->seg);
  pmap_free(&s->vary);
  pmap_free(&s->bc);
  s->nseg = 0;
  analyze_block(s, s->func->regions[0].first);
  return !s->err;
}

/* ---- 4. per-thread values across segments ---- */
/* Is op directly in the kernel's body or a barrier op's region? (valid
 * between analyze and the next change of barrier ops) */
static bool in_segmented_block(simt *s, const kiln_op *op) {
  kiln_op *p = kiln_op_parent_op(op);
  return !p || p == s->func || pmap_get(&s->bc, p) == 1;
}

static bool is_barrier_op(simt *s, const kiln_op *op) {
  return pmap_get(&s->bc, op) == 1;
}

/* Can v be recomputed from uniform values and the thread id? Loads of
 * the slot arrays made here count: each slot is written once per
 * execution of its producer (a definition, a shuffle, the end of a loop
 * body), after which every use in that execution reads it again. */
static bool can_remat(simt *s, kiln_value *v, int depth) {
  kiln_op *d = v->def;
  if (!d || pmap_get(&s->vary, d) != 1) return true;
  if (d->kind == KILN_OP_HAL_INTERFACE_THREAD_ID) return true;
  bool slot_load = d->kind == KILN_OP_MEMREF_LOAD && is_slot(s, kiln_op_operand(d, 0));
  if (depth > 16 || (!kiln_op_has_flag(d, KILN_OPF_PURE) && !slot_load) || d->num_regions) return false;
  for (uint32_t i = 0; i < d->num_operands; i++)
    if (!can_remat(s, kiln_op_operand(d, i), depth + 1)) return false;
  return true;
}

static kiln_value *remat(simt *s, kiln_value *v, kiln_op *before) {
  kiln_op *d = v->def;
  if (!d || pmap_get(&s->vary, d) != 1) return v;
  kiln_value_map map;
  memset(&map, 0, sizeof map);
  for (uint32_t i = 0; i < d->num_operands; i++) {
    kiln_value *o = kiln_op_operand(d, i);
    kiln_value *n = remat(s, o, before);
    if (n != o) kiln_value_map_add(s->c, &map, o, n);
  }
  kiln_op *copy = kiln_op_clone(d, &map); /* the map lives in the context's arena */
  kiln_block_insert_before(before, copy);
  /* Later copies of ops using this one must copy it too. */
  pmap_set(&s->vary, copy, 1);
  return kiln_op_result(copy, v->index);
}

/* The ancestor of op (or op) directly in block b, or NULL. */
static kiln_op *ancestor_in(kiln_op *op, kiln_block *b) {
  while (op && op->parent != b) op = kiln_op_parent_op(op);
  return op;
}

/* Where a use by op gets its per-thread copy: before the ancestor of op
 * that sits directly in a segmented block. */
static kiln_op *insertion_point(simt *s, kiln_op *op) {
  while (!in_segmented_block(s, op)) op = kiln_op_parent_op(op);
  return op;
}

static void collect_varying(simt *s, kiln_block *b, kiln_op_list *l) {
  for (kiln_op *o = b->first; o; o = o->next) {
    if (pmap_get(&s->vary, o) == 1 && o->num_results && !kiln_op_list_push(l, o)) {
      fail(s, o, "out of memory");
      return;
    }
    if (is_barrier_op(s, o))
      for (uint32_t r = 0; r < o->num_regions; r++)
        if (o->regions[r].first) collect_varying(s, o->regions[r].first, l);
  }
}

static void transfer_value(simt *s, kiln_op *d, kiln_value *v) {
  uint32_t nuses = kiln_value_use_count(v);
  if (!nuses) return;
  kiln_use **uses = calloc(nuses, sizeof *uses);
  if (!uses) {
    fail(s, d, "out of memory");
    return;
  }
  uint32_t k = 0;
  for (kiln_use *u = v->uses; u; u = u->next) uses[k++] = u;
  kiln_value *slot = NULL;
  int dseg = pmap_get(&s->seg, d);
  for (uint32_t i = 0; i < k && !s->err; i++) {
    kiln_op *owner = uses[i]->owner;
    uint32_t index = uses[i]->index;
    kiln_op *a = ancestor_in(owner, d->parent);
    if (!a) continue;
    if (!is_barrier_op(s, a) && pmap_get(&s->seg, a) == dseg) continue;
    kiln_op *at = insertion_point(s, owner);
    kiln_value *nv;
    if (can_remat(s, v, 0)) {
      nv = remat(s, v, at);
    } else {
      if (!slot) {
        if (!is_scalar(v->type)) {
          fail(s, d, "a per-thread value that is not a scalar (nor recomputable from the thread id) "
                     "is used across a barrier");
          break;
        }
        slot = slots(s, v->type, d->loc);
        kiln_builder sb = kiln_builder_after(d);
        sb.loc = d->loc;
        store_own(&sb, v, slot);
      }
      kiln_builder lb = kiln_builder_before(at);
      lb.loc = d->loc;
      nv = load_own(&lb, slot);
      pmap_set(&s->vary, nv->def, 1);
      pmap_set(&s->vary, kiln_op_operand(nv->def, 1)->def, 1);
    }
    kiln_op_set_operand(owner, index, nv);
  }
  free(uses);
  /* A slot load whose every use now loads again is dead (loads are not
   * pure, so nothing else removes it). */
  if (!s->err && !v->uses && d->kind == KILN_OP_MEMREF_LOAD && is_slot(s, kiln_op_operand(d, 0)))
    kiln_op_erase(d);
}

static bool transfer(simt *s) {
  kiln_op_list l = {0};
  collect_varying(s, s->func->regions[0].first, &l);
  for (size_t i = 0; i < l.n && !s->err; i++) {
    kiln_op *d = l.ops[i];
    uint32_t nres = d->num_results; /* d may be erased by the last one */
    for (uint32_t r = 0; r < nres && !s->err; r++) transfer_value(s, d, kiln_op_result(d, r));
  }
  free(l.ops);
  return !s->err;
}

/* ---- 5. fission ---- */
static void fission_block(simt *s, kiln_block *b) {
  kiln_op *loop = NULL;
  kiln_builder lb;
  int loop_seg = -1;
  for (kiln_op *o = b->first, *next; o && !s->err; o = next) {
    next = o->next;
    if (o->kind == KILN_OP_HAL_INTERFACE_BARRIER) {
      kiln_op_erase(o);
      loop = NULL;
      continue;
    }
    if (is_barrier_op(s, o)) {
      for (uint32_t r = 0; r < o->num_regions; r++)
        if (o->regions[r].first) fission_block(s, o->regions[r].first);
      loop = NULL;
      continue;
    }
    if (kiln_op_has_flag(o, KILN_OPF_TERMINATOR)) continue;
    int seg = pmap_get(&s->seg, o);
    if (pmap_get(&s->vary, o) != 1) {
      /* Thread-independent: before this segment's loop, so the loop body
       * may use it. */
      if (loop && loop_seg == seg) kiln_op_move_before(o, loop);
      continue;
    }
    if (!loop || loop_seg != seg) {
      kiln_builder fb = kiln_builder_before(o);
      fb.loc = o->loc;
      loop = cg_for(&fb, cg_index(&fb, 0), cg_index(&fb, s->threads), cg_index(&fb, 1), 0, NULL, &lb);
      pmap_set(&s->loops, loop, 1);
      loop_seg = seg;
    }
    kiln_op_remove(o);
    kiln_builder_insert(&lb, o);
  }
}

static bool is_interface_query(const kiln_op *op) {
  return op->kind == KILN_OP_HAL_INTERFACE_THREAD_ID || op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE;
}

/* thread.id: the enclosing thread loop's index; workgroup.size: T. */
static bool resolve_ids(simt *s) {
  kiln_op **ops;
  size_t n;
  if (!kiln_collect_ops(s->func, false, is_interface_query, &ops, &n)) return fail(s, s->func, "out of memory");
  for (size_t i = 0; i < n && !s->err; i++) {
    kiln_op *o = ops[i];
    kiln_builder b = kiln_builder_before(o);
    b.loc = o->loc;
    int64_t d = kiln_hal_interface_selector(o);
    if (o->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE) {
      kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_index(&b, d == 0 ? s->threads : 1));
      kiln_op_erase(o);
      continue;
    }
    if (d != 0) {
      kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_index(&b, 0));
      kiln_op_erase(o);
      continue;
    }
    kiln_op *p = kiln_op_parent_op(o);
    while (p && pmap_get(&s->loops, p) != 1) p = kiln_op_parent_op(p);
    if (!p) {
      fail(s, o, "a thread id outside every thread loop");
      break;
    }
    kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_for_iv(p));
    kiln_op_erase(o);
  }
  free(ops);
  return !s->err;
}

static kiln_error *simt_kernel(kiln_op *func) {
  kiln_block *body = func->regions[0].first;
  if (!body) return NULL;
  if (body->next) return kiln_op_error(func, "simt-to-loops: kernels with several blocks are not supported");
  simt s;
  memset(&s, 0, sizeof s);
  s.func = func;
  s.c = kiln_op_context(func);
  s.threads = gpu_block_threads(func);
  uint32_t n = 0;
  kiln_walk_pre(func, count_op, &n);
  if (lower_shuffles(&s, n)) demote_block(&s, body);
  if (!s.err && analyze(&s) && transfer(&s) && analyze(&s)) {
    fission_block(&s, body);
    if (!s.err) resolve_ids(&s);
  }
  if (!s.err && (s.seg.oom || s.vary.oom || s.bc.oom || s.loops.oom)) fail(&s, func, "out of memory");
  pmap_free(&s.seg);
  pmap_free(&s.vary);
  pmap_free(&s.bc);
  pmap_free(&s.loops);
  free(s.slots.ops);
  return s.err;
}

static kiln_walk_result leftover(kiln_op *op, void *user) {
  kiln_op **bad = user;
  if (op->kind == KILN_OP_HAL_INTERFACE_THREAD_ID || op->kind == KILN_OP_HAL_INTERFACE_BARRIER ||
      op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE || op->kind == KILN_OP_HAL_INTERFACE_SHUFFLE) {
    *bad = op;
    return KILN_WALK_INTERRUPT;
  }
  return KILN_WALK_ADVANCE;
}

kiln_error *kiln_codegen_gpu_simt_to_loops(kiln_op *inner, void *user) {
  (void)user;
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    if (!gpu_is_kernel(f)) continue;
    kiln_error *err = simt_kernel(f);
    if (err) return err;
    kiln_op *bad = NULL;
    kiln_walk_pre(f, leftover, &bad);
    if (bad) return kiln_op_error(bad, "simt-to-loops: left over after fission");
  }
  return NULL;
}

kiln_error *kiln_codegen_gpu_add_simt_variant(kiln_op *var, kiln_op **out) {
  kiln_context *c = kiln_op_context(var);
  kiln_value_map map;
  memset(&map, 0, sizeof map);
  kiln_op *copy = kiln_op_clone(var, &map);
  kiln_block_insert_after(var, copy);
  char name[256];
  snprintf(name, sizeof name, "simt_cpu_%s", kiln_symbol_name(var));
  kiln_op_set_attr(copy, "sym_name", kiln_attr_string(c, name, strlen(name)));
  kiln_op_set_attr(copy, "target", kiln_attr_string(c, "llvm-cpu", 8));
  *out = copy;
  kiln_block *vb = copy->regions[0].first;
  for (kiln_op *inner = vb ? vb->first : NULL; inner; inner = inner->next)
    if (inner->kind == KILN_OP_BUILTIN_MODULE) return kiln_codegen_gpu_simt_to_loops(inner, NULL);
  return NULL;
}
