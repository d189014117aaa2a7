/* Mapping of verified ELF shared objects into this process: a group
 * reserves one anonymous mapping for several images (so bss is zero for
 * free and each image is contiguous); each image gets its own page-aligned
 * slot, its PT_LOADs copied in and its RELA relocations applied; the
 * group's seal then makes everything read-only in one mprotect and
 * applies only what differs (text executable, writable data past RELRO,
 * gaps inaccessible), so N lld kernels cost N + 1 mprotects. W^X
 * throughout: no page is ever writable and executable. kiln_elf_load is a
 * group of one. Only the host machine is loaded; others can only be
 * verified.
 *
 * Every address written here comes from a kiln_elf_layout_t that
 * kiln_elf_parse accepted, so all targets lie inside the reservation. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_layout.h"
#include "elf_loader.h"

#if defined(__x86_64__)
#define HOST_MACHINE KILN_ELF_MACHINE_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE KILN_ELF_MACHINE_AARCH64
#elif defined(__riscv) && __riscv_xlen == 64
#define HOST_MACHINE KILN_ELF_MACHINE_RISCV
#else
#define HOST_MACHINE 0u
#endif


const char *kiln_elf_machine_name(uint32_t machine) {
  switch (machine) {
    case KILN_ELF_MACHINE_X86_64: return "x86_64";
    case KILN_ELF_MACHINE_AARCH64: return "aarch64";
    case KILN_ELF_MACHINE_RISCV: return "riscv64";
    default: return "unknown";
  }
}

/* Pages a group spans at least (kiln_elf_group_reserve). */
#define ELF_FLUSH_PAGES 34u

static uint64_t host_page(void) {
  long p = sysconf(_SC_PAGESIZE);
  return p >= 4096 && (p & (p - 1)) == 0 ? (uint64_t)p : 4096;
}

int kiln_elf_verify(const void *data, size_t size, kiln_elf_info_t *info,
                    char *msg, size_t msg_cap) {
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  kiln_elf_layout_t l;
  if (!data) return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_INVALID, "no ELF data");
  int rc = kiln_elf_parse(data, size, 4096, &l, msg, msg_cap);
  if (rc) return rc;
  if (info) {
    info->machine = l.machine;
    info->load_segments = l.load_count;
    info->image_size = l.span_hi - l.span_lo;
    info->symbol_count = l.nsyms;
    info->reloc_relative = l.reloc_relative;
    info->reloc_symbolic = l.reloc_symbolic;
    info->has_query = l.has_query;
  }
  return KILN_ELF_OK;
}

static uint64_t symbol_address(const uint8_t *d, const kiln_elf_layout_t *l,
                               uintptr_t bias, uint32_t sym) {
  const uint8_t *s = d + l->symtab_off + (uint64_t)sym * ELF_SYM_SIZE;
  uint64_t value = kiln_elf_rd64(s + 8);
  return kiln_elf_rd16(s + 6) == ELF_SHN_ABS ? value : bias + value;
}

static void relocate(const uint8_t *d, const kiln_elf_layout_t *l,
                     uintptr_t bias) {
  for (int t = 0; t < 2; t++) {
    for (uint64_t i = 0; i < l->rela_count[t]; i++) {
      const uint8_t *r = d + l->rela_off[t] + i * ELF_RELA_SIZE;
      uint64_t where = kiln_elf_rd64(r), info = kiln_elf_rd64(r + 8);
      uint64_t addend = kiln_elf_rd64(r + 16);
      kiln_elf_reloc_kind_t kind = KILN_ELF_RK_NONE;
      kiln_elf_reloc_kind(l->machine, (uint32_t)info, &kind);
      uint64_t value;
      switch (kind) {
        case KILN_ELF_RK_RELATIVE: value = bias + addend; break;
        case KILN_ELF_RK_SYM:
          value = symbol_address(d, l, bias, (uint32_t)(info >> 32));
          break;
        case KILN_ELF_RK_SYM_ADDEND:
          value = symbol_address(d, l, bias, (uint32_t)(info >> 32)) + addend;
          break;
        default: continue;
      }
      memcpy((void *)(bias + where), &value, sizeof value);
    }
  }
}

static int prot_of(uint32_t flags) {
  return ((flags & ELF_PF_R) ? PROT_READ : 0) |
         ((flags & ELF_PF_W) ? PROT_WRITE : 0) |
         ((flags & ELF_PF_X) ? PROT_EXEC : 0);
}

static kiln_elf_run_t *push(kiln_elf_run_t *r, uintptr_t lo, uintptr_t hi,
                            int prot) {
  if (hi > lo) {
    r->lo = lo;
    r->hi = hi;
    r++->prot = prot;
  }
  return r;
}

/* Protection runs of one image: the page ranges whose final protection
 * is not read-only (text; writable data outside RELRO: the RELRO part of
 * a writable segment stays read-only; inaccessible gaps between
 * segments). Segments never share a page (kiln_elf_parse). Returns the
 * count, at most 3 per PT_LOAD. */
