/* Node attributes with their expected ONNX attribute types.
 *
 * Takes: a node. Guarantees: an attribute present with the wrong type, or
 * one the operator does not know, is an error naming it; absent ones give
 * the caller's default. */
#include <string.h>

#include "import_internal.h"

const Onnx__AttributeProto *oi_attr(const oi_node *n, const char *name) {
  for (size_t i = 0; i < n->proto->n_attribute; i++)
    if (strcmp(n->proto->attribute[i]->name, name) == 0) return n->proto->attribute[i];
  return NULL;
}

static bool want(oi_ctx *c, const Onnx__AttributeProto *a, Onnx__AttributeProto__AttributeType t,
                 const char *tname) {
  if (a->type == t) return true;
  return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be %s", a->name, tname);
}

bool oi_attr_int(oi_ctx *c, const oi_node *n, const char *name, int64_t def, int64_t *out) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  *out = def;
  if (!a) return true;
  if (!want(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, "an int")) return false;
  *out = a->i;
  return true;
}

bool oi_attr_float(oi_ctx *c, const oi_node *n, const char *name, double def, double *out) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  *out = def;
  if (!a) return true;
  if (!want(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, "a float")) return false;
  *out = a->f;
  return true;
}

bool oi_attr_ints(oi_ctx *c, const oi_node *n, const char *name, const int64_t **out,
                  size_t *count) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  *out = NULL;
  *count = 0;
  if (!a) return true;
  if (!want(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, "a list of ints")) return false;
  *out = a->ints;
  *count = a->n_ints;
  return true;
}

bool oi_attr_floats(oi_ctx *c, const oi_node *n, const char *name, const float **out,
                    size_t *count) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  *out = NULL;
  *count = 0;
  if (!a) return true;
  if (!want(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, "a list of floats"))
    return false;
  *out = a->floats;
  *count = a->n_floats;
  return true;
}

bool oi_attr_string(oi_ctx *c, const oi_node *n, const char *name, const char *def,
                    const char **out) {
  const Onnx__AttributeProto *a = oi_attr(n, name);
  *out = def;
  if (!a) return true;
  if (!want(c, a, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, "a string")) return false;
  if (a->s.len && memchr(a->s.data, 0, a->s.len))
    return oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' holds a NUL byte", name);
  char *s = kiln_alloc(c->ctx, a->s.len + 1);
  if (a->s.len) memcpy(s, a->s.data, a->s.len);
  *out = s;
  return true;
}

bool oi_attrs_only(oi_ctx *c, const oi_node *n, const char *const *known) {
  for (size_t i = 0; i < n->proto->n_attribute; i++) {
    const char *nm = n->proto->attribute[i]->name;
    bool ok = false;
    for (const char *const *k = known; *k && !ok; k++) ok = strcmp(*k, nm) == 0;
    if (!ok) return oi_unsupported(c, "attribute '%s' is not supported", nm);
  }
  return true;
}

bool oi_axis(oi_ctx *c, int64_t axis, uint32_t rank, const char *what, uint32_t *out) {
  int64_t a = axis < 0 ? axis + (int64_t)rank : axis;
  if (a < 0 || a >= (int64_t)rank)
    return oi_invalid(c, "%s %lld is out of range for rank %u", what, (long long)axis, rank);
  *out = (uint32_t)a;
  return true;
}
