"""Shared by the ONNX e2e scripts (onnx_nms.py, onnx_loop_dynamic.py,
onnx_computed_shapes.py, onnx_shape_data.py, onnx_upsample_scales.py,
onnx_gather_indices.py, onnx_scatter_indices.py, onnx_sequence_inputs.py,
onnx_sequence_positions.py, onnx_loop_sequence.py):
prepare is their common start (the skip without python3-onnx, the work
folder, the model built and compiled); Tally counts their checks and
prints the closing 'N passed, N failed'; gpu_modules compiles a model for
cuda sm_80 + sm_90 + llvm-cpu, assembles every PTX payload with ptxas
(skipped, saying so, when it is missing) and compiles one SIMT-on-CPU
module per SM, returning the modules to run on local-sync with a label;
run_module runs a module on .npy inputs; check_refusals runs bad calls
that must fail with messages holding given texts. gpu_modules and
check_refusals count checks through tally(ok)."""
import glob
import importlib.util
import os
import shutil
import subprocess

import numpy as np

PTXAS = "/usr/local/cuda/bin/ptxas"


class Tally:
    """tally(ok) counts one check; done() prints 'N passed, N failed' and
    returns the script's exit status (1 when a check failed)."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, ok):
        ok = bool(ok)
        self.passed += ok
        self.failed += not ok

    def done(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        return 1 if self.failed else 0


def prepare(work, build=None, kc=None, stem="model"):
    """A script's start: status 77 (a skip, the reason printed) without
    python3-onnx; else WORK made and, given BUILD, BUILD(WORK/STEM.onnx)
    writing the model, which given KC is compiled to WORK/STEM.kiln
    (status 1 where that fails, kiln-compile's errors printed). Returns
    (status, model path, module path); status 0: go on."""
    model, module = os.path.join(work, stem + ".onnx"), os.path.join(work, stem + ".kiln")
    if importlib.util.find_spec("onnx") is None:
        print("skipped: python3-onnx is not installed")
        return 77, model, module
    os.makedirs(work, exist_ok=True)
    if build:
        build(model)
        if kc and not compile_model(kc, model, module, []):
            return 1, model, module
    return 0, model, module


def compile_model(kc, model, out, extra, env=None):
    r = subprocess.run([kc, model, "-o", out] + extra, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        print(r.stderr)
    return r.returncode == 0


def gpu_modules(kc, kd, model, work, stem, tally):
    module = os.path.join(work, stem + "_three.kiln")
    if not compile_model(kc, model, module, ["--target=cuda:sm_80", "--target=cuda:sm_90", "--target=llvm-cpu"]):
        tally(False)
        return []
    ext = os.path.join(work, "extract")
    shutil.rmtree(ext, ignore_errors=True)
    subprocess.run([kd, module, "--extract=" + ext], check=True, capture_output=True)
    ptx = sorted(glob.glob(os.path.join(ext, "*.ptx")))
    tally(len(ptx) >= 2)
    if not os.path.exists(PTXAS):
        print("ptxas check skipped: %s is missing (%d PTX files not assembled)" % (PTXAS, len(ptx)))
    for p in ptx if os.path.exists(PTXAS) else []:
        sm = "sm_90" if "sm_90" in p else "sm_80"
        r = subprocess.run([PTXAS, "--gpu-name", sm, p, "-o", os.devnull], capture_output=True, text=True)
        print("ptxas %s: %s" % (os.path.basename(p), "ok" if r.returncode == 0 else r.stderr))
        tally(r.returncode == 0)
    runs = [(module, "cpu")]
    env = dict(os.environ, KILN_GPU_SIMT_CPU="1")
    for sm in ("sm_80", "sm_90"):
        simt = os.path.join(work, "%s_simt_%s.kiln" % (stem, sm))
        if compile_model(kc, model, simt, ["--target=cuda:" + sm], env):
            runs.append((simt, "SIMT-on-CPU " + sm))
        else:
            tally(False)
    return runs


def run_module(run, module, device, work, tag, ins, nout):
    """kiln-run of MODULE on DEVICE with INS (saved as WORK/TAG_inK.npy),
    results to WORK/TAG_outK.npy (NOUT of them): its CompletedProcess."""
    argv = [run, "--module=" + module, "--device=" + device]
    for k, v in enumerate(ins):
        p = os.path.join(work, "%s_in%d.npy" % (tag, k))
        np.save(p, v)
        argv.append("--input=@" + p)
    for k in range(nout):
        argv.append("--output=@" + os.path.join(work, "%s_out%d.npy" % (tag, k)))
    print("$ " + " ".join(argv))
    return subprocess.run(argv, capture_output=True, text=True)


def device_runs(kc, kd, model, module, work, device, stem, tally):
    """The (module, device, label prefix) runs of a test on DEVICE: the
    module there, or for "gpu" the CPU variant and each SM's SIMT-on-CPU
    variant on local-sync (gpu_modules); None when the compile fails."""
    if device == "gpu":
        return [(m, "local-sync", what + " ") for m, what in gpu_modules(kc, kd, model, work, stem, tally)]
    if not compile_model(kc, model, module, []):
        return None
    return [(module, device, "")]


def check_calls(call, runs, good, expect, work, tally, rtol=1e-6, atol=1e-6, any_empty_shape=False):
    """Runs every input set of GOOD on every run (call(tag, inputs, module,
    device) returns the CompletedProcess; results in WORK/TAG_outJ.npy)
    and compares each result with expect(inputs)'s: same dtype, same shape
    (or, with any_empty_shape, both empty), allclose."""
    for k, ins in enumerate(good):
        want = expect(ins)
        for n, (mod, dev, what) in enumerate(runs):
            tag = "good%d_%d" % (k, n)
            r = call(tag, ins, mod, dev)
            ok = r.returncode == 0
            for j, wv in enumerate(want):
                if not ok:
                    break
                got = np.load(os.path.join(work, "%s_out%d.npy" % (tag, j)))
                ok = (got.shape == wv.shape or any_empty_shape and got.size == wv.size == 0) and got.dtype == wv.dtype and \
                    np.allclose(got.reshape(wv.shape), wv, rtol=rtol, atol=atol)
                print("%scall %d result %d %s: %s" % (what, k, j, got.shape, "ok" if ok else
                                                      "MISMATCH, want %s %s got %s" % (wv.shape, wv.tolist(), got.tolist())))
            if not ok:
                print(r.stderr)
            tally(ok)


def check_refusals(call, base, bad, tally):
    """bad: (input index, value, texts the error must hold); call(tag,
    inputs) runs the module and returns its CompletedProcess."""
    for k, (i, v, says) in enumerate(bad):
        ins = list(base)
        ins[i] = v
        r = call("bad%d" % k, ins)
        ok = r.returncode != 0 and all(w in r.stderr for w in says)
        print("bad call %d %s: %s" % (k, "refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
        tally(ok)


def check_program(argv, build, stem, good, bad, expect, nout, **check):
    """The whole of a program test: argv = (script, KILN_COMPILE, KILN_RUN,
    KILN_DUMP, WORKDIR, DEVICE); the model build(path) makes is compiled
    for DEVICE (device_runs), every input set of GOOD runs against
    expect(inputs) (check_calls, with CHECK's options), and on the CPU
    devices each of BAD (check_refusals, from good[0]) must be refused.
    DEVICE local-sync / local-task runs the module there; gpu compiles it
    for cuda sm_80 + sm_90 + llvm-cpu, assembles the PTX with ptxas and
    runs the CPU variant and the SIMT-on-CPU variant of each SM. Prints
    'N passed, N failed'; returns the exit status (77: skipped when
    python3-onnx is missing)."""
    kc, run, kd, work, device = argv[1:6]
    status, model, module = prepare(work, build)
    if status:
        return status
    tally = Tally()
    runs = device_runs(kc, kd, model, module, work, device, stem, tally)
    if runs is None:
        print("0 passed, 1 failed")
        return 1

    def call(tag, ins, module=module, device=device):
        return run_module(run, module, device, work, tag, ins, nout)

    check_calls(call, runs, good, expect, work, tally, **check)
    if device == "gpu":  # the bad calls are the CPU devices' (the same host code)
        return tally.done()
    check_refusals(call, good[0], bad, tally)
    return tally.done()
