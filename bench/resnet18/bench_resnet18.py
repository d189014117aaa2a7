#!/usr/bin/python3
"""Benchmark (not a test): torchvision ResNet-18 (1x3x224x224, random
weights from the fixed seed of tests/onnx/models/run_model.py, so the very
model the onnx_model_resnet18 test checks) end to end: Kiln (kiln-compile,
then kiln-bench on local-task with 2 workers: VM, dispatches and result
allocation per call) against PyTorch on 2 threads, in one run, alternating
rounds, printed as a ratio of medians.

usage: bench_resnet18.py --compile=KILN_COMPILE --bench=KILN_BENCH --work=DIR
           [--import=KILN_ONNX_IMPORT] [--rounds=3] [--reps=10]
Prints 'skipped: ...' and exits 0 when torch or torchvision is missing.

PyTorch runs with OMP_WAIT_POLICY=PASSIVE unless the environment sets it:
its OpenMP workers spin at barriers, and on this shared 2-core machine
under load (other builds running) that made one ResNet-18 call take
seconds instead of tens of milliseconds; passive waiting is what Kiln's
local-task workers do too.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "onnx", "models"))


def kiln_median_ms(bench, module, x_path, reps):
    r = subprocess.run([bench, "--module=" + module, "--device=local-task", "--workers=2",
                        "--input=@" + x_path, "--warmup=1", "--repetitions=%d" % reps],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench_resnet18: kiln-bench failed:\n" + r.stderr)
    m = re.search(r"^median\s+([0-9.]+) (ms|us)", r.stdout, re.M)
    if not m:
        raise SystemExit("bench_resnet18: no median in kiln-bench output:\n" + r.stdout)
    return float(m.group(1)) * (1.0 if m.group(2) == "ms" else 1e-3)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--import", dest="import_", default=None)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    try:
        import numpy as np
        import torch
        import torchvision  # noqa: F401
    except ImportError as e:
        print("skipped: %s (python3-torch, python3-torchvision: scripts/bootstrap.sh)" % e)
        return 0
    import run_model

    torch.set_num_threads(2)
    os.makedirs(args.work, exist_ok=True)
    onnx_path = os.path.join(args.work, "resnet18.onnx")
    kiln = os.path.join(args.work, "resnet18.kiln")
    x_path = os.path.join(args.work, "x.npy")
    m, x = run_model.build("resnet18", torch)
    torch.onnx.export(m, x, onnx_path, opset_version=17, input_names=["x"], output_names=["y"])
    np.save(x_path, x.numpy())
    t0 = time.monotonic()
    c = subprocess.run([args.compile, onnx_path, "-o", kiln], capture_output=True, text=True)
    if c.returncode != 0 and args.import_:
        mlir = os.path.join(args.work, "resnet18.mlir")
        c = subprocess.run([args.import_, onnx_path, "-o", mlir], capture_output=True, text=True)
        if c.returncode == 0:
            c = subprocess.run([args.compile, mlir, "-o", kiln], capture_output=True, text=True)
    if c.returncode != 0:
        raise SystemExit("bench_resnet18: compile failed:\n" + c.stderr)
    print("resnet18 1x3x224x224: compiled in %.1f s" % (time.monotonic() - t0))

    kiln_ms, torch_ms = [], []
    with torch.no_grad():
        m(x)
        for _ in range(args.rounds):
            kiln_ms.append(kiln_median_ms(args.bench, kiln, x_path, args.reps))
            samples = []
            for _ in range(args.reps):
                t = time.perf_counter()
                m(x)
                samples.append((time.perf_counter() - t) * 1e3)
            torch_ms.append(statistics.median(samples))
    k, t = min(kiln_ms), min(torch_ms)
    print("  kiln    local-task, 2 workers: %8.2f ms (median per call, best of %d rounds)" % (k, args.rounds))
    print("  pytorch %s, 2 threads:      %8.2f ms (OMP_WAIT_POLICY=%s)"
          % (torch.__version__, t, os.environ["OMP_WAIT_POLICY"]))
    print("  ratio kiln/pytorch: %.3fx (above 1 is faster than PyTorch)" % (t / k))
    return 0


if __name__ == "__main__":
    sys.exit(main())
