#!/usr/bin/env python3
"""Runs on a GPU machine what make_bundle.py prepared elsewhere: every
tests/e2e/gpu program (its sm_80 and sm_90 modules) and the ONNX models on
kiln-run --device=cuda, compared with Kiln's CPU results and with numpy's
or PyTorch's; then the GPU benchmarks, side by side in this run: f32
matmul 4096^3 against torch.matmul (TF32 off), ResNet-18 batch 1 and 8
against PyTorch eager fp32 (TF32 off) and ONNX Runtime's CUDA provider
where it loads; kiln-bench's per-dispatch profile and Nsight Compute
(ncu) on the slowest kernels.

usage: gpu_check.py BUNDLE.tar.zst OUTDIR [--skip-e2e] [--skip-bench] [--no-ncu]
Writes OUTDIR/report.txt (the summary, also printed), e2e.txt (every
check), profile.txt, ncu.txt and results.json. Exit status 1 if any
check failed.
"""
import concurrent.futures
import glob
import json
import lzma
import os
import re
import statistics
import subprocess
import sys
import tarfile
import time

import numpy as np

WORK = "/tmp/kiln-gpu"
REPORT = []


def say(line=""):
    print(line, flush=True)
    REPORT.append(line)


def unpack(bundle):
    t0 = time.monotonic()
    os.makedirs(WORK, exist_ok=True)
    if bundle.endswith(".zst"):  # with the zstd that travels beside this script
        tools = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools")
        env = dict(os.environ, LD_LIBRARY_PATH=tools)
        z = subprocess.Popen([os.path.join(tools, "zstd"), "-d", "-q", "--long=27", "-c", bundle],
                             stdout=subprocess.PIPE, env=env)
        subprocess.run(["tar", "-xf", "-", "-C", WORK], stdin=z.stdout, check=True)
        if z.wait() != 0:
            raise RuntimeError("zstd -d %s failed" % bundle)
    else:
        with lzma.open(bundle) as xz, tarfile.open(fileobj=xz, mode="r|") as tar:
            tar.extractall(WORK)
    say("bundle unpacked in %.1f s" % (time.monotonic() - t0))
    return os.path.join(WORK, "bundle")


def run(cmd, timeout=180, env=None):
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return r.returncode, r.stdout, r.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return -999, out, "timed out after %d s" % timeout, time.monotonic() - t0
    except OSError as e:
        return -998, "", str(e), time.monotonic() - t0


def compare(got_path, ref, rtol, atol):
    """(ok, max abs error, why)"""
    if not os.path.exists(got_path):
        return False, None, "no output written"
    got = np.load(got_path)
    ref = np.asarray(ref)
    if got.shape != ref.shape:
        return False, None, "shape %s vs %s" % (got.shape, ref.shape)
    if got.size == 0:
        return True, 0.0, ""
    if got.dtype.kind in "fc" or ref.dtype.kind in "fc":
        g, w = got.astype(np.float64), ref.astype(np.float64)
        err = float(np.max(np.abs(g - w)))
        ok = bool(np.allclose(g, w, rtol=rtol, atol=atol)) and np.isfinite(g).all() == np.isfinite(w).all()
        return ok, err, "" if ok else "max abs error %.3g" % err
    ok = bool(np.array_equal(got, ref))
    return ok, 0.0 if ok else None, "" if ok else "integer results differ"


def e2e_one(b, kr, d, sm):
    meta = json.load(open(os.path.join(d, "meta.json")))
    name = os.path.basename(d)
    out = os.path.join(WORK, "out", name + "." + sm)
    os.makedirs(out, exist_ok=True)
    cmd = [kr, "--module=" + os.path.join(d, sm + ".kiln"), "--function=" + meta["function"],
           "--device=cuda"]
    cmd += ["--input=@" + os.path.join(d, "in%d.npy" % i) for i in range(meta["inputs"])]
    outs = [os.path.join(out, "r%d.npy" % j) for j in range(meta["results"])]
    cmd += ["--output=@" + o for o in outs]
    rc, so, se, secs = run(cmd, 40)
    lines = []
    ok = rc == 0
    if rc != 0:
        lines.append("kiln-run exit %d: %s" % (rc, (se or so).strip()[-600:]))
    else:
        for j, o in enumerate(outs):
            cpu = np.load(os.path.join(d, "cpu%d.npy" % j))
            want = np.load(os.path.join(d, "want%d.npy" % j))
            ok1, e1, w1 = compare(o, cpu, 1e-4, 1e-4)
            ok2, e2, w2 = compare(o, want, 1e-4, 1e-4)
            ok = ok and ok1 and ok2
            lines.append("result %d: vs CPU %s (%s), vs numpy %s (%s)"
                         % (j, "ok" if ok1 else "FAIL " + w1, e1, "ok" if ok2 else "FAIL " + w2, e2))
    return name, sm, ok, secs, lines


