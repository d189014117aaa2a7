/* Unit tests of the vm stage: allocate-registers checked by simulation on
 * random straight-line programs (every operand must still sit in the
 * register its value was given; refs are cleared once, after their last
 * use, never before), the emitted bytecode against format/vm's verifier,
 * bank overflow and malformed host code reported as errors. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/vm_bytecode.h"
#include "mlir_input.h"
#include "vm_stage.h"

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

static void quiet(void *user, const char *text) {
  (void)text;
  ++*(int *)user;
}

typedef struct prog {
  kiln_context *ctx;
  kiln_op *module, *fn;
  kiln_builder b;
  const kiln_type *types[5]; /* i32 i64 f32 f64 ref */
  kiln_value *vals[4096];
  uint32_t nvals;
} prog;

static kiln_value *pick(prog *p, const kiln_type *t) {
  uint32_t start = p->nvals ? rnd(p->nvals) : 0;
  for (uint32_t k = 0; k < p->nvals; k++) {
    kiln_value *v = p->vals[(start + k) % p->nvals];
    if (v->type == t) return v;
  }
  return NULL;
}

static kiln_op *call(prog *p, const char *callee, const char *sig, uint32_t n,
                     kiln_value **args, const kiln_type *res) {
  kiln_named_attr na[2] = {
      {kiln_intern_cstr(p->ctx, "callee"), kiln_attr_string(p->ctx, callee, strlen(callee))},
      {kiln_intern_cstr(p->ctx, "signature"), kiln_attr_string(p->ctx, sig, strlen(sig))}};
  return kiln_build(&p->b, KILN_OP_VM_CALL_IMPORT, n, args, res ? 1 : 0, res ? &res : NULL,
                    kiln_attr_dict(p->ctx, 2, na));
}

/* A random vm.func: args (r, i64, i32), then `len` ops drawn from
 * constants, arithmetic of every bank width, ref producers and consumers,
 * then vm.ret of a few live values. */
