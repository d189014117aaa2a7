#!/usr/bin/python3
"""Real compiled modules' PTX through runtime-min's cuda device, against
the fake driver library of tests/unit/runtime_cuda (libfakecuda.so, which logs
every driver call; no GPU involved).

usage: fake_cuda_launch.py KILN_COMPILE KILN_RUN KILN_DUMP LIBFAKECUDA WORKDIR

Programs: a matmul spread over several thread blocks (130x200x300: a 4x3
grid), the mlp sample (three dispatches, binding offsets into the
transient arena) and a column sum over 1000 rows (a whole-block reduction
through workgroup memory, so its static shared memory is not 0). Each is compiled
for cuda:sm_80, cuda:sm_90 and llvm-cpu in one module. Checked:

- the module's launch metadata (kiln-dump --json) against sources that do
  not go through it: each cuda variant's block is its kernel's kiln.launch
  block_size in the compiler's IR, its static shared memory is the sum of
  the .shared arrays its PTX (kiln-dump --extract) declares, and it asks
  for no dynamic shared memory;
- kiln-run --device=cuda on a fake sm_86 GPU loads each executable's
  sm_80 PTX once and on a fake sm_90 GPU the sm_90 PTX, and every
  cuLaunchKernel names the export's kernel with the grid the compiler
  recorded as the dispatch's workgroup_count, that variant's block and
  dynamic shared memory, and one device pointer per binding then the push
  constants; the two GPUs get different blocks where kiln.launch differs;
- a copy of the mlp module whose first sm_80 export asks for 64 KiB of
  dynamic shared memory (edited with flatc, skipped without it): the
  runtime opts the kernel in with cuFuncSetAttribute and launches with
  shared=65536; asking for 200000 bytes, more than the fake sm_86 GPU
  gives a block (99 KiB), is refused at load with the numbers;
- a slice whose offset is input data: a good offset launches the kernel,
  offsets -1, past the end and 2^32 fail in the host program with the
  slice's location and the bound, and nothing is launched.
Prints '1 passed, 0 failed' or '0 passed, 1 failed'.
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(SRC, "tests", "e2e", "codegen_cpu"))
import run_hal_kernels  # noqa: E402

TARGETS = ["cuda:sm_80", "cuda:sm_90", "llvm-cpu"]
SM_VARIANT = {"86": "cuda:sm_80", "90": "cuda:sm_90"}  # fake GPU -> variant it must pick


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (os.path.basename(cmd[0]), r.returncode,
                                                     r.stderr.strip()[-2000:]))
    return r.stdout


def ir_facts(ir):
    """From --compile-to=codegen IR: the dispatches (executable, grid,
    binding count) in order, and {(target, kernel): kiln.launch block}."""
    dispatches = []
    for m in re.finditer(r'hal\.command_buffer\.dispatch"\(([^)]*)\) \{([^}]*)\}', ir):
        wc = re.search(r"workgroup_count = array<i64: (\d+), (\d+), (\d+)>", m.group(2))
        exe = re.search(r"executable = @(\w+)", m.group(2)).group(1)
        nbind = len(m.group(1).split(",")) - 1
        dispatches.append((exe, tuple(int(x) for x in wc.groups()), nbind))
    blocks, pending = {}, {}
    # A variant's attributes print after its region: kernels seen since the
    # previous variant end belong to the next variant end.
    for m in re.finditer(r'func\.func @(\w+)\(\) attributes \{kiln\.launch = \{block_size = '
                         r'array<i64: (\d+), (\d+), (\d+)>|\}\) \{sym_name = "\w+", target = "([^"]+)"\}',
                         ir):
        if m.group(1):
            pending[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
        else:
            for k, b in pending.items():
                blocks[(m.group(5), k)] = b
            pending = {}
    return dispatches, blocks


def ptx_shared_bytes(ptx):
    """Bytes of the .shared arrays a PTX declares, each at its alignment."""
    total = 0
    for align, count in re.findall(r"\.shared \.align (\d+) \.b8 \w+(?:\$\w+)?\[(\d+)\]", ptx):
        a = int(align)
        total = (total + a - 1) // a * a + int(count)
    return total


def check_metadata(name, module, dump, blocks, work):
    """Launch metadata per cuda variant; returns {(target, exe): [(block, dyn)]}."""
    out = os.path.join(work, name + ".extract")
    shutil.rmtree(out, ignore_errors=True)
    run([KD, "--extract=" + out, module])
    launch = {}
    shared_seen = 0
    for e in dump["executables"]:
        for v in e["variants"]:
            target = v["target"] + (":sm_%d" % v["sm_version"] if v["target"] == "cuda" else "")
            if v["target"] != "cuda":
                if v["exports"]:
                    raise AssertionError("%s: CPU variant %s has launch metadata" % (name, v["name"]))
                continue
            ptx_path = os.path.join(out, "%s_%s.ptx" % (e["name"], v["name"]))
            with open(ptx_path) as f:
                ptx = f.read()
            if len(v["exports"]) != len(e["exports"]):
                raise AssertionError("%s: %s/%s has %d launch entries for %d exports"
                                     % (name, e["name"], v["name"], len(v["exports"]), len(e["exports"])))
            entries = []
            for x, l in zip(e["exports"], v["exports"]):
                want_block = list(blocks[(target, x["name"])])
                if l["block_size"] != want_block:
                    raise AssertionError("%s: %s %s block %s, kiln.launch says %s"
                                         % (name, v["name"], x["name"], l["block_size"], want_block))
                # One kernel per executable: the PTX's arrays are its own.
                if l["static_shared_memory_bytes"] != ptx_shared_bytes(ptx):
                    raise AssertionError("%s: %s %s static shared %d, the PTX declares %d"
                                         % (name, v["name"], x["name"], l["static_shared_memory_bytes"],
                                            ptx_shared_bytes(ptx)))
                if l["dynamic_shared_memory_bytes"] != 0:
                    raise AssertionError("%s: %s %s asks for dynamic shared memory"
                                         % (name, v["name"], x["name"]))
                shared_seen += l["static_shared_memory_bytes"]
                print("%s: %s %s block=%s static shared=%d (PTX .shared: %d) dynamic=0"
                      % (name, v["name"], x["name"], l["block_size"], l["static_shared_memory_bytes"],
                         ptx_shared_bytes(ptx)))
                entries.append((tuple(l["block_size"]), l["dynamic_shared_memory_bytes"]))
            launch[(target, e["name"])] = entries
    return launch, shared_seen


def fake_run(name, module, function, inputs, sm, work):
    log = os.path.join(work, "%s.sm%s.log" % (name, sm))
    if os.path.exists(log):
        os.remove(log)
    env = dict(os.environ, KILN_CUDA_LIBRARY=FAKE, KILN_FAKE_CUDA_LOG=log, KILN_FAKE_CUDA_SM=sm)
    run([KR, "--module=" + module, "--function=" + function, "--device=cuda"] +
        ["--input=" + i for i in inputs], env)
    with open(log) as f:
        return f.read().splitlines()


def check_launches(name, lines, dispatches, dump, launch, target):
    exports = {e["name"]: e["exports"] for e in dump["executables"]}
    loads = [l for l in lines if l.startswith("cuModuleLoadDataEx")]
    launches = [l for l in lines if l.startswith("cuLaunchKernel")]
    if len(loads) != len({d[0] for d in dispatches}):
        raise AssertionError("%s: %d PTX loads for %d executables" % (name, len(loads), len(dispatches)))
    if len(launches) != len(dispatches):
        raise AssertionError("%s: %d launches for %d dispatches" % (name, len(launches), len(dispatches)))
    blocks = []
    for (exe, grid, nbind), l in zip(dispatches, launches):
        m = re.match(r"cuLaunchKernel fn=(\w+) grid=(\d+),(\d+),(\d+) block=(\d+),(\d+),(\d+) "
                     r"shared=(\d+) stream=\S+ params=(\S*) extra=null", l)
        if not m:
            raise AssertionError("%s: unexpected launch record %r" % (name, l))
        ex = exports[exe][0]  # one export per executable in these programs
        block, dyn = launch[(target, exe)][0]
        got = (m.group(1), tuple(int(x) for x in m.group(2, 3, 4)),
               tuple(int(x) for x in m.group(5, 6, 7)), int(m.group(8)))
        want = (ex["name"], grid, block, dyn)
        if got != want:
            raise AssertionError("%s on %s: launch %s, expected %s" % (name, target, got, want))
        params = m.group(9).split(",") if m.group(9) else []
        nconst = ex.get("push_constant_count", 0)
        if len(params) != nbind + nconst or not all(re.match(r"dev\d+\+\d+$", p) for p in params[:nbind]):
            raise AssertionError("%s: params %s, expected %d device pointers then %d constants"
                                 % (name, params, nbind, nconst))
        blocks.append(block)
        print("%s on %s: %s grid=%s block=%s shared=%d params=%s"
              % (name, target, ex["name"], grid, block, dyn, ",".join(params)))
    return blocks


def check(work, name, src, function, inputs):
    module = os.path.join(work, name + ".kiln")
    flags = ["--target=" + t for t in TARGETS]
    run([KC, src] + flags + ["-o", module])
    dispatches, blocks = ir_facts(run([KC, src] + flags + ["--compile-to=codegen", "-o", "-"]))
    if not dispatches:
        raise AssertionError("%s: no dispatch with a workgroup_count in the IR" % name)
    dump = json.loads(run([KD, "--json", module]))
    launch, shared = check_metadata(name, module, dump, blocks, work)
    per_sm = {}
    for sm, target in SM_VARIANT.items():
        lines = fake_run(name, module, function, inputs, sm, work)
        per_sm[sm] = check_launches(name, lines, dispatches, dump, launch, target)
    # Variant selection shows in the launches wherever kiln.launch differs.
    for b80, b90, (exe, _, _) in zip(per_sm["86"], per_sm["90"], dispatches):
        k = dump["executables"][[e["name"] for e in dump["executables"]].index(exe)]["exports"][0]["name"]
        if (blocks[("cuda:sm_80", k)] != blocks[("cuda:sm_90", k)]) != (b80 != b90):
            raise AssertionError("%s: sm_86 GPU launched %s, sm_90 GPU %s" % (name, b80, b90))
    return module, shared


def with_dynamic_shared(work, module, dyn, flatc):
    """A copy of module whose first executable's sm_80 export asks for dyn
    bytes of dynamic shared memory (flatc -> JSON -> flatc); returns its
    path and that executable's decoded JSON."""
    schema = os.path.join(SRC, "format", "kiln_module.fbs")
    jdir = os.path.join(work, "json")
    shutil.rmtree(jdir, ignore_errors=True)
    run([flatc, "--json", "--strict-json", "--raw-binary", "-o", jdir, schema, "--", module])
    with open(os.path.join(jdir, os.path.splitext(os.path.basename(module))[0] + ".json")) as f:
        fl = json.load(f)
    exe = fl["executables"][0]
    sm80 = [v for v in exe["variants"] if v.get("sm_version") == 80][0]
    sm80["exports"][0]["dynamic_shared_memory_bytes"] = dyn
    with open(module, "rb") as f:
        original = f.read()
    first = min(s["offset"] for s in fl["segments"])
    # flatc encodes less compactly than Kiln's builder (no shared strings),
    # so its FlatBuffer may outgrow the room before the first segment: then
    # every segment moves by whole 64 KiB pages, which keeps their alignment.
    shift = 0
    while True:
        src = os.path.join(work, "dyn.json")
        with open(src, "w") as f:
            json.dump(fl, f)
        bdir = os.path.join(work, "bin")
        shutil.rmtree(bdir, ignore_errors=True)
        run([flatc, "-b", "-o", bdir, schema, src])
        with open(os.path.join(bdir, os.listdir(bdir)[0]), "rb") as f:
            fb = f.read()
        if len(fb) <= first + shift:
            break
        if shift:
            raise AssertionError("edited FlatBuffer (%d bytes) overlaps the first segment at %d"
                                 % (len(fb), first + shift))
        shift = (len(fb) - first + 65535) // 65536 * 65536
        for seg in fl["segments"]:
            seg["offset"] += shift
    if shift:
        print("mlp_dyn%d: segments moved by %d bytes (flatc's FlatBuffer is %d bytes, the builder's "
              "first segment was at %d)" % (dyn, shift, len(fb), first))
    edited = os.path.join(work, "mlp_dyn%d.kiln" % dyn)
    with open(edited, "wb") as f:
        f.write(fb + bytes(first + shift - len(fb)) + original[first:])
    return edited, exe


