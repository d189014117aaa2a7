/* The VM: the load-time verifier's verdicts on hostile bytecode (each
 * rejection names the instruction and the problem), interpreter semantics
 * of arithmetic, comparisons, conversions, branches, calls and traps
 * observed through scalar modules (every arithmetic opcode against its
 * row's expression), and the disassembler. */
#include <check.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "rt_testkit.h"

#define LIST(...) \
  (int)(sizeof((int[]){__VA_ARGS__}) / sizeof(int)), (const int[]){__VA_ARGS__}
#define NONE 0, (const int *)NULL

/* ---- verifier ---------------------------------------------------------- */

/* Verifies `code` as function 0 (signature sig, 8 scalar slots, 2 refs)
 * next to function 1 ("I_i") and imports "I_r" and "riiiiiCiDCrIID_";
 * returns the message ("" when valid). */
static const char *verify(const uint8_t *code, size_t size, const char *sig) {
  static kiln_vm_diag_t diag;
  static const uint8_t ret_code[] = {KILN_VM_OP_TRAP, 0, 0, 0, 0};
  kiln_vm_function_info_t fns[2] = {
      {code, (uint32_t)size, 8, 2, sig},
      {ret_code, sizeof ret_code, 8, 0, "I_i"}};
  const char *imports[2] = {"I_r", "riiiiiCiDCrIID_"};
  kiln_vm_module_info_t m = {fns, 2, imports, 2};
  uint8_t scratch[64];
  if (kiln_vm_verify_function(&m, 0, scratch, &diag) == 0) return "";
  return diag.message;
}

static const char *verify_asm(kiln_vm_asm_t *a, const char *sig) {
  ck_assert_int_eq(kiln_vm_asm_finish(a), 0);
  return verify(a->code, a->size, sig);
}

#define EXPECT_VERDICT(msg, want) \
  ck_assert_msg(strstr((msg), (want)) != NULL, "'%s' not in '%s'", want, msg)

START_TEST(verifier_accepts_valid_code) {
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  const uint32_t top = kiln_vm_asm_label(&a);
  kiln_vm_asm_bind(&a, top);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)5);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL, 1, LIST(0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(0), LIST(1));
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 1,
                   LIST(0, 2, 2, 2, 2, 2, 2, 2, 3, 1, 1, 0, 6), NONE);
  kiln_vm_asm_emit(&a, KILN_VM_OP_BR_IF, 2, (int)top);
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(1));
  ck_assert_str_eq(verify_asm(&a, "r_r"), "");
  kiln_vm_asm_free(&a);
}
END_TEST

/* One rejected snippet per row: code bytes and the expected verdict. */
static const struct {
  const char *name;
  uint8_t code[24];
  size_t size;
  const char *want;
} bad_code[] = {
    {"empty", {0}, 0, "empty function body"},
    {"unknown opcode", {0xee}, 1, "unknown opcode 0xee"},
    {"truncated operand", {KILN_VM_OP_CONST_I32, 0, 0, 1}, 4,
     "operands run past the end"},
    {"scalar register out of range", {KILN_VM_OP_CONST_I32, 8, 0, 1, 0, 0, 0,
     KILN_VM_OP_TRAP, 0, 0, 0, 0}, 12, "register %i8 out of range"},
    {"64-bit register straddles the end", {KILN_VM_OP_CONST_I64, 7, 0,
     1, 0, 0, 0, 0, 0, 0, 0, KILN_VM_OP_TRAP, 0, 0, 0, 0}, 16,
     "register %I7 out of range"},
    {"ref register out of range", {KILN_VM_OP_CLEAR_REF, 2, 0,
     KILN_VM_OP_TRAP, 0, 0, 0, 0}, 8, "ref register %r2 out of range"},
    {"falls off the end", {KILN_VM_OP_NOP}, 1, "does not end in br, ret or trap"},
    {"branch out of range", {KILN_VM_OP_BR, 100, 0, 0, 0}, 5,
     "branch target 0x0064"},
    {"branch into an instruction", {KILN_VM_OP_NOP, KILN_VM_OP_BR, 2, 0, 0, 0},
     6, "branch target 0x0002 is not an instruction start"},
    {"function ordinal", {KILN_VM_OP_CALL, 9, 0, 0, 0, KILN_VM_OP_TRAP, 0, 0,
     0, 0}, 10, "function ordinal 9 out of range"},
    {"import ordinal", {KILN_VM_OP_CALL_IMPORT, 5, 0, 0, 0, KILN_VM_OP_TRAP, 0,
     0, 0, 0}, 10, "import ordinal 5 out of range"},
    {"call arity", {KILN_VM_OP_CALL, 1, 0, 0, 0, KILN_VM_OP_TRAP, 0, 0, 0, 0},
     10, "arguments: 0 entries, signature \"I_i\" needs more"},
    {"import result bank", {KILN_VM_OP_CALL_IMPORT, 0, 0, 1, 0, 0, 1, 9, 0,
     KILN_VM_OP_TRAP, 0, 0, 0, 0}, 14, "ref register %r9 out of range"},
    {"span too short", {KILN_VM_OP_CALL_IMPORT, 1, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0,
     0, 0, 0, 0, 5, 0, 0, KILN_VM_OP_TRAP, 0, 0, 0, 0}, 24,
     "too few for span of 5"},
    {"ret arity", {KILN_VM_OP_RET, 0}, 2, "returned values: 0 entries"},
};

