#!/usr/bin/python3
"""Operator forms ONNX's node tests do not cover, each compared with numpy:
older versions (opsets 1..12) through the importer's version conversion,
and modes of newer versions the node tests leave out.

usage: forms.py --compile=KILN_COMPILE --run=KILN_RUN --work=DIR [NAME...]

The node tests cover few of the older forms that real models carry
(attributes that later became inputs, changed defaults, Softmax's 2-D
view, Upsample) and few modes (RoiAlign max and adaptive sampling,
Resize tf_crop_and_resize extrapolation). Each case here is a one-node
model, built with python3-onnx's helper, with inputs from a fixed seed
and the expected outputs computed by numpy following that version's
definition (not the newest one). Each is compiled by kiln-compile, run
by kiln-run on local-task and compared (rtol 1e-5, atol 1e-6; integers
exactly). Prints one line per case and `N passed, N failed`; exit 1 when
any failed, 77 when python3-onnx/numpy or the tools are missing.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print("skipped: python3-onnx or numpy is missing (%s)" % e)
    sys.exit(77)

RNG = np.random.default_rng(0)
F = np.float32


def r(*shape):
    return RNG.standard_normal(shape).astype(F)


def dtype_of(a):
    return {np.dtype(np.float32): TensorProto.FLOAT, np.dtype(np.float64): TensorProto.DOUBLE,
            np.dtype(np.int64): TensorProto.INT64, np.dtype(np.int32): TensorProto.INT32,
            np.dtype(np.bool_): TensorProto.BOOL, np.dtype(np.uint8): TensorProto.UINT8}[a.dtype]


def softmax2d(x, axis, op):
    """Softmax-1's definition: x as 2-D [prod(:axis), prod(axis:)]."""
    axis = axis % x.ndim
    m = x.reshape(int(np.prod(x.shape[:axis])), -1)
    if op == "Hardmax":
        y = np.zeros_like(m)
        y[np.arange(m.shape[0]), m.argmax(1)] = 1
    else:
        e = np.exp(m - m.max(1, keepdims=True))
        y = e / e.sum(1, keepdims=True)
        if op == "LogSoftmax":
            y = np.log(y)
    return y.reshape(x.shape)


def upsample_linear(x, scales):
    """Upsample-9 / Resize-10 linear: asymmetric coordinates o / scale."""
    y = x
    for ax, s in enumerate(scales):
        n = y.shape[ax]
        o = np.arange(int(np.floor(n * s)))
        src = o / s
        i0 = np.minimum(np.floor(src).astype(int), n - 1)
        i1 = np.minimum(i0 + 1, n - 1)
        w = (src - i0).reshape([-1 if k == ax else 1 for k in range(y.ndim)])
        y = np.take(y, i0, ax) * (1 - w) + np.take(y, i1, ax) * w
    return y.astype(F)


def crop_resize_linear(x, roi, sizes, extrap):
    """Resize-11 tf_crop_and_resize, linear: positions outside X give the
    extrapolation value."""
    y = x.astype(np.float64)
    r = x.ndim
    bad = np.zeros(sizes, bool)
    for ax in range(r):
        n, o = y.shape[ax], sizes[ax]
        if o == n and roi[ax] == 0 and roi[r + ax] == 1:
            continue
        i = np.arange(o)
        src = (roi[ax] * (n - 1) + i * (roi[r + ax] - roi[ax]) * (n - 1) / (o - 1) if o > 1
               else np.full(o, 0.5 * (roi[ax] + roi[r + ax]) * (n - 1)))
        out = (src < 0) | (src > n - 1)
        bad |= out.reshape([-1 if k == ax else 1 for k in range(r)])
        i0 = np.clip(np.floor(src).astype(int), 0, n - 1)
        i1 = np.clip(i0 + 1, 0, n - 1)
        w = np.where(i0 == i1, 0, src - np.floor(src)).reshape([-1 if k == ax else 1 for k in range(r)])
        y = np.take(y, i0, ax) * (1 - w) + np.take(y, i1, ax) * w
    return np.where(bad, extrap, y).astype(F)


def roi_align(x, rois, bidx, oh, ow, sr, scale, half_pixel, mode):
    """RoiAlign as ONNX's reference computes it (max: the largest weighted
    corner of any sample)."""
    n_, c_, h, w = x.shape
    y = np.zeros((len(rois), c_, oh, ow), np.float64)
    off = 0.5 if half_pixel else 0.0
    for r, (x1, y1, x2, y2) in enumerate(rois.astype(np.float64)):
        sw, sh, ew, eh = x1 * scale - off, y1 * scale - off, x2 * scale - off, y2 * scale - off
        rw, rh = ew - sw, eh - sh
        if not half_pixel:
            rw, rh = max(rw, 1.0), max(rh, 1.0)
        bh, bw = rh / oh, rw / ow
        gh = sr if sr > 0 else int(np.ceil(rh / oh))
        gw = sr if sr > 0 else int(np.ceil(rw / ow))
        img = x[bidx[r]].astype(np.float64)
        for ph in range(oh):
            for pw in range(ow):
                vals = []
                for iy in range(gh):
                    yy = sh + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        xx = sw + pw * bw + (ix + 0.5) * bw / gw
                        if yy < -1 or yy > h or xx < -1 or xx > w:
                            vals.append(np.zeros((4, c_)))
                            continue
                        yy0, xx0 = max(yy, 0.0), max(xx, 0.0)
                        yl, xl = int(yy0), int(xx0)
                        if yl >= h - 1:
                            yl = yh = h - 1
                            yy0 = float(yl)
                        else:
                            yh = yl + 1
                        if xl >= w - 1:
                            xl = xh = w - 1
                            xx0 = float(xl)
                        else:
                            xh = xl + 1
                        ly, lx = yy0 - yl, xx0 - xl
                        hy, hx = 1 - ly, 1 - lx
                        vals.append(np.stack([hy * hx * img[:, yl, xl], hy * lx * img[:, yl, xh],
                                              ly * hx * img[:, yh, xl], ly * lx * img[:, yh, xh]]))
                if not vals:
                    continue
                v = np.stack(vals)
                y[r, :, ph, pw] = v.sum(1).sum(0) / max(gh * gw, 1) if mode == "avg" else v.max(1).max(0)
    return y.astype(x.dtype)


