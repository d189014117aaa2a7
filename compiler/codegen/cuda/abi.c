/* The kernel ABI in LLVM IR: kernel definitions whose parameters are the
 * binding pointers (ptr addrspace(1)) then the i32 push constants, marked
 * as PTX entries, and their launch bounds as !nvvm.annotations entries
 * (LLVM 19 reads .maxntid/.reqntid only from there). Guarantees the
 * module always says the same thing twice: calling convention and
 * "kernel" annotation together, at most one launch bound per kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cptx_internal.h"

#define CPTX_ANNOTATIONS "nvvm.annotations"

void kiln_ptx_abi_init(kiln_ptx_abi_t *abi, LLVMContextRef context) {
  memset(abi, 0, sizeof *abi);
  abi->context = context;
  abi->void_type = LLVMVoidTypeInContext(context);
  abi->i1 = LLVMInt1TypeInContext(context);
  abi->i32 = LLVMInt32TypeInContext(context);
  abi->i64 = LLVMInt64TypeInContext(context);
  abi->f32 = LLVMFloatTypeInContext(context);
  abi->ptr = LLVMPointerTypeInContext(context, KILN_PTX_ADDRSPACE_GENERIC);
  abi->global_ptr = LLVMPointerTypeInContext(context, KILN_PTX_ADDRSPACE_GLOBAL);
  abi->shared_ptr = LLVMPointerTypeInContext(context, KILN_PTX_ADDRSPACE_SHARED);
}

/*------------------------------------------------------------ annotations */

void cptx_each_annotation(LLVMModuleRef module, cptx_annotation_fn visit,
                          void *arg) {
  unsigned n = LLVMGetNamedMetadataNumOperands(module, CPTX_ANNOTATIONS);
  if (n == 0) return;
  LLVMValueRef nodes[64];
  LLVMValueRef *all = n <= 64 ? nodes : malloc(sizeof *all * n);
  if (!all) return;
  LLVMGetNamedMetadataOperands(module, CPTX_ANNOTATIONS, all);
  for (unsigned i = 0; i < n; i++) {
    /* Other producers put longer lists here (fn, key, value, key, value,
     * ...); every (key, value) pair counts. */
    unsigned count = LLVMGetMDNodeNumOperands(all[i]);
    if (count < 3 || count > 64) continue;
    LLVMValueRef ops[64];
    LLVMGetMDNodeOperands(all[i], ops);
    if (!ops[0] || !LLVMIsAFunction(ops[0])) continue;
    bool go = true;
    for (unsigned k = 1; go && k + 1 < count; k += 2) {
      unsigned len = 0;
      const char *key = ops[k] ? LLVMGetMDString(ops[k], &len) : NULL;
      if (key && ops[k + 1] && LLVMIsAConstantInt(ops[k + 1]))
        go = visit(ops[0], key, len, ops[k + 1], arg);
    }
    if (!go) break;
  }
  if (all != nodes) free(all);
}

static void cptx_annotate(const kiln_ptx_abi_t *abi, LLVMModuleRef module,
                          LLVMValueRef fn, const char *key, uint32_t value) {
  LLVMMetadataRef ops[3] = {
      LLVMValueAsMetadata(fn),
      LLVMMDStringInContext2(abi->context, key, strlen(key)),
      LLVMValueAsMetadata(LLVMConstInt(abi->i32, value, 0)),
  };
  LLVMValueRef node =
      LLVMMetadataAsValue(abi->context, LLVMMDNodeInContext2(abi->context, ops, 3));
  LLVMAddNamedMetadataOperand(module, CPTX_ANNOTATIONS, node);
}

typedef struct cptx_find {
  LLVMValueRef fn;
  const char *key;
  bool found;
} cptx_find_t;

static bool cptx_find_visit(LLVMValueRef fn, const char *key, size_t len,
                            LLVMValueRef value, void *arg) {
  cptx_find_t *f = arg;
  if (fn == f->fn && strlen(f->key) == len && memcmp(key, f->key, len) == 0 &&
      LLVMConstIntGetZExtValue(value) != 0)
    f->found = true;
  return !f->found;
}

static bool cptx_has_kernel_annotation(LLVMModuleRef module, LLVMValueRef fn) {
  cptx_find_t f = {fn, "kernel", false};
  cptx_each_annotation(module, cptx_find_visit, &f);
  return f.found;
}

