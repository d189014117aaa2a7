#!/usr/bin/python3
"""e2e: Upsample-9 (opset 9) with its scales a graph input, nearest and
linear. One module is compiled and run with scales that grow, shrink, mix
both per dim and keep the shape, so it returns results of different
shapes; compared with numpy. Nearest follows the rule of those versions
(ONNX Runtime's): the source index rounds down where a dim grows and up
where it shrinks, per dim, with asymmetric coordinates. Bad scales (a
negative one, NaN) must fail naming the node and the value.

usage: onnx_upsample_scales.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import math
import os
import sys

import numpy as np

from onnx_e2e import Tally, check_refusals, prepare, run_module


def build(path):
    import onnx
    from onnx import TensorProto, helper
    f32 = TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("Upsample", ["x", "scales"], ["yn"], name="near", mode="nearest"),
             helper.make_node("Upsample", ["x", "scales"], ["yl"], name="lin", mode="linear")]
    graph = helper.make_graph(nodes, "upsample_scales", [vi("x", f32, [1, 2, 3, 4]), vi("scales", f32, [4])],
                              [vi("yn", f32, None), vi("yl", f32, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)]), path)


def source(i, scale, n):
    """Asymmetric source coordinate of output index i."""
    return min(max(i / scale, 0.0), n - 1.0)


def expect(x, scales):
    near, lin = x.astype(np.float64), x.astype(np.float64)
    for d, s in enumerate(scales.astype(np.float64)):
        n = x.shape[d]
        out = int(math.floor(n * float(np.float32(s))))
        pos = [i / s for i in range(out)]
        idx = [min(int(math.floor(p) if s >= 1 else math.ceil(p)), n - 1) for p in pos]
        near = np.take(near, idx, axis=d)
        lo = [int(math.floor(source(i, s, n))) for i in range(out)]
        hi = [min(v + 1, n - 1) for v in lo]
        w = np.array([source(i, s, n) - lo[i] for i in range(out)]).reshape([-1 if k == d else 1 for k in range(x.ndim)])
        lin = np.take(lin, lo, axis=d) * (1 - w) + np.take(lin, hi, axis=d) * w
    return [near.astype(np.float32), lin.astype(np.float32)]


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, module = prepare(work, build, compile_)
    if status:
        return status
    x = np.random.RandomState(3).uniform(-1, 1, (1, 2, 3, 4)).astype(np.float32)
    f = lambda *v: np.array(v, np.float32)
    good = [f(1, 1, 2, 3), f(1, 1, 0.5, 0.6), f(1, 2, 1.5, 0.5), f(1, 1, 1, 1), f(1, 0.5, 3.7, 1.25)]
    count = Tally()

    def call(tag, ins):
        return run_module(run, module, device, work, tag, ins, 2)

    for k, s in enumerate(good):
        r = call("good%d" % k, [x, s])
        ok = r.returncode == 0
        for j, w in enumerate(expect(x, s) if ok else []):
            got = np.load(os.path.join(work, "good%d_out%d.npy" % (k, j)))
            same = got.shape == w.shape and np.allclose(got, w, rtol=1e-5, atol=1e-6)
            print("scales %s result %d %s: %s" % (list(s), j, got.shape, "ok" if same else "MISMATCH, want %s" % (w.shape,)))
            ok = ok and same
        if r.returncode != 0:
            print(r.stderr)
        count(ok)
    bad = [(1, f(1, 1, -2, 1), ["node 'near", "is 1, must equal 0"]),
           (1, f(1, 1, 1, np.nan), ["node 'near", "is 1, must equal 0"])]
    check_refusals(call, [x, good[0]], bad, count)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
