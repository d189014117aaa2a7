/* The llvm-cpu target's passes over kiln IR (library kiln_llvm_cpu_passes,
 * beside the back end of llvm_cpu.h that they drive): link-executables,
 * a module pass before the last kernel pass of the llvm-cpu pipeline in
 * compiler/driver/pipeline.def, translate-llvm-cpu, and compile-llvm-cpu,
 * the module pass after it. */
#ifndef KILN_LLVM_CPU_PASSES_H
#define KILN_LLVM_CPU_PASSES_H

#include "ir.h"

/* Registers link-executables (a module pass), translate-llvm-cpu (a
 * kernel pass, ir.h: KILN_PASS_KERNELS) and compile-llvm-cpu (a module
 * pass). */
void kiln_llvm_cpu_register_passes(void);

/* translate-llvm-cpu on the inner module of one llvm-cpu variant (the
 * compile session is the context's): its LLVM module is queued in the
 * session for compile-llvm-cpu, which stores the shared object. user is
 * ignored. */
kiln_error *kiln_llvm_cpu_translate_variant(kiln_op *inner, void *user);

/* link-executables on a whole module (link_executables.c). user is
 * ignored. */
kiln_error *kiln_llvm_cpu_link_executables(kiln_op *module, void *user);

#endif
