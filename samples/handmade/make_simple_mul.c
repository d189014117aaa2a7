/* make_simple_mul KERNEL.so OUT.kiln [N|?]: writes the handmade
 * simple_mul module (handmade.h) for tensor<Nxf32> (default 4; "?" makes
 * the size dynamic) around the given kernel library. Run at build time;
 * the README's first command runs its output with kiln-run. */
#include <stdio.h>
#include <stdlib.h>

#include "handmade.h"

int main(int argc, char **argv) {
  if (argc != 3 && argc != 4) {
    fprintf(stderr, "usage: make_simple_mul KERNEL.so OUT.kiln [N|?]\n");
    return 2;
  }
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  if (argc == 4) {
    char *end;
    o.n = argv[3][0] == '?' ? -1 : strtoll(argv[3], &end, 10);
    if (argv[3][0] != '?' && (*end || o.n < 0)) {
      fprintf(stderr, "make_simple_mul: bad size '%s'\n", argv[3]);
      return 2;
    }
  }
  uint8_t *kernel, *module;
  size_t kernel_size, module_size;
  if (!kiln_handmade_read_file(argv[1], &kernel, &kernel_size)) {
    fprintf(stderr, "make_simple_mul: cannot read %s\n", argv[1]);
    return 1;
  }
  char err[256];
  if (!kiln_handmade_build(&o, kernel, kernel_size, &module, &module_size, err,
                           sizeof err)) {
    fprintf(stderr, "make_simple_mul: %s\n", err);
    free(kernel);
    return 1;
  }
  free(kernel);
  FILE *f = fopen(argv[2], "wb");
  const bool ok = f && fwrite(module, 1, module_size, f) == module_size;
  if (f && fclose(f) != 0) return 1;
  free(module);
  if (!ok) {
    fprintf(stderr, "make_simple_mul: cannot write %s\n", argv[2]);
    return 1;
  }
  return 0;
}