static void build(prog *p, uint32_t len) {
  memset(p, 0, sizeof *p);
  p->ctx = kiln_context_create();
  kiln_context_set_diag_handler(p->ctx, quiet, &(int){0});
  p->types[0] = kiln_type_int(p->ctx, 32);
  p->types[1] = kiln_type_int(p->ctx, 64);
  p->types[2] = kiln_type_f32(p->ctx);
  p->types[3] = kiln_type_f64(p->ctx);
  p->types[4] = kiln_type_opaque(p->ctx, "hal", "command_buffer");
  p->module = kiln_module_create(p->ctx, (kiln_loc){0});
  const kiln_type *ins[3] = {p->types[4], p->types[1], p->types[0]};
  const kiln_type *outs[3] = {p->types[1], p->types[4], p->types[2]};
  const kiln_type *ft = kiln_type_function(p->ctx, 3, ins, 3, outs);
  kiln_named_attr fa[3] = {
      {kiln_intern_cstr(p->ctx, "sym_name"), kiln_attr_string(p->ctx, "f", 1)},
      {kiln_intern_cstr(p->ctx, "function_type"), kiln_attr_type(p->ctx, ft)},
      {kiln_intern_cstr(p->ctx, "kiln.signature"), kiln_attr_type(p->ctx, ft)}};
  p->fn = kiln_op_create(p->ctx, KILN_OP_VM_FUNC, (kiln_loc){0}, 0, NULL, 0, NULL,
                         kiln_attr_dict(p->ctx, 3, fa), 1);
  kiln_block_append_op(kiln_module_body(p->module), p->fn);
  kiln_block *body = kiln_op_entry_block(p->ctx, p->fn, 0);
  for (int i = 0; i < 3; i++)
    p->vals[p->nvals++] = kiln_block_add_arg(p->ctx, body, ins[i], (kiln_loc){0});
  p->b = kiln_builder_at_end(p->ctx, body);
  static const kiln_op_kind add[4] = {KILN_OP_VM_ADD_I32, KILN_OP_VM_ADD_I64,
                                      KILN_OP_VM_ADD_F32, KILN_OP_VM_ADD_F64};
  static const kiln_op_kind cst[4] = {KILN_OP_VM_CONST_I32, KILN_OP_VM_CONST_I64,
                                      KILN_OP_VM_CONST_F32, KILN_OP_VM_CONST_F64};
  for (uint32_t i = 0; i < len && p->nvals < 4000; i++) {
    const uint32_t k = rnd(8), t = rnd(4);
    kiln_op *op = NULL;
    if (k < 2) {
      const kiln_attr *v = t < 2 ? kiln_attr_int(p->ctx, p->types[t], (int64_t)rnd(1000))
                                 : kiln_attr_float(p->ctx, p->types[t], rnd(1000) * 0.5);
      kiln_named_attr na = {kiln_intern_cstr(p->ctx, "value"), v};
      op = kiln_build(&p->b, cst[t], 0, NULL, 1, &p->types[t], kiln_attr_dict(p->ctx, 1, &na));
    } else if (k < 5) {
      kiln_value *a[2] = {pick(p, p->types[t]), pick(p, p->types[t])};
      if (!a[0] || !a[1]) continue;
      op = kiln_build(&p->b, add[t], 2, a, 1, &p->types[t], NULL);
    } else if (k == 5) {
      kiln_value *a = pick(p, p->types[1]);
      if (!a) continue;
      op = kiln_build(&p->b, KILN_OP_VM_TRUNC_I64_I32, 1, &a, 1, &p->types[0], NULL);
    } else if (k == 6) {
      op = call(p, "hal.command_buffer.create", "_r", 0, NULL, p->types[4]);
    } else {
      kiln_value *a = pick(p, p->types[4]);
      if (!a) continue;
      call(p, "hal.command_buffer.execute", "r_", 1, &a, NULL);
      continue;
    }
    p->vals[p->nvals++] = kiln_op_result(op, 0);
  }
  kiln_value *ret[3] = {pick(p, p->types[1]), pick(p, p->types[4]), pick(p, p->types[2])};
  if (!ret[2]) {
    kiln_named_attr na = {kiln_intern_cstr(p->ctx, "value"), kiln_attr_float(p->ctx, p->types[2], 1.5)};
    ret[2] = kiln_op_result(kiln_build(&p->b, KILN_OP_VM_CONST_F32, 0, NULL, 1, &p->types[2],
                                       kiln_attr_dict(p->ctx, 1, &na)), 0);
  }
  kiln_build(&p->b, KILN_OP_VM_RET, 3, ret, 0, NULL, NULL);
}

static int reg_of(kiln_op *fn, kiln_value *v) {
  const kiln_attr *a = v->def ? kiln_op_get_attr(v->def, "regs") : kiln_op_get_attr(fn, "arg_regs");
  ck_assert_ptr_nonnull(a);
  ck_assert_uint_lt(v->index, a->count);
  return (int)((const int64_t *)a->data)[v->index];
}

/* Simulates the register file: owner[bank][reg] is the value last
 * written there. Every read must find its own value; a cleared ref must
 * never be read again; refs not returned must be cleared. */
