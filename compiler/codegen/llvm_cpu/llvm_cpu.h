/* The back end of the llvm-cpu code generator: from an LLVM module (built
 * through the LLVM-C API) to the bytes of a Kiln CPU executable, an ELF
 * shared object with no libc and no undefined symbols (see
 * format/include/kiln/executable_abi.h).
 *
 * The steps, in the order kiln_llvm_cpu_compile runs them:
 *   target    parse "llvm-cpu[:ARCH[+FEATURE...]]", create the TargetMachine
 *   abi       emit the export table and kiln_executable_query (caller, once)
 *   verify    LLVM's verifier, reported as a status, never an abort
 *   prepare   triple, data layout, per-function attributes, visibility
 *   optimize  LLVM's default<O3> pipeline with both vectorizers on
 *   emit      object file (or assembly) to memory
 *   link      ld.lld into a position-independent shared object
 *
 * Errors are the compiler's kiln_error (kiln_error.h): NULL on success,
 * otherwise an owned message that the caller frees. Internal prefix of
 * this folder: lcpu_. */
#ifndef KILN_CODEGEN_LLVM_CPU_H
#define KILN_CODEGEN_LLVM_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/*---------------------------------------------------------------- status */

#include "kiln_error.h"

/* Owned bytes (an object file, assembly text, a shared object). */
typedef struct kiln_llvm_cpu_bytes {
  uint8_t *data;
  size_t size;
} kiln_llvm_cpu_bytes_t;

void kiln_llvm_cpu_bytes_free(kiln_llvm_cpu_bytes_t *bytes);

/*---------------------------------------------------------------- target */

typedef enum kiln_llvm_cpu_arch {
#define LCPU_ARCH(ID, NAME, LLVM, TRIPLE, CPU, BASE_FEATURES, EMULATION,      \
                  ELF_MACHINE, ABI)                                           \
  KILN_LLVM_CPU_ARCH_##ID,
#include "llvm_cpu_arches.def"
#undef LCPU_ARCH
  KILN_LLVM_CPU_ARCH_COUNT
} kiln_llvm_cpu_arch_t;

typedef struct kiln_llvm_cpu_target {
  kiln_llvm_cpu_arch_t arch;
  bool is_host;            /* "llvm-cpu" or "llvm-cpu:host" (KILN_CPU_FEATURES narrows it) */
  const char *arch_name;   /* "x86_64", "aarch64", "riscv64" */
  const char *triple;      /* LLVM triple, e.g. x86_64-unknown-linux-gnu */
  const char *emulation;   /* ld.lld -m value */
  uint16_t elf_machine;    /* e_machine of the linked object */
  const char *abi;         /* LLVM ABI name ("lp64d"), "" for the triple's */
  char *cpu;               /* owned; LLVM CPU name */
  char *features;          /* owned; LLVM feature string "+a,+b,-c" */
  /* owned; what a host must offer to run the code, in the runtime's
   * requirement syntax: "x86_64+avx512f", "aarch64". For the host target,
   * every listed feature (llvm_cpu_features.def) this machine has; the
   * code may also use unlisted features of this CPU, so a host build is
   * for running here, explicit targets are for shipping. */
  char *requirements;
} kiln_llvm_cpu_target_t;

/* Parses a target string. Unknown architectures and features are errors
 * that list the valid ones; a repeated feature counts once. On success *out owns memory released by
 * kiln_llvm_cpu_target_release. */
kiln_error *kiln_llvm_cpu_target_parse(const char *text,
                                       kiln_llvm_cpu_target_t *out);
void kiln_llvm_cpu_target_release(kiln_llvm_cpu_target_t *target);

/* A TargetMachine for the target: PIC, optimization level O3. The caller
 * disposes it with LLVMDisposeTargetMachine. */
kiln_error *kiln_llvm_cpu_target_machine_create(
                                                const kiln_llvm_cpu_target_t *target, LLVMTargetMachineRef *out);

/*---------------------------------------------------------------- passes */

/* LLVM's verifier; a broken module is an error carrying its report. */
kiln_error *kiln_llvm_cpu_verify(LLVMModuleRef module);

/* Makes a module fit for a no-libc shared object: sets the triple and data
 * layout of tm; marks every defined function nounwind, without unwind
 * tables and "no-builtins" (so loops never become memset/memcpy calls);
 * replaces llvm.memset/memcpy/memmove calls by internal byte loops (the
 * code generator would call libc for them);
 * gives every non-local symbol other than kiln_executable_query hidden
 * visibility; rejects calls to functions the module does not define (only
 * LLVM intrinsics may be declared). */
kiln_error *kiln_llvm_cpu_prepare(LLVMModuleRef module,
                                  LLVMTargetMachineRef tm);

/* Runs default<O3> with loop and SLP vectorization, interleaving and
 * unrolling on. The module must have been prepared for tm. */
kiln_error *kiln_llvm_cpu_optimize(LLVMModuleRef module,
                                   LLVMTargetMachineRef tm);

