/* The pipeline, top to bottom (DESIGN.md §2, PIPELINE.md).
 *
 * Takes: a session (driver.h). Guarantees: the stages below run in this
 * order, each as named passes in one pass manager (so --print-ir-after-all,
 * --print-ir-after=PASS and --timing see every pass), stopping after
 * --compile-to. Input that is already at a later stage (hal-level or
 * vm-level IR) starts there. A stage whose library was not built fails
 * the run naming the stage and its first missing pass. */
#include <stdlib.h>
#include <string.h>

#include "driver_internal.h"
#include "mlir_input.h"

#ifdef KILN_HAVE_TRANSFORMS
#include "transforms.h"
#endif
#ifdef KILN_HAVE_FLOW
#include "flow.h"
#endif
#ifdef KILN_HAVE_HAL
#include "hal.h"
#endif
#ifdef KILN_HAVE_CODEGEN_CPU
#include "codegen_cpu.h"
#endif
#ifdef KILN_HAVE_CODEGEN_TRANSFORMS
#include "codegen_transforms.h"
#endif
#ifdef KILN_HAVE_VM_STAGE
#include "vm_stage.h"
#endif
#ifdef KILN_HAVE_SERIALIZE
#include "serialize.h"
#endif
#ifdef KILN_HAVE_ONNX
#include "kiln_onnx.h"
#include "onnx_import.h"
#endif

/* ---- the stages ---------------------------------------------------------- */

/* canonicalize again after infer-shapes: it drops the casts and unused
 * tensor.empty ops that refined types leave behind. */
static const char *const input_passes[] = {"canonicalize", "infer-shapes",
                                           "canonicalize", NULL};
static const char *const flow_passes[] = {
    "inline-calls", "tensorize-scalars", "convert-elementwise-to-linalg", "generalize-named-ops", "fuse-elementwise",
    "reshapes-to-views", "sink-reshapes", "copy-aliased-results", "form-dispatch-regions",
    "outline-dispatches", NULL};
static const char *const hal_passes[] = {
    "assign-targets", "materialize-interfaces", "bufferize-kernels",
    "plan-memory", "schedule-commands", NULL};
static const char *const codegen_passes[] = {
    "select-launch-config", "tile-and-distribute", "specialize-full-tiles",
    "lower-to-loops", "remove-single-iteration-loops", "approximate-math",
    "scf-to-cf", "translate-executables", NULL};
static const char *const vm_passes[] = {"convert-to-vm", "allocate-registers", NULL};
static const char *const no_passes[] = {NULL};

static const char *const *const stage_passes[KILN_STAGE_COUNT] = {
    [KILN_STAGE_INPUT] = input_passes,   [KILN_STAGE_FLOW] = flow_passes,
    [KILN_STAGE_HAL] = hal_passes,       [KILN_STAGE_CODEGEN] = codegen_passes,
    [KILN_STAGE_LLVM_IR] = no_passes,    [KILN_STAGE_VM] = vm_passes,
    [KILN_STAGE_SERIALIZE] = no_passes,
};

void kiln_driver_register_passes(void) {
#ifdef KILN_HAVE_TRANSFORMS
  kiln_transforms_register();
#endif
#ifdef KILN_HAVE_FLOW
  kiln_flow_register();
#endif
#ifdef KILN_HAVE_HAL
  kiln_hal_register();
#endif
#ifdef KILN_HAVE_CODEGEN_CPU
  kiln_codegen_cpu_register();
#endif
#ifdef KILN_HAVE_CODEGEN_TRANSFORMS
  kiln_codegen_transforms_register();
#endif
  kiln_driver_register_translate_executables();
#ifdef KILN_HAVE_VM_STAGE
  kiln_vm_register_passes();
#endif
}

const char *kiln_driver_stage_missing(kiln_stage_t s) {
  if (s == KILN_STAGE_LLVM_IR) return kiln_driver_stage_missing(KILN_STAGE_CODEGEN);
#ifndef KILN_HAVE_SERIALIZE
  if (s == KILN_STAGE_SERIALIZE) return "serialize";
#endif
  for (const char *const *p = stage_passes[s]; *p; p++)
    if (!kiln_pass_lookup(*p)) return *p;
  return NULL;
}

static bool allow_unregistered_flag;
void kiln_driver_allow_unregistered(kiln_session *s, bool allow) {
  (void)s;
  allow_unregistered_flag = allow;
}

