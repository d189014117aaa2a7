#!/usr/bin/python3
"""Do two kiln-compile binaries write the same modules, byte for byte?

usage: compare_modules.py --old=KILN_COMPILE --new=KILN_COMPILE --work=DIR
           [--only=REGEX] [--no-onnx] [--jobs=N] [--dump=KILN_DUMP]

For restructurings that must not change output: build kiln-compile at the
parent commit and at yours, then run this. It compiles every e2e program
(samples/*.mlir, tests/e2e/compile/op_cases.py, the hal-level kernels of
tests/e2e/codegen_cpu/run_hal_kernels.py and the GPU cases; the list of
tests/e2e/gpu/run_gpu.py) and the ONNX model tests' models
(tests/onnx/models/run_model.py: tiny_mlp, mlp, cnn, ResNet-18, MobileNetV2,
the encoder; skipped without torch) with both binaries
for several target sets (the host; x86_64+avx2 with aarch64; sm_80, sm_90
and the host as the GPU tests compile; sm_80 with KILN_GPU_SIMT_CPU=1) and
compares the module bytes. A program that fails to compile must fail with
both. The module's provenance names the source revision each compiler was
built from: that string is blanked in both before comparing (build both
with the same -DKILN_SOURCE_REVISION=... when the two differ in length,
e.g. one of them "-dirty"). Prints one line per difference and a summary;
exit 1 when any module differs, 0 otherwise.

The parent's binary, for example:
    git worktree add --detach /tmp/kiln-parent HEAD~1
    cmake -S /tmp/kiln-parent -B /tmp/kiln-parent/build
    cmake --build /tmp/kiln-parent/build -j2 --target kiln-compile
Compare a commit with its own parent: others change code generation on
main, so an older main differs for reasons of its own.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "e2e", "gpu"))
sys.path.insert(0, os.path.join(HERE, "onnx", "models"))

TARGET_SETS = [
    ("host", ["llvm-cpu"], {}),
    ("cpus", ["llvm-cpu:x86_64+avx2", "llvm-cpu:aarch64"], {}),
    ("gpu", ["cuda:sm_80", "cuda:sm_90", "llvm-cpu"], {}),
    ("simt", ["cuda:sm_80"], {"KILN_GPU_SIMT_CPU": "1"}),
]


def programs(work, new, dump):
    """[(name, path of its MLIR text, extra flags, environment)] for every
    e2e program."""
    import run_gpu  # noqa: E402 (imports numpy and the e2e case tables)
    # Some GPU case generators check their PTX themselves, with the tools
    # run_gpu.py's command line names: give them the new compiler.
    sys.argv[1:] = [new, "kiln-run", dump, os.path.join(work, "gen")]
    out = []
    for name in run_gpu.programs():
        try:
            src, _, _, _ = run_gpu.make(name, work)
        except Exception as e:  # noqa: BLE001 (a generator's own check)
            print("note: %s not compared: its generator failed (%s)" % (name, e))
            continue
        for tag, targets, env in TARGET_SETS:
            text, flags = src(targets)
            path = os.path.join(work, "%s.%s.mlir" % (name, tag))
            with open(path, "w") as f:
                f.write(text)
            # (hal-level kernels name their targets in the text: no flags)
            out.append(("%s[%s]" % (name, tag), path, flags, env))
    return out


def onnx_models(work):
    try:
        import torch
        import torchvision  # noqa: F401
    except ImportError as e:
        print("note: ONNX models skipped (%s)" % e)
        return []
    import run_model  # noqa: E402
    out = []
    for model in ("tiny_mlp", "mlp", "cnn", "resnet18", "mobilenet_v2", "encoder"):
        m, x = run_model.build(model, torch)
        path = os.path.join(work, model + ".onnx")
        torch.onnx.export(m, x, path, opset_version=17, input_names=["x"], output_names=["y"])
        for tag, targets, env in TARGET_SETS[:3:2]:
            out.append(("onnx.%s[%s]" % (model, tag), path,
                        ["--target=" + t for t in targets], env))
    return out


def compile_one(kc, item, out_path, dump):
    name, path, flags, env = item
    r = subprocess.run([kc, path, "-o", out_path] + flags, capture_output=True, text=True,
                       env=dict(os.environ, **env))
    if r.returncode != 0:
        return None, r.stderr.strip().splitlines()[-1:] or ["(no message, status %d)" % r.returncode]
    with open(out_path, "rb") as f:
        data = f.read()
    d = subprocess.run([dump, out_path], capture_output=True, text=True)
    m = re.search(r"^\s*source-revision: (\S+)$", d.stdout, re.M)
    if m:  # provenance, not output: blank it
        data = data.replace(m.group(1).encode(), b"0" * len(m.group(1)))
    return data, None


def compare(args, item, i):
    old, old_err = compile_one(args.old, item, os.path.join(args.work, "%d.old.kiln" % i), args.dump)
    new, new_err = compile_one(args.new, item, os.path.join(args.work, "%d.new.kiln" % i), args.dump)
    if old is None and new is None:
        return "both fail", None
    if old is None or new is None:
        return "differ", "%s: only %s compiles (%s)" % (
            item[0], "new" if old is None else "old", (old_err or new_err)[0])
    if old != new:
        at = next((k for k in range(min(len(old), len(new))) if old[k] != new[k]),
                  min(len(old), len(new)))
        return "differ", "%s: %d vs %d bytes, first difference at byte %d" % (
            item[0], len(old), len(new), at)
    return "same", None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--only", default=None, help="regex over program names")
    ap.add_argument("--no-onnx", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dump", default=None,
                    help="kiln-dump for the GPU case generators and the provenance "
                         "(default: beside --new in a build)")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    args.dump = args.dump or os.path.join(os.path.dirname(os.path.dirname(args.new)),
                                          "kiln-dump", "kiln-dump")
    items = programs(args.work, args.new, args.dump)
    if not args.no_onnx:
        items += onnx_models(args.work)
    if args.only:
        items = [it for it in items if re.search(args.only, it[0])]
    counts = {"same": 0, "differ": 0, "both fail": 0}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
        for verdict, line in ex.map(lambda p: compare(args, p[1], p[0]), enumerate(items)):
            counts[verdict] += 1
            if line:
                print("DIFFER " + line, flush=True)
    print("%d modules: %d identical, %d differ, %d fail to compile with both"
          % (len(items), counts["same"], counts["differ"], counts["both fail"]))
    return 1 if counts["differ"] else 0


if __name__ == "__main__":
    sys.exit(main())