START_TEST(verifier_rejects_bad_code) {
  const char *msg = verify(bad_code[_i].code, bad_code[_i].size, "r_r");
  ck_assert_msg(strstr(msg, bad_code[_i].want) != NULL,
                "%s: '%s' not in '%s'", bad_code[_i].name, bad_code[_i].want,
                msg);
  ck_assert_msg(bad_code[_i].size == 0 || strncmp(msg, "at 0x", 5) == 0,
                "%s: message does not name the offset: %s", bad_code[_i].name,
                msg);
}
END_TEST

START_TEST(verifier_survives_every_byte_string) {
  /* All 1- and 2-byte programs, and every truncation of a valid one:
   * the verifier must answer (and answer "valid" only for terminated
   * code), never read past the end. */
  uint8_t code[2];
  for (int x = 0; x < 256; ++x) {
    code[0] = (uint8_t)x;
    verify(code, 1, "r_r");
    for (int y = 0; y < 256; ++y) {
      code[1] = (uint8_t)y;
      const char *msg = verify(code, 2, "r_r");
      if (!msg[0]) ck_assert(x == KILN_VM_OP_NOP || x == KILN_VM_OP_RET);
    }
  }
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_I64, 0, (int64_t)5);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL, 1, LIST(0), LIST(2));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(1));
  ck_assert_int_eq(kiln_vm_asm_finish(&a), 0);
  for (size_t n = 0; n < a.size; ++n) {
    uint8_t *copy = malloc(n ? n : 1); /* exact size: ASan sees overreads */
    memcpy(copy, a.code, n);
    ck_assert_str_ne(verify(copy, n, "r_r"), "");
    free(copy);
  }
  ck_assert_str_eq(verify(a.code, a.size, "r_r"), "");
  kiln_vm_asm_free(&a);
}
END_TEST

START_TEST(signature_strings) {
  ck_assert(kiln_vm_signature_valid("rr_r"));
  ck_assert(kiln_vm_signature_valid("_"));
  ck_assert(kiln_vm_signature_valid("riiiiiCiDCrIID_"));
  ck_assert(!kiln_vm_signature_valid(""));
  ck_assert(!kiln_vm_signature_valid("rr"));
  ck_assert(!kiln_vm_signature_valid("r_r_"));
  ck_assert(!kiln_vm_signature_valid("CD_"));
  ck_assert(!kiln_vm_signature_valid("Ci_"));
  ck_assert(!kiln_vm_signature_valid("_Ci"));
  ck_assert(!kiln_vm_signature_valid("x_"));
}
END_TEST

/* ---- interpreter semantics --------------------------------------------- */

typedef struct prog {
  int kind;
} prog_t;

