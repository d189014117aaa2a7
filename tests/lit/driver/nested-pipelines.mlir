// Codegen passes run on the inner module of each hal.executable.variant; a
// target anchor in the pipeline text picks the variants of one target.
// RUN: kiln-opt %s --pass-pipeline='llvm-cpu(select-launch-config)' | FileCheck %s --check-prefix=CPU
// RUN: kiln-opt %s --pass-pipeline='builtin.module(cuda(select-gpu-launch-config))' | FileCheck %s --check-prefix=GPU
// RUN: kiln-opt %s --select-launch-config | FileCheck %s --check-prefix=ALL
// RUN: not kiln-opt %s --pass-pipeline='cuda(cse)' 2>&1 | FileCheck %s --check-prefix=MODPASS
// RUN: not kiln-opt %s --pass-pipeline='cuda(llvm-cpu(scf-to-cf))' 2>&1 | FileCheck %s --check-prefix=NESTED
// RUN: not kiln-opt %s --pass-pipeline='cuda(translate-cuda)' 2>&1 | FileCheck %s --check-prefix=WHERE

// CPU: func.func @k() attributes {kiln.launch = {pipeline = "cpu-elementwise"
// CPU: target = "llvm-cpu:x86_64"
// CPU-NOT: kiln.launch
// CPU: target = "cuda:sm_80"

// GPU-NOT: kiln.launch
// GPU: target = "llvm-cpu:x86_64"
// GPU: func.func @k() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>
// GPU: target = "cuda:sm_80"

// ALL: func.func @k() attributes {kiln.launch = {pipeline = "cpu-elementwise"
// ALL: target = "llvm-cpu:x86_64"
// ALL: func.func @k() attributes {kiln.launch = {pipeline = "cpu-elementwise"
// ALL: target = "cuda:sm_80"

// MODPASS: kiln-opt: pass 'cse' runs on the whole module, not inside target 'cuda'
// NESTED: kiln-opt: target 'llvm-cpu' nested inside target 'cuda' in pass pipeline
// WHERE: kiln-opt: pass 'translate-cuda' failed: executable @e variant @cuda_sm_80: {{.*}}'linalg.generic' op cannot be translated to LLVM IR
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "k", workload = array<i64: 100>} : () -> ()
    module {
      func.func @k() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<100xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<100xf32>
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : memref<100xf32>) outs(%1 : memref<100xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.addf %x, %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }) {sym_name = "llvm_cpu_x86_64", target = "llvm-cpu:x86_64"} : () -> ()
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "k", workload = array<i64: 100>} : () -> ()
    module {
      func.func @k() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<100xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<100xf32>
        linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%0 : memref<100xf32>) outs(%1 : memref<100xf32>) {
        ^bb0(%x: f32, %o: f32):
          %y = arith.addf %x, %x : f32
          linalg.yield %y : f32
        }
        return
      }
    }
  }) {sym_name = "cuda_sm_80", target = "cuda:sm_80"} : () -> ()
}) {sym_name = "e", sym_visibility = "private"} : () -> ()
