/* The public in-process compiler (compiler/include/kiln/compiler.h): a
 * compile session filled the way kiln-compile fills it from its command
 * line, then the pipeline; errors come back as one malloc'ed message. */
#include "kiln/compiler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "kiln/version.h"
#include "kiln_revision.h"

static char *api_message(const char *text) {
  const size_t n = strlen(text) + 1;
  char *m = malloc(n);
  if (m) memcpy(m, text, n);
  return m;
}

char *kiln_compiler_compile(const kiln_compiler_options_t *o) {
  if (!o || !o->input_path || !o->output_path)
    return api_message("kiln_compiler_compile: input_path and output_path are required");
  if (o->target_count && !o->targets)
    return api_message("kiln_compiler_compile: target_count without targets");
  kiln_session *s = kiln_session_create();
  if (!s) return api_message("out of memory");
  kiln_error *err = NULL;
  for (size_t i = 0; i < o->target_count && !err; i++) {
    const char *t = o->targets[i] ? o->targets[i] : "";
    char *flag = malloc(strlen(t) + sizeof "--target=");
    if (!flag) {
      err = kiln_error_new("out of memory");
      break;
    }
    sprintf(flag, "--target=%s", t);
    err = kiln_session_add_flag(s, flag);
    free(flag);
    if (!err) err = kiln_session_add_target(s, t);
  }
  s->options.input_path = o->input_path;
  s->options.output_path = o->output_path;
  if (!err) err = kiln_compile(s);
  char *msg = err ? api_message(kiln_error_message(err)) : NULL;
  if (err && !msg) msg = api_message("out of memory");
  kiln_error_free(err);
  kiln_session_destroy(s);
  return msg;
}

void kiln_compiler_message_free(char *message) { free(message); }

static char api_version[96];

static void api_version_init(void) {
  snprintf(api_version, sizeof api_version, "%s (revision %s)", KILN_VERSION,
           kiln_source_revision());
}

const char *kiln_compiler_version(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  pthread_once(&once, api_version_init);
  return api_version;
}
