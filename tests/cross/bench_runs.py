#!/usr/bin/python3
"""The cross-built kiln-bench runs a module compiled for its CPU.

usage: bench_runs.py KILN_COMPILE CROSS_KILN_BENCH EMULATOR ARCH WORKDIR SAMPLES_DIR

Compiles samples/mlp.mlir for llvm-cpu:ARCH and runs kiln-bench (3
repetitions after 1 warmup) under EMULATOR; passes when it exits 0, names
an ARCH CPU in its header and prints its latency lines (no figure is
checked: timings under an emulator mean nothing).
"""
import os
import shlex
import subprocess
import sys


def main(argv):
    if len(argv) != 7:
        print(__doc__)
        return 2
    compile_, bench, emulator, arch, work, samples = argv[1:7]
    os.makedirs(work, exist_ok=True)
    module = os.path.join(work, "mlp.kiln")
    c = subprocess.run([compile_, os.path.join(samples, "mlp.mlir"), "-o", module,
                        "--target=llvm-cpu:" + arch], capture_output=True, text=True)
    if c.returncode != 0:
        print("FAIL: kiln-compile: " + c.stderr)
        return 1
    with open(os.path.join(samples, "mlp.inputs")) as f:
        inputs = ["--input=" + l.strip() for l in f if l.strip()]
    cmd = shlex.split(emulator) + [bench, "--module=" + module, "--repetitions=3", "--warmup=1"]
    print("$ " + " ".join(cmd) + " --input=...")
    r = subprocess.run(cmd + inputs, capture_output=True, text=True)
    sys.stdout.write(r.stdout + r.stderr)
    lines = r.stdout.splitlines()
    ok = (r.returncode == 0 and lines and ("(%s+" % arch in lines[0] or "(%s)" % arch in lines[0])
          and all(any(l.startswith(k) for l in lines) for k in ("min", "median", "max")))
    print("1 passed, 0 failed" if ok else "FAIL: exit %d, or no %s CPU / latency lines"
          % (r.returncode, arch))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
