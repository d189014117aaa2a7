/* memref ops on descriptors (seed: "Ranked MemRef Types"): load/store
 * address elements by index linearization; alloca allocates in the entry
 * block when its size is static; views (subview, cast, reinterpret_cast,
 * collapse_shape, expand_shape) build new descriptors over the same
 * pointers; dim reads a size; copy is an element loop; prefetch is
 * llvm.prefetch. memref.alloc needs
 * a heap, which no-libc executables lack: an error naming the op. */
#include "tl_internal.h"

#include "dialects/memref.h"

static const int64_t *dense_i64(const kiln_op *op, const char *name) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == KILN_ATTR_DENSE_ARRAY ? a->data : NULL;
}

static unsigned elem_align(tl *t, const kiln_type *elem) {
  uint64_t s = tl_elem_size(t, elem);
  return s && s <= 16 ? (unsigned)s : 1;
}

static bool indices(tl *t, kiln_op *op, uint32_t first, LLVMValueRef *idx) {
  for (uint32_t i = first; i < op->num_operands; i++)
    if (!(idx[i - first] = tl_operand(t, op, i))) return false;
  return true;
}

static void load_store(tl *t, kiln_op *op) {
  bool store = op->kind == KILN_OP_MEMREF_STORE;
  uint32_t mi = store ? 1 : 0;
  const kiln_type *mt = kiln_op_operand(op, mi)->type;
  LLVMValueRef d = tl_operand(t, op, mi), idx[TL_MAX_RANK];
  if (!d || mt->rank > TL_MAX_RANK || !indices(t, op, mi + 1, idx)) return;
  LLVMValueRef p = tl_elem_ptr(t, op, d, mt, idx);
  if (!p) return;
  LLVMValueRef v;
  if (store) {
    LLVMValueRef x = tl_operand(t, op, 0);
    if (!x) return;
    v = LLVMBuildStore(t->b, x, p);
  } else {
    v = LLVMBuildLoad2(t->b, tl_type(t, mt->elem), p, "");
    tl_set(t, &op->results[0], v);
  }
  LLVMSetAlignment(v, elem_align(t, mt->elem));
}

/* llvm.prefetch of the element's address (a hint: it never faults, so
 * an address past the buffer is harmless; the GEP is not inbounds). */
static void prefetch(tl *t, kiln_op *op) {
  const kiln_type *mt = kiln_op_operand(op, 0)->type;
  LLVMValueRef d = tl_operand(t, op, 0), idx[TL_MAX_RANK];
  if (!d || mt->rank > TL_MAX_RANK || !indices(t, op, 1, idx)) return;
  LLVMValueRef p = tl_elem_ptr(t, op, d, mt, idx);
  if (!p) return;
  const kiln_attr *w = kiln_op_get_attr(op, "isWrite"), *h = kiln_op_get_attr(op, "localityHint");
  const kiln_attr *c = kiln_op_get_attr(op, "isDataCache");
  LLVMValueRef args[4] = {p, LLVMConstInt(t->i32, w && w->i ? 1 : 0, 0),
                          LLVMConstInt(t->i32, (unsigned long long)(h ? h->i : 3), 0),
                          LLVMConstInt(t->i32, c && !c->i ? 0 : 1, 0)};
  tl_call_intrinsic(t, "llvm.prefetch", t->ptr, args, 4);
}

