/* The host's text operations: the `code` operand of hal.text.convert
 * (kiln/hal_imports.def), shared by the compiler that emits it and
 * runtime-min that runs it. code = op | flags << 4 | element type << 8,
 * the element type numbered as the module format's ElementType. */
#ifndef KILN_TEXT_OPS_H
#define KILN_TEXT_OPS_H

enum {
  /* numbers (ints, f32, f64) to str, same dims: integers in decimal,
   * floats as the shortest text that reads back to the same value,
   * written as numpy writes them ("0.5", "1e-05", "nan", "-inf") */
  KILN_TEXT_TO_STR = 0,
  /* str to numbers of the code's element type (ONNX Cast from string):
   * decimal or scientific text, "nan" / "inf" in any case, blanks around
   * allowed; anything else fails the call naming the element */
  KILN_TEXT_FROM_STR = 1,
  /* ONNX StringNormalizer on a [C] or [1, C] str view: drops the
   * stopwords (the aux str view), then changes case; all dropped gives
   * one empty string, as ONNX says */
  KILN_TEXT_NORMALIZE = 2,
};

/* KILN_TEXT_NORMALIZE flags */
enum {
  KILN_TEXT_LOWER = 1,          /* case_change_action LOWER */
  KILN_TEXT_UPPER = 2,          /* case_change_action UPPER */
  KILN_TEXT_CASE_SENSITIVE = 4, /* stopwords match exactly, else ignoring case */
};

#endif /* KILN_TEXT_OPS_H */
