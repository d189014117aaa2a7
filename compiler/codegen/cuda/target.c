/* Target strings and TargetMachines for the cuda target. Takes
 * "cuda:sm_XX" with sm_XX from cuda_sms.def; guarantees the NVPTX triple,
 * the SM as LLVM's CPU and a +ptxNN feature that CUDA 13's ptxas accepts,
 * or an error that lists the valid SM versions. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "cptx_internal.h"

#define CPTX_PREFIX "cuda:"
#define CPTX_TRIPLE "nvptx64-nvidia-cuda"

typedef struct cptx_sm_info {
  const char *name;
  uint32_t version;
  bool arch_specific;
  uint32_t ptx;
  const char *features;
} cptx_sm_info_t;

#define CPTX_STR2(x) #x
#define CPTX_STR(x) CPTX_STR2(x)
static const cptx_sm_info_t cptx_sms[] = {
#define CPTX_SM(NAME, VERSION, ARCH_SPECIFIC, PTX)                            \
  {NAME, VERSION, ARCH_SPECIFIC, PTX, "+ptx" CPTX_STR(PTX)},
#include "cuda_sms.def"
#undef CPTX_SM
};

static pthread_once_t cptx_init_once = PTHREAD_ONCE_INIT;

static void cptx_initialize_backend(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}

void cptx_initialize_llvm(void) {
  pthread_once(&cptx_init_once, cptx_initialize_backend);
}

/* Built once from the table: "sm_75, sm_80, ...". */
static char cptx_valid[256];
static pthread_once_t cptx_valid_once = PTHREAD_ONCE_INIT;

static void cptx_list_sms(void) {
  size_t used = 0;
  for (size_t i = 0; i < CPTX_COUNT(cptx_sms) && used < sizeof cptx_valid; i++)
    used += (size_t)snprintf(cptx_valid + used, sizeof cptx_valid - used,
                             "%s%s", i ? ", " : "", cptx_sms[i].name);
}

const char *kiln_ptx_valid_sms(void) {
  pthread_once(&cptx_valid_once, cptx_list_sms);
  return cptx_valid;
}

/* Whether SPEC looks like "sm_NN" with NN below the oldest listed SM:
 * such GPUs exist, so the message says why they are not offered. */
static bool cptx_is_retired_sm(const char *spec) {
  if (strncmp(spec, "sm_", 3) != 0) return false;
  char *end = NULL;
  unsigned long v = strtoul(spec + 3, &end, 10);
  return end != spec + 3 && (*end == '\0' || (*end == 'a' && end[1] == '\0')) &&
         v >= 10 && v < cptx_sms[0].version;
}

kiln_error *kiln_ptx_target_parse(const char *text,
                                  kiln_ptx_target_t *out) {
  memset(out, 0, sizeof *out);
  if (!text) return kiln_error_new("cuda: no target string given");
  size_t plen = strlen(CPTX_PREFIX);
  if (strcmp(text, "cuda") == 0 || strcmp(text, CPTX_PREFIX) == 0)
    return kiln_error_new("target '%s': name an SM version, e.g. cuda:sm_80; "
                          "valid SM versions: %s",
                          text, kiln_ptx_valid_sms());
  if (strncmp(text, CPTX_PREFIX, plen) != 0)
    return kiln_error_new("target '%s' is not a cuda target (expected "
                       "cuda:sm_XX)",
                       text);
  const char *spec = text + plen;
  for (size_t i = 0; i < CPTX_COUNT(cptx_sms); i++) {
    if (strcmp(cptx_sms[i].name, spec) != 0) continue;
    out->sm = cptx_sms[i].name;
    out->sm_version = cptx_sms[i].version;
    out->arch_specific = cptx_sms[i].arch_specific;
    out->ptx_version = cptx_sms[i].ptx;
    out->triple = CPTX_TRIPLE;
    out->features = cptx_sms[i].features;
    return NULL;
  }
  if (cptx_is_retired_sm(spec))
    return kiln_error_new("target '%s': %s is older than %s, the oldest SM "
                          "version CUDA 13 compiles PTX for; valid SM versions: "
                          "%s",
                          text, spec, cptx_sms[0].name, kiln_ptx_valid_sms());
  return kiln_error_new("target '%s': unknown SM version '%s'; valid SM "
                        "versions: %s",
                        text, spec, kiln_ptx_valid_sms());
}

kiln_error *kiln_ptx_target_machine_create(const kiln_ptx_target_t *target,
                                           LLVMTargetMachineRef *out) {
  *out = NULL;
  cptx_initialize_llvm();
  LLVMTargetRef llvm_target = NULL;
  char *err = NULL;
  if (LLVMGetTargetFromTriple(target->triple, &llvm_target, &err))
    return kiln_error_take("cuda: no LLVM NVPTX back end", err, LLVMDisposeMessage);
  if (err) LLVMDisposeMessage(err);
  LLVMTargetMachineOptionsRef opts = LLVMCreateTargetMachineOptions();
  LLVMTargetMachineOptionsSetCPU(opts, target->sm);
  LLVMTargetMachineOptionsSetFeatures(opts, target->features);
  LLVMTargetMachineOptionsSetCodeGenOptLevel(opts, LLVMCodeGenLevelAggressive);
  *out = LLVMCreateTargetMachineWithOptions(llvm_target, target->triple, opts);
  LLVMDisposeTargetMachineOptions(opts);
  if (!*out)
    return kiln_error_new("cuda: LLVM could not create a target machine for %s "
                          "(%s)",
                          target->triple, target->sm);
  return NULL;
}
