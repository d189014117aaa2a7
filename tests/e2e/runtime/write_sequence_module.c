/* write_sequence_module OUT.kiln: writes rt_testkit's sequence module
 * (f(s: seq<tensor<?xf32>>, v: tensor<?xf32>) -> (s + [v], element 0)),
 * for kiln_run_sequences.py to run through kiln-run. */
#include <stdio.h>
#include <stdlib.h>

#include "rt_testkit.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: write_sequence_module OUT.kiln\n");
    return 2;
  }
  size_t size;
  uint8_t *data = rt_sequence_module(&size);
  FILE *f = data ? fopen(argv[1], "wb") : NULL;
  const int ok = f && fwrite(data, 1, size, f) == size;
  if (f && fclose(f)) return 1;
  free(data);
  if (!ok) fprintf(stderr, "write_sequence_module: cannot write %s\n", argv[1]);
  return ok ? 0 : 1;
}
