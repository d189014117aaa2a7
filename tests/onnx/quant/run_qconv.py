#!/usr/bin/python3
"""QDQ convolutions (DequantizeLinear -> Conv -> QuantizeLinear, as
quantizers write them) through kiln-compile and kiln-run, exact against a
scalar reference of ONNX Runtime's QLinearConv arithmetic:
  acc = sum (xq - zx) * (wq - zw[m])                   (int64)
  y   = clamp(roundeven(f32(acc + bias[m]) * f32(f32(sx * sw[m]) / sy)) + zy)
Every output byte must equal the reference's (the integer path and the
float path in integer units both compute this exactly).

Cases cover the int8 forms of compiler/input/onnx/import_qdq.c and the
shapes they decline: convolutions that run as an i8 matmul on vector.dot4
(the flow IR must then hold an i8 linalg.matmul): 1x1, 3x3 and 5x5
windows, stride 1 and 2, padding 0 to 2 (the pad byte must stand for k =
0), batch 2, input channels not multiples of 4 or 16 (padded to a multiple
of 4: RGB stems, 1, 5, 7, 13 channels), zero points 0, 128, 200, 255 (u8
activations) and -128, 3, 5, 127 (i8), 16 output channels (one column
tile), 8, 24, 40 and 1000 (padded to a multiple of 16, sliced off).
Depthwise convolutions (group = C = M) run over bytes (the flow IR must
then hold a linalg.depthwise_conv_2d_nhwc_hwc of i8 input): channel
counts not multiples of 4 or 16, 3x3 and 5x5 windows, stride 2,
dilation 2, padding 0 to 2, batch 2, zero points 0/128/200/255 and
-128/5; grouped convolutions with several channels per group, and
depthwise ones with a channel multiplier of 2, keep the float form in
integer units and must stay exact too.

Each case runs in the QOperator form too (one QLinearConv with the same
weights, bias and scales, import_qdq.c's oi_qdq_qlinear): the same
reference, exact, on the same paths.

Residual chains (CHAINS): conv A -> QuantizeLinear ya, whose
DequantizeLinears feed conv B (1x1, A's channels) and an Add with B's
dequantized output, quantized again, MobileNetV2's inverted residual in
QDQ: odd channel counts, padded output channels, batch 2, u8 and i8.
The sum is quantized and read by a 1x1 conv C, as the next block's.
The output must equal the reference's (the same f32 steps), and (output
channels a multiple of 16) no i32 sums but C's may be stored: A's
requantization joins A's product (the add reads ya's bytes, not A's
sums recomputed), and the add joins B's product as its epilogue.

usage: run_qconv.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Exit 0 when every case that ran is exact, 1 otherwise, 77 (skip) without
python3-onnx.
"""
import os
import subprocess
import sys

import numpy as np

try:
    from onnx import TensorProto, helper, numpy_helper
except ImportError:  # scripts/bootstrap.sh installs python3-onnx
    print("skipped: python3-onnx is not installed")
    sys.exit(77)

