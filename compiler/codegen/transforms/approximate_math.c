/* approximate-math: replaces the math ops listed in approx_ops.def, on
 * f32/f64 scalars and vectors, by arith expansions (approx_*.c), so no
 * libm call can reach a no-libc executable. Ops on other types (tensors,
 * f16) are left for earlier stages to lower and are reported by the
 * translation if they remain. Some expansions depend on whether the
 * target fuses multiply-adds (target_fuses): f32 erf is computed in f32
 * only where it does. Takes: verified IR. Guarantees: verified IR
 * without those ops on f32/f64 scalars and vectors. */
#include "approx.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether an explicit llvm-cpu spec ("x86_64+avx2+fma", "aarch64") fuses
 * llvm.fmuladd: x86-64 only with FMA (avx512f implies it; avx2 does not),
 * aarch64 and riscv64 (F/D) always. */
static bool spec_fuses(const char *spec) {
  if (strncmp(spec, "aarch64", 7) == 0 || strncmp(spec, "riscv64", 7) == 0) return true;
  if (strncmp(spec, "x86_64", 6) != 0) return false;
  for (const char *p = spec + 6; *p == '+';) {
    size_t n = strcspn(++p, "+");
    if ((n == 3 && strncmp(p, "fma", 3) == 0) || (n == 7 && strncmp(p, "avx512f", 7) == 0)) return true;
    p += n;
  }
  return false;
}

/* Whether the module's target fuses math.fma (llvm.fmuladd): its
 * variant's target, else its kiln.target, else the host (masked by
 * KILN_CPU_FEATURES as llvm_cpu's host target is); NVPTX always. Unknown
 * targets: no, so expansions keep bounds that hold with a separate
 * multiply and add. */
static bool target_fuses(const kiln_op *module) {
  const char *t = NULL;
  const kiln_op *p = kiln_op_parent_op(module);
  if (p && p->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) {
    const kiln_attr *a = kiln_op_get_attr(p, "target");
    if (a && a->kind == KILN_ATTR_STRING) t = a->str;
  }
  if (!t) {
    const kiln_attr *a = kiln_op_get_attr(module, "kiln.target");
    t = a && a->kind == KILN_ATTR_STRING ? a->str : "llvm-cpu";
  }
  if (strncmp(t, "cuda", 4) == 0) return true;
  if (strncmp(t, "llvm-cpu", 8) != 0) return false;
  const char *spec = t[8] == ':' ? t + 9 : "host";
  if (strncmp(spec, "host", 4) != 0) return spec_fuses(spec);
#if defined(__x86_64__)
  __builtin_cpu_init();
  bool host = __builtin_cpu_supports("fma");
#elif defined(__aarch64__) || (defined(__riscv) && __riscv_xlen == 64)
  bool host = true;
#else
  bool host = false;
#endif
  const char *mask = getenv("KILN_CPU_FEATURES");
  return host && (!mask || !*mask || spec_fuses(mask));
}

static bool expandable(const kiln_op *op) {
  switch (op->kind) {
#define AP_UNARY(K, F) case KILN_OP_##K:
#define AP_BINARY(K, F) case KILN_OP_##K:
#include "approx_ops.def"
#undef AP_UNARY
#undef AP_BINARY
    break;
  default:
    return false;
  }
  const kiln_type *t = op->results[0].type;
  const kiln_type *e = kiln_type_elem_or_self(t);
  return (t->kind == KILN_TYPE_VECTOR || !kiln_type_is_shaped(t)) &&
         (e->kind == KILN_TYPE_F32 || e->kind == KILN_TYPE_F64);
}

/* The value of a splat constant (through a vector.broadcast), or NAN. */
static double splat_value(const kiln_value *v) {
  if (v->def && v->def->kind == KILN_OP_VECTOR_BROADCAST) v = kiln_op_operand(v->def, 0);
  const kiln_attr *c = kiln_value_constant(v);
  if (c && c->kind == KILN_ATTR_FLOAT) return c->f;
  if (c && c->kind == KILN_ATTR_DENSE && c->splat) return kiln_dense_get_float(c, 0);
  return NAN;
}

/* Whether exp's value only reaches divisors d + exp with a constant d >= 1
 * (1 / (1 + exp(-x)): a sigmoid, as the ONNX importer writes it), where
 * the exp's tails need no precision (ap.denominator). */
static bool only_denominator(const kiln_op *exp) {
  const kiln_value *e = &exp->results[0];
  if (!e->uses) return false;
  for (const kiln_use *u = e->uses; u; u = u->next) {
    const kiln_op *add = u->owner;
    if (add->kind != KILN_OP_ARITH_ADDF || !(splat_value(kiln_op_operand(add, 1 - u->index)) >= 1.0))
      return false;
    const kiln_value *s = &add->results[0];
    if (!s->uses) return false;
    for (const kiln_use *w = s->uses; w; w = w->next)
      if (w->owner->kind != KILN_OP_ARITH_DIVF || w->index != 1) return false;
  }
  return true;
}

