/* Builds the test kernels described in kernels.h with the LLVM-C builder
 * and the cuda ABI helpers. Index arithmetic is i32 (what the special
 * registers and push constants are); addresses are formed in i64. */
#include "kernels.h"

#include <stdio.h>

const char *const kernels_names[KERNELS_COUNT] = {
    "elementwise", "matmul_tiled", "reduce_sum", "reverse_block"};

typedef struct kb {
  const kiln_ptx_abi_t *abi;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMValueRef fn;
} kb_t;

static LLVMValueRef u32(const kb_t *k, uint32_t v) {
  return LLVMConstInt(k->abi->i32, v, 0);
}

static LLVMValueRef sreg(const kb_t *k, kiln_ptx_sreg_t r, uint32_t dim) {
  return kiln_ptx_read_sreg(k->abi, k->b, r, dim);
}

static LLVMBasicBlockRef block(const kb_t *k, const char *name) {
  return LLVMAppendBasicBlockInContext(k->abi->context, k->fn, name);
}

/* &base[i] for f32 elements; i is i32, zero-extended. */
static LLVMValueRef at(const kb_t *k, LLVMValueRef base, LLVMValueRef i) {
  LLVMValueRef wide = LLVMBuildZExt(k->b, i, k->abi->i64, "");
  return LLVMBuildInBoundsGEP2(k->b, k->abi->f32, base, &wide, 1, "");
}

/* &base[row * cols + col], in i64. */
static LLVMValueRef at2(const kb_t *k, LLVMValueRef base, LLVMValueRef row,
                        LLVMValueRef cols, LLVMValueRef col) {
  LLVMTypeRef i64 = k->abi->i64;
  LLVMValueRef r = LLVMBuildZExt(k->b, row, i64, "");
  LLVMValueRef n = LLVMBuildZExt(k->b, cols, i64, "");
  LLVMValueRef c = LLVMBuildZExt(k->b, col, i64, "");
  LLVMValueRef idx = LLVMBuildAdd(k->b, LLVMBuildMul(k->b, r, n, ""), c, "");
  return LLVMBuildInBoundsGEP2(k->b, k->abi->f32, base, &idx, 1, "");
}

/* cond ? *ptr : 0.0, the load only executed when cond holds. */
static LLVMValueRef load_or_zero(const kb_t *k, LLVMValueRef cond,
                                 LLVMValueRef (*addr)(const kb_t *, void *),
                                 void *arg) {
  LLVMBasicBlockRef from = LLVMGetInsertBlock(k->b);
  LLVMBasicBlockRef then = block(k, "load"), join = block(k, "loaded");
  LLVMBuildCondBr(k->b, cond, then, join);
  LLVMPositionBuilderAtEnd(k->b, then);
  LLVMValueRef v = LLVMBuildLoad2(k->b, k->abi->f32, addr(k, arg), "v");
  LLVMBuildBr(k->b, join);
  LLVMPositionBuilderAtEnd(k->b, join);
  LLVMValueRef phi = LLVMBuildPhi(k->b, k->abi->f32, "v_or_0");
  LLVMValueRef vals[2] = {LLVMConstReal(k->abi->f32, 0.0), v};
  LLVMBasicBlockRef blocks[2] = {from, then};
  LLVMAddIncoming(phi, vals, blocks, 2);
  return phi;
}

/* if (cond) { ... }: returns the join block; the builder is in "then". */
static LLVMBasicBlockRef if_then(const kb_t *k, LLVMValueRef cond) {
  LLVMBasicBlockRef then = block(k, "then"), join = block(k, "endif");
  LLVMBuildCondBr(k->b, cond, then, join);
  LLVMPositionBuilderAtEnd(k->b, then);
  return join;
}

static void end_if(const kb_t *k, LLVMBasicBlockRef join) {
  LLVMBuildBr(k->b, join);
  LLVMPositionBuilderAtEnd(k->b, join);
}

static LLVMValueRef ult(const kb_t *k, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildICmp(k->b, LLVMIntULT, a, b, "");
}

/* blockIdx.x * blockDim.x + threadIdx.x */
static LLVMValueRef global_x(const kb_t *k) {
  LLVMValueRef base = LLVMBuildMul(k->b, sreg(k, KILN_PTX_SREG_BLOCK_ID, 0),
                                   sreg(k, KILN_PTX_SREG_BLOCK_DIM, 0), "");
  return LLVMBuildAdd(k->b, base, sreg(k, KILN_PTX_SREG_THREAD_ID, 0), "i");
}

/*------------------------------------------------------------ elementwise */

typedef struct ew_addr {
  LLVMValueRef base, i;
} ew_addr_t;

static LLVMValueRef ew_at(const kb_t *k, void *arg) {
  ew_addr_t *a = arg;
  return at(k, a->base, a->i);
}

