#!/usr/bin/python3
"""ONNX Runtime's QOperator elementwise ops and pools (com.microsoft
QLinearAdd, QLinearMul, QLinearAveragePool, QLinearGlobalAveragePool,
compiler/input/onnx/import_qlinear.c) through kiln-compile and kiln-run,
against ONNX Runtime running the same one-node models and against a numpy
reference of the ops' definition (dequantize in f32, the float op,
quantize: roundeven(y / scale) + zero point, saturated).

Every output element must be at most one quantization step from ONNX
Runtime's (its kernels fold the scales or use fixed point, so a value
next to a rounding tie may land one step away) and from the reference,
and the output type and shape must be ORT's. Cases: u8 and i8, zero
points 0 / 128 / 255 and -128 / 127 / absent (absent A and B zero points,
which ORT's type inference refuses, against the reference only), numpy broadcasting (a
rank-0 and a [C, 1] operand), saturating products, scales as graph
inputs, pools with stride 2, padding, ceil_mode, count_include_pad,
batch 2, odd channel counts, channels_last; and parameters of the wrong
shape or type, which kiln-compile must refuse naming the tensor.
QLinearMatMul with a constant B (the QOperator Linear layer) runs the i8
matmul of the QDQ forms (N padded to 16, per-column B scales, u8 B with
zero point 128) and must equal its integer reference exactly; a K not a
multiple of 4 keeps the generic widening path, exact too.

usage: run_qlinear.py KILN_COMPILE KILN_RUN WORKDIR DEVICE [NODE_MODULES]
Exit 0 when every case passes, 1 otherwise, 77 (skip) without
python3-onnx or ONNX Runtime.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "ort"))
try:
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # scripts/bootstrap.sh installs python3-onnx
    print("skipped: python3-onnx is not installed")
    sys.exit(77)
import kiln_ort  # noqa: E402

F = np.float32
TYPES = {"u8": (np.uint8, TensorProto.UINT8, 0, 255), "i8": (np.int8, TensorProto.INT8, -128, 127)}

# ONNX Runtime's type inference refuses an absent A or B zero point (only
# C's may be left out): such cases are checked against the reference only
REF_ONLY = {"add_u8_no_zp"}

# binary cases: (name, op, type, A shape, B shape, (sa, za), (sb, zb),
# (sc, zc), scales as graph inputs); a zero point None is absent
BINARY = [
    ("add_u8", "QLinearAdd", "u8", (2, 3, 5, 7), (2, 3, 5, 7), (0.05, 100), (0.03, 7), (0.07, 128), False),
    ("add_i8_bcast", "QLinearAdd", "i8", (2, 1, 5), (4, 1), (0.02, -128), (0.1, 127), (0.09, 3), False),
    ("add_u8_scalar_b", "QLinearAdd", "u8", (3, 17), (), (0.011, 255), (0.5, 0), (0.013, 0), False),
    ("add_u8_no_zp", "QLinearAdd", "u8", (5, 9), (9,), (0.04, None), (0.06, None), (0.05, None), False),
    ("add_u8_no_czp", "QLinearAdd", "u8", (5, 9), (9,), (0.04, 3), (0.06, 250), (0.05, None), False),
    ("add_u8_inputs", "QLinearAdd", "u8", (2, 13), (2, 13), (0.05, 128), (0.021, 90), (0.04, 77), True),
    ("mul_u8", "QLinearMul", "u8", (2, 3, 4, 5), (2, 3, 4, 5), (0.05, 128), (0.04, 120), (0.02, 10), False),
    ("mul_i8_bcast_sat", "QLinearMul", "i8", (2, 3, 11), (3, 1), (0.3, 5), (0.2, -7), (0.01, -3), False),
    ("mul_u8_scalar_b", "QLinearMul", "u8", (7, 6), (), (0.02, 0), (0.03, 255), (0.015, 200), False),
]

# QLinearMatMul with a constant B (QOperator Linear layers): (name, A
# shape, K, N, A type, za, B type, zb per column?, path expected: the i8
# matmul or not). Checked exactly against QLinearConv-style arithmetic
# (int64 sums, f32(f32(sa * sb[n]) / sy) multiplier) and within one step
# of ONNX Runtime.
MATMUL = [
    ("qmm_u8_k64_n48", (2, 3, 64), 64, 48, "u8", 128, "i8", False, True),
    ("qmm_u8_n40_perchan", (5, 24), 24, 40, "u8", 3, "i8", True, True),
    ("qmm_i8_k32_n16", (7, 32), 32, 16, "i8", -5, "i8", True, True),
    ("qmm_u8w_zp128", (4, 16), 16, 64, "u8", 255, "u8", False, True),
    ("qmm_k10_declined", (3, 10), 10, 16, "u8", 7, "i8", False, False),
]

# pool cases: (name, op, type, X shape, attributes, (sx, zx), (sy, zy));
# X's shape is as given (channels last when the attribute says so)
POOL = [
    ("avg_u8_k3_s2_p1", "QLinearAveragePool", "u8", (2, 5, 9, 7),
     dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]), (0.05, 128), (0.04, 120)),
    ("avg_i8_k2_s2_last", "QLinearAveragePool", "i8", (1, 6, 8, 13),
     dict(kernel_shape=[2, 2], strides=[2, 2], channels_last=1), (0.03, -5), (0.03, 2)),
    ("avg_u8_ceil_incpad", "QLinearAveragePool", "u8", (2, 3, 7, 8),
     dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1, count_include_pad=1),
     (0.1, 0), (0.07, 255)),
    ("gap_u8", "QLinearGlobalAveragePool", "u8", (2, 7, 5, 5), {}, (0.02, 128), (0.005, 100)),
    ("gap_i8_last", "QLinearGlobalAveragePool", "i8", (1, 4, 4, 13), dict(channels_last=1), (0.05, 127),
     (0.02, -128)),
    ("gap_u8_7x7", "QLinearGlobalAveragePool", "u8", (1, 1280, 7, 7), {}, (0.03, 0), (0.01, 0)),
]


def init(name, v):
    return numpy_helper.from_array(np.asarray(v), name)


def q_params(prefix, sz, t, inits, names, graph_inputs):
    """Adds the scale and zero point of one tensor; appends their names
    (zero point '' when absent)."""
    s, z = sz
    np_t = TYPES[t][0]
    if graph_inputs:
        graph_inputs.append((prefix + "_s", F(s)))
        graph_inputs.append((prefix + "_z", np_t(z)))
    else:
        inits.append(init(prefix + "_s", F(s)))
        if z is not None:
            inits.append(init(prefix + "_z", np_t(z)))
    names += [prefix + "_s", prefix + "_z" if z is not None else ""]


def make_model(op, t, xs, yshape, node_inputs, inits, attrs, extra_inputs):
    np_t, onnx_t = TYPES[t][0], TYPES[t][1]
    ins = [helper.make_tensor_value_info(n, onnx_t, list(v.shape)) for n, v in xs]
    for n, v in extra_inputs:
        ins.append(helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), list(v.shape)))
    node = helper.make_node(op, node_inputs, ["y"], domain="com.microsoft", **attrs)
    g = helper.make_graph([node], op, ins, [helper.make_tensor_value_info("y", onnx_t, list(yshape))], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    m.ir_version = 8
    return m


def dequant(x, sz):
    s, z = sz
    return (x.astype(np.int32) - (z or 0)).astype(F) * F(s)


def quant(y, sz, t):
    s, z = sz
    lo, hi = TYPES[t][2], TYPES[t][3]
    return np.clip(np.rint(y.astype(F) / F(s)).astype(np.int64) + (z or 0), lo, hi).astype(TYPES[t][0])


def ref_pool(x, op, attrs):
    """The float pool (NCHW), as ONNX defines AveragePool."""
    if op == "QLinearGlobalAveragePool":
        return x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    kh, kw = attrs["kernel_shape"]
    sh, sw = attrs.get("strides", [1, 1])
    pt, pl, pb, pr = attrs.get("pads", [0, 0, 0, 0])
    cip, ceil = attrs.get("count_include_pad", 0), attrs.get("ceil_mode", 0)
    n, c, h, w = x.shape

    def out(i, k, s, p):
        return (i + p - k + (s - 1 if ceil else 0)) // s + 1
    oh = out(h, kh, sh, pt + pb)
    ow = out(w, kw, sw, pl + pr)
    # ONNX: with ceil_mode, a window that starts in the end padding is dropped
    if ceil and (oh - 1) * sh >= h + pt:
        oh -= 1
    if ceil and (ow - 1) * sw >= w + pl:
        ow -= 1
    y = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * sh - pt, j * sw - pl
            r1, c1 = r0 + kh, c0 + kw
            win = x[:, :, max(r0, 0):min(r1, h), max(c0, 0):min(c1, w)].astype(np.float64)
            if cip:
                cnt = (min(r1, h + pb) - r0) * (min(c1, w + pr) - c0)
            else:
                cnt = win.shape[2] * win.shape[3]
            y[:, :, i, j] = win.sum(axis=(2, 3)) / cnt
    return y


def run_kiln(kc, kr, work, device, name, model, feeds):
    src, mod = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".kiln")
    with open(src, "wb") as f:
        f.write(model.SerializeToString())
    r = subprocess.run([kc, src, "-o", mod], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "kiln-compile failed:\n" + r.stderr[-3000:]
    args = [kr, "--module=" + mod, "--device=" + device]
    for i, (n, v) in enumerate(feeds):
        p = os.path.join(work, "%s.in%d.npy" % (name, i))
        np.save(p, v)
        args.append("--input=@" + p)
    out = os.path.join(work, name + ".out.npy")
    r = subprocess.run(args + ["--output=@" + out], capture_output=True, text=True)
    if r.returncode != 0 and ("this host lacks" in r.stderr or "has no variant device" in r.stderr):
        return None, "not run: " + r.stderr.strip().splitlines()[-1]
    if r.returncode != 0:
        return None, "kiln-run failed:\n" + r.stderr[-3000:]
    return np.load(out), None


def compare(name, got, ort, ref, failures):
    if got.dtype != ort.dtype or got.shape != ort.shape:
        failures.append("%s: got %s %s, ONNX Runtime %s %s" % (name, got.dtype, got.shape, ort.dtype, ort.shape))
        return
    g = got.astype(np.int64)
    d_ort, d_ref = np.abs(g - ort.astype(np.int64)), np.abs(g - ref.astype(np.int64))
    print("%s: %d elements, %d differ from ONNX Runtime, %d from the reference (max %d / %d steps)"
          % (name, g.size, int((d_ort > 0).sum()), int((d_ref > 0).sum()), int(d_ort.max()), int(d_ref.max())))
    if d_ort.max() > 1 or d_ref.max() > 1:
        failures.append("%s: more than one step off (ONNX Runtime %d, reference %d)"
                        % (name, int(d_ort.max()), int(d_ref.max())))


def matmul_checks(kc, src, case, got, ref, failures):
    """QLinearMatMul: exact against the reference, and on the i8 matmul
    (the 8-bit kernels, import_qdq.c) exactly where expected."""
    name, int8 = case[0], case[-1]
    if got.shape == ref.shape and not (got == ref).all():
        failures.append("%s: %d elements differ from the reference" % (name, int((got != ref).sum())))
    r = subprocess.run([kc, src, "--compile-to=flow", "-o", "-"], capture_output=True, text=True)
    mm = any("linalg.matmul" in ln and "xi8>" in ln for ln in r.stdout.splitlines())
    if r.returncode != 0 or mm != int8:
        failures.append("%s: the flow IR %s an i8 linalg.matmul" % (name, "holds" if mm else "lacks"))


def binary_case(case, rng):
    name, op, t, sa_shape, sb_shape, pa, pb, pc, as_inputs = case
    np_t, _, lo, hi = TYPES[t]
    a = rng.integers(lo, hi + 1, sa_shape).astype(np_t)
    b = rng.integers(lo, hi + 1, sb_shape).astype(np_t)
    inits, names, extra = [], ["a"], [] if as_inputs else None
    q_params("a", pa, t, inits, names, extra)
    names.append("b")
    q_params("b", pb, t, inits, names, extra)
    q_params("c", pc, t, inits, names, extra)
    while names[-1] == "":
        names.pop()
    fa, fb = dequant(a, pa), dequant(b, pb)
    ref = quant(fa + fb if op == "QLinearAdd" else fa * fb, pc, t)
    m = make_model(op, t, [("a", a), ("b", b)], ref.shape, names, inits, {}, extra or [])
    return m, [("a", a), ("b", b)] + (extra or []), ref


def pool_case(case, rng):
    name, op, t, shape, attrs, px, py = case
    np_t, _, lo, hi = TYPES[t]
    x = rng.integers(lo, hi + 1, shape).astype(np_t)
    inits, names = [], ["x"]
    q_params("x", px, t, inits, names, None)
    q_params("y", py, t, inits, names, None)
    last = attrs.get("channels_last", 0)
    fx = dequant(x, px)
    if last:
        fx = fx.transpose(0, 3, 1, 2)
    fy = ref_pool(fx, op, attrs)
    if last:
        fy = fy.transpose(0, 2, 3, 1)
    ref = quant(fy.astype(F), py, t)
    m = make_model(op, t, [("x", x)], ref.shape, names, inits, attrs, [])
    return m, [("x", x)], ref


def matmul_case(case, rng):
    name, ashape, K, N, at, za, bt, per_col, _ = case
    np_a, onnx_a, alo, ahi = TYPES[at]
    np_b, onnx_b, blo, bhi = TYPES[bt]
    a = rng.integers(alo, ahi + 1, ashape).astype(np_a)
    zb = np.full(N if per_col else 1, 128 if bt == "u8" else 0).astype(np_b)
    bq = (rng.integers(-127, 128, (K, N)) + zb.astype(np.int64)).astype(np_b)
    sa = F(rng.uniform(0.01, 0.05))
    sb = rng.uniform(0.002, 0.02, N if per_col else 1).astype(F)
    sy = F(sa * F(sb.mean()) * np.sqrt(K) * 120 / 64)
    zy = np_a(128 if at == "u8" else 0)  # Y has A's type, as ORT's kernels take it
    if not per_col:
        sb, zb = sb.reshape(()), zb.reshape(())
    inits = [init("a_s", sa), init("a_z", np_a(za)), init("bq", bq), init("b_s", sb), init("b_z", zb),
             init("y_s", sy), init("y_z", zy)]
    node = helper.make_node("QLinearMatMul", ["a", "a_s", "a_z", "bq", "b_s", "b_z", "y_s", "y_z"], ["y"])
    yshape = ashape[:-1] + (N,)
    g = helper.make_graph([node], name, [helper.make_tensor_value_info("a", onnx_a, list(ashape))],
                          [helper.make_tensor_value_info("y", onnx_a, list(yshape))], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    acc = (a.astype(np.int64) - za) @ (bq.astype(np.int64) - zb.astype(np.int64))
    mult = (sa * sb).astype(F) / sy
    ref = np.clip(np.rint(acc.astype(F) * mult.astype(F)).astype(np.int64) + int(zy), alo, ahi).astype(np_a)
    return m, [("a", a)], ref


def error_cases(kc, work, failures):
    """Parameters of the wrong shape or type: refused, naming the tensor."""
    u8 = TensorProto.UINT8
    bad = [
        ("bad_scale_shape", [init("a_s", np.array([0.1, 0.2], F)), init("b_s", F(0.1)), init("c_s", F(0.1))],
         "A's scale must hold one element"),
        ("bad_zp_type", [init("a_s", F(0.1)), init("b_s", F(0.1)), init("c_s", F(0.1)), init("c_z", np.int8(3))],
         "C's zero point is i8"),
    ]
    for name, inits, want in bad:
        names = ["a", "a_s", "", "b", "b_s", "", "c_s"] + (["c_z"] if any(i.name == "c_z" for i in inits) else [])
        node = helper.make_node("QLinearAdd", names, ["y"], domain="com.microsoft")
        g = helper.make_graph([node], name, [helper.make_tensor_value_info("a", u8, [4]),
                                             helper.make_tensor_value_info("b", u8, [4])],
                              [helper.make_tensor_value_info("y", u8, [4])], inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
        m.ir_version = 8
        src = os.path.join(work, name + ".onnx")
        with open(src, "wb") as f:
            f.write(m.SerializeToString())
        r = subprocess.run([kc, src, "-o", os.path.join(work, name + ".kiln")], capture_output=True, text=True)
        if r.returncode == 0 or want not in r.stderr or "QLinearAdd" not in r.stderr:
            failures.append("%s: kiln-compile must refuse it with '%s' naming the node; rc %d, stderr:\n%s"
                            % (name, want, r.returncode, r.stderr[-2000:]))
        else:
            print("%s: refused: %s" % (name, r.stderr.strip().splitlines()[-1]))


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__)
        return 2
    kc, kr, work, device = sys.argv[1:5]
    modules = sys.argv[5] if len(sys.argv) == 6 else None
    try:
        kiln_ort.find(modules)
    except kiln_ort.OrtMissing as e:
        print("skipped: %s" % e)
        return 77
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(24)
    failures, not_run = [], []
    cases = ([(c, binary_case) for c in BINARY] + [(c, pool_case) for c in POOL] +
             [(c, matmul_case) for c in MATMUL])
    for case, build in cases:
        name = case[0]
        m, feeds, ref = build(case, rng)
        got, err = run_kiln(kc, kr, work, device, name, m, feeds)
        if err:
            (not_run if err.startswith("not run") else failures).append("%s: %s" % (name, err))
            continue
        src = os.path.join(work, name + ".onnx")
        ort = ref if name in REF_ONLY else kiln_ort.run(src, dict(feeds), ["y"], modules)["y"]
        compare(name, got, ort, ref, failures)
        if build is matmul_case:
            matmul_checks(kc, src, case, got, ref, failures)
    error_cases(kc, work, failures)
    for n in not_run:
        print(n)
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
