#!/usr/bin/env python3
"""Message word catalog (kiln/message.h): takes a C source and the message
calls it makes (NAME:POS, POS the 0-based index of the printf format) and
writes a copy in which each such call's format, when it is string literals
(and macros of them: PRIu64, KILN_VERSION) only, has its dictionary words
(message_words.def) replaced by one byte each, 0x80 + the word's index
(so has each of the file's #define'd formats that is used nowhere but to
start such formats, and a call's inside a macro body too); the byte also
stands for the space after the word where no byte of ATTACH follows it;
kiln_message_text expands them back before formatting, so the text a
caller sees is unchanged. Words never touch conversion specifications.
The copy starts with PRELUDE, then a '#line 1' that names the original
file, so diagnostics and debuggers point at the source. Guarantees (else it fails
the build, naming file and line): the formats it rewrites are printable
ASCII, expand to less than KILN_MESSAGE_TEXT_MAX bytes (macros other
than PRI* counted as MACRO_MAX bytes each) and convert no floating-point
value (kiln/message.h: KILN_MESSAGE_VARIADIC).

Then each phrase of PHRASES (message_phrases.def: runs of bytes the
word-coded formats share, which may hold words, conversions and earlier
phrases) is replaced by its code, a control byte no format holds or a
byte past the words' (PHRASE_CODES); kiln_message_text expands those
first, which gives back
the word-coded format exactly. A format of string literals (and PRI*
macros) only becomes kiln_message_coded(FORMAT, STORED) (PRELUDE, ahead
of the file), so the compiler checks the arguments against FORMAT and
only STORED, where phrases run anywhere, reaches the binary; other
formats' literals (and #define'd formats) are rewritten in place, with
phrases only between their conversions, so the compiler checks the
arguments against the same conversions.

With the catalog, a call whose catalogued format (one literal, or one
#define'd literal: IS_NOT) has string-literal arguments (or #define'd
literals: DYN) for plain "%s" or "%.Ns" conversions passes instead the
ID of the format with those literals spliced in ('%' doubled) and loses
those arguments (folds): the text is the same, one address load fewer.

  message_words.py transform WORDS PHRASES IN OUT NAME:POS...
  message_words.py suggest SRC=NAME:POS,NAME:POS...   (prints a WORDS file)
  message_words.py phrases WORDS SRC=NAME:POS,...     (prints a PHRASES file)
  message_words.py catalog WORDS PHRASES CATALOG SRC=NAME:POS,... [--check]
    (writes CATALOG, message_catalog.def, or checks that it lists exactly
    the formats of the sources; transform takes it as --catalog=CATALOG;
    with it, or checked with it, message_catalog_coded.inc: the phrases,
    words, opcode mnemonics and catalog entries Huffman-coded, which
    kiln_message_text and kiln_message_mnemonic read)
Standard library only: it runs at build time with any python3."""
import collections
import heapq
import os
import re
import sys

TEXT_MAX = 320  # KILN_MESSAGE_TEXT_MAX in kiln/message.h
# The bytes 0x80-0xFF are the words' (0x80 + index) and, past the last
# word, phrase codes.
MAX_WORDS = 128
# How many words `suggest` proposes: the bytes they leave are phrase codes.
# The smallest runtime (x86-64, with messages, stripped) with the greedy
# phrases for each split: 40 words 52,768 bytes, 52 and 64 52,752, 76
# 52,768, 88 52,800, 128 (29 phrases) 53,024.
SUGGESTED_WORDS = 64
# The phrase codes: the control bytes a format never holds (it is
# printable ASCII, tabs and newlines), then the bytes past the catalog's
# words (phrase_codes); kiln_message_text numbers them in this order.
CONTROL_CODES = [chr(c) for c in range(1, 0x20) if chr(c) not in "\t\n"]


def phrase_codes(word_count):
    return CONTROL_CODES + [chr(c) for c in range(0x80 + word_count, 0x100)]


PHRASE_CODES = phrase_codes(MAX_WORDS)  # read_words sets the catalog's
SPEC = re.compile(r"%[-+ #0]*(\*|[0-9]+)?(\.(\*|[0-9]+))?(hh|h|ll|l|z|j|t|L)?[a-zA-Z%]")
PRI = re.compile(r"PRI[diouxX](8|16|32|64|PTR|MAX)")
MACRO_MAX = 32
WORD = re.compile(r"[A-Za-z_]{2,}")
# KILN_MESSAGE_ATTACH in kiln/message.h, with the format's end ("\0"):
# what may follow a word byte without a space; any other byte brings one.
ATTACH = " \n\t,.:;)]-[\0"


def fail(path, text, pos, why):
    sys.exit(f"{path}:{text.count(chr(10), 0, pos) + 1}: message_words: {why}")


def skip_literal(text, i):
    """text[i] is a quote: returns the index after its closing quote."""
    q = text[i]
    i += 1
    while text[i] != q:
        i += 2 if text[i] == "\\" else 1
    return i + 1


def skip_space(text, i):
    """Skips whitespace and comments from i."""
    while i < len(text):
        if text[i].isspace():
            i += 1
        elif text.startswith("\\\n", i):  # a macro body's line continuation
            i += 2
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
        elif text.startswith("//", i):
            i = text.index("\n", i)
        else:
            break
    return i


def split_args(text, i):
    """text[i] is '(': returns [(start, end)] of its top-level arguments
    and the index after the matching ')'."""
    args, depth, start = [], 0, i + 1
    while True:
        c = text[i]
        if c in "\"'":
            i = skip_literal(text, i)
            continue
        if text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        if text.startswith("//", i):
            i = text.index("\n", i)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append((start, i))
                return args, i + 1
        elif c == "," and depth == 1:
            args.append((start, i))
            start = i + 1
        i += 1


ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "?": "?",
           "a": "\a", "b": "\b", "f": "\f", "v": "\v", "r": "\r"}


