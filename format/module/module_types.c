/* Names and sizes of signature element types, for tools and the runtime's
 * signature messages ("expected tensor<1x3xf32>"). */
#include "kiln/module_format.h"

/* X(enum name, printed name, bytes per element) */
#define KILN_ELEMENT_TYPES(X) \
  X(I1, "i1", 1)              \
  X(I8, "i8", 1)              \
  X(I16, "i16", 2)            \
  X(I32, "i32", 4)            \
  X(I64, "i64", 8)            \
  X(U8, "ui8", 1)             \
  X(U16, "ui16", 2)          \
  X(U32, "ui32", 4)          \
  X(U64, "ui64", 8)          \
  X(F16, "f16", 2)            \
  X(BF16, "bf16", 2)          \
  X(F32, "f32", 4)            \
  X(F64, "f64", 8)              \
  X(STR, "str", 0) /* variable: offsets then UTF-8 (kiln/runtime.h) */

const char *kiln_module_element_type_name(kiln_fb_ElementType_t type) {
  switch (type) {
#define X(e, name, size) \
  case kiln_fb_ElementType_##e: return name;
    KILN_ELEMENT_TYPES(X)
#undef X
    default: return "?";
  }
}

unsigned kiln_module_element_type_size(kiln_fb_ElementType_t type) {
  switch (type) {
#define X(e, name, size) \
  case kiln_fb_ElementType_##e: return size;
    KILN_ELEMENT_TYPES(X)
#undef X
    default: return 0;
  }
}
