/* ELF loader for Kiln CPU executables: takes the bytes of an ELF64
 * little-endian shared object (x86-64 or aarch64) as lld links it with
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

/* A loaded image; treat as opaque. Zero-initialized means "not loaded". */
typedef struct kiln_elf_image {
  uint8_t *map;      /* start of the reservation */
  size_t map_size;   /* bytes reserved */
  uintptr_t bias;    /* runtime address = bias + ELF virtual address */
  const uint8_t *symtab; /* mapped views of the verified, read-only */
  const char *strtab;    /* dynamic symbol, string and hash tables */
  const uint8_t *hash;
  uint64_t strsz;
  uint32_t nsyms;
  uint32_t machine;
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

/* Address of the exported (global or weak, defined) symbol NAME, or NULL. */
void *kiln_elf_lookup(const kiln_elf_image_t *image, const char *name);

/* Unmaps an image; a zeroed image is ignored. */
void kiln_elf_unload(kiln_elf_image_t *image);

/* "x86_64", "aarch64" or "unknown". */
const char *kiln_elf_machine_name(uint32_t machine);

#endif /* KILN_ELF_LOADER_H */
