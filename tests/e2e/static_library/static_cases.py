#!/usr/bin/python3
"""e2e for --output-format=static-library: a program compiled to DIR/m.h +
DIR/m.a, linked into a generated C harness (no runtime-min), compared with
numpy.

usage: static_cases.py --list
       static_cases.py CASE KILN_COMPILE CC WORKDIR [COMPILE_FLAG...]

CASE is an e2e op case (tests/e2e/compile/op_cases.py: same program, same
inputs, same numpy reference and tolerances), "sample.NAME" for
samples/NAME.mlir, or "onnx.MODEL" for a model of
tests/onnx/models/run_model.py exported from PyTorch (its output the
reference, max abs error 1e-3; skipped, 77, without torch), or
"partial.NAME" (kernels leaving part of a result or scratch value
unwritten). The harness calls m_f once through NAME_F (arrays)
and once through _mlir_ciface_m_f with every descriptor at a nonzero
offset (so data is not 64-byte aligned), and both results are compared;
With --weights=external among the flags, the harness reads DIR/m.weights
and hands it over with m_set_weights (after checking the refusals). It
also checks the refusals (NULL pointers, a misaligned scratch,
descriptor sizes and strides that do not match, an index argument out of
range: OUT_OF_RANGE) return their codes, and
that with NAME_set_parallel (workgroups on two threads, or in reverse
order) the results are the same bytes. Scratch and result storage are
filled with a nonzero pattern before each call. The archive must leave no symbol undefined beyond memcpy/memset, and link into
a -nostdlib -static program. KILN_RUN_EMULATOR (environment), when set, is
put before the harness (qemu for a cross-built one).
"""
import os
import re
import shlex
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compile"))
import op_cases  # noqa: E402
import run_compiled  # noqa: E402

CTYPES = {"f32": "float", "i32": "int32_t", "i64": "int64_t", "i1": "uint8_t", "i8": "int8_t",
          "u8": "uint8_t"}
OFFSET = 3  # elements: descriptors point past the start of their buffers


def sample_case(name):
    root = os.path.join(HERE, "..", "..", "..", "samples")
    with open(os.path.join(root, name + ".mlir")) as f:
        src = f.read()
    with open(os.path.join(root, name + ".inputs")) as f:
        ins = [run_compiled.parse_value(l) for l in f if l.strip()]
    with open(os.path.join(root, name + ".expected")) as f:
        outs = [run_compiled.parse_value(l) for l in f if l.strip()]
    return src, ins, outs, 1e-5, 1e-6


# Kernels that leave part of a buffer unwritten (an insert into an empty
# tensor: zeros in Kiln's buffers): in the caller's result storage, in the
# scratch arena before an elementwise op, in the scratch arena before a
# matmul. The harness fills scratch and results with a nonzero pattern
# before each call, so only the function's own clearing makes them right.
PARTIAL_INSERT = """func.func @f(%%a: tensor<%(h)s>) -> tensor<%(n)s> {
  %%e = tensor.empty() : tensor<%(n)s>
  %%i = tensor.insert_slice %%a into %%e[%(at)s] [%(hs)s] [%(ones)s] : tensor<%(h)s> into tensor<%(n)s>
%(body)s}
"""
PLUS_ONE = """  %e2 = tensor.empty() : tensor<8192xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<8192xf32>) outs(%e2 : tensor<8192xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<8192xf32>
  return %r : tensor<8192xf32>
"""
MATMUL = """  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<128x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<128x32xf32>) -> tensor<128x32xf32>
  %r = linalg.matmul ins(%i, %b : tensor<128x256xf32>, tensor<256x32xf32>) outs(%f : tensor<128x32xf32>) -> tensor<128x32xf32>
  return %r : tensor<128x32xf32>
"""


def partial_case(name):
    rng = np.random.RandomState(sum(map(ord, name)))
    if name == "result":
        a = rng.standard_normal(4096).astype(np.float32)
        src = PARTIAL_INSERT % dict(h="4096xf32", n="8192xf32", at="0", hs="4096", ones="1",
                                    body="  return %i : tensor<8192xf32>\n")
        return src, [a], [np.concatenate([a, np.zeros(4096, np.float32)])], 0, 0
    if name == "arena":
        a = rng.standard_normal(4096).astype(np.float32)
        src = PARTIAL_INSERT % dict(h="4096xf32", n="8192xf32", at="0", hs="4096", ones="1",
                                    body=PLUS_ONE)
        return src, [a], [np.concatenate([a, np.zeros(4096, np.float32)]) + 1], 1e-6, 1e-6
    a = rng.standard_normal((64, 128)).astype(np.float32)
    b = rng.standard_normal((256, 32)).astype(np.float32)
    src = PARTIAL_INSERT % dict(h="64x128xf32", n="128x256xf32", at="0, 0", hs="64, 128",
                                ones="1, 1", body=MATMUL)
    src = src.replace("(%a: tensor<64x128xf32>)", "(%a: tensor<64x128xf32>, %b: tensor<256x32xf32>)")
    src = src.replace("-> tensor<128x256xf32> {", "-> tensor<128x32xf32> {", 1)
    full = np.zeros((128, 256), np.float32)
    full[:64, :128] = a
    return src, [a, b], [full @ b], 1e-4, 1e-4


