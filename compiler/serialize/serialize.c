/* The module writer (serialize.h): walks the module once per kind of
 * entry, in module order, and hands everything to the format builder,
 * which then either assembles the file in memory or streams it out. */
#include "serialize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/module_builder.h"
#include "kiln/version.h"
#include "kiln/vm_bytecode.h"
#include "kiln_revision.h"
#include "vm_stage.h"

#define SZ_COMPILER_VERSION "kiln-compile " KILN_VERSION

typedef struct sz {
  kiln_module_builder_t *b;
  kiln_session *s;
  kiln_op *module;
  const char **files; /* source file table, builder index = position */
  uint32_t nfiles;
  kiln_error *err;
} sz;

static uint32_t sz_file(sz *z, const char *path) {
  for (uint32_t i = 0; i < z->nfiles; i++)
    if (strcmp(z->files[i], path) == 0) return i;
  const char **n = realloc(z->files, (z->nfiles + 1) * sizeof *n);
  if (!n) return 0;
  z->files = n;
  z->files[z->nfiles] = path;
  kiln_module_builder_add_source_file(z->b, path);
  return z->nfiles++;
}

/* The type whose dims a signature entry records: a list's element type
 * (!kiln.seq<T>: T, flagged as a sequence), else t. */
static const kiln_type *sz_entry_type(const kiln_type *t) {
  return kiln_type_is_seq(t) ? t->elem : t;
}

/* Tensor (or scalar, as rank 0) types of a reflection signature; a list
 * (!kiln.seq<tensor<...>>) is its element type marked as a sequence. */
static kiln_error *sz_tensor_types(const kiln_type *const *types, uint32_t n,
                                   kiln_module_tensor_type_t *out,
                                   int64_t *dims_pool, const char *fname) {
  for (uint32_t i = 0; i < n; i++) {
    const kiln_type *t = sz_entry_type(types[i]);
    out[i].sequence = t != types[i];
    out[i].unranked = out[i].sequence && t->kind == KILN_TYPE_UNRANKED_TENSOR; /* elements of any rank */
    const kiln_type *elem = kiln_type_elem_or_self(t);
    out[i].element_type = kiln_vm_element_type(elem);
    if (out[i].element_type == kiln_fb_ElementType_Unknown) {
      char *s = kiln_type_to_string(t);
      kiln_error *e = kiln_error_new("function @%s: type '%s' has no module element type",
                                     fname, s ? s : "?");
      free(s);
      return e;
    }
    out[i].rank = 0;
    out[i].dims = dims_pool;
    if (t->kind == KILN_TYPE_TENSOR) {
      out[i].rank = t->rank;
      for (uint32_t d = 0; d < t->rank; d++)
        dims_pool[d] = t->shape[d] == KILN_DYNAMIC ? -1 : t->shape[d];
      dims_pool += t->rank;
    } else if (kiln_type_is_shaped(t) && !out[i].unranked) {
      return kiln_error_new("function @%s: signature types must be tensors or scalars", fname);
    }
  }
  return NULL;
}

/* A function's source nodes for the builder: one entry per instruction
 * whose location names nodes (kiln_loc.nodes lines "NAME (KIND)"). */
typedef struct sz_sites {
  kiln_module_source_nodes_desc_t *descs;
  uint32_t count;
  char **strings; /* every name and kind, owned */
  uint32_t nstrings;
} sz_sites;

static void sz_sites_free(sz_sites *s) {
  for (uint32_t i = 0; i < s->count; i++) {
    free((void *)s->descs[i].names);
    free((void *)s->descs[i].kinds);
  }
  for (uint32_t i = 0; i < s->nstrings; i++) free(s->strings[i]);
  free(s->descs);
  free(s->strings);
}

static char *sz_strndup(sz_sites *s, const char *p, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  memcpy(d, p, n);
  d[n] = 0;
  s->strings[s->nstrings++] = d;
  return d;
}

