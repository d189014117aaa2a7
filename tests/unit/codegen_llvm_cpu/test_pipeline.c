/* The back end end to end, checked from outside with LLVM's binary tools:
 * kernels compile and link for x86-64 (baseline, AVX-512, host) and
 * aarch64 into shared objects whose only dynamic symbol is
 * kiln_executable_query, with no undefined symbols, no libraries needed,
 * no W+X segment, no unwind tables and only the relocations a Kiln loader
 * applies; memset/memcpy-shaped loops stay inline; the vectorizers and
 * CPU features reach the code; output is deterministic; broken modules,
 * undefined callees and lld failures come back as messages, and the link
 * folder is always removed. */
#define _POSIX_C_SOURCE 200809L
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/Transforms/PassBuilder.h>

#include "kernels.h"
#include "kiln/executable_abi.h"
#include "llvm_cpu.h"
#include "tools.h"

static void ok(kiln_error *s) {
  ck_assert_msg(s == NULL, "%s", kiln_error_message(s));
}

static void fails_with(kiln_error *s, const char *needle) {
  ck_assert_msg(s != NULL, "expected an error containing '%s'", needle);
  ck_assert_msg(strstr(kiln_error_message(s), needle),
                "message '%s' lacks '%s'", kiln_error_message(s),
                needle);
  kiln_error_free(s);
}

static kiln_llvm_cpu_bytes_t compile(LLVMModuleRef (*build)(LLVMContextRef),
                                     const char *target) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build(ctx);
  ck_assert_ptr_nonnull(m);
  kiln_llvm_cpu_bytes_t so = {0};
  ok(kernels_compile(m, target, &so));
  LLVMContextDispose(ctx);
  ck_assert_uint_gt(so.size, 64);
  return so;
}

static bool only_allowed_relocs(const char *readelf_r, uint16_t machine,
                                int *relative) {
  static const char *const allowed[] = {
      "R_X86_64_RELATIVE",  "R_X86_64_GLOB_DAT",  "R_X86_64_JUMP_SLOT",
      "R_X86_64_64",        "R_AARCH64_RELATIVE", "R_AARCH64_ABS64",
      "R_AARCH64_GLOB_DAT", "R_AARCH64_JUMP_SLOT", NULL};
  const char *prefix = machine == 62 ? "R_X86_64_" : "R_AARCH64_";
  *relative = 0;
  for (const char *p = readelf_r; (p = strstr(p, "R_"));) {
    size_t len = strcspn(p, " \t\n");
    bool found = false;
    for (int i = 0; allowed[i]; i++)
      if (strlen(allowed[i]) == len && !strncmp(p, allowed[i], len) &&
          !strncmp(p, prefix, strlen(prefix)))
        found = true;
    if (!found) {
      fprintf(stderr, "unexpected relocation %.*s\n", (int)len, p);
      return false;
    }
    if (len >= 8 && !strncmp(p + len - 8, "RELATIVE", 8)) (*relative)++;
    p += len;
  }
  return true;
}

