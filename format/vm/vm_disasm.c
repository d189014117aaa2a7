/* Disassembler: takes raw (possibly unverified) bytecode and prints one
 * SQLite-EXPLAIN-style row per instruction: address, mnemonic, operands,
 * and the opcode's one-line semantics with the operands substituted.
 * Decoding goes through kiln_vm_instruction_size, so hostile bytes end the
 * listing with a marker instead of an out-of-bounds read. */
#include "kiln/vm_bytecode.h"

#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

const char *const kiln_vm_opcode_semantics[KILN_VM_OP_COUNT] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) SEMANTICS,
#include "kiln/vm_opcodes.def"
};

typedef struct text {
  char buf[512];
  size_t len;
} text_t;

static void put(text_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(text_t *t, const char *fmt, ...) {
  if (t->len >= sizeof t->buf - 1) return;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t->buf + t->len, sizeof t->buf - t->len, fmt, ap);
  va_end(ap);
  if (n > 0) t->len += (size_t)n;
  if (t->len > sizeof t->buf - 1) t->len = sizeof t->buf - 1;
}

static float f32_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
static double f64_of(uint64_t bits) {
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

/* Formats operand `kind` at *at into t, advancing *at. */
static void operand(text_t *t, char kind, const uint8_t **at,
                    const kiln_vm_disasm_names_t *names) {
  const uint8_t *p = *at;
  const char *name = NULL;
  switch (kind) {
    case 'i': case 'I': case 'f': case 'F': case 'r':
      put(t, "%%%c%u", kind, kiln_vm_rd16(p));
      *at += 2;
      return;
    case 'c':
    case 'm':
      if (names && kind == 'c' && names->function_name)
        name = names->function_name(names->user, kiln_vm_rd16(p));
      if (names && kind == 'm' && names->import_name)
        name = names->import_name(names->user, kiln_vm_rd16(p));
      put(t, "%s#%u", kind == 'c' ? "fn" : "import", kiln_vm_rd16(p));
      if (name) put(t, "<%s>", name);
      *at += 2;
      return;
    case 'k': put(t, "%d", (int32_t)kiln_vm_rd32(p)); *at += 4; return;
    case 'K': put(t, "%lld", (long long)(int64_t)kiln_vm_rd64(p)); *at += 8; return;
    case 'g': put(t, "%g", (double)f32_of(kiln_vm_rd32(p))); *at += 4; return;
    case 'G': put(t, "%g", f64_of(kiln_vm_rd64(p))); *at += 8; return;
    case 'b': put(t, "@%04x", kiln_vm_rd32(p)); *at += 4; return;
    case 'a': {
      const unsigned n = p[0];
      put(t, "(");
      for (unsigned i = 0; i < n; ++i)
        put(t, "%s%u", i ? " " : "", kiln_vm_rd16(p + 1 + 2 * i));
      put(t, ")");
      *at += 1 + 2 * (size_t)n;
      return;
    }
    default:
      put(t, "?");
      return;
  }
}

/* Renders list p (u8 count, u16 entries) against the types in
 * sig[b, e) with banks and spans; false when they do not match (the
 * caller then prints raw entries). */
static bool typed_list(text_t *t, const uint8_t *p, const char *sig, size_t b,
                       size_t e) {
  const unsigned n = p[0];
  unsigned idx = 0;
  bool first = true;
  put(t, "(");
  for (size_t q = b; q < e; ++q) {
    if (sig[q] == 'C') {
      size_t d = q + 1;
      while (d < e && sig[d] != 'D') ++d;
      if (d == e || idx >= n) return false;
      const unsigned count = kiln_vm_rd16(p + 1 + 2 * idx++);
      put(t, "%s[%u:", first ? "" : ", ", count);
      first = false;
      for (unsigned k = 0; k < count; ++k)
        for (size_t u = q + 1; u < d; ++u) {
          if (idx >= n) return false;
          put(t, " %%%c%u", sig[u], kiln_vm_rd16(p + 1 + 2 * idx++));
        }
      put(t, "]");
      q = d;
      continue;
    }
    if (idx >= n) return false;
    put(t, "%s%%%c%u", first ? "" : ", ", sig[q],
        kiln_vm_rd16(p + 1 + 2 * idx++));
    first = false;
  }
  put(t, ")");
  return idx == n;
}

/* Lists of call/ret rendered with the target's signature when known. */
static void typed_lists(text_t *ops, int nops, const uint8_t *insn,
                        const kiln_vm_disasm_signatures_t *sigs) {
  const char *sig = NULL;
  const uint8_t op = insn[0];
  if (!sigs) return;
  if (op == KILN_VM_OP_CALL && sigs->function_signature)
    sig = sigs->function_signature(sigs->user, kiln_vm_rd16(insn + 1));
  else if (op == KILN_VM_OP_CALL_IMPORT && sigs->import_signature)
    sig = sigs->import_signature(sigs->user, kiln_vm_rd16(insn + 1));
  else if (op == KILN_VM_OP_RET)
    sig = sigs->own_signature;
  if (!sig || !kiln_vm_signature_valid(sig)) return;
  const size_t sep = (size_t)(strchr(sig, '_') - sig), end = strlen(sig);
  const uint8_t *lists[2];
  int nl = 0;
  const uint8_t *at = insn + 1;
  char format[KILN_VM_FORMAT_MAX];
  for (const char *f = kiln_vm_opcode_format(op, format); *f; ++f) {
    if (*f == 'a') {
      lists[nl++] = at;
      at += 1 + 2 * (size_t)at[0];
    } else {
      at += 2; /* c, m: u16 */
    }
  }
  const int first = nops - nl;
  for (int i = 0; i < nl; ++i) {
    text_t typed = {{0}, 0};
    const bool results = op == KILN_VM_OP_RET || i == 1;
    if (typed_list(&typed, lists[i], sig, results ? sep + 1 : 0,
                   results ? end : sep))
      ops[first + i] = typed;
  }
}

int kiln_vm_disassemble(FILE *out, const uint8_t *code, size_t size,
                        const kiln_vm_disasm_names_t *names) {
  return kiln_vm_disassemble_ex(out, code, size, names, NULL);
}

int kiln_vm_disassemble_ex(FILE *out, const uint8_t *code, size_t size,
                           const kiln_vm_disasm_names_t *names,
                           const kiln_vm_disasm_signatures_t *signatures) {
  int lines = 0;
  fprintf(out, "  addr  opcode          operands                  comment\n");
  fprintf(out, "  ----  --------------  ------------------------  -------\n");
  for (size_t off = 0; off < size;) {
    const size_t n = kiln_vm_instruction_size(code, size, off);
    if (n == 0) {
      fprintf(out, "  %04zx  <undecodable byte 0x%02x; listing stops>\n", off,
              code[off]);
      return lines + 1;
    }
    char mnemonic_buf[KILN_VM_MNEMONIC_MAX];
    const char *mnemonic = kiln_vm_opcode_mnemonic(code[off], mnemonic_buf);
    text_t ops[8];
    int nops = 0;
    const uint8_t *at = code + off + 1;
    char format[KILN_VM_FORMAT_MAX];
    for (const char *f = kiln_vm_opcode_format(code[off], format); *f && nops < 8; ++f, ++nops) {
      ops[nops].len = 0;
      ops[nops].buf[0] = 0;
      operand(&ops[nops], *f, &at, names);
    }
    typed_lists(ops, nops, code + off, signatures);
    text_t joined = {{0}, 0};
    for (int i = 0; i < nops; ++i) put(&joined, "%s%s", i ? ", " : "", ops[i].buf);
    text_t comment = {{0}, 0};
    for (const char *s = kiln_vm_opcode_semantics[code[off]]; *s; ++s) {
      if (s[0] == '$' && s[1] >= '0' && s[1] <= '9' && s[1] - '0' < nops) {
        put(&comment, "%s", ops[s[1] - '0'].buf);
        ++s;
      } else {
        put(&comment, "%c", *s);
      }
    }
    fprintf(out, "  %04zx  %-14s  %-24s  %s\n", off, mnemonic,
            joined.buf, comment.buf);
    ++lines;
    off += n;
  }
  return lines;
}
