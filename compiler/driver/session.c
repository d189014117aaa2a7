/* The compile session (session.h): option storage, rodata and payload
 * tables in insertion order, the input's provenance, and the context ->
 * session association. */
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sha256.h"

static const char *const ks_stage_names[] = {
#define KILN_STAGE_NAME(ID, NAME) NAME,
    KILN_STAGES(KILN_STAGE_NAME)
#undef KILN_STAGE_NAME
};

const char *kiln_stage_name(kiln_stage_t s) {
  return s < KILN_STAGE_COUNT ? ks_stage_names[s] : "?";
}

kiln_stage_t kiln_stage_lookup(const char *name) {
  for (int i = 0; i < KILN_STAGE_COUNT; i++)
    if (strcmp(ks_stage_names[i], name) == 0) return (kiln_stage_t)i;
  return KILN_STAGE_COUNT;
}

static char *ks_strdup(const char *s) {
  if (!s) return NULL;
  const size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Grows *arr (of elem bytes each) so that one more entry fits. */
static bool ks_grow(void **arr, uint32_t count, uint32_t *cap, size_t elem) {
  if (count < *cap) return true;
  const uint32_t n = *cap ? *cap * 2 : 8;
  void *p = realloc(*arr, n * elem);
  if (!p) return false;
  *arr = p;
  *cap = n;
  return true;
}

kiln_session *kiln_session_create(void) {
  kiln_session *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->options.compile_to = KILN_STAGE_SERIALIZE;
  s->options.dump = stderr;
  return s;
}

static void ks_free_strings(char **v, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void kiln_session_destroy(kiln_session *s) {
  if (!s) return;
  if (s->ctx && kiln_session_of(s->ctx) == s) kiln_session_attach(NULL, s->ctx);
  ks_free_strings(s->targets, s->target_count);
  ks_free_strings(s->flags, s->flag_count);
  for (uint32_t i = 0; i < s->rodata_count; i++) {
    free((void *)s->rodata[i].name);
    if (s->rodata[i].owned) free((void *)s->rodata[i].data);
  }
  free(s->rodata);
  for (uint32_t i = 0; i < s->payload_count; i++) {
    kiln_session_payload_t *p = &s->payloads[i];
    free(p->executable);
    free(p->variant);
    free(p->arch);
    free(p->features);
    free(p->data);
  }
  free(s->payloads);
  free(s->input_name);
  if (s->pending_free) s->pending_free(s->pending);
  for (uint32_t i = 0; i < s->shape_count; i++) free(s->shapes[i].name);
  free(s->shapes);
  free(s);
}

static kiln_error *ks_push_string(char ***v, uint32_t *n, const char *str) {
  char **p = realloc(*v, (*n + 1) * sizeof *p);
  if (!p) return kiln_error_new("out of memory");
  *v = p;
  if (!(p[*n] = ks_strdup(str))) return kiln_error_new("out of memory");
  (*n)++;
  return NULL;
}

kiln_error *kiln_session_add_target(kiln_session *s, const char *target) {
  if (!target || !*target) return kiln_error_new("empty --target");
  return ks_push_string(&s->targets, &s->target_count, target);
}

uint32_t kiln_session_targets(const kiln_session *s, const char *const **out) {
  static const char *const host[] = {"llvm-cpu"};
  if (!s->target_count) {
    *out = host;
    return 1;
  }
  *out = (const char *const *)s->targets;
  return s->target_count;
}

kiln_error *kiln_session_add_flag(kiln_session *s, const char *flag) {
  return ks_push_string(&s->flags, &s->flag_count, flag);
}

void kiln_session_note_llvm(kiln_session *s, const char *executable, const char *variant,
                            unsigned major, unsigned minor, unsigned patch) {
  for (uint32_t i = 0; i < s->payload_count; i++) {
    kiln_session_payload_t *p = &s->payloads[i];
    if (strcmp(p->executable, executable) == 0 && strcmp(p->variant, variant) == 0)
      snprintf(p->llvm_version, sizeof p->llvm_version, "%u.%u.%u", major % 1000u, minor % 1000u,
               patch % 1000u);
  }
}

kiln_error *kiln_session_record_input(kiln_session *s, const char *path) {
  if (!kiln_sha256_file(path, s->input_sha256)) {
    s->input_sha256[0] = 0;
    return kiln_error_new("cannot read '%s': %s", path, strerror(errno));
  }
  const char *slash = strrchr(path, '/');
  free(s->input_name);
  s->input_name = ks_strdup(slash ? slash + 1 : path);
  return s->input_name ? NULL : kiln_error_new("out of memory");
}

/* IS_DIM: --dim or --sequence-length (IS_SEQ), one size; else
 * --static-shape, a list of sizes. */
static kiln_error *add_shape(kiln_session *s, const char *spec, bool is_dim, bool is_seq) {
  const char *opt = is_seq ? "--sequence-length" : is_dim ? "--dim" : "--static-shape";
  const char *eq = strrchr(spec, '=');
  if (!eq || eq == spec)
    return kiln_error_new("%s=%s: expected %s", opt, spec, is_dim ? "NAME=N" : "NAME=D0xD1x...");
  kiln_session_shape sh;
  memset(&sh, 0, sizeof sh);
  sh.is_dim = is_dim && !is_seq;
  sh.is_seq = is_seq;
  const char *p = eq + 1;
  while (*p) {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || v > (1ll << 31) || sh.rank == 16)
      return kiln_error_new("%s=%s: '%s' is not a %s (0..2^31%s)", opt, spec, p, is_dim ? "size" : "list of sizes",
                            is_dim ? "" : ", at most 16, joined by 'x'");
    sh.dims[sh.rank++] = v;
    p = end;
    if (*p == 'x' && !is_dim && p[1]) p++;
    else if (*p) return kiln_error_new("%s=%s: unexpected '%s'", opt, spec, p);
  }
  if (is_dim && sh.rank != 1) return kiln_error_new("%s=%s: expected NAME=N", opt, spec);
  size_t nl = (size_t)(eq - spec);
  for (uint32_t i = 0; i < s->shape_count; i++)
    if (s->shapes[i].is_dim == sh.is_dim && s->shapes[i].is_seq == is_seq && strlen(s->shapes[i].name) == nl && !strncmp(s->shapes[i].name, spec, nl))
      return kiln_error_new("%s: '%.*s' is bound twice", opt, (int)nl, spec);
  kiln_session_shape *n = realloc(s->shapes, (s->shape_count + 1) * sizeof *n);
  if (!n) return kiln_error_new("out of memory");
  s->shapes = n;
  sh.name = malloc(nl + 1);
  if (!sh.name) return kiln_error_new("out of memory");
  memcpy(sh.name, spec, nl);
  sh.name[nl] = 0;
  s->shapes[s->shape_count++] = sh;
  return NULL;
}

kiln_error *kiln_session_add_dim(kiln_session *s, const char *spec) { return add_shape(s, spec, true, false); }

kiln_error *kiln_session_add_static_shape(kiln_session *s, const char *spec) {
  return add_shape(s, spec, false, false);
}

kiln_error *kiln_session_add_sequence_length(kiln_session *s, const char *spec) {
  return add_shape(s, spec, true, true);
}

kiln_error *kiln_session_add_rodata(kiln_session *s, const char *name,
                                    const void *data, uint64_t size,
                                    uint32_t alignment, bool copy,
                                    uint32_t *index) {
  if (!name || !*name) return kiln_error_new("rodata entry without a name");
  if (!alignment || alignment > 64 || (alignment & (alignment - 1)))
    return kiln_error_new("rodata '%s': alignment %u is not a power of two <= 64", name, alignment);
  if (size && !data) return kiln_error_new("rodata '%s': no data", name);
  if (!ks_grow((void **)&s->rodata, s->rodata_count, &s->rodata_cap, sizeof *s->rodata))
    return kiln_error_new("out of memory");
  kiln_session_rodata_t *r = &s->rodata[s->rodata_count];
  memset(r, 0, sizeof *r);
  r->name = ks_strdup(name);
  r->size = size;
  r->alignment = alignment;
  r->data = data;
  if (copy) {
    void *d = malloc(size ? size : 1);
    if (!d || !r->name) {
      free(d);
      free((void *)r->name);
      return kiln_error_new("out of memory copying rodata '%s'", name);
    }
    if (size) memcpy(d, data, size);
    r->data = d;
    r->owned = true;
  } else if (!r->name) {
    return kiln_error_new("out of memory");
  }
  *index = s->rodata_count++;
  return NULL;
}

kiln_error *kiln_session_set_payload(kiln_session *s, const char *executable,
                                     const char *variant,
                                     kiln_payload_format_t format,
                                     const char *arch, const char *features,
                                     const void *data, uint64_t size) {
  if (!executable || !*executable) return kiln_error_new("payload without an executable name");
  if (!variant) variant = "";
  kiln_session_payload_t *p = NULL;
  for (uint32_t i = 0; i < s->payload_count; i++)
    if (strcmp(s->payloads[i].executable, executable) == 0 &&
        strcmp(s->payloads[i].variant, variant) == 0)
      p = &s->payloads[i];
  if (!p) {
    if (!ks_grow((void **)&s->payloads, s->payload_count, &s->payload_cap, sizeof *s->payloads))
      return kiln_error_new("out of memory");
    p = &s->payloads[s->payload_count++];
    memset(p, 0, sizeof *p);
  } else {
    free(p->executable);
    free(p->variant);
    free(p->arch);
    free(p->features);
    free(p->data);
    memset(p, 0, sizeof *p);
  }
  p->executable = ks_strdup(executable);
  p->variant = ks_strdup(variant);
  p->arch = ks_strdup(arch);
  p->features = ks_strdup(features);
  p->format = format;
  p->data = malloc(size ? size : 1);
  p->size = size;
  if (!p->executable || !p->variant || !p->data || (arch && !p->arch) ||
      (features && !p->features))
    return kiln_error_new("out of memory storing the payload of '%s'", executable);
  if (size) memcpy(p->data, data, size);
  return NULL;
}

const kiln_session_payload_t *kiln_session_payload(const kiln_session *s,
                                                   const char *executable,
                                                   const char *variant) {
  const kiln_session_payload_t *any = NULL;
  for (uint32_t i = 0; i < s->payload_count; i++) {
    const kiln_session_payload_t *p = &s->payloads[i];
    if (strcmp(p->executable, executable) != 0) continue;
    if (variant && strcmp(p->variant, variant) == 0) return p;
    if (!p->variant[0]) any = p;
  }
  return any;
}

/* The context holds the association (kiln_context_set_user), so any
 * number of sessions may live in one process. */
void kiln_session_attach(kiln_session *s, kiln_context *ctx) {
  if (!ctx) return;
  kiln_session *old = kiln_context_user(ctx);
  if (old) old->ctx = NULL;
  kiln_context_set_user(ctx, s);
  if (s) s->ctx = ctx;
}

kiln_session *kiln_session_of(const kiln_context *ctx) {
  return ctx ? kiln_context_user(ctx) : NULL;
}

kiln_error *kiln_session_variant_of(kiln_op *inner, const char *pass, kiln_session_variant *out) {
  memset(out, 0, sizeof *out);
  out->session = kiln_session_of(kiln_op_context(inner));
  if (!out->session) return kiln_error_new("%s needs a compile session", pass);
  out->variant = kiln_op_parent_op(inner);
  out->executable = out->variant ? kiln_op_parent_op(out->variant) : NULL;
  if (!out->variant || out->variant->kind != KILN_OP_HAL_EXECUTABLE_VARIANT || !out->executable)
    return kiln_error_new("%s runs on the inner module of a hal.executable.variant", pass);
  out->executable_name = kiln_symbol_name(out->executable);
  out->variant_name = kiln_symbol_name(out->variant);
  const kiln_attr *t = kiln_op_get_attr(out->variant, "target");
  if (!t || t->kind != KILN_ATTR_STRING || !out->executable_name || !out->variant_name)
    return kiln_error_new("%s: the variant has no target or no name", pass);
  out->target = t->str;
  out->has_payload = kiln_session_payload(out->session, out->executable_name, out->variant_name) != NULL;
  return NULL;
}

char *kiln_session_static_entry_symbol(const char *name, const char *export_name) {
  static const char hex[] = "0123456789abcdef";
  const size_t n = strlen(name), m = strlen(export_name);
  char *out = malloc(n + 3 * m + 8);
  if (!out) return NULL;
  size_t k = (size_t)sprintf(out, "%s_k_", name);
  for (const unsigned char *p = (const unsigned char *)export_name; *p; p++) {
    const unsigned char c = *p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
      out[k++] = (char)c;
    } else if (c == '_') {
      out[k++] = '_';
      out[k++] = '_';
    } else {
      out[k++] = '_';
      out[k++] = hex[c >> 4];
      out[k++] = hex[c & 15];
    }
  }
  out[k] = 0;
  return out;
}
