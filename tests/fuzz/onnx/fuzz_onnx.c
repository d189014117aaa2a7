/* libFuzzer target over the ONNX loader: sniff, decode + validate a model,
 * then ask for the bytes of every initializer and Constant tensor; and the
 * same bytes read as each kind of test-data value (Tensor, Sequence, Map,
 * OptionalProto).
 * Any input must end in success or in a status message that starts with
 * "onnx: " and names a known kind; anything else (crash, sanitizer report,
 * leak, malformed status) is a finding. No folder is given, so external
 * data is never read from disk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kiln_onnx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_status(bool ok, const kiln_onnx_status *st) {
  if (ok) return;
  if (st->code == KILN_ONNX_OK || strncmp(st->message, "onnx: ", 6) != 0 ||
      strcmp(kiln_onnx_code_name(st->code), "?") == 0)
    abort();
}

static void touch(const void *p, size_t n) {
  volatile uint8_t sink = 0;
  const uint8_t *b = p;
  if (n) sink ^= b[0] ^ b[n - 1];
  (void)sink;
}

static void graph_bytes(kiln_onnx_model *m, const Onnx__GraphProto *g) {
  kiln_onnx_bytes b;
  kiln_onnx_status st;
  for (size_t i = 0; i < g->n_initializer; i++) {
    bool ok = kiln_onnx_model_tensor_bytes(m, g->initializer[i], &b, &st);
    check_status(ok, &st);
    if (ok) touch(b.data, b.size);
  }
  for (size_t k = 0; k < g->n_node; k++)
    for (size_t a = 0; a < g->node[k]->n_attribute; a++) {
      const Onnx__AttributeProto *at = g->node[k]->attribute[a];
      if (at->t) {
        bool ok = kiln_onnx_model_tensor_bytes(m, at->t, &b, &st);
        check_status(ok, &st);
        if (ok) touch(b.data, b.size);
      }
      if (at->g) graph_bytes(m, at->g);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)kiln_onnx_looks_like_model(data, size);
  kiln_onnx_model *m;
  kiln_onnx_status st;
  bool ok = kiln_onnx_model_decode(data, size, NULL, &m, &st);
  check_status(ok, &st);
  if (ok) {
    ok = kiln_onnx_model_validate(m, &st);
    check_status(ok, &st);
    if (ok) graph_bytes(m, kiln_onnx_model_proto(m)->graph);
    kiln_onnx_model_free(m);
  }
  static const kiln_onnx_value_kind kinds[] = {
      KILN_ONNX_VALUE_TENSOR, KILN_ONNX_VALUE_SEQUENCE, KILN_ONNX_VALUE_MAP,
      KILN_ONNX_VALUE_OPTIONAL};
  for (size_t i = 0; i < 4; i++) {
    kiln_onnx_value *v;
    ok = kiln_onnx_value_load(data, size, kinds[i], &v, &st);
    check_status(ok, &st);
    if (!ok) continue;
    const Onnx__TensorProto *t = kiln_onnx_value_tensor(v);
    if (t) {
      kiln_onnx_bytes b;
      ok = kiln_onnx_value_tensor_bytes(v, t, &b, &st);
      check_status(ok, &st);
      if (ok) touch(b.data, b.size);
    }
    kiln_onnx_value_free(v);
  }
  return 0;
}