# (name, N, C, H, W, M, k, stride, pad, x dtype, zx, path expected:
#  True the i8 matmul, "dw" the depthwise convolution over bytes,
#  False neither[, group, dilation])
CASES = [
    ("pw_u8_z128", 1, 32, 7, 7, 128, 1, 1, 0, "u8", 128, True),
    ("pw_b2_c20_z0", 2, 20, 5, 3, 192, 1, 1, 0, "u8", 0, True),
    ("pw_c100_z255", 1, 100, 3, 5, 256, 1, 1, 0, "u8", 255, True),
    ("pw_i8_zm128", 2, 12, 4, 4, 128, 1, 1, 0, "i8", -128, True),
    ("pw_i8_z5", 1, 64, 6, 2, 320, 1, 1, 0, "i8", 5, True),
    ("pw_m48", 2, 16, 3, 3, 48, 1, 1, 0, "u8", 128, True),
    ("pw_s2", 1, 16, 7, 7, 128, 1, 2, 0, "u8", 128, True),
    ("k3_s2_p1", 2, 12, 9, 7, 128, 3, 2, 1, "u8", 200, True),
    ("k3_p1_i8", 1, 8, 5, 5, 64, 3, 1, 1, "i8", -128, True),
    ("k3_p1_z255", 2, 20, 6, 5, 96, 3, 1, 1, "u8", 255, True),
    ("k5_s2_p2_z0", 1, 4, 11, 9, 32, 5, 2, 2, "u8", 0, True),
    ("k3_s1_p0_i8", 2, 16, 6, 6, 32, 3, 1, 0, "i8", 3, True),
    # input channels not a multiple of 4: padded to one (zero weights),
    # the RGB stems (3 x 7 x 7 stride 2, 3 x 3 x 3 stride 2) among them
    ("pw_c13", 1, 13, 4, 4, 128, 1, 1, 0, "u8", 7, True),
    ("k7_c3_s2_p3", 1, 3, 15, 15, 64, 7, 2, 3, "u8", 114, True),
    ("k3_c3_s2_p1_b2", 2, 3, 9, 8, 32, 3, 2, 1, "u8", 0, True),
    ("k3_c5_p1_i8", 1, 5, 6, 7, 48, 3, 1, 1, "i8", -128, True),
    ("k5_c1_s2_z255", 2, 1, 9, 9, 32, 5, 2, 2, "u8", 255, True),
    ("pw_c7_s2_i8", 2, 7, 5, 6, 64, 1, 2, 0, "i8", 127, True),
    # 16 output channels: one column tile, packed whole
    ("pw_m16", 2, 16, 3, 3, 16, 1, 1, 0, "i8", -128, True),
    ("k3_m16_s2_c6", 2, 6, 9, 7, 16, 3, 2, 1, "u8", 255, True),
    # output channels not a multiple of 16: padded with zero weights to
    # one, the extra columns sliced off the product
    ("k3_m24", 1, 16, 5, 5, 24, 3, 1, 1, "u8", 128, True),
    ("pw_m40_i8_b2", 2, 24, 4, 5, 40, 1, 1, 0, "i8", -128, True),
    ("k3_m8_s2_c3", 1, 3, 9, 9, 8, 3, 2, 1, "u8", 255, True),
    ("pw_m1000", 1, 64, 1, 1, 1000, 1, 1, 0, "u8", 3, True),
    ("dw_c96_s2_z128", 1, 96, 9, 9, 96, 3, 2, 1, "u8", 128, "dw", 96),
    ("dw_b2_c21_z0", 2, 21, 7, 6, 21, 3, 1, 1, "u8", 0, "dw", 21),
    ("dw_c37_k5_s2_z255", 1, 37, 8, 7, 37, 5, 2, 2, "u8", 255, "dw", 37),
    ("dw_b2_c19_i8_zm128", 2, 19, 6, 6, 19, 3, 1, 1, "i8", -128, "dw", 19),
    ("dw_c40_p0_i8_z5", 1, 40, 5, 9, 40, 3, 1, 0, "i8", 5, "dw", 40),
    ("dw_c2_d2_z200", 1, 2, 9, 9, 2, 3, 1, 2, "u8", 200, "dw", 2, 2),
    # not the byte path: several channels per group, channel multiplier 2
    ("g4_c16_m32", 1, 16, 6, 5, 32, 3, 1, 1, "u8", 128, False, 4),
    ("dw_mult2_c8", 2, 8, 5, 5, 16, 3, 2, 1, "u8", 17, False, 8),
]


def fields(case):
    """case plus its group and dilation (1 when not given)"""
    return case[:12] + (case[12] if len(case) > 12 else 1, case[13] if len(case) > 13 else 1)


