#!/usr/bin/python3
"""The numerical ONNX conformance run: every generated backend node test
compiled by Kiln, run by kiln-run, and compared with ONNX's own outputs.

usage: run_conformance.py --compile=KILN_COMPILE --run=KILN_RUN
           --nodes=NODE_DIR --work=WORK_DIR --expected=EXPECTED_PASSES
           [--import=KILN_ONNX_IMPORT] [--device=local-task] [--jobs=2]
           [--timeout=SECONDS] [--add-passes] [--via-import] [NAME...]

Takes the folders NODE_DIR/test_*/ that generate.py writes (model.onnx and
test_data_set_0/{input,output}_N.pb). For each one:
  compile  `kiln-compile model.onnx` when kiln-compile takes ONNX input
           (probed once, on the first model), else `kiln-onnx-import
           model.onnx -o model.mlir` then `kiln-compile model.mlir`
           (always with --via-import); a sequence graph input is compiled
           for the length its test data has (--sequence-length=NAME=N,
           and --static-shape=NAME[k]=... for elements of unknown rank),
           as a user fixes it for the sequences the model will be given;
  run      input_N.pb -> .npy (onnx.numpy_helper.to_array), kiln-run on
           DEVICE with one --output=@out_N.npy per graph output; a
           sequence input is one --input per element (then its presence
           flag when optional); a sequence result whose length the run
           time decides (a list) comes back as out_N.0.npy, out_N.1.npy...;
  compare  ONNX's tolerances: rtol 1e-3, atol 1e-7 for floating point
           (NaN equals NaN), exact for integers and bools; shapes and
           element types must match. Outputs drawn by a random operator
           (Bernoulli, Random*, Multinomial, Dropout in training mode)
           are checked for their shapes, support and statistics instead
           (compare_random), since no two generators draw alike.
Each case ends as
  passed   every output matches;
  skipped  the importer refused the model ("onnx: dynamic:", "onnx:
           unsupported:", "onnx: opset:"), reported by that reason and
           counted by the op type its message names (--list-skips names
           every case);
  failed   compile error, run error, mismatch (max abs / rel error),
           timeout; the table groups these by reason.
The last line is `N passed, N failed, N skipped`. Exit status: 1 when a
case listed in EXPECTED_PASSES (one name a line, '#' comments; the list
may only grow) did not pass or does not exist, 77 when the tools or
python3-onnx are missing, else 0. Passing cases that are not listed are
printed; --add-passes adds them to the list. NAMEs restrict the run.
"""
import argparse
import collections
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import numpy_helper
except ImportError as e:  # reported by main() as a skip
    onnx = None
    IMPORT_ERROR = str(e)

RTOL, ATOL = 1e-3, 1e-7

# What each skip reason (the importer's error kind) means.
SKIP_REASONS = {
    "dynamic": "a run-time value decides a shape (dynamic shapes)",
    "unsupported": "an operator, attribute or type the importer lacks",
    "opset": "an opset outside the supported range",
}


