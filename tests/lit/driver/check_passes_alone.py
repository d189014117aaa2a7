#!/usr/bin/python3
"""Every registered pass has a FileCheck test that runs it alone.

usage: check_passes_alone.py KILN_OPT_HELP LIT_DIR

Reads the passes from `kiln-opt --help` and the RUN lines of every .mlir
and .test file under LIT_DIR. A pass P counts as tested alone when some
RUN line invokes kiln-opt with P as its only pass: `--P`, or
`--pass-pipeline=P` (also quoted, inside `builtin.module(...)` or a
target anchor such as `cuda(P)`). Prints the passes without one; exit 1
then, else 0.
"""
import os
import re
import sys

ANCHORS = re.compile(r"^(builtin\.module|func\.func|hal\.executable(\.variant)?|[a-z-]+)\((.*)\)$")


def pipeline_passes(text):
    """The pass names of a pipeline string, anchors stripped."""
    text = text.strip().strip("'\"")
    out = []
    depth, cur = 0, ""
    for ch in text + ",":
        if ch == "(":
            depth += 1
            cur = ""  # an anchor name, not a pass
            continue
        if ch == ")":
            depth -= 1
            continue
        if ch == "," :
            if cur.strip():
                out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    return out


def passes_of_run(cmd, known):
    """For each kiln-opt invocation of a RUN line: the passes it runs."""
    result = []
    for part in re.split(r"\|", cmd):
        words = part.split()
        if not words:
            continue
        if words[0] == "not":
            words = words[1:]
        if not words or os.path.basename(words[0]) != "kiln-opt":
            continue
        run = []
        for w in words[1:]:
            if w.startswith("--pass-pipeline="):
                run += pipeline_passes(w[len("--pass-pipeline="):])
            elif w.startswith("--") and w[2:] in known:
                run.append(w[2:])
        result.append(run)
    return result


def main(help_path, lit_dir):
    helptext = open(help_path).read()
    section = helptext.split("\npasses:\n", 1)[-1].split("\npipelines", 1)[0]
    known = set(re.findall(r"^  --(\S+) ", section, re.M))
    alone = set()
    for d, _, names in os.walk(lit_dir):
        for n in names:
            if not n.endswith((".mlir", ".test")):
                continue
            text = open(os.path.join(d, n), errors="replace").read()
            cmds = re.sub(r"\\\n[^\n]*RUN:", " ", text)
            for m in re.finditer(r"RUN:(.*)", cmds):
                for run in passes_of_run(m.group(1), known):
                    if len(run) == 1:
                        alone.add(run[0])
    missing = sorted(known - alone)
    for p in missing:
        print("no lit test runs pass '%s' alone (kiln-opt --%s FILE)" % (p, p))
    print("%d passes, %d run alone by a lit test" % (len(known), len(known & alone)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
