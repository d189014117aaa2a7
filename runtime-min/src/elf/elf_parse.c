/* Verification of an ELF64 shared object before anything is mapped: takes
 * the raw bytes and a page size, and either fills a kiln_elf_layout_t
 * whose every range is proven in bounds (see elf_layout.h) or returns an
 * error whose message names the offending header, entry or symbol.
 *
 * All reads go through bounds-checked offsets and byte loads, so neither
 * unaligned nor truncated input can fault. Arithmetic is done in uint64_t
 * with explicit overflow checks before every addition that a hostile
 * field feeds. */
#include <stdio.h>
#include <string.h>

#include "elf_layout.h"
#include "elf_loader.h"

#define FAIL(...) KILN_MESSAGE_PUT(msg, KILN_ELF_ERR_INVALID, __VA_ARGS__)
#define UNSUPPORTED(...) \
  KILN_MESSAGE_PUT(msg, KILN_ELF_ERR_UNSUPPORTED, __VA_ARGS__)
#define ULL(x) ((unsigned long long)(x))

/* Templates shared by checks that differ only in the field they name, so
 * each text is stored once. */
#define IS_NOT "%s %u is not %u"
#define IS_NOT_LLU "%s %llu is not %u"
#define TOGETHER "%s and %s must come together"
#define NOT_SUPPORTED "%s %llu: no support for %s"
#define DYN "dynamic entry"
#define PH_SECOND "program header %u: second %s"
#define PH_PAST_END \
  "program header %u: %s at offset %llu (%llu bytes) exceeds the %zu-byte file"
#define TABLE_NOT_READ_ONLY \
  "%s table 0x%llx (%llu %s) is not inside a read-only file-backed segment"
#define HEADERS_PAST_END \
  "%s headers at offset %llu (%u x %u bytes) exceed the %zu-byte file"

/* Dynamic tags the loader understands (ELF gABI numbers). */
enum {
  DT_NULL = 0, DT_NEEDED = 1, DT_PLTRELSZ = 2, DT_HASH = 4, DT_STRTAB = 5,
  DT_SYMTAB = 6, DT_RELA = 7, DT_RELASZ = 8, DT_RELAENT = 9, DT_STRSZ = 10,
  DT_SYMENT = 11, DT_INIT = 12, DT_FINI = 13, DT_REL = 17, DT_RELSZ = 18,
  DT_PLTREL = 20, DT_TEXTREL = 22, DT_JMPREL = 23, DT_INIT_ARRAYSZ = 27,
  DT_FINI_ARRAYSZ = 28, DT_FLAGS = 30, DT_PREINIT_ARRAYSZ = 33,
  DT_RELRSZ = 35, DT_RELR = 36,
};
#define DF_TEXTREL 4u

int kiln_elf_reloc_kind(uint32_t machine, uint32_t type,
                        kiln_elf_reloc_kind_t *kind) {
  /* A table scanned in order, not a chain of compares: 4 bytes a row. */
  static const struct {
    uint8_t machine; /* e_machine numbers here all fit a byte */
    uint8_t kind;
    uint16_t type;
  } relocs[] = {
#define KILN_ELF_RELOC(M, NAME, T, K) {M, KILN_ELF_RK_##K, T},
#include "elf_relocs.def"
#undef KILN_ELF_RELOC
  };
  for (size_t i = 0; i < sizeof relocs / sizeof relocs[0]; i++)
    if (relocs[i].machine == machine && relocs[i].type == type) {
      *kind = (kiln_elf_reloc_kind_t)relocs[i].kind;
      return 1;
    }
  return 0;
}

/* [off, off + len) lies inside a buffer of SIZE bytes. */
static int in_range(uint64_t off, uint64_t len, uint64_t size) {
  return off <= size && len <= size - off;
}

static uint64_t page_floor(uint64_t x, uint64_t page) { return x & ~(page - 1); }

/* Maps [vaddr, vaddr + len) to a file offset when it lies in the
 * file-backed part of one PT_LOAD; with READONLY, only a segment that stays
 * readable and never writable, because lookups read it after mapping. */
