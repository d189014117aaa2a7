#!/usr/bin/python3
"""Benchmark (not a test): whole models through Kiln against ONNX Runtime
and PyTorch, on 1 and 2 threads, in one run.

Each model of models.py (random weights, fixed seed, nothing downloaded)
is exported at opset 17 and compiled by kiln-compile. Then, for ROUNDS
rounds, and in each round for every thread count and model in turn:
kiln-bench on local-task (--workers=N), ONNX Runtime 1.30 through
onnxruntime-node (ort_bench.js, intra-op threads N) and PyTorch
(torch.set_num_threads(N)) each make WARMUP untimed calls then REPS timed
ones and report their median, so the three alternate and share the
machine's load. A row shows the best round median of each and the
ratios Kiln/ORT and Kiln/PyTorch (below 1: Kiln is faster), with the load
average before and after.

usage: bench_models.py --compile=KILN_COMPILE --bench=KILN_BENCH --work=DIR
           [--run=KILN_RUN] [--ort=NODE_MODULES] [--models=a,b | all | extra]
           [--threads=1,2] [--rounds=3] [--warmup=5] [--reps=20]
           [--no-torch] [--no-ort] [--profile] [--before=OLD_KILN_COMPILE]
           [--bench-before=OLD_KILN_BENCH] [--cpu]
           [--quantized]
The environment's KILN_BENCH_MODELS_ARGS is appended to the command line
(how `cmake --build B --target bench_models_run` takes extra flags).
--run checks each model's first result against PyTorch's once (max abs
error printed). --profile prints kiln-bench --profile-dispatches for every
model and thread count once, after the table. --before compiles each
model with an older kiln-compile too and times its module in the same
rounds (same kiln-bench, or --bench-before's where the change is in the
runtime), adding a "Kiln before" column and the ratio after/before: how
a change moved Kiln, measured under the same load.
--cpu adds Kiln's CPU time per call (user + system of all its threads,
from wait4: the CPU time of a kiln-bench run with REPS timed calls less
that of one with a single call, over REPS - 1), which waiting for a core
on a loaded machine does not inflate as it does wall time; with --before
the older build's too, and their ratio; with --quantized the int8
module's too, and the ratio f32/int8 (with --before also the older
build's int8 module, compiled from the same QDQ model and timed in the
same rounds, and the int8 ratio after/before).
--quantized also times each model's statically quantized (QDQ) form,
written by tests/onnx/quant/qdq.py (per-channel int8 weights, u8
activations, ranges calibrated on ONNX Runtime over 8 seeded random
inputs), through Kiln and ONNX Runtime in the same rounds: columns Kiln
int8 and ORT int8, ratios Kiln f32/int8 (above 1: int8 is faster) and
Kiln int8/ORT int8; it needs onnxruntime-node.
Without torch/torchvision it prints 'skipped: ...' and exits 0; without
node or onnxruntime-node (scripts/bootstrap.sh installs it; --ort or
$KILN_ORT_MODULES name another node_modules, tools/ort/kiln_ort.py finds
it) the ORT column says so and the rest runs.

PyTorch runs with OMP_WAIT_POLICY=PASSIVE unless the environment sets it:
spinning OpenMP workers made PyTorch take seconds per call on this shared
2-core machine; Kiln's local-task workers wait passively too. ONNX Runtime
keeps its defaults (what its users get).
"""
import argparse
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools", "ort"))
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import kiln_ort  # noqa: E402
import models  # noqa: E402

QDQ_CALIBRATION = 8  # calibration inputs of --quantized


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def parse_ms(text, label):
    m = re.search(r"^%s\s+([0-9.]+) (ms|us)" % label, text, re.M)
    return None if not m else float(m.group(1)) * (1.0 if m.group(2) == "ms" else 1e-3)


