/* The executable ABI in LLVM IR: struct types mirroring
 * format/include/kiln/executable_abi.h (built from llvm_cpu_abi_fields.def,
 * whose offsets the unit test checks against the C structs), entry-point
 * declarations, the constant export table with the exported
 * kiln_executable_query function, and loads of dispatch/workgroup state
 * fields so that code generation never writes these GEPs by hand. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/executable_abi.h"
#include "lcpu_internal.h"

/* Both supported architectures are LP64 and the header uses fixed-width
 * types, so the host's struct sizes are the target's. */
_Static_assert(sizeof(void *) == 8, "llvm-cpu targets are LP64; build the "
                                    "compiler for a 64-bit host");

static LLVMTypeRef lcpu_kind_type(const kiln_llvm_cpu_abi_t *abi, int kind) {
  enum { I32, I32X3, I64, PTR };
  switch (kind) {
  case I32: return abi->i32;
  case I32X3: return LLVMArrayType2(abi->i32, 3);
  case I64: return abi->i64;
  default: return abi->ptr;
  }
}

/* Named struct "kiln.NAME" with the field list's types; reused when the
 * context already has it (several modules share one context). */
static LLVMTypeRef lcpu_struct(const kiln_llvm_cpu_abi_t *abi, const char *name,
                               const int *kinds, unsigned count) {
  LLVMTypeRef t = LLVMGetTypeByName2(abi->context, name);
  if (t) return t;
  LLVMTypeRef fields[16];
  for (unsigned i = 0; i < count; i++) fields[i] = lcpu_kind_type(abi, kinds[i]);
  t = LLVMStructCreateNamed(abi->context, name);
  LLVMStructSetBody(t, fields, count, 0);
  return t;
}

void kiln_llvm_cpu_abi_init(kiln_llvm_cpu_abi_t *abi, LLVMContextRef context) {
  enum { I32, I32X3, I64, PTR };
#define LCPU_KIND(STRUCT, FIELD, KIND) KIND,
  static const int dispatch[] = {LCPU_DISPATCH_STATE_FIELDS(LCPU_KIND)};
  static const int workgroup[] = {LCPU_WORKGROUP_STATE_FIELDS(LCPU_KIND)};
  static const int export_info[] = {LCPU_EXPORT_INFO_FIELDS(LCPU_KIND)};
  static const int table[] = {LCPU_EXECUTABLE_TABLE_FIELDS(LCPU_KIND)};
#undef LCPU_KIND
#define LCPU_N(a) (unsigned)(sizeof(a) / sizeof((a)[0]))
  memset(abi, 0, sizeof *abi);
  abi->context = context;
  abi->i1 = LLVMInt1TypeInContext(context);
  abi->i32 = LLVMInt32TypeInContext(context);
  abi->i64 = LLVMInt64TypeInContext(context);
  abi->ptr = LLVMPointerTypeInContext(context, 0);
  abi->dispatch_state =
      lcpu_struct(abi, "kiln.dispatch_state", dispatch, LCPU_N(dispatch));
  abi->workgroup_state =
      lcpu_struct(abi, "kiln.workgroup_state", workgroup, LCPU_N(workgroup));
  abi->export_info =
      lcpu_struct(abi, "kiln.export_info", export_info, LCPU_N(export_info));
  abi->executable_table =
      lcpu_struct(abi, "kiln.executable_table", table, LCPU_N(table));
#undef LCPU_N
  LLVMTypeRef params[2] = {abi->ptr, abi->ptr};
  abi->entry_fn = LLVMFunctionType(abi->i32, params, 2, 0);
  abi->query_fn = LLVMFunctionType(abi->ptr, &abi->i32, 1, 0);
}

static void lcpu_add_enum(LLVMContextRef ctx, LLVMValueRef fn, unsigned index,
                          const char *name, uint64_t value) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  LLVMAddAttributeAtIndex(fn, index, LLVMCreateEnumAttribute(ctx, kind, value));
}