/* Each body leaves its answer (>= 0) in slots 0:1. */
static void body_arith(kiln_vm_asm_t *a, void *u) {
  (void)u;
  /* ((7 * 6) - 2) << 3 = 320, + (-17 / 5 = -3) + (-17 % 5 = -2) = 315 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 2, 7);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 3, 6);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_I32, 4, 2, 3);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 5, 2);
  kiln_vm_asm_emit(a, KILN_VM_OP_SUB_I32, 4, 4, 5);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 6, 3);
  kiln_vm_asm_emit(a, KILN_VM_OP_SHL_I32, 4, 4, 6);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 7, -17);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 8, 5);
  kiln_vm_asm_emit(a, KILN_VM_OP_DIVS_I32, 9, 7, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_REMS_I32, 10, 7, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I32, 4, 4, 9);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I32, 4, 4, 10);
  kiln_vm_asm_emit(a, KILN_VM_OP_EXTS_I32_I64, 0, 4);
}

static void body_i64_shapes(kiln_vm_asm_t *a, void *u) {
  (void)u;
  /* ceildiv(1000, 64) = 16; align(1000, 64) = 1024; 16 * 1024 = 16384;
   * (1 << 40) >> 30 (logical) = 1024; total 17408 */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)1000);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 4, (int64_t)64);
  kiln_vm_asm_emit(a, KILN_VM_OP_CEILDIV_I64, 6, 2, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_ALIGN_I64, 8, 2, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_I64, 10, 6, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 12, (int64_t)1);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 14, (int64_t)40);
  kiln_vm_asm_emit(a, KILN_VM_OP_SHL_I64, 16, 12, 14);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 14, (int64_t)30);
  kiln_vm_asm_emit(a, KILN_VM_OP_SHRU_I64, 16, 16, 14);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I64, 0, 10, 16);
}

static void body_float(kiln_vm_asm_t *a, void *u) {
  (void)u;
  /* (1.5f * 4 - 0.25) / 0.5 = 11.5 -> f64 * 2 = 23 -> i64 = 23; then
   * select(lt.f32(1.5, 4), 23, 0) */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 2, 1.5);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 3, 4.0);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_F32, 4, 2, 3);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 5, 0.25);
  kiln_vm_asm_emit(a, KILN_VM_OP_SUB_F32, 4, 4, 5);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 5, 0.5);
  kiln_vm_asm_emit(a, KILN_VM_OP_DIV_F32, 4, 4, 5);
  kiln_vm_asm_emit(a, KILN_VM_OP_FPEXT_F32_F64, 6, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F64, 8, 2.0);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_F64, 6, 6, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_FPTOSI_F64_I64, 10, 6);
  kiln_vm_asm_emit(a, KILN_VM_OP_LT_F32, 12, 2, 3);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 14, (int64_t)0);
  kiln_vm_asm_emit(a, KILN_VM_OP_SELECT_I64, 0, 12, 10, 14);
}

static void body_loop(kiln_vm_asm_t *a, void *u) {
  (void)u;
  /* sum of 1..100 with a backward branch = 5050 */
  const uint32_t top = kiln_vm_asm_label(a);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 0, (int64_t)0);   /* sum */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)1);   /* i */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 4, (int64_t)100); /* limit */
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 6, (int64_t)1);
  kiln_vm_asm_bind(a, top);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I64, 0, 0, 2);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I64, 2, 2, 6);
  kiln_vm_asm_emit(a, KILN_VM_OP_LES_I64, 8, 2, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_BR_IF, 8, (int)top);
}

/* g(I n, f x) -> (I, i): n * 3, (i32)x; f calls it and adds. */
static void body_call(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)14);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 4, 9.75);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL, 1, LIST(2, 4), LIST(6, 8));
  kiln_vm_asm_emit(a, KILN_VM_OP_EXTS_I32_I64, 10, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_ADD_I64, 0, 6, 10); /* 42 + 9 = 51 */
}
static void helper_call(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 4, (int64_t)3);
  kiln_vm_asm_emit(a, KILN_VM_OP_MUL_I64, 6, 0, 4);
  kiln_vm_asm_emit(a, KILN_VM_OP_FPTOSI_F32_I32, 8, 2);
  kiln_vm_asm_emit(a, KILN_VM_OP_RET, LIST(6, 8));
}

