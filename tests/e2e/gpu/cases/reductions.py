"""Reductions on the GPU path (listed by run_gpu.py as gpu.NAME): a long
reduction into few outputs is shared by the whole block (per-thread
partials, then warp butterfly shuffles, lane 0 of each warp to workgroup
memory, a barrier, warp 0's shuffles, thread 0 writes), with one loop over
the outputs whose body holds the barriers (loop fission on the SIMT-on-CPU
run). Lengths are not multiples of 32 nor of the block size (1000, 4099,
777); short ones (33, 1) take the per-thread paths. Combiners: add, mul,
max, min; row reductions (a block reduces whole rows) and column ones."""
import numpy as np

import run_hal_kernels

mt = run_hal_kernels.mt


def reduce_case(shape, dim, combiner, init, ref, pre=""):
    """linalg.reduce of an f32 matrix along dim into a rank-1 output
    (filled with init first); pre: body ops computing %v from %x (else %v
    is %x)."""
    out = (shape[1 - dim],)
    v = "%v" if pre else "%x"
    body = ("        %%z = arith.constant %s : f32\n"
            "        linalg.fill ins(%%z : f32) outs(%%b1 : %s)\n"
            "        linalg.reduce ins(%%b0 : %s) outs(%%b1 : %s) dimensions = [%d]\n"
            "          (%%x: f32, %%acc: f32) {\n%s"
            "            %%s = arith.%s %s, %%acc : f32\n"
            "            linalg.yield %%s : f32\n"
            "          }" % (init, mt(out), mt(shape), mt(out), dim, pre, combiner, v))
    return [shape], [out], body, ref


# 1 + x/1000: a product of thousands of factors stays finite.
NEAR_ONE = ("            %c1k = arith.constant 1.0e-3 : f32\n"
            "            %one = arith.constant 1.0 : f32\n"
            "            %sx = arith.mulf %x, %c1k : f32\n"
            "            %v = arith.addf %sx, %one : f32\n")

HAL_CASES = {
    # Whole-block reductions (the warp path), several outputs: the loop
    # over outputs holds the barriers.
    "red_add_cols_1000x3": reduce_case((1000, 3), 0, "addf", "0.0", lambda a: [a.sum(axis=0)]),
    "red_max_cols_4099x2": reduce_case((4099, 2), 0, "maximumf", "-3.0e38", lambda a: [a.max(axis=0)]),
    "red_min_cols_777x5": reduce_case((777, 5), 0, "minimumf", "3.0e38", lambda a: [a.min(axis=0)]),
    "red_mul_cols_4099x1": reduce_case((4099, 1), 0, "mulf", "1.0",
                                       lambda a: [np.prod(1 + a * 1e-3, axis=0)], NEAR_ONE),
    "red_add_rows_4x1000": reduce_case((4, 1000), 1, "addf", "0.0", lambda a: [a.sum(axis=1)]),
    "red_max_rows_3x4099": reduce_case((3, 4099), 1, "maximumf", "-3.0e38", lambda a: [a.max(axis=1)]),
    "red_mul_rows_2x1000": reduce_case((2, 1000), 1, "mulf", "1.0",
                                       lambda a: [np.prod(1 + a * 1e-3, axis=1)], NEAR_ONE),
    # Short reductions: per-thread chunks or thread 0, no shuffles.
    "red_add_cols_33x3": reduce_case((33, 3), 0, "addf", "0.0", lambda a: [a.sum(axis=0)]),
    "red_min_rows_5x33": reduce_case((5, 33), 1, "minimumf", "3.0e38", lambda a: [a.min(axis=1)]),
    "red_max_cols_1x5": reduce_case((1, 5), 0, "maximumf", "-3.0e38", lambda a: [a.max(axis=0)]),
    "red_add_rows_1x1": reduce_case((1, 1), 1, "addf", "0.0", lambda a: [a.sum(axis=1)]),
}

# Strings every PTX of a case must contain (run_gpu.py checks them): the
# whole-block reductions use warp shuffles and barriers.
PTX_MUST_CONTAIN = {name: ["shfl.sync.bfly.b32", "bar.sync"] for name in HAL_CASES
                    if not any(s in name for s in ("33", "1x5", "1x1"))}


def softmax_case(rows, n):
    """linalg.softmax over rows of length n: few long rows are shared by
    the whole block (block-wide max and sum by warp shuffles)."""
    def gen(r):
        x = r.uniform(-4, 4, (rows, n)).astype(np.float32)
        t = "tensor<%dx%dxf32>" % (rows, n)
        src = ("func.func @f(%%x: %s) -> %s {\n"
               "  %%e = tensor.empty() : %s\n"
               "  %%s = linalg.softmax dimension(1) ins(%%x : %s) outs(%%e : %s) -> %s\n"
               "  return %%s : %s\n}" % (t, t, t, t, t, t, t))
        z = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
        return src, [x], [z / z.sum(axis=1, keepdims=True)]
    return gen


OP_CASES = {
    "softmax_rows_2x1000": (softmax_case(2, 1000), 1e-4, 1e-6),
    "softmax_rows_3x4099": (softmax_case(3, 4099), 1e-4, 1e-6),
    "softmax_rows_1x257": (softmax_case(1, 257), 1e-4, 1e-6),
}
PTX_MUST_CONTAIN.update({name: ["shfl.sync.bfly.b32", "bar.sync"] for name in OP_CASES})
