// RUN: kiln-opt %s --pass-pipeline=input,flow | FileCheck %s --check-prefix=FLOW
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --device=local-sync --input=5xf32=1,2,3,4,5 --input=i64=3 | FileCheck %s --check-prefix=RUN3
// RUN: kiln-run --module=%t.kiln --device=local-task --input=5xf32=1,2,3,4,5 --input=i64=5 | FileCheck %s --check-prefix=RUN5
// RUN: not kiln-run --module=%t.kiln --input=5xf32=1,2,3,4,5 --input=i64=0 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not kiln-run --module=%t.kiln --input=5xf32=1,2,3,4,5 --input=i64=6 2>&1 | FileCheck %s --check-prefix=LONG

// Lists (ONNX sequences at run time, !kiln.seq) built by a host loop:
// each step appends x[0:i+1], a kernel's result, so the list grows by an
// element of another length each step. The flow.list ops stay on the
// host (no dispatch region takes them); the loop carries the list. main
// returns the list, its last element and the list without its first.

// FLOW-LABEL: func.func private @step(
// FLOW: %[[S:.*]] = "flow.dispatch"
// FLOW: %[[N:.*]] = "flow.list.size"(%arg0)
// FLOW: "flow.list.insert"(%arg0, %[[S]], %[[N]]) : (!kiln.seq<tensor<?xf32>>, tensor<?xf32>, index) -> !kiln.seq<tensor<?xf32>>
// FLOW-LABEL: func.func @main(
// FLOW: "flow.list.create"() : () -> !kiln.seq<tensor<?xf32>>
// FLOW: scf.for {{.*}} -> (!kiln.seq<tensor<?xf32>>)
// FLOW: "flow.list.get"
// FLOW: "flow.list.erase"
// FLOW-NOT: flow.dispatch
// FLOW: return

func.func private @step(%l: !kiln.seq<tensor<?xf32>>, %i: index, %x: tensor<5xf32>) -> !kiln.seq<tensor<?xf32>> attributes {kiln.host_loop_body} {
  %c1 = arith.constant 1 : index
  %e = arith.addi %i, %c1 : index
  %s = tensor.extract_slice %x[0] [%e] [1] : tensor<5xf32> to tensor<?xf32>
  %n = "flow.list.size"(%l) : (!kiln.seq<tensor<?xf32>>) -> index
  %l2 = "flow.list.insert"(%l, %s, %n) : (!kiln.seq<tensor<?xf32>>, tensor<?xf32>, index) -> !kiln.seq<tensor<?xf32>>
  return %l2 : !kiln.seq<tensor<?xf32>>
}

func.func @main(%x: tensor<5xf32>, %n: tensor<i64>) -> (!kiln.seq<tensor<?xf32>>, tensor<?xf32>, !kiln.seq<tensor<?xf32>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cm1 = arith.constant -1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %l0 = "flow.list.create"() : () -> !kiln.seq<tensor<?xf32>>
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %l0) -> (!kiln.seq<tensor<?xf32>>) {
    %y = func.call @step(%acc, %i, %x) : (!kiln.seq<tensor<?xf32>>, index, tensor<5xf32>) -> !kiln.seq<tensor<?xf32>>
    scf.yield %y : !kiln.seq<tensor<?xf32>>
  }
  %last = "flow.list.get"(%r, %cm1) : (!kiln.seq<tensor<?xf32>>, index) -> tensor<?xf32>
  %rest = "flow.list.erase"(%r, %c0) : (!kiln.seq<tensor<?xf32>>, index) -> !kiln.seq<tensor<?xf32>>
  return %r, %last, %rest : !kiln.seq<tensor<?xf32>>, tensor<?xf32>, !kiln.seq<tensor<?xf32>>
}

// RUN3: result[0]: seq of 3
// RUN3-NEXT: result[0][0]: 1xf32=1
// RUN3-NEXT: result[0][1]: 2xf32=1 2
// RUN3-NEXT: result[0][2]: 3xf32=1 2 3
// RUN3-NEXT: result[1]: 3xf32=1 2 3
// RUN3-NEXT: result[2]: seq of 2
// RUN3-NEXT: result[2][0]: 2xf32=1 2
// RUN3-NEXT: result[2][1]: 3xf32=1 2 3

// RUN5: result[0]: seq of 5
// RUN5: result[0][4]: 5xf32=1 2 3 4 5
// RUN5-NEXT: result[1]: 5xf32=1 2 3 4 5
// RUN5-NEXT: result[2]: seq of 4
// RUN5-NEXT: result[2][0]: 2xf32=1 2

// EMPTY: hal.list.get: position -1 is out of range for a sequence of 0
// LONG: size[0] is 6, must be <= 5
