#!/usr/bin/python3
"""e2e.runtime.trace_dispatches: kiln-run --trace-dispatches=DIR on an ONNX
graph built here with python3-onnx (MatMul+Add+Relu, MatMul+Add, Softmax;
named nodes), compiled by kiln-compile, on local-sync and the pool device.
Checks index.json (one entry per dispatch, sequence numbers in order, the
ONNX node names attached), that the files hold the bytes the dispatches
saw (the first dispatch's input is the graph input, each dispatch's output
is read by a later one, the last output is kiln-run's result),
--trace-dispatches-filter (only matching dispatches, sequence numbers kept)
and the flag errors. Skips (77) without python3-onnx or numpy.

usage: trace_dispatches.py KILN_COMPILE KILN_RUN WORK POOL_DEVICE"""
import json
import os
import shutil
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def build_model(path, np, onnx):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.RandomState(3)
    inits = [numpy_helper.from_array(rng.randn(*s).astype(np.float32), n)
             for n, s in (("w1", (16, 32)), ("b1", (32,)), ("w2", (32, 8)), ("b2", (8,)))]
    nodes = [helper.make_node("MatMul", ["x", "w1"], ["h0"], name="fc1_matmul"),
             helper.make_node("Add", ["h0", "b1"], ["h1"], name="fc1_bias"),
             helper.make_node("Relu", ["h1"], ["h2"], name="fc1_relu"),
             helper.make_node("MatMul", ["h2", "w2"], ["h3"], name="fc2_matmul"),
             helper.make_node("Add", ["h3", "b2"], ["h4"], name="fc2_bias"),
             helper.make_node("Softmax", ["h4"], ["y"], axis=-1, name="head_softmax")]
    g = helper.make_graph(nodes, "trace_mlp",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 8])],
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(m, path)


def run(cmd, expect=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != expect:
        fail("%s exited %d (expected %d):\n%s%s" % (" ".join(cmd), r.returncode,
                                                    expect, r.stdout, r.stderr))
    return r


def main():
    compile_, kiln_run, work, pool = sys.argv[1:5]
    try:
        import numpy as np
        import onnx
    except ImportError as e:
        print("skipped: %s (python3-onnx, python3-numpy: scripts/bootstrap.sh)" % e)
        return 77
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "trace_mlp.onnx")
    module = os.path.join(work, "trace_mlp.kiln")
    build_model(model, np, onnx)
    run([compile_, model, "-o", module])
    x = np.random.RandomState(4).randn(4, 16).astype(np.float32)
    xin = os.path.join(work, "x.npy")
    np.save(xin, x)
    for device in sorted({"local-sync", pool}):
        out = os.path.join(work, "y.%s.npy" % device)
        tdir = os.path.join(work, "trace." + device)
        shutil.rmtree(tdir, ignore_errors=True)
        run([kiln_run, "--module=" + module, "--device=" + device, "--input=@" + xin,
             "--output=@" + out, "--trace-dispatches=" + tdir])
        y = np.load(out)
        with open(os.path.join(tdir, "index.json")) as f:
            index = json.load(f)
        if len(index) < 2:
            fail("%s: %d dispatches traced, expected at least 2" % (device, len(index)))
        if [e["seq"] for e in index] != list(range(len(index))):
            fail("%s: sequence numbers %s" % (device, [e["seq"] for e in index]))
        names = {n["name"] for e in index for n in e["nodes"]}
        want = {"fc1_matmul", "fc1_relu", "fc2_matmul", "head_softmax"}
        if not want <= names:
            fail("%s: node names %s lack %s" % (device, sorted(names), sorted(want - names)))

        def load(e, kind):
            return [np.load(os.path.join(tdir, b["file"])) for b in e["bindings"]
                    if b["kind"] == kind]
        for e in index:
            for b in e["bindings"]:
                a = np.load(os.path.join(tdir, b["file"]))
                if a.dtype != np.uint8 or a.shape != (b["bytes"],):
                    fail("%s: %s holds %s %s, index says %d bytes" % (
                        device, b["file"], a.dtype, a.shape, b["bytes"]))
        if not any(np.array_equal(i.view(np.float32), x.ravel()) for i in load(index[0], "in")):
            fail("%s: no input of the first dispatch is the graph input" % device)
        for k, e in enumerate(index[:-1]):
            later = [i.tobytes() for l in index[k + 1:] for i in load(l, "in")]
            for o in load(e, "out"):
                if o.tobytes() not in later:
                    fail("%s: dispatch %d's output is no later dispatch's input" % (device, k))
        if not any(np.array_equal(o.view(np.float32).reshape(y.shape), y)
                   for o in load(index[-1], "out")):
            fail("%s: the last dispatch's output is not kiln-run's result" % device)
        print("%s: %d dispatches traced, nodes %s" % (device, len(index), sorted(names)))

        # The filter keeps dispatches whose node (or export) names match.
        fdir = tdir + ".filtered"
        shutil.rmtree(fdir, ignore_errors=True)
        run([kiln_run, "--module=" + module, "--device=" + device, "--input=@" + xin,
             "--trace-dispatches=" + fdir, "--trace-dispatches-filter=^head_"])
        with open(os.path.join(fdir, "index.json")) as f:
            filtered = json.load(f)
        expect = [e["seq"] for e in index if any(n["name"].startswith("head_") for n in e["nodes"])]
        if not expect or [e["seq"] for e in filtered] != expect:
            fail("%s: filtered seqs %s, expected %s" % (
                device, [e["seq"] for e in filtered], expect))
        files = sorted(f for f in os.listdir(fdir) if f.endswith(".npy"))
        if len(files) != sum(len(e["bindings"]) for e in filtered):
            fail("%s: %d files for the filtered index" % (device, len(files)))
        print("%s: filter ^head_ kept dispatches %s" % (device, expect))

    r = run([kiln_run, "--module=" + module, "--input=@" + xin,
             "--trace-dispatches-filter=x"], expect=2)
    if "needs --trace-dispatches" not in r.stderr:
        fail("filter without a directory: " + r.stderr)
    r = run([kiln_run, "--module=" + module, "--input=@" + xin,
             "--trace-dispatches=" + os.path.join(work, "bad"),
             "--trace-dispatches-filter=("], expect=1)
    if "--trace-dispatches-filter '('" not in r.stderr:
        fail("bad regex: " + r.stderr)
    r = run([kiln_run, "--module=" + module, "--input=@" + xin,
             "--trace-dispatches=" + os.path.join(work, "no", "such", "dir")], expect=1)
    if "cannot create" not in r.stderr:
        fail("missing parent directory: " + r.stderr)
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
