/* Failure messages with or without their text. kiln_message_format is the
 * one printf-style formatter behind the libraries' failure helpers (the
 * ELF and CPU checks, the module verifier), so its variadic prologue and
 * vsnprintf call exist once; the helpers that add context of their own
 * (runtime statuses, the FlatBuffer and bytecode verifiers) are wrapped
 * with KILN_MESSAGE_DROP where they are declared. In a KILN_MESSAGES=OFF
 * build (KILN_NO_MESSAGES defined) every such call copies
 * KILN_MESSAGE_NONE instead (one shared string that says why the text is
 * missing) through kiln_message_none, which is not variadic, so neither
 * the text, the code computing its arguments nor a va_list set-up reaches
 * the binary, while the status codes and every check stay. The
 * dropped arguments are still type-checked against their format (in
 * sizeof, never evaluated), so both builds see the same warnings.
 *
 * With text, the formats are stored compressed: the build compiles the
 * runtime's sources through format/module/message_words.py, which puts one
 * byte (0x80 + index) in place of each word of message_words.def in every
 * literal format of a message call (a space after it implied, see
 * KILN_MESSAGE_ATTACH), then one byte (the control bytes 1-8 and 11-31,
 * then the bytes past the words', 0x80 + their count up) in place of
 * each phrase of message_phrases.def (runs of text, words and
 * conversions the formats share), and each formatter above expands the
 * format with kiln_message_text before printf sees it. A format of string
 * literals (and PRI* macros) becomes kiln_message_coded(FORMAT, STORED),
 * which message_words.py defines ahead of the source: format_arg, so the
 * compiler checks the arguments against FORMAT, and inlined, so only
 * STORED reaches the binary; phrases run through its conversions. A
 * format listed in format/module/message_catalog.def (most of them)
 * becomes kiln_message_id(FORMAT, ID) instead: the pointer passed is the
 * integer ID (1 up), which takes a shorter load than an address, and
 * kiln_message_text takes any fmt at or below the catalog's size as that
 * entry. That relies on an integer-to-pointer cast keeping its bits
 * (implementation-defined in C17; so on gcc and clang for every target
 * here) and on no string living in the first page. Other
 * formats keep their conversions as written. So a format passed to them
 * must be printable ASCII (other text goes through %s). */
#ifndef KILN_MESSAGE_H
#define KILN_MESSAGE_H

#include <stdarg.h>
#include <stddef.h>

/* Formats into msg[0..cap) when msg is not NULL; returns code. */
int kiln_message_format(char *msg, size_t cap, int code, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));

/* kiln_message_format with its arguments as a va_list: the body the
 * variadic formatters share (also theirs that add a prefix of their own). */
int kiln_message_vformat(char *msg, size_t cap, int code, const char *fmt,
                         va_list ap) __attribute__((format(printf, 4, 0)));

/* A message buffer as one pointer, for checkers whose failure sites
 * are many: a call then passes one address instead of two values. */
typedef struct kiln_message_buf {
  char *msg;
  size_t cap;
} kiln_message_buf_t;

/* kiln_message_format into buf->msg[0..buf->cap). */
int kiln_message_put(const kiln_message_buf_t *buf, int code, const char *fmt,
                     ...) __attribute__((format(printf, 3, 4)));

/* What may follow a catalog word with no space between: after a word
 * byte, any other byte brings a space of its own (message_words.py
 * stores "word x" as the word's byte then "x", and leaves a word that
 * runs into such a byte, as in "word'", spelled out). Its copy there
 * (ATTACH) must match. */
#define KILN_MESSAGE_ATTACH " \n\t,.:;)]-["

/* On the definitions of the variadic formatters whose callers'
 * formats message_words.py checked (KILN_MESSAGE_WORDS_CHECKED, set where
 * it ran): it refuses a floating-point conversion, so no message passes a
 * double, and the formatters need not save the vector argument registers
 * on entry (gcc on x86-64 and aarch64: about 50 bytes each). Pass no
 * floating-point argument to one: it would print garbage. */
