/* Opcode metadata generated from kiln/vm_opcodes.def, instruction sizing
 * that is safe on arbitrary bytes, and signature-string validation. These
 * are what the verifier, the disassembler and the assembler share. */
#include "kiln/vm_bytecode.h"

#include "kiln/message.h"

#include <stddef.h>
#include <string.h>

/* The opcode tables, which the build writes coded from kiln/vm_opcodes.def
 * (format/vm/CMakeLists.txt says how): opcode_formats, every opcode's
 * operand kinds packed 4 bits each into one 16-bit word (174 bytes, where
 * fixed 5-byte rows took 435). The mnemonics, in which byte N in 1-6
 * stands for the N-th part below with its dot, are pieces of the message
 * text's Huffman code (kiln_message_mnemonic): apart from the formats the
 * runtime decodes with, so a runtime that prints none (KILN_MESSAGES=OFF)
 * links none; only messages and disassembly name opcodes. */
#include "vm_opcode_tables.inc"
_Static_assert(KILN_VM_CODED_ROWS == KILN_VM_OP_COUNT,
               "a vm_opcodes.def row the build did not code");
_Static_assert(sizeof opcode_formats / sizeof *opcode_formats == KILN_VM_OP_COUNT,
               "one format word per opcode");
static const char mnemonic_parts[][4] = {"i32", "i64", "f32", "f64", "s", "u"};

const char *kiln_vm_opcode_mnemonic(unsigned op,
                                    char buf[KILN_VM_MNEMONIC_MAX]) {
  char coded[KILN_VM_MNEMONIC_MAX];
  kiln_message_mnemonic(op, coded);
  /* The build refuses a mnemonic of KILN_VM_MNEMONIC_MAX bytes or more. */
  char *out = buf;
  for (const char *m = coded; *m; ++m) {
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

const char *kiln_vm_opcode_format(unsigned op, char buf[KILN_VM_FORMAT_MAX]) {
  /* The build refuses a format of more than 4 operands. */
  char *out = buf;
  for (unsigned word = opcode_formats[op]; word; word >>= 4)
    *out++ = KILN_VM_OPERAND_KINDS[(word & 15) - 1];
  *out = 0;
  return buf;
}

size_t kiln_vm_instruction_size(const uint8_t *code, size_t size,
                                size_t offset) {
  if (offset >= size || code[offset] >= KILN_VM_OP_COUNT) return 0;
  size_t at = offset + 1;
  char format[KILN_VM_FORMAT_MAX];
  for (const char *f = kiln_vm_opcode_format(code[offset], format); *f; ++f) {
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
