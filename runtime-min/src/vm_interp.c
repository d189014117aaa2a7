/* The VM interpreter: takes a verified module (see kiln_vm_verify_function)
 * and runs one function on a caller-provided stack. Dispatch is generated
 * from kiln/vm_opcodes.def: computed goto under GCC/Clang, a switch
 * elsewhere (or with -DKILN_VM_SWITCH, which the tests also build);
 * arithmetic handlers come straight from the table's expressions. The loop performs no bytecode checks (verification did) and
 * no allocation: frames and registers live on the call's stack, which is
 * sized once per call; only running out of it or a trap ends a call early.
 * Size builds (-Os/-Oz, or -DKILN_VM_COMPACT, which the tests also build)
 * share the arithmetic ops' operand decoding: see KRT_VM_COMPACT below. */
#include <string.h>

#include "runtime_internal.h"

/* Compact dispatch, for builds that trade speed for size: one dispatch
 * site, and the arithmetic ops (binary and unary rows) decode their
 * operands in one place per kind and width, jump to their computation (a
 * second, short table) and share one store per kind and width: one more
 * indirect jump per arithmetic op, about 900 bytes less code on x86-64.
 * Only with computed goto. */
#if (defined(__OPTIMIZE_SIZE__) || defined(KILN_VM_COMPACT)) && \
    (defined(__GNUC__) || defined(__clang__)) && !defined(KILN_VM_SWITCH)
#define KRT_VM_COMPACT 1
#endif
/* Handler offsets: 16 bits where the interpreter is optimized for size
 * and not instrumented (about 4 KB of code there), 32 elsewhere. A label
 * difference that does not fit is truncated silently (gcc, clang and
 * their assemblers say nothing), so every instrumentation that can grow
 * the function past 32 KB keeps 32 bits: clang -Os with UBSan makes it
 * 39 KB; gcc -Os with UBSan (which defines no macro) 18 KB. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) ||  \
    __has_feature(memory_sanitizer) ||                                     \
    __has_feature(undefined_behavior_sanitizer) ||                         \
    __has_feature(coverage_sanitizer)
#define KRT_VM_INSTRUMENTED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define KRT_VM_INSTRUMENTED 1
#endif
#if defined(__OPTIMIZE_SIZE__) && !defined(KRT_VM_INSTRUMENTED)
typedef int16_t krt_label_t;
#else
typedef int32_t krt_label_t;
#endif

#define KRT_VM_MAX_DEPTH 64u

typedef struct frame {
  uint32_t fn;
  uint32_t ref_count;
  const uint8_t *code;    /* start of the function's bytecode */
  const uint8_t *pc;      /* where this frame resumes after a call */
  const uint8_t *results; /* the caller's result list for this frame */
  uint32_t *slots;        /* scalar bank, 32-bit slots */
  krt_ref_t **refs;       /* ref bank */
} frame_t;

/* Typed access to the 32-bit slot bank; 64-bit values span two slots. */
#define KRT_CT_i32 int32_t
#define KRT_CT_i64 int64_t
#define KRT_CT_f32 float
#define KRT_CT_f64 double
#define KRT_ACCESS(T)                                                  \
  static inline KRT_CT_##T ld_##T(const uint32_t *s, unsigned r) {     \
    KRT_CT_##T v;                                                      \
    memcpy(&v, s + r, sizeof v);                                       \
    return v;                                                          \
  }                                                                    \
  static inline void st_##T(uint32_t *s, unsigned r, KRT_CT_##T v) {   \
    memcpy(s + r, &v, sizeof v);                                       \
  }
KRT_ACCESS(i32)
KRT_ACCESS(i64)
KRT_ACCESS(f32)
KRT_ACCESS(f64)

#ifdef KRT_VM_COMPACT
/* A value as the low 32 or all 64 bits of a uint64_t, and back: the
 * compact arithmetic ops carry operands and results in integer registers
 * (one variable each, whatever the type, so they stay in registers). */