def e2e(b, kr, log):
    dirs = sorted(glob.glob(os.path.join(b, "e2e", "*")))
    jobs = [(d, sm) for d in dirs for sm in ("sm_80", "sm_90")]
    t0 = time.monotonic()
    failed = []
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        for name, sm, ok, secs, lines in pool.map(lambda j: e2e_one(b, kr, *j), jobs):
            log.write("%s %s %s (%.2f s)\n" % ("PASS" if ok else "FAIL", name, sm, secs))
            for l in lines:
                log.write("    " + l + "\n")
            if not ok:
                failed.append("%s %s: %s" % (name, sm, "; ".join(lines)[:400]))
    say("e2e.gpu programs on the GPU: %d runs (%d programs x sm_80, sm_90), %d passed, %d failed "
        "(%.0f s)" % (len(jobs), len(dirs), len(jobs) - len(failed), len(failed), time.monotonic() - t0))
    for f in failed:
        say("  FAIL " + f)
    return not failed


def onnx_models(b, kr, log):
    failed = []
    for d in sorted(glob.glob(os.path.join(b, "onnx", "*"))):
        name = os.path.basename(d)
        y = os.path.join(WORK, "out", name + ".y.npy")
        os.makedirs(os.path.dirname(y), exist_ok=True)
        rc, so, se, secs = run([kr, "--module=" + os.path.join(d, "sm_90.kiln"), "--device=cuda",
                                "--input=@" + os.path.join(d, "x.npy"), "--output=@" + y], 90)
        if rc != 0:
            line = "FAIL %s: kiln-run exit %d: %s" % (name, rc, (se or so).strip()[-600:])
            failed.append(line)
        else:
            ok1, e1, w1 = compare(y, np.load(os.path.join(d, "want.npy")), 0, 1e-3)
            ok2, e2, w2 = compare(y, np.load(os.path.join(d, "cpu.npy")), 0, 1e-3)
            line = "%s %s: max abs error vs PyTorch %.3g, vs Kiln CPU %.3g (tolerance 1e-3; kiln-run %.2f s)" % (
                "PASS" if ok1 and ok2 else "FAIL", name, e1 if e1 is not None else -1,
                e2 if e2 is not None else -1, secs)
            if not (ok1 and ok2):
                failed.append(line)
        log.write(line + "\n")
        say("  " + line)
    return not failed


def median_ms(text):
    m = re.search(r"^median\s+([\d.]+) (us|ms)", text, re.M)
    if not m:
        return None
    return float(m.group(1)) / (1000.0 if m.group(2) == "us" else 1.0)


def torch_time(fn, warm=5, reps=20):
    import torch
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    return statistics.median(ts)


