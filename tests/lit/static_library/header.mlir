// The header of --output-format=static-library: per exported function the
// array form, the scratch size, MLIR's _mlir_ciface_ form with the seed's
// memref descriptor layout, the signature as a comment and a string; the
// error codes, NAME_error_message and NAME_set_parallel. A symbol outside [A-Za-z0-9_] is
// sanitized to '_'.
// RUN: rm -rf %t && mkdir -p %t && kiln-compile %s --output-format=static-library -o %t/net
// RUN: FileCheck %s --input-file=%t/net.h
// Deterministic, whatever the thread count:
// RUN: mkdir -p %t/again && kiln-compile %s --output-format=static-library --jobs=1 -o %t/again/net
// RUN: cmp %t/net.a %t/again/net.a && cmp %t/net.h %t/again/net.h
// RUN: nm -g %t/net.a | FileCheck %s --check-prefix=SYMS
// RUN: kiln-compile %s --output-format=static-library --weights=external -o %t/ext
// RUN: FileCheck %s --check-prefix=EXT --input-file=%t/ext.h
// RUN: test -f %t/ext.weights && test ! -e %t/net.weights

// CHECK: #ifndef NET_H
// CHECK: #include <stdint.h>
// CHECK: #define NET_ERROR_OK 0
// CHECK: #define NET_ERROR_NULL_POINTER 1
// CHECK: #define NET_ERROR_SCRATCH_ALIGNMENT 2
// CHECK: #define NET_ERROR_KERNEL_FAILED 3
// CHECK: #define NET_ERROR_DESCRIPTOR_SIZES 4
// CHECK: #define NET_ERROR_DESCRIPTOR_STRIDES 5
// CHECK: const char *net_error_message(int code);
// CHECK: void net_set_parallel(void (*parallel_for)(void *ctx, uint32_t count,
// CHECK-NEXT:                                  void (*fn)(void *, uint32_t), void *fn_ctx),
// CHECK-NEXT:                     void *ctx);
// CHECK-DAG: typedef struct { void *allocated; void *aligned; int64_t offset; int64_t sizes[2]; int64_t strides[2]; } net_memref_2d;
// CHECK-DAG: typedef struct { void *allocated; void *aligned; int64_t offset; int64_t sizes[1]; int64_t strides[1]; } net_memref_1d;
// CHECK-DAG: typedef struct { void *allocated; void *aligned; int64_t offset; } net_memref_0d;

// CHECK-LABEL: /* @predict (tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<f32>)
// CHECK-NEXT:  *   argument 0: tensor<2x3xf32>, 24 bytes
// CHECK-NEXT:  *   argument 1: tensor<3xf32>, 12 bytes
// CHECK-NEXT:  *   result 0: tensor<2x3xf32>, 24 bytes
// CHECK-NEXT:  *   result 1: tensor<f32>, 4 bytes
// CHECK-NEXT:  * scratch: [[SCRATCH:[0-9]+]] bytes */
// CHECK-NEXT: #define NET_PREDICT_SIGNATURE "(tensor<2x3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<f32>)"
// CHECK-NEXT: #define NET_PREDICT_SCRATCH_SIZE [[SCRATCH]]u
// CHECK-NEXT: int net_predict(void *const *args, void *const *results, void *scratch);
// CHECK-NEXT: size_t net_predict_scratch_size(void);
// CHECK:      int _mlir_ciface_net_predict(const net_memref_2d *arg0, const net_memref_1d *arg1, net_memref_2d *result0, net_memref_0d *result1, void *scratch);

// CHECK-LABEL: /* @score.v2 (tensor<4xi32>) -> tensor<4xi32>
// CHECK: #define NET_SCORE_V2_SIGNATURE "(tensor<4xi32>) -> tensor<4xi32>"
// CHECK: int net_score_v2(void *const *args, void *const *results, void *scratch);
// CHECK: size_t net_score_v2_scratch_size(void);
// CHECK: int _mlir_ciface_net_score_v2(const net_memref_1d *arg0, net_memref_1d *result0, void *scratch);
// CHECK: #endif

// EXT: #define EXT_ERROR_WEIGHTS 6
// EXT: #define EXT_WEIGHTS_SIZE 64u
// EXT-NEXT: int ext_set_weights(const void *data, size_t size);

// SYMS-DAG: T _mlir_ciface_net_predict
// SYMS-DAG: T _mlir_ciface_net_score_v2
// SYMS-DAG: T net_error_message
// SYMS-DAG: T net_predict
// SYMS-DAG: T net_predict_scratch_size
// SYMS-DAG: T net_score_v2
// SYMS-DAG: T net_score_v2_scratch_size
// SYMS-DAG: T net_set_parallel

func.func @predict(%x: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<f32>) {
  %e = tensor.empty() : tensor<2x3xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %r = linalg.reduce ins(%y : tensor<2x3xf32>) outs(%z : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  return %y, %r : tensor<2x3xf32>, tensor<f32>
}

func.func @"score.v2"(%a: tensor<4xi32>) -> tensor<4xi32> {
  %s = arith.addi %a, %a : tensor<4xi32>
  return %s : tensor<4xi32>
}
