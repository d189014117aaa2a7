#!/usr/bin/python3
"""The statistics of Kiln's random operators, on samples large enough to
tell a generator from a broken one.

usage: random_stats.py --compile=KILN_COMPILE --run=KILN_RUN --work=DIR

Builds one model (opset 15) with RandomUniform, RandomNormal, their -Like
forms, Bernoulli, Multinomial and a training-mode Dropout, compiles it
with kiln-compile, runs it twice with kiln-run on local-task and checks:
moments within 6 standard errors of the distribution's (mean, variance;
uniform bounds; Bernoulli and Dropout rates against binomial bounds;
Multinomial class frequencies), a flat histogram (chi-square of 20 bins
below a 1e-6 false-alarm bound), independence of neighbouring draws
(lag-1 correlation), distinct streams for nodes without a seed, and the
same draws on the second run (the generator is keyed by the seed or the
node's position). Exit 0 when every check holds, 1 otherwise, 77 when
python3-onnx/numpy or the tools are missing.
"""
import argparse
import os
import subprocess
import sys

try:
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
except ImportError as e:
    print("skipped: python3-onnx or numpy is missing (%s)" % e)
    sys.exit(77)

N = 200000


def model():
    f32 = TensorProto.FLOAT
    p = helper.make_tensor_value_info("p", f32, [N])
    x = helper.make_tensor_value_info("x", f32, [N])
    logits = helper.make_tensor_value_info("logits", f32, [2, 3])
    outs = [("u", f32, [N]), ("u2", f32, [N]), ("n", f32, [N]), ("ul", TensorProto.DOUBLE, [N]),
            ("nl", f32, [N]), ("b", f32, [N]), ("m", TensorProto.INT64, [2, N // 10]), ("d", f32, [N]),
            ("dm", TensorProto.BOOL, [N])]
    train = numpy_helper.from_array(np.array(True), "train")
    ratio = numpy_helper.from_array(np.array(0.3, np.float32), "ratio")
    nodes = [
        helper.make_node("RandomUniform", [], ["u"], shape=[N], low=-1.0, high=3.0),
        helper.make_node("RandomUniform", [], ["u2"], shape=[N], low=-1.0, high=3.0),
        helper.make_node("RandomNormal", [], ["n"], shape=[N], mean=2.0, scale=3.0, seed=7.0),
        helper.make_node("RandomUniformLike", ["x"], ["ul"], dtype=TensorProto.DOUBLE),
        helper.make_node("RandomNormalLike", ["x"], ["nl"]),
        helper.make_node("Bernoulli", ["p"], ["b"]),
        helper.make_node("Multinomial", ["logits"], ["m"], sample_size=N // 10, dtype=TensorProto.INT64),
        helper.make_node("Dropout", ["x", "ratio", "train"], ["d", "dm"], seed=3),
    ]
    g = helper.make_graph(nodes, "random_stats", [p, x, logits],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outs], [train, ratio])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    return m, [o[0] for o in outs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--compile", required=True)
    ap.add_argument("--run", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    for tool in (args.compile, args.run):
        if not os.path.exists(tool):
            print("skipped: %s is not built" % tool)
            return 77
    os.makedirs(args.work, exist_ok=True)
    m, names = model()
    path = os.path.join(args.work, "random.onnx")
    onnx.save(m, path)
    kiln = os.path.join(args.work, "random.kiln")
    subprocess.run([args.compile, path, "-o", kiln], check=True)
    rng = np.random.default_rng(0)
    feeds = {"p": np.linspace(0, 1, N, dtype=np.float32) ** 2, "x": rng.standard_normal(N).astype(np.float32),
             "logits": np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]], np.float32))}
    argv = [args.run, "--module=" + kiln, "--device=local-task"]
    for k in ("p", "x", "logits"):
        np.save(os.path.join(args.work, k + ".npy"), feeds[k])
        argv.append("--input=@" + os.path.join(args.work, k + ".npy"))
    runs = []
    for r in range(2):
        outs = [os.path.join(args.work, "%s%d.npy" % (n, r)) for n in names]
        subprocess.run(argv + ["--output=@" + o for o in outs], check=True)
        runs.append({n: np.load(o) for n, o in zip(names, outs)})
    y = runs[0]
    fails = []

    def check(ok, what):
        print("%s: %s" % ("ok" if ok else "FAIL", what))
        if not ok:
            fails.append(what)

    def moments(v, mean, var, what):
        v = v.astype(np.float64)
        se_mean = (var / v.size) ** 0.5
        check(abs(v.mean() - mean) < 6 * se_mean, "%s mean %.4f (expected %g)" % (what, v.mean(), mean))
        se_var = var * (2.0 / v.size) ** 0.5 * 1.5  # a little above the normal's, for the uniform's
        check(abs(v.var() - var) < 6 * se_var, "%s variance %.4f (expected %g)" % (what, v.var(), var))

    def flat(u, lo, hi, what):
        h, _ = np.histogram(u, bins=20, range=(lo, hi))
        e = u.size / 20
        chi2 = float(((h - e) ** 2 / e).sum())
        check(chi2 < 70, "%s histogram chi-square %.1f over 20 bins (bound 70)" % (what, chi2))

    def independent(v, what):
        v = v.astype(np.float64) - v.mean()
        r = float((v[1:] * v[:-1]).mean() / v.var())
        check(abs(r) < 6 / v.size ** 0.5, "%s lag-1 correlation %.5f" % (what, r))

    check(y["u"].min() >= -1 and y["u"].max() < 3, "RandomUniform within [-1, 3)")
    moments(y["u"], 1.0, 16 / 12, "RandomUniform")
    flat(y["u"], -1, 3, "RandomUniform")
    independent(y["u"], "RandomUniform")
    check(not np.array_equal(y["u"], y["u2"]), "two unseeded RandomUniform nodes draw differently")
    moments(y["n"], 2.0, 9.0, "RandomNormal")
    independent(y["n"], "RandomNormal")
    z = (y["n"].astype(np.float64) - 2) / 3
    check(abs(np.mean(np.abs(z) < 1) - 0.6827) < 0.006, "RandomNormal within one sigma %.4f (0.6827)"
          % np.mean(np.abs(z) < 1))
    check(y["ul"].dtype == np.float64 and y["ul"].min() >= 0 and y["ul"].max() < 1, "RandomUniformLike f64 in [0, 1)")
    flat(y["ul"], 0, 1, "RandomUniformLike")
    moments(y["nl"], 0.0, 1.0, "RandomNormalLike")
    b = y["b"]
    check(np.all((b == 0) | (b == 1)) and b[0] == 0 and b[-1] == 1, "Bernoulli in {0, 1}, p = 0 and 1 exact")
    pm = float(feeds["p"].astype(np.float64).mean())
    var = float((feeds["p"] * (1 - feeds["p"])).astype(np.float64).sum())
    check(abs(b.sum() - pm * N) < 6 * var ** 0.5, "Bernoulli %d ones (expected %.0f)" % (b.sum(), pm * N))
    for row, probs in enumerate(([0.1, 0.2, 0.7], [0.5, 0.25, 0.25])):
        cnt = np.bincount(y["m"][row], minlength=3)
        n = y["m"].shape[1]
        ok = len(cnt) == 3 and all(abs(cnt[k] - probs[k] * n) < 6 * (n * probs[k] * (1 - probs[k])) ** 0.5
                                   for k in range(3))
        check(ok, "Multinomial row %d class counts %s of %d (p %s)" % (row, cnt.tolist(), n, probs))
    d, dm, x = y["d"], y["dm"], feeds["x"]
    check(np.allclose(d, np.where(dm, x / 0.7, 0), rtol=1e-6), "Dropout keeps x / (1 - ratio) where the mask is set")
    dropped = int(np.count_nonzero(~dm))
    check(abs(dropped - 0.3 * N) < 6 * (N * 0.21) ** 0.5, "Dropout dropped %d of %d (ratio 0.3)" % (dropped, N))
    check(all(np.array_equal(runs[0][k], runs[1][k]) for k in names), "a second run draws the same values")
    print("%d checks failed" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
