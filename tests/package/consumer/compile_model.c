/* An installed-Kiln consumer: compiles IN into OUT in-process through
 * kiln/compiler.h, for the host (no TARGET) or the given targets.
 * usage: compile_model IN OUT [TARGET]... */
#include <stdio.h>

#include "kiln/compiler.h"
#include "kiln/version.h"

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  kiln_compiler_options_t o = {argv[1], argv[2], (const char *const *)argv + 3,
                               (size_t)(argc - 3)};
  char *err = kiln_compiler_compile(&o);
  if (err) {
    fprintf(stderr, "compile_model: %s\n", err);
    kiln_compiler_message_free(err);
    return 1;
  }
  printf("compiled with Kiln %s, header %s\n", kiln_compiler_version(), KILN_VERSION);
  return 0;
}