static void body_div_zero(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)1);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 4, (int64_t)0);
  kiln_vm_asm_emit(a, KILN_VM_OP_DIVS_I64, 0, 2, 4);
}

static void body_int_min_div(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 2, INT32_MIN);
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, 3, -1);
  kiln_vm_asm_emit(a, KILN_VM_OP_REMS_I32, 4, 2, 3);
}

static void body_bad_convert(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, 2, 3e9);
  kiln_vm_asm_emit(a, KILN_VM_OP_FPTOSI_F32_I32, 3, 2);
}

static void body_trap(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_TRAP, 77);
}

/* f calls g, which calls itself forever. */
static void body_recurse(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL, 1, NONE, NONE);
}
static void helper_recurse(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL, 1, NONE, NONE);
  kiln_vm_asm_emit(a, KILN_VM_OP_RET, NONE);
}

static void body_forever(kiln_vm_asm_t *a, void *u) {
  (void)u;
  const uint32_t top = kiln_vm_asm_label(a);
  kiln_vm_asm_bind(a, top);
  kiln_vm_asm_emit(a, KILN_VM_OP_BR, (int)top);
}

static void body_huge_buffer(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 2, (int64_t)1 << 40);
  kiln_vm_asm_emit(a, KILN_VM_OP_CALL_IMPORT, 0, LIST(2), LIST(2));
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 0, (int64_t)0);
}

/* A negative dim: the epilogue's view creation fails in the HAL native. */
static void body_negative(kiln_vm_asm_t *a, void *u) {
  (void)u;
  kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, 0, (int64_t)-5);
}

static const struct {
  const char *name;
  rt_body_fn body, helper;
  const char *helper_sig;
  int64_t want;        /* when error is NULL */
  const char *error;   /* expected message part */
} programs[] = {
    {"i32 arithmetic", body_arith, NULL, NULL, 315, NULL},
    {"i64 shape arithmetic", body_i64_shapes, NULL, NULL, 17408, NULL},
    {"floats and select", body_float, NULL, NULL, 23, NULL},
    {"loop", body_loop, NULL, NULL, 5050, NULL},
    {"call with scalars", body_call, helper_call, "If_Ii", 51, NULL},
    {"division by zero", body_div_zero, NULL, NULL, 0,
     "arithmetic trap in div.s.i64"},
    {"INT_MIN % -1", body_int_min_div, NULL, NULL, 0,
     "arithmetic trap in rem.s.i32"},
    {"out-of-range conversion", body_bad_convert, NULL, NULL, 0,
     "arithmetic trap in fptosi.f32.i32"},
    {"trap", body_trap, NULL, NULL, 0, "trap with code 77"},
    {"runaway recursion", body_recurse, helper_recurse, "_", 0,
     "VM stack overflow calling 'g' at depth 64"},
    {"endless loop", body_forever, NULL, NULL, 0,
     "exceeded its budget of backward branches and calls"},
    {"huge buffer", body_huge_buffer, NULL, NULL, 0,
     "hal.buffer.allocate: a 1099511627776-byte buffer exceeds the device's "
     "limit of 268435456"},
    {"native rejects a negative dim", body_negative, NULL, NULL, 0,
     "hal.buffer_view.create: shape has a negative dimension"},
};

START_TEST(interpreter_semantics) {
  size_t size;
  uint8_t *m = rt_scalar_module(programs[_i].body, NULL, programs[_i].helper,
                                programs[_i].helper_sig, &size);
  ck_assert_ptr_nonnull(m);
  int64_t got = -1;
  kiln_status_t s = rt_run_scalar(m, size, &got);
  if (programs[_i].error) {
    ck_assert_msg(s && strstr(kiln_status_message(s), programs[_i].error),
                  "%s: expected '%s', got '%s'", programs[_i].name,
                  programs[_i].error, s ? kiln_status_message(s) : "success");
    ck_assert_msg(strstr(kiln_status_message(s), "in function '"),
                  "no location in '%s'", kiln_status_message(s));
  } else {
    ck_assert_msg(!s, "%s: %s", programs[_i].name, kiln_status_message(s));
    ck_assert_msg(got == programs[_i].want, "%s: got %lld, want %lld",
                  programs[_i].name, (long long)got,
                  (long long)programs[_i].want);
  }
  kiln_status_free(s);
  free(m);
}
END_TEST

