/* Implements tool_version.h. */
#include "tool_version.h"

#include <stdio.h>
#include <string.h>

#include "kiln/version.h"
#include "kiln_revision.h"

bool kiln_tool_version(int argc, char **argv, const char *tool, const char *detail) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--version") != 0) continue;
    printf("%s %s (revision %s%s%s)\n", tool, KILN_VERSION, kiln_source_revision(),
           detail ? ", " : "", detail ? detail : "");
    return true;
  }
  return false;
}
