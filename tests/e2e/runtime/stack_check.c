/* stack_check: checks what runtime.h says about the stack a local-sync
 * caller needs, on a compiled module whose kernels keep large frames (a
 * grouped convolution's packed weight panel).
 *
 * 1. A call on a thread with the documented stack (512 KiB) gives the same
 *    bytes as a call on the main thread.
 * 2. A call on a thread with a stack far below that (SMALL_KIB) never
 *    writes past the stack's guard page: the stack is built by hand as
 *    [marker][guard page][stack], the marker a shared mapping filled with
 *    a pattern, and the call runs in a child process. Kernels probe frames
 *    over a page from the top (x86-64, AArch64), so the child either
 *    finishes (no frame reached below the stack) or dies on the guard page;
 *    either way the marker must be intact. Without the probes the kernel's
 *    frame skips the guard and its panel lands in the marker (checked:
 *    a module from a kiln-compile without them fails here, gcc and ASan).
 *
 * usage: stack_check MODULE.kiln [SMALL_KIB]
 * exit 0 pass, 1 fail, 2 usage. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kiln/runtime.h"

#define DOCUMENTED_STACK (512u << 10)
#define MARKER_BYTES (1u << 20)
#define MARKER_BYTE 0x5a

typedef struct job {
  kiln_function_t fn;
  kiln_device_t *dev;
  kiln_buffer_view_t *const *in;
  uint32_t nin;
  kiln_buffer_view_t **out;
  uint32_t nout;
  kiln_status_t status;
} job_t;

static void *run_call(void *arg) {
  job_t *j = arg;
  j->status = kiln_function_call(j->fn, j->dev, j->in, j->nin, j->out, j->nout);
  return NULL;
}

static void check(kiln_status_t s, const char *what) {
  if (!s) return;
  fprintf(stderr, "stack_check: %s: %s\n", what, kiln_status_message(s));
  exit(1);
}

/* Runs the call on a new thread with the given attributes; 0 on success. */
static int call_on_thread(job_t *j, const pthread_attr_t *attr) {
  pthread_t t;
  if (pthread_create(&t, attr, run_call, j) != 0) return -1;
  pthread_join(t, NULL);
  return 0;
}

/* Output k's bytes (the device is host memory on local-sync). */
static int read_output(kiln_buffer_view_t *v, void **bytes, uint64_t *size) {
  *size = kiln_buffer_view_byte_length(v);
  *bytes = malloc(*size ? *size : 1);
  if (!*bytes) return -1;
  return kiln_buffer_view_read(v, *bytes, *size) ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: stack_check MODULE.kiln [SMALL_KIB]\n");
    return 2;
  }
  const size_t small = (size_t)(argc > 2 ? atol(argv[2]) : 128) << 10;
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *mod;
  kiln_device_options_t opts;
  memset(&opts, 0, sizeof opts);
  check(kiln_instance_create(kiln_allocator_system(), &inst), "instance");
  check(kiln_module_load_file(inst, argv[1], &mod), "load");
  check(kiln_device_create(inst, "local-sync", &opts, &dev), "device");
  check(kiln_module_prepare(mod, dev), "prepare");
  kiln_function_t fn;
  check(kiln_module_function_at(mod, 0, &fn), "function");
  const uint32_t nin = kiln_function_input_count(fn);
  const uint32_t nout = kiln_function_output_count(fn);
  if (nin != 1 || nout != 1) {
    fprintf(stderr, "stack_check: expects one input and one output\n");
    return 1;
  }
  const kiln_tensor_type_t t = kiln_function_input_type(fn, 0);
  uint64_t n = 1;
  for (uint32_t d = 0; d < t.rank; ++d) n *= (uint64_t)t.dims[d];
  float *x = malloc(n * sizeof *x);
  if (!x || t.element_type != KILN_ELEMENT_F32) {
    fprintf(stderr, "stack_check: expects an f32 input\n");
    return 1;
  }
  for (uint64_t i = 0; i < n; ++i) x[i] = (float)((i * 7919u) % 1000u) / 500.0f - 1.0f;
  kiln_buffer_view_t *in[1], *out[1];
  check(kiln_buffer_view_from_host(dev, t.element_type, t.rank, t.dims, x,
                                   n * sizeof *x, &in[0]), "input");
  free(x);

  /* The reference: a call on the main thread. */
  check(kiln_function_call(fn, dev, in, 1, out, 1), "call on the main thread");
  void *want, *got;
  uint64_t want_size, got_size;
  if (read_output(out[0], &want, &want_size)) return 1;
  kiln_buffer_view_release(out[0]);

  /* 1. The documented stack. */
  job_t j = {fn, dev, in, 1, out, 1, NULL};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, DOCUMENTED_STACK);
  if (call_on_thread(&j, &attr)) {
    fprintf(stderr, "stack_check: no thread\n");
    return 1;
  }
  pthread_attr_destroy(&attr);
  check(j.status, "call on a 512 KiB stack");
  if (read_output(out[0], &got, &got_size)) return 1;
  kiln_buffer_view_release(out[0]);
  const int same = got_size == want_size && memcmp(got, want, want_size) == 0;
  printf("512 KiB stack: %s\n", same ? "same output as the main thread" : "FAIL: output differs");
  free(got);
  free(want);
  if (!same) return 1;

  /* 2. A small stack above a guard page above the marker. One reserved
   * range keeps the three adjacent. */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t total = MARKER_BYTES + page + small;
  uint8_t *base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED ||
      mmap(base, MARKER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED ||
      mprotect(base + MARKER_BYTES + page, small, PROT_READ | PROT_WRITE) != 0) {
    perror("stack_check: mmap");
    return 1;
  }
  memset(base, MARKER_BYTE, MARKER_BYTES);
  fflush(stdout);
  const pid_t child = fork();
  if (child < 0) {
    perror("stack_check: fork");
    return 1;
  }
  if (child == 0) {
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, base + MARKER_BYTES + page, small);
    if (call_on_thread(&j, &attr)) _exit(3);
    _exit(j.status ? 4 : 0);
  }
  int wstatus = 0;
  if (waitpid(child, &wstatus, 0) != child) {
    perror("stack_check: waitpid");
    return 1;
  }
  size_t touched = 0;
  for (size_t i = 0; i < MARKER_BYTES; ++i) touched += base[i] != MARKER_BYTE;
  munmap(base, total);
  if (WIFSIGNALED(wstatus))
    printf("%zu KiB stack: the call died by signal %d (%s)\n", small >> 10,
           WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)));
  else
    printf("%zu KiB stack: the call exited with %d%s\n", small >> 10, WEXITSTATUS(wstatus),
           WEXITSTATUS(wstatus) == 0 ? " (no frame reached below the stack)" : "");
  if (touched)
    printf("FAIL: %zu bytes below the guard page were written\n", touched);
  else
    printf("nothing below the guard page was written\nPASS\n");
  kiln_buffer_view_release(in[0]);
  kiln_module_release(mod);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  return touched ? 1 : 0;
}