def dynamic_shared_edit(work, module, function, inputs):
    """64 KiB of dynamic shared memory: the runtime opts the kernel in and
    launches with it. 200000 bytes: more than the fake sm_86 GPU's 99 KiB,
    refused at load with the numbers."""
    flatc = shutil.which("flatc")
    if not flatc:
        print("dynamic shared memory edit: skipped (no flatc)")
        return
    edited, exe = with_dynamic_shared(work, module, 65536, flatc)
    lines = fake_run("mlp_dyn", edited, function, inputs, "86", work)
    kernel = exe["exports"][0]["name"]
    attr = "cuFuncSetAttribute fn=%s attr=8 value=65536" % kernel
    if attr not in lines:
        raise AssertionError("mlp_dyn: no '%s' in the driver log" % attr)
    launch = [l for l in lines if l.startswith("cuLaunchKernel fn=%s " % kernel)]
    if not launch or " shared=65536 " not in launch[0]:
        raise AssertionError("mlp_dyn: launch %r lacks shared=65536" % launch)
    others = [l for l in lines if l.startswith("cuLaunchKernel") and l not in launch]
    if any(" shared=0 " not in l for l in others) or any("cuFuncSetAttribute" in l and kernel not in l
                                                        for l in lines):
        raise AssertionError("mlp_dyn: other kernels changed: %s" % others)
    print("mlp_dyn: %s | %s" % (attr, launch[0]))
    big, _ = with_dynamic_shared(work, module, 200000, flatc)
    env = dict(os.environ, KILN_CUDA_LIBRARY=FAKE, KILN_FAKE_CUDA_SM="86")
    r = subprocess.run([KR, "--module=" + big, "--function=" + function, "--device=cuda"] +
                       ["--input=" + i for i in inputs], capture_output=True, text=True, env=env)
    want = re.compile(r"executable '%s' variant '\w+' export '%s': (\d+) bytes of shared memory per block "
                      r"\((\d+) static \+ 200000 dynamic\), the GPU allows 101376"
                      % (exe["name"], kernel))
    m = want.search(r.stderr)
    if r.returncode == 0 or not m or int(m.group(1)) != int(m.group(2)) + 200000:
        raise AssertionError("mlp_dyn200000: rc=%d stderr=%r" % (r.returncode, r.stderr[-500:]))
    print("mlp_dyn200000: refused: %s" % m.group(0))


