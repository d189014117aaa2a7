/* The public model object: decode (doc.c) + validate (validate.c), file
 * loading, opset lookup and tensor bytes. Takes bytes or a path; guarantees
 * *out is set only on success and freed by kiln_onnx_model_free. */
#include <stdlib.h>
#include <string.h>

#include "onnx_internal.h"

struct kiln_onnx_model {
  ox_doc doc;
};

static bool ox_model_decode(const void *bytes, size_t len,
                            const char *base_dir, bool borrow,
                            kiln_onnx_model **out, kiln_onnx_status *st) {
  ox_ok(st);
  *out = NULL;
  kiln_onnx_model *m = calloc(1, sizeof *m);
  if (!m) return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  if (!ox_doc_decode(&m->doc, bytes, len, base_dir,
                     &onnx__model_proto__descriptor, borrow, st)) {
    free(m);
    return false;
  }
  *out = m;
  return true;
}

bool kiln_onnx_model_decode(const void *bytes, size_t len,
                            const char *base_dir, kiln_onnx_model **out,
                            kiln_onnx_status *st) {
  return ox_model_decode(bytes, len, base_dir, false, out, st);
}

bool kiln_onnx_model_load_borrowed(const void *bytes, size_t len,
                                   kiln_onnx_model **out,
                                   kiln_onnx_status *st) {
  if (!ox_model_decode(bytes, len, NULL, true, out, st)) return false;
  if (kiln_onnx_model_validate(*out, st)) return true;
  kiln_onnx_model_free(*out);
  *out = NULL;
  return false;
}

bool kiln_onnx_model_validate(kiln_onnx_model *m, kiln_onnx_status *st) {
  ox_ok(st);
  return ox_validate_model(&m->doc, st);
}

bool kiln_onnx_model_load(const void *bytes, size_t len,
                          kiln_onnx_model **out, kiln_onnx_status *st) {
  if (!kiln_onnx_model_decode(bytes, len, NULL, out, st)) return false;
  if (kiln_onnx_model_validate(*out, st)) return true;
  kiln_onnx_model_free(*out);
  *out = NULL;
  return false;
}

bool kiln_onnx_model_decode_file(const char *path, kiln_onnx_model **out,
                                 kiln_onnx_status *st) {
  ox_ok(st);
  *out = NULL;
  const uint8_t *map;
  size_t len;
  if (!ox_map_file(path, &map, &len, st)) return false;
  char *dir = ox_dirname(path);
  kiln_onnx_model *m = dir ? calloc(1, sizeof *m) : NULL;
  bool ok = m ? ox_doc_decode_mapped(&m->doc, map, len, dir,
                                     &onnx__model_proto__descriptor, st)
              : ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory");
  free(dir);
  if (!ok) {
    free(m);
    ox_unmap_file(map, len);
    return false;
  }
  *out = m; /* the model now owns the mapping its raw_data points into */
  return true;
}

bool kiln_onnx_model_load_file(const char *path, kiln_onnx_model **out,
                               kiln_onnx_status *st) {
  if (!kiln_onnx_model_decode_file(path, out, st)) return false;
  if (kiln_onnx_model_validate(*out, st)) return true;
  kiln_onnx_model_free(*out);
  *out = NULL;
  return false;
}

void kiln_onnx_model_free(kiln_onnx_model *m) {
  if (!m) return;
  ox_doc_release(&m->doc);
  free(m);
}

const Onnx__ModelProto *kiln_onnx_model_proto(const kiln_onnx_model *m) {
  return (const Onnx__ModelProto *)m->doc.root;
}

static bool ox_is_default_domain(const char *d) {
  return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

int64_t kiln_onnx_model_opset(const kiln_onnx_model *m, const char *domain) {
  const Onnx__ModelProto *mp = kiln_onnx_model_proto(m);
  bool want_default = ox_is_default_domain(domain);
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    bool match = want_default ? ox_is_default_domain(o->domain)
                              : (o->domain && strcmp(o->domain, domain) == 0);
    if (match) return o->has_version ? o->version : -1;
  }
  return -1;
}

bool kiln_onnx_model_tensor_bytes(kiln_onnx_model *m,
                                  const Onnx__TensorProto *t,
                                  kiln_onnx_bytes *out,
                                  kiln_onnx_status *st) {
  ox_ok(st);
  return ox_tensor_bytes(&m->doc, t, out, st);
}
