#!/usr/bin/python3
"""The ONNX backend node tests end to end: kiln-compile each model, run it
with kiln-run on test_data_set_0 and compare with the expected outputs
(ONNX's tolerances: rtol 1e-3, atol 1e-7 for floats; exact for integers
and bools).

usage: run_nodes.py KILN_COMPILE KILN_RUN NODE_DIR WORKDIR EXPECTED [DEVICE] [NAME...]

A test is
  passed   compiled, ran, and every output matches,
  skipped  refused by the compiler as unsupported (the importer's
           "onnx: unsupported:" / opset errors, a stage not built): counted
           by op type,
  failed   anything else: a compile error, a run error, a mismatch.
Prints every failure, the skip histogram and `N passed, N failed, N
skipped`. Exits 1 when a test named in EXPECTED (one name a line, '#'
comments; the list may only grow) did not pass; other failures are
reported but tolerated until they are listed. NAMEs restrict the run.
"""
import collections
import os
import re
import subprocess
import sys

import numpy as np


def load_tensor(path):
    from onnx import TensorProto, numpy_helper
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def compare(got, want):
    if got.shape != want.shape:
        return "shape %s, expected %s" % (got.shape, want.shape)
    if want.dtype.kind in "fc":
        g, w = got.astype(np.float64), want.astype(np.float64)
        if not np.allclose(g, w, rtol=1e-3, atol=1e-7, equal_nan=True):
            return "max abs error %g" % np.nanmax(np.abs(g - w))
        return None
    if want.dtype == np.bool_:
        got = got.astype(np.bool_)
    elif got.dtype != want.dtype:
        got = got.view(want.dtype) if got.itemsize == want.itemsize else got.astype(want.dtype)
    return None if np.array_equal(got, want) else "values differ"


def skip_key(msg):
    m = re.search(r"\(([A-Za-z0-9_]+), opset \d+\)", msg)
    if m:
        return m.group(1)
    if "onnx: opset:" in msg:
        return "(opset outside 13..17)"
    if "graph input" in msg:
        return "(graph input type)"
    return "(other)"


def run_one(compile_, run, root, work, name, device):
    import onnx
    d = os.path.join(root, name)
    model = onnx.load(os.path.join(d, "model.onnx"))
    mod = os.path.join(work, name + ".kiln")
    c = subprocess.run([compile_, os.path.join(d, "model.onnx"), "-o", mod, "--target=llvm-cpu"],
                       capture_output=True, text=True, timeout=600)
    if c.returncode != 0:
        msg = c.stderr.strip()
        if "onnx: unsupported:" in msg or "onnx: opset:" in msg or "is not built yet" in msg:
            return "skip", skip_key(msg)
        return "fail", "kiln-compile: " + (msg.splitlines() or ["?"])[-1]
    inits = set(i.name for i in model.graph.initializer)
    inputs = [i for i in model.graph.input if i.name not in inits]
    args = [run, "--module=" + mod, "--function=" + model.graph.name, "--device=" + device]
    for k in range(len(inputs)):
        p = os.path.join(work, "%s.in%d.npy" % (name, k))
        np.save(p, load_tensor(os.path.join(d, "test_data_set_0", "input_%d.pb" % k)))
        args.append("--input=@" + p)
    outs = []
    for k in range(len(model.graph.output)):
        p = os.path.join(work, "%s.out%d.npy" % (name, k))
        if os.path.exists(p):
            os.remove(p)
        outs.append(p)
        args.append("--output=@" + p)
    r = subprocess.run(args, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return "fail", "kiln-run: " + (r.stderr.strip().splitlines() or ["?"])[-1]
    for k, p in enumerate(outs):
        why = compare(np.load(p), load_tensor(os.path.join(d, "test_data_set_0", "output_%d.pb" % k)))
        if why:
            return "fail", "output %d: %s" % (k, why)
    return "pass", None


def main(argv):
    if len(argv) < 6:
        print(__doc__)
        return 2
    compile_, run, root, work, expected = argv[1:6]
    device = argv[6] if len(argv) > 6 else "local-sync"
    only = set(argv[7:])
    try:
        import onnx  # noqa: F401
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return 77
    for tool in (compile_, run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    os.makedirs(work, exist_ok=True)
    names = sorted(n for n in os.listdir(root) if n.startswith("test_") and (not only or n in only))
    passed, failed, skipped = [], [], collections.Counter()
    for n in names:
        try:
            status, info = run_one(compile_, run, root, work, n, device)
        except subprocess.TimeoutExpired:
            status, info = "fail", "timed out"
        if status == "pass":
            passed.append(n)
        elif status == "skip":
            skipped[info] += 1
        else:
            failed.append(n)
            print("FAIL: %s: %s" % (n, info))
    print("skipped by op type: " + " ".join("%s=%d" % kv for kv in sorted(skipped.items(), key=lambda kv: (-kv[1], kv[0]))))
    rc = 0
    with open(expected) as f:
        listed = [l.split("#")[0].strip() for l in f]
    listed = [l for l in listed if l and (not only or l in only)]
    ok = set(passed)
    for l in listed:
        if l not in ok:
            print("FAIL: %s is in the expected list but did not pass" % l)
            rc = 1
    print("%d expected passes listed" % len(listed))
    print("%d passed, %d failed, %d skipped" % (len(passed), len(failed), sum(skipped.values())))
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
