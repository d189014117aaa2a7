#!/usr/bin/python3
"""e2e.debug.hal_roundtrip (issue 22): any module compiled to hal text
re-enters the pipeline, with substituted executables too.

For three ONNX models built here with python3-onnx (a CNN; a Transformer
encoder layer: attention, LayerNormalization, a ReLU feed-forward; the same
encoder with a dynamic sequence length), compiled for the host:
- `--compile-to=hal --print-debuginfo` text compiled on gives a module
  equivalent to the one compiled from the ONNX file: the same executables
  (variant content hashes), the same function signatures, byte-identical
  results on the same inputs (two sequence lengths for the dynamic one);
- printing hal again from that text gives the same text (a fixed point);
- with EVERY executable substituted (--substitute-executable, kernels
  that fill their outputs with 0.5: tests/e2e/debug/debug_util.py) the
  text still compiles: codegen gives each dispatch the workgroup count the
  generated kernel would have had, host code for dynamic sizes included
  (before, such a module failed in convert-to-vm: "'hal.command_buffer.
  dispatch' op has no 'workgroup_count'"), and it runs, every result 0.5.

usage: hal_roundtrip.py KILN_COMPILE KILN_RUN KILN_DUMP CLANG LLD WORK
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from debug_util import TARGET, fail, run, wrong_kernel  # noqa: E402


def cnn(np, helper, TensorProto, numpy_helper, rng):
    def w(name, *shape):
        return numpy_helper.from_array((rng.randn(*shape) * 0.3).astype(np.float32), name)
    inits = [w("w1", 8, 3, 3, 3), w("b1", 8), w("w2", 16, 8, 3, 3), w("b2", 16),
             w("wf", 10, 16), w("bf", 10)]
    nodes = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="/conv1/Conv", pads=[1] * 4),
             helper.make_node("Relu", ["c1"], ["r1"], name="/relu1/Relu"),
             helper.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="/conv2/Conv",
                              pads=[1] * 4, strides=[2, 2]),
             helper.make_node("Relu", ["c2"], ["r2"], name="/relu2/Relu"),
             helper.make_node("GlobalAveragePool", ["r2"], ["g"], name="/gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="/flatten"),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], name="/fc/Gemm", transB=1)]
    return nodes, inits, [1, 3, 16, 16], [1, 10]


def encoder(np, helper, TensorProto, numpy_helper, rng, seq):
    d, ff = 16, 32
    def w(name, *shape):
        return numpy_helper.from_array((rng.randn(*shape) * 0.3).astype(np.float32), name)
    inits = [w("wq", d, d), w("wk", d, d), w("wv", d, d), w("wo", d, d), w("g1", d), w("be1", d),
             w("w1", d, ff), w("bb1", ff), w("w2", ff, d), w("bb2", d), w("g2", d), w("be2", d),
             numpy_helper.from_array(np.array(0.25, np.float32), "scale")]
    mk = helper.make_node
    nodes = [mk("MatMul", ["x", "wq"], ["q"], name="/attn/q"),
             mk("MatMul", ["x", "wk"], ["k"], name="/attn/k"),
             mk("MatMul", ["x", "wv"], ["v"], name="/attn/v"),
             mk("Transpose", ["k"], ["kt"], name="/attn/kt", perm=[0, 2, 1]),
             mk("MatMul", ["q", "kt"], ["s"], name="/attn/qk"),
             mk("Mul", ["s", "scale"], ["ss"], name="/attn/scale"),
             mk("Softmax", ["ss"], ["p"], name="/attn/softmax", axis=-1),
             mk("MatMul", ["p", "v"], ["a"], name="/attn/pv"),
             mk("MatMul", ["a", "wo"], ["o"], name="/attn/out"),
             mk("Add", ["x", "o"], ["h"], name="/res1"),
             mk("LayerNormalization", ["h", "g1", "be1"], ["n1"], name="/norm1", axis=-1),
             mk("MatMul", ["n1", "w1"], ["f1"], name="/ff/fc1"),
             mk("Add", ["f1", "bb1"], ["f2"], name="/ff/bias1"),
             mk("Relu", ["f2"], ["f3"], name="/ff/relu"),
             mk("MatMul", ["f3", "w2"], ["f4"], name="/ff/fc2"),
             mk("Add", ["f4", "bb2"], ["f5"], name="/ff/bias2"),
             mk("Add", ["n1", "f5"], ["h2"], name="/res2"),
             mk("LayerNormalization", ["h2", "g2", "be2"], ["y"], name="/norm2", axis=-1)]
    return nodes, inits, [1, seq, d], [1, seq, d]


def save(path, parts, onnx, helper, TensorProto):
    nodes, inits, xshape, yshape = parts
    g = helper.make_graph(nodes, os.path.basename(path)[:-5],
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, xshape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, yshape)], inits)
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def summary(kiln_dump, module):
    """What equivalent modules share: executables with their variants'
    content hashes and exports, and the functions' signatures."""
    d = json.loads(run([kiln_dump, "--json", module]).stdout)
    exes = [(e["name"], [(v["name"], v["content_hash"]) for v in e["variants"]],
             [(x["name"], x["workgroup_size"], x["bindings_read_only"]) for x in e["exports"]])
            for e in d["executables"]]
    funcs = [json.dumps({k: v for k, v in f.items() if k in ("name", "signature", "inputs",
                                                               "outputs")}, sort_keys=True)
             for f in d["functions"]]
    return exes, funcs


