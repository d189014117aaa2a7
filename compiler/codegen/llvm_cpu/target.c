/* Target strings and TargetMachines for llvm-cpu. Takes
 * "llvm-cpu", "llvm-cpu:host" or "llvm-cpu:ARCH[+FEATURE...]" with ARCH from
 * llvm_cpu_arches.def and FEATUREs from llvm_cpu_features.def; guarantees
 * a triple, CPU and feature string LLVM accepts, or an error that lists
 * the valid architectures or features. The host target takes LLVM's view
 * of this machine (CPU name and every feature it detects), narrowed to a
 * baseline CPU with the listed features when KILN_CPU_FEATURES is set. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "lcpu_internal.h"

#define LCPU_PREFIX "llvm-cpu"

typedef struct lcpu_arch_info {
  const char *name, *triple, *cpu, *base_features, *emulation;
  uint16_t elf_machine;
  const char *abi;
} lcpu_arch_info_t;

static const lcpu_arch_info_t lcpu_arches[] = {
#define LCPU_ARCH(ID, NAME, LLVM, TRIPLE, CPU, BASE, EMULATION, MACHINE, ABI) \
  {NAME, TRIPLE, CPU, BASE, EMULATION, MACHINE, ABI},
#include "llvm_cpu_arches.def"
#undef LCPU_ARCH
};

typedef struct lcpu_feature_info {
  kiln_llvm_cpu_arch_t arch;
  const char *name;
} lcpu_feature_info_t;

static const lcpu_feature_info_t lcpu_features[] = {
#define LCPU_FEATURE(ARCH, NAME) {KILN_LLVM_CPU_ARCH_##ARCH, NAME},
#include "llvm_cpu_features.def"
#undef LCPU_FEATURE
};

#define LCPU_COUNT(a) (sizeof(a) / sizeof((a)[0]))

static pthread_once_t lcpu_init_once = PTHREAD_ONCE_INIT;

static void lcpu_initialize_backends(void) {
#define LCPU_ARCH(ID, NAME, LLVM, TRIPLE, CPU, BASE, EMULATION, MACHINE, ABI) \
  LLVMInitialize##LLVM##TargetInfo();                                         \
  LLVMInitialize##LLVM##Target();                                             \
  LLVMInitialize##LLVM##TargetMC();                                           \
  LLVMInitialize##LLVM##AsmPrinter();
#include "llvm_cpu_arches.def"
#undef LCPU_ARCH
}

void lcpu_initialize_llvm(void) {
  pthread_once(&lcpu_init_once, lcpu_initialize_backends);
}

/* "host, x86_64, aarch64, riscv64" into buf (truncated if it must be). */
static void lcpu_list_arches(char *buf, size_t cap) {
  size_t used = (size_t)snprintf(buf, cap, "host");
  for (size_t i = 0; i < LCPU_COUNT(lcpu_arches) && used < cap; i++)
    used += (size_t)snprintf(buf + used, cap - used, ", %s", lcpu_arches[i].name);
}

static void lcpu_list_features(kiln_llvm_cpu_arch_t arch, char *buf,
                               size_t cap) {
  size_t used = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < LCPU_COUNT(lcpu_features) && used < cap; i++) {
    if (lcpu_features[i].arch != arch) continue;
    used += (size_t)snprintf(buf + used, cap - used, "%s%s", used ? ", " : "",
                             lcpu_features[i].name);
  }
}

static bool lcpu_known_feature(kiln_llvm_cpu_arch_t arch, const char *name,
                               size_t len) {
  for (size_t i = 0; i < LCPU_COUNT(lcpu_features); i++)
    if (lcpu_features[i].arch == arch && strlen(lcpu_features[i].name) == len &&
        memcmp(lcpu_features[i].name, name, len) == 0)
      return true;
  return false;
}

static void lcpu_set_arch(kiln_llvm_cpu_target_t *t, kiln_llvm_cpu_arch_t a) {
  t->arch = a;
  t->arch_name = lcpu_arches[a].name;
  t->triple = lcpu_arches[a].triple;
  t->emulation = lcpu_arches[a].emulation;
  t->elf_machine = lcpu_arches[a].elf_machine;
  t->abi = lcpu_arches[a].abi;
}

/* Whether the LLVM feature string FEATURES turns NAME (LEN bytes) on. */
static bool lcpu_enables(const char *features, const char *name, size_t len) {
  for (const char *p = features; *p;) {
    size_t n = strcspn(p, ",");
    if (n == len + 1 && p[0] == '+' && memcmp(p + 1, name, len) == 0)
      return true;
    p += n;
    if (*p == ',') p++;
  }
  return false;
}

