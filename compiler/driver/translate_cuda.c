/* translate-executables for cuda variants: the GPU pipeline, NVPTX, PTX.
 *
 * Takes: a cuda:sm_NN variant of a hal.executable whose inner module is
 * still at the hal level (bufferized linalg kernels), and the session.
 * Guarantees: the variant is lowered by compiler/codegen/gpu (launch
 * config, tiles per block, distribution to threads, loops), math is
 * approximated, scf lowered to cf, the kernels translated with the PTX
 * kernel ABI and compiled by compiler/codegen/cuda for the SM; the PTX
 * text is stored in the session under (executable, variant); each
 * kernel's block size (kiln.launch block_size) becomes its PTX .maxntid.
 * Each of the variant's hal.executable.export ops records how its kernel
 * is launched, for serialize to write as the variant's launch metadata:
 * kiln.block_size (the kernel's kiln.launch block_size, 1x1x1 when it has
 * none) and kiln.static_shared_memory_bytes (the kernel's workgroup
 * memory, memory-space-3 memref.allocas, each 16-byte aligned as the PTX
 * declares them), counted here while the IR still shows them. With
 * KILN_GPU_SIMT_CPU=1 in the environment (tests), a copy of the lowered
 * variant whose thread ids are loops (simt-to-loops) is inserted after it
 * as an llvm-cpu variant, which translate-executables then compiles like
 * any other. With --compile-to=llvm-ir the variant's LLVM module is
 * printed instead. */
#include "driver_internal.h"

#if defined(KILN_HAVE_CODEGEN_GPU) && defined(KILN_HAVE_TO_LLVM) && \
    defined(KILN_HAVE_CODEGEN_TRANSFORMS)
#include <stdlib.h>
#include <string.h>

#include "codegen_gpu.h"
#include "codegen_transforms.h"
#include "cuda_ptx.h"
#include "to_llvm.h"

static kiln_op *tc_inner(kiln_op *var) {
  for (kiln_op *o = var->regions[0].first ? var->regions[0].first->first : NULL; o; o = o->next)
    if (o->kind == KILN_OP_BUILTIN_MODULE) return o;
  return NULL;
}

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
static kiln_error *tc_record_launch(kiln_op *var, kiln_op *inner, const char *ename,
                                    const char *vname) {
  kiln_context *c = kiln_op_context(var);
  for (kiln_op *o = var->regions[0].first->first; o; o = o->next) {
    if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
    const char *xname = kiln_symbol_name(o);
    kiln_op *k = xname ? kiln_symbol_lookup(inner, xname) : NULL;
    if (!k)
      return kiln_error_new("executable @%s variant @%s: export @%s has no kernel", ename, vname,
                            xname ? xname : "?");
    int64_t block[3] = {1, 1, 1};
    const kiln_attr *l = kiln_op_get_attr(k, "kiln.launch");
    const kiln_attr *bs = l && l->kind == KILN_ATTR_DICT ? kiln_dict_get(l, "block_size") : NULL;
    if (bs) {
      if (bs->kind != KILN_ATTR_DENSE_ARRAY || bs->count != 3 || !kiln_type_is_int_or_index(bs->type))
        return kiln_error_new("executable @%s variant @%s: kernel @%s: kiln.launch block_size is not "
                              "an array of 3 integers", ename, vname, xname);
      memcpy(block, bs->data, sizeof block);
    }
    tc_shared acc = {0, NULL};
    kiln_walk_pre(k, tc_count_shared, &acc);
    if (acc.bad)
      return kiln_error_new("executable @%s variant @%s: kernel @%s: %s", ename, vname, xname, acc.bad);
    kiln_op_set_attr(o, "kiln.block_size", kiln_attr_dense_i64_array(c, 3, block));
    kiln_op_set_attr(o, "kiln.static_shared_memory_bytes",
                     kiln_attr_int(c, kiln_type_int(c, 64), (int64_t)acc.bytes));
  }
  return NULL;
}