ACTS = {
    "Tanh": lambda x, a, b: np.tanh(x), "Sigmoid": lambda x, a, b: 1 / (1 + np.exp(-x)),
    "Relu": lambda x, a, b: np.maximum(x, 0), "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: np.where(x < 0, a * x, x), "ThresholdedRelu": lambda x, a, b: np.where(x > a, x, 0),
    "ScaledTanh": lambda x, a, b: a * np.tanh(b * x), "HardSigmoid": lambda x, a, b: np.clip(a * x + b, 0, 1),
    "Elu": lambda x, a, b: np.where(x >= 0, x, a * (np.exp(x) - 1)), "Softsign": lambda x, a, b: x / (1 + np.abs(x)),
    "Softplus": lambda x, a, b: np.log(np.exp(x) + 1),
}
NPARAMS = {"Affine": (2, 1, 0), "LeakyRelu": (1, 0.01, 0), "ThresholdedRelu": (1, 1, 0), "ScaledTanh": (2, 1, 1),
           "HardSigmoid": (2, 0.2, 0.5), "Elu": (1, 1, 0)}


def recurrent(kind, x, w, r, bias, acts, alphas, betas, input_forget=0):
    """RNN / GRU (linear_before_reset 0) / LSTM in numpy, [S, B, I] input,
    per direction: W [D, G*H, I], R [D, G*H, H], B [D, 2*G*H]; ACTS the
    functions per direction, alpha/beta consumed in order."""
    S, B, _ = x.shape
    D, GH, _ = w.shape
    nslot = {"RNN": 1, "GRU": 2, "LSTM": 3}[kind]
    G = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    H = GH // G
    fns, ia, ib = [], 0, 0
    for name in acts:
        n, a, b = NPARAMS.get(name, (0, 0, 0))
        if n >= 1 and ia < len(alphas):
            a, ia = alphas[ia], ia + 1
        if n >= 2 and ib < len(betas):
            b, ib = betas[ib], ib + 1
        fns.append(lambda v, f=ACTS[name], a=a, b=b: f(v, a, b))
    ys, hs, cs = [], [], []
    for d in range(D):
        f = fns[d * nslot:(d + 1) * nslot]
        wb, rb = bias[d][:GH], bias[d][GH:]
        h, cst = np.zeros((B, H)), np.zeros((B, H))
        out = [None] * S
        for t in (range(S) if d == 0 else range(S - 1, -1, -1)):
            gx = x[t] @ w[d].T + wb
            gh = h @ r[d].T + rb
            if kind == "RNN":
                h = f[0](gx + gh)
            elif kind == "GRU":
                z = f[0](gx[:, :H] + gh[:, :H])
                rr = f[0](gx[:, H:2 * H] + gh[:, H:2 * H])
                hh = f[1](gx[:, 2 * H:] + (rr * h) @ r[d][2 * H:].T + rb[2 * H:])
                h = (1 - z) * hh + z * h
            else:
                i = f[0](gx[:, :H] + gh[:, :H])
                o = f[0](gx[:, H:2 * H] + gh[:, H:2 * H])
                fg = 1 - i if input_forget else f[0](gx[:, 2 * H:3 * H] + gh[:, 2 * H:3 * H])
                cst = fg * cst + i * f[1](gx[:, 3 * H:] + gh[:, 3 * H:])
                h = o * f[2](cst)
            out[t] = h
        ys.append(np.stack(out))
        hs.append(h)
        cs.append(cst)
    y = np.stack(ys, 1).astype(F)
    return y, np.stack(hs).astype(F), np.stack(cs).astype(F)


def nearest(x, scales, rnd):
    y = x
    for ax, s in enumerate(scales):
        n = y.shape[ax]
        src = rnd(np.arange(int(np.floor(n * s))) / s).astype(int)
        y = np.take(y, np.minimum(src, n - 1), ax)
    return y


def case(name, opset, op, inputs, attrs, outputs, inits=(), domain="", nodes=None):
    """inputs / inits: [(name, array)]; outputs: [(name, expected array)];
    NODES (a list of NodeProto) replaces the one node OP makes."""
    return dict(name=name, opset=opset, op=op, inputs=list(inputs), attrs=attrs, outputs=list(outputs),
                inits=list(inits), domain=domain, nodes=nodes)


