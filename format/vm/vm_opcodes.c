/* Opcode metadata generated from kiln/vm_opcodes.def, instruction sizing
 * that is safe on arbitrary bytes, and signature-string validation. These
 * are what the verifier, the disassembler and the assembler share. */
#include "kiln/vm_bytecode.h"

#include <stddef.h>
#include <string.h>

/* Every opcode's operand format in a fixed 5-byte row (at most four
 * operands and the NUL): 435 bytes, less than the packed strings plus a
 * table of their offsets, and found by one multiply. */
#define KILN_VM_FORMAT_ROW 5
static const char opcode_formats[KILN_VM_OP_COUNT][KILN_VM_FORMAT_ROW] = {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) FORMAT,
#include "kiln/vm_opcodes.def"
};
/* A longer format would not fit its row (and gcc would drop its NUL). */
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) \
  _Static_assert(sizeof FORMAT <= KILN_VM_FORMAT_ROW, #NAME ": format too long");
#include "kiln/vm_opcodes.def"

/* Mnemonics live apart from the formats the runtime decodes with, so a
 * runtime that prints none (KILN_MESSAGES=OFF) links none. Only messages
 * and disassembly name opcodes, so a walk over the NUL-separated list
 * replaces a second offset table. The build writes the list coded
 * (format/vm/CMakeLists.txt): byte N in 1-6 stands for the N-th part
 * below with its dot, 289 of the list's 800 bytes. */
#include "vm_opcode_mnemonics.inc"
_Static_assert(KILN_VM_MNEMONIC_ROWS == KILN_VM_OP_COUNT,
               "a vm_opcodes.def row without its coded mnemonic");
static const char mnemonic_parts[][4] = {"i32", "i64", "f32", "f64", "s", "u"};

const char *kiln_vm_opcode_mnemonic(unsigned op,
                                    char buf[KILN_VM_MNEMONIC_MAX]) {
  const char *m = opcode_mnemonics;
  for (unsigned i = 0; i < op && i < KILN_VM_OP_COUNT; ++i) m += strlen(m) + 1;
  /* The build refuses a mnemonic of KILN_VM_MNEMONIC_MAX bytes or more. */
  char *out = buf;
  for (; *m; ++m) {
    const unsigned part = (unsigned char)*m - 1u;
    if (part < sizeof mnemonic_parts / sizeof *mnemonic_parts) {
      *out++ = '.';
      for (const char *p = mnemonic_parts[part]; *p; ++p) *out++ = *p;
    } else {
      *out++ = *m;
    }
  }
  *out = 0;
  return buf;
}

const char *kiln_vm_opcode_format(unsigned op) { return opcode_formats[op]; }

size_t kiln_vm_instruction_size(const uint8_t *code, size_t size,
                                size_t offset) {
  if (offset >= size || code[offset] >= KILN_VM_OP_COUNT) return 0;
  size_t at = offset + 1;
  for (const char *f = kiln_vm_opcode_format(code[offset]); *f; ++f) {
    size_t n = kiln_vm_operand_size(*f);
    if (*f == 'a') {
      if (at >= size) return 0;
      n = 1 + 2 * (size_t)code[at];
    }
    if (n > size - at) return 0;
    at += n;
  }
  return at - offset;
}

int kiln_vm_signature_valid(const char *sig) {
  if (!sig) return 0;
  size_t len = strlen(sig);
  if (len == 0 || len > 64) return 0;
  int in_results = 0, in_span = 0, span_len = 0, seen_sep = 0;
  for (size_t i = 0; i < len; ++i) {
    char c = sig[i];
    switch (c) {
      case 'i': case 'I': case 'f': case 'F': case 'r':
        if (in_span) ++span_len;
        break;
      case '_':
        if (seen_sep || in_span) return 0;
        seen_sep = in_results = 1;
        break;
      case 'C':
        if (in_results || in_span) return 0;
        in_span = 1;
        span_len = 0;
        break;
      case 'D':
        if (!in_span || span_len == 0) return 0;
        in_span = 0;
        break;
      default:
        return 0;
    }
  }
  return seen_sep && !in_span;
}
