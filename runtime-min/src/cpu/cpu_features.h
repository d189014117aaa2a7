/* Host CPU identification for picking executable variants: the host's
 * architecture and features (x86-64: cpuid, with XGETBV confirming the OS
 * saves AVX/AVX-512 state; aarch64: Linux getauxval(AT_HWCAP/AT_HWCAP2);
 * riscv64: the ISA letters in Linux's AT_HWCAP),
 * and a check of a variant's requirement string such as "x86_64+avx2+fma"
 * or "aarch64+dotprod" against it, which on refusal describes what the
 * host offers. Feature names and where they come from: cpu_features.def. */
#ifndef KILN_CPU_FEATURES_H
#define KILN_CPU_FEATURES_H

#include <stddef.h>
#include <stdint.h>

enum {
  KILN_CPU_OK = 0,
  KILN_CPU_ERR_INVALID = 1,     /* malformed requirement string */
  KILN_CPU_ERR_UNSUPPORTED = 2, /* valid, but this host cannot run it */
};

typedef enum kiln_cpu_arch {
  KILN_CPU_ARCH_UNKNOWN = 0,
  KILN_CPU_ARCH_X86_64,
  KILN_CPU_ARCH_AARCH64,
  KILN_CPU_ARCH_RISCV64,
} kiln_cpu_arch_t;

typedef enum kiln_cpu_feature {
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, xcr0) KILN_CPU_##id,
#define KILN_CPU_ARM(id, name, alias, word, bit) KILN_CPU_##id,
#define KILN_CPU_RISCV(id, name, letter) KILN_CPU_##id,
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
  KILN_CPU_FEATURE_COUNT
} kiln_cpu_feature_t;

typedef struct kiln_cpu_info {
  kiln_cpu_arch_t arch;
  uint64_t features; /* bit (1 << kiln_cpu_feature_t) */
} kiln_cpu_info_t;

/* The host this code runs on. */
void kiln_cpu_host(kiln_cpu_info_t *out);

/* Narrows HOST to the features MASK names, as the KILN_CPU_FEATURES
 * environment variable asks: "x86_64" alone leaves the architecture's
 * baseline, "x86_64+avx2+fma" at most those features. A mask never adds
 * a feature the host lacks. KILN_CPU_OK, or an error and a message for a
 * malformed mask or one naming another architecture. */
int kiln_cpu_mask(kiln_cpu_info_t *host, const char *mask, char *msg,
                  size_t msg_cap);

/* "x86_64", "aarch64", "riscv64" or "unknown". */
const char *kiln_cpu_arch_name(kiln_cpu_arch_t arch);
/* LLVM's name of a feature ("avx2", "dotprod"), NULL if out of range. */
const char *kiln_cpu_feature_name(kiln_cpu_feature_t feature);

/* Parses "ARCH[+FEATURE]..." (ARCH: x86_64 / x86-64 / aarch64 / arm64 /
 * riscv64) into the architecture and feature set it requires. */
int kiln_cpu_parse(const char *spec, kiln_cpu_info_t *out, char *msg,
                   size_t msg_cap);

/* KILN_CPU_OK when HOST can run a variant requiring SPEC; otherwise a code
 * and a message naming what is missing and what the host offers. */
int kiln_cpu_can_run(const kiln_cpu_info_t *host, const char *spec, char *msg,
                     size_t msg_cap);

/* Writes "ARCH+feature+..." for INFO (truncated to cap); returns the
 * length it needed, like snprintf. */
size_t kiln_cpu_describe(const kiln_cpu_info_t *info, char *buf, size_t cap);

#endif /* KILN_CPU_FEATURES_H */
