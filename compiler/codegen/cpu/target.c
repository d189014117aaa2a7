/* What the llvm-cpu target decides in codegen/cpu: the vector shape of a
 * target string or of a kernel op's target (vector_targets.def: f32
 * lanes, and accumulators for the register-blocked microkernels) and the
 * names of the CPU pipelines per root kind. Any target string gets a
 * row: the host's own architecture and features for "host" and no
 * architecture, the x86-64 baseline row (4 lanes, 16 registers: what
 * every kernel assumed before) for targets the table does not name. */
#include "cpu_internal.h"
#include "dialects/vector.h"

#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__) && defined(__linux__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

typedef struct vtarget {
  const char *arch, *feature;
  int64_t lanes, registers;
} vtarget;

static const vtarget vtargets[] = {
#define CPU_VECTOR_TARGET(ARCH, FEATURE, LANES, REGISTERS) {ARCH, FEATURE, LANES, REGISTERS},
#include "vector_targets.def"
#undef CPU_VECTOR_TARGET
};
enum { NVT = sizeof vtargets / sizeof vtargets[0] };

/* Does the "+a+b" / ",+a,+b" feature list s name f? */
static bool has_feature(const char *s, const char *f) {
  size_t n = strlen(f);
  for (const char *p = strstr(s, f); p; p = strstr(p + 1, f))
    if (p > s && (p[-1] == '+' || p[-1] == ',') && (p[n] == 0 || p[n] == '+' || p[n] == ','))
      return true;
  return false;
}

/* The host as a target spec: its architecture and the features that
 * select a row (x86-64's vector extensions; the others' baselines). */
static const char *host_spec(void) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "x86_64+avx512f";
  if (__builtin_cpu_supports("avx2")) return "x86_64+avx2";
  if (__builtin_cpu_supports("avx")) return "x86_64+avx";
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64 && defined(__riscv_vector)
  return "riscv64+v";
#elif defined(__riscv) && __riscv_xlen == 64
  return "riscv64";
#else
  return "";
#endif
}

static const vtarget *lookup(const char *target) {
  const char *colon = strchr(target, ':');
  const char *spec = colon ? colon + 1 : "host";
  if (strncmp(spec, "host", 4) == 0) spec = host_spec();
  for (int i = 0; i < NVT; i++) {
    size_t n = strlen(vtargets[i].arch);
    if (strncmp(spec, vtargets[i].arch, n) != 0 || (spec[n] != 0 && spec[n] != '+')) continue;
    if (!vtargets[i].feature[0] || has_feature(spec + n, vtargets[i].feature)) return &vtargets[i];
  }
  for (int i = 0; i < NVT; i++)
    if (strcmp(vtargets[i].arch, "x86_64") == 0 && !vtargets[i].feature[0]) return &vtargets[i];
  return &vtargets[0];
}

int64_t cpu_vector_width(const char *target) {
  return lookup(target)->lanes;
}

/* The target of the kernel holding op: its variant's, else its module's
 * kiln.target, else the host (as cg_for_each_kernel names it). */
static const char *target_of(const kiln_op *op) {
  const kiln_op *top = op;
  for (const kiln_op *p = kiln_op_parent_op(op); p; p = kiln_op_parent_op(p)) {
    if (p->kind == KILN_OP_HAL_EXECUTABLE_VARIANT) {
      const kiln_attr *t = kiln_op_get_attr(p, "target");
      return t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu";
    }
    top = p;
  }
  const kiln_attr *t = kiln_op_get_attr(top, "kiln.target");
  return t && t->kind == KILN_ATTR_STRING ? t->str : "llvm-cpu";
}

int cpu_accumulators(const kiln_op *op, int64_t vw) {
  const vtarget *t = lookup(target_of(op));
  /* A launch that set its own width (by hand, or the GPU rule's): the
   * first row of that width, whatever its architecture. */
  for (int i = 0; t->lanes != vw && i < NVT; i++)
    if (vtargets[i].lanes == vw) t = &vtargets[i];
  int64_t acc = t->lanes == vw ? t->registers / 2 : 8;
  return (int)(acc < CPU_UK_MAX_ACC ? acc : CPU_UK_MAX_ACC);
}

/* pmaddwd's widest form (dot4 on x86-64 without VNNI) that the features
 * allow and vw i32 lanes' 4 vw i16 fill: 512 bits with avx512bw, 256 with
 * avx2 (avx512f implies it), else SSE2's 128, every x86-64's. */
static const char *pmaddwd_isa(bool bw, bool avx2, int64_t vw) {
  static const char *const names[3] = {"pmaddwd128", "pmaddwd256", "pmaddwd512"};
  for (int i = bw ? 2 : avx2 ? 1 : 0; i >= 0; i--)
    if (kiln_vector_dot4_isa_ok(names[i], vw)) return names[i];
  return NULL;
}

/* vector.dot4's instruction for i32 vectors of vw lanes in op's kernel:
 * vpdpbusd where the target names avx512vnni (16 lanes) or avxvnni (8),
 * the host where it has avx512vnni (and KILN_CPU_FEATURES, which narrows
 * the host target, does not mask it); else on x86-64 pmaddwd (i16 pairs,
 * exact); on aarch64 +dotprod sdot (4 lanes); NULL: the generic
 * lowering. */
const char *cpu_dot4_isa(const kiln_op *op, int64_t vw) {
  const char *target = target_of(op), *colon = strchr(target, ':');
  const char *spec = colon ? colon + 1 : "host";
  if (strncmp(spec, "host", 4) == 0) {
#if defined(__x86_64__)
    const char *mask = getenv("KILN_CPU_FEATURES");
    __builtin_cpu_init();
    if (vw == 16 && __builtin_cpu_supports("avx512vnni") &&
        (!mask || (has_feature(mask, "avx512vnni") && has_feature(mask, "avx512f"))))
      return "avx512vnni";
    bool bw = __builtin_cpu_supports("avx512bw") && (!mask || has_feature(mask, "avx512bw"));
    bool avx2 = __builtin_cpu_supports("avx2") &&
                (!mask || has_feature(mask, "avx2") || has_feature(mask, "avx512f") || bw);
    return pmaddwd_isa(bw, avx2, vw);
#elif defined(__aarch64__) && defined(__linux__)
    const char *mask = getenv("KILN_CPU_FEATURES");
    return vw == 4 && (getauxval(AT_HWCAP) & HWCAP_ASIMDDP) && (!mask || has_feature(mask, "dotprod")) ? "sdot"
                                                                                                       : NULL;
#else
    return NULL;
#endif
  }
  if (strncmp(spec, "aarch64", 7) == 0) return vw == 4 && has_feature(spec, "dotprod") ? "sdot" : NULL;
  if (strncmp(spec, "x86_64", 6) != 0 && strncmp(spec, "x86-64", 6) != 0) return NULL;
  if (vw == 16 && has_feature(spec, "avx512vnni") && has_feature(spec, "avx512f")) return "avx512vnni";
  if (vw == 8 && has_feature(spec, "avxvnni")) return "avxvnni";
  bool bw = has_feature(spec, "avx512bw");
  return pmaddwd_isa(bw, bw || has_feature(spec, "avx2") || has_feature(spec, "avx512f"), vw);
}
