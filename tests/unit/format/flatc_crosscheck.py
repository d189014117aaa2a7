#!/usr/bin/python3
"""Cross-checks Kiln's FlatBuffers code against Debian's flatc.

1. Modules written by our builder (kiln-mkmodule, several configurations)
   decode with `flatc --json` using format/kiln_module.fbs, and the JSON is
   equal, value for value, to what our reader walks (kiln-dump --raw-json)
   and agrees with the typed view (kiln-dump --json).
2. flatc re-encodes that JSON (`flatc -b`); with the original segments put
   back behind it, the file verifies and reads identically with our reader
   (same raw JSON, same typed view, same extracted payloads).
3. A module authored as JSON and encoded by flatc reads as written, and one
   claiming another format version is refused with a message naming both;
   launch metadata (per-variant exports) written by flatc reads back, and
   each kind of bad launch metadata is refused with its named error.
Exits non-zero with a description of the first mismatch."""
import argparse, json, os, shutil, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--flatc', required=True)
ap.add_argument('--schema', required=True)
ap.add_argument('--mkmodule', required=True)
ap.add_argument('--dump', required=True)
args = ap.parse_args()
work = tempfile.mkdtemp(prefix='kiln-flatc-')
failures = []


def run(*cmd, ok=True):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if ok and p.returncode != 0:
        sys.exit(f'command failed ({p.returncode}): {" ".join(cmd)}\n{p.stderr}')
    return p


def check(cond, what):
    if not cond:
        failures.append(what)
        print('MISMATCH:', what)


def flatc_json(path):
    out = os.path.join(work, 'json')
    shutil.rmtree(out, ignore_errors=True)
    run(args.flatc, '--json', '--strict-json', '--raw-binary', '-o', out,
        args.schema, '--', path)
    name = os.path.splitext(os.path.basename(path))[0] + '.json'
    return json.load(open(os.path.join(out, name)))


def flatc_binary(obj, name):
    src = os.path.join(work, name + '.json')
    json.dump(obj, open(src, 'w'))
    out = os.path.join(work, 'bin')
    shutil.rmtree(out, ignore_errors=True)
    run(args.flatc, '-b', '-o', out, args.schema, src)
    produced = os.listdir(out)
    assert len(produced) == 1, produced
    return open(os.path.join(out, produced[0]), 'rb').read()


def dump(path, mode):
    return json.loads(run(args.dump, mode, path).stdout)


ELEMENT = {'I1': 'i1', 'I8': 'i8', 'I16': 'i16', 'I32': 'i32', 'I64': 'i64',
           'U8': 'ui8', 'U16': 'ui16', 'U32': 'ui32', 'U64': 'ui64',
           'F16': 'f16', 'BF16': 'bf16', 'F32': 'f32', 'F64': 'f64'}


def tensor(t):
    dims = ''.join(('?' if d == -1 else str(d)) + 'x' for d in t.get('dims', []))
    text = f'tensor<{dims}{ELEMENT[t["element_type"]]}>'
    return f'seq<{text}>' if t.get('sequence') else text


def launch(x):
    """A VariantExport as flatc decodes it, in kiln-dump --json's shape."""
    b = x.get('block_size', {})
    return {'block_size': [b.get('x', 0), b.get('y', 0), b.get('z', 0)],
            'static_shared_memory_bytes': x.get('static_shared_memory_bytes', 0),
            'dynamic_shared_memory_bytes': x.get('dynamic_shared_memory_bytes', 0)}


