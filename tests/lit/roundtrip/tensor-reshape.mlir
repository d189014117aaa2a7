// Round trip of tensor.expand_shape (LLVM 19 syntax with output_shape) and
// tensor.collapse_shape, static and dynamic, including rank 0.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @expand_static(%arg0: tensor<12xf32>, %arg1: tensor<6x20xi8>) -> (tensor<3x4xf32>, tensor<2x3x4x5xi8>) {
// CHECK-NEXT: %expanded = tensor.expand_shape %arg0 {{\[\[}}0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
// CHECK-NEXT: %expanded_0 = tensor.expand_shape %arg1 {{\[\[}}0, 1], [2, 3]] output_shape [2, 3, 4, 5] : tensor<6x20xi8> into tensor<2x3x4x5xi8>
// CHECK-NEXT: return %expanded, %expanded_0 : tensor<3x4xf32>, tensor<2x3x4x5xi8>
// CHECK-NEXT: }
func.func @expand_static(%t: tensor<12xf32>, %u: tensor<6x20xi8>) -> (tensor<3x4xf32>, tensor<2x3x4x5xi8>) {
  %0 = tensor.expand_shape %t [[0, 1]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
  %1 = tensor.expand_shape %u [[0, 1], [2, 3]] output_shape [2, 3, 4, 5] : tensor<6x20xi8> into tensor<2x3x4x5xi8>
  return %0, %1 : tensor<3x4xf32>, tensor<2x3x4x5xi8>
}

// CHECK-LABEL: func.func @expand_dynamic(%arg0: tensor<?x8xf32>, %arg1: index) -> tensor<?x4x2x4xf32> {
// CHECK-NEXT: %expanded = tensor.expand_shape %arg0 {{\[\[}}0, 1], [2, 3]] output_shape [%arg1, 4, 2, 4] : tensor<?x8xf32> into tensor<?x4x2x4xf32>
// CHECK-NEXT: return %expanded : tensor<?x4x2x4xf32>
// CHECK-NEXT: }
func.func @expand_dynamic(%t: tensor<?x8xf32>, %n: index) -> tensor<?x4x2x4xf32> {
  %0 = tensor.expand_shape %t [[0, 1], [2, 3]] output_shape [%n, 4, 2, 4] : tensor<?x8xf32> into tensor<?x4x2x4xf32>
  return %0 : tensor<?x4x2x4xf32>
}

// CHECK-LABEL: func.func @expand_unit_dims(%arg0: tensor<f32>, %arg1: tensor<5xf32>) -> (tensor<1x1xf32>, tensor<1x5x1xf32>) {
// CHECK-NEXT: %expanded = tensor.expand_shape %arg0 [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
// CHECK-NEXT: %expanded_0 = tensor.expand_shape %arg1 {{\[\[}}0, 1, 2]] output_shape [1, 5, 1] : tensor<5xf32> into tensor<1x5x1xf32>
// CHECK-NEXT: return %expanded, %expanded_0 : tensor<1x1xf32>, tensor<1x5x1xf32>
// CHECK-NEXT: }
func.func @expand_unit_dims(%s: tensor<f32>, %v: tensor<5xf32>) -> (tensor<1x1xf32>, tensor<1x5x1xf32>) {
  %0 = tensor.expand_shape %s [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  %1 = tensor.expand_shape %v [[0, 1, 2]] output_shape [1, 5, 1] : tensor<5xf32> into tensor<1x5x1xf32>
  return %0, %1 : tensor<1x1xf32>, tensor<1x5x1xf32>
}

// CHECK-LABEL: func.func @collapse(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x4x?xf32>, %arg2: tensor<1x1xf32>) -> (tensor<6x4xf32>, tensor<24xf32>, tensor<?x?xf32>, tensor<f32>) {
// CHECK-NEXT: %collapsed = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
// CHECK-NEXT: %collapsed_0 = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK-NEXT: %collapsed_1 = tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
// CHECK-NEXT: %collapsed_2 = tensor.collapse_shape %arg2 [] : tensor<1x1xf32> into tensor<f32>
// CHECK-NEXT: return %collapsed, %collapsed_0, %collapsed_1, %collapsed_2 : tensor<6x4xf32>, tensor<24xf32>, tensor<?x?xf32>, tensor<f32>
// CHECK-NEXT: }
func.func @collapse(%t: tensor<2x3x4xf32>, %d: tensor<?x4x?xf32>, %one: tensor<1x1xf32>) -> (tensor<6x4xf32>, tensor<24xf32>, tensor<?x?xf32>, tensor<f32>) {
  %0 = tensor.collapse_shape %t [[0, 1], [2]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  %1 = tensor.collapse_shape %t [[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
  %2 = tensor.collapse_shape %d [[0], [1, 2]] : tensor<?x4x?xf32> into tensor<?x?xf32>
  %3 = tensor.collapse_shape %one [] : tensor<1x1xf32> into tensor<f32>
  return %0, %1, %2, %3 : tensor<6x4xf32>, tensor<24xf32>, tensor<?x?xf32>, tensor<f32>
}

// CHECK-LABEL: func.func @flatten_then_restore(%arg0: tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf32> {
// CHECK-NEXT: %collapsed = tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : tensor<1x3x224x224xf32> into tensor<3x50176xf32>
// CHECK-NEXT: %expanded = tensor.expand_shape %collapsed {{\[\[}}0, 1], [2, 3]] output_shape [1, 3, 224, 224] : tensor<3x50176xf32> into tensor<1x3x224x224xf32>
// CHECK-NEXT: return %expanded : tensor<1x3x224x224xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @flatten_then_restore(%x: tensor<1x3x224x224xf32>) -> tensor<1x3x224x224xf32> {
  %flat = tensor.collapse_shape %x [[0, 1], [2, 3]] : tensor<1x3x224x224xf32> into tensor<3x50176xf32>
  %back = tensor.expand_shape %flat [[0, 1], [2, 3]] output_shape [1, 3, 224, 224] : tensor<3x50176xf32> into tensor<1x3x224x224xf32>
  return %back : tensor<1x3x224x224xf32>
}
