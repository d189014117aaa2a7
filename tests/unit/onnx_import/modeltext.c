/* The model-text builder of modeltext.h: parses the statements into
 * protobuf-c structs (onnx-ml.pb-c.h) and packs them. All memory comes
 * from one bump buffer reset per call. */
#include "modeltext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx/onnx-ml.pb-c.h"

static char heap[1 << 20];
static size_t used;

static void *A(size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (used + n > sizeof heap) abort();
  void *p = heap + used;
  memset(p, 0, n);
  used += n;
  return p;
}

static char *dup(const char *s, size_t n) {
  char *d = A(n + 1);
  memcpy(d, s, n);
  return d;
}

/* Splits s by any of seps into at most max pieces (no empty pieces). */
static size_t split(char *s, const char *seps, char **out, size_t max) {
  size_t n = 0;
  for (char *t = strtok(s, seps); t && n < max; t = strtok(NULL, seps)) out[n++] = t;
  return n;
}

static int dtype(const char *s) {
  static const struct { const char *n; int v; } t[] = {
      {"f32", 1}, {"u8", 2}, {"i8", 3}, {"i32", 6}, {"i64", 7}, {"string", 8},
      {"bool", 9}, {"f16", 10}, {"f64", 11}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (strcmp(t[i].n, s) == 0) return t[i].v;
  abort();
}

static Onnx__ValueInfoProto *value_info(const char *name, const char *type, const char *dims) {
  Onnx__ValueInfoProto *vi = A(sizeof *vi);
  onnx__value_info_proto__init(vi);
  vi->name = dup(name, strlen(name));
  if (!type) return vi;
  Onnx__TypeProto *tp = A(sizeof *tp);
  onnx__type_proto__init(tp);
  Onnx__TypeProto__Tensor *tt = A(sizeof *tt);
  onnx__type_proto__tensor__init(tt);
  tt->has_elem_type = 1;
  tt->elem_type = dtype(type);
  Onnx__TensorShapeProto *sh = A(sizeof *sh);
  onnx__tensor_shape_proto__init(sh);
  char buf[256], *d[16];
  snprintf(buf, sizeof buf, "%s", dims);
  size_t nd = strcmp(dims, "-") == 0 ? 0 : split(buf, ",", d, 16);
  sh->n_dim = nd;
  sh->dim = A((nd + 1) * sizeof *sh->dim);
  for (size_t i = 0; i < nd; i++) {
    Onnx__TensorShapeProto__Dimension *dm = A(sizeof *dm);
    onnx__tensor_shape_proto__dimension__init(dm);
    char *end;
    long long v = strtoll(d[i], &end, 10);
    if (*end) {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
      dm->dim_param = dup(d[i], strlen(d[i]));
    } else {
      dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
      dm->dim_value = v;
    }
    sh->dim[i] = dm;
  }
  tt->shape = sh;
  tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
  tp->tensor_type = tt;
  vi->type = tp;
  return vi;
}

static Onnx__TensorProto *tensor(const char *name, const char *type, const char *dims, const char *vals) {
  Onnx__TensorProto *t = A(sizeof *t);
  onnx__tensor_proto__init(t);
  t->name = dup(name, strlen(name));
  t->has_data_type = 1;
  t->data_type = dtype(type);
  char buf[256], *d[16], vb[4096], *v[1024];
  snprintf(buf, sizeof buf, "%s", dims);
  size_t nd = strcmp(dims, "-") == 0 ? 0 : split(buf, ",", d, 16);
  t->n_dims = nd;
  t->dims = A((nd + 1) * sizeof *t->dims);
  for (size_t i = 0; i < nd; i++) t->dims[i] = strtoll(d[i], NULL, 10);
  snprintf(vb, sizeof vb, "%s", vals);
  size_t nv = split(vb, ",", v, 1024);
  if (t->data_type == 1) {
    t->n_float_data = nv;
    t->float_data = A((nv + 1) * sizeof(float));
    for (size_t i = 0; i < nv; i++) t->float_data[i] = strtof(v[i], NULL);
  } else if (t->data_type == 11) {
    t->n_double_data = nv;
    t->double_data = A((nv + 1) * sizeof(double));
    for (size_t i = 0; i < nv; i++) t->double_data[i] = strtod(v[i], NULL);
  } else if (t->data_type == 7) {
    t->n_int64_data = nv;
    t->int64_data = A((nv + 1) * sizeof(int64_t));
    for (size_t i = 0; i < nv; i++) t->int64_data[i] = strtoll(v[i], NULL, 10);
  } else {
    t->n_int32_data = nv;
    t->int32_data = A((nv + 1) * sizeof(int32_t));
    for (size_t i = 0; i < nv; i++) t->int32_data[i] = (int32_t)strtol(v[i], NULL, 10);
  }
  return t;
}

static Onnx__AttributeProto *attribute(char *spec) {
  Onnx__AttributeProto *a = A(sizeof *a);
  onnx__attribute_proto__init(a);
  char *eq = strchr(spec, '='), *colon = eq ? strchr(eq, ':') : NULL;
  if (!eq || !colon) abort();
  a->name = dup(spec, (size_t)(eq - spec));
  char *kind = dup(eq + 1, (size_t)(colon - eq - 1)), *val = colon + 1;
  a->has_type = 1;
  char *v[256];
  if (strcmp(kind, "i") == 0) {
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT, a->has_i = 1, a->i = strtoll(val, NULL, 10);
  } else if (strcmp(kind, "f") == 0) {
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT, a->has_f = 1, a->f = strtof(val, NULL);
  } else if (strcmp(kind, "s") == 0) {
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING, a->has_s = 1;
    a->s.len = strlen(val);
    a->s.data = (uint8_t *)dup(val, a->s.len);
  } else if (strcmp(kind, "ints") == 0) {
    size_t n = split(val, ",", v, 256);
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS, a->n_ints = n;
    a->ints = A((n + 1) * sizeof *a->ints);
    for (size_t i = 0; i < n; i++) a->ints[i] = strtoll(v[i], NULL, 10);
  } else if (strcmp(kind, "floats") == 0) {
    size_t n = split(val, ",", v, 256);
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS, a->n_floats = n;
    a->floats = A((n + 1) * sizeof *a->floats);
    for (size_t i = 0; i < n; i++) a->floats[i] = strtof(v[i], NULL);
  } else if (strcmp(kind, "t") == 0) {
    a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    a->t = tensor("", "f32", "1", val);
  } else {
    abort();
  }
  return a;
}

uint8_t *modeltext_build(const char *text, size_t *len) {
  used = 0;
  Onnx__ModelProto *m = A(sizeof *m);
  onnx__model_proto__init(m);
  m->has_ir_version = 1, m->ir_version = 8;
  Onnx__GraphProto *g = A(sizeof *g);
  onnx__graph_proto__init(g);
  g->name = "g";
  m->graph = g;
  enum { MAX = 64 };
  g->input = A(MAX * sizeof *g->input);
  g->output = A(MAX * sizeof *g->output);
  g->initializer = A(MAX * sizeof *g->initializer);
  g->node = A(MAX * sizeof *g->node);
  m->opset_import = A(8 * sizeof *m->opset_import);
  Onnx__OperatorSetIdProto *def = A(sizeof *def);
  onnx__operator_set_id_proto__init(def);
  def->domain = "", def->has_version = 1, def->version = 13;
  m->opset_import[m->n_opset_import++] = def;
  const char *node_domain = NULL;
  char *all = dup(text, strlen(text)), *save = NULL;
  for (char *st = strtok_r(all, ";", &save); st; st = strtok_r(NULL, ";", &save)) {
    char *w[64];
    char *copy = dup(st, strlen(st));
    size_t n = 0;
    for (char *sv = NULL, *t = strtok_r(copy, " ", &sv); t && n < 64; t = strtok_r(NULL, " ", &sv)) w[n++] = t;
    if (n == 0) continue;
    if (strcmp(w[0], "opset") == 0) {
      def->version = strtoll(w[1], NULL, 10);
    } else if (strcmp(w[0], "domain") == 0) {
      Onnx__OperatorSetIdProto *o = A(sizeof *o);
      onnx__operator_set_id_proto__init(o);
      o->domain = w[1], o->has_version = 1, o->version = strtoll(w[2], NULL, 10);
      m->opset_import[m->n_opset_import++] = o;
    } else if (strcmp(w[0], "nodedomain") == 0) {
      node_domain = w[1];
    } else if (strcmp(w[0], "in") == 0) {
      g->input[g->n_input++] = value_info(w[1], w[2], w[3]);
    } else if (strcmp(w[0], "out") == 0) {
      g->output[g->n_output++] = value_info(w[1], n > 2 ? w[2] : NULL, n > 3 ? w[3] : "-");
    } else if (strcmp(w[0], "init") == 0) {
      g->initializer[g->n_initializer++] = tensor(w[1], w[2], w[3], n > 5 ? w[5] : "");
    } else if (strcmp(w[0], "node") == 0) {
      Onnx__NodeProto *nd = A(sizeof *nd);
      onnx__node_proto__init(nd);
      nd->op_type = w[1];
      nd->name = "n";
      if (node_domain) nd->domain = (char *)node_domain, node_domain = NULL;
      size_t k = 2;
      char *ins[16], *outs[16];
      size_t ni = 0, no = 0;
      if (strcmp(w[k], "->") != 0) ni = split(w[k++], ",", ins, 16);
      if (strcmp(w[k++], "->") != 0) abort();
      no = split(w[k++], ",", outs, 16);
      nd->n_input = ni, nd->n_output = no;
      nd->input = A((ni + 1) * sizeof(char *));
      nd->output = A((no + 1) * sizeof(char *));
      for (size_t i = 0; i < ni; i++) nd->input[i] = strcmp(ins[i], "_") == 0 ? "" : ins[i];
      for (size_t i = 0; i < no; i++) nd->output[i] = outs[i];
      nd->attribute = A((n + 1) * sizeof *nd->attribute);
      for (; k < n; k++) nd->attribute[nd->n_attribute++] = attribute(w[k]);
      g->node[g->n_node++] = nd;
    } else {
      abort();
    }
  }
  *len = onnx__model_proto__get_packed_size(m);
  uint8_t *out = malloc(*len + 1);
  if (!out) abort();
  onnx__model_proto__pack(m, out);
  return out;
}
