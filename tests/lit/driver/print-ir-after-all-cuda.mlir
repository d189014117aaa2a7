// Every pass of a cuda compile shows in --print-ir-after-all and --timing,
// the GPU passes named with their target; llvm-cpu kernel passes that
// found no llvm-cpu variant are neither printed nor timed (the module
// passes link-executables and compile-llvm-cpu run, with nothing to do).
// RUN: kiln-compile %s --target=cuda:sm_80 -o %t.kiln --print-ir-after-all 2>&1 >/dev/null | FileCheck %s
// RUN: kiln-compile %s --target=cuda:sm_80 -o %t.kiln --timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME
// RUN: kiln-compile %s --target=cuda:sm_80 --target=llvm-cpu -o %t.kiln --print-ir-after=scf-to-cf 2>&1 >/dev/null | FileCheck %s --check-prefix=BOTH

// CHECK: IR Dump After schedule-commands //
// CHECK-NOT: (llvm-cpu)
// CHECK: IR Dump After select-gpu-launch-config (cuda) //
// CHECK: kiln.launch = {block_size = array<i64: 64, 1, 1>
// CHECK: IR Dump After tile-and-distribute (cuda) //
// CHECK: IR Dump After gpu-tile-matmul-shared (cuda) //
// CHECK: IR Dump After distribute-to-threads (cuda) //
// CHECK: hal.interface.thread.id
// CHECK: IR Dump After lower-to-loops (cuda) //
// CHECK: IR Dump After remove-single-iteration-loops (cuda) //
// CHECK: IR Dump After add-simt-cpu-variant (cuda) //
// CHECK: IR Dump After approximate-math (cuda) //
// CHECK: IR Dump After scf-to-cf (cuda) //
// CHECK: IR Dump After translate-cuda (cuda) //
// CHECK: kiln.block_size = array<i64: 64, 1, 1>
// CHECK: IR Dump After convert-to-vm //

// TIME: ----Wall Time----  ----Name----
// TIME-NOT: (llvm-cpu)
// TIME: link-executables
// TIME-NEXT: select-gpu-launch-config (cuda)
// TIME-NEXT: tile-and-distribute (cuda)
// TIME-NEXT: gpu-tile-matmul-shared (cuda)
// TIME-NEXT: distribute-to-threads (cuda)
// TIME-NEXT: lower-to-loops (cuda)
// TIME-NEXT: remove-single-iteration-loops (cuda)
// TIME-NEXT: add-simt-cpu-variant (cuda)
// TIME-NEXT: approximate-math (cuda)
// TIME-NEXT: scf-to-cf (cuda)
// TIME-NEXT: translate-cuda (cuda)
// TIME-NEXT: compile-llvm-cpu
// TIME-NEXT: convert-to-vm

// BOTH: IR Dump After scf-to-cf (llvm-cpu) //
// BOTH: IR Dump After scf-to-cf (cuda) //
// BOTH-NOT: IR Dump After
func.func @scale(%a: tensor<100xf32>) -> tensor<100xf32> {
  %e = tensor.empty() : tensor<100xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%a : tensor<100xf32>) outs(%e : tensor<100xf32>) {
  ^bb0(%x: f32, %o: f32):
    %y = math.exp %x : f32
    linalg.yield %y : f32
  } -> tensor<100xf32>
  return %r : tensor<100xf32>
}
