/* See exec_harness.h. */
#include "exec_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen_cpu.h"
#include "codegen_transforms.h"
#include "llvm_cpu.h"
#include "mlir_input.h"
#include "to_llvm.h"
#include "transforms.h"

static char msg[8192];

static void capture(void *user, const char *text) {
  (void)user;
  size_t n = strlen(msg);
  snprintf(msg + n, sizeof msg - n, "%s", text);
}

static const char *fail(kiln_error *e) {
  size_t n = strlen(msg);
  snprintf(msg + n, sizeof msg - n, "%s", kiln_error_message(e));
  kiln_error_free(e);
  return msg;
}

static void register_once(void) {
  static bool registered;
  if (!registered) {
    kiln_transforms_register();
    kiln_codegen_cpu_register();
    kiln_codegen_transforms_register();
    registered = true;
  }
}

bool cpu_kernel_have_math(void) {
  register_once();
  return kiln_pass_lookup("approximate-math") != NULL;
}

const char *cpu_kernel_build(const char *text, const char *target, cpu_kernel *k, char **ir) {
  register_once();
  memset(k, 0, sizeof *k);
  msg[0] = 0;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, capture, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "kernel.mlir", text, strlen(text), true, &m);
  if (e) {
    kiln_context_destroy(ctx);
    return fail(e);
  }
  kiln_op_set_attr(m, "kiln.target", kiln_attr_string(ctx, target, strlen(target)));
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  /* the llvm-cpu rows of compiler/driver/pipeline.def up to the ones
   * below, which run after the workgroup count is read */
  e = kiln_pm_add_pipeline(pm, "select-launch-config,tile-and-distribute,specialize-full-tiles,"
                               "lower-to-loops,remove-single-iteration-loops");
  if (!e) e = kiln_pm_run(pm, m);
  kiln_pm_destroy(pm);
  if (!e && ir) *ir = kiln_print_op_to_string(m, 0);
  /* The kernel's workgroup count. */
  kiln_op *func = NULL;
  for (kiln_op *o = kiln_module_body(m)->first; o; o = o->next)
    if (o->kind == KILN_OP_FUNC_FUNC) func = o;
  const kiln_attr *launch = func ? kiln_op_get_attr(func, "kiln.launch") : NULL;
  const kiln_attr *wc = launch ? kiln_dict_get(launch, "workgroup_count") : NULL;
  if (!e && (!wc || wc->kind != KILN_ATTR_DENSE_ARRAY || wc->count != 3))
    e = kiln_error_new("no kiln.launch workgroup_count on the kernel");
  for (int i = 0; !e && i < 3; i++) k->count[i] = (uint32_t)((const int64_t *)wc->data)[i];
  if (!e) {
    pm = kiln_pm_create(ctx);
    /* approximate-math only matters for math ops, which these kernels
     * use only when it exists. */
    e = kiln_pm_add_pipeline(pm, kiln_pass_lookup("approximate-math") ? "approximate-math,scf-to-cf"
                                                                      : "scf-to-cf");
    if (!e) e = kiln_pm_run(pm, m);
    kiln_pm_destroy(pm);
  }
  LLVMContextRef c = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  if (!e) {
    kiln_to_llvm_options o = {.kernel_module = true};
    e = kiln_to_llvm_translate(m, &o, c, "kernel", &mod);
  }
  kiln_context_destroy(ctx);
  if (e) {
    LLVMContextDispose(c);
    return fail(e);
  }
  kiln_llvm_cpu_bytes_t so = {0};
  kiln_llvm_cpu_target_t t;
  kiln_error *s = kiln_llvm_cpu_target_parse("llvm-cpu", &t);
  if (!s) {
    s = kiln_llvm_cpu_compile(mod, &t, &so);
    kiln_llvm_cpu_target_release(&t);
  }
  LLVMDisposeModule(mod);
  LLVMContextDispose(c);
  if (s) {
    snprintf(msg, sizeof msg, "%s", kiln_error_message(s));
    kiln_error_free(s);
    return msg;
  }
  char lmsg[256];
  int rc = kiln_elf_load(so.data, so.size, &k->image, lmsg, sizeof lmsg);
  kiln_llvm_cpu_bytes_free(&so);
  if (rc != KILN_ELF_OK) {
    snprintf(msg, sizeof msg, "kiln_elf_load: %s", lmsg);
    return msg;
  }
  kiln_executable_query_fn q = (kiln_executable_query_fn)(uintptr_t)kiln_elf_lookup(
      &k->image, KILN_EXECUTABLE_QUERY_SYMBOL);
  const kiln_executable_table_t *tab = q ? q(KILN_EXECUTABLE_ABI_VERSION) : NULL;
  if (!tab || tab->export_count != 1) {
    snprintf(msg, sizeof msg, "the executable has no single export");
    return msg;
  }
  k->export = &tab->exports[0];
  return NULL;
}

int cpu_kernel_run(const cpu_kernel *k, void **bindings, const uint64_t *lengths, uint32_t n,
                   bool reverse) {
  kiln_dispatch_state_t ds = {
      .workgroup_size = {1, 1, 1},
      .workgroup_count = {k->count[0], k->count[1], k->count[2]},
      .max_concurrency = 1,
      .binding_count = n,
      .binding_ptrs = bindings,
      .binding_lengths = lengths,
  };
  uint64_t total = (uint64_t)k->count[0] * k->count[1] * k->count[2];
  for (uint64_t i = 0; i < total; i++) {
    uint64_t j = reverse ? total - 1 - i : i;
    kiln_workgroup_state_t ws = {.workgroup_id = {(uint32_t)(j % k->count[0]),
                                                  (uint32_t)(j / k->count[0] % k->count[1]),
                                                  (uint32_t)(j / k->count[0] / k->count[1])}};
    int rc = k->export->entry(&ds, &ws);
    if (rc) return rc;
  }
  return 0;
}

void cpu_kernel_release(cpu_kernel *k) { kiln_elf_unload(&k->image); }
