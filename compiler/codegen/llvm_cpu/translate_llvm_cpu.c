/* translate-llvm-cpu: the llvm-cpu target's last pass, per variant.
 *
 * Takes: the inner module of an llvm-cpu hal.executable.variant at the
 * LLVM-translatable level (compiler/codegen/llvm/to_llvm.h: no linalg, no
 * scf, no math ops without instructions) and the compile session.
 * Guarantees: unless the session already holds a payload for it, the
 * variant is translated to LLVM IR (seed conventions, kernel ABI with the
 * export metadata of its hal.executable.export ops) and compiled by the
 * llvm_cpu back end (verify, O3, object, lld) into a shared object stored
 * in the session under (executable, variant) with the variant's arch,
 * the CPU features it requires and the LLVM version that made it. With --compile-to=llvm-ir it prints the
 * variant's LLVM module before optimization instead of compiling. A
 * target the llvm_cpu back end does not parse is an error. The IR is left
 * unchanged. */
#include "llvm_cpu_passes.h"

#include <stdlib.h>
#include <string.h>

#include "llvm_cpu.h"
#include "session.h"
#include "to_llvm.h"

/* "x86_64+avx2+fma" (runtime requirement syntax) -> "+avx2,+fma". */
static char *te_features(const char *req) {
  const char *p = strchr(req, '+');
  char *out = calloc(1, (p ? strlen(p) * 2 : 0) + 1);
  if (!out || !p) return out;
  size_t n = 0;
  while (p && *p) {
    const char *next = strchr(p + 1, '+');
    const size_t len = next ? (size_t)(next - p) : strlen(p);
    if (n) out[n++] = ',';
    memcpy(out + n, p, len);
    n += len;
    p = next;
  }
  out[n] = 0;
  return out;
}

kiln_error *kiln_llvm_cpu_translate_variant(kiln_op *inner, void *user) {
  (void)user;
  kiln_session_variant sv;
  kiln_error *err = kiln_session_variant_of(inner, "translate-llvm-cpu", &sv);
  if (err || sv.has_payload) return err; /* a substituted payload stays */
  kiln_session *s = sv.session;
  kiln_op *var = sv.variant;
  const char *ename = sv.executable_name, *vname = sv.variant_name, *target = sv.target;
  kiln_to_llvm_export *exports;
  uint32_t nexp;
  err = kiln_to_llvm_variant_exports(var, &exports, &nexp);
  if (err) return err;
  kiln_to_llvm_options opts;
  memset(&opts, 0, sizeof opts);
  opts.kernel_module = true;
  opts.exports = exports;
  opts.export_count = nexp;
  LLVMContextRef lctx = LLVMContextCreate();
  LLVMModuleRef mod = NULL;
  err = kiln_to_llvm_translate(inner, &opts, lctx, ename, &mod);
  free(exports);
  if (!err && s->options.compile_to == KILN_STAGE_LLVM_IR) {
    err = kiln_to_llvm_print_variant(mod, ename, vname, target, s->options.output_path);
  } else if (!err) {
    kiln_llvm_cpu_target_t t;
    kiln_llvm_cpu_status_t st = kiln_llvm_cpu_target_parse(target, &t);
    kiln_llvm_cpu_bytes_t so = {0};
    if (!st) {
      st = kiln_llvm_cpu_compile(mod, &t, &so);
      if (!st) {
        char *features = te_features(t.requirements ? t.requirements : "");
        err = features ? kiln_session_set_payload(s, ename, vname, KILN_PAYLOAD_ELF, t.arch_name,
                                                  features, so.data, so.size)
                       : kiln_error_new("out of memory");
        unsigned major, minor, patch;
        LLVMGetVersion(&major, &minor, &patch);
        if (!err) kiln_session_note_llvm(s, ename, vname, major, minor, patch);
        free(features);
      }
      kiln_llvm_cpu_bytes_free(&so);
      kiln_llvm_cpu_target_release(&t);
    }
    if (st) {
      err = kiln_error_new("%s", kiln_llvm_cpu_status_message(st));
      kiln_llvm_cpu_status_free(st);
    }
  }
  if (mod) LLVMDisposeModule(mod);
  LLVMContextDispose(lctx);
  return err;
}

void kiln_llvm_cpu_register_passes(void) {
  static const kiln_pass_info info = {
      "translate-llvm-cpu",
      "llvm-cpu variant -> LLVM IR -> O3 -> object -> lld shared object, stored in the compile "
      "session (or printed with --compile-to=llvm-ir)",
      kiln_llvm_cpu_translate_variant, NULL, KILN_PASS_KERNELS};
  kiln_pass_register(&info);
}