def bench(b, kb, kr, results, no_ncu):
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    dev = torch.cuda.get_device_name(0)
    say("device: %s (torch %s, CUDA %s)" % (dev, torch.__version__, torch.version.cuda))
    results["device"] = dev
    # f32 matmul 4096^3
    n = 4096
    rng = np.random.default_rng(1)
    a = rng.standard_normal((n, n), dtype=np.float32)
    bb = rng.standard_normal((n, n), dtype=np.float32)
    pa, pb = os.path.join(WORK, "a.npy"), os.path.join(WORK, "b.npy")
    np.save(pa, a)
    np.save(pb, bb)
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(bb).cuda()
    ref = (ta @ tb).cpu().numpy()
    flop = 2.0 * n ** 3
    # The module kiln-compile makes (matmul_N.kiln), and any variants
    # bundled beside it (matmul_N_*.kiln: other launch configurations).
    mods = sorted(glob.glob(os.path.join(b, "bench", "matmul_%d*.kiln" % n)))
    best = {}
    for mod in mods:
        tag = os.path.basename(mod)[:-5]
        y = os.path.join(WORK, "mm.npy")
        rc, so, se, secs = run([kr, "--module=" + mod, "--device=cuda", "--input=@" + pa, "--input=@" + pb,
                                "--output=@" + y], 120)
        if rc != 0:
            say("%s: kiln-run failed (%d): %s" % (tag, rc, (se or so)[-600:]))
            continue
        got = np.load(y)
        rel = float(np.max(np.abs(got - ref)) / np.max(np.abs(ref)))
        rounds_k, rounds_t = [], []
        for _ in range(2):
            rc, so, se, secs = run([kb, "--module=" + mod, "--device=cuda", "--input=@" + pa,
                                    "--input=@" + pb, "--warmup=2", "--repetitions=10"], 120)
            k = median_ms(so) if rc == 0 else None
            if k is None:
                say("%s: kiln-bench failed (%d): %s" % (tag, rc, (se or so)[-600:]))
                break
            rounds_k.append(k)
            rounds_t.append(torch_time(lambda: ta @ tb, 3, 10))
        if not rounds_k:
            continue
        k, t = min(rounds_k), min(rounds_t)
        say("%s f32: Kiln %.3f ms (%.1f TFLOP/s), torch.matmul TF32 off %.3f ms (%.1f TFLOP/s): "
            "Kiln/torch speed %.3fx; max |Kiln - torch| %.2g of max |torch| (rounds: Kiln %s, torch %s)"
            % (tag, k, flop / k / 1e9, t, flop / t / 1e9, t / k, rel, rounds_k, [round(v, 3) for v in rounds_t]))
        results[tag] = {"kiln_ms": k, "torch_ms": t, "rel_err": rel}
        if rel < 1e-4 and (not best or k < best["kiln_ms"]):
            best = {"kiln_ms": k, "torch_ms": t, "module": mod}
    # ResNet-18 batch 1 and 8
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18(weights=None).cuda().eval()
    ort_sess = ort_note = None
    try:
        import onnxruntime as ort
        prov = ort.get_available_providers()
        if "CUDAExecutionProvider" in prov:
            ort_sess = ort
        else:
            ort_note = "onnxruntime %s has no CUDA provider here (providers: %s)" % (ort.__version__, prov)
    except Exception as e:  # noqa: BLE001
        ort_note = "onnxruntime does not load: %s" % e
    if ort_note:
        say(ort_note)
    runs = []
    for batch in (1, 8):
        d = os.path.join(b, "onnx", "resnet18_b%d" % batch)
        for mod in sorted(glob.glob(os.path.join(d, "sm_90*.kiln"))):
            runs.append((batch, d, mod))
    for batch, d, mod in runs:
        tag = os.path.basename(mod)[len("sm_90"):-len(".kiln")].lstrip("_")
        label = "resnet18 batch %d%s" % (batch, " (%s)" % tag if tag else "")
        x = os.path.join(d, "x.npy")
        if tag:  # a variant: its result must match too
            y = os.path.join(WORK, "out", "rn_%d_%s.npy" % (batch, tag))
            rc, so, se, secs = run([kr, "--module=" + mod, "--device=cuda", "--input=@" + x, "--output=@" + y], 90)
            ok1, e1, w1 = compare(y, np.load(os.path.join(d, "want.npy")), 0, 1e-3) if rc == 0 else (False, None, se[-300:])
            say("%s: %s vs PyTorch (max abs error %s)" % (label, "PASS" if ok1 else "FAIL " + w1, e1))
        tx = torch.from_numpy(np.load(x)).cuda()
        ks, ts, os_ = [], [], []
        osess = None
        if ort_sess:
            try:
                op = os.path.join(WORK, "rn18_b%d.onnx" % batch)
                torch.onnx.export(m, tx, op, opset_version=17, input_names=["x"], output_names=["y"],
                                  dynamo=False)
                osess = ort_sess.InferenceSession(op, providers=["CUDAExecutionProvider"])
            except Exception as e:  # noqa: BLE001
                say("ORT CUDA session for batch %d failed: %s" % (batch, str(e)[:300]))
        for _ in range(2):
            rc, so, se, secs = run([kb, "--module=" + mod, "--device=cuda", "--input=@" + x,
                                    "--warmup=5", "--repetitions=30"], 300)
            k = median_ms(so) if rc == 0 else None
            if k is None:
                say("%s: kiln-bench failed (%d): %s" % (label, rc, (se or so)[-600:]))
                break
            ks.append(k)
            with torch.no_grad():
                ts.append(torch_time(lambda: m(tx), 5, 30))
            if osess:
                xin = {"x": np.load(x)}
                for _ in range(5):
                    osess.run(None, xin)
                tt = []
                for _ in range(30):
                    t0 = time.perf_counter()
                    osess.run(None, xin)
                    tt.append((time.perf_counter() - t0) * 1e3)
                os_.append(statistics.median(tt))
        if ks:
            k, t = min(ks), min(ts)
            line = ("%s: Kiln %.3f ms, PyTorch eager fp32 (TF32 off) %.3f ms: Kiln/PyTorch time %.2f (rounds %s)"
                    % (label, k, t, k / t, [round(v, 3) for v in ks]))
            if os_:
                line += ", ORT CUDA %.3f ms: Kiln/ORT time %.2f" % (min(os_), k / min(os_))
            say(line)
            results["resnet18_b%d%s" % (batch, "_" + tag if tag else "")] = {"kiln_ms": k, "torch_ms": t,
                                               "ort_ms": min(os_) if os_ else None}
    # Per-dispatch profile of ResNet-18 at batch 1 and 8, every module of
    # each (batch 1's sm_90.kiln first: its slowest kernels go to ncu).
    prof = open(os.path.join(OUT, "profile.txt"), "w")
    top = []
    mods = []
    for batch in (1, 8):
        dd = os.path.join(b, "onnx", "resnet18_b%d" % batch)
        mods += sorted(glob.glob(os.path.join(dd, "sm_90*.kiln")), key=lambda m: (not m.endswith("sm_90.kiln"), m))
    d = os.path.join(b, "onnx", "resnet18_b1")
    for mod in mods:
        rc, so, se, secs = run([kb, "--module=" + mod, "--device=cuda",
                                "--input=@" + os.path.join(os.path.dirname(mod), "x.npy"), "--warmup=2", "--repetitions=5",
                                "--profile-dispatches"], 300)
        prof.write("$ kiln-bench %s --device=cuda --profile-dispatches\n" % os.path.relpath(mod, b) + so + se + "\n")
        for line in so.splitlines() if not top else []:
            mm = re.match(r"\s+[\d.]+% +[\d.]+ [um]s +\S+\s+(\S+)", line)
            if mm and len(top) < 3 and mm.group(1) not in ("all", "outside"):
                top.append(mm.group(1).split("/")[-1])
    prof.close()
    say("slowest ResNet-18 dispatches (profile.txt): %s" % ", ".join(top))
    if no_ncu or time.monotonic() - START > 330:
        say("ncu skipped (%s)" % ("--no-ncu" if no_ncu else "past 330 s of the run"))
        return
    with open(os.path.join(OUT, "ncu.txt"), "w") as f:
        for name in top[:2]:
            cmd = ["ncu", "--clock-control", "none", "--section", "SpeedOfLight", "--section",
                   "LaunchStats", "--section", "Occupancy", "-k", "regex:^%s$" % re.escape(name), "-c", "1",
                   kr, "--module=" + os.path.join(d, "sm_90.kiln"), "--device=cuda",
                   "--input=@" + os.path.join(d, "x.npy")]
            rc, so, se, secs = run(cmd, 120)
            f.write("$ " + " ".join(cmd) + "\n(exit %d, %.0f s)\n%s\n%s\n" % (rc, secs, so[-20000:], se[-3000:]))
        cmd = ["ncu", "--clock-control", "none", "--section", "SpeedOfLight", "--section", "LaunchStats",
               "--section", "Occupancy", "-c", "1", kr, "--module=" + best.get("module", os.path.join(b, "bench", "matmul_4096.kiln")),
               "--device=cuda", "--input=@" + os.path.join(WORK, "a.npy"), "--input=@" + os.path.join(WORK, "b.npy")]
        rc, so, se, secs = run(cmd, 150)
        f.write("$ " + " ".join(cmd) + "\n(exit %d, %.0f s)\n%s\n%s\n" % (rc, secs, so[-20000:], se[-3000:]))
    say("ncu: ncu.txt")


