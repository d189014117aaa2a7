// Round trip of a named module carrying attributes, the shape front ends
// such as torch-mlir produce; the module name and attributes are kept.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

module @net attributes {torch.debug_module_name = "Net", kiln.version = 1 : i64} {
// CHECK: module @net attributes {kiln.version = 1 : i64, torch.debug_module_name = "Net"} {
// CHECK-LABEL: func.func @forward(%arg0: tensor<1x4xf32>, %arg1: tensor<4x2xf32>) -> tensor<1x2xf32> {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<1x2xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: %2 = linalg.matmul ins(%arg0, %arg1 : tensor<1x4xf32>, tensor<4x2xf32>) outs(%1 : tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: return %2 : tensor<1x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
  func.func @forward(%x: tensor<1x4xf32>, %w: tensor<4x2xf32>) -> tensor<1x2xf32> {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x2xf32>
    %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %y = linalg.matmul ins(%x, %w : tensor<1x4xf32>, tensor<4x2xf32>) outs(%acc : tensor<1x2xf32>) -> tensor<1x2xf32>
    return %y : tensor<1x2xf32>
  }
}
