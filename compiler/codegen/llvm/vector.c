/* vector ops (seed: n-D vectors are arrays of 1-D LLVM vectors): load and
 * store move 1-D rows at linearized addresses (one row per leading index);
 * broadcast/splat build rows with insertelement + shufflevector;
 * extract/insert walk the arrays with extractvalue/insertvalue and the
 * last dim with extractelement/insertelement (dynamic positions only in
 * that last dim); fma is llvm.fmuladd per row; reduction is
 * llvm.vector.reduce.* (ordered for floats unless fastmath allows
 * reassociation) combined with the accumulator; 1-D minor-identity
 * transfers are plain loads/stores when in bounds, else llvm.masked.load
 * (padding in the masked-off lanes) / llvm.masked.store with lane k live
 * iff index + k < size of the innermost memref dim. A 1-D load/store's
 * `alignment` attribute (bytes, a power of two) raises the access's
 * alignment above the element's. */
#include "tl_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dialects/vector.h"

static unsigned elem_align(tl *t, const kiln_type *elem) {
  uint64_t s = tl_elem_size(t, elem);
  return s && s <= 16 ? (unsigned)s : 1;
}

/* i1 lives in memory as one byte per element (as scalar loads and stores
 * of i1 read and write it), but an LLVM <N x i1> in memory is N packed
 * bits: vectors of i1 move as <N x i8> and convert (a boolean mask
 * constant read by a vectorized epilogue). */
static bool is_i1(const kiln_type *elem) { return elem->kind == KILN_TYPE_INTEGER && elem->width == 1; }

static LLVMValueRef bytes_of(tl *t, LLVMValueRef v, unsigned n) {
  return LLVMBuildZExt(t->b, v, LLVMVectorType(LLVMInt8TypeInContext(t->c), n), "");
}

static LLVMValueRef bools_of(tl *t, LLVMValueRef v, unsigned n) {
  return LLVMBuildICmp(t->b, LLVMIntNE, v, LLVMConstNull(LLVMVectorType(LLVMInt8TypeInContext(t->c), n)), "");
}

/* Loads (x == NULL) or stores rows of vector type vt at memref d[idx]. */
static LLVMValueRef rows(tl *t, kiln_op *op, LLVMValueRef d, const kiln_type *mt,
                         LLVMValueRef *idx, const kiln_type *vt, uint32_t dim,
                         LLVMValueRef x) {
  LLVMTypeRef ty = tl_type(t, vt);
  if (dim + 1 == vt->rank) {
    LLVMValueRef p = tl_elem_ptr(t, op, d, mt, idx);
    if (!p) return NULL;
    unsigned n = (unsigned)vt->shape[dim];
    bool b1 = is_i1(vt->elem);
    LLVMTypeRef et = b1 ? LLVMInt8TypeInContext(t->c) : tl_type(t, vt->elem);
    LLVMValueRef xs = x && b1 ? bytes_of(t, x, n) : x;
    LLVMValueRef v = x ? LLVMBuildStore(t->b, xs, p) : LLVMBuildLoad2(t->b, LLVMVectorType(et, n), p, "");
    /* A 1-D access may promise more (alignment attribute, bytes): NVPTX
     * emits ld/st .v4 only for 16-byte aligned vectors. */
    const kiln_attr *al = vt->rank == 1 ? kiln_op_get_attr(op, "alignment") : NULL;
    unsigned align = elem_align(t, vt->elem);
    if (al && al->kind == KILN_ATTR_INTEGER && al->i > align && al->i <= 4096 && !(al->i & (al->i - 1)))
      align = (unsigned)al->i;
    LLVMSetAlignment(v, align);
    return b1 && !x ? bools_of(t, v, n) : v;
  }
  /* The vector's dim `dim` walks memref dim mt->rank - vt->rank + dim. */
  uint32_t md = mt->rank - vt->rank + dim;
  LLVMValueRef saved = idx[md];
  LLVMTypeRef at = ty;
  for (uint32_t k = 0; k < dim; k++) at = LLVMGetElementType(at);
  LLVMValueRef r = x ? NULL : LLVMGetUndef(at);
  for (int64_t i = 0; i < vt->shape[dim]; i++) {
    idx[md] = i ? LLVMBuildAdd(t->b, saved, tl_i64(t, i), "") : saved;
    LLVMValueRef part = x ? LLVMBuildExtractValue(t->b, x, (unsigned)i, "") : NULL;
    LLVMValueRef v = rows(t, op, d, mt, idx, vt, dim + 1, part);
    if (!v) return NULL;
    if (!x) r = LLVMBuildInsertValue(t->b, r, v, (unsigned)i, "");
  }
  idx[md] = saved;
  return x ? saved : r;
}