static void check_allocation(prog *p) {
  static kiln_value *owner[2][KILN_VM_MAX_REGISTERS + 2];
  memset(owner, 0, sizeof owner);
  kiln_block *b = p->fn->regions[0].first;
  const kiln_attr *sc = kiln_op_get_attr(p->fn, "scalar_count");
  const kiln_attr *rc = kiln_op_get_attr(p->fn, "ref_count");
  ck_assert_ptr_nonnull(sc);
  ck_assert_ptr_nonnull(rc);
  /* Arguments in bank order: refs from r0, scalars from slot 0. */
  uint32_t next_s = 0, next_r = 0;
  for (uint32_t i = 0; i < b->num_args; i++) {
    kiln_value *v = b->args[i];
    const int r = reg_of(p->fn, v);
    const bool ref = v->type->kind == KILN_TYPE_OPAQUE;
    ck_assert_int_eq(r, (int)(ref ? next_r : next_s));
    if (ref) next_r += 1;
    else next_s += kiln_type_bitwidth(v->type) > 32 ? 2 : 1;
    owner[ref][r] = v;
    if (!ref && kiln_type_bitwidth(v->type) > 32) owner[0][r + 1] = v;
  }
  kiln_value *cleared[4096];
  uint32_t ncleared = 0;
  for (kiln_op *op = b->first; op; op = op->next) {
    for (uint32_t i = 0; i < op->num_operands; i++) {
      kiln_value *v = kiln_op_operand(op, i);
      const bool ref = v->type->kind == KILN_TYPE_OPAQUE;
      const int r = reg_of(p->fn, v);
      ck_assert_msg(owner[ref][r] == v, "operand %u of %s: register %d was overwritten", i,
                    op->name, r);
      if (!ref && kiln_type_bitwidth(v->type) > 32)
        ck_assert_msg(owner[0][r + 1] == v, "high slot of %%%d overwritten", r);
      for (uint32_t c = 0; c < ncleared; c++)
        ck_assert_msg(cleared[c] != v, "%s reads a ref after its clear.ref", op->name);
    }
    if (op->kind == KILN_OP_VM_CLEAR_REF) {
      kiln_value *v = kiln_op_operand(op, 0);
      for (kiln_op *later = op->next; later; later = later->next)
        for (uint32_t i = 0; i < later->num_operands; i++)
          ck_assert_msg(kiln_op_operand(later, i) != v, "ref used after vm.clear.ref");
      cleared[ncleared++] = v;
    }
    for (uint32_t i = 0; i < op->num_results; i++) {
      kiln_value *v = kiln_op_result(op, i);
      const bool ref = v->type->kind == KILN_TYPE_OPAQUE;
      const int r = reg_of(p->fn, v);
      const uint32_t w = !ref && kiln_type_bitwidth(v->type) > 32 ? 2 : 1;
      ck_assert_int_lt(r + (int)w - 1, (int)(ref ? rc->i : sc->i));
      /* A result never lands on one of its own operands' registers. */
      for (uint32_t k = 0; k < op->num_operands; k++) {
        kiln_value *o = kiln_op_operand(op, k);
        if ((o->type->kind == KILN_TYPE_OPAQUE) != ref) continue;
        const int ro = reg_of(p->fn, o);
        const uint32_t wo = !ref && kiln_type_bitwidth(o->type) > 32 ? 2 : 1;
        ck_assert_msg(r + (int)w <= ro || ro + (int)wo <= r, "result overlaps an operand");
      }
      owner[ref][r] = v;
      if (w == 2) owner[0][r + 1] = v;
    }
  }
  /* Every ref is cleared or returned, exactly once. */
  kiln_op *ret = b->last;
  ck_assert_int_eq(ret->kind, KILN_OP_VM_RET);
  for (uint32_t i = 0; i < p->nvals; i++) {
    kiln_value *v = p->vals[i];
    if (v->type->kind != KILN_TYPE_OPAQUE) continue;
    uint32_t clears = 0;
    bool returned = false;
    for (kiln_use *u = v->uses; u; u = u->next) {
      clears += u->owner->kind == KILN_OP_VM_CLEAR_REF;
      returned = returned || u->owner == ret;
    }
    ck_assert_uint_eq(clears, returned ? 0 : 1);
  }
}

static const char *const test_import_sigs[] = {"_r", "r_"};

static void verify_bytecode(prog *p) {
  kiln_vm_imports_t im;
  memset(&im, 0, sizeof im);
  kiln_vm_function_code_t code;
  kiln_error *e = kiln_vm_emit_function(p->fn, &im, &code);
  ck_assert_msg(!e, "%s", e ? kiln_error_message(e) : "");
  const char *sigs[2];
  for (uint32_t i = 0; i < im.count; i++) {
    ck_assert_uint_lt(i, 2);
    sigs[i] = im.signatures[i];
    ck_assert(strcmp(sigs[i], test_import_sigs[0]) == 0 || strcmp(sigs[i], test_import_sigs[1]) == 0);
  }
  ck_assert_str_eq(code.signature, "rIi_Irf");
  kiln_vm_function_info_t fi = {code.code, code.size, code.scalar_count, code.ref_count,
                                code.signature};
  kiln_vm_module_info_t mi = {&fi, 1, sigs, im.count};
  uint8_t *scratch = calloc(1, kiln_vm_verify_scratch_size(code.size) + 1);
  kiln_vm_diag_t diag;
  const int bad = kiln_vm_verify_function(&mi, 0, scratch, &diag);
  ck_assert_msg(!bad, "verifier: %s", diag.message);
  free(scratch);
  kiln_vm_function_code_free(&code);
  kiln_vm_imports_free(&im);
}

