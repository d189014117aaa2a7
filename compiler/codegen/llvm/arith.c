/* arith to LLVM instructions (seed: "Arithmetic"), on scalars, 1-D vectors
 * (LLVM vectors) and n-D vectors (arrays of 1-D vectors, op applied per
 * row). Integer division helpers (ceildiv, floordiv) expand to the
 * sequences MLIR's arith-expand produces; maximumf/minimumf use LLVM's
 * NaN-propagating intrinsics, maxnumf/minnumf the IEEE maxnum/minnum. */
#include "tl_internal.h"

#include <string.h>

/* ---- constants ---- */
static LLVMValueRef scalar_const(tl *t, LLVMTypeRef ty, const kiln_type *kt,
                                 const kiln_attr *a, int64_t i) {
  if (kiln_type_is_float(kt)) {
    double v = a->kind == KILN_ATTR_DENSE ? kiln_dense_get_float(a, i) : a->f;
    return LLVMConstReal(ty, v);
  }
  int64_t v = a->kind == KILN_ATTR_DENSE ? kiln_dense_get_int(a, i) : a->i;
  return LLVMConstInt(ty, (unsigned long long)v, 1);
}

/* Builds rows [row*len, row*len+len) of a dense attribute as a vector. */
static LLVMValueRef dense_part(tl *t, LLVMTypeRef et, const kiln_type *kt,
                               const kiln_attr *a, int64_t first, unsigned len) {
  LLVMValueRef *e = kiln_alloc(t->kctx, len * sizeof *e);
  for (unsigned i = 0; i < len; i++) e[i] = scalar_const(t, et, kt, a, first + i);
  return LLVMConstVector(e, len);
}

static LLVMValueRef dense_const(tl *t, LLVMTypeRef ty, const kiln_type *vt,
                                const kiln_attr *a, uint32_t dim, int64_t first) {
  if (dim + 1 == vt->rank)
    return dense_part(t, LLVMGetElementType(ty), vt->elem, a, first, (unsigned)vt->shape[dim]);
  LLVMTypeRef inner = LLVMGetElementType(ty);
  int64_t stride = 1;
  for (uint32_t i = dim + 1; i < vt->rank; i++) stride *= vt->shape[i];
  unsigned n = (unsigned)vt->shape[dim];
  LLVMValueRef *e = kiln_alloc(t->kctx, n * sizeof *e);
  for (unsigned i = 0; i < n; i++) e[i] = dense_const(t, inner, vt, a, dim + 1, first + i * stride);
  return LLVMConstArray2(inner, e, n);
}

static void constant(tl *t, kiln_op *op) {
  const kiln_attr *a = kiln_op_get_attr(op, "value");
  const kiln_type *rt = op->results[0].type;
  LLVMTypeRef ty = tl_type(t, rt);
  if (!a || !ty) {
    tl_fail(t, op, "constant of a type that cannot be translated");
    return;
  }
  LLVMValueRef v;
  if (rt->kind == KILN_TYPE_VECTOR) {
    if (a->kind != KILN_ATTR_DENSE) {
      tl_fail(t, op, "vector constant must be dense");
      return;
    }
    v = dense_const(t, ty, rt, a, 0, 0);
  } else if (a->kind == KILN_ATTR_INTEGER || a->kind == KILN_ATTR_BOOL || a->kind == KILN_ATTR_FLOAT) {
    v = scalar_const(t, ty, rt, a, 0);
  } else {
    tl_fail(t, op, "unsupported constant attribute");
    return;
  }
  tl_set(t, &op->results[0], v);
}

/* ---- n-D vectors ---- */
LLVMValueRef tl_map_parts(tl *t, kiln_op *op, LLVMValueRef *operands,
                          unsigned n, const kiln_type *result_type,
                          tl_part_fn fn) {
  LLVMTypeRef rt = tl_type(t, result_type);
  if (!rt) return tl_fail(t, op, "result type cannot be translated");
  if (LLVMGetTypeKind(rt) != LLVMArrayTypeKind) return fn(t, op, operands, rt);
  LLVMValueRef r = LLVMGetUndef(rt);
  unsigned len = (unsigned)LLVMGetArrayLength2(rt);
  LLVMValueRef parts[4];
  if (n > 4) return tl_fail(t, op, "too many operands for a per-row vector op");
  const kiln_type *inner = result_type->rank > 1
      ? kiln_type_vector(t->kctx, result_type->rank - 1, result_type->shape + 1, result_type->elem)
      : result_type;
  for (unsigned i = 0; i < len; i++) {
    for (unsigned k = 0; k < n; k++) {
      LLVMTypeRef ot = LLVMTypeOf(operands[k]);
      parts[k] = LLVMGetTypeKind(ot) == LLVMArrayTypeKind
                     ? LLVMBuildExtractValue(t->b, operands[k], i, "") : operands[k];
    }
    LLVMValueRef p = tl_map_parts(t, op, parts, n, inner, fn);
    if (!p) return NULL;
    r = LLVMBuildInsertValue(t->b, r, p, i, "");
  }
  return r;
}

