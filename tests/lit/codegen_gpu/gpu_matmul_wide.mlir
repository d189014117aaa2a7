// RUN: kiln-opt --select-gpu-launch-config %s | FileCheck %s
// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s --check-prefix=TILES
// Plain matmuls of a GPU-only executable on sm_90: the CPU rule's 128 x 64
// workgroup tiles (M a multiple of 128) widen to 128 x 128 where N is a
// multiple of 128 and at least 264 workgroups remain (two per SM of an
// H100/H200), and those kernels launch 256 threads with 8 x 8 outputs each
// (the other kernels keep 128). 1536 x 2816: 12 x 22 = 264 workgroups.
// CHECK: sym_name = "wide", workgroup_count = array<i64: 22, 12, 1>
// CHECK: func.func @wide() attributes {kiln.launch = {block_size = array<i64: 256, 1, 1>, block_tile = array<i64: 128, 128>, k_step = 16 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 8, 8>, tile_sizes = array<i64: 128, 128, 0>
// Blocks of 256 threads keep two workgroup tiles (2 x 16 rows): step 0
// is stored and waited for before the K loop, which carries only the 64
// accumulators, runs a step's FMAs on one tile, stores the next step's
// groups into the other and waits at one barrier per step.
// TILES-LABEL: func.func @wide()
// TILES-NEXT: memref.alloca() {{.*}} : memref<32x128xf32, 3>
// TILES-NEXT: memref.alloca() {{.*}} : memref<32x128xf32, 3>
// TILES: "hal.interface.barrier"() : () -> ()
// TILES-NOT: "hal.interface.barrier"
// TILES: %{{.*}}:64 = scf.for %{{.*}} = %{{.*}} to %c36 step %c16{{.*}} iter_args(
// TILES-NOT: "hal.interface.barrier"
// TILES: vector.fma
// TILES-NOT: "hal.interface.barrier"
// TILES: memref.store %{{.*}}, %alloca[
// TILES: "hal.interface.barrier"() : () -> ()
// TILES-NEXT: scf.yield
// 128-thread blocks keep one tile of 16 rows, the next step's groups
// carried in the loop (64 + 24 scalars) and stored between two barriers.
// TILES-LABEL: func.func @narrow()
// TILES-NEXT: memref.alloca() {{.*}} : memref<16x128xf32, 3>
// TILES-NEXT: memref.alloca() {{.*}} : memref<16x64xf32, 3>
// TILES: %{{.*}}:88 = scf.for %{{.*}} = %{{.*}} to %c36 step %c16{{.*}} iter_args(
// 1536 x 2688: 12 x 21 = 252 workgroups at 128 x 128, so 128 x 64 tiles
// with 128 threads, as before.
// CHECK: sym_name = "narrow", workgroup_count = array<i64: 42, 12, 1>
// CHECK: func.func @narrow() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, block_tile = array<i64: 128, 64>, k_step = 16 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 8, 8>, tile_sizes = array<i64: 128, 64, 0>

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "wide", workload = array<i64: 1536, 2816>} : () -> ()
    module {
      func.func @wide() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<1536x36xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<36x2816xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<1536x2816xf32>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.fill ins(%cst : f32) outs(%2 : memref<1536x2816xf32>)
        linalg.matmul ins(%0, %1 : memref<1536x36xf32>, memref<36x2816xf32>) outs(%2 : memref<1536x2816xf32>)
        return
      }
    }
  }) {sym_name = "cuda_sm_90", target = "cuda:sm_90"} : () -> ()
}) {sym_name = "wide_dispatch", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "narrow", workload = array<i64: 1536, 2688>} : () -> ()
    module {
      func.func @narrow() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<1536x36xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<36x2688xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<1536x2688xf32>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.fill ins(%cst : f32) outs(%2 : memref<1536x2688xf32>)
        linalg.matmul ins(%0, %1 : memref<1536x36xf32>, memref<36x2688xf32>) outs(%2 : memref<1536x2688xf32>)
        return
      }
    }
  }) {sym_name = "cuda_sm_90", target = "cuda:sm_90"} : () -> ()
}) {sym_name = "narrow_dispatch", sym_visibility = "private"} : () -> ()
