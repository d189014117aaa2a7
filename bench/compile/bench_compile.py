#!/usr/bin/python3
"""Benchmark (not a test): how long kiln-compile takes and how much memory
it needs, per model.

Each model (bench/models/models.py: random weights, fixed seeds, opset 17,
nothing downloaded) is exported once, by a child process (this one never
loads torch: a child's peak RSS counts what it inherited before exec),
then compiled ROUNDS times; with
--before=OLD_KILN_COMPILE an older build compiles it in the same rounds,
the two taking turns, so both see the same machine load. Per compile:
wall seconds, CPU seconds (user + system, lld's processes included) and
peak RSS (of kiln-compile and its waited-for children, from wait4), and
the share of the pass report's total (`--timing`, which leaves the
module as it is) spent turning kernels into machine code: the passes
translate-executables (the older pipeline's), translate-llvm-cpu and
compile-llvm-cpu. A row shows the medians, the module's dispatch sites and
executables (before deduplicate-executables there was one executable per
dispatch site), and the wall-time ratio new/before. Then the slowest model's `--timing`
breakdown per executable and LLVM step. The load average is printed
before and after: on a shared machine, compare ratios of one run.

usage: bench_compile.py --compile=KILN_COMPILE --dump=KILN_DUMP --work=DIR
           [--before=OLD_KILN_COMPILE] [--models=a,b | all] [--rounds=3]
           [--jobs=N]
--jobs is passed to the new kiln-compile only (the default: one thread per
online core). The environment's KILN_BENCH_COMPILE_ARGS is appended to the
command line. Without torch/torchvision it prints 'skipped: ...' and
exits 0.
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "models"))

import models  # noqa: E402
from bench_models import loadavg  # noqa: E402

DEFAULT = ["resnet18", "mobilenet_v2", "encoder", "encoder_gelu", "encoder2", "encoder2_gelu",
           "encoder12", "encoder12_gelu", "encoder_d128", "encoder2_d128_gelu"]


LLVM_PASSES = ("translate-executables", "translate-llvm-cpu", "compile-llvm-cpu")


def llvm_share(report):
    """Percent of the --timing pass report's total spent in LLVM_PASSES
    (a nested pass is named 'NAME (TARGET)'); None without a report."""
    total, part = None, 0.0
    for m in re.finditer(r"^\s*([0-9.]+) \(\s*[0-9.]+%\)\s+(.+?)\s*$", report, re.M):
        name = m.group(2)
        if name == "Total":
            total = float(m.group(1))
        elif name.split(" (")[0] in LLVM_PASSES:
            part += float(m.group(1))
    return 100.0 * part / total if total else None


def compile_once(cmd):
    """(wall s, cpu s, peak RSS MiB, stderr) of one kiln-compile run."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit("bench/compile: %s failed:\n%s" % (" ".join(cmd), err))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024.0, err


def module_counts(dump, kiln):
    """(dispatch sites, executables) of a module, from kiln-dump."""
    r = subprocess.run([dump, "--json", kiln], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("bench/compile: kiln-dump failed:\n" + r.stderr)
    exes = len(json.loads(r.stdout)["executables"])
    text = subprocess.run([dump, kiln], capture_output=True, text=True).stdout
    sites = sum(1 for line in text.splitlines()
                if "call.import" in line and "<hal.command_buffer.dispatch>" in line)
    return sites, exes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--before", default=None)
    ap.add_argument("--models", default=",".join(DEFAULT))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=0)
    ap.add_argument("--export-only", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(sys.argv[1:] + shlex.split(os.environ.get("KILN_BENCH_COMPILE_ARGS", "")))
    names = models.names(args.models)
    os.makedirs(args.work, exist_ok=True)
    if args.export_only:  # the child: torch lives here only
        try:
            import torch
            import torchvision
        except ImportError as e:
            print("skipped: %s (python3-torch, python3-torchvision: scripts/bootstrap.sh)" % e)
            return 77
        for name in names:
            models.export(name, torch, torchvision, args.work)
        return 0
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--compile=-", "--dump=-",
                        "--work=" + args.work, "--models=" + ",".join(names),
                        "--export-only=1"], capture_output=True, text=True)
    if r.returncode == 77:
        print(r.stdout.strip())
        return 0
    if r.returncode != 0:
        raise SystemExit("bench/compile: exporting the models failed:\n" + r.stdout + r.stderr)
    onnx = {name: os.path.join(args.work, name + ".onnx") for name in names}
    jobs = ["--jobs=%d" % args.jobs] if args.jobs else []
    builds = [("new", [args.compile] + jobs)]
    if args.before:
        builds.append(("before", [args.before]))

    load0 = loadavg()
    runs = {}  # (model, build) -> [(wall, cpu, rss)]
    for rnd in range(args.rounds):
        for name in names:
            order = builds if rnd % 2 == 0 else builds[::-1]
            for build, cmd in order:
                out = os.path.join(args.work, "%s.%s.kiln" % (name, build))
                wall, cpu, rss, err = compile_once(cmd + [onnx[name], "-o", out, "--timing"])
                runs.setdefault((name, build), []).append((wall, cpu, rss, llvm_share(err)))
        print("round %d/%d done, load average %s" % (rnd + 1, args.rounds, loadavg()), flush=True)
    load1 = loadavg()

    def med(name, build, i):
        got = [r[i] for r in runs.get((name, build), []) if r[i] is not None]
        return statistics.median(got) if got else None

    def pct(v):
        return "-" if v is None else "%.0f%%" % v

    print()
    print("bench/compile: median of %d compiles per model (kiln-compile%s), %s"
          % (args.rounds, " " + " ".join(jobs) if jobs else "", time.strftime("%Y-%m-%d")))
    print("load average before: %s, after: %s" % (load0, load1))
    print()
    head = "| model | dispatch sites | executables | wall s | CPU s | peak RSS MiB | LLVM share |"
    rule = "|---|---|---|---|---|---|---|"
    if args.before:
        head += (" before: executables | wall s | CPU s | peak RSS MiB | LLVM share |"
                 " wall new/before |")
        rule += "---|---|---|---|---|---|"
    print(head)
    print(rule)
    slowest = None
    for name in names:
        sites, exes = module_counts(args.dump, os.path.join(args.work, name + ".new.kiln"))
        row = "| %s | %d | %d | %.2f | %.2f | %.0f | %s |" % (
            name, sites, exes, med(name, "new", 0), med(name, "new", 1), med(name, "new", 2),
            pct(med(name, "new", 3)))
        if args.before:
            _, bexes = module_counts(args.dump, os.path.join(args.work, name + ".before.kiln"))
            row += " %d | %.2f | %.2f | %.0f | %s | %.2fx |" % (
                bexes, med(name, "before", 0), med(name, "before", 1), med(name, "before", 2),
                pct(med(name, "before", 3)), med(name, "new", 0) / med(name, "before", 0))
        print(row)
        if slowest is None or med(name, "new", 0) > med(slowest, "new", 0):
            slowest = name

    print()
    print("## %s (the slowest): kiln-compile --timing" % slowest)
    _, _, _, err = compile_once(builds[0][1] + [onnx[slowest], "-o",
                                                os.path.join(args.work, slowest + ".timing.kiln"),
                                                "--timing"])
    print(err.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
