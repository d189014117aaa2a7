#!/usr/bin/python3
"""e2e for compiler/codegen/cpu: hal-level programs whose kernels are
memref linalg ops (as the hal stage leaves them) go through kiln-compile
(codegen: launch config, tiling and distribution, full/partial tiles,
loops and vectors, translation, llvm_cpu) and kiln-run on a CPU device;
results are compared with numpy.

usage: run_hal_kernels.py KILN_COMPILE KILN_RUN WORKDIR DEVICE [CASE...]

Shapes include ones that are not multiples of the tile sizes, and kernels
spread over several workgroups (local-task runs them on its workers). A
case whose compile reports that a stage is not built is skipped; exit 77
when every case was skipped.
"""
import math
import os
import subprocess
import sys

import numpy as np

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def mt(shape):
    return "memref<%sxf32>" % "x".join(str(d) for d in shape)


def program(name, ins, outs, body, targets):
    """A hal-level module: one executable (a variant per target) whose
    kernel binds ins then outs, and a host function dispatching it."""
    binds = []
    for i, s in enumerate(ins + outs):
        binds.append("        %%b%d = hal.interface.binding {binding = %d : i32} : %s" % (i, i, mt(s)))
    n = len(ins) + len(outs)
    variants = []
    for t in targets:
        variants.append(
            '  "hal.executable.variant"() ({\n'
            '    "hal.executable.export"() {sym_name = "%s", ordinal = 0 : i32, binding_count = %d : i32,\n'
            '        readonly_mask = %d : i32, push_constant_count = 0 : i32} : () -> ()\n'
            "    builtin.module {\n      func.func @%s() {\n%s\n%s\n        return\n      }\n    }\n"
            '  }) {sym_name = "%s", target = "%s"} : () -> ()\n'
            % (name, n, (1 << len(ins)) - 1, name, "\n".join(binds), body,
               t.replace(":", "_").replace("+", "_").replace("-", "_"), t))
    lines = ['"hal.executable"() ({\n%s}) {sym_name = "%s_dispatch", sym_visibility = "private"} : () -> ()'
             % ("".join(variants), name)]
    args = ", ".join("%%a%d: !hal.buffer_view" % i for i in range(len(ins)))
    rets = ", ".join("!hal.buffer_view" for _ in outs)
    lines.append("func.func @%s(%s) -> (%s) {" % (name, args, rets))
    ops, lengths = [], []
    for i, s in enumerate(ins):
        lines.append('  "hal.buffer_view.assert"(%%a%d) {input = %d : i32, element_type = f32, shape = array<i64: %s>} : (!hal.buffer_view) -> ()'
                     % (i, i, ", ".join(map(str, s))))
        lines.append('  %%i%d = "hal.buffer_view.buffer"(%%a%d) : (!hal.buffer_view) -> !hal.buffer' % (i, i))
        ops.append("%%i%d" % i)
        lengths.append(4 * int(np.prod(s)))
    for j, s in enumerate(outs):
        size = 4 * int(np.prod(s))
        lines.append('  %%o%d = "hal.buffer.allocate"() {size = %d : i64} : () -> !hal.buffer' % (j, size))
        ops.append("%%o%d" % j)
        lengths.append(size)
    lines.append('  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer')
    lines.append('  "hal.command_buffer.dispatch"(%%cb, %s) {executable = @%s_dispatch, ordinal = 0 : i32, '
                 "offsets = array<i64: %s>, lengths = array<i64: %s>, constants = array<i32>} : (!hal.command_buffer, %s) -> ()"
                 % (", ".join(ops), name, ", ".join("0" for _ in ops), ", ".join(map(str, lengths)),
                    ", ".join("!hal.buffer" for _ in ops)))
    lines.append('  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()')
    lines.append('  "hal.device.wait"() : () -> ()')
    vs = []
    for j, s in enumerate(outs):
        lines.append('  %%v%d = "hal.buffer_view.create"(%%o%d) {offset = 0 : i64, element_type = f32, shape = array<i64: %s>} : (!hal.buffer) -> !hal.buffer_view'
                     % (j, j, ", ".join(map(str, s))))
        vs.append("%%v%d" % j)
    lines.append("  return %s : %s" % (", ".join(vs), rets))
    lines.append("}")
    return "\n".join(lines) + "\n"