LLVMValueRef kiln_llvm_cpu_abi_add_entry(const kiln_llvm_cpu_abi_t *abi,
                                         LLVMModuleRef module,
                                         const char *name) {
  LLVMValueRef fn = LLVMAddFunction(module, name, abi->entry_fn);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  lcpu_add_enum(abi->context, fn, LLVMAttributeFunctionIndex, "nounwind", 0);
  static const uint64_t sizes[2] = {sizeof(kiln_dispatch_state_t),
                                    sizeof(kiln_workgroup_state_t)};
  for (unsigned i = 1; i <= 2; i++) {
    /* The runtime passes distinct, live, 8-aligned states it does not
     * change during the call; saying so lets LLVM hoist their loads. */
    lcpu_add_enum(abi->context, fn, i, "noalias", 0);
    lcpu_add_enum(abi->context, fn, i, "nocapture", 0);
    lcpu_add_enum(abi->context, fn, i, "nonnull", 0);
    lcpu_add_enum(abi->context, fn, i, "noundef", 0);
    lcpu_add_enum(abi->context, fn, i, "readonly", 0);
    lcpu_add_enum(abi->context, fn, i, "align", 8);
    lcpu_add_enum(abi->context, fn, i, "dereferenceable", sizes[i - 1]);
  }
  return fn;
}

/*------------------------------------------------------------ export table */

static kiln_error *lcpu_check_export(
    const kiln_llvm_cpu_abi_t *abi, LLVMModuleRef module,
    const kiln_llvm_cpu_export_t *exports, uint32_t i) {
  const kiln_llvm_cpu_export_t *e = &exports[i];
  if (!e->name || !*e->name)
    return kiln_error_new("llvm-cpu export %u: empty name", i);
  for (uint32_t j = 0; j < i; j++)
    if (strcmp(exports[j].name, e->name) == 0)
      return kiln_error_new("llvm-cpu export %u: name '%s' already used by "
                            "export %u",
                            i, e->name, j);
  if (!e->entry || !LLVMIsAFunction(e->entry))
    return kiln_error_new("llvm-cpu export %u ('%s'): entry is not a function", i,
                          e->name);
  if (LLVMGetGlobalParent(e->entry) != module)
    return kiln_error_new("llvm-cpu export %u ('%s'): entry function belongs to "
                          "another module",
                          i, e->name);
  if (LLVMGlobalGetValueType(e->entry) != abi->entry_fn) {
    char *have = LLVMPrintTypeToString(LLVMGlobalGetValueType(e->entry));
    kiln_error *s =
        kiln_error_new("llvm-cpu export %u ('%s'): entry has type %s, expected "
                       "i32 (ptr, ptr)",
                       i, e->name, have);
    LLVMDisposeMessage(have);
    return s;
  }
  for (int d = 0; d < 3; d++)
    if (e->workgroup_size[d] == 0)
      return kiln_error_new("llvm-cpu export %u ('%s'): workgroup size %c is 0",
                            i, e->name, "xyz"[d]);
  if (e->binding_count > 32)
    return kiln_error_new("llvm-cpu export %u ('%s'): %u bindings, at most 32 "
                          "fit the read-only mask",
                          i, e->name, e->binding_count);
  if (e->binding_count < 32 && (e->readonly_binding_mask >> e->binding_count))
    return kiln_error_new("llvm-cpu export %u ('%s'): read-only mask 0x%x names "
                          "bindings beyond its %u bindings",
                          i, e->name, e->readonly_binding_mask, e->binding_count);
  return NULL;
}

static LLVMValueRef lcpu_private_constant(LLVMModuleRef module, const char *name,
                                          LLVMValueRef init, unsigned align) {
  LLVMValueRef g = LLVMAddGlobal(module, LLVMTypeOf(init), name);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  if (align) LLVMSetAlignment(g, align);
  return g;
}

static LLVMValueRef lcpu_u32(const kiln_llvm_cpu_abi_t *abi, uint32_t v) {
  return LLVMConstInt(abi->i32, v, 0);
}