/* ---- every arithmetic opcode ------------------------------------------- */

/* Each binary and unary row of vm_opcodes.def run through the interpreter
 * on a set of operands per type, against the row's own expression
 * evaluated here in C: catches a handler that reads the wrong operand or
 * width or stores the wrong way (size builds decode arithmetic operands in
 * shared code, test_runtime_vm_compact), and checks every trap. */
#define T_i32 int32_t
#define T_i64 int64_t
#define T_f32 float
#define T_f64 double
/* An operand or result, in the member its type names. */
typedef union value {
  T_i32 i32;
  T_i64 i64;
  T_f32 f32;
  T_f64 f64;
} value_t;

/* Returns 1 when the row traps on these operands, else 0 with *r. */
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  static int eval_##NAME(value_t xa, value_t xb, value_t *r) {                  \
    const T_##IN a = xa.IN, b = xb.IN;                                           \
    (void)a;                                                                     \
    (void)b;                                                                     \
    if (TRAP_IF) return 1;                                                       \
    r->OUT = (T_##OUT)(EXPR);                                                    \
    return 0;                                                                    \
  }
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  static int eval_##NAME(value_t xa, value_t xb, value_t *r) {                 \
    const T_##IN a = xa.IN;                                                     \
    (void)a;                                                                    \
    (void)xb;                                                                   \
    if (TRAP_IF) return 1;                                                      \
    r->OUT = (T_##OUT)(EXPR);                                                   \
    return 0;                                                                   \
  }
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY

enum { TY_i32, TY_i64, TY_f32, TY_f64 };
static const struct {
  kiln_vm_opcode_t op;
  const char *mnemonic;
  int binary, in, out;
  int (*eval)(value_t, value_t, value_t *);
} arith_rows[] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_VM_OP_##NAME, MNEMONIC, 1, TY_##IN, TY_##OUT, eval_##NAME},
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  {KILN_VM_OP_##NAME, MNEMONIC, 0, TY_##IN, TY_##OUT, eval_##NAME},
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
};

/* Operands per type: signs, zero, the extremes that trap division and
 * conversion, shift counts past the width. */
#define NVALUES 7
static value_t operand(int type, int k) {
  static const int32_t v32[NVALUES] = {0, 1, -1, -17, 5, 33, INT32_MIN};
  static const int64_t v64[NVALUES] = {0,  1, -1, -17, 64, 65,
                                       INT64_MIN};
  static const float f32[NVALUES] = {1.5f, -2.25f, 0.5f, 4.0f, -7.0f, 3e9f,
                                     -0.75f};
  static const double f64[NVALUES] = {1.5, -2.25, 0.5, 2.0, -7.0, 1e19,
                                      1099511627776.0};
  value_t v;
  switch (type) {
    case TY_i32: v.i32 = v32[k]; break;
    case TY_i64: v.i64 = v64[k]; break;
    case TY_f32: v.f32 = f32[k]; break;
    default: v.f64 = f64[k]; break;
  }
  return v;
}

static void emit_const(kiln_vm_asm_t *a, int type, int reg, value_t v) {
  switch (type) {
    case TY_i32: kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I32, reg, v.i32); break;
    case TY_i64: kiln_vm_asm_emit(a, KILN_VM_OP_CONST_I64, reg, v.i64); break;
    case TY_f32: kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F32, reg, (double)v.f32); break;
    default: kiln_vm_asm_emit(a, KILN_VM_OP_CONST_F64, reg, v.f64); break;
  }
}

typedef struct arith_case {
  int row;
  value_t a, b, want;
} arith_case_t;