def matmul(m, n, k):
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b2 : %s)\n"
            "        linalg.matmul ins(%%b0, %%b1 : %s, %s) outs(%%b2 : %s)"
            % (mt((m, n)), mt((m, k)), mt((k, n)), mt((m, n))))
    return [(m, k), (k, n)], [(m, n)], body, lambda a, b: [a @ b]


def elementwise(r, c):
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.generic {indexing_maps = [%s, %s, %s], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%b0, %%b1 : %s, %s) outs(%%b3 : %s) {\n"
            "        ^bb0(%%x: f32, %%y: f32, %%o: f32):\n"
            "          %%m = arith.mulf %%x, %%y : f32\n          linalg.yield %%m : f32\n        }\n"
            "        linalg.generic {indexing_maps = [%s, affine_map<(d0, d1) -> (d1)>, %s], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%b3, %%b2 : %s, memref<%dxf32>) outs(%%b3 : %s) {\n"
            "        ^bb0(%%x: f32, %%y: f32, %%o: f32):\n"
            "          %%s = arith.addf %%x, %%y : f32\n          %%r = arith.maximumf %%s, %%z : f32\n"
            "          linalg.yield %%r : f32\n        }"
            % (ID2, ID2, ID2, mt((r, c)), mt((r, c)), mt((r, c)), ID2, ID2, mt((r, c)), c, mt((r, c))))
    return [(r, c), (r, c), (c,)], [(r, c)], body, lambda a, b, bias: [np.maximum(a * b + bias, 0)]


def row_sums(r, c):
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b1 : memref<%dxf32>)\n"
            "        linalg.reduce ins(%%b0 : %s) outs(%%b1 : memref<%dxf32>) dimensions = [1]\n"
            "          (%%x: f32, %%acc: f32) {\n            %%s = arith.addf %%x, %%acc : f32\n"
            "            linalg.yield %%s : f32\n          }" % (r, mt((r, c)), r))
    return [(r, c)], [(r,)], body, lambda a: [a.sum(axis=1)]


def conv(h, w, c, kh, kw, f, s):
    oh, ow = (h - kh) // s + 1, (w - kw) // s + 1
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b2 : %s)\n"
            "        linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<%d> : tensor<2xi64>} "
            "ins(%%b0, %%b1 : %s, %s) outs(%%b2 : %s)"
            % (mt((1, oh, ow, f)), s, mt((1, h, w, c)), mt((kh, kw, c, f)), mt((1, oh, ow, f))))

    def ref(x, k):
        o = np.zeros((1, oh, ow, f), np.float64)
        for i in range(kh):
            for j in range(kw):
                patch = x[:, i:i + s * (oh - 1) + 1:s, j:j + s * (ow - 1) + 1:s, :]
                o += np.einsum("nhwc,cf->nhwf", patch, k[i, j])
        return [o]
    return [(1, h, w, c), (kh, kw, c, f)], [(1, oh, ow, f)], body, ref


def pool_max(h, w, c):
    oh, ow = h // 2, w // 2
    body = ("        %%ninf = arith.constant -3.0e+38 : f32\n"
            "        %%win = memref.alloca() : memref<2x2xf32>\n"
            "        linalg.fill ins(%%ninf : f32) outs(%%b1 : %s)\n"
            "        linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} "
            "ins(%%b0, %%win : %s, memref<2x2xf32>) outs(%%b1 : %s)"
            % (mt((1, oh, ow, c)), mt((1, h, w, c)), mt((1, oh, ow, c))))
    return ([(1, h, w, c)], [(1, oh, ow, c)], body,
            lambda x: [x[:, :2 * oh, :2 * ow, :].reshape(1, oh, 2, ow, 2, c).max(axis=(2, 4))])


def special_values(x):
    """NaN, infinities and signed zeros scattered through x (pools must
    propagate a NaN of their window wherever it comes in the window, the
    first tap or a later one)."""
    f = x.reshape(-1)
    f[::37] = np.nan
    f[5::53] = np.inf
    f[11::41] = -np.inf
    f[17::29] = -0.0
    f[19::31] = 0.0
    return x


def transpose(r, c):
    body = "        linalg.transpose ins(%%b0 : %s) outs(%%b1 : %s) permutation = [1, 0]" % (mt((r, c)), mt((c, r)))
    return [(r, c)], [(c, r)], body, lambda a: [a.T]


def broadcast(r, c):
    body = "        linalg.broadcast ins(%%b0 : memref<%dxf32>) outs(%%b1 : %s) dimensions = [0]" % (c, mt((r, c)))
    return [(c,)], [(r, c)], body, lambda a: [np.broadcast_to(a, (r, c))]