def load_tensor(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def load_value(path, type_proto):
    """A test-data file as the graph value it holds: an array, a list of
    arrays (sequence), or (present, value) for an optional."""
    kind = type_proto.WhichOneof("value") if type_proto is not None else "tensor_type"
    with open(path, "rb") as f:
        data = f.read()
    if kind == "sequence_type":
        s = onnx.SequenceProto()
        s.ParseFromString(data)
        return numpy_helper.to_list(s)
    if kind == "optional_type":
        o = onnx.OptionalProto()
        o.ParseFromString(data)
        if o.HasField("tensor_value"):
            return True, numpy_helper.to_array(o.tensor_value)
        if o.HasField("sequence_value"):
            return True, numpy_helper.to_list(o.sequence_value)
        return False, None
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


def structured(model):
    """Whether a graph input or output is a sequence or an optional."""
    return any(vi.type.WhichOneof("value") in ("sequence_type", "optional_type")
               for vi in list(model.graph.input) + list(model.graph.output))


# ---- bf16: numpy has no bfloat16, so bf16 values travel as kiln-run text --

BF16 = 16  # TensorProto.BFLOAT16; numpy_helper gives its bit patterns as uint16


def bf16_text(bits):
    """kiln-run's --input text for bf16 bit patterns: SHAPExbf16=v,..."""
    vals = (bits.astype(np.uint32) << 16).view(np.float32).ravel()
    dims = "x".join(str(d) for d in bits.shape)
    return "%sbf16=%s" % (dims + "x" if dims else "", ",".join(repr(float(v)) for v in vals))


def bf16_from_text(line, shape):
    """bf16 bit patterns from kiln-run's printed result (values with six
    digits: the nearest bf16 of each is the value printed)."""
    body = line.split("=", 1)[1]
    vals = np.array([float(t) for t in re.findall(r"[-+]?(?:nan|inf|[0-9.]+(?:e[-+]?[0-9]+)?)", body)], np.float32)
    u = vals.view(np.uint32)
    rne = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    rne = np.where(np.isnan(vals), np.uint16(0x7FC0), rne)
    return rne.reshape(shape)


def elem_type(vi):
    t = vi.type
    return t.tensor_type.elem_type if t.WhichOneof("value") == "tensor_type" else None


# The importer's function signature: each result's type and kiln.name.
RESULT_RE = re.compile(r'(\S+) \{kiln\.name = "((?:[^"\\]|\\.)*)"\}')
# A result whose length the run time decides (a list, !kiln.seq): kiln-run
# writes its elements to OUT.0.npy, OUT.1.npy, ...
LIST_NAME = "list:"


def result_names(tools, model_path, flags=()):
    """The names of the module function's results, from the importer's IR
    (a sequence output is NAME[k] per element, or "list:NAME" when it is
    one list of run-time length; an optional NAME.has_value then its
    value); with FLAGS, from kiln-compile's input-stage IR."""
    if flags:
        r = tools.sh([tools.compile, model_path, "--compile-to=input", "-o", "-"] + list(flags))
    else:
        r = tools.sh([tools.import_, model_path])
    if r.returncode != 0:
        return None
    # the graph's function (host loop bodies are private functions before it)
    head = next((l for l in r.stdout.splitlines() if "func.func @" in l), "")
    if "->" not in head:
        return None
    return [(LIST_NAME if t.lstrip("(").startswith("!kiln.seq") else "") + n
            for t, n in RESULT_RE.findall(head.split("->", 1)[1])]


def error_line(text, tool):
    """The most telling line of a tool's stderr: the first that says
    "error", else the last non-empty one; prefixed by TOOL unless the line
    names it already; at most 300 characters."""
    lines = [l.strip() for l in text.strip().splitlines() if l.strip()]
    line = next((l for l in lines if "error" in l), lines[-1] if lines else "(no message)")
    if not line.startswith(tool):
        line = tool + ": " + line
    return line if len(line) <= 300 else line[:297] + "..."


# ---- classification of importer refusals ---------------------------------

# The ONNX layer's messages: "onnx: KIND: where: what" (onnx_errors.def),
# never matched inside a path such as "model.onnx: ...".
ONNX_MSG_RE = re.compile(r"(^|[\s(])onnx: [a-z-]+: ", re.M)
# The kinds that are refusals of valid input (a skip, with the kind as its
# reason): "dynamic" (a shape decided by run-time data), "unsupported"
# (an operator, attribute or type the importer lacks), "opset".
REFUSAL_RE = re.compile(r"onnx: (dynamic|unsupported|opset): ")
# "onnx: unsupported: node 3 'n' (Resize, ai.onnx opset 13): mode ..."
NODE_RE = re.compile(r"\(([A-Za-z0-9_.]+), (?:[A-Za-z0-9_.]+ )?opset (\d+)\)")
# "onnx: opset: ai.onnx opset 11 is outside ...; node 0 (op 'Conv') is ..."
OPSET_RE = re.compile(r"opset (\d+) is outside.*\(op '([^']+)'\)")


def refusal(msg):
    """(reason, op key, detail) when MSG is the importer refusing valid
    input, else None. The reason is the message's kind; the key is the op
    type the message names; refusals not tied to a node (graph inputs,
    opsets) get a bracketed key."""
    line = next((l for l in msg.splitlines() if REFUSAL_RE.search(l)), None)
    if line is None:
        return None
    reason = REFUSAL_RE.search(line).group(1)
    m = NODE_RE.search(line)
    if m:
        return reason, m.group(1), line.split("): ", 1)[-1].strip()
    m = OPSET_RE.search(line)
    if m:  # the loader names the first node bound to the opset
        return reason, m.group(2), "opset %s outside the supported range" % m.group(1)
    rest = line.split("onnx: %s: " % reason, 1)[-1]
    if reason == "opset":
        return reason, "[opset]", rest
    if "graph input" in line or "graph output" in line:
        return reason, "[graph input/output type]", rest
    if "initializer" in line:
        return reason, "[initializer]", rest
    return reason, "[other]", rest


# ---- comparison ------------------------------------------------------------

def as_text(a):
    """A string tensor (numpy_helper's object array of str or bytes) as
    numpy unicode, which .npy stores without pickling and kiln-run reads
    and writes (str tensors, UTF-8 inside Kiln)."""
    flat = [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in a.ravel()]
    return np.array(flat, dtype=str).reshape(a.shape) if flat else np.zeros(a.shape, dtype="<U1")


def compare(got, want):
    """None when GOT matches WANT under ONNX's tolerances, else why not
    (strings exactly)."""
    if want.dtype == object or want.dtype.kind in "US":
        if got.dtype.kind != "U":
            return "mismatch", "element type %s, expected strings" % got.dtype
        if got.shape != want.shape:
            return "mismatch", "shape %s, expected %s" % (got.shape, want.shape)
        bad = int(np.count_nonzero(got != as_text(want)))
        return None if bad == 0 else ("mismatch", "%d of %d strings differ" % (bad, want.size))
    if got.dtype != want.dtype:
        return "mismatch", "element type %s, expected %s" % (got.dtype, want.dtype)
    if got.shape != want.shape:
        return "mismatch", "shape %s, expected %s" % (got.shape, want.shape)
    if want.dtype.kind in "fc":
        g = got.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
        w = want.astype(g.dtype)
        if np.allclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True):
            return None
        both_nan = np.isnan(g) & np.isnan(w)
        diff = np.where(both_nan, 0.0, np.abs(g - w))
        diff = np.where(np.isnan(diff), np.inf, diff)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(np.abs(w) > 0, diff / np.abs(w), np.where(diff > 0, np.inf, 0.0))
        bad = int(np.count_nonzero(~np.isclose(g, w, rtol=RTOL, atol=ATOL, equal_nan=True)))
        return "mismatch", "max abs error %.3g, max rel error %.3g (%d of %d elements)" % (
            float(diff.max()), float(rel.max()), bad, want.size)
    if np.array_equal(got, want):
        return None
    bad = int(np.count_nonzero(got != want))
    return "mismatch", "%d of %d elements differ (exact comparison)" % (bad, want.size)


