/* Validation of a decoded ModelProto: what the importer relies on, checked
 * once, with messages that name the offending graph element.
 *
 * Takes a decoded model. Guarantees on success:
 * - ir_version is present and in 3..10; the model has a graph;
 * - opset_import names each domain once with a version; the default domain
 *   (""/"ai.onnx") is imported at a version in KILN_ONNX_OPSET_MIN..MAX
 *   (1..17; otherwise the error
 *   names the first node that would bind to it); every node's domain is
 *   imported;
 * - every graph (and every subgraph in a GRAPH/GRAPHS attribute) is in SSA
 *   form: graph inputs, initializers and node outputs are named once per
 *   scope, every node input is a graph input, initializer, or earlier node
 *   output of this graph or an enclosing one (so the node list is in
 *   topological order), and every graph output is defined;
 * - every node has an op_type, every attribute a name and a type, and
 *   their tensors, sparse tensors, graphs and types are well formed;
 * - every tensor passes ox_check_tensor (data type, dims, payload size,
 *   external reference), and graph input/output types have known element
 *   types and non-negative dims.
 * Recursion over subgraphs and types is bounded by the wire scan's nesting
 * limit, since each level is at least one message deeper. */
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"

typedef struct ox_vctx {
  ox_doc *doc;
  kiln_onnx_status *st;
  const Onnx__ModelProto *mp;
  ox_names *domains; /* imported domains, the default one as "ai.onnx" */
} ox_vctx;

static bool ox_default_domain(const char *d) {
  return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* The key a domain has in ox_vctx.domains. */
static const char *ox_domain_key(const char *d) {
  return ox_default_domain(d) ? "ai.onnx" : d;
}

/* "node 3 'name' (op Add)" or "node 3 (op Add)". */
static void ox_node_where(char *buf, size_t n, const char *prefix, size_t k,
                          const Onnx__NodeProto *node) {
  char q1[OX_QUOTE_MAX], q2[OX_QUOTE_MAX];
  const char *op = node->op_type ? node->op_type : "";
  if (node->name && *node->name)
    ox_fmt(buf, n, "%snode %zu %s (op %s)", prefix, k,
             ox_quote(q1, node->name), ox_quote(q2, op) );
  else
    ox_fmt(buf, n, "%snode %zu (op %s)", prefix, k, ox_quote(q2, op));
}

bool ox_check_type(const Onnx__TypeProto *type, const char *where,
                   unsigned depth, kiln_onnx_status *st) {
  if (depth > KILN_ONNX_MAX_DEPTH)
    return ox_fail(st, KILN_ONNX_ERR_DEPTH, "%s: type nested too deeply",
                   where);
  const Onnx__TensorShapeProto *shape = NULL;
  bool has_elem = false;
  int32_t elem = 0;
  switch (type->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    has_elem = type->tensor_type->has_elem_type;
    elem = type->tensor_type->elem_type;
    shape = type->tensor_type->shape;
    break;
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
    has_elem = type->sparse_tensor_type->has_elem_type;
    elem = type->sparse_tensor_type->elem_type;
    shape = type->sparse_tensor_type->shape;
    break;
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    if (!type->sequence_type->elem_type)
      return ox_fail(st, KILN_ONNX_ERR_TYPE,
                     "%s: sequence type without an element type", where);
    return ox_check_type(type->sequence_type->elem_type, where, depth + 1,
                         st);
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    if (!type->optional_type->elem_type)
      return ox_fail(st, KILN_ONNX_ERR_TYPE,
                     "%s: optional type without an element type", where);
    return ox_check_type(type->optional_type->elem_type, where, depth + 1,
                         st);
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE:
    if (!kiln_onnx_dtype_known(type->map_type->key_type))
      return ox_fail(st, KILN_ONNX_ERR_DTYPE,
                     "%s: map key has unknown data type %d", where,
                     (int)type->map_type->key_type);
    if (!type->map_type->value_type)
      return ox_fail(st, KILN_ONNX_ERR_TYPE,
                     "%s: map type without a value type", where);
    return ox_check_type(type->map_type->value_type, where, depth + 1, st);
  default:
    return true; /* opaque or unset: nothing the importer reads */
  }
  if (!has_elem || elem == 0)
    return ox_fail(st, KILN_ONNX_ERR_TYPE,
                   "%s: tensor type without an element type", where);
  if (!kiln_onnx_dtype_known(elem))
    return ox_fail(st, KILN_ONNX_ERR_DTYPE,
                   "%s: unknown element data type %d", where, (int)elem);
  if (shape)
    for (size_t i = 0; i < shape->n_dim; i++) {
      const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
          d->dim_value < 0)
        return ox_fail(st, KILN_ONNX_ERR_DIMS, "%s: dimension %zu is %lld",
                       where, i, (long long)d->dim_value);
    }
  return true;
}

static bool ox_check_graph(ox_vctx *c, const Onnx__GraphProto *g,
                           ox_names *parent, const char *prefix);