static void load_store(tl *t, kiln_op *op) {
  bool store = op->kind == KILN_OP_VECTOR_STORE;
  uint32_t mi = store ? 1 : 0;
  const kiln_type *mt = kiln_op_operand(op, mi)->type;
  const kiln_type *vt = store ? kiln_op_operand(op, 0)->type : op->results[0].type;
  LLVMValueRef d = tl_operand(t, op, mi), idx[TL_MAX_RANK], x = NULL;
  if (!d || mt->rank > TL_MAX_RANK || !tl_type(t, vt)) {
    tl_fail(t, op, "unsupported vector or memref type");
    return;
  }
  if (vt->rank > 1 && vt->rank > mt->rank) {
    tl_fail(t, op, "an n-D vector needs as many memref dims");
    return;
  }
  for (uint32_t i = 0; i < mt->rank; i++)
    if (!(idx[i] = tl_operand(t, op, mi + 1 + i))) return;
  if (store && !(x = tl_operand(t, op, 0))) return;
  LLVMValueRef r = rows(t, op, d, mt, idx, vt, 0, x);
  if (r && !store) tl_set(t, &op->results[0], r);
}

/* Element k (row-major) of a value of vector type vt. */
static LLVMValueRef elem_at(tl *t, LLVMValueRef v, const kiln_type *vt, int64_t k) {
  int64_t pos[TL_MAX_RANK];
  for (uint32_t i = vt->rank; i-- > 0;) {
    pos[i] = k % vt->shape[i];
    k /= vt->shape[i];
  }
  for (uint32_t i = 0; i + 1 < vt->rank; i++) v = LLVMBuildExtractValue(t->b, v, (unsigned)pos[i], "");
  return LLVMBuildExtractElement(t->b, v, LLVMConstInt(t->i32, (unsigned long long)pos[vt->rank - 1], 0), "");
}

/* A value of vector type rt whose element at each position comes from
 * fn(position); rows are built with insertelement. */
static LLVMValueRef build_rows(tl *t, const kiln_type *rt, uint32_t dim, int64_t *pos,
                               LLVMValueRef src, const kiln_type *st) {
  LLVMTypeRef ty = tl_type(t, rt);
  for (uint32_t k = 0; k < dim; k++) ty = LLVMGetElementType(ty);
  LLVMValueRef r = LLVMGetUndef(ty);
  for (int64_t i = 0; i < rt->shape[dim]; i++) {
    pos[dim] = i;
    LLVMValueRef v;
    if (dim + 1 < rt->rank) {
      v = build_rows(t, rt, dim + 1, pos, src, st);
      r = LLVMBuildInsertValue(t->b, r, v, (unsigned)i, "");
      continue;
    }
    /* Source position: trailing alignment, size-1 dims stretched. */
    int64_t k = 0;
    for (uint32_t j = 0; j < st->rank; j++) {
      int64_t p = pos[rt->rank - st->rank + j];
      k = k * st->shape[j] + (st->shape[j] == 1 ? 0 : p);
    }
    v = elem_at(t, src, st, k);
    r = LLVMBuildInsertElement(t->b, r, v, LLVMConstInt(t->i32, (unsigned long long)i, 0), "");
  }
  return r;
}

