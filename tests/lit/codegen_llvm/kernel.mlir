// A kernel module: the public function without arguments becomes an entry
// point i32 (ptr, ptr) returning 0; bindings become descriptors over the
// binding pointers with an alignment assumption; workgroup ids and push
// constants are loads from the states; the export table and query follow.
// RUN: kiln-translate --kernel-module --scf-to-cf %s | FileCheck %s

// The export row: name, entry, workgroup size from kiln.launch, 3
// bindings, no push constants, bindings 0 and 1 read-only (mask 3).
// CHECK: @kiln.exports = {{.*}}[%kiln.export_info { ptr @kiln.export_name, ptr @add, [3 x i32] [i32 64, i32 1, i32 1], i32 3, i32 0, i32 3 }]
// CHECK-LABEL: define internal i32 @add(ptr {{.*}}%0, ptr {{.*}}%1)
// CHECK: %binding0 = load ptr
// CHECK-NEXT: call void @llvm.assume(i1 true) [ "align"(ptr %binding0, i64 64) ]
// CHECK-NEXT: insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } undef, ptr %binding0, 0
// CHECK: getelementptr inbounds %kiln.workgroup_state, ptr %1
// CHECK: %workgroup_id = load i32, ptr %{{[0-9]+}}, align 4, !invariant.load
// CHECK: zext i32 %workgroup_id to i64
// CHECK: icmp slt i64
// CHECK: fadd float
// CHECK: ret i32 0
// CHECK: @kiln_executable_query
func.func @add() attributes {kiln.launch = {workgroup_size = array<i64: 64, 1, 1>}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c1000 = arith.constant 1000 : index
  %a = hal.interface.binding {binding = 0 : i32} : memref<1000xf32>
  %b = hal.interface.binding {binding = 1 : i32} : memref<1000xf32>
  %o = hal.interface.binding {binding = 2 : i32} : memref<1000xf32>
  %wg = hal.interface.workgroup.id {dim = 0 : index} : index
  %base = arith.muli %wg, %c64 : index
  scf.for %i = %c0 to %c64 step %c1 {
    %g = arith.addi %base, %i : index
    %in = arith.cmpi slt, %g, %c1000 : index
    scf.if %in {
      %x = memref.load %a[%g] : memref<1000xf32>
      %y = memref.load %b[%g] : memref<1000xf32>
      %s = arith.addf %x, %y : f32
      memref.store %s, %o[%g] : memref<1000xf32>
    }
  }
  return
}