static kiln_error *sz_source_nodes(const kiln_vm_function_code_t *code, sz_sites *s) {
  uint32_t lines = 0;
  for (uint32_t i = 0; i < code->location_count; i++)
    for (const char *p = code->locations[i].nodes; p && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
      lines++;
  s->descs = calloc(code->location_count + 1, sizeof *s->descs);
  s->strings = calloc(2 * (size_t)lines + 1, sizeof *s->strings);
  if (!s->descs || !s->strings) return kiln_error_new("out of memory");
  for (uint32_t i = 0; i < code->location_count; i++) {
    const kiln_vm_location_t *l = &code->locations[i];
    if (!l->nodes || (s->count && s->descs[s->count - 1].pc >= l->pc)) continue;
    uint32_t n = 0;
    for (const char *p = l->nodes; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0)) n++;
    kiln_module_source_nodes_desc_t *d = &s->descs[s->count++];
    const char **names = calloc(n + 1, sizeof *names), **kinds = calloc(n + 1, sizeof *kinds);
    d->pc = l->pc;
    d->names = names;
    d->kinds = kinds;
    if (!names || !kinds) return kiln_error_new("out of memory");
    for (const char *p = l->nodes; *p && d->count < n;) {
      const size_t len = strcspn(p, "\n");
      /* "NAME (KIND)": the kind is in the last parentheses */
      size_t open = len;
      while (open > 0 && !(p[open - 1] == '(' && open >= 2 && p[open - 2] == ' ')) open--;
      const bool has_kind = open > 0 && len > open && p[len - 1] == ')';
      names[d->count] = sz_strndup(s, p, has_kind ? open - 2 : len);
      kinds[d->count] = sz_strndup(s, p + open, has_kind ? len - open - 1 : 0);
      if (!names[d->count] || !kinds[d->count]) return kiln_error_new("out of memory");
      d->count++;
      p += len + (p[len] != 0);
    }
  }
  return NULL;
}

static kiln_error *sz_function(sz *z, kiln_op *fn, kiln_vm_imports_t *imports) {
  const char *name = kiln_symbol_name(fn);
  const kiln_attr *sig = kiln_op_get_attr(fn, "kiln.signature");
  if (!sig || sig->kind != KILN_ATTR_TYPE || sig->type->kind != KILN_TYPE_FUNCTION)
    return kiln_error_new("function @%s has no kiln.signature (run convert-to-vm)", name);
  kiln_vm_function_code_t code;
  sz_sites sites = {NULL, 0, NULL, 0};
  kiln_error *err = kiln_vm_emit_function(fn, imports, &code);
  if (err) return err;
  const kiln_type *st = sig->type;
  uint32_t total_dims = 0;
  for (uint32_t i = 0; i < st->num_inputs + st->num_results; i++)
    total_dims += sz_entry_type(st->types[i])->rank;
  kiln_module_tensor_type_t *tt = calloc(st->num_inputs + st->num_results + 1, sizeof *tt);
  int64_t *dims = calloc(total_dims + 1, sizeof *dims);
  kiln_fb_SourceLocation_t *locs = calloc(code.location_count + 1, sizeof *locs);
  if (!tt || !dims || !locs) {
    err = kiln_error_new("out of memory");
    goto done;
  }
  if ((err = sz_tensor_types(st->types, st->num_inputs + st->num_results, tt, dims, name)))
    goto done;
  for (uint32_t i = 0; i < code.location_count; i++) {
    locs[i].pc = code.locations[i].pc;
    locs[i].file = sz_file(z, code.locations[i].file);
    locs[i].line = code.locations[i].line;
    locs[i].column = code.locations[i].col;
  }
  if ((err = sz_source_nodes(&code, &sites)))
    goto done;
  const kiln_attr *vis = kiln_op_get_attr(fn, "sym_visibility");
  kiln_module_function_desc_t f;
  memset(&f, 0, sizeof f);
  f.name = name;
  f.exported = !vis || vis->kind != KILN_ATTR_STRING || strcmp(vis->str, "public") == 0;
  f.input_count = st->num_inputs;
  f.inputs = tt;
  f.output_count = st->num_results;
  f.outputs = tt + st->num_inputs;
  f.bytecode = code.code;
  f.bytecode_size = code.size;
  f.i32_register_count = code.scalar_count;
  f.ref_register_count = code.ref_count;
  f.location_count = code.location_count;
  f.locations = locs;
  f.vm_signature = code.signature;
  f.source_nodes_count = sites.count;
  f.source_nodes = sites.descs;
  kiln_module_builder_add_function(z->b, &f);
done:
  sz_sites_free(&sites);
  free(tt);
  free(dims);
  free(locs);
  kiln_vm_function_code_free(&code);
  return err;
}

/* ---- executables --------------------------------------------------------- */

static const kiln_attr *sz_attr(const kiln_op *op, const char *name, kiln_attr_kind kind) {
  const kiln_attr *a = kiln_op_get_attr(op, name);
  return a && a->kind == kind ? a : NULL;
}

