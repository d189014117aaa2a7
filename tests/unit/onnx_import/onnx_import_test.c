/* Unit tests of the ONNX importer (onnx_import.h): small valid models
 * import into verified IR with the graph's names kept; malformed and
 * unsupported models each fail with the error kind and a message naming
 * the node, op type, opset and the problem — never a crash (the sanitizer
 * build runs these too). Models are written in modeltext.h's form. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "kiln_onnx.h"
#include "modeltext.h"
#include "onnx_import.h"

typedef struct result {
  bool ok;
  kiln_onnx_status st;
  char *ir; /* printed module on success (malloc'ed) */
} result;

static result import_text(const char *text) {
  result r = {0};
  size_t len;
  uint8_t *bytes = modeltext_build(text, &len);
  kiln_onnx_model *m;
  if (!kiln_onnx_model_load(bytes, len, &m, &r.st)) {
    free(bytes);
    ck_abort_msg("loader refused the test model: %s", r.st.message);
  }
  free(bytes);
  kiln_context *ctx = kiln_context_create();
  kiln_op *module;
  r.ok = kiln_onnx_import(ctx, m, &module, &r.st);
  if (r.ok) {
    ck_assert_msg(kiln_verify(module), "imported module does not verify");
    r.ir = kiln_print_op_to_string(module, 0);
  } else {
    ck_assert_ptr_null(module);
  }
  kiln_context_destroy(ctx);
  kiln_onnx_model_free(m);
  return r;
}

/* The import fails with CODE and a message containing every NULL-ended
 * fragment. */
static void expect_error(const char *text, kiln_onnx_code code, ...) {
  result r = import_text(text);
  ck_assert_msg(!r.ok, "imported, expected an error:\n%s", r.ir ? r.ir : "");
  ck_assert_msg(r.st.code == code, "code %s, expected %s: %s", kiln_onnx_code_name(r.st.code),
                kiln_onnx_code_name(code), r.st.message);
  va_list ap;
  va_start(ap, code);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
    ck_assert_msg(strstr(r.st.message, s), "message '%s' lacks '%s'", r.st.message, s);
  va_end(ap);
}

static void expect_ir(const char *text, ...) {
  result r = import_text(text);
  ck_assert_msg(r.ok, "import failed: %s", r.st.message);
  va_list ap;
  va_start(ap, text);
  for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
    ck_assert_msg(strstr(r.ir, s), "IR lacks '%s':\n%s", s, r.ir);
  va_end(ap);
  free(r.ir);
}

#define UNSUP KILN_ONNX_ERR_UNSUPPORTED
#define NODE KILN_ONNX_ERR_NODE

/* ---- valid models ---- */
START_TEST(mlp_imports) {
  expect_ir("in x f32 2,3; init w f32 3,2 = 1,2,3,4,5,6; init b f32 2 = 0.5,-0.5;"
            "node MatMul x,w -> h; node Add h,b -> y; node Relu y -> z; out z f32 2,2",
            "func.func @g(%arg0: tensor<2x3xf32> {kiln.name = \"x\"}) -> (tensor<2x2xf32> {kiln.name = \"z\"})",
            "linalg.matmul", "arith.constant dense<[[1.000000e+00, 2.000000e+00]", "arith.addf", NULL);
}
END_TEST

START_TEST(shape_chain_folds) {
  /* Shape -> Gather -> Unsqueeze -> Concat -> Reshape folds away */
  expect_ir("in x f32 2,3,4; init i i64 - = 0; init a i64 1 = 0; init m i64 1 = -1;"
            "node Shape x -> s; node Gather s,i -> d0; node Unsqueeze d0,a -> d0u;"
            "node Concat d0u,m -> shp axis=i:0; node Reshape x,shp -> y; out y f32 2,12",
            "tensor.collapse_shape %arg0 [[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>", NULL);
}
END_TEST

START_TEST(dynamic_dim_imports) {
  /* a dim_param is '?'; the argument records its name */
  expect_ir("in x f32 N,3; node Relu x -> y; out y",
            "%arg0: tensor<?x3xf32> {kiln.dims = [\"N\", \"\"], kiln.name = \"x\"}) -> (tensor<?x3xf32>",
            "tensor.dim %arg0, %c0", "tensor.empty(%dim", NULL);
}
END_TEST