static void alloca_op(tl *t, kiln_op *op) {
  const kiln_type *mt = op->results[0].type;
  if (op->kind == KILN_OP_MEMREF_ALLOC) {
    tl_fail(t, op, "heap allocation is not available in no-libc code; use memref.alloca");
    return;
  }
  if (t->opts->gpu_kernels && mt->memspace) {
    tl_ptx_shared_alloca(t, op);
    return;
  }
  LLVMTypeRef et = tl_type(t, mt->elem);
  if (!et || mt->rank > TL_MAX_RANK) {
    tl_fail(t, op, "unsupported memref type");
    return;
  }
  LLVMValueRef dyn[TL_MAX_RANK];
  uint32_t nd = 0;
  LLVMValueRef count = tl_i64(t, 1);
  for (uint32_t i = 0; i < mt->rank; i++) {
    if (mt->shape[i] == KILN_DYNAMIC) {
      if (nd >= op->num_operands || !(dyn[nd] = tl_operand(t, op, nd))) return;
      count = LLVMBuildMul(t->b, count, dyn[nd++], "");
    } else {
      count = LLVMBuildMul(t->b, count, tl_i64(t, mt->shape[i]), "");
    }
  }
  const kiln_attr *al = kiln_op_get_attr(op, "alignment");
  unsigned align = al && al->kind == KILN_ATTR_INTEGER ? (unsigned)al->i : elem_align(t, mt->elem);
  LLVMValueRef p = tl_entry_alloca(t, et, count, align);
  LLVMValueRef d = tl_desc_over(t, op, mt, p, dyn);
  if (d) tl_set(t, &op->results[0], d);
}

static void dim(tl *t, kiln_op *op) {
  const kiln_type *mt = kiln_op_operand(op, 0)->type;
  LLVMValueRef d = tl_operand(t, op, 0), i = tl_operand(t, op, 1);
  if (!d || !i) return;
  if (mt->kind != KILN_TYPE_MEMREF) {
    tl_fail(t, op, "dim of an unranked memref is not supported");
    return;
  }
  LLVMValueRef r = NULL;
  if (LLVMIsAConstantInt(i)) {
    long long k = LLVMConstIntGetSExtValue(i);
    if (k < 0 || k >= (long long)mt->rank) {
      tl_fail(t, op, "dimension index %lld out of range", k);
      return;
    }
    r = tl_desc_size(t, d, mt, (uint32_t)k);
  } else {
    /* A dynamic dimension index selects among the sizes. */
    r = LLVMGetPoison(t->i64);
    for (uint32_t k = 0; k < mt->rank; k++) {
      LLVMValueRef eq = LLVMBuildICmp(t->b, LLVMIntEQ, i, tl_i64(t, k), "");
      r = LLVMBuildSelect(t->b, eq, tl_desc_size(t, d, mt, k), r, "");
    }
  }
  tl_set(t, &op->results[0], r);
}

static void cast(tl *t, kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = op->results[0].type;
  LLVMValueRef d = tl_operand(t, op, 0);
  if (!d) return;
  if (a->kind == KILN_TYPE_MEMREF && b->kind == KILN_TYPE_MEMREF) {
    tl_set(t, &op->results[0], d); /* same descriptor; only static facts change */
    return;
  }
  if (a->kind == KILN_TYPE_MEMREF) { /* ranked -> unranked: spill the descriptor */
    LLVMValueRef slot = tl_entry_alloca(t, tl_desc_type(t, a->rank), NULL, 8);
    LLVMBuildStore(t->b, d, slot);
    LLVMValueRef u = LLVMGetUndef(tl_unranked_type(t));
    u = LLVMBuildInsertValue(t->b, u, tl_i64(t, a->rank), 0, "");
    tl_set(t, &op->results[0], LLVMBuildInsertValue(t->b, u, slot, 1, ""));
    return;
  }
  /* unranked -> ranked: the caller vouches for the rank. */
  LLVMValueRef p = LLVMBuildExtractValue(t->b, d, 1, "");
  tl_set(t, &op->results[0], LLVMBuildLoad2(t->b, tl_desc_type(t, b->rank), p, ""));
}

/* (allocated, aligned) of a ranked or unranked source descriptor. */
static void base_ptrs(tl *t, const kiln_type *ty, LLVMValueRef d, LLVMValueRef *al,
                      LLVMValueRef *ag) {
  if (ty->kind == KILN_TYPE_MEMREF) {
    *al = tl_desc_field(t, d, TL_DESC_ALLOCATED);
    *ag = tl_desc_field(t, d, TL_DESC_ALIGNED);
    return;
  }
  LLVMValueRef p = LLVMBuildExtractValue(t->b, d, 1, "");
  LLVMTypeRef two[2] = {t->ptr, t->ptr};
  LLVMTypeRef st = LLVMStructTypeInContext(t->c, two, 2, 0);
  *al = LLVMBuildLoad2(t->b, t->ptr, LLVMBuildStructGEP2(t->b, st, p, 0, ""), "");
  *ag = LLVMBuildLoad2(t->b, t->ptr, LLVMBuildStructGEP2(t->b, st, p, 1, ""), "");
}