bool kiln_ptx_is_kernel(LLVMModuleRef module, LLVMValueRef fn) {
  return LLVMGetFunctionCallConv(fn) == LLVMPTXKernelCallConv ||
         cptx_has_kernel_annotation(module, fn);
}

void cptx_mark_kernel(LLVMModuleRef module, LLVMValueRef fn) {
  LLVMSetFunctionCallConv(fn, LLVMPTXKernelCallConv);
  if (cptx_has_kernel_annotation(module, fn)) return;
  kiln_ptx_abi_t abi;
  kiln_ptx_abi_init(&abi, LLVMGetModuleContext(module));
  cptx_annotate(&abi, module, fn, "kernel", 1);
}

/*------------------------------------------------------------ kernels */

static void cptx_add_enum(LLVMContextRef ctx, LLVMValueRef fn, unsigned index,
                          const char *name, uint64_t value) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(ctx, kind, value));
}

kiln_error *kiln_ptx_abi_add_kernel(const kiln_ptx_abi_t *abi,
                                    LLVMModuleRef module,
                                    const kiln_ptx_kernel_desc_t *d,
                                    LLVMValueRef *out) {
  *out = NULL;
  if (!d->name || !*d->name) return kiln_error_new("cuda kernel: empty name");
  if (LLVMGetNamedFunction(module, d->name) || LLVMGetNamedGlobal(module, d->name))
    return kiln_error_new("cuda kernel '%s': the module already has a symbol of "
                          "that name",
                          d->name);
  if (d->binding_count > 32)
    return kiln_error_new("cuda kernel '%s': %u bindings, at most 32 fit the "
                          "read-only mask",
                          d->name, d->binding_count);
  if (d->binding_count < 32 && (d->readonly_binding_mask >> d->binding_count))
    return kiln_error_new("cuda kernel '%s': read-only mask 0x%x names bindings "
                          "beyond its %u bindings",
                          d->name, d->readonly_binding_mask, d->binding_count);
  if (d->binding_count < 32 && (d->aliased_binding_mask >> d->binding_count))
    return kiln_error_new("cuda kernel '%s': aliased mask 0x%x names bindings "
                          "beyond its %u bindings",
                          d->name, d->aliased_binding_mask, d->binding_count);
  if (d->binding_align & (d->binding_align - 1))
    return kiln_error_new("cuda kernel '%s': binding alignment %u is not a power "
                          "of two",
                          d->name, d->binding_align);
  /* PTX before ISA 8.1 (all of cuda_sms.def) passes at most 4 KiB of
   * kernel parameters: 8 bytes per binding, 4 per push constant. */
  uint64_t param_bytes = 8ull * d->binding_count + 4ull * d->push_constant_count;
  if (param_bytes > 4096)
    return kiln_error_new("cuda kernel '%s': %u bindings and %u push constants "
                          "take %llu bytes of kernel parameters, at most 4096 "
                          "fit",
                          d->name, d->binding_count, d->push_constant_count,
                          (unsigned long long)param_bytes);
  uint32_t n = d->binding_count + d->push_constant_count;
  LLVMTypeRef one;
  LLVMTypeRef *params = n ? malloc(sizeof *params * n) : &one;
  if (!params) return kiln_error_new("cuda: out of memory");
  for (uint32_t i = 0; i < n; i++)
    params[i] = i < d->binding_count ? abi->global_ptr : abi->i32;
  LLVMValueRef fn = LLVMAddFunction(
      module, d->name, LLVMFunctionType(abi->void_type, params, n, 0));
  if (params != &one) free(params);

  cptx_add_enum(abi->context, fn, LLVMAttributeFunctionIndex, "nounwind", 0);
  for (uint32_t i = 0; i < n; i++) {
    char name[32];
    LLVMValueRef p = LLVMGetParam(fn, i);
    unsigned index = i + 1;
    cptx_add_enum(abi->context, fn, index, "noundef", 0);
    if (i >= d->binding_count) {
      snprintf(name, sizeof name, "pc%u", i - d->binding_count);
      LLVMSetValueName2(p, name, strlen(name));
      continue;
    }
    snprintf(name, sizeof name, "binding%u", i);
    LLVMSetValueName2(p, name, strlen(name));
    if (!(d->aliased_binding_mask & (1u << i)))
      cptx_add_enum(abi->context, fn, index, "noalias", 0);
    cptx_add_enum(abi->context, fn, index, "nocapture", 0);
    if (d->binding_align > 1)
      cptx_add_enum(abi->context, fn, index, "align", d->binding_align);
    if (d->readonly_binding_mask & (1u << i))
      cptx_add_enum(abi->context, fn, index, "readonly", 0);
  }
  cptx_mark_kernel(module, fn);
  *out = fn;
  return NULL;
}

