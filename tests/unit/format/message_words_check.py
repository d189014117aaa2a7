#!/usr/bin/env python3
"""Checks the message word catalog (format/module/message_words.py) on
what this build compiled: every copy under BUILD/message_words must be its
original source (SRC/<path>) but for a '#line' first line and its string
literals, and each literal must expand (the phrases of
message_phrases.def, then the words of message_words.def, as
kiln_message_text expands them) to the original's text with the same
conversion specifications. Then a fixture with the cases the rewriter must
get right (a conversion split across literals or a macro, calls inside
comments, a nested call, arguments that are not formats, #define'd
formats, a call in a macro body) goes through it.

Calls whose literal arguments were folded into their format (message_words
folds) are checked by formatting both calls (original and folded) with the
same stand-in values: the texts must be equal.

  message_words_check.py SRC BUILD [SPECS]   (SPECS: the message-words
  target's, ';'-separated, SRC=NAME:POS,...; without them folds are not
  recognised and a folded copy fails)"""
import os
import re
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "format/module"))
import message_words as mw  # noqa: E402

WORDS = os.path.join(SRC, "format/module/message_words.def")
# The C decoder's set (kiln/message.h) is the rewriter's, but for the end.
header = open(os.path.join(SRC, "format/include/kiln/message.h")).read()
m = re.search(r'#define KILN_MESSAGE_ATTACH ("[^"]*")', header)
ATTACH = mw.decode(m.group(1)[1:-1]) + "\0" if m else None
PHRASES = os.path.join(SRC, "format/module/message_phrases.def")
words = list(mw.read_words(WORDS))
phrases = mw.read_phrases(PHRASES, mw.read_words(WORDS))
# The C decoder's phrase codes: control bytes 1-8 and 11-31, then the
# bytes past the words' (0x80 + their count up to 0xFF), in order.
CODES = [chr(c) for c in list(range(1, 9)) + list(range(11, 32)) +
         list(range(0x80 + len(words), 0x100))]
failures = []
if CODES[:len(phrases)] != mw.PHRASE_CODES[:len(phrases)]:
    failures.append("message_words.PHRASE_CODES differ from kiln_message_text's")


def unphrase(value, phrases=phrases):
    return "".join(unphrase(phrases[CODES.index(c)], phrases) if c in CODES[:len(phrases)]
                   else c for c in value)


def expand(value, words=words, after="\0", phrases=phrases):
    """value as kiln_message_text expands it: its phrase codes first (in
    after too), then a word byte brings a space unless the next byte
    (after value: after's first) is in ATTACH. The C decoder's own set
    is kiln/message.h's, checked against mw.ATTACH."""
    value, after = unphrase(value, phrases), (unphrase(after, phrases) or "\0")[:1]
    out, text = [], value + after
    for k, c in enumerate(value):
        if ord(c) >= 0x80:
            out.append(words[ord(c) - 0x80])
            if text[k + 1:k + 2] not in ATTACH:
                out.append(" ")
        else:
            out.append(c)
    return "".join(out)


def split(text):
    """text as (code between literals, [literal values])."""
    code, values, i, start = [], [], 0, 0
    while i < len(text):
        if text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif text.startswith("//", i):
            i = text.index("\n", i)
        elif text[i] == "'":
            i = mw.skip_literal(text, i)
        elif text[i] == '"':
            j = mw.skip_literal(text, i)
            code.append(text[start:i])
            values.append(mw.decode(text[i + 1:j - 1]))
            i = start = j
        else:
            i += 1
    code.append(text[start:])
    return code, values


def specs(value):
    return [m.group(0) for m in mw.SPEC.finditer(value)]


CATALOG = os.path.join(SRC, "format/module/message_catalog.def")
catalog_ids = mw.read_catalog(CATALOG, mw.read_words(WORDS), phrases)
catalog_keys = {n: k for k, n in catalog_ids.items()}