static int vaddr_to_offset(const kiln_elf_layout_t *l, uint64_t vaddr,
                           uint64_t len, int readonly, uint64_t *off) {
  for (uint32_t i = 0; i < l->load_count; i++) {
    const kiln_elf_segment_t *s = &l->load[i];
    if (vaddr < s->vaddr || !in_range(vaddr - s->vaddr, len, s->filesz))
      continue;
    if (readonly && (s->flags & (ELF_PF_W | ELF_PF_R)) != ELF_PF_R) return 0;
    *off = s->offset + (vaddr - s->vaddr);
    return 1;
  }
  return 0;
}

/* The writable PT_LOAD whose memory holds [vaddr, vaddr + len), if any. */
static int in_writable_segment(const kiln_elf_layout_t *l, uint64_t vaddr,
                               uint64_t len) {
  for (uint32_t i = 0; i < l->load_count; i++) {
    const kiln_elf_segment_t *s = &l->load[i];
    if ((s->flags & ELF_PF_W) && vaddr >= s->vaddr &&
        in_range(vaddr - s->vaddr, len, s->memsz))
      return 1;
  }
  return 0;
}

static int parse_header(const uint8_t *d, size_t size, uint32_t *machine,
                        const kiln_message_buf_t *msg) {
  if (size < ELF_EHDR_SIZE)
    return FAIL("truncated ELF header: %zu bytes, need %u", size, ELF_EHDR_SIZE);
  if (d[0] != 0x7f || d[1] != 'E' || d[2] != 'L' || d[3] != 'F')
    return FAIL("not an ELF file: bad magic at offset 0");
  if (d[4] != 2) return FAIL("ELF class %u is not ELFCLASS64 (2)", d[4]);
  if (d[5] != 1) return FAIL("ELF data encoding %u is not little-endian (1)", d[5]);
  if (d[6] != 1) return FAIL("ELF ident version %u is not 1", d[6]);
  uint16_t type = kiln_elf_rd16(d + 16);
  if (type != 3) return FAIL("ELF type %u is not ET_DYN (3)", type);
  *machine = kiln_elf_rd16(d + 18);
  if (*machine != KILN_ELF_MACHINE_X86_64 && *machine != KILN_ELF_MACHINE_AARCH64 &&
      *machine != KILN_ELF_MACHINE_RISCV)
    return UNSUPPORTED("ELF machine %u is not x86_64, aarch64 or riscv64",
                       *machine);
  if (kiln_elf_rd32(d + 20) != 1)
    return FAIL("ELF version %u is not 1", kiln_elf_rd32(d + 20));
  if (kiln_elf_rd16(d + 52) != ELF_EHDR_SIZE)
    return FAIL(IS_NOT, "e_ehsize", kiln_elf_rd16(d + 52), ELF_EHDR_SIZE);

  uint64_t phoff = kiln_elf_rd64(d + 32);
  uint16_t phentsize = kiln_elf_rd16(d + 54), phnum = kiln_elf_rd16(d + 56);
  if (phentsize != ELF_PHDR_SIZE)
    return FAIL(IS_NOT, "e_phentsize", phentsize, ELF_PHDR_SIZE);
  if (phnum == 0 || phnum == 0xffff || phnum > 64)
    return FAIL("e_phnum %u: need 1 to 64 program headers", phnum);
  if (!in_range(phoff, (uint64_t)phnum * ELF_PHDR_SIZE, size))
    return FAIL(HEADERS_PAST_END, "program", ULL(phoff), phnum, ELF_PHDR_SIZE,
                size);

  /* Section headers are not needed to load, but a file whose section
   * table points outside itself is corrupt; check it like the rest. */
  uint64_t shoff = kiln_elf_rd64(d + 40);
  uint16_t shentsize = kiln_elf_rd16(d + 58), shnum = kiln_elf_rd16(d + 60);
  uint16_t shstrndx = kiln_elf_rd16(d + 62);
  if (shnum == 0) {
    if (shoff != 0)
      return UNSUPPORTED("extended section numbering (e_shnum 0, e_shoff %llu)",
                         ULL(shoff));
    return KILN_ELF_OK;
  }
  if (shentsize != ELF_SHDR_SIZE)
    return FAIL(IS_NOT, "e_shentsize", shentsize, ELF_SHDR_SIZE);
  if (!in_range(shoff, (uint64_t)shnum * ELF_SHDR_SIZE, size))
    return FAIL(HEADERS_PAST_END, "section", ULL(shoff), shnum, ELF_SHDR_SIZE,
                size);
  if (shstrndx >= shnum)
    return FAIL("e_shstrndx %u is not below e_shnum %u", shstrndx, shnum);
  for (uint32_t i = 1; i < shnum; i++) {
    const uint8_t *sh = d + shoff + (uint64_t)i * ELF_SHDR_SIZE;
    uint32_t sh_type = kiln_elf_rd32(sh + 4);
    uint64_t off = kiln_elf_rd64(sh + 24), len = kiln_elf_rd64(sh + 32);
    if (sh_type != 0 && sh_type != 8 /* SHT_NOBITS */ && !in_range(off, len, size))
      return FAIL("section %u: offset %llu size %llu exceed the %zu-byte file",
                  i, ULL(off), ULL(len), size);
  }
  return KILN_ELF_OK;
}

