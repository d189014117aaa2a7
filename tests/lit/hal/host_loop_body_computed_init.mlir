// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A dispatch result entering a host loop (as its initial value or as a
// value every step reads) gets an allocation of its own, not an arena
// slice (the loop's result after no step is the view it took, and may
// outlive the arena's reuse), and the loop runs after the wait of the
// commands computing it, over views made with its dims.
func.func private @step(%acc: tensor<?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.host_loop_body} {
  %y = arith.addf %acc, %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

// CHECK-LABEL: func.func @main(
// CHECK: %[[D:.*]] = "hal.buffer_view.dim"(%arg0) {index = 0 : i32}
// CHECK: %[[N:.*]] = "hal.buffer_view.load"(%arg1)
// CHECK: %[[B:.*]] = "hal.buffer.allocate"(%{{.*}}) {uninitialized}
// CHECK-NOT: transient
// CHECK: "hal.command_buffer.dispatch"({{.*}}, %[[B]]
// CHECK: "hal.command_buffer.execute"
// CHECK-NEXT: "hal.device.wait"
// CHECK-NEXT: %[[V:.*]] = "hal.buffer_view.create"(%[[B]], %[[D]]) {element_type = f32, offset = 0 : i64, shape = array<i64: -9223372036854775808>}
// CHECK-NEXT: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[V]]) -> (!hal.buffer_view) {
// CHECK-NEXT: func.call @step(%[[ACC]], %[[V]])
// CHECK-NOT: hal.command_buffer
// CHECK: return %[[R]] : !hal.buffer_view
func.func @main(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %s = arith.mulf %x, %x : tensor<?xf32>
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %s) -> (tensor<?xf32>) {
    %y = func.call @step(%acc, %s) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
