#!/usr/bin/python3
"""e2e for the int8 matmul (compiler/codegen/cpu/lower_matmul.c, vector.dot4):
linalg.matmul i8 x i8 -> i32 with constant weights goes through
kiln-compile and kiln-run for several llvm-cpu targets (the host; x86-64
with AVX-512 but no VNNI, AVX2 with and without AVX-VNNI, SSE: vpdpbusd
with VNNI, pmaddwd of i16 pairs without); results must equal numpy's int64
product exactly, the codegen IR must hold vector.dot4 with the target's isa
and the weights' binding packed in groups of 4 K ([N/tn, K/4, 4 tn]; with
vpdpbusd one more row per block: the compile-time column sums).
A target this host cannot run is compiled and checked, not run, and the
script says so.

usage: run_int8.py KILN_COMPILE KILN_RUN WORKDIR DEVICE [TARGET=ISA,...]

TARGET=ISA,... replaces the targets (ISA "-": no isa; tests/cross runs
aarch64 with and without +dotprod, isa sdot, under QEMU); the
environment's KILN_RUN_EMULATOR, when set, prefixes kiln-run.

Cases: odd M (1, 7, 130: partial row tiles), K = 4, 100, 512, N = 32, 96,
128, 160, 192, 256 (column tiles of 16, 48, 32, 64), N = 16 (one tile: the
whole binding), full-range weights
and activations (-128 and 127 included); and shapes the microkernel does
not take (K % 4 != 0, N = 20), which the generic loops compute (sign-extending the i8 operands), checked too.
REQUANT cases add what a quantized Linear does after the product: an i32
bias, to f32, a scale, clamped and truncated to i8, written to another
buffer; the register tiles apply it (cpu_fused_epilogue_to; the bias
starts the accumulators), so the IR must store no i32 vector, and the i8
results equal numpy's float32 ones.
DYNAMIC cases take rows of run-time count (tensor<?xKxi8>: a quantized
model's run-time batch; N = 16 too, the whole weight binding one column
tile), one module each run at M = 1, 5, 64 and 131
(whole row tiles of 64, and the partial last tile's rows in the
microkernel's blocks of 8, 4, 2, 1); the requantizing one keeps its i32
sums in the tiles too (a kernel-local buffer of run-time size, confined
to the workgroup's tile: no i32 vector stored).
"""
import os
import shlex
import subprocess
import sys

import numpy as np

