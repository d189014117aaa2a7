/* Registration of the transforms with the IR's pass registry, generated
 * from passes.def. Takes nothing; guarantees each pass is registered under
 * its command-line name (registering twice is harmless). */
#include "transforms.h"

void kiln_transforms_register(void) {
#define KILN_TRANSFORM_PASS(ID, NAME, DESCRIPTION)                               \
  {                                                                              \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_pass_##ID, NULL, \
                                        KILN_PASS_MODULE};                       \
    kiln_pass_register(&info);                                                   \
  }
#include "passes.def"
#undef KILN_TRANSFORM_PASS
}
