/* A small bytecode assembler: takes opcode + operand values (shaped by the
 * opcode's format string) and produces encoded bytes with branch labels
 * resolved. Used by tests, samples and the compiler's emitter; not linked
 * into the runtime. Errors are sticky and reported by kiln_vm_asm_finish. */
#include "kiln/vm_bytecode.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void kiln_vm_asm_init(kiln_vm_asm_t *a) { memset(a, 0, sizeof *a); }

void kiln_vm_asm_free(kiln_vm_asm_t *a) {
  free(a->code);
  free(a->labels);
  free(a->fixups);
  free(a->fixup_labels);
  memset(a, 0, sizeof *a);
}

static void put_bytes(kiln_vm_asm_t *a, const void *p, size_t n) {
  if (a->failed) return;
  if (a->size + n > a->capacity) {
    size_t cap = a->capacity ? a->capacity * 2 : 256;
    while (cap < a->size + n) cap *= 2;
    uint8_t *c = realloc(a->code, cap);
    if (!c) { a->failed = 1; return; }
    a->code = c;
    a->capacity = cap;
  }
  memcpy(a->code + a->size, p, n);
  a->size += n;
}

static void put_le(kiln_vm_asm_t *a, uint64_t v, size_t n) {
  uint8_t b[8];
  for (size_t i = 0; i < n; ++i) b[i] = (uint8_t)(v >> (8 * i));
  put_bytes(a, b, n);
}

uint32_t kiln_vm_asm_label(kiln_vm_asm_t *a) {
  uint32_t *l = realloc(a->labels, (a->label_count + 1) * sizeof *l);
  if (!l) { a->failed = 1; return 0; }
  a->labels = l;
  l[a->label_count] = UINT32_MAX;
  return (uint32_t)a->label_count++;
}

void kiln_vm_asm_bind(kiln_vm_asm_t *a, uint32_t label) {
  if (label >= a->label_count) { a->failed = 1; return; }
  a->labels[label] = (uint32_t)a->size;
}

static void add_fixup(kiln_vm_asm_t *a, uint32_t label) {
  size_t *f = realloc(a->fixups, (a->fixup_count + 1) * sizeof *f);
  if (f) a->fixups = f;
  uint32_t *fl = realloc(a->fixup_labels, (a->fixup_count + 1) * sizeof *fl);
  if (fl) a->fixup_labels = fl;
  if (!f || !fl) { a->failed = 1; return; }
  a->fixups[a->fixup_count] = a->size;
  a->fixup_labels[a->fixup_count++] = label;
}

void kiln_vm_asm_emit(kiln_vm_asm_t *a, kiln_vm_opcode_t op, ...) {
  if ((unsigned)op >= KILN_VM_OP_COUNT) { a->failed = 1; return; }
  put_le(a, (uint64_t)op, 1);
  va_list ap;
  va_start(ap, op);
  char format[KILN_VM_FORMAT_MAX];
  for (const char *f = kiln_vm_opcode_format(op, format); *f; ++f) {
    switch (*f) {
      case 'k': put_le(a, (uint32_t)va_arg(ap, int32_t), 4); break;
      case 'K': put_le(a, (uint64_t)va_arg(ap, int64_t), 8); break;
      case 'g': {
        float x = (float)va_arg(ap, double);
        uint32_t bits;
        memcpy(&bits, &x, 4);
        put_le(a, bits, 4);
        break;
      }
      case 'G': {
        double x = va_arg(ap, double);
        uint64_t bits;
        memcpy(&bits, &x, 8);
        put_le(a, bits, 8);
        break;
      }
      case 'b': {
        int label = va_arg(ap, int);
        add_fixup(a, (uint32_t)label);
        put_le(a, 0, 4);
        break;
      }
      case 'a': {
        int n = va_arg(ap, int);
        const int *entries = va_arg(ap, const int *);
        if (n < 0 || n > (int)KILN_VM_MAX_LIST) { a->failed = 1; break; }
        put_le(a, (uint64_t)n, 1);
        for (int i = 0; i < n; ++i) put_le(a, (uint16_t)entries[i], 2);
        break;
      }
      default: {
        int v = va_arg(ap, int);
        if (v < 0 || v > 0xffff) a->failed = 1;
        put_le(a, (uint16_t)v, 2);
        break;
      }
    }
  }
  va_end(ap);
}

int kiln_vm_asm_finish(kiln_vm_asm_t *a) {
  if (a->failed) return 1;
  for (size_t i = 0; i < a->fixup_count; ++i) {
    const uint32_t l = a->fixup_labels[i];
    if (l >= a->label_count || a->labels[l] == UINT32_MAX) return 1;
    const uint32_t t = a->labels[l];
    for (int b = 0; b < 4; ++b)
      a->code[a->fixups[i] + (size_t)b] = (uint8_t)(t >> (8 * b));
  }
  return 0;
}
