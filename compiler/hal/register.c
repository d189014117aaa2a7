/* Registration of the hal passes, generated from passes.def (the order
 * they run in is compiler/driver/pipeline.def's). */
#include "hal.h"

void kiln_hal_register(void) {
#define KILN_HAL_PASS(ID, NAME, DESCRIPTION)                                         \
  {                                                                                  \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_hal_pass_##ID, NULL, \
                                        KILN_PASS_MODULE};                           \
    kiln_pass_register(&info);                                                       \
  }
#include "passes.def"
#undef KILN_HAL_PASS
}
