/* Unit tests of the flow and hal stages over every MLIR file of the lit
 * corpora (round-trip, transforms, ir, flow, hal): after canonicalize the
 * flow pipeline and then the hal pipeline either fail with an error
 * message (unsupported input: dynamic shapes, scalars passed to kernels,
 * calls, ...) or succeed, and never leave invalid IR; on success the
 * stage contracts of compiler/PIPELINE.md are checked on the result:
 *  flow: host signatures are tensors only; host functions hold only flow.dispatch, flow.tensor.reshape,
 *        arith.constant, dimension arithmetic (tensor.dim of arguments,
 *        index arith), flow.check.dim_eq and func.return; each flow.executable holds one
 *        kernel of its name; each readonly kernel argument is loaded once
 *        and each writeonly one stored once, index arguments (push
 *        constants) last; results alias nothing;
 *  hal:  no tensor type anywhere in kernels or host functions; host
 *        functions carry kiln.signature; no flow op is left.
 * The tests fail if too few files get through, so they cannot pass
 * vacuously. */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "flow.h"
#include "hal.h"
#include "mlir_input.h"
#include "transforms.h"

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  if (b) b[n] = 0, *len = (size_t)n;
  return b;
}

static void quiet(void *user, const char *text) {
  (void)user;
  (void)text;
}

static kiln_error *run(kiln_context *ctx, kiln_op *m, const char *pipeline) {
  kiln_pass_manager *pm = kiln_pm_create(ctx);
  kiln_error *e = kiln_pm_add_pipeline(pm, pipeline);
  if (!e) e = kiln_pm_run(pm, m);
  kiln_pm_destroy(pm);
  return e;
}

static bool is_tensor_like(const kiln_type *t) {
  return t->kind == KILN_TYPE_TENSOR || t->kind == KILN_TYPE_UNRANKED_TENSOR;
}

static kiln_walk_result no_tensors(kiln_op *op, void *user) {
  const char *file = user;
  if (op->kind == KILN_OP_FUNC_FUNC && !op->regions[0].first) return KILN_WALK_SKIP;
  for (uint32_t i = 0; i < op->num_results; i++)
    ck_assert_msg(!is_tensor_like(op->results[i].type), "%s: '%s' still yields a tensor after hal", file,
                  op->name);
  for (uint32_t r = 0; r < op->num_regions; r++)
    for (kiln_block *b = op->regions[r].first; b; b = b->next)
      for (uint32_t a = 0; a < b->num_args; a++)
        ck_assert_msg(!is_tensor_like(b->args[a]->type), "%s: tensor block argument in '%s'", file, op->name);
  ck_assert_msg(strncmp(op->name, "flow.", 5) != 0, "%s: '%s' left after hal", file, op->name);
  return KILN_WALK_ADVANCE;
}

static bool host_loop(kiln_op *m, const kiln_op *x);

/* Host dimension arithmetic: index results of tensor.dim of an argument
 * or of a host loop's result (read after the loop ran), or of integer
 * arith on such values. */
static bool host_index(kiln_op *m, const kiln_op *x) {
  if (x->num_results != 1 || x->results[0].type->kind != KILN_TYPE_INDEX) return false;
  if (x->kind == KILN_OP_TENSOR_DIM) {
    const kiln_op *d = kiln_op_operand(x, 0)->def;
    return !d || host_loop(m, d) || d->kind == KILN_OP_FLOW_LIST_GET;
  }
  return strncmp(x->name, "arith.", 6) == 0;
}

/* A host load (flow's fl_host_load): an integer read at constant indices
 * from a function argument, which hal turns into hal.buffer_view.load. */
static bool host_load(const kiln_op *x) {
  if (x->kind != KILN_OP_TENSOR_EXTRACT || x->num_results != 1 ||
      x->results[0].type->kind != KILN_TYPE_INTEGER || kiln_op_operand(x, 0)->def)
    return false;
  for (uint32_t i = 1; i < x->num_operands; i++) {
    const kiln_op *d = kiln_op_operand(x, i)->def;
    if (!d || d->kind != KILN_OP_ARITH_CONSTANT) return false;
  }
  return true;
}

