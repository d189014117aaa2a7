/* The module builder: collects copies of every entry, then writes the
 * FlatBuffer (through fb_builder.c, with field setters generated from
 * module_schema.def) and the segments after it.
 *
 * Variants with byte-identical payloads share one segment.
 *
 * Layout is computed in two passes: the FlatBuffer's size does not depend
 * on segment offset values (they are fixed-width and never zero), so pass 1
 * writes placeholders to learn the size, segments are placed after it, and
 * pass 2 writes the real offsets; the two sizes must agree. The result is
 * checked with the reader's own verifier before it is handed out, so the
 * builder never emits a module the runtime would refuse. */
#define _POSIX_C_SOURCE 200809L /* open, write, fstat */
#include "kiln/module_builder.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/fb_builder.h"
#include "kiln/module_zstd.h"

/* ---- Typed setters generated from the schema: kmb_T_F(fbb, value). ---- */

#define KMB_FN_ static inline __attribute__((unused)) void
#define KFB_SCALAR(t, f, slot, st, def)                                 \
  KMB_FN_ kmb_##t##_##f(kiln_fbb_t *b, KFB_CTYPE_##st v) {              \
    kiln_fbb_add_scalar(b, slot, &v, KFB_SIZE_##st, v == (KFB_CTYPE_##st)def); \
  }
#define KFB_ENUM_FIELD(t, f, slot, st, e, def)                           \
  KMB_FN_ kmb_##t##_##f(kiln_fbb_t *b, kiln_fb_##e##_t x) {              \
    KFB_CTYPE_##st v = (KFB_CTYPE_##st)x;                                \
    kiln_fbb_add_scalar(b, slot, &v, KFB_SIZE_##st, v == def);           \
  }
