/* scf-to-cf: structured control flow to a CFG of blocks and cf branches,
 * innermost ops first.
 *   scf.for %iv = %lb to %ub step %s iter_args(%a = %init)
 *     before:  ... ; cf.br ^cond(%lb, %init)
 *     ^cond(%iv, %a):  %c = arith.cmpi slt, %iv, %ub
 *                      cf.cond_br %c, ^body(%iv, %a), ^cont(%a)
 *     ^body(%iv', %a'): <body>; %n = arith.addi %iv', %s; cf.br ^cond(%n, %y)
 *     ^cont(%r):  the ops after the loop; uses of the results become %r
 *   scf.if %c -> then/else blocks each branching to ^cont(results).
 * Takes: verified IR. Guarantees: no scf op remains; the new blocks sit
 * right after the block that held the op, in dominance order, so a
 * translation that walks blocks in order sees definitions first.
 *
 * The loop structure ends here, so the one fact LLVM needs about it is
 * recorded here too: the latch branch of a loop that holds another loop
 * and would pass CT_UNROLL_BUDGET ops if flattened, counting inner loops
 * flat where they fit the budget themselves, carries `kiln.no_unroll`,
 * which the LLVM translation turns into llvm.loop.unroll.disable. LLVM
 * otherwise flattens whole static nests now and then, one level after the
 * other (a 4x32x64 transpose became 24,700 instructions and seconds of
 * instruction selection); innermost loops, and small nests, stay LLVM's
 * to unroll. Small nests add up, though: a function that would pass
 * CT_KERNEL_BUDGET ops so has its largest flattened nests holding a loop
 * marked too until the rest fits (a concatenation's copy of 28 small
 * pieces is 28 such nests in one kernel). */
#include "codegen_transforms.h"

#include <stdlib.h>
#include <string.h>

static bool is_scf(const kiln_op *op) {
  return op->kind == KILN_OP_SCF_FOR || op->kind == KILN_OP_SCF_IF;
}

/* LLVM flattens a static loop whose trip count times body stays near its
 * full-unroll threshold (300 instructions, up to 4x with the savings it
 * expects); this budget, in Kiln ops, is of that order. */
#define CT_UNROLL_BUDGET 1024
#define CT_SIZE_CAP ((int64_t)1 << 40)
/* A function flattened past this many ops is straight-line code whose
 * instruction scheduling and register allocation grow faster than its
 * size (a DenseNet concat copying 28 pieces of 32 channels at 7x7
 * positions: 11,000 instructions out of O3, 8 s of code generation). */
#define CT_KERNEL_BUDGET 4096
#define CT_KERNEL_ROUNDS 8

static int64_t ct_sat_mul(int64_t a, int64_t b) {
  return a && b > CT_SIZE_CAP / a ? CT_SIZE_CAP : a * b;
}

/* Static trip count of an scf.for, or -1. */
static int64_t ct_trip_count(kiln_op *loop) {
  const kiln_attr *lb = kiln_value_constant(kiln_op_operand(loop, 0));
  const kiln_attr *ub = kiln_value_constant(kiln_op_operand(loop, 1));
  const kiln_attr *st = kiln_value_constant(kiln_op_operand(loop, 2));
  if (!lb || !ub || !st || lb->kind != KILN_ATTR_INTEGER || ub->kind != KILN_ATTR_INTEGER ||
      st->kind != KILN_ATTR_INTEGER || st->i <= 0)
    return -1;
  return ub->i > lb->i ? (ub->i - lb->i + st->i - 1) / st->i : 0;
}

/* The outermost loops of r that count as flattened and hold a loop, with
 * the ops that marking each kiln.no_unroll would save (LLVM then keeps
 * it a loop of its flattened body). */
typedef struct ct_nests {
  kiln_op **loop;
  int64_t *saving;
  uint32_t n, cap; /* out of memory, the rest are left out (kept as LLVM takes them) */
} ct_nests;

static void ct_push(ct_nests *c, kiln_op *loop, int64_t saving) {
  if (c->n == c->cap) {
    uint32_t cap = c->cap ? 2 * c->cap : 16;
    kiln_op **l = realloc(c->loop, cap * sizeof *l);
    if (l) c->loop = l;
    int64_t *s = l ? realloc(c->saving, cap * sizeof *s) : NULL;
    if (s) c->saving = s;
    if (!l || !s) return;
    c->cap = cap;
  }
  c->loop[c->n] = loop;
  c->saving[c->n++] = saving;
}

/* Ops in r as LLVM may leave them: a loop within the budget counts as
 * flattened (trips x body), a bigger one as a loop (its body once), and
 * a bigger one that holds a loop is marked kiln.no_unroll, since LLVM
 * may yet flatten it once its inner loops are (a dynamic trip count is
 * always bigger). A loop marked already counts as a loop. *has_loop: r
 * holds a loop. nests collects the flattened nests. */