def index_generic(r, c):
    body = ("        linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%b0 : %s) outs(%%b1 : %s) {\n"
            "        ^bb0(%%x: f32, %%o: f32):\n"
            "          %%i = linalg.index 0 : index\n          %%j = linalg.index 1 : index\n"
            "          %%k = arith.constant 1000 : index\n          %%t = arith.muli %%i, %%k : index\n"
            "          %%u = arith.addi %%t, %%j : index\n          %%w = arith.index_cast %%u : index to i32\n"
            "          %%f = arith.sitofp %%w : i32 to f32\n          %%r = arith.addf %%x, %%f : f32\n"
            "          linalg.yield %%r : f32\n        }" % (ID2, ID2, mt((r, c)), mt((r, c))))
    ii, jj = np.meshgrid(np.arange(r), np.arange(c), indexing="ij")
    return [(r, c)], [(r, c)], body, lambda a: [a + (ii * 1000 + jj)]


def softmax(r, c):
    body = "        linalg.softmax dimension(1) ins(%%b0 : %s) outs(%%b1 : %s)" % (mt((r, c)), mt((r, c)))

    def ref(a):
        e = np.exp(a - a.max(axis=1, keepdims=True))
        return [e / e.sum(axis=1, keepdims=True)]
    return [(r, c)], [(r, c)], body, ref


def gelu_body(scale):
    """GELU (erf form) of x * scale."""
    return ("          %%k = arith.constant %s : f32\n          %%y = arith.mulf %%x, %%k : f32\n"
             "          %%c = arith.constant 0.70710678 : f32\n          %%h = arith.constant 0.5 : f32\n"
             "          %%one = arith.constant 1.0 : f32\n          %%u = arith.mulf %%y, %%c : f32\n"
             "          %%e = math.erf %%u : f32\n          %%p = arith.addf %%e, %%one : f32\n"
             "          %%q = arith.mulf %%y, %%h : f32\n          %%r = arith.mulf %%q, %%p : f32\n"
             "          linalg.yield %%r : f32\n") % scale


def gelu_ref(x, scale):
    y = scale * x
    return 0.5 * y * (1 + np.vectorize(math.erf)(y * 0.70710678))


def gelu(r, c):
    """GELU (erf form) of 3x, so erf sees [-6, 6] (every piece of its f32
    expansion): rows of c elements, c not a multiple of the vector width
    (vector steps, then the scalar remainder)."""
    body = ("        linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%b0 : %s) outs(%%b1 : %s) {\n"
            "        ^bb0(%%x: f32, %%o: f32):\n" % (ID2, ID2, mt((r, c)), mt((r, c)))) + gelu_body("3.0") + "        }"
    return [(r, c)], [(r, c)], body, lambda a: [gelu_ref(a, 3.0)]


def matmul_gelu(m, n, k):
    """FFN1's shape: matmul with GELU applied to the register tiles (or, for
    the columns past the last whole vector, by the generic path)."""
    body = ("        %%z = arith.constant 0.0 : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b2 : %s)\n"
            "        linalg.matmul ins(%%b0, %%b1 : %s, %s) outs(%%b2 : %s)\n"
            "        linalg.generic {indexing_maps = [%s, %s], iterator_types = [\"parallel\", \"parallel\"]} "
            "ins(%%b2 : %s) outs(%%b2 : %s) {\n"
            "        ^bb0(%%x: f32, %%o: f32):\n"
            % (mt((m, n)), mt((m, k)), mt((k, n)), mt((m, n)), ID2, ID2, mt((m, n)), mt((m, n)))) + gelu_body("0.25") + "        }"
    return [(m, k), (k, n)], [(m, n)], body, lambda a, b: [gelu_ref(a @ b, 0.25)]