static int64_t sz_int(const kiln_op *op, const char *name, int64_t dflt) {
  const kiln_attr *a = sz_attr(op, name, KILN_ATTR_INTEGER);
  return a ? a->i : dflt;
}

/* Workgroup size: the export's `workgroup_size`, else the kernel's
 * kiln.launch.workgroup_size, else 1x1x1. */
static void sz_workgroup_size(kiln_op *variant, kiln_op *exp, uint32_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  const kiln_attr *ws = kiln_op_get_attr(exp, "workgroup_size");
  if (!ws) {
    const char *name = kiln_symbol_name(exp);
    for (kiln_op *m = variant->regions[0].first ? variant->regions[0].first->first : NULL;
         m && !ws; m = m->next) {
      if (m->kind != KILN_OP_BUILTIN_MODULE || !m->regions[0].first) continue;
      kiln_op *k = name ? kiln_symbol_lookup(m, name) : NULL;
      const kiln_attr *launch = k ? kiln_op_get_attr(k, "kiln.launch") : NULL;
      if (launch && launch->kind == KILN_ATTR_DICT) ws = kiln_dict_get(launch, "workgroup_size");
    }
  }
  if (!ws) return;
  for (uint32_t i = 0; i < 3; i++) {
    int64_t v = 1;
    if (ws->kind == KILN_ATTR_DENSE_ARRAY && i < ws->count && kiln_type_is_int_or_index(ws->type))
      v = ((const int64_t *)ws->data)[i];
    else if (ws->kind == KILN_ATTR_ARRAY && i < ws->count && ws->elems[i]->kind == KILN_ATTR_INTEGER)
      v = ws->elems[i]->i;
    out[i] = v > 0 && v <= UINT32_MAX ? (uint32_t)v : 1;
  }
}

static bool sz_named(const kiln_op *op, const char *name) {
  return strcmp(op->name, name) == 0;
}

/* A 3-int array attribute (dense or plain array) into out; false when the
 * attribute is something else. */
static bool sz_dim3(const kiln_attr *a, int64_t out[3]) {
  if (a->kind == KILN_ATTR_DENSE_ARRAY && a->count == 3 && kiln_type_is_int_or_index(a->type)) {
    memcpy(out, a->data, 3 * sizeof *out);
    return true;
  }
  if (a->kind != KILN_ATTR_ARRAY || a->count != 3) return false;
  for (uint32_t i = 0; i < 3; i++) {
    if (a->elems[i]->kind != KILN_ATTR_INTEGER) return false;
    out[i] = a->elems[i]->i;
  }
  return true;
}

/* Launch metadata of a cuda variant, by export ordinal: the block from
 * the export's kiln.block_size (translate-cuda records it), else
 * the kernel's kiln.launch block_size, else the export's workgroup size;
 * shared memory from kiln.static_shared_memory_bytes and
 * kiln.dynamic_shared_memory_bytes (0 when absent). */
