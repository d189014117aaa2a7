"""What the tests of tests/e2e/debug share: fail() and run() (a command that
must exit as expected, else the test fails showing its output), the host
target they compile for, and a deliberately wrong kernel for
--substitute-executable: wrong_kernel(EXPORT, ...) takes
one export as `kiln-dump --json` lists it (name, workgroup size, push
constants, which bindings are read-only), writes C against
format/include/kiln/executable_abi.h with the same metadata (the runtime
checks it against the module) that fills every binding it writes with 0.5f
and reads nothing, and builds it into an ELF shared object the way
samples/handmade builds its kernel. x86-64 only.
"""
import os
import subprocess
import sys

TARGET = "--target=llvm-cpu:x86_64"
ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def run(cmd, expect=0):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != expect:
        fail("%s exited %d (expected %d):\n%s%s" % (" ".join(cmd), r.returncode, expect,
                                                    r.stdout, r.stderr))
    return r


WRONG_KERNEL = r"""/* A deliberately wrong kernel for %(name)s: the first workgroup fills
 * every binding the kernel writes with 0.5f; it reads nothing. */
#include "kiln/executable_abi.h"

static int wrong(const kiln_dispatch_state_t *d, const kiln_workgroup_state_t *w) {
  if (w->workgroup_id[0] | w->workgroup_id[1] | w->workgroup_id[2]) return 0;
  for (uint32_t b = 0; b < d->binding_count; ++b) {
    if ((%(readonly)uu >> b) & 1u) continue;
    uint32_t *p = d->binding_ptrs[b];
    for (uint64_t i = 0; i < d->binding_lengths[b] / 4; ++i) p[i] = 0x3f000000u;
  }
  return 0;
}

static const kiln_export_info_t exports[] = {
    {"%(name)s", wrong, {%(wg)s}, %(bindings)d, %(push)d, %(readonly)uu},
};
static const kiln_executable_table_t table = {KILN_EXECUTABLE_ABI_VERSION, 1, exports};

const kiln_executable_table_t *kiln_executable_query(uint32_t version);
const kiln_executable_table_t *kiln_executable_query(uint32_t version) {
  return version == KILN_EXECUTABLE_ABI_VERSION ? &table : (void *)0;
}
"""


def wrong_kernel(export, clang, lld, work):
    """An ELF that keeps EXPORT's metadata (the module checks it) and
    computes garbage, built the way samples/handmade builds its kernel."""
    ro = export["bindings_read_only"]
    src = os.path.join(work, export["name"] + ".wrong.c")
    with open(src, "w") as f:
        f.write(WRONG_KERNEL % {"name": export["name"], "bindings": len(ro),
                                "push": export["push_constant_count"],
                                "readonly": sum(1 << i for i, r in enumerate(ro) if r),
                                "wg": ", ".join(str(v) for v in export["workgroup_size"])})
    obj, so = src[:-2] + ".o", src[:-2] + ".so"
    for cmd in ([clang, "--target=x86_64-unknown-linux-gnu", "-fPIC", "-O1", "-ffreestanding",
                 "-nostdlib", "-fno-builtin", "-I" + os.path.join(ROOT, "format", "include"),
                 "-c", src, "-o", obj],
                [lld, "-shared", "-nostdlib", "--no-undefined", "-z", "now", "--hash-style=sysv",
                 "--build-id=none", obj, "-o", so]):
        run(cmd)
    return so
