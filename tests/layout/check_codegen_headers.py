#!/usr/bin/python3
"""No codegen folder includes another codegen folder's private header, and
no back end includes another back end's header.

usage: check_codegen_headers.py SOURCE_ROOT

compiler/codegen/ holds one folder per code generator or shared layer.
The back ends are cpu, gpu, cuda and llvm_cpu; the shared layers are
common, llvm and transforms. What two back ends share lives in a shared
layer (code generation in compiler/codegen/common behind
codegen_common.h, e.g. the launch rule every variant of an executable
tiles by), never in a back end that another includes, so one back end
cannot break when another changes. The rules:
  - no folder includes another codegen folder's private header: a header
    named *_internal.h and any .def/.inc table (a table is read through
    its folder's own header);
  - common, the bottom layer, includes no header of another codegen folder;
  - a back end includes no header of another back end, public or not
    (shared layers and their public headers only), except the pairs named
    in PENDING below.
codegen/llvm may include the public headers of llvm_cpu (llvm_cpu.h) and
cuda (cuda_ptx.h): it is the shared translation of kernel modules to LLVM
IR that both back ends drive, and it writes each one's kernel entry in that
back end's calling convention (llvm/kernel.c: the llvm-cpu executable ABI's
entry table and binding/workgroup loads, kiln_llvm_cpu_abi_*; llvm/
kernel_ptx.c: the cuda_ptx.h PTX kernel ABI). The dependency runs from the
shared layer down to the back ends' public emitters, never from one back
end across to another, so it is allowed; the back ends reach llvm only
through its public header to_llvm.h.

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
BACK_ENDS = ("cpu", "gpu", "cuda", "llvm_cpu")
SHARED = ("common", "llvm", "transforms")
# Includes of one back end by another still to be removed, each named
# with its including file and header ("cuda/x.c", "codegen_gpu.h"), so
# that no new one can appear. Empty: a pass that joins two back ends lives
# above them, in compiler/driver (add_simt_cpu_variant.c).
PENDING = set()


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
                        elif (d in BACK_ENDS and other in BACK_ENDS and
                              ("%s/%s" % (d, n), os.path.basename(name)) not in PENDING):
                            why = "back end %s includes back end %s's header" % (d, other)
                        if why:
                            print('compiler/codegen/%s/%s:%d: #include "%s" reaches codegen/%s: %s'
                                  % (d, n, lineno, name, other, why))
                            bad += 1
    print("%d codegen files checked, %d includes of another codegen folder's private header"
          " or of another back end's header (%d pending, listed in PENDING)"
          % (files, bad, len(PENDING)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