START_TEST(random_programs_allocate_correctly) {
  for (uint32_t seed = 1; seed <= 200; seed++) {
    rng_state = seed;
    prog p;
    build(&p, 10 + rnd(300));
    ck_assert(kiln_verify(p.module));
    kiln_error *e = kiln_pass_allocate_registers(p.module, NULL);
    ck_assert_msg(!e, "seed %u: %s", seed, e ? kiln_error_message(e) : "");
    ck_assert(kiln_verify(p.module));
    check_allocation(&p);
    verify_bytecode(&p);
    kiln_context_destroy(p.ctx);
  }
}
END_TEST

/* More live 64-bit values than the scalar bank holds: an error naming the
 * op, no crash. */
START_TEST(bank_overflow_is_an_error) {
  rng_state = 7;
  prog p;
  build(&p, 0);
  kiln_block *body = p.fn->regions[0].first;
  kiln_op *ret = body->last;
  p.b = kiln_builder_before(ret);
  kiln_value *acc = NULL;
  kiln_value **live = calloc(2100, sizeof *live);
  for (int i = 0; i < 2100; i++) {
    kiln_named_attr na = {kiln_intern_cstr(p.ctx, "value"), kiln_attr_int(p.ctx, p.types[1], i)};
    live[i] = kiln_op_result(kiln_build(&p.b, KILN_OP_VM_CONST_I64, 0, NULL, 1, &p.types[1],
                                        kiln_attr_dict(p.ctx, 1, &na)), 0);
  }
  acc = live[0];
  for (int i = 1; i < 2100; i++) {
    kiln_value *a[2] = {acc, live[i]};
    acc = kiln_op_result(kiln_build(&p.b, KILN_OP_VM_ADD_I64, 2, a, 1, &p.types[1], NULL), 0);
  }
  kiln_op_set_operand(ret, 0, acc);
  int diags = 0;
  kiln_context_set_diag_handler(p.ctx, quiet, &diags);
  kiln_error *e = kiln_pass_allocate_registers(p.module, NULL);
  ck_assert_ptr_nonnull(e);
  /* The returned error names the op and the bank, and kiln_op_error also
   * records it once as the context's diagnostic (issue 25's contract). */
  ck_assert_msg(strstr(kiln_error_message(e), "op more than 4096 live registers in one bank"), "%s",
                kiln_error_message(e));
  ck_assert_int_eq(diags, 1);
  kiln_error_free(e);
  free(live);
  kiln_context_destroy(p.ctx);
}
END_TEST

static char diag_text[2048];
static void capture(void *user, const char *text) {
  (void)user;
  strncat(diag_text, text, sizeof diag_text - strlen(diag_text) - 1);
}

static kiln_error *convert_text(const char *src, kiln_context **out_ctx) {
  kiln_context *ctx = kiln_context_create();
  diag_text[0] = 0;
  kiln_context_set_diag_handler(ctx, capture, NULL);
  kiln_op *m = NULL;
  kiln_error *e = kiln_mlir_load_buffer(ctx, "t.mlir", src, strlen(src), true, &m);
  if (!e) e = kiln_pass_convert_to_vm(m, NULL);
  *out_ctx = ctx;
  return e;
}

