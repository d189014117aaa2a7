/* Implements run_session.h. The function defaults to the module's only
 * exported function; the inputs are checked for count here (naming the
 * expected signature) and for type by kiln_function_call. */
#include "run_session.h"

#include <stdlib.h>
#include <string.h>

static void usage(const kiln_run_options_t *o, bool bench) {
  fprintf(stderr,
          "usage: %s --module=M.kiln [--function=F] [--device=local-sync|"
          "local-task|cuda]\n"
          "       [--workers=N] [--check-hashes]\n"
          "       [--input=2x2xf32=1,2,3,4 | --input=@x.npy |\n"
          "        --input=seq:@a.npy:@b.npy]...\n"
          "       %s\n",
          o->tool,
          bench ? "[--warmup=N] [--repetitions=N] [--profile-dispatches]"
                : "[--output=@y.npy | --output=-]...\n"
                  "       [--trace-dispatches=DIR "
                  "[--trace-dispatches-filter=REGEX]]\n"
                  "       [--check-bundled [--check-atol=1e-5] [--check-rtol=1e-4]]");
}

static bool parse_uint(const char *s, long max, long *out) {
  char *end;
  const long v = strtol(s, &end, 10);
  if (!*s || *end || v < 0 || v > max) return false;
  *out = v;
  return true;
}

int kiln_run_parse_flags(int argc, char **argv, bool bench,
                         kiln_run_options_t *o, bool *done) {
  *done = false;
  o->device = "local-sync";
  o->warmup = 1;
  o->repetitions = 10;
  /* Default tolerances: f32 kernels that reassociate sums (tiling,
   * vectorised reductions) drift by a few ulps per term. */
  o->check_atol = 1e-5;
  o->check_rtol = 1e-4;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = strchr(a, '=');
    const size_t klen = v ? (size_t)(v - a) : strlen(a);
    v = v ? v + 1 : NULL;
#define FLAG(name) (klen == strlen(name) && strncmp(a, name, klen) == 0)
    long n;
    if (FLAG("--help") || FLAG("-h")) {
      usage(o, bench);
      *done = true;
      return 0;
    } else if (bench && FLAG("--profile-dispatches") && !v) {
      o->profile_dispatches = true;
    } else if (FLAG("--check-hashes") && !v) {
      o->check_hashes = true;
    } else if (!bench && FLAG("--check-bundled") && !v) {
      o->check_bundled = true;
    } else if (!v) {
      fprintf(stderr, "%s: '%s' needs a value (--flag=value)\n", o->tool, a);
      return 2;
    } else if (FLAG("--module")) {
      o->module_path = v;
    } else if (FLAG("--function")) {
      o->function = v;
    } else if (FLAG("--device")) {
      o->device = v;
    } else if (FLAG("--workers")) {
      if (!parse_uint(v, 1024, &n) || n == 0) {
        fprintf(stderr, "%s: --workers wants 1..1024, got '%s'\n", o->tool, v);
        return 2;
      }
      o->workers = (uint32_t)n;
    } else if (FLAG("--input")) {
      if (o->input_count == KILN_RUN_MAX_ARGS) {
        fprintf(stderr, "%s: more than %d --input flags\n", o->tool,
                KILN_RUN_MAX_ARGS);
        return 2;
      }
      o->inputs[o->input_count++] = v;
    } else if (!bench && FLAG("--output")) {
      if (o->output_count == KILN_RUN_MAX_ARGS) {
        fprintf(stderr, "%s: more than %d --output flags\n", o->tool,
                KILN_RUN_MAX_ARGS);
        return 2;
      }
      if (strcmp(v, "-") != 0 && v[0] != '@') {
        fprintf(stderr, "%s: --output wants @FILE.npy or -, got '%s'\n",
                o->tool, v);
        return 2;
      }
      o->outputs[o->output_count++] = v;
    } else if (!bench && (FLAG("--check-atol") || FLAG("--check-rtol"))) {
      char *end;
      const double t = strtod(v, &end);
      if (!*v || *end || !(t >= 0) || t > 1e30) {
        fprintf(stderr, "%s: %.*s wants a tolerance >= 0, got '%s'\n", o->tool,
                (int)klen, a, v);
        return 2;
      }
      if (a[8] == 'a') o->check_atol = t;
      else o->check_rtol = t;
    } else if (!bench && FLAG("--trace-dispatches")) {
      o->trace_dir = v;
    } else if (!bench && FLAG("--trace-dispatches-filter")) {
      o->trace_filter = v;
    } else if (bench && FLAG("--warmup")) {
      if (!parse_uint(v, 1000000000L, &o->warmup)) {
        fprintf(stderr, "%s: bad --warmup '%s'\n", o->tool, v);
        return 2;
      }
    } else if (bench && FLAG("--repetitions")) {
      if (!parse_uint(v, 1000000000L, &o->repetitions) || o->repetitions == 0) {
        fprintf(stderr, "%s: bad --repetitions '%s' (at least 1)\n", o->tool,
                v);
        return 2;
      }
    } else {
      fprintf(stderr, "%s: unknown flag '%.*s'\n", o->tool, (int)klen, a);
      usage(o, bench);
      return 2;
    }
#undef FLAG
  }
  if (o->trace_filter && !o->trace_dir) {
    fprintf(stderr, "%s: --trace-dispatches-filter needs --trace-dispatches\n",
            o->tool);
    return 2;
  }
  if (o->check_bundled && (o->input_count || o->output_count || o->trace_dir)) {
    fprintf(stderr, "%s: --check-bundled runs the module's own inputs; it takes no "
            "--input, --output or --trace-dispatches\n", o->tool);
    return 2;
  }
  if (!o->module_path) {
    fprintf(stderr, "%s: --module is required\n", o->tool);
    usage(o, bench);
    return 2;
  }
  return 0;
}

