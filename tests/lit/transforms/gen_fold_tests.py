#!/usr/bin/python3
"""Generates the fold-constants tests (fold-*.mlir) from the case lists
below, with upstream mlir-opt-19 --canonicalize as the oracle for the
folded values.

    /usr/bin/python3 gen_fold_tests.py           # rewrites fold-int/float.mlir
    /usr/bin/python3 gen_fold_tests.py --check   # fails if they are stale

Each case becomes one function computing one op on constants. The function
is given to mlir-opt --canonicalize; the arith.constant line it prints is
the expected result, so Kiln must fold to the very value (and the very
printed form) upstream MLIR folds to. Cases MLIR does not fold but Kiln
does (rsqrt, linalg.transpose of a constant, ...) carry a hand-checked
expected value instead; cases whose result is undefined (division by zero,
oversized shifts, out-of-range conversions) must keep their op. The RUN
line runs fold-constants then dce, so only the result constant remains.
"""
import os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHECK_ONLY = '--check' in sys.argv[1:]
STALE = []
MLIR_OPT = os.environ.get('MLIR_OPT', 'mlir-opt-19')

def c(v, t):
    if v in ('true', 'false'):
        return f'arith.constant {v}'
    return f'arith.constant {v} : {t}'

# (name, result type, body lines using %a %b %c as operand names, operands)
# operands: list of (name, constant-text)
def binary(name, op, t, a, b, rt=None):
    return (name, rt or t, [f'%r = {op} %a, %b : {t}'],
            [('a', c(a, t)), ('b', c(b, t))])

def unary(name, op, t, a):
    return (name, t, [f'%r = {op} %a : {t}'], [('a', c(a, t))])

def cast(name, op, ft, tt, a):
    return (name, tt, [f'%r = {op} %a : {ft} to {tt}'], [('a', c(a, ft))])

def cmp(name, op, pred, t, a, b):
    return (name, 'i1', [f'%r = {op} {pred}, %a, %b : {t}'],
            [('a', c(a, t)), ('b', c(b, t))])

INT = [
    binary('addi_wraps_i8', 'arith.addi', 'i8', 127, 1),
    binary('muli_wraps_i8', 'arith.muli', 'i8', 127, 2),
    binary('subi_wraps_i32', 'arith.subi', 'i32', -2147483648, 1),
    binary('muli_i64_overflow', 'arith.muli', 'i64', 4294967296, 4294967296),
    binary('addi_index', 'arith.addi', 'index', 5, -7),
    binary('addi_i1', 'arith.addi', 'i1', 'true', 'true'),
    binary('divsi', 'arith.divsi', 'i32', -7, 2),
    binary('divui', 'arith.divui', 'i32', -7, 2),
    binary('remsi', 'arith.remsi', 'i32', -7, 2),
    binary('remui', 'arith.remui', 'i32', -7, 2),
    binary('ceildivsi_neg', 'arith.ceildivsi', 'i32', -7, 2),
    binary('ceildivsi_pos', 'arith.ceildivsi', 'i32', 7, 2),
    binary('ceildivui', 'arith.ceildivui', 'i32', 7, 2),
    binary('floordivsi', 'arith.floordivsi', 'i32', -7, 2),
    binary('andi', 'arith.andi', 'i16', 4080, 255),
    binary('ori', 'arith.ori', 'i16', 4080, 255),
    binary('xori', 'arith.xori', 'i16', 4080, 255),
    binary('shli_to_sign', 'arith.shli', 'i32', 1, 31),
    binary('shrsi_negative', 'arith.shrsi', 'i32', -16, 2),
    binary('shrui_negative', 'arith.shrui', 'i32', -16, 28),
    binary('maxsi', 'arith.maxsi', 'i8', -1, 1),
    binary('maxui', 'arith.maxui', 'i8', -1, 1),
    binary('minsi', 'arith.minsi', 'i8', -1, 1),
    binary('minui', 'arith.minui', 'i8', -1, 1),
] + [cmp(f'cmpi_{p}', 'arith.cmpi', p, 'i32', -1, 1)
     for p in ['eq', 'ne', 'slt', 'sle', 'sgt', 'sge', 'ult', 'ule', 'ugt', 'uge']] + [
    ('select_true', 'i32', ['%r = arith.select %a, %b, %c : i32'],
     [('a', c('true', 'i1')), ('b', c(1, 'i32')), ('c', c(2, 'i32'))]),
    ('select_false', 'i32', ['%r = arith.select %a, %b, %c : i32'],
     [('a', c('false', 'i1')), ('b', c(1, 'i32')), ('c', c(2, 'i32'))]),
    cast('extsi', 'arith.extsi', 'i8', 'i32', -1),
    cast('extui', 'arith.extui', 'i8', 'i32', -1),
    cast('extsi_i1', 'arith.extsi', 'i1', 'i32', 'true'),
    cast('extui_i1', 'arith.extui', 'i1', 'i64', 'true'),
    cast('trunci', 'arith.trunci', 'i32', 'i8', 300),
    cast('index_cast_to_i32', 'arith.index_cast', 'index', 'i32', -1),
    cast('index_cast_from_i32', 'arith.index_cast', 'i32', 'index', -5),
    cast('index_castui', 'arith.index_castui', 'i32', 'index', -1),
]

