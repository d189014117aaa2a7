#!/usr/bin/python3
"""bench/runtime driver (not a test): compiles ResNet-18 and MobileNetV2
(bench/models/models.py, fixed seeds), a 1024^3 f32 matmul and the tiny
samples/simple_mul.mlir, then runs bench_runtime (one fresh process per
measurement, page cache warm after the first) on local-sync and local-task
(2 workers), in alternating rounds when --before names the bench_runtime
of an older build, and prints the median of each figure per build; then
kiln-bench's defaults (1 warmup, 10 repetitions) on the matmul: median/min.

usage: bench_runtime.py --compile=KILN_COMPILE --bench=KILN_BENCH
           --runtime=BENCH_RUNTIME [--before=OLD_BENCH_RUNTIME] --work=DIR
           [--rounds=3]"""
import argparse
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
MATMUL = """func.func @mm(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
"""


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench_runtime: %s failed:\n%s" % (cmd[0], r.stderr))
    return r.stdout


def main():
    ap = argparse.ArgumentParser()
    for a in ("--compile", "--bench", "--runtime", "--work"):
        ap.add_argument(a, required=True)
    ap.add_argument("--before", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    modules = []
    try:
        import torch
        import torchvision
        sys.path.insert(0, os.path.join(HERE, "..", "models"))
        import models
        for name in ("resnet18", "mobilenet_v2"):
            _, _, onnx = models.export(name, torch, torchvision, args.work)
            out = os.path.join(args.work, name + ".kiln")
            run([args.compile, onnx, "-o", out])
            modules.append((name, out, 10))
    except ImportError as e:
        print("bench_runtime: models skipped: %s (python3-torch, python3-torchvision)" % e)
    mm_src = os.path.join(args.work, "matmul.mlir")
    with open(mm_src, "w") as f:
        f.write(MATMUL)
    mm = os.path.join(args.work, "matmul.kiln")
    run([args.compile, mm_src, "-o", mm])
    tiny = os.path.join(args.work, "tiny.kiln")
    run([args.compile, os.path.join(ROOT, "samples", "simple_mul.mlir"), "-o", tiny])
    modules += [("matmul1024", mm, 10), ("tiny", tiny, 20000)]
    builds = [("after", args.runtime)] + ([("before", args.before)] if args.before else [])
    figures = {}
    for _ in range(args.rounds):
        for name, path, calls in modules:
            for dev in ("local-sync", "local-task"):
                for label, exe in builds:
                    out = run([exe, path, dev, str(calls), "2"])
                    kv = dict(p.split("=") for p in out.split())
                    figures.setdefault((name, dev, label), []).append(
                        {k: float(v) for k, v in kv.items()})
    print("load average: %s" % open("/proc/loadavg").read().split()[:3])
    print("%-12s %-10s %-6s %10s %8s %10s %10s %10s %8s %s" % (
        "module", "device", "build", "load us", "RSS KB", "prepare us",
        "first us", "steady us", "flt/call", "(load+prep+first)/(1ms+1.2 steady)"))
    for (name, dev, label), runs in figures.items():
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        fixed = med["load_us"] + med["prepare_us"] + med["first_us"]
        print("%-12s %-10s %-6s %10.1f %8d %10.1f %10.1f %10.3f %8.2f %.2f" % (
            name, dev, label, med["load_us"], med["load_rss_kb"], med["prepare_us"],
            med["first_us"], med["steady_median_us"], med["minflt_per_call"],
            fixed / (1000 + 1.2 * med["steady_median_us"])))
    import numpy as np
    x = os.path.join(args.work, "matmul_x.npy")
    np.save(x, np.random.default_rng(0).standard_normal((1024, 1024), dtype=np.float32))
    for dev in ("local-sync", "local-task"):
        out = run([args.bench, "--module=" + mm, "--device=" + dev, "--workers=2",
                   "--input=@" + x, "--input=@" + x])
        def ms(label):
            m = re.search(r"^%s\s+([0-9.]+) (ms|us)" % label, out, re.M)
            return float(m.group(1)) * (1 if m.group(2) == "ms" else 1e-3)
        print("kiln-bench defaults, matmul 1024^3, %s: min %.2f ms, median %.2f ms, median/min %.2f"
              % (dev, ms("min"), ms("median"), ms("median") / ms("min")))


if __name__ == "__main__":
    main()