/* Program headers: loads, the dynamic segment and RELRO. */
static int parse_phdrs(const uint8_t *d, size_t size, kiln_elf_layout_t *l,
                       uint64_t *dyn_off, uint64_t *dyn_size, const kiln_message_buf_t *msg) {
  uint64_t phoff = kiln_elf_rd64(d + 32);
  uint16_t phnum = kiln_elf_rd16(d + 56);
  uint64_t page = l->page, relro_vaddr = 0, relro_memsz = 0;
  int have_dyn = 0, have_relro = 0;
  l->align = page;
  for (uint32_t i = 0; i < phnum; i++) {
    const uint8_t *ph = d + phoff + (uint64_t)i * ELF_PHDR_SIZE;
    uint32_t type = kiln_elf_rd32(ph), flags = kiln_elf_rd32(ph + 4);
    uint64_t offset = kiln_elf_rd64(ph + 8), vaddr = kiln_elf_rd64(ph + 16);
    uint64_t filesz = kiln_elf_rd64(ph + 32), memsz = kiln_elf_rd64(ph + 40);
    uint64_t align = kiln_elf_rd64(ph + 48);
    if (type == ELF_PT_LOAD) {
      if ((flags & ELF_PF_W) && (flags & ELF_PF_X))
        return FAIL("program header %u: writable and executable PT_LOAD", i);
      if (filesz > memsz)
        return FAIL("program header %u: p_filesz %llu exceeds p_memsz %llu", i,
                    ULL(filesz), ULL(memsz));
      if (!in_range(offset, filesz, size))
        return FAIL(PH_PAST_END, i, "segment", ULL(offset), ULL(filesz), size);
      if (vaddr > ELF_MAX_IMAGE_SIZE * 4 || memsz > ELF_MAX_IMAGE_SIZE)
        return FAIL("program header %u: segment 0x%llx + %llu is outside the "
                    "supported address range", i, ULL(vaddr), ULL(memsz));
      if (align > 1 && ((align & (align - 1)) || align > ELF_MAX_ALIGN))
        return FAIL("program header %u: p_align %llu is not a power of two "
                    "up to %llu", i, ULL(align), ULL(ELF_MAX_ALIGN));
      if (memsz == 0) continue;
      if (l->load_count == ELF_MAX_LOADS)
        return FAIL("more than %u PT_LOAD segments", ELF_MAX_LOADS);
      if (l->load_count) {
        const kiln_elf_segment_t *prev = &l->load[l->load_count - 1];
        uint64_t prev_end = prev->vaddr + prev->memsz;
        /* Protections are per page: two segments may not share one. */
        if (page_floor(vaddr, page) < page_floor(prev_end + page - 1, page))
          return FAIL("program header %u: PT_LOAD at 0x%llx shares a page with "
                      "the one before (ends 0x%llx)", i,
                      ULL(vaddr), ULL(prev_end));
      }
      if (align > l->align) l->align = align;
      l->load[l->load_count++] = (kiln_elf_segment_t){vaddr, memsz, offset,
                                                      filesz, flags};
    } else if (type == ELF_PT_DYNAMIC) {
      if (have_dyn) return FAIL(PH_SECOND, i, "PT_DYNAMIC");
      if (!in_range(offset, filesz, size))
        return FAIL(PH_PAST_END, i, "PT_DYNAMIC", ULL(offset), ULL(filesz),
                    size);
      have_dyn = 1;
      *dyn_off = offset;
      *dyn_size = filesz;
    } else if (type == ELF_PT_GNU_RELRO) {
      if (have_relro) return FAIL(PH_SECOND, i, "PT_GNU_RELRO");
      have_relro = 1;
      relro_vaddr = vaddr;
      relro_memsz = memsz;
    } else if (type == ELF_PT_TLS) {
      return UNSUPPORTED(NOT_SUPPORTED, "program header", ULL(i), "PT_TLS");
    } else if (type == ELF_PT_INTERP) {
      return UNSUPPORTED(NOT_SUPPORTED, "program header", ULL(i), "PT_INTERP");
    }
  }
  if (l->load_count == 0) return FAIL("no PT_LOAD segment");
  if (!have_dyn) return FAIL("no PT_DYNAMIC segment");
  const kiln_elf_segment_t *last = &l->load[l->load_count - 1];
  l->span_lo = page_floor(l->load[0].vaddr, page);
  l->span_hi = page_floor(last->vaddr + last->memsz + page - 1, page);
  if (l->span_hi - l->span_lo > ELF_MAX_IMAGE_SIZE)
    return FAIL("image spans %llu bytes, more than the %llu supported",
                ULL(l->span_hi - l->span_lo), ULL(ELF_MAX_IMAGE_SIZE));
  if (have_relro && relro_memsz) {
    if (!in_writable_segment(l, relro_vaddr, relro_memsz))
      return FAIL("PT_GNU_RELRO 0x%llx + %llu is not inside one writable "
                  "PT_LOAD", ULL(relro_vaddr), ULL(relro_memsz));
    /* As the system loaders do: round the end down, so the page that may
     * also hold ordinary data stays writable. */
    l->relro_lo = page_floor(relro_vaddr, page);
    l->relro_hi = page_floor(relro_vaddr + relro_memsz, page);
    if (l->relro_hi < l->relro_lo) l->relro_hi = l->relro_lo;
  }
  return KILN_ELF_OK;
}

