#!/usr/bin/python3
"""e2e.runtime.check_bundled: kiln-compile --bundle-io stores check data
in the module and kiln-run --check-bundled runs it (issue 22, must-show 2).

The samples' inputs and expected outputs (samples/*.inputs, *.expected,
computed by samples/gen_samples.py outside Kiln) become .npy files. Checks:
- mlp bundled with its expected output passes on local-sync and the pool
  device (exit 0, "pass", the max abs error printed);
- the same with one expected element moved by 0.5 fails (exit 1, "FAIL",
  max abs error 0.5), and passes again with --check-atol=0.6;
- simple_mul (two inputs) with two cases in one module (--bundle-io twice);
- kiln-dump lists the cases (function, names, types, sizes), in text and
  as --json's "bundled_checks" (empty without check data);
- kiln-compile refuses a wrong shape, a wrong dtype, a wrong count and a
  malformed .npy, naming the file, and writes no module;
- --check-bundled on a module without check data fails, and refuses
  --input.
Skips (77) without numpy.

usage: check_bundled.py KILN_COMPILE KILN_RUN KILN_DUMP SAMPLES WORK POOL_DEVICE"""
import json
import os
import re
import subprocess
import sys


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, expect=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != expect:
        fail("%s exited %d (expected %d):\n%s%s" % (" ".join(cmd), r.returncode,
                                                    expect, r.stdout, r.stderr))
    return r


def parse_tensor(np, line):
    """'2x4xf32=1 2 ...' -> a float32 array."""
    spec, values = line.strip().split("=", 1)
    dims = [int(d) for d in spec.split("x")[:-1]]
    return np.array([float(v) for v in values.split()], dtype=np.float32).reshape(dims)