# ---- random operators: shapes and statistics, not values --------------------

RANDOM_OPS = ("Bernoulli", "Multinomial", "RandomNormal", "RandomNormalLike", "RandomUniform",
              "RandomUniformLike")


def random_op(model, inputs):
    """The random node whose draws a case's outputs carry (Dropout counts
    when its training_mode is true or a run-time input), else None."""
    feeds = dict(zip([vi.name for vi in model.graph.input], inputs))
    consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type in RANDOM_OPS:
            return n
        if n.op_type == "Dropout" and len(n.input) > 2 and n.input[2]:
            v = feeds.get(n.input[2], consts.get(n.input[2]))
            if v is None or bool(np.asarray(v).ravel()[0]):
                return n
    return None


def within_binomial(k, n, p):
    """K successes of N draws at probability P: within 4.5 standard
    deviations (a false alarm about once in 150000 runs)."""
    sd = (n * p * (1 - p)) ** 0.5
    return abs(k - n * p) <= 4.5 * sd + 1e-9


def compare_random(node, inputs, outs, wants):
    """None when the outputs of a case drawn by random NODE are
    consistent with it, else (reason, detail)."""
    for k, (g, w) in enumerate(zip(outs, wants)):
        if g.dtype != w.dtype or g.shape != w.shape:
            return "mismatch", "output %d: %s %s, expected %s %s" % (k, g.dtype, g.shape, w.dtype, w.shape)
    y = outs[0]
    if node.op_type == "Dropout":
        x = inputs[0]
        r = float(np.asarray(inputs[1]).ravel()[0]) if len(inputs) > 1 else 0.5
        kept = x / (1 - r) if r < 1 else np.zeros_like(x)
        mask = outs[1] if len(outs) > 1 else ~np.isclose(y, 0) | (x == 0)
        want = np.where(mask, kept, 0).astype(y.dtype)
        if not np.allclose(y, want, rtol=1e-5, atol=1e-7):
            return "mismatch", "output 0 is not x / (1 - ratio) where kept and 0 where dropped"
        if not within_binomial(int(np.count_nonzero(~mask)), mask.size, r):
            return "mismatch", "%d of %d dropped at ratio %g" % (int(np.count_nonzero(~mask)), mask.size, r)
        return None
    if node.op_type == "Bernoulli" or node.op_type == "RandomUniformLike":
        if not np.all((y == 0) | (y == 1)):
            return "mismatch", "output 0 holds values other than 0 and 1"
        if node.op_type == "Bernoulli":
            p = np.asarray(inputs[0], np.float64)
            if np.any(y[p == 0] != 0) or np.any(y[p == 1] != 1):
                return "mismatch", "output 0 differs where p is 0 or 1"
            if y.size >= 50 and not within_binomial(int(np.count_nonzero(y)), y.size, float(p.mean())):
                return "mismatch", "%d ones of %d at mean p %g" % (int(np.count_nonzero(y)), y.size, p.mean())
        return None
    if not np.all(np.isfinite(y)):
        return "mismatch", "output 0 is not finite"
    return None


