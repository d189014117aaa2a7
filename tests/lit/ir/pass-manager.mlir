// The pass manager's command-line surface: pipelines (flat and nested
// MLIR-style), --PASS shortcuts, --print-ir-after-all, --print-ir-after,
// --timing, and errors for unknown passes and malformed pipelines.
// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(cse),dce)' --print-ir-after-all 2>&1 >/dev/null | FileCheck %s --check-prefix=ALL
// ALL: // -----// IR Dump After cse //----- //
// ALL-NEXT: module {
// ALL: %0 = arith.addf %arg0, %arg0 : f32
// ALL: // -----// IR Dump After dce //----- //
// ALL-NEXT: module {
// RUN: kiln-opt %s --cse --dce --print-ir-after=dce 2>&1 >/dev/null | FileCheck %s --check-prefix=AFTER
// AFTER-NOT: After cse
// AFTER: // -----// IR Dump After dce //----- //
// AFTER-NEXT: module {
// RUN: kiln-opt %s --pass-pipeline=cse,dce --timing 2>&1 >/dev/null | FileCheck %s --check-prefix=TIME
// TIME: ... Execution time report ...
// TIME: Total Execution Time: {{[0-9.]+}} seconds
// TIME: ----Wall Time----  ----Name----
// TIME-NEXT: {{ +[0-9.]+ \( *[0-9.]+%\)  cse$}}
// TIME-NEXT: {{ +[0-9.]+ \( *[0-9.]+%\)  dce$}}
// TIME-NEXT: {{ +[0-9.]+ \(100.0%\)  Total$}}
// RUN: not kiln-opt %s --pass-pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: kiln-opt: unknown pass or pipeline 'no-such-pass'; known: {{.*}}cse
// RUN: not kiln-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=PAREN
// PAREN: kiln-opt: expected ')' in pass pipeline after 'builtin.module('
// RUN: not kiln-opt %s --no-such-flag 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: kiln-opt: unknown option '--no-such-flag'
// RUN: kiln-opt %s --pass-pipeline= | FileCheck %s --check-prefix=EMPTY
// EMPTY: %0 = arith.addf %arg0, %arg0 : f32
// RUN: kiln-opt %s --cse --mlir-print-ir-after=cse --mlir-timing 2>&1 >/dev/null | FileCheck %s --check-prefix=MLIRSPELL
// MLIRSPELL: // -----// IR Dump After cse //----- //
// MLIRSPELL: Total Execution Time:
func.func @f(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  %1 = arith.addf %a, %a : f32
  return %0 : f32
}
