/* Makes a verified module fit for a Kiln CPU executable before it is
 * optimized: the target machine's triple and data layout; on every defined
 * function nounwind, no unwind table (the object carries no .eh_frame) and
 * "no-builtins" (LLVM then never turns loops into memset/memcpy calls,
 * which a library without libc could not resolve; explicit memset/memcpy/
 * memmove intrinsics become loops too, see memops.c) and, on x86-64 and
 * AArch64, inline stack probes for frames over a page; hidden visibility for
 * every non-local symbol except kiln_executable_query, which must be
 * defined, so it is the only dynamic symbol. Declarations other than LLVM
 * intrinsics are rejected here, naming the symbol, rather than by lld. */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "kiln/executable_abi.h"
#include "lcpu_internal.h"

static bool lcpu_is_local(LLVMValueRef global) {
  LLVMLinkage l = LLVMGetLinkage(global);
  return l == LLVMInternalLinkage || l == LLVMPrivateLinkage;
}

static void lcpu_hide(LLVMValueRef global) {
  if (!lcpu_is_local(global)) LLVMSetVisibility(global, LLVMHiddenVisibility);
}

/* Does LLVM 19 probe stack frames inline on this target? x86-64 and
 * AArch64 do; RISC-V only from LLVM 20 (there the attribute is left off). */
static bool lcpu_probes_inline(LLVMTargetMachineRef tm) {
  char *triple = LLVMGetTargetMachineTriple(tm);
  bool yes = strncmp(triple, "x86_64", 6) == 0 || strncmp(triple, "aarch64", 7) == 0;
  LLVMDisposeMessage(triple);
  return yes;
}

static void lcpu_set_function_attributes(LLVMContextRef ctx, LLVMValueRef fn, bool probe) {
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  unsigned uwtable = LLVMGetEnumAttributeKindForName("uwtable", 7);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(ctx, nounwind, 0));
  LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, uwtable);
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(ctx, "no-builtins", 11, "", 0));
  /* A kernel may keep a weight panel of up to 256 KiB on the stack of the
   * thread that calls it (a local-sync caller's own): a frame that large
   * could step past a small stack's guard page without touching it and
   * run on in other memory. Probing touches each 4 KiB page of a frame
   * larger than one page from the top down, so an overflow faults on the
   * guard page; LLVM emits nothing for smaller frames. */
  if (probe)
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(ctx, "probe-stack", 11, "inline-asm", 10));
}

kiln_error *kiln_llvm_cpu_prepare(LLVMModuleRef module,
                                  LLVMTargetMachineRef tm) {
  LLVMContextRef ctx = LLVMGetModuleContext(module);
  char *triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(module, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef layout = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(module, layout);
  LLVMDisposeTargetData(layout);

  kiln_error *s = lcpu_lower_mem_intrinsics(module);
  if (s) return s;

  bool have_query = false, probe = lcpu_probes_inline(tm);
  for (LLVMValueRef fn = LLVMGetFirstFunction(module); fn;
       fn = LLVMGetNextFunction(fn)) {
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    if (LLVMIsDeclaration(fn)) {
      if (LLVMGetIntrinsicID(fn) != 0 || !LLVMGetFirstUse(fn)) continue;
      return kiln_error_new("llvm-cpu: function '%s' is called but not defined "
                            "in the module; a Kiln CPU executable links no "
                            "library, so every callee must be generated code",
                            name);
    }
    lcpu_set_function_attributes(ctx, fn, probe);
    if (strcmp(name, KILN_EXECUTABLE_QUERY_SYMBOL) == 0) {
      if (lcpu_is_local(fn))
        return kiln_error_new("llvm-cpu: %s must have external linkage",
                              KILN_EXECUTABLE_QUERY_SYMBOL);
      LLVMSetVisibility(fn, LLVMDefaultVisibility);
      have_query = true;
    } else {
      lcpu_hide(fn);
    }
  }
  if (!have_query)
    return kiln_error_new("llvm-cpu: the module defines no %s; emit the export "
                          "table (kiln_llvm_cpu_abi_emit_table) first",
                          KILN_EXECUTABLE_QUERY_SYMBOL);
  for (LLVMValueRef g = LLVMGetFirstGlobal(module); g;
       g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g)) {
      size_t len;
      return kiln_error_new("llvm-cpu: global '%s' is declared but not defined "
                            "in the module; a Kiln CPU executable links no "
                            "library",
                            LLVMGetValueName2(g, &len));
    }
    lcpu_hide(g);
  }
  return NULL;
}