kiln_error *kiln_driver_translate_cuda(kiln_session *s, kiln_op *top, kiln_op *exe, kiln_op *var) {
  const char *ename = kiln_symbol_name(exe), *vname = kiln_symbol_name(var);
  const kiln_attr *target = kiln_op_get_attr(var, "target");
  kiln_ptx_target_t pt;
  kiln_ptx_status_t st = kiln_ptx_target_parse(target->str, &pt);
  if (st) {
    kiln_error *e = kiln_error_new("executable @%s variant @%s: %s", ename, vname,
                                   kiln_llvm_cpu_status_message(st));
    kiln_llvm_cpu_status_free(st);
    return e;
  }
  kiln_error *err = kiln_codegen_gpu_lower_variant(top, exe, var);
  const char *simt = getenv("KILN_GPU_SIMT_CPU");
  if (!err && simt && strcmp(simt, "1") == 0) {
    kiln_op *copy = NULL;
    err = kiln_codegen_gpu_add_simt_variant(var, &copy);
    kiln_op *ci = copy ? tc_inner(copy) : NULL;
    if (!err && ci) err = kiln_approximate_math(ci);
    if (!err && ci) err = kiln_scf_to_cf(ci);
  }
  kiln_op *inner = tc_inner(var);
  if (!err && inner) err = kiln_approximate_math(inner);
  if (!err && inner) err = kiln_scf_to_cf(inner);
  if (err) {
    kiln_error *e = kiln_error_new("executable @%s variant @%s: %s", ename, vname, kiln_error_message(err));
    kiln_error_free(err);
    return e;
  }
  if (!inner) return kiln_error_new("executable @%s variant @%s has no inner builtin.module", ename, vname);
  if ((err = tc_record_launch(var, inner, ename, vname))) return err;
  kiln_to_llvm_export exports[64];
  uint32_t nexp = 0;
  for (kiln_op *o = var->regions[0].first->first; o && nexp < 64; o = o->next) {
    if (o->kind != KILN_OP_HAL_EXECUTABLE_EXPORT) continue;
    kiln_to_llvm_export *e = &exports[nexp++];
    memset(e, 0, sizeof *e);
    e->name = kiln_symbol_name(o);
    const kiln_attr *a = kiln_op_get_attr(o, "binding_count");
    e->binding_count = a && a->kind == KILN_ATTR_INTEGER ? (int32_t)a->i : -1;
    a = kiln_op_get_attr(o, "push_constant_count");
    e->push_constant_count = a && a->kind == KILN_ATTR_INTEGER ? (int32_t)a->i : -1;
    e->readonly_mask = -1;
  }
  kiln_to_llvm_options opts;
  memset(&opts, 0, sizeof opts);
  opts.kernel_module = true;
  opts.gpu_kernels = true;
  opts.exports = exports;
  opts.export_count = nexp;
  LLVMContextRef lctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  err = kiln_to_llvm_translate(inner, &opts, lctx, ename, &mod);
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
    st = kiln_ptx_abi_set_block_size(&abi, mod, fn, KILN_PTX_BLOCK_MAX, size);
    if (st) {
      err = kiln_error_new("executable @%s variant @%s: %s", ename, vname, kiln_llvm_cpu_status_message(st));
      kiln_llvm_cpu_status_free(st);
    }
  }
  if (!err && s->options.compile_to == KILN_STAGE_LLVM_IR) {
    char *text = LLVMPrintModuleToString(mod);
    FILE *out = s->options.output_path && strcmp(s->options.output_path, "-") != 0
                    ? fopen(s->options.output_path, "a") : stdout;
    if (!out) {
      err = kiln_error_new("cannot open '%s' for writing", s->options.output_path);
    } else {
      fprintf(out, "; executable @%s variant @%s (%s)\n%s\n", ename, vname, target->str, text);
      if (out != stdout) fclose(out);
    }
    LLVMDisposeMessage(text);
  } else if (!err) {
    kiln_ptx_result_t res;
    memset(&res, 0, sizeof res);
    st = kiln_ptx_compile(mod, &pt, &res);
    if (st) {
      err = kiln_error_new("executable @%s variant @%s: %s", ename, vname, kiln_llvm_cpu_status_message(st));
      kiln_llvm_cpu_status_free(st);
    } else {
      err = kiln_session_set_payload(s, ename, vname, KILN_PAYLOAD_PTX, "nvptx64", NULL,
                                     res.ptx.data, res.ptx.size);
      kiln_ptx_result_release(&res);
    }
  }
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(lctx);
  return err;
}
#else
/* Without the GPU libraries cuda variants stay unsupported. */
typedef int kiln_driver_translate_cuda_unused;
#endif