static int64_t ct_mark_nests(kiln_context *ctx, kiln_region *r, bool *has_loop, ct_nests *nests) {
  int64_t n = 0;
  for (kiln_block *b = r->first; b; b = b->next)
    for (kiln_op *op = b->first; op; op = op->next) {
      int64_t body = 0;
      bool inner_loop = false;
      const uint32_t before = nests->n;
      for (uint32_t i = 0; i < op->num_regions; i++)
        body += ct_mark_nests(ctx, &op->regions[i], &inner_loop, nests);
      int64_t size = 1 + body;
      if (op->kind == KILN_OP_SCF_FOR) {
        const int64_t trips = ct_trip_count(op);
        const int64_t flat = ct_sat_mul(size, trips < 0 ? CT_SIZE_CAP : trips);
        if (flat <= CT_UNROLL_BUDGET && !kiln_op_get_attr(op, "kiln.no_unroll")) {
          /* the nests inside are flattened with it: it is the one to keep */
          nests->n = before;
          if (inner_loop) ct_push(nests, op, flat - size);
          size = flat;
        } else if (inner_loop) {
          kiln_op_set_attr(op, "kiln.no_unroll", kiln_attr_unit(ctx));
        }
        *has_loop = true;
      }
      *has_loop |= inner_loop;
      n = n + size > CT_SIZE_CAP ? CT_SIZE_CAP : n + size;
    }
  return n;
}

/* Index of the largest saving among c's first n. */
static uint32_t ct_largest(const ct_nests *c, uint32_t n) {
  uint32_t best = 0;
  for (uint32_t i = 1; i < n; i++)
    if (c->saving[i] > c->saving[best]) best = i;
  return best;
}

/* One function: the per-loop marks, then, while the function as LLVM may
 * leave it passes `budget` ops, its largest flattened nests are
 * kept loops (each round frees the nests inside the ones marked). */
static void ct_mark_function(kiln_context *ctx, kiln_op *func, int64_t budget) {
  ct_nests c = {0};
  for (int round = 0; round < CT_KERNEL_ROUNDS; round++) {
    c.n = 0;
    int64_t total = 0;
    bool any_loop = false;
    for (uint32_t i = 0; i < func->num_regions; i++) {
      const int64_t t = ct_mark_nests(ctx, &func->regions[i], &any_loop, &c);
      total = total + t > CT_SIZE_CAP ? CT_SIZE_CAP : total + t;
    }
    if (total <= budget || !c.n) break;
    for (uint32_t left = c.n; left && total > budget; left--) {
      const uint32_t i = ct_largest(&c, left);
      kiln_op_set_attr(c.loop[i], "kiln.no_unroll", kiln_attr_unit(ctx));
      total -= c.saving[i];
      c.loop[i] = c.loop[left - 1];
      c.saving[i] = c.saving[left - 1];
    }
  }
  free(c.loop);
  free(c.saving);
}

/* A GPU kernel's small nests run over one thread's values, which stay
 * in registers only when flattened: its budget is per loop only. */
static bool ct_gpu_kernel(const kiln_op *func) {
  const kiln_attr *l = kiln_op_get_attr(func, "kiln.launch");
  const kiln_attr *p = l && l->kind == KILN_ATTR_DICT ? kiln_dict_get(l, "pipeline") : NULL;
  return p && p->kind == KILN_ATTR_STRING && strncmp(p->str, "gpu-", 4) == 0;
}

static void ct_mark_all(kiln_context *ctx, kiln_op *op) {
  if (op->kind == KILN_OP_FUNC_FUNC) {
    ct_mark_function(ctx, op, ct_gpu_kernel(op) ? CT_SIZE_CAP : CT_KERNEL_BUDGET);
    return;
  }
  for (uint32_t i = 0; i < op->num_regions; i++)
    for (kiln_block *b = op->regions[i].first; b; b = b->next)
      for (kiln_op *o = b->first; o; o = o->next) ct_mark_all(ctx, o);
}

/* Inserts block x right after block a in a's region. */
static void insert_after(kiln_block *a, kiln_block *x) {
  kiln_region *r = a->parent;
  /* Detach the blocks after a, append x, re-attach them in order (the IR
   * API appends only). The detached blocks chain through a private list. */
  kiln_block *tail = NULL;
  while (r->last != a) {
    kiln_block *b = r->last;
    kiln_region_remove_block(b);
    b->next = tail;
    tail = b;
  }
  kiln_region_append_block(r, x);
  while (tail) {
    kiln_block *b = tail;
    tail = b->next;
    b->next = NULL;
    kiln_region_append_block(r, b);
  }
}

