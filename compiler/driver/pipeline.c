/* The pipeline, top to bottom (DESIGN.md §2, PIPELINE.md).
 *
 * Takes: a session (driver.h). Guarantees: the passes of pipeline.def run
 * in its order in one pass manager (so --print-ir-after-all,
 * --print-ir-after=PASS and --timing see every pass, the per-target
 * codegen passes included), from the stage the input is at up to
 * --compile-to. Input that is already at a later stage (hal-level or
 * vm-level IR) starts there. */
#include <stdlib.h>
#include <string.h>

#include "codegen_cpu.h"
#include "codegen_gpu.h"
#include "codegen_transforms.h"
#include "cuda_passes.h"
#include "driver.h"
#include "driver_passes.h"
#include "flow.h"
#include "hal.h"
#include "llvm_cpu_passes.h"
#include "mlir_input.h"
#include "serialize.h"
#include "static_library.h"
#include "static_shapes.h"
#include "transforms.h"
#include "vm_stage.h"
#ifdef KILN_HAVE_ONNX
#include "kiln_onnx.h"
#include "onnx_import.h"
#endif

/* ---- the table ----------------------------------------------------------- */

typedef struct pipeline_row {
  kiln_stage_t stage;
  const char *target; /* "" or a target kind: a kernel pass on its variants */
  const char *pass;
} pipeline_row;

static const pipeline_row rows[] = {
#define KILN_PIPELINE_PASS(STAGE, TARGET, NAME) {KILN_STAGE_##STAGE, TARGET, NAME},
#include "pipeline.def"
#undef KILN_PIPELINE_PASS
};
#define ROW_COUNT (sizeof rows / sizeof rows[0])

/* A stage's rows as pipeline text: "a,b" or "llvm-cpu(a,b),cuda(c)".
 * NULL when out of memory; an empty string for a stage without passes. */
static char *stage_text(kiln_stage_t st) {
  size_t cap = 1;
  for (size_t i = 0; i < ROW_COUNT; i++) cap += strlen(rows[i].pass) + strlen(rows[i].target) + 3;
  char *text = malloc(cap);
  if (!text) return NULL;
  size_t n = 0;
  const char *open = NULL; /* the target whose parenthesis is open */
  for (size_t i = 0; i < ROW_COUNT; i++) {
    if (rows[i].stage != st) continue;
    if (open && strcmp(open, rows[i].target) != 0) text[n++] = ')', open = NULL;
    if (n) text[n++] = ',';
    if (!open && *rows[i].target) n += (size_t)sprintf(text + n, "%s(", rows[i].target), open = rows[i].target;
    n += (size_t)sprintf(text + n, "%s", rows[i].pass);
  }
  if (open) text[n++] = ')';
  text[n] = 0;
  return text;
}

void kiln_driver_register_passes(void) {
  kiln_transforms_register();
  kiln_flow_register();
  kiln_hal_register();
  kiln_codegen_cpu_register();
  kiln_codegen_gpu_register();
  kiln_codegen_transforms_register();
  kiln_llvm_cpu_register_passes();
  kiln_cuda_register_passes();
  static const kiln_pass_info simt_cpu = {
      "add-simt-cpu-variant",
      "with KILN_GPU_SIMT_CPU=1 (tests): a copy of the lowered variant whose threads run as loops, "
      "compiled for the host as an llvm-cpu variant",
      kiln_driver_add_simt_cpu_variant, NULL, KILN_PASS_KERNELS};
  kiln_pass_register(&simt_cpu);
  kiln_vm_register_passes();
  /* kiln-opt's --pass-pipeline=flow etc.: the stages as pipelines. The
   * texts live as long as the process (the registry keeps pointers). */
  static char *texts[KILN_STAGE_COUNT];
  for (int st = 0; st < KILN_STAGE_COUNT; st++) {
    if (!texts[st]) texts[st] = stage_text((kiln_stage_t)st);
    if (texts[st] && *texts[st])
      kiln_pipeline_register(kiln_stage_name((kiln_stage_t)st), "a whole stage of kiln-compile, in order",
                             texts[st]);
  }
}