int kiln_run_report(const kiln_run_options_t *o, kiln_status_t status) {
  fprintf(stderr, "%s: %s\n", o->tool, kiln_status_message(status));
  kiln_status_free(status);
  return 1;
}

static int pick_function(const kiln_run_options_t *o, kiln_run_session_t *s) {
  if (o->function) {
    kiln_status_t st =
        kiln_module_lookup_function(s->module, o->function, &s->function);
    return st ? kiln_run_report(o, st) : 0;
  }
  int found = 0;
  char names[512] = "";
  size_t n = 0;
  for (uint32_t i = 0; i < kiln_module_function_count(s->module); ++i) {
    kiln_function_t f;
    kiln_status_t st = kiln_module_function_at(s->module, i, &f);
    if (st) return kiln_run_report(o, st);
    if (!kiln_function_is_exported(f)) continue;
    if (found++ == 0) s->function = f;
    if (n < sizeof names)
      n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "",
                            kiln_function_name(f));
  }
  if (found == 1) return 0;
  fprintf(stderr, "%s: %s; choose one with --function (functions: %s)\n",
          o->tool, found ? "the module exports several functions"
                         : "the module exports no function",
          found ? names : "none");
  return 1;
}

/* --input i's value text[0, len) as a view on the session's device; 0 or
 * (after printing why) 1. */
static int open_input(const kiln_run_options_t *o, kiln_run_session_t *s,
                      uint32_t i, const char *text, size_t len,
                      kiln_buffer_view_t **out) {
  const kiln_tensor_type_t declared = kiln_function_input_type(s->function, i);
  kiln_host_tensor_t t;
  char err[512], *value = malloc(len + 1);
  if (value) memcpy(value, text, len), value[len] = 0;
  if (!value || !kiln_parse_input(value, &declared, &t, err, sizeof err)) {
    fprintf(stderr, "%s: input %u (--input=%s): %s\n", o->tool, i,
            o->inputs[i], value ? err : "out of memory");
    free(value);
    return 1;
  }
  free(value);
  kiln_status_t st = kiln_buffer_view_from_host(
      s->device, t.type.element_type, t.type.rank, t.type.dims, t.data,
      t.size, out);
  kiln_host_tensor_free(&t);
  return st ? kiln_run_report(o, st) : 0;
}

#ifdef KILN_RUNTIME_SEQUENCES
/* A sequence input is --input=seq:ELEM:ELEM... (each ELEM an --input
 * value; "seq:" alone is the empty sequence). Sets s->sequences[i] when
 * input i is one; 0 or (after printing why) 1. */
