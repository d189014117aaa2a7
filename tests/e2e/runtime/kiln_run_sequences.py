#!/usr/bin/python3
"""kiln-run and kiln-bench with sequence inputs and results (--input=seq:ELEM:ELEM...,
"result[N][k]" lines, --output=@y.npy as y.K.npy), on the builder-made
module of write_sequence_module (f(s, v) = (s + [v], element 0)), and the
errors for a tensor given to a sequence input and the reverse. Elements
of three shapes, one of them from a .npy file, and the empty sequence
cover the syntax; the module's arithmetic is the runtime tests' concern.

usage: kiln_run_sequences.py KILN_RUN KILN_BENCH MODULE WORKDIR POOL"""
import os
import subprocess
import sys

import numpy as np

kiln_run, kiln_bench, module, workdir, pool = sys.argv[1:6]
os.makedirs(workdir, exist_ok=True)
failures = []


def run(*args, tool=kiln_run):
    p = subprocess.run([tool, f"--module={module}", *args],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else ": " + detail))
    if not cond:
        failures.append(name)


a = os.path.join(workdir, "a.npy")
np.save(a, np.arange(4, dtype=np.float32))
for device in sorted({"local-sync", pool}):
    rc, out, err = run(f"--input=seq:@{a}:3xf32=7,8,9", "--input=2xf32=4,5",
                       f"--device={device}")
    want = ("result[0]: seq of 3\n"
            "result[0][0]: 4xf32=0 1 2 3\n"
            "result[0][1]: 3xf32=7 8 9\n"
            "result[0][2]: 2xf32=4 5\n"
            "result[1]: 4xf32=0 1 2 3\n")
    check(f"three elements {device}", rc == 0 and out == want, f"rc={rc} out={out!r} err={err!r}")
    rc, out, err = run("--input=seq:", "--input=1xf32=6", f"--device={device}")
    want = "result[0]: seq of 1\nresult[0][0]: 1xf32=6\nresult[1]: 1xf32=6\n"
    check(f"empty sequence {device}", rc == 0 and out == want, f"rc={rc} out={out!r} err={err!r}")

y = os.path.join(workdir, "y.npy")
for k in range(3):
    if os.path.exists(os.path.join(workdir, f"y.{k}.npy")):
        os.remove(os.path.join(workdir, f"y.{k}.npy"))
rc, out, err = run("--input=seq:2xf32=1,2", "--input=3xf32=3,4,5", f"--output=@{y}")
ok = rc == 0 and not os.path.exists(os.path.join(workdir, "y.2.npy"))
if ok:
    e0, e1 = (np.load(os.path.join(workdir, f"y.{k}.npy")) for k in range(2))
    ok = e0.tolist() == [1, 2] and e1.tolist() == [3, 4, 5]
check("--output=@y.npy writes y.0.npy, y.1.npy", ok, f"rc={rc} out={out!r} err={err!r}")

rc, out, err = run("--input=2xf32=1,2", "--input=1xf32=3")
check("tensor for a sequence input", rc == 1 and
      "input 0 (--input=2xf32=1,2): a sequence input: give --input=seq:" in err and
      "(seq<tensor<?xf32>>, tensor<?xf32>)" in err, err)
rc, out, err = run("--input=seq:", "--input=seq:1xf32=3")
check("sequence for a tensor input", rc == 1 and
      "input 1 (--input=seq:1xf32=3): a sequence given for a tensor input" in err, err)
rc, out, err = run("--input=seq:2xi32=1,2", "--input=1xf32=3")
check("element of the wrong type", rc == 1 and
      "input 0 element 0: expected tensor<?xf32>, got tensor<2xi32>" in err, err)

rc, out, err = run("--input=seq:@" + a + ":2xf32=1,2", "--input=1xf32=3",
                   "--warmup=1", "--repetitions=3", tool=kiln_bench)
check("kiln-bench calls a function with sequences", rc == 0 and
      "3 repetitions after 1 warmup" in out and "median" in out, f"rc={rc} out={out!r} err={err!r}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