def main():
    compile_, kiln_run, dump, samples, work, pool = sys.argv[1:7]
    try:
        import numpy as np
    except ImportError as e:
        print("skipped: %s (python3-numpy: scripts/bootstrap.sh)" % e)
        return 77
    os.makedirs(work, exist_ok=True)
    w = lambda name: os.path.join(work, name)

    def sample(name):
        ins = [parse_tensor(np, l) for l in open(os.path.join(samples, name + ".inputs")) if l.strip()]
        outs = [parse_tensor(np, l) for l in open(os.path.join(samples, name + ".expected")) if l.strip()]
        return ins, outs

    (x,), (y,) = sample("mlp")
    np.save(w("x.npy"), x)
    np.save(w("y.npy"), y)
    y_bad = y.copy()
    y_bad.flat[5] += 0.5
    np.save(w("y_bad.npy"), y_bad)
    mlp = os.path.join(samples, "mlp.mlir")

    good, bad = w("mlp_good.kiln"), w("mlp_bad.kiln")
    run([compile_, mlp, "-o", good, "--bundle-io=%s:%s" % (w("x.npy"), w("y.npy"))])
    run([compile_, mlp, "-o", bad, "--bundle-io=%s:%s" % (w("x.npy"), w("y_bad.npy"))])
    for device in ("local-sync", pool):
        r = run([kiln_run, "--module=" + good, "--check-bundled", "--device=" + device])
        m = re.search(r"check 0: output 0 \(y\.npy\): max abs error (\S+), max rel error \S+: pass",
                      r.stdout)
        if not m or float(m.group(1)) > 1e-5:
            fail("bundled mlp on %s did not pass:\n%s" % (device, r.stdout))
        if "bundled checks: 1 passed, 0 failed" not in r.stdout:
            fail("summary missing:\n" + r.stdout)
        r = run([kiln_run, "--module=" + bad, "--check-bundled", "--device=" + device], expect=1)
        m = re.search(r"output 0 \(y_bad\.npy\): max abs error (\S+), .*FAIL \(1 of 8 elements off, "
                      r"first at flat index 5\)", r.stdout)
        if not m or abs(float(m.group(1)) - 0.5) > 1e-3:
            fail("altered expected output did not fail as it should on %s:\n%s" % (device, r.stdout))
        if "bundled checks: 0 passed, 1 failed" not in r.stdout:
            fail("summary missing:\n" + r.stdout)
    r = run([kiln_run, "--module=" + bad, "--check-bundled", "--check-atol=0.6"])
    if "1 passed, 0 failed (atol 0.6" not in r.stdout:
        fail("--check-atol=0.6 did not let a 0.5 error pass:\n" + r.stdout)

    # Two inputs, two cases.
    (a, b), (c,) = sample("simple_mul")
    np.save(w("a.npy"), a)
    np.save(w("b.npy"), b)
    np.save(w("c.npy"), c)
    np.save(w("b2.npy"), b * 2)
    np.save(w("c2.npy"), c * 2)
    two = w("mul_two.kiln")
    run([compile_, os.path.join(samples, "simple_mul.mlir"), "-o", two,
         "--bundle-io=%s,%s:%s" % (w("a.npy"), w("b.npy"), w("c.npy")),
         "--bundle-io=%s,%s:%s" % (w("a.npy"), w("b2.npy"), w("c2.npy"))])
    r = run([kiln_run, "--module=" + two, "--check-bundled"])
    if "bundled checks: 2 passed, 0 failed" not in r.stdout or "check 1: output 0 (c2.npy)" not in r.stdout:
        fail("two cases:\n" + r.stdout)
    r = run([dump, two])
    want = ("bundled checks (2):\n"
            "  [0] function simple_mul\n"
            "      input 0: a.npy tensor<4xf32> (16 bytes)\n"
            "      input 1: b.npy tensor<4xf32> (16 bytes)\n"
            "      output 0: c.npy tensor<4xf32> (16 bytes)\n"
            "  [1] function simple_mul\n")
    if want not in r.stdout:
        fail("kiln-dump does not list the cases:\n" + r.stdout)
    r = run([dump, good])
    if "output 0: y.npy tensor<2x4xf32> (32 bytes)" not in r.stdout:
        fail("kiln-dump mlp:\n" + r.stdout)
    # --json lists the same; an empty list when there are none.
    j = json.loads(run([dump, "--json", two]).stdout)["bundled_checks"]
    t = {"element_type": "f32", "dims": [4], "bytes": 16}
    want = [{"function": "simple_mul",
             "inputs": [dict(t, name="a.npy"), dict(t, name=b)],
             "outputs": [dict(t, name=c)]} for b, c in (("b.npy", "c.npy"), ("b2.npy", "c2.npy"))]
    if j != want:
        fail("kiln-dump --json bundled_checks:\n%s\nexpected\n%s" % (j, want))
    plain = w("mul_plain.kiln")
    run([compile_, os.path.join(samples, "simple_mul.mlir"), "-o", plain])
    if json.loads(run([dump, "--json", plain]).stdout)["bundled_checks"] != []:
        fail("kiln-dump --json lists bundled checks of a module without any")

    # Bad check data is refused at compile time, naming the file.
    np.save(w("x_shape.npy"), np.zeros((3, 8), np.float32))
    np.save(w("x_int.npy"), np.zeros((2, 8), np.int32))
    with open(w("junk.npy"), "wb") as f:
        f.write(b"\x93NUMPY\x01\x00garbage")
    refused = w("refused.kiln")
    for spec, words in (
            ("x_shape.npy:y.npy", "input 0 (x_shape.npy) is tensor<3x8xf32>, the function wants tensor<2x8xf32>"),
            ("x_int.npy:y.npy", "input 0 (x_int.npy) is tensor<2x8xi32>, the function wants tensor<2x8xf32>"),
            ("x.npy:x.npy", "output 0 (x.npy) is tensor<2x8xf32>, the function wants tensor<2x4xf32>"),
            ("x.npy,x.npy:y.npy", "2 inputs and 1 outputs given, function mlp takes 1 and returns 1"),
            ("junk.npy:y.npy", "junk.npy"),
            ("missing.npy:y.npy", "missing.npy"),
            ("x.npy", "--bundle-io wants")):
        files = re.sub(r"([\w.]+\.npy)", lambda m: w(m.group(1)), spec)
        r = run([compile_, mlp, "-o", refused, "--bundle-io=" + files], expect=1)
        if words not in r.stderr:
            fail("--bundle-io=%s: message lacks '%s':\n%s" % (spec, words, r.stderr))
        if os.path.exists(refused):
            fail("--bundle-io=%s: a module was written" % spec)
    r = run([compile_, mlp, "--compile-to=hal", "--bundle-io=%s:%s" % (w("x.npy"), w("y.npy"))], expect=2)

    # No check data; --input does not go with it.
    plain = w("mlp_plain.kiln")
    run([compile_, mlp, "-o", plain])
    r = run([kiln_run, "--module=" + plain, "--check-bundled"], expect=1)
    if "holds no check data" not in r.stderr:
        fail("no check data:\n" + r.stderr)
    run([kiln_run, "--module=" + good, "--check-bundled", "--input=@" + w("x.npy")], expect=2)
    run([kiln_run, "--module=" + good, "--check-bundled", "--check-atol=-1"], expect=2)
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
