#!/usr/bin/python3
"""kiln-run / kiln-bench end to end on the handmade simple_mul modules:
results on local-sync and local-task (inline values, bracket syntax, .npy
in and out checked with numpy), the error messages users see for wrong
inputs and broken modules, and kiln-bench's latency lines.

usage: test_kiln_run.py KILN_RUN KILN_BENCH MODULE4 MODULE_DYN WORKDIR [POOL]
(POOL: the pool device's name, local-sync in builds without local-task)"""
import os
import subprocess
import sys

import numpy as np

kiln_run, kiln_bench, module4, module_dyn, workdir = sys.argv[1:6]
pool = sys.argv[6] if len(sys.argv) > 6 else "local-task"
os.makedirs(workdir, exist_ok=True)
failures = []


def run(tool, *args, env=None):
    p = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    if not cond:
        failures.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}")
    else:
        print(f"ok   {name}")


# Results printed on each device, with the two inline syntaxes.
for device in ["local-sync", pool]:
    rc, out, err = run(kiln_run, f"--module={module4}", "--input=4xf32=1,2,3,4",
                       "--input=4xf32=5,6,7,8", f"--device={device}")
    check(f"inline {device}", rc == 0 and out == "result[0]: 4xf32=5 12 21 32\n",
          f"rc={rc} out={out!r} err={err!r}")
    rc, out, err = run(kiln_run, f"--module={module4}", "--input=4xf32=[1 2 3 4]",
                       "--input=4xf32=[5, 6, 7, 8]", f"--device={device}")
    check(f"brackets {device}", rc == 0 and out == "result[0]: 4xf32=5 12 21 32\n",
          f"rc={rc} out={out!r} err={err!r}")

# .npy in, .npy out, checked by numpy, on both devices and several sizes
# (1000 elements = 16 workgroups, split over 1, 3 or 8 threads on
# local-task, whatever the number of cores of the machine).
rng = np.random.default_rng(1234)
for device, extra in [("local-sync", [])] + [(pool, [f"--workers={w}"]) for w in (1, 3, 8)]:
    label = " ".join([device] + extra)
    for n in [1, 4, 63, 64, 65, 1000]:
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        pa, pb = os.path.join(workdir, "a.npy"), os.path.join(workdir, "b.npy")
        pc = os.path.join(workdir, f"c_{label.replace(' ', '_')}_{n}.npy")
        np.save(pa, a)
        np.save(pb, b)
        if os.path.exists(pc):
            os.remove(pc)
        rc, out, err = run(kiln_run, f"--module={module_dyn}", f"--input=@{pa}",
                           f"--input=@{pb}", f"--output=@{pc}",
                           f"--device={device}", *extra)
        ok = rc == 0 and os.path.exists(pc)
        detail = f"rc={rc} err={err!r}"
        if ok:
            c = np.load(pc)
            ok = c.dtype == np.float32 and c.shape == (n,) and np.array_equal(c, a * b)
            detail = f"got {c[:8]} want {(a * b)[:8]}"
        check(f"npy {label} n={n}", ok, detail)

# A .npy input next to an inline one; the 4-element module.
np.save(os.path.join(workdir, "x.npy"), np.array([1, 2, 3, 4], dtype=np.float32))
rc, out, err = run(kiln_run, f"--module={module4}",
                   f"--input=@{os.path.join(workdir, 'x.npy')}", "--input=4xf32=2,2,2,2")
check("npy + inline", rc == 0 and out == "result[0]: 4xf32=2 4 6 8\n", f"{out!r} {err!r}")

# Long results are elided.
rc, out, err = run(kiln_run, f"--module={module_dyn}",
                   "--input=100xf32=" + ",".join(["1"] * 100),
                   "--input=100xf32=" + ",".join(["3"] * 100))
check("long tensors elided", rc == 0 and out.startswith("result[0]: 100xf32=3 3 3")
      and "..." in out and len(out) < 200, f"{out!r} {err!r}")

# Wrong inputs: the message names the input, the expected and actual type.
cases = [
    (["--input=4xf32=1,2,3,4", "--input=5xf32=1,2,3,4,5"],
     "input 1: expected tensor<4xf32>, got tensor<5xf32>"),
    (["--input=4xi32=1,2,3,4", "--input=4xf32=1,2,3,4"],
     "input 0: expected tensor<4xf32>, got tensor<4xi32>"),
    (["--input=2x2xf32=1,2,3,4", "--input=4xf32=1,2,3,4"],
     "input 0: expected tensor<4xf32>, got tensor<2x2xf32>"),
    (["--input=4xf32=1,2,3,4"], "takes 2 inputs, got 1"),
    (["--input=4xf32=1,2,3", "--input=4xf32=1,2,3,4"], "3 values given, 4xf32 needs 4"),
    (["--input=4xf32=1,2,x,4", "--input=4xf32=1,2,3,4"], "bad f32 value 'x'"),
    (["--input=4xq32=1,2,3,4", "--input=4xf32=1,2,3,4"], "unknown element type 'q32'"),
    (["--input=@/nonexistent.npy", "--input=4xf32=1,2,3,4"], "cannot open '/nonexistent.npy'"),
    (["--input=4xf32=1,2,3,4", "--input=4xf32=1,2,3,4", "--device=tpu"],
     "unknown device 'tpu'"),
    (["--input=4xf32=1,2,3,4", "--input=4xf32=1,2,3,4", "--function=nope"],
     "has no function 'nope' (exported: simple_mul)"),
]
for args, want in cases:
    rc, out, err = run(kiln_run, f"--module={module4}", *args)
    check(f"error '{want}'", rc == 1 and want in err and out == "", f"rc={rc} err={err!r}")

