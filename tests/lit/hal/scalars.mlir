// RUN: kiln-opt %s --pass-pipeline=canonicalize,flow,hal | FileCheck %s
// Single elements: tensor.extract inside a generic body becomes
// memref.load from the table's binding (passed as a kernel argument);
// scalars extracted on the host are recomputed inside each kernel that
// needs them (loads of the input binding); tensor.insert writes the
// element with memref.store after copying the destination;
// tensor.from_elements stores each element row-major.
// CHECK-LABEL: func.func @gather_dispatch_0() {
// CHECK: %[[T:.*]] = hal.interface.binding {binding = 1 : i32} : memref<5xf32>
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = arith.index_cast %in : i32 to index
// CHECK-NEXT: memref.load %[[T]][%[[I]]] : memref<5xf32>
// CHECK-LABEL: func.func @scalar_ops_dispatch_0() {
// CHECK: %[[A:.*]] = hal.interface.binding {binding = 0 : i32} : memref<4xf32>
// CHECK: %[[O:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
// CHECK-DAG: %[[X:.*]] = memref.load %[[A]][%{{.*}}] : memref<4xf32>
// CHECK-DAG: %[[Y:.*]] = memref.load %[[A]][%{{.*}}] : memref<4xf32>
// CHECK: %[[S:.*]] = arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4xf32>) outs(%[[O]] : memref<4xf32>)
// CHECK: memref.store %[[S]], %[[O]][%{{.*}}] : memref<4xf32>
// CHECK-LABEL: func.func @scalar_ops_dispatch_1() {
// CHECK: %[[F:.*]] = hal.interface.binding {binding = 1 : i32} : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[F]][%{{.*}}] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[F]][%{{.*}}] : memref<2xf32>
// CHECK-LABEL: func.func @scalar_ops(
// CHECK-NOT: tensor.extract
// CHECK: return
func.func @gather(%table: tensor<5xf32>, %idx: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: i32, %o: f32):
    %ii = arith.index_cast %i : i32 to index
    %v = tensor.extract %table[%ii] : tensor<5xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @scalar_ops(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %a[%c1] : tensor<4xf32>
  %y = tensor.extract %a[%c3] : tensor<4xf32>
  %s = arith.addf %x, %y : f32
  %i = tensor.insert %s into %a[%c1] : tensor<4xf32>
  %f = tensor.from_elements %x, %s : tensor<2xf32>
  return %i, %f : tensor<4xf32>, tensor<2xf32>
}
