/* What kiln-run and kiln-bench share: IREE-style flags, then opening the
 * module on a device, choosing the function and turning every --input
 * into a buffer view on that device. Messages go to stderr prefixed with
 * the tool's name. */
#ifndef KILN_RUN_SESSION_H
#define KILN_RUN_SESSION_H

#include "kiln/runtime.h"
#include "run_io.h"

#define KILN_RUN_MAX_ARGS 64

typedef struct kiln_run_options {
  const char *tool;
  const char *module_path;
  const char *function;
  const char *device;
  uint32_t workers;
  const char *inputs[KILN_RUN_MAX_ARGS];
  int input_count;
  const char *outputs[KILN_RUN_MAX_ARGS];
  int output_count;
  long warmup, repetitions; /* kiln-bench */
  bool check_hashes;        /* kiln_module_check_hashes after loading */
  bool profile_dispatches;  /* kiln-bench */
  const char *trace_dir;    /* kiln-run --trace-dispatches */
  const char *trace_filter; /* kiln-run --trace-dispatches-filter */
  bool check_bundled;       /* kiln-run --check-bundled (check_bundled.h) */
  double check_atol, check_rtol; /* its tolerances */
  /* Passed to the device (kiln_device_options_t) when set. */
  kiln_dispatch_observer_fn dispatch_observer;
  void *dispatch_observer_user;
} kiln_run_options_t;

typedef struct kiln_run_session {
  kiln_instance_t *instance;
  kiln_device_t *device;
  kiln_module_t *module;
  kiln_function_t function;
  kiln_buffer_view_t *inputs[KILN_RUN_MAX_ARGS];
  /* A sequence input's value (--input=seq:...), its inputs[] NULL. */
  kiln_sequence_t *sequences[KILN_RUN_MAX_ARGS];
  uint32_t input_count;
} kiln_run_session_t;

/* Returns 0 to go on, or the exit code (0 after --help is signalled by
 * *done). bench enables --warmup/--repetitions/--profile-dispatches. */
int kiln_run_parse_flags(int argc, char **argv, bool bench,
                         kiln_run_options_t *o, bool *done);

/* 0 on success; otherwise prints the error and returns 1. With
 * o->check_bundled it stops once the device is made: no function is
 * chosen and no input read (each check names its own). */
int kiln_run_open(const kiln_run_options_t *o, kiln_run_session_t *s);
void kiln_run_close(kiln_run_session_t *s);

/* Prints "TOOL: message" for a status and frees it; returns 1. */
int kiln_run_report(const kiln_run_options_t *o, kiln_status_t status);

#endif /* KILN_RUN_SESSION_H */
