#!/usr/bin/python3
"""Writes the ONNX backend node tests into a build folder.

Usage: /usr/bin/python3 generate.py OUT_DIR

Takes Debian's python3-onnx (1.12) and runs its own test-data generator
(onnx.backend.test.cmd_tools, "generate-data") into OUT_DIR, which then
holds OUT_DIR/node/test_*/model.onnx and test_data_set_0/{input,output}_N.pb
(serialized TensorProto). Guarantees:
- the data is ONNX's: every exported case is produced by the generator,
  which reseeds numpy (np.random.seed(0)) before each case, so two runs
  write the same inputs and outputs; nothing is filtered or edited here
  but the ERRATA below: models that 1.12 wrote inconsistent with their
  own reference outputs, corrected exactly as ONNX later corrected them
  (the reference outputs are never touched);
- the numpy aliases removed in numpy 1.24 (np.float, np.int, np.bool,
  np.object, np.complex) that the 1.12 generator still uses are defined
  first, as the builtins they used to alias;
- a complete earlier run is reused: OUT_DIR/.complete records the count and
  the onnx version, and generation is skipped when it matches and every
  recorded folder still has its model.onnx;
- exit status 0 only when at least EXPECTED_MIN node tests exist.
Generation writes into OUT_DIR.tmp and renames it into place, so an
interrupted run never leaves a half-written OUT_DIR behind.
"""
import os
import shutil
import sys
import warnings

EXPECTED_MIN = 922  # what python3-onnx 1.12 writes

# Corrections of models 1.12 wrote inconsistent with their own test data
# (the data is never touched): (tests, fix, why). The count goes into the
# stamp, so a build folder written before a new entry is rewritten.
def _add_attr(op, attr, value):
    def fix(m):
        from onnx import helper
        for n in m.graph.node:
            if n.op_type == op and not any(a.name == attr for a in n.attribute):
                n.attribute.append(helper.make_attribute(attr, value))
    return fix


def _input_shape(name, dims):
    def fix(m):
        for vi in m.graph.input:
            if vi.name == name:
                vi.type.tensor_type.shape.ClearField("dim")
                for d in dims:
                    vi.type.tensor_type.shape.dim.add().dim_value = d
    return fix


ERRATA = [
    # adam.py computes the outputs with epsilon 1e-2 but leaves the
    # attribute off the node (default 1e-6): onnx/onnx#7749, fixed by
    # onnx/onnx#7763, which adds epsilon=0.01 to the model.
    (["test_adam_multiple"], _add_attr("Adam", "epsilon", 0.01), "onnx/onnx#7763"),
    # castlike.py declares 'like' with the output's shape [3, 4] for the
    # bf16 cases while their data holds one element, as in every other
    # castlike case, whose models declare [1].
    (["test_castlike_BFLOAT16_to_FLOAT", "test_castlike_BFLOAT16_to_FLOAT_expanded",
      "test_castlike_FLOAT_to_BFLOAT16", "test_castlike_FLOAT_to_BFLOAT16_expanded"],
     _input_shape("like", [1]), "'like' declared as its data"),
]
STAMP = "errata %d" % sum(len(tests) for tests, _, _ in ERRATA)


def apply_errata(root):
    import onnx
    for tests, fix, _ in ERRATA:
        for test in tests:
            path = os.path.join(root, "node", test, "model.onnx")
            if not os.path.isfile(path):
                continue
            m = onnx.load(path)
            fix(m)
            onnx.save(m, path)


def node_tests(root):
    node = os.path.join(root, "node")
    if not os.path.isdir(node):
        return []
    return sorted(d for d in os.listdir(node)
                  if os.path.isfile(os.path.join(node, d, "model.onnx")))


def main():
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    out = os.path.abspath(sys.argv[1])
    try:
        import numpy as np
        import onnx
    except ImportError as e:
        print(f"generate.py: {e}; run scripts/bootstrap.sh (python3-onnx)")
        return 1
    stamp = os.path.join(out, ".complete")
    want = f"onnx {onnx.__version__}, {STAMP}\n"
    if os.path.isfile(stamp):
        with open(stamp) as f:
            lines = f.read().splitlines(True)
        have = node_tests(out)
        if (lines and lines[0] == want and len(lines) == 2
                and int(lines[1]) == len(have) >= EXPECTED_MIN):
            print(f"generate.py: {len(have)} node tests already in {out}")
            return 0

    # The 1.12 generator predates numpy 1.24, which dropped these aliases.
    # hasattr() on them warns (FutureWarning) in numpy 1.24; quietly.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for alias, builtin in (("float", float), ("int", int),
                               ("bool", bool), ("object", object),
                               ("complex", complex)):
            if not hasattr(np, alias):
                setattr(np, alias, builtin)
    from onnx.backend.test import cmd_tools

    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    sys.argv = ["backend-test-tools", "generate-data", "-o", tmp]
    cmd_tools.main()
    # Only node tests are wanted; the generator also writes "real" and
    # model stubs (URLs of downloadable models), which are dropped.
    for kind in os.listdir(tmp):
        if kind != "node":
            shutil.rmtree(os.path.join(tmp, kind))
    have = node_tests(tmp)
    if len(have) < EXPECTED_MIN:
        print(f"generate.py: only {len(have)} node tests written "
              f"(expected {EXPECTED_MIN})")
        return 1
    apply_errata(tmp)
    with open(os.path.join(tmp, ".complete"), "w") as f:
        f.write(f"{want}{len(have)}\n")
    shutil.rmtree(out, ignore_errors=True)
    os.rename(tmp, out)
    print(f"generate.py: wrote {len(have)} node tests into {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
