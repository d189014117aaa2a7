/* --version for every Kiln tool: one line naming the tool, Kiln's version
 * (kiln/version.h, from project(VERSION) in CMakeLists.txt) and the source
 * revision it was built from, e.g.
 *   kiln-run 0.1.0 (revision 1a42f65c3d2e)
 *   kiln-compile 0.1.0 (revision 1a42f65c3d2e, LLVM 19.1.7) */
#ifndef KILN_TOOL_VERSION_H
#define KILN_TOOL_VERSION_H

#include <stdbool.h>

/* When an argument is exactly "--version", prints the line (DETAIL, when
 * not NULL, goes inside the parentheses) to stdout and returns true: the
 * tool then exits with status 0. */
bool kiln_tool_version(int argc, char **argv, const char *tool, const char *detail);

#endif /* KILN_TOOL_VERSION_H */
