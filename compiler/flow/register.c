/* Registration of the flow passes and of the "flow" pipeline, generated
 * from passes.def (the pipeline lists every row in table order). */
#include "flow.h"

void kiln_flow_register(void) {
#define KILN_FLOW_PASS(ID, NAME, DESCRIPTION)                        \
  {                                                                  \
    static const kiln_pass_info info = {NAME, DESCRIPTION,           \
                                        kiln_flow_pass_##ID, NULL};  \
    kiln_pass_register(&info);                                       \
  }
#include "passes.def"
#undef KILN_FLOW_PASS
  static const char pipeline[] =
#define KILN_FLOW_PASS(ID, NAME, DESCRIPTION) NAME ","
#include "passes.def"
#undef KILN_FLOW_PASS
      ;
  /* drop the trailing comma */
  static char text[sizeof pipeline];
  for (size_t i = 0; i + 2 < sizeof pipeline; i++) text[i] = pipeline[i];
  kiln_pipeline_register("flow", "the whole flow stage, in order", text);
}
