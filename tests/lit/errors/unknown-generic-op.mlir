// An unknown op in the generic form is rejected unless unregistered
// dialects are allowed.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck %s --check-prefix=ALLOW
func.func @f(%a: f32) -> f32 {
  // CHECK: unknown-generic-op.mlir:[[@LINE+2]]:8: error: unregistered operation 'foo.bar' found in dialect ('foo') that does not allow unknown operations
  // ALLOW: %0 = "foo.bar"(%arg0) : (f32) -> f32
  %0 = "foo.bar"(%a) : (f32) -> f32
  return %0 : f32
}
