/* Registration of the flow passes, generated from passes.def (the order
 * they run in is compiler/driver/pipeline.def's). */
#include "flow.h"

void kiln_flow_register(void) {
#define KILN_FLOW_PASS(ID, NAME, DESCRIPTION)                                         \
  {                                                                                   \
    static const kiln_pass_info info = {NAME, DESCRIPTION, kiln_flow_pass_##ID, NULL, \
                                        KILN_PASS_MODULE};                            \
    kiln_pass_register(&info);                                                        \
  }
#include "passes.def"
#undef KILN_FLOW_PASS
}