static void build_elementwise(const kb_t *k) {
  LLVMValueRef a = LLVMGetParam(k->fn, 0), b = LLVMGetParam(k->fn, 1),
               out = LLVMGetParam(k->fn, 2), n = LLVMGetParam(k->fn, 3);
  LLVMValueRef i = global_x(k);
  LLVMBasicBlockRef join = if_then(k, ult(k, i, n));
  LLVMValueRef x = LLVMBuildLoad2(k->b, k->abi->f32, at(k, a, i), "a");
  LLVMValueRef y = LLVMBuildLoad2(k->b, k->abi->f32, at(k, b, i), "b");
  LLVMBuildStore(k->b, LLVMBuildFAdd(k->b, x, y, "sum"), at(k, out, i));
  end_if(k, join);
}

/*------------------------------------------------------------ matmul */

typedef struct mm_addr {
  LLVMValueRef base, row, cols, col;
} mm_addr_t;

static LLVMValueRef mm_at(const kb_t *k, void *arg) {
  mm_addr_t *a = arg;
  return at2(k, a->base, a->row, a->cols, a->col);
}

static LLVMValueRef shared_tile(const kb_t *k, const char *name) {
  LLVMValueRef g = NULL;
  kiln_error *s = kiln_ptx_add_shared_array(
      k->abi, k->m, name, k->abi->f32, KERNELS_TILE * KERNELS_TILE, 16, &g);
  if (s) {
    fprintf(stderr, "%s\n", kiln_error_message(s));
    kiln_error_free(s);
  }
  return g;
}

static bool build_matmul(const kb_t *k) {
  LLVMBuilderRef b = k->b;
  LLVMTypeRef f32 = k->abi->f32, i32 = k->abi->i32;
  LLVMValueRef A = LLVMGetParam(k->fn, 0), B = LLVMGetParam(k->fn, 1),
               C = LLVMGetParam(k->fn, 2), M = LLVMGetParam(k->fn, 3),
               N = LLVMGetParam(k->fn, 4), K = LLVMGetParam(k->fn, 5);
  LLVMValueRef as = shared_tile(k, "a_tile"), bs = shared_tile(k, "b_tile");
  if (!as || !bs) return false;
  LLVMValueRef tile = u32(k, KERNELS_TILE);
  LLVMValueRef tx = sreg(k, KILN_PTX_SREG_THREAD_ID, 0);
  LLVMValueRef ty = sreg(k, KILN_PTX_SREG_THREAD_ID, 1);
  LLVMValueRef row = LLVMBuildAdd(
      b, LLVMBuildMul(b, sreg(k, KILN_PTX_SREG_BLOCK_ID, 1), tile, ""), ty, "row");
  LLVMValueRef col = LLVMBuildAdd(
      b, LLVMBuildMul(b, sreg(k, KILN_PTX_SREG_BLOCK_ID, 0), tile, ""), tx, "col");
  LLVMValueRef tiles = LLVMBuildUDiv(
      b, LLVMBuildAdd(b, K, u32(k, KERNELS_TILE - 1), ""), tile, "tiles");
  LLVMValueRef row_ok = ult(k, row, M), col_ok = ult(k, col, N);

  /* for (t = 0; t < tiles; t++) */
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = block(k, "tile_loop"), done = block(k, "tiles_done");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, tiles, u32(k, 0), ""), loop, done);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef t = LLVMBuildPhi(b, i32, "t");
  LLVMValueRef acc = LLVMBuildPhi(b, f32, "acc");

  LLVMValueRef ak = LLVMBuildAdd(b, LLVMBuildMul(b, t, tile, ""), tx, "ak");
  mm_addr_t a_addr = {A, row, K, ak};
  LLVMValueRef va = load_or_zero(
      k, LLVMBuildAnd(b, row_ok, ult(k, ak, K), ""), mm_at, &a_addr);
  LLVMBuildStore(b, va, at2(k, as, ty, tile, tx));
  LLVMValueRef bk = LLVMBuildAdd(b, LLVMBuildMul(b, t, tile, ""), ty, "bk");
  mm_addr_t b_addr = {B, bk, N, col};
  LLVMValueRef vb = load_or_zero(
      k, LLVMBuildAnd(b, ult(k, bk, K), col_ok, ""), mm_at, &b_addr);
  LLVMBuildStore(b, vb, at2(k, bs, ty, tile, tx));
  kiln_ptx_barrier(k->abi, b);

  /* for (kk = 0; kk < 16; kk++) acc += As[ty][kk] * Bs[kk][tx] */
  LLVMBasicBlockRef inner_pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef inner = block(k, "dot");
  LLVMBuildBr(b, inner);
  LLVMPositionBuilderAtEnd(b, inner);
  LLVMValueRef kk = LLVMBuildPhi(b, i32, "kk");
  LLVMValueRef part = LLVMBuildPhi(b, f32, "part");
  LLVMValueRef x = LLVMBuildLoad2(b, f32, at2(k, as, ty, tile, kk), "as");
  LLVMValueRef y = LLVMBuildLoad2(b, f32, at2(k, bs, kk, tile, tx), "bs");
  /* llvm.fmuladd: a*b+c that may fuse; a plain fmul + fadd becomes PTX
   * mul.rn + add.rn, which ptxas must not contract */
  unsigned fmuladd = LLVMLookupIntrinsicID("llvm.fmuladd", 12);
  LLVMValueRef fma_fn = LLVMGetIntrinsicDeclaration(k->m, fmuladd, &f32, 1);
  LLVMTypeRef fma_ty = LLVMIntrinsicGetType(k->abi->context, fmuladd, &f32, 1);
  LLVMValueRef fma_args[3] = {x, y, part};
  LLVMValueRef next_part = LLVMBuildCall2(b, fma_ty, fma_fn, fma_args, 3, "");
  LLVMValueRef next_kk = LLVMBuildAdd(b, kk, u32(k, 1), "");
  LLVMBasicBlockRef inner_end = block(k, "dot_done");
  LLVMBuildCondBr(b, ult(k, next_kk, tile), inner, inner_end);
  LLVMValueRef kk_in[2] = {u32(k, 0), next_kk};
  LLVMValueRef part_in[2] = {acc, next_part};
  LLVMBasicBlockRef inner_from[2] = {inner_pre, inner};
  LLVMAddIncoming(kk, kk_in, inner_from, 2);
  LLVMAddIncoming(part, part_in, inner_from, 2);
  LLVMPositionBuilderAtEnd(b, inner_end);
  kiln_ptx_barrier(k->abi, b);

  LLVMValueRef next_t = LLVMBuildAdd(b, t, u32(k, 1), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMBuildCondBr(b, ult(k, next_t, tiles), loop, done);
  LLVMValueRef t_in[2] = {u32(k, 0), next_t};
  LLVMValueRef acc_in[2] = {LLVMConstReal(f32, 0.0), next_part};
  LLVMBasicBlockRef from[2] = {entry, latch};
  LLVMAddIncoming(t, t_in, from, 2);
  LLVMAddIncoming(acc, acc_in, from, 2);

  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef result = LLVMBuildPhi(b, f32, "result");
  LLVMValueRef res_in[2] = {LLVMConstReal(f32, 0.0), next_part};
  LLVMAddIncoming(result, res_in, from, 2);
  LLVMBasicBlockRef join = if_then(k, LLVMBuildAnd(b, row_ok, col_ok, ""));
  LLVMBuildStore(b, result, at2(k, C, row, N, col));
  end_if(k, join);
  return true;
}