# Undefined at compile time: the op must stay.
KEEP = [
    binary('divsi_by_zero', 'arith.divsi', 'i32', 7, 0),
    binary('divsi_overflow', 'arith.divsi', 'i8', -128, -1),
    binary('remui_by_zero', 'arith.remui', 'i32', 7, 0),
    binary('shli_oversized', 'arith.shli', 'i32', 1, 32),
    cast('fptosi_out_of_range', 'arith.fptosi', 'f32', 'i32', '1.0e+10'),
    cast('fptoui_negative', 'arith.fptoui', 'f32', 'i8', '-2.0'),
]

FLOAT = [
    binary('addf_f32_rounds', 'arith.addf', 'f32', 0.1, 0.2),
    binary('addf_f64', 'arith.addf', 'f64', 0.1, 0.2),
    binary('subf', 'arith.subf', 'f32', 1.5, 4.0),
    binary('mulf', 'arith.mulf', 'f32', 1.5, -4.0),
    binary('divf_third', 'arith.divf', 'f32', 1.0, 3.0),
    binary('divf_by_zero_is_inf', 'arith.divf', 'f32', 1.0, 0.0),
    binary('divf_zero_by_zero_is_nan', 'arith.divf', 'f32', 0.0, 0.0),
    binary('remf', 'arith.remf', 'f32', 7.5, 2.0),
    binary('maximumf_nan', 'arith.maximumf', 'f32', '0x7FC00000', 1.0),
    binary('maximumf_signed_zero', 'arith.maximumf', 'f32', -0.0, 0.0),
    binary('minimumf_signed_zero', 'arith.minimumf', 'f32', 0.0, -0.0),
    binary('minnumf', 'arith.minnumf', 'f32', -3.0, 2.0),
    binary('addf_f16', 'arith.addf', 'f16', 1.0, 0.0009765625),
    binary('mulf_bf16', 'arith.mulf', 'bf16', 3.0, 0.1),
    unary('negf', 'arith.negf', 'f32', 2.5),
    unary('exp', 'math.exp', 'f32', 0.5),
    unary('exp2', 'math.exp2', 'f32', 3.0),
    unary('log', 'math.log', 'f32', 0.5),
    unary('log2', 'math.log2', 'f32', 8.0),
    unary('tanh', 'math.tanh', 'f32', 0.5),
    unary('erf', 'math.erf', 'f32', 0.5),
    unary('sqrt', 'math.sqrt', 'f32', 2.0),
    unary('absf', 'math.absf', 'f32', -3.25),
    unary('floor', 'math.floor', 'f32', -2.5),
    unary('ceil', 'math.ceil', 'f32', -2.5),
    unary('round_half_away', 'math.round', 'f32', 2.5),
    unary('round_negative', 'math.round', 'f32', -2.5),
    unary('sin', 'math.sin', 'f32', 0.5),
    unary('cos', 'math.cos', 'f32', 0.5),
    unary('exp_f64', 'math.exp', 'f64', 1.0),
    binary('powf', 'math.powf', 'f32', 2.0, 10.0),
] + [cmp(f'cmpf_{p}_nan', 'arith.cmpf', p, 'f32', 1.0, '0x7FC00000')
     for p in ['false', 'oeq', 'ogt', 'oge', 'olt', 'ole', 'one', 'ord',
               'ueq', 'ugt', 'uge', 'ult', 'ule', 'une', 'uno', 'true']] + [
    cmp(f'cmpf_{p}', 'arith.cmpf', p, 'f64', 1.0, 2.0)
    for p in ['oeq', 'ogt', 'olt', 'one', 'ueq', 'ult']] + [
    cast('sitofp_rounds', 'arith.sitofp', 'i32', 'f32', 16777217),
    cast('uitofp', 'arith.uitofp', 'i8', 'f32', -1),
    cast('fptosi_truncates', 'arith.fptosi', 'f32', 'i32', -2.75),
    cast('fptoui', 'arith.fptoui', 'f64', 'i16', 65535.5),
    cast('extf', 'arith.extf', 'f16', 'f32', 0.1),
    cast('bitcast_f32_to_i32', 'arith.bitcast', 'f32', 'i32', 1.0),
    cast('bitcast_i16_to_f16', 'arith.bitcast', 'i16', 'f16', 15360),
]

