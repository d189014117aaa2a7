#!/usr/bin/python3
"""e2e: Gather, GatherElements and GatherND with indices from input data. Valid
indices (negative ones counted from the end, an empty index tensor, a
run-time data axis) give numpy's results; an index outside [-n, n - 1]
is refused before the gather reads anything, naming the node, the axis
and the value (ONNX Runtime refuses them too). Before, such an index read
outside the data: wrong values or a crash.

usage: onnx_gather_indices.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import sys

import numpy as np

from onnx_e2e import Tally, check_refusals, prepare, run_module


def build(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    vi = helper.make_tensor_value_info
    table = numpy_helper.from_array(np.arange(40, dtype=np.float32).reshape(10, 4), "table")
    nodes = [helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed", axis=0),
             helper.make_node("Gather", ["x", "cols"], ["picked"], name="pick", axis=1),
             helper.make_node("GatherElements", ["y", "where"], ["elems"], name="elems", axis=0),
             helper.make_node("GatherND", ["z", "at"], ["nd"], name="nd")]
    graph = helper.make_graph(nodes, "gather_indices",
                              [vi("ids", i64, ["n"]), vi("x", f32, ["b", 5]), vi("cols", i64, [2]),
                               vi("y", f32, [3, 5]), vi("where", i64, [2, 5]),
                               vi("z", f32, [4, 3, 2]), vi("at", i64, [2, 2])],
                              [vi("rows", f32, ["n", 4]), vi("picked", f32, ["b", 2]), vi("elems", f32, [2, 5]),
                               vi("nd", f32, [2, 2])],
                              [table])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def take(a, idx, axis):
    idx = np.where(idx < 0, idx + a.shape[axis], idx)
    return np.take(a, idx, axis=axis)


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, module = prepare(work, build, compile_)
    if status:
        return status
    table = np.arange(40, dtype=np.float32).reshape(10, 4)
    i = lambda *v: np.array(v, np.int64)
    x3 = np.random.RandomState(5).uniform(-1, 1, (3, 5)).astype(np.float32)
    where = np.array([[0, 2, 1, -1, -3], [2, 2, 0, 1, -2]], np.int64)
    z = np.random.RandomState(6).uniform(-1, 1, (4, 3, 2)).astype(np.float32)
    at = np.array([[3, -1], [-4, 2]], np.int64)
    good = [(i(0, 9, -1, -10, 4), x3, i(4, -5), x3, where, z, at),
            (np.zeros((0,), np.int64), x3, i(0, 0), x3, where, z, at),
            (i(3), x3[:1], i(-1, 2), x3, np.zeros((2, 5), np.int64), z, np.zeros((2, 2), np.int64))]
    count = Tally()

    def call(tag, ins):
        return run_module(run, module, device, work, tag, ins, 4)

    for k, ins in enumerate(good):
        ids, x, cols, y, wh, z, a = ins
        r = call("good%d" % k, list(ins))
        ok = r.returncode == 0
        if ok:
            a = np.where(a < 0, a + np.array(z.shape[:2]), a)
            want = [take(table, ids, 0), take(x, cols, 1),
                    np.take_along_axis(y, np.where(wh < 0, wh + y.shape[0], wh), axis=0),
                    np.stack([z[tuple(p)] for p in a])]
            for j, w in enumerate(want):
                got = np.load(os.path.join(work, "good%d_out%d.npy" % (k, j)))
                same = got.shape == w.shape and np.array_equal(got, w)
                print("case %d result %d %s: %s" % (k, j, got.shape, "ok" if same else "MISMATCH %s" % got))
                ok = ok and same
        else:
            print(r.stderr)
        count(ok)
    base = list(good[0])
    bad = [(0, i(0, 10), ["node 'embed'", "index[0] is 10, must be <= 9"]),
           (0, i(-11, 2), ["node 'embed'", "index[0] is -11, must be >= -10"]),
           (0, i(1, 1 << 40), ["node 'embed'", "index[0] is 1099511627776, must be <= 9"]),
           (2, i(0, 5), ["node 'pick'", "index[1] is 5, must be <= 4"]),
           (4, np.full((2, 5), 3, np.int64), ["node 'elems'", "index[0] is 3, must be <= 2"]),
           (4, np.full((2, 5), -4, np.int64), ["node 'elems'", "index[0] is -4, must be >= -3"]),
           (6, np.array([[0, 3], [1, 1]], np.int64), ["node 'nd'", "index[1] is 3, must be <= 2"]),
           (6, np.array([[0, 0], [-5, 1]], np.int64), ["node 'nd'", "index[0] is -5, must be >= -4"])]
    check_refusals(call, base, bad, count)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
