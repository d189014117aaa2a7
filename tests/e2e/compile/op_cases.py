#!/usr/bin/python3
"""e2e per-op cases: one small program per op family, with shapes that are
not multiples of any tile size, computed independently with numpy.

usage: op_cases.py --list
       op_cases.py CASE KILN_COMPILE KILN_RUN WORKDIR DEVICE [COMPILE_FLAG...]

Each case writes CASE.mlir, its inputs and expected outputs into WORKDIR,
then compiles and runs it through run_compiled.py. Inputs come from a fixed seed per case.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_compiled  # noqa: E402


def T(shape, dt="f32"):
    return "tensor<" + "".join("%dx" % d for d in shape) + dt + ">"


def rnd(r, *shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def d(a):
    return np.asarray(a, dtype=np.float64)


CASES = {}


def case(name, rtol=1e-5, atol=1e-6):
    def deco(fn):
        CASES[name] = (fn, rtol, atol)
        return fn
    return deco


@case("elementwise_arith")
def _(r):
    a, b = rnd(r, 7, 13), rnd(r, 7, 13, lo=0.5, hi=2.0)
    t = T((7, 13))
    src = f"""func.func @f(%a: {t}, %b: {t}) -> ({t}, {t}) {{
  %s = arith.addf %a, %b : {t}
  %m = arith.mulf %s, %a : {t}
  %q = arith.divf %m, %b : {t}
  %d = arith.subf %q, %b : {t}
  %n = arith.negf %d : {t}
  %mx = arith.maximumf %n, %a : {t}
  %mn = arith.minimumf %q, %b : {t}
  return %mx, %mn : {t}, {t}
}}"""
    s = d(a) + d(b); q = s * d(a) / d(b)
    return src, [a, b], [np.maximum(-(q - d(b)), d(a)), np.minimum(q, d(b))]


@case("elementwise_math", rtol=2e-5, atol=2e-6)
def _(r):
    a = rnd(r, 5, 11, lo=-3, hi=3)
    t = T((5, 11))
    src = f"""func.func @f(%a: {t}) -> ({t}, {t}, {t}) {{
  %e = math.exp %a : {t}
  %h = math.tanh %a : {t}
  %ab = math.absf %a : {t}
  %one = arith.constant dense<1.0> : {t}
  %p = arith.addf %ab, %one : {t}
  %l = math.log %p : {t}
  %s = math.sqrt %p : {t}
  %ls = arith.addf %l, %s : {t}
  return %e, %h, %ls : {t}, {t}, {t}
}}"""
    p = np.abs(d(a)) + 1
    return src, [a], [np.exp(d(a)), np.tanh(d(a)), np.log(p) + np.sqrt(p)]


@case("elementwise_i32")
def _(r):
    a = r.randint(-1000, 1000, (3, 17)).astype(np.int32)
    b = r.randint(1, 50, (3, 17)).astype(np.int32)
    t = T((3, 17), "i32")
    src = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %m = arith.muli %a, %b : {t}
  %s = arith.subi %m, %b : {t}
  %x = arith.maxsi %s, %a : {t}
  return %x : {t}
}}"""
    return src, [a, b], [np.maximum(a * b - b, a).astype(np.int32)]


def matmul_case(m, k, n, const_b=False):
    """A x B; with const_b, B is a constant of the program (a weight)."""
    def fn(r):
        a, b = rnd(r, m, k), rnd(r, k, n)
        args = f"%a: {T((m, k))}" if const_b else f"%a: {T((m, k))}, %b: {T((k, n))}"
        cst = f"\n  %b = arith.constant dense<{fmt_dense(b)}> : {T((k, n))}" if const_b else ""
        src = f"""func.func @f({args}) -> {T((m, n))} {{{cst}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((m, n))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((m, n))}) -> {T((m, n))}
  %c = linalg.matmul ins(%a, %b : {T((m, k))}, {T((k, n))}) outs(%z : {T((m, n))}) -> {T((m, n))}
  return %c : {T((m, n))}
}}"""
        return src, [a] if const_b else [a, b], [d(a) @ d(b)]
    return fn


case("matmul_17x33x9")(matmul_case(17, 33, 9))
case("matmul_64x64x64", rtol=1e-5, atol=1e-5)(matmul_case(64, 64, 64))
case("matmul_1x1x1")(matmul_case(1, 1, 1))
case("matmul_70x45x67", rtol=1e-5, atol=1e-5)(matmul_case(70, 45, 67))

