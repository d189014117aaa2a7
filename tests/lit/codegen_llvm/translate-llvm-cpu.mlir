// translate-llvm-cpu, on a variant the llvm-cpu passes before it lowered,
// queues its LLVM module in the compile session; compile-llvm-cpu compiles
// the queue and stores the shared objects there (kiln-opt lists them after
// the module). The IR is left as it was.
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --translate-llvm-cpu --compile-llvm-cpu | FileCheck %s
// translate-llvm-cpu alone only queues: no payload yet.
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --translate-llvm-cpu | FileCheck %s --check-prefix=QUEUED
// compile-llvm-cpu alone, with nothing queued, stores nothing and leaves
// the IR as it was.
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --compile-llvm-cpu | FileCheck %s --check-prefix=QUEUED
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --translate-llvm-cpu --mlir-print-op-generic > %t.after
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --mlir-print-op-generic > %t.before
// RUN: grep -v '^// payload' %t.after | diff %t.before -

// CHECK: "hal.executable.export"() {{{.*}}sym_name = "k"
// CHECK-NOT: linalg.
// CHECK: target = "llvm-cpu:x86_64+avx2"
// CHECK: // payload @e variant @llvm_cpu_x86_64_avx2: ELF x86_64, {{[1-9][0-9]*}} bytes

// QUEUED: target = "llvm-cpu:x86_64+avx2"
// QUEUED-NOT: // payload
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "k", workload = array<i64: 100>} : () -> ()
    module {
      func.func @k() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<100xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<100xf32>
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : memref<100xf32>) outs(%1 : memref<100xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = math.exp %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }) {sym_name = "llvm_cpu_x86_64_avx2", target = "llvm-cpu:x86_64+avx2"} : () -> ()
}) {sym_name = "e", sym_visibility = "private"} : () -> ()