/* Scalar s splatted to vector type rt (rows splatted, arrays filled). */
static LLVMValueRef splat_nd(tl *t, LLVMValueRef s, LLVMTypeRef ty) {
  if (LLVMGetTypeKind(ty) == LLVMVectorTypeKind) return tl_splat(t, s, ty);
  LLVMValueRef row = splat_nd(t, s, LLVMGetElementType(ty));
  LLVMValueRef r = LLVMGetUndef(ty);
  for (unsigned i = 0; i < LLVMGetArrayLength2(ty); i++) r = LLVMBuildInsertValue(t->b, r, row, i, "");
  return r;
}

static void broadcast(tl *t, kiln_op *op) {
  const kiln_type *st = kiln_op_operand(op, 0)->type, *rt = op->results[0].type;
  LLVMValueRef s = tl_operand(t, op, 0);
  LLVMTypeRef ty = tl_type(t, rt);
  if (!s || !ty || rt->rank > TL_MAX_RANK) {
    if (s) tl_fail(t, op, "unsupported vector type");
    return;
  }
  if (st->kind != KILN_TYPE_VECTOR) {
    tl_set(t, &op->results[0], splat_nd(t, s, ty));
    return;
  }
  int64_t pos[TL_MAX_RANK];
  tl_set(t, &op->results[0], build_rows(t, rt, 0, pos, s, st));
}

/* Walks static position entries through the array dims; returns the
 * number of entries consumed into *v. */
static bool walk_position(tl *t, kiln_op *op, const kiln_attr *pos, const kiln_type *vt,
                          uint32_t first_dyn, LLVMValueRef *lane) {
  const int64_t *p = pos->data;
  *lane = NULL;
  for (uint32_t i = 0; i < pos->count; i++) {
    if (p[i] == KILN_DYNAMIC && i + 1 != vt->rank) {
      tl_fail(t, op, "dynamic positions are supported only in the innermost dimension");
      return false;
    }
  }
  if (pos->count == vt->rank) {
    int64_t last = p[vt->rank - 1];
    *lane = last == KILN_DYNAMIC ? tl_operand(t, op, first_dyn) : LLVMConstInt(t->i64, (unsigned long long)last, 0);
    return *lane != NULL;
  }
  return true;
}

static void extract(tl *t, kiln_op *op) {
  const kiln_type *vt = kiln_op_operand(op, 0)->type;
  const kiln_attr *pos = kiln_op_get_attr(op, "static_position");
  LLVMValueRef v = tl_operand(t, op, 0), lane;
  if (!v || !pos || !walk_position(t, op, pos, vt, 1, &lane)) return;
  const int64_t *p = pos->data;
  uint32_t arrays = pos->count < vt->rank ? pos->count : vt->rank - 1;
  for (uint32_t i = 0; i < arrays; i++) v = LLVMBuildExtractValue(t->b, v, (unsigned)p[i], "");
  if (lane) v = LLVMBuildExtractElement(t->b, v, lane, "");
  tl_set(t, &op->results[0], v);
}

static LLVMValueRef insert_at(tl *t, LLVMValueRef agg, const int64_t *p, uint32_t n,
                              LLVMValueRef lane, LLVMValueRef x) {
  if (!n) return lane ? LLVMBuildInsertElement(t->b, agg, x, lane, "") : x;
  LLVMValueRef inner = LLVMBuildExtractValue(t->b, agg, (unsigned)p[0], "");
  inner = insert_at(t, inner, p + 1, n - 1, lane, x);
  return LLVMBuildInsertValue(t->b, agg, inner, (unsigned)p[0], "");
}

