/* An installed-Kiln consumer: runs simple_mul(4xf32, 4xf32) of MODULE on
 * local-sync and prints the result and the runtime's version.
 * usage: run_module MODULE.kiln */
#include <stdio.h>

#include "kiln/runtime.h"
#include "kiln/version.h"

static int check(kiln_status_t s) {
  if (!s) return 0;
  fprintf(stderr, "run_module: %s\n", kiln_status_message(s));
  kiln_status_free(s);
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  kiln_instance_t *instance = NULL;
  kiln_device_t *device = NULL;
  kiln_module_t *module = NULL;
  kiln_buffer_view_t *in[2] = {NULL, NULL}, *out = NULL;
  kiln_function_t fn;
  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  const int64_t shape[1] = {4};
  float c[4];
  int rc = 1;
  if (!check(kiln_instance_create(kiln_allocator_system(), &instance)) &&
      !check(kiln_device_create(instance, "local-sync", NULL, &device)) &&
      !check(kiln_module_load_file(instance, argv[1], &module)) &&
      !check(kiln_module_lookup_function(module, "simple_mul", &fn)) &&
      !check(kiln_buffer_view_from_host(device, KILN_ELEMENT_F32, 1, shape, a, sizeof a, &in[0])) &&
      !check(kiln_buffer_view_from_host(device, KILN_ELEMENT_F32, 1, shape, b, sizeof b, &in[1])) &&
      !check(kiln_function_call(fn, device, in, 2, &out, 1)) &&
      !check(kiln_buffer_view_read(out, c, sizeof c))) {
    printf("Kiln %s: %g %g %g %g\n", KILN_VERSION, (double)c[0], (double)c[1], (double)c[2],
           (double)c[3]);
    rc = 0;
  }
  kiln_buffer_view_release(out);
  kiln_buffer_view_release(in[0]);
  kiln_buffer_view_release(in[1]);
  kiln_module_release(module);
  kiln_device_release(device);
  kiln_instance_release(instance);
  return rc;
}
