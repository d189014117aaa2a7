#!/usr/bin/python3
"""e2e for the GPU path (compiler/codegen/gpu) without a GPU.

usage: run_gpu.py --list
       run_gpu.py KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR PROGRAM

PROGRAM is one of every e2e program: samples/NAME.mlir (sample.NAME), the
per-op programs of tests/e2e/compile/op_cases.py (op.CASE), the
hal-level kernels of tests/e2e/codegen_cpu/run_hal_kernels.py (hal.CASE),
and block-wide reductions of our own (gpu.CASE, also cases/*.py).
For each:
  1. compile with --target=cuda:sm_80 --target=cuda:sm_90
     --target=llvm-cpu (hal-level programs: those three variants); every
     PTX payload (kiln-dump --extract) must pass /usr/local/cuda/bin/ptxas
     for its SM (skipped with the reason printed when ptxas is missing);
     run the module on local-sync: the CPU result;
  2. for sm_80 and sm_90 (64 and 128 threads per block): compile again with
     KILN_GPU_SIMT_CPU=1, which adds the SIMT-on-CPU variant (the same
     kernel IR as the PTX, thread ids as loops split at barriers), the
     only CPU variant then; run it on local-sync and compare with the CPU
     result and with the program's numpy reference.
Shapes are the programs' own: most are not multiples of the block tile,
and reductions (row sums, softmax, matvec) run across whole blocks.
Prints '1 passed, 0 failed' or '0 passed, 1 failed'.
"""
import glob
import importlib
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SRC = os.path.dirname(ROOT)
sys.path.insert(0, os.path.join(ROOT, "e2e", "compile"))
sys.path.insert(0, os.path.join(ROOT, "e2e", "codegen_cpu"))
import op_cases  # noqa: E402
import run_compiled  # noqa: E402
import run_hal_kernels  # noqa: E402

# More GPU programs live in cases/*.py, one file per concern so engineers
# extend them independently. Each defines OP_CASES (the op_cases.py form:
# name -> (gen(r) -> (text, inputs, outputs), rtol, atol); listed as
# gpuop.NAME) and/or HAL_CASES (the GPU_CASES form below; listed as gpu.NAME).
sys.path.insert(0, os.path.join(HERE, "cases"))
EXTRA_MODULES = [importlib.import_module(os.path.basename(p)[:-3])
                 for p in sorted(glob.glob(os.path.join(HERE, "cases", "*.py")))]
EXTRA_OP_CASES = {}
EXTRA_HAL_CASES = {}
# Optional PTX_MUST_CONTAIN: case name -> strings every PTX of it holds.
PTX_MUST_CONTAIN = {}
for _m in EXTRA_MODULES:
    PTX_MUST_CONTAIN.update(getattr(_m, "PTX_MUST_CONTAIN", {}))
    for _k, _v in getattr(_m, "OP_CASES", {}).items():
        assert _k not in EXTRA_OP_CASES, "duplicate gpu op case " + _k
        EXTRA_OP_CASES[_k] = _v
    for _k, _v in getattr(_m, "HAL_CASES", {}).items():
        assert _k not in EXTRA_HAL_CASES, "duplicate gpu case " + _k
        EXTRA_HAL_CASES[_k] = _v

PTXAS = "/usr/local/cuda/bin/ptxas"
THREE = ["cuda:sm_80", "cuda:sm_90", "llvm-cpu"]
SAMPLES = ["simple_mul", "mlp", "cnn"]


def col_reduce(r, c, combiner, init, ref):
    """Reductions over the rows of an r x c matrix into c outputs: few
    outputs, a long reduction, so the whole block shares each reduction
    (partials per thread in workgroup memory, folded after a barrier)."""
    mt = run_hal_kernels.mt
    body = ("        %%z = arith.constant %s : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b1 : %s)\n"
            "        linalg.reduce ins(%%b0 : %s) outs(%%b1 : %s) dimensions = [0]\n"
            "          (%%x: f32, %%acc: f32) {\n"
            "            %%s = arith.%s %%x, %%acc : f32\n"
            "            linalg.yield %%s : f32\n"
            "          }" % (init, mt((c,)), mt((r, c)), mt((c,)), combiner))
    return [(r, c)], [(c,)], body, ref


