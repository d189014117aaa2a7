/* Version conversion: a node written against an older operator version,
 * rewritten into the newest form before its import function sees it, by
 * the steps of its row's form (onnx_forms.def).
 *
 * Takes: a node whose inputs are resolved, and the form of the table row
 * its opset bound it to. Guarantees: on success the node the import
 * function receives is the newest form of the same computation: a copy of
 * the NodeProto (the model is not touched) whose attribute list and
 * inputs are rewritten (attributes that became inputs are constant
 * inputs, attributes added later carry the old behaviour or are refused
 * when present, a removed attribute is dropped when it has the meaning
 * that was kept, and for a meaning no newer version has, BatchNorm-7's
 * spatial = 0, the conversion imports the node itself and sets u->done);
 * oi_upgrade_outputs then maps the outputs back where the old form's
 * outputs differ (Softmax's 2-D view, Dropout-7's mask type).
 * Every refusal names the attribute and the opset. */
#include <stdio.h>
#include <string.h>

#include "import_internal.h"

static const oi_step oi_step_lists[][6] = {
#define OI_FORM(ID, ...) {__VA_ARGS__, OI_END},
#include "onnx_forms.def"
#undef OI_FORM
};

/* ---- a private copy of the node to rewrite ---- */
static bool own_node(oi_ctx *c, oi_node *n, oi_upgrade *u) {
  if (u->copy) return true;
  Onnx__NodeProto *p = kiln_alloc(c->ctx, sizeof *p);
  *p = *n->proto;
  size_t na = p->n_attribute, ni = n->nin;
  p->attribute = kiln_alloc(c->ctx, (na + 8) * sizeof *p->attribute);
  if (na) memcpy(p->attribute, n->proto->attribute, na * sizeof *p->attribute);
  p->input = kiln_alloc(c->ctx, (ni + 8) * sizeof *p->input);
  if (ni) memcpy(p->input, n->proto->input, ni * sizeof *p->input);
  oi_val **in = kiln_alloc(c->ctx, (ni + 8) * sizeof *in);
  if (ni) memcpy(in, n->in, ni * sizeof *in);
  n->in = in;
  n->proto = p;
  u->copy = p;
  return true;
}

static void drop_attr(Onnx__NodeProto *p, const char *name) {
  for (size_t i = 0; i < p->n_attribute; i++)
    if (strcmp(p->attribute[i]->name, name) == 0) {
      memmove(&p->attribute[i], &p->attribute[i + 1], (p->n_attribute - i - 1) * sizeof *p->attribute);
      p->n_attribute--;
      return;
    }
}

static Onnx__AttributeProto *new_attr(oi_ctx *c, oi_upgrade *u, const char *name) {
  drop_attr(u->copy, name);
  Onnx__AttributeProto init = ONNX__ATTRIBUTE_PROTO__INIT;
  Onnx__AttributeProto *a = kiln_alloc(c->ctx, sizeof *a);
  *a = init;
  a->name = (char *)name;
  u->copy->attribute[u->copy->n_attribute++] = a;
  return a;
}

void oi_set_attr_string(oi_ctx *c, oi_node *n, oi_upgrade *u, const char *name, const char *v) {
  own_node(c, n, u);
  Onnx__AttributeProto *a = new_attr(c, u, name);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
  a->s.data = (uint8_t *)v;
  a->s.len = strlen(v);
}

void oi_set_attr_int(oi_ctx *c, oi_node *n, oi_upgrade *u, const char *name, int64_t v) {
  own_node(c, n, u);
  Onnx__AttributeProto *a = new_attr(c, u, name);
  a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
  a->i = v;
}

/* Input position i becomes V (NULL: omitted), the inputs from i on move
 * one place right. */
static void insert_input(oi_ctx *c, oi_node *n, oi_upgrade *u, size_t i, oi_val *v, const char *name) {
  own_node(c, n, u);
  Onnx__NodeProto *p = u->copy;
  while (n->nin < i) { /* omitted inputs up to i */
    p->input[n->nin] = "";
    n->in[n->nin++] = NULL;
  }
  memmove(&p->input[i + 1], &p->input[i], (n->nin - i) * sizeof *p->input);
  memmove(&n->in[i + 1], &n->in[i], (n->nin - i) * sizeof *n->in);
  p->input[i] = v ? (char *)name : "";
  n->in[i] = v;
  n->nin++;
  p->n_input = n->nin;
}

