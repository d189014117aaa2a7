/* kiln-onnx-info: what is in an ONNX model, for people and FileCheck.
 *
 *   kiln-onnx-info MODEL.onnx            validate, then print the summary
 *   kiln-onnx-info --no-validate MODEL   print even when validation fails
 *   kiln-onnx-info --initializers MODEL  also each initializer's payload
 *                                        (source, size, first values)
 *   kiln-onnx-info --sniff FILE          "onnx" or "not onnx" (exit 0 / 1)
 *   kiln-onnx-info --value[=KIND] FILE   one serialized value (KIND: tensor,
 *                                        sequence, map, optional)
 *
 * Takes a file; prints ir_version, producer, opsets, graph inputs and
 * outputs with MLIR-style types, node count and op histogram (subgraphs
 * included), initializer count and payload bytes. Errors go to stderr as
 * the loader's message (through kiln_onnx_error, "FILE: onnx: KIND:
 * ..."), exit status 1. */
#define _DEFAULT_SOURCE /* strdup */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_onnx.h"
#include "tool_report.h"
#include "tool_version.h"

static void print_type(const Onnx__TypeProto *t);

static void print_shape_type(const char *kind, int32_t elem,
                             const Onnx__TensorShapeProto *shape) {
  const char *e = kiln_onnx_dtype_name(elem);
  printf("%s<", kind);
  if (!shape) {
    printf("*x");
  } else {
    for (size_t i = 0; i < shape->n_dim; i++) {
      const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        printf("%lldx", (long long)d->dim_value);
      else
        printf("?x");
    }
  }
  if (e) printf("%s>", e);
  else printf("dtype%d>", (int)elem);
  /* Symbolic dims by position, so "?" stays unambiguous. */
  if (shape)
    for (size_t i = 0; i < shape->n_dim; i++) {
      const Onnx__TensorShapeProto__Dimension *d = shape->dim[i];
      if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
        printf(" [%zu:%s]", i, d->dim_param);
    }
}

static void print_type(const Onnx__TypeProto *t) {
  if (!t) {
    printf("(no type)");
    return;
  }
  switch (t->value_case) {
  case ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE:
    print_shape_type("tensor", t->tensor_type->elem_type,
                     t->tensor_type->shape);
    break;
  case ONNX__TYPE_PROTO__VALUE_SPARSE_TENSOR_TYPE:
    print_shape_type("sparse_tensor", t->sparse_tensor_type->elem_type,
                     t->sparse_tensor_type->shape);
    break;
  case ONNX__TYPE_PROTO__VALUE_SEQUENCE_TYPE:
    printf("seq<");
    print_type(t->sequence_type->elem_type);
    printf(">");
    break;
  case ONNX__TYPE_PROTO__VALUE_OPTIONAL_TYPE:
    printf("optional<");
    print_type(t->optional_type->elem_type);
    printf(">");
    break;
  case ONNX__TYPE_PROTO__VALUE_MAP_TYPE: {
    const char *k = kiln_onnx_dtype_name(t->map_type->key_type);
    printf("map<%s, ", k ? k : "?");
    print_type(t->map_type->value_type);
    printf(">");
    break;
  }
  case ONNX__TYPE_PROTO__VALUE_OPAQUE_TYPE:
    printf("opaque");
    break;
  default:
    printf("(unset type)");
  }
}

/* ---- op histogram over the graph and its subgraphs ----
 * Every node's op name is collected, then sorted and counted, so a model
 * with many distinct ops costs n log n, not n^2. */
typedef struct op_count {
  char *name;
  size_t count;
} op_count;
typedef struct histogram {
  char **names;
  size_t n, cap, nodes, sub_nodes;
} histogram;

static void count_op(histogram *h, const char *domain, const char *op) {
  char name[256];
  if (domain && *domain && strcmp(domain, "ai.onnx") != 0)
    snprintf(name, sizeof name, "%s.%s", domain, op ? op : "");
  else
    snprintf(name, sizeof name, "%s", op ? op : "");
  if (h->n == h->cap) {
    h->cap = h->cap ? 2 * h->cap : 16;
    h->names = realloc(h->names, h->cap * sizeof *h->names);
    if (!h->names) abort();
  }
  h->names[h->n] = strdup(name);
  if (!h->names[h->n++]) abort();
}