def decode(body):
    """The value of a string literal's body (between its quotes)."""
    out, k = [], 0
    while k < len(body):
        if body[k] != "\\":
            out.append(body[k])
            k += 1
        elif body[k + 1] in ESCAPES:
            out.append(ESCAPES[body[k + 1]])
            k += 2
        elif body[k + 1] in "01234567":
            m = re.match(r"[0-7]{1,3}", body[k + 1:])
            out.append(chr(int(m.group(0), 8)))
            k += 1 + len(m.group(0))
        elif body[k + 1] == "x":
            m = re.match(r"[0-9a-fA-F]+", body[k + 2:])
            out.append(chr(int(m.group(0), 16)))
            k += 2 + len(m.group(0))
        else:
            return None
    return "".join(out)


def tokens(text, a, b, raw=False):
    """text[a:b] as [(start, end, value)] when it is string literals, or
    those and macros, concatenated (value: the name of a macro), else
    None. Next to a literal a name can only be a macro of string literals.
    raw: also a lone macro or nothing."""
    out, i = [], skip_space(text, a)
    while i < b:
        if text[i] == '"':
            j = skip_literal(text, i)
            value = decode(text[i + 1:j - 1])
            if value is None:
                return None
            out.append((i, j, value))
        else:
            m = re.compile(r"[A-Za-z_]\w*").match(text, i)
            if not m:
                return None
            j = m.end()
            out.append((i, j, Macro(m.group(0))))
        i = skip_space(text, j)
    if raw:
        return out
    literal = [v for _, _, v in out if not isinstance(v, Macro)]
    return out if literal and len(out) > 1 or len(literal) == 1 else None


class Macro(str):
    """A macro's name among a format's literals."""

    sizes = {}  # the file's own format macros (defined_formats): their size

    def size(self):
        # <inttypes.h>'s are a length modifier and a conversion letter;
        # the file's own format macros their text; others (KILN_VERSION)
        # are taken as short.
        return 3 if PRI.fullmatch(self) else Macro.sizes.get(self, MACRO_MAX)


def lead(value):
    """How much of value's start can continue a conversion the text before
    it left open ("%" "-8lu"): SPEC's match of "%" + value, less the "%"."""
    m = SPEC.match("%" + value)
    return m.end() - 1 if m else 0


def call_formats(text, calls):
    """Yields (start, end) of each listed call's format argument."""
    for args, pos in call_args(text, calls):
        yield args[pos]


def defined_formats(text):
    """The file's object-like macros whose body is string literals (and
    PRI* macros): {name: tokens}."""
    out = {}
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?=[ \t\\])", text, re.M):
        if in_comment(text, m.start()):
            continue
        end = m.end()
        while True:  # the body ends at a newline not continued by '\'
            end = text.find("\n", end)
            if end < 0:
                end = len(text)
                break
            if text[end - 1] != "\\":
                break
            end += 1
        found = tokens(text, m.end(), end)
        if found and all(not isinstance(v, Macro) or PRI.fullmatch(v) for _, _, v in found):
            out[m.group(1)] = found
    return out


def checked(path, text, at, found, open_end=False):
    """found's literals as (start, end, value, lead kept, after), after
    checking the whole format (printable ASCII, expands under TEXT_MAX).
    after: the literal text that follows value in the format, ending in
    "\0" where the format ends there; without it a macro follows, or with
    open_end (a #define'd format's body) whatever the use adds."""
    literal = "".join(v for _, _, v in found if not isinstance(v, Macro))
    size = sum(v.size() if isinstance(v, Macro) else len(v) for _, _, v in found)
    if any(ord(c) > 0x7E or (ord(c) < 0x20 and c not in "\n\t") for c in literal):
        fail(path, text, at, "a message format must be printable ASCII (pass other text through %s)")
    if size >= TEXT_MAX:
        fail(path, text, at, f"format of up to {size} bytes, at most {TEXT_MAX - 1}")
    # PRI* macros end a conversion with an integer one; other macros are
    # text of their own.
    spelled = "".join(("d" if PRI.fullmatch(v) else "M") if isinstance(v, Macro) else v
                      for _, _, v in found)
    if any(m.group()[-1] in "aAeEfFgG" for m in SPEC.finditer(spelled)):
        fail(path, text, at, "a message format may not convert a floating-point "
             "value (the formatters save no vector registers: KILN_MESSAGE_VARIADIC)")
    # A literal after an open conversion ("%" "lu") or after a macro
    # other than PRI* (it may end in one) keeps what may continue it.
    keep = 0
    for n, (i, j, value) in enumerate(found):
        if isinstance(value, Macro):
            keep = not PRI.fullmatch(value)
            continue
        after = ""
        for _, _, v in found[n + 1:]:
            if isinstance(v, Macro):
                break
            after += v
        else:
            after += "" if open_end else "\0"
        yield i, j, value, lead(value) if keep else 0, after
        keep = "%" in SPEC.sub("", value)


def formats(path, text, calls):
    """Yields (start, end, value, whole) for each string literal of each
    listed call's format (whole: that format as far as it is literal),
    and of each of the file's format macros (defined_formats) that is
    used nowhere but as the start of those formats: its text then starts
    every format it is in, so no conversion runs into it."""
    defs = defined_formats(text)
    Macro.sizes = {name: sum(v.size() if isinstance(v, Macro) else len(v)
                             for _, _, v in found) for name, found in defs.items()}
    leading = collections.Counter()
    for a, b in call_formats(text, calls):
        raw = tokens(text, a, b, raw=True)
        if raw and isinstance(raw[0][2], Macro):
            leading[raw[0][2]] += 1
        found = tokens(text, a, b)
        if found is not None:
            yield from checked(path, text, a, found)
    for name, found in defs.items():
        uses = len(re.findall(r"\b" + name + r"\b", text)) - 1
        if uses and uses == leading[name]:
            yield from checked(path, text, found[0][0], found, open_end=True)


