#!/usr/bin/python3
"""Checks that format/kiln_module.fbs (what flatc reads) and
format/include/kiln/module_schema.def (what Kiln's C reader, verifier and
builder are generated from) describe the same schema: the same enums with
the same values, the same structs with the same field types and offsets,
the same tables with the same fields in the same slots with the same types.
Prints every disagreement; exits non-zero if there is one."""
import re, sys

fbs_text, def_text = open(sys.argv[1]).read(), open(sys.argv[2]).read()
fbs_text = re.sub(r'//[^\n]*', '', fbs_text)
SCALAR = {'bool': 'BOOL', 'ubyte': 'U8', 'ushort': 'U16', 'uint': 'U32',
          'ulong': 'U64', 'int': 'I32', 'long': 'I64'}
SIZE = {'BOOL': 1, 'U8': 1, 'U16': 2, 'U32': 4, 'U64': 8, 'I32': 4, 'I64': 8}
errors = []

# ---- the .fbs ----
enums, structs, tables = {}, {}, {}
for kind, name, base, body in re.findall(r'\b(enum|struct|table)\s+(\w+)\s*(?::\s*(\w+))?\s*\{([^}]*)\}', fbs_text):
    if kind == 'enum':
        values, nxt = {}, 0
        for item in filter(None, (x.strip() for x in body.split(','))):
            n, _, v = item.partition('=')
            nxt = int(v) if v.strip() else nxt
            values[n.strip()] = nxt
            nxt += 1
        enums[name] = (SCALAR[base], values)
    else:
        fields = [tuple(x.strip() for x in f.split(':')) for f in body.split(';') if f.strip()]
        # A (required) string is a name (KFB_NAME in the .def).
        fields = [(n, 'string (required)' if re.match(r'string\s*\(\s*required\s*\)', t)
                   else t.split('(')[0].split('=')[0].strip()) for n, t in fields]
        (structs if kind == 'struct' else tables)[name] = fields

# ---- the .def ----
def_enums, def_structs, def_tables = {}, {}, {}
for m in re.finditer(r'^(KFB_\w+)\(([^)]*)\)', def_text, re.M):
    macro, a = m.group(1), [x.strip() for x in m.group(2).split(',')]
    if macro == 'KFB_ENUM': def_enums[a[0]] = (a[1], {})
    elif macro in ('KFB_ENUM_VALUE', 'KFB_ENUM_UNSET'): def_enums[a[0]][1][a[1]] = int(a[2])
    elif macro == 'KFB_STRUCT': def_structs[a[0]] = (int(a[1]), int(a[2]), [])
    elif macro == 'KFB_STRUCT_FIELD': def_structs[a[0]][2].append((a[1], int(a[2]), a[3]))
    elif macro == 'KFB_TABLE': def_tables[a[0]] = []
    elif macro in ('KFB_ENUM_END', 'KFB_STRUCT_END', 'KFB_TABLE_END') or len(a) < 3 or '#' in macro:
        pass
    elif macro == 'KFB_DIMS':  # a [long] the verifier checks as dims
        def_tables[a[0]].append((a[1], int(a[2]), 'VEC_SCALAR', ['I64']))
    else:
        def_tables[a[0]].append((a[1], int(a[2]), macro[4:], a[3:]))

if set(enums) != set(def_enums): errors.append(f'enums differ: {sorted(enums)} vs {sorted(def_enums)}')
for e, (base, values) in enums.items():
    if e in def_enums and def_enums[e] != (base, values):
        errors.append(f'enum {e}: .fbs {base} {values} vs .def {def_enums[e]}')

if set(structs) != set(def_structs): errors.append(f'structs differ: {sorted(structs)} vs {sorted(def_structs)}')
for s, fields in structs.items():
    if s not in def_structs: continue
    size, align, dfields = def_structs[s]
    off, maxal = 0, 1
    want = []
    for n, t in fields:
        st = SCALAR[t]
        off = (off + SIZE[st] - 1) // SIZE[st] * SIZE[st]
        want.append((n, off, st))
        off += SIZE[st]
        maxal = max(maxal, SIZE[st])
    off = (off + maxal - 1) // maxal * maxal
    if (want, off, maxal) != (dfields, size, align):
        errors.append(f'struct {s}: .fbs {want} size {off} align {maxal} vs .def {dfields} size {size} align {align}')

if list(tables) != list(def_tables): errors.append(f'tables differ or are ordered differently: {list(tables)} vs {list(def_tables)}')
for t, fields in tables.items():
    dfields = def_tables.get(t, [])
    if len(fields) != len(dfields):
        errors.append(f'table {t}: {len(fields)} fields in .fbs, {len(dfields)} in .def')
    for slot, ((n, ty), d) in enumerate(zip(fields, dfields)):
        dn, dslot, kind, rest = d
        if (n, slot) != (dn, dslot):
            errors.append(f'table {t}: .fbs slot {slot} is {n}, .def has {dn} at slot {dslot}')
            continue
        vec = ty.startswith('[')
        base = ty.strip('[]')
        if base == 'string (required)': want = ('NAME', [])
        elif base == 'string': want = ('VEC_STRING', []) if vec else ('STRING', [])
        elif base in SCALAR: want = ('VEC_SCALAR', [SCALAR[base]]) if vec else ('SCALAR', [SCALAR[base], rest[-1] if rest else '?'])
        elif base in enums: want = ('ENUM_FIELD', [enums[base][0], base, rest[-1] if rest else '?'])
        elif base in structs: want = ('VEC_STRUCT', [base]) if vec else ('STRUCT_REF', [base])
        elif base in tables: want = ('VEC_TABLE', [base]) if vec else ('TABLE_REF', [base])
        else: want = ('?', [base])
        if want != (kind, rest):
            errors.append(f'{t}.{n}: .fbs type {ty} needs KFB_{want[0]}{want[1]}, .def has KFB_{kind}{rest}')
        if kind in ('SCALAR', 'ENUM_FIELD') and rest[-1] != '0':
            errors.append(f'{t}.{n}: non-zero default {rest[-1]} must also be written in the .fbs')

for e in errors: print('MISMATCH:', e)
if errors: sys.exit(1)
print(f'schema in sync: {len(enums)} enums, {len(structs)} structs, {len(tables)} tables')