SLICE = """func.func @f(%p: tensor<1xi64>, %a: tensor<10x4xf32>) -> tensor<3x4xf32> {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %p[%c0] : tensor<1xi64>
  %off = arith.index_cast %e : i64 to index
  %s = tensor.extract_slice %a[%off, 0] [3, 4] [1, 1] : tensor<10x4xf32> to tensor<3x4xf32>
  return %s : tensor<3x4xf32>
}
"""


def bounds_refused(work):
    """A slice offset read from input data, through the cuda device: a
    good one launches the kernel; -1, past the end and 2^32 fail in the
    host program, naming the slice's location, before any launch."""
    src = os.path.join(work, "slice.mlir")
    with open(src, "w") as f:
        f.write(SLICE)
    module = os.path.join(work, "slice.kiln")
    run([KC, src, "-o", module] + ["--target=" + t for t in TARGETS])
    a = "--input=10x4xf32=" + ",".join(str(i) for i in range(40))
    for off, message in ((7, None), (-1, "offset[0] is -1, must be >= 0"),
                         (10, "offset[0] is 10, must be <= 7"),
                         (1 << 32, "offset[0] is 4294967296, must be <= 7")):
        log = os.path.join(work, "slice%d.log" % off)
        if os.path.exists(log):
            os.remove(log)
        env = dict(os.environ, KILN_CUDA_LIBRARY=FAKE, KILN_FAKE_CUDA_LOG=log, KILN_FAKE_CUDA_SM="86")
        r = subprocess.run([KR, "--module=" + module, "--function=f", "--device=cuda",
                            "--input=1xi64=%d" % off, a], capture_output=True, text=True, env=env)
        with open(log) as f:
            launches = [l for l in f.read().splitlines() if l.startswith("cuLaunchKernel")]
        if message is None:
            if r.returncode != 0 or len(launches) != 1:
                raise AssertionError("slice offset %d: rc=%d, %d launches: %s" % (off, r.returncode, len(launches),
                                                                                  r.stderr[-500:]))
            print("slice offset %d: 1 launch" % off)
            continue
        if r.returncode == 0 or "slice.mlir:5:8" not in r.stderr or message not in r.stderr or launches:
            raise AssertionError("slice offset %d: rc=%d, %d launches, stderr %r (expected '%s')"
                                 % (off, r.returncode, len(launches), r.stderr[-500:], message))
        print("slice offset %d: refused before any launch: %s" % (off, r.stderr.strip()))