/* "ARCH+f+g" from the listed features the host's feature string enables. */
static kiln_error *lcpu_host_requirements(kiln_llvm_cpu_target_t *t) {
  size_t cap = strlen(t->arch_name) + 1;
  for (size_t i = 0; i < LCPU_COUNT(lcpu_features); i++)
    cap += strlen(lcpu_features[i].name) + 1;
  t->requirements = malloc(cap);
  if (!t->requirements) return kiln_error_new("llvm-cpu: out of memory");
  size_t used = (size_t)snprintf(t->requirements, cap, "%s", t->arch_name);
  for (size_t i = 0; i < LCPU_COUNT(lcpu_features); i++) {
    const char *name = lcpu_features[i].name;
    if (lcpu_features[i].arch == t->arch &&
        lcpu_enables(t->features, name, strlen(name)))
      used += (size_t)snprintf(t->requirements + used, cap - used, "+%s", name);
  }
  return NULL;
}

static kiln_error *lcpu_parse_explicit(const char *text,
                                       const char *spec,
                                       kiln_llvm_cpu_target_t *t);

/* The host target under KILN_CPU_FEATURES=ARCH[+FEATURE...] (the mask the
 * runtime's variant choice honours too): the architecture's baseline plus
 * those named features this host has, so the host target builds what a
 * lesser CPU would run. ARCH must be the host's. */
static kiln_error *lcpu_parse_masked_host(const char *mask,
                                          kiln_llvm_cpu_target_t *t) {
  const size_t arch_len = strcspn(mask, "+");
  if (strlen(t->arch_name) != arch_len || memcmp(t->arch_name, mask, arch_len) != 0)
    return kiln_error_new("KILN_CPU_FEATURES='%s': this host is %s", mask, t->arch_name);
  const kiln_llvm_cpu_arch_t arch = t->arch;
  char *host_features = t->features;
  char *spec = malloc(strlen(mask) + 1);
  if (!spec) return kiln_error_new("llvm-cpu: out of memory");
  size_t used = (size_t)snprintf(spec, strlen(mask) + 1, "%.*s", (int)arch_len, mask);
  for (const char *p = mask + arch_len; *p == '+';) {
    const char *name = p + 1;
    const size_t len = strcspn(name, "+");
    p = name + len;
    if (!lcpu_known_feature(arch, name, len)) {
      char valid[1024];
      lcpu_list_features(arch, valid, sizeof valid);
      free(spec);
      return kiln_error_new("KILN_CPU_FEATURES='%s': unknown %s feature '%.*s'; "
                            "valid features: %s",
                            mask, t->arch_name, (int)len, name, valid);
    }
    if (lcpu_enables(host_features, name, len))
      used += (size_t)snprintf(spec + used, strlen(mask) + 1 - used, "+%.*s", (int)len, name);
  }
  free(t->cpu);
  free(t->requirements);
  t->cpu = t->requirements = NULL;
  t->features = NULL;
  free(host_features);
  kiln_error *s = lcpu_parse_explicit(mask, spec, t);
  free(spec);
  t->is_host = true;
  return s;
}

static kiln_error *lcpu_parse_host(kiln_llvm_cpu_target_t *t) {
  char *triple = LLVMGetDefaultTargetTriple();
  size_t len = strcspn(triple, "-");
  int found = -1;
  for (size_t i = 0; i < LCPU_COUNT(lcpu_arches); i++)
    if (strlen(lcpu_arches[i].name) == len &&
        memcmp(lcpu_arches[i].name, triple, len) == 0)
      found = (int)i;
  if (found < 0) {
    char valid[256];
    lcpu_list_arches(valid, sizeof valid);
    kiln_error *s = kiln_error_new(
        "llvm-cpu: this host's architecture (triple '%s') is not supported; "
        "valid architectures: %s",
        triple, valid);
    LLVMDisposeMessage(triple);
    return s;
  }
  LLVMDisposeMessage(triple);
  lcpu_set_arch(t, (kiln_llvm_cpu_arch_t)found);
  t->is_host = true;
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  t->cpu = strdup(cpu ? cpu : "generic");
  t->features = strdup(features ? features : "");
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  if (!t->cpu || !t->features) return kiln_error_new("llvm-cpu: out of memory");
  const char *mask = getenv("KILN_CPU_FEATURES");
  if (mask && *mask) return lcpu_parse_masked_host(mask, t);
  return lcpu_host_requirements(t);
}