# Workgroup tiles of 128 rows (M a multiple of 128 with 8 or more tiles),
# each with a partial last column tile (4 and 8 columns, fewer than a
# vector) and K unpacked (16, 32) or packed (64, a constant B as a
# model's weight; inputs stay small enough for one command-line argument).
case("matmul_128x16x452", rtol=1e-5, atol=1e-5)(matmul_case(128, 16, 452))
case("matmul_256x32x200", rtol=1e-5, atol=1e-5)(matmul_case(256, 32, 200))
case("matmul_128x64x456_const_b", rtol=1e-5, atol=1e-5)(matmul_case(128, 64, 456, const_b=True))


@case("batch_matmul")
def _(r):
    a, b = rnd(r, 3, 5, 7), rnd(r, 3, 7, 4)
    src = f"""func.func @f(%a: {T((3, 5, 7))}, %b: {T((3, 7, 4))}) -> {T((3, 5, 4))} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((3, 5, 4))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((3, 5, 4))}) -> {T((3, 5, 4))}
  %c = linalg.batch_matmul ins(%a, %b : {T((3, 5, 7))}, {T((3, 7, 4))}) outs(%z : {T((3, 5, 4))}) -> {T((3, 5, 4))}
  return %c : {T((3, 5, 4))}
}}"""
    return src, [a, b], [d(a) @ d(b)]


@case("matvec_bias_relu")
def _(r):
    a, x, bias = rnd(r, 13, 29), rnd(r, 29), rnd(r, 13)
    src = f"""func.func @f(%a: {T((13, 29))}, %x: {T((29,))}) -> {T((13,))} {{
  %bias = arith.constant dense<{fmt_dense(bias)}> : {T((13,))}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((13,))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((13,))}) -> {T((13,))}
  %y = linalg.matvec ins(%a, %x : {T((13, 29))}, {T((29,))}) outs(%z : {T((13,))}) -> {T((13,))}
  %s = arith.addf %y, %bias : {T((13,))}
  %zs = arith.constant dense<0.0> : {T((13,))}
  %o = arith.maximumf %s, %zs : {T((13,))}
  return %o : {T((13,))}
}}"""
    return src, [a, x], [np.maximum(d(a) @ d(x) + d(bias), 0)]


def fmt_dense(a):
    a = np.asarray(a, dtype=np.float32)
    if a.ndim == 0:
        return "%.9g" % a
    return "[" + ", ".join(fmt_dense(v) for v in a) + "]"


def conv_nhwc(x, f, sh, sw):
    n, h, w, c = x.shape
    kh, kw, _, fo = f.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    out = np.zeros((n, oh, ow, fo))
    for i in range(oh):
        for j in range(ow):
            patch = d(x)[:, i * sh:i * sh + kh, j * sw:j * sw + kw, :]
            out[:, i, j, :] = np.tensordot(patch, d(f), axes=([1, 2, 3], [0, 1, 2]))
    return out


@case("conv_2d_nhwc_hwcf_strided")
def _(r):
    x, f = rnd(r, 1, 9, 11, 3), rnd(r, 3, 2, 3, 5)
    o = conv_nhwc(x, f, 2, 1)
    ot = T(o.shape)
    src = f"""func.func @f(%x: {T(x.shape)}, %w: {T(f.shape)}) -> {ot} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>}} ins(%x, %w : {T(x.shape)}, {T(f.shape)}) outs(%z : {ot}) -> {ot}
  return %c : {ot}
}}"""
    return src, [x, f], [o]


@case("conv_2d_nchw_fchw")
def _(r):
    x, f = rnd(r, 2, 3, 8, 7), rnd(r, 4, 3, 3, 3)
    o = conv_nhwc(x.transpose(0, 2, 3, 1), f.transpose(2, 3, 1, 0), 1, 1).transpose(0, 3, 1, 2)
    ot = T(o.shape)
    src = f"""func.func @f(%x: {T(x.shape)}, %w: {T(f.shape)}) -> {ot} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%x, %w : {T(x.shape)}, {T(f.shape)}) outs(%z : {ot}) -> {ot}
  return %c : {ot}
}}"""
    return src, [x, f], [o]


@case("depthwise_conv")
def _(r):
    x, f = rnd(r, 1, 7, 6, 4), rnd(r, 3, 3, 4)
    o = np.zeros((1, 5, 4, 4))
    for i in range(5):
        for j in range(4):
            o[0, i, j, :] = (d(x)[0, i:i + 3, j:j + 3, :] * d(f)).sum(axis=(0, 1))
    ot = T(o.shape)
    src = f"""func.func @f(%x: {T(x.shape)}, %w: {T(f.shape)}) -> {ot} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {ot}
  %z = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %c = linalg.depthwise_conv_2d_nhwc_hwc {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%x, %w : {T(x.shape)}, {T(f.shape)}) outs(%z : {ot}) -> {ot}
  return %c : {ot}
}}"""
    return src, [x, f], [o]


