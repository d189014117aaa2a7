#!/usr/bin/python3
"""Benchmark (not a test): a model compiled as a static library (issue 20)
against the same model as a module run by runtime-min, in one run.

Models are rows of bench/models/models.py (random weights from its fixed
seeds; default: ResNet-18 at batch 1), exported at opset 17. Each ONNX
file is compiled twice by kiln-compile: as a module, and with
--output-format=static-library, which is linked into a small generated C
timer (no runtime-min; same clock, same warmup and call counts as
kiln-bench). Then, for ROUNDS rounds, kiln-bench on local-sync (one thread,
as the static library runs) and the timer run in turn, the first of the
two alternating by round, so both share the machine's load. Rows show the
best round median of each and static/runtime (the issue's target: at most
1.05 for ResNet-18), then the same for the fastest call, with the load
average before and after.

usage: bench_static.py --compile=KILN_COMPILE --bench=KILN_BENCH --cc=CC --work=DIR
           [--models=resnet18] [--rounds=5] [--warmup=3] [--reps=10]
The environment's KILN_BENCH_STATIC_ARGS is appended to the command line.
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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "dynamic"))
from bench_dynamic import load, stat_ms  # noqa: E402  (kiln-bench's output, /proc/loadavg)

TIMER = r"""/* times m_%(fn)s: WARMUP untimed calls, then REPS timed ones;
 * prints the median and the fastest call as kiln-bench does */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "m.h"
static _Alignas(64) unsigned char x[%(in_bytes)d], y[%(out_bytes)d];
static _Alignas(64) unsigned char scratch[M_%(FN)s_SCRATCH_SIZE + 1];
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}
static int cmp(const void *a, const void *b) {
  double u = *(const double *)a, v = *(const double *)b;
  return (u > v) - (u < v);
}
int main(int argc, char **argv) {
  if (argc != 4) return 2;
  FILE *f = fopen(argv[1], "rb");
  if (!f || fread(x, 1, sizeof x, f) != sizeof x) return 2;
  fclose(f);
  int warmup = atoi(argv[2]), reps = atoi(argv[3]);
  void *args[] = {x}, *results[] = {y};
  double *t = malloc(sizeof *t * (size_t)(reps > 0 ? reps : 1));
  if (!t || reps < 1) return 2;
  for (int i = 0; i < warmup + reps; i++) {
    double t0 = now_ms();
    int rc = m_%(fn)s(args, results, scratch);
    if (rc) { fprintf(stderr, "%%s\n", m_error_message(rc)); return 1; }
    if (i >= warmup) t[i - warmup] = now_ms() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  printf("median %%.3f ms\nmin %%.3f ms\n", t[reps / 2], t[0]);
  return 0;
}
"""


def check(c, what):
    if c.returncode:
        raise SystemExit("bench/static_library: %s failed:\n%s%s" % (what, c.stdout, c.stderr))
    return c


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--cc", default="cc")
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", default="resnet18")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=10)
    args = ap.parse_args(sys.argv[1:] + shlex.split(os.environ.get("KILN_BENCH_STATIC_ARGS", "")))
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
            raise SystemExit("bench/static_library: unknown model '%s' (rows of bench/models/models.py)" % name)
        m, xs = models.build(name, torch, torchvision)
        if len(xs) != 1:
            raise SystemExit("bench/static_library: %s takes %d inputs; the timer takes one" % (name, len(xs)))
        x = xs[0]
        with torch.no_grad():
            out = m(x)
        d = os.path.join(args.work, name)
        os.makedirs(d, exist_ok=True)
        onnx_path = os.path.join(d, "model.onnx")
        torch.onnx.export(m, x, onnx_path, opset_version=17, input_names=["x"], output_names=["y"])
        x_npy, x_bin = os.path.join(d, "x.npy"), os.path.join(d, "x.bin")
        np.save(x_npy, x.numpy())
        with open(x_bin, "wb") as f:
            f.write(np.ascontiguousarray(x.numpy()).tobytes())
        module = os.path.join(d, "model.kiln")
        check(subprocess.run([args.compile, onnx_path, "-o", module], capture_output=True, text=True),
              "compiling %s" % name)
        check(subprocess.run([args.compile, onnx_path, "--output-format=static-library", "-o",
                              os.path.join(d, "m")], capture_output=True, text=True),
              "compiling %s as a static library" % name)
        with open(os.path.join(d, "m.h")) as f:
            fn = re.findall(r"^int m_(\w+)\(void \*const \*args", f.read(), re.M)[0]
        with open(os.path.join(d, "timer.c"), "w") as f:
            f.write(TIMER % {"fn": fn, "FN": fn.upper(), "in_bytes": x.numpy().nbytes,
                             "out_bytes": out.numpy().nbytes})
        timer = os.path.join(d, "timer")
        check(subprocess.run(shlex.split(args.cc) + ["-O2", "-std=c17", "-I", d, os.path.join(d, "timer.c"),
                                                    os.path.join(d, "m.a"), "-o", timer],
                             capture_output=True, text=True), "building the timer")
        rows.append((name, tuple(x.shape), module, x_npy, timer, x_bin))
    print("bench/static_library: static library vs kiln-bench local-sync (1 thread), best of %d "
          "rounds (%d warmup + %d timed calls each); load average before: %s"
          % (args.rounds, args.warmup, args.reps, load()))
    best = {}
    for r in range(args.rounds):
        for name, shape, module, x_npy, timer, x_bin in rows:
            for kind in ("runtime", "static") if r % 2 == 0 else ("static", "runtime"):
                if kind == "runtime":
                    cmd = [args.bench, "--module=" + module, "--device=local-sync",
                           "--warmup=%d" % args.warmup, "--repetitions=%d" % args.reps, "--input=@" + x_npy]
                else:
                    cmd = [timer, x_bin, str(args.warmup), str(args.reps)]
                res = check(subprocess.run(cmd, capture_output=True, text=True), "timing %s (%s)" % (name, kind))
                med, low = stat_ms(res.stdout, "median"), stat_ms(res.stdout, "min")
                if med is None or low is None:
                    raise SystemExit("bench/static_library: no timing from %s:\n%s" % (" ".join(cmd), res.stdout))
                for key, ms in (((name, kind, "median"), med), ((name, kind, "min"), low)):
                    best[key] = min(best.get(key, ms), ms)
    print("%-12s %-14s %-6s %11s %11s %15s" % ("model", "shape", "stat", "runtime ms", "static ms",
                                                "static/runtime"))
    for name, shape, *_ in rows:
        for stat in ("median", "min"):
            a, b = best[(name, "runtime", stat)], best[(name, "static", stat)]
            print("%-12s %-14s %-6s %11.3f %11.3f %15.3f" % (name, "x".join(map(str, shape)), stat, a, b, b / a))
    print("load average after: %s" % load())
    return 0


if __name__ == "__main__":
    sys.exit(main())
