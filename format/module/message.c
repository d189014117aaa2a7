/* kiln_message_format (kiln/message.h): the formatter every library's
 * failure helper shares, kiln_message_text, which expands the word catalog
 * (message_words.def) and phrases (message_phrases.def) in the formats
 * the build compressed, after decoding a catalog ID's entry
 * (message_catalog.def, Huffman-coded, decoded from the nearest of
 * every 16th piece's start) in their place, kiln_message_mnemonic, an
 * opcode's mnemonic from the same coded text, and in KILN_MESSAGES=OFF builds
 * kiln_message_none, the fixed-text stand-in.
 * None allocates; all truncate to their buffer. */
#include "kiln/message.h"
#include "kiln/vm_bytecode.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* How many words (message_words.def) and phrases (message_phrases.def)
 * there are: 0x80 + i in a format stands for word i; a phrase code (below)
 * for a phrase. */
enum {
  word_count = 0
#define KILN_MESSAGE_WORD(w) +1
#include "message_words.def"
#undef KILN_MESSAGE_WORD
};
enum {
  phrase_count = 0
#define KILN_MESSAGE_PHRASE(stored, text) +1
#include "message_phrases.def"
#undef KILN_MESSAGE_PHRASE
};
/* How many formats message calls pass as an ID (message_catalog.def). */
enum {
  catalog_count = 0
#define KILN_MESSAGE_FORMAT(stored, text) +1
#include "message_catalog.def"
#undef KILN_MESSAGE_FORMAT
};
/* The pieces, each as stored with its NUL, Huffman-coded: the phrases
 * (piece i: phrase i), the words (phrase_count + i: word i), the opcode
 * mnemonics (phrase_count + word_count + op), the catalog (after those,
 * ID - 1), decoded on failure and in disassembly only. */
#include "message_catalog_coded.inc"
_Static_assert((int)catalog_mnemonic_count == (int)KILN_VM_OP_COUNT,
               "message_catalog_coded.inc is stale: cmake --build B --target message-catalog");
enum { catalog_first = phrase_count + word_count + catalog_mnemonic_count };
_Static_assert(catalog_longest < KILN_MESSAGE_TEXT_MAX,
               "a catalog entry longer than kiln_message_text's buffer");

/* Writes piece i to out as stored, its macros spelled out: a canonical-code
 * walk, one bit at a time, from the nearest indexed piece at or before i. */
static void piece(size_t i, char *out) {
  size_t bit = catalog_starts[i / catalog_stride];
  for (i %= catalog_stride;;) {
    /* rel: the code read so far, less the first code of its length; o:
     * the first byte of that length. */
    unsigned rel = 0;
    const unsigned char *o = catalog_order;
    for (const unsigned char *count = catalog_lengths;; count++) {
      rel = rel << 1 | (catalog_bits[bit / 8] >> (7 - bit % 8) & 1);
      bit++;
      if (rel < *count) break;
      rel -= *count;
      o += *count;
    }
    const unsigned b = o[rel];
    if (i) {
      i -= !b; /* an earlier piece's NUL */
    } else if (b - catalog_macro_first < (unsigned)catalog_macro_count) {
      for (const char *m = catalog_macros[b - catalog_macro_first]; *m;) *out++ = *m++;
    } else if (!(*out++ = (char)b)) {
      return;
    }
  }
}

/* The phrase codes (message_words.py's PHRASE_CODES): the control bytes
 * 1-8 and 11-31 (formats hold no others), then the bytes past the words'. */
enum { control_codes = 29 };

/* Appends s to buf[n..) with its phrase codes expanded; a phrase holds
 * only earlier phrases' codes (message_words.py bounds how deep), so this
 * ends. Returns the new n, KILN_MESSAGE_TEXT_MAX when it does not fit. */