def pool(x, k, s, op):
    n, h, w, c = x.shape
    oh, ow = (h - k) // s + 1, (w - k) // s + 1
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            win = d(x)[:, i * s:i * s + k, j * s:j * s + k, :]
            out[:, i, j, :] = win.max(axis=(1, 2)) if op == "max" else win.sum(axis=(1, 2))
    return out


@case("pooling_nhwc_max_sum")
def _(r):
    x = rnd(r, 1, 9, 10, 3)
    mx, sm = pool(x, 3, 2, "max"), pool(x, 3, 2, "sum")
    ot = T(mx.shape)
    src = f"""func.func @f(%x: {T(x.shape)}) -> ({ot}, {ot}) {{
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %win = tensor.empty() : tensor<3x3xf32>
  %e = tensor.empty() : {ot}
  %i1 = linalg.fill ins(%ninf : f32) outs(%e : {ot}) -> {ot}
  %i2 = linalg.fill ins(%zero : f32) outs(%e : {ot}) -> {ot}
  %m = linalg.pooling_nhwc_max {{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}} ins(%x, %win : {T(x.shape)}, tensor<3x3xf32>) outs(%i1 : {ot}) -> {ot}
  %s = linalg.pooling_nhwc_sum {{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}} ins(%x, %win : {T(x.shape)}, tensor<3x3xf32>) outs(%i2 : {ot}) -> {ot}
  return %m, %s : {ot}, {ot}
}}"""
    return src, [x], [mx, sm]


@case("reduce_sum_rows")
def _(r):
    x = rnd(r, 5, 37)
    src = f"""func.func @f(%x: {T((5, 37))}) -> {T((5,))} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((5,))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((5,))}) -> {T((5,))}
  %r = linalg.reduce ins(%x : {T((5, 37))}) outs(%z : {T((5,))}) dimensions = [1]
    (%in: f32, %acc: f32) {{
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }}
  return %r : {T((5,))}
}}"""
    return src, [x], [d(x).sum(axis=1)]


@case("reduce_maxnumf_rows")
def _(r):
    # maxnumf folds on vector partials started at -inf (the combiner column
    # of compiler/ir/dialects/arith.def); rows of 37 leave a scalar tail.
    x = rnd(r, 5, 37, lo=-3.0, hi=-1.0)
    src = f"""func.func @f(%x: {T((5, 37))}) -> {T((5,))} {{
  %low = arith.constant -1.0e30 : f32
  %e = tensor.empty() : {T((5,))}
  %z = linalg.fill ins(%low : f32) outs(%e : {T((5,))}) -> {T((5,))}
  %r = linalg.reduce ins(%x : {T((5, 37))}) outs(%z : {T((5,))}) dimensions = [1]
    (%in: f32, %acc: f32) {{
      %s = arith.maxnumf %in, %acc : f32
      linalg.yield %s : f32
    }}
  return %r : {T((5,))}
}}"""
    return src, [x], [d(x).max(axis=1)]


@case("transpose_broadcast")
def _(r):
    x, v = rnd(r, 5, 7), rnd(r, 5)
    src = f"""func.func @f(%x: {T((5, 7))}, %v: {T((5,))}) -> {T((7, 5))} {{
  %e = tensor.empty() : {T((7, 5))}
  %t = linalg.transpose ins(%x : {T((5, 7))}) outs(%e : {T((7, 5))}) permutation = [1, 0]
  %b = linalg.broadcast ins(%v : {T((5,))}) outs(%e : {T((7, 5))}) dimensions = [0]
  %s = arith.addf %t, %b : {T((7, 5))}
  return %s : {T((7, 5))}
}}"""
    return src, [x, v], [d(x).T + d(v)[None, :]]


@case("softmax_rows", rtol=2e-5, atol=2e-6)
def _(r):
    x = rnd(r, 3, 19, lo=-4, hi=4)
    src = f"""func.func @f(%x: {T((3, 19))}) -> {T((3, 19))} {{
  %e = tensor.empty() : {T((3, 19))}
  %s = linalg.softmax dimension(1) ins(%x : {T((3, 19))}) outs(%e : {T((3, 19))}) -> {T((3, 19))}
  return %s : {T((3, 19))}
}}"""
    z = np.exp(d(x) - d(x).max(axis=1, keepdims=True))
    return src, [x], [z / z.sum(axis=1, keepdims=True)]


@case("reshape_views")
def _(r):
    x = rnd(r, 4, 6)
    src = f"""func.func @f(%x: {T((4, 6))}) -> {T((2, 12))} {{
  %c = tensor.collapse_shape %x [[0, 1]] : {T((4, 6))} into {T((24,))}
  %two = arith.constant dense<2.0> : {T((24,))}
  %m = arith.mulf %c, %two : {T((24,))}
  %e = tensor.expand_shape %m [[0, 1]] output_shape [2, 12] : {T((24,))} into {T((2, 12))}
  return %e : {T((2, 12))}
}}"""
    return src, [x], [(d(x) * 2).reshape(2, 12)]


