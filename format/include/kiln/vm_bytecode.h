/* VM bytecode: the opcode enumeration and metadata generated from
 * kiln/vm_opcodes.def, little-endian operand decoding, the load-time
 * verifier, the disassembler (SQLite-EXPLAIN style) and a small assembler
 * for tools and tests. Library: kiln_vm_bytecode (format/vm/).
 *
 * Signature strings (functions and imports) are compact: argument types,
 * '_', result types. Types: i (i32) I (i64) f (f32) F (f64) r (ref).
 * In the arguments, 'C' ... 'D' brackets a variadic span of tuples: the
 * call site writes the tuple count as a literal list entry, then that
 * many tuples of registers. Example: the HAL dispatch import is
 * "riiiiiCiDCrIID_" (command buffer, executable, export, workgroup count
 * x/y/z, push constants, bindings as buffer/offset/length).
 *
 * The verifier guarantees, for one function: every opcode exists, every
 * operand lies inside the code, every register index is below its bank's
 * count, every branch lands on an instruction start, every call names an
 * existing function or import with a register list matching its signature,
 * every ret matches the function's results, and control cannot run off the
 * end (the last instruction is br, ret or trap). The interpreter relies on
 * this and does not check again. */
#ifndef KILN_VM_BYTECODE_H
#define KILN_VM_BYTECODE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever an opcode number or an encoding changes; the module
 * records the version its bytecode was emitted for. */
#define KILN_VM_BYTECODE_VERSION 1u

/* Bounds the verifier enforces (they also size the interpreter's stacks). */
#define KILN_VM_MAX_REGISTERS 4096u /* per bank per function */
#define KILN_VM_MAX_LIST 255u       /* entries in one register list */

/* hal.check.dim_eq's range form (no format change): with $1 =
 * KILN_CHECK_RANGE, $0 must equal $3, which the caller computed as $0
 * clamped into the allowed range (so $3 is the bound $0 broke); $4 picks
 * the noun below (what $0 is: the NUL-separated strings in order), $2
 * the dimension, grid axis or push constant it is of: "offset[1] is 9,
 * must be <= 7". */
#define KILN_CHECK_RANGE (-4)
#define KILN_CHECK_RANGE_NOUNS "offset\0size\0stride\0index\0workgroup count\0push constant"
#define KILN_CHECK_RANGE_WORKGROUP_COUNT 4
#define KILN_CHECK_RANGE_PUSH_CONSTANT 5
#define KILN_CHECK_RANGE_LAST 5

typedef enum kiln_vm_opcode {
#define KILN_VM_OP(NAME, MNEMONIC, FORMAT, SEMANTICS) KILN_VM_OP_##NAME,
#include "kiln/vm_opcodes.def"
  KILN_VM_OP_COUNT
} kiln_vm_opcode_t;

/* An opcode's mnemonic ("add.i32") and operand kinds ("iii", see
 * vm_opcodes.def), each written into BUF (returned). For the format OP
 * must be below KILN_VM_OP_COUNT; past it the mnemonic is "". Both come
 * from tables the build codes (formats 4 bits per operand: a table of
 * pointers cost the smallest runtime 1.4 KB of relocated data); mnemonics
 * from a separate list, walked and expanded (messages and disassembly
 * only), which a runtime without message text does not link. */
#define KILN_VM_MNEMONIC_MAX 16 /* longest mnemonic with its NUL */
#define KILN_VM_FORMAT_MAX 5    /* most operands (4) with the NUL */
const char *kiln_vm_opcode_mnemonic(unsigned op, char buf[KILN_VM_MNEMONIC_MAX]);
const char *kiln_vm_opcode_format(unsigned op, char buf[KILN_VM_FORMAT_MAX]);
/* One line per opcode, $N = operand N. Kept apart from the mnemonics (in
 * the disassembler's object) so that the runtime does not carry the text. */
extern const char *const kiln_vm_opcode_semantics[KILN_VM_OP_COUNT];

/* ---- decoding (no bounds checks: for verified code) ------------------- */
/* Where an unaligned load is one instruction (x86-64, aarch64) the reads
 * are always inlined: gcc merges the byte loads only after deciding on
 * inlining, so at -Oz it judged them by the bytes and kept calls. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define KILN_VM_RD static inline __attribute__((always_inline))
#else
#define KILN_VM_RD static inline
#endif
KILN_VM_RD uint16_t kiln_vm_rd16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
KILN_VM_RD uint32_t kiln_vm_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
KILN_VM_RD uint64_t kiln_vm_rd64(const uint8_t *p) {
  return (uint64_t)kiln_vm_rd32(p) | ((uint64_t)kiln_vm_rd32(p + 4) << 32);
}

/* Bytes of one fixed-size operand of format letter c (vm_opcodes.def);
 * 0 for the variable-length register list 'a'. The interpreter sums them
 * into operand offsets; kiln_vm_instruction_size into sizes. */
static inline uint32_t kiln_vm_operand_size(char c) {
  switch (c) {
    case 'k': case 'g': case 'b': return 4;
    case 'K': case 'G': return 8;
    case 'a': return 0;
    default: return 2; /* i I f F r c m */
  }
}
/* Size in bytes of the instruction at code[offset], or 0 when the opcode
 * is unknown or an operand would run past size. Safe on any input. */
