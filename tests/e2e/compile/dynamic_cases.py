#!/usr/bin/python3
"""e2e for dynamic shapes: one module per program, run at several shapes.

usage: dynamic_cases.py --list
       dynamic_cases.py CASE KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR DEVICE

Each case is an MLIR program with '?' dims and a list of shapes to run it
at (including 1, primes and sizes that are not multiples of any tile),
computed independently with numpy. The program is compiled once; DEVICE
local-sync or local-task runs it at every shape and compares; DEVICE gpu
compiles it with --target=cuda:sm_80 --target=cuda:sm_90
--target=llvm-cpu, checks every PTX payload with ptxas (skipped with the
reason when ptxas is missing) and runs the SIMT-on-CPU variant of each SM
(KILN_GPU_SIMT_CPU=1) at every shape against numpy. A case may also list
bad inputs: the call must fail with the given message (the function, the
input, the dimension, the relation and the value; or the op's location,
what it reads at, the dim and the bound), on every device and on the
SIMT-on-CPU modules (their host program is the GPU module's). Prints 'N
passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "gpu"))
sys.path.insert(0, HERE)
import op_cases  # noqa: E402  (conv_nhwc, fmt_dense)
PTXAS = "/usr/local/cuda/bin/ptxas"


def rnd(r, *shape, lo=-1.0, hi=1.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def d(a):
    return np.asarray(a, dtype=np.float64)


CASES = {}


def case(name, rtol=1e-5, atol=1e-5):
    """fn() -> (mlir text, [gen(r, shape) -> (inputs, outputs)] per shape,
    [(inputs, message)] bad calls)."""
    def deco(fn):
        CASES[name] = (fn, rtol, atol)
        return fn
    return deco


@case("elementwise")
def _():
    t = "tensor<?x?xf32>"
    src = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %m = arith.mulf %a, %b : {t}
  %s = arith.addf %m, %a : {t}
  %e = math.exp %b : {t}
  %r = arith.subf %s, %e : {t}
  return %r : {t}
}}"""

    def gen(shape):
        def g(r):
            a, b = rnd(r, *shape), rnd(r, *shape)
            return [a, b], [d(a) * d(b) + d(a) - np.exp(d(b))]
        return g
    shapes = [(1, 1), (7, 13), (1, 4099), (97, 31), (300, 64)]
    bad = [([np.zeros((3, 4), np.float32), np.zeros((5, 4), np.float32)],
            "input 1 dimension 0 is 5, must equal input 0 dimension 0 (3)"),
           ([np.zeros((3, 4), np.float32), np.zeros((3, 2), np.float32)],
            "input 1 dimension 1 is 2, must equal input 0 dimension 1 (4)")]
    return src, [gen(s) for s in shapes], bad


@case("elementwise_static_mix")
def _():
    # a dynamic batch against a static inner dim and a broadcast row
    src = """#row = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%a: tensor<?x5xf32>, %b: tensor<5xf32>) -> tensor<?x5xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x5xf32>
  %e = tensor.empty(%n) : tensor<?x5xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<?x5xf32>, tensor<5xf32>) outs(%e : tensor<?x5xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %z = arith.constant 0.0 : f32
    %p = arith.maximumf %m, %z : f32
    linalg.yield %p : f32
  } -> tensor<?x5xf32>
  return %r : tensor<?x5xf32>
}"""

    def gen(n):
        def g(r):
            a, b = rnd(r, n, 5), rnd(r, 5)
            return [a, b], [np.maximum(d(a) * d(b), 0)]
        return g
    bad = [([np.zeros((3, 4), np.float32), np.zeros((5,), np.float32)],
            "input 0: expected tensor<?x5xf32>, got tensor<3x4xf32>")]
    return src, [gen(n) for n in (1, 2, 17, 1031, 8193)], bad


def shrinking_step(combine):
    """A kiln.host_loop_body function for the host-loop cases: the carried
    value loses its last element each step (its buffers, push constants
    and workgroup counts change size), each element becomes
    combine(acc, x) + the step number (an index argument: a push
    constant of its kernel)."""
    t = "tensor<?xf32>"
    return f"""func.func private @step(%acc: {t}, %x: {t}, %i: index) -> {t} attributes {{kiln.host_loop_body}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %acc, %c0 : {t}
  %m1 = arith.subi %m, %c1 : index
  %m2 = arith.maxsi %m1, %c0 : index
  %s = tensor.extract_slice %acc[0] [%m2] [1] : {t} to {t}
  %xs = tensor.extract_slice %x[0] [%m2] [1] : {t} to {t}
  %e = tensor.empty(%m2) : {t}
  %y = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%s, %xs : {t}, {t}) outs(%e : {t}) {{
  ^bb0(%a: f32, %b: f32, %o: f32):
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %p = arith.{combine} %a, %b : f32
    %q = arith.addf %p, %fi : f32
    linalg.yield %q : f32
  }} -> {t}
  return %y : {t}
}}
"""