/* The value of entry i of static list `stat`, or the next dynamic operand. */
static LLVMValueRef mixed(tl *t, kiln_op *op, const int64_t *stat, uint32_t i,
                          uint32_t *next) {
  if (stat[i] != KILN_DYNAMIC) return tl_i64(t, stat[i]);
  if (*next >= op->num_operands) return tl_fail(t, op, "missing dynamic operand");
  return tl_operand(t, op, (*next)++);
}

static void subview(tl *t, kiln_op *op) {
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  const int64_t *so = dense_i64(op, "static_offsets"), *ss = dense_i64(op, "static_sizes"),
                *sst = dense_i64(op, "static_strides");
  LLVMValueRef d = tl_operand(t, op, 0);
  if (!d || !so || !ss || !sst || src->rank > TL_MAX_RANK) {
    tl_fail(t, op, "malformed subview");
    return;
  }
  uint32_t next = 1;
  LLVMValueRef off[TL_MAX_RANK], sz[TL_MAX_RANK], st[TL_MAX_RANK];
  for (uint32_t i = 0; i < src->rank; i++) off[i] = mixed(t, op, so, i, &next);
  for (uint32_t i = 0; i < src->rank; i++) sz[i] = mixed(t, op, ss, i, &next);
  for (uint32_t i = 0; i < src->rank; i++) st[i] = mixed(t, op, sst, i, &next);
  if (t->err) return;
  LLVMValueRef offset = tl_desc_offset(t, d, src);
  LLVMValueRef rs[TL_MAX_RANK], rst[TL_MAX_RANK];
  uint32_t drop = src->rank - res->rank, j = 0;
  for (uint32_t i = 0; i < src->rank; i++) {
    LLVMValueRef s = tl_desc_stride(t, d, src, i);
    offset = LLVMBuildAdd(t->b, offset, LLVMBuildMul(t->b, off[i], s, ""), "");
    /* Rank reduction drops unit dims, leftmost first, while the result
     * still has room for the remaining source dims. */
    if (drop && ss[i] == 1 && (j >= res->rank || res->shape[j] != 1 ||
                               src->rank - i - 1 < res->rank - j)) {
      drop--;
      continue;
    }
    if (j >= res->rank) {
      tl_fail(t, op, "cannot match the rank-reduced result type");
      return;
    }
    rs[j] = sz[i];
    rst[j++] = LLVMBuildMul(t->b, s, st[i], "");
  }
  if (j != res->rank) {
    tl_fail(t, op, "cannot match the rank-reduced result type");
    return;
  }
  tl_set(t, &op->results[0],
         tl_desc_make(t, res->rank, tl_desc_field(t, d, TL_DESC_ALLOCATED),
                      tl_desc_field(t, d, TL_DESC_ALIGNED), offset, rs, rst));
}

static void reinterpret(tl *t, kiln_op *op) {
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  const int64_t *so = dense_i64(op, "static_offsets"), *ss = dense_i64(op, "static_sizes"),
                *sst = dense_i64(op, "static_strides");
  LLVMValueRef d = tl_operand(t, op, 0);
  if (!d || !so || !ss || !sst || res->rank > TL_MAX_RANK) {
    tl_fail(t, op, "malformed reinterpret_cast");
    return;
  }
  uint32_t next = 1;
  LLVMValueRef off = mixed(t, op, so, 0, &next), sz[TL_MAX_RANK], st[TL_MAX_RANK];
  for (uint32_t i = 0; i < res->rank; i++) sz[i] = mixed(t, op, ss, i, &next);
  for (uint32_t i = 0; i < res->rank; i++) st[i] = mixed(t, op, sst, i, &next);
  if (t->err) return;
  LLVMValueRef al, ag;
  base_ptrs(t, src, d, &al, &ag);
  tl_set(t, &op->results[0], tl_desc_make(t, res->rank, al, ag, off, sz, st));
}