/* Moves the ops after `op` in its block into a new block inserted after
 * it; returns the new block. */
static kiln_block *split_after(kiln_context *ctx, kiln_op *op) {
  kiln_block *b = op->parent, *cont = kiln_block_create(ctx);
  insert_after(b, cont);
  while (op->next) {
    kiln_op *o = op->next;
    kiln_op_remove(o);
    kiln_block_append_op(cont, o);
  }
  return cont;
}

/* Moves region r's blocks after block `after`; returns the last moved. */
static kiln_block *move_region(kiln_region *r, kiln_block *after) {
  while (r->first) {
    kiln_block *b = r->first;
    kiln_region_remove_block(b);
    insert_after(after, b);
    after = b;
  }
  return after;
}

static kiln_op *branch(kiln_context *ctx, kiln_loc loc, kiln_block *dest,
                       uint32_t n, kiln_value *const *args) {
  kiln_op *br = kiln_op_create(ctx, KILN_OP_CF_BR, loc, n, args, 0, NULL, NULL, 0);
  kiln_op_set_successors(br, 1, &dest);
  return br;
}

static kiln_op *cond_branch(kiln_context *ctx, kiln_loc loc, kiln_value *c,
                            kiln_block *t, uint32_t nt, kiln_value *const *ta,
                            kiln_block *f, uint32_t nf, kiln_value *const *fa) {
  kiln_value **ops = kiln_alloc(ctx, (1 + nt + nf) * sizeof *ops);
  ops[0] = c;
  for (uint32_t i = 0; i < nt; i++) ops[1 + i] = ta[i];
  for (uint32_t i = 0; i < nf; i++) ops[1 + nt + i] = fa[i];
  int64_t seg[3] = {1, nt, nf};
  kiln_named_attr a = {kiln_intern_cstr(ctx, "operandSegmentSizes"),
                       kiln_attr_dense_array(ctx, kiln_type_int(ctx, 32), 3, seg, NULL)};
  kiln_op *br = kiln_op_create(ctx, KILN_OP_CF_COND_BR, loc, 1 + nt + nf, ops, 0, NULL,
                               kiln_attr_dict(ctx, 1, &a), 0);
  kiln_block *s[2] = {t, f};
  kiln_op_set_successors(br, 2, s);
  return br;
}

/* Replaces every scf.yield terminator among blocks [first, last] by a
 * branch built by mk (given the yielded values). */
typedef kiln_op *(*yield_fn)(kiln_context *ctx, kiln_op *yield, void *user);
static kiln_error *replace_yields(kiln_context *ctx, kiln_block *first, kiln_block *last,
                                  yield_fn mk, void *user) {
  for (kiln_block *b = first;; b = b->next) {
    kiln_op *t = kiln_block_terminator(b);
    if (t && t->kind == KILN_OP_SCF_YIELD) {
      kiln_op *br = mk(ctx, t, user);
      kiln_block_insert_before(t, br);
      kiln_op_erase(t);
    }
    if (b == last || !b->next) break;
  }
  return NULL;
}