def in_comment(text, pos):
    return text.rfind("/*", 0, pos) > text.rfind("*/", 0, pos)


def pieces(value):
    """Splits a format into (is_word_candidate, piece): conversion specs
    are never touched, so the compressed format checks like the original."""
    out, i = [], 0
    for m in SPEC.finditer(value):
        out.append((True, value[i:m.start()]))
        out.append((False, m.group(0)))
        i = m.end()
    out.append((True, value[i:]))
    return out


def words_in(value, keep, after, index):
    """Yields (start, end, word) for each of value's words (in index) that
    becomes a byte, end past the space it takes along. The byte implies a
    space before what follows unless that is in ATTACH, so a word followed
    by a space and then a byte outside ATTACH takes the space; one followed
    by such a byte directly, or by what is not known here (a macro, what
    follows a #define'd format), stays spelled out. value[:keep] is left
    alone (it continues a conversion), and so are conversions."""
    rest = value[keep:] + after

    def at(k):  # the byte at k of the format from value[keep:]; None: unknown
        return rest[k] if k < len(rest) else None

    k = keep
    for plain, piece in pieces(value[keep:]):
        if plain:
            for m in WORD.finditer(piece):
                if m.group(0) not in index:
                    continue
                end = m.end() + k - keep
                c = at(end)
                if c == " " and end < len(value) - keep:
                    d = at(end + 1)
                    if d is not None and d not in ATTACH:
                        yield m.start() + k, m.end() + k + 1, m.group(0)
                        continue
                if c is not None and c in ATTACH:
                    yield m.start() + k, m.end() + k, m.group(0)
        k += len(piece)


def compress(value, index, keep=0, after="\0"):
    """value with its words as catalog bytes (words_in), value[:keep] as
    it is; after: what follows value in its format (checked)."""
    out, last = [], 0
    for a, b, w in words_in(value, keep, after, index):
        out += [value[last:a], chr(0x80 + index[w])]
        last = b
    out.append(value[last:])
    return "".join(out)


def c_literal(s):
    out = ['"']
    for c in s:
        o = ord(c)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= o < 0x7F:
            out.append(c)
        else:
            out.append("\\%03o" % o)
    out.append('"')
    return "".join(out)


def parse_calls(items):
    calls = {}
    for item in items:
        name, pos = item.split(":")
        calls[name] = int(pos)
    return calls


def read_words(path):
    words = re.findall(r'^KILN_MESSAGE_WORD\("([A-Za-z_]+)"\)', open(path).read(), re.M)
    if len(words) > MAX_WORDS:
        sys.exit(f"{path}: message_words: {len(words)} words, at most {MAX_WORDS}")
    global PHRASE_CODES
    PHRASE_CODES = phrase_codes(len(words))
    return {w: i for i, w in enumerate(words)}


def unphrase(value, phrases):
    """value with its phrase codes expanded (recursively)."""
    return "".join(unphrase(phrases[PHRASE_CODES.index(c)], phrases)
                   if c in PHRASE_CODES else c for c in value)


def expand_words(value, words):
    """A word-coded value as kiln_message_text expands it, at a format's
    end: a word brings a space unless the next byte is in ATTACH."""
    out = []
    for k, c in enumerate(value):
        if ord(c) >= 0x80:
            out.append(words[ord(c) - 0x80])
            if (value + "\0")[k + 1] not in ATTACH:
                out.append(" ")
        else:
            out.append(c)
    return "".join(out)


LITERAL = r'"(?:[^"\\]|\\.)*"'


def read_phrases(path, index):
    """PATH's phrases, KILN_MESSAGE_PHRASE(STORED, TEXT), as stored, in
    code order; it fails the build when one is empty, holds a code of its
    own or a later phrase, or does not expand to its TEXT."""
    text = open(path).read()
    found = re.findall(r"^KILN_MESSAGE_PHRASE\((" + LITERAL + r"), *(" + LITERAL + r")\)$",
                       text, re.M)
    if len(found) != len(re.findall(r"^KILN_MESSAGE_PHRASE", text, re.M)):
        sys.exit(f"{path}: message_words: phrase lines must read "
                 "KILN_MESSAGE_PHRASE(\"STORED\", \"TEXT\")")
    if len(found) > len(PHRASE_CODES):
        sys.exit(f"{path}: message_words: {len(found)} phrases, at most {len(PHRASE_CODES)}")
    words, phrases = list(index), []
    for n, (stored, text) in enumerate(found):
        stored, text = decode(stored[1:-1]), decode(text[1:-1])
        if not stored or any(c in PHRASE_CODES[n:] for c in stored):
            sys.exit(f"{path}: message_words: phrase {n} ({text!r}) is empty or holds "
                     "a code not of an earlier phrase")
        if expand_words(unphrase(stored, phrases), words) != text:
            sys.exit(f"{path}: message_words: phrase {n} does not expand to {text!r} with "
                     "these words (regenerate it: cmake --build B --target message-phrases)")
        phrases.append(stored)
    return phrases


def phrase_spans(value, keep):
    """The (start, end) spans of value, a word-coded format literal, that
    phrases may replace: past value[:keep] (it continues a conversion),
    between its conversions and before a '%' that opens one the next
    literal or macro completes."""
    spans, k = [], keep
    for plain, piece in pieces(value[keep:]):
        if plain:
            spans.append((k, k + (piece.index("%") if "%" in piece else len(piece))))
        k += len(piece)
    return spans


