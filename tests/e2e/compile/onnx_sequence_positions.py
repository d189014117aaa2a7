#!/usr/bin/python3
"""e2e: a run-time position among sequence elements of different shapes.
SequenceInsert, SequenceErase and SequenceAt with the position a graph
input: each result element is one of its candidates (sizes chosen by the
host, the content copied from the chosen one only), as ONNX Runtime
gives them. One model, compiled twice for a 3-element sequence input:
'static' (each element's shape fixed with --static-shape: [2, 3], an
empty [0, 3], [5, 2]) and 'dyn' (elements of run-time dims [a, b], each
its own sizes at run time, the same arrays given). Checked against
numpy's list operations: insert at 0, 1, 3 (the end), -1, -3; erase at
0, 2, -1; at 0, 1, 2, -2 (five calls per module, three ops each: every
candidate of every result element is taken at least once); SequenceAt of
a two-element sequence (t, -t), whose elements share a shape in the
'static' module (the elementwise select path); refused at run time
naming the position: insert at 4 and -4, erase at 3, at -4, and 2 in the
two-element sequence.
At compile time: elements of different ranks ("ranks 1 and 2").

Size: three elements and positions at both ends and the middle are the
cases the choice has (before, at, after the position; empty elements);
sizes stay tiny since the copy is one loop nest per element.

usage: onnx_sequence_positions.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

from onnx_e2e import Tally, compile_model, prepare, run_module


def build(work, elem_shape, name):
    import onnx
    from onnx import TensorProto, helper
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    vi = helper.make_tensor_value_info
    seq = lambda n: helper.make_tensor_sequence_value_info(n, f32, elem_shape)
    nodes = [helper.make_node("SequenceInsert", ["s", "t", "pi"], ["ins"]),
             helper.make_node("SequenceErase", ["s", "pe"], ["era"]),
             helper.make_node("SequenceAt", ["s", "pa"], ["at"]),
             helper.make_node("Neg", ["t"], ["nt"]),
             helper.make_node("SequenceConstruct", ["t", "nt"], ["two"]),
             helper.make_node("SequenceAt", ["two", "pc"], ["at2"])]
    g = helper.make_graph(nodes, name, [seq("s"), vi("t", f32, ["c", "d"]), vi("pi", i64, []),
                                        vi("pe", i64, [1]), vi("pa", i64, []), vi("pc", i64, [])],
                          [seq("ins"), seq("era"), vi("at", f32, None), vi("at2", f32, None)])
    path = os.path.join(work, name + ".onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, _ = prepare(work)
    if status:
        return status
    count = Tally()

    rng = np.random.RandomState(3)
    shapes = [(2, 3), (0, 3), (5, 2)]
    s = [rng.uniform(-2, 2, sh).astype(np.float32) for sh in shapes]
    t = rng.uniform(-2, 2, (1, 4)).astype(np.float32)
    static = ["--sequence-length=s=3", "--static-shape=t=1x4"] + \
        ["--static-shape=s[%d]=%dx%d" % (k, a, b) for k, (a, b) in enumerate(shapes)]
    mods = [("static", build(work, None, "pos_static"), static),
            ("dyn", build(work, ["a", "b"], "pos_dyn"), ["--sequence-length=s=3"])]
    calls = [(0, 0, 0, 0), (1, 2, 1, 1), (3, -1, 2, -1), (-1, 0, -2, -2), (-3, 2, 1, 0)]
    for tag, model, flags in mods:
        module = os.path.join(work, tag + ".kiln")
        ok = compile_model(compile_, model, module, flags)
        count(ok)
        if not ok:
            continue
        nout = 4 + 2 + 1 + 1

        def call(name, pi, pe, pa, pc):
            ins = s + [t, np.array(pi, np.int64), np.array([pe], np.int64), np.array(pa, np.int64),
                       np.array(pc, np.int64)]
            return run_module(run, module, device, work, "%s_%s" % (tag, name), ins, nout)

        for k, (pi, pe, pa, pc) in enumerate(calls):
            r = call("c%d" % k, pi, pe, pa, pc)
            ok = r.returncode == 0
            if ok:
                ins_want, era_want = list(s), list(s)
                ins_want.insert(pi if pi >= 0 else pi + 3, t)
                del era_want[pe]
                want = ins_want + era_want + [s[pa], [t, -t][pc]]
                got = [np.load(os.path.join(work, "%s_c%d_out%d.npy" % (tag, k, j))) for j in range(nout)]
                for g, w in zip(got, want):
                    ok = ok and g.dtype == w.dtype and g.shape == w.shape and np.array_equal(g, w)
                print("%s insert at %d, erase at %d, at %d: %s" % (
                    tag, pi, pe, pa, "ok" if ok else "MISMATCH %s" % [g.shape for g in got]))
            else:
                print("%s call %d failed: %s" % (tag, k, r.stderr.strip()))
            count(ok)
        for k, (pi, pe, pa, pc, says) in enumerate([(4, 0, 0, 0, "index[0] is 4, must be <= 3"),
                                                    (-4, 0, 0, 0, "index[0] is -4, must be >= -3"),
                                                    (0, 3, 0, 0, "index[0] is 3, must be <= 2"),
                                                    (0, 0, -4, 0, "index[0] is -4, must be >= -3"),
                                                    (0, 0, 0, 2, "index[0] is 2, must be <= 1")]):
            r = call("bad%d" % k, pi, pe, pa, pc)
            ok = r.returncode != 0 and says in r.stderr
            print("%s bad position %d %s: %s" % (tag, k, "refused" if ok else "NOT REFUSED AS EXPECTED",
                                                 r.stderr.strip()))
            count(ok)

    r = subprocess.run([compile_, mods[0][1], "-o", os.path.join(work, "bad.kiln")] + static[:-1] +
                       ["--static-shape=s[2]=5"], capture_output=True, text=True)
    ok = r.returncode != 0 and "ranks 1 and 2 decides the result's rank" in r.stderr and "SequenceInsert" in r.stderr
    print("elements of different ranks %s: %s" % ("refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
    count(ok)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
