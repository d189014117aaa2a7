/* Implements check_bundled.h: the module file is mapped again and verified
 * as a view (the runtime's loaded module does not expose the section),
 * each case's inputs become buffer views on the session's device, and
 * the results are compared in double precision. */
#include "check_bundled.h"

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kiln/module_format.h"

#if KILN_FORMAT_BUNDLED_IO

/* Maps the module file read-only (as kiln-dump does): the section is
 * read in place, and a large module is not copied a second time. */
static const uint8_t *map_module(const char *path, uint64_t *size) {
  const int fd = open(path, O_RDONLY);
  struct stat st;
  if (fd < 0) return NULL;
  void *map = MAP_FAILED;
  if (fstat(fd, &st) == 0 && st.st_size > 0)
    map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return NULL;
  *size = (uint64_t)st.st_size;
  return map;
}

static double half_to_double(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0) return s * ldexp(m, -24);
  if (e == 31) return m ? NAN : s * INFINITY;
  return s * ldexp(m + 1024, e - 25);
}

/* Element i of a dense buffer as a double. */
static double element(kiln_fb_ElementType_t t, const uint8_t *p, uint64_t i) {
  union {
    int8_t i8; int16_t i16; int32_t i32; int64_t i64;
    uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64;
    float f32; double f64;
  } v;
  const unsigned es = kiln_module_element_type_size(t);
  memcpy(&v, p + i * es, es);
  switch (t) {
    case kiln_fb_ElementType_I1: return v.u8 != 0;
    case kiln_fb_ElementType_I8: return v.i8;
    case kiln_fb_ElementType_I16: return v.i16;
    case kiln_fb_ElementType_I32: return v.i32;
    case kiln_fb_ElementType_I64: return (double)v.i64;
    case kiln_fb_ElementType_U8: return v.u8;
    case kiln_fb_ElementType_U16: return v.u16;
    case kiln_fb_ElementType_U32: return v.u32;
    case kiln_fb_ElementType_U64: return (double)v.u64;
    case kiln_fb_ElementType_F16: return half_to_double(v.u16);
    case kiln_fb_ElementType_BF16: {
      const uint32_t w = (uint32_t)v.u16 << 16;
      float f;
      memcpy(&f, &w, 4);
      return f;
    }
    case kiln_fb_ElementType_F32: return v.f32;
    case kiln_fb_ElementType_F64: return v.f64;
    default: return NAN;
  }
}

/* The dims and byte size of a bundled tensor; false (message in err)
 * when its data does not fill its type exactly. */
static bool tensor_shape(kiln_fb_BundledTensor_t t, int64_t *dims, uint32_t *rank,
                         uint64_t *count, char *err, size_t cap) {
  *rank = kiln_fb_BundledTensor_dims_count(t);
  const unsigned es = kiln_module_element_type_size(kiln_fb_BundledTensor_element_type(t));
  if (*rank > KILN_MAX_RANK || !es) {
    snprintf(err, cap, "rank %" PRIu32 " or element type %d is not supported", *rank,
             (int)kiln_fb_BundledTensor_element_type(t));
    return false;
  }
  *count = 1;
  for (uint32_t d = 0; d < *rank; d++) {
    dims[d] = kiln_fb_BundledTensor_dims_at(t, d);
    if (dims[d] < 0 || (dims[d] && *count > UINT64_MAX / (uint64_t)dims[d] / es)) {
      snprintf(err, cap, "dim %" PRIu32 " is %" PRId64, d, dims[d]);
      return false;
    }
    *count *= (uint64_t)dims[d];
  }
  if (*count * es != kiln_fb_BundledTensor_data_count(t)) {
    snprintf(err, cap, "holds %" PRIu32 " bytes, its type needs %" PRIu64,
             kiln_fb_BundledTensor_data_count(t), *count * es);
    return false;
  }
  return true;
}

typedef struct check_tol {
  double atol, rtol;
} check_tol;

