// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A host loop's scan rows (the ONNX importer's Loop with scan outputs
// run as a host loop): the body returns each step's row, the first loop
// (at most one step) allocates the buffer [n, rows' dims] and the others
// write into it. plan-memory gives the buffer an allocation of its own
// (uninitialized: n is the trip count, every row is written), checks
// each row's run-time dim and the slice's size against the buffer's
// dim, and copies the row's
// bytes at step * row bytes in a command buffer of its own: no kernel
// rewrites the rows already there. The rows' static dim (3) is folded
// into the byte count.

// CHECK-LABEL: func.func @main(
// CHECK: %[[N:.*]] = "hal.buffer_view.load"(%arg1)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[R:.*]]:2 = func.call @step(
// CHECK-NEXT: %[[D:.*]] = "hal.buffer_view.dim"(%[[R]]#1) {index = 0 : i32}
// CHECK: "hal.check.shape"(%[[N]], %[[D]]) {element_bytes = 4 : i64}
// CHECK: %[[B:.*]] = "hal.buffer.allocate"(%{{.*}}) {uninitialized}
// CHECK-NEXT: %[[V:.*]] = "hal.buffer_view.create"(%[[B]], %[[N]], %[[D]]) {element_type = f32, offset = 0 : i64, shape = array<i64: -9223372036854775808, -9223372036854775808, 3>}
// CHECK: "hal.command_buffer.copy"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: "hal.command_buffer.execute"
// CHECK-NEXT: "hal.device.wait"
// CHECK-NEXT: scf.yield %[[R]]#0, %[[V]]
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[BUF:.*]] = %{{.*}})
// CHECK-NEXT: %[[R1:.*]]:2 = func.call @step(
// CHECK: %[[D1:.*]] = "hal.buffer_view.dim"(%[[R1]]#1) {index = 0 : i32}
// CHECK-NEXT: %[[E:.*]] = "hal.buffer_view.dim"(%[[BUF]]) {index = 1 : i32}
// CHECK-NEXT: "hal.check.dim_eq"(%[[D1]], %[[E]])
// CHECK-NEXT: "hal.check.dim_eq"(%{{.*}}, %[[E]])
// CHECK-NEXT: %[[L4:.*]] = arith.muli %{{.*}}, %[[E]]
// CHECK: %[[LEN:.*]] = arith.muli %[[L4]], %{{.*}}
// CHECK-NEXT: %[[SRC:.*]] = "hal.buffer_view.buffer"(%[[R1]]#1)
// CHECK-NEXT: %[[DST:.*]] = "hal.buffer_view.buffer"(%[[BUF]])
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK: %[[OFF:.*]] = arith.muli %[[J]], %[[LEN]]
// CHECK-NEXT: "hal.command_buffer.copy"(%[[CB]], %[[SRC]], %{{.*}}, %[[DST]], %[[OFF]], %[[LEN]])
// CHECK-NEXT: "hal.command_buffer.execute"(%[[CB]])
// CHECK-NEXT: "hal.device.wait"
// CHECK-NEXT: scf.yield %[[R1]]#0, %[[BUF]]
// CHECK-NOT: hal.command_buffer.dispatch
// CHECK: return
func.func private @step(%acc: tensor<?xf32>, %i: index) -> (tensor<?xf32>, tensor<?x3xf32>) attributes {kiln.host_loop_body} {
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
  %e2 = tensor.empty(%m) : tensor<?x3xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%acc : tensor<?xf32>) outs(%e2 : tensor<?x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x3xf32>
  return %y, %z : tensor<?xf32>, tensor<?x3xf32>
}

func.func @main(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?x?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<> : tensor<0x0x3xf32>
  %zc = tensor.cast %z : tensor<0x0x3xf32> to tensor<?x?x3xf32>
  %first = arith.minsi %n, %c1 : index
  %a:2 = scf.for %i = %c0 to %first step %c1 iter_args(%acc = %x, %buf = %zc) -> (tensor<?xf32>, tensor<?x?x3xf32>) {
    %r:2 = func.call @step(%acc, %i) : (tensor<?xf32>, index) -> (tensor<?xf32>, tensor<?x3xf32>)
    %d = tensor.dim %r#1, %c0 : tensor<?x3xf32>
    %b = tensor.empty(%n, %d) : tensor<?x?x3xf32>
    %w = tensor.insert_slice %r#1 into %b[%i, 0, 0] [1, %d, 3] [1, 1, 1] : tensor<?x3xf32> into tensor<?x?x3xf32>
    scf.yield %r#0, %w : tensor<?xf32>, tensor<?x?x3xf32>
  }
  %l:2 = scf.for %i = %c1 to %n step %c1 iter_args(%acc = %a#0, %buf = %a#1) -> (tensor<?xf32>, tensor<?x?x3xf32>) {
    %r:2 = func.call @step(%acc, %i) : (tensor<?xf32>, index) -> (tensor<?xf32>, tensor<?x3xf32>)
    %d = tensor.dim %buf, %c1 : tensor<?x?x3xf32>
    %w = tensor.insert_slice %r#1 into %buf[%i, 0, 0] [1, %d, 3] [1, 1, 1] : tensor<?x3xf32> into tensor<?x?x3xf32>
    scf.yield %r#0, %w : tensor<?xf32>, tensor<?x?x3xf32>
  }
  return %l#0, %l#1 : tensor<?xf32>, tensor<?x?x3xf32>
}