def save_inputs(work, name, shapes):
    paths = []
    for i, shape in enumerate(shapes):
        p = os.path.join(work, "%s_in%d.npy" % (name, i))
        np.save(p, np.full(shape, 0.5, dtype=np.float32))
        paths.append("@" + p)
    return paths


def hal_program(work, name, case):
    shapes_in, shapes_out, body, _ = case
    path = os.path.join(work, name + ".mlir")
    with open(path, "w") as f:
        f.write(run_hal_kernels.program(name, shapes_in, shapes_out, body, TARGETS))
    return path, save_inputs(work, name, shapes_in)


def column_sum(rows, cols):
    """A column sum: a long reduction into few outputs, which the GPU
    pipeline shares across the whole block through workgroup memory."""
    mt = run_hal_kernels.mt
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b1 : %s)\n"
            "        linalg.reduce ins(%%b0 : %s) outs(%%b1 : %s) dimensions = [0]\n"
            "          (%%x: f32, %%acc: f32) {\n"
            "            %%s = arith.addf %%x, %%acc : f32\n"
            "            linalg.yield %%s : f32\n"
            "          }" % (mt((cols,)), mt((rows, cols)), mt((cols,))))
    return [(rows, cols)], [(cols,)], body, None


def main(argv):
    global KC, KR, KD, FAKE
    KC, KR, KD, FAKE, work = argv[1:6]
    os.makedirs(work, exist_ok=True)
    mm, mm_in = hal_program(work, "mm", run_hal_kernels.CASES["matmul_130x200x300"][0])
    red, red_in = hal_program(work, "red", column_sum(1000, 3))
    with open(os.path.join(SRC, "samples", "mlp.inputs")) as f:
        mlp_in = [l.strip() for l in f if l.strip()]
    try:
        check(work, "mm", mm, "mm", mm_in)
        _, red_shared = check(work, "red", red, "red", red_in)
        if red_shared == 0:
            raise AssertionError("red: the block reduction declares no workgroup memory")
        mlp, _ = check(work, "mlp", os.path.join(SRC, "samples", "mlp.mlir"), "mlp", mlp_in)
        dynamic_shared_edit(work, mlp, "mlp", mlp_in)
        bounds_refused(work)
    except (AssertionError, KeyError) as e:
        print("FAIL: %s" % e)
        print("0 passed, 1 failed")
        return 1
    print("1 passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
