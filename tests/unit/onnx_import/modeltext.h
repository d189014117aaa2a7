/* Test-only: builds a serialized ONNX ModelProto from a compact text
 * description, statements separated by ';':
 *   opset N                      default-domain opset (default 13)
 *   in NAME TYPE DIMS            graph input; DIMS "2,3", "-" for a
 *                                scalar, a non-number is a dim_param
 *   out NAME [TYPE DIMS]         graph output (type optional)
 *   init NAME TYPE DIMS = V,...  initializer (f32/f64 floats, ints else)
 *   node OP IN,IN -> OUT,OUT [A=K:V ...]  K: i, f, s, ints, floats, t
 *                                (t: a one-element f32 tensor)
 *   domain NAME N                another imported opset domain
 *   nodedomain D                 domain of the next node
 * TYPE: f32 f64 f16 i8 u8 i32 i64 bool string. An empty input name is
 * written "_". Aborts on text it cannot read (it is test code). */
#ifndef KILN_TEST_MODELTEXT_H
#define KILN_TEST_MODELTEXT_H
#include <stddef.h>
#include <stdint.h>

/* malloc'ed bytes; *len set. */
uint8_t *modeltext_build(const char *text, size_t *len);

#endif
