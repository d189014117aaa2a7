#!/usr/bin/python3
"""Benchmark (not a test): a dynamic-shape module against the static
compile of the same model, in one run.

Models are rows of bench/models/models.py (random weights and batch-norm
statistics from its fixed seeds), exported at opset 17 with dynamic axes:
the batch, and for the encoder rows also the sequence length. Default:
ResNet-18 timed at batch 1 and encoder2 (a 2-layer TransformerEncoder,
d_model 256, 4 heads, feed-forward 1024, batch_first) timed at (1, 128).
Each ONNX file is compiled twice by kiln-compile: as is (one module for
every shape) and with --dim binding its dim_params to the timed shape
(the static compile). Then, for ROUNDS rounds, kiln-bench on local-task
times the static and the dynamic module in turn, the first of
the two alternating by round (WARMUP untimed calls,
REPS timed ones), so both share the machine's load. Rows show the best
round median of each and dynamic/static (the issue's targets: ResNet-18
<= 1.1, encoder <= 1.2), then the same for the fastest call (on a loaded
machine most calls wait for a core: the fastest call is the one least
disturbed), with the load average before and after.

With --quantized each model is first quantized to the QDQ form by
tests/onnx/quant/qdq.py (ranges calibrated on ONNX Runtime over 8 seeded
random inputs of the timed shape; needs onnxruntime-node: --ort or
$KILN_ORT_MODULES) and that file is compiled both ways: a quantized
deployment model with a run-time batch against its static compile (issue
17: within 1.1x). --cpu adds the CPU time per call (user + system of
kiln-bench's threads, from wait4: a run of REPS calls less one of a
single call, over REPS - 1), which waiting for a core on a loaded
machine does not inflate as it does wall time: rows "cpu", best round.

usage: bench_dynamic.py --compile=KILN_COMPILE --bench=KILN_BENCH --work=DIR
           [--models=resnet18,encoder2] [--workers=2] [--rounds=5]
           [--warmup=5] [--reps=20] [--quantized [--ort=NODE_MODULES]] [--cpu]
The environment's KILN_BENCH_DYNAMIC_ARGS is appended to the command line.
Without torch/torchvision it prints 'skipped: ...' and exits 0.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench", "models"))
sys.path.insert(0, os.path.join(ROOT, "tests", "onnx", "quant"))
sys.path.insert(0, os.path.join(ROOT, "tools", "ort"))
import models  # noqa: E402  (bench/models/models.py)

QDQ_CALIBRATION = 8  # calibration inputs of --quantized, as bench_models.py's


def dynamic_axes(name):
    """{axis: dim_param} of the row's input and output: the batch, and for
    sequence models the sequence length too."""
    return {0: "batch", 1: "seq"} if name.startswith("encoder") else {0: "batch"}


def stat_ms(text, what):
    """kiln-bench's 'min' or 'median' line, in ms."""
    m = re.search(r"^%s\s+([0-9.]+) (ms|us)" % what, text, re.M)
    return None if not m else float(m.group(1)) * (1.0 if m.group(2) == "ms" else 1e-3)


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def bench(args, module, x_path, reps):
    """kiln-bench's output and the CPU seconds (user + system) of its run."""
    p = subprocess.Popen([args.bench, "--module=" + module, "--device=local-task", "--workers=%d" % args.workers,
                          "--warmup=%d" % args.warmup, "--repetitions=%d" % reps, "--input=@" + x_path],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    if status:
        raise SystemExit("bench/dynamic: kiln-bench failed on %s:\n%s" % (module, out))
    return out, ru.ru_utime + ru.ru_stime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", default="resnet18,encoder2")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--quantized", action="store_true")
    ap.add_argument("--ort", default=None)
    ap.add_argument("--cpu", action="store_true")
    args = ap.parse_args(sys.argv[1:] + shlex.split(os.environ.get("KILN_BENCH_DYNAMIC_ARGS", "")))
    try:
        import torch
        import torchvision
    except ImportError as e:
        print("skipped: %s (install python3-torch python3-torchvision)" % e)
        return 0
    os.makedirs(args.work, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        if name not in models.MODELS:
            raise SystemExit("bench/dynamic: unknown model '%s' (rows of bench/models/models.py)" % name)
        axes = dynamic_axes(name)
        m, xs = models.build(name, torch, torchvision)
        x = xs[0]
        shape = tuple(x.shape)
        dims = ["%s=%d" % (p, shape[a]) for a, p in sorted(axes.items())]
        onnx_path = os.path.join(args.work, name + "_dynamic.onnx")
        torch.onnx.export(m, x, onnx_path, opset_version=17, input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": axes, "y": axes})
        if args.quantized:
            import qdq
            g = torch.Generator().manual_seed(100)
            calib = np.stack([torch.randn(*shape, generator=g).numpy() for _ in range(QDQ_CALIBRATION)])
            q_path = os.path.join(args.work, name + "_dynamic_qdq.onnx")
            qdq.quantize_file(onnx_path, q_path, {"x": calib.astype(np.float32)}, args.ort)
            onnx_path = q_path
        x_path = os.path.join(args.work, name + ".x.npy")
        np.save(x_path, x.numpy())
        mods = {}
        for kind, flags in (("static", ["--dim=" + d for d in dims]), ("dynamic", [])):
            mods[kind] = os.path.join(args.work, "%s_%s.kiln" % (name, kind))
            c = subprocess.run([args.compile, onnx_path, "-o", mods[kind]] + flags, capture_output=True, text=True)
            if c.returncode:
                raise SystemExit("bench/dynamic: compiling %s (%s) failed:\n%s" % (name, kind, c.stderr))
        rows.append((name, shape, mods, x_path))
    print("bench/dynamic: kiln-bench local-task, %d worker(s), best of %d rounds "
          "(%d warmup + %d timed calls each); load average before: %s"
          % (args.workers, args.rounds, args.warmup, args.reps, load()))
    best = {}
    for r in range(args.rounds):
        for name, shape, mods, x_path in rows:
            # alternate which goes first, so neither always follows the other
            for kind in ("static", "dynamic") if r % 2 == 0 else ("dynamic", "static"):
                out, cpu = bench(args, mods[kind], x_path, args.reps)
                med, low = stat_ms(out, "median"), stat_ms(out, "min")
                if med is None or low is None:
                    raise SystemExit("bench/dynamic: kiln-bench failed on %s (%s):\n%s" % (name, kind, out))
                stats = [((name, kind, "median"), med), ((name, kind, "min"), low)]
                if args.cpu:
                    stats.append(((name, kind, "cpu"), (cpu - bench(args, mods[kind], x_path, 1)[1]) /
                                  (args.reps - 1) * 1e3))
                for key, ms in stats:
                    best[key] = min(best.get(key, ms), ms)
    print("%-14s %-14s %-6s %10s %10s %10s" % ("model", "shape", "stat", "static ms", "dynamic ms", "dyn/static"))
    for name, shape, mods, x_path in rows:
        for stat in ("median", "min", "cpu") if args.cpu else ("median", "min"):
            a, b = best[(name, "static", stat)], best[(name, "dynamic", stat)]
            print("%-14s %-14s %-6s %10.3f %10.3f %10.3f" % (name, "x".join(map(str, shape)), stat, a, b, b / a))
    print("load average after: %s" % load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
