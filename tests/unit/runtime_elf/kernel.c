/* A hand-written kernel library in the shape kiln-compile emits: built
 * freestanding for x86-64 and aarch64, linked by lld into a shared object
 * with no libc, exporting kiln_executable_query. The export table holds
 * pointers (RELATIVE relocations); the exported counter is reached through
 * the GOT (GLOB_DAT), an absolute pointer to it needs a symbolic 64-bit
 * relocation, and an exported non-inlined function is called through the
 * PLT (JUMP_SLOT), so one library exercises every relocation kind. */
#include <stdint.h>

#include "kiln/executable_abi.h"

int kiln_test_counter;                        /* GOT-relative access */
int *kiln_test_counter_ptr = &kiln_test_counter; /* R_*_64 / ABS64 */
int kiln_test_bss[1024];                      /* must load as zeros */

__attribute__((noinline)) int kiln_test_bump(int by) { /* via the PLT */
  kiln_test_counter += by;
  return kiln_test_counter;
}

/* out[i] = a[i] + b[i] for i < n = push constant 0. */
static int add_f32(const kiln_dispatch_state_t *d,
                   const kiln_workgroup_state_t *w) {
  const float *a = d->binding_ptrs[0], *b = d->binding_ptrs[1];
  float *out = d->binding_ptrs[2];
  uint32_t n = d->push_constants[0];
  uint32_t base = w->workgroup_id[0] * d->workgroup_size[0];
  for (uint32_t i = 0; i < d->workgroup_size[0] && base + i < n; i++)
    out[base + i] = a[base + i] + b[base + i];
  return 0;
}

/* x[wg] *= push constant 0; counts workgroups in kiln_test_counter. */
static int scale_i32(const kiln_dispatch_state_t *d,
                     const kiln_workgroup_state_t *w) {
  int32_t *x = d->binding_ptrs[0];
  x[w->workgroup_id[0]] *= (int32_t)d->push_constants[0];
  kiln_test_bump(1);
  return 0;
}

/* Fails on odd workgroups, to test error propagation. */
static int fail_odd(const kiln_dispatch_state_t *d,
                    const kiln_workgroup_state_t *w) {
  return (w->workgroup_id[0] & 1u) ? 7 : 0;
}

static const kiln_export_info_t exports[] = {
    {"add_f32", add_f32, {64, 1, 1}, 3, 1, 0x3},
    {"scale_i32", scale_i32, {1, 1, 1}, 1, 1, 0x0},
    {"fail_odd", fail_odd, {1, 1, 1}, 0, 0, 0x0},
};

static const kiln_executable_table_t table = {
    KILN_EXECUTABLE_ABI_VERSION, sizeof exports / sizeof exports[0], exports};

/* Lets a test find the table in an image it maps but cannot run. */
const kiln_executable_table_t *const kiln_test_table = &table;

const kiln_executable_table_t *kiln_executable_query(uint32_t version) {
  return version == KILN_EXECUTABLE_ABI_VERSION ? &table : 0;
}
