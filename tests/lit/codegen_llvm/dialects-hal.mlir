// hal.interface.* print as "{attr = N : i32} : type"; printing is a
// fixpoint (mlir-opt does not know Kiln's hal dialect).
// RUN: kiln-translate --print-ir %s | FileCheck %s
// RUN: kiln-translate --print-ir %s > %t.1 && kiln-translate --print-ir %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @kernel()
// CHECK-NEXT: %0 = hal.interface.binding {binding = 0 : i32} : memref<4xf32>
// CHECK-NEXT: %1 = hal.interface.constant {index = 0 : index} : i32
// CHECK-NEXT: %2 = hal.interface.workgroup.id {dim = 0 : index} : index
// CHECK-NEXT: %3 = hal.interface.workgroup.count {dim = 1 : index} : index
// CHECK-NEXT: %4 = hal.interface.workgroup.size {dim = 2 : index} : index
func.func @kernel() {
  %0 = hal.interface.binding {binding = 0 : i32} : memref<4xf32>
  %1 = hal.interface.constant {index = 0 : index} : i32
  %2 = hal.interface.workgroup.id {dim = 0 : index} : index
  %3 = hal.interface.workgroup.count {dim = 1 : index} : index
  %4 = hal.interface.workgroup.size {dim = 2 : index} : index
  return
}
