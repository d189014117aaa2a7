/* Kiln ONNX importer: a loaded, validated ONNX model (kiln_onnx.h) to Kiln
 * IR.
 *
 * Takes: a model from kiln_onnx_model_load / _load_file (default-domain
 * opset 1..17; each node binds to the row of onnx_ops.def for its domain
 * and that domain's opset, and older versions convert to the newest form,
 * import_upgrade.c). Guarantees: on success, *module_out is a builtin.module
 * holding one public func.func named after the graph (or @main_graph when
 * the graph has no usable name) whose arguments are the graph inputs that
 * are not initializers, in order, and whose results are the graph outputs
 * in order, each carrying its ONNX name as {kiln.name = "..."}; the body
 * uses only func/arith/math/tensor/linalg ops and passes kiln_verify. A
 * graph input dim without dim_value (a dim_param or unknown) is '?'; its
 * size reaches the body as tensor.dim, computations on shapes (Shape,
 * Gather, Concat, Unsqueeze, Slice, Cast, integer arithmetic) become index
 * arithmetic and Reshape/Expand/ConstantOfShape targets dynamic sizes; two
 * inputs with one dim_param get a flow.check.dim_eq at the entry. Each
 * argument with a dim_param records {kiln.dims = ["batch", "", ...]}. Initializers become arith.constant dense tensors (only
 * those an op consumes as data); shape computations on constants (Shape,
 * Gather/Slice/Concat/Unsqueeze on shapes, ConstantOfShape, Reshape's
 * shape input, ...) are folded at import time. Otherwise the status names
 * the node, its op type, its domain and that domain's opset and what is
 * missing or wrong, e.g.
 *   onnx: unsupported: node 2 'conv1' (Conv, ai.onnx opset 13): auto_pad 'FOO'
 * with kind "dynamic" when a run-time value would decide a shape,
 * and nothing is added to the context but unreferenced arena memory.
 *
 * The model is not const: tensor byte views of narrow typed fields are
 * converted once and cached in it (kiln_onnx_model_tensor_bytes). */
#ifndef KILN_ONNX_IMPORT_H
#define KILN_ONNX_IMPORT_H

#include <stdbool.h>

#include "ir.h"
#include "kiln_onnx.h"

#ifdef __cplusplus
extern "C" {
#endif

bool kiln_onnx_import(kiln_context *ctx, kiln_onnx_model *model,
                      kiln_op **module_out, kiln_onnx_status *status);

/* Shapes fixed at import (kiln-compile --dim, --static-shape,
 * --sequence-length): every graph input dim whose dim_param is
 * dim_names[i] becomes dim_values[i]; the graph input named
 * shape_inputs[i] (or NAME[k], element k of a sequence input) takes the
 * static shape shapes[i] (shape_ranks[i] dims; its rank and static dims
 * must agree, an input of unknown rank takes it); the sequence input
 * named seq_inputs[i] holds seq_lengths[i] tensors, one function argument
 * each. A binding that matches nothing is an error. Other dims stay
 * dynamic ('?'). */
typedef struct kiln_onnx_import_options {
  uint32_t ndims;
  const char *const *dim_names;
  const int64_t *dim_values;
  uint32_t nshapes;
  const char *const *shape_inputs;
  const uint32_t *shape_ranks;
  const int64_t *const *shapes;
  uint32_t nseqs;
  const char *const *seq_inputs;
  const int64_t *seq_lengths;
} kiln_onnx_import_options;
bool kiln_onnx_import_with(kiln_context *ctx, kiln_onnx_model *model,
                           const kiln_onnx_import_options *opts, kiln_op **module_out,
                           kiln_onnx_status *status);

/* Whether the importer has a row for OP_TYPE (default domain) at OPSET;
 * tools use it to sort unsupported models by op. */
bool kiln_onnx_import_supports(const char *op_type, int64_t opset);

#ifdef __cplusplus
}
#endif
#endif
