#!/usr/bin/python3
"""e2e for weights pre-packed at compile time (compiler/codegen/cpu/
prepack.c, lower_matmul.c): programs whose matmuls read constant weights
go through kiln-compile and kiln-run; results are compared with numpy, and
the codegen IR is checked for the packed binding where the weights must
be packed (a [K, N] constant read in column tiles of 64 becomes a
[N/64, K, 64] binding) and for its absence where they must not be.

usage: run_prepack.py KILN_COMPILE KILN_RUN WORKDIR DEVICE

Cases: odd M (1, 2, 3, 4: few rows, the matvec register tile; 7, 130: a
partial row tile, the kernel in two versions),
a run-time M (one module run at M = 0, 1, primes, 64, 65, 128, 257: a
partial row tile of run-time size, the packed weights read by both
versions through one binding op), K with and without a K block
(129, 64, 512), bias + ReLU epilogues, a matmul over two row tiles with
two K blocks, two dispatches of one executable
with different weights, a constant also read by another dispatch (packed
into a copy, the original kept for the other reader), weights given at
run time (never packed), N = 64 (one column tile: nothing to pack), and
widths that column tiles of 64 do not divide (N = 96, 100, 288: versions
with tiles of 64 and of the remainder, which reads the last block, padded
with zeros to 64 columns; with M = 130 as well, four versions).
"""
import sys

import numpy as np

from matmul_mlir import command_line, compile_checked, dense, matmul, program, run_module, tt, verdict


def run_case(kc, kr, work, device, name, src, inputs, expect, packed, not_packed):
    mod, err = compile_checked(kc, work, name, src, "lower-to-loops", packed, not_packed)
    return err or run_module(kr, mod, device, work, name, inputs, expect)


def run_dynamic(kc, kr, work, device, name, src, k, ms, w, bias, act, packed):
    """One module whose x has a run-time row count, run at each M of ms
    (partial row tiles: the microkernel over a run-time M)."""
    mod, err = compile_checked(kc, work, name, src, "lower-to-loops", [packed] if packed else [])
    if err:
        return err
    rng = np.random.default_rng(len(ms))
    for m in ms:
        x = rng.standard_normal((m, k)).astype(np.float32)
        ref = x.astype(np.float64) @ w + (0 if bias is None else bias)
        ref = np.maximum(ref, 0) if act else ref
        err = run_module(kr, mod, device, work, "%s.m%d" % (name, m), [x], [ref])
        if err:
            return err
    return None