def check_catalog(fmt, n, defs, where):
    """fmt, a kiln_message_id's FORMAT (literals and PRI* macros, or one
    #define'd format of defs), must be catalog entry n's TEXT, and that
    entry's STORED must expand to it (the same macros in the same
    places)."""
    found = mw.tokens(fmt, 0, len(fmt), raw=True) or []
    if len(found) == 1 and isinstance(found[0][2], mw.Macro) and found[0][2] in defs:
        found = defs[found[0][2]]
    key = catalog_keys.get(n)
    if key is None or mw.canonical(found) != key:
        failures.append(f"{where}: {mw.CATALOG_ID}({fmt.strip()}, {n}): not catalog entry {n}")
        return
    stored = mw.code_format(key, mw.read_words(WORDS), phrases)
    for k, (is_macro, text) in enumerate(key):
        if is_macro:
            continue
        if k + 1 < len(key) and stored[k] and ord(unphrase(stored[k])[-1]) >= 0x80:
            failures.append(f"{where}: catalog entry {n}: {stored[k]!r} ends in a word byte before a macro")
        if expand(stored[k]) != text:
            failures.append(f"{where}: catalog entry {n}: {stored[k]!r} does not expand to {text!r}")


def unwrap(text, where, defs={}):
    """text with each kiln_message_coded(FORMAT, STORED) as FORMAT, and
    for each string literal of the result, in order, (what the binary
    holds, whether STORED gives it). STORED must be FORMAT's tokens with
    its literals coded: the same macros in the same places. Each
    kiln_message_id(FORMAT, ID) is FORMAT too, checked against the catalog
    (check_catalog), its literals then as they are."""
    out, stored, last = [], [], 0
    for m in re.finditer(r"\b(" + mw.CODED + "|" + mw.CATALOG_ID + r")\(", text):
        if m.start() < last:
            continue
        args, end = mw.split_args(text, m.end() - 1)
        before = text[last:m.start()]
        out.append(before)
        stored += [(v, False) for v in split(before)[1]]
        if len(args) != 2:
            failures.append(f"{where}: {m.group(1)} with {len(args)} arguments")
            return text, []
        fmt, coded = (text[a:b] for a, b in args)
        if m.group(1) == mw.CATALOG_ID:
            check_catalog(fmt, int(coded), defs, where)
            out.append(fmt)
            stored += [(v, True) for v in split(fmt)[1]]
            last = end
            continue
        tf = mw.tokens(fmt, 0, len(fmt), raw=True) or []
        tc = mw.tokens(coded, 0, len(coded), raw=True) or []
        shape = [[v if isinstance(v, mw.Macro) else None for _, _, v in t] for t in (tf, tc)]
        if not tf or shape[0] != shape[1]:
            failures.append(f"{where}: {mw.CODED}({fmt.strip()}, {coded.strip()}) does not pair "
                            "each literal and macro")
        out.append(fmt)
        stored += [(v, True) for _, _, v in tc if not isinstance(v, mw.Macro)]
        last = end
    out.append(text[last:])
    stored += [(v, False) for v in split(text[last:])[1]]
    return "".join(out), stored


CALLS = {}
for spec in (sys.argv[3].split(";") if len(sys.argv) > 3 else []):
    if spec:
        src, items = spec.lstrip("?").split("=")
        CALLS[src] = mw.parse_calls(items.split(","))
LENGTH = re.compile(r"(hh|h|ll|l|z|j|t|L)(?=[a-zA-Z]$)")


def render(fmt, values):
    """fmt as printf would format it, each conversion taking the next of
    values, or a stand-in (3 for integers and '*', "S" for %s)."""
    out, last, values = [], 0, list(values)
    for m in mw.SPEC.finditer(fmt):
        spec = LENGTH.sub("", m.group(0))
        out.append(fmt[last:m.start()])
        last = m.end()
        if spec == "%%":
            out.append("%")
            continue
        stars = [3 for _ in range(spec.count("*"))]
        for _ in stars:
            values.pop(0)
        v = values.pop(0)
        out.append(spec.replace("*", "%d") % tuple(stars + [v if v is not None else
                                                              ("S" if spec[-1] == "s" else 3)]))
    return "".join(out) + fmt[last:]


