/* Requirement strings against a CPU description: parses
 * "ARCH[+FEATURE]...", decides whether a given host (usually
 * kiln_cpu_host's) can run a variant, narrows a host to a mask (so a
 * machine can run what a lesser one would), and writes the host's own
 * description into refusals so the user sees what to compile for. Names
 * are LLVM's (cpu_features.def), plus the listed aliases. */
#include <stdio.h>
#include <string.h>

#include "cpu_features.h"
#include "kiln/message.h"

/* Feature names and aliases as two packed string pools (entry i is the
 * i-th NUL-terminated string), and each feature's architecture. */
static const char names[] =
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask) name "\0"
#define KILN_CPU_ARM(id, name, alias, word, bit) name "\0"
#define KILN_CPU_RISCV(id, name, letter) name "\0"
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
    ;
static const char aliases[] =
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask) "\0"
#define KILN_CPU_ARM(id, name, alias, word, bit) alias "\0"
#define KILN_CPU_RISCV(id, name, letter) "\0"
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
    ;
static const uint8_t feature_arch[] = {
#define KILN_CPU_X86(id, name, leaf, sub, reg, bit, mask) KILN_CPU_ARCH_X86_64,
#define KILN_CPU_ARM(id, name, alias, word, bit) KILN_CPU_ARCH_AARCH64,
#define KILN_CPU_RISCV(id, name, letter) KILN_CPU_ARCH_RISCV64,
#include "cpu_features.def"
#undef KILN_CPU_X86
#undef KILN_CPU_ARM
#undef KILN_CPU_RISCV
};
_Static_assert(sizeof feature_arch == KILN_CPU_FEATURE_COUNT, "one arch per feature");
_Static_assert(KILN_CPU_FEATURE_COUNT <= 64, "features are bits of a uint64_t");

static const char *pool_at(const char *pool, unsigned i) {
  while (i--) pool += strlen(pool) + 1;
  return pool;
}

static kiln_cpu_arch_t arch_of(unsigned f) {
  return (kiln_cpu_arch_t)feature_arch[f];
}

#define fail KILN_MESSAGE

const char *kiln_cpu_arch_name(kiln_cpu_arch_t arch) {
  switch (arch) {
    case KILN_CPU_ARCH_X86_64: return "x86_64";
    case KILN_CPU_ARCH_AARCH64: return "aarch64";
    case KILN_CPU_ARCH_RISCV64: return "riscv64";
    default: return "unknown";
  }
}

const char *kiln_cpu_feature_name(kiln_cpu_feature_t f) {
  return (unsigned)f < KILN_CPU_FEATURE_COUNT ? pool_at(names, f) : NULL;
}

/* s[0..n) is exactly `word` (nonempty). */
static int word_is(const char *s, size_t n, const char *word) {
  return word[0] && strncmp(word, s, n) == 0 && word[n] == 0;
}

