#!/usr/bin/python3
"""bench/runtime driver (not a test): compiles ResNet-18 and MobileNetV2
(bench/models/models.py, fixed seeds), a 1024^3 f32 matmul and the tiny
samples/simple_mul.mlir, then runs bench_runtime (one fresh process per
measurement, page cache warm after the first) on local-sync and local-task
(2 workers; local-sync with its default, the caller alone), in alternating
rounds when --before names the bench_runtime
of an older build (its modules from --before-compile, that build's
kiln-compile, when the module format changed in between), and prints the
median of each figure per build, wall time and process CPU time, and the
quartiles of the per-process wall ratio (its spread over rounds); then
kiln-bench's defaults (1 warmup, 10 repetitions) on the matmul:
median/min (also for the older build given --before-bench).

--idle=S waits S seconds before each process: what an embedder meets
after an idle spell. In a VM with free page reporting (virtio-balloon),
memory the kernel has kept free for ~2 s is handed back to the host and
costs host faults when touched again; back to back, a process gets the
2 MiB blocks the previous one freed instead (see runtime-min's
krt_pool_alloc and probe_first_call.c). "first flt" counts the first
call's minor faults: the fresh memory it touched; "no-fallback" gives the
wall ratio's quartiles over the processes whose first call met no cold
2 MiB page before its last (probe_fresh_memory.c measures that lottery).

--evict drops the module file from the page cache before each process
(posix_fadvise DONTNEED; a file no process maps goes whole): a cold
start, as after a reboot or after this VM's proactive reclaim evicted an
idle module. Load and prepare then read what they check (header, tables,
kernels) and the first call the weights; "setup KB" and "first KB" are
what load + prepare and the first call read from storage (the process's
read_bytes in /proc/self/io), "cached %" what
of the file was still in the page cache when the process started (0
unless eviction failed). The ratio's page-cache-warm goal does not
apply there: read as what a cold start costs.

usage: bench_runtime.py --compile=KILN_COMPILE --bench=KILN_BENCH
           --runtime=BENCH_RUNTIME [--before=OLD_BENCH_RUNTIME
           [--before-compile=OLD_KILN_COMPILE] [--before-bench=OLD_KILN_BENCH]]
           --work=DIR [--rounds=3] [--idle=SECONDS] [--evict]"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

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


def compile_modules(compile, work, label):
    """The benchmark's modules as `compile` writes them, in work/label."""
    out_dir = os.path.join(work, label)
    os.makedirs(out_dir, exist_ok=True)
    modules = []
    try:
        import torch
        import torchvision
        sys.path.insert(0, os.path.join(HERE, "..", "models"))
        import models
        for name in ("resnet18", "mobilenet_v2"):
            _, _, onnx = models.export(name, torch, torchvision, work)
            out = os.path.join(out_dir, name + ".kiln")
            run([compile, onnx, "-o", out])
            modules.append((name, out, 10))
    except ImportError as e:
        print("bench_runtime: models skipped: %s (python3-torch, python3-torchvision)" % e)
    mm_src = os.path.join(work, "matmul.mlir")
    with open(mm_src, "w") as f:
        f.write(MATMUL)
    mm = os.path.join(out_dir, "matmul.kiln")
    run([compile, mm_src, "-o", mm])
    tiny = os.path.join(out_dir, "tiny.kiln")
    run([compile, os.path.join(ROOT, "samples", "simple_mul.mlir"), "-o", tiny])
    return modules + [("matmul1024", mm, 10), ("tiny", tiny, 20000)]


def evict(path):
    """Drops path's pages from the page cache; returns the percentage of
    them still cached (mincore through a mapping) just after."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)  # dirty pages are not dropped
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        return cached_percent(fd)
    finally:
        os.close(fd)


def cached_percent(fd):
    import ctypes
    import mmap
    size = os.fstat(fd).st_size
    if not size:
        return 0.0
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long]
    libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
    if addr in (None, ctypes.c_void_p(-1).value):
        raise SystemExit("bench_runtime: mmap for mincore failed")
    try:
        pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
        vec = ctypes.create_string_buffer(pages)
        if libc.mincore(addr, size, vec) != 0:
            raise SystemExit("bench_runtime: mincore failed")
        return 100.0 * sum(b & 1 for b in vec.raw) / pages
    finally:
        libc.munmap(addr, size)


def device_workers(dev):
    """worker_count as a user gets it: local-task with 2 workers, local-sync
    with its default (the caller alone; 2 would add its opt-in fault
    helper thread)."""
    return "2" if dev == "local-task" else "0"


def bench_defaults(bench, module, x, dev):
    workers = ["--workers=2"] if dev == "local-task" else []  # as device_workers
    out = run([bench, "--module=" + module, "--device=" + dev] + workers + [
               "--input=@" + x, "--input=@" + x])
    def ms(label):
        m = re.search(r"^%s\s+([0-9.]+) (ms|us)" % label, out, re.M)
        return float(m.group(1)) * (1 if m.group(2) == "ms" else 1e-3)
    return ms("min"), ms("median")


def wall_ratio(r):
    """One process's (load + prepare + first call) / (1 ms + 1.2 x steady)."""
    return (r["load_us"] + r["prepare_us"] + r["first_us"]) / (1000 + 1.2 * r["steady_median_us"])