static void insert(tl *t, kiln_op *op) {
  const kiln_type *vt = kiln_op_operand(op, 1)->type;
  const kiln_attr *pos = kiln_op_get_attr(op, "static_position");
  LLVMValueRef x = tl_operand(t, op, 0), v = tl_operand(t, op, 1), lane;
  if (!x || !v || !pos || !walk_position(t, op, pos, vt, 2, &lane)) return;
  uint32_t arrays = pos->count < vt->rank ? pos->count : vt->rank - 1;
  tl_set(t, &op->results[0], insert_at(t, v, pos->data, arrays, lane, x));
}

/* llvm.fmuladd, not llvm.fma: fused where the target has FMA, a multiply
 * and an add where it has not (baseline x86-64), never an fmaf call. */
static LLVMValueRef fma_part(tl *t, kiln_op *op, LLVMValueRef *x, LLVMTypeRef rt) {
  return tl_call_intrinsic(t, "llvm.fmuladd", rt, x, 3);
}

static bool allows_reassoc(const kiln_op *op) {
  const kiln_attr *fm = kiln_op_get_attr(op, "fastmath");
  return fm && fm->kind == KILN_ATTR_OPAQUE && (strstr(fm->str, "reassoc") || strstr(fm->str, "fast"));
}

static void reduction(tl *t, kiln_op *op) {
  kiln_vector_kind k = kiln_vector_reduction_kind(op);
  LLVMValueRef v = tl_operand(t, op, 0);
  LLVMValueRef acc = op->num_operands > 1 ? tl_operand(t, op, 1) : NULL;
  if (!v || (op->num_operands > 1 && !acc)) return;
  LLVMTypeRef vt = LLVMTypeOf(v), et = LLVMGetElementType(vt);
  LLVMValueRef r;
  if (k == KILN_VECTOR_KIND_ADD || k == KILN_VECTOR_KIND_MUL) {
    bool add = k == KILN_VECTOR_KIND_ADD;
    if (LLVMGetTypeKind(et) == LLVMIntegerTypeKind) {
      r = tl_call_intrinsic(t, add ? "llvm.vector.reduce.add" : "llvm.vector.reduce.mul", vt, &v, 1);
      if (acc) r = add ? LLVMBuildAdd(t->b, acc, r, "") : LLVMBuildMul(t->b, acc, r, "");
    } else {
      LLVMValueRef start = acc ? acc : LLVMConstReal(et, add ? -0.0 : 1.0);
      LLVMValueRef args[2] = {start, v};
      r = tl_call_intrinsic(t, add ? "llvm.vector.reduce.fadd" : "llvm.vector.reduce.fmul", vt, args, 2);
      if (allows_reassoc(op)) LLVMSetFastMathFlags(r, LLVMFastMathAllowReassoc);
    }
  } else {
    static const char *const names[] = {
        [KILN_VECTOR_KIND_MINUI] = "umin", [KILN_VECTOR_KIND_MINSI] = "smin",
        [KILN_VECTOR_KIND_MINNUMF] = "fmin", [KILN_VECTOR_KIND_MAXUI] = "umax",
        [KILN_VECTOR_KIND_MAXSI] = "smax", [KILN_VECTOR_KIND_MAXNUMF] = "fmax",
        [KILN_VECTOR_KIND_AND] = "and", [KILN_VECTOR_KIND_OR] = "or",
        [KILN_VECTOR_KIND_XOR] = "xor", [KILN_VECTOR_KIND_MAXIMUMF] = "fmaximum",
        [KILN_VECTOR_KIND_MINIMUMF] = "fminimum"};
    static const char *const combine[] = {
        [KILN_VECTOR_KIND_MINUI] = "llvm.umin", [KILN_VECTOR_KIND_MINSI] = "llvm.smin",
        [KILN_VECTOR_KIND_MINNUMF] = "llvm.minnum", [KILN_VECTOR_KIND_MAXUI] = "llvm.umax",
        [KILN_VECTOR_KIND_MAXSI] = "llvm.smax", [KILN_VECTOR_KIND_MAXNUMF] = "llvm.maxnum",
        [KILN_VECTOR_KIND_MAXIMUMF] = "llvm.maximum", [KILN_VECTOR_KIND_MINIMUMF] = "llvm.minimum"};
    if (k >= KILN_VECTOR_KIND_COUNT || !names[k]) {
      tl_fail(t, op, "unsupported combining kind");
      return;
    }
    char name[64];
    snprintf(name, sizeof name, "llvm.vector.reduce.%s", names[k]);
    r = tl_call_intrinsic(t, name, vt, &v, 1);
    if (acc) {
      if (k == KILN_VECTOR_KIND_AND) r = LLVMBuildAnd(t->b, acc, r, "");
      else if (k == KILN_VECTOR_KIND_OR) r = LLVMBuildOr(t->b, acc, r, "");
      else if (k == KILN_VECTOR_KIND_XOR) r = LLVMBuildXor(t->b, acc, r, "");
      else {
        LLVMValueRef args[2] = {acc, r};
        r = tl_call_intrinsic(t, combine[k], et, args, 2);
      }
    }
  }
  tl_set(t, &op->results[0], r);
}

