/* samples/static_library: the sample MLP (samples/mlp.mlir) compiled with
 * kiln-compile --output-format=static-library and linked into this
 * program as mlp.a: no runtime, no loader, no module file. It reads the
 * sample's input and numpy's expected output (samples/mlp.inputs and
 * mlp.expected, lines "2x8xf32=v v ..."), calls mlp_mlp once and prints
 * each result next to numpy's; exit status 1 when one differs by more
 * than 1e-5 + 1e-5 * |numpy|. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mlp.h"

/* The values after '=' on the first line of PATH. */
static int read_values(const char *path, float *out, int want) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int c, n = 0;
  while ((c = fgetc(f)) != EOF && c != '=') {
  }
  while (n < want && fscanf(f, "%f", &out[n]) == 1) n++;
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s mlp.inputs mlp.expected\n", argv[0]);
    return 2;
  }
  static float x[2 * 8], y[2 * 4], want[2 * 4];
  /* The arena the model's intermediates live in, sized at compile time. */
  static _Alignas(64) unsigned char scratch[MLP_MLP_SCRATCH_SIZE];
  if (read_values(argv[1], x, 16) != 16 || read_values(argv[2], want, 8) != 8) {
    fprintf(stderr, "cannot read %s or %s\n", argv[1], argv[2]);
    return 2;
  }
  void *args[] = {x}, *results[] = {y};
  const int rc = mlp_mlp(args, results, scratch);
  if (rc != 0) {
    fprintf(stderr, "mlp_mlp failed: %s\n", mlp_error_message(rc));
    return 1;
  }
  printf("%s\n%-6s %14s %14s\n", MLP_MLP_SIGNATURE, "index", "kiln", "numpy");
  int bad = 0;
  for (int i = 0; i < 8; i++) {
    printf("%-6d %14.8f %14.8f\n", i, (double)y[i], (double)want[i]);
    if (!(fabsf(y[i] - want[i]) <= 1e-5f + 1e-5f * fabsf(want[i]))) bad = 1;
  }
  printf("%s\n", bad ? "MISMATCH" : "all results match numpy");
  return bad;
}