START_TEST(dynamic_shape_chain) {
  /* Shape -> Gather -> Unsqueeze -> Concat -> Reshape on a run-time dim:
   * index arithmetic and a reshape whose output_shape takes it */
  expect_ir("in x f32 N,3,4; init i i64 - = 0; init a i64 1 = 0; init m i64 1 = -1;"
            "node Shape x -> s; node Gather s,i -> d0; node Unsqueeze d0,a -> d0u;"
            "node Concat d0u,m -> shp axis=i:0; node Reshape x,shp -> y; out y",
            "tensor.collapse_shape %arg0 [[0, 1, 2]] : tensor<?x3x4xf32> into tensor<?xf32>",
            "arith.divsi", "tensor.expand_shape %collapsed [[0, 1]] output_shape [%dim",
            ": tensor<?xf32> into tensor<?x?xf32>", NULL);
}
END_TEST

START_TEST(dynamic_shared_dim) {
  /* two inputs with one dim_param: checked equal at the entry */
  expect_ir("in a f32 N,3; in b f32 N,3; node Add a,b -> c; out c",
            "\"flow.check.dim_eq\"(%dim_1, %dim) : (index, index) -> ()", NULL);
}
END_TEST

START_TEST(names_and_order) {
  expect_ir("in b f32 2; in a f32 2; node Sub a,b -> d; node Neg d -> e; out e; out d",
            "{kiln.name = \"b\"}, %arg1: tensor<2xf32> {kiln.name = \"a\"}",
            "(tensor<2xf32> {kiln.name = \"e\"}, tensor<2xf32> {kiln.name = \"d\"})", NULL);
}
END_TEST

/* ---- unsupported or malformed ---- */
/* Pad reflect/edge: a gather over the output (index arithmetic, then
 * tensor.extract of x). */
START_TEST(pad_reflect_edge) {
  expect_ir("in x f32 4; init p i64 2 = 2,3; node Pad x,p -> y mode=s:reflect; out y", "tensor<9xf32>",
            "arith.remsi", "tensor.extract %arg0", NULL);
  expect_ir("in x f32 4; init p i64 2 = 2,3; node Pad x,p -> y mode=s:edge; out y", "tensor<9xf32>",
            "arith.select", "tensor.extract %arg0", NULL);
}
END_TEST

/* Einsum with an ellipsis: one loop per broadcast ellipsis dim, a size-1
 * dim reads index 0 (a constant in the operand's map). */
START_TEST(einsum_ellipsis) {
  expect_ir("in a f32 1,3,4; in b f32 2,4,5; node Einsum a,b -> y equation=s:...ij,...jk->...ik; out y",
            "affine_map<(d0, d1, d2, d3) -> (0, d1, d3)>", "-> tensor<2x3x5xf32>", NULL);
  expect_ir("in a f32 2,3; node Einsum a -> y equation=s:i...; out y", "-> tensor<3x2xf32>", NULL);
}
END_TEST

/* Trilu's k given at run time is read in the body. */
START_TEST(trilu_runtime_k) {
  expect_ir("opset 14; in x f32 3,3; in k i64 -; node Trilu x,k -> y upper=i:0; out y", "tensor.extract %arg1[]",
            "arith.index_cast", "arith.cmpi sle", NULL);
}
END_TEST

/* CumSum's axis given at run time: one generic whose reduction loop runs
 * over the largest dim, the body selecting the axis. */
START_TEST(cumsum_runtime_axis) {
  expect_ir("opset 14; in x f32 2,3; in a i32 -; node CumSum x,a -> y; out y", "tensor.extract %arg1[]",
            "arith.constant dense<0> : tensor<3xi8>", "iterator_types = [\"parallel\", \"parallel\", \"reduction\"]",
            NULL);
}
END_TEST

/* A bidirectional LSTM: two passes, Y and Y_h with the directions side
 * by side; X W^T of both steps as one [2, 3] x [3, 16] matmul per
 * direction, H R^T of all four gates as one [1, 4] x [4, 16] per step. */
START_TEST(lstm_bidirectional) {
  expect_ir("opset 14; in x f32 2,1,3; in w f32 2,16,3; in r f32 2,16,4; node LSTM x,w,r -> y,h,c hidden_size=i:4 "
            "direction=s:bidirectional; out y; out h; out c",
            "-> (tensor<2x2x1x4xf32> {kiln.name = \"y\"}, tensor<2x1x4xf32> {kiln.name = \"h\"}, "
            "tensor<2x1x4xf32> {kiln.name = \"c\"})",
            "tensor.concat dim(1)", "linalg.matmul", "tensor<2x3xf32>, tensor<3x16xf32>",
            "tensor<1x4xf32>, tensor<4x16xf32>", NULL);
}
END_TEST

/* ONNX unsigned integers: the signature keeps ui8 (the runtime checks u8
 * data), the body computes on i8 behind a tensor.bitcast view, with
 * unsigned semantics from the ONNX type (ugt, divui); an input returned
 * as is stays the argument. */
