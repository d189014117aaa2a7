#!/usr/bin/python3
"""e2e: host loops in the VM (vm.for: branches in the bytecode).

host_loop_hal.mlir (hal level, by hand) is compiled once with the handmade
simple_mul kernel substituted and run with several inputs: trip counts
read from input data (0, 1, several, negative, more steps than elements),
lengths 1, 3 and 70 (70: two workgroups of 64, so the run-time workgroup
count changes from 2 to 1 to 0 as the count shrinks step by step), a
nested loop and a loop whose steps change the values only while the step
number is below an input (a host scf.if on arith.cmpi: vm.if), and a
ping-pong loop whose steps exchange two buffers and two counts (cycles of
moves in the yield, broken through scratch registers; lengths 1, 3, 5, 70
with 0, 1, 3, 4 and 5 steps: odd and even counts end in either buffer), and a loop whose value changes shape every step
(@shrink: one element fewer per step, each step's buffer allocated at its
size, the result created with the last step's length: 66 -> 63 crosses
the 64-wide workgroup, 3 -> 0 and 2 -> 0 reach and keep an empty value),
and the same loop with each step a call of a function of the module
(@shrink_call: vm.call, a view and a length passed and returned; no
step, 66 -> 63, 2 -> 0: three calls cover the paths). Each step of @loop allocates a buffer, dispatches with a push
constant and workgroup count of that step, and carries the buffer and the
count; results are compared with the same loop in numpy. A trip count of
the wrong element type must be refused naming the input. About 20 kiln-run
calls of a few steps each: every path of the loop (no step, one, several,
the inner loop restarting) is covered, larger sizes add nothing.

usage: host_loop.py KILN_COMPILE KILN_RUN SOURCE KERNEL WORKDIR DEVICE
Prints 'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np


def steps(r, x, n):
    m = len(x)
    for _ in range(max(n, 0)):
        new = np.zeros_like(r)
        new[:m] = r[:m] * x[:m]
        r, m = new, max(m - 1, 0)
    return r


def pingpong(x, n):
    cur, spare = x * x, np.zeros_like(x)
    m, k = len(x), max(len(x) - 1, 0)
    for _ in range(max(n, 0)):
        spare[:m] = cur[:m] * x[:m]
        cur, spare, m, k = spare, cur, k, m
    return cur


def shrink(x, n):
    r = x
    for _ in range(max(n, 0)):
        m = max(len(r) - 1, 0)
        r = r[:m] * x[:m]
    return r


def main(argv):
    compile_, run, source, kernel, work, device = argv[1:7]
    os.makedirs(work, exist_ok=True)
    module = os.path.join(work, "host_loop.kiln")
    c = subprocess.run([compile_, source, "-o", module,
                        "--substitute-executable=simple_mul_dispatch_0=" + kernel],
                       capture_output=True, text=True)
    if c.returncode != 0:
        print(c.stdout + c.stderr + "FAIL: kiln-compile exited with %d" % c.returncode)
        return 1
    passed = failed = 0
    rng = np.random.default_rng(17)

    def call(fn, args):
        out = os.path.join(work, "out.npy")
        if os.path.exists(out):
            os.remove(out)
        cmd = [run, "--module=" + module, "--function=" + fn, "--device=" + device]
        cmd += ["--input=" + a for a in args] + ["--output=@" + out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        return r, (np.load(out) if r.returncode == 0 else None)

    def vec(x):
        return "%dxf32=%s" % (len(x), ",".join(repr(float(v)) for v in x))

    cases = [("loop", 3, (0,)), ("loop", 3, (1,)), ("loop", 3, (2,)), ("loop", 1, (5,)),
             ("loop", 70, (3,)), ("loop", 70, (72,)), ("loop", 5, (-3,)),
             ("nested", 3, (2, 2)), ("nested", 70, (2, 3)), ("nested", 4, (0, 3)),
             ("nested", 4, (3, 0)), ("nested", 2, (1, 4)),
             ("until", 3, (3, 1)), ("until", 70, (3, 5)), ("until", 3, (0, 2)),
             ("until", 4, (4, 0)), ("until", 2, (2, -1)), ("until", 5, (5, 3)),
             ("pingpong", 3, (0,)), ("pingpong", 3, (1,)), ("pingpong", 5, (4,)), ("pingpong", 70, (5,)),
             ("pingpong", 1, (3,)),
             ("shrink", 5, (0,)), ("shrink", 5, (2,)), ("shrink", 66, (3,)), ("shrink", 3, (3,)),
             ("shrink", 2, (4,)),
             ("shrink_call", 5, (0,)), ("shrink_call", 66, (3,)), ("shrink_call", 2, (4,))]
    for fn, length, counts in cases:
        # values near 1 keep 70 products in range
        x = rng.uniform(0.9, 1.1, length).astype(np.float32)
        want = x.copy()
        if fn == "until":  # steps change values while the step number < stop
            want = steps(want, x, min(counts[0], counts[1]))
        if fn == "pingpong":
            want = pingpong(x, counts[0])
        if fn in ("shrink", "shrink_call"):
            want = shrink(x, counts[0])
        for _ in range(max(counts[1], 0) if fn == "nested" else 1 if fn == "loop" else 0):
            want = steps(want, x, counts[0])
        r, got = call(fn, [vec(x)] + ["i64=%d" % n for n in counts])
        name = "%s len %d counts %s" % (fn, length, counts)
        if got is None:
            print("FAIL: %s: kiln-run exited with %d\n%s" % (name, r.returncode, r.stderr))
            failed += 1
        elif got.shape != want.shape or not np.allclose(got, want, rtol=1e-5, atol=1e-6):
            print("FAIL: %s: got %r, expected %r" % (name, got, want))
            failed += 1
        else:
            print("ok: %s" % name)
            passed += 1
    r, _ = call("loop", ["3xf32=1,2,3", "i32=2"])
    if r.returncode != 0 and "input 1: expected tensor<i64>, got tensor<i32>" in r.stderr:
        print("ok: an i32 trip count refused: " + r.stderr.strip())
        passed += 1
    else:
        print("FAIL: an i32 trip count: exit %d, %s" % (r.returncode, r.stderr))
        failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