def compare_view(fl, view, tag):
    """The typed view (kiln-dump --json) against flatc's decoding."""
    check(view['name'] == fl.get('name', ''), f'{tag}: module name')
    check(view['format_version'] == fl.get('format_version', 0), f'{tag}: format_version')
    check(view['provenance']['flags'] == fl.get('producer', {}).get('flags', []), f'{tag}: flags')
    fns = fl.get('functions', [])
    check(len(view['functions']) == len(fns), f'{tag}: function count')
    for vf, ff in zip(view['functions'], fns):
        check(vf['name'] == ff['name'], f'{tag}: function name {ff["name"]}')
        check(vf['exported'] == ff.get('exported', False), f'{tag}: exported {ff["name"]}')
        check(vf['inputs'] == [tensor(t) for t in ff.get('inputs', [])], f'{tag}: inputs of {ff["name"]}')
        check(vf['outputs'] == [tensor(t) for t in ff.get('outputs', [])], f'{tag}: outputs of {ff["name"]}')
        for k in ('bytecode_offset', 'bytecode_size', 'i32_register_count', 'ref_register_count'):
            check(vf[k] == ff.get(k, 0), f'{tag}: {k} of {ff["name"]}')
        check([l['pc'] for l in vf['locations']] == [l['pc'] for l in ff.get('locations', [])],
              f'{tag}: locations of {ff["name"]}')
    check([(i['name'], i['signature']) for i in view['imports']] ==
          [(i['name'], i.get('signature', '')) for i in fl.get('imports', [])], f'{tag}: imports')
    check([(r['name'], r['alignment'], r['segment']) for r in view['rodata']] ==
          [(r['name'], r.get('alignment', 0), r.get('segment', 0)) for r in fl.get('rodata', [])],
          f'{tag}: rodata')
    segs = fl.get('segments', [])
    check([(s['offset'], s['stored_size'], s['uncompressed_size'], s['compression'])
           for s in view['segments']] ==
          [(s.get('offset', 0), s.get('size', 0), s.get('uncompressed_size', 0),
            s.get('compression', 'None').lower()) for s in segs], f'{tag}: segments')
    for ve, fe in zip(view['executables'], fl.get('executables', [])):
        check(ve['name'] == fe['name'], f'{tag}: executable name')
        for vx, fx in zip(ve['exports'], fe.get('exports', [])):
            wg = fx['workgroup_size']
            check(vx['workgroup_size'] == [wg['x'], wg['y'], wg['z']], f'{tag}: workgroup size')
            check(vx['bindings_read_only'] == [b.get('read_only', False) for b in fx.get('bindings', [])],
                  f'{tag}: bindings')
        for vv, fv in zip(ve['variants'], fe.get('variants', [])):
            check((vv['name'], vv['target'], vv['format'], vv['segment'], vv['sm_version']) ==
                  (fv['name'], fv['target'], fv.get('format', 'ELF'), fv.get('segment', 0),
                   fv.get('sm_version', 0)), f'{tag}: variant {fv["name"]}')
            check(vv['exports'] == [launch(x) for x in fv.get('exports', [])],
                  f'{tag}: launch metadata of variant {fv["name"]}')


def reassemble(fb, original, first_offset, name):
    """flatc's FlatBuffer, zero padding, then the original segment bytes."""
    check(len(fb) <= first_offset,
          f'{name}: flatc output ({len(fb)} bytes) overlaps the first segment at {first_offset}')
    path = os.path.join(work, name + '.kiln')
    open(path, 'wb').write(fb + bytes(first_offset - len(fb)) + original[first_offset:])
    return path


def author(obj, original, first, name):
    """Encodes obj (whose segment offsets are those of `original`, the
    first at `first`) with flatc and puts the original segments behind it,
    moving them (and the recorded offsets) by whole pages when the new
    FlatBuffer is larger than the old one."""
    obj = json.loads(json.dumps(obj))
    fb = flatc_binary(obj, name)
    if len(fb) > first:
        delta = (len(fb) - first + 4095) // 4096 * 4096
        for s in obj['segments']:
            s['offset'] += delta
        fb = flatc_binary(obj, name)
        path = os.path.join(work, name + '.kiln')
        open(path, 'wb').write(fb + bytes(first + delta - len(fb)) + original[first:])
        return path, obj
    return reassemble(fb, original, first, name), obj


def extract(path, tag):
    out = os.path.join(work, 'x-' + tag)
    run(args.dump, '--extract=' + out, path)
    return {f: open(os.path.join(out, f), 'rb').read() for f in sorted(os.listdir(out))}


configs = {'auto': [], 'large': ['--large'], 'never': ['--compress=never'],
           'always': ['--large', '--compress=always']}
for tag, flags in configs.items():
    path = os.path.join(work, tag + '.kiln')
    run(args.mkmodule, *flags, path)
    fl = flatc_json(path)
    raw = dump(path, '--raw-json')
    check(raw == fl, f'{tag}: kiln-dump --raw-json differs from flatc --json')
    view = dump(path, '--json')
    compare_view(fl, view, tag)

    original = open(path, 'rb').read()
    first = min(s['offset'] for s in view['segments'])
    rebuilt = reassemble(flatc_binary(fl, tag + '-flatc'), original, first, tag + '-flatc')
    raw2 = dump(rebuilt, '--raw-json')
    check(raw2 == raw, f'{tag}: flatc -b rebuilt module reads differently (raw)')
    view2 = dump(rebuilt, '--json')
    for k in ('file', 'flatbuffer_size', 'size_breakdown'):
        view.pop(k)
        view2.pop(k)
    check(view2 == view, f'{tag}: flatc -b rebuilt module reads differently (typed view)')
    check(extract(path, tag) == extract(rebuilt, tag + '-rebuilt'),
          f'{tag}: extracted payloads differ')
    print(f'{tag}: ok ({len(original)} bytes, {len(view["segments"])} segments)')

