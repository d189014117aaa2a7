#!/usr/bin/python3
"""e2e: ONNX NonMaxSuppression, whose output length is decided by the
data. One model (built here with python3-onnx) with two NMS nodes (corner
boxes with every optional input given at run time; center boxes with no
score threshold) is compiled once and run with several inputs: random
boxes, ties, zero-area and flipped boxes, limits of 0, negative and 2^40
(clamped to the box count), thresholds 0 and 1. The selection runs as one
sequential kernel; the host reads the number of picks after it (the
plan-memory phase mechanism) and returns that many rows. Results are
compared with a plain Python greedy selection written here. Bad calls (a
box count, class count or limit shape the module was not compiled for)
must fail naming the input, dimension and value. On the CPU devices a
second model takes boxes [b, n, 4] and scores [b, c, n] with run-time
b, c, n (one module): run at (2, 3, 37) on two of the input sets, at
(1, 1, 1), (3, 2, 5) and with no boxes (1, 2, 0); scores whose b or n
differ from the boxes' are refused naming both dimensions.

usage: onnx_nms.py KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR DEVICE
DEVICE local-sync / local-task runs the module there; gpu compiles it for
cuda sm_80 + sm_90 + llvm-cpu, assembles the PTX with ptxas (skipped with
the reason when it is missing), runs the CPU variant and the SIMT-on-CPU
variant of each SM. Skips (77) when python3-onnx is missing. Prints
'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

import onnx_e2e
B, C, N = 2, 3, 37


def build(path):
    import onnx
    from onnx import TensorProto, helper
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    nodes = [
        helper.make_node("NonMaxSuppression", ["boxes", "scores", "kmax", "iou", "sthr"], ["sel"], name="nms"),
        helper.make_node("NonMaxSuppression", ["cboxes", "scores", "kmax", "iou"], ["csel"], name="nms_center",
                         center_point_box=1),
    ]
    graph = helper.make_graph(
        nodes, "nms",
        [vi("boxes", f32, [B, N, 4]), vi("scores", f32, [B, C, N]), vi("kmax", i64, [1]), vi("iou", f32, [1]),
         vi("sthr", f32, []), vi("cboxes", f32, [B, N, 4])],
        [vi("sel", i64, None), vi("csel", i64, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), path)


def build_dyn(path):
    import onnx
    from onnx import TensorProto, helper
    i64, f32 = TensorProto.INT64, TensorProto.FLOAT
    vi = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("NonMaxSuppression", ["boxes", "scores", "kmax", "iou", "sthr"], ["sel"], name="nms")],
        "nms_dyn",
        [vi("boxes", f32, ["b", "n", 4]), vi("scores", f32, ["b", "c", "n"]), vi("kmax", i64, [1]),
         vi("iou", f32, [1]), vi("sthr", f32, [])],
        [vi("sel", i64, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]), path)


def iou_over(a, b, thr):
    """ONNX Runtime's test: IoU > thr, never for disjoint or empty boxes."""
    y0, x0 = max(a[0], b[0]), max(a[1], b[1])
    y1, x1 = min(a[2], b[2]), min(a[3], b[3])
    if y1 <= y0 or x1 <= x0:
        return False
    inter = (y1 - y0) * (x1 - x0)
    aa = (a[2] - a[0]) * (a[3] - a[1])
    ab = (b[2] - b[0]) * (b[3] - b[1])
    if aa <= 0 or ab <= 0:
        return False
    union = aa + ab - inter
    return union > 0 and inter / union > thr


def corners(box, center):
    box = box.astype(np.float32)
    if center:
        xc, yc, w, h = box
        hw, hh = w * np.float32(0.5), h * np.float32(0.5)
        return [yc - hh, xc - hw, yc + hh, xc + hw]
    y1, x1, y2, x2 = box
    return [min(y1, y2), min(x1, x2), max(y1, y2), max(x1, x2)]


def nms(boxes, scores, kmax, iou, sthr, center):
    out = []
    limit = min(max(int(kmax), 0), boxes.shape[1])
    for b in range(boxes.shape[0]):
        q = [corners(boxes[b, i], center) for i in range(boxes.shape[1])]
        for c in range(scores.shape[1]):
            s = scores[b, c]
            # highest score first, the lower index among equal scores
            order = sorted((i for i in range(len(s)) if sthr is None or s[i] > sthr), key=lambda i: (-s[i], i))
            picked = []
            for i in order:
                if len(picked) == limit:
                    break
                if all(not iou_over(q[p], q[i], iou) for p in picked):
                    picked.append(i)
            out += [[b, c, i] for i in picked]
    return np.array(out, np.int64).reshape(-1, 3)


def expect(ins):
    boxes, scores, kmax, iou, sthr, cboxes = ins
    return [nms(boxes, scores, kmax[0], iou[0], sthr, False), nms(cboxes, scores, kmax[0], iou[0], None, True)]