static LLVMValueRef lcpu_export_info(const kiln_llvm_cpu_abi_t *abi,
                                     LLVMModuleRef module,
                                     const kiln_llvm_cpu_export_t *e) {
  LLVMValueRef str = LLVMConstStringInContext2(abi->context, e->name,
                                               strlen(e->name), 0);
  LLVMValueRef name = lcpu_private_constant(module, "kiln.export_name", str, 1);
  LLVMValueRef wg[3] = {lcpu_u32(abi, e->workgroup_size[0]),
                        lcpu_u32(abi, e->workgroup_size[1]),
                        lcpu_u32(abi, e->workgroup_size[2])};
  LLVMValueRef fields[KILN_LLVM_CPU_export_info_field_count] = {
      [KILN_LLVM_CPU_export_info_name] = name,
      [KILN_LLVM_CPU_export_info_entry] = e->entry,
      [KILN_LLVM_CPU_export_info_workgroup_size] = LLVMConstArray2(abi->i32, wg, 3),
      [KILN_LLVM_CPU_export_info_binding_count] = lcpu_u32(abi, e->binding_count),
      [KILN_LLVM_CPU_export_info_push_constant_count] =
          lcpu_u32(abi, e->push_constant_count),
      [KILN_LLVM_CPU_export_info_readonly_binding_mask] =
          lcpu_u32(abi, e->readonly_binding_mask),
  };
  return LLVMConstNamedStruct(abi->export_info, fields,
                              KILN_LLVM_CPU_export_info_field_count);
}

kiln_error *kiln_llvm_cpu_abi_emit_table(
    const kiln_llvm_cpu_abi_t *abi, LLVMModuleRef module,
    const kiln_llvm_cpu_export_t *exports, uint32_t export_count) {
  if (LLVMGetNamedFunction(module, KILN_EXECUTABLE_QUERY_SYMBOL) ||
      LLVMGetNamedGlobal(module, KILN_EXECUTABLE_QUERY_SYMBOL))
    return kiln_error_new("llvm-cpu: the module already has a symbol named %s",
                          KILN_EXECUTABLE_QUERY_SYMBOL);
  if (export_count > 0 && !exports)
    return kiln_error_new("llvm-cpu: %u exports but no export list", export_count);
  for (uint32_t i = 0; i < export_count; i++) {
    kiln_error *s = lcpu_check_export(abi, module, exports, i);
    if (s) return s;
  }

  LLVMValueRef exports_ptr = LLVMConstPointerNull(abi->ptr);
  if (export_count > 0) {
    LLVMValueRef *items = malloc(sizeof *items * export_count);
    if (!items) return kiln_error_new("llvm-cpu: out of memory");
    for (uint32_t i = 0; i < export_count; i++) {
      items[i] = lcpu_export_info(abi, module, &exports[i]);
      if (LLVMIsDeclaration(exports[i].entry) == 0)
        LLVMSetLinkage(exports[i].entry, LLVMInternalLinkage);
    }
    LLVMValueRef array = LLVMConstArray2(abi->export_info, items, export_count);
    free(items);
    exports_ptr = lcpu_private_constant(module, "kiln.exports", array, 8);
  }
  LLVMValueRef fields[KILN_LLVM_CPU_executable_table_field_count] = {
      [KILN_LLVM_CPU_executable_table_abi_version] =
          lcpu_u32(abi, KILN_EXECUTABLE_ABI_VERSION),
      [KILN_LLVM_CPU_executable_table_export_count] = lcpu_u32(abi, export_count),
      [KILN_LLVM_CPU_executable_table_exports] = exports_ptr,
  };
  LLVMValueRef table = lcpu_private_constant(
      module, "kiln.executable_table",
      LLVMConstNamedStruct(abi->executable_table, fields,
                           KILN_LLVM_CPU_executable_table_field_count), 8);

  /* ptr kiln_executable_query(i32 v) { return v == VERSION ? &table : null; } */
  LLVMValueRef query =
      LLVMAddFunction(module, KILN_EXECUTABLE_QUERY_SYMBOL, abi->query_fn);
  lcpu_add_enum(abi->context, query, LLVMAttributeFunctionIndex, "nounwind", 0);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(abi->context, query, "entry");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(abi->context);
  LLVMPositionBuilderAtEnd(b, bb);
  LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, LLVMGetParam(query, 0),
                                  lcpu_u32(abi, KILN_EXECUTABLE_ABI_VERSION), "ok");
  LLVMBuildRet(b, LLVMBuildSelect(b, ok, table, LLVMConstPointerNull(abi->ptr),
                                  "table"));
  LLVMDisposeBuilder(b);
  return NULL;
}