def model(case, rng):
    name, n, c, h, w, m, k, s, p, xd, zx, _, g, d = fields(case)
    xt = TensorProto.UINT8 if xd == "u8" else TensorProto.INT8
    lo, hi = (0, 255) if xd == "u8" else (-128, 127)
    sx = np.float32(rng.uniform(0.01, 0.05))
    wq = rng.integers(-127, 128, (m, c // g, k, k)).astype(np.int8)
    wq[0, 0, 0, 0], wq[-1, -1, -1, -1] = -127, 127
    sw = rng.uniform(0.002, 0.02, m).astype(np.float32)
    bq = rng.integers(-3000, 3000, m).astype(np.int32)
    bs = (sx * sw).astype(np.float32)
    # the output scale spreads acc over about the u8 range
    sy = np.float32(sx * np.float32(sw.mean()) * np.sqrt(c // g * k * k) * 120 / 64)
    zy = np.uint8(128)
    inits = [
        numpy_helper.from_array(np.array(sx, np.float32), "sx"),
        numpy_helper.from_array(np.array(zx, np.uint8 if xd == "u8" else np.int8), "zx"),
        numpy_helper.from_array(wq, "wq"),
        numpy_helper.from_array(sw, "sw"),
        numpy_helper.from_array(np.zeros(m, np.int8), "zw"),
        numpy_helper.from_array(bq, "bq"),
        numpy_helper.from_array(bs, "bs"),
        numpy_helper.from_array(np.zeros(m, np.int32), "zb"),
        numpy_helper.from_array(np.array(sy, np.float32), "sy"),
        numpy_helper.from_array(np.array(zy, np.uint8), "zy"),
    ]
    nodes = [
        helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["x"]),
        helper.make_node("DequantizeLinear", ["wq", "sw", "zw"], ["w"], axis=0),
        helper.make_node("DequantizeLinear", ["bq", "bs", "zb"], ["b"], axis=0),
        helper.make_node("Conv", ["x", "w", "b"], ["y"], kernel_shape=[k, k], strides=[s, s],
                         pads=[p, p, p, p], group=g, dilations=[d, d]),
        helper.make_node("QuantizeLinear", ["y", "sy", "zy"], ["yq"]),
    ]
    ek = (k - 1) * d + 1
    oh, ow = (h + 2 * p - ek) // s + 1, (w + 2 * p - ek) // s + 1
    gr = helper.make_graph(nodes, name, [helper.make_tensor_value_info("xq", xt, [n, c, h, w])],
                           [helper.make_tensor_value_info("yq", TensorProto.UINT8, [n, m, oh, ow])], inits)
    mdl = helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)])
    mdl.ir_version = 8
    xq = rng.integers(lo, hi + 1, (n, c, h, w)).astype(np.uint8 if xd == "u8" else np.int8)
    xq.flat[0], xq.flat[-1] = lo, hi
    return mdl, xq, (wq, sw, bq, sy, zy, sx)


def qlinear_model(case, mdl):
    """The QOperator form of a CASES model: one QLinearConv with the same
    quantized weights, int32 bias and scales (what ONNX Runtime's quantizer
    writes in that format); the same reference holds."""
    name, n, c, h, w, m, k, s, p, xd, zx, _, g, d = fields(case)
    inits = [i for i in mdl.graph.initializer if i.name not in ("bs", "zb")]
    node = helper.make_node("QLinearConv", ["xq", "sx", "zx", "wq", "sw", "zw", "sy", "zy", "bq"], ["yq"],
                            kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], group=g, dilations=[d, d])
    gr = helper.make_graph([node], name + "_qlinear", list(mdl.graph.input), list(mdl.graph.output), inits)
    q = helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)])
    q.ir_version = 8
    return q


def reference(case, xq, params):
    """QLinearConv's arithmetic, one output element at a time in numpy."""
    _, n, c, h, w, m, k, s, p, _, zx, _, g, d = fields(case)
    wq, sw, bq, sy, zy, sx = params
    xp = np.zeros((n, c, h + 2 * p, w + 2 * p), np.int64)
    xp[:, :, p:p + h, p:p + w] = xq.astype(np.int64) - zx
    ek = (k - 1) * d + 1
    oh, ow = (h + 2 * p - ek) // s + 1, (w + 2 * p - ek) // s + 1
    acc = np.zeros((n, m, oh, ow), np.int64)
    w64 = wq.astype(np.int64)
    cg, mg = c // g, m // g
    for i in range(oh):
        for j in range(ow):
            win = xp[:, :, i * s:i * s + ek:d, j * s:j * s + ek:d]
            for gi in range(g):
                acc[:, gi * mg:(gi + 1) * mg, i, j] = np.einsum(
                    "nckl,mckl->nm", win[:, gi * cg:(gi + 1) * cg], w64[gi * mg:(gi + 1) * mg])
    acc += bq.astype(np.int64)[None, :, None, None]
    mult = (np.float32(sx) * sw).astype(np.float32) / np.float32(sy)
    v = acc.astype(np.float32) * mult.astype(np.float32)[None, :, None, None]
    return np.clip(np.rint(v).astype(np.int64) + int(zy), 0, 255).astype(np.uint8)