START_TEST(unsigned_boundary) {
  expect_ir("in x u8 3; in z u8 3; node Div x,z -> y; out y",
            "(%arg0: tensor<3xui8> {kiln.name = \"x\"}, %arg1: tensor<3xui8>",
            "-> (tensor<3xui8> {kiln.name = \"y\"})", "tensor.bitcast %arg0 : tensor<3xui8> to tensor<3xi8>",
            "arith.divui", ": tensor<3xi8> to tensor<3xui8>", NULL);
  expect_ir("in x u8 3; node Identity x -> y; out y", "return %arg0 : tensor<3xui8>", NULL);
}
END_TEST

START_TEST(unknown_op) {
  expect_error("in x f32 2; node Frobnicate x -> y; out y", UNSUP,
               "node 0 'n' (Frobnicate, ai.onnx opset 13): operator not supported", NULL);
}
END_TEST

START_TEST(foreign_domain) {
  expect_error("domain com.example 1; in x f32 2; nodedomain com.example; node Relu x -> y; out y", UNSUP,
               "(Relu, com.example opset 1)", "operator not supported", NULL);
}
END_TEST

START_TEST(op_outside_its_opsets) {
  expect_error("in x f32 2,3; node HardSwish x -> y; out y", UNSUP, "(HardSwish, ai.onnx opset 13)",
               "operator supported only for ai.onnx opsets 14..17", NULL);
  /* an older version with nothing to convert it from */
  expect_error("opset 6; in x f32 2,3; in w f32 2,3; node Add x,w -> y; out y", UNSUP, "(Add, ai.onnx opset 6)",
               "operator supported only for ai.onnx opsets 7..17", NULL);
}
END_TEST

START_TEST(bad_attribute_type) {
  expect_error("in x f32 2,3; node Transpose x -> y perm=floats:1,0; out y", KILN_ONNX_ERR_ATTRIBUTE,
               "(Transpose, ai.onnx opset 13)", "attribute 'perm' must be a list of ints", NULL);
}
END_TEST

START_TEST(unknown_attribute) {
  expect_error("in x f32 2; node Relu x -> y slope=f:0.5; out y", UNSUP, "(Relu, ai.onnx opset 13)",
               "attribute 'slope' is not supported", NULL);
}
END_TEST

START_TEST(unsupported_type) {
  expect_error("in x i32 2; node Sqrt x -> y; out y", UNSUP, "(Sqrt, ai.onnx opset 13)",
               "element type i32 is not supported by this operator", NULL);
}
END_TEST

START_TEST(string_input) {
  /* string tensors import for the text ops (Cast, StringNormalizer) only */
  expect_error("in x string 2; node Identity x -> y; out y", UNSUP, "(Identity, ai.onnx opset 13)",
               "Identity on string tensors is not supported", NULL);
  expect_ir("in x string 2; node Cast x -> y to=i:1; out y", "!kiln.str", "flow.text", NULL);
}
END_TEST

START_TEST(dynamic_axis_slice) {
  /* a run-time size sliced at import-time bounds is not supported */
  expect_error("in x f32 N,3; init s i64 1 = 1; init e i64 1 = 2; init ax i64 1 = 0;"
               "node Slice x,s,e,ax -> y; out y",
               KILN_ONNX_ERR_DYNAMIC, "(Slice, ai.onnx opset 13)", "slicing dynamic axis 0", NULL);
}
END_TEST

START_TEST(matmul_rank_mismatch) {
  expect_error("in a f32 2,3; in b f32 4,5; node MatMul a,b -> c; out c", NODE, "(MatMul, ai.onnx opset 13)",
               "inner dimensions differ (3 and 4)", NULL);
}
END_TEST

START_TEST(matmul_scalar) {
  expect_error("in a f32 -; in b f32 4,5; node MatMul a,b -> c; out c", NODE, "rank >= 1", NULL);
}
END_TEST

START_TEST(matmul_batch_mismatch) {
  expect_error("in a f32 2,2,3; in b f32 3,3,4; node MatMul a,b -> c; out c", NODE,
               "batch dimensions 2 and 3 do not broadcast", NULL);
}
END_TEST

START_TEST(reshape_two_minus_one) {
  expect_error("in x f32 2,6; init s i64 2 = -1,-1; node Reshape x,s -> y; out y", NODE, "(Reshape, ai.onnx opset 13)",
               "more than one -1", NULL);
}
END_TEST

START_TEST(reshape_count) {
  expect_error("in x f32 2,6; init s i64 2 = 5,2; node Reshape x,s -> y; out y", NODE,
               "shape holds 10 elements, the input 12", NULL);
}
END_TEST