@case("host_loop_body")
def _():
    # a host loop whose body is a function of its own (kiln.host_loop_body:
    # planned apart, called per step): the carried value shrinks by one
    # element per step, so each step's buffers, push constants and
    # workgroup counts have their own size, and the body reads the step
    # number (an index argument: a push constant of its kernel)
    t = "tensor<?xf32>"
    src = shrinking_step("mulf") + f"""func.func @f(%x: {t}, %n: tensor<i64>) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x) -> ({t}) {{
    %y = func.call @step(%acc, %x, %i) : ({t}, {t}, index) -> {t}
    scf.yield %y : {t}
  }}
  return %r : {t}
}}"""

    def gen(shape):
        length, steps = shape

        def g(r):
            x = r.uniform(0.9, 1.1, length).astype(np.float32)
            acc = d(x)
            for i in range(max(steps, 0)):
                m = max(len(acc) - 1, 0)
                acc = acc[:m] * d(x)[:m] + i
            return [x, np.array(steps, np.int64)], [acc]
        return g
    # no step (the input returned as it is), a negative count, 66 -> 63
    # (crosses a 64-wide workgroup), down to an empty value and past it
    shapes = [(5, 0), (4, -2), (66, 3), (2, 4), (1, 1)]
    return src, [gen(s) for s in shapes], []


@case("host_loop_kernels")
def _():
    # kernels around a host loop: its initial value and an outer tensor
    # are dispatch results (allocations of their own, the loop runs after
    # their wait), and a kernel reads its result, sized by the result's
    # run-time dim (hal.buffer_view.dim after the loop); both the loop's
    # result and the kernel's are returned
    t = "tensor<?xf32>"
    src = shrinking_step("addf") + f"""func.func @f(%x: {t}, %n: tensor<i64>) -> ({t}, {t}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %xx = arith.mulf %x, %x : {t}
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %xx) -> ({t}) {{
    %y = func.call @step(%acc, %xx, %i) : ({t}, {t}, index) -> {t}
    scf.yield %y : {t}
  }}
  %k = tensor.dim %r, %c0 : {t}
  %e = tensor.empty(%k) : {t}
  %z = linalg.generic {{indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}} ins(%r : {t}) outs(%e : {t}) {{
  ^bb0(%a: f32, %o: f32):
    %q = arith.mulf %a, %a : f32
    linalg.yield %q : f32
  }} -> {t}
  return %z, %r : {t}, {t}
}}"""

    def gen(shape):
        length, steps = shape

        def g(r):
            x = r.uniform(-1.0, 1.0, length).astype(np.float32)
            xx = d(x) * d(x)
            acc = xx
            for i in range(max(steps, 0)):
                m = max(len(acc) - 1, 0)
                acc = acc[:m] + xx[:m] + i
            return [x, np.array(steps, np.int64)], [acc * acc, acc]
        return g
    # no step (the kernel's result returned through the loop and read
    # again), 66 -> 64 (a workgroup's width), 37 -> 34 (odd), down to
    # an empty result that a kernel still reads
    shapes = [(5, 0), (66, 2), (37, 3), (2, 3)]
    return src, [gen(s) for s in shapes], []


@case("matmul", rtol=1e-4, atol=1e-4)
def _():
    t = "tensor<?x?xf32>"
    src = f"""func.func @f(%a: {t}, %b: {t}) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : {t}
  %n = tensor.dim %b, %c1 : {t}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : {t}
  %z = linalg.fill ins(%zero : f32) outs(%e : {t}) -> {t}
  %c = linalg.matmul ins(%a, %b : {t}, {t}) outs(%z : {t}) -> {t}
  return %c : {t}
}}"""

    def gen(m, k, n):
        def g(r):
            a, b = rnd(r, m, k), rnd(r, k, n)
            return [a, b], [d(a) @ d(b)]
        return g
    shapes = [(1, 1, 1), (1, 37, 5), (17, 33, 9), (64, 64, 64), (70, 45, 131), (130, 200, 67)]
    bad = [([np.zeros((3, 4), np.float32), np.zeros((5, 2), np.float32)],
            "input 1 dimension 0 is 5, must equal input 0 dimension 1 (4)")]
    return src, [gen(*s) for s in shapes], bad


@case("batch_matmul_bias", rtol=1e-4, atol=1e-4)
def _():
    src = """#bias = affine_map<(d0, d1, d2) -> (d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @f(%a: tensor<?x?x16xf32>, %b: tensor<?x16x24xf32>, %bias: tensor<24xf32>) -> tensor<?x?x24xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bt = tensor.dim %a, %c0 : tensor<?x?x16xf32>
  %m = tensor.dim %a, %c1 : tensor<?x?x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%bt, %m) : tensor<?x?x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x24xf32>) -> tensor<?x?x24xf32>
  %c = linalg.batch_matmul ins(%a, %b : tensor<?x?x16xf32>, tensor<?x16x24xf32>) outs(%z : tensor<?x?x24xf32>) -> tensor<?x?x24xf32>
  %r = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %bias : tensor<?x?x24xf32>, tensor<24xf32>) outs(%e : tensor<?x?x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %zz = arith.constant 0.0 : f32
    %p = arith.maximumf %s, %zz : f32
    linalg.yield %p : f32
  } -> tensor<?x?x24xf32>
  return %r : tensor<?x?x24xf32>
}"""

    def gen(bt, m):
        def g(r):
            a, b, bias = rnd(r, bt, m, 16), rnd(r, bt, 16, 24), rnd(r, 24)
            return [a, b, bias], [np.maximum(d(a) @ d(b) + d(bias), 0)]
        return g
    bad = [([np.zeros((2, 3, 16), np.float32), np.zeros((3, 16, 24), np.float32), np.zeros(24, np.float32)],
            "input 1 dimension 0 is 3, must equal input 0 dimension 0 (2)")]
    return src, [gen(*s) for s in [(1, 1), (2, 7), (3, 64), (5, 131)]], bad