typedef enum kiln_llvm_cpu_emit_kind {
  KILN_LLVM_CPU_EMIT_OBJECT,
  KILN_LLVM_CPU_EMIT_ASSEMBLY,
  KILN_LLVM_CPU_EMIT_LLVM_IR,
} kiln_llvm_cpu_emit_kind_t;

/* Emits the module; it is left unchanged (code generation runs on a
 * clone). Assembly and IR text are NUL-terminated (size excludes it). */
kiln_error *kiln_llvm_cpu_emit(LLVMModuleRef module,
                               LLVMTargetMachineRef tm,
                               kiln_llvm_cpu_emit_kind_t kind,
                               kiln_llvm_cpu_bytes_t *out);

/* Links one relocatable object into a shared object with ld.lld, run as a
 * subprocess over files in a private temporary folder that is always
 * removed. lld's complaints (e.g. an undefined memset) become the error
 * message. lld_path NULL means the ld.lld found at configure time. */
kiln_error *kiln_llvm_cpu_link(const kiln_llvm_cpu_target_t *target,
                               const char *lld_path,
                               const void *object, size_t size,
                               kiln_llvm_cpu_bytes_t *out);

/* Links several objects (kiln_llvm_cpu_compile_member_timed's: each with
 * its own kiln_executable_query.NAME) into one shared object exporting
 * each of those query functions, in one lld run. */
kiln_error *kiln_llvm_cpu_link_objects(const kiln_llvm_cpu_target_t *target,
                                       const char *lld_path,
                                       const kiln_llvm_cpu_bytes_t *objects,
                                       size_t count, kiln_llvm_cpu_bytes_t *out);

/* verify, prepare, optimize, emit an object, link: the .so bytes. The
 * module stays the caller's; it is prepared and optimized in place. When
 * O3 flattens loop nests (its output over 8,192 instructions and 16 times
 * its input), a copy taken before O3 is optimized without loop unrolling
 * and compiled instead (the caller's module is left as O3 made it). */
kiln_error *kiln_llvm_cpu_compile(LLVMModuleRef module,
                                  const kiln_llvm_cpu_target_t *target,
                                  kiln_llvm_cpu_bytes_t *out);

/* Where kiln_llvm_cpu_compile_timed's time went (wall seconds per step)
 * and how big the module was: LLVM instructions before and after O3 (an
 * over-unrolled kernel shows here), object bytes. */
typedef struct kiln_llvm_cpu_timing {
  double prepare_s;  /* target machine, verify, prepare */
  double optimize_s; /* the O3 pipeline */
  double codegen_s;  /* instruction selection through object emission */
  double link_s;     /* ld.lld */
  uint64_t instructions_in, instructions_out;
  size_t object_bytes;
  bool unrolling_dropped; /* O3 flattened a loop nest: redone unrolling none */
} kiln_llvm_cpu_timing_t;

/* kiln_llvm_cpu_compile that also fills *timing (when not NULL). */
kiln_error *kiln_llvm_cpu_compile_timed(
                                        LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
                                        kiln_llvm_cpu_bytes_t *out, kiln_llvm_cpu_timing_t *timing);

/* kiln_llvm_cpu_compile_timed without the link: *out is the relocatable
 * object (static-library output). */
kiln_error *kiln_llvm_cpu_compile_object_timed(
                                               LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
                                               kiln_llvm_cpu_bytes_t *out, kiln_llvm_cpu_timing_t *timing);

/* kiln_llvm_cpu_compile_object_timed for one of several executables
 * linked into one shared object (kiln_llvm_cpu_link_objects): after
 * prepare, the query function is renamed query_symbol and every other
 * definition becomes internal, so the objects share no symbol. */
kiln_error *kiln_llvm_cpu_compile_member_timed(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    const char *query_symbol, kiln_llvm_cpu_bytes_t *out,
    kiln_llvm_cpu_timing_t *timing);

/* One module to compile among many (kiln_llvm_cpu_compile_all). */
typedef struct kiln_llvm_cpu_job {
  LLVMModuleRef module; /* in a context of its own; stays the caller's */
  const kiln_llvm_cpu_target_t *target;
  bool object_only;               /* stop at the relocatable object */
  /* With object_only: a member of a shared object (its query's name;
   * kiln_llvm_cpu_compile_member_timed). */
  const char *query_symbol;
  kiln_llvm_cpu_bytes_t so;       /* out: the shared object (or the object) */
  kiln_error *status;  /* out: NULL on success */
  kiln_llvm_cpu_timing_t timing;  /* out, when timed */
  /* Dispose the module and its context once compiled (module becomes
   * NULL), so that only the modules in flight take memory. */
  bool release;
} kiln_llvm_cpu_job_t;

/* The online cores (at least 1): the default thread count. */
unsigned kiln_llvm_cpu_default_threads(void);

/* kiln_llvm_cpu_compile_timed on every job, on up to `threads` threads (0:
 * kiln_llvm_cpu_default_threads()). Jobs must not share an LLVMContext.
 * Each job's results are what a serial compile gives, whatever the thread
 * count; the caller frees each so and status (and module, unless
 * released). */
void kiln_llvm_cpu_compile_all(kiln_llvm_cpu_job_t *jobs, size_t n,
                               unsigned threads, bool timed);