/* Compares one result with the expected tensor; prints its line. */
static bool compare(uint32_t ci, uint32_t k, kiln_fb_BundledTensor_t want,
                    const kiln_buffer_view_t *got, const check_tol *tol) {
  kiln_fb_string_t name = kiln_fb_BundledTensor_name(want);
  printf("check %" PRIu32 ": output %" PRIu32 " (%.*s): ", ci, k, (int)name.size, name.data);
  int64_t dims[KILN_MAX_RANK];
  uint32_t rank;
  uint64_t count;
  char err[256];
  if (!tensor_shape(want, dims, &rank, &count, err, sizeof err)) {
    printf("FAIL: expected tensor %s\n", err);
    return false;
  }
  kiln_tensor_type_t gt;
  kiln_buffer_view_type(got, &gt);
  const kiln_fb_ElementType_t et = kiln_fb_BundledTensor_element_type(want);
  bool same = (int)gt.element_type == (int)et && gt.rank == rank;
  for (uint32_t d = 0; same && d < rank; d++) same = gt.dims[d] == dims[d];
  if (!same) {
    char gs[128];
    kiln_tensor_type_format(&gt, gs, sizeof gs);
    printf("FAIL: result is %s, expected %" PRIu32 "-d %s data\n", gs, rank,
           kiln_module_element_type_name(et));
    return false;
  }
  const uint64_t bytes = kiln_fb_BundledTensor_data_count(want);
  uint8_t *buf = malloc(bytes ? bytes : 1);
  if (!buf) {
    printf("FAIL: out of memory\n");
    return false;
  }
  kiln_status_t st = kiln_buffer_view_read(got, buf, bytes);
  if (st) {
    printf("FAIL: %s\n", kiln_status_message(st));
    kiln_status_free(st);
    free(buf);
    return false;
  }
  const uint8_t *ref = kiln_fb_BundledTensor_data_data(want);
  double max_abs = 0, max_rel = 0;
  uint64_t bad = 0, first_bad = 0;
  for (uint64_t i = 0; i < count; i++) {
    const double g = element(et, buf, i), w = element(et, ref, i);
    bool ok;
    if (isnan(w) || isnan(g)) {
      ok = isnan(w) && isnan(g);
    } else if (isinf(w) || isinf(g)) {
      ok = g == w;
    } else {
      const double a = fabs(g - w), r = w != 0 ? a / fabs(w) : (a != 0 ? INFINITY : 0);
      if (a > max_abs) max_abs = a;
      if (r > max_rel) max_rel = r;
      ok = a <= tol->atol + tol->rtol * fabs(w);
    }
    if (!ok && bad++ == 0) first_bad = i;
  }
  free(buf);
  printf("max abs error %.6g, max rel error %.6g: ", max_abs, max_rel);
  if (bad)
    printf("FAIL (%" PRIu64 " of %" PRIu64 " elements off, first at flat index %" PRIu64 ")\n",
           bad, count, first_bad);
  else
    printf("pass\n");
  return bad == 0;
}

