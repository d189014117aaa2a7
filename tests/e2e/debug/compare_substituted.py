#!/usr/bin/python3
"""e2e.debug.compare_substituted (issue 22, must-show 1): kiln-compare names
a deliberately wrong kernel's dispatch as the first divergence.

A small CNN (Conv+Relu, Conv+Relu, MaxPool, GlobalAveragePool, Flatten,
Gemm; named nodes) built here with python3-onnx is compiled to hal text
(--compile-to=hal --print-debuginfo). The module compiled from that text
agrees with ONNX Runtime at every compared dispatch (kiln-compare exits 0)
and names the same nodes as one compiled from the ONNX file. Then one
dispatch, the second kiln-compare could compare (so an earlier one stays
right), is replaced through --substitute-executable by a kernel written
here in C against format/include/kiln/executable_abi.h that fills its
outputs with 0.5, and kiln-compare must exit 1 naming that dispatch first,
with its executable and its ONNX nodes. Also: a model with its weights in
an external data file compares, and without ONNX Runtime kiln-compare
exits 2 saying how to install it. Needs ONNX Runtime
(scripts/bootstrap.sh installs it): without it the test fails, never skips.

usage: compare_substituted.py KILN_COMPILE KILN_RUN KILN_DUMP CLANG LLD WORK
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
COMPARE = os.path.join(ROOT, "tools", "kiln-compare", "kiln-compare")
sys.path.insert(0, HERE)
from debug_util import TARGET, fail, run, wrong_kernel  # noqa: E402

def build_model(path, np, onnx):
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.RandomState(5)

    def w(name, *shape):
        return numpy_helper.from_array((rng.randn(*shape) * 0.3).astype(np.float32), name)

    inits = [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 8, 8, 3, 3), w("b2", 8),
             w("wf", 10, 8), w("bf", 10)]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="/conv1/Conv", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"], name="/relu1/Relu"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="/conv2/Conv", pads=[1] * 4),
             helper.make_node("Relu", ["c2"], ["r2"], name="/relu2/Relu"),
             helper.make_node("MaxPool", ["r2"], ["p"], name="/pool/MaxPool",
                              kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("GlobalAveragePool", ["p"], ["g"], name="/gap/GlobalAveragePool"),
             helper.make_node("Flatten", ["g"], ["f"], name="/flatten/Flatten"),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="/fc/Gemm", transB=1)]
    g = helper.make_graph(nodes, "compare_cnn",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def compare(model, module, kiln_run, work, name, expect):
    report = os.path.join(work, name + ".json")
    r = run([sys.executable, COMPARE, model, "--module=" + module, "--kiln-run=" + kiln_run,
             "--work=" + os.path.join(work, name), "--json=" + report, "--all"], expect)
    print(r.stdout)
    with open(report) as f:
        return json.load(f), r.stdout


def main():
    compile_, kiln_run, kiln_dump, clang, lld, work = sys.argv[1:7]
    import numpy as np
    import onnx
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "cnn.onnx")
    build_model(model, np, onnx)
    hal = os.path.join(work, "cnn.hal.mlir")
    run([compile_, model, TARGET, "--compile-to=hal", "--print-debuginfo", "-o", hal])
    good = os.path.join(work, "good.kiln")
    run([compile_, hal, TARGET, "-o", good])
    direct = os.path.join(work, "direct.kiln")
    run([compile_, model, TARGET, "-o", direct])

    def nodes(module):
        return sorted(l.split("-> nodes:")[1].strip() for l in run([kiln_dump, module]).stdout
                      .splitlines() if "dispatch at pc" in l and "-> nodes:" in l)
    if nodes(good) != nodes(direct) or not nodes(good):
        fail("dispatch nodes differ after the hal text round trip:\n%s\n%s"
             % (nodes(good), nodes(direct)))

    rep, _ = compare(model, good, kiln_run, work, "good", 0)
    compared = [d for d in rep["dispatches"] if d["compared"]]
    if len(compared) < 3:
        fail("only %d dispatches compared, expected at least 3" % len(compared))
    target = compared[1]
    exe = target["export"]
    with open(hal) as f:
        if 'sym_name = "%s"' % exe not in f.read():
            fail("hal text has no executable @%s" % exe)
    exports = [x for e in json.loads(run([kiln_dump, "--json", good]).stdout)["executables"]
               for x in e["exports"] if x["name"] == exe]
    if len(exports) != 1:
        fail("kiln-dump --json lists %d exports named %s" % (len(exports), exe))
    so = wrong_kernel(exports[0], clang, lld, work)
    bad = os.path.join(work, "bad.kiln")
    run([compile_, hal, TARGET, "--substitute-executable=%s=%s" % (exe, so), "-o", bad])
    rep, out = compare(model, bad, kiln_run, work, "bad", 1)
    if rep["first_divergence"] != target["seq"]:
        fail("first divergence %s, expected dispatch %d (%s)"
             % (rep["first_divergence"], target["seq"], exe))
    want = "first divergence: dispatch %d, " % target["seq"]
    line = next((l for l in out.splitlines() if l.startswith(want)), None)
    if not line or exe not in line or not all(n in line for n in target["nodes"]):
        fail("the report does not name dispatch %d, %s and its nodes %s"
             % (target["seq"], exe, target["nodes"]))
    print("ok: the substituted %s (dispatch %d, nodes %s) is the first divergence"
          % (exe, target["seq"], ", ".join(target["nodes"])))

    # Weights in an external data file: ONNX Runtime still finds them.
    ext_dir = os.path.join(work, "external")
    os.makedirs(ext_dir, exist_ok=True)
    ext = os.path.join(ext_dir, "cnn_ext.onnx")
    onnx.save(onnx.load(model), ext, save_as_external_data=True, location="cnn_ext.data",
              size_threshold=0)
    ext_rep, _ = compare(ext, good, kiln_run, work, "external", 0)
    if ext_rep["first_divergence"] is not None:
        fail("external data: %s" % ext_rep["first_divergence"])
    # Without ONNX Runtime it stops with exit 2 and says how to get it.
    env = dict(os.environ, KILN_ORT_MODULES=os.path.join(work, "no_such_node_modules"))
    r = subprocess.run([sys.executable, COMPARE, model, "--module=" + good,
                        "--kiln-run=" + kiln_run], capture_output=True, text=True, env=env)
    if r.returncode != 2 or "scripts/bootstrap.sh" not in r.stderr:
        fail("without ONNX Runtime: exit %d, %s" % (r.returncode, r.stderr))
    return 0


if __name__ == "__main__":
    sys.exit(main())
