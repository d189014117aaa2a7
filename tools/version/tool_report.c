/* kiln_tool_report (tool_report.h): one kiln_error to stderr and the
 * exit status for it. */
#include "tool_report.h"

#include <stdio.h>

int kiln_tool_report(kiln_error *e) {
  fprintf(stderr, "%s\n", kiln_error_message(e));
  kiln_error_free(e);
  return 1;
}
