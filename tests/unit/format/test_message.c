/* kiln_message_text and kiln_message_format (format/module/message.c) on
 * formats as message_words.py writes them: each byte 0x80 + i becomes the
 * i-th word of message_words.def (with the space after it unless what
 * follows attaches to the word), each control byte 1-8, 11-31 and then
 * each byte past the words' the matching phrase of message_phrases.def
 * (expanded first), and a format
 * whose expansion does not fit KILN_MESSAGE_TEXT_MAX is used as it is
 * rather than cut inside a conversion. An ID n (1 up) in place of a
 * format pointer is catalog entry n (message_catalog.def): every entry
 * expands to its TEXT. */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kiln/message.h"

static const char *const words[] = {
#define KILN_MESSAGE_WORD(w) w,
#include "message_words.def"
#undef KILN_MESSAGE_WORD
};
enum { word_count = sizeof words / sizeof words[0] };
/* The phrases' texts (message_phrases.def), as a format that ends after
 * the phrase shows them. */
static const char *const phrase_texts[] = {
#define KILN_MESSAGE_PHRASE(stored, text) text,
#include "message_phrases.def"
#undef KILN_MESSAGE_PHRASE
    NULL};
enum { phrase_count = sizeof phrase_texts / sizeof phrase_texts[0] - 1 };

/* Phrase i's code: the control bytes 1-8, then 11-31 (not tab, newline),
 * then 0x80 + word_count on. */
static char phrase_code(int i) {
  return (char)(i < 8 ? 1 + i : i < 29 ? 3 + i : 0x80 + word_count + i - 29);
}

START_TEST(expands_words) {
  char buf[KILN_MESSAGE_TEXT_MAX], want[KILN_MESSAGE_TEXT_MAX];
  /* The first and the last word, around a conversion. */
  const char fmt[] = {(char)0x80, ' ', '%', 'u', ' ', (char)(0x80 + word_count - 1), 0};
  snprintf(want, sizeof want, "%s %%u %s", words[0], words[word_count - 1]);
  ck_assert_str_eq(kiln_message_text(fmt, buf), want);
  ck_assert_str_eq(kiln_message_text("plain %s", buf), "plain %s");
}
END_TEST

START_TEST(implied_spaces) {
  char buf[KILN_MESSAGE_TEXT_MAX], want[KILN_MESSAGE_TEXT_MAX];
  /* A word brings a space unless what follows attaches to it
   * (KILN_MESSAGE_ATTACH): another word, a conversion and a quote get one
   * (none comes before a word: "%u" runs into it);
   * a comma, a space, a bracket and the end do not. */
  const char fmt[] = {(char)0x80, (char)0x81, '%', 'u', (char)0x80, '\'', 'x',
                      '\'', (char)0x81, ',', (char)0x80, ' ', ' ', (char)0x81,
                      '[', ']', (char)0x80, 0};
  snprintf(want, sizeof want, "%s %s %%u%s 'x'%s,%s  %s[]%s", words[0],
           words[1], words[0], words[1], words[0], words[1], words[0]);
  ck_assert_str_eq(kiln_message_text(fmt, buf), want);
}
END_TEST

START_TEST(expands_phrases) {
  char buf[KILN_MESSAGE_TEXT_MAX], want[KILN_MESSAGE_TEXT_MAX];
  ck_assert_int_gt(phrase_count, 0);
  /* Every phrase alone (those holding earlier ones too) gives its text. */
  for (int i = 0; i < phrase_count; i++) {
    const char fmt[] = {phrase_code(i), 0};
    ck_assert_str_eq(kiln_message_text(fmt, buf), phrase_texts[i]);
  }
  /* Between words and a conversion: a word's implied space depends on
   * the phrase's first byte, as if it were spelled out. */
  const char fmt[] = {(char)0x80, phrase_code(0), '%', 'u', phrase_code(0),
                      (char)0x81, 0};
  const char *p = phrase_texts[0];
  const char *space = strchr(KILN_MESSAGE_ATTACH, p[0]) ? "" : " ";
  snprintf(want, sizeof want, "%s%s%s%%u%s%s", words[0], space, p, p, words[1]);
  ck_assert_str_eq(kiln_message_text(fmt, buf), want);
  /* Where the words' bytes end and the phrases' begin: the last word,
   * then the first phrase past the control bytes. */
  if (phrase_count > 29) {
    const char edge[] = {(char)(0x80 + word_count - 1), phrase_code(29), 0};
    p = phrase_texts[29];
    space = strchr(KILN_MESSAGE_ATTACH, p[0]) ? "" : " ";
    snprintf(want, sizeof want, "%s%s%s", words[word_count - 1], space, p);
    ck_assert_str_eq(kiln_message_text(edge, buf), want);
  }
}
END_TEST

