"""GPU programs for convolutions through the shared-memory GEMM path
(gpu-tile-matmul-shared on conv_2d_nhwc_hwcf as an implicit GEMM: output
pixels x output channels x filter taps): strides, dilations, channel
counts that are and are not multiples of 4 (vector<4xf32> loads of the
input along c only when they are), output tiles that do not divide the
block tile, and a fused bias + relu after the convolution; and the same
for conv_2d_nchw_fchw (what the ONNX importer emits; implicit GEMM per
batch: output channels x output pixels x filter taps): strides,
dilations, 3 input channels, output channels that are not multiples of
the tile, zero padding by a tensor.pad of the input, bias + relu, a batch
of 2, and a 1x1 stride-1 convolution whose input and output move as
vector<4xf32>. Listed by run_gpu.py as gpuop.NAME; the PTX of every NCHW
case and of the aligned NHWC one is checked like matmul_tiles.py's
(shared-memory tiles, bar.sync; global v4 accesses exactly where
vector)."""
import os
import re
import shutil

import numpy as np

import matmul_tiles
import op_cases

T = op_cases.T


def conv_ref(x, f, strides, dilations):
    n, h, w, c = x.shape
    kh, kw, _, fo = f.shape
    (sh, sw), (dh, dw) = strides, dilations
    oh, ow = (h - (kh - 1) * dh - 1) // sh + 1, (w - (kw - 1) * dw - 1) // sw + 1
    x, f = x.astype(np.float64), f.astype(np.float64)
    out = np.zeros((n, oh, ow, fo))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw, :]
            out += np.tensordot(patch, f[i, j], axes=([3], [0]))
    return out


def conv_case(xs, fs, strides=(1, 1), dilations=(1, 1), bias_relu=False):
    def fn(r):
        x = r.uniform(-1, 1, xs).astype(np.float32)
        f = r.uniform(-1, 1, fs).astype(np.float32)
        o = conv_ref(x, f, strides, dilations)
        ot = T(o.shape)
        args = f"%x: {T(xs)}, %w: {T(fs)}"
        ins = [x, f]
        tail = f"  return %c : {ot}"
        if bias_relu:
            bias = r.uniform(-1, 1, o.shape).astype(np.float32)
            args += f", %bias: {ot}"
            ins.append(bias)
            tail = (f"  %s = arith.addf %c, %bias : {ot}\n"
                    f"  %zs = arith.constant dense<0.0> : {ot}\n"
                    f"  %o = arith.maximumf %s, %zs : {ot}\n"
                    f"  return %o : {ot}")
            o = np.maximum(o + bias, 0)
        src = f"""func.func @f({args}) -> {ot} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.conv_2d_nhwc_hwcf {{dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>, strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}} ins(%x, %w : {T(xs)}, {T(fs)}) outs(%z : {ot}) -> {ot}
{tail}
}}"""
        return src, ins, [o]
    return fn


def conv_nchw_ref(x, f, strides, dilations, pad):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    o = conv_ref(x.transpose(0, 2, 3, 1), f.transpose(2, 3, 1, 0), strides, dilations)
    return o.transpose(0, 3, 1, 2)


def conv_nchw_case(xs, fs, strides=(1, 1), dilations=(1, 1), pad=0, bias_relu=False):
    """conv_2d_nchw_fchw of xs (optionally zero-padded by pad on both
    spatial sides, as the ONNX importer pads) with filter fs; bias_relu adds
    a per-channel bias (broadcast by a linalg.generic) and a relu."""
    def fn(r):
        x = r.uniform(-1, 1, xs).astype(np.float32)
        f = r.uniform(-1, 1, fs).astype(np.float32)
        o = conv_nchw_ref(x, f, strides, dilations, pad)
        ot = T(o.shape)
        ps = (xs[0], xs[1], xs[2] + 2 * pad, xs[3] + 2 * pad)
        args = f"%x: {T(xs)}, %w: {T(fs)}"
        ins = [x, f]
        head = ""
        xin = "%x"
        if pad:
            head = (f"  %pv = arith.constant 0.0 : f32\n"
                    f"  %xp = tensor.pad %x low[0, 0, {pad}, {pad}] high[0, 0, {pad}, {pad}] {{\n"
                    f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
                    f"    tensor.yield %pv : f32\n"
                    f"  }} : {T(xs)} to {T(ps)}\n")
            xin = "%xp"
        tail = f"  return %c : {ot}"
        if bias_relu:
            bias = r.uniform(-1, 1, (fs[0],)).astype(np.float32)
            args += f", %bias: {T((fs[0],))}"
            ins.append(bias)
            tail = (f"  %e2 = tensor.empty() : {ot}\n"
                    f"  %o = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, "
                    f"affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], "
                    f"iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} "
                    f"ins(%c, %bias : {ot}, {T((fs[0],))}) outs(%e2 : {ot}) {{\n"
                    f"  ^bb0(%a: f32, %b: f32, %out: f32):\n"
                    f"    %s = arith.addf %a, %b : f32\n"
                    f"    %z0 = arith.constant 0.0 : f32\n"
                    f"    %m = arith.maximumf %s, %z0 : f32\n"
                    f"    linalg.yield %m : f32\n"
                    f"  }} -> {ot}\n"
                    f"  return %o : {ot}")
            o = np.maximum(o + bias.astype(np.float64)[None, :, None, None], 0)
        src = f"""func.func @f({args}) -> {ot} {{
{head}  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.conv_2d_nchw_fchw {{dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>, strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}} ins({xin}, %w : {T(ps)}, {T(fs)}) outs(%z : {ot}) -> {ot}
{tail}
}}"""
        return src, ins, [o]
    return fn