static kiln_error *lcpu_parse_explicit(const char *text,
                                       const char *spec,
                                       kiln_llvm_cpu_target_t *t) {
  size_t arch_len = strcspn(spec, "+");
  int found = -1;
  for (size_t i = 0; i < LCPU_COUNT(lcpu_arches); i++)
    if (strlen(lcpu_arches[i].name) == arch_len &&
        memcmp(lcpu_arches[i].name, spec, arch_len) == 0)
      found = (int)i;
  if (found < 0) {
    char valid[256];
    lcpu_list_arches(valid, sizeof valid);
    if (arch_len == 4 && memcmp(spec, "host", 4) == 0)
      return kiln_error_new("target '%s': the host target takes its features "
                            "from this machine; name an architecture (%s) to "
                            "add features",
                            text, valid + strlen("host, "));
    return kiln_error_new("target '%s': unknown architecture '%.*s'; valid "
                          "architectures: %s",
                          text, (int)arch_len, spec, valid);
  }
  kiln_llvm_cpu_arch_t arch = (kiln_llvm_cpu_arch_t)found;
  lcpu_set_arch(t, arch);

  /* Feature string: the arch baseline then ",+NAME" per requested feature;
   * its length is bounded by the spec's length plus the baseline. */
  const char *base = lcpu_arches[arch].base_features;
  size_t cap = strlen(base) + 2 * strlen(spec) + 1;
  t->features = malloc(cap);
  t->requirements = malloc(strlen(spec) + 1);
  t->cpu = strdup(lcpu_arches[arch].cpu);
  if (!t->features || !t->cpu || !t->requirements)
    return kiln_error_new("llvm-cpu: out of memory");
  size_t used = (size_t)snprintf(t->features, cap, "%s", base);
  size_t req = (size_t)snprintf(t->requirements, strlen(spec) + 1, "%s",
                                lcpu_arches[arch].name);
  for (const char *p = spec + arch_len; *p == '+';) {
    const char *name = p + 1;
    size_t len = strcspn(name, "+");
    if (len == 0)
      return kiln_error_new("target '%s': empty feature name after '+'", text);
    if (!lcpu_known_feature(arch, name, len)) {
      char valid[1024];
      lcpu_list_features(arch, valid, sizeof valid);
      return kiln_error_new("target '%s': unknown %s feature '%.*s'; valid "
                            "features: %s",
                            text, lcpu_arches[arch].name, (int)len, name, valid);
    }
    p = name + len;
    if (lcpu_enables(t->features, name, len)) continue; /* repeated */
    used += (size_t)snprintf(t->features + used, cap - used, "%s+%.*s",
                             used ? "," : "", (int)len, name);
    req += (size_t)snprintf(t->requirements + req, strlen(spec) + 1 - req,
                            "+%.*s", (int)len, name);
  }
  return NULL;
}

kiln_error *kiln_llvm_cpu_target_parse(const char *text,
                                       kiln_llvm_cpu_target_t *out) {
  memset(out, 0, sizeof *out);
  if (!text) return kiln_error_new("llvm-cpu: no target string given");
  size_t plen = strlen(LCPU_PREFIX);
  kiln_error *s;
  if (strncmp(text, LCPU_PREFIX, plen) != 0 ||
      (text[plen] != '\0' && text[plen] != ':')) {
    s = kiln_error_new("target '%s' is not an llvm-cpu target (expected "
                    "llvm-cpu[:ARCH[+FEATURE...]])",
                    text);
  } else if (text[plen] == '\0' || strcmp(text + plen, ":host") == 0) {
    s = lcpu_parse_host(out);
  } else {
    s = lcpu_parse_explicit(text, text + plen + 1, out);
  }
  if (s) kiln_llvm_cpu_target_release(out);
  return s;
}

void kiln_llvm_cpu_target_release(kiln_llvm_cpu_target_t *target) {
  if (!target) return;
  free(target->cpu);
  free(target->features);
  free(target->requirements);
  memset(target, 0, sizeof *target);
}

kiln_error *kiln_llvm_cpu_target_machine_create(
    const kiln_llvm_cpu_target_t *target, LLVMTargetMachineRef *out) {
  *out = NULL;
  lcpu_initialize_llvm();
  LLVMTargetRef llvm_target = NULL;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(target->triple, &llvm_target, &err))
    return kiln_error_take("llvm-cpu: no LLVM backend for the target", err, LLVMDisposeMessage);
  if (err) LLVMDisposeMessage(err);
  LLVMTargetMachineOptionsRef opts = LLVMCreateTargetMachineOptions();
  LLVMTargetMachineOptionsSetCPU(opts, target->cpu);
  LLVMTargetMachineOptionsSetFeatures(opts, target->features);
  LLVMTargetMachineOptionsSetCodeGenOptLevel(opts, LLVMCodeGenLevelAggressive);
  LLVMTargetMachineOptionsSetRelocMode(opts, LLVMRelocPIC);
  if (target->abi && target->abi[0]) LLVMTargetMachineOptionsSetABI(opts, target->abi);
  *out = LLVMCreateTargetMachineWithOptions(llvm_target, target->triple, opts);
  LLVMDisposeTargetMachineOptions(opts);
  if (!*out)
    return kiln_error_new("llvm-cpu: LLVM could not create a target machine for "
                          "%s (cpu %s)",
                          target->triple, target->cpu);
  return NULL;
}