/* Is tensor operand A of a dispatch of executable EXE tied to one of its
 * results (place-concats' tied_operands: the previous chain member's
 * buffer, bound to a readonly argument the kernel never reads)? */
static bool tied_argument(kiln_op *m, const char *exe, uint32_t a) {
  for (kiln_op *o = kiln_module_body(m)->first; o; o = o->next) {
    kiln_block *b = o->kind == KILN_OP_FUNC_FUNC ? o->regions[0].first : NULL;
    for (kiln_op *x = b ? b->first : NULL; x; x = x->next) {
      const kiln_attr *ep = x->kind == KILN_OP_FLOW_DISPATCH ? kiln_op_get_attr(x, "entry_point") : NULL;
      const kiln_attr *t = ep ? kiln_op_get_attr(x, "tied_operands") : NULL;
      if (!t || t->kind != KILN_ATTR_DENSE_ARRAY || strcmp(ep->str, exe) != 0) continue;
      for (uint32_t r = 0; r < t->count; r++)
        if (((const int64_t *)t->data)[r] == (int64_t)a) return true;
    }
  }
  return false;
}

/* Is v defined in block b (an op's result there or b's argument)? */
static bool in_block(const kiln_value *v, const kiln_block *b) {
  return v->def ? v->def->parent == b : v->block == b;
}

/* A scan row write in host loop block b: tensor.dim of the loop's
 * tensors, tensor.empty sized by index values, or tensor.insert_slice of
 * a call's result into a buffer of the loop (index offsets and sizes). */
static bool row_write(const kiln_op *y, const kiln_block *b) {
  if (y->kind == KILN_OP_TENSOR_DIM) return in_block(kiln_op_operand((kiln_op *)y, 0), b);
  if (y->kind != KILN_OP_TENSOR_EMPTY && y->kind != KILN_OP_TENSOR_INSERT_SLICE) return false;
  uint32_t first = 0;
  if (y->kind == KILN_OP_TENSOR_INSERT_SLICE) {
    const kiln_value *src = kiln_op_operand((kiln_op *)y, 0), *dst = kiln_op_operand((kiln_op *)y, 1);
    if (!src->def || src->def->kind != KILN_OP_FUNC_CALL || src->def->parent != b || !in_block(dst, b)) return false;
    first = 2;
  }
  for (uint32_t i = first; i < y->num_operands; i++)
    if (kiln_op_operand((kiln_op *)y, i)->type->kind != KILN_TYPE_INDEX) return false;
  return true;
}

/* A host loop (flow's fl_host_loop): an scf.for whose body calls
 * functions marked kiln.host_loop_body, computes host dims, writes scan
 * rows and yields. */
static bool host_loop(kiln_op *m, const kiln_op *x) {
  if (x->kind != KILN_OP_SCF_FOR) return false;
  bool calls = false;
  for (kiln_op *y = x->regions[0].first->first; y; y = y->next) {
    if (row_write(y, x->regions[0].first)) continue;
    if (y->kind == KILN_OP_FUNC_CALL) {
      const kiln_attr *c = kiln_op_get_attr(y, "callee");
      kiln_op *f = c ? kiln_symbol_lookup(m, c->str) : NULL;
      if (!f || !kiln_op_get_attr(f, "kiln.host_loop_body")) return false;
      calls = true;
    } else if (y->kind != KILN_OP_SCF_YIELD && !host_index(m, y)) {
      return false;
    }
  }
  return calls;
}