static kiln_error *sz_variant_launch(kiln_op *variant, const char *ename,
                                     const kiln_module_export_desc_t *exports, uint32_t nexp,
                                     kiln_module_variant_export_desc_t *out) {
  const char *vname = kiln_symbol_name(variant);
  bool seen[256] = {false};
  kiln_block *vb = variant->num_regions ? variant->regions[0].first : NULL;
  for (kiln_op *o = vb ? vb->first : NULL; o; o = o->next) {
    if (!sz_named(o, "hal.executable.export")) continue;
    const char *xname = kiln_symbol_name(o);
    const int64_t ord = sz_int(o, "ordinal", -1);
    if (ord < 0 || ord >= nexp || seen[ord] || !xname || strcmp(xname, exports[ord].name) != 0)
      return kiln_error_new("executable @%s variant @%s: export @%s does not match the first "
                            "variant's export of ordinal %lld", ename, vname, xname ? xname : "?",
                            (long long)ord);
    seen[ord] = true;
    kiln_module_variant_export_desc_t *l = &out[ord];
    int64_t block[3] = {exports[ord].workgroup_size[0], exports[ord].workgroup_size[1],
                        exports[ord].workgroup_size[2]};
    const kiln_attr *bs = kiln_op_get_attr(o, "kiln.block_size");
    if (!bs) {
      kiln_op *inner = NULL;
      for (kiln_op *m = vb->first; m && !inner; m = m->next)
        if (m->kind == KILN_OP_BUILTIN_MODULE && m->regions[0].first) inner = m;
      kiln_op *k = inner ? kiln_symbol_lookup(inner, xname) : NULL;
      const kiln_attr *launch = k ? kiln_op_get_attr(k, "kiln.launch") : NULL;
      if (launch && launch->kind == KILN_ATTR_DICT) bs = kiln_dict_get(launch, "block_size");
    }
    if (bs && !sz_dim3(bs, block))
      return kiln_error_new("executable @%s variant @%s export @%s: block size is not 3 integers",
                            ename, vname, xname);
    for (int i = 0; i < 3; i++) {
      if (block[i] < 1 || block[i] > 1024)
        return kiln_error_new("executable @%s variant @%s export @%s: block size %lldx%lldx%lld "
                              "is not a CUDA block", ename, vname, xname, (long long)block[0],
                              (long long)block[1], (long long)block[2]);
      l->block_size[i] = (uint32_t)block[i];
    }
    const int64_t st = sz_int(o, "kiln.static_shared_memory_bytes", 0);
    const int64_t dyn = sz_int(o, "kiln.dynamic_shared_memory_bytes", 0);
    if (st < 0 || st > UINT32_MAX || dyn < 0 || dyn > UINT32_MAX)
      return kiln_error_new("executable @%s variant @%s export @%s: shared memory sizes %lld + "
                            "%lld bytes are out of range", ename, vname, xname, (long long)st,
                            (long long)dyn);
    l->static_shared_memory_bytes = (uint32_t)st;
    l->dynamic_shared_memory_bytes = (uint32_t)dyn;
  }
  for (uint32_t i = 0; i < nexp; i++)
    if (!seen[i])
      return kiln_error_new("executable @%s variant @%s lacks export @%s (ordinal %u)", ename,
                            vname, exports[i].name, i);
  return NULL;
}

/* Parses "llvm-cpu[:ARCH[+F1+F2]]" / "cuda:sm_NN" into the variant. */
static kiln_error *sz_target(const char *target, const kiln_session_payload_t *p,
                             kiln_module_variant_desc_t *v, char *target_buf,
                             char *arch_buf, char *feat_buf, size_t cap) {
  const char *colon = strchr(target, ':');
  const size_t tlen = colon ? (size_t)(colon - target) : strlen(target);
  if (tlen + 1 > cap) return kiln_error_new("target '%s' is too long", target);
  memcpy(target_buf, target, tlen);
  target_buf[tlen] = 0;
  v->target = target_buf;
  const char *rest = colon ? colon + 1 : "";
  if (strcmp(target_buf, "cuda") == 0) {
    unsigned sm = 0;
    if (sscanf(rest, "sm_%u", &sm) != 1)
      return kiln_error_new("target '%s': expected cuda:sm_NN", target);
    v->sm_version = sm;
    v->arch = "nvptx64";
    v->format = kiln_fb_PayloadFormat_PTX;
    return NULL;
  }
  if (strcmp(target_buf, "llvm-cpu") != 0)
    return kiln_error_new("unknown target '%s' (valid: llvm-cpu[:ARCH[+FEATURES]], cuda:sm_NN)", target);
  v->format = kiln_fb_PayloadFormat_ELF;
  const char *plus = strchr(rest, '+');
  size_t alen = plus ? (size_t)(plus - rest) : strlen(rest);
  if (alen + 1 > cap) return kiln_error_new("target '%s' is too long", target);
  memcpy(arch_buf, rest, alen);
  arch_buf[alen] = 0;
  if (!alen || strcmp(arch_buf, "host") == 0) {
#if defined(__aarch64__)
    strcpy(arch_buf, "aarch64");
#elif defined(__riscv) && __riscv_xlen == 64
    strcpy(arch_buf, "riscv64");
#else
    strcpy(arch_buf, "x86_64");
#endif
  }
  /* "+a+b" -> "+a,+b", the LLVM feature-list spelling variants record. */
  size_t n = 0;
  feat_buf[0] = 0;
  for (const char *f = plus; f && *f;) {
    const char *next = strchr(f + 1, '+');
    const size_t len = next ? (size_t)(next - f) : strlen(f);
    if (n + len + 2 > cap) return kiln_error_new("target '%s' is too long", target);
    if (n) feat_buf[n++] = ',';
    memcpy(feat_buf + n, f, len);
    n += len;
    feat_buf[n] = 0;
    f = next;
  }
  v->arch = p && p->arch ? p->arch : arch_buf;
  v->cpu_features = p && p->features ? p->features : feat_buf;
  return NULL;
}

