#!/usr/bin/python3
"""Writes a small model with ONNX's own external-data writer, for tests.

Usage: /usr/bin/python3 make_mlp.py OUT_DIR
Writes OUT_DIR/model.onnx (opset 17, checked by onnx.checker) and
OUT_DIR/weights.bin: initializer w (64x64 f32, 0..4095) goes to the
external file; b (64 f32 ones) stays in raw_data; k (3 x i8: -1, 2, 3) is
written by make_tensor in int32_data, so the loader must convert it.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
w = numpy_helper.from_array(
    np.arange(4096, dtype=np.float32).reshape(64, 64), "w")
b = numpy_helper.from_array(np.ones(64, dtype=np.float32), "b")
k = helper.make_tensor("k", TensorProto.INT8, [3], [-1, 2, 3])
g = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["t"]),
     helper.make_node("Add", ["t", "b"], ["y"]),
     helper.make_node("Cast", ["k"], ["kf"], to=TensorProto.FLOAT)],
    "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 64]),
     helper.make_tensor_value_info("kf", TensorProto.FLOAT, [3])],
    initializer=[w, b, k])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
onnx.checker.check_model(m)
onnx.save_model(m, out + "/model.onnx", save_as_external_data=True,
                all_tensors_to_one_file=True, location="weights.bin",
                size_threshold=1024)
