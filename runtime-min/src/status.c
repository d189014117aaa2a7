/* Status values: a code plus a formatted message, allocated with the
 * allocator of the object that failed. When even that allocation fails the
 * caller gets a static out-of-memory status, which kiln_status_free
 * recognizes and leaves alone. NULL is success. A KILN_MESSAGES=OFF build
 * keeps only the code, in static statuses. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime_internal.h"

#ifdef KILN_NO_MESSAGES
/* Codes only (KILN_MESSAGES=OFF): one static status per code, never
 * allocated, formatted or freed (krt_status takes its address inline, see
 * runtime_internal.h); every message is KILN_MESSAGE_NONE. */
struct kiln_status krt_code_status[KILN_STATUS_INTERNAL + 1] = {
    {KILN_STATUS_OK},          {KILN_STATUS_INVALID_ARGUMENT},
    {KILN_STATUS_NOT_FOUND},   {KILN_STATUS_OUT_OF_RANGE},
    {KILN_STATUS_DATA_LOSS},   {KILN_STATUS_INCOMPATIBLE},
    {KILN_STATUS_FAILED_PRECONDITION}, {KILN_STATUS_RESOURCE_EXHAUSTED},
    {KILN_STATUS_UNAVAILABLE}, {KILN_STATUS_UNIMPLEMENTED},
    {KILN_STATUS_ABORTED},     {KILN_STATUS_INTERNAL},
};

kiln_status_t krt_vstatus(const kiln_allocator_t *allocator,
                          kiln_status_code_t code, const char *fmt,
                          va_list ap) {
  (void)fmt, (void)ap;
  return krt_status(allocator, code, KILN_MESSAGE_NONE);
}

const char *kiln_status_message(kiln_status_t status) {
  return status ? KILN_MESSAGE_NONE : "";
}

void kiln_status_free(kiln_status_t status) { (void)status; }
#else
struct kiln_status {
  kiln_status_code_t code;
  bool owned;                  /* false for the static fallback */
  kiln_allocator_t allocator;  /* a copy: the status may outlive its maker */
  char message[];
};

static struct kiln_status krt_oom_status = {
    KILN_STATUS_RESOURCE_EXHAUSTED, false, {NULL, NULL, NULL}, {0}};

/* The message is fmt's output, then ": " and tail when tail is not NULL
 * (a context prefixed to an existing message: krt_status_prefix). */
static kiln_status_t make(const kiln_allocator_t *a, kiln_status_code_t code,
                          const char *tail, const char *fmt, va_list ap)
    KRT_PRINTF(4, 0);
static kiln_status_t make(const kiln_allocator_t *a, kiln_status_code_t code,
                          const char *tail, const char *fmt, va_list ap) {
  char text[KILN_MESSAGE_TEXT_MAX];
  fmt = kiln_message_text(fmt, text);
  va_list copy;
  va_copy(copy, ap);
  int n = vsnprintf(NULL, 0, fmt, copy);
  va_end(copy);
  if (n < 0) n = 0;
  const size_t tail_len = tail ? strlen(tail) + 2 : 0;
  /* Errors about a missing allocator still need memory from somewhere. */
  kiln_allocator_t sys = kiln_allocator_system();
  if (!a || !a->alloc) a = &sys;
  kiln_status_t s = a->alloc(a->self, sizeof *s + (size_t)n + tail_len + 1, 16);
  if (!s) return &krt_oom_status;
  s->code = code;
  s->owned = true;
  s->allocator = *a;
  vsnprintf(s->message, (size_t)n + 1, fmt, ap);
  if (tail) {
    memcpy(s->message + n, ": ", 2);
    memcpy(s->message + n + 2, tail, tail_len - 1); /* with its NUL */
  }
  return s;
}

kiln_status_t krt_vstatus(const kiln_allocator_t *allocator,
                          kiln_status_code_t code, const char *fmt,
                          va_list ap) {
  return make(allocator, code, NULL, fmt, ap);
}

KILN_MESSAGE_VARIADIC
kiln_status_t (krt_status)(const kiln_allocator_t *allocator,
                           kiln_status_code_t code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kiln_status_t s = make(allocator, code, NULL, fmt, ap);
  va_end(ap);
  return s;
}

KILN_MESSAGE_VARIADIC
kiln_status_t (krt_status_prefix)(kiln_status_t status, const char *fmt, ...) {
  if (!status || !status->owned) return status;
  va_list ap;
  va_start(ap, fmt);
  kiln_status_t s = make(&status->allocator, status->code, status->message,
                         fmt, ap);
  va_end(ap);
  if (s == &krt_oom_status) return status;
  kiln_status_free(status);
  return s;
}

const char *kiln_status_message(kiln_status_t status) {
  if (!status) return "";
  if (status == &krt_oom_status) return "out of memory";
  return status->message;
}

void kiln_status_free(kiln_status_t status) {
  if (!status || !status->owned) return;
  status->allocator.free(status->allocator.self, status);
}
#endif

kiln_status_t krt_oom(const kiln_allocator_t *allocator) {
  return krt_status(allocator, KILN_STATUS_RESOURCE_EXHAUSTED, "out of memory");
}

kiln_status_code_t kiln_status_code(kiln_status_t status) {
  return status ? status->code : KILN_STATUS_OK;
}

const char *kiln_status_code_name(kiln_status_code_t code) {
  /* NUL-separated in code order and walked: no table of pointers. */
  static const char names[] =
      "KILN_STATUS_OK\0"
      "KILN_STATUS_INVALID_ARGUMENT\0"
      "KILN_STATUS_NOT_FOUND\0"
      "KILN_STATUS_OUT_OF_RANGE\0"
      "KILN_STATUS_DATA_LOSS\0"
      "KILN_STATUS_INCOMPATIBLE\0"
      "KILN_STATUS_FAILED_PRECONDITION\0"
      "KILN_STATUS_RESOURCE_EXHAUSTED\0"
      "KILN_STATUS_UNAVAILABLE\0"
      "KILN_STATUS_UNIMPLEMENTED\0"
      "KILN_STATUS_ABORTED\0"
      "KILN_STATUS_INTERNAL";
  if ((unsigned)code > KILN_STATUS_INTERNAL) return "KILN_STATUS_?";
  const char *n = names;
  for (unsigned i = 0; i < (unsigned)code; i++) n += strlen(n) + 1;
  return n;
}
