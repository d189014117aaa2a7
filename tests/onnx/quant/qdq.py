"""Static QDQ quantization of a float ONNX model, written with python3-onnx
and numpy only (no onnxruntime.quantization: the Debian machine has none).

Takes a float model (opset >= 13) and the ranges of its tensors from
calibration runs. Returns a model in the QDQ form ONNX Runtime's static
quantizer writes: every Conv, Gemm and 2-D-weight MatMul with a constant
weight gets
  - its activation input through QuantizeLinear -> DequantizeLinear
    (asymmetric u8, scale and zero point from the calibrated range widened
    to include 0, so 0.0 is exact),
  - its weight as an int8 initializer through DequantizeLinear, per output
    channel and symmetric (zero point 0, scale max|w| / 127),
  - its bias (Conv input 2, Gemm C) as an int32 initializer with scale
    x_scale * w_scale, zero point 0,
  - its output through QuantizeLinear -> DequantizeLinear (u8, calibrated).
A tensor read by several quantized ops is quantized once. Everything else
(activations, pools, adds, softmax, attention products) stays float.
Guarantees: the result checks with onnx.checker; graph inputs and outputs
keep their names, types and shapes.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools", "ort"))

QUANT_OPS = ("Conv", "Gemm", "MatMul")


def _act_params(lo, hi):
    """u8 scale and zero point of the range [lo, hi] (widened to hold 0)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    scale = (hi - lo) / 255.0
    if scale == 0.0:
        scale = 1.0
    zp = int(np.clip(np.rint(-lo / scale), 0, 255))
    return np.float32(scale), np.uint8(zp)


def weight_axis(node, w):
    """The output-channel axis of NODE's weight W, or None when the node's
    form is not one this quantizer handles (MatMul with a weight of rank
    other than 2, Gemm with transA)."""
    if node.op_type == "Conv":
        return 0
    attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
    if node.op_type == "Gemm":
        if attrs.get("transA", 0):
            return None
        return 0 if attrs.get("transB", 0) else 1
    return 1 if w.ndim == 2 else None


