/* Unit tests of runtime-min/src/elf: loads the x86-64 kernel library built
 * by this folder's CMakeLists.txt and calls its entry points, verifies the
 * aarch64 and riscv64 builds without running them (mapping them and checking
 * every relocation the loader wrote), and feeds the loader truncated and
 * field-by-field corrupted copies, each of which must be rejected with a
 * message naming the problem. The good files are trusted here, so the
 * mutators locate fields with <elf.h>. */
#include <check.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_layout.h"
#include "elf_loader.h"
#include "kiln/executable_abi.h"

static uint8_t *read_file(const char *name, size_t *size) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", KERNEL_DIR, name);
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s", path);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)n);
  ck_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
  fclose(f);
  *size = (size_t)n;
  return b;
}

#if defined(__x86_64__)
#define HOST_FILE "kernel_x86_64"
#define FOREIGN_FILE "kernel_aarch64"
#define FOREIGN_MSG "ELF machine aarch64 (183) cannot run on this x86_64 host"
#elif defined(__aarch64__)
#define HOST_FILE "kernel_aarch64"
#define FOREIGN_FILE "kernel_x86_64"
#define FOREIGN_MSG "ELF machine x86_64 (62) cannot run on this aarch64 host"
#endif

/* ---- loading and running ------------------------------------------- */

/* Permissions of the /proc/self/maps line holding ADDR ("r-xp" ...), and
 * whether any line inside [lo, hi) is writable and executable. */
static int maps_perms(const void *addr, char perms[5], const void *lo,
                      const void *hi, int *wx) {
  FILE *f = fopen("/proc/self/maps", "r");
  ck_assert(f != NULL);
  char line[512];
  int found = 0;
  *wx = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long s, e;
    char p[5];
    if (sscanf(line, "%lx-%lx %4s", &s, &e, p) != 3) continue;
    if (s < (unsigned long)hi && e > (unsigned long)lo && p[1] == 'w' && p[2] == 'x')
      *wx = 1;
    if ((unsigned long)addr >= s && (unsigned long)addr < e) {
      memcpy(perms, p, 5);
      found = 1;
    }
  }
  fclose(f);
  return found;
}