static kiln_error *lower_for(kiln_context *ctx, kiln_op *op) {
  kiln_loc loc = op->loc;
  kiln_block *b = op->parent;
  uint32_t n = op->num_results;
  kiln_block *cont = split_after(ctx, op);
  for (uint32_t i = 0; i < n; i++) {
    kiln_value *r = kiln_block_add_arg(ctx, cont, op->results[i].type, loc);
    kiln_value_replace_all_uses(&op->results[i], r);
  }
  kiln_block *body = op->regions[0].first;
  if (!body || body->num_args != n + 1)
    return kiln_error_new("scf-to-cf: malformed scf.for body");
  /* ^cond(%iv, iters...) */
  kiln_block *cond = kiln_block_create(ctx);
  for (uint32_t i = 0; i <= n; i++) kiln_block_add_arg(ctx, cond, body->args[i]->type, loc);
  insert_after(b, cond);
  kiln_block *last = move_region(&op->regions[0], cond);
  /* Latches: yield v... -> %next = iv + step; br ^cond(%next, v...) */
  for (kiln_block *x = body;; x = x->next) {
    kiln_op *t = kiln_block_terminator(x);
    if (t && t->kind == KILN_OP_SCF_YIELD) {
      kiln_builder bl = kiln_builder_before(t);
      bl.loc = loc;
      kiln_value *ops2[2] = {body->args[0], kiln_op_operand(op, 2)};
      const kiln_type *ivt = body->args[0]->type;
      kiln_op *add = kiln_build(&bl, KILN_OP_ARITH_ADDI, 2, ops2, 1, &ivt, NULL);
      kiln_value **args = kiln_alloc(ctx, (n + 1) * sizeof *args);
      args[0] = kiln_op_result(add, 0);
      for (uint32_t i = 0; i < n; i++) args[i + 1] = kiln_op_operand(t, i);
      kiln_op *latch = branch(ctx, loc, cond, n + 1, args);
      if (kiln_op_get_attr(op, "kiln.no_unroll"))
        kiln_op_set_attr(latch, "kiln.no_unroll", kiln_attr_unit(ctx));
      kiln_block_insert_before(t, latch);
      kiln_op_erase(t);
    }
    if (x == last) break;
  }
  /* ^cond: cmpi slt + cond_br */
  kiln_builder cb = kiln_builder_at_end(ctx, cond);
  cb.loc = loc;
  kiln_value *cmp_ops[2] = {cond->args[0], kiln_op_operand(op, 1)};
  const kiln_type *i1 = kiln_type_int(ctx, 1);
  kiln_named_attr pa = {kiln_intern_cstr(ctx, "predicate"),
                        kiln_attr_int(ctx, kiln_type_int(ctx, 64), 2 /* slt */)};
  kiln_op *cmp = kiln_build(&cb, KILN_OP_ARITH_CMPI, 2, cmp_ops, 1, &i1, kiln_attr_dict(ctx, 1, &pa));
  kiln_block_append_op(cond, cond_branch(ctx, loc, kiln_op_result(cmp, 0), body, n + 1, cond->args,
                                         cont, n, cond->args + 1));
  /* Entry: br ^cond(%lb, inits...) */
  kiln_value **init = kiln_alloc(ctx, (n + 1) * sizeof *init);
  init[0] = kiln_op_operand(op, 0);
  for (uint32_t i = 0; i < n; i++) init[i + 1] = kiln_op_operand(op, 3 + i);
  kiln_block_insert_before(op, branch(ctx, loc, cond, n + 1, init));
  kiln_op_erase(op);
  return NULL;
}

typedef struct if_state {
  kiln_block *cont;
  kiln_loc loc;
} if_state;

static kiln_op *if_exit(kiln_context *ctx, kiln_op *y, void *user) {
  if_state *s = user;
  kiln_value **args = kiln_alloc(ctx, (y->num_operands + 1) * sizeof *args);
  for (uint32_t i = 0; i < y->num_operands; i++) args[i] = kiln_op_operand(y, i);
  return branch(ctx, s->loc, s->cont, y->num_operands, args);
}

static kiln_error *lower_if(kiln_context *ctx, kiln_op *op) {
  kiln_loc loc = op->loc;
  kiln_block *b = op->parent;
  kiln_block *cont = split_after(ctx, op);
  for (uint32_t i = 0; i < op->num_results; i++) {
    kiln_value *r = kiln_block_add_arg(ctx, cont, op->results[i].type, loc);
    kiln_value_replace_all_uses(&op->results[i], r);
  }
  if_state s = {cont, loc};
  kiln_block *then_first = op->regions[0].first, *else_first = op->regions[1].first;
  if (!then_first) return kiln_error_new("scf-to-cf: scf.if without a then block");
  kiln_block *then_last = move_region(&op->regions[0], b);
  replace_yields(ctx, then_first, then_last, if_exit, &s);
  kiln_block *false_dest = cont;
  /* An else region holding only an empty yield branches straight on. */
  bool trivial_else = !else_first || (else_first == op->regions[1].last && else_first->first &&
                                      else_first->first == else_first->last &&
                                      else_first->first->kind == KILN_OP_SCF_YIELD &&
                                      !else_first->first->num_operands);
  if (!trivial_else) {
    kiln_block *else_last = move_region(&op->regions[1], then_last);
    replace_yields(ctx, else_first, else_last, if_exit, &s);
    false_dest = else_first;
  }
  kiln_block_insert_before(op, cond_branch(ctx, loc, kiln_op_operand(op, 0), then_first, 0, NULL,
                                           false_dest, 0, NULL));
  kiln_op_erase(op);
  return NULL;
}

kiln_error *kiln_scf_to_cf(kiln_op *module) {
  kiln_op **ops;
  size_t n;
  if (!kiln_collect_ops(module, true, is_scf, &ops, &n)) return kiln_error_new("scf-to-cf: out of memory");
  kiln_context *ctx = kiln_op_context(module);
  /* Decided before anything is lowered: inner loops are CFG by the time
   * their outer loop is. */
  ct_mark_all(ctx, module);
  kiln_error *e = NULL;
  for (size_t i = 0; i < n && !e; i++)
    e = ops[i]->kind == KILN_OP_SCF_FOR ? lower_for(ctx, ops[i]) : lower_if(ctx, ops[i]);
  free(ops);
  return e;
}
