// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// plan-memory on lists (!kiln.seq, flow.list.*): a list argument or
// result is a !hal.list (kiln.signature keeps the list type); a list op
// is the hal.list op of the same name; an element a kernel computes gets
// an allocation of its own (not an arena slice: the list outlives the
// call) and is inserted after the wait, as a view with its run-time
// dims; the length is a host index value. The caller's host loop carries
// the !hal.list; an element read back (list.get) is returned as the view.

// CHECK-LABEL: func.func private @step(%arg0: !hal.list, %arg1: index, %arg2: !hal.buffer_view) -> !hal.list
// CHECK-SAME: kiln.signature = (!kiln.seq<tensor<?xf32>>, index, tensor<5xf32>) -> !kiln.seq<tensor<?xf32>>
// CHECK: %[[N:.*]] = "hal.list.size"(%arg0) : (!hal.list) -> index
// CHECK-NOT: transient
// CHECK: %[[B:.*]] = "hal.buffer.allocate"(%{{.*}}) {uninitialized} : (index) -> !hal.buffer
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[B]],
// CHECK: "hal.device.wait"
// CHECK-NEXT: %[[V:.*]] = "hal.buffer_view.create"(%[[B]], %{{.*}}) {element_type = f32, offset = 0 : i64, shape = array<i64: -9223372036854775808>}
// CHECK-NEXT: %[[L:.*]] = "hal.list.insert"(%arg0, %[[V]], %[[N]]) : (!hal.list, !hal.buffer_view, index) -> !hal.list
// CHECK-NEXT: return %[[L]] : !hal.list
func.func private @step(%l: !kiln.seq<tensor<?xf32>>, %i: index, %x: tensor<5xf32>) -> !kiln.seq<tensor<?xf32>> attributes {kiln.host_loop_body} {
  %c1 = arith.constant 1 : index
  %e = arith.addi %i, %c1 : index
  %s = tensor.extract_slice %x[0] [%e] [1] : tensor<5xf32> to tensor<?xf32>
  %n = "flow.list.size"(%l) : (!kiln.seq<tensor<?xf32>>) -> index
  %l2 = "flow.list.insert"(%l, %s, %n) : (!kiln.seq<tensor<?xf32>>, tensor<?xf32>, index) -> !kiln.seq<tensor<?xf32>>
  return %l2 : !kiln.seq<tensor<?xf32>>
}

// CHECK-LABEL: func.func @main(%arg0: !hal.buffer_view, %arg1: !hal.list, %arg2: !hal.buffer_view) -> (!hal.list, !hal.buffer_view)
// CHECK-SAME: kiln.signature = (tensor<5xf32>, !kiln.seq<tensor<?xf32>>, tensor<i64>) -> (!kiln.seq<tensor<?xf32>>, tensor<?xf32>)
// CHECK-NOT: "hal.buffer_view.assert"(%arg1)
// CHECK: %[[T:.*]] = "hal.buffer_view.load"(%arg2)
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %[[T]] step %{{.*}} iter_args(%[[ACC:.*]] = %arg1) -> (!hal.list) {
// CHECK-NEXT: %[[Y:.*]] = func.call @step(%[[ACC]], %[[I]], %arg0) : (!hal.list, index, !hal.buffer_view) -> !hal.list
// CHECK-NEXT: scf.yield %[[Y]] : !hal.list
// CHECK: %[[E:.*]] = "hal.list.get"(%[[R]], %{{.*}}) : (!hal.list, index) -> !hal.buffer_view
// CHECK-NOT: hal.command_buffer
// CHECK: return %[[R]], %[[E]] : !hal.list, !hal.buffer_view
func.func @main(%x: tensor<5xf32>, %l0: !kiln.seq<tensor<?xf32>>, %trip: index) -> (!kiln.seq<tensor<?xf32>>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %l0) -> (!kiln.seq<tensor<?xf32>>) {
    %y = func.call @step(%acc, %i, %x) : (!kiln.seq<tensor<?xf32>>, index, tensor<5xf32>) -> !kiln.seq<tensor<?xf32>>
    scf.yield %y : !kiln.seq<tensor<?xf32>>
  }
  %first = "flow.list.get"(%r, %c0) : (!kiln.seq<tensor<?xf32>>, index) -> tensor<?xf32>
  return %r, %first : !kiln.seq<tensor<?xf32>>, tensor<?xf32>
}

// flow.list.select (an ONNX If between sequences) is a branch on the
// host: scf.if on c != 0 yielding one !hal.list or the other.
// CHECK-LABEL: func.func @pick(%arg0: !hal.list, %arg1: !hal.list, %arg2: !hal.buffer_view) -> !hal.list
// CHECK: %[[C:.*]] = "hal.buffer_view.load"(%arg2)
// CHECK: %[[P:.*]] = arith.cmpi ne, %[[C]], %{{.*}} : index
// CHECK-NEXT: %[[S:.*]] = scf.if %[[P]] -> (!hal.list) {
// CHECK-NEXT: scf.yield %arg0 : !hal.list
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg1 : !hal.list
// CHECK: return %[[S]] : !hal.list
func.func @pick(%a: !kiln.seq<tensor<?xf32>>, %b: !kiln.seq<tensor<?xf32>>, %c: tensor<i64>) -> !kiln.seq<tensor<?xf32>> {
  %t = tensor.extract %c[] : tensor<i64>
  %i = arith.index_cast %t : i64 to index
  %s = "flow.list.select"(%i, %a, %b) : (index, !kiln.seq<tensor<?xf32>>, !kiln.seq<tensor<?xf32>>) -> !kiln.seq<tensor<?xf32>>
  return %s : !kiln.seq<tensor<?xf32>>
}

// A list's element that a kernel reads: flow keeps its dims as tensor.dim
// right after the get (hal.buffer_view.dim of the element's view), and
// the kernel binds the view's buffer (read-only), sized by those dims.
// CHECK-LABEL: func.func @reader(%arg0: !hal.list) -> !hal.buffer_view
// CHECK: %[[E:.*]] = "hal.list.get"(%arg0, %{{.*}}) : (!hal.list, index) -> !hal.buffer_view
// CHECK-NEXT: %[[D:.*]] = "hal.buffer_view.dim"(%[[E]]) {index = 0 : i32}
// CHECK-NEXT: %[[B:.*]] = "hal.buffer_view.buffer"(%[[E]])
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[B]], {{.*}}readonly_mask = 1 : i32
func.func @reader(%l: !kiln.seq<tensor<?xf32>>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %e = "flow.list.get"(%l, %c0) : (!kiln.seq<tensor<?xf32>>, index) -> tensor<?xf32>
  %n = tensor.dim %e, %c0 : tensor<?xf32>
  %o = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%e : tensor<?xf32>) outs(%o : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %q = arith.addf %a, %a : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