static size_t unphrase(const unsigned char *s, char *buf, size_t n) {
  for (; *s && n < KILN_MESSAGE_TEXT_MAX; s++) {
    unsigned i = phrase_count; /* a byte that stands for itself */
    if (*s >= 0x80 + word_count)
      i = *s - (0x80u + word_count) + control_codes;
    else if (*s < 0x20 && *s != '\t' && *s != '\n')
      i = *s - 1u - 2u * (*s > '\n');
    if (i < phrase_count) {
      char p[catalog_piece_max];
      piece(i, p);
      n = unphrase((const unsigned char *)p, buf, n);
    } else {
      buf[n++] = (char)*s;
    }
  }
  return n;
}

const char *kiln_message_text(const char *fmt, char buf[KILN_MESSAGE_TEXT_MAX]) {
  /* An ID (1 up) stands for its catalog entry; no object lives there. */
  if ((uintptr_t)fmt - 1 < catalog_count) {
    piece(catalog_first + (uintptr_t)fmt - 1, buf);
    /* buf is rewritten below, so the fallbacks must stay unreachable for
     * an entry: catalog_longest bounds its text, macros at their longest. */
    fmt = buf;
  }
  /* The phrases first: that gives back the format as the words left it. */
  char coded[KILN_MESSAGE_TEXT_MAX];
  size_t n = unphrase((const unsigned char *)fmt, coded, 0);
  if (n >= KILN_MESSAGE_TEXT_MAX) return fmt;
  coded[n] = 0;
  n = 0;
  for (const unsigned char *p = (const unsigned char *)coded; *p; p++) {
    char word[catalog_piece_max];
    const char *w = (const char *)p;
    size_t len = 1, space = 0;
    /* A byte past the words stays as it is (formats are ASCII). */
    if (*p >= 0x80 && *p - 0x80 < word_count) {
      piece(phrase_count + (size_t)(*p - 0x80), word);
      w = word;
      len = strlen(w);
      /* The space after a word is implied unless what follows attaches
       * to it (KILN_MESSAGE_ATTACH; the end too: strchr finds the NUL),
       * so most words' spaces take no byte. */
      space = !strchr(KILN_MESSAGE_ATTACH, p[1]);
    }
    /* message_words.py bounds the formats it writes, but only estimates
     * the macros in them: one too long is used as it is (its words stay
     * bytes, its conversions whole), never cut inside a conversion. */
    if (n + len + space >= KILN_MESSAGE_TEXT_MAX) return fmt;
    memcpy(buf + n, w, len);
    n += len;
    if (space) buf[n++] = ' ';
  }
  buf[n] = 0;
  return buf;
}

void kiln_message_mnemonic(unsigned op, char *buf) {
  *buf = 0;
  if (op < catalog_mnemonic_count) piece(phrase_count + word_count + op, buf);
}

int kiln_message_vformat(char *msg, size_t cap, int code, const char *fmt,
                         va_list ap) {
  if (msg && cap) {
    char text[KILN_MESSAGE_TEXT_MAX];
    vsnprintf(msg, cap, kiln_message_text(fmt, text), ap);
  }
  return code;
}

KILN_MESSAGE_VARIADIC
int kiln_message_format(char *msg, size_t cap, int code, const char *fmt,
                        ...) {
  va_list ap;
  va_start(ap, fmt);
  code = kiln_message_vformat(msg, cap, code, fmt, ap);
  va_end(ap);
  return code;
}

KILN_MESSAGE_VARIADIC
int kiln_message_put(const kiln_message_buf_t *buf, int code, const char *fmt,
                     ...) {
  va_list ap;
  va_start(ap, fmt);
  code = kiln_message_vformat(buf->msg, buf->cap, code, fmt, ap);
  va_end(ap);
  return code;
}

#ifdef KILN_NO_MESSAGES
int kiln_message_none(char *msg, size_t cap, int code) {
  if (msg && cap) {
    const size_t n = sizeof KILN_MESSAGE_NONE <= cap ? sizeof KILN_MESSAGE_NONE : cap;
    memcpy(msg, KILN_MESSAGE_NONE, n - 1);
    msg[n - 1] = 0;
  }
  return code;
}
#endif
