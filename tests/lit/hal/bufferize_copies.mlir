// RUN: kiln-opt %s --assign-targets --materialize-interfaces | kiln-opt --bufferize-kernels | FileCheck %s
// bufferize-kernels on a hand-written kernel: %2 is read twice, so it
// cannot share the output and lives in a memref.alloca; %3 is computed
// straight into binding 2 (the last store) and copied into binding 1; the
// input stored as is is copied into binding 3. No tensors remain.
// CHECK: "hal.executable.export"() {binding_count = 4 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "k", written_mask = 14 : i32}
// CHECK: func.func @k() {
// CHECK-NEXT: %[[B0:.*]] = hal.interface.binding {binding = 0 : i32} : memref<4xf32>
// CHECK-NEXT: %[[B1:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
// CHECK-NEXT: %[[B2:.*]] = hal.interface.binding {binding = 2 : i32} : memref<4xf32>
// CHECK-NEXT: %[[B3:.*]] = hal.interface.binding {binding = 3 : i32} : memref<4xf32>
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<4xf32>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[B0]] : memref<4xf32>) outs(%[[T]] : memref<4xf32>)
// CHECK: math.exp
// CHECK: linalg.generic {{.*}} ins(%[[T]], %[[T]] : memref<4xf32>, memref<4xf32>) outs(%[[B2]] : memref<4xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[B2]] : memref<4xf32>) outs(%[[B1]] : memref<4xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[B0]] : memref<4xf32>) outs(%[[B3]] : memref<4xf32>)
// CHECK-NOT: tensor
// CHECK: }) {sym_name = "llvm_cpu_x86_64", target = "llvm-cpu:x86_64"}
module attributes {kiln.targets = ["llvm-cpu:x86_64"]} {
  "flow.executable"() ({
    func.func @k(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<4xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4xf32>>, %arg3: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %1 = tensor.empty() : tensor<4xf32>
      %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %e = math.exp %in : f32
        linalg.yield %e : f32
      } -> tensor<4xf32>
      %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%2, %2 : tensor<4xf32>, tensor<4xf32>) outs(%1 : tensor<4xf32>) {
      ^bb0(%in: f32, %in_0: f32, %out: f32):
        %m = arith.mulf %in, %in_0 : f32
        linalg.yield %m : f32
      } -> tensor<4xf32>
      "flow.dispatch.tensor.store"(%3, %arg1) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      "flow.dispatch.tensor.store"(%3, %arg2) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      "flow.dispatch.tensor.store"(%0, %arg3) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      return
    }
  }) {sym_name = "k", sym_visibility = "private"} : () -> ()
}