/* ---- where the input starts ---------------------------------------------- */

/* The first stage the module still needs: vm-level IR goes straight to
 * serialize, hal-level IR (hal.executable or host code on !hal values) to
 * codegen, or to vm when the session already holds a payload for every
 * variant (substituted executables). */
static kiln_stage_t first_stage(kiln_op *module, const kiln_session *s) {
  bool hal = false, vm = false, payloads = true;
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    if (op->kind == KILN_OP_VM_FUNC) vm = true;
    if (strcmp(op->name, "hal.executable") == 0) {
      hal = true;
      kiln_block *b = op->num_regions ? op->regions[0].first : NULL;
      for (kiln_op *v = b ? b->first : NULL; v; v = v->next)
        if (strcmp(v->name, "hal.executable.variant") == 0 &&
            !kiln_session_payload(s, kiln_symbol_name(op), kiln_symbol_name(v)))
          payloads = false;
    }
    if (op->kind == KILN_OP_FUNC_FUNC) {
      const kiln_attr *ft = kiln_op_get_attr(op, "function_type");
      for (uint32_t i = 0; ft && ft->kind == KILN_ATTR_TYPE && i < ft->type->num_inputs; i++)
        if (ft->type->types[i]->kind == KILN_TYPE_OPAQUE &&
            strcmp(ft->type->types[i]->dialect, "hal") == 0)
          hal = true;
    }
  }
  if (vm) return KILN_STAGE_SERIALIZE;
  if (hal) return payloads ? KILN_STAGE_VM : KILN_STAGE_CODEGEN;
  return KILN_STAGE_INPUT;
}

/* ---- reading the input --------------------------------------------------- */

/* MLIR text, or an ONNX model recognized by its content. *onnx_model
 * keeps an imported model alive as long as the IR may point into it: its
 * initializers are borrowed dense attributes over the mapped model file,
 * so it is freed only after the module is written and the context is
 * destroyed. */
static kiln_error *read_input(kiln_context *ctx, const char *path, kiln_op **out,
                              void **onnx_model) {
  FILE *f = fopen(path, "rb");
  if (!f) return kiln_error_new("cannot open input '%s'", path);
  unsigned char head[4096];
  const size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  *onnx_model = NULL;
#ifdef KILN_HAVE_ONNX
  if (kiln_onnx_looks_like_model(head, n)) {
    kiln_onnx_model *model = NULL;
    kiln_onnx_status st;
    memset(&st, 0, sizeof st);
    if (!kiln_onnx_model_load_file(path, &model, &st))
      return kiln_error_new("%s: %s", path, st.message);
    *onnx_model = model;
    if (!kiln_onnx_import(ctx, model, out, &st))
      return kiln_error_new("%s: %s", path, st.message);
    return NULL;
  }
#else
  (void)n;
  const size_t len = strlen(path);
  if (len > 5 && strcmp(path + len - 5, ".onnx") == 0)
    return kiln_error_new("%s: ONNX input is not supported yet (no ONNX importer in this build)",
                          path);
#endif
  return kiln_mlir_load_file(ctx, path, true, out);
}

/* ---- output -------------------------------------------------------------- */

static kiln_error *print_module(kiln_op *module, const char *path) {
  FILE *f = path && strcmp(path, "-") != 0 ? fopen(path, "w") : stdout;
  if (!f) return kiln_error_new("cannot open '%s' for writing", path);
  kiln_print_op(f, module, 0);
  fputc('\n', f);
  if (f != stdout && fclose(f) != 0) return kiln_error_new("writing '%s' failed", path);
  return NULL;
}

/* ---- the pipeline -------------------------------------------------------- */

static kiln_error *add_stage(kiln_pass_manager *pm, kiln_stage_t st) {
  const char *missing = kiln_driver_stage_missing(st);
  if (missing)
    return kiln_error_new("stage %s is not built yet (pass '%s' is not in this build)",
                          kiln_stage_name(st), missing);
  for (const char *const *p = stage_passes[st]; *p; p++) {
    kiln_error *e = kiln_pm_add_pass(pm, *p);
    if (e) return e;
  }
  return NULL;
}

