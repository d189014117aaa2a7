#!/usr/bin/python3
"""Differential test of the shape-changing passes against upstream MLIR's
verifier: random programs of matmul, transpose, fill, elementwise adds and
tensor.casts that hide static sizes (sometimes wrongly: a run-time error
the dynamic type hides), run through kiln-opt pipelines; whatever kiln-opt
accepts and prints must verify in mlir-opt, and kiln-opt must not crash.

    random_shapes.py [COUNT] [FIRST_SEED]     (kiln-opt and mlir-opt on PATH)

mlir-opt takes its inputs in batches (--split-input-file: each program in a
context of its own, as in a process of its own; a process start cost about
0.15 s, most of this test's time); a rejected batch is tried one input at
a time, so each verdict is the one a lone mlir-opt gives.
"""
import random, subprocess, sys

DIMS = [2, 3, 4, 5]
PIPELINES = ['infer-shapes', 'canonicalize', 'canonicalize,infer-shapes,canonicalize']

def ty(shape, dyn):
    return 'tensor<' + 'x'.join('?' if d else str(s) for s, d in zip(shape, dyn)) + 'xf32>'

def program(seed):
    rnd = random.Random(seed)
    args, vals, body, k = [], [], [], [0]
    def fresh():
        k[0] += 1
        return f'%v{k[0]}'
    def empty(shape, dyn):
        e = fresh()
        sizes = ', '.join(f'%c{s}' for s, d in zip(shape, dyn) if d)
        body.append(f'  {e} = tensor.empty({sizes}) : {ty(shape, dyn)}')
        return e
    for i in range(3):
        s = [rnd.choice(DIMS) for _ in range(2)]
        args.append(f'%a{i}: {ty(s, [0, 0])}')
        vals.append((f'%a{i}', s, [0, 0]))
    for _ in range(8):
        op = rnd.choice(['cast', 'matmul', 'add', 'transpose', 'fill'])
        n, s, d = rnd.choice(vals)
        if op == 'cast':
            ns, nd = list(s), [rnd.random() < 0.6 for _ in range(2)]
            if any(d) and rnd.random() < 0.3:  # claim sizes the value may not have
                ns = [rnd.choice(DIMS) if dd else ss for ss, dd in zip(s, d)]
                nd = [False if dd else rnd.random() < 0.5 for dd in d]
            v = fresh()
            body.append(f'  {v} = tensor.cast {n} : {ty(s, d)} to {ty(ns, nd)}')
            vals.append((v, ns, nd))
        elif op == 'matmul':
            cands = [x for x in vals if x[1][0] == s[1] or x[2][0] or d[1]]
            if not cands:
                continue
            n2, s2, d2 = rnd.choice(cands)
            out, od = [s[0], s2[1]], [rnd.random() < 0.7, rnd.random() < 0.7]
            e = empty(out, od)
            v = fresh()
            body.append(f'  {v} = linalg.matmul ins({n}, {n2} : {ty(s, d)}, {ty(s2, d2)}) '
                        f'outs({e} : {ty(out, od)}) -> {ty(out, od)}')
            vals.append((v, out, od))
        elif op == 'add':
            n2 = rnd.choice([x for x in vals if x[1] == s and x[2] == d])[0]
            v = fresh()
            body.append(f'  {v} = arith.addf {n}, {n2} : {ty(s, d)}')
            vals.append((v, s, d))
        elif op == 'transpose':
            out, od = [s[1], s[0]], [d[1], d[0]]
            e = empty(out, od)
            v = fresh()
            body.append(f'  {v} = linalg.transpose ins({n} : {ty(s, d)}) outs({e} : {ty(out, od)}) '
                        'permutation = [1, 0]')
            vals.append((v, out, od))
        else:
            od = [rnd.random() < 0.5 for _ in range(2)]
            e = empty(s, od)
            v = fresh()
            body.append(f'  {v} = linalg.fill ins(%z : f32) outs({e} : {ty(s, od)}) -> {ty(s, od)}')
            vals.append((v, s, od))
    n, s, d = vals[-1]
    head = [f'func.func @f({", ".join(args)}) -> {ty(s, d)} {{', '  %z = arith.constant 0.0 : f32']
    head += [f'  %c{x} = arith.constant {x} : index' for x in DIMS]
    return '\n'.join(head + body + [f'  return {n} : {ty(s, d)}', '}', ''])

def run(cmd, text):
    return subprocess.run(cmd, input=text, text=True, capture_output=True)

SPLIT = '\n// -----\n'

def mlir_opt_accepts(texts, batch=16):
    """mlir-opt's verdict on each of TEXTS, in order."""
    ok = []
    for i in range(0, len(texts), batch):
        part = texts[i:i + batch]
        if run(['mlir-opt', '--split-input-file'], SPLIT.join(part)).returncode == 0:
            ok += [True] * len(part)
        else:
            ok += [run(['mlir-opt'], t).returncode == 0 for t in part]
    return ok

def main():
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    first = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    seeds = range(first, first + count)
    texts = [program(seed) for seed in seeds]
    checked = 0
    outputs = []  # (seed, pipeline, input, kiln-opt's output)
    for seed, text, valid in zip(seeds, texts, mlir_opt_accepts(texts)):
        if not valid:
            continue  # the generator wrote something MLIR rejects: skip
        checked += 1
        for pipe in PIPELINES:
            r = run(['kiln-opt', f'--pass-pipeline={pipe}'], text)
            if (r.returncode < 0 or r.returncode > 1 or 'Sanitizer' in r.stderr
                    or 'runtime error' in r.stderr):
                sys.exit(f'seed {seed}: kiln-opt --pass-pipeline={pipe} crashed '
                         f'({r.returncode})\n{r.stderr}\n{text}')
            if r.returncode != 0:
                continue  # a located error (infer-shapes found a contradiction)
            outputs.append((seed, pipe, text, r.stdout))
    verdicts = mlir_opt_accepts([o[3] for o in outputs], batch=64)
    for (seed, pipe, text, out), ok in zip(outputs, verdicts):
        if not ok:
            m = run(['mlir-opt'], out)
            sys.exit(f'seed {seed}: after {pipe} mlir-opt rejects:\n{m.stderr}\n'
                     f'input:\n{text}\noutput:\n{out}')
    if checked < count // 2:
        sys.exit(f'only {checked} of {count} generated programs were valid')
    print(f'{checked} programs x {len(PIPELINES)} pipelines: all outputs verify in mlir-opt')

main()
