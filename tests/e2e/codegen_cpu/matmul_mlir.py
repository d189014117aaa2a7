"""MLIR matmul programs and a module runner shared by the codegen_cpu
e2e scripts (run_prepack.py, run_streamed.py): a Gemm as the ONNX importer
writes it (fill, linalg.matmul, elementwise bias/ReLU epilogue), a
@main around such lines, and kiln-run of a module against numpy."""
import os
import subprocess

import numpy as np


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
            err = np.abs(got.astype(np.float64) - e).max() / max(1.0, np.abs(e).max())
            if got.shape != e.shape or not err < 1e-5:
                return "%s: result differs from numpy (relative error %g)" % (name, err)
        return None
    finally:
        for p in paths + outs:
            if os.path.exists(p):
                os.remove(p)
