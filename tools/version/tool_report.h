/* How a Kiln tool reports a kiln_error it cannot go on after: the
 * message alone on stderr (it already names the file and what failed),
 * so every tool words a failure the same way. */
#ifndef KILN_TOOL_REPORT_H
#define KILN_TOOL_REPORT_H

#include "kiln_error.h"

/* Prints e's message and a newline to stderr, frees e; returns 1, the
 * exit status for an error. */
int kiln_tool_report(kiln_error *e);

#endif /* KILN_TOOL_REPORT_H */