int kiln_cpu_parse(const char *spec, kiln_cpu_info_t *out, char *msg,
                   size_t msg_cap) {
  /* Also the entry of kiln_cpu_mask and kiln_cpu_can_run, which parse
   * first (kiln/message.h). */
  KILN_MESSAGE_ENTRY(msg, msg_cap);
  out->arch = KILN_CPU_ARCH_UNKNOWN;
  out->features = 0;
  if (!spec) return fail(msg, msg_cap, KILN_CPU_ERR_INVALID, "no CPU target");
  size_t n = strcspn(spec, "+");
  if (word_is(spec, n, "x86_64") || word_is(spec, n, "x86-64"))
    out->arch = KILN_CPU_ARCH_X86_64;
  else if (word_is(spec, n, "aarch64") || word_is(spec, n, "arm64"))
    out->arch = KILN_CPU_ARCH_AARCH64;
  else if (word_is(spec, n, "riscv64"))
    out->arch = KILN_CPU_ARCH_RISCV64;
  else
    return fail(msg, msg_cap, KILN_CPU_ERR_INVALID,
                "CPU target '%.100s': unknown architecture '%.*s' (known: "
                "x86_64, aarch64, riscv64)", spec, (int)(n > 40 ? 40 : n), spec);
  for (const char *p = spec + n; *p == '+';) {
    p++;
    size_t len = strcspn(p, "+");
    int found = 0;
    /* Walks both pools in step (pool_at per entry would be quadratic). */
    const char *name = names, *alias = aliases;
    for (unsigned f = 0; f < KILN_CPU_FEATURE_COUNT && !found; f++) {
      if (arch_of(f) == out->arch &&
          (word_is(p, len, name) || word_is(p, len, alias))) {
        out->features |= 1ull << f;
        found = 1;
      }
      name += strlen(name) + 1;
      alias += strlen(alias) + 1;
    }
    if (!found)
      return fail(msg, msg_cap, KILN_CPU_ERR_INVALID,
                  "CPU target '%.100s': unknown %s feature '%.*s'", spec,
                  kiln_cpu_arch_name(out->arch), (int)(len > 40 ? 40 : len), p);
    p += len;
  }
  return KILN_CPU_OK;
}

int kiln_cpu_mask(kiln_cpu_info_t *host, const char *mask, char *msg,
                  size_t msg_cap) {
  kiln_cpu_info_t keep;
  int rc = kiln_cpu_parse(mask, &keep, msg, msg_cap);
  if (rc) return rc;
  if (keep.arch != host->arch)
    return fail(msg, msg_cap, KILN_CPU_ERR_UNSUPPORTED,
                "CPU mask '%.100s' names %s; this host is %s", mask,
                kiln_cpu_arch_name(keep.arch), kiln_cpu_arch_name(host->arch));
  host->features &= keep.features;
  return KILN_CPU_OK;
}

size_t kiln_cpu_describe(const kiln_cpu_info_t *info, char *buf, size_t cap) {
  size_t len = 0;
  int w = snprintf(buf, cap, "%s", kiln_cpu_arch_name(info->arch));
  len += (size_t)(w > 0 ? w : 0);
  for (unsigned f = 0; f < KILN_CPU_FEATURE_COUNT; f++) {
    if (!((info->features >> f) & 1u)) continue;
    w = snprintf(len < cap ? buf + len : NULL, len < cap ? cap - len : 0, "+%s",
                 pool_at(names, f));
    len += (size_t)(w > 0 ? w : 0);
  }
  return len;
}

int kiln_cpu_can_run(const kiln_cpu_info_t *host, const char *spec, char *msg,
                     size_t msg_cap) {
  kiln_cpu_info_t need;
  int rc = kiln_cpu_parse(spec, &need, msg, msg_cap);
  if (rc) return rc;
  char offers[512];
  kiln_cpu_describe(host, offers, sizeof offers);
  if (need.arch != host->arch)
    return fail(msg, msg_cap, KILN_CPU_ERR_UNSUPPORTED,
                "CPU target '%.100s' is for %s; this host is %s", spec,
                kiln_cpu_arch_name(need.arch), offers);
  uint64_t missing = need.features & ~host->features;
  if (missing) {
    char missing_names[256];
    size_t len = 0;
    for (unsigned f = 0; f < KILN_CPU_FEATURE_COUNT; f++) {
      if (!((missing >> f) & 1u)) continue;
      int w = snprintf(missing_names + len, sizeof missing_names - len, "%s%s",
                       len ? ", " : "", pool_at(names, f));
      if (w < 0 || (size_t)w >= sizeof missing_names - len) break;
      len += (size_t)w;
    }
    return fail(msg, msg_cap, KILN_CPU_ERR_UNSUPPORTED,
                "CPU target '%.100s' needs %s, which this host lacks; this host "
                "is %s", spec, missing_names, offers);
  }
  KILN_MESSAGE_CLEAR(msg, msg_cap);
  return KILN_CPU_OK;
}
