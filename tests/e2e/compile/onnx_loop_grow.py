#!/usr/bin/python3
"""e2e: ONNX Loop with a run-time trip count whose carried value grows a
row per step and whose scan output has a run-time dim: the importer
makes its body a host loop body (kiln.host_loop_body), each step a call
with buffers at that step's sizes. One model (built here with
python3-onnx): the loop's initial value and an outer value its body
reads are kernels' results (x * x, w + w), the body concatenates
acc + i with one element of w + w, its scan output is the first n
elements of each step's value (n, x's run-time length), a second one
its first b elements (b the length of input s) and a third its sum (a
row of rank 0), the condition is passed on
unchanged, and a kernel reads the loop's result after it
(Relu(acc - 3)). The host writes each step's rows into buffers of
max(M, 0) rows allocated by the first step. The module is compiled once
and run with several (M, cond, x, w, s) sets: no step, a negative M, a
false condition, 1, 9 and 150 steps (the rows written in place at every
offset of a buffer of 150 rows: more steps only cost time), x of 1, 2
and 7 elements (odd sizes). Results are compared with a Python loop.
Bad calls (x of rank 2; a cond of two elements) must fail naming the
input, the type expected and the one given; so must a b past the first
step's row (the value grows by one element a step, so the rows of b
elements come out 3 then 4 long: a row of another size than the
first).

usage: onnx_loop_grow.py KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR DEVICE
DEVICE and the output as onnx_e2e.check_program says.
"""
import sys

import numpy as np

import onnx_e2e


def build(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    i64, f32, b = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    zero = numpy_helper.from_array(np.array([0], np.int64), "zero")
    one = numpy_helper.from_array(np.array([1], np.int64), "one")
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=f32),
         helper.make_node("Add", ["acc", "fi"], ["acc_i"]),
         helper.make_node("Slice", ["w2", "zero", "one"], ["w0"]),
         helper.make_node("Concat", ["acc_i", "w0"], ["acc_out"], axis=0),
         helper.make_node("Shape", ["x"], ["n"]),
         helper.make_node("Slice", ["acc_out", "zero", "n"], ["row"]),
         helper.make_node("Shape", ["s"], ["bl"]),
         helper.make_node("Slice", ["acc_out", "zero", "bl"], ["row_b"]),
         helper.make_node("ReduceSum", ["acc_out"], ["row_sum"], keepdims=0)],
        "body",
        [vi("i", i64, []), vi("cond", b, []), vi("acc", f32, None)],
        [vi("cond_out", b, []), vi("acc_out", f32, None), vi("row", f32, None), vi("row_b", f32, None),
         vi("row_sum", f32, None)],
        [zero, one])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["a0"]),
         helper.make_node("Add", ["w", "w"], ["w2"]),
         helper.make_node("Loop", ["m", "c", "a0"], ["acc_final", "rows", "rows_b", "sums"], name="loop", body=body),
         helper.make_node("Sub", ["acc_final", "three"], ["d"]),
         helper.make_node("Relu", ["d"], ["y"])],
        "loop_grow",
        [vi("m", i64, []), vi("c", b, []), vi("x", f32, ["n"]), vi("w", f32, [3]), vi("s", f32, ["b"])],
        [vi("acc_final", f32, None), vi("rows", f32, None), vi("rows_b", f32, None), vi("sums", f32, None),
         vi("y", f32, None)],
        [numpy_helper.from_array(np.array(3, np.float32), "three")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def expect(ins):
    m, c, x, w, s = ins
    acc, rows, rows_b, sums = (x * x).astype(np.float32), [], [], []
    for i in range(max(int(m), 0) if bool(c) else 0):
        acc = np.concatenate([acc + np.float32(i), (w + w)[:1]]).astype(np.float32)
        rows.append(acc[:len(x)])
        rows_b.append(acc[:len(s)])
        sums.append(acc.sum(dtype=np.float32))
    rows = np.array(rows, np.float32).reshape(len(rows), len(x) if rows else 0)
    rows_b = np.array(rows_b, np.float32).reshape(len(rows_b), len(rows_b[0]) if rows_b else 0)
    return [acc, rows, rows_b, np.array(sums, np.float32), np.maximum(acc - np.float32(3), 0).astype(np.float32)]


def main(argv):
    m = lambda v: np.array(v, np.int64)
    bl = lambda v: np.array(v, np.bool_)
    f = lambda v: np.array(v, np.float32)
    w = f([1.5, -2, 4])
    good = [  # b is at most len(x) + 1, the first row's length
        [m(3), bl(True), f([1, -2]), w, f([0] * 3)],
        [m(0), bl(True), f([1, -2]), w, f([0])],               # no step: the kernel's result through the loop
        [m(-2), bl(True), f([1, 2, 3]), w, f([0] * 2)],            # negative: no step
        [m(4), bl(False), f([1, 2, 3]), w, f([0] * 4)],            # false from the start
        [m(1), bl(True), f([0.5]), w, f([])],                 # rows of no element
        [m(9), bl(True), f([1, -1, 2, -2, 3, -3, 0.25]), w, f([0] * 5)],
        [m(150), bl(True), f([2, -1, 0.5]), w, f([0] * 4)],
    ]
    bad = [  # (input index, value, what the message must say)
        (2, f([[1, 2]]), ["input 2", "expected tensor<?xf32>", "got tensor<1x2xf32>"]),
        (1, bl([True, False]), ["input 1", "expected tensor<i1>", "got tensor<2xi1>"]),
        (4, f([0] * 4), ["node 'loop'", "is 4", "(3)"]),
    ]

    # a scan output after no step is empty, whatever its row length
    return onnx_e2e.check_program(argv, build, "loop", good, bad, expect, 5, any_empty_shape=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