def apply_phrases(value, keep, phrases):
    """value with each phrase, in code order, replaced by its code in its
    phrase_spans."""
    out, last = [], 0
    for a, b in phrase_spans(value, keep):
        piece = value[a:b]
        for code, phrase in zip(PHRASE_CODES, phrases):
            piece = piece.replace(phrase, code)
        out += [value[last:a], piece]
        last = b
    out.append(value[last:])
    return "".join(out)


# Defined ahead of every rewritten source: a call whose format is string
# literals (and PRI* macros) only gets kiln_message_coded(FORMAT, STORED)
# as its format, so the compiler checks the arguments against FORMAT
# (format_arg) while the binary holds only STORED, whose phrases may then
# run through conversions.
CODED = "kiln_message_coded"
# A format in the catalog (message_catalog.def) is kiln_message_id(FORMAT,
# ID) instead: the compiler checks FORMAT, the binary holds the small
# integer ID (1 up, message_catalog.def's line order) as the pointer,
# which costs a short immediate load where an address costs a longer
# one; kiln_message_text takes a fmt at or below the catalog's size as
# that entry.
CATALOG_ID = "kiln_message_id"
PRELUDE = ("__attribute__((format_arg(1), always_inline, unused)) static inline const char *"
           f"{CODED}(const char *kiln_checked_, const char *kiln_stored_) "
           "{ (void)kiln_checked_; return kiln_stored_; } "
           "__attribute__((format_arg(1), always_inline, unused)) static inline const char *"
           f"{CATALOG_ID}(const char *kiln_checked_, __UINTPTR_TYPE__ kiln_id_) "
           "{ (void)kiln_checked_; return (const char *)kiln_id_; }")


def wrapped(text, calls):
    """The (start, end) of each listed call's format that is string
    literals and PRI* macros only: it is stored whole through CODED."""
    out = []
    for a, b in call_formats(text, calls):
        found = tokens(text, a, b)
        if found and all(not isinstance(v, Macro) or PRI.fullmatch(v) for _, _, v in found):
            out.append((a, b))
    return out


def lone_formats(text, calls):
    """The (start, end, tokens) of each listed call's format that is one
    of the file's #define'd formats alone (IS_NOT): tokens, its body's."""
    defs, out = defined_formats(text), []
    for a, b in call_formats(text, calls):
        raw = tokens(text, a, b, raw=True)
        if raw and len(raw) == 1 and raw[0][2] in defs and isinstance(raw[0][2], Macro):
            out.append((a, b, defs[raw[0][2]]))
    return out


def call_args(text, calls):
    """Yields (args, pos) of each listed call: its top-level arguments'
    (start, end) and the index of its format among them."""
    names = "|".join(re.escape(n) for n in calls)
    for m in re.finditer(r"\b(" + names + r")\s*\(", text):
        # Calls inside comments and strings are not calls.
        line_start = text.rfind("\n", 0, m.start()) + 1
        before = text[line_start:m.start()]
        if "//" in before or before.count('"') % 2 or in_comment(text, m.start()):
            continue
        args, _ = split_args(text, m.end() - 1)
        if calls[m.group(1)] < len(args):
            yield args, calls[m.group(1)]


def literal_arg(text, a, b, defs):
    """The value of argument text[a:b] when it is string literals only, or
    one of the file's #define'd literals alone (DYN), else None."""
    found = tokens(text, a, b, raw=True)
    if found and len(found) == 1 and isinstance(found[0][2], Macro) and found[0][2] in defs:
        found = defs[found[0][2]]
    if not found or any(isinstance(v, Macro) for _, _, v in found):
        return None
    return "".join(v for _, _, v in found)


# A literal folded into its format (fold) saves its address load and
# argument slot, about 7 bytes on x86-64, and adds its coded text to the
# new entry (about 5 bits a byte): a literal longer than FOLD_MAX, or one
# that would make its format longer than TEXT_MAX, stays an argument.
FOLD_MAX = 24


def folds(text, calls):
    """Yields (start, end, key, drops) for each listed call whose format is
    one literal (no macros: a wrapped format, or a lone #define'd one) and
    has string-literal arguments (literal_arg) matched to plain "%s" or
    "%.Ns" conversions: key, the catalog key of the format with those
    literals spliced in ('%' doubled, "%.Ns" keeping N bytes), and drops,
    the (start, end) spans that delete those arguments with their comma.
    The call then formats the same text with fewer arguments."""
    defs = defined_formats(text)
    for args, pos in call_args(text, calls):
        a, b = args[pos]
        raw = tokens(text, a, b, raw=True)
        if raw and len(raw) == 1 and isinstance(raw[0][2], Macro) and raw[0][2] in defs:
            raw = defs[raw[0][2]]
        if not raw or any(isinstance(v, Macro) for _, _, v in raw):
            continue
        value = "".join(v for _, _, v in raw)
        out, last, arg, drops = [], 0, pos + 1, []
        for m in SPEC.finditer(value):
            spec = m.group(0)
            if spec == "%%":
                continue
            arg += spec.count("*")
            plain = re.fullmatch(r"%(\.([0-9]+))?s", spec)
            lit = (literal_arg(text, *args[arg], defs)
                   if plain and arg < len(args) else None)
            if lit is not None and len(lit) <= FOLD_MAX and all(
                    0x20 <= ord(c) < 0x7F for c in lit):
                if plain.group(2) is not None:
                    lit = lit[:int(plain.group(2))]
                out += [value[last:m.start()], lit.replace("%", "%%")]
                last = m.end()
                drops.append((args[arg - 1][1], args[arg][1]))
            arg += 1
        out.append(value[last:])
        folded = "".join(out)
        if drops and len(folded) < TEXT_MAX:
            yield a, b, ((False, folded),), drops


