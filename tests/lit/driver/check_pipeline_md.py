#!/usr/bin/python3
"""Checks compiler/PIPELINE.md against `kiln-compile --print-pipeline`.

usage: check_pipeline_md.py PRINTED_PIPELINE PIPELINE.md [KILN_OPT_HELP]

1. The code block after the line `<!-- kiln-compile --print-pipeline -->`
   is exactly the printed table (compiler/driver/pipeline.def).
2. Every pass of the table is named (`NAME`) in the section of its stage
   (the `## STAGE ...` heading up to the next `## `).
3. With KILN_OPT_HELP (`kiln-opt --help`), it lists every pass (`--NAME`)
   and every stage as a pipeline.
Prints what is missing or different; exit 1 then, else 0.
"""
import re
import sys


def main(printed_path, md_path, help_path=None):
    printed = open(printed_path).read()
    md = open(md_path).read()
    ok = True
    marker = "<!-- kiln-compile --print-pipeline -->\n```\n"
    at = md.find(marker)
    if at < 0:
        print("%s: no '<!-- kiln-compile --print-pipeline -->' code block" % md_path)
        return 1
    block = md[at + len(marker):md.index("```\n", at + len(marker))]
    if block != printed:
        print("%s: the pass table differs from kiln-compile --print-pipeline:" % md_path)
        print("--- PIPELINE.md\n%s--- kiln-compile --print-pipeline\n%s" % (block, printed))
        ok = False
    # stage -> passes, from the printed table (continuation lines belong to
    # the stage above them)
    passes = {}
    stage = None
    for line in printed.splitlines():
        if line[:10].strip():
            stage = line[:10].strip()
        rest = line[10:]
        if ":" in rest:
            rest = rest.split(":", 1)[1]
        passes.setdefault(stage, []).extend(p.strip() for p in rest.split(",") if p.strip())
    sections = re.split(r"^## ", md, flags=re.M)
    for stage, names in passes.items():
        sec = next((s for s in sections if s.split(None, 1)[:1] == [stage]), None)
        if sec is None:
            print("%s: no '## %s' section" % (md_path, stage))
            ok = False
            continue
        for name in names:
            if "`%s`" % name not in sec:
                print("%s: section '## %s' does not name pass `%s`" % (md_path, stage, name))
                ok = False
    if help_path:
        helptext = open(help_path).read()
        for stage, names in passes.items():
            if not re.search(r"^  %s " % re.escape(stage), helptext, re.M):
                print("kiln-opt --help: no pipeline '%s'" % stage)
                ok = False
            for name in names:
                if not re.search(r"^  --%s " % re.escape(name), helptext, re.M):
                    print("kiln-opt --help: no pass --%s" % name)
                    ok = False
    if ok:
        print("%s matches the pipeline (%d stages, %d passes)"
              % (md_path, len(passes), sum(len(v) for v in passes.values())))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
