#!/usr/bin/python3
"""e2e for streamed matmuls (cg_streamed_matmul, compiler/codegen/common;
lower_streamed, compiler/codegen/cpu/lower_matmul.c): a matmul of 1 to 4
rows whose B is past the 16 MiB pre-packing cap is tiled in wide column
tiles and reads B row by row into C. Programs go through kiln-compile and
kiln-run; results are compared with numpy, and the launch config is
checked in the codegen IR (the wide tile: the tile_sizes the rule picks).

usage: run_streamed.py KILN_COMPILE KILN_RUN WORKDIR DEVICE

Cases: M = 1, 2, 3, 4 (C's rows updated in place, u rows of B per step
with K % u left over for steps of one), K and N not
multiples of the vector width (N % 16 columns as scalars, a last tile
narrower than the others), N below one vector, B given at run time and
as a constant, fill + bias + ReLU epilogues, and a matmul of 5 rows with
the same B (not streamed: the register tiles) as the control.
"""
import os
import sys

import numpy as np

from matmul_mlir import command_line, compile_checked, dense, matmul, program, run_module, tt, verdict


def run_case(kc, kr, work, device, name, src, inputs, expect, tiles):
    want = "tile_sizes = array<i64: %s>" % ", ".join(str(t) for t in tiles)
    mod, err = compile_checked(kc, work, name, src, "select-launch-config", [want])
    if err:
        return err
    try:
        return run_module(kr, mod, device, work, name, inputs, expect)
    finally:
        os.remove(mod)


def main():
    args = command_line(__doc__)
    if args is None:
        return 2
    kc, kr, work, device = args
    rng = np.random.default_rng(13)
    f32 = np.float32
    failures = []

    def rnd(*s):
        return rng.standard_normal(s).astype(f32)

    relu = lambda a: np.maximum(a, 0)  # noqa: E731
    # (M, K, N, bias + ReLU, expected tile sizes [M, N, K]). B has more
    # than 4 Mi elements (16 MiB) in each, K x N.
    # Rows of B per step (u) with 16 accumulators (AVX-512; 8 with the
    # CPU features masked to x86-64's baseline: u = 8, 4, 2, 2):
    #  1 x 2053 x 2100: 5 tiles of 512 columns (the last 52: 3 vectors
    #    and 4 scalar columns), u = 8, K % 8 = 5 rows left over
    #  2 x 4099 x 1030: 1030 % 16 = 6 scalar columns, 5 tiles of 256,
    #    u = 8, K % 8 = 3
    #  3 x 1111 x 3777: u = 16 / 3 = 5, K % 5 = 1
    #  4 x 2731 x 1537: u = 4, K % 4 = 3, an odd tile count (7 of 256)
    #  1 x 1048583 x 5: N below one vector: all scalar, one workgroup
    for (m, k, n, act, tiles) in [(1, 2053, 2100, True, (1, 512, 0)),
                                  (2, 4099, 1030, False, (2, 256, 0)),
                                  (3, 1111, 3777, True, (3, 1024, 0)),
                                  (4, 2731, 1537, True, (4, 256, 0)),
                                  (1, 1048583, 5, False, (0, 0, 0))]:
        name = "stream_m%d_k%d_n%d" % (m, k, n)
        x, w, b = rnd(m, k), rnd(k, n), rnd(n)
        if k > 1 << 20:  # small integers: the long sums exact in f32
            x, w = rng.integers(-2, 3, (m, k)).astype(f32), rng.integers(-2, 3, (k, n)).astype(f32)
        lines = ["  %%bias = arith.constant %s" % dense(b)]
        lines += matmul("y", "x", "w", m, k, n, bias="bias" if act else None, relu=act)
        src = program([("x", tt((m, k))), ("w", tt((k, n)))], [("y", tt((m, n)))], lines)
        ref = x.astype(np.float64) @ w.astype(np.float64)
        ref = relu(ref + b) if act else ref
        failures.append(run_case(kc, kr, work, device, name, src, [x, w], [ref], tiles))
    # A constant B (a classifier's weights), bias + ReLU, and the same B
    # at 5 rows (not streamed: 64 x 64 register tiles).
    k, n = 2081, 2017
    w, b = rnd(k, n), rnd(n)
    for m, tiles in [(2, (2, 512, 0)), (5, (5, 64, 0))]:
        x = rnd(m, k)
        lines = ["  %%w = arith.constant %s" % dense(w), "  %%bias = arith.constant %s" % dense(b)]
        lines += matmul("y", "x", "w", m, k, n, bias="bias", relu=True)
        src = program([("x", tt((m, k)))], [("y", tt((m, n)))], lines)
        ref = relu(x.astype(np.float64) @ w.astype(np.float64) + b)
        failures.append(run_case(kc, kr, work, device, "const_m%d" % m, src, [x], [ref], tiles))
    return verdict("run_streamed", failures)


if __name__ == "__main__":
    sys.exit(main())
