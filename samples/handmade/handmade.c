/* Builds the handmade simple_mul module (see handmade.h): two VM
 * functions, simple_mul (exported; checks its inputs, allocates the
 * result, records one dispatch, submits, waits, returns a view) and
 * workgroups (internal; ceil(n / 64) as i32, showing VM-to-VM calls), an
 * import table of HAL functions, and one executable with the kernel. */
#include "handmade.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/module_builder.h"
#include "kiln/vm_bytecode.h"

void kiln_handmade_default_options(kiln_handmade_options_t *o) {
  memset(o, 0, sizeof *o);
  o->n = 4;
#if defined(__aarch64__)
  o->variant_arch = "aarch64";
#else
  o->variant_arch = "x86_64";
#endif
  o->variant_features = "";
  o->allocate_signature = "I_r";
  o->bytecode_version = KILN_VM_BYTECODE_VERSION;
}

bool kiln_handmade_read_file(const char *path, uint8_t **data, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  const bool ok = !ferror(f) && buf;
  fclose(f);
  if (!ok) {
    free(buf);
    return false;
  }
  *data = buf;
  *size = n;
  return true;
}

/* Import ordinals, in the order they are added. */
enum {
  IMP_ASSERT, IMP_DIM, IMP_OFFSET, IMP_ALLOCATE, IMP_BUFFER, IMP_CB_CREATE,
  IMP_DISPATCH, IMP_BARRIER, IMP_EXECUTE, IMP_WAIT, IMP_VIEW_CREATE,
  IMP_RODATA, IMP_COUNT
};

#define LIST(...) \
  (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}
#define NONE 0, (const int *)NULL

/* simple_mul(r0 a, r1 b) -> r6 (or (r0 a) -> r6 with b from rodata).
 * Scalar slots: see the comments. */
static int emit_main(kiln_vm_asm_t *a, const kiln_handmade_options_t *o,
                     uint32_t *trap_pc, uint32_t *trap_line) {
  const uint32_t mismatch = kiln_vm_asm_label(a);
  const bool ro = o->rodata_b != NULL;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 0, 0);     /* s0 = input 0 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 1, 1);     /* s1 = input 1 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 2, 12);    /* s2 = f32 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 3, o->n);  /* s3:4 = N or -1 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_ASSERT, LIST(0, 0, 2, 1, 3), NONE);
  if (!ro)
    kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_ASSERT, LIST(1, 1, 2, 1, 3), NONE);
  /* s5:6 = dim(a, 0), s22:23 = dim(b, 0) (or N); they must agree */
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_DIM, LIST(0, 0), LIST(5));
  if (ro)
    kiln_vm_asm_emit(a, KILN_VM_OP_MOV_I64, 22, 3);
  else
    kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_DIM, LIST(1, 0), LIST(22));
  kiln_vm_asm_emit(a, KILN_VM_OP_NE_I64, 24, 5, 22);
  kiln_vm_asm_emit(a, KILN_VM_OP_BR_IF, 24, (int)mismatch);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 9, (int64_t)4);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_I64, 7, 5, 9);    /* s7:8 = bytes */
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL, 1, LIST(5), LIST(15)); /* s15 = groups */
  kiln_vm_asm_emit(a, KILN_VM_OP_TRUNC_I64_I32, 17, 5); /* s17 = n as i32 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 16, 1);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 18, (int64_t)0);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 20, 0);    /* executable 0 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 21, (int)o->export_ordinal);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_OFFSET, LIST(0), LIST(10)); /* s10:11 */
  if (ro) {
    kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 12, (int64_t)0);
    kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 14, 0); /* rodata 0 */
    kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_RODATA, LIST(14), LIST(3));
  } else {
    kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_OFFSET, LIST(1), LIST(12)); /* s12:13 */
    kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_BUFFER, LIST(1), LIST(3));
  }
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_ALLOCATE, LIST(7), LIST(4));
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_BUFFER, LIST(0), LIST(2));
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_CB_CREATE, NONE, LIST(5));
  const int out = o->write_rodata ? 3 : 4;
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_DISPATCH,
                   LIST(5, 20, 21, 15, 16, 16, /* cb, exe, export, grid */
                        1, 17,                 /* push constants: n */
                        3, 2, 10, 7, 3, 12, 7, out, 18, 7), /* bindings */
                   NONE);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_BARRIER, LIST(5), NONE);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_EXECUTE, LIST(5), NONE);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_WAIT, NONE, NONE);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, IMP_VIEW_CREATE,
                   LIST(4, 18, 2, 1, 5), LIST(6));
  kiln_vm_asm_emit(a, KILN_VM_OP_RET, LIST(6));
  kiln_vm_asm_bind(a, mismatch);
  *trap_pc = (uint32_t)a->size;
  *trap_line = __LINE__ + 1; /* the source location errors will name */
  kiln_vm_asm_emit(a, KILN_VM_OP_TRAP, 1);
  return kiln_vm_asm_finish(a);
}

/* workgroups(s0:1 n) -> s6 = ceil(n / 64) as i32. */
static int emit_workgroups(kiln_vm_asm_t *a) {
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)64);
  kiln_vm_asm_emit(a, KILN_VM_OP_CEILDIV_I64, 4, 0, 2);
  kiln_vm_asm_emit(a, KILN_VM_OP_TRUNC_I64_I32, 6, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_RET, LIST(6));
  return kiln_vm_asm_finish(a);
}

