#!/usr/bin/python3
"""String tensors end to end: one-node and small ONNX models with STRING
inputs or outputs, compiled by kiln-compile, run by kiln-run on
local-task with numpy unicode .npy files, and compared with what numpy
and ONNX's definitions give; then the refusals and run-time errors.

usage: strings.py --compile=KILN_COMPILE --run=KILN_RUN --work=DIR

Cases: Cast float/double/int/bool -> string (numpy's spelling: the
shortest text that reads back, nan/inf, '1e-05'); Cast string -> float
and int (blanks, NaN/INF in any case); StringNormalizer with stopwords
matched with and without case, non-ASCII case changes and the
everything-dropped output; text before a kernel (string -> float ->
Relu) and after one (Relu -> string). Errors: a string that is not a
number (the message names the element and the text), an int out of
range, an input .npy of bytes that are not UTF-8, and an op other than
the text ops on strings (the importer refuses it, naming the op).
Prints one line per case and `N passed, N failed`; exit 1 when any
failed, 77 when python3-onnx/numpy or the tools are missing.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto as T, helper
except ImportError as e:
    print("skipped: python3-onnx or numpy is missing (%s)" % e)
    sys.exit(77)


def model(nodes, ins, outs, opset=17):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info(n, t, s) for n, t, s in ins],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outs])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def cast(x_t, to, shape):
    return model([helper.make_node("Cast", ["x"], ["y"], to=to)], [("x", x_t, shape)], [("y", to, shape)])


def normalizer(shape, **attrs):
    return model([helper.make_node("StringNormalizer", ["x"], ["y"], **attrs)], [("x", T.STRING, shape)],
                 [("y", T.STRING, None)], opset=10)


F32 = np.array([0.5, 0.1, 1e-5, 1.5e20, 123456789.0, 0.0, -0.0, np.nan, np.inf, -np.inf, 3.0, -2.75e-7],
               np.float32)
F64 = np.array([0.1, 1 / 3, 1e16, 1e-4, -5.0, 2.5e-300], np.float64)
WORDS = np.array(["Monday", "tuesday", "MONDAY", "Été", "Привет", "straße", "monday"])


def text_of(a):
    return np.array([str(v) for v in a.ravel()]).reshape(a.shape)


# name, model, inputs, expected outputs (or None), expected error text (or None)
CASES = [
    ("cast_f32_to_str", cast(T.FLOAT, T.STRING, [12]), [F32], [text_of(F32)], None),
    ("cast_f64_to_str", cast(T.DOUBLE, T.STRING, [6]), [F64], [text_of(F64)], None),
    ("cast_i64_to_str", cast(T.INT64, T.STRING, [3]), [np.array([0, -9, 2**62], np.int64)],
     [np.array(["0", "-9", str(2**62)])], None),
    ("cast_bool_to_str", cast(T.BOOL, T.STRING, [2]), [np.array([True, False])], [np.array(["True", "False"])],
     None),
    ("cast_str_to_f32", cast(T.STRING, T.FLOAT, [2, 3]),
     [np.array([[" 1.5 ", "NaN", "-INF"], ["1e-5", "-0", "3.4028236e38"]])],
     [np.array([[1.5, np.nan, -np.inf], [1e-5, -0.0, np.inf]], np.float32)], None),
    ("cast_str_to_i32", cast(T.STRING, T.INT32, [3]), [np.array(["42", "-7", " 2147483647"])],
     [np.array([42, -7, 2147483647], np.int32)], None),
    ("normalize_upper_insensitive", normalizer([7], case_change_action="UPPER", stopwords=["monday"]),
     [WORDS], [np.array(["TUESDAY", "ÉTÉ", "ПРИВЕТ", "STRAßE"])], None),
    ("normalize_lower_sensitive", normalizer([1, 7], case_change_action="LOWER", is_case_sensitive=1,
                                             stopwords=["monday", "Été"]),
     [WORDS.reshape(1, 7)], [np.array([["monday", "tuesday", "monday", "привет", "straße"]])], None),
    ("normalize_all_dropped", normalizer([1, 2], stopwords=["a", "B"]), [np.array([["b", "A"]])],
     [np.array([[""]])], None),
    ("text_then_kernel",
     model([helper.make_node("Cast", ["x"], ["f"], to=T.FLOAT), helper.make_node("Relu", ["f"], ["y"])],
           [("x", T.STRING, [4])], [("y", T.FLOAT, [4])]),
     [np.array(["-1", "2.5", "0", "7"])], [np.array([0, 2.5, 0, 7], np.float32)], None),
    ("kernel_then_text",
     model([helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Cast", ["r"], ["y"], to=T.STRING)],
           [("x", T.FLOAT, [3])], [("y", T.STRING, [3])]),
     [np.array([-1, 0.25, 8], np.float32)], [np.array(["0.0", "0.25", "8.0"])], None),
    # errors
    ("error_not_a_number", cast(T.STRING, T.FLOAT, [2]), [np.array(["1", "abc"])], None,
     'element 1: "abc" is not a f32'),
    ("error_int_range", cast(T.STRING, T.INT8, [1]), [np.array(["300"])], None, '"300" is not a i8'),
    ("error_bad_utf8", cast(T.STRING, T.FLOAT, [1]), [np.array([b"\xff1"], dtype="S2")], None, "not UTF-8"),
    ("error_other_op_on_strings",
     model([helper.make_node("Identity", ["x"], ["y"])], [("x", T.STRING, [2])], [("y", T.STRING, [2])]),
     [], None, "Identity on string tensors is not supported"),
]


def run_case(args, name, m, inputs, wants, error):
    work = os.path.join(args.work, name)
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "model.onnx")
    onnx.save(m, path)
    kiln = os.path.join(work, "model.kiln")
    r = subprocess.run([args.compile, path, "-o", kiln], capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        if error and error in r.stderr:
            return None
        return "compile: " + r.stderr.strip()[-300:]
    argv = [args.run, "--module=" + kiln, "--device=local-task"]
    for k, a in enumerate(inputs):
        p = os.path.join(work, "in%d.npy" % k)
        np.save(p, a, allow_pickle=False)
        argv.append("--input=@" + p)
    outs = [os.path.join(work, "out%d.npy" % k) for k in range(len(wants or [None]))]
    argv += ["--output=@" + p for p in outs]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if error:
        if r.returncode != 0 and error in r.stderr:
            return None
        return "expected an error with %r, got exit %d: %s" % (error, r.returncode, r.stderr.strip()[-300:])
    if r.returncode != 0:
        return "run: " + r.stderr.strip()[-300:]
    for p, w in zip(outs, wants):
        g = np.load(p, allow_pickle=False)
        if g.shape != w.shape or g.dtype.kind != w.dtype.kind:
            return "got %s %s, expected %s %s" % (g.dtype, g.shape, w.dtype, w.shape)
        same = np.array_equal(g, w, equal_nan=True) if w.dtype.kind == "f" else np.array_equal(g, w)
        if w.dtype.kind == "f" and same:
            same = np.array_equal(np.signbit(g), np.signbit(w))
        if not same:
            return "got %s, expected %s" % (g.tolist(), w.tolist())
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    failed = 0
    for name, m, inputs, wants, error in CASES:
        why = run_case(args, name, m, inputs, wants, error)
        print("%s %s%s" % ("PASS" if why is None else "FAIL", name, "" if why is None else ": " + why))
        failed += why is not None
    print("%d passed, %d failed" % (len(CASES) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