/*------------------------------------------------------------ state loads */

/* A load of TYPE at PTR, aligned, marked invariant: the states and the
 * arrays they point to do not change while an entry point runs. */
static LLVMValueRef lcpu_invariant_load(const kiln_llvm_cpu_abi_t *abi,
                                        LLVMBuilderRef b, LLVMTypeRef type,
                                        LLVMValueRef ptr, unsigned align,
                                        const char *name) {
  LLVMValueRef v = LLVMBuildLoad2(b, type, ptr, name);
  LLVMSetAlignment(v, align);
  unsigned kind = LLVMGetMDKindIDInContext(abi->context, "invariant.load", 14);
  LLVMSetMetadata(v, kind,
                  LLVMMetadataAsValue(abi->context,
                                      LLVMMDNodeInContext2(abi->context, NULL, 0)));
  return v;
}

/* field FIELD of the struct STRUCT_TYPE at BASE, element ELEM when the
 * field is an array (elem < 0: a scalar field). */
static LLVMValueRef lcpu_field_ptr(const kiln_llvm_cpu_abi_t *abi,
                                   LLVMBuilderRef b, LLVMTypeRef struct_type,
                                   LLVMValueRef base, unsigned field, int elem) {
  LLVMValueRef idx[3] = {LLVMConstInt(abi->i32, 0, 0),
                         LLVMConstInt(abi->i32, field, 0),
                         LLVMConstInt(abi->i32, (unsigned)(elem < 0 ? 0 : elem), 0)};
  return LLVMBuildInBoundsGEP2(b, struct_type, base, idx, elem < 0 ? 2 : 3, "");
}

static int lcpu_dim(uint32_t dim) {
  assert(dim < 3 && "grid dimension out of range");
  return (int)(dim < 3 ? dim : 2);
}

static LLVMValueRef lcpu_load_u32(const kiln_llvm_cpu_abi_t *abi,
                                  LLVMBuilderRef b, LLVMTypeRef st,
                                  LLVMValueRef base, unsigned field, int elem,
                                  const char *name) {
  return lcpu_invariant_load(abi, b, abi->i32,
                             lcpu_field_ptr(abi, b, st, base, field, elem), 4,
                             name);
}

/* Element INDEX of the array whose pointer is field FIELD of the dispatch
 * state. */
static LLVMValueRef lcpu_load_indirect(const kiln_llvm_cpu_abi_t *abi,
                                       LLVMBuilderRef b, LLVMValueRef dispatch,
                                       unsigned field, LLVMTypeRef type,
                                       unsigned size, uint32_t index,
                                       const char *name) {
  LLVMValueRef array = lcpu_invariant_load(
      abi, b, abi->ptr,
      lcpu_field_ptr(abi, b, abi->dispatch_state, dispatch, field, -1), 8, "");
  LLVMValueRef i = LLVMConstInt(abi->i64, index, 0);
  LLVMValueRef p = LLVMBuildInBoundsGEP2(b, type, array, &i, 1, "");
  return lcpu_invariant_load(abi, b, type, p, size, name);
}