static const kiln_attr *group(const kiln_op *op, uint32_t g) {
  const kiln_attr *re = kiln_op_get_attr(op, "reassociation");
  return re && re->kind == KILN_ATTR_ARRAY && g < re->count ? re->elems[g] : NULL;
}

/* collapse_shape: a group's size is the product of its sizes, its stride
 * the stride of its innermost dim (the group is contiguous). expand_shape:
 * sizes from output_shape; within a group, strides grow outwards from the
 * source stride. */
static void reshape(tl *t, kiln_op *op) {
  bool expand = op->kind == KILN_OP_MEMREF_EXPAND_SHAPE;
  const kiln_type *src = kiln_op_operand(op, 0)->type, *res = op->results[0].type;
  LLVMValueRef d = tl_operand(t, op, 0);
  if (!d || src->rank > TL_MAX_RANK || res->rank > TL_MAX_RANK) return;
  LLVMValueRef sz[TL_MAX_RANK], st[TL_MAX_RANK];
  const kiln_type *small = expand ? src : res;
  uint32_t big_i = 0, next = 1;
  const int64_t *os = expand ? dense_i64(op, "static_output_shape") : NULL;
  if (expand && !os) {
    tl_fail(t, op, "malformed expand_shape");
    return;
  }
  for (uint32_t g = 0; g < small->rank; g++) {
    const kiln_attr *grp = group(op, g);
    if (!grp || grp->kind != KILN_ATTR_ARRAY || !grp->count) {
      tl_fail(t, op, "malformed reassociation");
      return;
    }
    uint32_t n = grp->count;
    if (expand) {
      LLVMValueRef stride = tl_desc_stride(t, d, src, g);
      for (uint32_t k = 0; k < n; k++) sz[big_i + k] = mixed(t, op, os, big_i + k, &next);
      for (uint32_t k = n; k-- > 0;) {
        st[big_i + k] = stride;
        stride = LLVMBuildMul(t->b, stride, sz[big_i + k], "");
      }
    } else {
      LLVMValueRef prod = tl_i64(t, 1);
      for (uint32_t k = 0; k < n; k++)
        prod = LLVMBuildMul(t->b, prod, tl_desc_size(t, d, src, big_i + k), "");
      sz[g] = prod;
      st[g] = tl_desc_stride(t, d, src, big_i + n - 1);
    }
    big_i += n;
  }
  if (t->err) return;
  if (!small->rank) /* rank 0 <-> all-unit dims */
    for (uint32_t i = 0; expand && i < res->rank; i++) sz[i] = st[i] = tl_i64(t, 1);
  tl_set(t, &op->results[0],
         tl_desc_make(t, res->rank, tl_desc_field(t, d, TL_DESC_ALLOCATED),
                      tl_desc_field(t, d, TL_DESC_ALIGNED), tl_desc_offset(t, d, src), sz, st));
}

/* Row-major contiguous: every stride is the product of the inner sizes
 * (statically known), whatever the offset. */
static bool contiguous(const kiln_type *t) {
  int64_t s[TL_MAX_RANK], o, run = 1;
  if (t->rank > TL_MAX_RANK || !kiln_memref_strides(t, s, &o)) return false;
  for (uint32_t i = t->rank; i-- > 0;) {
    if (t->shape[i] == KILN_DYNAMIC || s[i] != run) return false;
    run *= t->shape[i];
  }
  return true;
}

/* Address of linear element k of a contiguous memref. */
static LLVMValueRef linear_ptr(tl *t, LLVMValueRef d, const kiln_type *mt, LLVMTypeRef et,
                               LLVMValueRef k) {
  LLVMValueRef i = LLVMBuildAdd(t->b, tl_desc_offset(t, d, mt), k, "");
  return LLVMBuildGEP2(t->b, et, tl_desc_field(t, d, TL_DESC_ALIGNED), &i, 1, "");
}

