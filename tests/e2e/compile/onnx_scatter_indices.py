#!/usr/bin/python3
"""e2e: ScatterElements and ScatterND with indices from input data. Valid
indices (negative ones counted from the end, int32 and int64, indices
narrower than the data, reduction add with repeated indices) give
numpy's results; an index outside [-n, n - 1] is refused before the
scatter runs, naming the node, the axis and the value, as ONNX Runtime
refuses it (before, it updated nothing and the call succeeded); constant
indices out of range are refused at compile time.

usage: onnx_scatter_indices.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

from onnx_e2e import Tally, check_refusals, compile_model, prepare, run_module


def build(path, const_nd=None):
    """Three scatters of run-time indices; with CONST_ND, one ScatterND
    whose indices are that constant instead."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f32, i64, i32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32
    vi = helper.make_tensor_value_info
    if const_nd is not None:
        g = helper.make_graph([helper.make_node("ScatterND", ["z", "at", "v"], ["nd"], name="cnd")], "scatter_const",
                              [vi("z", f32, [4, 3]), vi("v", f32, [2, 3])], [vi("nd", f32, [4, 3])],
                              [numpy_helper.from_array(const_nd, "at")])
    else:
        nodes = [helper.make_node("ScatterElements", ["x", "ix", "ux"], ["se"], name="se", axis=0),
                 helper.make_node("ScatterElements", ["y", "iy", "uy"], ["sa"], name="sa", axis=1, reduction="add"),
                 helper.make_node("ScatterND", ["z", "at", "uz"], ["nd"], name="nd")]
        g = helper.make_graph(nodes, "scatter_indices",
                              [vi("x", f32, [3, 5]), vi("ix", i64, [2, 5]), vi("ux", f32, [2, 5]),
                               vi("y", f32, [3, 7]), vi("iy", i32, [2, 3]), vi("uy", f32, [2, 3]),
                               vi("z", f32, [4, 3, 2]), vi("at", i64, [3, 2]), vi("uz", f32, [3, 2])],
                              [vi("se", f32, [3, 5]), vi("sa", f32, [3, 7]), vi("nd", f32, [4, 3, 2])])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 16)]), path)


def scatter_elements(data, idx, upd, axis, add):
    out = data.copy()
    for p in np.ndindex(*idx.shape):
        q = list(p)
        i = int(idx[p])
        q[axis] = i + data.shape[axis] if i < 0 else i
        if add:
            out[tuple(q)] += upd[p]
        else:
            out[tuple(q)] = upd[p]
    return out


def scatter_nd(data, idx, upd):
    out = data.copy()
    for u in range(idx.shape[0]):
        t = tuple(int(v) + data.shape[j] if v < 0 else int(v) for j, v in enumerate(idx[u]))
        out[t] = upd[u]
    return out


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, module = prepare(work, build, compile_)
    if status:
        return status
    rng = np.random.RandomState(9)
    u = lambda *s: rng.uniform(-1, 1, s).astype(np.float32)
    x, y, z = u(3, 5), u(3, 7), u(4, 3, 2)
    ix = np.array([[0, 2, 1, -1, -3], [2, 0, 0, 1, -2]], np.int64)
    iy = np.array([[6, -7, 6], [0, 0, -1]], np.int32)  # repeats: reduction add sums them
    at = np.array([[3, -1], [-4, 2], [1, 0]], np.int64)
    good = [(x, ix, u(2, 5), y, iy, u(2, 3), z, at, u(3, 2)),
            (x, np.zeros((2, 5), np.int64) - 3, u(2, 5), y, np.full((2, 3), 3, np.int32), u(2, 3), z,
             np.array([[0, 0], [-1, -1], [2, 1]], np.int64), u(3, 2))]
    count = Tally()

    def call(tag, ins):
        return run_module(run, module, device, work, tag, ins, 3)

    for k, ins in enumerate(good):
        r = call("good%d" % k, list(ins))
        ok = r.returncode == 0
        if ok:
            want = [scatter_elements(ins[0], ins[1], ins[2], 0, False),
                    scatter_elements(ins[3], ins[4], ins[5], 1, True),
                    scatter_nd(ins[6], ins[7], ins[8])]
            for j, w in enumerate(want):
                got = np.load(os.path.join(work, "good%d_out%d.npy" % (k, j)))
                same = got.shape == w.shape and np.allclose(got, w, rtol=1e-6, atol=1e-7)
                print("case %d result %d %s: %s" % (k, j, got.shape, "ok" if same else "MISMATCH %s" % got))
                ok = ok and same
        else:
            print(r.stderr)
        count(ok)
    base = list(good[0])
    bad = [(1, np.array([[0, 3, 1, 1, 1], [0, 0, 0, 0, 0]], np.int64), ["node 'se'", "index[0] is 3, must be <= 2"]),
           (1, np.full((2, 5), -4, np.int64), ["node 'se'", "index[0] is -4, must be >= -3"]),
           (1, np.full((2, 5), 1 << 40, np.int64), ["node 'se'", "index[0] is 1099511627776, must be <= 2"]),
           (4, np.array([[0, 7, 0], [0, 0, 0]], np.int32), ["node 'sa'", "index[1] is 7, must be <= 6"]),
           (7, np.array([[0, 3], [1, 1], [2, 2]], np.int64), ["node 'nd'", "index[1] is 3, must be <= 2"]),
           (7, np.array([[0, 0], [-5, 1], [1, 1]], np.int64), ["node 'nd'", "index[0] is -5, must be >= -4"])]
    check_refusals(call, base, bad, count)
    # constant indices out of range: refused when compiling
    for k, (at_c, says) in enumerate([(np.array([[1], [4]], np.int64), "index[0] is 4, must be in [-4, 3]"),
                                      (np.array([[-5], [0]], np.int64), "index[0] is -5, must be in [-4, 3]")]):
        cm = os.path.join(work, "const%d.onnx" % k)
        build(cm, at_c)
        r = subprocess.run([compile_, cm, "-o", os.path.join(work, "const.kiln")], capture_output=True, text=True)
        ok = r.returncode != 0 and "(ScatterND" in r.stderr and says in r.stderr
        print("constant indices %d %s: %s" % (k, "refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
        count(ok)
    cm = os.path.join(work, "const_ok.onnx")
    build(cm, np.array([[3], [-4]], np.int64))
    ok = compile_model(compile_, cm, os.path.join(work, "const_ok.kiln"), [])
    if ok:
        zc, v = u(4, 3), u(2, 3)
        r = run_module(run, os.path.join(work, "const_ok.kiln"), device, work, "cok", [zc, v], 1)
        want = zc.copy()
        want[3], want[0] = v[0], v[1]
        ok = r.returncode == 0 and np.array_equal(np.load(os.path.join(work, "cok_out0.npy")), want)
        print("constant indices in range: %s" % ("ok" if ok else "MISMATCH %s" % r.stderr))
    count(ok)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