def _constants(model):
    """{name: initializer} including Identity copies of initializers (the
    exporter writes one initializer and Identity nodes for weights that
    are equal, as the layers of a deep-copied TransformerEncoder are)."""
    inits = {i.name: i for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Identity" and n.input[0] in inits:
            inits[n.output[0]] = inits[n.input[0]]
    return inits


def candidates(model):
    """(node, activation name, weight name) for each op to quantize."""
    inits = _constants(model)
    out = []
    for n in model.graph.node:
        if n.op_type not in QUANT_OPS or len(n.input) < 2:
            continue
        x, w = n.input[0], n.input[1]
        if x in inits or w not in inits:
            continue
        if weight_axis(n, numpy_helper.to_array(inits[w])) is None:
            continue
        out.append((n, x, w))
    return out


def tensors_to_calibrate(model):
    """Names whose ranges quantize() needs: the ops' inputs and outputs."""
    names = []
    for n, x, _ in candidates(model):
        for t in (x, n.output[0]):
            if t not in names:
                names.append(t)
    return names


def quantize(model, ranges):
    """The QDQ model; RANGES maps each name of tensors_to_calibrate() to
    its (min, max) over the calibration data."""
    g = model.graph
    inits = _constants(model)
    outputs = {o.name for o in g.output}
    todo = candidates(model)
    new_inits, weights = [], set()
    qdq_nodes = {}  # tensor -> nodes quantizing it, placed after its producer
    act = {}  # float tensor -> (dequantized name, scale)

    def qdq(t):
        """Inserts Q -> DQ on activation T once; returns (name, scale)."""
        if t in act:
            return act[t]
        s, z = _act_params(*ranges[t])
        sn, zn = t + "_scale", t + "_zero_point"
        new_inits.append(numpy_helper.from_array(np.array(s, np.float32), sn))
        new_inits.append(numpy_helper.from_array(np.array(z, np.uint8), zn))
        q, dq = t + "_quantized", t + "_dequantized"
        qdq_nodes[t] = [helper.make_node("QuantizeLinear", [t, sn, zn], [q], name=t + "_QuantizeLinear"),
                        helper.make_node("DequantizeLinear", [q, sn, zn], [dq], name=t + "_DequantizeLinear")]
        act[t] = (dq, s)
        return act[t]

    for n, x, w in todo:
        xdq, xs = qdq(x)
        wf = numpy_helper.to_array(inits[w]).astype(np.float32)
        axis = weight_axis(n, wf)
        red = tuple(d for d in range(wf.ndim) if d != axis)
        ws = (np.abs(wf).max(axis=red) / 127.0).astype(np.float32)
        ws[ws == 0] = 1.0
        shape = [1] * wf.ndim
        shape[axis] = -1
        wn = inits[w].name + "_quantized_axis%d" % axis
        if wn not in weights:  # one int8 copy per weight and axis
            wq = np.clip(np.rint(wf / ws.reshape(shape)), -127, 127).astype(np.int8)
            new_inits += [numpy_helper.from_array(wq, wn),
                          numpy_helper.from_array(ws, wn + "_scale"),
                          numpy_helper.from_array(np.zeros(ws.shape, np.int8), wn + "_zero_point")]
            weights.add(wn)
        # one DQ per reader, named after it, so each op's chain is its own
        tag = "%s_%d" % (wn, len(qdq_nodes))
        wdq = helper.make_node("DequantizeLinear", [wn, wn + "_scale", wn + "_zero_point"],
                               [tag + "_dequantized"], name=tag + "_DequantizeLinear", axis=axis)
        pre = [wdq]
        ins = [xdq, tag + "_dequantized"] + list(n.input[2:])
        if len(n.input) > 2 and n.input[2] in inits and n.input[2]:
            b = numpy_helper.to_array(inits[n.input[2]]).astype(np.float32)
            if b.ndim == 1 and b.shape[0] == ws.shape[0]:
                bs = (np.float32(xs) * ws).astype(np.float32)
                bq = np.rint(b / bs).astype(np.int32)
                bn = "%s_quantized_%d" % (inits[n.input[2]].name, len(qdq_nodes))
                new_inits += [numpy_helper.from_array(bq, bn),
                              numpy_helper.from_array(bs, bn + "_scale"),
                              numpy_helper.from_array(np.zeros(bs.shape, np.int32), bn + "_zero_point")]
                pre.append(helper.make_node("DequantizeLinear", [bn, bn + "_scale", bn + "_zero_point"],
                                            [bn + "_dequantized"], name=bn + "_DequantizeLinear", axis=0))
                ins[2] = bn + "_dequantized"
        del n.input[:]
        n.input.extend(ins)
        if n.output[0] not in outputs:  # graph outputs are quantized below
            qdq(n.output[0])
        qdq_nodes.setdefault(("pre", n.name or id(n)), pre)

    # Readers of a quantized op's output read its dequantized value (the
    # Q/DQ nodes are not in the graph yet, so this leaves their reads).
    deq = {n.output[0]: act[n.output[0]][0] for n, _, _ in todo if n.output[0] not in outputs}
    for n in g.node:
        for i, t in enumerate(n.input):
            if t in deq:
                n.input[i] = deq[t]

    # Every graph output is quantized too (a quantized model's outputs lie
    # on a grid): its producer writes NAME_float, the DQ writes NAME.
    for y in outputs:
        raw = y + "_float"
        for n in g.node:
            for i, t in enumerate(n.output):
                if t == y:
                    n.output[i] = raw
        ranges[raw] = ranges[y]
        qdq(raw)
        qdq_nodes[raw][1].output[0] = y

    # Emit the nodes in an order that keeps the graph topologically sorted:
    # weight/bias DQs before their op, Q -> DQ right after the producer.
    graph_inputs = [i.name for i in g.input]
    nodes = []
    for t in graph_inputs:
        nodes += qdq_nodes.get(t, [])
    for n in list(g.node):
        nodes += qdq_nodes.get(("pre", n.name or id(n)), [])
        nodes.append(n)
        for t in n.output:
            nodes += qdq_nodes.get(t, [])
    del g.node[:]
    g.node.extend(nodes)
    g.initializer.extend(new_inits)
    used = set()
    for n in g.node:
        used.update(n.input)
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    return model


def to_qoperator(model):
    """The QOperator form of a model quantize() wrote, as ONNX Runtime's
    quantizer writes that format: a Conv whose input, weight and bias are
    DequantizeLinear outputs and whose output's one reader is a
    QuantizeLinear becomes one QLinearConv of the quantized tensors (a
    MatMul of that form, QLinearMatMul), writing what the QuantizeLinear
    wrote; DequantizeLinear nodes left without readers are dropped.
    Everything else (adds, pools, Gemm) stays in QDQ / float form.
    Returns the number of ops converted; MODEL is changed in place."""
    g = model.graph
    producer = {o: n for n in g.node for o in n.output}
    readers = {}
    for n in g.node:
        for t in n.input:
            readers.setdefault(t, []).append(n)
    outputs = {o.name for o in g.output}
    replace, dropped, count = {}, set(), 0
    for n in g.node:
        if n.op_type not in ("Conv", "MatMul"):
            continue
        dqs = [producer.get(t) for t in n.input]
        rd = readers.get(n.output[0], [])
        if (any(d is None or d.op_type != "DequantizeLinear" or len(d.input) != 3 for d in dqs) or
                len(rd) != 1 or rd[0].op_type != "QuantizeLinear" or n.output[0] in outputs or len(rd[0].input) != 3):
            continue
        q, (x, w) = rd[0], dqs[:2]
        ins = list(x.input) + list(w.input) + list(q.input[1:])
        if n.op_type == "Conv" and len(dqs) == 3:
            ins.append(dqs[2].input[0])
        elif len(dqs) != 2:
            continue
        op = "QLinearConv" if n.op_type == "Conv" else "QLinearMatMul"
        new = helper.make_node(op, ins, list(q.output), name=(n.name or op) + "_qoperator")
        if n.op_type == "Conv":
            new.attribute.extend(n.attribute)
        replace[id(n)] = new
        dropped.add(id(q))
        count += 1
    nodes = [replace.get(id(n), n) for n in g.node if id(n) not in dropped]
    while True:  # DequantizeLinears (of weights, biases) nobody reads now
        used = {t for n in nodes for t in n.input} | outputs
        keep = [n for n in nodes if n.op_type != "DequantizeLinear" or n.output[0] in used]
        if len(keep) == len(nodes):
            break
        nodes = keep
    del g.node[:]
    g.node.extend(nodes)
    used = {t for n in nodes for t in n.input}
    keep = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(keep)
    return count


def output_steps(model):
    """{graph output name: the scale of the DequantizeLinear writing it}."""
    inits = {i.name: i for i in model.graph.initializer}
    out = {}
    for n in model.graph.node:
        for o in model.graph.output:
            if n.op_type == "DequantizeLinear" and n.output[0] == o.name:
                out[o.name] = float(numpy_helper.to_array(inits[n.input[1]]))
    return out


def with_outputs(model, names):
    """A copy of MODEL that also outputs NAMES (f32, shape left open), for
    calibration runs."""
    import copy
    m = copy.deepcopy(model)
    have = {o.name for o in m.graph.output}
    for t in names:
        if t not in have:
            m.graph.output.append(helper.make_tensor_value_info(t, TensorProto.FLOAT, None))
    return m


def quantize_file(float_path, out_path, calibration, modules=None):
    """Calibrates FLOAT_PATH on ONNX Runtime (tools/ort/kiln_ort.py;
    CALIBRATION maps each graph input to a stack of samples) and writes
    the QDQ model to OUT_PATH. Returns the number of ops quantized."""
    import onnx
    import kiln_ort
    model = onnx.load(float_path)
    names = tensors_to_calibrate(model) + [o.name for o in model.graph.output]
    cal = os.path.splitext(out_path)[0] + ".calibrate.onnx"
    onnx.save(with_outputs(model, names), cal)
    ranges = {}
    count = len(next(iter(calibration.values())))
    # unoptimized: every exposed intermediate computed as the graph states it
    feeds = [{n: v[k] for n, v in calibration.items()} for k in range(count)]
    for got in kiln_ort.run_many(cal, feeds, names, modules, optimize=False):
        for t in names:
            lo, hi = float(got[t].min()), float(got[t].max())
            old = ranges.get(t, (lo, hi))
            ranges[t] = (min(lo, old[0]), max(hi, old[1]))
    n = len(candidates(model))
    qm = quantize(model, ranges)
    onnx.checker.check_model(qm)
    onnx.save(qm, out_path)
    return n
