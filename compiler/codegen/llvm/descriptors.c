/* Memref descriptors (seed: "Ranked MemRef Types", "Index Linearization"):
 * building them, reading their fields, and element addresses. A field
 * whose value the memref type states statically (a size, a stride, the
 * offset) is a constant, so static layouts never read the descriptor. The
 * element address is aligned + (offset + sum_i idx_i * stride_i) elements,
 * one GEP over the element type. */
#include "tl_internal.h"

#include "dialects/memref.h"

LLVMValueRef tl_desc_field(tl *t, LLVMValueRef d, unsigned field) {
  return LLVMBuildExtractValue(t->b, d, field, "");
}

static LLVMValueRef array_elem(tl *t, LLVMValueRef d, unsigned field, uint32_t i) {
  LLVMValueRef a = LLVMBuildExtractValue(t->b, d, field, "");
  return LLVMBuildExtractValue(t->b, a, i, "");
}

LLVMValueRef tl_desc_size(tl *t, LLVMValueRef d, const kiln_type *mt, uint32_t i) {
  if (mt->shape[i] != KILN_DYNAMIC) return tl_i64(t, mt->shape[i]);
  return array_elem(t, d, TL_DESC_SIZES, i);
}

LLVMValueRef tl_desc_stride(tl *t, LLVMValueRef d, const kiln_type *mt, uint32_t i) {
  int64_t s[TL_MAX_RANK], o;
  if (mt->rank <= TL_MAX_RANK && kiln_memref_strides(mt, s, &o) && s[i] != KILN_DYNAMIC)
    return tl_i64(t, s[i]);
  return array_elem(t, d, TL_DESC_STRIDES, i);
}

LLVMValueRef tl_desc_offset(tl *t, LLVMValueRef d, const kiln_type *mt) {
  int64_t s[TL_MAX_RANK], o;
  if (mt->rank <= TL_MAX_RANK && kiln_memref_strides(mt, s, &o) && o != KILN_DYNAMIC)
    return tl_i64(t, o);
  return tl_desc_field(t, d, TL_DESC_OFFSET);
}

LLVMValueRef tl_desc_make(tl *t, uint32_t rank, LLVMValueRef allocated,
                          LLVMValueRef aligned, LLVMValueRef offset,
                          LLVMValueRef *sizes, LLVMValueRef *strides) {
  LLVMValueRef d = LLVMGetUndef(tl_desc_type(t, rank));
  d = LLVMBuildInsertValue(t->b, d, allocated, TL_DESC_ALLOCATED, "");
  d = LLVMBuildInsertValue(t->b, d, aligned, TL_DESC_ALIGNED, "");
  d = LLVMBuildInsertValue(t->b, d, offset, TL_DESC_OFFSET, "");
  if (!rank) return d;
  LLVMValueRef sz = LLVMGetUndef(LLVMArrayType2(t->i64, rank));
  LLVMValueRef st = sz;
  for (uint32_t i = 0; i < rank; i++) {
    sz = LLVMBuildInsertValue(t->b, sz, sizes[i], i, "");
    st = LLVMBuildInsertValue(t->b, st, strides[i], i, "");
  }
  d = LLVMBuildInsertValue(t->b, d, sz, TL_DESC_SIZES, "");
  return LLVMBuildInsertValue(t->b, d, st, TL_DESC_STRIDES, "");
}

LLVMValueRef tl_desc_over(tl *t, const kiln_op *op, const kiln_type *mt,
                          LLVMValueRef base, LLVMValueRef *dyn_sizes) {
  int64_t s[TL_MAX_RANK], o;
  if (mt->rank > TL_MAX_RANK || !kiln_memref_strides(mt, s, &o))
    return tl_fail(t, op, "memref layout is not strided");
  LLVMValueRef sizes[TL_MAX_RANK], strides[TL_MAX_RANK];
  uint32_t nd = 0;
  for (uint32_t i = 0; i < mt->rank; i++)
    sizes[i] = mt->shape[i] == KILN_DYNAMIC ? dyn_sizes[nd++] : tl_i64(t, mt->shape[i]);
  /* Row-major strides of the '?' positions follow from the sizes. */
  LLVMValueRef run = tl_i64(t, 1);
  for (uint32_t i = mt->rank; i-- > 0;) {
    if (s[i] != KILN_DYNAMIC) {
      strides[i] = tl_i64(t, s[i]);
      run = strides[i];
    } else {
      if (mt->layout) return tl_fail(t, op, "dynamic strides need a descriptor to come from");
      strides[i] = run;
    }
    run = LLVMBuildMul(t->b, strides[i], sizes[i], "");
  }
  if (o == KILN_DYNAMIC) return tl_fail(t, op, "a dynamic offset needs a descriptor to come from");
  return tl_desc_make(t, mt->rank, base, base, tl_i64(t, o), sizes, strides);
}

LLVMValueRef tl_linear_index(tl *t, LLVMValueRef d, const kiln_type *mt,
                             LLVMValueRef *idx) {
  LLVMValueRef acc = tl_desc_offset(t, d, mt);
  for (uint32_t i = 0; i < mt->rank; i++) {
    LLVMValueRef s = tl_desc_stride(t, d, mt, i);
    LLVMValueRef term = LLVMIsAConstantInt(s) && LLVMConstIntGetSExtValue(s) == 1
                            ? idx[i] : LLVMBuildMul(t->b, idx[i], s, "");
    acc = LLVMIsAConstantInt(acc) && LLVMConstIntGetSExtValue(acc) == 0
              ? term : LLVMBuildAdd(t->b, acc, term, "");
  }
  return acc;
}

LLVMValueRef tl_elem_ptr(tl *t, const kiln_op *op, LLVMValueRef d,
                         const kiln_type *mt, LLVMValueRef *idx) {
  LLVMTypeRef et = tl_type(t, mt->elem);
  if (!et) return tl_fail(t, op, "unsupported memref element type");
  LLVMValueRef base = tl_desc_field(t, d, TL_DESC_ALIGNED);
  LLVMValueRef lin = tl_linear_index(t, d, mt, idx);
  return LLVMBuildGEP2(t->b, et, base, &lin, 1, "");
}
