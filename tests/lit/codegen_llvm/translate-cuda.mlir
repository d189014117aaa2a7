// The cuda target's last passes alone, on a variant the GPU passes before
// them lowered. translate-cuda records each export's launch (block size,
// static workgroup memory) and puts the PTX into the compile session
// (kiln-opt lists it after the module). add-simt-cpu-variant does nothing
// unless KILN_GPU_SIMT_CPU=1; then it adds a host copy of the variant,
// queued as llvm-cpu for compile-llvm-cpu.
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --translate-cuda | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=remove-single-iteration-loops -o /dev/null 2>&1 \
// RUN:   | kiln-opt --add-simt-cpu-variant | FileCheck %s --check-prefix=OFF
// RUN: kiln-opt %s --pass-pipeline=codegen --print-ir-after=remove-single-iteration-loops -o /dev/null 2>&1 \
// RUN:   | KILN_GPU_SIMT_CPU=1 kiln-opt --add-simt-cpu-variant --compile-llvm-cpu | FileCheck %s --check-prefix=SIMT

// CHECK: "hal.executable.export"() {{{.*}}kiln.block_size = array<i64: 64, 1, 1>, kiln.static_shared_memory_bytes = 0 : i64{{.*}}sym_name = "k"
// CHECK: hal.interface.thread.id
// CHECK: target = "cuda:sm_80"
// CHECK: // payload @e variant @cuda_sm_80: PTX nvptx64, {{[1-9][0-9]*}} bytes

// OFF-NOT: simt_cpu
// OFF-NOT: // payload

// SIMT: sym_name = "cuda_sm_80", target = "cuda:sm_80"
// SIMT: func.func @k()
// SIMT-NOT: hal.interface.thread.id
// SIMT: sym_name = "simt_cpu_cuda_sm_80", target = "llvm-cpu"
// SIMT: // payload @e variant @simt_cpu_cuda_sm_80: ELF {{[a-z0-9_]+}}, {{[1-9][0-9]*}} bytes
// SIMT-NOT: // payload
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
  }) {sym_name = "cuda_sm_80", target = "cuda:sm_80"} : () -> ()
}) {sym_name = "e", sym_visibility = "private"} : () -> ()
