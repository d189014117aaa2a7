"""GPU programs for the shared-memory matmul path (gpu-tile-matmul-shared):
block tiles, K steps and thread tiles that do not divide the shapes, shapes
smaller than one thread tile, batches, a fused consumer after the tiled
matmul, and shapes whose rows are 16-byte aligned so global accesses
become vector<4xf32>. Listed by run_gpu.py as gpuop.NAME (names are MxKxN,
op_cases.matmul_case's order), which runs ptxas and the SIMT-on-CPU
comparison on each.

Cases wrapped in ptx_checked also check their own PTX when run_gpu.py
builds them (it passes kiln-compile, kiln-run, kiln-dump and the work
folder as argv[1:5]): they compile for sm_80 and sm_90, extract the PTX
and require the shared-memory tiles (ld.shared, bar.sync) and, where the
rows are aligned, ld.global.v4.f32 / st.global.v4.f32, or their absence
where rows are not 16-byte aligned."""
import os
import re
import shutil
import subprocess
import sys

import numpy as np

import op_cases

T = op_cases.T


def batch_matmul_case(bt, m, k, n):
    def fn(r):
        a = r.uniform(-1, 1, (bt, m, k)).astype(np.float32)
        b = r.uniform(-1, 1, (bt, k, n)).astype(np.float32)
        src = f"""func.func @f(%a: {T((bt, m, k))}, %b: {T((bt, k, n))}) -> {T((bt, m, n))} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((bt, m, n))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((bt, m, n))}) -> {T((bt, m, n))}
  %c = linalg.batch_matmul ins(%a, %b : {T((bt, m, k))}, {T((bt, k, n))}) outs(%z : {T((bt, m, n))}) -> {T((bt, m, n))}
  return %c : {T((bt, m, n))}
}}"""
        return src, [a, b], [a.astype(np.float64) @ b.astype(np.float64)]
    return fn


def matmul_bias_relu_case(m, k, n):
    """An elementwise consumer fused after the tiled matmul: distributed by
    distribute-to-threads after the matmul's own barriers."""
    def fn(r):
        a = r.uniform(-1, 1, (m, k)).astype(np.float32)
        b = r.uniform(-1, 1, (k, n)).astype(np.float32)
        bias = r.uniform(-1, 1, (m, n)).astype(np.float32)
        src = f"""func.func @f(%a: {T((m, k))}, %b: {T((k, n))}, %bias: {T((m, n))}) -> {T((m, n))} {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : {T((m, n))}
  %z = linalg.fill ins(%zero : f32) outs(%e : {T((m, n))}) -> {T((m, n))}
  %c = linalg.matmul ins(%a, %b : {T((m, k))}, {T((k, n))}) outs(%z : {T((m, n))}) -> {T((m, n))}
  %s = arith.addf %c, %bias : {T((m, n))}
  %zs = arith.constant dense<0.0> : {T((m, n))}
  %o = arith.maximumf %s, %zs : {T((m, n))}
  return %o : {T((m, n))}
}}"""
        ref = np.maximum(a.astype(np.float64) @ b.astype(np.float64) + bias, 0)
        return src, [a, b, bias], [ref]
    return fn


def extract_ptx(text):
    """Compile text for sm_80 and sm_90 (run_gpu.py's argv gives the tools
    and the work folder) and extract its PTX; returns the folder."""
    kc, kd, work = sys.argv[1], sys.argv[3], sys.argv[4]
    os.makedirs(work, exist_ok=True)
    src, mod = os.path.join(work, "ptxcheck.mlir"), os.path.join(work, "ptxcheck.kiln")
    out = os.path.join(work, "ptxcheck")
    with open(src, "w") as f:
        f.write(text + "\n")
    for cmd in ([kc, src, "-o", mod, "--target=cuda:sm_80", "--target=cuda:sm_90"],
                [kd, mod, "--extract=" + out]):
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode:
            raise AssertionError("%s failed: %s" % (os.path.basename(cmd[0]), p.stderr[-2000:]))
    return out