# Kiln folds these, MLIR 19's canonicalize does not: (case, expected line).
# The expected value is exact (checked by hand); mlir-opt prints it in its
# canonical form for the CHECK line.
EXTRA = [
    (unary('rsqrt', 'math.rsqrt', 'f32', 4.0), '0.5', 'f32'),
    (unary('rsqrt_f64', 'math.rsqrt', 'f64', 0.25), '2.0', 'f64'),
    # 0.1 rounded to nearest f16: 0x2E66 = 0.0999755859375.
    (cast('truncf', 'arith.truncf', 'f32', 'f16', 0.1), '0.0999755859375', 'f16'),
    # 3.14159 rounded to nearest bf16: 0x4049 = 3.140625.
    (cast('truncf_bf16', 'arith.truncf', 'f64', 'bf16', 3.14159), '3.140625', 'bf16'),
]

# mlir-opt 19 folds these wrongly; Kiln follows the op's definition.
# (arith.maxnumf/minnumf return the non-NaN operand; MLIR 19's folder
# propagates the NaN: llvm/llvm-project issue 114594, fixed after 19.)
MLIR19_WRONG = [
    (binary('maxnumf_nan', 'arith.maxnumf', 'f32', '0x7FC00000', 1.0), '1.0', 'f32'),
    (binary('minnumf_nan', 'arith.minnumf', 'f32', -2.0, '0x7FC00000'), '-2.0', 'f32'),
]

def function(case):
    name, rt, body, operands = case
    lines = [f'func.func @{name}() -> {rt} {{']
    lines += [f'  %{n} = {text}' for n, text in operands]
    lines += [f'  {b}' for b in body]
    lines.append(f'  return %r : {rt}')
    lines.append('}')
    return '\n'.join(lines)

SPLIT = '// -----'

def mlir_opt_each(texts, *args):
    """mlir-opt ARGS's output for each of TEXTS, one process for all
    (--split-input-file: each text in a context of its own, as in a process
    of its own; a process start cost about 0.15 s a case, most of this
    script's time). Raises, as a lone mlir-opt's failure did, when any
    text is rejected."""
    if not texts:
        return []
    out = subprocess.run([MLIR_OPT, *args, '--split-input-file'],
                         input=('\n' + SPLIT + '\n').join(texts), text=True,
                         capture_output=True, check=True).stdout
    parts = [[]]
    for line in out.splitlines():
        if line.strip() == SPLIT:
            parts.append([])
        else:
            parts[-1].append(line)
    if len(parts) != len(texts):
        sys.exit(f'mlir-opt printed {len(parts)} outputs for {len(texts)} inputs')
    return ['\n'.join(p) for p in parts]