# Residual chains: (name, N, C, H, W, M, k, stride, pad, act dtype, zx)
CHAINS = [
    ("res_b2_c13_m48", 2, 13, 5, 6, 48, 1, 1, 0, "u8", 131),
    ("res_k3_s2_c7_m32_b2", 2, 7, 9, 8, 32, 3, 2, 1, "u8", 0),
    ("res_c16_m32_i8", 1, 16, 4, 5, 32, 1, 1, 0, "i8", -3),
    # padded output channels: exact; the slice of the padded product
    # still stores sums (not fused yet), so the dispatch check is off
    ("res_b2_c13_m24", 2, 13, 5, 6, 24, 1, 1, 0, "u8", 131),
    ("res_k3_s2_c5_m40_i8", 2, 5, 9, 8, 40, 3, 2, 1, "i8", 100),
]


def chain_conv(rng, tag, src, s_in, ci, m, kk, st, pp, lo, hi, adt, inits, nodes):
    """Nodes of DequantizeLinear'd weights and bias, Conv of src (scale
    s_in), QuantizeLinear to y<tag>q and its DequantizeLinear y<tag>d;
    returns the parameters chain_reference needs."""
    wq = rng.integers(-127, 128, (m, ci, kk, kk)).astype(np.int8)
    sw = rng.uniform(0.002, 0.02, m).astype(np.float32)
    bq = rng.integers(-3000, 3000, m).astype(np.int32)
    bs = (s_in * sw).astype(np.float32)
    sy = np.float32(s_in * np.float32(sw.mean()) * np.sqrt(ci * kk * kk) * 120 / 64)
    zy = np.array(rng.integers(lo + 100, hi - 100), adt)
    inits += [numpy_helper.from_array(wq, "wq" + tag), numpy_helper.from_array(sw, "sw" + tag),
              numpy_helper.from_array(np.zeros(m, np.int8), "zw" + tag),
              numpy_helper.from_array(bq, "bq" + tag), numpy_helper.from_array(bs, "bs" + tag),
              numpy_helper.from_array(np.zeros(m, np.int32), "zb" + tag),
              numpy_helper.from_array(np.array(sy, np.float32), "sy" + tag),
              numpy_helper.from_array(zy, "zy" + tag)]
    nodes += [helper.make_node("DequantizeLinear", ["wq" + tag, "sw" + tag, "zw" + tag], ["w" + tag], axis=0),
              helper.make_node("DequantizeLinear", ["bq" + tag, "bs" + tag, "zb" + tag], ["b" + tag], axis=0),
              helper.make_node("Conv", [src, "w" + tag, "b" + tag], ["y" + tag], kernel_shape=[kk, kk],
                               strides=[st, st], pads=[pp] * 4),
              helper.make_node("QuantizeLinear", ["y" + tag, "sy" + tag, "zy" + tag], ["y%sq" % tag]),
              # one DequantizeLinear per reader, as quantizers write them
              helper.make_node("DequantizeLinear", ["y%sq" % tag, "sy" + tag, "zy" + tag], ["y%sd" % tag])]
    return (wq, sw, bq, sy, int(zy), s_in, ci, kk, st, pp)