static kiln_error *sz_executable(sz *z, kiln_op *exe) {
  const char *name = kiln_symbol_name(exe);
  if (!name) return kiln_error_new("hal.executable without sym_name");
  kiln_block *body = exe->num_regions ? exe->regions[0].first : NULL;
  kiln_op *variants[64];
  uint32_t nvar = 0;
  for (kiln_op *o = body ? body->first : NULL; o; o = o->next)
    if (sz_named(o, "hal.executable.variant")) {
      if (nvar == 64) return kiln_error_new("executable @%s has more than 64 variants", name);
      variants[nvar++] = o;
    }
  if (!nvar) return kiln_error_new("executable @%s has no hal.executable.variant", name);
  /* Exports from the first variant, placed by ordinal. */
  kiln_module_export_desc_t exports[256];
  bool ro[256][64];
  uint32_t nexp = 0;
  memset(exports, 0, sizeof exports);
  kiln_block *vb = variants[0]->num_regions ? variants[0]->regions[0].first : NULL;
  for (kiln_op *o = vb ? vb->first : NULL; o; o = o->next) {
    if (!sz_named(o, "hal.executable.export")) continue;
    const char *ename = kiln_symbol_name(o);
    const int64_t ord = sz_int(o, "ordinal", -1);
    const int64_t nb = sz_int(o, "binding_count", -1);
    const int64_t mask = sz_int(o, "readonly_mask", 0);
    const int64_t npc = sz_int(o, "push_constant_count", 0);
    /* The export table is sized here, not by the format: refuse what does
     * not fit rather than drop exports. */
    if (ename && ord >= 256)
      return kiln_error_new("executable @%s export @%s: ordinal %lld, but an executable holds "
                            "at most 256 exports", name, ename, (long long)ord);
    if (!ename || ord < 0 || exports[ord].name)
      return kiln_error_new("executable @%s: export needs a sym_name and a unique ordinal below 256", name);
    if (nb < 0 || nb > 64 || npc < 0 || npc > 1024)
      return kiln_error_new("executable @%s export @%s: binding_count (0..64) and push_constant_count are required",
                            name, ename);
    kiln_module_export_desc_t *e = &exports[ord];
    e->name = ename;
    sz_workgroup_size(variants[0], o, e->workgroup_size);
    e->binding_count = (uint32_t)nb;
    for (int64_t i = 0; i < nb; i++) ro[ord][i] = (mask >> i) & 1;
    e->binding_read_only = ro[ord];
    e->push_constant_count = (uint32_t)npc;
    if ((uint32_t)ord + 1 > nexp) nexp = (uint32_t)ord + 1;
  }
  for (uint32_t i = 0; i < nexp; i++)
    if (!exports[i].name)
      return kiln_error_new("executable @%s: no export has ordinal %u", name, i);
  kiln_module_variant_desc_t vars[64];
  char bufs[64][3][128];
  memset(vars, 0, sizeof vars);
  kiln_module_variant_export_desc_t *launch = NULL;
  for (uint32_t i = 0; i < nvar; i++) {
    const char *vname = kiln_symbol_name(variants[i]);
    const kiln_attr *target = sz_attr(variants[i], "target", KILN_ATTR_STRING);
    if (!vname || !target)
      return kiln_error_new("executable @%s: a variant lacks sym_name or target", name);
    const kiln_session_payload_t *p = kiln_session_payload(z->s, name, vname);
    if (!p)
      return kiln_error_new("executable @%s variant @%s has no payload (the codegen stage produces it)",
                            name, vname);
    kiln_error *err = sz_target(target->str, p, &vars[i], bufs[i][0], bufs[i][1], bufs[i][2],
                                sizeof bufs[i][0]);
    if (err) {
      free(launch);
      return err;
    }
    vars[i].name = vname;
    vars[i].format = p->format == KILN_PAYLOAD_PTX ? kiln_fb_PayloadFormat_PTX
                                                   : kiln_fb_PayloadFormat_ELF;
    vars[i].payload = p->data;
    vars[i].payload_size = p->size;
    vars[i].llvm_version = p->llvm_version[0] ? p->llvm_version : NULL;
    if (strcmp(vars[i].target, "cuda") != 0 || !nexp) continue;
    if (!launch && !(launch = calloc((size_t)nvar * nexp, sizeof *launch)))
      return kiln_error_new("out of memory");
    if ((err = sz_variant_launch(variants[i], name, exports, nexp, launch + (size_t)i * nexp))) {
      free(launch);
      return err;
    }
    vars[i].export_count = nexp;
    vars[i].exports = launch + (size_t)i * nexp;
  }
  const kiln_module_executable_desc_t d = {name, nexp, exports, nvar, vars};
  kiln_module_builder_add_executable(z->b, &d);
  free(launch);
  return NULL;
}