def inputs(rng):
    def boxes(spread):
        lo = rng.uniform(0, spread, (B, N, 2)).astype(np.float32)
        size = rng.uniform(0.5, 3, (B, N, 2)).astype(np.float32)
        b = np.concatenate([lo, lo + size], axis=2)
        return b

    def cbox(b):
        return np.concatenate([(b[..., 1:2] + b[..., 3:4]) / 2, (b[..., 0:1] + b[..., 2:3]) / 2,
                               b[..., 3:4] - b[..., 1:2], b[..., 2:3] - b[..., 0:1]], axis=2).astype(np.float32)

    a = lambda v: np.array([v], np.int64)
    f = lambda v: np.array([v], np.float32)
    s0 = lambda v: np.array(v, np.float32)
    b0 = boxes(8)
    sc = rng.uniform(0, 1, (B, C, N)).astype(np.float32)
    flipped = b0[..., [2, 3, 0, 1]].copy()  # the other diagonal: same boxes
    ties = np.round(sc * 4) / 4  # many equal scores: lower index first
    flat = b0.copy()
    flat[:, ::3, 2] = flat[:, ::3, 0]  # zero height: overlaps nothing
    return [
        [b0, sc, a(5), f(0.5), s0(0.2), cbox(b0)],
        [flipped, ties, a(1 << 40), f(0.3), s0(0.0), cbox(b0)],
        [flat, sc, a(N + 3), f(0.0), s0(0.5), cbox(flat)],
        [b0, sc, a(0), f(0.5), s0(0.0), cbox(b0)],    # no picks at all
        [b0, sc, a(-3), f(0.5), s0(0.0), cbox(b0)],   # negative: none either
        [boxes(2), ties, a(4), f(1.0), s0(-1.0), cbox(boxes(2))],  # iou 1: nothing suppressed
    ]


def run(kr, module, device, ins, tag, work):
    argv = [kr, "--module=" + module, "--device=" + device]
    for k, v in enumerate(ins):
        p = os.path.join(work, "%s_in%d.npy" % (tag, k))
        np.save(p, v)
        argv.append("--input=@" + p)
    outs = [os.path.join(work, "%s_out%d.npy" % (tag, k)) for k in range(2)]
    argv += ["--output=@" + p for p in outs]
    print("$ " + " ".join(argv))
    r = subprocess.run(argv, capture_output=True, text=True)
    return r, outs


def check(r, outs, want, what):
    if r.returncode != 0:
        print(r.stderr)
        return False
    ok = True
    for j, w in enumerate(want):
        got = np.load(outs[j])
        same = got.shape == w.shape and got.dtype == w.dtype and np.array_equal(got, w)
        print("%s result %d %s: %s" % (what, j, got.shape, "ok" if same else "MISMATCH, want %s %s got %s" %
                                       (w.shape, w.tolist(), got.tolist())))
        ok = ok and same
    return ok


def main(argv):
    kc, kr, kd, work, device = argv[1:6]
    status, model, module = onnx_e2e.prepare(work, build, stem="nms")
    if status:
        return status
    rng = np.random.RandomState(11)
    sets = inputs(rng)
    tally = onnx_e2e.Tally()
    if device == "gpu":
        runs = onnx_e2e.gpu_modules(kc, kd, model, work, "nms", tally)
        for k, ins in enumerate(sets):
            want = expect(ins)
            for j, (m, what) in enumerate(runs):
                r, outs = run(kr, m, "local-sync", ins, "g%d_%d" % (k, j), work)
                tally(check(r, outs, want, "%s set %d" % (what, k)))
        return tally.done()

    if not onnx_e2e.compile_model(kc, model, module, []):
        print("0 passed, 1 failed")
        return 1
    for k, ins in enumerate(sets):
        r, outs = run(kr, module, device, ins, "good%d" % k, work)
        tally(check(r, outs, expect(ins), "set %d" % k))
    base = sets[0]
    bad = [  # (input index, value, what the message must say)
        (0, np.zeros((B, N + 1, 4), np.float32), ["input 0", "dimension 1 is %d" % (N + 1)]),
        (1, np.zeros((B, C + 1, N), np.float32), ["input 1", "dimension 1 is %d" % (C + 1)]),
        (2, np.array([3, 4], np.int64), ["input 2", "dimension 0 is 2"]),
    ]
    onnx_e2e.check_refusals(lambda tag, ins: run(kr, module, device, ins, tag, work)[0], base, bad, tally)

    # run-time B, C, N: one module for every count
    dmodel, dmodule = os.path.join(work, "nms_dyn.onnx"), os.path.join(work, "nms_dyn.kiln")
    build_dyn(dmodel)
    ok = onnx_e2e.compile_model(kc, dmodel, dmodule, [])
    tally(ok)
    if ok:
        dsets = [s[:5] for s in sets[:2]]
        for b, c, n in ((1, 1, 1), (3, 2, 5), (1, 2, 0)):
            lo = rng.uniform(0, 3, (b, n, 2)).astype(np.float32)
            bx = np.concatenate([lo, lo + rng.uniform(0.5, 2, (b, n, 2)).astype(np.float32)], axis=2)
            dsets.append([bx, rng.uniform(0, 1, (b, c, n)).astype(np.float32), np.array([2], np.int64),
                          np.array([0.3], np.float32), np.array(0.1, np.float32)])
        for k, ins in enumerate(dsets):
            r = onnx_e2e.run_module(kr, dmodule, device, work, "dyn%d" % k, ins, 1)
            outs = [os.path.join(work, "dyn%d_out0.npy" % k)]
            tally(check(r, outs, [nms(ins[0], ins[1], ins[2][0], ins[3][0], ins[4], False)],
                        "run-time counts %s" % (ins[1].shape,)))
        bad = [(1, np.zeros((B + 1, C, N), np.float32), ["input 0 dimension 0", "input 1 dimension 0"]),
               (1, np.zeros((B, C, N - 1), np.float32), ["input 0 dimension 1", "input 1 dimension 2"])]
        onnx_e2e.check_refusals(
            lambda tag, ins: onnx_e2e.run_module(kr, dmodule, device, work, "dyn_" + tag, ins, 1), dsets[0], bad, tally)
    return tally.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