OUT = "."
START = time.monotonic()


def main(argv):
    global OUT
    bundle, OUT = argv[1], argv[2]
    flags = set(argv[3:])
    os.makedirs(OUT, exist_ok=True)
    t0 = time.monotonic()
    rc, so, se, _ = run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total,clocks.max.sm",
                         "--format=csv,noheader"], 30)
    say("nvidia-smi: %s" % (so.strip() or se.strip()))
    b = unpack(bundle)
    os.environ["LD_LIBRARY_PATH"] = os.path.join(b, "lib")
    kr, kb = os.path.join(b, "bin", "kiln-run"), os.path.join(b, "bin", "kiln-bench")
    results = {}
    ok = True
    with open(os.path.join(OUT, "e2e.txt"), "w") as log:
        if "--skip-e2e" not in flags:
            ok &= e2e(b, kr, log)
        say("ONNX models on the GPU (sm_90 modules):")
        ok &= onnx_models(b, kr, log)
    if "--skip-bench" not in flags:
        try:
            bench(b, kb, kr, results, "--no-ncu" in flags)
        except Exception as e:  # noqa: BLE001 — the report keeps what ran
            import traceback
            say("bench failed: %s" % traceback.format_exc()[-1500:])
            ok = False
    say("total %.0f s" % (time.monotonic() - t0))
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(OUT, "report.txt"), "w") as f:
        f.write("\n".join(REPORT) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