@case("returns_input_and_constant")
def _(r):
    x = rnd(r, 6)
    c = np.arange(6, dtype=np.float32)
    src = f"""func.func @f(%x: {T((6,))}) -> ({T((6,))}, {T((6,))}) {{
  %c = arith.constant dense<{fmt_dense(c)}> : {T((6,))}
  return %x, %c : {T((6,))}, {T((6,))}
}}"""
    return src, [x], [d(x), d(c)]


KINDS = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.int64): "i64",
         np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8", np.dtype(np.uint8): "u8"}


def line(a):
    """kiln-run's --input form: "3x4xf32=..." ("f32=3.5" for a scalar)."""
    a = np.asarray(a)
    kind = KINDS[a.dtype]
    vals = " ".join(("%.9g" % np.float32(v)) if kind == "f32" else ("%d" % v) for v in a.reshape(-1))
    return "".join("%dx" % s for s in a.shape) + kind + "=" + vals


@case("pad_concat_insert")
def _(r):
    # Kernels whose ops write other shapes than the root (fill + window
    # copy, copies at offsets): they run as one workgroup, which
    # tile-and-distribute must leave whole (it used to tile them anyway).
    a, b, c = rnd(r, 8, 150), rnd(r, 8, 100), rnd(r, 2, 3)
    src = f"""func.func @f(%a: {T((8, 150))}, %b: {T((8, 100))}, %c: {T((2, 3))}) -> ({T((14, 160))}, {T((8, 250))}, {T((8, 150))}, {T((4, 7))}) {{
  %v = arith.constant 5.000000e-01 : f32
  %p = tensor.pad %a low[2, 3] high[4, 7] {{
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  }} : {T((8, 150))} to {T((14, 160))}
  %cc = tensor.concat dim(1) %a, %b : ({T((8, 150))}, {T((8, 100))}) -> {T((8, 250))}
  %s = tensor.insert_slice %b into %a[0, 30] [8, 100] [1, 1] : {T((8, 100))} into {T((8, 150))}
  %q = tensor.pad %c low[1, 2] high[1, 2] {{
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  }} : {T((2, 3))} to {T((4, 7))}
  return %p, %cc, %s, %q : {T((14, 160))}, {T((8, 250))}, {T((8, 150))}, {T((4, 7))}
}}"""
    ins = a.copy()
    ins[:, 30:130] = b
    return src, [a, b, c], [np.pad(d(a), ((2, 4), (3, 7)), constant_values=0.5),
                            np.concatenate([d(a), d(b)], 1), d(ins),
                            np.pad(d(c), ((1, 1), (2, 2)), constant_values=0.5)]


@case("matmul_bias_relu_tiled")
def _(r):
    # Several workgroups; the bias add and relu come after the matmul root
    # and are restricted to its tile (the torch MLP's Linear + ReLU).
    x, w, bias = rnd(r, 4, 40), rnd(r, 40, 256), rnd(r, 256)
    src = f"""func.func @f(%x: {T((4, 1, 5, 8))}, %w: {T((40, 256))}, %bias: {T((256,))}) -> {T((4, 256))} {{
  %f = tensor.collapse_shape %x [[0], [1, 2, 3]] : {T((4, 1, 5, 8))} into {T((4, 40))}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((4, 256))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((4, 256))}) -> {T((4, 256))}
  %m = linalg.matmul ins(%f, %w : {T((4, 40))}, {T((40, 256))}) outs(%z : {T((4, 256))}) -> {T((4, 256))}
  %o = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%m, %bias : {T((4, 256))}, {T((256,))}) outs(%e : {T((4, 256))}) {{
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %s = arith.addf %in, %bb : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }} -> {T((4, 256))}
  return %o : {T((4, 256))}
}}"""
    return src, [x.reshape(4, 1, 5, 8), w, bias], [np.maximum(d(x) @ d(w) + d(bias), 0)]