LLVMValueRef tl_splat(tl *t, LLVMValueRef s, LLVMTypeRef vt) {
  unsigned n = LLVMGetVectorSize(vt);
  LLVMValueRef v = LLVMBuildInsertElement(t->b, LLVMGetUndef(vt), s, LLVMConstInt(t->i32, 0, 0), "");
  LLVMValueRef zero = LLVMConstNull(LLVMVectorType(t->i32, n));
  return LLVMBuildShuffleVector(t->b, v, LLVMGetUndef(vt), zero, "");
}

/* ---- elementwise ops on one scalar or 1-D part ---- */
static LLVMValueRef fmf(tl *t, kiln_op *op, LLVMValueRef v) {
  const kiln_attr *fm = kiln_op_get_attr(op, "fastmath");
  if (!fm || fm->kind != KILN_ATTR_OPAQUE || !LLVMIsAInstruction(v) || !LLVMCanValueUseFastMathFlags(v))
    return v;
  /* "fastmath<nsz,contract>": the flags between the brackets, each a
   * whole word ("fastmath" itself is no "fast") */
  static const struct {
    const char *name;
    LLVMFastMathFlags flag;
  } flags[] = {{"fast", LLVMFastMathAll},           {"reassoc", LLVMFastMathAllowReassoc},
               {"nnan", LLVMFastMathNoNaNs},         {"ninf", LLVMFastMathNoInfs},
               {"nsz", LLVMFastMathNoSignedZeros},   {"arcp", LLVMFastMathAllowReciprocal},
               {"contract", LLVMFastMathAllowContract}, {"afn", LLVMFastMathApproxFunc}};
  const char *s = memchr(fm->str, '<', fm->len), *end = fm->str + fm->len;
  LLVMFastMathFlags f = 0;
  while (s && ++s < end) {
    size_t n = strcspn(s, ",>");
    if (n > (size_t)(end - s)) n = (size_t)(end - s);
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
      if (strlen(flags[i].name) == n && memcmp(flags[i].name, s, n) == 0) f |= flags[i].flag;
    s += n;
    if (s >= end || *s != ',') break;
  }
  LLVMSetFastMathFlags(v, f);
  return v;
}

/* A constant of (scalar or vector) type ty. */
static LLVMValueRef konst(tl *t, LLVMTypeRef ty, int64_t v) {
  if (LLVMGetTypeKind(ty) != LLVMVectorTypeKind) return LLVMConstInt(ty, (unsigned long long)v, 1);
  unsigned n = LLVMGetVectorSize(ty);
  LLVMValueRef s = LLVMConstInt(LLVMGetElementType(ty), (unsigned long long)v, 1);
  LLVMValueRef e[64];
  if (n > 64) return tl_splat(t, s, ty);
  for (unsigned i = 0; i < n; i++) e[i] = s;
  return LLVMConstVector(e, n);
}

static LLVMValueRef ceildiv_s(tl *t, LLVMValueRef a, LLVMValueRef b) {
  /* q = a / b; q + (a % b != 0 && (a < 0) == (b < 0)) */
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef z = konst(t, ty, 0);
  LLVMValueRef q = LLVMBuildSDiv(t->b, a, b, ""), r = LLVMBuildSRem(t->b, a, b, "");
  LLVMValueRef nz = LLVMBuildICmp(t->b, LLVMIntNE, r, z, "");
  LLVMValueRef same = LLVMBuildICmp(t->b, LLVMIntEQ, LLVMBuildICmp(t->b, LLVMIntSLT, a, z, ""),
                                    LLVMBuildICmp(t->b, LLVMIntSLT, b, z, ""), "");
  LLVMValueRef inc = LLVMBuildZExt(t->b, LLVMBuildAnd(t->b, nz, same, ""), ty, "");
  return LLVMBuildAdd(t->b, q, inc, "");
}