def canonical(found):
    """A format's key in the catalog: its tokens' values, adjacent
    literals joined, each as (is a macro, text)."""
    out = []
    for _, _, v in found:
        if not isinstance(v, Macro) and out and not out[-1][0]:
            out[-1] = (False, out[-1][1] + v)
        else:
            out.append((isinstance(v, Macro), str(v)))
    return tuple(out)


def code_format(key, index, phrases):
    """A catalog key's stored tokens: its literals word-coded, then every
    phrase anywhere in them (as CODED stores a wrapped format), its
    macros as they are (str, or Macro)."""
    found = [(0, 0, Macro(v) if m else v) for m, v in key]
    literals = checked("message_catalog.def", "", 0, found)
    out = []
    for _, _, v in found:
        if isinstance(v, Macro):
            out.append(v)
            continue
        _, _, value, keep, after = next(literals)
        coded = compress(value, index, keep, after)
        for code, phrase in zip(PHRASE_CODES, phrases):
            coded = coded.replace(phrase, code)
        out.append(coded)
    return out


def c_tokens(values):
    return " ".join(v if isinstance(v, Macro) else c_literal(v) for v in values)


CATALOG_LINE = re.compile(r"^KILN_MESSAGE_FORMAT(\(.*\))$", re.M)


def read_catalog(path, index, phrases):
    """PATH's formats, KILN_MESSAGE_FORMAT(STORED, TEXT) (literals and PRI*
    macros each), as {key: ID}, IDs from 1 in line order; it fails the
    build when a line is malformed or STORED is not how these words and
    phrases code TEXT (then kiln_message_text would not give back TEXT)."""
    text = open(path).read()
    out = {}
    for m in CATALOG_LINE.finditer(text):
        line = m.group(1)
        args, _ = split_args(line, 0)
        parsed = [tokens(line, a, b, raw=True) for a, b in args]
        if len(args) != 2 or not all(parsed) or any(
                isinstance(v, Macro) and not PRI.fullmatch(v) for t in parsed for _, _, v in t):
            sys.exit(f"{path}: message_words: catalog lines must read "
                     f"KILN_MESSAGE_FORMAT(STORED, TEXT) of literals and PRI* macros: {line}")
        key = canonical(parsed[1])
        if [str(v) for _, _, v in parsed[0]] != [str(v) for v in code_format(key, index, phrases)]:
            sys.exit(f"{path}: message_words: {c_tokens([Macro(v) if mk else v for mk, v in key])} "
                     "is not stored as these words and phrases code it (regenerate it: "
                     "cmake --build B --target message-catalog)")
        out.setdefault(key, len(out) + 1)
    if len(out) != len(CATALOG_LINE.findall(text)) or len(out) != text.count("\nKILN_MESSAGE_FORMAT"):
        sys.exit(f"{path}: message_words: a catalog format is listed twice or a line is malformed")
    return out


def conditional_ok(text, pos):
    """Whether text[pos] is compiled in every build with message text:
    outside any #if block but '#ifndef KILN_NO_MESSAGES' (and the #else
    of '#ifdef KILN_NO_MESSAGES')."""
    stack = []
    for m in re.finditer(r"^[ \t]*#[ \t]*(ifdef|ifndef|if|elif|else|endif)\b(.*)$",
                         text[:pos], re.M):
        if in_comment(text, m.start()):
            continue
        d, arg = m.group(1), m.group(2).split("/*")[0].strip()
        if d in ("if", "ifdef", "ifndef"):
            stack.append([d == "ifndef" and arg == "KILN_NO_MESSAGES",
                          d == "ifdef" and arg == "KILN_NO_MESSAGES"])
        elif d == "elif" and stack:
            stack[-1] = [False, False]
        elif d == "else" and stack:
            stack[-1] = [stack[-1][1], False]
        elif d == "endif" and stack:
            stack.pop()
    return all(s[0] for s in stack)


def catalog_sites(specs):
    """{key: call sites} of the catalogable formats of specs (those
    wrapped or lone #define'd formats of literals and PRI* macros, at
    sites every message build compiles: conditional_ok, and not in a
    source only an optional part compiles, which the build lists as
    ?SRC=NAME:POS,...)."""
    sites = collections.Counter()
    for spec in dict.fromkeys(specs):
        src, items = spec.split("=")
        if src.startswith("?"):
            continue  # an optional part's source (see read_spec)
        text = open(src).read()
        calls = parse_calls(items.split(","))
        folded = {a: key for a, _, key, _ in folds(text, calls)}
        found = [(a, tokens(text, a, b)) for a, b in wrapped(text, calls)]
        found += [(a, t) for a, _, t in lone_formats(text, calls)]
        for a, t in found:
            if conditional_ok(text, a):
                sites[folded.get(a, canonical(t))] += 1
    return sites