void kiln_driver_print_pipeline(FILE *out) {
  for (int st = 0; st < KILN_STAGE_COUNT; st++) {
    const char *target = NULL;
    int col = 0, indent = 0;
    for (size_t i = 0; i < ROW_COUNT; i++) {
      if (rows[i].stage != (kiln_stage_t)st) continue;
      if (!target || strcmp(target, rows[i].target) != 0) {
        if (target) fputc('\n', out);
        col = fprintf(out, "%-10s", target ? "" : kiln_stage_name((kiln_stage_t)st));
        if (*rows[i].target) col += fprintf(out, "%s: ", rows[i].target);
        indent = col;
        target = rows[i].target;
      } else if (col + 2 + (int)strlen(rows[i].pass) > 78) {
        col = fprintf(out, ",\n%*s", indent, "") - 2;
      } else {
        col += fprintf(out, ", ");
      }
      col += fprintf(out, "%s", rows[i].pass);
    }
    if (target) fputc('\n', out);
  }
}

/* ---- where the input starts ---------------------------------------------- */

/* Whether every hal.command_buffer.dispatch in FUNC has its workgroup
 * count. Codegen decides the grid (select-launch-config) and records it
 * on the dispatch sites, host code computing it included for dynamic
 * shapes; hal text printed before codegen (--compile-to=hal) has none. */
static bool grids_known(kiln_op *func) {
  for (kiln_block *b = func->num_regions ? func->regions[0].first : NULL; b; b = b->next)
    for (kiln_op *d = b->first; d; d = d->next)
      if (d->kind == KILN_OP_HAL_COMMAND_BUFFER_DISPATCH && !kiln_op_get_attr(d, "workgroup_count"))
        return false;
  return true;
}

/* The first stage the module still needs: vm-level IR goes straight to
 * serialize, hal-level IR (hal.executable or host code on !hal values) to
 * codegen, or to vm when the session already holds a payload for every
 * variant (substituted executables) and every dispatch site has its
 * workgroup count (hand-written hal IR). Substituted variants that go
 * through codegen keep their payload (translate-* skip them), and codegen
 * gives their dispatches the grid the generated kernel would have had. */
static kiln_stage_t first_stage(kiln_op *module, const kiln_session *s) {
  bool hal = false, vm = false, codegen_done = true;
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    if (op->kind == KILN_OP_VM_FUNC) vm = true;
    if (strcmp(op->name, "hal.executable") == 0) {
      hal = true;
      kiln_block *b = op->num_regions ? op->regions[0].first : NULL;
      for (kiln_op *v = b ? b->first : NULL; v; v = v->next)
        if (strcmp(v->name, "hal.executable.variant") == 0 &&
            !kiln_session_payload(s, kiln_symbol_name(op), kiln_symbol_name(v)))
          codegen_done = false;
    }
    if (op->kind == KILN_OP_FUNC_FUNC) {
      if (!grids_known(op)) codegen_done = false;
      const kiln_attr *ft = kiln_op_get_attr(op, "function_type");
      for (uint32_t i = 0; ft && ft->kind == KILN_ATTR_TYPE && i < ft->type->num_inputs; i++)
        if (ft->type->types[i]->kind == KILN_TYPE_OPAQUE &&
            strcmp(ft->type->types[i]->dialect, "hal") == 0)
          hal = true;
    }
  }
  if (vm) return KILN_STAGE_SERIALIZE;
  if (hal) return codegen_done ? KILN_STAGE_VM : KILN_STAGE_CODEGEN;
  return KILN_STAGE_INPUT;
}

/* ---- reading the input --------------------------------------------------- */

/* MLIR text, or an ONNX model recognized by its content. *onnx_model
 * keeps an imported model alive as long as the IR may point into it: its
 * initializers are borrowed dense attributes over the mapped model file,
 * so it is freed only after the module is written and the context is
 * destroyed. */
static kiln_error *read_input(kiln_context *ctx, const kiln_session *s, const char *path, kiln_op **out,
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
    if (!kiln_onnx_model_load_file(path, &model, &st)) return kiln_onnx_error(path, &st);
    *onnx_model = model;
    kiln_onnx_import_options opts;
    bool has = kiln_driver_onnx_options(s, &opts);
    bool ok = kiln_onnx_import_with(ctx, model, has ? &opts : NULL, out, &st);
    if (has) kiln_driver_onnx_options_free(&opts);
    if (!ok) return kiln_onnx_error(path, &st);
    return NULL;
  }
#else
  (void)n;
  const size_t len = strlen(path);
  if (len > 5 && strcmp(path + len - 5, ".onnx") == 0)
    return kiln_error_new("%s: ONNX input is not supported yet (no ONNX importer in this build)",
                          path);
#endif
  kiln_error *e = kiln_mlir_load_file(ctx, path, true, out);
  return e ? e : kiln_driver_static_shapes(s, *out);
}