/* ---- attributes that became inputs ---- */
static oi_val *attr_const(oi_ctx *c, oi_node *n, const Onnx__AttributeProto *a, const oi_step *s) {
  const kiln_type *i64 = kiln_type_int(c->ctx, 64);
  int32_t di64 = ONNX__TENSOR_PROTO__DATA_TYPE__INT64, df32 = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
  switch (s->as) {
  case OI_AS_INTS: {
    if (a && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS) {
      oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be a list of ints", s->attr);
      return NULL;
    }
    int64_t len = (int64_t)a->n_ints;
    const kiln_type *t = kiln_type_tensor(c->ctx, 1, &len, i64, NULL);
    oi_val *v = oi_val_new(c, s->attr, t, di64);
    v->cst = oi_dense_ints(c, t, a->ints);
    return v;
  }
  case OI_AS_INT_1D: {
    if (a && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
      oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be an int", s->attr);
      return NULL;
    }
    int64_t one = 1;
    const kiln_type *t = kiln_type_tensor(c->ctx, 1, &one, i64, NULL);
    oi_val *v = oi_val_new(c, s->attr, t, di64);
    v->cst = oi_dense_ints(c, t, &a->i);
    return v;
  }
  case OI_AS_FLOATS: {
    if (a && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS) {
      oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be a list of floats", s->attr);
      return NULL;
    }
    int64_t len = (int64_t)a->n_floats;
    const kiln_type *t = kiln_type_tensor(c->ctx, 1, &len, kiln_type_f32(c->ctx), NULL);
    double *d = kiln_alloc(c->ctx, ((size_t)len + 1) * sizeof *d);
    for (int64_t k = 0; k < len; k++) d[k] = a->floats[k];
    oi_val *v = oi_val_new(c, s->attr, t, df32);
    v->cst = oi_dense_floats(c, t, d);
    return v;
  }
  default: { /* one float: f32 or input 0's type */
    if (a && a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT) {
      oi_fail(c, KILN_ONNX_ERR_ATTRIBUTE, "attribute '%s' must be a float", s->attr);
      return NULL;
    }
    double f = a ? a->f : s->f;
    int32_t dt = df32;
    if (s->as == OI_AS_X_SCALAR) {
      oi_val *x = oi_in(c, n, 0);
      if (!x) return NULL;
      dt = x->dtype;
    }
    const kiln_type *t = kiln_type_tensor(c->ctx, 0, NULL, oi_elem_type(c, dt), NULL);
    oi_val *v = oi_val_new(c, s->attr, t, dt);
    if (oi_dtype_is_float(dt)) {
      v->cst = oi_dense_floats(c, t, &f);
    } else { /* Pad-2's value on integer data */
      int64_t i = (int64_t)f;
      v->cst = oi_dense_ints(c, t, &i);
    }
    return v;
  }
  }
}

static bool to_input(oi_ctx *c, oi_node *n, oi_upgrade *u, const oi_step *s) {
  const Onnx__AttributeProto *a = oi_attr(n, s->attr);
  if (!a && !s->has_default) return true; /* stays omitted */
  if ((size_t)s->pos < n->nin && n->in[s->pos])
    return oi_invalid(c, "input %d is given, but in this version '%s' is an attribute", s->pos, s->attr);
  oi_val *v = attr_const(c, n, a, s);
  if (!v) return false;
  own_node(c, n, u);
  drop_attr(u->copy, s->attr);
  if ((size_t)s->pos < n->nin) {
    u->copy->input[s->pos] = (char *)s->attr;
    n->in[s->pos] = v;
  } else {
    insert_input(c, n, u, (size_t)s->pos, v, s->attr);
  }
  return true;
}

/* ---- the Softmax family before 13: a 2-D view at axis ---- */
static bool coerce_2d(oi_ctx *c, oi_node *n, oi_upgrade *u, const oi_step *s) {
  oi_val *x = oi_in(c, n, 0);
  if (!x) return false;
  int64_t axis;
  if (!oi_attr_int(c, n, "axis", s->i, &axis)) return false;
  uint32_t r = x->type->rank, ax;
  if (r == 0) return oi_invalid(c, "input 0 is a scalar");
  if (!oi_axis(c, axis, r, "axis", &ax)) return false;
  if (ax + 1 == r) { /* the 2-D view changes nothing: one axis, the last */
    oi_set_attr_int(c, n, u, "axis", -1);
    return true;
  }
  int64_t s2[2] = {1, 1};
  for (uint32_t d = 0; d < r; d++) s2[d < ax ? 0 : 1] *= x->type->shape[d];
  kiln_value *v = oi_ir(c, x);
  if (!v) return false;
  oi_val *x2 = oi_val_new(c, x->name, oi_tensor_type(c, 2, s2, x->dtype), x->dtype);
  x2->v = oi_reshape(c, v, 2, s2);
  own_node(c, n, u);
  n->in[0] = x2;
  oi_set_attr_int(c, n, u, "axis", 1);
  u->reshape_out0 = x->type;
  return true;
}

/* ---- Resize-10 / Upsample: the nearest pixel of the old definition ---- */
static bool upsample_nearest(oi_ctx *c, oi_node *n, oi_upgrade *u) {
  const char *mode;
  if (!oi_attr_string(c, n, "mode", "nearest", &mode)) return false;
  if (strcmp(mode, "nearest") != 0) return true;
  oi_val *sv = n->nin > 2 ? n->in[2] : NULL;
  double *sc;
  int64_t cnt;
  if (!sv) return oi_invalid(c, "scales are required");
  /* scales from data: the kernel picks the direction per dim at run time
   * (oi_import_resize, no nearest_mode set) */
  if (!oi_const(c, sv) && sv->dtype == ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT) return true;
  if (!oi_const_floats(c, sv, "scales", &sc, &cnt)) return false;
  bool up = false, down = false;
  for (int64_t i = 0; i < cnt; i++) up = up || sc[i] > 1, down = down || sc[i] < 1;
  if (up && down)
    return oi_unsupported(c, "nearest mode with scales above and below 1 (this version rounds "
                             "per direction)");
  oi_set_attr_string(c, n, u, "nearest_mode", down ? "ceil" : "floor");
  return true;
}

