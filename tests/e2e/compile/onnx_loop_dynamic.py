#!/usr/bin/python3
"""e2e: ONNX Loop whose trip count M is a run-time input. One model (built
here with python3-onnx): the loop carries a vector, its body reads the
step number, an outer input and the carried value, and its condition
(computed from data) may stop it early; it has two scan outputs (a vector
and a scalar per step). The module is compiled once and run with several
(M, cond, limit) sets: M of 0, negative, 1, 7, early stops, a false
initial condition. The loop runs as one sequential kernel; the host reads
M to size the scan buffers and, after the loop, the number of steps run
to size the scan outputs. Results are compared with a Python loop. Bad
calls (an M whose scan buffers would pass 2^62 bytes; a wrong-shaped
input) must fail naming the node or input and the value.

usage: onnx_loop_dynamic.py KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR DEVICE
DEVICE and the output as onnx_e2e.check_program says.
"""
import sys

import numpy as np

import onnx_e2e


def build(path):
    import onnx
    from onnx import TensorProto, helper
    i64, f32, b = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=f32),
         helper.make_node("Mul", ["x", "fi"], ["xf"]),
         helper.make_node("Add", ["acc", "xf"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_out"], ["s"], keepdims=0),
         helper.make_node("Less", ["s", "limit"], ["cond_out"]),
         helper.make_node("Identity", ["acc_out"], ["row"])],
        "body",
        [vi("i", i64, []), vi("cond", b, []), vi("acc", f32, [3])],
        [vi("cond_out", b, []), vi("acc_out", f32, [3]), vi("row", f32, [3]), vi("fi", f32, [])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "c", "a0"], ["acc_final", "rows", "steps"], name="loop", body=body)],
        "loop_dynamic",
        [vi("m", i64, []), vi("c", b, []), vi("a0", f32, [3]), vi("x", f32, [3]), vi("limit", f32, [])],
        [vi("acc_final", f32, [3]), vi("rows", f32, None), vi("steps", f32, None)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def expect(ins):
    m, c, a0, x, limit = ins
    acc, rows, fis, cond = a0.copy(), [], [], bool(c)
    for i in range(max(int(m), 0)):
        if not cond:
            break
        fi = np.float32(i)
        acc = (acc + x * fi).astype(np.float32)
        rows.append(acc)
        fis.append(fi)
        cond = bool(np.float32(acc.sum(dtype=np.float32)) < limit)
    return [acc, np.array(rows, np.float32).reshape(-1, 3), np.array(fis, np.float32)]


def main(argv):
    m = lambda v: np.array(v, np.int64)
    bl = lambda v: np.array(v, np.bool_)
    f = lambda v: np.array(v, np.float32)
    a0, x = f([1, -2, 0.5]), f([0.25, 1, -0.5])
    good = [
        [m(7), bl(True), a0, x, f(1000)],    # all 7 steps
        [m(7), bl(True), a0, x, f(2)],       # the condition stops it early
        [m(0), bl(True), a0, x, f(1000)],    # no step
        [m(-4), bl(True), a0, x, f(1000)],   # negative: no step
        [m(1), bl(True), a0, x, f(1000)],
        [m(5), bl(False), a0, x, f(1000)],   # false from the start
        [m(40), bl(True), f([0, 0, 0]), f([1, 1, 1]), f(300)],
    ]
    bad = [  # (input index, value, what the message must say)
        (0, m(1 << 61), ["node 'loop'", "past 2^62 bytes"]),
        (2, f([1, 2]), ["input 2", "dimension 0 is 2, must be 3"]),
    ]

    return onnx_e2e.check_program(argv, build, "loop", good, bad, expect, 3)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
