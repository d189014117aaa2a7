/* Kiln's flow stage: from tensor programs (func + arith/math/tensor/linalg
 * after the input stage) to host functions that call outlined kernels.
 *
 * Takes: a verified, canonicalized module with static shapes.
 * Guarantees (after the "flow" pipeline, see compiler/PIPELINE.md): each
 * flow.executable holds one kernel func.func of its own name whose
 * arguments are !flow.dispatch.tensor values (readonly inputs, then one
 * writeonly per result), loaded and stored once each; host functions hold
 * only flow.dispatch, flow.tensor.reshape, arith.constant and func.return;
 * results never alias arguments, constants or each other. */
#ifndef KILN_FLOW_H
#define KILN_FLOW_H

#include "ir.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every pass of passes.def (compiler/driver/pipeline.def runs
 * them in order as the "flow" stage). Idempotent. */
void kiln_flow_register(void);

/* The passes, callable directly (user is ignored). */
#define KILN_FLOW_PASS(ID, NAME, DESCRIPTION) \
  kiln_error *kiln_flow_pass_##ID(kiln_op *module, void *user);
#include "passes.def"
#undef KILN_FLOW_PASS

#ifdef __cplusplus
}
#endif
#endif /* KILN_FLOW_H */
