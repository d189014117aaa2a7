#!/usr/bin/python3
"""No #include reaches into another top-level folder by a relative path.

usage: check_includes.py SOURCE_ROOT

Top-level folders (compiler/, format/, runtime-min/, tools/, tests/, ...)
share code through their libraries' include directories (format's
contracts as "kiln/NAME.def", a stage's public header by name), never by
"../../other-folder/..." paths, which tie one folder to another's private
files. Checks every .c .h .def .inc file under SOURCE_ROOT (build folders
and .git skipped): a quoted #include whose path starts with "../" must
resolve inside the top-level folder of the file that includes it. Prints
each offending line (file:line: the include and where it lands); exit 1
when there is one, else 0.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SUFFIXES = (".c", ".h", ".def", ".inc", ".cc", ".cpp")


def top(rel):
    return rel.split(os.sep, 1)[0]


def main(root):
    root = os.path.abspath(root)
    bad = 0
    files = 0
    for d, subdirs, names in os.walk(root):
        rel_d = os.path.relpath(d, root)
        subdirs[:] = [s for s in subdirs
                      if not s.startswith(".") and not (rel_d == "." and s.startswith("build"))]
        for n in names:
            if not n.endswith(SUFFIXES):
                continue
            path = os.path.join(d, n)
            rel = os.path.relpath(path, root)
            files += 1
            with open(path, errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m or not m.group(1).startswith("../"):
                        continue
                    target = os.path.relpath(os.path.normpath(os.path.join(d, m.group(1))), root)
                    if target.startswith("..") or top(target) != top(rel):
                        print('%s:%d: #include "%s" reaches %s' % (rel, lineno, m.group(1), target))
                        bad += 1
    print("%d files checked, %d cross-folder relative includes" % (files, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
