#!/usr/bin/env python3
"""Writes a hal-level module: one executable whose variant for TARGET has N
exports k0..k{N-1} (kernel kI fills its binding with I), and a host function
@main that dispatches the last one. With --executables, N executables e0..
e{N-1} of one export each (kI in eI; no host function): the back end's
queue of variants. usage: gen_exports.py N TARGET [--executables]"""
import sys

n, target = int(sys.argv[1]), sys.argv[2]
if sys.argv[3:] == ["--executables"]:
    for i in range(n):
        print('"hal.executable"() ({\n  "hal.executable.variant"() ({\n'
              '    "hal.executable.export"() {binding_count = 1 : i32, ordinal = 0 : i32, '
              'push_constant_count = 0 : i32, readonly_mask = 0 : i32, sym_name = "k%d", '
              'workload = array<i64: 4>} : () -> ()\n'
              '    module {\n      func.func @k%d() {\n'
              '        %%0 = hal.interface.binding {binding = 0 : i32} : memref<4xf32>\n'
              '        %%c = arith.constant %d.0 : f32\n'
              '        linalg.fill ins(%%c : f32) outs(%%0 : memref<4xf32>)\n'
              '        return\n      }\n    }\n'
              '  }) {sym_name = "v", target = "%s"} : () -> ()\n'
              '}) {sym_name = "e%d", sym_visibility = "private"} : () -> ()' % (i, i, i, target, i))
    sys.exit(0)
print('"hal.executable"() ({\n  "hal.executable.variant"() ({')
for i in range(n):
    print('    "hal.executable.export"() {binding_count = 1 : i32, ordinal = %d : i32, '
          'push_constant_count = 0 : i32, readonly_mask = 0 : i32, sym_name = "k%d", '
          'workload = array<i64: 4>} : () -> ()' % (i, i))
print('    module {')
for i in range(n):
    print('      func.func @k%d() {\n'
          '        %%0 = hal.interface.binding {binding = 0 : i32} : memref<4xf32>\n'
          '        %%c = arith.constant %d.0 : f32\n'
          '        linalg.fill ins(%%c : f32) outs(%%0 : memref<4xf32>)\n'
          '        return\n      }' % (i, i))
print('    }\n  }) {sym_name = "v", target = "%s"} : () -> ()\n'
      '}) {sym_name = "e", sym_visibility = "private"} : () -> ()' % target)
print('''func.func @main() -> !hal.buffer_view {
  %%o = "hal.buffer.allocate"() {size = 16 : i64} : () -> !hal.buffer
  %%cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%%cb, %%o) {executable = @e, ordinal = %d : i32,
      workgroup_count = array<i64: 1, 1, 1>, offsets = array<i64: 0>, lengths = array<i64: 16>,
      constants = array<i32>} : (!hal.command_buffer, !hal.buffer) -> ()
  "hal.command_buffer.execute"(%%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %%v = "hal.buffer_view.create"(%%o) {offset = 0 : i64, element_type = f32,
      shape = array<i64: 4>} : (!hal.buffer) -> !hal.buffer_view
  return %%v : !hal.buffer_view
}''' % (n - 1))
