#!/usr/bin/python3
"""Runs probe_fresh_memory (probe_fresh_memory.c) in many fresh processes
and prints, per mode, the total CPU time of faulting in MIB of fresh
anonymous memory (median, quartiles, max) and the CPU time per 2 MiB chunk
(mean, median, 90th percentile, max, how many chunks took over 1 ms: on this VM
a 2 MiB block the host took back, see krt_pool_alloc), and the median CPU
time of the first writes to each 4 KiB page once the chunk was faulted in
(on a VM that maps guest pages at their first write, what the request left
for later: allocator.c's touch). Not a test.
Modes alternate, one process each, so all meet the same machine. --idle=S
waits S seconds before each process; --after-free=MIB first runs a process
that faults in and frees MIB in huge pages (what a process started right
after another one exited meets); --reuse measures memory the process
itself just freed.

usage: probe_fresh_memory.py --probe=PROBE [--modes=huge-touch,small-pw]
           [--runs=12] [--mib=8] [--idle=0] [--after-free=0] [--reuse]"""
import argparse
import re
import statistics
import subprocess
import time


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", required=True)
    ap.add_argument("--modes", default="huge-touch,huge-pw,small-touch,small-pw,populate")
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--mib", type=int, default=8)
    ap.add_argument("--idle", type=float, default=0)
    ap.add_argument("--after-free", type=int, default=0)
    ap.add_argument("--reuse", action="store_true")
    a = ap.parse_args()
    modes = a.modes.split(",")
    chunks = {m: [] for m in modes}
    totals = {m: [] for m in modes}
    writes = {m: [] for m in modes}
    for _ in range(a.runs):
        for m in modes:
            time.sleep(a.idle)
            if a.after_free:
                subprocess.run([a.probe, "huge-touch", str(a.after_free)], capture_output=True,
                               check=True)
            out = subprocess.run([a.probe, m, str(a.mib), "1" if a.reuse else "0"],
                                 capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                g = re.match(r"chunk \d+ wall_us=\S+ cpu_us=([\d.]+)", line)
                if g:
                    chunks[m].append(float(g[1]))
                g = re.match(r"total .* cpu_us=([\d.]+) .* write_us=([\d.]+)", line)
                if g:
                    totals[m].append(float(g[1]))
                    writes[m].append(float(g[2]))
    with open("/proc/loadavg") as f:
        print("load average %s; %d processes per mode, %d MiB each, idle %g s, after-free %d MiB,"
              " reuse %s" % (" ".join(f.read().split()[:3]), a.runs, a.mib, a.idle, a.after_free,
                             a.reuse))
    for m in modes:
        t, c = totals[m], chunks[m]
        line = "%-12s total cpu us median %7.0f p25-p75 %7.0f-%-7.0f max %7.0f" % (
            m, statistics.median(t), quantile(t, 0.25), quantile(t, 0.75), max(t))
        if c:
            line += " | per 2 MiB mean %5.0f median %5.0f p90 %5.0f max %5.0f, over 1 ms %d/%d" % (
                statistics.mean(c), statistics.median(c), quantile(c, 0.9), max(c),
                sum(x > 1000 for x in c), len(c))
        line += " | then first writes median %6.0f" % statistics.median(writes[m])
        print(line)


if __name__ == "__main__":
    main()
