#!/usr/bin/env bash
# Regenerates or verifies the CHECK lines of the round-trip corpus from
# upstream mlir-opt (LLVM 19), the oracle for MLIR's canonical printed form.
#
#   check_with_mlir_opt.sh FILE.mlir...           rewrite the CHECK lines in place
#   check_with_mlir_opt.sh --verify FILE.mlir...  fail if mlir-opt's output does
#                                                  not satisfy the CHECK lines, or
#                                                  if they differ from a fresh
#                                                  regeneration (hand edits)
#
# How a file is rewritten: every existing `// CHECK...` line is dropped, the
# rest (RUN lines, comments, the hand-written input) is kept verbatim and fed
# to mlir-opt-19, and mlir-opt's output is cut into one block per top-level
# func.func. Each block goes right above the function it belongs to in the
# input: a CHECK-LABEL on the signature line, then CHECK-NEXT on every
# following line (CHECK-EMPTY for blank ones) up to the next function, so
# the whole printed form is pinned, SSA names included. Alias definitions
# (`#map = ...`) and the `module {` line form a first block above the first
# function. FileCheck's `[[` and `{{` are escaped as regex blocks. The
# corpus runs FileCheck with --match-full-lines, so `%0 = ...` cannot match
# `%10 = ...` and every line is pinned whole.
#
# Environment: MLIR_OPT (default mlir-opt-19), FILECHECK (default FileCheck-19).
set -euo pipefail
mlir_opt=${MLIR_OPT:-mlir-opt-19}
filecheck=${FILECHECK:-FileCheck-19}
verify=0
if [ "${1:-}" = --verify ]; then verify=1; shift; fi
[ $# -gt 0 ] || { sed -n '2,22p' "$0"; exit 2; }
command -v "$mlir_opt" >/dev/null || { echo "skipped: $mlir_opt is not installed"; exit 77; }

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
status=0
for f in "$@"; do
  grep -v '^[[:space:]]*// CHECK' "$f" > "$tmp/input.mlir"
  if ! "$mlir_opt" "$tmp/input.mlir" > "$tmp/printed.mlir"; then
    echo "$f: mlir-opt rejects the input"; status=1; continue
  fi
  /usr/bin/python3 - "$tmp/input.mlir" "$tmp/printed.mlir" > "$tmp/new.mlir" <<'PY'
import re, sys
src = open(sys.argv[1]).read().split('\n')
out = open(sys.argv[2]).read().rstrip('\n').split('\n')

def esc(line):
    # FileCheck reads [[ as a variable use and {{ as a regex; make both literal.
    return re.sub(r'\[\[+|\{\{+', lambda m: '{{' + re.escape(m.group()) + '}}', line)

func_re = re.compile(r'^\s*func\.func\s+(?:(?:private|public|nested)\s+)?@([\w$.-]+)')
# Cut the printed output into the preamble and one block per function.
blocks, order, pre, cur = {}, [], [], None
for line in out:
    m = func_re.match(line)
    if m:
        cur = m.group(1); order.append(cur); blocks[cur] = [line]
    elif cur is None:
        pre.append(line)
    else:
        blocks[cur].append(line)

def render(lines, first):
    res = [f'// {first}: {esc(lines[0].strip())}']
    for l in lines[1:]:
        res.append('// CHECK-EMPTY:' if not l.strip() else f'// CHECK-NEXT: {esc(l.strip())}')
    return res

emitted, result, pending_pre = set(), [], pre
for line in src:
    m = func_re.match(line)
    if m and m.group(1) in blocks and m.group(1) not in emitted:
        name = m.group(1); emitted.add(name)
        if pending_pre:
            result += render(pending_pre, 'CHECK')
            pending_pre = []
        result += render(blocks[name], 'CHECK-LABEL')
    result.append(line)
missing = [n for n in order if n not in emitted]
if missing:
    sys.exit('functions printed but not found in the input: ' + ', '.join(missing))
if pending_pre:  # a file without functions: pin the whole output at the end
    result += render(pending_pre, 'CHECK')
sys.stdout.write('\n'.join(result))
PY
  if [ "$verify" = 1 ]; then
    if ! "$mlir_opt" "$f" | "$filecheck" --match-full-lines "$f"; then
      echo "$f: mlir-opt's output does not satisfy the CHECK lines"; status=1
    elif ! diff -u "$f" "$tmp/new.mlir"; then
      echo "$f: CHECK lines differ from a regeneration (run $0 $f)"; status=1
    fi
  else
    cp "$tmp/new.mlir" "$f"
    "$mlir_opt" "$f" | "$filecheck" --match-full-lines "$f" || { echo "$f: regenerated checks fail"; status=1; }
  fi
done
exit $status
