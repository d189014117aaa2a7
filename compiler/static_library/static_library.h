/* Static-library output (kiln-compile --output-format=static-library -o
 * DIR/NAME): the model as C-callable native code, no VM, no loader.
 *
 * Takes the module after the codegen stage, compiled with the session's
 * static_name set (so each llvm-cpu variant's payload is a relocatable
 * object whose entry points are global symbols). Writes DIR/NAME.h and
 * DIR/NAME.a (the host program object plus one object per executable,
 * with a symbol index). Internal prefix of this folder: sl_. */
#ifndef KILN_STATIC_LIBRARY_H
#define KILN_STATIC_LIBRARY_H

#include "ir.h"
#include "kiln_error.h"
#include "session.h"

/* Checked before anything is compiled: NAME (the base name of -o) is a C
 * identifier, and there is exactly one target, an llvm-cpu one. */
kiln_error *kiln_static_library_check(const kiln_session *s);

kiln_error *kiln_static_library_write(kiln_op *module, kiln_session *s);

#endif /* KILN_STATIC_LIBRARY_H */
