/* simt-to-loops: a GPU kernel as a CPU kernel (SIMT on CPU, loop fission
 * at barriers as POCL and CuPBoP do).
 *
 * Takes: a kernel module after distribute-to-threads and lower-to-loops:
 * thread.id / workgroup.size and barriers only at the top level of each
 * kernel's body (barriers inside control flow are an error). Guarantees:
 * the body is cut at every barrier into segments; in each segment the ops
 * that depend on the thread id (transitively) or have side effects run
 * inside one `scf.for %t = 0 to T` (T = kiln.launch block_size[0]),
 * thread.id is %t, workgroup.size is T (1 in y and z); pure ops that do
 * not depend on the thread stay before the loop, as do memref.alloca
 * (workgroup-shared on CPU). A thread-dependent value used across a
 * barrier is an error (it would need per-thread storage). No thread.id,
 * workgroup.size or barrier is left; one CPU call runs a whole block. */
#include "gpu_internal.h"

#include <stdlib.h>
#include <string.h>

#include "dialects/hal_interface.h"

typedef struct {
  kiln_op **ops;
  bool *dep;
  uint32_t n;
} seg_state;

static int index_of(seg_state *s, const kiln_op *op) {
  for (uint32_t i = 0; i < s->n; i++)
    if (s->ops[i] == op) return (int)i;
  return -1;
}

static kiln_walk_result uses_thread(kiln_op *op, void *user) {
  seg_state *s = user;
  if (op->kind == KILN_OP_HAL_INTERFACE_THREAD_ID) return KILN_WALK_INTERRUPT;
  for (uint32_t i = 0; i < op->num_operands; i++) {
    kiln_value *v = kiln_op_operand(op, i);
    int k = v->def ? index_of(s, v->def) : -1;
    if (k >= 0 && s->dep[k]) return KILN_WALK_INTERRUPT;
  }
  return KILN_WALK_ADVANCE;
}

static kiln_error *fission(kiln_op *func) {
  kiln_block *body = func->regions[0].first;
  if (body->next) return cg_op_error(func, "simt-to-loops: kernels with several blocks are not supported");
  int64_t threads = gpu_block_threads(func);
  kiln_error *err = NULL;
  uint32_t n = 0;
  for (kiln_op *o = body->first; o; o = o->next) n++;
  seg_state s = {calloc(n + 1, sizeof(kiln_op *)), calloc(n + 1, sizeof(bool)), 0};
  int *seg = calloc(n + 1, sizeof(int));
  if (!s.ops || !s.dep || !seg) {
    err = kiln_error_new("out of memory");
    goto done;
  }
  /* Classify: segment number and thread dependence, in order. */
  int cur = 0;
  for (kiln_op *o = body->first; o; o = o->next) {
    s.ops[s.n] = o;
    seg[s.n] = cur;
    if (o->kind == KILN_OP_HAL_INTERFACE_BARRIER) cur++;
    bool dep = !kiln_walk_pre(o, uses_thread, &s);
    if (!kiln_op_has_flag(o, KILN_OPF_PURE) && !kiln_op_has_flag(o, KILN_OPF_TERMINATOR) &&
        o->kind != KILN_OP_MEMREF_ALLOCA && o->kind != KILN_OP_HAL_INTERFACE_BARRIER)
      dep = true;
    s.dep[s.n++] = dep;
  }
  /* A thread-dependent value must not cross a barrier. */
  for (uint32_t i = 0; i < s.n && !err; i++) {
    if (!s.dep[i]) continue;
    for (uint32_t r = 0; r < s.ops[i]->num_results; r++)
      for (kiln_use *u = s.ops[i]->results[r].uses; u; u = u->next) {
        kiln_op *user = u->owner;
        while (user && kiln_op_parent_op(user) != func) user = kiln_op_parent_op(user);
        int k = user ? index_of(&s, user) : -1;
        if (k >= 0 && seg[k] != seg[i] && !err)
          err = cg_op_error(s.ops[i], "simt-to-loops: a per-thread value is used across a barrier");
      }
  }
  if (err) goto done;
  /* One loop per segment, placed at its first thread-dependent op. */
  kiln_op *loop = NULL;
  kiln_builder lb;
  int loop_seg = -1;
  for (uint32_t i = 0; i < s.n; i++) {
    kiln_op *o = s.ops[i];
    if (o->kind == KILN_OP_HAL_INTERFACE_BARRIER) {
      kiln_op_erase(o);
      continue;
    }
    if (kiln_op_has_flag(o, KILN_OPF_TERMINATOR)) continue;
    if (!s.dep[i]) {
      /* Thread-independent: before this segment's loop, so the loop body
       * may use it. */
      if (loop && loop_seg == seg[i]) kiln_op_move_before(o, loop);
      continue;
    }
    if (!loop || loop_seg != seg[i]) {
      kiln_builder b = kiln_builder_before(o);
      b.loc = o->loc;
      loop = cg_for(&b, cg_index(&b, 0), cg_index(&b, threads), cg_index(&b, 1), 0, NULL, &lb);
      loop_seg = seg[i];
    }
    kiln_op_remove(o);
    kiln_builder_insert(&lb, o);
    if (o->kind == KILN_OP_HAL_INTERFACE_THREAD_ID) {
      kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_for_iv(loop));
      kiln_op_erase(o);
    }
  }
  /* Block size: constants (any thread.id nested deeper is an error). */
  for (uint32_t i = 0; i < s.n; i++) {
    kiln_op *o = s.ops[i];
    if (o->kind != KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE) continue;
    kiln_builder b = kiln_builder_before(o);
    b.loc = o->loc;
    int64_t d = kiln_hal_interface_selector(o);
    kiln_value_replace_all_uses(kiln_op_result(o, 0), cg_index(&b, d == 0 ? threads : 1));
    kiln_op_erase(o);
  }
done:
  free(s.ops);
  free(s.dep);
  free(seg);
  return err;
}

static kiln_walk_result leftover(kiln_op *op, void *user) {
  kiln_op **bad = user;
  if (op->kind == KILN_OP_HAL_INTERFACE_THREAD_ID || op->kind == KILN_OP_HAL_INTERFACE_BARRIER ||
      op->kind == KILN_OP_HAL_INTERFACE_WORKGROUP_SIZE) {
    *bad = op;
    return KILN_WALK_INTERRUPT;
  }
  return KILN_WALK_ADVANCE;
}

kiln_error *kiln_codegen_gpu_simt_to_loops(kiln_op *inner) {
  for (kiln_op *f = kiln_module_body(inner)->first; f; f = f->next) {
    if (!gpu_is_kernel(f)) continue;
    kiln_error *err = fission(f);
    if (err) return err;
    kiln_op *bad = NULL;
    kiln_walk_pre(f, leftover, &bad);
    if (bad)
      return cg_op_error(bad, "simt-to-loops: only supported at the top level of a kernel");
  }
  return NULL;
}