/* Everything a Kiln loader requires of a linked executable. */
static void check_shared_object(const kiln_llvm_cpu_bytes_t *so,
                                uint16_t machine) {
  tools_elf_facts_t facts;
  const char *problem = tools_elf_inspect(so->data, so->size, &facts);
  ck_assert_msg(!problem, "%s", problem);
  ck_assert_uint_eq(facts.machine, machine);
  ck_assert_msg(!facts.has_wx_segment, "a segment is writable and executable");
  ck_assert(facts.has_relro);
  ck_assert_uint_ge(facts.load_segments, 2);

  char *path = tools_write_temp(so->data, so->size);
  ck_assert_ptr_nonnull(path);
  char *defined = tools_run_on(KILN_TEST_NM, "-D", "--defined-only", path);
  char *undefined = tools_run_on(KILN_TEST_NM, "-D", "--undefined-only", path);
  char *static_undefined = tools_run_on(KILN_TEST_NM, "--undefined-only", NULL, path);
  char *relocs = tools_run_on(KILN_TEST_READELF, "-r", "-W", path);
  char *sections = tools_run_on(KILN_TEST_READELF, "-S", "-W", path);
  char *dynamic = tools_run_on(KILN_TEST_READELF, "-d", "-W", path);
  unlink(path);
  free(path);
  ck_assert(defined && undefined && static_undefined && relocs && sections &&
            dynamic);

  /* Exactly one dynamic symbol, the query function. */
  char expect[128];
  snprintf(expect, sizeof expect, " T %s\n", KILN_EXECUTABLE_QUERY_SYMBOL);
  const char *hit = strstr(defined, expect);
  ck_assert_msg(hit && strchr(defined, '\n') == hit + strlen(expect) - 1 &&
                    hit[strlen(expect)] == '\0',
                "dynamic symbols:\n%.2000s", defined);
  ck_assert_msg(undefined[0] == '\0', "undefined dynamic symbols:\n%.2000s", undefined);
  ck_assert_msg(static_undefined[0] == '\0' ||
                    !strstr(static_undefined, " U "),
                "undefined symbols:\n%.2000s", static_undefined);
  int relative = 0;
  ck_assert_msg(only_allowed_relocs(relocs, machine, &relative), "%.2000s", relocs);
  ck_assert_msg(relative > 0, "the export table must be relocated:\n%.2000s", relocs);
  ck_assert_msg(!strstr(sections, ".eh_frame"), "unwind tables:\n%.2000s", sections);
  ck_assert_msg(!strstr(sections, ".note.gnu.build-id"), "%.2000s", sections);
  ck_assert_msg(!strstr(dynamic, "(NEEDED)"), "%.2000s", dynamic);
  ck_assert_msg(!strstr(dynamic, "(TEXTREL)"), "%.2000s", dynamic);
  ck_assert_msg(strstr(dynamic, "BIND_NOW"), "%.2000s", dynamic);
  free(defined);
  free(undefined);
  free(static_undefined);
  free(relocs);
  free(sections);
  free(dynamic);
}

START_TEST(mul_links_for_each_target) {
  static const struct {
    const char *target;
    uint16_t machine;
  } cases[] = {
      {"llvm-cpu:x86_64", 62},
      {"llvm-cpu:x86_64+avx512f", 62},
      {"llvm-cpu:aarch64", 183},
      {"llvm-cpu:aarch64+dotprod", 183},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    kiln_llvm_cpu_bytes_t so = compile(kernels_mul_module, cases[i].target);
    ck_assert_uint_eq(so.data[18] | (so.data[19] << 8), cases[i].machine);
    check_shared_object(&so, cases[i].machine);
    kiln_llvm_cpu_bytes_free(&so);
  }
}
END_TEST

START_TEST(mul_links_for_host) {
  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse("llvm-cpu", &t));
  kiln_llvm_cpu_bytes_t so = compile(kernels_mul_module, "llvm-cpu");
  check_shared_object(&so, t.elf_machine);
  kiln_llvm_cpu_bytes_free(&so);
  kiln_llvm_cpu_target_release(&t);
}
END_TEST

START_TEST(output_is_deterministic) {
  kiln_llvm_cpu_bytes_t a = compile(kernels_mul_module, "llvm-cpu:x86_64+avx2");
  kiln_llvm_cpu_bytes_t b = compile(kernels_mul_module, "llvm-cpu:x86_64+avx2");
  ck_assert_uint_eq(a.size, b.size);
  ck_assert(memcmp(a.data, b.data, a.size) == 0);
  kiln_llvm_cpu_bytes_free(&a);
  kiln_llvm_cpu_bytes_free(&b);
}
END_TEST

/* What plain LLVM O3 makes of MODULE (triple and layout set, nothing of
 * prepare()): the premise that the fill/copy loops invite libc calls. */
static char *plain_o3_ir(LLVMModuleRef m, const char *target) {
  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse(target, &t));
  LLVMTargetMachineRef tm;
  ok(kiln_llvm_cpu_target_machine_create(&t, &tm));
  LLVMSetTarget(m, t.triple);
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMPassBuilderOptionsRef o = LLVMCreatePassBuilderOptions();
  ck_assert_ptr_null(LLVMRunPasses(m, "default<O3>", tm, o));
  LLVMDisposePassBuilderOptions(o);
  LLVMDisposeTargetMachine(tm);
  kiln_llvm_cpu_target_release(&t);
  return LLVMPrintModuleToString(m);
}

