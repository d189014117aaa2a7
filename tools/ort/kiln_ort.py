"""ONNX Runtime as a numeric reference, for tests, benches and tools.

Takes: nothing but this checkout (or KILN_ORT_MODULES / KILN_NODE from the
environment). Guarantees: find() names Node.js and the node_modules folder
that holds npm onnxruntime-node (scripts/bootstrap.sh installs it into
.deps/npm/node_modules of this checkout), or raises OrtMissing saying what
is missing and how to get it; run() evaluates an ONNX model on ONNX
Runtime's CPU provider through ort_run.js and returns the named outputs as
numpy arrays; run_many() does the same for many input sets in one Node
process on one session (a process per sample cost about 0.5-3 s each in
the quantized-model tests, most of their time). This is the one place that knows where ONNX Runtime lives:
scripts import it instead of looking for it themselves.
"""
import json
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DEFAULT_MODULES = os.path.join(ROOT, ".deps", "npm", "node_modules")
RUNNER = os.path.join(HERE, "ort_run.js")


class OrtMissing(RuntimeError):
    pass


def find(modules=None):
    """(node, node_modules): MODULES, else $KILN_ORT_MODULES, else this
    checkout's .deps/npm/node_modules; node from $KILN_NODE or PATH."""
    modules = os.path.abspath(modules or os.environ.get("KILN_ORT_MODULES") or DEFAULT_MODULES)
    node = os.environ.get("KILN_NODE") or shutil.which("node") or shutil.which("nodejs")
    if not node:
        raise OrtMissing("Node.js (node) not found on PATH: run scripts/bootstrap.sh")
    if not os.path.isfile(os.path.join(modules, "onnxruntime-node", "package.json")):
        raise OrtMissing("no onnxruntime-node in %s: run scripts/bootstrap.sh (it installs "
                         "npm onnxruntime-node there) or set KILN_ORT_MODULES" % modules)
    return node, modules


def version(modules=None):
    _, modules = find(modules)
    with open(os.path.join(modules, "onnxruntime-node", "package.json")) as f:
        return json.load(f)["version"]


def run(model, inputs, outputs=None, modules=None, threads=1, optimize=True):
    """Runs MODEL (a path) on INPUTS ({name: numpy array}) and returns
    {name: numpy array} for OUTPUTS (default: the model's graph outputs).
    optimize=False turns ONNX Runtime's graph optimizations off, so every
    intermediate value a caller exposed as a graph output is computed as the
    graph states it."""
    return list(run_many(model, [inputs], outputs, modules, threads, optimize))[0]


def run_many(model, samples, outputs=None, modules=None, threads=1, optimize=True):
    """run() on each input dict of SAMPLES in turn, one ONNX Runtime session
    for all; yields one {name: numpy array} a sample, in order, loading each
    sample's outputs only when it is reached (a caller reducing
    calibration tensors holds one sample's at a time)."""
    import numpy as np
    node, modules = find(modules)
    samples = list(samples)
    if not samples:
        return
    with tempfile.TemporaryDirectory(prefix="kiln-ort-") as work:
        args = [node, RUNNER, modules, model, work, str(threads), "1" if optimize else "0"]
        for k, inputs in enumerate(samples):
            if k:
                args.append("--sample")
            for i, (name, value) in enumerate(inputs.items()):
                path = os.path.join(work, "s%d_in%d.npy" % (k, i))
                np.save(path, np.ascontiguousarray(value))
                args.append("--input=%s=%s" % (name, path))
        for name in outputs or []:
            args.append("--output=" + name)
        r = subprocess.run(args, capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("ONNX Runtime failed on %s: %s" % (model, r.stderr.strip()))
        with open(os.path.join(work, "outputs.json")) as f:
            index = json.load(f)
        if len(index) != len(samples):
            raise RuntimeError("ONNX Runtime gave %d output sets for %d samples on %s"
                               % (len(index), len(samples), model))
        for entries in index:
            yield {e["name"]: np.load(os.path.join(work, e["file"])) for e in entries}
