#!/usr/bin/python3
"""e2e: ONNX sequence graph inputs. kiln-compile --sequence-length=NAME=N
compiles sequence input NAME as N arguments NAME[0]..NAME[N-1] (one
module per length); elements declared with dim_param dims keep run-time
dims of their own (each element its own sizes, as ONNX Runtime takes
them), elements of unknown rank take --static-shape=NAME[k]=... Checks:
SequenceLength, SequenceAt, SequenceInsert, SequenceMap and
ConcatFromSequence over the elements against numpy at lengths 2 and 3
with element sizes 1, 5, 7; the refusals, each naming what is wrong: no
--sequence-length, a --sequence-length or --static-shape naming nothing,
an element of unknown rank without a shape, ConcatFromSequence of
run-time-sized elements, --sequence-length on MLIR input, a sequence of
sequences; and at run time a missing element and an
element of the wrong width.

usage: onnx_sequence_inputs.py KILN_COMPILE KILN_RUN WORKDIR DEVICE
Skips (77) when python3-onnx is missing. Prints 'N passed, N failed'.
"""
import os
import subprocess
import sys

import numpy as np

from onnx_e2e import Tally, check_refusals, compile_model, prepare, run_module


def build(work):
    """Two models: 'dyn' (elements [n, 3], run-time n) and 'ranked'
    (elements of unknown rank, for ConcatFromSequence)."""
    import onnx
    from onnx import TensorProto, helper
    f32, i64 = TensorProto.FLOAT, TensorProto.INT64
    vi = helper.make_tensor_value_info
    seq = lambda name, shape: helper.make_tensor_sequence_value_info(name, f32, shape)
    body = helper.make_graph([helper.make_node("Mul", ["e", "e"], ["sq"])], "square",
                             [vi("e", f32, ["n", 3])], [vi("sq", f32, ["n", 3])])
    one = helper.make_tensor("one", i64, [], [1])
    nodes = [helper.make_node("SequenceLength", ["s"], ["len"]),
             helper.make_node("SequenceAt", ["s", "one"], ["at1"]),
             helper.make_node("SequenceInsert", ["s", "t"], ["longer"]),
             helper.make_node("SequenceMap", ["longer"], ["squares"], body=body)]
    g = helper.make_graph(nodes, "seq_dyn", [seq("s", ["n", 3]), vi("t", f32, [2, 3])],
                          [vi("len", i64, []), vi("at1", f32, ["n", 3]), seq("squares", ["n", 3])], [one])
    dyn = os.path.join(work, "dyn.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), dyn)
    g = helper.make_graph([helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=0)], "seq_cat",
                          [seq("s", None)], [vi("cat", f32, None)])
    ranked = os.path.join(work, "ranked.onnx")
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), ranked)
    return dyn, ranked