def matmul_bias_leaky_case(m, k, n):
    """Fill, matmul with a constant B and a bias + leaky-ReLU consumer: the
    fill and the consumer join the matmul's register tiles (the consumer
    only in the last K block, the fill only in the first)."""
    def fn(r):
        x, w, bias = rnd(r, m, k), rnd(r, k, n), rnd(r, n)
        src = f"""func.func @f(%x: {T((m, k))}, %bias: {T((n,))}) -> {T((m, n))} {{
  %w = arith.constant dense<{fmt_dense(w)}> : {T((k, n))}
  %zero = arith.constant 0.0 : f32
  %slope = arith.constant 0.125 : f32
  %e = tensor.empty() : {T((m, n))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((m, n))}) -> {T((m, n))}
  %mm = linalg.matmul ins(%x, %w : {T((m, k))}, {T((k, n))}) outs(%z : {T((m, n))}) -> {T((m, n))}
  %o = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}} ins(%mm, %bias : {T((m, n))}, {T((n,))}) outs(%e : {T((m, n))}) {{
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %s = arith.addf %in, %bb : f32
    %l = arith.mulf %s, %slope : f32
    %y = arith.maximumf %s, %l : f32
    linalg.yield %y : f32
  }} -> {T((m, n))}
  return %o : {T((m, n))}
}}"""
        y = d(x) @ d(w) + d(bias)
        return src, [x, bias], [np.maximum(y, 0.125 * y)]
    return fn


# K = 300: two packed K blocks of 150 (the fill in the first, the consumer
# in the last); K = 96: one block; K = 33: not packed. Rows 20 and 7 leave
# partial row blocks, N = 48 is three vectors of 16 (or six of 8), N = 24
# leaves a column tail that the fused path declines.
case("matmul_bias_leaky_20x300x48", rtol=1e-5, atol=1e-5)(matmul_bias_leaky_case(20, 300, 48))
case("matmul_bias_leaky_20x96x64", rtol=1e-5, atol=1e-5)(matmul_bias_leaky_case(20, 96, 64))
case("matmul_bias_leaky_7x33x32", rtol=1e-5, atol=1e-5)(matmul_bias_leaky_case(7, 33, 32))
case("matmul_bias_leaky_9x300x24", rtol=1e-5, atol=1e-5)(matmul_bias_leaky_case(9, 300, 24))


# ---- scalars: arguments and results, and host-level scalar code -------------
# Scalars cross the module boundary as rank-0 tensors (tensorize-scalars);
# scalar code on the host runs inside kernels (form-dispatch-regions,
# outline-dispatches). Inputs are numpy 0-d arrays, kiln-run's "f32=3.5".


def S(v, dt=np.float32):
    return np.asarray(v, dtype=dt)


@case("scalar_arg_in_generic")
def _(r):
    # a scalar argument read inside a linalg.generic body
    a, s = rnd(r, 37), S(r.uniform(0.5, 2))
    src = f"""func.func @f(%a: {T((37,))}, %s: f32) -> {T((37,))} {{
  %e = tensor.empty() : {T((37,))}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%a : {T((37,))}) outs(%e : {T((37,))}) {{
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  }} -> {T((37,))}
  return %r : {T((37,))}
}}"""
    return src, [a, s], [d(a) * d(s)]


@case("scalar_extract_result")
def _(r):
    # a scalar result read out of a tensor argument
    a = rnd(r, 4, 5)
    src = f"""func.func @f(%a: {T((4, 5))}) -> f32 {{
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %a[%c3, %c1] : {T((4, 5))}
  return %x : f32
}}"""
    return src, [a], [d(a)[3, 1]]


@case("scalar_i1_selects_branch")
def _(r):
    # an i1 argument driving a host-level scf.if on tensors (false branch)
    a, b = rnd(r, 9), rnd(r, 9)
    src = f"""func.func @f(%a: {T((9,))}, %b: {T((9,))}, %p: i1) -> {T((9,))} {{
  %r = scf.if %p -> ({T((9,))}) {{
    %x = arith.addf %a, %b : {T((9,))}
    scf.yield %x : {T((9,))}
  }} else {{
    %y = arith.mulf %a, %b : {T((9,))}
    scf.yield %y : {T((9,))}
  }}
  return %r : {T((9,))}
}}"""
    return src, [a, b, S(False, np.bool_)], [d(a) * d(b)]


@case("scalar_from_elements")
def _(r):
    s, t = S(r.uniform(-3, 3)), S(r.uniform(-3, 3))
    src = f"""func.func @f(%s: f32, %t: f32) -> {T((3,))} {{
  %u = arith.subf %s, %t : f32
  %r = tensor.from_elements %s, %t, %u : {T((3,))}
  return %r : {T((3,))}
}}"""
    return src, [s, t], [np.array([s, t, np.float32(s - t)], dtype=np.float32)]


@case("scalar_add")
def _(r):
    # scalars in, scalar out, nothing but host scalar arithmetic
    s, t = S(r.uniform(-3, 3)), S(r.uniform(-3, 3))
    src = """func.func @f(%s: f32, %t: f32) -> (f32, f32) {
  %a = arith.addf %s, %t : f32
  %m = arith.mulf %a, %s : f32
  %e = math.exp %t : f32
  return %m, %e : f32, f32
}"""
    return src, [s, t], [np.float32(np.float32(s + t) * s), np.exp(d(t))]


