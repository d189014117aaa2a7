/* The llvm-cpu back end in one function, step by step: a module holding
 * the kernels and the export table goes in, the bytes of a linked shared
 * object come out. Later stages that need an intermediate form (IR after
 * O3, assembly) call the same steps themselves. With a timing record the
 * wall time of each step and the module's size before and after O3 are
 * measured too (what --timing reports per executable).
 *
 * One guard: LLVM's unroller now and then flattens a whole static loop
 * nest, one level after the other (a 4x32x64 transpose of 59 instructions
 * came out of O3 as 24,700 and took seconds of instruction selection).
 * When O3's output passes LCPU_FLATTENED_MIN instructions and
 * LCPU_FLATTENED_RATIO times its input, a copy of the module taken before
 * O3 is optimized again without loop unrolling and that copy is compiled.
 * The kernels of ResNet-18, MobileNetV2 and the encoders come out of O3 at
 * under 3,000 instructions and 8 times their input, so they are compiled
 * as before; the decision depends on the module alone. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>
#include <time.h>

#include "kiln/executable_abi.h"
#include "lcpu_internal.h"

#define LCPU_FLATTENED_MIN 8192
#define LCPU_FLATTENED_RATIO 16

static double lcpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t lcpu_count_instructions(LLVMModuleRef module) {
  uint64_t n = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
         bb = LLVMGetNextBasicBlock(bb))
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
           i = LLVMGetNextInstruction(i))
        n++;
  return n;
}

/* The steps; link false stops at the relocatable object (static-library
 * output links it into the program that uses it instead). */
/* A member of a shared object: the query function renamed to `query`,
 * every other definition internal (no symbol clashes between members;
 * O3 may then drop what the export table does not reach). */
static void lcpu_make_member(LLVMModuleRef module, const char *query) {
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn)) continue;
    size_t len;
    if (strcmp(LLVMGetValueName2(fn, &len), KILN_EXECUTABLE_QUERY_SYMBOL) == 0) {
      LLVMSetValueName2(fn, query, strlen(query));
      continue;
    }
    if (LLVMGetLinkage(fn) == LLVMPrivateLinkage) continue;
    LLVMSetLinkage(fn, LLVMInternalLinkage);
    LLVMSetVisibility(fn, LLVMDefaultVisibility);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g; g = LLVMGetNextGlobal(g)) {
    size_t len;
    if (LLVMIsDeclaration(g) || LLVMGetLinkage(g) == LLVMPrivateLinkage ||
        strncmp(LLVMGetValueName2(g, &len), "llvm.", 5) == 0)
      continue;
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
  }
}

static kiln_error *lcpu_compile(LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
                                bool link, const char *member, kiln_llvm_cpu_bytes_t *out,
                                kiln_llvm_cpu_timing_t *timing) {
  out->data = NULL;
  out->size = 0;
  kiln_llvm_cpu_timing_t t;
  memset(&t, 0, sizeof t);
  double t0 = timing ? lcpu_now() : 0, t1 = 0;
  LLVMTargetMachineRef tm = NULL;
  LLVMModuleRef spare = NULL, code = module;
  kiln_error *s = kiln_llvm_cpu_target_machine_create(target, &tm);
  if (!s) s = kiln_llvm_cpu_verify(module);
  if (!s) s = kiln_llvm_cpu_prepare(module, tm);
  /* An object for a static library: its entry points are called directly,
   * so the loader's query function (and through it the export table, which
   * O3 then drops) is not needed. */
  LLVMValueRef query = s || link || member ? NULL : LLVMGetNamedFunction(module, KILN_EXECUTABLE_QUERY_SYMBOL);
  if (query) LLVMDeleteFunction(query);
  if (!s && member) lcpu_make_member(module, member);
  if (!s) {
    t.instructions_in = lcpu_count_instructions(module);
    spare = LLVMCloneModule(module);
  }
  if (timing) {
    t1 = lcpu_now();
    t.prepare_s = t1 - t0;
  }
  if (!s) s = lcpu_optimize(module, tm, true);
  if (!s) t.instructions_out = lcpu_count_instructions(module);
  if (!s && spare && t.instructions_out > LCPU_FLATTENED_MIN &&
      t.instructions_out > LCPU_FLATTENED_RATIO * t.instructions_in) {
    s = lcpu_optimize(spare, tm, false);
    code = spare;
    t.unrolling_dropped = true;
    if (!s) t.instructions_out = lcpu_count_instructions(spare);
  }
  if (timing) {
    t0 = lcpu_now();
    t.optimize_s = t0 - t1;
  }
  kiln_llvm_cpu_bytes_t object = {0};
  if (!s) s = kiln_llvm_cpu_emit(code, tm, KILN_LLVM_CPU_EMIT_OBJECT, &object);
  if (timing) {
    t1 = lcpu_now();
    t.codegen_s = t1 - t0;
    t.object_bytes = object.size;
  }
  if (!s && link) s = kiln_llvm_cpu_link(target, NULL, object.data, object.size, out);
  if (timing) {
    t.link_s = lcpu_now() - t1;
    *timing = t;
  }
  if (!s && !link) {
    *out = object;
    object.data = NULL;
  }
  kiln_llvm_cpu_bytes_free(&object);
  if (spare) LLVMDisposeModule(spare);
  if (tm) LLVMDisposeTargetMachine(tm);
  return s;
}

kiln_error *kiln_llvm_cpu_compile_timed(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    kiln_llvm_cpu_bytes_t *out, kiln_llvm_cpu_timing_t *timing) {
  return lcpu_compile(module, target, true, NULL, out, timing);
}

kiln_error *kiln_llvm_cpu_compile_object_timed(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    kiln_llvm_cpu_bytes_t *out, kiln_llvm_cpu_timing_t *timing) {
  return lcpu_compile(module, target, false, NULL, out, timing);
}

kiln_error *kiln_llvm_cpu_compile_member_timed(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    const char *query_symbol, kiln_llvm_cpu_bytes_t *out,
    kiln_llvm_cpu_timing_t *timing) {
  return lcpu_compile(module, target, false, query_symbol, out, timing);
}

kiln_error *kiln_llvm_cpu_compile(
    LLVMModuleRef module, const kiln_llvm_cpu_target_t *target,
    kiln_llvm_cpu_bytes_t *out) {
  return kiln_llvm_cpu_compile_timed(module, target, out, NULL);
}
