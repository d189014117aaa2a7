/* libFuzzer target for the verifier's central promise: bytecode it
 * accepts cannot make the interpreter misbehave. Each input is the body of
 * an exported function simple_mul(tensor<4xf32>, tensor<4xf32>) ->
 * tensor<4xf32> (32 scalar slots, 8 refs) in a module that imports every
 * HAL function and holds the handmade kernel; input byte 0 picks a second
 * function's signature for calls. The module is built, loaded (so the
 * bytecode is verified) and, when accepted, called on local-sync under a
 * step budget and a buffer limit. Crashes, hangs and sanitizer reports
 * are bugs; errors are the expected outcome. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handmade.h"
#include "kiln/module_builder.h"
#include "kiln/runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kiln_instance_t *inst;
static kiln_device_t *dev;
static uint8_t *kernel;
static size_t kernel_size;

/* Every HAL import, in the table's order. */
static const char *const imports[][2] = {
#define KILN_HAL_IMPORT(C_NAME, NAME, SIGNATURE, HAL_OP, SEMANTICS) {NAME, SIGNATURE},
#include "kiln/hal_imports.def"
};

/* All return one ref, like simple_mul, so one body can serve both. */
static const char *const helper_signatures[] = {"rr_r", "rI_r", "_r", "if_r"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!inst) {
    if (kiln_instance_create(kiln_allocator_system(), &inst)) abort();
    const kiln_device_options_t opts = {.max_buffer_bytes = 1u << 24,
                                        .max_steps = 20000};
    if (kiln_device_create(inst, "local-sync", &opts, &dev)) abort();
    if (!kiln_handmade_read_file(KILN_HANDMADE_KERNEL, &kernel, &kernel_size))
      abort();
  }
  if (size < 2 || size > 4096) return 0;
  kiln_module_builder_t *b = kiln_module_builder_create();
  if (!b) return 0;
  kiln_module_builder_set_name(b, "fuzz");
  kiln_module_builder_set_bytecode_version(b, 1);
  for (size_t i = 0; i < sizeof imports / sizeof imports[0]; ++i)
    kiln_module_builder_add_import(b, imports[i][0], imports[i][1]);
  static const float weights[4] = {1, 2, 3, 4};
  kiln_module_builder_add_rodata(b, "w", weights, sizeof weights, 16);
  const int64_t dims[1] = {4};
  const kiln_module_tensor_type_t t = {kiln_fb_ElementType_F32, 1, dims, false, false};
  const kiln_module_tensor_type_t ins[2] = {t, t};
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = "simple_mul";
  f.exported = true;
  f.input_count = 2;
  f.inputs = ins;
  f.output_count = 1;
  f.outputs = &t;
  f.bytecode = data + 1;
  f.bytecode_size = (uint32_t)(size - 1);
  f.i32_register_count = 32;
  f.ref_register_count = 8;
  f.vm_signature = "rr_r";
  kiln_module_builder_add_function(b, &f);
  /* The helper shares the body: calls recurse, under the step budget. */
  memset(&f, 0, sizeof f);
  f.name = "helper";
  f.bytecode = data + 1;
  f.bytecode_size = (uint32_t)(size - 1);
  f.i32_register_count = 32;
  f.ref_register_count = 8;
  f.vm_signature = helper_signatures[data[0] % 4];
  kiln_module_builder_add_function(b, &f);
  const bool ro[3] = {true, true, false};
  const kiln_module_export_desc_t exports[2] = {
      {"simple_mul", {64, 1, 1}, 3, ro, 1},
      {"fail_if_negative", {64, 1, 1}, 3, ro, 1}};
  kiln_module_variant_desc_t v;
  memset(&v, 0, sizeof v);
  v.name = "x86_64";
  v.target = "llvm-cpu";
  v.arch = "x86_64";
  v.format = kiln_fb_PayloadFormat_ELF;
  v.payload = kernel;
  v.payload_size = kernel_size;
  const kiln_module_executable_desc_t e = {"exe", 2, exports, 1, &v};
  kiln_module_builder_add_executable(b, &e);
  uint8_t *module = NULL;
  size_t module_size = 0;
  kiln_format_error_t err;
  const bool built = kiln_module_builder_finish(b, &module, &module_size, &err);
  kiln_module_builder_destroy(b);
  if (!built) return 0;
  kiln_module_t *m = NULL;
  kiln_status_t s = kiln_module_load_memory(inst, module, module_size, &m);
  /* KILN_FUZZ_VERBOSE=1 shows what happened to each input (for seeds). */
  const bool verbose = getenv("KILN_FUZZ_VERBOSE") != NULL;
  if (s) {
    if (!kiln_status_message(s)[0]) abort();
    if (verbose) fprintf(stderr, "load: %s\n", kiln_status_message(s));
    kiln_status_free(s);
  } else {
    kiln_function_t fn;
    if (kiln_module_lookup_function(m, "simple_mul", &fn)) abort();
    const float a[4] = {1, -2, 3, 4};
    kiln_buffer_view_t *in[2] = {NULL, NULL}, *out = NULL;
    if (kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, dims, a, 16, &in[0]) ||
        kiln_buffer_view_from_host(dev, KILN_ELEMENT_F32, 1, dims, a, 16, &in[1]))
      abort();
    s = kiln_function_call(fn, dev, in, 2, &out, 1);
    if (verbose) fprintf(stderr, "call: %s\n", s ? kiln_status_message(s) : "ok");
    kiln_status_free(s);
    kiln_buffer_view_release(out);
    kiln_buffer_view_release(in[0]);
    kiln_buffer_view_release(in[1]);
    kiln_module_release(m);
  }
  free(module);
  return 0;
}
