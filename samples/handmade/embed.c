/* Embedding runtime-min in a C program, start to finish: an allocator,
 * an instance, a device, a module loaded (and fully verified) from a file,
 * reflection of its function's signature without running anything, one
 * call with buffer views, the result read back, everything released.
 * usage: embed MODULE.kiln [DEVICE]   (the handmade simple_mul module) */
#include <stdio.h>

#include "kiln/runtime.h"

/* Every runtime error is a status carrying a message. */
static int check(kiln_status_t status) {
  if (!status) return 0;
  fprintf(stderr, "embed: %s: %s\n", kiln_status_code_name(kiln_status_code(status)),
          kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: embed MODULE.kiln [local-sync|local-task|cuda]\n");
    return 2;
  }
  kiln_instance_t *instance = NULL;
  kiln_device_t *device = NULL;
  kiln_module_t *module = NULL;
  kiln_buffer_view_t *inputs[2] = {NULL, NULL}, *output = NULL;
  kiln_function_t fn;
  int rc = 1;
  if (check(kiln_instance_create(kiln_allocator_system(), &instance)) ||
      check(kiln_device_create(instance, argc > 2 ? argv[2] : "local-sync",
                               NULL, &device)) ||
      check(kiln_module_load_file(instance, argv[1], &module)) ||
      check(kiln_module_lookup_function(module, "simple_mul", &fn)))
    goto done;

  char signature[256];
  kiln_function_signature_format(fn, signature, sizeof signature);
  printf("%s%s on %s (%s)\n", kiln_function_name(fn), signature,
         kiln_device_name(device), kiln_device_target(device));

  const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  const int64_t shape[1] = {4};
  float c[4];
  if (check(kiln_buffer_view_from_host(device, KILN_ELEMENT_F32, 1, shape, a,
                                       sizeof a, &inputs[0])) ||
      check(kiln_buffer_view_from_host(device, KILN_ELEMENT_F32, 1, shape, b,
                                       sizeof b, &inputs[1])) ||
      check(kiln_function_call(fn, device, inputs, 2, &output, 1)) ||
      check(kiln_buffer_view_read(output, c, sizeof c)))
    goto done;
  printf("%g %g %g %g\n", (double)c[0], (double)c[1], (double)c[2],
         (double)c[3]);
  rc = 0;
done:
  kiln_buffer_view_release(output);
  kiln_buffer_view_release(inputs[0]);
  kiln_buffer_view_release(inputs[1]);
  kiln_module_release(module);
  kiln_device_release(device);
  kiln_instance_release(instance);
  return rc;
}