def catalog(words_path, phrases_path, out_path, specs, check):
    """Writes (or with check, compares with) the catalog of specs'
    formats, the most used first: IDs 1-127 load in fewer bytes."""
    index = read_words(words_path)
    phrases = read_phrases(phrases_path, index)
    sites = catalog_sites(specs)
    keys = sorted(sites, key=lambda k: (-sites[k], k))
    if check:
        have = read_catalog(out_path, index, phrases)
        stale = [k for k in have if k not in sites]
        missing = [k for k in keys if k not in have]
        for k in stale:
            print(f"{out_path}: no longer in any source: {c_tokens([Macro(v) if m else v for m, v in k])}")
        for k in missing:
            print(f"{out_path}: missing: {c_tokens([Macro(v) if m else v for m, v in k])}")
        if stale or missing:
            sys.exit(f"{out_path}: message_words: stale (regenerate it: "
                     "cmake --build B --target message-catalog)")
        coded = coded_catalog(sorted(have, key=have.get), index, phrases, read_mnemonics(words_path))
        if not os.path.exists(coded_path(out_path)) or open(coded_path(out_path)).read() != coded:
            sys.exit(f"{coded_path(out_path)}: message_words: not the coding of {out_path} "
                     "(regenerate it: cmake --build B --target message-catalog)")
        print(f"{out_path}: {len(have)} formats, current")
        return
    lines = ["/* Generated by message_words.py catalog (cmake --build B --target\n"
             " * message-catalog): the literal formats of every message call, the\n"
             " * most used first, as KILN_MESSAGE_FORMAT(STORED, TEXT); the Nth is\n"
             " * ID N (kiln/message.h). Do not edit. */\n"]
    for k in keys:
        text = [Macro(v) if m else v for m, v in k]
        lines.append(f"KILN_MESSAGE_FORMAT({c_tokens(code_format(k, index, phrases))}, "
                     f"{c_tokens(text)})\n")
    with open(out_path, "w") as f:
        f.write("".join(lines))
    with open(coded_path(out_path), "w") as f:
        f.write(coded_catalog(keys, index, phrases, read_mnemonics(words_path)))
    print(f"/* {len(keys)} formats, {sum(sites.values())} call sites */", file=sys.stderr)


# The catalog as kiln_message_text reads it (message_catalog_coded.inc,
# next to CATALOG, written and checked with it): every entry's stored
# bytes, then its NUL, as one canonical Huffman code, most-significant bit
# first; each PRI* macro is a byte no entry holds (CODED_MACROS from
# macro_first), spelled out when decoded. CODED_LEN_MAX bounds a code.
CODED_LEN_MAX = 15
CODED_MACRO_MAX = 4  # the longest PRI* expansion catalog_macros holds
CODED_PHRASE_DEPTH = 8  # how deep phrases may nest
# Every CODED_STRIDEth piece's first bit is indexed (catalog_starts), so a
# piece decodes from the nearest indexed start, not from the first piece.
CODED_STRIDE = 16


