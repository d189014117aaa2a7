/* Internal to runtime-min/src/elf: the ELF64 constants Kiln relies on and
 * the layout that parsing produces and mapping consumes. Declared here
 * rather than taken from <elf.h> so the loader builds on any OS.
 *
 * A kiln_elf_layout_t that kiln_elf_parse accepted is self-consistent:
 * every range in it lies inside the input (file offsets) or inside the
 * image span (virtual addresses), without overflow, and every relocation
 * has a known type, an in-range symbol and an 8-byte target inside a
 * writable segment. */
#ifndef KILN_ELF_LAYOUT_H
#define KILN_ELF_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "kiln/message.h"

#define ELF_EHDR_SIZE 64u
#define ELF_PHDR_SIZE 56u
#define ELF_SHDR_SIZE 64u
#define ELF_SYM_SIZE 24u
#define ELF_RELA_SIZE 24u
#define ELF_DYN_SIZE 16u

#define ELF_PT_LOAD 1u
#define ELF_PT_DYNAMIC 2u
#define ELF_PT_INTERP 3u
#define ELF_PT_TLS 7u
#define ELF_PT_GNU_RELRO 0x6474e552u

#define ELF_PF_X 1u
#define ELF_PF_W 2u
#define ELF_PF_R 4u

#define ELF_SHN_UNDEF 0u
#define ELF_SHN_LORESERVE 0xff00u
#define ELF_SHN_ABS 0xfff1u

#define ELF_STB_LOCAL 0u
#define ELF_STB_GLOBAL 1u
#define ELF_STB_WEAK 2u
#define ELF_STT_NOTYPE 0u
#define ELF_STT_OBJECT 1u
#define ELF_STT_FUNC 2u
#define ELF_STT_SECTION 3u
#define ELF_STT_FILE 4u
#define ELF_STT_TLS 6u
#define ELF_STT_GNU_IFUNC 10u
#define ELF_STV_DEFAULT 0u
#define ELF_STV_PROTECTED 3u

/* Loads no object may need: more would be hostile, not compiled. */
#define ELF_MAX_LOADS 16u
/* Largest address span Kiln maps for one kernel library. */
#define ELF_MAX_IMAGE_SIZE (1ull << 30)
/* Largest segment alignment honoured (lld's aarch64 default is 64 KiB). */
#define ELF_MAX_ALIGN (1ull << 16)

typedef struct kiln_elf_segment {
  uint64_t vaddr, memsz, offset, filesz;
  uint32_t flags; /* ELF_PF_* */
} kiln_elf_segment_t;

typedef enum kiln_elf_reloc_kind {
  KILN_ELF_RK_NONE,
  KILN_ELF_RK_RELATIVE,
  KILN_ELF_RK_SYM,
  KILN_ELF_RK_SYM_ADDEND,
} kiln_elf_reloc_kind_t;

typedef struct kiln_elf_layout {
  uint32_t machine;
  uint64_t page;      /* page size the layout was checked against */
  uint64_t span_lo;   /* page-aligned lowest vaddr */
  uint64_t span_hi;   /* page-aligned end of the highest segment */
  uint64_t align;     /* largest PT_LOAD alignment (power of two) */
  uint32_t load_count;
  kiln_elf_segment_t load[ELF_MAX_LOADS];
  uint64_t relro_lo, relro_hi; /* page range made read-only; empty if equal */
  /* Dynamic tables: vaddr for lookups after mapping, file offset for
   * reading during verification and relocation. */
  uint64_t symtab_vaddr, symtab_off;
  uint64_t strtab_vaddr, strtab_off, strsz;
  uint64_t hash_vaddr, hash_off;
  uint32_t nsyms, nbucket;
  uint64_t rela_off[2]; /* DT_RELA, DT_JMPREL */
  uint64_t rela_count[2];
  uint32_t reloc_relative, reloc_symbolic;
  uint32_t has_query;
} kiln_elf_layout_t;

/* Parses and checks DATA against PAGE (a power of two >= 4096); fills
 * *out. Returns KILN_ELF_OK or an error code with a message. */
int kiln_elf_parse(const uint8_t *data, size_t size, uint64_t page,
                   kiln_elf_layout_t *out, char *msg, size_t msg_cap);

/* kiln_elf_load without the host-machine check: maps and relocates an
 * object of any supported machine so that its relocated data can be
 * inspected (tests of the aarch64 relocations on an x86-64 host). Code in
 * a foreign image must never be called. */
struct kiln_elf_image;
int kiln_elf_map_any_machine(const void *data, size_t size,
                             struct kiln_elf_image *image, char *msg,
                             size_t msg_cap);

/* The kind of relocation TYPE on MACHINE; returns 0 if unknown. */
int kiln_elf_reloc_kind(uint32_t machine, uint32_t type,
                        kiln_elf_reloc_kind_t *kind);

/* Index of the defined, exported symbol NAME found through a verified
 * SysV hash table (nbucket, nchain, buckets, chains), or 0 when absent.
 * Follows at most nsyms chain links, so a cycle cannot hang it. */
uint32_t kiln_elf_hash_find(const uint8_t *hash, const uint8_t *symtab,
                            const char *strtab, uint64_t strsz,
                            uint32_t nsyms, const char *name);

/* Formats a message into msg (if any) and returns CODE. */
#define kiln_elf_fail KILN_MESSAGE

/* Little-endian loads from possibly unaligned bytes. Where an unaligned
 * load is one instruction (x86-64, aarch64) always inlined: gcc merges the
 * byte loads into one only after deciding on inlining, so at -Oz it
 * judged them by the bytes and kept a call per read (riscv64 keeps the
 * byte loads, so the calls stay smaller there). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__aarch64__))
#define KILN_ELF_RD static inline __attribute__((always_inline))
#else
#define KILN_ELF_RD static inline
#endif
KILN_ELF_RD uint16_t kiln_elf_rd16(const uint8_t *p) {
  return (uint16_t)(p[0] | (p[1] << 8));
}
KILN_ELF_RD uint32_t kiln_elf_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
         ((uint32_t)p[3] << 24);
}
KILN_ELF_RD uint64_t kiln_elf_rd64(const uint8_t *p) {
  return (uint64_t)kiln_elf_rd32(p) | ((uint64_t)kiln_elf_rd32(p + 4) << 32);
}

#endif /* KILN_ELF_LAYOUT_H */