/* $6 = op($2, $4); slots 0:1 = ($6 == want) */
static void body_arith_case(kiln_vm_asm_t *a, void *u) {
  const arith_case_t *c = u;
  const int in = arith_rows[c->row].in, out = arith_rows[c->row].out;
  emit_const(a, in, 2, c->a);
  emit_const(a, in, 4, c->b);
  if (arith_rows[c->row].binary)
    kiln_vm_asm_emit(a, arith_rows[c->row].op, 6, 2, 4);
  else
    kiln_vm_asm_emit(a, arith_rows[c->row].op, 6, 2);
  emit_const(a, out, 8, c->want);
  static const kiln_vm_opcode_t eq[] = {KILN_VM_OP_EQ_I32, KILN_VM_OP_EQ_I64,
                                        KILN_VM_OP_EQ_F32, KILN_VM_OP_EQ_F64};
  kiln_vm_asm_emit(a, eq[out], 10, 6, 8);
  kiln_vm_asm_emit(a, KILN_VM_OP_EXTU_I32_I64, 0, 10);
}

START_TEST(interpreter_every_arith_op) {
  const int nb = arith_rows[_i].binary ? NVALUES : 1;
  int ran = 0;
  for (int i = 0; i < NVALUES; ++i) {
    for (int j = 0; j < nb; ++j) {
      arith_case_t c = {_i, operand(arith_rows[_i].in, i),
                        operand(arith_rows[_i].in, j), {0}};
      const int trap = arith_rows[_i].eval(c.a, c.b, &c.want);
      /* A NaN result never compares equal: nothing to check. */
      if (!trap &&
          ((arith_rows[_i].out == TY_f32 && c.want.f32 != c.want.f32) ||
           (arith_rows[_i].out == TY_f64 && c.want.f64 != c.want.f64)))
        continue;
      size_t size;
      uint8_t *m = rt_scalar_module(body_arith_case, &c, NULL, NULL, &size);
      ck_assert_ptr_nonnull(m);
      int64_t got = -1;
      kiln_status_t s = rt_run_scalar(m, size, &got);
      if (trap) {
        char want[64];
        snprintf(want, sizeof want, "arithmetic trap in %s",
                 arith_rows[_i].mnemonic);
        ck_assert_msg(s && strstr(kiln_status_message(s), want),
                      "%s operands %d, %d: expected '%s', got '%s'",
                      arith_rows[_i].mnemonic, i, j, want,
                      s ? kiln_status_message(s) : "success");
      } else {
        ck_assert_msg(!s && got == 1, "%s operands %d, %d: %s",
                      arith_rows[_i].mnemonic, i, j,
                      s ? kiln_status_message(s) : "wrong result");
      }
      kiln_status_free(s);
      free(m);
      ++ran;
    }
  }
  ck_assert_int_gt(ran, 0);
}
END_TEST

/* ---- disassembler -------------------------------------------------------- */

static const char *import_sig(void *u, uint32_t i) {
  (void)u;
  return i == 0 ? "rIiCID_r" : NULL;
}
static const char *import_name(void *u, uint32_t i) {
  (void)u;
  return i == 0 ? "hal.buffer_view.create" : NULL;
}

