/* ELF loader for Kiln CPU executables: takes the bytes of an ELF64
 * little-endian shared object (x86-64, aarch64 or riscv64) as lld links it with
 * -shared -nostdlib --no-undefined -z now -z relro --hash-style=sysv, and
 * either verifies it (any supported machine) or maps it into this process
 * (host machine only).
 *
 * Guarantees: every header, segment, dynamic entry, symbol, string, hash
 * chain and relocation is bounds-checked against the input before any of
 * it is used; a malformed or hostile object yields a nonzero code and a
 * message naming what is wrong, never an out-of-bounds access. A loaded
 * image is W^X (no page is ever writable and executable after load) with
 * RELRO applied. The input bytes are not referenced after a call returns.
 *
 * Errors: functions return KILN_ELF_OK (0) or one of the codes below and
 * write a NUL-terminated message into the caller's buffer (msg may be NULL
 * when msg_cap is 0). */
#ifndef KILN_ELF_LOADER_H
#define KILN_ELF_LOADER_H

#include <stddef.h>
#include <stdint.h>

enum {
  KILN_ELF_OK = 0,
  KILN_ELF_ERR_INVALID = 1,     /* malformed or hostile object */
  KILN_ELF_ERR_UNSUPPORTED = 2, /* valid ELF Kiln does not handle, or a
                                   foreign machine for kiln_elf_load */
  KILN_ELF_ERR_SYSTEM = 3,      /* mmap/mprotect failed */
};

#define KILN_ELF_MACHINE_X86_64 62u
#define KILN_ELF_MACHINE_AARCH64 183u
#define KILN_ELF_MACHINE_RISCV 243u

/* What verification learned about an object. */
typedef struct kiln_elf_info {
  uint32_t machine;        /* KILN_ELF_MACHINE_* */
  uint32_t load_segments;  /* PT_LOAD count */
  uint64_t image_size;     /* bytes of address space the image spans */
  uint32_t symbol_count;   /* dynamic symbols, including the null one */
  uint32_t reloc_relative; /* RELATIVE relocations */
  uint32_t reloc_symbolic; /* relocations against a symbol (64, ABS64,
                              GLOB_DAT, JUMP_SLOT) */
  uint32_t has_query;      /* exports kiln_executable_query as a function */
} kiln_elf_info_t;

/* A page range whose final protection is not read-only. */
typedef struct kiln_elf_run {
  uintptr_t lo, hi;
  int prot;
} kiln_elf_run_t;

/* Runs a group defers to its seal: an lld kernel has one (its text). */
#define KILN_ELF_GROUP_RUNS 64u

/* One mapping holding several images (see kiln_elf_group_add); zeroed
 * to start. */
typedef struct kiln_elf_group {
  uint8_t *map;      /* NULL while measuring */
  size_t size, used; /* bytes measured (then reserved), bytes used */
  size_t sealed;     /* bytes from map protected */
  int slack;         /* an image aligned beyond a page (gaps between) */
  uint32_t runs;     /* deferred runs, applied at the seal */
  kiln_elf_run_t run[KILN_ELF_GROUP_RUNS];
} kiln_elf_group_t;

/* A loaded image; treat as opaque. Zero-initialized means "not loaded". */
typedef struct kiln_elf_image {
  uint8_t *map;      /* start of the image */
  size_t map_size;   /* bytes it spans */
  uintptr_t bias;    /* runtime address = bias + ELF virtual address */
  const uint8_t *symtab; /* mapped views of the verified, read-only */
  const char *strtab;    /* dynamic symbol, string and hash tables */
  const uint8_t *hash;
  uint64_t strsz;
  uint32_t nsyms;
  uint32_t machine;
  uint8_t *owned;   /* kiln_elf_load's own mapping (NULL in a group) */
  size_t owned_size;
} kiln_elf_image_t;

/* Checks an object for any supported machine without mapping it. info may
 * be NULL. This is what a compiler test uses for an aarch64 object on an
 * x86-64 host. */
int kiln_elf_verify(const void *data, size_t size, kiln_elf_info_t *info,
                    char *msg, size_t msg_cap);

/* Verifies, then maps, relocates and protects an object of the host
 * machine. On failure *image is left zeroed and nothing stays mapped. */
int kiln_elf_load(const void *data, size_t size, kiln_elf_image_t *image,
                  char *msg, size_t msg_cap);

/* Many images, one mapping: a loader of N kernels adds each to a zeroed
 * group (verifying it and counting the bytes it needs), reserves the
 * group, adds each again (verifying it again, copying and relocating it:
 * *image), seals the group, and releases it when done with all of them:
 * one mmap and one munmap in all, and N + 1 mprotects for N lld-linked
 * kernels (one read-only over the group, then each text) instead of five
 * per kernel. Until the seal an image is writable and nothing in the
 * group executable (W^X throughout); after it, images have
 * kiln_elf_load's guarantees (RELRO included); kiln_elf_unload of one
 * does nothing. An image that was not added before the reservation may
 * find no room (KILN_ELF_ERR_SYSTEM). */
int kiln_elf_group_add(kiln_elf_group_t *group, const void *data, size_t size,
                       kiln_elf_image_t *image, char *msg, size_t msg_cap);
int kiln_elf_group_reserve(kiln_elf_group_t *group, char *msg,
                           size_t msg_cap);
int kiln_elf_group_seal(kiln_elf_group_t *group, char *msg, size_t msg_cap);
void kiln_elf_group_release(kiln_elf_group_t *group); /* NULL-safe */

/* Address of the exported (global or weak, defined) symbol NAME, or NULL. */
void *kiln_elf_lookup(const kiln_elf_image_t *image, const char *name);

/* Unmaps an image of kiln_elf_load; a zeroed image is ignored. */
void kiln_elf_unload(kiln_elf_image_t *image);

/* "x86_64", "aarch64", "riscv64" or "unknown". */
const char *kiln_elf_machine_name(uint32_t machine);

#endif /* KILN_ELF_LOADER_H */
