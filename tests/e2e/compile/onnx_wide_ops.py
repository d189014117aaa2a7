#!/usr/bin/python3
"""e2e: ops that read more tensors than one kernel can bind (32 buffers).
A Concat of 40 graph inputs, of 40 computed pieces, a DenseNet-like block
of 34 layers (each layer a 1x1 convolution + Relu of the concatenation of
everything before it, so the last concatenation has 35 pieces), variadic
Sum (40 inputs), Mean (37, one broadcast) and Max (33), and a chain of 39
Adds of distinct inputs. Before, each was refused ("kernel @... has 41
bindings; at most 32 are supported"); now each gives numpy's result. The
tensors are tiny ([1, 3, 5, 5]): the width of the ops is what is tested.

usage: onnx_wide_ops.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import importlib.util
import os
import sys

import numpy as np

from onnx_e2e import compile_model, run_module

N = 40          # graph inputs x0..x39, [1, 3, 5, 5]
LAYERS = 34     # dense block: the last concatenation has LAYERS + 1 pieces
SHAPE = [1, 3, 5, 5]


def weights():
    rs = np.random.RandomState(3)
    return [rs.uniform(-0.5, 0.5, (3, 3 * (k + 1), 1, 1)).astype(np.float32) / np.sqrt(k + 1)
            for k in range(LAYERS)]


def build(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f32 = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    xs = ["x%d" % i for i in range(N)]
    nodes = [helper.make_node("Concat", xs, ["cat"], axis=1),
             *[helper.make_node("Relu", [x], ["r%d" % i]) for i, x in enumerate(xs)],
             helper.make_node("Concat", ["r%d" % i for i in range(N)], ["relucat"], axis=1),
             helper.make_node("Sum", xs, ["sum"]),
             helper.make_node("Mean", xs[:36] + ["b"], ["mean"]),
             helper.make_node("Max", xs[:33], ["max"])]
    prev = xs[0]
    for i in range(1, N):
        out = "chain" if i == N - 1 else "a%d" % i
        nodes.append(helper.make_node("Add", [prev, xs[i]], [out]))
        prev = out
    pieces = [xs[0]]
    inits = []
    for k, w in enumerate(weights()):
        inits.append(numpy_helper.from_array(w, "w%d" % k))
        src = pieces[0] if len(pieces) == 1 else "dcat%d" % k
        if len(pieces) > 1:
            nodes.append(helper.make_node("Concat", list(pieces), [src], axis=1))
        nodes.append(helper.make_node("Conv", [src, "w%d" % k], ["conv%d" % k]))
        nodes.append(helper.make_node("Relu", ["conv%d" % k], ["p%d" % k]))
        pieces.append("p%d" % k)
    nodes.append(helper.make_node("Concat", list(pieces), ["dense"], axis=1))
    outs = [vi("cat", f32, [1, 3 * N, 5, 5]), vi("relucat", f32, [1, 3 * N, 5, 5]),
            vi("sum", f32, SHAPE), vi("mean", f32, SHAPE), vi("max", f32, SHAPE),
            vi("chain", f32, SHAPE), vi("dense", f32, [1, 3 * (LAYERS + 1), 5, 5])]
    graph = helper.make_graph(nodes, "wide_ops", [vi(x, f32, SHAPE) for x in xs] + [vi("b", f32, [1, 1, 5, 5])],
                              outs, inits)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def expected(xs, b):
    relu = lambda v: np.maximum(v, 0)
    pieces = [xs[0]]
    for w in weights():
        cat = np.concatenate(pieces, axis=1)
        pieces.append(relu(np.einsum("oc,nchw->nohw", w[:, :, 0, 0], cat)))
    chain = xs[0]
    for x in xs[1:]:
        chain = chain + x
    return [np.concatenate(xs, axis=1), np.concatenate([relu(x) for x in xs], axis=1),
            sum(xs[1:], xs[0]), (sum(xs[1:36], xs[0]) + b) / 37, np.maximum.reduce(xs[:33]),
            chain, np.concatenate(pieces, axis=1)]


def main(argv):
    compile_, run, work, device = argv[1:5]
    if importlib.util.find_spec("onnx") is None:
        print("skipped: python3-onnx is not installed")
        return 77
    os.makedirs(work, exist_ok=True)
    model, module = os.path.join(work, "model.onnx"), os.path.join(work, "model.kiln")
    build(model)
    if not compile_model(compile_, model, module, []):
        print("0 passed, 1 failed")
        return 1
    rs = np.random.RandomState(7)
    xs = [rs.uniform(-1, 1, SHAPE).astype(np.float32) for _ in range(N)]
    b = rs.uniform(-1, 1, (1, 1, 5, 5)).astype(np.float32)
    r = run_module(run, module, device, work, "wide", xs + [b], 7)
    names = ["concat40", "relu-concat40", "sum40", "mean37", "max33", "add-chain40", "dense-block35"]
    passed = failed = 0
    if r.returncode != 0:
        print(r.stderr)
        failed = len(names)
    else:
        for j, (name, want) in enumerate(zip(names, expected(xs, b))):
            got = np.load(os.path.join(work, "wide_out%d.npy" % j))
            ok = got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5)
            err = np.abs(got - want).max() if got.shape == want.shape else float("inf")
            print("%s %s: %s (max abs err %.3g)" % (name, got.shape, "ok" if ok else "MISMATCH", err))
            passed += ok
            failed += not ok
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
