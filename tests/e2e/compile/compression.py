#!/usr/bin/python3
"""e2e: kiln-compile --compression=none|auto|always.

usage: compression.py KILN_COMPILE KILN_RUN KILN_DUMP WORKDIR SAMPLES_DIR

Compiles samples/mlp.mlir for llvm-cpu and cuda:sm_80 in one module with
each mode and reads every executable variant's segment back with
kiln-dump --json: auto stores CPU ELF uncompressed and PTX zstd-compressed
(smaller than it was), none stores nothing compressed (a runtime built
without zstd reads it), always compresses every payload. Each module then
runs on local-sync against numpy's expected values (the always module
through the runtime's decompressing path), and kiln-dump --check-hashes
reads every segment back. An unknown mode is a usage error (exit 2)
naming the valid ones.
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_compiled  # noqa: E402


def main(argv):
    if len(argv) != 6:
        print(__doc__)
        return 2
    compile_, run, dump, work, samples = argv[1:6]
    os.makedirs(work, exist_ok=True)
    src = os.path.join(samples, "mlp.mlir")
    failures = []
    for mode in ("auto", "none", "always"):
        module = os.path.join(work, mode + ".kiln")
        cmd = [compile_, src, "-o", module, "--target=llvm-cpu", "--target=cuda:sm_80",
               "--compression=" + mode]
        print("$ " + " ".join(cmd))
        c = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(c.stdout + c.stderr)
        if c.returncode != 0:
            failures.append("%s: kiln-compile exited with %d" % (mode, c.returncode))
            continue
        j = subprocess.run([dump, "--json", module], capture_output=True, text=True)
        if j.returncode != 0:
            failures.append("%s: kiln-dump --json exited with %d: %s" % (mode, j.returncode, j.stderr))
            continue
        variants = [v for e in json.loads(j.stdout)["executables"] for v in e["variants"]]
        formats = sorted({v["format"] for v in variants})
        if formats != ["ELF", "PTX"]:
            failures.append("%s: variant formats %s, expected ELF and PTX" % (mode, formats))
        for v in variants:
            want = {"none": "none", "always": "zstd",
                    "auto": "zstd" if v["format"] == "PTX" else "none"}[mode]
            print("%s: %s %s: %s, %d of %d bytes" % (mode, v["name"], v["format"], v["compression"],
                                                    v["stored_size"], v["uncompressed_size"]))
            if v["compression"] != want:
                failures.append("%s: variant %s (%s) stored %s, expected %s"
                                % (mode, v["name"], v["format"], v["compression"], want))
            elif want == "zstd" and v["stored_size"] >= v["uncompressed_size"]:
                failures.append("%s: variant %s compressed to %d bytes, not below %d"
                                % (mode, v["name"], v["stored_size"], v["uncompressed_size"]))
            elif want == "none" and v["stored_size"] != v["uncompressed_size"]:
                failures.append("%s: uncompressed variant %s stores %d bytes of %d"
                                % (mode, v["name"], v["stored_size"], v["uncompressed_size"]))
        h = subprocess.run([dump, "--check-hashes", module], capture_output=True, text=True)
        if h.returncode != 0:
            failures.append("%s: kiln-dump --check-hashes exited with %d: %s"
                            % (mode, h.returncode, h.stdout[-500:] + h.stderr))
        rc = run_compiled.main(["run_compiled.py", compile_, run, os.path.join(work, mode), src, "mlp",
                                os.path.join(samples, "mlp.inputs"),
                                os.path.join(samples, "mlp.expected"), "local-sync",
                                "--target=llvm-cpu", "--target=cuda:sm_80", "--compression=" + mode])
        if rc != 0:
            failures.append("%s: the module did not run correctly on local-sync" % mode)
    bad = subprocess.run([compile_, src, "-o", os.path.join(work, "bad.kiln"), "--compression=lz4"],
                         capture_output=True, text=True)
    print("$ kiln-compile --compression=lz4: exit %d: %s" % (bad.returncode, bad.stderr.strip()))
    if bad.returncode != 2 or "none, auto, always" not in bad.stderr or "lz4" not in bad.stderr:
        failures.append("--compression=lz4: expected exit 2 naming 'lz4' and the valid modes")
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
