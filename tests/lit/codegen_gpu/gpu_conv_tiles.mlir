// RUN: kiln-opt --select-gpu-launch-config %s | FileCheck %s
// Convolution tiles of a GPU-only executable (no CPU grid to share):
// halved from 64 pixels x 64 channels until there are 128 workgroups, below
// 1024 outputs only while each of a block's 128 threads keeps 2048
// multiply-adds (outputs x K >= 256 Ki), and K steps deepened (in the same
// workgroup memory) while a kernel would take more than 64 of them.
// A late-stage 3x3 over 512 channels at 7 x 7 (K = 4608): 14 pixels x 16
// channels, 128 workgroups (the old 1024-output floor left 32, each
// walking all of K), 128-deep K steps (36 instead of 144).
// CHECK: sym_name = "deep", workgroup_count = array<i64: 32, 4, 1>
// CHECK: func.func @deep() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, block_tile = array<i64: 14, 16>, k_step = 128 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 1, 2>, tile_sizes = array<i64: 1, 2, 7, 16, 0, 0, 0>
// An early-stage 3x3 over 64 channels at 56 x 56 (K = 576) keeps
// 28 x 32 tiles (224 workgroups) and 32-deep K steps (18 of them).
// CHECK: sym_name = "shallow", workgroup_count = array<i64: 2, 2, 56>
// CHECK: func.func @shallow() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, block_tile = array<i64: 28, 32>, k_step = 32 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 2, 4>, tile_sizes = array<i64: 1, 1, 28, 32, 0, 0, 0>

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "deep", workload = array<i64: 1, 7, 7, 512>} : () -> ()
    module {
      func.func @deep() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x512xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<3x3x512x512xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x512xf32>
        linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : memref<1x9x9x512xf32>, memref<3x3x512x512xf32>) outs(%2 : memref<1x7x7x512xf32>)
        return
      }
    }
  }) {sym_name = "cuda_sm_90", target = "cuda:sm_90"} : () -> ()
}) {sym_name = "deep_dispatch", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "shallow", workload = array<i64: 1, 56, 56, 64>} : () -> ()
    module {
      func.func @shallow() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<1x58x58x64xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<3x3x64x64xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<1x56x56x64xf32>
        linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : memref<1x58x58x64xf32>, memref<3x3x64x64xf32>) outs(%2 : memref<1x56x56x64xf32>)
        return
      }
    }
  }) {sym_name = "cuda_sm_90", target = "cuda:sm_90"} : () -> ()
}) {sym_name = "shallow_dispatch", sym_visibility = "private"} : () -> ()