static LLVMValueRef floordiv_s(tl *t, LLVMValueRef a, LLVMValueRef b) {
  /* q = a / b; q - (a % b != 0 && (a < 0) != (b < 0)) */
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef z = konst(t, ty, 0);
  LLVMValueRef q = LLVMBuildSDiv(t->b, a, b, ""), r = LLVMBuildSRem(t->b, a, b, "");
  LLVMValueRef nz = LLVMBuildICmp(t->b, LLVMIntNE, r, z, "");
  LLVMValueRef diff = LLVMBuildICmp(t->b, LLVMIntNE, LLVMBuildICmp(t->b, LLVMIntSLT, a, z, ""),
                                    LLVMBuildICmp(t->b, LLVMIntSLT, b, z, ""), "");
  LLVMValueRef dec = LLVMBuildZExt(t->b, LLVMBuildAnd(t->b, nz, diff, ""), ty, "");
  return LLVMBuildSub(t->b, q, dec, "");
}

static LLVMValueRef ceildiv_u(tl *t, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef ty = LLVMTypeOf(a);
  LLVMValueRef q = LLVMBuildUDiv(t->b, a, b, ""), r = LLVMBuildURem(t->b, a, b, "");
  LLVMValueRef nz = LLVMBuildICmp(t->b, LLVMIntNE, r, konst(t, ty, 0), "");
  return LLVMBuildAdd(t->b, q, LLVMBuildZExt(t->b, nz, ty, ""), "");
}

static const LLVMIntPredicate icmp_preds[] = {
    LLVMIntEQ, LLVMIntNE, LLVMIntSLT, LLVMIntSLE, LLVMIntSGT,
    LLVMIntSGE, LLVMIntULT, LLVMIntULE, LLVMIntUGT, LLVMIntUGE};
/* MLIR's cmpf predicate order (false, oeq, ogt, oge, olt, ole, one, ord,
 * ueq, ugt, uge, ult, ule, une, uno, true) differs from LLVM's. */
static const LLVMRealPredicate fcmp_preds[] = {
    LLVMRealPredicateFalse, LLVMRealOEQ, LLVMRealOGT, LLVMRealOGE,
    LLVMRealOLT, LLVMRealOLE, LLVMRealONE, LLVMRealORD, LLVMRealUEQ,
    LLVMRealUGT, LLVMRealUGE, LLVMRealULT, LLVMRealULE, LLVMRealUNE,
    LLVMRealUNO, LLVMRealPredicateTrue};

static LLVMValueRef bin_intrinsic(tl *t, const char *name, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  return tl_call_intrinsic(t, name, LLVMTypeOf(a), args, 2);
}

