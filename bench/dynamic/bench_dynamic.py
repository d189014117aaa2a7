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

usage: bench_dynamic.py --compile=KILN_COMPILE --bench=KILN_BENCH --work=DIR
           [--models=resnet18,encoder2] [--workers=2] [--rounds=5]
           [--warmup=5] [--reps=20]
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

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "models"))
import models  # noqa: E402  (bench/models/models.py)


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
                res = subprocess.run([args.bench, "--module=" + mods[kind], "--device=local-task",
                                      "--workers=%d" % args.workers, "--warmup=%d" % args.warmup,
                                      "--repetitions=%d" % args.reps, "--input=@" + x_path],
                                     capture_output=True, text=True)
                med, low = stat_ms(res.stdout, "median"), stat_ms(res.stdout, "min")
                if res.returncode or med is None or low is None:
                    raise SystemExit("bench/dynamic: kiln-bench failed on %s (%s):\n%s%s"
                                     % (name, kind, res.stdout, res.stderr))
                for key, ms in (((name, kind, "median"), med), ((name, kind, "min"), low)):
                    best[key] = min(best.get(key, ms), ms)
    print("%-14s %-14s %-6s %10s %10s %10s" % ("model", "shape", "stat", "static ms", "dynamic ms", "dyn/static"))
    for name, shape, mods, x_path in rows:
        for stat in ("median", "min"):
            a, b = best[(name, "static", stat)], best[(name, "dynamic", stat)]
            print("%-14s %-14s %-6s %10.3f %10.3f %10.3f" % (name, "x".join(map(str, shape)), stat, a, b, b / a))
    print("load average after: %s" % load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