# A module authored as JSON: edit the decoded sample and encode it with flatc.
base = os.path.join(work, 'never.kiln')
fl = flatc_json(base)
original = open(base, 'rb').read()
first = min(s['offset'] for s in fl['segments'])
fl['name'] = 'authored'
fl['functions'][0]['name'] = 'entry'
fl['functions'][0]['inputs'][0] = {'element_type': 'F16', 'dims': [2, -1, 7]}
fl['imports'].append({'name': 'hal.extra', 'signature': 'i_i'})
# Launch metadata written by flatc: the sm_80 variant's first export.
sm80 = [v for v in fl['executables'][0]['variants'] if v['name'] == 'sm_80'][0]
check(len(sm80.get('exports', [])) == 2, 'sample: sm_80 has launch metadata for both exports')
sm80['exports'][0] = {'block_size': {'x': 32, 'y': 8, 'z': 2}, 'static_shared_memory_bytes': 12288,
                      'dynamic_shared_memory_bytes': 50000}
authored, written = author(fl, original, first, 'authored')
view = dump(authored, '--json')
check(view['name'] == 'authored', 'authored: name')
check(view['functions'][0]['name'] == 'entry', 'authored: function name')
check(view['functions'][0]['inputs'][0] == 'tensor<2x?x7xf16>', 'authored: input type')
check(view['imports'][-1] == {'name': 'hal.extra', 'signature': 'i_i'}, 'authored: import')
check(dump(authored, '--raw-json') == written, 'authored: raw read differs from the JSON source')
vsm80 = [v for v in view['executables'][0]['variants'] if v['name'] == 'sm_80'][0]
check(vsm80['exports'][0] == {'block_size': [32, 8, 2], 'static_shared_memory_bytes': 12288,
                              'dynamic_shared_memory_bytes': 50000}, 'authored: launch metadata')
# Launch metadata the verifier refuses, each with its named error.
for edit, want in (
        (lambda v: v['exports'].pop(), 'variants[2] (sm_80).exports: 1 entries for 2 executable exports'),
        (lambda v: v['exports'][1].update(block_size={'x': 512, 'y': 4, 'z': 1}),
         '(add_dispatch_1): block size 512x4x1 exceeds CUDA\'s limits'),
        (lambda v: v['exports'][1].pop('block_size'),
         '(add_dispatch_1): block size 0x0x0 has a zero dimension (field missing)'),
        (lambda v: v['exports'][0].update(static_shared_memory_bytes=200000),
         '(matmul_dispatch_0): shared memory 250000 bytes (static 200000 + dynamic 50000) exceeds')):
    bad = json.loads(json.dumps(fl))
    edit([v for v in bad['executables'][0]['variants'] if v['name'] == 'sm_80'][0])
    path, _ = author(bad, original, first, 'badlaunch')
    p = run(args.dump, path, ok=False)
    check(p.returncode == 1 and want in p.stderr, f'bad launch metadata: wanted {want!r}, got {p.stderr!r}')

# Another format version is refused, naming both versions.
fl['format_version'] = 7
future, _ = author(fl, original, first, 'future')
p = run(args.dump, future, ok=False)
check(p.returncode == 1 and 'format version 7 is newer' in p.stderr and
      'format versions 1 to 3' in p.stderr and 'recompile the model' in p.stderr,
      f'future version: rc={p.returncode} stderr={p.stderr!r}')
del fl['format_version']
missing, _ = author(fl, original, first, 'noversion')
p = run(args.dump, missing, ok=False)
check(p.returncode == 1 and 'format version 0 (field missing) is not supported' in p.stderr,
      f'missing version: rc={p.returncode} stderr={p.stderr!r}')
# A version-1 module (before launch metadata) still reads.
fl['format_version'] = 1
for v in fl['executables'][0]['variants']:
    v.pop('exports', None)
old_module, _ = author(fl, original, first, 'version1')
check(dump(old_module, '--json')['format_version'] == 1, 'version 1: read')
# A dangling segment index is refused, naming the field.
fl['format_version'] = 3
fl['rodata'][0]['segment'] = 99
bad, _ = author(fl, original, first, 'badseg')
p = run(args.dump, bad, ok=False)
check(p.returncode == 1 and 'rodata[0].segment: index 99 out of range' in p.stderr,
      f'bad segment: rc={p.returncode} stderr={p.stderr!r}')

shutil.rmtree(work)
if failures:
    sys.exit(f'{len(failures)} mismatches')
print('flatc cross-check: all consistent')
