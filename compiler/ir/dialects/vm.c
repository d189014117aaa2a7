/* The vm dialect: verifiers and custom syntax for the rows of vm.def. */
#include "dialects.h"