def tfidf_ref(x, mode, minn, maxn, skip, counts, indexes, pool, weights):
    """TfIdfVectorizer's counts on integer tokens: each pool n-gram's
    occurrences with 0..skip tokens between items (unigrams once)."""
    grams, k = [], 0
    for g in range(len(counts)):
        end = counts[g + 1] if g + 1 < len(counts) else len(pool)
        for p in range(counts[g], end, g + 1):
            grams.append(tuple(pool[p:p + g + 1]))
    out = np.zeros((x.shape[0], max(indexes) + 1), F)
    for r_, row in enumerate(x):
        for j, gram in enumerate(grams):
            n = len(gram)
            if not minn <= n <= maxn:
                continue
            cnt = 0
            for s_ in range(skip + 1 if n > 1 else 1):
                for i in range(len(row)):
                    pos = [i + q * (s_ + 1) for q in range(n)]
                    cnt += pos[-1] < len(row) and tuple(row[pos]) == gram
            w = weights[j] if weights else 1.0
            out[r_, indexes[j]] = cnt if mode == "TF" else cnt * w if mode == "TFIDF" else (w if cnt else 0)
    return out


def contrib_cases():
    """ONNX Runtime's contrib operators (com.microsoft) as ORT defines them."""
    ms = "com.microsoft"
    erf = np.vectorize(__import__("math").erf)
    x = r(2, 3, 8)
    bias = r(8)
    gelu = lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2)))
    fast = lambda v: 0.5 * v * (1 + np.tanh(0.7978845608028654 * (v + 0.044715 * v ** 3)))
    yield case("ms_gelu", 1, "Gelu", [("x", x)], {}, [("y", gelu(x).astype(F))], domain=ms)
    yield case("ms_fastgelu_bias", 1, "FastGelu", [("x", x)], {}, [("y", fast(x + bias).astype(F))],
               inits=[("b", bias)], domain=ms)
    yield case("ms_biasgelu", 1, "BiasGelu", [("x", x)], {}, [("y", gelu(x + bias).astype(F))], inits=[("b", bias)],
               domain=ms)
    yield case("ms_quickgelu", 1, "QuickGelu", [("x", x)], dict(alpha=1.5),
               [("y", (x / (1 + np.exp(-1.5 * x))).astype(F))], domain=ms)
    a, b = r(2, 4, 3), r(2, 5, 4)
    yield case("ms_fusedmatmul_trans", 1, "FusedMatMul", [("a", a), ("b", b)], dict(alpha=0.5, transA=1, transB=1),
               [("y", (0.5 * np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2)).astype(F))], domain=ms)
    cx, cw, cb, cz = r(1, 2, 5, 5), r(3, 2, 3, 3), r(3), r(1, 3, 3, 3)
    conv = np.zeros((1, 3, 3, 3), np.float64)
    for o in range(3):
        for i in range(3):
            for j in range(3):
                conv[0, o, i, j] = (cx[0, :, i:i + 3, j:j + 3] * cw[o]).sum() + cb[o]
    yield case("ms_fusedconv_leaky_z", 1, "FusedConv", [("x", cx)],
               dict(activation="LeakyRelu", activation_params=[0.2], kernel_shape=[3, 3]),
               [("y", np.where(conv + cz < 0, 0.2 * (conv + cz), conv + cz).astype(F))],
               inits=[("w", cw), ("b", cb), ("z", cz)], domain=ms)
    ga, gb, gc = r(3, 4), r(5, 4), r(5)
    gem = 2.0 * ga @ gb.T + 0.5 * gc
    yield case("ms_fusedgemm_sigmoid", 1, "FusedGemm", [("a", ga)],
               dict(activation="Sigmoid", alpha=2.0, beta=0.5, transB=1), [("y", (1 / (1 + np.exp(-gem))).astype(F))],
               inits=[("b", gb), ("c", gc)], domain=ms)
    sk, g_, be = r(2, 3, 8), r(8) + 1, r(8)
    s_ = x + sk + bias
    mu, var = s_.mean(-1, keepdims=True), s_.var(-1, keepdims=True)
    yield case("ms_skiplayernorm", 1, "SkipLayerNormalization", [("x", x), ("skip", sk)], dict(epsilon=1e-5),
               [("y", ((s_ - mu) / np.sqrt(var + 1e-5) * g_ + be).astype(F)), ("mean", mu.astype(F)),
                ("inv", (1 / np.sqrt(var + 1e-5)).astype(F)), ("sum", s_.astype(F))],
               inits=[("gamma", g_), ("beta", be), ("bias", bias)], domain=ms)
    ms_ = (s_ ** 2).mean(-1, keepdims=True)
    yield case("ms_skipsimplifiedlayernorm", 1, "SkipSimplifiedLayerNormalization", [("x", x), ("skip", sk)],
               dict(epsilon=1e-6), [("y", (s_ / np.sqrt(ms_ + 1e-6) * g_).astype(F))],
               inits=[("gamma", g_), ("bias", bias)], domain=ms, nodes=[
                   helper.make_node("SkipSimplifiedLayerNormalization", ["x", "skip", "gamma", "bias"], ["y"],
                                    domain=ms, epsilon=1e-6)])
    xs = (x ** 2).mean(-1, keepdims=True)
    yield case("simplifiedlayernorm13", 13, "SimplifiedLayerNormalization", [("x", x)], dict(epsilon=1e-6),
               [("y", (x / np.sqrt(xs + 1e-6) * g_).astype(F))], inits=[("g", g_)])
    mu2, var2 = x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)
    yield case("layernorm13_ort", 13, "LayerNormalization", [("x", x)], dict(axis=1, epsilon=1e-5),
               [("y", ((x - mu2) / np.sqrt(var2 + 1e-5) * g_ + be).astype(F))], inits=[("g", g_), ("b", be)])


