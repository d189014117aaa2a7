/* kiln-mkmodule: writes the sample module (sample_module.c) to a file.
 *   kiln-mkmodule [--large] [--compress=auto|never|always] OUT.kiln */
#include <stdio.h>
#include <string.h>

#include "sample_module.h"

int main(int argc, char **argv) {
  kiln_sample_options_t o = {false, KILN_MODULE_COMPRESS_AUTO};
  const char *out = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--large") == 0) o.large_rodata = true;
    else if (strcmp(argv[i], "--compress=auto") == 0) o.compression = KILN_MODULE_COMPRESS_AUTO;
    else if (strcmp(argv[i], "--compress=never") == 0) o.compression = KILN_MODULE_COMPRESS_NEVER;
    else if (strcmp(argv[i], "--compress=always") == 0) o.compression = KILN_MODULE_COMPRESS_ALWAYS;
    else if (argv[i][0] != '-' && !out) out = argv[i];
    else {
      fprintf(stderr, "kiln-mkmodule: unknown argument '%s'\n", argv[i]);
      out = NULL;
      break;
    }
  }
  if (!out) {
    fprintf(stderr, "usage: kiln-mkmodule [--large] "
                    "[--compress=auto|never|always] OUT.kiln\n");
    return 2;
  }
  kiln_module_builder_t *b = kiln_module_builder_create();
  if (!b) {
    fprintf(stderr, "kiln-mkmodule: out of memory\n");
    return 1;
  }
  kiln_sample_module_fill(b, &o);
  kiln_format_error_t err;
  bool ok = kiln_module_builder_write_file(b, out, &err);
  kiln_module_builder_destroy(b);
  if (!ok) {
    fprintf(stderr, "kiln-mkmodule: %s\n", err.message);
    return 1;
  }
  return 0;
}
