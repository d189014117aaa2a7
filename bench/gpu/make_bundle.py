#!/usr/bin/python3
"""Prepares everything a GPU machine needs to run Kiln's CUDA path, on a
machine without a GPU (LLVM, the compiler and PyTorch's exporter stay
here). The GPU machine gets kiln-run, kiln-bench and their non-glibc
libraries, modules compiled for cuda:sm_80 and cuda:sm_90, their inputs
and the expected results; bench/gpu/gpu_check.py runs them there.

usage: make_bundle.py --compile=KILN_COMPILE --run=KILN_RUN --bench=KILN_BENCH
           --dump=KILN_DUMP --out=DIR [--no-resnet] [--jobs=N] [--only=PREFIX,...]

DIR/bundle.tar.zst holds (one zstd stream whose long-distance window is
larger than one ResNet-18 module, so the batch-8 module's weights, the
same bytes as the batch-1 module's, cost almost nothing; DIR/tools holds
the zstd that unpacks it there):
  bin/kiln-run, bin/kiln-bench, lib/<their shared libraries but glibc>
  e2e/<program>/  every program of tests/e2e/gpu (run_gpu.py's list):
      sm_80.kiln, sm_90.kiln (one CUDA variant each), in<i>.npy,
      want<j>.npy (the program's numpy reference), cpu<j>.npy (Kiln's
      llvm-cpu result on local-sync, here), meta.json (function, results)
  onnx/<model>/  ONNX models of tests/onnx/models/run_model.py (mlp, cnn,
      the cnn_* shape cases, encoder, resnet18 at batch 1 and 8):
      sm_90.kiln, x.npy, want.npy (PyTorch's result), cpu.npy (Kiln's
      llvm-cpu result), meta.json
  bench/matmul_4096.kiln  f32 4096^3 linalg.matmul for cuda:sm_90 (inputs
      are drawn on the GPU machine: 64 MiB each would not travel)
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "tests", "onnx", "models"))

SMS = ("sm_80", "sm_90")
ONNX_MODELS = ["tiny_mlp", "mlp", "cnn", "encoder", "cnn_conv_stride", "cnn_conv_dilated",
               "cnn_conv_asym", "cnn_conv_1x1", "cnn_depthwise", "cnn_depthwise_mult",
               "cnn_grouped", "cnn_pools", "cnn_concat", "cnn_mobile_block", "cnn_shuffle",
               "cnn_se_fold", "cnn_pad_fused"]
MATMUL_N = 4096


def sh(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd)[:300], r.returncode,
                                                   (r.stderr or r.stdout)[-2000:]))
    return r


def e2e_program(args, name):
    """One tests/e2e/gpu program: a CUDA module per SM, inputs, numpy's and
    the CPU's results."""
    import run_gpu
    d = os.path.join(args.stage, "e2e", name)
    os.makedirs(d, exist_ok=True)
    source, fn, ins, want = run_gpu.make(name, d)
    for i, v in enumerate(ins):
        np.save(os.path.join(d, "in%d.npy" % i), v)
    for j, w in enumerate(want):
        np.save(os.path.join(d, "want%d.npy" % j), np.asarray(w))
    for tag, targets in [("cpu", ["llvm-cpu"])] + [(sm, ["cuda:" + sm]) for sm in SMS]:
        text, flags = source(targets)
        src = os.path.join(d, tag + ".mlir")
        with open(src, "w") as f:
            f.write(text + "\n")
        sh([args.compile, src, "-o", os.path.join(d, tag + ".kiln")] + flags)
        os.remove(src)
    cmd = [args.run, "--module=" + os.path.join(d, "cpu.kiln"), "--function=" + fn,
           "--device=local-sync"]
    cmd += ["--input=@" + os.path.join(d, "in%d.npy" % i) for i in range(len(ins))]
    cmd += ["--output=@" + os.path.join(d, "cpu%d.npy" % j) for j in range(len(want))]
    sh(cmd)
    os.remove(os.path.join(d, "cpu.kiln"))
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"function": fn, "inputs": len(ins), "results": len(want)}, f)
    return name