static bool ox_check_attribute(ox_vctx *c, const Onnx__AttributeProto *a,
                               ox_names *scope, const char *nwhere) {
  char q[OX_QUOTE_MAX], w[512];
  kiln_onnx_status *st = c->st;
  if (!a->name || !*a->name)
    return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: attribute without a name",
                   nwhere);
  ox_fmt(w, sizeof w, "%s attribute %s", nwhere, ox_quote(q, a->name));
  if (!a->has_type ||
      a->type == ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
    return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: no type", w);
  switch (a->type) {
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
    return true;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
    if (!a->t)
      return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: tensor missing", w);
    return ox_check_tensor(a->t, w, st);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSORS:
    for (size_t i = 0; i < a->n_tensors; i++)
      if (!ox_check_tensor(a->tensors[i], w, st)) return false;
    return true;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSOR:
    if (!a->sparse_tensor)
      return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: sparse tensor missing",
                     w);
    return ox_check_sparse(a->sparse_tensor, w, st);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__SPARSE_TENSORS:
    for (size_t i = 0; i < a->n_sparse_tensors; i++)
      if (!ox_check_sparse(a->sparse_tensors[i], w, st)) return false;
    return true;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
    if (!a->g)
      return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: graph missing", w);
    strncat(w, ": ", sizeof w - strlen(w) - 1);
    return ox_check_graph(c, a->g, scope, w);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPHS:
    strncat(w, ": ", sizeof w - strlen(w) - 1);
    for (size_t i = 0; i < a->n_graphs; i++)
      if (!ox_check_graph(c, a->graphs[i], scope, w)) return false;
    return true;
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTO:
    if (!a->tp)
      return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: type missing", w);
    return ox_check_type(a->tp, w, 0, st);
  case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TYPE_PROTOS:
    for (size_t i = 0; i < a->n_type_protos; i++)
      if (!ox_check_type(a->type_protos[i], w, 0, st)) return false;
    return true;
  default:
    return ox_fail(st, KILN_ONNX_ERR_ATTRIBUTE, "%s: unknown type %d", w,
                   (int)a->type);
  }
}

static bool ox_oom(kiln_onnx_status *st) {
  return ox_fail(st, KILN_ONNX_ERR_MEMORY, "out of memory while validating");
}

static bool ox_check_graph(ox_vctx *c, const Onnx__GraphProto *g,
                           ox_names *parent, const char *prefix) {
  kiln_onnx_status *st = c->st;
  char q[OX_QUOTE_MAX], w[512];
  ox_names *names = ox_names_new(&c->doc->arena, parent);
  ox_names *inits = ox_names_new(&c->doc->arena, NULL);
  if (!names || !inits) return ox_oom(st);

  for (size_t i = 0; i < g->n_input; i++) {
    const Onnx__ValueInfoProto *vi = g->input[i];
    if (!vi->name || !*vi->name)
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%sgraph input %zu has no name",
                     prefix, i);
    ox_fmt(w, sizeof w, "%sgraph input %zu %s", prefix, i,
             ox_quote(q, vi->name));
    if (ox_names_has_local(names, vi->name))
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%s: name used twice", w);
    if (!ox_names_add(names, vi->name)) return ox_oom(st);
    if (vi->type && !ox_check_type(vi->type, w, 0, st)) return false;
  }
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto *t = g->initializer[i];
    if (!t->name || !*t->name)
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%sinitializer %zu has no name",
                     prefix, i);
    ox_fmt(w, sizeof w, "%sinitializer %zu %s", prefix, i,
             ox_quote(q, t->name));
    if (ox_names_has_local(inits, t->name))
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%s: name used twice", w);
    if (!ox_check_tensor(t, w, st)) return false;
    /* Sharing a name with a graph input is allowed: the initializer is
     * then that input's default value. */
    if (!ox_names_add(inits, t->name) || !ox_names_add(names, t->name))
      return ox_oom(st);
  }
  for (size_t i = 0; i < g->n_sparse_initializer; i++) {
    const Onnx__SparseTensorProto *s = g->sparse_initializer[i];
    const char *name = s->values ? s->values->name : NULL;
    if (!name || !*name)
      return ox_fail(st, KILN_ONNX_ERR_NAME,
                     "%ssparse initializer %zu has no name", prefix, i);
    ox_fmt(w, sizeof w, "%ssparse initializer %zu %s", prefix, i,
             ox_quote(q, name));
    if (ox_names_has_local(inits, name))
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%s: name used twice", w);
    if (!ox_check_sparse(s, w, st)) return false;
    if (!ox_names_add(inits, name) || !ox_names_add(names, name))
      return ox_oom(st);
  }

  for (size_t k = 0; k < g->n_node; k++) {
    const Onnx__NodeProto *node = g->node[k];
    ox_node_where(w, sizeof w, prefix, k, node);
    if (!node->op_type || !*node->op_type)
      return ox_fail(st, KILN_ONNX_ERR_NODE, "%s: no op_type", w);
    if (!ox_names_has(c->domains, ox_domain_key(node->domain)))
      return ox_fail(st, KILN_ONNX_ERR_OPSET,
                     "%s: domain %s is not in opset_import", w,
                     ox_quote(q, ox_default_domain(node->domain)
                                     ? "ai.onnx" : node->domain));
    for (size_t j = 0; j < node->n_input; j++) {
      const char *in = node->input[j];
      if (!in || !*in) continue; /* an omitted optional input */
      if (!ox_names_has(names, in))
        return ox_fail(st, KILN_ONNX_ERR_NAME,
                       "%s: input %zu %s is not a graph input, an "
                       "initializer or an earlier node's output", w, j,
                       ox_quote(q, in));
    }
    for (size_t j = 0; j < node->n_attribute; j++)
      if (!ox_check_attribute(c, node->attribute[j], names, w)) return false;
    for (size_t j = 0; j < node->n_output; j++) {
      const char *out = node->output[j];
      if (!out || !*out) continue; /* an omitted optional output */
      if (ox_names_has_local(names, out))
        return ox_fail(st, KILN_ONNX_ERR_NAME,
                       "%s: output %zu %s is already defined", w, j,
                       ox_quote(q, out));
      if (!ox_names_add(names, out)) return ox_oom(st);
    }
  }

  for (size_t i = 0; i < g->n_output; i++) {
    const Onnx__ValueInfoProto *vi = g->output[i];
    if (!vi->name || !*vi->name)
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%sgraph output %zu has no name",
                     prefix, i);
    ox_fmt(w, sizeof w, "%sgraph output %zu %s", prefix, i,
             ox_quote(q, vi->name));
    if (!ox_names_has(names, vi->name))
      return ox_fail(st, KILN_ONNX_ERR_NAME, "%s: not defined in the graph",
                     w);
    if (vi->type && !ox_check_type(vi->type, w, 0, st)) return false;
  }
  return true;
}

