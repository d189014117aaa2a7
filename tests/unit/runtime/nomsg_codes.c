/* A KILN_MESSAGES=OFF runtime (the one runtime.size_budget builds) still
 * fails with the right status codes: failures become static per-code
 * statuses taken inline (runtime_internal.h), whose message is the shared
 * KILN_MESSAGE_NONE text and which kiln_status_free leaves alone. And the
 * libraries under it (module and bytecode verifiers, ELF loader, CPU
 * targets), whose failure sites write nothing, still leave that text in
 * the caller's buffer (written on entry, kiln/message.h), also when a
 * step that succeeded ran first. Takes no arguments; exits 1 naming the
 * first check that failed. */
#include <stdio.h>
#include <string.h>

#include "cpu_features.h"
#include "elf_loader.h"
#include "kiln/module_format.h"
#include "kiln/runtime.h"
#include "kiln/vm_bytecode.h"

static int failures;

static void expect(const char *what, kiln_status_t s, kiln_status_code_t code) {
  const char *msg = kiln_status_message(s);
  if (kiln_status_code(s) != code || !strstr(msg, "KILN_MESSAGES=OFF")) {
    printf("FAIL %s: %s, message '%s' (want %s)\n", what,
           kiln_status_code_name(kiln_status_code(s)), msg,
           kiln_status_code_name(code));
    failures++;
  }
  kiln_status_free(s);
  kiln_status_free(s); /* static: a second free is harmless too */
}

/* A library's failure: its code and the fixed text in its buffer. */
static void expect_text(const char *what, int code, int want, const char *msg) {
  if (code != want || !strstr(msg, "KILN_MESSAGES=OFF")) {
    printf("FAIL %s: code %d (want %d), message '%.60s'\n", what, code, want, msg);
    failures++;
  }
}

static void libraries(const unsigned char *junk, size_t size) {
  char msg[128];
  kiln_format_error_t err;
  memset(&err, 'x', sizeof err);
  err.message[sizeof err.message - 1] = 0;
  expect_text("module view of garbage",
              !kiln_module_view_open(&(kiln_module_view_t){0}, junk, size, &err), 1,
              err.message);
  memset(msg, 'x', sizeof msg - 1);
  msg[sizeof msg - 1] = 0;
  expect_text("ELF of garbage", kiln_elf_verify(junk, size, NULL, msg, sizeof msg),
              KILN_ELF_ERR_INVALID, msg);
  memset(msg, 'x', sizeof msg - 1);
  expect_text("CPU target", kiln_cpu_parse("no-such-arch", &(kiln_cpu_info_t){0}, msg, sizeof msg),
              KILN_CPU_ERR_INVALID, msg);
  /* The mask parses (a success, which must not clear the text), then
   * names another architecture. */
  kiln_cpu_info_t host;
  kiln_cpu_host(&host);
  memset(msg, 'x', sizeof msg - 1);
  expect_text("CPU mask of another architecture",
              kiln_cpu_mask(&host, host.arch == KILN_CPU_ARCH_RISCV64 ? "x86_64" : "riscv64",
                            msg, sizeof msg),
              KILN_CPU_ERR_UNSUPPORTED, msg);
  static const uint8_t code[1] = {0xff};
  const kiln_vm_function_info_t fn = {code, 1, 0, 0, "_"};
  const kiln_vm_module_info_t vm = {&fn, 1, NULL, 0};
  uint8_t scratch[1];
  kiln_vm_diag_t diag;
  memset(&diag, 'x', sizeof diag);
  expect_text("bytecode at an instruction", kiln_vm_verify_function(&vm, 0, scratch, &diag) != 0,
              1, diag.message);
  memset(&diag, 'x', sizeof diag);
  expect_text("bytecode function index", kiln_vm_verify_function(&vm, 1, scratch, &diag) != 0,
              1, diag.message);
}

int main(void) {
  kiln_instance_t *inst = NULL;
  kiln_status_t s = kiln_instance_create(kiln_allocator_system(), &inst);
  if (s) {
    printf("FAIL instance: %s\n", kiln_status_code_name(kiln_status_code(s)));
    return 1;
  }
  static unsigned char junk[256] __attribute__((aligned(64)));
  memset(junk, 0xab, sizeof junk);
  kiln_module_t *m = NULL;
  expect("garbage module", kiln_module_load_memory(inst, junk, sizeof junk, &m),
         KILN_STATUS_DATA_LOSS);
  /* A module of a newer format version (the FlatBuffer's root table holds
   * only format_version = 99) is incompatible, not corrupt. */
  static const unsigned char newer[24] __attribute__((aligned(64))) = {
      16, 0, 0, 0, 'K', 'I', 'L', 'N', /* root table at 16, identifier */
      6, 0, 8, 0, 4, 0, 0, 0,          /* vtable: 6 bytes, table 8, field 0 at 4 */
      8, 0, 0, 0, 99, 0, 0, 0};        /* table: vtable 8 bytes back; 99 */
  expect("newer format version",
         kiln_module_load_memory(inst, newer, sizeof newer, &m),
         KILN_STATUS_INCOMPATIBLE);
  expect("missing file",
         kiln_module_load_file(inst, "/nonexistent/kiln/nomsg.kiln", &m),
         KILN_STATUS_NOT_FOUND);
  kiln_device_t *dev = NULL;
  expect("unknown device", kiln_device_create(inst, "no-such-device", NULL, &dev),
         KILN_STATUS_NOT_FOUND);
  kiln_instance_release(inst);
  libraries(junk, sizeof junk);
  if (!failures) printf("ok: codes kept without message text\n");
  return failures ? 1 : 0;
}