def compare_structured(model, data, got):
    """("pass", None) or (reason, detail): each graph output against its
    test data, sequences element by element, optionals by presence then
    value (RESULTS by name: NAME, NAME[k], NAME.has_value)."""
    for k, vi in enumerate(model.graph.output):
        want = load_value(os.path.join(data, "output_%d.pb" % k), vi.type)
        kind = vi.type.WhichOneof("value")
        if kind == "optional_type":
            flag = got.get(vi.name + ".has_value")
            if flag is None or bool(flag) != want[0]:
                return "mismatch", "output %d: present %s, expected %s" % (k, flag, want[0])
            if not want[0]:
                continue
            kind, want = ("sequence_type" if isinstance(want[1], list) else "tensor_type"), want[1]
        if kind == "sequence_type":
            have = got.get(LIST_NAME + vi.name, [])
            while "%s[%d]" % (vi.name, len(have)) in got:
                have.append(got["%s[%d]" % (vi.name, len(have))])
            if len(have) != len(want):
                return "mismatch", "output %d: a sequence of %d tensors, expected %d" % (k, len(have), len(want))
            for j, (g, w) in enumerate(zip(have, want)):
                why = compare(g, w)
                if why:
                    return why[0], "output %d[%d]: %s" % (k, j, why[1])
            continue
        if vi.name not in got:
            return "run error", "output %d (%s) was not returned" % (k, vi.name)
        why = compare(got[vi.name], want)
        if why:
            return why[0], "output %d: %s" % (k, why[1])
    return "pass", None


# ---- one case --------------------------------------------------------------