def huffman_lengths(freq):
    """{symbol: code length} of a Huffman code for freq ({symbol: count}),
    no code longer than CODED_LEN_MAX (counts are halved until none is)."""
    while True:
        heap = [(c, s, [s]) for s, c in sorted(freq.items())]
        lengths = dict.fromkeys(freq, 0)
        heapq.heapify(heap)
        while len(heap) > 1:
            c1, t1, a = heapq.heappop(heap)
            c2, t2, b = heapq.heappop(heap)
            for s in a + b:
                lengths[s] += 1
            heapq.heappush(heap, (c1 + c2, min(t1, t2), a + b))
        if max(lengths.values()) <= CODED_LEN_MAX:
            return {s: max(n, 1) for s, n in lengths.items()}
        freq = {s: (c + 1) // 2 for s, c in freq.items()}


def read_mnemonics(words_path):
    """The opcode mnemonics of kiln/vm_opcodes.def (found from WORDS's
    folder) in opcode order, coded as kiln_vm_opcode_mnemonic expands them:
    ".i32" ".i64" ".f32" ".f64" as the bytes 1-4, and ".s" ".u" before
    another part as 5 and 6 with the part's dot."""
    path = os.path.join(os.path.dirname(os.path.abspath(words_path)), "..", "include",
                        "kiln", "vm_opcodes.def")
    out = []
    for m in re.findall(r'^KILN_VM_(?:OP|BINARY|UNARY)\([A-Z0-9_]+, *"([a-z0-9._]+)"',
                        open(path).read(), re.M):
        for part, code in ((".s.", "\5."), (".u.", "\6."), (".i32", "\1"), (".i64", "\2"),
                           (".f32", "\3"), (".f64", "\4")):
            m = m.replace(part, code)
        out.append(m)
    if not out:
        sys.exit(f"{path}: message_words: no opcode rows")
    return out


def coded_catalog(keys, index, phrases, mnemonics):
    """The C text of message_catalog_coded.inc: the phrases, the words,
    the opcode mnemonics (read_mnemonics), then the catalog's keys in ID
    order, as pieces. catalog_longest bounds a key's stored and expanded
    text, each macro counted as CODED_MACRO_MAX bytes; catalog_piece_max
    a phrase, word or mnemonic with its NUL."""
    words = sorted(index, key=index.get) + mnemonics
    depth = {}
    for n, p in enumerate(phrases):  # a phrase holds earlier phrases only
        depth[n] = 1 + max([depth[PHRASE_CODES.index(c)] for c in p if c in PHRASE_CODES], default=0)
    if max(depth.values(), default=0) > CODED_PHRASE_DEPTH:
        sys.exit("message_phrases.def: message_words: phrases nest deeper than "
                 f"{CODED_PHRASE_DEPTH} (kiln_message_text expands them on its stack)")
    pieces = [[p] for p in phrases] + [[w] for w in words]
    piece_max = max((len(p) + 1 for p in phrases + words), default=1)
    entries = pieces + [code_format(k, index, phrases) for k in keys]
    used = {ord(c) for e in entries for v in e if not isinstance(v, Macro) for c in v}
    macros = sorted({str(v) for e in entries for v in e if isinstance(v, Macro)})
    first = next((b for b in range(1, 257 - len(macros))
                  if not used & set(range(b, b + len(macros)))), None)
    if first is None:
        sys.exit("message_catalog.def: message_words: no run of unused bytes for the macros")
    stream, longest = [], 0
    for i, e in enumerate(entries):
        n = 0
        for v in e:
            if isinstance(v, Macro):
                stream.append(first + macros.index(str(v)))
                n += CODED_MACRO_MAX
            else:
                stream += [ord(c) for c in v]
                n += len(v)
        stream.append(0)
        if i >= len(pieces):
            longest = max(longest, n)
    for k in keys:
        longest = max(longest, sum(CODED_MACRO_MAX if m else len(v) for m, v in k))
    lengths = huffman_lengths(collections.Counter(stream))
    order = sorted(lengths, key=lambda s: (lengths[s], s))
    codes, code, prev = {}, 0, 0
    for s in order:
        code <<= lengths[s] - prev
        prev = lengths[s]
        codes[s] = code
        code += 1
    bits = "".join(format(codes[s], f"0{lengths[s]}b") for s in stream)
    starts, at = [0], 0  # each piece's first bit
    for s in stream:
        at += lengths[s]
        if s == 0:
            starts.append(at)
    starts = starts[:len(entries):CODED_STRIDE]
    if starts[-1] >= 1 << 16:
        sys.exit("message_catalog.def: message_words: the coded catalog outgrew 16-bit starts")
    bits += "0" * (-len(bits) % 8)
    data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
    # The decoder's walk, as message.c does it, from each indexed start:
    # every entry back whole.
    decode = {(lengths[s], c): s for s, c in codes.items()}
    back = []
    for k, at in enumerate(starts):
        left = min(CODED_STRIDE, len(entries) - k * CODED_STRIDE)
        while left:
            n, c = 0, 0
            while (n, c) not in decode:
                c = c << 1 | int(bits[at])
                n, at = n + 1, at + 1
            back.append(decode[(n, c)])
            left -= back[-1] == 0
    if back != stream:
        sys.exit("message_catalog.def: message_words: the coded catalog does not decode")
    count = [sum(1 for s in order if lengths[s] == n) for n in range(1, max(lengths.values()) + 1)]

    def rows(b):
        return "".join("\n   " + "".join(f" {x}," for x in b[i:i + 16])
                       for i in range(0, len(b), 16))
    out = ["/* Generated by message_words.py catalog with message_catalog.def\n"
           " * (cmake --build B --target message-catalog): the phrases\n"
           " * (message_phrases.def), the words (message_words.def), the opcode\n"
           " * mnemonics (kiln/vm_opcodes.def, parts coded as read_mnemonics\n"
           " * says) and the catalog's entries, as stored, each with its NUL,\n"
           " * Huffman-coded\n"
           f" * ({len(stream)} bytes in {len(data)}). Do not edit. */\n",
           "/* The bytes the pieces hold by code length, then by value, as the\n"
           " * codes count up; catalog_lengths[n]: how many codes are n + 1 bits long. */\n",
           f"static const unsigned char catalog_order[{len(order)}] = {{" + rows(order) + "\n};\n",
           f"static const unsigned char catalog_lengths[{len(count)}] = {{" + rows(count) + "\n};\n",
           "/* The codes, most-significant bit first. */\n",
           f"static const unsigned char catalog_bits[{len(data)}] = {{" + rows(data) + "\n};\n",
           f"/* Piece {CODED_STRIDE}i's first bit. */\n",
           f"static const unsigned short catalog_starts[{len(starts)}] = {{" + rows(starts) + "\n};\n",
           "/* The bytes from catalog_macro_first stand for these macros. */\n",
           f"enum {{ catalog_macro_first = {first}, catalog_macro_count = {len(macros)},\n"
           f"       catalog_longest = {longest}, catalog_piece_max = {piece_max},\n"
           f"       catalog_stride = {CODED_STRIDE}, catalog_mnemonic_count = {len(mnemonics)} }};\n",
           f"static const char catalog_macros[][{CODED_MACRO_MAX + 1}] = {{" + ", ".join(macros) + "};\n"]
    return "".join(out)


def coded_path(catalog_path):
    return re.sub(r"\.def$", "", catalog_path) + "_coded.inc"


def plan(src, text, calls, index, phrases, ids=None):
    """The edits (start, end, new text) that store src's formats coded:
    a wrapped format through CODED with every phrase anywhere in its
    literals; another format's literals and the format macros in place,
    with phrases only between conversions (phrase_spans: there no phrase
    holding a '%', nor one holding such a phrase, can match)."""
    spans = wrapped(text, calls)
    inside = {}
    edits = []
    for i, j, value, keep, after in formats(src, text, calls):
        coded = compress(value, index, keep, after)
        span = next((ab for ab in spans if ab[0] <= i < ab[1]), None)
        if span:
            for code, phrase in zip(PHRASE_CODES, phrases):
                coded = coded.replace(phrase, code)
            inside.setdefault(span, {})[i] = coded
        else:
            edits.append((i, j, c_literal(apply_phrases(coded, keep, phrases))))
    ids = ids or {}
    # A call whose folded format (folds) is in the catalog passes that
    # format's ID and loses the folded arguments.
    folded = set()
    for a, b, key, drops in folds(text, calls):
        if key in ids:
            folded.add(a)
            edits.append((a, b, f"{CATALOG_ID}({c_literal(key[0][1])}, {ids[key]})"))
            edits += [(i, j, "") for i, j in drops]
    for a, b, found in lone_formats(text, calls):
        if a in folded:
            continue
        if canonical(found) in ids:
            edits.append((a, b, f"{CATALOG_ID}({text[a:b]}, {ids[canonical(found)]})"))
    for a, b in spans:
        if a in folded:
            continue
        key = canonical(tokens(text, a, b))
        if key in ids:
            edits.append((a, b, f"{CATALOG_ID}({text[a:b]}, {ids[key]})"))
            continue
        stored = " ".join(c_literal(inside[(a, b)][i]) if not isinstance(v, Macro) else v
                          for i, _, v in tokens(text, a, b))
        edits.append((a, b, f"{CODED}({text[a:b]}, {stored})"))
    return sorted(edits)


def transform(words_path, phrases_path, src, dst, call_items):
    index = read_words(words_path)
    phrases = read_phrases(phrases_path, index)
    ids = {}
    for item in [c for c in call_items if c.startswith("--catalog=")]:
        ids = read_catalog(item[len("--catalog="):], index, phrases)
    call_items = [c for c in call_items if not c.startswith("--")]
    text = open(src).read()
    out, last = [PRELUDE + "\n" + f'#line 1 "{src}"\n'], 0
    for i, j, new in plan(src, text, parse_calls(call_items), index, phrases, ids):
        out += [text[last:i], new]
        last = j
    out.append(text[last:])
    with open(dst, "w") as f:
        f.write("".join(out))


def suggest(specs):
    values = []
    # A source several targets compile (the runtime's variants) counts once.
    for spec in dict.fromkeys(specs):
        src, items = spec.split("=")
        text = open(src.lstrip("?")).read()
        values += [(v, k, a) for _, _, v, k, a in formats(src, text, parse_calls(items.split(",")))]
    # A word saves len - 1 bytes per use (len when it takes its space
    # along) and costs len + 1 in the table; every word is a candidate.
    everything = type("Everything", (), {"__contains__": lambda self, w: True})()
    saved = collections.Counter()
    for v, k, a in values:
        for start, end, w in words_in(v, k, a, everything):
            saved[w] += end - start - 1
    gain = {w: n - (len(w) + 1) for w, n in saved.items()}
    best = sorted((w for w in gain if gain[w] > 0), key=lambda w: (-gain[w], w))[:SUGGESTED_WORDS]
    print(f"/* {len(values)} formats, {sum(len(v) - k for v, k, _ in values)} bytes; "
          f"these words save {sum(gain[w] for w in best)} */", file=sys.stderr)
    for w in best:
        print(f'KILN_MESSAGE_WORD("{w}")')


def suggest_phrases(words_path, specs):
    """Prints the phrases that save the most over the word-coded formats
    of specs, chosen greedily (byte-pair style): each round takes the run
    of bytes that saves the most where it stands (each use saves its
    length less the code's byte; the table costs the run and a NUL),
    then codes it, so later phrases may hold earlier ones."""
    index = read_words(words_path)
    words = list(index)
    pieces_ = set()
    for spec in dict.fromkeys(specs):
        src, items = spec.split("=")
        text = open(src.lstrip("?")).read()
        calls = parse_calls(items.split(","))
        spans = wrapped(text, calls)
        # A folded format (folds) is stored whole under its ID, in place
        # of its unfolded one.
        folded = list(folds(text, calls))
        pieces_.update(compress(key[0][1], index) for _, _, key, _ in folded)
        spans = [ab for ab in spans if ab[0] not in {x for x, _, _, _ in folded}]
        # So is a #define'd format every use of which is folded: its body
        # reaches no binary.
        defs, lone = defined_formats(text), collections.Counter()
        for x, y, _, _ in folded:
            raw = tokens(text, x, y, raw=True)
            if len(raw) == 1 and isinstance(raw[0][2], Macro):
                lone[raw[0][2]] += 1
        gone = [(f[0][0], f[-1][1]) for name, f in defs.items()
                if lone[name] and lone[name] == len(re.findall(r"\b" + name + r"\b", text)) - 1]
        for i, _, v, k, a in formats(src, text, calls):
            c = compress(v, index, k, a)
            if any(x <= i < y for x, y, _, _ in folded) or any(x <= i < y for x, y in gone):
                continue
            if any(x <= i < y for x, y in spans):
                pieces_.add(c)  # the whole literal: CODED stores it
            else:
                pieces_.update(c[x:y] for x, y in phrase_spans(c, k) if y - x > 1)
    pieces_ = list(pieces_)
    chosen = []
    for code in PHRASE_CODES:
        uses = collections.Counter()
        for p in pieces_:
            for n in range(2, min(len(p), 40) + 1):
                for s in {p[i:i + n] for i in range(len(p) - n + 1)}:
                    uses[s] += p.count(s)
        gain = {s: u * (len(s) - 1) - (len(s) + 1) for s, u in uses.items() if u > 1}
        best = max(gain, key=lambda s: (gain[s], s), default=None)
        if best is None or gain[best] <= 0:
            break
        chosen.append((best, gain[best]))
        pieces_ = [p.replace(best, code) for p in pieces_]
    phrases = [s for s, _ in chosen]
    print(f"/* these {len(phrases)} phrases save about {sum(g for _, g in chosen)} bytes */",
          file=sys.stderr)
    for n, s in enumerate(phrases):
        text = expand_words(unphrase(s, phrases[:n]), words)
        print(f"KILN_MESSAGE_PHRASE({c_literal(s)}, {c_literal(text)})")


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[1] == "transform":
        transform(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6:])
    elif len(sys.argv) >= 3 and sys.argv[1] == "suggest":
        suggest(sys.argv[2:])
    elif len(sys.argv) >= 5 and sys.argv[1] == "catalog":
        check = "--check" in sys.argv
        args = [a for a in sys.argv[2:] if a != "--check"]
        # SPECS may come as one ';'-separated argument (a ctest command).
        catalog(args[0], args[1], args[2], [s for a in args[3:] for s in a.split(";") if s], check)
    elif len(sys.argv) >= 4 and sys.argv[1] == "phrases":
        suggest_phrases(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
