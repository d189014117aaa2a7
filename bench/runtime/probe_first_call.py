#!/usr/bin/python3
"""Runs probe_first_call (probe_first_call.c) in many fresh processes and
summarizes what the slow first calls have in common (not a test): per
build, the first call's extra CPU time over the steady call (median, 75th
percentile, max, how many over 2 ms), and the medians of its minor
faults, transparent huge pages gained and run-delay, for the fast and the
slow half of the processes; then each phase's wall and CPU time (median
and quartiles), dispatch 0's first-run extra on the calling thread and the
wall time from the first call's start to its first dispatch (its
transient memory faulted in) and each process's goal ratio, (load +
prepare + first call) / (1 ms + 1.2 x the steady call), wall time.
--before names the probe of an older build; the two alternate, one
process each, so both meet the same machine. --before-module gives the
older build a module of its own (one its kiln-compile wrote).
--idle=S waits S seconds before each process (the state after an idle
spell; see bench_runtime.py). Run it under `chrt -f 10` (SCHED_FIFO,
which the probes inherit; root) on a machine other processes load: the
probe's threads then run whenever they can, as on a quiet one.

usage: probe_first_call.py --probe=PROBE [--before=OLD_PROBE
           [--before-module=OLD_M.kiln]] --module=M.kiln
           [--device=local-sync] [--runs=40] [--idle=0]"""
import argparse
import statistics
import subprocess
import time


def probe(exe, module, device):
    out = subprocess.run([exe, module, device, "8", "2", "4096"], capture_output=True,
                         text=True, check=True).stdout
    phases, d0, prologue = {}, 0.0, 0.0
    for line in out.splitlines():
        f = line.split()
        if len(f) > 1 and f[0] == "wall" and f[1].startswith("prologue_first_us="):
            prologue = float(f[1].split("=")[1])
        elif f and f[0] == "phase":
            phases[f[1]] = {k: float(v) for k, v in (x.split("=") for x in f[2:])}
        elif f[:2] == ["dispatch", "0"]:
            d0 = float(dict(x.split("=") for x in f[3:])["extra_us"])
    first = phases["call0"]
    steady = min(phases[c]["cpu_us"] for c in ("call1", "call2", "call7"))
    return dict(extra=first["cpu_us"] - steady, steady=steady, flt=first["minflt"],
                thp=first["thp_kb"], delay=first["delay_us"], d0=d0, prologue=prologue,
                phases=phases)


def phase_table(label, runs):
    """Per phase, the median [quartiles] wall and process CPU time, and
    dispatch 0's first-run extra on the calling thread (what a first
    call's fresh arena costs on its critical path)."""
    def q(vals):
        v = sorted(vals)
        return "%7.0f [%.0f-%.0f]" % (statistics.median(v), v[len(v) // 4], v[(3 * len(v)) // 4])
    for name in ("load", "device", "prepare", "call0", "call1"):
        print("       %-7s wall %s  cpu %s" % (name, q(r["phases"][name]["wall_us"] for r in runs),
                                           q(r["phases"][name]["cpu_us"] for r in runs)))
    print("       dispatch 0 first-run extra, calling thread: %s us" % q(r["d0"] for r in runs))
    print("       first call's start to its first dispatch, wall: %s us" % q(r["prologue"] for r in runs))
    ratios = sorted(wall_ratio(r) for r in runs)
    print("       wall ratio (load + prepare + first call) / (1 ms + 1.2 x steady): %s, over 1: %d of %d"
          % (" ".join("%.2f" % x for x in ratios), sum(x > 1 for x in ratios), len(ratios)))


def wall_ratio(r):
    """The goal's ratio for one process, as bench_runtime.py's: the steady
    call is the median wall time of the calls after the first."""
    ph = r["phases"]
    steady = statistics.median(v["wall_us"] for k, v in ph.items()
                               if k.startswith("call") and k != "call0")
    return (ph["load"]["wall_us"] + ph["prepare"]["wall_us"] + ph["call0"]["wall_us"]) / (
        1000 + 1.2 * steady)


def summary(label, runs):
    runs = sorted(runs, key=lambda r: r["extra"])
    extra = [r["extra"] for r in runs]
    half = len(runs) // 2
    def med(rs, k):
        return statistics.median(r[k] for r in rs) if rs else 0
    print("%-6s n=%d steady %.0f us; first call extra CPU: median %.0f us, p75 %.0f, "
          "max %.0f, over 2 ms %d" % (label, len(runs), med(runs, "steady"),
          statistics.median(extra), extra[(3 * len(extra)) // 4], extra[-1],
          sum(e > 2000 for e in extra)))
    for name, rs in (("fast half", runs[:half]), ("slow half", runs[half:])):
        print("       %s: extra %.0f us, minflt %.0f, THP %.0f KB, run-delay %.0f us" % (
            name, med(rs, "extra"), med(rs, "flt"), med(rs, "thp"), med(rs, "delay")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--before")
    ap.add_argument("--before-module")
    ap.add_argument("--module", required=True)
    ap.add_argument("--device", default="local-sync")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--idle", type=float, default=0)
    args = ap.parse_args()
    builds = [("after", args.probe, args.module)] + (
        [("before", args.before, args.before_module or args.module)] if args.before else [])
    results = {label: [] for label, _, _ in builds}
    load0 = open("/proc/loadavg").read().split()[:3]
    for _ in range(args.runs):
        for label, exe, module in builds:
            time.sleep(args.idle)
            results[label].append(probe(exe, module, args.device))
    print("%s on %s, %d fresh processes per build, %.1f s idle before each; "
          "load average %s -> %s" % (args.module, args.device, args.runs, args.idle,
                                     load0, open("/proc/loadavg").read().split()[:3]))
    for label, _, _ in builds:
        summary(label, results[label])
        phase_table(label, results[label])


if __name__ == "__main__":
    main()