static void walk_graph(histogram *h, const Onnx__GraphProto *g, bool sub) {
  for (size_t k = 0; k < g->n_node; k++) {
    const Onnx__NodeProto *n = g->node[k];
    if (sub) h->sub_nodes++;
    else h->nodes++;
    count_op(h, n->domain, n->op_type);
    for (size_t a = 0; a < n->n_attribute; a++) {
      const Onnx__AttributeProto *at = n->attribute[a];
      if (at->g) walk_graph(h, at->g, true);
      for (size_t i = 0; i < at->n_graphs; i++)
        walk_graph(h, at->graphs[i], true);
    }
  }
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_count(const void *a, const void *b) {
  const op_count *x = a, *y = b;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return strcmp(x->name, y->name);
}

static void print_tensor_header(const char *what, const Onnx__TensorProto *t);
static void print_payload(const kiln_onnx_bytes *b, int32_t dtype);

/* One line per initializer with its payload's source, then its values. */
static int print_initializers(kiln_onnx_model *m, const Onnx__GraphProto *g) {
  int rc = 0;
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto *t = g->initializer[i];
    char what[48];
    snprintf(what, sizeof what, "initializer %zu", i);
    print_tensor_header(what, t);
    if (t->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING) continue;
    kiln_onnx_bytes b;
    kiln_onnx_status st;
    if (!kiln_onnx_model_tensor_bytes(m, t, &b, &st)) {
      printf("  error: %s\n", st.message);
      rc = 1;
      continue;
    }
    printf("  bytes: %zu (%s)\n  ", b.size,
           b.mapped ? "external, mapped" : b.copied ? "typed field, converted"
           : t->has_raw_data ? "raw_data" : "typed field, in place");
    print_payload(&b, t->data_type);
  }
  return rc;
}

static int print_model(const char *path, bool validate, bool list_inits) {
  kiln_onnx_model *m;
  kiln_onnx_status st;
  const char *invalid = NULL;
  if (validate) {
    if (!kiln_onnx_model_load_file(path, &m, &st))
      return kiln_tool_report(kiln_onnx_error(path, &st));
  } else {
    /* Decode alone, then report validation without stopping. */
    if (!kiln_onnx_model_decode_file(path, &m, &st))
      return kiln_tool_report(kiln_onnx_error(path, &st));
    if (!kiln_onnx_model_validate(m, &st)) invalid = st.message;
  }
  const Onnx__ModelProto *mp = kiln_onnx_model_proto(m);
  if (invalid) printf("invalid: %s\n", invalid);
  printf("ir_version: %lld\n", (long long)mp->ir_version);
  printf("producer: %s %s\n", mp->producer_name ? mp->producer_name : "",
         mp->producer_version ? mp->producer_version : "");
  for (size_t i = 0; i < mp->n_opset_import; i++) {
    const Onnx__OperatorSetIdProto *o = mp->opset_import[i];
    printf("opset: %s %lld\n",
           o->domain && *o->domain ? o->domain : "ai.onnx",
           (long long)o->version);
  }
  const Onnx__GraphProto *g = mp->graph;
  if (!g) {
    printf("graph: none\n");
    kiln_onnx_model_free(m);
    return invalid ? 1 : 0;
  }
  printf("graph: %s\n", g->name ? g->name : "");
  for (size_t i = 0; i < g->n_input; i++) {
    printf("input %zu: %s ", i, g->input[i]->name ? g->input[i]->name : "");
    print_type(g->input[i]->type);
    printf("\n");
  }
  for (size_t i = 0; i < g->n_output; i++) {
    printf("output %zu: %s ", i, g->output[i]->name ? g->output[i]->name : "");
    print_type(g->output[i]->type);
    printf("\n");
  }
  histogram h = {0};
  walk_graph(&h, g, false);
  printf("nodes: %zu (%zu in subgraphs)\n", h.nodes, h.sub_nodes);
  qsort(h.names, h.n, sizeof *h.names, by_name);
  op_count *ops = malloc((h.n ? h.n : 1) * sizeof *ops);
  if (!ops) abort();
  size_t nops = 0;
  for (size_t i = 0; i < h.n; i++) {
    if (nops && strcmp(ops[nops - 1].name, h.names[i]) == 0) {
      ops[nops - 1].count++;
    } else {
      ops[nops].name = h.names[i];
      ops[nops++].count = 1;
    }
  }
  qsort(ops, nops, sizeof *ops, by_count);
  for (size_t i = 0; i < nops; i++)
    printf("op %s: %zu\n", ops[i].name, ops[i].count);
  for (size_t i = 0; i < h.n; i++) free(h.names[i]);
  free(h.names);
  free(ops);
  unsigned long long bytes = 0;
  size_t external = 0;
  for (size_t i = 0; i < g->n_initializer; i++) {
    const Onnx__TensorProto *t = g->initializer[i];
    uint64_t count;
    if (kiln_onnx_tensor_count(t, &count))
      bytes += count * kiln_onnx_dtype_size(t->data_type);
    if (t->n_external_data) external++;
  }
  printf("initializers: %zu (%llu bytes, %zu external)\n", g->n_initializer,
         bytes, external);
  int rc = invalid ? 1 : 0;
  if (list_inits && !invalid) rc = print_initializers(m, g);
  kiln_onnx_model_free(m);
  return rc;
}

