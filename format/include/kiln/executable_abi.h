/* The CPU executable ABI: the contract between a kernel library that
 * kiln-compile links (an ELF shared object with no libc) and the runtime
 * that loads it. Only fixed-width types, so one header serves x86-64,
 * aarch64 and riscv64 (all LP64). The module's FlatBuffer carries the same export
 * metadata, and the loader cross-checks the two.
 *
 * A library exports exactly one symbol, KILN_EXECUTABLE_QUERY_SYMBOL, of
 * type kiln_executable_query_fn. Called with the ABI version the runtime
 * speaks, it returns the library's export table, or NULL when it cannot
 * serve that version. Each entry point is then called once per workgroup
 * and returns 0 on success; any other value fails the dispatch. A library
 * shared by several executables of a module (the variants refer to one
 * segment) exports one query per executable instead, named
 * KILN_EXECUTABLE_QUERY_SYMBOL "." EXECUTABLE_NAME (names of at most
 * KILN_EXECUTABLE_SHARED_NAME_MAX bytes), and the runtime looks that name
 * up first. */
#ifndef KILN_EXECUTABLE_ABI_H
#define KILN_EXECUTABLE_ABI_H

#include <stdint.h>

#define KILN_EXECUTABLE_ABI_VERSION 1u
#define KILN_EXECUTABLE_QUERY_SYMBOL "kiln_executable_query"
#define KILN_EXECUTABLE_SHARED_NAME_MAX 256u

/* Shared by every workgroup of one dispatch; read-only for kernels. */
typedef struct kiln_dispatch_state {
  uint32_t workgroup_size[3];  /* threads per workgroup (x, y, z) */
  uint32_t workgroup_count[3]; /* workgroups in the grid (x, y, z) */
  uint32_t max_concurrency;    /* workers that may run workgroups at once */
  uint32_t push_constant_count;
  const uint32_t *push_constants; /* push_constant_count 32-bit words */
  uint32_t binding_count;
  uint32_t reserved;
  void *const *binding_ptrs;       /* binding_count base pointers */
  const uint64_t *binding_lengths; /* binding_count lengths in bytes */
} kiln_dispatch_state_t;

/* Private to one workgroup call. */
typedef struct kiln_workgroup_state {
  uint32_t workgroup_id[3]; /* this workgroup's position in the grid */
  uint32_t worker_id;       /* < max_concurrency; indexes per-worker data */
  void *scratch;            /* per-worker scratch memory, may be NULL */
  uint64_t scratch_size;
} kiln_workgroup_state_t;

typedef int (*kiln_entry_fn)(const kiln_dispatch_state_t *dispatch,
                             const kiln_workgroup_state_t *workgroup);

typedef struct kiln_export_info {
  const char *name;           /* NUL-terminated, unique in the library */
  kiln_entry_fn entry;
  uint32_t workgroup_size[3]; /* as recorded in the module */
  uint32_t binding_count;
  uint32_t push_constant_count;
  uint32_t readonly_binding_mask; /* bit i: binding i is only read */
} kiln_export_info_t;

typedef struct kiln_executable_table {
  uint32_t abi_version; /* KILN_EXECUTABLE_ABI_VERSION the library speaks */
  uint32_t export_count;
  const kiln_export_info_t *exports; /* in export-ordinal order */
} kiln_executable_table_t;

typedef const kiln_executable_table_t *(*kiln_executable_query_fn)(
    uint32_t runtime_abi_version);

#endif /* KILN_EXECUTABLE_ABI_H */
