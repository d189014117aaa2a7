"""Writes small ONNX models for the importer's FileCheck tests.

Usage: models.py NAME OUT.onnx  (NAME: one of MODELS below). Models are
built with python3-onnx's helper at opset 13 unless a model names its
opsets, so they exercise what the generated node tests do not (older
forms, other domains, refusals).
"""
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper


def conv_group():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6, 3, 3])
    w = numpy_helper.from_array(np.ones((6, 2, 3, 3), np.float32), "w")
    b = numpy_helper.from_array(np.arange(6, dtype=np.float32), "b")
    n = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv", group=2,
                         pads=[1, 1, 1, 1], strides=[2, 2])
    return [n], [x], [y], [w, b]


def batchnorm_const():
    """Inference BatchNormalization whose scale, B, mean and var are
    initializers (the importer folds them): scale 2, B 1, mean 3, var 3,
    epsilon 1: k = 2 / sqrt(3 + 1) = 1, d = 1 - 3 * 1 = -2."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 2, 2])
    inits = [numpy_helper.from_array(np.full(3, v, np.float32), n) for n, v in
             (("s", 2.0), ("b", 1.0), ("m", 3.0), ("v", 3.0))]
    n = helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"], name="bn", epsilon=1.0)
    return [n], [x], [y], inits


def conv1d():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 9])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 6, 5])
    w = numpy_helper.from_array(np.ones((6, 2, 3), np.float32), "w")
    n = helper.make_node("Conv", ["x", "w"], ["y"], name="conv1d", group=2, pads=[1, 1], strides=[2])
    return [n], [x], [y], [w]


def pools():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])
    m = helper.make_tensor_value_info("m", TensorProto.FLOAT, [1, 2, 2, 2])
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 2, 4, 4])
    g = helper.make_tensor_value_info("g", TensorProto.FLOAT, [1, 2, 1, 1])
    return [
        helper.make_node("MaxPool", ["x"], ["m"], name="mp", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("AveragePool", ["x"], ["a"], name="ap", kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["x"], ["g"], name="gap"),
    ], [x], [m, a, g], []


def shape_fold():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 4])
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Slice", ["s", "st", "en"], ["s01"]),
        helper.make_node("ReduceProd", ["s01"], ["p"], keepdims=1),
        helper.make_node("Gather", ["s", "two"], ["last"]),
        helper.make_node("Concat", ["p", "last"], ["shp"], axis=0),
        helper.make_node("Reshape", ["x", "shp"], ["y"]),
    ]
    inits = [numpy_helper.from_array(np.array([0], np.int64), "st"),
             numpy_helper.from_array(np.array([2], np.int64), "en"),
             numpy_helper.from_array(np.array([2], np.int64), "two")]
    return nodes, [x], [y], inits


def einsum_batch():
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, 4])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 4, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])
    t = helper.make_tensor_value_info("t", TensorProto.FLOAT, [4, 3])
    return [helper.make_node("Einsum", ["a", "b"], ["y"], equation="bij,bjk->bik"),
            helper.make_node("Einsum", ["a"], ["t"], equation="bij->ji")], [a, b], [y, t], []


def conv_transpose():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 3])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2, 2, 3, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 1, 4, 4])
    k = numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2), "k")
    x1 = helper.make_tensor_value_info("x1", TensorProto.FLOAT, [1, 1, 3, 3])
    return [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up", group=2, strides=[2, 2],
                             pads=[1, 1, 0, 0]),
            helper.make_node("ConvTranspose", ["x1", "k"], ["z"], name="const")], [x, w, x1], [y, z], [k]


def resize():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 6])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 1, 4, 4])
    sc = numpy_helper.from_array(np.array([1, 1, 2, 3], np.float32), "sc")
    sz = numpy_helper.from_array(np.array([1, 1, 4, 4], np.int64), "sz")
    return [helper.make_node("Resize", ["x", "", "sc"], ["y"], mode="nearest"),
            helper.make_node("Resize", ["x", "", "", "sz"], ["z"], mode="linear",
                             coordinate_transformation_mode="align_corners")], [x], [y, z], [sc, sz]


def old_opset9():
    """Opset 9 forms the importer converts: attributes that became inputs
    (Squeeze/Unsqueeze axes, Slice starts/ends/axes, Pad pads and value,
    Clip min/max), Softmax's 2-D view, Upsample's asymmetric nearest."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1, 3, 4])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in
            [("sq", [2, 3, 4]), ("us", [2, 1, 1, 3, 4]), ("sl", [2, 1, 2, 3]), ("pd", [2, 1, 5, 4]),
             ("sm", [2, 1, 3, 4]), ("cl", [2, 1, 3, 4]), ("up", [2, 1, 6, 8])]]
    sc = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc")
    return [
        helper.make_node("Squeeze", ["x"], ["sq"], axes=[1]),
        helper.make_node("Unsqueeze", ["x"], ["us"], axes=[2]),
        helper.make_node("Slice", ["x"], ["sl"], starts=[1, 1], ends=[3, 100], axes=[2, 3]),
        helper.make_node("Pad", ["x"], ["pd"], pads=[0, 0, 1, 0, 0, 0, 1, 0], value=2.5),
        helper.make_node("Softmax", ["x"], ["sm"], axis=2),
        helper.make_node("Clip", ["x"], ["cl"], min=-1.0),
        helper.make_node("Upsample", ["x", "sc"], ["up"], mode="nearest"),
    ], [x], outs, [sc], [("", 9)]