static void transfer(tl *t, kiln_op *op) {
  bool write = op->kind == KILN_OP_VECTOR_TRANSFER_WRITE;
  uint32_t mi = write ? 1 : 0;
  const kiln_type *mt = kiln_op_operand(op, mi)->type;
  const kiln_type *vt = write ? kiln_op_operand(op, 0)->type : op->results[0].type;
  if (vt->rank != 1 || mt->rank < 1 || mt->rank > TL_MAX_RANK ||
      !kiln_vector_transfer_minor_identity(op)) {
    tl_fail(t, op, "only 1-D transfers along the innermost memref dim are supported");
    return;
  }
  LLVMValueRef d = tl_operand(t, op, mi), idx[TL_MAX_RANK];
  if (!d) return;
  for (uint32_t i = 0; i < mt->rank; i++)
    if (!(idx[i] = tl_operand(t, op, mi + 1 + i))) return;
  LLVMValueRef x = write ? tl_operand(t, op, 0) : NULL;
  if (write && !x) return;
  if (kiln_vector_transfer_in_bounds(op, 0)) {
    LLVMValueRef r = rows(t, op, d, mt, idx, vt, 0, x);
    if (r && !write) tl_set(t, &op->results[0], r);
    return;
  }
  LLVMTypeRef vty = tl_type(t, vt);
  unsigned n = LLVMGetVectorSize(vty);
  LLVMTypeRef i64v = LLVMVectorType(t->i64, n);
  LLVMValueRef *lanes = kiln_alloc(t->kctx, n * sizeof *lanes);
  for (unsigned k = 0; k < n; k++) lanes[k] = tl_i64(t, k);
  LLVMValueRef pos = LLVMBuildAdd(t->b, tl_splat(t, idx[mt->rank - 1], i64v), LLVMConstVector(lanes, n), "");
  LLVMValueRef size = tl_splat(t, tl_desc_size(t, d, mt, mt->rank - 1), i64v);
  LLVMValueRef mask = LLVMBuildICmp(t->b, LLVMIntSLT, pos, size, "");
  LLVMValueRef p = tl_elem_ptr(t, op, d, mt, idx);
  if (!p) return;
  LLVMValueRef align = LLVMConstInt(t->i32, elem_align(t, vt->elem), 0);
  bool b1 = is_i1(vt->elem);
  LLVMTypeRef mty = b1 ? LLVMVectorType(LLVMInt8TypeInContext(t->c), n) : vty;
  LLVMTypeRef ov[2] = {mty, t->ptr}, ft;
  if (write) {
    LLVMValueRef f = tl_intrinsic(t, "llvm.masked.store", ov, 2, &ft);
    LLVMValueRef xs = b1 ? bytes_of(t, x, n) : x;
    LLVMValueRef args[4] = {xs, p, align, mask};
    LLVMBuildCall2(t->b, ft, f, args, 4, "");
    return;
  }
  LLVMValueRef pad = tl_operand(t, op, op->num_operands - 1);
  if (!pad) return;
  LLVMValueRef f = tl_intrinsic(t, "llvm.masked.load", ov, 2, &ft);
  LLVMValueRef pads = tl_splat(t, pad, vty);
  if (b1) pads = bytes_of(t, pads, n);
  LLVMValueRef args[4] = {p, align, mask, pads};
  LLVMValueRef r = LLVMBuildCall2(t->b, ft, f, args, 4, "");
  tl_set(t, &op->results[0], b1 ? bools_of(t, r, n) : r);
}