/*---------------------------------------------------------------- ABI */

/* Field indices of the LLVM struct types mirroring executable_abi.h,
 * e.g. KILN_LLVM_CPU_dispatch_state_binding_ptrs. */
#include "llvm_cpu_abi_fields.def"
#define LCPU_FIELD(STRUCT, FIELD, KIND) KILN_LLVM_CPU_##STRUCT##_##FIELD,
enum {
  LCPU_DISPATCH_STATE_FIELDS(LCPU_FIELD)
  KILN_LLVM_CPU_dispatch_state_field_count
};
enum {
  LCPU_WORKGROUP_STATE_FIELDS(LCPU_FIELD)
  KILN_LLVM_CPU_workgroup_state_field_count
};
enum {
  LCPU_EXPORT_INFO_FIELDS(LCPU_FIELD)
  KILN_LLVM_CPU_export_info_field_count
};
enum {
  LCPU_EXECUTABLE_TABLE_FIELDS(LCPU_FIELD)
  KILN_LLVM_CPU_executable_table_field_count
};
#undef LCPU_FIELD

/* The ABI's LLVM types in one context. */
typedef struct kiln_llvm_cpu_abi {
  LLVMContextRef context;
  LLVMTypeRef i1, i32, i64, ptr;
  LLVMTypeRef dispatch_state;  /* kiln_dispatch_state_t */
  LLVMTypeRef workgroup_state; /* kiln_workgroup_state_t */
  LLVMTypeRef export_info;     /* kiln_export_info_t */
  LLVMTypeRef executable_table; /* kiln_executable_table_t */
  LLVMTypeRef entry_fn;        /* i32 (ptr dispatch, ptr workgroup) */
  LLVMTypeRef query_fn;        /* ptr (i32 runtime_abi_version) */
} kiln_llvm_cpu_abi_t;

void kiln_llvm_cpu_abi_init(kiln_llvm_cpu_abi_t *abi, LLVMContextRef context);

/* Adds an entry-point definition (no body yet) named NAME: internal,
 * nounwind, both state pointers noalias, nonnull, readonly and
 * dereferenceable to their struct size. */
LLVMValueRef kiln_llvm_cpu_abi_add_entry(const kiln_llvm_cpu_abi_t *abi,
                                         LLVMModuleRef module,
                                         const char *name);

/* One export of the table; mirrors kiln_export_info_t. */
typedef struct kiln_llvm_cpu_export {
  const char *name;
  LLVMValueRef entry; /* a function of type abi->entry_fn in the module */
  uint32_t workgroup_size[3];
  uint32_t binding_count;
  uint32_t push_constant_count;
  uint32_t readonly_binding_mask;
} kiln_llvm_cpu_export_t;

/* Emits the constant export table and the exported function
 * kiln_executable_query(i32 version), which returns the table for
 * KILN_EXECUTABLE_ABI_VERSION and null otherwise. Entry points become
 * internal. Checks: unique non-empty names, entry functions of the right
 * type in this module, nonzero workgroup sizes, binding_count <= 32,
 * mask bits only below binding_count, no query symbol already present. */
kiln_error *kiln_llvm_cpu_abi_emit_table(
                                         const kiln_llvm_cpu_abi_t *abi, LLVMModuleRef module,
                                         const kiln_llvm_cpu_export_t *exports, uint32_t export_count);

/* Loads from the states inside an entry point. dispatch / workgroup are
 * the entry's two parameters. Loads are marked invariant; a binding
 * pointer carries an alignment assumption of `align` bytes (a power of
 * two; 0 or 1 for none). Indices are not range-checked here: the caller
 * knows the export's binding and push-constant counts. dim must be < 3. */
LLVMValueRef kiln_llvm_cpu_abi_load_binding(const kiln_llvm_cpu_abi_t *abi,
                                            LLVMBuilderRef b,
                                            LLVMValueRef dispatch,
                                            uint32_t index, uint32_t align);
LLVMValueRef kiln_llvm_cpu_abi_load_binding_length(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t index);
LLVMValueRef kiln_llvm_cpu_abi_load_push_constant(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t index);
LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_size(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t dim);
LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_count(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch,
    uint32_t dim);
LLVMValueRef kiln_llvm_cpu_abi_load_max_concurrency(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef dispatch);
LLVMValueRef kiln_llvm_cpu_abi_load_workgroup_id(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef workgroup,
    uint32_t dim);
LLVMValueRef kiln_llvm_cpu_abi_load_worker_id(const kiln_llvm_cpu_abi_t *abi,
                                              LLVMBuilderRef b,
                                              LLVMValueRef workgroup);
LLVMValueRef kiln_llvm_cpu_abi_load_scratch(const kiln_llvm_cpu_abi_t *abi,
                                            LLVMBuilderRef b,
                                            LLVMValueRef workgroup);
LLVMValueRef kiln_llvm_cpu_abi_load_scratch_size(
    const kiln_llvm_cpu_abi_t *abi, LLVMBuilderRef b, LLVMValueRef workgroup);

#endif /* KILN_CODEGEN_LLVM_CPU_H */