/* Module-level hal.rodata ops {index, value = dense<...>} (constants the
 * hal stage kept in the IR), as rodata entries 0..n-1 in index order. */
static kiln_error *sz_ir_rodata(sz *z, kiln_block *body, uint32_t *total) {
  uint32_t n = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (sz_named(op, "hal.rodata")) n++;
  *total = n;
  for (uint32_t want = 0; want < n; want++) {
    kiln_op *found = NULL;
    for (kiln_op *op = body->first; op; op = op->next)
      if (sz_named(op, "hal.rodata") && sz_int(op, "index", -1) == (int64_t)want) {
        if (found)
          return kiln_error_new("hal.rodata index %u is used twice (@%s and @%s)", want,
                                kiln_symbol_name(found), kiln_symbol_name(op));
        found = op;
      }
    if (!found)
      return kiln_error_new("hal.rodata indices must be 0..%u; %u is missing", n - 1, want);
    const kiln_attr *v = sz_attr(found, "value", KILN_ATTR_DENSE);
    const char *name = kiln_symbol_name(found);
    if (!v || !name) return kiln_error_new("hal.rodata %u needs a sym_name and a dense value", want);
    const size_t esize = kiln_dense_elem_size(v->type->elem);
    const int64_t count = kiln_type_num_elements(v->type);
    if (count < 0 || !esize) return kiln_error_new("hal.rodata @%s: not a static dense value", name);
    if (!v->splat) {
      if (v->nbytes != (size_t)count * esize)
        return kiln_error_new("hal.rodata @%s: %zu bytes for %lld elements", name, v->nbytes,
                              (long long)count);
      kiln_module_builder_add_rodata_borrowed(z->b, name, v->data, v->nbytes, 64);
      continue;
    }
    /* A splat is stored whole: kernels read it like any other tensor. */
    uint8_t *full = malloc((size_t)count * esize + 1);
    if (!full) return kiln_error_new("out of memory expanding hal.rodata @%s", name);
    for (int64_t i = 0; i < count; i++) memcpy(full + (size_t)i * esize, v->data, esize);
    kiln_module_builder_add_rodata(z->b, name, full, (uint64_t)count * esize, 64);
    free(full);
  }
  return NULL;
}

/* The session's --bundle-io cases; the builder checks each against its
 * function's signature (finish reports a mismatch). */
static kiln_error *sz_bundled_cases(sz *z, kiln_block *body) {
  if (!z->s->bundled_case_count) return NULL;
  const char *only = NULL;
  uint32_t exported = 0;
  for (kiln_op *op = body->first; op; op = op->next)
    if (op->kind == KILN_OP_VM_FUNC) {
      const kiln_attr *vis = kiln_op_get_attr(op, "sym_visibility");
      if (vis && vis->kind == KILN_ATTR_STRING && strcmp(vis->str, "public") != 0) continue;
      only = kiln_symbol_name(op);
      exported++;
    }
  for (uint32_t i = 0; i < z->s->bundled_case_count; i++) {
    kiln_module_bundled_case_desc_t c = z->s->bundled_cases[i];
    if (!c.function) {
      if (exported != 1)
        return kiln_error_new("--bundle-io: the module exports %u functions; check data "
                              "needs exactly one", exported);
      c.function = only;
    }
    kiln_module_builder_add_bundled_case(z->b, &c);
  }
  return NULL;
}

/* Everything but the writing: z->b holds the whole module, with every
 * weight borrowed (session rodata and hal.rodata values are not copied). */
