/* Kiln's hal stage: from flow's outlined kernels and host dispatches to
 * target variants with bufferized kernels and host code on buffers.
 *
 * Takes: a module after the flow pipeline (compiler/PIPELINE.md, flow).
 * Guarantees (after the "hal" pipeline, PIPELINE.md, hal): one
 * hal.executable.variant per target per executable; kernels on memrefs
 * over hal.interface.binding; host functions take and return
 * !hal.buffer_view, assert their inputs, use rodata for constants, own
 * allocations for results and a liveness-packed transient arena for
 * intermediates, and record one command buffer whose barriers sit only
 * where a dispatch depends on an earlier one. */
#ifndef KILN_HAL_H
#define KILN_HAL_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass of passes.def (compiler/driver/pipeline.def runs
 * them in order as the "hal" stage). Idempotent. */
void kiln_hal_register(void);

#define KILN_HAL_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_hal_pass_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_HAL_PASS

/* assign-targets takes its targets from the compile session of the
 * module's context (kiln_session_targets' explicit --target values,
 * compiler/driver/session.h), else the module attribute
 * `kiln.targets = ["..."]`, else "llvm-cpu" (the host). */
/* Checks one target string (the same test assign-targets applies). */
kiln_error *kiln_hal_check_target(const char *target);

/* Memory planning, exposed for tests and tools: buffers with lifetimes
 * [first, last] (inclusive positions in program order) and sizes in
 * bytes get offsets in one arena such that two buffers whose lifetimes
 * overlap never share a byte; offsets are multiples of `alignment` (a
 * power of two). Returns the arena size (0 for no buffers). Placement is
 * deterministic: largest first, each at the lowest offset that fits, then
 * fixed-seed perturbations of that order while the arena exceeds the
 * bytes alive at one time; the smallest arena found wins. */
typedef struct kiln_hal_interval {
  int64_t first, last;
  uint64_t size;
  uint64_t offset; /* out */
} kiln_hal_interval;
uint64_t kiln_hal_pack_arena(kiln_hal_interval *v, size_t n, uint64_t alignment);

#ifdef __cplusplus
}
#endif
#endif /* KILN_HAL_H */
