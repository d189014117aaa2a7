// RUN: kiln-opt %s --assign-targets | kiln-opt --materialize-interfaces | FileCheck %s
// materialize-interfaces' written_mask (written.c): bit i when kernel
// binding i is stored from a value that depends on no undefined contents
// (tensor.empty's elements), so
// plan-memory may leave its buffer uninitialized. Kernels @NAME_yes keep
// the bit of their result (binding 1), @NAME_no clear it. window_mask
// (hl_window_mask) marks a binding stored as windows of defined values in
// a tensor.empty instead: @insert_no, and not @extract_no.
// CHECK-DAG: sym_name = "elementwise_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "insert_no", window_mask = 2 : i32, written_mask = 0 : i32}
// CHECK-DAG: sym_name = "window_undefined", written_mask = 0 : i32}
// CHECK-DAG: sym_name = "insert_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "reduce_no", written_mask = 0 : i32}
// CHECK-DAG: sym_name = "reduce_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "loop_no", written_mask = 0 : i32}
// CHECK-DAG: sym_name = "loop_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "pad_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "unused_input_yes", written_mask = 2 : i32}
// CHECK-DAG: sym_name = "extract_no", written_mask = 0 : i32}
// CHECK-DAG: sym_name = "two_results", window_mask = 2 : i32, written_mask = 4 : i32}
#id = affine_map<(d0) -> (d0)>
module attributes {kiln.targets = ["llvm-cpu:x86_64"]} {
  // an all-parallel generic that does not read its init: every element
  "flow.executable"() ({
    func.func @elementwise_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> tensor<8xf32>
      %1 = tensor.empty() : tensor<8xf32>
      %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %3 = arith.addf %in, %in : f32
        linalg.yield %3 : f32
      } -> tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "elementwise_yes", sym_visibility = "private"} : () -> ()
  // half of an empty tensor stays as it was
  "flow.executable"() ({
    func.func @insert_no(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %1 = tensor.empty() : tensor<8xf32>
      %2 = tensor.insert_slice %0 into %1[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "insert_no", sym_visibility = "private"} : () -> ()
  // the same into a filled tensor
  "flow.executable"() ({
    func.func @insert_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %cst = arith.constant 0.0 : f32
      %1 = tensor.empty() : tensor<8xf32>
      %f = linalg.fill ins(%cst : f32) outs(%1 : tensor<8xf32>) -> tensor<8xf32>
      %2 = tensor.insert_slice %0 into %f[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "insert_yes", sym_visibility = "private"} : () -> ()
  // a sum into an empty accumulator
  "flow.executable"() ({
    func.func @reduce_no(%arg0: !flow.dispatch.tensor<readonly:tensor<4x8xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4x8xf32>>) -> tensor<4x8xf32>
      %1 = tensor.empty() : tensor<4xf32>
      %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<4x8xf32>) outs(%1 : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %3 = arith.addf %in, %out : f32
        linalg.yield %3 : f32
      } -> tensor<4xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      return
    }
  }) {sym_name = "reduce_no", sym_visibility = "private"} : () -> ()
  // the same into a filled one
  "flow.executable"() ({
    func.func @reduce_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<4x8xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4x8xf32>>) -> tensor<4x8xf32>
      %cst = arith.constant 0.0 : f32
      %1 = tensor.empty() : tensor<4xf32>
      %f = linalg.fill ins(%cst : f32) outs(%1 : tensor<4xf32>) -> tensor<4xf32>
      %2 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
      ^bb0(%in: f32, %out: f32):
        %3 = arith.addf %in, %out : f32
        linalg.yield %3 : f32
      } -> tensor<4xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      return
    }
  }) {sym_name = "reduce_yes", sym_visibility = "private"} : () -> ()
  // a loop filling half of an empty tensor, slice by slice
  "flow.executable"() ({
    func.func @loop_no(%arg0: !flow.dispatch.tensor<readonly:tensor<2xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<2xf32>>) -> tensor<2xf32>
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %1 = tensor.empty() : tensor<8xf32>
      %2 = scf.for %i = %c0 to %c4 step %c2 iter_args(%acc = %1) -> (tensor<8xf32>) {
        %3 = tensor.insert_slice %0 into %acc[%i] [2] [1] : tensor<2xf32> into tensor<8xf32>
        scf.yield %3 : tensor<8xf32>
      }
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "loop_no", sym_visibility = "private"} : () -> ()
  // the same over a filled tensor
  "flow.executable"() ({
    func.func @loop_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<2xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<2xf32>>) -> tensor<2xf32>
      %c0 = arith.constant 0 : index
      %c2 = arith.constant 2 : index
      %c4 = arith.constant 4 : index
      %cst = arith.constant 1.0 : f32
      %1 = tensor.empty() : tensor<8xf32>
      %f = linalg.fill ins(%cst : f32) outs(%1 : tensor<8xf32>) -> tensor<8xf32>
      %2 = scf.for %i = %c0 to %c4 step %c2 iter_args(%acc = %f) -> (tensor<8xf32>) {
        %3 = tensor.insert_slice %0 into %acc[%i] [2] [1] : tensor<2xf32> into tensor<8xf32>
        scf.yield %3 : tensor<8xf32>
      }
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "loop_yes", sym_visibility = "private"} : () -> ()
  // a pad writes its border
  "flow.executable"() ({
    func.func @pad_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %cst = arith.constant 0.0 : f32
      %1 = tensor.pad %0 low[1] high[3] {
      ^bb0(%i: index):
        tensor.yield %cst : f32
      } : tensor<4xf32> to tensor<8xf32>
      "flow.dispatch.tensor.store"(%1, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "pad_yes", sym_visibility = "private"} : () -> ()
  // an empty input the body does not read only gives a shape
  "flow.executable"() ({
    func.func @unused_input_yes(%arg0: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> tensor<8xf32>
      %1 = tensor.empty() : tensor<8xf32>
      %2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%0, %1 : tensor<8xf32>, tensor<8xf32>) outs(%1 : tensor<8xf32>) {
      ^bb0(%in: f32, %in_1: f32, %out: f32):
        linalg.yield %in : f32
      } -> tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "unused_input_yes", sym_visibility = "private"} : () -> ()
  // a body reading an element an insert left undefined
  "flow.executable"() ({
    func.func @extract_no(%arg0: !flow.dispatch.tensor<readonly:tensor<8xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<8xf32>>) -> tensor<8xf32>
      %c7 = arith.constant 7 : index
      %1 = tensor.empty() : tensor<8xf32>
      %s = tensor.extract_slice %0[0] [4] [1] : tensor<8xf32> to tensor<4xf32>
      %p = tensor.insert_slice %s into %1[0] [4] [1] : tensor<4xf32> into tensor<8xf32>
      %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%0 : tensor<8xf32>) outs(%1 : tensor<8xf32>) {
      ^bb0(%in: f32, %out: f32):
        %e = tensor.extract %p[%c7] : tensor<8xf32>
        %3 = arith.addf %in, %e : f32
        linalg.yield %3 : f32
      } -> tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "extract_no", sym_visibility = "private"} : () -> ()
  // one result in full (binding 2), one half (binding 1)
  "flow.executable"() ({
    func.func @two_results(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4xf32>>) {
      %0 = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %1 = tensor.empty() : tensor<8xf32>
      %2 = tensor.insert_slice %0 into %1[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      "flow.dispatch.tensor.store"(%0, %arg2) : (tensor<4xf32>, !flow.dispatch.tensor<writeonly:tensor<4xf32>>) -> ()
      return
    }
  }) {sym_name = "two_results", sym_visibility = "private"} : () -> ()
  // a window of undefined values (an empty's elements) is no window write
  "flow.executable"() ({
    func.func @window_undefined(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<8xf32>>) {
      %in = "flow.dispatch.tensor.load"(%arg0) : (!flow.dispatch.tensor<readonly:tensor<4xf32>>) -> tensor<4xf32>
      %0 = tensor.empty() : tensor<4xf32>
      %1 = tensor.empty() : tensor<8xf32>
      %2 = tensor.insert_slice %0 into %1[4] [4] [1] : tensor<4xf32> into tensor<8xf32>
      "flow.dispatch.tensor.store"(%2, %arg1) : (tensor<8xf32>, !flow.dispatch.tensor<writeonly:tensor<8xf32>>) -> ()
      return
    }
  }) {sym_name = "window_undefined", sym_visibility = "private"} : () -> ()
}
