#!/usr/bin/python3
"""e2e: an ONNX model (Gemm + Relu + MatMul + Add + Softmax, built here with
python3-onnx) through kiln-compile's ONNX front end, run with kiln-run and
compared with numpy (through run_compiled.py).

usage: onnx_model.py KILN_COMPILE KILN_RUN WORKDIR DEVICE [COMPILE_FLAG...]
Skips (77) when python3-onnx is missing.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_compiled  # noqa: E402


def main(argv):
    compile_, run, work, device = argv[1:5]
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return 77
    os.makedirs(work, exist_ok=True)
    r = np.random.RandomState(3)
    w1 = r.uniform(-1, 1, (6, 5)).astype(np.float32)
    b1 = r.uniform(-1, 1, 5).astype(np.float32)
    w2 = r.uniform(-1, 1, (5, 3)).astype(np.float32)
    b2 = r.uniform(-1, 1, 3).astype(np.float32)
    x = r.uniform(-1, 1, (3, 6)).astype(np.float32)
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["g"]),
        helper.make_node("Relu", ["g"], ["h"]),
        helper.make_node("MatMul", ["h", "w2"], ["m"]),
        helper.make_node("Add", ["m", "b2"], ["z"]),
        helper.make_node("Softmax", ["z"], ["y"], axis=1),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in ((w1, "w1"), (b1, "b1"), (w2, "w2"), (b2, "b2"))]
    graph = helper.make_graph(
        nodes, "onnx_mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 3])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = os.path.join(work, "model.onnx")
    onnx.save(model, path)
    d = lambda a: a.astype(np.float64)
    z = np.maximum(d(x) @ d(w1) + d(b1), 0) @ d(w2) + d(b2)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    y = e / e.sum(axis=1, keepdims=True)
    fmt = lambda a: "x".join(map(str, a.shape)) + "xf32=" + " ".join("%.9g" % v for v in a.reshape(-1))
    with open(os.path.join(work, "inputs"), "w") as f:
        f.write(fmt(x) + "\n")
    with open(os.path.join(work, "expected"), "w") as f:
        f.write(fmt(y.astype(np.float32)) + "\n")
    return run_compiled.main(["run_compiled.py", compile_, run, os.path.join(work, "run"), path,
                              "onnx_mlp", os.path.join(work, "inputs"),
                              os.path.join(work, "expected"), device] + argv[5:])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
