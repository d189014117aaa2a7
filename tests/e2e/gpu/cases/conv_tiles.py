"""GPU programs for convolutions through the shared-memory GEMM path
(gpu-tile-matmul-shared on conv_2d_nhwc_hwcf as an implicit GEMM: output
pixels x output channels x filter taps): strides, dilations, channel
counts that are and are not multiples of 4 (vector<4xf32> loads of the
input along c only when they are), output tiles that do not divide the
block tile, and a fused bias + relu after the convolution. Listed by
run_gpu.py as gpuop.NAME; the PTX of the aligned ones is checked like
matmul_tiles.py's."""
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
}