/* dot4 on x86-64 without VNNI (isa "pmaddwdW", W the instruction's
 * width in bits): a's 4 bytes and b's 4N widen to i16 and pmaddwd sums
 * adjacent products into i32 (at most 2 * 255 * 128: exact, no
 * saturation, unlike pmaddubsw's i16 sums). In the default layout the
 * pair sums a[0]b[4i] + a[1]b[4i+1] and a[2]b[4i+2] + a[3]b[4i+3] of a
 * lane are adjacent, and each lane adds its two (horizontal shuffles).
 * With `pairs` (b pair-major: the first 2N bytes hold K 0-1 of every
 * lane, the next K 2-3), each half's pmaddwd gives the N lanes in order:
 * two pmaddwd and two adds per dot4. */
static void dot4_pmaddwd(tl *t, kiln_op *op, unsigned n, unsigned width, LLVMValueRef acc,
                         LLVMValueRef a, LLVMValueRef b) {
  const char *name = width == 512   ? "llvm.x86.avx512.pmaddw.d.512"
                     : width == 256 ? "llvm.x86.avx2.pmadd.wd"
                                    : "llvm.x86.sse2.pmadd.wd";
  const bool pairs = kiln_op_get_attr(op, "pairs") != NULL;
  LLVMTypeRef i16 = LLVMInt16TypeInContext(t->c);
  unsigned w = width / 16, chunks = 4 * n / w; /* i16 per instruction, instructions */
  LLVMValueRef mask[64], parts[8], ap[2];
  LLVMValueRef a16 = kiln_op_get_attr(op, "signed_a") ? LLVMBuildSExt(t->b, a, LLVMVectorType(i16, 4), "")
                                                      : LLVMBuildZExt(t->b, a, LLVMVectorType(i16, 4), "");
  /* a's i16 as each instruction pairs them with b: all 4 in turn, or
   * pairs: a[0],a[1] (first half of b) and a[2],a[3] (second half) */
  for (unsigned h = 0; h < 2; h++) {
    for (unsigned i = 0; i < w; i++) mask[i] = LLVMConstInt(t->i32, pairs ? 2 * h + i % 2 : i % 4, 0);
    ap[h] = LLVMBuildShuffleVector(t->b, a16, LLVMGetPoison(LLVMTypeOf(a16)), LLVMConstVector(mask, w), "");
  }
  LLVMValueRef b16 = LLVMBuildSExt(t->b, b, LLVMVectorType(i16, 4 * n), "");
  for (unsigned c = 0; c < chunks; c++) {
    for (unsigned i = 0; i < w; i++) mask[i] = LLVMConstInt(t->i32, c * w + i, 0);
    LLVMValueRef bc = LLVMBuildShuffleVector(t->b, b16, LLVMGetPoison(LLVMTypeOf(b16)), LLVMConstVector(mask, w), "");
    LLVMValueRef args[2] = {pairs && c >= chunks / 2 ? ap[1] : ap[0], bc};
    parts[c] = tl_call_intrinsic(t, name, NULL, args, 2);
  }
  /* concatenated in order: 2N i32 (chunks is a power of 2); with pairs,
   * each half's N separately */
  unsigned groups = pairs ? 2 : 1, per = chunks / groups;
  for (unsigned g = 0; g < groups; g++) {
    LLVMValueRef *pg = parts + g * per;
    for (unsigned len = w / 2, m = per; m > 1; m /= 2, len *= 2) {
      for (unsigned i = 0; i < 2 * len; i++) mask[i] = LLVMConstInt(t->i32, i, 0);
      for (unsigned c = 0; c < m / 2; c++)
        pg[c] = LLVMBuildShuffleVector(t->b, pg[2 * c], pg[2 * c + 1], LLVMConstVector(mask, 2 * len), "");
    }
  }
  LLVMValueRef r = acc;
  for (unsigned j = 0; j < 2; j++) {
    LLVMValueRef half;
    if (pairs) {
      half = parts[j * per];
    } else {
      for (unsigned i = 0; i < n; i++) mask[i] = LLVMConstInt(t->i32, 2 * i + j, 0);
      half = LLVMBuildShuffleVector(t->b, parts[0], LLVMGetPoison(LLVMTypeOf(parts[0])), LLVMConstVector(mask, n), "");
    }
    r = LLVMBuildAdd(t->b, r, half, "");
  }
  tl_set(t, &op->results[0], r);
}

