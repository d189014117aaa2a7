/* Registration of the hal passes and of the "hal" pipeline, generated
 * from passes.def (the pipeline lists every row in table order). */
#include "hal.h"

void kiln_hal_register(void) {
#define KILN_HAL_PASS(ID, NAME, DESCRIPTION)                        \
  {                                                                 \
    static const kiln_pass_info info = {NAME, DESCRIPTION,          \
                                        kiln_hal_pass_##ID, NULL};  \
    kiln_pass_register(&info);                                      \
  }
#include "passes.def"
#undef KILN_HAL_PASS
  static const char pipeline[] =
#define KILN_HAL_PASS(ID, NAME, DESCRIPTION) NAME ","
#include "passes.def"
#undef KILN_HAL_PASS
      ;
  static char text[sizeof pipeline];
  for (size_t i = 0; i + 2 < sizeof pipeline; i++) text[i] = pipeline[i];
  kiln_pipeline_register("hal", "the whole hal stage, in order", text);
}