/* Our steps up to O3, returning the optimized IR. */
static char *kiln_o3_ir(LLVMModuleRef m, const char *target) {
  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse(target, &t));
  LLVMTargetMachineRef tm;
  ok(kiln_llvm_cpu_target_machine_create(&t, &tm));
  ok(kiln_llvm_cpu_verify(m));
  ok(kiln_llvm_cpu_prepare(m, tm));
  ok(kiln_llvm_cpu_optimize(m, tm));
  kiln_llvm_cpu_bytes_t ir;
  ok(kiln_llvm_cpu_emit(m, tm, KILN_LLVM_CPU_EMIT_LLVM_IR, &ir));
  LLVMDisposeTargetMachine(tm);
  kiln_llvm_cpu_target_release(&t);
  return (char *)ir.data;
}

static void check_no_libcall(LLVMModuleRef (*build)(LLVMContextRef),
                             const char *intrinsic) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = build(ctx);
  char *plain = plain_o3_ir(m, "llvm-cpu:x86_64");
  ck_assert_msg(strstr(plain, intrinsic),
                "premise: plain O3 should form %s here:\n%.2000s", intrinsic, plain);
  LLVMDisposeMessage(plain);
  LLVMDisposeModule(m);

  m = build(ctx);
  char *ours = kiln_o3_ir(m, "llvm-cpu:x86_64");
  ck_assert_msg(!strstr(ours, intrinsic), "%s formed:\n%.2000s", intrinsic, ours);
  ck_assert_msg(strstr(ours, "\"no-builtins\""), "%.2000s", ours);
  /* frames over a page are probed, so a small stack faults on its guard */
  ck_assert_msg(strstr(ours, "\"probe-stack\"=\"inline-asm\""), "%.2000s", ours);
  ck_assert_msg(!strstr(ours, "uwtable"), "%.2000s", ours);
  free(ours);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);

  const char *targets[] = {"llvm-cpu:x86_64", "llvm-cpu:x86_64+avx512f",
                           "llvm-cpu:aarch64"};
  for (int i = 0; i < 3; i++) {
    kiln_llvm_cpu_bytes_t so = compile(build, targets[i]);
    check_shared_object(&so, i < 2 ? 62 : 183);
    kiln_llvm_cpu_bytes_free(&so);
  }
}

START_TEST(fill_loops_never_call_memset) {
  check_no_libcall(kernels_fill_module, "@llvm.memset");
}
END_TEST

START_TEST(copy_loop_never_calls_memcpy) {
  check_no_libcall(kernels_copy_module, "@llvm.memcpy");
}
END_TEST

/* Whether some line of TEXT contains both A and B. */
static bool line_has(const char *text, const char *a, const char *b) {
  for (const char *p = text; (p = strstr(p, a));) {
    const char *start = p;
    while (start > text && start[-1] != '\n') start--;
    const char *end = strchr(p, '\n');
    if (!end) end = p + strlen(p);
    const char *q = strstr(start, b);
    if (q && q < end) return true;
    p = end;
  }
  return false;
}

/* Explicit memory intrinsics: emitted as they are, lld finds libc calls
 * (the premise); through prepare() they become loops and link cleanly. */
START_TEST(memory_intrinsics_become_loops) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse("llvm-cpu:x86_64", &t));
  LLVMTargetMachineRef tm;
  ok(kiln_llvm_cpu_target_machine_create(&t, &tm));
  LLVMModuleRef m = kernels_memops_module(ctx);
  ck_assert_ptr_nonnull(m);
  ok(kiln_llvm_cpu_verify(m));
  kiln_llvm_cpu_bytes_t obj, so = {0};
  ok(kiln_llvm_cpu_emit(m, tm, KILN_LLVM_CPU_EMIT_OBJECT, &obj));
  fails_with(kiln_llvm_cpu_link(&t, NULL, obj.data, obj.size, &so),
             "undefined symbol: mem");
  kiln_llvm_cpu_bytes_free(&obj);

  ok(kiln_llvm_cpu_prepare(m, tm));
  ok(kiln_llvm_cpu_verify(m));
  char *ir = LLVMPrintModuleToString(m);
  ck_assert_msg(!strstr(ir, "@llvm.mem"), "%.3000s", ir);
  ck_assert_msg(strstr(ir, "define internal void @kiln.memmove(") &&
                    strstr(ir, "define internal void @kiln.memset(") &&
                    strstr(ir, "define internal void @kiln.memcpy("),
                "%.3000s", ir);
  LLVMDisposeMessage(ir);
  ok(kiln_llvm_cpu_optimize(m, tm));
  ir = LLVMPrintModuleToString(m);
  ck_assert_msg(!strstr(ir, "@llvm.mem"), "O3 re-formed an intrinsic:\n%.3000s", ir);
  LLVMDisposeMessage(ir);
  LLVMDisposeModule(m);
  LLVMDisposeTargetMachine(tm);
  kiln_llvm_cpu_target_release(&t);
  LLVMContextDispose(ctx);

  const char *targets[] = {"llvm-cpu:x86_64", "llvm-cpu:x86_64+avx512f",
                           "llvm-cpu:aarch64"};
  for (int i = 0; i < 3; i++) {
    so = compile(kernels_memops_module, targets[i]);
    check_shared_object(&so, i < 2 ? 62 : 183);
    kiln_llvm_cpu_bytes_free(&so);
  }
}
END_TEST