def conv_grouped_case(xs, ws, strides=(1, 1), dilations=(1, 1)):
    """The ONNX importer's Conv (groups, depthwise): a multiply-accumulate
    linalg.generic over (n, g, m, oh, ow | c, kh, kw) with X [N, G, C/G, H,
    W], W [G, M/G, C/G, KH, KW] and out [N, G, M/G, OH, OW]."""
    def fn(r):
        x = r.uniform(-1, 1, xs).astype(np.float32)
        w = r.uniform(-1, 1, ws).astype(np.float32)
        o = np.stack([conv_nchw_ref(x[:, g], w[g], strides, dilations, 0) for g in range(xs[1])], 1)
        ot = T(o.shape)
        (sh, sw), (dh, dw) = strides, dilations
        m = "affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (%s)>"
        maps = [m % f"d0, d1, d5, d3 * {sh} + d6 * {dh}, d4 * {sw} + d7 * {dw}",
                m % "d1, d2, d5, d6, d7", m % "d0, d1, d2, d3, d4"]
        its = ", ".join(['"parallel"'] * 5 + ['"reduction"'] * 3)
        src = f"""func.func @f(%x: {T(xs)}, %w: {T(ws)}) -> {ot} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.generic {{indexing_maps = [{", ".join(maps)}], iterator_types = [{its}]}} ins(%x, %w : {T(xs)}, {T(ws)}) outs(%z : {ot}) {{
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {ot}
  return %c : {ot}
}}"""
        return src, [x, w], [o]
    return fn


def ptx_checked_conv(gen, vector, fma=True):
    """matmul_tiles.ptx_checked for programs of one or several dispatches
    (a tensor.pad before the convolution): per SM, exactly one PTX holds
    the workgroup-memory tiles, and that one must also have bar.sync,
    shared loads, fma (unless fma is False: thread tiles narrower than 4
    columns accumulate with separate multiplies and adds), and global v4
    accesses exactly when vector is True."""
    def fn(r):
        text, ins, outs = gen(r)
        out = matmul_tiles.extract_ptx(text)
        for sm in ("sm_80", "sm_90"):
            texts = []
            for n in sorted(os.listdir(out)):
                if n.endswith("cuda_%s.ptx" % sm):
                    with open(os.path.join(out, n)) as f:
                        texts.append(f.read())
            tiled = [t for t in texts if re.search(r"\.shared \.align 16 \.b8 kiln_workgroup", t)]
            if len(tiled) != 1:
                raise AssertionError("%s: expected one PTX with shared tiles; got %d of %d"
                                     % (sm, len(tiled), len(texts)))
            t = tiled[0]
            for pat in (r"bar\.sync", r"ld\.shared\.", r"fma\.rn\.f32")[:3 if fma else 2]:
                if not re.search(pat, t):
                    raise AssertionError("%s PTX: no %s" % (sm, pat))
            v4 = [p for p in (r"ld\.global\.v4\.f32", r"st\.global\.v4\.f32") if re.search(p, t)]
            if (vector and len(v4) != 2) or (not vector and v4):
                raise AssertionError("%s PTX: global vector accesses %s, vector=%s" % (sm, v4, vector))
            print("PTX %s: the conv's dispatch has shared-memory tiles, barriers, fma%s"
                  % (sm, ", ld/st.global.v4.f32" if vector else ""))
        shutil.rmtree(out, ignore_errors=True)
        return text, ins, outs
    return fn


