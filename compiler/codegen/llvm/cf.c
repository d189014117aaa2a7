/* Control flow: one LLVM block per IR block, block arguments as phis
 * (seed: "Block arguments become phis"), cf.br and cf.cond_br. A
 * conditional branch whose two edges reach the same block with arguments
 * routes the false edge through a fresh block (seed: "Repeated Successor
 * Removal"), since a phi cannot tell two edges from one predecessor
 * apart. */
#include "tl_internal.h"

#include "dialects/cf.h"

#include <llvm-c/DebugInfo.h>

void tl_cf_create_blocks(tl *t, kiln_region *r) {
  uint32_t i = 0;
  for (kiln_block *b = r->first; b; b = b->next, i++) {
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(t->c, t->fn, i ? "" : "entry");
    tl_map_put(&t->blocks, b, bb);
    if (!i) {
      t->entry = bb;
      continue;
    }
    LLVMPositionBuilderAtEnd(t->b, bb);
    for (uint32_t a = 0; a < b->num_args; a++) {
      LLVMTypeRef ty = tl_type(t, b->args[a]->type);
      if (!ty) {
        tl_fail(t, kiln_block_parent_op(b), "block argument type cannot be translated");
        return;
      }
      tl_set(t, b->args[a], LLVMBuildPhi(t->b, ty, ""));
    }
  }
}

LLVMValueRef tl_entry_alloca(tl *t, LLVMTypeRef ty, LLVMValueRef count,
                             unsigned align) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(t->c);
  LLVMValueRef first = LLVMGetFirstInstruction(t->entry);
  /* Constant-size allocas go first in the entry block; dynamic ones stay
   * where the op is (their size is computed there). */
  bool at_entry = !count || LLVMIsAConstant(count);
  if (at_entry && first) LLVMPositionBuilderBefore(eb, first);
  else if (at_entry) LLVMPositionBuilderAtEnd(eb, t->entry);
  LLVMValueRef a = count ? LLVMBuildArrayAlloca(at_entry ? eb : t->b, ty, count, "")
                         : LLVMBuildAlloca(at_entry ? eb : t->b, ty, "");
  if (align) LLVMSetAlignment(a, align);
  LLVMDisposeBuilder(eb);
  return a;
}

/* Adds op's operands [first, first+count) as incoming values of dest's
 * phis, from the builder's current block. */
static bool add_incoming(tl *t, kiln_op *op, kiln_block *dest, uint32_t first,
                         uint32_t count) {
  if (!dest || dest->num_args != count) {
    tl_fail(t, op, "successor argument count mismatch");
    return false;
  }
  LLVMBasicBlockRef from = LLVMGetInsertBlock(t->b);
  for (uint32_t i = 0; i < count; i++) {
    LLVMValueRef v = tl_operand(t, op, first + i);
    LLVMValueRef phi = kiln_ptr_map_get(&t->values, dest->args[i]);
    if (!v || !phi) return false;
    LLVMAddIncoming(phi, &v, &from, 1);
  }
  return true;
}

static LLVMBasicBlockRef block_of(tl *t, kiln_op *op, kiln_block *b) {
  LLVMBasicBlockRef bb = b ? kiln_ptr_map_get(&t->blocks, b) : NULL;
  if (!bb) tl_fail(t, op, "successor is not a block of this function");
  return bb;
}

/* !llvm.loop !{self, !{"llvm.loop.unroll.disable"}} on a latch branch. */
static void keep_rolled(tl *t, LLVMValueRef br) {
  static const char hint[] = "llvm.loop.unroll.disable";
  LLVMMetadataRef str = LLVMMDStringInContext2(t->c, hint, sizeof hint - 1);
  LLVMMetadataRef ops[2] = {LLVMTemporaryMDNode(t->c, NULL, 0),
                            LLVMMDNodeInContext2(t->c, &str, 1)};
  LLVMMetadataRef id = LLVMMDNodeInContext2(t->c, ops, 2);
  LLVMMetadataReplaceAllUsesWith(ops[0], id); /* the loop id refers to itself */
  static const char kind[] = "llvm.loop";
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(t->c, kind, sizeof kind - 1),
                  LLVMMetadataAsValue(t->c, id));
}

void tl_cf_br(tl *t, kiln_op *op) {
  LLVMBasicBlockRef bb = block_of(t, op, op->successors[0]);
  if (!bb || !add_incoming(t, op, op->successors[0], 0, op->num_operands)) return;
  LLVMValueRef br = LLVMBuildBr(t->b, bb);
  if (kiln_op_get_attr(op, "kiln.no_unroll")) keep_rolled(t, br);
}

void tl_cf_cond_br(tl *t, kiln_op *op) {
  uint32_t f0, n0, f1, n1;
  kiln_cf_cond_br_args(op, 0, &f0, &n0);
  kiln_cf_cond_br_args(op, 1, &f1, &n1);
  kiln_block *tb = op->successors[0], *fb = op->successors[1];
  LLVMBasicBlockRef tbb = block_of(t, op, tb), fbb = block_of(t, op, fb);
  LLVMValueRef c = tl_operand(t, op, 0);
  if (!tbb || !fbb || !c) return;
  if (tb == fb && (n0 || n1)) {
    /* Repeated successor with arguments: the false edge gets its own
     * block, so the phis see two distinct predecessors. */
    LLVMBasicBlockRef cur = LLVMGetInsertBlock(t->b);
    LLVMBasicBlockRef dummy = LLVMInsertBasicBlockInContext(t->c, tbb, "");
    LLVMMoveBasicBlockAfter(dummy, cur);
    if (!add_incoming(t, op, tb, f0, n0)) return;
    LLVMBuildCondBr(t->b, c, tbb, dummy);
    LLVMPositionBuilderAtEnd(t->b, dummy);
    if (!add_incoming(t, op, fb, f1, n1)) return;
    LLVMBuildBr(t->b, fbb);
    LLVMPositionBuilderAtEnd(t->b, cur);
    return;
  }
  if (!add_incoming(t, op, tb, f0, n0) || !add_incoming(t, op, fb, f1, n1)) return;
  LLVMBuildCondBr(t->b, c, tbb, fbb);
}