static kiln_error *sz_collect(sz *z, kiln_op *module, kiln_session *session) {
  memset(z, 0, sizeof *z);
  z->s = session;
  z->module = module;
  z->b = kiln_module_builder_create();
  if (!z->b) return kiln_error_new("out of memory");
  kiln_vm_imports_t imports;
  memset(&imports, 0, sizeof imports);
  kiln_error *err = NULL;
  const kiln_attr *mname = kiln_op_get_attr(module, "sym_name");
  kiln_module_builder_set_name(z->b, mname && mname->kind == KILN_ATTR_STRING ? mname->str : "module");
  kiln_module_builder_set_producer(z->b, SZ_COMPILER_VERSION, session->flag_count,
                                   (const char *const *)session->flags);
  kiln_module_builder_set_provenance(z->b, kiln_source_revision(), session->input_name,
                                     session->input_sha256);
  kiln_module_builder_set_bytecode_version(z->b, KILN_VM_BYTECODE_VERSION);
  /* By default CPU kernels stay mappable (preparing them then
   * decompresses nothing) and only PTX is compressed. */
  const kiln_compression_t c = session->options.compression;
  kiln_module_builder_set_compression(z->b, c == KILN_COMPRESSION_NONE     ? KILN_MODULE_COMPRESS_NEVER
                                            : c == KILN_COMPRESSION_ALWAYS ? KILN_MODULE_COMPRESS_ALWAYS
                                                                           : KILN_MODULE_COMPRESS_PTX);
  kiln_block *body = kiln_module_body(module);
  uint32_t nfuncs = 0;
  for (kiln_op *op = body->first; op && !err; op = op->next) {
    if (op->kind == KILN_OP_VM_FUNC) {
      err = sz_function(z, op, &imports);
      nfuncs++;
    } else if (op->kind == KILN_OP_FUNC_FUNC && op->regions[0].first) {
      err = kiln_error_new("function @%s was not converted to the VM (run the vm stage)",
                           kiln_symbol_name(op));
    }
  }
  if (!err && !nfuncs) err = kiln_error_new("the module has no function to serialize");
  for (uint32_t i = 0; !err && i < imports.count; i++)
    kiln_module_builder_add_import(z->b, imports.names[i], imports.signatures[i]);
  uint32_t ir_rodata = 0;
  if (!err) err = sz_ir_rodata(z, body, &ir_rodata);
  if (!err && ir_rodata && session->rodata_count)
    err = kiln_error_new("rodata comes both from hal.rodata ops (%u) and from the session (%u); "
                         "their indices would collide", ir_rodata, session->rodata_count);
  for (uint32_t i = 0; !err && i < session->rodata_count; i++) {
    const kiln_session_rodata_t *r = &session->rodata[i];
    kiln_module_builder_add_rodata_borrowed(z->b, r->name, r->data, r->size, r->alignment);
  }
  for (kiln_op *op = body->first; op && !err; op = op->next)
    if (sz_named(op, "hal.executable")) err = sz_executable(z, op);
  if (!err) err = sz_bundled_cases(z, body);
  kiln_vm_imports_free(&imports);
  return err;
}

static void sz_free(sz *z) {
  kiln_module_builder_destroy(z->b);
  free(z->files);
}

kiln_error *kiln_serialize_module(kiln_op *module, kiln_session *session,
                                  uint8_t **data, size_t *size) {
  sz z;
  kiln_error *err = sz_collect(&z, module, session);
  kiln_format_error_t ferr;
  if (!err && !kiln_module_builder_finish(z.b, data, size, &ferr))
    err = kiln_error_new("writing the module: %s", ferr.message);
  sz_free(&z);
  return err;
}

kiln_error *kiln_serialize_module_to_fd(kiln_op *module, kiln_session *session, int fd) {
  sz z;
  kiln_error *err = sz_collect(&z, module, session);
  kiln_format_error_t ferr;
  if (!err && !kiln_module_builder_write_fd(z.b, fd, &ferr))
    err = kiln_error_new("writing the module: %s", ferr.message);
  sz_free(&z);
  return err;
}

kiln_error *kiln_serialize_module_to_file(kiln_op *module, kiln_session *session,
                                          const char *path) {
  sz z;
  kiln_error *err = sz_collect(&z, module, session);
  kiln_format_error_t ferr;
  if (!err && !kiln_module_builder_write_file(z.b, path, &ferr))
    err = kiln_error_new("writing the module to '%s': %s", path, ferr.message);
  sz_free(&z);
  return err;
}

kiln_error *kiln_serialize_to_file(kiln_op *module, kiln_session *session,
                                   const char *path) {
  return kiln_serialize_module_to_file(module, session, path);
}