def ptx_checked(gen, vector):
    """gen, plus a check of the program's PTX for sm_80 and sm_90: shared
    memory tiles with barriers, fused multiply-adds, and global v4 loads
    and stores exactly when vector is True."""
    def fn(r):
        text, ins, outs = gen(r)
        out = extract_ptx(text)
        for sm in ("sm_80", "sm_90"):
            ptx = [os.path.join(out, n) for n in os.listdir(out) if n.endswith("cuda_%s.ptx" % sm)]
            if len(ptx) != 1:
                raise AssertionError("expected one %s PTX, got %s" % (sm, ptx))
            with open(ptx[0]) as f:
                t = f.read()
            need = [r"\.shared \.align 16 \.b8 kiln_workgroup", r"bar\.sync", r"ld\.shared\.",
                    r"fma\.rn\.f32"]
            for pat in need:
                if not re.search(pat, t):
                    raise AssertionError("%s PTX: no %s" % (sm, pat))
            v4 = [p for p in (r"ld\.global\.v4\.f32", r"st\.global\.v4\.f32") if re.search(p, t)]
            if vector and len(v4) != 2:
                raise AssertionError("%s PTX: global vector accesses missing (found %s)" % (sm, v4))
            if not vector and v4:
                raise AssertionError("%s PTX: %s on rows that are not 16-byte aligned" % (sm, v4))
            print("PTX %s: shared-memory tiles, barriers, fma%s" % (sm, ", ld/st.global.v4.f32" if vector else ""))
        shutil.rmtree(out, ignore_errors=True)
        return text, ins, outs
    return fn


OP_CASES = {
    # edges everywhere: 3 block rows (last of 2), 2 K steps + 35 (sm_80:
    # 16-deep steps), 67 columns (a 3-wide edge of thread tiles)
    "matmul_130x257x67": (ptx_checked(op_cases.matmul_case(130, 257, 67), False), 1e-4, 1e-4),
    "matmul_127x1x129": (op_cases.matmul_case(127, 1, 129), 1e-5, 1e-5),
    "matmul_1x300x1": (op_cases.matmul_case(1, 300, 1), 1e-4, 1e-4),
    # aligned rows: vector<4xf32> global loads and stores
    "matmul_64x64x64_tiles": (ptx_checked(op_cases.matmul_case(64, 64, 64), True), 1e-4, 1e-4),
    "matmul_128x96x256": (ptx_checked(op_cases.matmul_case(128, 96, 256), True), 1e-4, 1e-4),
    # aligned rows with partial block, K-step and thread tiles
    "matmul_130x68x260": (ptx_checked(op_cases.matmul_case(130, 68, 260), True), 1e-4, 1e-4),
    # 128-row workgroup tiles: sm_90's 128 x 64 block tile, 8 x 8 per thread
    "matmul_256x80x512_tall": (ptx_checked(op_cases.matmul_case(256, 80, 512), True), 1e-4, 1e-4),
    # the register path with fewer thread tiles than threads (sm_90: a
    # 36 x 20 block tile of 2 x 4 thread tiles, 90 of the 128 threads;
    # sm_80: 9 x 5 tiles of 4 x 4 for 64), a partial last K step (36 =
    # 32 + 4 on sm_90, 2 x 16 + 4 on sm_80) and the staged groups'
    # last round partial
    "matmul_36x36x20_regs": (ptx_checked(op_cases.matmul_case(36, 36, 20), True), 1e-4, 1e-4),
    "batch_matmul_3x70x33x65": (batch_matmul_case(3, 70, 33, 65), 1e-4, 1e-4),
    "batch_matmul_2x64x40x128": (ptx_checked(batch_matmul_case(2, 64, 40, 128), True), 1e-4, 1e-4),
    "matmul_bias_relu_70x45x67": (matmul_bias_relu_case(70, 45, 67), 1e-4, 1e-4),
}