/*------------------------------------------------------------ reduction */

static bool build_reduce(const kb_t *k) {
  LLVMBuilderRef b = k->b;
  LLVMTypeRef f32 = k->abi->f32;
  LLVMValueRef in = LLVMGetParam(k->fn, 0), out = LLVMGetParam(k->fn, 1),
               n = LLVMGetParam(k->fn, 2);
  LLVMValueRef partial = NULL;
  kiln_error *s =
      kiln_ptx_add_shared_array(k->abi, k->m, "warp_sums", f32, 32, 0, &partial);
  if (s) {
    fprintf(stderr, "%s\n", kiln_error_message(s));
    kiln_error_free(s);
    return false;
  }
  LLVMValueRef tid = sreg(k, KILN_PTX_SREG_THREAD_ID, 0);
  LLVMValueRef i = global_x(k);
  ew_addr_t in_addr = {in, i};
  LLVMValueRef v = load_or_zero(k, ult(k, i, n), ew_at, &in_addr);
  v = kiln_ptx_warp_reduce(k->abi, b, LLVMFAdd, v);
  LLVMValueRef lane = LLVMBuildAnd(b, tid, u32(k, 31), "lane");
  LLVMValueRef warp = LLVMBuildLShr(b, tid, u32(k, 5), "warp");
  LLVMValueRef lane0 = LLVMBuildICmp(b, LLVMIntEQ, lane, u32(k, 0), "");
  LLVMBasicBlockRef join = if_then(k, lane0);
  LLVMBuildStore(b, v, at(k, partial, warp));
  end_if(k, join);
  kiln_ptx_barrier(k->abi, b);

  /* Warp 0 adds the warps' sums; whole warps take this branch. */
  join = if_then(k, LLVMBuildICmp(b, LLVMIntEQ, warp, u32(k, 0), ""));
  LLVMValueRef warps = LLVMBuildLShr(
      b, LLVMBuildAdd(b, sreg(k, KILN_PTX_SREG_BLOCK_DIM, 0), u32(k, 31), ""),
      u32(k, 5), "warps");
  ew_addr_t part_addr = {partial, lane};
  LLVMValueRef w = load_or_zero(k, ult(k, lane, warps), ew_at, &part_addr);
  w = kiln_ptx_warp_reduce(k->abi, b, LLVMFAdd, w);
  LLVMBasicBlockRef join2 = if_then(k, LLVMBuildICmp(b, LLVMIntEQ, tid, u32(k, 0), ""));
  LLVMBuildStore(b, w, at(k, out, sreg(k, KILN_PTX_SREG_BLOCK_ID, 0)));
  end_if(k, join2);
  end_if(k, join);
  return true;
}

