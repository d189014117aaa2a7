/* Implements rt_testkit.h with the format builder and the assembler. */
#include "rt_testkit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/module_builder.h"
#include "kiln/vm_bytecode.h"

const uint8_t *rt_kernel(size_t *size) {
  static uint8_t *data;
  static size_t n;
  if (!data && !kiln_handmade_read_file(KILN_HANDMADE_KERNEL, &data, &n)) {
    fprintf(stderr, "cannot read %s\n", KILN_HANDMADE_KERNEL);
    abort();
  }
  *size = n;
  return data;
}

uint8_t *rt_handmade(const kiln_handmade_options_t *o, size_t *size) {
  kiln_handmade_options_t d;
  if (!o) {
    kiln_handmade_default_options(&d);
    o = &d;
  }
  size_t ksize;
  const uint8_t *k = rt_kernel(&ksize);
  uint8_t *out = NULL;
  char err[256];
  if (!kiln_handmade_build(o, k, ksize, &out, size, err, sizeof err)) {
    fprintf(stderr, "handmade build failed: %s\n", err);
    return NULL;
  }
  return out;
}

#define LIST(...) \
  (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}
#define NONE 0, (const int *)NULL

uint8_t *rt_scalar_module(rt_body_fn body, void *user, rt_body_fn helper,
                          const char *helper_signature, size_t *size) {
  kiln_vm_asm_t a, h;
  kiln_vm_asm_init(&a);
  kiln_vm_asm_init(&h);
  body(&a, user);
  /* Epilogue: view = create(allocate(0), 0, i8, [0, s0:1]); ret view. */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 40, (int64_t)0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(40), LIST(0));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 42, 2); /* i8 */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, LIST(0, 40, 42, 2, 40, 0),
                   LIST(1));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(1));
  if (helper) helper(&h, user);
  uint8_t *out = NULL;
  if (kiln_vm_asm_finish(&a) || (helper && kiln_vm_asm_finish(&h))) goto done;
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_module_builder_set_name(b, "scalar");
  kiln_module_builder_set_bytecode_version(b, KILN_VM_BYTECODE_VERSION);
  kiln_module_builder_add_import(b, "hal.buffer.allocate", "I_r");
  kiln_module_builder_add_import(b, "hal.buffer_view.create", "rIiCID_r");
  const int64_t dims[2] = {0, -1};
  const kiln_module_tensor_type_t t = {kiln_fb_ElementType_I8, 2, dims, false, false};
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = "f";
  f.exported = true;
  f.output_count = 1;
  f.outputs = &t;
  f.bytecode = a.code;
  f.bytecode_size = (uint32_t)a.size;
  f.i32_register_count = 44;
  f.ref_register_count = 4;
  f.vm_signature = "_r";
  kiln_module_builder_add_function(b, &f);
  if (helper) {
    memset(&f, 0, sizeof f);
    f.name = "g";
    f.bytecode = h.code;
    f.bytecode_size = (uint32_t)h.size;
    f.i32_register_count = 40;
    f.ref_register_count = 2;
    f.vm_signature = helper_signature;
    kiln_module_builder_add_function(b, &f);
  }
  kiln_format_error_t err;
  if (!kiln_module_builder_finish(b, &out, size, &err)) {
    fprintf(stderr, "scalar module: %s\n", err.message);
    out = NULL;
  }
  kiln_module_builder_destroy(b);
done:
  kiln_vm_asm_free(&a);
  kiln_vm_asm_free(&h);
  return out;
}

kiln_status_t rt_run_scalar(const uint8_t *module, size_t size, int64_t *out) {
  kiln_instance_t *inst = NULL;
  kiln_device_t *dev = NULL;
  kiln_module_t *m = NULL;
  kiln_buffer_view_t *view = NULL;
  kiln_function_t fn;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  /* Limits, so that runaway programs end with an error. */
  const kiln_device_options_t opts = {.max_buffer_bytes = 1u << 28,
                                      .max_steps = 1000000};
  if (!s) s = kiln_device_create(inst, "local-sync", &opts, &dev);
  if (!s) s = kiln_module_load_memory(inst, module, size, &m);
  if (!s) s = kiln_module_lookup_function(m, "f", &fn);
  if (!s) s = kiln_function_call(fn, dev, NULL, 0, &view, 1);
  if (!s) *out = kiln_buffer_view_dim(view, 1);
  kiln_buffer_view_release(view);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  return s;
}

/* Finishes A and wraps it as the one exported function "f" of a module
 * NAME importing IMPORTS (signatures from the HAL table); frees A. */