def onnx_model(args, torch, name, batch=None):
    variants = args.variants
    if name != "resnet18":
        args = argparse.Namespace(**dict(vars(args), variants=[]))
    elif args.variants_resnet:
        keep = args.variants_resnet.split(",")
        args = argparse.Namespace(**dict(vars(args), variants=[v for v in variants if v["tag"] in keep]))
    import run_model
    m, x = run_model.build(name, torch)
    tag = name if batch is None else "%s_b%d" % (name, batch)
    if batch is not None:
        # Multiples of 1/64: a batch-8 image compresses to a third of its
        # 4.8 MB, which the 64 MiB a GPU machine call may carry needs.
        x = torch.round(torch.randn(batch, *x.shape[1:], generator=torch.Generator().manual_seed(7))
                        * 64) / 64
    d = os.path.join(args.stage, "onnx", tag)
    os.makedirs(d, exist_ok=True)
    with torch.no_grad():
        # Weights rounded to bfloat16's 8-bit mantissa (still float32):
        # random float32 weights do not compress, and two ResNet-18
        # modules of them would not fit the 64 MiB a call may carry.
        for p in m.parameters():
            p.copy_(p.to(torch.bfloat16).float())
        want = m(x).numpy()
    onnx_path = os.path.join(args.work, tag + ".onnx")
    torch.onnx.export(m, x, onnx_path, opset_version=17, input_names=["x"], output_names=["y"])
    np.save(os.path.join(d, "x.npy"), x.numpy())
    np.save(os.path.join(d, "want.npy"), want)
    cpu = os.path.join(args.work, tag + ".cpu.kiln")
    sh([args.compile, onnx_path, "-o", cpu])
    sh([args.compile, onnx_path, "-o", os.path.join(d, "sm_90.kiln"), "--target=cuda:sm_90"])
    for v in args.variants:  # sm_90_TAG.kiln: the same model by another compile
        env = dict(os.environ, **v["env"])
        sh([v.get("compile", args.compile), onnx_path, "-o", os.path.join(d, "sm_90_%s.kiln" % v["tag"]),
            "--target=cuda:sm_90"], env=env)
    sh([args.run, "--module=" + cpu, "--device=local-task", "--input=@" + os.path.join(d, "x.npy"),
        "--output=@" + os.path.join(d, "cpu.npy")])
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump({"model": name, "batch": int(x.shape[0]), "shape": list(x.shape)}, f)
    os.remove(cpu)
    os.remove(onnx_path)
    return tag


def matmul_module(args):
    n = MATMUL_N
    t = "tensor<%dx%dxf32>" % (n, n)
    text = ("func.func @matmul(%%a: %s, %%b: %s) -> %s {\n"
            "  %%z = arith.constant 0.0 : f32\n"
            "  %%e = tensor.empty() : %s\n"
            "  %%c = linalg.fill ins(%%z : f32) outs(%%e : %s) -> %s\n"
            "  %%r = linalg.matmul ins(%%a, %%b : %s, %s) outs(%%c : %s) -> %s\n"
            "  return %%r : %s\n}\n" % ((t,) * 11))
    d = os.path.join(args.stage, "bench")
    os.makedirs(d, exist_ok=True)
    src = os.path.join(args.work, "matmul.mlir")
    with open(src, "w") as f:
        f.write(text)
    sh([args.compile, src, "-o", os.path.join(d, "matmul_%d.kiln" % n), "--target=cuda:sm_90"])
    for v in args.variants:
        env = dict(os.environ, **v["env"])
        sh([v.get("compile", args.compile), src, "-o", os.path.join(d, "matmul_%d_%s.kiln" % (n, v["tag"])),
            "--target=cuda:sm_90"], env=env)