static void check_flow(const char *file, kiln_op *m) {
  kiln_block *body = kiln_module_body(m);
  for (kiln_op *o = body->first; o; o = o->next) {
    if (o->kind == KILN_OP_FUNC_FUNC) {
      kiln_block *b = o->regions[0].first;
      for (kiln_op *x = b ? b->first : NULL; x; x = x->next)
        ck_assert_msg(x->kind == KILN_OP_FLOW_DISPATCH || x->kind == KILN_OP_FLOW_TENSOR_RESHAPE ||
                          x->kind == KILN_OP_ARITH_CONSTANT || x->kind == KILN_OP_FUNC_RETURN ||
                          x->kind == KILN_OP_FLOW_CHECK_DIM_EQ || x->kind == KILN_OP_FLOW_CHECK_RANGE ||
                          host_index(m, x) || host_load(x) || host_loop(m, x) ||
                          strncmp(x->name, "flow.list.", 10) == 0, /* host list ops */
                      "%s: host function @%s holds '%s' after flow", file, kiln_symbol_name(o), x->name);
      /* tensorize-scalars: no scalar in signatures (they are rank-0 tensors)
       * but a host loop body's index arguments (the step number) */
      const kiln_attr *ft = kiln_op_get_attr(o, "function_type");
      const bool loop_body = kiln_op_get_attr(o, "kiln.host_loop_body") != NULL;
      for (uint32_t i = 0; b && ft && i < ft->type->num_inputs + ft->type->num_results; i++) {
        const kiln_type *t = ft->type->types[i];
        if (loop_body && i < ft->type->num_inputs && t->kind == KILN_TYPE_INDEX) continue;
        ck_assert_msg(!kiln_type_is_int_or_index(t) && !kiln_type_is_float(t),
                      "%s: @%s signature type %u is a scalar after flow", file, kiln_symbol_name(o), i);
      }
      kiln_op *ret = b ? kiln_block_terminator(b) : NULL;
      for (uint32_t i = 0; ret && i < ret->num_operands; i++) {
        kiln_value *v = kiln_op_operand(ret, i);
        while (v->def && v->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE) v = kiln_op_operand(v->def, 0);
        /* a list's element is returned as the list's view (ONNX's SequenceAt) */
        if (v->type->kind != KILN_TYPE_TENSOR || (v->def && (host_loop(m, v->def) || v->def->kind == KILN_OP_FLOW_LIST_GET)))
          continue;
        ck_assert_msg(v->def && v->def->kind == KILN_OP_FLOW_DISPATCH,
                      "%s: @%s result %u aliases an argument or constant", file, kiln_symbol_name(o), i);
        for (uint32_t j = 0; j < i; j++) {
          kiln_value *w = kiln_op_operand(ret, j);
          while (w->def && w->def->kind == KILN_OP_FLOW_TENSOR_RESHAPE) w = kiln_op_operand(w->def, 0);
          ck_assert_msg(w != v, "%s: @%s results %u and %u alias", file, kiln_symbol_name(o), j, i);
        }
      }
    } else if (o->kind == KILN_OP_FLOW_EXECUTABLE) {
      kiln_block *eb = o->regions[0].first;
      ck_assert(eb && eb->first && eb->first == eb->last && eb->first->kind == KILN_OP_FUNC_FUNC);
      kiln_op *k = eb->first;
      ck_assert_str_eq(kiln_symbol_name(k), kiln_symbol_name(o));
      kiln_block *kb = k->regions[0].first;
      for (uint32_t a = 0; a < kb->num_args; a++) {
        const kiln_type *t = kb->args[a]->type;
        if (t->kind == KILN_TYPE_INDEX) { /* push constants: after every tensor */
          for (uint32_t b2 = a; b2 < kb->num_args; b2++) ck_assert(kb->args[b2]->type->kind == KILN_TYPE_INDEX);
          break;
        }
        ck_assert(t->kind == KILN_TYPE_OPAQUE);
        bool ro = strncmp(t->body, "dispatch.tensor<readonly:", 25) == 0;
        uint32_t loads = 0, stores = 0;
        for (kiln_use *u = kb->args[a]->uses; u; u = u->next) {
          loads += u->owner->kind == KILN_OP_FLOW_DISPATCH_TENSOR_LOAD;
          stores += u->owner->kind == KILN_OP_FLOW_DISPATCH_TENSOR_STORE;
        }
        if (ro && loads == 0 && stores == 0 && tied_argument(m, kiln_symbol_name(o), a)) continue;
        ck_assert_msg(ro ? (loads == 1 && stores == 0) : (loads == 0 && stores == 1),
                      "%s: kernel @%s argument %u: %u loads, %u stores", file, kiln_symbol_name(k), a, loads,
                      stores);
      }
    }
  }
}