LLVMValueRef kiln_llvm_cpu_abi_load_binding(const kiln_llvm_cpu_abi_t *abi,
                                            LLVMBuilderRef b,
                                            LLVMValueRef dispatch,
                                            uint32_t index, uint32_t align) {
  char name[32];
  snprintf(name, sizeof name, "binding%u", index);
  LLVMValueRef p = lcpu_load_indirect(abi, b, dispatch,
                                      KILN_LLVM_CPU_dispatch_state_binding_ptrs,
                                      abi->ptr, 8, index, name);
  if (align > 1) {
    /* call void @llvm.assume(i1 true) ["align"(ptr p, i64 align)] */
    LLVMModuleRef m = LLVMGetGlobalParent(
        LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
    unsigned id = LLVMLookupIntrinsicID("llvm.assume", 11);
    LLVMValueRef assume = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
    LLVMTypeRef type = LLVMIntrinsicGetType(abi->context, id, NULL, 0);
    LLVMValueRef args[2] = {p, LLVMConstInt(abi->i64, align, 0)};
    LLVMOperandBundleRef bundle = LLVMCreateOperandBundle("align", 5, args, 2);
    LLVMValueRef yes = LLVMConstInt(abi->i1, 1, 0);
    LLVMBuildCallWithOperandBundles(b, type, assume, &yes, 1, &bundle, 1, "");
    LLVMDisposeOperandBundle(bundle);
  }
  return p;
}

LLVMValueRef kiln_llvm_cpu_abi_load_binding_length(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t index) {
  return lcpu_load_indirect(abi, b, dispatch,
                            KILN_LLVM_CPU_dispatch_state_binding_lengths,
                            abi->i64, 8, index, "binding_length");
}

LLVMValueRef kiln_llvm_cpu_abi_load_push_constant(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t index) {
  char name[32];
  snprintf(name, sizeof name, "pc%u", index);
  return lcpu_load_indirect(abi, b, dispatch,
                            KILN_LLVM_CPU_dispatch_state_push_constants,
                            abi->i32, 4, index, name);
}

LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_size(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t dim) {
  return lcpu_load_u32(abi, b, abi->dispatch_state, dispatch,
                       KILN_LLVM_CPU_dispatch_state_workgroup_size,
                       lcpu_dim(dim), "workgroup_size");
}

LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_count(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t dim) {
  return lcpu_load_u32(abi, b, abi->dispatch_state, dispatch,
                       KILN_LLVM_CPU_dispatch_state_workgroup_count,
                       lcpu_dim(dim), "workgroup_count");
}

LLVMValueRef kiln_llvm_cpu_abi_load_max_concurrency(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch) {
  return lcpu_load_u32(abi, b, abi->dispatch_state, dispatch,
                       KILN_LLVM_CPU_dispatch_state_max_concurrency, -1,
                       "max_concurrency");
}

LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_id(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef workgroup,
    uint32_t dim) {
  return lcpu_load_u32(abi, b, abi->workgroup_state, workgroup,
                       KILN_LLVM_CPU_workgroup_state_workgroup_id,
                       lcpu_dim(dim), "workgroup_id");
}

LLVMValueRef kiln_llvm_cpu_abi_load_worker_id(const kiln_llvm_cpu_abi_t *abi,
                                              LLVMBuilderRef b,
                                              LLVMValueRef workgroup) {
  return lcpu_load_u32(abi, b, abi->workgroup_state, workgroup,
                       KILN_LLVM_CPU_workgroup_state_worker_id, -1, "worker_id");
}

LLVMValueRef kiln_llvm_cpu_abi_load_scratch(const kiln_llvm_cpu_abi_t *abi,
                                            LLVMBuilderRef b,
                                            LLVMValueRef workgroup) {
  return lcpu_invariant_load(
      abi, b, abi->ptr,
      lcpu_field_ptr(abi, b, abi->workgroup_state, workgroup,
                     KILN_LLVM_CPU_workgroup_state_scratch, -1),
      8, "scratch");
}

LLVMValueRef kiln_llvm_cpu_abi_load_scratch_size(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef workgroup) {
  return lcpu_invariant_load(
      abi, b, abi->i64,
      lcpu_field_ptr(abi, b, abi->workgroup_state, workgroup,
                     KILN_LLVM_CPU_workgroup_state_scratch_size, -1),
      8, "scratch_size");
}