def unknown_contrib():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return [helper.make_node("Frobnicate", ["x"], ["y"], name="frob", domain="com.microsoft")], [x], [y], [], \
        [("", 13), ("com.microsoft", 1)]


def add_opset6():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return [helper.make_node("Add", ["x", "x"], ["y"], name="add")], [x], [y], [], [("", 6)]


def opset18():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    return [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x], [y], [], [("", 18)]


def pool_unknown_spatial():
    """MaxPool over an input whose spatial dim has neither a value nor a name."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, None, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    return [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[3, 3], strides=[2, 2],
                             ceil_mode=1)], [x], [y], [], [("", 12)]


def dense_relu():
    """MatMul + Add + Relu, the Add unnamed: one dispatch names all three."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 16])
    w = numpy_helper.from_array(np.full((8, 16), 0.5, np.float32), "w")
    b = numpy_helper.from_array(np.arange(16, dtype=np.float32), "b")
    return [
        helper.make_node("MatMul", ["x", "w"], ["xw"], name="/fc/MatMul"),
        helper.make_node("Add", ["xw", "b"], ["z"]),
        helper.make_node("Relu", ["z"], ["y"], name="/act/Relu"),
    ], [x], [y], [w, b]


def matmul_batched_2d():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 5])
    w = numpy_helper.from_array(np.arange(20, dtype=np.float32).reshape(4, 5), "w")
    return [helper.make_node("MatMul", ["x", "w"], ["y"])], [x], [y], [w]


def matmul_4d_dynamic():
    """Attention's [b, h, s, d] x [b, h, d, s] with a run-time b and s."""
    q = helper.make_tensor_value_info("q", TensorProto.FLOAT, ["b", 3, "s", 8])
    k = helper.make_tensor_value_info("k", TensorProto.FLOAT, ["b", 3, 8, "s"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 3, "s", "s"])
    return [helper.make_node("MatMul", ["q", "k"], ["y"])], [q, k], [y], []


