#!/usr/bin/env bash
# README command 2: install what is missing, build, run the whole suite.
# Three builds: gcc RelWithDebInfo (build/), whose e2e tests run a second
# time with the CPU features masked to the baseline (KILN_CPU_FEATURES);
# gcc Release (build-release/), built only, for its -O3 warnings; and
# clang-19 with AddressSanitizer + UndefinedBehaviorSanitizer plus the
# libFuzzer targets, each run for a bounded time. The last line sums the
# ctest runs, and counts each build that failed to configure or build as
# one failure. The sanitizer tree is Debug (asserts on) built at -O1
# (KILN_ASAN_OPT, default -O1; KILN_ASAN_OPT=-O0 for CMake's plain Debug):
# the same instrumentation, and two of its slowest tests ran 1.9x and
# 2.2-3.5x faster than at -O0.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
./scripts/bootstrap.sh || exit 1
jobs=$(nproc)

status=0
build_failed=0  # builds that failed to configure or build, one failure each

build_only() {  # build_only BUILD_DIR CMAKE_ARGS...
  local dir=$1; shift
  cmake -S . -B "$dir" "$@" >"$dir.configure.log" 2>&1 \
    || { cat "$dir.configure.log"; echo "configure of $dir failed"; build_failed=$((build_failed + 1)); return 1; }
  cmake --build "$dir" -j"$jobs" >"$dir.build.log" 2>&1 \
    || { tail -60 "$dir.build.log"; echo "build of $dir failed"; build_failed=$((build_failed + 1)); return 1; }
}

mkdir -p build
logs="build/ctest.log build/ctest-baseline-cpu.log build/ctest-asan.log"
rm -f $logs  # a log left by an earlier run must not be counted
# gcc RelWithDebInfo. Its e2e suite runs again with the CPU features masked
# to the architecture's baseline (runtime-min/README.md), so the variants a
# CPU without AVX-512 or AVX2 would pick are built and run here too; it
# runs whenever the build succeeded, so one failing test elsewhere does
# not hide these from the count. The e2e tests labelled with another
# architecture (aarch64, riscv64) are left out of that second run: they
# compile for their explicit target and run under QEMU, where the host's
# features, masked or not, choose nothing.
# The gcc runs' test processes take glibc's malloc on transparent huge
# pages (glibc.malloc.hugetlb=1: madvise on its heap and mmap chunks):
# each of the suite's kiln-compile and python processes faults its heap
# in anew, 4 KiB at a time otherwise (measured: about 19% less CPU time
# for model-compiling tests, 7% for the small op tests). The tests that
# count the runtime's own page faults or peak RSS unset it for themselves
# (ENVIRONMENT_MODIFICATION), so it hides nothing they check. The ASan
# runs' own binaries allocate through ASan, not glibc's malloc.
gcc_tunables=glibc.malloc.hugetlb=1
if build_only build -DCMAKE_BUILD_TYPE=RelWithDebInfo; then
  GLIBC_TUNABLES=$gcc_tunables ctest --test-dir build -j"$jobs" --output-on-failure --timeout 900 2>&1 \
    | tee build/ctest.log || status=1
  GLIBC_TUNABLES=$gcc_tunables KILN_CPU_FEATURES=$(uname -m) ctest --test-dir build -R '^e2e\.' -LE '^(aarch64|riscv64)$' -j"$jobs" \
    --output-on-failure --timeout 900 2>&1 | tee build/ctest-baseline-cpu.log || status=1
fi
# gcc Release, built but not run: -O3 sees warnings (maybe-uninitialized
# after inlining) that the -O2 build does not, and Release is the build
# type many users pick first.
build_only build-release -DCMAKE_BUILD_TYPE=Release
# Always set, so a tree once configured with another KILN_ASAN_OPT
# returns to the default.
asan_flags="-g ${KILN_ASAN_OPT:--O1}"
asan_opt=("-DCMAKE_C_FLAGS_DEBUG=$asan_flags" "-DCMAKE_CXX_FLAGS_DEBUG=$asan_flags")
if [ "${KILN_SKIP_SANITIZE:-0}" != 1 ] && build_only build-asan -DCMAKE_BUILD_TYPE=Debug "${asan_opt[@]}" \
    -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
    -DKILN_SANITIZE=ON -DKILN_FUZZ=ON; then
  ctest --test-dir build-asan -j"$jobs" --output-on-failure --timeout 900 2>&1 | tee build/ctest-asan.log || status=1
fi

# Sum the per-test verdict lines of the runs ("Test #N: name ... Passed").
passed=0 failed=0 skipped=0
for log in $logs; do
  [ -f "$log" ] || continue
  p=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' "$log")
  f=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*(Failed|Exception|Timeout)|Not Run)' "$log")
  s=$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' "$log")
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
done
failed=$((failed + build_failed))
[ "$failed" -eq 0 ] || status=1
[ $((passed + failed)) -gt 0 ] || status=1
echo "$passed passed, $failed failed, $skipped skipped"
exit $status
