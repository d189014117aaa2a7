#!/usr/bin/python3
"""e2e per-op cases: one small program per op family, with shapes that are
not multiples of any tile size, computed independently with numpy.

usage: op_cases.py --list
       op_cases.py CASE KILN_COMPILE KILN_RUN WORKDIR DEVICE

Each case writes CASE.mlir, its inputs and expected outputs into WORKDIR,
then compiles and runs it through run_compiled.py (skip 77 while a stage
is not built). Inputs come from a fixed seed per case.
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


def matmul_case(m, k, n):
    def fn(r):
        a, b = rnd(r, m, k), rnd(r, k, n)
        src = f"""func.func @f(%a: {T((m, k))}, %b: {T((k, n))}) -> {T((m, n))} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((m, n))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((m, n))}) -> {T((m, n))}
  %c = linalg.matmul ins(%a, %b : {T((m, k))}, {T((k, n))}) outs(%z : {T((m, n))}) -> {T((m, n))}
  return %c : {T((m, n))}
}}"""
        return src, [a, b], [d(a) @ d(b)]
    return fn


case("matmul_17x33x9")(matmul_case(17, 33, 9))
case("matmul_64x64x64", rtol=1e-5, atol=1e-5)(matmul_case(64, 64, 64))
case("matmul_1x1x1")(matmul_case(1, 1, 1))
case("matmul_70x45x67", rtol=1e-5, atol=1e-5)(matmul_case(70, 45, 67))


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


def line(a):
    a = np.asarray(a)
    kind = "i32" if a.dtype == np.int32 else "f32"
    vals = " ".join(("%d" % v) if kind == "i32" else ("%.9g" % np.float32(v)) for v in a.reshape(-1))
    return "x".join(str(s) for s in a.shape) + "x" + kind + "=" + vals


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


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print(";".join(CASES))
        return 0
    name, compile_, run, work, device = argv[1:6]
    fn, rtol, atol = CASES[name]
    os.makedirs(work, exist_ok=True)
    r = np.random.RandomState(sum(map(ord, name)))
    src, ins, outs = fn(r)
    outs = [np.asarray(o).astype(np.int32 if np.asarray(o).dtype == np.int32 else np.float32)
            for o in outs]
    paths = {k: os.path.join(work, name + k) for k in (".mlir", ".inputs", ".expected")}
    with open(paths[".mlir"], "w") as f:
        f.write(src + "\n")
    with open(paths[".inputs"], "w") as f:
        f.write("".join(line(a) + "\n" for a in ins))
    with open(paths[".expected"], "w") as f:
        f.write("".join(line(a) + "\n" for a in outs))
    return run_compiled.main(["run_compiled.py", compile_, run, os.path.join(work, "run"),
                              paths[".mlir"], "f", paths[".inputs"], paths[".expected"], device],
                             rtol=rtol, atol=atol)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