class Tools:
    def __init__(self, args):
        self.compile = args.compile
        self.run = args.run
        self.import_ = args.import_
        self.device = args.device
        self.timeout = args.timeout
        self.direct = None  # does kiln-compile take .onnx? set by probe()

    def sh(self, argv):
        return subprocess.run(argv, capture_output=True, text=True,
                              timeout=self.timeout)

    def probe(self, model, work):
        """kiln-compile takes ONNX when it imports MODEL or refuses it with
        the importer's own message; anything else (an MLIR parse error on
        protobuf bytes, "not supported yet") means it does not."""
        out = os.path.join(work, "probe.mlir")
        r = self.sh([self.compile, model, "--compile-to=input", "-o", out])
        self.direct = r.returncode == 0 or bool(ONNX_MSG_RE.search(r.stderr))
        if not self.direct and not (self.import_ and os.path.exists(self.import_)):
            raise SystemExit("run_conformance: kiln-compile does not take ONNX input (%s) "
                             "and kiln-onnx-import is not available" % error_line(r.stderr, "kiln-compile"))

    def compile_model(self, model, work, flags=()):
        """(status, detail): ("ok", module path) or a classified failure.
        FLAGS: kiln-compile's shape options (sequence inputs)."""
        kiln = os.path.join(work, "model.kiln")
        if self.direct:
            r = self.sh([self.compile, model, "-o", kiln] + list(flags))
            if r.returncode != 0:
                ref = refusal(r.stderr)
                if ref:
                    return "skip", ref
                return "compile error", error_line(r.stderr, "kiln-compile")
            return "ok", kiln
        if flags:  # kiln-onnx-import takes no shape options
            return "skip", ("dynamic", "[graph input/output type]",
                            "sequence inputs need kiln-compile's --sequence-length (ONNX input)")
        mlir = os.path.join(work, "model.mlir")
        r = self.sh([self.import_, model, "-o", mlir])
        if r.returncode != 0:
            ref = refusal(r.stderr)
            if ref:
                return "skip", ref
            return "compile error", "(exit %d) %s" % (
                r.returncode, error_line(r.stderr, "kiln-onnx-import"))
        r = self.sh([self.compile, mlir, "-o", kiln])
        if r.returncode != 0:
            return "compile error", error_line(r.stderr, "kiln-compile")
        return "ok", kiln


def graph_inputs(model):
    return [vi for vi in model.graph.input
            if vi.name not in {t.name for t in model.graph.initializer}]


def sequence_flags(model, data):
    """kiln-compile's options for the sequence graph inputs: each one's
    length in the test data, and the shape of elements of unknown rank."""
    flags = []
    for k, vi in enumerate(graph_inputs(model)):
        t = vi.type
        if t.WhichOneof("value") == "optional_type" and t.optional_type.elem_type.WhichOneof("value") == "sequence_type":
            t = t.optional_type.elem_type
        if t.WhichOneof("value") != "sequence_type":
            continue
        path = os.path.join(data, "input_%d.pb" % k)
        v = load_value(path, vi.type) if os.path.exists(path) else []
        seq = v[1] if isinstance(v, tuple) else v
        seq = seq if seq is not None else []
        flags.append("--sequence-length=%s=%d" % (vi.name, len(seq)))
        et = t.sequence_type.elem_type
        if not (et.WhichOneof("value") == "tensor_type" and et.tensor_type.HasField("shape")):
            flags += ["--static-shape=%s[%d]=%s" % (vi.name, j, "x".join(str(d) for d in a.shape))
                      for j, a in enumerate(seq)]
    return flags