@case("scalar_i32")
def _(r):
    # i32 scalars: into tensor.splat, a generic body, and a scalar result
    a, n = r.randint(-100, 100, 11).astype(np.int32), S(r.randint(2, 9), np.int32)
    t = T((11,), "i32")
    src = f"""func.func @f(%a: {t}, %n: i32) -> ({t}, i32) {{
  %sp = tensor.splat %n : {t}
  %m = arith.muli %a, %sp : {t}
  %e = tensor.empty() : {t}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%m : {t}) outs(%e : {t}) {{
  ^bb0(%x: i32, %o: i32):
    %y = arith.subi %x, %n : i32
    linalg.yield %y : i32
  }} -> {t}
  %one = arith.constant 1 : i32
  %nn = arith.muli %n, %n : i32
  %q = arith.addi %nn, %one : i32
  return %r, %q : {t}, i32
}}"""
    return src, [a, n], [(a * n - n).astype(np.int32), S(n * n + 1, np.int32)]


@case("scalar_i1_result")
def _(r):
    # a reduction whose rank-0 result is extracted and compared: i1 out,
    # and the same scalar reused by a later kernel (a crossing scalar)
    a = rnd(r, 33)
    t = S(d(a).sum() - 0.5)  # the result is true: a kernel that writes nothing fails
    src = f"""func.func @f(%a: {T((33,))}, %t: f32) -> (i1, {T((33,))}) {{
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%a : {T((33,))}) outs(%z : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {{
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }}
  %v = tensor.extract %s[] : tensor<f32>
  %p = arith.cmpf ogt, %v, %t : f32
  %e = tensor.empty() : {T((33,))}
  %c = linalg.fill ins(%v : f32) outs(%e : {T((33,))}) -> {T((33,))}
  %o = arith.subf %a, %c : {T((33,))}
  return %p, %o : i1, {T((33,))}
}}"""
    return src, [a, t], [S(d(a).sum() > d(t), np.bool_), d(a) - d(a).sum()]


@case("scalar_index_i64")
def _(r):
    # index arguments and results travel as i64; i64 scalars too
    a, i, k = rnd(r, 6, 7), S(4, np.int64), S(-5, np.int64)
    src = f"""func.func @f(%a: {T((6, 7))}, %i: index, %k: i64) -> (f32, index, i64) {{
  %c2 = arith.constant 2 : index
  %x = tensor.extract %a[%i, %c2] : {T((6, 7))}
  %j = arith.addi %i, %c2 : index
  %kk = arith.muli %k, %k : i64
  return %x, %j, %kk : f32, index, i64
}}"""
    return src, [a, i, k], [d(a)[4, 2], S(6, np.int64), S(25, np.int64)]


@case("scalar_fill_insert")
def _(r):
    # scalars into linalg.fill and tensor.insert (at a scalar index)
    a, s, i = rnd(r, 5, 6), S(r.uniform(-2, 2)), S(3, np.int64)
    src = f"""func.func @f(%a: {T((5, 6))}, %s: f32, %i: index) -> ({T((4, 3))}, {T((5, 6))}) {{
  %e = tensor.empty() : {T((4, 3))}
  %f = linalg.fill ins(%s : f32) outs(%e : {T((4, 3))}) -> {T((4, 3))}
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %v = arith.mulf %s, %two : f32
  %ins = tensor.insert %v into %a[%i, %c1] : {T((5, 6))}
  return %f, %ins : {T((4, 3))}, {T((5, 6))}
}}"""
    want = d(a).copy()
    want[3, 1] = np.float32(s * 2)
    return src, [a, s, i], [np.full((4, 3), d(s)), want]


@case("scalar_host_loop_and_if")
def _(r):
    # host-level scf.for over scalars (sum of a's first 5 entries) and an
    # scf.if yielding a scalar; both become dispatches whose rank-0 results
    # the next kernels read
    a, t = rnd(r, 8), S(0.1)
    src = f"""func.func @f(%a: {T((8,))}, %t: f32) -> (f32, {T((8,))}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %zero) -> (f32) {{
    %x = tensor.extract %a[%i] : {T((8,))}
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }}
  %gt = arith.cmpf ogt, %sum, %t : f32
  %m = scf.if %gt -> (f32) {{
    scf.yield %sum : f32
  }} else {{
    %n = arith.negf %sum : f32
    scf.yield %n : f32
  }}
  %e = tensor.empty() : {T((8,))}
  %o = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%a : {T((8,))}) outs(%e : {T((8,))}) {{
  ^bb0(%x: f32, %u: f32):
    %y = arith.addf %x, %m : f32
    linalg.yield %y : f32
  }} -> {T((8,))}
  return %m, %o : f32, {T((8,))}
}}"""
    sm = d(a)[:5].sum()
    m = sm if sm > 0.1 else -sm
    return src, [a, t], [m, d(a) + m]


