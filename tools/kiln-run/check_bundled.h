/* kiln-run --check-bundled: runs the check data that kiln-compile
 * --bundle-io stored in the module (Module.bundled_cases) on the device
 * and compares every output with the expected one elementwise, passing
 * where |got - want| <= atol + rtol * |want| (NaN only matches NaN).
 * Reads the section through the module view (format/), so runtime-min
 * carries no code for it. */
#ifndef KILN_RUN_CHECK_BUNDLED_H
#define KILN_RUN_CHECK_BUNDLED_H

#include "run_session.h"

/* Prints a line per output and a summary to stdout; returns the exit
 * code: 0 when every check passed, 1 when one failed or could not run
 * (or the module holds no check data). */
int kiln_run_check_bundled(const kiln_run_options_t *o, kiln_run_session_t *s);

#endif /* KILN_RUN_CHECK_BUNDLED_H */
