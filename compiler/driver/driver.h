/* The compiler driver: the whole pipeline in one function (pipeline.c).
 *
 * Takes: a session whose options name the input and output. Guarantees:
 * the input is read (MLIR text; ONNX is recognized by content), every
 * stage that the input still needs runs in order up to
 * options.compile_to (the passes of pipeline.def, in order), then either
 * the IR is printed (to output_path, or stdout) or the module is written.
 * Errors carry a message; located diagnostics go to stderr. */
#ifndef KILN_DRIVER_H
#define KILN_DRIVER_H

#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the passes of every stage, and each stage of pipeline.def as
 * a pipeline named after it ("flow", "codegen", ...). */
void kiln_driver_register_passes(void);

/* Prints pipeline.def: per stage "STAGE     [TARGET: ]pass, pass, ...",
 * a new line for each target's nested pipeline, wrapped at 78 columns. */
void kiln_driver_print_pipeline(FILE *out);

kiln_error *kiln_compile(kiln_session *s);

#ifdef __cplusplus
}
#endif
#endif /* KILN_DRIVER_H */
