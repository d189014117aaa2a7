#!/usr/bin/python3
"""e2e: compile a program with kiln-compile, run it with kiln-run, compare.

usage: run_compiled.py KILN_COMPILE KILN_RUN WORKDIR SOURCE FUNCTION
                       INPUTS EXPECTED DEVICE [COMPILE_FLAG...]

INPUTS holds one kiln-run --input value per line; EXPECTED one result per
line as "SHAPExTYPE=v v v" (samples/gen_samples.py writes both from
numpy). KILN_RUN_EMULATOR (environment), when set, is a command line put
before kiln-run (qemu-aarch64-static for a cross-built kiln-run). Results are written as .npy and compared with numpy (shape,
dtype, values within rtol 1e-5 / atol 1e-6 unless the caller
asks otherwise). A compile failure fails it.
"""
import os
import shlex
import subprocess
import sys

import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64,
          "i1": np.bool_, "i8": np.int8, "u8": np.uint8}


def parse_value(line):
    """"SHAPExTYPE=v v v"; a scalar (rank 0) is "TYPE=v"."""
    spec, _, values = line.strip().partition("=")
    parts = spec.split("x")
    dtype = DTYPES[parts[-1]]
    shape = tuple(int(d) for d in parts[:-1])
    if dtype in (np.float32, np.float64):
        vals = np.array([float(v) for v in values.split()], dtype=np.float64)
    else:  # integers as integers: i64 values do not all fit a double
        vals = np.array([int(v) for v in values.split()], dtype=np.int64)
    return vals.reshape(shape).astype(dtype)


def emulator():
    """The KILN_RUN_EMULATOR prefix as a list ([] when unset)."""
    return shlex.split(os.environ.get("KILN_RUN_EMULATOR", ""))


def main(argv, rtol=1e-5, atol=1e-6):
    if len(argv) < 9:
        print(__doc__)
        return 2
    compile_, run, work, source, function, inputs, expected, device = argv[1:9]
    flags = argv[9:]
    os.makedirs(work, exist_ok=True)
    module = os.path.join(work, "module.kiln")
    cmd = [compile_, source, "-o", module] + flags
    print("$ " + " ".join(cmd))
    c = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(c.stdout + c.stderr)
    if c.returncode != 0:
        print("FAIL: kiln-compile exited with %d" % c.returncode)
        return 1
    with open(inputs) as f:
        in_values = [l.strip() for l in f if l.strip()]
    with open(expected) as f:
        want = [parse_value(l) for l in f if l.strip()]
    outs = [os.path.join(work, "result%d.npy" % i) for i in range(len(want))]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)
    cmd = emulator() + [run, "--module=" + module, "--function=" + function, "--device=" + device]
    cmd += ["--input=" + v for v in in_values] + ["--output=@" + o for o in outs]
    print("$ " + " ".join(a if len(a) < 120 else a[:117] + "..." for a in cmd))
    r = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(r.stdout + r.stderr)
    if r.returncode != 0:
        print("FAIL: kiln-run exited with %d" % r.returncode)
        return 1
    ok = True
    for i, (o, w) in enumerate(zip(outs, want)):
        got = np.load(o)
        if got.shape != w.shape or got.dtype != w.dtype:
            print("FAIL: result %d is %s %s, expected %s %s" % (i, got.dtype, got.shape, w.dtype, w.shape))
            ok = False
            continue
        # integers and booleans must match exactly
        exact = w.dtype.kind in "biu"
        same = np.array_equal(got, w) if exact else np.allclose(got, w, rtol=rtol, atol=atol)
        if not same:
            bad = np.argmax(np.abs(got.astype(np.float64) - w))
            print("FAIL: result %d differs, e.g. at flat index %d: got %r, expected %r (max abs error %g)"
                  % (i, bad, got.reshape(-1)[bad], w.reshape(-1)[bad],
                     np.max(np.abs(got.astype(np.float64) - w))))
            ok = False
        else:
            print("result %d: %s matches (max abs error %g)"
                  % (i, "x".join(map(str, w.shape)) or "scalar",
                     np.max(np.abs(got.astype(np.float64) - w), initial=0.0)))
    print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
