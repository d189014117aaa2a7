/* Helpers shared by kiln-dump's printers: type spelling, target naming,
 * JSON string escaping, the size breakdown by category and telling
 * dispatch sites apart. */
#include <inttypes.h>
#include <string.h>

#include "dump.h"
#include "kiln/vm_bytecode.h"

void kdump_variant_target(kiln_fb_ExecutableVariant_t v, char *out, size_t cap) {
  kiln_fb_string_t target = kiln_fb_ExecutableVariant_target(v);
  uint32_t sm = kiln_fb_ExecutableVariant_sm_version(v);
  if (sm)
    snprintf(out, cap, "%s:sm_%" PRIu32, target.data, sm);
  else if (kiln_fb_ExecutableVariant_arch(v).size)
    snprintf(out, cap, "%s:%s", target.data, kiln_fb_ExecutableVariant_arch(v).data);
  else
    snprintf(out, cap, "%s", target.data);
}

void kdump_tensor_type(kiln_fb_TensorType_t t, char *out, size_t cap) {
  size_t n = 0;
  const bool seq = kiln_fb_TensorType_sequence(t); /* "seq<tensor<?xf32>>" */
  int w = snprintf(out, cap, "%stensor<", seq ? "seq<" : "");
  if (w > 0) n += (size_t)w;
  uint32_t rank = kiln_fb_TensorType_dims_count(t);
  if (seq && kiln_fb_TensorType_unranked(t) && n < cap) { /* "seq<tensor<*xf32>>": any rank */
    w = snprintf(out + n, cap - n, "*x");
    if (w > 0) n += (size_t)w;
    rank = 0;
  }
  for (uint32_t i = 0; i < rank && n < cap; i++) {
    int64_t d = kiln_fb_TensorType_dims_at(t, i);
    w = d < 0 ? snprintf(out + n, cap - n, "?x")
              : snprintf(out + n, cap - n, "%" PRId64 "x", d);
    if (w > 0) n += (size_t)w;
  }
  if (n < cap)
    snprintf(out + n, cap - n, "%s>%s",
             kiln_module_element_type_name(kiln_fb_TensorType_element_type(t)),
             seq ? ">" : "");
}

void kdump_json_string(FILE *out, const char *s, size_t n) {
  fputc('"', out);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static kdump_size_row *kdump_row(kdump_size_row *rows, unsigned *n,
                                 const char *label) {
  for (unsigned i = 0; i < *n; i++)
    if (strcmp(rows[i].label, label) == 0) return &rows[i];
  if (*n == KDUMP_MAX_ROWS) label = "executables: other targets";
  for (unsigned i = 0; i < *n; i++)
    if (strcmp(rows[i].label, label) == 0) return &rows[i];
  if (*n == KDUMP_MAX_ROWS) return &rows[*n - 1];
  kdump_size_row *r = &rows[(*n)++];
  snprintf(r->label, sizeof r->label, "%s", label);
  r->bytes = 0;
  return r;
}

/* Whether a variant before variant v of executable e refers to segment
 * seg (kiln-compile links a target's kernels into one shared object that
 * all its executables' variants share): its bytes count once. */
static bool kdump_segment_seen(kiln_fb_Module_t r, uint32_t e, uint32_t v, uint32_t seg) {
  for (uint32_t i = 0; i <= e; i++) {
    kiln_fb_Executable_t x = kiln_fb_Module_executables_at(r, i);
    const uint32_t n = i < e ? kiln_fb_Executable_variants_count(x) : v;
    for (uint32_t k = 0; k < n; k++)
      if (kiln_fb_ExecutableVariant_segment(kiln_fb_Executable_variants_at(x, k)) == seg)
        return true;
  }
  return false;
}

unsigned kdump_size_breakdown(const kiln_module_view_t *m, kdump_size_row *rows) {
  unsigned n = 0;
  uint64_t used = m->flatbuffer_size;
  kdump_row(rows, &n, "flatbuffer")->bytes = m->flatbuffer_size;
  kdump_row(rows, &n, "  of which bytecode")->bytes =
      kiln_fb_Module_bytecode_count(m->root);
  kdump_row(rows, &n, "rodata")->bytes = 0;
  kiln_fb_Module_t r = m->root;
  for (uint32_t i = 0; i < kiln_fb_Module_rodata_count(r); i++) {
    uint64_t size;
    kiln_module_segment_data(m, kiln_fb_Rodata_segment(kiln_fb_Module_rodata_at(r, i)), &size);
    kdump_row(rows, &n, "rodata")->bytes += size;
    used += size;
  }
  for (uint32_t i = 0; i < kiln_fb_Module_executables_count(r); i++) {
    kiln_fb_Executable_t e = kiln_fb_Module_executables_at(r, i);
    for (uint32_t v = 0; v < kiln_fb_Executable_variants_count(e); v++) {
      kiln_fb_ExecutableVariant_t var = kiln_fb_Executable_variants_at(e, v);
      char target[64], label[96];
      kdump_variant_target(var, target, sizeof target);
      snprintf(label, sizeof label, "executables %s", target);
      uint64_t size;
      const uint32_t seg = kiln_fb_ExecutableVariant_segment(var);
      if (kdump_segment_seen(r, i, v, seg)) continue;
      kiln_module_segment_data(m, seg, &size);
      kdump_row(rows, &n, label)->bytes += size;
      used += size;
    }
  }
  /* Segments nobody refers to end up here; the verifier allows them. */
  kdump_row(rows, &n, "padding and unreferenced")->bytes =
      m->file_size > used ? m->file_size - used : 0;
  return n;
}

bool kdump_is_dispatch(const kiln_module_view_t *m, uint32_t fn, uint32_t pc) {
  uint32_t size;
  const uint8_t *code = kiln_module_function_bytecode(m, fn, &size);
  if (!code || pc >= size || size - pc < 3 || code[pc] != KILN_VM_OP_CALL_IMPORT) return false;
  const uint32_t ord = (uint32_t)code[pc + 1] | (uint32_t)code[pc + 2] << 8;
  if (ord >= kiln_fb_Module_imports_count(m->root)) return false;
  kiln_fb_string_t name = kiln_fb_Import_name(kiln_fb_Module_imports_at(m->root, ord));
  return name.size == strlen("hal.command_buffer.dispatch") &&
         memcmp(name.data, "hal.command_buffer.dispatch", name.size) == 0;
}