def oracles(cases):
    """mlir-opt's folded constant for each case, or None when it keeps ops."""
    got = []
    for out in mlir_opt_each([function(case) for case in cases], '--canonicalize'):
        body = [l.strip() for l in out.splitlines()]
        i = next(k for k, l in enumerate(body) if l.startswith('func.func'))
        inner = body[i + 1:body.index('}', i)]
        got.append(inner[0].split(' = ', 1)[1]
                   if len(inner) == 2 and ' = arith.constant ' in inner[0] else None)
    return got

def printed_constants(values):
    """How mlir-opt prints each (value, type) as an arith.constant."""
    texts = [f'func.func @f() -> {ty} {{\n  %r = {c(value, ty)}\n  return %r : {ty}\n}}'
             for value, ty in values]
    return [next(l.strip() for l in out.splitlines() if 'arith.constant' in l).split(' = ', 1)[1]
            for out in mlir_opt_each(texts)]

def esc(s):
    return re.sub(r'\[\[+|\{\{+', lambda m: '{{' + re.escape(m.group()) + '}}', s)

def folded_checks(case, expected):
    name, rt = case[0], case[1]
    return [f'// CHECK-LABEL: func.func @{name}()',
            f'// CHECK-NEXT: %[[R:.*]] = {esc(expected)}',
            f'// CHECK-NEXT: return %[[R]] : {rt}']

def kept_checks(case):
    name, rt, body = case[0], case[1], case[2]
    op = body[0].split(' = ', 1)[1].split(' ', 1)[0]
    return [f'// CHECK-LABEL: func.func @{name}()',
            f'// CHECK: %[[R:.*]] = {op} ',
            f'// CHECK-NEXT: return %[[R]] : {rt}']

def write(path, header, cases, extra=(), keep=(), wrong=()):
    out = [header, '// RUN: kiln-opt --pass-pipeline=fold-constants %s | kiln-opt --pass-pipeline=dce | FileCheck %s', '']
    cases, extra, wrong = list(cases), list(extra), list(wrong)
    folds = oracles(list(cases) + [e[0] for e in extra])
    printed = printed_constants([(v, t) for _, v, t in extra + wrong])
    for case, v in zip(cases, folds):
        if v is None:
            sys.exit(f'{path}: mlir-opt does not fold {case[0]}; move it to EXTRA or KEEP')
        out += folded_checks(case, v) + [function(case), '']
    for (case, value, ty), v, p in zip(extra, folds[len(cases):], printed):
        if v is not None:
            sys.exit(f'{path}: mlir-opt now folds {case[0]}; move it to the oracle cases')
        out += folded_checks(case, p) + [function(case), '']
    for (case, value, ty), p in zip(wrong, printed[len(extra):]):
        out += folded_checks(case, p) + [function(case), '']
    for case in keep:
        out += kept_checks(case) + [function(case), '']
    text = '\n'.join(out).rstrip('\n') + '\n'
    full = os.path.join(HERE, path)
    if CHECK_ONLY:
        with open(full) as f:
            if f.read() != text:
                STALE.append(path)
        return
    with open(full, 'w') as f:
        f.write(text)

write('fold-int.mlir',
      '// fold-constants on integer and index scalars: wraparound at the width,\n'
      '// signed and unsigned ops, every cmpi predicate, select, integer casts;\n'
      '// undefined cases stay for run time. Generated by gen_fold_tests.py\n'
      '// (expected values from mlir-opt-19 --canonicalize).',
      INT, keep=KEEP)
write('fold-float.mlir',
      '// fold-constants on floats: rounding to f32/f16/bf16, inf/NaN, signed\n'
      '// zeros in maximumf/minimumf, math functions, every cmpf predicate with a\n'
      '// NaN operand, float casts and bitcasts. Generated by gen_fold_tests.py\n'
      '// (expected values from mlir-opt-19 --canonicalize).',
      FLOAT, extra=EXTRA, wrong=MLIR19_WRONG)

if STALE:
    sys.exit('stale (regenerate with gen_fold_tests.py): ' + ', '.join(STALE))