typedef struct dyn_values {
  uint64_t v[DT_RELR + 1];
  uint64_t seen; /* bit per tag below 64 */
} dyn_values_t;

static int parse_dynamic(const uint8_t *d, uint64_t off, uint64_t len,
                         dyn_values_t *dv, const kiln_message_buf_t *msg) {
  uint64_t n = len / ELF_DYN_SIZE;
  memset(dv, 0, sizeof *dv);
  for (uint64_t i = 0; i < n; i++) {
    const uint8_t *e = d + off + i * ELF_DYN_SIZE;
    uint64_t tag = kiln_elf_rd64(e), val = kiln_elf_rd64(e + 8);
    if (tag == DT_NULL) return KILN_ELF_OK;
    switch (tag) {
      case DT_NEEDED:
        return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "DT_NEEDED");
      case DT_INIT: case DT_FINI:
        return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "DT_INIT/DT_FINI");
      case DT_INIT_ARRAYSZ: case DT_FINI_ARRAYSZ: case DT_PREINIT_ARRAYSZ:
        if (val)
          return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "initializer arrays");
        break;
      case DT_REL: case DT_RELSZ: case DT_RELR: case DT_RELRSZ:
        if (val)
          return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "REL/RELR relocations");
        break;
      case DT_TEXTREL:
        return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "DT_TEXTREL");
      case DT_FLAGS:
        if (val & DF_TEXTREL)
          return UNSUPPORTED(NOT_SUPPORTED, DYN, ULL(i), "DF_TEXTREL");
        break;
      case DT_PLTRELSZ: case DT_HASH: case DT_STRTAB: case DT_SYMTAB:
      case DT_RELA: case DT_RELASZ: case DT_RELAENT: case DT_STRSZ:
      case DT_SYMENT: case DT_PLTREL: case DT_JMPREL:
        if (dv->seen & (1ull << tag))
          return FAIL("dynamic entry %llu: duplicate tag %llu", ULL(i), ULL(tag));
        dv->seen |= 1ull << tag;
        dv->v[tag] = val;
        break;
      default: /* DT_GNU_HASH, DT_FLAGS_1, DT_SONAME, versions...: unused */
        break;
    }
  }
  return FAIL("dynamic table (%llu entries at offset %llu) has no DT_NULL",
              ULL(n), ULL(off));
}

