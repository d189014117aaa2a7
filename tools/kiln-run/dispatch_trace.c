/* Implements dispatch_trace.h. The index is written as dispatches arrive,
 * one JSON object per line between "[" and "]", so a run that fails
 * midway still leaves the dispatches before the failure readable up to
 * the last complete line. */
#include "dispatch_trace.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "run_io.h"

static void fail(kiln_dispatch_trace_t *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void fail(kiln_dispatch_trace_t *t, const char *fmt, ...) {
  if (t->failed) return;
  t->failed = true;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t->err, sizeof t->err, fmt, ap);
  va_end(ap);
}

/* A JSON string (NULL as null). */
static void json_str(FILE *f, const char *s) {
  if (!s) {
    fputs("null", f);
    return;
  }
  fputc('"', f);
  for (; *s; ++s) {
    const unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(f, "\\%c", c);
    else if (c < 0x20)
      fprintf(f, "\\u%04x", c);
    else
      fputc(c, f);
  }
  fputc('"', f);
}

bool kiln_dispatch_trace_open(kiln_dispatch_trace_t *t, const char *dir,
                              const char *filter, char *err, size_t err_cap) {
  memset(t, 0, sizeof *t);
  t->dir = dir;
  if (filter) {
    const int rc = regcomp(&t->filter, filter, REG_EXTENDED | REG_NOSUB);
    if (rc) {
      char why[256];
      regerror(rc, &t->filter, why, sizeof why);
      snprintf(err, err_cap, "--trace-dispatches-filter '%s': %s", filter, why);
      return false;
    }
    t->has_filter = true;
  }
  if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
    snprintf(err, err_cap, "--trace-dispatches: cannot create '%s': %s", dir,
             strerror(errno));
    kiln_dispatch_trace_close(t, NULL, 0);
    return false;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/index.json", dir);
  t->index = fopen(path, "w");
  if (!t->index) {
    snprintf(err, err_cap, "--trace-dispatches: cannot write '%s': %s", path,
             strerror(errno));
    kiln_dispatch_trace_close(t, NULL, 0);
    return false;
  }
  fputs("[\n", t->index);
  return true;
}

static bool selected(const kiln_dispatch_trace_t *t,
                     const kiln_dispatch_event_t *e) {
  if (!t->has_filter) return true;
  if (regexec(&t->filter, e->executable, 0, NULL, 0) == 0 ||
      regexec(&t->filter, e->export_name, 0, NULL, 0) == 0)
    return true;
  for (uint32_t i = 0; i < e->node_count; ++i)
    if (regexec(&t->filter, e->node_names[i], 0, NULL, 0) == 0) return true;
  return false;
}

/* Writes binding b of e to path as 1-D uint8 .npy. */
static bool write_binding(kiln_dispatch_trace_t *t,
                          const kiln_dispatch_binding_t *b, const char *path) {
  kiln_host_tensor_t h;
  memset(&h, 0, sizeof h);
  h.type.element_type = KILN_ELEMENT_U8;
  h.type.rank = 1;
  h.type.dims[0] = (int64_t)b->length;
  h.size = (size_t)b->length;
  h.data = malloc(h.size ? h.size : 1);
  if (!h.data) {
    fail(t, "out of memory tracing %llu bytes", (unsigned long long)b->length);
    return false;
  }
  kiln_status_t s = kiln_buffer_read(b->buffer, b->offset, h.data, b->length);
  if (s) {
    fail(t, "reading a binding for %s: %s", path, kiln_status_message(s));
    kiln_status_free(s);
    free(h.data);
    return false;
  }
  char why[512];
  const bool ok = kiln_npy_write(path, &h, why, sizeof why);
  if (!ok) fail(t, "%s", why);
  free(h.data);
  return ok;
}

void kiln_dispatch_trace_observe(void *user, const kiln_dispatch_event_t *e) {
  kiln_dispatch_trace_t *t = user;
  const uint64_t seq = t->seq++;
  if (t->failed || !selected(t, e)) return;
  /* File names carry the entry point's name (an executable may hold
   * several), kept to safe characters. */
  char exe[128];
  size_t n = 0;
  for (const char *p = e->export_name; *p && n + 1 < sizeof exe; ++p)
    exe[n++] = (char)(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                             "0123456789_-", *p) ? *p : '_');
  exe[n] = 0;
  FILE *f = t->index;
  fprintf(f, "%s{\"seq\":%llu,\"executable\":", t->written ? ",\n" : "",
          (unsigned long long)seq);
  json_str(f, e->executable);
  fputs(",\"export\":", f);
  json_str(f, e->export_name);
  fputs(",\"function\":", f);
  json_str(f, e->function);
  fputs(",\"source\":", f);
  json_str(f, e->source_file);
  fprintf(f, ",\"line\":%u,\"column\":%u,\"workgroups\":[%u,%u,%u],\"nodes\":[",
          e->line, e->column, e->workgroup_count[0], e->workgroup_count[1],
          e->workgroup_count[2]);
  for (uint32_t i = 0; i < e->node_count; ++i) {
    fputs(i ? ",{\"name\":" : "{\"name\":", f);
    json_str(f, e->node_names[i]);
    fputs(",\"kind\":", f);
    json_str(f, e->node_kinds[i]);
    fputc('}', f);
  }
  fputs("],\"bindings\":[", f);
  uint32_t in = 0, out = 0;
  for (uint32_t i = 0; i < e->binding_count; ++i) {
    const kiln_dispatch_binding_t *b = &e->bindings[i];
    char name[256], path[4096];
    snprintf(name, sizeof name, "%06llu.%s.%s%u.npy", (unsigned long long)seq,
             exe, b->read_only ? "in" : "out", b->read_only ? in++ : out++);
    snprintf(path, sizeof path, "%s/%s", t->dir, name);
    fprintf(f, "%s{\"binding\":%u,\"kind\":\"%s\",\"bytes\":%llu,\"file\":", i ? "," : "", i,
            b->read_only ? "in" : "out", (unsigned long long)b->length);
    json_str(f, name);
    fputc('}', f);
    if (!write_binding(t, b, path)) break;
  }
  fputs("]}", f);
  t->written++;
}

bool kiln_dispatch_trace_close(kiln_dispatch_trace_t *t, char *err,
                               size_t err_cap) {
  if (t->index) {
    fputs("\n]\n", t->index);
    if (fclose(t->index) != 0) fail(t, "--trace-dispatches: writing index.json: %s", strerror(errno));
    t->index = NULL;
  }
  if (t->has_filter) regfree(&t->filter);
  t->has_filter = false;
  if (t->failed && err) snprintf(err, err_cap, "%s", t->err);
  return !t->failed;
}
