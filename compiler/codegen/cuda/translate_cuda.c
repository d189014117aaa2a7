/* translate-cuda: the cuda target's last pass, per variant: NVPTX, PTX.
 *
 * Takes: the inner module of a cuda:sm_NN hal.executable.variant after the
 * GPU passes, approximate-math and scf-to-cf (compiler/driver/pipeline.def:
 * loops with thread ids and barriers, no scf), and the compile session.
 * Guarantees: each of the variant's hal.executable.export ops records how
 * its kernel is launched, for serialize to write as the variant's launch
 * metadata: kiln.block_size (the kernel's kiln.launch block_size, 1x1x1
 * when it has none) and kiln.static_shared_memory_bytes (the kernel's
 * workgroup memory, memory-space-3 memref.allocas, each 16-byte aligned as
 * the PTX declares them), counted here while the IR still shows them.
 * Unless the session already holds a payload for the variant, its kernels
 * are translated with the PTX kernel ABI (each kernel's block size becomes
 * its PTX .maxntid) and compiled by compiler/codegen/cuda for the SM; the
 * PTX text is stored in the session under (executable, variant). With
 * --compile-to=llvm-ir the variant's LLVM module is printed instead. */
#include "cuda_passes.h"

#include <stdlib.h>
#include <string.h>

#include "cuda_ptx.h"
#include "session.h"
#include "to_llvm.h"

typedef struct tc_shared {
  uint64_t bytes;
  const char *bad; /* a workgroup alloca the sum cannot size */
} tc_shared;

static kiln_walk_result tc_count_shared(kiln_op *op, void *user) {
  tc_shared *acc = user;
  if (op->kind != KILN_OP_MEMREF_ALLOCA || !op->num_results) return KILN_WALK_ADVANCE;
  const kiln_type *t = op->results[0].type;
  const kiln_attr *ms = t->kind == KILN_TYPE_MEMREF ? t->memspace : NULL;
  if (!ms || ms->kind != KILN_ATTR_INTEGER || ms->i != 3) return KILN_WALK_ADVANCE;
  uint64_t n = kiln_dense_elem_size(t->elem);
  for (uint32_t i = 0; n && i < t->rank; i++)
    n = t->shape[i] > 0 && (uint64_t)t->shape[i] <= (1ull << 32) / n ? n * (uint64_t)t->shape[i] : 0;
  if (!n) {
    acc->bad = "workgroup memory (memory space 3) needs a static shape of sized elements";
    return KILN_WALK_INTERRUPT;
  }
  acc->bytes = (acc->bytes + 15) / 16 * 16 + n;
  if (acc->bytes > UINT32_MAX) {
    acc->bad = "workgroup memory exceeds 4 GiB";
    return KILN_WALK_INTERRUPT;
  }
  return KILN_WALK_ADVANCE;
}

/* kiln.block_size and kiln.static_shared_memory_bytes on every export of
 * the variant, from the kernel of the same name. */
static kiln_error *tc_record_launch(kiln_op *var, kiln_op *inner) {
  kiln_context *c = kiln_op_context(var);
  for (kiln_op *o = var->regions[0].first->first; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
    const char *xname = kiln_symbol_name(o);
    kiln_op *k = xname ? kiln_symbol_lookup(inner, xname) : NULL;
    if (!k)
      return kiln_error_new("export @%s has no kernel", xname ? xname : "?");
    int64_t block[3] = {1, 1, 1};
    const kiln_attr *l = kiln_op_get_attr(k, "kiln.launch");
    const kiln_attr *bs = l && l->kind == KILN_ATTR_DICT ? kiln_dict_get(l, "block_size") : NULL;
    if (bs) {
      if (bs->kind != KILN_ATTR_DENSE_ARRAY || bs->count != 3 || !kiln_type_is_int_or_index(bs->type))
        return kiln_error_new("kernel @%s: kiln.launch block_size is not an array of 3 integers",
                              xname);
      memcpy(block, bs->data, sizeof block);
    }
    tc_shared acc = {0, NULL};
    kiln_walk_pre(k, tc_count_shared, &acc);
    if (acc.bad)
      return kiln_error_new("kernel @%s: %s", xname, acc.bad);
    kiln_op_set_attr(o, "kiln.block_size", kiln_attr_dense_i64_array(c, 3, block));
    kiln_op_set_attr(o, "kiln.static_shared_memory_bytes",
                     kiln_attr_int(c, kiln_type_int(c, 64), (int64_t)acc.bytes));
  }
  return NULL;
}

kiln_error *kiln_cuda_translate_variant(kiln_op *inner, void *user) {
  (void)user;
  kiln_session_variant sv;
  kiln_error *err = kiln_session_variant_of(inner, "translate-cuda", &sv);
  if (err || sv.has_payload) return err; /* a substituted payload stays */
  kiln_session *s = sv.session;
  kiln_op *var = sv.variant;
  const char *ename = sv.executable_name, *vname = sv.variant_name, *target = sv.target;
  kiln_ptx_target_t pt;
  err = kiln_ptx_target_parse(target, &pt);
  if (err) return err;
  err = tc_record_launch(var, inner);
  if (err) return err;
  /* (the read-only mask matters only to the CPU export table) */
  kiln_to_llvm_export *exports;
  uint32_t nexp;
  if ((err = kiln_to_llvm_variant_exports(var, &exports, &nexp))) return err;
  kiln_to_llvm_options opts;
  memset(&opts, 0, sizeof opts);
  opts.kernel_module = true;
  opts.gpu_kernels = true;
  opts.exports = exports;
  opts.export_count = nexp;
  LLVMContextRef lctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  err = kiln_to_llvm_translate(inner, &opts, lctx, ename, &mod);
  free(exports);
  /* Launch bounds: at most the block size the kernel was distributed for. */
  for (kiln_op *f = kiln_module_body(inner)->first; !err && f; f = f->next) {
    const kiln_attr *l = f->kind == KILN_OP_FUNC_FUNC ? kiln_op_get_attr(f, "kiln.launch") : NULL;
    const kiln_attr *ws = l && l->kind == KILN_ATTR_DICT ? kiln_dict_get(l, "block_size") : NULL;
    LLVMValueRef fn = LLVMGetNamedFunction(mod, kiln_symbol_name(f));
    if (!ws || ws->kind != KILN_ATTR_DENSE_ARRAY || ws->count != 3 || !fn) continue;
    const int64_t *w = ws->data;
    kiln_ptx_abi_t abi;
    kiln_ptx_abi_init(&abi, lctx);
    uint32_t size[3] = {(uint32_t)w[0], (uint32_t)w[1], (uint32_t)w[2]};
    err = kiln_ptx_abi_set_block_size(&abi, mod, fn, KILN_PTX_BLOCK_MAX, size);
  }
  if (!err && s->options.compile_to == KILN_STAGE_LLVM_IR) {
    err = kiln_to_llvm_print_variant(mod, ename, vname, target, s->options.output_path);
  } else if (!err) {
    kiln_ptx_result_t res;
    memset(&res, 0, sizeof res);
    err = kiln_ptx_compile(mod, &pt, &res);
    if (!err) {
      err = kiln_session_set_payload(s, ename, vname, KILN_PAYLOAD_PTX, "nvptx64", NULL,
                                     res.ptx.data, res.ptx.size);
      unsigned major, minor, patch;
      LLVMGetVersion(&major, &minor, &patch);
      if (!err) kiln_session_note_llvm(s, ename, vname, major, minor, patch);
      kiln_ptx_result_release(&res);
    }
  }
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(lctx);
  return err;
}