START_TEST(reshape_dynamic_shape) {
  /* a shape given as a graph input is read from its data on the host */
  expect_ir("in x f32 2,6; in s i64 2; node Reshape x,s -> y; out y", "tensor.extract %arg1",
            "tensor<?x?xf32>", NULL);
  /* an empty shape from data is a scalar, all sizes known at import */
  expect_ir("in x f32 1,1; in s i64 0; node Reshape x,s -> y; out y", "tensor<f32>", NULL);
  expect_error("in x f32 2,4; in s i64 0; node Reshape x,s -> y; out y", NODE,
               "shape holds 1 elements, the input 8", NULL);
  /* one the graph computes too: the host reads it after the kernel
   * computing it ran (plan-memory splits the commands there) */
  expect_ir("in x f32 2,6; in s i64 2; node Abs s -> t; node Reshape x,t -> y; out y", "linalg.generic",
            "tensor.extract %", "tensor<?x?xf32>", NULL);
  /* one with run-time dims is not: its length would decide the rank */
  expect_error("in x f32 2,6; in s i64 N; node Abs s -> t; node Reshape x,t -> y; out y", KILN_ONNX_ERR_DYNAMIC,
               "(Reshape, ai.onnx opset 13)", NULL);
}
END_TEST

START_TEST(broadcast_mismatch) {
  expect_error("in a f32 2,3; in b f32 4; node Add a,b -> c; out c", NODE, "(Add, ai.onnx opset 13)",
               "does not broadcast", NULL);
}
END_TEST

START_TEST(type_mismatch) {
  expect_error("in a f32 2; in b i64 2; node Mul a,b -> c; out c", KILN_ONNX_ERR_TYPE,
               "input types differ (f32 and i64)", NULL);
}
END_TEST

START_TEST(conv_group_mismatch) {
  expect_error("in x f32 1,4,5,5; in w f32 6,3,3,3; node Conv x,w -> y group=i:2; out y", NODE,
               "(Conv, ai.onnx opset 13)", "group 2 does not fit", NULL);
}
END_TEST

START_TEST(conv_bad_auto_pad) {
  expect_error("in x f32 1,1,5,5; in w f32 1,1,3,3; node Conv x,w -> y auto_pad=s:MIDDLE; out y", NODE,
               "auto_pad 'MIDDLE'", NULL);
}
END_TEST

START_TEST(gather_index_range) {
  expect_error("in x f32 3,2; init i i64 1 = 3; node Gather x,i -> y; out y", NODE, "(Gather, ai.onnx opset 13)",
               "index 3 is out of range", NULL);
}
END_TEST

START_TEST(concat_rank_mismatch) {
  expect_error("in a f32 2,3; in b f32 3; node Concat a,b -> c axis=i:0; out c", NODE,
               "input 1 has rank 1, input 0 rank 2", NULL);
}
END_TEST

START_TEST(concat_missing_axis) {
  expect_error("in a f32 2,3; in b f32 2,3; node Concat a,b -> c; out c", KILN_ONNX_ERR_ATTRIBUTE,
               "attribute 'axis' is required", NULL);
}
END_TEST

START_TEST(squeeze_non_unit) {
  expect_error("in x f32 2,3; init a i64 1 = 0; node Squeeze x,a -> y; out y", NODE,
               "cannot squeeze axis 0 of size 2", NULL);
}
END_TEST

START_TEST(transpose_not_permutation) {
  expect_error("in x f32 2,3; node Transpose x -> y perm=ints:0,0; out y", NODE, "not a permutation", NULL);
}
END_TEST

START_TEST(split_sum) {
  expect_error("in x f32 6; init s i64 2 = 2,3; node Split x,s -> a,b; out a; out b", NODE,
               "split sizes sum to 5, the axis has 6", NULL);
}
END_TEST

START_TEST(gemm_arity) {
  expect_error("in a f32 2,2; node Gemm a -> y; out y", NODE, "(Gemm, ai.onnx opset 13)", "expects 2 to 3 inputs, has 1",
               NULL);
}
END_TEST

START_TEST(cast_to_string) {
  expect_ir("in x f32 2; node Cast x -> y to=i:8; out y", "flow.text", "!kiln.str", NULL);
  expect_error("in x u8 2; node Cast x -> y to=i:8; out y", UNSUP, "(Cast, ai.onnx opset 13)",
               "cast between string and", "(unsigned) is not supported", NULL);
}
END_TEST

START_TEST(softmax_axis) {
  expect_error("in x f32 2,3; node Softmax x -> y axis=i:5; out y", NODE, "axis 5 is out of range for rank 2",
               NULL);
}
END_TEST

START_TEST(pad_wrap) {
  expect_error("in x f32 4; init p i64 2 = 1,1; node Pad x,p -> y mode=s:wrap; out y", UNSUP,
               "(Pad, ai.onnx opset 13)", "mode 'wrap'", NULL);
}
END_TEST