@case("bitcast_views")
def _(r):
    # tensor.bitcast is a view: f32 bits read as i32 after a kernel, and a
    # ui8 argument read as i8 (ONNX's unsigned inputs cross the boundary so)
    a = rnd(r, 3, 5)
    u = r.randint(0, 256, 7).astype(np.uint8)
    src = f"""func.func @f(%a: {T((3, 5))}, %u: {T((7,), "ui8")}) -> ({T((3, 5), "i32")}, {T((7,), "i8")}) {{
  %b = arith.addf %a, %a : {T((3, 5))}
  %i = tensor.bitcast %b : {T((3, 5))} to {T((3, 5), "i32")}
  %s = tensor.bitcast %u : {T((7,), "ui8")} to {T((7,), "i8")}
  %t = arith.addi %s, %s : {T((7,), "i8")}
  return %i, %t : {T((3, 5), "i32")}, {T((7,), "i8")}
}}"""
    return src, [a, u], [(a + a).view(np.int32), (u.view(np.int8) * np.int8(2)).astype(np.int8)]



def layernorm_case(name, shape, residual, keepdims=False):
    """A LayerNorm as the importer's generics leave it: the row sum, the
    centered sum of squares reading it, the normalization reading both
    (+ a residual Add recomputed in each): form-dispatch-regions makes
    them one dispatch of whole rows (CPU, and the GPU path's PTX and
    SIMT-on-CPU variants through tests/e2e/gpu). keepdims: as PyTorch
    exports it below opset 17, the variance is a per-row op and
    sqrt(var + eps) runs on its keepdims view [rows, 1], read by the
    normalization at column 0 (sink-reshapes makes it a per-row map of
    the chain)."""
    @case(name, rtol=1e-4, atol=2e-5)
    def _(r):
        n, k = shape[-1], len(shape)
        rows = shape[:-1]
        dims = ", ".join("d%d" % i for i in range(k))
        full = "affine_map<(%s) -> (%s)>" % (dims, dims)
        row = "affine_map<(%s) -> (%s)>" % (dims, ", ".join("d%d" % i for i in range(k - 1)))
        last = "affine_map<(%s) -> (d%d)>" % (dims, k - 1)
        par = ", ".join(['"parallel"'] * (k - 1))
        x, res = rnd(r, *shape, lo=-2, hi=2), rnd(r, *shape, lo=-2, hi=2)
        g, b = rnd(r, n, lo=0.5, hi=1.5), rnd(r, n)
        ins = [x, res] if residual else [x]
        T_, R_, V_ = T(shape), T(rows), T((n,))
        xs = "%x, %res" if residual else "%x"
        xt = ", ".join([T_] * len(ins))
        xm = ", ".join([full] * len(ins))
        xa = "%a: f32, %c: f32" if residual else "%a: f32"
        sm = "%s = arith.addf %a, %c : f32" if residual else "%s = arith.addf %a, %a0 : f32"
        # without a residual, %s is x itself (x + 0)
        pre = "%a0 = arith.constant 0.0 : f32\n    " if not residual else ""
        sd_ops = ("%eps = arith.constant 1.0e-5 : f32\n    %vv = arith.mulf %v, %inv : f32\n"
                  "    %ve = arith.addf %vv, %eps : f32\n    %sd = math.sqrt %ve : f32")
        keep_ops, vmap, vname, vtype = "", row, "%var", R_
        if keepdims:
            K_ = T(tuple(rows) + (1,))
            rid = "affine_map<(%s) -> (%s)>" % ((", ".join("d%d" % i for i in range(k - 1)),) * 2)
            ridp = ", ".join(['"parallel"'] * (k - 1))
            assoc = ", ".join("[%d]" % i for i in range(k - 2)) + (", " if k > 2 else "") + "[%d, %d]" % (k - 2, k - 1)
            keep_ops = f"""  %vm = linalg.generic {{indexing_maps = [{rid}, {rid}], iterator_types = [{ridp}]}} ins(%var : {R_}) outs(%er : {R_}) {{
  ^bb0(%v: f32, %o: f32):
    %inv = arith.constant {1.0 / n!r} : f32
    %vv = arith.mulf %v, %inv : f32
    linalg.yield %vv : f32
  }} -> {R_}
  %vk = tensor.expand_shape %vm [{assoc}] output_shape [{", ".join(map(str, tuple(rows) + (1,)))}] : {R_} into {K_}
  %ek = tensor.empty() : {K_}
  %sdk = linalg.generic {{indexing_maps = [{full}, {full}], iterator_types = [{par}, "parallel"]}} ins(%vk : {K_}) outs(%ek : {K_}) {{
  ^bb0(%v: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %ve = arith.addf %v, %eps : f32
    %sd = math.sqrt %ve : f32
    linalg.yield %sd : f32
  }} -> {K_}
"""
            vmap = "affine_map<(%s) -> (%s, 0)>" % (dims, ", ".join("d%d" % i for i in range(k - 1)))
            vname, vtype, sd_ops = "%sdk", K_, "%z0 = arith.constant 0.0 : f32\n    %sd = arith.addf %v, %z0 : f32"
        src = f"""func.func @f({", ".join("%%%s: %s" % (nm, T_) for nm in (["x", "res"] if residual else ["x"]))}, %g: {V_}, %b: {V_}) -> {T_} {{
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : {R_}
  %z = linalg.fill ins(%zero : f32) outs(%er : {R_}) -> {R_}
  %sum = linalg.generic {{indexing_maps = [{xm}, {row}], iterator_types = [{par}, "reduction"]}} ins({xs} : {xt}) outs(%z : {R_}) {{
  ^bb0({xa}, %acc: f32):
    {pre}{sm}
    %t = arith.addf %acc, %s : f32
    linalg.yield %t : f32
  }} -> {R_}
  %var = linalg.generic {{indexing_maps = [{xm}, {row}, {row}], iterator_types = [{par}, "reduction"]}} ins({xs}, %sum : {xt}, {R_}) outs(%z : {R_}) {{
  ^bb0({xa}, %m: f32, %acc: f32):
    {pre}%inv = arith.constant {1.0 / n!r} : f32
    %mean = arith.mulf %m, %inv : f32
    {sm}
    %d = arith.subf %s, %mean : f32
    %q = arith.mulf %d, %d : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  }} -> {R_}
{keep_ops}  %e = tensor.empty() : {T_}
  %y = linalg.generic {{indexing_maps = [{xm}, {row}, {vmap}, {last}, {last}, {full}], iterator_types = [{par}, "parallel"]}} ins({xs}, %sum, {vname}, %g, %b : {xt}, {R_}, {vtype}, {V_}, {V_}) outs(%e : {T_}) {{
  ^bb0({xa}, %m: f32, %v: f32, %gg: f32, %bb: f32, %o: f32):
    {pre}%inv = arith.constant {1.0 / n!r} : f32
    %mean = arith.mulf %m, %inv : f32
    {sm}
    %d = arith.subf %s, %mean : f32
    {sd_ops}
    %nn = arith.divf %d, %sd : f32
    %w = arith.mulf %nn, %gg : f32
    %yy = arith.addf %w, %bb : f32
    linalg.yield %yy : f32
  }} -> {T_}
  return %y : {T_}
}}"""
        sx = sum(d(a) for a in ins)
        mu = sx.mean(axis=-1, keepdims=True)
        va = ((sx - mu) ** 2).mean(axis=-1, keepdims=True)
        return src, ins + [g, b], [(sx - mu) / np.sqrt(va + 1e-5) * d(g) + d(b)]