static uint8_t *one_function_module(kiln_vm_asm_t *a, const char *name,
                                    const char *const *imports, int import_count,
                                    const kiln_module_tensor_type_t *inputs,
                                    uint32_t input_count,
                                    const kiln_module_tensor_type_t *outputs,
                                    uint32_t output_count, uint32_t i32_registers,
                                    uint32_t ref_registers, size_t *size) {
  uint8_t *out = NULL;
  if (kiln_vm_asm_finish(a)) goto done;
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_module_builder_set_name(b, name);
  kiln_module_builder_set_bytecode_version(b, KILN_VM_BYTECODE_VERSION);
  for (int i = 0; i < import_count; ++i)
    kiln_module_builder_add_import(b, imports[i], kiln_hal_import_signature(imports[i]));
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = "f";
  f.exported = true;
  f.input_count = input_count;
  f.inputs = inputs;
  f.output_count = output_count;
  f.outputs = outputs;
  f.bytecode = a->code;
  f.bytecode_size = (uint32_t)a->size;
  f.i32_register_count = i32_registers;
  f.ref_register_count = ref_registers;
  kiln_module_builder_add_function(b, &f);
  kiln_format_error_t err;
  if (!kiln_module_builder_finish(b, &out, size, &err)) out = NULL;
  kiln_module_builder_destroy(b);
done:
  kiln_vm_asm_free(a);
  return out;
}

uint8_t *rt_transfer_module(int64_t fill_length, int64_t copy_length,
                            size_t *size) {
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  /* imports: 0 allocate, 1 create cb, 2 fill, 3 buffer, 4 byte_offset,
   * 5 copy, 6 execute, 7 wait, 8 view create */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)32);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(0), LIST(1));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, NONE, LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 2, (int64_t)0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 4, fill_length);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 6, 0x3f800000); /* 1.0f */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 2, LIST(2, 1, 2, 4, 6), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 3, LIST(0), LIST(3));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 4, LIST(0), LIST(8));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 14, (int64_t)16);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 16, copy_length);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 5, LIST(2, 3, 8, 1, 14, 16), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 6, LIST(2), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 7, NONE, NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 10, 12); /* f32 */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 12, (int64_t)8);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 8, LIST(1, 2, 10, 1, 12), LIST(4));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(4));
  static const char *const imports[] = {
      "hal.buffer.allocate",    "hal.command_buffer.create",   "hal.command_buffer.fill",
      "hal.buffer_view.buffer", "hal.buffer_view.byte_offset", "hal.command_buffer.copy",
      "hal.command_buffer.execute", "hal.device.wait", "hal.buffer_view.create"};
  const int64_t d4[1] = {4}, d8[1] = {8};
  const kiln_module_tensor_type_t in = {kiln_fb_ElementType_F32, 1, d4, false, false};
  const kiln_module_tensor_type_t res = {kiln_fb_ElementType_F32, 1, d8, false, false};
  return one_function_module(&a, "transfer", imports, 9, &in, 1, &res, 1, 20, 5, size);
}

uint8_t *rt_list_module(int64_t ins, int64_t erase, int64_t get, int mode,
                        size_t *size) {
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  /* imports: 0 list.create, 1 insert, 2 erase, 3 get, 4 size, 5 allocate,
   * 6 view create. refs: 0 a, 1 b, 2..4 l1..l3, 5 get's view, 6 buffer,
   * 7 sizes view, 8 the empty list. */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, NONE, LIST(8));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, LIST(8, 0, 0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 2, ins);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, LIST(2, 1, 2), LIST(3));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 4, erase);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 2, LIST(3, 4), LIST(4));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 6, get);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 3, LIST(mode == 1 ? 0 : 4, 6),
                   LIST(5));
  for (int i = 0; i < 3; ++i)
    kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 4, LIST(2 + i), LIST(8 + 2 * i));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 5, LIST(0), LIST(6));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I32, 14, 2); /* i8 */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 6, LIST(6, 0, 14, 4, 0, 8, 10, 12),
                   LIST(7));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(mode == 2 ? 3 : 5, 7));
  static const char *const imports[] = {
      "hal.list.create", "hal.list.insert", "hal.list.erase", "hal.list.get",
      "hal.list.size", "hal.buffer.allocate", "hal.buffer_view.create"};
  const int64_t dyn[1] = {-1}, sizes[4] = {0, -1, -1, -1};
  const kiln_module_tensor_type_t in[2] = {{kiln_fb_ElementType_F32, 1, dyn, false, false},
                                           {kiln_fb_ElementType_F32, 1, dyn, false, false}};
  const kiln_module_tensor_type_t res[2] = {{kiln_fb_ElementType_F32, 1, dyn, false, false},
                                            {kiln_fb_ElementType_I8, 4, sizes, false, false}};
  return one_function_module(&a, "list", imports, 7, in, 2, res, 2, 16, 9, size);
}

uint8_t *rt_sequence_module(size_t *size) {
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  /* imports: 0 list.size, 1 insert, 2 get. refs: 0 s, 1 v, 2 s + v, 3 its
   * element 0. */
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(0), LIST(0));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1, LIST(0, 1, 0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 2, (int64_t)0);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 2, LIST(2, 2), LIST(3));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(2, 3));
  static const char *const imports[] = {"hal.list.size", "hal.list.insert",
                                        "hal.list.get"};
  const int64_t dyn[1] = {-1};
  const kiln_module_tensor_type_t types[2] = {
      {kiln_fb_ElementType_F32, 1, dyn, true, false},
      {kiln_fb_ElementType_F32, 1, dyn, false, false}};
  return one_function_module(&a, "sequence", imports, 3, types, 2, types, 2, 4, 4, size);
}
