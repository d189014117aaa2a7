/* Several threads calling one loaded module at once get correct results:
 * 8 threads x 200 calls, each thread with its own values and sizes, on one
 * shared local-sync device and one shared local-task device (whose pool
 * serializes dispatches from concurrent submitters), starting before the
 * module was ever prepared so the first-use cache is raced too. */
#include <check.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rt_testkit.h"

#define THREADS 8
#define CALLS 200

typedef struct job {
  kiln_device_t *dev;
  kiln_function_t fn;
  int id;
  int errors;
  char first_error[256];
  pthread_barrier_t *start;
} job_t;

static void *worker(void *opaque) {
  job_t *j = opaque;
  pthread_barrier_wait(j->start);
  for (int call = 0; call < CALLS; ++call) {
    const int64_t n = 1 + (j->id * 37 + call * 11) % 300; /* 1..300 */
    float a[300], b[300], c[300];
    for (int64_t i = 0; i < n; ++i) {
      a[i] = (float)(j->id + 1);
      b[i] = (float)(call + i);
    }
    kiln_buffer_view_t *in[2] = {0}, *out = NULL;
    kiln_status_t s = kiln_buffer_view_from_host(j->dev, KILN_ELEMENT_F32, 1,
                                                 &n, a, (uint64_t)n * 4, &in[0]);
    if (!s)
      s = kiln_buffer_view_from_host(j->dev, KILN_ELEMENT_F32, 1, &n, b,
                                     (uint64_t)n * 4, &in[1]);
    if (!s) s = kiln_function_call(j->fn, j->dev, in, 2, &out, 1);
    if (!s) s = kiln_buffer_view_read(out, c, (uint64_t)n * 4);
    if (s) {
      if (!j->errors++)
        snprintf(j->first_error, sizeof j->first_error, "%s",
                 kiln_status_message(s));
      kiln_status_free(s);
    } else {
      for (int64_t i = 0; i < n; ++i) {
        if (c[i] != a[i] * b[i]) {
          if (!j->errors++)
            snprintf(j->first_error, sizeof j->first_error,
                     "call %d: c[%lld] = %g, want %g", call, (long long)i,
                     (double)c[i], (double)(a[i] * b[i]));
          break;
        }
      }
    }
    kiln_buffer_view_release(out);
    kiln_buffer_view_release(in[0]);
    kiln_buffer_view_release(in[1]);
  }
  return NULL;
}

START_TEST(concurrent_calls) {
  static const char *const devices[] = {"local-sync", KILN_TEST_LOCAL_TASK};
  kiln_handmade_options_t o;
  kiln_handmade_default_options(&o);
  o.n = -1; /* dynamic size */
  size_t size;
  uint8_t *data = rt_handmade(&o, &size);
  kiln_instance_t *inst;
  kiln_device_t *dev;
  kiln_module_t *m;
  kiln_function_t fn;
  ck_assert_ptr_null(kiln_instance_create(kiln_allocator_system(), &inst));
  kiln_device_options_t dopts = {.worker_count = 3};
  ck_assert_ptr_null(kiln_device_create(inst, devices[_i], &dopts, &dev));
  ck_assert_ptr_null(kiln_module_load_memory(inst, data, size, &m));
  ck_assert_ptr_null(kiln_module_lookup_function(m, "simple_mul", &fn));
  pthread_barrier_t start;
  pthread_barrier_init(&start, NULL, THREADS);
  pthread_t threads[THREADS];
  job_t jobs[THREADS];
  for (int t = 0; t < THREADS; ++t) {
    memset(&jobs[t], 0, sizeof jobs[t]);
    jobs[t].dev = dev;
    jobs[t].fn = fn;
    jobs[t].id = t;
    jobs[t].start = &start;
    ck_assert_int_eq(pthread_create(&threads[t], NULL, worker, &jobs[t]), 0);
  }
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < THREADS; ++t)
    ck_assert_msg(jobs[t].errors == 0, "%s thread %d: %d errors, first: %s",
                  devices[_i], t, jobs[t].errors, jobs[t].first_error);
  pthread_barrier_destroy(&start);
  kiln_module_release(m);
  kiln_device_release(dev);
  kiln_instance_release(inst);
  free(data);
}
END_TEST

int main(void) {
  Suite *s = suite_create("runtime_threads");
  TCase *tc = tcase_create("threads");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, concurrent_calls, 0, 2);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  const int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
