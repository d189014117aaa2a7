// RUN: kiln-opt %s --convert-to-vm | kiln-opt --allocate-registers | FileCheck %s --check-prefix=REGS
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s --check-prefix=CODE

// A host loop whose steps exchange carried values (ping-pong buffers
// rotated through three registers, two counters swapped, one counter
// copied): the yield's moves form cycles, which the emitter breaks through
// the loop's scratch registers (`swap_regs`: a two-slot scalar and a ref)
// after the moves that conflict with nothing; the ref scratch is cleared
// after the moves, so no buffer keeps an extra reference.

func.func @main(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %b1 = "hal.buffer.allocate"() {size = 64 : i64} : () -> !hal.buffer
  %b2 = "hal.buffer.allocate"() {size = 64 : i64} : () -> !hal.buffer
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  // The loop's own instructions (the compare at its head, the step at its
  // latch) have the scf.for's location, so an error there (the call's
  // step budget spent by the backward br) names the loop.
  // CODE: pc [[HEAD:[0-9a-f]{4}]] -> {{.*}}host-loop-swap.mlir:[[@LINE+2]]:10
  // CODE: pc [[LATCH:[0-9a-f]{4}]] -> {{.*}}host-loop-swap.mlir:[[@LINE+1]]:10
  %r:6 = scf.for %i = %c0 to %trip step %c1 iter_args(%a = %bx, %b = %b1, %c = %b2, %p = %c0, %q = %c1, %s = %c2)
      -> (!hal.buffer, !hal.buffer, !hal.buffer, index, index, index) {
    scf.yield %b, %c, %a, %q, %p, %p : !hal.buffer, !hal.buffer, !hal.buffer, index, index, index
  }
  %v = "hal.buffer_view.create"(%r#2) {offset = 0 : i64, element_type = f32, shape = array<i64: 16>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// REGS: "vm.yield"
// REGS-NEXT: }) {body_regs = array<i32: {{[0-9]+}}, [[A:[0-9]+]], [[B:[0-9]+]], [[C:[0-9]+]], [[P:[0-9]+]], [[Q:[0-9]+]], [[S:[0-9]+]]>, cmp_reg = {{[0-9]+}} : i32, regs = array<i32: [[A]], [[B]], [[C]], [[P]], [[Q]], [[S]]>, swap_regs = array<i32: {{[0-9]+}}, {{[0-9]+}}>}

// The yield's moves: s = p first (nothing reads s), then the ref cycle
// a <- b <- c <- a through the ref scratch, then the scalar cycle p <-> q
// through the scalar scratch, then the ref scratch released.
// CODE: disassembly:
// CODE: [[HEAD]]  le.s.i64
// CODE-NEXT: br_if {{.*}} @[[EXIT:[0-9a-f]{4}]]
// CODE-NEXT: mov.i64 [[S:%I[0-9]+]], [[P:%I[0-9]+]]
// CODE-NEXT: mov.ref [[T:%r[0-9]+]], [[A:%r[0-9]+]]
// CODE-NEXT: mov.ref [[A]], [[B:%r[0-9]+]]
// CODE-NEXT: mov.ref [[B]], [[C:%r[0-9]+]]
// CODE-NEXT: mov.ref [[C]], [[T]]
// CODE-NEXT: mov.i64 [[U:%I[0-9]+]], [[P]]
// CODE-NEXT: mov.i64 [[P]], [[Q:%I[0-9]+]]
// CODE-NEXT: mov.i64 [[Q]], [[U]]
// CODE-NEXT: clear.ref [[T]]
// CODE-NEXT: [[LATCH]]  add.i64
// CODE-NEXT: br
// CODE-NEXT: [[EXIT]]  clear.ref
// CODE: call.import {{.*}}hal.buffer_view.create>, ([[C]],
