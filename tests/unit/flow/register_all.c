/* Pass registration of kiln-opt-flow: every pass and the stage pipelines
 * of compiler/driver (see CMakeLists.txt for how kiln_opt.c calls this). */
#include "driver.h"

void kiln_opt_flow_register_all(void);

void kiln_opt_flow_register_all(void) { kiln_driver_register_passes(); }