GPU_CASES = {
    "col_sums_1000x3": col_reduce(1000, 3, "addf", "0.0", lambda a: [a.sum(axis=0)]),
    "col_max_777x5": col_reduce(777, 5, "maximumf", "-3.0e38", lambda a: [a.max(axis=0)]),
    "col_sums_4099x1": col_reduce(4099, 1, "addf", "0.0", lambda a: [a.sum(axis=0)]),
}
for _k in EXTRA_HAL_CASES:
    assert _k not in GPU_CASES, "duplicate gpu case " + _k
GPU_CASES.update(EXTRA_HAL_CASES)


def programs():
    names = ["sample." + s for s in SAMPLES]
    names += ["op." + c for c in op_cases.CASES]
    names += ["hal." + c for c, (_, targets) in run_hal_kernels.CASES.items()
              if all(t.split(":")[0] == "llvm-cpu" for t in targets) and len(targets) == 1]
    names += ["gpu." + c for c in GPU_CASES]
    names += ["gpuop." + c for c in EXTRA_OP_CASES]
    return names


def make(name, work):
    """(source(targets) -> (text, flags), function, inputs, expected results)."""
    kind, _, case = name.partition(".")
    if kind == "sample":
        with open(os.path.join(SRC, "samples", case + ".mlir")) as f:
            text = f.read()
        with open(os.path.join(SRC, "samples", case + ".inputs")) as f:
            ins = [run_compiled.parse_value(l) for l in f if l.strip()]
        with open(os.path.join(SRC, "samples", case + ".expected")) as f:
            nres = len([l for l in f if l.strip()])
            f.seek(0)
            want = [run_compiled.parse_value(l) for l in f if l.strip()]
        fn = re.search(r"func\.func @(\w+)", text).group(1)
        return (lambda targets: (text, ["--target=" + t for t in targets])), fn, ins, want
    if kind in ("op", "gpuop"):
        gen, _, _ = (op_cases.CASES if kind == "op" else EXTRA_OP_CASES)[case]
        r = np.random.RandomState(sum(map(ord, case)))
        text, ins, outs = gen(r)
        return (lambda targets: (text, ["--target=" + t for t in targets])), "f", ins, outs
    if kind == "gpu":
        shapes_in, shapes_out, body, ref = GPU_CASES[case]
    else:
        (shapes_in, shapes_out, body, ref), _ = run_hal_kernels.CASES[case]
    rng = np.random.default_rng(len(case))
    ins = [rng.uniform(-2, 2, s).astype(np.float32) for s in shapes_in]
    want = ref(*[v.astype(np.float64) for v in ins])
    return ((lambda targets: (run_hal_kernels.program(case, shapes_in, shapes_out, body, targets), [])),
            case, ins, want)