START_TEST(pad_edge_of_empty) {
  expect_error("in x f32 2,0; init p i64 4 = 0,1,0,1; node Pad x,p -> y mode=s:edge; out y", NODE,
               "(Pad, ai.onnx opset 13)", "mode 'edge' pads dimension 1, which is empty", NULL);
}
END_TEST

START_TEST(einsum_ellipsis_summed_away) {
  expect_error("in a f32 2,3,4; node Einsum a -> y equation=s:...ij->ij; out y", UNSUP, "(Einsum, ai.onnx opset 13)",
               "ellipsis dims summed away", NULL);
}
END_TEST

START_TEST(einsum_two_ellipses) {
  expect_error("in a f32 2,3,4; node Einsum a -> y equation=s:...i...->i; out y", NODE, "(Einsum, ai.onnx opset 13)",
               "one '...' per term", NULL);
}
END_TEST

START_TEST(einsum_ellipsis_mismatch) {
  expect_error("in a f32 2,3,4; in b f32 3,4,5; node Einsum a,b -> y equation=s:...ij,...jk->...ik; out y", NODE,
               "(Einsum, ai.onnx opset 13)", "ellipsis dims do not broadcast (2 and 3)", NULL);
}
END_TEST

START_TEST(trilu_k_type) {
  expect_error("opset 14; in x f32 3,3; in k i32 -; node Trilu x,k -> y; out y", KILN_ONNX_ERR_TYPE,
               "(Trilu, ai.onnx opset 14)", "k must be int64, not i32", NULL);
}
END_TEST

START_TEST(declared_output_shape) {
  expect_error("in x f32 2,3; node Relu x -> y; out y f32 3,2", KILN_ONNX_ERR_TYPE, "graph output 'y'",
               "computed shape 2x3", NULL);
}
END_TEST

START_TEST(unsqueeze_repeated) {
  expect_error("in x f32 2; init a i64 2 = 0,0; node Unsqueeze x,a -> y; out y", NODE, "axis 0 is repeated", NULL);
}
END_TEST

START_TEST(maxpool_indices) {
  expect_error("in x f32 1,1,4,4; node MaxPool x -> y,i kernel_shape=ints:2,2 storage_order=i:2; out y; out i", NODE,
               "storage_order 2", NULL);
}
END_TEST

START_TEST(topk_dynamic_k) {
  /* K given as a graph input or computed by the graph is read on the host;
   * a K of run-time length is refused */
  expect_ir("in x f32 3,4; in k i64 1; node TopK x,k -> v,i; out v; out i", "tensor.extract %arg1", NULL);
  expect_ir("in x f32 3,4; in k i64 1; node Abs k -> j; node TopK x,j -> v,i; out v; out i", "tensor.extract %",
            "tensor<3x?xf32>", NULL);
  expect_error("in x f32 3,4; in k i64 N; node Abs k -> j; node TopK x,j -> v,i; out v; out i",
               KILN_ONNX_ERR_DYNAMIC, "(TopK, ai.onnx opset 13)", NULL);
}
END_TEST

START_TEST(quantize_run_time_batch) {
  /* a QDQ model's input quantized and dequantized over a run-time batch
   * (deployment exports): elementwise over the run-time dims; per-axis
   * parameters along a run-time axis are refused, naming it */
  expect_ir("in x f32 N,3; init s f32 - = 0.5; init z u8 - = 3;"
            "node QuantizeLinear x,s,z -> q; node DequantizeLinear q,s,z -> y; out y",
            "tensor<?x3xf32>", "tensor.empty(%", NULL);
  expect_error("in x f32 N,3; init s f32 2 = 0.5,0.25; init z u8 2 = 3,4;"
               "node QuantizeLinear x,s,z -> q axis=i:0; out q",
               KILN_ONNX_ERR_DYNAMIC, "(QuantizeLinear, ai.onnx opset 13)", "axis 0 has a run-time size", NULL);
}
END_TEST

START_TEST(topk_k_too_large) {
  expect_error("in x f32 3,4; init k i64 1 = 5; node TopK x,k -> v,i; out v; out i", NODE,
               "K = 5 for an axis of 4 elements", NULL);
}
END_TEST

START_TEST(unique_is_dynamic) {
  /* a static input: kernels find the unique elements, the host reads
   * their number; one with run-time dims is still refused */
  expect_ir("in x f32 4; node Unique x -> y; out y", "tensor.extract %", "tensor<?xf32>", NULL);
  expect_error("in x f32 N; node Unique x -> y; out y", KILN_ONNX_ERR_DYNAMIC, "(Unique, ai.onnx opset 13)",
               "input 0 has a run-time dim", NULL);
}
END_TEST