START_TEST(too_long_used_as_is) {
  char buf[KILN_MESSAGE_TEXT_MAX];
  /* Enough copies of the first word to pass the limit, then a conversion
   * that a cut could split. */
  const size_t copies = KILN_MESSAGE_TEXT_MAX / strlen(words[0]) + 1;
  char *fmt = calloc(copies + 4, 1);
  memset(fmt, 0x80, copies);
  memcpy(fmt + copies, "%lu", 3);
  ck_assert_ptr_eq(kiln_message_text(fmt, buf), fmt);
  free(fmt);
}
END_TEST

/* The catalog's texts (message_catalog.def), in ID order from 1. */
static const char *const catalog_texts[] = {
#define KILN_MESSAGE_FORMAT(stored, text) text,
#include "message_catalog.def"
#undef KILN_MESSAGE_FORMAT
    NULL};
enum { catalog_count = sizeof catalog_texts / sizeof catalog_texts[0] - 1 };

static const char *catalog_id(uintptr_t id) { return (const char *)id; }
/* As message_words.py passes an ID: the compiler checks text. */
__attribute__((format_arg(1))) static const char *checked_id(const char *text,
                                                             uintptr_t id) {
  (void)text;
  return catalog_id(id);
}

START_TEST(catalog_ids_expand) {
  char buf[KILN_MESSAGE_TEXT_MAX];
  /* Past 127 the IDs take a longer load; the test covers both sides. */
  ck_assert_int_ge(catalog_count, 128);
  for (uintptr_t id = 1; id <= catalog_count; id++)
    ck_assert_str_eq(kiln_message_text(catalog_id(id), buf), catalog_texts[id - 1]);
  ck_assert_str_eq(kiln_message_text(catalog_id(127), buf), catalog_texts[126]);
  ck_assert_str_eq(kiln_message_text(catalog_id(catalog_count), buf),
                   catalog_texts[catalog_count - 1]);
  /* A real pointer, even to text that equals an entry's, is itself. */
  static const char plain[] = "plain %s";
  ck_assert_ptr_eq(kiln_message_text(plain, buf), buf);
  ck_assert_str_eq(buf, plain);
  /* And an ID formats through kiln_message_format like its text. */
  for (uintptr_t id = 1; id <= catalog_count; id++) {
    if (strcmp(catalog_texts[id - 1], "%s") != 0) continue;
    char msg[16];
    ck_assert_int_eq(kiln_message_format(msg, sizeof msg, 3, checked_id("%s", id), "arg"), 3);
    ck_assert_str_eq(msg, "arg");
    return;
  }
  ck_abort_msg("no catalog entry reads \"%%s\"");
}
END_TEST

START_TEST(format_expands_then_formats) {
  char msg[64];
  /* A literal, as every message format is: "\200" is the first word. */
  ck_assert_int_eq(kiln_message_format(msg, sizeof msg, 7, "\200 %u", 42u), 7);
  char want[64];
  snprintf(want, sizeof want, "%s 42", words[0]);
  ck_assert_str_eq(msg, want);
  /* Truncated to its buffer, like snprintf. */
  ck_assert_int_eq(kiln_message_format(msg, 3, 7, "\200 %u", 42u), 7);
  ck_assert_int_eq(strlen(msg), 2);
  ck_assert_int_eq(memcmp(msg, words[0], 2), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("format_message");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, expands_words);
  tcase_add_test(tc, implied_spaces);
  tcase_add_test(tc, expands_phrases);
  tcase_add_test(tc, too_long_used_as_is);
  tcase_add_test(tc, format_expands_then_formats);
  tcase_add_test(tc, catalog_ids_expand);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