/* ---- output -------------------------------------------------------------- */

static kiln_error *print_module(kiln_op *module, const char *path, bool debuginfo) {
  FILE *f = path && strcmp(path, "-") != 0 ? fopen(path, "w") : stdout;
  if (!f) return kiln_error_new("cannot open '%s' for writing", path);
  kiln_print_op(f, module, debuginfo ? KILN_PRINT_LOCATIONS : 0);
  fputc('\n', f);
  if (f != stdout && fclose(f) != 0) return kiln_error_new("writing '%s' failed", path);
  return NULL;
}

/* ---- the pipeline -------------------------------------------------------- */

static kiln_error *add_stage(kiln_pass_manager *pm, kiln_stage_t st) {
  for (size_t i = 0; i < ROW_COUNT; i++) {
    if (rows[i].stage != st) continue;
    kiln_error *e = *rows[i].target ? kiln_pm_add_target_pass(pm, rows[i].target, rows[i].pass)
                                    : kiln_pm_add_pass(pm, rows[i].pass);
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
  if (o->static_name) {
    if (o->compile_to != KILN_STAGE_SERIALIZE)
      return kiln_error_new("--output-format=static-library does not combine with --compile-to");
    kiln_error *e = kiln_static_library_check(s);
    if (e) return e;
  } else if (o->compile_to == KILN_STAGE_SERIALIZE) {
    kiln_error *e = kiln_session_record_input(s, o->input_path);
    if (e) return e;
  }
  kiln_context *ctx = kiln_context_create();
  if (!ctx) return kiln_error_new("out of memory");
  kiln_context_allow_unregistered(ctx, o->allow_unregistered);
  kiln_session_attach(s, ctx);
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  kiln_op *module = NULL;
  void *onnx_model = NULL;
  kiln_error *err = read_input(ctx, s, o->input_path, &module, &onnx_model);
  kiln_stage_t start = KILN_STAGE_INPUT;
  if (!err) start = first_stage(module, s);

  /* Every stage from where the input is up to --compile-to, in order. */
  kiln_stage_t stop = o->compile_to;
  /* A static library is the codegen stage's objects plus a host program
   * built from the hal-level host code (compiler/static_library), not VM
   * bytecode. */
  if (o->static_name) {
    stop = KILN_STAGE_CODEGEN;
    if (!err && start > KILN_STAGE_CODEGEN)
      err = kiln_error_new("--output-format=static-library: the input has no executable left to compile");
  }
  if (stop == KILN_STAGE_LLVM_IR) {
    stop = KILN_STAGE_CODEGEN;
    if (!err && start > KILN_STAGE_CODEGEN)
      err = kiln_error_new("--compile-to=llvm-ir: the input has no executable left to translate");
    /* the translate passes append each variant's module */
    if (!err && o->output_path && strcmp(o->output_path, "-") != 0) {
      FILE *f = fopen(o->output_path, "w");
      if (!f) err = kiln_error_new("cannot open '%s' for writing", o->output_path);
      else fclose(f);
    }
  }
  for (int st = KILN_STAGE_INPUT; !err && st <= (int)stop && st < KILN_STAGE_SERIALIZE; st++) {
    /* llvm-ir is codegen whose translate passes print LLVM modules
     * instead of compiling them; it has no passes of its own. */
    if (st >= (int)start) err = add_stage(pm, (kiln_stage_t)st);
  }
  /* assign-targets takes the session's --target values; a bad one is
   * reported before anything runs. */
  for (uint32_t i = 0; !err && i < s->target_count; i++) err = kiln_hal_check_target(s->targets[i]);
  if (!err) {
    if (o->print_ir_after_all) kiln_pm_print_after_all(pm, o->dump);
    if (o->print_ir_after) kiln_pm_print_after(pm, o->print_ir_after, o->dump);
    if (o->timing) kiln_pm_enable_timing(pm, o->dump);
    err = kiln_pm_run(pm, module);
  }
  if (!err && o->static_name) {
    err = kiln_static_library_write(module, s);
  } else if (!err && o->compile_to != KILN_STAGE_LLVM_IR) {
    if (stop != KILN_STAGE_SERIALIZE) {
      err = print_module(module, o->output_path, o->print_debuginfo);
    } else {
      /* Streamed: weights go from where they live (the mapped ONNX file,
       * external data, the IR) to the output, never into one big buffer. */
      err = kiln_serialize_module_to_file(module, s, o->output_path);
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