def _qdq(x_shape, y_shape, op, w, axis, bias_via_add):
    """x -> Q -> DQ (per-tensor constants: scale 0.5, zero point 200) -> OP
    with the int8 weight W through a per-channel DQ along AXIS (scales
    0.25 and 2, zero points 0 and 1) and an int32 bias [-6, 7] through DQ
    (scales 0.125 and 1): OP's input C, or an Add after it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)
    inits = [numpy_helper.from_array(np.array(0.5, np.float32), "xs"),
             numpy_helper.from_array(np.array(200, np.uint8), "xz"),
             numpy_helper.from_array(w, "w"),
             numpy_helper.from_array(np.array([0.25, 2.0], np.float32), "ws"),
             numpy_helper.from_array(np.array([0, 1], np.int8), "wz"),
             numpy_helper.from_array(np.array([-6, 7], np.int32), "b"),
             numpy_helper.from_array(np.array([0.125, 1.0], np.float32), "bs")]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["w", "ws", "wz"], ["wd"], axis=axis),
        helper.make_node("DequantizeLinear", ["b", "bs"], ["bd"], axis=0),
    ]
    if bias_via_add:
        nodes += [helper.make_node(op, ["xd", "wd"], ["m"]), helper.make_node("Add", ["m", "bd"], ["y"])]
    else:
        nodes.append(helper.make_node(op, ["xd", "wd", "bd"], ["y"]))
    return nodes, [x], [y], inits


def qdq_matmul():
    """MatMul in the QDQ form, the bias added after it."""
    return _qdq([2, 3], [2, 2], "MatMul", np.array([[1, -2], [3, 4], [-128, 127]], np.int8), 1, True)


def qdq_conv():
    """A 1x1 Conv in the QDQ form, the bias its input C."""
    w = np.array([3, -4, -128, 127], np.int8).reshape(2, 2, 1, 1)
    return _qdq([1, 2, 3, 3], [1, 2, 3, 3], "Conv", w, 0, False)


def qdq_conv_chain():
    """qdq_conv's Conv quantized again (scale 0.25, zero point 10), read
    by two DequantizeLinear nodes whose results are added."""
    nodes, ins, _, inits = _qdq([1, 2, 3, 3], [1, 2, 3, 3], "Conv",
                                np.array([3, -4, -128, 127], np.int8).reshape(2, 2, 1, 1), 0, False)
    nodes[-1].output[0] = "m"
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 3])
    inits += [numpy_helper.from_array(np.array(0.25, np.float32), "ys"),
              numpy_helper.from_array(np.array(10, np.uint8), "yz")]
    nodes += [helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["mq"]),
              helper.make_node("DequantizeLinear", ["mq", "ys", "yz"], ["d1"]),
              helper.make_node("DequantizeLinear", ["mq", "ys", "yz"], ["d2"]),
              helper.make_node("Add", ["d1", "d2"], ["y"])]
    return nodes, ins, [y], inits


def qdq_clip():
    """x -> Q -> DQ (scale 0.5, zero point 200) -> Clip(0, 6) -> Q -> DQ
    (scale 0.3, zero point 0): a requantization through a Clip."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    inits = [numpy_helper.from_array(np.array(0.5, np.float32), "xs"),
             numpy_helper.from_array(np.array(200, np.uint8), "xz"),
             numpy_helper.from_array(np.array(0.0, np.float32), "lo"),
             numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
             numpy_helper.from_array(np.array(0.3, np.float32), "ys"),
             numpy_helper.from_array(np.array(0, np.uint8), "yz")]
    return [helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
            helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
            helper.make_node("Clip", ["xd", "lo", "hi"], ["c"]),
            helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
            helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"])], [x], [y], inits


def loop_grow_cond():
    """Loop (run-time M) whose carried value grows by one element per step
    and whose body computes its condition from it: refused (a condition
    decided by data while the shape changes)."""
    vi = helper.make_tensor_value_info
    f32, b = TensorProto.FLOAT, TensorProto.BOOL
    body = helper.make_graph(
        [helper.make_node("Concat", ["acc", "one"], ["acc_out"], axis=0),
         helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "ten"], ["cond_out"])],
        "body", [vi("i", TensorProto.INT64, []), vi("cond", b, []), vi("acc", f32, None)],
        [vi("cond_out", b, []), vi("acc_out", f32, None)],
        [numpy_helper.from_array(np.array([1], np.float32), "one"),
         numpy_helper.from_array(np.array(10, np.float32), "ten")])
    n = helper.make_node("Loop", ["m", "c", "a0"], ["acc_final"], name="loop", body=body)
    return [n], [vi("m", TensorProto.INT64, []), vi("c", b, []), vi("a0", f32, [2])], [vi("acc_final", f32, None)], []


MODELS = {"batchnorm_const": batchnorm_const, "loop_grow_cond": loop_grow_cond, "qdq_conv": qdq_conv, "qdq_conv_chain": qdq_conv_chain, "qdq_clip": qdq_clip, "qdq_matmul": qdq_matmul, "matmul_batched_2d": matmul_batched_2d, "matmul_4d_dynamic": matmul_4d_dynamic, "resize": resize, "conv_transpose": conv_transpose, "einsum_batch": einsum_batch, "conv_group": conv_group, "conv1d": conv1d,
          "pools": pools, "shape_fold": shape_fold, "old_opset9": old_opset9, "unknown_contrib": unknown_contrib,
          "add_opset6": add_opset6, "opset18": opset18, "dense_relu": dense_relu,
          "pool_unknown_spatial": pool_unknown_spatial}


def main():
    name, out = sys.argv[1], sys.argv[2]
    nodes, ins, outs, inits, *opsets = MODELS[name]()
    opsets = opsets[0] if opsets else [("", 13)]
    g = helper.make_graph(nodes, name, ins, outs, initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets],
                          producer_name="kiln-tests")
    m.ir_version = 7
    with open(out, "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
