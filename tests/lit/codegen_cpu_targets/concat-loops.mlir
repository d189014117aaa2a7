// A concatenation of many small pieces (DenseNet's dense blocks: one of
// 896 channels and 28 of 32 at 7x7 positions) is one copy nest per piece
// in one kernel. Each nest alone is small enough for LLVM to flatten, all
// of them together made one straight-line block that instruction
// scheduling and register allocation took seconds on (superlinear in
// it). scf-to-cf's function budget keeps each piece's loop over the rows
// (5 here) a loop; O3 then no longer multiplies the kernel: the x86_64
// baseline target (4 lanes, the most vectors per piece) went from 1338
// LLVM instructions to 14666 when it was flattened, 3362 kept (< 4x).
// 25 pieces of 5x5 positions, 24 and 40 channels (not multiples of the
// vector width): enough pieces to pass the budget, small enough to
// compile in a fraction of a second.
// RUN: kiln-compile %s --target=llvm-cpu:x86_64 --compile-to=codegen -o - | FileCheck %s
// RUN: kiln-compile %s --target=llvm-cpu:x86_64 --timing --jobs=1 -o %t.kiln 2> %t.timing
// RUN: awk '/@main_dispatch_0::/ { found = 1; if ($8 >= 4 * $7) { print "O3 multiplied the kernel: " $7 " -> " $8; exit 1 } } \
// RUN:   END { if (!found) { print "no timing line for main_dispatch_0"; exit 1 } }' %t.timing
// CHECK-LABEL: func.func @main_dispatch_0(
// CHECK-COUNT-25: cf.br ^{{.*}} {kiln.no_unroll}
// CHECK-NOT: kiln.no_unroll
// CHECK: return
func.func @main(
    %a: tensor<1x5x5x40xf32>, %p0: tensor<1x5x5x24xf32>, %p1: tensor<1x5x5x24xf32>,
    %p2: tensor<1x5x5x24xf32>, %p3: tensor<1x5x5x24xf32>, %p4: tensor<1x5x5x24xf32>,
    %p5: tensor<1x5x5x24xf32>, %p6: tensor<1x5x5x24xf32>, %p7: tensor<1x5x5x24xf32>,
    %p8: tensor<1x5x5x24xf32>, %p9: tensor<1x5x5x24xf32>, %p10: tensor<1x5x5x24xf32>,
    %p11: tensor<1x5x5x24xf32>, %p12: tensor<1x5x5x24xf32>, %p13: tensor<1x5x5x24xf32>,
    %p14: tensor<1x5x5x24xf32>, %p15: tensor<1x5x5x24xf32>, %p16: tensor<1x5x5x24xf32>,
    %p17: tensor<1x5x5x24xf32>, %p18: tensor<1x5x5x24xf32>, %p19: tensor<1x5x5x24xf32>,
    %p20: tensor<1x5x5x24xf32>, %p21: tensor<1x5x5x24xf32>, %p22: tensor<1x5x5x24xf32>,
    %p23: tensor<1x5x5x24xf32>) -> tensor<1x5x5x616xf32> {
  %c = tensor.concat dim(3)
      %a, %p0, %p1, %p2, %p3, %p4, %p5, %p6, %p7, %p8, %p9, %p10, %p11, %p12, %p13, %p14, %p15,
      %p16, %p17, %p18, %p19, %p20, %p21, %p22, %p23 :
      (tensor<1x5x5x40xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>, tensor<1x5x5x24xf32>,
       tensor<1x5x5x24xf32>)
      -> tensor<1x5x5x616xf32>
  return %c : tensor<1x5x5x616xf32>
}
