"""ONNX Runtime, as scripts/bootstrap.sh installs it and tools/ort/kiln_ort.py
finds it, runs a small graph and agrees with numpy, intermediate values
exposed as graph outputs included (what tools/kiln-compare relies on),
and run_many() gives each of several samples on one session what numpy
gives for that sample, in order.
Fails, never skips, when ONNX Runtime is missing: the default bootstrap
installs it, so its absence is a broken setup.

usage: ort_reference.py WORK_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..",
                                "tools", "ort"))
import kiln_ort  # noqa: E402


def main():
    work = sys.argv[1]
    os.makedirs(work, exist_ok=True)
    try:
        node, modules = kiln_ort.find()
    except kiln_ort.OrtMissing as e:
        print("FAIL: %s" % e)
        return 1
    print("ONNX Runtime %s in %s, node %s" % (kiln_ort.version(), modules, node))
    rng = np.random.default_rng(7)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"], name="/fc/MatMul"),
         helper.make_node("Relu", ["h"], ["r"], name="/act/Relu"),
         helper.make_node("ReduceSum", ["r"], ["y"], name="/sum", keepdims=0, axes=[1])],
        "ort_reference", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)])
    model.graph.output.append(onnx.ValueInfoProto(name="h"))
    path = os.path.join(work, "ort_reference.onnx")
    onnx.save(model, path)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    got = kiln_ort.run(path, {"x": x}, ["y", "h"], optimize=False)
    h = x @ w
    want = {"h": h, "y": np.maximum(h, 0).sum(axis=1)}
    bad = 0
    for name, value in want.items():
        err = float(np.max(np.abs(got[name] - value)))
        ok = got[name].shape == value.shape and err <= 1e-5
        print("%s: shape %s, max abs error %.3g: %s" % (name, got[name].shape, err,
                                                        "ok" if ok else "FAIL"))
        bad += not ok
    every = kiln_ort.run(path, {"x": x})
    if sorted(every) != ["h", "y"]:
        print("FAIL: all graph outputs by default, got %s" % sorted(every))
        bad += 1
    xs = [rng.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    many = list(kiln_ort.run_many(path, [{"x": v} for v in xs], ["y"]))
    for k, (v, r) in enumerate(zip(xs, many)):
        err = float(np.abs(r["y"] - np.maximum(v @ w, 0).sum(axis=1)).max())
        ok = sorted(r) == ["y"] and err <= 1e-5
        print("run_many sample %d: max abs error %.3g: %s" % (k, err, "ok" if ok else "FAIL"))
        bad += not ok
    if len(many) != len(xs):
        print("FAIL: run_many gave %d results for %d samples" % (len(many), len(xs)))
        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
