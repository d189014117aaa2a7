// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A host loop whose body is a function of its own (kiln.host_loop_body):
// inline-calls keeps the call, no dispatch region takes the loop, and the
// body is planned like any host function (its own asserts, allocations
// at each step's sizes, a command buffer and a wait per call), taking
// the step number as an index argument (a push constant of its kernel).
// The caller's loop carries buffer views; its result is returned as the
// view the last step made (or the input's, after no step), and the
// caller records no command buffer of its own.

// CHECK-LABEL: func.func private @step(%arg0: !hal.buffer_view, %arg1: index) -> !hal.buffer_view attributes {kiln.host_loop_body, kiln.signature = (tensor<?xf32>, index) -> tensor<?xf32>}
// CHECK: "hal.buffer_view.assert"(%arg0) {element_type = f32, input = 0 : i32, shape = array<i64: -9223372036854775808>}
// CHECK: "hal.buffer.allocate"
// CHECK: "hal.command_buffer.dispatch"({{.*}}%arg1{{.*}}) {constants = array<i64: -9223372036854775808, -9223372036854775808>
// CHECK: "hal.device.wait"
func.func private @step(%acc: tensor<?xf32>, %i: index) -> tensor<?xf32> attributes {kiln.host_loop_body} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %acc, %c0 : tensor<?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f32
    %q = arith.addf %a, %fi : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}

// CHECK-LABEL: func.func @main(%arg0: !hal.buffer_view, %arg1: !hal.buffer_view) -> !hal.buffer_view
// CHECK: %[[N:.*]] = "hal.buffer_view.load"(%arg1)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %arg0) -> (!hal.buffer_view) {
// CHECK-NEXT: %[[V:.*]] = func.call @step(%[[ACC]], %[[I]]) : (!hal.buffer_view, index) -> !hal.buffer_view
// CHECK-NEXT: scf.yield %[[V]] : !hal.buffer_view
// CHECK-NOT: hal.command_buffer
// CHECK: return %[[R]] : !hal.buffer_view
func.func @main(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %y = func.call @step(%acc, %i) : (tensor<?xf32>, index) -> tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
