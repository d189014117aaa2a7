#!/usr/bin/python3
"""e2e: shapes read from an ONNX model's input data at run time. One
model (built here with python3-onnx) whose Reshape / Expand / Tile /
ConstantOfShape / Range / Squeeze / Unsqueeze / Slice / TopK / Split /
ReduceSum / HannWindow / Pad / Resize take their shape, repeats, bounds,
axes, starts, ends, steps, K, split sizes, reduced axes, window size,
pads (and Pad's constant), resized sizes or f32 scales (the host reads
their bits), OneHot's (f32) depth or STFT's frame step and length from
graph inputs is
compiled once and run with several values, so the same module
returns results of different shapes (hal.buffer_view.load reads them on
the host), compared with numpy. Bad values (a negative or huge size, a
shape that does not hold the elements, repeated axes, a step of 0) must
fail with a message naming the node and the value (hal.check.shape,
hal.check.dim_eq, an arithmetic trap).

usage: onnx_shape_data.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import sys

import numpy as np

import onnx_e2e


def build(path):
    from onnx import TensorProto, helper
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    nodes = [
        helper.make_node("Reshape", ["x", "shape"], ["r"], name="reshape"),
        helper.make_node("Expand", ["row", "eshape"], ["e"], name="expand"),
        helper.make_node("Tile", ["x2", "reps"], ["t"], name="tile"),
        helper.make_node("ConstantOfShape", ["cshape"], ["c"], name="fill",
                         value=helper.make_tensor("v", f32, [1], [2.5])),
        helper.make_node("Range", ["start", "limit", "delta"], ["g"], name="range"),
        helper.make_node("Unsqueeze", ["x2", "uaxes"], ["u"], name="unsqueeze"),
        helper.make_node("Squeeze", ["row", "saxes"], ["q"], name="squeeze"),
        helper.make_node("Slice", ["x", "sstart", "send", "", "sstep"], ["l"], name="slice"),
        helper.make_node("TopK", ["x2", "k"], ["kv", "ki"], name="topk"),
        helper.make_node("Split", ["x2", "parts"], ["p0", "p1"], name="split", axis=1),
        helper.make_node("ReduceSum", ["x", "raxes"], ["rk"], name="sum_keep"),
        helper.make_node("ReduceSum", ["x", "raxes"], ["rn"], name="sum", keepdims=0),
        helper.make_node("HannWindow", ["wsize"], ["w"], name="hann"),
        helper.make_node("Pad", ["x2", "pads", "pval"], ["pc"], name="pad"),
        helper.make_node("Pad", ["x2", "rpads"], ["pr"], name="reflect", mode="reflect"),
        helper.make_node("Resize", ["x", "", "", "rsizes"], ["zl"], name="resize", mode="linear",
                         coordinate_transformation_mode="align_corners"),
        helper.make_node("Resize", ["x", "", "", "rsizes"], ["zc"], name="cubic", mode="cubic", exclude_outside=1),
        helper.make_node("Resize", ["x", "", "rscales"], ["zs"], name="scale"),
        helper.make_node("OneHot", ["ind", "odepth", "ovals"], ["oh"], name="onehot", axis=1),
        helper.make_node("STFT", ["sig", "fstep", "", "flen"], ["sf"], name="stft"),
    ]
    graph = helper.make_graph(
        nodes, "shape_data",
        [vi("x", f32, [2, 3, 4]), vi("shape", i64, [3]), vi("row", f32, [1, 3]), vi("eshape", i64, [2]),
         vi("x2", f32, [2, 3]), vi("reps", i64, [2]), vi("cshape", i64, [2]),
         vi("start", i64, []), vi("limit", i64, []), vi("delta", i64, []), vi("uaxes", i64, [2]),
         vi("saxes", i64, [1]), vi("sstart", i64, [3]), vi("send", i64, [3]), vi("sstep", i64, [3]), vi("k", i64, [1]), vi("parts", i64, [2]),
         vi("raxes", i64, [2]), vi("wsize", i64, []), vi("pads", i64, [4]), vi("pval", f32, []), vi("rpads", i64, [4]),
         vi("rsizes", i64, [3]), vi("rscales", f32, [3]), vi("ind", i64, [3]), vi("odepth", f32, []),
         vi("ovals", f32, [2]), vi("sig", f32, [1, 16, 1]), vi("fstep", i64, []), vi("flen", i64, [])],
        [vi("r", f32, None), vi("e", f32, None), vi("t", f32, None), vi("c", f32, None), vi("g", i64, None),
         vi("u", f32, None), vi("q", f32, None), vi("l", f32, None), vi("kv", f32, None),
         vi("ki", i64, None), vi("p0", f32, None), vi("p1", f32, None), vi("rk", f32, None), vi("rn", f32, None),
         vi("w", f32, None), vi("pc", f32, None), vi("pr", f32, None), vi("zl", f32, None), vi("zc", f32, None),
         vi("zs", f32, None), vi("oh", f32, None), vi("sf", f32, None)])
    import onnx
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def pad(x, pads, **kw):
    """numpy's pad, negative pads cropping afterwards (ONNX's rule)."""
    r = x.ndim
    y = np.pad(x, [(max(int(pads[d]), 0), max(int(pads[r + d]), 0)) for d in range(r)], **kw)
    return y[tuple(slice(max(-int(pads[d]), 0), y.shape[d] - max(-int(pads[r + d]), 0)) for d in range(r))]


# the results computed in another order than numpy's (sums, cosines)
APPROX = {12, 13, 14, 17, 18, 21}


def expect(ins):
    x, shape, row, eshape, x2, reps, cshape, start, limit, delta, uaxes, saxes, s0, s1, s2, k, parts = ins[:17]
    raxes, wsize, pads, pval, rpads, rsizes, rscales, ind, odepth, ovals, sig, fstep, flen = ins[17:]
    depth, L, step = int(odepth), int(flen), int(fstep)
    hot = np.array([[ovals[1] if (i + depth if i < 0 else i) == j else ovals[0] for j in range(depth)] for i in ind],
                   np.float32)
    frames = np.stack([sig[0, f * step:f * step + L, 0] for f in range((sig.shape[1] - L) // step + 1)])
    spec = np.fft.rfft(frames.astype(np.float64), axis=-1)
    from onnx.backend.test.case.node.resize import cubic_coeffs, interpolate_nd, linear_coeffs, nearest_coeffs
    size = [int(v) for v in rsizes]
    axes = tuple(int(a) for a in raxes)
    order = np.argsort(-x2, axis=-1, kind="stable")[:, :int(k[0])]
    u = x2
    for ax in sorted(int(a) % 4 for a in uaxes):
        u = np.expand_dims(u, ax)
    return [x.reshape([int(s) if s != 0 else x.shape[i] for i, s in enumerate(shape)]),
            np.broadcast_to(row, np.broadcast_shapes(row.shape, tuple(eshape))), np.tile(x2, tuple(reps)),
            np.full(tuple(cshape), 2.5, np.float32), np.arange(start, limit, delta, dtype=np.int64),
            u, np.squeeze(row, axis=tuple(int(a) for a in saxes)),
            x[tuple(slice(int(a), int(b), int(c)) for a, b, c in zip(s0, s1, s2))],
            np.take_along_axis(x2, order, -1), order.astype(np.int64),
            x2[:, :int(parts[0])], x2[:, int(parts[0]):],
            x.sum(axis=axes, keepdims=True), x.sum(axis=axes),
            (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(int(wsize)) / int(wsize))).astype(np.float32),
            pad(x2, pads, mode="constant", constant_values=pval), pad(x2, rpads, mode="reflect"),
            interpolate_nd(x, linear_coeffs, output_size=size, coordinate_transformation_mode="align_corners").astype(np.float32),
            interpolate_nd(x, lambda r: cubic_coeffs(r, A=-0.75), output_size=size, exclude_outside=True).astype(np.float32),
            interpolate_nd(x, nearest_coeffs, scale_factors=rscales).astype(np.float32),
            hot,
            np.stack([spec.real, spec.imag], -1)[None].astype(np.float32)]


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, module = onnx_e2e.prepare(work, build, compile_)
    if status:
        return status
    rng = np.random.RandomState(5)
    x = rng.uniform(-1, 1, (2, 3, 4)).astype(np.float32)
    row = rng.uniform(-1, 1, (1, 3)).astype(np.float32)
    x2 = rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    a = lambda *v: np.array(v, np.int64)
    s = lambda v: np.array(v, np.int64)
    f = lambda *v: np.array(v, np.float32)
    sig = rng.uniform(-1, 1, (1, 16, 1)).astype(np.float32)
    good = [
        [x, a(4, -1, 3), row, a(5, 3), x2, a(1, 2), a(2, 3), s(0), s(5), s(1), a(0, 3), a(0),
         a(0, 0, 0), a(2, 3, 4), a(1, 1, 1), a(2), a(1, 2),
         a(0, 2), s(10), a(1, 0, 0, 2), np.array(7.5, np.float32), a(1, 2, 1, 2), a(4, 3, 6), f(2, 1.5, 0.5),
         a(0, -1, 7), np.array(4.0, np.float32), f(0, 1), sig, s(4), s(8)],
        [x, a(0, 12, -1), row, a(1, 3), x2, a(3, 1), a(0, 4), s(10), s(-3), s(-4), a(-1, 1), a(-2),
         a(1, 2, 3), a(-100, -100, 0), a(-1, -2, -2), a(3), a(3, 0),
         a(-1, 1), s(1), a(0, -1, 1, 1), np.array(-2, np.float32), a(0, 5, 0, 0), a(1, 5, 2), f(1, 1, 1),
         a(1, 2, -3), np.array(3.7, np.float32), f(-1, 2), sig, s(3), s(16)],
        [x, a(24, 1, 1), row, a(7, 1), x2, a(2, 5), a(1, 1), s(3), s(3), s(2), a(2, 1), a(0),
         a(-1, 1, 1 << 40), a(1 << 40, 3, -(1 << 40)), a(1, 1, -3), a(0), a(0, 3),
         a(2, 0), s(0), a(0, 0, 0, 0), np.array(0, np.float32), a(-1, 0, 0, -1), a(3, 1, 1), f(0.6, 2.4, 1.25),
         a(0, 0, 9), np.array(10, np.float32), f(0, 5), sig, s(16), s(1)],
    ]
    base = good[0]
    bad = [  # (input index, value, what the message must say)
        (1, a(-5, 4, 6), ["node 'reshape", "dimension 0 is -5, must be >= 0"]),
        (1, a(5, 5, 1), ["node 'reshape", "is 25, must equal 24"]),
        (6, a(3, -2), ["node 'fill", "dimension 1 is -2"]),
        (6, a(1 << 40, 1 << 40), ["node 'fill", "past 2^62 bytes in all"]),
        (3, a(5, 4), ["node 'expand"]),
        (5, a(-1, 2), ["node 'tile", "is -1, must be >= 0"]),
        (10, a(1, 1), ["node 'unsqueeze", "is 2, must equal 0"]),
        (10, a(1, 7), ["node 'unsqueeze", "is 1, must equal 2"]),
        (11, a(1), ["node 'squeeze", "must equal 0"]),
        (14, a(1, 0, 1), ["node 'slice", "arithmetic trap"]),
        (15, a(4), ["node 'topk", "is 3, must equal"]),
        (15, a(-1), ["node 'topk", "dimension 0 is -1, must be >= 0"]),
        (16, a(2, 2), ["node 'split", "is 4, must equal 3"]),
        (16, a(-1, 4), ["node 'split", "dimension 1 is -1, must be >= 0"]),
        (17, a(1, 1), ["node 'sum_keep", "is 2, must equal 0"]),
        (17, a(0, 3), ["node 'sum_keep", "is 1, must equal 2"]),
        (18, s(-1), ["node 'hann", "dimension 0 is -1, must be >= 0"]),
        (19, a(0, -5, 0, 0), ["node 'pad", "dimension 1 is -2, must be >= 0"]),
        (22, a(2, -1, 4), ["node 'resize", "dimension 1 is -1, must be >= 0"]),
        (23, f(1, -2, 1), ["node 'scale", "is 1, must equal 0"]),
        (23, f(1, 1, np.nan), ["node 'scale", "is 1, must equal 0"]),
        (25, np.array(-3, np.float32), ["node 'onehot", "is 1, must equal 0"]),
        (28, s(0), ["node 'stft", "is 0, must equal 1"]),
        (29, s(17), ["node 'stft", "is 1, must equal 0"]),
    ]
    tally = onnx_e2e.Tally()

    def call(tag, ins, outs):
        return onnx_e2e.run_module(run, module, device, work, tag, ins, outs)

    for k, ins in enumerate(good):
        want = expect(ins)
        r = call("good%d" % k, ins, len(want))
        ok = r.returncode == 0
        for j, w in enumerate(want):
            if not ok:
                break
            got = np.load(os.path.join(work, "good%d_out%d.npy" % (k, j)))
            tol = 1e-5 if j in APPROX else 0
            ok = got.shape == w.shape and got.dtype == w.dtype and np.allclose(got, w, rtol=tol, atol=tol)
            print("call %d result %d %s: %s" % (k, j, got.shape, "ok" if ok else "MISMATCH, want %s" % (w.shape,)))
        if not ok:
            print(r.stderr)
        tally(ok)
    for k, (i, v, says) in enumerate(bad):
        ins = list(base)
        ins[i] = v
        r = call("bad%d" % k, ins, 22)
        ok = r.returncode != 0 and all(w in r.stderr for w in says)
        print("bad call %d %s: %s" % (k, "refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
        tally(ok)
    return tally.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