#define HAVE(t) ((dv.seen >> (t)) & 1u)

static int parse_tables(const uint8_t *d, kiln_elf_layout_t *l,
                        const dyn_values_t *dvp, const kiln_message_buf_t *msg) {
  dyn_values_t dv = *dvp;
  if (!HAVE(DT_HASH))
    return FAIL("no DT_HASH: link with --hash-style=sysv");
  if (!HAVE(DT_SYMTAB) || !HAVE(DT_STRTAB) || !HAVE(DT_STRSZ))
    return FAIL("dynamic table lacks DT_SYMTAB, DT_STRTAB or DT_STRSZ");
  if (HAVE(DT_SYMENT) && dv.v[DT_SYMENT] != ELF_SYM_SIZE)
    return FAIL(IS_NOT_LLU, "DT_SYMENT", ULL(dv.v[DT_SYMENT]), ELF_SYM_SIZE);

  /* Hash table: nbucket, nchain, buckets[nbucket], chains[nchain]. */
  uint64_t off;
  l->hash_vaddr = dv.v[DT_HASH];
  if (!vaddr_to_offset(l, l->hash_vaddr, 8, 1, &off))
    return FAIL(TABLE_NOT_READ_ONLY, "DT_HASH", ULL(l->hash_vaddr), 8ull,
                "bytes");
  uint32_t nbucket = kiln_elf_rd32(d + off), nchain = kiln_elf_rd32(d + off + 4);
  uint64_t hash_bytes = 8 + 4 * ((uint64_t)nbucket + nchain);
  if (nbucket == 0 || nchain == 0)
    return FAIL("hash table has %u buckets and %u chains", nbucket, nchain);
  if (!vaddr_to_offset(l, l->hash_vaddr, hash_bytes, 1, &l->hash_off))
    return FAIL("hash table 0x%llx (%llu bytes) exceeds its segment",
                ULL(l->hash_vaddr), ULL(hash_bytes));
  for (uint64_t i = 0; i < (uint64_t)nbucket + nchain; i++) {
    uint32_t v = kiln_elf_rd32(d + l->hash_off + 8 + 4 * i);
    if (v >= nchain)
      return FAIL("hash table %s %llu holds symbol index %u, beyond the %u "
                  "symbols", i < nbucket ? "bucket" : "chain",
                  ULL(i < nbucket ? i : i - nbucket), v, nchain);
  }
  l->nbucket = nbucket;
  l->nsyms = nchain; /* SysV hash: one chain entry per dynamic symbol */

  l->symtab_vaddr = dv.v[DT_SYMTAB];
  if (!vaddr_to_offset(l, l->symtab_vaddr, (uint64_t)l->nsyms * ELF_SYM_SIZE, 1,
                       &l->symtab_off))
    return FAIL(TABLE_NOT_READ_ONLY, "symbol", ULL(l->symtab_vaddr),
                ULL(l->nsyms), "symbols");
  l->strtab_vaddr = dv.v[DT_STRTAB];
  l->strsz = dv.v[DT_STRSZ];
  if (l->strsz == 0 ||
      !vaddr_to_offset(l, l->strtab_vaddr, l->strsz, 1, &l->strtab_off))
    return FAIL(TABLE_NOT_READ_ONLY, "string", ULL(l->strtab_vaddr),
                ULL(l->strsz), "bytes");
  if (d[l->strtab_off + l->strsz - 1] != 0)
    return FAIL("string table does not end with a NUL byte");
  return KILN_ELF_OK;
}