#if defined(KILN_MESSAGE_WORDS_CHECKED) && defined(__GNUC__) && \
    (defined(__x86_64__) || defined(__aarch64__))
#define KILN_MESSAGE_VARIADIC __attribute__((target("general-regs-only")))
#else
#define KILN_MESSAGE_VARIADIC
#endif

/* Longest expanded format, with its NUL; message_words.py refuses longer. */
#define KILN_MESSAGE_TEXT_MAX 320
/* fmt with its catalog words expanded, in buf; returns buf (or fmt when
 * the expansion does not fit). format_arg: the result is fmt's format, so
 * printf checks see through it. */
const char *kiln_message_text(const char *fmt, char buf[KILN_MESSAGE_TEXT_MAX])
    __attribute__((format_arg(1)));
/* Opcode op's mnemonic as the coded message text stores it (parts as
 * bytes 1-6, which kiln_vm_opcode_mnemonic expands) in buf, which holds
 * KILN_VM_MNEMONIC_MAX bytes; "" past the last opcode. */
void kiln_message_mnemonic(unsigned op, char *buf);

#ifdef KILN_NO_MESSAGES
#include <stdio.h>
/* The format and arguments of one message, checked and discarded. */
#define KILN_MESSAGE_DROP(...) ((void)sizeof(printf(__VA_ARGS__)))
#define KILN_MESSAGE_NONE "no message text (KILN_MESSAGES=OFF)"
/* Copies KILN_MESSAGE_NONE into msg[0..cap) when msg is not NULL; returns
 * code. Not variadic, so neither it nor its callers set up a va_list. */
int kiln_message_none(char *msg, size_t cap, int code);
/* A failure site is its code alone: nothing is written there (a call
 * per site cost more than the rest of the site). Instead each public
 * entry point of a library failing through KILN_MESSAGE writes
 * KILN_MESSAGE_NONE into its buffer once, on entry (KILN_MESSAGE_ENTRY),
 * and leaves it there on success too (KILN_MESSAGE_CLEAR does nothing),
 * so whatever fails below it, the caller's buffer says why its text is
 * missing. */
#define KILN_MESSAGE(msg, cap, code, ...) \
  (KILN_MESSAGE_DROP(__VA_ARGS__), (void)(msg), (void)(cap), \
   kiln_message_code(code))
/* The code, as a call: a site whose value goes unused is no warning. */
static inline int kiln_message_code(int code) { return code; }
#define KILN_MESSAGE_PUT(buf, code, ...) \
  (KILN_MESSAGE_DROP(__VA_ARGS__), (void)(buf), kiln_message_code(code))
#define KILN_MESSAGE_ENTRY(msg, cap) ((void)kiln_message_none(msg, cap, 0))
#define KILN_MESSAGE_CLEAR(msg, cap) ((void)(msg), (void)(cap))
/* For libraries with many entry points (the CUDA wrapper): the fixed text
 * written at each failure site instead. */
#define KILN_MESSAGE_AT_SITE(msg, cap, code, ...) \
  (KILN_MESSAGE_DROP(__VA_ARGS__), kiln_message_none(msg, cap, code))
#else
#define KILN_MESSAGE(msg, cap, code, ...) \
  kiln_message_format(msg, cap, code, __VA_ARGS__)
#define KILN_MESSAGE_PUT(buf, code, ...) kiln_message_put(buf, code, __VA_ARGS__)
/* With text, every failure site writes its own message. */
#define KILN_MESSAGE_ENTRY(msg, cap) ((void)(msg), (void)(cap))
/* An empty message after success (msg may be NULL when cap is 0). */
#define KILN_MESSAGE_CLEAR(msg, cap) \
  ((msg) && (cap) ? (void)((msg)[0] = 0) : (void)0)
#define KILN_MESSAGE_AT_SITE KILN_MESSAGE
#endif

#endif
