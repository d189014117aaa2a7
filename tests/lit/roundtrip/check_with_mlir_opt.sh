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
# mlir-opt starts once for all files, not once per file (mlir_opt_each.sh).
source "$(dirname "$0")/mlir_opt_each.sh"

files=("$@")
inputs=()
for i in "${!files[@]}"; do
  grep -v '^[[:space:]]*// CHECK' "${files[$i]}" > "$tmp/input.$i.mlir" || true
  inputs+=("$tmp/input.$i.mlir")
done
mlir_opt_each "$tmp/printed" "${inputs[@]}"
status=0
quads=()
for i in "${!files[@]}"; do
  if [ -f "$tmp/printed/$i.mlir" ]; then
    quads+=("${files[$i]}" "$tmp/input.$i.mlir" "$tmp/printed/$i.mlir" "$tmp/new.$i.mlir")
  else
    echo "${files[$i]}: mlir-opt rejects the input"; status=1
  fi
done
if [ ${#quads[@]} -gt 0 ]; then
  /usr/bin/python3 - "${quads[@]}" <<'PY' || status=1
import re, sys

def esc(line):
    # FileCheck reads [[ as a variable use and {{ as a regex; make both literal.
    return re.sub(r'\[\[+|\{\{+', lambda m: '{{' + re.escape(m.group()) + '}}', line)

func_re = re.compile(r'^\s*func\.func\s+(?:(?:private|public|nested)\s+)?@([\w$.-]+)')

def render(lines, first):
    res = [f'// {first}: {esc(lines[0].strip())}']
    for l in lines[1:]:
        res.append('// CHECK-EMPTY:' if not l.strip() else f'// CHECK-NEXT: {esc(l.strip())}')
    return res

def regenerate(src, out):
    """The file with CHECK lines for mlir-opt's print OUT of input SRC."""
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
        raise ValueError('functions printed but not found in the input: ' + ', '.join(missing))
    if pending_pre:  # a file without functions: pin the whole output at the end
        result += render(pending_pre, 'CHECK')
    return '\n'.join(result)

# argv: quadruples NAME INPUT PRINTED NEW; a file whose regeneration fails
# is named and gets no NEW, the others are still written.
status = 0
args = sys.argv[1:]
for i in range(0, len(args), 4):
    name, inp, printed, new = args[i:i + 4]
    src = open(inp).read().split('\n')
    out = open(printed).read().rstrip('\n').split('\n')
    try:
        text = regenerate(src, out)
    except ValueError as e:
        print(f'{name}: {e}', file=sys.stderr); status = 1; continue
    with open(new, 'w') as f:
        f.write(text)
sys.exit(status)
PY
fi
# The CHECK lines are held against mlir-opt's print of each file as it is
# (comments and all), as FileCheck would see it from a RUN line.
[ "$verify" = 1 ] && mlir_opt_each "$tmp/as-is" "${files[@]}"
for i in "${!files[@]}"; do
  f=${files[$i]}
  [ -f "$tmp/new.$i.mlir" ] || continue
  if [ "$verify" = 1 ]; then
    if [ ! -f "$tmp/as-is/$i.mlir" ] \
       || ! "$filecheck" --match-full-lines "$f" < "$tmp/as-is/$i.mlir"; then
      echo "$f: mlir-opt's output does not satisfy the CHECK lines"; status=1
    elif ! diff -u "$f" "$tmp/new.$i.mlir"; then
      echo "$f: CHECK lines differ from a regeneration (run $0 $f)"; status=1
    fi
  else
    cp "$tmp/new.$i.mlir" "$f"
    "$mlir_opt" "$f" | "$filecheck" --match-full-lines "$f" || { echo "$f: regenerated checks fail"; status=1; }
  fi
done
exit $status