static int check_symbols(const uint8_t *d, const kiln_elf_layout_t *l,
                         const kiln_message_buf_t *msg) {
  const char *strtab = (const char *)d + l->strtab_off;
  for (uint32_t i = 1; i < l->nsyms; i++) {
    const uint8_t *s = d + l->symtab_off + (uint64_t)i * ELF_SYM_SIZE;
    uint32_t name = kiln_elf_rd32(s);
    uint32_t type = s[4] & 0xfu;
    uint16_t shndx = kiln_elf_rd16(s + 6);
    uint64_t value = kiln_elf_rd64(s + 8), sz = kiln_elf_rd64(s + 16);
    if (name >= l->strsz)
      return FAIL("symbol %u: name offset %u beyond the %llu-byte string table",
                  i, name, ULL(l->strsz));
    const char *nm = strtab + name;
    if (shndx == ELF_SHN_UNDEF)
      return FAIL("undefined symbol '%.80s' (symbol %u)", nm, i);
    if (type == ELF_STT_TLS || type == ELF_STT_GNU_IFUNC)
      return UNSUPPORTED("symbol '%.80s': %s symbols are not supported", nm,
                         type == ELF_STT_TLS ? "thread-local" : "IFUNC");
    if (shndx == ELF_SHN_ABS) continue;
    if (shndx >= ELF_SHN_LORESERVE)
      return FAIL("symbol '%.80s': reserved section index 0x%x", nm, shndx);
    if (value < l->span_lo || !in_range(value - l->span_lo, sz,
                                        l->span_hi - l->span_lo))
      return FAIL("symbol '%.80s': value 0x%llx size %llu outside the image "
                  "[0x%llx, 0x%llx)", nm, ULL(value), ULL(sz), ULL(l->span_lo),
                  ULL(l->span_hi));
  }
  return KILN_ELF_OK;
}

