/* Type conversion (seed: ConversionToLLVMDialect, "Type Conversion"):
 * iN -> iN, index -> i64 (the pointer width of every Kiln target), f16,
 * bf16, f32, f64 -> LLVM floats; vector<NxT> -> <N x T>, vector<AxBxNxT>
 * -> [A x [B x <N x T>]]; memref<...xT> of rank R -> the descriptor
 * {ptr, ptr, i64, [R x i64], [R x i64]} (rank 0: {ptr, ptr, i64});
 * memref<*xT> -> {i64, ptr}. Other types are not translatable (NULL). */
#include "tl_internal.h"

LLVMTypeRef tl_desc_type(tl *t, uint32_t rank) {
  LLVMTypeRef f[5] = {t->ptr, t->ptr, t->i64, NULL, NULL};
  if (!rank) return LLVMStructTypeInContext(t->c, f, 3, 0);
  f[3] = f[4] = LLVMArrayType2(t->i64, rank);
  return LLVMStructTypeInContext(t->c, f, 5, 0);
}

LLVMTypeRef tl_unranked_type(tl *t) {
  LLVMTypeRef f[2] = {t->i64, t->ptr};
  return LLVMStructTypeInContext(t->c, f, 2, 0);
}

static LLVMTypeRef scalar(tl *t, const kiln_type *ty) {
  switch (ty->kind) {
  case KILN_TYPE_INTEGER: return LLVMIntTypeInContext(t->c, ty->width);
  case KILN_TYPE_INDEX: return t->i64;
  case KILN_TYPE_F16: return LLVMHalfTypeInContext(t->c);
  case KILN_TYPE_BF16: return LLVMBFloatTypeInContext(t->c);
  case KILN_TYPE_F32: return LLVMFloatTypeInContext(t->c);
  case KILN_TYPE_F64: return LLVMDoubleTypeInContext(t->c);
  default: return NULL;
  }
}

LLVMTypeRef tl_type(tl *t, const kiln_type *ty) {
  switch (ty->kind) {
  case KILN_TYPE_VECTOR: {
    LLVMTypeRef e = scalar(t, ty->elem);
    if (!e || !ty->rank) return NULL;
    for (uint32_t i = 0; i < ty->rank; i++)
      if (ty->shape[i] <= 0) return NULL; /* scalable/dynamic: not supported */
    LLVMTypeRef v = LLVMVectorType(e, (unsigned)ty->shape[ty->rank - 1]);
    for (uint32_t i = ty->rank - 1; i-- > 0;) v = LLVMArrayType2(v, (uint64_t)ty->shape[i]);
    return v;
  }
  case KILN_TYPE_MEMREF:
    if (!tl_type(t, ty->elem) || ty->rank > TL_MAX_RANK) return NULL;
    return tl_desc_type(t, ty->rank);
  case KILN_TYPE_UNRANKED_MEMREF:
    return tl_type(t, ty->elem) ? tl_unranked_type(t) : NULL;
  default:
    return scalar(t, ty);
  }
}

uint64_t tl_elem_size(tl *t, const kiln_type *ty) {
  LLVMTypeRef lt = tl_type(t, ty);
  if (!lt) return 0;
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(t->m);
  return LLVMABISizeOfType(dl, lt);
}
