// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A kernel reading a host loop's result: the loop runs first (its steps
// wait for their own commands), then the kernel binds the buffer of the
// view the loop returned, its length and the kernel's sizes from that
// view's dims (a tensor.dim of the result stays for plan-memory).
func.func private @step(%acc: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.host_loop_body} {
  %y = arith.addf %acc, %acc : tensor<?xf32>
  return %y : tensor<?xf32>
}

// CHECK-LABEL: func.func @main(
// CHECK: %[[R:.*]] = scf.for
// CHECK-NOT: hal.command_buffer
// CHECK: %[[RB:.*]] = "hal.buffer_view.buffer"(%[[R]])
// CHECK: %[[D:.*]] = "hal.buffer_view.dim"(%[[R]]) {index = 0 : i32}
// CHECK: %[[OUT:.*]] = "hal.buffer.allocate"(%{{.*}}) {uninitialized}
// CHECK: %[[CB:.*]] = "hal.command_buffer.create"
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[RB]], %[[OUT]], %{{.*}}, %{{.*}}, %[[D]], %[[D]])
// CHECK: "hal.buffer_view.create"(%[[OUT]], %[[D]])
func.func @main(%x: tensor<?xf32>, %n: tensor<i64>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x) -> (tensor<?xf32>) {
    %y = func.call @step(%acc) : (tensor<?xf32>) -> tensor<?xf32>
    scf.yield %y : tensor<?xf32>
  }
  %s = arith.mulf %r, %r : tensor<?xf32>
  return %s : tensor<?xf32>
}