HOST = ["llvm-cpu"]
CASES = {
    "matmul_17x33x9": (matmul(17, 33, 9), HOST),
    "matmul_64x64x64": (matmul(64, 64, 64), HOST),
    "matmul_1x1x1": (matmul(1, 1, 1), HOST),
    "matmul_100x70x9": (matmul(100, 70, 9), HOST),
    "matmul_130x200x300": (matmul(130, 200, 300), HOST),
    "elementwise_37x130": (elementwise(37, 130), HOST),
    "elementwise_3x20000": (elementwise(3, 20000), HOST),
    "row_sums_300x77": (row_sums(300, 77), HOST),
    "conv_41x23x5_s2": (conv(41, 23, 5, 3, 2, 70, 2), HOST),
    "conv_9x9x3_s1": (conv(9, 9, 3, 3, 3, 8, 1), HOST),
    "pool_max_18x14x20": (pool_max(18, 14, 20), HOST),
    # the window max's NaN propagation (lower_to_loops.c window_max); 47
    # channels: 32 + 8 + 4 lanes and 3 scalars
    "pool_max_special_26x22x47": (pool_max(26, 22, 47), HOST),
    "transpose_333x17": (transpose(333, 17), HOST),
    "broadcast_30x40": (broadcast(30, 40), HOST),
    "index_70x450": (index_generic(70, 450), HOST),
    "softmax_300x33": (softmax(300, 33), HOST),  # 2 workgroups of rows
    # rows of lengths around the vector width: all scalar, vectors plus a
    # remainder, several rows per workgroup
    "softmax_3x1": (softmax(3, 1), HOST),
    "softmax_3x7": (softmax(3, 7), HOST),
    "softmax_3x129": (softmax(3, 129), HOST),
    "softmax_3x769": (softmax(3, 769), HOST),
    "gelu_3x1": (gelu(3, 1), HOST),
    "gelu_3x7": (gelu(3, 7), HOST),
    "gelu_3x129": (gelu(3, 129), HOST),
    "gelu_3x769": (gelu(3, 769), HOST),
    "matmul_gelu_7x129x33": (matmul_gelu(7, 129, 33), HOST),
    "matmul_gelu_129x64x40": (matmul_gelu(129, 64, 40), HOST),
    # Variants for two architectures in one module; the best one this host
    # can run runs (avx2 where it has AVX2, else the x86-64 baseline, which
    # is also what KILN_CPU_FEATURES=x86_64 picks; aarch64 on aarch64).
    "matmul_two_variants": (matmul(100, 70, 9), ["llvm-cpu:x86_64+avx2", "llvm-cpu:x86_64",
                                                 "llvm-cpu:aarch64"]),
}


def run_case(name, spec, kc, kr, work, device):
    (ins, outs, body, ref), targets = spec
    os.makedirs(work, exist_ok=True)
    src = os.path.join(work, name + ".mlir")
    with open(src, "w") as f:
        f.write(program(name, ins, outs, body, targets))
    module = os.path.join(work, name + ".kiln")
    c = subprocess.run([kc, src, "-o", module], capture_output=True, text=True)
    if c.returncode != 0:
        if "run approximate-math first" in c.stderr:
            print("%s: skipped: %s" % (name, c.stderr.strip().splitlines()[-1]))
            return None
        print("%s: FAIL: kiln-compile: %s" % (name, c.stderr.strip()))
        return False
    rng = np.random.default_rng(len(name))
    values = [rng.uniform(-2, 2, s).astype(np.float32) for s in ins]
    if "_special_" in name:
        values = [special_values(v) for v in values]
    cmd = [kr, "--module=" + module, "--function=" + name, "--device=" + device]
    for i, v in enumerate(values):
        p = os.path.join(work, "%s_in%d.npy" % (name, i))
        np.save(p, v)
        cmd.append("--input=@" + p)
    results = [os.path.join(work, "%s_out%d.npy" % (name, j)) for j in range(len(outs))]
    cmd += ["--output=@" + p for p in results]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        print("%s: FAIL: kiln-run: %s" % (name, r.stderr.strip()))
        return False
    want = ref(*[v.astype(np.float64) for v in values])
    for j, p in enumerate(results):
        got = np.load(p)
        if got.shape != tuple(outs[j]) or not np.allclose(got, want[j], rtol=1e-4, atol=1e-4, equal_nan=True):
            err = np.abs(got.astype(np.float64) - want[j]).max() if got.shape == tuple(outs[j]) else "shape"
            print("%s: FAIL: result %d differs (max error %s)" % (name, j, err))
            return False
    print("%s: ok" % name)
    return True


def main(argv):
    if len(argv) < 5:
        print(__doc__)
        return 2
    kc, kr, work, device = argv[1:5]
    names = argv[5:] or list(CASES)
    results = [run_case(n, CASES[n], kc, kr, work, device) for n in names]
    if any(r is False for r in results):
        return 1
    if all(r is None for r in results):
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
