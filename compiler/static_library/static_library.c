/* The static-library output stage: checks the request (NAME a C
 * identifier, one llvm-cpu target), plans the host functions, refuses
 * symbol collisions (a function name that sanitizes to another's, or to
 * one of the library's own symbols), builds the host object and writes
 * DIR/NAME.h and DIR/NAME.a: member "host.o", then one "kN.o" per
 * executable (the session's relocatable objects, in session order), each
 * indexed by the global symbols it defines. */
#include <stdlib.h>
#include <string.h>

#include "sl_internal.h"
#include "static_library.h"

static bool sl_is_identifier(const char *s) {
  if (!*s || (*s >= '0' && *s <= '9')) return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

kiln_error *kiln_static_library_check(const kiln_session *s) {
  const char *name = s->options.static_name;
  if (!name || !sl_is_identifier(name))
    return kiln_error_new("--output-format=static-library: the library name '%s' (the last part of "
                          "-o DIR/NAME, no extension) must be a C identifier: letters, digits and "
                          "'_', not starting with a digit",
                          name ? name : "");
  const char *const *targets;
  const uint32_t n = kiln_session_targets(s, &targets);
  if (n != 1)
    return kiln_error_new("--output-format=static-library: give exactly one --target (got %u)", n);
  if (strncmp(targets[0], "llvm-cpu", 8) != 0 || (targets[0][8] && targets[0][8] != ':'))
    return kiln_error_new("--output-format=static-library: target '%s' is not supported (only "
                          "llvm-cpu[:ARCH[+FEATURES]]: the library is native CPU code)",
                          targets[0]);
  return NULL;
}

/* A growable list of owned strings. */
typedef struct sl_names {
  char **v;
  uint32_t n, cap;
} sl_names;

static kiln_error *sl_push(sl_names *l, char *s) {
  if (!s) return kiln_error_new("out of memory");
  if (l->n + 1 >= l->cap) {
    const uint32_t cap = l->cap ? l->cap * 2 : 32;
    char **v = realloc(l->v, cap * sizeof *v);
    if (!v) {
      free(s);
      return kiln_error_new("out of memory");
    }
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = s;
  l->v[l->n] = NULL;
  return NULL;
}

static void sl_names_free(sl_names *l) {
  for (uint32_t i = 0; i < l->n; i++) free(l->v[i]);
  free(l->v);
}

char *sl_cat(const char *a, const char *b, const char *c) {
  const size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s%s%s", a, b, c);
  return s;
}

/* Symbols of the host object, in the archive index. */
static kiln_error *sl_host_symbols(const sl_plan *p, sl_names *out) {
  kiln_error *err = sl_push(out, sl_cat(p->name, "_error_message", ""));
  if (!err) err = sl_push(out, sl_cat(p->name, "_set_parallel", ""));
  if (!err && p->weight_offsets) err = sl_push(out, sl_cat(p->name, "_set_weights", ""));
  for (uint32_t i = 0; i < p->function_count && !err; i++) {
    const sl_function *f = &p->functions[i];
    char *base = sl_cat(p->name, "_", f->c_name);
    if (!base) return kiln_error_new("out of memory");
    err = sl_push(out, sl_cat(base, "", ""));
    if (!err) err = sl_push(out, sl_cat(base, "_scratch_size", ""));
    if (!err) err = sl_push(out, sl_cat("_mlir_ciface_", base, ""));
    free(base);
  }
  return err;
}

/* The entry symbols of executable EXE's exports in the target's variant. */
static kiln_error *sl_kernel_symbols(kiln_op *module, const sl_plan *p, const char *exe, sl_names *out) {
  for (kiln_op *op = kiln_module_body(module)->first; op; op = op->next) {
    const char *n = kiln_symbol_name(op);
    if (strcmp(op->name, "hal.executable") || !n || strcmp(n, exe) || !op->num_regions) continue;
    for (kiln_op *v = op->regions[0].first ? op->regions[0].first->first : NULL; v; v = v->next) {
      const kiln_attr *t = kiln_op_get_attr(v, "target");
      if (strcmp(v->name, "hal.executable.variant") || !t || t->kind != KILN_ATTR_STRING ||
          strcmp(t->str, p->target) || !v->num_regions || !v->regions[0].first)
        continue;
      for (kiln_op *e = v->regions[0].first->first; e; e = e->next) {
        if (strcmp(e->name, "hal.executable.export")) continue;
        kiln_error *err = sl_push(out, kiln_session_static_entry_symbol(p->name, kiln_symbol_name(e)));
        if (err) return err;
      }
    }
  }
  return NULL;
}

static kiln_error *sl_unique(const sl_plan *p, const sl_names *all) {
  for (uint32_t i = 0; i < all->n; i++)
    for (uint32_t j = i + 1; j < all->n; j++)
      if (strcmp(all->v[i], all->v[j]) == 0) {
        for (uint32_t k = 0; k < p->function_count; k++)
          for (uint32_t m = k + 1; m < p->function_count; m++)
            if (strcmp(p->functions[k].c_name, p->functions[m].c_name) == 0)
              return kiln_error_new("static library: functions @%s and @%s both become C name '%s_%s'; "
                                    "rename one",
                                    p->functions[k].symbol, p->functions[m].symbol, p->name,
                                    p->functions[k].c_name);
        return kiln_error_new("static library: the symbol '%s' would be defined twice (a function name "
                              "collides with one of the library's own symbols); rename the function",
                              all->v[i]);
      }
  return NULL;
}

static kiln_error *sl_write(const char *path, const char *suffix, kiln_error *(*fn)(const void *, FILE *),
                            const void *arg) {
  char *file = sl_cat(path, suffix, "");
  if (!file) return kiln_error_new("out of memory");
  FILE *f = fopen(file, "wb");
  kiln_error *err = f ? fn(arg, f) : kiln_error_new("cannot open '%s' for writing", file);
  if (f && fclose(f) != 0 && !err) err = kiln_error_new("writing '%s' failed", file);
  if (err && f) remove(file);
  free(file);
  return err;
}

static kiln_error *sl_write_header(const void *p, FILE *f) { return sl_header_write(p, f); }

/* DIR/NAME.weights: the blobs at their offsets, zero-padded to 64 bytes. */
static kiln_error *sl_write_weights(const void *arg, FILE *f) {
  const sl_plan *p = arg;
  static const uint8_t zeros[64];
  for (uint32_t i = 0; i < p->rodata_count; i++) {
    const uint64_t size = p->rodata[i].size, pad = ((size + 63) & ~(uint64_t)63) - size;
    if (size) fwrite(p->rodata[i].data, 1, (size_t)size, f);
    if (pad) fwrite(zeros, 1, (size_t)pad, f);
  }
  return ferror(f) ? kiln_error_new("writing the weights failed") : NULL;
}

typedef struct sl_archive_arg {
  const sl_member *members;
  uint32_t count;
} sl_archive_arg;

static kiln_error *sl_write_archive(const void *a, FILE *f) {
  const sl_archive_arg *x = a;
  return sl_archive_write(x->members, x->count, f);
}

kiln_error *kiln_static_library_write(kiln_op *module, kiln_session *s) {
  kiln_error *err = kiln_static_library_check(s);
  if (err) return err;
  const char *const *targets;
  kiln_session_targets(s, &targets);
  sl_plan p;
  err = sl_plan_build(module, s, s->options.static_name, targets[0], &p);
  /* Every symbol the archive defines: the host's, then each kernel
   * object's (sym_start[i] = first symbol of member i). */
  sl_names all = {0};
  uint32_t objects = 0;
  for (uint32_t i = 0; i < s->payload_count; i++)
    if (s->payloads[i].format == KILN_PAYLOAD_OBJECT) objects++;
  uint32_t *start = calloc(objects + 2, sizeof *start);
  sl_member *members = calloc(objects + 1, sizeof *members);
  if (!err && (!start || !members)) err = kiln_error_new("out of memory");
  if (!err) err = sl_host_symbols(&p, &all);
  uint32_t m = 0;
  for (uint32_t i = 0; i < s->payload_count && !err; i++) {
    const kiln_session_payload_t *pl = &s->payloads[i];
    if (pl->format != KILN_PAYLOAD_OBJECT) continue;
    start[++m] = all.n;
    err = sl_push(&all, sl_cat("", "", "")); /* the member's separator */
    if (!err) err = sl_kernel_symbols(module, &p, pl->executable, &all);
    snprintf(members[m].name, sizeof members[m].name, "k%u.o", m - 1);
    members[m].data = pl->data;
    members[m].size = (size_t)pl->size;
  }
  /* The separators are empty strings: drop them from the uniqueness check
   * by comparing non-empty names only. */
  sl_names named = {0};
  for (uint32_t i = 0; i < all.n && !err; i++)
    if (*all.v[i]) err = sl_push(&named, sl_cat(all.v[i], "", ""));
  if (!err) err = sl_unique(&p, &named);
  sl_names_free(&named);
  uint8_t *host = NULL;
  size_t host_size = 0;
  if (!err) err = sl_host_object(&p, &host, &host_size);
  if (!err) {
    /* Each member's symbol list is a NULL-terminated slice of `all`: the
     * separators become the terminators. */
    for (uint32_t k = 1; k <= m; k++) {
      free(all.v[start[k]]);
      all.v[start[k]] = NULL;
    }
    memcpy(members[0].name, "host.o", 7);
    members[0].data = host;
    members[0].size = host_size;
    members[0].symbols = (const char *const *)all.v;
    for (uint32_t k = 1; k <= m; k++) members[k].symbols = (const char *const *)&all.v[start[k] + 1];
    sl_archive_arg a = {members, m + 1};
    err = sl_write(s->options.output_path, ".h", sl_write_header, &p);
    if (!err) err = sl_write(s->options.output_path, ".a", sl_write_archive, &a);
    if (!err && p.weight_offsets) err = sl_write(s->options.output_path, ".weights", sl_write_weights, &p);
  }
  free(host);
  sl_names_free(&all);
  free(start);
  free(members);
  sl_plan_free(&p);
  return err;
}
