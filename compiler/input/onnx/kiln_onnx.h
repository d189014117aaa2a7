/* Kiln ONNX loader: decodes ONNX ModelProto files (and the TensorProto /
 * SequenceProto / MapProto / OptionalProto files of ONNX test data) with
 * protobuf-c, and validates what the importer relies on.
 *
 * Takes: bytes in memory or a file path. Guarantees:
 * - any input, however damaged, yields either a model or a status whose
 *   message names the problem and where it is ("onnx: dims: initializer 2
 *   'w': dimension 1 is -3"); never a crash, an out-of-bounds read or
 *   unbounded recursion (the wire format is scanned first, iteratively,
 *   with a nesting limit, before protobuf-c sees it);
 * - decoding memory is bounded: an arena whose budget is computed from the
 *   scan (about the size of the decoded structs plus the payload bytes);
 *   everything is freed at once by the matching _free call;
 * - tensor payloads are copied at most once: a model loaded from a file
 *   keeps the file mapped and raw_data of 1 KiB or more points into the
 *   mapping (no copy at all; protobuf-c decodes a skeleton without those
 *   payloads); smaller raw_data, and all raw_data of models decoded from
 *   memory, stays where protobuf-c copied it; typed fields of the
 *   element's width are used in place, narrower types are converted once
 *   and cached, and external data is mmapped from files next to the model.
 * The decoded protobuf-c structs (onnx-ml.pb-c.h, generated at build time
 * from the onnx-ml.proto that python3-onnx installs) are exposed read-only. */
#ifndef KILN_ONNX_H
#define KILN_ONNX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln_error.h"
#include "onnx/onnx-data.pb-c.h"
#include "onnx/onnx-ml.pb-c.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default-domain opsets the loader accepts; which operators the
 * importer takes at which opset is its operator table's business
 * (onnx_ops.def: older versions convert to the newest form). */
#define KILN_ONNX_OPSET_MIN 1
#define KILN_ONNX_OPSET_MAX 17
/* Deepest message nesting accepted (model -> graph -> node -> attribute ->
 * graph ... is three levels per control-flow level). */
#define KILN_ONNX_MAX_DEPTH 100

/* ---- Status: a kind plus a message naming what is wrong and where. ---- */
typedef enum kiln_onnx_code {
  KILN_ONNX_OK = 0,
#define X(e, name) KILN_ONNX_ERR_##e,
#include "onnx_errors.def"
#undef X
} kiln_onnx_code;

typedef struct kiln_onnx_status {
  kiln_onnx_code code;
  char message[512]; /* "onnx: KIND: WHERE: WHAT" */
} kiln_onnx_status;

/* "truncated", "dims", ...; "ok" for KILN_ONNX_OK; "?" otherwise. */
const char *kiln_onnx_code_name(kiln_onnx_code code);
/* A failed status as the compiler's one error type (kiln_error.h): "WHERE:
 * onnx: KIND: ..." (the message alone when where is NULL). The one place
 * an ONNX status becomes a kiln_error, for the driver and the tools. NULL
 * for KILN_ONNX_OK. */
kiln_error *kiln_onnx_error(const char *where, const kiln_onnx_status *status);

/* ---- Data types ---- */
/* Element bytes of an ONNX data type; 0 for STRING and unknown types. */
size_t kiln_onnx_dtype_size(int32_t dtype);
/* MLIR-style name ("f32", "ui8", "complex<f32>"); NULL when unknown. */
const char *kiln_onnx_dtype_name(int32_t dtype);
bool kiln_onnx_dtype_known(int32_t dtype);

/* ---- Content sniffing ---- */
/* True when the bytes start like a serialized ModelProto: the leading
 * top-level fields are ModelProto fields with their wire types and
 * in-bounds lengths, ir_version is a small positive varint, and a graph or
 * opset_import follows. Reads at most the first 64 top-level fields. */
bool kiln_onnx_looks_like_model(const void *bytes, size_t len);

/* ---- Models ---- */
typedef struct kiln_onnx_model kiln_onnx_model;

/* Decode and validate. The bytes are not kept (protobuf-c copies what it
 * keeps); external data cannot be resolved since there is no folder. */
bool kiln_onnx_model_load(const void *bytes, size_t len,
                          kiln_onnx_model **out, kiln_onnx_status *status);
/* The same, except that raw_data payloads of 1 KiB or more point into
 * BYTES instead of being copied: BYTES must stay valid and unchanged until
 * kiln_onnx_model_free (for callers that hold the model in memory already,
 * e.g. mapped themselves). */