static uint32_t image_runs(const kiln_elf_layout_t *l, uintptr_t bias,
                           kiln_elf_run_t *run) {
  const uint64_t page = l->page;
  kiln_elf_run_t *r = run;
  uint64_t prev = l->span_lo;
  /* An empty RELRO range splits nothing. */
  const int relro = l->relro_hi > l->relro_lo;
  for (uint32_t i = 0; i < l->load_count; i++) {
    const kiln_elf_segment_t *s = &l->load[i];
    uint64_t lo = s->vaddr & ~(page - 1);
    uint64_t hi = (s->vaddr + s->memsz + page - 1) & ~(page - 1);
    const int prot = prot_of(s->flags);
    r = push(r, bias + prev, bias + lo, PROT_NONE);
    prev = hi;
    if (prot == PROT_READ) continue;
#if defined(__aarch64__) || defined(__riscv)
    if (prot & PROT_EXEC)
      __builtin___clear_cache((char *)(bias + lo), (char *)(bias + hi));
#endif
    /* RELRO lies inside one writable segment: the parts before and
     * after it stay writable. */
    uint64_t before = hi, after = hi;
    if ((prot & PROT_WRITE) && relro) {
      before = hi < l->relro_lo ? hi : l->relro_lo;
      after = lo > l->relro_hi ? lo : l->relro_hi;
    }
    r = push(r, bias + lo, bias + before, prot);
    r = push(r, bias + after, bias + hi, prot);
  }
  return (uint32_t)(r - run);
}

/* Everything added since the last seal, up to END_AT bytes into the map,
 * read-only in one mprotect, then the deferred runs over it. */
static int seal_to(kiln_elf_group_t *g, size_t end_at, char *msg,
                   size_t msg_cap) {
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  const uintptr_t from = (uintptr_t)g->map + g->sealed;
  const uintptr_t end = (uintptr_t)g->map + end_at;
  int err = end > from && mprotect((void *)from, end - from, PROT_READ);
  for (uint32_t i = 0; i < g->runs; i++)
    err = err || mprotect((void *)g->run[i].lo, g->run[i].hi - g->run[i].lo,
                          g->run[i].prot);
  g->runs = 0;
  g->sealed = g->used = end_at;
  if (!err) return KILN_ELF_OK;
  return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_SYSTEM,
                       "mprotect of the ELF image failed: %s", strerror(errno));
}

/* The caller's seal is the last: it takes the whole rest of the map, the
 * padding of kiln_elf_group_reserve included, so the write-protect spans
 * enough pages for one whole TLB flush (see there). No image fits after. */
int kiln_elf_group_seal(kiln_elf_group_t *g, char *msg, size_t msg_cap) {
  return seal_to(g, g->map ? g->size : g->used, msg, msg_cap);
}

/* Verifies DATA and refuses a machine other than the host's unless
 * ANY_MACHINE. */
static int parse_for_load(const uint8_t *d, size_t size, int any_machine,
                          kiln_elf_layout_t *l, char *msg, size_t msg_cap) {
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  if (!d) return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_INVALID, "no ELF data");
  int rc = kiln_elf_parse(d, size, host_page(), l, msg, msg_cap);
  if (rc) return rc;
  if (l->machine != HOST_MACHINE && !any_machine)
    return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_UNSUPPORTED,
                         "ELF machine %s (%u) cannot run on this %s host",
                         kiln_elf_machine_name(l->machine), l->machine,
                         kiln_elf_machine_name(HOST_MACHINE));
  return KILN_ELF_OK;
}

/* Bytes a group needs for an image of layout l wherever it lands: its
 * span, plus slack to start on its strictest alignment. */
static uint64_t slot_bytes(const kiln_elf_layout_t *l) {
  return (l->span_hi - l->span_lo) + (l->align - l->page);
}

int kiln_elf_group_reserve(kiln_elf_group_t *group, char *msg,
                           size_t msg_cap) {
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  group->used = 0;
  if (!group->size) return KILN_ELF_OK;
  /* Writable, never executable, until each image's protect; faulted in
   * at once (cheaper than page by page as images are copied in) unless
   * alignment leaves pages no image uses.
   * Then at least ELF_FLUSH_PAGES pages: the seal's write-protect flushes
   * the TLB page by page up to x86 Linux's tlb_single_page_flush_ceiling
   * (33 pages), whole above it, and under a hypervisor that traps each
   * single-page flush (this project's VM, measured on 2026-11-28) 28
   * written pages cost 0.5-1.4 ms to write-protect and 0.5 ms to unmap,
   * where 34 take 0.08-0.16 and 0.04-0.1 ms. The padding is populated,
   * never written: a few microseconds, no fault at first use. Under 8
   * pages the page-by-page flush costs about what a whole one does (a
   * 1024^3 matmul's 4: 0.11-0.17 ms either way), so those stay as they
   * are. */
  const size_t page = (size_t)host_page();
  if (!group->slack && group->size >= 8 * page &&
      group->size < ELF_FLUSH_PAGES * page)
    group->size = ELF_FLUSH_PAGES * page;
  void *map = mmap(NULL, group->size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS |
                       (group->slack ? 0 : MAP_POPULATE),
                   -1, 0);
  if (map == MAP_FAILED)
    return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_SYSTEM,
                         "mmap of %zu bytes for ELF images failed: %s",
                         group->size, strerror(errno));
  group->map = map;
  return KILN_ELF_OK;
}