def main(argv):
    compile_, run, work, device = argv[1:5]
    status, _, _ = prepare(work)
    if status:
        return status
    dyn, ranked = build(work)
    count = Tally()

    rng = np.random.RandomState(7)
    t = rng.uniform(-2, 2, (2, 3)).astype(np.float32)
    elems = [rng.uniform(-2, 2, (r, 3)).astype(np.float32) for r in (5, 1, 7)]
    for n in (3, 2):
        module = os.path.join(work, "dyn%d.kiln" % n)
        ok = compile_model(compile_, dyn, module, ["--sequence-length=s=%d" % n])
        count(ok)
        if not ok:
            continue
        s = elems[:n]
        r = run_module(run, module, device, work, "dyn%d" % n, s + [t], 2 + n + 1)
        ok = r.returncode == 0
        if ok:
            got = [np.load(os.path.join(work, "dyn%d_out%d.npy" % (n, k))) for k in range(2 + n + 1)]
            want = [np.array(n, np.int64), s[1]] + [e * e for e in s + [t]]
            for k, (g, w) in enumerate(zip(got, want)):
                same = g.dtype == w.dtype and g.shape == w.shape and np.allclose(g, w, rtol=1e-6)
                print("length %d result %d %s: %s" % (n, k, g.shape, "ok" if same else "MISMATCH %s" % g))
                ok = ok and same
        else:
            print(r.stderr)
        count(ok)
        if n == 3:  # an element too few; an element 4 wide where 3 is declared
            call = lambda tag, ins: run_module(run, module, device, work, tag, ins, 2 + n + 1)
            r = call("short", s[:2] + [t])
            ok = r.returncode != 0 and "takes 4 inputs, got 3" in r.stderr
            print("short call %s: %s" % ("refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
            count(ok)
            check_refusals(call, s + [t], [(1, np.zeros((2, 4), np.float32), ["input 1", "dimension 1"])], count)

    # ConcatFromSequence: static element shapes given per element
    module = os.path.join(work, "ranked.kiln")
    ok = compile_model(compile_, ranked, module, ["--sequence-length=s=2", "--static-shape=s[0]=5x3",
                                                  "--static-shape=s[1]=1x3"])
    count(ok)
    if ok:
        r = run_module(run, module, device, work, "cat", elems[:2], 1)
        got = np.load(os.path.join(work, "cat_out0.npy")) if r.returncode == 0 else None
        ok = got is not None and np.array_equal(got, np.concatenate(elems[:2]))
        print("ConcatFromSequence: %s" % ("ok" if ok else "MISMATCH %s %s" % (got, r.stderr)))
        count(ok)

    bad = [(dyn, [], ["graph input 's'", "--sequence-length=NAME=N"]),
           (dyn, ["--sequence-length=t=2"], ["no sequence input named 't'"]),
           (dyn, ["--sequence-length=s=2", "--static-shape=s[2]=1x3"], ["no input named 's[2]'"]),
           (dyn, ["--sequence-length=s=2", "--static-shape=s[0]=1x4"], ["s[0]", "dimension 1 is 3 in the model"]),
           (ranked, ["--sequence-length=s=2", "--static-shape=s[0]=5x3"], ["graph input 's[1]'", "unknown rank"]),
           (dyn, ["--sequence-length=s=x"], ["--sequence-length=s=x", "is not a size"])]
    mlir = os.path.join(work, "id.mlir")
    with open(mlir, "w") as f:
        f.write("func.func @id(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}\n")
    bad.append((mlir, ["--sequence-length=x=2"], ["--sequence-length=x: MLIR input has no sequences"]))
    for k, (model, flags, says) in enumerate(bad):
        r = subprocess.run([compile_, model, "-o", os.path.join(work, "bad.kiln")] + flags,
                           capture_output=True, text=True)
        ok = r.returncode != 0 and all(w in r.stderr for w in says)
        print("bad compile %d %s: %s" % (k, "refused" if ok else "NOT REFUSED AS EXPECTED", r.stderr.strip()))
        count(ok)
    # ConcatFromSequence sizes its result at import: run-time dims refused
    g = os.path.join(work, "cat_dyn.onnx")
    import onnx
    from onnx import TensorProto, helper
    gr = helper.make_graph([helper.make_node("ConcatFromSequence", ["s"], ["cat"], axis=0)], "cat_dyn",
                           [helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, ["n", 3])],
                           [helper.make_tensor_value_info("cat", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)]), g)
    r = subprocess.run([compile_, g, "-o", os.path.join(work, "bad.kiln"), "--sequence-length=s=2"],
                       capture_output=True, text=True)
    ok = r.returncode != 0 and "element 0 has a run-time dim; ConcatFromSequence" in r.stderr
    print("ConcatFromSequence of run-time dims %s: %s" % ("refused" if ok else "NOT REFUSED AS EXPECTED",
                                                          r.stderr.strip()))
    count(ok)
    # a sequence of sequences: refused naming the input, with or without
    # --sequence-length (which gives the outer length only)
    inner = helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.FLOAT, [2]))
    gr = helper.make_graph([helper.make_node("SequenceLength", ["ss"], ["n"])], "seq_seq",
                           [helper.make_value_info("ss", helper.make_sequence_type_proto(inner))],
                           [helper.make_tensor_value_info("n", TensorProto.INT64, [])])
    g = os.path.join(work, "seq_seq.onnx")
    onnx.save(helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17)]), g)
    for flags in ([], ["--sequence-length=ss=2"]):
        r = subprocess.run([compile_, g, "-o", os.path.join(work, "bad.kiln")] + flags, capture_output=True, text=True)
        ok = r.returncode != 0 and "graph input 'ss': a sequence whose elements are sequences" in r.stderr
        print("sequence of sequences %s %s: %s" % (flags, "refused" if ok else "NOT REFUSED AS EXPECTED",
                                                   r.stderr.strip()))
        count(ok)
    return count.done()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