/* dot4 on aarch64 +dotprod (isa "sdot", 4 lanes, signed_a): sdot v.4s,
 * b's 16 bytes times a's 4 splat to every lane, one instruction. */
static void dot4_sdot(tl *t, kiln_op *op, LLVMValueRef acc, LLVMValueRef a, LLVMValueRef b) {
  LLVMTypeRef v16 = LLVMVectorType(t->i8, 16), v4 = LLVMVectorType(t->i32, 4);
  LLVMValueRef a32 = LLVMBuildBitCast(t->b, a, t->i32, "");
  LLVMValueRef as = LLVMBuildBitCast(t->b, tl_splat(t, a32, v4), v16, "");
  LLVMTypeRef ov[2] = {v4, v16}, ft;
  LLVMValueRef f = tl_intrinsic(t, "llvm.aarch64.neon.sdot", ov, 2, &ft);
  LLVMValueRef args[3] = {acc, b, as};
  tl_set(t, &op->results[0], LLVMBuildCall2(t->b, ft, f, args, 3, ""));
}

/* vector.dot4: r[i] = acc[i] + sum_j<4 ext(a[j]) * sext(b[4i+j]), ext
 * zext or with signed_a sext (dialects/vector.h). With isa
 * avx512vnni/avxvnni, a's 4 bytes are splat as one i32 per lane and
 * vpdpbusd does it in one instruction (its i32 sum wraps, as this form's
 * does); pmaddwdW: dot4_pmaddwd; sdot: dot4_sdot. Else the products widen
 * to i32 and each lane sums its group of 4 with strided shuffles, code
 * every target compiles. */
