// RUN: kiln-opt %s --assign-targets | FileCheck %s --check-prefix=ASSIGN
// RUN: kiln-opt %s --assign-targets | kiln-opt --materialize-interfaces | FileCheck %s --check-prefix=IFACE
// assign-targets alone: one variant per target (a repeated one once),
// each with its own copy of the kernel, still in flow form.
// ASSIGN: "hal.executable"() ({
// ASSIGN-NEXT: "hal.executable.variant"() ({
// ASSIGN-NEXT: module {
// ASSIGN-NEXT: func.func @k(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4xf32>>)
// ASSIGN: }) {sym_name = "llvm_cpu_x86_64_avx2", target = "llvm-cpu:x86_64+avx2"}
// ASSIGN-NEXT: "hal.executable.variant"() ({
// ASSIGN: }) {sym_name = "cuda_sm_80", target = "cuda:sm_80"}
// ASSIGN-NEXT: }) {sym_name = "k", sym_visibility = "private"}
// ASSIGN-NOT: hal.executable.variant
// materialize-interfaces: the export leads each variant; bindings 0 and 1
// read-only; the workload comes from the dispatch site.
// IFACE: "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "k", workload = array<i64: 4>, written_mask = 4 : i32}
// IFACE: "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "k", workload = array<i64: 4>, written_mask = 4 : i32}
module attributes {kiln.targets = ["llvm-cpu:x86_64+avx2", "cuda:sm_80", "llvm-cpu:x86_64+avx2"]} {
  "flow.executable"() ({
    func.func @k(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %1 = "flow.dispatch.tensor.load"(%arg1) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %2 = tensor.empty() : tensor<4xf32>
      %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0, %1 : tensor<4xf32>, tensor<4xf32>) outs(%2 : tensor<4xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %4 = arith.mulf %in, %in_0 : f32
        linalg.yield %4 : f32
      } -> tensor<4xf32>
      "flow.dispatch.tensor.store"(%3, %arg2) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      return
    }
  }) {sym_name = "k", sym_visibility = "private"} : () -> ()
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "flow.dispatch"(%a, %b) {entry_point = @k::@k, workload = array<i64: 4>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