def folded_source(orig_path, orig):
    """orig with each fold message_words makes (one in the catalog) made:
    the folded format in place of the format, the folded arguments gone;
    each checked by render against the unfolded call."""
    calls = CALLS.get(orig_path)
    if not calls:
        return orig
    defs = mw.defined_formats(orig)
    args_at = {args[pos][0]: (args, pos) for args, pos in mw.call_args(orig, calls)}
    edits = []
    for a, b, key, drops in mw.folds(orig, calls):
        if key not in catalog_ids:
            continue
        args, pos = args_at[a]
        found = mw.tokens(orig, a, b, raw=True)
        if len(found) == 1 and isinstance(found[0][2], mw.Macro) and found[0][2] in defs:
            found = defs[found[0][2]]
        fmt = "".join(v for _, _, v in found)
        dropped = {j for i, j in drops}
        values = [mw.literal_arg(orig, x, y, defs) if y in dropped else None
                  for x, y in args[pos + 1:]]
        kept = [v for (x, y), v in zip(args[pos + 1:], values) if y not in dropped]
        if render(fmt, values) != render(key[0][1], kept):
            failures.append(f"{orig_path}: {orig[a:b].strip()!r} folded as {key[0][1]!r}: "
                            f"{render(key[0][1], kept)!r}, not {render(fmt, values)!r}")
        edits += [(a, b, mw.c_literal(key[0][1]))] + [(i, j, "") for i, j in drops]
    out, last = [], 0
    for i, j, new in sorted(edits):
        out += [orig[last:i], new]
        last = j
    return "".join(out + [orig[last:]])


def check_copy(orig_path, copy_path):
    orig = folded_source(orig_path, open(orig_path).read())
    copy = open(copy_path).read()
    first, second, rest = copy.split("\n", 2)
    if first != mw.PRELUDE or second != f'#line 1 "{orig_path}"':
        failures.append(f"{copy_path}: first lines {first!r}, {second!r}")
        return 0
    unwrapped, stored = unwrap(rest, copy_path, mw.defined_formats(orig))
    code_o, vals_o = split(orig)
    code_c, vals_c = split(unwrapped)
    if code_o != code_c or len(stored) != len(vals_o):
        failures.append(f"{copy_path}: differs from {orig_path} outside string literals")
        return 0
    rewritten = 0
    for k, (o, (c, whole)) in enumerate(zip(vals_o, stored)):
        # What the decoder sees after the literal: the next one's first
        # byte when the compiler joins them, else the end of the format;
        # a macro's text is unknown, so no word byte may end a literal
        # that a macro follows.
        between = re.sub(r"/\*.*?\*/", "", code_c[k + 1], flags=re.S)
        after = "\0"
        if not between.strip() and k + 1 < len(stored):
            after = stored[k + 1][0] or "\0"
        elif re.match(r"\s*[A-Za-z_]", between) and c and ord(unphrase(c)[-1]) >= 0x80:
            failures.append(f"{copy_path}: {c!r} ends in a word byte before a macro")
        # The compiler checks a wrapped format as written (it must be the
        # original), any other as stored (its conversions must stay).
        if whole and vals_c[k] != o or not whole and specs(c) != specs(o):
            failures.append(f"{copy_path}: {o!r}: the compiler checks {vals_c[k]!r}")
        if expand(c, after=after) != o:
            failures.append(f"{copy_path}: {c!r} does not expand to {o!r}")
        rewritten += c != o
    return rewritten


copies = rewritten = 0
root = os.path.join(BUILD, "message_words")
for target in sorted(os.listdir(root)) if os.path.isdir(root) else []:
    for d, _, files in os.walk(os.path.join(root, target)):
        for f in files:
            copy = os.path.join(d, f)
            rel = os.path.relpath(copy, os.path.join(root, target))
            copies += 1
            rewritten += check_copy(os.path.join(SRC, rel), copy)
if copies and not rewritten:
    failures.append("no literal was rewritten: the calls' names or positions are stale")