/* ---- BatchNormalization before 14: statistics outputs mean training ---- */
static bool training_outputs(oi_ctx *c, oi_node *n, oi_upgrade *u) {
  bool train = false;
  for (size_t i = 1; i < n->nout; i++) train = train || oi_has_out(n, i);
  if (!train) return true;
  if (oi_has_out(n, 3) || oi_has_out(n, 4))
    return oi_unsupported(c, "outputs saved_mean / saved_var (training internals of this version)");
  oi_set_attr_int(c, n, u, "training_mode", 1);
  own_node(c, n, u);
  u->copy->n_output = n->nout < 3 ? n->nout : 3;
  u->nout_old = n->nout;
  n->nout = u->copy->n_output;
  return true;
}

/* Steps that compute sizes from the input's static shape (2-D views,
 * element counts, per-activation statistics, scales): a run-time dim, the
 * unknown-dim marker, would overflow them, so such inputs are refused. */
static bool sizes_from_shape(int kind) {
  return kind == OI_STEP_COERCE_2D || kind == OI_STEP_EMPTY_ABSENT || kind == OI_STEP_TRAINING_OUTPUTS ||
         kind == OI_STEP_UPSAMPLE_NEAREST || kind == OI_STEP_BN_SPATIAL;
}

bool oi_upgrade_node(oi_ctx *c, oi_node *n, int form, oi_upgrade *u) {
  memset(u, 0, sizeof *u);
  for (const oi_step *s = oi_step_lists[form]; s->kind != OI_STEP_END; s++)
    if (sizes_from_shape(s->kind)) {
      char why[160];
      snprintf(why, sizeof why, "this version of %s converts by static sizes", n->op_type);
      if (!oi_refuse_dyn_inputs(c, n, why)) return false;
      break;
    }
  for (const oi_step *s = oi_step_lists[form]; s->kind != OI_STEP_END; s++) {
    const Onnx__AttributeProto *a = s->attr ? oi_attr(n, s->attr) : NULL;
    switch (s->kind) {
    case OI_STEP_TO_INPUT:
      if (!to_input(c, n, u, s)) return false;
      break;
    case OI_STEP_NEW_ATTR:
      if (a) return oi_invalid(c, "attribute '%s' does not exist in this version of %s", s->attr, n->op_type);
      if (s->str) oi_set_attr_string(c, n, u, s->attr, s->str);
      break;
    case OI_STEP_INSERT_INPUT:
      if ((size_t)s->pos <= n->nin) insert_input(c, n, u, (size_t)s->pos, NULL, "");
      break;
    case OI_STEP_EMPTY_ABSENT:
      if ((size_t)s->pos < n->nin && n->in[s->pos] && oi_numel(n->in[s->pos]->type) == 0) {
        own_node(c, n, u);
        n->in[s->pos] = NULL;
        u->copy->input[s->pos] = "";
      }
      break;
    case OI_STEP_COERCE_2D:
      if (!coerce_2d(c, n, u, s)) return false;
      break;
    case OI_STEP_OUT_LIKE_X:
      u->out_like_x = s->pos;
      break;
    case OI_STEP_TRAINING_OUTPUTS:
      if (!training_outputs(c, n, u)) return false;
      break;
    case OI_STEP_UPSAMPLE_NEAREST:
      if (!upsample_nearest(c, n, u)) return false;
      break;
    case OI_STEP_BN_SPATIAL: {
      int64_t sp;
      if (!oi_attr_int(c, n, "spatial", 1, &sp)) return false;
      if (sp == 0) { /* per activation: no newer form has it */
        u->done = true;
        return oi_batchnorm_per_activation(c, n);
      }
      if (a) {
        own_node(c, n, u);
        drop_attr(u->copy, "spatial");
      }
      break;
    }
    default: break;
    }
  }
  return true;
}

bool oi_upgrade_outputs(oi_ctx *c, oi_node *n, oi_upgrade *u) {
  if (u->reshape_out0 && n->out[0]) {
    const kiln_type *t = u->reshape_out0;
    kiln_value *v = oi_ir(c, n->out[0]);
    if (!v) return false;
    oi_set_out(c, n, 0, oi_reshape(c, v, t->rank, t->shape), n->out[0]->dtype);
  }
  if (u->out_like_x && (size_t)u->out_like_x < n->nout && n->out[u->out_like_x]) {
    oi_val *m = n->out[u->out_like_x];
    int32_t to = n->in[0]->dtype;
    kiln_value *v = oi_ir(c, m);
    if (!v) return false;
    oi_set_out(c, n, (size_t)u->out_like_x, oi_cast_tensor(c, v, m->dtype, to), to);
  }
  if (u->nout_old) n->nout = u->nout_old;
  return true;
}
