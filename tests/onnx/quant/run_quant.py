#!/usr/bin/python3
"""A statically quantized (QDQ) model through Kiln, compared with ONNX
Runtime running the same quantized model.

usage: run_quant.py MODEL --compile=KILN_COMPILE --run=KILN_RUN --work=DIR
           [--ort=NODE_MODULES] [--samples=100] [--device=local-task]
           [--expected=EXPECTED_PASSES] [--compile-flag=FLAG]... [--qoperator]
           [--dynamic] [--image=N]
MODEL is one of run_model.py's float test models (resnet18, mobilenet_v2,
encoder: the two-layer TransformerEncoder, ...), built with random
weights from a fixed seed and exported by torch.onnx.export at opset 17.
qdq.py quantizes it with ranges calibrated on 8 fixed random inputs (ONNX
Runtime computes them on the float model): per-channel symmetric int8
weights, asymmetric u8 activations, int32 biases; the graph's outputs are
quantized too, so every output lies on a grid of one known step. With
--qoperator, its Conv and MatMul chains are then rewritten to the
QOperator form (QLinearConv, QLinearMatMul: qdq.to_qoperator), and that
model is what both run.

With --dynamic the model is exported with a dynamic batch
(dynamic_axes; the encoder, sequence-first, with a dynamic sequence
length too), as quantized deployment models are, compiled once, and the
samples are batches of 1, 2 and 3 in turn (the encoder's: (sequence,
batch) of (1, 1), (7, 2), (16, 3)), each one ONNX Runtime call and one
kiln-run call. --image=N gives a CNN N x N images instead of its default
size (a cheap test of a whole network's layers).

Checks, on SAMPLES random inputs (another fixed seed): every output
element of Kiln's run at most one quantization step from ONNX Runtime's,
and, for a classifier (output [1, classes]), the same top-1 class on every
sample (where ONNX Runtime's maximum is tied, Kiln's top-1 must be one of
the tied classes). Also printed, on the first 10 samples: how far ONNX
Runtime's integer run is from its own float run of the QDQ graph (graph
optimizations off), and Kiln from that. Exit 0 on success, 1 on a mismatch or an error for a model listed
in EXPECTED_PASSES (one a line, '#' comments; the list may only grow;
without --expected every model counts as listed), 77 (skip, with the
reason) when a model not yet listed fails, without torch/torchvision/onnx
or without ONNX Runtime (tools/ort/kiln_ort.py finds it: NODE_MODULES,
$KILN_ORT_MODULES, or what scripts/bootstrap.sh installs).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "models"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools", "ort"))

from run_model import verdict  # noqa: E402  (the expected-passes rule of the model tests)

CALIBRATION = 8


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--ort", default=None)
    ap.add_argument("--work", required=True)
    ap.add_argument("--samples", type=int, default=100)
    ap.add_argument("--device", default="local-task")
    ap.add_argument("--expected", default=None)
    ap.add_argument("--compile-flag", action="append", default=[])
    ap.add_argument("--qoperator", action="store_true")
    ap.add_argument("--dynamic", action="store_true")
    ap.add_argument("--image", type=int, default=0)
    args = ap.parse_args()
    name = args.model + ("_qoperator" if args.qoperator else "") + ("_dynamic" if args.dynamic else "")
    return verdict(check(args), args.expected, name)


# --dynamic: the exported dynamic axes and the sample shapes' dims there,
# in turn (the encoder is sequence-first: [sequence, batch, features])
DYNAMIC_AXES = {"encoder": ({0: "seq", 1: "batch"}, [(1, 1), (7, 2), (16, 3)])}
DYNAMIC_BATCH = ({0: "batch"}, [(1,), (2,), (3,)])


def check(args):
    try:
        import onnx
        import torch
        import qdq
        import kiln_ort
        import run_model
        if args.model in ("resnet18", "mobilenet_v2"):
            import torchvision  # noqa: F401
    except ImportError as e:
        print("skipped: %s (install python3-onnx python3-torch python3-torchvision: "
              "scripts/bootstrap.sh)" % e)
        return 77
    try:
        kiln_ort.find(args.ort)
    except kiln_ort.OrtMissing as e:
        print("skipped: %s (ONNX Runtime is the reference)" % e)
        return 77

    work = os.path.join(args.work, args.model + ("_dynamic" if args.dynamic else ""))
    os.makedirs(work, exist_ok=True)
    m, x = run_model.build(args.model, torch)
    if args.image:
        x = torch.randn(*x.shape[:-2], args.image, args.image)
    fp = os.path.join(work, "float.onnx")
    axes, dims = DYNAMIC_AXES.get(args.model, DYNAMIC_BATCH) if args.dynamic else ({}, [()])
    torch.onnx.export(m, x, fp, opset_version=17, input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": axes, "y": axes} if axes else None)
    shape = tuple(x.shape)

    def sample_shape(k):
        """Sample k's shape: the example's, its dynamic axes set to the k-th entry of dims, in turn."""
        s = list(shape)
        for a, v in zip(sorted(axes), dims[k % len(dims)]):
            s[a] = v
        return tuple(s)

    def draw(seed, n, vary=False):
        g = torch.Generator().manual_seed(seed)
        xs = [torch.randn(*(sample_shape(k) if vary else shape), generator=g).numpy().astype(np.float32)
              for k in range(n)]
        return xs if vary else np.stack(xs)

    calib = draw(100, CALIBRATION)
    qp = os.path.join(work, "quantized.onnx")
    count = qdq.quantize_file(fp, qp, {"x": calib}, args.ort)
    qm = onnx.load(qp)
    if args.qoperator:
        conv = qdq.to_qoperator(qm)
        qp = os.path.join(work, "qoperator.onnx")
        onnx.save(qm, qp)
        print("%s: %d ops in the QOperator form (QLinearConv / QLinearMatMul)" % (args.model, conv))
        if conv == 0:
            print("FAIL: no op converted to the QOperator form")
            return 1
    steps = qdq.output_steps(qm)
    print("%s: quantized %d ops (%s); output step %s" % (
        args.model, count, qp, ", ".join("%.4g" % s for s in steps.values())))

    xs = draw(200, args.samples, vary=args.dynamic)
    t0 = time.monotonic()
    want = [r["y"] for r in kiln_ort.run_many(qp, [{"x": x} for x in xs], ["y"], args.ort)]
    print("%s: ONNX Runtime ran %d samples in %.1f s" % (args.model, args.samples, time.monotonic() - t0))
    few = min(10, args.samples)
    want_float = [r["y"] for r in kiln_ort.run_many(qp, [{"x": x} for x in xs[:few]], ["y"], args.ort,
                                                     optimize=False)]

    kiln = os.path.join(work, "quantized.kiln")
    t0 = time.monotonic()
    c = subprocess.run([args.compile, qp, "-o", kiln] + args.compile_flag, capture_output=True, text=True)
    if c.returncode != 0:
        print("FAIL: compile error:\n" + c.stderr.strip())
        return 1
    print("%s: compiled in %.1f s" % (args.model, time.monotonic() - t0))
    got = []
    t0 = time.monotonic()
    for s in range(args.samples):
        xp, yp = os.path.join(work, "x.npy"), os.path.join(work, "y.npy")
        np.save(xp, xs[s])
        r = subprocess.run([args.run, "--module=" + kiln, "--device=" + args.device,
                            "--input=@" + xp, "--output=@" + yp], capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: run error on sample %d (input %s):\n%s" % (s, xs[s].shape, r.stderr.strip()))
            return 1
        y = np.load(yp)
        if y.shape != want[s].shape or y.dtype != np.float32:
            print("FAIL: output %s %s for input %s, ONNX Runtime gives float32 %s"
                  % (y.dtype, y.shape, xs[s].shape, want[s].shape))
            return 1
        got.append(y)
    print("%s: Kiln ran %d samples in %.1f s" % (args.model, args.samples, time.monotonic() - t0))

    np.concatenate([g.ravel() for g in got]).tofile(os.path.join(work, "kiln.bin"))
    step = steps["y"]

    def steps_off(a, b):
        """Steps between the outputs of lists a and b, all elements."""
        return np.rint(np.abs(np.concatenate([x.ravel() for x in a]).astype(np.float64) -
                              np.concatenate([x.ravel() for x in b])) / step)

    # For the record: how far ONNX Runtime's integer kernels are from its
    # own float execution of the Q/DQ graph, and Kiln from the latter.
    for what, a, b in (("ONNX Runtime's integer run from its float run of the QDQ graph", want[:few], want_float),
                       ("Kiln from ONNX Runtime's float run of the QDQ graph", got[:few], want_float)):
        off = steps_off(a, b)
        print("%s: %s: %d of %d elements differ, by at most %d step(s)"
              % (args.model, what, int((off > 0).sum()), off.size, float(off.max())))
    off = steps_off(got, want)
    worst = float(off.max())
    print("%s: %d of %d output elements differ from ONNX Runtime's, by at most %d step(s) of %.4g"
          % (args.model, int((off > 0).sum()), off.size, worst, step))
    ok = all(np.isfinite(g).all() for g in got) and worst <= 1
    if all(w.ndim == 2 for w in want):  # a classifier: [batch, classes] per sample
        g2, w2 = np.concatenate(got), np.concatenate(want)
        top = g2.argmax(axis=1)
        agree = w2[np.arange(len(top)), top] == w2.max(axis=1)
        ties = int(((w2 == w2.max(axis=1, keepdims=True)).sum(axis=1) > 1).sum())
        print("%s: top-1 agrees with ONNX Runtime's on %d of %d rows (%d with a tied maximum)"
              % (args.model, int(agree.sum()), len(top), ties))
        ok = ok and bool(agree.all())
    print("%s: %s" % (args.model, "passed" if ok else "FAIL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
