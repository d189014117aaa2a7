/* Host feature detection: fills a kiln_cpu_info_t from cpuid on x86-64
 * and from the Linux auxiliary vector on aarch64 and riscv64, driven by the table in
 * cpu_features.def. A feature that needs OS-saved register state (AVX,
 * AVX-512) counts only when OSXSAVE is set and XGETBV(0) shows that state
 * enabled, since the instructions fault otherwise. Other hosts report
 * KILN_CPU_ARCH_UNKNOWN with no features. */
#include "cpu_features.h"

#if defined(__x86_64__)
#include <cpuid.h>

enum { EAX, EBX, ECX, EDX };

static uint64_t read_xcr0(void) {
  uint32_t lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return ((uint64_t)hi << 32) | lo;
}

/* cpuid(leaf, sub) as four registers; zeros for a leaf beyond the max. */
static void cpuid(uint32_t leaf, uint32_t sub, uint32_t r[4]) {
  r[0] = r[1] = r[2] = r[3] = 0;
  if (leaf > __get_cpuid_max(0, NULL)) return;
  __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}

/* Where each feature's bit lives, in feature order: which of the three
 * cpuid results (leaf 1, leaf 7.0, leaf 7.1), register, bit, and the XCR0
 * state the OS must save. A table keeps the code small. */
typedef struct x86_bit {
  uint8_t leaf_reg; /* leaf index * 4 + register */
  uint8_t bit, xcr0;
} x86_bit_t;

static const x86_bit_t x86_bits[] = {
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask) \
  {(uint8_t)(((leaf) == 1 ? 0 : (sub) == 0 ? 1 : 2) * 4 + (reg)), bit, mask},
#define KILN_CPU_ARM(id, name, alias, word, bit)
#define KILN_CPU_RISCV(id, name, letter)
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
};

#define X86_COUNT (sizeof x86_bits / sizeof x86_bits[0])
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask) \
  _Static_assert(KILN_CPU_##id < X86_COUNT, "x86 features must come first");
#define KILN_CPU_ARM(id, name, alias, word, bit)
#define KILN_CPU_RISCV(id, name, letter)
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV

void kiln_cpu_host(kiln_cpu_info_t *out) {
  uint32_t r[12];
  cpuid(1, 0, r);
  cpuid(7, 0, r + 4);
  cpuid(7, 1, r + 8);
  uint64_t xcr0 = (r[ECX] >> 27) & 1u ? read_xcr0() : 0; /* OSXSAVE */
  out->arch = KILN_CPU_ARCH_X86_64;
  out->features = 0;
  /* x86 features come first in the enum, so table index = feature. */
  for (unsigned f = 0; f < X86_COUNT; f++) {
    const x86_bit_t *b = &x86_bits[f];
    if (((r[b->leaf_reg] >> b->bit) & 1u) && (xcr0 & b->xcr0) == b->xcr0)
      out->features |= 1ull << f;
  }
}

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>

void kiln_cpu_host(kiln_cpu_info_t *out) {
  unsigned long hwcap = getauxval(AT_HWCAP), hwcap2 = getauxval(AT_HWCAP2);
  out->arch = KILN_CPU_ARCH_AARCH64;
  out->features = 0;
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask)
#define KILN_CPU_ARM(id, name, alias, word, bit)              \
  if ((((word) == 1 ? hwcap : hwcap2) >> (bit)) & 1ul)        \
    out->features |= 1ull << KILN_CPU_##id;
#define KILN_CPU_RISCV(id, name, letter)
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
}

#elif defined(__riscv) && __riscv_xlen == 64 && defined(__linux__)
#include <sys/auxv.h>

void kiln_cpu_host(kiln_cpu_info_t *out) {
  unsigned long hwcap = getauxval(AT_HWCAP);
  out->arch = KILN_CPU_ARCH_RISCV64;
  out->features = 0;
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask)
#define KILN_CPU_ARM(id, name, alias, word, bit)
#define KILN_CPU_RISCV(id, name, letter)                      \
  if ((hwcap >> ((letter) - 'a')) & 1ul)                      \
    out->features |= 1ull << KILN_CPU_##id;
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
}

#else
void kiln_cpu_host(kiln_cpu_info_t *out) {
  out->arch = KILN_CPU_ARCH_UNKNOWN;
  out->features = 0;
}
#endif