bool kiln_handmade_build(const kiln_handmade_options_t *o, const void *kernel,
                         size_t kernel_size, uint8_t **out, size_t *out_size,
                         char *err, size_t err_cap) {
  kiln_vm_asm_t main_code, wg_code;
  kiln_vm_asm_init(&main_code);
  kiln_vm_asm_init(&wg_code);
  bool ok = false;
  kiln_module_builder_t *b = NULL;
  uint32_t trap_pc = 0, trap_line = 0;
  if (emit_main(&main_code, o, &trap_pc, &trap_line) ||
      emit_workgroups(&wg_code)) {
    snprintf(err, err_cap, "bytecode assembly failed");
    goto done;
  }
  b = kiln_module_builder_create();
  if (!b) {
    snprintf(err, err_cap, "out of memory");
    goto done;
  }
  kiln_module_builder_set_name(b, "simple_mul");
  kiln_module_builder_set_producer(b, "handmade 1", 0, NULL);
  kiln_module_builder_set_bytecode_version(b, o->bytecode_version);
  kiln_module_builder_set_compression(
      b, o->compress ? KILN_MODULE_COMPRESS_ALWAYS : KILN_MODULE_COMPRESS_NEVER);
  static const char *const import_names[IMP_COUNT] = {
      "hal.buffer_view.assert",     "hal.buffer_view.dim",
      "hal.buffer_view.byte_offset", "hal.buffer.allocate",
      "hal.buffer_view.buffer",     "hal.command_buffer.create",
      "hal.command_buffer.dispatch", "hal.command_buffer.barrier",
      "hal.command_buffer.execute", "hal.device.wait",
      "hal.buffer_view.create",     "hal.buffer.rodata"};
  const char *import_sigs[IMP_COUNT] = {
      "riiCID_", "ri_I", "r_I", o->allocate_signature, "r_r", "_r",
      "riiiiiCiDCrIID_", "r_", "r_", "_", "rIiCID_r", "i_r"};
  for (int i = 0; i < IMP_COUNT; ++i)
    kiln_module_builder_add_import(b, import_names[i], import_sigs[i]);
  const uint32_t src =
      kiln_module_builder_add_source_file(b, "samples/handmade/handmade.c");

  const int64_t dims[1] = {o->n};
  const kiln_module_tensor_type_t t = {kiln_fb_ElementType_F32, 1, dims, false, false};
  const kiln_module_tensor_type_t ins[2] = {t, t};
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = "simple_mul";
  f.exported = true;
  f.input_count = o->rodata_b ? 1 : 2;
  f.inputs = ins;
  f.output_count = 1;
  f.outputs = &t;
  f.bytecode = main_code.code;
  f.bytecode_size = (uint32_t)main_code.size;
  f.i32_register_count = 25;
  f.ref_register_count = 7;
  f.vm_signature = o->rodata_b ? "r_r" : "rr_r";
  /* Only the trap has a location: where the size check lives. */
  const kiln_fb_SourceLocation_t loc = {trap_pc, src, trap_line, 3};
  f.location_count = 1;
  f.locations = &loc;
  kiln_module_builder_add_function(b, &f);
  memset(&f, 0, sizeof f);
  f.name = "workgroups";
  f.bytecode = wg_code.code;
  f.bytecode_size = (uint32_t)wg_code.size;
  f.i32_register_count = 7;
  f.vm_signature = "I_i";
  kiln_module_builder_add_function(b, &f);

  if (o->rodata_b)
    kiln_module_builder_add_rodata(b, "weights", o->rodata_b,
                                   (uint64_t)o->n * sizeof(float), 16);
  const bool ro[3] = {true, true, false};
  const kiln_module_export_desc_t exports[2] = {
      {o->ptx ? "add_f32" : "simple_mul", {64, 1, 1}, 3, ro, 1},
      {"fail_if_negative", {64, 1, 1}, 3, ro, 1}};
  kiln_module_variant_desc_t v;
  memset(&v, 0, sizeof v);
  v.name = o->variant_arch;
  v.target = "llvm-cpu";
  v.arch = o->variant_arch;
  v.cpu_features = o->variant_features;
  v.format = kiln_fb_PayloadFormat_ELF;
  v.payload = kernel;
  v.payload_size = kernel_size;
  if (o->ptx) {
    v.name = "ptx";
    v.target = "cuda";
    v.arch = "nvptx64";
    v.cpu_features = NULL;
    v.sm_version = o->ptx_sm;
    v.format = kiln_fb_PayloadFormat_PTX;
    v.payload = o->ptx;
    v.payload_size = strlen(o->ptx);
  }
  const kiln_module_executable_desc_t e = {"simple_mul_dispatch_0", 2, exports,
                                           1, &v};
  kiln_module_builder_add_executable(b, &e);
  kiln_format_error_t ferr;
  if (!kiln_module_builder_finish(b, out, out_size, &ferr)) {
    snprintf(err, err_cap, "%s", ferr.message);
    goto done;
  }
  ok = true;
done:
  kiln_module_builder_destroy(b);
  kiln_vm_asm_free(&main_code);
  kiln_vm_asm_free(&wg_code);
  return ok;
}