START_TEST(det_too_large) {
  expect_error("in x f32 17,17; node Det x -> y; out y", UNSUP, "17x17 matrices (up to 16x16)", NULL);
}
END_TEST

START_TEST(attribute_from_a_later_version) {
  expect_error("opset 11; in x f32 2,3; node ReduceSum x -> y noop_with_empty_axes=i:1; out y", NODE,
               "(ReduceSum, ai.onnx opset 11)",
               "attribute 'noop_with_empty_axes' does not exist in this version of ReduceSum", NULL);
}
END_TEST

START_TEST(old_attribute_and_new_input) {
  expect_error("opset 11; in x f32 1,3; init a i64 1 = 0; node Squeeze x,a -> y axes=ints:0; out y", NODE,
               "input 1 is given, but in this version 'axes' is an attribute", NULL);
}
END_TEST

START_TEST(upsample_up_and_down) {
  expect_error("opset 9; in x f32 1,1,4,4; init s f32 4 = 1,1,2,0.5; node Upsample x,s -> y; out y", UNSUP,
               "(Upsample, ai.onnx opset 9)", "scales above and below 1", NULL);
}
END_TEST

START_TEST(dropout_training) {
  expect_error("in x f32 4; init r f32 - = 0.5; init t i64 - = 1; node Dropout x,r,t -> y; out y", NODE,
               "training_mode must be one bool", NULL);
}
END_TEST

START_TEST(cumsum_axis_type) {
  expect_error("opset 14; in x f32 2,3; in a f32 -; node CumSum x,a -> y; out y", KILN_ONNX_ERR_TYPE,
               "(CumSum, ai.onnx opset 14)", "axis must be int32 or int64, not f32", NULL);
}
END_TEST

START_TEST(scatter_reduction_max) {
  expect_error("opset 16; in d f32 4; in i i64 2; in u f32 2; node ScatterElements d,i,u -> y reduction=s:max; out y",
               UNSUP, "(ScatterElements, ai.onnx opset 16)", "reduction 'max'", NULL);
}
END_TEST

START_TEST(scatter_reduction_before_16) {
  expect_error("opset 13; in d f32 4; in i i64 2; in u f32 2; node ScatterND d,i,u -> y reduction=s:add; out y",
               KILN_ONNX_ERR_NODE, "(ScatterND, ai.onnx opset 13)",
               "attribute 'reduction' does not exist in this version of ScatterND", NULL);
}
END_TEST

START_TEST(scatternd_updates_shape) {
  expect_error("in d f32 4,5; in i i64 2,1; in u f32 2,4; node ScatterND d,i,u -> y; out y", NODE,
               "(ScatterND, ai.onnx opset 13)", "indices.shape[:-1] + data.shape[k:]", NULL);
}
END_TEST

START_TEST(scatter_indices_type) {
  expect_error("in d f32 4; in i f32 2; in u f32 2; node ScatterElements d,i,u -> y; out y", KILN_ONNX_ERR_TYPE,
               "(ScatterElements, ai.onnx opset 13)", "indices must be int32 or int64, not f32", NULL);
}
END_TEST

START_TEST(gridsample_volumetric) {
  expect_error("opset 16; in x f32 1,1,2,2,2; in g f32 1,2,2,2,3; node GridSample x,g -> y; out y", UNSUP,
               "(GridSample, ai.onnx opset 16)", "X of rank 5", NULL);
}
END_TEST

START_TEST(gridsample_mode) {
  expect_error("opset 16; in x f32 1,1,2,2; in g f32 1,2,2,2; node GridSample x,g -> y mode=s:cubic; out y", NODE,
               "(GridSample, ai.onnx opset 16)", "mode 'cubic'", NULL);
}
END_TEST

START_TEST(gridsample_before_16) {
  expect_error("opset 15; in x f32 1,1,2,2; in g f32 1,2,2,2; node GridSample x,g -> y; out y", UNSUP,
               "(GridSample, ai.onnx opset 15)", "supported only for ai.onnx opsets 16..17", NULL);
}
END_TEST

START_TEST(resize_mode) {
  expect_error("in x f32 1,1,2,2; init s f32 4 = 1,1,2,2; node Resize x,_,s -> y mode=s:area; out y", NODE,
               "(Resize, ai.onnx opset 13)", "mode 'area' (nearest, linear or cubic)", NULL);
}
END_TEST

START_TEST(resize_crop) {
  expect_error("in x f32 1,1,2,2; init s f32 4 = 1,1,2,2; node Resize x,_,s -> y "
               "coordinate_transformation_mode=s:tf_crop_and_resize; out y",
               NODE, "(Resize, ai.onnx opset 13)", "tf_crop_and_resize needs roi", NULL);
}
END_TEST

