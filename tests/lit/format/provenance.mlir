// The module records what made it: kiln-compile's version and source
// revision, the options that shape the output (not -o, --timing,
// --print-ir-*), the input's base name and SHA-256 (what sha256sum
// prints), and the LLVM version of each generated variant; kiln-dump
// prints them as text and JSON, with each dispatch's source nodes.
// REQUIRES: kiln-compile
// RUN: kiln-compile %s -o %t.kiln --target=llvm-cpu:x86_64 --timing \
// RUN:   --print-ir-after=canonicalize 2>/dev/null
// RUN: kiln-dump %t.kiln | FileCheck %s -DSHA=$(sha256sum %s | cut -c1-64) \
// RUN:   -DVERSION=$(kiln-compile --version | cut -d' ' -f2)
// RUN: kiln-dump --json %t.kiln | FileCheck %s --check-prefix=JSON \
// RUN:   -DSHA=$(sha256sum %s | cut -c1-64)

// CHECK:      producer: kiln-compile [[VERSION]]
// CHECK-NEXT:   source-revision: {{([0-9a-f]{12}(-dirty)?|unknown)}}
// CHECK-NEXT:   input: provenance.mlir
// CHECK-NEXT:   input-sha256: [[SHA]]
// CHECK-NEXT:   flag: --target=llvm-cpu:x86_64
// CHECK-NOT:    flag:
// The dispatch names the MLIR op it runs by place and name.
// CHECK:        dispatch at pc {{[0-9a-f]+}} -> nodes: {{.*}}provenance.mlir:28:8 (linalg.generic){{$}}
// CHECK:        llvm-cpu:x86_64, ELF, LLVM {{[0-9]+\.[0-9]+\.[0-9]+}}, {{[0-9]+}} bytes

// JSON: "provenance":{"compiler_version":"kiln-compile {{[^"]+}}","source_revision":"{{[^"]+}}","input_name":"provenance.mlir","input_sha256":"[[SHA]]","flags":["--target=llvm-cpu:x86_64"]}
// JSON: "llvm_version":"{{[0-9]+\.[0-9]+\.[0-9]+}}"

func.func @double(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