/* copy: for k in [0, total): load from the source and store to the target
 * at element k, addressed linearly when both are contiguous, else through
 * the row-major delinearization of k (strided views). */
static void copy(tl *t, kiln_op *op) {
  const kiln_type *a = kiln_op_operand(op, 0)->type, *b = kiln_op_operand(op, 1)->type;
  LLVMValueRef s = tl_operand(t, op, 0), d = tl_operand(t, op, 1);
  LLVMTypeRef et = tl_type(t, a->elem);
  if (!s || !d || !et || a->rank > TL_MAX_RANK) return;
  LLVMValueRef total = tl_i64(t, 1);
  for (uint32_t i = 0; i < a->rank; i++) total = LLVMBuildMul(t->b, total, tl_desc_size(t, s, a, i), "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(t->b);
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(t->c, t->fn, "copy.head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(t->c, t->fn, "copy.body");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(t->c, t->fn, "copy.done");
  LLVMBuildBr(t->b, head);
  LLVMPositionBuilderAtEnd(t->b, head);
  LLVMValueRef k = LLVMBuildPhi(t->b, t->i64, "");
  LLVMValueRef zero = tl_i64(t, 0);
  LLVMAddIncoming(k, &zero, &pre, 1);
  LLVMBuildCondBr(t->b, LLVMBuildICmp(t->b, LLVMIntSLT, k, total, ""), body, done);
  LLVMPositionBuilderAtEnd(t->b, body);
  LLVMValueRef from, to;
  if (contiguous(a) && contiguous(b)) {
    from = linear_ptr(t, s, a, et, k);
    to = linear_ptr(t, d, b, et, k);
  } else {
    LLVMValueRef idx[TL_MAX_RANK], rem = k;
    for (uint32_t i = a->rank; i-- > 0;) {
      LLVMValueRef n = tl_desc_size(t, s, a, i);
      idx[i] = i ? LLVMBuildURem(t->b, rem, n, "") : rem;
      if (i) rem = LLVMBuildUDiv(t->b, rem, n, "");
    }
    from = tl_elem_ptr(t, op, s, a, idx);
    to = tl_elem_ptr(t, op, d, b, idx);
  }
  LLVMValueRef v = LLVMBuildLoad2(t->b, et, from, "");
  LLVMSetAlignment(v, elem_align(t, a->elem));
  LLVMSetAlignment(LLVMBuildStore(t->b, v, to), elem_align(t, a->elem));
  LLVMValueRef k1 = LLVMBuildAdd(t->b, k, tl_i64(t, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(t->b);
  LLVMAddIncoming(k, &k1, &latch, 1);
  LLVMBuildBr(t->b, head);
  /* The IR block continues in `done`; branches into the IR block still
   * target its first LLVM block, phis take the builder's block. */
  LLVMPositionBuilderAtEnd(t->b, done);
}

void tl_memref(tl *t, kiln_op *op) {
  switch (op->kind) {
  case KILN_OP_MEMREF_LOAD:
  case KILN_OP_MEMREF_STORE: load_store(t, op); return;
  case KILN_OP_MEMREF_PREFETCH: prefetch(t, op); return;
  case KILN_OP_MEMREF_ALLOCA:
  case KILN_OP_MEMREF_ALLOC: alloca_op(t, op); return;
  case KILN_OP_MEMREF_DIM: dim(t, op); return;
  case KILN_OP_MEMREF_CAST: cast(t, op); return;
  case KILN_OP_MEMREF_SUBVIEW: subview(t, op); return;
  case KILN_OP_MEMREF_REINTERPRET_CAST: reinterpret(t, op); return;
  case KILN_OP_MEMREF_COLLAPSE_SHAPE:
  case KILN_OP_MEMREF_EXPAND_SHAPE: reshape(t, op); return;
  case KILN_OP_MEMREF_COPY: copy(t, op); return;
  default: tl_fail(t, op, "unhandled memref op");
  }
}
