/* What the llvm-cpu target decides in codegen/cpu: the vector width of a
 * target string and the names of the CPU pipelines per root kind. */
#include "cg_internal.h"

#include <string.h>

static bool has_feature(const char *s, const char *f) {
  size_t n = strlen(f);
  for (const char *p = strstr(s, f); p; p = strstr(p + 1, f))
    if ((p[-1] == '+' || p[-1] == ',') && (p[n] == 0 || p[n] == '+' || p[n] == ','))
      return true;
  return false;
}

int64_t cg_vector_width(const char *target) {
  const char *colon = strchr(target, ':');
  const char *spec = colon ? colon + 1 : "host";
  if (strncmp(spec, "host", 4) == 0) {
    /* The host: what this machine runs. */
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") || __builtin_cpu_supports("avx")) return 8;
#endif
    return 4;
  }
  if (has_feature(spec, "avx512f")) return 16;
  if (has_feature(spec, "avx2") || has_feature(spec, "avx")) return 8;
  return 4;
}

const char *cg_pipeline_name(cg_root_kind k) {
  static const char *const names[] = {"cpu-matmul", "cpu-conv", "cpu-pooling",
                                      "cpu-reduction", "cpu-elementwise"};
  return names[k];
}