@case("reductions", rtol=1e-4, atol=1e-4)
def _():
    src = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @f(%a: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : tensor<?x?xf32>
  %n = tensor.dim %a, %c1 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %er = tensor.empty(%m) : tensor<?xf32>
  %zr = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%zr : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %ec = tensor.empty(%n) : tensor<?xf32>
  %zc = linalg.fill ins(%ninf : f32) outs(%ec : tensor<?xf32>) -> tensor<?xf32>
  %mx = linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%a : tensor<?x?xf32>) outs(%zc : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.maximumf %x, %acc : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %sum, %mx : tensor<?xf32>, tensor<?xf32>
}"""

    def gen(m, n):
        def g(r):
            a = rnd(r, m, n)
            return [a], [d(a).sum(axis=1), d(a).max(axis=0)]
        return g
    return src, [gen(*s) for s in [(1, 1), (1, 1000), (7, 3), (97, 257), (513, 31)]], []


@case("softmax", rtol=1e-4, atol=1e-5)
def _():
    t = "tensor<?x?xf32>"
    src = f"""func.func @f(%a: {t}) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = tensor.dim %a, %c0 : {t}
  %n = tensor.dim %a, %c1 : {t}
  %e = tensor.empty(%m, %n) : {t}
  %s = linalg.softmax dimension(1) ins(%a : {t}) outs(%e : {t}) -> {t}
  return %s : {t}
}}"""

    def gen(m, n):
        def g(r):
            a = rnd(r, m, n, lo=-4, hi=4)
            x = np.exp(d(a) - d(a).max(axis=1, keepdims=True))
            return [a], [x / x.sum(axis=1, keepdims=True)]
        return g
    return src, [gen(*s) for s in [(1, 1), (1, 7), (5, 128), (31, 1000), (300, 17)]], []


@case("softmax_scores", rtol=1e-4, atol=1e-5)
def _():
    # attention's scores [batch*heads, seq, seq] over a run-time sequence:
    # the vector row path with a run-time length (remainder scalar, all of
    # the row when it is shorter than a vector)
    t = "tensor<?x?x?xf32>"
    src = f"""func.func @f(%a: {t}) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %b = tensor.dim %a, %c0 : {t}
  %m = tensor.dim %a, %c1 : {t}
  %n = tensor.dim %a, %c2 : {t}
  %e = tensor.empty(%b, %m, %n) : {t}
  %s = linalg.softmax dimension(2) ins(%a : {t}) outs(%e : {t}) -> {t}
  return %s : {t}
}}"""

    def gen(b, m, n):
        def g(r):
            a = rnd(r, b, m, n, lo=-6, hi=6)
            x = np.exp(d(a) - d(a).max(axis=2, keepdims=True))
            return [a], [x / x.sum(axis=2, keepdims=True)]
        return g
    return src, [gen(*s) for s in [(1, 1, 1), (4, 7, 7), (4, 16, 16), (8, 128, 128), (3, 13, 250)]], []


@case("reshape_slice_chain")
def _():
    # a dynamic batch sliced, flattened, expanded back and padded
    src = """func.func @f(%a: tensor<?x6x4xf32>) -> (tensor<?x3x4xf32>, tensor<?x12xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x6x4xf32>
  %s = tensor.extract_slice %a[0, 2, 0] [%n, 3, 4] [1, 1, 1] : tensor<?x6x4xf32> to tensor<?x3x4xf32>
  %e = math.exp %s : tensor<?x3x4xf32>
  %f = tensor.collapse_shape %e [[0], [1, 2]] : tensor<?x3x4xf32> into tensor<?x12xf32>
  %g = arith.addf %f, %f : tensor<?x12xf32>
  return %e, %g : tensor<?x3x4xf32>, tensor<?x12xf32>
}"""

    def gen(n):
        def g(r):
            a = rnd(r, n, 6, 4)
            e = np.exp(d(a)[:, 2:5, :])
            return [a], [e, (2 * e).reshape(n, 12)]
        return g
    return src, [gen(n) for n in (1, 2, 11, 1000)], []


@case("shape_from_data")
def _():
    # sizes read from an input's data on the host (hal.buffer_view.load):
    # a fill of shape s and a row broadcast to s[0] rows; negative and
    # huge sizes fail with the dimension and the value (hal.check.shape)
    src = """func.func @f(%s: tensor<2xi64>, %v: tensor<f32>, %row: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.extract %s[%c0] : tensor<2xi64>
  %e1 = tensor.extract %s[%c1] : tensor<2xi64>
  %d0 = arith.index_cast %e0 : i64 to index
  %d1 = arith.index_cast %e1 : i64 to index
  %x = tensor.extract %v[] : tensor<f32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %f = linalg.fill ins(%x : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = tensor.dim %row, %c0 : tensor<?xf32>
  %eb = tensor.empty(%d0, %n) : tensor<?x?xf32>
  %b = linalg.broadcast ins(%row : tensor<?xf32>) outs(%eb : tensor<?x?xf32>) dimensions = [0]
  return %f, %b : tensor<?x?xf32>, tensor<?x?xf32>
}"""

    def gen(m, n, k):
        def g(r):
            v = rnd(r)
            row = rnd(r, k)
            return ([np.array([m, n], np.int64), v, row],
                    [np.full((m, n), d(v)), np.broadcast_to(d(row), (m, k))])
        return g
    one = np.ones((), np.float32)
    row = np.ones((3,), np.float32)
    bad = [([np.array([-3, 4], np.int64), one, row],
            "dimension 0 is -3, must be >= 0"),
           ([np.array([1 << 40, 1 << 40], np.int64), one, row],
            "past 2^62 bytes in all"),
           # no bytes, but the kernels take sizes as 32-bit push constants
           ([np.array([0, 1 << 32], np.int64), one, row],
            "is 4294967296, must be <= 4294967295")]
    return src, [gen(m, n, k) for m, n, k in ((1, 1, 1), (3, 7, 5), (0, 4, 2), (13, 129, 31))], bad


@case("slice_bounds")
def _():
    # offset, size and stride read from an input's data: a kernel trusts
    # them, so the host checks each against the sliced dim before any
    # kernel runs (flow.check.range): stride >= 1, then the size, then the
    # offset; bad values fail naming the op's location, what, the dim and
    # the bound, never reading or writing outside a buffer
    src = """func.func @f(%p: tensor<3xi64>, %a: tensor<?x4xf32>, %d: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e0 = tensor.extract %p[%c0] : tensor<3xi64>
  %e1 = tensor.extract %p[%c1] : tensor<3xi64>
  %e2 = tensor.extract %p[%c2] : tensor<3xi64>
  %off = arith.index_cast %e0 : i64 to index
  %sz = arith.index_cast %e1 : i64 to index
  %st = arith.index_cast %e2 : i64 to index
  %s = tensor.extract_slice %a[%off, 0] [%sz, 4] [%st, 1] : tensor<?x4xf32> to tensor<?x4xf32>
  %i = tensor.insert_slice %s into %d[%off, 0] [%sz, 4] [1, 1] : tensor<?x4xf32> into tensor<?x4xf32>
  return %s, %i : tensor<?x4xf32>, tensor<?x4xf32>
}"""

    def gen(n, m, off, sz, st):
        def g(r):
            a, dd = rnd(r, n, 4), rnd(r, m, 4)
            s = d(a)[off:off + (sz - 1) * st + 1:st] if sz else np.zeros((0, 4))
            out = d(dd).copy()
            out[off:off + sz] = s
            return [np.array([off, sz, st], np.int64), a, dd], [s, out]
        return g

    def bad(p, n, m, message):
        return ([np.array(p, np.int64), np.zeros((n, 4), np.float32), np.zeros((m, 4), np.float32)], message)
    cases = [(1, 1, 0, 1, 1), (10, 6, 0, 3, 1), (10, 6, 1, 3, 2), (10, 6, 3, 3, 3), (10, 6, 6, 0, 1),
             (97, 31, 5, 13, 7), (13, 7, 4, 3, 4), (10, 6, 0, 4, 3)]
    bads = [bad([-1, 3, 1], 10, 6, "slice_bounds.mlir:11:8): hal.check.dim_eq: offset[0] is -1, must be >= 0"),
            bad([8, 3, 1], 10, 6, "slice_bounds.mlir:11:8): hal.check.dim_eq: offset[0] is 8, must be <= 7"),
            bad([100, 3, 1], 10, 6, "offset[0] is 100, must be <= 7"),
            bad([1 << 32, 3, 1], 10, 6, "offset[0] is 4294967296, must be <= 7"),
            bad([0, 11, 1], 10, 6, "size[0] is 11, must be <= 10"),
            bad([0, 5, 3], 10, 6, "size[0] is 5, must be <= 4"),
            bad([0, -1, 1], 10, 6, "size[0] is -1, must be >= 0"),
            bad([0, 2, 0], 10, 6, "stride[0] is 0, must be >= 1"),
            bad([1 << 62, 2, 1 << 62], 10, 6, "size[0] is 2, must be <= 1"),
            # the extract is in range, the insert into 6 rows is not
            bad([4, 3, 2], 10, 6, "slice_bounds.mlir:12:8): hal.check.dim_eq: offset[0] is 4, must be <= 3")]
    return src, [gen(*c) for c in cases], bads


@case("element_bounds")
def _():
    # indices read from data select one element (the kernel reads
    # a[i, j]); out of range, or a dim with no element, fails first
    src = """func.func @f(%p: tensor<2xi64>, %a: tensor<?x5xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e0 = tensor.extract %p[%c0] : tensor<2xi64>
  %e1 = tensor.extract %p[%c1] : tensor<2xi64>
  %i = arith.index_cast %e0 : i64 to index
  %j = arith.index_cast %e1 : i64 to index
  %x = tensor.extract %a[%i, %j] : tensor<?x5xf32>
  return %x : f32
}"""

    def gen(n, i, j):
        def g(r):
            a = rnd(r, n, 5)
            return [np.array([i, j], np.int64), a], [d(a)[i, j]]
        return g

    def bad(p, n, message):
        return ([np.array(p, np.int64), np.zeros((n, 5), np.float32)], message)
    bads = [bad([3, 0], 3, "element_bounds.mlir:8:8): hal.check.dim_eq: index[0] is 3, must be <= 2"),
            bad([-1, 2], 3, "index[0] is -1, must be >= 0"),
            bad([0, 5], 3, "index[1] is 5, must be <= 4"),
            bad([0, 1 << 32], 3, "index[1] is 4294967296, must be <= 4"),
            bad([0, 0], 0, "size[0] is 0, must be >= 1")]
    return src, [gen(n, i, j) for n, i, j in ((1, 0, 0), (3, 2, 4), (17, 16, 1))], bads


@case("workgroup_count_range")
def _():
    # the HAL takes workgroup counts as int32 >= 0: a count the host
    # computes past that (a 2^32 - 1 row grid over an empty tensor) is
    # refused, not truncated
    t = "tensor<?x?x?xf32>"
    src = f"""func.func @f(%b: {t}) -> {t} {{
  %r = math.exp %b : {t}
  return %r : {t}
}}"""

    def gen(shape):
        def g(r):
            b = rnd(r, *shape)
            return [b], [np.exp(d(b))]
        return g
    bads = [([np.zeros(((1 << 32) - 1, 1, 0), np.float32)], "must be <= 2147483647")]
    return src, [gen(s) for s in ((1, 1, 1), (3, 5, 7), (0, 4, 2))], bads


@case("shape_from_computed_data")
def _():
    # sizes the program computes itself: the host waits for the commands
    # computing them, reads them (hal.buffer_view.load of a dispatch
    # result) and records the rest into a second command buffer; a size
    # computed from those (3 * d0, a reduction over a d0-long tensor)
    # needs a third. Negative and huge computed sizes fail with the
    # dimension and the value, as sizes read from input data do.
    src = """#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>
func.func @f(%s: tensor<2xi64>, %v: tensor<f32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = arith.addi %s, %s : tensor<2xi64>
  %e0 = tensor.extract %t[%c0] : tensor<2xi64>
  %e1 = tensor.extract %t[%c1] : tensor<2xi64>
  %d0 = arith.index_cast %e0 : i64 to index
  %d1 = arith.index_cast %e1 : i64 to index
  %x = tensor.extract %v[] : tensor<f32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %f = linalg.fill ins(%x : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %three = arith.constant 3 : i64
  %zero = arith.constant 0 : i64
  %en = tensor.empty(%d0) : tensor<?xi64>
  %threes = linalg.fill ins(%three : i64) outs(%en : tensor<?xi64>) -> tensor<?xi64>
  %es = tensor.empty() : tensor<i64>
  %zs = linalg.fill ins(%zero : i64) outs(%es : tensor<i64>) -> tensor<i64>
  %sum = linalg.generic {indexing_maps = [#id, #sc], iterator_types = ["reduction"]}
      ins(%threes : tensor<?xi64>) outs(%zs : tensor<i64>) {
  ^bb0(%a: i64, %acc: i64):
    %r = arith.addi %a, %acc : i64
    linalg.yield %r : i64
  } -> tensor<i64>
  %n64 = tensor.extract %sum[] : tensor<i64>
  %n = arith.index_cast %n64 : i64 to index
  %eg = tensor.empty(%n) : tensor<?xf32>
  %g = linalg.fill ins(%x : f32) outs(%eg : tensor<?xf32>) -> tensor<?xf32>
  return %f, %g : tensor<?x?xf32>, tensor<?xf32>
}"""

    def gen(m, n):
        def g(r):
            v = rnd(r)
            return ([np.array([m, n], np.int64), v],
                    [np.full((2 * m, 2 * n), d(v)), np.full((6 * m,), d(v))])
        return g
    one = np.ones((), np.float32)
    bad = [([np.array([-3, 4], np.int64), one], "dimension 0 is -6, must be >= 0"),
           ([np.array([2, -1], np.int64), one], "dimension 1 is -2, must be >= 0"),
           ([np.array([1 << 40, 1 << 40], np.int64), one], "past 2^62 bytes in all")]
    return src, [gen(m, n) for m, n in ((1, 1), (0, 3), (3, 7), (13, 65))], bad


@case("conv_nchw", rtol=1e-4, atol=1e-4)
def _():
    src = """func.func @f(%x: tensor<?x3x?x?xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %x, %c0 : tensor<?x3x?x?xf32>
  %h = tensor.dim %x, %c2 : tensor<?x3x?x?xf32>
  %wd = tensor.dim %x, %c3 : tensor<?x3x?x?xf32>
  %c1 = arith.constant 1 : index
  %c2i = arith.constant 2 : index
  %oh0 = arith.subi %h, %c2i : index
  %ow0 = arith.subi %wd, %c2i : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n, %oh0, %ow0) : tensor<?x8x?x?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<?x3x?x?xf32>, tensor<8x3x3x3xf32>) outs(%z : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %c : tensor<?x8x?x?xf32>
}"""

    def conv(x, w):
        n, c, h, wd = x.shape
        f = w.shape[0]
        out = np.zeros((n, f, h - 2, wd - 2))
        for i in range(3):
            for j in range(3):
                out += np.einsum("nchw,fc->nfhw", x[:, :, i:i + h - 2, j:j + wd - 2], w[:, :, i, j])
        return out

    def gen(n, h, wd):
        def g(r):
            x, w = rnd(r, n, 3, h, wd), rnd(r, 8, 3, 3, 3)
            return [x, w], [conv(d(x), d(w))]
        return g
    return src, [gen(*s) for s in [(1, 3, 3), (1, 9, 7), (2, 17, 13), (3, 32, 33)]], []


def conv_ref(x, w, stride):
    """NCHW x FCHW, no padding: op_cases.py's NHWC reference, transposed."""
    y = op_cases.conv_nhwc(x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), stride, stride)
    return y.transpose(0, 3, 1, 2)


@case("conv_nchw_batch", rtol=1e-4, atol=1e-4)
def _():
    # constant filters over a run-time batch (spatial and channel dims
    # static): both convolutions become channels-last ones between
    # transposes (the first with output-channel blocks: a 72 KiB filter,
    # the second HWCF, stride 2), and the transposes between them cancel
    # through the bias + ReLU
    r = np.random.default_rng(17)
    w1, b1, w2 = rnd(r, 64, 32, 3, 3, lo=-0.2, hi=0.2), rnd(r, 64), rnd(r, 8, 64, 1, 1, lo=-0.3, hi=0.3)
    t, u, v = "tensor<?x32x9x11xf32>", "tensor<?x64x7x9xf32>", "tensor<?x8x4x5xf32>"
    conv = "linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>}"
    src = f"""func.func @f(%x: {t}) -> {v} {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : {t}
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<{op_cases.fmt_dense(w1)}> : tensor<64x32x3x3xf32>
  %b1 = arith.constant dense<{op_cases.fmt_dense(b1)}> : tensor<64xf32>
  %w2 = arith.constant dense<{op_cases.fmt_dense(w2)}> : tensor<8x64x1x1xf32>
  %e1 = tensor.empty(%n) : {u}
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : {u}) -> {u}
  %c1 = {conv % 1} ins(%x, %w1 : {t}, tensor<64x32x3x3xf32>) outs(%z1 : {u}) -> {u}
  %a = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c1, %b1 : {u}, tensor<64xf32>) outs(%e1 : {u}) {{
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  }} -> {u}
  %e2 = tensor.empty(%n) : {v}
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : {v}) -> {v}
  %c2 = {conv % 2} ins(%a, %w2 : {u}, tensor<8x64x1x1xf32>) outs(%z2 : {v}) -> {v}
  return %c2 : {v}
}}"""

    def gen(n):
        def g(r):
            x = rnd(r, n, 32, 9, 11)
            a = np.maximum(conv_ref(d(x), d(w1), 1) + d(b1)[None, :, None, None], 0)
            return [x], [conv_ref(a, d(w2), 2)]
        return g
    return src, [gen(n) for n in (1, 2, 3, 7, 13)], []


@case("layernorm_rows", rtol=1e-4, atol=1e-4)
def _():
    # LayerNorm of x + r over 20 features (not a multiple of the vector
    # width) with a run-time batch and sequence: mean, variance and the
    # normalization form one dispatch (form-dispatch-regions' row chain)
    # whose per-row values live in a buffer of the row tile's size; the
    # normalization writes its result transposed to [seq, batch, 20] (as
    # an attention block after it wants it) and iterates in that order:
    # interchanged to take the rows first. Shapes: 1, primes, sequences
    # past and not multiples of the row tile.
    t, rt, o = "tensor<?x?x20xf32>", "tensor<?x?xf32>", "tensor<?x?x20xf32>"
    m3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
    row = "affine_map<(d0, d1, d2) -> (d0, d1)>"
    tr3 = "affine_map<(d0, d1, d2) -> (d1, d0, d2)>"
    trow = "affine_map<(d0, d1, d2) -> (d1, d0)>"
    src = f"""func.func @f(%x: {t}, %r: {t}) -> {o} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : {t}
  %s = tensor.dim %x, %c1 : {t}
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty(%b, %s) : {rt}
  %z = linalg.fill ins(%zero : f32) outs(%er : {rt}) -> {rt}
  %sum = linalg.generic {{indexing_maps = [{m3}, {m3}, {row}], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x, %r : {t}, {t}) outs(%z : {rt}) {{
  ^bb0(%a: f32, %q: f32, %acc: f32):
    %v = arith.addf %a, %q : f32
    %u = arith.addf %acc, %v : f32
    linalg.yield %u : f32
  }} -> {rt}
  %var = linalg.generic {{indexing_maps = [{m3}, {m3}, {row}, {row}], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x, %r, %sum : {t}, {t}, {rt}) outs(%z : {rt}) {{
  ^bb0(%a: f32, %q: f32, %m: f32, %acc: f32):
    %inv = arith.constant 0.05 : f32
    %mean = arith.mulf %m, %inv : f32
    %v = arith.addf %a, %q : f32
    %dd = arith.subf %v, %mean : f32
    %sq = arith.mulf %dd, %dd : f32
    %u = arith.addf %acc, %sq : f32
    linalg.yield %u : f32
  }} -> {rt}
  %e = tensor.empty(%s, %b) : {o}
  %y = linalg.generic {{indexing_maps = [{tr3}, {tr3}, {trow}, {trow}, {m3}], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%x, %r, %sum, %var : {t}, {t}, {rt}, {rt}) outs(%e : {o}) {{
  ^bb0(%a: f32, %q: f32, %m: f32, %w: f32, %out: f32):
    %inv = arith.constant 0.05 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %m, %inv : f32
    %vv = arith.mulf %w, %inv : f32
    %v = arith.addf %a, %q : f32
    %dd = arith.subf %v, %mean : f32
    %ve = arith.addf %vv, %eps : f32
    %sd = math.sqrt %ve : f32
    %n = arith.divf %dd, %sd : f32
    linalg.yield %n : f32
  }} -> {o}
  return %y : {o}
}}"""

    def gen(b, sq):
        def g(r):
            x, y = rnd(r, b, sq, 20, lo=-2, hi=3), rnd(r, b, sq, 20)
            v = d(x) + d(y)
            n = (v - v.mean(axis=2, keepdims=True)) / np.sqrt(v.var(axis=2, keepdims=True) + 1e-5)
            return [x, y], [n.transpose(1, 0, 2)]
        return g
    return src, [gen(*s) for s in [(1, 1), (1, 7), (3, 37), (2, 64), (5, 33)]], []


@case("rmsnorm_rows", rtol=1e-4, atol=1e-4)
def _():
    # RMSNorm (T5's: no mean subtracted) as the ONNX importer writes it,
    # over 20 features with a run-time batch and sequence: the sum of
    # squares and its mean over [b, s], then (past an expand_shape to
    # [b, s, 1], which keeps the two elementwise ops apart) the reciprocal
    # root, and the scaled product. One dispatch; the three row values,
    # each from its own tensor.empty, share one buffer of run-time size in
    # place, written from the reduction's fill on, before the later
    # values' empties (bufferize-kernels must size it where its dims are
    # defined, not after the last empty: "does not dominate" otherwise).
    t, rt, r1 = "tensor<?x?x20xf32>", "tensor<?x?xf32>", "tensor<?x?x1xf32>"
    m3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"
    row = "affine_map<(d0, d1, d2) -> (d0, d1)>"
    ch = "affine_map<(d0, d1, d2) -> (d2)>"
    bc = "affine_map<(d0, d1, d2) -> (d0, d1, 0)>"
    m2 = "affine_map<(d0, d1) -> (d0, d1)>"
    src = f"""func.func @f(%x: {t}, %w: tensor<20xf32>) -> {t} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = tensor.dim %x, %c0 : {t}
  %s = tensor.dim %x, %c1 : {t}
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%b, %s) : {rt}
  %z = linalg.fill ins(%zero : f32) outs(%e0 : {rt}) -> {rt}
  %sq = linalg.generic {{indexing_maps = [{m3}, {row}], iterator_types = ["parallel", "parallel", "reduction"]}} ins(%x : {t}) outs(%z : {rt}) {{
  ^bb0(%a: f32, %acc: f32):
    %p = arith.mulf %a, %a : f32
    %u = arith.addf %acc, %p : f32
    linalg.yield %u : f32
  }} -> {rt}
  %b1 = tensor.dim %sq, %c0 : {rt}
  %s1 = tensor.dim %sq, %c1 : {rt}
  %e1 = tensor.empty(%b1, %s1) : {rt}
  %mean = linalg.generic {{indexing_maps = [{m2}, {m2}], iterator_types = ["parallel", "parallel"]}} ins(%sq : {rt}) outs(%e1 : {rt}) {{
  ^bb0(%a: f32, %o: f32):
    %n = arith.constant 20.0 : f32
    %m = arith.divf %a, %n : f32
    linalg.yield %m : f32
  }} -> {rt}
  %ex = tensor.expand_shape %mean [[0], [1, 2]] output_shape [%b1, %s1, 1] : {rt} into {r1}
  %e2 = tensor.empty(%b1, %s1) : {r1}
  %inv = linalg.generic {{indexing_maps = [{m3}, {m3}], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%ex : {r1}) outs(%e2 : {r1}) {{
  ^bb0(%a: f32, %o: f32):
    %eps = arith.constant 1.0e-6 : f32
    %one = arith.constant 1.0 : f32
    %v = arith.addf %a, %eps : f32
    %r = math.sqrt %v : f32
    %q = arith.divf %one, %r : f32
    linalg.yield %q : f32
  }} -> {r1}
  %e3 = tensor.empty(%b, %s) : {t}
  %y = linalg.generic {{indexing_maps = [{ch}, {m3}, {bc}, {m3}], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%w, %x, %inv : tensor<20xf32>, {t}, {r1}) outs(%e3 : {t}) {{
  ^bb0(%g: f32, %a: f32, %q: f32, %o: f32):
    %n = arith.mulf %a, %q : f32
    %m = arith.mulf %g, %n : f32
    linalg.yield %m : f32
  }} -> {t}
  return %y : {t}
}}"""

    def gen(b, sq):
        def g(r):
            x, w = rnd(r, b, sq, 20, lo=-2, hi=3), rnd(r, 20, lo=0.5, hi=1.5)
            n = d(x) / np.sqrt((d(x) ** 2).mean(axis=2, keepdims=True) + 1e-6)
            return [x, w], [d(w) * n]
        return g
    return src, [gen(*s) for s in [(1, 1), (2, 7), (3, 37)]], []


# ---- driver --------------------------------------------------------------

def sh(cmd, env=None, ok=True):
    print("$ " + " ".join(a if len(a) < 120 else a[:117] + "..." for a in cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sys.stdout.write(r.stdout[-4000:] + r.stderr[-4000:])
    if ok and r.returncode != 0:
        raise AssertionError("%s exited with %d" % (os.path.basename(cmd[0]), r.returncode))
    return r


def run(kr, module, device, ins, nres, work, tag):
    cmd = [kr, "--module=" + module, "--function=f", "--device=" + device]
    for i, v in enumerate(ins):
        p = os.path.join(work, "%s_in%d.npy" % (tag, i))
        np.save(p, v)
        cmd.append("--input=@" + p)
    outs = [os.path.join(work, "%s_out%d.npy" % (tag, j)) for j in range(nres)]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)
    sh(cmd + ["--output=@" + o for o in outs])
    return [np.load(o) for o in outs]


def compare(got, want, rtol, atol, what):
    for j, (g, w) in enumerate(zip(got, want)):
        w = np.asarray(w)
        if g.shape != w.shape:
            raise AssertionError("%s result %d: shape %s, expected %s" % (what, j, g.shape, w.shape))
        err = np.max(np.abs(g.astype(np.float64) - w)) if g.size else 0.0
        if not np.allclose(g, w, rtol=rtol, atol=atol):
            raise AssertionError("%s result %d: max abs error %g" % (what, j, err))
        print("%s result %d %s: max abs error %g" % (what, j, g.shape, err))


def refuse(kr, module, device, bad, work):
    """Each bad call must fail with its message; returns how many did."""
    for k, (ins, message) in enumerate(bad):
        cmd = [kr, "--module=" + module, "--function=f", "--device=" + device]
        for i, v in enumerate(ins):
            p = os.path.join(work, "bad%d_in%d.npy" % (k, i))
            np.save(p, v)
            cmd.append("--input=@" + p)
        res = sh(cmd, ok=False)
        if res.returncode == 0 or message not in res.stderr:
            raise AssertionError("bad call %d: expected a failure saying '%s'" % (k, message))
        print("bad call %d refused: %s" % (k, message))
    return len(bad)


def check_ptx(kd, module, work):
    import glob
    import shutil
    out = os.path.join(work, "extract")
    shutil.rmtree(out, ignore_errors=True)
    sh([kd, module, "--extract=" + out])
    ptx = sorted(glob.glob(os.path.join(out, "*.ptx")))
    if len(ptx) < 2:
        raise AssertionError("expected PTX for sm_80 and sm_90, got %d files" % len(ptx))
    if not os.path.exists(PTXAS):
        print("ptxas check skipped: %s is missing (%d PTX files not assembled)" % (PTXAS, len(ptx)))
        return
    for p in ptx:
        sm = "sm_90" if "sm_90" in p else "sm_80"
        sh([PTXAS, "--gpu-name", sm, p, "-o", os.devnull])
    print("ptxas: %d PTX files assemble" % len(ptx))


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print(";".join(CASES))
        return 0
    name, kc, kr, kd, work, device = argv[1:7]
    fn, rtol, atol = CASES[name]
    os.makedirs(work, exist_ok=True)
    src_text, gens, bad = fn()
    src = os.path.join(work, name + ".mlir")
    with open(src, "w") as f:
        f.write(src_text + "\n")
    r = np.random.RandomState(sum(map(ord, name)))
    sets = [g(r) for g in gens]
    passed = 0
    try:
        if device == "gpu":
            module = os.path.join(work, name + "_three.kiln")
            sh([kc, src, "-o", module, "--target=cuda:sm_80", "--target=cuda:sm_90", "--target=llvm-cpu"])
            check_ptx(kd, module, work)
            for k, (ins, want) in enumerate(sets):
                compare(run(kr, module, "local-sync", ins, len(want), work, "cpu%d" % k), want, rtol, atol,
                        "cpu shape %d" % k)
            env = dict(os.environ, KILN_GPU_SIMT_CPU="1")
            for sm in ("sm_80", "sm_90"):
                simt = os.path.join(work, "%s_simt_%s.kiln" % (name, sm))
                sh([kc, src, "-o", simt, "--target=cuda:" + sm], env)
                for k, (ins, want) in enumerate(sets):
                    got = run(kr, simt, "local-sync", ins, len(want), work, "simt%d" % k)
                    compare(got, want, max(rtol, 1e-4), max(atol, 1e-4), "SIMT-on-CPU %s shape %d" % (sm, k))
                    passed += 1
                # the GPU module's host program checks the same relations
                passed += refuse(kr, simt, "local-sync", bad, work)
        else:
            module = os.path.join(work, name + ".kiln")
            sh([kc, src, "-o", module])
            for k, (ins, want) in enumerate(sets):
                compare(run(kr, module, device, ins, len(want), work, "s%d" % k), want, rtol, atol,
                        "shape %d" % k)
                passed += 1
            passed += refuse(kr, module, device, bad, work)
    except AssertionError as e:
        print("FAIL: %s" % e)
        print("%d passed, 1 failed" % passed)
        return 1
    print("%d passed, 0 failed" % passed)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
