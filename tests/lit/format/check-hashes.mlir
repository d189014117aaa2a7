// REQUIRES: kiln-compile kiln-run
// Loading checks a module's structure, not its content: a corrupted weight
// byte loads and computes with the wrong weight; --check-hashes catches it.
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --check-hashes --input=4xf32=1,2,3,4 | FileCheck %s
// RUN: python3 -c "import struct, sys; d = bytearray(open(sys.argv[1], 'rb').read()); i = d.find(struct.pack('<4f', 0.5, 2, 3, -1)); assert i > 0; d[i + 3] ^= 0x7f; open(sys.argv[2], 'wb').write(d)" %t.kiln %t.bad
// RUN: kiln-run --module=%t.bad --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=LOADS
// RUN: not kiln-run --module=%t.bad --check-hashes --input=4xf32=1,2,3,4 2>&1 | FileCheck %s --check-prefix=CAUGHT
// RUN: not kiln-dump --check-hashes %t.bad 2>&1 | FileCheck %s --check-prefix=DUMP
// CHECK: result[0]: 4xf32=0.5 4 9 -4
// LOADS: result[0]: 4xf32=2 4 9 -4
// CAUGHT: kiln-run: segments[0]: content hash {{[0-9a-f]+}} does not match
// DUMP: segments[0]: content hash
func.func @scale(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.constant dense<[0.5, 2.0, 3.0, -1.0]> : tensor<4xf32>
  %r = arith.mulf %x, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}
