"""MLIR matmul programs, their compile step and a module runner shared by
the codegen_cpu e2e scripts (run_prepack.py, run_streamed.py): a Gemm as
the ONNX importer writes it (fill, linalg.matmul, elementwise bias/ReLU
epilogue), a @main around such lines, kiln-compile of a program with
texts its printed IR must and must not hold, kiln-run of a module
against numpy, and the scripts' command line and verdict."""
import os
import subprocess
import sys

import numpy as np


def command_line(doc):
    """(KILN_COMPILE, KILN_RUN, WORKDIR, DEVICE) from sys.argv, WORKDIR
    made; None after printing DOC (the usage) when they are not four."""
    if len(sys.argv) != 5:
        print(doc)
        return None
    os.makedirs(sys.argv[3], exist_ok=True)
    return sys.argv[1:]


def verdict(script, failures):
    """Prints FAILURES (None for a case that passed) and SCRIPT's line;
    returns the exit status."""
    failures = [f for f in failures if f]
    for f in failures:
        print("FAIL " + f)
    print("%s: %d cases failed" % (script, len(failures)) if failures else "%s: all cases pass" % script)
    return 1 if failures else 0


def tt(shape):
    return "tensor<%sxf32>" % "x".join(str(d) for d in shape)


def dense(a):
    a = np.ascontiguousarray(a, dtype="<f4")
    return 'dense<"0x%s"> : %s' % (a.tobytes().hex().upper(), tt(a.shape))


def matmul(out, x, w, m, k, n, bias=None, relu=False):
    """MLIR lines computing %out = x @ w (+ bias) (ReLU): fill, matmul and
    an elementwise epilogue when there is one, as the ONNX importer writes
    a Gemm. m "?": x's rows are a run-time size (%m, its tensor.dim)."""
    ty = tt((m, n))
    mm = out if bias is None and not relu else out + "_m"
    lines = [
        "  %%%s_e = tensor.empty(%s) : %s" % (out, "%m" if m == "?" else "", ty),
        "  %%%s_f = linalg.fill ins(%%zero : f32) outs(%%%s_e : %s) -> %s" % (out, out, ty, ty),
        "  %%%s = linalg.matmul ins(%%%s, %%%s : %s, %s) outs(%%%s_f : %s) -> %s"
        % (mm, x, w, tt((m, k)), tt((k, n)), out, ty, ty),
    ]
    if mm == out:
        return lines
    ins, intys = ["%" + mm], [ty]
    maps, args = ["affine_map<(i, j) -> (i, j)>"], ["%v: f32"]
    if bias is not None:
        ins.append("%" + bias)
        intys.append(tt((n,)))
        maps.append("affine_map<(i, j) -> (j)>")
        args.append("%b: f32")
    body, v = [], "%v"
    if bias is not None:
        body.append("    %s0 = arith.addf %v, %b : f32")
        v = "%s0"
    if relu:
        body.append("    %c0 = arith.constant 0.0 : f32")
        body.append("    %%s1 = arith.maximumf %s, %%c0 : f32" % v)
        v = "%s1"
    maps.append("affine_map<(i, j) -> (i, j)>")
    lines.append(
        "  %%%s = linalg.generic {indexing_maps = [%s], iterator_types = [\"parallel\", \"parallel\"]} "
        "ins(%s : %s) outs(%%%s_e : %s) {\n  ^bb0(%s, %%o: f32):\n%s\n    linalg.yield %s : f32\n  } -> %s"
        % (out, ", ".join(maps), ", ".join(ins), ", ".join(intys), out, ty, ", ".join(args),
           "\n".join(body), v, ty))
    return lines


def program(args, rets, lines):
    return ("func.func @main(%s) -> (%s) {\n  %%zero = arith.constant 0.0 : f32\n%s\n  return %s : %s\n}\n"
            % (", ".join("%%%s: %s" % a for a in args), ", ".join(t for _, t in rets),
               "\n".join(lines), ", ".join("%" + r for r, _ in rets), ", ".join(t for _, t in rets)))


def compile_checked(kc, work, name, src, after, present=(), absent=()):
    """Compiles program SRC to WORK/NAME.kiln with the IR printed after
    pass AFTER, which must hold every text of PRESENT and none of ABSENT
    (the packed binding, the launch config's tile sizes). Returns
    (module, None) or (None, what went wrong). The .mlir is removed once
    compiled (streamed cases' constants are tens of MB of text)."""
    path = os.path.join(work, name + ".mlir")
    with open(path, "w") as f:
        f.write(src)
    mod = os.path.join(work, name + ".kiln")
    r = subprocess.run([kc, path, "-o", mod, "--print-ir-after=" + after], capture_output=True, text=True)
    if r.returncode != 0:
        return None, "%s: kiln-compile failed:\n%s" % (name, r.stderr[-4000:])
    os.remove(path)
    for t in present:
        if t not in r.stderr:
            return None, "%s: no %s in the IR after %s" % (name, t, after)
    for t in absent:
        if t in r.stderr:
            return None, "%s: %s in the IR after %s, must not be" % (name, t, after)
    return mod, None


def run_module(kr, mod, device, work, name, inputs, expect):
    """Runs module MOD on DEVICE (2 workers on local-task) with INPUTS
    (numpy arrays) and compares its results with EXPECT (relative error
    below 1e-5). Returns None, or what went wrong. The .npy files it
    writes are removed (streamed cases' inputs are tens of MB each)."""
    args = [kr, "--module=" + mod, "--device=" + device]
    if device == "local-task":
        args.append("--workers=2")
    paths = []
    for i, a in enumerate(inputs):
        p = os.path.join(work, "%s.in%d.npy" % (name, i))
        np.save(p, a)
        paths.append(p)
        args.append("--input=@" + p)
    outs = []
    for j in range(len(expect)):
        p = os.path.join(work, "%s.out%d.npy" % (name, j))
        outs.append(p)
        args.append("--output=@" + p)
    r = subprocess.run(args, capture_output=True, text=True)
    try:
        if r.returncode != 0:
            return "%s: kiln-run failed:\n%s" % (name, r.stderr[-4000:])
        for p, e in zip(outs, expect):
            got = np.load(p)
            if got.shape != e.shape:
                return "%s: result of shape %s, numpy's is %s" % (name, got.shape, e.shape)
            err = np.abs(got.astype(np.float64) - e).max() / max(1.0, np.abs(e).max()) if e.size else 0.0
            if not err < 1e-5:
                return "%s: result differs from numpy (relative error %g)" % (name, err)
        return None
    finally:
        for p in paths + outs:
            if os.path.exists(p):
                os.remove(p)