static int check_relocs(const uint8_t *d, kiln_elf_layout_t *l,
                        const dyn_values_t *dvp, const kiln_message_buf_t *msg) {
  dyn_values_t dv = *dvp;
  static const char *const table_name[2] = {"DT_RELA", "DT_JMPREL"};
  uint64_t vaddr[2] = {dv.v[DT_RELA], dv.v[DT_JMPREL]};
  uint64_t bytes[2] = {dv.v[DT_RELASZ], dv.v[DT_PLTRELSZ]};
  if (HAVE(DT_RELA) != HAVE(DT_RELASZ))
    return FAIL(TOGETHER, "DT_RELA", "DT_RELASZ");
  if (HAVE(DT_JMPREL) != HAVE(DT_PLTRELSZ))
    return FAIL(TOGETHER, "DT_JMPREL", "DT_PLTRELSZ");
  if (HAVE(DT_RELAENT) && dv.v[DT_RELAENT] != ELF_RELA_SIZE)
    return FAIL(IS_NOT_LLU, "DT_RELAENT", ULL(dv.v[DT_RELAENT]),
                ELF_RELA_SIZE);
  if (HAVE(DT_JMPREL) && dv.v[DT_PLTREL] != DT_RELA)
    return UNSUPPORTED(IS_NOT_LLU, "DT_PLTREL", ULL(dv.v[DT_PLTREL]),
                       DT_RELA);
  for (int t = 0; t < 2; t++) {
    if (bytes[t] == 0) continue;
    if (bytes[t] % ELF_RELA_SIZE)
      return FAIL("%s size %llu is not a multiple of %u", table_name[t],
                  ULL(bytes[t]), ELF_RELA_SIZE);
    if (!vaddr_to_offset(l, vaddr[t], bytes[t], 0, &l->rela_off[t]))
      return FAIL("%s table 0x%llx (%llu bytes) is not inside a file-backed "
                  "segment", table_name[t], ULL(vaddr[t]), ULL(bytes[t]));
    l->rela_count[t] = bytes[t] / ELF_RELA_SIZE;
    for (uint64_t i = 0; i < l->rela_count[t]; i++) {
      const uint8_t *r = d + l->rela_off[t] + i * ELF_RELA_SIZE;
      uint64_t where = kiln_elf_rd64(r), info = kiln_elf_rd64(r + 8);
      uint32_t type = (uint32_t)info, sym = (uint32_t)(info >> 32);
      kiln_elf_reloc_kind_t kind;
      if (!kiln_elf_reloc_kind(l->machine, type, &kind))
        return UNSUPPORTED("%s relocation %llu: type %u is not supported for %s",
                           table_name[t], ULL(i), type,
                           kiln_elf_machine_name(l->machine));
      if (sym >= l->nsyms)
        return FAIL("%s relocation %llu: symbol index %u beyond the %u symbols",
                    table_name[t], ULL(i), sym, l->nsyms);
      if (kind == KILN_ELF_RK_NONE) continue;
      if (!in_writable_segment(l, where, 8))
        return FAIL("%s relocation %llu: target 0x%llx is not inside a "
                    "writable segment", table_name[t], ULL(i), ULL(where));
      if (kind == KILN_ELF_RK_RELATIVE) {
        l->reloc_relative++;
      } else {
        if (sym == 0)
          return FAIL("%s relocation %llu: against the null symbol", table_name[t], ULL(i));
        l->reloc_symbolic++;
      }
    }
  }
  return KILN_ELF_OK;
}

/* Every check, with the message buffer as one pointer held across the
 * whole parse. With text, not inlined, so a failure site passes that
 * pointer (gcc would otherwise rebuild the buffer's stack address at
 * every site); without, no site uses it and the call would only cost. */
#ifdef KILN_NO_MESSAGES
#define PARSE_ONCE __attribute__((always_inline)) inline
#else
#define PARSE_ONCE __attribute__((noinline))
#endif
static PARSE_ONCE int parse(const uint8_t *data, size_t size, kiln_elf_layout_t *l,
                            const kiln_message_buf_t *msg) {
  int rc = parse_header(data, size, &l->machine, msg);
  if (rc) return rc;
  uint64_t dyn_off = 0, dyn_size = 0;
  if ((rc = parse_phdrs(data, size, l, &dyn_off, &dyn_size, msg)))
    return rc;
  dyn_values_t dv;
  if ((rc = parse_dynamic(data, dyn_off, dyn_size, &dv, msg))) return rc;
  if ((rc = parse_tables(data, l, &dv, msg))) return rc;
  if ((rc = check_symbols(data, l, msg))) return rc;
  if ((rc = check_relocs(data, l, &dv, msg))) return rc;
  uint32_t q = kiln_elf_hash_find(data + l->hash_off, data + l->symtab_off,
                                  (const char *)data + l->strtab_off, l->strsz,
                                  l->nsyms, "kiln_executable_query");
  l->has_query = q != 0 &&
                 (data[l->symtab_off + (uint64_t)q * ELF_SYM_SIZE + 4] & 0xfu) ==
                     ELF_STT_FUNC;
  return KILN_ELF_OK;
}

int kiln_elf_parse(const uint8_t *data, size_t size, uint64_t page,
                   kiln_elf_layout_t *l, char *msg, size_t msg_cap) {
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  memset(l, 0, sizeof *l);
  l->page = page;
  const kiln_message_buf_t buf = {msg, msg_cap};
  int rc = parse(data, size, l, &buf);
  if (!rc) KILN_MESSAGE_CLEAR(msg, msg_cap);
  return rc;
}