START_TEST(reserved_helper_name_clash_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_memops_module(ctx);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
  LLVMValueRef clash = LLVMAddFunction(m, "kiln.memset", LLVMFunctionType(i32, NULL, 0, 0));
  LLVMSetLinkage(clash, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, clash, "entry"));
  LLVMBuildRet(b, LLVMConstInt(i32, 0, 0));
  LLVMDisposeBuilder(b);
  kiln_llvm_cpu_bytes_t so = {0};
  fails_with(kernels_compile(m, "llvm-cpu:x86_64", &so),
             "already has a different 'kiln.memset'");
  LLVMContextDispose(ctx);
}
END_TEST

/* Assembly of the mul kernel for TARGET must have a line with both the
 * instruction INSN and the register pattern REG. */
static void asm_contains(const char *target, const char *insn, const char *reg) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_mul_module(ctx);
  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse(target, &t));
  LLVMTargetMachineRef tm;
  ok(kiln_llvm_cpu_target_machine_create(&t, &tm));
  ok(kiln_llvm_cpu_verify(m));
  ok(kiln_llvm_cpu_prepare(m, tm));
  ok(kiln_llvm_cpu_optimize(m, tm));
  char *before = LLVMPrintModuleToString(m);
  kiln_llvm_cpu_bytes_t text;
  ok(kiln_llvm_cpu_emit(m, tm, KILN_LLVM_CPU_EMIT_ASSEMBLY, &text));
  ck_assert_uint_eq(strlen((char *)text.data), text.size);
  ck_assert_msg(line_has((char *)text.data, insn, reg),
                "%s: no '%s' on '%s' in:\n%.2000s", target, insn, reg,
                (char *)text.data);
  ck_assert_msg(strstr((char *)text.data, KILN_EXECUTABLE_QUERY_SYMBOL ":"),
                "%.2000s", (char *)text.data);
  /* Emission works on a clone: the module is as it was. */
  char *after = LLVMPrintModuleToString(m);
  ck_assert_str_eq(before, after);
  LLVMDisposeMessage(before);
  LLVMDisposeMessage(after);
  kiln_llvm_cpu_bytes_free(&text);
  LLVMDisposeTargetMachine(tm);
  kiln_llvm_cpu_target_release(&t);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}

START_TEST(vectorizers_and_features_reach_the_code) {
  asm_contains("llvm-cpu:x86_64", "\tmulps\t", "%xmm");
  asm_contains("llvm-cpu:x86_64+avx2", "\tvmulps\t", "%ymm");
  asm_contains("llvm-cpu:x86_64+avx512f", "\tvmulps\t", "%zmm");
  asm_contains("llvm-cpu:aarch64", "\tfmul\t", ".4s");
  asm_contains("llvm-cpu:aarch64+sve", "\tfmul\tz", ".s");
}
END_TEST

/* O3 flattens the static 4x32x64 transpose nest (44 instructions become
 * about 24,600 for x86-64): the back end notices and compiles it again
 * without loop unrolling; a kernel O3 leaves in proportion is compiled as
 * it was. */