/* Runs case ci; false when it failed or could not run. */
static bool run_case(const kiln_run_options_t *o, kiln_run_session_t *s, uint32_t ci,
                     kiln_fb_BundledCase_t c, const check_tol *tol) {
  kiln_fb_string_t fname = kiln_fb_BundledCase_function(c);
  char name[256];
  snprintf(name, sizeof name, "%.*s", (int)fname.size, fname.data);
  kiln_function_t fn;
  kiln_status_t st = kiln_module_lookup_function(s->module, name, &fn);
  if (st) {
    printf("check %" PRIu32 ": FAIL: %s\n", ci, kiln_status_message(st));
    kiln_status_free(st);
    return false;
  }
  const uint32_t nin = kiln_fb_BundledCase_inputs_count(c);
  const uint32_t nout = kiln_fb_BundledCase_outputs_count(c);
  if (nin > KILN_RUN_MAX_ARGS || nout > KILN_RUN_MAX_ARGS ||
      nout != kiln_function_output_count(fn)) {
    printf("check %" PRIu32 ": FAIL: %" PRIu32 " inputs and %" PRIu32
           " outputs do not fit function '%s'\n", ci, nin, nout, name);
    return false;
  }
  kiln_buffer_view_t *ins[KILN_RUN_MAX_ARGS] = {0}, *outs[KILN_RUN_MAX_ARGS] = {0};
  bool ok = true;
  for (uint32_t k = 0; k < nin && ok; k++) {
    kiln_fb_BundledTensor_t t = kiln_fb_BundledCase_inputs_at(c, k);
    int64_t dims[KILN_MAX_RANK];
    uint32_t rank;
    uint64_t count;
    char err[256];
    if (!tensor_shape(t, dims, &rank, &count, err, sizeof err)) {
      printf("check %" PRIu32 ": FAIL: input %" PRIu32 " %s\n", ci, k, err);
      ok = false;
      break;
    }
    st = kiln_buffer_view_from_host(s->device,
                                    (kiln_element_type_t)kiln_fb_BundledTensor_element_type(t),
                                    rank, dims, kiln_fb_BundledTensor_data_data(t),
                                    kiln_fb_BundledTensor_data_count(t), &ins[k]);
    if (st) {
      printf("check %" PRIu32 ": FAIL: input %" PRIu32 ": %s\n", ci, k, kiln_status_message(st));
      kiln_status_free(st);
      ok = false;
    }
  }
  if (ok) {
    st = kiln_function_call(fn, s->device, ins, nin, outs, nout);
    if (st) {
      printf("check %" PRIu32 ": FAIL: calling '%s': %s\n", ci, name, kiln_status_message(st));
      kiln_status_free(st);
      ok = false;
    }
  }
  for (uint32_t k = 0; k < nout && ok; k++)
    if (!compare(ci, k, kiln_fb_BundledCase_outputs_at(c, k), outs[k], tol)) ok = false;
  for (uint32_t k = 0; k < nin; k++) kiln_buffer_view_release(ins[k]);
  for (uint32_t k = 0; k < nout; k++) kiln_buffer_view_release(outs[k]);
  (void)o;
  return ok;
}

int kiln_run_check_bundled(const kiln_run_options_t *o, kiln_run_session_t *s) {
  uint64_t size = 0;
  const uint8_t *file = map_module(o->module_path, &size);
  if (!file) {
    fprintf(stderr, "%s: cannot read '%s'\n", o->tool, o->module_path);
    return 1;
  }
  kiln_module_view_t view;
  kiln_format_error_t ferr;
  if (!kiln_module_view_open(&view, file, size, &ferr)) {
    fprintf(stderr, "%s: %s: %s\n", o->tool, o->module_path, ferr.message);
    munmap((void *)file, (size_t)size);
    return 1;
  }
  const uint32_t n = kiln_fb_Module_bundled_cases_count(view.root);
  if (!n) {
    fprintf(stderr, "%s: %s holds no check data (compile it with kiln-compile --bundle-io)\n",
            o->tool, o->module_path);
    munmap((void *)file, (size_t)size);
    return 1;
  }
  const check_tol tol = {o->check_atol, o->check_rtol};
  uint32_t passed = 0;
  for (uint32_t i = 0; i < n; i++)
    passed += run_case(o, s, i, kiln_fb_Module_bundled_cases_at(view.root, i), &tol);
  printf("bundled checks: %" PRIu32 " passed, %" PRIu32 " failed (atol %g, rtol %g, %s)\n",
         passed, n - passed, tol.atol, tol.rtol, o->device);
  munmap((void *)file, (size_t)size);
  return passed == n ? 0 : 1;
}

#else /* !KILN_FORMAT_BUNDLED_IO */

/* A runtime-only build (KILN_RUNTIME_ONLY, e.g. scripts/cross-build.sh)
 * leaves the check-data descriptors out of the format reader to keep
 * runtime-min small, so its kiln-run cannot read them: it says so. */
int kiln_run_check_bundled(const kiln_run_options_t *o, kiln_run_session_t *s) {
  (void)s;
  fprintf(stderr,
          "%s: --check-bundled is not available in this runtime-only build (KILN_RUNTIME_ONLY "
          "leaves the module's check-data section out); use a full build's kiln-run\n",
          o->tool);
  return 1;
}

#endif /* KILN_FORMAT_BUNDLED_IO */