#define KFB_STRUCT_REF(t, f, slot, s)                                    \
  KMB_FN_ kmb_##t##_##f(kiln_fbb_t *b, const kiln_fb_##s##_t *v) {       \
    kiln_fbb_add_struct(b, slot, v, KILN_FB_##s##_SIZE,                  \
                        _Alignof(kiln_fb_##s##_t));                      \
  }
#define KMB_REF_(t, f, slot) \
  KMB_FN_ kmb_##t##_##f(kiln_fbb_t *b, kiln_fbb_ref_t r) { kiln_fbb_add_ref(b, slot, r); }
#define KFB_STRING(t, f, slot) KMB_REF_(t, f, slot)
#define KFB_TABLE_REF(t, f, slot, sub) KMB_REF_(t, f, slot)
#define KFB_VEC_SCALAR(t, f, slot, st) KMB_REF_(t, f, slot)
#define KFB_VEC_STRUCT(t, f, slot, s) KMB_REF_(t, f, slot)
#define KFB_VEC_STRING(t, f, slot) KMB_REF_(t, f, slot)
#define KFB_VEC_TABLE(t, f, slot, sub) KMB_REF_(t, f, slot)
#include "kiln/module_schema.def"
#undef KMB_REF_

/* ---- The collected entries. ---- */

typedef struct kmb_tensor {
  uint8_t element_type;
  uint32_t rank;
  int64_t *dims;
  bool sequence, unranked;
} kmb_tensor;

typedef struct kmb_sites {
  uint32_t pc, count;
  char **names, **kinds;
} kmb_sites;

typedef struct kmb_function {
  char *name, *vm_signature;
  bool exported;
  uint32_t input_count, output_count;
  kmb_tensor *inputs, *outputs;
  uint32_t code_offset, code_size, i32_regs, ref_regs;
  uint32_t location_count;
  kiln_fb_SourceLocation_t *locations;
  uint32_t site_count;
  kmb_sites *sites;
} kmb_function;

typedef struct kmb_import {
  char *name, *signature;
} kmb_import;

typedef struct kmb_rodata {
  char *name;
  uint32_t alignment, segment;
} kmb_rodata;

typedef struct kmb_export {
  char *name;
  kiln_fb_Dim3_t workgroup_size;
  uint32_t binding_count, push_constant_count;
  bool *read_only;
} kmb_export;

typedef struct kmb_variant {
  char *name, *target, *arch, *cpu_features, *llvm_version;
  uint32_t sm_version, segment;
  uint8_t format;
  uint32_t export_count; /* 0 or the executable's export count */
  kiln_module_variant_export_desc_t *exports;
} kmb_variant;

typedef struct kmb_executable {
  char *name;
  uint32_t export_count, variant_count;
  kmb_export *exports;
  kmb_variant *variants;
} kmb_executable;

typedef struct kmb_segment {
  uint8_t kind;
  uint8_t format;      /* executables: kiln_fb_PayloadFormat_t */
  bool borrowed;       /* data belongs to the caller */
  const uint8_t *data; /* the original bytes */
  uint64_t size, hash;
  /* Decided by finish: */
  uint8_t compression;
  bool decided;         /* stored form chosen for decided_mode */
  uint8_t decided_mode; /* a kiln_module_compression_t */
  uint8_t *packed;      /* zstd bytes when compressed */
  uint64_t stored_size, offset;
} kmb_segment;

typedef struct kmb_bundled_tensor {
  char *name;
  kmb_tensor type;
  uint8_t *data;
  uint64_t size;
} kmb_bundled_tensor;

typedef struct kmb_bundled_case {
  char *function;
  uint32_t input_count, output_count;
  kmb_bundled_tensor *inputs, *outputs;
} kmb_bundled_case;

#define KMB_ARRAY_(T, name) \
  T *name;                  \
  uint32_t name##_count, name##_cap

struct kiln_module_builder {
  char *name, *compiler_version;
  char *source_revision, *input_name, *input_sha256;
  char **flags;
  uint32_t flag_count, bytecode_version;
  kiln_module_compression_t compression;
  KMB_ARRAY_(char *, files);
  KMB_ARRAY_(kmb_function, functions);
  KMB_ARRAY_(kmb_import, imports);
  KMB_ARRAY_(kmb_rodata, rodata);
  KMB_ARRAY_(kmb_executable, executables);
  KMB_ARRAY_(kmb_segment, segments);
  KMB_ARRAY_(kmb_bundled_case, cases);
  uint8_t *code;
  uint32_t code_size, code_cap;
  char error[256]; /* first error, sticky */
};

__attribute__((format(printf, 2, 3))) static void kmb_error(
    kiln_module_builder_t *b, const char *fmt, ...) {
  if (b->error[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->error, sizeof b->error, fmt, ap);
  va_end(ap);
}

/* Makes room for one more element; false (error recorded) when out of
 * memory or past 2^32 - 1 entries. */
static bool kmb_grow(kiln_module_builder_t *b, void **arr, uint32_t count,
                     uint32_t *cap, size_t elem) {
  if (count < *cap) return true;
  if (count == UINT32_MAX) {
    kmb_error(b, "too many entries");
    return false;
  }
  uint32_t ncap = *cap ? (*cap > UINT32_MAX / 2 ? UINT32_MAX : *cap * 2) : 8;
  void *n = realloc(*arr, (size_t)ncap * elem);
  if (!n) {
    kmb_error(b, "out of memory");
    return false;
  }
  *arr = n;
  *cap = ncap;
  return true;
}
#define KMB_PUSH_(b, field) \
  kmb_grow(b, (void **)&(b)->field, (b)->field##_count, &(b)->field##_cap, \
           sizeof *(b)->field)

static void *kmb_dup(kiln_module_builder_t *b, const void *p, size_t n) {
  void *r = malloc(n ? n : 1);
  if (!r) {
    kmb_error(b, "out of memory");
    return NULL;
  }
  if (n) memcpy(r, p, n);
  return r;
}

static char *kmb_strdup(kiln_module_builder_t *b, const char *s) {
  return s ? kmb_dup(b, s, strlen(s) + 1) : NULL;
}

kiln_module_builder_t *kiln_module_builder_create(void) {
  kiln_module_builder_t *b = calloc(1, sizeof *b);
  return b;
}

static void kmb_free_tensors(kmb_tensor *t, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) free(t[i].dims);
  free(t);
}

void kiln_module_builder_destroy(kiln_module_builder_t *b) {
  if (!b) return;
  free(b->name);
  free(b->compiler_version);
  free(b->source_revision);
  free(b->input_name);
  free(b->input_sha256);
  for (uint32_t i = 0; i < b->flag_count; i++) free(b->flags[i]);
  free(b->flags);
  for (uint32_t i = 0; i < b->files_count; i++) free(b->files[i]);
  free(b->files);
  for (uint32_t i = 0; i < b->functions_count; i++) {
    kmb_function *f = &b->functions[i];
    free(f->name);
    free(f->vm_signature);
    kmb_free_tensors(f->inputs, f->input_count);
    kmb_free_tensors(f->outputs, f->output_count);
    free(f->locations);
    for (uint32_t s = 0; s < f->site_count; s++) {
      for (uint32_t k = 0; k < f->sites[s].count; k++) {
        free(f->sites[s].names[k]);
        free(f->sites[s].kinds[k]);
      }
      free(f->sites[s].names);
      free(f->sites[s].kinds);
    }
    free(f->sites);
  }
  free(b->functions);
  for (uint32_t i = 0; i < b->imports_count; i++) {
    free(b->imports[i].name);
    free(b->imports[i].signature);
  }
  free(b->imports);
  for (uint32_t i = 0; i < b->rodata_count; i++) free(b->rodata[i].name);
  free(b->rodata);
  for (uint32_t i = 0; i < b->executables_count; i++) {
    kmb_executable *e = &b->executables[i];
    for (uint32_t x = 0; x < e->export_count; x++) {
      free(e->exports[x].name);
      free(e->exports[x].read_only);
    }
    for (uint32_t v = 0; v < e->variant_count; v++) {
      kmb_variant *var = &e->variants[v];
      free(var->name);
      free(var->target);
      free(var->arch);
      free(var->cpu_features);
      free(var->llvm_version);
      free(var->exports);
    }
    free(e->name);
    free(e->exports);
    free(e->variants);
  }
  free(b->executables);
  for (uint32_t i = 0; i < b->segments_count; i++) {
    if (!b->segments[i].borrowed) free((void *)b->segments[i].data);
    free(b->segments[i].packed);
  }
  free(b->segments);
  for (uint32_t i = 0; i < b->cases_count; i++) {
    kmb_bundled_case *c = &b->cases[i];
    for (uint32_t k = 0; k < c->input_count + c->output_count; k++) {
      kmb_bundled_tensor *t =
          k < c->input_count ? &c->inputs[k] : &c->outputs[k - c->input_count];
      free(t->name);
      free(t->type.dims);
      free(t->data);
    }
    free(c->function);
    free(c->inputs);
    free(c->outputs);
  }
  free(b->cases);
  free(b->code);
  free(b);
}

void kiln_module_builder_set_name(kiln_module_builder_t *b, const char *name) {
  free(b->name);
  b->name = kmb_strdup(b, name);
}

void kiln_module_builder_set_producer(kiln_module_builder_t *b,
                                      const char *compiler_version,
                                      uint32_t flag_count,
                                      const char *const *flags) {
  free(b->compiler_version);
  b->compiler_version = kmb_strdup(b, compiler_version);
  for (uint32_t i = 0; i < b->flag_count; i++) free(b->flags[i]);
  free(b->flags);
  b->flags = calloc(flag_count ? flag_count : 1, sizeof *b->flags);
  b->flag_count = 0;
  if (!b->flags) {
    kmb_error(b, "out of memory");
    return;
  }
  for (uint32_t i = 0; i < flag_count; i++)
    b->flags[b->flag_count++] = kmb_strdup(b, flags[i] ? flags[i] : "");
}

void kiln_module_builder_set_provenance(kiln_module_builder_t *b,
                                        const char *source_revision,
                                        const char *input_name,
                                        const char *input_sha256) {
  char **fields[] = {&b->source_revision, &b->input_name, &b->input_sha256};
  const char *values[] = {source_revision, input_name, input_sha256};
  for (int i = 0; i < 3; i++) {
    free(*fields[i]);
    *fields[i] = values[i] && values[i][0] ? kmb_strdup(b, values[i]) : NULL;
  }
}

void kiln_module_builder_set_bytecode_version(kiln_module_builder_t *b,
                                              uint32_t version) {
  b->bytecode_version = version;
}

void kiln_module_builder_set_compression(kiln_module_builder_t *b,
                                         kiln_module_compression_t mode) {
  b->compression = mode;
}

uint32_t kiln_module_builder_add_source_file(kiln_module_builder_t *b,
                                             const char *path) {
  if (!KMB_PUSH_(b, files)) return 0;
  b->files[b->files_count] = kmb_strdup(b, path ? path : "");
  return b->files_count++;
}

static bool kmb_name_ok(kiln_module_builder_t *b, const char *name,
                        const char *what, uint32_t index) {
  if (name && name[0]) return true;
  kmb_error(b, "%s %" PRIu32 ": missing or empty name", what, index);
  return false;
}

uint32_t kiln_module_builder_add_import(kiln_module_builder_t *b,
                                        const char *name,
                                        const char *signature) {
  uint32_t index = b->imports_count;
  if (!kmb_name_ok(b, name, "import", index) || !KMB_PUSH_(b, imports))
    return index;
  b->imports[index].name = kmb_strdup(b, name);
  b->imports[index].signature = kmb_strdup(b, signature ? signature : "");
  b->imports_count++;
  return index;
}

static bool kmb_copy_tensors(kiln_module_builder_t *b, const char *fname,
                             const kiln_module_tensor_type_t *src, uint32_t n,
                             kmb_tensor **out) {
  *out = calloc(n ? n : 1, sizeof **out);
  if (!*out) {
    kmb_error(b, "out of memory");
    return false;
  }
  for (uint32_t i = 0; i < n; i++) {
    const kiln_module_tensor_type_t *t = &src[i];
    if (kiln_module_element_type_name(t->element_type)[0] == '?') {
      kmb_error(b, "function %s: invalid element type %d", fname,
                (int)t->element_type);
      return false;
    }
    if (t->unranked && (!t->sequence || t->rank)) {
      kmb_error(b, "function %s: only a sequence's elements may be unranked (no dims)", fname);
      return false;
    }
    for (uint32_t d = 0; d < t->rank; d++)
      if (t->dims[d] < -1) {
        kmb_error(b, "function %s: dim %" PRId64 " is neither a size nor -1",
                  fname, t->dims[d]);
        return false;
      }
    (*out)[i].element_type = (uint8_t)t->element_type;
    (*out)[i].rank = t->rank;
    (*out)[i].sequence = t->sequence;
    (*out)[i].unranked = t->unranked;
    (*out)[i].dims = kmb_dup(b, t->dims, (size_t)t->rank * sizeof(int64_t));
    if (!(*out)[i].dims) return false;
  }
  return true;
}

/* Copies d's source nodes into f (strings owned by the builder). */
static void kmb_copy_sites(kiln_module_builder_t *b, const kiln_module_function_desc_t *d,
                           kmb_function *f) {
  if (!d->source_nodes_count) return;
  f->sites = calloc(d->source_nodes_count, sizeof *f->sites);
  if (!f->sites) {
    kmb_error(b, "out of memory");
    return;
  }
  for (uint32_t s = 0; s < d->source_nodes_count; s++) {
    const kiln_module_source_nodes_desc_t *in = &d->source_nodes[s];
    kmb_sites *o = &f->sites[f->site_count++];
    o->pc = in->pc;
    o->names = calloc(in->count ? in->count : 1, sizeof *o->names);
    o->kinds = calloc(in->count ? in->count : 1, sizeof *o->kinds);
    if (!o->names || !o->kinds) {
      kmb_error(b, "out of memory");
      return;
    }
    for (uint32_t k = 0; k < in->count; k++, o->count++) {
      o->names[k] = kmb_strdup(b, in->names[k] ? in->names[k] : "");
      o->kinds[k] = kmb_strdup(b, in->kinds[k] ? in->kinds[k] : "");
    }
  }
}

uint32_t kiln_module_builder_add_function(kiln_module_builder_t *b,
                                          const kiln_module_function_desc_t *d) {
  uint32_t index = b->functions_count;
  if (!kmb_name_ok(b, d->name, "function", index) || !KMB_PUSH_(b, functions))
    return index;
  /* Each function's code starts 8-byte aligned inside the blob. */
  uint32_t start = (b->code_size + 7u) & ~7u;
  if (start < b->code_size || d->bytecode_size > UINT32_MAX - start) {
    kmb_error(b, "function %s: bytecode exceeds 4 GB", d->name);
    return index;
  }
  uint32_t end = start + d->bytecode_size;
  if (end > b->code_cap) {
    uint32_t cap = b->code_cap ? b->code_cap : 256;
    while (cap < end) cap = cap > UINT32_MAX / 2 ? UINT32_MAX : cap * 2;
    uint8_t *n = realloc(b->code, cap);
    if (!n) {
      kmb_error(b, "out of memory");
      return index;
    }
    b->code = n;
    b->code_cap = cap;
  }
  memset(b->code + b->code_size, 0, start - b->code_size);
  if (d->bytecode_size) memcpy(b->code + start, d->bytecode, d->bytecode_size);
  b->code_size = end;
  for (uint32_t s = 0; s < d->source_nodes_count; s++)
    if (d->source_nodes[s].pc >= d->bytecode_size ||
        (s && d->source_nodes[s].pc <= d->source_nodes[s - 1].pc)) {
      kmb_error(b, "function %s: source nodes %" PRIu32 " have pc %" PRIu32
                " outside its %" PRIu32 "-byte bytecode or out of order",
                d->name, s, d->source_nodes[s].pc, d->bytecode_size);
      return index;
    }
  for (uint32_t l = 0; l < d->location_count; l++)
    if (d->locations[l].pc >= d->bytecode_size ||
        (l && d->locations[l].pc < d->locations[l - 1].pc)) {
      kmb_error(b, "function %s: location %" PRIu32 " has pc %" PRIu32
                " outside its %" PRIu32 "-byte bytecode or out of order",
                d->name, l, d->locations[l].pc, d->bytecode_size);
      return index;
    }
  kmb_function *f = &b->functions[index];
  memset(f, 0, sizeof *f);
  b->functions_count++; /* from here on destroy() frees what is set */
  f->name = kmb_strdup(b, d->name);
  f->vm_signature = kmb_strdup(b, d->vm_signature);
  f->exported = d->exported;
  f->code_offset = start;
  f->code_size = d->bytecode_size;
  f->i32_regs = d->i32_register_count;
  f->ref_regs = d->ref_register_count;
  if (!kmb_copy_tensors(b, d->name, d->inputs, d->input_count, &f->inputs))
    return index;
  f->input_count = d->input_count;
  if (!kmb_copy_tensors(b, d->name, d->outputs, d->output_count, &f->outputs))
    return index;
  f->output_count = d->output_count;
  f->locations = kmb_dup(b, d->locations,
                         (size_t)d->location_count * sizeof *d->locations);
  if (f->locations) f->location_count = d->location_count;
  kmb_copy_sites(b, d, f);
  return index;
}

static uint32_t kmb_add_segment(kiln_module_builder_t *b, uint8_t kind,
                                const void *data, uint64_t size, bool borrow) {
  uint32_t index = b->segments_count;
  if ((size_t)size != size) {
    kmb_error(b, "segment of %" PRIu64 " bytes does not fit in memory", size);
    return index;
  }
  if (!KMB_PUSH_(b, segments)) return index;
  kmb_segment *s = &b->segments[index];
  memset(s, 0, sizeof *s);
  s->borrowed = borrow && data;
  s->data = s->borrowed ? data : kmb_dup(b, data, (size_t)size);
  if (!s->data) return index;
  s->kind = kind;
  s->size = size;
  s->hash = kiln_module_hash(data, size);
  b->segments_count++;
  return index;
}

/* The executable segment already holding v's payload byte for byte, or
 * segments_count: variants given one shared object (kiln-compile links all
 * of a target's kernels into one) share its segment, so a runtime maps
 * and checks it once. */
static uint32_t kmb_same_payload(const kiln_module_builder_t *b,
                                 const kiln_module_variant_desc_t *v) {
  const uint64_t hash = kiln_module_hash(v->payload, v->payload_size);
  for (uint32_t i = 0; i < b->segments_count; i++) {
    const kmb_segment *s = &b->segments[i];
    if (s->kind == kiln_fb_SegmentKind_Executable && s->format == v->format &&
        s->size == v->payload_size && s->hash == hash &&
        (!s->size || memcmp(s->data, v->payload, (size_t)s->size) == 0))
      return i;
  }
  return b->segments_count;
}

static uint32_t kmb_add_rodata(kiln_module_builder_t *b, const char *name,
                               const void *data, uint64_t size,
                               uint32_t alignment, bool borrow) {
  uint32_t index = b->rodata_count;
  if (!kmb_name_ok(b, name, "rodata", index)) return index;
  if (alignment == 0 || (alignment & (alignment - 1)) ||
      alignment > KILN_MODULE_SEGMENT_ALIGNMENT) {
    kmb_error(b, "rodata %s: alignment %" PRIu32 " is not a power of two up "
              "to %u", name, alignment, KILN_MODULE_SEGMENT_ALIGNMENT);
    return index;
  }
  if (!KMB_PUSH_(b, rodata)) return index;
  uint32_t segment =
      kmb_add_segment(b, kiln_fb_SegmentKind_Rodata, data, size, borrow);
  if (b->error[0]) return index;
  b->rodata[index].name = kmb_strdup(b, name);
  b->rodata[index].alignment = alignment;
  b->rodata[index].segment = segment;
  b->rodata_count++;
  return index;
}

uint32_t kiln_module_builder_add_rodata(kiln_module_builder_t *b,
                                        const char *name, const void *data,
                                        uint64_t size, uint32_t alignment) {
  return kmb_add_rodata(b, name, data, size, alignment, false);
}

uint32_t kiln_module_builder_add_rodata_borrowed(kiln_module_builder_t *b,
                                                 const char *name,
                                                 const void *data,
                                                 uint64_t size,
                                                 uint32_t alignment) {
  return kmb_add_rodata(b, name, data, size, alignment, true);
}

/* The launch metadata the reader's verifier will accept, with messages
 * naming the entry. */
static bool kmb_variant_exports_ok(kiln_module_builder_t *b,
                                   const kiln_module_executable_desc_t *d,
                                   const kiln_module_variant_desc_t *v) {
  if (!v->export_count) return true;
  if (v->export_count != d->export_count || !v->exports) {
    kmb_error(b, "executable %s variant %s: %" PRIu32 " export launch entries "
              "for %" PRIu32 " exports", d->name, v->name, v->export_count,
              d->export_count);
    return false;
  }
  for (uint32_t x = 0; x < v->export_count; x++) {
    const uint32_t *bs = v->exports[x].block_size;
    const uint64_t shared = (uint64_t)v->exports[x].static_shared_memory_bytes +
                            v->exports[x].dynamic_shared_memory_bytes;
    if (!bs[0] || !bs[1] || !bs[2] || bs[0] > KILN_MODULE_MAX_BLOCK_X ||
        bs[1] > KILN_MODULE_MAX_BLOCK_Y || bs[2] > KILN_MODULE_MAX_BLOCK_Z ||
        (uint64_t)bs[0] * bs[1] * bs[2] > KILN_MODULE_MAX_BLOCK_THREADS) {
      kmb_error(b, "executable %s variant %s export %s: block size %" PRIu32
                "x%" PRIu32 "x%" PRIu32 " is not a CUDA block (1 to %u "
                "threads; x, y <= %u, z <= %u)", d->name, v->name,
                d->exports[x].name, bs[0], bs[1], bs[2],
                KILN_MODULE_MAX_BLOCK_THREADS, KILN_MODULE_MAX_BLOCK_X,
                KILN_MODULE_MAX_BLOCK_Z);
      return false;
    }
    if (shared > KILN_MODULE_MAX_SHARED_MEMORY_BYTES) {
      kmb_error(b, "executable %s variant %s export %s: %" PRIu64 " bytes of "
                "shared memory exceed the %u-byte limit", d->name, v->name,
                d->exports[x].name, shared, KILN_MODULE_MAX_SHARED_MEMORY_BYTES);
      return false;
    }
  }
  return true;
}

uint32_t kiln_module_builder_add_executable(
    kiln_module_builder_t *b, const kiln_module_executable_desc_t *d) {
  uint32_t index = b->executables_count;
  if (!kmb_name_ok(b, d->name, "executable", index) ||
      !KMB_PUSH_(b, executables))
    return index;
  kmb_executable *e = &b->executables[index];
  memset(e, 0, sizeof *e);
  b->executables_count++;
  e->name = kmb_strdup(b, d->name);
  e->exports = calloc(d->export_count ? d->export_count : 1, sizeof *e->exports);
  e->variants =
      calloc(d->variant_count ? d->variant_count : 1, sizeof *e->variants);
  if (!e->exports || !e->variants) {
    kmb_error(b, "out of memory");
    return index;
  }
  for (uint32_t i = 0; i < d->export_count; i++) {
    const kiln_module_export_desc_t *x = &d->exports[i];
    kmb_export *o = &e->exports[e->export_count];
    if (!kmb_name_ok(b, x->name, "export", i)) return index;
    if (!x->workgroup_size[0] || !x->workgroup_size[1] || !x->workgroup_size[2]) {
      kmb_error(b, "executable %s export %s: workgroup size has a zero "
                "dimension", d->name, x->name);
      return index;
    }
    e->export_count++;
    o->name = kmb_strdup(b, x->name);
    o->workgroup_size.x = x->workgroup_size[0];
    o->workgroup_size.y = x->workgroup_size[1];
    o->workgroup_size.z = x->workgroup_size[2];
    o->push_constant_count = x->push_constant_count;
    o->read_only = calloc(x->binding_count ? x->binding_count : 1, sizeof(bool));
    if (!o->read_only) {
      kmb_error(b, "out of memory");
      return index;
    }
    o->binding_count = x->binding_count;
    for (uint32_t k = 0; x->binding_read_only && k < x->binding_count; k++)
      o->read_only[k] = x->binding_read_only[k];
  }
  for (uint32_t i = 0; i < d->variant_count; i++) {
    const kiln_module_variant_desc_t *v = &d->variants[i];
    if (!kmb_name_ok(b, v->name, "variant", i) ||
        !kmb_name_ok(b, v->target, "variant target", i))
      return index;
    if (v->format != kiln_fb_PayloadFormat_ELF &&
        v->format != kiln_fb_PayloadFormat_PTX) {
      kmb_error(b, "executable %s variant %s: invalid payload format %d",
                d->name, v->name, (int)v->format);
      return index;
    }
    if (!kmb_variant_exports_ok(b, d, v)) return index;
    uint32_t segment = kmb_same_payload(b, v);
    if (segment == b->segments_count)
      segment = kmb_add_segment(b, kiln_fb_SegmentKind_Executable, v->payload,
                                v->payload_size, false);
    if (b->error[0]) return index;
    b->segments[segment].format = (uint8_t)v->format;
    kmb_variant *o = &e->variants[e->variant_count++];
    o->name = kmb_strdup(b, v->name);
    o->target = kmb_strdup(b, v->target);
    o->arch = kmb_strdup(b, v->arch);
    o->cpu_features = kmb_strdup(b, v->cpu_features);
    o->llvm_version = kmb_strdup(b, v->llvm_version);
    o->sm_version = v->sm_version;
    o->format = (uint8_t)v->format;
    o->segment = segment;
    if (v->export_count) {
      o->exports = kmb_dup(b, v->exports, v->export_count * sizeof *v->exports);
      if (o->exports) o->export_count = v->export_count;
    }
  }
  return index;
}

/* Formats a tensor type as "1x3x?xf32" into buf. */
static const char *kmb_type_str(char *buf, size_t n, uint8_t et, uint32_t rank,
                                const int64_t *dims) {
  size_t at = 0;
  buf[0] = 0;
  for (uint32_t d = 0; d < rank && at < n; d++) {
    int w = dims[d] < 0 ? snprintf(buf + at, n - at, "?x")
                        : snprintf(buf + at, n - at, "%" PRId64 "x", dims[d]);
    if (w < 0) break;
    at += (size_t)w;
  }
  if (at < n)
    snprintf(buf + at, n - at, "%s",
             kiln_module_element_type_name((kiln_fb_ElementType_t)et));
  return buf;
}

/* Checks one bundled tensor against the function's type and copies it. */
static bool kmb_copy_bundled(kiln_module_builder_t *b, uint32_t ci,
                             const char *what, uint32_t k,
                             const kiln_module_bundled_tensor_desc_t *in,
                             const kmb_tensor *want, kmb_bundled_tensor *out) {
  const char *nm = in->name ? in->name : "";
  const kiln_module_tensor_type_t *t = &in->type;
  char got_s[96], want_s[96];
  bool match = t->element_type == want->element_type && t->rank == want->rank;
  uint64_t count = 1;
  for (uint32_t d = 0; d < t->rank; d++) {
    if (t->dims[d] < 0) {
      kmb_error(b, "bundled case %" PRIu32 ": %s %" PRIu32 " (%s) has a dynamic dim",
                ci, what, k, nm);
      return false;
    }
    if (match && want->dims[d] >= 0 && want->dims[d] != t->dims[d]) match = false;
    if (t->dims[d] && count > UINT64_MAX / (uint64_t)t->dims[d]) count = UINT64_MAX;
    else count *= (uint64_t)t->dims[d];
  }
  if (!match) {
    kmb_error(b, "bundled case %" PRIu32 ": %s %" PRIu32 " (%s) is tensor<%s>, the function wants tensor<%s>",
              ci, what, k, nm,
              kmb_type_str(got_s, sizeof got_s, (uint8_t)t->element_type, t->rank, t->dims),
              kmb_type_str(want_s, sizeof want_s, want->element_type, want->rank, want->dims));
    return false;
  }
  uint64_t es = kiln_module_element_type_size(t->element_type);
  if (es == 0) { /* str: kiln-run's bundled check compares numbers only */
    kmb_error(b, "bundled case %" PRIu32 ": %s %" PRIu32 " (%s): %s tensors cannot be bundled",
              ci, what, k, nm, kiln_module_element_type_name(t->element_type));
    return false;
  }
  if (count > UINT64_MAX / es || count * es != in->size) {
    kmb_error(b, "bundled case %" PRIu32 ": %s %" PRIu32 " (%s) holds %" PRIu64
              " bytes, its type needs %" PRIu64 " elements of %" PRIu64,
              ci, what, k, nm, in->size, count, es);
    return false;
  }
  if ((size_t)in->size != in->size || in->size > UINT32_MAX - 64) {
    kmb_error(b, "bundled case %" PRIu32 ": %s %" PRIu32 " (%s) exceeds 4 GB", ci, what, k, nm);
    return false;
  }
  out->name = kmb_strdup(b, nm);
  out->type.element_type = (uint8_t)t->element_type;
  out->type.dims = kmb_dup(b, t->dims, (size_t)t->rank * sizeof(int64_t));
  if (out->type.dims) out->type.rank = t->rank;
  out->data = kmb_dup(b, in->data, (size_t)in->size);
  if (out->data) out->size = in->size;
  return out->name && out->type.dims && out->data;
}

uint32_t kiln_module_builder_add_bundled_case(
    kiln_module_builder_t *b, const kiln_module_bundled_case_desc_t *c) {
  uint32_t index = b->cases_count;
  const kmb_function *fn = NULL;
  for (uint32_t i = 0; c->function && i < b->functions_count; i++)
    if (b->functions[i].exported && strcmp(b->functions[i].name, c->function) == 0)
      fn = &b->functions[i];
  if (!fn) {
    kmb_error(b, "bundled case %" PRIu32 ": no exported function '%s'", index,
              c->function ? c->function : "");
    return index;
  }
  if (c->input_count != fn->input_count || c->output_count != fn->output_count) {
    kmb_error(b, "bundled case %" PRIu32 ": %" PRIu32 " inputs and %" PRIu32
              " outputs given, function %s takes %" PRIu32 " and returns %" PRIu32,
              index, c->input_count, c->output_count, fn->name, fn->input_count,
              fn->output_count);
    return index;
  }
  if (!KMB_PUSH_(b, cases)) return index;
  kmb_bundled_case *o = &b->cases[index];
  memset(o, 0, sizeof *o);
  b->cases_count++; /* from here on destroy() frees what is set */
  o->function = kmb_strdup(b, fn->name);
  o->inputs = calloc(c->input_count ? c->input_count : 1, sizeof *o->inputs);
  o->outputs = calloc(c->output_count ? c->output_count : 1, sizeof *o->outputs);
  if (!o->inputs || !o->outputs) {
    kmb_error(b, "out of memory");
    return index;
  }
  for (uint32_t k = 0; k < c->input_count; k++) {
    o->input_count++;
    if (!kmb_copy_bundled(b, index, "input", k, &c->inputs[k], &fn->inputs[k], &o->inputs[k]))
      return index;
  }
  for (uint32_t k = 0; k < c->output_count; k++) {
    o->output_count++;
    if (!kmb_copy_bundled(b, index, "output", k, &c->outputs[k], &fn->outputs[k], &o->outputs[k]))
      return index;
  }
  return index;
}

/* ---- Writing. ---- */

static kiln_fbb_ref_t kmb_string(kiln_fbb_t *f, const char *s) {
  return s ? kiln_fbb_string(f, s, strlen(s)) : 0;
}

static kiln_fbb_ref_t kmb_tensors(kiln_fbb_t *f, const kmb_tensor *t,
                                  uint32_t n, kiln_fbb_ref_t *scratch) {
  for (uint32_t i = 0; i < n; i++) {
    kiln_fbb_ref_t dims =
        kiln_fbb_vector(f, t[i].dims, t[i].rank, sizeof(int64_t), 8);
    kiln_fbb_table_start(f);
    kmb_TensorType_dims(f, dims);
    kmb_TensorType_element_type(f, (kiln_fb_ElementType_t)t[i].element_type);
    kmb_TensorType_sequence(f, t[i].sequence);
    kmb_TensorType_unranked(f, t[i].unranked);
    scratch[i] = kiln_fbb_table_end(f);
  }
  return kiln_fbb_vector_refs(f, scratch, n);
}

/* Largest count of any vector of tables/strings, for one scratch array. */
static uint32_t kmb_max_refs(const kiln_module_builder_t *b) {
  uint32_t m = b->files_count;
#define KMB_MAX_(x) \
  if ((x) > m) m = (x)
  KMB_MAX_(b->flag_count);
  KMB_MAX_(b->functions_count);
  KMB_MAX_(b->imports_count);
  KMB_MAX_(b->rodata_count);
  KMB_MAX_(b->executables_count);
  KMB_MAX_(b->segments_count);
  KMB_MAX_(b->cases_count);
  for (uint32_t i = 0; i < b->cases_count; i++) {
    KMB_MAX_(b->cases[i].input_count);
    KMB_MAX_(b->cases[i].output_count);
  }
  for (uint32_t i = 0; i < b->functions_count; i++) {
    KMB_MAX_(b->functions[i].input_count);
    KMB_MAX_(b->functions[i].output_count);
    for (uint32_t s = 0; s < b->functions[i].site_count; s++)
      KMB_MAX_(b->functions[i].sites[s].count);
  }
  for (uint32_t i = 0; i < b->executables_count; i++) {
    const kmb_executable *e = &b->executables[i];
    KMB_MAX_(e->export_count);
    KMB_MAX_(e->variant_count);
    for (uint32_t x = 0; x < e->export_count; x++)
      KMB_MAX_(e->exports[x].binding_count);
  }
#undef KMB_MAX_
  return m;
}

/* Function.source_nodes: one SourceNodes table per site, scratch holding
 * the SourceNode refs of one site at a time (kmb_max_refs counts them). */
static kiln_fbb_ref_t kmb_sites_vector(kiln_fbb_t *f, const kmb_function *fn,
                                       kiln_fbb_ref_t *scratch) {
  if (!fn->site_count) return 0;
  kiln_fbb_ref_t *tables = calloc(fn->site_count, sizeof *tables);
  if (!tables) return 0;
  for (uint32_t s = 0; s < fn->site_count; s++) {
    const kmb_sites *site = &fn->sites[s];
    for (uint32_t k = 0; k < site->count; k++) {
      kiln_fbb_ref_t name = kmb_string(f, site->names[k]);
      kiln_fbb_ref_t kind = kmb_string(f, site->kinds[k]);
      kiln_fbb_table_start(f);
      kmb_SourceNode_name(f, name);
      kmb_SourceNode_kind(f, kind);
      scratch[k] = kiln_fbb_table_end(f);
    }
    kiln_fbb_ref_t nodes = kiln_fbb_vector_refs(f, scratch, site->count);
    kiln_fbb_table_start(f);
    kmb_SourceNodes_pc(f, site->pc);
    kmb_SourceNodes_nodes(f, nodes);
    tables[s] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t v = kiln_fbb_vector_refs(f, tables, fn->site_count);
  free(tables);
  return v;
}

static kiln_fbb_ref_t kmb_bundled_tensors(kiln_fbb_t *f, const kmb_bundled_tensor *t,
                                          uint32_t n, kiln_fbb_ref_t *scratch) {
  for (uint32_t i = 0; i < n; i++) {
    kiln_fbb_ref_t data = kiln_fbb_vector(f, t[i].data, (uint32_t)t[i].size, 1, 16);
    kiln_fbb_ref_t dims =
        kiln_fbb_vector(f, t[i].type.dims, t[i].type.rank, sizeof(int64_t), 8);
    kiln_fbb_ref_t name = kmb_string(f, t[i].name);
    kiln_fbb_table_start(f);
    kmb_BundledTensor_data(f, data);
    kmb_BundledTensor_dims(f, dims);
    kmb_BundledTensor_name(f, name);
    kmb_BundledTensor_element_type(f, (kiln_fb_ElementType_t)t[i].type.element_type);
    scratch[i] = kiln_fbb_table_end(f);
  }
  return kiln_fbb_vector_refs(f, scratch, n);
}

/* Module.bundled_cases, or 0 when there are none (older readers see the
 * same bytes as before for modules without check data). */
static kiln_fbb_ref_t kmb_cases_vector(kiln_module_builder_t *b, kiln_fbb_t *f,
                                       kiln_fbb_ref_t *scratch) {
  if (!b->cases_count) return 0;
  kiln_fbb_ref_t *tables = calloc(b->cases_count, sizeof *tables);
  if (!tables) {
    kmb_error(b, "out of memory");
    return 0;
  }
  for (uint32_t i = 0; i < b->cases_count; i++) {
    const kmb_bundled_case *c = &b->cases[i];
    kiln_fbb_ref_t outputs = kmb_bundled_tensors(f, c->outputs, c->output_count, scratch);
    kiln_fbb_ref_t inputs = kmb_bundled_tensors(f, c->inputs, c->input_count, scratch);
    kiln_fbb_ref_t fn = kmb_string(f, c->function);
    kiln_fbb_table_start(f);
    kmb_BundledCase_function(f, fn);
    kmb_BundledCase_inputs(f, inputs);
    kmb_BundledCase_outputs(f, outputs);
    tables[i] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t v = kiln_fbb_vector_refs(f, tables, b->cases_count);
  free(tables);
  return v;
}

/* Builds the FlatBuffer into f; segment offsets come from b->segments. */
static kiln_fbb_ref_t kmb_build(kiln_module_builder_t *b, kiln_fbb_t *f,
                                kiln_fbb_ref_t *scratch,
                                kiln_fbb_ref_t *outer) {
  /* Children before parents, in a fixed order so output is reproducible. Two
   * scratch arrays: `outer` for the current level's vector of tables and
   * `scratch` for vectors nested inside one of its elements. */
  uint32_t n;
  kiln_fbb_ref_t cases = kmb_cases_vector(b, f, scratch);
  for (n = 0; n < b->files_count; n++) outer[n] = kmb_string(f, b->files[n]);
  kiln_fbb_ref_t files = kiln_fbb_vector_refs(f, outer, n);

  for (n = 0; n < b->segments_count; n++) {
    const kmb_segment *s = &b->segments[n];
    kiln_fbb_table_start(f);
    kmb_Segment_offset(f, s->offset);
    kmb_Segment_size(f, s->stored_size);
    kmb_Segment_uncompressed_size(f, s->size);
    kmb_Segment_content_hash(f, s->hash);
    kmb_Segment_kind(f, (kiln_fb_SegmentKind_t)s->kind);
    kmb_Segment_compression(f, (kiln_fb_Compression_t)s->compression);
    outer[n] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t segments = kiln_fbb_vector_refs(f, outer, n);

  for (n = 0; n < b->executables_count; n++) {
    const kmb_executable *e = &b->executables[n];
    kiln_fbb_ref_t exports_v, variants_v;
    kiln_fbb_ref_t *items = calloc(e->export_count + e->variant_count + 1,
                                   sizeof *items);
    if (!items) {
      kmb_error(b, "out of memory");
      return 0;
    }
    for (uint32_t x = 0; x < e->export_count; x++) {
      const kmb_export *ex = &e->exports[x];
      for (uint32_t k = 0; k < ex->binding_count; k++) {
        kiln_fbb_table_start(f);
        kmb_Binding_read_only(f, ex->read_only[k]);
        scratch[k] = kiln_fbb_table_end(f);
      }
      kiln_fbb_ref_t bindings = kiln_fbb_vector_refs(f, scratch, ex->binding_count);
      kiln_fbb_ref_t name = kmb_string(f, ex->name);
      kiln_fbb_table_start(f);
      kmb_ExecutableExport_workgroup_size(f, &ex->workgroup_size);
      kmb_ExecutableExport_name(f, name);
      kmb_ExecutableExport_bindings(f, bindings);
      kmb_ExecutableExport_push_constant_count(f, ex->push_constant_count);
      items[x] = kiln_fbb_table_end(f);
    }
    exports_v = kiln_fbb_vector_refs(f, items, e->export_count);
    for (uint32_t v = 0; v < e->variant_count; v++) {
      const kmb_variant *var = &e->variants[v];
      for (uint32_t x = 0; x < var->export_count; x++) {
        const kiln_module_variant_export_desc_t *ve = &var->exports[x];
        const kiln_fb_Dim3_t bs = {ve->block_size[0], ve->block_size[1],
                                   ve->block_size[2]};
        kiln_fbb_table_start(f);
        kmb_VariantExport_block_size(f, &bs);
        kmb_VariantExport_static_shared_memory_bytes(
            f, ve->static_shared_memory_bytes);
        kmb_VariantExport_dynamic_shared_memory_bytes(
            f, ve->dynamic_shared_memory_bytes);
        scratch[x] = kiln_fbb_table_end(f);
      }
      kiln_fbb_ref_t launch =
          var->export_count ? kiln_fbb_vector_refs(f, scratch, var->export_count)
                            : 0;
      kiln_fbb_ref_t name = kmb_string(f, var->name);
      kiln_fbb_ref_t target = kmb_string(f, var->target);
      kiln_fbb_ref_t arch = kmb_string(f, var->arch);
      kiln_fbb_ref_t features = kmb_string(f, var->cpu_features);
      kiln_fbb_ref_t llvm = kmb_string(f, var->llvm_version);
      kiln_fbb_table_start(f);
      kmb_ExecutableVariant_name(f, name);
      kmb_ExecutableVariant_target(f, target);
      kmb_ExecutableVariant_arch(f, arch);
      kmb_ExecutableVariant_cpu_features(f, features);
      kmb_ExecutableVariant_sm_version(f, var->sm_version);
      kmb_ExecutableVariant_segment(f, var->segment);
      kmb_ExecutableVariant_format(f, (kiln_fb_PayloadFormat_t)var->format);
      kmb_ExecutableVariant_exports(f, launch);
      kmb_ExecutableVariant_llvm_version(f, llvm);
      items[v] = kiln_fbb_table_end(f);
    }
    variants_v = kiln_fbb_vector_refs(f, items, e->variant_count);
    free(items);
    kiln_fbb_ref_t name = kmb_string(f, e->name);
    kiln_fbb_table_start(f);
    kmb_Executable_name(f, name);
    kmb_Executable_exports(f, exports_v);
    kmb_Executable_variants(f, variants_v);
    outer[n] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t executables = kiln_fbb_vector_refs(f, outer, n);

  for (n = 0; n < b->rodata_count; n++) {
    kiln_fbb_ref_t name = kmb_string(f, b->rodata[n].name);
    kiln_fbb_table_start(f);
    kmb_Rodata_name(f, name);
    kmb_Rodata_alignment(f, b->rodata[n].alignment);
    kmb_Rodata_segment(f, b->rodata[n].segment);
    outer[n] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t rodata = kiln_fbb_vector_refs(f, outer, n);

  kiln_fbb_ref_t code = kiln_fbb_vector(f, b->code, b->code_size, 1, 16);

  for (n = 0; n < b->imports_count; n++) {
    kiln_fbb_ref_t name = kmb_string(f, b->imports[n].name);
    kiln_fbb_ref_t sig = kmb_string(f, b->imports[n].signature);
    kiln_fbb_table_start(f);
    kmb_Import_name(f, name);
    kmb_Import_signature(f, sig);
    outer[n] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t imports = kiln_fbb_vector_refs(f, outer, n);

  for (n = 0; n < b->functions_count; n++) {
    const kmb_function *fn = &b->functions[n];
    kiln_fbb_ref_t locations =
        fn->location_count
            ? kiln_fbb_vector(f, fn->locations, fn->location_count,
                              KILN_FB_SourceLocation_SIZE, 4)
            : 0;
    kiln_fbb_ref_t outputs = kmb_tensors(f, fn->outputs, fn->output_count, scratch);
    kiln_fbb_ref_t inputs = kmb_tensors(f, fn->inputs, fn->input_count, scratch);
    kiln_fbb_ref_t sites = kmb_sites_vector(f, fn, scratch);
    kiln_fbb_ref_t name = kmb_string(f, fn->name);
    kiln_fbb_ref_t sig = kmb_string(f, fn->vm_signature);
    kiln_fbb_table_start(f);
    kmb_Function_name(f, name);
    kmb_Function_source_nodes(f, sites);
    kmb_Function_vm_signature(f, sig);
    kmb_Function_inputs(f, inputs);
    kmb_Function_outputs(f, outputs);
    kmb_Function_bytecode_offset(f, fn->code_offset);
    kmb_Function_bytecode_size(f, fn->code_size);
    kmb_Function_i32_register_count(f, fn->i32_regs);
    kmb_Function_ref_register_count(f, fn->ref_regs);
    kmb_Function_locations(f, locations);
    kmb_Function_exported(f, fn->exported);
    outer[n] = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t functions = kiln_fbb_vector_refs(f, outer, n);

  kiln_fbb_ref_t producer = 0;
  if (b->compiler_version || b->flag_count || b->source_revision || b->input_name ||
      b->input_sha256) {
    for (n = 0; n < b->flag_count; n++) outer[n] = kmb_string(f, b->flags[n]);
    kiln_fbb_ref_t flags = kiln_fbb_vector_refs(f, outer, n);
    kiln_fbb_ref_t version = kmb_string(f, b->compiler_version);
    kiln_fbb_ref_t revision = kmb_string(f, b->source_revision);
    kiln_fbb_ref_t input = kmb_string(f, b->input_name);
    kiln_fbb_ref_t sha = kmb_string(f, b->input_sha256);
    kiln_fbb_table_start(f);
    kmb_Producer_compiler_version(f, version);
    kmb_Producer_flags(f, flags);
    kmb_Producer_source_revision(f, revision);
    kmb_Producer_input_name(f, input);
    kmb_Producer_input_sha256(f, sha);
    producer = kiln_fbb_table_end(f);
  }
  kiln_fbb_ref_t name = kmb_string(f, b->name);

  kiln_fbb_table_start(f);
  kmb_Module_format_version(f, KILN_MODULE_FORMAT_VERSION);
  kmb_Module_name(f, name);
  kmb_Module_producer(f, producer);
  kmb_Module_functions(f, functions);
  kmb_Module_imports(f, imports);
  kmb_Module_bytecode(f, code);
  kmb_Module_bytecode_version(f, b->bytecode_version);
  kmb_Module_rodata(f, rodata);
  kmb_Module_executables(f, executables);
  kmb_Module_segments(f, segments);
  kmb_Module_source_files(f, files);
  kmb_Module_bundled_cases(f, cases);
  return kiln_fbb_table_end(f);
}

/* Decides each segment's stored form, once per compression mode (finish
 * lays the module out twice, and compression is the expensive part). */
static bool kmb_pack_segments(kiln_module_builder_t *b) {
  for (uint32_t i = 0; i < b->segments_count; i++) {
    kmb_segment *s = &b->segments[i];
    if (s->decided && s->decided_mode == (uint8_t)b->compression) continue;
    s->decided = true;
    s->decided_mode = (uint8_t)b->compression;
    free(s->packed);
    s->packed = NULL;
    s->compression = kiln_fb_Compression_None;
    s->stored_size = s->size;
    const bool automatic = b->compression == KILN_MODULE_COMPRESS_AUTO ||
                           b->compression == KILN_MODULE_COMPRESS_PTX;
    if (s->kind != kiln_fb_SegmentKind_Executable ||
        b->compression == KILN_MODULE_COMPRESS_NEVER ||
        (b->compression == KILN_MODULE_COMPRESS_PTX &&
         s->format != kiln_fb_PayloadFormat_PTX) ||
        (automatic && s->size < 512))
      continue;
    uint8_t *packed;
    size_t packed_size;
    kiln_format_error_t err;
    if (!kiln_module_zstd_compress(s->data, (size_t)s->size,
                                   KILN_MODULE_ZSTD_LEVEL, &packed,
                                   &packed_size, &err)) {
      s->decided = false;
      kmb_error(b, "segment %" PRIu32 ": %s", i, err.message);
      return false;
    }
    if (automatic && packed_size > s->size - s->size / 8) {
      free(packed); /* saves less than an eighth: keep it mappable */
      continue;
    }
    s->packed = packed;
    s->stored_size = packed_size;
    s->compression = kiln_fb_Compression_Zstd;
  }
  return true;
}

/* Places segments after a FlatBuffer of fb_size bytes; returns the file
 * size. */
static uint64_t kmb_place_segments(kiln_module_builder_t *b, uint64_t fb_size) {
  uint64_t pos = fb_size;
  for (uint32_t i = 0; i < b->segments_count; i++) {
    kmb_segment *s = &b->segments[i];
    uint64_t align = s->stored_size >= KILN_MODULE_LARGE_SEGMENT_SIZE
                         ? KILN_MODULE_LARGE_SEGMENT_ALIGNMENT
                         : KILN_MODULE_SEGMENT_ALIGNMENT;
    pos = (pos + align - 1) / align * align;
    s->offset = pos;
    pos += s->stored_size;
  }
  return pos;
}

typedef bool (*kmb_sink_fn)(void *ctx, const void *data, size_t size);

/* Lays out the module and hands its bytes, in order, to sink. */
static bool kmb_emit(kiln_module_builder_t *b, kmb_sink_fn sink, void *ctx,
                     uint64_t *total, kiln_format_error_t *err) {
  if (b->error[0] || !kmb_pack_segments(b)) {
    snprintf(err->message, sizeof err->message, "%s", b->error);
    return false;
  }
  uint32_t m = kmb_max_refs(b);
  kiln_fbb_ref_t *scratch = calloc((size_t)m + 1, sizeof *scratch);
  kiln_fbb_ref_t *outer = calloc((size_t)m + 1, sizeof *outer);
  kiln_fbb_t f;
  kiln_fbb_init(&f);
  const uint8_t *fb = NULL;
  size_t fb_size = 0;
  const char *why = NULL;
  bool ok = scratch && outer;
  if (!ok) kmb_error(b, "out of memory");
  for (int pass = 0; ok && pass < 2; pass++) {
    /* Pass 0 uses placeholder offsets (nonzero, like the real ones). */
    if (pass == 0)
      for (uint32_t i = 0; i < b->segments_count; i++) b->segments[i].offset = 1;
    else
      *total = kmb_place_segments(b, fb_size);
    size_t first_size = fb_size;
    kiln_fbb_free(&f);
    kiln_fbb_ref_t root = kmb_build(b, &f, scratch, outer);
    ok = !b->error[0] &&
         kiln_fbb_finish(&f, root, KILN_MODULE_FILE_IDENTIFIER, &fb, &fb_size,
                         &why);
    if (!ok && why) kmb_error(b, "FlatBuffer: %s", why);
    if (ok && pass == 1 && fb_size != first_size) {
      kmb_error(b, "internal: FlatBuffer size changed between passes");
      ok = false;
    }
  }
  free(scratch);
  free(outer);
  /* Self-check with the runtime's verifier. It reads only the FlatBuffer
   * (segments are checked against *total, never dereferenced), so passing
   * the FlatBuffer's bytes with the final file size is sound. */
  kiln_module_view_t view;
  kiln_format_error_t verr;
  if (ok && !kiln_module_view_open(&view, fb, *total, &verr)) {
    kmb_error(b, "internal: built module does not verify: %s", verr.message);
    ok = false;
  }
  static const uint8_t zeros[4096];
  uint64_t pos = fb_size;
  if (ok) ok = sink(ctx, fb, fb_size);
  for (uint32_t i = 0; ok && i < b->segments_count; i++) {
    const kmb_segment *s = &b->segments[i];
    while (ok && pos < s->offset) {
      uint64_t n = s->offset - pos < sizeof zeros ? s->offset - pos : sizeof zeros;
      ok = sink(ctx, zeros, (size_t)n);
      pos += n;
    }
    if (ok && s->stored_size)
      ok = sink(ctx, s->packed ? s->packed : s->data, (size_t)s->stored_size);
    pos += s->stored_size;
  }
  kiln_fbb_free(&f);
  /* A failed write is the output's fault, not the content's: it is not
   * recorded in the builder, so the same builder can be written again. */
  if (!ok)
    snprintf(err->message, sizeof err->message, "%s",
             b->error[0] ? b->error : "write failed");
  return ok;
}

typedef struct kmb_mem_sink {
  uint8_t *buf;
  size_t size, cap;
} kmb_mem_sink;

static bool kmb_mem_write(void *ctx, const void *data, size_t size) {
  kmb_mem_sink *m = ctx;
  if (size > m->cap - m->size) return false;
  memcpy(m->buf + m->size, data, size);
  m->size += size;
  return true;
}

/* First pass only to learn the total, so the buffer is allocated once. */
static bool kmb_count_write(void *ctx, const void *data, size_t size) {
  (void)data;
  *(uint64_t *)ctx += size;
  return true;
}

bool kiln_module_builder_finish(kiln_module_builder_t *b, uint8_t **data,
                                size_t *size, kiln_format_error_t *err) {
  uint64_t total = 0, counted = 0;
  *data = NULL;
  *size = 0;
  if (!kmb_emit(b, kmb_count_write, &counted, &total, err)) return false;
  kmb_mem_sink m = {malloc(counted ? (size_t)counted : 1), 0, (size_t)counted};
  if (!m.buf) {
    snprintf(err->message, sizeof err->message, "out of memory for a %" PRIu64
             "-byte module", counted);
    return false;
  }
  if (!kmb_emit(b, kmb_mem_write, &m, &total, err)) {
    free(m.buf);
    return false;
  }
  *data = m.buf;
  *size = m.size;
  return true;
}

/* The fd sink writes in runs that start and end on 2 MiB file offsets
 * (but for the file's own ends): page caches with large folios (ext4,
 * xfs) size a written range's folios by each write's length and
 * alignment, and only a 2 MiB folio lets a runtime that maps the file map
 * it with one PMD entry instead of 512 PTEs: touching MobileNetV2's 14 MB
 * took ~1.1 ms of page-table work as written segment by segment, 80 us
 * from 2 MiB folios. So bytes are staged up to the next boundary, and
 * whole aligned blocks of the caller's bytes (borrowed weights included)
 * go straight out. */
#define KMB_FOLIO ((size_t)2 << 20)

typedef struct kmb_fd_sink {
  int fd;
  int error;     /* errno of the failed write, 0 for "wrote nothing" */
  uint64_t pos;  /* file offset of buf[0] */
  uint8_t *buf;  /* KMB_FOLIO bytes of staging; NULL: none (no memory) */
  size_t used;
} kmb_fd_sink;

/* write(2) of all of DATA: partial writes and EINTR retried, at most
 * 1 GiB per call (Linux's limit is just under 2 GiB). */
static bool kmb_fd_put(kmb_fd_sink *s, const uint8_t *p, size_t size) {
  s->pos += size;
  while (size) {
    ssize_t n = write(s->fd, p, size < (1u << 30) ? size : (1u << 30));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      s->error = n < 0 ? errno : 0;
      return false;
    }
    p += n;
    size -= (size_t)n;
  }
  return true;
}

static bool kmb_fd_flush(kmb_fd_sink *s) {
  const size_t n = s->used;
  s->used = 0;
  return kmb_fd_put(s, s->buf, n);
}

static bool kmb_fd_write(void *ctx, const void *data, size_t size) {
  kmb_fd_sink *s = ctx;
  const uint8_t *p = data;
  if (!s->buf) return kmb_fd_put(s, p, size);
  while (size) {
    /* Bytes from the staged end to the next boundary. */
    const size_t room = KMB_FOLIO - (size_t)((s->pos + s->used) % KMB_FOLIO);
    size_t n = size < room ? size : room;
    if (!s->used && size >= room) {
      n = room + (size - room) / KMB_FOLIO * KMB_FOLIO;
      if (!kmb_fd_put(s, p, n)) return false;
    } else {
      memcpy(s->buf + s->used, p, n);
      s->used += n;
      if (n == room && !kmb_fd_flush(s)) return false;
    }
    p += n;
    size -= n;
  }
  return true;
}

bool kiln_module_builder_write_fd(kiln_module_builder_t *b, int fd,
                                  kiln_format_error_t *err) {
  const off_t at = lseek(fd, 0, SEEK_CUR); /* -1 for a pipe: any start */
  kmb_fd_sink sink = {fd, 0, at > 0 ? (uint64_t)at : 0, malloc(KMB_FOLIO), 0};
  uint64_t total;
  const bool emitted = kmb_emit(b, kmb_fd_write, &sink, &total, err);
  const bool ok = emitted && (!sink.buf || kmb_fd_flush(&sink));
  free(sink.buf);
  if (ok) return true;
  if (sink.error)
    snprintf(err->message, sizeof err->message, "write failed: %s",
             strerror(sink.error));
  else if (emitted) /* the last write wrote nothing */
    snprintf(err->message, sizeof err->message, "write failed");
  return false;
}

bool kiln_module_builder_write_file(kiln_module_builder_t *b, const char *path,
                                    kiln_format_error_t *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) {
    snprintf(err->message, sizeof err->message, "cannot create %s: %s", path,
             strerror(errno));
    return false;
  }
  bool ok = kiln_module_builder_write_fd(b, fd, err);
  struct stat st;
  const bool regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (close(fd) != 0 && ok) {
    snprintf(err->message, sizeof err->message, "cannot write %s: %s", path,
             strerror(errno));
    ok = false;
  }
  if (!ok && regular) unlink(path); /* never a device or pipe */
  return ok;
}