/*------------------------------------------------------------ reverse */

static bool build_reverse(const kb_t *k) {
  LLVMBuilderRef b = k->b;
  LLVMValueRef in = LLVMGetParam(k->fn, 0), out = LLVMGetParam(k->fn, 1),
               n = LLVMGetParam(k->fn, 2);
  LLVMValueRef dyn = NULL;
  kiln_error *s = kiln_ptx_dynamic_shared(k->abi, k->m, &dyn);
  if (s) {
    fprintf(stderr, "%s\n", kiln_error_message(s));
    kiln_error_free(s);
    return false;
  }
  LLVMValueRef tid = sreg(k, KILN_PTX_SREG_THREAD_ID, 0);
  LLVMValueRef ntid = sreg(k, KILN_PTX_SREG_BLOCK_DIM, 0);
  LLVMValueRef i = global_x(k);
  ew_addr_t in_addr = {in, i};
  LLVMValueRef v = load_or_zero(k, ult(k, i, n), ew_at, &in_addr);
  LLVMBuildStore(b, v, at(k, dyn, tid));
  kiln_ptx_barrier(k->abi, b);
  LLVMValueRef mirror =
      LLVMBuildSub(b, LLVMBuildSub(b, ntid, u32(k, 1), ""), tid, "mirror");
  LLVMBasicBlockRef join = if_then(k, ult(k, i, n));
  LLVMValueRef r = LLVMBuildLoad2(b, k->abi->f32, at(k, dyn, mirror), "r");
  LLVMBuildStore(b, r, at(k, out, i));
  end_if(k, join);
  return true;
}

/*------------------------------------------------------------ modules */

LLVMValueRef kernels_add(const kiln_ptx_abi_t *abi, LLVMModuleRef m,
                         kernels_id_t id) {
  static const kiln_ptx_kernel_desc_t descs[KERNELS_COUNT] = {
      {"elementwise", 3, 1, 0x3, 16, 0},
      {"matmul_tiled", 3, 3, 0x3, 16, 0},
      {"reduce_sum", 2, 1, 0x1, 16, 0},
      {"reverse_block", 2, 1, 0x1, 4, 0},
  };
  static const struct {
    kiln_ptx_block_bound_t bound;
    uint32_t size[3];
  } bounds[KERNELS_COUNT] = {
      {KILN_PTX_BLOCK_MAX, {256, 1, 1}},
      {KILN_PTX_BLOCK_REQUIRED, {KERNELS_TILE, KERNELS_TILE, 1}},
      {KILN_PTX_BLOCK_REQUIRED, {KERNELS_REDUCE_BLOCK, 1, 1}},
      {KILN_PTX_BLOCK_MAX, {1024, 1, 1}},
  };
  kb_t k = {abi, m, NULL, NULL};
  kiln_error *s = kiln_ptx_abi_add_kernel(abi, m, &descs[id], &k.fn);
  if (!s)
    s = kiln_ptx_abi_set_block_size(abi, m, k.fn, bounds[id].bound, bounds[id].size);
  if (s) {
    fprintf(stderr, "kernel %s: %s\n", kernels_names[id],
            kiln_error_message(s));
    kiln_error_free(s);
    return NULL;
  }
  k.b = LLVMCreateBuilderInContext(abi->context);
  LLVMPositionBuilderAtEnd(k.b, block(&k, "entry"));
  bool ok = true;
  switch (id) {
  case KERNELS_ELEMENTWISE: build_elementwise(&k); break;
  case KERNELS_MATMUL: ok = build_matmul(&k); break;
  case KERNELS_REDUCE: ok = build_reduce(&k); break;
  default: ok = build_reverse(&k); break;
  }
  if (ok) LLVMBuildRetVoid(k.b);
  LLVMDisposeBuilder(k.b);
  return ok ? k.fn : NULL;
}

LLVMModuleRef kernels_module(LLVMContextRef ctx, unsigned mask) {
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("kernels", ctx);
  for (unsigned id = 0; id < KERNELS_COUNT; id++) {
    if (!(mask & (1u << id))) continue;
    if (!kernels_add(&abi, m, (kernels_id_t)id)) {
      LLVMDisposeModule(m);
      return NULL;
    }
  }
  return m;
}
