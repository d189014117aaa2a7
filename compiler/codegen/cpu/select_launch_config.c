/* select-launch-config: per kernel of a kernel module (an llvm-cpu
 * variant's inner module, or a codegen-level module), picks the root op
 * and records
 *   kiln.launch = {pipeline, tile_sizes (one per root loop, 0 = not tiled),
 *                  vector_width, workgroup_size = [1,1,1],
 *                  workgroup_count = [x,y,z]}
 * on the kernel, and workgroup_count on its hal.executable.export and on
 * every host hal.command_buffer.dispatch of that export. A dynamic
 * distributed dim (its tile count known at run time) makes its entry '?'
 * and the host computes it before each dispatch: ceildiv of the push
 * constant holding that dim by the tile, times the slot's other counts.
 *
 * Tile sizes depend only on the shapes, never on the variant, so every
 * variant of an executable agrees on the workgroup count the host
 * dispatches (a disagreement is reported as an error). Reduction loops
 * are not tiled (a workgroup owns whole reductions). A kernel whose ops
 * cannot all be restricted to the root's tiles (a fused op that reads,
 * in another position, what the kernel wrote; side-effecting non-linalg
 * ops) runs as one workgroup: correct, just not parallel. */
#include "cpu_internal.h"

/* The rule itself is compiler/codegen/common's (launch_rule.c), shared
 * with the GPU path; this pass runs it with the target's vector width and
 * records the grid on exports and dispatch sites. */
static kiln_error *configure(cg_kernel *k, void *user) {
  (void)user;
  return cg_launch_rule(k, cpu_vector_width(k->target), true);
}

kiln_error *kiln_codegen_cpu_select_launch_config(kiln_op *module, void *user) {
  (void)user;
  return cg_for_each_kernel(module, configure, NULL);
}