static void check_hal(const char *file, kiln_op *m) {
  kiln_walk_pre(m, no_tensors, (void *)file);
  kiln_block *body = kiln_module_body(m);
  for (kiln_op *o = body->first; o; o = o->next)
    if (o->kind == KILN_OP_FUNC_FUNC && o->regions[0].first) /* declarations stay */
      ck_assert_msg(kiln_op_get_attr(o, "kiln.signature"), "%s: @%s has no kiln.signature", file,
                    kiln_symbol_name(o));
}

static int g_files, g_parsed, g_flow_ok, g_hal_ok;

static void one_file(const char *path) {
  size_t len;
  char *text = slurp(path, &len);
  if (!text) return;
  g_files++;
  kiln_context *ctx = kiln_context_create();
  kiln_context_set_diag_handler(ctx, quiet, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, path, text, len, true, &m);
  if (!e) {
    g_parsed++;
    e = run(ctx, m, "canonicalize");
    if (!e) {
      e = run(ctx, m, "flow");
      if (e) {
        ck_assert_msg(!strstr(kiln_error_message(e), "invalid IR"), "%s: %s", path, kiln_error_message(e));
      } else {
        g_flow_ok++;
        check_flow(path, m);
        e = run(ctx, m, "hal");
        if (e) {
          ck_assert_msg(!strstr(kiln_error_message(e), "invalid IR"), "%s: %s", path, kiln_error_message(e));
        } else {
          g_hal_ok++;
          check_hal(path, m);
        }
      }
    }
  }
  kiln_error_free(e);
  kiln_context_destroy(ctx);
  free(text);
}

static void one_dir(const char *dir) {
  DIR *d = opendir(dir);
  ck_assert_msg(d, "cannot open %s", dir);
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".mlir") != 0) continue;
    names = realloc(names, (n + 1) * sizeof *names);
    names[n] = malloc(l + 1);
    memcpy(names[n++], e->d_name, l + 1);
  }
  closedir(d);
  for (size_t i = 0; i < n; i++) {
    size_t pl = strlen(dir) + strlen(names[i]) + 2;
    char *path = malloc(pl);
    snprintf(path, pl, "%s/%s", dir, names[i]);
    one_file(path);
    free(path);
    free(names[i]);
  }
  free(names);
}

START_TEST(corpus_through_flow_and_hal) {
  static const char *const dirs[] = {"roundtrip", "transforms", "ir", "flow", "hal"};
  for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", KILN_LIT_DIR, dirs[i]);
    one_dir(path);
  }
  fprintf(stderr, "flow/hal corpus: %d files, %d parsed, %d through flow, %d through hal\n", g_files, g_parsed,
          g_flow_ok, g_hal_ok);
  /* the flow and hal lit inputs alone give more than this */
  ck_assert_int_ge(g_flow_ok, 10);
  ck_assert_int_ge(g_hal_ok, 8);
}
END_TEST

/* The stage pipelines compiler/driver/pipeline.def registers name only
 * registered passes. */
START_TEST(pipelines_registered_in_order) {
  kiln_context *ctx = kiln_context_create();
  static const char *const stages[] = {"input", "flow", "hal", "codegen", "vm"};
  for (size_t i = 0; i < sizeof stages / sizeof *stages; i++) {
    kiln_pass_manager *pm = kiln_pm_create(ctx);
    kiln_error *e = kiln_pm_add_pipeline(pm, stages[i]);
    ck_assert_msg(!e, "%s: %s", stages[i], e ? kiln_error_message(e) : "");
    kiln_pm_destroy(pm);
  }
  kiln_context_destroy(ctx);
}
END_TEST

int main(void) {
  kiln_driver_register_passes();
  Suite *s = suite_create("flow");
  TCase *tc = tcase_create("corpus");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, corpus_through_flow_and_hal);
  tcase_add_test(tc, pipelines_registered_in_order);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
