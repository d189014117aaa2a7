// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// Max pools on the vector path with reductions (vector width 8, avx2):
// - the window's running max is arith.maximumf with fastmath<nsz> (NaN
//   still propagates; the order of -0 and +0 is not kept), a named pool
//   and a generic alike;
// - a pool of relu(x + bias[c]) (a convolution's epilogue fused in front
//   of it) takes the max of x alone inside its reduction loops and the
//   chain once per output, before the store (hoist_max_chain.c);
// - a chain that is not monotone (x * x) stays inside the loops;
// - without the -inf fill the chain stays too.

// CHECK-LABEL: func.func @pool_named()
// CHECK: scf.for
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<nsz> : vector<8xf32>
// CHECK: return

// CHECK-LABEL: func.func @pool_chain()
// CHECK-NOT: linalg.
// CHECK: scf.for {{.*}} -> (vector<8xf32>
// CHECK-NOT: arith.addf
// CHECK-NOT: arith.select
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<1x9x9x8xf32>, vector<8xf32>
// CHECK-NOT: arith.addf
// CHECK-NOT: arith.select
// CHECK: arith.maximumf %{{.*}}, %[[X]] fastmath<nsz> : vector<8xf32>
// CHECK: scf.yield
// CHECK: %[[B:.*]] = vector.load %{{.*}} : memref<8xf32>, vector<8xf32>
// CHECK: %[[S:.*]] = arith.addf %{{.*}}, %[[B]] : vector<8xf32>
// CHECK: %[[C:.*]] = arith.cmpf ogt, %[[S]]
// CHECK: %[[R:.*]] = arith.select %[[C]], %[[S]]
// CHECK: vector.store %[[R]], %{{.*}} : memref<1x4x4x8xf32>, vector<8xf32>
// CHECK-NOT: linalg.
// CHECK: return

// CHECK-LABEL: func.func @pool_square()
// CHECK: scf.for {{.*}} -> (vector<8xf32>
// CHECK: vector.load %{{.*}} : memref<1x9x9x8xf32>, vector<8xf32>
// CHECK-NEXT: arith.mulf
// CHECK: arith.maximumf
// CHECK: return

// CHECK-LABEL: func.func @pool_zero_fill()
// CHECK: scf.for {{.*}} -> (vector<8xf32>
// CHECK: vector.load %{{.*}} : memref<1x9x9x8xf32>, vector<8xf32>
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: return

#in = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh * 2 + kh, ow * 2 + kw, c)>
#win = affine_map<(n, oh, ow, c, kh, kw) -> (kh, kw)>
#ch = affine_map<(n, oh, ow, c, kh, kw) -> (c)>
#out = affine_map<(n, oh, ow, c, kh, kw) -> (n, oh, ow, c)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @pool_named() {
    %x = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x8xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x4x4x8xf32>
    %w = memref.alloca() : memref<3x3xf32>
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o : memref<1x4x4x8xf32>)
    linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : memref<1x9x9x8xf32>, memref<3x3xf32>) outs(%o : memref<1x4x4x8xf32>)
    return
  }
  func.func @pool_chain() {
    %x = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x8xf32>
    %bias = hal.interface.binding {binding = 1 : i32} : memref<8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x4x4x8xf32>
    %w = memref.alloca() : memref<3x3xf32>
    %ninf = arith.constant 0xFF800000 : f32
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%ninf : f32) outs(%o : memref<1x4x4x8xf32>)
    linalg.generic {indexing_maps = [#win, #in, #ch, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%w, %x, %bias : memref<3x3xf32>, memref<1x9x9x8xf32>, memref<8xf32>) outs(%o : memref<1x4x4x8xf32>) {
    ^bb0(%wv: f32, %xv: f32, %b: f32, %acc: f32):
      %s = arith.addf %xv, %b : f32
      %c = arith.cmpf ogt, %s, %zero : f32
      %r = arith.select %c, %s, %zero : f32
      %m = arith.maximumf %acc, %r : f32
      linalg.yield %m : f32
    }
    return
  }
  func.func @pool_square() {
    %x = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x8xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x4x4x8xf32>
    %w = memref.alloca() : memref<3x3xf32>
    %ninf = arith.constant 0xFF800000 : f32
    linalg.fill ins(%ninf : f32) outs(%o : memref<1x4x4x8xf32>)
    linalg.generic {indexing_maps = [#win, #in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%w, %x : memref<3x3xf32>, memref<1x9x9x8xf32>) outs(%o : memref<1x4x4x8xf32>) {
    ^bb0(%wv: f32, %xv: f32, %acc: f32):
      %s = arith.mulf %xv, %xv : f32
      %m = arith.maximumf %acc, %s : f32
      linalg.yield %m : f32
    }
    return
  }
  func.func @pool_zero_fill() {
    %x = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x8xf32>
    %bias = hal.interface.binding {binding = 1 : i32} : memref<8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x4x4x8xf32>
    %w = memref.alloca() : memref<3x3xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x4x4x8xf32>)
    linalg.generic {indexing_maps = [#win, #in, #ch, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%w, %x, %bias : memref<3x3xf32>, memref<1x9x9x8xf32>, memref<8xf32>) outs(%o : memref<1x4x4x8xf32>) {
    ^bb0(%wv: f32, %xv: f32, %b: f32, %acc: f32):
      %s = arith.addf %xv, %b : f32
      %m = arith.maximumf %acc, %s : f32
      linalg.yield %m : f32
    }
    return
  }
}
