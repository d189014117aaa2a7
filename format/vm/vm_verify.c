/* Load-time bytecode verifier: takes one function's code plus the module's
 * function and import signatures, and either proves the properties listed
 * in kiln/vm_bytecode.h or names the first instruction that breaks them.
 * Two passes: decode every instruction (marking starts in a bitmap), then
 * check branch targets against the bitmap. Never reads outside the code. */
#include "kiln/vm_bytecode.h"
#include "kiln/message.h"

#include <stdarg.h>
#include <string.h>

typedef struct verifier {
  const kiln_vm_module_info_t *module;
  const kiln_vm_function_info_t *fn;
  kiln_vm_diag_t *diag;
  uint32_t offset; /* instruction being checked */
} verifier_t;

#ifdef KILN_NO_MESSAGES
/* No opcode names either: the mnemonic table stays out of the binary; no
 * text (kiln_vm_verify_function wrote the fixed one on entry). */
static int fail_none(verifier_t *v) {
  v->diag->offset = v->offset;
  return 1;
}
#define fail(v, ...) (KILN_MESSAGE_DROP(__VA_ARGS__), fail_none(v))
#else
static int fail(verifier_t *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
KILN_MESSAGE_VARIADIC
static int fail(verifier_t *v, const char *fmt, ...) {
  v->diag->offset = v->offset;
  char detail[160];
  va_list ap;
  va_start(ap, fmt);
  kiln_message_vformat(detail, sizeof detail, 0, fmt, ap);
  va_end(ap);
  const uint8_t op = v->offset < v->fn->code_size ? v->fn->code[v->offset] : 0;
  char mnemonic[KILN_VM_MNEMONIC_MAX];
  const char *name =
      op < KILN_VM_OP_COUNT ? kiln_vm_opcode_mnemonic(op, mnemonic) : "?";
  snprintf(v->diag->message, sizeof v->diag->message, "at 0x%04x (%s): %s",
           v->offset, name, detail);
  return 1;
}
#endif

/* A failure before any instruction: no offset or opcode to name. Through
 * the shared formatter, so its format is stored with the catalog's words
 * and a KILN_MESSAGES=OFF build keeps only the code (1). */
#define diag_fail(d, ...) \
  KILN_MESSAGE((d)->message, sizeof (d)->message, 1, __VA_ARGS__)

static int check_reg(verifier_t *v, char kind, uint32_t reg) {
  if (kind == 'r') {
    if (reg >= v->fn->ref_count)
      return fail(v, "ref register %%r%u out of range (function has %u)",
                  reg, v->fn->ref_count);
  } else if (reg + (kind == 'I' || kind == 'F') >= v->fn->scalar_count) {
    return fail(v, "register %%%c%u out of range (function has %u scalar "
                "slots; 64-bit values take two)",
                kind, reg, v->fn->scalar_count);
  }
  return 0;
}

/* Matches list entries against the types in sig[begin, end), expanding
 * 'C'...'D' spans whose count is the next literal entry. */
static int check_list(verifier_t *v, const char *what, const char *sig,
                      size_t begin, size_t end, const uint8_t *list) {
  const uint32_t n = list[0];
  uint32_t idx = 0;
  for (size_t p = begin; p < end; ++p) {
    if (sig[p] == 'C') {
      size_t q = p + 1;
      while (sig[q] != 'D') ++q; /* signature already validated */
      if (idx >= n)
        return fail(v, "%s: list ends before the span count of \"%s\"", what,
                    sig);
      const uint32_t count = kiln_vm_rd16(list + 1 + 2 * idx++);
      for (uint32_t k = 0; k < count; ++k) {
        for (size_t t = p + 1; t < q; ++t) {
          if (idx >= n)
            return fail(v, "%s: %u entries, too few for span of %u in \"%s\"",
                        what, n, count, sig);
          if (check_reg(v, sig[t], kiln_vm_rd16(list + 1 + 2 * idx++)))
            return 1;
        }
      }
      p = q;
      continue;
    }
    if (idx >= n)
      return fail(v, "%s: %u entries, signature \"%s\" needs more", what, n,
                  sig);
    if (check_reg(v, sig[p], kiln_vm_rd16(list + 1 + 2 * idx++))) return 1;
  }
  if (idx != n)
    return fail(v, "%s: %u entries, signature \"%s\" needs %u", what, n, sig,
                idx);
  return 0;
}

static size_t sig_split(const char *sig) {
  return (size_t)(strchr(sig, '_') - sig);
}

/* Checks a call's argument and result lists against callee signature. */
static int check_call(verifier_t *v, const char *sig, const uint8_t *args,
                      const uint8_t *results) {
  const size_t sep = sig_split(sig);
  if (check_list(v, "arguments", sig, 0, sep, args)) return 1;
  return check_list(v, "results", sig, sep + 1, strlen(sig), results);
}

static int check_instruction(verifier_t *v, const uint8_t *p) {
  const kiln_vm_module_info_t *m = v->module;
  const uint8_t op = p[0];
  const uint8_t *lists[2] = {NULL, NULL};
  int nlists = 0;
  uint32_t callee = 0;
  const uint8_t *at = p + 1;
  char format[KILN_VM_FORMAT_MAX];
  for (const char *f = kiln_vm_opcode_format(op, format); *f; ++f) {
    switch (*f) {
      case 'i': case 'I': case 'f': case 'F': case 'r':
        if (check_reg(v, *f, kiln_vm_rd16(at))) return 1;
        at += 2;
        break;
      case 'c':
        callee = kiln_vm_rd16(at);
        if (callee >= m->function_count)
          return fail(v, "%s %u out of range (module has %u)",
                      "function ordinal", callee, m->function_count);
        at += 2;
        break;
      case 'm':
        callee = kiln_vm_rd16(at);
        if (callee >= m->import_count)
          return fail(v, "%s %u out of range (module has %u)",
                      "import ordinal", callee, m->import_count);
        at += 2;
        break;
      case 'k': case 'g': case 'b': at += 4; break;
      case 'K': case 'G': at += 8; break;
      case 'a':
        lists[nlists++] = at;
        at += 1 + 2 * (size_t)at[0];
        break;
      default:
        return fail(v, "opcode table has unknown operand kind '%c'", *f);
    }
  }
  switch (op) {
    case KILN_VM_OP_CALL: {
      const char *sig = m->functions[callee].signature;
      if (strchr(sig, 'C'))
        return fail(v, "function %u has a variadic signature \"%s\"", callee,
                    sig);
      return check_call(v, sig, lists[0], lists[1]);
    }
    case KILN_VM_OP_CALL_IMPORT:
      return check_call(v, m->import_signatures[callee], lists[0], lists[1]);
    case KILN_VM_OP_RET: {
      const char *sig = v->fn->signature;
      return check_list(v, "returned values", sig, sig_split(sig) + 1,
                        strlen(sig), lists[0]);
    }
    default:
      return 0;
  }
}

int kiln_vm_verify_function(const kiln_vm_module_info_t *module,
                            uint32_t index, uint8_t *scratch,
                            kiln_vm_diag_t *diag) {
  memset(diag, 0, sizeof *diag);
  KILN_MESSAGE_ENTRY(diag->message, sizeof diag->message);
  diag->function = index;
  if (index >= module->function_count)
    return diag_fail(diag, "function ordinal %u out of range", index);
  const kiln_vm_function_info_t *fn = &module->functions[index];
  verifier_t v = {module, fn, diag, 0};
  if (!kiln_vm_signature_valid(fn->signature) || strchr(fn->signature, 'C'))
    return diag_fail(diag, "malformed function signature");
  if (fn->scalar_count > KILN_VM_MAX_REGISTERS ||
      fn->ref_count > KILN_VM_MAX_REGISTERS)
    return diag_fail(diag,
                     "register counts %u scalar / %u ref exceed the limit %u",
                     fn->scalar_count, fn->ref_count, KILN_VM_MAX_REGISTERS);
  if (fn->code_size == 0)
    return diag_fail(diag, "empty function body");
  memset(scratch, 0, kiln_vm_verify_scratch_size(fn->code_size));
  uint8_t last = KILN_VM_OP_NOP;
  for (size_t off = 0; off < fn->code_size;) {
    v.offset = (uint32_t)off;
    const size_t n = kiln_vm_instruction_size(fn->code, fn->code_size, off);
    if (n == 0) {
      if (fn->code[off] >= KILN_VM_OP_COUNT)
        return fail(&v, "unknown opcode 0x%02x", fn->code[off]);
      return fail(&v, "operands run past the end of the function (%u bytes)",
                  fn->code_size);
    }
    scratch[off / 8] |= (uint8_t)(1u << (off % 8));
    if (check_instruction(&v, fn->code + off)) return 1;
    last = fn->code[off];
    off += n;
  }
  if (last != KILN_VM_OP_BR && last != KILN_VM_OP_RET &&
      last != KILN_VM_OP_TRAP)
    return fail(&v, "function does not end in br, ret or trap");
  /* Pass 2: every branch target is an instruction start. */
  for (size_t off = 0; off < fn->code_size;) {
    const uint8_t *p = fn->code + off;
    v.offset = (uint32_t)off;
    const size_t n = kiln_vm_instruction_size(fn->code, fn->code_size, off);
    const uint8_t *at = p + 1;
    char format[KILN_VM_FORMAT_MAX];
    for (const char *f = kiln_vm_opcode_format(p[0], format); *f; ++f) {
      if (*f == 'b') {
        const uint32_t t = kiln_vm_rd32(at);
        if (t >= fn->code_size || !(scratch[t / 8] & (1u << (t % 8))))
          return fail(&v, "branch target 0x%04x is not an instruction start",
                      t);
      }
      const size_t w = (*f == 'a') ? 1 + 2 * (size_t)at[0]
                       : (*f == 'k' || *f == 'g' || *f == 'b') ? 4
                       : (*f == 'K' || *f == 'G')             ? 8
                                                              : 2;
      at += w;
    }
    off += n;
  }
  return 0;
}
