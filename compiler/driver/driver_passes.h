/* The driver's own passes: those that join two back ends, so that no back
 * end includes another's header (tests/layout/check_codegen_headers.py).
 * kiln_driver_register_passes (pipeline.c) registers them; their place in
 * the pipeline is pipeline.def's. */
#ifndef KILN_DRIVER_PASSES_H
#define KILN_DRIVER_PASSES_H

#include "ir.h"

/* add-simt-cpu-variant, a kernel pass (ir.h: KILN_PASS_KERNELS) on a cuda
 * variant's inner module (add_simt_cpu_variant.c). */
kiln_error *kiln_driver_add_simt_cpu_variant(kiln_op *inner, void *user);

#endif