static int open_sequence(const kiln_run_options_t *o, kiln_run_session_t *s,
                         uint32_t i) {
  const char *text = o->inputs[i];
  const bool given = strncmp(text, "seq:", 4) == 0;
  if (given != (bool)kiln_function_input_is_sequence(s->function, i)) {
    char sig[512];
    kiln_function_signature_format(s->function, sig, sizeof sig);
    fprintf(stderr, "%s: input %u (--input=%s): %s (function '%s' %s)\n",
            o->tool, i, text,
            given ? "a sequence given for a tensor input"
                  : "a sequence input: give --input=seq:ELEMENT:ELEMENT... "
                    "(each element an --input value, e.g. @a.npy; seq: "
                    "alone is empty)",
            kiln_function_name(s->function), sig);
    return 1;
  }
  if (!given) return 0;
  kiln_buffer_view_t *views[KILN_RUN_MAX_ARGS];
  uint32_t n = 0;
  int rc = 0;
  for (const char *p = text + 4; *p && !rc;) {
    const char *end = strchr(p, ':');
    const size_t len = end ? (size_t)(end - p) : strlen(p);
    if (n == KILN_RUN_MAX_ARGS) {
      fprintf(stderr, "%s: input %u: more than %d sequence elements\n",
              o->tool, i, KILN_RUN_MAX_ARGS);
      rc = 1;
      break;
    }
    rc = open_input(o, s, i, p, len, &views[n]);
    n += !rc;
    p = end ? end + 1 : p + len;
  }
  kiln_status_t st = NULL;
  if (!rc) st = kiln_sequence_create(s->device, views, n, &s->sequences[i]);
  for (uint32_t k = 0; k < n; ++k) kiln_buffer_view_release(views[k]);
  return st ? kiln_run_report(o, st) : rc;
}
#endif

int kiln_run_open(const kiln_run_options_t *o, kiln_run_session_t *s) {
  memset(s, 0, sizeof *s);
  kiln_status_t st = kiln_instance_create(kiln_allocator_system(), &s->instance);
  if (st) return kiln_run_report(o, st);
  st = kiln_module_load_file(s->instance, o->module_path, &s->module);
  if (!st && o->check_hashes) st = kiln_module_check_hashes(s->module);
  if (st) return kiln_run_report(o, st);
  kiln_device_options_t dopts;
  memset(&dopts, 0, sizeof dopts);
  dopts.worker_count = o->workers;
  dopts.dispatch_observer = o->dispatch_observer;
  dopts.dispatch_observer_user = o->dispatch_observer_user;
  if (o->check_bundled) {
    st = kiln_device_create(s->instance, o->device, &dopts, &s->device);
    return st ? kiln_run_report(o, st) : 0;
  }
  if (pick_function(o, s)) return 1;
  const uint32_t want = kiln_function_input_count(s->function);
  if ((uint32_t)o->input_count != want) {
    char sig[512];
    kiln_function_signature_format(s->function, sig, sizeof sig);
    fprintf(stderr, "%s: function '%s' %s takes %u inputs, got %d --input\n",
            o->tool, kiln_function_name(s->function), sig, want,
            o->input_count);
    return 1;
  }
  st = kiln_device_create(s->instance, o->device, &dopts, &s->device);
  if (st) return kiln_run_report(o, st);
  for (int i = 0; i < o->input_count; ++i) {
    s->input_count = (uint32_t)i + 1;
#ifdef KILN_RUNTIME_SEQUENCES
    if (open_sequence(o, s, (uint32_t)i)) return 1;
    if (s->sequences[i]) continue;
#endif
    if (open_input(o, s, (uint32_t)i, o->inputs[i], strlen(o->inputs[i]),
                   &s->inputs[i]))
      return 1;
  }
  return 0;
}

void kiln_run_close(kiln_run_session_t *s) {
  for (uint32_t i = 0; i < s->input_count; ++i) {
    kiln_buffer_view_release(s->inputs[i]);
#ifdef KILN_RUNTIME_SEQUENCES
    kiln_sequence_release(s->sequences[i]);
#endif
  }
  kiln_module_release(s->module);
  kiln_device_release(s->device);
  kiln_instance_release(s->instance);
  memset(s, 0, sizeof *s);
}
