// memref.prefetch: the locality hint is 0..3, the cache 'data' or 'instr'.
// RUN: not kiln-opt --split-input-file %s 2>&1 | FileCheck %s
func.func @f(%m: memref<4xf32>, %i: index) {
  // CHECK: bad-prefetch.mlir:[[@LINE+1]]:3: error: 'memref.prefetch' op localityHint must be an integer in [0, 3]
  memref.prefetch %m[%i], read, locality<4>, data : memref<4xf32>
  return
}
// -----
func.func @g(%m: memref<4xf32>, %i: index) {
  // CHECK: bad-prefetch.mlir:[[@LINE+1]]:{{[0-9]+}}: error: expected 'read'/'write' and 'data'/'instr' in memref.prefetch
  memref.prefetch %m[%i], read, locality<1>, both : memref<4xf32>
  return
}
// -----
func.func @h(%m: memref<4x4xf32>, %i: index) {
  // CHECK: bad-prefetch.mlir:[[@LINE+1]]:3: error: 'memref.prefetch' op incorrect number of indices: 1 for a rank-2 memref
  memref.prefetch %m[%i], read, locality<1>, data : memref<4x4xf32>
  return
}