def chain_model(case, rng):
    """Conv A -> Q ya -> (DQ -> conv B -> Q yb -> DQ) + DQ ya -> Q sum ->
    DQ -> conv C -> Q out (C keeps the add channels-last, as the next
    block's convolution does in a network)."""
    name, n, c, h, w, m, k, s, p, xd, zx = case
    xt = TensorProto.UINT8 if xd == "u8" else TensorProto.INT8
    adt = np.uint8 if xd == "u8" else np.int8
    lo, hi = (0, 255) if xd == "u8" else (-128, 127)
    sx = np.float32(rng.uniform(0.01, 0.05))
    inits = [numpy_helper.from_array(np.array(sx, np.float32), "sx"),
             numpy_helper.from_array(np.array(zx, adt), "zx")]
    nodes = [helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["x"])]
    a = chain_conv(rng, "a", "x", sx, c, m, k, s, p, lo, hi, adt, inits, nodes)
    b = chain_conv(rng, "b", "yad", a[3], m, m, 1, 1, 0, lo, hi, adt, inits, nodes)
    so = np.float32(a[3] * 1.5)
    zo = np.array((lo + hi + 1) // 2, adt)
    inits += [numpy_helper.from_array(np.array(so, np.float32), "so"), numpy_helper.from_array(zo, "zo")]
    nodes += [helper.make_node("DequantizeLinear", ["yaq", "sya", "zya"], ["ya2"]),
              helper.make_node("Add", ["ya2", "ybd"], ["sum"]),
              helper.make_node("QuantizeLinear", ["sum", "so", "zo"], ["sumq"]),
              helper.make_node("DequantizeLinear", ["sumq", "so", "zo"], ["sumd"])]
    cc = chain_conv(rng, "c", "sumd", so, m, m, 1, 1, 0, lo, hi, adt, inits, nodes)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    gr = helper.make_graph(nodes, name, [helper.make_tensor_value_info("xq", xt, [n, c, h, w])],
                           [helper.make_tensor_value_info("ycq", xt, [n, m, oh, ow])], inits)
    mdl = helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)])
    mdl.ir_version = 8
    xq = rng.integers(lo, hi + 1, (n, c, h, w)).astype(adt)
    return mdl, xq, ((a, b, cc), so, int(zo), zx, lo, hi, adt)


def ref_conv(x, zin, conv, lo, hi):
    """One QDQ convolution in QLinearConv's arithmetic (int64 sums)."""
    wq, sw, bq, sy, zy, s_in, ci, kk, st, pp = conv
    n, _, h, w = x.shape
    xp = np.zeros((n, ci, h + 2 * pp, w + 2 * pp), np.int64)
    xp[:, :, pp:pp + h, pp:pp + w] = x - zin
    oh, ow = (h + 2 * pp - kk) // st + 1, (w + 2 * pp - kk) // st + 1
    acc = np.zeros((n, wq.shape[0], oh, ow), np.int64)
    for i in range(oh):
        for j in range(ow):
            acc[:, :, i, j] = np.einsum("nckl,mckl->nm", xp[:, :, i * st:i * st + kk, j * st:j * st + kk],
                                        wq.astype(np.int64))
    acc += bq.astype(np.int64)[None, :, None, None]
    mult = (np.float32(s_in) * sw).astype(np.float32) / np.float32(sy)
    v = acc.astype(np.float32) * mult[None, :, None, None]
    return np.clip(np.rint(v).astype(np.int64) + zy, lo, hi)


def chain_reference(xq, params):
    """The chain: convolutions in QLinearConv's arithmetic, the add in f32."""
    (a, b, cc), so, zo, zx, lo, hi, adt = params
    ya = ref_conv(xq.astype(np.int64), zx, a, lo, hi)
    yb = ref_conv(ya, a[4], b, lo, hi)
    total = (ya - a[4]).astype(np.float32) * np.float32(a[3]) + (yb - b[4]).astype(np.float32) * np.float32(b[3])
    sq = np.clip(np.rint(total / np.float32(so)).astype(np.int64) + zo, lo, hi)
    return ref_conv(sq, zo, cc, lo, hi).astype(adt)