kiln_error *kiln_compile(kiln_session *s) {
  const kiln_session_options_t *o = &s->options;
  kiln_driver_register_passes();
  if (!o->input_path) return kiln_error_new("no input file");
  if (o->compile_to == KILN_STAGE_SERIALIZE && !o->output_path)
    return kiln_error_new("no output file (-o OUT.kiln)");
  kiln_context *ctx = kiln_context_create();
  if (!ctx) return kiln_error_new("out of memory");
  kiln_context_allow_unregistered(ctx, allow_unregistered_flag);
  kiln_session_attach(s, ctx);
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  kiln_op *module = NULL;
  void *onnx_model = NULL;
  kiln_error *err = read_input(ctx, o->input_path, &module, &onnx_model);
  kiln_stage_t start = KILN_STAGE_INPUT;
  if (!err) start = first_stage(module, s);

  /* Every stage from where the input is up to --compile-to, in order:
   *   input    canonicalize, infer-shapes, canonicalize
   *   flow     inline-calls, tensorize-scalars, convert-elementwise-to-linalg,
   *            generalize-named-ops, fuse-elementwise, reshapes-to-views,
   *            sink-reshapes, copy-aliased-results, form-dispatch-regions,
   *            outline-dispatches
   *   hal      assign-targets, materialize-interfaces, bufferize-kernels,
   *            plan-memory, schedule-commands
   *   codegen  select-launch-config, tile-and-distribute,
   *            specialize-full-tiles, lower-to-loops,
   *            remove-single-iteration-loops, approximate-math, scf-to-cf,
   *            translate-executables (LLVM IR -> .so / .ptx payloads into
   *            the session)
   *   vm       convert-to-vm, allocate-registers
   *   serialize  bytecode + rodata + executables -> .kiln */
  kiln_stage_t stop = o->compile_to;
  if (stop == KILN_STAGE_LLVM_IR) {
    stop = KILN_STAGE_CODEGEN;
    if (!err && start > KILN_STAGE_CODEGEN)
      err = kiln_error_new("--compile-to=llvm-ir: the input has no executable left to translate");
    /* translate-executables appends each variant's module */
    if (!err && o->output_path && strcmp(o->output_path, "-") != 0) {
      FILE *f = fopen(o->output_path, "w");
      if (!f) err = kiln_error_new("cannot open '%s' for writing", o->output_path);
      else fclose(f);
    }
  }
  for (int st = KILN_STAGE_INPUT; !err && st <= (int)stop && st < KILN_STAGE_SERIALIZE; st++) {
    /* llvm-ir is codegen stopped at its last pass, which then prints
     * LLVM modules instead of compiling them. */
    if (st == KILN_STAGE_LLVM_IR) continue;
    if (st >= (int)start) err = add_stage(pm, (kiln_stage_t)st);
  }
  if (!err && stop == KILN_STAGE_SERIALIZE) {
    const char *missing = kiln_driver_stage_missing(KILN_STAGE_SERIALIZE);
    if (missing) err = kiln_error_new("stage serialize is not built yet");
  }
#ifdef KILN_HAVE_HAL
  if (!err) {
    const char *const *targets;
    const uint32_t nt = kiln_session_targets(s, &targets);
    if (s->target_count) err = kiln_hal_set_targets(nt, targets);
    else err = kiln_hal_set_targets(0, NULL);
  }
#endif
  if (!err) {
    if (o->print_ir_after_all) kiln_pm_print_after_all(pm, o->dump);
    if (o->print_ir_after) kiln_pm_print_after(pm, o->print_ir_after, o->dump);
    if (o->timing) kiln_pm_enable_timing(pm, o->dump);
    err = kiln_pm_run(pm, module);
  }
  if (!err && o->compile_to != KILN_STAGE_LLVM_IR) {
    if (stop != KILN_STAGE_SERIALIZE) {
      err = print_module(module, o->output_path);
    } else {
#ifdef KILN_HAVE_SERIALIZE
      /* Streamed: weights go from where they live (the mapped ONNX file,
       * external data, the IR) to the output, never into one big buffer. */
      err = kiln_serialize_module_to_file(module, s, o->output_path);
#endif
    }
  }
  kiln_pm_destroy(pm);
  kiln_session_attach(NULL, ctx);
  s->ctx = NULL;
  kiln_context_destroy(ctx);
#ifdef KILN_HAVE_ONNX
  if (onnx_model) kiln_onnx_model_free(onnx_model);
#endif
  return err;
}