size_t kiln_vm_instruction_size(const uint8_t *code, size_t size,
                                size_t offset);

/* ---- signatures -------------------------------------------------------- */

/* 1 when sig is a well-formed signature string (spans only among the
 * arguments, properly closed, non-empty, at most 64 chars), else 0. */
int kiln_vm_signature_valid(const char *sig);

/* ---- the HAL native module (kiln/hal_imports.def) ------------------------ */

/* The signature of HAL import `name` ("hal.buffer.allocate" -> "I_r"), or
 * NULL when there is no such import: what the compiler emits and tests
 * build modules with (the runtime has its own table of implementations). */
const char *kiln_hal_import_signature(const char *name);

/* ---- verifier ---------------------------------------------------------- */

typedef struct kiln_vm_function_info {
  const uint8_t *code;
  uint32_t code_size;
  uint32_t scalar_count; /* 32-bit scalar slots the function uses */
  uint32_t ref_count;    /* ref registers */
  const char *signature; /* validated with kiln_vm_signature_valid first */
} kiln_vm_function_info_t;

typedef struct kiln_vm_module_info {
  const kiln_vm_function_info_t *functions;
  uint32_t function_count;
  const char *const *import_signatures; /* validated signatures */
  uint32_t import_count;
} kiln_vm_module_info_t;

typedef struct kiln_vm_diag {
  uint32_t function; /* ordinal of the function at fault */
  uint32_t offset;   /* byte offset of the faulty instruction */
  char message[200];
} kiln_vm_diag_t;

/* Scratch bytes kiln_vm_verify_function needs for a function of
 * code_size bytes (one bit per code byte). */
static inline size_t kiln_vm_verify_scratch_size(uint32_t code_size) {
  return ((size_t)code_size + 7u) / 8u;
}

/* Verifies function `index` of `module`. Returns 0 when valid; otherwise
 * returns nonzero and fills *diag ("at 0x0012 (add.i32): register %i9 out
 * of range (function has 4)"). scratch: kiln_vm_verify_scratch_size bytes. */
int kiln_vm_verify_function(const kiln_vm_module_info_t *module,
                            uint32_t index, uint8_t *scratch,
                            kiln_vm_diag_t *diag);

/* ---- disassembler ------------------------------------------------------ */

/* Optional names for call targets; any member may be NULL. */
typedef struct kiln_vm_disasm_names {
  void *user;
  const char *(*function_name)(void *user, uint32_t ordinal);
  const char *(*import_name)(void *user, uint32_t ordinal);
} kiln_vm_disasm_names_t;

/* Optional signatures of call targets: with them, register lists print
 * with their banks and spans ("(%r0, %i1, [1: %I3])"). */
typedef struct kiln_vm_disasm_signatures {
  void *user;
  const char *(*function_signature)(void *user, uint32_t ordinal);
  const char *(*import_signature)(void *user, uint32_t ordinal);
  const char *own_signature; /* of the function listed (for ret) */
} kiln_vm_disasm_signatures_t;

/* Prints one line per instruction, like SQLite's EXPLAIN:
 *   addr  opcode          operands                      comment
 *   0004  mul.f32         %f2, %f0, %f1                 %f2 = %f0 * %f1
 * Safe on unverified code: stops with a marker line at the first
 * undecodable byte. Returns the number of lines printed. */
int kiln_vm_disassemble(FILE *out, const uint8_t *code, size_t size,
                        const kiln_vm_disasm_names_t *names);
/* The same, with signatures (any pointer may be NULL). */
int kiln_vm_disassemble_ex(FILE *out, const uint8_t *code, size_t size,
                           const kiln_vm_disasm_names_t *names,
                           const kiln_vm_disasm_signatures_t *signatures);

/* ---- assembler (tools, tests, the compiler's emitter) ------------------ */

typedef struct kiln_vm_asm {
  uint8_t *code;
  size_t size, capacity;
  uint32_t *labels;    /* label -> offset, UINT32_MAX while unbound */
  size_t label_count;
  size_t *fixups;      /* code offsets of u32 branch operands to patch */
  uint32_t *fixup_labels;
  size_t fixup_count;
  int failed;          /* sticky: out of memory or bad operands */
} kiln_vm_asm_t;

void kiln_vm_asm_init(kiln_vm_asm_t *a);
void kiln_vm_asm_free(kiln_vm_asm_t *a);
/* A fresh, unbound label, used as the operand of a 'b' kind. */
uint32_t kiln_vm_asm_label(kiln_vm_asm_t *a);
void kiln_vm_asm_bind(kiln_vm_asm_t *a, uint32_t label);
/* Appends one instruction. Operands follow the format string: register,
 * ordinal and label kinds as int; 'k' as int32_t; 'K' as int64_t; 'g' as
 * double (stored as f32); 'G' as double; 'a' as (int count, const int
 * *entries). */
void kiln_vm_asm_emit(kiln_vm_asm_t *a, kiln_vm_opcode_t op, ...);
/* Resolves labels. Returns 0 and leaves the bytes in a->code/a->size, or
 * nonzero when a label is unbound or an earlier emit failed. */
int kiln_vm_asm_finish(kiln_vm_asm_t *a);

#ifdef __cplusplus
}
#endif

#endif /* KILN_VM_BYTECODE_H */