def nchw(xs, fs, vector=False, **kw):
    check = ptx_checked_conv if kw.get("pad") else matmul_tiles.ptx_checked
    return (check(conv_nchw_case(xs, fs, **kw), vector), 1e-4, 1e-4)


OP_CASES = {
    # c = 8, f = 16: vector<4xf32> loads of input, filter and output
    "conv_nhwc_2x18x20x8_3x3x16": (matmul_tiles.ptx_checked(
        conv_case((2, 18, 20, 8), (3, 3, 8, 16)), True), 1e-4, 1e-4),
    # c = 3: scalar input loads; strides and dilations
    "conv_nhwc_1x33x35x3_5x3x20_s2x1_d1x2": (conv_case((1, 33, 35, 3), (5, 3, 3, 20), (2, 1), (1, 2)),
                                             1e-4, 1e-4),
    # 72 output channels: two workgroup columns (64 + 8)
    "conv_nhwc_1x30x30x12_3x3x72_s2": (conv_case((1, 30, 30, 12), (3, 3, 12, 72), (2, 2)), 1e-4, 1e-4),
    "conv_nhwc_bias_relu_1x9x11x5_2x2x7": (conv_case((1, 9, 11, 5), (2, 2, 5, 7), bias_relu=True),
                                           1e-4, 1e-4),
    # NCHW: stride 2, 24 output channels, 8 x 10 output pixels
    "conv_nchw_1x8x19x23_24x3x3_s2": nchw((1, 8, 19, 23), (24, 8, 3, 3), strides=(2, 2)),
    # dilation 2 (a 5x5 window), 5 input channels
    "conv_nchw_1x5x20x18_16x3x3_d2": nchw((1, 5, 20, 18), (16, 5, 3, 3), dilations=(2, 2)),
    # 3 input channels (the first layer of an image CNN); 70 output
    # channels: not a multiple of the 64-channel block tile; 24-pixel
    # output rows: the output moves as aligned vector<4xf32>
    "conv_nchw_1x3x30x26_70x3x3": nchw((1, 3, 30, 26), (70, 3, 3, 3), vector=True),
    # zero padding 1 through tensor.pad of the input; 13 output channels
    "conv_nchw_pad1_1x6x11x13_13x3x3": nchw((1, 6, 11, 13), (13, 6, 3, 3), pad=1),
    # per-channel bias + relu fused after the convolution, strides 2 x 1
    "conv_nchw_bias_relu_1x4x12x15_10x3x2_s2x1": nchw((1, 4, 12, 15), (10, 4, 3, 2), strides=(2, 1),
                                                      bias_relu=True),
    # a batch of 2, stride 2 with dilation 2, 3x3 padding 1
    "conv_nchw_2x7x16x19_9x3x3_s2_d2_pad1": nchw((2, 7, 16, 19), (9, 7, 3, 3), strides=(2, 2),
                                                 dilations=(2, 2), pad=1),
    # 1x1, stride 1, 16 x 8 pixels: input and output rows as aligned vector<4xf32>
    "conv_nchw_2x16x8x16_36x1x1": nchw((2, 16, 8, 16), (36, 16, 1, 1), vector=True),
    # the ONNX importer's form: 2 groups of 3 -> 5 channels, stride 2
    "conv_grouped_1x2x3x13x14_2x5x3x3x3_s2": (ptx_checked_conv(
        conv_grouped_case((1, 2, 3, 13, 14), (2, 5, 3, 3, 3), (2, 2)), False, fma=False), 1e-4, 1e-4),
    # 2 groups of 4 -> 8 channels, 16-pixel rows: 4-wide thread tiles
    # (fma) and aligned vector<4xf32> output rows
    "conv_grouped_1x2x4x10x18_2x8x4x3x3": (ptx_checked_conv(
        conv_grouped_case((1, 2, 4, 10, 18), (2, 8, 4, 3, 3)), True), 1e-4, 1e-4),
    # the ONNX importer's depthwise: 6 groups of 1 -> 1 channel, dilation 2, batch 2
    "conv_grouped_depthwise_2x6x1x12x13_6x1x1x3x3_d2": (ptx_checked_conv(
        conv_grouped_case((2, 6, 1, 12, 13), (6, 1, 1, 3, 3), (1, 1), (2, 2)), False, fma=False),
        1e-4, 1e-4),
}