def onnx_case(name, work):
    """A PyTorch model of tests/onnx/models/run_model.py exported to ONNX;
    None (skip) without torch."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "onnx", "models"))
    import run_model
    try:
        import torch
        if name in ("resnet18", "mobilenet_v2"):
            import torchvision  # noqa: F401
    except ImportError as e:
        print("skipped: %s (install python3-torch python3-torchvision)" % e)
        return None
    m, x = run_model.build(name, torch)
    with torch.no_grad():
        want = m(x).numpy()
    path = os.path.join(work, "model.onnx")
    torch.onnx.export(m, x, path, opset_version=17, input_names=["x"], output_names=["y"])
    return path, [x.numpy()], [want]


def run(cmd, **kw):
    print("$ " + " ".join(a if len(a) < 160 else a[:157] + "..." for a in cmd))
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# Scalar index arguments a kernel reads a tensor at: each (input, value)
# is out of range, and the call must return OUT_OF_RANGE (the host program
# checks them before any kernel runs) instead of reading outside the tensor.
OUT_OF_RANGE = {"scalar_index_i64": [(1, 6), (1, -1), (1, 1 << 32)],
                "scalar_fill_insert": [(2, 5), (2, -1)]}


def harness(lib, func, ins, outs, scratch_macro, external, bad=()):
    """The C test program: prints each result's bytes as hex, twice. With
    external weights, it reads NAME.weights (its last argument) and checks
    the calls refuse to run before NAME_set_weights. BAD: (input, i64
    value) calls that must return OUT_OF_RANGE."""
    L = []
    w = L.append
    w('#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <stdint.h>\n#include <string.h>\n#include "%s.h"\n' % lib)
    w("static _Alignas(64) unsigned char scratch[%s + 64];" % scratch_macro)
    for i, a in enumerate(ins):
        w("static _Alignas(64) unsigned char in%d[%d];" % (i, a.nbytes + 1))
        w("static _Alignas(64) unsigned char din%d[%d];" % (i, a.nbytes + OFFSET * a.itemsize + 1))
    for i, a in enumerate(outs):
        w("static _Alignas(64) unsigned char out%d[%d];" % (i, a.nbytes + 1))
        w("static _Alignas(64) unsigned char pout%d[%d];" % (i, a.nbytes + 1))
        w("static _Alignas(64) unsigned char dout%d[%d];" % (i, a.nbytes + OFFSET * a.itemsize + 1))
    # NAME_set_parallel: workgroups split over two threads, and a serial
    # one in reverse order; results must equal the single-threaded call's
    w("struct job { void (*fn)(void *, uint32_t); void *ctx; uint32_t lo, hi; };")
    w("static void *half(void *p) {")
    w("  struct job *j = p;\n  for (uint32_t i = j->lo; i < j->hi; i++) j->fn(j->ctx, i);\n  return 0;\n}")
    w("static int parallel_calls;")
    w("static void two_threads(void *ctx, uint32_t n, void (*fn)(void *, uint32_t), void *fn_ctx) {")
    w("  (void)ctx;\n  parallel_calls++;")
    w("  struct job a = {fn, fn_ctx, 0, n / 2}, b = {fn, fn_ctx, n / 2, n};")
    w("  pthread_t t;\n  if (pthread_create(&t, 0, half, &b)) { half(&b); half(&a); return; }")
    w("  half(&a);\n  pthread_join(t, 0);\n}")
    w("static void reversed(void *ctx, uint32_t n, void (*fn)(void *, uint32_t), void *fn_ctx) {")
    w("  (void)ctx;\n  while (n--) fn(fn_ctx, n);\n}")
    # every call finds scratch and result storage dirty (as a reused
    # buffer would be): what a kernel leaves unwritten must be cleared
    # (results of the arrays call stay: the others are compared with them)
    w("static void poison(int arrays) {")
    w("  memset(scratch, 0x5a, sizeof scratch);")
    for i in range(len(outs)):
        w("  if (arrays) memset(out%d, 0x5a, sizeof out%d);" % (i, i))
        w("  memset(pout%d, 0x5a, sizeof pout%d);" % (i, i))
        w("  memset(dout%d, 0x5a, sizeof dout%d);" % (i, i))
    w("}")
    w("static void dump(const unsigned char *p, size_t n) {")
    w("  for (size_t i = 0; i < n; i++) printf(\"%02x\", p[i]);\n  printf(\"\\n\");\n}")
    w("static int load(const char *path, unsigned char *p, size_t n) {")
    w("  FILE *f = fopen(path, \"rb\");")
    w("  size_t got = f ? fread(p, 1, n, f) : 0;")
    w("  if (f) fclose(f);")
    w("  return got == n ? 0 : 1;\n}")
    w("int main(int argc, char **argv) {")
    w("  if (argc != %d) return 2;" % (len(ins) + 1 + external))
    fn = "%s_%s" % (lib, func)
    up = lib.upper()
    for i, a in enumerate(ins):
        w('  if (load(argv[%d], in%d, %d)) { printf("FAIL: cannot read %%s\\n", argv[%d]); return 1; }'
          % (i + 1, i, a.nbytes, i + 1))
    w("  void *args[] = {%s};" % ", ".join(["in%d" % i for i in range(len(ins))] + ["0"]))
    w("  void *results[] = {%s};" % ", ".join(["out%d" % i for i in range(len(outs))] + ["0"]))
    if external:
        w("  if (%s(args, results, scratch) != %s_ERROR_WEIGHTS) { printf(\"FAIL: ran without weights\\n\"); "
          "return 1; }" % (fn, up))
        w("  unsigned char *weights = aligned_alloc(64, (%s_WEIGHTS_SIZE + 64) / 64 * 64);" % up)
        w("  if (!weights || load(argv[%d], weights, %s_WEIGHTS_SIZE)) return 1;" % (len(ins) + 1, up))
        w("  if (%s_set_weights(weights, %s_WEIGHTS_SIZE + 1) != %s_ERROR_WEIGHTS) return 1;" % (lib, up, up))
        w("  if (%s_WEIGHTS_SIZE && %s_set_weights(weights + 1, %s_WEIGHTS_SIZE) != %s_ERROR_WEIGHTS) return 1;"
          % (up, lib, up, up))
        w("  if (%s_set_weights(weights, %s_WEIGHTS_SIZE)) { printf(\"FAIL: set_weights\\n\"); return 1; }"
          % (lib, up))
    w("  poison(1);")
    w("  int rc = %s(args, results, scratch);" % fn)
    w('  if (rc) { printf("FAIL: %s: %%d %%s\\n", rc, %s_error_message(rc)); return 1; }' % (fn, lib))
    for i, a in enumerate(outs):
        w("  dump(out%d, %d);" % (i, a.nbytes))
    # the same through MLIR's C interface, every descriptor at OFFSET
    descs = []
    for kind, arrs in (("in", ins), ("out", outs)):
        for i, a in enumerate(arrs):
            d = "m%s%d" % (kind, i)
            r = a.ndim
            strides = [int(np.prod(a.shape[k + 1:], dtype=np.int64)) for k in range(r)]
            w("  %s_memref_%dd %s = {d%s%d, d%s%d, %d%s};" % (
                lib, r, d, kind, i, kind, i, OFFSET,
                (", {%s}, {%s}" % (",".join(map(str, a.shape)), ",".join(map(str, strides))))
                if r else ""))
            if kind == "in":
                w("  memcpy(din%d + %d, in%d, %d);" % (i, OFFSET * a.itemsize, i, a.nbytes))
            descs.append((d, a))
    call = "_mlir_ciface_%s(%s, scratch)" % (fn, ", ".join("&" + d for d, _ in descs))
    w("  poison(0);")
    w("  rc = %s;" % call)
    w('  if (rc) { printf("FAIL: _mlir_ciface_%s: %%d %%s\\n", rc, %s_error_message(rc)); return 1; }'
      % (fn, lib))
    for i, a in enumerate(outs):
        w("  dump(dout%d + %d, %d);" % (i, OFFSET * a.itemsize, a.nbytes))
    # refusals: each must return its code and never crash
    checks = []
    if ins:
        checks.append(("%s(0, results, scratch)" % fn, "NULL_POINTER"))
    checks.append(("%s(args, results, scratch + 1)" % fn, "SCRATCH_ALIGNMENT", scratch_macro))
    for d, a in descs:
        if a.ndim:
            checks.append(("(%s.sizes[0]++, 0)" % d, None))
            checks.append((call, "DESCRIPTOR_SIZES"))
            checks.append(("(%s.sizes[0]--, 0)" % d, None))
            k = next((k for k in range(a.ndim) if a.shape[k] != 1), None)
            if k is not None:
                checks.append(("(%s.strides[%d] += 1, 0)" % (d, k), None))
                checks.append((call, "DESCRIPTOR_STRIDES"))
                checks.append(("(%s.strides[%d] -= 1, 0)" % (d, k), None))
            break
    for c in checks:
        if c[1] is None:
            w("  (void)%s;" % c[0])
            continue
        guard = "  if (%s > 0) " % c[2] if len(c) > 2 else "  "
        w('%s{ rc = %s; if (rc != %s_ERROR_%s) { printf("FAIL: %s gave %%d, not %s\\n", rc); '
          'return 1; } }' % (guard, c[0], up, c[1], c[0].replace('"', ''), c[1]))
    for i, v in bad:
        w("  { int64_t v = %dLL, keep; memcpy(&keep, in%d, 8); memcpy(in%d, &v, 8);" % (v, i, i))
        w('    rc = %s(args, results, scratch); memcpy(in%d, &keep, 8);' % (fn, i))
        w('    if (rc != %s_ERROR_OUT_OF_RANGE) { printf("FAIL: input %d = %d gave %%d, not OUT_OF_RANGE\\n", rc); '
          'return 1; } }' % (up, i, v))
    w('  if (%s_error_message(12345) == 0 || %s_error_message(-1) == 0) return 1;' % (lib, lib))
    w("  void *presults[] = {%s};" % ", ".join(["pout%d" % i for i in range(len(outs))] + ["0"]))
    for pf in ("two_threads", "reversed"):
        w("  %s_set_parallel(%s, 0);" % (lib, pf))
        w("  poison(0);")
        w("  rc = %s(args, presults, scratch);" % fn)
        w('  if (rc) { printf("FAIL: with %s: %%d\\n", rc); return 1; }' % pf)
        for i, a in enumerate(outs):
            w('  if (memcmp(out%d, pout%d, %d)) { printf("FAIL: result %d differs with %s\\n"); return 1; }'
              % (i, i, a.nbytes, i, pf))
    w("  %s_set_parallel(0, 0);" % lib)
    w('  fprintf(stderr, "parallel_for ran %d dispatches\\n", parallel_calls);')
    w("  return 0;\n}")
    return "\n".join(L) + "\n"


FREESTANDING = """/* links m.a into a -nostdlib -static program: nothing else is needed */
#include <stddef.h>
#include "%(lib)s.h"
void *memcpy(void *d, const void *s, size_t n) {
  unsigned char *o = d; const unsigned char *i = s;
  while (n--) *o++ = *i++;
  return d;
}
void *memset(void *d, int c, size_t n) {
  unsigned char *o = d;
  while (n--) *o++ = (unsigned char)c;
  return d;
}
static _Alignas(64) unsigned char scratch[%(scratch)s + 1];
void _start(void) {
  void *none[1] = {0};
  volatile int rc = %(fn)s(none, none, scratch);
  (void)rc;
  for (;;) {
  }
}
"""


def archive_symbols(ar_path):
    """(defined, undefined) global symbols over all members."""
    r = subprocess.run(["nm", "-g", ar_path], capture_output=True, text=True)
    defined, undefined = set(), set()
    for l in r.stdout.splitlines():
        parts = l.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3:
            defined.add(parts[2])
    return defined, undefined


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print(";".join(list(op_cases.CASES) + ["sample.mlp", "sample.cnn", "sample.simple_mul",
                                               "partial.result", "partial.arena", "partial.matmul",
                                               "onnx.mlp", "onnx.cnn", "onnx.resnet18"]))
        return 0
    name, compile_, cc, work = argv[1:5]
    flags = argv[5:]
    external = "--weights=external" in flags
    os.makedirs(work, exist_ok=True)
    source = os.path.join(work, "case.mlir")
    if name.startswith("onnx."):
        # PyTorch's output is the reference, within run_model.py's 1e-3
        case = onnx_case(name[5:], work)
        if case is None:
            return 77
        source, ins, outs = case
        rtol, atol = 0.0, 1e-3
    else:
        if name.startswith("sample."):
            src, ins, outs, rtol, atol = sample_case(name[7:])
        elif name.startswith("partial."):
            src, ins, outs, rtol, atol = partial_case(name[8:])
        else:
            fn, rtol, atol = op_cases.CASES[name]
            src, ins, outs = fn(np.random.RandomState(sum(map(ord, name))))
            outs = [np.asarray(o) if np.asarray(o).dtype in op_cases.KINDS
                    else np.asarray(o).astype(np.float32) for o in outs]
        with open(source, "w") as f:
            f.write(src + "\n")
    ins = [np.asarray(a) for a in ins]
    outs = [np.asarray(o) for o in outs]
    lib = "m"
    c = run([compile_, source, "--output-format=static-library", "-o", os.path.join(work, lib)] + flags)
    sys.stdout.write(c.stdout + c.stderr)
    if c.returncode != 0:
        print("FAIL: kiln-compile exited with %d" % c.returncode)
        return 1
    ar_path = os.path.join(work, lib + ".a")
    with open(os.path.join(work, lib + ".h")) as f:
        funcs = re.findall(r"^int %s_(\w+)\(void \*const \*args" % lib, f.read(), re.M)
    if len(funcs) != 1:
        print("FAIL: expected one function in %s.h, found %s" % (lib, funcs))
        return 1
    func = funcs[0]
    defined, undefined = archive_symbols(ar_path)
    missing = undefined - defined - {"memcpy", "memset"}
    if missing:
        print("FAIL: the archive leaves symbols undefined: %s" % sorted(missing))
        return 1
    scratch = "%s_%s_SCRATCH_SIZE" % (lib.upper(), func.upper())
    cc_cmd = shlex.split(cc)
    with open(os.path.join(work, "free.c"), "w") as f:
        f.write(FREESTANDING % {"lib": lib, "scratch": scratch, "fn": "%s_%s" % (lib, func)})
    c = run(cc_cmd + ["-std=c17", "-O1", "-ffreestanding", "-fno-builtin", "-nostdlib", "-static",
                      "-I", work, os.path.join(work, "free.c"), ar_path, "-o",
                      os.path.join(work, "free")])
    if c.returncode != 0:
        sys.stdout.write(c.stdout + c.stderr)
        print("FAIL: the archive does not link into a -nostdlib -static program")
        return 1
    with open(os.path.join(work, "harness.c"), "w") as f:
        f.write(harness(lib, func, ins, outs, scratch, external, OUT_OF_RANGE.get(name, ())))
    exe = os.path.join(work, "harness")
    c = run(cc_cmd + ["-std=c17", "-Wall", "-Werror", "-pthread", "-I", work,
                      os.path.join(work, "harness.c"), ar_path, "-o", exe])
    if c.returncode != 0:
        sys.stdout.write(c.stdout + c.stderr)
        print("FAIL: the harness does not build")
        return 1
    paths = []
    for i, a in enumerate(ins):
        paths.append(os.path.join(work, "in%d.bin" % i))
        with open(paths[-1], "wb") as f:
            f.write(np.ascontiguousarray(a).tobytes())
    if external:
        paths.append(os.path.join(work, lib + ".weights"))
    r = run(shlex.split(os.environ.get("KILN_RUN_EMULATOR", "")) + [exe] + paths)
    if r.returncode != 0:
        sys.stdout.write(r.stdout + r.stderr)
        print("FAIL: the harness exited with %d" % r.returncode)
        return 1
    sys.stdout.write(r.stderr)
    lines = r.stdout.split()
    if len(lines) != 2 * len(outs):
        print("FAIL: expected %d result dumps, got %d" % (2 * len(outs), len(lines)))
        return 1
    ok = True
    for k, (via, ls) in enumerate((("arrays", lines[:len(outs)]), ("_mlir_ciface_", lines[len(outs):]))):
        for i, (hexs, want) in enumerate(zip(ls, outs)):
            got = np.frombuffer(bytes.fromhex(hexs), dtype=want.dtype).reshape(want.shape)
            if want.dtype.kind in "biu":
                good = np.array_equal(got, want)
            else:
                good = np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol,
                                   atol=atol, equal_nan=True)
            err = np.max(np.abs(got.astype(np.float64) - want.astype(np.float64))) if got.size else 0
            print("%s result %d: %s (max abs error %g)" % (via, i, "matches" if good else "DIFFERS", err))
            ok &= bool(good)
    print("1 passed, 0 failed" if ok else "0 passed, 1 failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