def main():
    ap = argparse.ArgumentParser()
    for a in ("--compile", "--bench", "--runtime", "--work"):
        ap.add_argument(a, required=True)
    ap.add_argument("--before", default=None)
    ap.add_argument("--before-compile", default=None)
    ap.add_argument("--before-bench", default=None)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--idle", type=float, default=0)
    ap.add_argument("--evict", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    # Each build runs the modules its own compiler writes (formats differ).
    builds = [("after", args.runtime, compile_modules(args.compile, args.work, "after"), args.bench)]
    if args.before:
        builds.append(("before", args.before,
                       compile_modules(args.before_compile or args.compile, args.work, "before"),
                       args.before_bench))
    figures = {}
    for _ in range(args.rounds):
        for k in range(len(builds[0][2])):
            for dev in ("local-sync", "local-task"):
                for label, exe, modules, _ in builds:
                    name, path, calls = modules[k]
                    time.sleep(args.idle)
                    cached = evict(path) if args.evict else None
                    out = run([exe, path, dev, str(calls), device_workers(dev)])
                    kv = dict(p.split("=") for p in out.split())
                    if cached is not None:
                        kv["cached_pct"] = cached
                    figures.setdefault((name, dev, label), []).append(
                        {k2: float(v) for k2, v in kv.items()})
    print("load average: %s; %.1f s idle before each process%s" % (
        open("/proc/loadavg").read().split()[:3], args.idle,
        "; module evicted from the page cache before each" if args.evict else ""))
    print("%-12s %-10s %-6s %10s %8s %10s %10s %10s %8s %6s %9s %9s %9s %6s %9s" % (
        "module", "device", "build", "load us", "RSS KB", "prepare us",
        "first us", "steady us", "flt/call", "ratio", "setup cpu", "first cpu",
        "steady cpu", "ratio", "first flt") + "  wall ratio p25-p75" +
        "  no-fallback n, p25-p75" +
        ("  setup KB  first KB  cached %" if args.evict else ""))
    for (name, dev, label), runs in sorted(figures.items(), key=lambda f: (
            [m[0] for m in builds[0][2]].index(f[0][0]), f[0][1], f[0][2] != "before")):
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        fixed = med["load_us"] + med["prepare_us"] + med["first_us"]
        line = "%-12s %-10s %-6s %10.1f %8d %10.1f %10.1f %10.3f %8.2f %6.2f" % (
            name, dev, label, med["load_us"], med["load_rss_kb"], med["prepare_us"],
            med["first_us"], med["steady_median_us"], med["minflt_per_call"],
            fixed / (1000 + 1.2 * med["steady_median_us"]))
        if "setup_cpu_us" in med:
            line += " %9.1f %9.1f %9.3f %6.2f" % (
                med["setup_cpu_us"], med["first_cpu_us"], med["steady_cpu_us"],
                (med["setup_cpu_us"] + med["first_cpu_us"]) /
                (1000 + 1.2 * med["steady_cpu_us"]))
        if "first_minflt" in med:
            line += " %9d" % med["first_minflt"]
        # one process's ratio moves with the machine: the quartiles of the
        # per-process wall ratios say how far the median can be trusted
        per = sorted(wall_ratio(r) for r in runs)
        line += "  %.2f-%.2f" % (per[len(per) // 4], per[(3 * len(per)) // 4])
        if "first_minflt" in runs[0]:
            # On this VM a fresh 2 MiB page can come cold from the host (4-7
            # ms); krt_pool_alloc then faults the rest of the block in 4 KiB
            # pages, 256 faults per MiB more than the row's fewest: split
            # the ratio by it (a cold last chunk faults once: counted warm).
            few = min(r["first_minflt"] for r in runs) + 256
            warm = sorted(wall_ratio(r) for r in runs if r["first_minflt"] < few)
            line += "  %d/%d %s" % (len(warm), len(runs), "%.2f-%.2f" % (
                warm[len(warm) // 4], warm[(3 * len(warm)) // 4]) if warm else "-")
        if args.evict:
            line += "  %8s  %8s  %8.1f" % (
                "%d" % med["setup_read_kb"] if "setup_read_kb" in med else "-",
                "%d" % med["first_read_kb"] if "first_read_kb" in med else "-",
                med["cached_pct"])
        print(line)
    print("ratio: (load + prepare + first call) / (1 ms + 1.2 x steady call); "
          "wall time, then process CPU time; no-fallback: the processes whose first call"
          " faulted under 1 MiB of 4 KiB pages more than the row's fewest (no cold huge"
          " page but perhaps its last), their wall ratio's quartiles")
    # kiln-bench's pattern (a first call, then 10 timed) by CPU time too.
    for (name, dev, label), runs in sorted(figures.items()):
        if name == "matmul1024" and "steady_cpu_min_us" in runs[0]:
            print("matmul 1024^3, %s, %s: 10 calls after the first, median/min: wall %.2f, CPU %.2f"
                  " (median over rounds)" % (dev, label,
                  statistics.median(r["steady_median_us"] / r["steady_min_us"] for r in runs),
                  statistics.median(r["steady_cpu_us"] / r["steady_cpu_min_us"] for r in runs)))
    import numpy as np
    x = os.path.join(args.work, "matmul_x.npy")
    np.save(x, np.random.default_rng(0).standard_normal((1024, 1024), dtype=np.float32))
    for dev in ("local-sync", "local-task"):
        for label, _, modules, bench in builds:
            if not bench:
                continue
            mm = [m for m in modules if m[0] == "matmul1024"][0][1]
            lo, med = bench_defaults(bench, mm, x, dev)
            print("kiln-bench defaults, matmul 1024^3, %s, %s: min %.2f ms, median %.2f ms, "
                  "median/min %.2f" % (dev, label, lo, med, med / lo))


if __name__ == "__main__":
    main()
