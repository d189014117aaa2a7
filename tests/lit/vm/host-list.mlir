// RUN: kiln-opt %s --convert-to-vm | FileCheck %s --check-prefix=CONV
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --input=1xf32=7 --input=2xf32=4,5 | FileCheck %s --check-prefix=RUN1
// RUN: kiln-run --module=%t.kiln --input=2xf32=7,8 --input=2xf32=4,5 | FileCheck %s --check-prefix=RUN2
// RUN: not kiln-run --module=%t.kiln --input=4xf32=1,2,3,4 --input=2xf32=4,5 2>&1 | FileCheck %s --check-prefix=RANGE

// The hal.list ops (ONNX sequences at run time) as the host program uses
// them: each is one call of its hal.list import, refs and index values in
// the signature's order. Run: l = [a, b] (b appended at size(l)); output
// 0 is element 0 of l with element 0 erased (b), output 1 element
// dim0(a) - 2 of l, a position from the data: -1 (b) for a 1-element a,
// 0 (a) for 2 elements, 2 (out of range, named) for 4.

func.func @main(%a: !hal.buffer_view, %b: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view)
    attributes {kiln.signature = (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %l0 = "hal.list.create"() : () -> !hal.list
  %l1 = "hal.list.insert"(%l0, %a, %c0) : (!hal.list, !hal.buffer_view, index) -> !hal.list
  %n = "hal.list.size"(%l1) : (!hal.list) -> index
  %l2 = "hal.list.insert"(%l1, %b, %n) : (!hal.list, !hal.buffer_view, index) -> !hal.list
  %l3 = "hal.list.erase"(%l2, %c0) : (!hal.list, index) -> !hal.list
  %r0 = "hal.list.get"(%l3, %c0) : (!hal.list, index) -> !hal.buffer_view
  %d = "hal.buffer_view.dim"(%a) {index = 0 : i64} : (!hal.buffer_view) -> index
  %k = arith.subi %d, %c2 : index
  %r1 = "hal.list.get"(%l2, %k) : (!hal.list, index) -> !hal.buffer_view
  return %r0, %r1 : !hal.buffer_view, !hal.buffer_view
}

// CONV: vm.call.import @hal.list.create() {signature = "_r"} : () -> !hal.list
// CONV: vm.call.import @hal.list.insert(%{{.*}}, %arg0, %{{.*}}) {signature = "rrI_r"} : (!hal.list, !hal.buffer_view, i64) -> !hal.list
// CONV: vm.call.import @hal.list.size(%{{.*}}) {signature = "r_I"} : (!hal.list) -> i64
// CONV: vm.call.import @hal.list.insert(%{{.*}}, %arg1, %{{.*}}) {signature = "rrI_r"}
// CONV: vm.call.import @hal.list.erase(%{{.*}}, %{{.*}}) {signature = "rI_r"} : (!hal.list, i64) -> !hal.list
// CONV: vm.call.import @hal.list.get(%{{.*}}, %{{.*}}) {signature = "rI_r"} : (!hal.list, i64) -> !hal.buffer_view

// RUN1: result[0]: 2xf32=4 5
// RUN1-NEXT: result[1]: 2xf32=4 5
// RUN2: result[0]: 2xf32=4 5
// RUN2-NEXT: result[1]: 2xf32=7 8
// RANGE: hal.list.get: position 2 is out of range for a sequence of 2 (-2 to 1)
