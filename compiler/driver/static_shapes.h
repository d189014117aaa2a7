/* --dim and --static-shape in the driver (static_shapes.c). */
#ifndef KILN_DRIVER_STATIC_SHAPES_H
#define KILN_DRIVER_STATIC_SHAPES_H

#include "session.h"
#ifdef KILN_HAVE_ONNX
#include "onnx_import.h"
/* The session's bindings as importer options (false: there are none);
 * free with kiln_driver_onnx_options_free. */
bool kiln_driver_onnx_options(const kiln_session *s, kiln_onnx_import_options *o);
void kiln_driver_onnx_options_free(kiln_onnx_import_options *o);
#endif
/* Applies --static-shape=FUNC:INDEX=DIMS to MLIR input (--dim is an
 * error there). */
kiln_error *kiln_driver_static_shapes(const kiln_session *s, kiln_op *module);

#endif