FIXTURE = r'''
#define OPEN "at %"
/* krt_status(a, c, "inside a comment: the buffer function") */
x = krt_status(a, c, "the buffer %" PRIu64 " function", n);
x = krt_status(a, c, "%" "lu buffer", n);
x = krt_status(a, c, OPEN "lu buffer %s", n, "function buffer");
x = krt_status_prefix(krt_status(a, c, "buffer"), "function %s", "module");
x = other(a, c, "the buffer function");
x = krt_status(a, c, flag ? "the buffer" : "function");
#define LEAD "the buffer %s"
#define SHARED "buffer function"
#define CONT \
  "function %s"
x = krt_status(a, c, LEAD, n);
x = krt_status(a, c, LEAD " buffer", n);
x = krt_status(a, c, SHARED);
x = other(SHARED);
x = krt_status(a, c, CONT, s);
#define MULTI(a) krt_status(a, c, \
    "buffer")
x = krt_status(a, c, "buffer'%s' the  function, buffer[%u]", s, n);
x = krt_status(a, c, "the" "buffer" " %s", s);
x = krt_status(a, c, "function" PRIu64, n);
x = krt_status(a, c, "the buffer " PRIu64, n);
x = krt_status(a, c, "the buffer[%u]", n);
x = krt_status(a, c, "a -%-" "8lu -", n);
#define TAIL " %s"
x = krt_status(a, c, "b -%-" "8ld -" TAIL, n, s);
x = krt_status(a, c, "x[%u]" TAIL, n, s);
'''
# Its own words: "lu" would be a word if a conversion's letters were.
FIXTURE_WORDS = ["buffer", "lu", "function", "the"]
# And phrases (codes 1-4): a word and what attaches to it, a byte that
# may also continue a conversion ("%-8lu"), one holding a word and an
# earlier phrase, and one holding a conversion.
FIXTURE_PHRASES = [("\x80[", "buffer["), ("-", "-"), ("\x83\x01", "the buffer["),
                   ("%u]", "%u]")]


def phrase_lines(items):
    return "".join(f"KILN_MESSAGE_PHRASE({mw.c_literal(a)}, {mw.c_literal(b)})\n" for a, b in items)


with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "fixture.c")
    out = os.path.join(tmp, "out.c")
    fixture_words = os.path.join(tmp, "words.def")
    fixture_phrases = os.path.join(tmp, "phrases.def")
    open(src, "w").write(FIXTURE)
    open(fixture_words, "w").write("".join(f'KILN_MESSAGE_WORD("{w}")\n' for w in FIXTURE_WORDS))
    open(fixture_phrases, "w").write(phrase_lines(FIXTURE_PHRASES))
    subprocess.run([sys.executable, os.path.join(SRC, "format/module/message_words.py"),
                    "transform", fixture_words, fixture_phrases, src, out, "krt_status:2",
                    "krt_status_prefix:1"], check=True)
    unwrapped, stored = unwrap(open(out).read().split("\n", 2)[2], "fixture")
    got = [c for c, _ in stored]
    want = split(FIXTURE)[1]
    # What the compiler checks: a wrapped format as written.
    for (c, whole), checked, w in zip(stored, split(unwrapped)[1], want):
        if whole and checked != w:
            failures.append(f"fixture: {w!r} is checked as {checked!r}")
    index = {w: i for i, w in enumerate(FIXTURE_WORDS)}
    # Which literals must change: formats only; not the one after an open
    # conversion's first letters ("lu"), not arguments, comments or others;
    # a #define'd format used only to start formats (LEAD, CONT), not one
    # used elsewhere too (SHARED) nor what follows a macro (" buffer": a
    # macro may end in an open conversion); a call in a macro body.
    # Spaces: a word byte stands for the space after it when a byte outside
    # ATTACH follows the space ("the buffer %"), not when the word runs into
    # one ("buffer'") or the next literal starts with one ("the" "buffer"),
    # nor when a macro follows ("function" PRIu64): those stay spelled out;
    # a space before a macro stays too ("the buffer " PRIu64).
    must = {"the buffer %", " function", "lu buffer", "lu buffer %s",
            "function %s", "buffer", "the buffer %s",
            "buffer'%s' the  function, buffer[%u]", "the buffer "}
    spaced = {"the buffer %": "\x83\x80%",
              "buffer'%s' the  function, buffer[%u]": "buffer'%s' \x83  \x82, \x80[%u]",
              "the buffer ": "\x83\x80 "}
    # Phrases: in code order, so the third takes what the first left. A
    # format of literals (and PRI* macros) only is stored through
    # kiln_message_coded, where phrases may hold conversions or parts of
    # them ("%u]", the '-' of "%-" "8lu"); in any other (here with TAIL)
    # they take neither the '-' of a conversion the next literal ends
    # ("%-" "8ld"), nor what continues one an earlier literal opened
    # ("8ld"), nor a phrase holding a '%'.
    fixture_stored = [a for a, _ in FIXTURE_PHRASES]
    phrased = {"buffer'%s' the  function, buffer[%u]": "buffer'%s' \x83  \x82, \x01\x04",
               "the buffer[%u]": "\x03\x04", "a -%-": "a \x02%\x02", "8lu -": "8lu \x02",
               "b -%-": "b \x02%-", "8ld -": "8ld \x02"}
    for g, w in zip(got, want):
        changed = g != w
        if expand(g, FIXTURE_WORDS, phrases=fixture_stored) != w:
            failures.append(f"fixture: {g!r} does not expand to {w!r}")
        if changed != (w in phrased or w in must and any(x in index for x in mw.WORD.findall(w))):
            failures.append(f"fixture: {w!r} {'rewritten' if changed else 'left as it is'}")
        if w in spaced and unphrase(g, fixture_stored) != spaced[w]:
            failures.append(f"fixture: {w!r} stored as {g!r}, not {spaced[w]!r}")
        if w in phrased and g != phrased[w]:
            failures.append(f"fixture: {w!r} stored as {g!r}, not {phrased[w]!r}")
        if w.startswith("lu buffer") and not g.startswith("lu "):
            failures.append(f"fixture: the conversion an earlier literal opened was rewritten: {g!r}")