START_TEST(flattened_nest_is_redone_without_unrolling) {
  LLVMModuleRef (*const build[2])(LLVMContextRef) = {kernels_transpose_module,
                                                     kernels_mul_module};
  for (int k = 0; k < 2; k++) {
    LLVMContextRef ctx = LLVMContextCreate();
    LLVMModuleRef m = build[k](ctx);
    ck_assert_ptr_nonnull(m);
    kiln_llvm_cpu_target_t t;
    ok(kiln_llvm_cpu_target_parse("llvm-cpu:x86_64", &t));
    kiln_llvm_cpu_bytes_t so = {0};
    kiln_llvm_cpu_timing_t timing;
    ok(kiln_llvm_cpu_compile_timed(m, &t, &so, &timing));
    ck_assert_int_eq(timing.unrolling_dropped, (k == 0));
    ck_assert_uint_lt(timing.instructions_out, 2000);
    ck_assert_uint_gt(timing.instructions_in, 0);
    check_shared_object(&so, 62);
    kiln_llvm_cpu_bytes_free(&so);
    kiln_llvm_cpu_target_release(&t);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}
END_TEST

START_TEST(broken_module_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("broken", ctx);
  LLVMValueRef fn = kiln_llvm_cpu_abi_add_entry(&abi, m, "k");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  /* returns i64 from an i32 function */
  LLVMBuildRet(b, LLVMConstInt(abi.i64, 0, 0));
  LLVMDisposeBuilder(b);
  kiln_llvm_cpu_export_t e = {"k", fn, {1, 1, 1}, 0, 0, 0};
  ok(kiln_llvm_cpu_abi_emit_table(&abi, m, &e, 1));
  fails_with(kernels_compile(m, "llvm-cpu:x86_64", &(kiln_llvm_cpu_bytes_t){0}),
             "the LLVM module failed verification: Function return type does "
             "not match operand type of return inst");
  LLVMContextDispose(ctx);
}
END_TEST

/* An entry that calls DECLARED (a function the module never defines). */
static LLVMModuleRef calls_undefined(LLVMContextRef ctx, bool with_table) {
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("undef", ctx);
  LLVMValueRef fn = kiln_llvm_cpu_abi_add_entry(&abi, m, "k");
  LLVMTypeRef ext_ty = LLVMFunctionType(abi.i32, NULL, 0, 0);
  LLVMValueRef ext = LLVMAddFunction(m, "external_helper", ext_ty);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMBuildRet(b, LLVMBuildCall2(b, ext_ty, ext, NULL, 0, "r"));
  LLVMDisposeBuilder(b);
  kiln_llvm_cpu_export_t e = {"k", fn, {1, 1, 1}, 0, 0, 0};
  if (with_table) ok(kiln_llvm_cpu_abi_emit_table(&abi, m, &e, 1));
  return m;
}

START_TEST(undefined_callee_is_named) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_bytes_t so = {0};
  fails_with(kernels_compile(calls_undefined(ctx, true), "llvm-cpu:aarch64", &so),
             "function 'external_helper' is called but not defined");
  ck_assert_ptr_null(so.data);
  LLVMContextDispose(ctx);
}
END_TEST

/* frem has no x86-64 instruction: LLVM lowers it to a call of fmodf,
 * which only lld can notice; its message must come back with the hint. */
START_TEST(libcall_from_lowering_is_reported) {
  LLVMContextRef ctx = LLVMContextCreate();
  kiln_llvm_cpu_abi_t abi;
  kiln_llvm_cpu_abi_init(&abi, ctx);
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("frem", ctx);
  LLVMValueRef fn = kiln_llvm_cpu_abi_add_entry(&abi, m, "k");
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, fn, "entry"));
  LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
  LLVMValueRef p = kiln_llvm_cpu_abi_load_binding(&abi, b, LLVMGetParam(fn, 0), 0, 4);
  LLVMValueRef x = LLVMBuildLoad2(b, f32, p, "x");
  LLVMBuildStore(b, LLVMBuildFRem(b, x, LLVMConstReal(f32, 3.0), "r"), p);
  LLVMBuildRet(b, LLVMConstInt(abi.i32, 0, 0));
  LLVMDisposeBuilder(b);
  kiln_llvm_cpu_export_t e = {"k", fn, {1, 1, 1}, 1, 0, 0};
  ok(kiln_llvm_cpu_abi_emit_table(&abi, m, &e, 1));
  kiln_llvm_cpu_bytes_t so = {0};
  kiln_error *s = kernels_compile(m, "llvm-cpu:x86_64", &so);
  ck_assert_ptr_nonnull(s);
  ck_assert_ptr_nonnull(strstr(kiln_error_message(s), "links no libc"));
  fails_with(s, "undefined symbol: fmodf");
  ck_assert_ptr_null(so.data);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(missing_query_is_an_error) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernels_mul_module(ctx);
  LLVMDeleteFunction(LLVMGetNamedFunction(m, KILN_EXECUTABLE_QUERY_SYMBOL));
  LLVMDeleteGlobal(LLVMGetNamedGlobal(m, "kiln.executable_table"));
  kiln_llvm_cpu_bytes_t so = {0};
  fails_with(kernels_compile(m, "llvm-cpu:x86_64", &so),
             "defines no kiln_executable_query");
  LLVMContextDispose(ctx);
}
END_TEST

