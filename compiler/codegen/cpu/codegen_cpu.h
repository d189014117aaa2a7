/* llvm-cpu code generation between the HAL's bufferized kernels and the
 * translation to LLVM IR (compiler/PIPELINE.md, codegen section).
 *
 * Takes: a kernel module (ir.h, KILN_PASS_KERNELS): an llvm-cpu variant's
 * inner module holding kernels (func.func without arguments) of linalg ops
 * on memrefs from hal.interface.binding (the variant names the target);
 * or, as a codegen-level input, a builtin.module of such kernels directly
 * (target from the module's `kiln.target` string attribute, else the
 * host). compiler/driver/pipeline.def runs them in this order:
 *   select-launch-config   kiln.launch on every kernel, workgroup_count on
 *                          exports and on host dispatch sites
 *   tile-and-distribute    every linalg op restricted to the workgroup's
 *                          tile (memref.subview at hal.interface.workgroup.id)
 *   specialize-full-tiles  scf.if full tile (static shapes) / partial tile
 *   lower-to-loops         no linalg left: scf.for, memref and vector ops
 *   remove-single-iteration-loops
 * Public prefix kiln_codegen_cpu_; internal prefix cg_. */
#ifndef KILN_CODEGEN_CPU_H
#define KILN_CODEGEN_CPU_H

#include "ir.h"

/* Registers the passes above under their command-line names. */
void kiln_codegen_cpu_register(void);

#define KILN_CODEGEN_CPU_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_codegen_cpu_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_CODEGEN_CPU_PASS

#endif