#define KRT_BITS(T, W)                                                 \
  static inline KRT_CT_##T from_bits_##T(uint64_t x) {                 \
    const uint##W##_t w = (uint##W##_t)x;                              \
    KRT_CT_##T v;                                                      \
    memcpy(&v, &w, sizeof v);                                          \
    return v;                                                          \
  }                                                                    \
  static inline uint64_t to_bits_##T(KRT_CT_##T v) {                   \
    uint##W##_t w;                                                     \
    memcpy(&w, &v, sizeof w);                                          \
    return w;                                                          \
  }
KRT_BITS(i32, 32)
KRT_BITS(i64, 64)
KRT_BITS(f32, 32)
KRT_BITS(f64, 64)
/* The width class each type decodes and stores with. */
#define KRT_W_i32 32
#define KRT_W_f32 32
#define KRT_W_i64 64
#define KRT_W_f64 64
#define KRT_CAT_(A, B) A##B
#define KRT_CAT(A, B) KRT_CAT_(A, B)
#endif

/* Each opcode's operand format, where the compiler sees its letters: the
 * operand offsets below are sums over them that fold to constants. */
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)      \
  static const char krt_fmt_##NAME[] = FORMAT;             \
  _Static_assert(sizeof krt_fmt_##NAME <= KRT_MAX_OPERANDS + 1, \
                 #NAME ": more operands than KRT_OPERAND_OFFSET sums");
#define KRT_MAX_OPERANDS 6
#include "kiln/vm_opcodes.def"
/* Bytes of operand I of format F when it precedes operand N. */
#define KRT_OPERAND_BYTES(F, I, N)                                      \
  ((I) < (N) && (I) < sizeof(F) - 1                                     \
       ? kiln_vm_operand_size(F[(I) < sizeof(F) - 1 ? (I) : 0]) : 0u)
/* Offset of operand N from the opcode byte: a sum unrolled so that it
 * folds (a loop over the letters would stay a loop). */
#define KRT_OPERAND_OFFSET(F, N)                                              \
  (1u + KRT_OPERAND_BYTES(F, 0, N) + KRT_OPERAND_BYTES(F, 1, N) +             \
   KRT_OPERAND_BYTES(F, 2, N) + KRT_OPERAND_BYTES(F, 3, N) +                  \
   KRT_OPERAND_BYTES(F, 4, N) + KRT_OPERAND_BYTES(F, 5, N))

#ifdef KRT_VM_COMPACT
/* The arithmetic rows (binary, then unary), numbered among themselves;
 * they must be consecutive opcodes (KRT_ARITH_FIRST + index). A binary
 * row is "$0 = $1 op $2", a unary one "$0 = op $1", over scalar
 * registers (u16 each): their operands sit at the fixed offsets below. */
enum {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  KRT_ARITH_##NAME,
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  KRT_ARITH_##NAME,
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
  KRT_ARITH_COUNT
};
enum {
  KRT_ARITH_FIRST = 0
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  + (KRT_ARITH_##NAME == 0 ? KILN_VM_OP_##NAME : 0)
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  + (KRT_ARITH_##NAME == 0 ? KILN_VM_OP_##NAME : 0)
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
};
enum {
  KRT_ARITH_OUT = 1, KRT_ARITH_A = 3, KRT_ARITH_B = 5,
  KRT_UNARY_SIZE = 5, KRT_BINARY_SIZE = 7
};
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  _Static_assert(KILN_VM_OP_##NAME == KRT_ARITH_FIRST + KRT_ARITH_##NAME,      \
                 #NAME ": arithmetic rows must be consecutive");               \
  _Static_assert(sizeof krt_fmt_##NAME == 4,                                   \
                 #NAME ": a binary row's format is three registers");
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  _Static_assert(KILN_VM_OP_##NAME == KRT_ARITH_FIRST + KRT_ARITH_##NAME,      \
                 #NAME ": arithmetic rows must be consecutive");               \
  _Static_assert(sizeof krt_fmt_##NAME == 3,                                   \
                 #NAME ": a unary row's format is two registers");
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
#endif

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* An import argument of signature letter `letter` from register reg. */
static krt_value_t marshal(char letter, unsigned reg, const uint32_t *S,
                           krt_ref_t *const *R) {
  krt_value_t v;
  switch (letter) {
    case 'r': v.ref = R[reg]; break;
    case 'I': v.i64 = ld_i64(S, reg); break;
    case 'F': v.f64 = ld_f64(S, reg); break;
    case 'f': v.f32 = ld_f32(S, reg); break;
    default: v.i32 = ld_i32(S, reg); break;
  }
  return v;
}

static size_t frame_bytes(const kiln_vm_function_info_t *fn) {
  return align16((size_t)fn->scalar_count * 4) +
         align16((size_t)fn->ref_count * sizeof(krt_ref_t *));
}

size_t krt_vm_stack_size(const kiln_module_t *module) {
  size_t data = (size_t)module->max_frame_bytes * 4;
  if (data < 65536) data = 65536;
  return align16(KRT_VM_MAX_DEPTH * sizeof(frame_t)) + data;
}

/* Where in the source function fn's bytecode at pc came from: the file,
 * or NULL when the module does not say. */
#if !defined(KILN_NO_MESSAGES) || defined(KILN_WITH_PROFILE)
static const char *source_at(const kiln_module_t *m, uint32_t fn, uint32_t pc,
                             uint32_t *line, uint32_t *column) {
  kiln_fb_Function_t f = kiln_fb_Module_functions_at(m->view.root, fn);
  const uint32_t n = kiln_fb_Function_locations_count(f);
  int64_t best = -1;
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_SourceLocation_t loc = kiln_fb_Function_locations_at(f, i);
    if (loc.pc <= pc) best = i;
  }
  if (best < 0) return NULL;
  kiln_fb_SourceLocation_t loc =
      kiln_fb_Function_locations_at(f, (uint32_t)best);
  if (loc.file >= kiln_fb_Module_source_files_count(m->view.root)) return NULL;
  *line = loc.line;
  *column = loc.column;
  return kiln_fb_Module_source_files_at(m->view.root, loc.file).data;
}
#endif

#ifdef KILN_WITH_PROFILE
/* The source nodes recorded for the instruction at exactly pc. */
static uint32_t nodes_at(const kiln_module_t *m, uint32_t fn, uint32_t pc,
                         const char **names, const char **kinds) {
  kiln_fb_Function_t f = kiln_fb_Module_functions_at(m->view.root, fn);
  const uint32_t n = kiln_fb_Function_source_nodes_count(f);
  for (uint32_t i = 0; i < n; ++i) {
    kiln_fb_SourceNodes_t sn = kiln_fb_Function_source_nodes_at(f, i);
    if (kiln_fb_SourceNodes_pc(sn) != pc) continue;
    uint32_t count = kiln_fb_SourceNodes_nodes_count(sn);
    if (count > KILN_DISPATCH_MAX_NODES) count = KILN_DISPATCH_MAX_NODES;
    for (uint32_t k = 0; k < count; ++k) {
      kiln_fb_SourceNode_t node = kiln_fb_SourceNodes_nodes_at(sn, k);
      names[k] = kiln_fb_SourceNode_name(node).data;
      kinds[k] = kiln_fb_SourceNode_kind(node).data;
      if (!names[k]) names[k] = "";
      if (!kinds[k]) kinds[k] = "";
    }
    return count;
  }
  return 0;
}

void krt_vm_site(const kiln_module_t *m, const uint8_t *site,
                 kiln_dispatch_event_t *out, const char **names,
                 const char **kinds) {
  out->function = out->source_file = NULL;
  out->bytecode_offset = out->line = out->column = 0;
  out->node_count = 0;
  out->node_names = names;
  out->node_kinds = kinds;
  for (uint32_t fn = 0; fn < m->function_count; ++fn) {
    const kiln_vm_function_info_t *v = &m->vm_functions[fn];
    if (site >= v->code && site < v->code + v->code_size) {
      out->function = m->functions[fn].name;
      out->bytecode_offset = (uint32_t)(site - v->code);
      out->source_file =
          source_at(m, fn, out->bytecode_offset, &out->line, &out->column);
      out->node_count = nodes_at(m, fn, out->bytecode_offset, names, kinds);
      return;
    }
  }
}
#endif

kiln_status_t krt_vm_invoke(krt_call_t *call, uint32_t ordinal,
                            krt_ref_t *const *args, krt_ref_t **results) {
  const kiln_module_t *module = call->module;
  const kiln_vm_function_info_t *fns = module->vm_functions;
  frame_t *frames = (frame_t *)(void *)call->stack;
  uint8_t *sp = call->stack + align16(KRT_VM_MAX_DEPTH * sizeof(frame_t));
  uint8_t *const stack_end = call->stack + call->stack_size;
  uint32_t depth = 0;
  kiln_status_t status = NULL;
  frame_t *f = NULL;
  const uint8_t *pc = NULL;
  uint32_t *S = NULL;
  krt_ref_t **R = NULL;

  /* Pushes a zeroed frame for function `callee` (cold: not per op). */
#define KRT_PUSH(callee)                                                    \
  do {                                                                      \
    const size_t need_ = frame_bytes(&fns[callee]);                         \
    if (depth == KRT_VM_MAX_DEPTH || need_ > (size_t)(stack_end - sp)) {    \
      status = krt_status(call->allocator, KILN_STATUS_RESOURCE_EXHAUSTED,  \
                          "VM stack overflow calling '%s' at depth %u",     \
                          module->functions[callee].name, depth);           \
      goto push_failed;                                                     \
    }                                                                       \
    f = &frames[depth++];                                                   \
    f->fn = (callee);                                                       \
    f->ref_count = fns[callee].ref_count;                                   \
    f->code = fns[callee].code;                                             \
    f->results = NULL;                                                      \
    f->slots = (uint32_t *)(void *)sp;                                      \
    f->refs = (krt_ref_t **)(void *)(sp +                                   \
                                     align16((size_t)fns[callee].scalar_count * 4)); \
    memset(sp, 0, need_);                                                   \
    sp += need_;                                                            \
    S = f->slots;                                                           \
    R = f->refs;                                                            \
    pc = f->code;                                                           \
  } while (0)

  KRT_PUSH(ordinal);
  for (uint32_t i = 0; i < module->functions[ordinal].input_count; ++i) {
    R[i] = args[i];
    krt_ref_retain(args[i]);
  }

  /* Operands by position in the opcode's format (vm_opcodes.def): AT is
   * operand N's address in the instruction at pc, REG a register (u16),
   * IMM32 / IMM64 an immediate, SIZE the instruction's length (fixed
   * operands only). The offsets fold to constants. */
#define AT(NAME, N) (pc + KRT_OPERAND_OFFSET(krt_fmt_##NAME, N))
#define REG(NAME, N) kiln_vm_rd16(AT(NAME, N))
#define IMM32(NAME, N) kiln_vm_rd32(AT(NAME, N))
#define IMM64(NAME, N) kiln_vm_rd64(AT(NAME, N))
#define SIZE(NAME) KRT_OPERAND_OFFSET(krt_fmt_##NAME, sizeof krt_fmt_##NAME - 1)

#if (defined(__GNUC__) || defined(__clang__)) && !defined(KILN_VM_SWITCH)
  /* Each handler's distance from the first (GNU C's label difference):
   * half the size of a table of addresses, and no relocations. */
#ifdef KRT_VM_COMPACT
  static const krt_label_t labels[KILN_VM_OP_COUNT] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) (krt_label_t)(&&op_##NAME - &&op_NOP),
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  (krt_label_t)(KRT_CAT(&&binary_, KRT_W_##IN) - &&op_NOP),
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  (krt_label_t)(KRT_CAT(&&unary_, KRT_W_##IN) - &&op_NOP),
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
  };
  /* The arithmetic ops' computations, by position among their rows. */
  static const krt_label_t arith_labels[KRT_ARITH_COUNT] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  (krt_label_t)(&&op_##NAME - &&op_NOP),
#define KILN_VM_UNARY KILN_VM_BINARY
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY
  };
  /* Operand and result bits of an arithmetic op, set by its decode and
   * its computation (zeroed only because the compiler cannot follow the
   * computed goto). */
  uint64_t xa = 0, xb = 0, xr = 0;
#else
  static const krt_label_t labels[KILN_VM_OP_COUNT] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) (krt_label_t)(&&op_##NAME - &&op_NOP),
#include "kiln/vm_opcodes.def"
  };
#endif
#define CASE(NAME) op_##NAME:
#ifdef KRT_VM_COMPACT
  /* One dispatch site for all handlers. */
#define DISPATCH() goto dispatch
dispatch:
  goto *(&&op_NOP + labels[*pc]);
#else
#define DISPATCH() goto *(&&op_NOP + labels[*pc])
  DISPATCH();
#endif
#define NEXT(n)   \
  do {            \
    pc += (n);    \
    DISPATCH();   \
  } while (0)
#else
#define CASE(NAME) case KILN_VM_OP_##NAME:
#define DISPATCH() continue
/* No do-while here: `continue` must reach the dispatch loop. */
#define NEXT(n)   \
  {               \
    pc += (n);    \
    continue;     \
  }
  for (;;) switch (*pc) {
#endif

  /* ---- generated arithmetic ---- */
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS)
#ifdef KRT_VM_COMPACT
  /* Decode by kind and input width, compute (the op's own code: the
   * second table), store by kind and result width. */
#define KRT_DECODE(W)                                                        \
  binary_##W : xb = (uint64_t)ld_i##W(S, kiln_vm_rd16(pc + KRT_ARITH_B));   \
  unary_##W : xa = (uint64_t)ld_i##W(S, kiln_vm_rd16(pc + KRT_ARITH_A));    \
  goto *(&&op_NOP + arith_labels[*pc - KRT_ARITH_FIRST]);                   \
  store_binary_##W : st_i##W(S, kiln_vm_rd16(pc + KRT_ARITH_OUT), (int##W##_t)xr); \
  NEXT(KRT_BINARY_SIZE);                                                    \
  store_unary_##W : st_i##W(S, kiln_vm_rd16(pc + KRT_ARITH_OUT), (int##W##_t)xr); \
  NEXT(KRT_UNARY_SIZE);
  KRT_DECODE(32)
  KRT_DECODE(64)
#undef KRT_DECODE
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  CASE(NAME) {                                                                   \
    const KRT_CT_##IN a = from_bits_##IN(xa);                                    \
    const KRT_CT_##IN b = from_bits_##IN(xb);                                    \
    if (TRAP_IF) goto arith_trap;                                                \
    xr = to_bits_##OUT((KRT_CT_##OUT)(EXPR));                                    \
    goto KRT_CAT(store_binary_, KRT_W_##OUT);                                    \
  }
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  CASE(NAME) {                                                                  \
    const KRT_CT_##IN a = from_bits_##IN(xa);                                   \
    if (TRAP_IF) goto arith_trap;                                               \
    xr = to_bits_##OUT((KRT_CT_##OUT)(EXPR));                                   \
    goto KRT_CAT(store_unary_, KRT_W_##OUT);                                    \
  }
#else
#define KILN_VM_BINARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  CASE(NAME) {                                                                   \
    const KRT_CT_##IN a = ld_##IN(S, REG(NAME, 1));                              \
    const KRT_CT_##IN b = ld_##IN(S, REG(NAME, 2));                              \
    if (TRAP_IF) goto arith_trap;                                                \
    st_##OUT(S, REG(NAME, 0), (KRT_CT_##OUT)(EXPR));                             \
    NEXT(SIZE(NAME));                                                            \
  }
#define KILN_VM_UNARY(NAME, MNEMONIC, ARITH, OUT, IN, EXPR, TRAP_IF, SEMANTICS) \
  CASE(NAME) {                                                                  \
    const KRT_CT_##IN a = ld_##IN(S, REG(NAME, 1));                             \
    if (TRAP_IF) goto arith_trap;                                               \
    st_##OUT(S, REG(NAME, 0), (KRT_CT_##OUT)(EXPR));                            \
    NEXT(SIZE(NAME));                                                           \
  }
#endif
#include "kiln/vm_opcodes.def"
#undef KILN_VM_BINARY
#undef KILN_VM_UNARY

  /* ---- control ---- */
  CASE(NOP) { NEXT(SIZE(NOP)); }
  /* Backward branches and calls spend the call's step budget, the only
   * ways a program can run long. */
  CASE(BR) {
    const uint8_t *target = f->code + IMM32(BR, 0);
    if (target <= pc && --call->steps_left == 0) goto out_of_steps;
    pc = target;
    DISPATCH();
  }
  CASE(BR_IF) {
    if (ld_i32(S, REG(BR_IF, 0)) != 0) {
      const uint8_t *target = f->code + IMM32(BR_IF, 1);
      if (target <= pc && --call->steps_left == 0) goto out_of_steps;
      pc = target;
    } else {
      pc += SIZE(BR_IF);
    }
    DISPATCH();
  }
  CASE(CALL) {
    if (--call->steps_left == 0) goto out_of_steps;
    const uint32_t callee = REG(CALL, 0);
    const uint8_t *alist = AT(CALL, 1);
    const uint8_t *rlist = alist + 1 + 2 * (size_t)alist[0];
    f->pc = rlist + 1 + 2 * (size_t)rlist[0];
    const uint32_t *caller_slots = S;
    krt_ref_t *const *caller_refs = R;
    KRT_PUSH(callee);
    f->results = rlist;
    /* Arguments fill the callee's banks in order (signature has no spans). */
    unsigned si = 0, ri = 0, k = 0;
    for (const char *t = module->functions[callee].signature; *t != '_';
         ++t, ++k) {
      const unsigned reg = kiln_vm_rd16(alist + 1 + 2 * k);
      if (*t == 'r') {
        R[ri] = caller_refs[reg];
        krt_ref_retain(R[ri++]);
      } else if (*t == 'I' || *t == 'F') {
        S[si++] = caller_slots[reg];
        S[si++] = caller_slots[reg + 1];
      } else {
        S[si++] = caller_slots[reg];
      }
    }
    DISPATCH();
  }
  CASE(RET) {
    const uint8_t *list = AT(RET, 0);
    const char *t = strchr(module->functions[f->fn].signature, '_') + 1;
    if (depth == 1) {
      for (unsigned k = 0; t[k]; ++k) {
        results[k] = R[kiln_vm_rd16(list + 1 + 2 * k)];
        krt_ref_retain(results[k]);
      }
      for (uint32_t i = 0; i < f->ref_count; ++i) krt_ref_release(R[i]);
      return NULL;
    }
    frame_t *caller = &frames[depth - 2];
    for (unsigned k = 0; t[k]; ++k) {
      const unsigned src = kiln_vm_rd16(list + 1 + 2 * k);
      const unsigned dst = kiln_vm_rd16(f->results + 1 + 2 * k);
      if (t[k] == 'r') {
        krt_ref_retain(R[src]);
        krt_ref_release(caller->refs[dst]);
        caller->refs[dst] = R[src];
      } else {
        caller->slots[dst] = S[src];
        if (t[k] == 'I' || t[k] == 'F') caller->slots[dst + 1] = S[src + 1];
      }
    }
    for (uint32_t i = 0; i < f->ref_count; ++i) krt_ref_release(R[i]);
    sp = (uint8_t *)f->slots;
    --depth;
    f = caller;
    S = f->slots;
    R = f->refs;
    pc = f->pc;
    DISPATCH();
  }
  CASE(CALL_IMPORT) {
    const krt_native_fn native = module->imports[REG(CALL_IMPORT, 0)];
    const char *t = module->import_signatures[REG(CALL_IMPORT, 0)];
    const uint8_t *alist = AT(CALL_IMPORT, 1);
    const uint8_t *rlist = alist + 1 + 2 * (size_t)alist[0];
    krt_value_t argv[KILN_VM_MAX_LIST], resv[64];
    unsigned n = 0, k = 0;
    /* Marshal: span counts are literal list entries. */
    for (const char *span = NULL; *t != '_'; ++t) {
      if (*t == 'C') {
        const unsigned count = kiln_vm_rd16(alist + 1 + 2 * k++);
        argv[n++].i32 = (int32_t)count;
        span = t + 1;
        const char *end = strchr(span, 'D');
        for (unsigned c = 0; c < count; ++c) {
          for (const char *u = span; u < end; ++u) {
            const unsigned reg = kiln_vm_rd16(alist + 1 + 2 * k++);
            argv[n++] = marshal(*u, reg, S, R);
          }
        }
        t = end;
        continue;
      }
      const unsigned reg = kiln_vm_rd16(alist + 1 + 2 * k++);
      argv[n++] = marshal(*t, reg, S, R);
    }
#ifdef KILN_WITH_PROFILE
    call->site = pc;
#endif
    status = native(call, argv, n, resv);
    if (status) {
#ifndef KILN_NO_MESSAGES /* the name only feeds the message */
      /* The native's name: its row's text before the signature. */
      const char *name = module->import_signatures[REG(CALL_IMPORT, 0)] - 1;
      while (name > krt_hal_natives && name[-1]) --name;
      status = krt_status_prefix(status, "%s", name);
#endif
      goto fail_at;
    }
    ++t; /* past '_' */
    for (unsigned j = 0; t[j]; ++j) {
      const unsigned reg = kiln_vm_rd16(rlist + 1 + 2 * j);
      switch (t[j]) {
        case 'r':
          krt_ref_release(R[reg]);
          R[reg] = resv[j].ref;
          break;
        case 'I': st_i64(S, reg, resv[j].i64); break;
        case 'F': st_f64(S, reg, resv[j].f64); break;
        case 'f': st_f32(S, reg, resv[j].f32); break;
        default: st_i32(S, reg, resv[j].i32); break;
      }
    }
    pc = rlist + 1 + 2 * (size_t)rlist[0];
    DISPATCH();
  }
  CASE(TRAP) {
    status = krt_status(call->allocator, KILN_STATUS_ABORTED,
                        "trap with code %d",
                        (int32_t)IMM32(TRAP, 0));
    goto fail_at;
  }

  /* ---- moves and constants ---- */
  CASE(CONST_I32) { st_i32(S, REG(CONST_I32, 0), (int32_t)IMM32(CONST_I32, 1)); NEXT(SIZE(CONST_I32)); }
  CASE(CONST_I64) { st_i64(S, REG(CONST_I64, 0), (int64_t)IMM64(CONST_I64, 1)); NEXT(SIZE(CONST_I64)); }
  CASE(CONST_F32) { memcpy(S + REG(CONST_F32, 0), AT(CONST_F32, 1), 4); NEXT(SIZE(CONST_F32)); }
  CASE(CONST_F64) { memcpy(S + REG(CONST_F64, 0), AT(CONST_F64, 1), 8); NEXT(SIZE(CONST_F64)); }
  CASE(MOV_I32) { S[REG(MOV_I32, 0)] = S[REG(MOV_I32, 1)]; NEXT(SIZE(MOV_I32)); }
  CASE(MOV_I64) {
    st_i64(S, REG(MOV_I64, 0), ld_i64(S, REG(MOV_I64, 1)));
    NEXT(SIZE(MOV_I64));
  }
  CASE(MOV_REF) {
    krt_ref_t *src = R[REG(MOV_REF, 1)];
    krt_ref_retain(src);
    krt_ref_release(R[REG(MOV_REF, 0)]);
    R[REG(MOV_REF, 0)] = src;
    NEXT(SIZE(MOV_REF));
  }
  CASE(CLEAR_REF) {
    krt_ref_release(R[REG(CLEAR_REF, 0)]);
    R[REG(CLEAR_REF, 0)] = NULL;
    NEXT(SIZE(CLEAR_REF));
  }
  CASE(SELECT_I32) {
    const int32_t c = ld_i32(S, REG(SELECT_I32, 1));
    st_i32(S, REG(SELECT_I32, 0), ld_i32(S, c ? REG(SELECT_I32, 2) : REG(SELECT_I32, 3)));
    NEXT(SIZE(SELECT_I32));
  }
  CASE(SELECT_I64) {
    const int32_t c = ld_i32(S, REG(SELECT_I64, 1));
    st_i64(S, REG(SELECT_I64, 0), ld_i64(S, c ? REG(SELECT_I64, 2) : REG(SELECT_I64, 3)));
    NEXT(SIZE(SELECT_I64));
  }
#if !((defined(__GNUC__) || defined(__clang__)) && !defined(KILN_VM_SWITCH))
  }
#endif

out_of_steps:
  status = krt_status(call->allocator, KILN_STATUS_RESOURCE_EXHAUSTED,
                      "the call exceeded its budget of backward branches and "
                      "calls (max_steps)");
  goto fail_at;
push_failed:
  if (!f) goto fail; /* the entry frame itself did not fit */
  goto fail_at;
arith_trap: {
  char mnemonic[KILN_VM_MNEMONIC_MAX];
  status = krt_status(call->allocator, KILN_STATUS_ABORTED,
                      "arithmetic trap in %s (division by zero, overflow or "
                      "out-of-range conversion)",
                      kiln_vm_opcode_mnemonic(*pc, mnemonic));
}
fail_at : {
#ifndef KILN_NO_MESSAGES /* the source location only feeds the message */
  char where[256] = "";
  uint32_t line, column;
  const uint32_t off = (uint32_t)(pc - f->code);
  const char *file = source_at(module, f->fn, off, &line, &column);
  if (file) snprintf(where, sizeof where, " (%s:%u:%u)", file, line, column);
  /* the model node it came from, where the runtime keeps the profile's
   * node table (the smallest build, without it, names the location) */
  const char *node = NULL;
#ifdef KILN_WITH_PROFILE
  const char *names[KILN_DISPATCH_MAX_NODES], *kinds[KILN_DISPATCH_MAX_NODES];
  if (nodes_at(module, f->fn, off, names, kinds)) node = names[0];
#endif
  status = krt_status_prefix(status, "in function '%s' at bytecode 0x%04x%s%s%s%s",
                             module->functions[f->fn].name, off, where,
                             node ? ", node '" : "", node ? node : "", node ? "'" : "");
#endif
}
fail:
  /* Unwind: drop every live frame's refs. */
  for (uint32_t d = 0; d < depth; ++d)
    for (uint32_t i = 0; i < frames[d].ref_count; ++i)
      krt_ref_release(frames[d].refs[i]);
  return status;
#undef KRT_PUSH
#undef CASE
#undef DISPATCH
#undef NEXT
#undef AT
#undef REG
#undef IMM32
#undef IMM64
#undef SIZE
}