static void dot4(tl *t, kiln_op *op) {
  LLVMValueRef acc = tl_operand(t, op, 0), a = tl_operand(t, op, 1), b = tl_operand(t, op, 2);
  if (!acc || !a || !b) return;
  unsigned n = (unsigned)op->results[0].type->shape[0];
  LLVMTypeRef vi32 = LLVMVectorType(t->i32, n);
  const kiln_attr *isa = kiln_op_get_attr(op, "isa");
  if (isa && isa->kind == KILN_ATTR_STRING && strncmp(isa->str, "pmaddwd", 7) == 0) {
    dot4_pmaddwd(t, op, n, (unsigned)atoi(isa->str + 7), acc, a, b);
    return;
  }
  if (isa && isa->kind == KILN_ATTR_STRING && strcmp(isa->str, "sdot") == 0) {
    dot4_sdot(t, op, acc, a, b);
    return;
  }
  if (isa && isa->kind == KILN_ATTR_STRING) {
    char name[40];
    snprintf(name, sizeof name, "llvm.x86.avx512.vpdpbusd.%u", n * 32);
    if (!LLVMLookupIntrinsicID(name, strlen(name))) {
      tl_fail(t, op, "no LLVM intrinsic %s", name);
      return;
    }
    LLVMValueRef a32 = LLVMBuildBitCast(t->b, a, t->i32, "");
    LLVMValueRef args[3] = {acc, tl_splat(t, a32, vi32), LLVMBuildBitCast(t->b, b, vi32, "")};
    tl_set(t, &op->results[0], tl_call_intrinsic(t, name, NULL, args, 3));
    return;
  }
  LLVMTypeRef wide = LLVMVectorType(t->i32, 4 * n);
  LLVMValueRef mask[64], r = acc;
  for (unsigned i = 0; i < 4 * n; i++) mask[i] = LLVMConstInt(t->i32, i % 4, 0);
  LLVMValueRef aw = kiln_op_get_attr(op, "signed_a") ? LLVMBuildSExt(t->b, a, LLVMVectorType(t->i32, 4), "")
                                                     : LLVMBuildZExt(t->b, a, LLVMVectorType(t->i32, 4), "");
  aw = LLVMBuildShuffleVector(t->b, aw, LLVMGetPoison(LLVMTypeOf(aw)), LLVMConstVector(mask, 4 * n), "");
  LLVMValueRef p = LLVMBuildMul(t->b, aw, LLVMBuildSExt(t->b, b, wide, ""), "");
  for (unsigned j = 0; j < 4; j++) {
    for (unsigned i = 0; i < n; i++) mask[i] = LLVMConstInt(t->i32, 4 * i + j, 0);
    r = LLVMBuildAdd(t->b, r, LLVMBuildShuffleVector(t->b, p, LLVMGetPoison(wide), LLVMConstVector(mask, n), ""), "");
  }
  tl_set(t, &op->results[0], r);
}

void tl_vector(tl *t, kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_VECTOR_LOAD:
  case KILN_OP_VECTOR_STORE: load_store(t, op); return;
  case KILN_OP_VECTOR_BROADCAST:
  case KILN_OP_VECTOR_SPLAT: broadcast(t, op); return;
  case KILN_OP_VECTOR_EXTRACT: extract(t, op); return;
  case KILN_OP_VECTOR_INSERT: insert(t, op); return;
  case KILN_OP_VECTOR_FMA: {
    LLVMValueRef x[3];
    for (uint32_t i = 0; i < 3; i++)
      if (!(x[i] = tl_operand(t, op, i))) return;
    LLVMValueRef r = tl_map_parts(t, op, x, 3, op->results[0].type, fma_part);
    if (r) tl_set(t, &op->results[0], r);
    return;
  }
  case KILN_OP_VECTOR_SHUFFLE: {
    LLVMValueRef a = tl_operand(t, op, 0), b = tl_operand(t, op, 1);
    if (!a || !b) return;
    const kiln_attr *m = kiln_op_get_attr(op, "mask");
    LLVMValueRef mask[64];
    if (m->count > 64) {
      tl_fail(t, op, "a shuffle of more than 64 lanes");
      return;
    }
    for (uint32_t i = 0; i < m->count; i++)
      mask[i] = LLVMConstInt(t->i32, (unsigned long long)((const int64_t *)m->data)[i], 0);
    tl_set(t, &op->results[0], LLVMBuildShuffleVector(t->b, a, b, LLVMConstVector(mask, m->count), ""));
    return;
  }
  case KILN_OP_VECTOR_REDUCTION: reduction(t, op); return;
  case KILN_OP_VECTOR_DOT4: dot4(t, op); return;
  case KILN_OP_VECTOR_TRANSFER_READ:
  case KILN_OP_VECTOR_TRANSFER_WRITE: transfer(t, op); return;
  default: tl_fail(t, op, "unhandled vector op");
  }
}