bool kiln_onnx_model_load_borrowed(const void *bytes, size_t len,
                                   kiln_onnx_model **out,
                                   kiln_onnx_status *status);
/* Same from a file, mmapped: large raw_data payloads are used from the
 * mapping, which the model keeps until kiln_onnx_model_free (the file must
 * not be truncated meanwhile); external data is looked up relative to the
 * file's folder. */
bool kiln_onnx_model_load_file(const char *path, kiln_onnx_model **out,
                               kiln_onnx_status *status);
/* The two halves of load: decode only (base_dir may be NULL), then
 * validate; tools use decode alone to inspect an invalid model. */
bool kiln_onnx_model_decode(const void *bytes, size_t len,
                            const char *base_dir, kiln_onnx_model **out,
                            kiln_onnx_status *status);
bool kiln_onnx_model_decode_file(const char *path, kiln_onnx_model **out,
                                 kiln_onnx_status *status);
bool kiln_onnx_model_validate(kiln_onnx_model *model,
                              kiln_onnx_status *status);
void kiln_onnx_model_free(kiln_onnx_model *model);

const Onnx__ModelProto *kiln_onnx_model_proto(const kiln_onnx_model *model);
/* Imported version of DOMAIN ("" or "ai.onnx" = default); -1 if none. */
int64_t kiln_onnx_model_opset(const kiln_onnx_model *model,
                              const char *domain);

/* A tensor's payload as little-endian elements, without copying where the
 * decoded message already holds them in that form. Valid until the model
 * is freed. STRING tensors have no byte view (UNSUPPORTED). T must belong
 * to MODEL (an initializer, a Constant's attribute, ...). */
typedef struct kiln_onnx_bytes {
  const void *data; /* never NULL on success, even when size is 0 */
  size_t size;
  bool copied;      /* true when typed fields were converted (once) */
  bool mapped;      /* true when the bytes live in an external file mmap */
} kiln_onnx_bytes;
bool kiln_onnx_model_tensor_bytes(kiln_onnx_model *model,
                                  const Onnx__TensorProto *t,
                                  kiln_onnx_bytes *out,
                                  kiln_onnx_status *status);

/* Element count of a tensor (product of dims, overflow-checked; false on
 * negative dims or overflow). */
bool kiln_onnx_tensor_count(const Onnx__TensorProto *t, uint64_t *count);

/* ---- Values: the test-data files (input_N.pb / output_N.pb) ---- */
typedef enum kiln_onnx_value_kind {
  KILN_ONNX_VALUE_TENSOR,
  KILN_ONNX_VALUE_SEQUENCE,
  KILN_ONNX_VALUE_MAP,
  KILN_ONNX_VALUE_OPTIONAL,
} kiln_onnx_value_kind;

/* Which message a graph input/output of this type is serialized as (the
 * ONNX test generator's rule); TENSOR when the type is absent. */
kiln_onnx_value_kind kiln_onnx_value_kind_of(const Onnx__TypeProto *type);

typedef struct kiln_onnx_value kiln_onnx_value;
/* Decode and validate one serialized value of the given kind. */
bool kiln_onnx_value_load(const void *bytes, size_t len,
                          kiln_onnx_value_kind kind, kiln_onnx_value **out,
                          kiln_onnx_status *status);
bool kiln_onnx_value_load_file(const char *path, kiln_onnx_value_kind kind,
                               kiln_onnx_value **out,
                               kiln_onnx_status *status);
void kiln_onnx_value_free(kiln_onnx_value *value);
kiln_onnx_value_kind kiln_onnx_value_get_kind(const kiln_onnx_value *value);
/* The root message; cast by kind (Onnx__TensorProto, Onnx__SequenceProto,
 * Onnx__MapProto, Onnx__OptionalProto). */
const ProtobufCMessage *kiln_onnx_value_message(const kiln_onnx_value *value);
/* The root tensor of a TENSOR value, NULL for other kinds. */
const Onnx__TensorProto *kiln_onnx_value_tensor(const kiln_onnx_value *value);
/* Bytes of any tensor inside VALUE (see kiln_onnx_model_tensor_bytes). */
bool kiln_onnx_value_tensor_bytes(kiln_onnx_value *value,
                                  const Onnx__TensorProto *t,
                                  kiln_onnx_bytes *out,
                                  kiln_onnx_status *status);

#ifdef __cplusplus
}
#endif
#endif