class Model:
    def __init__(self, name, torch, torchvision, args):
        self.name = name
        self.m, self.xs, self.onnx = models.export(name, torch, torchvision, args.work)
        self.kiln = os.path.join(args.work, name + ".kiln")
        self.kiln_before = os.path.join(args.work, name + ".before.kiln")
        self.npy = [os.path.join(args.work, "%s.x%d.npy" % (name, i)) for i in range(len(self.xs))]
        self.ort_inputs = ["x%d:%s:%s%s" % (i, "x".join(str(d) for d in x.shape),
                                            os.path.join(args.work, "%s.x%d.bin" % (name, i)),
                                            ":int64" if x.dtype == torch.int64 else "")
                           for i, x in enumerate(self.xs)]
        t0 = time.monotonic()
        c = subprocess.run([args.compile, self.onnx, "-o", self.kiln],
                           capture_output=True, text=True)
        self.error = (None if c.returncode == 0 else
                      ["kiln-compile failed:"] + c.stderr.strip().splitlines()[-1:])
        self.compile_s = time.monotonic() - t0
        if not self.error and args.before:
            c = subprocess.run([args.before, self.onnx, "-o", self.kiln_before],
                               capture_output=True, text=True)
            if c.returncode != 0:
                self.error = ["--before kiln-compile failed:"] + c.stderr.strip().splitlines()[-1:]
        if not self.error and args.quantized:
            self.quantize(args, torch)
        self.max_err = None
        if not self.error and args.run:
            self.max_err = self.check(args, torch)

    def quantize(self, args, torch):
        """The QDQ model (self.qonnx) and its module (self.qkiln)."""
        sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "onnx", "quant"))
        import qdq
        g = torch.Generator().manual_seed(models.SEED + 2)
        feeds = {"x%d" % i: torch.randn(QDQ_CALIBRATION, *x.shape, generator=g).numpy()
                 for i, x in enumerate(self.xs)}
        self.qonnx = os.path.join(args.work, self.name + ".int8.onnx")
        self.qkiln = os.path.join(args.work, self.name + ".int8.kiln")
        qdq.quantize_file(self.onnx, self.qonnx, feeds, args.ort)
        c = subprocess.run([args.compile, self.qonnx, "-o", self.qkiln], capture_output=True, text=True)
        if c.returncode != 0:
            self.error = ["kiln-compile failed on the quantized model:"] + c.stderr.strip().splitlines()[-1:]
        self.qkiln_before = None
        if not self.error and args.before:  # the older build's int8 module, timed in the same rounds
            self.qkiln_before = os.path.join(args.work, self.name + ".int8.before.kiln")
            c = subprocess.run([args.before, self.qonnx, "-o", self.qkiln_before], capture_output=True, text=True)
            if c.returncode != 0:
                self.error = ["--before kiln-compile failed on the quantized model:"] + c.stderr.strip().splitlines()[-1:]

    def check(self, args, torch):
        """Max abs difference of Kiln's first result from PyTorch's: a
        benchmark of a wrong answer would mean nothing."""
        import numpy as np
        y_path = os.path.join(args.work, self.name + ".y0.npy")
        r = subprocess.run([args.run, "--module=" + self.kiln, "--device=local-task",
                            "--output=@" + y_path] + ["--input=@" + p for p in self.npy],
                           capture_output=True, text=True)
        if r.returncode != 0:
            self.error = ["kiln-run failed: " + r.stderr.strip()]
            return None
        with torch.no_grad():
            y = self.m(*self.xs)
        y = (y[0] if isinstance(y, (tuple, list)) else y).numpy()
        return float(np.max(np.abs(np.load(y_path) - y)))

    def kiln_cmd(self, args, threads, extra=(), module=None):
        # (module None is this build's module: `None in (..., None)` would
        # be true when there is no int8 before-module)
        older = module is not None and module in (self.kiln_before, getattr(self, "qkiln_before", None))
        bench = args.bench_before if older and args.bench_before else args.bench
        return ([bench, "--module=" + (module or self.kiln), "--device=local-task",
                 "--workers=%d" % threads, "--warmup=%d" % args.warmup,
                 "--repetitions=%d" % args.reps] + ["--input=@" + p for p in self.npy]
                + list(extra))

    def time_kiln(self, args, threads, module=None):
        r = subprocess.run(self.kiln_cmd(args, threads, module=module), capture_output=True,
                           text=True)
        if r.returncode != 0:
            raise SystemExit("bench/models: kiln-bench failed on %s:\n%s" % (self.name, r.stderr))
        ms = parse_ms(r.stdout, "median")
        if ms is None:
            raise SystemExit("bench/models: no median in kiln-bench output:\n" + r.stdout)
        return ms

    def cpu_kiln(self, args, threads, module=None):
        """CPU ms per call: REPS calls less one call, over REPS - 1."""
        def cpu(reps):
            cmd = self.kiln_cmd(args, threads, module=module)
            cmd = [c for c in cmd if not c.startswith("--repetitions=")]
            p = subprocess.Popen(cmd + ["--repetitions=%d" % reps], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True)
            err = p.stderr.read()
            _, status, ru = os.wait4(p.pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit("bench/models: kiln-bench failed on %s:\n%s" % (self.name, err))
            return ru.ru_utime + ru.ru_stime
        return (cpu(args.reps) - cpu(1)) / (args.reps - 1) * 1e3

    def time_ort(self, args, threads, model=None):
        r = subprocess.run([args.node, os.path.join(HERE, "ort_bench.js"), args.ort, model or self.onnx,
                            str(threads), str(args.warmup), str(args.reps)] + self.ort_inputs,
                           capture_output=True, text=True)
        m = re.search(r"^median_ms ([0-9.eE+-]+)", r.stdout, re.M)
        if r.returncode != 0 or not m:
            raise SystemExit("bench/models: ort_bench.js failed on %s:\n%s%s"
                             % (self.name, r.stdout, r.stderr))
        return float(m.group(1))

    def time_torch(self, args, threads, torch):
        torch.set_num_threads(threads)
        samples = []
        with torch.no_grad():
            for i in range(args.warmup + args.reps):
                t = time.perf_counter()
                self.m(*self.xs)
                if i >= args.warmup:
                    samples.append((time.perf_counter() - t) * 1e3)
        return statistics.median(samples)


def fmt_ms(ms):
    return "-" if ms is None else ("%.3f" % ms if ms < 1 else "%.2f" % ms)


def ratio(a, b):
    return "-" if a is None or b is None else "%.2fx" % (a / b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--run", default=None)
    ap.add_argument("--ort", default=None)
    ap.add_argument("--models", default="")
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--no-torch", action="store_true")
    ap.add_argument("--no-ort", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--before", default=None)
    ap.add_argument("--bench-before", default=None)
    ap.add_argument("--cpu", action="store_true")
    ap.add_argument("--quantized", action="store_true")
    args = ap.parse_args(sys.argv[1:] + shlex.split(os.environ.get("KILN_BENCH_MODELS_ARGS", "")))
    try:
        import torch
        import torchvision
    except ImportError as e:
        print("skipped: %s (python3-torch, python3-torchvision: scripts/bootstrap.sh)" % e)
        return 0
    threads = [int(t) for t in args.threads.split(",")]
    ort_missing = "--no-ort" if args.no_ort else None
    if not ort_missing:
        try:
            args.node, args.ort = kiln_ort.find(args.ort)
        except kiln_ort.OrtMissing as e:
            ort_missing = str(e)
    if ort_missing:
        print("ONNX Runtime column skipped: %s" % ort_missing)
    if args.quantized and ort_missing:
        raise SystemExit("bench/models: --quantized needs ONNX Runtime (calibration, reference): %s"
                         % ort_missing)
    os.makedirs(args.work, exist_ok=True)

    load0 = loadavg()
    rows = []
    for name in models.names(args.models):
        mdl = Model(name, torch, torchvision, args)
        if mdl.error:
            print("%s: %s" % (name, " ".join(mdl.error)))
            continue
        print("%s: compiled in %.1f s%s" % (
            name, mdl.compile_s,
            "" if mdl.max_err is None else ", max abs error vs PyTorch %.2g" % mdl.max_err))
        rows.append(mdl)
    best = {}  # (model, threads, engine) -> best round median
    samples = {}  # (model, threads, engine) -> every round's figure
    for rnd in range(args.rounds):
        for n in threads:
            for mdl in rows:
                got = [("kiln", mdl.time_kiln(args, n))]
                if args.before:  # the older build's module, in turns with the new one
                    got.insert(rnd % 2, ("before", mdl.time_kiln(args, n, mdl.kiln_before)))
                if args.cpu:
                    cpus = [("kiln_cpu", None)] + ([("before_cpu", mdl.kiln_before)]
                                                   if args.before else [])
                    for eng, module in (cpus if rnd % 2 == 0 else cpus[::-1]):
                        got.append((eng, mdl.cpu_kiln(args, n, module)))
                if not ort_missing:
                    got.append(("ort", mdl.time_ort(args, n)))
                if args.quantized:  # the int8 pair after the f32 pair, same round
                    pairs = [("", mdl.qkiln)] + ([("_before", mdl.qkiln_before)] if args.before else [])
                    for tag, module in (pairs if rnd % 2 == 0 else pairs[::-1]):
                        got.append(("kiln_int8" + tag, mdl.time_kiln(args, n, module)))
                        if args.cpu:
                            got.append(("kiln_int8%s_cpu" % tag, mdl.cpu_kiln(args, n, module)))
                    got.append(("ort_int8", mdl.time_ort(args, n, mdl.qonnx)))
                if not args.no_torch:
                    got.append(("torch", mdl.time_torch(args, n, torch)))
                for eng, ms in got:
                    key = (mdl.name, n, eng)
                    best[key] = min(best.get(key, ms), ms)
                    samples.setdefault(key, []).append(ms)
        print("round %d/%d done, load average %s" % (rnd + 1, args.rounds, loadavg()), flush=True)
    load1 = loadavg()

    print()
    print("bench/models: best of %d round medians (%d warmup + %d timed calls each), ms;"
          % (args.rounds, args.warmup, args.reps))
    print("ratio = Kiln / anchor (below 1: Kiln is faster). onnxruntime-node 1.30, torch %s."
          % torch.__version__)
    print("load average before: %s, after: %s" % (load0, load1))
    print()
    before = ("| Kiln before | Kiln/before ", "|---|---") if args.before else ("", "")
    print("| model | threads | Kiln %s| ORT | PyTorch | Kiln/ORT | Kiln/PyTorch |" % before[0])
    print("|---|---|---%s|---|---|---|---|" % before[1])
    for n in threads:
        for mdl in rows:
            k = best.get((mdl.name, n, "kiln"))
            b = best.get((mdl.name, n, "before"))
            o = best.get((mdl.name, n, "ort"))
            t = best.get((mdl.name, n, "torch"))
            was = "| %s | %s " % (fmt_ms(b), ratio(k, b)) if args.before else ""
            print("| %s | %d | %s %s| %s | %s | %s | %s |" % (
                mdl.name, n, fmt_ms(k), was, fmt_ms(o), fmt_ms(t), ratio(k, o), ratio(k, t)))

    if args.quantized:
        print()
        print("Quantized (QDQ int8) models, same rounds: best round medians, ms; f32/int8 above 1: "
              "int8 is faster.")
        print()
        print("| model | threads | Kiln f32 | Kiln int8 | ORT f32 | ORT int8 | Kiln f32/int8 "
              "| ORT f32/int8 | Kiln int8/ORT int8 |")
        print("|---|---|---|---|---|---|---|---|---|")
        for n in threads:
            for mdl in rows:
                k, ki = best.get((mdl.name, n, "kiln")), best.get((mdl.name, n, "kiln_int8"))
                o, oi = best.get((mdl.name, n, "ort")), best.get((mdl.name, n, "ort_int8"))
                print("| %s | %d | %s | %s | %s | %s | %s | %s | %s |" % (
                    mdl.name, n, fmt_ms(k), fmt_ms(ki), fmt_ms(o), fmt_ms(oi), ratio(k, ki),
                    ratio(o, oi), ratio(ki, oi)))
        if args.before:
            print()
            print("The older build's modules, same rounds (best round medians, ms; before: "
                  "--before's kiln-compile with --bench-before's kiln-bench):")
            print()
            print("| model | threads | Kiln f32 before | Kiln int8 before | f32/int8 before "
                  "| Kiln int8 | int8 after/before |")
            print("|---|---|---|---|---|---|---|")
            for n in threads:
                for mdl in rows:
                    b, bi = best.get((mdl.name, n, "before")), best.get((mdl.name, n, "kiln_int8_before"))
                    ki = best.get((mdl.name, n, "kiln_int8"))
                    print("| %s | %d | %s | %s | %s | %s | %s |" % (
                        mdl.name, n, fmt_ms(b), fmt_ms(bi), ratio(b, bi), fmt_ms(ki), ratio(ki, bi)))

    if args.cpu:
        print()
        print("Kiln's CPU ms per call (user + system, all threads), median of %d rounds:"
              % args.rounds)
        print()
        print("| model | threads | Kiln CPU |%s" % (" before CPU | after/before |"
                                                  if args.before else ""))
        print("|---|---|---|%s" % ("---|---|" if args.before else ""))
        for n in threads:
            for mdl in rows:
                k = statistics.median(samples[(mdl.name, n, "kiln_cpu")])
                row = "| %s | %d | %s |" % (mdl.name, n, fmt_ms(k))
                if args.before:
                    b = statistics.median(samples[(mdl.name, n, "before_cpu")])
                    row += " %s | %s |" % (fmt_ms(b), ratio(k, b))
                print(row)
        if args.quantized:
            print()
            print("Kiln's CPU ms per call of the f32 and int8 modules, median of %d rounds "
                  "(f32/int8 above 1: int8 is faster):" % args.rounds)
            print()
            print("| model | threads | Kiln f32 CPU | Kiln int8 CPU | f32/int8 |")
            print("|---|---|---|---|---|")
            for n in threads:
                for mdl in rows:
                    k = statistics.median(samples[(mdl.name, n, "kiln_cpu")])
                    ki = statistics.median(samples[(mdl.name, n, "kiln_int8_cpu")])
                    print("| %s | %d | %s | %s | %s |" % (mdl.name, n, fmt_ms(k), fmt_ms(ki), ratio(k, ki)))
            if args.before:
                print()
                print("The same for the older build's modules, and the int8 module after/before:")
                print()
                print("| model | threads | f32 before CPU | int8 before CPU | f32/int8 before "
                      "| int8 CPU | int8 after/before |")
                print("|---|---|---|---|---|---|---|")
                for n in threads:
                    for mdl in rows:
                        b = statistics.median(samples[(mdl.name, n, "before_cpu")])
                        bi = statistics.median(samples[(mdl.name, n, "kiln_int8_before_cpu")])
                        ki = statistics.median(samples[(mdl.name, n, "kiln_int8_cpu")])
                        print("| %s | %d | %s | %s | %s | %s | %s |" % (
                            mdl.name, n, fmt_ms(b), fmt_ms(bi), ratio(b, bi), fmt_ms(ki), ratio(ki, bi)))

    if args.profile:
        for n in threads:
            for mdl in rows:
                r = subprocess.run(mdl.kiln_cmd(args, n, ["--profile-dispatches"]),
                                   capture_output=True, text=True)
                print("\n## %s, %d worker(s): kiln-bench --profile-dispatches" % (mdl.name, n))
                print(r.stdout if r.returncode == 0 else
                      "(kiln-bench --profile-dispatches failed: %s)" % r.stderr.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