/* First few elements of a payload, for the common numeric types. */
static void print_payload(const kiln_onnx_bytes *b, int32_t dtype) {
  size_t es = kiln_onnx_dtype_size(dtype);
  size_t n = es ? b->size / es : 0;
  printf("values:");
  const unsigned char *p = b->data;
  for (size_t i = 0; i < n && i < 8; i++) {
    union { float f; double d; int32_t i32; int64_t i64; } u;
    memcpy(&u, p + i * es, es < sizeof u ? es : sizeof u);
    switch (dtype) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT: printf(" %g", (double)u.f); break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE: printf(" %g", u.d); break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32: printf(" %d", (int)u.i32); break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64: printf(" %lld", (long long)u.i64); break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8: printf(" %d", (int)(int8_t)p[i]); break;
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL: printf(" %u", (unsigned)p[i]); break;
    default: printf(" ?"); i = n; break;
    }
  }
  printf("%s\n", n > 8 ? " ..." : "");
}

static void print_elements(kiln_onnx_value *v, const Onnx__TensorProto *t) {
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  if (!kiln_onnx_value_tensor_bytes(v, t, &b, &st)) {
    printf("  values: (%s)\n", st.message);
    return;
  }
  printf("  bytes: %zu\n  ", b.size);
  print_payload(&b, t->data_type);
}

static void print_tensor_header(const char *what, const Onnx__TensorProto *t) {
  const char *e = kiln_onnx_dtype_name(t->data_type);
  printf("%s %s: tensor<", what, t->name ? t->name : "");
  for (size_t i = 0; i < t->n_dims; i++) printf("%lldx", (long long)t->dims[i]);
  printf("%s>\n", e ? e : "?");
}

static int print_value(const char *path, const char *kind_name) {
  kiln_onnx_value_kind kind = KILN_ONNX_VALUE_TENSOR;
  if (strcmp(kind_name, "sequence") == 0) kind = KILN_ONNX_VALUE_SEQUENCE;
  else if (strcmp(kind_name, "map") == 0) kind = KILN_ONNX_VALUE_MAP;
  else if (strcmp(kind_name, "optional") == 0) kind = KILN_ONNX_VALUE_OPTIONAL;
  else if (strcmp(kind_name, "tensor") != 0) {
    fprintf(stderr, "kiln-onnx-info: unknown value kind '%s'\n", kind_name);
    return 2;
  }
  kiln_onnx_value *v;
  kiln_onnx_status st;
  if (!kiln_onnx_value_load_file(path, kind, &v, &st))
    return kiln_tool_report(kiln_onnx_error(path, &st));
  const ProtobufCMessage *m = kiln_onnx_value_message(v);
  if (kind == KILN_ONNX_VALUE_TENSOR) {
    const Onnx__TensorProto *t = kiln_onnx_value_tensor(v);
    print_tensor_header("tensor", t);
    if (t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
      print_elements(v, t);
  } else if (kind == KILN_ONNX_VALUE_SEQUENCE) {
    const Onnx__SequenceProto *s = (const void *)m;
    printf("sequence %s: %zu tensors\n", s->name ? s->name : "",
           s->n_tensor_values);
    for (size_t i = 0; i < s->n_tensor_values; i++)
      print_tensor_header("  element", s->tensor_values[i]);
  } else if (kind == KILN_ONNX_VALUE_MAP) {
    const Onnx__MapProto *mp = (const void *)m;
    printf("map %s: %zu keys\n", mp->name ? mp->name : "",
           mp->n_keys + mp->n_string_keys);
  } else {
    const Onnx__OptionalProto *o = (const void *)m;
    printf("optional %s: %s\n", o->name ? o->name : "",
           o->tensor_value || o->sequence_value || o->map_value ||
                   o->optional_value || o->sparse_tensor_value
               ? "present" : "empty");
  }
  kiln_onnx_value_free(v);
  return 0;
}

static int sniff(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    return 2;
  }
  unsigned char buf[4096];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  /* The first 4 KiB decide: sniffing only reads the leading fields and
   * stops at the first one that does not fit. */
  bool yes = kiln_onnx_looks_like_model(buf, n);
  printf("%s\n", yes ? "onnx" : "not onnx");
  return yes ? 0 : 1;
}

int main(int argc, char **argv) {
  if (kiln_tool_version(argc, argv, "kiln-onnx-info", NULL)) return 0;
  bool validate = true, list_inits = false;
  const char *mode = "model", *kind = "tensor";
  int i = 1;
  for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
    if (strcmp(argv[i], "--no-validate") == 0) validate = false;
    else if (strcmp(argv[i], "--sniff") == 0) mode = "sniff";
    else if (strcmp(argv[i], "--initializers") == 0) list_inits = true;
    else if (strcmp(argv[i], "--value") == 0) mode = "value";
    else if (strncmp(argv[i], "--value=", 8) == 0) {
      mode = "value";
      kind = argv[i] + 8;
    } else {
      fprintf(stderr, "kiln-onnx-info: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (i + 1 != argc) {
    fprintf(stderr,
            "usage: kiln-onnx-info [--no-validate] [--initializers] MODEL\n"
            "       kiln-onnx-info --sniff FILE\n"
            "       kiln-onnx-info --value[=tensor|sequence|map|optional] "
            "FILE\n");
    return 2;
  }
  if (strcmp(mode, "sniff") == 0) return sniff(argv[i]);
  if (strcmp(mode, "value") == 0) return print_value(argv[i], kind);
  return print_model(argv[i], validate, list_inits);
}