/* Number of entries in DIR besides . and .. */
static int entries_in(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
  closedir(d);
  return n;
}

START_TEST(link_errors_and_cleanup) {
  /* A private TMPDIR shows whether the link folder is removed. */
  char tmp[] = "/tmp/kiln-link-test-XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(tmp));
  const char *old = getenv("TMPDIR");
  char *saved = old ? strdup(old) : NULL;
  setenv("TMPDIR", tmp, 1);

  kiln_llvm_cpu_target_t t;
  ok(kiln_llvm_cpu_target_parse("llvm-cpu:x86_64", &t));
  kiln_llvm_cpu_bytes_t so = {0};
  static const char junk[] = "this is not an object file";
  fails_with(kiln_llvm_cpu_link(&t, NULL, junk, sizeof junk, &so), "failed (exit 1)");
  ck_assert_ptr_null(so.data);
  ck_assert_int_eq(entries_in(tmp), 0);
  fails_with(kiln_llvm_cpu_link(&t, "/nonexistent/ld.lld", junk, sizeof junk, &so),
             "cannot run /nonexistent/ld.lld");
  ck_assert_int_eq(entries_in(tmp), 0);

  /* lld itself refusing an undefined symbol: an object emitted without
   * prepare()'s check (which would name it first). */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = calls_undefined(ctx, true);
  LLVMTargetMachineRef tm;
  ok(kiln_llvm_cpu_target_machine_create(&t, &tm));
  kiln_llvm_cpu_bytes_t obj;
  ok(kiln_llvm_cpu_emit(m, tm, KILN_LLVM_CPU_EMIT_OBJECT, &obj));
  fails_with(kiln_llvm_cpu_link(&t, NULL, obj.data, obj.size, &so),
             "undefined symbol: external_helper");
  ck_assert_int_eq(entries_in(tmp), 0);
  kiln_llvm_cpu_bytes_free(&obj);
  LLVMDisposeModule(m);

  /* And a successful link leaves nothing behind either. */
  ok(kernels_compile(kernels_mul_module(ctx), "llvm-cpu:x86_64", &so));
  ck_assert_uint_gt(so.size, 0);
  ck_assert_int_eq(entries_in(tmp), 0);
  kiln_llvm_cpu_bytes_free(&so);

  LLVMDisposeTargetMachine(tm);
  LLVMContextDispose(ctx);
  kiln_llvm_cpu_target_release(&t);
  if (saved) {
    setenv("TMPDIR", saved, 1);
    free(saved);
  } else {
    unsetenv("TMPDIR");
  }
  rmdir(tmp);
}
END_TEST

int main(void) {
  Suite *s = suite_create("codegen_llvm_pipeline");
  TCase *tc = tcase_create("pipeline");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, mul_links_for_each_target);
  tcase_add_test(tc, mul_links_for_host);
  tcase_add_test(tc, output_is_deterministic);
  tcase_add_test(tc, fill_loops_never_call_memset);
  tcase_add_test(tc, copy_loop_never_calls_memcpy);
  tcase_add_test(tc, memory_intrinsics_become_loops);
  tcase_add_test(tc, reserved_helper_name_clash_is_an_error);
  tcase_add_test(tc, vectorizers_and_features_reach_the_code);
  tcase_add_test(tc, flattened_nest_is_redone_without_unrolling);
  tcase_add_test(tc, broken_module_is_an_error);
  tcase_add_test(tc, undefined_callee_is_named);
  tcase_add_test(tc, missing_query_is_an_error);
  tcase_add_test(tc, libcall_from_lowering_is_reported);
  tcase_add_test(tc, link_errors_and_cleanup);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
