#!/usr/bin/python3
"""e2e: an ONNX Loop with a run-time trip count that carries a sequence,
so the sequence's length is decided at run time: the importer makes it a
list (!kiln.seq) that a host loop carries, each step's SequenceInsert /
SequenceErase a host list op, each inserted element a kernel's result in
an allocation of its own. The model (built here with python3-onnx)
starts the sequence from two kernels' results (SequenceConstruct of
x * x and x + 1, elements of x's run-time length), and each step
appends e = x[0:i+1] + i + max(s[-1]) (its length changes from step to
step; s[-1], SequenceAt of the list, read by a kernel), inserts -e at
the front and erases position 1; after the loop it returns the
list, its length (SequenceLength) and its last element (SequenceAt -1).
Run with several (M, cond, x): no step, a negative M, a false condition,
1, 4 and 40 steps, x of 1, 3 and 7 elements; compared with Python's list
operations. A bad call (x of rank 2) must fail naming the input.
A second model carries an optional sequence (the graph input, compiled
for 2 elements with --sequence-length): each step takes its content when
present, else starts from [c], c a scalar (an If on OptionalHasElement:
the host reads the condition and picks one list, flow.list.select), and
appends x[0:i+1]; the body yields a plain sequence, so the loop's result
is one, of elements of two ranks (signature seq<tensor<*xf32>>). Run
present and absent, 0 (present only), 1 and 5 steps.

usage: onnx_loop_sequence.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import sys

import numpy as np

from onnx_e2e import Tally, compile_model, prepare, run_module


def build(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    i64, f32, b = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=f32),
         helper.make_node("Add", ["i", "one"], ["end"]),
         helper.make_node("Unsqueeze", ["end", "zero"], ["ends"]),
         helper.make_node("Slice", ["x", "zeros", "ends"], ["head"]),
         helper.make_node("SequenceAt", ["seq", "minus_one"], ["last"]),
         helper.make_node("ReduceMax", ["last"], ["top"], keepdims=0),
         helper.make_node("Add", ["head", "fi"], ["e0"]),
         helper.make_node("Add", ["e0", "top"], ["e"]),
         helper.make_node("Neg", ["e"], ["ne"]),
         helper.make_node("SequenceInsert", ["seq", "e"], ["s1"]),
         helper.make_node("SequenceInsert", ["s1", "ne", "zero"], ["s2"]),
         helper.make_node("SequenceErase", ["s2", "one"], ["s3"])],
        "body",
        [vi("i", i64, []), vi("cond", b, []), helper.make_tensor_sequence_value_info("seq", f32, None)],
        [vi("cond_out", b, []), helper.make_tensor_sequence_value_info("s3", f32, None)],
        [c("zero", 0), c("one", 1), c("zeros", [0]), c("minus_one", -1)])
    graph = helper.make_graph(
        [helper.make_node("Mul", ["x", "x"], ["a"]),
         helper.make_node("Add", ["x", "onef"], ["b"]),
         helper.make_node("SequenceConstruct", ["a", "b"], ["s0"]),
         helper.make_node("Loop", ["m", "c", "s0"], ["seq"], name="loop", body=body),
         helper.make_node("SequenceLength", ["seq"], ["len"]),
         helper.make_node("SequenceAt", ["seq", "last"], ["tail"])],
        "loop_sequence",
        [vi("m", i64, []), vi("c", b, []), vi("x", f32, ["n"])],
        [helper.make_tensor_sequence_value_info("seq", f32, None), vi("len", i64, []), vi("tail", f32, None)],
        [numpy_helper.from_array(np.array(1, np.float32), "onef"), c("last", -1)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def build_optional(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    i64, f32, b = TensorProto.INT64, TensorProto.FLOAT, TensorProto.BOOL
    vi = helper.make_tensor_value_info
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    seq_t = helper.make_sequence_type_proto(helper.make_tensor_type_proto(f32, ["k"]))
    opt_t = helper.make_optional_type_proto(seq_t)
    then_g = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["start"], ["fresh"])], "then", [],
        [helper.make_value_info("fresh", seq_t)])
    else_g = helper.make_graph(
        [helper.make_node("OptionalGetElement", ["opt_in"], ["got"])], "else", [],
        [helper.make_value_info("got", seq_t)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond"], ["cond_out"]),
         helper.make_node("OptionalHasElement", ["opt_in"], ["has"]),
         helper.make_node("Not", ["has"], ["none"]),
         helper.make_node("If", ["none"], ["seq"], then_branch=then_g, else_branch=else_g),
         helper.make_node("Add", ["i", "one"], ["end"]),
         helper.make_node("Unsqueeze", ["end", "zero"], ["ends"]),
         helper.make_node("Slice", ["x", "zeros", "ends"], ["head"]),
         helper.make_node("SequenceInsert", ["seq", "head"], ["out"])],
        "body",
        [vi("i", i64, []), vi("cond", b, []), helper.make_value_info("opt_in", opt_t)],
        [vi("cond_out", b, []), helper.make_value_info("out", seq_t)],
        [c("zero", 0), c("one", 1), c("zeros", [0])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["m", "", "opt"], ["res"], name="loop", body=body)],
        "loop_optional_sequence",
        [vi("m", i64, []), vi("x", f32, ["n"]), helper.make_value_info("opt", opt_t)],
        [helper.make_value_info("res", seq_t)],
        [numpy_helper.from_array(np.array(-7.5, np.float32), "start")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]), path)


def expect_optional(m, x, has, s):
    seq = list(s)
    for i in range(max(m, 0)):
        if not has and i == 0:
            seq = [np.array(-7.5, np.float32)]
        seq = seq + [x[:i + 1]]
    return seq


def read_list(work, tag):
    out, got = os.path.join(work, tag + "_out0"), []
    while os.path.exists("%s.%d.npy" % (out, len(got))):
        got.append(np.load("%s.%d.npy" % (out, len(got))))
    return got


def expect(m, c, x):
    seq = [x * x, x + np.float32(1)]
    for i in range(max(int(m), 0) if bool(c) else 0):
        e = (x[:i + 1] + np.float32(i) + seq[-1].max()).astype(np.float32)
        seq = [-e] + seq + [e]
        del seq[1]
    return seq


def main(argv):
    kc, run, work, device = argv[1:5]
    status, model, module = prepare(work, build, kc)
    if status:
        return status
    count = Tally()
    f = lambda v: np.array(v, np.float32)
    good = [(3, True, f([1, -2, 0.5])), (0, True, f([2])), (-2, True, f([1, 2, 3])), (4, False, f([1, 2])),
            (1, True, f([0.25])), (4, True, f([1, -1, 2, -2, 3, -3, 7])), (40, True, f([3, 1, 4]))]
    for k, (m, c, x) in enumerate(good):
        tag = "good%d" % k
        r = run_module(run, module, device, work, tag, [np.array(m, np.int64), np.array(c, np.bool_), x], 3)
        want = expect(m, c, x)
        ok = r.returncode == 0
        if ok:
            out = os.path.join(work, tag + "_out0")
            got = []
            while os.path.exists("%s.%d.npy" % (out, len(got))):
                got.append(np.load("%s.%d.npy" % (out, len(got))))
            n = np.load(os.path.join(work, tag + "_out1.npy"))
            tail = np.load(os.path.join(work, tag + "_out2.npy"))
            ok = len(got) == len(want) and int(n) == len(want) and n.dtype == np.int64 and \
                all(g.dtype == np.float32 and g.shape == w.shape and np.array_equal(g, w) for g, w in zip(got, want)) and \
                tail.shape == want[-1].shape and np.array_equal(tail, want[-1])
            print("call %d (M=%d, cond=%s, %d elements): %d elements %s" % (
                k, m, c, x.size, len(got), "ok" if ok else "MISMATCH, want %s got %s" % (
                    [w.tolist() for w in want], [g.tolist() for g in got])))
        else:
            print(r.stderr)
        count(ok)
    opt_model, opt_module = os.path.join(work, "optional.onnx"), os.path.join(work, "optional.kiln")
    build_optional(opt_model)
    if not compile_model(kc, opt_model, opt_module, ["--sequence-length=opt=2"]):
        count(False)
        return count.done()
    s = [f([1, 2]), f([3, 4, 5])]
    for k, (m, has, x) in enumerate([(0, True, f([9])), (1, True, f([1, 2, 3])), (5, True, f([6, 5, 4, 3, 2])),
                                     (1, False, f([2])), (5, False, f([0.5, 1, 1.5, 2, 2.5]))]):
        tag = "opt%d" % k
        r = run_module(run, opt_module, device, work, tag, [np.array(m, np.int64), x] + s + [np.array(has)], 1)
        want = expect_optional(m, x, has, s)
        got = read_list(work, tag) if r.returncode == 0 else None
        ok = got is not None and len(got) == len(want) and all(
            g.dtype == np.float32 and g.shape == w.shape and np.array_equal(g, w) for g, w in zip(got, want))
        print("optional call %d (M=%d, present=%s): %s" % (k, m, has, "ok" if ok else "MISMATCH, want %s got %s\n%s" % (
            [w.tolist() for w in want], got and [g.tolist() for g in got], r.stderr)))
        count(ok)
    r = run_module(run, module, device, work, "bad", [np.array(2, np.int64), np.array(True), f([[1, 2]])], 3)
    says = ["input 2", "expected tensor<?xf32>", "got tensor<1x2xf32>"]
    ok = r.returncode != 0 and all(w in r.stderr for w in says)
    print("bad call %s: %s" % ("refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
    count(ok)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
