/* Hooks of the flow dialect's rows in ops.def (prefix flow_). */
#ifndef KILN_IR_DIALECT_FLOW_H
#define KILN_IR_DIALECT_FLOW_H

bool flow_verify_executable(kiln_op *op);
bool flow_verify_dispatch_region(kiln_op *op);
bool flow_verify_return(kiln_op *op);
bool flow_verify_dispatch(kiln_op *op);
bool flow_verify_load(kiln_op *op);
bool flow_verify_store(kiln_op *op);
bool flow_verify_reshape(kiln_op *op);
bool flow_verify_check(kiln_op *op);
bool flow_verify_check_shape(kiln_op *op);
bool flow_verify_check_range(kiln_op *op);
bool flow_verify_list(kiln_op *op);

/* Is t "!flow.dispatch.tensor<readonly|writeonly|readwrite:tensor<...>>"?
 * *access (optional) receives the access word. */
bool flow_is_dispatch_tensor(const kiln_type *t, const char **access);

/* Is op one of flow.list.* (an ONNX sequence built on the host)? */
bool flow_is_list_op(const kiln_op *op);

#endif
