/* The sample module (kiln-mkmodule) is valid beyond the format: its
 * signatures parse and its bytecode passes the VM's load-time verifier,
 * so runtime tests can load it. */
#include <check.h>
#include <stdlib.h>

#include "kiln/vm_bytecode.h"
#include "sample_module.h"

START_TEST(test_sample_bytecode_verifies) {
  kiln_module_builder_t *b = kiln_module_builder_create();
  kiln_sample_options_t o = {false, KILN_MODULE_COMPRESS_AUTO};
  kiln_sample_module_fill(b, &o);
  uint8_t *data;
  size_t size;
  kiln_format_error_t err;
  ck_assert_msg(kiln_module_builder_finish(b, &data, &size, &err), "%s", err.message);
  kiln_module_builder_destroy(b);
  kiln_module_view_t m;
  ck_assert_msg(kiln_module_view_open(&m, data, size, &err), "%s", err.message);
  ck_assert_uint_eq(kiln_fb_Module_bytecode_version(m.root), KILN_VM_BYTECODE_VERSION);

  enum { MAX = 8 };
  uint32_t nf = kiln_fb_Module_functions_count(m.root);
  uint32_t ni = kiln_fb_Module_imports_count(m.root);
  ck_assert_uint_le(nf, MAX);
  ck_assert_uint_le(ni, MAX);
  kiln_vm_function_info_t fns[MAX];
  const char *imports[MAX];
  for (uint32_t i = 0; i < nf; i++) {
    kiln_fb_Function_t f = kiln_fb_Module_functions_at(m.root, i);
    fns[i].code = kiln_module_function_bytecode(&m, i, &fns[i].code_size);
    fns[i].scalar_count = kiln_fb_Function_i32_register_count(f);
    fns[i].ref_count = kiln_fb_Function_ref_register_count(f);
    fns[i].signature = kiln_fb_Function_vm_signature(f).data;
    ck_assert_msg(kiln_vm_signature_valid(fns[i].signature), "%s", fns[i].signature);
  }
  for (uint32_t i = 0; i < ni; i++) {
    imports[i] = kiln_fb_Import_signature(kiln_fb_Module_imports_at(m.root, i)).data;
    ck_assert_msg(kiln_vm_signature_valid(imports[i]), "%s", imports[i]);
  }
  kiln_vm_module_info_t info = {fns, nf, imports, ni};
  for (uint32_t i = 0; i < nf; i++) {
    uint8_t *scratch = malloc(kiln_vm_verify_scratch_size(fns[i].code_size) + 1);
    kiln_vm_diag_t diag;
    memset(&diag, 0, sizeof diag);
    ck_assert_msg(kiln_vm_verify_function(&info, i, scratch, &diag) == 0,
                  "function %u: %s", i, diag.message);
    free(scratch);
  }
  free(data);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_sample");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, test_sample_bytecode_verifies);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
