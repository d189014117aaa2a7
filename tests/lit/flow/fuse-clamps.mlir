// RUN: kiln-opt %s --fuse-elementwise | FileCheck %s
// fuse-elementwise drops a clamp that a later clamp of the same direction
// makes redundant through monotone ops (fl_clamps.c): a quantized
// network's requantization (clamp to [L1, U1], round, times the ratio of
// the scales) followed by a Clip's requantization clamp to [L2, U2].
#id = affine_map<(d0) -> (d0)>

// phi(-127) = -127 * 1.9967 < -0.0 and phi(128) = 255.58 > 255: both of
// the first clamp's bounds go; the second clamp stays.
// CHECK-LABEL: func.func @requant_relu6
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: arith.addf
// CHECK: arith.subf
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK-NOT: arith.maximumf
// CHECK-NOT: arith.minimumf
// CHECK: linalg.yield
func.func @requant_relu6(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %s = arith.constant 0.25 : f32
    %lo1 = arith.constant -127.0 : f32
    %hi1 = arith.constant 128.0 : f32
    %magic = arith.constant 12582912.0 : f32
    %m = arith.constant 1.99671304 : f32
    %lo2 = arith.constant -0.0 : f32
    %hi2 = arith.constant 255.0 : f32
    %0 = arith.mulf %a, %s : f32
    %1 = arith.maximumf %0, %lo1 : f32
    %2 = arith.minimumf %1, %hi1 : f32
    %3 = arith.addf %2, %magic : f32
    %4 = arith.subf %3, %magic : f32
    %5 = arith.mulf %4, %m : f32
    %6 = arith.maximumf %5, %lo2 : f32
    %7 = arith.minimumf %6, %hi2 : f32
    linalg.yield %7 : f32
  } -> tensor<8xf32>
  return %g : tensor<8xf32>
}

// Kept: the upper bound 127 of the first clamp (phi(127) = 253.6 < 255:
// it still clamps; its lower bound goes), a bound reached only through a
// negative multiplier (the order flips), and a clamped value that another
// op reads too.
// CHECK-LABEL: func.func @kept
// CHECK: %[[U:.*]] = arith.minimumf %in, %{{.*}} : f32
// CHECK-NEXT: arith.mulf %[[U]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: arith.minimumf
// CHECK-NEXT: %[[N:.*]] = arith.maximumf %in,
// CHECK-NEXT: arith.mulf %[[N]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: %[[S:.*]] = arith.maximumf %in,
// CHECK-NEXT: arith.mulf %[[S]]
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: arith.addf %{{.*}}, %[[S]]
func.func @kept(%x: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8xf32>
  %g:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e, %e, %e : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32):
    %lo1 = arith.constant -127.0 : f32
    %hi1 = arith.constant 127.0 : f32
    %m = arith.constant 1.99671304 : f32
    %neg = arith.constant -2.0 : f32
    %lo2 = arith.constant -0.0 : f32
    %hi2 = arith.constant 255.0 : f32
    %0 = arith.maximumf %a, %lo1 : f32
    %1 = arith.minimumf %0, %hi1 : f32
    %2 = arith.mulf %1, %m : f32
    %3 = arith.maximumf %2, %lo2 : f32
    %4 = arith.minimumf %3, %hi2 : f32
    %5 = arith.maximumf %a, %lo1 : f32
    %6 = arith.mulf %5, %neg : f32
    %7 = arith.maximumf %6, %lo2 : f32
    %8 = arith.maximumf %a, %lo1 : f32
    %9 = arith.mulf %8, %m : f32
    %10 = arith.maximumf %9, %lo2 : f32
    %11 = arith.addf %10, %8 : f32
    linalg.yield %4, %7, %11 : f32, f32, f32
  } -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
  return %g#0, %g#1, %g#2 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}