START_TEST(convert_names_unlowerable_ops) {
  kiln_context *ctx;
  kiln_error *e = convert_text(
      "func.func @f(%a: !hal.buffer_view) -> !hal.buffer_view {\n"
      "  %b = \"hal.buffer_view.buffer\"(%a) : (!hal.buffer_view) -> !hal.buffer\n"
      "  %v = \"hal.buffer_view.create\"(%b) {offset = 0 : i64, element_type = f32, shape = array<i64: 4>} : (!hal.buffer) -> !hal.buffer_view\n"
      "  return %v : !hal.buffer_view\n"
      "}\n", &ctx);
  /* No assert on input 0: its tensor type is unknown. */
  ck_assert_ptr_nonnull(e);
  /* The returned error says it, located at the function, and the same
   * message is recorded once as a diagnostic. */
  ck_assert_msg(strstr(kiln_error_message(e), "t.mlir:1:1: 'func.func' op cannot tell the tensor type of input 0 of @f"),
                "%s", kiln_error_message(e));
  ck_assert_msg(strstr(diag_text, "t.mlir:1:1: error: 'func.func' op cannot tell the tensor type of input 0 of @f"),
                "%s", diag_text);
  kiln_error_free(e);
  kiln_context_destroy(ctx);

  e = convert_text(
      "\"hal.executable\"() ({}) {sym_name = \"x\"} : () -> ()\n"
      "func.func @g(%a: !hal.buffer_view) {\n"
      "  \"hal.buffer_view.assert\"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()\n"
      "  %b = \"hal.buffer_view.buffer\"(%a) : (!hal.buffer_view) -> !hal.buffer\n"
      "  %cb = \"hal.command_buffer.create\"() : () -> !hal.command_buffer\n"
      "  \"hal.command_buffer.dispatch\"(%cb, %b) {executable = @nope, ordinal = 0 : i32, workgroup_count = array<i64: 1, 1, 1>, offsets = array<i64: 0>, lengths = array<i64: 16>} : (!hal.command_buffer, !hal.buffer) -> ()\n"
      "  return\n"
      "}\n", &ctx);
  ck_assert_ptr_nonnull(e);
  ck_assert_msg(strstr(kiln_error_message(e),
                       "t.mlir:6:3: 'hal.command_buffer.dispatch' op no hal.executable named @nope"),
                "%s", kiln_error_message(e));
  ck_assert_msg(strstr(diag_text, "t.mlir:6:3: error: 'hal.command_buffer.dispatch' op no hal.executable named @nope"),
                "%s", diag_text);
  kiln_error_free(e);
  kiln_context_destroy(ctx);
}
END_TEST

START_TEST(signature_strings) {
  kiln_context *ctx = kiln_context_create();
  const kiln_type *ref = kiln_type_opaque(ctx, "hal", "buffer_view");
  const kiln_type *ins[3] = {ref, kiln_type_int(ctx, 64), kiln_type_f32(ctx)};
  const kiln_type *outs[2] = {kiln_type_f64(ctx), kiln_type_int(ctx, 32)};
  char buf[72];
  ck_assert_ptr_null(kiln_vm_signature_of(kiln_type_function(ctx, 3, ins, 2, outs), buf, sizeof buf));
  ck_assert_str_eq(buf, "rIf_Fi");
  ck_assert_ptr_null(kiln_vm_signature_of(kiln_type_function(ctx, 0, NULL, 0, NULL), buf, sizeof buf));
  ck_assert_str_eq(buf, "_");
  const kiln_type *bad[1] = {kiln_type_int(ctx, 16)};
  kiln_error *e = kiln_vm_signature_of(kiln_type_function(ctx, 1, bad, 0, NULL), buf, sizeof buf);
  ck_assert_ptr_nonnull(e);
  ck_assert(strstr(kiln_error_message(e), "'i16' has no VM register"));
  kiln_error_free(e);
  ck_assert_int_eq(kiln_vm_element_type(kiln_type_f32(ctx)), kiln_fb_ElementType_F32);
  ck_assert_int_eq(kiln_vm_element_type(kiln_type_index(ctx)), kiln_fb_ElementType_I64);
  ck_assert_int_eq(kiln_vm_element_type(kiln_type_int_sign(ctx, 8, KILN_UNSIGNED)), kiln_fb_ElementType_U8);
  ck_assert_int_eq(kiln_vm_element_type(kiln_type_int(ctx, 7)), kiln_fb_ElementType_Unknown);
  kiln_context_destroy(ctx);
}
END_TEST

int main(void) {
  Suite *s = suite_create("vm_stage");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, random_programs_allocate_correctly);
  tcase_add_test(t, bank_overflow_is_an_error);
  tcase_add_test(t, convert_names_unlowerable_ops);
  tcase_add_test(t, signature_strings);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  const int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}
