#!/usr/bin/python3
"""e2e.runtime.stack: runtime.h says a local-sync caller thread needs 512
KiB of stack and that a smaller one faults on its guard page rather than
running past it. This writes a model whose kernel keeps a large frame (a
grouped 3x3 convolution of 8 channels a group at stride 2, whose packed
weight panel lives on the stack: 147 KiB here), compiles it for the CPU
this test runs on (KILN_CPU_FEATURES included) and runs stack_check on
it, which calls it on a 512 KiB thread and then on a 128 KiB one above a
guard page and a marker region (stack_check.c says how it judges). 128
KiB, not less: under AddressSanitizer the runtime's own frames overflow
64 KiB before any kernel runs.

usage: stack_check.py KILN_COMPILE STACK_CHECK WORK"""
import os
import subprocess
import sys


def main():
    compile_, check, work = sys.argv[1:4]
    try:
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper, save
    except ImportError as e:
        print("skipped: %s (python3-onnx and python3-numpy: scripts/bootstrap.sh)" % e)
        return 77
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(5)
    c, groups, side = 512, 64, 17
    w = (rng.standard_normal((c, c // groups, 3, 3)) * 0.05).astype(np.float32)
    b = (rng.standard_normal(c) * 0.1).astype(np.float32)
    out_side = (side + 2 - 3) // 2 + 1
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["y"], group=groups, kernel_shape=[3, 3],
                          pads=[1, 1, 1, 1], strides=[2, 2])],
        "grouped",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, side, side])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, out_side, out_side])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    onnx_path = os.path.join(work, "grouped.onnx")
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), onnx_path)
    module = os.path.join(work, "grouped.kiln")
    subprocess.run([compile_, onnx_path, "-o", module], check=True)
    return subprocess.run([check, module, "128"]).returncode


if __name__ == "__main__":
    sys.exit(main())
