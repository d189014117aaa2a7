#!/usr/bin/python3
"""A real compiled module's PTX through runtime-min's cuda device, against
the fake driver library of tests/unit/cuda (libfakecuda.so, which logs
every driver call; no GPU involved).

usage: fake_cuda_launch.py KILN_COMPILE KILN_RUN KILN_DUMP LIBFAKECUDA WORKDIR

For a matmul spread over several thread blocks (130x200x300: a 4x3 grid
of 64x64 tiles) and the mlp sample (three dispatches, binding offsets into
the transient arena), compiled for cuda:sm_80 only, kiln-run --device=cuda
must load each executable's PTX, and each cuLaunchKernel the fake records
must name the export's kernel, launch the grid the compiler recorded as
the dispatch's workgroup_count, the block the module's export gives
(workgroup size), no dynamic shared memory, and one device pointer per
binding then the push constants. Prints '1 passed, 0 failed' or
'0 passed, 1 failed'.
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SRC, "tests", "e2e", "codegen_cpu"))
import run_hal_kernels  # noqa: E402


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (os.path.basename(cmd[0]), r.returncode,
                                                     r.stderr.strip()[-2000:]))
    return r.stdout


def check(kc, kr, kd, fake, work, name, src, function, inputs):
    module = os.path.join(work, name + ".kiln")
    run([kc, src, "--target=cuda:sm_80", "-o", module])
    ir = run([kc, src, "--target=cuda:sm_80", "--compile-to=codegen", "-o", "-"])
    dispatches = []
    for m in re.finditer(r'hal\.command_buffer\.dispatch"\(([^)]*)\) \{([^}]*)\}', ir):
        wc = re.search(r"workgroup_count = array<i64: (\d+), (\d+), (\d+)>", m.group(2))
        exe = re.search(r"executable = @(\w+)", m.group(2)).group(1)
        nbind = len(m.group(1).split(",")) - 1
        dispatches.append((exe, tuple(int(x) for x in wc.groups()), nbind))
    if not dispatches:
        raise AssertionError("%s: no dispatch with a workgroup_count in the IR" % name)
    dump = json.loads(run([kd, "--json", module]))
    exports = {}
    for e in dump["executables"]:
        for x in e["exports"]:
            exports[e["name"]] = x
    log = os.path.join(work, name + ".log")
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, KILN_CUDA_LIBRARY=fake, KILN_FAKE_CUDA_LOG=log, KILN_FAKE_CUDA_SM="86")
    run([kr, "--module=" + module, "--function=" + function, "--device=cuda"] +
        ["--input=" + i for i in inputs], env)
    with open(log) as f:
        lines = f.read().splitlines()
    loads = [l for l in lines if l.startswith("cuModuleLoadDataEx")]
    launches = [l for l in lines if l.startswith("cuLaunchKernel")]
    if len(loads) != len({d[0] for d in dispatches}):
        raise AssertionError("%s: %d PTX loads for %d executables" % (name, len(loads), len(dispatches)))
    if len(launches) != len(dispatches):
        raise AssertionError("%s: %d launches for %d dispatches" % (name, len(launches), len(dispatches)))
    for (exe, grid, nbind), l in zip(dispatches, launches):
        m = re.match(r"cuLaunchKernel fn=(\w+) grid=(\d+),(\d+),(\d+) block=(\d+),(\d+),(\d+) "
                     r"shared=(\d+) stream=\S+ params=(\S*) extra=null", l)
        if not m:
            raise AssertionError("%s: unexpected launch record %r" % (name, l))
        ex = exports[exe]
        want_block = tuple(ex["workgroup_size"])
        got = (m.group(1), tuple(int(x) for x in m.group(2, 3, 4)),
               tuple(int(x) for x in m.group(5, 6, 7)), int(m.group(8)))
        want = (ex["name"], grid, want_block, 0)
        if got != want:
            raise AssertionError("%s: launch %s, expected %s" % (name, got, want))
        params = m.group(9).split(",") if m.group(9) else []
        nconst = ex.get("push_constant_count", 0)
        if len(params) != nbind + nconst or not all(re.match(r"dev\d+\+\d+$", p) for p in params[:nbind]):
            raise AssertionError("%s: params %s, expected %d device pointers then %d constants"
                                 % (name, params, nbind, nconst))
        print("%s: %s grid=%s block=%s shared=0 params=%s" % (name, ex["name"], grid, want_block,
                                                               ",".join(params)))


def main(argv):
    kc, kr, kd, fake, work = argv[1:6]
    os.makedirs(work, exist_ok=True)
    (shapes_in, shapes_out, body, _), _ = run_hal_kernels.CASES["matmul_130x200x300"]
    mm = os.path.join(work, "mm.mlir")
    with open(mm, "w") as f:
        f.write(run_hal_kernels.program("mm", shapes_in, shapes_out, body, ["cuda:sm_80"]))
    mm_in = []
    for i, shape in enumerate(shapes_in):
        p = os.path.join(work, "mm_in%d.npy" % i)
        np.save(p, np.full(shape, 0.5, dtype=np.float32))
        mm_in.append("@" + p)
    with open(os.path.join(SRC, "samples", "mlp.inputs")) as f:
        mlp_in = [l.strip() for l in f if l.strip()]
    try:
        check(kc, kr, kd, fake, work, "mm", mm, "mm", mm_in)
        check(kc, kr, kd, fake, work, "mlp", os.path.join(SRC, "samples", "mlp.mlir"), "mlp", mlp_in)
    except (AssertionError, KeyError) as e:
        print("FAIL: %s" % e)
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
