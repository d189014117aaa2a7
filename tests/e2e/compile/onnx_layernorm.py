#!/usr/bin/python3
"""e2e: LayerNorm as one dispatch (form-dispatch-regions' row chains).

Both ONNX spellings (LayerNormalization at opset 17; ReduceMean, Sub, Pow,
ReduceMean, Add, Sqrt, Div, Mul, Add at opset 13), with and without a
residual Add before them, over rows of odd lengths (1, 7, 129, 769) and
leading dims (3 rows; 2x5 rows): LayerNormalization must compile to one
dispatch (counted in --compile-to=flow), and so must the opset-13
spelling (its sqrt(var + eps) runs on the keepdims view [rows, 1]:
sink-reshapes moves the view below it so it maps per-row values); the
results must match numpy's (float64) on DEVICE.

usage: onnx_layernorm.py KILN_COMPILE KILN_RUN WORKDIR DEVICE [COMPILE_FLAG...]
Skips (77) when python3-onnx is missing.
"""
import os
import subprocess
import sys

import numpy as np


def model(onnx, helper, TensorProto, numpy_helper, shape, spelling, residual):
    n = shape[-1]
    r = np.random.RandomState(n + len(shape))
    gamma = r.uniform(0.5, 1.5, n).astype(np.float32)
    beta = r.uniform(-1, 1, n).astype(np.float32)
    inits = [numpy_helper.from_array(gamma, "gamma"), numpy_helper.from_array(beta, "beta")]
    nodes, ins, x = [], [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))], "x"
    if residual:
        ins.append(helper.make_tensor_value_info("res", TensorProto.FLOAT, list(shape)))
        nodes.append(helper.make_node("Add", ["x", "res"], ["s"]))
        x = "s"
    if spelling == "op":
        nodes.append(helper.make_node("LayerNormalization", [x, "gamma", "beta"], ["y"], axis=-1,
                                      epsilon=1e-5))
        opset = 17
    else:
        inits += [numpy_helper.from_array(np.array(2.0, np.float32), "two"),
                  numpy_helper.from_array(np.array(1e-5, np.float32), "eps")]
        nodes += [
            helper.make_node("ReduceMean", [x], ["mean"], axes=[-1]),
            helper.make_node("Sub", [x, "mean"], ["c"]),
            helper.make_node("Pow", ["c", "two"], ["sq"]),
            helper.make_node("ReduceMean", ["sq"], ["var"], axes=[-1]),
            helper.make_node("Add", ["var", "eps"], ["ve"]),
            helper.make_node("Sqrt", ["ve"], ["sd"]),
            helper.make_node("Div", ["c", "sd"], ["nrm"]),
            helper.make_node("Mul", ["nrm", "gamma"], ["sc"]),
            helper.make_node("Add", ["sc", "beta"], ["y"]),
        ]
        opset = 13
    graph = helper.make_graph(nodes, "ln", ins,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    xs = [r.uniform(-2, 2, shape).astype(np.float32) for _ in ins]
    s = sum(a.astype(np.float64) for a in xs)
    mean = s.mean(axis=-1, keepdims=True)
    var = ((s - mean) ** 2).mean(axis=-1, keepdims=True)
    y = (s - mean) / np.sqrt(var + 1e-5) * gamma + beta
    return m, xs, y


def main(argv):
    compile_, run, work, device = argv[1:5]
    flags = argv[5:]
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        print("skipped: python3-onnx is not installed")
        return 77
    os.makedirs(work, exist_ok=True)
    failed = 0
    for shape in [(3, 1), (3, 7), (3, 129), (3, 769), (2, 5, 129)]:
        for spelling in ("op", "decomposed"):
            for residual in (False, True):
                name = "ln_%s_%s%s" % ("x".join(map(str, shape)), spelling, "_res" if residual else "")
                m, xs, want = model(onnx, helper, TensorProto, numpy_helper, shape, spelling, residual)
                path = os.path.join(work, name + ".onnx")
                onnx.save(m, path)
                flow = subprocess.run([compile_, path, "--compile-to=flow"] + flags,
                                      capture_output=True, text=True)
                kernels = flow.stdout.count('"flow.executable"')
                mod = os.path.join(work, name + ".kiln")
                c = subprocess.run([compile_, path, "-o", mod] + flags, capture_output=True, text=True)
                if flow.returncode or c.returncode:
                    print("FAIL %s: compile: %s%s" % (name, flow.stderr, c.stderr))
                    failed += 1
                    continue
                cmd = [run, "--module=" + mod, "--device=" + device]
                for i, a in enumerate(xs):
                    f = os.path.join(work, "%s.in%d.npy" % (name, i))
                    np.save(f, a)
                    cmd.append("--input=@" + f)
                out = os.path.join(work, name + ".out.npy")
                rr = subprocess.run(cmd + ["--output=@" + out], capture_output=True, text=True)
                if rr.returncode:
                    print("FAIL %s: run: %s" % (name, rr.stderr))
                    failed += 1
                    continue
                got = np.load(out).astype(np.float64)
                err = np.abs(got - want).max()
                # a row of length 1 normalizes to exactly beta; others to
                # unit variance: 1e-4 absolute is a few ulp of |y| <= 4
                ok = got.shape == want.shape and err <= 1e-4 and kernels == 1
                print("%s %s: %d dispatch(es), max |error| %.3g" % ("ok  " if ok else "FAIL", name, kernels, err))
                failed += not ok
    print("%d failed" % failed)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