def shared_libraries(binary):
    """The non-glibc shared libraries a binary needs (ldd's paths)."""
    out = sh(["ldd", binary]).stdout
    libs = []
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (\S+)", line)
        if m and not re.match(r"lib(c|m|dl|pthread|rt)\.so", m.group(1)):
            libs.append(m.group(2))
    return libs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--bench", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-resnet", action="store_true")
    ap.add_argument("--only", default="", help="comma-separated e2e program prefixes")
    ap.add_argument("--keep", action="store_true",
                    help="keep DIR/stage's programs and models that are there (meta.json)")
    ap.add_argument("--variants", default="",
                    help="JSON list of {tag, env, compile?}: each also compiles the matmul and the ResNet-18 "
                         "modules (sm_90_TAG.kiln, matmul_N_TAG.kiln) with that environment or compiler")
    ap.add_argument("--variants-resnet", default="",
                    help="comma-separated variant tags that also compile ResNet-18 (default: all)")
    args = ap.parse_args()
    args.variants = json.loads(args.variants) if args.variants else []
    zstd = shutil.which("zstd")
    if not zstd:
        raise SystemExit("make_bundle.py: no zstd on PATH (Debian package zstd: "
                         "KILN_BOOTSTRAP_EXTRA=bench scripts/bootstrap.sh installs it)")
    args.stage = os.path.join(args.out, "stage")
    args.work = os.path.join(args.out, "work")
    if not args.keep:
        shutil.rmtree(args.stage, ignore_errors=True)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(os.path.join(args.stage, "bin"), exist_ok=True)
    os.makedirs(os.path.join(args.stage, "lib"), exist_ok=True)
    for b in (args.run, args.bench):
        shutil.copy(b, os.path.join(args.stage, "bin"))
        for lib in shared_libraries(b):
            shutil.copy(lib, os.path.join(args.stage, "lib"))

    import run_gpu
    names = run_gpu.programs()
    if args.only:
        names = [n for n in names if any(n.startswith(p) for p in args.only.split(","))]
    if args.keep:
        names = [n for n in names
                 if not os.path.exists(os.path.join(args.stage, "e2e", n, "meta.json"))]
    # Some cases (tests/e2e/gpu/cases) check their PTX as they are made,
    # with the tools and work folder run_gpu.py's command line gives them
    # (sys.argv[1:5]): those are made one at a time, each with its own.
    by_argv = [n for n in names if n.startswith("gpuop.")]
    failed = []
    for n in by_argv:
        sys.argv[1:] = [args.compile, args.run, args.dump, os.path.join(args.work, n)]
        try:
            e2e_program(args, n)
        except Exception as e:  # noqa: BLE001 — reported, the rest goes on
            failed.append(n)
            print("e2e %s: %s" % (n, e), file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futs = {pool.submit(e2e_program, args, n): n for n in names if n not in by_argv}
        for f in concurrent.futures.as_completed(futs):
            try:
                f.result()
            except Exception as e:  # noqa: BLE001 — reported, the rest goes on
                failed.append(futs[f])
                print("e2e %s: %s" % (futs[f], e), file=sys.stderr)
    print("e2e: %d programs staged, %d failed here" % (len(names) - len(failed), len(failed)))

    import torch
    torch.set_num_threads(2)
    models = [(n, None) for n in ONNX_MODELS]
    if not args.no_resnet:
        models += [("resnet18", 1), ("resnet18", 8)]
    staged = 0
    for name, batch in models:
        tag = name if batch is None else "%s_b%d" % (name, batch)
        if args.keep and os.path.exists(os.path.join(args.stage, "onnx", tag, "meta.json")):
            continue
        onnx_model(args, torch, name, batch)
        staged += 1
    print("onnx: %d models staged" % staged)
    matmul_module(args)

    # tar + zstd in long-distance mode (a 128 MiB window): the ResNet-18
    # modules' weights (batch 1 and 8, and any variants) are the same
    # bytes and travel once. xz found those repeats too but took over 20
    # minutes on a loaded 2-core machine; zstd takes seconds. The GPU
    # machine has no zstd: its binary and the library it lacks there
    # travel beside the bundle (tools/).
    bundle = os.path.join(args.out, "bundle.tar.zst")
    tar = subprocess.Popen(["tar", "-cf", "-", "--transform", "s,^stage,bundle,", "-C", args.out, "stage"],
                           stdout=subprocess.PIPE)
    subprocess.run(["zstd", "-q", "-f", "-T2", "--long=27", "-12", "-o", bundle], stdin=tar.stdout, check=True)
    if tar.wait() != 0:
        raise RuntimeError("tar of %s failed" % args.stage)
    tools = os.path.join(args.out, "tools")
    os.makedirs(tools, exist_ok=True)
    shutil.copy(zstd, tools)
    for lib in shared_libraries(zstd):
        if "lz4" in lib or "zstd" in lib:
            shutil.copy(lib, tools)
    shutil.copy(os.path.join(HERE, "gpu_check.py"), args.out)
    print("%s: %.1f MiB" % (bundle, os.path.getsize(bundle) / 2**20))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