static LLVMValueRef part(tl *t, kiln_op *op, LLVMValueRef *x, LLVMTypeRef rt) {
  LLVMBuilderRef b = t->b;
  LLVMValueRef a = x[0], c = op->num_operands > 1 ? x[1] : NULL;
  switch (op->kind) {
  case KILN_OP_ARITH_ADDF: return fmf(t, op, LLVMBuildFAdd(b, a, c, ""));
  case KILN_OP_ARITH_SUBF: return fmf(t, op, LLVMBuildFSub(b, a, c, ""));
  case KILN_OP_ARITH_MULF: return fmf(t, op, LLVMBuildFMul(b, a, c, ""));
  case KILN_OP_ARITH_DIVF: return fmf(t, op, LLVMBuildFDiv(b, a, c, ""));
  case KILN_OP_ARITH_REMF: return fmf(t, op, LLVMBuildFRem(b, a, c, ""));
  case KILN_OP_ARITH_NEGF: return fmf(t, op, LLVMBuildFNeg(b, a, ""));
  case KILN_OP_ARITH_MAXIMUMF: return fmf(t, op, bin_intrinsic(t, "llvm.maximum", a, c));
  case KILN_OP_ARITH_MINIMUMF: return fmf(t, op, bin_intrinsic(t, "llvm.minimum", a, c));
  case KILN_OP_ARITH_MAXNUMF: return fmf(t, op, bin_intrinsic(t, "llvm.maxnum", a, c));
  case KILN_OP_ARITH_MINNUMF: return fmf(t, op, bin_intrinsic(t, "llvm.minnum", a, c));
  case KILN_OP_ARITH_ADDI: return LLVMBuildAdd(b, a, c, "");
  case KILN_OP_ARITH_SUBI: return LLVMBuildSub(b, a, c, "");
  case KILN_OP_ARITH_MULI: return LLVMBuildMul(b, a, c, "");
  case KILN_OP_ARITH_DIVSI: return LLVMBuildSDiv(b, a, c, "");
  case KILN_OP_ARITH_DIVUI: return LLVMBuildUDiv(b, a, c, "");
  case KILN_OP_ARITH_REMSI: return LLVMBuildSRem(b, a, c, "");
  case KILN_OP_ARITH_REMUI: return LLVMBuildURem(b, a, c, "");
  case KILN_OP_ARITH_CEILDIVSI: return ceildiv_s(t, a, c);
  case KILN_OP_ARITH_CEILDIVUI: return ceildiv_u(t, a, c);
  case KILN_OP_ARITH_FLOORDIVSI: return floordiv_s(t, a, c);
  case KILN_OP_ARITH_ANDI: return LLVMBuildAnd(b, a, c, "");
  case KILN_OP_ARITH_ORI: return LLVMBuildOr(b, a, c, "");
  case KILN_OP_ARITH_XORI: return LLVMBuildXor(b, a, c, "");
  case KILN_OP_ARITH_SHLI: return LLVMBuildShl(b, a, c, "");
  case KILN_OP_ARITH_SHRSI: return LLVMBuildAShr(b, a, c, "");
  case KILN_OP_ARITH_SHRUI: return LLVMBuildLShr(b, a, c, "");
  case KILN_OP_ARITH_MAXSI: return bin_intrinsic(t, "llvm.smax", a, c);
  case KILN_OP_ARITH_MINSI: return bin_intrinsic(t, "llvm.smin", a, c);
  case KILN_OP_ARITH_MAXUI: return bin_intrinsic(t, "llvm.umax", a, c);
  case KILN_OP_ARITH_MINUI: return bin_intrinsic(t, "llvm.umin", a, c);
  case KILN_OP_ARITH_CMPI:
  case KILN_OP_ARITH_CMPF: {
    const kiln_attr *p = kiln_op_get_attr(op, "predicate");
    int64_t k = p && p->kind == KILN_ATTR_INTEGER ? p->i : -1;
    if (op->kind == KILN_OP_ARITH_CMPI) {
      if (k < 0 || k > 9) return tl_fail(t, op, "invalid predicate");
      return LLVMBuildICmp(b, icmp_preds[k], a, c, "");
    }
    if (k < 0 || k > 15) return tl_fail(t, op, "invalid predicate");
    return fmf(t, op, LLVMBuildFCmp(b, fcmp_preds[k], a, c, ""));
  }
  case KILN_OP_ARITH_SELECT: return LLVMBuildSelect(b, a, x[1], x[2], "");
  case KILN_OP_ARITH_EXTF: return LLVMBuildFPExt(b, a, rt, "");
  case KILN_OP_ARITH_TRUNCF: return LLVMBuildFPTrunc(b, a, rt, "");
  case KILN_OP_ARITH_EXTSI: return LLVMBuildSExt(b, a, rt, "");
  case KILN_OP_ARITH_EXTUI: return LLVMBuildZExt(b, a, rt, "");
  case KILN_OP_ARITH_TRUNCI: return LLVMBuildTrunc(b, a, rt, "");
  case KILN_OP_ARITH_SITOFP: return LLVMBuildSIToFP(b, a, rt, "");
  case KILN_OP_ARITH_UITOFP: return LLVMBuildUIToFP(b, a, rt, "");
  case KILN_OP_ARITH_FPTOSI: return LLVMBuildFPToSI(b, a, rt, "");
  case KILN_OP_ARITH_FPTOUI: return LLVMBuildFPToUI(b, a, rt, "");
  case KILN_OP_ARITH_INDEX_CAST: return LLVMBuildIntCast2(b, a, rt, 1, "");
  case KILN_OP_ARITH_INDEX_CASTUI: return LLVMBuildIntCast2(b, a, rt, 0, "");
  case KILN_OP_ARITH_BITCAST: return LLVMBuildBitCast(b, a, rt, "");
  default: return tl_fail(t, op, "unhandled arith op");
  }
}

void tl_arith(tl *t, kiln_op *op) {
  if (op->kind == KILN_OP_ARITH_CONSTANT) {
    constant(t, op);
    return;
  }
  LLVMValueRef x[3];
  if (op->num_operands > 3) {
    tl_fail(t, op, "too many operands");
    return;
  }
  for (uint32_t i = 0; i < op->num_operands; i++)
    if (!(x[i] = tl_operand(t, op, i))) return;
  const kiln_type *rt = op->results[0].type;
  if (rt->kind == KILN_TYPE_TENSOR || rt->kind == KILN_TYPE_MEMREF) {
    tl_fail(t, op, "elementwise ops on tensors must be lowered to loops first");
    return;
  }
  LLVMValueRef r = tl_map_parts(t, op, x, op->num_operands, rt, part);
  if (r) tl_set(t, &op->results[0], r);
}