layernorm_case("layernorm_rows_3x1", (3, 1), False)
layernorm_case("layernorm_rows_3x769", (3, 769), False)
layernorm_case("layernorm_residual_2x5x129", (2, 5, 129), True)
layernorm_case("layernorm_residual_9x7", (9, 7), True)
layernorm_case("layernorm_keepdims_3x1", (3, 1), False, keepdims=True)
layernorm_case("layernorm_keepdims_2x5x129", (2, 5, 129), True, keepdims=True)


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print(";".join(CASES))
        return 0
    name, compile_, run, work, device = argv[1:6]
    fn, rtol, atol = CASES[name]
    os.makedirs(work, exist_ok=True)
    r = np.random.RandomState(sum(map(ord, name)))
    src, ins, outs = fn(r)
    # results keep integer and boolean types; float results computed in
    # float64 are compared as f32
    outs = [np.asarray(o) if np.asarray(o).dtype in KINDS else np.asarray(o).astype(np.float32)
            for o in outs]
    paths = {k: os.path.join(work, name + k) for k in (".mlir", ".inputs", ".expected")}
    with open(paths[".mlir"], "w") as f:
        f.write(src + "\n")
    with open(paths[".inputs"], "w") as f:
        f.write("".join(line(a) + "\n" for a in ins))
    with open(paths[".expected"], "w") as f:
        f.write("".join(line(a) + "\n" for a in outs))
    return run_compiled.main(["run_compiled.py", compile_, run, os.path.join(work, "run"),
                              paths[".mlir"], "f", paths[".inputs"], paths[".expected"], device]
                             + argv[6:],
                             rtol=rtol, atol=atol)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