def kiln_run(kiln_run_, module, x, work, tag):
    import numpy as np
    xp, yp = os.path.join(work, tag + ".x.npy"), os.path.join(work, tag + ".y.npy")
    np.save(xp, x)
    run([kiln_run_, "--module=" + module, "--input=@" + xp, "--output=@" + yp])
    return np.load(yp)


def main():
    compile_, kiln_run_, kiln_dump, clang, lld, work = sys.argv[1:7]
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    os.makedirs(work, exist_ok=True)
    rng = np.random.RandomState(11)
    models = [("cnn", cnn(np, helper, TensorProto, numpy_helper, rng), [[1, 3, 16, 16]]),
              ("encoder", encoder(np, helper, TensorProto, numpy_helper, rng, 8), [[1, 8, 16]]),
              ("encoder_dynamic", encoder(np, helper, TensorProto, numpy_helper, rng, "seq"),
               [[1, 5, 16], [1, 12, 16]])]
    for name, parts, shapes in models:
        model = os.path.join(work, name + ".onnx")
        save(model, parts, onnx, helper, TensorProto)
        direct, hal, hal2, rt = (os.path.join(work, name + s) for s in
                                 (".kiln", ".hal.mlir", ".hal2.mlir", ".rt.kiln"))
        run([compile_, model, TARGET, "-o", direct])
        run([compile_, model, TARGET, "--compile-to=hal", "--print-debuginfo", "-o", hal])
        run([compile_, hal, TARGET, "-o", rt])
        if summary(kiln_dump, direct) != summary(kiln_dump, rt):
            fail("%s: the module compiled from hal text differs:\n%s\n%s"
                 % (name, summary(kiln_dump, direct), summary(kiln_dump, rt)))
        run([compile_, hal, TARGET, "--compile-to=hal", "--print-debuginfo", "-o", hal2])
        with open(hal) as a, open(hal2) as b:
            if a.read() != b.read():
                fail("%s: printing hal from hal text changed it (diff %s %s)" % (name, hal, hal2))
        xs = [rng.randn(*s).astype(np.float32) for s in shapes]
        for i, x in enumerate(xs):
            y0 = kiln_run(kiln_run_, direct, x, work, "%s.%d.direct" % (name, i))
            y1 = kiln_run(kiln_run_, rt, x, work, "%s.%d.rt" % (name, i))
            if y0.shape != y1.shape or y0.tobytes() != y1.tobytes():
                fail("%s: results differ for input %s" % (name, x.shape))

        exports = [x for e in json.loads(run([kiln_dump, "--json", direct]).stdout)["executables"]
                   for x in e["exports"]]
        with open(hal) as f:
            text = f.read()
        subs = []
        for x in exports:
            if 'sym_name = "%s"' % x["name"] not in text:
                fail("%s: hal text has no executable @%s" % (name, x["name"]))
            subs.append("--substitute-executable=%s=%s"
                        % (x["name"], wrong_kernel(x, clang, lld, work)))
        wrong = os.path.join(work, name + ".wrong.kiln")
        run([compile_, hal, TARGET, "-o", wrong] + subs)
        for i, x in enumerate(xs):
            y = kiln_run(kiln_run_, wrong, x, work, "%s.%d.wrong" % (name, i))
            want = kiln_run(kiln_run_, direct, x, work, "%s.%d.shape" % (name, i)).shape
            if y.shape != want or not np.all(y == 0.5):
                fail("%s: with every executable substituted, result %s %s, expected all 0.5 of "
                     "shape %s" % (name, y.shape, np.unique(y)[:4], want))
        print("%s: hal round trip equivalent (%d executables), fixed point, all %d "
              "substituted ok" % (name, len(summary(kiln_dump, rt)[0]), len(subs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