def run_case(tools, root, work_root, name):
    """(name, status, detail) with status pass / skip / a failure reason."""
    case = os.path.join(root, name)
    work = os.path.join(work_root, name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    data = os.path.join(case, "test_data_set_0")
    try:
        model = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False)
        flags = sequence_flags(model, data)
        status, detail = tools.compile_model(os.path.join(case, "model.onnx"), work, flags)
        if status == "skip" and detail[1] == "[opset]":
            # No node named (a model importing no default-domain opset):
            # key by its first node's op type.
            nodes = onnx.load(os.path.join(case, "model.onnx"), load_external_data=False).graph.node
            if nodes:
                op = (nodes[0].domain + "." if nodes[0].domain else "") + nodes[0].op_type
                detail = (detail[0], op, detail[2])
        if status != "ok":
            return name, status, detail
        argv = [tools.run, "--module=" + detail, "--device=" + tools.device]
        n_in = sum(1 for f in os.listdir(data) if re.fullmatch(r"input_\d+\.pb", f))
        inputs = []
        ins = graph_inputs(model)
        for k in range(n_in):
            vi = ins[k] if k < len(ins) else None
            v = load_value(os.path.join(data, "input_%d.pb" % k), vi.type if vi else None)
            if isinstance(v, tuple) and (isinstance(v[1], list) or v[1] is None and
                                         vi.type.optional_type.elem_type.WhichOneof("value") == "sequence_type"):
                pair = (v[1] or []) + [np.array(v[0])]  # an optional sequence: its elements, its flag
            elif isinstance(v, list):  # a sequence: one argument per element
                pair = v
            elif isinstance(v, tuple):  # an optional tensor: the tensor (zeros when absent), its flag
                tt = vi.type.optional_type.elem_type.tensor_type
                shape = [d.dim_value for d in tt.shape.dim]
                zero = np.zeros(shape, onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[tt.elem_type])
                pair = [v[1] if v[0] else zero, np.array(v[0])]
            else:
                pair = [v]
            inputs.append(pair[0] if pair else None)
            for j, a in enumerate(pair):
                if vi is not None and elem_type(vi) == BF16:
                    argv.append("--input=" + bf16_text(a))
                    continue
                p = os.path.join(work, "in%d_%d.npy" % (k, j))
                np.save(p, as_text(a) if a.dtype == object else a, allow_pickle=False)
                argv.append("--input=@" + p)
        names = None
        if structured(model):  # sequences and optionals: one result per tensor, by name
            if not (tools.import_ and os.path.exists(tools.import_)):
                return name, "harness error", "sequence/optional outputs need --import (result names)"
            names = result_names(tools, os.path.join(case, "model.onnx"), flags)
            if names is None:
                return name, "harness error", "kiln-onnx-import gave no function signature"
        else:
            names = [vi.name for vi in model.graph.output]
        outs = []
        bf16_out = {k for k, vi in enumerate(model.graph.output) if elem_type(vi) == BF16 and names[k] == vi.name}
        for k in range(len(names)):
            outs.append(os.path.join(work, "out%d.npy" % k))
            argv.append("--output=" + ("-" if k in bf16_out else "@" + outs[-1]))
        r = tools.sh(argv)
        if r.returncode != 0:
            return name, "run error", error_line(r.stderr, "kiln-run")
        printed = {int(m.group(1)): m.group(0) for m in re.finditer(r"^result\[(\d+)\]: .*$", r.stdout, re.M)}
        got = []
        for k, p in enumerate(outs):
            if k in bf16_out:
                if k not in printed:
                    return name, "run error", "kiln-run printed no result %d" % k
                shape = [d.dim_value for d in model.graph.output[k].type.tensor_type.shape.dim]
                got.append(bf16_from_text(printed[k], shape))
                continue
            if names[k].startswith(LIST_NAME):  # a list: one file per element
                stem = p[:-len(".npy")]
                got.append([])
                while os.path.exists("%s.%d.npy" % (stem, len(got[-1]))):
                    got[-1].append(np.load("%s.%d.npy" % (stem, len(got[-1]))))
                continue
            if not os.path.exists(p):
                return name, "run error", "kiln-run wrote no %s" % os.path.basename(p)
            got.append(np.load(p))
        want = [] if structured(model) else \
            [load_tensor(os.path.join(data, "output_%d.pb" % k)) for k in range(len(outs))]
        rnd = None if structured(model) else random_op(model, inputs)
        if structured(model):
            why = compare_structured(model, data, dict(zip(names, got)))
            if why[0] != "pass":
                return (name,) + why
        elif rnd is not None:  # drawn at random: shapes and statistics
            why = compare_random(rnd, inputs, got, want)
            if why:
                return name, why[0], "%s (random %s)" % (why[1], rnd.op_type)
        for k in range(len(want)) if rnd is None else ():
            why = compare(got[k], want[k])
            if why:
                return name, why[0], "output %d: %s" % (k, why[1])
    except subprocess.TimeoutExpired as e:
        return name, "timeout", "%s took over %gs" % (os.path.basename(e.cmd[0]), e.timeout)
    except Exception as e:  # a harness problem is a failure, never a crash of the run
        return name, "harness error", "%s: %s" % (type(e).__name__, e)
    shutil.rmtree(work, ignore_errors=True)  # keep only what failed, to look at
    return name, "pass", None


# ---- the expected-passes list ----------------------------------------------

def read_expected(path):
    names = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                names.append(line)
    return names


def add_passes(path, new):
    with open(path) as f:
        lines = f.read().splitlines()
    header = [l for l in lines if l.startswith("#")]
    names = sorted(set(read_expected(path)) | set(new))
    with open(path, "w") as f:
        f.write("\n".join(header + names) + "\n")


