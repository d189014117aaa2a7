#!/usr/bin/python3
"""One module for two CPUs, and modules for the wrong one.

usage: mixed_module.py KILN_COMPILE HOST_KILN_RUN CROSS_KILN_RUN EMULATOR ARCH
                       WORKDIR SAMPLES_DIR [FEATURE ENV]

samples/mlp.mlir compiled with --target=llvm-cpu:HOST --target=llvm-cpu:ARCH
(HOST: this machine's architecture) runs on this machine with the host's
kiln-run and under EMULATOR (qemu-ARCH-static) with the cross-built one,
both against numpy's expected values; each can only run its own
architecture's code, so both passing shows each picked its own variant.
Then a module with only the host's variant is refused under EMULATOR and
one with only ARCH's variant is refused here: exit status 1 and a message
naming the executable's variants (their targets) and the CPU it runs on.

With FEATURE (an ARCH feature the emulator's default CPU lacks, "v" for
riscv64) and ENV (the environment setting that gives the emulated CPU that
feature, QEMU_CPU=rv64,v=true): a module with ARCH and ARCH+FEATURE
variants runs correctly on both emulated CPUs, and one with only the
ARCH+FEATURE variant is refused on the default CPU, naming the missing
variant and the CPU, and runs on the one with FEATURE (so the runtime
detects it).
"""
import os
import platform
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e",
                                "compile"))
import run_compiled  # noqa: E402


def compile_module(compile_, src, out, arches):
    cmd = [compile_, src, "-o", out] + ["--target=llvm-cpu:" + a for a in arches]
    print("$ " + " ".join(cmd))
    c = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(c.stdout + c.stderr)
    return c.returncode == 0


def refused(run_cmd, module, samples, variant, cpu_arch, env=None):
    """Runs MODULE, whose only variant is described as VARIANT ("aarch64",
    "riscv64 +v"), on a cpu_arch kiln-run; a list of what is wrong with
    the refusal."""
    with open(os.path.join(samples, "mlp.inputs")) as f:
        inputs = ["--input=" + l.strip() for l in f if l.strip()]
    cmd = run_cmd + ["--module=" + module, "--function=mlp", "--device=local-sync"] + inputs
    print("$ " + " ".join(a if len(a) < 80 else a[:77] + "..." for a in cmd))
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    msg = r.stdout + r.stderr
    sys.stdout.write(msg)
    bad = []
    if r.returncode != 1:
        bad.append("exit status %d, expected 1" % r.returncode)
    for want in ("has no variant", "the module holds", variant, "device offers " + cpu_arch):
        if want not in msg:
            bad.append("the message does not say '%s'" % want)
    return ["%s module on %s: %s" % (variant, cpu_arch, b) for b in bad]


def with_feature(compile_, cross_run, emulator, arch, work, samples, feature, feature_env):
    """The FEATURE checks of the usage text; a list of failures."""
    failures = []
    src = os.path.join(samples, "mlp.mlir")
    plain = dict(os.environ, KILN_RUN_EMULATOR=emulator)
    name, _, value = feature_env.partition("=")
    richer = dict(plain, **{name: value})
    both = ["--target=llvm-cpu:" + arch, "--target=llvm-cpu:%s+%s" % (arch, feature)]
    args = [src, "mlp", os.path.join(samples, "mlp.inputs"), os.path.join(samples, "mlp.expected"),
            "local-sync"]
    for label, env in (("", plain), (" with " + feature_env, richer)):
        print("== the %s + %s+%s module on %s%s" % (arch, arch, feature, arch, label))
        os.environ.clear()
        os.environ.update(env)
        if run_compiled.main(["run_compiled.py", compile_, cross_run,
                              os.path.join(work, "%s_%s%s" % (arch, feature, "_env" if label else ""))]
                             + args + both):
            failures.append("the %s + %s+%s module did not run correctly on %s%s"
                            % (arch, arch, feature, arch, label))
    only = os.path.join(work, "%s_%s.kiln" % (arch, feature))
    if not compile_module(compile_, src, only, ["%s+%s" % (arch, feature)]):
        return failures + ["kiln-compile failed for %s+%s" % (arch, feature)]
    print("== a module with only %s+%s code, on %s without %s" % (arch, feature, arch, feature))
    failures += refused(shlex.split(emulator) + [cross_run], only, samples,
                        "%s +%s" % (arch, feature), arch, env=plain)
    print("== the same module on %s with %s (%s)" % (arch, feature, feature_env))
    with open(os.path.join(samples, "mlp.inputs")) as f:
        inputs = ["--input=" + l.strip() for l in f if l.strip()]
    r = subprocess.run(shlex.split(emulator) + [cross_run, "--module=" + only, "--function=mlp",
                                                "--device=local-sync"] + inputs,
                       capture_output=True, text=True, env=richer)
    sys.stdout.write(r.stdout + r.stderr)
    if r.returncode != 0:
        failures.append("the %s+%s module did not run with %s" % (arch, feature, feature_env))
    return failures


def main(argv):
    if len(argv) not in (8, 10):
        print(__doc__)
        return 2
    compile_, host_run, cross_run, emulator, arch, work, samples = argv[1:8]
    feature, feature_env = argv[8:10] if len(argv) == 10 else (None, None)
    host = platform.machine()
    host = {"amd64": "x86_64", "arm64": "aarch64"}.get(host, host)
    os.makedirs(work, exist_ok=True)
    src = os.path.join(samples, "mlp.mlir")
    args = [src, "mlp", os.path.join(samples, "mlp.inputs"), os.path.join(samples, "mlp.expected"),
            "local-sync", "--target=llvm-cpu:" + host, "--target=llvm-cpu:" + arch]
    failures = []
    os.environ.pop("KILN_RUN_EMULATOR", None)
    print("== the %s + %s module on this %s machine" % (host, arch, host))
    if run_compiled.main(["run_compiled.py", compile_, host_run, os.path.join(work, "host")] + args):
        failures.append("the mixed module did not run correctly on %s" % host)
    print("== the same module on %s (%s)" % (arch, emulator))
    os.environ["KILN_RUN_EMULATOR"] = emulator
    if run_compiled.main(["run_compiled.py", compile_, cross_run, os.path.join(work, arch)] + args):
        failures.append("the mixed module did not run correctly on %s" % arch)
    host_only, arch_only = os.path.join(work, host + ".kiln"), os.path.join(work, arch + ".kiln")
    if not compile_module(compile_, src, host_only, [host]) or \
            not compile_module(compile_, src, arch_only, [arch]):
        failures.append("kiln-compile failed")
    else:
        print("== a module with only %s code, on %s" % (host, arch))
        failures += refused(shlex.split(emulator) + [cross_run], host_only, samples, host, arch)
        print("== a module with only %s code, on %s" % (arch, host))
        failures += refused([host_run], arch_only, samples, arch, host)
    if feature:
        failures += with_feature(compile_, cross_run, emulator, arch, work, samples, feature,
                                 feature_env)
    for f in failures:
        print("FAIL: " + f)
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