def run_case(kc, kr, work, device, name, mdl, xq, ref, check_flow, failures, not_run):
    """Compiles mdl (check_flow(name, flow IR lines) appends what the flow
    IR lacks), runs it on xq and compares with ref; True when exact."""
    src, mod = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".kiln")
    with open(src, "wb") as f:
        f.write(mdl.SerializeToString())
    r = subprocess.run([kc, src, "--compile-to=flow", "-o", "-"], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s: kiln-compile --compile-to=flow failed:\n%s" % (name, r.stderr[-3000:]))
        return False
    failures += check_flow(name, r.stdout.splitlines())
    r = subprocess.run([kc, src, "-o", mod], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s: kiln-compile failed:\n%s" % (name, r.stderr[-3000:]))
        return False
    xin, out = os.path.join(work, name + ".x.npy"), os.path.join(work, name + ".out.npy")
    np.save(xin, xq)
    r = subprocess.run([kr, "--module=" + mod, "--device=" + device, "--input=@" + xin, "--output=@" + out],
                       capture_output=True, text=True)
    # Under KILN_CPU_FEATURES the runtime may refuse the host variant.
    if r.returncode != 0 and ("this host lacks" in r.stderr or "has no variant device" in r.stderr):
        not_run.append("%s: %s" % (name, r.stderr.strip().splitlines()[-1]))
        return False
    if r.returncode != 0:
        failures.append("%s: kiln-run failed:\n%s" % (name, r.stderr[-3000:]))
        return False
    got = np.load(out)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        failures.append("%s: got %s %s, expected %s %s" % (name, got.dtype, got.shape, ref.dtype, ref.shape))
        return False
    if not (got == ref).all():
        d = np.abs(got.astype(np.int64) - ref)
        failures.append("%s: %d of %d elements differ (max %d steps)" % (name, int((d > 0).sum()), d.size,
                                                                         int(d.max())))
        return False
    return True


def conv_paths(int8):
    """check_flow of a CASES entry: the kernel path expected"""
    def check(name, lines):
        mm = any("linalg.matmul" in ln and "xi8>" in ln for ln in lines)
        dw = any("linalg.depthwise_conv_2d_nhwc_hwc" in ln and "xi8>" in ln for ln in lines)
        out = []
        if mm != (int8 is True):
            out.append("%s: the flow IR %s an i8 linalg.matmul" % (name, "holds" if mm else "lacks"))
        if dw != (int8 == "dw"):
            out.append("%s: the flow IR %s a depthwise convolution of bytes" % (name, "holds" if dw else "lacks"))
        return out
    return check


def chain_stores(m):
    """check_flow of a CHAINS entry with m output channels: the dispatches'
    stored tensors. More i32 sums than C's (whose requantization writes the
    graph's NCHW output, a transposing epilogue not fused) would mean a
    requantization (A's) or the add (B's epilogue) left to a dispatch of
    its own; not checked for padded output channels (see CHAINS)."""
    def check(name, lines):
        i32 = [ln for ln in lines if "flow.dispatch.tensor.store" in ln and "xi32>" in ln]
        if m % 16 == 0 and len(i32) > 1:
            return ["%s: %d dispatches store i32 sums (C's at most)" % (name, len(i32))]
        return []
    return check


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    kc, kr, work, device = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(2024)
    failures, ran, not_run = [], 0, []
    for case in CASES:
        mdl, xq, params = model(case, rng)
        ref = reference(case, xq, params)
        ran += run_case(kc, kr, work, device, case[0], mdl, xq, ref, conv_paths(case[11]), failures, not_run)
        ran += run_case(kc, kr, work, device, case[0] + "_qlinear", qlinear_model(case, mdl), xq, ref,
                        conv_paths(case[11]), failures, not_run)
    for case in CHAINS:
        mdl, xq, params = chain_model(case, rng)
        ran += run_case(kc, kr, work, device, case[0], mdl, xq, chain_reference(xq, params), chain_stores(case[5]),
                        failures, not_run)
    for s in not_run:
        print("not run (compiled and checked only): " + s)
    for f in failures:
        print("FAIL " + f)
    print("%d cases exact, %d compiled only, %d failures" % (ran, len(not_run), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
