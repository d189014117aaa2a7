"""GPU programs for the block-tiled matmul path: shapes larger than one
block tile and not multiples of it (listed by run_gpu.py as gpuop.NAME)."""
import op_cases

OP_CASES = {
    "matmul_130x257x67": (op_cases.matmul_case(130, 257, 67), 1e-4, 1e-4),
}