/*------------------------------------------------------------ launch bounds */

static const char *const cptx_bound_keys[2][3] = {
    {"maxntidx", "maxntidy", "maxntidz"},
    {"reqntidx", "reqntidy", "reqntidz"},
};

typedef struct cptx_bounds {
  LLVMValueRef fn;
  bool seen[2];
  uint32_t size[2][3];
} cptx_bounds_t;

static bool cptx_bounds_visit(LLVMValueRef fn, const char *key, size_t len,
                              LLVMValueRef value, void *arg) {
  cptx_bounds_t *b = arg;
  if (fn != b->fn) return true;
  for (int k = 0; k < 2; k++)
    for (int d = 0; d < 3; d++)
      if (len == 8 && memcmp(key, cptx_bound_keys[k][d], 8) == 0) {
        b->seen[k] = true;
        b->size[k][d] = (uint32_t)LLVMConstIntGetZExtValue(value);
      }
  return true;
}

bool kiln_ptx_abi_get_block_size(LLVMModuleRef module, LLVMValueRef kernel,
                                 kiln_ptx_block_bound_t *bound,
                                 uint32_t size[3]) {
  cptx_bounds_t b = {kernel, {false, false}, {{1, 1, 1}, {1, 1, 1}}};
  cptx_each_annotation(module, cptx_bounds_visit, &b);
  int k = b.seen[KILN_PTX_BLOCK_REQUIRED] ? KILN_PTX_BLOCK_REQUIRED
          : b.seen[KILN_PTX_BLOCK_MAX]    ? KILN_PTX_BLOCK_MAX
                                          : -1;
  if (k < 0) {
    size[0] = size[1] = size[2] = 0;
    return false;
  }
  *bound = (kiln_ptx_block_bound_t)k;
  memcpy(size, b.size[k], sizeof b.size[k]);
  return true;
}

kiln_error *kiln_ptx_abi_set_block_size(const kiln_ptx_abi_t *abi,
                                        LLVMModuleRef module,
                                        LLVMValueRef kernel,
                                        kiln_ptx_block_bound_t bound,
                                        const uint32_t size[3]) {
  size_t len;
  const char *name = kernel ? LLVMGetValueName2(kernel, &len) : "";
  if (!kernel || !LLVMIsAFunction(kernel) ||
      LLVMGetGlobalParent(kernel) != module || !kiln_ptx_is_kernel(module, kernel))
    return kiln_error_new("cuda: launch bounds for '%s', which is not a kernel "
                          "of this module",
                          name);
  if (bound != KILN_PTX_BLOCK_MAX && bound != KILN_PTX_BLOCK_REQUIRED)
    return kiln_error_new("cuda kernel '%s': unknown launch bound kind %d", name,
                          (int)bound);
  static const uint32_t limit[3] = {1024, 1024, 64};
  uint64_t threads = 1;
  for (int d = 0; d < 3; d++) {
    if (size[d] == 0 || size[d] > limit[d])
      return kiln_error_new("cuda kernel '%s': block size %c = %u is outside "
                            "1..%u",
                            name, "xyz"[d], size[d], limit[d]);
    threads *= size[d];
  }
  if (threads > 1024)
    return kiln_error_new("cuda kernel '%s': block %ux%ux%u has %llu threads, at "
                          "most 1024 are allowed",
                          name, size[0], size[1], size[2],
                          (unsigned long long)threads);
  kiln_ptx_block_bound_t have;
  uint32_t old[3];
  if (kiln_ptx_abi_get_block_size(module, kernel, &have, old))
    return kiln_error_new("cuda kernel '%s': launch bounds already set (%s "
                       "%ux%ux%u); PTX allows one .maxntid or .reqntid",
                       name, have == KILN_PTX_BLOCK_REQUIRED ? "reqntid" : "maxntid",
                       old[0], old[1], old[2]);
  for (int d = 0; d < 3; d++)
    cptx_annotate(abi, module, kernel, cptx_bound_keys[bound][d], size[d]);
  return NULL;
}
