#!/usr/bin/python3
"""Constant-input variants of ONNX backend node tests, run end to end.

usage: const_variants.py --nodes=NODE_DIR --out=OUT_DIR --cases=CASES
           --expected=EXPECTED -- RUN_CONFORMANCE_ARGS...

Many node tests feed shape-like operands (Resize scales/sizes, Pad pads,
Reshape shape, Slice starts, ...) as graph inputs, which a static-shape
compiler refuses; real models carry them as initializers. For each line
`TEST INPUT[,INPUT...]` of CASES this writes OUT_DIR/TEST/ with those
graph inputs turned into initializers holding the test's own input data
(the remaining inputs renumbered in test_data_set_0, outputs unchanged),
so the importer's constant paths are checked against ONNX's outputs.
It then runs run_conformance.py (next to the node tests' runner, in
tests/onnx) on OUT_DIR with EXPECTED as the list of expected passes and
the given arguments (--compile=, --run=, --import=, ...), and exits with
its status (77: python3-onnx missing or tools not built).
"""
import os
import shutil
import subprocess
import sys

try:
    import onnx
    from onnx import numpy_helper
except ImportError as e:
    print("skipped: python3-onnx is missing (%s)" % e)
    sys.exit(77)


def load_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return t


def make_variant(src, dst, names):
    model = onnx.load(os.path.join(src, "model.onnx"))
    data = os.path.join(src, "test_data_set_0")
    inputs = list(model.graph.input)
    keep = []
    for k, vi in enumerate(inputs):
        path = os.path.join(data, "input_%d.pb" % k)
        if vi.name in names:
            t = load_tensor(path)
            t.name = vi.name
            model.graph.initializer.append(t)
        else:
            keep.append((vi, path))
    missing = set(names) - {vi.name for vi in inputs}
    if missing:
        raise SystemExit("const_variants: %s has no graph input %s" % (src, sorted(missing)))
    del model.graph.input[:]
    model.graph.input.extend(vi for vi, _ in keep)
    out_data = os.path.join(dst, "test_data_set_0")
    os.makedirs(out_data)
    onnx.save(model, os.path.join(dst, "model.onnx"))
    for k, (_, path) in enumerate(keep):
        shutil.copy(path, os.path.join(out_data, "input_%d.pb" % k))
    for f in os.listdir(data):
        if f.startswith("output_"):
            shutil.copy(os.path.join(data, f), os.path.join(out_data, f))


def main():
    argv = sys.argv[1:]
    rest = argv[argv.index("--") + 1:] if "--" in argv else []
    opts = dict(a[2:].split("=", 1) for a in (argv[:argv.index("--")] if "--" in argv else argv))
    nodes, out, cases = opts["nodes"], opts["out"], opts["cases"]
    if not os.path.isdir(nodes):
        print("const_variants: no node tests in %s (the onnx_nodes fixture writes them)" % nodes)
        return 1
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    n = 0
    with open(cases) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            name, inputs = line[0], line[1].split(",")
            make_variant(os.path.join(nodes, name), os.path.join(out, name), set(inputs))
            n += 1
    print("const_variants: %d variants in %s" % (n, out), flush=True)
    runner = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "onnx",
                          "run_conformance.py")
    return subprocess.call([sys.executable, runner, "--nodes=" + out,
                            "--work=" + out + "-work", "--expected=" + opts["expected"]] + rest)


if __name__ == "__main__":
    sys.exit(main())
