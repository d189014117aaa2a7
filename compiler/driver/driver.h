/* The compiler driver: the whole pipeline in one function (pipeline.c).
 *
 * Takes: a session whose options name the input and output. Guarantees:
 * the input is read (MLIR text; ONNX is recognized by content), every
 * stage that the input still needs runs in order up to
 * options.compile_to, then either the IR is printed (to output_path, or
 * stdout) or the module is written; a stage whose library is not linked
 * into this build fails with "stage X is not built yet" instead of being
 * skipped. Errors carry a message; located diagnostics go to stderr. */
#ifndef KILN_DRIVER_H
#define KILN_DRIVER_H

#include "session.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the passes of every stage linked into this build. */
void kiln_driver_register_passes(void);

/* NULL when every pass of stage s is available; otherwise the first
 * missing pass name (s == KILN_STAGE_SERIALIZE: never missing). */
const char *kiln_driver_stage_missing(kiln_stage_t s);

/* Allows ops outside the op table in the input (hand-written hal-level
 * IR before the hal dialect had rows); off by default. */
void kiln_driver_allow_unregistered(kiln_session *s, bool allow);

kiln_error *kiln_compile(kiln_session *s);

#ifdef __cplusplus
}
#endif
#endif /* KILN_DRIVER_H */
