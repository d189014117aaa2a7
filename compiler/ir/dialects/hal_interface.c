/* hal.interface.*: verifiers and custom syntax for the rows of hal_interface.def. */
#include "dialects.h"
