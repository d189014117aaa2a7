/* Decodes every generated ONNX backend node test with the Kiln loader.
 *
 * Usage: onnx_decode_all NODE_DIR [MIN_MODELS]
 * Takes the folder generate.py fills (NODE_DIR/test_NAME/model.onnx and
 * test_data_set_K/{input,output}_N.pb). Checks, for every test: the model
 * decodes; validation passes, or refuses with an opset error a model whose
 * default-domain opset is outside 13..17; every
 * initializer and Constant tensor of a valid model yields its bytes; every
 * input/output file decodes as the message its graph type calls for, and
 * every tensor in it yields its bytes (strings excepted). Prints a summary;
 * exits 1 on the first unexpected failure with the loader's message, or
 * when fewer than MIN_MODELS (default 922) models were found. */
#define _DEFAULT_SOURCE /* d_type, strdup */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_onnx.h"

typedef struct totals {
  size_t models, valid, values, tensors, bytes, converted, strings;
  size_t invalid[64];
} totals;

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entries of DIR whose names start with PREFIX. */
static char **list_dir(const char *dir, const char *prefix, size_t *n) {
  DIR *d = opendir(dir);
  *n = 0;
  if (!d) return NULL;
  size_t cap = 64;
  char **v = malloc(cap * sizeof *v);
  struct dirent *e;
  while (v && (e = readdir(d))) {
    if (strncmp(e->d_name, prefix, strlen(prefix)) != 0) continue;
    if (*n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    if (v) v[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  if (!v) abort();
  qsort(v, *n, sizeof *v, cmp_str);
  return v;
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static int fail(const char *what, const char *path, const kiln_onnx_status *st) {
  printf("FAIL: %s %s: %s\n", what, path, st->message);
  return 1;
}

static int tensor_bytes(totals *t, kiln_onnx_value *v,
                        const Onnx__TensorProto *tp, const char *path) {
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  t->tensors++;
  if (tp->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING) {
    t->strings++;
    return 0;
  }
  if (!kiln_onnx_value_tensor_bytes(v, tp, &b, &st))
    return fail("bytes of", path, &st);
  t->bytes += b.size;
  t->converted += b.copied;
  return 0;
}

static int check_sequence(totals *t, kiln_onnx_value *v,
                          const Onnx__SequenceProto *s, const char *path);

static int check_optional(totals *t, kiln_onnx_value *v,
                          const Onnx__OptionalProto *o, const char *path) {
  if (o->tensor_value && tensor_bytes(t, v, o->tensor_value, path)) return 1;
  if (o->sequence_value && check_sequence(t, v, o->sequence_value, path))
    return 1;
  return 0;
}

static int check_sequence(totals *t, kiln_onnx_value *v,
                          const Onnx__SequenceProto *s, const char *path) {
  for (size_t i = 0; i < s->n_tensor_values; i++)
    if (tensor_bytes(t, v, s->tensor_values[i], path)) return 1;
  for (size_t i = 0; i < s->n_sequence_values; i++)
    if (check_sequence(t, v, s->sequence_values[i], path)) return 1;
  for (size_t i = 0; i < s->n_optional_values; i++)
    if (check_optional(t, v, s->optional_values[i], path)) return 1;
  return 0;
}

static int check_value(totals *t, const char *path,
                       const Onnx__ValueInfoProto *vi) {
  kiln_onnx_value *v;
  kiln_onnx_status st;
  kiln_onnx_value_kind kind = kiln_onnx_value_kind_of(vi ? vi->type : NULL);
  if (!kiln_onnx_value_load_file(path, kind, &v, &st))
    return fail("value", path, &st);
  t->values++;
  const ProtobufCMessage *m = kiln_onnx_value_message(v);
  int rc = 0;
  switch (kind) {
  case KILN_ONNX_VALUE_TENSOR:
    rc = tensor_bytes(t, v, kiln_onnx_value_tensor(v), path);
    break;
  case KILN_ONNX_VALUE_SEQUENCE:
    rc = check_sequence(t, v, (const Onnx__SequenceProto *)m, path);
    break;
  case KILN_ONNX_VALUE_OPTIONAL:
    rc = check_optional(t, v, (const Onnx__OptionalProto *)m, path);
    break;
  case KILN_ONNX_VALUE_MAP: {
    const Onnx__MapProto *mp = (const Onnx__MapProto *)m;
    if (mp->values) rc = check_sequence(t, v, mp->values, path);
    break;
  }
  }
  kiln_onnx_value_free(v);
  return rc;
}

/* Bytes of every initializer and tensor attribute of a valid model. */
static int model_tensors(totals *t, kiln_onnx_model *m,
                         const Onnx__GraphProto *g, const char *path) {
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  for (size_t i = 0; i < g->n_initializer; i++) {
    if (g->initializer[i]->data_type == ONNX__TENSOR_PROTO__DATA_TYPE__STRING)
      continue;
    if (!kiln_onnx_model_tensor_bytes(m, g->initializer[i], &b, &st))
      return fail("initializer of", path, &st);
    t->bytes += b.size;
  }
  for (size_t k = 0; k < g->n_node; k++)
    for (size_t a = 0; a < g->node[k]->n_attribute; a++) {
      const Onnx__AttributeProto *at = g->node[k]->attribute[a];
      if (at->t && at->t->data_type != ONNX__TENSOR_PROTO__DATA_TYPE__STRING) {
        if (!kiln_onnx_model_tensor_bytes(m, at->t, &b, &st))
          return fail("attribute tensor of", path, &st);
        t->bytes += b.size;
      }
      if (at->g && model_tensors(t, m, at->g, path)) return 1;
      for (size_t i = 0; i < at->n_graphs; i++)
        if (model_tensors(t, m, at->graphs[i], path)) return 1;
    }
  return 0;
}

static int check_test(totals *t, const char *root, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s/model.onnx", root, name);
  kiln_onnx_model *m;
  kiln_onnx_status st;
  if (!kiln_onnx_model_decode_file(path, &m, &st))
    return fail("decode", path, &st);
  t->models++;
  if (kiln_onnx_model_validate(m, &st)) {
    t->valid++;
    if (model_tensors(t, m, kiln_onnx_model_proto(m)->graph, path)) {
      kiln_onnx_model_free(m);
      return 1;
    }
  } else if (st.code == KILN_ONNX_ERR_OPSET &&
             (kiln_onnx_model_opset(m, "") < KILN_ONNX_OPSET_MIN ||
              kiln_onnx_model_opset(m, "") > KILN_ONNX_OPSET_MAX)) {
    /* Only a model whose default opset really is out of range may be
     * refused for it. */
    t->invalid[st.code]++;
  } else {
    kiln_onnx_model_free(m);
    return fail("validate", path, &st);
  }
  const Onnx__GraphProto *g = kiln_onnx_model_proto(m)->graph;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  size_t nsets;
  char **sets = list_dir(dir, "test_data_set_", &nsets);
  int rc = 0;
  for (size_t s = 0; s < nsets && !rc; s++) {
    char sdir[4600];
    snprintf(sdir, sizeof sdir, "%s/%s", dir, sets[s]);
    size_t nfiles;
    char **files = list_dir(sdir, "", &nfiles);
    for (size_t f = 0; f < nfiles && !rc; f++) {
      unsigned idx;
      const Onnx__ValueInfoProto *vi = NULL;
      if (sscanf(files[f], "input_%u.pb", &idx) == 1)
        vi = idx < g->n_input ? g->input[idx] : NULL;
      else if (sscanf(files[f], "output_%u.pb", &idx) == 1)
        vi = idx < g->n_output ? g->output[idx] : NULL;
      else
        continue;
      char fpath[5200];
      snprintf(fpath, sizeof fpath, "%s/%s", sdir, files[f]);
      rc = check_value(t, fpath, vi);
    }
    free_list(files, nfiles);
  }
  free_list(sets, nsets);
  kiln_onnx_model_free(m);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: onnx_decode_all NODE_DIR [MIN_MODELS]\n");
    return 2;
  }
  size_t min = argc == 3 ? (size_t)strtoul(argv[2], NULL, 10) : 922;
  size_t n;
  char **tests = list_dir(argv[1], "test_", &n);
  totals t = {0};
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) rc = check_test(&t, argv[1], tests[i]);
  free_list(tests, n);
  printf("models: %zu decoded, %zu valid", t.models, t.valid);
  for (int c = 1; c < 64; c++)
    if (t.invalid[c])
      printf(", %zu refused (%s)", t.invalid[c],
             kiln_onnx_code_name((kiln_onnx_code)c));
  printf("\nvalues: %zu files, %zu tensors (%zu strings), %zu converted "
         "from typed fields, %zu payload bytes\n",
         t.values, t.tensors, t.strings, t.converted, t.bytes);
  if (rc) return 1;
  if (t.models < min) {
    printf("FAIL: %zu models found in %s, expected at least %zu\n", t.models,
           argv[1], min);
    return 1;
  }
  return 0;
}
