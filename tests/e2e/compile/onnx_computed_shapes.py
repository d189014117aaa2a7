#!/usr/bin/python3
"""e2e: shapes an ONNX model computes at run time. One model (built here
with python3-onnx) whose Reshape / ConstantOfShape / Expand targets are
computed by earlier nodes from input data, whose float Range takes its
bounds at run time, whose MaxUnpool output shape is computed, and whose
NonZero, Compress and Unique outputs are as long as the data says, is compiled once and run with several inputs, so the same
module returns results of different shapes: the host waits for the
kernels computing a size, reads it (hal.buffer_view.load of a dispatch
result) and records the rest into a later command buffer. Results are
compared with numpy. Bad values (a computed size that is negative or
huge, a Range of NaN length) must fail with a message naming the node
and the value. A second model takes NonZero's and Compress's inputs with
run-time dims, run at several shapes (empty ones too); a Compress
condition longer than its axis fails naming the node and the bound.

usage: onnx_computed_shapes.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

import onnx_e2e


def build(path):
    import onnx
    from onnx import TensorProto, helper
    i64, f32, b = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    one = helper.make_tensor("one", i64, [], [1])
    two = helper.make_tensor("two", i64, [], [2])
    half = helper.make_tensor("half", f32, [], [0.5])
    fzero = helper.make_tensor("fzero", f32, [], [0.0])
    nodes = [
        # the targets are computed on the device from input data
        helper.make_node("Sub", ["shape", "one"], ["s1"], name="sub"),
        helper.make_node("Reshape", ["x", "s1"], ["r"], name="reshape"),
        helper.make_node("Mul", ["cshape", "two"], ["c2"], name="mul"),
        helper.make_node("ConstantOfShape", ["c2"], ["c"], name="fill",
                         value=helper.make_tensor("v", f32, [1], [2.5])),
        helper.make_node("Add", ["eshape", "one"], ["e1"], name="add"),
        helper.make_node("Expand", ["row", "e1"], ["e"], name="expand"),
        # a float Range whose limit is a cast of input data
        helper.make_node("Cast", ["n"], ["nf"], name="cast", to=f32),
        helper.make_node("Range", ["fzero", "nf", "delta"], ["g"], name="range"),
        # outputs as long as the data says
        helper.make_node("NonZero", ["z"], ["nz"], name="nonzero"),
        helper.make_node("Compress", ["x2", "cond"], ["k1"], name="compress", axis=1),
        helper.make_node("Compress", ["x2", "cond6"], ["k0"], name="compress_flat"),
        # a size computed from a size read after an earlier wait
        helper.make_node("Shape", ["nz"], ["nzs"], name="shape_of_nz"),
        helper.make_node("ConstantOfShape", ["nzs"], ["w"], name="fill_nz",
                         value=helper.make_tensor("w1", i64, [1], [7])),
        # Unique: sorted over the flattened input, and first-seen order of
        # the columns of a matrix
        helper.make_node("Unique", ["uq"], ["uy", "ui", "uv", "uc"], name="unique"),
        helper.make_node("Unique", ["uq2"], ["vy", "vi", "vv", "vc"], name="unique_cols", axis=1, sorted=0),
        # MaxUnpool into an output shape computed from input data
        helper.make_node("Add", ["oshape", "one"], ["os1"], name="add_os"),
        helper.make_node("MaxUnpool", ["px", "pi", "os1"], ["up"], name="unpool", kernel_shape=[2, 2],
                         strides=[2, 2]),
    ]
    graph = helper.make_graph(
        nodes, "computed_shapes",
        [vi("x", f32, [2, 3, 4]), vi("shape", i64, [3]), vi("cshape", i64, [2]), vi("row", f32, [1, 3]),
         vi("eshape", i64, [2]), vi("n", i64, []), vi("delta", f32, []), vi("z", f32, [3, 4]),
         vi("x2", f32, [2, 3]), vi("cond", b, [3]), vi("cond6", b, [6]), vi("uq", f32, [2, 4]),
         vi("uq2", i64, [2, 5]), vi("px", f32, [1, 1, 2, 2]), vi("pi", i64, [1, 1, 2, 2]),
         vi("oshape", i64, [4])],
        [vi("r", f32, None), vi("c", f32, None), vi("e", f32, None), vi("g", f32, None),
         vi("nz", i64, None), vi("k1", f32, None), vi("k0", f32, None), vi("w", i64, None),
         vi("uy", f32, None), vi("ui", i64, None), vi("uv", i64, None), vi("uc", i64, None),
         vi("vy", i64, None), vi("vi", i64, None), vi("vv", i64, None), vi("vc", i64, None),
         vi("up", f32, None)],
        initializer=[one, two, half, fzero])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)


def results_ok(r, work, tag, want):
    """Did the call (its CompletedProcess) give WANT in WORK/TAG_outJ.npy
    (same shapes and types, within 1e-6 relative)?"""
    ok = r.returncode == 0
    for j, w in enumerate(want):
        if not ok:
            break
        got = np.load(os.path.join(work, "%s_out%d.npy" % (tag, j)))
        ok = got.shape == w.shape and got.dtype == w.dtype and np.allclose(got, w, rtol=1e-6, atol=0)
        print("%s result %d %s: %s" % (tag, j, got.shape, "ok" if ok else "MISMATCH, want %s %s" % (w.shape, w)))
    if not ok:
        print(r.stderr)
    return ok


def build_dyn(path):
    """NonZero and Compress of inputs with run-time dims (dim_params): the
    kept positions run to the length the host computes from the dims."""
    import onnx
    from onnx import TensorProto, helper
    f32, b = TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    nodes = [helper.make_node("NonZero", ["z"], ["nz"], name="nonzero"),
             helper.make_node("Compress", ["x", "cond"], ["k1"], name="compress", axis=1),
             helper.make_node("Compress", ["x", "flat"], ["k0"], name="compress_flat")]
    graph = helper.make_graph(
        nodes, "computed_shapes_dyn",
        [vi("z", f32, ["a", "b", 3]), vi("x", f32, ["n", "m"]), vi("cond", b, ["c"]), vi("flat", b, ["f"])],
        [vi("nz", TensorProto.INT64, None), vi("k1", f32, None), vi("k0", f32, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]), path)


def run_dyn(compile_, run, work, device, tally):
    model, module = os.path.join(work, "dyn.onnx"), os.path.join(work, "dyn.kiln")
    build_dyn(model)
    r = subprocess.run([compile_, model, "-o", module], capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        tally(False)
        return
    rng = np.random.RandomState(11)

    def sparse(*shape):
        return np.where(rng.uniform(0, 1, shape) < 0.5, 0, rng.uniform(-2, 2, shape)).astype(np.float32)
    good = []
    for (a, b_, n, m, c, f) in ((1, 1, 1, 1, 1, 1), (2, 5, 3, 7, 7, 21), (4, 3, 5, 2, 1, 4), (0, 6, 4, 3, 0, 0),
                                (7, 2, 2, 13, 11, 26)):
        good.append([sparse(a, b_, 3), rng.uniform(-1, 1, (n, m)).astype(np.float32),
                     rng.uniform(0, 1, c) < 0.5, rng.uniform(0, 1, f) < 0.5])
    good.append([np.ones((2, 2, 3), np.float32), np.ones((3, 4), np.float32), np.ones(4, np.bool_),
                 np.ones(12, np.bool_)])

    def call(tag, ins):
        return onnx_e2e.run_module(run, module, device, work, "dyn_" + tag, ins, 3)
    for k, ins in enumerate(good):
        z, x, cond, flat = ins
        want = [np.array(np.nonzero(z), np.int64).reshape(3, -1),
                np.compress(cond, x, axis=1), np.compress(flat, x.reshape(-1))]
        tally(results_ok(call("good%d" % k, ins), work, "dyn_good%d" % k, want))
    base = good[1]
    # a condition longer than the axis would gather past it
    bad = [(2, np.ones(8, np.bool_), ["node 'compress'", "size[0] is 8, must be <= 7"]),
           (3, np.ones(22, np.bool_), ["node 'compress_flat'", "size[0] is 22, must be <= 21"])]
    onnx_e2e.check_refusals(call, base, bad, tally)


def unique_cols(m):
    """ONNX Unique along axis 1, sorted=0: columns in first-seen order."""
    seen, first, inverse, counts = [], [], [], []
    for i in range(m.shape[1]):
        col = m[:, i]
        k = next((j for j, c in enumerate(seen) if np.array_equal(c, col)), None)
        if k is None:
            k = len(seen)
            seen.append(col)
            first.append(i)
            counts.append(0)
        counts[k] += 1
        inverse.append(k)
    y = np.stack(seen, 1) if seen else m[:, :0]
    i64 = lambda v: np.array(v, np.int64)
    return [y, i64(first), i64(inverse), i64(counts)]


def unpool(px, pi, shape):
    """MaxUnpool 2x2 / 2: indices count positions of the default 4x4 plane."""
    out = np.zeros(tuple(int(d) for d in shape), np.float32)
    for v, i in zip(px.reshape(-1), pi.reshape(-1)):
        out[0, 0, int(i) // 4, int(i) % 4] = v
    return out


def expect(ins):
    x, shape, cshape, row, eshape, n, delta, z, x2, cond, cond6, uq, uq2, px, pi, oshape = ins
    nz = np.array(np.nonzero(z), np.int64).reshape(2, -1)
    uy, ui, uv, uc = np.unique(uq.reshape(-1), return_index=True, return_inverse=True, return_counts=True)
    return [x.reshape(tuple(int(s) - 1 for s in shape)),
            np.full(tuple(2 * cshape), 2.5, np.float32),
            np.broadcast_to(row, np.broadcast_shapes(row.shape, tuple(int(e) + 1 for e in eshape))),
            np.arange(np.float32(0), np.float32(n), delta, dtype=np.float32),
            nz, x2[:, cond], x2.reshape(-1)[cond6],
            np.full(nz.shape, 7, np.int64),
            uy, ui.astype(np.int64), uv.astype(np.int64), uc.astype(np.int64)] + unique_cols(uq2) + [unpool(px, pi, oshape + 1)]


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, module = onnx_e2e.prepare(work, build, compile_)
    if status:
        return status
    rng = np.random.RandomState(7)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    row = rng.uniform(-1, 1, (1, 3)).astype(np.float32)
    x2 = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    px = rng.uniform(-1, 1, (1, 1, 2, 2)).astype(np.float32)
    a = lambda *v: np.array(v, np.int64)
    s = lambda v: np.array(v, np.int64)
    f = lambda v: np.array(v, np.float32)
    bl = lambda *v: np.array(v, np.bool_)
    z0 = np.where(rng.uniform(0, 1, (3, 4)) < 0.5, 0, rng.uniform(-2, 2, (3, 4))).astype(np.float32)
    u1 = np.array([[2, 1, 1, 3], [4, 3, -1, 2]], np.float32)
    c1 = np.array([[1, 2, 1, 3, 2], [0, 5, 0, 4, 5]], np.int64)
    good = [
        [x, a(5, 4, 3), a(1, 2), row, a(1, 2), s(5), f(1.0), z0, x2, bl(True, False, True),
         bl(False, True, True, False, False, True), u1, c1, px, a(0, 3, 12, 15).reshape(1, 1, 2, 2), a(0, 0, 3, 3)],
        [x, a(25, 2, 2), a(0, 3), row, a(4, 0), s(3), f(0.5), np.zeros((3, 4), np.float32), x2,
         bl(False, False, False), np.zeros(6, np.bool_), np.full((2, 4), 7, np.float32), np.zeros((2, 5), np.int64),
         px, a(5, 6, 9, 10).reshape(1, 1, 2, 2), a(0, 0, 4, 6)],
        [x, a(2, 13, 3), a(3, 1), row, a(6, 2), s(0), f(-1.0), np.ones((3, 4), np.float32), x2,
         bl(True, True, True), np.ones(6, np.bool_), np.arange(8, 0, -1, dtype=np.float32).reshape(2, 4),
         np.arange(10, dtype=np.int64).reshape(2, 5), px, a(1, 2, 13, 14).reshape(1, 1, 2, 2), a(0, 0, 6, 3)],
        [x, a(3, 5, 4), a(1, 1), row, a(0, 2), s(7), f(0.25), np.full((3, 4), np.nan, np.float32), x2,
         bl(False, True, False), bl(True, False, False, False, False, False), -u1, c1[::-1].copy(),
         px, a(4, 3, 8, 15).reshape(1, 1, 2, 2), a(0, 0, 3, 3)],
    ]
    base = good[0]
    bad = [  # (input index, value, what the message must say)
        (1, a(-4, 4, 3), ["node 'reshape", "dimension 0 is -5, must be >= 0"]),
        (1, a(6, 6, 2), ["node 'reshape", "is 25, must equal 24"]),
        (2, a(3, -2), ["node 'fill", "dimension 1 is -4, must be >= 0"]),
        (2, a(1 << 40, 1 << 40), ["node 'fill", "past 2^62 bytes in all"]),
        (4, a(3, 4), ["node 'expand"]),
        (6, f(0.0), ["node 'range", "past 2^62 bytes in all"]),  # 5 / 0: infinitely many
        (6, f(np.nan), ["node 'range", "dimension 0 is -1, must be >= 0"]),  # a NaN count
        (15, a(0, 0, 2, 3), ["node 'unpool", "dimension 0 is -1, must be >= 0"]),  # 3 rows < 4
        (15, a(1, 0, 3, 3), ["node 'unpool", "is 2, must equal 1"]),  # N of 2, X has 1
    ]
    tally = onnx_e2e.Tally()
    nout = 17

    def call(tag, ins):
        return onnx_e2e.run_module(run, module, device, work, tag, ins, nout)

    for k, ins in enumerate(good):
        want = expect(ins)
        tally(results_ok(call("good%d" % k, ins), work, "good%d" % k, want))
    onnx_e2e.check_refusals(call, base, bad, tally)
    run_dyn(compile_, run, work, device, tally)
    return tally.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
