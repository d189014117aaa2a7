/* The kernel library of the handmade sample: one entry point,
 * simple_mul, computing c[i] = a[i] * b[i] for i < n (push constant 0)
 * over bindings a, b (read) and c (written), 64 elements per workgroup.
 * Built freestanding (no libc) into an ELF shared object that exports only
 * kiln_executable_query, exactly like kiln-compile's output. A second
 * entry point, fail_if_negative, returns 7 from the first workgroup that
 * sees a negative a[i], to exercise kernel failure reporting. */
#include "kiln/executable_abi.h"

#define WG 64u

static int simple_mul(const kiln_dispatch_state_t *d,
                      const kiln_workgroup_state_t *w) {
  if (d->binding_count != 3 || d->push_constant_count != 1) return 1;
  const uint32_t n = d->push_constants[0];
  const uint64_t need = (uint64_t)n * sizeof(float);
  if (d->binding_lengths[0] < need || d->binding_lengths[1] < need ||
      d->binding_lengths[2] < need)
    return 2;
  const float *a = d->binding_ptrs[0];
  const float *b = d->binding_ptrs[1];
  float *c = d->binding_ptrs[2];
  const uint32_t begin = w->workgroup_id[0] * WG;
  const uint32_t end = begin + WG < n ? begin + WG : n;
  for (uint32_t i = begin; i < end; ++i) c[i] = a[i] * b[i];
  return 0;
}

static int fail_if_negative(const kiln_dispatch_state_t *d,
                            const kiln_workgroup_state_t *w) {
  const uint32_t n = d->push_constants[0];
  const float *a = d->binding_ptrs[0];
  const uint32_t begin = w->workgroup_id[0] * WG;
  const uint32_t end = begin + WG < n ? begin + WG : n;
  for (uint32_t i = begin; i < end; ++i)
    if (a[i] < 0.0f) return 7;
  return 0;
}

static const kiln_export_info_t exports[] = {
    {"simple_mul", simple_mul, {WG, 1, 1}, 3, 1, 0x3},
    {"fail_if_negative", fail_if_negative, {WG, 1, 1}, 3, 1, 0x3},
};

static const kiln_executable_table_t table = {
    KILN_EXECUTABLE_ABI_VERSION, 2, exports};

const kiln_executable_table_t *kiln_executable_query(uint32_t version);
const kiln_executable_table_t *kiln_executable_query(uint32_t version) {
  return version == KILN_EXECUTABLE_ABI_VERSION ? &table : (void *)0;
}
