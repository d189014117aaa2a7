/* kiln_message_format (kiln/message.h): the formatter every library's
 * failure helper shares, kiln_message_text, which expands the word catalog
 * (message_words.def) and phrases (message_phrases.def) in the formats
 * the build compressed, after looking up a catalog ID
 * (message_catalog.def) in their place, and in KILN_MESSAGES=OFF builds
 * kiln_message_none, the fixed-text stand-in.
 * None allocates; all truncate to their buffer. */
#include "kiln/message.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The catalog (message_catalog.def): the formats message calls pass as
 * an ID, each stored coded with its NUL, and how many there are. */
static const char catalog[] = ""
#define KILN_MESSAGE_FORMAT(stored, text) stored "\0"
#include "message_catalog.def"
#undef KILN_MESSAGE_FORMAT
    ;
enum {
  catalog_count = 0
#define KILN_MESSAGE_FORMAT(stored, text) +1
#include "message_catalog.def"
#undef KILN_MESSAGE_FORMAT
};

/* The words, each with its NUL, and how many there are. */
static const char words[] =
#define KILN_MESSAGE_WORD(w) w "\0"
#include "message_words.def"
#undef KILN_MESSAGE_WORD
    ;
enum {
  word_count = 0
#define KILN_MESSAGE_WORD(w) +1
#include "message_words.def"
#undef KILN_MESSAGE_WORD
};

/* The phrases (message_phrases.def), each with its NUL, and how many. */
static const char phrases[] = ""
#define KILN_MESSAGE_PHRASE(stored, text) stored "\0"
#include "message_phrases.def"
#undef KILN_MESSAGE_PHRASE
    ;
enum {
  phrase_count = 0
#define KILN_MESSAGE_PHRASE(stored, text) +1
#include "message_phrases.def"
#undef KILN_MESSAGE_PHRASE
};

/* The phrase codes (message_words.py's PHRASE_CODES): the control bytes
 * 1-8 and 11-31 (formats hold no others), then the bytes past the words'. */
enum { control_codes = 29 };

/* Appends s to buf[n..) with its phrase codes expanded; a phrase holds
 * only earlier phrases' codes, so this ends. Returns the new n,
 * KILN_MESSAGE_TEXT_MAX when it does not fit. */
static size_t unphrase(const unsigned char *s, char *buf, size_t n) {
  for (; *s && n < KILN_MESSAGE_TEXT_MAX; s++) {
    unsigned i = phrase_count; /* a byte that stands for itself */
    if (*s >= 0x80 + word_count)
      i = *s - (0x80u + word_count) + control_codes;
    else if (*s < 0x20 && *s != '\t' && *s != '\n')
      i = *s - 1u - 2u * (*s > '\n');
    if (i < phrase_count) {
      const char *p = phrases;
      for (; i; i--) p += strlen(p) + 1;
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
    const char *e = catalog;
    for (uintptr_t i = (uintptr_t)fmt - 1; i; i--) e += strlen(e) + 1;
    fmt = e;
  }
  /* The phrases first: that gives back the format as the words left it. */
  char coded[KILN_MESSAGE_TEXT_MAX];
  size_t n = unphrase((const unsigned char *)fmt, coded, 0);
  if (n >= KILN_MESSAGE_TEXT_MAX) return fmt;
  coded[n] = 0;
  n = 0;
  for (const unsigned char *p = (const unsigned char *)coded; *p; p++) {
    const char *w = (const char *)p;
    size_t len = 1, space = 0;
    /* A byte past the catalog stays as it is (formats are ASCII). */
    if (*p >= 0x80 && *p - 0x80 < word_count) {
      w = words;
      for (unsigned i = *p - 0x80; i; i--) w += strlen(w) + 1;
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