/* The first node of the main graph bound to the default domain, if any. */
static const Onnx__NodeProto *ox_first_default_node(const Onnx__GraphProto *g,
                                                    size_t *index) {
  for (size_t k = 0; k < g->n_node; k++)
    if (ox_default_domain(g->node[k]->domain)) {
      *index = k;
      return g->node[k];
    }
  return NULL;
}

static bool ox_check_opsets(ox_vctx *c) {
  const Onnx__ModelProto *mp = c->mp;
  kiln_onnx_status *st = c->st;
  char q[OX_QUOTE_MAX], w[160];
  if (mp->n_opset_import == 0)
    return ox_fail(st, KILN_ONNX_ERR_OPSET, "the model has no opset_import");
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    const char *d = ox_default_domain(o->domain) ? "ai.onnx" : o->domain;
    if (!o->has_version)
      return ox_fail(st, KILN_ONNX_ERR_OPSET,
                     "opset_import %zu (domain %s) has no version", i,
                     ox_quote(q, d));
    /* A hash set, not a pairwise scan: a hostile file may hold many. */
    if (ox_names_has(c->domains, d))
      return ox_fail(st, KILN_ONNX_ERR_OPSET,
                     "opset_import names domain %s twice", ox_quote(q, d));
    if (!ox_names_add(c->domains, d)) return ox_oom(st);
    if (!ox_default_domain(o->domain)) continue;
    if (o->version >= KILN_ONNX_OPSET_MIN && o->version <= KILN_ONNX_OPSET_MAX)
      continue;
    size_t k = 0;
    const Onnx__NodeProto *n = ox_first_default_node(mp->graph, &k);
    if (n) {
      ox_node_where(w, sizeof w, "", k, n);
      return ox_fail(st, KILN_ONNX_ERR_OPSET,
                     "ai.onnx opset %lld is outside the supported %d..%d; "
                     "%s is the first node bound to it", (long long)o->version,
                     KILN_ONNX_OPSET_MIN, KILN_ONNX_OPSET_MAX, w);
    }
    return ox_fail(st, KILN_ONNX_ERR_OPSET,
                   "ai.onnx opset %lld is outside the supported %d..%d",
                   (long long)o->version, KILN_ONNX_OPSET_MIN,
                   KILN_ONNX_OPSET_MAX);
  }
  return true;
}

bool ox_validate_model(ox_doc *doc, kiln_onnx_status *st) {
  const Onnx__ModelProto *mp = (const Onnx__ModelProto *)doc->root;
  ox_vctx c = {doc, st, mp, ox_names_new(&doc->arena, NULL)};
  if (!c.domains) return ox_oom(st);
  if (!mp->has_ir_version)
    return ox_fail(st, KILN_ONNX_ERR_IR_VERSION, "the model has no ir_version");
  if (mp->ir_version < 3 || mp->ir_version > 10)
    return ox_fail(st, KILN_ONNX_ERR_IR_VERSION,
                   "ir_version %lld is not one this loader understands "
                   "(3..10)", (long long)mp->ir_version);
  if (!mp->graph)
    return ox_fail(st, KILN_ONNX_ERR_NO_GRAPH, "the model has no graph");
  if (!ox_check_opsets(&c)) return false;
  return ox_check_graph(&c, mp->graph, NULL, "");
}
