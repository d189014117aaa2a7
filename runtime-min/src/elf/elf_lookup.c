/* Exported-symbol lookup through the SysV hash table (DT_HASH), shared by
 * verification (over the input bytes) and by kiln_elf_lookup (over the
 * mapped image). Takes tables that kiln_elf_parse already bounds-checked:
 * every bucket and chain entry is < nsyms and every st_name < strsz with a
 * NUL at strtab[strsz - 1], so no read here leaves the tables. */
#include <string.h>

#include "elf_layout.h"

static uint32_t sysv_hash(const char *name) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

uint32_t kiln_elf_hash_find(const uint8_t *hash, const uint8_t *symtab,
                            const char *strtab, uint64_t strsz,
                            uint32_t nsyms, const char *name) {
  uint32_t nbucket = kiln_elf_rd32(hash);
  if (nbucket == 0) return 0;
  const uint8_t *buckets = hash + 8;
  const uint8_t *chains = buckets + 4 * (uint64_t)nbucket;
  uint32_t i = kiln_elf_rd32(buckets + 4 * (uint64_t)(sysv_hash(name) % nbucket));
  for (uint32_t steps = 0; i != 0 && i < nsyms && steps < nsyms; steps++) {
    const uint8_t *sym = symtab + (uint64_t)i * ELF_SYM_SIZE;
    uint32_t st_name = kiln_elf_rd32(sym);
    uint8_t info = sym[4], other = sym[5];
    uint16_t shndx = kiln_elf_rd16(sym + 6);
    uint32_t bind = info >> 4, vis = other & 3u;
    if (st_name < strsz && shndx != ELF_SHN_UNDEF &&
        (bind == ELF_STB_GLOBAL || bind == ELF_STB_WEAK) &&
        (vis == ELF_STV_DEFAULT || vis == ELF_STV_PROTECTED) &&
        strcmp(strtab + st_name, name) == 0)
      return i;
    i = kiln_elf_rd32(chains + 4 * (uint64_t)i);
  }
  return 0;
}