START_TEST(disassembler_listing) {
  kiln_vm_asm_t a;
  kiln_vm_asm_init(&a);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CONST_F32, 0, 2.5);
  kiln_vm_asm_emit(&a, KILN_VM_OP_MUL_F32, 2, 0, 1);
  kiln_vm_asm_emit(&a, KILN_VM_OP_CALL_IMPORT, 0, LIST(0), LIST(1));
  kiln_vm_asm_emit(&a, KILN_VM_OP_RET, LIST(1));
  ck_assert_int_eq(kiln_vm_asm_finish(&a), 0);
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  const int lines = kiln_vm_disassemble(f, a.code, a.size, NULL);
  /* Garbage after the code ends the listing with a marker. */
  const uint8_t junk[] = {KILN_VM_OP_NOP, 0xfe, 1, 2};
  kiln_vm_disassemble(f, junk, sizeof junk, NULL);
  fclose(f);
  ck_assert_int_eq(lines, 4);
  ck_assert_msg(strstr(text, "0000  const.f32       %f0, 2.5"), "%s", text);
  ck_assert_msg(strstr(text, "mul.f32         %f2, %f0, %f1"), "%s", text);
  ck_assert_msg(strstr(text, "%f2 = %f0 * %f1"), "%s", text);
  ck_assert_msg(strstr(text, "call.import     import#0, (0), (1)"), "%s", text);
  ck_assert_msg(strstr(text, "(1) = import#0(0)"), "%s", text);
  ck_assert_msg(strstr(text, "undecodable byte 0xfe"), "%s", text);
  free(text);
  /* With signatures, lists show banks and spans. */
  kiln_vm_asm_t b;
  kiln_vm_asm_init(&b);
  kiln_vm_asm_emit(&b, KILN_VM_OP_CALL_IMPORT, 0, LIST(1, 2, 3, 2, 4, 6), LIST(0));
  kiln_vm_asm_emit(&b, KILN_VM_OP_RET, LIST(0));
  ck_assert_int_eq(kiln_vm_asm_finish(&b), 0);
  const kiln_vm_disasm_signatures_t sigs = {NULL, NULL, import_sig, "_r"};
  const kiln_vm_disasm_names_t names = {NULL, NULL, import_name};
  f = open_memstream(&text, &len);
  kiln_vm_disassemble_ex(f, b.code, b.size, &names, &sigs);
  fclose(f);
  ck_assert_msg(strstr(text, "(%r0) = import#0<hal.buffer_view.create>"
                             "(%r1, %I2, %i3, [2: %I4 %I6])"), "%s", text);
  ck_assert_msg(strstr(text, "return (%r0)"), "%s", text);
  free(text);
  kiln_vm_asm_free(&b);
  kiln_vm_asm_free(&a);
}
END_TEST

/* The build codes the opcode tables (format/vm/CMakeLists.txt): every
 * opcode's mnemonic and operand format must expand to its vm_opcodes.def
 * spelling, in buffers no larger than the API's, and past the last
 * opcode the mnemonic is empty. */
START_TEST(opcode_tables_expand_to_the_def) {
  static const char *const want[][2] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) {MNEMONIC, FORMAT},
#include "kiln/vm_opcodes.def"
  };
  ck_assert_int_eq((int)(sizeof want / sizeof *want), KILN_VM_OP_COUNT);
  for (unsigned op = 0; op <= KILN_VM_OP_COUNT; ++op) {
    char buf[KILN_VM_MNEMONIC_MAX], format[KILN_VM_FORMAT_MAX];
    memset(buf, 0x55, sizeof buf);
    const char *got = kiln_vm_opcode_mnemonic(op, buf);
    ck_assert_ptr_eq(got, buf);
    ck_assert_str_eq(got, op < KILN_VM_OP_COUNT ? want[op][0] : "");
    if (op == KILN_VM_OP_COUNT) break;
    memset(format, 0x55, sizeof format);
    got = kiln_vm_opcode_format(op, format);
    ck_assert_ptr_eq(got, format);
    ck_assert_msg(strcmp(got, want[op][1]) == 0, "%s: format '%s', want '%s'",
                  want[op][0], got, want[op][1]);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_vm");
  TCase *tc = tcase_create("vm");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, verifier_accepts_valid_code);
  tcase_add_loop_test(tc, verifier_rejects_bad_code, 0,
                      (int)(sizeof bad_code / sizeof bad_code[0]));
  tcase_add_test(tc, verifier_survives_every_byte_string);
  tcase_add_test(tc, signature_strings);
  tcase_add_loop_test(tc, interpreter_semantics, 0,
                      (int)(sizeof programs / sizeof programs[0]));
  tcase_add_loop_test(tc, interpreter_every_arith_op, 0,
                      (int)(sizeof arith_rows / sizeof arith_rows[0]));
  tcase_add_test(tc, disassembler_listing);
  tcase_add_test(tc, opcode_tables_expand_to_the_def);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