static void run_kernel_library(const char *file) {
  size_t n;
  uint8_t *b = read_file(file, &n);
  kiln_elf_image_t img;
  char msg[256];
  int rc = kiln_elf_load(b, n, &img, msg, sizeof msg);
  ck_assert_msg(rc == KILN_ELF_OK, "%s: %s", file, msg);
  memset(b, 0xcc, n); /* the image must not refer back to the input */
  free(b);

  kiln_executable_query_fn query =
      (kiln_executable_query_fn)kiln_elf_lookup(&img, KILN_EXECUTABLE_QUERY_SYMBOL);
  ck_assert_ptr_nonnull(query);
  ck_assert_ptr_null(query(KILN_EXECUTABLE_ABI_VERSION + 1));
  const kiln_executable_table_t *t = query(KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_ptr_nonnull(t);
  ck_assert_uint_eq(t->abi_version, KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_uint_eq(t->export_count, 3);
  ck_assert_str_eq(t->exports[0].name, "add_f32");
  ck_assert_str_eq(t->exports[1].name, "scale_i32");
  ck_assert_str_eq(t->exports[2].name, "fail_odd");
  ck_assert_uint_eq(t->exports[0].workgroup_size[0], 64);
  ck_assert_uint_eq(t->exports[0].binding_count, 3);
  ck_assert_uint_eq(t->exports[0].readonly_binding_mask, 3);

  /* add_f32 over 100 elements = two workgroups of 64. */
  float a[128], bb[128], out[128];
  for (int i = 0; i < 128; i++) a[i] = (float)i, bb[i] = 0.5f * (float)i, out[i] = -1;
  void *ptrs[3] = {a, bb, out};
  uint64_t lens[3] = {sizeof a, sizeof bb, sizeof out};
  uint32_t pc[1] = {100};
  kiln_dispatch_state_t d = {{64, 1, 1}, {2, 1, 1}, 1, 1, pc, 3, 0, ptrs, lens};
  for (uint32_t wg = 0; wg < 2; wg++) {
    kiln_workgroup_state_t w = {{wg, 0, 0}, 0, NULL, 0};
    ck_assert_int_eq(t->exports[0].entry(&d, &w), 0);
  }
  for (int i = 0; i < 100; i++) ck_assert_float_eq(out[i], 1.5f * (float)i);
  for (int i = 100; i < 128; i++) ck_assert_float_eq(out[i], -1.0f);

  /* scale_i32 bumps the exported counter through the PLT and GOT. */
  int *counter = kiln_elf_lookup(&img, "kiln_test_counter");
  int **counter_ptr = kiln_elf_lookup(&img, "kiln_test_counter_ptr");
  ck_assert_ptr_nonnull(counter);
  ck_assert_ptr_nonnull(counter_ptr);
  ck_assert_ptr_eq(*counter_ptr, counter); /* symbolic 64-bit relocation */
  ck_assert_int_eq(*counter, 0);
  int32_t x[4] = {1, 2, 3, -4};
  void *xp[1] = {x};
  uint32_t three[1] = {3};
  kiln_dispatch_state_t d2 = {{1, 1, 1}, {4, 1, 1}, 1, 1, three, 1, 0, xp, lens};
  for (uint32_t wg = 0; wg < 4; wg++) {
    kiln_workgroup_state_t w = {{wg, 0, 0}, 0, NULL, 0};
    ck_assert_int_eq(t->exports[1].entry(&d2, &w), 0);
  }
  ck_assert_int_eq(x[0], 3);
  ck_assert_int_eq(x[3], -12);
  ck_assert_int_eq(*counter, 4);

  kiln_workgroup_state_t w0 = {{0, 0, 0}, 0, NULL, 0}, w1 = {{1, 0, 0}, 0, NULL, 0};
  ck_assert_int_eq(t->exports[2].entry(&d, &w0), 0);
  ck_assert_int_eq(t->exports[2].entry(&d, &w1), 7);

  const int *bss = kiln_elf_lookup(&img, "kiln_test_bss");
  ck_assert_ptr_nonnull(bss);
  for (int i = 0; i < 1024; i++) ck_assert_int_eq(bss[i], 0);
  ck_assert_ptr_null(kiln_elf_lookup(&img, "add_f32")); /* static */
  ck_assert_ptr_null(kiln_elf_lookup(&img, "no_such_symbol"));
  ck_assert_ptr_null(kiln_elf_lookup(&img, ""));

  /* W^X and RELRO as the kernel sees them. */
  char perms[5];
  int wx;
  const void *lo = img.map, *hi = img.map + img.map_size;
  ck_assert(maps_perms((const void *)query, perms, lo, hi, &wx));
  ck_assert_str_eq(perms, "r-xp");
  ck_assert_int_eq(wx, 0);
  ck_assert(maps_perms(t, perms, lo, hi, &wx));
  ck_assert_str_eq(perms, "r--p"); /* export table is RELRO */
  ck_assert(maps_perms(counter, perms, lo, hi, &wx));
  ck_assert_str_eq(perms, "rw-p");

  kiln_elf_unload(&img);
  ck_assert_ptr_null(img.map);
  kiln_elf_unload(&img); /* idempotent */
}

START_TEST(load_and_run) {
  char name[64];
  snprintf(name, sizeof name, "%s.so", HOST_FILE);
  run_kernel_library(name);
  snprintf(name, sizeof name, "%s_icf.so", HOST_FILE);
  run_kernel_library(name);
}
END_TEST

START_TEST(load_twice_independent) {
  size_t n;
  char name[64];
  snprintf(name, sizeof name, "%s.so", HOST_FILE);
  uint8_t *b = read_file(name, &n);
  kiln_elf_image_t i1, i2;
  char msg[256];
  ck_assert_int_eq(kiln_elf_load(b, n, &i1, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_elf_load(b, n, &i2, msg, sizeof msg), 0);
  int *c1 = kiln_elf_lookup(&i1, "kiln_test_counter");
  int *c2 = kiln_elf_lookup(&i2, "kiln_test_counter");
  ck_assert_ptr_ne(c1, c2);
  *c1 = 5;
  ck_assert_int_eq(*c2, 0);
  kiln_elf_unload(&i1);
  kiln_elf_unload(&i2);
  free(b);
}
END_TEST

/* A sealed image of the group: text executable, the export table
 * (RELRO) read-only, the counter writable, no page writable and
 * executable. */
static void check_sealed(const kiln_elf_image_t *img, const kiln_elf_group_t *g) {
  char perms[5];
  int wx;
  const void *query = kiln_elf_lookup(img, KILN_EXECUTABLE_QUERY_SYMBOL);
  ck_assert(maps_perms(query, perms, g->map, g->map + g->size, &wx));
  ck_assert_str_eq(perms, "r-xp");
  ck_assert_int_eq(wx, 0);
  const kiln_executable_table_t *t =
      ((kiln_executable_query_fn)(uintptr_t)query)(KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_ptr_nonnull(t);
  ck_assert(maps_perms(t, perms, g->map, g->map + g->size, &wx));
  ck_assert_str_eq(perms, "r--p");
  ck_assert(maps_perms(kiln_elf_lookup(img, "kiln_test_counter"), perms, g->map,
                       g->map + g->size, &wx));
  ck_assert_str_eq(perms, "rw-p");
}

/* Three images in one group: each runs with its own data, keeps W^X and
 * RELRO (writable, nothing executable until the seal; text executable,
 * the export table read-only after it), and lies inside the group; a
 * fourth, not measured, finds no room;
 * measuring a foreign object fails like kiln_elf_load. */
START_TEST(group_of_images) {
  size_t n;
  char name[64];
  snprintf(name, sizeof name, "%s.so", HOST_FILE);
  uint8_t *b = read_file(name, &n);
  char msg[256];
  kiln_elf_group_t g = {0};
  kiln_elf_image_t img[3];
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(kiln_elf_group_add(&g, b, n, &img[i], msg, sizeof msg), 0);
    ck_assert_ptr_null(img[i].map); /* measured, not mapped */
  }
  ck_assert_uint_gt(g.size, 0);
  const size_t measured = g.size, page = (size_t)sysconf(_SC_PAGESIZE);
  ck_assert_int_eq(kiln_elf_group_reserve(&g, msg, sizeof msg), 0);
  /* 8 to 33 pages (unaligned images) grow to 34: a seal above the
   * kernel's single-page TLB flush ceiling. */
  const int padded = !g.slack && measured >= 8 * page && measured < 34 * page;
  ck_assert_uint_eq(g.size, padded ? 34 * page : measured);
  int *counter[3];
  char perms[5];
  int wx;
  for (int i = 0; i < 3; i++) {
    ck_assert_msg(kiln_elf_group_add(&g, b, n, &img[i], msg, sizeof msg) == 0,
                  "%s", msg);
    ck_assert(img[i].map >= g.map && img[i].map + img[i].map_size <= g.map + g.size);
    counter[i] = kiln_elf_lookup(&img[i], "kiln_test_counter");
    ck_assert_ptr_nonnull(counter[i]);
    /* Until the seal: writable, nothing executable. */
    const void *query = kiln_elf_lookup(&img[i], KILN_EXECUTABLE_QUERY_SYMBOL);
    ck_assert(maps_perms(query, perms, g.map, g.map + g.size, &wx));
    ck_assert_str_eq(perms, "rw-p");
    ck_assert_int_eq(wx, 0);
  }
  ck_assert_int_eq(kiln_elf_group_seal(&g, msg, sizeof msg), 0);
  ck_assert_int_eq(kiln_elf_group_seal(&g, msg, sizeof msg), 0); /* idempotent */
  /* The seal covers the whole map, padding included. */
  ck_assert(maps_perms(g.map + g.size - 1, perms, g.map, g.map + g.size, &wx));
  ck_assert_str_eq(perms, "r--p");
  *counter[1] = 5;
  ck_assert_int_eq(*counter[0] + *counter[2], 0);
  for (int i = 0; i < 3; i++) check_sealed(&img[i], &g);
  kiln_elf_image_t extra;
  ck_assert_int_eq(kiln_elf_group_add(&g, b, n, &extra, msg, sizeof msg),
                   KILN_ELF_ERR_SYSTEM);
  ck_assert_msg(strstr(msg, "ELF group full"), "%s", msg);
  kiln_elf_unload(&img[0]); /* not its own mapping: nothing happens */
  ck_assert_int_eq(*counter[1], 5);
  kiln_elf_group_release(&g);
  ck_assert_ptr_null(g.map);
  kiln_elf_group_release(&g); /* idempotent */
  free(b);
  snprintf(name, sizeof name, "%s.so", FOREIGN_FILE);
  b = read_file(name, &n);
  ck_assert_int_eq(kiln_elf_group_add(&g, b, n, &extra, msg, sizeof msg),
                   KILN_ELF_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, FOREIGN_MSG);
  ck_assert_uint_eq(g.size, 0);
  free(b);
}
END_TEST

static void verify_library(const char *file, uint32_t machine) {
  size_t n;
  uint8_t *b = read_file(file, &n);
  kiln_elf_info_t info;
  char msg[256];
  int rc = kiln_elf_verify(b, n, &info, msg, sizeof msg);
  ck_assert_msg(rc == KILN_ELF_OK, "%s: %s", file, msg);
  ck_assert_uint_eq(info.machine, machine);
  ck_assert_uint_eq(info.has_query, 1);
  ck_assert_uint_ge(info.load_segments, 3);
  /* 3 names + 3 entries + the exports pointer; GOT, PLT and a data word. */
  ck_assert_uint_ge(info.reloc_relative, 7);
  ck_assert_uint_ge(info.reloc_symbolic, 3);
  ck_assert_uint_gt(info.image_size, 0);
  free(b);
}

START_TEST(verify_every_machine) {
  verify_library("kernel_x86_64.so", KILN_ELF_MACHINE_X86_64);
  verify_library("kernel_x86_64_icf.so", KILN_ELF_MACHINE_X86_64);
  verify_library("kernel_aarch64.so", KILN_ELF_MACHINE_AARCH64);
  verify_library("kernel_aarch64_icf.so", KILN_ELF_MACHINE_AARCH64);
  verify_library("kernel_riscv64.so", KILN_ELF_MACHINE_RISCV);
  verify_library("kernel_riscv64_icf.so", KILN_ELF_MACHINE_RISCV);
}
END_TEST

START_TEST(foreign_machine_refused) {
  size_t n;
  char name[64];
  snprintf(name, sizeof name, "%s.so", FOREIGN_FILE);
  uint8_t *b = read_file(name, &n);
  kiln_elf_image_t img;
  char msg[256];
  ck_assert_int_eq(kiln_elf_load(b, n, &img, msg, sizeof msg),
                   KILN_ELF_ERR_UNSUPPORTED);
  ck_assert_str_eq(msg, FOREIGN_MSG);
  ck_assert_ptr_null(img.map);
  free(b);
}
END_TEST

START_TEST(undefined_symbol_refused) {
  size_t n;
  uint8_t *b = read_file("undefined_x86_64.so", &n);
  char msg[256];
  kiln_elf_image_t img;
  ck_assert_int_eq(kiln_elf_verify(b, n, NULL, msg, sizeof msg), KILN_ELF_ERR_INVALID);
  ck_assert_msg(strstr(msg, "undefined symbol 'kiln_missing_function'"), "%s", msg);
  ck_assert_int_ne(kiln_elf_load(b, n, &img, msg, sizeof msg), 0);
  free(b);
}
END_TEST

START_TEST(null_and_tiny_inputs) {
  char msg[128];
  kiln_elf_image_t img;
  ck_assert_int_eq(kiln_elf_verify(NULL, 0, NULL, msg, sizeof msg), KILN_ELF_ERR_INVALID);
  ck_assert_int_eq(kiln_elf_load(NULL, 0, &img, msg, sizeof msg), KILN_ELF_ERR_INVALID);
  /* A NULL message buffer is allowed. */
  ck_assert_int_eq(kiln_elf_verify("\x7f" "ELF", 4, NULL, NULL, 0), KILN_ELF_ERR_INVALID);
  ck_assert_str_eq(kiln_elf_machine_name(3), "unknown");
}
END_TEST

/* Every proper prefix of a good library is rejected (its section headers
 * sit at the end), each copy in an exact-size buffer so an over-read
 * shows under AddressSanitizer. */
START_TEST(every_truncation_rejected) {
  size_t n;
  uint8_t *b = read_file("kernel_x86_64.so", &n);
  char msg[256];
  for (size_t len = 0; len < n; len++) {
    uint8_t *c = malloc(len ? len : 1);
    memcpy(c, b, len);
    msg[0] = 0;
    int rc = kiln_elf_verify(c, len, NULL, msg, sizeof msg);
    ck_assert_msg(rc != 0, "prefix of %zu bytes accepted", len);
    ck_assert_msg(msg[0] != 0, "prefix of %zu bytes: empty message", len);
    if (len % 61 == 0) {
      kiln_elf_image_t img;
      ck_assert_int_ne(kiln_elf_load(c, len, &img, msg, sizeof msg), 0);
    }
    free(c);
  }
  free(b);
}
END_TEST

/* ---- field-by-field corruption ----------------------------------- */

typedef struct elf_view {
  uint8_t *b;
  size_t n;
  Elf64_Ehdr *eh;
} elf_view_t;

static Elf64_Phdr *phdr_of(elf_view_t *v, uint32_t type, int nth) {
  for (int i = 0; i < v->eh->e_phnum; i++) {
    Elf64_Phdr *p = (Elf64_Phdr *)(v->b + v->eh->e_phoff) + i;
    if (p->p_type == type && nth-- == 0) return p;
  }
  ck_abort_msg("no program header of type %u", type);
  return NULL;
}

static uint64_t file_off(elf_view_t *v, uint64_t vaddr) {
  for (int i = 0;; i++) {
    Elf64_Phdr *p = phdr_of(v, PT_LOAD, i);
    if (vaddr >= p->p_vaddr && vaddr < p->p_vaddr + p->p_filesz)
      return p->p_offset + (vaddr - p->p_vaddr);
  }
}

static Elf64_Dyn *dyn_of(elf_view_t *v, int64_t tag) {
  Elf64_Phdr *p = phdr_of(v, PT_DYNAMIC, 0);
  for (Elf64_Dyn *d = (Elf64_Dyn *)(v->b + p->p_offset);; d++) {
    if (d->d_tag == tag) return d;
    ck_assert_msg(d->d_tag != DT_NULL, "no dynamic tag %lld", (long long)tag);
  }
}

static uint32_t *hash_of(elf_view_t *v) {
  return (uint32_t *)(v->b + file_off(v, dyn_of(v, DT_HASH)->d_un.d_ptr));
}

static Elf64_Sym *sym_named(elf_view_t *v, const char *name) {
  Elf64_Sym *s = (Elf64_Sym *)(v->b + file_off(v, dyn_of(v, DT_SYMTAB)->d_un.d_ptr));
  const char *str = (const char *)v->b + file_off(v, dyn_of(v, DT_STRTAB)->d_un.d_ptr);
  for (uint32_t i = 1; i < hash_of(v)[1]; i++)
    if (strcmp(str + s[i].st_name, name) == 0) return &s[i];
  ck_abort_msg("no symbol %s", name);
  return NULL;
}

static Elf64_Rela *rela_of(elf_view_t *v, int64_t tag) {
  return (Elf64_Rela *)(v->b + file_off(v, dyn_of(v, tag)->d_un.d_ptr));
}

static Elf64_Shdr *shdr_of(elf_view_t *v, int i) {
  return (Elf64_Shdr *)(v->b + v->eh->e_shoff) + i;
}

#define MUT(name) static void name(elf_view_t *v)
MUT(bad_magic) { v->b[1] = 'X'; }
MUT(class32) { v->b[EI_CLASS] = ELFCLASS32; }
MUT(big_endian) { v->b[EI_DATA] = ELFDATA2MSB; }
MUT(ident_version) { v->b[EI_VERSION] = 9; }
MUT(type_exec) { v->eh->e_type = ET_EXEC; }
MUT(machine_i386) { v->eh->e_machine = EM_386; }
MUT(version0) { v->eh->e_version = 0; }
MUT(ehsize) { v->eh->e_ehsize = 52; }
MUT(phentsize) { v->eh->e_phentsize = 32; }
MUT(phnum0) { v->eh->e_phnum = 0; }
MUT(phnum_xnum) { v->eh->e_phnum = 0xffff; }
MUT(phoff_end) { v->eh->e_phoff = v->n - 8; }
MUT(phoff_wrap) { v->eh->e_phoff = UINT64_MAX - 16; }
MUT(shoff_wrap) { v->eh->e_shoff = UINT64_MAX - 100; }
MUT(shnum_huge) { v->eh->e_shnum = 0xfff0; }
MUT(shentsize) { v->eh->e_shentsize = 40; }
MUT(shstrndx) { v->eh->e_shstrndx = v->eh->e_shnum; }
MUT(shnum0) { v->eh->e_shnum = 0; }
MUT(section_off) { shdr_of(v, 1)->sh_offset = 1ull << 40; }
MUT(filesz_gt_memsz) { Elf64_Phdr *p = phdr_of(v, PT_LOAD, 0); p->p_memsz = p->p_filesz - 8; }
MUT(load_off_huge) { phdr_of(v, PT_LOAD, 1)->p_offset = 1ull << 40; }
MUT(load_off_wrap) { phdr_of(v, PT_LOAD, 1)->p_offset = UINT64_MAX - 4; }
MUT(load_vaddr_huge) { phdr_of(v, PT_LOAD, 0)->p_vaddr = 1ull << 62; }
MUT(load_memsz_huge) { phdr_of(v, PT_LOAD, 2)->p_memsz = 1ull << 40; }
MUT(load_wx) { phdr_of(v, PT_LOAD, 1)->p_flags |= PF_W; }
MUT(load_overlap) { phdr_of(v, PT_LOAD, 1)->p_vaddr = phdr_of(v, PT_LOAD, 0)->p_vaddr; }
MUT(load_align) { phdr_of(v, PT_LOAD, 0)->p_align = 3; }
MUT(too_many_loads) { /* every header a copy of the first PT_LOAD */
  v->eh->e_phnum = 17;
  memset(v->b + v->eh->e_phoff, 0, 17 * sizeof(Elf64_Phdr));
  for (uint64_t i = 0; i < 17; i++) {
    Elf64_Phdr *p = (Elf64_Phdr *)(v->b + v->eh->e_phoff) + i;
    p->p_type = PT_LOAD, p->p_flags = PF_R, p->p_vaddr = i << 12, p->p_memsz = 16;
  }
}
MUT(dyn_off) { phdr_of(v, PT_DYNAMIC, 0)->p_offset = v->n; }
MUT(no_dynamic) { phdr_of(v, PT_DYNAMIC, 0)->p_type = PT_NULL; }
MUT(two_dynamic) { phdr_of(v, PT_GNU_STACK, 0)->p_type = PT_DYNAMIC; }
MUT(tls) { phdr_of(v, PT_GNU_STACK, 0)->p_type = PT_TLS; }
MUT(interp) { phdr_of(v, PT_GNU_STACK, 0)->p_type = PT_INTERP; }
MUT(relro_outside) { phdr_of(v, PT_GNU_RELRO, 0)->p_vaddr = 0; }
MUT(no_dt_null) { dyn_of(v, DT_NULL)->d_tag = DT_DEBUG; }
MUT(dt_needed) { dyn_of(v, DT_FLAGS_1)->d_tag = DT_NEEDED; }
MUT(dt_textrel) { dyn_of(v, DT_FLAGS)->d_tag = DT_TEXTREL; }
MUT(df_textrel) { dyn_of(v, DT_FLAGS)->d_un.d_val |= DF_TEXTREL; }
MUT(dt_init) { dyn_of(v, DT_FLAGS)->d_tag = DT_INIT; }
MUT(dt_rel) { Elf64_Dyn *d = dyn_of(v, DT_FLAGS); d->d_tag = DT_REL; d->d_un.d_val = 8; }
MUT(no_hash) { dyn_of(v, DT_HASH)->d_tag = DT_GNU_HASH; }
MUT(hash_far) { dyn_of(v, DT_HASH)->d_un.d_ptr = 1ull << 40; }
MUT(tables_unreadable) { phdr_of(v, PT_LOAD, 0)->p_flags = 0; }
MUT(symtab_writable) { dyn_of(v, DT_SYMTAB)->d_un.d_ptr = phdr_of(v, PT_LOAD, 2)->p_vaddr; }
MUT(no_strtab) { dyn_of(v, DT_STRTAB)->d_tag = DT_DEBUG; }
MUT(strsz_huge) { dyn_of(v, DT_STRSZ)->d_un.d_val = 1ull << 40; }
MUT(syment) { dyn_of(v, DT_SYMENT)->d_un.d_val = 16; }
MUT(relaent) { dyn_of(v, DT_RELAENT)->d_un.d_val = 16; }
MUT(relasz_odd) { dyn_of(v, DT_RELASZ)->d_un.d_val = 25; }
MUT(relasz_huge) { dyn_of(v, DT_RELASZ)->d_un.d_val = 24ull << 36; }
MUT(no_relasz) { dyn_of(v, DT_RELASZ)->d_tag = DT_DEBUG; }
MUT(pltrel_rel) { dyn_of(v, DT_PLTREL)->d_un.d_val = DT_REL; }
MUT(dup_symtab) { dyn_of(v, DT_FLAGS)->d_tag = DT_SYMTAB; }
MUT(nbucket0) { hash_of(v)[0] = 0; }
MUT(bucket_range) { hash_of(v)[2] = 0xffff; }
MUT(chain_range) { uint32_t *h = hash_of(v); h[2 + h[0] + 1] = h[1] + 5; }
MUT(nchain_huge) { hash_of(v)[1] = 0x10000000; }
MUT(strtab_unterminated) {
  uint64_t sz = dyn_of(v, DT_STRSZ)->d_un.d_val;
  v->b[file_off(v, dyn_of(v, DT_STRTAB)->d_un.d_ptr) + sz - 1] = 'x';
}
MUT(sym_name) { sym_named(v, "kiln_test_bump")->st_name = 0x7fffffff; }
MUT(sym_undefined) { sym_named(v, "kiln_test_bump")->st_shndx = SHN_UNDEF; }
MUT(sym_value) { sym_named(v, "kiln_test_counter")->st_value = 1ull << 40; }
MUT(sym_size) { sym_named(v, "kiln_test_counter")->st_size = 1ull << 40; }
MUT(sym_tls) {
  Elf64_Sym *s = sym_named(v, "kiln_test_counter");
  s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_TLS);
}
MUT(sym_ifunc) {
  Elf64_Sym *s = sym_named(v, "kiln_test_bump");
  s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_GNU_IFUNC);
}
MUT(sym_common) { sym_named(v, "kiln_test_counter")->st_shndx = SHN_COMMON; }
MUT(rel_far) { rela_of(v, DT_RELA)[0].r_offset = 1ull << 40; }
MUT(rel_text) { rela_of(v, DT_RELA)[0].r_offset = phdr_of(v, PT_LOAD, 1)->p_vaddr; }
MUT(rel_straddle) {
  Elf64_Phdr *p = phdr_of(v, PT_LOAD, 2);
  rela_of(v, DT_RELA)[0].r_offset = p->p_vaddr + p->p_memsz - 4;
}
MUT(rel_sym_range) { rela_of(v, DT_RELA)[0].r_info = ELF64_R_INFO(1000, R_X86_64_RELATIVE); }
MUT(rel_type) { rela_of(v, DT_RELA)[0].r_info = ELF64_R_INFO(0, R_X86_64_IRELATIVE); }
MUT(rel_null_sym) { rela_of(v, DT_RELA)[0].r_info = ELF64_R_INFO(0, R_X86_64_GLOB_DAT); }
MUT(jmprel_far) { rela_of(v, DT_JMPREL)[0].r_offset = 1ull << 40; }

typedef struct mutation {
  const char *name;
  void (*apply)(elf_view_t *);
  const char *expect; /* substring of the error message */
} mutation_t;

#define M(fn, expect) {#fn, fn, expect}
static const mutation_t mutations[] = {
    M(bad_magic, "bad magic"),
    M(class32, "ELFCLASS64"),
    M(big_endian, "little-endian"),
    M(ident_version, "ident version"),
    M(type_exec, "ET_DYN"),
    M(machine_i386, "ELF machine 3 is not"),
    M(version0, "ELF version 0"),
    M(ehsize, "e_ehsize"),
    M(phentsize, "e_phentsize"),
    M(phnum0, "e_phnum 0"),
    M(phnum_xnum, "e_phnum 65535"),
    M(phoff_end, "program headers at offset"),
    M(phoff_wrap, "program headers at offset"),
    M(shoff_wrap, "section headers at offset"),
    M(shnum_huge, "section headers at offset"),
    M(shentsize, "e_shentsize"),
    M(shstrndx, "e_shstrndx"),
    M(shnum0, "extended section numbering"),
    M(section_off, "section 1: offset"),
    M(filesz_gt_memsz, "p_filesz"),
    M(load_off_huge, "exceeds the"),
    M(load_off_wrap, "exceeds the"),
    M(load_vaddr_huge, "outside the supported address range"),
    M(load_memsz_huge, "outside the supported address range"),
    M(load_wx, "writable and executable"),
    M(load_overlap, "shares a page"),
    M(load_align, "p_align 3"),
    M(too_many_loads, "more than 16 PT_LOAD"),
    M(dyn_off, "PT_DYNAMIC at offset"),
    M(no_dynamic, "no PT_DYNAMIC"),
    M(two_dynamic, "second PT_DYNAMIC"),
    M(tls, "PT_TLS"),
    M(interp, "PT_INTERP"),
    M(relro_outside, "PT_GNU_RELRO"),
    M(no_dt_null, "has no DT_NULL"),
    M(dt_needed, "DT_NEEDED"),
    M(dt_textrel, "DT_TEXTREL"),
    M(df_textrel, "DF_TEXTREL"),
    M(dt_init, "no support for DT_INIT"),
    M(dt_rel, "no support for REL/RELR"),
    M(no_hash, "no DT_HASH"),
    M(hash_far, "DT_HASH table 0x10000000000"),
    M(tables_unreadable, "DT_HASH table 0x"),
    M(symtab_writable, "symbol table"),
    M(no_strtab, "lacks DT_SYMTAB, DT_STRTAB"),
    M(strsz_huge, "string table"),
    M(syment, "DT_SYMENT 16"),
    M(relaent, "DT_RELAENT 16"),
    M(relasz_odd, "not a multiple of 24"),
    M(relasz_huge, "DT_RELA table"),
    M(no_relasz, "DT_RELA and DT_RELASZ"),
    M(pltrel_rel, "DT_PLTREL 17"),
    M(dup_symtab, "duplicate tag 6"),
    M(nbucket0, "0 buckets"),
    M(bucket_range, "bucket 0 holds symbol index 65535"),
    M(chain_range, "chain 1 holds symbol index"),
    M(nchain_huge, "hash table 0x"),
    M(strtab_unterminated, "does not end with a NUL"),
    M(sym_name, "name offset 2147483647"),
    M(sym_undefined, "undefined symbol 'kiln_test_bump'"),
    M(sym_value, "'kiln_test_counter': value 0x10000000000"),
    M(sym_size, "outside the image"),
    M(sym_tls, "thread-local"),
    M(sym_ifunc, "IFUNC"),
    M(sym_common, "reserved section index 0xfff2"),
    M(rel_far, "DT_RELA relocation 0: target 0x10000000000 is not inside a writable"),
    M(rel_text, "is not inside a writable segment"),
    M(rel_straddle, "is not inside a writable segment"),
    M(rel_sym_range, "symbol index 1000 beyond"),
    M(rel_type, "type 37 is not supported for x86_64"),
    M(rel_null_sym, "null symbol"),
    M(jmprel_far, "DT_JMPREL relocation 0: target"),
};

START_TEST(mutation_rejected) {
  const mutation_t *m = &mutations[_i];
  size_t n;
  uint8_t *b = read_file("kernel_x86_64.so", &n);
  elf_view_t v = {b, n, (Elf64_Ehdr *)b};
  m->apply(&v);
  char msg[256] = "";
  int rc = kiln_elf_verify(b, n, NULL, msg, sizeof msg);
  ck_assert_msg(rc != 0, "%s: accepted", m->name);
  ck_assert_msg(strstr(msg, m->expect), "%s: message '%s' lacks '%s'", m->name,
                msg, m->expect);
  kiln_elf_image_t img;
  char msg2[256] = "";
  ck_assert_int_eq(kiln_elf_load(b, n, &img, msg2, sizeof msg2), rc);
  ck_assert_str_eq(msg2, msg);
  ck_assert_ptr_null(img.map);
  free(b);
}
END_TEST

/* A hash chain that loops on itself passes the index checks; lookups must
 * still terminate. */
START_TEST(hash_cycle_terminates) {
  size_t n;
  char name[64];
  snprintf(name, sizeof name, "%s.so", HOST_FILE);
  uint8_t *b = read_file(name, &n);
  elf_view_t v = {b, n, (Elf64_Ehdr *)b};
  uint32_t *h = hash_of(&v);
  for (uint32_t i = 1; i < h[1]; i++) h[2 + h[0] + i] = i;
  char msg[256];
  kiln_elf_image_t img;
  ck_assert_int_eq(kiln_elf_load(b, n, &img, msg, sizeof msg), 0);
  ck_assert_ptr_null(kiln_elf_lookup(&img, "no_such_symbol"));
  kiln_elf_unload(&img);
  free(b);
}
END_TEST

/* ---- relocations of either machine, checked in a mapped image ------- */

/* Every RELA entry of FILE's bytes, recomputed here from the ELF spec,
 * must match the word the loader wrote into IMG. */
static void check_relocations_applied(elf_view_t *v, const kiln_elf_image_t *img) {
  Elf64_Sym *syms = (Elf64_Sym *)(v->b + file_off(v, dyn_of(v, DT_SYMTAB)->d_un.d_ptr));
  const int machine = v->eh->e_machine;
  int64_t tags[2][2] = {{DT_RELA, DT_RELASZ}, {DT_JMPREL, DT_PLTRELSZ}};
  int checked = 0;
  for (int t = 0; t < 2; t++) {
    Elf64_Rela *r = rela_of(v, tags[t][0]);
    size_t n = dyn_of(v, tags[t][1])->d_un.d_val / sizeof *r;
    for (size_t i = 0; i < n; i++) {
      uint32_t type = (uint32_t)ELF64_R_TYPE(r[i].r_info);
      Elf64_Sym *s = &syms[ELF64_R_SYM(r[i].r_info)];
      uint64_t S = img->bias + s->st_value, A = (uint64_t)r[i].r_addend, want;
      /* want: B + A (relative), S (x86-64 GOT/PLT, RISC-V PLT) or S + A. */
      if (machine == EM_X86_64 && type == R_X86_64_RELATIVE)
        want = img->bias + A;
      else if (machine == EM_X86_64 && (type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT))
        want = S;
      else if (machine == EM_X86_64 && type == R_X86_64_64)
        want = S + A;
      else if (machine == EM_AARCH64 && type == R_AARCH64_RELATIVE)
        want = img->bias + A;
      else if (machine == EM_AARCH64 && (type == R_AARCH64_ABS64 || type == R_AARCH64_GLOB_DAT ||
                                         type == R_AARCH64_JUMP_SLOT))
        want = S + A;
      else if (machine == EM_RISCV && type == R_RISCV_RELATIVE)
        want = img->bias + A;
      else if (machine == EM_RISCV && type == R_RISCV_JUMP_SLOT)
        want = S;
      else if (machine == EM_RISCV && type == R_RISCV_64)
        want = S + A;
      else
        ck_abort_msg("unexpected relocation type %u of machine %d", type, machine);
      uint64_t got;
      memcpy(&got, (const void *)(img->bias + r[i].r_offset), sizeof got);
      ck_assert_msg(got == want, "relocation %zu (type %u) at 0x%llx: 0x%llx, want 0x%llx",
                    i, type, (unsigned long long)r[i].r_offset,
                    (unsigned long long)got, (unsigned long long)want);
      checked++;
    }
  }
  ck_assert_int_ge(checked, 10);
}

/* Maps FILE (of any machine) without running it and checks what the
 * relocations produced: every word, the export table behind
 * kiln_test_table, and W^X of the mapping. */
static void map_and_inspect(const char *file) {
  size_t n;
  uint8_t *b = read_file(file, &n);
  kiln_elf_image_t img;
  char msg[256];
  ck_assert_msg(kiln_elf_map_any_machine(b, n, &img, msg, sizeof msg) == 0, "%s: %s",
                file, msg);
  elf_view_t v = {b, n, (Elf64_Ehdr *)b};
  check_relocations_applied(&v, &img);

  const kiln_executable_table_t *const *tp = kiln_elf_lookup(&img, "kiln_test_table");
  ck_assert_ptr_nonnull(tp);
  const kiln_executable_table_t *t = *tp;
  const uint8_t *lo = img.map, *hi = img.map + img.map_size;
  ck_assert((const uint8_t *)t >= lo && (const uint8_t *)t < hi);
  ck_assert_uint_eq(t->abi_version, KILN_EXECUTABLE_ABI_VERSION);
  ck_assert_uint_eq(t->export_count, 3);
  ck_assert_str_eq(t->exports[0].name, "add_f32");
  ck_assert_str_eq(t->exports[1].name, "scale_i32");
  ck_assert_str_eq(t->exports[2].name, "fail_odd");
  char perms[5];
  int wx;
  for (int i = 0; i < 3; i++) {
    const void *entry;
    memcpy(&entry, &t->exports[i].entry, sizeof entry);
    ck_assert(maps_perms(entry, perms, lo, hi, &wx));
    ck_assert_str_eq(perms, "r-xp");
  }
  ck_assert_int_eq(wx, 0);
  ck_assert(maps_perms(t, perms, lo, hi, &wx));
  ck_assert_str_eq(perms, "r--p");
  int **counter_ptr = kiln_elf_lookup(&img, "kiln_test_counter_ptr");
  ck_assert_ptr_eq(*counter_ptr, kiln_elf_lookup(&img, "kiln_test_counter"));
  kiln_elf_unload(&img);
  free(b);
}

START_TEST(relocations_of_every_machine) {
  map_and_inspect("kernel_x86_64.so");
  map_and_inspect("kernel_x86_64_icf.so");
  map_and_inspect("kernel_aarch64.so");
  map_and_inspect("kernel_aarch64_icf.so");
  map_and_inspect("kernel_riscv64.so");
  map_and_inspect("kernel_riscv64_icf.so");
}
END_TEST

/* More images than a group's list of deferred protections holds at
 * once (KILN_ELF_GROUP_RUNS): the list is applied part way, and every
 * image still ends with its own protections, none before the seal's
 * executable but those applied part way. */
START_TEST(group_of_many_images) {
  enum { N = KILN_ELF_GROUP_RUNS };
  char name[64], msg[256];
  snprintf(name, sizeof name, "%s.so", HOST_FILE);
  size_t n;
  uint8_t *b = read_file(name, &n);
  kiln_elf_group_t g = {0};
  static kiln_elf_image_t img[N];
  for (int pass = 0; pass < 2; pass++) {
    if (pass) ck_assert_int_eq(kiln_elf_group_reserve(&g, msg, sizeof msg), 0);
    for (int i = 0; i < N; i++)
      ck_assert_msg(kiln_elf_group_add(&g, b, n, &img[i], msg, sizeof msg) == 0,
                    "%s", msg);
  }
  ck_assert_int_eq(kiln_elf_group_seal(&g, msg, sizeof msg), 0);
  for (int i = 0; i < N; i++) check_sealed(&img[i], &g);
  kiln_elf_group_release(&g);
  free(b);
}
END_TEST

static Suite *elf_suite(void) {
  Suite *s = suite_create("elf");
  TCase *tc = tcase_create("load");
  tcase_add_test(tc, load_and_run);
  tcase_add_test(tc, load_twice_independent);
  tcase_add_test(tc, group_of_images);
  tcase_add_test(tc, group_of_many_images);
  tcase_add_test(tc, verify_every_machine);
  tcase_add_test(tc, foreign_machine_refused);
  tcase_add_test(tc, undefined_symbol_refused);
  tcase_add_test(tc, null_and_tiny_inputs);
  tcase_add_test(tc, hash_cycle_terminates);
  tcase_add_test(tc, relocations_of_every_machine);
  suite_add_tcase(s, tc);
  TCase *bad = tcase_create("malformed");
  tcase_set_timeout(bad, 120);
  tcase_add_test(bad, every_truncation_rejected);
  tcase_add_loop_test(bad, mutation_rejected, 0,
                      (int)(sizeof mutations / sizeof mutations[0]));
  suite_add_tcase(s, bad);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(elf_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