void kiln_elf_group_release(kiln_elf_group_t *group) {
  if (group && group->map) munmap(group->map, group->size);
  if (group) memset(group, 0, sizeof *group);
}

static int group_add(kiln_elf_group_t *g, const uint8_t *d, size_t size,
                     int any_machine, kiln_elf_image_t *image, char *msg,
                     size_t msg_cap) {
  memset(image, 0, sizeof *image);
  kiln_elf_layout_t l;
  int rc = parse_for_load(d, size, any_machine, &l, msg, msg_cap);
  if (rc) return rc;
  if (!g->map) {
    /* Measuring. Spans are at most ELF_MAX_IMAGE_SIZE: only the sum can
     * overflow. */
    if (__builtin_add_overflow(g->size, (size_t)slot_bytes(&l), &g->size))
      return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_SYSTEM,
                           "ELF images exceed the address space");
    g->slack |= l.align > l.page;
    return KILN_ELF_OK;
  }
  const uintptr_t base = (uintptr_t)g->map;
  const uintptr_t start =
      (base + g->used + (uintptr_t)(l.align - 1)) & ~(uintptr_t)(l.align - 1);
  const size_t span = (size_t)(l.span_hi - l.span_lo);
  if (start - base > g->size || span > g->size - (start - base))
    return kiln_elf_fail(msg, msg_cap, KILN_ELF_ERR_SYSTEM,
                         "ELF group full (add every image before reserving)");
  /* Its runs wait for the group's seal: a list that might not hold them
   * is applied first, with everything added before. */
  if (g->runs + 3 * l.load_count > KILN_ELF_GROUP_RUNS) {
    rc = seal_to(g, g->used, msg, msg_cap);
    if (rc) return rc;
  }
  g->used = start - base + span;
  const uintptr_t bias = start - (uintptr_t)l.span_lo;
  for (uint32_t i = 0; i < l.load_count; i++)
    memcpy((void *)(bias + l.load[i].vaddr), d + l.load[i].offset,
           (size_t)l.load[i].filesz);
  relocate(d, &l, bias);
  g->runs += image_runs(&l, bias, g->run + g->runs);
  image->map = (uint8_t *)start;
  image->map_size = span;
  image->bias = bias;
  image->symtab = (const uint8_t *)(bias + l.symtab_vaddr);
  image->strtab = (const char *)(bias + l.strtab_vaddr);
  image->hash = (const uint8_t *)(bias + l.hash_vaddr);
  image->strsz = l.strsz;
  image->nsyms = l.nsyms;
  image->machine = l.machine;
  KILN_MESSAGE_CLEAR(msg, msg_cap);
  return KILN_ELF_OK;
}

int kiln_elf_group_add(kiln_elf_group_t *group, const void *data, size_t size,
                       kiln_elf_image_t *image, char *msg, size_t msg_cap) {
  return group_add(group, data, size, 0, image, msg, msg_cap);
}

/* A group of one, owned by the image. */
static int load(const uint8_t *d, size_t size, int any_machine,
                kiln_elf_image_t *image, char *msg, size_t msg_cap) {
  kiln_elf_group_t g = {0};
  int rc = group_add(&g, d, size, any_machine, image, msg, msg_cap);
  if (!rc) rc = kiln_elf_group_reserve(&g, msg, msg_cap);
  if (!rc) rc = group_add(&g, d, size, any_machine, image, msg, msg_cap);
  if (!rc) rc = kiln_elf_group_seal(&g, msg, msg_cap);
  if (rc) {
    kiln_elf_group_release(&g);
    return rc;
  }
  image->owned = g.map;
  image->owned_size = g.size;
  return KILN_ELF_OK;
}

int kiln_elf_load(const void *data, size_t size, kiln_elf_image_t *image,
                  char *msg, size_t msg_cap) {
  return load(data, size, 0, image, msg, msg_cap);
}

int kiln_elf_map_any_machine(const void *data, size_t size,
                             kiln_elf_image_t *image, char *msg,
                             size_t msg_cap) {
  return load(data, size, 1, image, msg, msg_cap);
}

void *kiln_elf_lookup(const kiln_elf_image_t *image, const char *name) {
  if (!image || !image->map || !name) return NULL;
  uint32_t i = kiln_elf_hash_find(image->hash, image->symtab, image->strtab,
                                  image->strsz, image->nsyms, name);
  if (!i) return NULL;
  const uint8_t *s = image->symtab + (uint64_t)i * ELF_SYM_SIZE;
  uint64_t value = kiln_elf_rd64(s + 8);
  return (void *)(kiln_elf_rd16(s + 6) == ELF_SHN_ABS ? (uintptr_t)value
                                                      : image->bias + value);
}

void kiln_elf_unload(kiln_elf_image_t *image) {
  if (!image) return;
  if (image->owned) munmap(image->owned, image->owned_size);
  memset(image, 0, sizeof *image);
}