def graph_cases():
    """Sequences and control flow: several nodes, tensor outputs."""
    mk = helper.make_node
    x = r(6, 4)
    pos = np.array(-2, np.int64)
    yield case("sequence_split_at_concat", 13, "SequenceAt", [("x", x), ("p", pos)], {},
               [("y", x[2:4]), ("z", np.concatenate([x[4:], x[:2]], 0)), ("n", np.array(2, np.int64))],
               nodes=[mk("SplitToSequence", ["x", "two"], ["s"], axis=0),
                      mk("SequenceAt", ["s", "p"], ["y"]),
                      mk("SequenceErase", ["s", "p"], ["s2"]),
                      mk("SequenceInsert", ["s2", "head"], ["s3"]),
                      mk("SequenceErase", ["s3", "zero"], ["s4"]),
                      mk("ConcatFromSequence", ["s4"], ["z"], axis=0),
                      mk("SequenceLength", ["s2"], ["n"])],
               inits=[("two", np.array(2, np.int64)), ("head", x[:2].copy()), ("zero", np.array(0, np.int64))])
    a, b = r(3), r(3)
    yield case("sequence_construct_stack", 13, "ConcatFromSequence", [("a", a), ("b", b), ("p", np.array(1, np.int64))],
               {}, [("y", np.stack([a, b, a], 1)), ("e", b)],
               nodes=[mk("SequenceConstruct", ["a", "b"], ["s"]), mk("SequenceInsert", ["s", "a", "p"], ["s1"]),
                      mk("SequenceErase", ["s1", "p"], ["s2"]), mk("SequenceInsert", ["s2", "a"], ["s3"]),
                      mk("ConcatFromSequence", ["s3"], ["y"], axis=1, new_axis=1),
                      mk("SequenceAt", ["s3", "p"], ["e0"]), mk("Identity", ["e0"], ["e"])])
    # If with a run-time condition: both branches, an output selected
    c = np.array(False)
    then_g = helper.make_graph([mk("Add", ["a", "b"], ["t"])], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, [3])])
    else_g = helper.make_graph([mk("Mul", ["a", "b"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [3])])
    for cv in (True, False):
        yield case("if_runtime_%s" % str(cv).lower(), 11, "If", [("c", np.array(cv)), ("a", a), ("b", b)], {},
                   [("y", a + b if cv else a * b)], nodes=[mk("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)])
    del c
    # Loop: a constant trip count with a run-time condition that turns false
    body = helper.make_graph(
        [mk("Add", ["v", "step"], ["v2"]), mk("Less", ["v2", "limit"], ["c2"]), mk("Identity", ["c2"], ["cout"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cin", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("cout", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v2", TensorProto.FLOAT, [])])
    for lim in (3.5, 100.0):
        v, stepv, k = 0.0, 1.5, 0
        while k < 6:  # trip 6; stops once v >= limit
            v += stepv
            k += 1
            if not v < lim:
                break
        yield case("loop_masked_limit%g" % lim, 13, "Loop", [("limit", np.array(lim, F))], {},
                   [("y", np.array(v, F))], inits=[("m", np.array(6, np.int64)), ("c", np.array(True)),
                                                   ("v0", np.array(0, F)), ("step", np.array(1.5, F))],
                   nodes=[mk("Loop", ["m", "c", "v0"], ["y"], body=body)])
    # Loop with scan outputs and the iteration number
    body2 = helper.make_graph(
        [mk("Cast", ["i"], ["fi"], to=TensorProto.FLOAT), mk("Mul", ["acc", "fi"], ["prod"]),
         mk("Add", ["acc", "prod"], ["acc2"]), mk("Identity", ["cin"], ["cout"]), mk("Identity", ["prod"], ["sc"])],
        "body2", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                  helper.make_tensor_value_info("cin", TensorProto.BOOL, []),
                  helper.make_tensor_value_info("acc", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("cout", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc2", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("sc", TensorProto.FLOAT, [3])])
    acc, scans = a.astype(np.float64), []
    for i in range(4):
        prod = acc * i
        scans.append(prod)
        acc = acc + prod
    yield case("loop_scan_outputs", 11, "Loop", [("a", a)], {}, [("y", acc.astype(F)), ("s", np.stack(scans).astype(F))],
               inits=[("m", np.array(4, np.int64))], nodes=[mk("Loop", ["m", "", "a"], ["y", "s"], body=body2)])
    # Scan: a running sum over the reversed axis 1, outputs stacked on axis 1
    sx = r(2, 5)
    sbody = helper.make_graph([mk("Add", ["st", "xi"], ["st2"]), mk("Identity", ["st2"], ["out"])], "sbody",
                              [helper.make_tensor_value_info("st", TensorProto.FLOAT, [2]),
                               helper.make_tensor_value_info("xi", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("st2", TensorProto.FLOAT, [2]),
                               helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])])
    cum = np.cumsum(sx[:, ::-1], 1)
    yield case("scan9_reverse_axes", 9, "Scan", [("s0", np.zeros(2, F)), ("x", sx)],
               dict(num_scan_inputs=1, scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1],
                    scan_output_directions=[1], body=sbody),
               [("y", cum[:, -1].astype(F)), ("z", cum[:, ::-1].astype(F))], nodes=None)
    bx = r(2, 3, 2)
    yield case("scan8_batch2", 8, "Scan", [("s0", np.zeros((2, 2), F)), ("x", bx)], dict(num_scan_inputs=1),
               [("y", bx.sum(1)), ("z", np.cumsum(bx, 1).astype(F))],
               nodes=[mk("Scan", ["", "s0", "x"], ["y", "z"], num_scan_inputs=1, body=sbody)])
    mbody = helper.make_graph([mk("Mul", ["e", "k"], ["o"])], "mbody",
                              [helper.make_tensor_value_info("e", TensorProto.FLOAT, [3]),
                               helper.make_tensor_value_info("k", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("o", TensorProto.FLOAT, [3])])
    yield case("sequencemap_construct", 17, "SequenceMap", [("a", a), ("b", b)], {},
               [("y", np.stack([a * b, b * b]))],
               nodes=[mk("SequenceConstruct", ["a", "b"], ["s"]), mk("SequenceMap", ["s", "b"], ["s2"], body=mbody),
                      mk("ConcatFromSequence", ["s2"], ["y"], axis=0, new_axis=1)])


def cases():
    x4 = r(2, 3, 4, 5)
    x23 = r(2, 3)
    xs = r(1, 3, 1, 2)
    x45 = r(4, 5)
    bn = dict(x=r(2, 3, 4), s=r(3, 4), b=r(3, 4), m=r(3, 4), v=np.abs(r(3, 4)) + 0.5)
    t = r(3, 4)
    xi = RNG.integers(0, 9, (3, 4)).astype(np.int64)
    yield case("squeeze1_axes", 1, "Squeeze", [("x", xs)], dict(axes=[0, 2]), [("y", xs.reshape(3, 2))])
    yield case("squeeze11_all", 11, "Squeeze", [("x", xs)], {}, [("y", xs.reshape(3, 2))])
    yield case("unsqueeze11_neg", 11, "Unsqueeze", [("x", x23)], dict(axes=[0, -1]), [("y", x23.reshape(1, 2, 3, 1))])
    yield case("slice1_axes", 9, "Slice", [("x", x45)], dict(starts=[1, 0], ends=[3, -1], axes=[0, 1]),
               [("y", x45[1:3, 0:-1])])
    yield case("slice1_no_axes", 1, "Slice", [("x", x45)], dict(starts=[2, 1], ends=[100, 3]), [("y", x45[2:, 1:3])])
    x6 = r(6)
    yield case("split2_sizes", 2, "Split", [("x", x6)], dict(split=[2, 4]), [("a", x6[:2]), ("b", x6[2:])])
    yield case("split11_equal", 11, "Split", [("x", x4)], dict(axis=1), [("a", x4[:, :1]), ("b", x4[:, 1:2]),
                                                                      ("c", x4[:, 2:])])
    yield case("pad2_constant", 2, "Pad", [("x", x23)], dict(pads=[1, 0, 0, 2], value=1.5),
               [("y", np.pad(x23, ((1, 0), (0, 2)), constant_values=1.5))])
    yield case("pad2_reflect", 2, "Pad", [("x", x45)], dict(pads=[0, 2, 1, 1], mode="reflect"),
               [("y", np.pad(x45, ((0, 1), (2, 1)), mode="reflect"))])
    yield case("pad2_edge", 2, "Pad", [("x", x45)], dict(pads=[2, 0, 0, 3], mode="edge"),
               [("y", np.pad(x45, ((2, 0), (0, 3)), mode="edge"))])
    yield case("clip6_both", 6, "Clip", [("x", x4)], dict(min=-0.5, max=0.7), [("y", np.clip(x4, -0.5, 0.7))])
    big = np.array([-np.inf, -1, 0, 2, np.inf], F)
    yield case("clip6_max_only", 6, "Clip", [("x", big)], dict(max=1.0),
               [("y", np.clip(big, -3.4028234663852886e38, 1.0).astype(F))])
    yield case("reducesum11_axes", 11, "ReduceSum", [("x", x4)], dict(axes=[1, -1], keepdims=0),
               [("y", x4.sum((1, 3)))])
    yield case("reducesum1_all", 1, "ReduceSum", [("x", x23)], {}, [("y", x23.sum(keepdims=True))])
    for op in ("Softmax", "LogSoftmax", "Hardmax"):
        yield case(op.lower() + "11_axis1", 11, op, [("x", x4)], {}, [("y", softmax2d(x4, 1, op))])
        yield case(op.lower() + "1_axis0", 1, op, [("x", x23)], dict(axis=0), [("y", softmax2d(x23, 0, op))])
        yield case(op.lower() + "11_last", 11, op, [("x", x23)], dict(axis=-1), [("y", softmax2d(x23, 1, op))])
    srt = np.argsort(-t, axis=1, kind="stable")[:, :2]
    yield case("topk1_attr", 1, "TopK", [("x", t)], dict(k=2), [("v", np.take_along_axis(t, srt, 1)), ("i", srt)])
    yield case("topk10_input", 10, "TopK", [("x", t)], dict(axis=0), [("v", -np.sort(-t, 0)[:1]),
                                                                       ("i", np.argsort(-t, 0, kind="stable")[:1])],
               inits=[("k", np.array([1], np.int64))])
    yield case("dropout7_mask", 7, "Dropout", [("x", x23)], dict(ratio=0.3), [("y", x23), ("m", np.ones_like(x23))])
    yield case("dropout10_mask", 10, "Dropout", [("x", x23)], dict(ratio=0.3), [("y", x23),
                                                                              ("m", np.ones(x23.shape, bool))])
    u = r(1, 1, 2, 3)
    yield case("upsample7_nearest", 7, "Upsample", [("x", u)], dict(scales=[1.0, 1.0, 2.0, 3.0]),
               [("y", nearest(u, [1, 1, 2, 3], np.floor))])
    yield case("upsample9_linear", 9, "Upsample", [("x", u)], dict(mode="linear"),
               [("y", upsample_linear(u, [1, 1, 2, 2]))], inits=[("s", np.array([1, 1, 2, 2], F))])
    d = r(1, 1, 5, 5)
    yield case("resize10_nearest_down", 10, "Resize", [("x", d)], {},
               [("y", nearest(d, [1, 1, 0.6, 0.6], np.ceil))], inits=[("s", np.array([1, 1, 0.6, 0.6], F))])
    yield case("resize10_linear_up", 10, "Resize", [("x", u)], dict(mode="linear"),
               [("y", upsample_linear(u, [1, 1, 2, 1.5]))], inits=[("s", np.array([1, 1, 2, 1.5], F))])
    yield case("resize11_sizes", 11, "Resize", [("x", u)], dict(mode="nearest", coordinate_transformation_mode="asymmetric"),
               [("y", nearest(u, [1, 1, 2, 2], lambda v: np.ceil(v - 0.5)))],  # round_prefer_floor
               inits=[("roi", np.zeros(0, F)), ("scales", np.zeros(0, F)), ("sizes", np.array([1, 1, 4, 6], np.int64))])
    roi = np.array([0, 0, -0.2, 0.3, 1, 1, 0.9, 1.4], F)
    yield case("resize11_tf_crop", 11, "Resize", [("x", d)],
               dict(mode="linear", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=-7.0),
               [("y", crop_resize_linear(d, roi, (1, 1, 4, 6), -7.0))],
               inits=[("roi", roi), ("scales", np.zeros(0, F)), ("sizes", np.array([1, 1, 4, 6], np.int64))])
    rx = r(2, 3, 6, 7)
    rois = np.array([[0.5, 1.0, 5.5, 4.2], [1.0, 0.0, 3.0, 6.0], [-1.0, 2.0, 9.0, 8.0], [2.0, 2.0, 2.0, 2.0]], F)
    rb = np.array([0, 1, 1, 0], np.int64)
    for mode in ("avg", "max"):
        for sr, half in ((2, True), (0, True), (0, False)):
            yield case("roialign16_%s_sr%d%s" % (mode, sr, "" if half else "_outhalf"), 16, "RoiAlign", [("x", rx)],
                       dict(mode=mode, output_height=3, output_width=2, sampling_ratio=sr, spatial_scale=0.9,
                            coordinate_transformation_mode="half_pixel" if half else "output_half_pixel"),
                       [("y", roi_align(rx, rois, rb, 3, 2, sr, 0.9, half, mode))], inits=[("rois", rois), ("b", rb)])
    yield case("roialign10_max_runtime_rois", 10, "RoiAlign", [("x", rx), ("rois", rois), ("b", rb)],
               dict(mode="max", output_height=2, output_width=2, sampling_ratio=3),
               [("y", roi_align(rx, rois, rb, 2, 2, 3, 1.0, False, "max"))])
    for kind, acts, al, be, opset in (
            ("RNN", ["Affine", "LeakyRelu"], [0.5, 0.2], [0.1], 7),
            ("GRU", ["HardSigmoid", "Softsign", "Sigmoid", "ScaledTanh"], [0.3, 0.7], [0.4, 1.5], 14),
            ("LSTM", ["Sigmoid", "Elu", "Softplus", "HardSigmoid", "Relu", "ThresholdedRelu"], [0.9, 0.25, 0.1],
             [0.45], 7),
            ("LSTM", ["Sigmoid", "Tanh", "Tanh"], [], [], 14)):
        G, H, I, S, B = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind], 3, 2, 4, 2
        xs_, ws_, rs_, bs_ = r(S, B, I), r(2, G * H, I) * 0.5, r(2, G * H, H) * 0.5, r(2, 2 * G * H) * 0.3
        forget = int(kind == "LSTM" and not al)
        y, yh, yc = recurrent(kind, xs_, ws_, rs_, bs_, acts if len(acts) > 3 or kind != "LSTM" else acts * 2, al, be,
                              forget)
        attrs = dict(hidden_size=H, direction="bidirectional", activations=acts if len(acts) > 3 or kind != "LSTM"
                     else acts * 2)
        if al:
            attrs["activation_alpha"] = al
        if be:
            attrs["activation_beta"] = be
        if forget:
            attrs["input_forget"] = 1
        outs = [("y", y), ("yh", yh)] + ([("yc", yc)] if kind == "LSTM" else [])
        yield case("%s%d_%s" % (kind.lower(), opset, "input_forget" if forget else "activations"), opset, kind,
                   [("x", xs_)], attrs, outs, inits=[("w", ws_), ("r", rs_), ("b", bs_)])
    # layout 1 (batch-major X [B, S, I], Y [B, S, D, H], Y_h [B, D, H]) with
    # S and B above 1: step t's rows of the hoisted X W^T are strided (the
    # node tests' *_batchwise cases have one step only)
    for kind in ("GRU", "LSTM"):
        G, H, I, S, B = {"GRU": 3, "LSTM": 4}[kind], 3, 2, 4, 3
        xs_, ws_, rs_, bs_ = r(S, B, I), r(2, G * H, I) * 0.5, r(2, G * H, H) * 0.5, r(2, 2 * G * H) * 0.3
        acts = {"GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind] * 2
        y, yh, yc = recurrent(kind, xs_, ws_, rs_, bs_, acts, [], [])
        outs = [("y", y.transpose(2, 0, 1, 3)), ("yh", yh.transpose(1, 0, 2))]
        outs += [("yc", yc.transpose(1, 0, 2))] if kind == "LSTM" else []
        yield case("%s14_layout1" % kind.lower(), 14, kind, [("x", xs_.transpose(1, 0, 2).copy())],
                   dict(hidden_size=H, direction="bidirectional", layout=1), outs,
                   inits=[("w", ws_), ("r", rs_), ("b", bs_)])
    # sequence_lens with S 6 above the four copies deduplicate-executables
    # merges: each step's cell reads its liveness rows like its gate
    # columns (one kernel for all steps). GRU with every input at run
    # time, LSTM batch-major with constant weights and lengths.
    for kind, layout in (("GRU", 0), ("LSTM", 1)):
        G, H, I, S, B = {"GRU": 3, "LSTM": 4}[kind], 3, 2, 6, 3
        xs_, ws_, rs_, bs_ = r(S, B, I), r(2, G * H, I) * 0.5, r(2, G * H, H) * 0.5, r(2, 2 * G * H) * 0.3
        lens = np.array([6, 2, 4], np.int32)
        acts = {"GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}[kind] * 2
        y, yh, yc = np.zeros((S, 2, B, H), F), np.zeros((2, B, H), F), np.zeros((2, B, H), F)
        for b_, n_ in enumerate(lens):
            y1, yh1, yc1 = recurrent(kind, xs_[:n_, b_:b_ + 1], ws_, rs_, bs_, acts, [], [])
            y[:n_, :, b_], yh[:, b_], yc[:, b_] = y1[:, :, 0], yh1[:, 0], yc1[:, 0]
        if layout:
            outs = [("y", y.transpose(2, 0, 1, 3)), ("yh", yh.transpose(1, 0, 2)), ("yc", yc.transpose(1, 0, 2))]
            ins, inits = [("x", xs_.transpose(1, 0, 2).copy())], [("w", ws_), ("r", rs_), ("b", bs_), ("l", lens)]
        else:
            outs = [("y", y), ("yh", yh)]
            ins, inits = [("x", xs_), ("w", ws_), ("r", rs_), ("b", bs_), ("l", lens)], []
        yield case("%s14_seq_lens%s" % (kind.lower(), "_layout1" if layout else ""), 14, kind, ins,
                   dict(hidden_size=H, direction="bidirectional", layout=layout), outs, inits=inits)
    tx = RNG.integers(0, 5, (3, 9)).astype(np.int64)
    tattr = dict(min_gram_length=1, max_gram_length=3, max_skip_count=2, ngram_counts=[0, 3, 7],
                 ngram_indexes=[5, 0, 2, 1, 3, 7, 6], pool_int64s=[1, 2, 4, 1, 2, 3, 3, 0, 1, 1, 2, 3, 4],
                 weights=[0.5, 2.0, 1.5, 1.0, 0.25, 3.0, 0.75])
    for mode in ("TFIDF", "IDF"):
        yield case("tfidf9_%s_skip2" % mode.lower(), 9, "TfIdfVectorizer", [("x", tx)], dict(tattr, mode=mode),
                   [("y", tfidf_ref(tx, mode, 1, 3, 2, [0, 3, 7], tattr["ngram_indexes"], tattr["pool_int64s"],
                                    tattr["weights"]))])
    norm = (bn["x"] - bn["m"]) / np.sqrt(bn["v"] + 1e-5) * bn["s"] + bn["b"]
    yield case("batchnorm7_spatial0", 7, "BatchNormalization", [("x", bn["x"])], dict(spatial=0),
               [("y", norm.astype(F))], inits=[(k, bn[k]) for k in ("s", "b", "m", "v")])
    bx, c3 = r(2, 3, 4), [r(3) for _ in range(4)]
    c3[3] = np.abs(c3[3]) + 0.5
    mean, var = bx.mean((0, 2)), bx.var((0, 2))
    yb = (bx - mean[:, None]) / np.sqrt(var[:, None] + 1e-5) * c3[0][:, None] + c3[1][:, None]
    yield case("batchnorm9_training", 9, "BatchNormalization", [("x", bx)], dict(momentum=0.8),
               [("y", yb.astype(F)), ("rm", (c3[2] * 0.8 + mean * 0.2).astype(F)),
                ("rv", (c3[3] * 0.8 + var * 0.2).astype(F))],
               inits=list(zip(("s", "b", "m", "v"), c3)))
    yield case("argmax11", 11, "ArgMax", [("x", x4)], dict(axis=-2, keepdims=0), [("y", x4.argmax(-2))])
    g = r(2, 3, 4)
    gi = np.array([[1, 2], [0, 1]], np.int64)
    yield case("gathernd11", 11, "GatherND", [("x", g)], {}, [("y", g[gi[:, 0], gi[:, 1]])], inits=[("i", gi)])
    sd, si, su = np.zeros((3, 3), F), np.array([[1, 0, 2], [0, 2, 1]], np.int64), r(2, 3)
    want = sd.copy()
    for a in range(2):
        for b in range(3):
            want[si[a, b], b] = su[a, b]
    yield case("scatter9", 9, "Scatter", [("x", sd)], {}, [("y", want)], inits=[("i", si), ("u", su)])
    ds = r(1, 8, 2, 3)
    dcr = ds.reshape(1, 2, 2, 2, 2, 3).transpose(0, 3, 4, 1, 5, 2).reshape(1, 2, 4, 6)
    yield case("depthtospace1", 1, "DepthToSpace", [("x", ds)], dict(blocksize=2), [("y", dcr)])
    yield case("reshape5", 5, "Reshape", [("x", x4)], {}, [("y", x4.reshape(6, -1))],
               inits=[("s", np.array([6, -1], np.int64))])
    yield case("gemm7_c", 7, "Gemm", [("a", t)], dict(alpha=0.5, transB=1), [("y", 0.5 * t @ t.T + x23[:1, :1])],
               inits=[("b", t), ("c", x23[:1, :1].copy())])
    q = r(2, 4)
    yield case("quantize10", 10, "QuantizeLinear", [("x", q)], {},
               [("y", np.clip(np.round(q / 0.05) + 10, 0, 255).astype(np.uint8))],
               inits=[("s", np.array(0.05, F)), ("z", np.array(10, np.uint8))])
    # int32 with a per-axis int32 zero point: how quantizers write a bias
    qb = np.array([[-70000, 3, 2 ** 30], [5, -6, 7]], np.int32)
    qbs, qbz = np.array([0.5, 2 ** -20, 0.25], F), np.array([1, 0, -3], np.int32)
    yield case("dequantize13_int32_axis", 13, "DequantizeLinear", [("x", qb)], dict(axis=1),
               [("y", ((qb.astype(np.int64) - qbz) * qbs).astype(F))], inits=[("s", qbs), ("z", qbz)])
    yield case("maxpool1", 1, "MaxPool", [("x", x4)], dict(kernel_shape=[2, 2], strides=[2, 2]),
               [("y", x4[:, :, :4, :4].reshape(2, 3, 2, 2, 2, 2).max((3, 5)))])
    yield case("averagepool7_count_pad", 7, "AveragePool", [("x", x4)],
               dict(kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1),
               [("y", np.pad(x4, ((0, 0), (0, 0), (1, 1), (1, 1)))[:, :, :6, :6].reshape(2, 3, 3, 2, 3, 2)
                 .mean((3, 5)).astype(F))])
    yield case("concat4", 4, "Concat", [("a", x23), ("b", x23)], dict(axis=1), [("y", np.concatenate([x23, x23], 1))])
    yield case("cast6_int", 6, "Cast", [("x", xi)], dict(to=TensorProto.FLOAT), [("y", xi.astype(F))])
    # inference with constant scale, B, mean and var: the importer folds
    # them to y = x * k + d (import_norm.c batchnorm_folded); 5 channels,
    # epsilon 1e-3, the mean near x's so that the fold's rounding shows
    cx, cp = r(2, 5, 3, 4) + 1.5, [r(5), r(5), r(5) * 0.3 + 1.5, np.abs(r(5)) + 0.1]
    yc = (cx - cp[2][:, None, None]) / np.sqrt(cp[3][:, None, None] + 1e-3) * cp[0][:, None, None] \
        + cp[1][:, None, None]
    yield case("batchnorm15_constant", 15, "BatchNormalization", [("x", cx)], dict(epsilon=1e-3),
               [("y", yc.astype(F))], inits=list(zip(("s", "b", "m", "v"), cp)))


def build(c):
    ins = [helper.make_tensor_value_info(n, dtype_of(a), a.shape) for n, a in c["inputs"]]
    outs = [helper.make_tensor_value_info(n, dtype_of(a), a.shape) for n, a in c["outputs"]]
    inits = [numpy_helper.from_array(a, n) for n, a in c["inits"]]
    names = [n for n, _ in c["inputs"]] + [n for n, _ in c["inits"]]
    nodes = c["nodes"] or [helper.make_node(c["op"], names, [n for n, _ in c["outputs"]], domain=c["domain"],
                                            **c["attrs"])]
    g = helper.make_graph(nodes, c["name"], ins, outs, inits)
    ops = [helper.make_opsetid(c["domain"], c["opset"])] + ([helper.make_opsetid("", 13)] if c["domain"] else [])
    m = helper.make_model(g, opset_imports=ops)
    m.ir_version = 6
    return m


def run(args, c):
    work = os.path.join(args.work, c["name"])
    os.makedirs(work, exist_ok=True)
    model, kiln = os.path.join(work, "model.onnx"), os.path.join(work, "model.kiln")
    onnx.save(build(c), model)
    p = subprocess.run([args.compile, model, "-o", kiln], capture_output=True, text=True)
    if p.returncode:
        return "compile error: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    argv = [args.run, "--module=" + kiln, "--device=local-task"]
    for n, a in c["inputs"]:
        np.save(os.path.join(work, n + ".npy"), a)
        argv.append("--input=@" + os.path.join(work, n + ".npy"))
    outs = [os.path.join(work, "out_%s.npy" % n) for n, _ in c["outputs"]]
    p = subprocess.run(argv + ["--output=@" + o for o in outs], capture_output=True, text=True)
    if p.returncode:
        return "run error: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    for (n, want), o in zip(c["outputs"], outs):
        got = np.load(o)
        if got.shape != want.shape or got.dtype != want.dtype:
            return "output %s: %s %s, expected %s %s" % (n, got.dtype, got.shape, want.dtype, want.shape)
        if want.dtype.kind == "f":
            if not np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
                return "output %s: max abs error %.3g" % (n, float(np.nanmax(np.abs(got - want))))
        elif not np.array_equal(got, want):
            return "output %s: %d elements differ" % (n, int(np.count_nonzero(got != want)))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    passed = failed = 0
    import itertools
    for c in itertools.chain(cases(), graph_cases(), contrib_cases()):
        if args.names and c["name"] not in args.names:
            continue
        why = run(args, c)
        print("%-28s %s-%d: %s" % (c["name"], c["op"], c["opset"], why or "passed"))
        passed += why is None
        failed += why is not None
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
