#!/usr/bin/python3
"""One PyTorch model with dynamic axes through Kiln: one module, many shapes.

usage: run_dynamic.py MODEL --compile=KILN_COMPILE --run=KILN_RUN --work=DIR
           [--device=local-task] [--tol=1e-3]
MODEL is resnet18 (torchvision's, random weights and batch-norm statistics
as run_model.py builds them; dynamic batch, run at 1, 3 and 8),
mobilenet_v2 (the same; its depthwise convolutions take the channels-last
path over the run-time batch too; run at 1, 2 and 5), cnn_grouped and
cnn_pools (run_model.py's: grouped convolutions, pools; dynamic batch, run
at 1, 2 and 7), cnn_winograd (run_model.py's 3x3 convolutions of 64+ input
channels, at 17x15: Winograd over a run-time batch, run at 1, 2 and 3),
encoder
(a 2-layer torch.nn.TransformerEncoder, d_model 64, 4 heads, feed-forward
128, batch_first; dynamic batch and sequence length, run at (1, 7),
(2, 64) and (3, 128)), or gpt_tiny / bert_tiny (run_model.py's: int64
token ids, and bert_tiny's attention mask; dynamic batch and sequence
length, run at (1, 1) or (1, 5), (2, 11) and (3, 24)).

Exports the model with torch.onnx.export(..., dynamic_axes=...) at opset
17 (the graph inputs carry dim_params), compiles it ONCE with
kiln-compile, runs that module with kiln-run at every shape and compares
with PyTorch in eval mode (max abs error at most TOL). Then a call with a
bad shape must fail naming the dimension. Exit status: 0 when all pass, 1
on any failure, 77 (skip, reason printed) without torch/torchvision or
the tools.
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_model  # noqa: E402

MODELS = {
    # name: (dynamic axes of x and y, shapes to run, a bad input shape and
    #        what its refusal must say)
    "resnet18": ({0: "batch"}, [(1, 3, 224, 224), (3, 3, 224, 224), (8, 3, 224, 224)],
                 (1, 3, 225, 224), "input 0: expected tensor<?x3x224x224xf32>, got tensor<1x3x225x224xf32> "
                                   "(dimension 2 is 225, must be 224)"),
    "mobilenet_v2": ({0: "batch"}, [(1, 3, 224, 224), (2, 3, 224, 224), (5, 3, 224, 224)],
                     (2, 4, 224, 224), "input 0: expected tensor<?x3x224x224xf32>, got tensor<2x4x224x224xf32> "
                                       "(dimension 1 is 4, must be 3)"),
    "cnn_grouped": ({0: "batch"}, [(1, 12, 10, 9), (2, 12, 10, 9), (7, 12, 10, 9)],
                    (2, 12, 10, 8), "input 0: expected tensor<?x12x10x9xf32>, got tensor<2x12x10x8xf32> "
                                    "(dimension 3 is 8, must be 9)"),
    "cnn_pools": ({0: "batch"}, [(1, 3, 21, 18), (2, 3, 21, 18), (7, 3, 21, 18)],
                  (2, 3, 20, 18), "input 0: expected tensor<?x3x21x18xf32>, got tensor<2x3x20x18xf32> "
                                  "(dimension 2 is 20, must be 21)"),
    # Winograd F(2x2, 3x3) over a run-time batch (winograd_convs.c: the
    # products' rows, batch x tiles, are a run-time size; a run-time batch
    # counts as 1 image against the 48-tile threshold, so 17x15 maps: 9x8
    # tiles, and 15x13 after the unpadded 3x3, partial tiles both ways;
    # 136 input channels); batch 3 is an odd count of images.
    "cnn_winograd": ({0: "batch"}, [(1, 5, 17, 15), (2, 5, 17, 15), (3, 5, 17, 15)],
                     (2, 5, 17, 14), "input 0: expected tensor<?x5x17x15xf32>, got tensor<2x5x17x14xf32> "
                                     "(dimension 3 is 14, must be 15)"),
    "encoder": ({0: "batch", 1: "seq"}, [(1, 7, 64), (2, 64, 64), (3, 128, 64)],
                (2, 7, 65), "input 0: expected tensor<?x?x64xf32>, got tensor<2x7x65xf32> "
                            "(dimension 2 is 65, must be 64)"),
    # token ids in (run_model.py's gpt_tiny and bert_tiny: vocabulary 61,
    # 24 positions); bert_tiny's second input is its attention mask, of
    # the ids' shape, padding zeros at the end of rows past the first.
    # A sequence longer than the causal mask buffer, or a mask of another
    # length than the ids, is refused (the relation the broadcast needs).
    "gpt_tiny": ({0: "batch", 1: "seq"}, [(1, 1), (2, 11), (3, 24)],
                 (1, 25), "dimension 1 is 25, must equal"),
    "bert_tiny": ({0: "batch", 1: "seq"}, [(1, 5), (2, 11), (3, 24)],
                  (2, 7), "input 1 dimension 1 is 8, must equal input 0 dimension 1 (7)"),
}
TOKENS = {"gpt_tiny": 1, "bert_tiny": 2}  # models taking int64 ids (and a mask): their input count


def inputs(name, shape, torch, g, bad=False):
    """The inputs at SHAPE: one f32 tensor, or token ids (and a mask,
    one position longer when BAD)."""
    if name not in TOKENS:
        return [torch.randn(*shape, generator=g)]
    xs = [torch.randint(0, 61, shape, generator=g)]
    if TOKENS[name] == 2:
        batch, seq = shape[0], shape[1] + (1 if bad else 0)
        mask = torch.ones(batch, seq, dtype=torch.int64)
        for b in range(1, batch):
            mask[b, seq - min(seq - 1, b * seq // 4):] = 0
        xs.append(mask)
    return xs


def build(name, torch):
    if name != "encoder":
        return run_model.build(name, torch)[0]
    torch.manual_seed(run_model.SEED)
    layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
    return torch.nn.TransformerEncoder(layer, num_layers=2).eval()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model", choices=sorted(MODELS))
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--device", default="local-task")
    ap.add_argument("--tol", type=float, default=1e-3)
    args = ap.parse_args()
    try:
        import torch
        if args.model in ("resnet18", "mobilenet_v2"):
            import torchvision  # noqa: F401
    except ImportError as e:
        print("skipped: %s (install python3-torch python3-torchvision: scripts/bootstrap.sh)" % e)
        return 77
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    axes, shapes, bad_shape, bad_msg = MODELS[args.model]
    work = os.path.join(args.work, "dynamic_" + args.model)
    os.makedirs(work, exist_ok=True)
    onnx_path, kiln = os.path.join(work, "model.onnx"), os.path.join(work, "model.kiln")
    m = build(args.model, torch)
    g = torch.Generator().manual_seed(run_model.SEED + 2)
    example = inputs(args.model, shapes[-1], torch, g)
    names = ["x"] + ["x%d" % i for i in range(1, len(example))]
    dyn = {n: axes for n in names + ["y"]}
    torch.onnx.export(m, tuple(example), onnx_path, opset_version=17, input_names=names, output_names=["y"],
                      dynamic_axes=dyn)
    t0 = time.monotonic()
    c = subprocess.run([args.compile, onnx_path, "-o", kiln], capture_output=True, text=True)
    if c.returncode != 0:
        print("FAIL: compile error:\n" + c.stderr.strip())
        return 1
    print("%s: one module with dynamic axes %s, compiled in %.2f s" % (args.model, axes, time.monotonic() - t0))
    x_paths, y_path = [os.path.join(work, "x%d.npy" % i) for i in range(len(names))], os.path.join(work, "y.npy")
    feeds = ["--input=@" + p for p in x_paths]
    for shape in shapes:
        xs = inputs(args.model, shape, torch, g)
        with torch.no_grad():
            want = m(*xs)
        want = (want[0] if isinstance(want, tuple) else want).numpy()
        for p, x in zip(x_paths, xs):
            np.save(p, x.numpy())
        if os.path.exists(y_path):
            os.remove(y_path)
        r = subprocess.run([args.run, "--module=" + kiln, "--device=" + args.device,
                            "--output=@" + y_path] + feeds, capture_output=True, text=True)
        if r.returncode != 0:
            print("FAIL: run at %s:\n%s" % (shape, r.stderr.strip()))
            return 1
        got = np.load(y_path)
        if got.shape != want.shape:
            print("FAIL: at %s the output is %s, PyTorch gives %s" % (shape, got.shape, want.shape))
            return 1
        err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))))
        if not np.isfinite(err) or err > args.tol:
            print("FAIL: at %s the max abs error %.3g exceeds %g" % (shape, err, args.tol))
            return 1
        print("%s: input %s -> output %s, max abs error %.3g" % (args.model, shape, got.shape, err))
    if args.model in TOKENS:
        for p, x in zip(x_paths, inputs(args.model, bad_shape, torch, g, bad=True)):
            np.save(p, x.numpy())
    else:
        np.save(x_paths[0], np.zeros(bad_shape, np.float32))
    r = subprocess.run([args.run, "--module=" + kiln, "--device=" + args.device] + feeds,
                       capture_output=True, text=True)
    if r.returncode == 0 or bad_msg not in r.stderr:
        print("FAIL: input %s should be refused with '%s', got:\n%s" % (bad_shape, bad_msg, r.stderr.strip()))
        return 1
    print("%s: input %s refused: %s" % (args.model, bad_shape, r.stderr.strip()))
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