/* y * (1 / d), the quotient q read only there (SiLU's x * sigmoid(x)),
 * as y / d: one op and one rounding less. */
static void fold_product(kiln_op *q) {
  if (q->kind != KILN_OP_ARITH_DIVF || splat_value(kiln_op_operand(q, 0)) != 1.0 ||
      !kiln_value_has_one_use(&q->results[0]))
    return;
  kiln_use *u = q->results[0].uses;
  kiln_op *m = u->owner;
  if (m->kind != KILN_OP_ARITH_MULF || kiln_op_operand(m, 1 - u->index) == &q->results[0]) return;
  kiln_builder b = kiln_builder_before(m);
  b.loc = m->loc;
  kiln_value *ops[2] = {kiln_op_operand(m, 1 - u->index), kiln_op_operand(q, 1)};
  const kiln_type *t = m->results[0].type;
  kiln_value *r = kiln_op_result(kiln_build(&b, KILN_OP_ARITH_DIVF, 2, ops, 1, &t, NULL), 0);
  kiln_value_replace_all_uses(&m->results[0], r);
  kiln_op_erase(m);
  kiln_op_erase(q);
}

/* A sigmoid's denominators c + e, e = p * s the expansion of its exp
 * (ap_exp's last product, only_denominator's adds), as fma(p, s, c): one
 * op and one rounding less; then their quotients' products (fold_product). */
static void fold_denominators(kiln_value *e) {
  kiln_op *mul = e->def;
  if (!mul || mul->kind != KILN_OP_ARITH_MULF) return;
  for (kiln_use *u = e->uses, *next; u; u = next) {
    next = u->next;
    kiln_op *add = u->owner;
    kiln_builder b = kiln_builder_before(add);
    b.loc = add->loc;
    kiln_value *ops[3] = {kiln_op_operand(mul, 0), kiln_op_operand(mul, 1), kiln_op_operand(add, 1 - u->index)};
    const kiln_type *t = e->type;
    kiln_value *d = kiln_op_result(kiln_build(&b, KILN_OP_MATH_FMA, 3, ops, 1, &t, NULL), 0);
    kiln_value_replace_all_uses(&add->results[0], d);
    kiln_op_erase(add);
    for (kiln_use *w = d->uses, *wn; w; w = wn) {
      wn = w->next;
      fold_product(w->owner);
    }
  }
  if (!kiln_value_has_uses(e)) kiln_op_erase(mul);
}

static kiln_value *expand(ap *a, kiln_op *op) {
  /* exp(negf x) from x: one negation less (a sigmoid's 1 / (1 + exp(-x))) */
  kiln_op *arg = kiln_op_operand(op, 0)->def;
  if (op->kind == KILN_OP_MATH_EXP && arg && arg->kind == KILN_OP_ARITH_NEGF)
    return ap_exp_neg(a, kiln_op_operand(arg, 0));
  switch (op->kind) {
#define AP_UNARY(K, F) case KILN_OP_##K: return F(a, kiln_op_operand(op, 0));
#define AP_BINARY(K, F) case KILN_OP_##K: return F(a, kiln_op_operand(op, 0), kiln_op_operand(op, 1));
#include "approx_ops.def"
#undef AP_UNARY
#undef AP_BINARY
  default: return NULL;
  }
}

kiln_error *kiln_approximate_math(kiln_op *module) {
  kiln_op **ops;
  size_t n;
  if (!kiln_collect_ops(module, true, expandable, &ops, &n))
    return kiln_error_new("approximate-math: out of memory");
  bool fused = n && target_fuses(module);
  for (size_t i = 0; i < n; i++) {
    kiln_op *op = ops[i];
    ap a;
    ap_init(&a, op, op->results[0].type);
    a.fused = fused;
    a.denominator = op->kind == KILN_OP_MATH_EXP && only_denominator(op);
    kiln_op *arg = kiln_op_operand(op, 0)->def;
    kiln_value *r = expand(&a, op);
    kiln_value_replace_all_uses(&op->results[0], r);
    kiln_op_erase(op);
    if (a.denominator) fold_denominators(r);
    /* a negation whose only reader was an exp taking it in (ap_exp_neg) */
    if (arg && arg->kind == KILN_OP_ARITH_NEGF && !kiln_value_has_uses(&arg->results[0])) kiln_op_erase(arg);
  }
  free(ops);
  return NULL;
}