# ---- main ------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--import", dest="import_", default=None)
    ap.add_argument("--nodes", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--expected", required=True)
    ap.add_argument("--device", default="local-task")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--add-passes", action="store_true")
    ap.add_argument("--list-skips", action="store_true",
                    help="name every skipped case under its reason")
    ap.add_argument("--via-import", action="store_true",
                    help="always go through kiln-onnx-import and MLIR text")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()

    if onnx is None:
        print("skipped: python3-onnx or numpy is missing (%s); run scripts/bootstrap.sh"
              % IMPORT_ERROR)
        return 77
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    if not os.path.isdir(args.nodes):
        print("run_conformance: no node tests in %s (the onnx_nodes_generate fixture "
              "writes them)" % args.nodes)
        return 1
    every = sorted(n for n in os.listdir(args.nodes)
                   if os.path.isfile(os.path.join(args.nodes, n, "model.onnx")))
    names = [n for n in every if not args.names or n in args.names]
    os.makedirs(args.work, exist_ok=True)

    tools = Tools(args)
    if args.via_import:
        tools.direct = False
    elif names:
        tools.probe(os.path.join(args.nodes, names[0], "model.onnx"), args.work)
    print("compiling %s; running on %s; %d cases, %d at a time, %gs per tool call"
          % ("ONNX directly with kiln-compile" if tools.direct
             else "through kiln-onnx-import then kiln-compile",
             args.device, len(names), args.jobs, args.timeout), flush=True)

    results = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futs = [pool.submit(run_case, tools, args.nodes, args.work, n) for n in names]
        for fut in concurrent.futures.as_completed(futs):
            results.append(fut.result())
    results.sort()

    passed = [n for n, s, _ in results if s == "pass"]
    skipped = [(n, d) for n, s, d in results if s == "skip"]
    failed = [(n, s, d) for n, s, d in results if s not in ("pass", "skip")]

    if failed:
        by_reason = collections.defaultdict(list)
        for n, s, d in failed:
            by_reason[s].append((n, d))
        print("\nfailures by reason:")
        for reason, cases in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("  %-14s %4d" % (reason, len(cases)))
        for reason, cases in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("\n%s (%d):" % (reason, len(cases)))
            for n, d in cases:
                print("  %s: %s" % (n, d))
    if skipped:
        by_reason = collections.defaultdict(list)
        for n, (reason, op, why) in skipped:
            by_reason[reason].append((n, op, why))
        print("\nskipped (refused by the importer), by reason:")
        for reason, cases in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            print("  %-12s %4d  %s" % (reason, len(cases), SKIP_REASONS.get(reason, "")))
        for reason, cases in sorted(by_reason.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            by_op = collections.defaultdict(list)
            for n, op, why in cases:
                by_op[op].append((n, why))
            print("\nskipped (%s), by op type:" % reason)
            for op, items in sorted(by_op.items(), key=lambda kv: (-len(kv[1]), kv[0])):
                common = collections.Counter(w[:70] for _, w in items).most_common(2)
                print("  %-34s %4d  %s" % (op, len(items), "; ".join(
                    "%s (%d)" % (w, k) if len(common) > 1 else w for w, k in common)))
            if args.list_skips:
                for n, op, why in cases:
                    print("    %s: %s: %s" % (n, op, why))

    rc = 0
    listed = read_expected(args.expected)
    ok = set(passed)
    ran = set(names)
    for n in listed:
        if n not in every:
            print("FAIL: %s is listed in %s but there is no such node test" % (n, args.expected))
            rc = 1
        elif n in ran and n not in ok:
            print("FAIL: %s is listed as an expected pass but did not pass" % n)
            rc = 1
    new = sorted(ok - set(listed))
    if new:
        if args.add_passes:
            add_passes(args.expected, new)
            print("\nadded %d passing cases to %s" % (len(new), args.expected))
        else:
            print("\n%d cases pass but are not listed; add these to expected_passes.txt:" % len(new))
            for n in new:
                print("  " + n)
    print("\n%d expected passes listed" % len(listed))
    print("%d passed, %d failed, %d skipped" % (len(passed), len(failed), len(skipped)))
    return rc


if __name__ == "__main__":
    sys.exit(main())