def sh(cmd, env=None):
    print("$ " + " ".join(a if len(a) < 120 else a[:117] + "..." for a in cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    sys.stdout.write(r.stdout[-4000:] + r.stderr[-4000:])
    if r.returncode != 0:
        raise AssertionError("%s exited with %d" % (os.path.basename(cmd[0]), r.returncode))
    return r


def compile_and_run(kc, kr, work, tag, source, fn, ins, nres, env=None):
    text, flags = source
    src = os.path.join(work, tag + ".mlir")
    with open(src, "w") as f:
        f.write(text + "\n")
    module = os.path.join(work, tag + ".kiln")
    sh([kc, src, "-o", module] + flags, env)
    cmd = [kr, "--module=" + module, "--function=" + fn, "--device=local-sync"]
    for i, v in enumerate(ins):
        p = os.path.join(work, "in%d.npy" % i)
        np.save(p, v)
        cmd.append("--input=@" + p)
    outs = [os.path.join(work, "%s_out%d.npy" % (tag, j)) for j in range(nres)]
    for o in outs:
        if os.path.exists(o):
            os.remove(o)
    sh(cmd + ["--output=@" + o for o in outs])
    return module, [np.load(o) for o in outs]


def check_ptx(kd, module, work, must=()):
    out = os.path.join(work, "extract")
    shutil.rmtree(out, ignore_errors=True)
    sh([kd, module, "--extract=" + out])
    ptx = sorted(glob.glob(os.path.join(out, "*.ptx")))
    sms = sorted({re.search(r"cuda_(sm_\d+)", p).group(1) for p in ptx})
    if sms != ["sm_80", "sm_90"]:
        raise AssertionError("expected PTX for sm_80 and sm_90, got %s" % sms)
    check_ptx_text(ptx, must)
    if not os.path.exists(PTXAS):
        print("ptxas check skipped: %s is missing (%d PTX files not assembled)" % (PTXAS, len(ptx)))
        return
    for p in ptx:
        sm = re.search(r"cuda_(sm_\d+)", p).group(1)
        sh([PTXAS, "--gpu-name", sm, p, "-o", os.devnull])
    print("ptxas: %d PTX files assemble" % len(ptx))


def check_ptx_text(ptx, must=()):
    """Every kernel: its SM's block size as .maxntid, reads %tid.x (work is
    split per thread or guarded to thread 0), and holds the case's
    PTX_MUST_CONTAIN strings (warp shuffles, barriers)."""
    for p in ptx:
        sm = re.search(r"cuda_(sm_\d+)", p).group(1)
        with open(p) as f:
            text = f.read()
        want = {"sm_80": 64, "sm_90": 128}[sm]
        if ".entry" not in text or ".maxntid %d, 1, 1" % want not in text:
            raise AssertionError("%s: no .entry with .maxntid %d, 1, 1" % (os.path.basename(p), want))
        if "%tid.x" not in text:
            raise AssertionError("%s: the kernel never reads %%tid.x" % os.path.basename(p))
        for m in must:
            if m not in text:
                raise AssertionError("%s: no %s in the PTX" % (os.path.basename(p), m))
    print("PTX: %d kernels with their SM's .maxntid, reading %%tid.x" % len(ptx))


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print(";".join(programs()))
        return 0
    kc, kr, kd, work, name = argv[1:6]
    os.makedirs(work, exist_ok=True)
    source, fn, ins, want = make(name, work)
    nres = len(want)
    try:
        module, cpu = compile_and_run(kc, kr, work, "three", source(THREE), fn, ins, nres)
        check_ptx(kd, module, work, PTX_MUST_CONTAIN.get(name.partition(".")[2], ())
                  if name.split(".")[0] in ("gpu", "gpuop") else ())
        env = dict(os.environ, KILN_GPU_SIMT_CPU="1")
        for sm in ("sm_80", "sm_90"):
            _, simt = compile_and_run(kc, kr, work, "simt_" + sm, source(["cuda:" + sm]), fn, ins,
                                      nres, env)
            for j, (a, b) in enumerate(zip(cpu, simt)):
                if a.shape != b.shape or a.dtype != b.dtype:
                    raise AssertionError("result %d: SIMT %s %s vs CPU %s %s"
                                         % (j, b.dtype, b.shape, a.dtype, a.shape))
                err = np.max(np.abs(a.astype(np.float64) - b)) if a.size else 0.0
                if not np.allclose(b, a, rtol=1e-4, atol=1e-5):
                    raise AssertionError("result %d: SIMT-on-CPU (%s) differs from the CPU run "
                                         "(max abs error %g)" % (j, sm, err))
                w = np.asarray(want[j], dtype=np.float64)
                if b.shape != w.shape or not np.allclose(b, w, rtol=1e-4, atol=1e-4):
                    raise AssertionError("result %d: SIMT-on-CPU (%s) differs from numpy's" % (j, sm))
                print("result %d: SIMT-on-CPU (%s) matches the CPU run (max abs error %g) and numpy"
                      % (j, sm, err))
    except AssertionError as e:
        print("FAIL: %s" % e)
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
