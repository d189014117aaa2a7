#!/usr/bin/python3
"""No codegen folder includes another codegen folder's private header.

usage: check_codegen_headers.py SOURCE_ROOT

compiler/codegen/ holds one folder per code generator or shared layer
(cpu, gpu, llvm, llvm_cpu, cuda, transforms, common). What two of them
share lives in compiler/codegen/common behind codegen_common.h; a folder
may call another's public entry points (its public header, e.g.
codegen_cpu.h for the launch rule the GPU path reuses), but never reach
into its internals, which would let one back end break when another
changes. Private, for this check: a header named *_internal.h and any
.def/.inc table (a table is read through its folder's own header). And
common, the bottom layer, includes no header of another codegen folder.

Quoted includes resolve as the compiler resolves them: the including
file's own folder first, then the folder holding a header of that name.
Prints each offending include (file:line: what it reaches and why) and
exits 1 when there is one, else 0.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
SOURCES = (".c", ".h", ".def", ".inc")
COMMON = "common"


def private(name):
    return name.endswith("_internal.h") or name.endswith((".def", ".inc"))


def main(root):
    base = os.path.join(os.path.abspath(root), "compiler", "codegen")
    folders = sorted(d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d)))
    owner = {}  # header name -> codegen folders holding one of that name
    for d in folders:
        for n in os.listdir(os.path.join(base, d)):
            if n.endswith((".h", ".def", ".inc")):
                owner.setdefault(n, []).append(d)
    bad = files = 0
    for d in folders:
        for n in sorted(os.listdir(os.path.join(base, d))):
            if not n.endswith(SOURCES):
                continue
            files += 1
            with open(os.path.join(base, d, n), errors="replace") as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    name = m.group(1)
                    if os.path.exists(os.path.join(base, d, name)):
                        continue  # the folder's own
                    for other in owner.get(os.path.basename(name), []):
                        if other == COMMON:
                            continue
                        why = None
                        if d == COMMON:
                            why = "common includes no other codegen folder's header"
                        elif private(os.path.basename(name)):
                            why = "a private header of codegen/%s" % other
                        if why:
                            print('compiler/codegen/%s/%s:%d: #include "%s" reaches codegen/%s: %s'
                                  % (d, n, lineno, name, other, why))
                            bad += 1
    print("%d codegen files checked, %d includes of another codegen folder's private header"
          % (files, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