def main():
    args = command_line(__doc__)
    if args is None:
        return 2
    kc, kr, work, device = args
    rng = np.random.default_rng(14)
    f32 = np.float32
    failures = []

    def rnd(*s):
        return rng.standard_normal(s).astype(f32)

    relu = lambda a: np.maximum(a, 0)  # noqa: E731
    # One matmul + bias (+ ReLU) with constant weights and bias.
    # 1, 2 and 4 rows take the matvec tile of 4 column vectors (one pass
    # over each packed row; 3 rows keep 2 vectors on 8 accumulators);
    # 200, 100 and 136 columns end in tiles of 8, 36 and 8 (a vector tail).
    # 130 rows split the kernel into a full-tile and a partial-tile
    # version, each with its own binding: both read the packed blocks. 96,
    # 100 and 288 columns give the versions tiles of different widths (64
    # and the remainder, 36 of them not a whole number of vectors): one
    # layout of 64-column blocks, the last one padded.
    for (m, k, n, act, packs) in [(7, 129, 192, True, True), (130, 512, 128, False, True),
                                  (1, 64, 256, True, True), (33, 96, 64, True, False),
                                  (128, 512, 192, True, True), (256, 1024, 128, False, True),
                                  (16, 40, 96, False, True), (7, 129, 100, True, True),
                                  (130, 256, 288, True, True), (1, 64, 96, False, True),
                                  (1, 33, 200, True, True), (2, 129, 100, False, True),
                                  (4, 50, 192, True, True), (3, 17, 136, True, True)]:
        name = "gemm_m%d_k%d_n%d" % (m, k, n)
        x, w, b = rnd(m, k), rnd(k, n), rnd(n)
        lines = ["  %%w = arith.constant %s" % dense(w), "  %%bias = arith.constant %s" % dense(b)]
        lines += matmul("y", "x", "w", m, k, n, bias="bias", relu=act)
        src = program([("x", tt((m, k)))], [("y", tt((m, n)))], lines)
        ref = x.astype(np.float64) @ w + b
        ref = relu(ref) if act else ref
        pt = "memref<%dx%dx64xf32>" % ((n + 63) // 64, k)
        failures.append(run_case(kc, kr, work, device, name, src, [x], [ref],
                                 [pt] if packs else [], [] if packs else [pt, "x%dx32xf32>" % k]))
    # A run-time M (x: tensor<?xKxf32>): the kernel splits into a full
    # row tile and a partial one of run-time size; both read the packed
    # weights (one binding op above the split, read by both versions), and
    # the partial one runs the microkernel over its rows in blocks of the
    # register tile's rows and then of 4, 2, 1. M = 0, 1, primes, the tile
    # (64), a multiple (128) and non-multiples of it and of 8.
    ms = [0, 1, 2, 3, 5, 7, 13, 31, 64, 65, 97, 128, 130, 257]
    for (k, n, act, bias, packs) in [(129, 192, True, True, True), (512, 128, False, False, True),
                                     (64, 100, True, True, True), (40, 24, False, True, False),
                                     (256, 1024, True, True, True)]:
        name = "dyn_gemm_k%d_n%d" % (k, n)
        w, b = rnd(k, n), rnd(n) if bias else None
        lines = ["  %i0 = arith.constant 0 : index", "  %%m = tensor.dim %%x, %%i0 : %s" % tt(("?", k)),
                 "  %%w = arith.constant %s" % dense(w)]
        if bias:
            lines.append("  %%bias = arith.constant %s" % dense(b))
        lines += matmul("y", "x", "w", "?", k, n, bias="bias" if bias else None, relu=act)
        src = program([("x", tt(("?", k)))], [("y", tt(("?", n)))], lines)
        pt = "memref<%dx%dx64xf32>" % ((n + 63) // 64, k) if packs else None
        failures.append(run_dynamic(kc, kr, work, device, name, src, k, ms, w, b, act, pt))
    # Two dispatches of one executable (the same kernel), different weights.
    m, k, n = 9, 128, 128
    x, w1, w2 = rnd(m, k), rnd(k, n), rnd(n, n)
    lines = ["  %%w1 = arith.constant %s" % dense(w1), "  %%w2 = arith.constant %s" % dense(w2)]
    lines += matmul("h", "x", "w1", m, k, n, relu=True) + matmul("y", "h", "w2", m, n, n, relu=True)
    src = program([("x", tt((m, k)))], [("y", tt((m, n)))], lines)
    ref = relu(relu(x.astype(np.float64) @ w1) @ w2)
    failures.append(run_case(kc, kr, work, device, "two_sites", src, [x], [ref],
                             ["memref<2x128x64xf32>"], []))
    # A constant read as weights and by another dispatch: the matmul reads
    # a packed copy, the add the original.
    lines = ["  %%w = arith.constant %s" % dense(w1)]
    lines += matmul("y", "x", "w", m, k, n)
    lines.append("  %%e2 = tensor.empty() : %s" % tt((k, n)))
    lines.append("  %%z = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], "
                 "iterator_types = [\"parallel\", \"parallel\"]} ins(%%w : %s) outs(%%e2 : %s) {\n"
                 "  ^bb0(%%a: f32, %%o: f32):\n    %%d = arith.mulf %%a, %%a : f32\n    linalg.yield %%d : f32\n  } -> %s"
                 % (tt((k, n)), tt((k, n)), tt((k, n))))
    src = program([("x", tt((m, k)))], [("y", tt((m, n))), ("z", tt((k, n)))], lines)
    failures.append(run_case(kc, kr, work, device, "shared_constant", src, [x],
                             [x.astype(np.float64) @ w1, w1.astype(np.float64) ** 2],
                             ["memref<2x128x64xf32>"], []))
    # Weights given at run time: never packed (2 rows: the matvec tile
    # reads B's rows in place).
    for rows in (m, 2):
        lines = matmul("y", "x", "w", rows, k, n, relu=True)
        src = program([("x", tt((rows, k))), ("w", tt((k, n)))], [("y", tt((rows, n)))], lines)
        failures.append(run_case(kc, kr, work, device, "runtime_weights_m%d" % rows, src, [x[:rows], w1],
                                 [relu(x[:rows].astype(np.float64) @ w1)], [], ["memref<2x128x64xf32>"]))
    return verdict("run_prepack", failures)


if __name__ == "__main__":
    sys.exit(main())
