/* A KILN_MESSAGES=OFF runtime (the one runtime.size_budget builds) still
 * fails with the right status codes: failures become static per-code
 * statuses taken inline (runtime_internal.h), whose message is the shared
 * KILN_MESSAGE_NONE text and which kiln_status_free leaves alone. Takes no
 * arguments; exits 1 naming the first check that failed. */
#include <stdio.h>
#include <string.h>

#include "kiln/runtime.h"

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
  if (!failures) printf("ok: codes kept without message text\n");
  return failures ? 1 : 0;
}