# A floating-point conversion fails the build (the formatters save no
# vector registers: KILN_MESSAGE_VARIADIC), also one a macro spells
# (OPEN "g"); what only reads as one with the PRI* macro left out
# ("%" PRIu32 " entries": "% e") does not.
FLOAT_CASES = [('x = krt_status(a, c, "took %.1f ms", t);\n', True),
               ('x = krt_status(a, c, "%" "le", t);\n', True),
               ('x = krt_status_prefix(s, "at %G", t);\n', True),
               ('x = krt_status(a, c, "%" PRIu32 " entries", n);\n', False),
               ('x = krt_status(a, c, "100%% full, %s", s);\n', False)]
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "float.c")
    for text, refused in FLOAT_CASES:
        open(src, "w").write(text)
        r = subprocess.run([sys.executable, os.path.join(SRC, "format/module/message_words.py"),
                            "transform", os.path.join(SRC, "format/module/message_words.def"), PHRASES,
                            src, os.path.join(tmp, "out.c"), "krt_status:2",
                            "krt_status_prefix:1"], capture_output=True, text=True)
        if (r.returncode != 0) != refused or (refused and "floating-point" not in r.stderr):
            failures.append(f"float check: {text.strip()!r} {'accepted' if refused else 'refused'}: {r.stderr.strip()}")

# A phrase catalog the decoder could not expand, or that says one text
# and stores another, fails the build.
BAD_PHRASES = [[("\x01", "x")], [("a\x02", "a-"), ("-", "-")],
               [("\x80", "buffers")], [("", "")], "KILN_MESSAGE_PHRASE(x, \"x\")\n"]
with tempfile.TemporaryDirectory() as tmp:
    src = os.path.join(tmp, "plain.c")
    bad = os.path.join(tmp, "phrases.def")
    words_def = os.path.join(tmp, "words.def")
    open(src, "w").write('x = krt_status(a, c, "buffer %u", n);\n')
    open(words_def, "w").write('KILN_MESSAGE_WORD("buffer")\n')
    for items in BAD_PHRASES:
        open(bad, "w").write(items if isinstance(items, str) else phrase_lines(items))
        r = subprocess.run([sys.executable, os.path.join(SRC, "format/module/message_words.py"),
                            "transform", words_def, bad, src, os.path.join(tmp, "out.c"),
                            "krt_status:2"], capture_output=True, text=True)
        if r.returncode == 0 or "message_words: phrase" not in r.stderr:
            failures.append(f"phrase check: {items!r} accepted: {r.stderr.strip()}")

for f in failures:
    print(f)
print(f"message_words: {copies} copies, {rewritten} literals rewritten, {len(failures)} failures")
sys.exit(1 if failures else 0)