START_TEST(rnn_direction) {
  expect_error("opset 14; in x f32 2,1,3; in w f32 2,4,3; in r f32 2,4,4; node RNN x,w,r -> y,h hidden_size=i:4 "
               "direction=s:both; out h",
               NODE, "(RNN, ai.onnx opset 14)", "direction 'both'", NULL);
}
END_TEST

START_TEST(rnn_bidirectional_weights) {
  expect_error("opset 14; in x f32 2,1,3; in w f32 1,4,3; in r f32 1,4,4; node RNN x,w,r -> y,h hidden_size=i:4 "
               "direction=s:bidirectional; out h",
               NODE, "(RNN, ai.onnx opset 14)", "W must be [2, 4, 3] and R [2, 4, 4]", NULL);
}
END_TEST

START_TEST(lstm_activations) {
  expect_error("opset 14; in x f32 2,1,3; in w f32 1,16,3; in r f32 1,16,4; node LSTM x,w,r -> y,h hidden_size=i:4 "
               "activations=s:Relu; out h",
               KILN_ONNX_ERR_ATTRIBUTE, "(LSTM, ai.onnx opset 14)", "attribute 'activations' must be a list of strings",
               NULL);
}
END_TEST

START_TEST(gru_weight_shape) {
  expect_error("opset 14; in x f32 2,1,3; in w f32 1,9,3; in r f32 1,12,4; node GRU x,w,r -> y,h hidden_size=i:4; out h",
               NODE, "(GRU, ai.onnx opset 14)", "W must be [1, 12, 3] and R [1, 12, 4]", NULL);
}
END_TEST

START_TEST(rnn_layout_before_14) {
  expect_error("opset 13; in x f32 2,1,3; in w f32 1,4,3; in r f32 1,4,4; node RNN x,w,r -> y,h hidden_size=i:4 "
               "layout=i:1; out h",
               KILN_ONNX_ERR_NODE, "(RNN, ai.onnx opset 13)", "attribute 'layout' does not exist in this version of RNN",
               NULL);
}
END_TEST

START_TEST(roialign_adaptive) {
  expect_error("opset 16; in x f32 1,1,4,4; in r f32 2,4; in b i64 2; node RoiAlign x,r,b -> y; out y",
               KILN_ONNX_ERR_DYNAMIC, "(RoiAlign, ai.onnx opset 16)", "sampling_ratio 0 with run-time rois", NULL);
}
END_TEST

START_TEST(roialign_max) {
  expect_error("opset 16; in x f32 1,1,4,4; in r f32 2,4; in b i64 2; node RoiAlign x,r,b -> y mode=s:median "
               "sampling_ratio=i:2; out y",
               NODE, "(RoiAlign, ai.onnx opset 16)", "mode 'median' (avg or max)", NULL);
}
END_TEST

/* ---- hostile sizes: errors, never overflow or huge allocations ---- */
START_TEST(huge_input_dims) {
  expect_error("in x f32 4294967296,4294967296; node Relu x -> y; out y", UNSUP, "graph input 'x'",
               "dimension 0 is 4294967296", NULL);
}
END_TEST

START_TEST(huge_expand) {
  expect_error("in x f32 1; init s i64 3 = 2147483648,2147483648,2147483648; node Expand x,s -> y; out y", UNSUP,
               "(Expand, ai.onnx opset 13)", "shape: ", NULL);
}
END_TEST

START_TEST(huge_tile) {
  expect_error("in x f32 2; init r i64 1 = 9223372036854775807; node Tile x,r -> y; out y", NODE,
               "repeat is 9223372036854775807", NULL);
}
END_TEST

START_TEST(huge_stride) {
  expect_error("in x f32 1,1,4,4; node MaxPool x -> y kernel_shape=ints:2,2 strides=ints:9223372036854775807,1; out y",
               NODE, "stride is 9223372036854775807", NULL);
}
END_TEST

START_TEST(huge_slice_step) {
  /* a step past the dim selects one element: fine, no overflow */
  expect_ir("in x f32 5; init s i64 1 = 1; init e i64 1 = 5; init a i64 1 = 0; init k i64 1 = 9223372036854775807;"
            "node Slice x,s,e,a,k -> y; out y f32 1",
            "tensor.extract_slice %arg0[1] [1] [6]", NULL);
}
END_TEST

START_TEST(huge_range) {
  expect_error("init a f32 - = 0; init b f32 - = 1e30; init d f32 - = 1; node Range a,b,d -> y; out y", UNSUP,
               "(Range, ai.onnx opset 13)", "exceeds", NULL);
}
END_TEST

