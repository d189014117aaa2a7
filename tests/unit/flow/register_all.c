/* Pass registration of kiln-opt-flow: the transforms, then the flow and
 * hal stages (see CMakeLists.txt for how kiln_opt.c calls this). */
#include "flow.h"
#ifdef KILN_HAVE_HAL
#include "hal.h"
#endif
#include "transforms.h"

void kiln_opt_flow_register_all(void);

void kiln_opt_flow_register_all(void) {
  kiln_transforms_register();
  kiln_flow_register();
#ifdef KILN_HAVE_HAL
  kiln_hal_register();
#endif
}