# No CUDA driver: a clear error, not a crash (forced by pointing the
# runtime at a library that does not exist).
env = dict(os.environ, KILN_CUDA_LIBRARY="/nonexistent/libcuda.so.1")
rc, out, err = run(kiln_run, f"--module={module4}", "--input=4xf32=1,2,3,4",
                   "--input=4xf32=1,2,3,4", "--device=cuda", env=env)
check("cuda without a driver", rc == 1 and ("cuda device unavailable" in err
      or "unknown device 'cuda'" in err), err)
rc, out, err = run(kiln_run, "--help")
check("--help", rc == 0 and "--module=M.kiln" in err and "--input" in err, err)
rc, out, err = run(kiln_run, "--input=4xf32=1,2,3,4")
check("--module required", rc == 2 and "--module is required" in err, err)

# Dynamic module: mismatched sizes trap in the bytecode's own check.
rc, out, err = run(kiln_run, f"--module={module_dyn}", "--input=3xf32=1,2,3",
                   "--input=4xf32=1,2,3,4")
check("dynamic size mismatch traps", rc == 1 and "trap with code 1" in err
      and "in function 'simple_mul'" in err
      and "(samples/handmade/handmade.c:" in err, err)

# Broken module files: a message, exit 1, never a crash.
data = open(module4, "rb").read()
for cut in [0, 3, 8, 64, len(data) // 2, len(data) - 1]:
    path = os.path.join(workdir, f"cut{cut}.kiln")
    open(path, "wb").write(data[:cut])
    rc, out, err = run(kiln_run, f"--module={path}", "--input=4xf32=1,2,3,4",
                       "--input=4xf32=1,2,3,4")
    check(f"truncated module at {cut}", rc == 1 and err.startswith("kiln-run: ")
          and path in err, f"rc={rc} err={err!r}")
# Corrupt bytecode (found by its first instructions, const.i32 %i0, 0 and
# const.i32 %i1, 1): a register past the function's count, an unknown
# opcode. The verifier names the function, offset and problem.
at = next(i for i in range(len(data) - 14)
          if data[i + 1:i + 7] == bytes(6) and data[i + 7] == data[i]
          and data[i + 8:i + 14] == bytes([1, 0, 1, 0, 0, 0]))
for name, patch, want in [
        ("register", (at + 1, 0x40), "function 'simple_mul': invalid bytecode at "
         "0x0000 (const.i32): register %i64 out of range"),
        ("opcode", (at, 0xee), "invalid bytecode at 0x0000 (?): unknown opcode 0xee")]:
    bad = bytearray(data)
    bad[patch[0]] = patch[1]
    path = os.path.join(workdir, f"bad_{name}.kiln")
    open(path, "wb").write(bad)
    rc, out, err = run(kiln_run, f"--module={path}", "--input=4xf32=1,2,3,4",
                       "--input=4xf32=1,2,3,4")
    check(f"bad bytecode ({name})", rc == 1 and want in err, err)
rc, out, err = run(kiln_run, "--module=/nonexistent.kiln", "--input=4xf32=1,2,3,4")
check("missing module", rc == 1 and "cannot open '/nonexistent.kiln'" in err, err)

# kiln-bench: min / median / p90 with units.
rc, out, err = run(kiln_bench, f"--module={module4}", "--input=4xf32=1,2,3,4",
                   "--input=4xf32=5,6,7,8", "--warmup=2", "--repetitions=20",
                   f"--device={pool}")
lines = out.splitlines()
for word in ["min", "median", "p90"]:
    check(f"kiln-bench {word}", rc == 0 and any(
        l.split()[0] == word and l.split()[-1] in ("us", "ms") for l in lines if l.split()),
        f"rc={rc} out={out!r} err={err!r}")
# --profile-dispatches: the summary unchanged, then one row per dispatch
# site (the module's one kernel, run once per call) and the totals.
rc, out, err = run(kiln_bench, f"--module={module4}", "--input=4xf32=1,2,3,4",
                   "--input=4xf32=5,6,7,8", "--repetitions=5",
                   "--profile-dispatches", f"--device={pool}")
lines = out.splitlines()
prof = [i for i, l in enumerate(lines) if l.startswith("dispatch profile:")]
check("kiln-bench --profile-dispatches", rc == 0 and len(prof) == 1 and
      any(l.split()[0] == "median" for l in lines[:prof[0]]) and
      "5 repetitions" in lines[prof[0]] and
      "simple_mul_dispatch_0/simple_mul  simple_mul@0x" in out and
      "per executable:" in out, f"rc={rc} out={out!r} err={err!r}")
rows = [l for l in lines[prof[0] + 2:] if "all dispatches" in l] if prof else []
check("kiln-bench --profile-dispatches counts one dispatch per call",
      len(rows) == 1 and rows[0].split()[3] == "1", f"out={out!r}")
rc, out, err = run(kiln_bench, f"--module={module4}", "--input=4xf32=1,2,3,4",
                   "--input=4xf32=5,6,7,8")
check("kiln-bench without --profile-dispatches prints no profile",
      rc == 0 and "dispatch profile" not in out, out)
rc, out, err = run(kiln_bench, f"--module={module4}", "--input=4xf32=1,2,3,4",
                   "--input=4xf32=5,6,7,8", "--repetitions=0")
check("kiln-bench rejects 0 repetitions", rc == 2 and "--repetitions" in err, err)

if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
print("all passed")