START_TEST(empty_string_attribute) {
  /* found by the fuzzer: an empty string attribute has no data pointer */
  expect_error("in x f32 4; init p i64 2 = 1,1; node Pad x,p -> y mode=s:; out y", UNSUP, "mode ''", NULL);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("onnx_import");
  TCase *v = tcase_create("valid");
  tcase_add_test(v, mlp_imports);
  tcase_add_test(v, shape_chain_folds);
  tcase_add_test(v, dynamic_dim_imports);
  tcase_add_test(v, dynamic_shape_chain);
  tcase_add_test(v, dynamic_shared_dim);
  tcase_add_test(v, names_and_order);
  tcase_add_test(v, unsigned_boundary);
  tcase_add_test(v, pad_reflect_edge);
  tcase_add_test(v, einsum_ellipsis);
  tcase_add_test(v, trilu_runtime_k);
  tcase_add_test(v, cumsum_runtime_axis);
  tcase_add_test(v, lstm_bidirectional);
  suite_add_tcase(s, v);
  TCase *e = tcase_create("errors");
  tcase_add_test(e, unknown_op);
  tcase_add_test(e, foreign_domain);
  tcase_add_test(e, op_outside_its_opsets);
  tcase_add_test(e, bad_attribute_type);
  tcase_add_test(e, unknown_attribute);
  tcase_add_test(e, unsupported_type);
  tcase_add_test(e, string_input);
  tcase_add_test(e, dynamic_axis_slice);
  tcase_add_test(e, matmul_rank_mismatch);
  tcase_add_test(e, matmul_scalar);
  tcase_add_test(e, matmul_batch_mismatch);
  tcase_add_test(e, reshape_two_minus_one);
  tcase_add_test(e, reshape_count);
  tcase_add_test(e, reshape_dynamic_shape);
  tcase_add_test(e, broadcast_mismatch);
  tcase_add_test(e, type_mismatch);
  tcase_add_test(e, conv_group_mismatch);
  tcase_add_test(e, conv_bad_auto_pad);
  tcase_add_test(e, gather_index_range);
  tcase_add_test(e, concat_rank_mismatch);
  tcase_add_test(e, concat_missing_axis);
  tcase_add_test(e, squeeze_non_unit);
  tcase_add_test(e, transpose_not_permutation);
  tcase_add_test(e, split_sum);
  tcase_add_test(e, gemm_arity);
  tcase_add_test(e, cast_to_string);
  tcase_add_test(e, softmax_axis);
  tcase_add_test(e, pad_wrap);
  tcase_add_test(e, pad_edge_of_empty);
  tcase_add_test(e, einsum_ellipsis_summed_away);
  tcase_add_test(e, einsum_two_ellipses);
  tcase_add_test(e, einsum_ellipsis_mismatch);
  tcase_add_test(e, trilu_k_type);
  tcase_add_test(e, cumsum_axis_type);
  tcase_add_test(e, scatter_reduction_max);
  tcase_add_test(e, scatter_reduction_before_16);
  tcase_add_test(e, scatternd_updates_shape);
  tcase_add_test(e, scatter_indices_type);
  tcase_add_test(e, gridsample_volumetric);
  tcase_add_test(e, gridsample_mode);
  tcase_add_test(e, gridsample_before_16);
  tcase_add_test(e, resize_mode);
  tcase_add_test(e, resize_crop);
  tcase_add_test(e, rnn_direction);
  tcase_add_test(e, rnn_bidirectional_weights);
  tcase_add_test(e, lstm_activations);
  tcase_add_test(e, gru_weight_shape);
  tcase_add_test(e, rnn_layout_before_14);
  tcase_add_test(e, roialign_adaptive);
  tcase_add_test(e, roialign_max);
  tcase_add_test(e, declared_output_shape);
  tcase_add_test(e, unsqueeze_repeated);
  tcase_add_test(e, maxpool_indices);
  tcase_add_test(e, topk_dynamic_k);
  tcase_add_test(e, quantize_run_time_batch);
  tcase_add_test(e, topk_k_too_large);
  tcase_add_test(e, unique_is_dynamic);
  tcase_add_test(e, det_too_large);
  tcase_add_test(e, attribute_from_a_later_version);
  tcase_add_test(e, old_attribute_and_new_input);
  tcase_add_test(e, upsample_up_and_down);
  tcase_add_test(e, dropout_training);
  suite_add_tcase(s, e);
  TCase *h = tcase_create("hostile");
  tcase_add_test(h, huge_input_dims);
  tcase_add_test(h, huge_expand);
  tcase_add_test(h, huge_tile);
  tcase_add_test(h, huge_stride);
  tcase_add_test(h, huge_slice_step);
  tcase_add_test(h, huge_range);
  tcase_add_test(h, empty_string_attribute);
  suite_add_tcase(s, h);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
