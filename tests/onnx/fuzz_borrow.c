/* libFuzzer target comparing the two ways the loader decodes a model:
 * kiln_onnx_model_load (protobuf-c copies every payload) and
 * kiln_onnx_model_load_borrowed (large raw_data stays in the input, via a
 * skeleton with marker fields: borrow.c). Any input must give the same
 * outcome both ways: the same status code, and on success the same
 * raw_data (presence, length, bytes) for every initializer and every
 * tensor attribute of the main graph's nodes. A crash, sanitizer report,
 * leak or difference is a finding. The input is copied into a buffer of
 * its own size, so a borrowed pointer past its end is caught by ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_tensor(const Onnx__TensorProto *a,
                        const Onnx__TensorProto *b) {
  if (!a || !b) {
    if (a != b) abort();
    return;
  }
  if (a->has_raw_data != b->has_raw_data ||
      a->raw_data.len != b->raw_data.len)
    abort();
  if (a->raw_data.len &&
      memcmp(a->raw_data.data, b->raw_data.data, a->raw_data.len) != 0)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint8_t *own = malloc(size ? size : 1);
  if (!own) return 0;
  if (size) memcpy(own, data, size);
  kiln_onnx_status s1, s2;
  kiln_onnx_model *m1 = NULL, *m2 = NULL;
  bool ok1 = kiln_onnx_model_load(data, size, &m1, &s1);
  bool ok2 = kiln_onnx_model_load_borrowed(own, size, &m2, &s2);
  if (ok1 != ok2 || s1.code != s2.code) abort();
  if (ok1) {
    const Onnx__GraphProto *g1 = kiln_onnx_model_proto(m1)->graph;
    const Onnx__GraphProto *g2 = kiln_onnx_model_proto(m2)->graph;
    if (g1->n_initializer != g2->n_initializer || g1->n_node != g2->n_node)
      abort();
    for (size_t i = 0; i < g1->n_initializer; i++)
      same_tensor(g1->initializer[i], g2->initializer[i]);
    for (size_t i = 0; i < g1->n_node; i++) {
      const Onnx__NodeProto *n1 = g1->node[i], *n2 = g2->node[i];
      if (n1->n_attribute != n2->n_attribute) abort();
      for (size_t j = 0; j < n1->n_attribute; j++) {
        same_tensor(n1->attribute[j]->t, n2->attribute[j]->t);
        if (n1->attribute[j]->n_tensors != n2->attribute[j]->n_tensors)
          abort();
        for (size_t k = 0; k < n1->attribute[j]->n_tensors; k++)
          same_tensor(n1->attribute[j]->tensors[k],
                      n2->attribute[j]->tensors[k]);
      }
    }
  }
  kiln_onnx_model_free(m1);
  kiln_onnx_model_free(m2);
  free(own);
  return 0;
}