TARGETS = [
    # (target, isa the IR must name or None)
    ("llvm-cpu", "host"),
    ("llvm-cpu:x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "pmaddwd512"),
    ("llvm-cpu:x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma+avx512vnni", "avx512vnni"),
    ("llvm-cpu:x86_64+avx2+fma+avxvnni", "avxvnni"),
    ("llvm-cpu:x86_64+avx2+fma", "pmaddwd256"),
    ("llvm-cpu:x86_64", "pmaddwd128"),
]
CASES = [(7, 100, 128), (130, 64, 192), (1, 512, 128), (64, 4, 256),
         # column tiles of 48, 16, 32 and 32 (launch rule: N's largest divisor
         # among 64, 48, 32, 16 below N)
         (9, 16, 96), (70, 24, 32), (5, 36, 160), (5, 12, 64),
         # N = 16, one column tile: the whole weight binding packed as one block
         (4, 8, 16), (130, 20, 16)]
# Not the microkernel's form (K not a multiple of 4, N not a multiple of
# the vector width): the generic loops, exact all the same.
FALLBACK = [(3, 6, 20), (2, 30, 128)]
# column tiles of 64 (pairs of vectors) and of 48 (threes on 16 lanes, row
# tiles of 5 and a partial one): the bias add starts the accumulators
REQUANT = [(9, 64, 128), (130, 100, 192), (37, 20, 96), (12, 16, 144)]
SCALE = 0.0078125 * 1.5  # exact in f32: numpy's float32 product is the kernel's
# (K, N, requantized), each run at every DYNAMIC_M; N = 16: the weights
# one column tile, the whole binding, read by the full- and partial-tile
# versions of the kernel through one binding op above their split
DYNAMIC = [(36, 96, False), (100, 64, True), (32, 16, True)]
DYNAMIC_M = (1, 5, 64, 131)


def rows(m):
    """M as a tensor type's dim, and the tensor.empty operands it needs
    ("?" rows are x's dim 0)."""
    return ("?", "%d") if m is None else (str(m), "")


def program(m, k, n, w):
    mt, dyn = rows(m)
    ti, tw, to = "tensor<%sx%dxi8>" % (mt, k), "tensor<%dx%dxi8>" % (k, n), "tensor<%sx%dxi32>" % (mt, n)
    return ("func.func @main(%%x: %s) -> %s {\n"
            "  %%c0 = arith.constant 0 : index\n"
            "  %%d = tensor.dim %%x, %%c0 : %s\n"
            "  %%zero = arith.constant 0 : i32\n"
            "  %%w = arith.constant dense<\"0x%s\"> : %s\n"
            "  %%e = tensor.empty(%s) : %s\n"
            "  %%f = linalg.fill ins(%%zero : i32) outs(%%e : %s) -> %s\n"
            "  %%r = linalg.matmul ins(%%x, %%w : %s, %s) outs(%%f : %s) -> %s\n"
            "  return %%r : %s\n}\n" % (ti, to, ti, w.tobytes().hex().upper(), tw, dyn, to, to, to, ti, tw, to, to,
                                          to))


def program_requant(m, k, n, w, bias):
    """The product, + bias, * SCALE in f32, clamped to [-128, 127], to i8."""
    mt, dyn = rows(m)
    ti, tw, to, tq = ("tensor<%sx%dxi8>" % (mt, k), "tensor<%dx%dxi8>" % (k, n),
                      "tensor<%sx%dxi32>" % (mt, n), "tensor<%sx%dxi8>" % (mt, n))
    tb = "tensor<%dxi32>" % n
    return ("func.func @main(%%x: %s) -> %s {\n"
            "  %%c0 = arith.constant 0 : index\n"
            "  %%d = tensor.dim %%x, %%c0 : %s\n"
            "  %%zero = arith.constant 0 : i32\n"
            "  %%s = arith.constant %r : f32\n"
            "  %%lo = arith.constant -128.0 : f32\n"
            "  %%hi = arith.constant 127.0 : f32\n"
            "  %%w = arith.constant dense<\"0x%s\"> : %s\n"
            "  %%b = arith.constant dense<\"0x%s\"> : %s\n"
            "  %%e = tensor.empty(%s) : %s\n"
            "  %%f = linalg.fill ins(%%zero : i32) outs(%%e : %s) -> %s\n"
            "  %%r = linalg.matmul ins(%%x, %%w : %s, %s) outs(%%f : %s) -> %s\n"
            "  %%e2 = tensor.empty(%s) : %s\n"
            "  %%q = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, "
            "affine_map<(i, j) -> (i, j)>], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%r, %%b : %s, %s) outs(%%e2 : %s) {\n"
            "  ^bb0(%%a: i32, %%c: i32, %%o: i8):\n"
            "    %%t = arith.addi %%a, %%c : i32\n"
            "    %%v = arith.sitofp %%t : i32 to f32\n"
            "    %%y = arith.mulf %%v, %%s : f32\n"
            "    %%y1 = arith.maximumf %%y, %%lo : f32\n"
            "    %%y2 = arith.minimumf %%y1, %%hi : f32\n"
            "    %%z = arith.fptosi %%y2 : f32 to i8\n"
            "    linalg.yield %%z : i8\n"
            "  } -> %s\n"
            "  return %%q : %s\n}\n"
            % (ti, tq, ti, SCALE, w.tobytes().hex().upper(), tw, bias.astype("<i4").tobytes().hex().upper(), tb,
               dyn, to, to, to, ti, tw, to, to, dyn, tq, to, tb, tq, tq, tq))


def main():
    if len(sys.argv) not in (5, 6):
        print(__doc__)
        return 2
    kc, kr, work, device = sys.argv[1:5]
    targets = TARGETS
    if len(sys.argv) == 6:
        targets = [(t, None if i == "-" else i) for t, i in (x.split("=", 1) for x in sys.argv[5].split(","))]
    emulator = shlex.split(os.environ.get("KILN_RUN_EMULATOR", ""))
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(24)
    failures, ran, not_run = [], 0, []
    # (M of the module: None = run-time rows, the Ms it runs at, K, N, requantized, microkernel form)
    jobs = [(m, [m], k, n, (m, k, n) in REQUANT, (m, k, n) not in FALLBACK) for (m, k, n) in CASES + FALLBACK + REQUANT]
    jobs += [(None, list(DYNAMIC_M), k, n, rq, True) for (k, n, rq) in DYNAMIC]
    for (m, ms, k, n, requant, micro) in jobs:
        w = rng.integers(-128, 128, (k, n), dtype=np.int8)
        w[0, 0], w[-1, -1] = -128, 127
        bias = rng.integers(-5000, 5000, (n,), dtype=np.int32) if requant else None
        name = "%s%sx%dx%d" % ("rq" if requant else "mm", "dyn" if m is None else str(m), k, n)
        src = os.path.join(work, name + ".mlir")
        with open(src, "w") as f:
            f.write(program_requant(m, k, n, w, bias) if requant else program(m, k, n, w))
        runs = []  # (input path, reference) per M
        for mi in ms:
            x = rng.integers(-128, 128, (mi, k), dtype=np.int8)
            x[0, 0], x[-1, -1] = -128, 127
            ref = x.astype(np.int64) @ w.astype(np.int64)
            if requant:
                y = (ref + bias).astype(np.float32) * np.float32(SCALE)
                ref = np.trunc(np.clip(y, np.float32(-128), np.float32(127))).astype(np.int8)
            xin = os.path.join(work, "%s.m%d.x.npy" % (name, mi))
            np.save(xin, x)
            runs.append((mi, xin, ref))
        for ti, (target, isa) in enumerate(targets):
            what = "%s on %s" % (name, target)
            mod = os.path.join(work, "%s.t%d.kiln" % (name, ti))
            r = subprocess.run([kc, src, "-o", mod, "--target=" + target, "--print-ir-after=lower-to-loops"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                failures.append("%s: kiln-compile failed:\n%s" % (what, r.stderr[-3000:]))
                continue
            ir = r.stderr
            if micro and "vector.dot4" not in ir:
                failures.append("%s: no vector.dot4 in the codegen IR" % what)
            if micro and isa not in (None, "host") and ('isa = "%s"' % isa) not in ir:
                failures.append("%s: vector.dot4 without isa = %s" % (what, isa))
            if isa is None and "isa = " in ir:
                failures.append("%s: vector.dot4 names an isa the target lacks" % what)
            tn = 64 if n % 64 == 0 and n > 64 else next((t for t in (48, 32, 16) if n % t == 0 and n > t), n)
            # vpdpbusd (unsigned A) reads 128 * B's column sums, computed at
            # compile time, from one more row of each packed block
            sums = 'isa = "avx512vnni"' in ir or 'isa = "avxvnni"' in ir
            packed = "memref<%dx%dx%dx" % (n // tn, k // 4 + sums, 4 * tn)
            if micro and packed not in ir:
                failures.append("%s: weights not packed in groups of 4 K (%s...)" % (what, packed))
            stores = [l.strip() for l in ir.splitlines() if "vector.store" in l and l.rstrip().endswith("xi32>")]
            if requant and stores:
                failures.append("%s: the i32 sums are stored (epilogue not in the tiles): %s" % (what, stores[0]))
            for mi, xin, ref in runs:
                out = os.path.join(work, "%s.t%d.m%d.out.npy" % (name, ti, mi))
                r = subprocess.run(emulator + [kr, "--module=" + mod, "--device=" + device, "--input=@" + xin,
                                    "--output=@" + out], capture_output=True, text=True)
                # The runtime refuses a module whose only variant needs features
                # the CPU (or KILN_CPU_FEATURES) lacks, in either wording.
                if r.returncode != 0 and ("this host lacks" in r.stderr or "has no variant device" in r.stderr):
                    not_run.append("%s: %s" % (what, r.stderr.strip().splitlines()[-1]))
                    break
                if r.returncode != 0:
                    failures.append("%s (M %d): kiln-run failed:\n%s" % (what, mi, r.stderr[-3000:]))
                    continue
                got = np.load(out)
                if got.shape != ref.shape or not (got == ref).all():
                    failures.append("%s (M %d): %d elements differ from numpy" % (what, mi, int((got != ref).sum())))
                ran += 1
    for s in not_run:
        print("not run (compiled and checked only): " + s)
    for f in failures:
        print("FAIL " + f)
    print("%d runs exact, %d compiled only, %d failures" % (ran, len(not_run), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
